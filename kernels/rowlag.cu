/* rowlag.cu: FUSED's lag path (v18, docs/PERFORMANCE.md) for the widest
 * rows of softmax, softmax_bwd and rmsnorm. Rows too wide for one SM (or a
 * cluster) to hold are cut into segments of kLagThreads x U 16-byte vectors
 * of each input (32 KiB of input a segment), and every block of a plain
 * grid (no cooperative launch, no clusters) does the work of one ticket t,
 * taken from a counter in the workspace when the block starts:
 *  - A(t), t < T (T: rows x segments, in row order): read segment t from
 *    device memory (evict-last in the L2), reduce it to a partial of the
 *    row's statistic, publish the partial and count it on the row; the
 *    block that completes a row's count merges the row's partials in
 *    segment order and publishes the row's statistics;
 *  - B(t), t >= L: wait for the statistics of segment t - L's row, read
 *    that segment again (from the L2 while it is still there: evict-first)
 *    and write its output with streaming stores.
 * Its loads for A and B are issued before either half is computed, so one
 * block has both reads in flight. L (the lag) is at least the segments of a
 * row, so the row a B waits for was read by blocks of lower tickets, which
 * started before this one (the counter hands tickets out in start order)
 * and wait only on rows of still lower tickets: no block waits on one that
 * is not running, whatever the grid's residency. The default lag is a row's
 * segments plus the grid's resident blocks, so a B's row was complete about
 * one round of resident blocks earlier; the L2 then holds about lag x 32
 * KiB of each input between a segment's two reads. Device memory sees each
 * input read once and each output written once while that fits.
 *
 * Bits: a segment's partial is the block's reduction in a fixed order
 * (per-thread compensated sums in column order, then the warps), the row's
 * statistics the merge of its partials in segment order by one warp: a pure
 * function of (op, dtype, cols), whichever block finishes a row last.
 *
 * Counters (u32, in the workspace; every launch leaves them at zero, so the
 * workspace is zeroed once before its first use): the ticket counter (the
 * block given the last ticket puts it back: every other block has taken
 * its ticket by then), and one count a row: A's add 1 each (0 .. nseg),
 * the row's last A adds nseg once the statistics are out (2 nseg: ready),
 * B's add 1 each after reading them, and the row's last B stores 0.
 *
 * Workspace: u32 ticket (256 bytes), u32 count[rows], float2 stat[rows],
 * float2 partial[rows][segments], each section rounded to 256 bytes.
 *
 * Semantics as the other FUSED paths (cpk.h): softmax's masked positions
 * read as -inf, a NaN or +inf anywhere makes the row NaN, a row of -inf is
 * 0, exp as fexp (rowslot.cuh); rmsnorm y = x rsqrt(mean x^2 + eps) w;
 * softmax_bwd dx = y (dy - sum dy y). */
#include <climits>

#include "common.cuh"
#include "rowlag.cuh"
#include "rowslot.cuh"

namespace cpk__ {

namespace {

/* Threads a block, and 16-byte loads of all inputs together a thread
 * issues for a segment (experiment builds may set CPK_LAG_U). */
constexpr int kLagThreads = 256;
#ifndef CPK_LAG_U
#define CPK_LAG_U 8
#endif

__host__ __device__ constexpr int lag_inputs(int op) {
  return op == CPK_OP_SOFTMAX_BWD ? 2 : 1;
}
__host__ __device__ constexpr int lag_u(int op) {
  return CPK_LAG_U / lag_inputs(op);
}

int64_t lag_cols(cpk_op op, cpk_dtype dt) {
  return (int64_t)kLagThreads * lag_u(op) * (dt == CPK_F32 ? 4 : 8);
}

int64_t lag_segs(cpk_op op, cpk_dtype dt, int64_t cols) {
  return (cols + lag_cols(op, dt) - 1) / lag_cols(op, dt);
}

struct lagp {
  const void *in0, *in1, *w;
  void *out;
  const uint8_t *mask;
  int64_t mstride, rows, stride;
  float eps;
  int cols, nseg, vec;
  unsigned tseg; /* T: rows x nseg */
  unsigned lag;  /* L */
  unsigned ntick;
  unsigned *ticket, *cnt;
  float2 *stat, *part;
};

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
               : "=r"(v)
               : "l"(p)
               : "memory");
  return v;
}

