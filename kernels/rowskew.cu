/* rowskew.cu: FUSED's skew path (v20, docs/PERFORMANCE.md) for the widest
 * rows of softmax, softmax_bwd, rmsnorm and (v21) rmsnorm_bwd. Rows too wide
 * for one SM (or a cluster) to hold are cut into segments of kSkThreads x U
 * 16-byte vectors of each input (32 KiB of input a segment), numbered in row
 * order. One persistent grid of G blocks, all resident (a cooperative launch),
 * walks them in steps: in step s, block b
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
 * The words (as the grid path's, rowfused_grid.cuh): ws = [header: u32
 * epoch, u32 count][u64 word[segments][NWD]]; a word is a 32-bit tag (the
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
 * rmsnorm_bwd (v21) runs only where G is a multiple of a row's segments,
 * so that a block's columns are the same in every step: its partial of a
 * segment is (sum x^2, sum dy w x), its output dx = rstd dy w - x rstd^3
 * mean(dy w x), and it sums dy x rstd over its rows into dw accumulators in
 * shared memory. At the end each block writes them as one partial of dw
 * (G / nseg partials of every column), publishes a tagged word, waits for
 * the other blocks of its columns and sums its share of those columns over
 * the partials in block order: dw's bits are a pure function of (dtype,
 * cols, G), and G of the shape and the device's resident blocks (a tool
 * that halves the grid changes them, within the tolerance of the checks).
 * Where G cannot be such a multiple, skew_run says cudaErrorNotSupported
 * and the caller takes the grid path.
 *
 * v23's ring (ring_k, rowskew_ring.cuh, included after skew_k) runs
 * softmax's rows and rmsnorm's: the same segments, words and order of work,
 * each segment read once into shared memory and written from there.
 *
 * Semantics as the other FUSED paths (cpk.h): softmax's masked positions
 * read as -inf, a NaN or +inf anywhere makes the row NaN, a row of -inf is
 * 0, exp as fexp (rowslot.cuh); rmsnorm y = x rsqrt(mean x^2 + eps) w;
 * softmax_bwd dx = y (dy - sum dy y); rmsnorm_bwd as cpk_rmsnorm_bwd. */
#include <climits>

#include "common.cuh"
#include "rowskew.cuh"
#include "mbar.cuh"
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
/* The row stores of skew_k stream (.cs), ring_k's are plain (since v43).
 * H200, v42d (docs/PERFORMANCE.md): plain stores 1.005-1.045x on all of
 * the ring's benchmark cases, 0.84-1.00x on the skew path's, whose B reads
 * the rows again from the L2. */
/* The most segments a row the path takes, per op, from the H200 side by
 * side against the grid path (docs/PERFORMANCE.md v21): softmax_bwd up to
 * 256 (fp32 32 x 2^20: 1.11x), rmsnorm_bwd up to 64 (2^18: 1.03-1.05x;
 * at 128 and 256, 2^20, 0.88-0.90x), the others 128 (v20). The gather
 * holds GPL = 4 partials a lane up to 128 segments, 8 above (a second
 * instantiation, so that the rows of 128 segments or fewer run v20's
 * code). */
#ifndef CPK_SKEW_RMSBWD_SEG /* experiment builds: rmsnorm_bwd's limit */
#define CPK_SKEW_RMSBWD_SEG 64
#endif
__host__ __device__ constexpr int sk_maxseg(int op) {
  return op == CPK_OP_SOFTMAX_BWD   ? 256
         : op == CPK_OP_RMSNORM_BWD ? CPK_SKEW_RMSBWD_SEG
                                    : 128;
}

__host__ __device__ constexpr int sk_inputs(int op) {
  return (op == CPK_OP_SOFTMAX_BWD || op == CPK_OP_RMSNORM_BWD) ? 2 : 1;
}
__host__ __device__ constexpr int sk_u(int op) {
  return CPK_SKEW_U / sk_inputs(op);
}
/* Words a partial: softmax's max and its sum, rmsnorm_bwd's sum x^2 and
 * sum dy w x, the others' sum. */
