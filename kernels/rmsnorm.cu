/* rmsnorm.cu: RMS normalisation, forward and backward.
 *
 * Forward: rstd[r] = rsqrt(mean_c x[r, c]^2 + eps); y = x * rstd * w[c].
 * Backward, with g = dy * w:
 *   dx[r, c] = rstd * g[c] - x[r, c] * rstd^3 * (sum_k g[k] x[r, k]) / cols
 *   dw[c]    = sum_r dy[r, c] * x[r, c] * rstd[r]
 * Variants: WARP (warp per row), BLOCK (block per row), SPLIT (per-chunk
 * partial statistics in the workspace, then combine and write).
 * dw is a column reduction: fp32 partial rows per row group into the
 * workspace, then a kernel adds the groups in order (no atomics, so the bits
 * never change between runs). Every per-thread loop and every cross-thread
 * combine is a compensated sum (csum in common.cuh): rstd feeds every
 * output, so the sum of squares of a 10^6-wide row must be good to a few
 * ulps, not k*u.
 */
#include "common.cuh"
#include "rowfused.cuh"

namespace {

using namespace cpk__;

/* Per-thread partial statistics over columns [c0, c1) of one row:
 * ss = sum x^2 and, when BWD, d = sum dy * w * x. */
template <typename T, bool V, bool BWD>
__device__ __forceinline__ void
part_stats(const T *xr, const T *dyr, const T *w, int64_t c0, int64_t c1,
           int tid, int nthr, csum &ss, csum &d) {
  constexpr int VEC = ty<T>::vec;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float a[VEC], q[VEC];
        ldv(xr + c, a);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          q[k] = a[k] * a[k];
        ss.add(pair_sum(q));
        if constexpr (BWD) {
          float g[VEC], ww[VEC];
          ldv(dyr + c, g);
          ldv(w + c, ww);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            q[k] = g[k] * ww[k] * a[k];
          d.add(pair_sum(q));
        }
      },
      [&](int64_t c) {
        const float a = ld1(xr + c);
        ss.add(a * a);
        if constexpr (BWD)
          d.add(ld1(dyr + c) * ld1(w + c) * a);
      });
}

/* Forward write of y[r, c0:c1). */
template <typename T, bool V>
__device__ __forceinline__ void write_y(const T *xr, const T *w, T *yr,
                                        int64_t c0, int64_t c1, int tid,
                                        int nthr, float rstd) {
  constexpr int VEC = ty<T>::vec;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float a[VEC], ww[VEC];
        ldv(xr + c, a);
        ldv(w + c, ww);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          a[k] = a[k] * rstd * ww[k];
        stv(yr + c, a);
      },
      [&](int64_t c) { st1(yr + c, ld1(xr + c) * rstd * ld1(w + c)); });
}

/* Backward write of dx[r, c0:c1); coef = rstd^3 * d / cols. */
template <typename T, bool V>
__device__ __forceinline__ void
write_dx(const T *xr, const T *dyr, const T *w, T *dxr, int64_t c0, int64_t c1,
         int tid, int nthr, float rstd, float coef) {
  constexpr int VEC = ty<T>::vec;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float a[VEC], g[VEC], ww[VEC];
        ldv(xr + c, a);
        ldv(dyr + c, g);
        ldv(w + c, ww);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          a[k] = rstd * g[k] * ww[k] - a[k] * coef;
        stv(dxr + c, a);
      },
      [&](int64_t c) {
        st1(dxr + c, rstd * ld1(dyr + c) * ld1(w + c) - ld1(xr + c) * coef);
      });
}

__device__ __forceinline__ float rstd_of(float ss, int64_t cols, float eps) {
  return rsqrtf(ss / (float)cols + eps);
}

/* ---- forward ---- */

template <typename T, bool V, bool BLK>
__global__ void rms_fwd_k(const T *__restrict__ x, const T *__restrict__ w,
                          T *__restrict__ y, float eps, int64_t rows,
                          int64_t cols, int64_t stride) {
  __shared__ float sh[64];
  const group<BLK> gr;
  for (int64_t r = gr.g; r < rows; r += gr.ng) {
    const int64_t o = r * stride;
    csum ss, d;
    part_stats<T, V, false>(x + o, nullptr, w, 0, cols, gr.tid, gr.nthr, ss, d);
    write_y<T, V>(x + o, w, y + o, 0, cols, gr.tid, gr.nthr,
                  rstd_of(grp_csum<BLK>(ss, sh), cols, eps));
  }
}

