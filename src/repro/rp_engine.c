/* The stage engine: run folder and manifest, contract + preflight, the
 * stage hooks, and the step API every stage uses. */
#include "rp_stage.h"
#ifdef RP_HAVE_REPORT
#include "rp_report.h"
#endif
#include "archive/rp_archive.h"
#include "cm_error.h"
#include "cm_path.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_exit.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

const char *rp_stage_status_name(rp_stage_status s) {
  switch (s) {
  case RP_ST_PASSED:
    return "passed";
  case RP_ST_LIMITED:
    return "limited";
  case RP_ST_SKIPPED:
    return "skipped";
  default:
    return "failed";
  }
}

void rp_stage_set(rp_stage_run *st, rp_stage_status s, const char *fmt, ...) {
  va_list ap;
  if (s < st->status)
    return;
  /* Same severity: keep the first reason, it is usually the cause. */
  if (s == st->status && st->reason[0] != '\0')
    return;
  st->status = s;
  va_start(ap, fmt);
  (void)cm_vsnprintf(st->reason, sizeof st->reason, fmt, ap); /* cut: kept */
  va_end(ap);
}

int rp_step_ok(const rp_step_result *res) {
  return res->spawned && res->exit_code == 0 && res->term_signal == 0 &&
         !res->timed_out && !res->interrupted;
}

int rp_build_bin(const rp_ctx *ctx, const char *name, char *buf, size_t size) {
  return cm_snprintf(buf, size, "%s/bin/%s%s", ctx->opt.build_dir, name,
                     plat_exe_suffix());
}

char *rp_run_read_log(const rp_ctx *ctx, const char *rel, size_t *len) {
  char *buf = NULL;
  *len = 0;
  if (rel[0] == '\0' || rp_log_read(ctx->run_dir, rel, &buf, len) != CM_OK)
    return NULL;
  return buf;
}

const char *rp_step_stdout(const rp_ctx *ctx, const rp_step_result *res,
                           size_t *len, char **owned) {
  *owned = NULL;
  *len = 0;
  if (res->out != NULL && (uint64_t)res->out_len >= res->out_bytes) {
    *len = res->out_len;
    return res->out;
  }
  *owned = rp_run_read_log(ctx, res->out_log, len);
  return *owned;
}

int rp_stage_contract_path(const rp_ctx *ctx, const char *name, char *buf,
                           size_t size) {
  return cm_snprintf(buf, size, "%s/%s.contract", ctx->env_dir, name);
}

int rp_make_run_id(int64_t epoch_s, const char *host, unsigned rnd, char *buf,
                   size_t size) {
  char stamp[32], clean[64];
  struct tm tm;
  time_t t = (time_t)epoch_s;
  size_t i, k = 0;
#if defined(_WIN32)
  if (gmtime_s(&tm, &t) != 0)
    return CM_ERANGE;
#else
  if (gmtime_r(&t, &tm) == NULL)
    return CM_ERANGE;
#endif
  if (strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm) == 0)
    return CM_ERANGE;
  /* The host name becomes part of a path: keep [A-Za-z0-9-] only. */
  for (i = 0; host[i] != '\0' && k < sizeof clean - 1 && k < 32; i++) {
    char ch = host[i];
    if (ch == '.')
      break; /* the short name is enough */
    clean[k++] = ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '-')
                     ? ch
                     : '-';
  }
  clean[k] = '\0';
  if (k == 0)
    cm_strlcpy(clean, "host", sizeof clean);
  return cm_snprintf(buf, size, "%s-%s-%04x", stamp, clean, rnd & 0xffffu);
}

int rp_make_run_dir(const char *parent, int64_t epoch_s, const char *host,
                    const unsigned *rnd, int tries, char *id, size_t id_size,
                    char *dir, size_t dir_size) {
  int i, r = plat_mkdir_p(parent);
  /* plat_mkdir_p on Windows says CM_EEXIST for a file in a folder's place;
   * that is no taken run id. */
  if (r == CM_EEXIST)
    r = CM_ENOTDIR;
  for (i = 0; r == CM_OK && i < tries; i++) {
    r = rp_make_run_id(epoch_s, host, rnd[i], id, id_size);
    if (r == CM_OK)
      r = cm_snprintf(dir, dir_size, "%s/%s", parent, id);
    if (r == CM_OK)
      r = plat_mkdir_new(dir);
    if (r == CM_OK)
      return CM_OK;
    if (r == CM_EEXIST && i + 1 < tries)
      r = CM_OK; /* another run's folder: draw again */
  }
  return r == CM_OK ? CM_EEXIST : r;
}

