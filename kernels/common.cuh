/* common.cuh: what every kernel family shares. Internal to kernels/; host
 * code sees only cpk.h.
 *
 *  - dtype traits: fp32 <-> float/__half/__nv_bfloat16 conversions and
 *    16-byte vector loads/stores that unpack to fp32 registers;
 *  - warp and block reductions with a fixed order (determinism: the same
 *    shape gives the same bits on every run, no floating-point atomics);
 *  - shape validation, the split plan shared by launchers and
 *    cpk_workspace_bytes, and grid sizing from the device's own numbers.
 */
#ifndef CPK_COMMON_CUH
#define CPK_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>
#include <stdlib.h> /* getenv */

#include "cpk.h"

/* Returns the error of a CUDA runtime call from the enclosing launcher
 * instead of continuing. Launchers never print or exit: the host side owns
 * reporting. */
#define CPK__TRY(call)                                                         \
  do {                                                                         \
    cudaError_t cpk__e = (call);                                               \
    if (cpk__e != cudaSuccess)                                                 \
      return cpk__e;                                                           \
  } while (0)

/* Returns cudaErrorInvalidValue from the enclosing launcher when cond is
 * false; used for argument checks before anything is launched. */
#define CPK__REQUIRE(cond)                                                     \
  do {                                                                         \
    if (!(cond))                                                               \
      return cudaErrorInvalidValue;                                            \
  } while (0)

/* Phase counters of experiment builds (rowfused_grid.cuh's CPK_GRID_PROF,
 * rowskew_ring.cuh's CPK_RING_PROF, each 0 or 1): CPK__PROF(sw, on, acc,
 * last, i) adds the clock64 cycles since `last` to acc[i] and restarts
 * `last` when `on`; with its switch sw 0 it is no code and names none of
 * its arguments, so the counters need exist only in the builds that keep
 * them. */
#define CPK__PROF(sw, on, acc, last, i) CPK__PROF_(sw, on, acc, last, i)
#define CPK__PROF_(sw, on, acc, last, i) CPK__PROF_##sw(on, acc, last, i)
#define CPK__PROF_0(on, acc, last, i)                                          \
  do {                                                                         \
  } while (0)
#define CPK__PROF_1(on, acc, last, i)                                          \
  do {                                                                         \
    if (on) {                                                                  \
      const long long cpk__t = clock64();                                      \
      (acc)[i] += cpk__t - (last);                                             \
      (last) = cpk__t;                                                         \
    }                                                                          \
  } while (0)

