/* pf_ops.c: the registry table, per-op layouts, reference glue and cost
 * formulas (see pf_ops.h). Input generation is in pf_fill.c. */
#include "pf_ops.h"

#include <string.h>

#include "cm_error.h"
#include "pf_fill.h"
#include "pf_half.h"
#include "pf_ref.h"

#define V(x) (1u << (x))
#define ALL_DT (V(CPK_F32) | V(CPK_F16) | V(CPK_BF16))
#define ROW_V (V(CPK_V_WARP) | V(CPK_V_BLOCK) | V(CPK_V_SPLIT) | V(CPK_V_FUSED))

static const char *const variant_names[] = {
    "vector", "serial", "warp",       "block", "online", "split",
    "naive",  "tiled",  "tensorcore", "fused", "hopper"};

/* ---- layouts ---- */

static int add_t(pf_case *c, const char *n, int out, int64_t r, int64_t cols,
                 int64_t ld) {
  int i = pf_case_add_tensor(c, n, out, 0, pf_dtype_size(c->dt), r, cols, ld);
  return i < 0 ? i : CM_OK;
}

static int layout_copy(pf_case *c) {
  int e = add_t(c, "x", 0, 1, c->cols, c->cols);
  return e ? e : add_t(c, "y", 1, 1, c->cols, c->cols);
}

static int layout_add(pf_case *c) {
  int e = add_t(c, "a", 0, 1, c->cols, c->cols);
  if (!e)
    e = add_t(c, "b", 0, 1, c->cols, c->cols);
  return e ? e : add_t(c, "y", 1, 1, c->cols, c->cols);
}

static int layout_row_sum(pf_case *c) {
  int e = add_t(c, "x", 0, c->rows, c->cols, c->stride);
  return e ? e : add_t(c, "y", 1, c->rows, 1, 1);
}

static int layout_softmax(pf_case *c) {
  int e = add_t(c, "x", 0, c->rows, c->cols, c->stride);
  if (!e && c->spec.mask) {
    int i = pf_case_add_tensor(c, "mask", 0, 1, 1, c->rows, c->cols, c->stride);
    e = i < 0 ? i : CM_OK;
  }
  return e ? e : add_t(c, "y", 1, c->rows, c->cols, c->stride);
}

static int layout_softmax_bwd(pf_case *c) {
  int e = add_t(c, "dy", 0, c->rows, c->cols, c->stride);
  if (!e)
    e = add_t(c, "y", 0, c->rows, c->cols, c->stride);
  return e ? e : add_t(c, "dx", 1, c->rows, c->cols, c->stride);
}

static int layout_rmsnorm(pf_case *c) {
  int e = add_t(c, "x", 0, c->rows, c->cols, c->stride);
  if (!e)
    e = add_t(c, "w", 0, 1, c->cols, c->cols);
  return e ? e : add_t(c, "y", 1, c->rows, c->cols, c->stride);
}

static int layout_rmsnorm_bwd(pf_case *c) {
  int e = add_t(c, "dy", 0, c->rows, c->cols, c->stride);
  if (!e)
    e = add_t(c, "x", 0, c->rows, c->cols, c->stride);
  if (!e)
    e = add_t(c, "w", 0, 1, c->cols, c->cols);
  if (!e)
    e = add_t(c, "dx", 1, c->rows, c->cols, c->stride);
  return e ? e : add_t(c, "dw", 1, 1, c->cols, c->cols);
}

static int layout_matmul(pf_case *c) {
  const cpk_gemm *g = &c->g;
  int e = add_t(c, "a", 0, g->trans_a ? g->k : g->m, g->trans_a ? g->m : g->k,
                g->lda);
  if (!e)
    e = add_t(c, "b", 0, g->trans_b ? g->n : g->k, g->trans_b ? g->k : g->n,
              g->ldb);
  return e ? e : add_t(c, "c", 1, g->m, g->n, g->ldc);
}

/* ---- references ---- */

static pf_tensor *out_t(pf_case *c, int k) {
  int i;
  for (i = 0; i < c->ntensors; i++)
    if (c->t[i].is_output && k-- == 0)
      return &c->t[i];
  return NULL;
}

static int ref_copy(pf_case *c) {
  return pf_ref_copy(c->t[0].val, out_t(c, 0)->expected, c->cols);
}

typedef struct {
  cpk_dtype dt;
  double *y;
} round_ctx;

static void round_range(void *p, int64_t i0, int64_t i1) {
  const round_ctx *r = p;
  int64_t i;
  for (i = i0; i < i1; i++)
    r->y[i] = pf_dtype_round(r->dt, r->y[i]);
}

