/* rowfused_helpers.cuh: the device helpers that rowfused.cu's row kernels
 * share: rmsnorm_bwd's 16-byte stores of dw partial rows (fused_k, wide_k),
 * cp.async and the stage's loads of a row into shared memory, and the
 * reductions over a row group (the warp butterfly, the block's warps, the
 * cluster's ranks through distributed shared memory or the push's inboxes; csv,
 * grid_k's too). Part of rowfused.cu's translation unit, not a header of its
 * own: included once, there, inside its anonymous namespace, after what it uses
 * (rowfused.cu's includes, cg, CPK_CLUSTERS, the op list and fparams). Split
 * out of the one file so that each part has one job, while the kernels stay
 * those of one unit: the same code, and the same names (an anonymous
 * namespace's mangled names carry the main file's). */
#ifndef CPK_ROWFUSED_HELPERS_CUH
#define CPK_ROWFUSED_HELPERS_CUH

/* rmsnorm_bwd's row kernels (fused_k, wide_k) write their dw partial rows
 * with 16-byte stores (v14b: a thread's VEC consecutive columns as VEC / 4
 * float4) instead of one 4-byte store per column: VEC 4-byte stores of one
 * thread land in one 32-byte sector, and the L2 takes each as a partial
 * write of that sector (the H200's counters at bf16 8192x8192: 6.0 M
 * sectors into the L2 against the 4.2 M of dx, softmax_backward's 4.2 M for
 * the same bytes; 4.7 M with these stores), all of them at the end of the
 * kernel, when every block writes its row at once. On the H200
 * (docs/PERFORMANCE.md, v14b): 16-bit 16384x4096 0.78 -> 0.83, 8192x8192
 * 0.75 -> 0.82, 2048x32768 0.52 -> 0.63 of the copy ceiling; fp32 and the
 * rest equal. The 16-bit fused_k kernels (v14c, st_dw_xch) exchange their
 * dw partial columns between a warp's lanes (shuffles) before those
 * stores, so that each store instruction writes 512 contiguous bytes and
 * every 32-byte sector is written whole by one instruction (v14b's stores
 * write a 16-bit thread's 8 columns as two 16-byte halves of one sector,
 * by two instructions). The bits are those of 4-byte stores (the same
 * values in the same cells).
 *
 * Whether a dw partial row [groups][cols] takes 16-byte stores. */
__device__ __forceinline__ bool dw_vec_ok(const float *part, int64_t cols) {
  return ((uintptr_t)part & 15u) == 0 && (cols & 3) == 0;
}
/* Columns e .. e + VEC of a dw partial row, those below c1 (val(k): column
 * e + k's value): float4 stores where 4 are in the row and AL. */
template <int VEC, typename F>
__device__ __forceinline__ void st_dw(float *dst, int e, int c1, bool al,
                                      F &&val) {
#pragma unroll
  for (int k4 = 0; k4 < VEC; k4 += 4) {
    if (al && e + k4 + 4 <= c1) {
      *reinterpret_cast<float4 *>(dst + e + k4) =
          make_float4(val(k4), val(k4 + 1), val(k4 + 2), val(k4 + 3));
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (e + k4 + k < c1)
          dst[e + k4 + k] = val(k4 + k);
    }
  }
}
/* A whole warp's 8 columns a lane (lane l: e0 + 8 l ..., val(k): column
 * e + k's value), 16-byte aligned and all in the row: two float4 stores a
 * lane, the first covering the warp's columns e0 .. e0 + 128, the second
 * the rest; lane l takes half l & 1 of lane (l >> 1)'s columns, then of
 * lane 16 + (l >> 1)'s. */
template <typename F>
__device__ __forceinline__ void st_dw_xch(float *dst, int e, F &&val) {
  const int lane = (int)(threadIdx.x & 31u);
  const int e0 = e - lane * 8;
  const bool hi = (lane & 1) != 0;
  float v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k)
    v[k] = val(k);
#pragma unroll
  for (int part = 0; part < 2; ++part) {
    const int src = part * 16 + (lane >> 1);
    float o[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float a = __shfl_sync(0xffffffffu, v[k], src);
      const float b = __shfl_sync(0xffffffffu, v[4 + k], src);
      o[k] = hi ? b : a;
    }
    *reinterpret_cast<float4 *>(dst + e0 + part * 128 + 4 * lane) =
        make_float4(o[0], o[1], o[2], o[3]);
  }
}

