/* schema_check.c: see schema_check.h. */
#include "schema_check.h"

#include "cm_str.h"

#include <math.h>
#include <string.h>

static int type_matches(const char *t, const json_t *v) {
  if (strcmp(t, "object") == 0)
    return json_is_object(v);
  if (strcmp(t, "array") == 0)
    return json_is_array(v);
  if (strcmp(t, "string") == 0)
    return json_is_string(v);
  if (strcmp(t, "boolean") == 0)
    return json_is_boolean(v);
  if (strcmp(t, "null") == 0)
    return json_is_null(v);
  if (strcmp(t, "number") == 0)
    return json_is_number(v);
  if (strcmp(t, "integer") == 0)
    return json_is_integer(v) ||
           (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
  return 0;
}

static int fail(char *err, size_t size, const char *path, const char *what) {
  cm_snprintf(err, size, "%s: %s", path[0] ? path : "(root)", what);
  return 1;
}

static int check(const json_t *root, const json_t *s, const json_t *v,
                 const char *path, char *err, size_t size) {
  const char *key;
  const json_t *kw;
  char sub[512], msg[256];
  if (!json_is_object(s))
    return fail(err, size, path, "schema node is not an object");
  json_object_foreach((json_t *)s, key, kw) {
    if (strcmp(key, "$schema") == 0 || strcmp(key, "$id") == 0 ||
        strcmp(key, "title") == 0 || strcmp(key, "description") == 0 ||
        strcmp(key, "$defs") == 0)
      continue;
    if (strcmp(key, "$ref") == 0) {
      const char *ref = json_string_value(kw);
      const json_t *target;
      if (ref == NULL || strncmp(ref, "#/$defs/", 8) != 0)
        return fail(err, size, path, "unsupported $ref");
      target = json_object_get(json_object_get(root, "$defs"), ref + 8);
      if (target == NULL)
        return fail(err, size, path, "dangling $ref");
      if (check(root, target, v, path, err, size))
        return 1;
    } else if (strcmp(key, "type") == 0) {
      int ok = 0;
      size_t i;
      if (json_is_string(kw))
        ok = type_matches(json_string_value(kw), v);
      for (i = 0; json_is_array(kw) && i < json_array_size(kw); i++)
        ok |= type_matches(json_string_value(json_array_get(kw, i)), v);
      if (!ok)
        return fail(err, size, path, "wrong type");
    } else if (strcmp(key, "enum") == 0) {
      int ok = 0;
      size_t i;
      for (i = 0; i < json_array_size(kw); i++)
        ok |= json_equal((json_t *)json_array_get(kw, i), (json_t *)v);
      if (!ok)
        return fail(err, size, path, "value not in enum");
    } else if (strcmp(key, "minimum") == 0) {
      if (json_is_number(v) && json_number_value(v) < json_number_value(kw)) {
        cm_snprintf(msg, sizeof msg, "%g is below minimum %g",
                    json_number_value(v), json_number_value(kw));
        return fail(err, size, path, msg);
      }
    } else if (strcmp(key, "maximum") == 0) {
      if (json_is_number(v) && json_number_value(v) > json_number_value(kw)) {
        cm_snprintf(msg, sizeof msg, "%g is above maximum %g",
                    json_number_value(v), json_number_value(kw));
        return fail(err, size, path, msg);
      }
    } else if (strcmp(key, "required") == 0) {
      size_t i;
      for (i = 0; json_is_object(v) && i < json_array_size(kw); i++) {
        const char *name = json_string_value(json_array_get(kw, i));
        if (json_object_get(v, name) == NULL) {
          cm_snprintf(msg, sizeof msg, "missing required \"%s\"", name);
          return fail(err, size, path, msg);
        }
      }
    } else if (strcmp(key, "properties") == 0) {
      const char *pk;
      const json_t *ps;
      if (!json_is_object(v))
        continue;
      json_object_foreach((json_t *)kw, pk, ps) {
        const json_t *pv = json_object_get(v, pk);
        if (pv == NULL)
          continue;
        cm_snprintf(sub, sizeof sub, "%s.%s", path, pk);
        if (check(root, ps, pv, sub, err, size))
          return 1;
      }
    } else if (strcmp(key, "items") == 0) {
      size_t i;
      for (i = 0; json_is_array(v) && i < json_array_size(v); i++) {
        cm_snprintf(sub, sizeof sub, "%s[%zu]", path, i);
        if (check(root, kw, json_array_get(v, i), sub, err, size))
          return 1;
      }
    } else {
      cm_snprintf(msg, sizeof msg,
                  "schema keyword \"%s\" not supported by "
                  "the test validator",
                  key);
      return fail(err, size, path, msg);
    }
  }
  return 0;
}

int schema_check(const json_t *root, const json_t *inst, char *err,
                 size_t errsize) {
  err[0] = '\0';
  return check(root, root, inst, "", err, errsize);
}
