/* pf_run.c: the harness (see pf_run.h). Each step is its own function that
 * returns a cm_error; pf_run_case strings them together with one cleanup
 * tail. Verification failures are findings, not errors: they are recorded
 * in the case's verdict and the run goes on. */
#include "pf_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "cm_error.h"
#include "cm_str.h"
#include "pf_cucheck.h"
#include "pf_dump.h"
#include "pf_fill.h"
#include "pf_half.h"
#include "pf_launch.h"
#include "pf_mem.h"
#include "pf_ops.h"
#include "pf_plan.h"
#include "pf_ref.h"
#include "pf_tol.h"
#include "platform.h"

/* Why a case failed; the first finding wins. */
typedef struct {
  const char *reason; /* NULL: passed */
  const char *tensor;
  pf_cmp cmp; /* worst element of the failing (or last) compare */
  double max_abs, max_rel;
  /* the rounding of the output furthest off the nearest values
   * (rounding_checked: whether the case has the check, rounding_applies) */
  int rounding_checked;
  pf_rounding rounding;
  char detail[160];
} verdict;

void pf_case_shape_str(const pf_case *c, char *buf, size_t size) {
  if (c->op->kind == PF_KIND_MATMUL)
    cm_snprintf(buf, size, "%" PRId64 "x%" PRId64 "x%" PRId64, c->g.m, c->g.n,
                c->g.k);
  else if (c->op->kind == PF_KIND_ELEM)
    cm_snprintf(buf, size, "%" PRId64, c->cols);
  else
    cm_snprintf(buf, size, "%" PRId64 "x%" PRId64, c->rows, c->cols);
}

/* ---- bulk host passes, on pf_ref_threads() threads ---- */

/* Elements per range of a bulk pass: below this a thread is not worth it. */
#define RUN_CHUNK 65536
/* Bytes per block of a parallel memcmp. */
#define EQ_BLOCK ((int64_t)1 << 22)

typedef struct {
  const unsigned char *a, *b;
  int64_t n;
  unsigned char *differs; /* one flag per block, each set by one thread */
} eq_ctx;

static void eq_blocks(void *p, int64_t b0, int64_t b1) {
  const eq_ctx *e = p;
  int64_t b;
  for (b = b0; b < b1; b++) {
    int64_t at = b * EQ_BLOCK,
            len = e->n - at < EQ_BLOCK ? e->n - at : EQ_BLOCK;
    e->differs[b] = memcmp(e->a + at, e->b + at, (size_t)len) != 0;
  }
}

/* 1 if the n bytes at a and b are equal. */
static int bytes_equal(const void *a, const void *b, size_t n) {
  eq_ctx e = {a, b, (int64_t)n, NULL};
  int64_t nb = ((int64_t)n + EQ_BLOCK - 1) / EQ_BLOCK, i;
  int same = 1;
  if (nb > 1)
    e.differs = calloc((size_t)nb, 1);
  if (!e.differs)
    return memcmp(a, b, n) == 0;
  (void)pf_ref_parallel(nb, 1, eq_blocks, &e);
  for (i = 0; i < nb; i++)
    if (e.differs[i])
      same = 0;
  free(e.differs);
  return same;
}

typedef struct {
  cpk_dtype dt;
  pf_tensor *t;
} conv_ctx;

/* val[k] for compact indices [k0, k1) from the device-layout image. */
static void load_range(void *p, int64_t k0, int64_t k1) {
  const conv_ctx *cc = p;
  pf_tensor *t = cc->t;
  int64_t r = k0 / t->cols, j = k0 % t->cols, k;
  for (k = k0; k < k1; k++) {
    t->val[k] =
        pf_dtype_load(cc->dt, t->image + (size_t)(r * t->ld + j) * t->elsize);
    if (++j == t->cols) {
      j = 0;
      r++;
    }
  }
}

typedef struct {
  cpk_dtype dt;
  double *e;
} sat_ctx;

static void saturate_range(void *p, int64_t i0, int64_t i1) {
  const sat_ctx *sc = p;
  pf_dtype_saturate(sc->dt, sc->e + i0, i1 - i0);
}

