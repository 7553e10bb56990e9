/* pf_npy.h: NumPy .npy (format version 1.0) writer for `--dump DIR`.
 *
 * Lets anyone recheck a case with another tool: np.load(path). Only what the
 * dumps need: little-endian <f8, <f4, <f2, |u1, C order, 1-D or 2-D.
 */
#ifndef PF_NPY_H
#define PF_NPY_H

#include <stddef.h>
#include <stdint.h>

/* Writes data (ndims 1 or 2, shape[ndims], packed C order, element type
 * descr such as "<f8") to path, replacing it. elsize must match descr.
 * Returns CM_OK, CM_EINVAL or an I/O cm_error. */
int pf_npy_write(const char *path, const char *descr, size_t elsize, int ndims,
                 const int64_t *shape, const void *data);

/* Builds the header (magic, version, length, dict, padding, newline) into
 * buf[size]; *len gets its length, a multiple of 64. For tests and the
 * writer. Returns CM_OK or CM_ERANGE. */
int pf_npy_header(const char *descr, int ndims, const int64_t *shape, char *buf,
                  size_t size, size_t *len);

#endif