/* 16 bytes global -> shared (cp.async, L1 bypassed) with an L2 policy. */
__device__ __forceinline__ void cpa16(uint4 *dst, const void *src,
                                      uint64_t pol) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile(
      "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(s),
      "l"(src), "l"(pol)
      : "memory");
}
__device__ __forceinline__ void cpa_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N> __device__ __forceinline__ void cpa_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/* Tickets: every block draws (atomicAdd on the counter) until it holds
 * one past the last (ntick), so a launch draws ntick + gridDim.x times; the
 * holder of the last draw puts the counter back to zero for the next
 * launch (seen: called with each drawn ticket once, where the value is
 * needed anyway, so the draw's round trip stays off the path). */
__device__ __forceinline__ void seen(const lagp &p, unsigned t) {
  if (t == p.ntick + gridDim.x - 1u)
    *p.ticket = 0u;
}

/* A persistent block: tickets drawn one ahead, each ticket's loads
 * (cp.async into shared memory: A's double-buffered, so A(next) is in
 * flight while this ticket is reduced and written) issued after the
 * previous ticket's work. Dynamic shared memory: A [2][NI][U][NT], B
 * [NI][U][NT] 16-byte cells; each thread reads only the cells it filled. */
template <typename T, int OP>
__global__ void __launch_bounds__(kLagThreads) lag_k(const lagp p) {
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = lag_inputs(OP);
  constexpr int U = lag_u(OP);
  constexpr int NT = kLagThreads;
  constexpr int SEG = NT * U * VEC;
  constexpr int CELLS = NI * U * NT;
  extern __shared__ uint4 lsm[];
  __shared__ float sh[64];
  __shared__ unsigned s_next;
  __shared__ float2 s_stat;
  const int tid = threadIdx.x, lane = tid & 31;
  const bool vec = p.vec != 0;
  const T *in0 = static_cast<const T *>(p.in0);
  const T *in1 = static_cast<const T *>(p.in1);
  const unsigned nseg = (unsigned)p.nseg;
  const uint64_t pl = pol_evict_last(), pf = pol_evict_first();

  /* segment k: its row and columns [c0, c1) */
  auto where = [&](unsigned k, int64_t &r, int &c0, int &c1) {
    r = k / nseg;
    c0 = (int)(k % nseg) * SEG;
    c1 = p.cols - c0 < SEG ? p.cols : c0 + SEG;
  };
  /* this thread's cells of segment k into buf (whole aligned vectors by
   * cp.async, the rest by plain loads with the op's fill) */
  auto fetch = [&](uint4 *buf, unsigned k, uint64_t pol) {
    int64_t r;
    int c0, c1;
    where(k, r, c0, c1);
    const T *x0 = in0 + r * p.stride;
    const T *x1 = NI > 1 ? in1 + r * p.stride : nullptr;
    const uint8_t *mrow = (OP == CPK_OP_SOFTMAX && p.mask != nullptr)
                              ? p.mask + r * p.mstride
                              : nullptr;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int e = c0 + (u * NT + tid) * VEC;
      const bool whole = vec && c1 - e >= VEC;
      uint4 *d0 = buf + u * NT + tid;
      if (whole && mrow == nullptr)
        cpa16(d0, x0 + e, pol);
      else
        *d0 = load_slot<T, false>(x0, e, c1, vec, mrow,
                                  OP == CPK_OP_SOFTMAX ? -CUDART_INF_F : 0.f);
      if constexpr (NI > 1) {
        uint4 *d1 = buf + (U + u) * NT + tid;
        if (whole)
          cpa16(d1, x1 + e, pol);
        else
          *d1 = load_slot<T, false>(x1, e, c1, vec, nullptr, 0.f);
      }
    }
  };

  if (tid == 0) {
    s_next = atomicAdd(p.ticket, 1u);
    seen(p, s_next);
  }
  __syncthreads();
  unsigned t = s_next;
  __syncthreads();
  if (tid == 0 && t < p.ntick) {
    s_next = atomicAdd(p.ticket, 1u);
    seen(p, s_next);
  }
  __syncthreads();
  unsigned tn = s_next;
  int buf = 0;
  if (t < p.tseg)
    fetch(lsm, t, pl);
  cpa_commit();

  while (t < p.ntick) {
    unsigned tnn = 0;
    if (tid == 0) {
      if (tn < p.ntick)
        tnn = atomicAdd(p.ticket, 1u);
      if (t >= p.lag) {
        /* B's row statistics */
        const unsigned rb = (t - p.lag) / nseg;
        unsigned *c = p.cnt + rb;
        unsigned ns = 32;
        while (ld_acquire(c) < 2u * nseg) {
          __nanosleep(ns);
          ns = ns < 512 ? 2 * ns : ns;
        }
        s_stat = __ldcg(p.stat + rb);
        if (atomicAdd(c, 1u) == 3u * nseg - 1u)
          *c = 0u; /* the row's last B: every A and B of it counted */
      }
    }
    __syncthreads();
    const float2 st = s_stat;
    uint4 *const ab = lsm + buf * CELLS, *const bb = lsm + 2 * CELLS;
    if (t >= p.lag)
      fetch(bb, t - p.lag, pf);
    cpa_commit();
    if (tn < p.tseg)
      fetch(lsm + (buf ^ 1) * CELLS, tn, pl);
    cpa_commit();

    cpa_wait<2>(); /* this ticket's A */
    if (t < p.tseg) {
      /* the segment's partial */
      int64_t ra;
      int a0, a1;
      where(t, ra, a0, a1);
      float2 pa;
      if constexpr (OP == CPK_OP_SOFTMAX) {
        uint32_t macc = max_acc_init<T>();
#pragma unroll
        for (int u = 0; u < U; ++u)
          macc = max_acc_add<T>(macc, ab[u * NT + tid]);
        const float m = max_acc_get<T>(macc);
        const bool bad = m != m || m == CUDART_INF_F;
        csum a;
        if (!bad && m != -CUDART_INF_F) {
#pragma unroll
          for (int u = 0; u < U; ++u) {
            float v[VEC];
            unpack<T>(ab[u * NT + tid], v);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] = fexp(v[k] - m);
            a.add(pair_sum(v));
          }
        }
        /* a poisoned thread counts as +inf: the block's max is +inf
         * exactly when some thread saw a NaN or +inf */
        const float bm = block_max(bad ? CUDART_INF_F : m, sh);
        const bool bbad = bm == CUDART_INF_F;
        const float f = (!bbad && m != -CUDART_INF_F) ? fexp(m - bm) : 0.f;
        a.s *= f;
        a.c *= f;
        const float s = block_csum(a, sh);
        pa = make_float2(bbad ? CUDART_NAN_F : bm, s);
      } else {
        csum a;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float v[VEC];
          unpack<T>(ab[u * NT + tid], v);
          if constexpr (OP == CPK_OP_SOFTMAX_BWD) {
            float y[VEC];
            unpack<T>(ab[(U + u) * NT + tid], y);
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
        pa = make_float2(block_csum(a, sh), 0.f);
      }
      if (tid < 32) {
        int last = 0;
        if (tid == 0) {
          p.part[(size_t)ra * nseg + (t % nseg)] = pa;
          __threadfence(); /* the partial before the count */
          last = atomicAdd(p.cnt + ra, 1u) == nseg - 1u;
        }
        if (__shfl_sync(0xffffffffu, last, 0)) {
          /* the row's last A: its partials in segment order (lane l takes
           * l, l + 32, ..., then a butterfly: the same order every run) */
          __threadfence();
          const float2 *pr = p.part + (size_t)ra * nseg;
          float2 rs;
          if constexpr (OP == CPK_OP_SOFTMAX) {
            float M = -CUDART_INF_F;
            int bad = 0;
            for (unsigned k = lane; k < nseg; k += 32) {
              const float mk = __ldcg(pr + k).x;
              if (mk != mk)
                bad = 1;
              else
                M = fmaxf(M, mk);
            }
            M = warp_max(M);
            bad = __any_sync(0xffffffffu, bad);
            csum s;
            if (!bad && M != -CUDART_INF_F) {
              for (unsigned k = lane; k < nseg; k += 32) {
                const float2 pk = __ldcg(pr + k);
                s.add(pk.x == -CUDART_INF_F ? 0.f : pk.y * fexp(pk.x - M));
              }
            }
            warp_csum(s);
            rs = bad ? make_float2(CUDART_NAN_F, CUDART_NAN_F)
                     : make_float2(M, 1.f / s.value());
          } else {
            csum s;
            for (unsigned k = lane; k < nseg; k += 32)
              s.add(__ldcg(pr + k).x);
            warp_csum(s);
            rs = OP == CPK_OP_RMSNORM
                     ? make_float2(
                           rsqrtf(s.value() / (float)p.cols + p.eps), 0.f)
                     : make_float2(s.value(), 0.f);
          }
          if (lane == 0) {
            p.stat[ra] = rs;
            __threadfence(); /* the statistics before the count */
            atomicAdd(p.cnt + ra, nseg);
          }
        }
      }
    }

    cpa_wait<1>(); /* B's cells */
    if (t >= p.lag) {
      int64_t rb;
      int b0, b1;
      where(t - p.lag, rb, b0, b1);
      T *orow = static_cast<T *>(p.out) + rb * p.stride;
      const T *w = static_cast<const T *>(p.w);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = b0 + (u * NT + tid) * VEC;
        if (e >= b1)
          continue;
        float o[VEC];
        unpack<T>(bb[u * NT + tid], o);
        if constexpr (OP == CPK_OP_SOFTMAX) {
          /* st = (M, 1 / sum): M NaN for a poisoned row, -inf for a row of
           * -inf */
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = st.x != st.x             ? CUDART_NAN_F
                   : st.x == -CUDART_INF_F ? 0.f
                                           : fexp(o[k] - st.x) * st.y;
        } else if constexpr (OP == CPK_OP_SOFTMAX_BWD) {
          float y[VEC];
          unpack<T>(bb[(U + u) * NT + tid], y);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = y[k] * (o[k] - st.x);
        } else {
          float ww[VEC];
          load_w<T>(w, e, b1, vec, ww);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = o[k] * st.x * ww[k];
        }
        store_slot<T, true>(orow, e, b1, vec, o);
      }
    }
    if (tid == 0 && tn < p.ntick) {
      seen(p, tnn);
      s_next = tnn;
    }
    __syncthreads(); /* s_next out; this ticket's cells free */
    t = tn;
    tn = s_next;
    buf ^= 1;
  }
  cpa_wait<0>();
}

