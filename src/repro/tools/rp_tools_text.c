/* rp_tools_text.c: see rp_tools_text.h. */
#include "rp_tools_text.h"

#include "cm_error.h"
#include "cm_utf8.h"

#include <string.h>

void rp__lines_init(rp__lines *it, const char *text, size_t len) {
  it->text = text;
  it->len = text ? len : 0;
  it->pos = 0;
}

int rp__lines_next(rp__lines *it, char *buf, size_t size) {
  size_t o = 0;
  if (it->pos >= it->len || size == 0)
    return 0;
  while (it->pos < it->len) {
    char c = it->text[it->pos++];
    if (c == '\n')
      break;
    if (c == '\x1b') {
      /* CSI "ESC [ params final" (colours) or a lone two-byte escape. */
      if (it->pos < it->len && it->text[it->pos] == '[') {
        it->pos++;
        while (it->pos < it->len) {
          unsigned char f = (unsigned char)it->text[it->pos++];
          if (f >= 0x40 && f <= 0x7e)
            break;
        }
      } else if (it->pos < it->len) {
        it->pos++;
      }
      continue;
    }
    if (c == '\0')
      c = ' ';
    if (o + 1 < size)
      buf[o++] = c;
  }
  buf[o] = '\0';
  while (o > 0 && buf[o - 1] == '\r')
    buf[--o] = '\0';
  return 1;
}

char *rp__rtrim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
                   s[n - 1] == '\n'))
    s[--n] = '\0';
  return s;
}

const char *rp__skip_ws(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

const char *rp__san_body(const char *line) {
  size_t n = 0;
  while (line[n] == '=')
    n++;
  if (n < 3)
    return NULL;
  line += n;
  if (*line == ' ')
    line++;
  return line;
}

/* The digits at *s (after spaces; "1,024" separators allowed) up to
 * limit: past it, 0 (nothing read) or, with saturate, limit. */
static int scan_digits(const char **s, uint64_t limit, int saturate,
                       uint64_t *out) {
  const char *p = rp__skip_ws(*s);
  uint64_t v = 0;
  int digits = 0;
  for (;; p++) {
    if (*p >= '0' && *p <= '9') {
      unsigned d = (unsigned)(*p - '0');
      if (v > (limit - d) / 10) {
        if (!saturate)
          return 0;
        v = limit;
      } else {
        v = v * 10 + d;
      }
      digits++;
    } else if (*p == ',' && digits > 0 && p[1] >= '0' && p[1] <= '9' &&
               p[2] >= '0' && p[2] <= '9' && p[3] >= '0' && p[3] <= '9') {
      continue; /* "1,024": a thousands separator, not a list comma */
    } else {
      break;
    }
  }
  if (digits == 0)
    return 0;
  *out = v;
  *s = p;
  return 1;
}

int rp__scan_u64(const char **s, uint64_t *out) {
  return scan_digits(s, UINT64_MAX, 0, out);
}

int rp__scan_count(const char **s, int64_t *out) {
  uint64_t v;
  if (!scan_digits(s, (uint64_t)INT64_MAX, 1, &v))
    return 0;
  *out = (int64_t)v;
  return 1;
}

const char *rp__after(const char *s, const char *needle) {
  const char *p = strstr(s, needle);
  return p ? p + strlen(needle) : NULL;
}

void rp__copy_n(char *dst, size_t size, const char *src, size_t n) {
  if (size == 0)
    return;
  if (n >= size) {
    memcpy(dst, src, size - 1);
    dst[cm_utf8_cut(dst, size - 1)] = '\0';
    return;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

json_t *rp__json_count_or_null(int64_t v) {
  return v < 0 ? json_null() : json_integer((json_int_t)v);
}

void rp__json_set_counts(json_t *o, const char *const *keys,
                         const int64_t *vals, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    json_object_set_new(o, keys[i], rp__json_count_or_null(vals[i]));
}
