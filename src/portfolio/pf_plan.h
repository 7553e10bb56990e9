/* pf_plan.h: the plan chooser behind the `auto` variant.
 *
 * Pure: the choice depends only on the op, dtype, shape and the device's SM
 * count (queried by the caller from the device, never from a table), so it
 * is unit-tested without a GPU and `--variant` can always override it.
 */
#ifndef PF_PLAN_H
#define PF_PLAN_H

#include <stdint.h>

#include "cpk.h"

/* rmsnorm: FUSED is the pick up to this row width. Past it a row spans a
 * 16-block cluster with one block per SM, and on the H200 the two-kernel
 * SPLIT was faster on 2^20-wide rows (0.53 of the copy ceiling against
 * 0.44, and 0.49-0.53 against the wide path's 0.44-0.48:
 * docs/PERFORMANCE.md). softmax, softmax_backward and row_sum take FUSED
 * wherever the row fits: their prefetching clusters beat SPLIT there
 * (softmax fp32 0.55 against 0.47, softmax_backward bf16 0.65 against
 * 0.50), and since v9 row_sum's 2^20-wide rows take the wide path (0.61 /
 * 0.71 bf16 / fp32 against SPLIT's 0.51 / 0.63). */
#define PF_PLAN_FUSED_MAX_COLS 262144
/* rmsnorm_backward: its FUSED dw partials (one fp32 row per row group) cost
 * more than they save past this width: 256 x 262144 bf16 ran at 0.20 of the
 * copy ceiling FUSED against 0.36 BLOCK. */
#define PF_PLAN_FUSED_MAX_COLS_RMSBWD 65536
/* Rows no longer than this go one warp per row. */
#define PF_PLAN_WARP_MAX_COLS 1024
/* Rows at least this wide may be split across blocks... */
#define PF_PLAN_SPLIT_MIN_COLS 65536
/* ...when there are fewer rows than this many per SM (the GPU would idle). */
#define PF_PLAN_SPLIT_ROWS_PER_SM 1

/* What the device offers the chooser (queried by the caller). */
typedef struct {
  int sm_count; /* >= 1 */
  int fused;    /* 1: CPK_V_FUSED can run here (cpk_variant_available) */
  int hopper;   /* 1: CPK_V_HOPPER can run here */
  int grid;     /* 1: FUSED's grid path runs here (cpk_fused_grid_available) */
} pf_plan_dev;

/* The variant `auto` runs for (op, dt) on rows x cols (matmul: cols and rows
 * are ignored, and the pick is for sizes HOPPER takes: a caller with the
 * whole shape asks pf_plan_choose_matmul). Never fails: every op has a default.
 * Row ops take FUSED wherever the device has it and the row fits on chip
 * (cpk_fused_fits); fp16 and bf16 matmul take HOPPER where the device has it.
 */
cpk_variant pf_plan_choose(cpk_op op, cpk_dtype dt, int64_t rows, int64_t cols,
                           const pf_plan_dev *dev);

/* The variant `auto` runs for a matmul of m x n x k in dt: pf_plan_choose's
 * pick, except that fp16/bf16 take TENSORCORE where m, n or k is past
 * CPK_HOPPER_MAX_DIM, which HOPPER refuses (cpk.h). Pure, never fails. */
cpk_variant pf_plan_choose_matmul(cpk_dtype dt, int64_t m, int64_t n, int64_t k,
                                  const pf_plan_dev *dev);

#endif
