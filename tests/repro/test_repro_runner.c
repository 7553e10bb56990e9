/* Tests of the step runner with fake children (helpers of this binary):
 * a hanging process tree ended at its timeout, a crash, megabytes on both
 * streams at once, the contract's environment as the child sees it, and
 * how a step is kept apart from repro's terminal.
 *
 * The same tests run on POSIX and on Windows (cross-built, under Wine in
 * CI): that is the runner's parity proof. The children are started with
 * libuv on both; only how the OS reports a killed or crashed process
 * differs, and the expectations say so where it does. */
#include "cm_test.h"
#include "archive/rp_archive.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_contract.h"
#include "rp_runner.h"
#include "rp_stage.h"
#include "rp_test_util.h"

#include <signal.h>
#include <stdlib.h>
#include <uv.h>
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <unistd.h>
#endif

#define SPEW_MB 3
#define SPEW_CHUNK 4096

/* Exit status of a process ended by plat_kill_tree on Windows (its job is
 * terminated with status 1, as uv_process_kill does), and of abort() in the
 * Windows C runtime. POSIX reports signals instead. */
#define WIN_KILLED_STATUS 1
#define WIN_ABORT_STATUS 3

static int on_windows(void) {
  return plat_os_detect() == PLAT_OS_WINDOWS;
}

static int write_pid(const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fprintf(f, "%ld\n", rt_getpid());
  return fclose(f) == 0 ? 0 : -1;
}

/* argv: PIDFILE. Writes PIDFILE.grand, then sleeps for ever. */
HELPER_IMPL(grand) {
  char p[1024];
  if (argc < 1 || cm_snprintf(p, sizeof p, "%s.grand", argv[0]) != CM_OK)
    return 2;
  if (write_pid(p) != 0)
    return 4;
  printf("grandchild started\n");
  fflush(stdout);
  for (;;)
    rt_sleep_ms(1000);
  return 0;
}

/* From a helper: starts `self --helper NAME ARG` the way a tool starts a
 * program of its own (libuv, flags 0: not detached), sharing the helper's
 * stdout and stderr, on libuv's default loop. */
static int spawn_helper_flags(uv_process_t *kid, const char *name,
                              const char *arg, unsigned flags) {
  const char *args[5];
  uv_process_options_t opt;
  uv_stdio_container_t stdio[3];
  args[0] = cm_test_self_path();
  args[1] = "--helper";
  args[2] = name;
  args[3] = arg;
  args[4] = NULL;
  memset(&opt, 0, sizeof opt);
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_INHERIT_FD;
  stdio[1].data.fd = 1;
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = 2;
  opt.file = args[0];
  opt.args = (char **)args;
  opt.stdio = stdio;
  opt.stdio_count = 3;
  opt.flags = flags;
  return uv_spawn(uv_default_loop(), kid, &opt);
}

static int spawn_helper_child(uv_process_t *kid, const char *name,
                              const char *arg) {
  return spawn_helper_flags(kid, name, arg, 0);
}

/* argv: PIDFILE. Starts a grandchild (the `grand` helper, sharing our
 * stdout and stderr, so that a surviving grandchild would also hold the
 * step's pipes open), writes PIDFILE.child, then sleeps for ever. The
 * grandchild is started with libuv, not fork, so this helper is the same
 * on POSIX and Windows; it is not detached, so it stays in our process
 * group (POSIX) or job object (Windows). */
HELPER_IMPL(hang) {
  char p[1024];
  static uv_process_t kid;
  if (argc < 1 || cm_snprintf(p, sizeof p, "%s.child", argv[0]) != CM_OK)
    return 2;
  if (spawn_helper_child(&kid, "grand", argv[0]) != 0)
    return 3;
  if (write_pid(p) != 0)
    return 4;
  printf("child started\n");
  fflush(stdout);
  for (;;)
    rt_sleep_ms(1000);
  return 0;
}

/* argv: MS. Sleeps MS milliseconds, then exits 0. */
HELPER_IMPL(linger) {
  if (argc < 1)
    return 2;
  rt_sleep_ms(atoi(argv[0]));
  return 0;
}

/* Starts `linger 2500` detached (POSIX: a session of its own, out of the
 * step's group, so the runner's tree kill misses it) sharing our stdout and
 * stderr, then exits 0 after 200 ms: the step's pipes stay open after its
 * exit, until the runner's drain gives up on them. */
