/* Unit tests of the bundle (ustar + gzip) and of the archive against
 * independent tools: gzip -t, sha256sum -c and tar -tzf run as child
 * processes where they are installed. No GPU. */
#include "cm_test.h"
#include "archive_fixture.h"
#include "cm_error.h"
#include "cm_str.h"
#include "rp_archive.h"
#include "rp_tar.h"

#include <jansson.h>
#include <stdio.h>
#include <uv.h>
#include <stdlib.h>
#include <string.h>

/* Runs tool; returns 0 when it was missing (then *ran stays 0). */
static int run_tool(const char *const *argv, const char *cwd, const char *out,
                    int *ran) {
  int st = fx_spawn(argv, cwd, out);
  if (st < 0)
    return 0;
  *ran = 1;
  return st;
}

TEST_IMPL(tar_header_fields) {
  unsigned char h[RP__TAR_BLOCK];
  char name[300];
  unsigned sum = 0;
  size_t i;
  ASSERT_OK(rp__tar_header(h, "run/a.txt", 1234, 1700000000));
  ASSERT_STR_EQ((const char *)h, "run/a.txt");
  ASSERT_TRUE(memcmp(h + 124, "00000002322", 12) == 0); /* 1234 octal */
  ASSERT_TRUE(memcmp(h + 257,
                     "ustar\0"
                     "00",
                     8) == 0);
  ASSERT_EQ(h[156], '0');
  for (i = 0; i < sizeof h; i++)
    sum += (i >= 148 && i < 156) ? ' ' : h[i];
  ASSERT_EQ(strtoul((const char *)h + 148, NULL, 8), sum);
  /* 120 bytes: split into prefix "run/<110 x>" and name "tail.txt". */
  memset(name, 0, sizeof name);
  memcpy(name, "run/", 4);
  memset(name + 4, 'x', 107);
  memcpy(name + 111, "/tail.txt", 9);
  ASSERT_OK(rp__tar_header(h, name, 0, 0));
  ASSERT_STR_EQ((const char *)h, "tail.txt");
  ASSERT_TRUE(memcmp(h + 345, name, 111) == 0 && h[345 + 111] == '\0');
  /* 256 bytes cannot be stored in ustar; nor a 101-byte last component. */
  memset(name, 'y', 256);
  name[100] = '/';
  name[256] = '\0';
  ASSERT_EQ(rp__tar_header(h, name, 0, 0), CM_ERANGE);
  memset(name, 'z', 120);
  name[10] = '/';
  name[120] = '\0';
  ASSERT_EQ(rp__tar_header(h, name, 0, 0), CM_ERANGE);
  ASSERT_EQ(rp__tar_header(h, "big", RP__TAR_SIZE_MAX + 1, 0), CM_ERANGE);
  return 0;
}

