/* The committed H200 run bundle (results/h200/) verifies with the archive's
 * own checker, and a copy with one byte changed does not. The changed copy
 * is left at CP_EVIDENCE_CHANGED for the `repro verify` CLI test. */
#include "cm_test.h"
#include "cm_error.h"
#include "rp_archive.h"

#include <stdlib.h>

static unsigned char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (*len = ftell(f)) <= 0) {
    if (f != NULL)
      fclose(f);
    return NULL;
  }
  rewind(f);
  buf = malloc((size_t)*len);
  if (buf != NULL && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

TEST_IMPL(bundle_verifies) {
  rp_verify_result vr;
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(CP_EVIDENCE_BUNDLE, &vr));
  if (!vr.ok)
    fprintf(stderr, "problem: %s\n", vr.problem);
  ASSERT_EQ(vr.ok, 1);
  ASSERT_GT(vr.files_checked, 20);
  ASSERT_STR_EQ(vr.status, "complete");
  return 0;
}

TEST_IMPL(changed_byte_detected) {
  rp_verify_result vr;
  long len = 0;
  unsigned char *buf = slurp(CP_EVIDENCE_BUNDLE, &len);
  FILE *f;
  ASSERT_TRUE(buf != NULL);
  buf[len / 2] ^= 0x5a;
  f = fopen(CP_EVIDENCE_CHANGED, "wb");
  ASSERT_TRUE(f != NULL);
  ASSERT_EQ(fwrite(buf, 1, (size_t)len, f), len);
  ASSERT_EQ(fclose(f), 0);
  free(buf);
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(CP_EVIDENCE_CHANGED, &vr));
  ASSERT_EQ(vr.ok, 0);
  ASSERT_TRUE(vr.problem[0] != '\0');
  printf("changed copy rejected: %s\n", vr.problem);
  return 0;
}
