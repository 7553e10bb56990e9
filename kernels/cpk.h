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
 *    cpk_workspace_bytes (row ops) or cpk_matmul_workspace_bytes (matmul).
 *    Passing too little returns cudaErrorInvalidValue. The workspace is in
 *    use until the launch's work on `stream` has finished; it must not
 *    overlap any tensor of the call.
 *  - Outputs must not overlap inputs: rows are read through the read-only
 *    data path (ld.global.nc), which assumes the data does not change while
 *    the kernel runs.
 *  - Some launchers keep per-device launch facts (function attributes,
 *    how many thread-block clusters are resident) in static storage, set on
 *    first use: call the launchers from one host thread at a time.
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
  CPK_OP_COPY_UNMASKED, /* negative control: see cpk_copy_unmasked */
  CPK_OP_ADD_FTZ        /* verification control: see cpk_add_ftz */
} cpk_op;

/* Kernel strategies. Which ops accept which variant is listed per launcher. */
typedef enum {
  CPK_V_VECTOR = 0, /* elementwise: a 16-byte vector a thread (aligned) */
  CPK_V_SERIAL,     /* one thread per row (softmax baseline, Kahan sums) */
  CPK_V_WARP,       /* one warp per row: short rows */
  CPK_V_BLOCK,      /* one block per row, looping over the row */
  CPK_V_ONLINE,     /* softmax: one pass, running max and sum */
  CPK_V_SPLIT, /* few very wide rows: partials across blocks, then finish */
  CPK_V_NAIVE, /* matmul: one thread per output element */
  CPK_V_TILED, /* matmul: shared-memory tiles (fp32) */
  CPK_V_TENSORCORE, /* matmul: tensor cores (WMMA), fp16/bf16, fp32 accumulate
                     */
  CPK_V_FUSED,      /* row ops: one pass, the row held on chip (registers,
                       shared memory, and a thread-block cluster for wide
                       rows); only where the row fits: cpk_variant_fits */
  CPK_V_HOPPER      /* matmul fp16/bf16: TMA + wgmma (sm_90a); compute
                       capability 9.0 only: cpk_variant_available */
} cpk_variant;

/* Last value of cpk_variant (for loops over every variant). */
#define CPK_V_LAST CPK_V_HOPPER

typedef struct {
  int64_t rows;   /* >= 1 */
  int64_t cols;   /* >= 1 */
  int64_t stride; /* elements between row starts, >= cols */
} cpk_rows;

/* Bytes of device scratch the (op, variant) needs for this shape; 0 if none.
 * Elementwise ops never need any. CPK_OP_MATMUL always gives 0 here: matmul
 * sizes its (optional) scratch with cpk_matmul_workspace_bytes, which needs
 * the whole cpk_gemm. */
size_t cpk_workspace_bytes(cpk_op op, cpk_variant v, cpk_dtype dt,
                           cpk_rows shape);

/* 1 when variant v of op can run on the current device (CUDA runtime's
 * current device), 0 when it cannot (CPK_V_HOPPER needs compute capability
 * 9.0 and a build with sm_90a; CPK_V_FUSED needs thread-block clusters,
 * compute capability >= 9.0), negative on a CUDA error (as -cudaError_t). */
int cpk_variant_available(cpk_op op, cpk_variant v, cpk_dtype dt);

/* 1 when CPK_V_FUSED of op takes rows of this width (the only shapes it
 * accepts; otherwise the launcher returns cudaErrorInvalidValue and the plan
 * chooser takes another variant), else 0. Pure: depends on op, dtype and
 * cols only. FUSED holds a row on chip in a block or a thread-block cluster,
 * or, for the widths of its grid path (cpk_fused_grid), spreads each row
 * over a grid of 132 blocks that must all be resident at once: where only
 * the grid path takes a width (cpk_fused_needs_grid), the launcher needs a
 * device that runs it (cpk_fused_grid_available) and returns
 * cudaErrorNotSupported on another. */
int cpk_fused_fits(cpk_op op, cpk_dtype dt, int64_t cols);

/* 1 when CPK_V_FUSED of op takes rows of this width through its grid path
 * wherever the device runs it (a cooperative grid of 132 blocks, each
 * owning a 1/132 column chunk of every row: the row is read once and held
 * on chip across the whole GPU; kernels/rowfused_grid.cuh, grid_k), else
 * 0. Pure (the environment variable CPK_GRID_MIN, for side-by-side runs,
 * widens it). The path needs a workspace (cpk_workspace_bytes includes it for
 * these widths); its contents need no initialisation and must be left alone
 * between launches on one stream. */
int cpk_fused_grid(cpk_op op, cpk_dtype dt, int64_t cols);

