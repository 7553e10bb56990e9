/* rp_report_cli.h: the `report` and `compare` commands of repro.
 *
 * repro's main.c dispatches to these with argv[0] being the command name
 * ("report" or "compare"); argument parsing happens here. Both return the
 * process exit code and never call exit(); messages go to stderr, results
 * to stdout.
 */
#ifndef RP_REPORT_CLI_H
#define RP_REPORT_CLI_H

/* repro report [RUN] [--junit] [--sarif] [--no-finish]
 *
 * RUN is a run folder; without it the newest folder under runs_dir (NULL:
 * ./logs) that has a manifest.json (run ids sort by time). A relative RUN
 * is the caller's: main() no longer enters the root first, so `./repro
 * report runs/X` from any folder reads that folder's runs/X. Writes
 * RUN/report.md and RUN/report.html, RUN/report.junit.xml with --junit,
 * RUN/sanitizer.sarif with --sarif, then re-finishes RUN/manifest.json so they
 * are hashed in
 * (--no-finish leaves the manifest alone).
 * Exit codes: 0 written (and bound when the run has a manifest), 1 the run
 * could not be read or the files written or bound (or does not verify), 2
 * usage error, 130 interrupted: an interrupt while the documents are written
 * and bound is held until they are, then honoured. */
int rp_report_main(int argc, char **argv, const char *runs_dir);

/* repro compare BASE NEW [--threshold 5%|0.05] [--alpha 0.01]
 *                        [--resamples 2000] [--seed N] [--min-samples 5]
 *                        [--force] [--format text|json]
 *
 * BASE and NEW are results JSON files or run folders (their
 * results/clean/, else results/instrumented/). Prints a per-case table (or
 * one JSON document with --format json, docs/REPORT.md lists its keys).
 * Exit codes: 0 no case slower beyond the threshold, 1 a regression (some
 * case slower), 2 refused (instrumented vs clean, different GPUs or OS
 * environments, without --force) or a usage error (bad option, unreadable
 * input). */
int rp_compare_main(int argc, char **argv);

#endif
