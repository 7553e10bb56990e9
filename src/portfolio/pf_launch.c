/* pf_launch.c: see pf_launch.h. Tensor order per op is fixed by the
 * layouts in pf_ops.c. */
#include "pf_launch.h"

cudaError_t pf_launch(const pf_case *c, int set, cudaStream_t stream) {
  cpk_rows shape = {c->rows, c->cols, c->stride};
  void *const d0 = c->t[0].dev[set];
  void *const d1 = c->ntensors > 1 ? c->t[1].dev[set] : NULL;
  void *const d2 = c->ntensors > 2 ? c->t[2].dev[set] : NULL;
  void *const d3 = c->ntensors > 3 ? c->t[3].dev[set] : NULL;
  void *const d4 = c->ntensors > 4 ? c->t[4].dev[set] : NULL;
  void *ws = c->ws[set];
  switch (c->kop) {
  case CPK_OP_COPY:
    return cpk_copy(c->dt, d0, d1, c->cols, stream);
  case CPK_OP_COPY_UNMASKED:
    return cpk_copy_unmasked(c->dt, d0, d1, c->cols, stream);
  case CPK_OP_ADD:
    return cpk_add(c->dt, d0, d1, d2, c->cols, stream);
  case CPK_OP_ADD_FTZ:
    return cpk_add_ftz(c->dt, d0, d1, d2, c->cols, stream);
  case CPK_OP_ROW_SUM:
    return cpk_row_sum(c->variant, c->dt, d0, d1, shape, ws, c->ws_bytes,
                       stream);
  case CPK_OP_SOFTMAX:
    if (c->spec.mask)
      return cpk_softmax(c->variant, c->dt, d0, d2, d1, c->t[1].ld, shape, ws,
                         c->ws_bytes, stream);
    return cpk_softmax(c->variant, c->dt, d0, d1, NULL, 0, shape, ws,
                       c->ws_bytes, stream);
  case CPK_OP_SOFTMAX_BWD:
    return cpk_softmax_bwd(c->variant, c->dt, d0, d1, d2, shape, ws,
                           c->ws_bytes, stream);
  case CPK_OP_RMSNORM:
    return cpk_rmsnorm(c->variant, c->dt, d0, d1, d2, c->eps, shape, ws,
                       c->ws_bytes, stream);
  case CPK_OP_RMSNORM_BWD:
    return cpk_rmsnorm_bwd(c->variant, c->dt, d0, d1, d2, d3, d4, c->eps, shape,
                           ws, c->ws_bytes, stream);
  case CPK_OP_MATMUL:
    return cpk_matmul(c->variant, c->dt, d0, d1, d2, c->g, ws, c->ws_bytes,
                      stream);
  }
  return cudaErrorInvalidValue;
}
