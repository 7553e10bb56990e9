/* softmax_bwd.cu: dx[r, c] = y[r, c] * (dy[r, c] - sum_k dy[r, k] y[r, k]).
 *
 * WARP / BLOCK: the group computes the row's dot product, then writes dx
 * (two passes over dy and y). SPLIT: kernel 1 writes per-(row, chunk) fp32
 * partial dots to the workspace; kernel 2 adds a row's partials in a fixed
 * order and writes its chunk of dx. Every dot product is a compensated sum
 * (csum in common.cuh) so wide rows keep fp32-ulp accuracy.
 */
#include "common.cuh"
#include "rowfused.cuh"

namespace {

using namespace cpk__;

template <typename T, bool V>
__device__ __forceinline__ csum part_dot(const T *dyr, const T *yr, int64_t c0,
                                         int64_t c1, int tid, int nthr) {
  constexpr int VEC = ty<T>::vec;
  csum acc;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float a[VEC], b[VEC];
        ldv(dyr + c, a);
        ldv(yr + c, b);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          a[k] *= b[k];
        acc.add(pair_sum(a));
      },
      [&](int64_t c) { acc.add(ld1(dyr + c) * ld1(yr + c)); });
  return acc;
}

template <typename T, bool V>
__device__ __forceinline__ void write_dx(const T *dyr, const T *yr, T *dxr,
                                         int64_t c0, int64_t c1, int tid,
                                         int nthr, float dot) {
  constexpr int VEC = ty<T>::vec;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float a[VEC], b[VEC];
        ldv(dyr + c, a);
        ldv(yr + c, b);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          a[k] = b[k] * (a[k] - dot);
        stv(dxr + c, a);
      },
      [&](int64_t c) { st1(dxr + c, ld1(yr + c) * (ld1(dyr + c) - dot)); });
}

template <typename T, bool V, bool BLK>
__global__ void sm_bwd_k(const T *__restrict__ dy, const T *__restrict__ y,
                         T *__restrict__ dx, int64_t rows, int64_t cols,
                         int64_t stride) {
  __shared__ float sh[64];
  const group<BLK> gr;
  for (int64_t r = gr.g; r < rows; r += gr.ng) {
    const int64_t o = r * stride;
    const float dot = grp_csum<BLK>(
        part_dot<T, V>(dy + o, y + o, 0, cols, gr.tid, gr.nthr), sh);
    write_dx<T, V>(dy + o, y + o, dx + o, 0, cols, gr.tid, gr.nthr, dot);
  }
}

template <typename T, bool V>
__global__ void sm_bwd_split1_k(const T *__restrict__ dy,
                                const T *__restrict__ y,
                                float *__restrict__ part, int64_t rows,
                                int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const int64_t o = r * stride;
    const float dot = block_csum(
        part_dot<T, V>(dy + o, y + o, c0, c1, threadIdx.x, blockDim.x), sh);
    if (threadIdx.x == 0)
      part[r * gridDim.x + blockIdx.x] = dot;
  }
}

template <typename T, bool V>
__global__ void sm_bwd_split2_k(const T *__restrict__ dy,
                                const T *__restrict__ y, T *__restrict__ dx,
                                const float *__restrict__ part, int64_t rows,
                                int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t chunks = gridDim.x;
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    csum acc;
    for (int64_t k = threadIdx.x; k < chunks; k += blockDim.x)
      acc.add(part[r * chunks + k]);
    const float dot = block_csum(acc, sh);
    const int64_t o = r * stride;
    write_dx<T, V>(dy + o, y + o, dx + o, c0, c1, threadIdx.x, blockDim.x, dot);
  }
}

template <typename T, bool V>
cudaError_t launch(cpk_variant v, const T *dy, const T *y, T *dx, cpk_rows s,
                   void *ws, cudaStream_t st) {
  unsigned grid = 0;
  if (v == CPK_V_WARP) {
    const int64_t work = (s.rows * 32 + kWarpBlock - 1) / kWarpBlock;
    CPK__TRY(grid_for(sm_bwd_k<T, V, false>, kWarpBlock, 0, work, &grid));
    sm_bwd_k<T, V, false>
        <<<grid, kWarpBlock, 0, st>>>(dy, y, dx, s.rows, s.cols, s.stride);
  } else if (v == CPK_V_BLOCK) {
    const int nt = block_threads(s.cols);
    CPK__TRY(grid_for(sm_bwd_k<T, V, true>, nt, 0, s.rows, &grid));
    sm_bwd_k<T, V, true>
        <<<grid, nt, 0, st>>>(dy, y, dx, s.rows, s.cols, s.stride);
  } else {
    const split_plan p = plan_split(s.rows, s.cols);
    float *part = (float *)ws;
    const dim3 g = split_grid(p, s.rows);
    sm_bwd_split1_k<T, V><<<g, kSplitThreads, 0, st>>>(
        dy, y, part, s.rows, s.cols, s.stride, p.chunk_cols);
    CPK__TRY(cudaGetLastError());
    sm_bwd_split2_k<T, V><<<g, kSplitThreads, 0, st>>>(
        dy, y, dx, part, s.rows, s.cols, s.stride, p.chunk_cols);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t run(cpk_variant v, const void *dy, const void *y, void *dx,
                cpk_rows s, void *ws, cudaStream_t st) {
  if (rows_vec_ok(dy, s.stride, sizeof(T)) &&
      rows_vec_ok(y, s.stride, sizeof(T)) &&
      rows_vec_ok(dx, s.stride, sizeof(T)))
    return launch<T, true>(v, (const T *)dy, (const T *)y, (T *)dx, s, ws, st);
  return launch<T, false>(v, (const T *)dy, (const T *)y, (T *)dx, s, ws, st);
}

} /* namespace */

extern "C" cudaError_t cpk_softmax_bwd(cpk_variant v, cpk_dtype dt,
                                       const void *dy, const void *y, void *dx,
                                       cpk_rows shape, void *ws,
                                       size_t ws_bytes, cudaStream_t stream) {
  CPK__REQUIRE(dy && y && dx && shape_ok(shape) && dt_ok(dt));
  CPK__REQUIRE(v == CPK_V_WARP || v == CPK_V_BLOCK || v == CPK_V_SPLIT ||
               v == CPK_V_FUSED);
  const size_t need = cpk_workspace_bytes(CPK_OP_SOFTMAX_BWD, v, dt, shape);
  CPK__REQUIRE(ws_bytes >= need && (need == 0 || ws != nullptr));
  if (v == CPK_V_FUSED)
    return fused_dispatch(CPK_OP_SOFTMAX_BWD, dt, dy, y, nullptr, dx, nullptr,
                          nullptr, 0, 0.f, shape, ws, stream);
  return with_dt(dt, [&](auto e) {
    return run<decltype(e)>(v, dy, y, dx, shape, ws, stream);
  });
}
