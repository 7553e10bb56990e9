/* Stage `sanitize`: compute-sanitizer over the smoke set (issue 6).
 *
 * Four steps, one per tool (memcheck with --leak-check full, racecheck,
 * initcheck, synccheck), each `compute-sanitizer --tool T --error-exitcode
 * 86 --log-file <run>/sanitize/T.sanitizer.txt cuda_portfolio --test-only
 * --smoke`, then the negative control: memcheck on --negative-control must
 * exit 86 and report an "Invalid __global__ write", or the sanitizer is not
 * working and the stage fails. --error-exitcode is what makes a clean exit
 * mean something; the exact allocator (set by env/sanitize.contract) is
 * confirmed from the binary's own banner, since a pooled allocator hides
 * out-of-bounds writes inside its pool.
 *
 * The stall rule (issue 7): a step that times out is retried once with the
 * alternative launch, `--target-processes application-only` (the sanitizer
 * then attaches to cuda_portfolio alone instead of every process the launch
 * starts, which is where launcher stalls have been reported on Windows; see
 * docs/WINDOWS.md). Both attempts stay in the manifest: the first step
 * record carries "retried_after_timeout": true, the second is named
 * "<step>-retry" with "retry_of", and the tool's sanitizer record says
 * "retried_after_timeout" too. The retry decides the step; a second
 * timeout fails the stage. The rule is the same on every OS.
 */
#include "cm_file.h"
#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_banner.h"
#include "rp_pfrun.h"
#include "rp_sanitize_parse.h"
#include "rp_stage.h"
#include "rp_tools_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RP__SAN_EXIT 86
#define RP__SAN_EXIT_STR "86"
/* The alternative launch of the stall rule, and its step-name suffix. */
#define RP__SAN_ALT_OPT "--target-processes"
#define RP__SAN_ALT_VAL "application-only"
#define RP__SAN_RETRY_SUFFIX "-retry"

/* The "[cuda_portfolio]" line of the target's stdout (the sanitizer may
 * print before it), parsed with the engine's banner parser. */
static int rp__san_banner(const char *out, rp_banner *b, char *err,
                          size_t size) {
  const char *p = out;
  while (p != NULL && *p) {
    const char *q = p;
    while (*q == ' ' || *q == '\r')
      q++;
    if (cm_starts_with(q, "[cuda_portfolio]"))
      return rp_banner_parse(q, b, err, size);
    p = strchr(p, '\n');
    if (p != NULL)
      p++;
  }
  cm_snprintf(err, size, "no [cuda_portfolio] banner in the output");
  return CM_EPARSE;
}

/* 1 if name is one of the comma-separated markers. */
static int rp__san_marker(const char *markers, const char *name) {
  size_t n = strlen(name);
  const char *p = markers;
  while (p != NULL && *p != '\0') {
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return 1;
    p = strchr(p, ',');
    if (p != NULL)
      p++;
  }
  return 0;
}

/* Fails the stage when the banner says the sanitizer could not see what it
 * must: a pooled allocator, or a preloaded library that might pool. */
static void rp__san_banner_check(rp_stage_run *st, const char *step,
                                 const rp_banner *b) {
  if (strcmp(b->allocator, "exact") != 0) {
    rp_stage_set(st, RP_ST_FAILED,
                 "%s: cuda_portfolio used allocator=%s; "
                 "the sanitizer needs allocator=exact (a pool hides "
                 "out-of-bounds writes)",
                 step, b->allocator);
  } else if (rp__san_marker(b->markers, "LD_PRELOAD") ||
             rp__san_marker(b->markers, "LD_AUDIT")) {
    /* the contract unsets both; one that still reached cuda_portfolio (a
     * wrapper, a sanitizer that adds one) could serve cudaMalloc from a
     * pool of its own: allocator=exact is then not what the sanitizer saw */
    rp_stage_set(st, RP_ST_FAILED,
                 "%s: cuda_portfolio saw %s: a preloaded library can serve "
                 "its allocations from a pool, which hides out-of-bounds "
                 "writes; run without it",
                 step,
                 rp__san_marker(b->markers, "LD_PRELOAD") ? "LD_PRELOAD"
                                                          : "LD_AUDIT");
  }
}

/* Runs one sanitizer step; parses its log into *rep. alt adds the
 * alternative launch. Returns the exit code, or -1 when the step did not
 * run to an exit (the stage is then set; *timed_out says whether a timeout
 * was why). */