namespace cpk__ {

/* ---- dtype traits ---- */

template <typename T> struct ty;

template <> struct ty<float> {
  static constexpr int vec = 4; /* elements per 16-byte access */
  static __device__ __forceinline__ float to_f(float v) {
    return v;
  }
  static __device__ __forceinline__ float from_f(float v) {
    return v;
  }
};

template <> struct ty<__half> {
  static constexpr int vec = 8;
  static __device__ __forceinline__ float to_f(__half v) {
    return __half2float(v);
  }
  static __device__ __forceinline__ __half from_f(float v) {
    return __float2half_rn(v);
  }
  static __device__ __forceinline__ float lo(uint32_t u) {
    return __half2float(__ushort_as_half((unsigned short)(u & 0xffffu)));
  }
  static __device__ __forceinline__ float hi(uint32_t u) {
    return __half2float(__ushort_as_half((unsigned short)(u >> 16)));
  }
  static __device__ __forceinline__ uint32_t pack(float a, float b) {
    return (uint32_t)__half_as_ushort(__float2half_rn(a)) |
           ((uint32_t)__half_as_ushort(__float2half_rn(b)) << 16);
  }
};

template <> struct ty<__nv_bfloat16> {
  static constexpr int vec = 8;
  static __device__ __forceinline__ float to_f(__nv_bfloat16 v) {
    return __bfloat162float(v);
  }
  static __device__ __forceinline__ __nv_bfloat16 from_f(float v) {
    return __float2bfloat16_rn(v);
  }
  /* bf16 is the top half of an fp32: widening is a shift, exact. */
  static __device__ __forceinline__ float lo(uint32_t u) {
    return __uint_as_float(u << 16);
  }
  static __device__ __forceinline__ float hi(uint32_t u) {
    return __uint_as_float(u & 0xffff0000u);
  }
  static __device__ __forceinline__ uint32_t pack(float a, float b) {
    return (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(a)) |
           ((uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(b)) << 16);
  }
};

template <typename T> __device__ __forceinline__ float ld1(const T *p) {
  return ty<T>::to_f(*p);
}
template <typename T> __device__ __forceinline__ void st1(T *p, float v) {
  *p = ty<T>::from_f(v);
}

/* A raw 16-byte vector of ty<T>::vec elements as fp32 values, and back
 * (rounding to T). */
template <typename T>
__device__ __forceinline__ void unpack(const uint4 &q, float (&v)[4]) {
  v[0] = __uint_as_float(q.x);
  v[1] = __uint_as_float(q.y);
  v[2] = __uint_as_float(q.z);
  v[3] = __uint_as_float(q.w);
}
template <typename T>
__device__ __forceinline__ void unpack(const uint4 &q, float (&v)[8]) {
  v[0] = ty<T>::lo(q.x);
  v[1] = ty<T>::hi(q.x);
  v[2] = ty<T>::lo(q.y);
  v[3] = ty<T>::hi(q.y);
  v[4] = ty<T>::lo(q.z);
  v[5] = ty<T>::hi(q.z);
  v[6] = ty<T>::lo(q.w);
  v[7] = ty<T>::hi(q.w);
}
__device__ __forceinline__ uint4 pack(const float (&v)[4]) {
  return make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]),
                    __float_as_uint(v[2]), __float_as_uint(v[3]));
}
template <typename T>
__device__ __forceinline__ uint4 pack(const float (&v)[8]) {
  return make_uint4(ty<T>::pack(v[0], v[1]), ty<T>::pack(v[2], v[3]),
                    ty<T>::pack(v[4], v[5]), ty<T>::pack(v[6], v[7]));
}

/* Loads ty<T>::vec consecutive elements from a 16-byte aligned address into
 * fp32 registers with one 16-byte access (ld.global.v4). */
__device__ __forceinline__ void ldv(const float *p, float (&v)[4]) {
  float4 q = __ldg(reinterpret_cast<const float4 *>(p));
  v[0] = q.x;
  v[1] = q.y;
  v[2] = q.z;
  v[3] = q.w;
}
template <typename T>
__device__ __forceinline__ void ldv(const T *p, float (&v)[8]) {
  unpack<T>(__ldg(reinterpret_cast<const uint4 *>(p)), v);
}

