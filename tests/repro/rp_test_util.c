/* Helpers for the repro test suites. Portable through libuv and platform.h,
 * so that the same suites run on Linux and, cross-built, under Wine. */
#include "cm_file.h"
#include "rp_test_util.h"
#include "cm_error.h"
#include "cm_str.h"
#include "cm_test.h"
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include <zlib.h>

int rt_remove_tree(const char *path) {
  uv_fs_t req;
  uv_dirent_t ent;
  int r, first = 0;
  r = uv_fs_lstat(NULL, &req, path, NULL);
  /* libuv's mode is POSIX's encoding everywhere (rp_fs.c): 0040000 a
   * folder; anything else (a file, a link) is unlinked */
  if (r == 0 && (req.statbuf.st_mode & 0170000u) != 0040000u) {
    /* a link's mode is not changed: chmod would change its target's */
    const int link = (req.statbuf.st_mode & 0170000u) == 0120000u;
    uv_fs_req_cleanup(&req);
    r = uv_fs_unlink(NULL, &req, path, NULL);
    uv_fs_req_cleanup(&req);
    if (r == 0 || link)
      return r;
    (void)uv_fs_chmod(NULL, &req, path, 0666, NULL);
    uv_fs_req_cleanup(&req);
    r = uv_fs_unlink(NULL, &req, path, NULL);
    uv_fs_req_cleanup(&req);
    return r;
  }
  uv_fs_req_cleanup(&req);
  if (r != 0)
    return r == UV_ENOENT ? 0 : r;
  (void)uv_fs_chmod(NULL, &req, path, 0777, NULL);
  uv_fs_req_cleanup(&req);
  r = uv_fs_scandir(NULL, &req, path, 0, NULL);
  if (r < 0) {
    uv_fs_req_cleanup(&req);
    return r;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    char child[4096];
    int e;
    if (cm_snprintf(child, sizeof child, "%s/%s", path, ent.name) != CM_OK)
      e = UV_ENAMETOOLONG;
    else
      e = rt_remove_tree(child);
    if (first == 0)
      first = e;
  }
  uv_fs_req_cleanup(&req);
  r = uv_fs_rmdir(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
  return first != 0 ? first : r;
}

/* The folders rt_fresh_dir made in this process, removed when its test
 * passes or is skipped (cm_test_on_success); past the table's size, a
 * folder stays. */
static char rt__made[32][1024];
static int rt__nmade;

static void rt__remove_made(void) {
  int i, r;
  for (i = 0; i < rt__nmade; i++)
    if ((r = rt_remove_tree(rt__made[i])) != 0)
      fprintf(stderr, "rt_fresh_dir: %s not removed: %s\n", rt__made[i],
              uv_strerror(r));
  rt__nmade = 0;
}

int rt_fresh_dir(const char *name, char *out, size_t size) {
  uv_fs_t req;
  int r = UV_EEXIST, k;
  /* A plain mkdir, not plat_mkdir_p: an existing folder is a leftover of an
   * earlier run with the same pid (Wine reuses small pids run after run),
   * and a test must not read its files, so take the next free name. */
  for (k = 0; k < 1000 && r == UV_EEXIST; k++) {
    if (cm_snprintf(out, size, "%s/%s-%ld-%d", cm_test_tmpdir(), name,
                    (long)uv_os_getpid(), k) != CM_OK)
      return -1;
    r = uv_fs_mkdir(NULL, &req, out, 0777, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (r != 0)
    return -1;
  /* The OS's own spelling of the folder: under Wine the build tree's
   * "/work/..." has no drive, and a program path without one is not found
   * by uv_spawn once the child's cwd is set (it gets "Z:\work\..."). */
  r = uv_fs_realpath(NULL, &req, out, NULL);
  if (r == 0 && cm_strlcpy(out, req.ptr, size) != CM_OK)
    r = -1;
  uv_fs_req_cleanup(&req);
  if (r == 0 && rt__nmade < (int)(sizeof rt__made / sizeof rt__made[0]) &&
      cm_strlcpy(rt__made[rt__nmade], out, sizeof rt__made[0]) == CM_OK) {
    rt__nmade++;
    cm_test_on_success(rt__remove_made);
  }
  return r == 0 ? 0 : -1;
}

int rt_write(const char *path, const char *text, int exec) {
  FILE *f = cm_fopen(path, "wb");
  size_t n = strlen(text);
  uv_fs_t req;
  int r;
  if (f == NULL)
    return -1;
  if (fwrite(text, 1, n, f) != n) {
    fclose(f);
    return -1;
  }
  if (fclose(f) != 0)
    return -1;
  if (!exec)
    return 0;
  /* Windows keeps only the read-only bit; executability comes from the
   * name there, so this only matters on POSIX. */
  r = uv_fs_chmod(NULL, &req, path, 0755, NULL);
  uv_fs_req_cleanup(&req);
  return r == 0 ? 0 : -1;
}

char *rt_read(const char *path, size_t *len) {
  FILE *f = cm_fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  if (f == NULL)
    return NULL;
  do {
    if (n + 4096 + 1 > cap) {
      char *nb = realloc(buf, cap = (cap + 4096) * 2);
      if (nb == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, 4096, f);
    n += got;
  } while (got > 0);
  fclose(f);
  buf[n] = '\0';
  if (len != NULL)
    *len = n;
  return buf;
}

int rt_gunzip_count(const char *path, uint64_t *n, uint64_t *n_expect,
                    char expect) {
  static char buf[65536];
  gzFile g = gzopen(path, "rb");
  int got, i, err;
  *n = *n_expect = 0;
  if (g == NULL)
    return -1;
  while ((got = gzread(g, buf, sizeof buf)) > 0) {
    *n += (uint64_t)got;
    for (i = 0; i < got; i++)
      *n_expect += buf[i] == expect;
  }
  gzerror(g, &err);
  gzclose(g);
  return got < 0 || (err != Z_OK && err != Z_STREAM_END) ? -1 : 0;
}

int rt_find_run(const char *dir, char *out, size_t size) {
  uv_fs_t req;
  uv_dirent_t e;
  int rc = -1;
  if (uv_fs_scandir(NULL, &req, dir, 0, NULL) < 0) {
    uv_fs_req_cleanup(&req);
    return -1;
  }
  while (uv_fs_scandir_next(&req, &e) == 0) {
    size_t l = strlen(e.name);
    if (e.name[0] == '.' || (l > 7 && strcmp(e.name + l - 7, ".tar.gz") == 0))
      continue;
    if (cm_snprintf(out, size, "%s/%s", dir, e.name) == CM_OK)
      rc = 0;
    break;
  }
  uv_fs_req_cleanup(&req);
  return rc;
}

void rt_sleep_ms(unsigned ms) {
  uv_sleep(ms);
}

int rt_setenv(const char *name, const char *value) {
  return uv_os_setenv(name, value) == 0 ? 0 : -1;
}

long rt_getpid(void) {
  return (long)uv_os_getpid();
}

int rt_copy_file(const char *from, const char *to) {
  uv_fs_t req;
  int r = uv_fs_copyfile(NULL, &req, from, to, 0, NULL);
  uv_fs_req_cleanup(&req);
  return r == 0 ? 0 : -1;
}
