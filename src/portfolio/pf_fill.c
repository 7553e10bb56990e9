/* pf_fill.c: see pf_fill.h. */
#include "pf_fill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pf_half.h"
#include "pf_ref.h"

/* Bulk passes go through pf_ref_parallel; ranges shorter than this are not
 * worth a thread. */
#define FILL_CHUNK 65536

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
  P_ZERO,         /* all zero */
  P_NEAR_EPS,     /* mean square about half of rmsnorm's eps */
  P_CANCEL,       /* about +100 on 45 %, -82 on the rest: a sum near 0 */
  P_ENDS          /* 16 first and last, 0 between (not in the lists) */
};

static const int pat_softmax[] = {P_LARGE_EQUAL,  P_ALL_NEG9000, P_POS_INF,
                                  P_SOME_NEG_INF, P_ALL_NEG_INF, P_HUGE,
                                  P_TINY,         P_NAN};
/* P_CANCEL is last, so the first eight pattern rows (rows 1 to 29) keep
 * their patterns; from row 33 on the list's ninth entry moved every later
 * row's (64x1000, 260x131080). */
static const int pat_sum[] = {P_LARGE_EQUAL,  P_ALL_NEG9000, P_POS_INF,
                              P_SOME_NEG_INF, P_HUGE,        P_TINY,
                              P_NAN,          P_ZERO,        P_CANCEL};
/* P_NEAR_EPS is last so that the rows of the other patterns keep theirs. */
static const int pat_rms[] = {P_LARGE_EQUAL, P_ALL_NEG9000, P_HUGE,
                              P_TINY,        P_ZERO,        P_NEAR_EPS};

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
  int p = pattern < 0 ? P_ENDS : list[pattern % pf_fill_npatterns(which)];
  /* Huge: near the top of the dtype without overflowing the op's own fp32
   * arithmetic (rmsnorm squares its inputs). Tiny: deep in the range. */
  double huge = dt == CPK_F16 ? 3e4 : which == WHICH_RMS ? 1e15 : 1e30;
  double tiny = dt == CPK_F16 ? 1e-6 : 1e-30;
  int64_t i, at = (int64_t)pf_rng_below(rng, (uint64_t)n);
  /* P_CANCEL: where its negative side starts, and that side's scale */
  const int64_t neg_from = n * 9 / 20;
  const double neg_scale =
      n > neg_from ? (double)neg_from / (double)(n - neg_from) : 1.0;
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
    case P_NEAR_EPS:
      /* Mean square (4e-3)^2 / 3 = 5.3e-6 against eps = 1e-5: eps is two
       * thirds of mean + eps, so an eps that is wrong, 0 or added outside
       * the square root moves rstd by tens of percent, with outputs near 1.
       * Elsewhere it cannot show: random rows (mean square 4/3) move by
       * under 1e-5, and the tiny row's outputs (~1e-28) sit under atol. */
      row[i] = 4e-3 * u;
      break;
    case P_CANCEL:
      /* A sum near 0 of terms far from it: 100 + u on the first 45 % of
       * the row, -(100 * 45/55) - u on the rest. Partial sums over a part
       * of the row are about 100 per column, so a partial stored in 16
       * bits (a split reduction's) is off by up to 2^-9 of that in bf16,
       * far more than the fp32 allowance (gamma * sum |x| = 2e-4 per
       * column), and in fp16 overflows past 65504 (+inf + -inf: NaN) once
       * it spans 656 columns; on random rows that bug passed wherever the
       * row's sum was not near 0 by chance. The two sides differ in
       * magnitude so that their partials do not round to one bf16 value
       * and cancel exactly (with equal halves they did, on a row in 7). */
      row[i] = i < neg_from ? 100.0 + u : -100.0 * neg_scale - u;
      break;
    case P_ENDS:
      row[i] = i == 0 || i == n - 1 ? 16.0 : 0.0;
      break;
    default:
      row[i] = 0.0;
      break;
    }
  }
}

/* Every parallel pass of this file uses one context; each pass reads the
 * fields it needs. Values depend only on (key, element or row index), never
 * on the ranges, so any thread count gives the same inputs. */
