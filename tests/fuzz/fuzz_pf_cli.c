/* fuzz_pf_cli.c: cuda_portfolio's command line (pf_cli_parse), then the
 * case list that --check-args and a run build from what parsed
 * (pf_sets_build), argv taken from the input's lines (at most 64; argv[0]
 * is "cuda_portfolio"). A leading byte below 8 (fuzz_selector) picks the
 * size of the message buffer, malloc'd to that size: 512 (pf_main.c's)
 * by default.
 *
 * A refusal leaves a message: NUL-terminated within the buffer, one line
 * of text with no control character and nothing that is not UTF-8 (the
 * words it repeats may hold any byte but a line break), and not empty
 * where the buffer holds more than the NUL. What parsed is in
 * range: each option within the values it takes, a shape of positive
 * sizes whose element count (with its stride or padding), times 16, fits
 * in 64 bits, the paths NUL-terminated words of argv, and none of the
 * pairs the parser refuses. Every case of the list is one the runner
 * takes: an op, dtype and variant that exist together (FUSED only on rows
 * it holds, HOPPER within its 32-bit sizes), the filters obeyed, the shape
 * of its op's rank within the same bounds, and each word only on the ops
 * it shapes (a stride on the row ops, a padding or transpose on matmul, a
 * mask on softmax; extreme inputs on every op): pf_case_seed
 * hashes them, so one on another op would change that case's inputs and
 * nothing else. */
#include "fuzz.h"

#include "cm_error.h"
#include "pf_cli.h"
#include "pf_ops.h"
#include "pf_sets.h"
#include "pf_timing.h"

#include <math.h>

#define PF_FUZZ_WORDS 64

/* 1 if the product of dims[0..n) (each > 0) times 16 fits in int64. */
static int product_fits(const int64_t *dims, int n) {
  int64_t total = 16;
  int i;
  for (i = 0; i < n; i++) {
    if (dims[i] <= 0 || dims[i] > INT64_MAX / total)
      return 0;
    total *= dims[i];
  }
  return 1;
}

/* The sizes a shape allocates: a row op's rows at their stride, matmul's
 * sizes each with its padding. */
static int shape_ok(const int64_t *dims, int ndims, int64_t stride,
                    int64_t ld_pad) {
  int64_t d[3];
  int i;
  if (ndims != 2 && ndims != 3)
    return 0;
  for (i = 0; i < ndims; i++) {
    if (dims[i] <= 0 || dims[i] > INT64_MAX - ld_pad)
      return 0;
    d[i] = dims[i] + (ndims == 3 ? ld_pad : 0);
  }
  if (ndims == 2 && stride > d[1])
    d[1] = stride;
  return product_fits(d, ndims);
}

/* s is NULL or a non-empty word of argv. */
static int word_ok(const char *s, char *const *argv, int argc) {
  int i;
  if (s == NULL)
    return 1;
  for (i = 1; i < argc; i++)
    if (s == argv[i])
      return s[0] != '\0';
  return 0;
}

