/* rowfused_wide.cuh: the wide path of rowfused.cu (v9): wide_k, which reads a
 * row twice, the second time from the L2, and its reduction wide_reduce; and
 * fused_dw_k, the second kernel of rmsnorm_bwd after fused_k or wide_k (dw: the
 * dw partial rows added in a fixed order). The wide path's rules and launches
 * are in rowfused_plan.cuh. Part of rowfused.cu's translation unit, not a
 * header of its own: included once, there, inside its anonymous namespace,
 * after what it uses (the helpers of rowfused_helpers.cuh, the op list and
 * fparams). Split out of the one file so that each part has one job, while the
 * kernels stay those of one unit: the same code, and the same names (an
 * anonymous namespace's mangled names carry the main file's). */
#ifndef CPK_ROWFUSED_WIDE_CUH
#define CPK_ROWFUSED_WIDE_CUH

/* ---- WIDE (v9): rows re-read from the L2 ----
 * A thread-block cluster per row, as fused_k's wide configurations, but
 * nothing of the row is held across its reduction: each thread streams its
 * part of the rank's chunk twice, U 16-byte loads per input in flight per
 * step. The first read comes from device memory with an evict-last L2
 * policy, the second (after the cluster's reduction) from the L2 with an
 * evict-first policy, and the row is written with streaming stores, so the
 * device memory sees each input read once and each output written once
 * while the rows in flight (one per resident cluster) fit in the L2. With
 * nothing held, a block needs few registers (U x NI x 4 for the data) and
 * little shared memory (rmsnorm's w, rmsnorm_bwd's w and dw accumulators):
 * the row count in flight is set by the grid, not by what a row needs on
 * chip. softmax sums exp(x - m) against a running per-thread max m (a
 * partial rescaled by exp(m_old - m_new) when the max grows), then the
 * cluster takes the row max M and each thread rescales its sum by
 * exp(m - M) before the sum's reduction; the write takes exp(x - M) once
 * more (the same one exp per element in the output as fused_k). Reduction
 * order: per-thread compensated sums in the thread's column order, the
 * block's warps, the cluster's ranks (group_reduce): a pure function of
 * (NT, cluster size, cols). */
template <bool MAX, int NQ, int NT>
__device__ __forceinline__ void wide_reduce(float (&v)[4], redscratch &rs,
                                            int &rb, int ncl) {
  const int buf = rb & 1; /* the buffer group_reduce takes next */
  group_reduce<MAX, NQ, NT, NT, 1>(v, rs, rb);
  if (ncl > 1)
    cluster_merge<MAX, NQ>(v, rs, buf, ncl);
}

