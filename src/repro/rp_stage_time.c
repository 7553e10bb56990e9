/* Stage `time`: cuda_portfolio --json, uninstrumented. The contract forbids
 * every instrumentation marker in repro's own environment (preflight refuses,
 * naming it) and scrubs them from the child's; afterwards the result's own
 * "instrumented" field decides where it is filed, and a file that is no
 * results document (malformed, or cut short by an interrupt) is moved out of
 * results/clean/ to results/unreadable/. */
#include "archive/rp_archive.h"
#include "cm_file.h"
#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_pfrun.h"

#include <stdio.h>
#include <string.h>

#define RP__TIME_JSON "time.json"
/* Where cuda_portfolio writes it before renaming it to RP__TIME_JSON
 * (plat_write_file_atomic): left behind when it is ended mid-write. */
#define RP__TIME_JSON_TMP RP__TIME_JSON ".tmp"

static void rp__time_file(rp_ctx *ctx, rp_stage_run *st,
                          const char *banner_markers);

static void rp__time_steps(rp_ctx *ctx, rp_stage_run *st) {
  char dir[1300], path[1400];
  const char *args[40];
  char sel[512];
  int n = 3;
  rp_banner b;
  int have = 0, code;
  if (cm_snprintf(dir, sizeof dir, "%s/results/clean", ctx->run_dir) != CM_OK ||
      cm_snprintf(path, sizeof path, "%s/" RP__TIME_JSON, dir) != CM_OK ||
      plat_mkdir_p(dir) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "cannot create %s", dir);
    return;
  }
  args[0] = "--bench";
  args[1] = "--json";
  args[2] = path;
  if (rp_select_args(ctx, sel, sizeof sel, args, &n, 16) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "--select has too many words");
    return;
  }
  if (ctx->opt.lock_clocks[0] != '\0') {
    args[n++] = "--lock-clocks";
    args[n++] = ctx->opt.lock_clocks;
    json_object_set_new(st->record, "lock_clocks",
                        cm_json_text(ctx->opt.lock_clocks));
  }
  args[n] = NULL;
  if (ctx->opt.select[0] != '\0')
    json_object_set_new(st->record, "select", cm_json_text(ctx->opt.select));
  code = rp_portfolio_step(ctx, st, "cuda_portfolio", args, &b, &have);
  if (code == 0 && have && b.instrumented)
    rp_stage_set(st, RP_ST_FAILED,
                 "cuda_portfolio saw instrumentation markers (%s) despite "
                 "the scrubbed environment",
                 b.markers);
  /* Here, not in a post hook: the engine runs no post hook once the run is
   * interrupted, and an interrupted cuda_portfolio is the one that leaves
   * a partial file behind. */
  rp__time_file(ctx, st, have && b.instrumented ? b.markers : NULL);
}

/* Moves results/clean/<name> to results/unreadable/<name>, where verify
 * does not read it as a result, and names it in the stage record's
 * "unreadable"[]: out of the clean results, but kept, as every file of a
 * run is. Returns CM_OK or why it could not be moved. */
static int rp__time_set_aside(rp_ctx *ctx, rp_stage_run *st, const char *name) {
  char src[256], rel[256];
  json_t *list;
  int r = cm_snprintf(src, sizeof src, "results/clean/%s", name);
  if (r == CM_OK)
    r = cm_snprintf(rel, sizeof rel, "results/unreadable/%s", name);
  if (r == CM_OK)
    r = rp_move_in_run(ctx->run_dir, src, rel);
  if (r != CM_OK) {
    /* Left among the clean results, where verify will name it. */
    ctx->io_error = 1;
    return r;
  }
  list = json_object_get(st->record, "unreadable");
  if (list == NULL) {
    list = json_array();
    json_object_set_new(st->record, "unreadable", list);
  }
  json_array_append_new(list, cm_json_text(rel));
  return CM_OK;
}

/* Files the JSON by its own flag: an instrumented result never stays among
 * clean ones, and neither does a file that is no results document: one
 * cuda_portfolio wrote malformed, or one it had not finished when it was
 * interrupted (its temporary RP__TIME_JSON_TMP, or RP__TIME_JSON cut short
 * by a binary that writes it directly). Left in results/clean/, such a file
 * made the run's own archive fail `repro verify` ("results document without
 * a boolean instrumented"). */
