/* pf_stats.c: see pf_stats.h for the definitions used. */
#include "pf_stats.h"

#include "cm_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double pf_stats_quantile_sorted(const double *sorted, size_t n, double p) {
  double h, frac;
  size_t lo;
  if (n == 1 || p <= 0.0)
    return sorted[0];
  if (p >= 1.0)
    return sorted[n - 1];
  h = (double)(n - 1) * p;
  lo = (size_t)floor(h);
  frac = h - (double)lo;
  if (lo + 1 >= n)
    return sorted[n - 1];
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int pf_stats_compute(const double *x, size_t n, pf_stats *out) {
  double *s, sum = 0.0, ss = 0.0, mean;
  size_t i;
  memset(out, 0, sizeof *out);
  if (x == NULL || n == 0)
    return CM_EINVAL;
  for (i = 0; i < n; i++)
    if (!isfinite(x[i]))
      return CM_EINVAL;
  s = malloc(n * sizeof *s);
  if (s == NULL)
    return CM_ENOMEM;
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);

  /* Two passes for the variance: the samples are few (<= thousands) and the
   * two-pass form does not lose digits when the spread is tiny. */
  for (i = 0; i < n; i++)
    sum += s[i];
  mean = sum / (double)n;
  for (i = 0; i < n; i++)
    ss += (s[i] - mean) * (s[i] - mean);

  out->n = n;
  out->min = s[0];
  out->max = s[n - 1];
  out->mean = mean;
  out->median = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
  out->cv = mean != 0.0 ? out->stddev / mean : 0.0;
  out->q1 = pf_stats_quantile_sorted(s, n, 0.25);
  out->q3 = pf_stats_quantile_sorted(s, n, 0.75);
  out->iqr = out->q3 - out->q1;
  free(s);
  return CM_OK;
}

void pf_running_init(pf_running *r) {
  r->n = 0;
  r->mean = 0.0;
  r->m2 = 0.0;
}

void pf_running_add(pf_running *r, double x) {
  double d = x - r->mean;
  r->n++;
  r->mean += d / (double)r->n;
  r->m2 += d * (x - r->mean);
}

double pf_running_cv(const pf_running *r) {
  if (r->n < 2)
    return INFINITY;
  if (r->mean == 0.0)
    return 0.0;
  return sqrt(r->m2 / (double)(r->n - 1)) / fabs(r->mean);
}
