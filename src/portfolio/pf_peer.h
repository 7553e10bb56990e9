/* pf_peer.h: the libraries a kernel is compared with, and the copy ceiling.
 *
 * Peers are timed by the same harness as our kernels (pf_timing.c): the
 * runner wraps these calls in a pf_timed_case's peer_launch. Each call is
 * asynchronous on `stream`, never synchronises or allocates device memory
 * (cuBLAS and cuDNN keep their own workspaces), and returns CM_OK or a
 * cm_error (CM_ECUBLAS, CM_ENOTSUP for an absent library or a shape it cannot
 * express, CM_EINVAL).
 *
 *  - matmul: cublasGemmEx, inputs and output in the case's dtype (fp16,
 *    bf16, fp32), CUBLAS_COMPUTE_32F, default math mode (no TF32 for fp32:
 *    the same arithmetic as our kernels), default algorithm. cpk_gemm's
 *    row-major operands with trans flags are mapped onto column-major cuBLAS
 *    by computing C^T = op(B)^T op(A)^T, which needs no copies.
 *  - softmax: cuDNN's legacy cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE,
 *    CUDNN_SOFTMAX_MODE_INSTANCE) over an N = rows, C = cols, H = W = 1
 *    tensor with nStride = the row stride, loaded at run time from
 *    libcudnn.so.9 (or libcudnn_ops.so.9); without cuDNN the reason is
 *    recorded. cuDNN has no mask argument: masked cases have no peer.
 *  - copy: cudaMemcpyAsync device to device of the case's bytes, the same
 *    call as the copy ceiling's but at the case's size, so that a copy
 *    kernel (and, through its shape, any case of as many bytes) can be put
 *    beside what the runtime's own copy reaches at that size under the same
 *    flush and sampling.
 */
#ifndef PF_PEER_H
#define PF_PEER_H

#include "cpk.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

typedef struct pf_peer pf_peer;

/* Creates the cuBLAS handle and tries to load cuDNN. Always succeeds unless
 * out of memory (CM_ENOMEM): an unusable library is recorded as absent.
 * Needs the CUDA device already selected. *out is owned by the caller. */
int pf_peer_open(pf_peer **out);
void pf_peer_close(pf_peer *p);

/* NULL if a peer is available for op ("matmul", "softmax", "copy"); otherwise
 * why not (a static or handle-owned sentence). */
const char *pf_peer_absent_reason(const pf_peer *p, const char *op);

/* The peer's name for op as written to JSON ("cublasGemmEx",
 * "cudnnSoftmaxForward", "cudaMemcpyAsync"), or NULL. */
const char *pf_peer_name(const char *op);

/* C = op(A) op(B) with cpk_matmul's exact conventions (see cpk.h). */
int pf_peer_gemm(pf_peer *p, cpk_dtype dt, const void *a, const void *b,
                 void *c, cpk_gemm g, cudaStream_t stream);

/* y = softmax(x) along each row, no mask. */
int pf_peer_softmax(pf_peer *p, cpk_dtype dt, const void *x, void *y,
                    cpk_rows shape, cudaStream_t stream);

/* dst = src, `bytes` bytes, device to device (the copy op's peer). */
int pf_peer_copy(pf_peer *p, void *dst, const void *src, size_t bytes,
                 cudaStream_t stream);

/* The copy-bandwidth ceiling's launch: one cudaMemcpyAsync device to device
 * of `bytes` from src to dst. The harness divides 2 * bytes (read + write)
 * by the median time. */
typedef struct {
  const void *src;
  void *dst;
  size_t bytes;
} pf_copy_ceiling;

/* pf_timed_case-compatible launch for a pf_copy_ceiling ctx (set ignored). */
int pf_peer_copy_launch(void *ctx, int set, cudaStream_t stream);

/* Bytes to copy for the ceiling: several times the L2 (so the copy streams
 * from HBM, not from cache), at least 64 MiB. */
size_t pf_peer_copy_bytes(size_t l2_bytes);

#endif
