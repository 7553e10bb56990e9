/* matmul.cu: C[M x N] = op(A) * op(B), fp32 accumulation (cpk.h layouts).
 *
 * NAIVE: one thread per C element, all dtypes.
 * TILED: fp32, 64x64 block tiles, K step 16, staged in shared memory;
 *   each of 256 threads owns a 4x4 register block.
 * TENSORCORE: fp16/bf16 through WMMA 16x16x16 fragments with fp32
 *   accumulators; 64x64 block tiles, K step 32, four warps of 32x32.
 * Tiles are loaded into shared memory element by element with bounds checks,
 * zero-padding past M, N or K, so any shape and both trans flags work; the
 * stores are masked. Tile loops are grid-stride (gridDim.y is limited).
 */
#include <mma.h>

#include "common.cuh"

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

constexpr int kTB = 64;  /* block tile, M and N */
constexpr int kTK = 16;  /* K step */
constexpr int kTT = 256; /* threads: 16 x 16, 4 x 4 outputs each */

__global__ void __launch_bounds__(kTT)
    mm_tiled_k(const float *__restrict__ a, const float *__restrict__ b,
               float *__restrict__ c, cpk_gemm g) {
  /* k-major tiles: As[k][i], Bs[k][j]; the inner product reads a row of
   * each, conflict-free. */
  __shared__ float As[kTK][kTB];
  __shared__ float Bs[kTK][kTB];
  const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
  const int64_t tiles_m = (g.m + kTB - 1) / kTB,
                tiles_n = (g.n + kTB - 1) / kTB;
  for (int64_t bm = blockIdx.y; bm < tiles_m; bm += gridDim.y) {
    for (int64_t bn = blockIdx.x; bn < tiles_n; bn += gridDim.x) {
      const int64_t m0 = bm * kTB, n0 = bn * kTB;
      float acc[4][4] = {};
      for (int64_t k0 = 0; k0 < g.k; k0 += kTK) {
        /* 1024 elements per tile, 4 per thread; the stored layout's
         * contiguous dimension varies fastest across threads. */
#pragma unroll
        for (int l = 0; l < 4; ++l) {
          const int e = tid + l * kTT;
          int ii, kk;
          if (g.trans_a) {
            kk = e / kTB;
            ii = e % kTB;
          } else {
            ii = e / kTK;
            kk = e % kTK;
          }
          const int64_t gi = m0 + ii, gk = k0 + kk;
          As[kk][ii] = (gi < g.m && gk < g.k) ? a[a_idx(g, gi, gk)] : 0.f;
          int jj;
          if (g.trans_b) {
            jj = e / kTK;
            kk = e % kTK;
          } else {
            kk = e / kTB;
            jj = e % kTB;
          }
          const int64_t gj = n0 + jj, gk2 = k0 + kk;
          Bs[kk][jj] = (gj < g.n && gk2 < g.k) ? b[b_idx(g, gk2, gj)] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTK; ++kk) {
          float av[4], bv[4];
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            av[u] = As[kk][ty + 16 * u];
            bv[u] = Bs[kk][tx + 16 * u];
          }
#pragma unroll
          for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int v = 0; v < 4; ++v)
              acc[u][v] = fmaf(av[u], bv[v], acc[u][v]);
        }
        /* The next K step overwrites the tiles others may still read. */
        __syncthreads();
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int64_t i = m0 + ty + 16 * u;
        if (i >= g.m)
          continue;
#pragma unroll
        for (int v = 0; v < 4; ++v) {
          const int64_t j = n0 + tx + 16 * v;
          if (j < g.n)
            c[i * g.ldc + j] = acc[u][v];
        }
      }
    }
  }
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

extern "C" cudaError_t cpk_matmul(cpk_variant v, cpk_dtype dt, const void *a,
                                  const void *b, void *c, cpk_gemm g,
                                  cudaStream_t stream) {
  CPK__REQUIRE(a && b && c && dt_ok(dt) && gemm_ok(g));
  /* Normalise the flags so kernels can test them as booleans. */
  g.trans_a = g.trans_a != 0;
  g.trans_b = g.trans_b != 0;
  if (v == CPK_V_NAIVE) {
    switch (dt) {
    case CPK_F32:
      return naive<float>(a, b, c, g, stream);
    case CPK_F16:
      return naive<__half>(a, b, c, g, stream);
    case CPK_BF16:
      return naive<__nv_bfloat16>(a, b, c, g, stream);
    }
  } else if (v == CPK_V_TILED && dt == CPK_F32) {
    mm_tiled_k<<<tile_grid(g.m, g.n, kTB, kTB), kTT, 0, stream>>>(
        (const float *)a, (const float *)b, (float *)c, g);
    return cudaGetLastError();
  } else if (v == CPK_V_TENSORCORE && dt == CPK_F16) {
    return tensorcore<__half>(a, b, c, g, stream);
  } else if (v == CPK_V_TENSORCORE && dt == CPK_BF16) {
    return tensorcore<__nv_bfloat16>(a, b, c, g, stream);
  }
  return cudaErrorInvalidValue;
}