/* L2 cache policies for the loads below (the whole access range). */
__device__ __forceinline__ uint64_t pol_evict_last() {
  uint64_t p;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ uint64_t pol_evict_first() {
  uint64_t p;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
/* 16-byte read-only load with an L2 cache policy; NA: not allocated in L1
 * either (a stream read once). The load is `asm volatile` (v34), so the
 * compiler can neither issue it ahead of the bounds test that guards it
 * (wide_ld, rowslot.cuh) nor duplicate or merge it. A plain `asm` is a
 * pure function of its operands to the compiler, which may then hoist it
 * past its guard: v33a's loads of that form read out of bounds
 * (docs/PERFORMANCE.md). */
template <bool NA = false>
__device__ __forceinline__ uint4 ld_pol(const void *a, uint64_t pol) {
  uint4 r;
  if constexpr (NA)
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 "
                 "{%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(a), "l"(pol));
  else
    asm volatile(
        "ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(a), "l"(pol));
  return r;
}

/* Rounds ty<T>::vec fp32 values to T and stores them with one 16-byte
 * access at a 16-byte aligned address. */
__device__ __forceinline__ void stv(float *p, const float (&v)[4]) {
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
template <typename T>
__device__ __forceinline__ void stv(T *p, const float (&v)[8]) {
  *reinterpret_cast<uint4 *>(p) = pack<T>(v);
}

/* ---- reductions (fixed order: butterfly within a warp, then warp results
 * combined in warp order by every warp, so all threads get the same bits) */

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/* Sum over the whole block; blockDim.x must be a multiple of 32 and every
 * thread must call it. sh: __shared__ float[32], reusable between calls (the
 * leading barrier protects the previous call's readers). */
__device__ __forceinline__ float block_sum(float v, float *sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int nw = blockDim.x >> 5;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0)
    sh[w] = v;
  __syncthreads();
  return warp_sum(lane < nw ? sh[lane] : 0.f);
}

__device__ __forceinline__ float block_max(float v, float *sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int nw = blockDim.x >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0)
    sh[w] = v;
  __syncthreads();
  return warp_max(lane < nw ? sh[lane] : -CUDART_INF_F);
}

/* ---- compensated sums ----
 * A long per-thread loop of plain fp32 additions loses up to k*u*sum|x| for
 * k terms (u = 2^-24): on a 10^6-wide row a warp lane adds ~3*10^4 terms
 * and the row total was off by ~1e-4 relative. csum keeps, next to the
 * rounded running sum s, the exact rounding error of every addition (Knuth's
 * TwoSum, branch-free and exact in any operand order) in c, so the error of
 * value() is about 2u*|sum| + k*u^2*sum|x| instead. nvcc neither
 * reassociates nor contracts these additions (no multiply to fuse, no
 * fast-math), so the compensation survives compilation. */
/* The GPU's nanosecond clock (%globaltimer): timeouts, probes. */
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* rmsnorm_backward's row coefficient rstd^3 * d / cols (dx = rstd g w -
 * x rstd^3 d / cols, d = sum g w x), in an order whose intermediates stay
 * in fp32's normal range wherever the result is: rstd * d / cols is of the
 * order of g w, and rstd^2 is normal while rstd^3 may not be. Multiplied
 * left to right, a row of values near 1e15 made rstd^3 5e-45, a subnormal
 * with two or three significant bits, and dx was off by 0.07-0.1 % of the
 * row's size in fp32 (measured on an H100, 2026-12-06; docs/VALIDATION.md,
 * "Rows under atol"). One more rounding per row, none per element. */
template <typename I>
__device__ __forceinline__ float rb_coef(float rstd, float d, I cols) {
  return (rstd * rstd) * (rstd * d / (float)cols);
}

struct csum {
  float s = 0.f, c = 0.f;

  /* Adds one term. */
  __device__ __forceinline__ void add(float x) {
    const float t = s + x;
    const float bp = t - s;
    c += (s - (t - bp)) + (x - bp);
    s = t;
  }
  /* Adds another partial. Symmetric: a.merge(b) and b.merge(a) give the
   * same bits (TwoSum's error is exact, hence order-free, and the c terms
   * are added before the error), so every lane of a butterfly ends with
   * identical results. */
  __device__ __forceinline__ void merge(float os, float oc) {
    const float t = s + os;
    const float bp = t - s;
    const float e = (s - (t - bp)) + (os - bp);
    c = (c + oc) + e;
    s = t;
  }
  /* The compensated total. Once s is inf or NaN the error terms are NaN
   * (inf - inf); the IEEE sum s itself is then the right answer (inf, -inf
   * or NaN, as a plain sum gives). */
  __device__ __forceinline__ float value() const {
    return isfinite(s) ? s + c : s;
  }
};

/* Sums a short vector of terms pairwise (error <= log2(N) * u * sum|v|, a
 * constant, not growing with the row) so the long loop does one compensated
 * addition per vector instead of per element. */
template <int N>
__device__ __forceinline__ float pair_sum(const float (&v)[N]) {
  static_assert(N == 2 || N == 4 || N == 8, "2, 4 or 8 terms");
  if constexpr (N == 2) {
    return v[0] + v[1];
  } else if constexpr (N == 4) {
    return (v[0] + v[1]) + (v[2] + v[3]);
  } else {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  }
}

/* Adds the elements of a raw 16-byte vector (SQ: their squares) to a,
 * pairwise: a thread's share of a row's sum (row_sum) or sum of squares
 * (rmsnorm). */
template <typename T, bool SQ>
__device__ __forceinline__ void sum_add(csum &a, const uint4 &q) {
  float v[ty<T>::vec];
  unpack<T>(q, v);
  if constexpr (SQ) {
#pragma unroll
    for (int k = 0; k < ty<T>::vec; ++k)
      v[k] *= v[k];
  }
  a.add(pair_sum(v));
}