/* Dynamic shared memory of lag_k: three segments of cells. */
template <int OP> constexpr size_t lag_smem() {
  return (size_t)3 * lag_inputs(OP) * lag_u(OP) * kLagThreads * 16;
}

template <typename T, int OP>
cudaError_t launch(const lagp &p0, cudaStream_t st) {
  /* the grid: the resident blocks, asked once (no host work between the
   * caller's events and the launch after the first) */
  static const int64_t extra = knob_int("CPK_LAG_EXTRA", -1);
  static int64_t resident = -1;
  constexpr size_t smem = lag_smem<OP>();
  if (resident < 0) {
    CPK__TRY(cudaFuncSetAttribute(lag_k<T, OP>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)smem));
    unsigned res = 0;
    CPK__TRY(grid_for(lag_k<T, OP>, kLagThreads, smem, INT_MAX, &res));
    resident = res;
  }
  lagp p = p0;
  const int64_t lag = (int64_t)p.nseg + (extra < 0 ? resident : extra);
  const int64_t ntick = (int64_t)p.tseg + lag;
  if (ntick + resident > (int64_t)INT_MAX)
    return cudaErrorInvalidValue;
  p.lag = (unsigned)lag;
  p.ntick = (unsigned)ntick;
  const int64_t grid = resident < ntick ? resident : ntick;
  lag_k<T, OP><<<(unsigned)grid, kLagThreads, smem, st>>>(p);
  return cudaGetLastError();
}

