/* pf_sets.c: see pf_sets.h. The shapes are chosen to be awkward: 1, primes
 * and odd sizes that are multiples of no block or tile, widths just past
 * powers of two, strided rows, and the 1,048,577-wide rows of the issue. */
#include "pf_sets.h"

#include <stdlib.h>
#include <string.h>

#include "cm_error.h"
#include "pf_ops.h"

typedef struct {
  int64_t r, c, stride;
  int extreme, mask;
} row_shape;

static const row_shape test_rows[] = {
    {1, 1, 0, 0, 0},
    {7, 33, 0, 0, 0},
    {128, 2, 0, 0, 0},
    {64, 1000, 0, 1, 1},
    {33, 4097, 0, 1, 1},
    {1024, 4096, 0, 0, 0},
    {4, 1048577, 0, 1, 1},
    {2, 300001, 0, 0, 0},
    {17, 1000, 1024, 1, 0},
    {9, 5000, 5003, 0, 1},
    {3, 70001, 70017, 1, 0},
    {3, 1000000, 0, 1, 1},
    /* the wide path's rules (rowfused_plan.cuh, kWide): 2^17-2^18 columns
     * in vectors and, strided oddly, element by element; rmsnorm_backward's
     * fp32 rows of 16385-32768 with more rows than the grid's clusters */
    {3, 131080, 0, 0, 0},
    {5, 200003, 200011, 1, 1},
    {70, 24576, 0, 0, 0},
    {6, 30001, 30011, 1, 0},
    /* more rows than rmsnorm_backward's persistent groups (132) where fp32
     * rows of 4097-8192 stage the group's next row (rowfused.cu,
     * stage_on, v36a): a second and third row staged and taken */
    {300, 8000, 0, 0, 0},
    /* the grid path (rowfused_grid_plan.cuh, kGrid): more rows than its
     * exchange ring (128) and many stages of 8-16 rows, in 16-byte copies */
    {260, 131080, 0, 1, 0}};
/* 3x6000: 750 16-bit vectors a row, the FUSED configurations of 513-1024
 * (16-bit softmax's built for 4 blocks per SM since v12); 2x24576: 3072,
 * those of 2049-4096 (shared-memory slots; rmsnorm_bwd's 2-block
 * clusters), and in fp32 the wide path's rmsnorm_bwd rule (16 loads in
 * flight since v12). The last: the grid path's stages (each reused) and
 * its exchange, 4-7 batches of 8-16 rows. */
static const row_shape smoke_rows[] = {
    {5, 33, 0, 1, 1},   {6, 1500, 1537, 1, 1}, {2, 70001, 0, 1, 0},
    {3, 6000, 0, 1, 1}, {2, 24576, 0, 0, 0},   {50, 131080, 0, 1, 0}};
static const int64_t test_elem[][2] = {{1, 1}, {1, 1000003}, {1, 4194307}};
static const int64_t smoke_elem[][2] = {{1, 1003}};

typedef struct {
  int64_t m, n, k;
  int ta, tb;
  int64_t pad;
  int extreme;
} mm_shape;

static const mm_shape test_mm[] = {
    {1, 1, 1, 0, 0, 0, 0},
    {33, 65, 17, 0, 0, 0, 0},
    {128, 128, 128, 0, 0, 0, 0},
    {257, 511, 129, 0, 0, 0, 0},
    {257, 511, 129, 0, 1, 3, 0},
    {257, 511, 129, 1, 0, 5, 0},
    {1024, 1024, 1024, 0, 1, 0, 0},
    {1024, 1024, 1024, 1, 0, 0, 0},
    {4095, 4097, 4093, 0, 0, 0, 0},
    /* ragged tiles with 16-byte strides (the TMA path of HOPPER), both
     * transposes, and one operand strided oddly (one TMA, one manual) */
    {200, 304, 104, 0, 0, 0, 0},
    {200, 304, 104, 1, 1, 0, 0},
    {200, 304, 103, 0, 0, 0, 0},
    /* extreme inputs (pf_fill_matmul): both ends of each dtype's range,
     * +-inf, NaN and an overflowing output; no transpose, A transposed
     * with a padded operand, both transposed on HOPPER's TMA path, and B
     * transposed over a long k (bf16's and fp32's subnormals in op(A) in
     * the first and third, in op(B) in the others) */
    {33, 65, 17, 0, 0, 0, 1},
    {257, 511, 129, 1, 0, 5, 1},
    {200, 304, 104, 1, 1, 0, 1},
    {1024, 1024, 1024, 0, 1, 0, 1}};
