/* pf_ref.h: float64 CPU references for every op, independent of kernels/.
 *
 * All tensors here are compact row-major double arrays holding the exact
 * values of the dtype-rounded inputs (strides and dtypes are the runner's
 * business). Each reference writes the expected outputs and, where the op
 * sums terms, a per-element scale = sum of |terms| for the gamma term of
 * pf_tol (callers may pass NULL for scale). Semantics follow kernels/cpk.h.
 * Large inputs are processed by up to pf_ref_threads() threads.
 * Returns CM_OK, or CM_ENOMEM/CM_EINTERNAL if threads could not be made.
 */
#ifndef PF_REF_H
#define PF_REF_H

#include <stdint.h>

/* Worker threads for references and for every other bulk host pass of the
 * runner (fill, conversions, comparisons): --threads N. n <= 0 restores the
 * default, plat_cpu_count(); otherwise clamped to 1..256. */
void pf_ref_set_threads(int n);
int pf_ref_threads(void);

/* Calls fn(ctx, begin, end) on disjoint contiguous ranges covering [0, n),
 * in order of begin, on up to pf_ref_threads() threads (one range per
 * thread, at least min_chunk long; one range on this thread when n <
 * min_chunk * 2). A thread that cannot be started has its range run on the
 * calling thread, and without memory for the bookkeeping the whole range
 * runs there: every range always runs, and results never depend on any of
 * this. Returns CM_OK, or CM_EINTERNAL if a thread could not be joined. */
int pf_ref_parallel(int64_t n, int64_t min_chunk,
                    void (*fn)(void *ctx, int64_t begin, int64_t end),
                    void *ctx);

/* y[i] = x[i]: the copy reference, n doubles, in parallel. */
int pf_ref_copy(const double *x, double *y, int64_t n);

/* y[i] = a[i] + b[i]. */
int pf_ref_add(const double *a, const double *b, double *y, int64_t n);

/* What the verification control's kernel (cpk_add_ftz: PTX add.ftz.f32)
 * must store, for fp32 values a and b: each input with |x| < FLT_MIN
 * flushed to zero of its sign, the sum rounded once to binary32, and a
 * result with |y| < FLT_MIN flushed the same way. NOT a reference: the
 * host's model of a kernel that is wrong on purpose, from which
 * --verify-control predicts which elements the check must fail. */
int pf_ref_add_ftz_f32(const double *a, const double *b, double *y, int64_t n);

/* y[r] = sum_c x[r,c]; scale[r] = sum_c |x[r,c]|. */
int pf_ref_row_sum(const double *x, int64_t rows, int64_t cols, double *y,
                   double *scale);

/* Softmax along rows. mask (NULL: none) is rows x cols, non-zero = masked.
 * Masked and -inf positions give 0; a row with nothing left gives all 0; a
 * row with an unmasked +inf or NaN gives all NaN (cpk.h). */
int pf_ref_softmax(const double *x, const uint8_t *mask, int64_t rows,
                   int64_t cols, double *y);

/* dx = y * (dy - sum_k dy_k y_k) per row; scale = |y| (|dy| + sum|dy y|). */
int pf_ref_softmax_bwd(const double *dy, const double *y, int64_t rows,
                       int64_t cols, double *dx, double *scale);

/* y = x * (mean(x^2) + eps)^-1/2 * w[c]. */
int pf_ref_rmsnorm(const double *x, const double *w, double eps, int64_t rows,
                   int64_t cols, double *y);

/* Backward of pf_ref_rmsnorm: dx (rows x cols) and dw (cols), with scales
 * sdx, sdw (either may be NULL). */
int pf_ref_rmsnorm_bwd(const double *dy, const double *x, const double *w,
                       double eps, int64_t rows, int64_t cols, double *dx,
                       double *sdx, double *dw, double *sdw);

/* C (m x n) = op(A) op(B): A is m x k (trans_a = 0) or k x m (1), B is
 * k x n (trans_b = 0) or n x k (1), all compact. With idx != NULL only the
 * nidx listed flat indices of C (and scale) are computed, each bit for bit
 * the value the full computation gives it (the same products summed in
 * the same order), in whatever order idx lists them. */
typedef struct {
  int64_t m, n, k;
  int trans_a, trans_b;
} pf_ref_gemm;
int pf_ref_matmul(const double *a, const double *b, pf_ref_gemm g, double *c,
                  double *scale, const int64_t *idx, int64_t nidx);

/* The full matmul's register tile (pf_ref.c, mm_tiles): by default the
 * widest the CPU runs, 2 (4 x 8, AVX-512), 1 (4 x 4, AVX2) or 0 (2 x 4;
 * the only one outside GCC and Clang on x86);
 * widest >= 0 holds it at or under that level, < 0 gives the default back.
 * Every tile gives the same bits. Returns the level now in force. For the
 * unit tests, between runs (not while a reference runs). */
int pf_ref_set_matmul_tiles(int widest);

/* The name of the tile a full matmul reference runs now ("2x4", "4x4" or
 * "4x8", rows x columns), for the record: the results file's settings and
 * --test-only's matmul lines say which tile made their references. */
const char *pf_ref_matmul_tile(void);

#endif