static void check_opts(const pf_opts *o, char *const *argv, int argc) {
  int nops, i;
  const pf_op *ops = pf_ops(&nops);
  const pf_op *op = o->op >= 0 ? &ops[o->op] : NULL;
  int timed = o->warmup_s >= 0 || o->target_cv >= 0 || o->budget_s >= 0 ||
              o->min_samples >= 0 || o->max_samples >= 0 || o->flush >= 0 ||
              o->peer_sampling >= 0 || o->hot || o->profile_range ||
              o->gbench || o->lock_sm_mhz > 0;
  FUZZ_CHECK(o->mode >= PF_MODE_SELECT && o->mode <= PF_MODE_HELP);
  if (o->mode == PF_MODE_HELP)
    return; /* --help returns at once: the rest is not read */
  FUZZ_CHECK(o->op >= -1 && o->op < nops);
  FUZZ_CHECK(o->variant == -2 || o->variant == PF_VARIANT_AUTO ||
             (o->variant >= 0 && o->variant <= CPK_V_LAST));
  FUZZ_CHECK(o->dtype >= -1 && o->dtype <= CPK_BF16);
  FUZZ_CHECK(o->list_json == 0 ||
             (o->list_json == 1 && o->mode == PF_MODE_LIST));
  FUZZ_CHECK(o->gbench == 0 || o->gbench == 1);
  FUZZ_CHECK((o->trans_a == 0 || o->trans_a == 1) &&
             (o->trans_b == 0 || o->trans_b == 1));
  FUZZ_CHECK(o->mask >= -1 && o->mask <= 1);
  FUZZ_CHECK(o->extreme == 0 || o->extreme == 1);
  FUZZ_CHECK(o->hot == 0 || o->hot == 1);
  FUZZ_CHECK(o->profile_range == 0 || o->profile_range == 1);
  FUZZ_CHECK(o->check_args == 0 || o->check_args == 1);
  FUZZ_CHECK(o->have_seed ? o->seed <= (uint64_t)INT64_MAX : o->seed == 0);
  FUZZ_CHECK(o->gpu >= 0 && o->gpu <= 1023);
  FUZZ_CHECK(o->threads >= 0 && o->threads <= 256);
  FUZZ_CHECK(o->alloc >= -1 && o->alloc <= PF_ALLOC_EXACT);
  FUZZ_CHECK(o->flush == -1 || o->flush == PF_FLUSH_WRITE ||
             o->flush == PF_FLUSH_READ);
  FUZZ_CHECK(o->peer_sampling >= -1 && o->peer_sampling <= 1);
  FUZZ_CHECK(o->sample_above >= -1);
  FUZZ_CHECK(o->ld_pad >= 0 && o->ld_pad <= (1 << 20));
  FUZZ_CHECK(o->stride >= 0 && o->stride <= INT64_MAX / 16);
  FUZZ_CHECK(o->lock_sm_mhz <= 100000 && o->lock_mem_mhz <= 100000);
  FUZZ_CHECK(o->lock_mem_mhz == 0 || o->lock_sm_mhz > 0);
  /* the doubles: finite and non-negative, or -1 (the default) */
  FUZZ_CHECK(o->warmup_s == -1 || (isfinite(o->warmup_s) && o->warmup_s >= 0));
  FUZZ_CHECK(o->budget_s == -1 || (isfinite(o->budget_s) && o->budget_s >= 0));
  FUZZ_CHECK(o->target_cv == -1 ||
             (isfinite(o->target_cv) && o->target_cv >= 0));
  FUZZ_CHECK(o->min_samples == -1 ||
             (o->min_samples >= 1 && o->min_samples <= 1000000));
  FUZZ_CHECK(o->max_samples == -1 ||
             (o->max_samples >= 1 && o->max_samples <= 1000000));
  FUZZ_CHECK((o->min_samples > 0 ? o->min_samples : PF_BENCH_MIN_SAMPLES) <=
             (o->max_samples > 0 ? o->max_samples : PF_BENCH_MAX_SAMPLES));
  FUZZ_CHECK(!(o->hot && o->flush >= 0));
  /* the paths: words of argv, never one for both */
  FUZZ_CHECK(word_ok(o->json_path, argv, argc));
  FUZZ_CHECK(word_ok(o->dump_dir, argv, argc));
  FUZZ_CHECK(o->json_path == NULL || o->dump_dir == NULL ||
             strcmp(o->json_path, o->dump_dir) != 0);
  FUZZ_CHECK(!timed || o->json_path != NULL);
  if (o->mode == PF_MODE_LIST)
    FUZZ_CHECK(o->json_path == NULL && o->dump_dir == NULL &&
               o->sample_above == -1);
  if (o->have_shape) {
    FUZZ_CHECK(shape_ok(o->dims, o->ndims, o->stride, o->ld_pad));
    FUZZ_CHECK(o->mode == PF_MODE_SELECT || o->mode == PF_MODE_BENCH ||
               o->mode == PF_MODE_LIST);
  }
  if (o->stride != 0)
    FUZZ_CHECK(o->have_shape && o->ndims == 2 && o->stride >= o->dims[1]);
  if (o->mode != PF_MODE_SELECT && o->mode != PF_MODE_LIST)
    FUZZ_CHECK(!o->stride && !o->trans_a && !o->trans_b && !o->ld_pad &&
               !o->extreme);
  if (o->mode == PF_MODE_BENCH)
    FUZZ_CHECK(o->mask != 1);
  if (o->mode == PF_MODE_NEGATIVE || o->mode == PF_MODE_VERIFY_CONTROL)
    FUZZ_CHECK(o->op < 0 && o->json_path == NULL && o->variant == -2 &&
               o->dtype < 0 && o->mask == -1 && o->dump_dir == NULL &&
               o->sample_above == -1);
  if (op != NULL) {
    if (o->have_shape)
      FUZZ_CHECK((op->kind == PF_KIND_MATMUL) == (o->ndims == 3));
    FUZZ_CHECK(!o->stride || op->kind == PF_KIND_ROWS);
    FUZZ_CHECK(
        (!o->ld_pad && !o->trans_a && !o->trans_b && o->sample_above < 0) ||
        op->kind == PF_KIND_MATMUL);
    FUZZ_CHECK(o->mask != 1 || op->kop == CPK_OP_SOFTMAX);
    if (o->variant >= 0 && o->dtype >= 0) {
      FUZZ_CHECK(pf_op_supports(op, o->variant, (cpk_dtype)o->dtype));
      if (o->variant == CPK_V_FUSED && o->have_shape)
        FUZZ_CHECK(cpk_fused_fits(op->kop, (cpk_dtype)o->dtype, o->dims[1]));
    }
  } else if (o->have_shape) {
    if (o->ndims == 3)
      FUZZ_CHECK(!o->stride && o->mask != 1);
    else
      FUZZ_CHECK(!o->ld_pad && !o->trans_a && !o->trans_b &&
                 o->sample_above < 0);
  }
  if (o->variant == CPK_V_HOPPER && o->have_shape && o->ndims == 3)
    for (i = 0; i < 3; i++)
      FUZZ_CHECK(o->dims[i] <= CPK_HOPPER_MAX_DIM);
}

