/* rp_check.h: what verify checks about one file's content, fed as a stream.
 *
 * Internal to src/repro/archive. The same checker runs over a file on disk
 * (rp__check_file) and over a tar entry read out of a bundle, so a run folder
 * and its bundle are judged by the same rules:
 *  - SHA-256 and byte count, for comparison with the manifest;
 *  - a name ending in ".gz" must decompress completely (every member's CRC
 *    and length checked, no truncated member);
 *  - a results JSON must sit in the folder its own "instrumented" field
 *    names: results/clean/ for false, results/instrumented/ for true.
 */
#ifndef RP_CHECK_H
#define RP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "cm_sha256.h"
#include "rp_gz.h"

/* Results documents larger than this are not parsed (a problem is named). */
#define RP__RESULTS_MAX ((size_t)64 << 20)

typedef struct {
  cm_sha256_ctx sha;
  uint64_t bytes;
  rp__gunzip *gz;   /* set for *.gz names; owned */
  int gz_failed;    /* the stream already failed: stop feeding it */
  int results_want; /* -1: not a results file; else the expected flag */
  char *rbuf;       /* results document collected so far; owned */
  size_t rlen, rcap;
  char sha_hex[CM_SHA256_HEX_LEN]; /* set by rp__check_end */
  char problem[512];               /* first content problem; empty if none */
} rp__check;

/* Starts checking a file whose path inside the run is relpath ('/'
 * separators); relpath decides which content rules apply. */
int rp__check_begin(rp__check *c, const char *relpath);
/* Feeds content. Content problems are recorded in c->problem, not
 * returned; the return value is CM_OK or CM_ENOMEM. */
int rp__check_feed(rp__check *c, const void *data, size_t len);
/* Ends the content: finishes the digest and the rules. CM_OK or
 * CM_ENOMEM. */
int rp__check_end(rp__check *c);
/* Releases what begin allocated (safe after any of the calls). */
void rp__check_free(rp__check *c);

/* Begin, feed the whole of the file at path, end. Returns CM_OK or an
 * I/O error (the file could not be read); c must be freed either way. */
int rp__check_file(const char *path, const char *relpath, rp__check *c);

#endif
