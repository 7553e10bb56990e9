/* Stage `profile`: ncu counters and an nsys timeline (issue 6).
 *
 * Order: counter permission (driver params and the user's rights), then
 *   ncu --profile-from-start off --clock-control none
 *       --export <run>/profile/ncu --force-overwrite
 *       cuda_portfolio --profile-range --smoke (--bench with
 *       --profile-set bench) --json <run>/results/instrumented/profile-ncu.json
 * whose console output is scanned for ERR_NVGPUCTRPERM; its report is
 * exported as CSV (--page raw and --page details, both archived) and merged
 * into one row per launch (profile/ncu-key-metrics.csv), then
 *   nsys profile --capture-range=cudaProfilerApi --capture-range-end=stop
 *       -o <run>/profile/timeline --force-overwrite true
 *       cuda_portfolio --profile-range --smoke
 *       --json <run>/results/instrumented/profile-nsys.json
 * and `nsys stats` on its report when one exists. Exit statuses alone prove
 * nothing here (nsys exits 0 on the H200 having written only a .qdstrm), so
 * the files are checked, and rp_prof_decide (src/repro/tools) turns all of
 * it into the stage's status. Clocks are not locked ("none": the lab's
 * rule); the value used is recorded. Every timing of these runs is filed
 * under results/instrumented only.
 */
#include "cm_error.h"
#include "cm_file.h"
#include "cm_path.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "archive/rp_archive.h"
#include "platform.h"
#include "rp_ncu_parse.h"
#include "rp_nsys_check.h"
#include "rp_profile_verdict.h"
#include "rp_pfrun.h"
#include "rp_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* argv slots for the ncu and nsys commands, --select words included. */
#define RP__PROF_ARGV 48

#define RP__CLOCK_CONTROL "none"

/* Where nsys was found (preflight hook -> steps; one stage at a time). */
static char rp__nsys_path[1024];

/* A step's stdout and stderr as one text (either may be missing). */
static char *rp__prof_console(const rp_ctx *ctx, const rp_step_result *res,
                              size_t *len) {
  size_t el = 0, ol = res->out != NULL ? res->out_len : 0;
  char *err = rp_run_read_log(ctx, res->err_log, &el);
  char *all = malloc(ol + el + 2);
  if (all == NULL) {
    free(err);
    *len = 0;
    return NULL;
  }
  if (ol > 0)
    memcpy(all, res->out, ol);
  all[ol] = '\n';
  if (el > 0)
    memcpy(all + ol + 1, err, el);
  all[ol + 1 + el] = '\0';
  free(err);
  *len = ol + 1 + el;
  return all;
}

/* Size of a file, 0 when absent or empty. */
static uint64_t rp__prof_size(const char *path) {
  char os[4096];
  uv_fs_t req;
  uint64_t n = 0;
  if (cm_path_os(path, os, sizeof os) != CM_OK)
    return 0;
  if (uv_fs_stat(NULL, &req, os, NULL) == 0)
    n = (uint64_t)req.statbuf.st_size;
  uv_fs_req_cleanup(&req);
  return n;
}

void rp_profile_nsys_check(const rp_ctx *ctx, rp_checks *out, char *path,
                           size_t size) {
  rp_tool_info t;
  if (path != NULL && size > 0)
    path[0] = '\0';
  rp_nsys_probe(&ctx->probe, &t);
  if (t.found) {
    rp_checks_add(out, "tool nsys", RP_CHECK_PASS, RP_EFFECT_NONE,
                  "%s, version %s", t.path,
                  t.version[0] ? t.version : "unknown");
    if (path != NULL)
      cm_strlcpy(path, t.path, size);
  } else {
    rp_checks_add(out, "tool nsys", RP_CHECK_WARN, RP_EFFECT_LIMIT,
                  "nsys not found in PATH, the CUDA folders, "
                  "/opt/nvidia/nsight-systems/*/bin or "
                  "/opt/nvidia/nsight-compute/*/host/target-linux-x64");
  }
}

static void rp__profile_preflight(rp_ctx *ctx, rp_stage_run *st) {
  rp_profile_nsys_check(ctx, &st->checks, rp__nsys_path, sizeof rp__nsys_path);
}

