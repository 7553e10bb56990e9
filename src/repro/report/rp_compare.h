/* rp_compare.h: `repro compare BASE NEW`, the library part.
 *
 * Matches the cases of two results by (op, variant, dtype, shape, stride)
 * and, per matched case, compares the two sample sets with a bootstrap
 * interval of the ratio of medians (which decides) and a Mann-Whitney U
 * test (which guards against calling noise a change). docs/REPORT.md gives
 * the rule and the reasons. Ratios are NEW / BASE of times: > 1 is slower.
 *
 * Refusals: results that must not be compared (an instrumented result
 * against a clean one, different GPUs, different OS environments) are
 * refused with every reason written out, unless opts.force is set (then the
 * comparison runs and the reasons stay in the output as warnings).
 *
 * Ownership: rp_compare_result owns its arrays; free with
 * rp_compare_result_free. JSON values returned are new references.
 */
#ifndef RP_COMPARE_H
#define RP_COMPARE_H

#include "rp_report_model.h"
#include "rp_stats.h"

#include <stddef.h>
#include <stdint.h>

struct json_t;

typedef enum {
  RP_VERDICT_SAME = 0,
  RP_VERDICT_FASTER,
  RP_VERDICT_SLOWER,
  RP_VERDICT_AMBIGUOUS
} rp_verdict;

/* "same", "faster", "slower", "ambiguous". */
const char *rp_verdict_name(rp_verdict v);

typedef struct {
  double threshold;   /* relative change that matters, 0.05 = 5% */
  double alpha;       /* Mann-Whitney significance level, 0.01 */
  double level;       /* bootstrap interval level, 0.95 */
  int resamples;      /* bootstrap resamples, 2000 */
  uint64_t seed;      /* bootstrap seed (fixed: reports are reproducible) */
  size_t min_samples; /* fewer samples on either side: ambiguous; 5 */
  int force;          /* compare even what would be refused */
} rp_compare_opts;

/* The defaults above. */
void rp_compare_opts_init(rp_compare_opts *o);

typedef struct {
  char key[256]; /* rp_case_key */
  size_t nbase, nnew;
  double base_median_s, new_median_s;
  int stats_ok; /* 0: no samples on a side, nothing computed */
  rp_boot boot;
  rp_mw mw; /* u_a is U of NEW's samples */
  rp_verdict verdict;
  char why[256]; /* the rule that gave the verdict, in words */
  int throttled; /* RP_THROTTLED_* bits: a side sampled while NVML reported
                    a throttle reason (timing.throttled), so its time may be
                    the clocks' as much as the kernel's */
} rp_case_cmp;

#define RP_THROTTLED_BASE 1
#define RP_THROTTLED_NEW 2

typedef struct {
  int refused;        /* 1: not comparable and not forced, or no case in
                         common (then unmatched is 1 too) */
  int unmatched;      /* 1: no case matched, nothing to compare, which
                         --force cannot change */
  char reasons[1024]; /* why not comparable ("" when comparable) */
  char notes[512];    /* facts worth a look (another GPU of the same
                         model, different commits, ...) */
  rp_case_cmp *cases; /* matched cases, in BASE's order; owned */
  size_t ncases;
  char (*only_base)[256]; /* keys found only in BASE; owned */
  size_t nonly_base;
  char (*only_new)[256]; /* keys found only in NEW; owned */
  size_t nonly_new;
  double geomean;    /* of the median ratios of matched cases with
                        stats; NaN when there are none */
  int counts[4];     /* per rp_verdict */
  size_t nthrottled; /* matched cases with a throttled side */
} rp_compare_result;

/* The verdict rule alone (pure), for one case with boot and mw computed
 * from nbase and nnew samples. One sentence on the rule that applied goes
 * to why[size]. In order:
 *  - fewer than min_samples on either side: ambiguous;
 *  - the interval lies inside [1 - threshold, 1 + threshold]: same;
 *  - lo > 1, ratio > 1 + threshold and p < alpha: slower;
 *  - hi < 1, ratio < 1 - threshold and p < alpha: faster;
 *  - anything else (the tests disagree, or the interval is too wide to
 *    tell): ambiguous. */
rp_verdict rp_verdict_decide(const rp_boot *boot, const rp_mw *mw, size_t nbase,
                             size_t nnew, const rp_compare_opts *opts,
                             char *why, size_t size);

/* Says whether base and next may be compared: writes every reason they may
 * not into why[size] ("" when they may) and returns 1 when comparable. */
int rp_compare_check(const rp_results *base, const rp_results *next, char *why,
                     size_t size);

/* Compares. When refused (and not forced) only refused/reasons are filled
 * and CM_OK is returned: a refusal is a verdict, not an error. Returns
 * CM_OK or CM_ENOMEM. *out is initialised here. */
int rp_compare(const rp_results *base, const rp_results *next,
               const rp_compare_opts *opts, rp_compare_result *out);

void rp_compare_result_free(rp_compare_result *r);

/* The exit code of `repro compare` for a result: 2 refused, 1 when any
 * case is slower, else 0 (docs/REPORT.md). */
int rp_compare_exit_code(const rp_compare_result *r);

/* Machine-readable form (--format json); docs/REPORT.md lists the keys. */
struct json_t *rp_compare_json(const rp_compare_result *r,
                               const rp_compare_opts *opts,
                               const char *base_path, const char *new_path);

/* Human-readable table. Returns a malloc'd string (caller frees) or NULL
 * when out of memory. */
char *rp_compare_text(const rp_compare_result *r, const rp_compare_opts *opts,
                      const char *base_path, const char *new_path);

#endif
