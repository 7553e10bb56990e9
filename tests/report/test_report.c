/* test_report.c: the statistics and `repro compare` (no GPU, no files but
 * the fabricated results under the test's tmpdir). */
#include "cm_test.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "platform.h"
#include "report_fixture.h"
#include "rp_compare.h"
#include "rp_report_cli.h"
#include "rp_stats.h"
#include "rp_svg.h"

#include <math.h>
#include <stdlib.h>
#ifndef _WIN32
#include <sys/stat.h>
#endif

/* U and p checked by hand: a={1,2,3}, b={4,5,6}: R_a = 6, U_a = 0,
 * sigma^2 = 9/12*7 = 5.25, z = (0 - 4.5 + 0.5)/sqrt(5.25) = -1.7457,
 * p = erfc(1.7457/sqrt 2) = 0.080856. */
TEST_IMPL(mw_no_ties) {
  double a[] = {3, 1, 2}, b[] = {6, 4, 5};
  rp_mw m;
  ASSERT_OK(rp_mann_whitney(a, 3, b, 3, &m));
  ASSERT_NEAR(m.u_a, 0, 1e-12);
  ASSERT_NEAR(m.u_b, 9, 1e-12);
  ASSERT_NEAR(m.tie_term, 0, 1e-12);
  ASSERT_NEAR(m.z, -1.7457431218879391, 1e-9);
  ASSERT_NEAR(m.p, 0.0808555983700523, 1e-9);
  ASSERT_OK(rp_mann_whitney(b, 3, a, 3, &m));
  ASSERT_NEAR(m.u_a, 9, 1e-12);
  ASSERT_TRUE(m.z > 0);
  return 0;
}

/* a={1,2,2}, b={2,3,4}: mid-rank 3 for the three 2s, R_a = 1+3+3 = 7,
 * U_a = 1; tie term 3^3-3 = 24; sigma^2 = 9/12*(7 - 24/30) = 4.65;
 * z = (1 - 4.5 + 0.5)/sqrt(4.65) = -1.39122, p = 0.164160. */
TEST_IMPL(mw_ties) {
  double a[] = {2, 1, 2}, b[] = {4, 2, 3};
  rp_mw m;
  ASSERT_OK(rp_mann_whitney(a, 3, b, 3, &m));
  ASSERT_NEAR(m.u_a, 1, 1e-12);
  ASSERT_NEAR(m.tie_term, 24, 1e-12);
  ASSERT_NEAR(m.z, -1.3912166872805047, 1e-9);
  ASSERT_NEAR(m.p, 0.16415972847851523, 1e-9);
  return 0;
}

TEST_IMPL(mw_all_tied) {
  double a[] = {5, 5, 5}, b[] = {5, 5};
  rp_mw m;
  ASSERT_OK(rp_mann_whitney(a, 3, b, 2, &m));
  ASSERT_NEAR(m.p, 1, 0);
  ASSERT_NEAR(m.u_a, 3, 1e-12);
  ASSERT_EQ(rp_mann_whitney(a, 0, b, 2, &m), CM_EINVAL);
  return 0;
}

TEST_IMPL(five_number) {
  double odd[] = {5, 1, 4, 2, 3}, even[] = {4, 1, 3, 2};
  rp_five f;
  ASSERT_OK(rp_five_number(odd, 5, &f));
  ASSERT_NEAR(f.min, 1, 0);
  ASSERT_NEAR(f.q1, 2, 1e-12);
  ASSERT_NEAR(f.median, 3, 1e-12);
  ASSERT_NEAR(f.q3, 4, 1e-12);
  ASSERT_NEAR(f.max, 5, 0);
  ASSERT_OK(rp_five_number(even, 4, &f));
  ASSERT_NEAR(f.q1, 1.75, 1e-12);
  ASSERT_NEAR(f.median, 2.5, 1e-12);
  ASSERT_NEAR(f.q3, 3.25, 1e-12);
  ASSERT_EQ(rp_five_number(even, 0, &f), CM_EINVAL);
  ASSERT_NEAR(rp_geomean((double[]){1, 4}, 2), 2, 1e-12);
  ASSERT_TRUE(isnan(rp_geomean((double[]){1, -4}, 2)));
  {
    /* a box of equal subnormal samples: its axis span was a thousandth
     * of the value, 0, and every position 0 / 0 (x="-nan" in the SVG) */
    double sub[] = {5e-324, 5e-324, 5e-324};
    const char *label[] = {"subnormal"};
    rp__sb b;
    ASSERT_OK(rp_five_number(sub, 3, &f));
    rp__sb_init(&b);
    rp__svg_boxes(&b, "boxplots", "us", 1e6, label, &f, 1);
    ASSERT_OK(rp__sb_error(&b));
    ASSERT_CONTAINS(rp__sb_str(&b), "class=\"mark\"");
    ASSERT_TRUE(strstr(rp__sb_str(&b), "nan") == NULL);
    rp__sb_free(&b);
  }
  return 0;
}

