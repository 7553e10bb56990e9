/* rp_profile_verdict.h: the profile stage's decision, as a pure function.
 *
 * The stage (src/repro/rp_stage_profile.c) runs ncu and nsys and gathers
 * what it saw into rp_prof_inputs; this module alone decides what that
 * means, so the rules can be tested without a GPU:
 *  - counters restricted (ERR_NVGPUCTRPERM in ncu's output, or the driver's
 *    RmProfilingAdminOnly with no report made): limited, no counter result
 *    is claimed;
 *  - ncu or nsys failing outright (non-zero exit, no report from ncu, no
 *    file at all from nsys, no kernel profiled): failed;
 *  - nsys exiting 0 with only its .qdstrm (its importer missing, as on the
 *    H200), nsys not installed, or `nsys stats` failing: limited;
 *  - the target reporting no device (exit 77 under ncu): skipped;
 *  - passed only when ncu's counters and nsys's report were both had.
 * The overall status is the worse of the two tools' (passed < limited <
 * skipped < failed, the engine's order).
 */
#ifndef RP_PROFILE_VERDICT_H
#define RP_PROFILE_VERDICT_H

#include "rp_ncu_parse.h"
#include "rp_nsys_check.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
  RP_PROF_PASSED = 0,
  RP_PROF_LIMITED,
  RP_PROF_SKIPPED,
  RP_PROF_FAILED
} rp_prof_status;

/* "passed", "limited", "skipped", "failed". */
const char *rp_prof_status_name(rp_prof_status s);

/* What the stage saw. Strings are borrowed and may be NULL or "". */
typedef struct {
  int perm_allowed;        /* counters usable per driver params and rights */
  const char *perm_detail; /* the permission check's sentence */

  int ncu_found;          /* ncu located */
  int ncu_ran;            /* ncu ran to an exit (no signal/timeout) */
  int64_t ncu_exit;       /* its exit status (the target's, passed on) */
  rp_ncu_issue ncu_issue; /* rp_ncu_scan_output of its console output */
  const char *ncu_line;   /* the line that showed the issue */
  int ncu_report;         /* 1: the .ncu-rep exists and is not empty */
  size_t ncu_rows;        /* launches parsed from the CSV pages */
  size_t ncu_timed_rows;  /* ... of which a duration was measured (a
                             number, not "n/a") */

  int nsys_found; /* nsys located */
  int nsys_ran;   /* nsys ran to an exit */
  int64_t nsys_exit;
  rp_nsys_outcome nsys_outcome; /* rp_nsys_check of the output folder */
  const char *nsys_reason;      /* rp_nsys_result.reason */
  const char *nsys_importer;    /* rp_nsys_scan_output's line, or "" */
  int64_t stats_exit;           /* `nsys stats` exit, -1 when not run */
} rp_prof_inputs;

typedef struct {
  rp_prof_status status;     /* the stage's */
  rp_prof_status ncu_status; /* each tool's part */
  rp_prof_status nsys_status;
  int counters_claimed; /* 1: the ncu metrics may be reported */
  char ncu_reason[512]; /* "" when passed */
  char nsys_reason[512];
  char reason[1100]; /* the non-empty reasons joined by "; " */
} rp_prof_verdict;

/* Decides (pure; never fails). */
void rp_prof_decide(const rp_prof_inputs *in, rp_prof_verdict *out);

#endif
