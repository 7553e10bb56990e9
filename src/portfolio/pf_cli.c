/* pf_cli.c: see pf_cli.h. */
#include "pf_cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "pf_case.h"
#include "pf_half.h"
#include "pf_ops.h"
#include "pf_timing.h"

void pf_opts_init(pf_opts *o) {
  memset(o, 0, sizeof *o);
  o->mode = PF_MODE_SELECT;
  o->op = -1;
  o->variant = -2;
  o->dtype = -1;
  o->mask = -1;
  o->alloc = -1;
  o->flush = -1;
  o->peer_sampling = -1;
  o->warmup_s = o->target_cv = o->budget_s = -1;
  o->min_samples = o->max_samples = -1;
  o->sample_above = -1;
}

/* Checks that every element count derived from a shape fits comfortably:
 * the runner keeps doubles for each element, so 8 x elements must fit. */
static int shape_fits(const int64_t *d, int n, int64_t stride, int64_t ld_pad) {
  int64_t total = 1;
  int i;
  for (i = 0; i < n; i++) {
    int64_t v = (i == 1 && stride > d[1]) ? stride : d[i];
    /* matmul's operands: each size with its padding, a bound on every
     * operand's leading dimension */
    if (n == 3 && ld_pad > 0) {
      if (v > INT64_MAX - ld_pad)
        return 0;
      v += ld_pad;
    }
    if (v > INT64_MAX / 16 / total)
      return 0;
    total *= v;
  }
  return 1;
}

#define FAIL(...)                                                              \
  do {                                                                         \
    cm_snprintf(err, errsize, __VA_ARGS__);                                    \
    return CM_EINVAL;                                                          \
  } while (0)

/* The mode a set-mode word chooses, or -1 for any other word. */
static int mode_of(const char *a) {
  static const struct {
    const char *word;
    int mode;
  } modes[] = {{"--test-only", PF_MODE_TEST_ONLY},
               {"--smoke", PF_MODE_SMOKE},
               {"--bench", PF_MODE_BENCH},
               {"--negative-control", PF_MODE_NEGATIVE},
               {"--verify-control", PF_MODE_VERIFY_CONTROL}};
  size_t k;
  for (k = 0; k < sizeof modes / sizeof modes[0]; k++)
    if (strcmp(modes[k].word, a) == 0)
      return modes[k].mode;
  return -1;
}

/* Sets the mode that word a chooses. A second mode word is refused: which
 * one won depended on the order (--verify-control --test-only ran the whole
 * set), except --test-only with --smoke in either order, the smoke set
 * verified (the sanitize stage's words). *prev is the mode word seen
 * before, or NULL. */
static int set_mode(pf_opts *o, const char *a, int mode, const char **prev,
                    char *err, size_t errsize) {
  int pair = 0;
  if (*prev != NULL && strcmp(*prev, a) != 0) {
    pair = (strcmp(*prev, "--test-only") == 0 && strcmp(a, "--smoke") == 0) ||
           (strcmp(*prev, "--smoke") == 0 && strcmp(a, "--test-only") == 0);
    if (!pair)
      FAIL("%s and %s are two modes: give one (--help lists them)", *prev, a);
  }
  o->mode = pair ? PF_MODE_SMOKE : mode;
  *prev = a;
  return CM_OK;
}

static int takes_value(const char *a) {
  static const char *const flags[] = {
      "--op",          "--variant",      "--dtype",
      "--shape",       "--stride",       "--ld-pad",
      "--trans",       "--seed",         "--gpu",
      "--threads",     "--alloc",        "--dump",
      "--json",        "--format",       "--warmup",
      "--budget",      "--target-cv",    "--min-samples",
      "--max-samples", "--flush",        "--peer-sampling",
      "--lock-clocks", "--sample-above", NULL};
  return cm_str_among(a, flags);
}

/* The options that only shape timing: without --json nothing is timed, so
 * each of them alone would be ignored. */
