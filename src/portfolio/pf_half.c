/* pf_half.c: bit-level conversions for fp16 and bf16 (see pf_half.h). */
#include "pf_half.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "cm_error.h"

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Rounds m >> shift to nearest, ties to even. shift is 1..31. */
static uint32_t rne_shift(uint32_t m, int shift) {
  uint32_t q = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u)))
    q++;
  return q;
}

uint16_t pf_f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  int exp = (int)((x >> 23) & 0xffu);
  uint32_t man = x & 0x7fffffu;
  int e;
  if (exp == 0xff) /* inf stays inf; NaN keeps its top payload, made quiet */
    return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
  e = exp - 127 + 15;
  if (e >= 0x1f)
    return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    /* Subnormal half (or zero): the value in units of 2^-24 is
     * (1.man) * 2^(e - 1 + 10) with the implicit bit restored. */
    int shift = 14 - e;
    if (exp == 0 || shift > 25)
      return sign; /* below half of the smallest subnormal (or f32 denormal) */
    return (uint16_t)(sign | rne_shift(man | 0x800000u, shift));
  }
  /* A carry out of the mantissa moves into the exponent, which is exactly
   * the right encoding, including rounding up to infinity. */
  return (uint16_t)(sign | rne_shift(((uint32_t)e << 23) | man, 13));
}

float pf_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  float v;
  if (exp == 0x1f)
    return bits_f32(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    v = ldexpf((float)man, -24); /* exact: man < 2^10 */
    return sign ? -v : v;
  }
  return bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

uint16_t pf_f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN, never rounds to inf */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

float pf_bf16_to_f32(uint16_t h) {
  return bits_f32((uint32_t)h << 16);
}

size_t pf_dtype_size(cpk_dtype dt) {
  return dt == CPK_F32 ? 4 : 2;
}

const char *pf_dtype_name(cpk_dtype dt) {
  switch (dt) {
  case CPK_F32:
    return "fp32";
  case CPK_F16:
    return "fp16";
  case CPK_BF16:
    return "bf16";
  }
  return "?";
}

int pf_dtype_parse(const char *s, cpk_dtype *out) {
  if (strcmp(s, "fp32") == 0)
    *out = CPK_F32;
  else if (strcmp(s, "fp16") == 0)
    *out = CPK_F16;
  else if (strcmp(s, "bf16") == 0)
    *out = CPK_BF16;
  else
    return CM_EINVAL;
  return CM_OK;
}

double pf_dtype_round(cpk_dtype dt, double v) {
  float f = (float)v;
  if (dt == CPK_F16)
    return pf_f16_to_f32(pf_f32_to_f16(f));
  if (dt == CPK_BF16)
    return pf_bf16_to_f32(pf_f32_to_bf16(f));
  return f;
}

void pf_dtype_store(cpk_dtype dt, double v, void *dst) {
  float f = (float)v;
  uint16_t h;
  if (dt == CPK_F32) {
    memcpy(dst, &f, sizeof f);
    return;
  }
  h = dt == CPK_F16 ? pf_f32_to_f16(f) : pf_f32_to_bf16(f);
  memcpy(dst, &h, sizeof h);
}

double pf_dtype_load(cpk_dtype dt, const void *src) {
  float f;
  uint16_t h;
  if (dt == CPK_F32) {
    memcpy(&f, src, sizeof f);
    return f;
  }
  memcpy(&h, src, sizeof h);
  return dt == CPK_F16 ? pf_f16_to_f32(h) : pf_bf16_to_f32(h);
}

double pf_dtype_max(cpk_dtype dt) {
  if (dt == CPK_F16)
    return 65504.0;
  if (dt == CPK_BF16)
    return pf_bf16_to_f32(0x7f7fu);
  return FLT_MAX;
}

double pf_dtype_tiny(cpk_dtype dt) {
  return dt == CPK_F16 ? 0x1p-24 : dt == CPK_BF16 ? 0x1p-133 : 0x1p-149;
}

void pf_dtype_saturate(cpk_dtype dt, double *e, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++)
    if (isfinite(e[i]) && isinf(pf_dtype_round(dt, e[i])))
      e[i] = pf_dtype_round(dt, e[i]);
}