static int64_t rp__san_step(rp_ctx *ctx, rp_stage_run *st, const char *cs,
                            const char *bin, const char *step, const char *tool,
                            int leak, int negative, int alt, int *timed_out,
                            rp_san_report *rep, json_t *rec) {
  char log_rel[256], log_abs[1400], gpu[32], berr[256];
  const char *argv[24];
  int n = 0;
  rp_step_result res;
  rp_banner b;
  char *text = NULL;
  size_t len = 0;
  int64_t code;

  memset(rep, 0, sizeof *rep);
  *timed_out = 0;
  cm_snprintf(log_rel, sizeof log_rel, "sanitize/%s.sanitizer.txt", step);
  if (cm_snprintf(log_abs, sizeof log_abs, "%s/%s", ctx->run_dir, log_rel)) {
    rp_stage_set(st, RP_ST_FAILED, "run folder path too long");
    return -1;
  }
  argv[n++] = cs;
  argv[n++] = "--tool";
  argv[n++] = tool;
  argv[n++] = "--error-exitcode";
  argv[n++] = RP__SAN_EXIT_STR;
  if (leak) {
    argv[n++] = "--leak-check";
    argv[n++] = "full";
  }
  if (alt) {
    argv[n++] = RP__SAN_ALT_OPT;
    argv[n++] = RP__SAN_ALT_VAL;
  }
  argv[n++] = "--log-file";
  argv[n++] = log_abs;
  argv[n++] = bin;
  if (negative) {
    argv[n++] = "--negative-control";
  } else {
    argv[n++] = "--test-only";
    argv[n++] = "--smoke";
  }
  rp_gpu_args(ctx, gpu, sizeof gpu, argv, &n);
  argv[n] = NULL;
  if (rp_stage_step(ctx, st, step, argv, NULL, 1, &res) != CM_OK)
    return -1;
  code = res.exit_code;
  *timed_out = res.timed_out && !res.interrupted;
  if (res.term_signal != 0 || res.timed_out || res.interrupted) {
    rp_step_result_free(&res);
    return -1;
  }
  /* The log file holds the sanitizer's reports; if the tool ignored
   * --log-file they are in stdout with the target's output. */
  if (cm_read_file(log_abs, &text, &len) == CM_OK && len > 0) {
    if (rp_san_parse(text, len, rep) != CM_OK)
      rp_stage_set(st, RP_ST_FAILED, "%s: out of memory parsing", step);
  } else if (rp_san_parse(res.out ? res.out : "", res.out_len, rep) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "%s: out of memory parsing", step);
  }
  free(text);
  {
    json_t *j = rp_san_report_json(rep);
    if (j != NULL) {
      json_object_set_new(j, "exit_code", json_integer((json_int_t)code));
      json_object_set_new(j, "log", cm_json_text(log_rel));
      json_object_set_new(rec, step, j);
    }
  }
  if (code == 77) {
    rp_stage_set(st, RP_ST_SKIPPED,
                 "no CUDA device (cuda_portfolio exit 77 "
                 "under %s)",
                 step);
  } else if (rp__san_banner(res.out ? res.out : "", &b, berr, sizeof berr) !=
             CM_OK) {
    if (!rep->tool_failed)
      rp_stage_set(st, RP_ST_FAILED, "%s: cannot confirm the allocator: %s",
                   step, berr);
  } else {
    /* the first step's banner, as test and time record theirs: the
     * report's git row reads it (rp_report_common.c) */
    if (json_object_get(st->record, "banner") == NULL)
      json_object_set_new(st->record, "banner", rp_banner_record(&b));
    rp__san_banner_check(st, step, &b);
  }
  rp_step_result_free(&res);
  return code;
}

/* Marks the newest step record (the one rp_stage_step just appended). */
static void rp__san_mark_last(rp_stage_run *st, const char *key, json_t *v) {
  size_t n = json_array_size(st->steps);
  json_t *last = n > 0 ? json_array_get(st->steps, n - 1) : NULL;
  if (last != NULL)
    json_object_set_new(last, key, v);
  else
    json_decref(v);
}

/* One sanitizer step under the stall rule: on a timeout, the stage's status
 * is put back as it was before the attempt (the timeout is answered by the
 * retry, not final) and the step runs once more with the alternative
 * launch. The step name that decided is written to used[size]. */
