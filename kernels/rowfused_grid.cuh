/* rowfused_grid.cuh: the grid path of rowfused.cu (v10, v11): its sizes
 * (GRID_P, GRID_S, the stages), the workspace's exchange of self-tagged words
 * and the merges of the rows' partials (the g* helpers), and the cooperative
 * kernel grid_k. Its rules and launch are in rowfused_grid_plan.cuh. Part of
 * rowfused.cu's translation unit, not a header of its own: included once,
 * there, inside its anonymous namespace, after what it uses (the helpers of
 * rowfused_helpers.cuh, the op list and fparams). Split out of the one file so
 * that each part has one job, while the kernels stay those of one unit: the
 * same code, and the same names (an anonymous namespace's mangled names carry
 * the main file's). */
#ifndef CPK_ROWFUSED_GRID_CUH
#define CPK_ROWFUSED_GRID_CUH

/* ---- the grid path (v10, grid_k) ----
 *
 * For the rows of kGrid (2^17 to 2^20 columns and past): one persistent grid
 * of GRID_P blocks, all resident at once (a cooperative launch), in which
 * block b owns the column chunk [b * chunk, (b + 1) * chunk) of every row.
 * Each block streams its chunk of rows r = 0, 1, ... into a ring of
 * GRID_S shared-memory stages (cp.async: each thread fills and reads only its
 * own cells, so a stage needs no barrier), B rows per stage, and for each
 * row publishes its partial statistics (a compensated sum, or softmax's
 * (max, sum)) to the workspace; one batch later it gathers the GRID_P
 * partials of those rows, merges them in block order (every block the same
 * bits) and writes its chunk of the output from the stage, which then takes
 * the batch S rows on. Every input byte is read once from device memory and
 * held on chip until it is written; the exchange of a batch overlaps the
 * next batch's loads. rmsnorm_bwd's dw: a block owns its columns in every
 * row, so it sums its dw chunk in registers over the rows in order and
 * writes it: no partial rows, no second kernel.
 * v11 shortened the per-batch sequence that v10's cycle counts
 * (CPK_GRID_PROF) showed to be the bound: the batch's rows reduced over a
 * warp together (gwarp_rows), one warp merging and publishing the block's
 * partials, a warp's gathered words all in flight at once and loaded
 * before the next batch's reduction (v11b: their round trip through the L2
 * overlaps it; v11a loaded them after the batch's publication), each row's
 * cells refilled as soon as the row is written.
 *
 * The exchange (v10c): ws = [header: u32 epoch][words: u64
 * [GRID_RING][P][2]]. A block publishes row r's partial as one or two
 * 64-bit words, each holding a 32-bit tag and one fp32 value (softmax: the
 * max and the sum against it; rmsnorm_bwd: its two sums; the others: the
 * sum), with relaxed stores into slot r % GRID_RING; the tag is
 * epoch' ^ r * 0x9E3779B9 (epoch': the header's value + 1), so a word
 * carries its own proof of the launch and row that wrote it, and a reader
 * needs no flag, no fence and no second load: it polls the row's words
 * (relaxed loads, all in flight at once) until every tag is the row's. A
 * block publishes batch b only after it has gathered batch b - 2, which
 * every block published after gathering b - 4, so a slot is rewritten only
 * after every block has read it (the ring holds 128 / B >= 8 batches), and
 * rows that share a slot in one launch differ in their tags.
 * When block 0 has gathered the last batch, every block has read the
 * header; it then stores epoch', so the next launch's tags differ from this
 * one's (a stale word could match only if the one earlier launch whose
 * epoch makes the tags equal, 2^32 launches back at the least, wrote it and
 * no launch wrote that word since). No reset between launches, no memset.
 * (v10a published a float4 and a flag by a release store and read them
 * after a fence; those fences waited on the rows' own loads and stores in
 * flight: 5-10 us a batch on the H200, docs/PERFORMANCE.md.)
 * A word that never comes (only a bug could do that: the cooperative launch
 * guarantees every block runs) ends in a trap after seconds, not a hang. */
