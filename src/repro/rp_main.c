/* repro: the orchestrator's entry point. A thin layer over the engine:
 * parse, resolve paths, dispatch. */
#include "archive/rp_archive.h"
#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_cli.h"
#include "rp_doctor.h"
#include "rp_exit.h"
#include "rp_pfrun.h"
#include "rp_stage.h"
#include "rp_report_cli.h"

#include <uv.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 if stage d is among the selected stages. */
static int rp__selected(const rp_stage_desc *const *sel,
                        const rp_stage_desc *d) {
  int i;
  for (i = 0; sel[i] != NULL; i++)
    if (sel[i] == d)
      return 1;
  return 0;
}

static int rp__verify(const char *path) {
  rp_verify_result vr;
  char shown[4096];
  int r;
  memset(&vr, 0, sizeof vr);
  r = rp_verify(path, &vr);
  /* the path as given, one line of text (as report and compare show theirs) */
  cm_text_shown(path, shown, sizeof shown);
  if (r != CM_OK) {
    /* vr.problem names what could not be read: a folder without
     * manifest.json exists, so "no such file" alone would mislead */
    if (vr.problem[0] != '\0')
      fprintf(stderr,
              "repro verify: %s: %s\n  (give a run folder, logs/RUN_ID, or "
              "its bundle, logs/RUN_ID.tar.gz)\n",
              shown, vr.problem);
    else
      fprintf(stderr, "repro verify: %s: %s\n", shown, cm_strerror(r));
    return RP_EXIT_VERIFY;
  }
  if (!vr.ok) {
    fprintf(stderr, "repro verify: MISMATCH: %s\n", vr.problem);
    return RP_EXIT_VERIFY;
  }
  printf("repro verify: ok: %d file(s) match the manifest (run %s, status "
         "%s)\n",
         vr.files_checked, vr.run_id, vr.status);
  return RP_EXIT_OK;
}

/* A refusal of the command line: exit 2 with its message, made one line of
 * text for a terminal first (cm_text_oneline). The message repeats the
 * words it names as given, and an ESC or a carriage return in one of them
 * must not rewrite what the terminal shows. */
static int rp__usage_error(char *err) {
  cm_text_oneline(err);
  fprintf(stderr, "repro: %s\n", err);
  return RP_EXIT_USAGE;
}

/* `report` and `compare` take their own arguments (rp_report_cli.h): hand
 * them everything after the command word, the first word that is neither
 * an option nor an option's value (so `repro verify report` and `repro
 * --out report test` are not taken for them). Options before it are the
 * launcher's: --out and --root (also as --out=DIR) matter here, so that
 * `repro report` without a RUN finds the newest run under --out DIR, else
 * <root>/logs, the root found as the stages find it (--root, else
 * $REPRO_ROOT, else from the executable's path); the launchers' --prebuilt
 * and --preset (and --build-dir) pick a build, which these commands do not
 * use, and are let be (rp_cli_misplaced). The working folder is left as it
 * is: the paths the user gives are relative to where the user stands, not
 * to the root (the bash launcher always passes --root). Returns the exit
 * code, or -1 when the command is neither. */
