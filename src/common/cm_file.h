/* cm_file.h: whole-file reading, shared by repro's parsers, its report and
 * the tests. */
#ifndef CM_FILE_H
#define CM_FILE_H

#include <stddef.h>

/* Reads the whole file at path into a malloc'd buffer with a NUL after the
 * last byte (*out), its length in bytes without the NUL into *len. The
 * caller frees *out. Returns CM_OK, CM_ENOENT (no such file), another
 * cm_error from opening it, CM_EIO (read error) or CM_ENOMEM; *out and *len
 * are written only on success. */
int cm_read_file(const char *path, char **out, size_t *len);

#endif
