/* The results writers, checked by reading their output back: the versioned
 * document against docs/schema/results-v1.schema.json (with schema_check.c,
 * a validator for the subset the schema uses), the derived numbers against
 * hand-computed values, and the Google Benchmark document's shape. */
/* popen/pclose for running Google Benchmark's compare.py (Linux only). */
#define _POSIX_C_SOURCE 200809L
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "pf_json.h"
#include "pf_peer.h"
#include "platform.h"
#include "schema_check.h"

#include <stdlib.h>

static char *fake_argv[] = {"cuda_portfolio", "--json", "out.json", NULL};

static double *dup_samples(const double *x, size_t n) {
  double *p = malloc(n * sizeof *p);
  if (p != NULL)
    memcpy(p, x, n * sizeof *p);
  return p;
}

static int set_series(pf_series *s, const double *x, size_t n) {
  s->samples = dup_samples(x, n);
  s->n = n;
  s->warmup_s = 0.05;
  s->warmup_launches = 20;
  cm_strlcpy(s->stop_reason, "target_cv", sizeof s->stop_reason);
  return pf_stats_compute(s->samples, n, &s->stats);
}

/* A run with a measured copy ceiling of 4000 GB/s (1 GB copied both ways in
 * 0.5 ms), a softmax case with a cuDNN peer and a matmul case without one. */
static int make_results(pf_results *r) {
  static const double copy[] = {5.0e-4, 5.0e-4, 5.0e-4};
  static const double ours[] = {2.0e-4, 2.2e-4, 2.1e-4, 2.0e-4, 2.4e-4};
  static const double peer[] = {3.0e-4, 3.2e-4, 3.1e-4};
  static const double mm[] = {1.0e-3, 1.1e-3, 0.9e-3, 1.0e-3};
  static const double empty[] = {4.0e-6, 3.0e-6, 5.0e-6};
  pf_case_result *c;
  int rc;
  pf_results_init(r);
  pf_env_host(&r->env, 3, fake_argv);
  cm_strlcpy(r->env.gpu_name, "synthetic GPU", sizeof r->env.gpu_name);
  r->env.cc_major = 9;
  r->env.sm_count = 132;
  r->env.l2_bytes = 50 << 20;
  r->other_processes = 0;
  r->copy.measured = 1;
  r->copy.bytes = 1e9;
  rc = set_series(&r->copy.series, copy, 3);
  if (rc)
    return rc;
  r->copy.gbps = 2.0 * r->copy.bytes / r->copy.series.stats.median / 1e9;
  r->read.measured = 1;
  r->read.bytes = 1e9;
  rc = set_series(&r->read.series, copy, 3);
  if (rc)
    return rc;
  r->read.gbps = r->read.bytes / r->read.series.stats.median / 1e9;
  r->launch_floor.measured = 1;
  rc = set_series(&r->launch_floor.series, empty, 3);
  if (rc)
    return rc;

  rc = pf_results_add_case(r, &c);
  if (rc)
    return rc;
  cm_strlcpy(c->op, "softmax", sizeof c->op);
  cm_strlcpy(c->variant, "online", sizeof c->variant);
  cm_strlcpy(c->dtype, "bf16", sizeof c->dtype);
  cm_strlcpy(c->shape, "4096x4096", sizeof c->shape);
  c->dims[0] = c->dims[1] = 4096;
  c->ndims = 2;
  c->stride = 4096;
  c->logical_bytes = 2.0 * 4096 * 4096 * 2; /* read x, write y, 2 bytes */
  c->cold = 1;
  c->nsets = 4;
  c->passed = c->rechecked = c->recheck_passed = 1;
  c->max_abs_err = 1e-3;
  c->max_rel_err = 4e-3;
  c->rtol = 1.6e-2;
  c->atol = 1e-5;
  c->rounding_checked = 1; /* a bf16 row op: the rounding check ran */
  c->rounding.counted = 16777216;
  c->rounding.off = 2.5e-5;
  c->rounding.one_way = -0.125;
  c->before.sm_clock_ok = 1;
  c->before.sm_clock_mhz = 1980;
  c->before.reasons_ok = 1;
  c->before.reasons = PF_NVML_REASON_GPU_IDLE;
  c->after.reasons_ok = 1; /* read, none set */
  /* the violation counters read around the samples, and not grown */
  c->before.viol_ok = c->after.viol_ok = 1;
  c->before.viol_power_ns = c->after.viol_power_ns = 123456789012ULL;
  c->before.viol_thermal_ns = c->after.viol_thermal_ns = 42;
  c->viol_ok = 1;
  rc = set_series(&c->series, ours, 5);
  if (rc)
    return rc;
  c->peer.present = 1;
  cm_strlcpy(c->peer.name, "cudnnSoftmaxForward", sizeof c->peer.name);
  rc = set_series(&c->peer.series, peer, 3);
  if (rc)
    return rc;
  pf_case_derive(c, &r->copy, &r->read);

  rc = pf_results_add_case(r, &c);
  if (rc)
    return rc;
  cm_strlcpy(c->op, "matmul", sizeof c->op);
  cm_strlcpy(c->variant, "tensorcore", sizeof c->variant);
  cm_strlcpy(c->dtype, "f16", sizeof c->dtype);
  cm_strlcpy(c->shape, "4096x4096x4096", sizeof c->shape);
  c->dims[0] = c->dims[1] = c->dims[2] = 4096;
  c->ndims = 3;
  c->logical_bytes = 3.0 * 4096 * 4096 * 2;
  c->flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  c->cold = 1;
  c->nsets = 2;
  c->passed = 1;
  c->max_abs_err = NAN; /* unknown: must become null */
  c->before.reasons_ok = c->after.reasons_ok = 1;
  rc = set_series(&c->series, mm, 4);
  if (rc)
    return rc;
  cm_strlcpy(c->peer.name, "cublasGemmEx", sizeof c->peer.name);
  cm_strlcpy(c->peer.absent_reason, "cublasCreate failed: test",
             sizeof c->peer.absent_reason);
  pf_case_derive(c, &r->copy, &r->read);
  return pf_results_warn(r, "synthetic run: %d cases", 2);
}