/* An expected value beyond the dtype's range is what a correct kernel
 * stores as infinity: compare with that, not with the huge finite. Done
 * once, right after the reference (it is idempotent). */
static void saturate_expected(pf_case *c) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    sat_ctx sc = {c->dt, c->t[i].expected};
    if (c->t[i].is_output)
      (void)pf_ref_parallel(c->t[i].rows * c->t[i].cols, RUN_CHUNK,
                            saturate_range, &sc);
  }
}

/* ---- device steps ---- */

static int upload_inputs(pf_case *c) {
  int s, i;
  for (s = 0; s < c->nsets; s++)
    for (i = 0; i < c->ntensors; i++)
      if (!c->t[i].is_output)
        PF_CU(cudaMemcpy(c->t[i].dev[s], c->t[i].image, c->t[i].bytes,
                         cudaMemcpyHostToDevice));
  return CM_OK;
}

/* The outputs' poison: all ones, a NaN in every dtype (cpk.h). The
 * determinism rerun poisons with PF__POISON2 instead, finite in every dtype
 * (fp32 and bf16 1.5e13, fp16 85.3), so that an element no launch wrote
 * differs between the two (pf_two_runs). */
#define PF__POISON 0xFF
#define PF__POISON2 0x55

static int poison_outputs_with(pf_case *c, int set, int byte) {
  int i;
  for (i = 0; i < c->ntensors; i++)
    if (c->t[i].is_output)
      PF_CU(cudaMemset(c->t[i].dev[set], byte, c->t[i].bytes));
  return CM_OK;
}

static int poison_outputs(pf_case *c, int set) {
  return poison_outputs_with(c, set, PF__POISON);
}

static int launch_sync(pf_case *c, int set) {
  cudaError_t e = pf_launch(c, set, 0);
  if (e != cudaSuccess) {
    fprintf(stderr, "%s:%d: launch of %s/%s/%s: %s (%s)\n", __FILE__, __LINE__,
            c->op->name, pf_variant_name((int)c->variant), pf_dtype_name(c->dt),
            cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaGetLastError();
    return CM_ECUDA;
  }
  PF_CU(cudaDeviceSynchronize());
  PF_CU(cudaGetLastError());
  return CM_OK;
}

/* Converts every output's image into its values (val). */
static void load_outputs(pf_case *c) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    conv_ctx cc = {c->dt, &c->t[i]};
    if (c->t[i].is_output)
      (void)pf_ref_parallel(c->t[i].rows * c->t[i].cols, RUN_CHUNK, load_range,
                            &cc);
  }
}

/* Reads the outputs of `set` into image and their values into val. */
static int read_outputs(pf_case *c, int set) {
  int i;
  for (i = 0; i < c->ntensors; i++)
    if (c->t[i].is_output)
      PF_CU(cudaMemcpy(c->t[i].image, c->t[i].dev[set], c->t[i].bytes,
                       cudaMemcpyDeviceToHost));
  load_outputs(c);
  return CM_OK;
}

/* Reads the output bytes of `set` into each output's `first` buffer and,
 * when same is not NULL, sets *same to 1 if all of them equal `image` (the
 * verified bytes). */
static int read_again(pf_case *c, int set, int *same) {
  int i;
  if (same != NULL)
    *same = 1;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    if (!t->is_output)
      continue;
    PF_CU(cudaMemcpy(t->first, t->dev[set], t->bytes, cudaMemcpyDeviceToHost));
    if (same != NULL && !bytes_equal(t->first, t->image, t->bytes))
      *same = 0;
  }
  return CM_OK;
}

/* ---- verification ---- */

/* The rounding check (pf_rounding_check) runs on the 16-bit outputs of the
 * row ops' cases without extreme values (docs/VALIDATION.md, "Rounding").
 * Not on extreme cases: their pattern rows repeat one or two values over a
 * whole row, so one value whose reference lies within the kernel's fp32
 * error of a midpoint puts half a row off the nearest value, one way, for
 * no bug. Not on matmul: its tensor-core paths lean toward zero, more as
 * K grows; measured on an H100, fp16 at 8192^3 has 3 % of its elements off
 * the nearest value, 0.4 of them one way more than the other, one bound
 * short of failing (results/h200/checks/rounding-h100-*). Not on copy and
 * add (compared exactly) nor fp32 (several fp32 ulps of the kernels' own
 * arithmetic). */
