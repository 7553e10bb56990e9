/* rp_cli.h: repro's command line (pure parsing, unit-tested).
 *
 *   repro [options] COMMAND [ARG]
 *
 * Options may come before or after the command. See rp_cli_usage for the
 * list; docs/REPRO.md has the same text.
 */
#ifndef RP_CLI_H
#define RP_CLI_H

#include "rp_stage.h"

#include <stdio.h>

typedef struct {
  rp_options opt;
  char command[32];     /* "all", "test", "doctor", "verify", ... */
  char arg[1024];       /* verify's RUN|BUNDLE */
  char only[256];       /* --only LIST (comma-separated stage names) */
  char skip[256];       /* --skip LIST */
  char root[1024];      /* --root, "" if not given */
  char out[1024];       /* --out, "" if not given */
  char build_dir[1024]; /* --build-dir, "" if not given */
  int help;             /* --help or -h */
  unsigned given;       /* the options given, a bit each (rp_cli.c) */
} rp_cli;

/* Parses argv (argv[0] is the program). Fills *cli (defaults: preset
 * "linux", gpu -1). Returns CM_OK or CM_EINVAL with err[size] saying why. */
int rp_cli_parse(int argc, char **argv, rp_cli *cli, char *err, size_t size);

/* Resolves the root (--root, else $REPRO_ROOT, else three folders above the
 * executable: <root>/build/<preset>/bin/repro), the run folders' parent
 * (--out, else <root>/logs) and the build folder (--build-dir, else
 * <root>/build/<preset>) into cli->opt. exe is the executable's path.
 * Returns CM_OK or a cm_error with err set. */
int rp_cli_resolve(rp_cli *cli, const char *exe, const char *env_root,
                   char *err, size_t size);

/* The stages a run command selects, in order, NULL-terminated, into
 * out[max]: the command's stage (or all six for "all"), filtered by --only
 * and --skip. An unknown stage name in a list is an error (CM_EINVAL, err
 * set); an empty selection is an error too. */
int rp_cli_select(const rp_cli *cli, const rp_stage_desc **out, size_t max,
                  char *err, size_t size);

/* NULL when option name (without "=value") applies to command, else why
 * not (the options it takes). Only the commands that run no stage (verify,
 * doctor, report, compare) refuse options; the launchers' words that pick
 * a build (--prebuilt, --preset, --build-dir) and --root apply to every
 * one of them, as the launchers pass them to any command. */
const char *rp_cli_misplaced(const char *command, const char *name);

/* CM_OK when every option given applies to cli->command
 * (rp_cli_misplaced), else CM_EINVAL with err naming the first that does
 * not and the options it takes. */
int rp_cli_check_applies(const rp_cli *cli, char *err, size_t size);

/* 1 if name (an option without "=value") takes a value (--out DIR, ...). */
int rp_cli_takes_value(const char *name);

/* 1 if command runs stages (build ... time, all, selftest). */
int rp_cli_is_run_command(const char *command);

/* Prints the usage, the stages and the exit-code table. */
void rp_cli_usage(FILE *f);

#endif
