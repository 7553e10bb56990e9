/* The step runner: uv_spawn, two pipes into two gzip logs, timeouts that end
 * the whole process tree, and the interrupt path (SIGINT, SIGTERM, and
 * SIGHUP and SIGQUIT on POSIX). */
#include "rp_runner.h"
#include "archive/rp_archive.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* Leftover processes get this long after the child exits to close the pipes
 * before repro stops reading them (a grandchild that left the group could
 * otherwise keep a step open forever). */
#define RP__DRAIN_S 5.0

/* A log that received bytes is flushed (Z_SYNC_FLUSH) this often while its
 * step runs, so that a repro killed outright (SIGKILL, a power loss) leaves
 * logs that decompress up to the last flush (docs/AUDIT.md, "Logs"). */
#define RP__FLUSH_MS 1000
#define RP__NTIMERS 5

typedef struct rp__step rp__step;

typedef struct {
  uv_pipe_t pipe;
  rp__step *st;
  rp_log *log;
  int is_err;
  int open;
  int unflushed; /* 1: bytes written to log since its last flush */
} rp__stream;

struct rp__step {
  const rp_step_spec *spec;
  rp_step_result *res;
  uv_process_t proc;
  rp__stream out, err;
  uv_timer_t timeout, grace, progress, drain, flush;
  int proc_open, exited;
  int timers_open;
  double t0;
  size_t cap;
  int log_error;
  int tty;
};

/* The signals that interrupt a run. SIGHUP (the terminal closing) is one
 * of them on POSIX: each step leads its own session, so the hang-up reaches
 * repro alone, and left to its default action it ended repro without a
 * manifest while the step's tree ran on. On Windows libuv reports the
 * console closing as SIGHUP too, but Windows ends the process a few
 * seconds later whatever it does, and the job object (plat_tree_track)
 * already ends the step's tree with it, so it is left alone there.
 * SIGQUIT (Ctrl-\) is an interrupt too on POSIX: its default ended repro
 * with a core and no manifest, the step's tree running on. */
static const int rp__signums[] = {
    SIGINT,
    SIGTERM,
#ifndef _WIN32
    SIGHUP,
    SIGQUIT,
#endif
};
#define RP__NSIG (sizeof rp__signums / sizeof rp__signums[0])

static uv_signal_t rp__sigs[RP__NSIG];
static int rp__inited;
static volatile int rp__interrupt_signal;
static rp__step *rp__active;

static void rp__end_tree(rp__step *st, int force) {
  if (st->proc_open && st->proc.pid > 0)
    plat_kill_tree(st->proc.pid, force);
}

static void rp__grace_cb(uv_timer_t *t) {
  rp__step *st = t->data;
  rp__end_tree(st, 1);
}

/* Starts the SIGTERM -> SIGKILL sequence once. */
static void rp__terminate(rp__step *st) {
  if (uv_is_active((uv_handle_t *)&st->grace))
    return;
  rp__end_tree(st, 0);
  uv_timer_start(
      &st->grace, rp__grace_cb,
      (uint64_t)((st->spec->grace_s > 0 ? st->spec->grace_s : 5.0) * 1000.0),
      0);
}

/* The first signal is the one that interrupted the run (the manifest's
 * interrupted_by); a second, sent while the steps end, changes nothing. */
static void rp__note_signal(int signum) {
  if (rp__interrupt_signal == 0)
    rp__interrupt_signal = signum;
}

/* A signal does what a requested interrupt does. */
static void rp__signal_cb(uv_signal_t *h, int signum) {
  (void)h;
  rp_runner_request_interrupt(signum);
}

