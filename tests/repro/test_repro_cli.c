/* End-to-end tests of the real repro executable (no GPU): a fake repository
 * root whose contracts need no device, and a fake cuda_portfolio (a copy of
 * rt_fake_portfolio, see that file). The same tests run on POSIX and, cross-
 * built, on Windows under Wine; only the interrupt test is POSIX's. */
#include "cm_test.h"
#include "cm_file.h"
#include "archive/rp_archive.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_runner.h"
#include "rp_stage.h"
#include "rp_test_util.h"
#include "rt_cli_fixture.h"

#include <jansson.h>
#include <uv.h>
#include <stdlib.h>

#ifndef _WIN32
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

TEST_IMPL(cli_no_device_archive) {
  static const char *const args[] = {"all", "--only", "test,time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=nodev", NULL};
  char root[600], run[1300], bundle[1400];
  rp_step_result res;
  rp_verify_result vr;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("nodev", root, sizeof root), 0);
  ASSERT_OK(rt_run_repro(root, args, env, &res));
  ASSERT_EQ(res.exit_code, 10);
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "complete");
  ASSERT_EQ(json_array_size(json_object_get(m, "stages")), 2);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "test"), "status"), "skipped");
  ASSERT_CONTAINS(rt_str(rt_stage(m, "test"), "reason"), "no CUDA device");
  ASSERT_CONTAINS(rt_str(rt_stage(m, "test"), "reason"), "(fake)");
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "skipped");
  ASSERT_STR_EQ(
      rt_str(json_object_get(rt_stage(m, "test"), "banner"), "allocator"),
      "pooled");
  ASSERT_EQ(
      json_integer_value(json_object_get(rt_stage(m, "test"), "exit_code")),
      77);
  /* no device at the verification control: --test-only is not run */
  ASSERT_EQ(json_array_size(json_object_get(rt_stage(m, "test"), "steps")), 1);
  ASSERT_STR_EQ(
      rt_str(json_array_get(json_object_get(rt_stage(m, "test"), "steps"), 0),
             "name"),
      "verify-control");
  ASSERT_TRUE(json_array_size(json_object_get(m, "files")) >= 4);
  json_decref(m);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_EQ(vr.ok, 1);
  snprintf(bundle, sizeof bundle, "%s.tar.gz", run);
  ASSERT_TRUE(plat_path_exists(bundle));
  /* `repro verify` agrees, on the folder and on the bundle. */
  {
    const char *argv[] = {RP_REPRO_EXE, "verify", bundle, NULL};
    rp_step_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.argv = argv;
    sp.timeout_s = 30;
    sp.quiet = 1;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
    /* a folder that exists but is no run folder (the root: no
     * manifest.json): exit 4, naming the missing manifest, not "no such
     * file or directory" for a folder that is there */
    argv[2] = root;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 4);
    ASSERT_CONTAINS(res.err_tail, "manifest.json: cannot be read");
    ASSERT_CONTAINS(res.err_tail, "give a run folder");
    rp_step_result_free(&res);
  }
  return 0;
}

/* A failed verification's reason ends with cuda_portfolio's last line of
 * stderr, cut to fit: the cut begins at a character, so the manifest
 * holds the message, not a '?' for half of one. Before, a line of
 * non-ASCII text cut at an odd byte began with a stray byte. */
TEST_IMPL(cli_reason_cut_utf8) {
  static const char *const args[] = {"test", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=fail_utf8", NULL};
  char run[1300];
  const char *reason, *msg;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("cututf8", args, env, 1, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "test"), "status"), "failed");
  reason = rt_str(rt_stage(m, "test"), "reason");
  ASSERT_CONTAINS(reason, "verification failed (exit 1): ");
  msg = strstr(reason, "): ") + 3;
  ASSERT_TRUE(strchr(reason, '?') == NULL);
  ASSERT_TRUE(strncmp(msg, "\xc3\xa9", 2) == 0);
  ASSERT_TRUE(strlen(msg) > 200);
  json_decref(m);
  return 0;
}

/* The test stage's steps' names, in order, joined by ',' into buf. */
static void rt__step_names(json_t *stage, char *buf, size_t size) {
  json_t *steps = json_object_get(stage, "steps");
  size_t i, n = 0;
  buf[0] = '\0';
  for (i = 0; i < json_array_size(steps) && n + 1 < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "",
                          rt_str(json_array_get(steps, i), "name"));
}

/* The verification control (cuda_portfolio --verify-control) is the test
 * stage's first step: caught, the stage goes on to --test-only and passes;
 * not caught, the stage fails with the control's own meaning, --test-only
 * still runs, and the stage's exit code is --test-only's. */
TEST_IMPL(cli_verify_control) {
  static const char *const args[] = {"test", NULL};
  static const char *const caught[] = {"FAKE_PF_MODE=json_clean", NULL};
  static const char *const missed[] = {"FAKE_PF_MODE=json_clean",
                                       "FAKE_PF_VCTRL=missed", NULL};
  static const char *const nobanner[] = {"FAKE_PF_MODE=json_clean",
                                         "FAKE_PF_VCTRL=nobanner", NULL};
  char run[1300], names[256];
  json_t *m, *st, *vc;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("vctrl-caught", args, caught, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  st = rt_stage(m, "test");
  ASSERT_STR_EQ(rt_str(st, "status"), "passed");
  rt__step_names(st, names, sizeof names);
  ASSERT_STR_EQ(names, "verify-control,cuda_portfolio");
  vc = json_object_get(st, "verification_control");
  ASSERT_TRUE(json_is_true(json_object_get(vc, "failed_as_predicted")));
  ASSERT_EQ(json_integer_value(json_object_get(vc, "exit_code")), 0);
  json_decref(m);

  m = rt_repro_manifest("vctrl-missed", args, missed, 1, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  st = rt_stage(m, "test");
  ASSERT_STR_EQ(rt_str(st, "status"), "failed");
  ASSERT_CONTAINS(rt_str(st, "reason"),
                  "the verification control was not caught (exit 1): "
                  "cuda_portfolio: --verify-control: ");
  ASSERT_CONTAINS(rt_str(st, "reason"), "(fake)");
  rt__step_names(st, names, sizeof names);
  ASSERT_STR_EQ(names, "verify-control,cuda_portfolio");
  ASSERT_EQ(json_integer_value(json_object_get(st, "exit_code")), 0);
  vc = json_object_get(st, "verification_control");
  ASSERT_TRUE(json_is_false(json_object_get(vc, "failed_as_predicted")));
  ASSERT_EQ(json_integer_value(json_object_get(vc, "exit_code")), 1);
  json_decref(m);

  /* a control without its banner: the stage fails, and the record keeps
   * --test-only's banner beside the control's error, which names its step
   * (it read as the stage's own before) */
  m = rt_repro_manifest("vctrl-nobanner", args, nobanner, 1, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  st = rt_stage(m, "test");
  ASSERT_STR_EQ(rt_str(st, "status"), "failed");
  ASSERT_CONTAINS(rt_str(st, "reason"), "without a banner");
  ASSERT_CONTAINS(rt_str(st, "banner_error"), "verify-control: ");
  ASSERT_TRUE(json_is_object(json_object_get(st, "banner")));
  json_decref(m);
  return 0;
}

TEST_IMPL(cli_time_refuses_marker) {
  static const char *const args[] = {"time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=json_clean",
                                    "NSYS_FAKE_MARKER=1", NULL};
  char root[600], run[1300];
  rp_step_result res;
  json_t *m;
  ASSERT_EQ(rt_make_root("refuse", root, sizeof root), 0);
  ASSERT_OK(rt_run_repro(root, args, env, &res));
  ASSERT_EQ(res.exit_code, 3);
  ASSERT_CONTAINS(res.err_tail, "NSYS_FAKE_MARKER");
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "failed");
  ASSERT_TRUE(json_is_true(json_object_get(rt_stage(m, "time"), "refused")));
  ASSERT_CONTAINS(rt_str(rt_stage(m, "time"), "reason"), "NSYS_FAKE_MARKER");
  /* Refused before running: no step, no result. */
  ASSERT_EQ(json_array_size(json_object_get(rt_stage(m, "time"), "steps")), 0);
  json_decref(m);
  return 0;
}

/* A repository whose path is not ASCII (a user folder such as "Zoë", and
 * a space): every file repro opens by name there (the contracts, results,
 * logs read back) is named in UTF-8. On Windows the C runtime's fopen read
 * such a name in the ANSI code page and repro refused every stage ("cannot
 * open contract"); cm_fopen opens it as UTF-16. */
TEST_IMPL(cli_root_non_ascii) {
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char run[1300], p[1500];
  json_t *m;
  rp_verify_result vr;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("zo\xc3\xab runs", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "complete");
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_decref(m);
  ASSERT_TRUE(strstr(run, "zo\xc3\xab runs") != NULL);
  snprintf(p, sizeof p, "%s/results/clean/time.json", run);
  ASSERT_TRUE(plat_path_exists(p));
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  return 0;
}

/* inspect with no kernel to inspect fails, also when something else (no
 * cuobjdump, as on the build machines) limited the stage first: it used to
 * end limited, as if the kernels had been inspected in part. */
TEST_IMPL(cli_inspect_no_kernel) {
  static const char *const args[] = {"inspect", NULL};
  static const char *const path[] = {"PATH=/nonexistent-rt-path", NULL};
  char root[600], run[1300], p[1500];
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("inspect0", root, sizeof root), 0);
  snprintf(p, sizeof p, "%s/env/inspect.contract", root);
  ASSERT_EQ(rt_write(p,
                     "tool cuobjdump >= 12.0 optional\ndevice none\n"
                     "timeout 60\ninstrumented no\n",
                     0),
            0);
  snprintf(p, sizeof p, "%s/build/linux/compile_commands.json", root);
  ASSERT_EQ(rt_write(p, "[]\n", 0), 0);
  ASSERT_OK(rt_run_repro(root, args, path, &res));
  ASSERT_EQ(res.exit_code, 1);
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "inspect"), "status"), "failed");
  ASSERT_CONTAINS(rt_str(rt_stage(m, "inspect"), "reason"), "no kernel");
  json_decref(m);
  return 0;
}

