/* fuzz_gunzip.c: the checked decompression of logs and bundles
 * (rp__gunzip): any bytes, fed in pieces of the sizes a selector byte picks
 * (fuzz_selector).
 * What it decompresses is counted by the sink and must match its own
 * count; corrupt input must end in an error with a reason, never in a
 * crash or a hang. */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_gz.h"

static int sink(void *ud, const unsigned char *data, size_t len) {
  uint64_t *n = ud;
  FUZZ_CHECK(data != NULL || len == 0);
  *n += len;
  /* a bomb stops at 64 MiB, as verify's own limits would */
  return *n > ((uint64_t)64 << 20) ? CM_ERANGE : CM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const size_t pieces[] = {1, 3, 10, 512, 4096, 1 << 20};
  rp__gunzip *g;
  uint64_t out = 0;
  size_t piece, off;
  int rc = CM_OK, sel = fuzz_selector(&data, &size);
  piece = sel < 0 ? 4096 : pieces[sel % 6];
  g = malloc(sizeof *g);
  if (g == NULL)
    return 0;
  if (rp__gunzip_init(g, sink, &out) != CM_OK) {
    free(g);
    return 0;
  }
  for (off = 0; off < size && rc == CM_OK; off += piece) {
    size_t n = size - off < piece ? size - off : piece;
    rc = rp__gunzip_feed(g, data + off, n);
  }
  if (rc == CM_OK)
    rc = rp__gunzip_finish(g);
  FUZZ_CHECK(fuzz_terminated(g->why, sizeof g->why));
  FUZZ_CHECK(g->out_bytes == out);
  if (rc == CM_EMISMATCH)
    FUZZ_CHECK(g->why[0] != '\0');
  FUZZ_CHECK(rc != CM_EINTERNAL); /* bad input is a verdict, not a bug */
  if (rc == CM_OK)
    FUZZ_CHECK(g->members > 0);
  rp__gunzip_end(g);
  free(g);
  return 0;
}