static int timing_only(const char *a) {
  static const char *const opts[] = {
      "--warmup",        "--budget", "--target-cv",     "--min-samples",
      "--max-samples",   "--flush",  "--peer-sampling", "--hot",
      "--profile-range", NULL};
  return cm_str_among(a, opts);
}

static int need_value(int argc, char **argv, int i, char *err, size_t errsize) {
  if (i + 1 >= argc)
    FAIL("%s needs a value", argv[i]);
  return CM_OK;
}

static int parse_int(const char *flag, const char *s, int64_t lo, int64_t hi,
                     int64_t *out, char *err, size_t errsize) {
  int64_t v;
  if (cm_parse_i64(s, &v) || v < lo || v > hi)
    FAIL("%s %s: expected an integer from %lld to %lld", flag, s, (long long)lo,
         (long long)hi);
  *out = v;
  return CM_OK;
}

static int parse_pos_double(const char *flag, const char *s, double *out,
                            char *err, size_t errsize) {
  double v;
  /* finite: --warmup inf would warm up for ever */
  if (cm_parse_double(s, &v) || !(v >= 0) || !isfinite(v))
    FAIL("%s %s: expected a finite non-negative number", flag, s);
  *out = v;
  return CM_OK;
}

/* --lock-clocks SM_MHZ[:MEM_MHZ] */
static int parse_lock(const char *s, pf_opts *o, char *err, size_t errsize) {
  int64_t a, b;
  if (cm_parse_pair(s, 1, 100000, &a, &b) != CM_OK)
    FAIL("--lock-clocks %s: expected SM_MHZ or SM_MHZ:MEM_MHZ, clocks in MHz "
         "the GPU supports (nvidia-smi -q -d SUPPORTED_CLOCKS)",
         s);
  o->lock_sm_mhz = (unsigned)a;
  o->lock_mem_mhz = (unsigned)b;
  return CM_OK;
}

/* The option that chose a set mode, for messages. */
static const char *mode_flag(int mode) {
  switch (mode) {
  case PF_MODE_TEST_ONLY:
    return "--test-only";
  case PF_MODE_SMOKE:
    return "--smoke";
  case PF_MODE_BENCH:
    return "--bench";
  case PF_MODE_NEGATIVE:
    return "--negative-control";
  case PF_MODE_VERIFY_CONTROL:
    return "--verify-control";
  default:
    return "the mode";
  }
}

