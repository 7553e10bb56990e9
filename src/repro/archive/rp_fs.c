/* rp_fs.c: synchronous libuv file-system calls for the archive. See rp_fs.h.
 *
 * Every uv_fs_* call below passes a NULL loop and a NULL callback: libuv then
 * runs the request on the calling thread and returns its result, which is
 * what keeps this file free of POSIX-only calls. Every path goes to libuv as
 * cm_path_os spells it: libuv hands a path to Windows as it gets it, so a
 * long one must already be in the extended form (cm_path.h).
 */
#include "rp_fs.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_path.h"
#include "cm_str.h"
#include "platform.h"

#include <stdlib.h>
#include <string.h>

int rp__fs_err(int uv_err) {
  switch (uv_err) {
  case 0:
    return CM_OK;
  case UV_ENOENT:
  case UV_ENOTDIR:
    return CM_ENOENT;
  case UV_EEXIST:
    return CM_EEXIST;
  case UV_EACCES:
  case UV_EPERM:
    return CM_EACCES;
  case UV_ENOSPC:
    return CM_ENOSPC;
  case UV_ENOMEM:
    return CM_ENOMEM;
  case UV_EINVAL:
    return CM_EINVAL;
  case UV_EINTR:
    return CM_EINTR;
  case UV_ENAMETOOLONG:
    return CM_ERANGE;
  default:
    return CM_EIO;
  }
}

static char rp__noted[RP__PATH_MAX];

void rp__fs_note_path(const char *path) {
  (void)cm_strlcpy(rp__noted, path != NULL ? path : "", sizeof rp__noted);
}

const char *rp__fs_noted_path(void) {
  return rp__noted;
}

static void fill_info(const uv_stat_t *st, rp__fs_info *info) {
  /* S_IFMT is not in every C runtime's headers; libuv's stat mode uses
   * the POSIX encoding on every platform, so the mask is spelled out. */
  uint64_t fmt = st->st_mode & 0170000u;
  info->kind = fmt == 0100000u   ? RP__FS_FILE
               : fmt == 0040000u ? RP__FS_DIR
               : fmt == 0120000u ? RP__FS_LINK
                                 : RP__FS_OTHER;
  info->mode_fmt = fmt;
  info->size = st->st_size;
  info->mtime_s = (int64_t)st->st_mtim.tv_sec;
}

/* uv_fs_stat, or uv_fs_lstat when link is 1. */
static int stat_path(const char *path, int link, rp__fs_info *info) {
  char os[RP__PATH_MAX];
  uv_fs_t req;
  int r = cm_path_os(path, os, sizeof os);
  if (r != CM_OK)
    return r;
  r = link ? uv_fs_lstat(NULL, &req, os, NULL)
           : uv_fs_stat(NULL, &req, os, NULL);
  if (r >= 0)
    fill_info(&req.statbuf, info);
  uv_fs_req_cleanup(&req);
  return r < 0 ? rp__fs_err(r) : CM_OK;
}

int rp__fs_stat(const char *path, rp__fs_info *info) {
  return stat_path(path, 0, info);
}

int rp__fs_lstat(const char *path, rp__fs_info *info) {
  return stat_path(path, 1, info);
}

static int open_flags(const char *path, int flags, int mode, uv_file *fd) {
  char os[RP__PATH_MAX];
  uv_fs_t req;
  int r = cm_path_os(path, os, sizeof os);
  if (r != CM_OK)
    return r;
  r = uv_fs_open(NULL, &req, os, flags, mode, NULL);
  uv_fs_req_cleanup(&req);
  if (r < 0)
    return rp__fs_err(r);
  *fd = (uv_file)r;
  return CM_OK;
}

int rp__fs_open_read(const char *path, uv_file *fd) {
  return open_flags(path, UV_FS_O_RDONLY, 0, fd);
}

