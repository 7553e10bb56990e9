/* pf_timing.c: the benchmark harness (see pf_timing.h and
 * docs/BENCHMARKING.md for the method).
 *
 * One sampler times everything, ours and the peers' and the copy ceiling,
 * so that their numbers are comparable: warm-up by time, then samples each
 * bracketed by CUDA events on one stream, the L2 flushed before each sample
 * and input sets rotated when cold, until the coefficient of variation is
 * under target (after min_samples), the budget is spent, or max_samples.
 */
#include "pf_timing.h"

#include "cm_error.h"
#include "cm_str.h"
#include "cpk.h"
#include "pf_cucheck.h"
#include "pf_json.h"
#include "pf_nvml.h"
#include "pf_peer.h"
#include "platform.h"

#include <cuda_profiler_api.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The process environment, for the instrumentation scan. */
#ifdef _WIN32
#include <stdlib.h>
#define PF__ENVIRON ((char *const *)_environ)
#else
extern char **environ;
#define PF__ENVIRON ((char *const *)environ)
#endif

typedef int (*pf__launch_fn)(void *ctx, int set, cudaStream_t stream);

struct pf_bench {
  pf_bench_opts o;
  pf_results res;
  pf_nvml *nvml;
  struct pf_peer *peer;
  cudaStream_t stream;
  cudaEvent_t ev0, ev1;
  void *flush;
  size_t flush_bytes;
  unsigned *sink; /* scratch word of the read flush */
  int total, done;
  int warned_reasons; /* the unread throttle reasons were warned about */
  /* The hot samples' hold (cpk_hold_stream): mapped host words, NULL when
   * cold or when they could not be had (the samples then carry the host's
   * submission, as before 2026-12-06, and a warning says so). */
  volatile int *hold_go, *hold_late;
  int *hold_go_dev, *hold_late_dev;
  int hold_late_count; /* samples of the current series the hold outlived */
  double t0;
};

/* How long a hot sample's hold waits for the host to queue the launch
 * behind it: far over any launch's submission (microseconds; cuBLAS's
 * first-call heuristics happen in the warm-up), short enough that a launch
 * that synchronises inside costs little before the hold gives up. */
#define PF__HOLD_NS 50000000ULL

void pf_bench_opts_init(pf_bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->warmup_s = 0.05;
  o->min_samples = PF_BENCH_MIN_SAMPLES;
  o->max_samples = PF_BENCH_MAX_SAMPLES;
  o->target_cv = 0.02;
  o->budget_s = 2.0;
  o->cold = 1;
  o->peer_interleaved = 1;
  o->progress = 1;
  o->format = PF_FORMAT_JSON;
  o->sample_above_macs = -1;
}

struct pf_peer *pf_bench_peer(pf_bench *b) {
  return b ? b->peer : NULL;
}

void pf_bench_set_total(pf_bench *b, int total) {
  b->total = total;
}

int pf_bench_instrumented(const pf_bench *b) {
  return b->res.markers.count > 0;
}

static int push_sample(pf_series *s, size_t *cap, double v) {
  if (s->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    double *p = realloc(s->samples, nc * sizeof *p);
    if (p == NULL)
      return CM_ENOMEM;
    s->samples = p;
    *cap = nc;
  }
  s->samples[s->n++] = v;
  return CM_OK;
}

/* One arm of a sampled comparison: a launch and the series it fills. */
typedef struct {
  pf__launch_fn fn;
  void *ctx;
  pf_series *s;
  size_t cap;
  pf_running run;
} pf__arm;

/* One cold or hot sample of arm a: the flush (cold), then the launch
 * between the two events. k numbers the flushes, so the memset's value
 * changes every time. */
static int time_one(pf_bench *b, pf__arm *a, int set, int cold, size_t k) {
  float ms = 0.0f;
  cudaError_t e;
  int r;
  /* Hot: nothing queued ahead of the first event, so the event would be
   * recorded at once and the sample would carry the host's submission of
   * the launch. The hold keeps the stream busy until the launch and the
   * second event are queued behind it. (Cold: the flush does that.) */
  const int held = !cold && b->hold_go != NULL;
  if (held) {
    *b->hold_go = 0;
    *b->hold_late = 0;
    PF_CU(cpk_hold_stream(b->hold_go_dev, PF__HOLD_NS, b->hold_late_dev,
                          b->stream));
  }
  if (cold && b->flush != NULL) {
    if (b->o.flush == PF_FLUSH_READ)
      /* Reading a buffer of twice the L2 evicts whatever the previous
       * sample left there (writing back its dirty lines now) and leaves
       * clean lines. */
      PF_CU(cpk_l2_flush_read(b->flush, b->flush_bytes, b->sink, b->stream));
    else
      /* Writing a buffer of twice the L2 evicts whatever the previous
       * sample left there; the value changes so nothing can elide it. */
      PF_CU(cudaMemsetAsync(b->flush, (int)(k & 0xff), b->flush_bytes,
                            b->stream));
  }
  e = cudaEventRecord(b->ev0, b->stream);
  r = e == cudaSuccess
          ? a->fn(a->ctx, set, b->stream)
          : pf__cuda_fail(e, "cudaEventRecord(ev0)", __FILE__, __LINE__);
  if (r == CM_OK && (e = cudaEventRecord(b->ev1, b->stream)) != cudaSuccess)
    r = pf__cuda_fail(e, "cudaEventRecord(ev1)", __FILE__, __LINE__);
  if (held)
    *b->hold_go = 1; /* released on every path: never a held stream */
  if (r != CM_OK)
    return r;
  PF_CU(cudaEventSynchronize(b->ev1));
  PF_CU(cudaEventElapsedTime(&ms, b->ev0, b->ev1));
  if (held && *b->hold_late != 0)
    b->hold_late_count++;
  r = push_sample(a->s, &a->cap, ms * 1e-3);
  if (r == CM_OK)
    pf_running_add(&a->run, ms * 1e-3);
  return r;
}

