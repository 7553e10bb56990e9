/* fuzz_bundle.c: `repro verify BUNDLE` and `repro compare BUNDLE ...` end
 * to end (rp_verify_bundle_files, which rp_verify and compare's reader
 * share): gunzip, the ustar reader, every entry's content rules, the judge
 * of the manifest found in it, and the results files kept in the same
 * pass. An input that is not a gzip member is taken as the tar stream and
 * compressed here first (the mutations then act on the tar, not on
 * deflate's bits); the bundle is written to one file under the temporary
 * directory the process keeps. Kept files reach the callback only from a
 * bundle that verifies, whole, under the prefix asked for. */
#include "fuzz.h"

#include "fuzz_tmp.h"

#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_archive.h"
#include "rp_gz.h"

static char dir[1024];

static int on_kept(void *ud, const char *rel, const char *data, size_t len) {
  (*(int *)ud)++; /* files handed over */
  FUZZ_CHECK(cm_starts_with(rel, "results/"));
  FUZZ_CHECK(len <= ((size_t)1 << 20));
  FUZZ_CHECK(data[len] == '\0');
  return CM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_buf gz = {NULL, 0, 0, 0};
  rp_verify_result res;
  char path[1100];
  int rc;
  if (!fuzz_tmpdir(dir, sizeof dir, "bundle") ||
      cm_snprintf(path, sizeof path, "%s/run.tar.gz", dir) != CM_OK)
    return 0;
  if (!(size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) {
    rp__gzip *z = malloc(sizeof *z);
    int ok = z != NULL && rp__gzip_init(z, 1, fuzz_buf_add, &gz) == CM_OK;
    if (ok) {
      ok = rp__gzip_write(z, data, size) == CM_OK &&
           rp__gzip_flush(z, Z_FINISH) == CM_OK;
      rp__gzip_end(z);
    }
    free(z);
    if (!ok) {
      free(gz.p);
      return 0;
    }
    data = gz.p;
    size = gz.n;
  }
  if (plat_write_file_atomic(path, data, size) == CM_OK) {
    int calls = 0;
    rc = rp_verify_bundle_files(path, "results/", (size_t)1 << 20, on_kept,
                                &calls, &res);
    FUZZ_CHECK(fuzz_terminated(res.problem, sizeof res.problem));
    FUZZ_CHECK(fuzz_printable(res.problem));
    if (rc == CM_OK)
      FUZZ_CHECK(res.ok == (res.problem[0] == '\0'));
    else
      FUZZ_CHECK(!res.ok);
    /* nothing of a bundle that does not verify reaches the caller */
    FUZZ_CHECK(res.ok || calls == 0);
  }
  free(gz.p);
  return 0;
}
