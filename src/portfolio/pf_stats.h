/* pf_stats.h: summary statistics of timing samples.
 *
 * Pure functions over a caller-owned array of doubles (seconds, but any unit
 * works: every statistic is in the unit of the input, except cv, which is a
 * ratio). Nothing here allocates except pf_stats_compute's sorted scratch
 * copy, which it frees before returning.
 *
 * Definitions (stated because the literature disagrees):
 *  - median: the middle element of the sorted samples for odd n, the mean of
 *    the two middle elements for even n.
 *  - quantiles q1 (0.25) and q3 (0.75): linear interpolation between closest
 *    ranks, h = (n - 1) * p, x[floor h] + (h - floor h) * (x[floor h + 1] -
 *    x[floor h]) over the sorted samples (Hyndman & Fan type 7, the default of
 *    R and NumPy). iqr = q3 - q1.
 *  - stddev: the sample standard deviation (divisor n - 1); 0 for n = 1.
 *  - cv: stddev / mean; 0 when mean is 0.
 */
#ifndef PF_STATS_H
#define PF_STATS_H

#include <stddef.h>

typedef struct {
  size_t n;
  double min, median, max, mean, stddev, cv;
  double q1, q3, iqr;
} pf_stats;

/* Computes every statistic of x[0..n-1] into *out. Returns CM_OK, CM_EINVAL
 * (n == 0, x NULL, or a sample that is NaN or infinite) or CM_ENOMEM. *out is
 * zeroed on failure. x is not modified. */
int pf_stats_compute(const double *x, size_t n, pf_stats *out);

/* The p-quantile (0 <= p <= 1) of sorted[0..n-1] (ascending), type 7 as
 * above. n must be >= 1. */
double pf_stats_quantile_sorted(const double *sorted, size_t n, double p);

/* Running mean and variance (Welford), so that the sampling loop can test
 * the coefficient of variation after each sample in O(1). */
typedef struct {
  size_t n;
  double mean;
  double m2; /* sum of squared deviations from the running mean */
} pf_running;

void pf_running_init(pf_running *r);
void pf_running_add(pf_running *r, double x);
/* Sample coefficient of variation so far; +inf while n < 2 (not yet known),
 * 0 if the mean is 0. */
double pf_running_cv(const pf_running *r);

#endif
