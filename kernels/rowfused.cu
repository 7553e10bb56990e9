/* rowfused.cu: the FUSED variant of every row op (row_sum, softmax,
 * softmax_bwd, rmsnorm, rmsnorm_bwd): one pass over device memory.
 *
 * Each row is read once into on-chip storage, reduced, and written from
 * there, so an op moves exactly its fewest bytes (inputs read once, outputs
 * written once). A row is held by a group of threads:
 *  - a half-warp or a warp (GT = 16 or 32) for short rows, several rows per
 *    block (the groups of one warp leave the row loop together);
 *  - a whole block (GT = NT) for medium rows;
 *  - a thread-block cluster of CL blocks for wide rows: each block holds a
 *    contiguous chunk of the row and the blocks combine their partial
 *    statistics through distributed shared memory (sm_90 and later).
 * Every thread holds S = NR + NS 16-byte slots per input: NR in registers,
 * NS in its own cells of dynamic shared memory (filled with cp.async). Slot j
 * of group thread t covers elements c0 + (j*GT + t)*VEC .. +VEC, so each load
 * of a group is GT * 16 contiguous bytes. Elements past the row end read as the
 * op's neutral value (0, or -inf for softmax) and are never written.
 *
 * The configuration (NT, GT, NR, NS, CL) is the smallest of a fixed list that
 * holds the row (fused_plan): a pure function of (op, dtype, cols), so the
 * reduction order, hence the bits, never depends on the device. Reductions:
 * per-thread compensated sums (csum, common.cuh), a butterfly over the
 * group's lanes, the warps
 * of a block in warp order, the blocks of a cluster in rank order; every
 * thread of a row group ends with the same bits.
 *
 * Wide-row clusters of softmax, softmax_bwd and row_sum (fused_pf) run as a
 * persistent grid and load their next row while writing this one.
 *
 * The wide path (wide_k, v9) takes the rows of its own table (kWide: some
 * 2^17-2^26-wide rows, rmsnorm_bwd's fp32 rows of 16385-32768) where the
 * H200 ran it faster: it holds nothing of a row on chip but reads it twice,
 * the second time from the L2, with a persistent grid of clusters sized so
 * the rows in flight stay in the L2; device memory still sees each input
 * read once and each output written once while they do.
 *
 * The grid path (grid_k, v10; v11) takes the rows of kGrid (rmsnorm and
 * rmsnorm_bwd from 2^17 columns, fp32 softmax_bwd and softmax from 2^18)
 * where the H200 ran it faster: a cooperative grid of 132 blocks, block b
 * holding the 1/132 column chunk b of a few rows at a time in shared
 * memory, the rows' partial statistics exchanged through the workspace, so
 * each row is read once with the whole GPU holding it, and rmsnorm_bwd's dw
 * needs no partial rows (a block owns its columns in every row).
 *
 * rmsnorm_bwd's dw (a column sum over rows) is accumulated in registers by
 * persistent row groups: each cluster walks rows g, g + G, ... and writes one
 * fp32 partial row of dw into the workspace; a second kernel adds the G
 * partials in order. G is a pure function of the shape (fused_groups). Its
 * w is converted once per block to fp32 in shared memory (a group's threads
 * cover the same columns in every row), and each thread sums its row terms
 * by fma pairs and pairwise over its slots, with one compensated addition
 * per row: the kernel is bound by its instruction issue (docs/PERFORMANCE.md,
 * v6b).
 *
 * softmax takes exp as ex2.approx(d * log2 e) of the exactly-subtracted
 * d = x - M (one MUFU op per element; relative error ~|d| * 2^-24, far
 * inside the fp32 tolerance for every value that is not negligible), once
 * per element, and the row max with max.NaN (a NaN or +inf poisons the row).
 * docs/PERFORMANCE.md has the H200 runs behind the configuration list and
 * what bounds the shapes that miss the copy ceiling.
 */
#include <cooperative_groups.h>

#include <type_traits>

#include "common.cuh"
#include "mbar.cuh"
#include "rowslot.cuh"

namespace cg = cooperative_groups;

/* Clusters and distributed shared memory exist from sm_90 on; the portable
 * PTX (compute_80) keeps the CL == 1 configurations and traps in the others,
 * which cpk_variant_available never offers below compute capability 9.0. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CPK_CLUSTERS 1
#else
#define CPK_CLUSTERS 0
#endif

namespace {

using namespace cpk__;

enum { F_ROWSUM = 0, F_SOFTMAX, F_SMBWD, F_RMS, F_RMSBWD };

__host__ __device__ constexpr int op_inputs(int op) {
  return (op == F_SMBWD || op == F_RMSBWD) ? 2 : 1;
}

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
struct fparams {
  const void *in0; /* x (row_sum, softmax, rmsnorm) or dy (the backwards) */
  const void *in1; /* y (softmax_bwd) or x (rmsnorm_bwd); else null */
  const void *w;   /* rmsnorm weight */
  void *out;       /* y, dx; row_sum: y[rows] */
  void *dw;        /* rmsnorm_bwd: dw[cols] */
  const uint8_t *mask;
  int64_t mstride;
  float *dwpart; /* rmsnorm_bwd: [groups][cols] */
  float eps;
  int64_t rows, cols, stride;
  int64_t chunk; /* columns per cluster rank, multiple of 8 */
  int vec;       /* rows and w 16-byte aligned: vector loads and stores */
  int wsm;       /* wide_k, rmsnorm: w's chunk in shared memory */
};

/* Cache hints of the row loads and stores, per op. The ops that write
 * (softmax, softmax_bwd, rmsnorm, rmsnorm_bwd) load through the read-only
 * path (ld.global.nc, as the copy kernel's): loaded with ld.global.cs (evict
 * first), as the v3/v4 kernels did, the write-heavy fp32 ops lost 5-10 %
 * under the benchmark's cold protocol, whose flush leaves the L2 full of
 * dirty lines (softmax_backward fp32 0.90 -> 1.00 of the copy ceiling with
 * .nc, H200). row_sum, which only reads, went the other way (16-bit 0.85 ->
 * 0.75 with .nc): its evict-first lines leave those dirty lines in place
 * instead of paying their write-back, so row_sum keeps .cs, and (v7) its
 * shared-memory slots' cp.async loads carry an evict-first L2 policy too
 * (docs/PERFORMANCE.md, v4c, v4d, v7). Stores, per op (v7, v8): plain for
 * softmax, rmsnorm_bwd, and rmsnorm's configurations of at most 4
 * shared-memory slots; streaming (st.global.cs) for softmax_bwd and
 * rmsnorm's wider configurations (the H200 side by side: plain stores +1-5
 * % on softmax bf16 and rmsnorm fp32 up to 8192 columns, +3 % on rmsnorm
 * 16-bit at 2048x32768 (4 + 4 slots), -20 % on rmsnorm fp32 there (4 + 12
 * slots), neutral on softmax_bwd); since v43 rmsnorm's configurations of
 * up to 12 shared-memory slots store plainly too (st_cs). */

/* Blocks per SM an rmsnorm_bwd configuration (mb in the table) is built
 * for. Its 256-thread 4-slot configurations run two blocks per SM (the
 * grid of fused_groups): the warp one, built for one, took 149 registers
 * with v6b's w in shared memory, one block per SM, and lost 21 % on
 * 1024-wide 16-bit rows (docs/PERFORMANCE.md). The 2-slot ones (27) are
 * built for 1024 threads an SM. (v5b's and v31a's dw accumulators in
 * shared memory, for 768 threads an SM, were not taken.) */
__host__ __device__ constexpr int rmsbwd_mb(int nt, int nr, int mb) {
  return nr == 2 ? 1024 / nt : ((nt == 256 && nr == 4 && mb < 2) ? 2 : mb);
}

/* 16-bit rmsnorm's 256-thread configuration (rows of 4097-8192 columns,
 * v33b): it loads w's slots with the row as well (v32b, rms_wreg) and is
 * built for 4 blocks per SM, at most 64 registers (64 bf16, 61 fp16, no
 * spills), so that it keeps the 4 blocks an SM that v32b's 80 registers
 * had taken to 3 (H200, bounds/v33-2026-12-02T1143: bf16 and fp16
 * 8192x8192 1.004-1.019x, 0.897-0.905 -> 0.907-0.917 of the copy
 * ceiling). For fused_mb and rms_wreg both. */
__host__ __device__ constexpr bool rms_wreg5(int op, int es, int nt, int gt,
                                             int nr, int ns) {
  return op == F_RMS && es == 2 && nt == 256 && gt == 256 && nr == 4 && ns == 0;
}
/* Blocks per SM a configuration (nt threads of group size gt, nr register
 * and ns shared-memory slots, mb in the table) is built for, for op (not
 * rmsnorm_bwd: rmsbwd_mb) at es bytes per element: the table's, except
 * - (v8) softmax's 128-thread 4-slot configuration, built for 7 blocks per
 *   SM (69 registers; built for the table's 4, fp16 took 74 and ran 6
 *   blocks per SM: 0.87 of the copy ceiling at 16384x4096 against 0.91;
 *   docs/PERFORMANCE.md, v7b and v8);
 * - (v12) softmax's 256-thread 4-slot configuration 5, built for 4 blocks
 *   per SM (64 registers; 4 or 8 bytes of spill): with 16-bit softmax of
 *   4097-8192 columns moved onto it (fused_plan), 0.86-0.87 -> 0.90 of the
 *   copy ceiling, against 0.82 built for the table's 2;
 * - rms_wreg5's, built for 4 (v33b). */
