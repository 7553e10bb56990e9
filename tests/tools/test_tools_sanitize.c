/* Tests of rp_sanitize_parse against real compute-sanitizer captures from
 * the H200: cuda_portfolio's own (tests/fixtures/tools/sanitize_*.txt, see
 * the README there; they skip while still placeholders) and the probe
 * program's (tests/fixtures/h200-probe/, always present). */
#include "cm_test.h"
#include "cm_error.h"
#include "fixture.h"
#include "rp_sanitize_parse.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Every smoke run must parse as a finished, clean run with exit 0. */
static int clean_run(const char *name) {
  char *text;
  size_t len;
  rp_san_report r;
  char why[1024];
  int code;
  FX_LOAD(name, &text, &len);
  ASSERT_OK(rp_san_parse(text, len, &r));
  code = fx_exit_code(text);
  ASSERT_EQ(r.tool_failed, 0);
  /* racecheck ends with RACECHECK SUMMARY instead of ERROR SUMMARY */
  if (strstr(name, "racecheck") != NULL)
    ASSERT_EQ(r.hazards, 0);
  else
    ASSERT_EQ(r.error_summary, 0);
  ASSERT_EQ(r.count, 0);
  ASSERT_TRUE(r.hazards <= 0);
  if (code >= 0)
    ASSERT_EQ(code, 0);
  ASSERT_EQ(rp_san_verdict_clean(&r, code < 0 ? 0 : code, 86, why, sizeof why),
            1);
  /* The binary's banner is in the same stream: the exact allocator. */
  ASSERT_CONTAINS(text, "[cuda_portfolio]");
  ASSERT_CONTAINS(text, "allocator=exact");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(san_memcheck_smoke_clean) {
  return clean_run("sanitize_memcheck_smoke.txt");
}
TEST_IMPL(san_racecheck_smoke_clean) {
  return clean_run("sanitize_racecheck_smoke.txt");
}
TEST_IMPL(san_initcheck_smoke_clean) {
  return clean_run("sanitize_initcheck_smoke.txt");
}
TEST_IMPL(san_synccheck_smoke_clean) {
  return clean_run("sanitize_synccheck_smoke.txt");
}

TEST_IMPL(san_negative_caught) {
  char *text;
  size_t len;
  rp_san_report r;
  char why[1024];
  const rp_san_finding *f = NULL;
  size_t i;
  int code;
  FX_LOAD("sanitize_memcheck_negative.txt", &text, &len);
  ASSERT_OK(rp_san_parse(text, len, &r));
  code = fx_exit_code(text);
  ASSERT_EQ(code, 86);
  ASSERT_EQ(r.tool_failed, 0);
  ASSERT_GE(r.error_summary, 1);
  ASSERT_EQ(rp_san_verdict_negative(&r, code, 86, why, sizeof why), 1);
  ASSERT_CONTAINS(why, "Invalid __global__ write");
  for (i = 0; i < r.count && f == NULL; i++)
    if (strstr(r.items[i].kind, "Invalid __global__ write") != NULL)
      f = &r.items[i];
  ASSERT_TRUE(f != NULL);
  ASSERT_EQ(f->cls, RP_SAN_ACCESS);
  ASSERT_CONTAINS(f->kernel, "copy_unmasked");
  ASSERT_GT(f->bytes, 0);
  ASSERT_TRUE(f->thread[0] == '(');
  ASSERT_TRUE(f->block[0] == '(');
  ASSERT_TRUE(strncmp(f->address, "0x", 2) == 0);
  ASSERT_TRUE(f->pc[0] != '\0' || f->location[0] != '\0');
  /* The same run judged as an ordinary step must fail and name it. */
  ASSERT_EQ(rp_san_verdict_clean(&r, code, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "Invalid __global__ write");
  /* Exit 0 with the same text is not a working sanitizer. */
  ASSERT_EQ(rp_san_verdict_negative(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "not working");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

/* The same capture with ANSI colours around every line and CRLF line ends
 * must parse to the same findings. */
TEST_IMPL(san_recoloured_same) {
  char *text, *col;
  size_t len, i, o = 0;
  rp_san_report a, b;
  FX_PROBE("memcheck-oob.txt", &text, &len);
  col = malloc(len * 14 + 16);
  ASSERT_TRUE(col != NULL);
  memcpy(col + o, "\x1b[1;31m", 7);
  o += 7;
  for (i = 0; i < len; i++) {
    if (text[i] == '\n') {
      memcpy(col + o, "\x1b[0m\r\n\x1b[1;31m", 13);
      o += 13;
    } else {
      col[o++] = text[i];
    }
  }
  ASSERT_OK(rp_san_parse(text, len, &a));
  ASSERT_OK(rp_san_parse(col, o, &b));
  ASSERT_GT(a.count, 0);
  ASSERT_EQ(a.count, b.count);
  ASSERT_EQ(a.error_summary, b.error_summary);
  for (i = 0; i < a.count; i++) {
    ASSERT_STR_EQ(a.items[i].kind, b.items[i].kind);
    ASSERT_STR_EQ(a.items[i].kernel, b.items[i].kernel);
    ASSERT_STR_EQ(a.items[i].location, b.items[i].location);
    ASSERT_STR_EQ(a.items[i].thread, b.items[i].thread);
    ASSERT_STR_EQ(a.items[i].address, b.items[i].address);
  }
  rp_san_report_free(&a);
  rp_san_report_free(&b);
  free(col);
  free(text);
  return 0;
}

/* A run cut off before its ERROR SUMMARY (the sanitizer died) proves
 * nothing, even with exit 0 and no finding. */
TEST_IMPL(san_truncated_not_clean) {
  char *text, *cut;
  size_t len;
  rp_san_report r;
  char why[1024];
  FX_PROBE("memcheck-clean.txt", &text, &len);
  cut = strstr(text, "ERROR SUMMARY");
  ASSERT_TRUE(cut != NULL);
  ASSERT_OK(rp_san_parse(text, (size_t)(cut - text), &r));
  ASSERT_EQ(r.error_summary, -1);
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "did not finish");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(san_json_shape) {
  char *text;
  size_t len;
  rp_san_report r;
  json_t *j, *arr, *first;
  FX_PROBE("memcheck-oob.txt", &text, &len);
  ASSERT_OK(rp_san_parse(text, len, &r));
  j = rp_san_report_json(&r);
  ASSERT_TRUE(j != NULL);
  arr = json_object_get(j, "findings");
  ASSERT_TRUE(json_is_array(arr));
  ASSERT_EQ(json_array_size(arr), r.count);
  ASSERT_EQ(json_integer_value(json_object_get(j, "error_summary")),
            r.error_summary);
  first = json_array_get(arr, 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(first, "class")),
                rp_san_class_name(r.items[0].cls));
  ASSERT_STR_EQ(json_string_value(json_object_get(first, "kind")),
                r.items[0].kind);
  json_decref(j);
  rp_san_report_free(&r);
  free(text);
  return 0;
}

/* Text that is no sanitizer output at all: no summary, not clean. */
TEST_IMPL(san_empty_not_clean) {
  rp_san_report r;
  char why[256];
  ASSERT_OK(rp_san_parse("", 0, &r));
  ASSERT_EQ(r.error_summary, -1);
  ASSERT_EQ(r.count, 0);
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 0);
  ASSERT_EQ(rp_san_verdict_negative(&r, 86, 86, why, sizeof why), 0);
  rp_san_report_free(&r);
  return 0;
}

/* text with extra appended, in a new string. */
static char *with_line(const char *text, size_t len, const char *extra) {
  size_t n = strlen(extra);
  char *out = malloc(len + n + 1);
  if (out == NULL)
    return NULL;
  memcpy(out, text, len);
  memcpy(out + len, extra, n + 1);
  return out;
}

/* Every summary line's count must be read before a run is called clean.
 * The real racecheck capture is clean as it is; with an ERROR SUMMARY
 * whose count is not a number added, it was still called clean (the line
 * read as absent and racecheck's own summary said 0 hazards), and with a
 * count past INT64_MAX it read as a negative or absent count. A LEAK
 * SUMMARY of leaked bytes is not clean either, whatever ERROR SUMMARY
 * says. */
TEST_IMPL(san_summary_counts_read) {
  char *text, *t2;
  size_t len, i;
  rp_san_report r;
  char why[1024];
  FX_PROBE("racecheck-clean.txt", &text, &len);
  ASSERT_OK(rp_san_parse(text, len, &r));
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 1);
  rp_san_report_free(&r);

  t2 = with_line(text, len, "========= ERROR SUMMARY: some errors\n");
  ASSERT_TRUE(t2 != NULL);
  ASSERT_OK(rp_san_parse(t2, strlen(t2), &r));
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "ERROR SUMMARY: some errors");
  ASSERT_CONTAINS(r.unreadable_summary, "some errors");
  rp_san_report_free(&r);
  free(t2);

  for (i = 0; i < 2; i++) {
    static const char *const past[] = {
        "========= ERROR SUMMARY: 9223372036854775809 errors\n",
        "========= ERROR SUMMARY: 99999999999999999999999 errors\n"};
    t2 = with_line(text, len, past[i]);
    ASSERT_TRUE(t2 != NULL);
    ASSERT_OK(rp_san_parse(t2, strlen(t2), &r));
    ASSERT_EQ(r.error_summary, INT64_MAX);
    ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 0);
    rp_san_report_free(&r);
    free(t2);
  }
  free(text);

  /* memcheck with --leak-check full: clean as captured, and not clean
   * with bytes leaked in its LEAK SUMMARY. */
  FX_LOAD("sanitize_memcheck_smoke.txt", &text, &len);
  ASSERT_OK(rp_san_parse(text, len, &r));
  ASSERT_EQ(r.leaked_bytes, 0);
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 1);
  rp_san_report_free(&r);
  t2 = with_line(text, len,
                 "========= LEAK SUMMARY: 64 bytes leaked in 1 allocations\n");
  ASSERT_TRUE(t2 != NULL);
  ASSERT_OK(rp_san_parse(t2, strlen(t2), &r));
  ASSERT_EQ(r.leaked_bytes, 64);
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "64 byte(s) leaked");
  rp_san_report_free(&r);
  free(t2);
  free(text);
  return 0;
}

