/* rt_fake_portfolio: a stand-in for cuda_portfolio in the repro CLI tests.
 *
 * test_repro_cli copies this executable into a fake repository's
 * build/<preset>/bin as cuda_portfolio (cuda_portfolio.exe on Windows), so
 * the real repro runs it exactly as it would run the real binary, on POSIX
 * and on Windows alike. It prints a clean banner, then acts by FAKE_PF_MODE:
 *   nodev       exit 77, as the real binary does without a CUDA device
 *   sleep       write its pid to FAKE_PF_PIDFILE and hang
 *   sleep_deaf  the same with SIGINT, SIGTERM, SIGHUP and SIGQUIT ignored
 *               (POSIX): a step that outlives repro's SIGTERM until the
 *               grace's SIGKILL, so that a second signal comes mid-shutdown
 *   json_clean  write an uninstrumented results JSON to the --json path
 *   json_instr  write an instrumented one
 *   json_malformed  write RT_MALFORMED_JSON (not a JSON document) to the
 *               --json path and exit 0
 *   json_partial  write the first bytes of a results document to the --json
 *               path and to <path>.tmp (where the real binary writes before
 *               its rename), then its pid to FAKE_PF_PIDFILE, and hang: a
 *               binary interrupted mid-write
 *   fail_utf8   write a line of 700 "é" and "xy" to stderr, exit 1 (a
 *               failed verification whose message is cut mid-character)
 * (both with the arguments it was given, as "fake_argv")
 * With FAKE_PF_BIG_MB=N the json modes also write N MiB of bytes gzip
 * cannot shrink into <run>/fake-big.bin (the run folder is the --json
 * path's folder's parent's parent), so that archiving the run takes
 * seconds: long enough to interrupt repro while it writes the archive.
 * FAKE_PF_BIG_KB=N does the same with N KiB (a run just over a file size
 * limit).
 * With FAKE_PF_SPECIAL=1 (POSIX) they also leave in <run>/time/ what a
 * tool might: a dangling link latest-report -> /nonexistent/target, a link
 * up -> .., a link json -> ../results/clean/time.json and a FIFO named
 * fifo.
 * FAKE_PF_ODD=backslash makes them leave <run>/time/C:\tmp\trace.txt (a
 * name with backslashes, POSIX only); FAKE_PF_ODD=badgz a truncated
 * <run>/time/trace.json.gz (a gzip header and nothing after it).
 * With FAKE_PF_BUNDLE_DIR=1 they also make a folder where the run's bundle
 * goes (<run>.tar.gz), so that repro cannot write the bundle.
 * The word --verify-control (the test stage's first step) prints the banner
 * and exits 77 in mode nodev, 1 with a message when FAKE_PF_VCTRL=missed
 * (a control not caught), 0 with no output at all (no banner) when
 * FAKE_PF_VCTRL=nobanner, and 0 with the real binary's summary line in
 * every other mode (sleep and fail_utf8 included: those act on the
 * --test-only step that follows).
 * With FAKE_PF_BANNER=instr the banner says instrumented=true (markers
 * LD_PRELOAD) whatever the mode, and the results file still says
 * instrumented: false in json_clean: a binary whose two records disagree.
 * Any other mode, or none, exits 2. Before any mode, as the real binary
 * parses its words first: the word --fake-refuse exits 2 with an unknown
 * option's message, and --check-args as the first word prints one line
 * and exits 0 (anywhere else, exit 2: repro must put it first), but 2 for
 * --shape with --smoke, as the real binary. */
#include "cm_file.h"
#include "platform.h"
#include "rp_test_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

#define RT_BANNER_CLEAN                                                        \
  "[cuda_portfolio] version=fake allocator=pooled instrumented=false "         \
  "markers=- seed=1\n"

/* The results file, with the arguments it was given (words without quotes
 * or backslashes, as repro passes them). */
static int rt__write_json(const char *path, int instrumented, int argc,
                          char **argv) {
  FILE *f = cm_fopen(path, "w");
  int i;
  if (f == NULL)
    return 3;
  fprintf(f,
          "{\"schema_version\": 1, \"instrumented\": %s, \"cases\": [], "
          "\"fake_argv\": [",
          instrumented ? "true" : "false");
  for (i = 1; i < argc; i++)
    fprintf(f, "%s\"%s\"", i > 1 ? ", " : "",
            strpbrk(argv[i], "\"\\") == NULL ? argv[i] : "?");
  fprintf(f, "]}\n");
  return fclose(f) == 0 ? 0 : 3;
}

/* Writes text to path, as it is. 0, or 3 (cuda_portfolio's "output not
 * written"). */
