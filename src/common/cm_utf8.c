/* cm_utf8.c: see cm_utf8.h. */
#include "cm_utf8.h"

#include "cm_str.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static int cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

size_t cm_utf8_seq(const unsigned char *s, size_t n) {
  unsigned char c, lo = 0x80, hi = 0xBF;
  size_t len, i;
  if (n == 0)
    return 0;
  c = s[0];
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4;
  else
    return 0; /* a continuation byte, an overlong lead, or past U+10FFFF */
  /* The second byte's range rules out overlong forms, surrogates and code
   * points past U+10FFFF. */
  if (c == 0xE0)
    lo = 0xA0;
  else if (c == 0xED)
    hi = 0x9F;
  else if (c == 0xF0)
    lo = 0x90;
  else if (c == 0xF4)
    hi = 0x8F;
  if (n < len || s[1] < lo || s[1] > hi)
    return 0;
  for (i = 2; i < len; i++)
    if (!cont(s[i]))
      return 0;
  return len;
}

size_t cm_utf8_cut(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t k = n, back = 0;
  /* The last byte that is not a continuation byte, at most 3 back. */
  while (k > 0 && back < 4 && cont(u[k - 1])) {
    k--;
    back++;
  }
  if (k == 0 || back == 4)
    return n; /* not UTF-8 here: nothing to keep whole */
  k--;
  {
    unsigned char c = u[k];
    size_t want = c >= 0xF5   ? 1 /* never a lead: nothing to keep whole */
                  : c >= 0xF0 ? 4
                  : c >= 0xE0 ? 3
                  : c >= 0xC2 ? 2
                              : 1;
    return n - k < want ? k : n;
  }
}

size_t cm_utf8_skip(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t k = 0;
  while (k < 3 && k < n && cont(u[k]))
    k++;
  return k;
}

/* 1 for a bidirectional control at u (its UTF-8 sequence len long): the
 * embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, the
 * marks U+200E, U+200F and U+061C. Shown, they reorder what follows them
 * on the line. */
static int bidi_control(const unsigned char *u, size_t len) {
  if (len == 2)
    return u[0] == 0xD8 && u[1] == 0x9C;
  if (len != 3 || u[0] != 0xE2)
    return 0;
  if (u[1] == 0x80)
    return (u[2] >= 0xAA && u[2] <= 0xAE) || u[2] == 0x8E || u[2] == 0x8F;
  return u[1] == 0x81 && u[2] >= 0xA6 && u[2] <= 0xA9;
}

/* 1 if the well-formed sequence u[0..len) is a control character: C0,
 * DEL, C1 or a bidirectional control. */
static int control_seq(const unsigned char *u, size_t len) {
  return (len == 1 && (u[0] < 0x20 || u[0] == 0x7F)) ||
         (len == 2 && u[0] == 0xC2 && u[1] < 0xA0) || bidi_control(u, len);
}

/* Walks s's characters, writing '?' over each byte that starts no
 * well-formed sequence; with oneline, also a space over a line break or
 * tab and '?'s over every other control character (C0, DEL, C1, and the
 * bidirectional controls). */
static size_t scrub(char *s, int oneline) {
  unsigned char *u = (unsigned char *)s;
  size_t n = strlen(s), i = 0, bad = 0, k;
  while (i < n) {
    size_t len = cm_utf8_seq(u + i, n - i);
    if (len == 0) {
      len = 1;
      u[i] = '?';
      bad++;
    } else if (oneline && len == 1 &&
               (u[i] == '\n' || u[i] == '\r' || u[i] == '\t')) {
      u[i] = ' ';
      bad++;
    } else if (oneline && control_seq(u + i, len)) {
      for (k = 0; k < len; k++)
        u[i + k] = '?';
      bad++;
    }
    i += len;
  }
  return bad;
}

size_t cm_utf8_scrub(char *s) {
  return scrub(s, 0);
}

size_t cm_text_oneline(char *s) {
  return scrub(s, 1);
}

ptrdiff_t cm_text_control_at(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strlen(s), i = 0;
  while (i < n) {
    size_t len = cm_utf8_seq(u + i, n - i);
    if (len == 0)
      len = 1; /* not UTF-8: shown as '?', not obeyed */
    else if (control_seq(u + i, len))
      return (ptrdiff_t)i;
    i += len;
  }
  return -1;
}

const char *cm_text_shown(const char *s, char *buf, size_t size) {
  cm_strlcpy(buf, s, size);
  cm_text_oneline(buf);
  return buf;
}

json_t *cm_json_text(const char *s) {
  json_t *j;
  char *copy;
  size_t n;
  if (s == NULL)
    return NULL;
  j = json_string(s);
  if (j != NULL)
    return j;
  n = strlen(s);
  copy = malloc(n + 1);
  if (copy == NULL)
    return NULL;
  memcpy(copy, s, n + 1);
  cm_utf8_scrub(copy);
  j = json_string(copy);
  free(copy);
  return j;
}
