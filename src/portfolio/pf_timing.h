/* pf_timing.h: benchmark hygiene for verified cases (`--json PATH`).
 *
 * Lifecycle: the CLI fills pf_bench_opts (defaults from pf_bench_opts_init),
 * opens one pf_bench per run (this measures the copy-bandwidth ceiling and
 * records the environment), hands it each case after the case has passed
 * verification (pf_bench_case), and closes it, which writes the results file.
 * Timing never starts for a case that failed verification: the caller does
 * not pass such a case here.
 */
#ifndef PF_TIMING_H
#define PF_TIMING_H

#include "pf_bench.h"

typedef enum { PF_FORMAT_JSON = 0, PF_FORMAT_GBENCH = 1 } pf_format;

/* The sample counts' defaults (pf_bench_opts_init), which the command line
 * checks one option given alone against. */
#define PF_BENCH_MIN_SAMPLES 10
#define PF_BENCH_MAX_SAMPLES 1000

typedef struct {
  double warmup_s;       /* warm-up by time, per case (default 0.05 s) */
  int min_samples;       /* at least this many samples (default 10) */
  int max_samples;       /* at most (default 1000) */
  double target_cv;      /* stop when the coefficient of variation of the
                            samples is under this (default 0.02) */
  double budget_s;       /* time budget per case, after warm-up (default 2 s) */
  int cold;              /* 1: flush L2 between samples and rotate input sets
                            (default); 0: hot, reported as hot */
  pf_flush flush;        /* how a cold sample flushes (default WRITE) */
  int peer_interleaved;  /* 1 (default): ours and the peer sampled in
                            alternation, one series each; 0: ours, then the
                            peer (--peer-sampling sequential) */
  int profile_range;     /* 1: wrap one launch per case in cudaProfilerStart/
                            Stop and an NVTX range (--profile-range) */
  int progress;          /* 1: progress line on stderr when it is a terminal */
  pf_format format;      /* --format json (default) or gbench */
  int device;            /* CUDA device ordinal (--gpu N) */
  unsigned lock_sm_mhz;  /* --lock-clocks: SM clocks locked at this for the
                            run (0: as found, the default) */
  unsigned lock_mem_mhz; /* and memory clocks (0: as found) */
  const char *allocator; /* "exact" or "pooled", as the runner used it */
  int64_t sample_above_macs;   /* matmul products above it verified on a
                                  sample (pf_matmul_sample_above); -1: not
                                  given, written as null */
  const char *matmul_ref_tile; /* the full matmul reference's register tile
                                  (pf_ref_matmul_tile); NULL: not given,
                                  written as null */
  unsigned long long seed;
  int argc;
  char **argv;
} pf_bench_opts;

typedef struct pf_bench pf_bench;

void pf_bench_opts_init(pf_bench_opts *o);

/* Opens a run: records the environment (device, driver, runtime, nvcc, OS,
 * git, binary SHA-256, argv, time, instrumentation markers), loads NVML if
 * present, and measures the device-to-device copy bandwidth ceiling.
 * Returns CM_OK or a cm_error; *out is owned by the caller until
 * pf_bench_close. */
int pf_bench_open(const pf_bench_opts *o, pf_bench **out);

/* Times one verified case: warm-up, samples (cold or hot), statistics,
 * clocks and throttle reasons before and after, the peer if any, then calls
 * c->recheck. max_abs_err/max_rel_err/rtol/atol are the verification numbers
 * already obtained, recorded in the case's correctness block.
 * Returns CM_OK, CM_EVERIFY if the recheck failed (the case is still
 * recorded, marked failed), or another cm_error. */
int pf_bench_case(pf_bench *b, const pf_timed_case *c, double max_abs_err,
                  double max_rel_err, double rtol, double atol);

/* Compatible additions (timing engineer):
 *
 * The peers (cuBLAS, cuDNN) that this run's harness owns, for the runner's
 * peer_launch callbacks: e.g. pf_peer_gemm(pf_bench_peer(b), ...). Valid
 * until pf_bench_close. Before setting a case's peer_launch, the runner asks
 * pf_peer_absent_reason(pf_bench_peer(b), op): when it is not NULL (cuDNN
 * missing), it leaves peer_launch NULL and the harness records that reason.
 * The peer may write into the case's own output buffers: the harness
 * rechecks our outputs before it times the peer. */
struct pf_peer;
struct pf_peer *pf_bench_peer(pf_bench *b);

/* How many cases the run will time, for the progress line "[i/n]" (0 or
 * never called: "[i]"). */
void pf_bench_set_total(pf_bench *b, int total);

/* 1 if the environment showed instrumentation markers (the results will say
 * "instrumented": true), for the CLI's own summary line. */
int pf_bench_instrumented(const pf_bench *b);

/* Records that n cases of this run failed verification before timing (they
 * are not in the results): a warning says how many, and the run is not
 * clean. Call before pf_bench_close. */
void pf_bench_set_unverified(pf_bench *b, int n);

/* Records that of the selection's cases, not_timed were never timed: the
 * run stopped (stopped: 1, at an error, after done cases) or skipped them
 * on this device. A warning says which; "complete" is false, and a stopped
 * run is not clean. Call before pf_bench_close. */
void pf_bench_set_not_timed(pf_bench *b, int not_timed, int stopped, int done);

/* Writes the results to path (atomically: temp name, then rename) in the
 * format chosen, frees b. path may be NULL to only free. */
int pf_bench_close(pf_bench *b, const char *path);

#endif
