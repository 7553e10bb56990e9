/* workspace.cu: cpk_workspace_bytes, the one place that sizes the row ops'
 * scratch, and fused_dispatch, which hands FUSED's paths their parts of it.
 * (Matmul's optional scratch depends on the whole cpk_gemm: it is sized by
 * cpk_matmul_workspace_bytes in matmul.cu, from the plan in mm_sm90.cuh; here
 * CPK_OP_MATMUL gives 0.)
 *
 * Layouts (each section rounded up to 256 bytes, in this order):
 *  - row_sum, softmax_bwd, rmsnorm SPLIT: fp32 partial[rows][chunks].
 *  - softmax SPLIT: float2 (max, sum) partial[rows][chunks].
 *  - rmsnorm_bwd (every variant): fp32 rstd[rows], fp32 dw partial
 *    [groups][cols]; SPLIT adds float2 (sum x^2, sum dy*w*x)
 *    partial[rows][chunks].
 *  - FUSED: rmsnorm_bwd only: fp32 dw partial [groups][cols] (rowfused.cu);
 *    the grid path's exchange where it takes the width; row_sum's segment
 *    path (rowseg.cu) or the skew path of softmax, softmax_bwd, rmsnorm and
 *    rmsnorm_bwd (rowskew.cu: its header and words, and rmsnorm_bwd's dw
 *    partials) after those.
 * The plans come from common.cuh and depend only on the shape, so the size
 * returned here is exactly what the launchers use.
 */
#include "common.cuh"
#include "rowfused.cuh"
#include "rowskew.cuh"
#include "rowseg.cuh"

using namespace cpk__;

extern "C" size_t cpk_workspace_bytes(cpk_op op, cpk_variant v, cpk_dtype dt,
                                      cpk_rows shape) {
  (void)dt;
  if (!shape_ok(shape))
    return 0;
  if (v == CPK_V_FUSED)
    return fused_ws_bytes(op, dt, shape) +
           (op == CPK_OP_ROW_SUM ? seg_ws_bytes(dt, shape) : 0) +
           skew_ws_bytes(op, dt, shape);
  const split_plan sp = plan_split(shape.rows, shape.cols);
  const size_t cells = (size_t)shape.rows * (size_t)sp.chunks;
  switch (op) {
  case CPK_OP_ROW_SUM:
  case CPK_OP_SOFTMAX_BWD:
  case CPK_OP_RMSNORM:
    return v == CPK_V_SPLIT ? ws_round(cells * sizeof(float)) : 0;
  case CPK_OP_SOFTMAX:
    return v == CPK_V_SPLIT ? ws_round(cells * 2 * sizeof(float)) : 0;
  case CPK_OP_RMSNORM_BWD: {
    const dw_plan dp = plan_dw(shape.rows, shape.cols);
    size_t b = ws_round((size_t)shape.rows * sizeof(float)) +
               ws_round((size_t)dp.groups * (size_t)shape.cols * sizeof(float));
    if (v == CPK_V_SPLIT)
      b += ws_round(cells * 2 * sizeof(float));
    return b;
  }
  default:
    return 0;
  }
}

cudaError_t cpk__::fused_dispatch(cpk_op op, cpk_dtype dt, const void *in0,
                                  const void *in1, const void *w, void *out,
                                  void *dw, const uint8_t *mask,
                                  int64_t mstride, float eps, cpk_rows s,
                                  void *ws, cudaStream_t st) {
  /* the segment and skew paths' workspace follows fused_run's */
  auto rest = [&] {
    return static_cast<void *>(static_cast<char *>(ws) +
                               fused_ws_bytes(op, dt, s));
  };
  if (op == CPK_OP_ROW_SUM && seg_takes(dt, s))
    return seg_run(dt, in0, out, s, rest(), st);
  if (skew_takes(op, dt, s)) {
    const cudaError_t e = skew_run(op, dt, in0, in1, w, out, dw, mask, mstride,
                                   eps, s, rest(), st);
    if (e != cudaErrorNotSupported)
      return e;
  }
  return fused_run(op, dt, in0, in1, w, out, dw, mask, mstride, eps, s, ws, st);
}