int rp_runner_init(void) {
  size_t i;
  if (rp__inited)
    return CM_OK;
  for (i = 0; i < RP__NSIG; i++) {
    if (uv_signal_init(uv_default_loop(), &rp__sigs[i]) != 0)
      return CM_EINTERNAL;
#ifndef _WIN32
    /* A hang-up inherited ignored (nohup ./repro all) stays ignored: the
     * user asked for the run to outlive the terminal. (SIGINT and SIGTERM
     * are taken whatever they were: a shell starts background jobs with
     * SIGINT ignored, and a `kill -INT` must still reach repro.) */
    if (rp__signums[i] == SIGHUP) {
      struct sigaction old;
      if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
    }
#endif
    if (uv_signal_start(&rp__sigs[i], rp__signal_cb, rp__signums[i]) != 0)
      return CM_EINTERNAL;
    /* The handlers must not keep uv_run alive: a step's loop ends when the
     * step's own handles are closed. */
    uv_unref((uv_handle_t *)&rp__sigs[i]);
  }
  rp__inited = 1;
  return CM_OK;
}

void rp_runner_shutdown(void) {
  size_t i;
  if (!rp__inited)
    return;
  for (i = 0; i < RP__NSIG; i++)
    uv_close((uv_handle_t *)&rp__sigs[i], NULL);
  uv_run(uv_default_loop(), UV_RUN_DEFAULT);
  uv_loop_close(uv_default_loop());
  rp__inited = 0;
}

int rp_runner_interrupted(void) {
  size_t i;
  if (rp__inited && rp__active == NULL) {
    /* A loop with only unreferenced handles is not "alive" and uv_run
     * would return without polling; referencing the signal handles for one
     * non-blocking turn delivers a signal that arrived between steps. */
    for (i = 0; i < RP__NSIG; i++)
      uv_ref((uv_handle_t *)&rp__sigs[i]);
    uv_run(uv_default_loop(), UV_RUN_NOWAIT);
    for (i = 0; i < RP__NSIG; i++)
      uv_unref((uv_handle_t *)&rp__sigs[i]);
  }
  return rp__interrupt_signal;
}

void rp_runner_request_interrupt(int signum) {
  rp__note_signal(signum);
  if (rp__active != NULL && !rp__active->exited) {
    rp__active->res->interrupted = 1;
    rp__terminate(rp__active);
  }
}

void rp_step_result_free(rp_step_result *res) {
  free(res->out);
  memset(res, 0, sizeof *res);
}

static void rp__progress(rp__step *st, const char *state) {
  const rp_step_spec *sp = st->spec;
  double el = plat_monotonic_s() - st->t0;
  if (sp->quiet || sp->verbose)
    return;
  if (st->tty) {
    fprintf(stderr, "\r\033[K[%s] %s  %.0fs%s%s", sp->stage ? sp->stage : "",
            sp->step ? sp->step : "", el, state ? "  " : "",
            state ? state : "");
    if (state != NULL)
      fputc('\n', stderr);
  } else if (state != NULL) {
    fprintf(stderr, "[%s] %s: %s (%.1fs)\n", sp->stage ? sp->stage : "",
            sp->step ? sp->step : "", state, el);
  }
  fflush(stderr);
}

static void rp__progress_cb(uv_timer_t *t) {
  rp__progress(t->data, NULL);
}

static void rp__alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  static char mem[65536];
  /* One static buffer is enough: the loop reads one chunk at a time and
   * every chunk is consumed before the next read. */
  buf->base = mem;
  buf->len = sizeof mem;
}

static void rp__check_done(rp__step *st);

static void rp__closed_cb(uv_handle_t *h) {
  rp__step *st = h->data;
  /* Only the process and the timers come here (their data is the step). */
  if (h == (uv_handle_t *)&st->proc)
    st->proc_open = 0;
  else
    st->timers_open--;
}

/* A stream counts as finished as soon as its close is requested. */
static void rp__close_stream(rp__stream *s) {
  if (s->open && !uv_is_closing((uv_handle_t *)&s->pipe))
    uv_close((uv_handle_t *)&s->pipe, NULL);
  s->open = 0;
}

static void rp__capture(rp__step *st, const char *data, size_t n) {
  rp_step_result *res = st->res;
  size_t room;
  if (res->out_len >= st->cap)
    return;
  room = st->cap - res->out_len;
  if (n > room)
    n = room;
  memcpy(res->out + res->out_len, data, n);
  res->out_len += n;
  res->out[res->out_len] = '\0';
}