static int rounding_applies(const pf_case *c) {
  return c->dt != CPK_F32 && c->op->kind == PF_KIND_ROWS && !c->spec.extreme;
}

static void verify_outputs(pf_case *c, verdict *v) {
  pf_tol tol = pf_tol_get(c->kop, c->dt);
  int i;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    int64_t n = t->rows * t->cols, r;
    pf_cmp cmp;
    int ok;
    if (!t->is_output)
      continue;
    /* expected was saturated to the dtype's range by saturate_expected. */
    ok = pf_compare(t->val, t->expected, t->scale, n, c->sample, c->nsample,
                    tol, &cmp);
    if (cmp.max_abs > v->max_abs)
      v->max_abs = cmp.max_abs;
    if (cmp.max_rel > v->max_rel)
      v->max_rel = cmp.max_rel;
    if (!ok && !v->reason) {
      v->reason = "tolerance";
      v->tensor = t->name;
      v->cmp = cmp;
    }
    /* the extreme rows whose outputs all lie under atol, at their own
     * scale (pf_compare_small_rows; since 2026-12-06) */
    if (c->spec.extreme && c->op->kind == PF_KIND_ROWS && !c->sample &&
        !pf_compare_small_rows(t->val, t->expected, t->scale, t->rows, t->cols,
                               tol, pf_dtype_tiny(c->dt), &cmp) &&
        !v->reason) {
      v->reason = "tolerance";
      v->tensor = t->name;
      v->cmp = cmp;
      cm_snprintf(v->detail, sizeof v->detail,
                  "row-scaled: the row's outputs all lie under atol, which "
                  "was scaled by its largest |expected|");
    }
    if (rounding_applies(c)) {
      pf_rounding rd;
      int fair = pf_rounding_check(c->dt, t->val, t->expected, n, c->sample,
                                   c->nsample, &rd);
      /* the furthest off, unless an earlier output already failed it */
      if (!v->rounding_checked ||
          (rd.off > v->rounding.off &&
           !(v->reason && strcmp(v->reason, "rounding-bias") == 0)))
        v->rounding = rd;
      v->rounding_checked = 1;
      if (!fair && !v->reason) {
        v->reason = "rounding-bias";
        v->tensor = t->name;
        v->rounding = rd;
        cm_snprintf(v->detail, sizeof v->detail,
                    "away=%" PRId64 " toward=%" PRId64 " z=%.1f", rd.away,
                    rd.toward, rd.z);
      }
    }
    /* The gap between rows belongs to nobody: it must still be poison. */
    for (r = 0; r < t->rows && !v->reason; r++) {
      const unsigned char *g =
          t->image + (size_t)(r * t->ld + t->cols) * t->elsize;
      size_t gb = (size_t)(t->ld - t->cols) * t->elsize, k;
      for (k = 0; k < gb; k++)
        if (g[k] != PF__POISON) {
          v->reason = "wrote-row-gap";
          v->tensor = t->name;
          cm_snprintf(v->detail, sizeof v->detail, "row=%" PRId64, r);
          break;
        }
    }
  }
}

/* The inputs of every set, read back, must equal what was uploaded. One
 * scratch buffer (c->scratch, kept for the recheck after timing) serves
 * every read, so no read pays for fresh pages. */
static int check_inputs(pf_case *c, verdict *v) {
  int s, i;
  for (i = 0; i < c->ntensors; i++)
    if (!c->t[i].is_output && c->t[i].bytes > c->scratch_bytes) {
      free(c->scratch);
      c->scratch_bytes = 0;
      if ((c->scratch = malloc(c->t[i].bytes)) == NULL)
        return CM_ENOMEM;
      c->scratch_bytes = c->t[i].bytes;
    }
  for (s = 0; s < c->nsets; s++)
    for (i = 0; i < c->ntensors; i++) {
      pf_tensor *t = &c->t[i];
      if (t->is_output)
        continue;
      PF_CU(
          cudaMemcpy(c->scratch, t->dev[s], t->bytes, cudaMemcpyDeviceToHost));
      if (!bytes_equal(c->scratch, t->image, t->bytes) && !v->reason) {
        v->reason = "input-modified";
        v->tensor = t->name;
      }
    }
  return CM_OK;
}

