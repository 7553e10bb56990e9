/* rp_log.c: a step's output as a streaming .log.gz file (rp_archive.h).
 *
 * Bytes are compressed as they arrive and the compressed stream is written
 * straight to its final name: a log is evidence even when the run dies, and
 * rp_log_flush makes everything so far decompressible. The manifest, not the
 * log's name, is what claims a run complete.
 */
#include "rp_archive.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_fs.h"
#include "rp_gz.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp_log {
  uv_file fd;
  int err; /* first error; every later call returns it */
  rp__gzip gz;
};

static int log_sink(void *ud, const unsigned char *data, size_t len) {
  rp_log *log = (rp_log *)ud;
  return rp__fs_write_all(log->fd, data, len);
}

int rp_log_open(const char *run_dir, const char *relpath, rp_log **out) {
  char path[RP__PATH_MAX];
  rp_log *log;
  int rc;
  if (run_dir == NULL || relpath == NULL || out == NULL || *relpath == '\0')
    return CM_EINVAL;
  rc = rp__path_join(path, sizeof path, run_dir, relpath);
  if (rc == CM_OK)
    rc = rp__fs_mkdir_parent(path);
  if (rc != CM_OK)
    return rc;
  log = malloc(sizeof *log);
  if (log == NULL)
    return CM_ENOMEM;
  log->err = CM_OK;
  rc = rp__fs_open_write(path, &log->fd);
  if (rc != CM_OK) {
    free(log);
    return rc;
  }
  rc = rp__gzip_init(&log->gz, Z_DEFAULT_COMPRESSION, log_sink, log);
  if (rc != CM_OK) {
    rp__fs_close(log->fd);
    free(log);
    return rc;
  }
  *out = log;
  return CM_OK;
}

int rp_log_write(rp_log *log, const void *data, size_t len) {
  if (log == NULL)
    return CM_EINVAL;
  if (log->err == CM_OK && len > 0)
    log->err = rp__gzip_write(&log->gz, data, len);
  return log->err;
}

int rp_log_flush(rp_log *log) {
  if (log == NULL)
    return CM_EINVAL;
  if (log->err == CM_OK)
    log->err = rp__gzip_flush(&log->gz, Z_SYNC_FLUSH);
  return log->err;
}

int rp_log_close(rp_log *log, uint64_t *raw_bytes) {
  int rc, rc2;
  if (log == NULL)
    return CM_EINVAL;
  if (log->err == CM_OK)
    log->err = rp__gzip_flush(&log->gz, Z_FINISH);
  if (log->err == CM_OK)
    log->err = rp__fs_fsync(log->fd);
  rc = log->err;
  rc2 = rp__fs_close(log->fd);
  if (rc == CM_OK)
    rc = rc2;
  if (raw_bytes != NULL)
    *raw_bytes = log->gz.raw_bytes;
  rp__gzip_end(&log->gz);
  free(log);
  return rc;
}

int rp_move_in_run(const char *run_dir, const char *from_rel,
                   const char *to_rel) {
  char from[RP__PATH_MAX], to[RP__PATH_MAX];
  int rc;
  if (run_dir == NULL || from_rel == NULL || to_rel == NULL)
    return CM_EINVAL;
  rc = rp__path_join(from, sizeof from, run_dir, from_rel);
  if (rc == CM_OK)
    rc = rp__path_join(to, sizeof to, run_dir, to_rel);
  if (rc == CM_OK)
    rc = rp__fs_mkdir_parent(to);
  return rc == CM_OK ? plat_rename(from, to) : rc;
}

int rp_write_file_atomic(const char *run_dir, const char *relpath,
                         const void *buf, size_t len) {
  char path[RP__PATH_MAX];
  int rc;
  if (run_dir == NULL || relpath == NULL || (buf == NULL && len > 0))
    return CM_EINVAL;
  rc = rp__path_join(path, sizeof path, run_dir, relpath);
  if (rc != CM_OK)
    return rc;
  return rp__fs_write_atomic(path, buf, len);
}

/* ---- Reading a gzip file back (rp_log_read, rp_gz_read) ---- */

typedef struct {
  char *buf;
  size_t n, cap, max;
} rp__gz_text;

/* Keeps what fits under max and stops the stream with CM_ERANGE past it. */
static int text_sink(void *ud, const unsigned char *data, size_t len) {
  rp__gz_text *t = (rp__gz_text *)ud;
  size_t take = len < t->max - t->n ? len : t->max - t->n;
  int r = cm_buf_append(&t->buf, &t->n, &t->cap, data, take, 65536);
  return r != CM_OK ? r : (take < len ? CM_ERANGE : CM_OK);
}

/* The gzip file at path, decompressed (at most max bytes), NUL-terminated.
 * keep: a damaged or unfinished end keeps what came before it (a log);
 * else it is an error (a document). */
static int gz_read(const char *path, size_t max, int keep, char **out,
                   size_t *len) {
  unsigned char *chunk;
  uint64_t rawlen = 0;
  rp__gunzip *g;
  rp__gz_text t = {NULL, 0, 0, max};
  int r = CM_OK, io = CM_OK;
  /* cm_fopen, not gzopen: zlib's gzopen takes an ANSI path on Windows, so a
   * run under a non-ASCII folder read no log there. Read a chunk at a time:
   * a caller after the first max bytes reads no more of a large file (a
   * bundle, say) than it takes to decompress those. */
  FILE *f = cm_fopen(path, "rb");
  if (f == NULL)
    return errno == ENOENT ? CM_ENOENT : cm_error_from_errno(errno);
  g = malloc(sizeof *g);
  chunk = malloc(RP__GZ_BUF);
  if (g == NULL || chunk == NULL ||
      rp__gunzip_init(g, text_sink, &t) != CM_OK) {
    free(g);
    free(chunk);
    fclose(f);
    return CM_ENOMEM;
  }
  while (r == CM_OK) {
    size_t got = fread(chunk, 1, RP__GZ_BUF, f);
    if (got == 0) {
      io = ferror(f) ? CM_EIO : CM_OK;
      break;
    }
    rawlen += got;
    r = rp__gunzip_feed(g, chunk, got);
  }
  fclose(f);
  free(chunk);
  if (r == CM_OK && io == CM_OK)
    r = rp__gunzip_finish(g);
  rp__gunzip_end(g);
  free(g);
  if (io != CM_OK) { /* as cm_read_file: nothing of a file not read whole */
    free(t.buf);
    return io;
  }
  if (keep && r != CM_ENOMEM && (t.n > 0 || rawlen == 0))
    r = CM_OK; /* as zcat does */
  if (r != CM_OK && r != CM_ERANGE) {
    free(t.buf);
    return keep && r != CM_ENOMEM ? CM_EMISMATCH : r;
  }
  /* an empty append: the buffer, with room for the NUL, even for 0 bytes */
  if (text_sink(&t, (const unsigned char *)"", 0) != CM_OK) {
    free(t.buf);
    return CM_ENOMEM;
  }
  t.buf[t.n] = '\0';
  *out = t.buf;
  *len = t.n;
  return r;
}

int rp_log_read(const char *run_dir, const char *relpath, char **out,
                size_t *len) {
  char path[RP__PATH_MAX];
  if (cm_snprintf(path, sizeof path, "%s/%s", run_dir, relpath) != CM_OK)
    return CM_EINVAL;
  return gz_read(path, SIZE_MAX, 1, out, len);
}

int rp_gz_read(const char *path, size_t max, char **out, size_t *len) {
  return gz_read(path, max, 0, out, len);
}
