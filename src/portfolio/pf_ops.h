/* pf_ops.h: the op registry. One descriptor per op; everything that differs
 * between ops lives in its descriptor, and the runner (pf_run.c) treats all
 * of them alike. Launch glue is separate (pf_launch.h) so that this table and
 * the references build and test without CUDA.
 */
#ifndef PF_OPS_H
#define PF_OPS_H

#include "cpk.h"
#include "pf_case.h"
#include "pf_rng.h"

/* pf_spec.op values of the two controls (not indices of pf_ops()): the
 * sanitizer's negative control (copy_unmasked) and the verification
 * control (add_ftz). */
#define PF_OP_NEGATIVE_CONTROL (-100)
#define PF_OP_VERIFY_CONTROL (-101)

typedef enum { PF_KIND_ELEM = 0, PF_KIND_ROWS, PF_KIND_MATMUL } pf_kind;

typedef struct pf_op {
  const char *name; /* CLI name: "softmax_backward" */
  cpk_op kop;
  pf_kind kind;
  unsigned variants; /* bit (1u << cpk_variant) per supported variant */
  unsigned dtypes;   /* bit (1u << cpk_dtype) per supported dtype */
  /* Declares the case's tensors from its resolved shape. */
  int (*layout)(pf_case *c);
  /* Fills every input's val (exact dtype values) from rng. */
  void (*fill)(pf_case *c, pf_rng *rng);
  /* Writes every output's expected and scale from the inputs' val. */
  int (*reference)(pf_case *c);
  /* Fewest bytes moved (each input read once, each output written once)
   * and floating-point operations, for the timing harness. */
  double (*bytes)(const pf_case *c);
  double (*flops)(const pf_case *c);
} pf_op;

/* The table: *count receives the number of ops. The negative control
 * (copy_unmasked) is NOT in it; see pf_op_negative_control. */
const pf_op *pf_ops(int *count);
/* The negative control's descriptor (never part of any selection). */
const pf_op *pf_op_negative_control(void);
/* The verification control's descriptor: add_ftz, fp32, with add's
 * layout, fill and reference (never part of any selection). */
const pf_op *pf_op_verify_control(void);
/* Index of the op named s in pf_ops(), or -1. */
int pf_op_find(const char *s);

/* Lower-case variant name ("online"); "auto" for PF_VARIANT_AUTO. */
const char *pf_variant_name(int v);
/* Parses a variant name ("auto" gives PF_VARIANT_AUTO). CM_OK or CM_EINVAL. */
int pf_variant_parse(const char *s, int *out);
/* 1 if op supports variant v (auto always) and dtype dt. */
int pf_op_supports(const pf_op *op, int v, cpk_dtype dt);

/* Resolves c->spec into c's shape fields (rows, cols, stride, g, eps) with
 * the given resolved variant, then calls the op's layout. Returns CM_OK,
 * CM_EINVAL (shape not valid for the op) or CM_ERANGE (overflow). */
int pf_case_setup(pf_case *c, const pf_op *op, cpk_variant v);

#endif
