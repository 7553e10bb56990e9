/* elementwise.cu: copy, add, and the two controls that are wrong on purpose:
 * copy_unmasked (the sanitizer's) and add_ftz (the verification's).
 *
 * copy and add (v28c, docs/PERFORMANCE.md): where every pointer is 16-byte
 * aligned, one 16-byte vector a thread in a grid of every vector (no loop,
 * no persistent grid: blocks in index order sweep the buffers in address
 * order), then, for n not a multiple of the vector width, the elements past
 * the last whole vector by one block of the scalar kernel; otherwise the
 * scalar grid-stride kernel alone. Indices are int64: n may exceed 2^31.
 */
#include "common.cuh"

namespace {

using namespace cpk__;

constexpr int kThreads = 256;
/* add's vector kernel: 128 threads a block (v28b's measured shape) */
constexpr int kAddThreads = 128;

/* On the H200 (bounds/np2-2026-12-02T0210; its 128-thread twin also in
 * np-2026-12-02T0206, another card) this grid runs the copy at the speed of
 * cudaMemcpyAsync, the copy ceiling's own call (1.004x at 2^26 16-bit and
 * 1.007x at 2^28 fp32 elements), 1.066-1.095x the persistent grid it
 * replaced (v28a's tiles of 8 vectors a block trip, 0.90-0.97x
 * cudaMemcpyAsync like every persistent copy tried), and add 1.066-1.070x
 * (0.963 -> 1.030 of the copy ceiling at 2^28 fp32). */
__global__ void __launch_bounds__(kThreads)
    copy_vec_k(const uint4 *__restrict__ xs, uint4 *__restrict__ ys,
               int64_t nv) {
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < nv)
    ys[i] = __ldg(xs + i);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    copy_k(const T *__restrict__ x, T *__restrict__ y, int64_t n) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t nthr = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += nthr)
    y[i] = x[i];
}

template <typename T>
__global__ void __launch_bounds__(kAddThreads)
    add_vec_k(const T *__restrict__ a, const T *__restrict__ b,
              T *__restrict__ y, int64_t nv) {
  constexpr int VEC = ty<T>::vec;
  const int64_t i = (int64_t)blockIdx.x * kAddThreads + threadIdx.x;
  if (i < nv) {
    float va[VEC], vb[VEC];
    ldv(a + i * VEC, va);
    ldv(b + i * VEC, vb);
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      va[k] += vb[k];
    stv(y + i * VEC, va);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    add_k(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y,
          int64_t n) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t nthr = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += nthr)
    st1(y + i, ld1(a + i) + ld1(b + i));
}

/* Blocks of nt threads for one item a thread, or an error past 2^31. */
cudaError_t vec_grid(int64_t items, int nt, unsigned *out) {
  const int64_t g = (items + nt - 1) / nt;
  *out = (unsigned)g;
  return g <= 0x7fffffff ? cudaSuccess : cudaErrorInvalidValue;
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

/* ======================================================================
 * VERIFICATION CONTROL -- THIS KERNEL IS WRONG ON PURPOSE. DO NOT "FIX" IT.
 * fp32 add with add.ftz.f32: subnormal inputs and results are flushed to
 * zero of the same sign, as a build with -ftz=true or --use_fast_math
 * would compute add. Every other sum is the correctly rounded one. The test
 * stage runs it (cuda_portfolio --verify-control) to prove that the GPU
 * path of the verification -- launch, read-back, compare -- fails a kernel
 * that is wrong only where the inputs reach the subnormal range; the host
 * predicts which elements must fail (pf_run.c) and the two must agree.
 * ====================================================================== */
__global__ void __launch_bounds__(kThreads)
    add_ftz_k(const float *__restrict__ a, const float *__restrict__ b,
              float *__restrict__ y, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s;
    asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(s) : "f"(a[i]), "f"(b[i]));
    y[i] = s;
  }
}

template <typename T>
cudaError_t run_copy(const void *x, void *y, int64_t n, cudaStream_t st) {
  const T *xt = (const T *)x;
  T *yt = (T *)y;
  unsigned grid = 0;
  if (aligned16(x) && aligned16(y)) {
    const int64_t nv = n / ty<T>::vec;
    CPK__TRY(vec_grid(nv, kThreads, &grid));
    if (grid > 0)
      copy_vec_k<<<grid, kThreads, 0, st>>>((const uint4 *)x, (uint4 *)y, nv);
    CPK__TRY(cudaGetLastError());
    const int64_t done = nv * ty<T>::vec;
    if (done == n)
      return cudaSuccess;
    /* the elements past the last whole vector: fewer than one vector */
    copy_k<T><<<1, kThreads, 0, st>>>(xt + done, yt + done, n - done);
    return cudaGetLastError();
  }
  CPK__TRY(
      grid_for(copy_k<T>, kThreads, 0, (n + kThreads - 1) / kThreads, &grid));
  copy_k<T><<<grid, kThreads, 0, st>>>(xt, yt, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t run_add(const void *a, const void *b, void *y, int64_t n,
                    cudaStream_t st) {
  const T *at = (const T *)a, *bt = (const T *)b;
  T *yt = (T *)y;
  unsigned grid = 0;
  if (aligned16(a) && aligned16(b) && aligned16(y)) {
    const int64_t nv = n / ty<T>::vec;
    CPK__TRY(vec_grid(nv, kAddThreads, &grid));
    if (grid > 0)
      add_vec_k<T><<<grid, kAddThreads, 0, st>>>(at, bt, yt, nv);
    CPK__TRY(cudaGetLastError());
    const int64_t done = nv * ty<T>::vec;
    if (done == n)
      return cudaSuccess;
    add_k<T><<<1, kThreads, 0, st>>>(at + done, bt + done, yt + done, n - done);
    return cudaGetLastError();
  }
  CPK__TRY(
      grid_for(add_k<T>, kThreads, 0, (n + kThreads - 1) / kThreads, &grid));
  add_k<T><<<grid, kThreads, 0, st>>>(at, bt, yt, n);
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

extern "C" cudaError_t cpk_add_ftz(cpk_dtype dt, const void *a, const void *b,
                                   void *y, int64_t n, cudaStream_t stream) {
  CPK__REQUIRE(a && b && y && n >= 1 && dt == CPK_F32);
  unsigned grid = 0;
  CPK__TRY(vec_grid(n, kThreads, &grid));
  add_ftz_k<<<grid, kThreads, 0, stream>>>((const float *)a, (const float *)b,
                                           (float *)y, n);
  return cudaGetLastError();
}
