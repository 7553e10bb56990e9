/* rp_stage.h: the stage engine and the step API that every stage uses.
 *
 * A stage is a descriptor (rp_stage_desc): a name, an optional extra
 * preflight, its steps and an optional post-check, in its own file
 * rp_stage_<name>.c. The engine (rp_engine.c) loads the stage's contract
 * (env/<name>.contract), runs the contract's preflight checks, then the
 * stage's hooks, and records everything in the stage's manifest record:
 *   {name, status, reason, refused, exit_code, duration_s, checks[],
 *    steps[], ...anything the stage adds to st->record}
 *
 * A stage ends passed, failed, skipped (with the reason) or limited (ran,
 * but something could not be had). Skipped and limited are never passed.
 * A refused stage (its contract violated) is recorded as failed with
 * refused: true, and makes repro exit 3.
 *
 * Writing a stage (issue 6 fills sanitize, inspect and profile this way):
 *   static void my_steps(rp_ctx *ctx, rp_stage_run *st) {
 *     const char *argv[] = {"compute-sanitizer", "--error-exitcode=1",
 *                           portfolio_path, "--smoke", NULL};
 *     rp_step_result res;
 *     if (rp_stage_step(ctx, st, "memcheck", argv, NULL, 1, &res) != CM_OK)
 *       return;                       // already recorded as failed
 *     if (!rp_step_ok(&res))
 *       rp_stage_set(st, RP_ST_FAILED, "memcheck exit %lld", ...);
 *     rp_step_result_free(&res);
 *   }
 *   const rp_stage_desc rp_stage_mine = {"mine", "one line", NULL,
 *                                        my_steps, NULL};
 * and list it in rp_stages.c.
 */
#ifndef RP_STAGE_H
#define RP_STAGE_H

#include "cm_str.h"
#include "rp_contract.h"
#include "rp_preflight.h"
#include "rp_runner.h"

#include <jansson.h>
#include <stdint.h>

typedef enum {
  RP_ST_PASSED = 0,
  RP_ST_LIMITED,
  RP_ST_SKIPPED,
  RP_ST_FAILED
} rp_stage_status;

/* "passed", "limited", "skipped", "failed". */
const char *rp_stage_status_name(rp_stage_status s);

/* --select's most words: what every stage's argv has room for. */
#define RP_SELECT_MAX_WORDS 12

typedef struct {
  char root[1024];       /* repository root (env/ lives here) */
  char preset[64];       /* CMake preset, default "linux" */
  char out_parent[1024]; /* runs go to <out_parent>/<run-id>/ */
  char build_dir[1024];  /* default <root>/build/<preset> */
  int gpu;               /* --gpu N, -1 when not given */
  int strict;            /* a limited stage fails the run */
  int keep_going;        /* go on after a failed stage */
  int verbose;           /* echo children's output */
  int prebuilt;          /* build stage: use the build folder as it is */
  char select[512];      /* --select: extra cuda_portfolio selection
                            arguments for the time and profile stages,
                            space-separated ("--op softmax --dtype bf16") */
  int profile_bench;     /* --profile-set bench: the profile stage runs the
                            benchmark set (--bench), not --smoke */
  char lock_clocks[32];  /* --lock-clocks SM_MHZ[:MEM_MHZ] for the time
                            stage ("": the clocks as found) */
} rp_options;

/* One run: the folder, the manifest under construction, the options. */
typedef struct {
  rp_options opt;
  char run_id[128];
  char run_dir[1200];
  char env_dir[1100]; /* <root>/env */
  json_t *manifest;   /* owned */
  json_t *stages;     /* borrowed from manifest */
  rp_probe probe;     /* facts for preflight (tests override) */
  int io_error;       /* a log or file could not be written */
} rp_ctx;

typedef struct rp_stage_desc rp_stage_desc;

/* A stage while it runs. The engine creates it; hooks fill it. */
typedef struct {
  const rp_stage_desc *desc;
  rp_contract contract;
  rp_checks checks;
  rp_stage_status status;
  char reason[1200];
  int refused;
  int advisory_checks; /* 1: checks are recorded but do not decide */
  int64_t exit_code;   /* of the step that decided, -1 if none ran */
  json_t *record;      /* the stage's manifest object (borrowed) */
  json_t *steps;       /* record's steps[] (borrowed) */
} rp_stage_run;

