/* The stages' decisions without a GPU: the profile stage's rp_prof_decide
 * over what ncu and nsys can leave behind (the H200's real outcome among
 * them), and the sanitize stage's verdicts over real H200 captures. */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "fixture.h"
#include "rp_ncu_parse.h"
#include "rp_nsys_check.h"
#include "rp_profile_verdict.h"
#include "rp_sanitize_parse.h"

#include <stdlib.h>
#include <string.h>

/* ncu ran cleanly and its report parsed; nsys made a report and stats ran. */
static void all_good(rp_prof_inputs *in) {
  memset(in, 0, sizeof *in);
  in->perm_allowed = 1;
  in->perm_detail = "RmProfilingAdminOnly is 0";
  in->ncu_found = in->ncu_ran = 1;
  in->ncu_issue = RP_NCU_OK;
  in->ncu_report = 1;
  in->ncu_rows = 12;
  in->ncu_timed_rows = 12;
  in->nsys_found = in->nsys_ran = 1;
  in->nsys_outcome = RP_NSYS_REPORT;
  in->nsys_reason = "nsys wrote its report (1000 bytes)";
  in->stats_exit = 0;
}

TEST_IMPL(prof_both_reports_pass) {
  rp_prof_inputs in;
  rp_prof_verdict v;
  all_good(&in);
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_PASSED);
  ASSERT_EQ(v.counters_claimed, 1);
  ASSERT_STR_EQ(v.reason, "");
  ASSERT_STR_EQ(rp_prof_status_name(v.status), "passed");
  /* nsys stats failing on a real report only limits */
  in.stats_exit = 1;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_LIMITED);
  ASSERT_EQ(v.counters_claimed, 1);
  ASSERT_CONTAINS(v.reason, "nsys stats failed");
  return 0;
}

/* What the H200 gives, from its real console outputs and file list:
 * ncu fine, nsys exit 0 with only a .qdstrm -> limited, counters kept. */
TEST_IMPL(prof_h200_qdstrm_limited) {
  char *ncu, *nsys, nline[512], iline[512];
  size_t nl, sl;
  rp_prof_inputs in;
  rp_prof_verdict v;
  rp_nsys_result nr;
  rp_nsys_file files[1] = {{"timeline.qdstrm", 31472391}};
  FX_PROBE("ncu-run.txt", &ncu, &nl);
  FX_PROBE("nsys-run.txt", &nsys, &sl);
  all_good(&in);
  in.ncu_issue = rp_ncu_scan_output(ncu, nl, nline, sizeof nline);
  in.ncu_line = nline;
  in.ncu_rows = rp_ncu_count_profiled(ncu, nl);
  in.ncu_timed_rows = in.ncu_rows; /* the stage reads them from the CSV */
  ASSERT_OK(rp_nsys_classify("profile", "timeline", files, 1, &nr));
  in.nsys_outcome = nr.outcome;
  in.nsys_reason = nr.reason;
  rp_nsys_scan_output(nsys, sl, iline, sizeof iline);
  in.nsys_importer = iline;
  in.stats_exit = -1;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.ncu_status, RP_PROF_PASSED);
  ASSERT_EQ(v.nsys_status, RP_PROF_LIMITED);
  ASSERT_EQ(v.status, RP_PROF_LIMITED);
  ASSERT_EQ(v.counters_claimed, 1);
  ASSERT_STR_EQ(v.reason, "nsys wrote a .qdstrm but no report (importer "
                          "missing): Importer error status: An unknown error "
                          "occurred.");
  free(ncu);
  free(nsys);
  return 0;
}

/* ERR_NVGPUCTRPERM: limited, and no counter result claimed even though ncu
 * exited 0 and left a file. */
TEST_IMPL(prof_no_permission_limited) {
  rp_prof_inputs in;
  rp_prof_verdict v;
  all_good(&in);
  in.ncu_issue = RP_NCU_NO_PERMISSION;
  in.ncu_line = "==ERROR== ERR_NVGPUCTRPERM - The user does not have "
                "permission to access NVIDIA GPU Performance Counters";
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.ncu_status, RP_PROF_LIMITED);
  ASSERT_EQ(v.status, RP_PROF_LIMITED);
  ASSERT_EQ(v.counters_claimed, 0);
  ASSERT_CONTAINS(v.reason, "ERR_NVGPUCTRPERM");
  ASSERT_CONTAINS(v.reason, "no counter result claimed");
  /* the driver's params say admin-only and no report was made */
  all_good(&in);
  in.perm_allowed = 0;
  in.perm_detail = "RmProfilingAdminOnly is 1 and the user is not root";
  in.ncu_exit = 1;
  in.ncu_report = 0;
  in.ncu_rows = 0;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_LIMITED);
  ASSERT_EQ(v.counters_claimed, 0);
  ASSERT_CONTAINS(v.reason, "RmProfilingAdminOnly is 1");
  return 0;
}

/* A report whose launches all say "n/a" for their duration measured
 * nothing: failed, no counter result claimed (it passed with counters
 * claimed when only the row count was looked at). */
TEST_IMPL(prof_rows_unmeasured) {
  rp_prof_inputs in;
  rp_prof_verdict v;
  all_good(&in);
  in.ncu_timed_rows = 0;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.ncu_status, RP_PROF_FAILED);
  ASSERT_EQ(v.counters_claimed, 0);
  ASSERT_CONTAINS(v.reason, "no measured duration");
  in.ncu_timed_rows = 1;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.ncu_status, RP_PROF_PASSED);
  return 0;
}