TEST_IMPL(bootstrap) {
  double a[30], b[30];
  rp_boot x, y;
  int i;
  for (i = 0; i < 30; i++) {
    a[i] = 1.0 + 0.01 * (i % 7);
    b[i] = 1.2 * a[i];
  }
  ASSERT_OK(rp_bootstrap_median_ratio(a, 30, a, 30, 2000, 7, 0.95, &x));
  ASSERT_NEAR(x.ratio, 1, 1e-12);
  ASSERT_TRUE(x.lo <= 1 && x.hi >= 1);
  ASSERT_OK(rp_bootstrap_median_ratio(a, 30, b, 30, 2000, 7, 0.95, &x));
  ASSERT_NEAR(x.ratio, 1.2, 1e-12);
  ASSERT_TRUE(x.lo > 1.1 && x.hi < 1.3);
  /* Same seed, same interval: reports are reproducible. */
  ASSERT_OK(rp_bootstrap_median_ratio(a, 30, b, 30, 2000, 7, 0.95, &y));
  ASSERT_NEAR(x.lo, y.lo, 0);
  ASSERT_NEAR(x.hi, y.hi, 0);
  ASSERT_EQ(rp_bootstrap_median_ratio(a, 30, b, 30, 5, 7, 0.95, &y), CM_EINVAL);
  {
    /* the resamples' medians by selection, not a sort, give
     * the bits the sort gave: these are the sort's, printed with %.17g by
     * the code before the change, on odd and even counts with ties */
    double c[31], d[31];
    for (i = 0; i < 31; i++) {
      c[i] = 1.0 + 0.01 * (i % 7);
      d[i] = 1.2 * c[i] + 0.001 * (i % 5);
    }
    ASSERT_OK(rp_bootstrap_median_ratio(c, 31, d, 30, 2000, 7, 0.95, &y));
    ASSERT_TRUE(y.ratio == 1.2009708737864078);
    ASSERT_TRUE(y.lo == 1.1807692307692308);
    ASSERT_TRUE(y.hi == 1.2245098039215685);
  }
  {
    /* medians whose ratio overflows (1e308 s against 1e-4 s; a subnormal
     * base): an infinite ratio and interval, slower, where the interval
     * was NaN and compare said ambiguous, no regression, exit 0 */
    double big[30], sub[30], us[30];
    rp_mw m;
    rp_compare_opts o;
    char why[256];
    rp_compare_opts_init(&o);
    for (i = 0; i < 30; i++) {
      big[i] = 1e308 * (1.0 - 0.001 * (i % 7));
      sub[i] = 5e-324;
      us[i] = 1e-4 * a[i];
    }
    ASSERT_OK(rp_bootstrap_median_ratio(us, 30, big, 30, 2000, 7, 0.95, &y));
    ASSERT_TRUE(isinf(y.ratio) && isinf(y.lo) && isinf(y.hi));
    ASSERT_OK(rp_mann_whitney(big, 30, us, 30, &m));
    ASSERT_EQ(rp_verdict_decide(&y, &m, 30, 30, &o, why, sizeof why),
              RP_VERDICT_SLOWER);
    ASSERT_OK(rp_bootstrap_median_ratio(sub, 30, a, 30, 2000, 7, 0.95, &y));
    ASSERT_TRUE(isinf(y.ratio) && isinf(y.lo) && isinf(y.hi));
  }
  return 0;
}

TEST_IMPL(verdict_rules) {
  rp_compare_opts o;
  rp_boot b = {1.0, 0.99, 1.01, 2000};
  rp_mw m = {0, 0, 0, 0.5, 0};
  char why[256];
  rp_compare_opts_init(&o);
  ASSERT_EQ(rp_verdict_decide(&b, &m, 30, 30, &o, why, sizeof why),
            RP_VERDICT_SAME);
  ASSERT_EQ(rp_verdict_decide(&b, &m, 3, 30, &o, why, sizeof why),
            RP_VERDICT_AMBIGUOUS);
  ASSERT_CONTAINS(why, "too few");
  b = (rp_boot){1.2, 1.15, 1.25, 2000};
  m.p = 1e-6;
  ASSERT_EQ(rp_verdict_decide(&b, &m, 30, 30, &o, why, sizeof why),
            RP_VERDICT_SLOWER);
  /* The bootstrap says slower, the U test does not: ambiguous. */
  m.p = 0.2;
  ASSERT_EQ(rp_verdict_decide(&b, &m, 30, 30, &o, why, sizeof why),
            RP_VERDICT_AMBIGUOUS);
  b = (rp_boot){0.8, 0.75, 0.85, 2000};
  m.p = 1e-6;
  ASSERT_EQ(rp_verdict_decide(&b, &m, 30, 30, &o, why, sizeof why),
            RP_VERDICT_FASTER);
  /* Significant but smaller than the threshold and not inside it. */
  b = (rp_boot){1.03, 1.01, 1.07, 2000};
  ASSERT_EQ(rp_verdict_decide(&b, &m, 30, 30, &o, why, sizeof why),
            RP_VERDICT_AMBIGUOUS);
  return 0;
}