/* `repro inspect` under env in a fresh root NAME whose build compiles
 * kernels/k.cu with the compiler at cc (its compile_commands.json), and
 * whose inspect contract needs nvcc (cuobjdump optional, no device): its
 * manifest when it exited with want (run gets the run folder), else NULL. */
static json_t *inspect_manifest(const char *name, const char *cc,
                                const char *const *env, int64_t want, char *run,
                                size_t size) {
  static const char *const args[] = {"inspect", NULL};
  char root[600], p[1500], file[1300], cmd[3000], *text;
  rp_step_result res;
  json_t *a;
  int r;
  if (rt_make_root(name, root, sizeof root) != 0)
    return NULL;
  snprintf(p, sizeof p, "%s/env/inspect.contract", root);
  if (rt_write(p,
               "tool nvcc >= 12.0\ntool cuobjdump >= 12.0 optional\n"
               "device none\ntimeout 60\ninstrumented no\n",
               0) != 0)
    return NULL;
  snprintf(file, sizeof file, "%s/kernels/k.cu", root);
  snprintf(cmd, sizeof cmd,
           "\"%s\" -O3 --generate-code=arch=compute_90,code=[sm_90] -c "
           "\"%s\" -o k.o",
           cc, file);
  a = json_pack("[{s:s, s:s, s:s}]", "directory", root, "command", cmd, "file",
                file);
  text = a != NULL ? json_dumps(a, 0) : NULL;
  snprintf(p, sizeof p, "%s/build/linux/compile_commands.json", root);
  r = text != NULL ? rt_write(p, text, 0) : -1;
  free(text);
  json_decref(a);
  if (r != 0 || rt_run_repro(root, args, env, &res) != CM_OK)
    return NULL;
  r = res.exit_code == want;
  rp_step_result_free(&res);
  return r ? rt_load_manifest(root, run, size) : NULL;
}

/* inspect compiles with the nvcc its preflight checked, and with no other.
 * Two copies of a fake nvcc (rt_fake_nvcc): a/nvcc, which the build's
 * compile command names (the preset's toolkit), and b/nvcc, first on PATH,
 * which the contract's tool check finds. The stage is refused (exit 3),
 * naming both, and neither compiles anything; before, the steps ran
 * a/nvcc, which no check had seen, and the stage passed. When the compile
 * command names b/nvcc, spelled a/../b/nvcc, b/nvcc compiles every step
 * and the stage record names it, with its version. */