/* A second launch, into outputs poisoned with the other byte, must give
 * the same bits as the first (which stay in `image`, its values in val) in
 * every element, and leave the gaps between rows as that poison: an
 * element neither launch wrote reads back as each launch's poison, which
 * the first comparison cannot see where the reference is NaN. */
static int check_determinism(pf_case *c, verdict *v) {
  int i, err;
  /* read back only: pf_two_runs compares, element by element */
  if ((err = poison_outputs_with(c, 0, PF__POISON2)) ||
      (err = launch_sync(c, 0)) || (err = read_again(c, 0, NULL)))
    return err;
  for (i = 0; i < c->ntensors && !v->reason; i++) {
    pf_tensor *t = &c->t[i];
    int64_t where;
    pf_two k;
    if (!t->is_output)
      continue;
    k = pf_two_runs(t->image, t->first, t->rows, t->cols, t->ld, t->elsize,
                    PF__POISON, PF__POISON2, &where);
    if (k == PF_TWO_SAME)
      continue;
    v->tensor = t->name;
    v->reason = k == PF_TWO_UNWRITTEN ? "unwritten"
                : k == PF_TWO_GAP     ? "wrote-row-gap"
                                      : "nondeterministic";
    if (k == PF_TWO_GAP)
      cm_snprintf(v->detail, sizeof v->detail, "row=%" PRId64 " rerun=1",
                  where);
    else
      cm_snprintf(v->detail, sizeof v->detail,
                  "index=%" PRId64 " row=%" PRId64 " col=%" PRId64, where,
                  t->cols > 0 ? where / t->cols : 0,
                  t->cols > 0 ? where % t->cols : 0);
  }
  return CM_OK;
}

/* ---- reporting ---- */

static void report(pf_runner *r, const pf_case *c, const verdict *v,
                   double ref_ms) {
  pf_tol tol = pf_tol_get(c->kop, c->dt);
  char shape[96];
  pf_case_shape_str(c, shape, sizeof shape);
  fprintf(r->out,
          "%s op=%s variant=%s dtype=%s shape=%s stride=%" PRId64
          " max_abs=%.3g max_rel=%.3g rtol=%.3g atol=%.3g"
          " time_ms_cpu_ref=%.1f",
          v->reason ? "FAIL" : "PASS", c->op->name,
          pf_variant_name((int)c->variant), pf_dtype_name(c->dt), shape,
          c->op->kind == PF_KIND_ELEM ? 0 : c->stride, v->max_abs, v->max_rel,
          tol.rtol, tol.atol, ref_ms);
  if (c->spec.variant == PF_VARIANT_AUTO)
    fprintf(r->out, " plan=auto");
  if (tol.gamma > 0)
    fprintf(r->out, " gamma=%.3g", tol.gamma);
  if (c->spec.mask)
    fprintf(r->out, " mask=1");
  if (c->spec.extreme)
    fprintf(r->out, " extreme=1");
  if (c->op->kind == PF_KIND_MATMUL)
    fprintf(r->out, " trans=%c%c ld_pad=%" PRId64, c->g.trans_a ? 't' : 'n',
            c->g.trans_b ? 't' : 'n', c->spec.ld_pad);
  if (c->sample)
    fprintf(r->out, " verified=sampled:%" PRId64, c->nsample);
  else if (c->op->kind == PF_KIND_MATMUL)
    fprintf(r->out, " ref_tile=%s", pf_ref_matmul_tile());
  if (v->rounding_checked)
    fprintf(r->out, " round_off=%.2e/%" PRId64 " round_one_way=%+.2f",
            v->rounding.off, v->rounding.counted, v->rounding.one_way);
  if (v->reason) {
    fprintf(r->out, " reason=%s tensor=%s", v->reason,
            v->tensor ? v->tensor : "-");
    if (strcmp(v->reason, "tolerance") == 0) {
      const pf_tensor *t = NULL;
      int i;
      for (i = 0; i < c->ntensors; i++)
        if (strcmp(c->t[i].name, v->tensor) == 0)
          t = &c->t[i];
      fprintf(r->out, " failed=%" PRId64 "/%" PRId64 " index=%" PRId64,
              v->cmp.failed, v->cmp.checked, v->cmp.worst);
      if (t && t->cols > 0)
        fprintf(r->out, " row=%" PRId64 " col=%" PRId64, v->cmp.worst / t->cols,
                v->cmp.worst % t->cols);
      fprintf(r->out, " actual=%.9g expected=%.17g", v->cmp.worst_actual,
              v->cmp.worst_expected);
    }
    if (v->detail[0])
      fprintf(r->out, " %s", v->detail);
  }
  fputc('\n', r->out);
  fflush(r->out);
}

