/* rowskew.cu: FUSED's skew path (v20, docs/PERFORMANCE.md) for the widest
 * rows of softmax, softmax_bwd and rmsnorm. Rows too wide for one SM (or a
 * cluster) to hold are cut into segments of kSkThreads x U 16-byte vectors
 * of each input (32 KiB of input a segment), numbered in row order. One
 * persistent grid of G blocks, all resident (a cooperative launch), walks
 * them in steps: in step s, block b
 *  - A: reads segment t = s G + b from device memory (evict-last in the
 *    L2), reduces it to a partial of its row's statistic and publishes the
 *    partial as self-tagged words (below);
 *  - B: takes segment t' = (s - L) G + b, L steps behind: gathers the
 *    partials of t''s row (every block of the row's segments published them
 *    at least one step earlier), merges them in segment order into the row's
 *    statistics, reads t' again (from the L2, where A left it L steps ago:
 *    evict-first) and writes its output with streaming stores.
 * All of a step's loads (A's, B's and the gathered words) are issued
 * before any of them is used, B is computed and written while A's loads
 * come from device memory, and a step waits on other blocks only for the
 * words they publish at the end of an earlier step: no fence, no count,
 * no ticket.
 * This is v18a's lag path (one block a ticket, a count and a fence a
 * segment, the row's last block merging the partials: a chain of round
 * trips through the L2 in every block's life) turned into a persistent
 * grid whose only exchange is the words, each read where it is used.
 * G is the resident blocks rounded down to a multiple of a row's segments
 * where a row has fewer segments than that: each step then holds whole
 * rows, and a block's B columns are the same in every step (rmsnorm stages
 * its w over them in shared memory once); otherwise rows straddle steps.
 * L is two steps, or, where rows straddle steps, ceil(segments / G) + 1
 * where that is more (docs/PERFORMANCE.md, v20a-v20b: one step made B wait
 * for blocks still in the step before; three lost re-reads to the DRAM).
 * The L2 holds about L x G x 32 KiB of input between a segment's two
 * reads: 16 MiB on the H200 (G = 256 at 2^18 and 2^20 columns).
 *
 * The words (as the grid path's, rowfused.cu): ws = [header: u32 epoch,
 * u32 count][u64 word[segments][NWD]]; a word is a 32-bit tag (the
 * launch's epoch' = header + 1, xor the segment times 0x9E3779B9) over one
 * fp32 value, stored relaxed; a reader polls its words (relaxed loads, all
 * in flight at once) until every tag is the segment's: no flag, no fence.
 * Each segment has its own words, so nothing is rewritten within a launch.
 * The last block to count itself out stores epoch' into the header, after
 * every block has read it (each counts after its read), so the next
 * launch's tags differ. No reset between launches, no memset. A word that
 * never comes (only a bug could do that: the cooperative launch keeps every
 * block running) ends in a trap after seconds, not a hang.
 *
 * Bits: a segment's partial is the block's reduction in a fixed order
 * (per-thread compensated sums in column order, then the warps), the row's
 * statistics the merge of its partials in segment order by one warp of the
 * block that uses them (lane l takes l, l + 32, ..., then a butterfly):
 * every block computes the same bits, a pure function of (op, dtype, cols).
 *
 * Deadlock: a block waits in step s only for words of steps before s
 * (L is at least the steps a row's segments span), which every block
 * publishes without waiting on anything of step s or later.
 *
 * Semantics as the other FUSED paths (cpk.h): softmax's masked positions
 * read as -inf, a NaN or +inf anywhere makes the row NaN, a row of -inf is
 * 0, exp as fexp (rowslot.cuh); rmsnorm y = x rsqrt(mean x^2 + eps) w;
 * softmax_bwd dx = y (dy - sum dy y). */
#include <climits>

#include "common.cuh"
#include "rowskew.cuh"
#include "rowslot.cuh"