/* Writes a results file for opts into the tmpdir as name. */
static const char *results_file(const char *name, const fx_opts *o, char *buf,
                                size_t size) {
  if (cm_snprintf(buf, size, "%s/%s", cm_test_tmpdir(), name) != CM_OK ||
      fx_write_results(buf, o) != 0)
    return NULL;
  return buf;
}

static int load(const char *path, rp_results *r) {
  return rp_results_load_any(path, r);
}

TEST_IMPL(compare_same_run) {
  fx_opts o;
  char p[512];
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result res;
  char *argv[] = {"compare", p, p, NULL};
  fx_opts_init(&o);
  ASSERT_TRUE(results_file("same.json", &o, p, sizeof p) != NULL);
  ASSERT_OK(load(p, &a));
  ASSERT_OK(load(p, &b));
  rp_compare_opts_init(&co);
  ASSERT_OK(rp_compare(&a, &b, &co, &res));
  ASSERT_EQ(res.refused, 0);
  ASSERT_EQ(res.ncases, 4);
  ASSERT_EQ(res.counts[RP_VERDICT_SAME], 4);
  ASSERT_NEAR(res.geomean, 1, 1e-12);
  ASSERT_EQ(rp_compare_exit_code(&res), 0);
  rp_compare_result_free(&res);
  rp_results_free(&a);
  rp_results_free(&b);
  ASSERT_EQ(rp_compare_main(3, argv), 0);
  return 0;
}

/* Two clean runs of the same build: different noise, same verdict. */
TEST_IMPL(compare_two_clean_runs) {
  fx_opts o;
  char p1[512], p2[512];
  char *argv[] = {"compare", p1, p2, NULL};
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result res;
  fx_opts_init(&o);
  ASSERT_TRUE(results_file("run1.json", &o, p1, sizeof p1) != NULL);
  o.seed = 99;
  ASSERT_TRUE(results_file("run2.json", &o, p2, sizeof p2) != NULL);
  ASSERT_OK(load(p1, &a));
  ASSERT_OK(load(p2, &b));
  rp_compare_opts_init(&co);
  ASSERT_OK(rp_compare(&a, &b, &co, &res));
  ASSERT_EQ(res.counts[RP_VERDICT_SAME], 4);
  ASSERT_NEAR(res.geomean, 1, 0.01);
  rp_compare_result_free(&res);
  rp_results_free(&a);
  rp_results_free(&b);
  ASSERT_EQ(rp_compare_main(3, argv), 0);
  return 0;
}

TEST_IMPL(compare_slower) {
  fx_opts o;
  char p1[512], p2[512];
  char *argv[] = {"compare", p1, p2, NULL};
  char *back[] = {"compare", p2, p1, NULL};
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result res;
  fx_opts_init(&o);
  ASSERT_TRUE(results_file("base.json", &o, p1, sizeof p1) != NULL);
  o.scale = 1.2;
  o.seed = 5;
  ASSERT_TRUE(results_file("slow.json", &o, p2, sizeof p2) != NULL);
  ASSERT_OK(load(p1, &a));
  ASSERT_OK(load(p2, &b));
  rp_compare_opts_init(&co);
  ASSERT_OK(rp_compare(&a, &b, &co, &res));
  ASSERT_EQ(res.counts[RP_VERDICT_SLOWER], 4);
  ASSERT_NEAR(res.geomean, 1.2, 0.01);
  ASSERT_EQ(rp_compare_exit_code(&res), 1);
  rp_compare_result_free(&res);
  rp_results_free(&a);
  rp_results_free(&b);
  ASSERT_EQ(rp_compare_main(3, argv), 1);
  /* The other way round it is faster, which is no regression. */
  ASSERT_EQ(rp_compare_main(3, back), 0);
  return 0;
}