/* add is checked exactly (pf_tol.c): the expected value is the sum rounded
 * once to the dtype. The float64 sum is a+b rounded to 53 bits and
 * pf_dtype_round rounds it through binary32; each of those double
 * roundings gives the once-rounded result (p' >= 2p + 2 for one addition:
 * 53 >= 50, and 24 >= 24 for fp16, 24 >= 18 for bf16), and so does the
 * kernel's fp32 sum rounded to fp16/bf16 (docs/VALIDATION.md). */
static int ref_add(pf_case *c) {
  double *y = out_t(c, 0)->expected;
  round_ctx r = {c->dt, y};
  int e = pf_ref_add(c->t[0].val, c->t[1].val, y, c->cols);
  return e ? e : pf_ref_parallel(c->cols, 65536, round_range, &r);
}

static int ref_row_sum(pf_case *c) {
  pf_tensor *y = out_t(c, 0);
  return pf_ref_row_sum(c->t[0].val, c->rows, c->cols, y->expected, y->scale);
}

static int ref_softmax(pf_case *c) {
  const uint8_t *m = c->spec.mask ? c->t[1].mval : NULL;
  return pf_ref_softmax(c->t[0].val, m, c->rows, c->cols,
                        out_t(c, 0)->expected);
}

static int ref_softmax_bwd(pf_case *c) {
  pf_tensor *dx = out_t(c, 0);
  return pf_ref_softmax_bwd(c->t[0].val, c->t[1].val, c->rows, c->cols,
                            dx->expected, dx->scale);
}

static int ref_rmsnorm(pf_case *c) {
  return pf_ref_rmsnorm(c->t[0].val, c->t[1].val, c->eps, c->rows, c->cols,
                        out_t(c, 0)->expected);
}

static int ref_rmsnorm_bwd(pf_case *c) {
  pf_tensor *dx = out_t(c, 0), *dw = out_t(c, 1);
  return pf_ref_rmsnorm_bwd(c->t[0].val, c->t[1].val, c->t[2].val, c->eps,
                            c->rows, c->cols, dx->expected, dx->scale,
                            dw->expected, dw->scale);
}

static int ref_matmul(pf_case *c) {
  pf_ref_gemm g = {c->g.m, c->g.n, c->g.k, c->g.trans_a, c->g.trans_b};
  pf_tensor *y = out_t(c, 0);
  /* A product that is sampled with no sample: choose_sample could not
   * allocate it. The full reference instead could take far longer than the
   * run was set for (a user's 16384^3, sampled by default: about 3.5
   * minutes on 2 cores in the AVX-512 tile, twelve in the plain one), so
   * fail the case. */
  if (c->sample == NULL && pf_matmul_sampled(g.m, g.n, g.k))
    return CM_ENOMEM;
  return pf_ref_matmul(c->t[0].val, c->t[1].val, g, y->expected, y->scale,
                       c->sample, c->nsample);
}

/* ---- costs ---- */

static double bytes_all(const pf_case *c) {
  double b = 0;
  int i;
  for (i = 0; i < c->ntensors; i++)
    b += (double)c->t[i].rows * (double)c->t[i].cols * (double)c->t[i].elsize;
  return b;
}

static double flops_none(const pf_case *c) {
  (void)c;
  return 0;
}

static double flops_matmul(const pf_case *c) {
  return 2.0 * (double)c->g.m * (double)c->g.n * (double)c->g.k;
}

static const pf_op op_table[] = {
    {"copy", CPK_OP_COPY, PF_KIND_ELEM, V(CPK_V_VECTOR), ALL_DT, layout_copy,
     pf_fill_elementwise, ref_copy, bytes_all, flops_none},
    {"add", CPK_OP_ADD, PF_KIND_ELEM, V(CPK_V_VECTOR), ALL_DT, layout_add,
     pf_fill_elementwise, ref_add, bytes_all, flops_none},
    {"row_sum", CPK_OP_ROW_SUM, PF_KIND_ROWS, ROW_V, ALL_DT, layout_row_sum,
     pf_fill_row_sum, ref_row_sum, bytes_all, flops_none},
    {"softmax", CPK_OP_SOFTMAX, PF_KIND_ROWS,
     ROW_V | V(CPK_V_SERIAL) | V(CPK_V_ONLINE), ALL_DT, layout_softmax,
     pf_fill_softmax, ref_softmax, bytes_all, flops_none},
    {"softmax_backward", CPK_OP_SOFTMAX_BWD, PF_KIND_ROWS, ROW_V, ALL_DT,
     layout_softmax_bwd, pf_fill_softmax_bwd, ref_softmax_bwd, bytes_all,
     flops_none},
    {"rmsnorm", CPK_OP_RMSNORM, PF_KIND_ROWS, ROW_V, ALL_DT, layout_rmsnorm,
     pf_fill_rmsnorm, ref_rmsnorm, bytes_all, flops_none},
    {"rmsnorm_backward", CPK_OP_RMSNORM_BWD, PF_KIND_ROWS, ROW_V, ALL_DT,
     layout_rmsnorm_bwd, pf_fill_rmsnorm, ref_rmsnorm_bwd, bytes_all,
     flops_none},
    {"matmul", CPK_OP_MATMUL, PF_KIND_MATMUL,
     V(CPK_V_NAIVE) | V(CPK_V_TILED) | V(CPK_V_TENSORCORE) | V(CPK_V_HOPPER),
     ALL_DT, layout_matmul, pf_fill_matmul, ref_matmul, bytes_all,
     flops_matmul},
};