TEST_IMPL(bundle_roundtrip) {
  char dir[4096], bundle[4096], list[4096];
  const char *gz[] = {"gzip", "-t", NULL, NULL};
  const char *tar[] = {"tar", "-tzf", NULL, NULL};
  rp_verify_result res;
  int ran = 0;
  char *text;
  ASSERT_OK(fx_fresh_dir("bundle_rt", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  ASSERT_CONTAINS(bundle, "bundle_rt.tar.gz");
  ASSERT_OK(rp_verify(bundle, &res));
  ASSERT_STR_EQ(res.problem, "");
  ASSERT_EQ(res.ok, 1);
  ASSERT_EQ(res.files_checked, 4);
  ASSERT_STR_EQ(res.run_id, "fixture-run");
  gz[2] = bundle;
  ASSERT_EQ(run_tool(gz, NULL, NULL, &ran), 0);
  tar[2] = bundle;
  ASSERT_OK(cm_snprintf(list, sizeof list, "%s.list", dir));
  ran = 0;
  ASSERT_EQ(run_tool(tar, NULL, list, &ran), 0);
  if (!ran)
    return TEST_SKIP; /* the library's own verdict was checked above */
  text = fx_read(list, NULL);
  ASSERT_TRUE(text != NULL);
  /* manifest first; the long path came back whole through ustar's prefix. */
  ASSERT_TRUE(strncmp(text, "bundle_rt/manifest.json\n", 24) == 0);
  ASSERT_CONTAINS(text, "bundle_rt/build/cmake-build.log.gz\n");
  ASSERT_CONTAINS(text, "bundle_rt/results/clean/time.json\n");
  ASSERT_CONTAINS(text, "bundle_rt/inspect/a-folder-name-long-enough-to-"
                        "need-the-ustar-prefix-field/another-deliberately-"
                        "long-folder-name/sass.log.gz\n");
  free(text);
  return 0;
}

/* Re-finishes dir's manifest (after a test added files). CM_OK or the
 * error. */
static int refinish(const char *dir) {
  char p[4096];
  json_t *m;
  int rc;
  if (cm_snprintf(p, sizeof p, "%s/manifest.json", dir) != CM_OK)
    return CM_ERANGE;
  m = json_load_file(p, 0, NULL);
  if (m == NULL)
    return CM_EPARSE;
  rc = rp_manifest_finish(dir, m);
  json_decref(m);
  return rc;
}

/* A name ustar cannot hold (a last component of 101 bytes) fails the
 * bundle naming that file, and a file dated before 1970 is bundled with
 * mtime 0. Before, both failed with "value out of range" and no file
 * named. */
TEST_IMPL(bundle_refusal_names_file) {
  char dir[4096], bundle[4096], p[4300], name[128], gz[4400];
  const char *tar[] = {"tar", "-tvzf", NULL, NULL};
  rp_verify_result res;
  uv_fs_t req;
  int r, ran = 0;
  char *text;
  ASSERT_OK(fx_fresh_dir("bundle_names", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  /* dated 1969: bundled, as 1970 */
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/old.txt", dir));
  ASSERT_OK(fx_write(p, "old\n", 4));
  r = uv_fs_utime(NULL, &req, p, -3600.0, -3600.0, NULL);
  uv_fs_req_cleanup(&req);
  ASSERT_EQ(r, 0);
  ASSERT_OK(refinish(dir));
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  memset(&res, 0, sizeof res);
  ASSERT_OK(rp_verify(bundle, &res));
  ASSERT_STR_EQ(res.problem, "");
  ASSERT_EQ(res.ok, 1);
  tar[2] = bundle;
  ASSERT_OK(cm_snprintf(gz, sizeof gz, "%s.list", dir));
  if (run_tool(tar, NULL, gz, &ran) == 0 && ran) {
    text = fx_read(gz, NULL);
    ASSERT_TRUE(text != NULL);
    ASSERT_CONTAINS(text, "bundle_names/old.txt");
    free(text);
  }
  /* a last component of 101 bytes: refused, the file named */
  memset(name, 'n', 101);
  name[101] = '\0';
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/%s", dir, name));
  ASSERT_OK(fx_write(p, "x", 1));
  ASSERT_OK(refinish(dir));
  ASSERT_EQ(rp_bundle_write(dir, bundle, sizeof bundle), CM_ERANGE);
  ASSERT_STR_EQ(rp_archive_failed_path(), name);
  return 0;
}

static int keep_none(void *ud, const char *rel, const char *data, size_t len) {
  (void)rel;
  (void)data;
  (void)len;
  ++*(int *)ud;
  return CM_OK;
}

/* The files kept for a reader are bounded together (4 x max), not only
 * each: five results files of 100 bytes with max 100 are refused, named,
 * before any is handed over; with max 200 all five are. */
TEST_IMPL(bundle_keep_bounded) {
  char dir[4096], path[4096], bundle[4096];
  rp_verify_result res;
  json_t *m;
  int k, calls = 0;
  char body[101];
  ASSERT_OK(fx_fresh_dir("bundle_keep", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  memset(body, 'x', 100);
  body[100] = '\0';
  for (k = 0; k < 5; k++) {
    ASSERT_OK(cm_snprintf(path, sizeof path, "%s/results/k%d.txt", dir, k));
    ASSERT_OK(fx_write(path, body, 100));
  }
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/manifest.json", dir));
  ASSERT_TRUE((m = json_load_file(path, 0, NULL)) != NULL);
  ASSERT_OK(rp_manifest_finish(dir, m));
  json_decref(m);
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  ASSERT_OK(rp_verify_bundle_files(bundle, "results/k", 100, keep_none, &calls,
                                   &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "exceed 400 bytes together");
  ASSERT_EQ(calls, 0);
  ASSERT_OK(rp_verify_bundle_files(bundle, "results/k", 200, keep_none, &calls,
                                   &res));
  ASSERT_EQ(res.ok, 1);
  ASSERT_EQ(calls, 5);
  return 0;
}

/* One changed byte anywhere in the bundle is a failed verdict (not an
 * error, and never a pass); so is a truncated bundle. */
TEST_IMPL(bundle_changed_byte) {
  char dir[4096], bundle[4096], copy[4096];
  rp_verify_result res;
  size_t len;
  char *orig;
  int k;
  ASSERT_OK(fx_fresh_dir("bundle_changed", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  orig = fx_read(bundle, &len);
  ASSERT_TRUE(orig != NULL && len > 64);
  ASSERT_OK(cm_snprintf(copy, sizeof copy, "%s.bad.tar.gz", dir));
  for (k = 0; k < 16; k++) {
    long off = (long)((len - 1) * (size_t)k / 15);
    ASSERT_OK(fx_write(copy, orig, len));
    ASSERT_OK(fx_flip_byte(copy, off));
    ASSERT_OK(rp_verify(copy, &res));
    if (res.ok != 0)
      fprintf(stderr, "byte %ld of %lu changed, still verified\n", off,
              (unsigned long)len);
    ASSERT_EQ(res.ok, 0);
    ASSERT_TRUE(res.problem[0] != '\0');
  }
  ASSERT_OK(fx_write(copy, orig, len / 2));
  ASSERT_OK(rp_verify(copy, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_CONTAINS(res.problem, "bundle: ");
  ASSERT_OK(fx_write(copy, orig, len));
  ASSERT_OK(rp_verify(copy, &res));
  ASSERT_EQ(res.ok, 1);
  free(orig);
  return 0;
}

/* The bundle is judged like the folder: an extra and a missing file are
 * named the same way. */
TEST_IMPL(bundle_extra_and_missing) {
  char dir[4096], path[4096], bundle[4096];
  rp_verify_result res;
  ASSERT_OK(fx_fresh_dir("bundle_extra", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/late.txt", dir));
  ASSERT_OK(fx_write(path, "written after the manifest\n", 27));
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  ASSERT_OK(rp_verify(bundle, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_STR_EQ(res.problem,
                "late.txt: extra file (not named in the manifest)");
  ASSERT_TRUE(remove(path) == 0);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/results/clean/time.json", dir));
  ASSERT_TRUE(remove(path) == 0);
  ASSERT_OK(rp_bundle_write(dir, bundle, sizeof bundle));
  ASSERT_OK(rp_verify(bundle, &res));
  ASSERT_EQ(res.ok, 0);
  ASSERT_STR_EQ(res.problem, "results/clean/time.json: missing (named in "
                             "the manifest, not found)");
  return 0;
}

/* Packs run folder dir again by hand as out (a .tar.gz in dir's parent,
 * named base): manifest.json and each file its manifest lists, every entry
 * named TOP/<path> (rp__tar_header splits long names into ustar's prefix),
 * gzip-compressed through rp_log. The entry of path gnu_rel (NULL: none)
 * gets GNU tar's magic ("ustar  " and a NUL over the version) and its
 * checksum again: a header GNU tar reads without the prefix field. A
 * dir_rel (NULL: none) adds, after the files, a folder entry (type '5')
 * named TOP/dir_rel. */
static void tar_rechecksum(unsigned char *h) {
  unsigned sum = 0;
  size_t k;
  for (k = 0; k < RP__TAR_BLOCK; k++)
    sum += (k >= 148 && k < 156) ? ' ' : h[k];
  snprintf((char *)h + 148, 8, "%06o", sum);
  h[155] = ' ';
}

static int repack(const char *dir, const char *parent, const char *base,
                  const char *top, const char *gnu_rel, const char *dir_rel) {
  static const unsigned char zeros[2 * RP__TAR_BLOCK];
  char mpath[4096], path[4096], name[4096];
  json_t *m, *files;
  rp_log *log = NULL;
  size_t i, n;
  int rc = CM_OK;
  ASSERT_OK(cm_snprintf(mpath, sizeof mpath, "%s/manifest.json", dir));
  m = json_load_file(mpath, 0, NULL);
  ASSERT_TRUE(m != NULL);
  files = json_object_get(m, "files");
  ASSERT_OK(rp_log_open(parent, base, &log));
  for (i = 0; rc == CM_OK && i <= json_array_size(files); i++) {
    const char *rel = i == 0 ? "manifest.json"
                             : json_string_value(json_object_get(
                                   json_array_get(files, i - 1), "path"));
    unsigned char h[RP__TAR_BLOCK];
    char *data;
    ASSERT_OK(cm_snprintf(path, sizeof path, "%s/%s", dir, rel));
    ASSERT_OK(cm_snprintf(name, sizeof name, "%s/%s", top, rel));
    data = fx_read(path, &n);
    ASSERT_TRUE(data != NULL);
    ASSERT_OK(rp__tar_header(h, name, n, 1700000000));
    if (gnu_rel != NULL && strcmp(rel, gnu_rel) == 0) {
      memcpy(h + 257, "ustar  ", 8);
      tar_rechecksum(h);
    }
    rc = rp_log_write(log, h, sizeof h);
    if (rc == CM_OK && n > 0)
      rc = rp_log_write(log, data, n);
    if (rc == CM_OK && rp__tar_pad(n) > 0)
      rc = rp_log_write(log, zeros, rp__tar_pad(n));
    free(data);
  }
  if (rc == CM_OK && dir_rel != NULL) {
    unsigned char h[RP__TAR_BLOCK];
    ASSERT_OK(cm_snprintf(name, sizeof name, "%s/%s", top, dir_rel));
    ASSERT_OK(rp__tar_header(h, name, 0, 1700000000));
    h[156] = '5';
    tar_rechecksum(h);
    rc = rp_log_write(log, h, sizeof h);
  }
  if (rc == CM_OK)
    rc = rp_log_write(log, zeros, sizeof zeros);
  json_decref(m);
  ASSERT_OK(rp_log_close(log, NULL));
  return rc;
}

/* Only what the writer makes is read, so that verify and tar agree on every
 * entry's name: a header with GNU tar's magic (where GNU tar ignores the
 * prefix field that names the entry's folder here, and so extracts it
 * under another name than the one checked) and a run folder named "." or
 * ".." (whose files an extraction puts in or above the folder it extracts
 * into) are refused. The same files repacked with the writer's headers and
 * a real folder name verify, so the refusals are the headers' and names'. */
TEST_IMPL(bundle_foreign_headers) {
  /* the run folder's top name, the entry given GNU magic, the refusal */
  static const struct {
    const char *top, *gnu_rel, *want, *dir_rel;
  } bad[] = {
      /* GNU magic on the entry whose folder is in the prefix field */
      {"run",
       "inspect/a-folder-name-long-enough-to-need-the-ustar-prefix-field/"
       "another-deliberately-long-folder-name/sass.log.gz",
       "not a POSIX ustar header", NULL},
      /* ... and on a short name (no prefix): refused all the same */
      {"run", "results/clean/time.json", "not a POSIX ustar header", NULL},
      /* the run folder "..", ".", or with a backslash */
      {"..", NULL, "../manifest.json: the run folder's name", NULL},
      {".", NULL, "./manifest.json: the run folder's name", NULL},
      {"a\\..", NULL, "the run folder's name", NULL},
      /* a folder entry named as a listed file (extracted after it, it
       * replaced the file), and one that climbs out of the run folder;
       * verify passed both before the fourteenth session */
      {"run", NULL, "run/results/clean/time.json: a folder entry",
       "results/clean/time.json"},
      {"run", NULL, "a folder entry", "../../escaped"},
  };
  char parent[4096], dir[4096], out[4096];
  rp_verify_result res;
  size_t k;
  ASSERT_OK(fx_fresh_dir("bundle_foreign", parent, sizeof parent));
  ASSERT_OK(cm_snprintf(dir, sizeof dir, "%s/run", parent));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(cm_snprintf(out, sizeof out, "%s/x.tar.gz", parent));
  /* the hand-made packing itself verifies */
  ASSERT_OK(repack(dir, parent, "x.tar.gz", "run", NULL, NULL));
  ASSERT_OK(rp_verify(out, &res));
  ASSERT_STR_EQ(res.problem, "");
  ASSERT_EQ(res.ok, 1);
  ASSERT_EQ(res.files_checked, 4);
  for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ASSERT_OK(repack(dir, parent, "x.tar.gz", bad[k].top, bad[k].gnu_rel,
                     bad[k].dir_rel));
    ASSERT_OK(rp_verify(out, &res));
    if (res.ok != 0 || strstr(res.problem, bad[k].want) == NULL)
      fprintf(stderr, "case %lu: ok %d, problem \"%s\"\n", (unsigned long)k,
              res.ok, res.problem);
    ASSERT_EQ(res.ok, 0);
    ASSERT_CONTAINS(res.problem, bad[k].want);
  }
  return 0;
}

TEST_IMPL(bundle_needs_manifest) {
  char dir[4096], bundle[4096];
  ASSERT_OK(fx_fresh_dir("bundle_nomanifest", dir, sizeof dir));
  ASSERT_EQ(rp_bundle_write(dir, bundle, sizeof bundle), CM_ENOENT);
  return 0;
}

/* gzip -t accepts every log, sha256sum -c accepts every manifest digest:
 * the archive is checkable without this project's code. */
TEST_IMPL(external_tools_agree) {
  char dir[4096], sums[4096], path[4096];
  rp_verify_result res;
  json_t *m, *files;
  FILE *f;
  size_t i, ngz = 0;
  int ran_gzip = 0, ran_sha = 0;
  ASSERT_OK(fx_fresh_dir("tools_agree", dir, sizeof dir));
  ASSERT_OK(fx_make_run(dir));
  ASSERT_OK(rp_verify(dir, &res));
  ASSERT_EQ(res.ok, 1);
  ASSERT_OK(cm_snprintf(path, sizeof path, "%s/manifest.json", dir));
  m = json_load_file(path, 0, NULL);
  ASSERT_TRUE(m != NULL);
  files = json_object_get(m, "files");
  ASSERT_OK(cm_snprintf(sums, sizeof sums, "%s.sha256", dir));
  f = fopen(sums, "w");
  ASSERT_TRUE(f != NULL);
  for (i = 0; i < json_array_size(files); i++) {
    json_t *e = json_array_get(files, i);
    const char *p = json_string_value(json_object_get(e, "path"));
    fprintf(f, "%s  %s\n", json_string_value(json_object_get(e, "sha256")), p);
    if (strlen(p) > 3 && strcmp(p + strlen(p) - 3, ".gz") == 0) {
      const char *gz[] = {"gzip", "-t", p, NULL};
      ASSERT_EQ(run_tool(gz, dir, NULL, &ran_gzip), 0);
      ngz++;
    }
  }
  fclose(f);
  ASSERT_EQ(ngz, 2);
  {
    const char *sha[] = {"sha256sum", "-c", "--quiet", sums, NULL};
    ASSERT_EQ(run_tool(sha, dir, NULL, &ran_sha), 0);
  }
  json_decref(m);
  /* The tools must also disagree where verify does: a changed byte. */
  if (ran_sha) {
    const char *sha[] = {"sha256sum", "-c", "--quiet", sums, NULL};
    ASSERT_OK(cm_snprintf(path, sizeof path, "%s/notes.txt", dir));
    ASSERT_OK(fx_flip_byte(path, 0));
    ASSERT_NE(run_tool(sha, dir, NULL, &ran_sha), 0);
  }
  if (!ran_gzip && !ran_sha)
    return TEST_SKIP; /* neither tool installed here */
  return 0;
}
