/* Stage `build`: cmake --preset P, cmake --build --preset P; or, with
 * --prebuilt, the build folder as it is (the GPU machine has no libuv and
 * runs a folder carried from the build machine). Either way the binaries'
 * SHA-256s go into the stage record, so the archive says what ran. */
#include "cm_error.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_stage.h"

/* Records {path, bytes, sha256} of each binary; returns how many exist. */
static int rp__record_binaries(rp_ctx *ctx, rp_stage_run *st) {
  static const char *const names[] = {"cuda_portfolio", "repro", NULL};
  json_t *a = json_array();
  int i, found = 0;
  for (i = 0; names[i] != NULL; i++) {
    char path[1200], hex[CM_SHA256_HEX_LEN];
    uint64_t bytes = 0;
    json_t *o = json_object();
    rp_build_bin(ctx, names[i], path, sizeof path);
    json_object_set_new(o, "path", cm_json_text(path));
    if (cm_sha256_file(path, hex, &bytes) == CM_OK) {
      json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
      json_object_set_new(o, "sha256", cm_json_text(hex));
      found += i == 0; /* cuda_portfolio is the one that matters */
    } else {
      json_object_set_new(o, "missing", json_true());
    }
    json_array_append_new(a, o);
  }
  json_object_set_new(st->record, "binaries", a);
  return found;
}

static void rp__build_preflight(rp_ctx *ctx, rp_stage_run *st) {
  /* A prebuilt folder needs no compiler: the tool checks are recorded for
   * the auditor but decide nothing. */
  if (ctx->opt.prebuilt)
    st->advisory_checks = 1;
}

static void rp__build_steps(rp_ctx *ctx, rp_stage_run *st) {
  const char *configure[] = {"cmake", "--preset", ctx->opt.preset, NULL};
  const char *build[] = {"cmake", "--build", "--preset", ctx->opt.preset, NULL};
  rp_step_result res;
  if (ctx->opt.prebuilt) {
    if (rp__record_binaries(ctx, st) == 0)
      rp_stage_set(st, RP_ST_FAILED,
                   "--prebuilt: %s/bin/cuda_portfolio not found; give "
                   "--build-dir the carried build folder (the one holding "
                   "bin/cuda_portfolio)",
                   ctx->opt.build_dir);
    else
      rp_stage_set(st, RP_ST_SKIPPED, "prebuilt build folder used");
    return;
  }
  if (rp_stage_step(ctx, st, "configure", configure, NULL, 0, &res) != CM_OK)
    return;
  if (!rp_step_ok(&res))
    rp_stage_set(st, RP_ST_FAILED, "cmake --preset %s exited %lld",
                 ctx->opt.preset, (long long)res.exit_code);
  rp_step_result_free(&res);
  if (st->status == RP_ST_FAILED)
    return;
  if (rp_stage_step(ctx, st, "build", build, NULL, 0, &res) != CM_OK)
    return;
  if (!rp_step_ok(&res))
    rp_stage_set(st, RP_ST_FAILED, "cmake --build --preset %s exited %lld",
                 ctx->opt.preset, (long long)res.exit_code);
  rp_step_result_free(&res);
  if (st->status != RP_ST_FAILED && rp__record_binaries(ctx, st) == 0)
    rp_stage_set(st, RP_ST_LIMITED,
                 "built, but no bin/cuda_portfolio (CP_WITH_CUDA off?)");
}

const rp_stage_desc rp_stage_build = {
    "build", "cmake --preset P && cmake --build --preset P (or --prebuilt)",
    rp__build_preflight, rp__build_steps, NULL};
