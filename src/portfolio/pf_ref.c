/* pf_ref.c: the float64 references (see pf_ref.h). Written from the
 * definitions of the ops, deliberately simple: a reference should be easy to
 * read and obviously right, not fast; threads are the only speed-up but
 * matmul's: a sampled matmul reads its strided columns from contiguous
 * copies, and the full product is computed in cache blocks and register
 * tiles (built for AVX2 and AVX-512 too, chosen by the CPU); both sum the
 * same products in the same order as the plain dot product (mm_dot), bit
 * for bit, which the unit tests hold them to. */
#include "pf_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "cm_error.h"
#include "platform.h"

/* Every product rounded on its own, never fused into a multiply-add: the
 * matmul reference's blocked, listed and plain paths give the same bits
 * only so (CMakeLists.txt passes -ffp-contract=off to GCC and Clang). */
#ifdef _MSC_VER
#pragma fp_contract(off)
#endif
/* Clang's own spelling, which clang-cl and icx (both Clang) honour where
 * they ignore the MSVC pragma and the command line's flag. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
/* -ffast-math lets the compiler reorder the sums: the paths would no longer
 * give the same bits (measured with Clang), nor the reference its stated
 * order. */
#ifdef __FAST_MATH__
#error                                                                         \
    "pf_ref.c must not be compiled with -ffast-math (the float64 references rely on IEEE order)"
#endif

/* 0: not chosen yet, use the CPUs online (read once, when first needed). */
static int ref_threads = 0;

void pf_ref_set_threads(int n) {
  ref_threads = n <= 0 ? 0 : n > 256 ? 256 : n;
}

int pf_ref_threads(void) {
  if (ref_threads == 0) {
    int n = plat_cpu_count();
    ref_threads = n < 1 ? 1 : n > 256 ? 256 : n;
  }
  return ref_threads;
}

typedef struct {
  void (*fn)(void *ctx, int64_t begin, int64_t end);
  void *ctx;
  int64_t begin, end;
} ref_job;

static int job_main(void *arg) {
  ref_job *j = arg;
  j->fn(j->ctx, j->begin, j->end);
  return 0;
}

int pf_ref_parallel(int64_t n, int64_t min_chunk,
                    void (*fn)(void *ctx, int64_t begin, int64_t end),
                    void *ctx) {
  int64_t nt = pf_ref_threads(), t, per;
  thrd_t *th;
  ref_job *jobs;
  int64_t started = 0;
  int err = CM_OK;
  if (min_chunk < 1)
    min_chunk = 1;
  if (n / min_chunk < nt)
    nt = n / min_chunk;
  if (nt <= 1) {
    if (n > 0)
      fn(ctx, 0, n);
    return CM_OK;
  }
  th = calloc((size_t)nt, sizeof *th);
  jobs = calloc((size_t)nt, sizeof *jobs);
  if (!th || !jobs) {
    /* No room for bookkeeping: do the whole range here instead. */
    free(th);
    free(jobs);
    fn(ctx, 0, n);
    return CM_OK;
  }
  per = (n + nt - 1) / nt;
  for (t = 0; t < nt; t++) {
    jobs[t].fn = fn;
    jobs[t].ctx = ctx;
    jobs[t].begin = t * per < n ? t * per : n;
    jobs[t].end = (t + 1) * per < n ? (t + 1) * per : n;
  }
  /* Thread 0's range runs on this thread; a failed thread start falls back
   * to running its range here, so the result never depends on it. */
  for (t = 1; t < nt; t++) {
    if (thrd_create(&th[t], job_main, &jobs[t]) != thrd_success)
      break;
    started = t;
  }
  for (t = started + 1; t < nt; t++)
    job_main(&jobs[t]);
  job_main(&jobs[0]);
  for (t = 1; t <= started; t++)
    if (thrd_join(th[t], NULL) != thrd_success)
      err = CM_EINTERNAL;
  free(th);
  free(jobs);
  return err;
}

/* ---- elementwise ---- */

/* Ranges of at least 64k elements: thread start-up is tens of us. */
#define ELEM_CHUNK 65536

typedef struct {
  const double *a, *b;
  double *y;
} elem_ctx;