TEST_IMPL(cli_inspect_checked_nvcc) {
  const char *sfx = rt_exe_suffix();
  char dir[512], a[600], b[600], nv_a[700], nv_b[700], same[800], p[1500];
  char found_b[700], run[1300], path_env[700], ptxas_env[1200], *text;
  char deep[1000];
  const char *env[3];
  json_t *m, *st, *step;
  size_t i, compiles = 0;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_fresh_dir("nvcc-two", dir, sizeof dir), 0);
  /* dir as the platform spells it: under Wine its backslashes reach the
   * compile command, which the stage splits by the Windows command line's
   * rules there (until 2026-12-06 by the shell's, which dropped them) */
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  ASSERT_OK(plat_mkdir_p(a));
  ASSERT_OK(plat_mkdir_p(b));
  snprintf(nv_a, sizeof nv_a, "%s/nvcc%s", a, sfx);
  snprintf(nv_b, sizeof nv_b, "%s/nvcc%s", b, sfx);
  /* b/nvcc as PATH's search names it (Windows joins with a backslash) */
  snprintf(found_b, sizeof found_b, "%s%cnvcc%s", b, *sfx ? '\\' : '/', sfx);
  ASSERT_EQ(rt_copy_file(RP_FAKE_NVCC_EXE, nv_a), 0);
  ASSERT_EQ(rt_copy_file(RP_FAKE_NVCC_EXE, nv_b), 0);
  snprintf(p, sizeof p, "%s/cuobjdump%s", b, sfx);
  ASSERT_EQ(rt_copy_file(RP_FAKE_NVCC_EXE, p), 0);
  snprintf(path_env, sizeof path_env, "PATH=%s", b);
  snprintf(ptxas_env, sizeof ptxas_env,
           "FAKE_NVCC_PTXAS=%s/tests/fixtures/tools/ptxas_kernels_sm90.txt",
           CM_SOURCE_DIR);
  env[0] = path_env;
  env[1] = ptxas_env;
  env[2] = NULL;

  /* the build's nvcc is not the one checked: refused, nothing compiled */
  m = inspect_manifest("nvcc-other", nv_a, env, 3, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  st = rt_stage(m, "inspect");
  ASSERT_STR_EQ(rt_str(st, "status"), "failed");
  ASSERT_TRUE(json_is_true(json_object_get(st, "refused")));
  ASSERT_CONTAINS(rt_str(st, "reason"), "nvcc of the build");
  ASSERT_CONTAINS(rt_str(st, "reason"), nv_a);
  ASSERT_CONTAINS(rt_str(st, "reason"), found_b);
  ASSERT_EQ(json_array_size(json_object_get(st, "steps")), 0);
  json_decref(m);
  snprintf(p, sizeof p, "%s/ran.txt", a);
  ASSERT_EQ(plat_path_exists(p), 0);
  snprintf(p, sizeof p, "%s/ran.txt", b);
  ASSERT_EQ(plat_path_exists(p), 0);

  /* a build's nvcc under a deep folder (named, never run): the refusal
   * keeps both paths and the fix whole (its detail was cut at 384
   * characters, before the fix, until 2026-12-06) */
  snprintf(deep, sizeof deep, "%s/%0100d/%0100d/%0100d/nvcc%s", a, 1, 2, 3,
           sfx);
  m = inspect_manifest("nvcc-deep", deep, env, 3, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  st = rt_stage(m, "inspect");
  ASSERT_CONTAINS(rt_str(st, "reason"), deep);
  ASSERT_CONTAINS(rt_str(st, "reason"), found_b);
  ASSERT_CONTAINS(rt_str(st, "reason"), "(-DCMAKE_CUDA_COMPILER)");
  json_decref(m);

  /* the checked nvcc, spelled another way: it compiles, and is recorded */
  snprintf(same, sizeof same, "%s/../b/nvcc%s", a, sfx);
  m = inspect_manifest("nvcc-same", same, env, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  st = rt_stage(m, "inspect");
  ASSERT_STR_EQ(rt_str(st, "status"), "passed");
  ASSERT_STR_EQ(rt_str(json_object_get(st, "nvcc"), "path"), found_b);
  ASSERT_STR_EQ(rt_str(json_object_get(st, "nvcc"), "version"), "13.0");
  json_array_foreach(json_object_get(st, "steps"), i, step) {
    const char *name = rt_str(step, "name");
    if (cm_starts_with(name, "ptx-") || cm_starts_with(name, "cubin-")) {
      compiles++;
      ASSERT_STR_EQ(
          json_string_value(json_array_get(json_object_get(step, "argv"), 0)),
          found_b);
    }
  }
  ASSERT_EQ(compiles, 2);
  json_decref(m);
  snprintf(p, sizeof p, "%s/ran.txt", a);
  ASSERT_EQ(plat_path_exists(p), 0);
  snprintf(p, sizeof p, "%s/ran.txt", b);
  text = rt_read(p, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_CONTAINS(text, "-ptx");
  ASSERT_CONTAINS(text, "-cubin");
  free(text);
  snprintf(p, sizeof p, "%s/inspect/ptx/k.cu.ptx", run);
  text = rt_read(p, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_CONTAINS(text, "fake nvcc");
  free(text);
  return 0;
}

TEST_IMPL(cli_time_results_filed) {
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  static const char *const instr[] = {"FAKE_PF_MODE=json_instr", NULL};
  char root[600], run[1300], p[1500];
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("clean", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_decref(m);
  snprintf(p, sizeof p, "%s/results/clean/time.json", run);
  ASSERT_TRUE(plat_path_exists(p));

  /* An instrumented result is moved out of clean/ and the stage fails. */
  ASSERT_EQ(rt_make_root("instr", root, sizeof root), 0);
  ASSERT_OK(rt_run_repro(root, args, instr, &res));
  ASSERT_EQ(res.exit_code, 1);
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "failed");
  ASSERT_CONTAINS(rt_str(rt_stage(m, "time"), "reason"), "instrumented");
  json_decref(m);
  snprintf(p, sizeof p, "%s/results/clean/time.json", run);
  ASSERT_TRUE(!plat_path_exists(p));
  snprintf(p, sizeof p, "%s/results/instrumented/time.json", run);
  ASSERT_TRUE(plat_path_exists(p));

  /* The banner says instrumented while the file says clean: the file
   * leaves results/clean/ all the same (either record is enough). */
  {
    static const char *const banner[] = {"FAKE_PF_MODE=json_clean",
                                         "FAKE_PF_BANNER=instr", NULL};
    ASSERT_EQ(rt_make_root("bannerinstr", root, sizeof root), 0);
    ASSERT_OK(rt_run_repro(root, args, banner, &res));
    ASSERT_EQ(res.exit_code, 1);
    rp_step_result_free(&res);
    m = rt_load_manifest(root, run, sizeof run);
    ASSERT_TRUE(m != NULL);
    ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "failed");
    ASSERT_CONTAINS(rt_str(rt_stage(m, "time"), "reason"), "LD_PRELOAD");
    ASSERT_TRUE(json_object_get(rt_stage(m, "time"), "result") == NULL ||
                json_is_null(json_object_get(rt_stage(m, "time"), "result")));
    json_decref(m);
    snprintf(p, sizeof p, "%s/results/clean/time.json", run);
    ASSERT_TRUE(!plat_path_exists(p));
    snprintf(p, sizeof p, "%s/results/unreadable/time.json", run);
    ASSERT_TRUE(plat_path_exists(p));
  }

  /* --select: words cuda_portfolio refuses stop the run before it begins
   * (exit 2, no run folder); words it takes reach the time stage, and the
   * check leaves no file behind */
  {
    static const char *const bad[] = {"time", "--select", "--fake-refuse",
                                      NULL};
    static const char *const good[] = {"time", "--select", "--op softmax",
                                       NULL};
    char *text;
    ASSERT_EQ(rt_make_root("select", root, sizeof root), 0);
    ASSERT_OK(rt_run_repro(root, bad, clean, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--select \"--fake-refuse\": cuda_portfolio "
                                  "refuses it");
    ASSERT_CONTAINS(res.err_tail, "unknown option '--fake-refuse'");
    rp_step_result_free(&res);
    ASSERT_TRUE(rt_load_manifest(root, run, sizeof run) == NULL);
    ASSERT_OK(rt_run_repro(root, good, clean, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
    m = rt_load_manifest(root, run, sizeof run);
    ASSERT_TRUE(m != NULL);
    json_decref(m);
    snprintf(p, sizeof p, "%s/results/clean/time.json", run);
    text = rt_read(p, NULL);
    ASSERT_TRUE(text != NULL);
    ASSERT_CONTAINS(text, "\"--op\", \"softmax\"");
    free(text);
    snprintf(p, sizeof p, "%s/logs/select-check.json", root);
    ASSERT_TRUE(!plat_path_exists(p));
  }
  {
    /* each selected stage's own form: --shape suits the time stage's
     * benchmark set, not the profile stage's smoke set, which refused it
     * only after the stages before it had run */
    static const char *const prof[] = {"profile", "--select",
                                       "--op softmax --shape 8192x8192", NULL};
    static const char *const timed[] = {"time", "--select",
                                        "--op softmax --shape 8192x8192", NULL};
    ASSERT_EQ(rt_make_root("select-prof", root, sizeof root), 0);
    ASSERT_OK(rt_run_repro(root, prof, clean, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--shape with --smoke");
    ASSERT_CONTAINS(res.err_tail, "the profile stage's smoke set");
    rp_step_result_free(&res);
    ASSERT_TRUE(rt_load_manifest(root, run, sizeof run) == NULL);
    ASSERT_OK(rt_run_repro(root, timed, clean, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
  }
  return 0;
}

/* cuda_portfolio exits 0 but its results file is no results document: the
 * stage fails saying so, the file is moved out of results/clean/ to
 * results/unreadable/ (kept, byte for byte) and named in the stage record,
 * and the run's archive verifies. Before, it stayed in results/clean/ and
 * `repro verify` refused the run's own archive ("results document without
 * a boolean instrumented"). */
TEST_IMPL(cli_time_unreadable_results) {
  static const char *const args[] = {"time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=json_malformed", NULL};
  char run[1300], p[1500];
  rp_verify_result vr;
  json_t *m, *list;
  char *text;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("unreadable", args, env, 1, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  /* the archive verifies, folder and bundle */
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  snprintf(p, sizeof p, "%s.tar.gz", run);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(p, &vr));
  ASSERT_EQ(vr.ok, 1);
  /* the file is kept as it was, out of the clean results */
  snprintf(p, sizeof p, "%s/results/clean/time.json", run);
  ASSERT_TRUE(!plat_path_exists(p));
  snprintf(p, sizeof p, "%s/results/unreadable/time.json", run);
  text = rt_read(p, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_STR_EQ(text, RT_MALFORMED_JSON);
  free(text);
  /* and the stage says so */
  ASSERT_STR_EQ(rt_str(m, "status"), "complete");
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "failed");
  ASSERT_CONTAINS(rt_str(rt_stage(m, "time"), "reason"),
                  "is not a results document");
  ASSERT_CONTAINS(rt_str(rt_stage(m, "time"), "reason"), "results/unreadable/");
  list = json_object_get(rt_stage(m, "time"), "unreadable");
  ASSERT_EQ(json_array_size(list), 1);
  ASSERT_STR_EQ(json_string_value(json_array_get(list, 0)),
                "results/unreadable/time.json");
  json_decref(m);
  return 0;
}

/* A bundle that cannot be written (here a folder stands at its path; the
 * audit filled a 3 MB tmpfs): exit 5, and the manifest and report in the
 * run folder say failed with that exit code, and still verify. Before, the
 * manifest said failed with exit_code 0 and report.md, written before the
 * bundle, said complete. */
TEST_IMPL(cli_bundle_unwritable) {
  static const char *const args[] = {"time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=json_clean",
                                    "FAKE_PF_BUNDLE_DIR=1", NULL};
  char root[600], run[1300], p[1400];
  rp_step_result res;
  rp_verify_result vr;
  json_t *m;
  char *text;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("nobundle", root, sizeof root), 0);
  ASSERT_OK(rt_run_repro(root, args, env, &res));
  ASSERT_EQ(res.exit_code, 5);
  ASSERT_CONTAINS(res.err_tail, "bundle not written");
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "failed");
  ASSERT_EQ(json_integer_value(json_object_get(m, "exit_code")), 5);
  ASSERT_TRUE(json_is_string(json_object_get(m, "bundle_error")));
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_decref(m);
  snprintf(p, sizeof p, "%s/report.md", run);
  text = rt_read(p, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_CONTAINS(text, "Run status: **failed**");
  ASSERT_TRUE(strstr(text, "**complete**") == NULL);
  ASSERT_TRUE(strstr(text, "| run status | complete") == NULL);
  free(text);
  /* the run folder, the whole archive now, matches its manifest */
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_EQ(vr.ok, 1);
  ASSERT_STR_EQ(vr.status, "failed");
  snprintf(p, sizeof p, "%s.tar.gz", run);
  ASSERT_TRUE(plat_path_is_dir(p));
  return 0;
}

/* The readers (report, compare) take paths relative to where the user
 * stands, as verify does, whatever --root says (the bash launcher always
 * passes --root), and report without a RUN looks under --out DIR. */
TEST_IMPL(cli_readers_relative) {
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char run[1300], logs[1300], other[512], md[1500];
  const char *id;
  rp_step_spec sp;
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("readers", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  /* run is <root>/logs/<id>: stand in <root>/logs, name the run by <id> */
  ASSERT_OK(cm_strlcpy(logs, run, sizeof logs));
  *strrchr(logs, '/') = '\0';
  id = strrchr(run, '/') + 1;
  ASSERT_EQ(rt_fresh_dir("readers-other", other, sizeof other), 0);
  memset(&sp, 0, sizeof sp);
  sp.timeout_s = 30;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  sp.cwd = logs;
  {
    const char *cmp[] = {RP_REPRO_EXE, "--root", other, "compare",
                         id,           id,       NULL};
    sp.argv = cmp;
    ASSERT_OK(rp_step_run(&sp, &res));
    /* read (the fake's results have no case: refused for that, not for a
     * path it could not find) */
    ASSERT_TRUE(strstr(res.err_tail, "cannot read") == NULL);
    ASSERT_CONTAINS(res.err_tail, "no case in common");
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.out, id);
    rp_step_result_free(&res);
  }
  {
    /* "report" as verify's argument is not the report command (it would
     * have re-finished the newest run's manifest) */
    const char *ver[] = {RP_REPRO_EXE, "--root", logs,
                         "verify",     "report", NULL};
    sp.argv = ver;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 4);
    ASSERT_CONTAINS(res.err_tail, "repro verify: report");
    rp_step_result_free(&res);
  }
  {
    /* a folder with no results: named as such, not "no such file" */
    const char *cmp[] = {RP_REPRO_EXE, "compare", other, id, NULL};
    sp.argv = cmp;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "a folder with no timing results");
    rp_step_result_free(&res);
  }
  {
    const char *rep[] = {RP_REPRO_EXE, "--root",      other, "report",
                         id,           "--no-finish", NULL};
    sp.argv = rep;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
    snprintf(md, sizeof md, "%s/report.md", run);
    ASSERT_TRUE(plat_path_exists(md));
    ASSERT_EQ(remove(md), 0);
  }
  {
    /* --out=DIR with a long DIR is --out DIR (the name was cut at 32
     * characters with the value, and the option ignored) */
    char eqout[1400];
    const char *rep_eq[] = {RP_REPRO_EXE, eqout, "report", "--no-finish", NULL};
    snprintf(eqout, sizeof eqout, "--out=%s", logs);
    sp.cwd = other;
    sp.argv = rep_eq;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
  }
  {
    /* no RUN: the newest run under --out, from a folder with no logs/; a
     * folder beside it not named by a run id (a copy) is not the newest,
     * though its name sorts after every digit */
    const char *rep[] = {RP_REPRO_EXE, "--root", other,         "--out",
                         logs,         "report", "--no-finish", NULL};
    char decoy[1400], from[1400];
    snprintf(decoy, sizeof decoy, "%s/zz-copy", logs);
    ASSERT_OK(plat_mkdir_p(decoy));
    snprintf(from, sizeof from, "%s/manifest.json", run);
    snprintf(decoy, sizeof decoy, "%s/zz-copy/manifest.json", logs);
    ASSERT_EQ(rt_copy_file(from, decoy), 0);
    sp.cwd = other;
    sp.argv = rep;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
    ASSERT_TRUE(plat_path_exists(md));
  }
  return 0;
}

#ifndef _WIN32
/* The profile stage through a stand-in ncu (a script that runs the program
 * it is given) and the fake cuda_portfolio, whose JSON says
 * "instrumented": false: that file is moved out of results/instrumented/
 * to profile/unflagged/, named in the record, and the run's own archive
 * verifies (it failed verify before: a clean result among instrumented). */
TEST_IMPL(cli_profile_unflagged) {
  static const char *const args[] = {"profile", NULL};
  char root[600], bin[800], ncu[900], env_home[900], p[1400], run[1300];
  const char *env[] = {"FAKE_PF_MODE=json_clean", env_home, NULL};
  rp_step_result res;
  rp_verify_result vr;
  json_t *m, *ncu_rec;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("profile-unflagged", root, sizeof root), 0);
  snprintf(p, sizeof p, "%s/env/profile.contract", root);
  ASSERT_EQ(rt_write(p,
                     "tool ncu >= 2023.1\ndevice optional\n"
                     "counters optional\ntimeout 20\ninstrumented yes\n",
                     0),
            0);
  /* CUDA_HOME/bin is where the tool probe looks first */
  snprintf(bin, sizeof bin, "%s/fakecuda/bin", root);
  ASSERT_OK(plat_mkdir_p(bin));
  snprintf(ncu, sizeof ncu, "%s/ncu", bin);
  ASSERT_EQ(rt_write(ncu,
                     "#!/bin/sh\n"
                     "case \"$1\" in\n"
                     "--version) echo 'NVIDIA (R) Nsight Compute Command Line "
                     "Profiler'; echo 'Version 2025.3.1.0'; exit 0 ;;\n"
                     "--import) exit 0 ;;\n"
                     "esac\n"
                     "while [ $# -gt 0 ] && [ \"$1\" != --force-overwrite ]; "
                     "do shift; done\n"
                     "shift\n"
                     "exec \"$@\"\n",
                     1),
            0);
  snprintf(env_home, sizeof env_home, "CUDA_HOME=%s/fakecuda", root);
  ASSERT_OK(rt_run_repro(root, args, env, &res));
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ncu_rec = json_object_get(json_object_get(rt_stage(m, "profile"), "profile"),
                            "ncu");
  ASSERT_TRUE(ncu_rec != NULL);
  ASSERT_STR_EQ(rt_str(ncu_rec, "result"),
                "profile/unflagged/profile-ncu.json");
  ASSERT_CONTAINS(rt_str(ncu_rec, "result_warning"),
                  "missed the tool's markers");
  json_decref(m);
  snprintf(p, sizeof p, "%s/results/instrumented/profile-ncu.json", run);
  ASSERT_TRUE(!plat_path_exists(p));
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  return 0;
}
#else
TEST_IMPL(cli_profile_unflagged) {
  printf("skip: the stand-in ncu is a shell script (POSIX-only test)\n");
  return TEST_SKIP;
}
#endif

/* repro time --lock-clocks: passed to cuda_portfolio when repro runs as root
 * (or elevated), refused by the stage's preflight otherwise; a malformed
 * spec is a usage error. */
TEST_IMPL(cli_time_lock_clocks) {
  static const char *const args[] = {"time", "--lock-clocks", "1755:2619",
                                     NULL};
  static const char *const bad[] = {"time", "--lock-clocks", "fast", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char root[600], run[1300], p[1500];
  rp_step_result res;
  json_t *m, *doc, *a;
  size_t i;
  int at = -1;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("lock", root, sizeof root), 0);
  ASSERT_OK(rt_run_repro(root, bad, clean, &res));
  ASSERT_EQ(res.exit_code, 2);
  rp_step_result_free(&res);
  ASSERT_OK(rt_run_repro(root, args, clean, &res));
  if (plat_is_privileged() != 1) {
    ASSERT_EQ(res.exit_code, 3);
    rp_step_result_free(&res);
    m = rt_load_manifest(root, run, sizeof run);
    ASSERT_TRUE(m != NULL);
    ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "failed");
    ASSERT_CONTAINS(rt_str(rt_stage(m, "time"), "reason"), "needs root");
    json_decref(m);
    return 0;
  }
  ASSERT_EQ(res.exit_code, 0);
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "lock_clocks"), "1755:2619");
  ASSERT_STR_EQ(rt_str(json_object_get(m, "options"), "lock_clocks"),
                "1755:2619");
  json_decref(m);
  snprintf(p, sizeof p, "%s/results/clean/time.json", run);
  doc = cm_json_load_file(p, 0, NULL);
  ASSERT_TRUE(doc != NULL);
  a = json_object_get(doc, "fake_argv");
  for (i = 0; i + 1 < json_array_size(a); i++)
    if (strcmp(json_string_value(json_array_get(a, i)), "--lock-clocks") == 0)
      at = (int)i;
  ASSERT_TRUE(at >= 0);
  ASSERT_STR_EQ(json_string_value(json_array_get(a, (size_t)at + 1)),
                "1755:2619");
  json_decref(doc);
  return 0;
}

#ifdef _WIN32
/* Windows has no SIGINT to send to another process: libuv turns a console
 * Ctrl-C into SIGINT, and another process can only raise one with
 * GenerateConsoleCtrlEvent on a console it shares, which Wine does not
 * deliver reliably (docs/WINDOWS.md). */
TEST_IMPL(cli_sigint) {
  printf("skip: no way to send Ctrl-C to another process here "
         "(POSIX-only test; see docs/WINDOWS.md)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_interrupt_archive) {
  printf("skip: no way to send Ctrl-C to another process here "
         "(POSIX-only test; see docs/WINDOWS.md)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_time_interrupted_results) {
  printf("skip: no way to send Ctrl-C to another process here "
         "(POSIX-only test; see docs/WINDOWS.md)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_report_interrupt) {
  printf("skip: no way to send Ctrl-C to another process here "
         "(POSIX-only test; see docs/WINDOWS.md)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_sighup_ignored) {
  printf("skip: SIGHUP is POSIX's (see rp_runner.c)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_doctor_interrupt) {
  printf("skip: no way to send Ctrl-C to another process here "
         "(POSIX-only test; see docs/WINDOWS.md)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_sigpipe) {
  printf("skip: no SIGPIPE on Windows (a write to a closed pipe is an "
         "error there), and no Ctrl-C to send (docs/WINDOWS.md)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_sigquit) {
  printf("skip: SIGQUIT is POSIX's (see rp_runner.c)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_file_size_limit) {
  printf("skip: no file size limit signal on Windows (SIGXFSZ is "
         "POSIX's)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_log_flushed_midstep) {
  printf("skip: no SIGKILL to send to another process here "
         "(POSIX-only test)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_special_files) {
  printf("skip: symbolic links and FIFOs are made by the POSIX fake only\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_archive_verifies) {
  printf("skip: a file name with a backslash is POSIX's\n");
  return TEST_SKIP;
}

/* SIGHUP is handled on POSIX only (rp_runner.c says why). */
TEST_IMPL(cli_sighup) {
  printf("skip: SIGHUP is POSIX's (see rp_runner.c)\n");
  return TEST_SKIP;
}

TEST_IMPL(cli_second_signal) {
  printf("skip: no signals to send to repro on Windows (docs/WINDOWS.md)\n");
  return TEST_SKIP;
}
#else
/* Runs `repro COMMAND` (a one-stage command: test or time) in a fresh root
 * NAME with the fake in MODE (one that writes FAKE_PF_PIDFILE and hangs),
 * sends signum to repro once the fake runs, and checks the interrupt path:
 * exit 130, the manifest says interrupted by signame, the stage failed as
 * interrupted, and the fake (in its own session, which the signal does not
 * reach) was ended with repro. The run folder goes to run[size]. ignored: a
 * signal repro inherits ignored (0: none). pipe_gone: repro's stdout and
 * stderr are a pipe (with SIGPIPE at its default, as a shell leaves it)
 * whose reader closes just before the signal, as tee does on the same
 * Ctrl-C. then: a second signal, sent 300 ms after the first (0: none). */
static int interrupt_steps(const char *name, const char *command,
                           const char *mode, int signum, const char *signame,
                           char *run, size_t size, int ignored, int pipe_gone,
                           int then) {
  char root[600], out[1200], pidfile[1200], envp[1300], envm[128];
  pid_t pid;
  int status = 0, i, alive, fds[2] = {-1, -1};
  long child = -1;
  json_t *m;
  ASSERT_EQ(rt_make_root(name, root, sizeof root), 0);
  snprintf(out, sizeof out, "%s/logs", root);
  snprintf(pidfile, sizeof pidfile, "%s/portfolio.pid", root);
  snprintf(envp, sizeof envp, "FAKE_PF_PIDFILE=%s", pidfile);
  snprintf(envm, sizeof envm, "FAKE_PF_MODE=%s", mode);
  if (pipe_gone)
    ASSERT_EQ(pipe(fds), 0);
  pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    putenv(envm);
    putenv(envp);
    if (ignored != 0) /* as nohup leaves it */
      signal(ignored, SIG_IGN);
    if (pipe_gone) {
      signal(SIGPIPE, SIG_DFL);
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      close(fds[0]);
      close(fds[1]);
    }
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "--root", root, "--out", out, command,
          (char *)NULL);
    _exit(127);
  }
  /* Wait until the fake binary runs, then interrupt repro. */
  for (i = 0; i < 200 && !plat_path_exists(pidfile); i++)
    rt_sleep_ms(50);
  rt_sleep_ms(50);
  ASSERT_TRUE(plat_path_exists(pidfile));
  {
    char *t = rt_read(pidfile, NULL);
    child = t != NULL ? strtol(t, NULL, 10) : -1;
    free(t);
  }
  ASSERT_GT(child, 0);
  if (ignored != 0) {
    /* the signal repro inherited ignored is left ignored: the run goes on */
    int gone;
    ASSERT_EQ(kill(pid, ignored), 0);
    rt_sleep_ms(300);
    gone = waitpid(pid, &status, WNOHANG);
    if (gone != 0)
      kill((pid_t)child, SIGKILL);
    ASSERT_EQ(gone, 0);
  }
  if (pipe_gone) { /* the reader goes: repro's next line meets no reader */
    close(fds[1]);
    close(fds[0]);
  }
  ASSERT_EQ(kill(pid, signum), 0);
  if (then != 0) { /* a second signal while the step ends */
    rt_sleep_ms(300);
    ASSERT_EQ(kill(pid, then), 0);
  }
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  /* The child was ended with repro; one left running (the bug) is ended
   * here, so that a failing test leaves nothing behind. */
  for (i = 0; i < 60 && plat_pid_alive((int)child); i++)
    rt_sleep_ms(50);
  alive = plat_pid_alive((int)child);
  if (alive)
    kill((pid_t)child, SIGKILL);
  ASSERT_EQ(alive, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130);
  m = rt_load_manifest(root, run, size);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "interrupted");
  ASSERT_STR_EQ(rt_str(m, "interrupted_by"), signame);
  ASSERT_EQ(json_integer_value(json_object_get(m, "exit_code")), 130);
  ASSERT_STR_EQ(rt_str(rt_stage(m, command), "status"), "failed");
  ASSERT_CONTAINS(rt_str(rt_stage(m, command), "reason"), "interrupted");
  json_decref(m);
  return 0;
}

static int interrupt_step(const char *name, const char *command,
                          const char *mode, int signum, const char *signame,
                          char *run, size_t size, int ignored, int pipe_gone) {
  return interrupt_steps(name, command, mode, signum, signame, run, size,
                         ignored, pipe_gone, 0);
}

TEST_IMPL(cli_sigint) {
  char run[1300];
  return interrupt_step("sigint", "test", "sleep", SIGINT, "SIGINT", run,
                        sizeof run, 0, 0);
}

/* SIGQUIT, then SIGINT while the step (deaf to both and to SIGTERM) waits
 * out its grace: the manifest names the signal that interrupted the run,
 * the first. Before, each signal overwrote the last (interrupted_by
 * SIGINT here), while one during the archive kept the first. */
TEST_IMPL(cli_second_signal) {
  char run[1300];
  return interrupt_steps("sigtwice", "test", "sleep_deaf", SIGQUIT, "SIGQUIT",
                         run, sizeof run, 0, 0, SIGINT);
}

/* `./repro test 2>&1 | tee run.log` and Ctrl-C: tee ends with the same
 * Ctrl-C, and repro's next line went to a pipe without a reader. Before,
 * SIGPIPE's default ended repro there (exit 141): no manifest, the logs
 * cut short. Now the lines are lost and the run is archived as
 * interrupted. */
/* Ctrl-C during `repro doctor`: it ended the probe in flight, refused the
 * rest (their lines "version unknown") and exited 0 as if the report were
 * the machine's. Now it says so and exits 130. The probe is a fake cmake
 * on PATH that hangs. */
TEST_IMPL(cli_doctor_interrupt) {
  char root[600], p[1200], pidfile[1200], path[1400], tool[1300];
  const char *sys = getenv("PATH");
  pid_t pid;
  int status = 0, i;
  long probe = -1;
  ASSERT_EQ(rt_make_root("doctorint", root, sizeof root), 0);
  snprintf(p, sizeof p, "%s/env/build.contract", root);
  ASSERT_EQ(rt_write(p,
                     "tool cmake >= 3.25\ndevice none\ntimeout 60\n"
                     "instrumented no\n",
                     0),
            0);
  snprintf(pidfile, sizeof pidfile, "%s/cmake.pid", root);
  snprintf(p, sizeof p, "%s/fakebin", root);
  ASSERT_EQ(plat_mkdir_p(p), CM_OK);
  snprintf(tool, sizeof tool, "%s/fakebin/cmake", root);
  snprintf(path, sizeof path, "#!/bin/sh\necho $$ > '%s'\nexec sleep 30\n",
           pidfile);
  ASSERT_EQ(rt_write(tool, path, 0), 0);
  ASSERT_EQ(chmod(tool, 0755), 0);
  snprintf(path, sizeof path, "PATH=%s/fakebin:%s", root,
           sys != NULL ? sys : "/usr/bin:/bin");
  pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    putenv(path);
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "--root", root, "doctor", "--only",
          "build", (char *)NULL);
    _exit(127);
  }
  for (i = 0; i < 200 && !plat_path_exists(pidfile); i++)
    rt_sleep_ms(50);
  rt_sleep_ms(50);
  {
    char *t = rt_read(pidfile, NULL);
    probe = t != NULL ? strtol(t, NULL, 10) : -1;
    free(t);
  }
  if (probe <= 0)
    kill(pid, SIGKILL);
  ASSERT_GT(probe, 0);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  for (i = 0; i < 60 && plat_pid_alive((int)probe); i++)
    rt_sleep_ms(50);
  if (plat_pid_alive((int)probe)) {
    kill((pid_t)probe, SIGKILL);
    ASSERT_TRUE(0); /* the probe outlived repro */
  }
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130);
  return 0;
}

TEST_IMPL(cli_sigpipe) {
  char run[1300];
  return interrupt_step("sigpipe", "test", "sleep", SIGINT, "SIGINT", run,
                        sizeof run, 0, 1);
}

/* cuda_portfolio interrupted while it writes its results: the unfinished
 * files (the temporary name the real binary writes first, and time.json
 * cut short, as a binary writing it directly leaves it) are moved out of
 * results/clean/ to results/unreadable/ and named in the stage record, so
 * the interrupted run's archive verifies. Before, time.json stayed in
 * results/clean/ and `repro verify` refused the run's own archive. */
TEST_IMPL(cli_time_interrupted_results) {
  char run[1300], p[1500];
  rp_verify_result vr;
  json_t *m, *list;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(interrupt_step("timeint", "time", "json_partial", SIGINT, "SIGINT",
                           run, sizeof run, 0, 0),
            0);
  /* the interrupted run's archive verifies, folder and bundle */
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  snprintf(p, sizeof p, "%s.tar.gz", run);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(p, &vr));
  ASSERT_EQ(vr.ok, 1);
  ASSERT_STR_EQ(vr.status, "interrupted");
  /* nothing unfinished among the clean results; both files kept */
  snprintf(p, sizeof p, "%s/results/clean/time.json", run);
  ASSERT_TRUE(!plat_path_exists(p));
  snprintf(p, sizeof p, "%s/results/clean/time.json.tmp", run);
  ASSERT_TRUE(!plat_path_exists(p));
  snprintf(p, sizeof p, "%s/results/unreadable/time.json", run);
  ASSERT_TRUE(plat_path_exists(p));
  snprintf(p, sizeof p, "%s/results/unreadable/time.json.tmp", run);
  ASSERT_TRUE(plat_path_exists(p));
  /* named in the stage record */
  m = rt_load_manifest_at(run);
  ASSERT_TRUE(m != NULL);
  list = json_object_get(rt_stage(m, "time"), "unreadable");
  ASSERT_EQ(json_array_size(list), 2);
  ASSERT_STR_EQ(json_string_value(json_array_get(list, 0)),
                "results/unreadable/time.json.tmp");
  ASSERT_STR_EQ(json_string_value(json_array_get(list, 1)),
                "results/unreadable/time.json");
  ASSERT_TRUE(json_object_get(rt_stage(m, "time"), "result") == NULL);
  json_decref(m);
  return 0;
}

/* SIGINT after the stages, while the archive is written (a 64 MiB file in
 * the run makes that take seconds): the archive is finished and says the
 * run was interrupted, exit 130. Before, the signal waited unread in the
 * loop and repro exited 0 with a manifest, report and bundle that said
 * complete. */
TEST_IMPL(cli_interrupt_archive) {
  char root[600], run[1300], out[1200], bundle[1400], md[1400];
  char err[8192], chunk[1024];
  size_t have = 0;
  ssize_t got = 0;
  int fds[2], status = 0, sent = 0;
  pid_t pid;
  rp_verify_result vr;
  json_t *m;
  char *text;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("intarchive", root, sizeof root), 0);
  snprintf(out, sizeof out, "%s/logs", root);
  ASSERT_EQ(pipe(fds), 0);
  pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    putenv("FAKE_PF_MODE=json_clean");
    putenv("FAKE_PF_BIG_MB=64");
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "--root", root, "--out", out, "time",
          (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  /* repro's stderr, until it ends (all of it is read, so that repro never
   * waits on a full pipe; the first sizeof err - 1 bytes are kept); SIGINT
   * once the time stage's verdict is printed (the archive comes next) and
   * the hashing has begun. */
  while ((got = read(fds[0], chunk, sizeof chunk)) > 0) {
    size_t n = sizeof err - 1 - have;
    if ((size_t)got < n)
      n = (size_t)got;
    memcpy(err + have, chunk, n);
    have += n;
    err[have] = '\0';
    if (!sent && strstr(err, "repro: stage time") != NULL) {
      rt_sleep_ms(200);
      ASSERT_EQ(kill(pid, SIGINT), 0);
      sent = 1;
    }
  }
  close(fds[0]);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_EQ(sent, 1);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130);
  ASSERT_CONTAINS(err, "SIGINT while the archive was written");
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "interrupted");
  ASSERT_STR_EQ(rt_str(m, "interrupted_by"), "SIGINT");
  ASSERT_STR_EQ(rt_str(m, "interrupted_during"), "archive");
  ASSERT_EQ(json_integer_value(json_object_get(m, "exit_code")), 130);
  /* the stage itself ended before the interrupt, and says so */
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_decref(m);
  snprintf(md, sizeof md, "%s/report.md", run);
  text = rt_read(md, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_CONTAINS(text, "Run status: **interrupted**");
  free(text);
  /* the folder and the bundle both hold the interrupted manifest */
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_EQ(vr.ok, 1);
  ASSERT_STR_EQ(vr.status, "interrupted");
  snprintf(bundle, sizeof bundle, "%s.tar.gz", run);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(bundle, &vr));
  ASSERT_EQ(vr.ok, 1);
  ASSERT_STR_EQ(vr.status, "interrupted");
  return 0;
}

/* SIGHUP (the terminal closing) interrupts the run as SIGINT does. Before,
 * its default action ended repro at once: no manifest, and the step, in a
 * session of its own, ran on. */
TEST_IMPL(cli_sighup) {
  char run[1300];
  return interrupt_step("sighup", "test", "sleep", SIGHUP, "SIGHUP", run,
                        sizeof run, 0, 0);
}

/* SIGQUIT (Ctrl-\) interrupts the run as SIGINT does. Before, its default
 * action ended repro at once (exit 131): no manifest, and the step ran
 * on. */
TEST_IMPL(cli_sigquit) {
  char run[1300];
  return interrupt_step("sigquit", "test", "sleep", SIGQUIT, "SIGQUIT", run,
                        sizeof run, 0, 0);
}

/* A bundle larger than the file size limit (ulimit -f 160; the fake
 * writes 156 KiB gzip cannot shrink into the run): the write fails with
 * EFBIG, and the run is archived as failed with bundle_error, exit 5; no
 * temporary bundle is left. Before, SIGXFSZ's default ended repro in the
 * middle of the bundle (exit 153): a .tar.gz.tmp-N left behind, and a
 * manifest that said complete, exit_code 0. */
TEST_IMPL(cli_file_size_limit) {
  char root[600], run[1300], out[1200], name[1400];
  int status = 0;
  pid_t pid;
  uv_fs_t req;
  uv_dirent_t ent;
  rp_verify_result vr;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("fsize", root, sizeof root), 0);
  snprintf(out, sizeof out, "%s/logs", root);
  pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = 160 * 1024;
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
      _exit(126);
    signal(SIGXFSZ, SIG_DFL); /* as a shell leaves it */
    putenv("FAKE_PF_MODE=json_clean");
    putenv("FAKE_PF_BIG_KB=156");
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "--root", root, "--out", out, "time",
          (char *)NULL);
    _exit(127);
  }
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(!WIFSIGNALED(status));
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 5);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "failed");
  ASSERT_EQ(json_integer_value(json_object_get(m, "exit_code")), 5);
  ASSERT_TRUE(json_is_string(json_object_get(m, "bundle_error")));
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_decref(m);
  /* nothing but the run folder under logs/: no bundle, no temporary one */
  ASSERT_TRUE(uv_fs_scandir(NULL, &req, out, 0, NULL) >= 0);
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    snprintf(name, sizeof name, "%s/%s", out, ent.name);
    ASSERT_STR_EQ(name, run);
  }
  uv_fs_req_cleanup(&req);
  /* the run folder is the archive, and verifies */
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  return 0;
}

