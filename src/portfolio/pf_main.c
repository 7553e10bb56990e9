/* pf_main.c: cuda_portfolio's entry point: parse, report the environment
 * line, find the device, run the selected cases through pf_run, summarise.
 * Exit codes are pf_cli.h's table; helpers only return cm_errors. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "pf_cli.h"
#include "pf_fill.h"
#include "pf_half.h"
#include "pf_instrument.h"
#include "pf_ops.h"
#include "pf_ref.h"
#include "pf_rng.h"
#include "pf_run.h"
#include "pf_sets.h"
#include "pf_timing_glue.h"
#include "platform.h"

#ifndef PF_VERSION
#define PF_VERSION "0.0.0"
#endif

/* Elements of the negative control: odd, so no block size divides it. */
#define PF_NEGATIVE_N 4097

/* The dtypes op's variant v takes, as a bit mask (bit d: cpk_dtype d). */
static unsigned variant_dtypes(const pf_op *op, int v) {
  unsigned m = 0;
  int d;
  for (d = CPK_F32; d <= CPK_BF16; d++)
    if (pf_op_supports(op, v, (cpk_dtype)d))
      m |= 1u << d;
  return m;
}

static void list_text(void) {
  int n, i, v, d;
  const pf_op *ops = pf_ops(&n);
  for (i = 0; i < n; i++) {
    printf("%-18s variants: auto", ops[i].name);
    for (v = 0; v <= CPK_V_LAST; v++)
      if (ops[i].variants & (1u << v)) {
        /* a variant of only some dtypes says which (matmul's tiled is
         * fp32 only, its tensor-core paths 16-bit only) */
        const unsigned m = variant_dtypes(&ops[i], v);
        printf(",%s", pf_variant_name(v));
        if (m != 7u) {
          const char *sep = "(";
          for (d = CPK_F32; d <= CPK_BF16; d++)
            if (m & (1u << d)) {
              printf("%s%s", sep, pf_dtype_name((cpk_dtype)d));
              sep = " ";
            }
          printf(")");
        }
      }
    printf("  dtypes:");
    for (d = 0; d < 3; d++)
      printf("%s%s", d ? "," : " ", pf_dtype_name((cpk_dtype)d));
    printf("\n");
  }
  printf("(negative control, only with --negative-control: copy_unmasked "
         "fp32)\n");
  printf("(verification control, only with --verify-control: add_ftz "
         "fp32)\n");
}

static int list_json(void) {
  int n, i, v, d;
  const pf_op *ops = pf_ops(&n);
  json_t *root = json_object(), *arr = json_array();
  char *text;
  for (i = 0; i < n; i++) {
    json_t *o = json_object(), *vs = json_array(), *ds = json_array();
    json_array_append_new(vs, cm_json_text("auto"));
    for (v = 0; v <= CPK_V_LAST; v++)
      if (ops[i].variants & (1u << v))
        json_array_append_new(vs, cm_json_text(pf_variant_name(v)));
    for (d = 0; d < 3; d++)
      json_array_append_new(ds, cm_json_text(pf_dtype_name((cpk_dtype)d)));
    json_object_set_new(o, "name", cm_json_text(ops[i].name));
    json_object_set_new(o, "variants", vs);
    json_object_set_new(o, "dtypes", ds);
    {
      /* each variant's own dtypes (some take only some) */
      json_t *vd = json_object();
      for (v = 0; v <= CPK_V_LAST; v++)
        if (ops[i].variants & (1u << v)) {
          json_t *l = json_array();
          const unsigned m = variant_dtypes(&ops[i], v);
          for (d = CPK_F32; d <= CPK_BF16; d++)
            if (m & (1u << d))
              json_array_append_new(l,
                                    cm_json_text(pf_dtype_name((cpk_dtype)d)));
          json_object_set_new(vd, pf_variant_name(v), l);
        }
      json_object_set_new(o, "variant_dtypes", vd);
    }
    json_array_append_new(arr, o);
  }
  json_object_set_new(root, "ops", arr);
  json_object_set_new(root, "negative_control", cm_json_text("copy_unmasked"));
  json_object_set_new(root, "verify_control", cm_json_text("add_ftz"));
  text = cm_json_dumps(root, JSON_INDENT(2));
  json_decref(root);
  if (!text)
    return PF_EXIT_CUDA; /* out of memory: no better code exists */
  puts(text);
  free(text);
  return PF_EXIT_OK;
}