HELPER_IMPL(leave) {
  static uv_process_t kid;
  if (spawn_helper_flags(&kid, "linger", "2500", UV_PROCESS_DETACHED) != 0)
    return 3;
  uv_unref((uv_handle_t *)&kid);
  printf("left a descendant\n");
  fflush(stdout);
  rt_sleep_ms(200);
  return 0;
}

/* argv: MS. Sleeps MS milliseconds, prints "late line", exits 0. */
HELPER_IMPL(late) {
  if (argc < 1)
    return 2;
  rt_sleep_ms(atoi(argv[0]));
  printf("late line\n");
  fflush(stdout);
  return 0;
}

/* As leave, but the detached descendant prints 7 s later, after the
 * runner's 5 s drain has given up on the pipes. */
HELPER_IMPL(leave_late) {
  static uv_process_t kid;
  if (spawn_helper_flags(&kid, "late", "7000", UV_PROCESS_DETACHED) != 0)
    return 3;
  uv_unref((uv_handle_t *)&kid);
  printf("left a descendant\n");
  fflush(stdout);
  rt_sleep_ms(200);
  return 0;
}

/* Ignores SIGTERM, interrupts its parent (the runner) with SIGINT after
 * 200 ms, then sleeps for ever: only the grace's SIGKILL ends it. POSIX
 * only (its test skips on Windows). */
HELPER_IMPL(deaf) {
#ifdef _WIN32
  return 2;
#else
  signal(SIGTERM, SIG_IGN);
  rt_sleep_ms(200);
  kill(getppid(), SIGINT);
  for (;;)
    rt_sleep_ms(1000);
  return 0;
#endif
}

HELPER_IMPL(crash) {
  printf("about to crash\n");
  fflush(stdout);
  abort();
  return 0;
}

/* SPEW_MB MiB of 'o' on stdout and of 'e' on stderr, interleaved chunk by
 * chunk, so that a runner reading one pipe at a time would deadlock. */
HELPER_IMPL(spew) {
  static char o[SPEW_CHUNK], e[SPEW_CHUNK];
  int i, n = SPEW_MB * 1024 * 1024 / SPEW_CHUNK;
  memset(o, 'o', sizeof o);
  memset(e, 'e', sizeof e);
  for (i = 0; i < n; i++) {
    if (fwrite(o, 1, sizeof o, stdout) != sizeof o ||
        fwrite(e, 1, sizeof e, stderr) != sizeof e)
      return 3;
  }
  fflush(stdout);
  fflush(stderr);
  return 7; /* a distinctive exit code */
}

/* Prints NAME=value or NAME=<absent> for every name in argv. */
HELPER_IMPL(printenv) {
  int i;
  for (i = 0; i < argc; i++) {
    const char *v = getenv(argv[i]);
    printf("%s=%s\n", argv[i], v != NULL ? v : "<absent>");
  }
  return 0;
}

/* The step's side of runner_isolation. POSIX: prints leader=1 when it
 * leads its own session and process group. Windows: prints console=1 when
 * it has a console (CONOUT$ opens), and names that console by its title.
 * Then starts isolation_grand the way a tool starts a compiler (libuv, no
 * flags, stdout shared) and waits for it. */
HELPER_IMPL(isolation) {
  char tag[64];
  static uv_process_t kid;
  (void)argc;
  (void)argv;
#ifdef _WIN32
  {
    wchar_t title[64];
    HANDLE con = CreateFileW(L"CONOUT$", GENERIC_READ | GENERIC_WRITE,
                             FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                             OPEN_EXISTING, 0, NULL);
    printf("console=%d\n", con != INVALID_HANDLE_VALUE);
    if (con != INVALID_HANDLE_VALUE)
      CloseHandle(con);
    cm_snprintf(tag, sizeof tag, "cp-step-%lu",
                (unsigned long)GetCurrentProcessId());
    _snwprintf(title, 64, L"cp-step-%lu", (unsigned long)GetCurrentProcessId());
    title[63] = L'\0';
    SetConsoleTitleW(title); /* fails, harmlessly, without a console */
  }
#else
  printf("leader=%d\n", getsid(0) == getpid() && getpgrp() == getpid());
  cm_snprintf(tag, sizeof tag, "%ld", (long)getpid());
#endif
  fflush(stdout);
  if (spawn_helper_child(&kid, "isolation_grand", tag) != 0)
    return 3;
  uv_run(uv_default_loop(), UV_RUN_DEFAULT); /* until it has exited */
  return 0;
}