/* repro killed outright (SIGKILL) while a step runs, after the step
 * printed its banner and went quiet: the step's stdout log, never
 * finished, still decompresses to what was printed, as docs/AUDIT.md
 * says. Before, the log was flushed only when closed: 10 bytes of gzip
 * header and nothing in them. */
TEST_IMPL(cli_log_flushed_midstep) {
  char root[600], run[1300], out[1200], pidfile[1200], envp[1300];
  char *text = NULL, *t;
  size_t len = 0;
  long child;
  int status = 0, i;
  pid_t pid;
  ASSERT_EQ(rt_make_root("logflush", root, sizeof root), 0);
  snprintf(out, sizeof out, "%s/logs", root);
  snprintf(pidfile, sizeof pidfile, "%s/portfolio.pid", root);
  snprintf(envp, sizeof envp, "FAKE_PF_PIDFILE=%s", pidfile);
  pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    putenv("FAKE_PF_MODE=sleep");
    putenv(envp);
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "--root", root, "--out", out, "test",
          (char *)NULL);
    _exit(127);
  }
  for (i = 0; i < 200 && !plat_path_exists(pidfile); i++)
    rt_sleep_ms(50);
  /* the flush comes within a second of the output; 2.5 s is ample */
  rt_sleep_ms(2500);
  kill(pid, SIGKILL);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  t = rt_read(pidfile, NULL);
  child = t != NULL ? strtol(t, NULL, 10) : -1;
  free(t);
  if (child > 0) /* its own session: repro's death does not end it */
    kill((pid_t)child, SIGKILL);
  ASSERT_GT(child, 0);
  ASSERT_EQ(rt_find_run(out, run, sizeof run), 0);
  ASSERT_OK(rp_log_read(run, "test/cuda_portfolio.stdout.log.gz", &text, &len));
  ASSERT_CONTAINS(text, "[cuda_portfolio] version=fake");
  free(text);
  return 0;
}