static int rp__dispatch_report(int argc, char **argv) {
  const char *other = NULL;
  char name[32], err[256], exe[1024];
  rp_cli cli;
  int i;
  memset(&cli, 0, sizeof cli);
  cm_strlcpy(cli.opt.preset, "linux", sizeof cli.opt.preset);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    if (a[0] != '-') {
      if (strcmp(a, "report") != 0 && strcmp(a, "compare") != 0)
        return -1;
      break;
    }
    /* repro's own --help comes first: `repro --help report` prints it */
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
      return -1;
    /* the option's name alone (before any "="): the value may be long */
    if (cm_opt_split(a, name, sizeof name, &v)) {
      other = other ? other : a; /* no option of repro's is that long */
      continue;
    }
    if (v == NULL && rp_cli_takes_value(name) && i + 1 < argc)
      v = argv[++i];
    if (v != NULL && strcmp(name, "--root") == 0)
      cm_strlcpy(cli.root, v, sizeof cli.root);
    else if (v != NULL && strcmp(name, "--out") == 0)
      cm_strlcpy(cli.out, v, sizeof cli.out);
    else if (other == NULL &&
             (rp_cli_misplaced("report", name) != NULL ||
              /* --prebuilt is a flag, --preset and --build-dir take a
               * value */
              (strcmp(name, "--prebuilt") == 0) != (v == NULL)))
      other = a;
  }
  if (i >= argc)
    return -1;
  /* Any other option before them (--strict, --keep-going, a typo) would
   * be dropped without a word, so it is refused, as rp_cli_parse refuses
   * an unknown one. */
  if (other != NULL) {
    fprintf(stderr,
            "repro: %s does not apply to %s: %s; its own options come after "
            "the command word (repro compare A B --threshold 5%%, repro "
            "report RUN --junit)\n",
            other, argv[i], rp_cli_misplaced("report", "--strict"));
    return RP_EXIT_USAGE;
  }
  if (strcmp(argv[i], "compare") == 0)
    return rp_compare_main(argc - i, argv + i);
  if (plat_exe_path(exe, sizeof exe) != CM_OK)
    exe[0] = '\0';
  /* no root to be found (no --root, $REPRO_ROOT or executable path): the
   * run folders under ./logs, as before */
  if (cli.root[0] == '\0' && cli.out[0] == '\0' && exe[0] == '\0' &&
      (plat_getenv("REPRO_ROOT") == NULL || *plat_getenv("REPRO_ROOT") == '\0'))
    return rp_report_main(argc - i, argv + i, NULL);
  /* the run folders' parent: --out, else <root>/logs */
  if (rp_cli_resolve(&cli, exe, plat_getenv("REPRO_ROOT"), err, sizeof err) !=
      CM_OK) {
    return rp__usage_error(err);
  }
  return rp_report_main(argc - i, argv + i, cli.opt.out_parent);
}

/* 1 once a run's stages start: its verdict is the manifest's, which a
 * console that went away (a closed pipe, a full disk under > file) must
 * not change; the progress lines are lost, as rp_main says. */
static int rp__stages_ran;

