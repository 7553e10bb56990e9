/* rp_bundle.c: <run_dir>.tar.gz, a ustar archive compressed as it is
 * written (rp_archive.h). No temporary tar: headers and file contents go
 * through one gzip stream into a temporary name that is renamed when the
 * stream is complete, so a half-written bundle never carries the final name.
 */
#include "rp_archive.h"

#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_fs.h"
#include "rp_gz.h"
#include "rp_tar.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uv_file fd;
  uint64_t tar_bytes; /* uncompressed tar bytes so far */
  rp__gzip gz;
  unsigned char io[65536];
} bundle_writer;

static int bundle_sink(void *ud, const unsigned char *data, size_t len) {
  bundle_writer *w = (bundle_writer *)ud;
  return rp__fs_write_all(w->fd, data, len);
}

static int tar_put(bundle_writer *w, const void *data, size_t len) {
  w->tar_bytes += len;
  return rp__gzip_write(&w->gz, data, len);
}

static int tar_zeros(bundle_writer *w, size_t len) {
  static const unsigned char zeros[RP__TAR_BLOCK];
  int rc = CM_OK;
  while (rc == CM_OK && len > 0) {
    size_t n = len < sizeof zeros ? len : sizeof zeros;
    rc = tar_put(w, zeros, n);
    len -= n;
  }
  return rc;
}

/* Appends one file: header, contents, padding. The size in the header comes
 * from a stat; a file that changes size while being read is an error, since
 * the header could no longer describe it, and so is one that is no longer
 * a regular file (never followed: the walk listed a regular file). A
 * modification time before 1970, which ustar cannot hold, is written as 0
 * (and one past its 8^11 - 1 as that). An error about the file itself
 * (not about writing the bundle) names rel (rp_archive_failed_path). */
static int add_file(bundle_writer *w, const char *path, const char *tar_name,
                    const char *rel) {
  unsigned char hdr[RP__TAR_BLOCK];
  rp__fs_info info;
  uint64_t done = 0;
  uv_file fd = -1;
  int64_t mtime;
  int rc = rp__fs_lstat(path, &info);
  if (rc == CM_OK && info.kind != RP__FS_FILE)
    rc = CM_EMISMATCH;
  if (rc != CM_OK) {
    rp__fs_note_path(rel);
    return rc;
  }
  mtime = info.mtime_s < 0 ? 0
          : (uint64_t)info.mtime_s > RP__TAR_SIZE_MAX
              ? (int64_t)RP__TAR_SIZE_MAX
              : info.mtime_s;
  rc = rp__tar_header(hdr, tar_name, info.size, mtime);
  if (rc == CM_OK)
    rc = rp__fs_open_read(path, &fd);
  if (rc != CM_OK) {
    rp__fs_note_path(rel);
    return rc;
  }
  rc = tar_put(w, hdr, sizeof hdr);
  for (;;) {
    size_t got = 0;
    if (rc != CM_OK)
      break;
    rc = rp__fs_read(fd, w->io, sizeof w->io, &got);
    if (rc != CM_OK || got == 0) {
      if (rc != CM_OK)
        rp__fs_note_path(rel);
      break;
    }
    done += got;
    if (done > info.size) {
      rc = CM_EMISMATCH;
      rp__fs_note_path(rel);
      break;
    }
    rc = tar_put(w, w->io, got);
    if (rc != CM_OK)
      break;
  }
  rp__fs_close(fd);
  if (rc == CM_OK && done != info.size) {
    rc = CM_EMISMATCH;
    rp__fs_note_path(rel);
  }
  if (rc == CM_OK)
    rc = tar_zeros(w, rp__tar_pad(info.size));
  return rc;
}

