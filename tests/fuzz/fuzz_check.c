/* fuzz_check.c: the content rules verify applies to each archived file
 * (rp__check: a *.gz name must decompress completely, a results JSON must
 * sit in the folder its "instrumented" flag names), for a name and a piece
 * size a selector byte picks (fuzz_selector; without one, a JSON object
 * is checked as results/clean/bench.json and anything else as a log.gz). */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const names[] = {
      "build/cmake-build.log.gz", "results/clean/bench.json",
      "results/instrumented/profile.json", "inspect/resources.txt",
      "results/clean/bench.json.gz"};
  static const size_t pieces[] = {1, 64, 4096, 1 << 20};
  rp__check *c;
  size_t piece, off;
  const char *name;
  int rc = CM_OK, sel = fuzz_selector(&data, &size);
  if (sel < 0) {
    name = size > 0 && data[0] == '{' ? names[1] : names[0];
    piece = 4096;
  } else {
    name = names[sel % 5];
    piece = pieces[sel % 4];
  }
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return 0;
  if (rp__check_begin(c, name) == CM_OK) {
    for (off = 0; off < size && rc == CM_OK; off += piece) {
      size_t n = size - off < piece ? size - off : piece;
      rc = rp__check_feed(c, data + off, n);
    }
    if (rc == CM_OK && rp__check_end(c) == CM_OK) {
      FUZZ_CHECK(c->bytes == size);
      FUZZ_CHECK(strlen(c->sha_hex) == 64);
      FUZZ_CHECK(fuzz_terminated(c->problem, sizeof c->problem));
    }
  }
  rp__check_free(c);
  free(c);
  return 0;
}
