/* pf_timing_glue.h: connects the runner to the timing harness (pf_timing.h)
 * for `--json PATH`. Two implementations chosen in CMake: pf_timing_glue.c
 * when the timing harness is built in, pf_timing_none.c otherwise (which
 * refuses --json with a usage error). */
#ifndef PF_TIMING_GLUE_H
#define PF_TIMING_GLUE_H

#include "pf_cli.h"
#include "pf_run.h"

/* Opens the timing run from o's flags, the peer libraries and sets
 * r->bench_case/bench/peer/nsets. Returns a pf_cli.h exit code. */
int pf_timing_start(pf_runner *r, const pf_opts *o, int argc, char **argv);
/* Writes the results to path and releases everything; an exit code. Of the
 * selection's total cases, done ran to their verdict (fewer: the run
 * stopped at an error); with r->skipped, the file says what it lacks. */
int pf_timing_finish(pf_runner *r, const char *path, int total, int done);
/* The commit the binary was built from (40 hex digits, or "unknown") and
 * its tree's dirty flag (1, 0, -1 unknown), as the results JSON records
 * them; "unknown" and -1 in a build without the timing harness, which has
 * no record of them. */
void pf_build_git(const char **commit, int *dirty);

#endif
