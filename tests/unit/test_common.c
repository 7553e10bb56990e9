/* Unit tests of src/common: SHA-256 against FIPS 180-4 vectors, checked
 * conversions, and the error table. */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_sha256.h"
#include "cm_str.h"

#include <stdlib.h>

TEST_IMPL(sha256_vectors) {
  char hex[CM_SHA256_HEX_LEN];
  cm_sha256_hex("", 0, hex);
  ASSERT_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb924"
                     "27ae41e4649b934ca495991b7852b855");
  cm_sha256_hex("abc", 3, hex);
  ASSERT_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223"
                     "b00361a396177a9cb410ff61f20015ad");
  cm_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
                hex);
  ASSERT_STR_EQ(hex, "248d6a61d20638b8e5c026930c3e6039"
                     "a33ce45964ff2167f6ecedd419db06c1");
  return 0;
}

/* One million 'a' fed in uneven pieces must equal the FIPS digest. */
TEST_IMPL(sha256_stream_split) {
  static char buf[1000];
  cm_sha256_ctx ctx;
  unsigned char d[CM_SHA256_LEN];
  char hex[CM_SHA256_HEX_LEN];
  size_t done = 0, step = 1;
  memset(buf, 'a', sizeof buf);
  cm_sha256_init(&ctx);
  while (done < 1000000) {
    size_t n = step;
    if (n > 1000000 - done)
      n = 1000000 - done;
    cm_sha256_update(&ctx, buf, n);
    done += n;
    step = step % 900 + 63; /* stays under sizeof buf */
  }
  cm_sha256_final(&ctx, d);
  cm_hex(d, sizeof d, hex);
  ASSERT_STR_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
                     "f1809a48a497200e046d39ccc7112cd0");
  return 0;
}

TEST_IMPL(parse_i64) {
  int64_t v = 0;
  ASSERT_OK(cm_parse_i64("-42", &v));
  ASSERT_EQ(v, -42);
  ASSERT_OK(cm_parse_i64("9223372036854775807", &v));
  ASSERT_EQ(v, INT64_MAX);
  ASSERT_EQ(cm_parse_i64("9223372036854775808", &v), CM_ERANGE);
  ASSERT_EQ(cm_parse_i64("12x", &v), CM_EINVAL);
  ASSERT_EQ(cm_parse_i64("", &v), CM_EINVAL);
  ASSERT_EQ(v, INT64_MAX); /* untouched on failure */
  return 0;
}

TEST_IMPL(parse_u64) {
  uint64_t v = 0;
  ASSERT_OK(cm_parse_u64("18446744073709551615", &v));
  ASSERT_TRUE(v == UINT64_MAX);
  ASSERT_EQ(cm_parse_u64("-1", &v), CM_EINVAL);
  ASSERT_EQ(cm_parse_u64("18446744073709551616", &v), CM_ERANGE);
  return 0;
}

TEST_IMPL(parse_dims) {
  int64_t d[3] = {0, 0, 0};
  int n = 0;
  ASSERT_OK(cm_parse_dims("4095x4097x4093", d, &n));
  ASSERT_EQ(n, 3);
  ASSERT_EQ(d[0], 4095);
  ASSERT_EQ(d[2], 4093);
  ASSERT_OK(cm_parse_dims("32x1048576", d, &n));
  ASSERT_EQ(n, 2);
  ASSERT_EQ(d[1], 1048576);
  ASSERT_EQ(cm_parse_dims("0x5", d, &n), CM_ERANGE);
  ASSERT_EQ(cm_parse_dims("-3x5", d, &n), CM_ERANGE);
  ASSERT_EQ(cm_parse_dims("5", d, &n), CM_EINVAL);
  ASSERT_EQ(cm_parse_dims("1x2x3x4", d, &n), CM_EINVAL);
  ASSERT_EQ(cm_parse_dims("99999999999999999999x2", d, &n), CM_ERANGE);
  return 0;
}

TEST_IMPL(strlcpy_truncates) {
  char small[4];
  ASSERT_EQ(cm_strlcpy(small, "abcdef", sizeof small), CM_ERANGE);
  ASSERT_STR_EQ(small, "abc");
  ASSERT_OK(cm_strlcpy(small, "ab", sizeof small));
  ASSERT_STR_EQ(small, "ab");
  ASSERT_EQ(cm_snprintf(small, sizeof small, "%d", 12345), CM_ERANGE);
  return 0;
}

TEST_IMPL(error_table) {
  ASSERT_STR_EQ(cm_err_name(CM_EINVAL), "CM_EINVAL");
  ASSERT_STR_EQ(cm_strerror(CM_ETIMEDOUT), "timed out");
  ASSERT_STR_EQ(cm_strerror(12345), "unknown error");
  ASSERT_TRUE(CM_EINVAL < 0);
  ASSERT_EQ(cm_error_from_errno(0), CM_OK);
  return 0;
}
