# Runs EXE with ARGS (arguments joined by |) and checks its exit code is CODE
# and that its combined output matches REGEX. EMULATOR (optional) runs EXE.
# SKIP_CODE (optional): that exit code is a skip, said by the marker line
# "CP_TEST_SKIPPED: " (CP_SKIP_REGEX, the test's SKIP_REGULAR_EXPRESSION)
# and exit 0: a cmake -P script has no exit code of its own before CMake
# 3.29's cmake_language(EXIT).
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${EMULATOR} ${EXE} ${ARGS} RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(DEFINED SKIP_CODE AND rc STREQUAL SKIP_CODE)
  message("${out}${err}CP_TEST_SKIPPED: exit ${rc}")
  return()
endif()
if(NOT rc STREQUAL CODE)
  message(FATAL_ERROR "exit code ${rc}, expected ${CODE}\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${out}${err}")
endif()
