/* rp_ncu_parse.h: Nsight Compute's CSV export and its permission errors.
 *
 * Reads `ncu --import R.ncu-rep --csv --page raw` (one row per profiled
 * kernel, one column per metric, a second row of units) and also the long
 * `--page details` form (one row per metric, "Metric Name"/"Metric Unit"/
 * "Metric Value" columns), into one row per kernel launch with the metrics
 * this project reports. Quoted fields, "1,234" thousands separators and
 * "n/a" are handled; unknown columns are ignored.
 *
 * Ownership: rp_ncu_table owns its rows; free with rp_ncu_table_free.
 */
#ifndef RP_NCU_PARSE_H
#define RP_NCU_PARSE_H

#include <stddef.h>

struct json_t;

typedef struct {
  long id;          /* ncu's launch ID, -1 if absent */
  char kernel[512]; /* "Kernel Name" as ncu prints it */
  char nvtx[256];   /* NVTX range/push-pop text if a column carries it */
  /* Metrics; NaN when not in the export. */
  double duration_ns;   /* gpu__time_duration.sum (converted to ns) */
  double dram_pct;      /* dram__throughput (or gpu__dram_throughput)
                           .avg.pct_of_peak_sustained_elapsed, or the details
                           page's "DRAM Throughput" */
  double occupancy_pct; /* sm__warps_active.avg.pct_of_peak_sustained_active */
  double registers;     /* launch__registers_per_thread */
  double local_ld;      /* local-memory loads (spill traffic), any metric
                           whose name has "local" and "ld"/"load" or "spill" */
  double local_st;      /* local-memory stores, likewise */
} rp_ncu_row;

typedef struct {
  rp_ncu_row *rows;
  size_t count;
  size_t cap;
} rp_ncu_table;

void rp_ncu_table_free(rp_ncu_table *t);

/* Parses CSV text[0..len) (lines before the header, such as "==PROF=="
 * messages, are skipped: the header is the first line whose first field is
 * "ID"). *t is initialised here. Returns CM_OK, CM_EPARSE when no header is
 * found, or CM_ENOMEM. */
int rp_ncu_parse_csv(const char *text, size_t len, rp_ncu_table *t);

/* Completes dst with src (another page of the same report): for each row
 * of src, the row of dst with the same id gets every metric it lacks (NaN)
 * and an empty kernel/nvtx filled; a row absent from dst is appended.
 * Values dst already has win (the raw page is exact; the details page is
 * rounded for display). Returns CM_OK or CM_ENOMEM. */
int rp_ncu_table_merge(rp_ncu_table *dst, const rp_ncu_table *src);

/* Number of launches ncu says it profiled: its console's "==PROF==
 * Profiling "name" - N: ..." lines. */
size_t rp_ncu_count_profiled(const char *text, size_t len);

/* The rows as a JSON array of objects {id, kernel, nvtx, duration_ns,
 * dram_throughput_pct, achieved_occupancy_pct, registers_per_thread,
 * local_load, local_store}; NaN values are null. NULL when an allocation
 * fails (never an array short of a row or a row short of a field). */
struct json_t *rp_ncu_table_json(const rp_ncu_table *t);

/* The rows as the stage's key-metrics CSV (profile/ncu-key-metrics.csv):
 * a header line "id,kernel,nvtx,duration_ns,dram_throughput_pct,
 * achieved_occupancy_pct,registers_per_thread,local_load,local_store", then
 * one line per launch; text fields quoted, metrics not measured empty.
 * Writes a malloc'd NUL-terminated string to *out (caller frees). Returns
 * CM_OK or CM_ENOMEM. */
int rp_ncu_table_csv(const rp_ncu_table *t, char **out);

/* What ncu's own console output says about the run. */
typedef enum {
  RP_NCU_OK = 0,        /* nothing alarming */
  RP_NCU_NO_PERMISSION, /* ERR_NVGPUCTRPERM: counters restricted */
  RP_NCU_NO_KERNELS,    /* "No kernels were profiled" */
  RP_NCU_ERROR          /* another ==ERROR== line */
} rp_ncu_issue;

/* Scans ncu's stdout/stderr text. Returns the most serious issue (no
 * permission first, then other errors, then no kernels) and copies the line
 * that shows it into line[size] (may be NULL). */
rp_ncu_issue rp_ncu_scan_output(const char *text, size_t len, char *line,
                                size_t size);

/* "ok", "no_permission", "no_kernels", "error". */
const char *rp_ncu_issue_name(rp_ncu_issue i);

#endif