static int add_all(bundle_writer *w, const char *dir, const char *base,
                   const rp__strlist *files) {
  char path[RP__PATH_MAX], name[RP__PATH_MAX];
  size_t i;
  int rc;
  /* manifest.json first: a reader streaming the bundle meets the claims
   * before the files they are about. */
  rc = rp__path_join(path, sizeof path, dir, "manifest.json");
  if (rc == CM_OK)
    rc = rp__path_join(name, sizeof name, base, "manifest.json");
  if (rc == CM_OK)
    rc = add_file(w, path, name, "manifest.json");
  for (i = 0; rc == CM_OK && i < files->count; i++) {
    if (strcmp(files->items[i], "manifest.json") == 0)
      continue;
    rc = rp__path_join(path, sizeof path, dir, files->items[i]);
    if (rc == CM_OK)
      rc = rp__path_join(name, sizeof name, base, files->items[i]);
    if (rc == CM_OK)
      rc = add_file(w, path, name, files->items[i]);
  }
  /* End of archive: two zero blocks, then zeros to a whole record. */
  if (rc == CM_OK)
    rc = tar_zeros(w, 2 * RP__TAR_BLOCK);
  if (rc == CM_OK && w->tar_bytes % RP__TAR_RECORD != 0)
    rc = tar_zeros(w, (size_t)(RP__TAR_RECORD - w->tar_bytes % RP__TAR_RECORD));
  return rc;
}

int rp_bundle_write(const char *run_dir, char *bundle_path, size_t size) {
  char dir[RP__PATH_MAX], out[RP__PATH_MAX], tmp[RP__PATH_MAX];
  char manifest[RP__PATH_MAX];
  const char *base;
  rp__strlist files = {0};
  bundle_writer *w;
  size_t len;
  int rc, rc2;
  if (run_dir == NULL || bundle_path == NULL)
    return CM_EINVAL;
  if (cm_strlcpy(dir, run_dir, sizeof dir) != CM_OK)
    return CM_ERANGE;
  len = strlen(dir);
  while (len > 1 && (dir[len - 1] == '/' || dir[len - 1] == '\\'))
    dir[--len] = '\0';
  /* The base name follows the last separator ('\\' too, for Windows). */
  for (base = dir + len; base > dir && base[-1] != '/' && base[-1] != '\\';)
    base--;
  if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return CM_EINVAL; /* no name to give the bundle's top folder */
  rc = cm_snprintf(out, sizeof out, "%s.tar.gz", dir);
  if (rc == CM_OK)
    rc = cm_snprintf(tmp, sizeof tmp, "%s.tmp-%ld", out, (long)uv_os_getpid());
  if (rc == CM_OK)
    rc = cm_strlcpy(bundle_path, out, size);
  if (rc == CM_OK)
    rc = rp__path_join(manifest, sizeof manifest, dir, "manifest.json");
  if (rc != CM_OK)
    return rc;
  rp__fs_note_path("");
  /* A bundle without its manifest could never be verified. */
  if (!plat_path_exists(manifest))
    return CM_ENOENT;
  rc = rp__fs_walk(dir, &files, NULL);
  if (rc != CM_OK)
    return rc;
  w = malloc(sizeof *w);
  if (w == NULL) {
    rp__strlist_free(&files);
    return CM_ENOMEM;
  }
  w->tar_bytes = 0;
  rc = rp__fs_open_write(tmp, &w->fd);
  if (rc != CM_OK) {
    free(w);
    rp__strlist_free(&files);
    return rc;
  }
  rc = rp__gzip_init(&w->gz, Z_DEFAULT_COMPRESSION, bundle_sink, w);
  if (rc == CM_OK) {
    rc = add_all(w, dir, base, &files);
    if (rc == CM_OK)
      rc = rp__gzip_flush(&w->gz, Z_FINISH);
    rp__gzip_end(&w->gz);
  }
  if (rc == CM_OK)
    rc = rp__fs_fsync(w->fd);
  rc2 = rp__fs_close(w->fd);
  if (rc == CM_OK)
    rc = rc2;
  if (rc == CM_OK)
    rc = plat_rename(tmp, out);
  if (rc != CM_OK)
    rp__fs_unlink(tmp);
  free(w);
  rp__strlist_free(&files);
  return rc;
}
