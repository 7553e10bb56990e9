/* pf_timing_none.c: the build without the timing harness (see
 * pf_timing_glue.h): --json is refused rather than silently ignored. */
#include <stdio.h>

#include "pf_timing_glue.h"

int pf_timing_start(pf_runner *r, const pf_opts *o, int argc, char **argv) {
  (void)r;
  (void)o;
  (void)argc;
  (void)argv;
  fprintf(stderr, "cuda_portfolio: --json: this build has no timing harness "
                  "(pf_timing.c was not built)\n");
  return PF_EXIT_USAGE;
}

void pf_build_git(const char **commit, int *dirty) {
  *commit = "unknown";
  *dirty = -1;
}

int pf_timing_finish(pf_runner *r, const char *path, int total, int done) {
  (void)r;
  (void)path;
  (void)total;
  (void)done;
  return PF_EXIT_OK;
}