/* Times narms arms (1, or 2: ours and the peer, interleaved) until a
 * stopping rule fires for all of them; fills each arm's series (samples
 * owned by it). With two arms every round takes one sample of each, in
 * alternating order (ours first in even rounds), so both see the same
 * clocks and power state through the run: their ratio is paired. The
 * stopping rule looks at every arm: the coefficient of variation must be
 * under target for all. range_name non-NULL: after warm-up, one extra
 * launch of arm 0 is wrapped in an NVTX range and cudaProfilerStart/Stop,
 * for capture-range profiling. On failure *failed is the arm that failed. */
static int sample_arms(pf_bench *b, pf__arm *arms, int narms, int nsets,
                       int cold, const char *range_name, int *failed) {
  double t, start;
  int r, j, w = 0, all_cv;
  size_t n = 0;
  if (nsets < 1)
    nsets = 1;
  *failed = 0;
  for (j = 0; j < narms; j++) {
    memset(arms[j].s, 0, sizeof *arms[j].s);
    arms[j].cap = 0;
    pf_running_init(&arms[j].run);
  }

  /* Warm-up by time, not by count: what a kernel needs (module load, clock
   * ramp, cuBLAS heuristics) takes time, whatever the kernel's length.
   * Arms take turns, each at least once. */
  start = plat_monotonic_s();
  do {
    for (j = 0; j < narms; j++) {
      *failed = j;
      r = arms[j].fn(arms[j].ctx, w % nsets, b->stream);
      if (r != CM_OK)
        return r;
      PF_CU(cudaStreamSynchronize(b->stream));
    }
    w++;
    t = plat_monotonic_s() - start;
  } while (t < b->o.warmup_s);
  for (j = 0; j < narms; j++) {
    arms[j].s->warmup_s = t;
    arms[j].s->warmup_launches = w;
  }

  if (range_name != NULL) {
    *failed = 0;
    nvtxRangePushA(range_name);
    PF_CU(cudaProfilerStart());
    r = arms[0].fn(arms[0].ctx, 0, b->stream);
    PF_CU(cudaStreamSynchronize(b->stream));
    PF_CU(cudaProfilerStop());
    nvtxRangePop();
    if (r != CM_OK)
      return r;
  }

  start = plat_monotonic_s();
  for (;;) {
    const char *stop = NULL;
    int set = cold ? (int)(n % (size_t)nsets) : 0;
    for (j = 0; j < narms; j++) {
      const int arm = (n % 2 == 1 && narms == 2) ? 1 - j : j;
      *failed = arm;
      r = time_one(b, &arms[arm], set, cold, n * (size_t)narms + (size_t)j);
      if (r != CM_OK)
        return r;
    }
    n++;
    all_cv = 1;
    for (j = 0; j < narms; j++)
      all_cv = all_cv && pf_running_cv(&arms[j].run) < b->o.target_cv;
    if ((int)n >= b->o.max_samples)
      stop = "max_samples";
    else if ((int)n >= b->o.min_samples && all_cv)
      stop = "target_cv";
    else if ((int)n >= b->o.min_samples &&
             plat_monotonic_s() - start >= b->o.budget_s)
      stop = "budget";
    if (stop != NULL) {
      for (j = 0; j < narms; j++)
        cm_strlcpy(arms[j].s->stop_reason, stop, sizeof arms[j].s->stop_reason);
      break;
    }
  }
  for (j = 0; j < narms; j++) {
    *failed = j;
    r = pf_stats_compute(arms[j].s->samples, arms[j].s->n, &arms[j].s->stats);
    if (r != CM_OK)
      return r;
  }
  return CM_OK;
}

/* Times fn alone until a stopping rule fires; fills *s (samples owned by
 * *s). range_name: as sample_arms. */
