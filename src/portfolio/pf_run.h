/* pf_run.h: the one harness every case runs through.
 *
 * pf_run_case: resolve the plan -> lay out tensors -> check the size against
 * device memory -> fill inputs (seeded per case) -> float64 reference ->
 * allocate -> upload -> poison outputs (0xFF bytes: NaN in every dtype) ->
 * launch -> synchronise and check -> read back -> verify -> poison, launch
 * again and compare bit for bit -> check the inputs unchanged -> report
 * one PASS/FAIL line -> optionally dump .npy files and time the case.
 */
#ifndef PF_RUN_H
#define PF_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "pf_bench.h"
#include "pf_case.h"
#include "pf_cli.h"
#include "pf_plan.h"

typedef struct pf_peer pf_peer;

typedef struct {
  pf_alloc_mode alloc;
  uint64_t seed;        /* run seed; each case derives its own from it */
  pf_plan_dev dev;      /* what the device offers the plan chooser and the
                           SKIP check (SM count, FUSED, HOPPER) */
  int nsets;            /* buffer sets per case (>= 1; > 1 when timing) */
  const char *dump_dir; /* NULL: no dumps */
  FILE *out;            /* result lines (stdout) */
  /* Timing hook: NULL when not timing. Called only for passed cases. */
  int (*bench_case)(void *bench, const pf_timed_case *c, double max_abs,
                    double max_rel, double rtol, double atol);
  void *bench;
  /* Peer library (cuBLAS, cuDNN) hooks, NULL when not timing: peer_for
   * names the peer for a case (NULL: none), peer_run launches it on the
   * case's buffers of `set`. */
  pf_peer *peer;
  const char *(*peer_for)(pf_peer *peer, const pf_case *c);
  int (*peer_run)(pf_peer *peer, const pf_case *c, int set,
                  cudaStream_t stream);
  int passed, failed, skipped;
  int recheck_failed;  /* of failed: passed, timed, then failed the recheck
                          (their timings are recorded, marked failed) */
  int64_t dumped;      /* case counter for dump file names */
  int64_t dump_failed; /* cases whose dump could not be written */
} pf_runner;

/* Runs one case. A verification failure is counted in r->failed and is not
 * an error (CM_OK). Returns CM_ENOMEM (the case does not fit: a message was
 * printed; a usage problem), CM_EINVAL (shape invalid for the op, message
 * printed), CM_ECUDA (a CUDA call failed, message printed: fatal), or
 * another cm_error. */
int pf_run_case(pf_runner *r, const pf_spec *s);

/* Runs only the negative control: copy_unmasked in fp32 on n elements (n
 * should not be a multiple of any block size), launched once and
 * synchronised, never verified. CM_OK if the launch "succeeded": catching
 * the out-of-bounds write is the sanitizer's job. */
int pf_run_negative_control(pf_runner *r, int64_t n);

/* One case of the verification control: add_ftz (cpk_add_ftz, wrong on
 * purpose) on add's fp32 case s (its inputs, reference and exact
 * tolerance; s->op is replaced), checked as pf_run_case checks a case,
 * and the host's prediction of which elements must fail
 * (pf_ref_add_ftz_f32 compared against the same reference). */
typedef struct {
  int64_t predicted;  /* elements the host model says must fail */
  int64_t failed;     /* elements the GPU check failed */
  int64_t mismatched; /* elements stored other than the model says */
  int agree;          /* 1: pf_control_agree (pf_tol.h) */
} pf_vcheck;

/* Runs it, prints one VERIFY-CONTROL-CASE line, fills *out. CM_OK, or the
 * cm_errors of pf_run_case (CUDA, memory). Never counts in r->passed or
 * r->failed. */
int pf_run_verify_control(pf_runner *r, const pf_spec *s, pf_vcheck *out);
/* Formats the shape as "RxW" or "MxNxK" (elementwise: "N") into buf. */
void pf_case_shape_str(const pf_case *c, char *buf, size_t size);

#endif
