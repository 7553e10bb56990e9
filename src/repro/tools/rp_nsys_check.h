/* rp_nsys_check.h: did nsys actually produce a report?
 *
 * nsys can exit 0 having written only its raw capture (<prefix>.qdstrm)
 * when its importer (QdstrmImporter) is missing or fails, as on the H200
 * machine. Exit status alone is therefore not evidence: this module looks
 * at the files. A report is <prefix>.nsys-rep (or the older .qdrep) and must
 * be a non-empty regular file.
 */
#ifndef RP_NSYS_CHECK_H
#define RP_NSYS_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  RP_NSYS_REPORT = 0,  /* a report exists: ok */
  RP_NSYS_QDSTRM_ONLY, /* only the raw capture: limited */
  RP_NSYS_NOTHING      /* neither: failed */
} rp_nsys_outcome;

typedef struct {
  rp_nsys_outcome outcome;
  char report[1200]; /* path of the report, "" if none */
  char qdstrm[1200]; /* path of the .qdstrm, "" if none */
  uint64_t report_bytes;
  uint64_t qdstrm_bytes;
  char reason[512]; /* one sentence for the manifest */
} rp_nsys_result;

/* One file nsys may have left: its base name and size in bytes. */
typedef struct {
  const char *name; /* "timeline.qdstrm" (borrowed) */
  uint64_t bytes;
} rp_nsys_file;

/* The pure verdict behind rp_nsys_check: from the files found (any order,
 * others ignored) decides the outcome for <prefix>. dir is only used in the
 * paths and reason written to *out (may be ""). A zero-byte report counts as
 * no report. Returns CM_OK, or CM_EINVAL / CM_ERANGE as rp_nsys_check. */
int rp_nsys_classify(const char *dir, const char *prefix,
                     const rp_nsys_file *files, size_t n, rp_nsys_result *out);

/* Looks in dir for <prefix>.nsys-rep, <prefix>.qdrep and <prefix>.qdstrm
 * and fills *out. Returns CM_OK (the verdict is in out->outcome), or
 * CM_EINVAL / CM_ERANGE for bad arguments or paths too long. */
int rp_nsys_check(const char *dir, const char *prefix, rp_nsys_result *out);

/* Scans nsys's console output for the importer's failure (the H200's nsys
 * prints "Importer error status: ..." and "Unable to retrieve the importer
 * version: skipping importation of the QDSTRM file."). Returns 1 and copies
 * the first such line into line[size] when found, else 0 and "". */
int rp_nsys_scan_output(const char *text, size_t len, char *line, size_t size);

/* "ok", "limited", "failed" for the outcome. */
const char *rp_nsys_outcome_name(rp_nsys_outcome o);

#endif
