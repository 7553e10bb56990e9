# The bash launcher (./repro) on a machine with every package, one case a
# run (each its own ctest entry, repro_launcher.<case>): a copy of it in a
# fake root whose scripts/setup-deps.sh finds everything and names a
# stand-in cmake that logs each call (cmake-calls.txt: "cmake in <cwd>:
# <args>") and, for `cmake -N --preset P`, prints the preset's variables
# from preset-vars.txt; build/linux/bin/repro only echoes its arguments.
#   cmake -DSRC=<source dir> -DWORK=<scratch dir> -DCASE=<case>
#         -P launcher_cases.cmake
set(r "${WORK}/launcher-${CASE}")
file(REMOVE_RECURSE "${r}")
file(MAKE_DIRECTORY "${r}/scripts" "${r}/build/linux/bin" "${r}/fakebin")
file(COPY "${SRC}/repro" DESTINATION "${r}"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(WRITE "${r}/scripts/setup-deps.sh" "#!/bin/sh
case \"$1\" in --cmake) echo '${r}/fakebin/cmake' ;; esac
exit 0
")
file(WRITE "${r}/fakebin/cmake" "#!/bin/sh
echo \"cmake in $(pwd): $*\" >> '${r}/cmake-calls.txt'
if [ \"$1\" = -N ]; then cat '${r}/preset-vars.txt' 2>/dev/null; fi
exit 0
")
file(WRITE "${r}/build/linux/bin/repro" "#!/bin/sh\necho \"native: $*\"\n")
foreach(f scripts/setup-deps.sh fakebin/cmake build/linux/bin/repro)
  file(CHMOD "${r}/${f}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()

# runs the launcher (from the root) with ARGN, ${r}/pathbin first on PATH
# (a case puts an nvcc there); sets rc, out, err, calls
file(MAKE_DIRECTORY "${r}/pathbin")
macro(launch)
  file(REMOVE "${r}/cmake-calls.txt")
  execute_process(COMMAND env "PATH=${r}/pathbin:$ENV{PATH}"
      "${r}/repro" ${ARGN} WORKING_DIRECTORY "${r}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(calls "")
  if(EXISTS "${r}/cmake-calls.txt")
    file(READ "${r}/cmake-calls.txt" calls)
  endif()
endmacro()
function(fail what)
  message(FATAL_ERROR "${CASE}: ${what}: exit ${rc}\n${out}${err}\ncmake calls:\n${calls}")
endfunction()

# the real path of the root, as cmake writes CMAKE_HOME_DIRECTORY
execute_process(COMMAND pwd -P WORKING_DIRECTORY "${r}"
  OUTPUT_VARIABLE real OUTPUT_STRIP_TRAILING_WHITESPACE)

if(CASE STREQUAL "moved_checkout")
  # A build folder configured for another checkout (copied or moved here):
  # its build.ninja would rerun cmake on, and build, the old tree. The
  # launcher drops that folder's cache and configures it again here.
  file(WRITE "${r}/build/linux/build.ninja" "")
  file(MAKE_DIRECTORY "${r}/build/linux/CMakeFiles/old")
  file(WRITE "${r}/build/linux/CMakeCache.txt"
    "CMAKE_HOME_DIRECTORY:INTERNAL=/old/checkout\n")
  launch(doctor)
  if(NOT rc EQUAL 0 OR NOT err MATCHES "configured for /old/checkout"
     OR NOT calls MATCHES "cmake in ${r}: --preset linux"
     OR EXISTS "${r}/build/linux/CMakeCache.txt"
     OR EXISTS "${r}/build/linux/CMakeFiles"
     OR NOT EXISTS "${r}/build/linux/bin/repro")
    fail("a build folder of /old/checkout")
  endif()
  # this checkout's own: built as it is, not configured again
  file(WRITE "${r}/build/linux/CMakeCache.txt"
    "CMAKE_HOME_DIRECTORY:INTERNAL=${real}\n")
  launch(doctor)
  if(NOT rc EQUAL 0 OR calls MATCHES ": --preset linux"
     OR NOT calls MATCHES "--build --preset linux"
     OR NOT EXISTS "${r}/build/linux/CMakeCache.txt")
    fail("this checkout's build folder")
  endif()
  # --prebuilt: a carried build folder is used as it is
  file(WRITE "${r}/build/linux/CMakeCache.txt"
    "CMAKE_HOME_DIRECTORY:INTERNAL=/old/checkout\n")
  launch(--prebuilt doctor)
  if(NOT rc EQUAL 0 OR NOT calls STREQUAL ""
     OR NOT EXISTS "${r}/build/linux/CMakeCache.txt")
    fail("--prebuilt with a build folder of /old/checkout")
  endif()
elseif(CASE STREQUAL "preset_cuda_off")
  # A preset that switches CUDA off itself (windows-mingw, linux-fuzz):
  # its cache says CP_WITH_CUDA:BOOL=OFF, which is no build made before the
  # toolkit came, so an nvcc here changes nothing (-DCP_WITH_CUDA=ON made
  # `cmake --preset windows-mingw` fail).
  file(WRITE "${r}/pathbin/nvcc" "#!/bin/sh\nexit 0\n")
  file(CHMOD "${r}/pathbin/nvcc" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(MAKE_DIRECTORY "${r}/build/windows-mingw/bin")
  file(COPY "${r}/build/linux/bin/repro"
    DESTINATION "${r}/build/windows-mingw/bin")
  foreach(p linux windows-mingw)
    file(WRITE "${r}/build/${p}/build.ninja" "")
    file(WRITE "${r}/build/${p}/CMakeCache.txt" "CP_WITH_CUDA:BOOL=OFF\n")
  endforeach()
  file(WRITE "${r}/preset-vars.txt"
    "Preset CMake variables:\n\n  CP_WITH_CUDA=\"OFF\"\n  X=\"1\"\n")
  launch(--preset windows-mingw doctor)
  if(NOT rc EQUAL 0 OR calls MATCHES "CP_WITH_CUDA"
     OR err MATCHES "toolkit is here now"
     OR NOT calls MATCHES "cmake in ${r}: -N --preset windows-mingw"
     OR NOT calls MATCHES "--build --preset windows-mingw")
    fail("windows-mingw, CP_WITH_CUDA=OFF its own")
  endif()
  # a preset that leaves it to the project (linux): configured again with
  # cuda_portfolio, the toolkit being here now
  file(WRITE "${r}/preset-vars.txt" "Preset CMake variables:\n\n  X=\"1\"\n  CMAKE_CUDA_COMPILER=\"${r}/pathbin/nvcc\"\n")
  launch(doctor)
  if(NOT rc EQUAL 0 OR NOT calls MATCHES ": --preset linux -DCP_WITH_CUDA=ON"
     OR NOT err MATCHES "toolkit is here now")
    fail("linux, CP_WITH_CUDA=OFF cached")
  endif()
elseif(CASE STREQUAL "nvcc_elsewhere")
  # An nvcc on PATH but not where the preset names it (CMAKE_CUDA_COMPILER,
  # /usr/local/cuda/bin/nvcc for linux): cmake would fail to configure
  # ("Couldn't find CUDA library root"); the launcher builds repro alone,
  # naming both.
  file(WRITE "${r}/pathbin/nvcc" "#!/bin/sh\nexit 0\n")
  file(CHMOD "${r}/pathbin/nvcc" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(WRITE "${r}/preset-vars.txt" "Preset CMake variables:\n\n  CMAKE_CUDA_COMPILER=\"${r}/no-cuda/bin/nvcc\"\n")
  launch(doctor)
  if(NOT rc EQUAL 0 OR NOT calls MATCHES ": --preset linux -DCP_WITH_CUDA=OFF"
     OR NOT err MATCHES "${r}/no-cuda/bin/nvcc"
     OR NOT err MATCHES "${r}/pathbin/nvcc")
    fail("nvcc on PATH, not the preset's")
  endif()
  # the preset's nvcc there (typed, as a preset may give it): configured
  # as the preset says
  file(REMOVE "${r}/build/linux/build.ninja")
  file(WRITE "${r}/preset-vars.txt" "Preset CMake variables:\n\n  CMAKE_CUDA_COMPILER:FILEPATH=\"${r}/pathbin/nvcc\"\n")
  launch(doctor)
  if(NOT rc EQUAL 0 OR calls MATCHES "CP_WITH_CUDA"
     OR NOT calls MATCHES ": --preset linux\n")
    fail("the preset's nvcc")
  endif()
elseif(CASE STREQUAL "concurrent")
  # Two ./repro at once on a fresh tree: configure and build overlapped (one
  # failed in cmake's compiler checks, getcwd; both wrote the same logs).
  # One waits for the other, saying so; the native runs without the lock.
  file(WRITE "${r}/fakebin/cmake" "#!/bin/sh
echo \"cmake in $(pwd): $*\" >> '${r}/cmake-calls.txt'
[ \"$1\" = -N ] && exit 0
mkdir '${r}/busy' 2>/dev/null || echo OVERLAP >> '${r}/cmake-calls.txt'
sleep 1
rmdir '${r}/busy' 2>/dev/null
exit 0
")
  file(WRITE "${r}/build/linux/bin/repro" "#!/bin/sh
echo \"native: $*\"
[ -e /proc/$$/fd/9 ] && echo 'native: fd 9 open'
exit 0
")
  file(REMOVE "${r}/cmake-calls.txt")
  execute_process(COMMAND bash -c "
    ./repro doctor >o1 2>e1 & a=$!
    ./repro doctor >o2 2>e2 & b=$!
    wait $a; ra=$?; wait $b; echo \"$ra $?\""
    WORKING_DIRECTORY "${r}"
    RESULT_VARIABLE brc OUTPUT_VARIABLE rc ERROR_VARIABLE err)
  string(STRIP "${rc}" rc)
  file(READ "${r}/cmake-calls.txt" calls)
  foreach(f o1 o2 e1 e2)
    file(READ "${r}/${f}" ${f})
  endforeach()
  set(out "${o1}${o2}")
  set(err "${err}${e1}${e2}")
  if(NOT rc STREQUAL "0 0" OR calls MATCHES "OVERLAP"
     OR NOT err MATCHES "waiting for another [.]/repro's build"
     OR out MATCHES "fd 9 open"
     OR NOT o1 MATCHES "native:" OR NOT o2 MATCHES "native:")
    fail("two at once")
  endif()
elseif(CASE STREQUAL "interrupted")
  # A signal while the launcher builds (or waits for the lock) is exit 130,
  # as the native's, not "build failed" (3); the build it started is ended
  # with it (a SIGTERM to the launcher alone left cmake, ninja and nvcc
  # running on, holding build/.repro.lock, so that every later ./repro
  # waited on them), and the build never held the lock's fd.
  file(WRITE "${r}/fakebin/cmake" "#!/bin/sh
[ \"$1\" = -N ] && exit 0
[ -e /proc/$$/fd/9 ] && echo FD9 >> '${r}/cmake-calls.txt'
echo $$ > '${r}/cmake.pid'
sleep 30
exit 0
")
  file(WRITE "${r}/build/linux/build.ninja" "")
  foreach(sig INT TERM HUP)
    file(REMOVE "${r}/cmake.pid" "${r}/cmake-calls.txt")
    # job control on: the launcher in a group of its own, SIGINT not
    # ignored as a non-interactive shell's background jobs have it
    execute_process(COMMAND bash -c "set -m
      ./repro doctor >o 2>e & p=$!
      for i in $(seq 100); do [ -s cmake.pid ] && break; sleep 0.1; done
      kill -${sig} $p; wait $p; echo $?
      sleep 0.5
      if kill -0 $(cat cmake.pid) 2>/dev/null; then echo ALIVE; fi
      flock -n build/.repro.lock true || echo LOCKED"
      WORKING_DIRECTORY "${r}"
      RESULT_VARIABLE brc OUTPUT_VARIABLE rc ERROR_VARIABLE err)
    string(STRIP "${rc}" rc)
    file(READ "${r}/e" e)
    set(calls "")
    if(EXISTS "${r}/cmake-calls.txt")
      file(READ "${r}/cmake-calls.txt" calls)
    endif()
    set(err "${err}${e}")
    if(NOT rc STREQUAL "130" OR NOT e MATCHES "interrupted [(]SIG${sig}[)]"
       OR e MATCHES "failed" OR calls MATCHES "FD9")
      fail("SIG${sig} during the build")
    endif()
  endforeach()
  # and while it waits for another's lock
  execute_process(COMMAND bash -c "set -m
    flock build/.repro.lock sleep 20 & h=$!
    sleep 0.3
    ./repro doctor >o 2>e & p=$!
    for i in $(seq 50); do grep -q waiting e 2>/dev/null && break; sleep 0.1; done
    kill -TERM $p; wait $p; echo $?
    kill -- -$h"
    WORKING_DIRECTORY "${r}"
    RESULT_VARIABLE brc OUTPUT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 15)
  string(STRIP "${rc}" rc)
  file(READ "${r}/e" e)
  set(err "${err}${e}")
  if(NOT rc STREQUAL "130" OR NOT e MATCHES "waiting for another"
     OR NOT e MATCHES "interrupted [(]SIGTERM[)]")
    fail("SIGTERM while waiting for the lock")
  endif()
elseif(CASE STREQUAL "build_dir")
  # --build-dir D (or --build-dir=D, relative to where ./repro is called)
  # names the build folder the native repro comes from: a carried build
  # (--prebuilt) elsewhere than build/<preset>.
  file(MAKE_DIRECTORY "${r}/carried/bin")
  file(WRITE "${r}/carried/bin/repro" "#!/bin/sh\necho \"carried native: $*\"\n")
  file(CHMOD "${r}/carried/bin/repro" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  launch(--prebuilt --build-dir "${r}/carried" doctor)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "carried native: --root .* --build-dir ${r}/carried doctor")
    fail("--prebuilt --build-dir DIR")
  endif()
  launch(--prebuilt --build-dir=carried doctor)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "carried native: ")
    fail("--prebuilt --build-dir=DIR (relative)")
  endif()
  # no native there: named, nothing else run
  launch(--prebuilt --build-dir "${r}/nowhere" doctor)
  if(NOT rc EQUAL 3 OR out MATCHES "native:"
     OR NOT err MATCHES "native repro not found at ${r}/nowhere/bin/repro")
    fail("--prebuilt --build-dir of no build")
  endif()
  # without --prebuilt the preset's folder is built; where --build-dir has
  # no repro, the one built runs, handed --build-dir for its stages
  launch(--build-dir "${r}/nowhere" doctor)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^native: --root .* --build-dir ${r}/nowhere doctor"
     OR NOT calls MATCHES "--build --preset linux")
    fail("--build-dir of no build, not prebuilt")
  endif()
elseif(CASE STREQUAL "usage_first")
  # A typo is a usage error (exit 2, as the native says it) before any
  # install, configure or build: on a fresh machine those took 40 minutes
  # before the native named it.
  foreach(argv "selftset" "--bogus|all" "all|--only" "all|extra"
               "--strict=1|all" "--keep-going" "verify" "--help|selftset")
    string(REPLACE "|" ";" argv "${argv}")
    launch(${argv})
    if(NOT rc EQUAL 2 OR NOT calls STREQUAL "" OR out MATCHES "native:"
       OR NOT err MATCHES "^repro: (unknown|unexpected|no command|verify needs|--only needs|--strict takes)")
      fail("${argv}")
    endif()
  endforeach()
  # what the native takes goes on: options in either form, before or after
  # the command, and report's and compare's own arguments after theirs
  foreach(argv "--out=logs|verify|some-run.tar.gz"
               "--out|verify|verify|report"
               "report|RUN|--junit|--sarif"
               "compare|A|B|--threshold=5%"
               "--preset|linux|--select|--op softmax|time|--strict"
               "--help")
    string(REPLACE "|" ";" argv "${argv}")
    launch(${argv})
    if(NOT rc EQUAL 0 OR NOT out MATCHES "native: ")
      fail("${argv}")
    endif()
  endforeach()
elseif(CASE STREQUAL "symlink")
  # A link to the launcher elsewhere (~/bin/repro) finds the root where the
  # launcher is, not where the link is.
  file(MAKE_DIRECTORY "${r}/elsewhere/bin")
  file(CREATE_LINK "${r}/repro" "${r}/elsewhere/bin/repro" SYMBOLIC)
  file(CREATE_LINK "bin/repro" "${r}/elsewhere/repro2" SYMBOLIC)
  foreach(link bin/repro repro2)
    file(REMOVE "${r}/cmake-calls.txt")
    execute_process(COMMAND "${r}/elsewhere/${link}" doctor
      WORKING_DIRECTORY "${r}/elsewhere"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "native: --root ${real} doctor")
      set(calls "")
      fail("through ${link}")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