__host__ __device__ constexpr int sk_words(int op) {
  return (op == CPK_OP_SOFTMAX || op == CPK_OP_RMSNORM_BWD) ? 2 : 1;
}
/* Ops whose w is staged over a block's B columns (rmsnorm where they are
 * fixed; rmsnorm_bwd, which runs only where they are). */
__host__ __device__ constexpr bool sk_wsh(int op) {
  return op == CPK_OP_RMSNORM || op == CPK_OP_RMSNORM_BWD;
}
/* rmsnorm_bwd: the most blocks of a grid (its dw partials, one per block,
 * are sized for them). */
constexpr unsigned kSkGmax = 512;

int64_t sk_cols(cpk_op op, cpk_dtype dt) {
  return (int64_t)kSkThreads * sk_u(op) * (dt == CPK_F32 ? 4 : 8);
}

int64_t sk_segs(cpk_op op, cpk_dtype dt, int64_t cols) {
  return (cols + sk_cols(op, dt) - 1) / sk_cols(op, dt);
}

/* rmsnorm_bwd's dw partials: at most kSkGmax blocks, one partial each, each
 * a segment's columns of fp32 (its float4 cells in thread order). */
size_t sk_dw_bytes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  if (op != CPK_OP_RMSNORM_BWD)
    return 0;
  const int64_t nseg = sk_segs(op, dt, s.cols);
  int64_t np = (int64_t)kSkGmax / nseg;
  if (np > s.rows)
    np = s.rows;
  return ws_round((size_t)kSkGmax * 8) +
         ws_round((size_t)np * (size_t)nseg * (size_t)sk_cols(op, dt) * 4);
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
  /* rmsnorm_bwd: dw, its partials [G / nseg][nseg][cells][kSkThreads] and
   * a word a block saying its partial is out */
  void *dw;
  float4 *dwpart;
  unsigned long long *dwflag; /* [G] */
};

/* A row's partials as self-tagged words, lane l of a warp holding the
 * row's segments l, l + 32, ... (t0 the row's first segment): fn(word,
 * address, tag) on each of them. */
template <int GPL, int NWD, typename F>
__device__ __forceinline__ void sk_each_word(unsigned long long (&f)[GPL][NWD],
                                             const skp &p, uint32_t ep,
                                             unsigned t0, int lane, F fn) {
#pragma unroll
  for (int i = 0; i < GPL; ++i) {
    const unsigned k = lane + 32 * i;
    if (k < (unsigned)p.nseg) {
      const uint32_t tg = gtag(ep, t0 + k);
#pragma unroll
      for (int w = 0; w < NWD; ++w)
        fn(f[i][w], p.word + (size_t)(t0 + k) * NWD + w, tg);
    }
  }
}
/* the first loads of those words */
template <int GPL, int NWD>
__device__ __forceinline__ void sk_words_load(unsigned long long (&f)[GPL][NWD],
                                              const skp &p, uint32_t ep,
                                              unsigned t0, int lane) {
  sk_each_word(f, p, ep, t0, lane,
               [](unsigned long long &x, const unsigned long long *a,
                  uint32_t) { x = ld_relaxed(a); });
}
/* Until every word of the row carries this launch's tag (the warp
 * together; those not yet tagged loaded again); a block that never
 * publishes ends in a trap, not a hang. Returns the retries. */
template <int GPL, int NWD>
__device__ __forceinline__ unsigned
sk_words_poll(unsigned long long (&f)[GPL][NWD], const skp &p, uint32_t ep,
              unsigned t0, int lane) {
  unsigned spins = 0;
  for (;;) {
    bool all = true;
    sk_each_word(f, p, ep, t0, lane,
                 [&](unsigned long long &x, const unsigned long long *,
                     uint32_t tg) { all = all && (uint32_t)(x >> 32) == tg; });
    if (__all_sync(0xffffffffu, all))
      return spins;
    if (++spins > (1u << 24))
      __trap(); /* a block that never published: not a hang */
    __nanosleep(20);
    sk_each_word(
        f, p, ep, t0, lane,
        [](unsigned long long &x, const unsigned long long *a, uint32_t tg) {
          if ((uint32_t)(x >> 32) != tg)
            x = ld_relaxed(a);
        });
  }
}
/* The row's statistics from its partials, merged in segment order (the
 * same bits in every block): softmax (max, 1 / sum),
 * NaN for a poisoned row; rmsnorm (rstd, 0); rmsnorm_bwd (rstd, -rstd^3
 * mean(dy w x)), as the grid path's; softmax_bwd (sum(dy y), 0). */