__host__ __device__ constexpr int fused_mb(int op, int es, int nt, int gt,
                                           int nr, int ns, int mb) {
  return (op == F_SOFTMAX && nt == 128 && nr == 4) ? 7
         : (op == F_SOFTMAX && nt == 256 && gt == 256 && nr == 4 && ns == 0) ||
                 rms_wreg5(op, es, nt, gt, nr, ns)
             ? 4
             : mb;
}

/* rmsnorm (v8): in the configurations with shared-memory slots (up to 12),
 * w's slots are copied into shared memory by cp.async before the first row
 * is loaded, so the write loop reads them there instead of loading each
 * slot's w from the L2 after the row's reduction (H200: +7-10 % at 32768
 * columns, +5-7 % for 16-bit at 2^18). */
__host__ __device__ constexpr bool rms_wsm(int op, int ns) {
  return op == F_RMS && ns > 0 && ns <= 12;
}
/* rmsnorm (v32b): in register-only configurations (rows of up to 8192
 * columns) w's slots are loaded into registers with the row's own loads,
 * before the reduction (4 registers a slot), so that the write loop waits
 * on no L2 round trip for them (H200, bounds/v32-2026-12-02T0734: 16-bit
 * 1024 and 4096 columns +1-1.6 %, fp32 1024-8192 +1-1.5 %). Whether
 * rmsnorm's configuration does: the register-only ones of fp32; of 16-bit,
 * the warp-per-row one of 4 slots (1024 columns), the 128-thread one
 * (4096) and, since v33b (rms_wreg5, which also builds it for 4 blocks per
 * SM), the 256-thread one (8192 columns: v32b alone took it from 60 to 80
 * registers and its SM from 4 blocks to 3, -2.5 % on the H200). Not the
 * 16-bit 8-slot warp one and 512-thread one, where the registers would
 * leave one block per SM (94 -> 150, 60 -> 80 registers; not measured).
 * (v32a, these configurations' w copied into shared memory instead, lost
 * 3-36 %: its code is the patch there.) */
__host__ __device__ constexpr bool rms_wreg(int op, int es, int nt, int gt,
                                            int nr, int ns) {
  return op == F_RMS && ns == 0 &&
         (es == 4 || (nt == 256 && gt == 32 && nr == 4) ||
          (nt == 128 && gt == 128 && nr == 4) ||
          rms_wreg5(op, es, nt, gt, nr, ns));
}

/* Whether an op's row loads are evict-first (.cs) rather than read-only. */
__host__ __device__ constexpr bool ld_cs(int op) {
  return op == F_ROWSUM;
}

/* Whether an op's row stores stream (.cs) rather than plain; ns: the
 * configuration's shared-memory slots. rmsnorm's are plain in the
 * configurations of at most 12 (v42b, with w in shared memory since v8b:
 * fp32 2048x32768 1.024x, docs/PERFORMANCE.md; the default since v43;
 * v8's limit of 4 came from v4b's kernels, which read w from the L2 in the
 * write loop). */