/* 16 bytes global -> shared, bypassing L1; EF: with an evict-first L2
 * policy (as ld.global.cs's lines), so the loads leave other lines (the
 * benchmark flush's dirty ones among them) in place. */
template <bool EF>
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  if constexpr (EF) {
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm volatile(
        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(s),
        "l"(gmem), "l"(pol)
        : "memory");
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem)
                 : "memory");
  }
}
/* A row's 16-byte shared-memory cell for elements [e, e + VEC), valid up
 * to ce: by cp.async (EF: evict-first) where it is a whole aligned vector
 * with no mask, else by load_slot (with LDCS's hint) and a store. */
template <typename T, bool LDCS, bool EF>
__device__ __forceinline__ void fill_cell(uint4 *dst, const T *src, int e,
                                          int ce, bool vec, const uint8_t *m,
                                          float fill) {
  if (ce - e >= ty<T>::vec && vec && m == nullptr)
    cp_async16<EF>(dst, src + e);
  else
    *dst = load_slot<T, LDCS>(src, e, ce, vec, m, fill);
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}
/* The stage's loads (stage_on): group thread gt's S cells of each of the
 * NI inputs of the row at offset roff (the rank's columns from c0, valid
 * up to ce), into stg [NI][S][NT]: cp.async where the cell is a whole
 * aligned vector. */
template <typename T, bool LDCS, int NI, int S, int NT, int GT>
__device__ __forceinline__ void
stage_row(uint4 *stg, const T *in0, const T *in1, int64_t roff, int c0, int gt,
          int ce, bool vec, const uint8_t *m, float fill, int tid) {
#pragma unroll
  for (int i = 0; i < NI; ++i) {
    const T *src = (i == 0 ? in0 : in1) + roff;
    const uint8_t *mi = i == 0 ? m : nullptr;
#pragma unroll
    for (int j = 0; j < S; ++j)
      fill_cell<T, LDCS, false>(&stg[(i * S + j) * NT + tid], src,
                                c0 + (j * GT + gt) * ty<T>::vec, ce, vec, mi,
                                fill);
  }
}

/* ---- reductions over a row group ----
 * K values per thread, merged either as compensated sums (pairs (s, c)) or
 * as maxima. Stage 1: warp butterfly. Stage 2 (GT > 32): the block's warps
 * in warp order through shared memory. Stage 3 (CL > 1): the cluster's blocks
 * in rank order through distributed shared memory. Double-buffered scratch:
 * one barrier per stage per reduction. */

/* The push (v34b): the cluster stage without a cluster barrier per
 * reduction. Each rank pushes its partial into every other rank's inbox
 * with st.async, which completes the bytes on that rank's mbarrier for the
 * reduction's buffer; a rank waits on its own mbarrier only, so no thread
 * waits for its earlier global stores to drain (the release of
 * barrier.cluster.arrive: Nsight Compute counts 1.15 membar stall cycles
 * per issued instruction on 16-bit rmsnorm_bwd at 2048x32768,
 * bounds/stall-2026-12-02T1457). The partials are merged in rank order as
 * before: the same bits. Since v35 rmsnorm_bwd's clusters in fused_k push
 * (fused_push); the wide path keeps cluster_merge's barrier (its row_sum
 * at 2^20 0.986-1.008x with the push, bounds/v34b-2026-12-02T1511 and
 * bounds/v35-2026-12-02T1634). */
struct redscratch {
  float blk[2][4][32];
  float clu[2][4];
};

#if CPK_CLUSTERS
/* The push's inboxes, a shared object of their own so that only the
 * kernels that push (those that call pbox) hold them. */
struct pushbox {
  float4 inbox[2][16];      /* [buffer][source rank] */
  unsigned long long mb[2]; /* an mbarrier per buffer, one arrival a phase */
};

__device__ __forceinline__ pushbox &pbox() {
  __shared__ pushbox pb;
  return pb;
}

/* Once per block, before the first exchange: the inbox mbarriers, visible
 * to the cluster before any rank can push (the caller's cluster barrier
 * follows). */
