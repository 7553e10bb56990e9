/* rowlag.cuh: FUSED's lag path (rowlag.cu) for softmax, softmax_bwd and
 * rmsnorm, internal to kernels/. Each op's launcher hands it the rows it
 * takes; workspace.cu sizes its part of FUSED's workspace, which sits after
 * fused_ws_bytes' part. */
#ifndef CPK_ROWLAG_CUH
#define CPK_ROWLAG_CUH

#include <cuda_runtime.h>

#include "cpk.h"

namespace cpk__ {

/* Whether FUSED takes these rows of op through the lag path: softmax,
 * softmax_bwd and rmsnorm from CPK_LAG_MIN columns (environment, side-by-side
 * runs; default 131073, docs/PERFORMANCE.md v18) up, unless the environment
 * variable CPK_LAG is "0". Pure. */
bool lag_takes(cpk_op op, cpk_dtype dt, cpk_rows s);

/* Its workspace (a multiple of 256 bytes; 0 where lag_takes is false). */
size_t lag_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s);

/* One launch. in0: x (softmax, rmsnorm) or dy (softmax_bwd); in1: y
 * (softmax_bwd) or null; w: rmsnorm's weight or null; mask: softmax's or
 * null. ws: lag_ws_bytes of workspace, 16-byte aligned, zeroed once before
 * its first use and left alone between launches on one stream (every
 * launch leaves its counters at zero). */
cudaError_t lag_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                    const void *w, void *out, const uint8_t *mask,
                    int64_t mstride, float eps, cpk_rows s, void *ws,
                    cudaStream_t st);

} /* namespace cpk__ */

#endif