/* Keeps the last size-1 bytes seen in tail (NUL-terminated). */
static void rp__tail(char *tail, size_t size, const char *data, size_t n) {
  size_t have = strlen(tail), keep;
  if (n >= size - 1) {
    memcpy(tail, data + n - (size - 1), size - 1);
    tail[size - 1] = '\0';
    return;
  }
  keep = have + n > size - 1 ? size - 1 - n : have;
  memmove(tail, tail + have - keep, keep);
  memcpy(tail + keep, data, n);
  tail[keep + n] = '\0';
}

static void rp__read_cb(uv_stream_t *h, ssize_t n, const uv_buf_t *buf) {
  rp__stream *s = h->data;
  rp__step *st = s->st;
  if (n > 0) {
    if (s->is_err)
      st->res->err_bytes += (uint64_t)n;
    else
      st->res->out_bytes += (uint64_t)n;
    if (s->log != NULL && rp_log_write(s->log, buf->base, (size_t)n) != 0)
      st->log_error = 1;
    s->unflushed = 1;
    if (s->is_err)
      rp__tail(st->res->err_tail, sizeof st->res->err_tail, buf->base,
               (size_t)n);
    if (!s->is_err && st->spec->capture_stdout)
      rp__capture(st, buf->base, (size_t)n);
    if (st->spec->verbose) {
      fwrite(buf->base, 1, (size_t)n, s->is_err ? stderr : stdout);
      fflush(s->is_err ? stderr : stdout);
    }
    return;
  }
  if (n < 0) { /* UV_EOF or a read error: this stream is finished */
    uv_read_stop(h);
    rp__close_stream(s);
    rp__check_done(st);
  }
}

static void rp__flush_stream(rp__step *st, rp__stream *s) {
  if (s->log != NULL && s->unflushed && rp_log_flush(s->log) != 0)
    st->log_error = 1;
  s->unflushed = 0;
}

static void rp__flush_cb(uv_timer_t *t) {
  rp__step *st = t->data;
  rp__flush_stream(st, &st->out);
  rp__flush_stream(st, &st->err);
}

static void rp__drain_cb(uv_timer_t *t) {
  rp__step *st = t->data;
  /* A pipe still open here is held by a descendant that left the step's
   * group: whatever it prints from now on is not read, and the step's
   * record says so (its logs are cut). */
  if (st->out.open || st->err.open)
    st->res->output_cut = 1;
  rp__close_stream(&st->out);
  rp__close_stream(&st->err);
  rp__check_done(st);
}

static void rp__exit_cb(uv_process_t *p, int64_t status, int sig) {
  rp__step *st = p->data;
  st->exited = 1;
  st->res->exit_code = sig != 0 ? -1 : status;
  st->res->term_signal = sig;
  /* The step's verdict is now its exit status: a timeout that falls in the
   * drain below (a descendant that left the group holding the pipes) must
   * not turn an exit 0 into "timed out". */
  uv_timer_stop(&st->timeout);
  /* The step is its whole group: nothing of it may outlive it. The group
   * id stays valid while members remain, so the leader's pid still names
   * it after the leader exits. */
  plat_kill_tree(p->pid, 1);
  uv_timer_start(&st->drain, rp__drain_cb, (uint64_t)(RP__DRAIN_S * 1000), 0);
  rp__check_done(st);
}

static void rp__timeout_cb(uv_timer_t *t) {
  rp__step *st = t->data;
  /* an interrupted step is already being ended (SIGTERM, then SIGKILL after
   * the grace): it was interrupted, not timed out */
  if (st->exited || st->res->interrupted)
    return;
  st->res->timed_out = 1;
  rp__terminate(st);
}

/* When the child has exited and both pipes are at EOF, the step is over:
 * close everything so that uv_run returns. */
static void rp__check_done(rp__step *st) {
  uv_timer_t *timers[RP__NTIMERS];
  int i;
  if (!st->exited || st->out.open || st->err.open)
    return;
  if (uv_is_closing((uv_handle_t *)&st->timeout))
    return;
  st->res->duration_s = plat_monotonic_s() - st->t0;
  timers[0] = &st->timeout;
  timers[1] = &st->grace;
  timers[2] = &st->progress;
  timers[3] = &st->drain;
  timers[4] = &st->flush;
  for (i = 0; i < RP__NTIMERS; i++)
    uv_close((uv_handle_t *)timers[i], rp__closed_cb);
  if (st->proc_open)
    uv_close((uv_handle_t *)&st->proc, rp__closed_cb);
}