struct rp_stage_desc {
  const char *name;
  const char *summary; /* one line for --help */
  /* Extra checks after the contract's (may add to st->checks, may set
   * st->advisory_checks). NULL for none. */
  void (*preflight)(rp_ctx *ctx, rp_stage_run *st);
  /* The steps. Status starts RP_ST_PASSED; the hook worsens it. */
  void (*steps)(rp_ctx *ctx, rp_stage_run *st);
  /* After the steps (files filed, banners compared). NULL for none. */
  void (*post)(rp_ctx *ctx, rp_stage_run *st);
};

/* Sets the status and reason (printf-like). A later call only ever makes the
 * status worse (passed < limited < skipped < failed), so a failure is never
 * overwritten by a later "passed". */
void rp_stage_set(rp_stage_run *st, rp_stage_status s, const char *fmt, ...)
    CM_PRINTF_LIKE(3, 4);

/* Runs one step of a stage: argv with the stage's contract environment
 * (plus extra, NULL-terminated "NAME=value", may be NULL), the contract's
 * timeout, logs <stage>/<step>.std{out,err}.log.gz in the run folder, stdout
 * kept in res->out when capture is 1. Records the step in st->steps (argv,
 * exit_code, signal, timed_out, interrupted, duration_s, bytes, logs) and
 * sets st->exit_code. On a timeout, signal, or interrupt the stage is set
 * failed with the reason; a non-zero exit is left to the caller to judge.
 * Returns CM_OK if the child ran (res then needs rp_step_result_free), or
 * the cm_error why not (the stage is then already failed; res is freed). */
int rp_stage_step(rp_ctx *ctx, rp_stage_run *st, const char *step,
                  const char *const *argv, const char *const *extra_env,
                  int capture, rp_step_result *res);

/* 1 if the step exited 0 on its own (no signal, no timeout, no interrupt). */
int rp_step_ok(const rp_step_result *res);

/* Path of a binary of the build folder: <build_dir>/bin/<name>. */
int rp_build_bin(const rp_ctx *ctx, const char *name, char *buf, size_t size);

/* Reads the gzip log <run_dir>/<rel> whole, decompressed and NUL-terminated
 * (e.g. a step's stderr, which the runner keeps only in its log); *len gets
 * its length. Returns NULL (and *len 0) when rel is empty or the log cannot
 * be read. The caller frees the result. */
char *rp_run_read_log(const rp_ctx *ctx, const char *rel, size_t *len);

/* A step's whole standard output: res->out when the capture holds all of
 * it, else the text of its stdout log (the capture stops at 16 MiB, the
 * log does not: a SASS listing or a CSV export written from the capture
 * was cut there without a word before 2026-12-06). *owned receives what
 * the caller frees (NULL when the result is res->out). NULL, with *len 0,
 * when there is no output or the log cannot be read. */
const char *rp_step_stdout(const rp_ctx *ctx, const rp_step_result *res,
                           size_t *len, char **owned);

/* The stage table (rp_stages.c), in `all` order, NULL-terminated; selftest
 * is not in `all` and is found with rp_stage_find. */
extern const rp_stage_desc *const rp_all_stages[];
const rp_stage_desc *rp_stage_find(const char *name);

extern const rp_stage_desc rp_stage_build, rp_stage_test, rp_stage_sanitize,
    rp_stage_inspect, rp_stage_profile, rp_stage_time, rp_stage_selftest;

/* The time stage's --lock-clocks check (rp_lock_clocks_check with the
 * probe's or the OS's answer on privilege), for its preflight and for
 * doctor; adds nothing without --lock-clocks. */
void rp_time_lock_check(const rp_ctx *ctx, rp_checks *out);

/* The profile stage's nsys check, for its preflight and for doctor: PASS
 * with the path and version of the nsys rp_nsys_probe finds, or WARN (the
 * stage runs limited, with no timeline). path[size] gets that path, ""
 * when none (path may be NULL). */
