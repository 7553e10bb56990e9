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
 *
 * The unit is this file and the parts it includes inside its anonymous
 * namespace, one job each (one unit, so that the kernels' code and names
 * are those of one file): rowfused_helpers.cuh, the device helpers the
 * kernels share (dw stores, cp.async, the group and cluster reductions);
 * here, the op list, fparams, fused_k with its configuration rules, and the
 * entry points; rowfused_wide.cuh, wide_k and fused_dw_k;
 * rowfused_grid.cuh, grid_k; rowfused_plan.cuh, fused_k's and wide_k's
 * tables, plans and launches; rowfused_grid_plan.cuh, grid_k's.
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

/* The columns [c0, c1) of chunk k of a row (k: a cluster's rank, or the grid
 * path's block), and nv, their vectors of VEC elements (the last one may be
 * partial; 0 for a chunk past the row's end). Column offsets inside a row fit
 * in int: FUSED rows are at most a few million elements (fused_plan), and
 * 32-bit index math keeps registers for the data. */
struct colchunk {
  int c0, c1, nv;
};
template <int VEC>
__device__ __forceinline__ colchunk col_chunk(const fparams &p, int k) {
  const int c0 = (int)((int64_t)k * p.chunk);
  const int c1 = (int)(c0 + p.chunk < p.cols ? c0 + p.chunk : p.cols);
  return {c0, c1, c1 > c0 ? (c1 - c0 + VEC - 1) / VEC : 0};
}

#include "rowfused_helpers.cuh"

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
  const colchunk ch = col_chunk<VEC>(p, rank);
  const int c0 = ch.c0, c1 = ch.c1;
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
        sum_add<T, false>(a, SLOT(0, j));
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
      for (int j = 0; j < S; ++j)
        dot_add<T>(a, SLOT(0, j), SLOT(1, j));
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
      for (int j = 0; j < S; ++j)
        sum_add<T, true>(a, SLOT(0, j));
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

#include "rowfused_wide.cuh"

#include "rowfused_grid.cuh"

#include "rowfused_plan.cuh"

#include "rowfused_grid_plan.cuh"

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