/* The reason recorded for path in the manifest's skipped[], or "(none)". */
static const char *skipped_reason(json_t *m, const char *path) {
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(m, "skipped"), i, e) {
    if (strcmp(rt_str(e, "path"), path) == 0)
      return rt_str(e, "reason");
  }
  return "(none)";
}

/* A tool that leaves links and a FIFO in the run folder (a dangling
 * latest-report link, a link to "..", a link to a file of the run, a
 * FIFO): none is followed, hashed or bundled; each is listed in the
 * manifest's skipped[] with what it is; the run is complete and its folder
 * and bundle verify. Before, the walk followed links with stat: the
 * dangling one failed it and the manifest was removed ("manifest not
 * written: no such file or directory", naming no file, exit 5). */
TEST_IMPL(cli_special_files) {
  static const char *const args[] = {"time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=json_clean",
                                    "FAKE_PF_SPECIAL=1", NULL};
  char run[1300], p[1400];
  rp_verify_result vr;
  size_t i;
  json_t *m, *e;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("special", args, env, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "complete");
  ASSERT_EQ(json_array_size(json_object_get(m, "skipped")), 4);
  ASSERT_STR_EQ(skipped_reason(m, "time/latest-report"),
                "symbolic link to /nonexistent/target");
  ASSERT_STR_EQ(skipped_reason(m, "time/up"), "symbolic link to ..");
  ASSERT_STR_EQ(skipped_reason(m, "time/json"),
                "symbolic link to ../results/clean/time.json");
  ASSERT_STR_EQ(skipped_reason(m, "time/fifo"), "FIFO");
  /* none of them among the files, and nothing listed through "up" */
  json_array_foreach(json_object_get(m, "files"), i, e) {
    const char *path = rt_str(e, "path");
    ASSERT_TRUE(strncmp(path, "time/up", 7) != 0);
    ASSERT_TRUE(strcmp(path, "time/json") != 0);
    ASSERT_TRUE(strcmp(path, "time/latest-report") != 0);
    ASSERT_TRUE(strcmp(path, "time/fifo") != 0);
  }
  json_decref(m);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  /* the bundle verifies against files[]: it holds no entry for them */
  snprintf(p, sizeof p, "%s.tar.gz", run);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(p, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  ASSERT_STR_EQ(vr.status, "complete");
  return 0;
}

/* repro never calls complete a run its own verify refuses. A tool's file
 * named time/C:\tmp\trace.txt is renamed with %5C for each backslash
 * (renamed[] keeps the original) and the run verifies; a truncated
 * time/trace.json.gz is listed with its problem, and the run is failed,
 * exit 5, as verify says of it. Before, both runs said complete, exit 0,
 * and verify refused them ("unsafe path", "gzip stream truncated"). */
TEST_IMPL(cli_archive_verifies) {
  static const char *const args[] = {"time", NULL};
  static const char *const bs[] = {"FAKE_PF_MODE=json_clean",
                                   "FAKE_PF_ODD=backslash", NULL};
  static const char *const gz[] = {"FAKE_PF_MODE=json_clean",
                                   "FAKE_PF_ODD=badgz", NULL};
  char run[1300], p[1400];
  rp_verify_result vr;
  size_t i;
  json_t *m, *e, *found = NULL;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("backslash", args, bs, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "complete");
  e = json_array_get(json_object_get(m, "renamed"), 0);
  ASSERT_STR_EQ(rt_str(e, "path"), "time/C:%5Ctmp%5Ctrace.txt");
  json_decref(m);
  snprintf(p, sizeof p, "%s/time/C:%%5Ctmp%%5Ctrace.txt", run);
  ASSERT_TRUE(plat_path_exists(p));
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  snprintf(p, sizeof p, "%s.tar.gz", run);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(p, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);

  m = rt_repro_manifest("badgz", args, gz, 5, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "failed");
  ASSERT_EQ(json_integer_value(json_object_get(m, "exit_code")), 5);
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_array_foreach(json_object_get(m, "files"), i, e) {
    if (strcmp(rt_str(e, "path"), "time/trace.json.gz") == 0)
      found = e;
  }
  ASSERT_TRUE(found != NULL);
  ASSERT_CONTAINS(rt_str(found, "problem"), "truncated");
  json_decref(m);
  /* verify says the same of it */
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_EQ(vr.ok, 0);
  ASSERT_CONTAINS(vr.problem, "time/trace.json.gz");
  ASSERT_CONTAINS(vr.problem, "truncated");
  ASSERT_STR_EQ(vr.status, "failed");
  return 0;
}

/* Under nohup (SIGHUP inherited ignored) a hang-up leaves the run going, as
 * before SIGHUP was handled; a later SIGINT still interrupts it. */
TEST_IMPL(cli_sighup_ignored) {
  char run[1300];
  return interrupt_step("nohup", "test", "sleep", SIGINT, "SIGINT", run,
                        sizeof run, SIGHUP, 0);
}

/* Runs `repro report RUN` and sends it SIGTERM after delay_ms and again
 * 10 ms later (none when negative); returns its wait status. (SIGTERM, not
 * SIGINT: a test run from a background shell inherits SIGINT ignored, which the
 * report keeps ignored.) */
static int report_signalled(const char *run, int delay_ms) {
  int status = -1;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0)
      dup2(devnull, 2);
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "report", run, (char *)NULL);
    _exit(127);
  }
  if (delay_ms >= 0) {
    /* twice, as an impatient user's Ctrl-C: the second must be held too */
    rt_sleep_ms(delay_ms);
    kill(pid, SIGTERM);
    rt_sleep_ms(10);
    kill(pid, SIGTERM);
  }
  return waitpid(pid, &status, 0) == pid ? status : -1;
}

