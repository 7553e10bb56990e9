/* cm_sha256.h: SHA-256 (FIPS 180-4), streaming and one-shot.
 *
 * Used for every file named in a run manifest and for the binary's own hash
 * in results JSON. The context is caller-owned; no allocation.
 */
#ifndef CM_SHA256_H
#define CM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CM_SHA256_LEN 32
#define CM_SHA256_HEX_LEN 65 /* 64 hex digits and a NUL */

typedef struct {
  uint32_t state[8];
  uint64_t bytes; /* total bytes fed so far */
  unsigned char block[64];
  size_t fill; /* bytes waiting in block */
} cm_sha256_ctx;

void cm_sha256_init(cm_sha256_ctx *ctx);
void cm_sha256_update(cm_sha256_ctx *ctx, const void *data, size_t len);
/* Writes the 32-byte digest; ctx must be re-initialised before reuse. */
void cm_sha256_final(cm_sha256_ctx *ctx, unsigned char out[CM_SHA256_LEN]);

/* One-shot digest of a buffer as lower-case hex into out[65]. */
void cm_sha256_hex(const void *data, size_t len, char out[CM_SHA256_HEX_LEN]);

/* Hashes a whole file as lower-case hex into out[65]; *size receives its
 * length in bytes when size is not NULL. Returns CM_OK, or a cm_error from
 * opening or reading it. */
int cm_sha256_file(const char *path, char out[CM_SHA256_HEX_LEN],
                   uint64_t *size);

#endif
