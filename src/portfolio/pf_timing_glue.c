/* pf_timing_glue.c: see pf_timing_glue.h. */
#include <stdio.h>

#include "cm_error.h"
#include "pf_env.h"
#include "pf_fill.h"
#include "pf_peer.h"
#include "pf_ref.h"
#include "pf_timing.h"
#include "pf_timing_glue.h"
#include "platform.h"

/* Input/output sets rotated by cold timing (when they fit: pf_run lowers
 * it per case otherwise). */
#define PF_TIMING_SETS 3

static int bench_case(void *bench, const pf_timed_case *c, double max_abs,
                      double max_rel, double rtol, double atol) {
  return pf_bench_case(bench, c, max_abs, max_rel, rtol, atol);
}

static const char *peer_op(const pf_case *c) {
  if (c->kop == CPK_OP_MATMUL)
    return "matmul";
  if (c->kop == CPK_OP_COPY)
    return "copy";
  /* cuDNN's softmax has no mask argument. */
  return c->kop == CPK_OP_SOFTMAX && !c->spec.mask ? "softmax" : NULL;
}

static const char *peer_for(pf_peer *p, const pf_case *c) {
  const char *op = peer_op(c);
  if (!op || pf_peer_absent_reason(p, op) != NULL)
    return NULL;
  return pf_peer_name(op);
}

static int peer_run(pf_peer *p, const pf_case *c, int set,
                    cudaStream_t stream) {
  cpk_rows shape = {c->rows, c->cols, c->stride};
  if (c->kop == CPK_OP_COPY)
    return pf_peer_copy(p, c->t[1].dev[set], c->t[0].dev[set], c->t[0].bytes,
                        stream);
  if (c->kop == CPK_OP_MATMUL)
    return pf_peer_gemm(p, c->dt, c->t[0].dev[set], c->t[1].dev[set],
                        c->t[2].dev[set], c->g, stream);
  return pf_peer_softmax(p, c->dt, c->t[0].dev[set], c->t[1].dev[set], shape,
                         stream);
}

int pf_timing_start(pf_runner *r, const pf_opts *o, int argc, char **argv) {
  pf_bench_opts bo;
  pf_bench *b = NULL;
  int err;
  pf_bench_opts_init(&bo);
  if (o->warmup_s >= 0)
    bo.warmup_s = o->warmup_s;
  if (o->min_samples > 0)
    bo.min_samples = o->min_samples;
  if (o->max_samples > 0)
    bo.max_samples = o->max_samples;
  if (o->target_cv >= 0)
    bo.target_cv = o->target_cv;
  if (o->budget_s >= 0)
    bo.budget_s = o->budget_s;
  bo.cold = !o->hot;
  if (o->flush >= 0)
    bo.flush = (pf_flush)o->flush;
  if (o->peer_sampling >= 0)
    bo.peer_interleaved = o->peer_sampling;
  bo.profile_range = o->profile_range;
  bo.progress = plat_isatty(2);
  bo.format = o->gbench ? PF_FORMAT_GBENCH : PF_FORMAT_JSON;
  bo.device = o->gpu;
  bo.lock_sm_mhz = o->lock_sm_mhz;
  bo.lock_mem_mhz = o->lock_mem_mhz;
  bo.allocator = pf_alloc_name(r->alloc);
  bo.sample_above_macs = pf_matmul_sample_above();
  bo.matmul_ref_tile = pf_ref_matmul_tile();
  bo.seed = r->seed;
  bo.argc = argc;
  bo.argv = argv;
  if ((err = pf_bench_open(&bo, &b)) != CM_OK) {
    /* A refused --lock-clocks has said why already. */
    if (err != CM_EREFUSED)
      fprintf(stderr, "cuda_portfolio: could not start timing: %s\n",
              cm_strerror(err));
    return err == CM_ECUDA ? PF_EXIT_CUDA : PF_EXIT_USAGE;
  }
  if (pf_peer_open(&r->peer) != CM_OK)
    r->peer = NULL; /* no peers: cases are timed without them */
  r->peer_for = r->peer ? peer_for : NULL;
  r->peer_run = peer_run;
  r->bench = b;
  r->bench_case = bench_case;
  r->nsets = o->hot ? 1 : PF_TIMING_SETS;
  return PF_EXIT_OK;
}

void pf_build_git(const char **commit, int *dirty) {
  pf_env_build_git(commit, dirty);
}

int pf_timing_finish(pf_runner *r, const char *path, int total, int done) {
  int err;
  /* failures before timing; a failed recheck after timing is recorded in
   * its case already (r->failed counts both) */
  pf_bench_set_unverified(r->bench, r->failed - r->recheck_failed);
  /* the cases after a stop, and those skipped on this device */
  pf_bench_set_not_timed(r->bench, total - done + r->skipped, done < total,
                         done);
  err = pf_bench_close(r->bench, path);
  if (r->peer)
    pf_peer_close(r->peer);
  r->peer = NULL;
  r->bench = NULL;
  if (err != CM_OK) {
    fprintf(stderr,
            "cuda_portfolio: --json %s: the results could not be written "
            "(%s); the cases above ran, their timings are lost\n",
            path, cm_strerror(err));
    return PF_EXIT_OUTPUT;
  }
  return PF_EXIT_OK;
}