/* `repro report` interrupted at any moment leaves a run that verifies: the
 * signal is held while the documents are written and the manifest
 * re-bound (cut between the two, the run failed verify), then honoured
 * with exit 130. A report over a run with a 48 MiB file (hashed twice:
 * the verify first, the re-binding last) is timed once, then sent SIGTERM
 * at five moments of its second half, where the documents are written and
 * the manifest re-hashed. */
TEST_IMPL(cli_report_interrupt) {
  static const char *const args[] = {"time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=json_clean",
                                    "FAKE_PF_BIG_MB=48", NULL};
  static const double at[] = {0.5, 0.6, 0.7, 0.8, 0.9};
  char run[1300];
  rp_verify_result vr;
  json_t *m;
  double t0, whole;
  size_t k;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("reportint", args, env, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  t0 = plat_monotonic_s();
  ASSERT_EQ(report_signalled(run, -1), 0);
  whole = plat_monotonic_s() - t0;
  for (k = 0; k < sizeof at / sizeof at[0]; k++) {
    const int delay_ms = (int)(at[k] * whole * 1000);
    int status = report_signalled(run, delay_ms);
    ASSERT_TRUE(status != -1);
    /* ended by the signal only if it came before the handlers were set */
    if (WIFEXITED(status))
      ASSERT_TRUE(WEXITSTATUS(status) == 130 || WEXITSTATUS(status) == 0);
    memset(&vr, 0, sizeof vr);
    ASSERT_OK(rp_verify(run, &vr));
    if (!vr.ok)
      fprintf(stderr, "SIGTERM after %d ms of %.0f: %s\n", delay_ms,
              whole * 1000, vr.problem);
    ASSERT_EQ(vr.ok, 1);
  }
  return 0;
}
#endif

TEST_IMPL(cli_doctor) {
  const char *argv[] = {RP_REPRO_EXE, "--root", CM_SOURCE_DIR, "doctor", NULL};
  static const char *const want[] = {
      "[build]",
      "[test]",
      "[sanitize]",
      "[inspect]",
      "[profile]",
      "[time]",
      "[selftest]",
      "tool cmake",
      "tool nvcc",
      "tool compute-sanitizer",
      "tool ncu",
      "device: ",
      "counters: ",
      "gpu idle: ",
      "forbid LD_PRELOAD: ",
      "forbid NSYS_*: ",
      "set CUDA_PORTFOLIO_ALLOC: children get exact",
      "doctor changed "
      "nothing",
      NULL};
  rp_step_spec sp;
  rp_step_result res;
  int i;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 60;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 0);
  for (i = 0; want[i] != NULL; i++)
    ASSERT_CONTAINS(res.out, want[i]);
  rp_step_result_free(&res);
  /* --only and --skip narrow it, and an unknown stage is a usage error */
  {
    const char *only[] = {RP_REPRO_EXE, "--root",   CM_SOURCE_DIR,
                          "doctor",     "--only",   "sanitize,selftest",
                          "--skip",     "selftest", NULL};
    const char *bad[] = {RP_REPRO_EXE, "--root",  CM_SOURCE_DIR, "doctor",
                         "--only",     "santize", NULL};
    sp.argv = only;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    ASSERT_CONTAINS(res.out, "[sanitize]");
    ASSERT_TRUE(strstr(res.out, "[selftest]") == NULL);
    ASSERT_TRUE(strstr(res.out, "[time]") == NULL);
    ASSERT_TRUE(strstr(res.out, "[build]") == NULL);
    rp_step_result_free(&res);
    sp.argv = bad;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "unknown stage 'santize'");
    rp_step_result_free(&res);
    /* a word with a control character is refused as such, by its byte
     * and offset: the ESC and the carriage return in it do not reach the
     * terminal (before 2026-12-07 it was named as an unknown stage, the
     * word repeated as one line of text) */
    bad[5] = "san\x1b[2Jtize\r";
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--only: the value holds a control "
                                  "character (byte 0x1B at offset 3)");
    ASSERT_TRUE(strchr(res.err_tail, '\x1b') == NULL);
    ASSERT_TRUE(strchr(res.err_tail, '\r') == NULL);
    rp_step_result_free(&res);
  }
  return 0;
}

