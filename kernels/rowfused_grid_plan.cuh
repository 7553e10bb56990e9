/* rowfused_grid_plan.cuh: the grid path's rules and launch (rowfused.cu): where
 * it takes the row (kGrid, grid_cfg), its workspace, the device check
 * (grid_device_ok) and run_grid's cooperative launch of grid_k. Part of
 * rowfused.cu's translation unit, not a header of its own: included once,
 * there, inside its anonymous namespace, after what it uses (grid_k, and
 * rowfused_plan.cuh's fused_chunk and with_op). Split out of the one file so
 * that each part has one job, while the kernels stay those of one unit: the
 * same code, and the same names (an anonymous namespace's mangled names carry
 * the main file's). */
#ifndef CPK_ROWFUSED_GRID_PLAN_CUH
#define CPK_ROWFUSED_GRID_PLAN_CUH

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

#endif