template <int OP, int GPL, int NWD>
__device__ __forceinline__ float2
sk_merge(const unsigned long long (&f)[GPL][NWD], const skp &p, int lane) {
  const unsigned nseg = (unsigned)p.nseg;
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
    return bad ? make_float2(CUDART_NAN_F, CUDART_NAN_F)
               : make_float2(M, 1.f / sm.value());
  } else if constexpr (OP == CPK_OP_RMSNORM_BWD) {
    csum sa, sd;
#pragma unroll
    for (int i = 0; i < GPL; ++i) {
      if ((unsigned)(lane + 32 * i) < nseg) {
        sa.add(__uint_as_float((uint32_t)f[i][0]));
        sd.add(__uint_as_float((uint32_t)f[i][1]));
      }
    }
    warp_csum(sa);
    warp_csum(sd);
    const float r = rsqrtf(sa.value() / (float)p.cols + p.eps);
    return make_float2(r, -rb_coef(r, sd.value(), p.cols));
  } else {
    csum sm;
#pragma unroll
    for (int i = 0; i < GPL; ++i)
      if ((unsigned)(lane + 32 * i) < nseg)
        sm.add(__uint_as_float((uint32_t)f[i][0]));
    warp_csum(sm);
    return OP == CPK_OP_RMSNORM
               ? make_float2(rsqrtf(sm.value() / (float)p.cols + p.eps), 0.f)
               : make_float2(sm.value(), 0.f);
  }
}

/* A segment's softmax partial from the thread's slices q: (max, the sum of
 * exp(v - max)), the max NaN where some thread saw a NaN or +inf. bmax and
 * bsum reduce over the threads that share the segment (skew_k's block, the
 * ring's consumer group). */
template <typename T, int U, typename BMax, typename BSum>
__device__ __forceinline__ float2 sk_softmax_partial(const uint4 (&q)[U],
                                                     BMax bmax, BSum bsum) {
  uint32_t macc = max_acc_init<T>();
#pragma unroll
  for (int u = 0; u < U; ++u)
    macc = max_acc_add<T>(macc, q[u]);
  const float m = max_acc_get<T>(macc);
  const bool bad = m != m || m == CUDART_INF_F;
  csum a;
  if (!bad && m != -CUDART_INF_F) {
#pragma unroll
    for (int u = 0; u < U; ++u)
      exp_sum_add<T>(a, q[u], m);
  }
  /* a poisoned thread counts as +inf: the group's max is +inf exactly
   * when some thread saw a NaN or +inf */
  const float bm = bmax(bad ? CUDART_INF_F : m);
  const bool bbad = bm == CUDART_INF_F;
  const float fs = (!bbad && m != -CUDART_INF_F) ? fexp(m - bm) : 0.f;
  a.s *= fs;
  a.c *= fs;
  const float ps = bsum(a);
  return make_float2(bbad ? CUDART_NAN_F : bm, ps);
}

/* A thread's share of a segment's sum, from its slices q[0] (and q[1]):
 * softmax_bwd's sum(dy y), rmsnorm's sum(x^2). */
template <typename T, int OP, int NI, int U>
__device__ __forceinline__ csum sk_sum(const uint4 (&q)[NI][U]) {
  csum a;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if constexpr (OP == CPK_OP_SOFTMAX_BWD)
      dot_add<T>(a, q[0][u], q[1][u]);
    else
      sum_add<T, true>(a, q[0][u]);
  }
  return a;
}

