/* Unit tests of src/common: SHA-256 against FIPS 180-4 vectors, checked
 * conversions, and the error table. */
#include "cm_test.h"

#include <errno.h>
#include "cm_error.h"
#include "cm_file.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#ifndef _WIN32
#include <unistd.h>
#endif

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
  /* digits only: no white space, '+' or bare '-' (strtoll takes them) */
  ASSERT_EQ(cm_parse_i64(" 4", &v), CM_EINVAL);
  ASSERT_EQ(cm_parse_i64("+4", &v), CM_EINVAL);
  ASSERT_EQ(cm_parse_i64("-", &v), CM_EINVAL);
  ASSERT_EQ(cm_parse_i64("- 4", &v), CM_EINVAL);
  ASSERT_EQ(v, INT64_MAX); /* untouched on failure */
  return 0;
}

TEST_IMPL(parse_u64) {
  uint64_t v = 0;
  ASSERT_OK(cm_parse_u64("18446744073709551615", &v));
  ASSERT_TRUE(v == UINT64_MAX);
  ASSERT_EQ(cm_parse_u64("-1", &v), CM_EINVAL);
  /* strtoull skips white space, then wraps " -1" to UINT64_MAX */
  ASSERT_EQ(cm_parse_u64(" -1", &v), CM_EINVAL);
  ASSERT_EQ(cm_parse_u64("+1", &v), CM_EINVAL);
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
  ASSERT_EQ(cm_parse_dims(" 4x4", d, &n), CM_EINVAL);
  ASSERT_EQ(cm_parse_dims("+4x4", d, &n), CM_EINVAL);
  ASSERT_EQ(cm_parse_dims("4x 4", d, &n), CM_EINVAL);
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

/* cm_utf8_seq's verdict on s[0..n) as a whole (one or more sequences). */
static int utf8_whole(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t k = cm_utf8_seq(s + i, n - i);
    if (k == 0)
      return 0;
    i += k;
  }
  return 1;
}

/* jansson's verdict, an independent reader of UTF-8. */
static int jansson_whole(const unsigned char *s, size_t n) {
  char buf[8];
  json_t *j;
  memcpy(buf, s, n);
  buf[n] = '\0';
  j = json_string(buf);
  json_decref(j);
  return j != NULL;
}

/* Text cut short never ends inside a character, and text that is not
 * UTF-8 is written with '?' for its stray bytes (cm_utf8.h). Before, a
 * stage reason of 400 'e-acute' kept by the report model in its 512-byte
 * field ended in half a character, and the markdown and HTML reports were
 * not UTF-8. */