static void copy_range(void *p, int64_t i0, int64_t i1) {
  const elem_ctx *c = p;
  memcpy(c->y + i0, c->a + i0, (size_t)(i1 - i0) * sizeof(double));
}

int pf_ref_copy(const double *x, double *y, int64_t n) {
  elem_ctx c = {x, NULL, y};
  return pf_ref_parallel(n, ELEM_CHUNK, copy_range, &c);
}

static void add_range(void *p, int64_t i0, int64_t i1) {
  const elem_ctx *c = p;
  int64_t i;
  for (i = i0; i < i1; i++)
    c->y[i] = c->a[i] + c->b[i];
}

int pf_ref_add(const double *a, const double *b, double *y, int64_t n) {
  elem_ctx c = {a, b, y};
  return pf_ref_parallel(n, ELEM_CHUNK, add_range, &c);
}

/* FLT_MIN, the smallest normal binary32 (2^-126) */
#define FTZ_MIN 1.1754943508222875e-38

static double ftz(double v) {
  return v != 0 && fabs(v) < FTZ_MIN ? copysign(0.0, v) : v;
}

static void add_ftz_range(void *p, int64_t i0, int64_t i1) {
  const elem_ctx *c = p;
  int64_t i;
  /* the float64 sum rounded to binary32 is the binary32 sum (one addition,
   * 53 >= 2 * 24 + 2); after the inputs' flush both are 0 or normal, so a
   * sum below FLT_MIN is exact and its flush does not depend on when
   * tininess is detected */
  for (i = i0; i < i1; i++)
    c->y[i] = ftz((double)(float)(ftz(c->a[i]) + ftz(c->b[i])));
}

int pf_ref_add_ftz_f32(const double *a, const double *b, double *y, int64_t n) {
  elem_ctx c = {a, b, y};
  return pf_ref_parallel(n, ELEM_CHUNK, add_ftz_range, &c);
}

/* ---- row ops: one context type, one worker per op ---- */

typedef struct {
  const double *x, *x2, *w;
  const uint8_t *mask;
  int64_t cols;
  double eps;
  double *y, *scale;
} rows_ctx;

static void row_sum_rows(void *p, int64_t r0, int64_t r1) {
  const rows_ctx *c = p;
  int64_t r, i;
  for (r = r0; r < r1; r++) {
    const double *x = c->x + r * c->cols;
    double s = 0, sa = 0;
    for (i = 0; i < c->cols; i++) {
      s += x[i];
      sa += fabs(x[i]);
    }
    c->y[r] = s;
    if (c->scale)
      c->scale[r] = sa;
  }
}

int pf_ref_row_sum(const double *x, int64_t rows, int64_t cols, double *y,
                   double *scale) {
  rows_ctx c = {x, NULL, NULL, NULL, cols, 0, y, scale};
  return pf_ref_parallel(rows, 1 + 65536 / cols, row_sum_rows, &c);
}

static void softmax_rows(void *p, int64_t r0, int64_t r1) {
  const rows_ctx *c = p;
  int64_t r, i, n = c->cols;
  for (r = r0; r < r1; r++) {
    const double *x = c->x + r * n;
    const uint8_t *m = c->mask ? c->mask + r * n : NULL;
    double *y = c->y + r * n;
    double mx = -INFINITY, sum = 0;
    int poisoned = 0;
    for (i = 0; i < n; i++) {
      if (m && m[i])
        continue;
      if (isnan(x[i]) || x[i] == INFINITY)
        poisoned = 1;
      else if (x[i] > mx)
        mx = x[i];
    }
    for (i = 0; i < n; i++) {
      int live = !(m && m[i]) && x[i] != -INFINITY;
      if (poisoned)
        y[i] = NAN;
      else if (!live || mx == -INFINITY)
        y[i] = 0.0;
      else
        sum += (y[i] = exp(x[i] - mx));
    }
    if (!poisoned && sum > 0)
      for (i = 0; i < n; i++)
        y[i] /= sum;
  }
}