static int64_t rp__san_attempts(rp_ctx *ctx, rp_stage_run *st, const char *cs,
                                const char *bin, const char *step,
                                const char *tool, int leak, int negative,
                                rp_san_report *rep, json_t *rec, char *used,
                                size_t size) {
  rp_stage_status before = st->status;
  char reason[sizeof st->reason];
  int timed_out;
  int64_t code;
  json_t *one;

  cm_strlcpy(used, step, size);
  cm_strlcpy(reason, st->reason, sizeof reason);
  code = rp__san_step(ctx, st, cs, bin, step, tool, leak, negative, 0,
                      &timed_out, rep, rec);
  if (!timed_out || rp_runner_interrupted())
    return code;
  rp__san_mark_last(st, "retried_after_timeout", json_true());
  st->status = before;
  cm_strlcpy(st->reason, reason, sizeof st->reason);
  rp_san_report_free(rep);
  if (cm_snprintf(used, size, "%s%s", step, RP__SAN_RETRY_SUFFIX) != CM_OK)
    return -1;
  fprintf(stderr,
          "[sanitize] %s timed out; retrying once with " RP__SAN_ALT_OPT
          " " RP__SAN_ALT_VAL "\n",
          step);
  code = rp__san_step(ctx, st, cs, bin, used, tool, leak, negative, 1,
                      &timed_out, rep, rec);
  rp__san_mark_last(st, "retry_of", cm_json_text(step));
  one = json_object_get(rec, used);
  if (one == NULL) {
    /* The retry did not run to an exit either: keep a record of it. */
    one = json_object();
    json_object_set_new(rec, used, one);
    json_object_set_new(one, "timed_out", json_boolean(timed_out));
  }
  json_object_set_new(one, "retried_after_timeout", json_true());
  json_object_set_new(one, "retry_of", cm_json_text(step));
  json_object_set_new(one, "launch",
                      cm_json_text(RP__SAN_ALT_OPT " " RP__SAN_ALT_VAL));
  /* The first attempt's entry: what happened to it. */
  one = json_object();
  json_object_set_new(one, "timed_out", json_true());
  json_object_set_new(one, "retried_after_timeout", json_true());
  json_object_set_new(one, "retry", cm_json_text(used));
  json_object_set_new(rec, step, one);
  return code;
}

static void rp__sanitize_steps(rp_ctx *ctx, rp_stage_run *st) {
  static const struct {
    const char *step, *tool;
    int leak;
  } runs[] = {{"memcheck", "memcheck", 1},
              {"racecheck", "racecheck", 0},
              {"initcheck", "initcheck", 0},
              {"synccheck", "synccheck", 0}};
  char bin[1200], why[1400], used[64];
  rp_tool_info cs;
  json_t *rec = json_object();
  size_t i;
  rp_san_report rep;
  int64_t code;

  if (rec == NULL) {
    rp_stage_set(st, RP_ST_FAILED, "out of memory");
    return;
  }
  json_object_set_new(st->record, "sanitizer", rec);
  json_object_set_new(rec, "error_exitcode", json_integer(RP__SAN_EXIT));
  rp_tool_probe(&ctx->probe, "compute-sanitizer", &cs);
  if (!cs.found) {
    rp_stage_set(st, RP_ST_SKIPPED, "compute-sanitizer not found");
    return;
  }
  json_object_set_new(rec, "tool", cm_json_text(cs.path));
  json_object_set_new(rec, "version", cm_json_text(cs.version));
  if (rp_build_bin(ctx, "cuda_portfolio", bin, sizeof bin) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "build folder path too long");
    return;
  }
  for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    code = rp__san_attempts(ctx, st, cs.path, bin, runs[i].step, runs[i].tool,
                            runs[i].leak, 0, &rep, rec, used, sizeof used);
    if (code >= 0 && code != 77) {
      int clean =
          rp_san_verdict_clean(&rep, (int)code, RP__SAN_EXIT, why, sizeof why);
      json_t *one = json_object_get(rec, used);
      if (one != NULL) {
        json_object_set_new(one, "clean", json_boolean(clean));
        json_object_set_new(one, "verdict", cm_json_text(why));
      }
      if (!clean)
        rp_stage_set(st, RP_ST_FAILED, "%s: %s", runs[i].step, why);
    }
    rp_san_report_free(&rep);
    if (st->status == RP_ST_SKIPPED || rp_runner_interrupted())
      return;
  }
  /* The negative control runs even after a failure above: it says whether
   * the sanitizer can be believed at all. */
  code = rp__san_attempts(ctx, st, cs.path, bin, "negative-control", "memcheck",
                          0, 1, &rep, rec, used, sizeof used);
  if (code >= 0 && code != 77) {
    int caught =
        rp_san_verdict_negative(&rep, (int)code, RP__SAN_EXIT, why, sizeof why);
    json_t *neg = json_object_get(rec, used);
    if (neg != NULL) {
      json_object_set_new(neg, "caught", json_boolean(caught));
      json_object_set_new(neg, "verdict", cm_json_text(why));
    }
    if (!caught)
      rp_stage_set(st, RP_ST_FAILED, "negative control: %s", why);
  }
  rp_san_report_free(&rep);
}

const rp_stage_desc rp_stage_sanitize = {
    "sanitize", "compute-sanitizer memcheck/racecheck/initcheck/synccheck",
    NULL, rp__sanitize_steps, NULL};
