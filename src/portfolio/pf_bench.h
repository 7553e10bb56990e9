/* pf_bench.h: the timing harness's view of one verified case.
 *
 * The registry/runner (pf_run.c) owns buffers and verification; the timing
 * harness (pf_timing.c) owns warm-up, L2 flushing, sampling, statistics and
 * clocks. They meet here: the runner fills a pf_timed_case with callbacks and
 * the harness calls them. Nothing here allocates on the caller's behalf.
 */
#ifndef PF_BENCH_H
#define PF_BENCH_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "pf_tol.h"

/* How a cold sample flushes the L2 (--flush). WRITE: cudaMemsetAsync over
 * twice the L2 (the convention of nvbench and Triton's do_bench); it leaves
 * the L2 full of dirty lines, whose write-back lands in the timed kernel.
 * READ: cpk_l2_flush_read over twice the L2; it leaves clean lines. */
typedef enum { PF_FLUSH_WRITE = 0, PF_FLUSH_READ = 1 } pf_flush;

typedef struct {
  const char *op;      /* "softmax" */
  const char *variant; /* "online" (the variant actually run) */
  const char *dtype;   /* "bf16" */
  int64_t dims[3];     /* rows, cols (, k for matmul: M, N, K) */
  int ndims;           /* 1 (elementwise n), 2 (rows x cols) or 3 (M x N x K) */
  int64_t stride;      /* row stride in elements (0 for elementwise) */
  double logical_bytes; /* fewest bytes: each input read once, output once */
  double flops;         /* 0 for memory-bound ops */
  /* The rounding check of the verification (pf_tol.h; docs/VALIDATION.md,
   * "Rounding"): whether the case had it, and its counts for the output
   * furthest off the nearest values. */
  int rounding_checked;
  pf_rounding rounding;
  /* The output elements the verification compared when it compared a
   * sample of them (a large matmul, docs/VALIDATION.md); 0: every one. */
  int64_t sampled;
} pf_case_info;

typedef struct {
  pf_case_info info;
  void *ctx;
  /* Number of independent input/output sets to rotate among (>= 1). */
  int nsets;
  /* Launches the kernel once on `stream` for input set `set`. Returns a
   * cm_error (CM_OK on success); never synchronises. */
  int (*launch)(void *ctx, int set, cudaStream_t stream);
  /* Same for the peer library (cuBLAS, cuDNN), or NULL if the case has none. */
  int (*peer_launch)(void *ctx, int set, cudaStream_t stream);
  const char *peer_name; /* "cublasGemmEx", "cudnnSoftmaxForward", or NULL */
  /* Re-verifies the outputs of every set after timing against the float64
   * reference; CM_OK if they still pass, CM_EVERIFY otherwise. */
  int (*recheck)(void *ctx);
} pf_timed_case;

#endif