/* Headings the parser did not know ("Warp Misaligned Address") left the
 * findings empty beside an ERROR SUMMARY of 1, and the report said "no
 * sanitizer finding is recorded" under a failed step; racecheck's warning
 * count was read from inside "1,923 errors". */
TEST_IMPL(san_unknown_headings_said) {
  static const char warp[] = "========= COMPUTE-SANITIZER\n"
                             "========= Warp Misaligned Address\n"
                             "=========     at k()+0x10 in a.cu:3\n"
                             "=========\n"
                             "========= ERROR SUMMARY: 1 error\n";
  static const char odd[] = "========= COMPUTE-SANITIZER\n"
                            "========= Frobnicated kernel state\n"
                            "========= ERROR SUMMARY: 2 errors\n";
  static const char race[] = "========= RACECHECK SUMMARY: 5 hazards "
                             "displayed (1,923 errors, 3 warnings)\n";
  rp_san_report r;
  char why[512];
  ASSERT_OK(rp_san_parse(warp, sizeof warp - 1, &r));
  ASSERT_EQ(r.count, 1);
  ASSERT_EQ(r.items[0].cls, RP_SAN_ACCESS);
  ASSERT_STR_EQ(r.items[0].kind, "Warp Misaligned Address");
  ASSERT_EQ(rp_san_verdict_clean(&r, 86, 86, why, sizeof why), 0);
  rp_san_report_free(&r);
  ASSERT_OK(rp_san_parse(odd, sizeof odd - 1, &r));
  ASSERT_EQ(r.error_summary, 2);
  ASSERT_EQ(r.count, 1);
  ASSERT_EQ(r.items[0].cls, RP_SAN_OTHER);
  ASSERT_CONTAINS(r.items[0].kind, "heading this parser does not know");
  rp_san_report_free(&r);
  ASSERT_OK(rp_san_parse(race, sizeof race - 1, &r));
  ASSERT_EQ(r.hazards, 5);
  ASSERT_EQ(r.hazard_errors, 1923);
  ASSERT_EQ(r.hazard_warnings, 3);
  rp_san_report_free(&r);
  return 0;
}