static void print_header(pf_alloc_mode alloc, uint64_t seed, char **envp) {
  pf_markers m;
  const char *commit;
  int i, dirty;
  pf_instrument_detect(envp, &m);
  pf_build_git(&commit, &dirty);
  printf("[cuda_portfolio] version=%s allocator=%s instrumented=%s markers=",
         PF_VERSION, pf_alloc_name(alloc), m.count ? "true" : "false");
  for (i = 0; i < m.count; i++)
    printf("%s%s", i ? "," : "", m.names[i]);
  /* the commit the binary was built from, for a run folder whose own tree
   * is another (a copied tree, a prebuilt build folder): +dirty when the
   * tree had changes, +unknown when that could not be told */
  printf("%s seed=%" PRIu64 " git=%s%s\n", m.count ? "" : "-", seed, commit,
         strcmp(commit, "unknown") == 0 ? ""
         : dirty == 1                   ? "+dirty"
         : dirty == 0                   ? ""
                                        : "+unknown");
  fflush(stdout);
}

/* Selects the device; returns an exit code (PF_EXIT_OK to go on). */
static int open_device(int gpu, int *sm_count) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  const char *req = getenv("KERNEL_REQUIRE_GPU");
  if (e != cudaSuccess || count == 0) {
    const char *why = e != cudaSuccess ? cudaGetErrorString(e)
                                       : "cudaGetDeviceCount found 0 devices";
    (void)cudaGetLastError();
    if (req && strcmp(req, "1") == 0) {
      fprintf(stderr,
              "cuda_portfolio: a CUDA device was required "
              "(KERNEL_REQUIRE_GPU=1) but none is usable: %s\n",
              why);
      return PF_EXIT_CUDA;
    }
    fprintf(stderr, "no CUDA device: %s\n", why);
    return PF_EXIT_NODEV;
  }
  if (gpu >= count) {
    fprintf(stderr, "cuda_portfolio: --gpu %d: only %d device(s)\n", gpu,
            count);
    return PF_EXIT_USAGE;
  }
  if ((e = cudaSetDevice(gpu)) != cudaSuccess ||
      (e = cudaDeviceGetAttribute(sm_count, cudaDevAttrMultiProcessorCount,
                                  gpu)) != cudaSuccess) {
    fprintf(stderr, "%s:%d: cudaSetDevice/cudaDeviceGetAttribute(%d): %s\n",
            __FILE__, __LINE__, gpu, cudaGetErrorString(e));
    return PF_EXIT_CUDA;
  }
  return PF_EXIT_OK;
}

static int exit_for(int err) {
  if (err == CM_ECUDA || err == CM_ECUBLAS)
    return PF_EXIT_CUDA;
  if (err == CM_ENOMEM || err == CM_EINVAL || err == CM_ERANGE)
    return PF_EXIT_USAGE;
  return PF_EXIT_CUDA;
}

/* --json PATH refused (rc: CM_EEXIST a folder, CM_EINVAL a device, pipe
 * or socket, else the probe's error): says why and the fix; exit 2. */
static int json_path_refused(const char *path, int rc) {
  if (rc == CM_EEXIST)
    fprintf(stderr,
            "cuda_portfolio: --json %s: is a folder; name the results "
            "file, e.g. --json %s/bench.json\n",
            path, path);
  else if (rc == CM_EINVAL)
    fprintf(stderr,
            "cuda_portfolio: --json %s: is not a regular file (a device, "
            "pipe or socket), and the results are written beside it and "
            "renamed over it; name a results file, e.g. --json "
            "bench.json\n",
            path);
  else
    fprintf(stderr,
            "cuda_portfolio: --json %s: cannot create %s.tmp, through "
            "which the file is written (%s); name a file in a folder that "
            "exists and is writable\n",
            path, path, cm_strerror(rc));
  return PF_EXIT_USAGE;
}

/* The case list of o into set (host only: no device needed), or a usage
 * error naming why it is empty. */
