/* repro doctor: the preflight of every stage, printed. */
#include "rp_doctor.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <string.h>

static const char *rp__upper(rp_check_state s) {
  return s == RP_CHECK_PASS ? "PASS" : s == RP_CHECK_WARN ? "WARN" : "FAIL";
}

const char *rp_doctor_check_text(plat_os os, const char *name,
                                 const char *detail) {
  if (detail == NULL)
    return "";
  /* The shared device probe names Linux's driver folder when it finds
   * nothing; Windows has none (plat_nvidia_gpu_count: CM_ENOTSUP), so only
   * nvidia-smi -L was asked there. */
  if (os == PLAT_OS_WINDOWS && strcmp(name, "device") == 0 &&
      cm_starts_with(detail, "no CUDA device") &&
      strstr(detail, "/proc/") != NULL)
    return "no CUDA device: nvidia-smi -L is unavailable or lists no GPU "
           "(install or update the NVIDIA driver; nvidia-smi.exe comes with "
           "it)";
  return detail;
}

int rp_doctor_os_notes(plat_os os, FILE *out) {
  static const char *const wsl[] = {
      "WSL: the GPU belongs to the Windows host. Counter permission "
      "(RmProfilingAdminOnly) is set by the Windows NVIDIA driver; sudo "
      "inside WSL does not help. Allow it on Windows: NVIDIA Control Panel > "
      "Developer > Manage GPU Performance Counters > allow all users, or "
      "profile from an elevated Windows prompt.",
      "WSL: compute-sanitizer may be missing or unsupported in WSL; then the "
      "sanitize stage is skipped here.",
      "WSL: run the sanitizer on the Windows side instead: .\\repro.ps1 "
      "sanitize from PowerShell in a Windows checkout of this repository.",
      NULL};
  static const char *const win[] = {
      "Windows: counter permission is the NVIDIA driver's "
      "RmProfilingAdminOnly (registry, NVTweak key); counters need it at 0 "
      "or an elevated prompt.",
      NULL};
  const char *const *lines = os == PLAT_OS_WSL       ? wsl
                             : os == PLAT_OS_WINDOWS ? win
                                                     : NULL;
  int n = 0;
  for (; lines != NULL && lines[n] != NULL; n++)
    fprintf(out, "  NOTE  %s\n", lines[n]);
  return n;
}

static int rp__doctor_stage(rp_ctx *ctx, plat_os os, const rp_stage_desc *d,
                            FILE *out) {
  rp_contract c;
  rp_checks cs;
  char path[1200], err[512], reason[1200];
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
  if (d == &rp_stage_time)
    rp_time_lock_check(ctx, &cs);
  if (d == &rp_stage_profile)
    rp_profile_nsys_check(ctx, &cs, NULL, 0);
  if (d == &rp_stage_inspect)
    rp_inspect_nvcc_check(ctx, &cs, NULL);
  for (i = 0; i < cs.n; i++) {
    /* In place, so that the verdict's reason reads the same. */
    const char *t =
        rp_doctor_check_text(os, cs.items[i].name, cs.items[i].detail);
    if (t != cs.items[i].detail)
      cm_strlcpy(cs.items[i].detail, t, sizeof cs.items[i].detail);
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
  return rp_doctor_for(ctx, plat_os_detect(), out);
}

int rp_doctor_for(rp_ctx *ctx, plat_os os, FILE *out) {
  return rp_doctor_stages(ctx, os, NULL, out);
}

int rp_doctor_stages(rp_ctx *ctx, plat_os os,
                     const rp_stage_desc *const *stages, FILE *out) {
  char host[256], rel[256], bin[1200];
  plat_counter_perm perm;
  int i, failed = 0;
  if (plat_hostname(host, sizeof host) != CM_OK)
    cm_strlcpy(host, "unknown", sizeof host);
  if (plat_os_release(rel, sizeof rel) != CM_OK)
    cm_strlcpy(rel, "unknown", sizeof rel);
  fprintf(out, "repro doctor: host %s, os %s (%s)\n", host, plat_os_name(os),
          rel);
  fprintf(out, "root %s, contracts %s, build folder %s\n", ctx->opt.root,
          ctx->env_dir, ctx->opt.build_dir);
  rp_build_bin(ctx, "cuda_portfolio", bin, sizeof bin);
  fprintf(out, "cuda_portfolio: %s (%s)\n", bin,
          plat_path_exists(bin) ? "present" : "not built");
  plat_counter_permission(
      ctx->probe.params_path,
      ctx->probe.use_privileged ? ctx->probe.privileged : -1, &perm);
  fprintf(out, "effective user: %s\n",
          os == PLAT_OS_WINDOWS
              ? (perm.privileged ? "elevated (administrator)" : "not elevated")
              : (perm.privileged ? "root or CAP_SYS_ADMIN" : "unprivileged"));
  rp_doctor_os_notes(os, out);
  if (stages == NULL) {
    failed += rp__doctor_stage(ctx, os, &rp_stage_selftest, out);
    for (i = 0; rp_all_stages[i] != NULL; i++)
      failed += rp__doctor_stage(ctx, os, rp_all_stages[i], out);
  } else {
    for (i = 0; stages[i] != NULL; i++)
      failed += rp__doctor_stage(ctx, os, stages[i], out);
  }
  fprintf(out, "\n%d check(s) failed; doctor changed nothing.\n", failed);
  return failed;
}