/* argv: TAG. Prints shared=1 when it is where the step is: POSIX, in the
 * step's session (TAG is the step's pid, its session id); Windows, on the
 * step's console (TAG is that console's title). */
HELPER_IMPL(isolation_grand) {
  int shared = 0;
  if (argc < 1)
    return 2;
#ifdef _WIN32
  {
    wchar_t title[64];
    char got[64];
    DWORD n = GetConsoleTitleW(title, 64);
    shared = n > 0 && n < 64 &&
             WideCharToMultiByte(CP_UTF8, 0, title, -1, got, sizeof got, NULL,
                                 NULL) > 0 &&
             strcmp(got, argv[0]) == 0;
  }
#else
  shared = (long)getsid(0) == strtol(argv[0], NULL, 10);
#endif
  printf("shared=%d\n", shared);
  return 0;
}

static long read_pid(const char *path) {
  char *t = rt_read(path, NULL);
  long pid = t != NULL ? strtol(t, NULL, 10) : -1;
  free(t);
  return pid;
}

static int gone_within(long pid, double seconds) {
  double t0 = plat_monotonic_s();
  while (plat_monotonic_s() - t0 < seconds) {
    if (!plat_pid_alive((int)pid))
      return 1;
    rt_sleep_ms(20);
  }
  return 0;
}

TEST_IMPL(runner_hang_tree) {
  char dir[512], pidfile[600], cp[700], gp[700];
  const char *argv[5];
  rp_step_spec sp;
  rp_step_result res;
  long child, grand;
  uint64_t n, n_o;
  char logp[1200];
  ASSERT_EQ(rt_fresh_dir("hang", dir, sizeof dir), 0);
  snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
  argv[0] = cm_test_self_path();
  argv[1] = "--helper";
  argv[2] = "hang";
  argv[3] = pidfile;
  argv[4] = NULL;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 1.0;
  sp.grace_s = 0.5;
  sp.run_dir = dir;
  sp.log_base = "stage/hang";
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.spawned, 1);
  ASSERT_EQ(res.timed_out, 1);
  if (on_windows()) {
    ASSERT_EQ(res.term_signal, 0);
    ASSERT_EQ(res.exit_code, WIN_KILLED_STATUS);
  } else {
    ASSERT_EQ(res.term_signal, SIGTERM);
    ASSERT_EQ(res.exit_code, -1);
  }
  /* Under 5 s: the grandchild holds the pipes too, so a tree kill that
   * missed it would leave the step waiting for the runner's drain timer. */
  ASSERT_TRUE(res.duration_s >= 0.9 && res.duration_s < 5.0);
  snprintf(cp, sizeof cp, "%s.child", pidfile);
  snprintf(gp, sizeof gp, "%s.grand", pidfile);
  child = read_pid(cp);
  grand = read_pid(gp);
  ASSERT_GT(child, 0);
  ASSERT_GT(grand, 0);
  ASSERT_NE(child, grand);
  ASSERT_TRUE(gone_within(child, 3.0));
  ASSERT_TRUE(gone_within(grand, 3.0));
  /* What it printed before the timeout is in the log. */
  snprintf(logp, sizeof logp, "%s/%s", dir, res.out_log);
  ASSERT_EQ(rt_gunzip_count(logp, &n, &n_o, 's'), 0);
  ASSERT_EQ(n, res.out_bytes);
  ASSERT_GT(n, 0);
  rp_step_result_free(&res);
  return 0;
}

/* A step that exits 0 before its timeout is not "timed out" when the
 * timeout falls while the runner still drains the pipes that a descendant
 * out of the step's group holds open. Before, the timer ran on after the
 * exit and the step was recorded timed out (its stage failed). */
TEST_IMPL(runner_exit_in_drain) {
  const char *argv[] = {cm_test_self_path(), "--helper", "leave", NULL};
  rp_step_spec sp;
  rp_step_result res;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 1.0;
  sp.grace_s = 0.5;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.spawned, 1);
  ASSERT_EQ(res.exit_code, 0);
  ASSERT_EQ(res.term_signal, 0);
  ASSERT_EQ(res.timed_out, 0);
  ASSERT_CONTAINS(res.out, "left a descendant");
  rp_step_result_free(&res);
  return 0;
}

