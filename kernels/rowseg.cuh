/* rowseg.cuh: FUSED row_sum's segment path (rowseg.cu), internal to
 * kernels/. fused_dispatch (workspace.cu) hands it the rows it takes, with
 * its part of FUSED's workspace, which sits after fused_ws_bytes' part. */
#ifndef CPK_ROWSEG_CUH
#define CPK_ROWSEG_CUH

#include <cuda_runtime.h>

#include "cpk.h"

namespace cpk__ {

/* Whether FUSED row_sum takes these rows through the segment path: the
 * widths from CPK_SEG_MIN (environment, side-by-side runs; default 131073,
 * docs/PERFORMANCE.md v17b) up, unless the environment variable CPK_SEG is
 * "0" or FUSED's grid path takes the width (CPK_GRID_MIN). Pure. */
bool seg_takes(cpk_dtype dt, cpk_rows s);

/* Its workspace (a multiple of 256 bytes; 0 where seg_takes is false). */
size_t seg_ws_bytes(cpk_dtype dt, cpk_rows s);

/* One launch; ws: seg_ws_bytes of workspace, 16-byte aligned, zeroed
 * once before its first use and left alone between launches on one stream
 * (every launch leaves its counts at zero). */
cudaError_t seg_run(cpk_dtype dt, const void *x, void *y, cpk_rows s, void *ws,
                    cudaStream_t st);

} /* namespace cpk__ */

#endif
