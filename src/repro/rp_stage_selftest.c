/* Stage `selftest`: configure, build and ctest for the linux preset, then
 * the windows-mingw preset when its cross toolchain is installed. Each is a
 * step with its own logs; a part that cannot run is recorded with why. */
#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_stage.h"

#include <stdio.h>
#include <string.h>

#define RP__MINGW_CC "x86_64-w64-mingw32-gcc"

/* Prints the last `lines` lines of text to stdout: ctest's summary, so that
 * the terminal (and CI's log) shows what passed, failed and was skipped
 * while the whole output stays in the step's gzip log. */
static void rp__st_print_tail(const char *name, const char *text, size_t len,
                              int lines) {
  size_t i = len;
  int seen = 0;
  while (i > 0 && seen <= lines) {
    i--;
    if (text[i] == '\n' && i + 1 < len)
      seen++;
  }
  if (seen > lines)
    i++;
  printf("---- %s (last lines; the whole output is in its log) ----\n%.*s",
         name, (int)(len - i), text + i);
  if (len > 0 && text[len - 1] != '\n')
    putchar('\n');
  fflush(stdout);
}

/* Runs one command as a step; returns 1 if it passed. ctest steps have their
 * summary printed. */
static int rp__st_step(rp_ctx *ctx, rp_stage_run *st, const char *name,
                       const char *const *argv) {
  rp_step_result res;
  int ok, is_ctest = strcmp(argv[0], "ctest") == 0;
  if (rp_stage_step(ctx, st, name, argv, NULL, is_ctest, &res) != CM_OK)
    return 0;
  if (is_ctest && res.out != NULL)
    rp__st_print_tail(name, res.out, res.out_len, 40);
  ok = rp_step_ok(&res);
  if (!ok)
    rp_stage_set(st, RP_ST_FAILED, "%s exited %lld", name,
                 (long long)res.exit_code);
  rp_step_result_free(&res);
  return ok;
}

/* configure + build + ctest for one preset. */
static int rp__st_preset(rp_ctx *ctx, rp_stage_run *st, const char *preset) {
  const char *conf[] = {"cmake", "--preset", preset, NULL};
  const char *build[] = {"cmake", "--build", "--preset", preset, NULL};
  const char *test[] = {"ctest", "--preset", preset, NULL};
  char n1[96], n2[96], n3[96];
  cm_snprintf(n1, sizeof n1, "%s-configure", preset);
  cm_snprintf(n2, sizeof n2, "%s-build", preset);
  cm_snprintf(n3, sizeof n3, "%s-ctest", preset);
  return rp__st_step(ctx, st, n1, conf) && rp__st_step(ctx, st, n2, build) &&
         rp__st_step(ctx, st, n3, test);
}

static void rp__selftest_steps(rp_ctx *ctx, rp_stage_run *st) {
  char cc[1024];
  json_t *parts = json_array(), *p;
  int ok = rp__st_preset(ctx, st, "linux");
  p = json_object();
  json_object_set_new(p, "preset", cm_json_text("linux"));
  json_object_set_new(p, "status", cm_json_text(ok ? "passed" : "failed"));
  json_array_append_new(parts, p);
  p = json_object();
  json_object_set_new(p, "preset", cm_json_text("windows-mingw"));
  if (rp_runner_interrupted()) {
    json_object_set_new(p, "status", cm_json_text("skipped"));
    json_object_set_new(p, "reason", cm_json_text("run interrupted"));
  } else if (plat_find_executable(RP__MINGW_CC, NULL, cc, sizeof cc) != CM_OK) {
    json_object_set_new(p, "status", cm_json_text("skipped"));
    json_object_set_new(p, "reason",
                        cm_json_text(RP__MINGW_CC " not installed"));
    rp_stage_set(st, RP_ST_LIMITED,
                 "windows-mingw part skipped: " RP__MINGW_CC " not installed");
  } else {
    ok = rp__st_preset(ctx, st, "windows-mingw");
    json_object_set_new(p, "status", cm_json_text(ok ? "passed" : "failed"));
  }
  json_array_append_new(parts, p);
  json_object_set_new(st->record, "parts", parts);
}

const rp_stage_desc rp_stage_selftest = {
    "selftest", "configure + build + ctest: linux, then windows-mingw", NULL,
    rp__selftest_steps, NULL};