typedef struct {
  const pf_case *c;
  double *v;
  uint8_t *m;
  int64_t n, cols;
  double lo, hi;
  uint64_t key;
  int which;
} fill_ctx;

static int64_t row_chunk(int64_t cols) {
  return 1 + FILL_CHUNK / (cols > 0 ? cols : 1);
}

static void uniform_range(void *p, int64_t i0, int64_t i1) {
  const fill_ctx *f = p;
  int64_t i;
  for (i = i0; i < i1; i++)
    f->v[i] = pf_dtype_round(
        f->c->dt, pf_rng_bits_uniform(pf_rng_at(f->key, i), f->lo, f->hi));
}

/* v[i] = element i of stream `key`, uniform in [lo, hi), rounded to dt. */
static void uniform(const pf_case *c, double *v, int64_t n, double lo,
                    double hi, uint64_t key) {
  fill_ctx f = {c, v, NULL, n, 0, lo, hi, key, 0};
  (void)pf_ref_parallel(n, FILL_CHUNK, uniform_range, &f);
}

static void round_all(double *v, int64_t n, cpk_dtype dt) {
  int64_t i;
  for (i = 0; i < n; i++)
    v[i] = pf_dtype_round(dt, v[i]);
}

/* 1 if row r of an extreme tensor of `rows` rows holds the ends pattern:
 * the last row, when there are at least 3 and it is not a pattern row.
 * With random values a reduction's error allowance (gamma * sum |terms|)
 * grows with the width, and on rows of ~10^6 it exceeds any one term: a
 * kernel that drops or doubles the first or last element (a tail its vector
 * loop did not take) would pass. Here those two elements carry most of the
 * row's sum (of its softmax mass, its sum of squares, its dot products), so
 * the same bug is off by far more than any tolerance, on every width. */
static int ends_row(int64_t r, int64_t rows) {
  return rows >= 3 && r == rows - 1 && r % 4 != 1;
}

static void extreme_range(void *p, int64_t r0, int64_t r1) {
  const fill_ctx *f = p;
  int64_t r;
  for (r = r0; r < r1; r++) {
    double *row = f->v + r * f->cols;
    pf_rng rng;
    if (ends_row(r, f->c->rows)) {
      pf_rng_seed(&rng, 0);
      pf_fill_extreme_row(row, f->cols, -1, f->which, f->c->dt, &rng);
      continue;
    }
    if (r % 4 != 1)
      continue;
    pf_rng_seed(&rng, pf_rng_derive(f->key, (uint64_t)r));
    pf_fill_extreme_row(row, f->cols, (int)((r / 4) % 1024), f->which, f->c->dt,
                        &rng);
    round_all(row, f->cols, f->c->dt);
  }
}

/* Overwrites the extreme rows of a rows x cols tensor; row r draws from its
 * own stream derived from (key, r). */
static void extreme_rows(const pf_case *c, double *v, int which, uint64_t key) {
  fill_ctx f = {c, v, NULL, c->rows, c->cols, 0, 0, key, which};
  if (!c->spec.extreme || c->rows < 2)
    return;
  (void)pf_ref_parallel(c->rows, row_chunk(c->cols), extreme_range, &f);
}

