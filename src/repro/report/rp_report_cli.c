/* rp_report_cli.c: argument parsing for `repro report` and `repro
 * compare` (thin layer over rp_report.h and rp_compare.h). */
#include "rp_report_cli.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_path.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_compare.h"
#include "rp_report.h"

#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130 /* as repro's own runs (rp_exit.h) */

static volatile sig_atomic_t held_signal;

/* A message of report or compare on stderr, "repro CMD: ...", made one
 * line of text first (cm_text_oneline): it repeats the words and paths it
 * was given, and an ESC or a carriage return in one of them must not
 * rewrite what the terminal shows (as repro's own refusals, rp_main.c). */
static void say(const char *cmd, const char *fmt, ...) CM_PRINTF_LIKE(2, 3);
static void say(const char *cmd, const char *fmt, ...) {
  char line[6144];
  va_list ap;
  va_start(ap, fmt);
  cm_vsnprintf(line, sizeof line, fmt, ap); /* a cut message still says */
  va_end(ap);
  cm_text_oneline(line);
  fprintf(stderr, "repro %s: %s\n", cmd, line);
}

#ifdef _WIN32
/* Windows' CRT resets a handler to the default once it has run: put it
 * back, so that a second Ctrl-C is held too. (No SIGHUP there: libuv's
 * header defines one, which the CRT would refuse as invalid.) */
static void hold_one(int signum) {
  held_signal = signum;
  signal(signum, hold_one);
}

static const int held_nums[] = {SIGINT, SIGTERM};
static void (*held_prev[2])(int);

/* on: interrupts only set held_signal; off: their previous handlers. */
static void hold_signals(int on) {
  size_t i;
  for (i = 0; i < sizeof held_nums / sizeof held_nums[0]; i++) {
    if (on) {
      held_prev[i] = signal(held_nums[i], hold_one);
      if (held_prev[i] == SIG_IGN)
        signal(held_nums[i], SIG_IGN);
    } else if (held_prev[i] != SIG_ERR) {
      signal(held_nums[i], held_prev[i]);
    }
  }
}
#else
static void hold_one(int signum) {
  held_signal = signum;
}

static const int held_nums[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction held_prev[4];

/* on: interrupts only set held_signal (sigaction: the handler stays for a
 * second Ctrl-C, where signal() would reset it); off: their previous
 * actions. A signal ignored already (a background job's SIGINT, nohup's
 * SIGHUP) stays ignored. */
static void hold_signals(int on) {
  size_t i;
  for (i = 0; i < sizeof held_nums / sizeof held_nums[0]; i++) {
    if (on) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = hold_one;
      sa.sa_flags = SA_RESTART;
      sigemptyset(&sa.sa_mask);
      if (sigaction(held_nums[i], NULL, &held_prev[i]) == 0 &&
          held_prev[i].sa_handler != SIG_IGN)
        sigaction(held_nums[i], &sa, NULL);
    } else {
      sigaction(held_nums[i], &held_prev[i], NULL);
    }
  }
}
#endif

/* report's options: flags only. compare's: two flags, and the options
 * that take a value, given as "--opt value" or "--opt=value". */
static const char *const report_flags[] = {"--junit", "--sarif", "--no-finish",
                                           "--help", NULL};
static const char *const compare_flags[] = {"--force", "--help", NULL};
static const char *const compare_valued[] = {
    "--threshold",   "--alpha",  "--resamples", "--seed",
    "--min-samples", "--format", NULL};

static void report_usage(void) {
  fprintf(stderr,
          "usage: repro report [RUN] [--junit] [--sarif] [--no-finish]\n"
          "  RUN defaults to the newest run folder under <root>/logs (the\n"
          "  root: --root, else $REPRO_ROOT, else from repro's path; --out\n"
          "  DIR before the command: under DIR)\n"
          "  --no-finish  write the documents only: no verify first, the\n"
          "               manifest not re-bound\n");
}

/* 1 if name starts as repro's run ids do, with the UTC start time
 * (YYYYMMDDTHHMMSSZ-, rp_make_run_id), which sorts as the time does. */
