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

/* Rows no longer than this go one warp per row. */
#define PF_PLAN_WARP_MAX_COLS 1024
/* Rows at least this wide may be split across blocks... */
#define PF_PLAN_SPLIT_MIN_COLS 65536
/* ...when there are fewer rows than this many per SM (the GPU would idle). */
#define PF_PLAN_SPLIT_ROWS_PER_SM 1

/* The variant `auto` runs for (op, dt) on rows x cols (matmul: cols and rows
 * are ignored). sm_count >= 1. Never fails: every op has a default. */
cpk_variant pf_plan_choose(cpk_op op, cpk_dtype dt, int64_t rows, int64_t cols,
                           int sm_count);

#endif
