/* rp_profile_verdict.c: see rp_profile_verdict.h. */
#include "rp_profile_verdict.h"

#include "cm_str.h"

#include <string.h>

/* cuda_portfolio's exit status when it finds no CUDA device. */
#define RP__NO_DEVICE 77

const char *rp_prof_status_name(rp_prof_status s) {
  switch (s) {
  case RP_PROF_PASSED:
    return "passed";
  case RP_PROF_LIMITED:
    return "limited";
  case RP_PROF_SKIPPED:
    return "skipped";
  default:
    return "failed";
  }
}

static const char *str(const char *s) {
  return s != NULL ? s : "";
}

static rp_prof_status decide_ncu(const rp_prof_inputs *in, char *why,
                                 size_t size, int *claimed) {
  *claimed = 0;
  if (!in->ncu_found) {
    cm_snprintf(why, size, "ncu not found: no counters measured");
    return RP_PROF_SKIPPED;
  }
  if (!in->ncu_ran) {
    cm_snprintf(why, size, "ncu did not run to an exit");
    return RP_PROF_FAILED;
  }
  /* Permission first: with counters restricted ncu may still exit 0 and
   * even leave an empty report; nothing it says then is a measurement. */
  if (in->ncu_issue == RP_NCU_NO_PERMISSION) {
    cm_snprintf(why, size,
                "counters restricted (ERR_NVGPUCTRPERM): %s; diagnostic "
                "archived, no counter result claimed",
                str(in->ncu_line));
    return RP_PROF_LIMITED;
  }
  if (!in->perm_allowed && !in->ncu_report) {
    cm_snprintf(why, size, "counters restricted: %s; no counter result claimed",
                str(in->perm_detail));
    return RP_PROF_LIMITED;
  }
  if (in->ncu_exit == RP__NO_DEVICE) {
    cm_snprintf(why, size,
                "no CUDA device (cuda_portfolio exit 77 under "
                "ncu)");
    return RP_PROF_SKIPPED;
  }
  if (in->ncu_exit != 0) {
    cm_snprintf(why, size, "ncu exited %lld%s%s", (long long)in->ncu_exit,
                str(in->ncu_line)[0] ? ": " : "", str(in->ncu_line));
    return RP_PROF_FAILED;
  }
  if (in->ncu_issue == RP_NCU_ERROR || in->ncu_issue == RP_NCU_NO_KERNELS) {
    cm_snprintf(why, size, "ncu: %s", str(in->ncu_line));
    return RP_PROF_FAILED;
  }
  if (!in->ncu_report) {
    cm_snprintf(why, size, "ncu exited 0 but wrote no .ncu-rep report");
    return RP_PROF_FAILED;
  }
  if (in->ncu_rows == 0) {
    cm_snprintf(why, size, "the ncu report's CSV pages held no launch");
    return RP_PROF_FAILED;
  }
  /* launches listed, none with a measured duration: no counter was
   * collected, whatever the exit code says */
  if (in->ncu_timed_rows == 0) {
    cm_snprintf(why, size,
                "the ncu report lists %zu launch(es) but no measured "
                "duration (n/a): no counter was collected",
                in->ncu_rows);
    return RP_PROF_FAILED;
  }
  *claimed = 1;
  why[0] = '\0';
  return RP_PROF_PASSED;
}

static rp_prof_status decide_nsys(const rp_prof_inputs *in, char *why,
                                  size_t size) {
  if (!in->nsys_found) {
    cm_snprintf(why, size, "nsys not found: no timeline");
    return RP_PROF_LIMITED;
  }
  if (!in->nsys_ran) {
    cm_snprintf(why, size, "nsys did not run to an exit");
    return RP_PROF_FAILED;
  }
  if (in->nsys_exit != 0) {
    cm_snprintf(why, size, "nsys exited %lld", (long long)in->nsys_exit);
    return RP_PROF_FAILED;
  }
  switch (in->nsys_outcome) {
  case RP_NSYS_REPORT:
    if (in->stats_exit != 0) {
      cm_snprintf(why, size, "nsys stats %s on the report",
                  in->stats_exit < 0 ? "did not run" : "failed");
      return RP_PROF_LIMITED;
    }
    why[0] = '\0';
    return RP_PROF_PASSED;
  case RP_NSYS_QDSTRM_ONLY:
    cm_snprintf(why, size, "%s%s%s", str(in->nsys_reason),
                str(in->nsys_importer)[0] ? ": " : "", str(in->nsys_importer));
    return RP_PROF_LIMITED;
  default:
    cm_snprintf(why, size, "%s", str(in->nsys_reason));
    return RP_PROF_FAILED;
  }
}

void rp_prof_decide(const rp_prof_inputs *in, rp_prof_verdict *out) {
  memset(out, 0, sizeof *out);
  out->ncu_status = decide_ncu(in, out->ncu_reason, sizeof out->ncu_reason,
                               &out->counters_claimed);
  if (out->ncu_status == RP_PROF_SKIPPED && in->ncu_ran &&
      in->ncu_exit == RP__NO_DEVICE) {
    /* No device: nsys would see none either; it is not run. */
    out->nsys_status = RP_PROF_SKIPPED;
    cm_snprintf(out->nsys_reason, sizeof out->nsys_reason,
                "not run: no CUDA device");
  } else {
    out->nsys_status =
        decide_nsys(in, out->nsys_reason, sizeof out->nsys_reason);
  }
  out->status =
      out->ncu_status > out->nsys_status ? out->ncu_status : out->nsys_status;
  if (out->ncu_reason[0] && out->nsys_reason[0])
    cm_snprintf(out->reason, sizeof out->reason, "%s; %s", out->ncu_reason,
                out->nsys_reason);
  else
    cm_snprintf(out->reason, sizeof out->reason, "%s%s", out->ncu_reason,
                out->nsys_reason);
}
