/* matmul.cu: C[M x N] = op(A) * op(B), fp32 accumulation (cpk.h layouts).
 *
 * NAIVE: one thread per C element, all dtypes.
 * TILED: fp32 FFMA, 128x128 block tiles, K step 16, 256 threads (8 warps
 *   of 32x64), each owning an 8x8 register block. Both tiles are k-major in
 *   shared memory (A transposed on the way in), so every thread reads its
 *   fragments as float4; the shared tiles are double-buffered, the next K
 *   step is prefetched into registers during the FFMAs, one barrier per K
 *   step. Global loads and C stores are 16-byte where base pointer and ld
 *   allow and the quad is in range, else element by element with bounds
 *   checks (zero-padding past M, N or K).
 * TENSORCORE: fp16/bf16 through WMMA 16x16x16 fragments with fp32
 *   accumulators; 64x64 block tiles, K step 32, four warps of 32x32.
 * TENSORCORE loads its tiles into shared memory element by element with
 * bounds checks, zero-padding past M, N or K. Every variant takes any shape,
 * both trans flags and any ld; the stores are masked. Tile loops are
 * grid-stride (gridDim.y is limited).
 * HOPPER: TMA + wgmma on sm_90a, in matmul_sm90.cu (its own object library);
 *   dispatched only where cpk_variant_available says the device runs it.
 *   It is the only variant that uses a workspace: with one, an operand whose
 *   leading dimension TMA cannot take is first copied there with a padded
 *   one (cpk_matmul_workspace_bytes sizes it from the plan in
 *   mm_sm90.cuh); without one (ws_bytes 0) such an operand takes the
 *   kernel's manual loader. Every other variant ignores (ws, ws_bytes).
 */
#include <mma.h>

#include "common.cuh"
#include "mm_sm90.cuh"

