# expect_exit.cmake checks the exit code AND the output (a test that only
# matched a line, PASS_REGULAR_EXPRESSION, passed a binary that printed it
# and exited 1), and maps a skip code through as the CP_TEST_SKIPPED marker;
# and no test of the tree matches its output alone.
#   cmake -DSRC=<source dir> -DSKIP_REGEX=<CP_SKIP_REGEX> -P expect_exit_test.cmake
cmake_minimum_required(VERSION 3.25)
find_program(sh sh REQUIRED)
# expect_exit.cmake on `sh -c SCRIPT` wanting exit 0 and "caught=yes",
# skip code 77 (as the gpu tests); sets rc and out
function(wrap script)
  execute_process(COMMAND ${CMAKE_COMMAND} -DEXE=${sh} "-DARGS=-c|${script}"
      -DCODE=0 "-DREGEX=VERIFY-CONTROL .* caught=yes" -DSKIP_CODE=77
      -P ${SRC}/tests/harness/expect_exit.cmake
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
endfunction()

# the line printed, but exit 1 (or 3: no device under KERNEL_REQUIRE_GPU=1)
foreach(code 1 3)
  wrap("echo 'VERIFY-CONTROL op=add_ftz x caught=yes' && exit ${code}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "exit ${code} with the line passed:\n${out}")
  endif()
endforeach()
# exit 0 without the line
wrap("echo 'VERIFY-CONTROL op=add_ftz x caught=no'")
if(rc EQUAL 0)
  message(FATAL_ERROR "exit 0 without the line passed:\n${out}")
endif()
# both: passes, and is no skip
wrap("echo 'VERIFY-CONTROL op=add_ftz x caught=yes'")
if(NOT rc EQUAL 0 OR out MATCHES "${SKIP_REGEX}")
  message(FATAL_ERROR "exit 0 with the line: ${rc}\n${out}")
endif()
# no device: exit 77 is the skip marker, exit 0
wrap("echo no device && exit 77")
if(NOT rc EQUAL 0 OR NOT out MATCHES "${SKIP_REGEX}")
  message(FATAL_ERROR "exit 77: ${rc}\n${out}")
endif()

file(GLOB_RECURSE lists "${SRC}/tests/CMakeLists.txt" "${SRC}/tests/*/CMakeLists.txt")
foreach(f IN LISTS lists)
  file(READ "${f}" text)
  if(text MATCHES "PASS_REGULAR_EXPRESSION")
    message(FATAL_ERROR "${f}: PASS_REGULAR_EXPRESSION ignores the exit code; use harness/expect_exit.cmake")
  endif()
endforeach()
