/* softmax.cu: y[r, :] = softmax(x[r, :]) with an optional uint8 mask.
 *
 * Semantics (cpk.h): a masked position reads as -inf. M is the row max over
 * the unmasked values; y = exp(x - M) / sum exp(x - M), computed in fp32
 * with expf. Special rows, decided once per row:
 *  - an unmasked NaN or +inf makes the whole row NaN (M is set to NaN, and
 *    exp(v - NaN) is NaN everywhere, masked positions included, as IEEE
 *    arithmetic in PyTorch gives);
 *  - a row whose max is -inf (every position masked or -inf) is all 0.
 * Otherwise masked and -inf positions give exp(-inf) = 0.
 *
 * Variants: SERIAL (thread per row, Kahan sum, three passes), WARP and
 * BLOCK (three passes: max, sum, write), ONLINE (one pass with a running
 * max and rescaled sum, then the write pass; rows that fit are kept in
 * shared memory so x is read from DRAM once), SPLIT (per-chunk online
 * partials in the workspace, then a combine-and-write kernel). The exp
 * sums of WARP/BLOCK/ONLINE/SPLIT are compensated per thread (csum in
 * common.cuh; ONLINE rescales the compensation with the sum) and combined
 * in log-depth trees.
 */
#include "common.cuh"
#include "rowfused.cuh"

namespace {

using namespace cpk__;

/* Largest row, in fp32 values, the ONLINE variant caches in shared memory
 * (48 KiB: the default dynamic shared memory limit, no opt-in needed). */
constexpr int64_t kCacheCols = 12288;

/* One row of input: x and its mask (mask may be null), read as fp32 with
 * masked positions already replaced by -inf. */
template <typename T> struct row_in {
  const T *x;
  const uint8_t *m;
  __device__ __forceinline__ float one(int64_t c) const {
    float v = ld1(x + c);
    return (m != nullptr && m[c] != 0) ? -CUDART_INF_F : v;
  }
  __device__ __forceinline__ void vec(int64_t c, float (&v)[ty<T>::vec]) const {
    ldv(x + c, v);
    if (m != nullptr) {
#pragma unroll
      for (int k = 0; k < ty<T>::vec; ++k)
        if (m[c + k] != 0)
          v[k] = -CUDART_INF_F;
    }
  }
};

__device__ __forceinline__ bool poison(float v) {
  return v != v || v == CUDART_INF_F;
}

/* The output value for one (already masked) input given the row's M and
 * 1/sum; see the file comment for the special rows. */
__device__ __forceinline__ float out_val(float v, float M, float inv) {
  return M == -CUDART_INF_F ? 0.f : expf(v - M) * inv;
}

/* Folds one value into an online state (m, s) and the poison flag. s is
 * compensated; a new max rescales both of its halves (the compensation is
 * an error term of the same sum, so it scales with it). */
__device__ __forceinline__ void ms_add(float &m, csum &s, float &bad, float v) {
  if (poison(v)) {
    bad = 1.f;
  } else if (v != -CUDART_INF_F) {
    if (v > m) {
      const float f = expf(m - v);
      s.s *= f;
      s.c *= f;
      m = v;
      s.add(1.f);
    } else {
      s.add(expf(v - m));
    }
  }
}

/* Writes y[r, c0:c1) for a group of threads, given the row statistics. */
template <typename T, bool V>
__device__ __forceinline__ void write_row(const row_in<T> &in, T *yr,
                                          int64_t c0, int64_t c1, int tid,
                                          int nthr, float M, float inv) {
  constexpr int VEC = ty<T>::vec;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float v[VEC];
        in.vec(c, v);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          v[k] = out_val(v[k], M, inv);
        stv(yr + c, v);
      },
      [&](int64_t c) { st1(yr + c, out_val(in.one(c), M, inv)); });
}

/* ---- SERIAL: one thread per row, compensated summation ---- */

