/* repro doctor: the preflight of every stage, printed. */
#include "rp_doctor.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <string.h>

static const char *rp__upper(rp_check_state s) {
  return s == RP_CHECK_PASS ? "PASS" : s == RP_CHECK_WARN ? "WARN" : "FAIL";
}

static int rp__doctor_stage(rp_ctx *ctx, const rp_stage_desc *d, FILE *out) {
  rp_contract c;
  rp_checks cs;
  char path[1200], err[512], reason[512];
  rp_effect eff;
  int i, failed = 0;
  memset(&cs, 0, sizeof cs);
  fprintf(out, "\n[%s] %s\n", d->name, d->summary);
  rp_stage_contract_path(ctx, d->name, path, sizeof path);
  if (rp_contract_load(path, &c, err, sizeof err) != CM_OK) {
    fprintf(out, "  FAIL  contract: %s\n  => would be refused\n", err);
    return 1;
  }
  fprintf(out,
          "  PASS  contract: %s (timeout %.0f s, device %s, counters %s, "
          "idle %s, instrumented %s)\n",
          path, c.timeout_s, rp_need_name(c.device), rp_need_name(c.counters),
          rp_need_name(c.idle), c.instrumented ? "yes" : "no");
  rp_preflight(&c, &ctx->probe, &cs);
  for (i = 0; i < cs.n; i++) {
    fprintf(out, "  %s  %s: %s\n", rp__upper(cs.items[i].state),
            cs.items[i].name, cs.items[i].detail);
    failed += cs.items[i].state == RP_CHECK_FAIL;
  }
  eff = rp_checks_verdict(&cs, reason, sizeof reason);
  if (d == &rp_stage_build && ctx->opt.prebuilt)
    fprintf(out, "  => --prebuilt: checks are advisory; build skipped\n");
  else if (eff == RP_EFFECT_REFUSE)
    fprintf(out, "  => would be refused (exit 3): %s\n", reason);
  else if (eff == RP_EFFECT_SKIP)
    fprintf(out, "  => would be skipped: %s\n", reason);
  else if (eff == RP_EFFECT_LIMIT)
    fprintf(out, "  => would run, limited: %s\n", reason);
  else
    fprintf(out, "  => would run\n");
  return failed;
}

int rp_doctor(rp_ctx *ctx, FILE *out) {
  char host[256], rel[256], bin[1200];
  plat_counter_perm perm;
  int i, failed = 0;
  if (plat_hostname(host, sizeof host) != CM_OK)
    cm_strlcpy(host, "unknown", sizeof host);
  if (plat_os_release(rel, sizeof rel) != CM_OK)
    cm_strlcpy(rel, "unknown", sizeof rel);
  fprintf(out, "repro doctor: host %s, os %s (%s)\n", host,
          plat_os_name(plat_os_detect()), rel);
  fprintf(out, "root %s, contracts %s, build folder %s\n", ctx->opt.root,
          ctx->env_dir, ctx->opt.build_dir);
  rp_build_bin(ctx, "cuda_portfolio", bin, sizeof bin);
  fprintf(out, "cuda_portfolio: %s (%s)\n", bin,
          plat_path_exists(bin) ? "present" : "not built");
  plat_counter_permission(
      ctx->probe.params_path,
      ctx->probe.use_privileged ? ctx->probe.privileged : -1, &perm);
  fprintf(out, "effective user: %s\n",
          perm.privileged ? "root or CAP_SYS_ADMIN" : "unprivileged");
  failed += rp__doctor_stage(ctx, &rp_stage_selftest, out);
  for (i = 0; rp_all_stages[i] != NULL; i++)
    failed += rp__doctor_stage(ctx, rp_all_stages[i], out);
  fprintf(out, "\n%d check(s) failed; doctor changed nothing.\n", failed);
  return failed;
}