namespace cpk__ {

namespace {

/* Threads a block, and 16-byte loads of all inputs together a thread
 * issues for a segment (experiment builds may set CPK_SKEW_U), and blocks
 * an SM the registers are sized for (CPK_SKEW_MB). */
constexpr int kSkThreads = 256;
#ifndef CPK_SKEW_U
#define CPK_SKEW_U 8
#endif
#ifndef CPK_SKEW_MB
#define CPK_SKEW_MB 2
#endif
/* The most segments a row (the gather: 4 partials a lane). */
constexpr int kSkMaxSeg = 128;

__host__ __device__ constexpr int sk_inputs(int op) {
  return op == CPK_OP_SOFTMAX_BWD ? 2 : 1;
}
__host__ __device__ constexpr int sk_u(int op) {
  return CPK_SKEW_U / sk_inputs(op);
}
/* Words a partial: softmax's max and its sum, the others' sum. */
__host__ __device__ constexpr int sk_words(int op) {
  return op == CPK_OP_SOFTMAX ? 2 : 1;
}

int64_t sk_cols(cpk_op op, cpk_dtype dt) {
  return (int64_t)kSkThreads * sk_u(op) * (dt == CPK_F32 ? 4 : 8);
}

int64_t sk_segs(cpk_op op, cpk_dtype dt, int64_t cols) {
  return (cols + sk_cols(op, dt) - 1) / sk_cols(op, dt);
}

struct skp {
  const void *in0, *in1, *w;
  void *out;
  const uint8_t *mask;
  int64_t mstride, stride;
  float eps;
  int cols, nseg, vec;
  int wfix;       /* G a multiple of nseg: a block's B columns are the same in
                   * every step (rmsnorm's w staged once) */
  unsigned tseg;  /* segments: rows x nseg */
  unsigned lag;   /* L, in steps */
  unsigned nstep; /* ceil(tseg / G) + L */
  unsigned *hdr;
  unsigned long long *word; /* [tseg][sk_words] */
};

template <typename T, int OP>
__global__ void __launch_bounds__(kSkThreads, CPK_SKEW_MB) skew_k(const skp p) {
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = sk_inputs(OP);
  constexpr int U = sk_u(OP);
  constexpr int NT = kSkThreads;
  constexpr int SEG = NT * U * VEC;
  constexpr int NWD = sk_words(OP);
  constexpr int GPL = kSkMaxSeg / 32;
  __shared__ float sh[64];
  __shared__ float2 s_stat[2];
  /* rmsnorm: w over the block's B columns, when they are fixed */
  __shared__ uint4 wsh[OP == CPK_OP_RMSNORM ? U : 1][NT];
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  const unsigned blk = blockIdx.x, G = gridDim.x;
  const uint32_t ep = *(volatile const unsigned *)p.hdr + 1u;
  const bool vec = p.vec != 0;
  const float fill = OP == CPK_OP_SOFTMAX ? -CUDART_INF_F : 0.f;
  const T *in0 = static_cast<const T *>(p.in0);
  const T *in1 = static_cast<const T *>(p.in1);
  const unsigned nseg = (unsigned)p.nseg;

  /* segment k: its row and columns [c0, c1) */
  auto where = [&](unsigned k, int64_t &r, int &c0, int &c1) {
    r = k / nseg;
    c0 = (int)(k % nseg) * SEG;
    c1 = p.cols - c0 < SEG ? p.cols : c0 + SEG;
  };
  auto load = [&](uint4(&q)[NI][U], int64_t r, int c0, int c1, uint64_t pol) {
    const T *x0 = in0 + r * p.stride;
    const T *x1 = NI > 1 ? in1 + r * p.stride : nullptr;
    const uint8_t *mrow = (OP == CPK_OP_SOFTMAX && p.mask != nullptr)
                              ? p.mask + r * p.mstride
                              : nullptr;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int e = c0 + (u * NT + tid) * VEC;
      q[0][u] = wide_ld<T>(x0, e, c1, vec, mrow, fill, pol);
      if constexpr (NI > 1)
        q[NI - 1][u] = wide_ld<T>(x1, e, c1, vec, nullptr, 0.f, pol);
    }
  };

  if constexpr (OP == CPK_OP_RMSNORM) {
    if (p.wfix) {
      /* each thread its own cells: no barrier */
      const int c0 = (int)(blk % nseg) * SEG;
      const int c1 = p.cols - c0 < SEG ? p.cols : c0 + SEG;
#pragma unroll
      for (int u = 0; u < U; ++u)
        wsh[u][tid] = load_slot<T, false>(static_cast<const T *>(p.w),
                                          c0 + (u * NT + tid) * VEC, c1, vec,
                                          nullptr, 0.f);
    }
  }

