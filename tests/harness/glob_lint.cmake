# Every file(GLOB ...) of the build (CMakeLists.txt, cmake/*.cmake) has
# CONFIGURE_DEPENDS: without it a file added or removed where it looks (a
# new evidence bundle under results/, a fixture) changes nothing until
# someone reruns cmake by hand, and "sources changed" builds miss it.
# (Scripts run with cmake -P glob at run time; they are not checked.)
#   cmake -DSRC=<source dir> -P glob_lint.cmake
# The folders that hold the build's CMake files, not the whole tree: a
# recursive search from the root walks build/ and third_party/ (gigabytes
# on a build machine; minutes).
file(GLOB files "${SRC}/CMakeLists.txt" "${SRC}/cmake/*.cmake")
foreach(d src kernels platform tests)
  file(GLOB_RECURSE more "${SRC}/${d}/CMakeLists.txt")
  list(APPEND files ${more})
endforeach()
set(bad "")
set(n 0)
foreach(f IN LISTS files)
  file(READ "${f}" text)
  string(REGEX REPLACE "#[^\n]*" "" text "${text}") # comments
  string(REGEX MATCHALL "file[(][ \t\n]*GLOB(_RECURSE)?[^)]*[)]" calls "${text}")
  foreach(c IN LISTS calls)
    math(EXPR n "${n} + 1")
    if(NOT c MATCHES "CONFIGURE_DEPENDS")
      string(APPEND bad "${f}: ${c}\n")
    endif()
  endforeach()
endforeach()
if(n EQUAL 0)
  message(FATAL_ERROR "no file(GLOB) found under ${SRC}: the search is wrong")
endif()
if(NOT bad STREQUAL "")
  message(FATAL_ERROR "file(GLOB) without CONFIGURE_DEPENDS:\n${bad}")
endif()
