/* rp_banner.h: cuda_portfolio's first stdout line, as repro reads it.
 *
 *   [cuda_portfolio] version=V allocator=exact|pooled instrumented=true|false
 *   markers=A,B|- seed=N [git=COMMIT[+dirty|+unknown]|unknown]
 *
 * (one line). The binary reports what it saw from its own side; repro records
 * it in the stage's manifest record and compares it with the contract (the
 * sanitize stage needs allocator=exact, the time stage instrumented=false).
 */
#ifndef RP_BANNER_H
#define RP_BANNER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  char version[64];
  char allocator[16]; /* "exact" or "pooled" */
  int instrumented;   /* 0 or 1 */
  char markers[512];  /* comma-separated names, "" when the binary said - */
  int64_t seed;
  /* the commit the binary was built from, as it says (since 2026-12-05;
   * "" from a binary before that): 40 hex digits with "+dirty" when its
   * tree had changes, or "unknown" */
  char git[64];
} rp_banner;

/* Parses the first line of text (text may hold more lines; only the first
 * is read, and a leading "\r" or trailing "\r" is tolerated). Pure. Every
 * field is required but git; keys in any order, unknown keys ignored (so the
 * binary can add fields). Returns CM_OK, or CM_EPARSE when the line is not a
 * banner or a field is missing or malformed (err says which, may be NULL). */
int rp_banner_parse(const char *text, rp_banner *out, char *err,
                    size_t errsize);

#endif