void pf_fill_elementwise(pf_case *c, pf_rng *rng) {
  /* Specials sprinkled into elementwise inputs: IEEE must pass them
   * through (inf + -inf = NaN, -0 stays -0, subnormals are not flushed).
   * The smallest subnormal of each dtype: bf16's is 2^-133 (fp32's 2^-149
   * would round to 0 in bf16, and bf16 would have no subnormal). */
  const double specials[] = {
      INFINITY,           -INFINITY, NAN, -0.0, pf_dtype_tiny(c->dt),
      pf_dtype_max(c->dt)};
  const uint64_t nspecial = sizeof specials / sizeof specials[0];
  int i, first = 1;
  int64_t start0 = 0;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    int64_t n = t->rows * t->cols, j;
    uint64_t key, skey;
    if (t->is_output)
      continue;
    /* Two keys per input, drawn in tensor order: values, then specials. */
    key = pf_rng_next(rng);
    skey = pf_rng_next(rng);
    uniform(c, t->val, n, -4.0, 4.0, key);
    if (!c->spec.extreme)
      continue;
    /* Every 61st element from a random start; which special is a function
     * of the position, so this loop could be split like the fill. */
    for (j = (int64_t)(pf_rng_at(skey, 0) % 61); j < n; j += 61)
      t->val[j] = pf_dtype_round(
          c->dt, specials[pf_rng_at(skey, 1 + (uint64_t)j) % nspecial]);
    /* A second input (add's b) also meets the first one's specials with
     * specials of its own: against a value of [-4, 4] a subnormal vanishes
     * in the sum, so only subnormal + subnormal or + -0 shows a flush to
     * zero, and only -0 + -0 shows a lost sign (the exact check sees both:
     * docs/VALIDATION.md). */
    if (first)
      start0 = (int64_t)(pf_rng_at(skey, 0) % 61);
    else
      for (j = start0; j < n; j += 61)
        t->val[j] = pf_dtype_round(
            c->dt, specials[pf_rng_at(skey, (uint64_t)n + 1 + (uint64_t)j) %
                            nspecial]);
    first = 0;
  }
}

void pf_fill_row_sum(pf_case *c, pf_rng *rng) {
  uint64_t key = pf_rng_next(rng), xkey = pf_rng_next(rng);
  uniform(c, c->t[0].val, c->rows * c->cols, -1.0, 1.0, key);
  extreme_rows(c, c->t[0].val, WHICH_SUM, xkey);
}

static void mask_range(void *p, int64_t r0, int64_t r1) {
  const fill_ctx *f = p;
  int64_t r, i, rows = f->c->rows, cols = f->cols;
  for (r = r0; r < r1; r++) {
    uint8_t *m = f->m + r * cols;
    int64_t keep = (int64_t)(pf_rng_at(f->key, (uint64_t)r) % (uint64_t)cols);
    uint64_t rowkey = pf_rng_derive(f->key, (uint64_t)r);
    /* The ends row (extreme inputs) must keep its ends visible, or the mask
     * would hide the two elements that catch a dropped first or last
     * element: the row with one position kept keeps the last, a randomly
     * masked row keeps both; a fully masked row stays fully masked (the
     * mask's own semantics), so 3-row shapes have no ends row when masked. */
    const int ends = f->c->spec.extreme && ends_row(r, rows);
    if (ends)
      keep = cols - 1;
    /* Row 3, the first with one position kept, keeps the first: a max that
     * skips a row's first element (or, in the ends row, its last) then sees
     * only masked positions. Elsewhere such a max passes, since softmax
     * does not depend on the max unless exp overflows. */
    else if (r == 3)
      keep = 0;
    for (i = 0; i < cols; i++) {
      if (rows > 1 && r % 4 == 2)
        m[i] = 1;
      else if (rows > 1 && r % 4 == 3)
        m[i] = i != keep;
      else if (ends && (i == 0 || i == cols - 1))
        m[i] = 0;
      else
        m[i] = pf_rng_at(rowkey, (uint64_t)i) % 4 == 0;
    }
  }
}

void pf_fill_softmax(pf_case *c, pf_rng *rng) {
  uint64_t key = pf_rng_next(rng), xkey = pf_rng_next(rng);
  uint64_t mkey = pf_rng_next(rng);
  fill_ctx f = {c, NULL, NULL, c->rows, c->cols, 0, 0, mkey, 0};
  uniform(c, c->t[0].val, c->rows * c->cols, -8.0, 8.0, key);
  extreme_rows(c, c->t[0].val, WHICH_SOFTMAX, xkey);
  if (!c->spec.mask)
    return;
  /* About a quarter masked at random; every row r % 4 == 2 fully masked;
   * every row r % 4 == 3 masked but for one position. */
  f.m = c->t[1].mval;
  (void)pf_ref_parallel(c->rows, row_chunk(c->cols), mask_range, &f);
  /* Row 3 keeps only its first position (mask_range): a NaN and a +inf at
   * two of its masked positions must not reach the output. A kernel that
   * tests for them before applying the mask (and poisons the row) used to
   * pass wherever no special of the extreme rows happened to land on a
   * masked position, about 18 % of runs; now every masked case of 4 rows
   * and 3 columns or more has them (not the ends row, when row 3 is it). */
  if (c->rows >= 4 && c->cols >= 3 &&
      !(c->spec.extreme && ends_row(3, c->rows))) {
    double *x3 = c->t[0].val + 3 * c->cols;
    x3[1] = INFINITY;
    x3[c->cols - 1] = NAN;
  }
}

