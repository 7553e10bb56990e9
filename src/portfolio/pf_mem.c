/* pf_mem.c: see pf_mem.h. */
#include "pf_mem.h"

#include <stdio.h>

#include "cm_error.h"
#include "pf_cucheck.h"

static size_t align256(size_t n) {
  return (n + 255) / 256 * 256;
}

static int alloc_exact(pf_case *c) {
  int s, i, err = CM_OK;
  for (s = 0; s < c->nsets; s++) {
    for (i = 0; i < c->ntensors; i++)
      PF_CU_GOTO(cudaMalloc(&c->t[i].dev[s], c->t[i].bytes), err, out);
    if (c->ws_bytes)
      PF_CU_GOTO(cudaMalloc(&c->ws[s], c->ws_bytes), err, out);
  }
out:
  return err;
}

static int alloc_pooled(pf_mem *m, pf_case *c) {
  size_t per = pf_case_device_bytes(c), off = 0;
  int s, i;
  if (per == 0 || per > SIZE_MAX / (size_t)c->nsets)
    return CM_ENOMEM;
  PF_CU(cudaMalloc(&m->arena, per * (size_t)c->nsets));
  for (s = 0; s < c->nsets; s++) {
    for (i = 0; i < c->ntensors; i++) {
      c->t[i].dev[s] = (char *)m->arena + off;
      off += align256(c->t[i].bytes);
    }
    if (c->ws_bytes) {
      c->ws[s] = (char *)m->arena + off;
      off += align256(c->ws_bytes);
    }
  }
  return CM_OK;
}

int pf_mem_alloc(pf_mem *m, pf_case *c) {
  int err, s;
  m->arena = NULL;
  err = m->mode == PF_ALLOC_EXACT ? alloc_exact(c) : alloc_pooled(m, c);
  /* Any workspace contents are valid (cpk.h), but FUSED's grid path reads
   * its exchange flags before its first launch has written them: zeroed
   * once here, so the sanitizer's initcheck sees no uninitialised read. */
  for (s = 0; s < c->nsets && !err; s++)
    if (c->ws[s] != NULL)
      PF_CU_GOTO(cudaMemset(c->ws[s], 0, c->ws_bytes), err, out);
out:
  if (err)
    pf_mem_free(m, c);
  return err;
}

void pf_mem_free(pf_mem *m, pf_case *c) {
  int s, i;
  for (s = 0; s < PF_MAX_SETS; s++) {
    for (i = 0; i < c->ntensors; i++) {
      if (m->mode == PF_ALLOC_EXACT && c->t[i].dev[s])
        (void)cudaFree(c->t[i].dev[s]);
      c->t[i].dev[s] = NULL;
    }
    if (m->mode == PF_ALLOC_EXACT && c->ws[s])
      (void)cudaFree(c->ws[s]);
    c->ws[s] = NULL;
  }
  if (m->arena)
    (void)cudaFree(m->arena);
  m->arena = NULL;
}
