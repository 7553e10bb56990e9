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

/* Nonzero while cm_json_load_file or cm_json_loadb reads. The reads happen
 * on one thread (repro's main loop); a failure on another thread during one
 * would stop the process too, which is safe. */
static int cm__json_reading;
/* jansson's allocations refused since cm_json_init (until a test driver's
 * cm_json_forget_failures) */
static unsigned long cm__json_refused;

static void *cm__json_malloc(size_t n) {
  void *p = malloc(n);
  if (p == NULL)
    cm__json_refused++;
  if (p == NULL && cm__json_reading) {
    fprintf(stderr,
            "out of memory while reading JSON (%lu bytes more were refused): "
            "jansson's reader cannot go on after a failed allocation, so the "
            "process stops (exit %d); free memory or raise the process's "
            "memory limit, then run it again\n",
            (unsigned long)n, CM_JSON_OOM_EXIT);
    exit(CM_JSON_OOM_EXIT);
  }
  return p;
}

static void cm__json_free(void *p) {
  free(p);
}

/* The same two pointers each time, and blocks made before they were set
 * were made by malloc too, so freeing them through cm__json_free is
 * right. */
void cm_json_init(void) {
  json_set_alloc_funcs(cm__json_malloc, cm__json_free);
}

int cm_json_failed(void) {
  return cm__json_refused != 0;
}

void cm_json_forget_failures(void) {
  cm__json_refused = 0;
}

char *cm_json_dumps(const json_t *json, size_t flags) {
  return cm_json_failed() ? NULL : json_dumps(json, flags);
}

static void cm__json_begin(void) {
  cm_json_init();
  cm__json_reading++;
}

json_t *cm_json_loadb(const char *buf, size_t len, size_t flags,
                      json_error_t *error) {
  json_t *j;
  cm__json_begin();
  j = json_loadb(buf, len, flags, error);
  cm__json_reading--;
  return j;
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
  cm__json_begin();
  j = json_loadf(f, flags, error);
  cm__json_reading--;
  fclose(f);
  return j;
}

int cm_json_dump_file(const json_t *json, const char *path, size_t flags) {
  FILE *f;
  int r;
  if (cm_json_failed())
    return -1;
  f = cm_fopen(path, "w");
  if (f == NULL)
    return -1;
  r = json_dumpf(json, f, flags);
  if (fclose(f) != 0)
    r = -1;
  return r;
}
