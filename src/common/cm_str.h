/* cm_str.h: bounded, checked string conversions and formatting.
 *
 * sprintf, strcpy and atoi are banned in this project (the curl rule). Every
 * conversion here rejects trailing garbage, empty input and overflow, and
 * every copy is bounded by the destination's size and reports truncation.
 */
#ifndef CM_STR_H
#define CM_STR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Marks a printf-like function so the compiler checks its calls. MinGW
 * builds use MinGW's own C99 printf (__USE_MINGW_ANSI_STDIO), whose format
 * language is GNU's, not the Microsoft runtime's. */
#if defined(__MINGW32__)
#define CM_PRINTF_LIKE(fmt, first)                                             \
  __attribute__((format(gnu_printf, fmt, first)))
#elif defined(__GNUC__)
#define CM_PRINTF_LIKE(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define CM_PRINTF_LIKE(fmt, first)
#endif

/* Parses a whole decimal string into *out. Accepts an optional leading '-'
 * (for the signed variant only). Returns CM_OK, CM_EINVAL (empty, not a
 * number, trailing characters) or CM_ERANGE (does not fit). *out is written
 * only on success. */
int cm_parse_i64(const char *s, int64_t *out);
int cm_parse_u64(const char *s, uint64_t *out);
/* "A" or "A:B", decimal integers each from lo to hi (a clock spec such as
 * "1755:2619"); *b is 0 without ":B". CM_OK, or CM_EINVAL (nothing
 * written). */
int cm_parse_pair(const char *s, int64_t lo, int64_t hi, int64_t *a,
                  int64_t *b);

/* Parses a whole floating-point string (strtod syntax) into *out. Returns
 * CM_OK, CM_EINVAL or CM_ERANGE (overflow to infinity). */
int cm_parse_double(const char *s, double *out);

/* Parses "AxB" or "AxBxC" (lower-case x) into dims[0..n-1]; *ndims receives
 * the count (2 or 3). Each dimension must be a positive int64. Returns CM_OK,
 * CM_EINVAL or CM_ERANGE. */
int cm_parse_dims(const char *s, int64_t dims[3], int *ndims);

/* Copies src into dst[size], always NUL-terminating when size > 0. Returns
 * CM_OK, or CM_ERANGE if src was truncated; a cut never ends inside a
 * UTF-8 character (cm_utf8_cut), so it may keep up to 3 bytes less. */
int cm_strlcpy(char *dst, const char *src, size_t size);

/* snprintf into dst[size]; returns CM_OK, or CM_ERANGE on truncation (cut
 * as cm_strlcpy cuts), or CM_EINVAL on an encoding error. */
int cm_snprintf(char *dst, size_t size, const char *fmt, ...)
    CM_PRINTF_LIKE(3, 4);
/* The same with a va_list, for the functions that take a format of their
 * own (a stage's reason, a check's detail, verify's problem). */
int cm_vsnprintf(char *dst, size_t size, const char *fmt, va_list ap)
    CM_PRINTF_LIKE(3, 0);

/* Lower-case hex of len bytes into out[2*len+1]. */
void cm_hex(const unsigned char *in, size_t len, char *out);

/* Returns 1 if s starts with prefix, else 0. */
int cm_starts_with(const char *s, const char *prefix);

/* 1 when environment variable names a and b agree in their first n bytes
 * (n == (size_t)-1: whole), compared as the OS compares variable names:
 * exactly on POSIX; on Windows, whose names ignore case, with ASCII case
 * folded (the CUDA driver's getenv("CUDA_INJECTION64_PATH") finds
 * Cuda_Injection64_Path there). */
int cm_env_name_eq(const char *a, const char *b, size_t n);

/* Returns 1 if s equals one of the strings of the NULL-terminated list
 * (a command line's option names, say), else 0. */
int cm_str_among(const char *s, const char *const *list);

/* Splits s in place into words separated by runs of the characters of seps
 * (" \t", say): each separator becomes a NUL, words[i] points into s.
 * Returns the number of words, or max + 1 when there are more than max
 * (words[0..max) then hold the first max). */
int cm_split(char *s, const char *seps, char **words, int max);

/* Splits a command-line option word a ("--out" or "--out=DIR") into its
 * name, copied into name[size] (cut to fit), and *value (what follows the
 * first "=", else NULL; "" for "--out="). Returns 1 when the name had to be
 * cut (no option has so long a name), else 0. Every parser of repro's
 * command lines reads option words through it, so that "--opt=value" and
 * "--opt value" mean the same everywhere. */
int cm_opt_split(const char *a, char *name, size_t size, const char **value);

#endif
