/* rp_report_common.h: what report.md and report.html both show, computed
 * once (internal to src/repro/report). */
#ifndef RP_REPORT_COMMON_H
#define RP_REPORT_COMMON_H

#include "rp_report_model.h"
#include "rp_stats.h"

#include <stddef.h>

/* One "key: value" row of the environment table; value is "" if unknown. */
typedef struct {
  const char *key;
  char value[512];
} rp__kv;

#define RP__ENV_ROWS 24

/* Fills rows[RP__ENV_ROWS] from the manifest and the first results file
 * (clean first); returns the number of rows filled. */
size_t rp__env_rows(const rp_run *run, rp__kv *rows);

/* The results whose numbers the report shows: the first clean results
 * file, or NULL when there is none (instrumented timings are never shown
 * as timings). */
const rp_results *rp__main_results(const rp_run *run);

/* "op variant dtype shape" for a chart label. */
void rp__case_label(const rp_case *c, char *buf, size_t size);
/* ", sampled N" after a verdict whose verification compared a sample of N
 * output elements (correctness.sampled), else "": the note is in buf. */
const char *rp__sampled_note(const rp_case *c, char *buf, size_t size);

/* The negative control's outcome in words, and 1 caught, 0 not, -1 not
 * recorded. */
int rp__negative_control(const rp_run *run, char *buf, size_t size);

/* The verification control's outcome (the test stage's first step) in
 * words, and 1 failed as predicted, 0 not caught, -1 not recorded or not
 * decided (no device, a CUDA error, a step killed or timed out). */
int rp__verify_control(const rp_run *run, char *buf, size_t size);

/* Why the run has no resource table, one sentence for both formats:
 * the inspect stage was not run (left out by --only or --skip), or its
 * status and reason when it did not record one. */
void rp__no_resources(const rp_run *run, char *buf, size_t size);

/* What the verification control is, one sentence, for both formats. */
#define RP__VERIFY_CONTROL_WHAT                                                \
  "add_ftz, an fp32 add that flushes subnormals to zero on purpose, "          \
  "through the check of add's fp32 cases; it must fail exactly the "           \
  "elements the host predicts (cuda_portfolio --verify-control, the test "     \
  "stage's first step)"

/* The findings tables show at most RP__FINDINGS_SHOWN findings of one step
 * (consecutive findings with the same tool name); the rest are counted in
 * one line, since every one of them is in the step's archived log. Returns
 * how many findings from index i on are elided (0 when run->findings[i] is
 * to be shown). */
#define RP__FINDINGS_SHOWN 5
size_t rp__findings_elided(const rp_run *run, size_t i);

/* 1 if the stage or check status is not a pass. */
int rp__is_limitation(const char *status);

/* One entry of the limitations list: a stage that did not pass (check
 * NULL), a check that did not pass (stage and check), or a warning of the
 * main results (stage, check and status NULL). */
typedef struct {
  const char *stage;
  const char *check;
  const char *status;
  const char *text; /* the reason, the check's detail, or the warning */
} rp__limit;

/* Calls fn for each limitation of the run, stage by stage (the stage
 * before its checks), then the main results' warnings; returns how many. */
size_t rp__each_limit(const rp_run *run,
                      void (*fn)(void *ud, const rp__limit *l), void *ud);

/* v with digits decimals ("%.*f"), or "n/a" when not finite. Returns
 * buf. */
const char *rp__fmt(char *buf, size_t size, int digits, double v);

/* Peer TFLOP/s of a case (flops over the peer's median), NaN if none. */
double rp__peer_tflops(const rp_case *c);

/* path relative to the run folder when it lies inside it, else path. */
const char *rp__relpath(const rp_run *run, const char *path);

#endif
