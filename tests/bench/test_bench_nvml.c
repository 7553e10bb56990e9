/* --lock-clocks at the NVML layer (pf_nvml_lock_clocks), against a fake
 * libnvidia-ml (fake_nvml.c) that logs the calls that would change clocks:
 * the lock and its reset, refusals with messages that name the fix, a
 * partial lock undone, and the reset on SIGINT/SIGTERM, also when the signal
 * comes during an NVML call. POSIX only (the fake is a .so found through
 * LD_LIBRARY_PATH); never run against the driver's NVML: each test first
 * checks that the fake is the library loaded, and skips otherwise. */
#define _POSIX_C_SOURCE 200809L
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "pf_nvml.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PCI "00000000:00:00.0"

static char logpath[1024];

/* 0 when the fake NVML is the one a dlopen finds, with a fresh log and no
 * failure injected; 77 (ctest's skip) otherwise. */
static int setup(void) {
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  int fake = h != NULL && dlsym(h, "cp_fake_nvml") != NULL;
  if (h != NULL)
    dlclose(h);
  if (!fake) {
    fprintf(stderr, "the fake NVML is not first on LD_LIBRARY_PATH: not "
                    "touching a real GPU's clocks\n");
    return 77;
  }
  cm_snprintf(logpath, sizeof logpath, "%s/nvml-%d.log", cm_test_tmpdir(),
              (int)getpid());
  remove(logpath);
  setenv("FAKE_NVML_LOG", logpath, 1);
  unsetenv("FAKE_NVML_SET_GPU_RC");
  unsetenv("FAKE_NVML_SET_MEM_RC");
  unsetenv("FAKE_NVML_RAISE_IN_CLOCK");
  unsetenv("FAKE_NVML_VIOL_POWER_NS");
  unsetenv("FAKE_NVML_VIOL_THERMAL_NS");
  unsetenv("FAKE_NVML_VIOL_RC");
  unsetenv("FAKE_NVML_VIOL_BACK");
  return 0;
}

/* The log so far ("" when nothing was logged). */
static const char *log_text(void) {
  static char buf[4096];
  FILE *f = fopen(logpath, "r");
  size_t n = 0;
  if (f != NULL) {
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
  }
  buf[n] = '\0';
  return buf;
}

#define SETUP()                                                                \
  do {                                                                         \
    int s_ = setup();                                                          \
    if (s_)                                                                    \
      return s_;                                                               \
  } while (0)

TEST_IMPL(nvml_lock_reset) {
  pf_nvml *n;
  char err[512];
  SETUP();
  n = pf_nvml_open(PCI);
  ASSERT_TRUE(pf_nvml_absent_reason(n) == NULL);
  ASSERT_OK(pf_nvml_lock_clocks(n, 1755, 2619, err, sizeof err));
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755\nset_mem 2619 2619\n");
  /* One lock at a time. */
  ASSERT_EQ(pf_nvml_lock_clocks(n, 1500, 0, err, sizeof err), CM_EINVAL);
  ASSERT_OK(pf_nvml_unlock_clocks(n));
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755\nset_mem 2619 2619\n"
                            "reset_mem\nreset_gpu\n");
  ASSERT_OK(pf_nvml_unlock_clocks(n)); /* nothing locked: nothing reset */
  ASSERT_OK(pf_nvml_lock_clocks(n, 1755, 0, err, sizeof err));
  pf_nvml_close(n); /* closing resets what is locked, before shutdown */
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755\nset_mem 2619 2619\n"
                            "reset_mem\nreset_gpu\n"
                            "set_gpu 1755 1755\nreset_gpu\nshutdown\n");
  return 0;
}

TEST_IMPL(nvml_lock_refused) {
  pf_nvml *n;
  char err[512];
  SETUP();
  n = pf_nvml_open(PCI);
  setenv("FAKE_NVML_SET_GPU_RC", "4", 1); /* NO_PERMISSION */
  ASSERT_EQ(pf_nvml_lock_clocks(n, 1755, 0, err, sizeof err), CM_EACCES);
  ASSERT_CONTAINS(err, "needs root");
  ASSERT_CONTAINS(err, "Insufficient Permissions");
  setenv("FAKE_NVML_SET_GPU_RC", "2", 1); /* INVALID_ARGUMENT */
  ASSERT_EQ(pf_nvml_lock_clocks(n, 99999, 0, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "99999 MHz");
  ASSERT_CONTAINS(err, "SUPPORTED_CLOCKS");
  setenv("FAKE_NVML_SET_GPU_RC", "3", 1); /* NOT_SUPPORTED */
  ASSERT_EQ(pf_nvml_lock_clocks(n, 1755, 0, err, sizeof err), CM_ENOTSUP);
  ASSERT_CONTAINS(err, "cannot lock its SM clocks");
  /* Nothing was locked, so nothing is reset. */
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755 refused\n"
                            "set_gpu 99999 99999 refused\n"
                            "set_gpu 1755 1755 refused\n");
  pf_nvml_close(n);
  /* NVML absent: said so. */
  ASSERT_EQ(pf_nvml_lock_clocks(NULL, 1755, 0, err, sizeof err), CM_ENOTSUP);
  ASSERT_CONTAINS(err, "needs NVML");
  return 0;
}

