# Archive parity between repro.exe (under Wine) and the Linux repro: a run
# archive written by one must verify with the other, and a tampered one must
# fail with exit 4 (verify's mismatch code) on both.
#
#   cmake -DEXE=repro.exe -DEMU="wine-run|args" -DLINUX_REPRO=path
#         -DROOT=src -DWORK=dir -P archive_parity.cmake
#
# Skipped when the Linux build is absent (the test needs both): the marker
# line CP_TEST_SKIPPED (the test's SKIP_REGULAR_EXPRESSION) and exit 0;
# cmake_language(EXIT 77) needs CMake 3.29, and Debian 12 has 3.25.
string(REPLACE "|" ";" EMU "${EMU}")
if(NOT EXISTS "${LINUX_REPRO}")
  message("CP_TEST_SKIPPED: no Linux repro at ${LINUX_REPRO} (build the linux preset)")
  return()
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/win" "${WORK}/linux")

function(run expect)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  message("$ ${ARGN}\n${out}-> exit ${rc}")
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "expected exit ${expect}, got ${rc}")
  endif()
endfunction()

# Wine maps the Unix root to drive Z:.
function(winpath out p)
  string(REPLACE "/" "\\" p "${p}")
  set(${out} "Z:${p}" PARENT_SCOPE)
endfunction()

winpath(wroot "${ROOT}")
winpath(wout "${WORK}/win")
# No device here: the time stage is skipped (exit 10), the archive written.
run(10 ${EMU} "${EXE}" --root "${wroot}" --out "${wout}" time)
run(10 "${LINUX_REPRO}" --root "${ROOT}" --out "${WORK}/linux" time)

file(GLOB wdirs LIST_DIRECTORIES true "${WORK}/win/*")
file(GLOB ldirs LIST_DIRECTORIES true "${WORK}/linux/*")
foreach(d IN LISTS wdirs)
  run(0 "${LINUX_REPRO}" verify "${d}")          # dir and .tar.gz bundle
endforeach()
foreach(d IN LISTS ldirs)
  winpath(wd "${d}")
  run(0 ${EMU} "${EXE}" verify "${wd}")
endforeach()
list(LENGTH wdirs nw)
list(LENGTH ldirs nl)
if(nw LESS 2 OR nl LESS 2)
  message(FATAL_ERROR "expected a run folder and a bundle from each side")
endif()

# Tamper with one archived file on each side: both verifiers must say so.
foreach(side win linux)
  file(GLOB m "${WORK}/${side}/*/manifest.json")
  get_filename_component(run_dir "${m}" DIRECTORY)
  file(GLOB victims "${run_dir}/*.md")
  list(GET victims 0 v)
  file(APPEND "${v}" "tampered\n")
  run(4 "${LINUX_REPRO}" verify "${run_dir}")
  winpath(wd "${run_dir}")
  run(4 ${EMU} "${EXE}" verify "${wd}")
endforeach()