/* y rows of softmax_backward: a real softmax output (rows sum to 1), from
 * random or extreme logits that give finite outputs; row r draws from the
 * stream derived from (key, r). */
static void softmax_y_range(void *p, int64_t r0, int64_t r1) {
  static const int finite_patterns[] = {0, 1, 3, 5, 6};
  const fill_ctx *f = p;
  const pf_case *c = f->c;
  int64_t r, i, n = f->cols;
  for (r = r0; r < r1; r++) {
    double *row = f->v + r * n, mx = -INFINITY, sum = 0;
    pf_rng rng;
    pf_rng_seed(&rng, pf_rng_derive(f->key, (uint64_t)r));
    if (c->spec.extreme && ends_row(r, c->rows))
      pf_fill_extreme_row(row, n, -1, WHICH_SOFTMAX, c->dt, &rng);
    else if (c->spec.extreme && c->rows > 1 && r % 4 == 1)
      pf_fill_extreme_row(row, n, finite_patterns[(r / 4) % 5], WHICH_SOFTMAX,
                          c->dt, &rng);
    else
      for (i = 0; i < n; i++)
        row[i] = pf_rng_uniform(&rng, -4.0, 4.0);
    for (i = 0; i < n; i++)
      if (row[i] > mx)
        mx = row[i];
    for (i = 0; i < n; i++)
      sum += (row[i] = exp(row[i] - mx));
    for (i = 0; i < n; i++)
      row[i] = pf_dtype_round(c->dt, row[i] / sum);
  }
}

void pf_fill_softmax_bwd(pf_case *c, pf_rng *rng) {
  uint64_t key = pf_rng_next(rng), ykey = pf_rng_next(rng);
  fill_ctx f = {c, c->t[1].val, NULL, c->rows, c->cols, 0, 0, ykey, 0};
  uniform(c, c->t[0].val, c->rows * c->cols, -1.0, 1.0, key);
  (void)pf_ref_parallel(c->rows, row_chunk(c->cols), softmax_y_range, &f);
}

void pf_fill_rmsnorm(pf_case *c, pf_rng *rng) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    uint64_t key, xkey;
    if (t->is_output)
      continue;
    /* Two keys per input in tensor order, used or not, so that one
     * tensor's draws never shift another's. */
    key = pf_rng_next(rng);
    xkey = pf_rng_next(rng);
    if (strcmp(t->name, "w") == 0) {
      uniform(c, t->val, t->cols, 0.5, 1.5, key);
    } else if (strcmp(t->name, "x") == 0) {
      uniform(c, t->val, c->rows * c->cols, -2.0, 2.0, key);
      extreme_rows(c, t->val, WHICH_RMS, xkey);
    } else {
      uniform(c, t->val, c->rows * c->cols, -1.0, 1.0, key);
    }
  }
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The sample of an m x n output (pf_fill.h). The uniform draws catch
 * scattered errors with a probability; the block draws make sure that a
 * wrong region covering a whole block (a tile stored in the wrong place, a
 * fragment garbled) has an element in the sample on every seed. They come
 * after the uniform draws, so that those stay what they were. */
static void choose_sample(pf_case *c, pf_rng *rng) {
  const int64_t m = c->g.m, n = c->g.n, bs = PF_MATMUL_BLOCK;
  const int64_t mb = (m + bs - 1) / bs, nb = (n + bs - 1) / bs;
  int64_t cap, k = 0, i, j;
  int64_t *s;
  cap = PF_MATMUL_SAMPLE + 2 * m + 2 * n + mb * nb;
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
  /* Blocks in row-major order, one draw each: an offset in the clipped
   * block, h rows of w. */
  for (i = 0; i < m; i += bs)
    for (j = 0; j < n; j += bs) {
      const int64_t h = m - i < bs ? m - i : bs, w = n - j < bs ? n - j : bs;
      const int64_t off = (int64_t)pf_rng_below(rng, (uint64_t)(h * w));
      s[k++] = (i + off / w) * n + j + off % w;
    }
  qsort(s, (size_t)k, sizeof *s, cmp_i64);
  for (i = j = 0; i < k; i++)
    if (j == 0 || s[i] != s[j - 1])
      s[j++] = s[i];
  c->sample = s;
  c->nsample = j;
}