/* ---- timing callbacks ---- */

/* One ctx for every callback of a pf_timed_case. */
typedef struct {
  pf_case *c;
  pf_runner *r;
} bench_ctx;

static int bench_launch(void *ctx, int set, cudaStream_t stream) {
  bench_ctx *b = ctx;
  cudaError_t e = pf_launch(b->c, set, stream);
  if (e != cudaSuccess) {
    fprintf(stderr, "%s:%d: timed launch: %s\n", __FILE__, __LINE__,
            cudaGetErrorString(e));
    (void)cudaGetLastError();
    return CM_ECUDA;
  }
  return CM_OK;
}

static int bench_peer(void *ctx, int set, cudaStream_t stream) {
  bench_ctx *b = ctx;
  return b->r->peer_run(b->r->peer, b->c, set, stream);
}

/* After timing: the inputs of every set must be unchanged, and a fresh
 * launch into poisoned outputs of every set must still verify. The launch
 * is fresh because the peer (if any) wrote into the same outputs and a hot
 * run may not have touched every set. Every set holds the same inputs, so
 * output bytes equal to the verified ones (`image`, gaps included) are
 * verified by that equality; any other bytes go through the full
 * verification against the reference, which was computed once and kept. */
static int bench_recheck(void *ctx) {
  bench_ctx *b = ctx;
  pf_case *c = b->c;
  verdict v;
  int s, i, err, same;
  memset(&v, 0, sizeof v);
  if ((err = check_inputs(c, &v)) != CM_OK)
    return err;
  for (s = 0; s < c->nsets && !v.reason; s++) {
    if ((err = poison_outputs(c, s)) || (err = launch_sync(c, s)) ||
        (err = read_again(c, s, &same)))
      return err;
    if (same)
      continue;
    for (i = 0; i < c->ntensors; i++)
      if (c->t[i].is_output) {
        unsigned char *tmp = c->t[i].image;
        c->t[i].image = c->t[i].first;
        c->t[i].first = tmp;
      }
    load_outputs(c);
    verify_outputs(c, &v);
    /* If these bytes verified, they are what later sets are compared
     * with: a failure stops the loop. */
  }
  return v.reason ? CM_EVERIFY : CM_OK;
}

static int time_case(pf_runner *r, pf_case *c, const verdict *v) {
  pf_tol tol = pf_tol_get(c->kop, c->dt);
  pf_timed_case tc;
  bench_ctx bc = {c, r};
  memset(&tc, 0, sizeof tc);
  tc.info.op = c->op->name;
  tc.info.variant = pf_variant_name((int)c->variant);
  tc.info.dtype = pf_dtype_name(c->dt);
  if (c->op->kind == PF_KIND_MATMUL) {
    tc.info.ndims = 3;
    tc.info.dims[0] = c->g.m;
    tc.info.dims[1] = c->g.n;
    tc.info.dims[2] = c->g.k;
  } else if (c->op->kind == PF_KIND_ELEM) {
    tc.info.ndims = 1;
    tc.info.dims[0] = c->cols;
  } else {
    tc.info.ndims = 2;
    tc.info.dims[0] = c->rows;
    tc.info.dims[1] = c->cols;
  }
  tc.info.stride = c->op->kind == PF_KIND_ELEM ? 0 : c->stride;
  tc.info.logical_bytes = c->op->bytes(c);
  tc.info.flops = c->op->flops(c);
  tc.info.rounding_checked = v->rounding_checked;
  tc.info.rounding = v->rounding;
  tc.info.sampled = c->sample ? c->nsample : 0;
  tc.ctx = &bc;
  tc.nsets = c->nsets;
  tc.launch = bench_launch;
  tc.recheck = bench_recheck;
  if (r->peer_for && (tc.peer_name = r->peer_for(r->peer, c)) != NULL)
    tc.peer_launch = bench_peer;
  return r->bench_case(r->bench, &tc, v->max_abs, v->max_rel, tol.rtol,
                       tol.atol);
}