/* Runs `ncu --import REP --csv --page PAGE`, archives its stdout as
 * profile/<file> and parses it into *t. Returns CM_OK when parsed. */
static int rp__ncu_page(rp_ctx *ctx, rp_stage_run *st, const char *ncu,
                        const char *rep, const char *page, const char *file,
                        rp_ncu_table *t) {
  const char *argv[9];
  char step[64], rel[128];
  rp_step_result res;
  int r = CM_EIO;
  memset(t, 0, sizeof *t);
  argv[0] = ncu;
  argv[1] = "--import";
  argv[2] = rep;
  argv[3] = "--csv";
  argv[4] = "--page";
  argv[5] = page;
  argv[6] = NULL;
  cm_snprintf(step, sizeof step, "ncu-%s", page);
  cm_snprintf(rel, sizeof rel, "profile/%s", file);
  if (rp_stage_step(ctx, st, step, argv, NULL, 1, &res) != CM_OK)
    return CM_EIO;
  if (rp_step_ok(&res)) {
    char *owned;
    size_t olen;
    const char *o = rp_step_stdout(ctx, &res, &olen, &owned);
    if (o != NULL) {
      if (rp_write_file_atomic(ctx->run_dir, rel, o, olen) != CM_OK)
        ctx->io_error = 1;
      r = rp_ncu_parse_csv(o, olen, t);
    }
    free(owned);
  }
  rp_step_result_free(&res);
  return r;
}

/* The profiled binary's results JSON stays under results/instrumented. One
 * that calls itself clean (the binary missed the tool's markers) may sit in
 * neither results folder: not among clean results, and not among
 * instrumented ones, which only ever hold "instrumented": true (verify
 * refuses a run that breaks that, docs/AUDIT.md). It is moved to
 * profile/unflagged/, kept and hashed but read by no results reader, and
 * the record says why. */
static void rp__note_result(rp_ctx *ctx, json_t *rec, const char *name) {
  char path[1400], rel[256], moved[256];
  int r;
  cm_snprintf(rel, sizeof rel, "results/instrumented/%s", name);
  if (cm_snprintf(path, sizeof path, "%s/%s", ctx->run_dir, rel) ||
      !plat_path_exists(path))
    return;
  r = rp_results_check_clean(path);
  if (r != CM_OK) {
    json_object_set_new(rec, "result", cm_json_text(rel));
    return;
  }
  if (cm_snprintf(moved, sizeof moved, "profile/unflagged/%s", name) ||
      rp_move_in_run(ctx->run_dir, rel, moved) != CM_OK) {
    ctx->io_error = 1; /* left in results/instrumented/: verify names it */
    return;
  }
  json_object_set_new(rec, "result", cm_json_text(moved));
  json_object_set_new(rec, "result_warning",
                      cm_json_text("the binary marked this profiled run "
                                   "instrumented: false (it missed the "
                                   "tool's markers); kept out of both "
                                   "results folders, in profile/unflagged/"));
}

/* Appends the profiled program to a profiler's argv: cuda_portfolio with one
 * marked launch per case of the smoke set, or of the benchmark set with
 * --profile-set bench (--select narrows either), its
 * results to json_out (an instrumented file), and --gpu. sel and gpu are
 * the caller's buffers the words point into. NULL-terminates argv. */
static int rp__portfolio_argv(rp_ctx *ctx, rp_stage_run *st, const char *bin,
                              const char *json_out, char *sel, size_t sel_size,
                              char *gpu, size_t gpu_size, const char **argv,
                              int *n) {
  argv[(*n)++] = bin;
  argv[(*n)++] = "--profile-range";
  argv[(*n)++] = ctx->opt.profile_bench ? "--bench" : "--smoke";
  if (rp_select_args(ctx, sel, sel_size, argv, n, RP__PROF_ARGV - 8) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "--select has too many words");
    return CM_ERANGE;
  }
  argv[(*n)++] = "--json";
  argv[(*n)++] = json_out;
  rp_gpu_args(ctx, gpu, gpu_size, argv, n);
  argv[*n] = NULL;
  return CM_OK;
}

/* ncu: the run, then its pages. Fills the ncu part of *in; *table gets the
 * merged rows. */