static int sample(pf_bench *b, pf__launch_fn fn, void *ctx, int nsets, int cold,
                  const char *range_name, pf_series *s) {
  pf__arm a;
  int failed;
  memset(&a, 0, sizeof a);
  a.fn = fn;
  a.ctx = ctx;
  a.s = s;
  return sample_arms(b, &a, 1, nsets, cold, range_name, &failed);
}

static void warn(pf_bench *b, const char *msg) {
  fprintf(stderr, "cuda_portfolio: warning: %s\n", msg);
  pf_results_warn(&b->res, "%s", msg);
}

/* NVML's violation counters between two readings a and z: *power_us and
 * *thermal_us get their growth. When they grew, warns "HEAD: NVML's
 * violation counters grew by ... (thermal)TAIL" and returns 1; 0 when they
 * did not, or could not be read (*ok says which: pf_nvml_violation_us). */
static int violation_between(pf_bench *b, const pf_nvml_snapshot *a,
                             const pf_nvml_snapshot *z, const char *head,
                             const char *tail, int *ok, double *power_us,
                             double *thermal_us) {
  char msg[640];
  *ok = pf_nvml_violation_us(a, z, power_us, thermal_us);
  if (!*ok || !(*power_us > 0 || *thermal_us > 0))
    return 0;
  cm_snprintf(msg, sizeof msg,
              "%s: NVML's violation counters grew by %.0f us (power) and "
              "%.0f us (thermal)%s",
              head, *power_us, *thermal_us, tail);
  warn(b, msg);
  return 1;
}

void pf_bench_set_unverified(pf_bench *b, int n) {
  char msg[256];
  if (b == NULL || n <= 0)
    return;
  b->res.unverified = n;
  cm_snprintf(msg, sizeof msg,
              "%d case(s) failed verification and were not timed (see the "
              "FAIL lines): the run is not clean",
              n);
  warn(b, msg);
}

void pf_bench_set_not_timed(pf_bench *b, int not_timed, int stopped, int done) {
  char msg[320];
  if (b == NULL || not_timed <= 0)
    return;
  b->res.not_timed = not_timed;
  b->res.stopped = stopped;
  if (stopped)
    cm_snprintf(msg, sizeof msg,
                "the run stopped after %d case(s) (see the error above): %d "
                "case(s) of the selection were never timed; the file is "
                "incomplete and the run is not clean",
                done, not_timed);
  else
    cm_snprintf(msg, sizeof msg,
                "%d case(s) of the selection were skipped on this device (see "
                "the SKIP lines) and never timed: the file is incomplete",
                not_timed);
  warn(b, msg);
}

/* Times fn alone (one input set) into c's series. c is measured when a
 * positive median came out; otherwise c says why not ("WHAT not measured:
 * ...") and the run warns. Returns whether c was measured. */
static int measure_one(pf_bench *b, pf__launch_fn fn, void *ctx, int cold,
                       const char *what, pf_ceiling *c) {
  int r = sample(b, fn, ctx, 1, cold, NULL, &c->series);
  if (r == CM_OK && c->series.stats.median > 0) {
    c->measured = 1;
    return 1;
  }
  cm_snprintf(c->absent_reason, sizeof c->absent_reason, "%s not measured: %s",
              what, r == CM_OK ? "no positive median" : cm_strerror(r));
  warn(b, c->absent_reason);
  return 0;
}

typedef struct {
  const void *buf;
  size_t bytes;
  unsigned *sink;
} pf__read_ctx;

static int read_launch(void *ctx, int set, cudaStream_t stream) {
  pf__read_ctx *c = ctx;
  (void)set;
  PF_CU(cpk_read_stream(c->buf, c->bytes, c->sink, stream));
  return CM_OK;
}

/* Reading alone, the copy's source buffer (8 x L2 at least), timed as every
 * case: the rate no kernel can beat, whatever its mix of reads and writes
 * (a kernel that mostly reads can beat the copy's). A failure here is a
 * warning: the roofline then rests on the copy alone. */
static void measure_read_ceiling(pf_bench *b, const void *buf, size_t bytes) {
  pf_ceiling *c = &b->res.read;
  pf__read_ctx rc;
  rc.buf = buf;
  rc.bytes = bytes;
  rc.sink = b->sink;
  c->bytes = (double)bytes;
  if (measure_one(b, read_launch, &rc, 1, "read ceiling", c))
    c->gbps = (double)bytes / c->series.stats.median / 1e9;
}

