/* pf_cli.h: command-line parsing of cuda_portfolio, pure (no CUDA), so that
 * every usage error is unit-tested without a GPU.
 *
 * Exit codes of cuda_portfolio (docs/VALIDATION.md):
 *   0 all passed, 1 a verification failed, 2 usage error, 3 a CUDA error,
 *   77 no CUDA device.
 */
#ifndef PF_CLI_H
#define PF_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cpk.h"
#include "pf_bench.h"

enum {
  PF_EXIT_OK = 0,
  PF_EXIT_FAIL = 1,
  PF_EXIT_USAGE = 2,
  PF_EXIT_CUDA = 3,
  PF_EXIT_OUTPUT = 4, /* --json's file or a --dump file was not written */
  PF_EXIT_NODEV = 77
};

typedef enum {
  PF_MODE_SELECT = 0, /* the cases named by --op/--variant/--dtype/--shape */
  PF_MODE_TEST_ONLY,  /* the default verification set */
  PF_MODE_SMOKE,      /* every variant x dtype once, small shapes */
  PF_MODE_BENCH,      /* the standard benchmark shapes (docs/BENCHMARKING) */
  PF_MODE_NEGATIVE,   /* the negative control only */
  PF_MODE_VERIFY_CONTROL, /* the verification control only */
  PF_MODE_LIST,
  PF_MODE_HELP
} pf_mode;

typedef enum { PF_ALLOC_POOLED = 0, PF_ALLOC_EXACT = 1 } pf_alloc_mode;

typedef struct {
  pf_mode mode;
  int list_json; /* --list --format json */
  int op;        /* -1: all */
  int variant;   /* PF_VARIANT_AUTO, or -2: every (unset) */
  int dtype;     /* -1: all, else cpk_dtype */
  int have_shape;
  int64_t dims[3];
  int ndims;
  int64_t stride; /* 0: tight */
  int trans_a, trans_b;
  int64_t ld_pad;
  int mask;    /* -1 unset, 0/1 */
  int extreme; /* --extreme: extreme rows in a selection run */
  int have_seed;
  uint64_t seed;
  int gpu;
  int alloc; /* -1: from CUDA_PORTFOLIO_ALLOC, else pf_alloc_mode */
  const char *dump_dir;
  const char *json_path;
  int gbench;                           /* --format gbench */
  double warmup_s, target_cv, budget_s; /* < 0: default */
  int min_samples, max_samples;         /* < 0: default */
  int hot, profile_range;
  int check_args;       /* --check-args: parse and build the case list, run
                           nothing (repro's --select check) */
  int flush;            /* -1 unset, else pf_flush (--flush write|read) */
  int peer_sampling;    /* -1 unset, 1 interleaved, 0 sequential */
  int threads;          /* reference threads, 0: default */
  int64_t sample_above; /* --sample-above: matmul sampling limit, -1 unset */
  unsigned lock_sm_mhz, lock_mem_mhz; /* --lock-clocks SM[:MEM], 0: unset */
} pf_opts;

/* Parses argv into *o. Returns CM_OK, or CM_EINVAL with a one-line message
 * (no trailing newline) in err[errsize] naming the offending argument: one
 * line of text for a terminal, a line break or tab in an argument shown
 * as a space, any other control character and each byte that is not UTF-8
 * as '?' (cm_text_oneline). */
int pf_cli_parse(int argc, char **argv, pf_opts *o, char *err, size_t errsize);
/* The options of a command line with no words (pf_cli_parse's start). */
void pf_opts_init(pf_opts *o);

/* Resolves the allocator: flag (o->alloc) wins, else the value of
 * CUDA_PORTFOLIO_ALLOC (env may be NULL or "": pooled). Returns CM_OK or
 * CM_EINVAL with a message in err for any other value. */
int pf_alloc_resolve(int flag, const char *env, pf_alloc_mode *out, char *err,
                     size_t errsize);

/* The exit code of a run from its status so far (rc, a PF_EXIT_ code) and
 * its counts: a failure makes PF_EXIT_FAIL; a run in which every selected
 * case was skipped (the device cannot run what was asked, e.g. --variant
 * hopper off compute capability 9.0) verified nothing and exits
 * PF_EXIT_NODEV, ctest's skip, never 0. */
int pf_exit_for_counts(int rc, int passed, int failed, int skipped);

/* "exact" or "pooled". */
const char *pf_alloc_name(pf_alloc_mode m);

/* Writes the --help text to the stream (a FILE *, void to keep stdio out
 * of this header). */
void pf_cli_usage(void *stream);

#endif