static int rp__open_logs(rp__step *st) {
  const rp_step_spec *sp = st->spec;
  rp_step_result *res = st->res;
  int r;
  if (sp->run_dir == NULL || sp->log_base == NULL)
    return CM_OK;
  if (cm_snprintf(res->out_log, sizeof res->out_log, "%s.stdout.log.gz",
                  sp->log_base) != CM_OK ||
      cm_snprintf(res->err_log, sizeof res->err_log, "%s.stderr.log.gz",
                  sp->log_base) != CM_OK)
    return CM_ERANGE;
  r = rp_log_open(sp->run_dir, res->out_log, &st->out.log);
  if (r != CM_OK) {
    cm_snprintf(res->error, sizeof res->error, "cannot open log %s/%s: %s",
                sp->run_dir, res->out_log, cm_strerror(r));
    return r;
  }
  r = rp_log_open(sp->run_dir, res->err_log, &st->err.log);
  if (r != CM_OK) /* the log that failed, not its stdout twin */
    cm_snprintf(res->error, sizeof res->error, "cannot open log %s/%s: %s",
                sp->run_dir, res->err_log, cm_strerror(r));
  return r;
}

static int rp__close_logs(rp__step *st) {
  int r1 = CM_OK, r2 = CM_OK;
  if (st->out.log != NULL)
    r1 = rp_log_close(st->out.log, NULL);
  if (st->err.log != NULL)
    r2 = rp_log_close(st->err.log, NULL);
  st->out.log = st->err.log = NULL;
  return r1 != CM_OK ? r1 : r2;
}

static int rp__uv_to_cm(int uverr) {
  switch (uverr) {
  case UV_ENOENT:
    return CM_ENOENT;
  case UV_EACCES:
  case UV_EPERM:
    return CM_EACCES;
  case UV_ENOMEM:
    return CM_ENOMEM;
  default:
    return CM_EIO;
  }
}

