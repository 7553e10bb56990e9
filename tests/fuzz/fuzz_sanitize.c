/* fuzz_sanitize.c: compute-sanitizer's console text (rp_san_parse), the
 * verdicts the sanitize stage takes from it, and its JSON. Whatever the
 * text, a clean verdict needs a finished run with no finding and every
 * summary line read as 0, and the negative control's catch needs a
 * finding; no count is ever negative but the -1 of "absent". */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_sanitize_parse.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rp_san_report r;
  char why[512], line[1024];
  size_t i;
  int rc = rp_san_parse((const char *)data, size, &r);
  if (rc == CM_OK) {
    FUZZ_CHECK(r.count <= RP_SAN_MAX_FINDINGS);
    FUZZ_CHECK(r.count <= r.findings_total);
    for (i = 0; i < r.count; i++) {
      const rp_san_finding *f = &r.items[i];
      FUZZ_CHECK(fuzz_terminated(f->kind, sizeof f->kind));
      FUZZ_CHECK(fuzz_terminated(f->kernel, sizeof f->kernel));
      FUZZ_CHECK(fuzz_terminated(f->location, sizeof f->location));
      FUZZ_CHECK(fuzz_terminated(f->detail, sizeof f->detail));
      rp_san_finding_line(f, line, sizeof line);
      FUZZ_CHECK(fuzz_terminated(line, sizeof line));
    }
    FUZZ_CHECK(fuzz_terminated(r.tool_error, sizeof r.tool_error));
    /* Counts are read (>= 0, saturated) or absent (-1), never negative. */
    FUZZ_CHECK(r.error_summary >= -1 && r.errors_not_printed >= -1 &&
               r.hazards >= -1 && r.hazard_errors >= -1 &&
               r.hazard_warnings >= -1 && r.leaked_bytes >= -1 &&
               r.leak_allocs >= -1);
    FUZZ_CHECK(
        fuzz_terminated(r.unreadable_summary, sizeof r.unreadable_summary));
    /* Clean: a finished run, every summary line read, all of them 0. */
    if (rp_san_verdict_clean(&r, 0, 86, why, sizeof why))
      FUZZ_CHECK(r.count == 0 && r.findings_total == 0 && !r.tool_failed &&
                 r.unreadable_summary[0] == '\0' &&
                 (r.error_summary == 0 || r.hazards == 0) &&
                 r.error_summary <= 0 && r.hazards <= 0 && r.leaked_bytes <= 0);
    FUZZ_CHECK(fuzz_terminated(why, sizeof why));
    if (rp_san_verdict_negative(&r, 86, 86, why, sizeof why))
      FUZZ_CHECK(r.count > 0 && !r.tool_failed);
    FUZZ_CHECK(fuzz_terminated(why, sizeof why));
    fuzz_json_serialises(rp_san_report_json(&r));
    fuzz_json_serialises(rp_san_findings_json(&r));
  }
  rp_san_report_free(&r);
  return 0;
}
