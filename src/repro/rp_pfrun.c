/* cuda_portfolio as a step: argv, exit-code meanings, banner. */
#include "rp_pfrun.h"
#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"

#include <stdio.h>
#include <string.h>

/* The last non-empty line of text into buf (the binary's own message). */
static void rp__last_line(const char *text, char *buf, size_t size) {
  size_t n = strlen(text), end, start;
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    n--;
  end = n;
  while (n > 0 && text[n - 1] != '\n')
    n--;
  start = n;
  if (end - start >= size)
    start = end - (size - 1);
  /* The tail, or the cut above, can begin inside a character: begin at
   * the next one, not with a stray byte the manifest would show as '?'. */
  start += cm_utf8_skip(text + start, end - start);
  memcpy(buf, text + start, end - start);
  buf[end - start] = '\0';
}

void rp_gpu_args(const rp_ctx *ctx, char *buf, size_t size, const char **argv,
                 int *n) {
  if (ctx->opt.gpu < 0)
    return;
  cm_snprintf(buf, size, "%d", ctx->opt.gpu);
  argv[(*n)++] = "--gpu";
  argv[(*n)++] = buf;
}

json_t *rp_banner_record(const rp_banner *b) {
  json_t *o = json_object();
  json_object_set_new(o, "version", cm_json_text(b->version));
  json_object_set_new(o, "allocator", cm_json_text(b->allocator));
  json_object_set_new(o, "instrumented", json_boolean(b->instrumented));
  json_object_set_new(o, "markers", cm_json_text(b->markers));
  json_object_set_new(o, "seed", json_integer((json_int_t)b->seed));
  if (b->git[0])
    json_object_set_new(o, "git", cm_json_text(b->git));
  return o;
}

int rp_portfolio_step(rp_ctx *ctx, rp_stage_run *st, const char *step,
                      const char *const *args, rp_banner *banner,
                      int *have_banner) {
  return rp_portfolio_step_ex(ctx, st, step, args, "verification failed",
                              banner, have_banner);
}

int rp_portfolio_step_ex(rp_ctx *ctx, rp_stage_run *st, const char *step,
                         const char *const *args, const char *exit1,
                         rp_banner *banner, int *have_banner) {
  char bin[1200], gpu[32], err[256], msg[256];
  const char *argv[24];
  rp_step_result res;
  rp_banner b;
  int n = 0, i, ok = 0;
  int64_t code;

  if (have_banner != NULL)
    *have_banner = 0;
  if (rp_build_bin(ctx, "cuda_portfolio", bin, sizeof bin) != CM_OK) {
    rp_stage_set(st, RP_ST_FAILED, "build folder path too long");
    return -1;
  }
  if (!plat_path_exists(bin)) {
    rp_stage_set(st, RP_ST_FAILED,
                 "%s not found: run `repro build` (or pass --build-dir)", bin);
    return -1;
  }
  argv[n++] = bin;
  for (i = 0; args != NULL && args[i] != NULL && n < 20; i++)
    argv[n++] = args[i];
  rp_gpu_args(ctx, gpu, sizeof gpu, argv, &n);
  argv[n] = NULL;
  if (rp_stage_step(ctx, st, step, argv, NULL, 1, &res) != CM_OK)
    return -1;
  if (rp_banner_parse(res.out, &b, err, sizeof err) == CM_OK) {
    ok = 1;
    json_object_set_new(st->record, "banner", rp_banner_record(&b));
    if (banner != NULL)
      *banner = b;
    if (have_banner != NULL)
      *have_banner = 1;
  } else {
    /* named by its step: a stage of two steps (test: the control, then
     * --test-only) may record the banner of one and the error of the other */
    char named[320];
    cm_snprintf(named, sizeof named, "%s: %s", step, err);
    json_object_set_new(st->record, "banner_error", cm_json_text(named));
  }
  code = rp_step_ok(&res) || (res.spawned && !res.term_signal &&
                              !res.timed_out && !res.interrupted)
             ? res.exit_code
             : -1;
  rp__last_line(res.err_tail, msg, sizeof msg);
  switch (code) {
  case -1:
    break; /* rp_stage_step already said why */
  case 0:
    if (!ok)
      rp_stage_set(st, RP_ST_FAILED,
                   "cuda_portfolio exited 0 without a banner (%s)", err);
    break;
  case 1:
    rp_stage_set(st, RP_ST_FAILED, "%s (exit 1): %s", exit1, msg);
    break;
  case 2:
    rp_stage_set(st, RP_ST_FAILED, "cuda_portfolio usage error (exit 2): %s",
                 msg);
    break;
  case 3:
    rp_stage_set(st, RP_ST_FAILED, "CUDA error (exit 3): %s", msg);
    break;
  case 4:
    rp_stage_set(st, RP_ST_FAILED,
                 "cuda_portfolio output not written (exit 4): %s", msg);
    break;
  case 77:
    rp_stage_set(st, RP_ST_SKIPPED, "no CUDA device: %s",
                 msg[0] ? msg : "(no message)");
    break;
  default:
    rp_stage_set(st, RP_ST_FAILED, "cuda_portfolio exited %lld: %s",
                 (long long)code, msg);
  }
  rp_step_result_free(&res);
  return (int)code;
}