static int measure_copy_ceiling(pf_bench *b) {
  pf_copy_ceiling cc;
  pf_ceiling *c = &b->res.copy;
  void *src = NULL, *dst = NULL;
  int r = CM_OK;
  memset(&cc, 0, sizeof cc);
  cc.bytes = pf_peer_copy_bytes((size_t)b->res.env.l2_bytes);
  c->bytes = (double)cc.bytes;
  PF_CU_GOTO(cudaMalloc(&src, cc.bytes), r, out);
  PF_CU_GOTO(cudaMalloc(&dst, cc.bytes), r, out);
  PF_CU_GOTO(cudaMemset(src, 0x5a, cc.bytes), r, out);
  cc.src = src;
  cc.dst = dst;
  r = sample(b, pf_peer_copy_launch, &cc, 1, 1, NULL, &c->series);
  if (r == CM_OK && c->series.stats.median > 0) {
    c->measured = 1;
    c->gbps = 2.0 * (double)cc.bytes / c->series.stats.median / 1e9;
    measure_read_ceiling(b, src, cc.bytes);
  }
out:
  if (r != CM_OK)
    cm_snprintf(c->absent_reason, sizeof c->absent_reason,
                "copy ceiling not measured: %s", cm_strerror(r));
  cudaFree(src);
  cudaFree(dst);
  return r;
}

static int empty_launch(void *ctx, int set, cudaStream_t stream) {
  (void)ctx;
  (void)set;
  PF_CU(cpk_empty_launch(stream));
  return CM_OK;
}

/* The fixed cost of one timed launch: an empty kernel through the same
 * sampler and flush as every case. A case whose work takes F at the copy
 * ceiling cannot report more than about F / (F + this) of it. */
static void measure_launch_floor(pf_bench *b) {
  (void)measure_one(b, empty_launch, NULL, b->o.cold, "launch floor",
                    &b->res.launch_floor);
}

static void check_processes(pf_bench *b) {
  unsigned pids[8];
  char msg[256];
  int i, n, used = 0;
  n = pf_nvml_other_processes(b->nvml, pf_env_self_pid(), pids, 8);
  b->res.other_processes = n;
  if (n < 0) {
    warn(b, "cannot list the GPU's compute processes (NVML absent or "
            "unsupported): the GPU may be shared; the run is not clean");
    return;
  }
  if (n == 0)
    return;
  used = 0;
  cm_snprintf(msg, sizeof msg,
              "%d other compute process(es) on the GPU "
              "(pids",
              n);
  used = (int)strlen(msg);
  for (i = 0; i < n && i < 8; i++) {
    cm_snprintf(msg + used, sizeof msg - (size_t)used, " %u", pids[i]);
    used = (int)strlen(msg);
  }
  cm_snprintf(msg + used, sizeof msg - (size_t)used,
              "): timings may be disturbed; the run is not clean");
  warn(b, msg);
}

/* The GPU's other compute processes again, after a case: a co-tenant that
 * started after the run opened would otherwise never be seen. Said once,
 * with the case it was first seen after. */
static void recheck_processes(pf_bench *b, const char *range) {
  unsigned pids[8];
  char msg[256];
  int n;
  if (b->res.other_processes != 0)
    return; /* already said (some, or cannot list) */
  n = pf_nvml_other_processes(b->nvml, pf_env_self_pid(), pids, 8);
  if (n <= 0)
    return;
  b->res.other_processes = n;
  cm_snprintf(msg, sizeof msg,
              "%d other compute process(es) on the GPU appeared during the "
              "run (first seen after %s; pid %u): timings may be disturbed; "
              "the run is not clean",
              n, range, pids[0]);
  warn(b, msg);
}

static void bench_free(pf_bench *b) {
  if (b == NULL)
    return;
  if (b->flush)
    cudaFree(b->flush);
  if (b->sink)
    cudaFree(b->sink);
  if (b->hold_go)
    cudaFreeHost((void *)b->hold_go);
  if (b->ev0)
    cudaEventDestroy(b->ev0);
  if (b->ev1)
    cudaEventDestroy(b->ev1);
  if (b->stream)
    cudaStreamDestroy(b->stream);
  pf_peer_close(b->peer);
  pf_nvml_close(b->nvml);
  pf_results_free(&b->res);
  (void)cudaGetLastError();
  free(b);
}

/* Environment variables that change how the kernels launch (read by
 * kernels/), for side-by-side runs only: a run with one set is flagged. */
static const struct {
  const char *name, *effect;
} pf__knobs[] = {
    {"CPK_FUSED_PERSIST", "FUSED wide-row clusters do not launch as the "
                          "default persistent grid"},
    {"CPK_MM_TMA_STORE", "the HOPPER matmul may not write C by TMA stores "
                         "(its default epilogue)"},
    {"CPK_FUSED_GRID", "FUSED's grid path (the widest rows) may be off"},
    {"CPK_GRID_MIN", "FUSED's grid path takes rows its table does not "
                     "(other widths, other ops)"},
    {"CPK_SEG", "FUSED row_sum's segment path (the widest rows) may be off"},
    {"CPK_SEG_MIN", "FUSED row_sum's segment path takes other widths than "
                    "its default"},
    {"CPK_SKEW", "FUSED's skew path (softmax, softmax_bwd, rmsnorm and "
                 "rmsnorm_bwd's widest rows) may be off"},
    {"CPK_SKEW_MIN", "FUSED's skew path takes other widths than its default"},
    {"CPK_SKEW_L",
     "FUSED's skew path runs another lag (in steps) than its default"},
    {"CPK_SKEW_G", "FUSED's skew path runs on fewer blocks than resident"},
    {"CPK_SKEW_RING", "FUSED's skew path takes its ring (v23) on other "
                      "rows than its default (0: none, 1 or 2: all it can)"},
    {"CPK_RING_L", "the skew path's ring variant runs another lag"},
};