namespace {

using namespace cpk__;

/* op(A)[i, k] and op(B)[k, j] addresses for the stored layouts. */
__device__ __forceinline__ int64_t a_idx(const cpk_gemm &g, int64_t i,
                                         int64_t k) {
  return g.trans_a ? k * g.lda + i : i * g.lda + k;
}
__device__ __forceinline__ int64_t b_idx(const cpk_gemm &g, int64_t k,
                                         int64_t j) {
  return g.trans_b ? j * g.ldb + k : k * g.ldb + j;
}

/* ---- NAIVE ---- */

constexpr int kNaive = 16;

template <typename T>
__global__ void mm_naive_k(const T *__restrict__ a, const T *__restrict__ b,
                           T *__restrict__ c, cpk_gemm g) {
  for (int64_t i = (int64_t)blockIdx.y * kNaive + threadIdx.y; i < g.m;
       i += (int64_t)gridDim.y * kNaive) {
    for (int64_t j = (int64_t)blockIdx.x * kNaive + threadIdx.x; j < g.n;
         j += (int64_t)gridDim.x * kNaive) {
      float acc = 0.f;
      for (int64_t k = 0; k < g.k; ++k)
        acc = fmaf(ld1(a + a_idx(g, i, k)), ld1(b + b_idx(g, k, j)), acc);
      st1(c + i * g.ldc + j, acc);
    }
  }
}

/* Grid for a tile-per-block kernel: tiles in x (N) and y (M), y capped. */
dim3 tile_grid(int64_t m, int64_t n, int tm, int tn) {
  int64_t gx = (n + tn - 1) / tn, gy = (m + tm - 1) / tm;
  if (gx > 0x7fffffff)
    gx = 0x7fffffff;
  if (gy > 65535)
    gy = 65535;
  return dim3((unsigned)gx, (unsigned)gy, 1);
}

/* ---- TILED (fp32) ---- */

constexpr int kTM = 128;     /* block tile rows (M) */
constexpr int kTN = 128;     /* block tile columns (N) */
constexpr int kTK = 16;      /* K step */
constexpr int kTT = 256;     /* threads: 8 warps in 4 (M) x 2 (N) */
constexpr int kTP = kTM + 4; /* shared row pitch (floats): rows stay 16-byte
                                aligned for the float4 reads, the
                                transposing stores at most 2-way conflicted */
constexpr int kTQ = kTM * kTK / (4 * kTT); /* quads per thread and operand */
static_assert(kTM == kTN && kTK % 8 == 0 && kTQ * 4 * kTT == kTM * kTK,
              "whole quads per thread");

/* One thread's share of a 128 x kTK operand tile X[mn][k] (mn in [mn0,
 * mn0 + 128), k in [k0, k0 + kTK)): kTQ quads of four elements consecutive
 * in memory.
 * KC (k contiguous: A with trans_a = 0, B with trans_b = 1): quad u is row
 * tid / QR + u * RS, k = 4 * (tid % QR) + 0..3, written transposed into the
 * k-major tile. Otherwise (mn contiguous): k = tid / 32 + 8 * u,
 * mn = 4 * (tid % 32) + 0..3, written as one float4. Out-of-range elements
 * (mn >= MN, k >= K) load as 0; a whole in-range quad loads with one 16-byte
 * access when the operand's base pointer and ld allow it (vec), else element
 * by element. */
template <bool KC> struct tile_ld {
  static constexpr int QR = kTK / 4;            /* KC: quads per row */
  static constexpr int RS = kTT / QR;           /* KC: rows between quads */
  static constexpr int KS = kTT / 32;           /* MC: k between quads */
  static constexpr int SU = KC ? RS : KS * kTP; /* shared offset between */
  const float *p; /* this thread's first element at the current K step */
  int64_t step;   /* elements between K steps */
  int64_t du;     /* elements between this thread's quads */
  int ko;         /* this thread's first k within the step */
  int soff;       /* shared offset of the first element */
  int lim[kTQ];   /* KC: 4 if quad u's row is in range, else 0; otherwise
                     the number of in-range columns of the quads, 0..4 */
  bool vec;

  __device__ __forceinline__ tile_ld(const float *x, int64_t ld, int64_t mn0,
                                     int64_t mn, bool v, int tid) {
    vec = v;
    if (KC) {
      const int r = tid / QR, q = (tid % QR) * 4;
      p = x + (mn0 + r) * ld + q;
      step = kTK;
      du = RS * ld;
      ko = q;
#pragma unroll
      for (int u = 0; u < kTQ; ++u)
        lim[u] = mn0 + r + u * RS < mn ? 4 : 0;
      soff = q * kTP + r;
    } else {
      const int r = tid / 32, q = (tid % 32) * 4;
      p = x + r * ld + mn0 + q;
      step = kTK * ld;
      du = KS * ld;
      ko = r;
      const int64_t c = mn - (mn0 + q);
#pragma unroll
      for (int u = 0; u < kTQ; ++u)
        lim[u] = c >= 4 ? 4 : c > 0 ? (int)c : 0;
      soff = r * kTP + q;
    }
  }

  /* kv: how many k of this step are in range, 1..kTK. */
  __device__ __forceinline__ void load(int kv, float (&v)[kTQ][4]) const {
#pragma unroll
    for (int u = 0; u < kTQ; ++u) {
      const int cnt =
          KC ? min(lim[u], max(kv - ko, 0)) : (ko + u * KS < kv ? lim[u] : 0);
      const float *pu = p + u * du;
      if (vec && cnt == 4) {
        ldv(pu, v[u]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          v[u][e] = e < cnt ? __ldg(pu + e) : 0.f;
      }
    }
  }

  __device__ __forceinline__ void next() {
    p += step;
  }

  __device__ __forceinline__ void store(float *s,
                                        const float (&v)[kTQ][4]) const {
#pragma unroll
    for (int u = 0; u < kTQ; ++u) {
      float *su = s + soff + u * SU;
      if (KC) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          su[e * kTP] = v[u][e];
      } else {
        *reinterpret_cast<float4 *>(su) =
            make_float4(v[u][0], v[u][1], v[u][2], v[u][3]);
      }
    }
  }
};

/* One k of a thread's fragments: op(A) rows tm + {0..3, 16..19} and op(B)
 * columns tn + {0..3, 32..35}, as four 16-byte shared loads; sa and sb point
 * at row k of the k-major tiles, offset by tm and tn. */
__device__ __forceinline__ void tiled_frag(const float *sa, const float *sb,
                                           float (&fa)[8], float (&fb)[8]) {
  const float4 a0 = *reinterpret_cast<const float4 *>(sa);
  const float4 a1 = *reinterpret_cast<const float4 *>(sa + 16);
  const float4 b0 = *reinterpret_cast<const float4 *>(sb);
  const float4 b1 = *reinterpret_cast<const float4 *>(sb + 32);
  fa[0] = a0.x, fa[1] = a0.y, fa[2] = a0.z, fa[3] = a0.w;
  fa[4] = a1.x, fa[5] = a1.y, fa[6] = a1.z, fa[7] = a1.w;
  fb[0] = b0.x, fb[1] = b0.y, fb[2] = b0.z, fb[3] = b0.w;
  fb[4] = b1.x, fb[5] = b1.y, fb[6] = b1.z, fb[7] = b1.w;
}

/* 128 x 128 block tile, 256 threads, 8 x 8 outputs per thread: rows
 * tm + {0..3, 16..19}, columns tn + {0..3, 32..35}. A warp covers 32 x 64;
 * per k its lanes read 4 distinct float4 of the A row (broadcast) and 8
 * consecutive float4 of the B row: no bank conflicts. Shared tiles are
 * double-buffered; the next K step's global loads are issued into registers
 * before the current step's FFMAs and written to the other buffer before
 * its last k, whose fragments are already in registers; the barrier sits
 * there too, so the next step's first fragment loads overlap the last k's
 * FFMAs. One barrier per K step. vec: bit 0 A, bit 1 B, bit 2 C may use
 * 16-byte accesses (base 16-byte aligned, ld a multiple of 4). Occupancy:
 * one block (8 warps) per SM; at 2 the 128-register cap spills. */
template <bool TA, bool TB>
__global__ void __launch_bounds__(kTT, 1)
    mm_tiled_k(const float *__restrict__ a, const float *__restrict__ b,
               float *__restrict__ c, cpk_gemm g, int vec) {
  __shared__ __align__(16) float As[2][kTK * kTP]; /* [k][i] */
  __shared__ __align__(16) float Bs[2][kTK * kTP]; /* [k][j] */
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int tm = (warp >> 1) * 32 + (lane >> 3) * 4;
  const int tn = (warp & 1) * 64 + (lane & 7) * 4;
  /* Tile counts fit in int: an operand of M rows holds >= 4 * M bytes. */
  const int tiles_m = (int)((g.m + kTM - 1) / kTM),
            tiles_n = (int)((g.n + kTN - 1) / kTN);
  for (int bm = blockIdx.y; bm < tiles_m; bm += gridDim.y) {
    for (int bn = blockIdx.x; bn < tiles_n; bn += gridDim.x) {
      const int64_t m0 = (int64_t)bm * kTM, n0 = (int64_t)bn * kTN;
      tile_ld<!TA> la(a, g.lda, m0, g.m, vec & 1, tid);
      tile_ld<TB> lb(b, g.ldb, n0, g.n, vec & 2, tid);
      float ra[kTQ][4], rb[kTQ][4];
      la.load(g.k < kTK ? (int)g.k : kTK, ra);
      lb.load(g.k < kTK ? (int)g.k : kTK, rb);
      la.store(As[0], ra);
      lb.store(Bs[0], rb);
      __syncthreads();
      float acc[8][8];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] = 0.f;
      /* Fragments of two consecutive k: the next one is read from shared
       * memory while the current one feeds the FFMAs. */
      float fa[2][8], fb[2][8];
      tiled_frag(As[0] + tm, Bs[0] + tn, fa[0], fb[0]);
      int cur = 0;
      /* rest: K minus the first k of the next step. */
      for (int64_t rest = g.k - kTK;; rest -= kTK) {
        const bool more = rest > 0;
        if (more) {
          const int kv = rest < kTK ? (int)rest : kTK;
          la.next();
          lb.next();
          la.load(kv, ra);
          lb.load(kv, rb);
        }
#pragma unroll
        for (int kk = 0; kk < kTK; ++kk) {
          if (kk + 1 < kTK) {
            tiled_frag(As[cur] + (kk + 1) * kTP + tm,
                       Bs[cur] + (kk + 1) * kTP + tn, fa[(kk + 1) & 1],
                       fb[(kk + 1) & 1]);
          } else {
            /* Last k of the step: its fragments are already in registers,
             * so the other buffer is filled and published now, and its
             * first fragments load under this k's FFMAs. The other buffer
             * was last read before the previous step's barrier; this
             * buffer's reads are all issued above, so the next tile
             * pair's prologue (buffer 0) may follow this barrier too. */
            if (more) {
              la.store(As[cur ^ 1], ra);
              lb.store(Bs[cur ^ 1], rb);
            }
            __syncthreads();
            if (more)
              tiled_frag(As[cur ^ 1] + tm, Bs[cur ^ 1] + tn, fa[0], fb[0]);
          }
#pragma unroll
          for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
              acc[i][j] = fmaf(fa[kk & 1][i], fb[kk & 1][j], acc[i][j]);
        }
        if (!more)
          break;
        cur ^= 1;
      }
      const bool vc = (vec & 4) != 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int64_t row = m0 + tm + (i & 3) + (i >> 2) * 16;
        if (row >= g.m)
          continue;
        float *cr = c + row * g.ldc + n0 + tn;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t rem = g.n - (n0 + tn + 32 * h);
          const float *v = &acc[i][4 * h];
          if (vc && rem >= 4) {
            *reinterpret_cast<float4 *>(cr + 32 * h) =
                make_float4(v[0], v[1], v[2], v[3]);
          } else {
#pragma unroll
            for (int e = 0; e < 4; ++e)
              if (e < rem)
                cr[32 * h + e] = v[e];
          }
        }
      }
    }
  }
}