static int build_set(const pf_opts *o, pf_set *set) {
  if (pf_sets_build(o, set) != CM_OK) {
    fprintf(stderr, "cuda_portfolio: out of memory building the case list\n");
    return PF_EXIT_USAGE;
  }
  if (set->n > 0 && o->sample_above >= 0) {
    /* --sample-above where none of the cases is a matmul (--variant warp,
     * a set whose matmuls the selection left out): it would be dropped */
    int i, nop, mm = 0;
    const pf_op *ops = pf_ops(&nop);
    for (i = 0; i < set->n && !mm; i++)
      mm = set->v[i].op >= 0 && set->v[i].op < nop &&
           ops[set->v[i].op].kind == PF_KIND_MATMUL;
    if (!mm) {
      fprintf(stderr,
              "cuda_portfolio: --sample-above says which matmul products "
              "are verified on a sample, and none of the %d case(s) the "
              "words make is a matmul; leave it out, or select matmul "
              "cases (--op matmul)\n",
              set->n);
      pf_set_free(set);
      return PF_EXIT_USAGE;
    }
  }
  if (set->n > 0)
    return PF_EXIT_OK;
  if (o->mode == PF_MODE_BENCH && o->have_shape)
    fprintf(stderr, "cuda_portfolio: --bench --shape: not one of the "
                    "standard shapes of this op (docs/BENCHMARKING.md); "
                    "time any other shape without --bench: --op OP "
                    "--shape S --json PATH\n");
  else if (o->variant >= 0 && o->variant != PF_VARIANT_AUTO && o->have_shape)
    /* a variant named for a shape it does not take in any selected dtype
     * (fused at 4x100000000) was sent to --list, as if it did not exist */
    fprintf(stderr,
            "cuda_portfolio: the selection matches no case: --variant %s "
            "takes this shape in none of the selected dtypes; use --variant "
            "auto (the plan chooser picks one that does), or --list for each "
            "variant's ops and dtypes\n",
            pf_variant_name(o->variant));
  else
    fprintf(stderr, "cuda_portfolio: the selection matches no case (see "
                    "--list)\n");
  pf_set_free(set);
  return PF_EXIT_USAGE;
}

/* --verify-control: add_ftz (wrong on purpose) on every fp32 case of add's
 * verification set. Caught when the check fails it on at least one element
 * and, case by case, on exactly the elements the host model predicts; exit
 * 0 then, 1 (PF_EXIT_FAIL) when not, with the reason on stderr. */
static int run_verify_control(pf_runner *r) {
  pf_opts o;
  pf_set set;
  pf_vcheck vc;
  int i, err, disagree = 0, failing = 0;
  int64_t failed = 0, predicted = 0;
  /* the set --test-only --op add --dtype fp32 makes */
  pf_opts_init(&o);
  o.mode = PF_MODE_TEST_ONLY;
  o.op = pf_op_find("add");
  o.dtype = CPK_F32;
  if ((err = build_set(&o, &set)) != PF_EXIT_OK)
    return err;
  for (i = 0; i < set.n; i++) {
    if ((err = pf_run_verify_control(r, &set.v[i], &vc)) != CM_OK) {
      fprintf(stderr, "cuda_portfolio: stopped: %s\n", cm_strerror(err));
      pf_set_free(&set);
      return exit_for(err);
    }
    failed += vc.failed;
    predicted += vc.predicted;
    failing += vc.failed > 0;
    disagree += !vc.agree;
  }
  printf("VERIFY-CONTROL op=add_ftz dtype=fp32 cases=%d failing_cases=%d "
         "failed_elements=%" PRId64 " predicted_elements=%" PRId64
         " disagree=%d caught=%s\n",
         set.n, failing, failed, predicted, disagree,
         disagree == 0 && predicted > 0 ? "yes" : "NO");
  pf_set_free(&set);
  if (predicted == 0) {
    fprintf(stderr,
            "cuda_portfolio: --verify-control: add's fp32 cases hold no input "
            "that a flush to zero changes, so the control proves nothing: "
            "the fill lost its subnormals (pf_fill.c)\n");
    return PF_EXIT_FAIL;
  }
  if (disagree > 0) {
    fprintf(stderr,
            "cuda_portfolio: --verify-control: the check of add_ftz, a kernel "
            "that flushes subnormals on purpose, failed other elements than "
            "the host predicts in %d case(s) (the VERIFY-CONTROL-CASE lines "
            "with agree=NO): the GPU verification path (launch, read-back, "
            "compare) cannot be trusted on this machine\n",
            disagree);
    return PF_EXIT_FAIL;
  }
  return PF_EXIT_OK;
}

/* Runs the selection's cases; *total gets its size, *done how many ran to
 * their verdict before a stop. */
