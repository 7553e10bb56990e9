# Third-party libraries as imported targets: dep::uv, dep::jansson, dep::zlib.
#
# Linux (Debian/Ubuntu): libuv1-dev, libjansson-dev and zlib1g-dev. With
# CP_STATIC_DEPS (the default) the static archives are linked, so that a build
# folder made here runs on a machine that has none of them (the GPU machine).
# Windows (MSVC): the vcpkg manifest (vcpkg.json) provides CMake packages.
# MinGW cross build: CP_DEPS_PREFIX points at the prefix that
# scripts/fetch-mingw-deps.sh fills from Debian's source packages.
set(CP_DEPS_PREFIX "" CACHE PATH "Extra prefix searched first for deps")
if(CP_DEPS_PREFIX)
  list(PREPEND CMAKE_FIND_ROOT_PATH "${CP_DEPS_PREFIX}")
  list(PREPEND CMAKE_PREFIX_PATH "${CP_DEPS_PREFIX}")
endif()

function(cp_import_lib target)
  cmake_parse_arguments(A "" "HEADER" "STATIC;SHARED" ${ARGN})
  find_path(${target}_INCLUDE ${A_HEADER})
  if(CP_STATIC_DEPS)
    find_library(${target}_LIB NAMES ${A_STATIC} ${A_SHARED})
  else()
    find_library(${target}_LIB NAMES ${A_SHARED} ${A_STATIC})
  endif()
  if(NOT ${target}_INCLUDE OR NOT ${target}_LIB)
    message(FATAL_ERROR
      "${target}: ${A_HEADER} or its library not found. On Debian/Ubuntu run "
      "scripts/setup-deps.sh (or ./repro, which runs it); on Windows use the "
      "vcpkg manifest (docs/WINDOWS.md).")
  endif()
  add_library(dep::${target} UNKNOWN IMPORTED GLOBAL)
  set_target_properties(dep::${target} PROPERTIES
    IMPORTED_LOCATION "${${target}_LIB}"
    INTERFACE_INCLUDE_DIRECTORIES "${${target}_INCLUDE}")
  message(STATUS "${target}: ${${target}_LIB}")
endfunction()

if(MSVC)
  find_package(libuv CONFIG REQUIRED)
  find_package(jansson CONFIG REQUIRED)
  find_package(ZLIB REQUIRED)
  add_library(dep::uv INTERFACE IMPORTED GLOBAL)
  if(TARGET libuv::uv_a)
    target_link_libraries(dep::uv INTERFACE libuv::uv_a)
  else()
    target_link_libraries(dep::uv INTERFACE libuv::uv)
  endif()
  add_library(dep::jansson INTERFACE IMPORTED GLOBAL)
  target_link_libraries(dep::jansson INTERFACE jansson::jansson)
  add_library(dep::zlib INTERFACE IMPORTED GLOBAL)
  target_link_libraries(dep::zlib INTERFACE ZLIB::ZLIB)
else()
  cp_import_lib(uv HEADER uv.h STATIC libuv_a.a libuv.a SHARED uv)
  cp_import_lib(jansson HEADER jansson.h STATIC libjansson.a SHARED jansson)
  cp_import_lib(zlib HEADER zlib.h STATIC libz.a SHARED z)
  find_package(Threads REQUIRED)
  if(WIN32)
    # libuv's own needs on Windows (MinGW).
    set_property(TARGET dep::uv APPEND PROPERTY INTERFACE_LINK_LIBRARIES
      ws2_32 iphlpapi userenv dbghelp ole32 shell32 psapi)
    set_property(TARGET dep::uv APPEND PROPERTY
      INTERFACE_COMPILE_DEFINITIONS USE_STATIC_LIBUV=1)
  else()
    set_property(TARGET dep::uv APPEND PROPERTY INTERFACE_LINK_LIBRARIES
      Threads::Threads ${CMAKE_DL_LIBS})
    # uv.h needs pthread_rwlock_t & co., which strict C11 hides.
    set_property(TARGET dep::uv APPEND PROPERTY
      INTERFACE_COMPILE_DEFINITIONS _XOPEN_SOURCE=700)
  endif()
endif()