cudaError_t tiled(const void *a, const void *b, void *c, const cpk_gemm &g,
                  cudaStream_t st) {
  const int vec = (rows_vec_ok(a, g.lda, 4) ? 1 : 0) |
                  (rows_vec_ok(b, g.ldb, 4) ? 2 : 0) |
                  (rows_vec_ok(c, g.ldc, 4) ? 4 : 0);
  const dim3 grid = tile_grid(g.m, g.n, kTM, kTN);
  const float *fa = (const float *)a, *fb = (const float *)b;
  float *fc = (float *)c;
  if (g.trans_a) {
    if (g.trans_b)
      mm_tiled_k<true, true><<<grid, kTT, 0, st>>>(fa, fb, fc, g, vec);
    else
      mm_tiled_k<true, false><<<grid, kTT, 0, st>>>(fa, fb, fc, g, vec);
  } else {
    if (g.trans_b)
      mm_tiled_k<false, true><<<grid, kTT, 0, st>>>(fa, fb, fc, g, vec);
    else
      mm_tiled_k<false, false><<<grid, kTT, 0, st>>>(fa, fb, fc, g, vec);
  }
  return cudaGetLastError();
}

/* ---- TENSORCORE (fp16 / bf16) ---- */

namespace wm = nvcuda::wmma;