TEST_IMPL(utf8_cut_scrub) {
  static const struct {
    const char *s;
    size_t n, want;
  } seqs[] = {
      {"A", 1, 1},
      {"\xc3\xa9", 2, 2},         /* U+00E9 */
      {"\xe2\x82\xac", 3, 3},     /* U+20AC */
      {"\xf0\x9f\x98\x80", 4, 4}, /* U+1F600 */
      {"\xf4\x8f\xbf\xbf", 4, 4}, /* U+10FFFF */
      {"\xc0\x80", 2, 0},         /* overlong NUL */
      {"\xe0\x80\x80", 3, 0},     /* overlong */
      {"\xed\xa0\x80", 3, 0},     /* a surrogate */
      {"\xf4\x90\x80\x80", 4, 0}, /* past U+10FFFF */
      {"\x80", 1, 0},             /* a continuation byte alone */
      {"\xff", 1, 0},
      {"\xc3\xa9", 1, 0}, /* cut short */
  };
  char b3[3], b4[4], b6[6], b7[7], bad[8];
  size_t i;
  unsigned a, b, c, d;
  json_t *j;
  for (i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
    ASSERT_EQ(cm_utf8_seq((const unsigned char *)seqs[i].s, seqs[i].n),
              seqs[i].want);

  ASSERT_EQ(cm_strlcpy(b3, "a\xc3\xa9", sizeof b3), CM_ERANGE);
  ASSERT_STR_EQ(b3, "a");
  ASSERT_EQ(cm_strlcpy(b4, "a\xe2\x82\xac", sizeof b4), CM_ERANGE);
  ASSERT_STR_EQ(b4, "a");
  ASSERT_EQ(cm_strlcpy(b6, "ab\xf0\x9f\x98\x80", sizeof b6), CM_ERANGE);
  ASSERT_STR_EQ(b6, "ab");
  ASSERT_OK(cm_strlcpy(b7, "ab\xf0\x9f\x98\x80", sizeof b7));
  ASSERT_STR_EQ(b7, "ab\xf0\x9f\x98\x80");
  ASSERT_EQ(cm_snprintf(b4, sizeof b4, "%s!", "\xc3\xa9\xc3\xa9"), CM_ERANGE);
  ASSERT_STR_EQ(b4, "\xc3\xa9");
  /* Bytes that are no UTF-8 at all are cut as bytes. */
  ASSERT_EQ(cm_strlcpy(b3, "\xff\xff\xff", sizeof b3), CM_ERANGE);
  ASSERT_STR_EQ(b3, "\xff\xff");
  /* A suffix cut from the front starts at its first character: the
   * continuation bytes of one begun before it are skipped, at most 3. */
  ASSERT_EQ(cm_utf8_skip("\xa9x", 2), 1);
  ASSERT_EQ(cm_utf8_skip("\x98\x80x", 3), 2);
  ASSERT_EQ(cm_utf8_skip("\xc3\xa9", 2), 0);
  ASSERT_EQ(cm_utf8_skip("ab", 2), 0);
  ASSERT_EQ(cm_utf8_skip("\x80\x80\x80\x80", 4), 3);
  ASSERT_EQ(cm_utf8_skip("\x80\x80", 1), 1);

  cm_strlcpy(bad,
             "a\xff"
             "b\xc3",
             sizeof bad);
  ASSERT_EQ(cm_utf8_scrub(bad), 2);
  ASSERT_STR_EQ(bad, "a?b?");
  cm_strlcpy(bad, "\xc3\xa9t\xc3\xa9", sizeof bad);
  ASSERT_EQ(cm_utf8_scrub(bad), 0);
  ASSERT_STR_EQ(bad, "\xc3\xa9t\xc3\xa9");
  j = cm_json_text("a\xff"
                   "b");
  ASSERT_TRUE(j != NULL);
  ASSERT_STR_EQ(json_string_value(j), "a?b");
  json_decref(j);

  /* Against jansson on every string of two bytes, every three-byte one
   * with a lead of 0xE0-0xEF, and four-byte ones over every lead of
   * 0xF0-0xF7 and second byte with the last two from a set of edges. */
  for (a = 1; a < 256; a++)
    for (b = 1; b < 256; b++) {
      unsigned char s2[2];
      s2[0] = (unsigned char)a;
      s2[1] = (unsigned char)b;
      ASSERT_EQ(utf8_whole(s2, 2), jansson_whole(s2, 2));
    }
  for (a = 0xE0; a < 0xF0; a++)
    for (b = 1; b < 256; b++)
      for (c = 1; c < 256; c++) {
        unsigned char s3[3];
        s3[0] = (unsigned char)a;
        s3[1] = (unsigned char)b;
        s3[2] = (unsigned char)c;
        ASSERT_EQ(utf8_whole(s3, 3), jansson_whole(s3, 3));
      }
  for (a = 0xF0; a < 0xF8; a++)
    for (b = 1; b < 256; b++)
      for (c = 0; c < 4; c++)
        for (d = 0; d < 4; d++) {
          static const unsigned char edge[4] = {0x41, 0x80, 0xBF, 0xC0};
          unsigned char s4[4];
          s4[0] = (unsigned char)a;
          s4[1] = (unsigned char)b;
          s4[2] = edge[c];
          s4[3] = edge[d];
          ASSERT_EQ(utf8_whole(s4, 4), jansson_whole(s4, 4));
        }
  return 0;
}

/* One line for a terminal: breaks and tabs as spaces, controls (C0, DEL,
 * C1, bidirectional) and stray bytes as '?', everything else kept. */
TEST_IMPL(text_oneline) {
  char s[64];
  cm_strlcpy(s, "a\tb\nc\rd", sizeof s);
  ASSERT_EQ(cm_text_oneline(s), 3);
  ASSERT_STR_EQ(s, "a b c d");
  cm_strlcpy(s, "\x1b[2Kok\x7f", sizeof s);
  ASSERT_EQ(cm_text_oneline(s), 2);
  ASSERT_STR_EQ(s, "?[2Kok?");
  cm_strlcpy(s,
             "\xc2\x9b"
             "2K \xc2\xa0 \xc3\xa9 \xff",
             sizeof s);
  ASSERT_EQ(cm_text_oneline(s), 2);
  ASSERT_STR_EQ(s, "??2K \xc2\xa0 \xc3\xa9 ?");
  /* a right-to-left override and an isolate, which reorder a shown line */
  cm_strlcpy(s,
             "ok \xe2\x80\xae"
             "fdp.exe \xe2\x81\xa6x\xe2\x81\xa9",
             sizeof s);
  ASSERT_EQ(cm_text_oneline(s), 3);
  ASSERT_STR_EQ(s, "ok ???fdp.exe ???x???");
  cm_strlcpy(s, "plain: 1,024 bytes", sizeof s);
  ASSERT_EQ(cm_text_oneline(s), 0);
  ASSERT_STR_EQ(s, "plain: 1,024 bytes");
  {
    /* the copy for a message: cut as cm_strlcpy cuts, then one line */
    char b[8];
    ASSERT_TRUE(cm_text_shown("a\x1b[2J\rbcdef", b, sizeof b) == b);
    ASSERT_STR_EQ(b, "a?[2J b");
  }
  return 0;
}

/* The first control character of a word, as cm_text_oneline reads them;
 * a byte that is not UTF-8 (a Latin-1 file name) is not one. */
TEST_IMPL(text_control_at) {
  ASSERT_EQ(cm_text_control_at(""), -1);
  ASSERT_EQ(cm_text_control_at("/tmp/r\xc3\xa9sultats [2]/a b"), -1);
  ASSERT_EQ(cm_text_control_at("/tmp/r\xe9sultats"), -1);
  ASSERT_EQ(cm_text_control_at("\xc2\xa0nbsp"), -1);
  ASSERT_EQ(cm_text_control_at("/tmp/x\x1b[2J"), 6);
  ASSERT_EQ(cm_text_control_at("a\tb"), 1);
  ASSERT_EQ(cm_text_control_at("ab\n"), 2);
  ASSERT_EQ(cm_text_control_at("\xe9\x7f"), 1);
  ASSERT_EQ(cm_text_control_at("x\xc2\x9b"
                               "2J"),
            1);
  ASSERT_EQ(cm_text_control_at("ok \xe2\x80\xae"
                               "fdp.exe"),
            3);
  return 0;
}

TEST_IMPL(error_table) {
  ASSERT_STR_EQ(cm_err_name(CM_EINVAL), "CM_EINVAL");
  ASSERT_STR_EQ(cm_strerror(CM_ETIMEDOUT), "timed out");
  ASSERT_STR_EQ(cm_strerror(12345), "unknown error");
  ASSERT_TRUE(CM_EINVAL < 0);
  ASSERT_EQ(cm_error_from_errno(0), CM_OK);
  /* a path's own errors name the path's problem, not an I/O error */
  ASSERT_EQ(cm_error_from_errno(ENOTDIR), CM_ENOTDIR);
  ASSERT_EQ(cm_error_from_errno(ENAMETOOLONG), CM_ENAMETOOLONG);
  ASSERT_STR_EQ(cm_strerror(CM_ENOTDIR), "a part of the path is not a folder");
  ASSERT_EQ(cm_error_from_errno(EACCES), CM_EACCES);
  return 0;
}

/* cm_grow: first capacity, doubling, contents kept, no realloc while there
 * is room. */
TEST_IMPL(grow_array) {
  long *v = NULL, *before;
  size_t cap = 0, n;
  for (n = 0; n < 100; n++) {
    ASSERT_OK(cm_grow(&v, &cap, n, sizeof *v, 4));
    ASSERT_TRUE(cap > n);
    v[n] = (long)n * 7;
  }
  ASSERT_EQ(cap, 128);
  for (n = 0; n < 100; n++)
    ASSERT_EQ(v[n], (long)n * 7);
  before = v;
  ASSERT_OK(cm_grow(&v, &cap, 100, sizeof *v, 4));
  ASSERT_TRUE(v == before);
  ASSERT_EQ(cap, 128);
  free(v);
  return 0;
}

/* cm_json_failed / cm_json_dumps (cm_file.h): once jansson is refused an
 * allocation (here a string of SIZE_MAX / 4 bytes, which malloc refuses
 * at once), no document is written, even one built before the refusal and
 * complete; forgetting the refusal (the allocation-failure driver's reset)
 * writes again. */
TEST_IMPL(json_refusal_sticky) {
  char path[1024], *text;
  json_t *doc = json_pack("{s:i}", "a", 1);
  ASSERT_OK(plat_mkdir_p(cm_test_tmpdir()));
  ASSERT_OK(
      cm_snprintf(path, sizeof path, "%s/refusal.json", cm_test_tmpdir()));
  cm_json_init();
  cm_json_forget_failures();
  ASSERT_TRUE(doc != NULL);
  ASSERT_TRUE(!cm_json_failed());
  text = cm_json_dumps(doc, JSON_COMPACT);
  ASSERT_TRUE(text != NULL && strcmp(text, "{\"a\":1}") == 0);
  free(text);
  ASSERT_EQ(cm_json_dump_file(doc, path, 0), 0);
  ASSERT_TRUE(json_stringn_nocheck("x", SIZE_MAX / 4) == NULL);
  ASSERT_TRUE(cm_json_failed());
  ASSERT_TRUE(cm_json_dumps(doc, JSON_COMPACT) == NULL);
  ASSERT_EQ(cm_json_dump_file(doc, path, 0), -1);
  cm_json_forget_failures();
  text = cm_json_dumps(doc, JSON_COMPACT);
  ASSERT_TRUE(text != NULL);
  free(text);
  json_decref(doc);
  return 0;
}

/* cm_buf_append: first capacity, doubling, contents kept, room for a
 * NUL after every append (len 0 included, on an empty buffer too). */
TEST_IMPL(buf_append) {
  char *b = NULL, *before;
  size_t n = 0, cap = 0, i;
  ASSERT_OK(cm_buf_append(&b, &n, &cap, "", 0, 4));
  ASSERT_TRUE(b != NULL && n == 0 && cap == 4);
  for (i = 0; i < 10; i++)
    ASSERT_OK(cm_buf_append(&b, &n, &cap, "abc", 3, 4));
  ASSERT_EQ(n, 30);
  ASSERT_EQ(cap, 32);
  b[n] = '\0';
  ASSERT_EQ(strncmp(b, "abcabcabc", 9), 0);
  ASSERT_EQ(strcmp(b + 27, "abc"), 0);
  before = b;
  ASSERT_OK(cm_buf_append(&b, &n, &cap, "d", 1, 4));
  ASSERT_TRUE(b == before && cap == 32 && n == 31);
  ASSERT_OK(cm_buf_append(&b, &n, &cap, "e", 1, 4));
  ASSERT_EQ(cap, 64);
  ASSERT_EQ(cm_buf_append(&b, &n, &cap, "x", SIZE_MAX - 1, 4), CM_ENOMEM);
  ASSERT_TRUE(n == 32 && cap == 64);
  free(b);
  return 0;
}

/* plat_write_file_atomic: the file holds exactly the bytes, and no
 * temporary is left beside it. */
TEST_IMPL(write_file_atomic) {
  char path[1024], tmp[1100], *text;
  size_t len;
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/atomic.txt", cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(cm_test_tmpdir()));
  ASSERT_OK(plat_write_file_atomic(path, "first", 5));
  ASSERT_OK(plat_write_file_atomic(path, "second\n", 7));
  ASSERT_OK(cm_read_file(path, &text, &len));
  ASSERT_EQ(len, 7);
  ASSERT_TRUE(memcmp(text, "second\n", 7) == 0);
  free(text);
  ASSERT_OK(cm_snprintf(tmp, sizeof tmp, "%s.tmp", path));
  ASSERT_EQ(plat_path_exists(tmp), 0);
  ASSERT_EQ(plat_write_file_atomic(NULL, "x", 1), CM_EINVAL);
  /* a folder that is not there is named as such, not as an I/O error */
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/no-such-folder/atomic.txt",
                        cm_test_tmpdir()));
  ASSERT_EQ(plat_write_file_atomic(path, "x", 1), CM_ENOENT);
  return 0;
}