__host__ __device__ constexpr bool st_cs(int op, int ns) {
  return !(op == F_SOFTMAX || op == F_RMSBWD || (op == F_RMS && ns <= 12));
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

/* ---- the kernel ---- */

/* Whether a configuration prefetches the group's next row and runs as a
 * persistent grid: wide-row clusters (4 blocks and more) of the ops whose
 * H200 runs gained from it (docs/PERFORMANCE.md, v4: softmax and
 * softmax_backward at 2^18 columns +5-20 %, fp32 row_sum +4 %). Blocks and
 * small clusters lost 3-12 % (one row per SM at a time then waits less than
 * a grid of fresh blocks does), rmsnorm at 2^18 lost 2-6 %, rmsnorm_backward
 * (persistent already, for dw) lost 5-20 %. */
__host__ __device__ constexpr bool fused_pf(int op, int nt, int gt, int cl) {
  return gt == nt && cl >= 4 &&
         (op == F_SOFTMAX || op == F_SMBWD || op == F_ROWSUM);
}

/* Whether a configuration's cluster stage pushes (cluster_merge_push):
 * rmsnorm_bwd's clusters only, the persistent ones, whose reductions wait
 * at the barrier's release for the previous row's stores (v34b). Where a
 * cluster takes one row (softmax_bwd fp32 of 16385-32768 columns,
 * configuration 11) the push lost 8.5 % (0.969 -> 0.883 of the copy
 * ceiling, v35): its start barrier, which the inboxes' mbarriers need,
 * comes before the row's loads; the persistent clusters of fused_pf are
 * not measured with it. */
__host__ __device__ constexpr bool fused_push(int op, int cl) {
  return CPK_CLUSTERS && cl > 1 && op == F_RMSBWD;
}

/* Whether a configuration of elements of es bytes stages the group's next
 * row in shared memory (v14a, v36a): the block loads its first row by
 * cp.async, and at the top of every row each thread copies its own cells
 * into its register slots and issues the cp.async loads of the group's
 * next row into them, so that a row's loads are in flight during the
 * whole of the previous row's two passes, reduction and writes instead of
 * starting after its last store (shared memory: NI x S x NT 16-byte cells
 * a block more). Only fp32 rmsnorm_bwd's rows of 4097-8192 columns
 * (configuration 6: 512 threads of 4 register slots, a block a row, one
 * block an SM), the one configuration where it won in both leases that
 * measured it: 8192x8192 0.867 -> 0.890 of the copy ceiling (v14a,
 * bounds/stage-2026-11-30T1302) and 0.873 -> 0.897 (v35,
 * bounds/v35-2026-12-02T1634), where the 16-bit rows lost up to 5 %, and
 * the other ops' staged configurations, run as a persistent grid of the
 * resident blocks, lost 5-9 % (v13a). The bits are the same either way. */
__host__ __device__ constexpr bool stage_on(int op, int es, int nt, int gt,
                                            int nr, int ns, int cl) {
  return op == F_RMSBWD && es == 4 && nt == 512 && gt == 512 && nr == 4 &&
         ns == 0 && cl == 1 && !fused_pf(op, nt, gt, cl);
}

template <typename T, int OP, int NT, int GT, int NR, int NS, int CL, int MB>
__global__ void __launch_bounds__(NT, MB) fused_k(const fparams p) {
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = op_inputs(OP);
  constexpr int S = NR + NS;
  constexpr int GPC = NT / GT;
  constexpr bool PUSH = fused_push(OP, CL);
  /* [NI][NS][NT] slots, or the stage's cells; then rmsnorm_bwd's w, then
   * dw (warp mode). */
  extern __shared__ uint4 dsm[];
  __shared__ redscratch rs;

  const int tid = threadIdx.x;
  const int gt = GT == NT ? tid : (tid & (GT - 1));
  const int gi = GT == NT ? 0 : tid / GT;
  int rank = 0;
  if constexpr (CL > 1) {
#if CPK_CLUSTERS
    rank = (int)cg::this_cluster().block_rank();
    if constexpr (PUSH) {
      push_init();
      cg::this_cluster().sync();
    }
#else
    __trap();
#endif
  }
  const int64_t clus = (int64_t)blockIdx.x / CL;
  const int64_t ngrp = (int64_t)(gridDim.x / CL) * GPC;
  /* Column offsets inside a row fit in int: FUSED rows are at most a few
   * million elements (fused_plan), and 32-bit index math keeps registers for
   * the data. */
  const int c0 = (int)((int64_t)rank * p.chunk);
  const int c1 = (int)(c0 + p.chunk < p.cols ? c0 + p.chunk : p.cols);
  const bool vec = p.vec != 0;
  const float fill = OP == F_SOFTMAX ? -CUDART_INF_F : 0.f;
  /* the block stage of the reductions over log2(NT / 32) levels (v15a,
   * group_reduce's NWL): register-slot configurations only */
  constexpr bool RNW = NS == 0;
  constexpr bool LDCS = ld_cs(OP);    /* the row loads' cache hint */
  constexpr bool SCS = st_cs(OP, NS); /* the row stores' */
  const T *in0 = static_cast<const T *>(p.in0);
  const T *in1 = static_cast<const T *>(p.in1);
  const T *w = static_cast<const T *>(p.w);
  T *out = static_cast<T *>(p.out);
  int rb = 0;

  uint4 q[NI][NR];
  float dwacc[OP == F_RMSBWD ? S * VEC : 1];
  /* The stage (stage_on): the next row's cells [NI][S][NT] where the
   * shared-memory slots would be (these configurations have none), loaded
   * by stage_row (not a lambda here, which alters the code of the kernels
   * that do not stage), so that the other kernels' code stays the measured
   * one */
  constexpr bool STG = stage_on(OP, (int)sizeof(T), NT, GT, NR, NS, CL);
  uint4 *stg = dsm + NI * NS * NT;
  static_assert(!STG || GT >= 32, "the stage takes one row per group");
  if constexpr (STG) { /* the group's first row (HW is 1 here) */
    const int64_t r0 = clus * GPC + gi;
    stage_row<T, LDCS, NI, S, NT, GT>(
        stg, in0, in1, r0 * p.stride, c0, gt, r0 < p.rows ? c1 : c0, vec,
        (OP == F_SOFTMAX && p.mask != nullptr) ? p.mask + r0 * p.mstride
                                               : nullptr,
        fill, tid);
  }
  if constexpr (OP == F_RMSBWD) {
#pragma unroll
    for (int k = 0; k < S * VEC; ++k)
      dwacc[k] = 0.f;
  }

  /* rmsnorm_bwd's w, fp32 in shared memory after the slots or the stage: a
   * persistent group's threads cover the same columns in every row, so w is
   * read and converted once per block ([VEC/4][GT*S] float4: slot j of
   * group thread t at j*GT + t). */
  constexpr int RV = GT * S;
  float4 *wsm =
      reinterpret_cast<float4 *>(dsm + NI * (NS + (STG ? S : 0)) * NT);
  if constexpr (OP == F_RMSBWD) {
    for (int v = tid; v < RV; v += NT) {
      float ww[VEC];
      load_w<T>(w, c0 + v * VEC, c1, vec, ww);
#pragma unroll
      for (int q4 = 0; q4 < VEC / 4; ++q4)
        wsm[q4 * RV + v] = make_float4(ww[4 * q4], ww[4 * q4 + 1],
                                       ww[4 * q4 + 2], ww[4 * q4 + 3]);
    }
    __syncthreads();
  }
  auto wslot = [&](int j, float(&ww)[VEC]) {
#pragma unroll
    for (int q4 = 0; q4 < VEC / 4; ++q4) {
      const float4 f = wsm[q4 * RV + j * GT + gt];
      ww[4 * q4] = f.x;
      ww[4 * q4 + 1] = f.y;
      ww[4 * q4 + 2] = f.z;
      ww[4 * q4 + 3] = f.w;
    }
  };
  (void)wslot;

#define SLOT_E(j) (c0 + ((j)*GT + gt) * VEC)
#define SLOT(i, j)                                                             \
  ((j) < NR ? q[i][(j) < NR ? (j) : 0] : dsm[((i)*NS + ((j)-NR)) * NT + tid])
  /* Issues the load of slot j of input i for the row at offset ROFF (valid
   * columns up to CE): shared-memory slots by cp.async where the slot is a
   * whole aligned vector, register slots by a plain load (in flight until
   * the first use). */
#define ISSUE(i, j, ROFF, CE, MROW)                                            \
  do {                                                                         \
    const int e_ = SLOT_E(j);                                                  \
    const T *src_ = ((i) == 0 ? in0 : in1) + (ROFF);                           \
    const uint8_t *m_ = (i) == 0 ? (MROW) : nullptr;                           \
    if ((j) >= NR) {                                                           \
      fill_cell<T, LDCS, LDCS>(                                                \
          &dsm[((i)*NS + ((j) >= NR ? (j)-NR : 0)) * NT + tid], src_, e_,      \
          (CE), vec, m_, fill);                                                \
    } else {                                                                   \
      q[i][(j) < NR ? (j) : 0] =                                               \
          load_slot<T, LDCS>(src_, e_, (CE), vec, m_, fill);                   \
    }                                                                          \
  } while (0)
  /* Prefetch (fused_pf): slot j of the group's next row is loaded as soon
   * as slot j of this row is used for the last time, so the loads of row
   * r + G overlap the write (row_sum: the reduction) of row r. The host makes
   * such grids persistent (as many clusters as are resident). */
  constexpr bool PF = fused_pf(OP, NT, GT, CL);
#define PREFETCH(i, j)                                                         \
  do {                                                                         \
    if constexpr (PF) {                                                        \
      if (rn < p.rows)                                                         \
        ISSUE(i, j, ron, c1, mrn);                                             \
    }                                                                          \
  } while (0)

  /* rmsnorm's w slots in shared memory after the row slots (rms_wsm:
   * [S][NT], raw T; the columns of a thread's slots are the same in every
   * row), copied once per block; the first row's cp.async wait covers
   * them, and each thread reads only its own cells. */
  constexpr bool WSM = rms_wsm(OP, NS);
  uint4 *wraw = dsm + NI * NS * NT;
  (void)wraw;
  if constexpr (WSM) {
#pragma unroll
    for (int j = 0; j < S; ++j) {
      const int e = SLOT_E(j);
      uint4 *dst = &wraw[j * NT + tid];
      if (c1 - e >= VEC && vec) {
        cp_async16<false>(dst, w + e);
      } else {
        float ww[VEC];
        load_w<T>(w, e, c1, vec, ww);
        *dst = pack_t<T>(ww);
      }
    }
  }

  /* The groups of one warp take consecutive rows and leave the loop
   * together (their shuffles need every lane); a group past the last row
   * runs on empty columns (ce = c0): it loads and stores nothing. */
  constexpr int HW = GT < 32 ? 32 / GT : 1;
  bool first = true;
  for (int64_t rw = clus * GPC + (gi / HW) * HW; rw < p.rows; rw += ngrp) {
    const int64_t r = rw + gi % HW;
    const int ce = r < p.rows ? c1 : c0;
    const int64_t ro = r * p.stride;
    const uint8_t *mrow = (OP == F_SOFTMAX && p.mask != nullptr)
                              ? p.mask + r * p.mstride
                              : nullptr;
    const int64_t rn = r + ngrp; /* this group's next row (PF) */
    const int64_t ron = rn * p.stride;
    const uint8_t *mrn = (OP == F_SOFTMAX && p.mask != nullptr)
                             ? p.mask + rn * p.mstride
                             : nullptr;
    (void)ron;
    (void)mrn;
    /* Load (unless prefetched): shared-memory slots by cp.async first (no
     * registers), then the register slots; every load is in flight before
     * the first use. */
    if constexpr (STG) {
      /* this row from the stage, then the next row into it */
      cp_async_wait_all();
#pragma unroll
      for (int i = 0; i < NI; ++i)
#pragma unroll
        for (int j = 0; j < NR; ++j)
          q[i][j] = stg[(i * S + j) * NT + tid];
      if (rn < p.rows)
        stage_row<T, LDCS, NI, S, NT, GT>(stg, in0, in1, ron, c0, gt, c1, vec,
                                          mrn, fill, tid);
    } else if (!PF || first) {
#pragma unroll
      for (int i = 0; i < NI; ++i) {
#pragma unroll
        for (int j = NR; j < S; ++j)
          ISSUE(i, j, ro, ce, mrow);
#pragma unroll
        for (int j = 0; j < NR; ++j)
          ISSUE(i, j, ro, ce, mrow);
      }
    }
    first = false;
    if constexpr (NS > 0)
      cp_async_wait_all();
    /* rmsnorm's w slots in flight with the row's (v32b, rms_wreg) */
    constexpr bool WREG = rms_wreg(OP, sizeof(T), NT, GT, NR, NS);
    uint4 wq[WREG ? S : 1];
    if constexpr (WREG) {
#pragma unroll
      for (int j = 0; j < S; ++j)
        wq[j] = load_slot<T, false>(w, SLOT_E(j), ce, vec, nullptr, 0.f);
    }
    (void)wq;

    if constexpr (OP == F_ROWSUM) {
      csum a;
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float v[VEC];
        unpack<T>(SLOT(0, j), v);
        a.add(pair_sum(v));
        PREFETCH(0, j);
      }
      float red[4] = {a.s, a.c, 0.f, 0.f};
      group_reduce<false, 2, NT, GT, CL, RNW>(red, rs, rb);
      if (gt == 0 && rank == 0 && r < p.rows)
        st1(out + r, csv(red, 0));
    } else if constexpr (OP == F_SOFTMAX) {
      /* Max with NaN propagation (max.NaN): one instruction per element
       * (per pair in 16-bit), and a NaN or +inf anywhere poisons the row. */
      uint32_t macc = max_acc_init<T>();
#pragma unroll
      for (int j = 0; j < S; ++j)
        macc = max_acc_add<T>(macc, SLOT(0, j));
      const float m = max_acc_get<T>(macc);
      const float bad0 = (m != m || m == CUDART_INF_F) ? 1.f : 0.f;
      float red[4] = {bad0 != 0.f ? -CUDART_INF_F : m, bad0, 0.f, 0.f};
      group_reduce<true, 2, NT, GT, CL, RNW>(red, rs, rb);
      /* mode: 0 normal, 1 all -inf (zeros), 2 poisoned (NaN) */
      const int mode = red[1] != 0.f ? 2 : (red[0] == -CUDART_INF_F ? 1 : 0);
      const float M = red[0];
      /* exp is computed once per element: fp32 slots take it in place;
       * 16-bit register slots (the first KE) keep it in fp32 registers, the
       * raw values being dead by then; the rest recompute it (keeping
       * those as fp16 in their slots instead took nothing off on the H200:
       * docs/PERFORMANCE.md, v8). */
      constexpr int KE = VEC == 8 ? (NR < 4 ? NR : 4) : 0;
      float ek[KE > 0 ? KE * VEC : 1];
      float inv = 0.f;
      {
        csum a;
        if (mode == 0) {
#pragma unroll
          for (int j = 0; j < S; ++j) {
            float v[VEC];
            unpack<T>(SLOT(0, j), v);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] = fexp(v[k] - M);
            a.add(pair_sum(v));
            if constexpr (VEC == 4) {
              SLOT(0, j) = pack(v);
            } else if (j < KE) {
#pragma unroll
              for (int k = 0; k < VEC; ++k)
                ek[(j < KE ? j : 0) * VEC + k] = v[k];
            }
          }
        }
        /* Every row takes both reductions, so the group stays in step. */
        float sred[4] = {a.s, a.c, 0.f, 0.f};
        group_reduce<false, 2, NT, GT, CL, RNW>(sred, rs, rb);
        inv = 1.f / csv(sred, 0);
      }
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float v[VEC];
        if (VEC == 8 && j < KE) {
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            v[k] = ek[(j < KE ? j : 0) * VEC + k];
        } else {
          unpack<T>(SLOT(0, j), v);
          if constexpr (VEC == 8) {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
              v[k] = fexp(v[k] - M);
          }
        }
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          v[k] = mode == 0 ? v[k] * inv : (mode == 1 ? 0.f : CUDART_NAN_F);
        store_slot<T, SCS>(out + ro, SLOT_E(j), ce, vec, v);
        PREFETCH(0, j);
      }
    } else if constexpr (OP == F_SMBWD) {
      csum a;
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float g[VEC], y[VEC];
        unpack<T>(SLOT(0, j), g);
        unpack<T>(SLOT(1, j), y);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          g[k] *= y[k];
        a.add(pair_sum(g));
      }
      float red[4] = {a.s, a.c, 0.f, 0.f};
      group_reduce<false, 2, NT, GT, CL, RNW>(red, rs, rb);
      const float dot = csv(red, 0);
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float g[VEC], y[VEC];
        unpack<T>(SLOT(0, j), g);
        unpack<T>(SLOT(1, j), y);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          g[k] = y[k] * (g[k] - dot);
        store_slot<T, SCS>(out + ro, SLOT_E(j), ce, vec, g);
        PREFETCH(0, j);
        PREFETCH(1, j);
      }
    } else if constexpr (OP == F_RMS) {
      csum a;
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float v[VEC];
        unpack<T>(SLOT(0, j), v);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          v[k] *= v[k];
        a.add(pair_sum(v));
      }
      float red[4] = {a.s, a.c, 0.f, 0.f};
      group_reduce<false, 2, NT, GT, CL, RNW>(red, rs, rb);
      const float rstd = rsqrtf(csv(red, 0) / (float)p.cols + p.eps);
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float v[VEC], ww[VEC];
        unpack<T>(SLOT(0, j), v);
        if constexpr (WSM)
          unpack<T>(wraw[j * NT + tid], ww);
        else if constexpr (WREG)
          unpack<T>(wq[j], ww);
        else
          load_w<T>(w, SLOT_E(j), ce, vec, ww);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          v[k] = v[k] * rstd * ww[k];
        store_slot<T, SCS>(out + ro, SLOT_E(j), ce, vec, v);
        PREFETCH(0, j);
      }
    } else { /* F_RMSBWD: in0 = dy, in1 = x */
      /* Per slot: the pairs' sums by fma, the slots' sums pairwise, one
       * compensated addition per row (v6b, docs/PERFORMANCE.md: the kernel
       * issues an instruction every other cycle, so every one counts). */
      float pt[S], pd[S];
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float g[VEC], x[VEC], ww[VEC];
        unpack<T>(SLOT(0, j), g);
        unpack<T>(SLOT(1, j), x);
        wslot(j, ww);
        const float2 r = rmsbwd_terms<VEC>(g, x, ww);
        pt[j] = r.x;
        pd[j] = r.y;
      }
      csum a, b;
      a.add(pair_sum(pt));
      b.add(pair_sum(pd));
      float red[4] = {a.s, a.c, b.s, b.c};
      group_reduce<false, 4, NT, GT, CL, RNW, PUSH>(red, rs, rb);
      const float rstd = rsqrtf(csv(red, 0) / (float)p.cols + p.eps);
      const float ncoef = -rb_coef(rstd, csv(red, 2), p.cols);