static void rp__run_ncu(rp_ctx *ctx, rp_stage_run *st, const char *bin,
                        rp_prof_inputs *in, rp_ncu_table *table, json_t *rec,
                        char *line, size_t line_size) {
  char rep_base[1300], rep[1400], json_out[1400], gpu[32];
  const char *argv[RP__PROF_ARGV];
  char sel[512];
  int n = 0;
  rp_tool_info ncu;
  rp_step_result res;
  size_t len, i;
  char *text;

  memset(table, 0, sizeof *table);
  rp_tool_probe(&ctx->probe, "ncu", &ncu);
  in->ncu_found = ncu.found;
  if (!ncu.found)
    return;
  json_object_set_new(rec, "tool", cm_json_text(ncu.path));
  json_object_set_new(rec, "version", cm_json_text(ncu.version));
  json_object_set_new(rec, "clock_control", cm_json_text(RP__CLOCK_CONTROL));
  json_object_set_new(rec, "case_set",
                      cm_json_text(ctx->opt.profile_bench ? "bench" : "smoke"));
  cm_snprintf(rep_base, sizeof rep_base, "%s/profile/ncu", ctx->run_dir);
  cm_snprintf(rep, sizeof rep, "%s.ncu-rep", rep_base);
  cm_snprintf(json_out, sizeof json_out,
              "%s/results/instrumented/profile-ncu.json", ctx->run_dir);
  argv[n++] = ncu.path;
  argv[n++] = "--profile-from-start";
  argv[n++] = "off";
  argv[n++] = "--clock-control";
  argv[n++] = RP__CLOCK_CONTROL;
  argv[n++] = "--export";
  argv[n++] = rep_base;
  argv[n++] = "--force-overwrite";
  if (rp__portfolio_argv(ctx, st, bin, json_out, sel, sizeof sel, gpu,
                         sizeof gpu, argv, &n) != CM_OK)
    return;
  if (rp_stage_step(ctx, st, "ncu", argv, NULL, 1, &res) != CM_OK)
    return;
  in->ncu_ran = !res.timed_out && !res.interrupted && res.term_signal == 0;
  in->ncu_exit = res.exit_code;
  text = rp__prof_console(ctx, &res, &len);
  if (text != NULL) {
    in->ncu_issue = rp_ncu_scan_output(text, len, line, line_size);
    json_object_set_new(
        rec, "launches_profiled",
        json_integer((json_int_t)rp_ncu_count_profiled(text, len)));
    free(text);
  }
  in->ncu_line = line;
  json_object_set_new(rec, "exit_code", json_integer(res.exit_code));
  json_object_set_new(rec, "issue",
                      cm_json_text(rp_ncu_issue_name(in->ncu_issue)));
  if (line[0] != '\0')
    json_object_set_new(rec, "diagnostic", cm_json_text(line));
  json_object_set_new(rec, "console_logs",
                      json_pack("[ss]", res.out_log, res.err_log));
  rp_step_result_free(&res);
  rp__note_result(ctx, rec, "profile-ncu.json");
  in->ncu_report = rp__prof_size(rep) > 0;
  if (!in->ncu_report || in->ncu_issue == RP_NCU_NO_PERMISSION)
    return;
  json_object_set_new(rec, "report", cm_json_text("profile/ncu.ncu-rep"));
  {
    rp_ncu_table det;
    int r1 = rp__ncu_page(ctx, st, ncu.path, rep, "raw", "ncu-raw.csv", table);
    int r2 = rp__ncu_page(ctx, st, ncu.path, rep, "details", "ncu-details.csv",
                          &det);
    if (r1 != CM_OK && r2 == CM_OK) {
      rp_ncu_table_free(table);
      *table = det;
    } else if (r2 == CM_OK) {
      if (rp_ncu_table_merge(table, &det) != CM_OK)
        rp_stage_set(st, RP_ST_FAILED, "out of memory merging ncu pages");
      rp_ncu_table_free(&det);
    }
  }
  in->ncu_rows = table->count;
  in->ncu_timed_rows = 0;
  for (i = 0; i < table->count; i++)
    in->ncu_timed_rows += isfinite(table->rows[i].duration_ns) ? 1 : 0;
}