/* A descendant that left the group prints after the drain: the step's
 * record says its output was cut. Before, the line was lost without a
 * word. On Windows the step's job object ends what the step left behind
 * when the step ends (docs/WINDOWS.md, "Process trees"), so no descendant
 * outlives the drain there: the output is whole, and not cut. */
TEST_IMPL(runner_output_cut) {
  const char *argv[] = {cm_test_self_path(), "--helper", "leave_late", NULL};
  rp_step_spec sp;
  rp_step_result res;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 0);
  ASSERT_CONTAINS(res.out, "left a descendant");
  ASSERT_TRUE(strstr(res.out, "late line") == NULL);
#ifdef _WIN32
  ASSERT_EQ(res.output_cut, 0);
#else
  ASSERT_EQ(res.output_cut, 1);
#endif
  rp_step_result_free(&res);
  /* a descendant that ends within the drain cuts nothing */
  argv[2] = "leave";
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.output_cut, 0);
  rp_step_result_free(&res);
  return 0;
}

#ifdef _WIN32
TEST_IMPL(runner_interrupt_not_timeout) {
  printf("skip: a child cannot ignore SIGTERM or interrupt its parent here "
         "(POSIX-only test)\n");
  return TEST_SKIP;
}
#else
/* An interrupted step whose timeout falls inside the grace before SIGKILL
 * (a child that ignores SIGTERM) was interrupted, not timed out. Before,
 * the timer also marked it timed out. */
TEST_IMPL(runner_interrupt_not_timeout) {
  const char *argv[] = {cm_test_self_path(), "--helper", "deaf", NULL};
  rp_step_spec sp;
  rp_step_result res;
  ASSERT_OK(rp_runner_init());
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 1.0;
  sp.grace_s = 2.0;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.interrupted, 1);
  ASSERT_EQ(res.timed_out, 0);
  ASSERT_EQ(res.term_signal, SIGKILL);
  ASSERT_TRUE(res.duration_s >= 2.0 && res.duration_s < 10.0);
  ASSERT_EQ(rp_runner_interrupted(), SIGINT);
  rp_step_result_free(&res);
  rp_runner_shutdown();
  return 0;
}
#endif

TEST_IMPL(runner_crash) {
  const char *argv[] = {cm_test_self_path(), "--helper", "crash", NULL};
  rp_step_spec sp;
  rp_step_result res;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 20;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  if (on_windows()) {
    /* The Windows C runtime's abort() ends the process with status 3. */
    ASSERT_EQ(res.term_signal, 0);
    ASSERT_EQ(res.exit_code, WIN_ABORT_STATUS);
  } else {
    ASSERT_EQ(res.term_signal, SIGABRT);
    ASSERT_EQ(res.exit_code, -1);
  }
  ASSERT_EQ(res.timed_out, 0);
  ASSERT_CONTAINS(res.out, "about to crash");
  rp_step_result_free(&res);
  return 0;
}

TEST_IMPL(runner_megabytes) {
  const char *argv[] = {cm_test_self_path(), "--helper", "spew", NULL};
  char dir[512], p[1200];
  rp_step_spec sp;
  rp_step_result res;
  uint64_t n, n_match, want = (uint64_t)SPEW_MB << 20;
  ASSERT_EQ(rt_fresh_dir("spew", dir, sizeof dir), 0);
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 60;
  sp.run_dir = dir;
  sp.log_base = "s/spew";
  sp.capture_stdout = 1;
  sp.capture_limit = 1000; /* capture is capped; logs are not */
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 7);
  ASSERT_EQ(res.out_bytes, want);
  ASSERT_EQ(res.err_bytes, want);
  ASSERT_EQ(res.out_len, 1000);
  {
    /* what a stage writes from the output is all of it, from the log
     * where the capture stopped (rp_step_stdout) */
    static rp_ctx ctx;
    char *owned = NULL;
    size_t len = 0, i, bad = 0;
    const char *o;
    snprintf(ctx.run_dir, sizeof ctx.run_dir, "%s", dir);
    o = rp_step_stdout(&ctx, &res, &len, &owned);
    ASSERT_TRUE(o != NULL && owned != NULL);
    ASSERT_EQ((uint64_t)len, want);
    for (i = 0; i < len; i++)
      bad += o[i] != 'o';
    ASSERT_EQ(bad, 0);
    free(owned);
  }
  snprintf(p, sizeof p, "%s/%s", dir, res.out_log);
  ASSERT_EQ(rt_gunzip_count(p, &n, &n_match, 'o'), 0);
  ASSERT_EQ(n, want);
  ASSERT_EQ(n_match, want);
  snprintf(p, sizeof p, "%s/%s", dir, res.err_log);
  ASSERT_EQ(rt_gunzip_count(p, &n, &n_match, 'e'), 0);
  ASSERT_EQ(n, want);
  ASSERT_EQ(n_match, want);
  rp_step_result_free(&res);
  return 0;
}

