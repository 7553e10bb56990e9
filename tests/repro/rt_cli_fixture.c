/* rt_cli_fixture.c: a fake repository root and the real repro run in it
 * (rt_cli_fixture.h). */
#include "rt_cli_fixture.h"
#include "cm_file.h"

#include "cm_error.h"
#include "cm_str.h"
#include "cm_test.h"
#include "platform.h"
#include "rp_stage.h"
#include "rp_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The executable suffix of this build's programs ("" or ".exe"), taken
 * from the fake's own file name. */
const char *rt_exe_suffix(void) {
  size_t n = strlen(RP_FAKE_PF_EXE);
  return n > 4 && strcmp(&RP_FAKE_PF_EXE[n - 4], ".exe") == 0 ? ".exe" : "";
}

/* Skips (77) when repro would not find cuda_portfolio<suffix> in a build
 * folder: rp_build_bin must name the file as the OS spells it. Returns 0 if
 * it does. */
int rt_engine_names_exe(void) {
  rp_ctx ctx;
  char bin[1200];
  memset(&ctx, 0, sizeof ctx);
  cm_strlcpy(ctx.opt.build_dir, "b", sizeof ctx.opt.build_dir);
  if (rp_build_bin(&ctx, "cuda_portfolio", bin, sizeof bin) != CM_OK)
    return -1;
  if (*rt_exe_suffix() != '\0' &&
      (strlen(bin) < 4 || strcmp(bin + strlen(bin) - 4, ".exe") != 0)) {
    printf("skip: rp_build_bin gives \"%s\", without %s: repro cannot "
           "find cuda_portfolio%s on this OS yet\n",
           bin, rt_exe_suffix(), rt_exe_suffix());
    return TEST_SKIP;
  }
  return 0;
}

/* Makes <dir>/root with env/{test,time}.contract (no device needed, short
 * timeouts) and build/linux/bin/cuda_portfolio (the fake, copied). */
int rt_make_root(const char *name, char *root, size_t size) {
  char dir[512], p[1200];
  if (rt_fresh_dir(name, dir, sizeof dir) != 0)
    return -1;
  snprintf(root, size, "%s/root", dir);
  snprintf(p, sizeof p, "%s/env", root);
  if (plat_mkdir_p(p) != CM_OK)
    return -1;
  snprintf(p, sizeof p, "%s/env/test.contract", root);
  if (rt_write(p,
               "unset CUDA_PORTFOLIO_ALLOC\ndevice optional\n"
               "timeout 20\ninstrumented no\n",
               0) != 0)
    return -1;
  snprintf(p, sizeof p, "%s/env/time.contract", root);
  if (rt_write(p,
               "forbid NSYS_*\nforbid LD_PRELOAD\ndevice optional\n"
               "timeout 20\ninstrumented no\n",
               0) != 0)
    return -1;
  snprintf(p, sizeof p, "%s/build/linux/bin", root);
  if (plat_mkdir_p(p) != CM_OK)
    return -1;
  snprintf(p, sizeof p, "%s/build/linux/bin/cuda_portfolio%s", root,
           rt_exe_suffix());
  return rt_copy_file(RP_FAKE_PF_EXE, p);
}

/* Runs repro with args (after --root ROOT --out ROOT/logs) and extra env. */
int rt_run_repro(const char *root, const char *const *args,
                 const char *const *extra_env, rp_step_result *res) {
  const char *argv[24];
  char out[1200];
  char **env = NULL;
  size_t i, n = 0, ne = 0, k = 0;
  char *const *cur = plat_environ();
  int r;
  snprintf(out, sizeof out, "%s/logs", root);
  argv[n++] = RP_REPRO_EXE;
  argv[n++] = "--root";
  argv[n++] = root;
  argv[n++] = "--out";
  argv[n++] = out;
  for (i = 0; args[i] != NULL && n < 23; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  while (cur[ne] != NULL)
    ne++;
  env = calloc(ne + 8, sizeof *env);
  for (i = 0; i < ne; i++) {
    /* an extra NAME=value replaces the inherited NAME (CUDA_HOME is set on
     * the build machines) */
    const char *eq = strchr(cur[i], '=');
    size_t j, len = eq != NULL ? (size_t)(eq - cur[i]) : strlen(cur[i]);
    int replaced = 0;
    for (j = 0; extra_env != NULL && extra_env[j] != NULL && j < 7; j++)
      replaced |=
          strncmp(extra_env[j], cur[i], len) == 0 && extra_env[j][len] == '=';
    if (!replaced)
      env[k++] = cur[i];
  }
  for (i = 0; extra_env != NULL && extra_env[i] != NULL && i < 7; i++)
    env[k++] = (char *)extra_env[i];
  env[k] = NULL;
  {
    rp_step_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.argv = argv;
    sp.env = env;
    sp.timeout_s = 60;
    sp.capture_stdout = 1;
    sp.quiet = 1;
    r = rp_step_run(&sp, res);
  }
  free(env);
  return r;
}

/* Loads RUN/manifest.json. */
json_t *rt_load_manifest_at(const char *run) {
  char p[1400];
  snprintf(p, sizeof p, "%s/manifest.json", run);
  return cm_json_load_file(p, 0, NULL);
}

/* Loads the manifest of the one run under ROOT/logs. */
json_t *rt_load_manifest(const char *root, char *run, size_t size) {
  char logs[1200];
  snprintf(logs, sizeof logs, "%s/logs", root);
  if (rt_find_run(logs, run, size) != 0)
    return NULL;
  return rt_load_manifest_at(run);
}

json_t *rt_stage(json_t *m, const char *name) {
  size_t i;
  json_t *s;
  json_array_foreach(json_object_get(m, "stages"), i, s) {
    if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
      return s;
  }
  return NULL;
}

const char *rt_str(json_t *o, const char *key) {
  const char *v = json_string_value(json_object_get(o, key));
  return v != NULL ? v : "(null)";
}

/* repro ARGS under ENV in a fresh root NAME: its manifest when it exited
 * with want (run gets the run folder), else NULL. */
json_t *rt_repro_manifest(const char *name, const char *const *args,
                          const char *const *env, int64_t want, char *run,
                          size_t size) {
  char root[600];
  rp_step_result res;
  int64_t code;
  if (rt_make_root(name, root, sizeof root) != 0 ||
      rt_run_repro(root, args, env, &res) != CM_OK)
    return NULL;
  code = res.exit_code;
  rp_step_result_free(&res);
  return code == want ? rt_load_manifest(root, run, size) : NULL;
}
