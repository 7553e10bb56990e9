/* report_fixture.c: see report_fixture.h. */
#include "report_fixture.h"
#include "cm_file.h"

#include "cm_str.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fx_opts_init(fx_opts *o) {
  memset(o, 0, sizeof *o);
  o->os = "linux";
  o->gpu = "NVIDIA H200";
  o->cc = "9.0";
  o->scale = 1.0;
  o->seed = 1;
  o->nsamples = 40;
  o->fail_case = -1;
}

/* Deterministic noise in [-1, 1): a 32-bit LCG, enough for fixtures. */
static double noise(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return ((double)(*s >> 8) / 8388608.0) - 1.0;
}

static json_t *timing(double base_s, const fx_opts *o, unsigned *s) {
  json_t *t = json_object(), *arr = json_array();
  double med = 0;
  int i;
  for (i = 0; i < o->nsamples; i++) {
    /* 1% jitter plus a rare 5% outlier, like a quiet GPU. */
    double v = base_s * o->scale * (1.0 + 0.01 * noise(s));
    if (i % 17 == 16)
      v *= 1.05;
    json_array_append_new(arr, json_real(v));
  }
  med = base_s * o->scale;
  json_object_set_new(t, "samples_s", arr);
  json_object_set_new(t, "n", json_integer(o->nsamples));
  json_object_set_new(t, "median_s", json_real(med));
  json_object_set_new(t, "min_s", json_real(med * 0.99));
  json_object_set_new(t, "max_s", json_real(med * 1.05));
  json_object_set_new(t, "cv", json_real(0.006));
  json_object_set_new(t, "throttled", json_false());
  return t;
}

static void add_case(json_t *cases, const fx_opts *o, unsigned *s, int idx,
                     const char *op, const char *variant, const char *shape,
                     double bytes, double flops, double base_s,
                     double copy_gbps) {
  json_t *c = json_object(), *cor = json_object(), *thr = json_object();
  json_t *peer = json_object();
  double med = base_s * o->scale;
  json_object_set_new(c, "op", json_string(op));
  json_object_set_new(c, "variant", json_string(variant));
  json_object_set_new(c, "dtype", json_string(flops > 0 ? "f16" : "f32"));
  json_object_set_new(c, "shape", json_string(shape));
  json_object_set_new(c, "stride", json_integer(1));
  json_object_set_new(c, "logical_bytes", json_real(bytes));
  json_object_set_new(c, "flops", json_real(flops));
  json_object_set_new(c, "bound",
                      json_string(flops > 0 ? "compute" : "memory"));
  json_object_set_new(cor, "passed", json_boolean(idx != o->fail_case));
  json_object_set_new(cor, "max_abs_err", json_real(1e-6));
  json_object_set_new(cor, "max_rel_err", json_real(1e-5));
  json_object_set_new(cor, "rtol", json_real(1e-3));
  json_object_set_new(cor, "atol", json_real(1e-5));
  /* the first matmul verified on a sample, the others in full */
  json_object_set_new(cor, "sampled",
                      idx == 2 ? json_integer(102358) : json_null());
  json_object_set_new(c, "correctness", cor);
  json_object_set_new(c, "timing", timing(base_s, o, s));
  json_object_set_new(thr, "gbps", json_real(bytes / med / 1e9));
  json_object_set_new(thr, "tflops",
                      flops > 0 ? json_real(flops / med / 1e12) : json_null());
  json_object_set_new(thr, "fraction_of_copy_bw",
                      json_real(bytes / med / 1e9 / copy_gbps));
  json_object_set_new(thr, "suspicious", json_false());
  json_object_set_new(c, "throughput", thr);
  if (flops > 0) {
    json_object_set_new(peer, "name", json_string("cublasGemmEx"));
    json_object_set_new(peer, "present", json_true());
    json_object_set_new(peer, "median_s", json_real(base_s * 0.9));
    json_object_set_new(peer, "ratio", json_real(0.9 / o->scale));
  } else {
    json_object_set_new(peer, "name", json_null());
    json_object_set_new(peer, "present", json_false());
    json_object_set_new(peer, "median_s", json_null());
    json_object_set_new(peer, "ratio", json_null());
  }
  json_object_set_new(c, "peer", peer);
  json_array_append_new(cases, c);
}