template <typename T, bool V>
__global__ void rms_fwd_split1_k(const T *__restrict__ x,
                                 float *__restrict__ part, int64_t rows,
                                 int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    csum ss, d;
    part_stats<T, V, false>(x + r * stride, nullptr, nullptr, c0, c1,
                            threadIdx.x, blockDim.x, ss, d);
    const float tot = block_csum(ss, sh);
    if (threadIdx.x == 0)
      part[r * gridDim.x + blockIdx.x] = tot;
  }
}

template <typename T, bool V>
__global__ void
rms_fwd_split2_k(const T *__restrict__ x, const T *__restrict__ w,
                 T *__restrict__ y, const float *__restrict__ part, float eps,
                 int64_t rows, int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t chunks = gridDim.x;
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    csum ss;
    for (int64_t k = threadIdx.x; k < chunks; k += blockDim.x)
      ss.add(part[r * chunks + k]);
    const float tot = block_csum(ss, sh);
    const int64_t o = r * stride;
    write_y<T, V>(x + o, w, y + o, c0, c1, threadIdx.x, blockDim.x,
                  rstd_of(tot, cols, eps));
  }
}

/* ---- backward: dx and rstd ---- */

template <typename T, bool V, bool BLK>
__global__ void rms_bwd_k(const T *__restrict__ dy, const T *__restrict__ x,
                          const T *__restrict__ w, T *__restrict__ dx,
                          float *__restrict__ rstd_out, float eps, int64_t rows,
                          int64_t cols, int64_t stride) {
  __shared__ float sh[64];
  const group<BLK> gr;
  for (int64_t r = gr.g; r < rows; r += gr.ng) {
    const int64_t o = r * stride;
    csum pss, pd;
    part_stats<T, V, true>(x + o, dy + o, w, 0, cols, gr.tid, gr.nthr, pss, pd);
    const float ss = grp_csum<BLK>(pss, sh);
    const float d = grp_csum<BLK>(pd, sh);
    const float rstd = rstd_of(ss, cols, eps);
    const float coef = rb_coef(rstd, d, cols);
    if (gr.tid == 0)
      rstd_out[r] = rstd;
    write_dx<T, V>(x + o, dy + o, w, dx + o, 0, cols, gr.tid, gr.nthr, rstd,
                   coef);
  }
}

template <typename T, bool V>
__global__ void
rms_bwd_split1_k(const T *__restrict__ dy, const T *__restrict__ x,
                 const T *__restrict__ w, float2 *__restrict__ part,
                 int64_t rows, int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const int64_t o = r * stride;
    csum pss, pd;
    part_stats<T, V, true>(x + o, dy + o, w, c0, c1, threadIdx.x, blockDim.x,
                           pss, pd);
    const float ss = block_csum(pss, sh);
    const float d = block_csum(pd, sh);
    if (threadIdx.x == 0)
      part[r * gridDim.x + blockIdx.x] = make_float2(ss, d);
  }
}

template <typename T, bool V>
__global__ void
rms_bwd_split2_k(const T *__restrict__ dy, const T *__restrict__ x,
                 const T *__restrict__ w, T *__restrict__ dx,
                 const float2 *__restrict__ part, float *__restrict__ rstd_out,
                 float eps, int64_t rows, int64_t cols, int64_t stride,
                 int64_t cc) {
  __shared__ float sh[64];
  const int64_t chunks = gridDim.x;
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    csum pss, pd;
    for (int64_t k = threadIdx.x; k < chunks; k += blockDim.x) {
      const float2 p = part[r * chunks + k];
      pss.add(p.x);
      pd.add(p.y);
    }
    const float ss = block_csum(pss, sh);
    const float d = block_csum(pd, sh);
    const float rstd = rstd_of(ss, cols, eps);
    const float coef = rb_coef(rstd, d, cols);
    if (blockIdx.x == 0 && threadIdx.x == 0)
      rstd_out[r] = rstd;
    const int64_t o = r * stride;
    write_dx<T, V>(x + o, dy + o, w, dx + o, c0, c1, threadIdx.x, blockDim.x,
                   rstd, coef);
  }
}

/* ---- backward: dw, a column reduction in two fixed-order steps ---- */

/* Block (column block bx, row group by): part[by][c] = sum over the group's
 * rows, in row order, of dy * x * rstd. One thread per column; a warp's
 * loads are consecutive columns of one row. */
