/* rp_stats.c: medians, quartiles, Mann-Whitney U and the bootstrap. */
#include "rp_stats.h"

#include "cm_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Type-7 quantile of sorted s[0..n). */
static double quantile_sorted(const double *s, size_t n, double q) {
  double h = (double)(n - 1) * q;
  size_t lo = (size_t)floor(h);
  size_t hi = lo + 1 < n ? lo + 1 : lo;
  /* equal neighbours are the quantile: two infinite ratios (a median that
   * overflowed the division) gave inf - inf, a NaN interval that compare
   * called ambiguous, exit 0, for a case infinitely slower */
  if (s[hi] == s[lo])
    return s[lo];
  return s[lo] + (h - (double)lo) * (s[hi] - s[lo]);
}

static double *sorted_copy(const double *x, size_t n) {
  double *s = malloc(n * sizeof *s);
  if (s == NULL)
    return NULL;
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  return s;
}

int rp_five_number(const double *x, size_t n, rp_five *out) {
  double *s;
  if (n == 0)
    return CM_EINVAL;
  s = sorted_copy(x, n);
  if (s == NULL)
    return CM_ENOMEM;
  out->min = s[0];
  out->q1 = quantile_sorted(s, n, 0.25);
  out->median = quantile_sorted(s, n, 0.5);
  out->q3 = quantile_sorted(s, n, 0.75);
  out->max = s[n - 1];
  free(s);
  return CM_OK;
}

double rp_median(const double *x, size_t n) {
  rp_five f;
  if (rp_five_number(x, n, &f) != CM_OK)
    return NAN;
  return f.median;
}

typedef struct {
  double v;
  int from_a;
} pooled;

static int cmp_pooled(const void *pa, const void *pb) {
  return cmp_double(&((const pooled *)pa)->v, &((const pooled *)pb)->v);
}

int rp_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    rp_mw *out) {
  size_t n = na + nb, i, j;
  pooled *p;
  double ra = 0, tie = 0, mu, var, d, nn, cc;
  if (na == 0 || nb == 0)
    return CM_EINVAL;
  p = malloc(n * sizeof *p);
  if (p == NULL)
    return CM_ENOMEM;
  for (i = 0; i < na; i++) {
    p[i].v = a[i];
    p[i].from_a = 1;
  }
  for (i = 0; i < nb; i++) {
    p[na + i].v = b[i];
    p[na + i].from_a = 0;
  }
  qsort(p, n, sizeof *p, cmp_pooled);
  /* Mid-ranks: a group of t equal values at positions i..j-1 (0-based)
   * all get rank (i + 1 + j) / 2. */
  for (i = 0; i < n; i = j) {
    double rank, t;
    for (j = i + 1; j < n && p[j].v == p[i].v; j++)
      ;
    rank = ((double)i + 1.0 + (double)j) / 2.0;
    t = (double)(j - i);
    tie += t * t * t - t;
    for (size_t k = i; k < j; k++)
      if (p[k].from_a)
        ra += rank;
  }
  free(p);
  out->u_a = ra - (double)na * ((double)na + 1.0) / 2.0;
  out->u_b = (double)na * (double)nb - out->u_a;
  out->tie_term = tie;
  mu = (double)na * (double)nb / 2.0;
  nn = (double)n;
  var = (double)na * (double)nb / 12.0 *
        ((nn + 1.0) - (n > 1 ? tie / (nn * (nn - 1.0)) : 0.0));
  if (!(var > 0)) {
    /* Every value ties: nothing tells the sets apart. */
    out->z = 0;
    out->p = 1;
    return CM_OK;
  }
  d = out->u_a - mu;
  /* Continuity correction towards the mean, never past it. */
  cc = d > 0 ? (d > 0.5 ? 0.5 : d) : (d < -0.5 ? -0.5 : d);
  out->z = (d - cc) / sqrt(var);
  out->p = erfc(fabs(out->z) / sqrt(2.0));
  if (out->p > 1)
    out->p = 1;
  return CM_OK;
}