/* The contract's variables arrive; unset and forbidden ones do not. */
TEST_IMPL(runner_env) {
  const char *argv[] = {
      cm_test_self_path(), "--helper", "printenv", "CUDA_PORTFOLIO_ALLOC",
      "NSYS_TEST_MARKER",  "DROP_ME",  "KEEP_ME",  NULL};
  rp_contract c;
  rp_step_spec sp;
  rp_step_result res;
  char err[256], **env = NULL;
  ASSERT_OK(rp_contract_parse("set CUDA_PORTFOLIO_ALLOC=exact\n"
                              "forbid NSYS_*\nunset DROP_*\n"
                              "device none\ntimeout 5\ninstrumented no\n",
                              "env", &c, err, sizeof err));
  ASSERT_EQ(rt_setenv("NSYS_TEST_MARKER", "1"), 0);
  ASSERT_EQ(rt_setenv("DROP_ME", "1"), 0);
  ASSERT_EQ(rt_setenv("KEEP_ME", "yes"), 0);
  ASSERT_EQ(rt_setenv("CUDA_PORTFOLIO_ALLOC", "pooled"), 0);
  ASSERT_OK(rp_contract_child_env(&c, plat_environ(), NULL, &env));
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.env = env;
  sp.timeout_s = 20;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  rp_env_free(env);
  ASSERT_EQ(res.exit_code, 0);
  ASSERT_CONTAINS(res.out, "CUDA_PORTFOLIO_ALLOC=exact\n");
  ASSERT_CONTAINS(res.out, "NSYS_TEST_MARKER=<absent>\n");
  ASSERT_CONTAINS(res.out, "DROP_ME=<absent>\n");
  ASSERT_CONTAINS(res.out, "KEEP_ME=yes\n");
  rp_step_result_free(&res);
  return 0;
}

/* A step is kept apart from repro's terminal, and what it starts stays with
 * it: POSIX, the step leads its own session and its child is in it (the
 * group kill reaches it); Windows, the step has a console of its own (no
 * window) and its child shares it rather than opening one (with a window)
 * of its own. */
TEST_IMPL(runner_isolation) {
  const char *argv[] = {cm_test_self_path(), "--helper", "isolation", NULL};
  rp_step_spec sp;
  rp_step_result res;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 30;
  sp.capture_stdout = 1;
  sp.quiet = 1;
  ASSERT_OK(rp_step_run(&sp, &res));
  ASSERT_EQ(res.exit_code, 0);
  ASSERT_CONTAINS(res.out, on_windows() ? "console=1\n" : "leader=1\n");
  ASSERT_CONTAINS(res.out, "shared=1\n");
  rp_step_result_free(&res);
  return 0;
}

TEST_IMPL(runner_not_found) {
  const char *argv[] = {"/nonexistent/definitely-not-a-program", NULL};
  rp_step_spec sp;
  rp_step_result res;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.quiet = 1;
  ASSERT_EQ(rp_step_run(&sp, &res), CM_ENOENT);
  ASSERT_EQ(res.spawned, 0);
  ASSERT_CONTAINS(res.error, "cannot start");
  rp_step_result_free(&res);
  return 0;
}

/* A step's stderr log that cannot be opened is the one the error names
 * (it named the stdout log, which had opened). */