/* A segment's output vector in place, from o (softmax's x, softmax_bwd's
 * dy, rmsnorm's x), b (softmax_bwd's y, rmsnorm's w; softmax reads none)
 * and the row's statistics st: softmax's (M, 1 / sum), M NaN for a poisoned
 * row and -inf for a row of -inf; softmax_bwd's (dot, -); rmsnorm's (rstd,
 * -). skew_k's and the ring's write (rmsnorm_bwd's, which adds dw, is
 * skew_k's own). */
template <int OP, int VEC>
__device__ __forceinline__ void sk_out(float (&o)[VEC], const float (&b)[VEC],
                                       float2 st) {
#pragma unroll
  for (int k = 0; k < VEC; ++k) {
    if constexpr (OP == CPK_OP_SOFTMAX)
      o[k] = st.x != st.x            ? CUDART_NAN_F
             : st.x == -CUDART_INF_F ? 0.f
                                     : fexp(o[k] - st.x) * st.y;
    else if constexpr (OP == CPK_OP_SOFTMAX_BWD)
      o[k] = b[k] * (o[k] - st.x);
    else
      o[k] = o[k] * st.x * b[k];
  }
}

/* The partial's words of segment ta, tagged with this launch's epoch (one
 * thread of the group that reduced it). */
template <int NWD>
__device__ __forceinline__ void sk_publish(const skp &p, uint32_t ep,
                                           unsigned ta, float pm, float ps) {
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

/* Dynamic shared memory of skew_k<T, OP, *> (rmsnorm_bwd's dw
 * accumulators). */
template <typename T, int OP> constexpr size_t sk_dyn() {
  return OP == CPK_OP_RMSNORM_BWD
             ? (size_t)sk_u(OP) * ty<T>::vec * kSkThreads * 4
             : 0;
}

template <typename T, int OP, int GPL>
__global__ void __launch_bounds__(kSkThreads, CPK_SKEW_MB) skew_k(const skp p) {
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = sk_inputs(OP);
  constexpr int U = sk_u(OP);
  constexpr int NT = kSkThreads;
  constexpr int SEG = NT * U * VEC;
  constexpr int NWD = sk_words(OP);
  constexpr bool DW = OP == CPK_OP_RMSNORM_BWD;
  /* rmsnorm_bwd: a thread's dw accumulators, U x VEC fp32 as float4 cells
   * in dynamic shared memory (cell q of thread tid at q NT + tid; in
   * registers they spilled) */
  constexpr int NQ = U * VEC / 4;
  __shared__ float sh[64];
  __shared__ float2 s_stat[2];
  /* rmsnorm(_bwd): w over the block's B columns, when they are fixed */
  __shared__ uint4 wsh[sk_wsh(OP) ? U : 1][NT];
  extern __shared__ float4 dws[]; /* [NQ][NT] */
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

  if constexpr (DW) {
#pragma unroll
    for (int q = 0; q < NQ; ++q)
      dws[q * NT + tid] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  /* rmsnorm_bwd: slot u's VEC dw accumulators */
  auto dw_get = [&](int u, float(&a)[VEC]) {
#pragma unroll
    for (int h = 0; h < VEC / 4; ++h) {
      const float4 c = dws[(u * (VEC / 4) + h) * NT + tid];
      a[4 * h] = c.x;
      a[4 * h + 1] = c.y;
      a[4 * h + 2] = c.z;
      a[4 * h + 3] = c.w;
    }
  };
  auto dw_put = [&](int u, const float(&a)[VEC]) {
#pragma unroll
    for (int h = 0; h < VEC / 4; ++h)
      dws[(u * (VEC / 4) + h) * NT + tid] =
          make_float4(a[4 * h], a[4 * h + 1], a[4 * h + 2], a[4 * h + 3]);
  };
  if constexpr (sk_wsh(OP)) {
    if (OP == CPK_OP_RMSNORM_BWD || p.wfix) {
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
    if (has_b) {
      load(qb, rb, b0, b1, pol_evict_first());
      if (wid == 0)
        sk_words_load(f, p, ep, t0, lane);
    }

    if (has_b) {
      /* the row's statistics from its partials */
      if (wid == 0) {
        sk_words_poll(f, p, ep, t0, lane);
        const float2 rs = sk_merge<OP>(f, p, lane);
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
        if constexpr (OP == CPK_OP_RMSNORM_BWD) {
          /* o = dy; dx = rstd dy w + x s1, dw += dy x rstd */
          float x[VEC], ww[VEC], a[VEC];
          unpack<T>(qb[1][u], x);
          unpack<T>(wsh[u][tid], ww);
          dw_get(u, a);
#pragma unroll
          for (int k = 0; k < VEC; ++k) {
            o[k] = rb_dx(o[k], x[k], ww[k], st.x, st.y, a[k]);
          }
          dw_put(u, a);
        } else {
          float b[VEC];
          if constexpr (OP == CPK_OP_SOFTMAX_BWD) {
            unpack<T>(qb[1][u], b);
          } else if constexpr (OP == CPK_OP_RMSNORM) {
            if (p.wfix)
              unpack<T>(wsh[u][tid], b);
            else
              load_w<T>(w, e, b1, vec, b);
          }
          sk_out<OP>(o, b, st);
        }
        store_slot<T, true>(orow, e, b1, vec, o);
      }
    }

    if (has_a) {
      /* the segment's partial */
      float pm = 0.f, ps;
      if constexpr (OP == CPK_OP_SOFTMAX) {
        const float2 pp = sk_softmax_partial<T>(
            qa[0], [&](float v) { return block_max(v, sh); },
            [&](csum v) { return block_csum(v, sh); });
        pm = pp.x;
        ps = pp.y;
      } else if constexpr (OP == CPK_OP_RMSNORM_BWD) {
        /* pm: sum x^2, ps: sum dy w x */
        csum a, d;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float g[VEC], x[VEC], ww[VEC];
          unpack<T>(qa[0][u], g);
          unpack<T>(qa[1][u], x);
          unpack<T>(wsh[u][tid], ww);
          const float2 r2 = rmsbwd_terms<VEC>(g, x, ww);
          a.add(r2.x);
          d.add(r2.y);
        }
        pm = block_csum(a, sh);
        ps = block_csum(d, sh);
      } else {
        ps = block_csum(sk_sum<T, OP>(qa), sh);
      }
      if (tid == 0)
        sk_publish<NWD>(p, ep, ta, pm, ps);
    }
  }

  if constexpr (DW) {
    /* dw: each block's accumulators are one partial of its B columns (the
     * same in every step); once the G / nseg blocks of those columns have
     * published theirs, each sums its share of the columns over the
     * partials in block order (compensated) and writes it: a fixed order
     * for a given G */
    const unsigned sc = blk % nseg, np = G / nseg, j = blk / nseg;
    const size_t slab = (size_t)NQ * NT;
    float4 *mine = p.dwpart + ((size_t)j * nseg + sc) * slab;
#pragma unroll
    for (int q = 0; q < NQ; ++q)
      mine[q * NT + tid] = dws[q * NT + tid];
    __syncthreads();
    if (tid == 0) {
      __threadfence();
      st_relaxed(p.dwflag + blk, (unsigned long long)gtag(ep, blk) << 32);
    }
    if (wid == 0) {
      /* lane l waits for partial l, l + 32, ... of these columns */
      unsigned spins = 0;
      for (unsigned k = lane; k < np; k += 32) {
        const unsigned b = k * nseg + sc;
        const uint32_t tg = gtag(ep, b);
        while ((uint32_t)(ld_relaxed(p.dwflag + b) >> 32) != tg) {
          if (++spins > (1u << 24))
            __trap(); /* a block that never published: not a hang */
          __nanosleep(20);
        }
      }
      __threadfence();
    }
    __syncthreads();
    /* this block's share of the slab's cells: [lo, hi) */
    const unsigned lo = (unsigned)((size_t)j * slab / np),
                   hi = (unsigned)((size_t)(j + 1) * slab / np);
    const int c0 = (int)sc * SEG;
    const int c1 = p.cols - c0 < SEG ? p.cols : c0 + SEG;
    T *dw = static_cast<T *>(p.dw);
    const float4 *col = p.dwpart + (size_t)sc * slab;
    for (unsigned c = lo + tid; c < hi; c += NT) {
      csum a[4];
      constexpr unsigned KB = 8; /* loads in flight */
      for (unsigned k0 = 0; k0 < np; k0 += KB) {
        float4 v[KB];
#pragma unroll
        for (unsigned k = 0; k < KB; ++k)
          if (k0 + k < np)
            v[k] = __ldcg(col + (size_t)(k0 + k) * nseg * slab + c);
#pragma unroll
        for (unsigned k = 0; k < KB; ++k) {
          if (k0 + k < np) {
            a[0].add(v[k].x);
            a[1].add(v[k].y);
            a[2].add(v[k].z);
            a[3].add(v[k].w);
          }
        }
      }
      /* cell c = q NT + t: thread t's elements (u NT + t) VEC + 4 h of the
       * segment, q = u VEC / 4 + h */
      const unsigned q = c / NT, t = c % NT;
      const int e =
          c0 + (int)(((q / (VEC / 4)) * NT + t) * VEC + 4 * (q % (VEC / 4)));
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (e + k < c1)
          st1(dw + e + k, a[k].value());
    }
  }

  /* every block has read the header before it counts itself out: the last
   * to count stores the next epoch */
  if (tid == 0)
    epoch_count_out(p.hdr, G, ep);
}

template <typename T, int OP, int GPL>
cudaError_t launch(const skp &p0, cudaStream_t st) {
  /* the grid (the resident blocks), asked once per device: no host work
   * between the caller's events and the launch after the first */
  static int cdev = -1;
  static unsigned resident = 0;
  static const int64_t extra = knob_int("CPK_SKEW_L", 0);
  /* CPK_SKEW_G=N (tests): at most N blocks, so that rows of more
   * segments than the grid (straddling steps) run on any device */
  static const int64_t gmax = knob_int("CPK_SKEW_G", 0);
  constexpr size_t dyn = sk_dyn<T, OP>();
  int dev = 0;
  CPK__TRY(cudaGetDevice(&dev));
  if (dev != cdev) {
    int coop = 0;
    CPK__TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop)
      return cudaErrorNotSupported;
    if constexpr (dyn > 0)
      CPK__TRY(cudaFuncSetAttribute(skew_k<T, OP, GPL>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)dyn));
    CPK__TRY(grid_for(skew_k<T, OP, GPL>, kSkThreads, dyn, INT_MAX, &resident));
    if (gmax > 0 && (int64_t)resident > gmax)
      resident = (unsigned)gmax;
    cdev = dev;
  }
  skp p = p0;
  for (;;) {
    /* G a multiple of the row's segments where it can be: each step then
     * holds whole rows */
    unsigned R = resident;
    if (OP == CPK_OP_RMSNORM_BWD) {
      /* its dw partials: at most kSkGmax blocks, none without a segment */
      R = R < kSkGmax ? R : kSkGmax;
      R = R < p.tseg ? R : p.tseg;
    }
    const unsigned G = (unsigned)p.nseg <= R ? R / p.nseg * p.nseg : R;
    p.wfix = G % (unsigned)p.nseg == 0;
    /* rmsnorm_bwd runs only where a block's columns are fixed (its dw
     * accumulators): otherwise the caller takes another path */
    if (OP == CPK_OP_RMSNORM_BWD && !p.wfix)
      return cudaErrorNotSupported;
    const int64_t span = p.wfix ? 1 : ((int64_t)p.nseg + G - 1) / G + 1;
    /* two steps at least: with one (v20b's first build) a block's B waited
     * for the words of blocks still in the step before */
    const int64_t lag = (span > 2 ? span : 2) + (extra < 0 ? 0 : extra);
    const int64_t nstep = ((int64_t)p.tseg + G - 1) / G + lag;
    if (nstep * (int64_t)G > (int64_t)UINT_MAX)
      return cudaErrorInvalidValue;
    p.lag = (unsigned)lag;
    p.nstep = (unsigned)nstep;
    const cudaError_t e =
        coop_launch(skew_k<T, OP, GPL>, dim3(G), dim3(kSkThreads), dyn, st, p);
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
  return with_dt(dt, [&](auto e) {
    if constexpr (sk_maxseg(OP) > 128) {
      if (p.nseg > 128)
        return launch<decltype(e), OP, 8>(p, st);
    }
    return launch<decltype(e), OP, 4>(p, st);
  });
}

#include "rowskew_ring.cuh"

bool op_ok(cpk_op op) {
  return op == CPK_OP_SOFTMAX || op == CPK_OP_SOFTMAX_BWD ||
         op == CPK_OP_RMSNORM || op == CPK_OP_RMSNORM_BWD;
}

} /* namespace */