int pf_ref_softmax(const double *x, const uint8_t *mask, int64_t rows,
                   int64_t cols, double *y) {
  rows_ctx c = {x, NULL, NULL, mask, cols, 0, y, NULL};
  return pf_ref_parallel(rows, 1 + 65536 / cols, softmax_rows, &c);
}

static void softmax_bwd_rows(void *p, int64_t r0, int64_t r1) {
  const rows_ctx *c = p;
  int64_t r, i, n = c->cols;
  for (r = r0; r < r1; r++) {
    const double *dy = c->x + r * n, *y = c->x2 + r * n;
    double dot = 0, adot = 0;
    for (i = 0; i < n; i++) {
      dot += dy[i] * y[i];
      adot += fabs(dy[i] * y[i]);
    }
    for (i = 0; i < n; i++) {
      c->y[r * n + i] = y[i] * (dy[i] - dot);
      if (c->scale)
        c->scale[r * n + i] = fabs(y[i]) * (fabs(dy[i]) + adot);
    }
  }
}

int pf_ref_softmax_bwd(const double *dy, const double *y, int64_t rows,
                       int64_t cols, double *dx, double *scale) {
  rows_ctx c = {dy, y, NULL, NULL, cols, 0, dx, scale};
  return pf_ref_parallel(rows, 1 + 65536 / cols, softmax_bwd_rows, &c);
}

static double rstd_of(const double *x, int64_t n, double eps) {
  double ss = 0;
  int64_t i;
  for (i = 0; i < n; i++)
    ss += x[i] * x[i];
  return 1.0 / sqrt(ss / (double)n + eps);
}

static void rmsnorm_rows(void *p, int64_t r0, int64_t r1) {
  const rows_ctx *c = p;
  int64_t r, i, n = c->cols;
  for (r = r0; r < r1; r++) {
    const double *x = c->x + r * n;
    double rs = rstd_of(x, n, c->eps);
    for (i = 0; i < n; i++)
      c->y[r * n + i] = x[i] * rs * c->w[i];
  }
}

int pf_ref_rmsnorm(const double *x, const double *w, double eps, int64_t rows,
                   int64_t cols, double *y) {
  rows_ctx c = {x, NULL, w, NULL, cols, eps, y, NULL};
  return pf_ref_parallel(rows, 1 + 65536 / cols, rmsnorm_rows, &c);
}

typedef struct {
  const double *dy, *x, *w;
  double eps;
  int64_t rows, cols;
  double *dx, *sdx, *dw, *sdw;
  double *rstd; /* rows, filled by the dx pass, read by the dw pass */
} rmsbwd_ctx;

static void rmsnorm_bwd_rows(void *p, int64_t r0, int64_t r1) {
  const rmsbwd_ctx *c = p;
  int64_t r, i, n = c->cols;
  for (r = r0; r < r1; r++) {
    const double *x = c->x + r * n, *dy = c->dy + r * n;
    double rs = rstd_of(x, n, c->eps), dot = 0, adot = 0, k;
    for (i = 0; i < n; i++) {
      dot += dy[i] * c->w[i] * x[i];
      adot += fabs(dy[i] * c->w[i] * x[i]);
    }
    c->rstd[r] = rs;
    k = rs * rs * rs / (double)n;
    for (i = 0; i < n; i++) {
      c->dx[r * n + i] = rs * c->w[i] * dy[i] - x[i] * k * dot;
      if (c->sdx)
        c->sdx[r * n + i] = rs * fabs(c->w[i] * dy[i]) + fabs(x[i]) * k * adot;
    }
  }
}

static void rmsnorm_bwd_cols(void *p, int64_t c0, int64_t c1) {
  const rmsbwd_ctx *c = p;
  int64_t r, j, n = c->cols;
  for (j = c0; j < c1; j++) {
    double s = 0, sa = 0;
    for (r = 0; r < c->rows; r++) {
      double t = c->dy[r * n + j] * c->x[r * n + j] * c->rstd[r];
      s += t;
      sa += fabs(t);
    }
    c->dw[j] = s;
    if (c->sdw)
      c->sdw[j] = sa;
  }
}