static int cli_parse(int argc, char **argv, pf_opts *o, char *err,
                     size_t errsize) {
  int i, r, mode;
  int64_t v;
  const char *format = NULL, *timing = NULL, *mode_word = NULL;
  const char *list_word = NULL;
  static const char *const once[] = {
      "--op",   "--variant", "--dtype",        "--json",   "--dump",
      "--seed", "--gpu",     "--sample-above", "--format", NULL};
  const char *seen[sizeof once / sizeof once[0]] = {NULL};
  pf_opts_init(o);
  err[0] = '\0';
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (timing == NULL && timing_only(a))
      timing = a;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->mode = PF_MODE_HELP;
      return CM_OK;
    } else if (strcmp(a, "--list") == 0) {
      /* --list runs nothing: a mode word before or after it is refused
       * (which won depended on the order) */
      if (mode_word != NULL)
        FAIL("--list and %s: --list lists the ops and variants and runs "
             "nothing; give one",
             mode_word);
      o->mode = PF_MODE_LIST;
      list_word = a;
      takes = 0;
    } else if ((mode = mode_of(a)) >= 0) {
      if (list_word != NULL)
        FAIL("--list and %s: --list lists the ops and variants and runs "
             "nothing; give one",
             a);
      if ((r = set_mode(o, a, mode, &mode_word, err, errsize)))
        return r;
      takes = 0;
    } else if (strcmp(a, "--hot") == 0) {
      o->hot = 1;
      takes = 0;
    } else if (strcmp(a, "--profile-range") == 0) {
      o->profile_range = 1;
      takes = 0;
    } else if (strcmp(a, "--check-args") == 0) {
      o->check_args = 1;
      takes = 0;
    } else if (strcmp(a, "--mask") == 0) {
      o->mask = 1;
      takes = 0;
    } else if (strcmp(a, "--extreme") == 0) {
      o->extreme = 1;
      takes = 0;
    } else if (strcmp(a, "--no-mask") == 0) {
      o->mask = 0;
      takes = 0;
    }
    if (!takes)
      continue;
    if (!takes_value(a))
      FAIL("unknown option '%s' (see --help)", a);
    if ((r = need_value(argc, argv, i, err, errsize)) != CM_OK)
      return r;
    /* one of each per run: a second would silently replace the first */
    if (cm_str_among(a, once)) {
      int k;
      for (k = 0; once[k] != NULL && strcmp(once[k], a) != 0; k++)
        ;
      if (seen[k] != NULL)
        FAIL("%s given twice (%s, then %s): one per run", a, seen[k], val);
      seen[k] = val;
    }
    if (strcmp(a, "--op") == 0) {
      o->op = pf_op_find(val);
      if (o->op < 0)
        FAIL("--op %s: unknown op (see --list)", val);
    } else if (strcmp(a, "--variant") == 0) {
      if (pf_variant_parse(val, &o->variant))
        FAIL("--variant %s: unknown variant (see --list)", val);
    } else if (strcmp(a, "--dtype") == 0) {
      cpk_dtype dt;
      if (pf_dtype_parse(val, &dt))
        FAIL("--dtype %s: expected fp32, fp16 or bf16", val);
      o->dtype = (int)dt;
    } else if (strcmp(a, "--shape") == 0) {
      if (o->have_shape)
        FAIL("--shape given twice (%s): one shape per run; run "
             "cuda_portfolio once per shape",
             val);
      r = cm_parse_dims(val, o->dims, &o->ndims);
      if (r)
        FAIL("--shape %s: expected RxW or MxNxK with every dimension a "
             "positive integer that fits in 64 bits (no 0, no sign)",
             val);
      o->have_shape = 1;
    } else if (strcmp(a, "--stride") == 0) {
      if ((r = parse_int(a, val, 1, INT64_MAX / 16, &o->stride, err, errsize)))
        return r;
    } else if (strcmp(a, "--ld-pad") == 0) {
      if ((r = parse_int(a, val, 0, 1 << 20, &o->ld_pad, err, errsize)))
        return r;
    } else if (strcmp(a, "--trans") == 0) {
      if (strlen(val) != 2 || !strchr("nt", val[0]) || !strchr("nt", val[1]))
        FAIL("--trans %s: expected nn, nt, tn or tt", val);
      o->trans_a = val[0] == 't';
      o->trans_b = val[1] == 't';
    } else if (strcmp(a, "--seed") == 0) {
      /* the results file records the seed as a JSON integer (signed 64
       * bits): a larger one would be written as another number */
      if (cm_parse_u64(val, &o->seed) || o->seed > (uint64_t)INT64_MAX)
        FAIL("--seed %s: expected an integer from 0 to %lld", val,
             (long long)INT64_MAX);
      o->have_seed = 1;
    } else if (strcmp(a, "--gpu") == 0) {
      if ((r = parse_int(a, val, 0, 1023, &v, err, errsize)))
        return r;
      o->gpu = (int)v;
    } else if (strcmp(a, "--threads") == 0) {
      if ((r = parse_int(a, val, 1, 256, &v, err, errsize)))
        return r;
      o->threads = (int)v;
    } else if (strcmp(a, "--sample-above") == 0) {
      if ((r = parse_int(a, val, 0, INT64_MAX, &o->sample_above, err, errsize)))
        return r;
    } else if (strcmp(a, "--alloc") == 0) {
      pf_alloc_mode m;
      if ((r = pf_alloc_resolve(-1, val, &m, err, errsize)))
        return r;
      o->alloc = (int)m;
    } else if (strcmp(a, "--dump") == 0 || strcmp(a, "--json") == 0) {
      const int dump = strcmp(a, "--dump") == 0;
      const ptrdiff_t at = cm_text_control_at(val);
      if (val[0] == '\0')
        FAIL("%s needs a %s, not an empty word", a,
             dump ? "folder" : "file path");
      /* printed in messages and report lines, and (--json) recorded in
       * the results: a path with an ESC or a line break is refused */
      if (at >= 0)
        FAIL("%s: the path holds a control character (byte 0x%02X at "
             "offset %d): give one without",
             a, (unsigned)(unsigned char)val[at], (int)at);
      if (dump)
        o->dump_dir = val;
      else
        o->json_path = val;
    } else if (strcmp(a, "--format") == 0) {
      format = val;
    } else if (strcmp(a, "--warmup") == 0) {
      if ((r = parse_pos_double(a, val, &o->warmup_s, err, errsize)))
        return r;
    } else if (strcmp(a, "--budget") == 0) {
      if ((r = parse_pos_double(a, val, &o->budget_s, err, errsize)))
        return r;
    } else if (strcmp(a, "--target-cv") == 0) {
      if ((r = parse_pos_double(a, val, &o->target_cv, err, errsize)))
        return r;
    } else if (strcmp(a, "--flush") == 0) {
      if (strcmp(val, "write") == 0)
        o->flush = PF_FLUSH_WRITE;
      else if (strcmp(val, "read") == 0)
        o->flush = PF_FLUSH_READ;
      else
        FAIL("--flush %s: expected write (memset twice the L2, the "
             "default) or read (read twice the L2: clean lines)",
             val);
    } else if (strcmp(a, "--peer-sampling") == 0) {
      if (strcmp(val, "interleaved") == 0)
        o->peer_sampling = 1;
      else if (strcmp(val, "sequential") == 0)
        o->peer_sampling = 0;
      else
        FAIL("--peer-sampling %s: expected interleaved (ours and the peer "
             "sample by sample, the default) or sequential (ours, then the "
             "peer)",
             val);
    } else if (strcmp(a, "--lock-clocks") == 0) {
      if ((r = parse_lock(val, o, err, errsize)))
        return r;
    } else if (strcmp(a, "--min-samples") == 0) {
      if ((r = parse_int(a, val, 1, 1000000, &v, err, errsize)))
        return r;
      o->min_samples = (int)v;
    } else if (strcmp(a, "--max-samples") == 0) {
      if ((r = parse_int(a, val, 1, 1000000, &v, err, errsize)))
        return r;
      o->max_samples = (int)v;
    }
    i++;
  }
  if (format) {
    if (strcmp(format, "json") == 0 && o->mode != PF_MODE_LIST &&
        o->json_path == NULL)
      FAIL("--format json names --json's format (the default) or --list's; "
           "add --json PATH or --list");
    if (strcmp(format, "json") == 0)
      o->list_json = o->mode == PF_MODE_LIST;
    else if (strcmp(format, "gbench") == 0 && o->mode != PF_MODE_LIST)
      o->gbench = 1;
    else if (strcmp(format, "text") == 0 && o->mode == PF_MODE_LIST)
      o->list_json = 0;
    else
      FAIL("--format %s: expected json or text with --list, json or "
           "gbench with --json",
           format);
  }
  if (o->hot && o->flush >= 0)
    FAIL("--flush %s with --hot: a hot run does not flush the L2; drop one",
         o->flush == PF_FLUSH_READ ? "read" : "write");
  {
    /* one given alone is checked against the other's default */
    const int lo = o->min_samples > 0 ? o->min_samples : PF_BENCH_MIN_SAMPLES;
    const int hi = o->max_samples > 0 ? o->max_samples : PF_BENCH_MAX_SAMPLES;
    if (lo > hi)
      FAIL("--min-samples %d is larger than --max-samples %d%s", lo, hi,
           o->min_samples <= 0   ? " (the default minimum): give --min-samples "
                                   "too"
           : o->max_samples <= 0 ? " (the default maximum): give "
                                   "--max-samples too"
                                 : "");
  }
  /* the options that shape the one selected case: the fixed sets
   * (--test-only, --smoke, --bench, --negative-control) carry their own
   * strides, transposes, paddings and extreme rows, and would drop them */
  if (o->mode != PF_MODE_SELECT && o->mode != PF_MODE_LIST &&
      (o->stride || o->trans_a || o->trans_b || o->ld_pad || o->extreme))
    FAIL("%s shapes the one case that --op/--shape select; %s runs its own "
         "set, which has strided, transposed, padded and extreme cases of "
         "its own: drop it, or drop %s to run that case alone",
         o->stride    ? "--stride"
         : o->ld_pad  ? "--ld-pad"
         : o->extreme ? "--extreme"
                      : "--trans",
         mode_flag(o->mode), mode_flag(o->mode));
  if (o->have_shape &&
      (o->mode == PF_MODE_TEST_ONLY || o->mode == PF_MODE_SMOKE ||
       o->mode == PF_MODE_NEGATIVE || o->mode == PF_MODE_VERIFY_CONTROL))
    FAIL("--shape with %s: that set's shapes are fixed (edge shapes, strided "
         "rows); drop %s to verify that shape alone (--op OP --shape S), or "
         "drop --shape",
         mode_flag(o->mode), mode_flag(o->mode));
  if (o->stride && !o->have_shape)
    FAIL("--stride %lld needs --shape RxW: the stride pads the rows of the "
         "shape it names",
         (long long)o->stride);
  if (list_word != NULL && (o->json_path || o->dump_dir))
    FAIL("--list with %s: --list runs nothing, so nothing is written there; "
         "drop one",
         o->json_path ? "--json" : "--dump");
  if (list_word != NULL && o->sample_above >= 0)
    FAIL("--list with --sample-above: --list runs nothing, so nothing is "
         "verified; drop one");
  if (o->json_path && o->dump_dir && strcmp(o->json_path, o->dump_dir) == 0)
    FAIL("--json %s and --dump %s: one path for the results file and the "
         "dump folder (the folder is made first, and the results could not "
         "be written at the end); name two",
         o->json_path, o->dump_dir);
  if (o->mode == PF_MODE_BENCH && o->mask == 1)
    FAIL("--mask with --bench: the benchmark set times softmax unmasked and "
         "has no masked case; drop --mask, or time one masked case with "
         "--op softmax --shape RxW --mask --json PATH");
  /* without --op the shape's rank says which ops: three sizes, matmul
   * only; two, every other op. An option for the other kind would be
   * dropped without a word */
  if (o->op < 0 && o->have_shape && o->ndims == 3 &&
      (o->stride || o->mask == 1))
    FAIL("%s with an MxNxK shape: only matmul takes that shape, and %s",
         o->stride ? "--stride" : "--mask",
         o->stride ? "matmul pads its operands with --ld-pad P instead"
                   : "matmul takes no mask: drop --mask");
  if (o->op < 0 && o->have_shape && o->ndims == 2 &&
      (o->ld_pad || o->trans_a || o->trans_b))
    FAIL("%s with an RxW shape: those shape matmul's operands, which take "
         "MxNxK; %s",
         o->ld_pad ? "--ld-pad" : "--trans",
         o->ld_pad ? "pad rows with --stride S" : "drop it");
  if (o->op < 0 && o->have_shape && o->ndims == 2 && o->sample_above >= 0)
    FAIL("--sample-above with an RxW shape: it says which matmul products "
         "are verified on a sample, and an RxW shape selects no matmul; "
         "drop it");
  if (o->have_shape && !shape_fits(o->dims, o->ndims, o->stride, o->ld_pad)) {
    if (o->ndims == 3)
      FAIL("--shape: %lld x %lld x %lld%s overflows a 64-bit byte count",
           (long long)o->dims[0], (long long)o->dims[1], (long long)o->dims[2],
           o->ld_pad ? " with --ld-pad" : "");
    FAIL("--shape: %lld rows of %lld elements%s overflow a 64-bit byte count",
         (long long)o->dims[0],
         (long long)(o->stride > o->dims[1] ? o->stride : o->dims[1]),
         o->stride > o->dims[1] ? " (the --stride)" : "");
  }
  if (o->have_shape && o->ndims == 2 && o->stride && o->stride < o->dims[1])
    FAIL("--stride %lld is smaller than the row width %lld",
         (long long)o->stride, (long long)o->dims[1]);
  if (o->op >= 0 && o->have_shape) {
    int n;
    const pf_op *op = &pf_ops(&n)[o->op];
    if ((op->kind == PF_KIND_MATMUL) != (o->ndims == 3))
      FAIL("--shape: %s takes %s", op->name,
           op->kind == PF_KIND_MATMUL ? "MxNxK" : "RxW");
  }
  /* an option that shapes another kind of op: the one case would run
   * without it (its seed changed, nothing else) */
  if (o->op >= 0) {
    int n;
    const pf_op *op = &pf_ops(&n)[o->op];
    if (o->stride && op->kind != PF_KIND_ROWS)
      FAIL("--stride %lld pads the rows of the row ops; %s %s: %s",
           (long long)o->stride, op->name,
           op->kind == PF_KIND_MATMUL
               ? "pads its operands' rows with --ld-pad P (elements added "
                 "to each leading dimension)"
               : "runs on contiguous tensors",
           op->kind == PF_KIND_MATMUL ? "use that" : "drop --stride");
    if (o->sample_above >= 0 && op->kind != PF_KIND_MATMUL)
      FAIL("--sample-above says which matmul products are verified on a "
           "sample; %s's outputs are always verified in full: drop it",
           op->name);
    if ((o->ld_pad || o->trans_a || o->trans_b) && op->kind != PF_KIND_MATMUL)
      FAIL("%s shapes matmul's operands; %s has none%s",
           o->ld_pad ? "--ld-pad" : "--trans", op->name,
           o->ld_pad && op->kind == PF_KIND_ROWS
               ? ": pad its rows with --stride S"
               : ": drop it");
    /* --no-mask names what every other op's cases are; --mask would run
     * the op unmasked and say nothing */
    if (o->mask == 1 && op->kop != CPK_OP_SOFTMAX)
      FAIL("--mask masks softmax's input; %s takes no mask: drop --mask, or "
           "use --op softmax",
           op->name);
  }
  if (o->op >= 0 && o->variant >= 0 && o->dtype < 0) {
    /* without --dtype, the variant must exist in one dtype at least */
    int n, d, any = 0;
    const pf_op *op = &pf_ops(&n)[o->op];
    for (d = CPK_F32; d <= CPK_BF16; d++)
      any |= pf_op_supports(op, o->variant, (cpk_dtype)d);
    if (!any)
      FAIL("%s has no variant %s (see --list)", op->name,
           pf_variant_name(o->variant));
  }
  if (o->op >= 0 && o->variant >= 0 && o->dtype >= 0) {
    int n;
    const pf_op *op = &pf_ops(&n)[o->op];
    if (!pf_op_supports(op, o->variant, (cpk_dtype)o->dtype))
      FAIL("%s has no variant %s in %s (see --list)", op->name,
           pf_variant_name(o->variant), pf_dtype_name((cpk_dtype)o->dtype));
    if (o->variant == CPK_V_FUSED && o->have_shape &&
        !cpk_fused_fits(op->kop, (cpk_dtype)o->dtype, o->dims[1]))
      FAIL("%s --variant fused cannot hold a row of %lld %s elements on "
           "chip; use --variant auto (or split/block)",
           op->name, (long long)o->dims[1], pf_dtype_name((cpk_dtype)o->dtype));
  }
  /* HOPPER's TMA coordinates are 32-bit: it refuses larger sizes at the
   * launch (cudaErrorInvalidValue, exit 3), after the inputs and the
   * reference were made; `auto` takes TENSORCORE for them (pf_plan.h) */
  if (o->variant == CPK_V_HOPPER && o->have_shape && o->ndims == 3)
    for (i = 0; i < 3; i++) {
      const long long d = (long long)o->dims[i];
      if (d > CPK_HOPPER_MAX_DIM)
        FAIL("matmul --variant hopper takes M, N and K up to %lld (its TMA "
             "coordinates are 32-bit); %c = %lld is past it: use --variant "
             "tensorcore, or auto, which picks it for this shape",
             (long long)CPK_HOPPER_MAX_DIM, "MNK"[i], d);
    }
  if (o->json_path == NULL && (timing != NULL || o->gbench))
    FAIL("%s shapes timing, and only --json PATH times: add --json PATH "
         "(without it the cases are verified, not timed)",
         timing != NULL ? timing : "--format gbench");
  if (o->lock_sm_mhz > 0 && o->json_path == NULL)
    FAIL("--lock-clocks %u: clocks are locked for timing only; add --json "
         "PATH (verification alone runs at the clocks as found)",
         o->lock_sm_mhz);
  /* the controls are fixed cases (copy_unmasked, fp32, 4097 elements;
   * add_ftz, fp32, add's verification set): a selection word would be
   * dropped, not obeyed (--variant auto too: their variants are fixed),
   * and neither writes --dump's files */
  if ((o->mode == PF_MODE_NEGATIVE || o->mode == PF_MODE_VERIFY_CONTROL) &&
      (o->op >= 0 || o->json_path || o->variant != -2 || o->dtype >= 0 ||
       o->mask >= 0 || o->dump_dir || o->sample_above >= 0))
    FAIL("%s runs alone (%s): drop %s", mode_flag(o->mode),
         o->mode == PF_MODE_NEGATIVE
             ? "copy_unmasked, fp32, 4097 elements"
             : "add_ftz, fp32, the cases of add's verification set",
         o->op >= 0             ? "--op"
         : o->json_path         ? "--json"
         : o->variant != -2     ? "--variant"
         : o->dtype >= 0        ? "--dtype"
         : o->dump_dir          ? "--dump"
         : o->sample_above >= 0 ? "--sample-above"
         : o->mask == 1         ? "--mask"
                                : "--no-mask");
  return CM_OK;
}

