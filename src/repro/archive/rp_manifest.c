/* rp_manifest.c: files[] and the atomic write of manifest.json
 * (rp_archive.h). The engine owns every other member of the manifest.
 */
#include "rp_archive.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_check.h"
#include "rp_fs.h"
#include "rp_verify.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int rp__manifest_final_status(const char *s) {
  return s != NULL &&
         (strcmp(s, "complete") == 0 || strcmp(s, "interrupted") == 0 ||
          strcmp(s, "failed") == 0);
}

static int file_entry(const char *run_dir, const char *rel, json_t *files) {
  char path[RP__PATH_MAX];
  rp__check c;
  json_t *e;
  int rc = rp__path_join(path, sizeof path, run_dir, rel);
  if (rc != CM_OK)
    return rc;
  /* The verify checker is reused for its digest and byte count, and for
   * its content rules: a file that breaks one (a truncated .gz a tool left,
   * a results file in the wrong folder) is still listed, an interrupted
   * run's included, with verify's words for it as "problem", so that the
   * engine knows the run will not verify and never calls it complete. */
  rc = rp__check_file(path, rel, &c);
  if (rc != CM_OK) {
    rp__check_free(&c);
    rp__fs_note_path(rel);
    return rc;
  }
  e = json_object();
  if (e == NULL || json_object_set_new(e, "path", cm_json_text(rel)) != 0 ||
      json_object_set_new(e, "bytes", json_integer((json_int_t)c.bytes)) != 0 ||
      json_object_set_new(e, "sha256", cm_json_text(c.sha_hex)) != 0 ||
      (c.problem[0] != '\0' &&
       json_object_set_new(e, "problem", cm_json_text(c.problem)) != 0)) {
    json_decref(e);
    rc = CM_ENOMEM;
  } else if (json_array_append_new(files, e) != 0) { /* releases e itself */
    rc = CM_ENOMEM;
  }
  rp__check_free(&c);
  return rc;
}

/* 1 when rel is UTF-8 throughout. */
static int is_utf8(const char *rel) {
  const unsigned char *s = (const unsigned char *)rel;
  size_t n = strlen(rel), i = 0, k;
  while (i < n) {
    if ((k = cm_utf8_seq(s + i, n - i)) == 0)
      return 0;
    i += k;
  }
  return 1;
}

/* 1 when rel can be named in the manifest as it is: UTF-8 throughout,
 * without a backslash (verify refuses a path with one: Windows and tar
 * read it as a separator). */
static int nameable(const char *rel) {
  return is_utf8(rel) && strchr(rel, '\\') == NULL;
}

/* rel with each byte that is not part of a UTF-8 character, each backslash
 * and each '%' written %XX: a name that says which bytes it had. */
static int escape_name(const char *rel, char *out, size_t size) {
  const unsigned char *s = (const unsigned char *)rel;
  size_t n = strlen(rel), i = 0, o = 0, k;
  while (i < n) {
    k = cm_utf8_seq(s + i, n - i);
    if (k == 0 || s[i] == '%' || s[i] == '\\') {
      if (o + 3 >= size)
        return CM_ERANGE;
      cm_snprintf(out + o, 4, "%%%02X", (unsigned)s[i]);
      o += 3;
      i++;
    } else {
      if (o + k >= size)
        return CM_ERANGE;
      memcpy(out + o, s + i, k);
      o += k;
      i += k;
    }
  }
  out[o] = '\0';
  return CM_OK;
}

/* A file whose name is not UTF-8 (a tool's Latin-1 name) cannot be named in
 * JSON as it is: listed as cm_json_text makes it ("caf?.txt", a file that
 * does not exist), the run could never verify; nor can one with a
 * backslash, which verify refuses as unsafe. It is renamed in the run
 * folder to escape_name's form (with "~N" added if that name is taken), and
 * manifest "renamed" keeps the original bytes: {"path": the new name,
 * "original_hex": the old relative path's bytes in hex}. *rel becomes the
 * new name (malloc'd; the old one is freed). */
static int rename_stray(const char *run_dir, char **rel, json_t *renamed) {
  char esc[RP__PATH_MAX], to_rel[RP__PATH_MAX], from[RP__PATH_MAX];
  char to[RP__PATH_MAX], *hex, *dup;
  size_t n = strlen(*rel);
  int rc = escape_name(*rel, esc, sizeof esc), k;
  json_t *e;
  if (rc == CM_OK)
    rc = cm_strlcpy(to_rel, esc, sizeof to_rel);
  if (rc == CM_OK)
    rc = rp__path_join(to, sizeof to, run_dir, to_rel);
  for (k = 2; rc == CM_OK && plat_path_exists(to); k++) {
    if (k > 1000)
      return CM_EEXIST;
    rc = cm_snprintf(to_rel, sizeof to_rel, "%s~%d", esc, k);
    if (rc == CM_OK)
      rc = rp__path_join(to, sizeof to, run_dir, to_rel);
  }
  if (rc == CM_OK)
    rc = rp__path_join(from, sizeof from, run_dir, *rel);
  if (rc == CM_OK)
    rc = rp__fs_mkdir_parent(to);
  if (rc == CM_OK)
    rc = plat_rename(from, to);
  if (rc != CM_OK)
    return rc;
  hex = malloc(2 * n + 1);
  dup = malloc(strlen(to_rel) + 1);
  e = json_object();
  if (hex == NULL || dup == NULL || e == NULL) {
    free(hex);
    free(dup);
    json_decref(e);
    return CM_ENOMEM;
  }
  cm_hex((const unsigned char *)*rel, n, hex);
  memcpy(dup, to_rel, strlen(to_rel) + 1);
  rc = json_object_set_new(e, "path", json_string(to_rel)) != 0 ||
               json_object_set_new(e, "original_hex", json_string(hex)) != 0
           ? CM_ENOMEM
           : CM_OK;
  if (rc != CM_OK)
    json_decref(e);
  else if (json_array_append_new(renamed, e) != 0) /* releases e itself */
    rc = CM_ENOMEM;
  free(hex);
  free(*rel);
  *rel = dup;
  return rc;
}

