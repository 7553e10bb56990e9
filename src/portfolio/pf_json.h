/* pf_json.h: the results of one benchmark run, and the documents written
 * from them.
 *
 * pf_results is plain data with no CUDA state, so that the writers can be
 * tested from synthetic samples on a machine without a GPU. The timing
 * harness (pf_timing.c) fills it; pf_json_document turns it into the
 * versioned results document (docs/BENCHMARKING.md, schema in
 * docs/schema/results-v1.schema.json); pf_gbench_document (pf_gbench.c)
 * turns the same results into Google Benchmark's JSON.
 *
 * Units: every time is in seconds (double), bandwidth in GB/s (1e9 bytes per
 * second), rates in TFLOP/s (1e12 flop per second), bytes as doubles (exact
 * up to 2^53). A value that is unknown or not finite is written as null,
 * never as a string or a made-up number.
 */
#ifndef PF_JSON_H
#define PF_JSON_H

#include "cm_str.h"
#include "pf_env.h"
#include "pf_instrument.h"
#include "pf_nvml.h"
#include "pf_stats.h"
#include "pf_timing.h"

#include <jansson.h>
#include <stddef.h>

#define PF_SCHEMA_VERSION 1

/* One series of timed samples (ours or the peer's). samples is owned by the
 * pf_results the series belongs to (malloc'd; freed by pf_results_free). */
typedef struct {
  double *samples;
  size_t n;
  pf_stats stats;  /* valid when stats.n == n > 0 (pf_series_summarised):
                      a series whose timing failed has samples, no stats */
  double warmup_s; /* seconds actually spent warming up */
  int warmup_launches;
  char stop_reason[24]; /* "target_cv", "budget", "max_samples" */
} pf_series;

typedef struct {
  int present;             /* 1: timed in this run */
  char name[64];           /* "cublasGemmEx", "cudnnSoftmaxForward" */
  char absent_reason[192]; /* why there is no peer, when !present */
  pf_series series;
  double ratio; /* peer median / our median: > 1 means ours is
                   faster; NaN when absent */
} pf_peer_result;

typedef struct {
  char op[32], variant[32], dtype[16];
  char shape[64]; /* "4096x4096", "8192x8192x8192" (M x N x K) */
  int64_t dims[3];
  int ndims;
  int64_t stride;
  double logical_bytes, flops;
  int cold;  /* 1 cold (L2 flushed, sets rotated), 0 hot */
  int nsets; /* input sets rotated among */

  /* correctness */
  int passed; /* verification before timing */
  double max_abs_err, max_rel_err, rtol, atol;
  int rechecked; /* 1 if the outputs were verified again after timing */
  int recheck_passed;
  int rounding_checked; /* pf_case_info's, as given */
  pf_rounding rounding;
  int64_t sampled; /* pf_case_info's: elements compared, 0 every one */

  /* timing */
  pf_series series;
  pf_nvml_snapshot before, after;
  int peer_reasons_unread; /* sequential peer: NVML could not read the
                              throttle reasons after its samples */
  int throttled;           /* a non-benign throttle reason before or after, or
                              violation time between the readings: every sample of
                              the case is flagged */
  int viol_ok; /* the violation counters were read around the samples
                  (and the sequential peer's) */
  double viol_power_us, viol_thermal_us; /* their growth meanwhile */
  int profiled;  /* one launch wrapped for --profile-range */
  int hold_late; /* hot samples whose hold gave up before the host released
                    it (they include host time; a warning says so) */

  /* throughput, derived from the median (pf_results_derive) */
  double gbps, tflops;
  double fraction_of_copy_bw; /* gbps / measured copy bandwidth */
  double fraction_of_peer;    /* matmul: our TFLOP/s over cuBLAS's */
  double roofline_s;          /* logical_bytes / the faster of the copy and
                                 read bandwidths */
  int suspicious;
  char suspicious_reason[256];

  pf_peer_result peer;
} pf_case_result;