static int run_set(pf_runner *r, const pf_opts *o, int *total, int *done) {
  pf_set set;
  int i, err;
  *total = *done = 0;
  if ((err = build_set(o, &set)) != PF_EXIT_OK)
    return err;
  *total = set.n;
  for (i = 0; i < set.n; i++) {
    err = pf_run_case(r, &set.v[i]);
    if (err) {
      fprintf(stderr, "cuda_portfolio: stopped: %s\n", cm_strerror(err));
      pf_set_free(&set);
      *done = i;
      return exit_for(err);
    }
  }
  *done = set.n;
  pf_set_free(&set);
  return PF_EXIT_OK;
}

int main(int argc, char **argv, char **envp) {
  pf_opts o;
  pf_runner r;
  pf_alloc_mode alloc;
  char err[512];
  int rc, total = 0, done = 0;
  /* Windows hands main() argv in the ANSI code page; paths are UTF-8 here
   * (cm_fopen, plat_*), as repro passes them (a no-op on POSIX; a failed
   * conversion keeps the ANSI argv, right for ASCII paths) */
  (void)plat_utf8_argv(&argc, &argv);
  cm_json_init(); /* before any document is built (cm_file.h) */
  if (pf_cli_parse(argc, argv, &o, err, sizeof err) != CM_OK) {
    fprintf(stderr, "cuda_portfolio: %s\n", err);
    return PF_EXIT_USAGE;
  }
  if (o.check_args && (o.mode == PF_MODE_HELP || o.mode == PF_MODE_LIST)) {
    fprintf(stderr,
            "cuda_portfolio: --check-args checks the words of a run; "
            "%s runs nothing to check: drop it\n",
            o.mode == PF_MODE_HELP ? "--help" : "--list");
    return PF_EXIT_USAGE;
  }
  if (o.mode == PF_MODE_HELP || o.mode == PF_MODE_LIST) {
    rc = PF_EXIT_OK;
    if (o.mode == PF_MODE_HELP)
      pf_cli_usage(stdout);
    else if (o.list_json)
      rc = list_json();
    else
      list_text();
    /* what was asked for is the output: a full disk (or a closed pipe,
     * where SIGPIPE is ignored) is exit 4, not a silent 0 */
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr,
              "cuda_portfolio: %s: could not write to standard "
              "output\n",
              o.mode == PF_MODE_HELP ? "--help" : "--list");
      return PF_EXIT_OUTPUT;
    }
    return rc;
  }
  /* the allocator's environment variable is a word of the run too: a bad
   * one is refused here, before --check-args says the words are fine and
   * before --dump makes its folder */
  if (pf_alloc_resolve(o.alloc, getenv("CUDA_PORTFOLIO_ALLOC"), &alloc, err,
                       sizeof err) != CM_OK) {
    fprintf(stderr, "cuda_portfolio: %s\n", err);
    return PF_EXIT_USAGE;
  }
  /* the path checks that write nothing come before --check-args answers:
   * it said "the words make N case(s)" for --json /dev/null and a --dump
   * naming a file, which a run then refused */
  if (o.json_path && (rc = plat_check_write_target(o.json_path)) != CM_OK)
    return json_path_refused(o.json_path, rc);
  if (o.dump_dir && plat_path_exists(o.dump_dir) &&
      !plat_path_is_dir(o.dump_dir)) {
    fprintf(stderr,
            "cuda_portfolio: --dump %s: is a file, not a folder; name a "
            "folder (it is made if missing)\n",
            o.dump_dir);
    return PF_EXIT_USAGE;
  }
  /* the case list, before any device: an empty one is a usage error on
   * every machine (--check-args stops here, writing nothing) */
  if (o.mode != PF_MODE_NEGATIVE && o.mode != PF_MODE_VERIFY_CONTROL) {
    pf_set set;
    if ((rc = build_set(&o, &set)) != PF_EXIT_OK)
      return rc;
    if (o.check_args)
      printf("cuda_portfolio: the words make %d case(s); nothing run\n", set.n);
    pf_set_free(&set);
  }
  if (o.check_args) {
    if (o.mode == PF_MODE_NEGATIVE)
      printf("cuda_portfolio: the words make the negative control; nothing "
             "run\n");
    else if (o.mode == PF_MODE_VERIFY_CONTROL)
      printf("cuda_portfolio: the words make the verification control; "
             "nothing run\n");
    return PF_EXIT_OK;
  }
  /* --json's file is written at the end, after every case was verified and
   * timed: check now that it can be, so a bad path costs no run */
  if (o.json_path && (rc = plat_probe_write_atomic(o.json_path)) != CM_OK)
    return json_path_refused(o.json_path, rc);
  if (o.dump_dir && (rc = plat_mkdir_p(o.dump_dir)) != CM_OK) {
    fprintf(stderr,
            "cuda_portfolio: --dump %s: cannot create the folder (%s); name "
            "a folder that exists or can be made, and is writable\n",
            o.dump_dir, cm_strerror(rc));
    return PF_EXIT_USAGE;
  }
  /* a folder that exists but cannot be written (/proc, another user's):
   * every case's files would fail at the end of its run */
  if (o.dump_dir) {
    char probe[4096];
    /* a path too long for the files in it said "cannot write in the
     * folder (success)": plat_mkdir_p's result */
    rc = cm_snprintf(probe, sizeof probe, "%s/.cuda_portfolio-probe",
                     o.dump_dir);
    if (rc == CM_OK)
      rc = plat_probe_write_atomic(probe);
    if (rc == CM_ERANGE) {
      fprintf(stderr,
              "cuda_portfolio: --dump %s: the folder's path is too long for "
              "the files written in it (%zu characters); name a shorter "
              "one\n",
              o.dump_dir, strlen(o.dump_dir));
      return PF_EXIT_USAGE;
    }
    if (rc != CM_OK) {
      fprintf(stderr,
              "cuda_portfolio: --dump %s: cannot write in the folder (%s); "
              "name a folder that is writable\n",
              o.dump_dir, cm_strerror(rc));
      return PF_EXIT_USAGE;
    }
  }
  memset(&r, 0, sizeof r);
  r.alloc = alloc;
  r.seed = o.have_seed ? o.seed : pf_rng_fresh_seed();
  r.nsets = 1;
  r.dump_dir = o.dump_dir;
  r.out = stdout;
  if (o.threads)
    pf_ref_set_threads(o.threads);
  pf_set_matmul_sample_above(o.sample_above);
  print_header(alloc, r.seed, envp);
  rc = open_device(o.gpu, &r.dev.sm_count);
  if (rc != PF_EXIT_OK)
    return rc;
  r.dev.fused = cpk_variant_available(CPK_OP_SOFTMAX, CPK_V_FUSED, CPK_F32) > 0;
  r.dev.hopper =
      cpk_variant_available(CPK_OP_MATMUL, CPK_V_HOPPER, CPK_F16) > 0;
  r.dev.grid = r.dev.fused && cpk_fused_grid_available() > 0;
  if (o.mode == PF_MODE_NEGATIVE) {
    int e = pf_run_negative_control(&r, PF_NEGATIVE_N);
    return e ? exit_for(e) : PF_EXIT_OK;
  }
  if (o.mode == PF_MODE_VERIFY_CONTROL)
    return run_verify_control(&r);
  if (o.json_path && (rc = pf_timing_start(&r, &o, argc, argv)) != PF_EXIT_OK)
    return rc;
  rc = run_set(&r, &o, &total, &done);
  if (o.json_path) {
    int trc = pf_timing_finish(&r, o.json_path, total, done);
    /* a failed verification outranks the lost file (both are printed) */
    if (rc == PF_EXIT_OK && r.failed == 0)
      rc = trc;
  }
  if (r.dump_failed > 0) {
    fprintf(stderr,
            "cuda_portfolio: --dump %s: %" PRId64 " case(s) not written (see "
            "above)\n",
            o.dump_dir, r.dump_failed);
    if (rc == PF_EXIT_OK && r.failed == 0)
      rc = PF_EXIT_OUTPUT;
  }
  printf("%d passed, %d failed\n", r.passed, r.failed);
  if (r.skipped)
    printf("%d skipped\n", r.skipped);
  if (rc == PF_EXIT_OK && r.passed == 0 && r.failed == 0 && r.skipped > 0)
    fprintf(stderr,
            "cuda_portfolio: every selected case was skipped: this device "
            "cannot run the variant asked for (see the SKIP lines); "
            "--variant auto picks what it can run\n");
  return pf_exit_for_counts(rc, r.passed, r.failed, r.skipped);
}