TEST_IMPL(runner_log_open_names_log) {
  const char *argv[] = {cm_test_self_path(), "--helper", "spew", NULL};
  char dir[512], p[1200];
  rp_step_spec sp;
  rp_step_result res;
  ASSERT_EQ(rt_fresh_dir("logname", dir, sizeof dir), 0);
  snprintf(p, sizeof p, "%s/s/x.stderr.log.gz", dir);
  ASSERT_OK(plat_mkdir_p(p)); /* a folder where the log goes */
  memset(&sp, 0, sizeof sp);
  memset(&res, 0, sizeof res);
  sp.argv = argv;
  sp.timeout_s = 60;
  sp.run_dir = dir;
  sp.log_base = "s/x";
  sp.quiet = 1;
  ASSERT_TRUE(rp_step_run(&sp, &res) != CM_OK);
  ASSERT_CONTAINS(res.error, "x.stderr.log.gz");
  ASSERT_TRUE(strstr(res.error, "stdout") == NULL);
  rp_step_result_free(&res);
  return 0;
}

/* Run by ctest: rt_fresh_dir makes an empty folder. Run by
 * fresh_dir_cleanup with RT_PROBE_OUT=FILE: makes one holding a read-only
 * file in an unwritable folder, writes its path to FILE and returns
 * RT_PROBE_RC. */
TEST_IMPL(fresh_dir_probe) {
  char dir[1024], sub[1100], f[1200];
  const char *out = getenv("RT_PROBE_OUT"), *rc = getenv("RT_PROBE_RC");
  uv_fs_t req;
  ASSERT_EQ(rt_fresh_dir("probe", dir, sizeof dir), 0);
  ASSERT_EQ(uv_fs_scandir(NULL, &req, dir, 0, NULL), 0);
  uv_fs_req_cleanup(&req);
  if (out == NULL)
    return 0;
  snprintf(sub, sizeof sub, "%s/ro", dir);
  snprintf(f, sizeof f, "%s/f", sub);
  ASSERT_EQ(uv_fs_mkdir(NULL, &req, sub, 0777, NULL), 0);
  uv_fs_req_cleanup(&req);
  ASSERT_EQ(rt_write(f, "kept?", 0), 0);
  ASSERT_EQ(uv_fs_chmod(NULL, &req, f, 0444, NULL), 0);
  uv_fs_req_cleanup(&req);
  ASSERT_EQ(uv_fs_chmod(NULL, &req, sub, 0555, NULL), 0);
  uv_fs_req_cleanup(&req);
  ASSERT_EQ(rt_write(out, dir, 0), 0);
  return rc != NULL ? atoi(rc) : 0;
}

/* The suite's scratch folder does not grow with every run: the folders a
 * test made with rt_fresh_dir go once it passes or is skipped (77), a read-
 * only file in an unwritable folder among them, and stay when it fails. */
TEST_IMPL(fresh_dir_cleanup) {
  static const char *const rcs[] = {"0", "77", "1"};
  char dir[1024], out[1100];
  int i;
  ASSERT_EQ(rt_fresh_dir("cleanup", dir, sizeof dir), 0);
  snprintf(out, sizeof out, "%s/probe-path", dir);
  ASSERT_EQ(rt_setenv("RT_PROBE_OUT", out), 0);
  for (i = 0; i < 3; i++) {
    const char *argv[] = {cm_test_self_path(), "fresh_dir_probe", NULL};
    rp_step_spec sp;
    rp_step_result res;
    uv_fs_t req;
    char *made;
    int r;
    ASSERT_EQ(rt_setenv("RT_PROBE_RC", rcs[i]), 0);
    memset(&sp, 0, sizeof sp);
    sp.argv = argv;
    sp.timeout_s = 20.0;
    sp.quiet = 1;
    ASSERT_OK(rp_step_run(&sp, &res));
    ASSERT_EQ(res.exit_code, atoi(rcs[i]));
    rp_step_result_free(&res);
    made = rt_read(out, NULL);
    ASSERT_TRUE(made != NULL);
    r = uv_fs_lstat(NULL, &req, made, NULL);
    uv_fs_req_cleanup(&req);
    if (i < 2) {
      ASSERT_EQ(r, UV_ENOENT);
    } else {
      ASSERT_EQ(r, 0);
      r = rt_remove_tree(made);
      ASSERT_EQ(r, 0);
    }
    free(made);
  }
  return 0;
}