static json_t *load_schema(void) {
  json_error_t e;
  json_t *s = json_load_file(CP_SCHEMA_PATH, 0, &e);
  if (s == NULL)
    fprintf(stderr, "%s:%d: %s\n", CP_SCHEMA_PATH, e.line, e.text);
  return s;
}

HELPER_IMPL(write_doc) {
  pf_results r;
  json_t *doc;
  int rc;
  if (argc < 1)
    return 2;
  rc = make_results(&r);
  doc = rc == CM_OK ? pf_json_document(&r) : NULL;
  rc = doc ? pf_json_write_file(doc, argv[0]) : 1;
  json_decref(doc);
  pf_results_free(&r);
  return rc == CM_OK ? 0 : 1;
}

TEST_IMPL(doc_roundtrip) {
  pf_results r;
  json_t *doc, *back, *c0, *t, *peer;
  json_error_t e;
  char path[1024];
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  ASSERT_TRUE(doc != NULL);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/doc.json", cm_test_tmpdir()));
  ASSERT_OK(pf_json_write_file(doc, path));
  json_decref(doc);
  back = json_load_file(path, 0, &e);
  ASSERT_TRUE(back != NULL);
  ASSERT_EQ(json_integer_value(json_object_get(back, "schema_version")), 1);
  c0 = json_array_get(json_object_get(back, "cases"), 0);
  t = json_object_get(c0, "timing");
  ASSERT_EQ(json_array_size(json_object_get(t, "samples_s")), 5);
  /* numbers are numbers, and survive the round trip exactly */
  ASSERT_TRUE(json_is_real(json_object_get(t, "median_s")));
  ASSERT_NEAR(json_real_value(json_object_get(t, "median_s")), 2.1e-4, 0);
  ASSERT_NEAR(
      json_real_value(json_array_get(json_object_get(t, "samples_s"), 4)),
      2.4e-4, 0);
  /* 2 * 1e9 bytes / 5e-4 s = 4000 GB/s */
  ASSERT_NEAR(json_real_value(json_object_get(json_object_get(back, "ceilings"),
                                              "copy_bandwidth_gbps")),
              4000.0, 1e-9);
  /* 1e9 bytes read in 5e-4 s: 2000 GB/s */
  ASSERT_NEAR(json_real_value(json_object_get(json_object_get(back, "ceilings"),
                                              "read_bandwidth_gbps")),
              2000.0, 1e-9);
  /* the launch floor is its series' median */
  ASSERT_NEAR(json_real_value(json_object_get(json_object_get(back, "ceilings"),
                                              "launch_floor_s")),
              4.0e-6, 0);
  ASSERT_EQ(json_array_size(json_object_get(
                json_object_get(json_object_get(back, "ceilings"),
                                "launch_floor_timing"),
                "samples_s")),
            3);
  /* ratio = peer median / ours = 3.1e-4 / 2.1e-4: > 1, ours faster */
  peer = json_object_get(c0, "peer");
  ASSERT_NEAR(json_real_value(json_object_get(peer, "ratio")), 3.1e-4 / 2.1e-4,
              1e-12);
  ASSERT_STR_EQ(json_string_value(json_object_get(peer, "name")),
                "cudnnSoftmaxForward");
  /* the rounding check's numbers, under correctness */
  t = json_object_get(json_object_get(c0, "correctness"), "rounding");
  ASSERT_EQ(json_integer_value(json_object_get(t, "counted")), 16777216);
  ASSERT_NEAR(json_real_value(json_object_get(t, "off_nearest")), 2.5e-5, 0);
  ASSERT_NEAR(json_real_value(json_object_get(t, "one_way")), -0.125, 0);
  /* 67108864 bytes / 2.1e-4 s, as GB/s, over 4000 GB/s */
  ASSERT_NEAR(json_real_value(json_object_get(json_object_get(c0, "throughput"),
                                              "fraction_of_copy_bw")),
              67108864.0 / 2.1e-4 / 1e9 / 4000.0, 1e-12);
  ASSERT_STR_EQ(
      json_string_value(json_array_get(
          json_object_get(json_object_get(back, "environment"), "argv"), 1)),
      "--json");
  json_decref(back);
  pf_results_free(&r);
  return 0;
}