int rp__fs_open_write(const char *path, uv_file *fd) {
  /* Always a new file: whatever is at path (a link planted there, which
   * O_TRUNC wrote through to its target outside the run folder; a FIFO; a
   * file left by another) is removed first, and O_EXCL refuses a name
   * that comes back before the open (no link is followed then either). */
  (void)rp__fs_unlink(path);
  return open_flags(path, UV_FS_O_WRONLY | UV_FS_O_CREAT | UV_FS_O_EXCL, 0644,
                    fd);
}

int rp__fs_read(uv_file fd, void *buf, size_t len, size_t *got) {
  uv_fs_t req;
  uv_buf_t b;
  int r;
  /* uv_buf_t lengths are unsigned int on Windows: read in bounded pieces. */
  if (len > (size_t)1 << 30)
    len = (size_t)1 << 30;
  b = uv_buf_init((char *)buf, (unsigned int)len);
  do {
    r = uv_fs_read(NULL, &req, fd, &b, 1, -1, NULL);
    uv_fs_req_cleanup(&req);
  } while (r == UV_EINTR);
  if (r < 0)
    return rp__fs_err(r);
  *got = (size_t)r;
  return CM_OK;
}

int rp__fs_write_all(uv_file fd, const void *buf, size_t len) {
  const char *p = (const char *)buf;
  while (len > 0) {
    uv_fs_t req;
    size_t n = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len;
    uv_buf_t b = uv_buf_init((char *)p, (unsigned int)n);
    int r = uv_fs_write(NULL, &req, fd, &b, 1, -1, NULL);
    uv_fs_req_cleanup(&req);
    if (r == UV_EINTR)
      continue;
    if (r < 0)
      return rp__fs_err(r);
    if (r == 0)
      return CM_EIO; /* no progress: never spin */
    p += r;
    len -= (size_t)r;
  }
  return CM_OK;
}

int rp__fs_fsync(uv_file fd) {
  uv_fs_t req;
  int r = uv_fs_fsync(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  return r < 0 ? rp__fs_err(r) : CM_OK;
}

int rp__fs_close(uv_file fd) {
  uv_fs_t req;
  int r = uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  return r < 0 ? rp__fs_err(r) : CM_OK;
}

int rp__fs_unlink(const char *path) {
  char os[RP__PATH_MAX];
  uv_fs_t req;
  int r = cm_path_os(path, os, sizeof os);
  if (r != CM_OK)
    return r;
  r = uv_fs_unlink(NULL, &req, os, NULL);
  uv_fs_req_cleanup(&req);
  return r < 0 ? rp__fs_err(r) : CM_OK;
}

int rp__fs_read_all(const char *path, size_t max, char **buf, size_t *len) {
  rp__fs_info info;
  uv_file fd = -1;
  char *data;
  size_t have = 0;
  int rc = rp__fs_stat(path, &info);
  if (rc != CM_OK)
    return rc;
  if (info.kind != RP__FS_FILE)
    return CM_EINVAL;
  if (info.size > max)
    return CM_ERANGE;
  rc = rp__fs_open_read(path, &fd);
  if (rc != CM_OK)
    return rc;
  data = malloc((size_t)info.size + 1);
  if (data == NULL) {
    rp__fs_close(fd);
    return CM_ENOMEM;
  }
  /* Read until end of file rather than trusting the stat size, so a file
   * that grew or shrank since is still read as it is now (up to max). */
  for (;;) {
    size_t got = 0;
    if (have == (size_t)info.size) {
      char probe;
      rc = rp__fs_read(fd, &probe, 1, &got);
      if (rc == CM_OK && got != 0)
        rc = CM_ERANGE; /* grew since the stat */
      break;
    }
    rc = rp__fs_read(fd, data + have, (size_t)info.size - have, &got);
    if (rc != CM_OK || got == 0)
      break;
    have += got;
  }
  rp__fs_close(fd);
  if (rc != CM_OK) {
    free(data);
    return rc;
  }
  data[have] = '\0';
  *buf = data;
  *len = have;
  return CM_OK;
}

int rp__fs_mkdir_parent(const char *path) {
  char dir[RP__PATH_MAX];
  char *slash;
  if (cm_strlcpy(dir, path, sizeof dir) != CM_OK)
    return CM_ERANGE;
  slash = strrchr(dir, '/');
  if (slash == NULL || slash == dir)
    return CM_OK; /* relative to the current folder, or the root */
  *slash = '\0';
  return plat_mkdir_p(dir);
}

int rp__fs_write_atomic(const char *path, const void *buf, size_t len) {
  char tmp[RP__PATH_MAX];
  uv_file fd = -1;
  int rc, rc2;
  rc = cm_snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)uv_os_getpid());
  if (rc != CM_OK)
    return rc;
  rc = rp__fs_mkdir_parent(path);
  if (rc != CM_OK)
    return rc;
  rc = rp__fs_open_write(tmp, &fd);
  if (rc != CM_OK)
    return rc;
  rc = rp__fs_write_all(fd, buf, len);
  if (rc == CM_OK)
    rc = rp__fs_fsync(fd);
  rc2 = rp__fs_close(fd);
  if (rc == CM_OK)
    rc = rc2;
  if (rc == CM_OK)
    rc = plat_rename(tmp, path);
  if (rc != CM_OK)
    rp__fs_unlink(tmp);
  return rc;
}