/* A refusal repeats the words it names as they were given: its message is
 * made one line of text for a terminal (cm_text_oneline), so that an ESC
 * or a carriage return in an argument cannot rewrite what the terminal or
 * the stage's log shows beside it. */
int pf_cli_parse(int argc, char **argv, pf_opts *o, char *err, size_t errsize) {
  const int rc = cli_parse(argc, argv, o, err, errsize);
  if (rc != CM_OK && errsize > 0)
    cm_text_oneline(err);
  return rc;
}

int pf_exit_for_counts(int rc, int passed, int failed, int skipped) {
  if (rc != PF_EXIT_OK)
    return rc;
  if (failed > 0)
    return PF_EXIT_FAIL;
  if (passed == 0 && skipped > 0)
    return PF_EXIT_NODEV;
  return PF_EXIT_OK;
}

int pf_alloc_resolve(int flag, const char *env, pf_alloc_mode *out, char *err,
                     size_t errsize) {
  if (flag >= 0) {
    *out = (pf_alloc_mode)flag;
    return CM_OK;
  }
  if (!env || !*env || strcmp(env, "pooled") == 0) {
    *out = PF_ALLOC_POOLED;
    return CM_OK;
  }
  if (strcmp(env, "exact") == 0) {
    *out = PF_ALLOC_EXACT;
    return CM_OK;
  }
  /* the environment's value as one line of text (main prints this, and
   * pf_cli_parse's own messages are made so there) */
  cm_snprintf(err, errsize,
              "allocator '%s' (CUDA_PORTFOLIO_ALLOC or --alloc): expected "
              "exact or pooled",
              env);
  cm_text_oneline(err);
  return CM_EINVAL;
}

