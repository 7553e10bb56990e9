/* Stage `test`: the verification control, then cuda_portfolio --test-only
 * (verification only, no timing).
 *
 * The control (cuda_portfolio --verify-control) runs add_ftz, an fp32 add
 * that flushes subnormals to zero on purpose, on add's verification cases,
 * and exits 0 only when the check failed it on exactly the elements the
 * host predicts: the proof, on this machine and GPU, that the verification
 * path (launch, read-back, compare) can fail a kernel. It is what the
 * sanitize stage's negative control is to the sanitizer, and like it the
 * stage fails when it is not caught; --test-only still runs, since its
 * verdicts are the run's evidence either way. The control runs first so
 * that the stage's exit code is --test-only's. */
#include "cm_utf8.h"
#include "rp_pfrun.h"
#include "rp_runner.h"

#include <jansson.h>

static void rp__test_steps(rp_ctx *ctx, rp_stage_run *st) {
  static const char *const control[] = {"--verify-control", NULL};
  static const char *const args[] = {"--test-only", NULL};
  json_t *rec;
  int code = rp_portfolio_step_ex(ctx, st, "verify-control", control,
                                  "the verification control was not caught",
                                  NULL, NULL);
  /* no "caught" key: the report reads that word, under a name holding
   * "control", as the sanitizer's negative control (rp_report_model.c) */
  rec = json_object();
  json_object_set_new(rec, "kernel", cm_json_text("add_ftz"));
  json_object_set_new(rec, "exit_code",
                      code >= 0 ? json_integer(code) : json_null());
  json_object_set_new(rec, "failed_as_predicted", json_boolean(code == 0));
  json_object_set_new(st->record, "verification_control", rec);
  if (code == 77 || st->status == RP_ST_SKIPPED || rp_runner_interrupted())
    return;
  rp_portfolio_step(ctx, st, "cuda_portfolio", args, NULL, NULL);
}

const rp_stage_desc rp_stage_test = {
    "test",
    "cuda_portfolio --verify-control, then --test-only: every kernel "
    "against its reference",
    NULL, rp__test_steps, NULL};
