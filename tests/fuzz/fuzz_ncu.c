/* fuzz_ncu.c: Nsight Compute's CSV pages and console text
 * (rp_ncu_parse_csv, rp_ncu_table_merge, rp_ncu_count_profiled,
 * rp_ncu_scan_output) and the key-metrics CSV and JSON made from what
 * parsed. The input is cut in two at its first form feed: the first part
 * is read as the raw page, the second as the details page merged into
 * it (both parts are also scanned as console text). */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_ncu_parse.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  const char *ff = memchr(text, '\f', size);
  size_t n1 = ff != NULL ? (size_t)(ff - text) : size;
  size_t n2 = ff != NULL ? size - n1 - 1 : 0;
  rp_ncu_table raw, det;
  char line[256];
  rp_ncu_issue is;
  int r1, r2;
  is = rp_ncu_scan_output(text, size, line, sizeof line);
  FUZZ_CHECK(fuzz_terminated(line, sizeof line));
  FUZZ_CHECK(rp_ncu_issue_name(is) != NULL);
  (void)rp_ncu_count_profiled(text, size);
  r1 = rp_ncu_parse_csv(text, n1, &raw);
  r2 = rp_ncu_parse_csv(ff != NULL ? ff + 1 : text + size, n2, &det);
  if (r1 == CM_OK) {
    size_t before = raw.count, i;
    char *csv = NULL;
    json_t *js;
    if (r2 == CM_OK) {
      FUZZ_CHECK(rp_ncu_table_merge(&raw, &det) == CM_OK);
      FUZZ_CHECK(raw.count >= before);
    }
    for (i = 0; i < raw.count; i++) {
      FUZZ_CHECK(
          fuzz_terminated(raw.rows[i].kernel, sizeof raw.rows[i].kernel));
      FUZZ_CHECK(fuzz_terminated(raw.rows[i].nvtx, sizeof raw.rows[i].nvtx));
    }
    if (rp_ncu_table_csv(&raw, &csv) == CM_OK) {
      /* a header line and one line per row at least */
      size_t lines = 0;
      const char *p;
      for (p = csv; *p != '\0'; p++)
        lines += *p == '\n';
      FUZZ_CHECK(lines >= raw.count + 1);
      free(csv);
    }
    js = rp_ncu_table_json(&raw);
    FUZZ_CHECK(js == NULL || json_array_size(js) == raw.count);
    fuzz_json_serialises(js);
  }
  rp_ncu_table_free(&raw); /* zeroed by the parser whatever it returned */
  rp_ncu_table_free(&det);
  return 0;
}
