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
 * The counts carry no reset: each is a 64-bit word, the launch's epoch in
 * its top half and the count in the bottom, advanced by compare-and-swap;
 * a word of another epoch counts as zero. The epoch is the header's value
 * + 1, read by every block before it counts; the block that completes the
 * last row's count (so every block has read the header) stores it. A word
 * left by anything else is taken for this launch's only if its top 32 bits
 * equal the epoch (the portfolio zeroes workspaces once, at allocation).
 *
 * Workspace: [0, 256) u32 epoch at 0, u64 row-done count at 8; then u64
 * count[rows]; then float2 partial[rows][segs]. */
#include <climits>
#include <cstdlib>

#include "common.cuh"
#include "rowseg.cuh"

namespace cpk__ {

namespace {

constexpr int kSegThreads = 256;
constexpr int kSegU = 8; /* 16-byte loads in flight a thread */

int64_t seg_cols(cpk_dtype dt) {
  return (int64_t)kSegThreads * kSegU * (dt == CPK_F32 ? 4 : 8);
}

struct segws {
  unsigned *hdr;
  unsigned long long *done;
  unsigned long long *cnt;
  float2 *part;
};

template <typename T>
__device__ __forceinline__ uint4 ld_ef(const T *p, uint64_t pol) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, "
      "[%4], %5;"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p), "l"(pol));
  return v;
}

/* Adds one to the count at p for epoch ep (a word of another epoch counts
 * as zero); returns the new count. */
__device__ __forceinline__ uint32_t tick(unsigned long long *p, uint32_t ep) {
  unsigned long long old = __ldcg(p);
  for (;;) {
    const uint32_t n = (uint32_t)(old >> 32) == ep ? (uint32_t)old : 0u;
    const unsigned long long nw = ((unsigned long long)ep << 32) | (n + 1u);
    const unsigned long long prev = atomicCAS(p, old, nw);
    if (prev == old)
      return n + 1u;
    old = prev;
  }
}

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
  /* read before this block counts (the store of the next epoch waits for
   * every block's count) */
  const uint32_t ep = tid == 0 ? __ldcg(w.hdr) + 1u : 0u;
  const T *xr = x + r * stride;
  const int64_t c0 = (int64_t)sg * SEG;
  const int64_t c1 = c0 + SEG < cols ? c0 + SEG : cols;
  csum acc;
  if (V && c1 - c0 == SEG) {
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    uint4 q[kSegU];
#pragma unroll
    for (int u = 0; u < kSegU; ++u)
      q[u] = ld_ef(xr + c0 + (int64_t)(u * kSegThreads + tid) * VEC, pol);
#pragma unroll
    for (int u = 0; u < kSegU; ++u) {
      float v[VEC];
      unpack<T>(q[u], v);
      acc.add(pair_sum(v));
    }
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
      __threadfence(); /* the partial before the count */
      last = tick(w.cnt + r, ep) == (uint32_t)nseg;
    }
  }
  __syncthreads();
  if (!last || wid != 0)
    return;
  /* the row's last block: its partials in segment order (lane l merges
   * l, l + 32, ..., then a butterfly: the same order every run) */
  const uint32_t ep0 = __shfl_sync(0xffffffffu, ep, 0);
  __threadfence();
  csum t;
  for (int k = lane; k < nseg; k += 32) {
    const float2 p = __ldcg(w.part + r * nseg + k);
    t.merge(p.x, p.y);
  }
  warp_csum(t);
  if (lane == 0) {
    st1(y + r, t.value());
    __threadfence();
    if (tick(w.done, ep0) == (uint32_t)rows)
      *w.hdr = ep0; /* every block has read the header */
  }
}

template <typename T>
cudaError_t launch(const void *x, void *y, cpk_rows s, const segws &w,
                   int nseg, cudaStream_t st) {
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
  static const int64_t smin = [] {
    const char *e = getenv("CPK_SEG_MIN");
    return (e != nullptr && *e != '\0') ? (int64_t)strtoll(e, nullptr, 10)
                                        : (int64_t)131073;
  }();
  if (!on || !dt_ok(dt) || !shape_ok(s) || smin < 1 || s.cols < smin ||
      cpk_fused_grid(CPK_OP_ROW_SUM, dt, s.cols))
    return false;
  return s.rows <= (int64_t)INT_MAX / seg_count(dt, s.cols);
}

size_t seg_ws_bytes(cpk_dtype dt, cpk_rows s) {
  if (!seg_takes(dt, s))
    return 0;
  return 256 + ws_round((size_t)s.rows * 8) +
         ws_round((size_t)s.rows * (size_t)seg_count(dt, s.cols) * 8);
}

cudaError_t seg_run(cpk_dtype dt, const void *x, void *y, cpk_rows s,
                    void *ws, cudaStream_t st) {
  if (!seg_takes(dt, s) || ws == nullptr || !aligned16(ws))
    return cudaErrorInvalidValue;
  const int nseg = (int)seg_count(dt, s.cols);
  char *b = static_cast<char *>(ws);
  segws w;
  w.hdr = reinterpret_cast<unsigned *>(b);
  w.done = reinterpret_cast<unsigned long long *>(b + 8);
  w.cnt = reinterpret_cast<unsigned long long *>(b + 256);
  w.part = reinterpret_cast<float2 *>(b + 256 + ws_round((size_t)s.rows * 8));
  switch (dt) {
  case CPK_F32:
    return launch<float>(x, y, s, w, nseg, st);
  case CPK_F16:
    return launch<__half>(x, y, s, w, nseg, st);
  case CPK_BF16:
    return launch<__nv_bfloat16>(x, y, s, w, nseg, st);
  }
  return cudaErrorInvalidValue;
}

} /* namespace cpk__ */