constexpr int kWB = 64;       /* block tile, M and N */
constexpr int kWK = 32;       /* K step */
constexpr int kWT = 128;      /* threads: 4 warps in 2 x 2 */
constexpr int kALd = kWK + 8; /* padded leading dims (multiples of 8 */
constexpr int kBLd = kWB + 8; /*  elements; fragment rows stay 32-byte */
constexpr int kCLd = kWB + 4; /*  aligned, banks staggered) */

template <typename T>
__global__ void __launch_bounds__(kWT)
    mm_wmma_k(const T *__restrict__ a, const T *__restrict__ b,
              T *__restrict__ c, cpk_gemm g) {
  __shared__ __align__(32) T As[kWB * kALd]; /* [i][k] */
  __shared__ __align__(32) T Bs[kWK * kBLd]; /* [k][j] */
  __shared__ __align__(32) float Cs[kWB * kCLd];
  const int tid = threadIdx.x, warp = tid >> 5;
  const int wm0 = (warp >> 1) * 32, wn0 = (warp & 1) * 32;
  const T zero = ty<T>::from_f(0.f);
  const int64_t tiles_m = (g.m + kWB - 1) / kWB,
                tiles_n = (g.n + kWB - 1) / kWB;
  for (int64_t bm = blockIdx.y; bm < tiles_m; bm += gridDim.y) {
    for (int64_t bn = blockIdx.x; bn < tiles_n; bn += gridDim.x) {
      const int64_t m0 = bm * kWB, n0 = bn * kWB;
      wm::fragment<wm::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
      for (int u = 0; u < 2; ++u)
#pragma unroll
        for (int v = 0; v < 2; ++v)
          wm::fill_fragment(acc[u][v], 0.f);
      for (int64_t k0 = 0; k0 < g.k; k0 += kWK) {
        /* 2048 elements per tile, 16 per thread. */
        for (int e = tid; e < kWB * kWK; e += kWT) {
          int ii, kk;
          if (g.trans_a) {
            kk = e / kWB;
            ii = e % kWB;
          } else {
            ii = e / kWK;
            kk = e % kWK;
          }
          const int64_t gi = m0 + ii, gk = k0 + kk;
          As[ii * kALd + kk] =
              (gi < g.m && gk < g.k) ? a[a_idx(g, gi, gk)] : zero;
          int jj;
          if (g.trans_b) {
            jj = e / kWK;
            kk = e % kWK;
          } else {
            kk = e / kWB;
            jj = e % kWB;
          }
          const int64_t gj = n0 + jj, gk2 = k0 + kk;
          Bs[kk * kBLd + jj] =
              (gj < g.n && gk2 < g.k) ? b[b_idx(g, gk2, gj)] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int ks = 0; ks < kWK; ks += 16) {
          wm::fragment<wm::matrix_a, 16, 16, 16, T, wm::row_major> fa[2];
          wm::fragment<wm::matrix_b, 16, 16, 16, T, wm::row_major> fb[2];
#pragma unroll
          for (int u = 0; u < 2; ++u)
            wm::load_matrix_sync(fa[u], As + (wm0 + 16 * u) * kALd + ks, kALd);
#pragma unroll
          for (int v = 0; v < 2; ++v)
            wm::load_matrix_sync(fb[v], Bs + ks * kBLd + wn0 + 16 * v, kBLd);
#pragma unroll
          for (int u = 0; u < 2; ++u)
#pragma unroll
            for (int v = 0; v < 2; ++v)
              wm::mma_sync(acc[u][v], fa[u], fb[v], acc[u][v]);
        }
        /* The next K step overwrites As/Bs. */
        __syncthreads();
      }
#pragma unroll
      for (int u = 0; u < 2; ++u)
#pragma unroll
        for (int v = 0; v < 2; ++v)
          wm::store_matrix_sync(Cs + (wm0 + 16 * u) * kCLd + wn0 + 16 * v,
                                acc[u][v], kCLd, wm::mem_row_major);
      __syncthreads();
      for (int e = tid; e < kWB * kWB; e += kWT) {
        const int ii = e / kWB, jj = e % kWB;
        const int64_t i = m0 + ii, j = n0 + jj;
        if (i < g.m && j < g.n)
          st1(c + i * g.ldc + j, Cs[ii * kCLd + jj]);
      }
      /* Cs is rewritten by the next tile's fragment stores. */
      __syncthreads();
    }
  }
}

