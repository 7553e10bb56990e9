#include "cm_file.h"
#include "cm_error.h"
#include "cm_str.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cm_read_file(const char *path, char **out, size_t *len) {
  FILE *f = cm_fopen(path, "rb");
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

int cm_buf_append(char **buf, size_t *n, size_t *cap, const void *data,
                  size_t len, size_t first) {
  size_t ncap = *cap ? *cap : (first ? first : 1);
  char *nb;
  if (len > SIZE_MAX - *n - 1)
    return CM_ENOMEM;
  while (ncap < *n + len + 1) {
    if (ncap > SIZE_MAX / 2)
      return CM_ENOMEM;
    ncap *= 2;
  }
  if (ncap != *cap || *buf == NULL) {
    nb = realloc(*buf, ncap);
    if (nb == NULL)
      return CM_ENOMEM;
    *buf = nb;
    *cap = ncap;
  }
  if (len > 0)
    memcpy(*buf + *n, data, len);
  *n += len;
  return CM_OK;
}

json_t *cm_json_load_file(const char *path, size_t flags, json_error_t *error) {
  FILE *f = cm_fopen(path, "rb");
  json_t *j;
  if (f == NULL) {
    if (error != NULL) {
      memset(error, 0, sizeof *error);
      error->line = error->column = -1;
      cm_snprintf(error->text, sizeof error->text, "unable to open %s: %s",
                  path, strerror(errno));
      cm_snprintf(error->source, sizeof error->source, "%s", path);
    }
    return NULL;
  }
  j = json_loadf(f, flags, error);
  fclose(f);
  return j;
}

int cm_json_dump_file(const json_t *json, const char *path, size_t flags) {
  FILE *f = cm_fopen(path, "w");
  int r;
  if (f == NULL)
    return -1;
  r = json_dumpf(json, f, flags);
  if (fclose(f) != 0)
    r = -1;
  return r;
}