/* plat_mkdir_new: a folder is made only where nothing is: a second call,
 * or a file in its place, is CM_EEXIST (plat_mkdir_p takes the existing
 * folder as success), and a missing parent is CM_ENOENT. */
TEST_IMPL(mkdir_new) {
  char path[1024], file[1100], deep[1100];
  ASSERT_OK(plat_mkdir_p(cm_test_tmpdir()));
  /* the suite's scratch folder outlives a run: a name of this process's */
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/new-%ld", cm_test_tmpdir(),
                        (long)uv_os_getpid()));
  ASSERT_OK(plat_mkdir_new(path));
  ASSERT_EQ(plat_path_is_dir(path), 1);
  ASSERT_EQ(plat_mkdir_new(path), CM_EEXIST);
  ASSERT_OK(plat_mkdir_p(path));
  ASSERT_OK(cm_snprintf(file, sizeof file, "%s/file", path));
  ASSERT_OK(plat_write_file_atomic(file, "x", 1));
  ASSERT_EQ(plat_mkdir_new(file), CM_EEXIST);
  ASSERT_OK(cm_snprintf(deep, sizeof deep, "%s/missing/new", path));
  ASSERT_EQ(plat_mkdir_new(deep), CM_ENOENT);
  return 0;
}

/* plat_probe_write_atomic: a folder is refused as CM_EEXIST, a file in a
 * missing folder as CM_ENOENT, a device as CM_EINVAL; a writable path passes,
 * leaving no temporary and an existing file as it was. */