void rp_profile_nsys_check(const rp_ctx *ctx, rp_checks *out, char *path,
                           size_t size);

/* The inspect stage's nvcc check, for its preflight and for doctor. The
 * stage compiles the kernels again with the nvcc the contract's tool check
 * found (rp_tool_probe: PATH first, then the CUDA folders), in place of the
 * compiler their compile command names; that is only the same compiler when
 * both name one file (links followed). PASS when every kernels/<name>.cu of
 * <build-dir>/compile_commands.json names that file; FAIL that refuses the
 * stage (exit 3) when one names another, with both paths and how to make
 * them agree; FAIL that skips it when no nvcc is found. Adds nothing when
 * the build folder has no compile_commands.json or no kernel in it (the
 * stage's steps say so). *nvcc (may be NULL) gets the probed nvcc. */
void rp_inspect_nvcc_check(const rp_ctx *ctx, rp_checks *out,
                           rp_tool_info *nvcc);

/* Splits a compile command (compile_commands.json's "command") into words,
 * in place in buf, as the generator quoted it: POSIX shell rules (double
 * quotes, a backslash escapes the next character) when windows_rules is 0;
 * the Windows command line's when 1 (double quotes; backslashes are literal
 * unless they run into a double quote, as in CMake's native paths such
 * as C:\CUDA\bin\nvcc.exe). Returns the count, or -1 past max words. */
int rp_inspect_split(char *buf, char **words, int max, int windows_rules);

/* ---- The engine (rp_engine.c) ---- */

/* Creates the run: run id, folder, the manifest's fixed fields (host, OS,
 * git, tool versions, argv). Returns CM_OK or a cm_error (message on
 * stderr). ctx->opt must be filled first. */
int rp_engine_begin(rp_ctx *ctx, int argc, char **argv, const char *command);

/* Runs the stages in order (NULL-terminated), honouring --keep-going and
 * interrupts, appending each record to the manifest. */
void rp_engine_run(rp_ctx *ctx, const rp_stage_desc *const *stages);

/* Writes the manifest (rp_manifest_finish) and the bundle, prints a
 * summary, frees the manifest and returns repro's exit code (rp_exit.h). */
int rp_engine_end(rp_ctx *ctx);

/* Contract of a stage from <root>/env/<name>.contract. */
int rp_stage_contract_path(const rp_ctx *ctx, const char *name, char *buf,
                           size_t size);

/* Run id like 20261129T121530Z-<host>-<4 hex> for the given epoch and
 * random value (pure, for tests). */
int rp_make_run_id(int64_t epoch_s, const char *host, unsigned rnd, char *buf,
                   size_t size);

/* How many run ids rp_engine_begin draws before it gives up on finding a
 * run folder no other run has. */
#define RP_RUN_ID_TRIES 8

/* Creates a run's folder, <parent>/<run id>, and makes sure it is this
 * run's alone: two runs that draw the same id (same second, same host, same
 * 16-bit random part) would otherwise share one folder, and one would
 * overwrite the other's logs and manifest. parent and the folders above it
 * are made when missing (plat_mkdir_p); then the id rp_make_run_id gives
 * for epoch_s, host and rnd[i] is tried for i = 0 .. tries - 1, and the
 * first whose folder plat_mkdir_new could create is taken. A folder that
 * already exists belongs to someone else and is never used. The id goes to
 * id[id_size], the folder's path to dir[dir_size] (the last one tried when
 * none could be made). Returns CM_OK; CM_EEXIST when every try found its
 * folder there already; CM_ENOTDIR when parent, or a folder above it, is a
 * file; CM_ERANGE when a path does not fit; else the mkdir error
 * (CM_EACCES, CM_ENOSPC, ...). The random parts are the caller's, so that
 * tests can make two runs collide. */
int rp_make_run_dir(const char *parent, int64_t epoch_s, const char *host,
                    const unsigned *rnd, int tries, char *id, size_t id_size,
                    char *dir, size_t dir_size);

#endif