/* The first three take HOPPER's manual loader and register epilogue (odd
 * leading dimensions), the other three its TMA loads and TMA-store
 * epilogue (16-byte strides, ragged tiles), the last with extreme inputs. */
static const mm_shape smoke_mm[] = {
    {33, 65, 17, 0, 0, 0, 0}, {33, 65, 17, 0, 1, 1, 0},
    {33, 65, 17, 1, 0, 2, 0}, {40, 72, 24, 0, 0, 0, 0},
    {40, 72, 24, 1, 1, 8, 0}, {40, 72, 24, 0, 0, 0, 1}};

/* The benchmark set: the standard shapes of docs/BENCHMARKING.md, the same
 * ones ../shared/tools/torch_baseline.py measures PyTorch on. */
static const int64_t bench_rows[][2] = {{65536, 1024}, {16384, 4096},
                                        {8192, 8192},  {2048, 32768},
                                        {256, 262144}, {32, 1048576}};
/* Elementwise ops have no rows: their standard shapes are element counts,
 * 2^28 (the scale of the copy ceiling, 8 x L2 and more), then the counts
 * of the row shapes above: 2^26 (every one but the last) and 2^25
 * (32x1048576), so that copy and add are timed at the bytes of the row
 * ops they are compared with (docs/BENCHMARKING.md). */
static const int64_t bench_elem[] = {(int64_t)1 << 28, (int64_t)1 << 26,
                                     (int64_t)1 << 25};
static const mm_shape bench_mm[] = {{4096, 4096, 4096, 0, 0, 0, 0},
                                    {8192, 8192, 8192, 0, 0, 0, 0},
                                    {4095, 4097, 4093, 0, 0, 0, 0}};

static int push(pf_set *s, const pf_spec *sp) {
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 64;
    pf_spec *v = realloc(s->v, (size_t)cap * sizeof *v);
    if (!v)
      return CM_ENOMEM;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = *sp;
  return CM_OK;
}

/* Adds sp for every variant the filters allow: `auto`, plus each explicit
 * variant when `explicit` is set. */
static int add_variants(const pf_opts *o, pf_set *s, pf_spec sp, int explicit) {
  int n, d, v, err;
  const pf_op *op = &pf_ops(&n)[sp.op];
  for (d = 0; d < 3; d++) {
    if (o->dtype >= 0 && o->dtype != d)
      continue;
    sp.dt = (cpk_dtype)d;
    for (v = PF_VARIANT_AUTO; v <= CPK_V_LAST; v++) {
      if (o->variant != -2 ? o->variant != v
                           : (v != PF_VARIANT_AUTO && !explicit))
        continue;
      if (!pf_op_supports(op, v, sp.dt))
        continue;
      /* FUSED holds a row on chip: only rows that fit (a pure rule). */
      if (v == CPK_V_FUSED && !cpk_fused_fits(op->kop, sp.dt, sp.dims[1]))
        continue;
      sp.variant = v;
      if ((err = push(s, &sp)) != CM_OK)
        return err;
    }
  }
  return CM_OK;
}

