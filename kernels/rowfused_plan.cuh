/* rowfused_plan.cuh: the plans and launches of rowfused.cu's on-chip and wide
 * paths: fused_k's configuration list (FCFGS, kCfg) and fused_plan, its row
 * groups and shared memory, the cluster launches and resident groups; the wide
 * path's rules (kWide, wide_cfg) and launches; rmsnorm_bwd's dw kernel's
 * launch; and with_op, run_wide and run_fused, which the entry points call.
 * Part of rowfused.cu's translation unit, not a header of its own: included
 * once, there, inside its anonymous namespace, after what it uses (fused_k and
 * its configuration rules, wide_k and fused_dw_k). Split out of the one file so
 * that each part has one job, while the kernels stay those of one unit: the
 * same code, and the same names (an anonymous namespace's mangled names carry
 * the main file's). */
#ifndef CPK_ROWFUSED_PLAN_CUH
#define CPK_ROWFUSED_PLAN_CUH

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

#endif