static int is_run_id(const char *name) {
  int i;
  for (i = 0; i < 16; i++) {
    const char c = name[i];
    if (i == 8 ? c != 'T' : i == 15 ? c != 'Z' : !(c >= '0' && c <= '9'))
      return 0;
  }
  return name[16] == '-';
}

/* Newest run folder of runs (a folder of run folders): the latest run id
 * with a manifest.json, into buf. Folders not named by a run id (a copy,
 * "old-h200-run") are not runs of this machine's clock and never count
 * as the newest (they sorted after every digit before). */
static int newest_run(const char *runs, char *buf, size_t size) {
  uv_fs_t req;
  uv_dirent_t ent;
  char best[512] = "", path[1024], os[4096];
  if (cm_path_os(runs, os, sizeof os) != CM_OK)
    return CM_ENOENT;
  if (uv_fs_scandir(NULL, &req, os, 0, NULL) < 0) {
    uv_fs_req_cleanup(&req);
    return CM_ENOENT;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    if ((ent.type != UV_DIRENT_DIR && ent.type != UV_DIRENT_UNKNOWN) ||
        !is_run_id(ent.name))
      continue;
    if (cm_snprintf(path, sizeof path, "%s/%s/manifest.json", runs, ent.name) !=
        CM_OK)
      continue;
    if (plat_path_exists(path) && strcmp(ent.name, best) > 0)
      cm_strlcpy(best, ent.name, sizeof best);
  }
  uv_fs_req_cleanup(&req);
  if (!best[0])
    return CM_ENOENT;
  return cm_snprintf(buf, size, "%s/%s", runs, best);
}

int rp_report_main(int argc, char **argv, const char *runs_dir) {
  rp_report_opts o;
  const char *run = NULL;
  char dir[1024], msg[1200];
  int i, r;
  memset(&o, 0, sizeof o);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    char name[32];
    /* read as compare and repro's own options are (cm_opt_split), so that
     * "--junit=yes" is named as a flag given a value, not as a stray word */
    if (a[0] == '-' && cm_opt_split(a, name, sizeof name, &v))
      name[0] = '\0'; /* no option of report's is that long */
    if (a[0] == '-' && v != NULL && cm_str_among(name, report_flags)) {
      say("report", "%s takes no value ('%s')", name, a);
      report_usage();
      return EXIT_USAGE;
    }
    if (strcmp(a, "--junit") == 0)
      o.junit = 1;
    else if (strcmp(a, "--sarif") == 0)
      o.sarif = 1;
    else if (strcmp(a, "--no-finish") == 0)
      o.no_finish = 1;
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      report_usage();
      return EXIT_OK;
    } else if (a[0] == '-' || run != NULL) {
      say("report", "unexpected argument '%s'", a);
      report_usage();
      return EXIT_USAGE;
    } else
      run = a;
  }
  if (runs_dir == NULL)
    runs_dir = "logs";
  if (run == NULL) {
    if (newest_run(runs_dir, dir, sizeof dir) != CM_OK) {
      say("report",
          "no RUN given and no run folder with a "
          "manifest.json under %s (give the run folder: repro report "
          "logs/RUN_ID)",
          runs_dir);
      return EXIT_USAGE;
    }
    run = dir;
  }
  /* Writing the documents and re-binding the manifest is one step to an
   * auditor: cut between the two (Ctrl-C while the manifest is re-hashed),
   * the run would no longer verify. An interrupt is held until it ends,
   * then honoured (exit 130). */
  /* The verify first: it writes nothing, but an interrupt there ended
   * repro by the signal's default (exit 143 or 129, no word). It is held
   * as well and honoured once the verify is done, before anything is
   * written. */
  held_signal = 0;
  hold_signals(1);
  r = o.no_finish ? CM_OK : rp_report_check(run, msg, sizeof msg);
  if (r != CM_OK || held_signal != 0) {
    hold_signals(0);
    if (r != CM_OK)
      say("report", "%s", msg);
    if (held_signal != 0) {
      say("report",
          "interrupted (signal %d) while the run was "
          "verified; nothing was written, the run is as it was",
          (int)held_signal);
      return EXIT_INTERRUPTED;
    }
    return EXIT_FAIL;
  }
  o.just_finished = !o.no_finish;
  r = rp_report_write(run, &o, msg, sizeof msg);
  hold_signals(0);
  say("report", "%s", msg);
  if (held_signal != 0) {
    say("report",
        "interrupted (signal %d); held until the report "
        "was bound to the manifest, so the run still verifies",
        (int)held_signal);
    return EXIT_INTERRUPTED;
  }
  return r == CM_OK ? EXIT_OK : EXIT_FAIL;
}