template <int OP> cudaError_t launch_dt(cpk_dtype dt, const lagp &p,
                                       cudaStream_t st) {
  switch (dt) {
  case CPK_F32:
    return launch<float, OP>(p, st);
  case CPK_F16:
    return launch<__half, OP>(p, st);
  case CPK_BF16:
    return launch<__nv_bfloat16, OP>(p, st);
  }
  return cudaErrorInvalidValue;
}

bool op_ok(cpk_op op) {
  return op == CPK_OP_SOFTMAX || op == CPK_OP_SOFTMAX_BWD ||
         op == CPK_OP_RMSNORM;
}

} /* namespace */

bool lag_takes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  static const bool on = knob_on("CPK_LAG");
  static const int64_t lmin = knob_int("CPK_LAG_MIN", 131073);
  if (!on || !op_ok(op) || !dt_ok(dt) || !shape_ok(s) || lmin < 1 ||
      s.cols < lmin || s.cols > (int64_t)INT_MAX / 2)
    return false;
  /* tickets: T plus a lag of at most T's row plus the resident blocks */
  const int64_t nseg = lag_segs(op, dt, s.cols);
  return s.rows <= ((int64_t)INT_MAX / 2) / nseg;
}

size_t lag_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  if (!lag_takes(op, dt, s))
    return 0;
  const size_t rows = (size_t)s.rows;
  return ws_round(4) + ws_round(rows * 4) + ws_round(rows * 8) +
         ws_round(rows * (size_t)lag_segs(op, dt, s.cols) * 8);
}

