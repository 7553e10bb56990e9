/* pf_fill.c: see pf_fill.h. */
#include "pf_fill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pf_half.h"

enum { WHICH_SOFTMAX = 0, WHICH_SUM = 1, WHICH_RMS = 2 };

/* Pattern lists per `which`. Softmax and sums take non-finite rows; rmsnorm
 * only finite extremes (its fp32 sum of squares is documented to overflow
 * beyond ~1e19, as PyTorch's would). */
enum {
  P_LARGE_EQUAL,  /* 10000, 9999, 10000, ...: max subtraction matters */
  P_ALL_NEG9000,  /* all -9000: exp underflows without the max */
  P_POS_INF,      /* one +inf */
  P_SOME_NEG_INF, /* -inf every third position */
  P_ALL_NEG_INF,  /* all -inf */
  P_HUGE,         /* +-huge magnitudes */
  P_TINY,         /* tiny magnitudes (subnormal in fp16) */
  P_NAN,          /* one NaN */
  P_ZERO          /* all zero */
};

static const int pat_softmax[] = {P_LARGE_EQUAL,  P_ALL_NEG9000, P_POS_INF,
                                  P_SOME_NEG_INF, P_ALL_NEG_INF, P_HUGE,
                                  P_TINY,         P_NAN};
static const int pat_sum[] = {P_LARGE_EQUAL,  P_ALL_NEG9000, P_POS_INF,
                              P_SOME_NEG_INF, P_HUGE,        P_TINY,
                              P_NAN,          P_ZERO};
static const int pat_rms[] = {P_LARGE_EQUAL, P_ALL_NEG9000, P_HUGE, P_TINY,
                              P_ZERO};

int pf_fill_npatterns(int which) {
  if (which == WHICH_SOFTMAX)
    return (int)(sizeof pat_softmax / sizeof pat_softmax[0]);
  if (which == WHICH_SUM)
    return (int)(sizeof pat_sum / sizeof pat_sum[0]);
  return (int)(sizeof pat_rms / sizeof pat_rms[0]);
}

void pf_fill_extreme_row(double *row, int64_t n, int pattern, int which,
                         cpk_dtype dt, pf_rng *rng) {
  const int *list = which == WHICH_SOFTMAX ? pat_softmax
                    : which == WHICH_SUM   ? pat_sum
                                           : pat_rms;
  int p = list[pattern % pf_fill_npatterns(which)];
  /* Huge: near the top of the dtype without overflowing the op's own fp32
   * arithmetic (rmsnorm squares its inputs). Tiny: deep in the range. */
  double huge = dt == CPK_F16 ? 3e4 : which == WHICH_RMS ? 1e15 : 1e30;
  double tiny = dt == CPK_F16 ? 1e-6 : 1e-30;
  int64_t i, at = (int64_t)pf_rng_below(rng, (uint64_t)n);
  for (i = 0; i < n; i++) {
    double u = pf_rng_uniform(rng, -1.0, 1.0);
    switch (p) {
    case P_LARGE_EQUAL:
      row[i] = (i & 1) ? 9999.0 : 10000.0;
      break;
    case P_ALL_NEG9000:
      row[i] = -9000.0;
      break;
    case P_POS_INF:
      row[i] = i == at ? INFINITY : u;
      break;
    case P_SOME_NEG_INF:
      row[i] = i % 3 == 0 ? -INFINITY : 4 * u;
      break;
    case P_ALL_NEG_INF:
      row[i] = -INFINITY;
      break;
    case P_HUGE:
      row[i] = huge * u;
      break;
    case P_TINY:
      row[i] = tiny * u;
      break;
    case P_NAN:
      row[i] = i == at ? NAN : u;
      break;
    default:
      row[i] = 0.0;
      break;
    }
  }
}

static void uniform(double *v, int64_t n, double lo, double hi, cpk_dtype dt,
                    pf_rng *rng) {
  int64_t i;
  for (i = 0; i < n; i++)
    v[i] = pf_dtype_round(dt, pf_rng_uniform(rng, lo, hi));
}

static void round_all(double *v, int64_t n, cpk_dtype dt) {
  int64_t i;
  for (i = 0; i < n; i++)
    v[i] = pf_dtype_round(dt, v[i]);
}

/* Overwrites the extreme rows of a rows x cols tensor. */
static void extreme_rows(const pf_case *c, double *v, int which, pf_rng *rng) {
  int64_t r;
  if (!c->spec.extreme || c->rows < 2)
    return;
  for (r = 1; r < c->rows; r += 4) {
    double *row = v + r * c->cols;
    pf_fill_extreme_row(row, c->cols, (int)((r / 4) % 1024), which, c->dt, rng);
    round_all(row, c->cols, c->dt);
  }
}

void pf_fill_elementwise(pf_case *c, pf_rng *rng) {
  /* Specials sprinkled into elementwise inputs: IEEE must pass them
   * through (inf + -inf = NaN, -0 stays -0, subnormals are not flushed). */
  const double specials[] = {INFINITY,
                             -INFINITY,
                             NAN,
                             -0.0,
                             c->dt == CPK_F16 ? 0x1p-24 : 0x1p-149,
                             pf_dtype_max(c->dt)};
  int i;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    int64_t n = t->rows * t->cols, j;
    if (t->is_output)
      continue;
    uniform(t->val, n, -4.0, 4.0, c->dt, rng);
    if (!c->spec.extreme)
      continue;
    for (j = (int64_t)pf_rng_below(rng, 61); j < n; j += 61)
      t->val[j] = pf_dtype_round(
          c->dt, specials[pf_rng_below(rng, sizeof specials / sizeof(double))]);
  }
}

