/* Paths past MAX_PATH (260 UTF-16 units) on Windows: a checkout in a deep
 * folder gives run folders, logs and manifests whose full paths are longer,
 * and a Win32 file call given such a path without the \\?\ prefix fails
 * (ERROR_PATH_NOT_FOUND or ERROR_FILENAME_EXCED_RANGE) unless the system has
 * long paths enabled and the program declares itself longPathAware. These
 * tests write, rename, gzip-archive and hash files in a folder nest over 300
 * characters through the project's own helpers (platform.h, cm_file.h, the
 * archive), as repro does. Run under Wine in CI and natively on Windows. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "cm_test.h"
#include "cm_error.h"
#include "cm_file.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "platform.h"
#include "plat_win32.h"
#include "rp_archive.h"
#include "rp_test_util.h"
#include "rt_cli_fixture.h"

#include <jansson.h>
#include <stdlib.h>
#include <uv.h>

#define LOG_TEXT "a step's output, kept as a gzip log\n"

/* A fresh folder of the test's scratch folder, drive-absolute (under Wine
 * the build tree's "/tmp/..." has none), then "\\long" and eight 36-character
 * folders joined by '/', as repro joins its paths, into out[size]. Returns
 * the length, or -1. */
static int deep_folder(const char *name, char *out, size_t size) {
  size_t n;
  int r, i;
  if (rt_fresh_dir(name, out, size) != 0)
    return -1;
  n = strlen(out);
  r = cm_snprintf(out + n, size - n, "\\long");
  for (i = 0; r == CM_OK && i < 8; i++) {
    n = strlen(out);
    r = cm_snprintf(out + n, size - n, "/nest-%02d-abcdefghijklmnopqrstuvwxyz",
                    i);
  }
  return r == CM_OK ? (int)strlen(out) : -1;
}

/* The run folder at run verifies, at least files files re-hashed. 0, or 1
 * after an assertion's message. */
static int verifies(const char *run, int files) {
  rp_verify_result vr;
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  ASSERT_GE(vr.files_checked, files);
  return 0;
}

/* Files in the nest through plat_mkdir_p, cm_fopen, plat_rename,
 * plat_write_file_atomic, cm_sha256_file, cm_read_file and cm_remove. */
TEST_IMPL(long_path_files) {
  char dir[1200], a[1400], b[1400], hex[CM_SHA256_HEX_LEN],
      want[CM_SHA256_HEX_LEN], *text = NULL;
  uint64_t bytes = 0;
  size_t len = 0;
  FILE *f;
  ASSERT_GT(deep_folder("files", dir, sizeof dir), 300);
  ASSERT_OK(plat_mkdir_p(dir));
  ASSERT_EQ(plat_path_is_dir(dir), 1);
  ASSERT_EQ(plat_path_exists(dir), 1);
  ASSERT_OK(plat_mkdir_p(dir)); /* existing: still fine */
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s/draft.txt", dir));
  ASSERT_OK(cm_snprintf(b, sizeof b, "%s\\final.txt", dir));
  f = cm_fopen(a, "wb");
  ASSERT_TRUE(f != NULL);
  ASSERT_TRUE(fputs("hello, long path", f) >= 0);
  ASSERT_EQ(fclose(f), 0);
  ASSERT_EQ(plat_path_exists(a), 1);
  ASSERT_EQ(plat_path_is_special(a), 0);
  ASSERT_OK(plat_rename(a, b));
  ASSERT_EQ(plat_path_exists(a), 0);
  ASSERT_OK(cm_read_file(b, &text, &len));
  ASSERT_STR_EQ(text, "hello, long path");
  free(text);
  cm_sha256_hex("hello, long path", 16, want);
  ASSERT_OK(cm_sha256_file(b, hex, &bytes));
  ASSERT_STR_EQ(hex, want);
  ASSERT_EQ(bytes, 16);
  /* "..\" and ".\" inside the path name the same file */
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s\\.\\sub\\..\\final.txt", dir));
  ASSERT_OK(cm_sha256_file(a, hex, &bytes));
  ASSERT_STR_EQ(hex, want);
  ASSERT_OK(plat_probe_write_atomic(b));
  ASSERT_OK(plat_write_file_atomic(b, "second", 6));
  ASSERT_OK(cm_read_file(b, &text, &len));
  ASSERT_STR_EQ(text, "second");
  free(text);
  ASSERT_EQ(cm_remove(b), 0);
  ASSERT_EQ(plat_path_exists(b), 0);
  return 0;
}

/* A run folder in the nest through the archive (libuv's uv_fs_* calls): a
 * gzip log written, moved and read back, a file written atomically, the
 * manifest's hashes, and verify. */