/* nsys: the run, the file check, and stats when a report exists. */
static void rp__run_nsys(rp_ctx *ctx, rp_stage_run *st, const char *bin,
                         rp_prof_inputs *in, rp_nsys_result *nr, json_t *rec,
                         char *line, size_t line_size) {
  char out_base[1300], dir[1300], json_out[1400], gpu[32];
  const char *argv[RP__PROF_ARGV];
  char sel[512];
  int n = 0;
  rp_step_result res;
  size_t len;
  char *text;

  in->nsys_found = rp__nsys_path[0] != '\0';
  in->stats_exit = -1;
  memset(nr, 0, sizeof *nr);
  nr->outcome = RP_NSYS_NOTHING;
  if (!in->nsys_found)
    return;
  json_object_set_new(rec, "tool", cm_json_text(rp__nsys_path));
  cm_snprintf(dir, sizeof dir, "%s/profile", ctx->run_dir);
  cm_snprintf(out_base, sizeof out_base, "%s/timeline", dir);
  cm_snprintf(json_out, sizeof json_out,
              "%s/results/instrumented/profile-nsys.json", ctx->run_dir);
  argv[n++] = rp__nsys_path;
  argv[n++] = "profile";
  argv[n++] = "--capture-range=cudaProfilerApi";
  argv[n++] = "--capture-range-end=stop";
  argv[n++] = "-o";
  argv[n++] = out_base;
  argv[n++] = "--force-overwrite";
  argv[n++] = "true";
  if (rp__portfolio_argv(ctx, st, bin, json_out, sel, sizeof sel, gpu,
                         sizeof gpu, argv, &n) != CM_OK)
    return;
  if (rp_stage_step(ctx, st, "nsys", argv, NULL, 1, &res) != CM_OK)
    return;
  in->nsys_ran = !res.timed_out && !res.interrupted && res.term_signal == 0;
  in->nsys_exit = res.exit_code;
  text = rp__prof_console(ctx, &res, &len);
  if (text != NULL) {
    rp_nsys_scan_output(text, len, line, line_size);
    free(text);
  }
  in->nsys_importer = line;
  json_object_set_new(rec, "exit_code", json_integer(res.exit_code));
  rp_step_result_free(&res);
  rp__note_result(ctx, rec, "profile-nsys.json");
  if (rp_nsys_check(dir, "timeline", nr) != CM_OK) {
    cm_strlcpy(nr->reason, "run folder path too long", sizeof nr->reason);
    nr->outcome = RP_NSYS_NOTHING;
  }
  in->nsys_outcome = nr->outcome;
  in->nsys_reason = nr->reason;
  json_object_set_new(rec, "outcome",
                      cm_json_text(rp_nsys_outcome_name(nr->outcome)));
  json_object_set_new(rec, "files_reason", cm_json_text(nr->reason));
  if (line[0] != '\0')
    json_object_set_new(rec, "importer", cm_json_text(line));
  if (nr->qdstrm[0] != '\0') {
    /* The raw capture cannot be opened without the importer and runs to
     * tens of MiB: record its hash and size, keep it out of the bundle. */
    char hex[CM_SHA256_HEX_LEN];
    uint64_t sz = 0;
    if (cm_sha256_file(nr->qdstrm, hex, &sz) == CM_OK)
      json_object_set_new(rec, "qdstrm",
                          json_pack("{s:I,s:s,s:b}", "bytes", (json_int_t)sz,
                                    "sha256", hex, "archived", 0));
    cm_remove(nr->qdstrm);
  }
  if (nr->outcome == RP_NSYS_REPORT) {
    const char *sargv[8];
    const char *base = strrchr(nr->report, '/');
    sargv[0] = rp__nsys_path;
    sargv[1] = "stats";
    sargv[2] = nr->report;
    sargv[3] = NULL;
    json_object_set_new(rec, "report",
                        json_pack("s+", "profile/", base ? base + 1 : "?"));
    if (rp_stage_step(ctx, st, "nsys-stats", sargv, NULL, 1, &res) == CM_OK) {
      char *owned;
      size_t olen;
      const char *o = rp_step_stdout(ctx, &res, &olen, &owned);
      in->stats_exit = res.timed_out || res.term_signal ? -1 : res.exit_code;
      if (o != NULL &&
          rp_write_file_atomic(ctx->run_dir, "profile/nsys-stats.txt", o,
                               olen) == CM_OK)
        json_object_set_new(rec, "stats",
                            cm_json_text("profile/nsys-stats.txt"));
      free(owned);
      rp_step_result_free(&res);
    }
  }
}

