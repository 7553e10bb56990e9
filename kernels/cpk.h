/* cpk.h: the only door into the CUDA kernels. Host code (C11) includes this
 * header and nothing else from kernels/.
 *
 * Conventions for every launcher:
 *  - Pointers are device pointers. Element type is given by cpk_dtype: CPK_F32
 *    is float, CPK_F16 is IEEE binary16, CPK_BF16 is bfloat16 (both 2 bytes).
 *    Arithmetic accumulates in fp32 for every dtype.
 *  - 2-D tensors are row-major with a row stride in ELEMENTS (stride >= cols);
 *    every 2-D tensor of one call (inputs and outputs) shares cpk_rows.stride.
 *    Pointers need only element alignment; kernels use 16-byte vector access
 *    only where base pointer and stride allow it.
 *  - The launch is asynchronous on `stream`. The return value is cudaSuccess,
 *    cudaErrorInvalidValue for a bad shape or an unsupported dtype/variant
 *    (nothing is launched then), or the error cudaGetLastError() reported
 *    right after the launch. Launchers never synchronise, allocate, or print.
 *  - Variants that need scratch memory take (ws, ws_bytes); size it with
 *    cpk_workspace_bytes. Passing too little returns cudaErrorInvalidValue.
 */
#ifndef CPK_H
#define CPK_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CPK_F32 = 0, CPK_F16 = 1, CPK_BF16 = 2 } cpk_dtype;

typedef enum {
  CPK_OP_COPY = 0,
  CPK_OP_ADD,
  CPK_OP_ROW_SUM,
  CPK_OP_SOFTMAX,
  CPK_OP_SOFTMAX_BWD,
  CPK_OP_RMSNORM,
  CPK_OP_RMSNORM_BWD,
  CPK_OP_MATMUL,
  CPK_OP_COPY_UNMASKED /* negative control: see cpk_copy_unmasked */
} cpk_op;

/* Kernel strategies. Which ops accept which variant is listed per launcher. */
typedef enum {
  CPK_V_VECTOR = 0, /* elementwise: grid-stride, 16-byte accesses */
  CPK_V_SERIAL,     /* one thread per row (softmax baseline, Kahan sums) */
  CPK_V_WARP,       /* one warp per row: short rows */
  CPK_V_BLOCK,      /* one block per row, looping over the row */
  CPK_V_ONLINE,     /* softmax: one pass, running max and sum */
  CPK_V_SPLIT,     /* few very wide rows: partials across blocks, then finish */
  CPK_V_NAIVE,     /* matmul: one thread per output element */
  CPK_V_TILED,     /* matmul: shared-memory tiles (fp32) */
  CPK_V_TENSORCORE /* matmul: tensor cores, fp16/bf16 in, fp32 accumulate */
} cpk_variant;

typedef struct {
  int64_t rows;   /* >= 1 */
  int64_t cols;   /* >= 1 */
  int64_t stride; /* elements between row starts, >= cols */
} cpk_rows;

/* Bytes of device scratch the (op, variant) needs for this shape; 0 if none.
 * Matmul and elementwise never need any. */
size_t cpk_workspace_bytes(cpk_op op, cpk_variant v, cpk_dtype dt,
                           cpk_rows shape);

/* ---- elementwise (contiguous, n >= 1 elements; variant CPK_V_VECTOR) ---- */

/* y[i] = x[i]. */
cudaError_t cpk_copy(cpk_dtype dt, const void *x, void *y, int64_t n,
                     cudaStream_t stream);
/* y[i] = a[i] + b[i] (computed in fp32, rounded to dt). */
cudaError_t cpk_add(cpk_dtype dt, const void *a, const void *b, void *y,
                    int64_t n, cudaStream_t stream);
/* NEGATIVE CONTROL. Like cpk_copy but with the bounds check on the store
 * removed on purpose: it writes whole blocks, so for n not a multiple of its
 * block size it writes past y[n-1]. Exists only so the sanitizer stage can
 * prove memcheck catches an out-of-bounds write; host code runs it only under
 * --negative-control. */