__device__ __forceinline__ void push_init() {
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&pbox().mb[0]), 1);
    mbar_init(smem_u32(&pbox().mb[1]), 1);
    fence_barrier_init();
  }
}
#endif

template <bool MAX>
__device__ __forceinline__ void merge(float (&a)[4], const float (&b)[4]) {
  if constexpr (MAX) {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      a[q] = fmaxf(a[q], b[q]);
  } else {
#pragma unroll
    for (int q = 0; q < 4; q += 2) {
      csum t;
      t.s = a[q];
      t.c = a[q + 1];
      t.merge(b[q], b[q + 1]);
      a[q] = t.s;
      a[q + 1] = t.c;
    }
  }
}

/* The cluster stage's merge: lane k of every warp holds rank k's partial
 * in mine (ncl <= 16 < 32 lanes); the warp merges them in rank order
 * through shuffles, from rank 0 up, into v (every lane the same). */
template <bool MAX, int NQ>
__device__ __forceinline__ void merge_ranks(float (&v)[4],
                                            const float (&mine)[4], int ncl) {
  float a[4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
    a[q] = q < NQ ? __shfl_sync(0xffffffffu, mine[q], 0) : 0.f;
    /* Not unrolled: unrolled, the wide 2-input configurations spilled. */
#pragma unroll 1
  for (int k = 1; k < ncl; ++k) {
    float b[4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
      b[q] = q < NQ ? __shfl_sync(0xffffffffu, mine[q], k) : 0.f;
    merge<MAX>(a, b);
  }
#pragma unroll
  for (int q = 0; q < 4; ++q)
    v[q] = a[q];
}

/* The cluster stage of a row group's reduction (v8): lane k of every warp
 * reads rank k's partial with one distributed-shared-memory load (ncl <=
 * 16 < 32 lanes), then merge_ranks: the same operations in the same order
 * as one thread reading them one after another (v7), so the same bits, in
 * one round trip instead of ncl (H200: +5-10 % on the 2^18- and 2^20-wide
 * clusters of softmax and softmax_bwd). ncl: the cluster size, a template
 * constant in fused_k, known at run time in wide_k. */
template <bool MAX, int NQ>
__device__ __forceinline__ void cluster_merge(float (&v)[4], redscratch &rs,
                                              int buf, int ncl) {
#if CPK_CLUSTERS
  cg::cluster_group cl = cg::this_cluster();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int q = 0; q < NQ; ++q)
      rs.clu[buf][q] = v[q];
  }
  cl.sync();
  const int lane = threadIdx.x & 31;
  const float *rk = cl.map_shared_rank(&rs.clu[buf][0], lane < ncl ? lane : 0);
  float mine[4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
    mine[q] = q < NQ ? rk[q] : 0.f;
  merge_ranks<MAX, NQ>(v, mine, ncl);
#else
  (void)v;
  (void)rs;
  (void)buf;
  (void)ncl;
  __trap();
#endif
}

/* The cluster stage that pushes (fused_push): kred is the reduction's index in
 * the block's sequence (its buffer kred & 1, its mbarrier phase
 * kred / 2 & 1). Threads 0 .. ncl-1 push the block's partial (every thread
 * holds it after the block stage) to rank t's inbox; thread 0 expects the
 * other ranks' 16 bytes each on its own mbarrier; every thread waits for
 * that phase, then reads the inbox (its own rank's entry from its
 * registers) and merges in rank order as cluster_merge does (merge_ranks,
 * the helper both share since v36). A rank's
 * pushes for reduction kred + 2 follow its wait for kred + 1, which needs
 * this rank's push for kred + 1, made after this rank's wait for kred and
 * after the block barrier of reduction kred + 1 (every reader of the inbox
 * past it): so the buffer and its phase are free when the bytes land. */
template <bool MAX, int NQ>
__device__ __forceinline__ void cluster_merge_push(float (&v)[4], int kred,
                                                   int ncl) {
#if CPK_CLUSTERS
  cg::cluster_group cl = cg::this_cluster();
  const int buf = kred & 1;
  const uint32_t par = (uint32_t)(kred >> 1) & 1u;
  const int me = (int)cl.block_rank();
  const int t = threadIdx.x;
  const uint32_t bar = smem_u32(&pbox().mb[buf]);
  if (t == 0)
    mbar_arrive_tx(bar, (uint32_t)(ncl - 1) * 16u);
  if (t < ncl && t != me) {
    uint32_t ra, rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(ra)
                 : "r"(smem_u32(&pbox().inbox[buf][me])), "r"(t));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(rbar)
                 : "r"(bar), "r"(t));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4."
                 "f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(ra),
                 "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]), "r"(rbar)
                 : "memory");
  }
  while (!mbar_try_wait(bar, par)) {
  }
  const int lane = t & 31;
  float mine[4];
  if (lane < ncl && lane != me) {
    const float4 f = pbox().inbox[buf][lane];
    mine[0] = f.x;
    mine[1] = f.y;
    mine[2] = f.z;
    mine[3] = f.w;
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      mine[q] = v[q];
  }
  merge_ranks<MAX, NQ>(v, mine, ncl);
