/* pf_cucheck.h: the one checking macro for CUDA runtime calls in the timing
 * code (the nvbench model): on failure it prints the call's text, file and
 * line, clears the sticky error so that later calls are not blamed, and
 * returns CM_ECUDA from the enclosing function. Never exits. */
#ifndef PF_CUCHECK_H
#define PF_CUCHECK_H

#include "cm_error.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

static inline int pf__cuda_fail(cudaError_t e, const char *call,
                                const char *file, int line) {
  fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, call,
          cudaGetErrorString(e), cudaGetErrorName(e));
  (void)cudaGetLastError();
  return CM_ECUDA;
}

#define PF_CU(call)                                                            \
  do {                                                                         \
    cudaError_t pf_e_ = (call);                                                \
    if (pf_e_ != cudaSuccess)                                                  \
      return pf__cuda_fail(pf_e_, #call, __FILE__, __LINE__);                  \
  } while (0)

/* As PF_CU, but stores the error in `var` and jumps to `label` (for
 * functions with a cleanup tail). */
#define PF_CU_GOTO(call, var, label)                                           \
  do {                                                                         \
    cudaError_t pf_e_ = (call);                                                \
    if (pf_e_ != cudaSuccess) {                                                \
      var = pf__cuda_fail(pf_e_, #call, __FILE__, __LINE__);                   \
      goto label;                                                              \
    }                                                                          \
  } while (0)

#endif