int rp_step_run(const rp_step_spec *spec, rp_step_result *res) {
  uv_loop_t *loop = uv_default_loop();
  uv_process_options_t opt;
  uv_stdio_container_t stdio[3];
  rp__step st;
  uv_timer_t *timers[RP__NTIMERS];
  int r, i;

  memset(res, 0, sizeof *res);
  memset(&st, 0, sizeof st);
  res->exit_code = -1;
  st.spec = spec;
  st.res = res;
  st.tty = plat_isatty(2);
  if (spec->argv == NULL || spec->argv[0] == NULL)
    return CM_EINVAL;
  if (rp_runner_interrupted()) {
    cm_strlcpy(res->error, "run interrupted before this step",
               sizeof res->error);
    res->interrupted = 1;
    return CM_EINTR;
  }
  if (spec->capture_stdout) {
    st.cap = spec->capture_limit > 0 ? spec->capture_limit : 16u << 20;
    res->out = malloc(st.cap + 1);
    if (res->out == NULL)
      return CM_ENOMEM;
    res->out[0] = '\0';
  }
  r = rp__open_logs(&st);
  if (r != CM_OK) {
    rp__close_logs(&st);
    return r;
  }

  st.out.st = st.err.st = &st;
  st.err.is_err = 1;
  uv_pipe_init(loop, &st.out.pipe, 0);
  uv_pipe_init(loop, &st.err.pipe, 0);
  st.out.pipe.data = &st.out;
  st.err.pipe.data = &st.err;
  st.out.open = st.err.open = 1;

  memset(&opt, 0, sizeof opt);
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
  stdio[1].data.stream = (uv_stream_t *)&st.out.pipe;
  stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
  stdio[2].data.stream = (uv_stream_t *)&st.err.pipe;
  opt.file = spec->argv[0];
  opt.args = (char **)spec->argv;
  opt.env = (char **)spec->env;
  opt.cwd = spec->cwd;
  opt.stdio = stdio;
  opt.stdio_count = 3;
  /* The child is kept apart from repro's terminal, so that a Ctrl-C there
   * reaches repro alone, which then decides what to do with the step.
   * POSIX: detached, i.e. the leader of a new session and process group,
   * which is also what lets plat_kill_tree end its descendants.
   * Windows: a console of its own, without a window (CREATE_NO_WINDOW,
   * which libuv sets for UV_PROCESS_WINDOWS_HIDE when no stdio is
   * inherited), and the console programs the step starts (compilers, the
   * tool's own workers) share it. Detached there means no console at all,
   * and then each of those programs gets a new console, each with a window
   * on the user's desktop. The job object (plat_tree_track) holds the tree. */
#ifdef _WIN32
  opt.flags = UV_PROCESS_WINDOWS_HIDE;
#else
  opt.flags = UV_PROCESS_DETACHED;
#endif
  opt.exit_cb = rp__exit_cb;
  st.proc.data = &st;

  st.t0 = plat_monotonic_s();
  r = uv_spawn(loop, &st.proc, &opt);
  if (r != 0) {
    cm_snprintf(res->error, sizeof res->error, "cannot start %s: %s",
                spec->argv[0], uv_strerror(r));
    /* A failed uv_spawn still registered the handle; close it with the
     * pipes so the loop is left clean. */
    uv_close((uv_handle_t *)&st.proc, NULL);
    uv_close((uv_handle_t *)&st.out.pipe, NULL);
    uv_close((uv_handle_t *)&st.err.pipe, NULL);
    uv_run(loop, UV_RUN_DEFAULT);
    rp__close_logs(&st);
    return rp__uv_to_cm(r);
  }
  res->spawned = 1;
  st.proc_open = 1;
  /* Windows puts the child in a job object here; POSIX needs nothing. */
  plat_tree_track(st.proc.pid);
  rp__active = &st;

  timers[0] = &st.timeout;
  timers[1] = &st.grace;
  timers[2] = &st.progress;
  timers[3] = &st.drain;
  timers[4] = &st.flush;
  for (i = 0; i < RP__NTIMERS; i++) {
    uv_timer_init(loop, timers[i]);
    timers[i]->data = &st;
  }
  st.timers_open = RP__NTIMERS;
  if (st.out.log != NULL)
    uv_timer_start(&st.flush, rp__flush_cb, RP__FLUSH_MS, RP__FLUSH_MS);
  if (spec->timeout_s > 0)
    uv_timer_start(&st.timeout, rp__timeout_cb,
                   (uint64_t)(spec->timeout_s * 1000.0), 0);
  if (st.tty && !spec->quiet && !spec->verbose)
    uv_timer_start(&st.progress, rp__progress_cb, 0, 1000);
  else if (!st.tty)
    rp__progress(&st, "started");
  uv_read_start((uv_stream_t *)&st.out.pipe, rp__alloc_cb, rp__read_cb);
  uv_read_start((uv_stream_t *)&st.err.pipe, rp__alloc_cb, rp__read_cb);
  /* A signal that arrived between steps is delivered now. */
  if (rp__interrupt_signal != 0) {
    res->interrupted = 1;
    rp__terminate(&st);
  }

  uv_run(loop, UV_RUN_DEFAULT);
  rp__active = NULL;
  plat_tree_release(st.proc.pid);

  {
    char state[128];
    if (res->timed_out)
      cm_snprintf(state, sizeof state, "timed out");
    else if (res->interrupted)
      cm_snprintf(state, sizeof state, "interrupted");
    else if (res->term_signal != 0)
      cm_snprintf(state, sizeof state, "killed by signal %d", res->term_signal);
    else
      cm_snprintf(state, sizeof state, "exit %lld", (long long)res->exit_code);
    rp__progress(&st, state);
  }
  r = rp__close_logs(&st);
  if (r == CM_OK && st.log_error)
    r = CM_EIO;
  if (r != CM_OK) {
    cm_snprintf(res->error, sizeof res->error, "log write failed: %s",
                cm_strerror(r));
    return r;
  }
  return CM_OK;
}
