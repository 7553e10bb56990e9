# Cross-compile repro.exe for 64-bit Windows with Debian's MinGW-w64, and run
# its tests under Wine (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CP_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${CP_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_RC_COMPILER ${CP_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${CP_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static runtime: repro.exe then needs no MinGW DLLs next to it under Wine.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc")
find_program(CP_WINE NAMES wine64 wine)
if(CP_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CP_WINE})
endif()