/* The random parts of the run ids to try, RP_RUN_ID_TRIES of them. */
static void rp__run_id_random(unsigned *rnd) {
  unsigned char b[2 * RP_RUN_ID_TRIES];
  int i;
  if (uv_random(NULL, NULL, b, sizeof b, 0, NULL) == 0) {
    for (i = 0; i < RP_RUN_ID_TRIES; i++)
      rnd[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
    return;
  }
  /* Without an entropy source, time and pid still separate two runs
   * started in the same second on one host; a linear congruential step
   * gives each try its own value. */
  {
    unsigned v = (unsigned)uv_os_getpid() ^ (unsigned)(uv_hrtime() >> 10);
    for (i = 0; i < RP_RUN_ID_TRIES; i++) {
      v = v * 1103515245u + 12345u;
      rnd[i] = (v >> 16) & 0xffffu;
    }
  }
}

/* Says on stderr why the run folder could not be made (r from
 * rp_make_run_dir), and what to do about it. */
static void rp__run_dir_error(const rp_ctx *ctx, int r) {
  const char *parent = ctx->opt.out_parent;
  if (plat_path_exists(parent) && !plat_path_is_dir(parent))
    fprintf(stderr,
            "repro: cannot create run folder %s: %s is a file, not a "
            "folder; give --out a folder (or leave it out: <root>/logs)\n",
            ctx->run_dir[0] ? ctx->run_dir : parent, parent);
  else if (r == CM_EEXIST)
    fprintf(stderr,
            "repro: cannot create a run folder under %s: the folders of "
            "all %d run ids drawn (the last %s) exist already, so each "
            "belongs to another run; run again, or give --out a folder of "
            "its own\n",
            parent, RP_RUN_ID_TRIES, ctx->run_dir);
  else
    fprintf(stderr,
            "repro: cannot create run folder %s: %s; give --out a folder "
            "repro may create folders in (or leave it out: <root>/logs)\n",
            ctx->run_dir[0] ? ctx->run_dir : parent, cm_strerror(r));
}

/* Runs a git query in the root; the first line of its stdout into buf. */
static int rp__git(const rp_ctx *ctx, const char *const *args, char *buf,
                   size_t size, size_t *out_len) {
  rp_step_spec sp;
  rp_step_result res;
  int r;
  memset(&sp, 0, sizeof sp);
  sp.argv = args;
  sp.cwd = ctx->opt.root;
  sp.timeout_s = 30;
  sp.grace_s = 1;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  r = rp_step_run(&sp, &res);
  if (r == CM_OK && !rp_step_ok(&res))
    r = CM_EIO;
  if (r == CM_OK) {
    char *nl = strchr(res.out, '\n');
    if (out_len != NULL)
      *out_len = res.out_len;
    if (nl != NULL)
      *nl = '\0';
    cm_strlcpy(buf, res.out, size);
  }
  rp_step_result_free(&res);
  return r;
}

static void rp__manifest_git(rp_ctx *ctx, json_t *m) {
  static const char *const head[] = {"git", "rev-parse", "HEAD", NULL};
  static const char *const st[] = {"git", "status", "--porcelain", NULL};
  char commit[128], first[512];
  size_t len = 0;
  json_t *g = json_object();
  if (rp__git(ctx, head, commit, sizeof commit, NULL) != CM_OK ||
      commit[0] == '\0') {
    json_object_set_new(g, "commit", cm_json_text("unknown"));
    json_object_set_new(g, "dirty", json_null());
  } else {
    json_object_set_new(g, "commit", cm_json_text(commit));
    if (rp__git(ctx, st, first, sizeof first, &len) == CM_OK)
      json_object_set_new(g, "dirty", json_boolean(len > 0));
    else
      json_object_set_new(g, "dirty", json_null());
  }
  json_object_set_new(m, "git", g);
}

static void rp__manifest_tools(rp_ctx *ctx, json_t *m) {
  static const char *const names[] = {
      "cmake", "nvcc", "compute-sanitizer", "ncu", "nsys", "cuobjdump", NULL};
  json_t *t = json_object();
  int i;
  for (i = 0; names[i] != NULL; i++) {
    rp_tool_info info;
    json_t *o = json_object();
    /* nsys: the one the profile stage runs, wherever it was found */
    if (strcmp(names[i], "nsys") == 0)
      rp_nsys_probe(&ctx->probe, &info);
    else
      rp_tool_probe(&ctx->probe, names[i], &info);
    json_object_set_new(o, "found", json_boolean(info.found));
    if (info.found) {
      json_object_set_new(o, "path", cm_json_text(info.path));
      json_object_set_new(o, "version",
                          info.version[0] ? cm_json_text(info.version)
                                          : json_null());
    }
    json_object_set_new(t, names[i], o);
  }
  json_object_set_new(m, "tools", t);
}

int rp_engine_begin(rp_ctx *ctx, int argc, char **argv, const char *command) {
  char host[256], now[64];
  unsigned rnd[RP_RUN_ID_TRIES];
  json_t *m, *a, *o;
  int i, r;

  if (plat_hostname(host, sizeof host) != CM_OK)
    cm_strlcpy(host, "unknown", sizeof host);
  rp__run_id_random(rnd);
  ctx->run_dir[0] = '\0';
  r = cm_snprintf(ctx->env_dir, sizeof ctx->env_dir, "%s/env", ctx->opt.root);
  if (r == CM_OK)
    r = rp_make_run_dir(ctx->opt.out_parent, (int64_t)time(NULL), host, rnd,
                        RP_RUN_ID_TRIES, ctx->run_id, sizeof ctx->run_id,
                        ctx->run_dir, sizeof ctx->run_dir);
  if (r != CM_OK) {
    rp__run_dir_error(ctx, r);
    return r;
  }
  ctx->manifest = m = json_object();
  json_object_set_new(m, "schema_version",
                      json_integer(RP_MANIFEST_SCHEMA_VERSION));
  json_object_set_new(m, "run_id", cm_json_text(ctx->run_id));
  plat_utc_now(now, sizeof now);
  json_object_set_new(m, "started", cm_json_text(now));
  json_object_set_new(m, "ended", json_null());
  json_object_set_new(m, "status", cm_json_text("failed"));
  json_object_set_new(m, "command", cm_json_text(command));
  json_object_set_new(m, "host", cm_json_text(host));
  json_object_set_new(m, "os", cm_json_text(plat_os_name(plat_os_detect())));
  if (plat_os_release(now, sizeof now) == CM_OK)
    json_object_set_new(m, "os_release", cm_json_text(now));
  json_object_set_new(m, "repro_version", cm_json_text(RP_VERSION));
  a = json_array();
  for (i = 0; i < argc; i++)
    json_array_append_new(a, cm_json_text(argv[i]));
  json_object_set_new(m, "argv", a);
  o = json_object();
  json_object_set_new(o, "preset", cm_json_text(ctx->opt.preset));
  json_object_set_new(o, "build_dir", cm_json_text(ctx->opt.build_dir));
  json_object_set_new(
      o, "gpu", ctx->opt.gpu >= 0 ? json_integer(ctx->opt.gpu) : json_null());
  json_object_set_new(o, "strict", json_boolean(ctx->opt.strict));
  json_object_set_new(o, "keep_going", json_boolean(ctx->opt.keep_going));
  json_object_set_new(o, "prebuilt", json_boolean(ctx->opt.prebuilt));
  json_object_set_new(o, "select", cm_json_text(ctx->opt.select));
  json_object_set_new(o, "profile_set",
                      cm_json_text(ctx->opt.profile_bench ? "bench" : "smoke"));
  json_object_set_new(o, "lock_clocks",
                      ctx->opt.lock_clocks[0] != '\0'
                          ? cm_json_text(ctx->opt.lock_clocks)
                          : json_null());
  json_object_set_new(m, "options", o);
  rp__manifest_git(ctx, m);
  rp__manifest_tools(ctx, m);
  ctx->stages = json_array();
  json_object_set_new(m, "stages", ctx->stages);
  fprintf(stderr, "repro: run %s -> %s\n", ctx->run_id, ctx->run_dir);
  return CM_OK;
}

int rp_stage_step(rp_ctx *ctx, rp_stage_run *st, const char *step,
                  const char *const *argv, const char *const *extra_env,
                  int capture, rp_step_result *res) {
  rp_step_spec sp;
  char base[256];
  char **env = NULL;
  json_t *rec, *a;
  int r, i;

  memset(res, 0, sizeof *res);
  r = rp_contract_child_env(&st->contract, plat_environ(), extra_env, &env);
  if (r == CM_OK)
    r = cm_snprintf(base, sizeof base, "%s/%s", st->desc->name, step);
  if (r != CM_OK) {
    rp_env_free(env);
    rp_stage_set(st, RP_ST_FAILED, "step %s: %s", step, cm_strerror(r));
    return r;
  }
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.env = env;
  sp.cwd = ctx->opt.root;
  sp.timeout_s = st->contract.timeout_s;
  sp.run_dir = ctx->run_dir;
  sp.log_base = base;
  sp.capture_stdout = capture;
  sp.stage = st->desc->name;
  sp.step = step;
  sp.verbose = ctx->opt.verbose;
  r = rp_step_run(&sp, res);
  rp_env_free(env);

  rec = json_object();
  json_object_set_new(rec, "name", cm_json_text(step));
  a = json_array();
  for (i = 0; argv[i] != NULL; i++)
    json_array_append_new(a, cm_json_text(argv[i]));
  json_object_set_new(rec, "argv", a);
  json_object_set_new(rec, "started", json_boolean(res->spawned));
  json_object_set_new(rec, "exit_code",
                      res->spawned && !res->term_signal
                          ? json_integer(res->exit_code)
                          : json_null());
  json_object_set_new(rec, "signal", json_integer(res->term_signal));
  json_object_set_new(rec, "timed_out", json_boolean(res->timed_out));
  json_object_set_new(rec, "interrupted", json_boolean(res->interrupted));
  json_object_set_new(rec, "timeout_s", json_real(sp.timeout_s));
  json_object_set_new(rec, "duration_s", json_real(res->duration_s));
  json_object_set_new(rec, "stdout_bytes",
                      json_integer((json_int_t)res->out_bytes));
  json_object_set_new(rec, "stderr_bytes",
                      json_integer((json_int_t)res->err_bytes));
  if (res->out_log[0] != '\0') {
    json_object_set_new(rec, "stdout_log", cm_json_text(res->out_log));
    json_object_set_new(rec, "stderr_log", cm_json_text(res->err_log));
  }
  if (res->error[0] != '\0')
    json_object_set_new(rec, "error", cm_json_text(res->error));
  if (res->output_cut)
    json_object_set_new(rec, "output_cut", json_true());
  json_array_append_new(st->steps, rec);

  st->exit_code = res->spawned && !res->term_signal ? res->exit_code : -1;
  if (r != CM_OK) {
    if (r == CM_EIO || r == CM_ENOSPC)
      ctx->io_error = 1;
    rp_stage_set(st, RP_ST_FAILED, "step %s: %s", step,
                 res->error[0] ? res->error : cm_strerror(r));
    rp_step_result_free(res);
    return r;
  }
  if (res->interrupted)
    rp_stage_set(st, RP_ST_FAILED, "step %s: interrupted by signal %d", step,
                 rp_runner_interrupted());
  else if (res->timed_out)
    rp_stage_set(st, RP_ST_FAILED,
                 "step %s: timed out after %.0f s (tree ended; output so far "
                 "in its logs)",
                 step, sp.timeout_s);
  else if (res->term_signal != 0)
    rp_stage_set(st, RP_ST_FAILED, "step %s: killed by signal %d", step,
                 res->term_signal);
  if (res->output_cut)
    rp_stage_set(st, RP_ST_LIMITED,
                 "step %s: output cut: a descendant that left its group held "
                 "its output open 5 s after it exited; later output not read",
                 step);
  return CM_OK;
}

static json_t *rp__checks_json(const rp_checks *cs) {
  static const char *const effects[] = {"none", "limit", "skip", "refuse"};
  json_t *a = json_array();
  int i;
  for (i = 0; i < cs->n; i++) {
    const rp_check *c = &cs->items[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", cm_json_text(c->name));
    json_object_set_new(o, "ok", json_boolean(c->state == RP_CHECK_PASS));
    json_object_set_new(o, "outcome",
                        cm_json_text(rp_check_state_name(c->state)));
    json_object_set_new(o, "effect", cm_json_text(effects[c->effect]));
    json_object_set_new(o, "detail", cm_json_text(c->detail));
    json_array_append_new(a, o);
  }
  return a;
}

/* Contract + preflight; returns 1 if the stage may run its steps. */
static int rp__stage_preflight(rp_ctx *ctx, rp_stage_run *st) {
  char path[1200], err[512], reason[1200];
  rp_effect eff;
  int r = rp_stage_contract_path(ctx, st->desc->name, path, sizeof path);
  if (r == CM_OK)
    r = rp_contract_load(path, &st->contract, err, sizeof err);
  if (r != CM_OK) {
    rp_checks_add(&st->checks, "contract", RP_CHECK_FAIL, RP_EFFECT_REFUSE,
                  "%s", err);
    st->refused = 1;
    rp_stage_set(st, RP_ST_FAILED, "refused: %s", err);
    return 0;
  }
  rp_checks_add(&st->checks, "contract", RP_CHECK_PASS, RP_EFFECT_NONE,
                "%s parsed (timeout %.0f s, device %s, instrumented %s)", path,
                st->contract.timeout_s, rp_need_name(st->contract.device),
                st->contract.instrumented ? "yes" : "no");
  rp_preflight(&st->contract, &ctx->probe, &st->checks);
  if (st->desc->preflight != NULL)
    st->desc->preflight(ctx, st);
  if (st->advisory_checks)
    return st->status != RP_ST_FAILED;
  eff = rp_checks_verdict(&st->checks, reason, sizeof reason);
  if (eff == RP_EFFECT_REFUSE) {
    st->refused = 1;
    rp_stage_set(st, RP_ST_FAILED, "refused: %s", reason);
    return 0;
  }
  if (eff == RP_EFFECT_SKIP) {
    rp_stage_set(st, RP_ST_SKIPPED, "%s", reason);
    return 0;
  }
  if (eff == RP_EFFECT_LIMIT)
    rp_stage_set(st, RP_ST_LIMITED, "%s", reason);
  return st->status < RP_ST_SKIPPED;
}

static void rp__stage_record(rp_ctx *ctx, rp_stage_run *st, double t0) {
  json_object_set_new(st->record, "status",
                      cm_json_text(rp_stage_status_name(st->status)));
  json_object_set_new(st->record, "reason",
                      st->reason[0] ? cm_json_text(st->reason) : json_null());
  json_object_set_new(st->record, "refused", json_boolean(st->refused));
  json_object_set_new(st->record, "exit_code",
                      st->exit_code >= 0 ? json_integer(st->exit_code)
                                         : json_null());
  json_object_set_new(st->record, "duration_s",
                      json_real(plat_monotonic_s() - t0));
  json_object_set_new(st->record, "instrumented",
                      json_boolean(st->contract.instrumented));
  json_object_set_new(st->record, "checks", rp__checks_json(&st->checks));
  fprintf(stderr, "repro: stage %-9s %s%s%s\n", st->desc->name,
          rp_stage_status_name(st->status), st->reason[0] ? ": " : "",
          st->reason);
}

void rp_engine_run(rp_ctx *ctx, const rp_stage_desc *const *stages) {
  const char *stopped_by = NULL;
  int i;
  for (i = 0; stages[i] != NULL; i++) {
    rp_stage_run *st = calloc(1, sizeof *st);
    double t0 = plat_monotonic_s();
    if (st == NULL) {
      ctx->io_error = 1;
      return;
    }
    st->desc = stages[i];
    st->exit_code = -1;
    st->record = json_object();
    st->steps = json_array();
    json_object_set_new(st->record, "name", cm_json_text(st->desc->name));
    json_object_set_new(st->record, "steps", st->steps);
    json_array_append_new(ctx->stages, st->record);
    if (rp_runner_interrupted())
      rp_stage_set(st, RP_ST_SKIPPED, "not run: run interrupted");
    else if (stopped_by != NULL)
      rp_stage_set(st, RP_ST_SKIPPED,
                   "not run: stage %s failed (use --keep-going)", stopped_by);
    else if (rp__stage_preflight(ctx, st)) {
      st->desc->steps(ctx, st);
      if (st->desc->post != NULL && !rp_runner_interrupted())
        st->desc->post(ctx, st);
    }
    rp__stage_record(ctx, st, t0);
    if (st->status == RP_ST_FAILED && !ctx->opt.keep_going &&
        stopped_by == NULL)
      stopped_by = st->desc->name;
    free(st);
  }
}

/* The manifest's name for the signal that interrupted the run. */
static const char *rp__signal_name(int sig) {
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
#ifndef _WIN32
  case SIGHUP:
    return "SIGHUP";
  case SIGQUIT:
    return "SIGQUIT";
#endif
  default:
    return "signal";
  }
}

/* The exit code from the stage records (rp_exit.h's precedence). */
static int rp__exit_code(const rp_ctx *ctx, int interrupted) {
  size_t i;
  json_t *s;
  int refused = 0, failed = 0, partial = 0;
  if (interrupted)
    return RP_EXIT_INTERRUPTED;
  json_array_foreach(ctx->stages, i, s) {
    const char *status = json_string_value(json_object_get(s, "status"));
    if (json_is_true(json_object_get(s, "refused")))
      refused = 1;
    else if (status != NULL && strcmp(status, "failed") == 0)
      failed = 1;
    else if (status != NULL && strcmp(status, "limited") == 0 &&
             ctx->opt.strict)
      failed = 1;
    else if (status == NULL || strcmp(status, "passed") != 0)
      partial = 1;
  }
  if (refused)
    return RP_EXIT_REFUSED;
  if (failed)
    return RP_EXIT_FAILED;
  if (ctx->io_error)
    return RP_EXIT_ARCHIVE;
  return partial ? RP_EXIT_INCOMPLETE : RP_EXIT_OK;
}

/* Removes a file by its UTF-8 path (libuv, so that Windows takes the same
 * path as every other call here). 0 or a libuv error. */
static int rp__unlink(const char *path) {
  char os[4096];
  uv_fs_t req;
  int r;
  if (cm_path_os(path, os, sizeof os) != CM_OK)
    return UV_ENAMETOOLONG;
  r = uv_fs_unlink(NULL, &req, os, NULL);
  uv_fs_req_cleanup(&req);
  return r;
}

/* The run's report (report.md, report.html, JUnit) goes into the run before
 * the bundle; rp_report_write re-finishes manifest.json so the report files
 * are hashed in with everything else. A report that cannot be written is
 * said loudly but does not change the stages' verdicts. It is written more
 * than once when the verdict changes after it (rp_engine_end), so one that
 * fails takes with it whatever it left: files of an earlier report, which
 * state the earlier verdict, or files of this one that the manifest does
 * not name. Then the manifest is finished again without them. Returns
 * rp_manifest_finish's result (CM_OK when the report was written). */
static int rp__write_report(rp_ctx *ctx) {
#ifdef RP_HAVE_REPORT
  /* What rp_report_write writes with junit and sarif (docs/REPORT.md). */
  static const char *const files[] = {"report.md", "report.html",
                                      "report.junit.xml", "sanitizer.sarif"};
  rp_report_opts ro;
  char msg[512], path[1400];
  size_t i;
  memset(&ro, 0, sizeof ro);
  ro.junit = 1;
  ro.sarif = 1;
  ro.just_finished = 1;
  if (rp_report_write(ctx->run_dir, &ro, msg, sizeof msg) == CM_OK)
    return CM_OK;
  fprintf(stderr, "repro: report not written: %s\n", msg);
  for (i = 0; i < sizeof files / sizeof files[0]; i++)
    if (cm_snprintf(path, sizeof path, "%s/%s", ctx->run_dir, files[i]) ==
            CM_OK &&
        plat_path_exists(path))
      (void)rp__unlink(path);
  return rp_manifest_finish(ctx->run_dir, ctx->manifest);
#else
  (void)ctx;
  return CM_OK;
#endif
}

/* Why the archive failed: "PATH: reason" when the failure was about one
 * file of the run (rp_archive_failed_path), else the reason alone. */
static const char *rp__archive_why(int r, char *buf, size_t size) {
  const char *at = rp_archive_failed_path();
  if (*at == '\0' ||
      cm_snprintf(buf, size, "%s: %s", at, cm_strerror(r)) != CM_OK)
    cm_strlcpy(buf, cm_strerror(r), size);
  return buf;
}

/* What rp_engine_end knows about the run as a whole, as it goes. */
typedef struct {
  int sig;        /* the signal that interrupted the run, 0 if none */
  int in_archive; /* 1: it arrived after the stages, while archiving */
} rp__verdict;

/* 1 when an interrupt arrived since v was last brought up to date, which
 * it then records. The archive is written outside the runner's loop, so a
 * signal then waits in the loop until rp_runner_interrupted delivers it;
 * asking after each part of the archive is what keeps it from being lost. */
static int rp__late_interrupt(rp__verdict *v) {
  int sig;
  if (v->sig != 0)
    return 0;
  sig = rp_runner_interrupted();
  if (sig == 0)
    return 0;
  v->sig = sig;
  v->in_archive = 1;
  fprintf(stderr,
          "repro: %s while the archive was written: finishing it, recorded "
          "as interrupted\n",
          rp__signal_name(sig));
  return 1;
}

/* Writes the verdict into the manifest (status, interrupted_by, exit_code),
 * then the manifest and the report, which re-finishes it. *code gets the
 * exit code written. Returns rp_manifest_finish's result. A failed bundle
 * is ctx->io_error by then, so the exit code (5, unless 130, 3 or 1 comes
 * first) and the status say so. */
static int rp__seal_once(rp_ctx *ctx, const rp__verdict *v, int *code) {
  int r;
  *code = rp__exit_code(ctx, v->sig != 0);
  /* complete: every selected stage reached a verdict and every byte was
   * archived; failed: repro itself could not do its job (a log or file
   * could not be written), which is not the same as a stage failing. */
  json_object_set_new(ctx->manifest, "status",
                      cm_json_text(v->sig != 0     ? "interrupted"
                                   : ctx->io_error ? "failed"
                                                   : "complete"));
  if (v->sig != 0)
    json_object_set_new(ctx->manifest, "interrupted_by",
                        cm_json_text(rp__signal_name(v->sig)));
  if (v->in_archive)
    json_object_set_new(ctx->manifest, "interrupted_during",
                        cm_json_text("archive"));
  json_object_set_new(ctx->manifest, "exit_code", json_integer(*code));
  r = rp_manifest_finish(ctx->run_dir, ctx->manifest);
  if (r == CM_OK)
    r = rp__write_report(ctx);
  return r;
}

/* 1 when the manifest just finished names a file with a content problem
 * (files[].problem: a truncated .gz a tool left, a results file in the
 * wrong folder), which verify will refuse, the first time it is seen: the
 * run is then failed (repro could not make an archive that verifies; exit
 * 5 unless 130, 3 or 1 comes first), never complete. */
static int rp__content_problem(rp_ctx *ctx) {
  size_t i;
  json_t *f;
  if (ctx->io_error)
    return 0;
  json_array_foreach(json_object_get(ctx->manifest, "files"), i, f) {
    const char *why = json_string_value(json_object_get(f, "problem"));
    if (why == NULL)
      continue;
    fprintf(stderr, "repro: %s: %s: the archive will not verify\n",
            json_string_value(json_object_get(f, "path")), why);
    ctx->io_error = 1;
    return 1;
  }
  return 0;
}

/* rp__seal_once until nothing changed the verdict while it ran: an
 * interrupt (hashing a large run takes seconds, and a manifest and report
 * written meanwhile would say complete), or a file verify will refuse.
 * Three times at most: each is recorded once. */
static int rp__seal(rp_ctx *ctx, rp__verdict *v, int *code) {
  int r;
  do
    r = rp__seal_once(ctx, v, code);
  while (r == CM_OK && (rp__content_problem(ctx) || rp__late_interrupt(v)));
  return r;
}

/* An interrupt that arrives while the archive is written does not stop it:
 * the stages are over and their logs closed, so finishing costs the user
 * seconds and keeps every byte, where stopping would leave a run folder
 * without a manifest, or a bundle that does not match it. It is recorded
 * instead: status interrupted, interrupted_by, interrupted_during
 * "archive", exit 130. A manifest or bundle already written by then says
 * complete, so both are written again.
 *
 * The report goes into the bundle, so it is written before it, and says
 * the verdict known then. When the bundle then fails, the manifest and the
 * report are written again (the run folder is now the whole archive):
 * status failed, bundle_error, exit_code 5. Writing the report after the
 * bundle instead would leave it out of every bundle. */
int rp_engine_end(rp_ctx *ctx) {
  char now[64], bundle[1300], path[1400], why[1400];
  rp__verdict v;
  int code, r, rb = CM_OK;
  memset(&v, 0, sizeof v);
  v.sig = rp_runner_interrupted();
  plat_utc_now(now, sizeof now);
  json_object_set_new(ctx->manifest, "ended", cm_json_text(now));
  r = rp__seal(ctx, &v, &code);
  if (r == CM_OK)
    rb = rp_bundle_write(ctx->run_dir, bundle, sizeof bundle);
  if (r == CM_OK && rb == CM_OK && rp__late_interrupt(&v)) {
    /* The bundle holds the manifest and report that said complete; none of
     * it may stand. Removed first, so that if writing it again fails no
     * bundle says complete. */
    if (rp__unlink(bundle) != 0)
      fprintf(stderr, "repro: cannot remove %s\n", bundle);
    r = rp__seal(ctx, &v, &code);
    if (r == CM_OK)
      rb = rp_bundle_write(ctx->run_dir, bundle, sizeof bundle);
  }
  if (r == CM_OK && rb != CM_OK) {
    /* No bundle: the run may not claim completeness. The manifest and the
     * report said it could; they are written again with the exit code
     * repro returns. */
    rp__archive_why(rb, why, sizeof why);
    fprintf(stderr, "repro: bundle not written: %s\n", why);
    ctx->io_error = 1;
    json_object_set_new(ctx->manifest, "bundle_error", cm_json_text(why));
    r = rp__seal(ctx, &v, &code);
  }
  if (r != CM_OK) {
    fprintf(stderr, "repro: manifest not written: %s\n",
            rp__archive_why(r, why, sizeof why));
    ctx->io_error = 1;
    code = rp__exit_code(ctx, v.sig != 0);
    /* One written before states an earlier verdict (complete, exit 0) or
     * names report files since removed: no manifest at all is the truer
     * record (docs/AUDIT.md: a run that did not finish leaves none, or one
     * that says so). */
    if (cm_snprintf(path, sizeof path, "%s/manifest.json", ctx->run_dir) ==
            CM_OK &&
        plat_path_exists(path) && rp__unlink(path) == 0)
      fprintf(stderr,
              "repro: removed %s: it does not state this run's outcome\n",
              path);
  }
  if (r == CM_OK && rb == CM_OK)
    fprintf(stderr, "repro: archive %s/manifest.json, bundle %s\n",
            ctx->run_dir, bundle);
  fprintf(stderr, "repro: exit %d\n", code);
  json_decref(ctx->manifest);
  ctx->manifest = NULL;
  ctx->stages = NULL;
  return code;
}
