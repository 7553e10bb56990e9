/* rp_report_model.h: a run folder and its results JSON, read into plain C.
 *
 * This is the ONE module that knows the field names of the results document
 * (docs/BENCHMARKING.md, written by src/portfolio/pf_json.c) and of
 * manifest.json (docs/AUDIT.md, written by the engine and the archive).
 * Every other file of the report works on the structs below, so a renamed
 * field is a one-file change. Readers are liberal: a missing or null field
 * becomes "" for strings, NaN for numbers and -1 for counts, never an error,
 * because a report of a failed or partial run is still worth reading.
 *
 * Ownership: rp_results and rp_run own everything they point to; free them
 * with rp_results_free / rp_run_free (both safe on a zeroed struct).
 * Errors: CM_OK or a negative cm_error; nothing exits the process.
 */
#ifndef RP_REPORT_MODEL_H
#define RP_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct json_t;

typedef struct {
  char op[32], variant[48], dtype[16], shape[64];
  int64_t stride;
  double logical_bytes, flops;
  int memory_bound; /* 1: "bound": "memory" (or no flops) */
  int passed;       /* correctness.passed; -1 unknown */
  double max_abs_err, max_rel_err, rtol, atol;
  int64_t sampled; /* correctness.sampled: the output elements compared
                      on a sample (a large matmul); 0: every element, or
                      not recorded (files before 2026-12-06) */
  double *samples; /* timing.samples_s, seconds; owned */
  size_t n;
  double median_s, min_s, max_s, mean_s, stddev_s, cv;
  int throttled;
  double gbps, tflops, fraction_of_copy_bw;
  int suspicious;
  char peer_name[64]; /* "" when no peer */
  int peer_present;
  double peer_median_s; /* seconds; NaN when absent */
  double peer_ratio;    /* peer median / our median (> 1: ours faster) */
} rp_case;

typedef struct {
  char path[1024];   /* where it was read from */
  char sha256[65];   /* of the file's bytes */
  int instrumented;  /* 1, 0, or -1 when the flag is missing */
  char markers[256]; /* instrumentation markers, comma-separated */
  char gpu_name[128], gpu_uuid[96], compute_capability[16];
  int64_t sm_count;
  double sm_clock_mhz, mem_clock_mhz; /* peak clocks */
  char driver[64];
  int64_t cuda_runtime, cuda_driver; /* CUDA's integer versions, -1 unknown */
  char nvcc[128], host[128];
  char os[16]; /* "linux", "wsl", "windows", "other", "" unknown */
  char os_release[256];
  char git_commit[64];
  int git_dirty; /* 1, 0, -1 unknown */
  char binary_sha256[65];
  char timestamp[40];
  double copy_gbps; /* ceilings.copy_bandwidth_gbps; NaN if absent */
  char copy_absent_reason[192];
  double read_gbps;       /* ceilings.read_bandwidth_gbps; NaN if absent */
  double launch_floor_s;  /* ceilings.launch_floor_s; NaN if absent */
  char cache[8];          /* settings.cache: "cold", "hot", "" absent */
  char flush[8];          /* settings.flush: "write", "read", "" absent/null */
  char peer_sampling[16]; /* settings.peer_sampling, "" absent */
  char clocks_locked[48]; /* settings.clocks_locked as "SM 1755 MHz" or
                             "SM 1755 MHz, memory 2619 MHz"; "" when null
                             or absent: the clocks as found */
  rp_case *cases;         /* owned */
  size_t ncases;
  char **warnings; /* owned */
  size_t nwarnings;
} rp_results;

/* The results document's version this reader reads (cuda_portfolio's
 * PF_SCHEMA_VERSION; docs/BENCHMARKING.md). */
#define RP_RESULTS_SCHEMA_VERSION 1

/* CM_OK when doc's "schema_version" is the integer
 * RP_RESULTS_SCHEMA_VERSION, else CM_ENOTSUP with why[size] saying what
 * was found and what to do ("schema_version 42, where this repro reads
 * only ..."). */
int rp_results_version(const struct json_t *doc, char *why, size_t size);

/* Parses one results document (a jansson object, borrowed) into *out,
 * which is zeroed first. Returns CM_OK, CM_EPARSE when doc is not an
 * object or has no "cases" array, CM_ENOTSUP when its schema_version is
 * not RP_RESULTS_SCHEMA_VERSION (rp_results_version says why), CM_ENOMEM.
 * On failure *out is freed and left zeroed: nothing for the caller to free. */
