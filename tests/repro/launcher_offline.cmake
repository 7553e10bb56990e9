# The bash launcher (./repro) on a machine whose packages cannot be had:
# a copy of it in a fake root whose scripts/setup-deps.sh fails and whose
# build/linux/bin/repro only echoes its arguments. A command that only
# reads (verify) goes on with the existing native repro without trying an
# install, naming what is missing; a run (all) tries the install, then
# stops with exit 3 and names --prebuilt.
# And scripts/setup-deps.sh finds cmake (3.24 or newer) and ninja on PATH,
# wherever they came from.
#   cmake -DSRC=<source dir> -DWORK=<scratch dir> -P launcher_offline.cmake
set(root "${WORK}/launcher-offline")
file(REMOVE_RECURSE "${root}")
file(MAKE_DIRECTORY "${root}/scripts" "${root}/build/linux/bin" "${root}/logs")
file(COPY "${SRC}/repro" DESTINATION "${root}"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
# the fake: --check names two missing packages; an install says it was
# tried, then fails as with no network
file(WRITE "${root}/scripts/setup-deps.sh" "#!/bin/sh
if [ \"$1\" = --check ]; then
  echo 'setup-deps: missing packages: cmake libuv1-dev'; exit 1
fi
echo 'setup-deps: FAKE-INSTALL-RAN; no network' >&2
exit 1
")
file(WRITE "${root}/build/linux/bin/repro" "#!/bin/sh\necho \"native: $*\"\n")
foreach(f scripts/setup-deps.sh build/linux/bin/repro)
  file(CHMOD "${root}/${f}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()

# (an option's value before the command is not taken for the command)
execute_process(COMMAND "${root}/repro" --out "${WORK}" verify some-run.tar.gz
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# (no install is tried for a command that only reads: no wait on apt's
# network, no noise; the missing packages are named)
if(NOT rc EQUAL 0
   OR NOT out MATCHES "native: --root .* --out .* verify some-run.tar.gz"
   OR NOT err MATCHES "missing packages: cmake libuv1-dev; verify only reads"
   OR err MATCHES "FAKE-INSTALL-RAN")
  message(FATAL_ERROR "verify offline: exit ${rc}\n${out}${err}")
endif()

execute_process(COMMAND "${root}/repro" --only time all
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3 OR out MATCHES "native:"
   OR NOT err MATCHES "FAKE-INSTALL-RAN"
   OR NOT err MATCHES "could not install the build dependencies"
   OR NOT err MATCHES "[.]/repro --prebuilt --only time all")
  message(FATAL_ERROR "all offline: exit ${rc}\n${out}${err}")
endif()

# scripts/setup-deps.sh takes cmake and ninja from PATH wherever they came
# from (the GPU machine's cmake is pip's, not /usr/bin/cmake): with a PATH
# that has them (stand-ins) neither is named missing; a cmake older than
# CMakePresets.json's 3.24 is; with a PATH that has neither, both are.
set(bin "${root}/path-bin")
file(MAKE_DIRECTORY "${bin}")
find_program(bash_exe bash REQUIRED)
foreach(version 3.25.1 3.20.0)
  file(WRITE "${bin}/cmake"
    "#!/bin/sh\necho 'cmake version ${version}'\necho\necho 'CMake suite'\n")
  file(WRITE "${bin}/ninja" "#!/bin/sh\nexit 0\n")
  foreach(tool cmake ninja)
    file(CHMOD "${bin}/${tool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  endforeach()
  execute_process(COMMAND env "PATH=${bin}" "${bash_exe}"
      "${SRC}/scripts/setup-deps.sh" --check
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(out MATCHES "ninja-build"
     OR (version VERSION_LESS 3.24 AND NOT out MATCHES "missing packages: cmake")
     OR (NOT version VERSION_LESS 3.24 AND out MATCHES "cmake"))
    message(FATAL_ERROR "setup-deps, cmake ${version} and ninja on PATH: ${rc}\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND env "PATH=${root}/no-such-dir" "${bash_exe}"
    "${SRC}/scripts/setup-deps.sh" --check
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "missing packages: cmake ninja-build")
  message(FATAL_ERROR "setup-deps with neither on PATH: ${rc}\n${out}${err}")
endif()
