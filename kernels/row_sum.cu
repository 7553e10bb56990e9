/* row_sum.cu: y[r] = sum_c x[r, c], fp32 accumulation, compensated (csum in
 * common.cuh) in every per-thread loop and through the cross-thread trees,
 * so a 10^6-wide row of 1e4s is exact to a few ulps.
 *
 * WARP: one warp per row. BLOCK: one block per row. SPLIT: kernel 1 writes
 * one fp32 partial per (row, chunk) into the workspace, kernel 2 adds a
 * row's partials in chunk order. All orders are fixed per shape. FUSED:
 * rowfused.cu, and for the widest rows the segment path (rowseg.cu).
 */
#include "common.cuh"
#include "rowfused.cuh"

namespace {

using namespace cpk__;

/* Sum of x[r, c0:c1) over the threads of a group (partial per thread). */
template <typename T, bool V>
__device__ __forceinline__ csum part_sum(const T *xr, int64_t c0, int64_t c1,
                                         int tid, int nthr) {
  constexpr int VEC = ty<T>::vec;
  csum acc;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float v[VEC];
        ldv(xr + c, v);
        acc.add(pair_sum(v));
      },
      [&](int64_t c) { acc.add(ld1(xr + c)); });
  return acc;
}

template <typename T, bool V, bool BLK>
__global__ void row_sum_k(const T *__restrict__ x, T *__restrict__ y,
                          int64_t rows, int64_t cols, int64_t stride) {
  __shared__ float sh[64];
  const group<BLK> gr;
  for (int64_t r = gr.g; r < rows; r += gr.ng) {
    const float acc = grp_csum<BLK>(
        part_sum<T, V>(x + r * stride, 0, cols, gr.tid, gr.nthr), sh);
    if (gr.tid == 0)
      st1(y + r, acc);
  }
}

template <typename T, bool V>
__global__ void row_sum_split1_k(const T *__restrict__ x,
                                 float *__restrict__ part, int64_t rows,
                                 int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const float acc = block_csum(
        part_sum<T, V>(x + r * stride, c0, c1, threadIdx.x, blockDim.x), sh);
    if (threadIdx.x == 0)
      part[r * gridDim.x + blockIdx.x] = acc;
  }
}

template <typename T>
__global__ void row_sum_split2_k(const float *__restrict__ part,
                                 T *__restrict__ y, int64_t rows,
                                 int64_t chunks) {
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    /* Up to 4096 partials in a row: compensated, like the loops above. */
    csum acc;
    for (int64_t k = 0; k < chunks; ++k)
      acc.add(part[r * chunks + k]);
    st1(y + r, acc.value());
  }
}

template <typename T, bool V>
cudaError_t launch(cpk_variant v, const T *x, T *y, cpk_rows s, void *ws,
                   cudaStream_t st) {
  unsigned grid = 0;
  if (v == CPK_V_WARP) {
    const int64_t work = (s.rows * 32 + kWarpBlock - 1) / kWarpBlock;
    CPK__TRY(grid_for(row_sum_k<T, V, false>, kWarpBlock, 0, work, &grid));
    row_sum_k<T, V, false>
        <<<grid, kWarpBlock, 0, st>>>(x, y, s.rows, s.cols, s.stride);
  } else if (v == CPK_V_BLOCK) {
    const int nt = block_threads(s.cols);
    CPK__TRY(grid_for(row_sum_k<T, V, true>, nt, 0, s.rows, &grid));
    row_sum_k<T, V, true><<<grid, nt, 0, st>>>(x, y, s.rows, s.cols, s.stride);
  } else {
    const split_plan p = plan_split(s.rows, s.cols);
    float *part = (float *)ws;
    row_sum_split1_k<T, V><<<split_grid(p, s.rows), kSplitThreads, 0, st>>>(
        x, part, s.rows, s.cols, s.stride, p.chunk_cols);
    CPK__TRY(cudaGetLastError());
    CPK__TRY(
        grid_for(row_sum_split2_k<T>, 256, 0, (s.rows + 255) / 256, &grid));
    row_sum_split2_k<T><<<grid, 256, 0, st>>>(part, y, s.rows, p.chunks);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t run(cpk_variant v, const void *x, void *y, cpk_rows s, void *ws,
                cudaStream_t st) {
  if (rows_vec_ok(x, s.stride, sizeof(T)))
    return launch<T, true>(v, (const T *)x, (T *)y, s, ws, st);
  return launch<T, false>(v, (const T *)x, (T *)y, s, ws, st);
}

} /* namespace */

extern "C" cudaError_t cpk_row_sum(cpk_variant v, cpk_dtype dt, const void *x,
                                   void *y, cpk_rows shape, void *ws,
                                   size_t ws_bytes, cudaStream_t stream) {
  CPK__REQUIRE(x && y && shape_ok(shape) && dt_ok(dt));
  CPK__REQUIRE(v == CPK_V_WARP || v == CPK_V_BLOCK || v == CPK_V_SPLIT ||
               v == CPK_V_FUSED);
  const size_t need = cpk_workspace_bytes(CPK_OP_ROW_SUM, v, dt, shape);
  CPK__REQUIRE(ws_bytes >= need && (need == 0 || ws != nullptr));
  if (v == CPK_V_FUSED)
    return fused_dispatch(CPK_OP_ROW_SUM, dt, x, nullptr, nullptr, y, nullptr,
                          nullptr, 0, 0.f, shape, ws, stream);
  return with_dt(
      dt, [&](auto e) { return run<decltype(e)>(v, x, y, shape, ws, stream); });
}
