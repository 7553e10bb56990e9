/* fuzz_run.c: a run folder's manifest.json as `repro report` reads it
 * (rp_run_load: the stages, their checks and steps, the sanitizer
 * findings, the negative control, the resource rows), rendered as
 * markdown, HTML, JUnit and SARIF. The manifest is written into one
 * folder under the temporary directory that the process keeps. */
#include "fuzz.h"

#include "fuzz_render.h"
#include "fuzz_tmp.h"

#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_report_model.h"

static char dir[1024];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[1200];
  rp_run run;
  if (!fuzz_tmpdir(dir, sizeof dir, "run") ||
      cm_snprintf(path, sizeof path, "%s/manifest.json", dir) != CM_OK)
    return 0;
  if (plat_write_file_atomic(path, data, size) != CM_OK)
    return 0;
  if (rp_run_load(dir, &run) == CM_OK) {
    FUZZ_CHECK(fuzz_terminated(run.status, sizeof run.status));
    FUZZ_CHECK(fuzz_terminated(run.tools, sizeof run.tools));
    FUZZ_CHECK(run.negative_control_caught >= -1 &&
               run.negative_control_caught <= 1);
    /* the model's strings are one printable line each */
    FUZZ_CHECK(fuzz_printable(run.status) && fuzz_printable(run.tools));
    {
      size_t i;
      for (i = 0; i < run.nstages; i++)
        FUZZ_CHECK(fuzz_printable(run.stages[i].name) &&
                   fuzz_printable(run.stages[i].status) &&
                   fuzz_printable(run.stages[i].reason));
    }
    fuzz_render(&run);
  }
  rp_run_free(&run);
  return 0;
}