const char *pf_alloc_name(pf_alloc_mode m) {
  return m == PF_ALLOC_EXACT ? "exact" : "pooled";
}

void pf_cli_usage(void *stream) {
  fputs(
      "usage: cuda_portfolio [mode] [selection] [options]\n"
      "modes:\n"
      "  --test-only          the default verification set\n"
      "  --smoke              every variant x dtype once on small shapes\n"
      "  --bench              the standard benchmark shapes (use with --json)\n"
      "  --negative-control   only copy_unmasked (out-of-bounds on purpose)\n"
      "  --verify-control     only add_ftz (flushes subnormals on purpose) on\n"
      "                       add's fp32 cases: exit 0 when the verification\n"
      "                       fails it exactly where the host predicts, 1 not\n"
      "  --list [--format json|text]   ops, variants, dtypes\n"
      "  (none)               the cases named by the selection\n"
      "  --check-args         with the words of a run: check them and the\n"
      "                       case list they make; run nothing (exit 0 or 2)\n"
      "selection (--op, --variant, --dtype, --mask also filter the sets;\n"
      "  --shape one of --bench's standard shapes; the rest, the default\n"
      "  mode's one case only):\n"
      "  --op NAME  --variant NAME|auto  --dtype fp32|fp16|bf16\n"
      "  --shape RxW | MxNxK   --stride S (row ops)   --mask | --no-mask\n"
      "  --trans nn|nt|tn|tt  --ld-pad P (matmul)   --extreme (extreme "
      "inputs)\n"
      "options:\n"
      "  --seed N        reproduce a run (the seed is printed otherwise; 0 to\n"
      "                  2^63 - 1)\n"
      "  --gpu N         device ordinal\n"
      "  --alloc exact|pooled   (default: $CUDA_PORTFOLIO_ALLOC, else pooled)\n"
      "  --dump DIR      write inputs, outputs, references as .npy\n"
      "  --threads N     CPU threads for the float64 references\n"
      "  --sample-above MACS   verify matmul products of more multiply-adds\n"
      "                  on a sample (default 2^40 = 1099511627776: 8192^3\n"
      "                  in full, 16384^3 sampled; 0 samples every product)\n"
      "  --json PATH [--format json|gbench] [--warmup S] [--min-samples N]\n"
      "    [--max-samples N] [--target-cv X] [--budget S]\n"
      "    [--hot | --flush write|read] [--peer-sampling "
      "interleaved|sequential]\n"
      "    [--profile-range]   time verified cases into PATH\n"
      "    [--lock-clocks SM_MHZ[:MEM_MHZ]]   lock the clocks for the run\n"
      "    (root; reset at the end, and on SIGINT/SIGTERM; recorded)\n"
      "exit codes: 0 passed, 1 verification failed (--verify-control: the\n"
      "  control not caught as predicted), 2 usage error (and\n"
      "  --lock-clocks refused, a --json PATH or --dump DIR that cannot be\n"
      "  written), 3 CUDA error, 4 --json's file or a --dump file not\n"
      "  written, 77 no CUDA device (3 when KERNEL_REQUIRE_GPU=1), 128+N\n"
      "  ended by signal N\n",
      (FILE *)stream);
}
