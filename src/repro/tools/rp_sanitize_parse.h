/* rp_sanitize_parse.h: compute-sanitizer's text output as data.
 *
 * Reads what memcheck, racecheck, initcheck and synccheck print (the lines
 * that start with "========="; the target's own output between them is
 * ignored) and turns it into findings plus the tool's own summaries. The
 * parser is liberal in what it accepts: ANSI colours, CRLF, both the
 * "at 0xPC in file:line:kernel" and the "at kernel+0xPC in file:line"
 * location forms, upper- or lower-case "Error:"/"ERROR:".
 *
 * It also notices when the sanitizer itself failed (device not supported,
 * internal error, the target ended before the first instrumented call): such
 * a run proves nothing and rp_san_verdict never calls it clean.
 *
 * Ownership: rp_san_report owns its findings array; free it with
 * rp_san_report_free. JSON values returned are new references.
 */
#ifndef RP_SANITIZE_PARSE_H
#define RP_SANITIZE_PARSE_H

#include <stddef.h>
#include <stdint.h>

struct json_t;

typedef enum {
  RP_SAN_ACCESS = 0, /* memcheck/initcheck access: "Invalid __global__ write" */
  RP_SAN_HAZARD,     /* racecheck: "Race reported between ..." */
  RP_SAN_BARRIER,    /* synccheck: "Barrier error detected. ..." */
  RP_SAN_API,  /* "Program hit cudaErrorX (error N) ... on CUDA API call" */
  RP_SAN_LEAK, /* memcheck --leak-check full: "Leaked N bytes at 0x..." */
  RP_SAN_OTHER /* any other reported error (hardware exception, ...) */
} rp_san_class;

/* "access", "hazard", "barrier", "api", "leak", "other". */
const char *rp_san_class_name(rp_san_class c);

typedef struct {
  rp_san_class cls;
  char kind[256];     /* the heading line, e.g. "Invalid __global__ write of
                         size 4 bytes"; for races "Race reported between Write
                         access and Read access" */
  char severity[16];  /* "error" or "warning" (racecheck may warn) */
  char kernel[512];   /* kernel signature as printed; "" if not shown */
  char location[512]; /* "file.cu:42" when line info is present, else "" */
  char pc[32];        /* "0x70" (offset in the kernel) or "" */
  char thread[48];    /* "(0,0,0)" or "" */
  char block[48];     /* "(3,0,0)" or "" */
  char address[48];   /* "0x7f0c1a000400" or "" */
  char detail[256];   /* first explanatory line: "is out of bounds", "and is
                         4 bytes after the nearest allocation ..." */
  uint64_t bytes;     /* leak: bytes leaked; access: access size; else 0 */
} rp_san_finding;

typedef struct {
  rp_san_finding *items; /* owned; count entries */
  size_t count;
  size_t cap;
  int banner;                 /* 1 if the "COMPUTE-SANITIZER" banner was seen */
  int64_t error_summary;      /* N of "ERROR SUMMARY: N errors", -1 if absent */
  int64_t errors_not_printed; /* N of the "ERROR SUMMARY: N errors were not
                                 printed" line (beyond --print-limit), -1 if
                                 absent; included in error_summary */
  int64_t hazards;       /* racecheck "N hazards displayed", -1 if absent */
  int64_t hazard_errors; /* the "(E errors, ...)" part, -1 if absent */
  int64_t hazard_warnings;
  int64_t leaked_bytes;  /* "LEAK SUMMARY: N bytes leaked in M allocations" */
  int64_t leak_allocs;   /* both -1 if absent */
  int target_failed;     /* "Target application returned an error" or
                            "process didn't terminate successfully" */
  int tool_failed;       /* the sanitizer could not do its job */
  char tool_error[512];  /* the first line saying so */
  size_t findings_total; /* findings seen (items may be capped) */
  char unreadable_summary[256]; /* the first ERROR / RACECHECK / LEAK
                                   SUMMARY line whose count could not be
                                   read, or "" */
} rp_san_report;

/* Most findings kept per report; the rest are counted in findings_total.
 * A racecheck of a broken kernel can print thousands. */
#define RP_SAN_MAX_FINDINGS 256

/* Parses text[0..len) (need not be NUL-terminated). *out is initialised
 * here; free it with rp_san_report_free even on error. Returns CM_OK or
 * CM_ENOMEM. An empty text yields a report with error_summary == -1. */
int rp_san_parse(const char *text, size_t len, rp_san_report *out);

void rp_san_report_free(rp_san_report *r);

/* The findings as a JSON array of objects {class, kind, severity, kernel,
 * location, pc, thread, block, address, detail, bytes}; empty strings are
 * left out. NULL only when out of memory. */
struct json_t *rp_san_findings_json(const rp_san_report *r);

/* The whole report: {error_summary, errors_not_printed, hazards, hazard_errors,
 * hazard_warnings, leaked_bytes, leak_allocs, tool_failed, tool_error,
 * target_failed, findings_total, unreadable_summary (when set), findings:
 * [...]}; -1 values are null. */
struct json_t *rp_san_report_json(const rp_san_report *r);

/* Verdict on an ordinary (non-negative-control) step. exit_code is the
 * sanitizer's exit status, error_exitcode the value given to
 * --error-exitcode. Returns 1 when the run proves the target clean: the
 * sanitizer finished (ERROR SUMMARY seen, or racecheck's RACECHECK SUMMARY,
 * which racecheck prints instead; no tool failure), every summary line's
 * count could be read, it reported zero errors, zero hazards, no leaked
 * bytes and no findings, and exited 0. Otherwise 0, with one
 * sentence in why[size] naming the first finding or the reason. */
int rp_san_verdict_clean(const rp_san_report *r, int exit_code,
                         int error_exitcode, char *why, size_t size);

/* Verdict on the negative control (memcheck on a kernel that writes out of
 * bounds on purpose). Returns 1 when the sanitizer caught it: exit_code ==
 * error_exitcode, no tool failure, and a finding whose kind starts with
 * "Invalid __global__ write". Otherwise 0 and why says what was seen
 * instead ("the sanitizer is not working: ..."). On success why describes
 * the catch (kind, kernel, location) for the manifest. */
int rp_san_verdict_negative(const rp_san_report *r, int exit_code,
                            int error_exitcode, char *why, size_t size);

/* Formats finding f as one line for humans:
 * "Invalid __global__ write of size 4 bytes in copy_unmasked(...) at
 * copy.cu:12 (thread (0,0,0) block (4,0,0), address 0x...)". */
void rp_san_finding_line(const rp_san_finding *f, char *buf, size_t size);

#endif
