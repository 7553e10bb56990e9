/* rp_verify.h: verify's shared parts, internal to src/repro/archive.
 *
 * Both drivers (a run folder in rp_verify.c, a bundle in rp_verify_bundle.c)
 * reduce what they read to a list of seen files and the manifest's text, and
 * one judge compares them, so a folder and its bundle get the same verdict
 * and the same wording.
 */
#ifndef RP_VERIFY_H
#define RP_VERIFY_H

#include "cm_str.h"
#include <stddef.h>
#include <stdint.h>

#include "cm_sha256.h"
#include "rp_archive.h"
#include "rp_check.h"

/* The largest manifest.json verify will read. */
#define RP__MANIFEST_MAX ((size_t)64 << 20)

typedef struct {
  char *path; /* relative, '/' separators; owned */
  uint64_t bytes;
  char sha_hex[CM_SHA256_HEX_LEN];
  char *problem; /* content problem from rp__check, or NULL; owned */
} rp__seen;

typedef struct {
  rp__seen *v;
  size_t n, cap;
} rp__seenlist;

/* Records a finished check of relpath. CM_OK or CM_ENOMEM. */
int rp__seen_add(rp__seenlist *l, const char *relpath, const rp__check *c);
void rp__seen_free(rp__seenlist *l);

/* Records problem (printf-style) in res unless one is already there, and
 * clears res->ok. */
void rp__verify_fail(rp_verify_result *res, const char *fmt, ...)
    CM_PRINTF_LIKE(2, 3);

/* Judges the manifest text against the seen files (sorted here) and sets
 * res->ok, res->problem, res->status, res->run_id, res->files_checked.
 * Returns CM_OK or CM_ENOMEM. */
/* 1 if s is a state a finished manifest may claim: complete, interrupted
 * or failed (docs/AUDIT.md); rp_manifest.c writes only those, verify
 * accepts only those. */
int rp__manifest_final_status(const char *s);

int rp__verify_judge(const char *manifest, size_t len, rp__seenlist *seen,
                     rp_verify_result *res);

#endif
