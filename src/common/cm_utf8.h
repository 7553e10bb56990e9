/* cm_utf8.h: text that leaves the programs stays UTF-8.
 *
 * The manifest, results files and reports are UTF-8 (JSON must be, the
 * reports declare it). Text reaches them from fixed buffers that may cut
 * a string short, and from tools, paths and argv that may not be UTF-8 at
 * all (a console code page, a Latin-1 file name). jansson refuses such a
 * string (its constructor returns NULL), and a refused value drops its key
 * without a word; a report would carry the bytes as they are. So: a cut
 * never ends inside a character (cm_strlcpy, cm_snprintf and cm_vsnprintf use
 * cm_utf8_cut), and what is not UTF-8 is shown with '?' in place of each
 * stray byte, never dropped.
 */
#ifndef CM_UTF8_H
#define CM_UTF8_H

#include <stddef.h>

struct json_t;

/* Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF) that starts s[0..n), or 0 when
 * there is none. An ASCII byte, NUL included, is a sequence of 1. */
size_t cm_utf8_seq(const unsigned char *s, size_t n);

/* For s[0..n), a prefix of some longer text: the largest m <= n for which
 * s[0..m) does not end in the first bytes of a character cut short. */
size_t cm_utf8_cut(const char *s, size_t n);

/* For s[0..n), a suffix of some longer text (a tail, a line cut from the
 * front): how many bytes it starts with that continue a character begun
 * before it (at most 3), so that s + that starts at a character. */
size_t cm_utf8_skip(const char *s, size_t n);

/* Replaces, in place, every byte of the NUL-terminated s that is not part
 * of a well-formed sequence with '?'. Returns how many were replaced. */
size_t cm_utf8_scrub(char *s);

/* Makes s, in place, one line of text fit for a terminal: a line break
 * or tab becomes a space; any other control character (C0, DEL, the C1
 * range U+0080-U+009F, which some terminals obey, and the bidirectional
 * controls, which reorder what follows them), and every byte that is not
 * UTF-8, becomes '?' (each byte of it). For text from a file repro does not
 * control (a bundle's names, a manifest's strings) before it is printed: an ESC
 * or a carriage return in a file name must not rewrite what the terminal
 * shows. Returns how many bytes were replaced. */
size_t cm_text_oneline(char *s);

/* The offset in s of its first control character (as cm_text_oneline
 * reads them: C0, a line break and a tab included, DEL, C1, the
 * bidirectional controls), or -1 when it has none. For a path or word of
 * a command line that the programs would print, write into logs and hand
 * to tools: one with an ESC or a line break is refused, not shown. */
ptrdiff_t cm_text_control_at(const char *s);

/* s copied into buf[size] (cut as cm_strlcpy cuts) and made one line of
 * text there (cm_text_oneline); returns buf. For a path or name repro or
 * cuda_portfolio was given, or read from a folder or bundle, repeated in a
 * message. */
const char *cm_text_shown(const char *s, char *buf, size_t size);

/* json_string(s), with a scrubbed copy when s is not UTF-8: a value that
 * is always written. NULL only for s == NULL or out of memory. */
struct json_t *cm_json_text(const char *s);

#endif