bool skew_takes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  static const bool on = knob_on("CPK_SKEW");
  static const int64_t smin = knob_int("CPK_SKEW_MIN", 131073);
  if (!on || !op_ok(op) || !dt_ok(dt) || !shape_ok(s) || smin < 1 ||
      s.cols < smin || s.cols > (int64_t)INT_MAX / 2)
    return false;
  const int64_t nseg = sk_segs(op, dt, s.cols);
  return nseg <= sk_maxseg(op) && s.rows <= ((int64_t)INT_MAX / 2) / nseg;
}

size_t skew_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  if (!skew_takes(op, dt, s))
    return 0;
  return ws_round(8) +
         ws_round((size_t)s.rows * (size_t)sk_segs(op, dt, s.cols) *
                  (size_t)sk_words(op) * 8) +
         sk_dw_bytes(op, dt, s);
}

cudaError_t skew_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                     const void *w, void *out, void *dw, const uint8_t *mask,
                     int64_t mstride, float eps, cpk_rows s, void *ws,
                     cudaStream_t st) {
  if (!skew_takes(op, dt, s) || ws == nullptr || !aligned16(ws) ||
      (op == CPK_OP_RMSNORM_BWD && (dw == nullptr || w == nullptr)))
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
  if (op == CPK_OP_RMSNORM_BWD) {
    char *d =
        b + ws_round(8) + ws_round((size_t)p.tseg * (size_t)sk_words(op) * 8);
    p.dw = dw;
    p.dwflag = reinterpret_cast<unsigned long long *>(d);
    p.dwpart = reinterpret_cast<float4 *>(d + ws_round((size_t)kSkGmax * 8));
  }
  /* v23's ring where it takes the rows: by default softmax's and
   * rmsnorm's (docs/PERFORMANCE.md: rmsnorm's of 128 segments, fp32 2^20,
   * since v24c's w copy; softmax_bwd ran slower on it); CPK_SKEW_RING=0
   * never, 1 (or 2, tests: no fallback) wherever it can, softmax_bwd too */
  static const int64_t rk = knob_int("CPK_SKEW_RING", -1);
  const bool ring =
      rk > 0 || (rk < 0 && (op == CPK_OP_SOFTMAX || op == CPK_OP_RMSNORM));
  if (ring && p.vec && mask == nullptr && (s.cols * (int64_t)es) % 16 == 0 &&
      p.nseg <= 128) {
    cudaError_t e = cudaErrorNotSupported;
    if (op == CPK_OP_SOFTMAX)
      e = ring_op<CPK_OP_SOFTMAX>(dt, p, rk > 1, st);
    else if (op == CPK_OP_SOFTMAX_BWD)
      e = ring_op<CPK_OP_SOFTMAX_BWD>(dt, p, rk > 1, st);
    else if (op == CPK_OP_RMSNORM)
      e = ring_op<CPK_OP_RMSNORM>(dt, p, rk > 1, st);
    if (e != cudaErrorNotSupported)
      return e;
  }
  switch (op) {
  case CPK_OP_SOFTMAX:
    return launch_op<CPK_OP_SOFTMAX>(dt, p, st);
  case CPK_OP_SOFTMAX_BWD:
    return launch_op<CPK_OP_SOFTMAX_BWD>(dt, p, st);
  case CPK_OP_RMSNORM:
    return launch_op<CPK_OP_RMSNORM>(dt, p, st);
  case CPK_OP_RMSNORM_BWD:
    return launch_op<CPK_OP_RMSNORM_BWD>(dt, p, st);
  default:
    return cudaErrorInvalidValue;
  }
}

} /* namespace cpk__ */