cudaError_t lag_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                    const void *w, void *out, const uint8_t *mask,
                    int64_t mstride, float eps, cpk_rows s, void *ws,
                    cudaStream_t st) {
  if (!lag_takes(op, dt, s) || ws == nullptr || !aligned16(ws))
    return cudaErrorInvalidValue;
  const size_t es = dt_size(dt);
  const size_t rows = (size_t)s.rows;
  char *b = static_cast<char *>(ws);
  lagp p = {};
  p.in0 = in0;
  p.in1 = in1;
  p.w = w;
  p.out = out;
  p.mask = mask;
  p.mstride = mstride;
  p.rows = s.rows;
  p.stride = s.stride;
  p.eps = eps;
  p.cols = (int)s.cols;
  p.nseg = (int)lag_segs(op, dt, s.cols);
  p.tseg = (unsigned)(s.rows * p.nseg);
  p.vec = rows_vec_ok(in0, s.stride, es) && rows_vec_ok(in1, s.stride, es) &&
          rows_vec_ok(out, s.stride, es) && (w == nullptr || aligned16(w));
  p.ticket = reinterpret_cast<unsigned *>(b);
  b += ws_round(4);
  p.cnt = reinterpret_cast<unsigned *>(b);
  b += ws_round(rows * 4);
  p.stat = reinterpret_cast<float2 *>(b);
  b += ws_round(rows * 8);
  p.part = reinterpret_cast<float2 *>(b);
  switch (op) {
  case CPK_OP_SOFTMAX:
    return launch_dt<CPK_OP_SOFTMAX>(dt, p, st);
  case CPK_OP_SOFTMAX_BWD:
    return launch_dt<CPK_OP_SOFTMAX_BWD>(dt, p, st);
  case CPK_OP_RMSNORM:
    return launch_dt<CPK_OP_RMSNORM>(dt, p, st);
  default:
    return cudaErrorInvalidValue;
  }
}

} /* namespace cpk__ */
