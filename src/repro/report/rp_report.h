/* rp_report.h: `repro report`, the library part: report.md and one
 * self-contained report.html for a run folder, plus the CI exports.
 *
 * The documents are built from an rp_run (rp_report_model.h) in memory and
 * written atomically; then the manifest is finished again so that their
 * SHA-256 sums are in it (docs/REPORT.md: "How the report is bound to the
 * archive"). The HTML has inline CSS, inline SVG charts and one tiny inline
 * script that only checks the charts drew (it sets document.title to
 * "charts-ok:N" or "charts-bad:NAMES"); no network, no external file.
 *
 * Ownership: returned strings are malloc'd; the caller frees them.
 * Errors: CM_OK or a negative cm_error; nothing exits the process.
 */
#ifndef RP_REPORT_H
#define RP_REPORT_H

#include "rp_report_model.h"

#include <stddef.h>

/* The Markdown report. *out receives a malloc'd string. CM_OK/CM_ENOMEM. */
int rp_report_markdown(const rp_run *run, char **out);

/* The HTML report; *ncharts (may be NULL) receives the number of charts
 * drawn (svg.chart elements). CM_OK or CM_ENOMEM. */
int rp_report_html(const rp_run *run, char **out, int *ncharts);

/* JUnit XML: one <testsuite name="stages"> with a <testcase> per stage
 * (failed: <failure>, skipped or limited: <skipped message=reason>), and
 * one <testsuite name="cases"> with a <testcase> per clean result case
 * (correctness failed: <failure>). CM_OK or CM_ENOMEM. */
int rp_report_junit(const rp_run *run, char **out);

/* SARIF 2.1.0 log with one run per sanitizer tool seen (compute-sanitizer
 * tools as driver names) and one result per finding; the negative
 * control's findings carry "kind": "pass" properties... see
 * docs/REPORT.md. An empty runs[] entry for "compute-sanitizer" when there
 * are no findings. CM_OK or CM_ENOMEM. */
int rp_report_sarif(const rp_run *run, char **out);

typedef struct {
  int junit;         /* also write report.junit.xml */
  int sarif;         /* also write sanitizer.sarif */
  int no_finish;     /* do not re-finish the manifest (tests, read-only runs) */
  int just_finished; /* the caller finished the manifest itself a moment
                        ago (repro's own run): skip the verify that
                        guards the re-finish */
  int quiet;         /* no progress lines on stderr */
} rp_report_opts;

/* Refuses (CM_EMISMATCH, msg saying why) a run folder with a manifest that
 * does not verify: the re-finish would bind a change made after the run.
 * CM_OK for a verifying folder or one without a manifest. rp_report_write
 * calls it first unless opts say no_finish or just_finished; `repro
 * report` calls it itself, before it holds interrupts for the writing. */
int rp_report_check(const char *run_dir, char *msg, size_t size);

/* Loads run_dir, writes report.md and report.html (and the exports asked
 * for) into it, then re-finishes its manifest.json when it has one and the
 * archive is linked in. A sentence on the outcome (or the failure) goes to
 * msg[size]. Returns CM_OK, CM_ENOENT (no such run folder), CM_EPARSE,
 * CM_ENOTSUP (manifest present but the archive is not linked: the files
 * are written but not bound), I/O errors. */
int rp_report_write(const char *run_dir, const rp_report_opts *opts, char *msg,
                    size_t size);

#endif
