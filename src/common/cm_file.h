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
 * cannot be opened is a NULL / -1 with error->text saying so.
 * cm_json_load_file and cm_json_loadb (json_loadb's arguments and results)
 * are the project's only JSON readers, because jansson's reader cannot go on
 * after an allocation fails: its lexer drops the byte it was saving and
 * then reads and writes past its buffer (jansson's issue 362, open since
 * 2017; an assertion or a corrupted heap, found by tests/fuzz/oom.c). While
 * one of the two reads, an allocation of jansson's that fails stops the
 * process: a message on stderr, then exit(CM_JSON_OOM_EXIT), before jansson
 * sees the NULL. Any other jansson allocation that fails returns NULL as
 * jansson documents, and the callers handle it. */
/* repro's RP_EXIT_NOMEM (rp_main.c asserts they agree); cuda_portfolio
 * reads no JSON */
#define CM_JSON_OOM_EXIT 6
json_t *cm_json_load_file(const char *path, size_t flags, json_error_t *error);
json_t *cm_json_loadb(const char *buf, size_t len, size_t flags,
                      json_error_t *error);

/* Sets jansson's allocator to the project's (malloc and free, counting what
 * is refused); each program's main calls it before it builds a document,
 * and the two readers above set it too. */
void cm_json_init(void);

/* 1 once jansson has been refused an allocation in this process (since
 * cm_json_init). jansson's setters and appenders say so only through
 * return values, which the documents' builders (the manifest, the results
 * file, the report's exports) do not check call by call: a document built
 * after a refusal may lack what was refused, with nothing in it to say so. */
int cm_json_failed(void);

/* Forgets the refusals counted so far: only for a test driver that runs
 * many inputs in one process (tests/fuzz/oom.c), each as a fresh one. */
void cm_json_forget_failures(void);

/* json_dumps, but NULL once cm_json_failed(): a document that may lack a
 * field is not written as if complete (the writers then fail as on any
 * allocation failure). cm_json_dump_file, next, likewise returns -1. */
char *cm_json_dumps(const json_t *json, size_t flags);
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