template <typename T>
__global__ void __launch_bounds__(kDwCols)
    rms_dw1_k(const T *__restrict__ dy, const T *__restrict__ x,
              const float *__restrict__ rstd, float *__restrict__ part,
              int64_t rows, int64_t cols, int64_t stride, int64_t rpg) {
  const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols)
    return;
  const int64_t r0 = (int64_t)blockIdx.y * rpg;
  const int64_t r1 = r0 + rpg < rows ? r0 + rpg : rows;
  csum acc;
  for (int64_t r = r0; r < r1; ++r)
    acc.add(ld1(dy + r * stride + c) * ld1(x + r * stride + c) * rstd[r]);
  part[(int64_t)blockIdx.y * cols + c] = acc.value();
}

template <typename T>
__global__ void __launch_bounds__(kDwCols)
    rms_dw2_k(const float *__restrict__ part, T *__restrict__ dw, int64_t cols,
              int64_t groups) {
  for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < cols;
       c += (int64_t)gridDim.x * blockDim.x) {
    csum acc;
    for (int64_t g = 0; g < groups; ++g)
      acc.add(part[g * cols + c]);
    st1(dw + c, acc.value());
  }
}

/* ---- launchers ---- */

template <typename T, bool V>
cudaError_t fwd(cpk_variant v, const T *x, const T *w, T *y, float eps,
                cpk_rows s, void *ws, cudaStream_t st) {
  unsigned grid = 0;
  if (v == CPK_V_WARP) {
    const int64_t work = (s.rows * 32 + kWarpBlock - 1) / kWarpBlock;
    CPK__TRY(grid_for(rms_fwd_k<T, V, false>, kWarpBlock, 0, work, &grid));
    rms_fwd_k<T, V, false>
        <<<grid, kWarpBlock, 0, st>>>(x, w, y, eps, s.rows, s.cols, s.stride);
  } else if (v == CPK_V_BLOCK) {
    const int nt = block_threads(s.cols);
    CPK__TRY(grid_for(rms_fwd_k<T, V, true>, nt, 0, s.rows, &grid));
    rms_fwd_k<T, V, true>
        <<<grid, nt, 0, st>>>(x, w, y, eps, s.rows, s.cols, s.stride);
  } else {
    const split_plan p = plan_split(s.rows, s.cols);
    float *part = (float *)ws;
    const dim3 g = split_grid(p, s.rows);
    rms_fwd_split1_k<T, V><<<g, kSplitThreads, 0, st>>>(x, part, s.rows, s.cols,
                                                        s.stride, p.chunk_cols);
    CPK__TRY(cudaGetLastError());
    rms_fwd_split2_k<T, V><<<g, kSplitThreads, 0, st>>>(
        x, w, y, part, eps, s.rows, s.cols, s.stride, p.chunk_cols);
  }
  return cudaGetLastError();
}

template <typename T, bool V>
cudaError_t bwd(cpk_variant v, const T *dy, const T *x, const T *w, T *dx,
                T *dw, float eps, cpk_rows s, void *ws, cudaStream_t st) {
  /* Workspace layout: see workspace.cu. */
  const dw_plan dp = plan_dw(s.rows, s.cols);
  char *base = (char *)ws;
  float *rstd = (float *)base;
  base += ws_round((size_t)s.rows * sizeof(float));
  float *dwpart = (float *)base;
  base += ws_round((size_t)dp.groups * (size_t)s.cols * sizeof(float));
  unsigned grid = 0;
  if (v == CPK_V_WARP) {
    const int64_t work = (s.rows * 32 + kWarpBlock - 1) / kWarpBlock;
    CPK__TRY(grid_for(rms_bwd_k<T, V, false>, kWarpBlock, 0, work, &grid));
    rms_bwd_k<T, V, false><<<grid, kWarpBlock, 0, st>>>(
        dy, x, w, dx, rstd, eps, s.rows, s.cols, s.stride);
  } else if (v == CPK_V_BLOCK) {
    const int nt = block_threads(s.cols);
    CPK__TRY(grid_for(rms_bwd_k<T, V, true>, nt, 0, s.rows, &grid));
    rms_bwd_k<T, V, true><<<grid, nt, 0, st>>>(dy, x, w, dx, rstd, eps, s.rows,
                                               s.cols, s.stride);
  } else {
    const split_plan p = plan_split(s.rows, s.cols);
    float2 *part = (float2 *)base;
    const dim3 g = split_grid(p, s.rows);
    rms_bwd_split1_k<T, V><<<g, kSplitThreads, 0, st>>>(
        dy, x, w, part, s.rows, s.cols, s.stride, p.chunk_cols);
    CPK__TRY(cudaGetLastError());
    rms_bwd_split2_k<T, V><<<g, kSplitThreads, 0, st>>>(
        dy, x, w, dx, part, rstd, eps, s.rows, s.cols, s.stride, p.chunk_cols);
  }
  CPK__TRY(cudaGetLastError());
  const dim3 g1((unsigned)((s.cols + kDwCols - 1) / kDwCols),
                (unsigned)dp.groups, 1);
  rms_dw1_k<T><<<g1, kDwCols, 0, st>>>(dy, x, rstd, dwpart, s.rows, s.cols,
                                       s.stride, dp.rows_per_group);
  CPK__TRY(cudaGetLastError());
  CPK__TRY(grid_for(rms_dw2_k<T>, kDwCols, 0, (s.cols + kDwCols - 1) / kDwCols,
                    &grid));
  rms_dw2_k<T><<<grid, kDwCols, 0, st>>>(dwpart, dw, s.cols, dp.groups);
  return cudaGetLastError();
}