#else
  (void)v;
  (void)kred;
  (void)ncl;
  __trap();
#endif
}

template <bool MAX, int NQ, int NT, int GT, int CL, bool NWL = false,
          bool PUSH = false>
__device__ __forceinline__ void group_reduce(float (&v)[4], redscratch &rs,
                                             int &rb) {
  /* Groups narrower than a warp (GT 16) butterfly inside their lanes only. */
#pragma unroll
  for (int o = (GT < 32 ? GT : 32) / 2; o > 0; o >>= 1) {
    float b[4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
      b[q] = q < NQ ? __shfl_xor_sync(0xffffffffu, v[q], o) : 0.f;
    merge<MAX>(v, b);
  }
  const int buf = rb & 1;
  ++rb;
  if constexpr (GT > 32) {
    /* a group wider than a warp is the whole block: its warps meet at the
     * block's barrier (v44's groups of part of a block, with named
     * barriers, were not kept) */
    static_assert(GT == NT, "a group of several warps is its block");
    constexpr int NW = NT / 32;
    static_assert((NW & (NW - 1)) == 0, "a power of two of warps");
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) {
#pragma unroll
      for (int q = 0; q < NQ; ++q)
        rs.blk[buf][q][w] = v[q];
    }
    __syncthreads();
    /* NWL (v15a; fused_k's register-slot configurations): every NW lanes
     * hold the NW warps' partials and the butterfly runs over log2(NW)
     * levels; else lanes NW .. 31 hold the identity (0 or -inf) and it
     * runs over 5. Merging the identity leaves a compensated pair and a
     * maximum as they are (but for the sign of a zero, and a NaN maximum,
     * which softmax never merges: a poisoned row's is -inf with its flag
     * set), so the sums and maxima are the same either way. On the H200
     * (docs/PERFORMANCE.md, v15a; bounds/v15-2026-11-30T1544): 16-bit
     * softmax at 4096 and 8192 columns +1 %, rmsnorm_backward +0.5-1 %;
     * the shared-memory-slot configurations (32768-wide 16-bit rows),
     * -0.3-1.5 % there, +0.2-0.6 % in a later lease
     * (bounds/nsred-2026-11-30T1641), keep the 5 levels, as does wide_k. */
    const int src = NWL ? (lane & (NW - 1)) : lane;
#pragma unroll
    for (int q = 0; q < 4; ++q)
      v[q] = (q < NQ && (NWL || lane < NW)) ? rs.blk[buf][q][src]
                                            : (MAX ? -CUDART_INF_F : 0.f);
#pragma unroll
    for (int o = NWL ? NW / 2 : 16; o > 0; o >>= 1) {
      float b[4];
#pragma unroll
      for (int q = 0; q < 4; ++q)
        b[q] = q < NQ ? __shfl_xor_sync(0xffffffffu, v[q], o) : 0.f;
      merge<MAX>(v, b);
    }
  }
  if constexpr (CL > 1) {
    if constexpr (PUSH)
      cluster_merge_push<MAX, NQ>(v, rb - 1, CL);
    else
      cluster_merge<MAX, NQ>(v, rs, buf, CL);
  }
}

__device__ __forceinline__ float csv(const float (&v)[4], int q) {
  csum t;
  t.s = v[q];
  t.c = v[q + 1];
  return t.value();
}

#endif