/* The values compare's option name takes, for a message. */
static const char *compare_range(const char *name) {
  if (strcmp(name, "--threshold") == 0)
    return "give a fraction between 0 and 1, exclusive, as 0.05 or 5%";
  if (strcmp(name, "--alpha") == 0)
    return "give a significance level between 0 and 1, exclusive, as 0.01 "
           "or 1%";
  if (strcmp(name, "--resamples") == 0)
    return "give a whole number from 100 to 1000000";
  if (strcmp(name, "--min-samples") == 0)
    return "give a whole number from 2 to 1000000";
  if (strcmp(name, "--seed") == 0)
    return "give a whole number from 0 to 18446744073709551615";
  return "give text or json";
}

static void compare_usage(void) {
  fprintf(stderr,
          "usage: repro compare BASE NEW [--threshold 5%%|0.05] "
          "[--alpha 0.01]\n"
          "         [--resamples 2000] [--seed N] [--min-samples 5] "
          "[--force]\n"
          "         [--format text|json]\n"
          "BASE, NEW: a results JSON file (or NAME.json.gz), a run folder, "
          "or a bundle (.tar.gz, verified first)\n"
          "  --threshold, --alpha   fractions in (0, 1): 0.05 or 5%%\n"
          "  --resamples            100 to 1000000 (bootstrap resamples)\n"
          "  --min-samples          2 to 1000000 (fewer: no verdict)\n"
          "  --seed                 0 to 2^64-1 (the bootstrap's seed)\n"
          "exit: 0 no regression, 1 a regression, 2 refused or usage,\n"
          "      5 the result could not be written to standard output\n");
}

/* "5%" -> 0.05, "0.05" -> 0.05; must end up in (0, 1). */
static int parse_fraction(const char *s, double *out) {
  char tmp[64];
  size_t l = strlen(s);
  double v;
  int pct = l > 0 && s[l - 1] == '%';
  if (cm_strlcpy(tmp, s, sizeof tmp) != CM_OK)
    return CM_EINVAL;
  if (pct)
    tmp[l - 1] = '\0';
  if (cm_parse_double(tmp, &v) != CM_OK)
    return CM_EINVAL;
  if (pct)
    v /= 100;
  if (!(v > 0 && v < 1))
    return CM_ERANGE;
  *out = v;
  return CM_OK;
}

/* Why BASE or NEW could not be read: a run folder that exists but holds
 * no timing results is a run without the time stage, not a missing path. */
static void load_failed(const char *which, const char *path, int r) {
  if (r == CM_ENOENT && plat_path_is_dir(path))
    say("compare",
        "%s %s: a folder with no timing results (no "
        "results/clean/*.json or results/instrumented/time.json: a run "
        "without the time stage? the profile stage's results are not "
        "timings to compare); give a run that timed, or its results "
        "JSON",
        which, path);
  else if (r == CM_EINVAL && plat_path_is_special(path))
    say("compare",
        "%s %s: not a regular file (a pipe or a "
        "device); give a results JSON, a run folder or a bundle",
        which, path);
  else
    say("compare", "cannot read %s %s: %s", which, path, cm_strerror(r));
}