int rp_results_from_json(const struct json_t *doc, rp_results *out);
/* Reads and parses the results JSON file at path (also fills path, sha256).
 * Returns CM_OK, CM_ENOENT, CM_EIO, CM_EPARSE, CM_ENOTSUP (another
 * schema_version, named on stderr), CM_ENOMEM. */
int rp_results_load(const char *path, rp_results *out);
void rp_results_free(rp_results *r);

/* "op/variant/dtype/shape/stride": the key compare matches cases on. */
void rp_case_key(const rp_case *c, char *buf, size_t size);

typedef struct {
  char name[96];
  char status[24]; /* as written: "passed", "failed", ... or "" */
  char detail[1200];
} rp_item;

typedef struct {
  char name[32];
  char status[16]; /* passed | failed | skipped | limited | "" */
  char reason[1200];
  int64_t exit_code; /* -1 unknown */
  /* what the exit code is, where it is not the stage's verdict: the
   * sanitize stage's is its last step's, the negative control's, which
   * must be non-zero ("" none) */
  char exit_note[64];
  double start_s;    /* seconds from the run's start; NaN unknown */
  double duration_s; /* NaN unknown */
  rp_item *checks;   /* owned */
  size_t nchecks;
  rp_item *steps; /* owned */
  size_t nsteps;
} rp_stage;

/* A sanitizer finding, as shown in the report and exported to SARIF. */
typedef struct {
  char tool[24];        /* "memcheck", ...; "" unknown */
  int negative_control; /* 1 if it came from the negative control */
  char cls[16];         /* "access", "hazard", ... */
  char kind[256], severity[16], kernel[256], location[256], detail[256];
} rp_finding;

/* One row of the resource table (from the inspect stage). */
typedef struct {
  char kernel[256], arch[16];
  int64_t registers, stack, spill_stores, spill_loads, shared, local;
  int spills;
} rp_res_row;

typedef struct {
  char dir[1024];           /* the run folder */
  char manifest_sha256[65]; /* of manifest.json as read ("" if absent) */
  int have_manifest;
  char run_id[128], status[24], started[40], ended[40];
  char host[128], os[16], git_commit[64];
  int git_dirty;
  char tools[1024]; /* "name version; ..." from the manifest's tools */
  rp_stage *stages; /* owned, in run order */
  size_t nstages;
  rp_finding *findings; /* owned */
  size_t nfindings;
  int negative_control_caught; /* 1 caught, 0 not caught, -1 not run */
  char negative_control_detail[512];
  /* the commit the binary says it was built from, in the first stage
   * banner that has one (rp_banner.h: "COMMIT[+dirty|+unknown]"), "" if
   * none does */
  char binary_git[64];
  /* the test stage's verification control (rp_stage_test.c): 1 failed as
   * predicted, 0 not (exit 1), -1 not recorded or not decided; its step's
   * exit code (-1: none, the step killed, timed out or not started); 1
   * when the test stage wrote the record at all */
  int verify_control;
  int64_t verify_control_exit;
  int verify_control_recorded;
  rp_res_row *resources; /* owned */
  size_t nresources;
  rp_results *clean; /* results/clean/NAME.json, sorted by name; owned */
  size_t nclean;
  rp_results *instrumented; /* results/instrumented/NAME.json; owned */
  size_t ninstrumented;
} rp_run;

/* Reads <dir>/manifest.json (optional: a run with no manifest is reported
 * as such), results/clean/NAME.json, results/instrumented/NAME.json, and the
 * sanitizer and resource JSON files the manifest names (see
 * docs/REPORT.md for the paths looked at). *out is zeroed first. Returns
 * CM_OK, CM_ENOENT (dir is not a folder), CM_EPARSE (manifest.json or a
 * results file does not parse: the file is named on stderr), CM_ENOMEM. */
int rp_run_load(const char *dir, rp_run *out);
void rp_run_free(rp_run *r);

/* Loads a results file (NAME.json.gz read as the JSON it holds), a bundle
 * (verified first) or, for a folder, the run's results (clean ones,
 * or, when it has no clean ones, the time stage's instrumented one,
 * results/instrumented/time.json: never the profile stage's) merged into one
 * rp_results: environment from the first file, cases appended in file
 * order. Used by compare. Returns as rp_results_load; CM_ENOENT when a
 * folder holds no results. */
int rp_results_load_any(const char *path, rp_results *out);

#endif