template <typename T, int OP, int NT, int U, int MB>
__global__ void __launch_bounds__(NT, MB) wide_k(const fparams p) {
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = op_inputs(OP);
  /* rmsnorm_bwd: dw accumulators [chunk] fp32, then w [chunk] raw T;
   * rmsnorm (p.wsm): w [chunk] raw T. */
  extern __shared__ uint4 dsm[];
  __shared__ redscratch rs;
  const int tid = threadIdx.x;
  int rank = 0, ncl = 1;
#if CPK_CLUSTERS
  {
    cg::cluster_group cl = cg::this_cluster();
    rank = (int)cl.block_rank();
    ncl = (int)cl.num_blocks();
  }
#endif
  const int64_t clus = (int64_t)blockIdx.x / ncl;
  const int64_t ngrp = (int64_t)gridDim.x / ncl;
  const colchunk ch = col_chunk<VEC>(p, rank);
  const int c0 = ch.c0, c1 = ch.c1, nv = ch.nv;
  const bool vec = p.vec != 0;
  const float fill = OP == F_SOFTMAX ? -CUDART_INF_F : 0.f;
  const T *in0 = static_cast<const T *>(p.in0);
  const T *in1 = static_cast<const T *>(p.in1);
  const T *w = static_cast<const T *>(p.w);
  T *out = static_cast<T *>(p.out);
  /* row_sum reads its rows once: evict first there too */
  const uint64_t pf = pol_evict_first();
  const uint64_t pl = OP == F_ROWSUM ? pf : pol_evict_last();
  int rb = 0;

  float *dwa = reinterpret_cast<float *>(dsm);
  uint4 *wv = OP == F_RMSBWD ? dsm + (p.chunk * 4) / 16 : dsm;
  const bool wsm = OP == F_RMSBWD || (OP == F_RMS && p.wsm);
  if (wsm) {
    for (int v = tid; v < nv; v += NT) {
      float ww[VEC];
      load_w<T>(w, c0 + v * VEC, c1, vec, ww);
      wv[v] = pack_t<T>(ww);
      if constexpr (OP == F_RMSBWD) {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          dwa[v * VEC + k] = 0.f;
      }
    }
    __syncthreads();
  }
  auto wget = [&](int idx, int e, float(&ww)[VEC]) {
    if (wsm)
      unpack<T>(wv[idx], ww);
    else
      load_w<T>(w, e, c1, vec, ww);
  };
  (void)wget;

  for (int64_t r = clus; r < p.rows; r += ngrp) {
    const int64_t ro = r * p.stride;
    const T *x0 = in0 + ro;
    const T *x1 = NI > 1 ? in1 + ro : nullptr;
    const uint8_t *mrow = (OP == F_SOFTMAX && p.mask != nullptr)
                              ? p.mask + r * p.mstride
                              : nullptr;
    /* the step from vector v0 on: U vectors of each input, L2 policy pol */
    auto load = [&](uint4(&q)[NI][U], int v0, uint64_t pol) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = c0 + (v0 + u * NT + tid) * VEC;
        q[0][u] = wide_ld<T>(x0, e, c1, vec, mrow, fill, pol);
        if constexpr (NI > 1)
          q[NI - 1][u] = wide_ld<T>(x1, e, c1, vec, nullptr, 0.f, pol);
      }
    };
    /* pass 1: the statistics, loads from device memory (evict last) */
    csum a, b;
    float m = -CUDART_INF_F, bad = 0.f;
    for (int v0 = 0; v0 < nv; v0 += NT * U) {
      uint4 q[NI][U];
      load(q, v0, pl);
      if constexpr (OP == F_ROWSUM) {
#pragma unroll
        for (int u = 0; u < U; ++u)
          sum_add<T, false>(a, q[0][u]);
      } else if constexpr (OP == F_SOFTMAX) {
        uint32_t macc = max_acc_init<T>();
#pragma unroll
        for (int u = 0; u < U; ++u)
          macc = max_acc_add<T>(macc, q[0][u]);
        const float bm = max_acc_get<T>(macc);
        if (bm != bm || bm == CUDART_INF_F)
          bad = 1.f;
        if (bad == 0.f) {
          if (bm > m) { /* m = -inf: the factor is exp(-inf) = 0 */
            const float f = fexp(m - bm);
            a.s *= f;
            a.c *= f;
            m = bm;
          }
          if (m != -CUDART_INF_F) {
#pragma unroll
            for (int u = 0; u < U; ++u)
              exp_sum_add<T>(a, q[0][u], m);
          }
        }
      } else if constexpr (OP == F_SMBWD) {
#pragma unroll
        for (int u = 0; u < U; ++u)
          dot_add<T>(a, q[0][u], q[1][u]);
      } else if constexpr (OP == F_RMS) {
#pragma unroll
        for (int u = 0; u < U; ++u)
          sum_add<T, true>(a, q[0][u]);
      } else { /* F_RMSBWD: in0 = dy, in1 = x */
        float pt[U], pd[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int idx = v0 + u * NT + tid;
          float g[VEC], x[VEC], ww[VEC];
          unpack<T>(q[0][u], g);
          unpack<T>(q[1][u], x);
          unpack<T>(wv[idx < nv ? idx : 0], ww);
          const float2 r = rmsbwd_terms<VEC>(g, x, ww);
          pt[u] = r.x;
          pd[u] = r.y;
        }
        a.add(pair_sum(pt));
        b.add(pair_sum(pd));
      }
    }

    /* the row's statistics over the cluster */
    float s0 = 0.f, s1 = 0.f; /* op's two scalars */
    int mode = 0;
    if constexpr (OP == F_SOFTMAX) {
      float red[4] = {bad != 0.f ? -CUDART_INF_F : m, bad, 0.f, 0.f};
      wide_reduce<true, 2, NT>(red, rs, rb, ncl);
      mode = red[1] != 0.f ? 2 : (red[0] == -CUDART_INF_F ? 1 : 0);
      const float M = red[0];
      /* this thread's sum, against the row max */
      const float f = (mode == 0 && m != -CUDART_INF_F) ? fexp(m - M) : 0.f;
      float sred[4] = {a.s * f, a.c * f, 0.f, 0.f};
      wide_reduce<false, 2, NT>(sred, rs, rb, ncl);
      s0 = M;
      s1 = 1.f / csv(sred, 0);
    } else if constexpr (OP == F_RMSBWD) {
      float red[4] = {a.s, a.c, b.s, b.c};
      wide_reduce<false, 4, NT>(red, rs, rb, ncl);
      s0 = rsqrtf(csv(red, 0) / (float)p.cols + p.eps);
      s1 = -rb_coef(s0, csv(red, 2), p.cols);
    } else {
      float red[4] = {a.s, a.c, 0.f, 0.f};
      wide_reduce<false, 2, NT>(red, rs, rb, ncl);
      s0 = csv(red, 0);
      if constexpr (OP == F_RMS)
        s0 = rsqrtf(s0 / (float)p.cols + p.eps);
    }
    if constexpr (OP == F_ROWSUM) {
      if (tid == 0 && rank == 0)
        st1(out + r, s0);
      continue;
    }

    /* pass 2: the write, the inputs again from the L2 (evict first) */
    T *orow = out + ro;
    for (int v0 = 0; v0 < nv; v0 += NT * U) {
      uint4 q[NI][U];
      load(q, v0, pf);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int idx = v0 + u * NT + tid;
        const int e = c0 + idx * VEC;
        float o[VEC];
        if constexpr (OP == F_SOFTMAX) {
          unpack<T>(q[0][u], o);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = mode == 0 ? fexp(o[k] - s0) * s1
                             : (mode == 1 ? 0.f : CUDART_NAN_F);
        } else if constexpr (OP == F_SMBWD) {
          float y[VEC];
          unpack<T>(q[0][u], o);
          unpack<T>(q[1][u], y);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = y[k] * (o[k] - s0);
        } else if constexpr (OP == F_RMS) {
          float ww[VEC];
          unpack<T>(q[0][u], o);
          wget(idx < nv ? idx : 0, e, ww);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            o[k] = o[k] * s0 * ww[k];
        } else { /* F_RMSBWD */
          float g[VEC], x[VEC], ww[VEC];
          unpack<T>(q[0][u], g);
          unpack<T>(q[1][u], x);
          unpack<T>(wv[idx < nv ? idx : 0], ww);
          if (idx < nv) {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              o[k] = rb_dx(g[k], x[k], ww[k], s0, s1, dwa[idx * VEC + k]);
          }
        }
        if (idx < nv)
          store_slot<T, true>(orow, e, c1, vec, o);
      }
    }
  }

  if constexpr (OP == F_RMSBWD) {
    /* this cluster's partial row of dw (each column's accumulator was
     * written by its own thread only) */
    float *dst = p.dwpart + clus * p.cols;
    const bool al = dw_vec_ok(p.dwpart, p.cols);
    for (int v = tid; v < nv; v += NT)
      st_dw<VEC>(dst, c0 + v * VEC, c1, al,
                 [&](int k) { return dwa[v * VEC + k]; });
  }
