/* fuzz_render.h: a run rendered the four ways `repro report` writes it
 * (markdown, HTML with its charts, JUnit, SARIF), for fuzz_results and
 * fuzz_run. The renderings are thrown away: what is tested is that any
 * run the model can hold renders without fault. */
#ifndef CP_FUZZ_RENDER_H
#define CP_FUZZ_RENDER_H

#include "cm_error.h"
#include "rp_report.h"

#include <stdlib.h>

static inline void fuzz_render(const rp_run *run) {
  char *out = NULL;
  int ncharts = 0;
  if (rp_report_markdown(run, &out) == CM_OK)
    free(out);
  out = NULL;
  if (rp_report_html(run, &out, &ncharts) == CM_OK)
    free(out);
  out = NULL;
  if (rp_report_junit(run, &out) == CM_OK)
    free(out);
  out = NULL;
  if (rp_report_sarif(run, &out) == CM_OK)
    free(out);
}

#endif
