/* rp_sb.c: growable string buffer (see rp_sb.h). */
#include "rp_sb.h"

#include "cm_error.h"
#include "cm_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rp__sb_init(rp__sb *b) {
  memset(b, 0, sizeof *b);
}

void rp__sb_free(rp__sb *b) {
  free(b->data);
  rp__sb_init(b);
}

int rp__sb_error(const rp__sb *b) {
  return b->err;
}

const char *rp__sb_str(const rp__sb *b) {
  return b->data != NULL ? b->data : "";
}

/* Makes room for n more bytes plus the terminator. */
static int reserve(rp__sb *b, size_t n) {
  size_t need, cap;
  char *p;
  if (b->err)
    return b->err;
  need = b->len + n + 1;
  if (need <= b->cap)
    return CM_OK;
  cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap *= 2;
  p = realloc(b->data, cap);
  if (p == NULL) {
    b->err = CM_ENOMEM;
    return b->err;
  }
  b->data = p;
  b->cap = cap;
  return CM_OK;
}

void rp__sb_addn(rp__sb *b, const char *s, size_t n) {
  if (reserve(b, n) != CM_OK)
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void rp__sb_add(rp__sb *b, const char *s) {
  rp__sb_addn(b, s, strlen(s));
}

void rp__sb_vprintf(rp__sb *b, const char *fmt, va_list ap) {
  va_list ap2;
  int n;
  va_copy(ap2, ap);
  /* vsnprintf is the bounded form; the first call only measures. */
  n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    if (!b->err)
      b->err = CM_EINVAL;
    return;
  }
  if (reserve(b, (size_t)n) != CM_OK)
    return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void rp__sb_printf(rp__sb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rp__sb_vprintf(b, fmt, ap);
  va_end(ap);
}

/* Adds the character at p: a whole UTF-8 sequence, or '?' for a byte
 * that starts none (the documents are UTF-8, cm_utf8.h). Returns the
 * bytes of p it took. */
static size_t utf8_char(rp__sb *b, const char *p) {
  size_t avail = 0, n;
  while (avail < 4 && p[avail] != '\0')
    avail++;
  n = cm_utf8_seq((const unsigned char *)p, avail);
  if (n == 0) {
    rp__sb_add(b, "?");
    return 1;
  }
  rp__sb_addn(b, p, n);
  return n;
}

void rp__sb_xml(rp__sb *b, const char *s) {
  const char *p;
  if (s == NULL)
    return;
  for (p = s; *p; p++) {
    switch (*p) {
    case '&':
      rp__sb_add(b, "&amp;");
      break;
    case '<':
      rp__sb_add(b, "&lt;");
      break;
    case '>':
      rp__sb_add(b, "&gt;");
      break;
    case '"':
      rp__sb_add(b, "&quot;");
      break;
    case '\'':
      rp__sb_add(b, "&#39;");
      break;
    default:
      /* XML 1.0 forbids most control characters even when escaped. */
      if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
        rp__sb_add(b, "?");
      else
        p += utf8_char(b, p) - 1;
    }
  }
}

static int md_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

void rp__sb_md(rp__sb *b, const char *s) {
  /* CommonMark lets a backslash escape any ASCII punctuation: these are
   * the characters that start inline markup (emphasis, code, links, raw
   * HTML, entities, strikethrough), a heading, or a cell. */
  static const char special[] = "\\|`*_[]<>&~#";
  const char *p;
  if (s == NULL)
    return;
  for (p = s; *p; p++) {
    if (*p == '_' && p > s && md_alnum(p[-1]) && md_alnum(p[1])) {
      rp__sb_add(b, "_"); /* inside a word '_' is no emphasis: cuda_portfolio */
    } else if (strchr(special, *p) != NULL) {
      char esc[3] = {'\\', *p, '\0'};
      rp__sb_add(b, esc);
    } else if (*p == '\n' || *p == '\r' || *p == '\t') {
      rp__sb_add(b, " ");
    } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
      rp__sb_add(b, "?");
    } else {
      p += utf8_char(b, p) - 1;
    }
  }
}

char *rp__sb_take(rp__sb *b) {
  char *d;
  if (b->err) {
    rp__sb_free(b);
    return NULL;
  }
  if (reserve(b, 0) != CM_OK) {
    rp__sb_free(b);
    return NULL;
  }
  d = b->data;
  rp__sb_init(b);
  return d;
}