static int rt__write_text(const char *path, const char *text) {
  FILE *f = cm_fopen(path, "wb");
  size_t n = strlen(text);
  if (f == NULL)
    return 3;
  if (fwrite(text, 1, n, f) != n) {
    fclose(f);
    return 3;
  }
  return fclose(f) == 0 ? 0 : 3;
}

/* <run><suffix> into path[size], the run folder being the one that holds
 * results/clean/<name>.json at json. 0 on success. */
static int rt__run_path(const char *json, const char *suffix, char *path,
                        size_t size) {
  const char *end = json + strlen(json);
  int up, n;
  for (up = 0; up < 3; up++) { /* strip name, clean/, results/ */
    while (end > json && end[-1] != '/' && end[-1] != '\\')
      end--;
    if (end > json)
      end--;
  }
  if (end == json)
    return -1;
  n = snprintf(path, size, "%.*s%s", (int)(end - json), json, suffix);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* <run>/fake-big.bin: kb KiB of xorshift output. */
static int rt__write_big(const char *json, long kb) {
  static unsigned char buf[1 << 10];
  char path[4096];
  unsigned long long x = 0x9e3779b97f4a7c15ull;
  FILE *f;
  long i;
  size_t k;
  if (rt__run_path(json, "/fake-big.bin", path, sizeof path) != 0)
    return 3;
  f = cm_fopen(path, "wb");
  if (f == NULL)
    return 3;
  for (i = 0; i < kb; i++) {
    for (k = 0; k < sizeof buf; k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      buf[k] = (unsigned char)(x >> 24);
    }
    if (fwrite(buf, 1, sizeof buf, f) != sizeof buf) {
      fclose(f);
      return 3;
    }
  }
  return fclose(f) == 0 ? 0 : 3;
}

/* FAKE_PF_SPECIAL's links and FIFO in <run>/time/. 0, or 3. */
static int rt__write_special(const char *json) {
#ifdef _WIN32
  (void)json;
  return 3;
#else
  static const char *const links[][2] = {
      {"/time/latest-report", "/nonexistent/target"},
      {"/time/up", ".."},
      {"/time/json", "../results/clean/time.json"}};
  char path[4096];
  size_t i;
  for (i = 0; i < sizeof links / sizeof links[0]; i++)
    if (rt__run_path(json, links[i][0], path, sizeof path) != 0 ||
        symlink(links[i][1], path) != 0)
      return 3;
  if (rt__run_path(json, "/time/fifo", path, sizeof path) != 0 ||
      mkfifo(path, 0644) != 0)
    return 3;
  return 0;
#endif
}

/* FAKE_PF_ODD's file in <run>/time/. 0, or 3. */
static int rt__write_odd(const char *json, const char *odd) {
  static const char header[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";
  char path[4096];
  FILE *f;
  int backslash = strcmp(odd, "backslash") == 0;
  if (rt__run_path(
          json, backslash ? "/time/C:\\tmp\\trace.txt" : "/time/trace.json.gz",
          path, sizeof path) != 0)
    return 3;
  f = cm_fopen(path, "wb");
  if (f == NULL)
    return 3;
  if (backslash)
    fputs("trace\n", f);
  else
    fwrite(header, 1, sizeof header - 1, f);
  return fclose(f) == 0 ? 0 : 3;
}

int main(int argc, char **argv) {
  const char *mode = getenv("FAKE_PF_MODE");
  const char *json = NULL;
  const char *vc = getenv("FAKE_PF_VCTRL");
  int i, vctrl = 0; /* vctrl: the word --verify-control was given */
  /* as the real binary: UTF-8 words on Windows too (a non-ASCII root) */
  (void)plat_utf8_argv(&argc, &argv);
  for (i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--json") == 0)
      json = argv[i + 1];
  for (i = 1; i < argc; i++)
    if (strcmp(argv[i], "--fake-refuse") == 0) {
      fprintf(stderr,
              "cuda_portfolio: unknown option '--fake-refuse' (see --help)\n");
      return 2;
    }
  for (i = 1; i < argc; i++)
    if (strcmp(argv[i], "--check-args") == 0) {
      int k, smoke = 0, shape = 0;
      if (i != 1) {
        fprintf(stderr, "cuda_portfolio: fake: --check-args not first\n");
        return 2;
      }
      /* the real binary's rule (portfolio_cli.check_args_smoke_shape):
       * the smoke set's shapes are fixed */
      for (k = 1; k < argc; k++) {
        smoke |= strcmp(argv[k], "--smoke") == 0;
        shape |= strcmp(argv[k], "--shape") == 0;
      }
      if (smoke && shape) {
        fprintf(stderr, "cuda_portfolio: --shape with --smoke: that set's "
                        "shapes are fixed (fake)\n");
        return 2;
      }
      printf("cuda_portfolio: the words make 1 case(s); nothing run\n");
      return 0;
    }
  if (mode == NULL)
    return 2;
  for (i = 1; i < argc; i++)
    vctrl |= strcmp(argv[i], "--verify-control") == 0;
  if (vctrl && vc != NULL && strcmp(vc, "nobanner") == 0)
    return 0; /* a control that says nothing, not even its banner */
  {
    const char *bn = getenv("FAKE_PF_BANNER");
    if (bn != NULL && strcmp(bn, "instr") == 0)
      printf("[cuda_portfolio] version=fake allocator=pooled "
             "instrumented=true markers=LD_PRELOAD seed=1\n");
    else
      printf(RT_BANNER_CLEAN);
  }
  fflush(stdout);
  if (strcmp(mode, "nodev") == 0) {
    fprintf(stderr, "cuda_portfolio: no CUDA device (fake)\n");
    return 77;
  }
  if (vctrl) {
    if (vc != NULL && strcmp(vc, "missed") == 0) {
      printf("VERIFY-CONTROL op=add_ftz dtype=fp32 cases=6 "
             "failing_cases=0 failed_elements=0 predicted_elements=9 "
             "disagree=4 caught=NO\n");
      fprintf(stderr, "cuda_portfolio: --verify-control: the check of "
                      "add_ftz failed other elements than the host "
                      "predicts (fake)\n");
      return 1;
    }
    printf("VERIFY-CONTROL op=add_ftz dtype=fp32 cases=6 failing_cases=3 "
           "failed_elements=9 predicted_elements=9 disagree=0 caught=yes\n");
    return 0;
  }
  if (strcmp(mode, "json_malformed") == 0)
    return json != NULL ? rt__write_text(json, RT_MALFORMED_JSON) : 0;
  if (strcmp(mode, "json_partial") == 0) {
    static const char part[] =
        "{\"schema_version\": 1, \"cases\": [{\"op\": \"soft";
    char tmp[4096];
    if (json == NULL ||
        snprintf(tmp, sizeof tmp, "%s.tmp", json) >= (int)sizeof tmp ||
        rt__write_text(json, part) != 0 || rt__write_text(tmp, part) != 0)
      return 3;
    mode = "sleep";
  }
#ifndef _WIN32
  if (strcmp(mode, "sleep_deaf") == 0) {
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    mode = "sleep";
  }
#endif
  if (strcmp(mode, "sleep") == 0) {
    const char *pf = getenv("FAKE_PF_PIDFILE");
    FILE *f = pf != NULL ? cm_fopen(pf, "w") : NULL;
    if (f != NULL) {
      fprintf(f, "%ld\n", (long)uv_os_getpid());
      fclose(f);
    }
    for (;;)
      uv_sleep(1000);
  }
  if (strcmp(mode, "fail_utf8") == 0) {
    for (i = 0; i < 700; i++)
      fputs("\xc3\xa9", stderr);
    fputs("xy\n", stderr);
    return 1;
  }
  if (strcmp(mode, "json_clean") == 0 || strcmp(mode, "json_instr") == 0) {
    const char *big = getenv("FAKE_PF_BIG_MB");
    const char *big_kb = getenv("FAKE_PF_BIG_KB");
    long scale = 1024;
    if (big == NULL) {
      big = big_kb;
      scale = 1;
    }
    if (json != NULL && big != NULL) {
      char *e;
      long n = strtol(big, &e, 10);
      if (e == big || *e != '\0' || n < 0 || n > 1L << 20 ||
          rt__write_big(json, n * scale) != 0)
        return 3;
    }
    if (json != NULL && getenv("FAKE_PF_SPECIAL") != NULL &&
        rt__write_special(json) != 0)
      return 3;
    if (json != NULL && getenv("FAKE_PF_ODD") != NULL &&
        rt__write_odd(json, getenv("FAKE_PF_ODD")) != 0)
      return 3;
    if (json != NULL && getenv("FAKE_PF_BUNDLE_DIR") != NULL) {
      char path[4096];
      uv_fs_t req;
      int r = rt__run_path(json, ".tar.gz", path, sizeof path);
      if (r == 0) {
        r = uv_fs_mkdir(NULL, &req, path, 0777, NULL);
        uv_fs_req_cleanup(&req);
      }
      if (r != 0)
        return 3;
    }
    return json != NULL ? rt__write_json(json, mode[5] == 'i', argc, argv) : 0;
  }
  return 2;
}