int pf_bench_open(const pf_bench_opts *o, pf_bench **out) {
  pf_nvml_snapshot before, after;
  pf_bench *b;
  int r = CM_OK, m;
  char msg[512];
  const char *knob;
  size_t used, k;
  *out = NULL;
  if (o == NULL || o->min_samples < 1 || o->max_samples < o->min_samples ||
      !(o->warmup_s >= 0) || !(o->budget_s >= 0) || !(o->target_cv >= 0))
    return CM_EINVAL;
  b = calloc(1, sizeof *b);
  if (b == NULL)
    return CM_ENOMEM;
  b->o = *o;
  b->t0 = plat_monotonic_s();
  pf_results_init(&b->res);
  b->res.opts = *o;
  pf_env_host(&b->res.env, o->argc, o->argv);
  pf_instrument_detect(PF__ENVIRON, &b->res.markers);
  if (b->res.markers.count > 0) {
    cm_strlcpy(msg, "instrumented run (markers:", sizeof msg);
    for (m = 0; m < b->res.markers.count; m++) {
      used = strlen(msg);
      cm_snprintf(msg + used, sizeof msg - used, " %s",
                  b->res.markers.names[m]);
    }
    used = strlen(msg);
    cm_snprintf(msg + used, sizeof msg - used,
                "): these timings are not clean");
    warn(b, msg);
  }
  for (k = 0; k < sizeof pf__knobs / sizeof pf__knobs[0]; k++) {
    knob = getenv(pf__knobs[k].name);
    if (knob == NULL)
      continue;
    b->res.launch_knobs = 1;
    cm_snprintf(msg, sizeof msg,
                "%s=%s is set: %s; side-by-side timings, not the default "
                "kernels' (docs/BENCHMARKING.md)",
                pf__knobs[k].name, knob, pf__knobs[k].effect);
    warn(b, msg);
  }

  PF_CU_GOTO(cudaSetDevice(o->device), r, fail);
  r = pf_env_device(&b->res.env, o->device);
  if (r != CM_OK)
    goto fail;
  b->nvml = pf_nvml_open(b->res.env.pci_bus_id);
  pf_env_nvml(&b->res.env, b->nvml);
  if (!b->res.env.have_nvml) {
    cm_snprintf(msg, sizeof msg,
                "NVML absent (%s): no clocks, "
                "temperature, power or throttle reasons",
                b->res.env.nvml_absent_reason);
    warn(b, msg);
  }
  check_processes(b);
  /* --lock-clocks: before anything is measured, the copy ceiling included,
   * so that the whole run is at the locked clocks. pf_nvml_close (in
   * bench_free) resets them, and a signal does meanwhile. */
  if (o->lock_sm_mhz > 0) {
    char why[400], mem[32] = "as found";
    r = pf_nvml_lock_clocks(b->nvml, o->lock_sm_mhz, o->lock_mem_mhz, why,
                            sizeof why);
    if (r != CM_OK) {
      fprintf(stderr, "cuda_portfolio: --lock-clocks: %s\n", why);
      r = CM_EREFUSED;
      goto fail;
    }
    if (o->lock_mem_mhz > 0)
      cm_snprintf(mem, sizeof mem, "%u MHz", o->lock_mem_mhz);
    cm_snprintf(msg, sizeof msg,
                "clocks locked for this run by --lock-clocks (SM %u MHz, "
                "memory %s): its absolute times hold at those clocks",
                o->lock_sm_mhz, mem);
    warn(b, msg);
  }

  PF_CU_GOTO(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking), r,
             fail);
  PF_CU_GOTO(cudaEventCreate(&b->ev0), r, fail);
  PF_CU_GOTO(cudaEventCreate(&b->ev1), r, fail);
  /* Twice the L2, as the L2 need not evict in strict LRU order. */
  b->flush_bytes = 2 * (size_t)b->res.env.l2_bytes;
  if (b->flush_bytes == 0)
    b->flush_bytes = (size_t)128 << 20;
  PF_CU_GOTO(cudaMalloc(&b->flush, b->flush_bytes), r, fail);
  /* Defined contents for the read flush (it reads them). */
  PF_CU_GOTO(cudaMemset(b->flush, 0, b->flush_bytes), r, fail);
  PF_CU_GOTO(cudaMalloc((void **)&b->sink, sizeof *b->sink), r, fail);
  PF_CU_GOTO(cudaMemset(b->sink, 0, sizeof *b->sink), r, fail);
  if (!o->cold) {
    /* the hot samples' hold: two words of mapped host memory */
    void *h = NULL, *d = NULL;
    if (cudaHostAlloc(&h, 2 * sizeof(int), cudaHostAllocMapped) ==
            cudaSuccess &&
        cudaHostGetDevicePointer(&d, h, 0) == cudaSuccess) {
      b->hold_go = (volatile int *)h;
      b->hold_late = b->hold_go + 1;
      b->hold_go_dev = (int *)d;
      b->hold_late_dev = b->hold_go_dev + 1;
      b->res.hot_held = 1;
    } else {
      if (h != NULL)
        cudaFreeHost(h);
      (void)cudaGetLastError();
      warn(b, "no mapped host memory for the hot samples' hold: each hot "
              "sample includes the host's time to submit its launch");
    }
  }
  r = pf_peer_open(&b->peer);
  if (r != CM_OK)
    goto fail;
  /* The ceilings are timings too, and every case's fraction and roofline
   * rests on them: a throttled copy ceiling makes every case look closer
   * to it. Their clocks are checked as a case's are. */
  pf_nvml_read(b->nvml, &before);
  r = measure_copy_ceiling(b);
  if (r != CM_OK) {
    warn(b, b->res.copy.absent_reason);
    r = CM_OK; /* cases are still timed; fractions become null */
  }
  measure_launch_floor(b);
  pf_nvml_read(b->nvml, &after);
  if (b->res.env.have_nvml && (!before.reasons_ok || !after.reasons_ok)) {
    /* what could not be checked counts against the run, as for a case */
    b->res.ceilings_throttled = 1;
    warn(b, "NVML could not read the throttle reasons before or after the "
            "ceilings were measured: throttling cannot be ruled out, and "
            "every fraction and roofline rests on them; the run is not "
            "clean");
  } else if ((before.reasons_ok && pf_nvml_reasons_throttle(before.reasons)) ||
             (after.reasons_ok && pf_nvml_reasons_throttle(after.reasons))) {
    char names[256];
    b->res.ceilings_throttled = 1;
    pf_nvml_reason_names(before.reasons | after.reasons, names, sizeof names);
    cm_snprintf(msg, sizeof msg,
                "GPU throttled while the ceilings were measured (%s): the "
                "fractions of the copy ceiling and the roofline rest on "
                "them; the run is not clean",
                names);
    warn(b, msg);
  }
  if (violation_between(b, &before, &after,
                        "GPU throttled while the ceilings were measured",
                        " meanwhile; the fractions of the copy ceiling and "
                        "the roofline rest on them; the run is not clean",
                        &b->res.ceil_viol_ok, &b->res.ceil_viol_power_us,
                        &b->res.ceil_viol_thermal_us))
    b->res.ceilings_throttled = 1;
  *out = b;
  return CM_OK;