/* -1: the default, PF_MATMUL_SAMPLE_ABOVE (set once, before any case) */
static int64_t sample_above = -1;

int64_t pf_matmul_sample_above(void) {
  return sample_above < 0 ? PF_MATMUL_SAMPLE_ABOVE : sample_above;
}

void pf_set_matmul_sample_above(int64_t macs) {
  sample_above = macs < 0 ? -1 : macs;
}

int pf_matmul_sampled(int64_t m, int64_t n, int64_t k) {
  /* in double: m n k may pass 2^63; the limit's rounding to double (above
   * 2^53) moves it by less than one part in 2^52 */
  return (double)m * (double)n * (double)k > (double)pf_matmul_sample_above();
}

/* Matmul's extreme inputs. fp16: op(A)'s column p times 2^sk[p % 5] and
 * op(B)'s row p times 2^-sk[p % 5], so each product keeps its size while
 * the operands reach both ends of fp16's range (2^15 and its subnormals);
 * then op(A)'s row i times 2^rs[i % 3] and op(B)'s column j times
 * 2^cs[j % 3], which spreads the outputs over 2^-5..2^5. bf16 and fp32:
 * one operand, S, takes the column (A) or row (B) p times 2^sk[p % 5] and
 * the spread 2^ls[o % 3] along its other index, the other operand
 * 2^-sk[p % 5] alone; sk reaches -127, so S holds subnormals (2^-127
 * times a value in [-1, 1]) facing the other operand's 2^127, and S
 * reaches 2^120; the outputs spread over 1..2^60. Both operands cannot
 * hold subnormals at once: a product of 2^-127 x 2^127 leaves no room for
 * a spread on both sides that keeps every output above atol and below
 * the top. S is op(A) where trans_a == trans_b, else op(B), so that the
 * test set puts them in each operand. No output reaches atol's scale
 * or the dtype's top. Three specials, each alone in its column of op(A)
 * and row of op(B) where it must be alone: the largest finite value at
 * op(A)[m/4, 0] and op(B)[0, n/4] (their product passes every dtype's
 * range: C[m/4, n/4] is +inf, fp32's accumulator overflows for bf16 and
 * fp32 and fp16's store does), +inf at op(A)[m/2, 1 % k] (C's row m/2:
 * +-inf, NaN where it meets a zero) and NaN at op(B)[2 % k, n/2] (C's
 * column n/2). Every special's result follows from IEEE arithmetic in any
 * order of the sum, so a kernel that computes the product correctly
 * matches the float64 reference in those too. */
typedef struct {
  pf_case *c;
  int which;    /* 0: A, 1: B */
  int k_rows;   /* its stored rows run along k (A^T: k x m; B: k x n) */
  int64_t cols; /* of the operand as stored */
} mm_extreme_ctx;

/* The power of two on operand `which` (0: A, 1: B) at index p along k and
 * o along its other dimension. */
static int mm_extreme_exp(cpk_dtype dt, int trans_a, int trans_b, int which,
                          int64_t p, int64_t o) {
  static const int sk16[] = {0, 8, -8, 12, -12},
                   sk32[] = {0, 40, -40, 60, -127};
  static const int rs16[] = {0, 3, -3}, cs16[] = {0, 2, -2},
                   ls32[] = {0, 30, 60};
  if (dt == CPK_F16)
    return (which == 0 ? sk16[p % 5] : -sk16[p % 5]) +
           (which == 0 ? rs16 : cs16)[o % 3];
  /* the operand with the subnormals: A where the layouts agree */
  if (which == (trans_a != trans_b))
    return sk32[p % 5] + ls32[o % 3];
  return -sk32[p % 5];
}

