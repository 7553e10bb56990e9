/* rp_runner.h: runs one step (a child process) the way every stage needs.
 *
 * A step is one child spawned with libuv (uv_spawn), its stdout and stderr
 * read through two pipes concurrently (the loop never blocks on a full pipe),
 * each stream written as it arrives into its own gzip log in the run folder:
 *   <run_dir>/<log_base>.stdout.log.gz and <run_dir>/<log_base>.stderr.log.gz
 * (two logs rather than one interleaved log, so every byte is kept exactly),
 * flushed every second while new bytes arrive, so that a repro killed
 * outright leaves logs that decompress up to the last flush.
 * The terminal shows a progress line (stage, step, elapsed, refreshed every
 * second) or, with verbose, the output itself.
 *
 * Every child leads its own process group (POSIX: UV_PROCESS_DETACHED, i.e.
 * setsid; Windows: a job object and a console of its own, without a window),
 * so ending a step ends its whole tree: at the timeout the group gets
 * SIGTERM, then SIGKILL after the grace period; when the child exits on its
 * own, whatever it left running in its group is killed too.
 *
 * SIGINT and SIGTERM, and on POSIX SIGHUP (the terminal closing) and
 * SIGQUIT, are
 * caught by rp_runner_init's handlers: the running step's tree is ended, the
 * step is marked interrupted, and rp_runner_interrupted() says so from then
 * on, so that the engine can flush its logs and write the manifest as
 * "interrupted".
 *
 * Single-threaded: one step at a time, on libuv's default loop.
 */
#ifndef RP_RUNNER_H
#define RP_RUNNER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  const char *const *argv; /* argv[0] is looked up in the child's PATH */
  char *const *env;        /* NULL-terminated "NAME=value"; NULL: inherit */
  const char *cwd;         /* NULL: repro's working directory */
  double timeout_s;        /* <= 0: no timeout */
  double grace_s;          /* SIGTERM -> SIGKILL delay; <= 0 means 5 s */
  const char *run_dir;     /* NULL: no logs are written (probes) */
  const char *log_base;    /* "test/cuda_portfolio", relative to run_dir */
  int capture_stdout;      /* 1: keep stdout in memory (res->out) */
  size_t capture_limit;    /* bytes kept at most; 0 means 16 MiB */
  const char *stage;       /* for the progress line */
  const char *step;        /* for the progress line */
  int verbose;             /* 1: echo the child's output to our stdout/err */
  int quiet;               /* 1: no progress line at all (probes, tests) */
} rp_step_spec;

typedef struct {
  int spawned;        /* 1 if the child started */
  char error[256];    /* why it did not start, or why a log failed */
  int64_t exit_code;  /* exit status; -1 when killed by a signal */
  int term_signal;    /* signal that ended it, 0 if none */
  int timed_out;      /* 1: ended by repro at the timeout */
  int interrupted;    /* 1: ended by repro on an interrupt */
  int output_cut;     /* 1: a pipe was still open when the drain after the
                         exit ended: later output was not read */
  double duration_s;  /* spawn to last byte read */
  uint64_t out_bytes; /* bytes read from stdout */
  uint64_t err_bytes; /* bytes read from stderr */
  char *out;          /* captured stdout, NUL-terminated (capture only) */
  size_t out_len;     /* bytes in out (may be < out_bytes if capped) */
  char err_tail[512]; /* the last bytes of stderr, for reasons */
  char out_log[512];  /* relative paths of the two logs, "" without logs */
  char err_log[512];
} rp_step_result;

/* Installs the SIGINT, SIGTERM and (POSIX) SIGHUP and SIGQUIT handlers on the
 * default loop. Call once before the first step; later calls do nothing.
 * Returns CM_OK or a cm_error. */
int rp_runner_init(void);

/* Runs the step to its end (exit, timeout or interrupt) and fills *res (which
 * the caller frees with rp_step_result_free). Returns CM_OK when the child
 * ran, whatever its exit status; CM_ENOENT when the program was not found or
 * another cm_error when it could not be started or a log could not be
 * written (res->error says which). Refuses to start (CM_EINTR) once
 * interrupted. */
int rp_step_run(const rp_step_spec *spec, rp_step_result *res);

/* Frees res->out and clears *res. */
void rp_step_result_free(rp_step_result *res);

/* Signal number that interrupted the run (SIGINT, SIGTERM, SIGHUP, SIGQUIT),
 * or 0.
 * Delivers any signal still pending in the loop first, so it is exact
 * between steps (and after the stages, while the archive is written). */
int rp_runner_interrupted(void);

/* Marks the run interrupted as if signum had arrived (tests, and the engine
 * when it must stop for its own reasons). */
void rp_runner_request_interrupt(int signum);

/* Closes the signal handles and the loop (at exit; optional). */
void rp_runner_shutdown(void);

#endif