#pragma unroll
      for (int j = 0; j < S; ++j) {
        float g[VEC], x[VEC], ww[VEC], o[VEC];
        unpack<T>(SLOT(0, j), g);
        unpack<T>(SLOT(1, j), x);
        wslot(j, ww);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          o[k] = rb_dx(g[k], x[k], ww[k], rstd, ncoef, dwacc[j * VEC + k]);
        store_slot<T, SCS>(out + ro, SLOT_E(j), ce, vec, o);
      }
    }
  }

  if constexpr (OP == F_RMSBWD) {
    /* One fp32 partial row of dw per cluster: in warp mode the block's warps
     * are added in warp order through shared memory first. */
    float *dst = p.dwpart + clus * p.cols;
    /* accumulator k of slot j */
    auto dwv = [&](int j, int k) -> float { return dwacc[j * VEC + k]; };
    if constexpr (GPC > 1) {
      float *acc = reinterpret_cast<float *>(wsm + (VEC / 4) * RV);
      for (int g = 0; g < GPC; ++g) {
        if (gi == g) {
#pragma unroll
          for (int j = 0; j < S; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
              const int c = SLOT_E(j) + k;
              if (c < c1)
                acc[c] = g == 0 ? dwv(j, k) : acc[c] + dwv(j, k);
            }
        }
        __syncthreads();
      }
      for (int64_t c = tid; c < p.cols; c += NT)
        dst[c] = acc[c];
    } else {
      const bool al = dw_vec_ok(p.dwpart, p.cols);
#pragma unroll
      for (int j = 0; j < S; ++j) {
        /* a warp's lanes hold consecutive slots (GT >= 32 here) */
        if constexpr (VEC == 8) {
          if (__all_sync(0xffffffffu, al && SLOT_E(j) + VEC <= c1)) {
            st_dw_xch(dst, SLOT_E(j), [&](int k) { return dwv(j, k); });
            continue;
          }
        }
        st_dw<VEC>(dst, SLOT_E(j), c1, al, [&](int k) { return dwv(j, k); });
      }
    }
  }
#undef PREFETCH
#undef ISSUE
#undef SLOT
#undef SLOT_E
  if constexpr (CL > 1) {
#if CPK_CLUSTERS
    cg::this_cluster().sync(); /* no block leaves while others read it */
#endif
  }
}

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
  const int c0 = (int)((int64_t)rank * p.chunk);
  const int c1 = (int)(c0 + p.chunk < p.cols ? c0 + p.chunk : p.cols);
  const int nv = c1 > c0 ? (c1 - c0 + VEC - 1) / VEC : 0;
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
        for (int u = 0; u < U; ++u) {
          float v[VEC];
          unpack<T>(q[0][u], v);
          a.add(pair_sum(v));
        }
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
            for (int u = 0; u < U; ++u) {
              float v[VEC];
              unpack<T>(q[0][u], v);
#pragma unroll
              for (int k = 0; k < VEC; ++k)
                v[k] = fexp(v[k] - m);
              a.add(pair_sum(v));
            }
          }
        }
      } else if constexpr (OP == F_SMBWD) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float g[VEC], y[VEC];
          unpack<T>(q[0][u], g);
          unpack<T>(q[1][u], y);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            g[k] *= y[k];
          a.add(pair_sum(g));
        }
      } else if constexpr (OP == F_RMS) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float v[VEC];
          unpack<T>(q[0][u], v);
#pragma unroll
          for (int k = 0; k < VEC; ++k)
            v[k] *= v[k];
          a.add(pair_sum(v));
        }
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
  const int c0 = (int)((int64_t)blk * p.chunk);
  const int c1 = (int)(c0 + p.chunk < p.cols ? c0 + p.chunk : p.cols);
  const int nvc = c1 > c0 ? (c1 - c0 + VEC - 1) / VEC : 0;
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
              if (j * NT + tid < nvc) {
                float v[VEC];
                unpack<T>(cell(s, i, 0, j), v);
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                  v[k] = fexp(v[k] - m);
                t.add(pair_sum(v));
              }
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
              float v[VEC];
              unpack<T>(cell(s, i, 0, j), v);
              if constexpr (OP == F_SMBWD) {
                float y[VEC];
                unpack<T>(cell(s, i, 1, j), y);
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                  v[k] *= y[k];
              } else if constexpr (OP == F_RMS) {
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                  v[k] *= v[k];
              }
              t.add(pair_sum(v));
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
#pragma unroll
        for (int q = 0; q < RPW; ++q) {
          const uint32_t tg = gtag(ep, pb * B + wid + q * NW);
#pragma unroll
          for (int u = 0; u < KP; ++u)
#pragma unroll
            for (int w = 0; w < NWD; ++w)
              all = all && (uint32_t)(f[q][u][w] >> 32) == tg;
        }
        if (__all_sync(0xffffffffu, all))
          break;
        if (++spins > (1u << 24))
          __trap(); /* a block that never published: not a hang */
#if CPK_GRID_PROF
        ++gspins;
#endif
        __nanosleep(20);
#pragma unroll
        for (int q = 0; q < RPW; ++q) {
          const uint32_t tg = gtag(ep, pb * B + wid + q * NW);
#pragma unroll
          for (int u = 0; u < KP; ++u)
#pragma unroll
            for (int w = 0; w < NWD; ++w)
              if ((uint32_t)(f[q][u][w] >> 32) != tg)
                f[q][u][w] = ld_relaxed(gword(pb, q, u, w));
        }
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

/* ---- plans ---- */