int pf_ref_rmsnorm_bwd(const double *dy, const double *x, const double *w,
                       double eps, int64_t rows, int64_t cols, double *dx,
                       double *sdx, double *dw, double *sdw) {
  rmsbwd_ctx c = {dy, x, w, eps, rows, cols, dx, sdx, dw, sdw, NULL};
  int err;
  c.rstd = malloc((size_t)rows * sizeof *c.rstd);
  if (!c.rstd)
    return CM_ENOMEM;
  err = pf_ref_parallel(rows, 1 + 65536 / cols, rmsnorm_bwd_rows, &c);
  if (!err)
    err = pf_ref_parallel(cols, 1 + 65536 / rows, rmsnorm_bwd_cols, &c);
  free(c.rstd);
  return err;
}

/* ---- matmul ---- */

typedef struct {
  const double *a, *b;
  pf_ref_gemm g;
  double *c, *scale;
  const int64_t *idx;
} mm_ctx;

/* C[i, j] and its scale from row i of op(A) and column j of op(B): k values
 * each, consecutive ones `as` apart in av and `bs` apart in bv. */
static void mm_dot(const mm_ctx *c, int64_t i, int64_t j, const double *av,
                   int64_t as, const double *bv, int64_t bs) {
  double s = 0, sa = 0;
  int64_t p;
  for (p = 0; p < c->g.k; p++) {
    const double x = av[p * as] * bv[p * bs];
    s += x;
    sa += fabs(x);
  }
  c->c[i * c->g.n + j] = s;
  if (c->scale)
    c->scale[i * c->g.n + j] = sa;
}

static void mm_one(const mm_ctx *c, int64_t i, int64_t j) {
  const pf_ref_gemm *g = &c->g;
  mm_dot(c, i, j, g->trans_a ? c->a + i : c->a + i * g->k,
         g->trans_a ? g->m : 1, g->trans_b ? c->b + j * g->k : c->b + j,
         g->trans_b ? 1 : g->n);
}

static void mm_rows(void *p, int64_t r0, int64_t r1) {
  const mm_ctx *c = p;
  int64_t i, j;
  for (i = r0; i < r1; i++)
    for (j = 0; j < c->g.n; j++)
      mm_one(c, i, j);
}

/* Listed elements one by one read a strided vector (op(B)'s column when B
 * is not transposed, op(A)'s row when A is) k times a stored row apart: a
 * cache line and a page each, 9 to 15 ns a multiply-add at 8192^3 on a
 * 2-core host, where a contiguous dot product takes about 1 ns. So the list
 * is taken in order of such columns, and the PANEL columns around the one
 * needed, a cache line's worth, are copied once into contiguous vectors
 * that the elements of those columns then share: the stratified sample of
 * 8192^3 (102,358 elements) took 1.9 s there instead of 9.5 s. Panels only
 * up to PANEL_MAX_K (a panel is PANEL * k doubles per thread and operand). */
#define PANEL 8
#define PANEL_MAX_K ((int64_t)1 << 18)

typedef struct {
  const double *src; /* the stored operand: k rows of cols */
  int64_t cols, k;
  int64_t first; /* first column held; -1: none */
  double *buf;   /* PANEL vectors of k, or NULL: read src in place */
} mm_panel;

/* Column col of p's operand as k contiguous values (copying its panel when
 * it is not the one held), or NULL without a buffer. */
static const double *panel_col(mm_panel *p, int64_t col) {
  const int64_t first = col - col % PANEL;
  if (!p->buf)
    return NULL;
  if (first != p->first) {
    const int64_t w = p->cols - first < PANEL ? p->cols - first : PANEL;
    int64_t q, t;
    for (q = 0; q < p->k; q++)
      for (t = 0; t < w; t++)
        p->buf[t * p->k + q] = p->src[q * p->cols + first + t];
    p->first = first;
  }
  return p->buf + (col - first) * p->k;
}

static double *panel_buf(int strided, int64_t k) {
  return strided && k <= PANEL_MAX_K
             ? malloc((size_t)(PANEL * k) * sizeof(double))
             : NULL;
}

