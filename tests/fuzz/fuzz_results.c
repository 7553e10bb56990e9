/* fuzz_results.c: a results document as `repro compare` and `repro report`
 * read it (rp_results_from_json, rp_results_read_flag), compared with
 * itself (rp_compare, its text and JSON), and rendered as the report of a
 * run that holds it (markdown, HTML with its charts, JUnit, SARIF). A
 * result compared with itself is never refused for being different, and
 * never slower. */
#include "fuzz.h"

#include "fuzz_render.h"

#include "cm_error.h"
#include "cm_file.h"
#include "rp_archive.h"
#include "rp_compare.h"
#include "rp_report_model.h"

#include <jansson.h>

/* The report of a run that holds r as its one clean result. */
static void render(rp_results *r) {
  rp_run run;
  memset(&run, 0, sizeof run);
  run.git_dirty = -1;
  run.negative_control_caught = -1;
  run.clean = r;
  run.nclean = 1;
  fuzz_render(&run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *doc = cm_json_loadb((const char *)data, size, 0, NULL);
  rp_results r;
  int flag = -1;
  if (rp_results_read_flag((const char *)data, size, &flag) == CM_OK)
    FUZZ_CHECK(flag == 0 || flag == 1);
  if (doc != NULL && rp_results_from_json(doc, &r) == CM_OK) {
    rp_compare_opts o;
    rp_compare_result cr;
    size_t i;
    for (i = 0; i < r.ncases; i++) {
      char key[512];
      rp_case_key(&r.cases[i], key, sizeof key);
      FUZZ_CHECK(fuzz_terminated(key, sizeof key));
      FUZZ_CHECK(fuzz_printable(key)); /* compare prints it */
    }
    rp_compare_opts_init(&o);
    o.resamples = 50; /* the rule, not the interval's precision, is tested */
    memset(&cr, 0, sizeof cr);
    if (rp_compare(&r, &r, &o, &cr) == CM_OK) {
      char *text = rp_compare_text(&cr, &o, "base.json", "new.json");
      json_t *js = rp_compare_json(&cr, &o, "base.json", "new.json");
      FUZZ_CHECK(rp_compare_exit_code(&cr) != 1);
      if (text != NULL) {
        /* printed to a terminal: lines of text, no control character */
        char *line = text, *nl;
        for (; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
          *nl = '\0';
          FUZZ_CHECK(fuzz_printable(line));
        }
        FUZZ_CHECK(fuzz_printable(line));
      }
      free(text);
      json_decref(js);
    }
    rp_compare_result_free(&cr);
    render(&r);
    rp_results_free(&r);
  }
  json_decref(doc);
  return 0;
}