/* ---- the case ---- */

static int setup(pf_runner *r, pf_case *c, const pf_spec *s) {
  int n, err;
  const pf_op *op = s->op == PF_OP_NEGATIVE_CONTROL ? pf_op_negative_control()
                    : s->op == PF_OP_VERIFY_CONTROL ? pf_op_verify_control()
                                                    : &pf_ops(&n)[s->op];
  cpk_variant v;
  cpk_rows shape;
  c->spec = *s;
  if (s->variant != PF_VARIANT_AUTO)
    v = (cpk_variant)s->variant;
  else if (op->kind == PF_KIND_MATMUL)
    v = pf_plan_choose_matmul(s->dt, s->dims[0], s->dims[1], s->dims[2],
                              &r->dev);
  else
    v = pf_plan_choose(op->kop, s->dt,
                       op->kind == PF_KIND_ROWS ? s->dims[0] : 1, s->dims[1],
                       &r->dev);
  if ((err = pf_case_setup(c, op, v)) != CM_OK) {
    fprintf(stderr, "cuda_portfolio: %s: cannot set up the case: %s\n",
            op->name,
            err == CM_ENOMEM ? "not enough host memory for this shape"
                             : cm_strerror(err));
    return err;
  }
  shape.rows = c->rows;
  shape.cols = c->cols;
  shape.stride = c->stride;
  /* Matmul's scratch depends on the whole cpk_gemm (cpk.h). */
  c->ws_bytes = c->kop == CPK_OP_MATMUL
                    ? cpk_matmul_workspace_bytes(v, c->dt, c->g)
                    : cpk_workspace_bytes(c->kop, v, c->dt, shape);
  c->nsets = r->nsets < 1 ? 1 : r->nsets > PF_MAX_SETS ? PF_MAX_SETS : r->nsets;
  c->seed = pf_case_seed(r->seed, s);
  return CM_OK;
}

static int check_fits(pf_case *c) {
  size_t per = pf_case_device_bytes(c), freeb = 0, total = 0;
  size_t host = pf_case_host_bytes(c);
  uint64_t avail = 0;
  char shape[96];
  /* The host side is ~10x the device's (float64 values, the expected
   * values and their scales: 38 bytes an element for fp16 softmax against
   * 4), and its buffers are allocated but not yet touched: past what the
   * machine has, the fill would be killed by the OOM killer, not refused.
   * Checked where the OS says what is available. */
  if (plat_mem_available(&avail) == CM_OK &&
      (host == SIZE_MAX || (uint64_t)host > avail / 10 * 9)) {
    pf_case_shape_str(c, shape, sizeof shape);
    fprintf(stderr,
            "cuda_portfolio: %s shape %s needs %zu bytes of host memory "
            "(inputs, float64 values and the reference; the check is on the "
            "CPU) and %" PRIu64 " are available; choose a smaller shape or "
            "free memory\n",
            c->op->name, shape, host, avail);
    return CM_ENOMEM;
  }
  PF_CU(cudaMemGetInfo(&freeb, &total));
  /* Timing wants several sets; fall back to fewer rather than refuse. */
  while (c->nsets > 1 && per > freeb / (size_t)c->nsets / 10 * 9)
    c->nsets--;
  if (per == 0 || per > freeb / 10 * 9) {
    pf_case_shape_str(c, shape, sizeof shape);
    fprintf(stderr,
            "cuda_portfolio: %s shape %s needs %zu bytes of device memory; "
            "the device has %zu free of %zu\n",
            c->op->name, shape, per, freeb, total);
    return CM_ENOMEM;
  }
  return CM_OK;
}

