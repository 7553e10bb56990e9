/* Tests of rp_ncu_parse (real ncu captures from the H200) and rp_nsys_check
 * (files laid out the way nsys leaves them). */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "fixture.h"
#include "platform.h"
#include "rp_ncu_parse.h"
#include "rp_nsys_check.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Every profiled launch carries sane key metrics. */
static int check_rows(const rp_ncu_table *t) {
  size_t i;
  ASSERT_GT(t->count, 0);
  for (i = 0; i < t->count; i++) {
    const rp_ncu_row *r = &t->rows[i];
    ASSERT_TRUE(r->kernel[0] != '\0');
    ASSERT_GE(r->id, 0);
    ASSERT_TRUE(r->duration_ns > 0);
    ASSERT_TRUE(r->occupancy_pct > 0 && r->occupancy_pct <= 100.0);
    ASSERT_TRUE(r->dram_pct >= 0 && r->dram_pct <= 100.0);
    ASSERT_TRUE(r->registers >= 1 && r->registers <= 255);
  }
  return 0;
}

TEST_IMPL(ncu_raw_real) {
  char *text;
  size_t len;
  rp_ncu_table t;
  json_t *j;
  FX_LOAD("ncu_raw.txt", &text, &len);
  ASSERT_OK(rp_ncu_parse_csv(text, len, &t));
  if (check_rows(&t))
    return 1;
  j = rp_ncu_table_json(&t);
  ASSERT_EQ(json_array_size(j), t.count);
  ASSERT_TRUE(json_real_value(
                  json_object_get(json_array_get(j, 0), "duration_ns")) > 0);
  json_decref(j);
  rp_ncu_table_free(&t);
  free(text);
  return 0;
}

TEST_IMPL(ncu_details_real) {
  char *text;
  size_t len;
  rp_ncu_table t;
  FX_LOAD("ncu_details.txt", &text, &len);
  ASSERT_OK(rp_ncu_parse_csv(text, len, &t));
  if (check_rows(&t))
    return 1;
  rp_ncu_table_free(&t);
  free(text);
  return 0;
}

/* The two pages of one report describe the same launches. */
TEST_IMPL(ncu_pages_agree) {
  char *raw, *det;
  size_t rl, dl, i;
  rp_ncu_table a, b;
  FX_LOAD("ncu_raw.txt", &raw, &rl);
  FX_LOAD("ncu_details.txt", &det, &dl);
  ASSERT_OK(rp_ncu_parse_csv(raw, rl, &a));
  ASSERT_OK(rp_ncu_parse_csv(det, dl, &b));
  ASSERT_EQ(a.count, b.count);
  for (i = 0; i < a.count; i++) {
    ASSERT_EQ(a.rows[i].id, b.rows[i].id);
    ASSERT_NEAR(a.rows[i].registers, b.rows[i].registers, 0.5);
    /* details rounds for display: agree to 2 % */
    ASSERT_NEAR(a.rows[i].duration_ns, b.rows[i].duration_ns,
                0.02 * a.rows[i].duration_ns + 1.0);
  }
  rp_ncu_table_free(&a);
  rp_ncu_table_free(&b);
  free(raw);
  free(det);
  return 0;
}

TEST_IMPL(ncu_console_ok) {
  char *text;
  size_t len;
  char line[512];
  FX_LOAD("ncu_profile_console.txt", &text, &len);
  ASSERT_CONTAINS(text, "==PROF==");
  ASSERT_EQ(rp_ncu_scan_output(text, len, line, sizeof line), RP_NCU_OK);
  ASSERT_STR_EQ(line, "");
  free(text);
  return 0;
}

TEST_IMPL(ncu_noperm_detected) {
  char *text;
  size_t len;
  char line[512];
  FX_LOAD("ncu_noperm.txt", &text, &len);
  ASSERT_EQ(rp_ncu_scan_output(text, len, line, sizeof line),
            RP_NCU_NO_PERMISSION);
  ASSERT_CONTAINS(line, "ERR_NVGPUCTRPERM");
  free(text);
  return 0;
}

/* Console output is not a CSV export: refused, not read as zero rows. */
TEST_IMPL(ncu_console_is_not_csv) {
  char *text;
  size_t len;
  rp_ncu_table t;
  FX_LOAD("ncu_profile_console.txt", &text, &len);
  ASSERT_EQ(rp_ncu_parse_csv(text, len, &t), CM_EPARSE);
  ASSERT_EQ(t.count, 0);
  free(text);
  return 0;
}

