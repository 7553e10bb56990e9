/* rp_sb.h: a growable string buffer for the report writers.
 *
 * Markdown, HTML, SVG, JUnit XML and SARIF are all built in memory and then
 * written in one go (atomically, by the caller), so a half-written report
 * never exists on disk. Internal to src/repro/report (double prefix).
 *
 * Ownership: the buffer owns data (malloc'd); rp__sb_free releases it.
 * Errors are sticky: after an allocation failure every later append is a
 * no-op and rp__sb_error returns CM_ENOMEM, so writers can append freely
 * and check once at the end (the curl "one cleanup tail" shape).
 */
#ifndef RP_SB_H
#define RP_SB_H

#include "cm_str.h"
#include <stdarg.h>
#include <stddef.h>

typedef struct {
  char *data; /* NUL-terminated when len > 0 or after the first append */
  size_t len;
  size_t cap;
  int err; /* 0, or CM_ENOMEM once an append failed */
} rp__sb;

void rp__sb_init(rp__sb *b);
void rp__sb_free(rp__sb *b);
/* CM_OK, or the first error seen by an append. */
int rp__sb_error(const rp__sb *b);
/* The text so far; "" (never NULL) when nothing was appended. */
const char *rp__sb_str(const rp__sb *b);

void rp__sb_add(rp__sb *b, const char *s);
void rp__sb_addn(rp__sb *b, const char *s, size_t n);
void rp__sb_printf(rp__sb *b, const char *fmt, ...) CM_PRINTF_LIKE(2, 3);
void rp__sb_vprintf(rp__sb *b, const char *fmt, va_list ap)
    CM_PRINTF_LIKE(2, 0);

/* Appends s escaped for XML/HTML text and attribute values (& < > " '),
 * '?' for a control character XML forbids or a byte that is not UTF-8. */
void rp__sb_xml(rp__sb *b, const char *s);
/* Appends s for Markdown (a table cell, a heading, a list item) as text:
 * a backslash before each of \ | ` * _ [ ] < > & ~ # (no cell, emphasis,
 * code span, link, raw HTML, entity or heading can start inside it; a '_'
 * between two letters or digits, which CommonMark never reads as
 * emphasis, stays as it is: cuda_portfolio, not cuda\_portfolio), line
 * breaks and tabs as spaces, '?' for another control character or a byte
 * that is not UTF-8. Every string from a manifest or results file goes
 * through it. */
void rp__sb_md(rp__sb *b, const char *s);

/* Takes the buffer's data (caller frees it with free()); b is reset. Returns
 * NULL if an append had failed (the data is freed then). */
char *rp__sb_take(rp__sb *b);

#endif