/* 1 when the grid path is the only way CPK_V_FUSED takes this width (no
 * on-chip configuration holds the row), else 0. Pure. */
int cpk_fused_needs_grid(cpk_op op, cpk_dtype dt, int64_t cols);

/* 1 when the current device runs FUSED's grid path (at least 132 SMs, so
 * that the 132 blocks are resident at once: H100 SXM, H200; compute
 * capability 8.0 or later; and the environment variable CPK_FUSED_GRID is
 * not "0", which turns the path off for side-by-side runs), else 0. */
int cpk_fused_grid_available(void);

/* ---- measurement helpers (the timing harness's, not ops: no reference,
 * no variant) ---- */

/* Reads bytes of buf (16-byte aligned, bytes a positive multiple of 16)
 * through the L2 with normal priority. Over a buffer of twice the L2 it
 * leaves the L2 holding clean lines of buf: whatever was there before
 * (including dirty lines, which are written back now) is gone, and the next
 * kernel evicts nothing that needs a write-back. sink: one device unsigned
 * of scratch that the kernel may overwrite (what it read decides whether it
 * writes, which keeps the loads from being dropped). */
cudaError_t cpk_l2_flush_read(const void *buf, size_t bytes, unsigned *sink,
                              cudaStream_t stream);

/* Reads bytes of buf (the same contract as cpk_l2_flush_read) with
 * evict-first loads: the fastest way to read, displacing as little of the
 * L2 as it can (dirty lines it finds stay, unwritten). The timing harness's
 * read ceiling. */
cudaError_t cpk_read_stream(const void *buf, size_t bytes, unsigned *sink,
                            cudaStream_t stream);

/* One warp that does nothing: the time between two events around it is the
 * fixed cost that every timed launch carries. */
cudaError_t cpk_empty_launch(cudaStream_t stream);

/* One thread that holds the stream until *go is non-zero, or until
 * timeout_ns have passed on the GPU's clock, in which case it sets *late
 * to 1. go and late are device pointers of mapped host memory
 * (cudaHostAllocMapped): the host queues a launch behind the hold, then
 * writes *go, so the GPU runs the launch with no gap for the host's
 * submission (the timing harness's hot samples; nvbench's blocking kernel
 * does the same). */
cudaError_t cpk_hold_stream(const volatile int *go,
                            unsigned long long timeout_ns, int *late,
                            cudaStream_t stream);

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
/* VERIFICATION CONTROL. fp32 only (cudaErrorInvalidValue otherwise):
 * y[i] = a[i] + b[i] with subnormal inputs and results flushed to zero of
 * the same sign (PTX add.ftz.f32), i.e. wrong exactly where add's exact
 * check must see it. Exists only so the test stage can prove the GPU
 * verification fails a wrong kernel; host code runs it only under
 * --verify-control. */
cudaError_t cpk_add_ftz(cpk_dtype dt, const void *a, const void *b, void *y,
                        int64_t n, cudaStream_t stream);

/* ---- row reductions and normalisations ----
 * Variants: row_sum: WARP, BLOCK, SPLIT, FUSED. softmax: SERIAL, WARP, BLOCK,
 * ONLINE, SPLIT, FUSED. softmax_bwd, rmsnorm, rmsnorm_bwd: WARP, BLOCK, SPLIT,
 * FUSED. */

/* y[r] = sum_c x[r, c]; y is contiguous, rows elements of dt.
 * FUSED's rows of 131073 columns and more (the segment path, rowseg.cu)
 * keep a count per row in the workspace, which every launch leaves at
 * zero: zero the workspace once before its first use, then leave it alone
 * between launches on one stream. */
cudaError_t cpk_row_sum(cpk_variant v, cpk_dtype dt, const void *x, void *y,
                        cpk_rows shape, void *ws, size_t ws_bytes,
                        cudaStream_t stream);

/* y[r, :] = softmax(x[r, :]) along each row.
 * mask (may be NULL): uint8 rows x cols with row stride mask_stride; a
 * non-zero entry masks the position (treated as -inf).
 * Defined results: masked positions are 0. A row whose every position is
 * masked or -inf is all 0 (not NaN). A row with an unmasked +inf or NaN is
 * NaN in every position, masked ones included (IEEE arithmetic on the
 * max-subtracted row, as PyTorch gives for masked_fill(-inf) + softmax).
 * FUSED's rows of 131073 columns and more (the skew path, rowskew.cu; also
 * cpk_softmax_bwd's, cpk_rmsnorm's and cpk_rmsnorm_bwd's) keep an epoch and
 * tagged words in the workspace, which every launch leaves valid for the next:
 * zero the workspace once before its first use, then leave it alone between
 * launches on one stream. */