#if CPK_CLUSTERS
  if (ncl > 1)
    cg::this_cluster().sync(); /* no block leaves while others read it */
#endif
}

/* dw[c] = sum over g of part[g][c]: DW_STRANDS strands per column each add
 * the partial rows g = strand, strand + DW_STRANDS, ... (compensated, in
 * order), then the strands are merged in strand order. A fixed order,
 * independent of the device: the same bits every run. One block covers 32
 * columns (coalesced 128-byte rows). The H200 profile of the first version
 * (one thread per column adding all G partials in a chain: 4 blocks for
 * 1024 columns, 18-34 us, 12-22 % of rmsnorm_backward) is in
 * docs/PERFORMANCE.md; so are the forms not taken: v13c's launch as a
 * programmatic dependent of the row kernel with 32 strands, v13d's 64
 * strands merged by a tree, v37's add by the row kernel's last blocks. */
#define DW_STRANDS 16
template <typename T>
__global__ void __launch_bounds__(32 * DW_STRANDS)
    fused_dw_k(const float *__restrict__ part, T *__restrict__ dw, int64_t cols,
               int64_t groups) {
  __shared__ float ss[DW_STRANDS][32], sc[DW_STRANDS][32];
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  const int64_t c = (int64_t)blockIdx.x * 32 + tx;
  csum a;
  if (c < cols) {
#pragma unroll 4
    for (int64_t g = ty; g < groups; g += DW_STRANDS)
      a.add(part[g * cols + c]);
  }
  ss[ty][tx] = a.s;
  sc[ty][tx] = a.c;
  __syncthreads();
  if (ty == 0 && c < cols) {
#pragma unroll
    for (int k = 1; k < DW_STRANDS; ++k)
      a.merge(ss[k][tx], sc[k][tx]);
    st1(dw + c, a.value());
  }
}

#endif