void pf_fill_row_sum(pf_case *c, pf_rng *rng) {
  uniform(c->t[0].val, c->rows * c->cols, -1.0, 1.0, c->dt, rng);
  extreme_rows(c, c->t[0].val, WHICH_SUM, rng);
}

void pf_fill_softmax(pf_case *c, pf_rng *rng) {
  int64_t r, i;
  uniform(c->t[0].val, c->rows * c->cols, -8.0, 8.0, c->dt, rng);
  extreme_rows(c, c->t[0].val, WHICH_SOFTMAX, rng);
  if (!c->spec.mask)
    return;
  /* About a quarter masked at random; every row r % 4 == 2 fully masked;
   * every row r % 4 == 3 masked but for one position. */
  for (r = 0; r < c->rows; r++) {
    uint8_t *m = c->t[1].mval + r * c->cols;
    int64_t keep = (int64_t)pf_rng_below(rng, (uint64_t)c->cols);
    for (i = 0; i < c->cols; i++) {
      if (c->rows > 1 && r % 4 == 2)
        m[i] = 1;
      else if (c->rows > 1 && r % 4 == 3)
        m[i] = i != keep;
      else
        m[i] = pf_rng_below(rng, 4) == 0;
    }
  }
}

void pf_fill_softmax_bwd(pf_case *c, pf_rng *rng) {
  /* y is a real softmax output (rows sum to 1), from random or extreme
   * logits that give finite outputs; dy is random. */
  static const int finite_patterns[] = {0, 1, 3, 5, 6};
  double *y = c->t[1].val;
  int64_t r, i, n = c->cols;
  uniform(c->t[0].val, c->rows * n, -1.0, 1.0, c->dt, rng);
  for (r = 0; r < c->rows; r++) {
    double *row = y + r * n, mx = -INFINITY, sum = 0;
    if (c->spec.extreme && c->rows > 1 && r % 4 == 1)
      pf_fill_extreme_row(row, n, finite_patterns[(r / 4) % 5], WHICH_SOFTMAX,
                          c->dt, rng);
    else
      for (i = 0; i < n; i++)
        row[i] = pf_rng_uniform(rng, -4.0, 4.0);
    for (i = 0; i < n; i++)
      if (row[i] > mx)
        mx = row[i];
    for (i = 0; i < n; i++)
      sum += (row[i] = exp(row[i] - mx));
    for (i = 0; i < n; i++)
      row[i] = pf_dtype_round(c->dt, row[i] / sum);
  }
}

void pf_fill_rmsnorm(pf_case *c, pf_rng *rng) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    if (t->is_output)
      continue;
    if (strcmp(t->name, "w") == 0) {
      uniform(t->val, t->cols, 0.5, 1.5, c->dt, rng);
    } else if (strcmp(t->name, "x") == 0) {
      uniform(t->val, c->rows * c->cols, -2.0, 2.0, c->dt, rng);
      extreme_rows(c, t->val, WHICH_RMS, rng);
    } else {
      uniform(t->val, c->rows * c->cols, -1.0, 1.0, c->dt, rng);
    }
  }
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void choose_sample(pf_case *c, pf_rng *rng) {
  int64_t m = c->g.m, n = c->g.n, cap, k = 0, i, j;
  int64_t *s;
  cap = PF_MATMUL_SAMPLE + 2 * m + 2 * n;
  s = malloc((size_t)cap * sizeof *s);
  if (!s)
    return;
  for (i = 0; i < PF_MATMUL_SAMPLE; i++)
    s[k++] = (int64_t)pf_rng_below(rng, (uint64_t)(m * n));
  for (j = 0; j < n; j++) {
    s[k++] = j;
    s[k++] = (m - 1) * n + j;
  }
  for (i = 0; i < m; i++) {
    s[k++] = i * n;
    s[k++] = i * n + n - 1;
  }
  qsort(s, (size_t)k, sizeof *s, cmp_i64);
  for (i = j = 0; i < k; i++)
    if (j == 0 || s[i] != s[j - 1])
      s[j++] = s[i];
  c->sample = s;
  c->nsample = j;
}

void pf_fill_matmul(pf_case *c, pf_rng *rng) {
  const cpk_gemm *g = &c->g;
  uniform(c->t[0].val, g->m * g->k, -1.0, 1.0, c->dt, rng);
  uniform(c->t[1].val, g->k * g->n, -1.0, 1.0, c->dt, rng);
  if ((double)g->m * (double)g->n * (double)g->k > (double)PF_MATMUL_FULL_MACS)
    choose_sample(c, rng);
}

void pf_fill_images(pf_case *c) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    int64_t r, j;
    if (t->is_output)
      continue;
    for (r = 0; r < t->rows; r++) {
      unsigned char *dst = t->image + (size_t)(r * t->ld) * t->elsize;
      for (j = 0; j < t->ld; j++) {
        unsigned char *e = dst + (size_t)j * t->elsize;
        if (t->is_mask)
          *e = j < t->cols ? t->mval[r * t->cols + j] : 0xA5;
        else
          pf_dtype_store(c->dt, j < t->cols ? t->val[r * t->cols + j] : 777.0,
                         e);
      }
    }
  }
}