static int rp__main(int argc, char **argv) {
  rp_cli cli;
  rp_ctx ctx;
  const rp_stage_desc *sel[16];
  char err[512], exe[1024];
  int code;

  /* First, before argv is read or anything printed: Windows hands main()
   * argv in the ANSI code page and a console that may not take colours.
   * Both are no-ops on POSIX. A failed conversion keeps the ANSI argv,
   * which is still right for ASCII paths. */
  (void)plat_utf8_argv(&argc, &argv);
  (void)plat_console_init(1);
  (void)plat_console_init(2);
  /* A reader that goes away (tee ended by the same Ctrl-C, a pager quit,
   * a dropped ssh) must cost repro its console output, not its logs and
   * manifest: writes to that pipe then fail and are ignored. A file that
   * reaches the size limit (ulimit -f) fails its write (EFBIG), which the
   * archive reports (status failed, exit 5), instead of ending repro. */
  plat_ignore_write_signals();
  code = rp__dispatch_report(argc, argv);
  if (code >= 0)
    return code;
  if (rp_cli_parse(argc, argv, &cli, err, sizeof err) != CM_OK) {
    return rp__usage_error(err);
  }
  if (cli.help) {
    rp_cli_usage(stdout);
    return RP_EXIT_OK;
  }
  /* verify and doctor run no stage: a run option there would be ignored
   * without a word (--strict verify passed as if it were stricter) */
  if (rp_cli_check_applies(&cli, err, sizeof err) != CM_OK) {
    return rp__usage_error(err);
  }
  if (strcmp(cli.command, "verify") == 0)
    return rp__verify(cli.arg);

  if (plat_exe_path(exe, sizeof exe) != CM_OK)
    exe[0] = '\0';
  if (rp_cli_resolve(&cli, exe, plat_getenv("REPRO_ROOT"), err, sizeof err) !=
      CM_OK) {
    return rp__usage_error(err);
  }
  memset(&ctx, 0, sizeof ctx);
  ctx.opt = cli.opt;
  cm_snprintf(ctx.env_dir, sizeof ctx.env_dir, "%s/env", ctx.opt.root);
  /* A run needs the stages' contracts: a root without env/ is not the
   * repository (a --root or REPRO_ROOT typo), and a run there would only
   * leave a logs/ folder of refused stages behind. doctor still reports. */
  if (strcmp(cli.command, "doctor") != 0 && !plat_path_is_dir(ctx.env_dir)) {
    fprintf(stderr,
            "repro: %s is not the repository root: it has no env/ folder "
            "(the stages' contracts); give --root the folder that holds "
            "env/, CMakePresets.json and src/ (or unset REPRO_ROOT)\n",
            ctx.opt.root);
    return RP_EXIT_USAGE;
  }
  /* A --build-dir that is a file: every stage would fail or skip on it
   * with a message about something else ("configure the build first"). */
  if (plat_path_exists(ctx.opt.build_dir) &&
      !plat_path_is_dir(ctx.opt.build_dir)) {
    fprintf(stderr,
            "repro: the build folder %s is a file, not a folder; give "
            "--build-dir the folder cmake built into (build/<preset>, the "
            "one that holds bin/), or leave --build-dir out\n",
            ctx.opt.build_dir);
    return RP_EXIT_USAGE;
  }
  if (rp_runner_init() != CM_OK) {
    fprintf(stderr, "repro: cannot install signal handlers\n");
    return RP_EXIT_USAGE;
  }
  if (rp_cli_select(&cli, sel, sizeof sel / sizeof sel[0], err, sizeof err) !=
      CM_OK) {
    rp_runner_shutdown();
    return rp__usage_error(err);
  }
  if (strcmp(cli.command, "doctor") == 0) {
    int intr;
    rp_doctor_stages(&ctx, plat_os_detect(), sel, stdout);
    intr = rp_runner_interrupted();
    rp_runner_shutdown();
    /* A Ctrl-C ends the probe in flight and refuses the rest, whose lines
     * then read "version unknown": that report is not the machine's. */
    if (intr) {
      fprintf(stderr, "repro doctor: interrupted; the checks above after "
                      "the interrupt are incomplete (run it again)\n");
      return RP_EXIT_INTERRUPTED;
    }
    return RP_EXIT_OK;
  }
  /* a --select cuda_portfolio refuses fails now, not after the stages
   * before profile and time have run (minutes, on a GPU) */
  if (rp_select_check(&ctx, rp__selected(sel, &rp_stage_time),
                      rp__selected(sel, &rp_stage_profile), err,
                      sizeof err) != CM_OK) {
    fprintf(stderr,
            "repro: --select \"%s\": cuda_portfolio refuses it: %s\n"
            "  (--select takes cuda_portfolio's selection words, e.g. \"--op "
            "softmax --dtype bf16\"; cuda_portfolio --help lists them)\n",
            ctx.opt.select, err);
    rp_runner_shutdown();
    return RP_EXIT_USAGE;
  }
  rp__stages_ran = 1;
  if (rp_engine_begin(&ctx, argc, argv, cli.command) != CM_OK)
    return RP_EXIT_ARCHIVE;
  rp_engine_run(&ctx, sel);
  code = rp_engine_end(&ctx);
  rp_runner_shutdown();
  return code;
}

/* cm_file.h's stop in the JSON readers exits with this code of repro's */
_Static_assert(CM_JSON_OOM_EXIT == RP_EXIT_NOMEM,
               "cm_file.h's CM_JSON_OOM_EXIT is repro's RP_EXIT_NOMEM");

int main(int argc, char **argv) {
  int code, e = 0;
  cm_json_init(); /* before any document is built (cm_file.h) */
  code = rp__main(argc, argv);
  /* What a command that only reads prints is its result (verify's verdict,
   * compare's table or JSON, the help): one that could not be written
   * (> /dev/full, a closed pipe) is no result, and exit 0 would say it was
   * there. Exit 5, "could not be written", unless a weightier code stands
   * (rp_exit.h's order). */
  if (!rp__stages_ran && fflush(stdout) != 0)
    e = errno;
  if (!rp__stages_ran && (e != 0 || ferror(stdout))) {
    fprintf(stderr, "repro: could not write to standard output: %s\n",
            e != 0 ? strerror(e) : "an earlier write failed");
    if (code == RP_EXIT_OK || code == RP_EXIT_INCOMPLETE)
      code = RP_EXIT_ARCHIVE;
  }
  return code;
}