/* Every case of the list the runner takes, as the words asked. */
static void check_set(const pf_opts *o, const pf_set *set) {
  int nops, i, j;
  const pf_op *ops = pf_ops(&nops);
  FUZZ_CHECK(set->n >= 0 && set->n <= set->cap);
  for (i = 0; i < set->n; i++) {
    const pf_spec *sp = &set->v[i];
    const pf_op *op;
    int mm;
    FUZZ_CHECK(sp->op >= 0 && sp->op < nops);
    op = &ops[sp->op];
    mm = op->kind == PF_KIND_MATMUL;
    FUZZ_CHECK(sp->dt >= CPK_F32 && sp->dt <= CPK_BF16);
    FUZZ_CHECK(sp->variant == PF_VARIANT_AUTO ||
               (sp->variant >= 0 && sp->variant <= CPK_V_LAST));
    FUZZ_CHECK(pf_op_supports(op, sp->variant, sp->dt));
    /* the filters */
    FUZZ_CHECK(o->op < 0 || sp->op == o->op);
    FUZZ_CHECK(o->dtype < 0 || (int)sp->dt == o->dtype);
    FUZZ_CHECK(o->variant == -2 || sp->variant == o->variant);
    if (o->mask >= 0 && op->kop == CPK_OP_SOFTMAX)
      FUZZ_CHECK(sp->mask == o->mask);
    /* the shape, of its op's rank */
    FUZZ_CHECK(sp->ndims == (mm ? 3 : 2));
    FUZZ_CHECK(sp->ld_pad >= 0 && sp->ld_pad <= (1 << 20));
    FUZZ_CHECK(sp->stride >= 0);
    FUZZ_CHECK(shape_ok(sp->dims, sp->ndims, sp->stride, sp->ld_pad));
    for (j = sp->ndims; j < 3; j++) /* pf_case_seed hashes all three */
      FUZZ_CHECK(sp->dims[j] == 0);
    /* each word only on the ops it shapes */
    FUZZ_CHECK(sp->stride == 0 ||
               (op->kind == PF_KIND_ROWS && sp->stride >= sp->dims[1]));
    FUZZ_CHECK(mm || (sp->ld_pad == 0 && !sp->trans_a && !sp->trans_b));
    FUZZ_CHECK((sp->trans_a == 0 || sp->trans_a == 1) &&
               (sp->trans_b == 0 || sp->trans_b == 1));
    FUZZ_CHECK(sp->mask == 0 || (sp->mask == 1 && op->kop == CPK_OP_SOFTMAX));
    FUZZ_CHECK(sp->extreme == 0 || sp->extreme == 1);
    /* --extreme shapes every op's inputs: in a selection, every case
     * carries it or none does */
    if (o->mode == PF_MODE_SELECT)
      FUZZ_CHECK(sp->extreme == o->extreme);
    /* the variants' own limits */
    if (sp->variant == CPK_V_FUSED)
      FUZZ_CHECK(cpk_fused_fits(op->kop, sp->dt, sp->dims[1]));
    if (sp->variant == CPK_V_HOPPER)
      for (j = 0; j < 3; j++)
        FUZZ_CHECK(sp->dims[j] <= CPK_HOPPER_MAX_DIM);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const size_t sizes[] = {512, 1, 2, 8, 40, 100, 256, 4096};
  int sel = fuzz_selector(&data, &size);
  size_t errsize = sizes[sel < 0 ? 0 : sel];
  char *text = fuzz_strdup(data, size), *p, *err;
  char *argv[PF_FUZZ_WORDS + 2];
  int argc = 1;
  pf_opts o;
  if (text == NULL)
    return 0;
  err = malloc(errsize);
  if (err == NULL) {
    free(text);
    return 0;
  }
  argv[0] = "cuda_portfolio";
  for (p = text; argc <= PF_FUZZ_WORDS && p != NULL;) {
    char *nl = strchr(p, '\n');
    if (nl != NULL)
      *nl++ = '\0';
    argv[argc++] = p;
    p = nl;
  }
  argv[argc] = NULL;
  memset(err, 'x', errsize);
  if (pf_cli_parse(argc, argv, &o, err, errsize) != CM_OK) {
    FUZZ_CHECK(fuzz_terminated(err, errsize));
    FUZZ_CHECK(errsize < 2 || err[0] != '\0');
    FUZZ_CHECK(fuzz_printable(err)); /* one line, no control character */
  } else {
    check_opts(&o, argv, argc);
    /* the list --check-args and a run build (pf_main.c): every mode but
     * --help, --list and the two controls, which are fixed cases */
    if (o.mode != PF_MODE_HELP && o.mode != PF_MODE_LIST &&
        o.mode != PF_MODE_NEGATIVE && o.mode != PF_MODE_VERIFY_CONTROL) {
      pf_set set;
      if (pf_sets_build(&o, &set) == CM_OK)
        check_set(&o, &set);
      pf_set_free(&set);
    }
  }
  free(err);
  free(text);
  return 0;
}
