/* pf_tol.c: the tolerance table and assert_close (see pf_tol.h and the
 * justification of every number in docs/VALIDATION.md). */
#include "pf_tol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_error.h"
#include "pf_half.h"
#include "pf_ref.h"

/* Elements per block of a parallel comparison. Blocks are fixed, so the
 * result (the worst element included) does not depend on the thread count. */
#define CMP_BLOCK ((int64_t)1 << 20)

/* fp32 accumulation: gamma allows 32 fp32 roundings (32 * 2^-24) of the sum
 * of |terms|, which covers blocked and tree reductions in any order. */
#define PF_GAMMA_F32ACC 2e-6

/* Rows: op. Columns: fp32, fp16, bf16. */
static const pf_tol tol_table[][3] = {
    /* copy: a copy is exact in every dtype */
    [CPK_OP_COPY] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    [CPK_OP_COPY_UNMASKED] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    /* the verification control is checked as add is (it must fail it) */
    [CPK_OP_ADD_FTZ] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    /* add: exact against the sum rounded once to dt (pf_ops.c's ref_add):
     * IEEE addition in fp32 rounded to dt is that, so a flushed subnormal,
     * a lost -0 or another rounding is a failure */
    [CPK_OP_ADD] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    [CPK_OP_ROW_SUM] = {{1.3e-6, 1e-5, PF_GAMMA_F32ACC},
                        {1e-3, 1e-5, PF_GAMMA_F32ACC},
                        {1.6e-2, 1e-5, PF_GAMMA_F32ACC}},
    /* softmax: looser fp32 rtol for exp/division error; atol far below the
     * default because outputs of wide rows are ~1/cols (1e-6 at 1M) and a
     * 1e-5 atol would pass an all-zero row. fp16 atol covers the rounding of
     * outputs that fall into the fp16 subnormal range (half ulp 3e-8). */
    [CPK_OP_SOFTMAX] = {{1e-5, 1e-9, 0}, {1e-3, 1e-7, 0}, {1.6e-2, 1e-9, 0}},
    [CPK_OP_SOFTMAX_BWD] = {{1.3e-6, 1e-9, PF_GAMMA_F32ACC},
                            {1e-3, 1e-7, PF_GAMMA_F32ACC},
                            {1.6e-2, 1e-9, PF_GAMMA_F32ACC}},
    /* rmsnorm: rsqrtf (2 ulp) and a long positive sum of squares */
    [CPK_OP_RMSNORM] = {{1e-5, 1e-5, 0}, {1e-3, 1e-5, 0}, {1.6e-2, 1e-5, 0}},
    [CPK_OP_RMSNORM_BWD] = {{1e-5, 1e-5, PF_GAMMA_F32ACC},
                            {1e-3, 1e-5, PF_GAMMA_F32ACC},
                            {1.6e-2, 1e-5, PF_GAMMA_F32ACC}},
    [CPK_OP_MATMUL] = {{1.3e-6, 1e-5, PF_GAMMA_F32ACC},
                       {1e-3, 1e-5, PF_GAMMA_F32ACC},
                       {1.6e-2, 1e-5, PF_GAMMA_F32ACC}},
};

pf_tol pf_tol_get(cpk_op op, cpk_dtype dt) {
  pf_tol none = {0, 0, 0};
  if ((int)op < 0 || (size_t)op >= sizeof tol_table / sizeof tol_table[0])
    return none;
  if ((int)dt < 0 || (int)dt > 2)
    return none;
  return tol_table[op][dt];
}

/* How far outside its tolerance an element is: <= 1 passes; INFINITY for a
 * non-finite mismatch. */
static double excess(double a, double e, double s, pf_tol t) {
  double allowed, diff;
  if (isnan(e))
    return isnan(a) ? 0.0 : INFINITY;
  if (isinf(e))
    return a == e ? 0.0 : INFINITY;
  if (!isfinite(a))
    return INFINITY;
  diff = fabs(a - e);
  allowed = t.atol + t.rtol * fabs(e) + t.gamma * s;
  /* Exactness (copy) is of the bits: -0 for +0 is a changed bit. */
  if (allowed == 0.0 && signbit(a) != signbit(e))
    return INFINITY;
  if (diff == 0.0)
    return 0.0;
  if (allowed == 0.0)
    return INFINITY; /* exactness required and not met */
  return diff / allowed;
}

int pf_control_agree(const double *stored, const double *pred, int64_t n,
                     const int64_t *idx, int64_t nidx, const char *reason,
                     int64_t failed, int64_t predicted, int64_t *mismatched) {
  const pf_tol exact = {0, 0, 0};
  pf_cmp m;
  (void)pf_compare(stored, pred, NULL, n, idx, nidx, exact, &m);
  *mismatched = m.failed;
  /* a failure of another kind (not the tolerance) is not the one planted */
  if (reason != NULL && strcmp(reason, "tolerance") != 0)
    return 0;
  return m.failed == 0 && failed == predicted;
}