TEST_IMPL(doc_validates) {
  pf_results r;
  json_t *doc, *schema;
  char err[512];
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  schema = load_schema();
  ASSERT_TRUE(doc != NULL && schema != NULL);
  if (schema_check(schema, doc, err, sizeof err))
    CM_TEST_FAIL_("schema: %s", err);
  json_decref(doc);
  json_decref(schema);
  pf_results_free(&r);
  return 0;
}

TEST_IMPL(doc_nulls_not_strings) {
  pf_results r;
  json_t *doc, *c1, *peer;
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  c1 = json_array_get(json_object_get(doc, "cases"), 1);
  ASSERT_TRUE(json_is_null(
      json_object_get(json_object_get(c1, "correctness"), "max_abs_err")));
  peer = json_object_get(c1, "peer");
  ASSERT_TRUE(json_is_false(json_object_get(peer, "present")));
  ASSERT_TRUE(json_is_null(json_object_get(peer, "ratio")));
  ASSERT_TRUE(json_is_null(json_object_get(peer, "median_s")));
  ASSERT_STR_EQ(json_string_value(json_object_get(peer, "absent_reason")),
                "cublasCreate failed: test");
  /* matmul: 2 * 4096^3 flop / 1e-3 s = 137.4 TFLOP/s */
  ASSERT_NEAR(json_real_value(
                  json_object_get(json_object_get(c1, "throughput"), "tflops")),
              2.0 * 4096.0 * 4096.0 * 4096.0 / 1e-3 / 1e12, 1e-9);
  ASSERT_STR_EQ(json_string_value(json_object_get(c1, "bound")), "compute");
  json_decref(doc);
  pf_results_free(&r);
  return 0;
}

/* The validator must be able to fail, or doc_validates proves nothing. */
TEST_IMPL(schema_rejects_bad) {
  pf_results r;
  json_t *doc, *schema, *t;
  char err[512];
  ASSERT_OK(make_results(&r));
  schema = load_schema();
  ASSERT_TRUE(schema != NULL);

  doc = pf_json_document(&r);
  json_object_del(doc, "instrumented");
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 1);
  ASSERT_CONTAINS(err, "instrumented");
  json_decref(doc);

  doc = pf_json_document(&r);
  t = json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                      "timing");
  json_object_set_new(t, "median_s", json_string("0.00021"));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 1);
  ASSERT_CONTAINS(err, "median_s");
  json_decref(doc);

  doc = pf_json_document(&r);
  t = json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                      "timing");
  json_array_append_new(json_object_get(t, "samples_s"), json_real(-1.0));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 1);
  ASSERT_CONTAINS(err, "below minimum");
  json_decref(doc);

  doc = pf_json_document(&r);
  json_object_set_new(doc, "schema_version", json_integer(2));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 1);
  json_decref(doc);

  /* the rounding check's one-way share is in [-1, 1] */
  doc = pf_json_document(&r);
  t = json_object_get(
      json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                      "correctness"),
      "rounding");
  json_object_set_new(t, "one_way", json_real(1.5));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 1);
  ASSERT_CONTAINS(err, "one_way");
  json_decref(doc);

  json_decref(schema);
  pf_results_free(&r);
  return 0;
}

/* settings.flush: how the cold samples flushed; null when hot. */
TEST_IMPL(settings_flush) {
  pf_results r;
  json_t *doc, *st;
  ASSERT_OK(make_results(&r));
  r.opts.cold = 0;
  doc = pf_json_document(&r);
  st = json_object_get(doc, "settings");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "cache")), "hot");
  ASSERT_TRUE(json_is_null(json_object_get(st, "flush")));
  json_decref(doc);
  r.opts.cold = 1;
  r.opts.flush = PF_FLUSH_WRITE;
  doc = pf_json_document(&r);
  st = json_object_get(doc, "settings");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "flush")), "write");
  json_decref(doc);
  r.opts.flush = PF_FLUSH_READ;
  doc = pf_json_document(&r);
  st = json_object_get(doc, "settings");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "flush")), "read");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "peer_sampling")),
                "interleaved"); /* the default */
  json_decref(doc);
  r.opts.peer_interleaved = 0;
  doc = pf_json_document(&r);
  st = json_object_get(doc, "settings");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "peer_sampling")),
                "sequential");
  json_decref(doc);
  pf_results_free(&r);
  return 0;
}