TEST_IMPL(compare_refuse_instrumented) {
  fx_opts o;
  char p1[512], p2[512];
  char *argv[] = {"compare", p1, p2, NULL};
  char *forced[] = {"compare", p1, p2, "--force", NULL};
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result res;
  fx_opts_init(&o);
  ASSERT_TRUE(results_file("clean.json", &o, p1, sizeof p1) != NULL);
  o.instrumented = 1;
  ASSERT_TRUE(results_file("instr.json", &o, p2, sizeof p2) != NULL);
  ASSERT_OK(load(p1, &a));
  ASSERT_OK(load(p2, &b));
  rp_compare_opts_init(&co);
  ASSERT_OK(rp_compare(&a, &b, &co, &res));
  ASSERT_EQ(res.refused, 1);
  ASSERT_CONTAINS(res.reasons, "instrumentation");
  ASSERT_EQ(rp_compare_exit_code(&res), 2);
  rp_compare_result_free(&res);
  ASSERT_EQ(rp_compare_main(3, argv), 2);
  /* --force compares; the samples are the same, so no regression. */
  ASSERT_EQ(rp_compare_main(4, forced), 0);
  /* Two instrumented results are compared, and the notes say what they
   * are (before, nothing did: "no regression" on profiled times). */
  ASSERT_OK(rp_compare(&b, &b, &co, &res));
  ASSERT_EQ(res.refused, 0);
  ASSERT_CONTAINS(res.notes, "both sides are instrumented results");
  rp_compare_result_free(&res);
  ASSERT_OK(rp_compare(&a, &a, &co, &res));
  ASSERT_TRUE(strstr(res.notes, "instrumented") == NULL);
  rp_compare_result_free(&res);
  rp_results_free(&a);
  rp_results_free(&b);
  return 0;
}