int rp_compare_main(int argc, char **argv) {
  rp_compare_opts o;
  rp_compare_result res;
  rp_results base, next;
  const char *paths[2] = {NULL, NULL}, *format = "text";
  int i, np = 0, r, code;
  rp_compare_opts_init(&o);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    char name[32];
    int64_t iv;
    uint64_t uv;
    int bad = 0;
    if (a[0] != '-') {
      if (np == 2) {
        say("compare", "too many paths ('%s')", a);
        compare_usage();
        return EXIT_USAGE;
      }
      paths[np++] = a;
      continue;
    }
    /* "--opt=value" or "--opt value", as repro's own options */
    if (cm_opt_split(a, name, sizeof name, &v))
      name[0] = '\0'; /* no option of compare's is that long */
    if (v != NULL && cm_str_among(name, compare_flags)) {
      say("compare", "%s takes no value ('%s')", name, a);
      compare_usage();
      return EXIT_USAGE;
    }
    if (strcmp(a, "--force") == 0) {
      o.force = 1;
      continue;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      compare_usage();
      return EXIT_OK;
    }
    /* an unknown option is named as unknown, also when it comes last (it
     * was asked for a value before) */
    if (!cm_str_among(name, compare_valued)) {
      say("compare", "unknown option '%s'", a);
      compare_usage();
      return EXIT_USAGE;
    }
    if (v == NULL) {
      if (i + 1 >= argc) {
        say("compare", "%s needs a value", name);
        return EXIT_USAGE;
      }
      v = argv[++i];
    }
    if (strcmp(name, "--threshold") == 0)
      bad = parse_fraction(v, &o.threshold) != CM_OK;
    else if (strcmp(name, "--alpha") == 0)
      bad = parse_fraction(v, &o.alpha) != CM_OK;
    else if (strcmp(name, "--resamples") == 0) {
      bad = cm_parse_i64(v, &iv) != CM_OK || iv < 100 || iv > 1000000;
      o.resamples = bad ? o.resamples : (int)iv;
    } else if (strcmp(name, "--min-samples") == 0) {
      bad = cm_parse_i64(v, &iv) != CM_OK || iv < 2 || iv > 1000000;
      o.min_samples = bad ? o.min_samples : (size_t)iv;
    } else if (strcmp(name, "--seed") == 0) {
      bad = cm_parse_u64(v, &uv) != CM_OK;
      o.seed = bad ? o.seed : uv;
    } else { /* --format */
      bad = strcmp(v, "text") != 0 && strcmp(v, "json") != 0;
      format = v;
    }
    if (bad) {
      say("compare", "bad value '%s' for %s: %s", v, name, compare_range(name));
      return EXIT_USAGE;
    }
  }
  if (np != 2) {
    say("compare", "needs two runs, BASE and NEW (%d given)", np);
    compare_usage();
    return EXIT_USAGE;
  }
  r = rp_results_load_any(paths[0], &base);
  if (r != CM_OK) {
    load_failed("BASE", paths[0], r);
    return EXIT_USAGE;
  }
  r = rp_results_load_any(paths[1], &next);
  if (r != CM_OK) {
    load_failed("NEW", paths[1], r);
    rp_results_free(&base);
    return EXIT_USAGE;
  }
  r = rp_compare(&base, &next, &o, &res);
  if (r != CM_OK) {
    say("compare", "%s", cm_strerror(r));
    code = EXIT_USAGE;
  } else {
    code = rp_compare_exit_code(&res);
    if (strcmp(format, "json") == 0) {
      json_t *doc = rp_compare_json(&res, &o, paths[0], paths[1]);
      char *s =
          doc ? cm_json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10))
              : NULL;
      if (s != NULL)
        printf("%s\n", s);
      free(s);
      json_decref(doc);
    } else {
      char *s = rp_compare_text(&res, &o, paths[0], paths[1]);
      if (s != NULL)
        fputs(s, stdout);
      free(s);
    }
    if (res.refused)
      say("compare", "refused: %s", res.reasons);
  }
  rp_compare_result_free(&res);
  rp_results_free(&base);
  rp_results_free(&next);
  return code;
}
