/* rp_pfrun.h: cuda_portfolio as a step of a stage (test, time, sanitize).
 *
 * cuda_portfolio's exit codes: 0 all passed, 1 verification failed, 2 usage,
 * 3 CUDA error, 77 no CUDA device. Its first stdout line is the banner
 * (rp_banner.h), which says from the binary's side which allocator it used
 * and which instrumentation markers it saw.
 */
#ifndef RP_PFRUN_H
#define RP_PFRUN_H

#include "rp_banner.h"
#include "rp_stage.h"

/* Runs <build>/bin/cuda_portfolio args... (args NULL-terminated, at most
 * 16), adding "--gpu N" when --gpu was given, as step `step` of st.
 * Records the banner (or "banner_error") in st->record and maps the exit
 * code onto the stage: 1, 2, 3 and anything unexpected -> failed with the
 * meaning; 77 -> skipped "no CUDA device: <the binary's last stderr line>";
 * 0 without a parseable banner -> failed. Returns the exit code, or -1 when
 * the binary did not run or ended by signal/timeout. *banner is filled and
 * *have_banner set to 1 when the banner parsed (either may be NULL). */
int rp_portfolio_step(rp_ctx *ctx, rp_stage_run *st, const char *step,
                      const char *const *args, rp_banner *banner,
                      int *have_banner);

/* The same, with exit 1 meaning `exit1` in the stage's reason ("verification
 * failed" above; the verification control's own meaning in the test
 * stage). */
int rp_portfolio_step_ex(rp_ctx *ctx, rp_stage_run *st, const char *step,
                         const char *const *args, const char *exit1,
                         rp_banner *banner, int *have_banner);

/* The stage record's "banner" object for b (version, allocator,
 * instrumented, markers, seed, and git when the binary gave it). */
json_t *rp_banner_record(const rp_banner *b);

/* Appends "--gpu N" to argv at *n when --gpu was given (N written into
 * buf, which must outlive argv); nothing otherwise. */
void rp_gpu_args(const rp_ctx *ctx, char *buf, size_t size, const char **argv,
                 int *n);

/* Splits ctx->opt.select (--select) on spaces into buf and appends the
 * words to argv starting at *n, never past max - 1 entries (argv stays
 * NULL-terminated by the caller). Returns CM_OK, or CM_ERANGE when the
 * words do not fit. */
int rp_select_args(const rp_ctx *ctx, char *buf, size_t size, const char **argv,
                   int *n, int max);

/* Asks the build's cuda_portfolio, before any stage runs, whether it takes
 * --select's words in each selected stage's own form: `cuda_portfolio
 * --check-args --bench --json PLACEHOLDER WORDS` for time (when time), and
 * `--check-args --profile-range --smoke|--bench --json PLACEHOLDER WORDS`
 * for profile (when profile; --profile-set chooses the set). --check-args
 * parses the words and builds the case list, nothing runs, nothing is
 * written, and it exits 2 on what it refuses. Returns CM_EINVAL with its
 * message in msg when refused; CM_OK when taken, and also when it cannot
 * tell (no --select, no cuda_portfolio built yet, or another exit): the
 * stages then say what happens. */
int rp_select_check(const rp_ctx *ctx, int time, int profile, char *msg,
                    size_t size);

#endif
