#include "cm_file.h"
#include "cm_error.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cm_read_file(const char *path, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (f == NULL)
    return errno == ENOENT ? CM_ENOENT : cm_error_from_errno(errno);
  for (;;) {
    size_t got;
    if (cap - n < 4096) {
      size_t ncap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, ncap + 1);
      if (nb == NULL) {
        free(buf);
        fclose(f);
        return CM_ENOMEM;
      }
      buf = nb;
      cap = ncap;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    free(buf);
    fclose(f);
    return CM_EIO;
  }
  fclose(f);
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return CM_OK;
}

int cm_grow(void *items, size_t *cap, size_t count, size_t elem_size,
            size_t first) {
  void *p, *np;
  size_t ncap;
  if (count < *cap)
    return CM_OK;
  ncap = *cap ? *cap * 2 : first;
  if (ncap < *cap || elem_size == 0 || ncap > SIZE_MAX / elem_size)
    return CM_ENOMEM;
  memcpy(&p, items, sizeof p);
  np = realloc(p, ncap * elem_size);
  if (np == NULL)
    return CM_ENOMEM;
  memcpy(items, &np, sizeof np);
  *cap = ncap;
  return CM_OK;
}