  for (unsigned s = 0; s < p.nstep; ++s) {
    const unsigned ta = s * G + blk;
    const bool has_a = ta < p.tseg;
    const unsigned tb = (s - p.lag) * G + blk;
    const bool has_b = s >= p.lag && tb < p.tseg;
    int64_t ra = 0, rb = 0;
    int a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    uint4 qa[NI][U], qb[NI][U];
    unsigned long long f[GPL][NWD];
    if (has_a) {
      where(ta, ra, a0, a1);
      load(qa, ra, a0, a1, pol_evict_last());
    }
    if (has_b)
      where(tb, rb, b0, b1);
    /* B's words: the partials of row rb, lane l holding l, l + 32, ... */
    const unsigned t0 = (unsigned)rb * nseg;
    auto each_word = [&](auto fn) {
#pragma unroll
      for (int i = 0; i < GPL; ++i) {
        const unsigned k = lane + 32 * i;
        if (k < nseg) {
          const uint32_t tg = gtag(ep, t0 + k);
#pragma unroll
          for (int w = 0; w < NWD; ++w)
            fn(f[i][w], p.word + (size_t)(t0 + k) * NWD + w, tg);
        }
      }
    };
    if (has_b) {
      load(qb, rb, b0, b1, pol_evict_first());
      if (wid == 0)
        each_word([](unsigned long long &x, const unsigned long long *a,
                     uint32_t) { x = ld_relaxed(a); });
    }

    if (has_b) {
      /* the row's statistics from its partials */
      if (wid == 0) {
        unsigned spins = 0;
        for (;;) {
          bool all = true;
          each_word(
              [&](unsigned long long &x, const unsigned long long *,
                  uint32_t tg) { all = all && (uint32_t)(x >> 32) == tg; });
          if (__all_sync(0xffffffffu, all))
            break;
          if (++spins > (1u << 24))
            __trap(); /* a block that never published: not a hang */
          __nanosleep(20);
          each_word([](unsigned long long &x, const unsigned long long *a,
                       uint32_t tg) {
            if ((uint32_t)(x >> 32) != tg)
              x = ld_relaxed(a);
          });
        }
        float2 rs;
        if constexpr (OP == CPK_OP_SOFTMAX) {
          float M = -CUDART_INF_F;
          int bad = 0;
#pragma unroll
          for (int i = 0; i < GPL; ++i) {
            if ((unsigned)(lane + 32 * i) < nseg) {
              const float mk = __uint_as_float((uint32_t)f[i][0]);
              if (mk != mk)
                bad = 1;
              else
                M = fmaxf(M, mk);
            }
          }
          M = warp_max(M);
          bad = __any_sync(0xffffffffu, bad);
          csum sm;
          if (!bad && M != -CUDART_INF_F) {
#pragma unroll
            for (int i = 0; i < GPL; ++i) {
              if ((unsigned)(lane + 32 * i) < nseg) {
                const float mk = __uint_as_float((uint32_t)f[i][0]);
                const float sk = __uint_as_float((uint32_t)f[i][1]);
                sm.add(mk == -CUDART_INF_F ? 0.f : sk * fexp(mk - M));
              }
            }
          }
          warp_csum(sm);
          rs = bad ? make_float2(CUDART_NAN_F, CUDART_NAN_F)
                   : make_float2(M, 1.f / sm.value());
        } else {
          csum sm;
#pragma unroll
          for (int i = 0; i < GPL; ++i)
            if ((unsigned)(lane + 32 * i) < nseg)
              sm.add(__uint_as_float((uint32_t)f[i][0]));
          warp_csum(sm);
          rs =
              OP == CPK_OP_RMSNORM
                  ? make_float2(rsqrtf(sm.value() / (float)p.cols + p.eps), 0.f)
                  : make_float2(sm.value(), 0.f);
        }
        if (lane == 0)
          s_stat[s & 1u] = rs;
      }
      __syncthreads();
      const float2 st = s_stat[s & 1u];
      T *orow = static_cast<T *>(p.out) + rb * p.stride;
      const T *w = static_cast<const T *>(p.w);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = b0 + (u * NT + tid) * VEC;
        if (e >= b1)
          continue;
        float o[VEC];
        unpack<T>(qb[0][u], o);
        if constexpr (OP == CPK_OP_SOFTMAX) {
          /* st = (M, 1 / sum): M NaN for a poisoned row, -inf for a row of
           * -inf */
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = st.x != st.x            ? CUDART_NAN_F
                   : st.x == -CUDART_INF_F ? 0.f
                                           : fexp(o[k] - st.x) * st.y;
        } else if constexpr (OP == CPK_OP_SOFTMAX_BWD) {
          float y[VEC];
          unpack<T>(qb[1][u], y);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = y[k] * (o[k] - st.x);
        } else {
          float ww[VEC];
          if (p.wfix)
            unpack<T>(wsh[u][tid], ww);
          else
            load_w<T>(w, e, b1, vec, ww);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = o[k] * st.x * ww[k];
        }
        store_slot<T, true>(orow, e, b1, vec, o);
      }
    }

