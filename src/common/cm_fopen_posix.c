/* cm_fopen_posix.c: cm_fopen and cm_remove where paths are bytes already
 * (cm_file.h). */
#include "cm_file.h"

#include <stdio.h>

FILE *cm_fopen(const char *path, const char *mode) {
  return fopen(path, mode);
}

int cm_remove(const char *path) {
  return remove(path);
}