fail:
  bench_free(b);
  return r;
}

static void shape_string(const pf_case_info *in, char *buf, size_t size) {
  if (in->ndims >= 3)
    cm_snprintf(buf, size, "%lldx%lldx%lld", (long long)in->dims[0],
                (long long)in->dims[1], (long long)in->dims[2]);
  else if (in->ndims == 2)
    cm_snprintf(buf, size, "%lldx%lld", (long long)in->dims[0],
                (long long)in->dims[1]);
  else
    cm_snprintf(buf, size, "%lld", (long long)in->dims[0]);
}

static void progress(pf_bench *b, const pf_case_result *c) {
  if (!b->o.progress || !plat_isatty(2))
    return;
  if (b->total > 0)
    fprintf(stderr, "\r[%d/%d] %s %s %s %s  elapsed %.1fs\033[K", b->done + 1,
            b->total, c->op, c->variant, c->dtype, c->shape,
            plat_monotonic_s() - b->t0);
  else
    fprintf(stderr, "\r[%d] %s %s %s %s  elapsed %.1fs\033[K", b->done + 1,
            c->op, c->variant, c->dtype, c->shape, plat_monotonic_s() - b->t0);
  fflush(stderr);
}

int pf_bench_case(pf_bench *b, const pf_timed_case *tc, double max_abs_err,
                  double max_rel_err, double rtol, double atol) {
  pf_case_result *c;
  char range[256], msg[512];
  const char *why;
  size_t idx;
  int r, rr = CM_OK;
  if (b == NULL || tc == NULL || tc->launch == NULL)
    return CM_EINVAL;
  r = pf_results_add_case(&b->res, &c);
  if (r != CM_OK)
    return r;
  idx = b->res.ncases - 1;
  cm_strlcpy(c->op, tc->info.op ? tc->info.op : "", sizeof c->op);
  cm_strlcpy(c->variant, tc->info.variant ? tc->info.variant : "",
             sizeof c->variant);
  cm_strlcpy(c->dtype, tc->info.dtype ? tc->info.dtype : "", sizeof c->dtype);
  shape_string(&tc->info, c->shape, sizeof c->shape);
  memcpy(c->dims, tc->info.dims, sizeof c->dims);
  c->ndims = tc->info.ndims;
  c->stride = tc->info.stride;
  c->logical_bytes = tc->info.logical_bytes;
  c->flops = tc->info.flops;
  c->cold = b->o.cold;
  c->nsets = b->o.cold ? (tc->nsets > 0 ? tc->nsets : 1) : 1;
  c->passed = 1; /* the caller passes only verified cases */
  c->max_abs_err = max_abs_err;
  c->max_rel_err = max_rel_err;
  c->rtol = rtol;
  c->atol = atol;
  c->rounding_checked = tc->info.rounding_checked;
  c->rounding = tc->info.rounding;
  c->sampled = tc->info.sampled;
  progress(b, c);

  cm_snprintf(range, sizeof range, "%s/%s/%s/%s", c->op, c->variant, c->dtype,
              c->shape);
  if (tc->peer_launch != NULL)
    cm_strlcpy(c->peer.name,
               tc->peer_name ? tc->peer_name : pf_peer_name(c->op),
               sizeof c->peer.name);
  pf_nvml_read(b->nvml, &c->before);
  b->hold_late_count = 0;
  if (tc->peer_launch != NULL && b->o.peer_interleaved) {
    /* Ours and the peer sample by sample (the recheck, after, launches
     * ours afresh, so the peer may share our output buffers). A failing
     * peer leaves ours to be sampled alone. */
    pf__arm arms[2];
    int failed = 0;
    memset(arms, 0, sizeof arms);
    arms[0].fn = tc->launch;
    arms[0].ctx = tc->ctx;
    arms[0].s = &c->series;
    arms[1].fn = tc->peer_launch;
    arms[1].ctx = tc->ctx;
    arms[1].s = &c->peer.series;
    r = sample_arms(b, arms, 2, c->nsets, c->cold,
                    b->o.profile_range ? range : NULL, &failed);
    if (r == CM_OK) {
      c->peer.present = 1;
    } else if (failed == 1) {
      cm_snprintf(c->peer.absent_reason, sizeof c->peer.absent_reason,
                  "peer %s failed: %s", c->peer.name, cm_strerror(r));
      warn(b, c->peer.absent_reason);
      free(c->peer.series.samples);
      memset(&c->peer.series, 0, sizeof c->peer.series);
      free(c->series.samples);
      r = sample(b, tc->launch, tc->ctx, c->nsets, c->cold,
                 b->o.profile_range ? range : NULL, &c->series);
    }
  } else {
    r = sample(b, tc->launch, tc->ctx, c->nsets, c->cold,
               b->o.profile_range ? range : NULL, &c->series);
  }
  pf_nvml_read(b->nvml, &c->after);
  /* sample() may have grown nothing in res, but keep c fresh anyway. */
  c = &b->res.cases[idx];
  if (b->hold_late_count > 0) {
    c->hold_late = b->hold_late_count;
    cm_snprintf(msg, sizeof msg,
                "%s: %d hot sample(s) outlived their hold (%.0f ms): the "
                "launch took longer to submit, or waited inside, so those "
                "samples include host time",
                range, b->hold_late_count, (double)PF__HOLD_NS / 1e6);
    warn(b, msg);
  }
  recheck_processes(b, range);
  c->profiled = b->o.profile_range && r == CM_OK;
  if (r != CM_OK) {
    c->passed = 0;
    cm_snprintf(msg, sizeof msg, "%s: timing failed: %s", range,
                cm_strerror(r));
    warn(b, msg);
    b->done++;
    return r;
  }
  /* a series whose median is not a positive time measured nothing the
   * file could stand on (an event pair that read 0.0 ms): the case is not
   * passed, so the run is not clean */
  if (!(c->series.stats.median > 0)) {
    c->passed = 0;
    cm_snprintf(msg, sizeof msg,
                "%s: the samples' median is %g s, not a positive time: the "
                "case's timing is not usable",
                range, c->series.stats.median);
    warn(b, msg);
  }
  c->throttled =
      (c->before.reasons_ok && pf_nvml_reasons_throttle(c->before.reasons)) ||
      (c->after.reasons_ok && pf_nvml_reasons_throttle(c->after.reasons));
  if (c->throttled) {
    char names[256];
    pf_nvml_reason_names(c->before.reasons | c->after.reasons, names,
                         sizeof names);
    cm_snprintf(msg, sizeof msg, "%s: GPU throttled while sampled (%s)", range,
                names);
    warn(b, msg);
  }
  /* The reasons are instant readings; the violation counters see a
   * throttle that came and went between them. */
  cm_snprintf(msg, sizeof msg, "%s: GPU throttled while sampled", range);
  if (violation_between(b, &c->before, &c->after, msg,
                        " between the readings before the warm-up and after "
                        "the samples",
                        &c->viol_ok, &c->viol_power_us, &c->viol_thermal_us))
    c->throttled = 1;
  /* Without NVML the run has said so already. With it, a reading that
   * failed leaves throttling possible: said once, and the run is not clean
   * (pf_results_clean). */
  if (b->res.env.have_nvml && !b->warned_reasons &&
      (!c->before.reasons_ok || !c->after.reasons_ok)) {
    b->warned_reasons = 1;
    cm_snprintf(msg, sizeof msg,
                "%s: NVML could not read the throttle reasons before or "
                "after the samples: throttling cannot be ruled out; the run "
                "is not clean",
                range);
    warn(b, msg);
  }

  /* The recheck launches ours afresh into poisoned outputs, so the peer
   * (before or after it) may share our output buffers. */
  if (tc->recheck != NULL) {
    rr = tc->recheck(tc->ctx);
    c->rechecked = 1;
    c->recheck_passed = rr == CM_OK;
    if (rr != CM_OK) {
      cm_snprintf(msg, sizeof msg,
                  "%s: outputs failed verification after "
                  "timing (%s)",
                  range, cm_strerror(rr));
      warn(b, msg);
    }
  } else {
    cm_snprintf(msg, sizeof msg, "%s: no recheck after timing", range);
    warn(b, msg);
  }

  if (tc->peer_launch != NULL && b->o.peer_interleaved) {
    /* sampled with ours above */
  } else if (tc->peer_launch != NULL) {
    pf_nvml_snapshot pafter;
    r = sample(b, tc->peer_launch, tc->ctx, c->nsets, c->cold, NULL,
               &c->peer.series);
    /* sequential: the peer's samples came after the case's "after"
     * reading, and the peer ratio rests on them too */
    pf_nvml_read(b->nvml, &pafter);
    c = &b->res.cases[idx];
    if (pafter.reasons_ok && pf_nvml_reasons_throttle(pafter.reasons)) {
      char names[256];
      c->throttled = 1;
      pf_nvml_reason_names(pafter.reasons, names, sizeof names);
      cm_snprintf(msg, sizeof msg,
                  "%s: GPU throttled while the peer was sampled (%s)", range,
                  names);
      warn(b, msg);
    } else if (b->res.env.have_nvml && !pafter.reasons_ok) {
      c->peer_reasons_unread = 1; /* not ruled out: not clean */
    }
    if (c->viol_ok) {
      double pw = 0, th = 0;
      int ok;
      cm_snprintf(msg, sizeof msg,
                  "%s: GPU throttled while the peer was sampled", range);
      if (violation_between(b, &c->after, &pafter, msg, "", &ok, &pw, &th))
        c->throttled = 1;
      c->viol_ok = ok; /* the peer's part uncounted: the whole unknown */
      c->viol_power_us += pw;
      c->viol_thermal_us += th;
    }
    if (r == CM_OK) {
      c->peer.present = 1;
    } else {
      cm_snprintf(c->peer.absent_reason, sizeof c->peer.absent_reason,
                  "peer %s failed: %s", c->peer.name, cm_strerror(r));
      warn(b, c->peer.absent_reason);
    }
  } else {
    why = pf_peer_absent_reason(b->peer, c->op);
    if (pf_peer_name(c->op) != NULL)
      cm_strlcpy(c->peer.name, pf_peer_name(c->op), sizeof c->peer.name);
    cm_strlcpy(c->peer.absent_reason,
               why ? why
                   : "the runner gave no peer launch for this case (the "
                     "library does not cover it, e.g. a masked softmax)",
               sizeof c->peer.absent_reason);
  }

  pf_case_derive(c, &b->res.copy, &b->res.read);
  if (c->suspicious) {
    cm_snprintf(msg, sizeof msg, "%s: suspicious result: %s", range,
                c->suspicious_reason);
    warn(b, msg);
  }
  b->done++;
  if (b->o.progress && plat_isatty(2) && b->total > 0 && b->done == b->total)
    fputc('\n', stderr);
  return rr == CM_OK ? CM_OK : (rr == CM_EVERIFY ? CM_EVERIFY : rr);
}

int pf_bench_close(pf_bench *b, const char *path) {
  json_t *doc;
  int r = CM_OK;
  if (b == NULL)
    return CM_EINVAL;
  if (path != NULL) {
    doc = b->o.format == PF_FORMAT_GBENCH ? pf_gbench_document(&b->res)
                                          : pf_json_document(&b->res);
    r = doc ? pf_json_write_file(doc, path) : CM_ENOMEM;
    json_decref(doc);
  }
  bench_free(b);
  return r;
}