/* skipped[]: the links and special files the walk found, each {"path",
 * "reason"} ("symbolic link to TARGET", "FIFO", ...); they are neither
 * hashed nor bundled. Absent when there are none. */
static int set_skipped(json_t *manifest, const rp__strlist *skipped) {
  json_t *arr;
  size_t i;
  if (skipped->count == 0) {
    (void)json_object_del(manifest, "skipped");
    return CM_OK;
  }
  arr = json_array();
  if (arr == NULL || json_object_set_new(manifest, "skipped", arr) != 0)
    return CM_ENOMEM;
  for (i = 0; i < skipped->count; i++) {
    json_t *e = json_object();
    if (e == NULL ||
        json_object_set_new(e, "path", cm_json_text(skipped->items[i])) != 0 ||
        json_object_set_new(
            e, "reason", cm_json_text(rp__strlist_second(skipped->items[i]))) !=
            0) {
      json_decref(e);
      return CM_ENOMEM;
    }
    if (json_array_append_new(arr, e) != 0) /* releases e itself */
      return CM_ENOMEM;
  }
  return CM_OK;
}

const char *rp_archive_failed_path(void) {
  return rp__fs_noted_path();
}

int rp_manifest_finish(const char *run_dir, json_t *manifest) {
  rp__strlist list = {0}, skipped = {0};
  json_t *files, *sv, *renamed;
  char path[RP__PATH_MAX];
  char *text;
  size_t i;
  int rc, resort = 0;
  rp__fs_note_path("");
  if (run_dir == NULL || !json_is_object(manifest) ||
      !json_is_string(json_object_get(manifest, "run_id")) ||
      !rp__manifest_final_status(
          json_string_value(json_object_get(manifest, "status"))))
    return CM_EINVAL;
  sv = json_object_get(manifest, "schema_version");
  if (sv == NULL) {
    if (json_object_set_new(manifest, "schema_version",
                            json_integer(RP_MANIFEST_SCHEMA_VERSION)) != 0)
      return CM_ENOMEM;
  } else if (!json_is_integer(sv)) {
    return CM_EINVAL;
  }
  rc = rp__path_join(path, sizeof path, run_dir, "manifest.json");
  if (rc != CM_OK)
    return rc;
  rc = rp__fs_walk(run_dir, &list, &skipped);
  if (rc != CM_OK)
    return rc;
  rc = set_skipped(manifest, &skipped);
  rp__strlist_free(&skipped);
  for (i = 0; rc == CM_OK && i < list.count; i++) {
    if (nameable(list.items[i]))
      continue;
    renamed = json_object_get(manifest, "renamed");
    if (!json_is_array(renamed)) {
      renamed = json_array();
      if (renamed == NULL ||
          json_object_set_new(manifest, "renamed", renamed) != 0)
        rc = CM_ENOMEM;
    }
    if (rc == CM_OK)
      rc = rename_stray(run_dir, &list.items[i], renamed);
    if (rc != CM_OK)
      rp__fs_note_path(list.items[i]);
    resort = 1;
  }
  if (resort)
    rp__strlist_sort(&list);
  files = rc == CM_OK ? json_array() : NULL;
  if (rc == CM_OK && files == NULL)
    rc = CM_ENOMEM;
  for (i = 0; rc == CM_OK && i < list.count; i++)
    if (strcmp(list.items[i], "manifest.json") != 0)
      rc = file_entry(run_dir, list.items[i], files);
  rp__strlist_free(&list);
  if (rc != CM_OK) {
    json_decref(files);
    return rc;
  }
  if (json_object_set_new(manifest, "files", files) != 0)
    return CM_ENOMEM;
  /* jansson keeps insertion order, so the engine decides the layout. */
  text = cm_json_dumps(manifest, JSON_INDENT(2));
  if (text == NULL)
    return CM_ENOMEM;
  {
    size_t n = strlen(text);
    char *withnl = realloc(text, n + 2);
    if (withnl == NULL) {
      free(text);
      return CM_ENOMEM;
    }
    withnl[n] = '\n';
    withnl[n + 1] = '\0';
    rc = rp__fs_write_atomic(path, withnl, n + 1);
    free(withnl);
  }
  return rc;
}