template <typename T>
cudaError_t naive(const void *a, const void *b, void *c, const cpk_gemm &g,
                  cudaStream_t st) {
  const dim3 blk(kNaive, kNaive, 1);
  mm_naive_k<T><<<tile_grid(g.m, g.n, kNaive, kNaive), blk, 0, st>>>(
      (const T *)a, (const T *)b, (T *)c, g);
  return cudaGetLastError();
}

template <typename T>
cudaError_t tensorcore(const void *a, const void *b, void *c, const cpk_gemm &g,
                       cudaStream_t st) {
  mm_wmma_k<T><<<tile_grid(g.m, g.n, kWB, kWB), kWT, 0, st>>>(
      (const T *)a, (const T *)b, (T *)c, g);
  return cudaGetLastError();
}

bool gemm_ok(const cpk_gemm &g) {
  return g.m >= 1 && g.n >= 1 && g.k >= 1 && g.lda >= (g.trans_a ? g.m : g.k) &&
         g.ldb >= (g.trans_b ? g.k : g.n) && g.ldc >= g.n;
}

} /* namespace */

extern "C" size_t cpk_matmul_workspace_bytes(cpk_variant v, cpk_dtype dt,
                                             cpk_gemm g) {
  if (v != CPK_V_HOPPER || (dt != CPK_F16 && dt != CPK_BF16) || !gemm_ok(g))
    return 0;
  g.trans_a = g.trans_a != 0;
  g.trans_b = g.trans_b != 0;
  size_t sa = 0, sb = 0;
  mm_pack_sections(g, sa, sb);
  return sa + sb;
}

