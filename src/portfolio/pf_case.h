/* pf_case.h: one verification case: what was asked (pf_spec) and what the
 * runner built for it (pf_case: tensors on host and device).
 *
 * Every tensor keeps three host views: `val`, the exact values as compact
 * doubles (inputs: what the reference reads; outputs: what the device
 * produced); `image`, the bytes of the device buffer (rows x ld elements,
 * gaps included); and for outputs `expected`/`scale` from the reference.
 * The case owns all of them; pf_case_free releases host memory (device
 * memory is released by pf_mem, which allocated it).
 */
#ifndef PF_CASE_H
#define PF_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "cpk.h"

#define PF_VARIANT_AUTO (-1)
#define PF_MAX_TENSORS 6
#define PF_MAX_SETS 4

typedef struct {
  int op;      /* index into pf_ops() */
  int variant; /* PF_VARIANT_AUTO or a cpk_variant */
  cpk_dtype dt;
  int64_t dims[3]; /* elementwise: n = dims[0] * dims[1]; rows x cols;
                      matmul: M x N x K */
  int ndims;
  int64_t stride;       /* row ops: row stride in elements, 0 = cols */
  int trans_a, trans_b; /* matmul operand layouts (cpk_gemm) */
  int64_t ld_pad;       /* matmul: extra elements per row of every operand */
  int mask;             /* softmax: random mask plus fully masked rows */
  int extreme;          /* mix extreme rows/values into the inputs */
} pf_spec;

typedef struct {
  char name[8];
  int is_output, is_mask;
  size_t elsize;
  int64_t rows, cols, ld;   /* device layout in elements */
  size_t bytes;             /* rows * ld * elsize */
  double *val;              /* rows * cols compact values */
  uint8_t *mval;            /* mask values (is_mask), rows * cols */
  unsigned char *image;     /* device bytes as uploaded / last read back */
  unsigned char *first;     /* outputs: bytes of a repeat launch, read
                               back to compare with image */
  double *expected, *scale; /* outputs: reference, rows * cols */
  void *dev[PF_MAX_SETS];
} pf_tensor;

struct pf_op;

typedef struct {
  pf_spec spec;
  const struct pf_op *op;
  cpk_op kop;
  cpk_variant variant; /* resolved: never auto */
  cpk_dtype dt;
  int64_t rows, cols, stride; /* elementwise: 1 x n, stride n */
  cpk_gemm g;                 /* matmul only */
  float eps;                  /* rmsnorm ops */
  int ntensors;
  pf_tensor t[PF_MAX_TENSORS];
  size_t ws_bytes;
  void *ws[PF_MAX_SETS];
  int nsets;
  int64_t *sample; /* matmul: sampled output indices, or NULL = all */
  int64_t nsample;
  uint64_t seed;          /* this case's input seed */
  unsigned char *scratch; /* read-back buffer for the input checks, or NULL */
  size_t scratch_bytes;
} pf_case;

/* Adds a tensor to c (host buffers allocated, zeroed). Returns its index or
 * CM_ENOMEM / CM_ERANGE (too many tensors or a size overflow). */
int pf_case_add_tensor(pf_case *c, const char *name, int is_output, int is_mask,
                       size_t elsize, int64_t rows, int64_t cols, int64_t ld);
/* Frees every host buffer of c (tensors, sample, scratch; not device
 * memory). Safe on a zeroed case. */
void pf_case_free(pf_case *c);
/* Total device bytes for one set of tensors plus workspace, 256-byte
 * aligned each; CM_ERANGE through *out = 0 on overflow. */
size_t pf_case_device_bytes(const pf_case *c);
/* Host bytes of c's tensors as pf_case_add_tensor allocated them (the
 * stored image, the float64 values or the mask, and for an output its first
 * image, expected values and scales): what the fill and the reference will
 * touch. SIZE_MAX on overflow. */
size_t pf_case_host_bytes(const pf_case *c);

/* The per-case input seed: a hash of the run seed and the case's spec, so
 * that one case rerun alone (same --seed, same selection flags) sees the
 * inputs it saw in a larger run. */
uint64_t pf_case_seed(uint64_t run_seed, const pf_spec *s);

#endif
