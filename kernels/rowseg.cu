/* rowseg.cu: FUSED row_sum's segment path (v17b, docs/PERFORMANCE.md) for
 * the widest rows. Each row is cut into segments of kSegThreads x kSegU
 * 16-byte vectors (32 KiB); one block a segment, every block of the grid
 * independent (rows x segments blocks, no cooperative launch, nothing
 * resident together), so the loads stream as a copy's do: each thread
 * issues its kSegU 16-byte loads (evict-first in the L2, as FUSED's) at
 * once, then adds them. A block's partial (a compensated pair) goes to the
 * workspace; the block that completes its row's count (the last of the
 * row's segments to finish, whichever it is) merges the row's partials in
 * segment order and writes y[r]. Every order is fixed by the shape, so the
 * bits do not depend on which block finishes last.
 *
 * The counts need no reset between launches: every launch leaves them at
 * zero (the row's last block stores 0 after it has merged the row), so the
 * workspace is zeroed once, before its first use (cpk.h). A count is a
 * plain atomicAdd: v17b's first build tagged each count with a launch
 * epoch, advanced by compare-and-swap, and the swaps of a row's blocks,
 * finishing together, retried one after another (0.15-0.48 of the copy
 * ceiling at 2^18-2^20, Nsight Compute: DRAM 20 %).
 *
 * Workspace: u32 count[rows] (rounded to 256 bytes), then float2
 * partial[rows][segs]. */
#include <climits>

#include "common.cuh"
#include "rowseg.cuh"

namespace cpk__ {

namespace {

/* Threads a block and 16-byte loads in flight a thread (experiment builds
 * may set CPK_SEG_NT / CPK_SEG_U: the segment is their product x 16
 * bytes). */
#ifndef CPK_SEG_NT
#define CPK_SEG_NT 256
#endif
#ifndef CPK_SEG_U
#define CPK_SEG_U 8
#endif
constexpr int kSegThreads = CPK_SEG_NT;
constexpr int kSegU = CPK_SEG_U;

int64_t seg_cols(cpk_dtype dt) {
  return (int64_t)kSegThreads * kSegU * (dt == CPK_F32 ? 4 : 8);
}

struct segws {
  unsigned *cnt;
  float2 *part;
};

template <typename T, bool V>
__global__ void __launch_bounds__(kSegThreads)
    seg_k(const T *__restrict__ x, T *__restrict__ y, const segws w,
          int64_t rows, int64_t cols, int64_t stride, int nseg) {
  constexpr int VEC = ty<T>::vec;
  constexpr int64_t SEG = (int64_t)kSegThreads * kSegU * VEC;
  constexpr int NW = kSegThreads / 32;
  __shared__ float sh[2][NW];
  __shared__ int last;
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  const int64_t r = blockIdx.x / nseg;
  const int sg = (int)(blockIdx.x % nseg);
  const T *xr = x + r * stride;
  const int64_t c0 = (int64_t)sg * SEG;
  const int64_t c1 = c0 + SEG < cols ? c0 + SEG : cols;
  csum acc;
  if (V && c1 - c0 == SEG) {
    const uint64_t pol = pol_evict_first();
    uint4 q[kSegU];
#pragma unroll
    for (int u = 0; u < kSegU; ++u)
      q[u] =
          ld_pol<true>(xr + c0 + (int64_t)(u * kSegThreads + tid) * VEC, pol);
#pragma unroll
    for (int u = 0; u < kSegU; ++u)
      sum_add<T, false>(acc, q[u]);
  } else {
    /* a row's last segment, or rows that are not 16-byte aligned */
    for (int64_t c = c0 + (int64_t)tid * VEC; c < c1;
         c += (int64_t)kSegThreads * VEC) {
      if (V && c + VEC <= c1) {
        float v[VEC];
        ldv(xr + c, v);
        acc.add(pair_sum(v));
      } else {
        for (int k = 0; k < VEC && c + k < c1; ++k)
          acc.add(ld1(xr + c + k));
      }
    }
  }
  warp_csum(acc);
  if (lane == 0) {
    sh[0][wid] = acc.s;
    sh[1][wid] = acc.c;
  }
  __syncthreads();
  if (wid == 0) {
    csum b;
    if (lane < NW) {
      b.s = sh[0][lane];
      b.c = sh[1][lane];
    }
    warp_csum(b);
    if (lane == 0) {
      w.part[r * nseg + sg] = make_float2(b.s, b.c);
      /* the partial before the count (v17d, one acquire-release atomic in
       * place of this fence, the atomic and the last block's second fence,
       * was level on the H200: not taken) */
      __threadfence();
      last = atomicAdd(w.cnt + r, 1u) == (unsigned)nseg - 1u;
    }
  }
  __syncthreads();
  if (!last || wid != 0)
    return;
  __threadfence();
  /* the row's last block: its partials in segment order (lane l merges
   * l, l + 32, ..., then a butterfly: the same order every run) */
  csum t;
  for (int k = lane; k < nseg; k += 32) {
    const float2 p = __ldcg(w.part + r * nseg + k);
    t.merge(p.x, p.y);
  }
  warp_csum(t);
  if (lane == 0) {
    st1(y + r, t.value());
    w.cnt[r] = 0u; /* for the next launch (every block of the row counted) */
  }
}

template <typename T>
cudaError_t launch(const void *x, void *y, cpk_rows s, const segws &w, int nseg,
                   cudaStream_t st) {
  const unsigned grid = (unsigned)(s.rows * nseg);
  if (rows_vec_ok(x, s.stride, sizeof(T)))
    seg_k<T, true><<<grid, kSegThreads, 0, st>>>(
        (const T *)x, (T *)y, w, s.rows, s.cols, s.stride, nseg);
  else
    seg_k<T, false><<<grid, kSegThreads, 0, st>>>(
        (const T *)x, (T *)y, w, s.rows, s.cols, s.stride, nseg);
  return cudaGetLastError();
}

int64_t seg_count(cpk_dtype dt, int64_t cols) {
  return (cols + seg_cols(dt) - 1) / seg_cols(dt);
}

} /* namespace */

bool seg_takes(cpk_dtype dt, cpk_rows s) {
  static const bool on = knob_on("CPK_SEG");
  static const int64_t smin = knob_int("CPK_SEG_MIN", 131073);
  if (!on || !dt_ok(dt) || !shape_ok(s) || smin < 1 || s.cols < smin ||
      cpk_fused_grid(CPK_OP_ROW_SUM, dt, s.cols))
    return false;
  return s.rows <= (int64_t)INT_MAX / seg_count(dt, s.cols);
}

size_t seg_ws_bytes(cpk_dtype dt, cpk_rows s) {
  if (!seg_takes(dt, s))
    return 0;
  return ws_round((size_t)s.rows * 4) +
         ws_round((size_t)s.rows * (size_t)seg_count(dt, s.cols) * 8);
}

cudaError_t seg_run(cpk_dtype dt, const void *x, void *y, cpk_rows s, void *ws,
                    cudaStream_t st) {
  if (!seg_takes(dt, s) || ws == nullptr || !aligned16(ws))
    return cudaErrorInvalidValue;
  const int nseg = (int)seg_count(dt, s.cols);
  char *b = static_cast<char *>(ws);
  segws w;
  w.cnt = reinterpret_cast<unsigned *>(b);
  w.part = reinterpret_cast<float2 *>(b + ws_round((size_t)s.rows * 4));
  return with_dt(
      dt, [&](auto e) { return launch<decltype(e)>(x, y, s, w, nseg, st); });
}

} /* namespace cpk__ */