extern "C" cudaError_t cpk_matmul(cpk_variant v, cpk_dtype dt, const void *a,
                                  const void *b, void *c, cpk_gemm g, void *ws,
                                  size_t ws_bytes, cudaStream_t stream) {
  CPK__REQUIRE(a && b && c && dt_ok(dt) && gemm_ok(g));
  /* Normalise the flags so kernels can test them as booleans. */
  g.trans_a = g.trans_a != 0;
  g.trans_b = g.trans_b != 0;
  if (v == CPK_V_NAIVE) {
    return with_dt(
        dt, [&](auto e) { return naive<decltype(e)>(a, b, c, g, stream); });
  } else if (v == CPK_V_TILED && dt == CPK_F32) {
    return tiled(a, b, c, g, stream);
  } else if (v == CPK_V_HOPPER && (dt == CPK_F16 || dt == CPK_BF16)) {
    /* ws_bytes 0: no repack. Otherwise at least the size, and a workspace
     * the 16-byte copies can be written to. */
    CPK__REQUIRE(ws_bytes == 0 ||
                 (ws && aligned16(ws) &&
                  ws_bytes >= cpk_matmul_workspace_bytes(v, dt, g)));
    if (cpk_variant_available(CPK_OP_MATMUL, v, dt) != 1)
      return cudaErrorNotSupported;
    return mm_sm90(dt, a, b, c, g, ws, ws_bytes, stream);
  } else if (v == CPK_V_TENSORCORE && dt == CPK_F16) {
    return tensorcore<__half>(a, b, c, g, stream);
  } else if (v == CPK_V_TENSORCORE && dt == CPK_BF16) {
    return tensorcore<__nv_bfloat16>(a, b, c, g, stream);
  }
  return cudaErrorInvalidValue;
}