TEST_IMPL(cli_usage_and_unsupported) {
  /* a root with no runs under logs/ (report without RUN reads <root>/logs:
   * the checkout's own would hold the runs made there) */
  char empty[512];
  const char *rep[] = {RP_REPRO_EXE, "--root", empty, "report", NULL};
  const char *bad[] = {RP_REPRO_EXE, "--bogus", "all", NULL};
  const char *help[] = {RP_REPRO_EXE, "--help", NULL};
  rp_step_spec sp;
  rp_step_result res;
  ASSERT_EQ(rt_fresh_dir("noruns", empty, sizeof empty), 0);
  memset(&sp, 0, sizeof sp);
  sp.timeout_s = 30;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  sp.argv = rep;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 2);
  ASSERT_CONTAINS(res.err_tail, "no RUN given");
  rp_step_result_free(&res);
  sp.argv = bad;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 2);
  ASSERT_CONTAINS(res.err_tail, "--bogus");
  rp_step_result_free(&res);
  {
    /* a path with a control character: refused by its byte and offset
     * (repro prints it, and writes it into logs), before anything runs */
    const char *ctl_out[] = {RP_REPRO_EXE,    "--root", CM_SOURCE_DIR, "--out",
                             "logs-x\x1b[2J", "build",  NULL};
    sp.argv = ctl_out;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--out: the value holds a control "
                                  "character (byte 0x1B at offset 6)");
    ASSERT_TRUE(strchr(res.err_tail, '\x1b') == NULL);
    rp_step_result_free(&res);
  }
  {
    /* --root naming a folder that is not the repository (no env/): exit 2
     * before a run folder is made there */
    char dir[512], logs[700];
    const char *not_root[] = {RP_REPRO_EXE, "--root", dir, "build", NULL};
    ASSERT_EQ(rt_fresh_dir("notroot", dir, sizeof dir), 0);
    sp.argv = not_root;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "is not the repository root");
    rp_step_result_free(&res);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    ASSERT_TRUE(!plat_path_exists(logs));
  }
  {
    /* --build-dir naming a file: exit 2 before a run folder is made (every
     * stage failed or skipped on it, saying "configure the build first") */
    char root[600], out[700];
    const char *bd_file[] = {RP_REPRO_EXE, "--root",  root,
                             "--out",      out,       "--build-dir",
                             RP_REPRO_EXE, "inspect", NULL};
    ASSERT_EQ(rt_make_root("bdfile", root, sizeof root), 0);
    snprintf(out, sizeof out, "%s/logs", root);
    sp.argv = bd_file;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "is a file, not a folder; give --build-dir");
    rp_step_result_free(&res);
    ASSERT_TRUE(!plat_path_exists(out));
  }
  {
    /* --out naming a file (repro's own executable): exit 5, and why */
    const char *out_file[] = {RP_REPRO_EXE, "--out", RP_REPRO_EXE, "build",
                              NULL};
    sp.argv = out_file;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 5);
    ASSERT_CONTAINS(res.err_tail, "is a file, not a folder");
    rp_step_result_free(&res);
  }
  sp.argv = help;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 0);
  ASSERT_CONTAINS(res.out, "130  interrupted");
  rp_step_result_free(&res);
  {
    /* --help before report is repro's help, not a report of the newest
     * run (which it wrote before) */
    const char *help_rep[] = {RP_REPRO_EXE, "--help", "report", NULL};
    sp.argv = help_rep;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    ASSERT_CONTAINS(res.out, "130  interrupted");
  }
  ASSERT_CONTAINS(res.out, "sanitize");
  rp_step_result_free(&res);
  {
    /* an option before report or compare other than --root and --out was
     * dropped without a word (--strict compare ran the compare) */
    const char *strict_cmp[] = {RP_REPRO_EXE, "--strict", "compare",
                                "a",          "b",        NULL};
    const char *bogus_rep[] = {RP_REPRO_EXE, "--bogus=1", "report", NULL};
    sp.argv = strict_cmp;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--strict does not apply to compare");
    rp_step_result_free(&res);
    sp.argv = bogus_rep;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--bogus=1 does not apply to report");
    rp_step_result_free(&res);
  }
  {
    /* report's, compare's and verify's messages repeat the words and paths
     * they were given as one line of text, as repro's own refusals do: an
     * ESC or a carriage return in one of them does not reach the terminal */
    const char *cmp_opt[] = {RP_REPRO_EXE, "compare",     "a", "b",
                             "--seed",     "4\x1b[2J2\r", NULL};
    const char *cmp_path[] = {RP_REPRO_EXE, "compare", "no\x1b]0;t\a.json", "b",
                              NULL};
    const char *rep_arg[] = {RP_REPRO_EXE, "report", "r1", "r\x1b[2K2", NULL};
    const char *ver_path[] = {RP_REPRO_EXE, "verify", "no\x1b[2Jrun", NULL};
    const char *const *cases[] = {cmp_opt, cmp_path, rep_arg, ver_path};
    /* (a refusal that prints compare's usage after it would leave the
     * message out of the tail kept) */
    const char *said[] = {
        "bad value '4?[2J2 ' for --seed", "cannot read BASE no?]0;t?.json",
        "unexpected argument 'r?[2K2'", "repro verify: no?[2Jrun: "};
    const int code[] = {2, 2, 2, 4};
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      sp.argv = cases[k];
      ASSERT_OK(rp_step_run(&sp, &res));
      ASSERT_EQ(res.exit_code, code[k]);
      ASSERT_CONTAINS(res.err_tail, said[k]);
      ASSERT_TRUE(strchr(res.err_tail, '\x1b') == NULL);
      ASSERT_TRUE(strchr(res.err_tail, '\r') == NULL);
      ASSERT_TRUE(strchr(res.err_tail, '\a') == NULL);
      rp_step_result_free(&res);
    }
  }
#ifndef _WIN32
  {
    /* compare's text on stdout names BASE and NEW as given: a file whose
     * name holds an ESC (no Windows file name can) is printed as text */
    char dir[512], odd[700];
    const char *cmp[] = {RP_REPRO_EXE, "compare", odd, odd, NULL};
    ASSERT_EQ(rt_fresh_dir("cmp-odd-name", dir, sizeof dir), 0);
    snprintf(odd, sizeof odd, "%s/b2b\x1b[2J.json", dir);
    ASSERT_EQ(rt_copy_file(CM_SOURCE_DIR "/results/h200/history/"
                                         "v2-2026-11-29T1201/bench/b2b-1.json",
                           odd),
              0);
    sp.argv = cmp;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, 0);
    ASSERT_CONTAINS(res.out, "b2b?[2J.json");
    ASSERT_TRUE(strchr(res.out, '\x1b') == NULL);
    rp_step_result_free(&res);
  }
#endif
  return 0;
}

/* repro ARGS (no --root or --out added) in cwd (NULL: here) with env
 * (NULL: inherited), its stdout captured into res. */
static int run_plain(const char *const *args, const char *cwd, char *const *env,
                     rp_step_result *res) {
  rp_step_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.argv = args;
  sp.cwd = cwd;
  sp.env = env;
  sp.timeout_s = 60;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  return rp_step_run(&sp, res);
}

/* `./repro --prebuilt report|compare` (the bash launcher passes the user's
 * --prebuilt and --preset on) and `.\repro.ps1 report|compare` (which adds
 * --preset windows-msvc) were refused, exit 2: only --root and --out were
 * taken before them. The launchers' words pick a build, which report and
 * compare do not use: they are let be; a run option is still refused. */
