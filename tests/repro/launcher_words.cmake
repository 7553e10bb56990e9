# The launcher's copy of repro's command words and options (rp_commands,
# rp_flags, rp_valued in ./repro, which it checks before any install or
# build) against the native repro, both ways:
#  - each of the launcher's words is the native's: `repro --help WORD` runs
#    nothing and is refused only for a word it does not know; a flag last is
#    taken, an option that takes a value last "needs a value";
#  - each command and option the native's --help lists is in the launcher's
#    lists (a new one there, missing here, would be refused by the launcher).
#   cmake -DSRC=<source dir> -DREPRO=<native repro> -P launcher_words.cmake
cmake_minimum_required(VERSION 3.25)
file(READ "${SRC}/repro" script)
foreach(list rp_commands rp_flags rp_valued)
  if(NOT script MATCHES "\n${list}=\"([^\"]*)\"")
    message(FATAL_ERROR "./repro has no ${list}=\"...\" line")
  endif()
  string(REPLACE " " ";" ${list} "${CMAKE_MATCH_1}")
endforeach()

function(native)
  execute_process(COMMAND "${REPRO}" --help ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# (the probe tells a known word from an unknown one)
native(selftset)
if(NOT err MATCHES "unknown command")
  message(FATAL_ERROR "repro --help selftset: ${rc} ${err}")
endif()
foreach(w IN LISTS rp_commands rp_flags)
  native(${w})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the launcher's '${w}' is not the native's: repro --help ${w}: exit ${rc}\n${err}")
  endif()
endforeach()
foreach(w IN LISTS rp_valued)
  native(${w})
  if(NOT err MATCHES "^repro: ${w} needs a value")
    message(FATAL_ERROR "the launcher's '${w}' takes no value for the native: repro --help ${w}: exit ${rc}\n${err}")
  endif()
endforeach()

execute_process(COMMAND "${REPRO}" --help OUTPUT_VARIABLE help)
if(NOT help MATCHES "\ncommands:\n(.*)\n\nstages:" )
  message(FATAL_ERROR "no commands: section in repro --help:\n${help}")
endif()
# a command line: two spaces, the words (lowercase ones are commands,
# RUN|BUNDLE and the like their arguments), two spaces, what it does
string(REGEX MATCHALL "\n  [a-z][^\n]*" lines "\n${CMAKE_MATCH_1}")
set(n 0)
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^\n  ([^ ]+( [^ ]+)*).*" "\\1" words "${line}")
  string(REPLACE " " ";" words "${words}")
  foreach(w IN LISTS words)
    if(w MATCHES "^[a-z]+$")
      math(EXPR n "${n} + 1")
      if(NOT w IN_LIST rp_commands)
        message(FATAL_ERROR "repro --help lists the command '${w}'; ./repro's rp_commands has not got it")
      endif()
    endif()
  endforeach()
endforeach()
if(NOT help MATCHES "\noptions:\n(.*)\n\nexit codes:")
  message(FATAL_ERROR "no options: section in repro --help:\n${help}")
endif()
string(REGEX MATCHALL "\n  (-h, )?--[a-z-]+" opts "\n${CMAKE_MATCH_1}")
foreach(o IN LISTS opts)
  string(REGEX REPLACE "^\n  (-h, )?" "" o "${o}")
  math(EXPR n "${n} + 1")
  if(NOT o IN_LIST rp_flags AND NOT o IN_LIST rp_valued)
    message(FATAL_ERROR "repro --help lists the option '${o}'; ./repro's rp_flags and rp_valued have not got it")
  endif()
endforeach()
list(LENGTH rp_commands nc)
list(LENGTH rp_flags nf)
list(LENGTH rp_valued nv)
# every word of the launcher's, less -h, was found in the help
math(EXPR want "${nc} + ${nf} + ${nv} - 1")
if(NOT n EQUAL want)
  message(FATAL_ERROR "repro --help named ${n} commands and options; ./repro has ${want} (less -h)")
endif()
