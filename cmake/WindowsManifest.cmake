# cp_windows_manifest(target): embeds cmake/longpath.manifest in a Windows
# executable, so that it is longPathAware: where the system enables long
# paths (LongPathsEnabled, Windows 10 1607 and later), Win32 then takes
# paths past MAX_PATH (260) in any spelling; where it does not, the
# manifest changes nothing (docs/WINDOWS.md, Long paths). Nothing on other
# systems. The manifest file itself carries no comment: Windows refuses to
# start a program whose manifest it cannot parse, so it is kept to the
# documented form. MSVC (and nvcc's link on Windows, which goes through
# the same `cmake -E vs_link_exe`) merges a .manifest source into the
# manifest its linker writes. MinGW's linker writes none, so there the file
# goes in as resource 1 of type RT_MANIFEST (24), the one Windows reads at
# process start, through a generated .rc (windres; CMake enables RC for
# MinGW itself).
function(cp_windows_manifest target)
  if(NOT WIN32)
    return()
  endif()
  set(manifest "${PROJECT_SOURCE_DIR}/cmake/longpath.manifest")
  if(MSVC)
    target_sources(${target} PRIVATE "${manifest}")
  else()
    set(rc "${CMAKE_CURRENT_BINARY_DIR}/${target}_manifest.rc")
    file(CONFIGURE OUTPUT "${rc}" CONTENT "1 24 \"${manifest}\"\n")
    target_sources(${target} PRIVATE "${rc}")
    set_property(SOURCE "${rc}" APPEND PROPERTY OBJECT_DEPENDS "${manifest}")
  endif()
endfunction()