json_t *fx_results(const fx_opts *o) {
  json_t *d = json_object(), *env = json_object(), *gpu = json_object();
  json_t *os = json_object(), *git = json_object(), *ceil = json_object();
  json_t *cases = json_array(), *marks = json_array();
  unsigned s = o->seed;
  double copy = 4200.0;
  json_object_set_new(d, "schema_version", json_integer(1));
  json_object_set_new(d, "generator", json_string("cuda_portfolio"));
  json_object_set_new(d, "instrumented", json_boolean(o->instrumented));
  if (o->instrumented)
    json_array_append_new(marks, json_string("CUDA_INJECTION64_PATH"));
  json_object_set_new(d, "instrumentation_markers", marks);
  json_object_set_new(gpu, "name", json_string(o->gpu));
  json_object_set_new(gpu, "uuid",
                      json_string("GPU-6f2c1d7e-0000-4000-8000-000000000001"));
  json_object_set_new(gpu, "compute_capability", json_string(o->cc));
  json_object_set_new(gpu, "sm_count", json_integer(132));
  json_object_set_new(gpu, "sm_clock_peak_mhz", json_real(1980));
  json_object_set_new(gpu, "mem_clock_peak_mhz", json_real(3201));
  json_object_set_new(env, "gpu", gpu);
  json_object_set_new(env, "driver_version", json_string("580.95.05"));
  json_object_set_new(env, "cuda_runtime_version", json_integer(13000));
  json_object_set_new(env, "cuda_driver_version", json_integer(13000));
  json_object_set_new(env, "host", json_string("fixture-host"));
  json_object_set_new(os, "name", json_string(o->os));
  json_object_set_new(os, "release", json_string("fabricated for tests"));
  json_object_set_new(env, "os", os);
  json_object_set_new(git, "commit", json_string("0123456789abcdef"));
  json_object_set_new(git, "dirty", json_false());
  json_object_set_new(env, "git", git);
  json_object_set_new(env, "timestamp_utc",
                      json_string("2026-01-01T00:00:00Z"));
  json_object_set_new(d, "environment", env);
  json_object_set_new(ceil, "copy_bandwidth_gbps", json_real(copy));
  json_object_set_new(ceil, "read_bandwidth_gbps", json_real(4400.0));
  json_object_set_new(ceil, "launch_floor_s", json_real(2.75e-6));
  json_object_set_new(d, "ceilings", ceil);
  {
    json_t *st = json_object();
    json_object_set_new(st, "cache", json_string("cold"));
    json_object_set_new(st, "flush", json_string("read"));
    json_object_set_new(st, "peer_sampling", json_string("interleaved"));
    json_object_set_new(d, "settings", st);
  }
  json_object_set_new(d, "warnings", json_array());
  add_case(cases, o, &s, 0, "copy", "vec4", "16777216", 134217728.0, 0, 34e-6,
           copy);
  add_case(cases, o, &s, 1, "softmax", "warp", "4096x4096", 134217728.0, 0,
           41e-6, copy);
  add_case(cases, o, &s, 2, "matmul", "wgmma", "4096x4096x4096", 1.0e8,
           1.374e11, 250e-6, copy);
  add_case(cases, o, &s, 3, "matmul", "tiled", "2048x2048x2048", 2.5e7,
           1.718e10, 60e-6, copy);
  json_object_set_new(d, "cases", cases);
  return d;
}

int fx_write_results(const char *path, const fx_opts *o) {
  json_t *d = fx_results(o);
  int r = cm_json_dump_file(d, path, JSON_INDENT(2));
  json_decref(d);
  return r;
}

static json_t *stage(const char *name, const char *status, const char *reason,
                     double dur) {
  json_t *s = json_object(), *checks = json_array(), *c = json_object();
  json_object_set_new(s, "name", json_string(name));
  json_object_set_new(s, "status", json_string(status));
  json_object_set_new(s, "reason", reason ? json_string(reason) : json_null());
  json_object_set_new(s, "exit_code", json_integer(0));
  json_object_set_new(s, "duration_s", json_real(dur));
  json_object_set_new(c, "name", json_string("tool nvcc"));
  json_object_set_new(c, "ok", json_true());
  json_object_set_new(c, "outcome", json_string("pass"));
  json_object_set_new(c, "detail", json_string("nvcc 13.0.88"));
  json_array_append_new(checks, c);
  json_object_set_new(s, "checks", checks);
  json_object_set_new(s, "steps", json_array());
  return s;
}

static json_t *finding(const char *kind, const char *kernel, const char *loc) {
  json_t *f = json_object();
  json_object_set_new(f, "class", json_string("access"));
  json_object_set_new(f, "kind", json_string(kind));
  json_object_set_new(f, "severity", json_string("error"));
  json_object_set_new(f, "kernel", json_string(kernel));
  json_object_set_new(f, "location", json_string(loc));
  return f;
}

