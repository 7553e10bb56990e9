/* plat_file.c: file helpers that are the same on every OS (they reach the
 * OS only through stdio and plat_rename). */
#include "platform.h"
#include "cm_file.h"

#include "cm_error.h"
#include "cm_str.h"

#include <errno.h>
#include <stdio.h>

/* Creates path + suffix (named in tmp[size]) for writing into *f; the fopen
 * failure as its errno's cm_error (a folder gone is CM_ENOENT, not an I/O
 * error). Whatever is at that name goes first: a symbolic link left there
 * would have fopen write through it into the file it points at. */
static int plat__create_tmp(const char *path, const char *suffix, char *tmp,
                            size_t size, FILE **f) {
  int r = cm_snprintf(tmp, size, "%s%s", path, suffix);
  if (r != CM_OK)
    return r;
  (void)cm_remove(tmp);
  errno = 0;
  *f = cm_fopen(tmp, "wb");
  if (*f == NULL)
    return errno != 0 ? cm_error_from_errno(errno) : CM_EIO;
  return CM_OK;
}

int plat_write_file_atomic(const char *path, const void *buf, size_t len) {
  char tmp[4096];
  FILE *f;
  int r;
  if (path == NULL || (buf == NULL && len > 0))
    return CM_EINVAL;
  r = plat__create_tmp(path, ".tmp", tmp, sizeof tmp, &f);
  if (r != CM_OK)
    return r;
  if (fwrite(buf, 1, len, f) != len) {
    fclose(f);
    cm_remove(tmp);
    return CM_EIO;
  }
  if (fclose(f) != 0) {
    cm_remove(tmp);
    return CM_EIO;
  }
  r = plat_rename(tmp, path);
  if (r != CM_OK)
    cm_remove(tmp);
  return r;
}

int plat_check_write_target(const char *path) {
  if (path == NULL || path[0] == '\0')
    return CM_EINVAL;
  if (plat_path_is_dir(path))
    return CM_EEXIST;
  /* a device (/dev/null, /dev/stdout), FIFO or socket: the rename at the
   * end would replace it with a regular file (as root, /dev/null itself) */
  if (plat_path_is_special(path))
    return CM_EINVAL;
  return CM_OK;
}

int plat_probe_write_atomic(const char *path) {
  char tmp[4096];
  FILE *f;
  int r = plat_check_write_target(path);
  if (r != CM_OK)
    return r;
  /* a name of the probe's own: "path.tmp" may hold what a writer left, and
   * the probe of a run that never starts must change nothing */
  r = plat__create_tmp(path, ".tmp-probe", tmp, sizeof tmp, &f);
  if (r != CM_OK)
    return r;
  fclose(f);
  cm_remove(tmp);
  return CM_OK;
}
