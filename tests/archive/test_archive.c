/* Unit tests of the run archive on a run folder: gzip logs, manifest.json,
 * verify, and the filing of clean and instrumented results. No GPU. */
#include "cm_test.h"
#include "archive_fixture.h"
#include "cm_error.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "rp_archive.h"

#include <jansson.h>
#include <stdlib.h>
#include <zlib.h>

/* Decompresses a whole gzip file with zlib directly (not the library's
 * reader), allowing a stream that stops at a sync flush when partial_ok. */
static char *gunzip_file(const char *path, size_t *out_len, int partial_ok) {
  size_t in_len, cap = 1 << 20, n = 0;
  char *in = fx_read(path, &in_len), *out = malloc(cap);
  z_stream zs;
  int r = Z_OK;
  memset(&zs, 0, sizeof zs);
  if (in == NULL || out == NULL || inflateInit2(&zs, 15 + 16) != Z_OK) {
    free(in);
    free(out);
    return NULL;
  }
  zs.next_in = (unsigned char *)in;
  zs.avail_in = (uInt)in_len;
  while (r == Z_OK) {
    if (cap - n < 65536) {
      char *p = realloc(out, cap * 2);
      if (p == NULL)
        break;
      out = p;
      cap *= 2;
    }
    zs.next_out = (unsigned char *)out + n;
    zs.avail_out = (uInt)(cap - n);
    r = inflate(&zs, Z_NO_FLUSH);
    n = cap - zs.avail_out;
  }
  inflateEnd(&zs);
  free(in);
  if (r != Z_STREAM_END && !(partial_ok && r == Z_BUF_ERROR)) {
    free(out);
    return NULL;
  }
  *out_len = n;
  return out;
}

static json_t *load_manifest(const char *dir) {
  char path[4096];
  json_error_t err;
  if (cm_snprintf(path, sizeof path, "%s/manifest.json", dir) != 0)
    return NULL;
  return json_load_file(path, 0, &err);
}

TEST_IMPL(log_roundtrip) {
  char dir[4096], path[4096];
  static char big[300000];
  rp_log *log;
  uint64_t raw = 0;
  size_t len, i;
  char *back;
  ASSERT_OK(fx_fresh_dir("log_roundtrip", dir, sizeof dir));
  for (i = 0; i < sizeof big; i++)
    big[i] = (char)((i * 2654435761u) >> 13); /* poorly compressible */
  ASSERT_OK(rp_log_open(dir, "a/b/step.log.gz", &log));
  ASSERT_OK(rp_log_write(log, "head\n", 5));
  ASSERT_OK(rp_log_write(log, NULL, 0));
  ASSERT_OK(rp_log_flush(log));
  ASSERT_OK(rp_log_write(log, big, sizeof big));
  ASSERT_OK(rp_log_close(log, &raw));
  ASSERT_EQ(raw, 5 + sizeof big);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/a/b/step.log.gz", dir));
  back = gunzip_file(path, &len, 0);
  ASSERT_TRUE(back != NULL);
  ASSERT_EQ(len, 5 + sizeof big);
  ASSERT_TRUE(memcmp(back, "head\n", 5) == 0);
  ASSERT_TRUE(memcmp(back + 5, big, sizeof big) == 0);
  free(back);
  return 0;
}

/* After rp_log_flush, what is on disk already decompresses (the promise a
 * run that dies relies on), although the member is not finished. */
TEST_IMPL(log_flush_is_readable) {
  char dir[4096], path[4096];
  rp_log *log;
  size_t len;
  char *back;
  ASSERT_OK(fx_fresh_dir("log_flush", dir, sizeof dir));
  ASSERT_OK(rp_log_open(dir, "s.log.gz", &log));
  ASSERT_OK(rp_log_write(log, "before the crash\n", 17));
  ASSERT_OK(rp_log_flush(log));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/s.log.gz", dir));
  back = gunzip_file(path, &len, 1);
  ASSERT_TRUE(back != NULL);
  ASSERT_EQ(len, 17);
  ASSERT_TRUE(memcmp(back, "before the crash\n", 17) == 0);
  free(back);
  /* Unfinished, it must not pass as a complete gzip file. */
  ASSERT_TRUE(gunzip_file(path, &len, 0) == NULL);
  ASSERT_OK(rp_log_close(log, NULL));
  back = gunzip_file(path, &len, 0);
  ASSERT_TRUE(back != NULL);
  free(back);
  return 0;
}