cudaError_t cpk_copy_unmasked(cpk_dtype dt, const void *x, void *y, int64_t n,
                              cudaStream_t stream);

/* ---- row reductions and normalisations ----
 * Variants: row_sum: WARP, BLOCK, SPLIT. softmax: SERIAL, WARP, BLOCK, ONLINE,
 * SPLIT. softmax_bwd, rmsnorm, rmsnorm_bwd: WARP, BLOCK, SPLIT. */

/* y[r] = sum_c x[r, c]; y is contiguous, rows elements of dt. */
cudaError_t cpk_row_sum(cpk_variant v, cpk_dtype dt, const void *x, void *y,
                        cpk_rows shape, void *ws, size_t ws_bytes,
                        cudaStream_t stream);

/* y[r, :] = softmax(x[r, :]) along each row.
 * mask (may be NULL): uint8 rows x cols with row stride mask_stride; a
 * non-zero entry masks the position (treated as -inf).
 * Defined results: masked positions are 0. A row whose every position is
 * masked or -inf is all 0 (not NaN). A row with an unmasked +inf or NaN is
 * NaN in every position, masked ones included (IEEE arithmetic on the
 * max-subtracted row, as PyTorch gives for masked_fill(-inf) + softmax). */
cudaError_t cpk_softmax(cpk_variant v, cpk_dtype dt, const void *x, void *y,
                        const uint8_t *mask, int64_t mask_stride,
                        cpk_rows shape, void *ws, size_t ws_bytes,
                        cudaStream_t stream);

/* dx[r, c] = y[r, c] * (dy[r, c] - sum_k dy[r, k] * y[r, k]). */
cudaError_t cpk_softmax_bwd(cpk_variant v, cpk_dtype dt, const void *dy,
                            const void *y, void *dx, cpk_rows shape, void *ws,
                            size_t ws_bytes, cudaStream_t stream);

/* y[r, c] = x[r, c] * rsqrt(mean_k x[r, k]^2 + eps) * w[c]; w has cols
 * contiguous elements of dt. */
cudaError_t cpk_rmsnorm(cpk_variant v, cpk_dtype dt, const void *x,
                        const void *w, void *y, float eps, cpk_rows shape,
                        void *ws, size_t ws_bytes, cudaStream_t stream);

/* Backward of cpk_rmsnorm given dy: writes dx (rows x cols, shared stride)
 * and dw (cols contiguous, dt): dw[c] = sum_r dy[r,c] * x[r,c] * rstd[r]. The
 * row statistics are recomputed from x. */
cudaError_t cpk_rmsnorm_bwd(cpk_variant v, cpk_dtype dt, const void *dy,
                            const void *x, const void *w, void *dx, void *dw,
                            float eps, cpk_rows shape, void *ws,
                            size_t ws_bytes, cudaStream_t stream);

/* ---- matmul ----
 * C[M x N] = op(A) * op(B), fp32 accumulation, C rounded to dt.
 * op(A) is M x K: A stored row-major M x K (trans_a = 0, lda >= K) or K x M
 * (trans_a = 1, lda >= M). op(B) is K x N: B stored K x N (trans_b = 0,
 * ldb >= N) or N x K (trans_b = 1, ldb >= K). C is M x N, ldc >= N.
 * Backward products: dA = dC x B^T is (dC, B, trans_b = 1); dB = A^T x dC is
 * (A, dC, trans_a = 1).
 * Variants: NAIVE (all dtypes), TILED (CPK_F32 only), TENSORCORE (F16, BF16).
 */
typedef struct {
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  int trans_a, trans_b;
} cpk_gemm;

cudaError_t cpk_matmul(cpk_variant v, cpk_dtype dt, const void *a,
                       const void *b, void *c, cpk_gemm g, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