/* --lock-clocks is recorded in settings: null by default (the clocks as
 * found), the locked MHz otherwise (memory null when only the SM clocks
 * were locked); every form validates. */
TEST_IMPL(settings_clocks_locked) {
  pf_results r;
  json_t *doc, *st, *lk, *schema = load_schema();
  char err[512];
  ASSERT_TRUE(schema != NULL);
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  st = json_object_get(doc, "settings");
  ASSERT_TRUE(json_is_null(json_object_get(st, "clocks_locked")));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 0);
  json_decref(doc);
  r.opts.lock_sm_mhz = 1755;
  doc = pf_json_document(&r);
  lk = json_object_get(json_object_get(doc, "settings"), "clocks_locked");
  ASSERT_EQ(json_integer_value(json_object_get(lk, "sm_mhz")), 1755);
  ASSERT_TRUE(json_is_null(json_object_get(lk, "mem_mhz")));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 0);
  json_decref(doc);
  r.opts.lock_mem_mhz = 2619;
  doc = pf_json_document(&r);
  lk = json_object_get(json_object_get(doc, "settings"), "clocks_locked");
  ASSERT_EQ(json_integer_value(json_object_get(lk, "mem_mhz")), 2619);
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 0);
  /* A lock without its SM clock is not a valid record. */
  json_object_set_new(lk, "sm_mhz", json_integer(0));
  ASSERT_NE(schema_check(schema, doc, err, sizeof err), 0);
  json_decref(doc);
  json_decref(schema);
  pf_results_free(&r);
  return 0;
}

/* The matmul sampling limit in the settings and each case's sampled count
 * under correctness: null when not told or when every element was
 * compared, the integers otherwise, and the schema holds both forms. */
TEST_IMPL(settings_sampled) {
  pf_results r;
  json_t *doc, *cor, *schema = load_schema();
  char err[512];
  ASSERT_TRUE(schema != NULL);
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  ASSERT_TRUE(json_is_null(
      json_object_get(json_object_get(doc, "settings"), "sample_above_macs")));
  ASSERT_TRUE(json_is_null(
      json_object_get(json_object_get(doc, "settings"), "matmul_ref_tile")));
  cor = json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                        "correctness");
  ASSERT_TRUE(json_is_null(json_object_get(cor, "sampled")));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 0);
  json_decref(doc);
  r.opts.sample_above_macs = (int64_t)1 << 37;
  r.opts.matmul_ref_tile = "4x8";
  r.cases[0].sampled = 36848;
  doc = pf_json_document(&r);
  ASSERT_STR_EQ(json_string_value(json_object_get(
                    json_object_get(doc, "settings"), "matmul_ref_tile")),
                "4x8");
  ASSERT_TRUE(json_integer_value(json_object_get(
                  json_object_get(doc, "settings"), "sample_above_macs")) ==
              ((json_int_t)1 << 37));
  cor = json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                        "correctness");
  ASSERT_EQ(json_integer_value(json_object_get(cor, "sampled")), 36848);
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 0);
  /* a sample of no element is no record of a check */
  json_object_set_new(cor, "sampled", json_integer(0));
  ASSERT_NE(schema_check(schema, doc, err, sizeof err), 0);
  /* nor is a tile the reference does not have */
  json_object_set_new(cor, "sampled", json_integer(36848));
  ASSERT_EQ(schema_check(schema, doc, err, sizeof err), 0);
  json_object_set_new(json_object_get(doc, "settings"), "matmul_ref_tile",
                      json_string("8x8"));
  ASSERT_NE(schema_check(schema, doc, err, sizeof err), 0);
  json_decref(doc);
  json_decref(schema);
  pf_results_free(&r);
  return 0;
}

TEST_IMPL(suspicious_flag) {
  pf_ceiling copy;
  pf_case_result c;
  const double fast[] = {1e-5};
  memset(&copy, 0, sizeof copy);
  memset(&c, 0, sizeof c);
  copy.measured = 1;
  copy.gbps = 4000.0;
  /* 4e8 bytes at 4000 GB/s cannot take less than 1e-4 s */
  c.logical_bytes = 4e8;
  c.series.samples = (double *)fast;
  c.series.n = 1;
  c.series.stats.median = 0.5e-4;
  pf_case_derive(&c, &copy, NULL);
  ASSERT_EQ(c.suspicious, 1);
  ASSERT_CONTAINS(c.suspicious_reason, "roofline");
  ASSERT_NEAR(c.roofline_s, 1e-4, 1e-18);
  /* within the 3 % slack: not suspicious */
  c.series.stats.median = 0.98e-4;
  pf_case_derive(&c, &copy, NULL);
  ASSERT_EQ(c.suspicious, 0);
  /* no ceiling measured: no verdict, fraction unknown */
  copy.measured = 0;
  c.series.stats.median = 0.5e-4;
  pf_case_derive(&c, &copy, NULL);
  ASSERT_EQ(c.suspicious, 0);
  ASSERT_TRUE(isnan(c.fraction_of_copy_bw));
  return 0;
}

