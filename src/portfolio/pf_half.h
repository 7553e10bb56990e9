/* pf_half.h: host conversions between float/double and the 2-byte dtypes.
 *
 * The float64 references and the verifier need the exact value of every
 * fp16/bf16 element, and inputs must be rounded the way the GPU rounds
 * (IEEE round-to-nearest-even). These are written here rather than taken
 * from cuda_fp16.h so that the host side builds as plain C11.
 * All functions are pure and handle zeros, subnormals, infinities and NaN.
 */
#ifndef PF_HALF_H
#define PF_HALF_H

#include <stddef.h>
#include <stdint.h>

#include "cpk.h"

/* IEEE binary16 <-> binary32. f32->f16 rounds to nearest even; overflow
 * gives +-inf; NaN stays NaN (quiet). f16->f32 is exact. */
uint16_t pf_f32_to_f16(float f);
float pf_f16_to_f32(uint16_t h);

/* bfloat16 (the top 16 bits of a binary32) <-> binary32, same rules. */
uint16_t pf_f32_to_bf16(float f);
float pf_bf16_to_f32(uint16_t h);

/* Size in bytes of one element of dt (4 or 2). */
size_t pf_dtype_size(cpk_dtype dt);
/* "fp32", "fp16", "bf16"; "?" for anything else. */
const char *pf_dtype_name(cpk_dtype dt);
/* Parses a dtype name; returns CM_OK or CM_EINVAL. */
int pf_dtype_parse(const char *s, cpk_dtype *out);

/* Rounds v to dt (through binary32, as the GPU stores it) and returns the
 * exact value of the result as a double. */
double pf_dtype_round(cpk_dtype dt, double v);
/* Stores v rounded to dt at dst (element size pf_dtype_size(dt)). */
void pf_dtype_store(cpk_dtype dt, double v, void *dst);
/* Reads one element of dt at src, exactly. */
double pf_dtype_load(cpk_dtype dt, const void *src);
/* Replaces every finite e[i] that rounds to an infinity in dt by that
 * infinity: what a correct kernel stores for a result beyond the range. */
void pf_dtype_saturate(cpk_dtype dt, double *e, int64_t n);
/* Largest finite value of dt. */
double pf_dtype_max(cpk_dtype dt);
/* The smallest positive (subnormal) value of dt: 2^-149 (fp32), 2^-24
 * (fp16), 2^-133 (bf16). */
double pf_dtype_tiny(cpk_dtype dt);

#endif