/* The fixed list, smallest capacity first (24, 27, 28: taken only where
 * fused_plan moves a row to them; 25 and 26 take no op). Every config
 * holds cl*gt*(nr+ns) 16-byte slots per input per row. `ops`: which ops may use
 * it (bit per F_ op): rmsnorm_bwd keeps S*VEC dw accumulators per thread in
 * registers, so it takes register-only configs; configs with many
 * shared-memory slots take one input only. Where two configs of one capacity
 * exist, the H200 runs of docs/PERFORMANCE.md chose between them per op:
 * softmax, with its exp kept in registers, wants more bytes in flight per
 * thread (16-lane groups of 8 slots for 1024-wide 16-bit rows: 0.84 of the
 * copy ceiling against 0.73 with 32 lanes of 4; 256 threads of 8+8 slots
 * for 4096 slots: 0.81 against 0.65 on 512 threads of 4+4), rmsnorm does not
 * (0.835 against 0.86 with 16 lanes), row_sum is indifferent (+-1.5%).
 * Since v9 16-bit softmax rows of 16385-32768 slots (2^18 columns) take the
 * 256-thread configuration 15, two blocks per SM, instead of its 512-thread
 * twin 14 (fused_plan; v8f: 0.57 -> 0.61-0.62 of the copy ceiling; the
 * 256-thread clusters for fp32 softmax and for rmsnorm were a loss).
 * 24 (v12): 16-bit softmax up to 1024 columns on 128 threads, a warp per
 * row, 4 slots a thread, 7 blocks per SM (the shape of configuration 3,
 * 0.92 at 4096 columns), instead of 0 (16-lane groups of 8 slots, 111
 * registers, 2 blocks of 256 per SM): 0.87 -> 0.92-0.93 (row_sum there:
 * 0.85 -> 0.84, not taken). 25 and 26 (v12, not taken): 16-bit
 * rmsnorm_bwd at 2049-8192 columns on 2 slots a thread, 0.75-0.79 ->
 * 0.72-0.77; their rows keep the numbers docs/PERFORMANCE.md uses for the
 * configurations after them.
 * 27: rmsnorm_bwd's fp32 rows of 513-1024 columns (v29b), a block of 128
 * threads of 2 slots a row built for 8 blocks per SM (1056 row groups),
 * instead of 2, a warp a row of 8 slots in one 256-thread block per SM
 * (167 registers, 8 warps per SM): fp32 65536x1024 0.857-0.861 ->
 * 0.907-0.908 of the copy ceiling side by side on the H200
 * (bounds/rb128-2026-12-02T0418); and row_sum's (v30c; 27's row_sum kernel
 * takes 30 registers): 0.908-0.918 -> 0.940-0.941
 * (bounds/v30-2026-12-02T0550).
 * 28: rmsnorm_bwd's 16-bit rows of 513-1024 columns (v44b, the default
 * since v45), four 128-thread blocks an SM of 4 warp groups each (528
 * blocks, 2112 groups), instead of configuration 1's two 256-thread blocks
 * of 8 (264 blocks, the same groups and warps an SM): the same code a
 * warp, registers and instructions, but 9.2 cycles between a warp's
 * instructions against 9.9 (and 11.0 with one 512-thread block of 16), so
 * 16-bit 65536x1024 1.035-1.040x (0.80 -> 0.83 of the copy ceiling) side
 * by side on the H200, with twice the dw partial rows
 * (bounds/v44b-2026-12-03T1834). */
#define FCFGS(X)                                                               \
  X(0, 256, 16, 8, 0, 1, 1, 0x03)                                              \
  X(1, 256, 32, 4, 0, 1, 1, 0x1f)                                              \
  X(2, 256, 32, 8, 0, 1, 1, 0x1f)                                              \
  X(3, 128, 128, 4, 0, 1, 4, 0x1f)                                             \
  X(4, 128, 128, 8, 0, 1, 4, 0x02)                                             \
  X(5, 256, 256, 4, 0, 1, 2, 0x1f)                                             \
  X(6, 512, 512, 4, 0, 1, 1, 0x1f)                                             \
  X(7, 512, 512, 4, 4, 1, 1, 0x09)                                             \
  X(8, 256, 256, 8, 8, 1, 2, 0x02)                                             \
  X(9, 256, 256, 4, 12, 1, 2, 0x04)                                            \
  X(10, 512, 512, 4, 12, 1, 1, 0x0b)                                           \
  X(11, 256, 256, 4, 12, 2, 2, 0x04)                                           \
  X(12, 512, 512, 4, 12, 2, 1, 0x0b)                                           \
  X(13, 256, 256, 4, 12, 4, 2, 0x04)                                           \
  X(14, 512, 512, 4, 12, 4, 1, 0x0b)                                           \
  X(15, 256, 256, 4, 12, 8, 2, 0x06)                                           \
  X(16, 512, 512, 4, 12, 8, 1, 0x0b)                                           \
  X(17, 256, 256, 4, 12, 16, 2, 0x04)                                          \
  X(18, 512, 512, 4, 12, 16, 1, 0x0f)                                          \
  X(19, 512, 512, 4, 28, 16, 1, 0x0b)                                          \
  X(20, 512, 512, 4, 0, 2, 1, 0x10)                                            \
  X(21, 512, 512, 4, 0, 4, 1, 0x10)                                            \
  X(22, 512, 512, 4, 0, 8, 1, 0x10)                                            \
  X(23, 512, 512, 4, 0, 16, 1, 0x10)                                           \
  X(24, 128, 32, 4, 0, 1, 7, 0x02)                                             \
  X(25, 256, 256, 2, 0, 1, 4, 0)                                               \
  X(26, 512, 512, 2, 0, 1, 2, 0)                                               \
  X(27, 128, 128, 2, 0, 1, 8, 0x11)                                            \
  X(28, 128, 32, 4, 0, 1, 4, 0x10)

struct fcfg {
  int nt, gt, nr, ns, cl, mb, ops;
};

#define FCFG_ROW(i, a, b, c, d, e, m, f) {a, b, c, d, e, m, f},
constexpr fcfg kCfg[] = {FCFGS(FCFG_ROW)};
#undef FCFG_ROW
constexpr int kNCfg = (int)(sizeof(kCfg) / sizeof(kCfg[0]));

/* fused_plan returns a position in kCfg and launch_op switches on the first
 * column: they must be the same numbers. */
#define FCFG_IDX(i, a, b, c, d, e, m, f) i,
constexpr int kCfgIdx[] = {FCFGS(FCFG_IDX)};
#undef FCFG_IDX
constexpr bool cfg_idx_ok() {
  for (int i = 0; i < kNCfg; ++i)
    if (kCfgIdx[i] != i)
      return false;
  return true;
}
static_assert(cfg_idx_ok(), "FCFGS labels must be 0, 1, 2, ... in order");
constexpr int cfg_slots(int i) {
  return kCfg[i].cl * kCfg[i].gt * (kCfg[i].nr + kCfg[i].ns);
}
static_assert(cfg_slots(14) == cfg_slots(15) && kCfg[15].nt == 256,
              "fused_plan moves 16-bit softmax from 14 to its 256-thread "
              "twin 15");

int fop_of(cpk_op op) {
  switch (op) {
  case CPK_OP_ROW_SUM:
    return F_ROWSUM;
  case CPK_OP_SOFTMAX:
    return F_SOFTMAX;
  case CPK_OP_SOFTMAX_BWD:
    return F_SMBWD;
  case CPK_OP_RMSNORM:
    return F_RMS;
  case CPK_OP_RMSNORM_BWD:
    return F_RMSBWD;
  default:
    return -1;
  }
}

/* The rows fused_plan moves from the list's pick to a twin of the same
 * capacity built another way, where the twin has the op's bit: the
 * configuration the capacity order picks, whether the rows are fp32 (1)
 * or 16-bit (0), and the twin. */
struct fmove {
  int from, f32, to;
};
constexpr fmove kMoves[] = {
    {0, 0, 24}, /* v12: 16-bit softmax of 0 */
    {1, 0, 28}, /* v44b: 16-bit rmsnorm_bwd of 1 */
    {2, 1, 27}, /* v29b, v30c: rmsnorm_bwd's and row_sum's fp32 rows of 2
                 * (513-1024 columns) */
};
constexpr bool moves_ok() {
  for (const fmove &m : kMoves)
    if (m.from < 0 || m.from >= kNCfg || m.to < 0 || m.to >= kNCfg ||
        cfg_slots(m.to) < cfg_slots(m.from))
      return false;
  return true;
}
static_assert(moves_ok(), "a moved row must fit its twin as it fit the pick");

/* Index into kCfg of the config for (op, dtype, cols), or -1 when no config
 * holds the row. */
int fused_plan(int fop, cpk_dtype dt, int64_t cols) {
  if (fop < 0 || !dt_ok(dt) || cols < 1)
    return -1;
  const int vecw = dt == CPK_F32 ? 4 : 8;
  const int64_t nvec = (cols + vecw - 1) / vecw;
  for (int i = 0; i < kNCfg; ++i) {
    const fcfg &c = kCfg[i];
    /* v9: 16-bit softmax passes 14 for its twin 15. */
    if (i == 14 && fop == F_SOFTMAX && dt != CPK_F32)
      continue;
    /* v12: 16-bit softmax passes 4 (128 threads of 8 slots, 122 registers,
     * 4 blocks per SM) for 5 (256 threads of 4 slots, built for 4 blocks
     * per SM, fused_mb): 0.86 -> 0.90 of the copy ceiling at 4097-8192
     * columns. */
    if (i == 4 && fop == F_SOFTMAX && dt != CPK_F32)
      continue;
    if ((c.ops >> fop & 1) && cfg_slots(i) >= nvec) {
      for (const fmove &m : kMoves)
        if (m.from == i && m.f32 == (dt == CPK_F32) &&
            (kCfg[m.to].ops >> fop & 1))
          return m.to;
      return i;
    }
  }
  return -1;
}

/* Columns per cluster rank: an equal share, rounded up to whole vectors of
 * 8 elements so every rank's chunk starts 16-byte aligned. */
int64_t fused_chunk(int64_t cols, int cl) {
  int64_t c = (cols + cl - 1) / cl;
  return (c + 7) / 8 * 8;
}