int rp__path_join(char *dst, size_t size, const char *a, const char *b) {
  if (a == NULL || *a == '\0')
    return cm_strlcpy(dst, b, size);
  return cm_snprintf(dst, size, "%s/%s", a, b);
}

int rp__strlist_push(rp__strlist *l, const char *s) {
  size_t n = strlen(s);
  char *copy;
  if (cm_grow(&l->items, &l->cap, l->count, sizeof *l->items, 16) != CM_OK)
    return CM_ENOMEM;
  copy = malloc(n + 1);
  if (copy == NULL)
    return CM_ENOMEM;
  memcpy(copy, s, n + 1);
  l->items[l->count++] = copy;
  return CM_OK;
}

int rp__strlist_push2(rp__strlist *l, const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *copy;
  if (cm_grow(&l->items, &l->cap, l->count, sizeof *l->items, 16) != CM_OK)
    return CM_ENOMEM;
  copy = malloc(na + nb + 2);
  if (copy == NULL)
    return CM_ENOMEM;
  memcpy(copy, a, na + 1);
  memcpy(copy + na + 1, b, nb + 1);
  l->items[l->count++] = copy;
  return CM_OK;
}

const char *rp__strlist_second(const char *item) {
  return item + strlen(item) + 1;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rp__strlist_sort(rp__strlist *l) {
  if (l->count > 1)
    qsort(l->items, l->count, sizeof *l->items, cmp_str);
}

void rp__strlist_free(rp__strlist *l) {
  size_t i;
  for (i = 0; i < l->count; i++)
    free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->count = l->cap = 0;
}

/* Why the entry at path, of kind info, is not archived: "symbolic link to
 * TARGET", "FIFO", ... into why[size]. */
static void skip_reason(const char *path, const rp__fs_info *info, char *why,
                        size_t size) {
  const char *what;
  if (info->kind == RP__FS_LINK) {
    /* on the heap: this runs inside walk_dir's recursion */
    char *os = malloc(RP__PATH_MAX);
    uv_fs_t req;
    (void)cm_strlcpy(why, "symbolic link (target unreadable)", size);
    if (os != NULL && cm_path_os(path, os, RP__PATH_MAX) == CM_OK) {
      if (uv_fs_readlink(NULL, &req, os, NULL) >= 0 && req.ptr != NULL)
        (void)cm_snprintf(why, size, "symbolic link to %s",
                          (const char *)req.ptr);
      uv_fs_req_cleanup(&req);
    }
    free(os);
    return;
  }
  switch (info->mode_fmt) {
  case 0010000u:
    what = "FIFO";
    break;
  case 0140000u:
    what = "socket";
    break;
  case 0060000u:
    what = "block device";
    break;
  case 0020000u:
    what = "character device";
    break;
  default:
    what = "special file";
    break;
  }
  (void)cm_strlcpy(why, what, size);
}

/* One level's paths: on the heap, since a level's 16 KiB on the stack
 * times 65 levels passes the 1 MiB main-thread stack of an MSVC build. */
typedef struct {
  char dir[RP__PATH_MAX], child_rel[RP__PATH_MAX], child[RP__PATH_MAX];
  char why[RP__PATH_MAX + 32];
} rp__walk_bufs;

/* Lists root/rel (rel "" for root itself) into out, descending folders;
 * links and special files go to skipped (when not NULL). */
static int walk_dir(const char *root, const char *rel, rp__strlist *out,
                    rp__strlist *skipped, int depth) {
  rp__walk_bufs *b;
  uv_fs_t req;
  uv_dirent_t ent;
  int r, rc = CM_OK;
  /* Nothing is followed, so only a folder 64 deep stops here. */
  if (depth > 64) {
    rp__fs_note_path(rel);
    return CM_ERANGE;
  }
  b = malloc(sizeof *b);
  if (b == NULL) {
    rp__fs_note_path(rel);
    return CM_ENOMEM;
  }
  /* child serves as scratch here: dir is the joined path as libuv takes it */
  rc = rp__path_join(b->child, sizeof b->child, root, rel);
  if (rc == CM_OK)
    rc = cm_path_os(b->child, b->dir, sizeof b->dir);
  if (rc != CM_OK) {
    rp__fs_note_path(rel);
    free(b);
    return rc;
  }
  r = uv_fs_scandir(NULL, &req, b->dir, 0, NULL);
  if (r < 0) {
    uv_fs_req_cleanup(&req);
    rp__fs_note_path(*rel != '\0' ? rel : root);
    free(b);
    return rp__fs_err(r);
  }
  while (rc == CM_OK && uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    rp__fs_info info;
    rc = rp__path_join(b->child_rel, sizeof b->child_rel, rel, ent.name);
    if (rc == CM_OK)
      rc = rp__path_join(b->child, sizeof b->child, root, b->child_rel);
    /* The dirent type may be UNKNOWN on some file systems: always stat,
     * the entry itself (a link is recorded, never followed: a link to
     * ".." would list the run's parent, one to a file outside the run
     * would bring that file's content into the archive). */
    if (rc == CM_OK)
      rc = rp__fs_lstat(b->child, &info);
    if (rc != CM_OK) {
      rp__fs_note_path(b->child_rel);
      break;
    }
    if (info.kind == RP__FS_DIR) {
      rc = walk_dir(root, b->child_rel, out, skipped, depth + 1);
    } else if (info.kind == RP__FS_FILE) {
      rc = rp__strlist_push(out, b->child_rel);
    } else if (skipped != NULL) {
      skip_reason(b->child, &info, b->why, sizeof b->why);
      rc = rp__strlist_push2(skipped, b->child_rel, b->why);
    }
  }
  /* Left early, the entries not yet read are released by the cleanup, but
   * not the last one read when it was the directory's last (libuv frees
   * that one only in the next uv_fs_scandir_next): read on to the end, as
   * the loop would have. Found by the allocation-failure replay. */
  while (rc != CM_OK && uv_fs_scandir_next(&req, &ent) != UV_EOF)
    ;
  uv_fs_req_cleanup(&req);
  free(b);
  return rc;
}

int rp__fs_walk(const char *root, rp__strlist *out, rp__strlist *skipped) {
  int rc;
  rp__fs_note_path("");
  rc = walk_dir(root, "", out, skipped, 0);
  if (rc != CM_OK) {
    rp__strlist_free(out);
    if (skipped != NULL)
      rp__strlist_free(skipped);
    return rc;
  }
  rp__strlist_sort(out);
  if (skipped != NULL)
    rp__strlist_sort(skipped);
  return CM_OK;
}
