/* rp_verify.c: rp_verify for a run folder, and the judge shared with the
 * bundle reader (rp_verify.h).
 */
#include "rp_verify.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_fs.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rp__seen_add(rp__seenlist *l, const char *relpath, const rp__check *c) {
  rp__seen *s;
  size_t n = strlen(relpath);
  if (cm_grow(&l->v, &l->cap, l->n, sizeof *l->v, 32) != CM_OK)
    return CM_ENOMEM;
  s = &l->v[l->n];
  memset(s, 0, sizeof *s);
  s->path = malloc(n + 1);
  if (s->path == NULL)
    return CM_ENOMEM;
  memcpy(s->path, relpath, n + 1);
  s->bytes = c->bytes;
  memcpy(s->sha_hex, c->sha_hex, sizeof s->sha_hex);
  if (c->problem[0] != '\0') {
    size_t m = strlen(c->problem);
    s->problem = malloc(m + 1);
    if (s->problem == NULL) {
      free(s->path);
      return CM_ENOMEM;
    }
    memcpy(s->problem, c->problem, m + 1);
  }
  l->n++;
  return CM_OK;
}

void rp__seen_free(rp__seenlist *l) {
  size_t i;
  for (i = 0; i < l->n; i++) {
    free(l->v[i].path);
    free(l->v[i].problem);
  }
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

void rp__verify_fail(rp_verify_result *res, const char *fmt, ...) {
  va_list ap;
  res->ok = 0;
  if (res->problem[0] != '\0')
    return;
  va_start(ap, fmt);
  /* Truncation of a long problem line is acceptable: it stays
   * NUL-terminated, cut between characters, and its start names the
   * file. */
  if (cm_vsnprintf(res->problem, sizeof res->problem, fmt, ap) == CM_EINVAL)
    cm_strlcpy(res->problem, "problem (unprintable)", sizeof res->problem);
  va_end(ap);
  /* It names files of a bundle from elsewhere: a name with an ESC or a
   * carriage return must not rewrite the terminal's "MISMATCH". */
  cm_text_oneline(res->problem);
}

/* One files[] member as read from the manifest. */
typedef struct {
  const char *path;
  uint64_t bytes;
  const char *sha;
} man_entry;

static int cmp_man(const void *a, const void *b) {
  return strcmp(((const man_entry *)a)->path, ((const man_entry *)b)->path);
}

static int cmp_seen(const void *a, const void *b) {
  return strcmp(((const rp__seen *)a)->path, ((const rp__seen *)b)->path);
}

static int is_hex64(const char *s) {
  size_t i;
  for (i = 0; i < 64; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return s[64] == '\0';
}

/* A manifest path must stay inside the run: relative, '/'-separated, no
 * empty, "." or ".." component. */
static int safe_path(const char *p) {
  const char *c = p;
  if (*p == '\0' || strchr(p, '\\') != NULL || strcmp(p, "manifest.json") == 0)
    return 0;
  while (*c != '\0') {
    size_t n = strcspn(c, "/");
    if (n == 0 || (n == 1 && c[0] == '.') ||
        (n == 2 && c[0] == '.' && c[1] == '.'))
      return 0;
    c += n;
    if (*c == '/' && *++c == '\0')
      return 0; /* trailing '/' */
  }
  return 1;
}

/* Reads files[] into a sorted array; names the first malformed member. */
static int read_files(json_t *files, man_entry **out, size_t *count,
                      rp_verify_result *res) {
  size_t i, n = json_array_size(files);
  man_entry *m = calloc(n ? n : 1, sizeof *m);
  if (m == NULL)
    return CM_ENOMEM;
  for (i = 0; i < n; i++) {
    json_t *e = json_array_get(files, i);
    json_t *p = json_object_get(e, "path"), *b = json_object_get(e, "bytes");
    json_t *h = json_object_get(e, "sha256");
    if (!json_is_string(p) || !json_is_integer(b) || !json_is_string(h) ||
        json_integer_value(b) < 0 || !is_hex64(json_string_value(h))) {
      rp__verify_fail(res,
                      "manifest.json: files[%lu] is malformed (needs "
                      "path, bytes >= 0, 64 lower-case hex sha256)",
                      (unsigned long)i);
      break;
    }
    if (!safe_path(json_string_value(p))) {
      rp__verify_fail(res,
                      "manifest.json: files[%lu] has an unsafe path "
                      "\"%s\"",
                      (unsigned long)i, json_string_value(p));
      break;
    }
    m[i].path = json_string_value(p);
    m[i].bytes = (uint64_t)json_integer_value(b);
    m[i].sha = json_string_value(h);
  }
  qsort(m, i, sizeof *m, cmp_man);
  *out = m;
  *count = i;
  return CM_OK;
}

/* Walks both sorted lists together; the first difference is the problem. */
static void compare(const man_entry *m, size_t nm, const rp__seen *s, size_t ns,
                    rp_verify_result *res) {
  size_t i = 0, j = 0;
  while (res->problem[0] == '\0' && (i < nm || j < ns)) {
    int c = i == nm ? 1 : j == ns ? -1 : strcmp(m[i].path, s[j].path);
    if (c < 0) {
      rp__verify_fail(res, "%s: missing (named in the manifest, not found)",
                      m[i].path);
    } else if (c > 0) {
      rp__verify_fail(res, "%s: extra file (not named in the manifest)",
                      s[j].path);
    } else {
      if (m[i].bytes != s[j].bytes)
        rp__verify_fail(res,
                        "%s: size mismatch (manifest %llu bytes, "
                        "found %llu)",
                        m[i].path, (unsigned long long)m[i].bytes,
                        (unsigned long long)s[j].bytes);
      else if (strcmp(m[i].sha, s[j].sha_hex) != 0)
        rp__verify_fail(res, "%s: sha256 mismatch (manifest %s, found %s)",
                        m[i].path, m[i].sha, s[j].sha_hex);
      else if (s[j].problem != NULL)
        rp__verify_fail(res, "%s: %s", m[i].path, s[j].problem);
      i++;
      j++;
    }
  }
}

int rp__verify_judge(const char *manifest, size_t len, rp__seenlist *seen,
                     rp_verify_result *res) {
  json_error_t jerr;
  json_t *doc, *files, *sv;
  man_entry *m = NULL;
  size_t nm = 0, i;
  int rc = CM_OK;
  res->ok = 1;
  res->files_checked = (int)seen->n;
  doc = cm_json_loadb(manifest, len, 0, &jerr);
  if (doc == NULL || !json_is_object(doc)) {
    rp__verify_fail(res, "manifest.json: not a JSON object (line %d: %s)",
                    jerr.line, doc == NULL ? jerr.text : "wrong type");
    json_decref(doc);
    return CM_OK;
  }
  if (json_is_string(json_object_get(doc, "status")))
    cm_strlcpy(res->status, json_string_value(json_object_get(doc, "status")),
               sizeof res->status);
  if (json_is_string(json_object_get(doc, "run_id")))
    cm_strlcpy(res->run_id, json_string_value(json_object_get(doc, "run_id")),
               sizeof res->run_id);
  cm_text_oneline(res->status);
  cm_text_oneline(res->run_id);
  sv = json_object_get(doc, "schema_version");
  files = json_object_get(doc, "files");
  if (!json_is_integer(sv))
    rp__verify_fail(res, "manifest.json: no integer schema_version");
  else if (json_integer_value(sv) < 1)
    rp__verify_fail(res,
                    "manifest.json: schema_version %lld: no such version (the "
                    "first is 1)",
                    (long long)json_integer_value(sv));
  else if (json_integer_value(sv) > RP_MANIFEST_SCHEMA_VERSION)
    rp__verify_fail(res,
                    "manifest.json: schema_version %lld is newer than "
                    "this verifier (%d)",
                    (long long)json_integer_value(sv),
                    RP_MANIFEST_SCHEMA_VERSION);
  else if (!json_is_string(json_object_get(doc, "run_id")))
    rp__verify_fail(res, "manifest.json: no string run_id");
  else if (!rp__manifest_final_status(
               json_string_value(json_object_get(doc, "status"))))
    rp__verify_fail(res,
                    "manifest.json: status is not complete, interrupted or "
                    "failed (the only states a finished run may claim)");
  else if (!json_is_array(files))
    rp__verify_fail(res, "manifest.json: no files[] array");
  else
    rc = read_files(files, &m, &nm, res);
  for (i = 1; res->problem[0] == '\0' && i < nm; i++)
    if (strcmp(m[i - 1].path, m[i].path) == 0)
      rp__verify_fail(res, "manifest.json: %s is listed twice", m[i].path);
  if (seen->n > 1)
    qsort(seen->v, seen->n, sizeof *seen->v, cmp_seen);
  for (i = 1; res->problem[0] == '\0' && i < seen->n; i++)
    if (strcmp(seen->v[i - 1].path, seen->v[i].path) == 0)
      rp__verify_fail(res, "%s: present twice", seen->v[i].path);
  if (res->problem[0] == '\0')
    compare(m, nm, seen->v, seen->n, res);
  free(m);
  json_decref(doc);
  return rc;
}

static int verify_dir(const char *dir, rp_verify_result *res) {
  char path[RP__PATH_MAX];
  rp__strlist list = {0};
  rp__seenlist seen = {0};
  char *manifest = NULL;
  size_t len = 0, i;
  rp__fs_info mi;
  int rc = rp__path_join(path, sizeof path, dir, "manifest.json");
  /* The manifest is a file of the run folder: a link (to a manifest kept
   * elsewhere, which the folder's walk skips as it skips every link) is
   * not the archive's record. */
  if (rc == CM_OK && rp__fs_lstat(path, &mi) == CM_OK &&
      mi.kind != RP__FS_FILE) {
    rp__verify_fail(res,
                    "manifest.json: %s, not a regular file of the run folder "
                    "(an archive's manifest is never a link)",
                    mi.kind == RP__FS_LINK  ? "a symbolic link"
                    : mi.kind == RP__FS_DIR ? "a folder"
                                            : "a special file");
    return CM_EINVAL;
  }
  if (rc == CM_OK)
    rc = rp__fs_read_all(path, RP__MANIFEST_MAX, &manifest, &len);
  if (rc != CM_OK) {
    rp__verify_fail(res, "manifest.json: cannot be read (%s)", cm_strerror(rc));
    return rc;
  }
  rc = rp__fs_walk(dir, &list, NULL);
  for (i = 0; rc == CM_OK && i < list.count; i++) {
    rp__check c;
    memset(&c, 0, sizeof c);
    if (strcmp(list.items[i], "manifest.json") == 0)
      continue;
    rc = rp__path_join(path, sizeof path, dir, list.items[i]);
    if (rc == CM_OK)
      rc = rp__check_file(path, list.items[i], &c);
    if (rc == CM_OK)
      rc = rp__seen_add(&seen, list.items[i], &c);
    rp__check_free(&c);
  }
  if (rc == CM_OK)
    rc = rp__verify_judge(manifest, len, &seen, res);
  else
    rp__verify_fail(res, "%s: cannot be read (%s)",
                    i > 0 ? list.items[i - 1] : dir, cm_strerror(rc));
  rp__seen_free(&seen);
  rp__strlist_free(&list);
  free(manifest);
  return rc;
}

int rp_verify(const char *path, rp_verify_result *res) {
  rp__fs_info info;
  int rc;
  if (path == NULL || res == NULL)
    return CM_EINVAL;
  memset(res, 0, sizeof *res);
  rc = rp__fs_stat(path, &info);
  if (rc != CM_OK) {
    rp__verify_fail(res, "%s: cannot be read (%s)", path, cm_strerror(rc));
    return rc;
  }
  if (info.kind == RP__FS_DIR)
    return verify_dir(path, res);
  if (info.kind == RP__FS_FILE) {
    /* gzip's two magic bytes first: a manifest.json or a plain .tar given
     * here is named for what it is, not as corrupt gzip data */
    unsigned char head[2] = {0, 0};
    FILE *f = cm_fopen(path, "rb");
    size_t got = f != NULL ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL)
      fclose(f);
    if (f != NULL && (got < 2 || head[0] != 0x1f || head[1] != 0x8b)) {
      const size_t n = strlen(path);
      /* a .gz that lost its header is a damaged bundle: a verdict, as any
       * other changed byte; any other file is not a bundle at all */
      if (n > 3 && strcmp(path + n - 3, ".gz") == 0) {
        rp__verify_fail(res, "bundle: no gzip header (damaged)");
        return CM_OK;
      }
      rp__verify_fail(res, "not a bundle (no gzip header)");
      return CM_EPARSE;
    }
    return rp_verify_bundle_files(path, NULL, 0, NULL, NULL, res);
  }
  rp__verify_fail(res, "%s: neither a run folder nor a bundle", path);
  return CM_EINVAL;
}
