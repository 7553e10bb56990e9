/* rowfused.cuh: the FUSED row-op path (rowfused.cu), internal to kernels/.
 * Each op's launcher hands CPK_V_FUSED to fused_dispatch (workspace.cu),
 * which runs fused_run but for the rows that two other FUSED paths take
 * first: row_sum's segment path (rowseg.cu) and softmax's, softmax_bwd's,
 * rmsnorm's and rmsnorm_bwd's skew path (rowskew.cu), from 131073 columns
 * by default (their *_takes rules); with those off (CPK_SEG=0, CPK_SKEW=0)
 * rowfused.cu's wide and grid paths take them. */
#ifndef CPK_ROWFUSED_CUH
#define CPK_ROWFUSED_CUH

#include <cuda_runtime.h>

#include "cpk.h"

namespace cpk__ {

/* Workspace of FUSED for this shape (rmsnorm_bwd's dw partials; else 0). */
size_t fused_ws_bytes(cpk_op op, cpk_dtype dt, cpk_rows s);

/* One launch (two for rmsnorm_bwd) of the fused kernel. in0/in1: the op's
 * inputs in the order of rowfused.cu's fparams; w: rmsnorm weight or null;
 * out: the 2-D output (row_sum: y[rows]); dw: rmsnorm_bwd's dw or null; mask:
 * softmax mask or null. cudaErrorInvalidValue when the row does not fit
 * (cpk_fused_fits). */
cudaError_t fused_run(cpk_op op, cpk_dtype dt, const void *in0, const void *in1,
                      const void *w, void *out, void *dw, const uint8_t *mask,
                      int64_t mstride, float eps, cpk_rows s, void *ws,
                      cudaStream_t st);

/* FUSED as the launchers run it (workspace.cu, beside the layout that
 * cpk_workspace_bytes sizes): row_sum's segment path or the skew path where
 * they take the rows, their workspace after fused_ws_bytes' part, else
 * fused_run; the skew path falls back to fused_run where it says
 * cudaErrorNotSupported (a device without cooperative launches; for
 * rmsnorm_bwd, fewer resident blocks than a row's segments). Arguments as
 * fused_run's. */
cudaError_t fused_dispatch(cpk_op op, cpk_dtype dt, const void *in0,
                           const void *in1, const void *w, void *out, void *dw,
                           const uint8_t *mask, int64_t mstride, float eps,
                           cpk_rows s, void *ws, cudaStream_t st);

} /* namespace cpk__ */

#endif
