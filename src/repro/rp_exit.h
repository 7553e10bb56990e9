/* rp_exit.h: the exit codes of `repro`, one X-macro table (documented in
 * docs/REPRO.md and printed by --help).
 *
 * An exit code is a verdict on the run for scripts and CI; it is never a
 * cm_error. When several apply, the most important wins, in this order:
 * INTERRUPTED, USAGE, REFUSED, FAILED, ARCHIVE, INCOMPLETE, OK (VERIFY only
 * comes from `repro verify`; NOMEM stops the process where it happens,
 * cm_file.h).
 */
#ifndef RP_EXIT_H
#define RP_EXIT_H

#define RP_EXIT_MAP(XX)                                                        \
  XX(OK, 0, "every selected stage passed")                                     \
  XX(FAILED, 1, "a stage failed (or a limited stage under --strict)")          \
  XX(USAGE, 2, "usage error (for compare: also a refused comparison)")         \
  XX(REFUSED, 3,                                                               \
     "refused by preflight: a stage's contract was violated (./repro: also "   \
     "no native repro, or its install, configure or build failed)")            \
  XX(VERIFY, 4, "verify found a mismatch (or could not read the archive)")     \
  XX(ARCHIVE, 5,                                                               \
     "the archive (manifest or bundle) could not be written, or the standard " \
     "output of --help, verify, doctor, report or compare")                    \
  XX(NOMEM, 6,                                                                 \
     "out of memory while reading JSON, where jansson cannot go on "           \
     "(cm_file.h); stopped at once")                                           \
  XX(INCOMPLETE, 10, "no failure, but some stage was skipped or limited")      \
  XX(INTERRUPTED, 130, "interrupted (SIGINT/TERM/HUP/QUIT); manifest says so")

typedef enum {
#define XX(name, code, msg) RP_EXIT_##name = code,
  RP_EXIT_MAP(XX)
#undef XX
} rp_exit_code;

#endif