static const pf_op negative_control = {
    "copy_unmasked",     CPK_OP_COPY_UNMASKED,
    PF_KIND_ELEM,        V(CPK_V_VECTOR),
    V(CPK_F32),          layout_copy,
    pf_fill_elementwise, ref_copy,
    bytes_all,           flops_none};

/* add's layout, inputs and reference, add.ftz.f32's arithmetic (cpk.h) */
static const pf_op verify_control = {
    "add_ftz",  CPK_OP_ADD_FTZ,      PF_KIND_ELEM, V(CPK_V_VECTOR), V(CPK_F32),
    layout_add, pf_fill_elementwise, ref_add,      bytes_all,       flops_none};

const pf_op *pf_ops(int *count) {
  *count = (int)(sizeof op_table / sizeof op_table[0]);
  return op_table;
}

const pf_op *pf_op_negative_control(void) {
  return &negative_control;
}

const pf_op *pf_op_verify_control(void) {
  return &verify_control;
}

int pf_op_find(const char *s) {
  int i, n;
  const pf_op *t = pf_ops(&n);
  for (i = 0; i < n; i++)
    if (strcmp(t[i].name, s) == 0)
      return i;
  return -1;
}

const char *pf_variant_name(int v) {
  if (v == PF_VARIANT_AUTO)
    return "auto";
  if (v < 0 || v >= (int)(sizeof variant_names / sizeof variant_names[0]))
    return "?";
  return variant_names[v];
}

int pf_variant_parse(const char *s, int *out) {
  int i;
  if (strcmp(s, "auto") == 0) {
    *out = PF_VARIANT_AUTO;
    return CM_OK;
  }
  for (i = 0; i < (int)(sizeof variant_names / sizeof variant_names[0]); i++)
    if (strcmp(s, variant_names[i]) == 0) {
      *out = i;
      return CM_OK;
    }
  return CM_EINVAL;
}

int pf_op_supports(const pf_op *op, int v, cpk_dtype dt) {
  if (!(op->dtypes & V(dt)))
    return 0;
  if (v == PF_VARIANT_AUTO)
    return 1;
  if (v < 0 || !(op->variants & V(v)))
    return 0;
  /* cpk.h: the shared-memory tiled matmul is fp32 only, tensor cores take
   * only the 2-byte types. */
  if (op->kop == CPK_OP_MATMUL && v == CPK_V_TILED && dt != CPK_F32)
    return 0;
  if (op->kop == CPK_OP_MATMUL &&
      (v == CPK_V_TENSORCORE || v == CPK_V_HOPPER) && dt == CPK_F32)
    return 0;
  return 1;
}

int pf_case_setup(pf_case *c, const pf_op *op, cpk_variant v) {
  const pf_spec *s = &c->spec;
  c->op = op;
  c->kop = op->kop;
  c->variant = v;
  c->dt = s->dt;
  c->eps = 1e-5f;
  if (op->kind == PF_KIND_MATMUL) {
    if (s->ndims != 3 || s->ld_pad < 0)
      return CM_EINVAL;
    c->g.m = s->dims[0];
    c->g.n = s->dims[1];
    c->g.k = s->dims[2];
    c->g.trans_a = s->trans_a;
    c->g.trans_b = s->trans_b;
    if (s->ld_pad > INT64_MAX / 4 || c->g.m > INT64_MAX / 4 ||
        c->g.n > INT64_MAX / 4 || c->g.k > INT64_MAX / 4)
      return CM_ERANGE;
    c->g.lda = (s->trans_a ? c->g.m : c->g.k) + s->ld_pad;
    c->g.ldb = (s->trans_b ? c->g.k : c->g.n) + s->ld_pad;
    c->g.ldc = c->g.n + s->ld_pad;
    c->rows = c->g.m;
    c->cols = c->g.n;
    c->stride = c->g.ldc;
  } else if (s->ndims != 2) {
    return CM_EINVAL;
  } else if (op->kind == PF_KIND_ELEM) {
    if (s->dims[0] > INT64_MAX / s->dims[1])
      return CM_ERANGE;
    c->rows = 1;
    c->cols = s->dims[0] * s->dims[1];
    c->stride = c->cols;
  } else {
    c->rows = s->dims[0];
    c->cols = s->dims[1];
    c->stride = s->stride ? s->stride : c->cols;
    if (c->stride < c->cols)
      return CM_EINVAL;
  }
  return op->layout(c);
}