/* splitmix64: tiny, fixed and identical on every platform, which is what a
 * reproducible report needs (rand() differs between C libraries). */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform index in [0, n) by rejection, so no index is favoured. */
static size_t rand_index(uint64_t *state, size_t n) {
  uint64_t lim = UINT64_MAX - UINT64_MAX % (uint64_t)n, r;
  do {
    r = splitmix64(state);
  } while (r >= lim);
  return (size_t)(r % (uint64_t)n);
}

static void swap_d(double *a, double *b) {
  const double t = *a;
  *a = *b;
  *b = t;
}

/* The k-th smallest of a[0..n) (0-based), a reordered so that every
 * element after index k is at least it: quickselect with a three-way
 * partition (timings repeat at the events' resolution, which a two-way
 * one would make quadratic) around the median of three. O(n) expected. */
static double select_kth(double *a, size_t n, size_t k) {
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1], p;
    size_t lt = lo, i = lo, gt = hi;
    p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    while (i < gt) {
      if (a[i] < p)
        swap_d(&a[lt++], &a[i++]);
      else if (a[i] > p)
        swap_d(&a[i], &a[--gt]);
      else
        i++;
    }
    if (k < lt)
      hi = lt;
    else if (k >= gt)
      lo = gt;
    else
      return p;
  }
  return a[lo];
}

/* The median of a resample, as quantile_sorted(sorted, n, 0.5) gives it
 * (the same two order statistics, the same arithmetic: the same bits),
 * by selection instead of a sort: 2000 resamples of 200 000 samples took
 * minutes sorted. */
static double resample_median(const double *x, size_t n, double *scratch,
                              uint64_t *state) {
  const double h = (double)(n - 1) * 0.5;
  const size_t lo = (size_t)floor(h);
  double vlo, vhi;
  size_t i;
  for (i = 0; i < n; i++)
    scratch[i] = x[rand_index(state, n)];
  vlo = select_kth(scratch, n, lo);
  vhi = vlo;
  if (lo + 1 < n) {
    vhi = scratch[lo + 1];
    for (i = lo + 2; i < n; i++)
      if (scratch[i] < vhi)
        vhi = scratch[i];
  }
  return vlo + (h - (double)lo) * (vhi - vlo);
}

int rp_bootstrap_median_ratio(const double *base, size_t nbase,
                              const double *next, size_t nnext, int resamples,
                              uint64_t seed, double level, rp_boot *out) {
  double mb, mn, *ratios, *sb, *sn;
  uint64_t state = seed;
  int i, r = CM_OK;
  if (nbase == 0 || nnext == 0 || resamples < 10 || !(level > 0) ||
      !(level < 1))
    return CM_EINVAL;
  mb = rp_median(base, nbase);
  mn = rp_median(next, nnext);
  if (!(mb > 0) || !(mn > 0))
    return CM_EINVAL;
  ratios = malloc((size_t)resamples * sizeof *ratios);
  sb = malloc(nbase * sizeof *sb);
  sn = malloc(nnext * sizeof *sn);
  if (ratios == NULL || sb == NULL || sn == NULL) {
    r = CM_ENOMEM;
    goto done;
  }
  for (i = 0; i < resamples; i++) {
    double b = resample_median(base, nbase, sb, &state);
    double n = resample_median(next, nnext, sn, &state);
    ratios[i] = n / b;
  }
  qsort(ratios, (size_t)resamples, sizeof *ratios, cmp_double);
  out->ratio = mn / mb;
  out->lo = quantile_sorted(ratios, (size_t)resamples, (1.0 - level) / 2.0);
  out->hi = quantile_sorted(ratios, (size_t)resamples, (1.0 + level) / 2.0);
  out->resamples = resamples;
done:
  free(ratios);
  free(sb);
  free(sn);
  return r;
}

double rp_geomean(const double *x, size_t n) {
  double s = 0;
  size_t i;
  if (n == 0)
    return NAN;
  for (i = 0; i < n; i++) {
    if (!(x[i] > 0))
      return NAN;
    s += log(x[i]);
  }
  return exp(s / (double)n);
}