TEST_IMPL(probe_write_atomic) {
  char path[1024], tmp[1100], missing[1100], *text;
  size_t len;
  ASSERT_OK(plat_mkdir_p(cm_test_tmpdir()));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/probe.json", cm_test_tmpdir()));
  ASSERT_OK(cm_snprintf(tmp, sizeof tmp, "%s.tmp", path));
  ASSERT_OK(cm_snprintf(missing, sizeof missing, "%s/no-such-folder/r.json",
                        cm_test_tmpdir()));
  ASSERT_EQ(plat_path_is_dir(cm_test_tmpdir()), 1);
  ASSERT_EQ(plat_probe_write_atomic(cm_test_tmpdir()), CM_EEXIST);
  ASSERT_EQ(plat_probe_write_atomic(missing), CM_ENOENT);
  ASSERT_EQ(plat_probe_write_atomic(""), CM_EINVAL);
  /* its checks that write nothing: a missing folder is not theirs */
  ASSERT_EQ(plat_check_write_target(cm_test_tmpdir()), CM_EEXIST);
  ASSERT_EQ(plat_check_write_target(""), CM_EINVAL);
  ASSERT_OK(plat_check_write_target(missing));
  remove(path);
  ASSERT_OK(plat_probe_write_atomic(path));
  ASSERT_EQ(plat_path_exists(path), 0);
  ASSERT_EQ(plat_path_exists(tmp), 0);
  ASSERT_OK(plat_write_file_atomic(path, "kept", 4));
  ASSERT_EQ(plat_path_is_dir(path), 0);
  ASSERT_OK(plat_probe_write_atomic(path));
  ASSERT_EQ(plat_path_exists(tmp), 0);
  ASSERT_OK(cm_read_file(path, &text, &len));
  ASSERT_EQ(len, 4);
  ASSERT_TRUE(memcmp(text, "kept", 4) == 0);
  free(text);
  /* a file where a folder should be: the path's problem, named */
  ASSERT_OK(cm_snprintf(missing, sizeof missing, "%s/sub.json", path));
#ifndef _WIN32
  {
    /* "path.tmp" a link to a file of the user's: the probe left both as
     * they were (it emptied the file and removed the link), and the write
     * replaced the link, never writing through it */
    char mine[1100];
    ASSERT_OK(cm_snprintf(mine, sizeof mine, "%s/mine.txt", cm_test_tmpdir()));
    ASSERT_OK(plat_write_file_atomic(mine, "precious\n", 9));
    remove(tmp);
    ASSERT_EQ(symlink(mine, tmp), 0);
    ASSERT_OK(plat_probe_write_atomic(path));
    ASSERT_OK(cm_read_file(tmp, &text, &len)); /* the link is still there */
    ASSERT_EQ(len, 9);
    free(text);
    ASSERT_OK(plat_write_file_atomic(path, "results", 7));
    ASSERT_OK(cm_read_file(mine, &text, &len));
    ASSERT_EQ(len, 9);
    ASSERT_TRUE(memcmp(text, "precious\n", 9) == 0);
    free(text);
    ASSERT_OK(cm_read_file(path, &text, &len));
    ASSERT_EQ(len, 7);
    free(text);
    ASSERT_EQ(plat_path_exists(tmp), 0);
  }
  ASSERT_EQ(plat_probe_write_atomic(missing), CM_ENOTDIR);
#else
  /* Windows' C runtime says ENOENT for it */
  ASSERT_EQ(plat_probe_write_atomic(missing), CM_ENOENT);
#endif
  ASSERT_EQ(plat_path_is_special(path), 0);
  ASSERT_EQ(plat_path_is_special(cm_test_tmpdir()), 0);
#ifndef _WIN32
  /* a device: refused, where the rename would have replaced it */
  ASSERT_EQ(plat_path_is_special("/dev/null"), 1);
  ASSERT_EQ(plat_probe_write_atomic("/dev/null"), CM_EINVAL);
#else
  /* DOS's device names, which GetFileAttributesW reports as archive files:
   * --json NUL used to pass and lose the results after the run */
  ASSERT_EQ(plat_path_is_special("NUL"), 1);
  ASSERT_EQ(plat_path_is_special("nul.json"), 1);
  ASSERT_EQ(plat_path_is_special("COM1"), 1);
  ASSERT_EQ(plat_path_is_special("CON"), 1);
  ASSERT_EQ(plat_path_is_special("COM1:"), 1);
  ASSERT_EQ(plat_path_is_special("nul .json"), 1);
  ASSERT_EQ(plat_path_is_special("C:\\cp-no-such-folder\\aux.json"), 1);
  ASSERT_EQ(plat_probe_write_atomic("NUL"), CM_EINVAL);
  ASSERT_EQ(plat_probe_write_atomic("nul.json"), CM_EINVAL);
  ASSERT_OK(cm_snprintf(missing, sizeof missing, "%s\\NUL", cm_test_tmpdir()));
  ASSERT_EQ(plat_path_is_special(missing), 1);
  /* the device namespace, decided by name (a pipe is not opened) */
  ASSERT_EQ(plat_path_is_special("\\\\.\\NUL"), 1);
  ASSERT_EQ(plat_path_is_special("\\\\.\\pipe\\cp-no-such-pipe"), 1);
  /* a drive path under \\?\ is a path like any other */
  ASSERT_EQ(plat_path_is_special("\\\\?\\C:\\cp-no-such-folder\\r.json"), 0);
  /* a name that only starts like a device's is a file */
  ASSERT_EQ(plat_path_is_special("console.json"), 0);
  ASSERT_EQ(plat_path_is_special("COM10"), 0);
  /* superscript 1-3 after COM and LPT: reserved too (UTF-8 here) */
  ASSERT_EQ(plat_path_is_special("COM\xc2\xb9"), 1);
  ASSERT_EQ(plat_path_is_special("LPT\xc2\xb2.txt"), 1);
  ASSERT_EQ(plat_path_is_special("COM\xc2\xb3.json"), 1);
#endif
  return 0;
}