static void rp__profile_steps(rp_ctx *ctx, rp_stage_run *st) {
  char bin[1200], dir[1300], ncu_line[512] = "", nsys_line[512] = "";
  plat_counter_perm perm;
  rp_prof_inputs in;
  rp_prof_verdict v;
  rp_ncu_table table;
  rp_nsys_result nr;
  json_t *rec = json_object(), *ncu_rec = json_object(),
         *nsys_rec = json_object();
  int priv;

  json_object_set_new(st->record, "profile", rec);
  json_object_set_new(rec, "ncu", ncu_rec);
  json_object_set_new(rec, "nsys", nsys_rec);
  if (rp_build_bin(ctx, "cuda_portfolio", bin, sizeof bin) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "build folder path too long");
    return;
  }
  cm_snprintf(dir, sizeof dir, "%s/profile", ctx->run_dir);
  if (plat_mkdir_p(dir) != CM_OK ||
      cm_snprintf(dir, sizeof dir, "%s/results/instrumented", ctx->run_dir) ||
      plat_mkdir_p(dir) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "cannot create %s", dir);
    return;
  }
  memset(&in, 0, sizeof in);
  /* Permission first: it decides whether ncu's numbers can be claimed. */
  priv = ctx->probe.use_privileged ? ctx->probe.privileged : -1;
  plat_counter_permission(ctx->probe.params_path, priv, &perm);
  in.perm_allowed = perm.allowed;
  in.perm_detail = perm.detail;
  json_object_set_new(rec, "counters",
                      json_pack("{s:b,s:i,s:b,s:b,s:s}", "allowed",
                                perm.allowed, "admin_only", perm.admin_only,
                                "privileged", perm.privileged, "params_found",
                                perm.params_found, "detail", perm.detail));

  rp__run_ncu(ctx, st, bin, &in, &table, ncu_rec, ncu_line, sizeof ncu_line);
  if (rp_runner_interrupted()) {
    rp_ncu_table_free(&table);
    return;
  }
  if (!(in.ncu_ran && in.ncu_exit == 77))
    rp__run_nsys(ctx, st, bin, &in, &nr, nsys_rec, nsys_line, sizeof nsys_line);

  rp_prof_decide(&in, &v);
  json_object_set_new(rec, "counters_claimed",
                      json_boolean(v.counters_claimed));
  json_object_set_new(ncu_rec, "status",
                      cm_json_text(rp_prof_status_name(v.ncu_status)));
  json_object_set_new(nsys_rec, "status",
                      cm_json_text(rp_prof_status_name(v.nsys_status)));
  if (v.ncu_reason[0])
    json_object_set_new(ncu_rec, "reason", cm_json_text(v.ncu_reason));
  if (v.nsys_reason[0])
    json_object_set_new(nsys_rec, "reason", cm_json_text(v.nsys_reason));
  if (v.counters_claimed) {
    char *csv = NULL;
    json_object_set_new(ncu_rec, "kernels", rp_ncu_table_json(&table));
    if (rp_ncu_table_csv(&table, &csv) == CM_OK &&
        rp_write_file_atomic(ctx->run_dir, "profile/ncu-key-metrics.csv", csv,
                             strlen(csv)) == CM_OK)
      json_object_set_new(ncu_rec, "key_metrics",
                          cm_json_text("profile/ncu-key-metrics.csv"));
    free(csv);
  }
  rp_ncu_table_free(&table);
  if (v.status != RP_PROF_PASSED)
    rp_stage_set(st,
                 v.status == RP_PROF_LIMITED   ? RP_ST_LIMITED
                 : v.status == RP_PROF_SKIPPED ? RP_ST_SKIPPED
                                               : RP_ST_FAILED,
                 "%s", v.reason);
}

const rp_stage_desc rp_stage_profile = {
    "profile", "ncu (counters) and nsys (timeline), one launch per case",
    rp__profile_preflight, rp__profile_steps, NULL};
