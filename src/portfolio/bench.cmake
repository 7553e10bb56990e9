# cp_bench: the timing harness, statistics, NVML, environment, peers and the
# results writers of cuda_portfolio (issue 4). Included by
# src/portfolio/CMakeLists.txt; cuda_portfolio links cp_bench.
set(CP_BENCH_DIR ${CMAKE_CURRENT_LIST_DIR})
set(CP_BENCH_GEN ${CMAKE_CURRENT_BINARY_DIR}/cp_bench_gen)
file(MAKE_DIRECTORY ${CP_BENCH_GEN})

# Build facts compiled into the results' environment block. The kernels'
# own nvcc options are read from cp_kernels (generator expressions removed)
# so that the JSON shows the flags the kernels were really built with.
string(TOUPPER "${CMAKE_BUILD_TYPE}" cp_bench_bt)
set(cp_bench_flags "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${cp_bench_bt}}")
if(TARGET cp_kernels)
  get_target_property(cp_bench_kopts cp_kernels COMPILE_OPTIONS)
  if(cp_bench_kopts)
    string(REGEX REPLACE "\\$<\\$<COMPILE_LANGUAGE:CUDA>:([^>]*)>" "\\1"
           cp_bench_kopts "${cp_bench_kopts}")
    string(REPLACE ";" " " cp_bench_kopts "${cp_bench_kopts}")
    string(APPEND cp_bench_flags " ${cp_bench_kopts}")
  endif()
endif()
string(REPLACE ";" "," cp_bench_archs "${CP_CUDA_ARCHS}")
string(REPLACE ";" " " cp_bench_flags "${cp_bench_flags}")

add_custom_target(cp_bench_gitinfo
  COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR}
    -DOUT=${CP_BENCH_GEN}/pf_gitinfo.h
    "-DNVCC_VERSION=${CMAKE_CUDA_COMPILER_VERSION}"
    "-DCUDA_FLAGS=${cp_bench_flags}"
    "-DCUDA_ARCHS=${cp_bench_archs}"
    "-DBUILD_TYPE=${CMAKE_BUILD_TYPE}"
    "-DC_COMPILER=${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}"
    -P ${CP_BENCH_DIR}/pf_gitinfo.cmake
  BYPRODUCTS ${CP_BENCH_GEN}/pf_gitinfo.h
  COMMENT "Recording git commit and build flags for cuda_portfolio"
  VERBATIM)

add_library(cp_bench STATIC
  ${CP_BENCH_DIR}/pf_stats.c
  ${CP_BENCH_DIR}/pf_instrument.c
  ${CP_BENCH_DIR}/pf_nvml.c
  ${CP_BENCH_DIR}/pf_env.c
  ${CP_BENCH_DIR}/pf_json.c
  ${CP_BENCH_DIR}/pf_gbench.c
  ${CP_BENCH_DIR}/pf_peer.c
  ${CP_BENCH_DIR}/pf_timing.c
)
add_dependencies(cp_bench cp_bench_gitinfo)
target_include_directories(cp_bench PUBLIC ${CP_BENCH_DIR}
  PRIVATE ${CP_BENCH_GEN})
# nvtx3 is header-only and ships with the toolkit (CUDA::nvtx3 where CMake
# knows it; the toolkit include directory otherwise).
target_include_directories(cp_bench PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
# cp_kernels for the launchers' types and the two measurement helpers of
# cpk.h (the read flush of the L2, the empty launch of the launch floor).
target_include_directories(cp_bench PUBLIC ${PROJECT_SOURCE_DIR}/kernels)
target_link_libraries(cp_bench PUBLIC cp_kernels cp_common cp_platform
  CUDA::cudart_static CUDA::cublas dep::jansson ${CMAKE_DL_LIBS})
if(NOT WIN32)
  target_link_libraries(cp_bench PUBLIC m)
endif()
cp_warnings(cp_bench)