TEST_IMPL(cli_launcher_words) {
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char run[1300], root[1300];
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("launcher", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  ASSERT_OK(cm_strlcpy(root, run, sizeof root));
  *strrchr(root, '/') = '\0';
  *strrchr(root, '/') = '\0'; /* <root>/logs/<id> -> <root> */
  /* verify first: the reports below are written without re-binding */
  {
    const char *const ver[] = {
        "--preset", "windows-msvc", "--prebuilt", "verify", run, NULL};
    ASSERT_OK(rt_run_repro(root, ver, NULL, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
  }
  {
    const char *const rep[] = {"--prebuilt", "report", "--no-finish", NULL};
    ASSERT_OK(rt_run_repro(root, rep, NULL, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
  }
  {
    const char *const rep[] = {"--preset", "windows-msvc", "report",
                               run,        "--no-finish",  NULL};
    ASSERT_OK(rt_run_repro(root, rep, NULL, &res));
    ASSERT_EQ(res.exit_code, 0);
    rp_step_result_free(&res);
  }
  {
    /* read and compared (the fake's results have no case: refused for
     * that, not for the words before it) */
    const char *const cmp[] = {"--prebuilt",  "--preset=windows-msvc",
                               "--build-dir", "/nonexistent",
                               "compare",     run,
                               run,           NULL};
    ASSERT_OK(rt_run_repro(root, cmp, NULL, &res));
    ASSERT_TRUE(strstr(res.err_tail, "does not apply") == NULL);
    ASSERT_CONTAINS(res.err_tail, "no case in common");
    rp_step_result_free(&res);
  }
  {
    /* a flag given a value, and a run option, are still refused */
    const char *const bad1[] = {"--prebuilt=1", "report", NULL};
    const char *const bad2[] = {"--keep-going", "compare", run, run, NULL};
    ASSERT_OK(rt_run_repro(root, bad1, NULL, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--prebuilt=1 does not apply to report");
    rp_step_result_free(&res);
    ASSERT_OK(rt_run_repro(root, bad2, NULL, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--keep-going does not apply to compare");
    rp_step_result_free(&res);
  }
  return 0;
}

/* `repro verify BUNDLE --strict` and `repro doctor --strict` ran as if the
 * option were not there: verify and doctor now refuse a run option, as
 * report and compare do; the launchers' words and doctor's own stay. */
TEST_IMPL(cli_run_options_refused) {
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char run[1300], root[1300];
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("runopts", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  ASSERT_OK(cm_strlcpy(root, run, sizeof root));
  *strrchr(root, '/') = '\0';
  *strrchr(root, '/') = '\0';
  {
    const char *const a[] = {RP_REPRO_EXE, "verify", run, "--strict", NULL};
    ASSERT_OK(run_plain(a, NULL, NULL, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--strict does not apply to verify");
    rp_step_result_free(&res);
  }
  {
    const char *const a[] = {RP_REPRO_EXE, "--select", "--op x",
                             "verify",     run,        NULL};
    ASSERT_OK(run_plain(a, NULL, NULL, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--select does not apply to verify");
    rp_step_result_free(&res);
  }
  {
    const char *const a[] = {RP_REPRO_EXE, "--root",   root,
                             "doctor",     "--strict", NULL};
    ASSERT_OK(run_plain(a, NULL, NULL, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, "--strict does not apply to doctor");
    ASSERT_CONTAINS(res.err_tail, "--only, --skip");
    rp_step_result_free(&res);
  }
  {
    const char *const a[] = {RP_REPRO_EXE, "--root", root,     "--prebuilt",
                             "--preset",   "linux",  "doctor", "--only",
                             "time",       NULL};
    ASSERT_OK(run_plain(a, NULL, NULL, &res));
    ASSERT_EQ(res.exit_code, 0);
    ASSERT_CONTAINS(res.out, "[time]");
    rp_step_result_free(&res);
  }
  return 0;
}

/* `repro report` with no RUN looked under ./logs of the working folder;
 * it now looks under <root>/logs, the root found as the stages find it
 * (here $REPRO_ROOT, from a folder with no logs/). */
TEST_IMPL(cli_report_root) {
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char run[1300], root[1300], other[512], md[1500], envroot[1400];
  char *const *cur = plat_environ();
  char **env;
  size_t n = 0, k = 0, i;
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("reportroot", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  ASSERT_OK(cm_strlcpy(root, run, sizeof root));
  *strrchr(root, '/') = '\0';
  *strrchr(root, '/') = '\0';
  ASSERT_EQ(rt_fresh_dir("reportroot-cwd", other, sizeof other), 0);
  snprintf(envroot, sizeof envroot, "REPRO_ROOT=%s", root);
  while (cur[n] != NULL)
    n++;
  env = calloc(n + 2, sizeof *env);
  ASSERT_TRUE(env != NULL);
  for (i = 0; i < n; i++)
    if (strncmp(cur[i], "REPRO_ROOT=", 11) != 0)
      env[k++] = cur[i];
  env[k++] = envroot;
  env[k] = NULL;
  {
    const char *const a[] = {RP_REPRO_EXE, "report", "--no-finish", NULL};
    int r = run_plain(a, other, env, &res);
    free(env);
    ASSERT_OK(r);
  }
  ASSERT_EQ(res.exit_code, 0);
  rp_step_result_free(&res);
  snprintf(md, sizeof md, "%s/report.md", run);
  ASSERT_TRUE(plat_path_exists(md));
  ASSERT_EQ(remove(md), 0);
  {
    /* --root says the same, and the message names <root>/logs */
    char logs[1400];
    const char *const a[] = {RP_REPRO_EXE, "--root", other, "report", NULL};
    snprintf(logs, sizeof logs, "%s/logs", other);
    ASSERT_OK(run_plain(a, NULL, NULL, &res));
    ASSERT_EQ(res.exit_code, 2);
    ASSERT_CONTAINS(res.err_tail, logs);
    rp_step_result_free(&res);
  }
  return 0;
}

/* --prebuilt with a --build-dir that holds no cuda_portfolio: the build
 * stage says how to fix it, not only what is missing. */
TEST_IMPL(cli_prebuilt_missing) {
  static const char *const env[] = {"FAKE_PF_MODE=json_clean", NULL};
  char root[600], p[1200], run[1300], none[700];
  const char *args[] = {"--prebuilt", "--build-dir", none, "build", NULL};
  rp_step_result res;
  json_t *m;
  ASSERT_EQ(rt_make_root("prebuiltmiss", root, sizeof root), 0);
  snprintf(p, sizeof p, "%s/env/build.contract", root);
  ASSERT_EQ(rt_write(p, "device none\ntimeout 20\ninstrumented no\n", 0), 0);
  snprintf(none, sizeof none, "%s/no-such-build", root);
  ASSERT_OK(rt_run_repro(root, args, env, &res));
  ASSERT_EQ(res.exit_code, 1);
  rp_step_result_free(&res);
  m = rt_load_manifest(root, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  ASSERT_CONTAINS(rt_str(rt_stage(m, "build"), "reason"),
                  "give --build-dir the carried build folder");
  json_decref(m);
  return 0;
}

/* repro exited 0 when what it printed could not be written (> /dev/full):
 * a verdict or a table that is not there. It says so and exits 5. */
TEST_IMPL(cli_stdout_unwritable) {
#ifdef __linux__
  static const char *const cmds[][4] = {{"--help", NULL, NULL, NULL},
                                        {"compare", "A", "A", "--format=json"},
                                        {"verify", "RUN", NULL, NULL}};
  static const char *const args[] = {"time", NULL};
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  char run[1300], errf[700], dir[512];
  json_t *m;
  size_t c;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  if (!plat_path_exists("/dev/full")) {
    printf("skip: no /dev/full\n");
    return TEST_SKIP;
  }
  m = rt_repro_manifest("stdoutfull", args, clean, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  ASSERT_EQ(rt_fresh_dir("stdoutfull-err", dir, sizeof dir), 0);
  snprintf(errf, sizeof errf, "%s/stderr.txt", dir);
  for (c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
    const char *argv[8];
    char *text;
    int n = 0, k, status = -1;
    pid_t pid;
    argv[n++] = RP_REPRO_EXE;
    for (k = 0; k < 4 && cmds[c][k] != NULL; k++)
      argv[n++] = strcmp(cmds[c][k], "RUN") == 0 ? run
                  : strcmp(cmds[c][k], "A") == 0 ? CM_SOURCE_DIR
                      "/results/h200/history/"
                      "v2-2026-11-29T1201/bench/b2b-1.json"
                                                 : cmds[c][k];
    argv[n] = NULL;
    pid = fork();
    ASSERT_TRUE(pid >= 0);
    if (pid == 0) {
      int out = open("/dev/full", O_WRONLY);
      int err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0)
        _exit(127);
      dup2(out, 1);
      dup2(err, 2);
      execv(RP_REPRO_EXE, (char *const *)argv);
      _exit(127);
    }
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    text = rt_read(errf, NULL);
    ASSERT_TRUE(text != NULL);
    if (WEXITSTATUS(status) != 5)
      fprintf(stderr, "repro %s: exit %d: %s\n", cmds[c][0],
              WEXITSTATUS(status), text);
    ASSERT_EQ(WEXITSTATUS(status), 5);
    ASSERT_CONTAINS(text, "could not write to standard output");
    free(text);
  }
  return 0;
#else
  printf("skip: /dev/full is Linux's\n");
  return TEST_SKIP;
#endif
}

/* `repro report` interrupted while it verifies the run first (before the
 * documents are written) ended by the signal's default, exit 143 or 129
 * with no word. The interrupt is held there too: exit 130, a message, and
 * the run as it was. */
TEST_IMPL(cli_report_interrupt_verify) {
#ifndef _WIN32
  static const char *const args[] = {"time", NULL};
  static const char *const env[] = {"FAKE_PF_MODE=json_clean",
                                    "FAKE_PF_BIG_MB=96", NULL};
  char run[1300], errf[1400], *text;
  rp_verify_result vr;
  json_t *m;
  int status = -1;
  pid_t pid;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  m = rt_repro_manifest("reportverify", args, env, 0, run, sizeof run);
  ASSERT_TRUE(m != NULL);
  json_decref(m);
  snprintf(errf, sizeof errf, "%s.stderr", run);
  pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    int err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0)
      dup2(err, 2);
    execl(RP_REPRO_EXE, RP_REPRO_EXE, "report", run, (char *)NULL);
    _exit(127);
  }
  /* well inside the verify of 96 MiB (hundreds of ms), after start-up */
  rt_sleep_ms(60);
  kill(pid, SIGTERM);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status))
    fprintf(stderr, "ended by signal %d\n", WTERMSIG(status));
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130);
  text = rt_read(errf, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_CONTAINS(text, "interrupted (signal 15)");
  free(text);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_EQ(vr.ok, 1);
  return 0;
#else
  printf("skip: signals are POSIX's here (see cli_report_interrupt)\n");
  return TEST_SKIP;
#endif
}