/* GRID_S stages of GRID_STAGE_BYTES per block (experiment builds may set
 * other values: S - 2 stages are in flight while one is reduced and one
 * written) */
#define GRID_P 132
#ifndef GRID_S
#define GRID_S 3
#endif
#define GRID_RING 128
/* CPK_GRID_PROF=1 (experiment builds only): thread 0 of each block adds up
 * the clock64 cycles of each step of the batch loop and prints them from
 * five blocks in the 8th launch of a workspace (every 64th after), the
 * breakdown behind docs/PERFORMANCE.md's per-batch times. Off: no code. */
#ifndef CPK_GRID_PROF
#define CPK_GRID_PROF 0
#endif
#define GPROF(k) CPK__PROF(CPK_GRID_PROF, tid == 0, gp, gt, k)
#ifndef GRID_STAGE_BYTES
#define GRID_STAGE_BYTES 65536
#endif

/* Two blocks per SM on alternate batches (v11c): the blocks qp = 0, 1 of a
 * column chunk take its even and odd batches, each with half the stage
 * memory, GRID_P x 2 blocks in all, so that one block's reduction and
 * exchange overlap the other's loads and writes. Taken by rmsnorm's
 * 256-thread kernels (the 16-bit rows of 2^18: 0.57 -> 0.66 of the copy
 * ceiling on the H200, docs/PERFORMANCE.md); not by rmsnorm_bwd (its dw a
 * block sums over its own rows), and not by the other ops, for which it
 * stayed under the wide path. */
__host__ __device__ constexpr int grid_q(int op, int nt) {
  return (nt == 256 && op == F_RMS) ? 2 : 1;
}

/* Rows per stage: the largest power of two that fills at most
 * GRID_STAGE_BYTES / grid_q (at most 16). */
__host__ __device__ constexpr int grid_b(int op, int nt, int nv) {
  const int b =
      GRID_STAGE_BYTES / grid_q(op, nt) / (op_inputs(op) * nv * nt * 16);
  int p2 = 1; /* a power of two (gwarp_rows) */
  while (p2 * 2 <= b && p2 < 16)
    p2 *= 2;
  return p2;
}

/* Dynamic shared memory of a block: its stages. */
__host__ __device__ constexpr size_t grid_smem(int op, int nt, int nv) {
  return (size_t)GRID_S * grid_b(op, nt, nv) * op_inputs(op) * nv * nt * 16;
}
#define GRID_SMEM_MAX (200u * 1024u)

struct gws {
  unsigned *hdr;
  unsigned long long *word; /* [GRID_RING][GRID_P][2] */
  int dwvec;                /* rmsnorm_bwd: dw 16-byte aligned */
};

/* Words per partial: softmax (max, sum) and rmsnorm_bwd's two sums. */
__host__ __device__ constexpr int gwords(int op) {
  return (op == F_SOFTMAX || op == F_RMSBWD) ? 2 : 1;
}

/* Merges partial b into a: softmax (m, s, c) online against the larger
 * max; rmsnorm_bwd two compensated sums; the rest one. */
template <int OP>
__device__ __forceinline__ void gcomb(float (&a)[4], const float (&b)[4]) {
  if constexpr (OP == F_SOFTMAX) {
    const float M = fmax_nan(a[0], b[0]);
    csum t;
    if (M == M && M != CUDART_INF_F && M != -CUDART_INF_F) {
      const float fa = fexp(a[0] - M), fb = fexp(b[0] - M);
      t.s = a[1] * fa;
      t.c = a[2] * fa;
      t.merge(b[1] * fb, b[2] * fb);
    }
    a[0] = M;
    a[1] = t.s;
    a[2] = t.c;
  } else {
    csum t;
    t.s = a[0];
    t.c = a[1];
    t.merge(b[0], b[1]);
    a[0] = t.s;
    a[1] = t.c;
    if constexpr (OP == F_RMSBWD) {
      csum u;
      u.s = a[2];
      u.c = a[3];
      u.merge(b[2], b[3]);
      a[2] = u.s;
      a[3] = u.c;
    }
  }
}

