/* pf_dump.h: `--dump DIR`: a case's inputs, outputs and references as .npy.
 *
 * Files: DIR/<prefix>_<tensor>.npy for every input and output (the values
 * the kernel read or wrote: fp32 and bf16 as <f4, since NumPy has no bf16
 * and the widening is exact; fp16 as <f2; masks as |u1), and
 * DIR/<prefix>_<output>_ref.npy for the float64 reference (<f8). Sampled
 * matmul checks add <prefix>_sample.npy, the flat indices compared (<i8).
 * Shapes are the logical ones (row gaps dropped).
 */
#ifndef PF_DUMP_H
#define PF_DUMP_H

#include "pf_case.h"

/* Writes c's files under dir (created if missing) with the given file name
 * prefix. Returns CM_OK or a cm_error. */
int pf_dump_case(const pf_case *c, const char *dir, const char *prefix);

#endif