typedef struct {
  int measured; /* 0: the copy ceiling could not be measured */
  char absent_reason[192];
  double bytes; /* size of the buffer copied */
  double gbps;  /* 2 * bytes / median (read + write), 1e9 B/s */
  pf_series series;
} pf_ceiling;

typedef struct {
  pf_env env;
  pf_markers markers;
  pf_bench_opts opts;     /* argv inside is borrowed */
  int other_processes;    /* other compute processes seen on the GPU, -1
                             unknown */
  int launch_knobs;       /* a kernel launch knob was set in the environment
                             (CPK_FUSED_PERSIST, CPK_MM_TMA_STORE): not the
                             default kernels */
  int unverified;         /* cases of this run that failed verification before
                             timing: never timed, so not in cases[] */
  int stopped;            /* the run ended before its last case (an error):
                             the cases after it are in no list */
  int not_timed;          /* cases of the selection that were never timed
                             (stopped before them, or skipped on this device):
                             "complete": false */
  int ceilings_throttled; /* a throttle reason was set before or after the
                             ceilings were measured, or violation time
                             grew meanwhile */
  int hot_held;           /* hot samples were queued behind cpk_hold_stream */
  int ceil_viol_ok;       /* the violation counters read around them */
  double ceil_viol_power_us, ceil_viol_thermal_us;
  pf_ceiling copy;
  pf_ceiling read; /* reading alone (gbps = bytes / median): the roofline
                      of kernels that mostly read */
  pf_ceiling launch_floor; /* an empty kernel timed as every case (bytes and
                             gbps unused) */
  char **warnings;
  size_t nwarnings;
  pf_case_result *cases;
  size_t ncases, cap;
} pf_results;

/* A result may be faster than its roofline bound by this fraction before it
 * is called suspicious (timer resolution and the copy kernel's own
 * overheads). */
#define PF_ROOFLINE_SLACK 0.03

void pf_results_init(pf_results *r);
/* Frees every sample array, warning and case; leaves *r re-initialised. */
void pf_results_free(pf_results *r);

/* Appends a zeroed case and points *out at it (valid until the next
 * pf_results_add_case). Returns CM_OK or CM_ENOMEM. */
int pf_results_add_case(pf_results *r, pf_case_result **out);

/* Appends a formatted warning (also the caller's job to print it). Returns
 * CM_OK or CM_ENOMEM. */
int pf_results_warn(pf_results *r, const char *fmt, ...) CM_PRINTF_LIKE(2, 3);

/* Computes throughput, fractions, the peer ratio and the roofline verdict of
 * c from its series, its peer's series, the copy ceiling and the read
 * ceiling (NULL or unmeasured: the copy ceiling alone). Pure. */
void pf_case_derive(pf_case_result *c, const pf_ceiling *copy,
                    const pf_ceiling *read);

/* 1 if the run may be called clean: not instrumented, no launch knob set,
 * no other compute process known on the GPU, the ceilings measured
 * unthrottled, and every case timed to the
 * end, verified after timing, with its throttle reasons read before and
 * after and none throttling. */
int pf_results_clean(const pf_results *r);

/* 1 if s holds statistics over all its samples (n > 0, computed). */
int pf_series_summarised(const pf_series *s);

/* The results document (new reference, NULL on out of memory). */
json_t *pf_json_document(const pf_results *r);
/* The same results as Google Benchmark JSON (pf_gbench.c). */
json_t *pf_gbench_document(const pf_results *r);

/* Writes doc to path atomically (path.tmp, then rename), 2-space indented,
 * keys in insertion order, real numbers with 17 significant digits. Returns
 * CM_OK or a cm_error. */
int pf_json_write_file(const json_t *doc, const char *path);

/* Helpers shared by the two writers: a number, or null when not finite. */
json_t *pf__json_num(double v);

#endif