TEST_IMPL(long_path_archive) {
  char run[1200], p[1400], *text = NULL;
  size_t len = 0;
  uint64_t raw = 0;
  rp_log *log = NULL;
  json_t *m, *files;
  ASSERT_GT(deep_folder("archive", run, sizeof run), 300);
  ASSERT_OK(plat_mkdir_p(run));
  ASSERT_OK(rp_log_open(run, "build/step.stdout.log.gz", &log));
  ASSERT_OK(rp_log_write(log, LOG_TEXT, strlen(LOG_TEXT)));
  ASSERT_OK(rp_log_close(log, &raw));
  ASSERT_EQ(raw, strlen(LOG_TEXT));
  ASSERT_OK(rp_move_in_run(run, "build/step.stdout.log.gz",
                           "kept/step.stdout.log.gz"));
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/build/step.stdout.log.gz", run));
  ASSERT_EQ(plat_path_exists(p), 0);
  ASSERT_OK(rp_log_read(run, "kept/step.stdout.log.gz", &text, &len));
  ASSERT_STR_EQ(text, LOG_TEXT);
  free(text);
  ASSERT_OK(rp_write_file_atomic(run, "results/clean/time.json",
                                 "{\"instrumented\": false}\n", 24));
  m = json_pack("{s:s, s:s}", "run_id", "long-path-run", "status", "complete");
  ASSERT_TRUE(m != NULL);
  ASSERT_OK(rp_manifest_finish(run, m));
  json_decref(m);
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/manifest.json", run));
  m = cm_json_load_file(p, 0, NULL);
  ASSERT_TRUE(m != NULL);
  files = json_object_get(m, "files");
  ASSERT_EQ(json_array_size(files), 2);
  ASSERT_STR_EQ(
      json_string_value(json_object_get(json_array_get(files, 0), "path")),
      "kept/step.stdout.log.gz");
  json_decref(m);
  return verifies(run, 2);
}

/* repro itself: `repro --out <nest> time` with the fake cuda_portfolio in a
 * short root makes its run folder in the nest, writes the step's gzip logs
 * there, files the clean results (a rename), hashes every file into the
 * manifest, and the run verifies. */
TEST_IMPL(long_path_run) {
  static const char *const clean[] = {"FAKE_PF_MODE=json_clean", NULL};
  const char *args[] = {"--out", NULL, "time", NULL};
  char root[600], out[1200], run[1400], p[1600];
  rp_step_result res;
  json_t *m;
  if (rt_engine_names_exe() != 0)
    return TEST_SKIP;
  ASSERT_EQ(rt_make_root("run", root, sizeof root), 0);
  ASSERT_GT(deep_folder("run-out", out, sizeof out), 300);
  args[1] = out;
  ASSERT_OK(rt_run_repro(root, args, clean, &res));
  if (res.exit_code != 0)
    fprintf(stderr, "repro: %s\n", res.err_tail);
  ASSERT_EQ(res.exit_code, 0);
  rp_step_result_free(&res);
  ASSERT_EQ(rt_find_run(out, run, sizeof run), 0);
  m = rt_load_manifest_at(run);
  ASSERT_TRUE(m != NULL);
  ASSERT_STR_EQ(rt_str(m, "status"), "complete");
  ASSERT_STR_EQ(rt_str(rt_stage(m, "time"), "status"), "passed");
  json_decref(m);
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/results/clean/time.json", run));
  ASSERT_EQ(plat_path_exists(p), 1);
  return verifies(run, 3);
}

/* repro.exe carries the manifest that declares it longPathAware (resource
 * 1 of type RT_MANIFEST, read by Windows when the process starts). */
TEST_IMPL(long_path_manifest) {
  wchar_t *w = plat__utf8_to_wide(RP_REPRO_EXE, NULL);
  HMODULE exe;
  HRSRC res;
  HGLOBAL data;
  char text[4096];
  DWORD n;
  ASSERT_TRUE(w != NULL);
  exe = LoadLibraryExW(w, NULL, LOAD_LIBRARY_AS_DATAFILE);
  free(w);
  ASSERT_TRUE(exe != NULL);
  res = FindResourceW(exe, MAKEINTRESOURCEW(1), MAKEINTRESOURCEW(24));
  data = res != NULL ? LoadResource(exe, res) : NULL;
  n = res != NULL ? SizeofResource(exe, res) : 0;
  if (data != NULL && n > 0 && n < sizeof text) {
    memcpy(text, LockResource(data), n);
    text[n] = '\0';
  } else {
    text[0] = '\0';
  }
  FreeLibrary(exe);
  /* the setting, not one spelling of it: MSVC's linker merges manifests
   * and may write the namespace's prefix another way */
  ASSERT_CONTAINS(text, "longPathAware>true</");
  ASSERT_CONTAINS(text,
                  "http://schemas.microsoft.com/SMI/2016/WindowsSettings");
  return 0;
}
