# Cross-compile repro.exe for 64-bit Windows with Debian's MinGW-w64, and run
# its tests under Wine (CMAKE_CROSSCOMPILING_EMULATOR).
#
# scripts/fetch-mingw-deps.sh installs the compiler, Wine and zlib, and builds
# libuv and jansson into third_party/mingw-prefix (CP_DEPS_PREFIX in the
# windows-mingw preset).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CP_MINGW_TRIPLE x86_64-w64-mingw32)
# The posix flavour: its winpthreads gives C11 _Thread_local and libuv what
# it expects; the win32 flavour has neither std::thread nor the same runtime.
set(CMAKE_C_COMPILER ${CP_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_RC_COMPILER ${CP_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${CP_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# MinGW's own printf family (C99: %zu, %lld, %a) instead of msvcrt's, which
# does not know %zu; the project prints sizes with it.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
# Static runtime: repro.exe then needs no MinGW DLLs next to it under Wine or
# on a Windows machine it is copied to.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc")

# Wine. Debian 12 ships /usr/bin/wine (which picks the 64-bit loader for a
# 64-bit .exe); a wine64 command exists on other distributions. Tests run
# through scripts/wine-run.sh, which keeps the Wine prefix (Wine's fake C:) in
# the build tree, so CI starts from nothing and ~/.wine is never touched, and
# which starts Wine's server once, away from ctest's output pipes (see the
# script for why that matters: seconds per test otherwise).
find_program(CP_WINE NAMES wine64 wine)
if(CP_WINE)
  get_filename_component(CP_WINE_RUN
    "${CMAKE_CURRENT_LIST_DIR}/../scripts/wine-run.sh" ABSOLUTE)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      /usr/bin/env CP_WINE=${CP_WINE} ${CP_WINE_RUN}
      "${CMAKE_BINARY_DIR}/wineprefix")
endif()