/* A kernel that mostly reads may beat the copy (read + write) rate: the
 * roofline is the faster of the copy and read ceilings. */
TEST_IMPL(suspicious_read_ceiling) {
  pf_ceiling copy, read;
  pf_case_result c;
  const double t[] = {0.94e-4};
  memset(&copy, 0, sizeof copy);
  memset(&read, 0, sizeof read);
  memset(&c, 0, sizeof c);
  copy.measured = 1;
  copy.gbps = 4000.0;
  read.measured = 1;
  read.gbps = 4400.0;
  c.logical_bytes = 4e8; /* 1e-4 s at the copy rate, 0.909e-4 s reading */
  c.series.samples = (double *)t;
  c.series.n = 1;
  c.series.stats.median = 0.94e-4; /* 1.06 of the copy rate */
  pf_case_derive(&c, &copy, NULL);
  ASSERT_EQ(c.suspicious, 1); /* against the copy alone: flagged */
  pf_case_derive(&c, &copy, &read);
  ASSERT_EQ(c.suspicious, 0); /* within the read rate */
  ASSERT_NEAR(c.roofline_s, 4e8 / 4400e9, 1e-18);
  ASSERT_NEAR(c.fraction_of_copy_bw, 4e8 / 0.94e-4 / 1e9 / 4000.0, 1e-12);
  c.series.stats.median = 0.85e-4; /* beats reading alone by 6.5 % */
  pf_case_derive(&c, &copy, &read);
  ASSERT_EQ(c.suspicious, 1);
  ASSERT_CONTAINS(c.suspicious_reason, "4400.0 GB/s");
  read.measured = 0; /* unmeasured read ceiling: the copy alone */
  c.series.stats.median = 0.94e-4;
  pf_case_derive(&c, &copy, &read);
  ASSERT_EQ(c.suspicious, 1);
  return 0;
}

TEST_IMPL(instrumented_not_clean) {
  pf_results r;
  json_t *doc;
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  ASSERT_TRUE(json_is_false(json_object_get(doc, "instrumented")));
  ASSERT_TRUE(json_is_true(json_object_get(doc, "clean")));
  json_decref(doc);

  r.markers.count = 1;
  cm_strlcpy(r.markers.names[0], "NSYS_PROFILING_SESSION_ID",
             sizeof r.markers.names[0]);
  doc = pf_json_document(&r);
  ASSERT_TRUE(json_is_true(json_object_get(doc, "instrumented")));
  ASSERT_TRUE(json_is_false(json_object_get(doc, "clean")));
  ASSERT_STR_EQ(json_string_value(json_array_get(
                    json_object_get(doc, "instrumentation_markers"), 0)),
                "NSYS_PROFILING_SESSION_ID");
  json_decref(doc);

  r.markers.count = 0;
  r.other_processes = -1; /* unknown is not clean either */
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.other_processes = 0;
  r.launch_knobs = 1; /* CPK_FUSED_PERSIST set: not the default kernels */
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.launch_knobs = 0;
  r.cases[0].throttled = 1;
  ASSERT_EQ(pf_results_clean(&r), 0);
  pf_results_free(&r);
  return 0;
}

/* Real captures from the GPU machine, CP_BENCH_FIXTURES_DIR
 * (results/h200/bench/ by default; CMake lists them at configure time). */
TEST_IMPL(fixtures_validate) {
  static const char list[] = CP_FIXTURES;
  json_t *schema;
  char path[1024], err[512];
  const char *p = list;
  int n = 0;
  if (list[0] == '\0') {
    fprintf(
        stderr,
        "no *.json under CP_BENCH_FIXTURES_DIR (results/h200/bench/) yet\n");
    return TEST_SKIP;
  }
  schema = load_schema();
  ASSERT_TRUE(schema != NULL);
  while (*p) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    json_error_t e;
    json_t *doc;
    ASSERT_TRUE(len < sizeof path);
    memcpy(path, p, len);
    path[len] = '\0';
    doc = json_load_file(path, 0, &e);
    if (doc == NULL)
      CM_TEST_FAIL_("%s:%d: %s", path, e.line, e.text);
    if (schema_check(schema, doc, err, sizeof err))
      CM_TEST_FAIL_("%s: %s", path, err);
    json_decref(doc);
    n++;
    p += len + (bar ? 1 : 0);
  }
  ASSERT_GT(n, 0);
  json_decref(schema);
  return 0;
}

