/* pf_npy.c: see pf_npy.h. The format: 6-byte magic "\x93NUMPY", version
 * 1.0, a little-endian uint16 header length, then a Python dict literal
 * padded with spaces and ended by '\n' so the data starts 64-byte aligned. */
#include "pf_npy.h"
#include "cm_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cm_error.h"
#include "cm_str.h"

int pf_npy_header(const char *descr, int ndims, const int64_t *shape, char *buf,
                  size_t size, size_t *len) {
  char dict[256], dims[96];
  size_t dlen, total;
  int err;
  if (ndims == 1)
    err = cm_snprintf(dims, sizeof dims, "(%" PRId64 ",)", shape[0]);
  else if (ndims == 2)
    err = cm_snprintf(dims, sizeof dims, "(%" PRId64 ", %" PRId64 ")", shape[0],
                      shape[1]);
  else
    return CM_EINVAL;
  if (err)
    return err;
  err = cm_snprintf(dict, sizeof dict,
                    "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                    descr, dims);
  if (err)
    return err;
  dlen = strlen(dict);
  total = (10 + dlen + 1 + 63) / 64 * 64; /* magic+ver+len, dict, '\n' */
  if (total > size || total - 10 > 65535)
    return CM_ERANGE;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (char)((total - 10) & 0xff);
  buf[9] = (char)((total - 10) >> 8);
  memcpy(buf + 10, dict, dlen);
  memset(buf + 10 + dlen, ' ', total - 10 - dlen - 1);
  buf[total - 1] = '\n';
  *len = total;
  return CM_OK;
}

int pf_npy_write(const char *path, const char *descr, size_t elsize, int ndims,
                 const int64_t *shape, const void *data) {
  char head[512];
  size_t hlen, count = 1;
  int i, err;
  FILE *f;
  for (i = 0; i < ndims; i++)
    count *= (size_t)shape[i];
  err = pf_npy_header(descr, ndims, shape, head, sizeof head, &hlen);
  if (err)
    return err;
  f = cm_fopen(path, "wb");
  if (!f)
    return cm_error_from_errno(errno);
  if (fwrite(head, 1, hlen, f) != hlen ||
      fwrite(data, elsize, count, f) != count)
    err = CM_EIO;
  if (fclose(f) != 0 && !err)
    err = CM_EIO;
  return err;
}