/* A finding's text that is not UTF-8 (a Latin-1 source path, as a
 * console code page writes it) is kept in the JSON with '?' for the stray
 * byte. Before, jansson refused the string and the finding's "location"
 * key was left out of the manifest without a word. */
TEST_IMPL(san_json_not_utf8_kept) {
  char *text, *at, *latin;
  size_t len, n;
  rp_san_report r;
  json_t *arr, *first, *loc;
  FX_PROBE("memcheck-oob.txt", &text, &len);
  at = strstr(text, " in probe.cu:24");
  ASSERT_TRUE(at != NULL);
  n = (size_t)(at - text);
  latin = malloc(len + 16);
  ASSERT_TRUE(latin != NULL);
  memcpy(latin, text, n);
  memcpy(latin + n, " in Jos\xe9/probe.cu:24", 20);
  memcpy(latin + n + 20, at + 15, len - n - 15);
  ASSERT_OK(rp_san_parse(latin, len + 5, &r));
  ASSERT_GT(r.count, 0);
  ASSERT_CONTAINS(r.items[0].location, "Jos\xe9/probe.cu:24");
  arr = rp_san_findings_json(&r);
  ASSERT_TRUE(arr != NULL);
  first = json_array_get(arr, 0);
  loc = json_object_get(first, "location");
  ASSERT_TRUE(loc != NULL);
  ASSERT_STR_EQ(json_string_value(loc), "Jos?/probe.cu:24");
  json_decref(arr);
  rp_san_report_free(&r);
  free(latin);
  free(text);
  return 0;
}
