/* pf_dump.c: see pf_dump.h. */
#include "pf_dump.h"

#include <stdlib.h>

#include "cm_error.h"
#include "cm_str.h"
#include "pf_half.h"
#include "pf_npy.h"
#include "platform.h"

static int dump_values(const pf_case *c, const char *path, const double *v,
                       int64_t rows, int64_t cols, int as_f64) {
  int64_t shape[2] = {rows, cols}, n = rows * cols, i;
  int nd = rows == 1 ? 1 : 2;
  const int64_t *sh = nd == 1 ? &shape[1] : shape;
  void *buf;
  int err;
  if (as_f64)
    return pf_npy_write(path, "<f8", 8, nd, sh, v);
  buf = malloc((size_t)n * (c->dt == CPK_F16 ? 2 : 4));
  if (!buf)
    return CM_ENOMEM;
  for (i = 0; i < n; i++) {
    if (c->dt == CPK_F16)
      ((uint16_t *)buf)[i] = pf_f32_to_f16((float)v[i]);
    else
      ((float *)buf)[i] = (float)v[i];
  }
  err = pf_npy_write(path, c->dt == CPK_F16 ? "<f2" : "<f4",
                     c->dt == CPK_F16 ? 2 : 4, nd, sh, buf);
  free(buf);
  return err;
}

int pf_dump_case(const pf_case *c, const char *dir, const char *prefix) {
  char path[4096];
  int i, err = plat_mkdir_p(dir);
  for (i = 0; i < c->ntensors && !err; i++) {
    const pf_tensor *t = &c->t[i];
    err = cm_snprintf(path, sizeof path, "%s/%s_%s.npy", dir, prefix, t->name);
    if (err)
      break;
    if (t->is_mask) {
      int64_t shape[2] = {t->rows, t->cols};
      err = pf_npy_write(path, "|u1", 1, 2, shape, t->mval);
      continue;
    }
    err = dump_values(c, path, t->val, t->rows, t->cols, 0);
    if (err || !t->is_output)
      continue;
    err = cm_snprintf(path, sizeof path, "%s/%s_%s_ref.npy", dir, prefix,
                      t->name);
    if (!err)
      err = dump_values(c, path, t->expected, t->rows, t->cols, 1);
  }
  if (!err && c->sample) {
    err = cm_snprintf(path, sizeof path, "%s/%s_sample.npy", dir, prefix);
    if (!err)
      err = pf_npy_write(path, "<i8", 8, 1, &c->nsample, c->sample);
  }
  return err;
}
