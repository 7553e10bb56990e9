/* pf_mem.h: device memory for a case, in one of two modes.
 *
 *  pooled (default): every buffer of every set carved from one cudaMalloc
 *    arena, each 256-byte aligned. One allocation per case, fast.
 *  exact: every buffer is its own cudaMalloc of exactly its size, so a
 *    one-element overrun lands outside any allocation and memcheck sees it.
 *    Selected by CUDA_PORTFOLIO_ALLOC=exact or --alloc exact.
 */
#ifndef PF_MEM_H
#define PF_MEM_H

#include "pf_case.h"
#include "pf_cli.h"

typedef struct {
  pf_alloc_mode mode;
  void *arena; /* pooled only */
} pf_mem;

/* Allocates c->nsets sets of every tensor (c->t[i].dev[s]) and workspace
 * (c->ws[s]). On failure everything allocated so far is freed and CM_NOMEM
 * or CM_ECUDA is returned. */
int pf_mem_alloc(pf_mem *m, pf_case *c);
/* Frees what pf_mem_alloc allocated; safe to call after a failure. */
void pf_mem_free(pf_mem *m, pf_case *c);

#endif