/* Adds the products of two raw 16-byte vectors, element by element, to a:
 * a thread's share of softmax_backward's sum of dy y. */
template <typename T>
__device__ __forceinline__ void dot_add(csum &a, const uint4 &q,
                                        const uint4 &r) {
  float v[ty<T>::vec], y[ty<T>::vec];
  unpack<T>(q, v);
  unpack<T>(r, y);
#pragma unroll
  for (int k = 0; k < ty<T>::vec; ++k)
    v[k] *= y[k];
  a.add(pair_sum(v));
}

/* Butterfly over a warp carrying both halves of the compensated sum; every
 * lane gets the same bits. */
__device__ __forceinline__ void warp_csum(csum &v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float os = __shfl_xor_sync(0xffffffffu, v.s, o);
    const float oc = __shfl_xor_sync(0xffffffffu, v.c, o);
    v.merge(os, oc);
  }
}

/* Compensated sum over the whole block, returned as one float to every
 * thread. Same rules as block_sum, but sh is __shared__ float[64] (s and c
 * per warp). */
__device__ __forceinline__ float block_csum(csum v, float *sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int nw = blockDim.x >> 5;
  warp_csum(v);
  __syncthreads();
  if (lane == 0) {
    sh[w] = v.s;
    sh[32 + w] = v.c;
  }
  __syncthreads();
  csum r;
  if (lane < nw) {
    r.s = sh[lane];
    r.c = sh[32 + lane];
  }
  warp_csum(r);
  return r.value();
}

template <bool BLK>
__device__ __forceinline__ float grp_csum(csum v, float *sh) {
  if constexpr (BLK) {
    return block_csum(v, sh);
  } else {
    warp_csum(v);
    return v.value();
  }
}

/* Group reductions: a warp (BLK false) or the whole block (BLK true). */
template <bool BLK>
__device__ __forceinline__ float grp_sum(float v, float *sh) {
  return BLK ? block_sum(v, sh) : warp_sum(v);
}
template <bool BLK>
__device__ __forceinline__ float grp_max(float v, float *sh) {
  return BLK ? block_max(v, sh) : warp_max(v);
}

/* Online-softmax state: running max m and sum s of exp(x - m). m == -inf
 * means "nothing seen yet" (s is then 0). Combining two states rescales
 * the smaller-max sum; -inf states contribute nothing, which avoids the
 * exp(-inf - -inf) = NaN trap. */
__device__ __forceinline__ void ms_merge(float &m, float &s, float m2,
                                         float s2) {
  if (m2 == -CUDART_INF_F)
    return;
  if (m == -CUDART_INF_F) {
    m = m2;
    s = s2;
    return;
  }
  float mn = fmaxf(m, m2);
  s = s * expf(m - mn) + s2 * expf(m2 - mn);
  m = mn;
}

__device__ __forceinline__ void warp_ms(float &m, float &s) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    float m2 = __shfl_xor_sync(0xffffffffu, m, o);
    float s2 = __shfl_xor_sync(0xffffffffu, s, o);
    ms_merge(m, s, m2, s2);
  }
}

/* Block-wide merge of online states; sh: __shared__ float[64]. Every thread
 * gets the result. */
__device__ __forceinline__ void block_ms(float &m, float &s, float *sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int nw = blockDim.x >> 5;
  warp_ms(m, s);
  __syncthreads();
  if (lane == 0) {
    sh[w] = m;
    sh[32 + w] = s;
  }
  __syncthreads();
  m = lane < nw ? sh[lane] : -CUDART_INF_F;
  s = lane < nw ? sh[32 + lane] : 0.f;
  warp_ms(m, s);
}

/* Visits columns [c0, c1) of one row, shared by nthr cooperating threads
 * of which this is number tid. With V (vector path), c0 must be a multiple
 * of VEC and the row data 16-byte aligned at c0: whole vectors go to fv(c)
 * and the remainder, element by element, to fs(c). Without V everything goes
 * to fs. The thread-to-column assignment depends only on (c0, c1, nthr), so
 * per-thread partial sums are the same on every run. */