static void mm_listed(void *p, int64_t t0, int64_t t1) {
  const mm_ctx *c = p;
  const pf_ref_gemm *g = &c->g;
  mm_panel pa = {c->a, g->m, g->k, -1, panel_buf(g->trans_a, g->k)};
  mm_panel pb = {c->b, g->n, g->k, -1, panel_buf(!g->trans_b, g->k)};
  int64_t t;
  for (t = t0; t < t1; t++) {
    const int64_t i = c->idx[t] / g->n, j = c->idx[t] % g->n;
    const double *av = g->trans_a ? panel_col(&pa, i) : c->a + i * g->k;
    const double *bv = g->trans_b ? c->b + j * g->k : panel_col(&pb, j);
    if (av && bv)
      mm_dot(c, i, j, av, 1, bv, 1);
    else
      mm_one(c, i, j);
  }
  free(pa.buf);
  free(pb.buf);
}

/* An element of the list with its place in the order of mm_listed. */
typedef struct {
  int64_t key, flat;
} mm_order;

static int cmp_order(const void *x, const void *y) {
  const mm_order *a = x, *b = y;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->flat < b->flat ? -1 : a->flat > b->flat;
}

/* The listed flat indices in the order that shares panels: by panel of
 * op(B)'s columns, then row, when B is read strided; by panel of op(A)'s
 * rows, then column, when only A is; as listed otherwise. NULL without
 * memory (the caller computes the list as given). */
static int64_t *panel_order(pf_ref_gemm g, const int64_t *idx, int64_t nidx) {
  mm_order *o;
  int64_t *out, t;
  if (g.trans_b && !g.trans_a)
    return NULL;
  o = malloc((size_t)nidx * sizeof *o);
  out = malloc((size_t)nidx * sizeof *out);
  if (!o || !out) {
    free(o);
    free(out);
    return NULL;
  }
  for (t = 0; t < nidx; t++) {
    const int64_t i = idx[t] / g.n, j = idx[t] % g.n;
    o[t].key = !g.trans_b ? j / PANEL * g.m + i : i / PANEL * g.n + j;
    o[t].flat = idx[t];
  }
  qsort(o, (size_t)nidx, sizeof *o, cmp_order);
  for (t = 0; t < nidx; t++)
    out[t] = o[t].flat;
  free(o);
  return out;
}

/* The full product in blocks (mm_blocked): for each block of MM_NC
 * columns of op(B) and MM_KC of the depth, a thread copies that block of
 * op(B) into panels of nj columns (MM_KC x nj contiguous values each),
 * then, for each ri rows of its range, those rows' MM_KC values of op(A),
 * and adds the block's products to an ri x nj tile of C and of the scale
 * held in locals. Each element's sum still runs over p = 0 .. k-1 in
 * order, one product x = a * b and one s += x, sa += |x| at a time:
 * between depth blocks the running sums wait in c and scale, and a double
 * stored and loaded again is the same double. So every element is mm_dot's
 * bit for bit (test_pf_numeric.ref_matmul_listed, ref_matmul_blocked),
 * while the operands come from L1 and L2 instead of a strided column read
 * k times from memory: 4095x4097x4093 takes seconds on a few cores, where
 * the dot products took minutes. Rows or columns past the edge are
 * computed from zeros and never stored.
 *
 * The tile is the widest the CPU runs (mm_tiles): 2 x 4 in plain C (at
 * -O2 GCC and Clang keep its sixteen sums in eight SSE2 registers); 4 x 4
 * built for AVX2 and 4 x 8 for AVX-512 where GCC or Clang targets x86-64
 * (or x86 with SSE2 arithmetic) and the CPU has them (more independent
 * sums a depth step: measured about 1.7x and 2.5x the 2 x 4's speed on
 * this project's build host, an AMD EPYC, 2026-12-06). The wider
 * tiles vectorise across the tile's elements, never along the depth, and
 * the file is compiled without contraction, so each element gets the same
 * operations in the same order in every tile: the unit test runs every
 * tile the CPU has against the dot product. */
#define MM_KC 256
#define MM_NC 256
#define MM_RI_MAX 4
#define MM_NJ_MAX 8