cudaError_t cpk_softmax(cpk_variant v, cpk_dtype dt, const void *x, void *y,
                        const uint8_t *mask, int64_t mask_stride,
                        cpk_rows shape, void *ws, size_t ws_bytes,
                        cudaStream_t stream);

/* dx[r, c] = y[r, c] * (dy[r, c] - sum_k dy[r, k] * y[r, k]). FUSED's
 * workspace: as cpk_softmax's. */
cudaError_t cpk_softmax_bwd(cpk_variant v, cpk_dtype dt, const void *dy,
                            const void *y, void *dx, cpk_rows shape, void *ws,
                            size_t ws_bytes, cudaStream_t stream);

/* y[r, c] = x[r, c] * rsqrt(mean_k x[r, k]^2 + eps) * w[c]; w has cols
 * contiguous elements of dt. FUSED's workspace: as cpk_softmax's. */
cudaError_t cpk_rmsnorm(cpk_variant v, cpk_dtype dt, const void *x,
                        const void *w, void *y, float eps, cpk_rows shape,
                        void *ws, size_t ws_bytes, cudaStream_t stream);

/* Backward of cpk_rmsnorm given dy: writes dx (rows x cols, shared stride)
 * and dw (cols contiguous, dt): dw[c] = sum_r dy[r,c] * x[r,c] * rstd[r]. The
 * row statistics are recomputed from x. FUSED's workspace: as
 * cpk_softmax's. */
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
 * Variants: NAIVE (all dtypes), TILED (CPK_F32 only), TENSORCORE (F16, BF16),
 * HOPPER (F16, BF16; compute capability 9.0; cudaErrorNotSupported where
 * cpk_variant_available says 0; m, n and k at most CPK_HOPPER_MAX_DIM).
 */
typedef struct {
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  int trans_a, trans_b;
} cpk_gemm;

/* Bytes of device scratch cpk_matmul(v, dt, ..., g, ws, ws_bytes, ...) can
 * use to run at full speed. 0 for every variant but CPK_V_HOPPER with
 * CPK_F16 or CPK_BF16, and 0 there too when lda and ldb are both multiples
 * of 8 elements (16-byte row strides: TMA reads the operands in place).
 * Otherwise, for each operand whose ld is not a multiple of 8, room for a
 * copy of it as stored (A: K x M when trans_a, else M x K; B: N x K when
 * trans_b, else K x N) with the leading dimension rounded up to a multiple
 * of 64 elements, each section rounded up to 256 bytes: A's section first,
 * then B's. 0 for an invalid g (cpk_matmul rejects it); no section for an
 * operand with an extent past CPK_HOPPER_MAX_DIM (HOPPER rejects such
 * shapes anyway). Pure function of (v, dt, g): no device query, callable with
 * no GPU present. */
size_t cpk_matmul_workspace_bytes(cpk_variant v, cpk_dtype dt, cpk_gemm g);

/* The largest m, n and k CPK_V_HOPPER takes (2^31 - 2): its TMA coordinates
 * and tile counters are 32-bit. Past it cpk_matmul(CPK_V_HOPPER, ...)
 * returns cudaErrorInvalidValue and launches nothing; every other variant
 * takes any size. (HOPPER also needs fewer than 2^31 - 1 output tiles of
 * 128 x 256, which only a C of more than 2^45 elements could exceed.) */
#define CPK_HOPPER_MAX_DIM 2147483646

/* ws / ws_bytes: scratch, used by CPK_V_HOPPER only (every other variant
 * ignores them). ws_bytes == 0 (ws may be NULL): no scratch; an operand that
 * TMA cannot read in place (ld not a multiple of 8 elements, or base address
 * not 16-byte aligned) is loaded by the kernel's slower manual loader.
 * ws_bytes != 0: ws must be a 16-byte aligned device pointer (cudaMalloc's
 * are) and ws_bytes >= cpk_matmul_workspace_bytes(v, dt, g), else
 * cudaErrorInvalidValue (nothing is launched). Each operand whose ld TMA
 * cannot take is then first copied into ws with a padded leading
 * dimension, asynchronously on `stream`, and the matmul reads the copy; an
 * operand whose ld is fine but whose base address is not 16-byte aligned is
 * copied too when ws_bytes leaves room for it beyond the sized sections,
 * else it takes the manual loader. a, b, c and g are never modified, and
 * C's values are the same with or without the workspace (same products,
 * same fp32 accumulation order). */
cudaError_t cpk_matmul(cpk_variant v, cpk_dtype dt, const void *a,
                       const void *b, void *c, cpk_gemm g, void *ws,
                       size_t ws_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