template <int VEC, bool V, class FV, class FS>
__device__ __forceinline__ void visit(int64_t c0, int64_t c1, int tid, int nthr,
                                      FV fv, FS fs) {
  int64_t c = c0;
  if constexpr (V) {
    const int64_t nv = (c1 - c0) / VEC;
    for (int64_t i = tid; i < nv; i += nthr)
      fv(c0 + i * VEC);
    c = c0 + nv * VEC;
  }
  for (int64_t j = c + tid; j < c1; j += nthr)
    fs(j);
}

/* Row-group geometry: with BLK a group is the whole block (one row per
 * block at a time), without it a group is one warp. tid/nthr: this thread's
 * index in its group and the group size; g/ng: the first row of this group
 * and the row step of the grid-stride loop over rows. */
template <bool BLK> struct group {
  int tid, nthr;
  int64_t g, ng;
  __device__ __forceinline__ group() {
    if constexpr (BLK) {
      tid = threadIdx.x;
      nthr = blockDim.x;
      g = blockIdx.x;
      ng = gridDim.x;
    } else {
      tid = threadIdx.x & 31;
      nthr = 32;
      g = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
      ng = ((int64_t)gridDim.x * blockDim.x) >> 5;
    }
  }
};

/* ---- host-side helpers ---- */

__host__ __forceinline__ bool aligned16(const void *p) {
  return ((uintptr_t)p & 15u) == 0;
}

/* True when every row of a tensor at p with this stride starts on a 16-byte
 * boundary, so rows can be read with 16-byte vectors (tail scalar). */
__host__ __forceinline__ bool rows_vec_ok(const void *p, int64_t stride,
                                          size_t esize) {
  return p == nullptr ||
         (aligned16(p) && ((stride * (int64_t)esize) % 16) == 0);
}

__host__ __forceinline__ bool shape_ok(cpk_rows s) {
  return s.rows >= 1 && s.cols >= 1 && s.stride >= s.cols;
}

__host__ __forceinline__ size_t dt_size(cpk_dtype dt) {
  return dt == CPK_F32 ? 4u : 2u;
}

/* A launch knob for side-by-side runs (CPK_FUSED_PERSIST,
 * CPK_MM_TMA_STORE; docs/BENCHMARKING.md, and the timing harness flags a
 * run that sets one): on unless the environment variable `name` is exactly
 * "0". */
__host__ inline bool knob_on(const char *name) {
  const char *e = getenv(name);
  return !(e != nullptr && e[0] == '0' && e[1] == '\0');
}

/* An integer launch setting from the environment (side-by-side runs and
 * experiment builds: CPK_GRID_MIN, CPK_SEG_MIN, ...): its value where the
 * variable is set and not empty, else dflt. */
__host__ inline int64_t knob_int(const char *name, int64_t dflt) {
  const char *e = getenv(name);
  return (e != nullptr && *e != '\0') ? (int64_t)strtoll(e, nullptr, 10) : dflt;
}

__host__ __forceinline__ bool dt_ok(cpk_dtype dt) {
  return dt == CPK_F32 || dt == CPK_F16 || dt == CPK_BF16;
}

/* f(e) with e a value of dt's element type (float, __half, __nv_bfloat16):
 * the launchers' one dtype switch, e.g.
 *   return with_dt(dt, [&](auto e) { return run<decltype(e)>(...); });
 * cudaErrorInvalidValue for any other dt. */