template <typename T>
bool vec_ok(const void *a, const void *b, const void *c, const void *w,
            cpk_rows s) {
  return rows_vec_ok(a, s.stride, sizeof(T)) &&
         rows_vec_ok(b, s.stride, sizeof(T)) &&
         rows_vec_ok(c, s.stride, sizeof(T)) && aligned16(w);
}

template <typename T>
cudaError_t run_fwd(cpk_variant v, const void *x, const void *w, void *y,
                    float eps, cpk_rows s, void *ws, cudaStream_t st) {
  if (vec_ok<T>(x, y, nullptr, w, s))
    return fwd<T, true>(v, (const T *)x, (const T *)w, (T *)y, eps, s, ws, st);
  return fwd<T, false>(v, (const T *)x, (const T *)w, (T *)y, eps, s, ws, st);
}

template <typename T>
cudaError_t run_bwd(cpk_variant v, const void *dy, const void *x, const void *w,
                    void *dx, void *dw, float eps, cpk_rows s, void *ws,
                    cudaStream_t st) {
  if (vec_ok<T>(dy, x, dx, w, s))
    return bwd<T, true>(v, (const T *)dy, (const T *)x, (const T *)w, (T *)dx,
                        (T *)dw, eps, s, ws, st);
  return bwd<T, false>(v, (const T *)dy, (const T *)x, (const T *)w, (T *)dx,
                       (T *)dw, eps, s, ws, st);
}

bool variant_ok(cpk_variant v) {
  return v == CPK_V_WARP || v == CPK_V_BLOCK || v == CPK_V_SPLIT ||
         v == CPK_V_FUSED;
}

} /* namespace */

extern "C" cudaError_t cpk_rmsnorm(cpk_variant v, cpk_dtype dt, const void *x,
                                   const void *w, void *y, float eps,
                                   cpk_rows shape, void *ws, size_t ws_bytes,
                                   cudaStream_t stream) {
  CPK__REQUIRE(x && w && y && shape_ok(shape) && dt_ok(dt) && variant_ok(v));
  const size_t need = cpk_workspace_bytes(CPK_OP_RMSNORM, v, dt, shape);
  CPK__REQUIRE(ws_bytes >= need && (need == 0 || ws != nullptr));
  if (v == CPK_V_FUSED)
    return fused_dispatch(CPK_OP_RMSNORM, dt, x, nullptr, w, y, nullptr,
                          nullptr, 0, eps, shape, ws, stream);
  return with_dt(dt, [&](auto e) {
    return run_fwd<decltype(e)>(v, x, w, y, eps, shape, ws, stream);
  });
}

extern "C" cudaError_t cpk_rmsnorm_bwd(cpk_variant v, cpk_dtype dt,
                                       const void *dy, const void *x,
                                       const void *w, void *dx, void *dw,
                                       float eps, cpk_rows shape, void *ws,
                                       size_t ws_bytes, cudaStream_t stream) {
  CPK__REQUIRE(dy && x && w && dx && dw && shape_ok(shape) && dt_ok(dt) &&
               variant_ok(v));
  const size_t need = cpk_workspace_bytes(CPK_OP_RMSNORM_BWD, v, dt, shape);
  CPK__REQUIRE(ws_bytes >= need && ws != nullptr);
  if (v == CPK_V_FUSED)
    return fused_dispatch(CPK_OP_RMSNORM_BWD, dt, dy, x, w, dx, dw, nullptr, 0,
                          eps, shape, ws, stream);
  return with_dt(dt, [&](auto e) {
    return run_bwd<decltype(e)>(v, dy, x, w, dx, dw, eps, shape, ws, stream);
  });
}