TEST_IMPL(manifest_roundtrip) {
  char dir[4096], path[4096], hex[CM_SHA256_HEX_LEN];
  rp_verify_result res;
  json_t *m, *files;
  size_t i;
  ASSERT_OK(fx_fresh_dir("manifest_roundtrip", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  m = load_manifest(dir);
  ASSERT_TRUE(m != NULL);
  ASSERT_EQ(json_integer_value(json_object_get(m, "schema_version")),
            RP_MANIFEST_SCHEMA_VERSION);
  ASSERT_STR_EQ(json_string_value(json_object_get(m, "status")), "complete");
  files = json_object_get(m, "files");
  ASSERT_EQ(json_array_size(files), 4);
  for (i = 0; i < json_array_size(files); i++) {
    json_t *e = json_array_get(files, i);
    const char *p = json_string_value(json_object_get(e, "path"));
    uint64_t size = 0;
    ASSERT_TRUE(p != NULL && p[0] != '/' && strstr(p, "manifest") == NULL);
    if (i > 0)
      ASSERT_TRUE(strcmp(json_string_value(json_object_get(
                             json_array_get(files, i - 1), "path")),
                         p) < 0);
    /* Independently re-hashed with the common one-shot file hash. */
    ASSERT_OK(cm_snprintf(path, sizeof path, "%s/%s", dir, p));
    ASSERT_OK(cm_sha256_file(path, hex, &size));
    ASSERT_STR_EQ(json_string_value(json_object_get(e, "sha256")), hex);
    ASSERT_EQ(json_integer_value(json_object_get(e, "bytes")), size);
  }
  ASSERT_STR_EQ(
      json_string_value(json_object_get(json_array_get(files, 0), "path")),
      "build/cmake-build.log.gz");
  json_decref(m);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 1);
  ASSERT_EQ(res.files_checked, 4);
  ASSERT_STR_EQ(res.status, "complete");
  ASSERT_STR_EQ(res.run_id, "fixture-run");
  ASSERT_STR_EQ(res.problem, "");
  return 0;
}

/* Only a final state may be written, and a refused manifest leaves no file. */
#ifdef _WIN32
TEST_IMPL(manifest_renames_stray_bytes) {
  printf("skip: Windows file names are UTF-16 and always reach repro as "
         "UTF-8 (POSIX-only test)\n");
  return TEST_SKIP;
}
#else
/* A file name that is not UTF-8 (Latin-1 "caf\xe9.txt", as a tool may
 * write) was listed as "caf?.txt", a file that does not exist, and every
 * verify of the run failed. It is renamed to "caf%E9.txt" ("~2" added when
 * that is taken, here by a file of that very name), its original bytes in
 * "renamed", and the run verifies, folder and bundle; a second finish
 * renames nothing more. */
TEST_IMPL(manifest_renames_stray_bytes) {
  char dir[4096], path[4096], bundle[4096];
  rp_verify_result res;
  json_t *m, *ren, *files;
  size_t i;
  int found = 0;
  ASSERT_OK(fx_fresh_dir("manifest_stray", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/inspect/caf\xe9.txt", dir));
  ASSERT_OK(fx_write(path, "latin-1\n", 8));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/inspect/caf%%E9.txt", dir));
  ASSERT_OK(fx_write(path, "taken\n", 6));
  m = load_manifest(dir);
  ASSERT_TRUE(m != NULL);
  ASSERT_OK(rp_manifest_finish(dir, m));
  ASSERT_OK(rp_manifest_finish(dir, m)); /* again: nothing more to rename */
  json_decref(m);
  m = load_manifest(dir);
  ASSERT_TRUE(m != NULL);
  ren = json_object_get(m, "renamed");
  ASSERT_EQ(json_array_size(ren), 1);
  ASSERT_STR_EQ(
      json_string_value(json_object_get(json_array_get(ren, 0), "path")),
      "inspect/caf%E9.txt~2");
  ASSERT_STR_EQ(json_string_value(
                    json_object_get(json_array_get(ren, 0), "original_hex")),
                "696e73706563742f636166e92e747874");
  files = json_object_get(m, "files");
  for (i = 0; i < json_array_size(files); i++)
    found += strcmp(json_string_value(
                        json_object_get(json_array_get(files, i), "path")),
                    "inspect/caf%E9.txt~2") == 0;
  ASSERT_EQ(found, 1);
  json_decref(m);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/inspect/caf%%E9.txt~2", dir));
  {
    char *t = fx_read(path, NULL);
    ASSERT_TRUE(t != NULL && strcmp(t, "latin-1\n") == 0);
    free(t);
  }
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_STR_EQ(res.problem, "");
  ASSERT_EQ(res.ok, 1);
  ASSERT_EQ(res.files_checked, 6);
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  ASSERT_OK(rp_verify(bundle, &res));
  ASSERT_STR_EQ(res.problem, "");
  ASSERT_EQ(res.ok, 1);
  return 0;
}
#endif

/* A link planted at the manifest's temporary name (manifest.json.tmp-PID,
 * which `repro report` writes when it re-finishes a run an auditor was
 * given) was opened with O_TRUNC and written through: the file it pointed
 * at, outside the run folder, got the manifest, and manifest.json became a
 * link to it, which verify then followed and passed. The name is now made
 * anew (the link removed, never followed), and verify refuses a manifest
 * that is a link. */
#ifdef _WIN32
TEST_IMPL(manifest_no_link_followed) {
  printf("skip: symbolic links need privileges on Windows (POSIX-only "
         "test)\n");
  return TEST_SKIP;
}
#else
#include <sys/stat.h>
#include <unistd.h>
TEST_IMPL(manifest_no_link_followed) {
  char dir[4096], victim[4200], tmp[4200], path[4200], *text;
  struct stat st;
  rp_verify_result res;
  json_t *m;
  ASSERT_OK(fx_fresh_dir("manifest_no_link", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(victim, sizeof victim, "%s-victim", dir));
  ASSERT_OK(fx_write(victim, "PRECIOUS\n", 9));
  ASSERT_OK(cm_snprintf(tmp, sizeof tmp, "%s/manifest.json.tmp-%ld", dir,
                        (long)getpid()));
  ASSERT_EQ(symlink(victim, tmp), 0);
  m = load_manifest(dir);
  ASSERT_TRUE(m != NULL);
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  text = fx_read(victim, NULL);
  ASSERT_TRUE(text != NULL);
  ASSERT_STR_EQ(text, "PRECIOUS\n");
  free(text);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/manifest.json", dir));
  ASSERT_EQ(lstat(path, &st), 0);
  ASSERT_TRUE(S_ISREG(st.st_mode));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 1);
  /* a manifest.json that is a link to a manifest kept elsewhere */
  ASSERT_EQ(rename(path, victim), 0);
  ASSERT_EQ(symlink(victim, path), 0);
  ASSERT_TRUE(rp_verify(dir, &res) != CM_OK);
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "manifest.json: a symbolic link");
  return 0;
}
#endif

TEST_IMPL(manifest_refuses_nonfinal) {
  char dir[4096], path[4096];
  json_t *m = json_pack("{s:s, s:s}", "run_id", "r", "status", "running");
  ASSERT_OK(fx_fresh_dir("manifest_nonfinal", dir, sizeof dir));
  ASSERT_EQ(rp_manifest_finish(dir, m), CM_EINVAL);
  json_object_del(m, "run_id");
  json_object_set_new(m, "status", json_string("complete"));
  ASSERT_EQ(rp_manifest_finish(dir, m), CM_EINVAL);
  json_decref(m);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/manifest.json", dir));
  ASSERT_TRUE(fx_read(path, NULL) == NULL);
  /* And verify calls a folder without a manifest an error, not a pass. */
  {
    rp_verify_result res;
    ASSERT_EQ(rp_verify(dir, &res), CM_ENOENT);
    ASSERT_EQ(res.ok, 0);
  }
  return 0;
}

/* A log cut short after the manifest was written: the size differs. */
TEST_IMPL(verify_truncated_log) {
  char dir[4096], path[4096];
  rp_verify_result res;
  size_t len;
  char *buf;
  ASSERT_OK(fx_fresh_dir("verify_truncated", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/build/cmake-build.log.gz", dir));
  buf = fx_read(path, &len);
  ASSERT_TRUE(buf != NULL && len > 100);
  free(buf);
  ASSERT_OK(fx_truncate(path, len - 37));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "build/cmake-build.log.gz: size mismatch");
  return 0;
}

/* A log cut short before the manifest (the run died, the manifest was then
 * written as "interrupted"): hashes match, the gzip check still catches it. */
TEST_IMPL(verify_truncated_log_hashed) {
  char dir[4096], path[4096];
  rp_verify_result res;
  json_t *m;
  size_t len;
  char *buf;
  ASSERT_OK(fx_fresh_dir("verify_trunc_hashed", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/build/cmake-build.log.gz", dir));
  buf = fx_read(path, &len);
  ASSERT_TRUE(buf != NULL);
  free(buf);
  ASSERT_OK(fx_truncate(path, len - 4)); /* loses half the trailer */
  m = json_pack("{s:s, s:s}", "run_id", "fixture-run", "status", "interrupted");
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_STR_EQ(res.status, "interrupted");
  ASSERT_CONTAINS(res.problem, "build/cmake-build.log.gz: gzip stream "
                               "truncated");
  return 0;
}

TEST_IMPL(verify_changed_byte) {
  char dir[4096], path[4096];
  rp_verify_result res;
  ASSERT_OK(fx_fresh_dir("verify_changed", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/build/cmake-build.log.gz", dir));
  ASSERT_OK(fx_flip_byte(path, 200));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "build/cmake-build.log.gz: sha256 mismatch");
  /* Restored, it verifies again: the check is about that byte. */
  ASSERT_OK(fx_flip_byte(path, 200));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 1);
  return 0;
}

TEST_IMPL(verify_extra_and_missing) {
  char dir[4096], path[4096];
  rp_verify_result res;
  ASSERT_OK(fx_fresh_dir("verify_extra_missing", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/build/stray.txt", dir));
  ASSERT_OK(fx_write(path, "x", 1));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_STR_EQ(res.problem,
                "build/stray.txt: extra file (not named in the manifest)");
  ASSERT_TRUE(remove(path) == 0);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/notes.txt", dir));
  ASSERT_TRUE(remove(path) == 0);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_STR_EQ(res.problem,
                "notes.txt: missing (named in the manifest, not found)");
  return 0;
}

/* verify names files of a bundle from elsewhere: a name holding an ESC
 * sequence and a carriage return is printed with '?' and a space in their
 * place, so that it cannot rewrite the terminal's line into "ok". Before,
 * the problem carried the bytes as they were. */
TEST_IMPL(verify_names_printable) {
  char dir[4096], path[4096], *text;
  size_t len, i;
  json_t *doc, *entry;
  rp_verify_result res;
  static const char forged[] = "late\x1b[2K\rrepro verify: ok";
  ASSERT_OK(fx_fresh_dir("verify_names_printable", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/manifest.json", dir));
  text = fx_read(path, &len);
  ASSERT_TRUE(text != NULL);
  doc = json_loadb(text, len, 0, NULL);
  free(text);
  ASSERT_TRUE(doc != NULL);
  entry = json_pack(
      "{s:s, s:i, s:s}", "path", forged, "bytes", 1, "sha256",
      "0000000000000000000000000000000000000000000000000000000000000000");
  ASSERT_TRUE(entry != NULL);
  ASSERT_EQ(json_array_append_new(json_object_get(doc, "files"), entry), 0);
  ASSERT_EQ(json_dump_file(doc, path, 0), 0);
  json_decref(doc);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_STR_EQ(res.problem, "late?[2K repro verify: ok: missing (named in "
                             "the manifest, not found)");
  for (i = 0; res.problem[i] != '\0'; i++)
    ASSERT_TRUE((unsigned char)res.problem[i] >= 0x20);
  return 0;
}

/* Concatenated gzip members are one valid gzip file (gzip(1) agrees). */
TEST_IMPL(verify_concatenated_members) {
  char dir[4096], path[4096], two[4096];
  rp_verify_result res;
  json_t *m;
  size_t a_len, b_len;
  char *a, *b, *cat;
  ASSERT_OK(fx_fresh_dir("verify_concat", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/build/cmake-build.log.gz", dir));
  a = fx_read(path, &a_len);
  b = fx_read(path, &b_len);
  ASSERT_TRUE(a != NULL && b != NULL);
  cat = malloc(a_len + b_len);
  ASSERT_TRUE(cat != NULL);
  memcpy(cat, a, a_len);
  memcpy(cat + a_len, b, b_len);
  ASSERT_OK(cm_snprintf(two, sizeof two, "%s/build/twice.log.gz", dir));
  ASSERT_OK(fx_write(two, cat, a_len + b_len));
  free(a);
  free(b);
  free(cat);
  m = json_pack("{s:s, s:s}", "run_id", "fixture-run", "status", "complete");
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_STR_EQ(res.problem, "");
  ASSERT_EQ(res.ok, 1);
  /* A corrupt second member is still caught (hash recomputed first). */
  ASSERT_OK(fx_flip_byte(two, (long)(a_len + 30)));
  m = json_pack("{s:s, s:s}", "run_id", "fixture-run", "status", "complete");
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "build/twice.log.gz: gzip data corrupt");
  return 0;
}

TEST_IMPL(results_instrumented_refused) {
  static const char instr[] = "{\"instrumented\": true, \"cases\": []}";
  static const char clean[] = "{\"cases\": [], \"instrumented\": false}";
  static const char none[] = "{\"cases\": [], \"instrumented\": \"no\"}";
  char dir[4096], src[4096], dst[4096], path[4096];
  rp_verify_result res;
  json_t *m;
  ASSERT_OK(fx_fresh_dir("results_refused", dir, sizeof dir));
  ASSERT_OK(cm_snprintf(src, sizeof src, "%s/in.json", dir));
  ASSERT_OK(fx_write(src, instr, sizeof instr - 1));
  ASSERT_EQ(rp_results_check_clean(src), CM_EREFUSED);
  ASSERT_OK(rp_results_file(dir, src, "prof.json", dst, sizeof dst));
  ASSERT_CONTAINS(dst, "/results/instrumented/prof.json");
  ASSERT_EQ(rp_results_file(dir, src, "prof.json", dst, sizeof dst), CM_EEXIST);
  ASSERT_EQ(rp_results_file(dir, src, "../x.json", dst, sizeof dst), CM_EINVAL);
  ASSERT_OK(fx_write(src, none, sizeof none - 1));
  ASSERT_EQ(rp_results_check_clean(src), CM_EPARSE);
  ASSERT_EQ(rp_results_file(dir, src, "none.json", dst, sizeof dst), CM_EPARSE);
  ASSERT_OK(fx_write(src, clean, sizeof clean - 1));
  ASSERT_OK(rp_results_check_clean(src));
  ASSERT_OK(rp_results_file(dir, src, "time.json", dst, sizeof dst));
  ASSERT_CONTAINS(dst, "/results/clean/time.json");
  ASSERT_TRUE(remove(src) == 0);
  /* Someone copies an instrumented result among the clean ones by hand:
   * the manifest hashes it faithfully, verify still refuses it. */
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/results/clean/sneak.json", dir));
  ASSERT_OK(fx_write(path, instr, sizeof instr - 1));
  m = json_pack("{s:s, s:s}", "run_id", "r", "status", "complete");
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "results/clean/sneak.json: instrumented "
                               "result");
  ASSERT_TRUE(remove(path) == 0);
  m = json_pack("{s:s, s:s}", "run_id", "r", "status", "complete");
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 1);
  ASSERT_EQ(res.files_checked, 2);
  return 0;
}

/* A malformed manifest is a verdict naming manifest.json. */
TEST_IMPL(verify_bad_manifest) {
  char dir[4096], path[4096];
  rp_verify_result res;
  ASSERT_OK(fx_fresh_dir("verify_bad_manifest", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/manifest.json", dir));
  ASSERT_OK(fx_write(path,
                     "{\"schema_version\": 1, \"run_id\": \"r\", "
                     "\"status\": \"complete\", \"files\": [{\"path\": "
                     "\"../etc/passwd\", \"bytes\": 1, \"sha256\": "
                     "\"00\"}]}",
                     124));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "manifest.json: files[0]");
  /* a schema_version no manifest ever had */
  ASSERT_OK(fx_write(path, "{\"schema_version\": 0, \"files\": []}", 34));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "schema_version 0: no such version");
  /* a status no finished run has (report's re-finish refused it after
   * writing its documents, leaving the run failing verify) */
  ASSERT_OK(fx_write(path,
                     "{\"schema_version\": 1, \"run_id\": \"r\", "
                     "\"status\": null, \"files\": []}",
                     65));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "status is not complete, interrupted");
  /* the manifest itself given to verify: named as no bundle, not as
   * corrupt gzip data */
  ASSERT_EQ(rp_verify(path, &res), CM_EPARSE);
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "not a bundle (no gzip header)");
  ASSERT_OK(fx_write(path, "{\"files\": [", 11));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "manifest.json: not a JSON object");
  return 0;
}