int pf_close(double actual, double expected, double scale, pf_tol t) {
  return excess(actual, expected, scale, t) <= 1.0;
}

static void cmp_init(pf_cmp *out) {
  out->checked = 0;
  out->failed = 0;
  out->worst = -1;
  out->worst_actual = out->worst_expected = 0;
  out->worst_excess = -1.0;
  out->max_abs = out->max_rel = 0;
}

/* Counts element i (actual a, expected e, excess x) into *out. */
static void cmp_note(pf_cmp *out, int64_t i, double a, double e, double x) {
  out->checked++;
  if (isfinite(a) && isfinite(e)) {
    double d = fabs(a - e);
    if (d > out->max_abs)
      out->max_abs = d;
    if (e != 0.0 && d / fabs(e) > out->max_rel)
      out->max_rel = d / fabs(e);
  }
  if (x > 1.0)
    out->failed++;
  /* Keep the first of equally bad elements: the first non-finite
   * mismatch is the most useful one to print. */
  if (x > out->worst_excess) {
    out->worst_excess = x;
    out->worst = i;
    out->worst_actual = a;
    out->worst_expected = e;
  }
}

typedef struct {
  const double *actual, *expected, *scale;
  int64_t n, count;
  const int64_t *idx;
  pf_tol t;
  pf_cmp *part; /* one per block */
} cmp_ctx;

/* Compares positions [j0, j1) of the list (or of [0, n)) into *out. */
static void cmp_range(const cmp_ctx *c, int64_t j0, int64_t j1, pf_cmp *out) {
  int64_t j;
  cmp_init(out);
  for (j = j0; j < j1; j++) {
    int64_t i = c->idx ? c->idx[j] : j;
    double a, e, x;
    if (i < 0 || i >= c->n)
      continue;
    a = c->actual[i];
    e = c->expected[i];
    x = excess(a, e, c->scale ? c->scale[i] : 0.0, c->t);
    cmp_note(out, i, a, e, x);
  }
}

static void cmp_blocks(void *p, int64_t b0, int64_t b1) {
  const cmp_ctx *c = p;
  int64_t b;
  for (b = b0; b < b1; b++) {
    int64_t end = (b + 1) * CMP_BLOCK;
    cmp_range(c, b * CMP_BLOCK, end < c->count ? end : c->count, &c->part[b]);
  }
}

/* Folds block results in block order; the strict > keeps the earliest of
 * equally bad elements, exactly as one pass over all elements would. */
static void cmp_merge(pf_cmp *out, const pf_cmp *p) {
  out->checked += p->checked;
  out->failed += p->failed;
  if (p->max_abs > out->max_abs)
    out->max_abs = p->max_abs;
  if (p->max_rel > out->max_rel)
    out->max_rel = p->max_rel;
  if (p->worst >= 0 && p->worst_excess > out->worst_excess) {
    out->worst_excess = p->worst_excess;
    out->worst = p->worst;
    out->worst_actual = p->worst_actual;
    out->worst_expected = p->worst_expected;
  }
}

int pf_compare(const double *actual, const double *expected,
               const double *scale, int64_t n, const int64_t *idx, int64_t nidx,
               pf_tol t, pf_cmp *out) {
  cmp_ctx c;
  int64_t nblocks, b;
  c.actual = actual;
  c.expected = expected;
  c.scale = scale;
  c.n = n;
  c.count = idx ? nidx : n;
  c.idx = idx;
  c.t = t;
  c.part = NULL;
  nblocks = c.count > 0 ? (c.count + CMP_BLOCK - 1) / CMP_BLOCK : 0;
  if (nblocks > 1)
    c.part = malloc((size_t)nblocks * sizeof *c.part);
  /* One block, or no memory for the partials: one pass here. */
  if (!c.part || pf_ref_parallel(nblocks, 1, cmp_blocks, &c) != CM_OK) {
    cmp_range(&c, 0, c.count, out);
    free(c.part);
    return out->failed == 0;
  }
  cmp_init(out);
  for (b = 0; b < nblocks; b++)
    cmp_merge(out, &c.part[b]);
  free(c.part);
  return out->failed == 0;
}

/* ---- rounding ---- */

typedef struct {
  cpk_dtype dt;
  const double *actual, *expected;
  int64_t n, count;
  const int64_t *idx;
  int64_t *part; /* three counts per block: counted, away, toward */
} round_ctx;

