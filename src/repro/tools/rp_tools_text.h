/* rp_tools_text.h: line handling shared by the tool-output parsers.
 *
 * NVIDIA's tools print to terminals: their text may carry ANSI colour
 * sequences, CRLF line ends, "=========" prefixes (compute-sanitizer) and
 * varying indentation. These helpers normalise one line at a time so each
 * parser can match on plain words. Internal to src/repro/tools (double
 * prefix); nothing here allocates except rp__text_dup_line.
 */
#ifndef RP_TOOLS_TEXT_H
#define RP_TOOLS_TEXT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line the parsers look at; longer lines are cut (the tail of a
 * 4 KiB kernel signature is never needed to classify a line). */
#define RP__LINE_MAX 4096

/* Cursor over a text buffer of len bytes (not necessarily NUL-terminated). */
typedef struct {
  const char *text;
  size_t len;
  size_t pos;
} rp__lines;

void rp__lines_init(rp__lines *it, const char *text, size_t len);

/* Copies the next line into buf[size] with ANSI escape sequences and the
 * trailing CR/LF removed, cut to size-1 bytes. Returns 1 if a line was read,
 * 0 at the end of the text. */
int rp__lines_next(rp__lines *it, char *buf, size_t size);

/* v as a JSON integer, or null when negative (what the parsers use for
 * "the tool did not report it"). */
json_t *rp__json_count_or_null(int64_t v);
/* Sets o[keys[i]] to rp__json_count_or_null(vals[i]) for i < n. */
void rp__json_set_counts(json_t *o, const char *const *keys,
                         const int64_t *vals, size_t n);

/* Removes trailing whitespace in place; returns s. */
char *rp__rtrim(char *s);
/* Returns s advanced past leading spaces and tabs. */
const char *rp__skip_ws(const char *s);

/* If line starts with a run of at least three '=' (compute-sanitizer's
 * "=========" prefix), returns the rest after exactly one following space
 * (so that continuation lines keep their extra indentation); else NULL. */
const char *rp__san_body(const char *line);

/* Parses an unsigned decimal at *s (after leading spaces), allowing ','
 * thousands separators; advances *s past it. Returns 1 on success. */
int rp__scan_u64(const char **s, uint64_t *out);

/* The same for a count kept signed (-1 meaning "absent"): a decimal past
 * INT64_MAX reads as INT64_MAX, never as a negative or absent count. */
int rp__scan_count(const char **s, int64_t *out);

/* Case-sensitive search for needle in s; returns the position just after the
 * match, or NULL. */
const char *rp__after(const char *s, const char *needle);

/* Copies src[0..n) into dst[size] NUL-terminated, cut to fit. */
void rp__copy_n(char *dst, size_t size, const char *src, size_t n);

#endif