    if (has_a) {
      /* the segment's partial */
      float pm = 0.f, ps;
      if constexpr (OP == CPK_OP_SOFTMAX) {
        uint32_t macc = max_acc_init<T>();
#pragma unroll
        for (int u = 0; u < U; ++u)
          macc = max_acc_add<T>(macc, qa[0][u]);
        const float m = max_acc_get<T>(macc);
        const bool bad = m != m || m == CUDART_INF_F;
        csum a;
        if (!bad && m != -CUDART_INF_F) {
#pragma unroll
          for (int u = 0; u < U; ++u) {
            float v[VEC];
            unpack<T>(qa[0][u], v);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] = fexp(v[k] - m);
            a.add(pair_sum(v));
          }
        }
        /* a poisoned thread counts as +inf: the block's max is +inf exactly
         * when some thread saw a NaN or +inf */
        const float bm = block_max(bad ? CUDART_INF_F : m, sh);
        const bool bbad = bm == CUDART_INF_F;
        const float fs = (!bbad && m != -CUDART_INF_F) ? fexp(m - bm) : 0.f;
        a.s *= fs;
        a.c *= fs;
        ps = block_csum(a, sh);
        pm = bbad ? CUDART_NAN_F : bm;
      } else {
        csum a;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float v[VEC];
          unpack<T>(qa[0][u], v);
          if constexpr (OP == CPK_OP_SOFTMAX_BWD) {
            float y[VEC];
            unpack<T>(qa[1][u], y);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] *= y[k];
          } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] *= v[k];
          }
          a.add(pair_sum(v));
        }
        ps = block_csum(a, sh);
      }
      if (tid == 0) {
        const unsigned long long tg = (unsigned long long)gtag(ep, ta) << 32;
        unsigned long long *wa = p.word + (size_t)ta * NWD;
        if constexpr (NWD == 2) {
          st_relaxed(wa, tg | __float_as_uint(pm));
          st_relaxed(wa + 1, tg | __float_as_uint(ps));
        } else {
          (void)pm;
          st_relaxed(wa, tg | __float_as_uint(ps));
        }
      }
    }
  }

  /* every block has read the header before it counts itself out: the last
   * to count stores the next epoch */
  if (tid == 0) {
    __threadfence();
    if (atomicAdd(p.hdr + 1, 1u) == G - 1u) {
      p.hdr[1] = 0u;
      __threadfence();
      p.hdr[0] = ep;
    }
  }
}