/* Counts positions [j0, j1) of the list (or of [0, n)) into k[0..2]. */
static void round_range(const round_ctx *c, int64_t j0, int64_t j1,
                        int64_t *k) {
  int64_t j;
  k[0] = k[1] = k[2] = 0;
  for (j = j0; j < j1; j++) {
    int64_t i = c->idx ? c->idx[j] : j;
    double a, e, r;
    if (i < 0 || i >= c->n)
      continue;
    a = c->actual[i];
    e = c->expected[i];
    if (!isfinite(a) || !isfinite(e) || e == 0.0)
      continue;
    r = pf_dtype_round(c->dt, e);
    k[0]++;
    if (fabs(a) > fabs(r))
      k[1]++;
    else if (fabs(a) < fabs(r))
      k[2]++;
  }
}

static void round_blocks(void *p, int64_t b0, int64_t b1) {
  const round_ctx *c = p;
  int64_t b;
  for (b = b0; b < b1; b++) {
    int64_t end = (b + 1) * CMP_BLOCK;
    round_range(c, b * CMP_BLOCK, end < c->count ? end : c->count,
                c->part + 3 * b);
  }
}

int pf_rounding_check(cpk_dtype dt, const double *actual,
                      const double *expected, int64_t n, const int64_t *idx,
                      int64_t nidx, pf_rounding *out) {
  round_ctx c;
  int64_t nblocks, b, k[3] = {0, 0, 0};
  double off, lean;
  memset(out, 0, sizeof *out);
  if (dt == CPK_F32)
    return 1;
  c.dt = dt;
  c.actual = actual;
  c.expected = expected;
  c.n = n;
  c.count = idx ? nidx : n;
  c.idx = idx;
  c.part = NULL;
  nblocks = c.count > 0 ? (c.count + CMP_BLOCK - 1) / CMP_BLOCK : 0;
  if (nblocks > 1)
    c.part = malloc((size_t)nblocks * 3 * sizeof *c.part);
  /* One block, or no memory for the counts: one pass here. */
  if (!c.part || pf_ref_parallel(nblocks, 1, round_blocks, &c) != CM_OK)
    round_range(&c, 0, c.count, k);
  else
    for (b = 0; b < nblocks; b++) {
      k[0] += c.part[3 * b];
      k[1] += c.part[3 * b + 1];
      k[2] += c.part[3 * b + 2];
    }
  free(c.part);
  out->counted = k[0];
  out->away = k[1];
  out->toward = k[2];
  off = (double)(k[1] + k[2]);
  if (off > 0) {
    lean = (double)(k[1] - k[2]);
    out->off = off / (double)k[0];
    out->one_way = lean / off;
    out->z = lean / sqrt(off);
  }
  return !(out->off >= PF_ROUND_OFF && fabs(out->one_way) >= PF_ROUND_ONE_WAY &&
           fabs(out->z) >= PF_ROUND_Z);
}

int pf_compare_small_rows(const double *actual, const double *expected,
                          const double *scale, int64_t rows, int64_t cols,
                          pf_tol t, double step, pf_cmp *out) {
  int64_t r, c;
  cmp_init(out);
  for (r = 0; r < rows; r++) {
    const double *e = expected + r * cols;
    double m = 0.0;
    pf_tol ts = t;
    for (c = 0; c < cols; c++)
      if (isfinite(e[c]) && fabs(e[c]) > m)
        m = fabs(e[c]);
    if (!(m > 0.0 && m < t.atol))
      continue;
    ts.atol = t.atol * m > step ? t.atol * m : step;
    for (c = 0; c < cols; c++) {
      const int64_t i = r * cols + c;
      cmp_note(out, i, actual[i], e[c],
               excess(actual[i], e[c], scale ? scale[i] : 0.0, ts));
    }
  }
  return out->failed == 0;
}

/* 1 if the n bytes at p are all v. */
static int all_bytes(const unsigned char *p, size_t n, unsigned char v) {
  size_t i;
  for (i = 0; i < n; i++)
    if (p[i] != v)
      return 0;
  return 1;
}

pf_two pf_two_runs(const unsigned char *a, const unsigned char *b, int64_t rows,
                   int64_t cols, int64_t ld, size_t elsize, unsigned char pa,
                   unsigned char pb, int64_t *where) {
  int64_t r, j;
  *where = -1;
  for (r = 0; r < rows; r++) {
    const size_t row = (size_t)(r * ld) * elsize, len = (size_t)cols * elsize;
    if (memcmp(a + row, b + row, len) != 0)
      for (j = 0; j < cols; j++) {
        const unsigned char *ea = a + row + (size_t)j * elsize;
        const unsigned char *eb = b + row + (size_t)j * elsize;
        if (memcmp(ea, eb, elsize) == 0)
          continue;
        *where = r * cols + j;
        return all_bytes(ea, elsize, pa) && all_bytes(eb, elsize, pb)
                   ? PF_TWO_UNWRITTEN
                   : PF_TWO_DIFFER;
      }
    if (ld > cols &&
        !all_bytes(b + row + len, (size_t)(ld - cols) * elsize, pb)) {
      *where = r;
      return PF_TWO_GAP;
    }
  }
  return PF_TWO_SAME;
}