/* The case's inputs (seeded by the case) and their images, then the
 * float64 reference, its CPU time into *ref_ms, saturated to the dtype. */
static int inputs_and_reference(pf_case *c, double *ref_ms) {
  pf_rng rng;
  double t0;
  int err;
  pf_rng_seed(&rng, c->seed);
  c->op->fill(c, &rng);
  pf_fill_images(c);
  t0 = plat_monotonic_s();
  if ((err = c->op->reference(c)) != CM_OK)
    return err;
  *ref_ms = (plat_monotonic_s() - t0) * 1e3;
  saturate_expected(c);
  return CM_OK;
}

/* Allocates, uploads, poisons the outputs, launches once, reads back and
 * verifies into *v. */
static int launch_and_verify(pf_case *c, pf_mem *mem, verdict *v) {
  int err;
  if ((err = pf_mem_alloc(mem, c)) || (err = upload_inputs(c)) ||
      (err = poison_outputs(c, 0)) || (err = launch_sync(c, 0)) ||
      (err = read_outputs(c, 0)))
    return err;
  verify_outputs(c, v);
  return CM_OK;
}

int pf_run_case(pf_runner *r, const pf_spec *s) {
  pf_case c;
  pf_mem mem;
  verdict v;
  double ref_ms;
  int err;
  memset(&c, 0, sizeof c);
  memset(&v, 0, sizeof v);
  mem.mode = r->alloc;
  mem.arena = NULL;
  if ((err = setup(r, &c, s)) != CM_OK)
    goto out;
  if ((c.variant == CPK_V_FUSED && !r->dev.fused) ||
      (c.variant == CPK_V_FUSED && !r->dev.grid &&
       cpk_fused_needs_grid(c.kop, c.dt, c.cols)) ||
      (c.variant == CPK_V_HOPPER && !r->dev.hopper)) {
    /* Said, counted, never silent: the device lacks what the variant needs
     * (cpk.h, cpk_variant_available, cpk_fused_grid_available). */
    fprintf(r->out, "SKIP op=%s variant=%s dtype=%s reason=%s\n", c.op->name,
            pf_variant_name((int)c.variant), pf_dtype_name(c.dt),
            c.variant != CPK_V_FUSED ? "needs-sm_90a(compute-capability-9.0-"
                                       "and-a-build-with-90)"
            : !r->dev.fused
                ? "needs-thread-block-clusters(compute-capability>=9.0)"
                : "needs-the-grid-path(132-SMs;CPK_FUSED_GRID-not-0)");
    r->skipped++;
    goto out;
  }
  if ((err = check_fits(&c)) != CM_OK)
    goto out;
  if ((err = inputs_and_reference(&c, &ref_ms)) ||
      (err = launch_and_verify(&c, &mem, &v)))
    goto out;
  if ((err = check_determinism(&c, &v)) || (err = check_inputs(&c, &v)))
    goto out;
  report(r, &c, &v, ref_ms);
  if (v.reason)
    r->failed++;
  else
    r->passed++;
  if (r->dump_dir) {
    char prefix[160];
    cm_snprintf(prefix, sizeof prefix, "case%04" PRId64 "_%s_%s_%s",
                r->dumped++, c.op->name, pf_variant_name((int)c.variant),
                pf_dtype_name(c.dt));
    if (pf_dump_case(&c, r->dump_dir, prefix) != CM_OK) {
      fprintf(stderr, "cuda_portfolio: --dump %s: could not write %s\n",
              r->dump_dir, prefix);
      r->dump_failed++;
    }
  }
  if (!v.reason && r->bench_case) {
    err = time_case(r, &c, &v);
    if (err == CM_EVERIFY) {
      fprintf(r->out,
              "FAIL op=%s variant=%s dtype=%s reason=recheck-after-"
              "timing\n",
              c.op->name, pf_variant_name((int)c.variant), pf_dtype_name(c.dt));
      r->passed--;
      r->failed++;
      r->recheck_failed++;
      err = CM_OK;
    }
  }
out:
  pf_mem_free(&mem, &c);
  pf_case_free(&c);
  return err;
}