/* GCC and Clang on x86-64, or on 32-bit x86 with SSE2 arithmetic (with
 * x87's 80-bit registers the plain paths and the AVX tiles would round
 * differently), and not clang-cl, whose CPU probe needs a runtime that
 * MSVC's link may lack: the AVX2 and AVX-512 tiles. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER) &&         \
    (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2_MATH__)))
#define MM_X86_TILES 1
#endif
/* Every panel of MM_NC columns splits into whole tiles of either width, so
 * the panels of a ragged block never pass the end of bp. */
_Static_assert(MM_NC % MM_NJ_MAX == 0 && MM_NC % 4 == 0,
               "MM_NC must be a multiple of every tile width");

typedef void (*mm_tile_fn)(const double *ap, const double *bp, int64_t kc,
                           double *ts, double *tsa);

typedef struct {
  const mm_ctx *c;
  mm_tile_fn tile;
  int ri, nj;
  double *bp; /* MM_NC / nj panels of MM_KC x nj */
  double ap[MM_KC * MM_RI_MAX];
} mm_block_buf;

static double op_a(const mm_ctx *c, int64_t i, int64_t p) {
  return c->g.trans_a ? c->a[p * c->g.m + i] : c->a[i * c->g.k + p];
}

static double op_b(const mm_ctx *c, int64_t p, int64_t j) {
  return c->g.trans_b ? c->b[j * c->g.k + p] : c->b[p * c->g.n + j];
}

/* The tiles' running sums, ri x nj of s and of sa, added over kc depths of
 * ap (kc x ri) and bp (kc x nj). Written out element by element (S_IJ,
 * T_IJ) so that the sums stay in registers (as arrays in a loop they went
 * to the stack at -O2, at a quarter of the speed). */
#define MM_ADD(S, T, A, B)                                                     \
  do {                                                                         \
    const double x_ = (A) * (B);                                               \
    S += x_;                                                                   \
    T += fabs(x_);                                                             \
  } while (0)
/* Row R of a tile 4 or 8 wide: its sums' declarations (MM_LD), its
 * products (MM_ROW), its stores (MM_ST). */
#define MM_LDW(V, A, R, NJ)                                                    \
  V##R##0 = A[(R) * (NJ)], V##R##1 = A[(R) * (NJ) + 1],                        \
  V##R##2 = A[(R) * (NJ) + 2], V##R##3 = A[(R) * (NJ) + 3]
#define MM_LD4(V, A, R) MM_LDW(V, A, R, 4)
#define MM_LD8(V, A, R)                                                        \
  MM_LDW(V, A, R, 8), V##R##4 = A[(R)*8 + 4], V##R##5 = A[(R)*8 + 5],          \
                      V##R##6 = A[(R)*8 + 6], V##R##7 = A[(R)*8 + 7]
