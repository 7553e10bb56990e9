# The bash launcher (./repro) on a machine whose packages cannot be had:
# a copy of it in a fake root whose scripts/setup-deps.sh fails and whose
# build/linux/bin/repro only echoes its arguments. A command that only
# reads (verify) goes on with the existing native repro without trying an
# install, naming what is missing; a run (all) tries the install, then
# stops with exit 3 and names --prebuilt.
# And scripts/setup-deps.sh finds cmake (3.25 or newer) and ninja on PATH,
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
# CMakePresets.json's 3.25 is, unless Debian's /usr/bin/cmake is new
# enough; with a PATH that has neither, ninja is (and cmake, but for
# /usr/bin's).
set(bin "${root}/path-bin")
file(MAKE_DIRECTORY "${bin}")
find_program(bash_exe bash REQUIRED)
# Debian's /usr/bin/cmake, when new enough, stands in for an old one on
# PATH (--cmake names the one the launcher runs).
set(usr_cmake_ok FALSE)
if(EXISTS /usr/bin/cmake)
  execute_process(COMMAND /usr/bin/cmake --version OUTPUT_VARIABLE v)
  if(v MATCHES "version ([0-9]+[.][0-9]+)" AND
     NOT CMAKE_MATCH_1 VERSION_LESS 3.25)
    set(usr_cmake_ok TRUE)
  endif()
endif()
foreach(version 3.25.1 3.24.3 3.20.0)
  file(WRITE "${bin}/cmake"
    "#!/bin/sh\necho 'cmake version ${version}'\necho\necho 'CMake suite'\n")
  file(WRITE "${bin}/ninja" "#!/bin/sh\nexit 0\n")
  foreach(tool cmake ninja)
    file(CHMOD "${bin}/${tool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  endforeach()
  execute_process(COMMAND env "PATH=${bin}" "${bash_exe}"
      "${SRC}/scripts/setup-deps.sh" --check
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  execute_process(COMMAND env "PATH=${bin}" "${bash_exe}"
      "${SRC}/scripts/setup-deps.sh" --cmake
    RESULT_VARIABLE crc OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
  string(STRIP "${cout}" cout)
  if(NOT version VERSION_LESS 3.25)
    set(want_cmake "${bin}/cmake")
  elseif(usr_cmake_ok)
    set(want_cmake "/usr/bin/cmake")
  else()
    set(want_cmake "")
  endif()
  if(out MATCHES "ninja-build"
     OR (want_cmake STREQUAL "" AND NOT out MATCHES "missing packages: cmake")
     OR (NOT want_cmake STREQUAL "" AND out MATCHES "cmake")
     OR NOT cout STREQUAL want_cmake)
    message(FATAL_ERROR "setup-deps, cmake ${version} and ninja on PATH: ${rc}\n${out}${err}\n--cmake: ${crc} '${cout}' ${cerr} (want '${want_cmake}')")
  endif()
endforeach()
execute_process(COMMAND env "PATH=${root}/no-such-dir" "${bash_exe}"
    "${SRC}/scripts/setup-deps.sh" --check
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(usr_cmake_ok)
  set(want "missing packages: ninja-build")
else()
  set(want "missing packages: cmake ninja-build")
endif()
if(NOT rc EQUAL 1 OR NOT out MATCHES "${want}")
  message(FATAL_ERROR "setup-deps with neither on PATH: ${rc}\n${out}${err}")
endif()

# A machine with every package (a fake setup-deps that finds them all and
# names a stand-in cmake that logs where it ran): ./repro called from
# another folder runs cmake in the root, where CMakePresets.json is, and
# makes logs/ when it is missing; --help with packages missing installs
# nothing.
set(on "${WORK}/launcher-online")
file(REMOVE_RECURSE "${on}")
file(MAKE_DIRECTORY "${on}/scripts" "${on}/build/linux/bin" "${on}/elsewhere")
file(COPY "${SRC}/repro" DESTINATION "${on}"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(WRITE "${on}/scripts/setup-deps.sh" "#!/bin/sh
case \"$1\" in --cmake) echo '${on}/fakebin/cmake' ;; esac
exit 0
")
file(MAKE_DIRECTORY "${on}/fakebin")
file(WRITE "${on}/fakebin/cmake" "#!/bin/sh
echo \"cmake in $(pwd): $*\" >> '${on}/cmake-calls.txt'
")
# an nvcc beside the launcher's cmake: it must not come first for the
# native repro (only cmake and ctest are put ahead of PATH, as links)
file(WRITE "${on}/fakebin/nvcc" "#!/bin/sh\necho fake-nvcc\n")
file(WRITE "${on}/build/linux/bin/repro"
  "#!/bin/sh\necho \"native: $*\"\necho \"native cmake: $(readlink \"$(command -v cmake)\")\"\necho \"native nvcc: $(command -v nvcc)\"\n")
foreach(f scripts/setup-deps.sh fakebin/cmake fakebin/nvcc build/linux/bin/repro)
  file(CHMOD "${on}/${f}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()
execute_process(COMMAND "${on}/repro" doctor
  WORKING_DIRECTORY "${on}/elsewhere"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ "${on}/cmake-calls.txt" calls)
# (the fake cmake is not PATH's: the native repro, whose stages run cmake
# from PATH, is handed the launcher's one first on PATH, as a link in a
# folder of its own, so that nothing else of its folder comes first)
if(NOT rc EQUAL 0 OR NOT out MATCHES "native: --root .* doctor"
   OR NOT out MATCHES "native cmake: ${on}/fakebin/cmake"
   OR out MATCHES "native nvcc: ${on}/fakebin"
   OR NOT calls MATCHES "cmake in ${on}: --preset linux"
   OR NOT calls MATCHES "cmake in ${on}: --build --preset linux"
   OR calls MATCHES "elsewhere"
   OR NOT IS_DIRECTORY "${on}/logs")
  message(FATAL_ERROR "from another folder: exit ${rc}\n${out}${err}\ncmake calls:\n${calls}")
endif()

execute_process(COMMAND "${root}/repro" --help
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "native: --root .* --help"
   OR err MATCHES "FAKE-INSTALL-RAN")
  message(FATAL_ERROR "--help offline: exit ${rc}\n${out}${err}")
endif()

# A build folder configured before the CUDA toolkit was installed
# (CP_WITH_CUDA=OFF cached): with nvcc here now, the launcher configures
# again with cuda_portfolio on, instead of building without it for ever.
find_program(nvcc_exe nvcc PATHS /usr/local/cuda/bin)
if(nvcc_exe)
  file(WRITE "${on}/build/linux/build.ninja" "")
  file(WRITE "${on}/build/linux/CMakeCache.txt" "CP_WITH_CUDA:BOOL=OFF\n")
  file(REMOVE "${on}/cmake-calls.txt")
  execute_process(COMMAND "${on}/repro" doctor
    WORKING_DIRECTORY "${on}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(READ "${on}/cmake-calls.txt" calls)
  if(NOT rc EQUAL 0 OR NOT calls MATCHES "--preset linux -DCP_WITH_CUDA=ON"
     OR NOT err MATCHES "CUDA toolkit is here now")
    message(FATAL_ERROR "cached CP_WITH_CUDA=OFF: exit ${rc}\n${out}${err}\ncmake calls:\n${calls}")
  endif()
endif()
