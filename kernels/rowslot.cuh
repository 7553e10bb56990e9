/* rowslot.cuh: a row's 16-byte slots as the FUSED paths read and write
 * them (rowfused.cu, rowskew.cu), internal to kernels/: bounded loads and
 * stores of ty<T>::vec elements (elements past the row end read as a fill
 * value, masked softmax positions as -inf), loads with an L2 cache policy,
 * the running max.NaN of raw slots, the exp of the row kernels,
 * rmsnorm_bwd's row terms, and the persistent paths' self-tagged words and
 * end-of-launch epoch count. */
#ifndef CPK_ROWSLOT_CUH
#define CPK_ROWSLOT_CUH

#include "common.cuh"

namespace cpk__ {

template <typename T, int N>
__device__ __forceinline__ uint4 pack_t(const float (&v)[N]) {
  if constexpr (N == 4)
    return pack(v);
  else
    return pack<T>(v);
}

/* 16-byte row load (each row element is read once). */
template <bool CS> __device__ __forceinline__ uint4 ld_row(const void *p) {
  if constexpr (CS)
    return __ldcs(reinterpret_cast<const uint4 *>(p));
  else
    return __ldg(reinterpret_cast<const uint4 *>(p));
}

/* Slot load with bounds: elements [e, c1) of the row, the rest set to
 * `fill`; masked positions (softmax) read as -inf. */
template <typename T, bool CS>
__device__ __forceinline__ uint4 load_slot(const T *row, int e, int c1,
                                           bool vec, const uint8_t *mrow,
                                           float fill) {
  constexpr int VEC = ty<T>::vec;
  const int n = c1 - e;
  if (n >= VEC && vec && mrow == nullptr)
    return ld_row<CS>(row + e);
  float v[VEC];
#pragma unroll
  for (int k = 0; k < VEC; ++k) {
    v[k] = k < n ? ld1(row + e + k) : fill;
    if (mrow != nullptr && k < n && mrow[e + k] != 0)
      v[k] = -CUDART_INF_F;
  }
  return pack_t<T>(v);
}

/* Writes the valid elements of a slot (CS: streaming vector stores). */
template <typename T, bool CS>
__device__ __forceinline__ void store_slot(T *row, int e, int c1, bool vec,
                                           const float (&v)[ty<T>::vec]) {
  constexpr int VEC = ty<T>::vec;
  const int n = c1 - e;
  if (n >= VEC && vec) {
    if constexpr (CS)
      __stcs(reinterpret_cast<uint4 *>(row + e), pack_t<T>(v));
    else
      *reinterpret_cast<uint4 *>(row + e) = pack_t<T>(v);
    return;
  }
#pragma unroll
  for (int k = 0; k < VEC; ++k)
    if (k < n)
      st1(row + e + k, v[k]);
}

/* w[e .. e+VEC) as fp32 (zero past c1). */
template <typename T>
__device__ __forceinline__ void load_w(const T *w, int e, int c1, bool vec,
                                       float (&v)[ty<T>::vec]) {
  constexpr int VEC = ty<T>::vec;
  const int n = c1 - e;
  if (n >= VEC && vec) {
    ldv(w + e, v);
    return;
  }
#pragma unroll
  for (int k = 0; k < VEC; ++k)
    v[k] = k < n ? ld1(w + e + k) : 0.f;
}

/* max that propagates NaN (PTX max.NaN, sm_80+). */
__device__ __forceinline__ float fmax_nan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
/* The same on two packed 16-bit values. */
template <typename T>
__device__ __forceinline__ uint32_t hmax2_nan(uint32_t a, uint32_t b);
template <>
__device__ __forceinline__ uint32_t hmax2_nan<__half>(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
template <>
__device__ __forceinline__ uint32_t hmax2_nan<__nv_bfloat16>(uint32_t a,
                                                             uint32_t b) {
  uint32_t r;
  asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/* Two packed -inf. */
template <typename T> __device__ __forceinline__ uint32_t ninf2();
template <> __device__ __forceinline__ uint32_t ninf2<__half>() {
  return 0xfc00fc00u;
}
template <> __device__ __forceinline__ uint32_t ninf2<__nv_bfloat16>() {
  return 0xff80ff80u;
}

__device__ __forceinline__ float fexp(float d) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(d * 1.44269504088896341f));
  return y;
}

/* The running max.NaN of a row's raw 16-byte slots, one instruction per
 * element (per pair in 16-bit, the packed maximum unpacked at the end):
 * max_acc_init, then max_acc_add per slot, then max_acc_get. A NaN or +inf
 * anywhere poisons it. */
template <typename T> __device__ __forceinline__ uint32_t max_acc_init() {
  if constexpr (ty<T>::vec == 4)
    return __float_as_uint(-CUDART_INF_F);
  else
    return ninf2<T>();
}
template <typename T>
__device__ __forceinline__ uint32_t max_acc_add(uint32_t acc, const uint4 &w4) {
  if constexpr (ty<T>::vec == 4)
    return __float_as_uint(fmax_nan(
        __uint_as_float(acc),
        fmax_nan(fmax_nan(__uint_as_float(w4.x), __uint_as_float(w4.y)),
                 fmax_nan(__uint_as_float(w4.z), __uint_as_float(w4.w)))));
  else
    return hmax2_nan<T>(
        acc, hmax2_nan<T>(hmax2_nan<T>(w4.x, w4.y), hmax2_nan<T>(w4.z, w4.w)));
}
template <typename T>
__device__ __forceinline__ float max_acc_get(uint32_t acc) {
  if constexpr (ty<T>::vec == 4)
    return __uint_as_float(acc);
  else
    return fmax_nan(ty<T>::lo(acc), ty<T>::hi(acc));
}

/* Adds exp(v - m) of each element of a raw 16-byte slot to a: a thread's
 * share of a softmax row's denominator, once its max m is known. */
template <typename T>
__device__ __forceinline__ void exp_sum_add(csum &a, const uint4 &w4, float m) {
  float v[ty<T>::vec];
  unpack<T>(w4, v);
#pragma unroll
  for (int k = 0; k < ty<T>::vec; ++k)
    v[k] = fexp(v[k] - m);
  a.add(pair_sum(v));
}

/* Vector e.. of a row as load_slot gives it, whole aligned vectors with the
 * policy. */
template <typename T>
__device__ __forceinline__ uint4 wide_ld(const T *row, int e, int c1, bool vec,
                                         const uint8_t *mrow, float fill,
                                         uint64_t pol) {
  constexpr int VEC = ty<T>::vec;
  if (c1 - e >= VEC && vec && mrow == nullptr)
    return ld_pol(row + e, pol);
  return load_slot<T, false>(row, e, c1, vec, mrow, fill);
}

/* rmsnorm_bwd's arithmetic on every path (fused, wide, grid, skew), in
 * fewer instructions since v34a: a slot's two row terms as one fma chain
 * each (rmsbwd_terms: VEC operations for sum x^2, 2 VEC for sum g w x,
 * against v6b's pairs, then pairwise sums: 3 adds more per term and slot
 * of 8), and the write as gr = g rstd, dx = gr w + x s1, dw += gr x
 * (rb_dx: 4 operations an element, against 5: g w and g x were two
 * products). Other bits than v6b's, the same tolerances. H200
 * (bounds/v34-2026-12-02T1402): 7.3 % fewer instructions issued at bf16
 * 8192x8192, 1.01-1.02x at 8192, 32768 and 2^18 columns, the rest level
 * (docs/PERFORMANCE.md). */

/* One element of rmsnorm_bwd's write: dx of dy g, x and w with s0 = rstd
 * and s1 = -rstd^3 mean(g w x); adds g rstd x to dw. */
__device__ __forceinline__ float rb_dx(float g, float x, float w, float s0,
                                       float s1, float &dw) {
  const float gr = __fmul_rn(g, s0);
  dw = __fmaf_rn(gr, x, dw);
  return __fmaf_rn(gr, w, __fmul_rn(x, s1));
}

/* rmsnorm_bwd's two row terms of one slot (rowfused.cu, rowskew.cu), sum
 * x^2 (pt) and sum g w x (pd): one fma chain each (v34a; v6b's pairs'
 * sums by fma, then pairwise, before). */
template <int VEC>
__device__ __forceinline__ float2 rmsbwd_terms(const float (&g)[VEC],
                                               const float (&x)[VEC],
                                               const float (&ww)[VEC]) {
  float t = __fmul_rn(x[0], x[0]);
  float d = __fmul_rn(__fmul_rn(g[0], ww[0]), x[0]);
#pragma unroll
  for (int k = 1; k < VEC; ++k) {
    t = __fmaf_rn(x[k], x[k], t);
    d = __fmaf_rn(__fmul_rn(g[k], ww[k]), x[k], d);
  }
  return make_float2(t, d);
}

/* The self-tagged words of the grid path (rowfused_grid.cuh) and the skew
 * path (rowskew.cu): a 32-bit tag, the launch's epoch xor the word's index
 * times 0x9E3779B9, over one fp32 value, stored and polled relaxed. */
__device__ __forceinline__ uint32_t gtag(uint32_t ep, int64_t r) {
  return ep ^ ((uint32_t)r * 0x9E3779B9u);
}

__device__ __forceinline__ void st_relaxed(unsigned long long *p,
                                           unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v)
               : "memory");
}
__device__ __forceinline__ unsigned long long
ld_relaxed(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
               : "=l"(v)
               : "l"(p)
               : "memory");
  return v;
}

/* The end of a launch whose workspace header is [u32 epoch, u32 count]
 * (the grid path with more than one block an SM, the skew path): thread 0
 * of each of the launch's nblk blocks calls it after its block's last read
 * of the header; the last block to count itself out resets the count and
 * stores ep, the epoch of the next launch's tags. */
__device__ __forceinline__ void epoch_count_out(unsigned *hdr, unsigned nblk,
                                                uint32_t ep) {
  __threadfence();
  if (atomicAdd(hdr + 1, 1u) == nblk - 1u) {
    hdr[1] = 0u;
    __threadfence();
    hdr[0] = ep;
  }
}

} /* namespace cpk__ */

#endif