/* Row groups (clusters) of the persistent rmsnorm_bwd grid, a constant per
 * configuration (so the dw bits depend on the shape only) and no more than
 * there are row groups: as many blocks as the configuration is built to
 * run at once on a 132-SM H200 (rmsbwd_mb: 512 threads per SM, 1024 for
 * the 2-slot ones): one wave. Fewer groups mean fewer dw partial rows (G x
 * cols x 4 bytes written and read again), more mean more loads in flight
 * (docs/PERFORMANCE.md has the runs behind the choice). No floor (v36b):
 * 264, c9c6f90's floor, ran the configurations built for one 512-thread
 * block an SM (6 and 20-23) as two waves of blocks; one wave was 1.014-
 * 1.030x at fp32 8192x8192 and 1.049-1.063x at 16-bit 2048x32768 on the
 * H200 (bounds/v36-2026-12-02T1910). */
int64_t fused_groups(const fcfg &c, int64_t rows) {
  const int64_t gpc = c.nt / c.gt;
  const int64_t need = (rows + gpc - 1) / gpc;
  int64_t g = (int64_t)132 * rmsbwd_mb(c.nt, c.nr, c.mb);
  g /= c.cl;
  if (g < 1)
    g = 1;
  return need < g ? need : g;
}

size_t fused_smem(const fcfg &c, int fop, cpk_dtype dt, int64_t cols) {
  size_t b = (size_t)op_inputs(fop) * c.ns * c.nt * 16u;
  /* the next row's cells */
  if (stage_on(fop, (int)dt_size(dt), c.nt, c.gt, c.nr, c.ns, c.cl))
    b += (size_t)op_inputs(fop) * c.nr * c.nt * 16u;
  /* elements per 16-byte slot: the kernel's VEC */
  const size_t vec = 16u / dt_size(dt);
  if (fop == F_RMSBWD) /* w: S x VEC per group thread */
    b += (size_t)(c.nr + c.ns) * vec * c.gt * sizeof(float);
  if (fop == F_RMSBWD && c.nt / c.gt > 1)
    b += (size_t)cols * sizeof(float);
  if (rms_wsm(fop, c.ns)) /* w's raw slots */
    b += (size_t)(c.nr + c.ns) * c.nt * 16u;
  return b;
}

/* CPK_FUSED_PERSIST=0 turns the persistent grids of the prefetching
 * configurations (fused_pf) off: one cluster per row, nothing prefetched, as
 * in v3; for side-by-side runs (docs/PERFORMANCE.md). The results' bits are
 * the same either way (a row's reduction order does not depend on which
 * cluster takes it). */
bool persist_on() {
  static const bool on = knob_on("CPK_FUSED_PERSIST");
  return on;
}

/* A launch of `blocks` blocks of nt threads in clusters of cl (cl > 1: the
 * cluster attribute, stored in *at) with smem bytes of dynamic shared
 * memory on st; fused_k's and wide_k's launches. */
cudaLaunchConfig_t cluster_launch(unsigned blocks, int nt, int cl, size_t smem,
                                  cudaStream_t st, cudaLaunchAttribute *at) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(blocks, 1, 1);
  lc.blockDim = dim3((unsigned)nt, 1, 1);
  lc.dynamicSmemBytes = smem;
  lc.stream = st;
  if (cl > 1) {
    at->id = cudaLaunchAttributeClusterDimension;
    at->val.clusterDim.x = (unsigned)cl;
    at->val.clusterDim.y = 1;
    at->val.clusterDim.z = 1;
    lc.attrs = at;
    lc.numAttrs = 1;
  }
  return lc;
}

/* How many groups of kernel k are resident at once on device dev with smem
 * bytes of dynamic shared memory: clusters of cl blocks of nt threads, or
 * blocks where cl is 1 (then *sms is the device's SM count). The launch
 * paths ask once per device and cache the answer. */
template <typename K>
cudaError_t resident_groups(K k, int nt, int cl, size_t smem, cudaStream_t st,
                            int dev, int *n, int *sms) {
  *n = 0;
  *sms = 0;
  if (cl > 1) {
    cudaLaunchAttribute at;
    const cudaLaunchConfig_t lc =
        cluster_launch((unsigned)cl, nt, cl, smem, st, &at);
    return cudaOccupancyMaxActiveClusters(n, k, &lc);
  }
  CPK__TRY(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev));
  CPK__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, k, nt, smem));
  *n *= *sms;
  return cudaSuccess;
}

