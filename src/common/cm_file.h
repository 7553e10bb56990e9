/* cm_file.h: whole-file reading, shared by repro's parsers, its report and
 * the tests, and the growable arrays they fill. */
#ifndef CM_FILE_H
#define CM_FILE_H

#include <stddef.h>

/* Reads the whole file at path into a malloc'd buffer with a NUL after the
 * last byte (*out), its length in bytes without the NUL into *len. The
 * caller frees *out. Returns CM_OK, CM_ENOENT (no such file), another
 * cm_error from opening it, CM_EIO (read error) or CM_ENOMEM; *out and *len
 * are written only on success. */
int cm_read_file(const char *path, char **out, size_t *len);

/* Makes room for one more element in a growable array: when count == *cap,
 * reallocates the array whose pointer is stored at *items (any object
 * pointer type, passed as its address) to twice *cap elements of elem_size
 * bytes (first when *cap is 0) and updates *items and *cap. Returns CM_OK,
 * or CM_ENOMEM with the array and *cap unchanged. */
int cm_grow(void *items, size_t *cap, size_t count, size_t elem_size,
            size_t first);

#endif