TEST_IMPL(compare_refuse_os_gpu) {
  fx_opts o;
  char p1[512], p2[512], p3[512];
  char *os_argv[] = {"compare", p1, p2, NULL};
  char *gpu_argv[] = {"compare", p1, p3, NULL};
  char *forced[] = {"compare", "--force", p1, p2, NULL};
  rp_results a, b;
  char why[1024];
  fx_opts_init(&o);
  ASSERT_TRUE(results_file("linux.json", &o, p1, sizeof p1) != NULL);
  o.os = "wsl";
  ASSERT_TRUE(results_file("wsl.json", &o, p2, sizeof p2) != NULL);
  o.os = "linux";
  o.gpu = "NVIDIA A100-SXM4-80GB";
  o.cc = "8.0";
  ASSERT_TRUE(results_file("a100.json", &o, p3, sizeof p3) != NULL);
  ASSERT_OK(load(p1, &a));
  ASSERT_OK(load(p2, &b));
  ASSERT_EQ(rp_compare_check(&a, &b, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "OS environments");
  ASSERT_CONTAINS(why, "wsl");
  rp_results_free(&b);
  ASSERT_OK(load(p3, &b));
  ASSERT_EQ(rp_compare_check(&a, &b, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "GPU models");
  ASSERT_CONTAINS(why, "compute capabilities");
  ASSERT_EQ(rp_compare_check(&a, &a, why, sizeof why), 1);
  ASSERT_STR_EQ(why, "");
  rp_results_free(&a);
  rp_results_free(&b);
  ASSERT_EQ(rp_compare_main(3, os_argv), 2);
  ASSERT_EQ(rp_compare_main(3, gpu_argv), 2);
  ASSERT_EQ(rp_compare_main(4, forced), 0);
  return 0;
}

/* Clocks locked in one run and as found in the other: refused (a
 * difference in time would be the clocks' as much as the kernels'). */
TEST_IMPL(compare_refuse_clock_locks) {
  fx_opts o;
  rp_results a, b;
  json_t *ja, *jb, *lk;
  char why[1024];
  fx_opts_init(&o);
  ja = fx_results(&o);
  jb = fx_results(&o);
  lk = json_object();
  json_object_set_new(lk, "sm_mhz", json_integer(1755));
  json_object_set_new(lk, "mem_mhz", json_null());
  json_object_set_new(json_object_get(jb, "settings"), "clocks_locked", lk);
  ASSERT_OK(rp_results_from_json(ja, &a));
  ASSERT_OK(rp_results_from_json(jb, &b));
  ASSERT_STR_EQ(a.clocks_locked, "");
  ASSERT_STR_EQ(b.clocks_locked, "SM 1755 MHz");
  ASSERT_EQ(rp_compare_check(&a, &b, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "clock locks");
  ASSERT_CONTAINS(why, "as found");
  ASSERT_CONTAINS(why, "SM 1755 MHz");
  ASSERT_EQ(rp_compare_check(&b, &b, why, sizeof why), 1);
  rp_results_free(&b);
  json_object_set_new(lk, "mem_mhz", json_integer(2619));
  ASSERT_OK(rp_results_from_json(jb, &b));
  ASSERT_STR_EQ(b.clocks_locked, "SM 1755 MHz, memory 2619 MHz");
  rp_results_free(&a);
  rp_results_free(&b);
  json_decref(ja);
  json_decref(jb);
  return 0;
}

/* A cold sample against a hot one, or the write flush against the read
 * flush: refused (the ratio would be the protocol's; `repro compare` of
 * the H200's bench-all.json and bench-all-read.json called 46 cases
 * faster before). A side that did not record its flush is compared, with
 * a note. */
TEST_IMPL(compare_refuse_protocol) {
  fx_opts o;
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result r;
  json_t *ja, *jb, *st;
  char why[1024];
  fx_opts_init(&o);
  ja = fx_results(&o);
  jb = fx_results(&o);
  st = json_object_get(jb, "settings");
  ASSERT_OK(rp_results_from_json(ja, &a));
  json_object_set_new(st, "flush", json_string("write"));
  ASSERT_OK(rp_results_from_json(jb, &b));
  ASSERT_EQ(rp_compare_check(&a, &b, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "L2 flushes");
  ASSERT_CONTAINS(why, "\"read\"");
  ASSERT_CONTAINS(why, "\"write\"");
  rp_results_free(&b);
  json_object_set_new(st, "cache", json_string("hot"));
  json_object_set_new(st, "flush", json_null());
  ASSERT_OK(rp_results_from_json(jb, &b));
  ASSERT_EQ(rp_compare_check(&a, &b, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "cache states");
  ASSERT_TRUE(strstr(why, "L2 flushes") == NULL);
  rp_results_free(&b);
  /* a file of the first versions: cold, no flush recorded */
  json_object_set_new(st, "cache", json_string("cold"));
  json_object_del(st, "flush");
  ASSERT_OK(rp_results_from_json(jb, &b));
  ASSERT_EQ(rp_compare_check(&a, &b, why, sizeof why), 1);
  rp_compare_opts_init(&co);
  memset(&r, 0, sizeof r);
  ASSERT_OK(rp_compare(&a, &b, &co, &r));
  ASSERT_EQ(r.refused, 0);
  ASSERT_CONTAINS(r.notes, "L2 flushes (one side not recorded)");
  rp_compare_result_free(&r);
  rp_results_free(&a);
  rp_results_free(&b);
  json_decref(ja);
  json_decref(jb);
  return 0;
}

/* A case sampled under a throttle reason on one side is compared and
 * marked, in the text, the JSON and the count. */
TEST_IMPL(compare_marks_throttled) {
  fx_opts o;
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result r;
  json_t *ja, *jb, *c0, *js;
  char *text;
  fx_opts_init(&o);
  ja = fx_results(&o);
  jb = fx_results(&o);
  c0 = json_array_get(json_object_get(jb, "cases"), 0);
  json_object_set_new(json_object_get(c0, "timing"), "throttled", json_true());
  ASSERT_OK(rp_results_from_json(ja, &a));
  ASSERT_OK(rp_results_from_json(jb, &b));
  rp_compare_opts_init(&co);
  memset(&r, 0, sizeof r);
  ASSERT_OK(rp_compare(&a, &b, &co, &r));
  ASSERT_GT(r.ncases, 1);
  ASSERT_EQ(r.nthrottled, 1);
  ASSERT_EQ(r.cases[0].throttled, RP_THROTTLED_NEW);
  ASSERT_EQ(r.cases[1].throttled, 0);
  text = rp_compare_text(&r, &co, "a.json", "b.json");
  ASSERT_TRUE(text != NULL);
  ASSERT_CONTAINS(text, "!NEW throttled");
  ASSERT_CONTAINS(text, "1 matched case(s) marked !");
  free(text);
  js = rp_compare_json(&r, &co, "a.json", "b.json");
  ASSERT_TRUE(json_is_true(json_object_get(
      json_array_get(json_object_get(js, "cases"), 0), "throttled_new")));
  ASSERT_EQ(json_integer_value(json_object_get(js, "throttled_cases")), 1);
  json_decref(js);
  rp_compare_result_free(&r);
  rp_results_free(&a);
  rp_results_free(&b);
  json_decref(ja);
  json_decref(jb);
  return 0;
}

TEST_IMPL(compare_json_and_unmatched) {
  fx_opts o;
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result res;
  json_t *doc, *c0;
  json_t *ja, *jb;
  fx_opts_init(&o);
  ja = fx_results(&o);
  jb = fx_results(&o);
  /* Drop NEW's last case and rename another: two unmatched each way. */
  json_array_remove(json_object_get(jb, "cases"), 3);
  json_object_set_new(json_array_get(json_object_get(jb, "cases"), 0),
                      "variant", json_string("scalar"));
  ASSERT_OK(rp_results_from_json(ja, &a));
  ASSERT_OK(rp_results_from_json(jb, &b));
  rp_compare_opts_init(&co);
  ASSERT_OK(rp_compare(&a, &b, &co, &res));
  ASSERT_EQ(res.ncases, 2);
  ASSERT_EQ(res.nonly_base, 2);
  ASSERT_EQ(res.nonly_new, 1);
  ASSERT_CONTAINS(res.only_new[0], "copy/scalar/");
  doc = rp_compare_json(&res, &co, "a", "b");
  ASSERT_TRUE(doc != NULL);
  ASSERT_EQ(json_integer_value(json_object_get(doc, "exit_code")), 0);
  ASSERT_EQ(json_array_size(json_object_get(doc, "cases")), 2);
  c0 = json_array_get(json_object_get(doc, "cases"), 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(c0, "verdict")), "same");
  ASSERT_TRUE(json_is_real(json_object_get(c0, "p")));
  ASSERT_TRUE(json_is_real(json_object_get(doc, "geomean_ratio")));
  ASSERT_EQ(json_array_size(json_object_get(doc, "only_in_base")), 2);
  json_decref(doc);
  rp_compare_result_free(&res);
  rp_results_free(&b);
  /* No case in common: refused (exit 2), with or without --force, rather
   * than "no regression" on nothing */
  json_array_clear(json_object_get(jb, "cases"));
  ASSERT_OK(rp_results_from_json(jb, &b));
  co.force = 1;
  ASSERT_OK(rp_compare(&a, &b, &co, &res));
  ASSERT_EQ(res.ncases, 0);
  ASSERT_EQ(res.refused, 1);
  ASSERT_EQ(rp_compare_exit_code(&res), 2);
  ASSERT_CONTAINS(res.reasons, "no case in common (BASE 4 case(s), NEW 0)");
  {
    char *text = rp_compare_text(&res, &co, "a", "b");
    ASSERT_TRUE(text != NULL);
    ASSERT_CONTAINS(text, "refused: BASE and NEW have no case in common");
    ASSERT_TRUE(strstr(text, "--force") == NULL);
    free(text);
  }
  rp_compare_result_free(&res);
  rp_results_free(&a);
  rp_results_free(&b);
  json_decref(ja);
  json_decref(jb);
  return 0;
}

TEST_IMPL(compare_usage) {
  char *none[] = {"compare", NULL};
  char *bad[] = {"compare", "a", "b", "--threshold", "150%", NULL};
  char *missing[] = {"compare", "/nonexistent/a.json", "/nonexistent/b", NULL};
  char *fmt[] = {"compare", "a", "b", "--format", "xml", NULL};
  ASSERT_EQ(rp_compare_main(1, none), 2);
  ASSERT_EQ(rp_compare_main(5, bad), 2);
  ASSERT_EQ(rp_compare_main(3, missing), 2);
  ASSERT_EQ(rp_compare_main(5, fmt), 2);
#ifndef _WIN32
  {
    /* a FIFO: refused at once (opening it to look for gzip's magic waited
     * for a writer for ever) */
    char fifo[700];
    char *pipe_args[] = {"compare", fifo, fifo, NULL};
    rp_results r;
    ASSERT_OK(cm_snprintf(fifo, sizeof fifo, "%s/cmp-fifo", cm_test_tmpdir()));
    ASSERT_OK(plat_mkdir_p(cm_test_tmpdir()));
    remove(fifo);
    ASSERT_EQ(mkfifo(fifo, 0600), 0);
    ASSERT_EQ(rp_results_load_any(fifo, &r), CM_EINVAL);
    ASSERT_EQ(rp_compare_main(3, pipe_args), 2);
    remove(fifo);
  }
#endif
  return 0;
}

/* A run folder as BASE and NEW: its results/clean/ are used. */
TEST_IMPL(compare_run_folders) {
  char d[512];
  char *argv[] = {"compare", d, d, "--format", "json", NULL};
  rp_results r;
  ASSERT_OK(cm_snprintf(d, sizeof d, "%s/cmp-run", cm_test_tmpdir()));
  ASSERT_EQ(fx_make_run(d), 0);
  ASSERT_OK(rp_results_load_any(d, &r));
  ASSERT_EQ(r.instrumented, 0);
  ASSERT_EQ(r.ncases, 4);
  rp_results_free(&r);
  ASSERT_EQ(rp_compare_main(5, argv), 0);
  return 0;
}

/* A results document of another schema_version (42, none, "one") was
 * read as if it were version 1: refused now, the version found named. */
TEST_IMPL(results_schema_version) {
  fx_opts o;
  rp_results r;
  json_t *doc;
  char why[512], p1[512], p2[512];
  char *argv[] = {"compare", p1, p2, NULL};
  size_t k;
  static const char *const want[] = {"schema_version 42", "no schema_version",
                                     "schema_version \"one\" (a string)"};
  fx_opts_init(&o);
  for (k = 0; k < 3; k++) {
    doc = fx_results(&o);
    if (k == 0)
      json_object_set_new(doc, "schema_version", json_integer(42));
    else if (k == 1)
      json_object_del(doc, "schema_version");
    else
      json_object_set_new(doc, "schema_version", json_string("one"));
    ASSERT_EQ(rp_results_from_json(doc, &r), CM_ENOTSUP);
    rp_results_free(&r);
    ASSERT_EQ(rp_results_version(doc, why, sizeof why), CM_ENOTSUP);
    ASSERT_CONTAINS(why, want[k]);
    ASSERT_CONTAINS(why, "reads only schema_version 1");
    json_decref(doc);
  }
  /* through compare: a file of version 42 against one of version 1 */
  ASSERT_TRUE(results_file("v1.json", &o, p1, sizeof p1) != NULL);
  ASSERT_OK(cm_snprintf(p2, sizeof p2, "%s/v42.json", cm_test_tmpdir()));
  doc = fx_results(&o);
  json_object_set_new(doc, "schema_version", json_integer(42));
  ASSERT_OK(cm_json_dump_file(doc, p2, 0));
  json_decref(doc);
  ASSERT_EQ(rp_results_load_any(p2, &r), CM_ENOTSUP);
  rp_results_free(&r);
  ASSERT_EQ(rp_compare_main(3, argv), 2);
  return 0;
}

/* correctness.sampled as the model reads it: an integer as it is; a real
 * that holds an integer likewise; a real past what a double holds exactly
 * and a string are not a count (0: the note is not printed). For 1e300
 * the model cast the real to int64 before it checked the range, undefined
 * behaviour (x86 gives INT64_MIN, which the clamp to 0 hid, so this test
 * passed then too: it pins the answer, the range check removes the cast). */
TEST_IMPL(results_sampled_read) {
  fx_opts o;
  rp_results r;
  json_t *doc, *cor;
  size_t k;
  static const struct {
    double real; /* < 0: an integer 102358; 0: a string */
    int64_t want;
  } cases[] = {{-1, 102358}, {4096.0, 4096}, {1e300, 0}, {-1e300, 0}, {0, 0}};
  fx_opts_init(&o);
  for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    doc = fx_results(&o);
    cor = json_object_get(json_array_get(json_object_get(doc, "cases"), 2),
                          "correctness");
    if (cases[k].real == -1)
      json_object_set_new(cor, "sampled", json_integer(102358));
    else if (cases[k].real == 0)
      json_object_set_new(cor, "sampled", json_string("many"));
    else
      json_object_set_new(cor, "sampled", json_real(cases[k].real));
    ASSERT_OK(rp_results_from_json(doc, &r));
    ASSERT_TRUE(r.ncases > 2);
    if (r.cases[2].sampled != cases[k].want)
      CM_TEST_FAIL_("case %lu: sampled %lld, want %lld", (unsigned long)k,
                    (long long)r.cases[2].sampled, (long long)cases[k].want);
    ASSERT_TRUE(r.cases[0].sampled == 0); /* the fixture's null */
    rp_results_free(&r);
    json_decref(doc);
  }
  return 0;
}

/* A run without clean results: compare read every
 * JSON file of results/instrumented/, profile-ncu.json and profile-nsys.json
 * before time.json, and the first file's case won: profiled timings
 * compared as the time stage's. Only time.json is read now; a run with
 * the profile stage's results alone has no timings to compare. */
TEST_IMPL(compare_no_profile_mix) {
  fx_opts o;
  char a[512], b[512], p[700];
  rp_results r;
  char *argv[] = {"compare", a, b, "--force", NULL};
  fx_opts_init(&o);
  o.instrumented = 1;
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s/mix-a/results/instrumented",
                        cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(a));
  ASSERT_OK(cm_snprintf(b, sizeof b, "%s/mix-b/results/instrumented",
                        cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(b));
  /* the profiled runs ten times slower than the timed ones */
  o.scale = 10;
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/profile-ncu.json", a));
  ASSERT_EQ(fx_write_results(p, &o), 0);
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/profile-nsys.json", b));
  ASSERT_EQ(fx_write_results(p, &o), 0);
  o.scale = 1;
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/time.json", a));
  ASSERT_EQ(fx_write_results(p, &o), 0);
  o.seed = 7;
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/time.json", b));
  ASSERT_EQ(fx_write_results(p, &o), 0);
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s/mix-a", cm_test_tmpdir()));
  ASSERT_OK(cm_snprintf(b, sizeof b, "%s/mix-b", cm_test_tmpdir()));
  ASSERT_OK(rp_results_load_any(a, &r));
  ASSERT_EQ(r.ncases, 4); /* time.json's, not eight */
  ASSERT_NEAR(r.cases[0].median_s, 34e-6, 1e-9);
  rp_results_free(&r);
  /* the time stage's against the time stage's: the same */
  ASSERT_EQ(rp_compare_main(4, argv), 0);
  /* the profile stage's alone: nothing to compare */
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/results/instrumented/time.json", b));
  ASSERT_EQ(remove(p), 0);
  ASSERT_EQ(rp_results_load_any(b, &r), CM_ENOENT);
  ASSERT_EQ(rp_compare_main(4, argv), 2);
  return 0;
}

/* Real data: back-to-back H200 runs (same build, same card, minutes apart)
 * must compare as "same" in every case, pairwise, with exit code 0: the three
 * runs of the v2 kernels (results/h200/history/v2-2026-11-29T1201/), and the
 * two each of the v3 and v4b runs (history/v3-2026-11-29T1349/,
 * history/v4b-2026-11-29T1456/). The same data with one case's
 * samples made 20 % slower must be "slower" there (exit 1). */
TEST_IMPL(compare_h200_back_to_back) {
  static const char *const runs[] = {
      CM_SOURCE_DIR "/results/h200/history/v2-2026-11-29T1201/bench/b2b-1.json",
      CM_SOURCE_DIR "/results/h200/history/v2-2026-11-29T1201/bench/b2b-2.json",
      CM_SOURCE_DIR
      "/results/h200/history/v2-2026-11-29T1201/bench/b2b-3.json"};
  static const char *const final_runs[][2] = {
      {CM_SOURCE_DIR
       "/results/h200/history/v4b-2026-11-29T1456/bench/b2b-1.json",
       CM_SOURCE_DIR
       "/results/h200/history/v4b-2026-11-29T1456/bench/b2b-2.json"},
      {CM_SOURCE_DIR
       "/results/h200/history/v3-2026-11-29T1349/bench/b2b-1.json",
       CM_SOURCE_DIR
       "/results/h200/history/v3-2026-11-29T1349/bench/b2b-2.json"}};
  rp_results r[3], f[2];
  rp_compare_opts o;
  rp_compare_result c;
  int i, j, p;
  size_t k;
  rp_compare_opts_init(&o);
  for (i = 0; i < 3; i++) {
    memset(&r[i], 0, sizeof r[i]);
    ASSERT_OK(rp_results_load_any(runs[i], &r[i]));
    ASSERT_EQ(r[i].ncases, 6);
  }
  for (i = 0; i < 3; i++)
    for (j = i + 1; j < 3; j++) {
      ASSERT_OK(rp_compare(&r[i], &r[j], &o, &c));
      ASSERT_EQ(c.refused, 0);
      ASSERT_EQ(c.ncases, 6);
      ASSERT_EQ(c.counts[RP_VERDICT_SAME], 6);
      ASSERT_EQ(rp_compare_exit_code(&c), 0);
      rp_compare_result_free(&c);
    }
  /* The first case of run 3, every sample 20 % longer. */
  for (k = 0; k < r[2].cases[0].n; k++)
    r[2].cases[0].samples[k] *= 1.2;
  ASSERT_OK(rp_compare(&r[0], &r[2], &o, &c));
  ASSERT_EQ(c.cases[0].verdict, RP_VERDICT_SLOWER);
  ASSERT_EQ(c.counts[RP_VERDICT_SAME], 5);
  ASSERT_EQ(rp_compare_exit_code(&c), 1);
  rp_compare_result_free(&c);
  for (i = 0; i < 3; i++)
    rp_results_free(&r[i]);
  for (p = 0; p < 2; p++) {
    for (i = 0; i < 2; i++) {
      memset(&f[i], 0, sizeof f[i]);
      ASSERT_OK(rp_results_load_any(final_runs[p][i], &f[i]));
      ASSERT_EQ(f[i].ncases, 6);
    }
    ASSERT_OK(rp_compare(&f[0], &f[1], &o, &c));
    ASSERT_EQ(c.refused, 0);
    ASSERT_EQ(c.ncases, 6);
    ASSERT_EQ(c.counts[RP_VERDICT_SAME], 6);
    ASSERT_EQ(rp_compare_exit_code(&c), 0);
    rp_compare_result_free(&c);
    for (i = 0; i < 2; i++)
      rp_results_free(&f[i]);
  }
  return 0;
}