static int build_op(const pf_opts *o, pf_set *s, int opi, int smoke) {
  int n, i, err = CM_OK;
  const pf_op *op = &pf_ops(&n)[opi];
  pf_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.op = opi;
  if (op->kind == PF_KIND_MATMUL) {
    const mm_shape *t = smoke ? smoke_mm : test_mm;
    int cnt = smoke ? (int)(sizeof smoke_mm / sizeof smoke_mm[0])
                    : (int)(sizeof test_mm / sizeof test_mm[0]);
    sp.ndims = 3;
    for (i = 0; i < cnt && !err; i++) {
      sp.dims[0] = t[i].m;
      sp.dims[1] = t[i].n;
      sp.dims[2] = t[i].k;
      sp.trans_a = t[i].ta;
      sp.trans_b = t[i].tb;
      sp.ld_pad = t[i].pad;
      sp.extreme = t[i].extreme;
      err = add_variants(o, s, sp, 1);
    }
  } else if (op->kind == PF_KIND_ELEM) {
    const int64_t(*t)[2] = smoke ? smoke_elem : test_elem;
    int cnt = smoke ? (int)(sizeof smoke_elem / sizeof smoke_elem[0])
                    : (int)(sizeof test_elem / sizeof test_elem[0]);
    sp.ndims = 2;
    for (i = 0; i < cnt && !err; i++) {
      sp.dims[0] = t[i][0];
      sp.dims[1] = t[i][1];
      sp.extreme = i == 1 || smoke;
      err = add_variants(o, s, sp, 1);
    }
  } else {
    const row_shape *t = smoke ? smoke_rows : test_rows;
    int cnt = smoke ? (int)(sizeof smoke_rows / sizeof smoke_rows[0])
                    : (int)(sizeof test_rows / sizeof test_rows[0]);
    sp.ndims = 2;
    for (i = 0; i < cnt && !err; i++) {
      sp.dims[0] = t[i].r;
      sp.dims[1] = t[i].c;
      sp.stride = t[i].stride;
      sp.extreme = t[i].extreme;
      sp.mask = 0;
      /* Smoke: explicit variants once (on the second shape, which is
       * strided), auto on every shape so every plan is taken. */
      err = add_variants(o, s, sp, !smoke || i == 1);
      if (!err && t[i].mask && op->kop == CPK_OP_SOFTMAX) {
        sp.mask = 1;
        err = add_variants(o, s, sp, !smoke || i == 1);
      }
    }
  }
  return err;
}

static int build_select(const pf_opts *o, pf_set *s) {
  int n, i, err = CM_OK;
  const pf_op *ops = pf_ops(&n);
  for (i = 0; i < n && !err; i++) {
    pf_spec sp;
    int mm = ops[i].kind == PF_KIND_MATMUL;
    if (o->op >= 0 && o->op != i)
      continue;
    if (o->have_shape && mm != (o->ndims == 3))
      continue;
    memset(&sp, 0, sizeof sp);
    sp.op = i;
    if (o->have_shape) {
      memcpy(sp.dims, o->dims, sizeof sp.dims);
      sp.ndims = o->ndims;
    } else {
      sp.ndims = mm ? 3 : 2;
      sp.dims[0] = mm ? 257 : ops[i].kind == PF_KIND_ELEM ? 1 : 64;
      sp.dims[1] = mm ? 511 : ops[i].kind == PF_KIND_ELEM ? 1000003 : 1000;
      sp.dims[2] = mm ? 129 : 0;
    }
    /* each word on the ops it shapes only: pf_case_seed hashes them, so on
     * another op it would change that case's inputs and nothing else (and
     * the case, rerun alone with --op, refuses the word) */
    sp.stride = ops[i].kind == PF_KIND_ROWS ? o->stride : 0;
    sp.trans_a = mm && o->trans_a;
    sp.trans_b = mm && o->trans_b;
    sp.ld_pad = mm ? o->ld_pad : 0;
    sp.mask = o->mask == 1 && ops[i].kop == CPK_OP_SOFTMAX;
    sp.extreme = o->extreme;
    err = add_variants(o, s, sp, 0);
  }
  return err;
}

/* One op of the benchmark set: the plan chooser's pick (or --variant) on
 * every standard shape; elementwise on 2^28, 2^26 and 2^25 elements;
 * matmul on 4096^3, 8192^3 and 4095x4097x4093, fp32 only at 4096^3 (as
 * the baselines). */