static void mm_extreme_range(void *p, int64_t r0, int64_t r1) {
  const mm_extreme_ctx *x = p;
  pf_case *c = x->c;
  const int64_t cols = x->cols;
  double *v = c->t[x->which].val;
  int64_t r, q;
  for (r = r0; r < r1; r++)
    for (q = 0; q < cols; q++) {
      /* the index along k, and the other (along m for A, n for B) */
      const int64_t kp = x->k_rows ? r : q, o = x->k_rows ? q : r;
      const int e =
          mm_extreme_exp(c->dt, c->g.trans_a, c->g.trans_b, x->which, kp, o);
      double *el = &v[r * cols + q];
      *el = pf_dtype_round(c->dt, ldexp(*el, e));
    }
}

/* The three specials of the extreme inputs (above), on op(A) and op(B). */
static void mm_extreme_specials(pf_case *c) {
  const cpk_gemm *g = &c->g;
  double *a = c->t[0].val, *b = c->t[1].val;
  const double top = pf_dtype_max(c->dt);
  const int64_t m = g->m, n = g->n, k = g->k;
  int64_t i, j;
#define OPA(i, p) a[g->trans_a ? (p)*m + (i) : (i)*k + (p)]
#define OPB(p, j) b[g->trans_b ? (j)*k + (p) : (p)*n + (j)]
  for (i = 0; i < m; i++)
    OPA(i, 0) = 0.0;
  for (j = 0; j < n; j++)
    OPB(0, j) = 0.0;
  OPA(m / 4, 0) = top;
  OPB(0, n / 4) = top;
  OPA(m / 2, 1 % k) = INFINITY;
  OPB(2 % k, n / 2) = NAN;
#undef OPA
#undef OPB
}

void pf_fill_matmul(pf_case *c, pf_rng *rng) {
  const cpk_gemm *g = &c->g;
  uint64_t akey = pf_rng_next(rng), bkey = pf_rng_next(rng);
  uniform(c, c->t[0].val, g->m * g->k, -1.0, 1.0, akey);
  uniform(c, c->t[1].val, g->k * g->n, -1.0, 1.0, bkey);
  if (c->spec.extreme) {
    int w;
    /* each operand's stored rows, as the reference reads them */
    mm_extreme_ctx x[2] = {{c, 0, g->trans_a, g->trans_a ? g->m : g->k},
                           {c, 1, !g->trans_b, g->trans_b ? g->k : g->n}};
    const int64_t rows[2] = {g->trans_a ? g->k : g->m,
                             g->trans_b ? g->n : g->k};
    for (w = 0; w < 2; w++)
      (void)pf_ref_parallel(rows[w], row_chunk(x[w].cols), mm_extreme_range,
                            &x[w]);
    mm_extreme_specials(c);
  }
  /* The sample draws sequentially from the case stream (after the keys). */
  if (pf_matmul_sampled(g->m, g->n, g->k))
    choose_sample(c, rng);
}

typedef struct {
  cpk_dtype dt;
  const pf_tensor *t;
} image_ctx;

/* Elements [k0, k1) of the image in device order (rows x ld). */
static void image_range(void *p, int64_t k0, int64_t k1) {
  const image_ctx *ic = p;
  const pf_tensor *t = ic->t;
  int64_t r = k0 / t->ld, j = k0 % t->ld, k;
  unsigned char *e = t->image + (size_t)k0 * t->elsize;
  for (k = k0; k < k1; k++, e += t->elsize) {
    if (t->is_mask)
      *e = j < t->cols ? t->mval[r * t->cols + j] : 0xA5;
    else
      pf_dtype_store(ic->dt, j < t->cols ? t->val[r * t->cols + j] : 777.0, e);
    if (++j == t->ld) {
      j = 0;
      r++;
    }
  }
}

void pf_fill_images(pf_case *c) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    image_ctx ic = {c->dt, &c->t[i]};
    if (c->t[i].is_output)
      continue;
    (void)pf_ref_parallel(c->t[i].rows * c->t[i].ld, FILL_CHUNK, image_range,
                          &ic);
  }
}