TEST_IMPL(gbench_shape) {
  pf_results r;
  json_t *doc, *b, *row;
  size_t i, iter = 0, agg = 0;
  int saw_median = 0;
  ASSERT_OK(make_results(&r));
  doc = pf_gbench_document(&r);
  ASSERT_TRUE(json_is_object(json_object_get(doc, "context")));
  b = json_object_get(doc, "benchmarks");
  /* ours 5 + 4 aggregates, peer 3 + 4, matmul 4 + 4 */
  ASSERT_EQ(json_array_size(b), 5 + 4 + 3 + 4 + 4 + 4);
  json_array_foreach(b, i, row) {
    const char *rt = json_string_value(json_object_get(row, "run_type"));
    ASSERT_STR_EQ(json_string_value(json_object_get(row, "time_unit")), "us");
    ASSERT_TRUE(json_is_number(json_object_get(row, "real_time")));
    ASSERT_TRUE(json_is_number(json_object_get(row, "cpu_time")));
    ASSERT_TRUE(json_is_integer(json_object_get(row, "iterations")));
    ASSERT_TRUE(json_is_string(json_object_get(row, "run_name")));
    if (strcmp(rt, "iteration") == 0) {
      iter++;
    } else {
      ASSERT_STR_EQ(rt, "aggregate");
      agg++;
      if (strcmp(json_string_value(json_object_get(row, "name")),
                 "softmax/online/bf16/4096x4096_median") == 0) {
        saw_median = 1;
        ASSERT_NEAR(json_real_value(json_object_get(row, "real_time")), 210.0,
                    1e-9);
      }
    }
  }
  ASSERT_EQ(iter, 12);
  ASSERT_EQ(agg, 12);
  ASSERT_TRUE(saw_median);
  json_decref(doc);
  pf_results_free(&r);
  return 0;
}

TEST_IMPL(reason_names) {
  char buf[128];
  pf_nvml_reason_names(0, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "none");
  pf_nvml_reason_names(PF_NVML_REASON_SW_POWER_CAP | PF_NVML_REASON_HW_THERMAL,
                       buf, sizeof buf);
  ASSERT_STR_EQ(buf, "sw_power_cap,hw_thermal");
  pf_nvml_reason_names(0x10000ULL | PF_NVML_REASON_GPU_IDLE, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "gpu_idle,other_0x10000");
  ASSERT_EQ(pf_nvml_reasons_throttle(PF_NVML_REASON_GPU_IDLE |
                                     PF_NVML_REASON_APP_CLOCKS),
            0);
  ASSERT_EQ(pf_nvml_reasons_throttle(PF_NVML_REASON_HW_SLOWDOWN), 1);
  return 0;
}

/* The peers' table: which op has which library call, and why the others
 * have none (the names land in the JSON's peer.name). */
TEST_IMPL(peer_table) {
  ASSERT_STR_EQ(pf_peer_name("matmul"), "cublasGemmEx");
  ASSERT_STR_EQ(pf_peer_name("softmax"), "cudnnSoftmaxForward");
  ASSERT_STR_EQ(pf_peer_name("copy"), "cudaMemcpyAsync");
  ASSERT_TRUE(pf_peer_name("row_sum") == NULL);
  ASSERT_TRUE(pf_peer_name("copy_unmasked") == NULL);
  ASSERT_TRUE(pf_peer_name(NULL) == NULL);
  ASSERT_STR_EQ(pf_peer_absent_reason(NULL, "row_sum"),
                "no library peer for this op");
  ASSERT_STR_EQ(pf_peer_absent_reason(NULL, "copy"), "peers not initialised");
  /* the copy ceiling's buffer: 8 x L2, at least 64 MiB, whole 4 KiB pages */
  ASSERT_EQ(pf_peer_copy_bytes((size_t)60 << 20), (size_t)480 << 20);
  ASSERT_EQ(pf_peer_copy_bytes((size_t)1 << 20), (size_t)64 << 20);
  ASSERT_EQ(pf_peer_copy_bytes((size_t)10000000), (size_t)80003072);
  return 0;
}

/* Google Benchmark's own compare tool reads our --format gbench output:
 * /usr/share/benchmark/compare.py (Debian's libbenchmark-tools, run with
 * Debian's python3 and its scipy) compares a document with a copy whose
 * softmax times are 25 % longer, and must report exactly that change. */
static void scale_case(json_t *doc, const char *prefix, double k) {
  json_t *row;
  size_t i;
  json_array_foreach(json_object_get(doc, "benchmarks"), i, row) {
    const char *name = json_string_value(json_object_get(row, "name"));
    if (name == NULL || strncmp(name, prefix, strlen(prefix)) != 0 ||
        strstr(name, "peer") != NULL)
      continue;
    json_object_set_new(
        row, "real_time",
        json_real(json_number_value(json_object_get(row, "real_time")) * k));
    json_object_set_new(
        row, "cpu_time",
        json_real(json_number_value(json_object_get(row, "cpu_time")) * k));
  }
}