/* Only ncu's launch numbers (0, 1, 2...) in the first "ID" column make
 * rows: a second "ID" column, a value past long's range (once converted
 * with undefined behaviour: the fuzz target found it), a negative or
 * fractional one, and a short record are skipped or read as they stand. */
TEST_IMPL(ncu_ids_not_launches) {
  static const char csv[] =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"ID\"\n"
      "\"\",\"\",\"nsecond\",\"\"\n"
      "\"0\",\"k0\",\"100\",\"5\"\n"
      "\"1e300\",\"big\",\"1\",\"x\"\n"
      "\"-3\",\"neg\",\"1\",\"x\"\n"
      "\"2.5\",\"frac\",\"1\",\"x\"\n"
      "\"1\",\"k1\"\n";
  rp_ncu_table t;
  ASSERT_EQ(rp_ncu_parse_csv(csv, sizeof csv - 1, &t), CM_OK);
  ASSERT_EQ(t.count, 2);
  ASSERT_EQ(t.rows[0].id, 0);
  ASSERT_STR_EQ(t.rows[0].kernel, "k0");
  ASSERT_TRUE(t.rows[0].duration_ns == 100.0);
  ASSERT_EQ(t.rows[1].id, 1);
  ASSERT_STR_EQ(t.rows[1].kernel, "k1");
  rp_ncu_table_free(&t);
  return 0;
}

static int put_file(const char *dir, const char *name, const char *data) {
  char path[1024];
  FILE *f;
  if (cm_snprintf(path, sizeof path, "%s/%s", dir, name) != 0)
    return 1;
  f = fopen(path, "wb");
  if (f == NULL)
    return 1;
  fputs(data, f);
  return fclose(f) != 0;
}

static int fresh_dir(const char *leaf, char *buf, size_t size) {
  if (cm_snprintf(buf, size, "%s/%s", cm_test_tmpdir(), leaf) != 0)
    return 1;
  return plat_mkdir_p(buf) != 0;
}

TEST_IMPL(nsys_report_ok) {
  char dir[1024];
  rp_nsys_result r;
  ASSERT_EQ(fresh_dir("nsys-ok", dir, sizeof dir), 0);
  ASSERT_EQ(put_file(dir, "timeline.qdstrm", "raw"), 0);
  ASSERT_EQ(put_file(dir, "timeline.nsys-rep", "report"), 0);
  ASSERT_OK(rp_nsys_check(dir, "timeline", &r));
  ASSERT_EQ(r.outcome, RP_NSYS_REPORT);
  ASSERT_EQ(r.report_bytes, 6);
  ASSERT_CONTAINS(r.report, "timeline.nsys-rep");
  ASSERT_STR_EQ(rp_nsys_outcome_name(r.outcome), "ok");
  return 0;
}

/* What the H200 leaves: a capture, no report, exit 0. */
TEST_IMPL(nsys_qdstrm_only_limited) {
  char dir[1024];
  rp_nsys_result r;
  ASSERT_EQ(fresh_dir("nsys-qd", dir, sizeof dir), 0);
  ASSERT_EQ(put_file(dir, "timeline.qdstrm", "raw capture"), 0);
  ASSERT_EQ(put_file(dir, "timeline.nsys-rep", ""), 0); /* empty: no report */
  ASSERT_OK(rp_nsys_check(dir, "timeline", &r));
  ASSERT_EQ(r.outcome, RP_NSYS_QDSTRM_ONLY);
  ASSERT_STR_EQ(r.report, "");
  ASSERT_STR_EQ(r.reason,
                "nsys wrote a .qdstrm but no report (importer missing)");
  ASSERT_STR_EQ(rp_nsys_outcome_name(r.outcome), "limited");
  return 0;
}

TEST_IMPL(nsys_nothing_failed) {
  char dir[1024];
  rp_nsys_result r;
  ASSERT_EQ(fresh_dir("nsys-none", dir, sizeof dir), 0);
  ASSERT_EQ(put_file(dir, "other.nsys-rep", "not ours"), 0);
  ASSERT_OK(rp_nsys_check(dir, "timeline", &r));
  ASSERT_EQ(r.outcome, RP_NSYS_NOTHING);
  ASSERT_STR_EQ(rp_nsys_outcome_name(r.outcome), "failed");
  ASSERT_EQ(rp_nsys_check(dir, "", &r), CM_EINVAL);
  return 0;
}