static int build_bench_op(const pf_opts *o, pf_set *s, int opi) {
  int n, i, err = CM_OK;
  const pf_op *op = &pf_ops(&n)[opi];
  pf_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.op = opi;
  if (op->kind == PF_KIND_ELEM) {
    sp.ndims = 2;
    sp.dims[0] = 1;
    for (i = 0; i < (int)(sizeof bench_elem / sizeof bench_elem[0]) && !err;
         i++) {
      sp.dims[1] = bench_elem[i];
      err = add_variants(o, s, sp, 0);
    }
    return err;
  }
  if (op->kind == PF_KIND_MATMUL) {
    sp.ndims = 3;
    for (i = 0; i < 3 && !err; i++) {
      pf_opts f = *o;
      sp.dims[0] = bench_mm[i].m;
      sp.dims[1] = bench_mm[i].n;
      sp.dims[2] = bench_mm[i].k;
      if (i == 0) {
        err = add_variants(o, s, sp, 0);
        continue;
      }
      if (o->dtype == CPK_F32)
        continue;
      for (f.dtype = CPK_F16; f.dtype <= CPK_BF16 && !err; f.dtype++)
        if (o->dtype < 0 || o->dtype == f.dtype)
          err = add_variants(&f, s, sp, 0);
    }
    return err;
  }
  sp.ndims = 2;
  for (i = 0; i < 6 && !err; i++) {
    sp.dims[0] = bench_rows[i][0];
    sp.dims[1] = bench_rows[i][1];
    err = add_variants(o, s, sp, 0);
  }
  return err;
}

/* Keeps the cases of s for which keep(case, o) holds, in their order. */
static void keep_cases(pf_set *s, const pf_opts *o,
                       int (*keep)(const pf_spec *, const pf_opts *)) {
  int j, k = 0;
  for (j = 0; j < s->n; j++)
    if (keep(&s->v[j], o))
      s->v[k++] = s->v[j];
  s->n = k;
}

/* Elements of a shape, -1 where a dim is not positive or the product does
 * not fit in 64 bits (pf_cli refuses such a --shape; this keeps the
 * product defined for any caller). */
static int64_t elements(const int64_t *dims, int ndims) {
  int64_t n = 1;
  int i;
  for (i = 0; i < ndims; i++) {
    if (dims[i] <= 0 || n > INT64_MAX / dims[i])
      return -1;
    n *= dims[i];
  }
  return n;
}

/* --bench --shape: the standard shape the option names; an elementwise
 * case by its element count, so 1xN and a row shape of N elements
 * (65536x1024 for 2^26) both name it. */
static int same_shape(const pf_spec *sp, const pf_opts *o) {
  int n;
  if (pf_ops(&n)[sp->op].kind == PF_KIND_ELEM) {
    const int64_t want = o->ndims == 2 ? elements(o->dims, o->ndims) : -1;
    return want > 0 && elements(sp->dims, sp->ndims) == want;
  }
  return sp->ndims == o->ndims &&
         memcmp(sp->dims, o->dims, (size_t)o->ndims * sizeof o->dims[0]) == 0;
}

/* --mask / --no-mask: softmax cases of that kind; other ops are unmasked. */
static int same_mask(const pf_spec *sp, const pf_opts *o) {
  int n;
  return sp->mask == o->mask || pf_ops(&n)[sp->op].kop != CPK_OP_SOFTMAX;
}

int pf_sets_build(const pf_opts *o, pf_set *out) {
  int n, i, err = CM_OK;
  memset(out, 0, sizeof *out);
  pf_ops(&n);
  if (o->mode == PF_MODE_SELECT)
    return build_select(o, out);
  if (o->mode == PF_MODE_BENCH) {
    for (i = 0; i < n && !err; i++)
      if (o->op < 0 || o->op == i)
        err = build_bench_op(o, out, i);
    if (!err && o->have_shape)
      keep_cases(out, o, same_shape);
    return err;
  }
  for (i = 0; i < n && !err; i++)
    if (o->op < 0 || o->op == i)
      err = build_op(o, out, i, o->mode == PF_MODE_SMOKE);
  if (!err && o->mask >= 0) /* --mask/--no-mask filter the sets too */
    keep_cases(out, o, same_mask);
  return err;
}

void pf_set_free(pf_set *s) {
  free(s->v);
  memset(s, 0, sizeof *s);
}