template <typename T>
__global__ void softmax_serial_k(const T *__restrict__ x, T *__restrict__ y,
                                 const uint8_t *__restrict__ mask,
                                 int64_t mstride, int64_t rows, int64_t cols,
                                 int64_t stride) {
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    row_in<T> in{x + r * stride, mask ? mask + r * mstride : nullptr};
    float mx = -CUDART_INF_F;
    bool bad = false;
    for (int64_t c = 0; c < cols; ++c) {
      float v = in.one(c);
      bad = bad || poison(v);
      mx = fmaxf(mx, v);
    }
    const float M = bad ? CUDART_NAN_F : mx;
    float inv = CUDART_NAN_F;
    if (M != -CUDART_INF_F && !bad) {
      /* Kahan: carry the low-order bits lost by each addition. */
      float s = 0.f, comp = 0.f;
      for (int64_t c = 0; c < cols; ++c) {
        float t = expf(in.one(c) - M) - comp;
        float u = s + t;
        comp = (u - s) - t;
        s = u;
      }
      inv = 1.f / s;
    }
    T *yr = y + r * stride;
    for (int64_t c = 0; c < cols; ++c)
      st1(yr + c, out_val(in.one(c), M, inv));
  }
}

/* ---- WARP / BLOCK: three passes over the row ---- */

template <typename T, bool V, bool BLK>
__global__ void softmax_3pass_k(const T *__restrict__ x, T *__restrict__ y,
                                const uint8_t *__restrict__ mask,
                                int64_t mstride, int64_t rows, int64_t cols,
                                int64_t stride) {
  constexpr int VEC = ty<T>::vec;
  __shared__ float sh[64];
  const group<BLK> gr;
  for (int64_t r = gr.g; r < rows; r += gr.ng) {
    row_in<T> in{x + r * stride, mask ? mask + r * mstride : nullptr};
    float mx = -CUDART_INF_F, bad = 0.f;
    visit<VEC, V>(
        0, cols, gr.tid, gr.nthr,
        [&](int64_t c) {
          float v[VEC];
          in.vec(c, v);
#pragma unroll
          for (int k = 0; k < VEC; ++k) {
            bad = poison(v[k]) ? 1.f : bad;
            mx = fmaxf(mx, v[k]);
          }
        },
        [&](int64_t c) {
          float v = in.one(c);
          bad = poison(v) ? 1.f : bad;
          mx = fmaxf(mx, v);
        });
    mx = grp_max<BLK>(mx, sh);
    bad = grp_max<BLK>(bad, sh);
    const float M = bad != 0.f ? CUDART_NAN_F : mx;
    csum ps;
    if (M != -CUDART_INF_F && bad == 0.f) {
      visit<VEC, V>(
          0, cols, gr.tid, gr.nthr,
          [&](int64_t c) {
            float v[VEC];
            in.vec(c, v);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] = expf(v[k] - M);
            ps.add(pair_sum(v));
          },
          [&](int64_t c) { ps.add(expf(in.one(c) - M)); });
    }
    /* Every thread of the group takes the same branch above (M and bad are
     * group-uniform), so the reduction below is reached by all. */
    const float s = grp_csum<BLK>(ps, sh);
    const float inv = bad != 0.f ? CUDART_NAN_F : 1.f / s;
    write_row<T, V>(in, y + r * stride, 0, cols, gr.tid, gr.nthr, M, inv);
  }
}

/* ---- ONLINE: running max and sum in one pass, then the write pass ---- */

/* Online statistics of in[c0:c1) for one thread; if cache is non-null the
 * masked fp32 values are also stored there at [c - c0]. */
template <typename T, bool V>
__device__ __forceinline__ void
online_part(const row_in<T> &in, int64_t c0, int64_t c1, int tid, int nthr,
            float *cache, float &m, float &s_out, float &bad) {
  constexpr int VEC = ty<T>::vec;
  csum s;
  s.s = s_out;
  visit<VEC, V>(
      c0, c1, tid, nthr,
      [&](int64_t c) {
        float v[VEC];
        in.vec(c, v);
        float vm = -CUDART_INF_F;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
          if (cache != nullptr)
            cache[c - c0 + k] = v[k];
          if (poison(v[k]))
            bad = 1.f;
          else
            vm = fmaxf(vm, v[k]);
        }
        if (vm > m) {
          const float f = expf(m - vm);
          s.s *= f;
          s.c *= f;
          m = vm;
        }
        if (m != -CUDART_INF_F) {
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            v[k] = poison(v[k]) ? 0.f : expf(v[k] - m);
          s.add(pair_sum(v));
        }
      },
      [&](int64_t c) {
        float v = in.one(c);
        if (cache != nullptr)
          cache[c - c0] = v;
        ms_add(m, s, bad, v);
      });
  /* The cross-thread merge (block_ms) is a log-depth tree of rescaled
   * plain sums: fold the compensation in here. */
  s_out = s.value();
}