/* plat_mem_available: the machine's available memory, more than nothing
 * and less than 2^50 bytes (Linux reads /proc/meminfo; Windows and Wine
 * answer GlobalMemoryStatusEx). */
/* plat_getenv: a set variable's value, NULL for one not set. (Windows'
 * UTF-8 and case rules: test_windows.environ_utf8.) */
TEST_IMPL(getenv_utf8) {
  /* libuv sets it through SetEnvironmentVariableW on Windows: UTF-8 in */
  ASSERT_EQ(uv_os_setenv("CP_TEST_GETENV", "zo\xc3\xab runs"), 0);
  ASSERT_STR_EQ(plat_getenv("CP_TEST_GETENV"), "zo\xc3\xab runs");
  ASSERT_TRUE(plat_getenv("CP_TEST_GETENV_NOT_SET") == NULL);
  ASSERT_EQ(uv_os_unsetenv("CP_TEST_GETENV"), 0);
  ASSERT_TRUE(plat_getenv("CP_TEST_GETENV") == NULL);
  return 0;
}

TEST_IMPL(mem_available) {
  uint64_t b = 0;
  ASSERT_OK(plat_mem_available(&b));
  ASSERT_GT(b, 0);
  ASSERT_LT(b, (uint64_t)1 << 50);
  return 0;
}

