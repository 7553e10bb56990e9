#include "cm_str.h"
#include "cm_error.h"
#include "cm_utf8.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 if c is an ASCII digit (strtoll and strtoull would also take leading
 * white space and a '+', and strtoull a '-', which wraps). */
static int cm__digit(char c) {
  return c >= '0' && c <= '9';
}

int cm_parse_i64(const char *s, int64_t *out) {
  char *end;
  long long v;
  if (s == NULL || !(cm__digit(s[0]) || (s[0] == '-' && cm__digit(s[1]))))
    return CM_EINVAL;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (end == s || *end != '\0')
    return CM_EINVAL;
  if (errno == ERANGE)
    return CM_ERANGE;
  *out = (int64_t)v;
  return CM_OK;
}

int cm_parse_pair(const char *s, int64_t lo, int64_t hi, int64_t *a,
                  int64_t *b) {
  char first[32];
  const char *colon = s != NULL ? strchr(s, ':') : NULL;
  size_t n = s == NULL ? 0 : colon != NULL ? (size_t)(colon - s) : strlen(s);
  int64_t x = 0, y = 0;
  if (n == 0 || n >= sizeof first)
    return CM_EINVAL;
  memcpy(first, s, n);
  first[n] = '\0';
  if (cm_parse_i64(first, &x) != CM_OK || x < lo || x > hi)
    return CM_EINVAL;
  if (colon != NULL &&
      (cm_parse_i64(colon + 1, &y) != CM_OK || y < lo || y > hi))
    return CM_EINVAL;
  *a = x;
  *b = y;
  return CM_OK;
}

int cm_parse_u64(const char *s, uint64_t *out) {
  char *end;
  unsigned long long v;
  if (s == NULL || !cm__digit(s[0]))
    return CM_EINVAL;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (end == s || *end != '\0')
    return CM_EINVAL;
  if (errno == ERANGE)
    return CM_ERANGE;
  *out = (uint64_t)v;
  return CM_OK;
}

int cm_parse_double(const char *s, double *out) {
  char *end;
  double v;
  if (s == NULL || *s == '\0')
    return CM_EINVAL;
  errno = 0;
  v = strtod(s, &end);
  if (end == s || *end != '\0')
    return CM_EINVAL;
  if (errno == ERANGE && isinf(v))
    return CM_ERANGE;
  *out = v;
  return CM_OK;
}

int cm_parse_dims(const char *s, int64_t dims[3], int *ndims) {
  char buf[128];
  char *p, *x;
  int n = 0, rc;
  if (s == NULL || cm_strlcpy(buf, s, sizeof buf) != CM_OK)
    return CM_EINVAL;
  p = buf;
  for (;;) {
    int64_t v;
    x = strchr(p, 'x');
    if (x != NULL)
      *x = '\0';
    if (n == 3)
      return CM_EINVAL;
    if (*p == '-')
      return CM_ERANGE;
    rc = cm_parse_i64(p, &v);
    if (rc != CM_OK)
      return rc;
    if (v <= 0)
      return CM_ERANGE;
    dims[n++] = v;
    if (x == NULL)
      break;
    p = x + 1;
  }
  if (n < 2)
    return CM_EINVAL;
  *ndims = n;
  return CM_OK;
}

int cm_strlcpy(char *dst, const char *src, size_t size) {
  size_t len = strlen(src);
  if (size == 0)
    return CM_ERANGE;
  if (len >= size) {
    memcpy(dst, src, size - 1);
    dst[cm_utf8_cut(dst, size - 1)] = '\0';
    return CM_ERANGE;
  }
  memcpy(dst, src, len + 1);
  return CM_OK;
}

int cm_vsnprintf(char *dst, size_t size, const char *fmt, va_list ap) {
  int n = vsnprintf(dst, size, fmt, ap);
  if (n < 0)
    return CM_EINVAL;
  if ((size_t)n >= size) {
    if (size > 0)
      dst[cm_utf8_cut(dst, size - 1)] = '\0';
    return CM_ERANGE;
  }
  return CM_OK;
}

int cm_snprintf(char *dst, size_t size, const char *fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = cm_vsnprintf(dst, size, fmt, ap);
  va_end(ap);
  return r;
}

void cm_hex(const unsigned char *in, size_t len, char *out) {
  static const char digits[] = "0123456789abcdef";
  size_t i;
  for (i = 0; i < len; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * len] = '\0';
}

int cm_starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

int cm_env_name_eq(const char *a, const char *b, size_t n) {
#ifdef _WIN32
  size_t i;
  for (i = 0; i < n; i++) {
    int x = tolower((unsigned char)a[i]), y = tolower((unsigned char)b[i]);
    if (x != y)
      return 0;
    if (x == 0)
      return 1;
  }
  return 1;
#else
  return n == (size_t)-1 ? strcmp(a, b) == 0 : strncmp(a, b, n) == 0;
#endif
}

int cm_split(char *s, const char *seps, char **words, int max) {
  int n = 0;
  char *p = s;
  while (*p != '\0') {
    while (*p != '\0' && strchr(seps, *p) != NULL)
      *p++ = '\0';
    if (*p == '\0')
      break;
    if (n == max)
      return max + 1;
    words[n++] = p;
    while (*p != '\0' && strchr(seps, *p) == NULL)
      p++;
  }
  return n;
}

int cm_opt_split(const char *a, char *name, size_t size, const char **value) {
  const char *eq = strchr(a, '=');
  size_t n = eq != NULL ? (size_t)(eq - a) : strlen(a);
  int cut = n >= size;
  if (cut)
    n = size - 1;
  memcpy(name, a, n);
  name[n] = '\0';
  *value = eq != NULL ? eq + 1 : NULL;
  return cut;
}

int cm_str_among(const char *s, const char *const *list) {
  size_t i;
  for (i = 0; list[i] != NULL; i++)
    if (strcmp(s, list[i]) == 0)
      return 1;
  return 0;
}