template <int OP> __device__ __forceinline__ void gneutral(float (&a)[4]) {
  a[0] = OP == F_SOFTMAX ? -CUDART_INF_F : 0.f;
  a[1] = a[2] = a[3] = 0.f;
}

/* Butterfly merge of a over the lanes that differ in the bits below O0 * 2
 * (all 32 by default); every such lane ends with the same bits. */
template <int OP, int O0 = 16>
__device__ __forceinline__ void gwarp(float (&a)[4]) {
#pragma unroll
  for (int o = O0; o > 0; o >>= 1) {
    float b[4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
      b[q] = __shfl_xor_sync(0xffffffffu, a[q], o);
    gcomb<OP>(a, b);
  }
}

/* B (a power of two, at most 32) rows' partials reduced over a warp at once:
 * at each of log2(B) levels a lane keeps half its rows and takes the other
 * half's partner values from lane ^ o (B/2 + B/4 + ... + 1 merges in all,
 * not 5 B), then a butterfly over the lanes that share a row. The lane ends
 * with its row's warp partial in a[0]; grow<B>(lane) is that row. */
__host__ __device__ constexpr int ilog2c(int n) {
  return n > 1 ? 1 + ilog2c(n / 2) : 0;
}
template <int B> __device__ __forceinline__ int grow(int lane) {
  int i = 0;
#pragma unroll
  for (int lv = 0; lv < ilog2c(B); ++lv)
    i += (lane & (16 >> lv)) ? (B >> lv) / 2 : 0;
  return i;
}
/* one level of gwarp_rows: N rows held, partner lane ^ O */
template <int OP, int N, int O, int B>
__device__ __forceinline__ void gwarp_level(float (&a)[B][4], int lane) {
  if constexpr (N > 1) {
    const bool up = (lane & O) != 0;
#pragma unroll
    for (int j = 0; j < N / 2; ++j) {
      float k[4], b[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float lo = a[j][q], hi = a[j + N / 2][q];
        k[q] = up ? hi : lo;
        b[q] = __shfl_xor_sync(0xffffffffu, up ? lo : hi, O);
      }
      gcomb<OP>(k, b);
#pragma unroll
      for (int q = 0; q < 4; ++q)
        a[j][q] = k[q];
    }
    gwarp_level<OP, N / 2, O / 2, B>(a, lane);
  }
}
template <int OP, int B>
__device__ __forceinline__ void gwarp_rows(float (&a)[B][4], int lane) {
  static_assert(B >= 1 && B <= 32 && (B & (B - 1)) == 0, "B: a power of 2");
  gwarp_level<OP, B, 16, B>(a, lane);
  gwarp<OP, 16 / B>(a[0]);
}

template <typename T, int OP, int NT, int NV>
__global__ void __launch_bounds__(NT, (NV > 1 && grid_q(OP, NT) > 1) ? 2 : 1)
    grid_k(const fparams p, const gws g) {
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = op_inputs(OP);
  constexpr int NW = NT / 32;
  constexpr int B = grid_b(OP, NT, NV);
  constexpr int S = GRID_S;
  /* stage s, row i, input n, slot j, thread t */
  extern __shared__ uint4 gsm[];
  __shared__ float red[2][4][NW][B];
  __shared__ float stat[2][B][3]; /* by batch parity: the last batch's
                                     gather has no barrier before it */
  auto cell = [&](int s, int i, int n, int j) -> uint4 & {
    return gsm[(((s * B + i) * NI + n) * NV + j) * NT + threadIdx.x];
  };
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  /* block blk of the chunks; with Q > 1, parity qp takes batches qp,
   * qp + Q, ... (local batch k is batch qp + k Q) */
  constexpr int Q = grid_q(OP, NT);
  const int blk = Q == 1 ? (int)blockIdx.x : (int)(blockIdx.x % GRID_P);
  const int qp = Q == 1 ? 0 : (int)(blockIdx.x / GRID_P);
  const colchunk ch = col_chunk<VEC>(p, blk);
  const int c0 = ch.c0, c1 = ch.c1, nvc = ch.nv;
  const bool vec = p.vec != 0;
  const float fill = OP == F_SOFTMAX ? -CUDART_INF_F : 0.f;
  const T *in0 = static_cast<const T *>(p.in0);
  const T *in1 = static_cast<const T *>(p.in1);
  T *out = static_cast<T *>(p.out);
  const int64_t nb = (p.rows + B - 1) / B;
  const int64_t nbq = Q == 1 ? nb : (nb > qp ? (nb - qp + Q - 1) / Q : 0);
  const uint32_t ep = __ldcg(g.hdr) + 1u;
#if CPK_GRID_PROF
  long long gp[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  unsigned long long gt0 = global_ns();
  long long gt = clock64();
  const long long gstart = gt;
  unsigned gspins = 0;
#endif

  /* this thread's columns of w (rmsnorm, rmsnorm_bwd) and dw sums */
  float wr[NV][VEC], dwr[NV][VEC];
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    const int e = c0 + (j * NT + tid) * VEC;
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      wr[j][k] = dwr[j][k] = 0.f;
    if constexpr (OP == F_RMS || OP == F_RMSBWD) {
      if (j * NT + tid < nvc)
        load_w<T>(static_cast<const T *>(p.w), e, c1, vec, wr[j]);
    }
  }

  /* row i of batch bt into its stage: whole aligned vectors by cp.async
   * (evict first), the rest (a row's last partial vector, unaligned rows,
   * masked softmax rows) by plain loads with the op's fill */
  auto issue_row = [&](int64_t k, int i) {
    const int64_t r = (qp + k * Q) * B + i;
    if (k >= nbq || r >= p.rows)
      return;
    const int s = (int)(k % S);
    const uint8_t *mrow = (OP == F_SOFTMAX && p.mask != nullptr)
                              ? p.mask + r * p.mstride
                              : nullptr;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      if (j * NT + tid >= nvc)
        break;
      const int e = c0 + (j * NT + tid) * VEC;
#pragma unroll
      for (int n = 0; n < NI; ++n) {
        const T *src = (n == 0 ? in0 : in1) + r * p.stride;
        if (vec && c1 - e >= VEC && (n > 0 || mrow == nullptr))
          cp_async16<true>(&cell(s, i, n, j), src + e);
        else
          cell(s, i, n, j) = load_slot<T, false>(
              src, e, c1, vec, n == 0 ? mrow : nullptr, n == 0 ? fill : 0.f);
      }
    }
  };
  /* one cp.async group per batch */
  auto commit = [] { asm volatile("cp.async.commit_group;" ::: "memory"); };

  /* The gather's words: warp w takes rows w, w + NW, ... of a batch (RPW
   * rows, all their loads in flight at once), lane l blocks l, l + 32, ...
   * Rows past the batch or the matrix hold a word that already matches. */
  constexpr int KP = (GRID_P + 31) / 32;
  constexpr int NWD = gwords(OP);
  constexpr int RPW = (B + NW - 1) / NW;
  unsigned long long f[RPW][KP][NWD];
  auto gword = [&](int64_t pb, int q, int u, int w) -> unsigned long long * {
    const int64_t r = pb * B + wid + q * NW;
    return g.word + ((size_t)(r % GRID_RING) * GRID_P + lane + 32 * u) * 2 + w;
  };
  auto gvalid = [&](int64_t pb, int q, int u) {
    const int i = wid + q * NW;
    return i < B && pb * B + i < p.rows && lane + 32 * u < GRID_P;
  };
  /* fn(word, its row's tag, q, u, w) on each word of batch pb's rows */
  auto geach = [&](int64_t pb, auto &&fn) {
#pragma unroll
    for (int q = 0; q < RPW; ++q) {
      const uint32_t tg = gtag(ep, pb * B + wid + q * NW);
#pragma unroll
      for (int u = 0; u < KP; ++u)
#pragma unroll
        for (int w = 0; w < NWD; ++w)
          fn(f[q][u][w], tg, q, u, w);
    }
  };
  auto gload = [&](int64_t pb) {
#pragma unroll
    for (int q = 0; q < RPW; ++q)
#pragma unroll
      for (int u = 0; u < KP; ++u)
#pragma unroll
        for (int w = 0; w < NWD; ++w)
          f[q][u][w] = gvalid(pb, q, u)
                           ? ld_relaxed(gword(pb, q, u, w))
                           : (unsigned long long)gtag(ep, pb * B + wid + q * NW)
                                 << 32;
  };

  for (int s = 0; s < S; ++s) {
    for (int i = 0; i < B; ++i)
      issue_row(s, i);
    commit();
  }
  GPROF(8);

  for (int64_t k = 0; k <= nbq; ++k) {
    const int64_t bt = qp + k * Q;
    /* the previous batch's words, loaded before this batch's reduction:
     * their round trip through the L2 overlaps it */
    if (k > 0)
      gload(bt - Q);
    if (k < nbq) {
      /* this thread's part of batch bt has landed (the newest group, the
       * next batch, may still be in flight; at k = 0 two may) */
      if (k == 0)
        asm volatile("cp.async.wait_group %0;" ::"n"(S - 1) : "memory");
      else
        asm volatile("cp.async.wait_group %0;" ::"n"(S - 2) : "memory");
      GPROF(0);
      const int s = (int)(k % S);
      const int rb = (int)(k & 1);
      /* every row's partial of this thread, then the B rows reduced over
       * the warp together (gwarp_rows) */
      float a[B][4];
#pragma unroll
      for (int i = 0; i < B; ++i) {
        gneutral<OP>(a[i]);
        if (bt * B + i >= p.rows)
          continue;
        if constexpr (OP == F_SOFTMAX) {
          uint32_t macc = max_acc_init<T>();
#pragma unroll
          for (int j = 0; j < NV; ++j)
            if (j * NT + tid < nvc)
              macc = max_acc_add<T>(macc, cell(s, i, 0, j));
          float m = max_acc_get<T>(macc);
          csum t;
          if (m != m || m == CUDART_INF_F) {
            m = CUDART_NAN_F; /* poisons the row's max */
          } else if (m != -CUDART_INF_F) {
#pragma unroll
            for (int j = 0; j < NV; ++j) {
              if (j * NT + tid < nvc)
                exp_sum_add<T>(t, cell(s, i, 0, j), m);
            }
          }
          a[i][0] = m;
          a[i][1] = t.s;
          a[i][2] = t.c;
        } else if constexpr (OP == F_RMSBWD) {
          csum t, u;
#pragma unroll
          for (int j = 0; j < NV; ++j) {
            if (j * NT + tid < nvc) {
              float gg[VEC], x[VEC];
              unpack<T>(cell(s, i, 0, j), gg);
              unpack<T>(cell(s, i, 1, j), x);
              const float2 r2 = rmsbwd_terms<VEC>(gg, x, wr[j]);
              t.add(r2.x);
              u.add(r2.y);
            }
          }
          a[i][0] = t.s;
          a[i][1] = t.c;
          a[i][2] = u.s;
          a[i][3] = u.c;
        } else {
          csum t;
#pragma unroll
          for (int j = 0; j < NV; ++j) {
            if (j * NT + tid < nvc) {
              if constexpr (OP == F_SMBWD)
                dot_add<T>(t, cell(s, i, 0, j), cell(s, i, 1, j));
              else
                sum_add<T, OP == F_RMS>(t, cell(s, i, 0, j));
            }
          }
          a[i][0] = t.s;
          a[i][1] = t.c;
        }
      }
      gwarp_rows<OP, B>(a, lane);
      if ((lane & (32 / B - 1)) == 0) {
        const int i = grow<B>(lane);
#pragma unroll
        for (int q = 0; q < 4; ++q)
          red[rb][q][wid][i] = a[0][q];
      }
      GPROF(1);
      __syncthreads();
      GPROF(2);
      /* the block's partial of each row (lanes LPR to a row, each merging
       * every LPR-th warp's in warp order, then a butterfly over the LPR),
       * published by the last warp (which gathers the fewest rows) */
      if (wid == NW - 1) {
        constexpr int LPR = 32 / B < NW ? 32 / B : NW;
        const int i = lane / LPR, pi = lane % LPR;
        float m[4];
        gneutral<OP>(m);
        if (i < B) {
#pragma unroll
          for (int w = pi; w < NW; w += LPR) {
            const float o[4] = {red[rb][0][w][i], red[rb][1][w][i],
                                red[rb][2][w][i], red[rb][3][w][i]};
            gcomb<OP>(m, o);
          }
        }
#pragma unroll
        for (int o = LPR / 2; o > 0; o >>= 1) {
          float ob[4];
#pragma unroll
          for (int q = 0; q < 4; ++q)
            ob[q] = __shfl_xor_sync(0xffffffffu, m[q], o);
          gcomb<OP>(m, ob);
        }
        const int64_t r = bt * B + i;
        if (pi == 0 && i < B && r < p.rows) {
          /* softmax (max, sum), rmsnorm_bwd (sum, sum), the others (sum) */
          const float f0 = OP == F_SOFTMAX ? m[0] : csv(m, 0);
          const float f1 = OP == F_SOFTMAX  ? csv(m, 1)
                           : OP == F_RMSBWD ? csv(m, 2)
                                            : 0.f;
          const unsigned long long tg = (unsigned long long)gtag(ep, r) << 32;
          unsigned long long *w =
              g.word + ((size_t)(r % GRID_RING) * GRID_P + blk) * 2;
          st_relaxed(w, tg | __float_as_uint(f0));
          if constexpr (gwords(OP) > 1)
            st_relaxed(w + 1, tg | __float_as_uint(f1));
        }
      }
      GPROF(3);
    }
    if (k == 0)
      continue;

    /* the previous batch: gather (every word of the warp's rows in flight at
     * once, again for those not yet of their row), merge in block order,
     * write */
    const int64_t pb = bt - Q, pk = k - 1;
    {
      unsigned spins = 0;
      for (;;) {
        bool all = true;
        geach(pb, [&](unsigned long long &x, uint32_t tg, int, int, int) {
          all = all && (uint32_t)(x >> 32) == tg;
        });
        if (__all_sync(0xffffffffu, all))
          break;
        if (++spins > (1u << 24))
          __trap(); /* a block that never published: not a hang */
#if CPK_GRID_PROF
        ++gspins;
#endif
        __nanosleep(20);
        geach(pb, [&](unsigned long long &x, uint32_t tg, int q, int u, int w) {
          if ((uint32_t)(x >> 32) != tg)
            x = ld_relaxed(gword(pb, q, u, w));
        });
      }
    }
#pragma unroll
    for (int q = 0; q < RPW; ++q) {
      const int i = wid + q * NW;
      const int64_t r = pb * B + i;
      if (i >= B || r >= p.rows)
        break;
      float m[4];
      gneutral<OP>(m);
#pragma unroll
      for (int u = 0; u < KP; ++u) {
        if (lane + 32 * u < GRID_P) {
          float o[4] = {__uint_as_float((uint32_t)f[q][u][0]), 0.f, 0.f, 0.f};
          if constexpr (OP == F_SOFTMAX)
            o[1] = __uint_as_float((uint32_t)f[q][u][NWD - 1]);
          else if constexpr (OP == F_RMSBWD)
            o[2] = __uint_as_float((uint32_t)f[q][u][NWD - 1]);
          gcomb<OP>(m, o);
        }
      }
      gwarp<OP>(m);
      if (lane == 0) {
        float s0, s1 = 0.f, mode = 0.f;
        if constexpr (OP == F_SOFTMAX) {
          const float M = m[0];
          mode = (M != M || M == CUDART_INF_F)
                     ? 2.f
                     : (M == -CUDART_INF_F ? 1.f : 0.f);
          s0 = M;
          csum t;
          t.s = m[1];
          t.c = m[2];
          s1 = 1.f / t.value();
        } else if constexpr (OP == F_RMSBWD) {
          s0 = rsqrtf(csv(m, 0) / (float)p.cols + p.eps);
          s1 = -rb_coef(s0, csv(m, 2), p.cols);
        } else {
          s0 = csv(m, 0);
          if constexpr (OP == F_RMS)
            s0 = rsqrtf(s0 / (float)p.cols + p.eps);
        }
        stat[pk & 1][i][0] = s0;
        stat[pk & 1][i][1] = s1;
        stat[pk & 1][i][2] = mode;
        if constexpr (OP == F_ROWSUM) {
          if (blk == 0)
            st1(out + r, s0);
        }
      }
    }
    GPROF(4);
    __syncthreads();
    GPROF(5);
    if constexpr (OP != F_ROWSUM) {
      /* each row written from its stage, which then takes the same row of
       * local batch pk + S (this thread's own cells: no barrier) */
      const int s = (int)(pk % S);
#pragma unroll 1
      for (int i = 0; i < B; ++i) {
        const int64_t r = pb * B + i;
        if (r >= p.rows)
          break;
        const float s0 = stat[pk & 1][i][0], s1 = stat[pk & 1][i][1];
        const int mode = (int)stat[pk & 1][i][2];
        T *orow = out + r * p.stride;
#pragma unroll
        for (int j = 0; j < NV; ++j) {
          if (j * NT + tid >= nvc)
            break;
          const int e = c0 + (j * NT + tid) * VEC;
          float o[VEC];
          unpack<T>(cell(s, i, 0, j), o);
          if constexpr (OP == F_SOFTMAX) {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              o[k] = mode == 0 ? fexp(o[k] - s0) * s1
                               : (mode == 1 ? 0.f : CUDART_NAN_F);
          } else if constexpr (OP == F_SMBWD) {
            float y[VEC];
            unpack<T>(cell(s, i, 1, j), y);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              o[k] = y[k] * (o[k] - s0);
          } else if constexpr (OP == F_RMS) {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              o[k] = o[k] * s0 * wr[j][k];
          } else { /* F_RMSBWD: o = dy */
            float x[VEC];
            unpack<T>(cell(s, i, 1, j), x);
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
              o[k] = rb_dx(o[k], x[k], wr[j][k], s0, s1, dwr[j][k]);
            }
          }
          store_slot<T, true>(orow, e, c1, vec, o);
        }
        issue_row(pk + S, i);
      }
      GPROF(6);
    } else {
      GPROF(6);
      for (int i = 0; i < B; ++i)
        issue_row(pk + S, i);
    }
    commit();
    GPROF(7);
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
#if CPK_GRID_PROF
  if (tid == 0 && (ep & 63u) == 8u &&
      (blk == 0 || blk == 33 || blk == 66 || blk == 99 || blk == GRID_P - 1))
    printf("gridprof op=%d es=%d nt=%d nv=%d B=%d S=%d blk=%d rows=%lld "
           "nb=%lld t0=%llu cyc total=%lld pro=%lld wait=%lld red=%lld "
           "sync1=%lld pub=%lld gath=%lld sync2=%lld write=%lld issue=%lld "
           "spins=%u\n",
           OP, (int)sizeof(T), NT, NV, B, S, blk, (long long)p.rows,
           (long long)nb, gt0, clock64() - gstart, gp[8], gp[0], gp[1], gp[2],
           gp[3], gp[4], gp[5], gp[6], gp[7], gspins);
#endif

  if constexpr (OP == F_RMSBWD) {
    T *dw = static_cast<T *>(p.dw);
#pragma unroll
    for (int j = 0; j < NV; ++j)
      if (j * NT + tid < nvc)
        store_slot<T, false>(dw, c0 + (j * NT + tid) * VEC, c1, g.dwvec != 0,
                             dwr[j]);
  }
  /* every block has read the header (block 0 gathered every block's flag of
   * the last row): the next launch takes the next epoch. With Q > 1 the
   * last block to finish stores it (a count in the header's second word:
   * it has seen every block's count, each after that block's read) */
  if constexpr (Q == 1) {
    if (blk == 0 && tid == 0)
      *g.hdr = ep;
  } else if (tid == 0) {
    epoch_count_out(g.hdr, GRID_P * Q, ep);
  }
}

#endif
