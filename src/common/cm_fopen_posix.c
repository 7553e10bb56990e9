/* cm_fopen_posix.c: cm_fopen and cm_remove where paths are bytes already
 * (cm_file.h), and cm_path_os, which has nothing to change (cm_path.h). */
#include "cm_file.h"
#include "cm_path.h"

#include "cm_error.h"
#include "cm_str.h"

#include <stdio.h>

FILE *cm_fopen(const char *path, const char *mode) {
  return fopen(path, mode);
}

int cm_remove(const char *path) {
  return remove(path);
}

int cm_path_os(const char *path, char *out, size_t size) {
  if (path == NULL || out == NULL || size == 0)
    return CM_EINVAL;
  return cm_strlcpy(out, path, size);
}
