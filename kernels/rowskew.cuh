/* rowskew.cuh: FUSED's skew path (rowskew.cu) for softmax, softmax_bwd,
 * rmsnorm and rmsnorm_bwd, internal to kernels/. fused_dispatch (workspace.cu)
 * hands it the rows it takes, with its part of FUSED's workspace, which sits
 * after fused_ws_bytes' part. */
#ifndef CPK_ROWSKEW_CUH
#define CPK_ROWSKEW_CUH

#include <cuda_runtime.h>

#include "cpk.h"

namespace cpk__ {

/* Whether FUSED takes these rows of op through the skew path: softmax,
 * softmax_bwd, rmsnorm and rmsnorm_bwd from CPK_SKEW_MIN columns
 * (environment, side-by-side runs; default 131073, docs/PERFORMANCE.md v20,
 * v21) up, while a row has at most the op's segments (128; softmax_bwd
 * 256, rmsnorm_bwd 64: 32 KiB of input a segment), unless the environment
 * variable CPK_SKEW is "0". Pure. */
bool skew_takes(cpk_op op, cpk_dtype dt, cpk_rows s);

/* Its workspace (a multiple of 256 bytes; 0 where skew_takes is false). */
size_t skew_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s);

/* One launch. in0: x (softmax, rmsnorm) or dy (softmax_bwd, rmsnorm_bwd);
 * in1: y (softmax_bwd), x (rmsnorm_bwd) or null; w: rmsnorm's and
 * rmsnorm_bwd's weight or null; out: y or dx; dw: rmsnorm_bwd's dw (cols
 * elements) or null; mask: softmax's or null. ws: skew_ws_bytes of workspace,
 * 16-byte aligned, zeroed once before its first use and left alone between
 * launches on one stream (every launch leaves its header ready for the next).
 * Softmax's rows (no mask) and rmsnorm's (since v24c every width the path
 * takes, up to 128 segments) run on the path's ring (ring_k, v23) where the
 * device has compute capability 9.0 and the rows are 16-byte aligned whole
 * vectors (CPK_SKEW_RING: 0 never, 1 or 2 wherever it can; 2 without falling
 * back), else on skew_k. cudaErrorNotSupported: the device has no cooperative
 * launch, or (rmsnorm_bwd) fewer resident blocks than a row has segments (the
 * caller takes another path). */
cudaError_t skew_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                     const void *w, void *out, void *dw, const uint8_t *mask,
                     int64_t mstride, float eps, cpk_rows s, void *ws,
                     cudaStream_t st);

} /* namespace cpk__ */

#endif
