/* fuzz_tar.c: the bundle's tar stream (rp__tar_reader), fed in pieces of
 * the sizes a selector byte picks (fuzz_selector), as gunzip hands it
 * over. An input that is a gzip member (a bundle, the committed seed) is
 * decompressed first. The callbacks check the reader's promises: an
 * entry's data comes between its entry and entry_end calls and adds up to
 * its size. */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_gz.h"
#include "rp_tar.h"

typedef struct {
  int open;
  uint64_t want, got;
  uint64_t entries;
} fuzz_tar_state;

static int on_entry(void *ud, const char *name, char type, uint64_t size) {
  fuzz_tar_state *s = ud;
  (void)type;
  FUZZ_CHECK(!s->open);
  FUZZ_CHECK(name != NULL && strlen(name) <= RP__TAR_NAME_MAX);
  FUZZ_CHECK(size <= RP__TAR_SIZE_MAX);
  s->open = 1;
  s->want = size;
  s->got = 0;
  s->entries++;
  return CM_OK;
}

static int on_data(void *ud, const unsigned char *data, size_t len) {
  fuzz_tar_state *s = ud;
  FUZZ_CHECK(s->open);
  FUZZ_CHECK(len > 0 && data != NULL);
  s->got += len;
  FUZZ_CHECK(s->got <= s->want);
  return CM_OK;
}

static int on_end(void *ud) {
  fuzz_tar_state *s = ud;
  FUZZ_CHECK(s->open);
  FUZZ_CHECK(s->got == s->want);
  s->open = 0;
  return CM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const size_t pieces[] = {1, 7, 100, 511, 512, 513, 4096, 65536};
  static const rp__tar_cbs cbs = {on_entry, on_data, on_end};
  fuzz_tar_state st;
  fuzz_buf plain = {NULL, 0, 0, (size_t)16 << 20};
  rp__tar_reader *r;
  size_t piece, off;
  int rc = CM_OK, sel = fuzz_selector(&data, &size);
  piece = sel < 0 ? 512 : pieces[sel];
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    rp__gunzip *g = malloc(sizeof *g);
    int ok = g != NULL && rp__gunzip_init(g, fuzz_buf_add, &plain) == CM_OK;
    if (ok) {
      ok = rp__gunzip_feed(g, data, size) == CM_OK &&
           rp__gunzip_finish(g) == CM_OK;
      rp__gunzip_end(g);
    }
    free(g);
    if (!ok) {
      free(plain.p);
      return 0;
    }
    data = plain.p;
    size = plain.n;
  }
  r = malloc(sizeof *r);
  if (r == NULL) {
    free(plain.p);
    return 0;
  }
  memset(&st, 0, sizeof st);
  rp__tar_reader_init(r, &cbs, &st);
  for (off = 0; off < size && rc == CM_OK; off += piece) {
    size_t n = size - off < piece ? size - off : piece;
    rc = rp__tar_reader_feed(r, data + off, n);
  }
  FUZZ_CHECK(fuzz_terminated(r->why, sizeof r->why));
  if (rc == CM_OK) {
    rc = rp__tar_reader_finish(r);
    /* a stream that finished cleanly left no entry open */
    FUZZ_CHECK(rc != CM_OK || !st.open);
  } else if (rc == CM_EPARSE) {
    FUZZ_CHECK(r->why[0] != '\0'); /* a malformed stream says how */
  }
  free(r);
  free(plain.p);
  return 0;
}