/* cm_split: words between runs of separators, in place; more than max is
 * max + 1. */
TEST_IMPL(split_words) {
  char s[] = "  set\tA=1  B ", t[] = "a b c", e[] = " \t ";
  char *w[3];
  ASSERT_EQ(cm_split(s, " \t", w, 3), 3);
  ASSERT_STR_EQ(w[0], "set");
  ASSERT_STR_EQ(w[1], "A=1");
  ASSERT_STR_EQ(w[2], "B");
  ASSERT_EQ(cm_split(t, " ", w, 2), 3);
  ASSERT_STR_EQ(w[1], "b");
  ASSERT_EQ(cm_split(e, " \t", w, 3), 0);
  return 0;
}

/* cm_opt_split: the name before the first "=" and the value after it (""
 * for "--out="), NULL without one; a name too long is cut and said so. */
TEST_IMPL(opt_split) {
  char name[8];
  const char *v = "x";
  ASSERT_EQ(cm_opt_split("--out", name, sizeof name, &v), 0);
  ASSERT_STR_EQ(name, "--out");
  ASSERT_TRUE(v == NULL);
  ASSERT_EQ(cm_opt_split("--out=a=b", name, sizeof name, &v), 0);
  ASSERT_STR_EQ(name, "--out");
  ASSERT_STR_EQ(v, "a=b");
  ASSERT_EQ(cm_opt_split("--out=", name, sizeof name, &v), 0);
  ASSERT_STR_EQ(v, "");
  ASSERT_EQ(cm_opt_split("--threshold=5%", name, sizeof name, &v), 1);
  ASSERT_STR_EQ(name, "--thres");
  ASSERT_STR_EQ(v, "5%");
  return 0;
}

/* cm_str_among: whole-string equality against a NULL-terminated list. */
TEST_IMPL(str_among) {
  static const char *const list[] = {"--out", "--only", NULL};
  static const char *const empty[] = {NULL};
  ASSERT_EQ(cm_str_among("--out", list), 1);
  ASSERT_EQ(cm_str_among("--only", list), 1);
  ASSERT_EQ(cm_str_among("--o", list), 0);
  ASSERT_EQ(cm_str_among("--outer", list), 0);
  ASSERT_EQ(cm_str_among("", list), 0);
  ASSERT_EQ(cm_str_among("--out", empty), 0);
  return 0;
}