/* SM locked, memory refused: the SM lock is undone before the error. */
TEST_IMPL(nvml_lock_partial) {
  pf_nvml *n;
  char err[512];
  SETUP();
  n = pf_nvml_open(PCI);
  setenv("FAKE_NVML_SET_MEM_RC", "3", 1);
  ASSERT_EQ(pf_nvml_lock_clocks(n, 1755, 2619, err, sizeof err), CM_ENOTSUP);
  ASSERT_CONTAINS(err, "memory clocks");
  ASSERT_CONTAINS(err, "SM clock alone");
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755\n"
                            "set_mem 2619 2619 refused\nreset_gpu\n");
  pf_nvml_close(n);
  return 0;
}

/* A child that locks, then (how) is signalled; its exit status. */
static int locked_child(int sig, int during_nvml) {
  pid_t pid = fork();
  int st = 0;
  if (pid == 0) {
    char err[512];
    pf_nvml_snapshot s;
    pf_nvml *n = pf_nvml_open(PCI);
    if (pf_nvml_lock_clocks(n, 1755, 2619, err, sizeof err) != CM_OK)
      _exit(90);
    if (during_nvml) {
      char v[16];
      cm_snprintf(v, sizeof v, "%d", sig);
      setenv("FAKE_NVML_RAISE_IN_CLOCK", v, 1);
      pf_nvml_read(n, &s);
    } else {
      raise(sig);
    }
    _exit(91); /* the signal should have ended it */
  }
  if (pid < 0 || waitpid(pid, &st, 0) != pid)
    return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

TEST_IMPL(nvml_lock_signal) {
  SETUP();
  ASSERT_EQ(locked_child(SIGTERM, 0), 128 + SIGTERM);
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755\nset_mem 2619 2619\n"
                            "reset_mem\nreset_gpu\n");
  remove(logpath);
  ASSERT_EQ(locked_child(SIGINT, 0), 128 + SIGINT);
  ASSERT_STR_EQ(log_text(), "set_gpu 1755 1755\nset_mem 2619 2619\n"
                            "reset_mem\nreset_gpu\n");
  return 0;
}

/* The signal comes while the process is inside NVML: the call finishes,
 * then the clocks are reset and the process ends. */
TEST_IMPL(nvml_lock_signal_in_call) {
  const char *t, *ret, *reset;
  SETUP();
  ASSERT_EQ(locked_child(SIGTERM, 1), 128 + SIGTERM);
  t = log_text();
  ret = strstr(t, "clock query returns\n");
  reset = strstr(t, "reset_mem\nreset_gpu\n");
  ASSERT_TRUE(ret != NULL);
  ASSERT_TRUE(reset != NULL);
  ASSERT_TRUE(ret < reset);
  ASSERT_STR_EQ(reset, "reset_mem\nreset_gpu\n"); /* the last lines */
  return 0;
}

/* The violation counters: read into the snapshot, and their growth between
 * two readings is what the harness counts as throttling (pf_timing.c); a
 * counter that cannot be read, or went back, says "unknown", never 0. */
TEST_IMPL(nvml_violation_counters) {
  pf_nvml *n;
  pf_nvml_snapshot a, b;
  double pw = -1, th = -1;
  SETUP();
  n = pf_nvml_open(PCI);
  ASSERT_TRUE(pf_nvml_absent_reason(n) == NULL);
  /* no growth: counted, and zero */
  pf_nvml_read(n, &a);
  pf_nvml_read(n, &b);
  ASSERT_TRUE(a.viol_ok && b.viol_ok);
  ASSERT_EQ(pf_nvml_violation_us(&a, &b, &pw, &th), 1);
  ASSERT_TRUE(pw == 0 && th == 0);
  /* 2.5 ms of power capping and 1 us of thermal between two readings */
  setenv("FAKE_NVML_VIOL_POWER_NS", "2500000", 1);
  setenv("FAKE_NVML_VIOL_THERMAL_NS", "1000", 1);
  pf_nvml_read(n, &a);
  pf_nvml_read(n, &b);
  ASSERT_EQ(b.viol_power_ns - a.viol_power_ns, 2500000ULL);
  ASSERT_EQ(pf_nvml_violation_us(&a, &b, &pw, &th), 1);
  ASSERT_TRUE(pw == 2500.0 && th == 1.0);
  /* a counter that went back (driver reloaded): unknown */
  ASSERT_EQ(pf_nvml_violation_us(&b, &a, &pw, &th), 0);
  ASSERT_TRUE(pw == 0 && th == 0);
  setenv("FAKE_NVML_VIOL_BACK", "1", 1);
  pf_nvml_read(n, &a);
  pf_nvml_read(n, &b);
  ASSERT_EQ(pf_nvml_violation_us(&a, &b, &pw, &th), 0);
  unsetenv("FAKE_NVML_VIOL_BACK");
  /* unreadable (NOT_SUPPORTED): the snapshot says so, and so does the
   * difference; the other readings are unaffected */
  setenv("FAKE_NVML_VIOL_RC", "3", 1);
  pf_nvml_read(n, &b);
  ASSERT_EQ(b.viol_ok, 0);
  ASSERT_TRUE(b.sm_clock_ok);
  ASSERT_EQ(pf_nvml_violation_us(&a, &b, &pw, &th), 0);
  pf_nvml_close(n);
  return 0;
}
