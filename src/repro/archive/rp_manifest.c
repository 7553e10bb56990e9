/* rp_manifest.c: files[] and the atomic write of manifest.json
 * (rp_archive.h). The engine owns every other member of the manifest.
 */
#include "rp_archive.h"

#include "cm_error.h"
#include "cm_utf8.h"
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
  /* The verify checker is reused for its digest and byte count; the content
   * rules it also applies are verify's business, not the writer's: an
   * interrupted run's truncated log must still be listed. */
  rc = rp__check_file(path, rel, &c);
  rp__check_free(&c);
  if (rc != CM_OK)
    return rc;
  e = json_object();
  if (e == NULL || json_object_set_new(e, "path", cm_json_text(rel)) != 0 ||
      json_object_set_new(e, "bytes", json_integer((json_int_t)c.bytes)) != 0 ||
      json_object_set_new(e, "sha256", cm_json_text(c.sha_hex)) != 0 ||
      json_array_append_new(files, e) != 0) {
    json_decref(e);
    return CM_ENOMEM;
  }
  return CM_OK;
}

int rp_manifest_finish(const char *run_dir, json_t *manifest) {
  rp__strlist list = {0};
  json_t *files, *sv;
  char path[RP__PATH_MAX];
  char *text;
  size_t i;
  int rc;
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
  rc = rp__fs_walk(run_dir, &list);
  if (rc != CM_OK)
    return rc;
  files = json_array();
  if (files == NULL)
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
  text = json_dumps(manifest, JSON_INDENT(2));
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