template <typename T, bool V, bool CACHE>
__global__ void softmax_online_k(const T *__restrict__ x, T *__restrict__ y,
                                 const uint8_t *__restrict__ mask,
                                 int64_t mstride, int64_t rows, int64_t cols,
                                 int64_t stride) {
  constexpr int VEC = ty<T>::vec;
  extern __shared__ float4 dyn[];
  __shared__ float sh[64];
  float *cache = CACHE ? reinterpret_cast<float *>(dyn) : nullptr;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    row_in<T> in{x + r * stride, mask ? mask + r * mstride : nullptr};
    float m = -CUDART_INF_F, s = 0.f, bad = 0.f;
    online_part<T, V>(in, 0, cols, threadIdx.x, blockDim.x, cache, m, s, bad);
    block_ms(m, s, sh);
    bad = block_max(bad, sh);
    const float M = bad != 0.f ? CUDART_NAN_F : m;
    const float inv = bad != 0.f ? CUDART_NAN_F : 1.f / s;
    T *yr = y + r * stride;
    if constexpr (CACHE) {
      /* Each thread re-reads exactly the cache cells it wrote (same visit
       * pattern), so no barrier is needed before this pass; the barriers
       * inside block_ms order the next row's writes after these reads. */
      visit<VEC, V>(
          0, cols, threadIdx.x, blockDim.x,
          [&](int64_t c) {
            float v[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] = out_val(cache[c + k], M, inv);
            stv(yr + c, v);
          },
          [&](int64_t c) { st1(yr + c, out_val(cache[c], M, inv)); });
    } else {
      write_row<T, V>(in, yr, 0, cols, threadIdx.x, blockDim.x, M, inv);
    }
  }
}

/* ---- SPLIT: per-chunk partials, then combine and write ---- */

template <typename T, bool V>
__global__ void
softmax_split1_k(const T *__restrict__ x, const uint8_t *__restrict__ mask,
                 int64_t mstride, float2 *__restrict__ part, int64_t rows,
                 int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    row_in<T> in{x + r * stride, mask ? mask + r * mstride : nullptr};
    float m = -CUDART_INF_F, s = 0.f, bad = 0.f;
    online_part<T, V>(in, c0, c1, threadIdx.x, blockDim.x, nullptr, m, s, bad);
    block_ms(m, s, sh);
    bad = block_max(bad, sh);
    if (threadIdx.x == 0)
      part[r * gridDim.x + blockIdx.x] =
          make_float2(bad != 0.f ? CUDART_NAN_F : m, s);
  }
}

template <typename T, bool V>
__global__ void softmax_split2_k(const T *__restrict__ x, T *__restrict__ y,
                                 const uint8_t *__restrict__ mask,
                                 int64_t mstride,
                                 const float2 *__restrict__ part, int64_t rows,
                                 int64_t cols, int64_t stride, int64_t cc) {
  __shared__ float sh[64];
  const int64_t chunks = gridDim.x;
  const int64_t c0 = (int64_t)blockIdx.x * cc;
  const int64_t c1 = c0 + cc < cols ? c0 + cc : cols;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    float m = -CUDART_INF_F, s = 0.f, bad = 0.f;
    for (int64_t k = threadIdx.x; k < chunks; k += blockDim.x) {
      float2 p = part[r * chunks + k];
      if (p.x != p.x)
        bad = 1.f;
      else
        ms_merge(m, s, p.x, p.y);
    }
    block_ms(m, s, sh);
    bad = block_max(bad, sh);
    const float M = bad != 0.f ? CUDART_NAN_F : m;
    const float inv = bad != 0.f ? CUDART_NAN_F : 1.f / s;
    row_in<T> in{x + r * stride, mask ? mask + r * mstride : nullptr};
    write_row<T, V>(in, y + r * stride, c0, c1, threadIdx.x, blockDim.x, M,
                    inv);
  }
}

struct args {
  const void *x;
  void *y;
  const uint8_t *mask;
  int64_t ms;
  cpk_rows s;
  void *ws;
};

