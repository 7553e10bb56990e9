/* elementwise.cu: copy, add, and the copy_unmasked negative control.
 *
 * copy and add are grid-stride loops over n elements with 16-byte accesses
 * when every pointer is 16-byte aligned (the scalar tail covers n not a
 * multiple of the vector width); otherwise they fall back to scalar accesses.
 * Indices are int64: n may exceed 2^31.
 */
#include "common.cuh"

namespace {

using namespace cpk__;

constexpr int kThreads = 256;
/* Vectors each thread keeps in flight per loop trip: more bytes in flight
 * per thread is what lets a streaming kernel approach copy bandwidth. */
constexpr int kUnroll = 8;

/* copy_k (v28a, docs/PERFORMANCE.md): a block's trip moves one tile of
 * kThreads x kUnroll consecutive 16-byte vectors (thread t takes vectors
 * t, t + kThreads, ...: each warp-wide access 512 consecutive bytes), the
 * tiles handed out grid-stride; then the vectors past the last whole tile,
 * one a thread, and the elements past the last whole vector. On the H200
 * (bounds/cpx-2026-12-02T0144), 1.007-1.032x the grid-stride loop of 4
 * vectors a thread that it replaced (each thread's 4 vectors a grid
 * apart) at 2^25-2^28 elements; cudaMemcpyAsync, the copy's peer, is
 * still 1.05-1.08x faster than either. */
template <typename T, bool V>
__global__ void __launch_bounds__(kThreads)
    copy_k(const T *__restrict__ x, T *__restrict__ y, int64_t n) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t nthr = (int64_t)gridDim.x * blockDim.x;
  int64_t done = 0;
  if constexpr (V) {
    /* Copy needs no conversion: move raw 16-byte words. */
    constexpr int64_t kTile = (int64_t)kThreads * kUnroll;
    const int64_t nv = n / ty<T>::vec;
    const int64_t ntiles = nv / kTile;
    const uint4 *xs = reinterpret_cast<const uint4 *>(x);
    uint4 *ys = reinterpret_cast<uint4 *>(y);
    for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
      const int64_t b = t * kTile + threadIdx.x;
      uint4 q[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        q[u] = __ldg(xs + b + u * kThreads);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        ys[b + u * kThreads] = q[u];
    }
    for (int64_t i = ntiles * kTile + tid; i < nv; i += nthr)
      ys[i] = __ldg(xs + i);
    done = nv * ty<T>::vec;
  }
  for (int64_t i = done + tid; i < n; i += nthr)
    y[i] = x[i];
}

template <typename T, bool V>
__global__ void __launch_bounds__(kThreads)
    add_k(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y,
          int64_t n) {
  constexpr int VEC = ty<T>::vec;
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t nthr = (int64_t)gridDim.x * blockDim.x;
  int64_t done = 0;
  if constexpr (V) {
    const int64_t nv = n / VEC;
    int64_t i = tid;
    for (; i + nthr < nv; i += 2 * nthr) {
      float va[2][VEC], vb[2][VEC];
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        ldv(a + (i + u * nthr) * VEC, va[u]);
        ldv(b + (i + u * nthr) * VEC, vb[u]);
      }
#pragma unroll
      for (int u = 0; u < 2; ++u) {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          va[u][k] += vb[u][k];
        stv(y + (i + u * nthr) * VEC, va[u]);
      }
    }
    for (; i < nv; i += nthr) {
      float va[VEC], vb[VEC];
      ldv(a + i * VEC, va);
      ldv(b + i * VEC, vb);
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        va[k] += vb[k];
      stv(y + i * VEC, va);
    }
    done = nv * VEC;
  }
  for (int64_t i = done + tid; i < n; i += nthr)
    st1(y + i, ld1(a + i) + ld1(b + i));
}

/* ======================================================================
 * NEGATIVE CONTROL -- THIS KERNEL IS WRONG ON PURPOSE. DO NOT "FIX" IT.
 * It is the plain one-element-per-thread copy with its `if (i < n)` guard
 * removed from the store: it is launched with ceil(n / kThreads) blocks,
 * so when n is not a multiple of kThreads the last block stores past
 * y[n - 1]. The sanitizer stage runs it to prove that compute-sanitizer
 * memcheck reports an invalid global write. The load stays guarded so the
 * only defect is the out-of-bounds store.
 * ====================================================================== */
template <typename T>
__global__ void __launch_bounds__(kThreads)
    copy_unmasked_k(const T *__restrict__ x, T *__restrict__ y, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = i < n ? x[i] : ty<T>::from_f(0.f);
  y[i] = v; /* DELIBERATELY UNGUARDED: out of bounds for i >= n */
}

template <typename T>
cudaError_t run_copy(const void *x, void *y, int64_t n, cudaStream_t st) {
  const bool v = aligned16(x) && aligned16(y);
  /* aligned: a block a tile */
  const int64_t work = v ? n / ty<T>::vec / ((int64_t)kThreads * kUnroll) + 1
                         : (n / ty<T>::vec + kThreads - 1) / kThreads + 1;
  unsigned grid = 0;
  if (v) {
    CPK__TRY(grid_for(copy_k<T, true>, kThreads, 0, work, &grid));
    copy_k<T, true><<<grid, kThreads, 0, st>>>((const T *)x, (T *)y, n);
  } else {
    CPK__TRY(grid_for(copy_k<T, false>, kThreads, 0, work, &grid));
    copy_k<T, false><<<grid, kThreads, 0, st>>>((const T *)x, (T *)y, n);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t run_add(const void *a, const void *b, void *y, int64_t n,
                    cudaStream_t st) {
  const bool v = aligned16(a) && aligned16(b) && aligned16(y);
  const int64_t work = (n / ty<T>::vec + kThreads - 1) / kThreads + 1;
  unsigned grid = 0;
  if (v) {
    CPK__TRY(grid_for(add_k<T, true>, kThreads, 0, work, &grid));
    add_k<T, true>
        <<<grid, kThreads, 0, st>>>((const T *)a, (const T *)b, (T *)y, n);
  } else {
    CPK__TRY(grid_for(add_k<T, false>, kThreads, 0, work, &grid));
    add_k<T, false>
        <<<grid, kThreads, 0, st>>>((const T *)a, (const T *)b, (T *)y, n);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t run_unmasked(const void *x, void *y, int64_t n, cudaStream_t st) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  CPK__TRY(blocks <= 0x7fffffff ? cudaSuccess : cudaErrorInvalidValue);
  copy_unmasked_k<T>
      <<<(unsigned)blocks, kThreads, 0, st>>>((const T *)x, (T *)y, n);
  return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t cpk_copy(cpk_dtype dt, const void *x, void *y, int64_t n,
                                cudaStream_t stream) {
  CPK__REQUIRE(x && y && n >= 1);
  return with_dt(
      dt, [&](auto e) { return run_copy<decltype(e)>(x, y, n, stream); });
}

extern "C" cudaError_t cpk_add(cpk_dtype dt, const void *a, const void *b,
                               void *y, int64_t n, cudaStream_t stream) {
  CPK__REQUIRE(a && b && y && n >= 1);
  return with_dt(
      dt, [&](auto e) { return run_add<decltype(e)>(a, b, y, n, stream); });
}

extern "C" cudaError_t cpk_copy_unmasked(cpk_dtype dt, const void *x, void *y,
                                         int64_t n, cudaStream_t stream) {
  CPK__REQUIRE(x && y && n >= 1);
  return with_dt(
      dt, [&](auto e) { return run_unmasked<decltype(e)>(x, y, n, stream); });
}
