# scripts/fetch-mingw-deps.sh, not root, with the libraries built (the
# stamp) but no deb-src list of its own: that list serves apt-get source
# only, which a built prefix no longer needs, so it is "up to date" (exit
# 0, as --check says), not "needs root" with an empty `sudo apt-get
# install` (exit 1, and ./repro selftest's exit 3). A stand-in `id` says
# uid 1000 and a stand-in apt-get says it ran; CP_MINGW_SRC_LIST names a
# list that is not there. Where this machine lacks a package the script
# still asks for root, naming the packages: never an empty install line.
#   cmake -DSRC=<source dir> -DWORK=<scratch dir> -P fetch_mingw_deps.cmake
set(r "${WORK}/fetch-mingw")
file(REMOVE_RECURSE "${r}")
file(MAKE_DIRECTORY "${r}/scripts" "${r}/third_party/mingw-prefix" "${r}/bin")
file(COPY "${SRC}/scripts/fetch-mingw-deps.sh" DESTINATION "${r}/scripts"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(WRITE "${r}/third_party/mingw-prefix/.stamp" "")
file(WRITE "${r}/third_party/mingw-prefix/VERSIONS" "libuv1 1.44\njansson 2.14\n")
file(WRITE "${r}/bin/id" "#!/bin/sh\necho 1000\n")
file(WRITE "${r}/bin/apt-get" "#!/bin/sh\necho APT-GET-RAN \"$*\"\nexit 1\n")
foreach(f bin/id bin/apt-get)
  file(CHMOD "${r}/${f}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()
set(run env "PATH=${r}/bin:$ENV{PATH}"
  "CP_MINGW_SRC_LIST=${r}/no-such.sources" bash "${r}/scripts/fetch-mingw-deps.sh")
execute_process(COMMAND ${run} --check
  RESULT_VARIABLE crc OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
execute_process(COMMAND ${run}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(all MATCHES "APT-GET-RAN" OR all MATCHES "--no-install-recommends *\n")
  message(FATAL_ERROR "apt-get run, or an empty install line: exit ${rc}\n${all}")
endif()
if(crc EQUAL 0 AND (NOT rc EQUAL 0 OR NOT all MATCHES "up to date"))
  message(FATAL_ERROR "--check says all present (${cout}), but: exit ${rc}\n${all}")
endif()
if(NOT crc EQUAL 0 AND (rc EQUAL 0 OR NOT all MATCHES "apt-get install -y --no-install-recommends [a-z]"))
  message(FATAL_ERROR "--check says something is missing (${cout}), but: exit ${rc}\n${all}")
endif()
