/* rp_stats.h: the statistics behind `repro compare` and the box plots.
 *
 * Pure functions over arrays of samples (seconds, but any unit works). No
 * input array is modified; scratch space is allocated here and freed before
 * returning. docs/REPORT.md explains why both tests exist and which one
 * decides a verdict.
 */
#ifndef RP_STATS_H
#define RP_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Five-number summary: quantiles by linear interpolation between order
 * statistics (R's type 7, numpy's default), so min and max are samples. */
typedef struct {
  double min, q1, median, q3, max;
} rp_five;

/* Fills *out from x[0..n). Returns CM_OK, CM_EINVAL when n == 0, or
 * CM_ENOMEM. */
int rp_five_number(const double *x, size_t n, rp_five *out);

/* Median of x[0..n); NaN when n == 0 or out of memory. */
double rp_median(const double *x, size_t n);

/* Mann-Whitney U test of a against b. */
typedef struct {
  double u_a;      /* U of a: pairs with a > b, plus half the ties */
  double u_b;      /* na * nb - u_a */
  double z;        /* normal approximation, continuity-corrected, signed:
                      > 0 when a tends to be larger than b */
  double p;        /* two-sided p-value from z; 1 when every value ties */
  double tie_term; /* sum over tie groups of t^3 - t (0 without ties) */
} rp_mw;

/* Ranks the pooled samples (mid-ranks for ties), U_a = R_a - na(na+1)/2,
 * sigma^2 = na nb / 12 * ((N + 1) - tie_term / (N (N - 1))), and
 * z = (U_a - na nb / 2 -+ 0.5) / sigma. Returns CM_OK, CM_EINVAL if either
 * set is empty, CM_ENOMEM. */
int rp_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    rp_mw *out);

/* Bootstrap interval of median(new) / median(base). */
typedef struct {
  double ratio;  /* median(new) / median(base) of the samples as given */
  double lo, hi; /* percentile interval at the requested level */
  int resamples;
} rp_boot;

/* Resamples each set with replacement (independently, sizes kept),
 * `resamples` times, from a deterministic generator seeded with seed (the
 * same inputs and seed give the same interval on every machine), and takes
 * the (1-level)/2 and (1+level)/2 percentiles of the ratios. level is e.g.
 * 0.95. Returns CM_OK, CM_EINVAL (an empty set, resamples < 10, level not
 * in (0,1), a median <= 0), CM_ENOMEM. */
int rp_bootstrap_median_ratio(const double *base, size_t nbase,
                              const double *next, size_t nnext, int resamples,
                              uint64_t seed, double level, rp_boot *out);

/* Geometric mean of x[0..n) (all > 0); NaN when n == 0 or any x <= 0. */
double rp_geomean(const double *x, size_t n);

#endif