#define MM_ROW4(R, A)                                                          \
  MM_ADD(s##R##0, t##R##0, A, bv[0]);                                          \
  MM_ADD(s##R##1, t##R##1, A, bv[1]);                                          \
  MM_ADD(s##R##2, t##R##2, A, bv[2]);                                          \
  MM_ADD(s##R##3, t##R##3, A, bv[3])
#define MM_ROW8(R, A)                                                          \
  MM_ROW4(R, A);                                                               \
  MM_ADD(s##R##4, t##R##4, A, bv[4]);                                          \
  MM_ADD(s##R##5, t##R##5, A, bv[5]);                                          \
  MM_ADD(s##R##6, t##R##6, A, bv[6]);                                          \
  MM_ADD(s##R##7, t##R##7, A, bv[7])
#define MM_STW(V, A, R, NJ)                                                    \
  A[(R) * (NJ)] = V##R##0, A[(R) * (NJ) + 1] = V##R##1,                        \
          A[(R) * (NJ) + 2] = V##R##2, A[(R) * (NJ) + 3] = V##R##3
#define MM_ST4(V, A, R) MM_STW(V, A, R, 4)
#define MM_ST8(V, A, R)                                                        \
  MM_STW(V, A, R, 8), A[(R)*8 + 4] = V##R##4, A[(R)*8 + 5] = V##R##5,          \
                                A[(R)*8 + 6] = V##R##6, A[(R)*8 + 7] = V##R##7

static void mm_tile_2x4(const double *ap, const double *bp, int64_t kc,
                        double *ts, double *tsa) {
  double MM_LD4(s, ts, 0), MM_LD4(s, ts, 1);
  double MM_LD4(t, tsa, 0), MM_LD4(t, tsa, 1);
  int64_t p;
  for (p = 0; p < kc; p++) {
    const double a0 = ap[2 * p], a1 = ap[2 * p + 1];
    const double *bv = bp + 4 * p;
    MM_ROW4(0, a0);
    MM_ROW4(1, a1);
  }
  MM_ST4(s, ts, 0), MM_ST4(s, ts, 1);
  MM_ST4(t, tsa, 0), MM_ST4(t, tsa, 1);
}

#ifdef MM_X86_TILES
/* A tile of 4 rows, NJ wide, built for the instruction set ISA. */
#define MM_TILE_4ROWS(NAME, ISA, NJ, LD, ROW, ST)                              \
  __attribute__((target(ISA))) static void NAME(const double *ap,              \
                                                const double *bp, int64_t kc,  \
                                                double *ts, double *tsa) {     \
    double LD(s, ts, 0), LD(s, ts, 1), LD(s, ts, 2), LD(s, ts, 3);             \
    double LD(t, tsa, 0), LD(t, tsa, 1), LD(t, tsa, 2), LD(t, tsa, 3);         \
    int64_t p;                                                                 \
    for (p = 0; p < kc; p++) {                                                 \
      const double a0 = ap[4 * p], a1 = ap[4 * p + 1], a2 = ap[4 * p + 2],     \
                   a3 = ap[4 * p + 3];                                         \
      const double *bv = bp + (NJ)*p;                                          \
      ROW(0, a0);                                                              \
      ROW(1, a1);                                                              \
      ROW(2, a2);                                                              \
      ROW(3, a3);                                                              \
    }                                                                          \
    ST(s, ts, 0), ST(s, ts, 1), ST(s, ts, 2), ST(s, ts, 3);                    \
    ST(t, tsa, 0), ST(t, tsa, 1), ST(t, tsa, 2), ST(t, tsa, 3);                \
  }
MM_TILE_4ROWS(mm_tile_4x4, "avx2", 4, MM_LD4, MM_ROW4, MM_ST4)
MM_TILE_4ROWS(mm_tile_4x8, "avx512f", 8, MM_LD8, MM_ROW8, MM_ST8)
#undef MM_TILE_4ROWS
#endif
#undef MM_ADD
#undef MM_LDW
#undef MM_LD4
#undef MM_LD8
#undef MM_ROW4
#undef MM_ROW8
#undef MM_STW
#undef MM_ST4
#undef MM_ST8

/* The widest tile the CPU runs (2: 4 x 8, 1: 4 x 4, 0: 2 x 4; always 0
 * without MM_X86_TILES), asked at each mm_blocked (the probe caches its
 * answer); mm_tile_cap, when set (0 to 2), holds it lower for the unit
 * test. */
static int mm_tile_cap = -1;

static int mm_tiles_supported(void) {
#ifdef MM_X86_TILES
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return 2;
  if (__builtin_cpu_supports("avx2"))
    return 1;
#endif
  return 0;
}

/* The level in force: the CPU's, held under mm_tile_cap when that is set. */
static int mm_tile_level(void) {
  const int have = mm_tiles_supported();
  return mm_tile_cap >= 0 && mm_tile_cap < have ? mm_tile_cap : have;
}

int pf_ref_set_matmul_tiles(int widest) {
  mm_tile_cap = widest < 0 ? -1 : widest;
  return mm_tile_level();
}

/* Each level's tile, its shape and its name, indexed by the level. */
static const struct {
  mm_tile_fn fn;
  int ri, nj;
  const char *name;
} mm_tile_kinds[] = {
    {mm_tile_2x4, 2, 4, "2x4"},
#ifdef MM_X86_TILES
    {mm_tile_4x4, 4, 4, "4x4"},
    {mm_tile_4x8, 4, 8, "4x8"},
#endif
};

const char *pf_ref_matmul_tile(void) {
  return mm_tile_kinds[mm_tile_level()].name;
}

static void mm_tiles(mm_block_buf *w) {
  const int level = mm_tile_level();
  w->tile = mm_tile_kinds[level].fn;
  w->ri = mm_tile_kinds[level].ri;
  w->nj = mm_tile_kinds[level].nj;
}

static void mm_block_rows(mm_block_buf *w, int64_t r0, int64_t r1) {
  const mm_ctx *c = w->c;
  const pf_ref_gemm *g = &c->g;
  const int ri = w->ri, nj = w->nj;
  int64_t j0, p0, i0, jn, kc, q, p, i, j;
  double ts[MM_RI_MAX * MM_NJ_MAX], tsa[MM_RI_MAX * MM_NJ_MAX];
  for (j0 = 0; j0 < g->n; j0 += MM_NC) {
    jn = g->n - j0 < MM_NC ? g->n - j0 : MM_NC;
    for (p0 = 0; p0 < g->k; p0 += MM_KC) {
      kc = g->k - p0 < MM_KC ? g->k - p0 : MM_KC;
      for (q = 0; q * nj < jn; q++)
        for (p = 0; p < kc; p++)
          for (j = 0; j < nj; j++) {
            const int64_t col = j0 + q * nj + j;
            w->bp[(q * kc + p) * nj + j] =
                col < g->n ? op_b(c, p0 + p, col) : 0.0;
          }
      for (i0 = r0; i0 < r1; i0 += ri) {
        for (p = 0; p < kc; p++)
          for (i = 0; i < ri; i++)
            w->ap[p * ri + i] = i0 + i < r1 ? op_a(c, i0 + i, p0 + p) : 0.0;
        for (q = 0; q * nj < jn; q++) {
          for (i = 0; i < ri; i++)
            for (j = 0; j < nj; j++) {
              const int64_t row = i0 + i, col = j0 + q * nj + j;
              const int in = row < r1 && col < g->n && p0 > 0;
              ts[i * nj + j] = in ? c->c[row * g->n + col] : 0.0;
              tsa[i * nj + j] =
                  in && c->scale ? c->scale[row * g->n + col] : 0.0;
            }
          w->tile(w->ap, w->bp + q * kc * nj, kc, ts, tsa);
          for (i = 0; i < ri; i++)
            for (j = 0; j < nj; j++) {
              const int64_t row = i0 + i, col = j0 + q * nj + j;
              if (row < r1 && col < g->n) {
                c->c[row * g->n + col] = ts[i * nj + j];
                if (c->scale)
                  c->scale[row * g->n + col] = tsa[i * nj + j];
              }
            }
        }
      }
    }
  }
}

static void mm_blocked(void *p, int64_t r0, int64_t r1) {
  mm_block_buf *w = malloc(sizeof *w);
  if (w)
    w->bp = malloc((size_t)MM_KC * MM_NC * sizeof *w->bp);
  if (!w || !w->bp) {
    /* no room for the copies: the plain dot products, the same values */
    free(w);
    mm_rows(p, r0, r1);
    return;
  }
  w->c = p;
  mm_tiles(w);
  mm_block_rows(w, r0, r1);
  free(w->bp);
  free(w);
}

int pf_ref_matmul(const double *a, const double *b, pf_ref_gemm g, double *c,
                  double *scale, const int64_t *idx, int64_t nidx) {
  mm_ctx ctx = {a, b, g, c, scale, idx};
  int64_t per_row = g.n * g.k;
  if (g.k == 0) {
    /* empty sums: 0, which the paths below (a chunk size divided by k,
     * a depth loop that never runs) would not write */
    const int64_t count = idx ? nidx : g.m * g.n;
    int64_t t;
    for (t = 0; t < count; t++) {
      const int64_t e = idx ? idx[t] : t;
      c[e] = 0.0;
      if (scale)
        scale[e] = 0.0;
    }
    return CM_OK;
  }
  if (idx) {
    int64_t *order = panel_order(g, idx, nidx);
    int err;
    if (order)
      ctx.idx = order;
    err = pf_ref_parallel(nidx, 1 + 65536 / g.k, mm_listed, &ctx);
    free(order);
    return err;
  }
  return pf_ref_parallel(g.m, 1 + 65536 / (per_row ? per_row : 1), mm_blocked,
                         &ctx);
}
