/* Stage `test`: cuda_portfolio --test-only (verification only, no timing). */
#include "rp_pfrun.h"

static void rp__test_steps(rp_ctx *ctx, rp_stage_run *st) {
  static const char *const args[] = {"--test-only", NULL};
  rp_portfolio_step(ctx, st, "cuda_portfolio", args, NULL, NULL);
}

const rp_stage_desc rp_stage_test = {
    "test", "cuda_portfolio --test-only: every kernel against its reference",
    NULL, rp__test_steps, NULL};