int fx_make_run(const char *dir) {
  char p[1024];
  json_t *m = json_object(), *stages = json_array(), *san, *steps, *step;
  json_t *fs, *ins, *res, *row, *tools = json_object(), *git = json_object();
  json_t *nc = json_object();
  fx_opts o;
  int r;
  if (plat_mkdir_p(dir) != 0)
    return 1;
  json_object_set_new(m, "schema_version", json_integer(1));
  json_object_set_new(m, "run_id",
                      json_string("20260101T000000Z-fixture-a1b2"));
  json_object_set_new(m, "started", json_string("2026-01-01T00:00:00Z"));
  json_object_set_new(m, "ended", json_string("2026-01-01T00:05:00Z"));
  json_object_set_new(m, "status", json_string("complete"));
  json_object_set_new(m, "host", json_string("fixture-host"));
  json_object_set_new(m, "os", json_string("linux"));
  json_object_set_new(git, "commit", json_string("0123456789abcdef"));
  json_object_set_new(git, "dirty", json_false());
  json_object_set_new(m, "git", git);
  {
    json_t *t = json_object();
    json_object_set_new(t, "found", json_true());
    json_object_set_new(t, "version", json_string("13.0.88"));
    json_object_set_new(tools, "nvcc", t);
  }
  json_object_set_new(m, "tools", tools);
  json_array_append_new(stages, stage("build", "passed", NULL, 95.0));
  {
    /* as rp_stage_test.c writes it: the verification control first */
    json_t *tst = stage("test", "passed", NULL, 12.5), *vc = json_object();
    const char *names[] = {"verify-control", "cuda_portfolio"};
    int k;
    for (k = 0; k < 2; k++) {
      step = json_object();
      json_object_set_new(step, "name", json_string(names[k]));
      json_object_set_new(step, "exit_code", json_integer(0));
      json_array_append_new(json_object_get(tst, "steps"), step);
    }
    json_object_set_new(vc, "kernel", json_string("add_ftz"));
    json_object_set_new(vc, "exit_code", json_integer(0));
    json_object_set_new(vc, "failed_as_predicted", json_true());
    json_object_set_new(tst, "verification_control", vc);
    /* the binary's own word on its commit (rp_pfrun.c), the tree's here */
    vc = json_object();
    json_object_set_new(vc, "git", json_string("0123456789abcdef"));
    json_object_set_new(tst, "banner", vc);
    json_array_append_new(stages, tst);
  }
  san = stage("sanitize", "passed", NULL, 40.0);
  /* as the engine writes it: the stage's exit code is its last step's,
   * the negative control's error exit */
  json_object_set_new(san, "exit_code", json_integer(86));
  steps = json_object_get(san, "steps");
  step = json_object();
  json_object_set_new(step, "name", json_string("memcheck"));
  json_object_set_new(step, "exit_code", json_integer(0));
  json_object_set_new(step, "findings", json_array());
  json_array_append_new(steps, step);
  step = json_object();
  json_object_set_new(step, "name", json_string("negative-control"));
  json_object_set_new(step, "exit_code", json_integer(86));
  fs = json_array();
  json_array_append_new(fs, finding("Invalid __global__ write of size 4 "
                                    "bytes",
                                    "copy_unmasked(float*, int)",
                                    "negative_control.cu:12"));
  json_object_set_new(step, "findings", fs);
  json_array_append_new(steps, step);
  json_object_set_new(nc, "caught", json_true());
  json_object_set_new(nc, "detail",
                      json_string("Invalid __global__ write in "
                                  "copy_unmasked at "
                                  "negative_control.cu:12"));
  json_object_set_new(san, "negative_control", nc);
  json_array_append_new(stages, san);
  ins = stage("inspect", "passed", NULL, 8.0);
  res = json_array();
  row = json_object();
  json_object_set_new(row, "kernel", json_string("softmax_warp<float>"));
  json_object_set_new(row, "arch", json_string("sm_90"));
  json_object_set_new(row, "registers", json_integer(32));
  json_object_set_new(row, "stack_frame_bytes", json_integer(0));
  json_object_set_new(row, "spill_store_bytes", json_integer(0));
  json_object_set_new(row, "spill_load_bytes", json_integer(0));
  json_object_set_new(row, "shared_bytes", json_integer(0));
  json_object_set_new(row, "local_bytes", json_integer(0));
  json_object_set_new(row, "spills", json_false());
  json_array_append_new(res, row);
  json_object_set_new(ins, "resources", res);
  json_array_append_new(stages, ins);
  json_array_append_new(stages,
                        stage("profile", "limited",
                              "ncu: ERR_NVGPUCTRPERM (counters need admin); "
                              "nsys could not import its capture",
                              30.0));
  json_array_append_new(stages, stage("time", "passed", NULL, 60.0));
  json_object_set_new(m, "stages", stages);
  r = cm_snprintf(p, sizeof p, "%s/manifest.json", dir);
  if (r == 0)
    r = cm_json_dump_file(m, p, JSON_INDENT(2));
  json_decref(m);
  if (r != 0)
    return 1;
  if (cm_snprintf(p, sizeof p, "%s/results/clean", dir) != 0 ||
      plat_mkdir_p(p) != 0)
    return 1;
  fx_opts_init(&o);
  if (cm_snprintf(p, sizeof p, "%s/results/clean/time.json", dir) != 0 ||
      fx_write_results(p, &o) != 0)
    return 1;
  if (cm_snprintf(p, sizeof p, "%s/results/instrumented", dir) != 0 ||
      plat_mkdir_p(p) != 0)
    return 1;
  o.instrumented = 1;
  o.scale = 1.3;
  if (cm_snprintf(p, sizeof p, "%s/results/instrumented/profile.json", dir) !=
          0 ||
      fx_write_results(p, &o) != 0)
    return 1;
  return 0;
}