int pf_run_verify_control(pf_runner *r, const pf_spec *spec, pf_vcheck *out) {
  pf_spec s = *spec;
  pf_case c;
  pf_mem mem;
  verdict v;
  pf_tensor *y;
  double *pred = NULL, ref_ms;
  pf_cmp pc;
  char shape[96];
  int err;
  memset(&c, 0, sizeof c);
  memset(&v, 0, sizeof v);
  memset(out, 0, sizeof *out);
  /* the variant stays the spec's (auto picks VECTOR, pf_plan.c): the auto
   * and the vector case of a shape get seeds of their own */
  s.op = PF_OP_VERIFY_CONTROL;
  mem.mode = r->alloc;
  mem.arena = NULL;
  if ((err = setup(r, &c, &s)) != CM_OK || (err = check_fits(&c)) != CM_OK)
    goto out;
  /* add's fill and reference, with a seed of its own (pf_case_seed covers
   * s.op): the inputs are drawn as add's are, not copied from its case */
  if ((err = inputs_and_reference(&c, &ref_ms)) != CM_OK)
    goto out;
  y = &c.t[2];
  if ((pred = malloc((size_t)c.cols * sizeof *pred)) == NULL) {
    err = CM_ENOMEM;
    goto out;
  }
  if ((err = pf_ref_add_ftz_f32(c.t[0].val, c.t[1].val, pred, c.cols)))
    goto out;
  (void)pf_compare(pred, y->expected, y->scale, c.cols, c.sample, c.nsample,
                   pf_tol_get(c.kop, c.dt), &pc);
  if ((err = launch_and_verify(&c, &mem, &v)) != CM_OK)
    goto out;
  out->predicted = pc.failed;
  out->failed = v.reason ? v.cmp.failed : 0;
  out->agree =
      pf_control_agree(y->val, pred, c.cols, c.sample, c.nsample, v.reason,
                       out->failed, out->predicted, &out->mismatched);
  pf_case_shape_str(&c, shape, sizeof shape);
  fprintf(r->out,
          "VERIFY-CONTROL-CASE op=%s dtype=%s shape=%s extreme=%d "
          "verdict=%s reason=%s failed=%" PRId64 " predicted=%" PRId64
          " not_as_modelled=%" PRId64 " agree=%s\n",
          c.op->name, pf_dtype_name(c.dt), shape, s.extreme,
          v.reason ? "FAIL" : "PASS", v.reason ? v.reason : "-", out->failed,
          out->predicted, out->mismatched, out->agree ? "yes" : "NO");
out:
  free(pred);
  pf_mem_free(&mem, &c);
  pf_case_free(&c);
  return err;
}

int pf_run_negative_control(pf_runner *r, int64_t n) {
  pf_spec s;
  pf_case c;
  pf_mem mem;
  pf_rng rng;
  int err;
  memset(&s, 0, sizeof s);
  memset(&c, 0, sizeof c);
  s.op = PF_OP_NEGATIVE_CONTROL;
  s.variant = CPK_V_VECTOR;
  s.dt = CPK_F32;
  s.dims[0] = 1;
  s.dims[1] = n;
  s.ndims = 2;
  mem.mode = r->alloc;
  mem.arena = NULL;
  if ((err = setup(r, &c, &s)) || (err = check_fits(&c)))
    goto out;
  pf_rng_seed(&rng, c.seed);
  c.op->fill(&c, &rng);
  pf_fill_images(&c);
  if ((err = pf_mem_alloc(&mem, &c)) || (err = upload_inputs(&c)) ||
      (err = poison_outputs(&c, 0)) || (err = launch_sync(&c, 0)))
    goto out;
  fprintf(r->out,
          "NEGATIVE-CONTROL op=copy_unmasked dtype=fp32 n=%" PRId64
          " allocator=%s launched=1 (an out-of-bounds write happened on "
          "purpose; only a sanitizer can report it)\n",
          n, pf_alloc_name(r->alloc));
out:
  pf_mem_free(&mem, &c);
  pf_case_free(&c);
  return err;
}