TEST_IMPL(prof_tool_failures) {
  rp_prof_inputs in;
  rp_prof_verdict v;
  /* ncu exits non-zero with permission open: failed */
  all_good(&in);
  in.ncu_exit = 1;
  in.ncu_line = "";
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_FAILED);
  ASSERT_EQ(v.counters_claimed, 0);
  ASSERT_CONTAINS(v.reason, "ncu exited 1");
  /* ncu exit 0 but nothing profiled */
  all_good(&in);
  in.ncu_issue = RP_NCU_NO_KERNELS;
  in.ncu_line = "==WARNING== No kernels were profiled.";
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_FAILED);
  ASSERT_CONTAINS(v.reason, "No kernels were profiled");
  /* ncu exit 0 without its report */
  all_good(&in);
  in.ncu_report = 0;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_FAILED);
  ASSERT_CONTAINS(v.reason, "no .ncu-rep");
  /* nsys left nothing at all */
  all_good(&in);
  in.nsys_outcome = RP_NSYS_NOTHING;
  in.nsys_reason = "nsys wrote neither timeline.nsys-rep nor timeline.qdstrm";
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_FAILED);
  ASSERT_EQ(v.counters_claimed, 1);
  ASSERT_CONTAINS(v.reason, "neither");
  /* nsys exit non-zero */
  all_good(&in);
  in.nsys_exit = 2;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.nsys_status, RP_PROF_FAILED);
  ASSERT_CONTAINS(v.reason, "nsys exited 2");
  return 0;
}

TEST_IMPL(prof_missing_tools) {
  rp_prof_inputs in;
  rp_prof_verdict v;
  all_good(&in);
  in.nsys_found = 0;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_LIMITED);
  ASSERT_STR_EQ(v.reason, "nsys not found: no timeline");
  all_good(&in);
  in.ncu_found = 0;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_SKIPPED);
  ASSERT_EQ(v.counters_claimed, 0);
  ASSERT_CONTAINS(v.reason, "ncu not found");
  /* no device: ncu passes the target's 77 on; nsys is not run */
  all_good(&in);
  in.ncu_exit = 77;
  in.ncu_report = 0;
  rp_prof_decide(&in, &v);
  ASSERT_EQ(v.status, RP_PROF_SKIPPED);
  ASSERT_EQ(v.nsys_status, RP_PROF_SKIPPED);
  ASSERT_CONTAINS(v.reason, "no CUDA device");
  return 0;
}

/* ---- sanitize verdicts over the real H200 captures ---- */

static int san_file(const char *name, char **text, size_t *len,
                    rp_san_report *r) {
  if (fx_load_probe(name, text, len) != 0)
    return 1;
  return rp_san_parse(*text, *len, r) != CM_OK;
}

TEST_IMPL(san_verdict_clean_passes) {
  char *text, why[512];
  size_t len;
  rp_san_report r;
  ASSERT_EQ(san_file("memcheck-clean.txt", &text, &len, &r), 0);
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 1);
  /* the same report with the error exit code is not clean */
  ASSERT_EQ(rp_san_verdict_clean(&r, 86, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "exited 86");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(san_verdict_negative_caught) {
  char *text, why[512];
  size_t len;
  rp_san_report r;
  ASSERT_EQ(san_file("memcheck-oob.txt", &text, &len, &r), 0);
  ASSERT_EQ(rp_san_verdict_negative(&r, 86, 86, why, sizeof why), 1);
  ASSERT_CONTAINS(why, "caught: Invalid __global__ write");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

/* A clean capture given as the negative control: the sanitizer did not see
 * the planted write, so it is not working and the stage must fail. */
TEST_IMPL(san_verdict_clean_as_negative) {
  char *text, why[512];
  size_t len;
  rp_san_report r;
  ASSERT_EQ(san_file("memcheck-clean.txt", &text, &len, &r), 0);
  ASSERT_EQ(rp_san_verdict_negative(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "the sanitizer is not working");
  ASSERT_CONTAINS(why, "no \"Invalid __global__ write\" reported");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

/* The real clean run with the tool's own failure line spliced in before
 * its summary (compute-sanitizer's "Error: Device not supported"): the
 * run proves nothing, neither as a smoke run nor as the negative control. */
TEST_IMPL(san_verdict_device_unsupported) {
  char *text, *buf, why[512];
  const char *cut;
  size_t len, head;
  static const char bad[] = "========= Error: Device not supported\n";
  rp_san_report r;
  FX_PROBE("memcheck-clean.txt", &text, &len);
  cut = strstr(text, "========= LEAK SUMMARY");
  ASSERT_TRUE(cut != NULL);
  head = (size_t)(cut - text);
  buf = malloc(len + sizeof bad);
  ASSERT_TRUE(buf != NULL);
  memcpy(buf, text, head);
  memcpy(buf + head, bad, sizeof bad - 1);
  memcpy(buf + head + sizeof bad - 1, cut, len - head);
  ASSERT_OK(rp_san_parse(buf, len + sizeof bad - 1, &r));
  ASSERT_EQ(r.tool_failed, 1);
  ASSERT_CONTAINS(r.tool_error, "Device not supported");
  ASSERT_EQ(r.error_summary, 0);
  ASSERT_EQ(rp_san_verdict_clean(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "proves nothing");
  ASSERT_EQ(rp_san_verdict_negative(&r, 86, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "not working");
  rp_san_report_free(&r);
  free(buf);
  free(text);
  return 0;
}