TEST_IMPL(gbench_compare_py) {
  static const char tool[] = "/usr/share/benchmark/compare.py";
  static const char py[] = "/usr/bin/python3";
  char a[1024], b[1024], cmd[3200], out[65536];
  pf_results r;
  json_t *doc;
  FILE *p;
  size_t n = 0;
  int status;
  if (!plat_path_exists(tool) || !plat_path_exists(py)) {
    printf("skip: %s (Debian's libbenchmark-tools) or %s not installed\n", tool,
           py);
    return TEST_SKIP;
  }
  ASSERT_OK(make_results(&r));
  doc = pf_gbench_document(&r);
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s/gbench-a.json", cm_test_tmpdir()));
  ASSERT_OK(cm_snprintf(b, sizeof b, "%s/gbench-b.json", cm_test_tmpdir()));
  ASSERT_EQ(json_dump_file(doc, a, JSON_INDENT(1)), 0);
  scale_case(doc, "softmax/online/bf16/4096x4096", 1.25);
  ASSERT_EQ(json_dump_file(doc, b, JSON_INDENT(1)), 0);
  json_decref(doc);
  pf_results_free(&r);
  ASSERT_OK(cm_snprintf(cmd, sizeof cmd,
                        "%s %s --no-color benchmarks '%s' '%s' 2>&1", py, tool,
                        a, b));
  p = popen(cmd, "r");
  ASSERT_TRUE(p != NULL);
  while (n + 1 < sizeof out && !feof(p)) {
    size_t got = fread(out + n, 1, sizeof out - 1 - n, p);
    if (got == 0)
      break;
    n += got;
  }
  out[n] = '\0';
  status = pclose(p);
  printf("%s", out);
  ASSERT_EQ(status, 0);
  ASSERT_CONTAINS(out, "softmax/online/bf16/4096x4096");
  ASSERT_CONTAINS(out, "+0.2500");
  ASSERT_CONTAINS(out, "matmul");
  return 0;
}

/* A case whose timing failed part-way (a launch error mid-series): some
 * samples are in, but no statistics were computed over them and nothing was
 * derived. The document must not present a median of 0 s, a rate of 0 GB/s
 * or a roofline verdict it never made: those are null, the document still
 * validates, and the run is not clean. */
TEST_IMPL(failed_case_nulls) {
  static const double part[] = {2.0e-4, 2.1e-4};
  pf_results r;
  pf_case_result *c;
  json_t *doc, *c2, *t, *thr, *b, *row, *schema = load_schema();
  char err[512];
  size_t i;
  ASSERT_TRUE(schema != NULL);
  ASSERT_OK(make_results(&r));
  ASSERT_OK(pf_results_add_case(&r, &c));
  cm_strlcpy(c->op, "softmax", sizeof c->op);
  cm_strlcpy(c->variant, "fused", sizeof c->variant);
  cm_strlcpy(c->dtype, "fp32", sizeof c->dtype);
  cm_strlcpy(c->shape, "4096x4096", sizeof c->shape);
  c->dims[0] = c->dims[1] = 4096;
  c->ndims = 2;
  c->stride = 4096;
  c->logical_bytes = 2.0 * 4096 * 4096 * 4;
  c->cold = 1;
  c->nsets = 3;
  c->passed = 0; /* what pf_bench_case records when timing fails */
  /* The samples taken before the failure, as sample_arms leaves them:
   * pushed, statistics never computed (zeroed). */
  c->series.samples = dup_samples(part, 2);
  ASSERT_TRUE(c->series.samples != NULL);
  c->series.n = 2;
  doc = pf_json_document(&r);
  c2 = json_array_get(json_object_get(doc, "cases"), 2);
  t = json_object_get(c2, "timing");
  thr = json_object_get(c2, "throughput");
  ASSERT_EQ(json_array_size(json_object_get(t, "samples_s")), 2);
  ASSERT_TRUE(json_is_null(json_object_get(t, "median_s")));
  ASSERT_TRUE(json_is_null(json_object_get(t, "min_s")));
  ASSERT_TRUE(json_is_null(json_object_get(t, "cv")));
  ASSERT_TRUE(json_is_null(json_object_get(thr, "gbps")));
  ASSERT_TRUE(json_is_null(json_object_get(thr, "fraction_of_copy_bw")));
  ASSERT_TRUE(json_is_null(json_object_get(thr, "roofline_s")));
  ASSERT_TRUE(json_is_false(
      json_object_get(json_object_get(c2, "correctness"), "passed")));
  ASSERT_TRUE(json_is_false(json_object_get(doc, "clean")));
  if (schema_check(schema, doc, err, sizeof err))
    CM_TEST_FAIL_("schema: %s", err);
  json_decref(doc);
  /* Google Benchmark's form: no aggregate rows of 0 us for that series. */
  doc = pf_gbench_document(&r);
  ASSERT_TRUE(
      json_is_false(json_object_get(json_object_get(doc, "context"), "clean")));
  b = json_object_get(doc, "benchmarks");
  json_array_foreach(b, i, row) {
    const char *name = json_string_value(json_object_get(row, "name"));
    ASSERT_TRUE(strncmp(name, "softmax/fused/fp32/4096x4096", 28) != 0);
  }
  json_decref(doc);
  json_decref(schema);
  pf_results_free(&r);
  return 0;
}