template <typename T, bool V>
cudaError_t launch(cpk_variant v, const args &a, cudaStream_t st) {
  const T *x = (const T *)a.x;
  T *y = (T *)a.y;
  const cpk_rows s = a.s;
  unsigned grid = 0;
  switch (v) {
  case CPK_V_SERIAL:
    CPK__TRY(
        grid_for(softmax_serial_k<T>, 128, 0, (s.rows + 127) / 128, &grid));
    softmax_serial_k<T>
        <<<grid, 128, 0, st>>>(x, y, a.mask, a.ms, s.rows, s.cols, s.stride);
    break;
  case CPK_V_WARP: {
    const int64_t work = (s.rows * 32 + kWarpBlock - 1) / kWarpBlock;
    CPK__TRY(
        grid_for(softmax_3pass_k<T, V, false>, kWarpBlock, 0, work, &grid));
    softmax_3pass_k<T, V, false><<<grid, kWarpBlock, 0, st>>>(
        x, y, a.mask, a.ms, s.rows, s.cols, s.stride);
    break;
  }
  case CPK_V_BLOCK: {
    const int nt = block_threads(s.cols);
    CPK__TRY(grid_for(softmax_3pass_k<T, V, true>, nt, 0, s.rows, &grid));
    softmax_3pass_k<T, V, true>
        <<<grid, nt, 0, st>>>(x, y, a.mask, a.ms, s.rows, s.cols, s.stride);
    break;
  }
  case CPK_V_ONLINE: {
    const int nt = block_threads(s.cols);
    if (s.cols <= kCacheCols) {
      const size_t smem = (size_t)s.cols * sizeof(float);
      /* The cache plus the kernel's static shared memory can exceed the
       * 48 KiB default at kCacheCols: opt in to the larger limit. */
      CPK__TRY(cudaFuncSetAttribute(softmax_online_k<T, V, true>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem));
      CPK__TRY(grid_for(softmax_online_k<T, V, true>, nt, smem, s.rows, &grid));
      softmax_online_k<T, V, true><<<grid, nt, smem, st>>>(
          x, y, a.mask, a.ms, s.rows, s.cols, s.stride);
    } else {
      CPK__TRY(grid_for(softmax_online_k<T, V, false>, nt, 0, s.rows, &grid));
      softmax_online_k<T, V, false>
          <<<grid, nt, 0, st>>>(x, y, a.mask, a.ms, s.rows, s.cols, s.stride);
    }
    break;
  }
  default: { /* SPLIT */
    const split_plan p = plan_split(s.rows, s.cols);
    float2 *part = (float2 *)a.ws;
    const dim3 g = split_grid(p, s.rows);
    softmax_split1_k<T, V><<<g, kSplitThreads, 0, st>>>(
        x, a.mask, a.ms, part, s.rows, s.cols, s.stride, p.chunk_cols);
    CPK__TRY(cudaGetLastError());
    softmax_split2_k<T, V><<<g, kSplitThreads, 0, st>>>(
        x, y, a.mask, a.ms, part, s.rows, s.cols, s.stride, p.chunk_cols);
    break;
  }
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t run(cpk_variant v, const args &a, cudaStream_t st) {
  /* The mask is read byte by byte, so only x and y decide the vector
   * path. */
  if (rows_vec_ok(a.x, a.s.stride, sizeof(T)) &&
      rows_vec_ok(a.y, a.s.stride, sizeof(T)))
    return launch<T, true>(v, a, st);
  return launch<T, false>(v, a, st);
}

} /* namespace */

extern "C" cudaError_t cpk_softmax(cpk_variant v, cpk_dtype dt, const void *x,
                                   void *y, const uint8_t *mask,
                                   int64_t mask_stride, cpk_rows shape,
                                   void *ws, size_t ws_bytes,
                                   cudaStream_t stream) {
  CPK__REQUIRE(x && y && shape_ok(shape) && dt_ok(dt));
  CPK__REQUIRE(mask == nullptr || mask_stride >= shape.cols);
  CPK__REQUIRE(v == CPK_V_SERIAL || v == CPK_V_WARP || v == CPK_V_BLOCK ||
               v == CPK_V_ONLINE || v == CPK_V_SPLIT || v == CPK_V_FUSED);
  const size_t need = cpk_workspace_bytes(CPK_OP_SOFTMAX, v, dt, shape);
  CPK__REQUIRE(ws_bytes >= need && (need == 0 || ws != nullptr));
  if (v == CPK_V_FUSED)
    return fused_dispatch(CPK_OP_SOFTMAX, dt, x, nullptr, nullptr, y, nullptr,
                          mask, mask_stride, 0.f, shape, ws, stream);
  const args a{x, y, mask, mask_stride, shape, ws};
  return with_dt(dt, [&](auto e) { return run<decltype(e)>(v, a, stream); });
}