template <typename T, int OP, int NT, int GT, int NR, int NS, int CL, int MB>
cudaError_t launch_cfg(const fparams &p, int64_t ngroups, size_t smem,
                       cudaStream_t st) {
  auto k = fused_k<T, OP, NT, GT, NR, NS, CL, MB>;
  cudaLaunchAttribute at;
  /* the launch, its grid set below */
  cudaLaunchConfig_t lc = cluster_launch((unsigned)CL, NT, CL, smem, st, &at);
  /* Per device, once: the function attributes (the largest dynamic shared
   * memory any launch of this configuration asks for) and how many groups
   * are resident at once; not on every (timed) launch. */
  static int cdev = -1;
  static size_t csmem = 0;
  static int64_t resident = 0;
  int dev = 0;
  CPK__TRY(cudaGetDevice(&dev));
  if (dev != cdev || smem > csmem) {
    CPK__TRY(cudaFuncSetAttribute(
        k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (CL > 8)
      CPK__TRY(cudaFuncSetAttribute(
          k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int n = 0, sms = 0;
    CPK__TRY(resident_groups(k, NT, CL, smem, st, dev, &n, &sms));
    (void)sms;
    cdev = dev;
    csmem = smem;
    resident = n;
  }
  /* Prefetching configurations run as a persistent grid of the resident
   * clusters (rmsnorm_bwd's group count is its own, fused_groups: the dw bits
   * depend on it; its staged configuration is persistent already). */
  if (fused_pf(OP, NT, GT, CL) && resident > 0 && ngroups > resident &&
      persist_on())
    ngroups = resident;
  lc.gridDim = dim3((unsigned)(ngroups * CL), 1, 1);
  CPK__TRY(cudaLaunchKernelEx(&lc, k, p));
  return cudaGetLastError();
}

template <typename T, int OP>
cudaError_t launch_op(int ci, const fparams &p, int64_t ngroups, size_t smem,
                      cudaStream_t st) {
#define FCFG_CASE(i, a, b, c, d, e, m, f)                                      \
  case i:                                                                      \
    if constexpr ((f) >> OP & 1)                                               \
      return launch_cfg<T, OP, a, b, c, d, e,                                  \
                        (OP == F_RMSBWD                                        \
                             ? rmsbwd_mb(a, c, m)                              \
                             : fused_mb(OP, (int)sizeof(T), a, b, c, d, m))>(  \
          p, ngroups, smem, st);                                               \
    return cudaErrorInvalidValue;
  switch (ci) {
    FCFGS(FCFG_CASE)
  default:
    return cudaErrorInvalidValue;
  }
#undef FCFG_CASE
}

template <int OP>
cudaError_t launch_dt(cpk_dtype dt, int ci, const fparams &p, int64_t ngroups,
                      size_t smem, cudaStream_t st) {
  return with_dt(dt, [&](auto e) {
    return launch_op<decltype(e), OP>(ci, p, ngroups, smem, st);
  });
}

/* ---- WIDE plans and launches ---- */

struct wcfg {
  int nt, cl;
  int u;          /* 16-byte loads in flight per thread (launch_wide) */
  int64_t groups; /* clusters in the grid (at most) */
  bool wsm;       /* rmsnorm: w's chunk in shared memory */
  size_t smem;    /* dynamic shared memory per block */
  int64_t chunk;
};

/* Where the wide path takes the row, from the H200 side by side of
 * docs/PERFORMANCE.md (v9: each rule's case against fused_k and the plan's
 * other picks, in the same lease, twice): (op, dtypes, columns lo..hi) ->
 * (threads, cluster size, clusters in the grid). The grid's clusters are
 * the rows in flight: their inputs (rows x NI x row bytes, at most 33 MiB
 * here) have to stay in the 60 MiB L2 between the two reads. */
enum { WD_F32 = 1, WD_16 = 6, WD_ALL = 7 }; /* bit per cpk_dtype */
struct wrule {
  int fop, dts;
  int64_t lo, hi;
  int nt, cl, groups;
  int u; /* 16-byte loads in flight per one-input thread: 8 as measured in
          * v9; 16 where v9c measured it (the kernel built for twice the
          * registers) */
};
constexpr wrule kWide[] = {
    /* row_sum 256 x 262144: fp32 0.76 -> 0.82, 16-bit 0.70 -> 0.71 */
    {F_ROWSUM, WD_ALL, 131073, 262144, 256, 4, 132, 8},
    /* row_sum 32 x 1048576 (SPLIT before): fp32 0.63 -> 0.71, bf16 0.51
     * -> 0.61 */
    {F_ROWSUM, WD_ALL, 262145, (int64_t)1 << 26, 256, 8, 33, 8},
    /* softmax fp32 256 x 262144: 0.60 -> 0.66 (2^20: fused_k's 0.57
     * stays) */
    {F_SOFTMAX, WD_F32, 131073, 262144, 256, 8, 33, 8},
    /* softmax 16-bit 32 x 1048576: 0.41 -> 0.49 */
    {F_SOFTMAX, WD_16, 262145, (int64_t)1 << 26, 256, 8, 33, 8},
    /* rmsnorm 256 x 262144: bf16 0.53 -> 0.57, fp32 0.55 -> 0.60 */
    {F_RMS, WD_16, 131073, 262144, 256, 8, 33, 8},
    {F_RMS, WD_F32, 131073, 262144, 256, 16, 14, 8},
    /* rmsnorm_bwd fp32 2048 x 32768: 0.54 -> 0.74 (16-bit: no gain); with
     * 16 loads in flight (v9c, bounds/wide-u16-2026-11-30T0236: the v9
     * binary on both sides) 0.74 -> 0.80 */
    {F_RMSBWD, WD_F32, 16385, 32768, 512, 2, 66, 16},
};

/* The wide path's configuration for (op, dtype, cols), or false where the
 * path does not take the row (kWide). A pure function of its arguments. */
bool wide_cfg(int fop, cpk_dtype dt, int64_t cols, wcfg &w) {
  if (fop < 0 || !dt_ok(dt) || cols < 1)
    return false;
  const wrule *r = nullptr;
  for (const wrule &k : kWide)
    if (k.fop == fop && (k.dts >> dt & 1) && cols >= k.lo && cols <= k.hi)
      r = &k;
  if (r == nullptr)
    return false;
  w.nt = r->nt;
  w.cl = r->cl;
  w.groups = r->groups;
  w.u = r->u;
  w.chunk = fused_chunk(cols, w.cl);
  const size_t es = dt_size(dt);
  w.wsm = false;
  w.smem = 0;
  if (fop == F_RMSBWD)
    w.smem = (size_t)w.chunk * (4u + es);
  if (fop == F_RMS && (size_t)w.chunk * es <= 112u * 1024u) {
    w.wsm = true;
    w.smem = (size_t)w.chunk * es;
  }
  return w.smem <= 227u * 1024u;
}

/* Clusters in the grid: a pure function of the shape (rmsnorm_bwd's dw
 * partial rows are one per cluster, so the dw bits depend on it). */
int64_t wide_groups(const wcfg &w, int64_t rows) {
  return rows < w.groups ? rows : w.groups;
}

template <typename T, int OP, int NT, int UW>
cudaError_t launch_wide(const fparams &p, const wcfg &w, int64_t groups,
                        cudaStream_t st) {
  /* 16-byte loads in flight per thread and input: UW (one-input ops; half
   * that for two) */
  constexpr int U = op_inputs(OP) == 1 ? UW : UW / 2;
  /* 64 registers (rmsnorm_bwd: 128; at 64 its 16-bit kernels spilled);
   * twice that for twice the loads */
  constexpr int MB0 =
      (NT == 512 ? 2 : 4) / (OP == F_RMSBWD ? 2 : 1) / (UW > 8 ? 2 : 1);
  constexpr int MB = MB0 > 0 ? MB0 : 1;
  auto k = wide_k<T, OP, NT, U, MB>;
  static int cdev = -1;
  static size_t csmem = 0;
  int dev = 0;
  CPK__TRY(cudaGetDevice(&dev));
  if (dev != cdev || w.smem > csmem) {
    CPK__TRY(cudaFuncSetAttribute(
        k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)w.smem));
    CPK__TRY(cudaFuncSetAttribute(
        k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cdev = dev;
    csmem = w.smem;
  }
  cudaLaunchAttribute at;
  const cudaLaunchConfig_t lc =
      cluster_launch((unsigned)(groups * w.cl), NT, w.cl, w.smem, st, &at);
  CPK__TRY(cudaLaunchKernelEx(&lc, k, p));
  return cudaGetLastError();
}

/* The kernel of (threads, loads in flight): 16 loads only where kWide asks
 * for them (fp32 rmsnorm_bwd at 512 threads), so only that one is built. */
template <typename T, int OP>
cudaError_t launch_wide_nt(const fparams &p, const wcfg &w, int64_t groups,
                           cudaStream_t st) {
  if (w.nt == 256)
    return launch_wide<T, OP, 256, 8>(p, w, groups, st);
  if constexpr (OP == F_RMSBWD && std::is_same<T, float>::value) {
    if (w.u == 16)
      return launch_wide<T, OP, 512, 16>(p, w, groups, st);
  }
  return launch_wide<T, OP, 512, 8>(p, w, groups, st);
}

template <int OP>
cudaError_t launch_wide_dt(cpk_dtype dt, const fparams &p, const wcfg &w,
                           int64_t groups, cudaStream_t st) {
  return with_dt(dt, [&](auto e) {
    return launch_wide_nt<decltype(e), OP>(p, w, groups, st);
  });
}

template <typename T>
void launch_dw(const float *part, void *dw, int64_t cols, int64_t groups,
               cudaStream_t st) {
  const unsigned g = (unsigned)((cols + 31) / 32), nt = 32 * DW_STRANDS;
  fused_dw_k<T><<<g, nt, 0, st>>>(part, (T *)dw, cols, groups);
}

cudaError_t run_dw(cpk_dtype dt, const fparams &p, int64_t groups,
                   cudaStream_t st) {
  return with_dt(dt, [&](auto e) {
    launch_dw<decltype(e)>(p.dwpart, p.dw, p.cols, groups, st);
    return cudaGetLastError();
  });
}

/* f(std::integral_constant<int, OP>{}) for the op fop: one switch for the
 * launchers of every path (fused_k, wide_k, grid_k). */
template <typename Fn> cudaError_t with_op(int fop, Fn &&f) {
  switch (fop) {
  case F_ROWSUM:
    return f(std::integral_constant<int, F_ROWSUM>{});
  case F_SOFTMAX:
    return f(std::integral_constant<int, F_SOFTMAX>{});
  case F_SMBWD:
    return f(std::integral_constant<int, F_SMBWD>{});
  case F_RMS:
    return f(std::integral_constant<int, F_RMS>{});
  default:
    return f(std::integral_constant<int, F_RMSBWD>{});
  }
}

cudaError_t run_wide(int fop, cpk_dtype dt, const wcfg &w, fparams p,
                     cudaStream_t st) {
  p.chunk = w.chunk;
  p.wsm = w.wsm ? 1 : 0;
  const int64_t groups = wide_groups(w, p.rows);
  return with_op(fop, [&](auto op) -> cudaError_t {
    constexpr int OP = decltype(op)::value;
    CPK__TRY(launch_wide_dt<OP>(dt, p, w, groups, st));
    if constexpr (OP == F_RMSBWD)
      return run_dw(dt, p, groups, st);
    return cudaSuccess;
  });
}

/* ci: fused_plan(fop, dt, p.cols), not negative. */
cudaError_t run_fused(int fop, cpk_dtype dt, int ci, fparams p,
                      cudaStream_t st) {
  const fcfg &c = kCfg[ci];
  p.chunk = fused_chunk(p.cols, c.cl);
  const int64_t gpc = c.nt / c.gt;
  int64_t ngroups = (p.rows + gpc - 1) / gpc;
  if (fop == F_RMSBWD)
    ngroups = fused_groups(c, p.rows);
  else if (ngroups * c.cl > 0x7fffffffLL)
    ngroups = 0x7fffffffLL / c.cl;
  const size_t smem = fused_smem(c, fop, dt, p.cols);
  return with_op(fop, [&](auto op) -> cudaError_t {
    constexpr int OP = decltype(op)::value;
    CPK__TRY(launch_dt<OP>(dt, ci, p, ngroups, smem, st));
    if constexpr (OP == F_RMSBWD)
      return run_dw(dt, p, ngroups, st);
    return cudaSuccess;
  });
}

/* ---- GRID plans and launches ---- */

/* Where the grid path takes the row (op, dtypes, columns lo..hi; the chunk
 * of a block must also fit 4 x 512 vectors, grid_cfg): where the H200 side
 * by side of docs/PERFORMANCE.md (v10c, bounds/grid-v10c-2026-11-30T0406:
 * the same binary with the path on, off, on) ran it faster both times, as
 * the fraction of the copy ceiling, v9's kernels -> the grid path; v11
 * (bounds/grid-v11-2026-11-30T0610) added fp32 softmax at 2^20, v11c
 * (bounds/gridq-2026-11-30T0707: the wide path before and after the
 * variant, one lease) 16-bit rmsnorm at 2^18 with two blocks per SM. Not
 * taken (v11b's figures; v11c's two blocks per SM in brackets): row_sum
 * (0.61-0.83 -> 0.41-0.65; 2^18 16-bit [0.48]), 16-bit softmax (2^18 0.62
 * -> 0.31 [0.43], 2^20 0.49 -> 0.51: within the two leases' spread), fp32
 * softmax at 2^18 (0.66 -> 0.51), 16-bit softmax_backward and every
 * dtype's at 2^18 (0.83-0.88 -> 0.66-0.78 [16-bit 0.72]). */
struct grule {
  int fop, dts;
  int64_t lo, hi;
};
constexpr grule kGrid[] = {
    /* rmsnorm fp32 256 x 262144 0.61 -> 0.65, 32 x 1048576 (SPLIT) 0.52 ->
     * 0.65; bf16 32 x 1048576 (SPLIT) 0.49 -> 0.56; 16-bit 256 x 262144
     * (two blocks per SM, grid_q; v11c) 0.57 -> 0.65-0.66 */
    {F_RMS, WD_ALL, 131073, (int64_t)1 << 22},
    /* rmsnorm_bwd (BLOCK / SPLIT before) 256 x 262144 fp32 0.41 -> 0.62,
     * bf16 0.36 -> 0.47; 32 x 1048576 fp32 0.36 -> 0.67, bf16 0.31 -> 0.55 */
    {F_RMSBWD, WD_ALL, 131073, (int64_t)1 << 22},
    /* softmax_bwd fp32 32 x 1048576 (SPLIT) 0.53 -> 0.68 */
    {F_SMBWD, WD_F32, 262145, (int64_t)1 << 22},
    /* softmax fp32 32 x 1048576 (v11: 0.57 -> 0.57 with v11a, -> 0.62
     * with v11b, a chain of two leases) */
    {F_SOFTMAX, WD_F32, 262145, (int64_t)1 << 22},
};

struct gcfg {
  int nt, nv;
  int64_t chunk;
};

/* The grid path's configuration for (op, dtype, cols), or false where kGrid
 * does not take the row or a block's chunk would not fit its slots. Pure.
 * CPK_GRID_MIN (environment, side-by-side runs and tests): every op's rows
 * of that width and wider (to 2^22) too, whether kGrid takes them or not. */
bool grid_cfg(int fop, cpk_dtype dt, int64_t cols, gcfg &gc) {
  if (fop < 0 || !dt_ok(dt) || cols < 1)
    return false;
  static const int64_t gmin = knob_int("CPK_GRID_MIN", 0);
  bool hit = gmin > 0 && cols >= gmin && cols <= ((int64_t)1 << 22);
  for (const grule &k : kGrid)
    if (k.fop == fop && (k.dts >> dt & 1) && cols <= k.hi && cols >= k.lo)
      hit = true;
  if (!hit)
    return false;
  const int vecw = dt == CPK_F32 ? 4 : 8;
  gc.chunk = fused_chunk(cols, GRID_P);
  const int64_t nvec = (gc.chunk + vecw - 1) / vecw;
  if (nvec <= 256) {
    gc.nt = 256;
    gc.nv = 1;
  } else {
    gc.nt = 512;
    gc.nv = (int)((nvec + 511) / 512);
    if (gc.nv == 3)
      gc.nv = 4;
  }
  /* rmsnorm_bwd's 16-bit kernels of 4 slots spill (x, dy, w and dw of 32
   * elements a thread): not taken */
  if (fop == F_RMSBWD && dt != CPK_F32 && gc.nv == 4)
    return false;
  return gc.nv <= 4 && grid_smem(fop, gc.nt, gc.nv) <= GRID_SMEM_MAX;
}

size_t grid_ws_bytes() {
  return 256 + ws_round((size_t)GRID_RING * GRID_P * 2 * 8);
}

/* The grid's GRID_P blocks (one per SM at up to ~200 KiB of shared memory
 * and 512 threads) must all be resident: compute capability >= 8.0 and at
 * least GRID_P SMs (H100 SXM, H200: 132). CPK_FUSED_GRID=0 in the
 * environment turns the path off (side-by-side runs). */
bool grid_device_ok() {
  static int cdev = -2;
  static bool ok = false;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  if (dev != cdev) {
    int sms = 0, major = 0;
    ok = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ==
             cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                dev) == cudaSuccess &&
         sms >= GRID_P && major >= 8 && knob_on("CPK_FUSED_GRID");
    (void)cudaGetLastError();
    cdev = dev;
  }
  return ok;
}

template <typename T, int OP, int NT, int NV>
cudaError_t launch_grid(const fparams &p, const gws &g, cudaStream_t st) {
  constexpr size_t smem = grid_smem(OP, NT, NV);
  if constexpr (smem > GRID_SMEM_MAX) {
    (void)p; /* grid_cfg never takes it */
    (void)g;
    (void)st;
    return cudaErrorInvalidValue;
  } else {
    auto k = grid_k<T, OP, NT, NV>;
    static int cdev = -1;
    int dev = 0;
    CPK__TRY(cudaGetDevice(&dev));
    if (dev != cdev) {
      CPK__TRY(cudaFuncSetAttribute(
          k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
      cdev = dev;
    }
    CPK__TRY(coop_launch(k, dim3(GRID_P * grid_q(OP, NT)), dim3(NT), smem, st,
                         p, g));
    return cudaGetLastError();
  }
}

template <int OP, typename T>
cudaError_t launch_grid_nv(const gcfg &gc, const fparams &p, const gws &g,
                           cudaStream_t st) {
  if (gc.nt == 256)
    return launch_grid<T, OP, 256, 1>(p, g, st);
  switch (gc.nv) {
  case 1:
    return launch_grid<T, OP, 512, 1>(p, g, st);
  case 2:
    return launch_grid<T, OP, 512, 2>(p, g, st);
  default:
    if constexpr (OP == F_RMSBWD && sizeof(T) == 2)
      return cudaErrorInvalidValue; /* grid_cfg never takes it */
    else
      return launch_grid<T, OP, 512, 4>(p, g, st);
  }
}

template <int OP>
cudaError_t launch_grid_dt(cpk_dtype dt, const gcfg &gc, const fparams &p,
                           const gws &g, cudaStream_t st) {
  return with_dt(dt, [&](auto e) {
    return launch_grid_nv<OP, decltype(e)>(gc, p, g, st);
  });
}

cudaError_t run_grid(int fop, cpk_dtype dt, const gcfg &gc, fparams p, void *ws,
                     cudaStream_t st) {
  if (ws == nullptr || !aligned16(ws))
    return cudaErrorInvalidValue;
  p.chunk = gc.chunk;
  char *b = static_cast<char *>(ws);
  gws g;
  g.hdr = reinterpret_cast<unsigned *>(b);
  g.word = reinterpret_cast<unsigned long long *>(b + 256);
  g.dwvec = (p.dw != nullptr && aligned16(p.dw)) ? 1 : 0;
  return with_op(fop, [&](auto op) {
    return launch_grid_dt<decltype(op)::value>(dt, gc, p, g, st);
  });
}

} /* namespace */

namespace cpk__ {

/* The largest of what the paths that may take the shape need: the grid
 * path's exchange (whether it runs depends on the device and on the
 * pointers' alignment), rmsnorm_bwd's dw partial rows otherwise. */
size_t fused_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s) {
  const int fop = fop_of(op);
  gcfg gc;
  const size_t gb = grid_cfg(fop, dt, s.cols, gc) ? grid_ws_bytes() : 0;
  if (fop != F_RMSBWD)
    return gb;
  size_t b = 0;
  wcfg wc;
  const int ci = fused_plan(fop, dt, s.cols);
  if (wide_cfg(fop, dt, s.cols, wc))
    b = ws_round((size_t)wide_groups(wc, s.rows) * (size_t)s.cols *
                 sizeof(float));
  else if (ci >= 0)
    b = ws_round((size_t)fused_groups(kCfg[ci], s.rows) * (size_t)s.cols *
                 sizeof(float));
  return b > gb ? b : gb;
}

cudaError_t fused_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                      const void *w, void *out, void *dw, const uint8_t *mask,
                      int64_t mstride, float eps, cpk_rows s, void *ws,
                      cudaStream_t st) {
  const int fop = fop_of(op);
  wcfg wc;
  gcfg gc;
  const bool wide = wide_cfg(fop, dt, s.cols, wc);
  const bool grid = grid_cfg(fop, dt, s.cols, gc);
  const int ci = fused_plan(fop, dt, s.cols);
  if (ci < 0 && !wide && !grid)
    return cudaErrorInvalidValue;
  if (ci < 0 && !wide && !grid_device_ok())
    return cudaErrorNotSupported;
  const size_t es = dt_size(dt);
  fparams p = {};
  p.in0 = in0;
  p.in1 = in1;
  p.w = w;
  p.out = out;
  p.dw = dw;
  p.mask = mask;
  p.mstride = mstride;
  p.dwpart = (float *)ws;
  p.eps = eps;
  p.rows = s.rows;
  p.cols = s.cols;
  p.stride = s.stride;
  /* row_sum writes one element per row: only 2-D outputs need alignment. */
  const bool out_rows = op != CPK_OP_ROW_SUM;
  p.vec = rows_vec_ok(in0, s.stride, es) && rows_vec_ok(in1, s.stride, es) &&
          (!out_rows || rows_vec_ok(out, s.stride, es)) &&
          (w == nullptr || aligned16(w));
  if (grid && grid_device_ok())
    return run_grid(fop, dt, gc, p, ws, st);
  if (wide)
    return run_wide(fop, dt, wc, p, st);
  return run_fused(fop, dt, ci, p, st);
}

} /* namespace cpk__ */

/* On chip or through the wide path: no grid needed. */
static bool fits_without_grid(cpk_op op, cpk_dtype dt, int64_t cols) {
  wcfg wc;
  return fused_plan(fop_of(op), dt, cols) >= 0 ||
         wide_cfg(fop_of(op), dt, cols, wc);
}

extern "C" int cpk_fused_fits(cpk_op op, cpk_dtype dt, int64_t cols) {
  return (fits_without_grid(op, dt, cols) || cpk_fused_grid(op, dt, cols)) ? 1
                                                                           : 0;
}

extern "C" int cpk_fused_grid(cpk_op op, cpk_dtype dt, int64_t cols) {
  gcfg gc;
  return grid_cfg(fop_of(op), dt, cols, gc) ? 1 : 0;
}

extern "C" int cpk_fused_needs_grid(cpk_op op, cpk_dtype dt, int64_t cols) {
  return (cpk_fused_grid(op, dt, cols) && !fits_without_grid(op, dt, cols)) ? 1
                                                                            : 0;
}

extern "C" int cpk_fused_grid_available(void) {
  return grid_device_ok() ? 1 : 0;
}
