/* rp_check.c: the content rules verify applies to each file. See rp_check.h.
 */
#include "rp_check.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "rp_archive.h"
#include "rp_fs.h"

#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A results document: results/clean/<name>.json or
 * results/instrumented/<name>.json, directly in the folder. */
static int results_folder(const char *relpath) {
  static const char *const folders[2] = {"results/clean/",
                                         "results/instrumented/"};
  int i;
  if (!ends_with(relpath, ".json"))
    return -1;
  for (i = 0; i < 2; i++) {
    size_t n = strlen(folders[i]);
    if (strncmp(relpath, folders[i], n) == 0 &&
        strchr(relpath + n, '/') == NULL)
      return i; /* 0 clean (flag must be false), 1 instrumented */
  }
  return -1;
}

static void note(rp__check *c, const char *what) {
  if (c->problem[0] == '\0')
    cm_strlcpy(c->problem, what, sizeof c->problem);
}

int rp__check_begin(rp__check *c, const char *relpath) {
  memset(c, 0, sizeof *c);
  cm_sha256_init(&c->sha);
  c->results_want = results_folder(relpath);
  if (ends_with(relpath, ".gz")) {
    int rc;
    c->gz = malloc(sizeof *c->gz);
    if (c->gz == NULL)
      return CM_ENOMEM;
    rc = rp__gunzip_init(c->gz, NULL, NULL);
    if (rc != CM_OK) {
      free(c->gz);
      c->gz = NULL;
      return rc;
    }
  }
  return CM_OK;
}

int rp__check_feed(rp__check *c, const void *data, size_t len) {
  cm_sha256_update(&c->sha, data, len);
  c->bytes += len;
  if (c->gz != NULL && !c->gz_failed) {
    int rc = rp__gunzip_feed(c->gz, data, len);
    if (rc == CM_ENOMEM)
      return rc;
    if (rc != CM_OK) {
      c->gz_failed = 1;
      note(c, c->gz->why);
    }
  }
  if (c->results_want >= 0 && c->rlen + len <= RP__RESULTS_MAX)
    return cm_buf_append(&c->rbuf, &c->rlen, &c->rcap, data, len, 4096);
  return CM_OK;
}

int rp__check_end(rp__check *c) {
  unsigned char d[CM_SHA256_LEN];
  cm_sha256_final(&c->sha, d);
  cm_hex(d, sizeof d, c->sha_hex);
  if (c->gz != NULL && !c->gz_failed && rp__gunzip_finish(c->gz) != CM_OK)
    note(c, c->gz->why);
  if (c->results_want >= 0) {
    int flag = 0;
    if (c->bytes > RP__RESULTS_MAX)
      note(c, "results document too large to check");
    else if (rp_results_read_flag(c->rbuf != NULL ? c->rbuf : "", c->rlen,
                                  &flag) != CM_OK)
      note(c, "results document without a boolean \"instrumented\"");
    else if (flag && c->results_want == 0)
      note(c, "instrumented result (\"instrumented\": true) filed among "
              "clean results");
    else if (!flag && c->results_want == 1)
      note(c, "clean result (\"instrumented\": false) filed among "
              "instrumented results");
  }
  return CM_OK;
}

void rp__check_free(rp__check *c) {
  if (c->gz != NULL) {
    rp__gunzip_end(c->gz);
    free(c->gz);
    c->gz = NULL;
  }
  free(c->rbuf);
  c->rbuf = NULL;
}

int rp__check_file(const char *path, const char *relpath, rp__check *c) {
  static const size_t chunk = 65536;
  unsigned char *buf;
  uv_file fd = -1;
  int rc = rp__check_begin(c, relpath);
  if (rc != CM_OK)
    return rc;
  buf = malloc(chunk);
  if (buf == NULL)
    return CM_ENOMEM;
  rc = rp__fs_open_read(path, &fd);
  if (rc != CM_OK) {
    free(buf);
    return rc;
  }
  for (;;) {
    size_t got = 0;
    rc = rp__fs_read(fd, buf, chunk, &got);
    if (rc != CM_OK || got == 0)
      break;
    rc = rp__check_feed(c, buf, got);
    if (rc != CM_OK)
      break;
  }
  rp__fs_close(fd);
  free(buf);
  if (rc == CM_OK)
    rc = rp__check_end(c);
  return rc;
}