template <typename T, int OP>
cudaError_t launch(const skp &p0, cudaStream_t st) {
  /* the grid (the resident blocks), asked once per device: no host work
   * between the caller's events and the launch after the first */
  static int cdev = -1;
  static unsigned resident = 0;
  static const int64_t extra = knob_int("CPK_SKEW_L", 0);
  /* CPK_SKEW_G=N (tests): at most N blocks, so that rows of more
   * segments than the grid (straddling steps) run on any device */
  static const int64_t gmax = knob_int("CPK_SKEW_G", 0);
  int dev = 0;
  CPK__TRY(cudaGetDevice(&dev));
  if (dev != cdev) {
    int coop = 0;
    CPK__TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop)
      return cudaErrorNotSupported;
    CPK__TRY(grid_for(skew_k<T, OP>, kSkThreads, 0, INT_MAX, &resident));
    if (gmax > 0 && (int64_t)resident > gmax)
      resident = (unsigned)gmax;
    cdev = dev;
  }
  skp p = p0;
  for (;;) {
    /* G a multiple of the row's segments where it can be: each step then
     * holds whole rows */
    const unsigned G =
        (unsigned)p.nseg <= resident ? resident / p.nseg * p.nseg : resident;
    p.wfix = G % (unsigned)p.nseg == 0;
    const int64_t span = p.wfix ? 1 : ((int64_t)p.nseg + G - 1) / G + 1;
    /* two steps at least: with one (v20b's first build) a block's B waited
     * for the words of blocks still in the step before */
    const int64_t lag = (span > 2 ? span : 2) + (extra < 0 ? 0 : extra);
    const int64_t nstep = ((int64_t)p.tseg + G - 1) / G + lag;
    if (nstep * (int64_t)G > (int64_t)UINT_MAX)
      return cudaErrorInvalidValue;
    p.lag = (unsigned)lag;
    p.nstep = (unsigned)nstep;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(G, 1, 1);
    lc.blockDim = dim3(kSkThreads, 1, 1);
    lc.stream = st;
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributeCooperative;
    at.val.cooperative = 1;
    lc.attrs = &at;
    lc.numAttrs = 1;
    const cudaError_t e = cudaLaunchKernelEx(&lc, skew_k<T, OP>, p);
    if (e == cudaErrorCooperativeLaunchTooLarge && G > 1) {
      /* fewer resident than the occupancy said (a tool's instrumented
       * kernel): half the grid, kept for the next launches */
      (void)cudaGetLastError();
      resident = G / 2;
      continue;
    }
    CPK__TRY(e);
    return cudaGetLastError();
  }
}

template <int OP>
cudaError_t launch_op(cpk_dtype dt, const skp &p, cudaStream_t st) {
  return with_dt(dt, [&](auto e) { return launch<decltype(e), OP>(p, st); });
}

bool op_ok(cpk_op op) {
  return op == CPK_OP_SOFTMAX || op == CPK_OP_SOFTMAX_BWD ||
         op == CPK_OP_RMSNORM;
}

} /* namespace */

bool skew_takes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  static const bool on = knob_on("CPK_SKEW");
  static const int64_t smin = knob_int("CPK_SKEW_MIN", 131073);
  if (!on || !op_ok(op) || !dt_ok(dt) || !shape_ok(s) || smin < 1 ||
      s.cols < smin || s.cols > (int64_t)INT_MAX / 2)
    return false;
  const int64_t nseg = sk_segs(op, dt, s.cols);
  return nseg <= kSkMaxSeg && s.rows <= ((int64_t)INT_MAX / 2) / nseg;
}

size_t skew_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  if (!skew_takes(op, dt, s))
    return 0;
  return ws_round(8) +
         ws_round((size_t)s.rows * (size_t)sk_segs(op, dt, s.cols) *
                  (size_t)sk_words(op) * 8);
}

cudaError_t skew_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                     const void *w, void *out, const uint8_t *mask,
                     int64_t mstride, float eps, cpk_rows s, void *ws,
                     cudaStream_t st) {
  if (!skew_takes(op, dt, s) || ws == nullptr || !aligned16(ws))
    return cudaErrorInvalidValue;
  const size_t es = dt_size(dt);
  char *b = static_cast<char *>(ws);
  skp p = {};
  p.in0 = in0;
  p.in1 = in1;
  p.w = w;
  p.out = out;
  p.mask = mask;
  p.mstride = mstride;
  p.stride = s.stride;
  p.eps = eps;
  p.cols = (int)s.cols;
  p.nseg = (int)sk_segs(op, dt, s.cols);
  p.tseg = (unsigned)(s.rows * p.nseg);
  p.vec = rows_vec_ok(in0, s.stride, es) && rows_vec_ok(in1, s.stride, es) &&
          rows_vec_ok(out, s.stride, es) && (w == nullptr || aligned16(w));
  p.hdr = reinterpret_cast<unsigned *>(b);
  p.word = reinterpret_cast<unsigned long long *>(b + ws_round(8));
  switch (op) {
  case CPK_OP_SOFTMAX:
    return launch_op<CPK_OP_SOFTMAX>(dt, p, st);
  case CPK_OP_SOFTMAX_BWD:
    return launch_op<CPK_OP_SOFTMAX_BWD>(dt, p, st);
  case CPK_OP_RMSNORM:
    return launch_op<CPK_OP_RMSNORM>(dt, p, st);
  default:
    return cudaErrorInvalidValue;
  }
}

} /* namespace cpk__ */