/* clean promises that nothing disturbed the timings: a case that failed
 * its recheck, or whose throttle reasons NVML could not read before or
 * after its samples (so that throttling cannot be ruled out), makes the
 * run not clean, as an unknown list of processes does. */
TEST_IMPL(unknown_not_clean) {
  pf_results r;
  ASSERT_OK(make_results(&r));
  ASSERT_EQ(pf_results_clean(&r), 1);
  r.cases[1].after.reasons_ok = 0;
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.cases[1].after.reasons_ok = 1;
  r.cases[0].recheck_passed = 0; /* outputs wrong after timing */
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.cases[0].recheck_passed = 1;
  r.cases[1].passed = 0; /* timing failed */
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.cases[1].passed = 1;
  ASSERT_EQ(pf_results_clean(&r), 1);
  r.ceilings_throttled = 1; /* every fraction rests on the ceilings */
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.ceilings_throttled = 0;
  r.unverified = 1; /* a case failed verification, so was never timed */
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.unverified = 0;
  /* a sequential peer whose after-reading NVML could not read: its
   * samples (and the peer ratio) may have been throttled */
  r.cases[1].peer_reasons_unread = 1;
  ASSERT_EQ(pf_results_clean(&r), 0);
  r.cases[1].peer_reasons_unread = 0;
  ASSERT_EQ(pf_results_clean(&r), 1);
  pf_results_free(&r);
  return 0;
}

/* A file from a run that stopped at an error (a case too big for the
 * device's memory, a CUDA error) held the cases before the stop and said
 * clean: true, as if it were the selection. It now says complete: false,
 * and the run is not clean; skipped cases (a variant this device lacks)
 * make it incomplete but leave clean alone. */
TEST_IMPL(incomplete_said) {
  pf_results r;
  json_t *doc;
  ASSERT_OK(make_results(&r));
  doc = pf_json_document(&r);
  ASSERT_TRUE(json_is_true(json_object_get(doc, "complete")));
  ASSERT_TRUE(json_is_true(json_object_get(doc, "clean")));
  json_decref(doc);
  r.not_timed = 3; /* skipped on this device */
  doc = pf_json_document(&r);
  ASSERT_TRUE(json_is_false(json_object_get(doc, "complete")));
  ASSERT_TRUE(json_is_true(json_object_get(doc, "clean")));
  json_decref(doc);
  r.stopped = 1; /* and the run stopped */
  doc = pf_json_document(&r);
  ASSERT_TRUE(json_is_false(json_object_get(doc, "complete")));
  ASSERT_TRUE(json_is_false(json_object_get(doc, "clean")));
  json_decref(doc);
  pf_results_free(&r);
  return 0;
}

/* NVML's violation counters in the file: each reading's cumulative ns, the
 * growth over the case and over the ceilings in us, null where they were
 * not read; and the schema holds both forms. */
TEST_IMPL(violation_json) {
  pf_results r;
  json_t *doc, *schema, *c0, *c1, *t, *v;
  char err[512];
  ASSERT_OK(make_results(&r));
  r.ceil_viol_ok = 1;
  r.ceil_viol_power_us = 0;
  r.ceil_viol_thermal_us = 0;
  doc = pf_json_document(&r);
  schema = load_schema();
  ASSERT_TRUE(doc != NULL && schema != NULL);
  if (schema_check(schema, doc, err, sizeof err))
    CM_TEST_FAIL_("schema: %s", err);
  c0 = json_array_get(json_object_get(doc, "cases"), 0);
  c1 = json_array_get(json_object_get(doc, "cases"), 1);
  t = json_object_get(c0, "timing");
  v = json_object_get(t, "throttle_time_us");
  ASSERT_TRUE(json_is_object(v));
  ASSERT_TRUE(json_real_value(json_object_get(v, "power")) == 0.0);
  v = json_object_get(json_object_get(t, "nvml_before"), "violation_ns");
  ASSERT_EQ((long long)json_integer_value(json_object_get(v, "power")),
            123456789012LL);
  ASSERT_EQ((long long)json_integer_value(json_object_get(v, "thermal")), 42);
  ASSERT_TRUE(json_is_null(json_object_get(
      json_object_get(json_object_get(c1, "timing"), "nvml_before"),
      "violation_ns")));
  ASSERT_TRUE(json_is_null(
      json_object_get(json_object_get(c1, "timing"), "throttle_time_us")));
  v = json_object_get(json_object_get(doc, "ceilings"), "throttle_time_us");
  ASSERT_TRUE(json_is_object(v));
  json_decref(doc);
  /* a negative growth is not a count the schema accepts */
  r.ceil_viol_power_us = -1;
  doc = pf_json_document(&r);
  ASSERT_TRUE(schema_check(schema, doc, err, sizeof err) != 0);
  json_decref(doc);
  json_decref(schema);
  pf_results_free(&r);
  return 0;
}
