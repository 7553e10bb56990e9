/* pf_tol.h: tolerances and the assert_close comparison.
 *
 * An element passes when
 *     |actual - expected| <= atol + rtol * |expected| + gamma * scale
 * where (rtol, atol, gamma) come from one table per op and dtype (the same
 * numbers as docs/VALIDATION.md) and scale >= 0 is what the float64 reference
 * reports for that element: the sum of |terms| that fp32 accumulation had to
 * add (row_sum, matmul, the backward ops), 0 where no sum is involved. With
 * scale = 0 this is torch.testing.assert_close exactly.
 * NaN must meet NaN and an infinity the same infinity, position by position;
 * a finite expected value never accepts a non-finite actual one.
 */
#ifndef PF_TOL_H
#define PF_TOL_H

#include <stdint.h>

#include "cpk.h"

typedef struct {
  double rtol;
  double atol;
  double gamma; /* per unit of the reference's sum of |terms| */
} pf_tol;

/* The table entry for (op, dt). Returns {0, 0, 0} (bit exactness) for copy
 * and for an op not in the table. */
pf_tol pf_tol_get(cpk_op op, cpk_dtype dt);

/* 1 if actual is close to expected under t and the element's scale. */
int pf_close(double actual, double expected, double scale, pf_tol t);

typedef struct {
  int64_t checked; /* elements compared */
  int64_t failed;  /* elements outside tolerance */
  int64_t worst;   /* index of the worst element (-1 if none checked) */
  double worst_actual, worst_expected;
  double worst_excess; /* |diff| / allowed of the worst; inf for non-finite */
  double max_abs;      /* max |actual - expected| over finite pairs */
  double max_rel;      /* max |actual - expected| / |expected|, expected != 0 */
} pf_cmp;

/* Compares n elements (or, if idx != NULL, only the nidx listed indices).
 * scale may be NULL (all 0). Fills *out; returns 1 if every compared element
 * passed, else 0. The worst element is the first non-finite mismatch if any,
 * else the one furthest outside (or closest to) its tolerance. Runs on
 * pf_ref_threads() threads over fixed blocks of 2^20 elements; the result is
 * the same for any thread count. */
int pf_compare(const double *actual, const double *expected,
               const double *scale, int64_t n, const int64_t *idx, int64_t nidx,
               pf_tol t, pf_cmp *out);

/* Rows whose outputs all lie under atol (docs/VALIDATION.md, "Rows under
 * atol"): there the tolerance is atol alone and passes any output near
 * zero (rmsnorm_backward's dx on rows of 1e15 is near 1e-15: a dx a
 * thousandth off, or negated, passed). For each of the rows rows of cols
 * elements whose largest finite |expected| m is above 0 and under t.atol,
 * every element is compared again with atol scaled to atol * m, the
 * tolerance the row would have at unit size, but never under step, the
 * output dtype's smallest subnormal (pf_dtype_tiny): a row that small is
 * stored in steps of it, and the correctly rounded value of an expected
 * output is up to half a step away, which no kernel can do better than
 * (an fp16 row of outputs under 1e-7 failed a correct kernel on an H100,
 * 2026-12-07). Other rows are left to pf_compare. Fills *out over the
 * elements so compared (checked 0 when no row is such); returns 1 if all
 * passed. Pure. */
int pf_compare_small_rows(const double *actual, const double *expected,
                          const double *scale, int64_t rows, int64_t cols,
                          pf_tol t, double step, pf_cmp *out);

/* Rounding of a 16-bit output (docs/VALIDATION.md, "Rounding"). A
 * kernel that computes in fp32 and rounds once to nearest stores the
 * float64 reference rounded to nearest (through fp32, as it does) but
 * where its own fp32 error crosses a midpoint: a small share of the
 * elements, about as often either way. One that truncates, or carries a
 * relative error of a sizeable part of an ulp (a mean over n - 1 for n, a
 * row sum off by 1/n), misses it on many elements, nearly all one way,
 * while every element may still be inside rtol, which is never below half
 * an ulp. Over the elements whose reference is finite and non-zero and
 * whose stored value is finite: */
typedef struct {
  int64_t counted; /* elements counted */
  int64_t away;    /* stored with a larger magnitude than the rounded one */
  int64_t toward;  /* ... with a smaller one */
  double off;      /* (away + toward) / counted; 0 when none counted */
  double one_way;  /* (away - toward) / (away + toward); 0 when none */
  double z;        /* (away - toward) / sqrt(away + toward); 0 when none */
} pf_rounding;

/* The elements off the nearest value lean when all three hold: they are
 * at least PF_ROUND_OFF of those counted (the host models of the kernels'
 * arithmetic: at most 4.9e-5), at least PF_ROUND_ONE_WAY of them go one
 * way more than the other (3 in 4), and |z| >= PF_ROUND_Z. Since |z| <=
 * sqrt(away + toward), an output with fewer than 36 elements off the
 * nearest value cannot fail (row_sum's, one per row, on most shapes). */
#define PF_ROUND_OFF 0.01
#define PF_ROUND_ONE_WAY 0.5
#define PF_ROUND_Z 6.0

/* Counts n elements (or, if idx != NULL, the nidx listed ones) of actual,
 * stored in dt, against expected rounded to dt. Returns 1 if the elements
 * off the nearest value do not lean (always 1 for fp32, whose outputs carry
 * the kernels' own arithmetic error of several fp32 ulps). Runs on
 * pf_ref_threads() threads; the counts do not depend on their number. */
int pf_rounding_check(cpk_dtype dt, const double *actual,
                      const double *expected, int64_t n, const int64_t *idx,
                      int64_t nidx, pf_rounding *out);

/* The verification control's verdict on one case (pf_run.c): 1 when the
 * check of the kernel that is wrong on purpose failed exactly the elements
 * the host model predicts: its stored values equal the model's (pred)
 * element by element, bit for bit but any NaN (so equal counts of
 * different elements do not agree), its failure counts are equal, and its
 * reason is the tolerance or none (reason: verify_outputs' reason, NULL
 * when the case passed). *mismatched receives the elements whose stored
 * value is not the model's. idx/nidx as for pf_compare. */
int pf_control_agree(const double *stored, const double *pred, int64_t n,
                     const int64_t *idx, int64_t nidx, const char *reason,
                     int64_t failed, int64_t predicted, int64_t *mismatched);

/* The determinism rerun's verdict on one output (pf_two_runs). */
typedef enum {
  PF_TWO_SAME = 0,  /* every element's bytes equal, every gap byte pb */
  PF_TWO_UNWRITTEN, /* an element still held its poison in both launches
                       (pa's bytes in a, pb's in b): never written */
  PF_TWO_DIFFER,    /* an element's bytes differ otherwise */
  PF_TWO_GAP        /* a byte between rows of b is not pb: written */
} pf_two;

/* The outputs of two launches of one case on the same inputs: a, into an
 * output poisoned with byte pa, and b, into one poisoned with pb != pa.
 * rows rows of cols elements of elsize bytes, ld elements apart. A kernel
 * must write every element the same in both; an element it never wrote
 * holds pa's bytes in a and pb's in b, which no comparison of values can
 * tell from a NaN it wrote where the reference has one (the first poison,
 * all ones, is a NaN in every dtype). *where: the element's index (row *
 * cols + col) for UNWRITTEN and DIFFER, the row for GAP, -1 for SAME. The
 * first finding in memory order wins. Pure. */
pf_two pf_two_runs(const unsigned char *a, const unsigned char *b, int64_t rows,
                   int64_t cols, int64_t ld, size_t elsize, unsigned char pa,
                   unsigned char pb, int64_t *where);

#endif
