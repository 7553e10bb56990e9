/* pf_plan.c: see pf_plan.h. The thresholds follow from the kernels' shapes:
 * a warp covers 32 lanes x a few 16-byte loads, so short rows waste a block;
 * a block per row needs about one row per SM to fill the GPU, and below that
 * only a split across blocks uses the whole memory system. Where the device
 * has thread-block clusters and the row fits on chip, the one-pass FUSED
 * variant moves the fewest bytes and comes first (docs/PERFORMANCE.md). */
#include "pf_plan.h"

cpk_variant pf_plan_choose(cpk_op op, cpk_dtype dt, int64_t rows, int64_t cols,
                           const pf_plan_dev *dev) {
  int sm_count = dev->sm_count;
  switch (op) {
  case CPK_OP_COPY:
  case CPK_OP_ADD:
  case CPK_OP_COPY_UNMASKED:
  case CPK_OP_ADD_FTZ:
    return CPK_V_VECTOR;
  case CPK_OP_MATMUL:
    if (dt == CPK_F32)
      return CPK_V_TILED;
    return dev->hopper ? CPK_V_HOPPER : CPK_V_TENSORCORE;
  default:
    break;
  }
  /* widths only FUSED's grid path takes need a device that runs it */
  if (dev->fused && cpk_fused_fits(op, dt, cols) &&
      (dev->grid || !cpk_fused_needs_grid(op, dt, cols))) {
    const int64_t max = op == CPK_OP_RMSNORM_BWD ? PF_PLAN_FUSED_MAX_COLS_RMSBWD
                        : (op == CPK_OP_SOFTMAX || op == CPK_OP_SOFTMAX_BWD ||
                           op == CPK_OP_ROW_SUM)
                            ? INT64_MAX
                            : PF_PLAN_FUSED_MAX_COLS;
    /* the grid path (a cooperative grid holding the row across the GPU)
     * takes every width of its table where the device runs it */
    if (cols <= max || (dev->grid && cpk_fused_grid(op, dt, cols)))
      return CPK_V_FUSED;
  }
  if (sm_count < 1)
    sm_count = 1;
  if (cols <= PF_PLAN_WARP_MAX_COLS)
    return CPK_V_WARP;
  if (cols >= PF_PLAN_SPLIT_MIN_COLS &&
      rows < (int64_t)sm_count * PF_PLAN_SPLIT_ROWS_PER_SM)
    return CPK_V_SPLIT;
  /* Long rows: softmax reads them once with the running max and sum. */
  return op == CPK_OP_SOFTMAX ? CPK_V_ONLINE : CPK_V_BLOCK;
}

cpk_variant pf_plan_choose_matmul(cpk_dtype dt, int64_t m, int64_t n, int64_t k,
                                  const pf_plan_dev *dev) {
  const cpk_variant v = pf_plan_choose(CPK_OP_MATMUL, dt, 1, 1, dev);
  /* HOPPER's coordinates are 32-bit; TENSORCORE takes any size (cpk.h) */
  if (v == CPK_V_HOPPER && (m > CPK_HOPPER_MAX_DIM || n > CPK_HOPPER_MAX_DIM ||
                            k > CPK_HOPPER_MAX_DIM))
    return CPK_V_TENSORCORE;
  return v;
}
