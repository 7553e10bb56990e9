/* rp_fs.h: the archive's file-system layer over libuv's synchronous calls.
 *
 * Internal to src/repro/archive (double prefix rp__). Every call is a libuv
 * uv_fs_* request with a NULL loop and a NULL callback, so it runs
 * synchronously and the same code works on POSIX and Windows (libuv takes
 * UTF-8 paths with '/' separators on both). libuv errors are translated into
 * cm_error codes here, once. Paths are NUL-terminated, at most RP__PATH_MAX
 * bytes including the NUL; longer ones give CM_ERANGE.
 */
#ifndef RP_FS_H
#define RP_FS_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#define RP__PATH_MAX 4096

/* Translates a negative libuv error into a cm_error (CM_EIO if unknown). */
int rp__fs_err(int uv_err);

typedef enum {
  RP__FS_OTHER = 0, /* a FIFO, socket or device */
  RP__FS_FILE = 1,
  RP__FS_DIR = 2,
  RP__FS_LINK = 3 /* a symbolic link (rp__fs_lstat only) */
} rp__fs_kind;

typedef struct {
  rp__fs_kind kind;
  uint64_t size;     /* bytes */
  int64_t mtime_s;   /* modification time, seconds since the epoch */
  uint64_t mode_fmt; /* the stat mode's type bits (POSIX encoding) */
} rp__fs_info;

/* Stats path, following symbolic links. CM_ENOENT if it does not exist. */
int rp__fs_stat(const char *path, rp__fs_info *info);
/* Stats path itself: a symbolic link is RP__FS_LINK, never followed. */
int rp__fs_lstat(const char *path, rp__fs_info *info);

/* The run-relative path (or the path) the last failing walk, manifest or
 * bundle call was at, "" if none; rp__fs_note_path sets it, "" clears it.
 * The archive is single-threaded: one buffer serves. */
void rp__fs_note_path(const char *path);
const char *rp__fs_noted_path(void);

/* Opens path for reading (binary) into *fd. */
int rp__fs_open_read(const char *path, uv_file *fd);
/* Creates path anew for writing (binary, mode 0644) into *fd: what was
 * there is removed first (a link is removed, never written through). */
int rp__fs_open_write(const char *path, uv_file *fd);
/* Reads up to len bytes at the current position; *got receives the count,
 * 0 at end of file. */
int rp__fs_read(uv_file fd, void *buf, size_t len, size_t *got);
/* Writes all len bytes, retrying short writes. */
int rp__fs_write_all(uv_file fd, const void *buf, size_t len);
/* Flushes the file's data to stable storage (before a rename makes it
 * visible under its final name). */
int rp__fs_fsync(uv_file fd);
int rp__fs_close(uv_file fd);
int rp__fs_unlink(const char *path);

/* Reads a whole file into a malloc'd buffer (*buf, NUL-terminated for
 * convenience; *len excludes the NUL). Files over max bytes give CM_ERANGE.
 * The caller frees *buf. */
int rp__fs_read_all(const char *path, size_t max, char **buf, size_t *len);

/* Writes buf to path atomically: a temporary name in the same folder
 * ("<path>.tmp-<pid>"), fsync, then plat_rename over path. Parent folders
 * are created. On failure the temporary file is removed and path is left as
 * it was. */
int rp__fs_write_atomic(const char *path, const void *buf, size_t len);

/* Creates the folder that will contain path (mkdir -p of its dirname). */
int rp__fs_mkdir_parent(const char *path);

/* dst = a + "/" + b (b alone when a is empty). CM_ERANGE if it won't fit. */
int rp__path_join(char *dst, size_t size, const char *a, const char *b);

/* A growable list of malloc'd strings, owned by the list. */
typedef struct {
  char **items;
  size_t count;
  size_t cap;
} rp__strlist;

int rp__strlist_push(rp__strlist *l, const char *s);
/* Pushes a pair as one item, "a\0b": strcmp and rp__strlist_sort see a
 * alone; rp__strlist_second gives b. */
int rp__strlist_push2(rp__strlist *l, const char *a, const char *b);
const char *rp__strlist_second(const char *item);
/* Sorts by strcmp (byte order), which is the manifest's order. */
void rp__strlist_sort(rp__strlist *l);
void rp__strlist_free(rp__strlist *l);

/* Lists every regular file under root, recursively, as paths relative to
 * root with '/' separators, sorted by strcmp. Folders are descended, not
 * listed. Nothing is followed: a symbolic link (to a file, a folder or
 * nothing) and any other entry that is neither a file nor a folder (FIFO,
 * socket, device) is not listed in out but in skipped (when not NULL) as a
 * pair (rp__strlist_push2): its path and why it was skipped ("symbolic link
 * to TARGET", "FIFO", ...), sorted by path. An error names its path
 * (rp__fs_noted_path). The caller frees both lists with rp__strlist_free;
 * they must be zeroed before the call. */
int rp__fs_walk(const char *root, rp__strlist *out, rp__strlist *skipped);

#endif