/* One form of the check: cuda_portfolio --check-args MODE_WORDS... --json
 * PLACEHOLDER SELECT... Returns CM_EINVAL with msg when it exits 2. */
static int rp__select_check_one(const rp_ctx *ctx, const char *bin,
                                const char *const *mode, char *msg,
                                size_t size) {
  char sel[1024], placeholder[1200];
  const char *argv[40];
  int n = 0, i;
  rp_step_spec sp;
  rp_step_result res;
  /* never written: --check-args parses the words and builds the case list,
   * then returns before --json's file is looked at */
  if (cm_snprintf(placeholder, sizeof placeholder, "%s/select-check.json",
                  ctx->opt.out_parent) != CM_OK)
    return CM_OK;
  /* --check-args first, so that a --help among the selection is refused,
   * not obeyed */
  argv[n++] = bin;
  argv[n++] = "--check-args";
  for (i = 0; mode[i] != NULL && n < 8; i++)
    argv[n++] = mode[i];
  argv[n++] = "--json";
  argv[n++] = placeholder;
  if (rp_select_args(ctx, sel, sizeof sel, argv, &n, 36) != CM_OK) {
    cm_snprintf(msg, size, "--select has too many words");
    return CM_EINVAL;
  }
  argv[n] = NULL;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 30;
  sp.grace_s = 1;
  sp.quiet = 1;
  if (rp_step_run(&sp, &res) != CM_OK)
    return CM_OK;
  if (rp_step_ok(&res) || res.exit_code != 2) {
    rp_step_result_free(&res);
    return CM_OK;
  }
  rp__last_line(res.err_tail, msg, size);
  rp_step_result_free(&res);
  return CM_EINVAL;
}

int rp_select_check(const rp_ctx *ctx, int time, int profile, char *msg,
                    size_t size) {
  /* each stage's own mode words (rp_stage_time.c, rp_stage_profile.c):
   * the smoke set, which the profile stage runs by default, takes fewer
   * selection words than the benchmark set (no --shape) */
  static const char *const time_mode[] = {"--bench", NULL};
  static const char *const prof_bench[] = {"--profile-range", "--bench", NULL};
  static const char *const prof_smoke[] = {"--profile-range", "--smoke", NULL};
  char bin[1200];
  int r = CM_OK;
  msg[0] = '\0';
  if (ctx->opt.select[0] == '\0' ||
      rp_build_bin(ctx, "cuda_portfolio", bin, sizeof bin) != CM_OK ||
      !plat_path_exists(bin))
    return CM_OK;
  if (time)
    r = rp__select_check_one(ctx, bin, time_mode, msg, size);
  if (r == CM_OK && profile) {
    r = rp__select_check_one(
        ctx, bin, ctx->opt.profile_bench ? prof_bench : prof_smoke, msg, size);
    if (r != CM_OK && !ctx->opt.profile_bench) {
      size_t len = strlen(msg);
      cm_snprintf(msg + len, size - len,
                  " (the profile stage's smoke set; --profile-set bench "
                  "profiles the benchmark shapes)");
    }
  }
  return r;
}

int rp_select_args(const rp_ctx *ctx, char *buf, size_t size, const char **argv,
                   int *n, int max) {
  char *words[RP_SELECT_MAX_WORDS];
  /* the same limit everywhere, so that --select's check at the start
   * (rp_cli.c) answers for every stage */
  int room = max - 1 - *n, nw, k;
  if (room > RP_SELECT_MAX_WORDS)
    room = RP_SELECT_MAX_WORDS;
  if (room < 0)
    room = 0;
  if (cm_strlcpy(buf, ctx->opt.select, size) != CM_OK)
    return CM_ERANGE;
  nw = cm_split(buf, " ", words, room);
  if (nw > room)
    return CM_ERANGE;
  for (k = 0; k < nw; k++)
    argv[(*n)++] = words[k];
  return CM_OK;
}
