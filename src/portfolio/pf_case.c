/* pf_case.c: host bookkeeping of a case (see pf_case.h). */
#include "pf_case.h"

#include <stdlib.h>
#include <string.h>

#include "cm_error.h"
#include "cm_str.h"
#include "pf_rng.h"

/* a * b into *out, 0 if it overflows a signed 64-bit size. */
static int mul_ok(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0 || (b != 0 && a > INT64_MAX / b))
    return 0;
  *out = a * b;
  return 1;
}

int pf_case_add_tensor(pf_case *c, const char *name, int is_output, int is_mask,
                       size_t elsize, int64_t rows, int64_t cols, int64_t ld) {
  pf_tensor *t;
  int64_t n, img, bytes;
  if (c->ntensors >= PF_MAX_TENSORS)
    return CM_ERANGE;
  if (!mul_ok(rows, cols, &n) || !mul_ok(rows, ld, &img) ||
      !mul_ok(img, (int64_t)elsize, &bytes) || n > INT64_MAX / 8)
    return CM_ERANGE;
  t = &c->t[c->ntensors];
  memset(t, 0, sizeof *t);
  cm_strlcpy(t->name, name, sizeof t->name);
  t->is_output = is_output;
  t->is_mask = is_mask;
  t->elsize = elsize;
  t->rows = rows;
  t->cols = cols;
  t->ld = ld;
  t->bytes = (size_t)bytes;
  t->image = calloc((size_t)bytes, 1);
  if (is_mask)
    t->mval = calloc((size_t)n, 1);
  else
    t->val = calloc((size_t)n, sizeof(double));
  if (is_output) {
    t->first = calloc((size_t)bytes, 1);
    t->expected = calloc((size_t)n, sizeof(double));
    t->scale = calloc((size_t)n, sizeof(double));
  }
  c->ntensors++;
  if (!t->image || (is_mask ? !t->mval : !t->val) ||
      (is_output && (!t->first || !t->expected || !t->scale)))
    return CM_ENOMEM;
  return c->ntensors - 1;
}

void pf_case_free(pf_case *c) {
  int i;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    free(t->val);
    free(t->mval);
    free(t->image);
    free(t->first);
    free(t->expected);
    free(t->scale);
    memset(t, 0, sizeof *t);
  }
  free(c->sample);
  c->sample = NULL;
  free(c->scratch);
  c->scratch = NULL;
  c->scratch_bytes = 0;
  c->nsample = 0;
  c->ntensors = 0;
}

static size_t align256(size_t n) {
  return n > SIZE_MAX - 255 ? 0 : (n + 255) / 256 * 256;
}

size_t pf_case_device_bytes(const pf_case *c) {
  size_t total = align256(c->ws_bytes);
  int i;
  for (i = 0; i < c->ntensors; i++) {
    size_t b = align256(c->t[i].bytes);
    if (b == 0 || total > SIZE_MAX - b)
      return 0;
    total += b;
  }
  return total;
}

size_t pf_case_host_bytes(const pf_case *c) {
  size_t total = 0;
  int i;
  for (i = 0; i < c->ntensors; i++) {
    const pf_tensor *t = &c->t[i];
    const size_t n = (size_t)t->rows * (size_t)t->cols;
    size_t b = t->bytes, per = t->is_mask ? 1 : sizeof(double);
    if (n > SIZE_MAX / (3 * sizeof(double)) || b > SIZE_MAX / 4)
      return SIZE_MAX;
    b += n * per;
    if (t->is_output)
      b += t->bytes + 2 * n * sizeof(double);
    if (total > SIZE_MAX - b)
      return SIZE_MAX;
    total += b;
  }
  return total;
}

uint64_t pf_case_seed(uint64_t run_seed, const pf_spec *s) {
  int64_t f[12] = {s->op,      s->variant, (int64_t)s->dt,
                   s->dims[0], s->dims[1], s->dims[2],
                   s->ndims,   s->stride,  s->trans_a,
                   s->trans_b, s->ld_pad,  s->mask * 2 + s->extreme};
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the fields */
  int i, b;
  for (i = 0; i < 12; i++)
    for (b = 0; b < 8; b++) {
      h ^= (uint64_t)((f[i] >> (8 * b)) & 0xff);
      h *= 0x100000001b3ull;
    }
  return pf_rng_derive(run_seed, h);
}