template <class F> __host__ cudaError_t with_dt(cpk_dtype dt, F &&f) {
  switch (dt) {
  case CPK_F32:
    return f(float{});
  case CPK_F16:
    return f(__half{});
  case CPK_BF16:
    return f(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

/* The SPLIT variants cut each row into `chunks` chunks of `chunk_cols`
 * columns (the last may be shorter). The plan is a pure function of the
 * shape, so cpk_workspace_bytes and the launchers agree, and the reduction
 * order (hence the bits) never depends on the device. chunk_cols is a
 * multiple of 8 so chunk starts keep 16-byte alignment for every dtype. */
struct split_plan {
  int64_t chunks;
  int64_t chunk_cols;
};

__host__ __forceinline__ split_plan plan_split(int64_t rows, int64_t cols) {
  const int64_t min_chunk = 2048, target_blocks = 1024, max_chunks = 4096;
  int64_t want = (target_blocks + rows - 1) / rows;
  int64_t by_len = (cols + min_chunk - 1) / min_chunk;
  int64_t chunks = want < by_len ? want : by_len;
  if (chunks > max_chunks)
    chunks = max_chunks;
  if (chunks < 1)
    chunks = 1;
  int64_t cc = (cols + chunks - 1) / chunks;
  cc = (cc + 7) / 8 * 8;
  split_plan p;
  p.chunk_cols = cc;
  p.chunks = (cols + cc - 1) / cc;
  return p;
}

/* rmsnorm_bwd's dw is a column reduction: the rows are cut into `groups`
 * groups of `rows_per_group` rows; each group writes one fp32 partial row of
 * dw into the workspace, then a second kernel adds the groups in order. */
struct dw_plan {
  int64_t groups;
  int64_t rows_per_group;
};

static const int kDwCols = 256; /* columns per block of the dw kernels */

__host__ __forceinline__ dw_plan plan_dw(int64_t rows, int64_t cols) {
  const int64_t target_blocks = 2048, min_rows = 16;
  int64_t col_blocks = (cols + kDwCols - 1) / kDwCols;
  int64_t g = (target_blocks + col_blocks - 1) / col_blocks;
  int64_t gmax = (rows + min_rows - 1) / min_rows;
  if (g > gmax)
    g = gmax;
  if (g < 1)
    g = 1;
  dw_plan p;
  p.rows_per_group = (rows + g - 1) / g;
  p.groups = (rows + p.rows_per_group - 1) / p.rows_per_group;
  return p;
}

/* Threads per block for the one-block-per-row variants: a pure function of
 * the row length (so reduction order is fixed per shape). */
__host__ __forceinline__ int block_threads(int64_t cols) {
  return cols <= 1024 ? 128 : cols <= 8192 ? 256 : 512;
}

/* Threads per block for the warp-per-row variants (8 rows per block). */
static const int kWarpBlock = 256;

/* Threads per block of the SPLIT variants' per-chunk kernels. */
static const int kSplitThreads = 256;

/* Grid of a SPLIT kernel: x = chunk, y = first row (grid-stride over rows,
 * since gridDim.y is limited to 65535). */
__host__ __forceinline__ dim3 split_grid(split_plan p, int64_t rows) {
  return dim3((unsigned)p.chunks, (unsigned)(rows < 65535 ? rows : 65535), 1);
}

/* Rounds a workspace section up to 256 bytes so every section starts
 * aligned for any access. */
__host__ __forceinline__ size_t ws_round(size_t b) {
  return (b + 255u) / 256u * 256u;
}

/* Grid size for a grid-stride kernel: enough resident blocks to fill every
 * multiprocessor of the current device (from the device's attributes and the
 * kernel's occupancy, never a table), capped by the useful work. */
template <typename K>
__host__ cudaError_t grid_for(K kernel, int threads, size_t smem,
                              int64_t work_blocks, unsigned *out) {
  int dev = 0, sms = 0, per_sm = 0;
  CPK__TRY(cudaGetDevice(&dev));
  CPK__TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CPK__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                         threads, smem));
  if (per_sm < 1)
    per_sm = 1;
  int64_t g = (int64_t)sms * per_sm;
  if (work_blocks < g)
    g = work_blocks;
  if (g < 1)
    g = 1;
  if (g > 0x7fffffff)
    g = 0x7fffffff;
  *out = (unsigned)g;
  return cudaSuccess;
}

/* One cooperative launch (every block resident at once, so blocks may
 * wait on each other): kernel(args...) on grid x block with smem bytes of
 * dynamic shared memory on stream st; cudaLaunchKernelEx's error. */
template <class K, class... A>
__host__ cudaError_t coop_launch(K kernel, dim3 grid, dim3 block, size_t smem,
                                 cudaStream_t st, A &&...args) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = grid;
  lc.blockDim = block;
  lc.dynamicSmemBytes = smem;
  lc.stream = st;
  cudaLaunchAttribute at;
  at.id = cudaLaunchAttributeCooperative;
  at.val.cooperative = 1;
  lc.attrs = &at;
  lc.numAttrs = 1;
  return cudaLaunchKernelEx(&lc, kernel, static_cast<A &&>(args)...);
}

} /* namespace cpk__ */

#endif