static void rp__time_file(rp_ctx *ctx, rp_stage_run *st,
                          const char *banner_markers) {
  char path[1400], dst[1400];
  int r;
  if (cm_snprintf(path, sizeof path, "%s/results/clean/" RP__TIME_JSON_TMP,
                  ctx->run_dir) != CM_OK)
    return;
  if (plat_path_exists(path)) {
    r = rp__time_set_aside(ctx, st, RP__TIME_JSON_TMP);
    rp_stage_set(st, RP_ST_FAILED,
                 "cuda_portfolio left its results file unfinished (%s)%s%s",
                 RP__TIME_JSON_TMP,
                 r == CM_OK ? "; moved to results/unreadable/"
                            : "; could not be moved out of results/clean/: ",
                 r == CM_OK ? "" : cm_strerror(r));
  }
  if (cm_snprintf(path, sizeof path, "%s/results/clean/" RP__TIME_JSON,
                  ctx->run_dir) != CM_OK)
    return;
  if (!plat_path_exists(path)) {
    if (st->status == RP_ST_PASSED || st->status == RP_ST_LIMITED)
      rp_stage_set(st, RP_ST_FAILED, "cuda_portfolio wrote no %s", path);
    return;
  }
  r = rp_results_check_clean(path);
  if (r == CM_OK && banner_markers != NULL) {
    /* The banner saw markers while the file says instrumented: false: the
     * two records of one process disagree, and either is enough to keep the
     * file out of the clean results (filed by its own flag, it would land
     * among them again). */
    r = rp__time_set_aside(ctx, st, RP__TIME_JSON);
    rp_stage_set(st, RP_ST_FAILED,
                 "cuda_portfolio's banner saw instrumentation markers (%s) "
                 "but its results file says instrumented: false; %s",
                 banner_markers,
                 r == CM_OK ? "moved to results/unreadable/, out of the clean "
                              "results"
                            : "it could not be moved out of results/clean/");
    return;
  }
  if (r == CM_OK) {
    json_object_set_new(st->record, "result",
                        cm_json_text("results/clean/" RP__TIME_JSON));
    return;
  }
  if (r == CM_EREFUSED) {
    r = rp_results_file(ctx->run_dir, path, RP__TIME_JSON, dst, sizeof dst);
    if (r == CM_OK && cm_remove(path) != 0)
      r = CM_EIO;
    json_object_set_new(st->record, "result",
                        cm_json_text("results/instrumented/" RP__TIME_JSON));
    rp_stage_set(st, RP_ST_FAILED,
                 "result says instrumented: true; filed under "
                 "results/instrumented%s",
                 r == CM_OK ? "" : " (move failed)");
    if (r != CM_OK)
      ctx->io_error = 1;
    return;
  }
  {
    int moved = rp__time_set_aside(ctx, st, RP__TIME_JSON);
    /* After an interrupt the stage has already failed with that reason,
     * which stays first; the record's "unreadable" names the file. */
    rp_stage_set(st, RP_ST_FAILED,
                 "results/clean/" RP__TIME_JSON
                 " is not a results document, no boolean \"instrumented\" "
                 "(%s)%s%s",
                 cm_strerror(r),
                 moved == CM_OK ? "; moved to results/unreadable/"
                                : "; could not be moved out of "
                                  "results/clean/: ",
                 moved == CM_OK ? "" : cm_strerror(moved));
  }
}

/* --lock-clocks: cuda_portfolio locks through NVML, which needs root. */
void rp_time_lock_check(const rp_ctx *ctx, rp_checks *out) {
  if (ctx->opt.lock_clocks[0] == '\0')
    return;
  rp_lock_clocks_check(ctx->opt.lock_clocks,
                       ctx->probe.use_privileged ? ctx->probe.privileged
                                                 : plat_is_privileged() == 1,
                       out);
}

static void rp__time_preflight(rp_ctx *ctx, rp_stage_run *st) {
  rp_time_lock_check(ctx, &st->checks);
}

const rp_stage_desc rp_stage_time = {
    "time", "cuda_portfolio --bench --json, uninstrumented, on an idle GPU",
    rp__time_preflight, rp__time_steps, NULL};
