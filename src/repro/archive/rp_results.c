/* rp_results.c: clean and instrumented results kept apart (rp_archive.h).
 *
 * The results JSON says itself whether it was produced under an
 * instrumenting tool (the binary decides from what it sees in its own
 * environment). Filing trusts that flag, never the stage that ran it, so a
 * mislabelled stage cannot slip profiled timings among clean ones.
 */
#include "rp_archive.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "rp_fs.h"
#include "rp_check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int rp_results_read_flag(const char *buf, size_t len, int *instrumented) {
  json_error_t jerr;
  json_t *doc, *flag;
  int rc = CM_EPARSE;
  if (buf == NULL || instrumented == NULL)
    return CM_EINVAL;
  doc = cm_json_loadb(buf, len, 0, &jerr);
  if (doc == NULL)
    return CM_EPARSE;
  flag = json_is_object(doc) ? json_object_get(doc, "instrumented") : NULL;
  if (json_is_boolean(flag)) {
    *instrumented = json_is_true(flag) ? 1 : 0;
    rc = CM_OK;
  }
  json_decref(doc);
  return rc;
}

static int read_flag_file(const char *path, char **buf, size_t *len,
                          int *instrumented) {
  int rc = rp__fs_read_all(path, RP__RESULTS_MAX, buf, len);
  if (rc != CM_OK)
    return rc;
  rc = rp_results_read_flag(*buf, *len, instrumented);
  if (rc != CM_OK) {
    free(*buf);
    *buf = NULL;
  }
  return rc;
}

int rp_results_check_clean(const char *json_path) {
  char *buf = NULL;
  size_t len = 0;
  int instrumented = 0;
  int rc;
  if (json_path == NULL)
    return CM_EINVAL;
  rc = read_flag_file(json_path, &buf, &len, &instrumented);
  if (rc != CM_OK)
    return rc;
  free(buf);
  return instrumented ? CM_EREFUSED : CM_OK;
}

static int plain_name(const char *name) {
  return name != NULL && *name != '\0' && strcmp(name, ".") != 0 &&
         strcmp(name, "..") != 0 && strchr(name, '/') == NULL &&
         strchr(name, '\\') == NULL;
}

int rp_results_file(const char *run_dir, const char *src_json, const char *name,
                    char *dst, size_t dst_size) {
  char rel[RP__PATH_MAX], path[RP__PATH_MAX];
  char *buf = NULL;
  size_t len = 0;
  int instrumented = 0;
  int rc;
  if (run_dir == NULL || src_json == NULL || !plain_name(name))
    return CM_EINVAL;
  rc = read_flag_file(src_json, &buf, &len, &instrumented);
  if (rc != CM_OK)
    return rc;
  rc = cm_snprintf(rel, sizeof rel, "results/%s/%s",
                   instrumented ? "instrumented" : "clean", name);
  if (rc == CM_OK)
    rc = rp__path_join(path, sizeof path, run_dir, rel);
  if (rc == CM_OK && dst != NULL)
    rc = cm_strlcpy(dst, path, dst_size);
  if (rc == CM_OK) {
    rp__fs_info info;
    int st = rp__fs_stat(path, &info);
    if (st == CM_OK)
      rc = CM_EEXIST;
    else if (st != CM_ENOENT)
      rc = st;
  }
  if (rc == CM_OK)
    rc = rp__fs_write_atomic(path, buf, len);
  free(buf);
  return rc;
}
