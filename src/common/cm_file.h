/* cm_file.h: whole-file reading, shared by repro's parsers, its report and
 * the tests, and the growable arrays they fill. */
#ifndef CM_FILE_H
#define CM_FILE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* fopen and remove for a UTF-8 path, the project's one encoding of paths.
 * POSIX: fopen and remove themselves. Windows: the C runtime's fopen and
 * remove read a path in the ANSI code page, so a root such as
 * "C:\Users\Zoë\cuda_portfolio" could not be opened from UTF-8 (repro
 * refused every stage: "cannot open contract"); these convert the path to
 * UTF-16 and call _wfopen and _wremove, a long path in the extended form
 * (cm_path_wide, cm_path.h). A path that is not valid UTF-8 is passed on
 * unchanged, as an ANSI name. errno is set as by fopen/remove.
 * One file per platform (cm_fopen_posix.c, cm_fopen_win32.c). */
FILE *cm_fopen(const char *path, const char *mode);
int cm_remove(const char *path);

/* jansson's json_load_file and json_dump_file through cm_fopen (theirs call
 * fopen: an ANSI name on Windows). Same arguments and results; a file that
 * cannot be opened is a NULL / -1 with error->text saying so. */
json_t *cm_json_load_file(const char *path, size_t flags, json_error_t *error);
int cm_json_dump_file(const json_t *json, const char *path, size_t flags);

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

/* Appends len bytes of data to the byte buffer *buf, which holds *n bytes
 * in *cap: doubles *cap (first when 0) until the contents and one byte
 * more fit, so the caller can always add a terminating NUL (len 0 just
 * makes that room), and updates *buf, *n and *cap. Returns CM_OK, or
 * CM_ENOMEM with the buffer unchanged. */
int cm_buf_append(char **buf, size_t *n, size_t *cap, const void *data,
                  size_t len, size_t first);

#endif
