/* pf_sets.h: which cases a run executes: the default verification set
 * (--test-only), the smoke set (--smoke) and explicit selections, all
 * filtered by --op/--variant/--dtype. Pure (no CUDA). */
#ifndef PF_SETS_H
#define PF_SETS_H

#include "pf_case.h"
#include "pf_cli.h"

typedef struct {
  pf_spec *v;
  int n, cap;
} pf_set;

/* Builds the list for o->mode into *out (caller frees with pf_set_free).
 * Unsupported (op, variant, dtype) combinations are left out, never
 * counted as failures. Returns CM_OK or CM_ENOMEM. */
int pf_sets_build(const pf_opts *o, pf_set *out);
void pf_set_free(pf_set *s);

#endif
