/* fuzz_judge.c: verify's judge (rp__verify_judge) on any manifest text,
 * against files "seen" that the manifest itself describes: each files[]
 * member with a string path is seen, its size and digest kept or, as a
 * selector byte says (fuzz_selector), altered, so the judge's comparison runs
 * deep for manifests that parse. A verdict of ok must mean what it says: every
 * seen file was named with its size and digest. */
#include "fuzz.h"

#include "cm_error.h"
#include "cm_file.h"
#include "rp_verify.h"

#include <jansson.h>

/* Returns 1 when one of the seen files was altered or added. */
static int seen_from(json_t *doc, unsigned how, rp__seenlist *seen) {
  json_t *files = json_object_get(doc, "files");
  size_t i;
  int altered = 0;
  for (i = 0; i < json_array_size(files) && i < 4096; i++) {
    json_t *e = json_array_get(files, i);
    json_t *p = json_object_get(e, "path"), *b = json_object_get(e, "bytes");
    json_t *h = json_object_get(e, "sha256");
    rp__check c;
    if (!json_is_string(p))
      continue;
    memset(&c, 0, sizeof c);
    c.bytes = json_is_integer(b) ? (uint64_t)json_integer_value(b) : 0;
    if (json_is_string(h))
      cm_strlcpy(c.sha_hex, json_string_value(h), sizeof c.sha_hex);
    if ((how & 1) && i == 0) {
      c.bytes++; /* a size that differs */
      altered = 1;
    }
    if ((how & 2) && i == 1) {
      c.sha_hex[0] = c.sha_hex[0] == '0' ? '1' : '0';
      altered = 1;
    }
    if ((how & 4) && i == 2) {
      cm_strlcpy(c.problem, "gzip stream truncated", sizeof c.problem);
      altered = 1;
    }
    if (rp__seen_add(seen, json_string_value(p), &c) != CM_OK)
      return altered;
    if ((how & 8) && i == 0 &&
        rp__seen_add(seen, "extra/not-in-manifest.txt", &c) == CM_OK)
      altered = 1;
  }
  return altered;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rp__seenlist seen = {0};
  rp_verify_result res;
  json_t *doc;
  /* the alterations per selector: none, each alone, pairs, all */
  static const unsigned hows[8] = {0, 1, 2, 4, 8, 9, 6, 15};
  int sel = fuzz_selector(&data, &size);
  unsigned how = sel < 0 ? 0u : hows[sel];
  int altered = 0;
  doc = cm_json_loadb((const char *)data, size, 0, NULL);
  if (json_is_object(doc))
    altered = seen_from(doc, how, &seen);
  json_decref(doc);
  memset(&res, 0, sizeof res);
  if (rp__verify_judge((const char *)data, size, &seen, &res) == CM_OK) {
    FUZZ_CHECK(fuzz_terminated(res.problem, sizeof res.problem));
    FUZZ_CHECK(fuzz_terminated(res.status, sizeof res.status));
    FUZZ_CHECK(fuzz_terminated(res.run_id, sizeof res.run_id));
    /* verify prints these three of a manifest it does not control */
    FUZZ_CHECK(fuzz_printable(res.problem) && fuzz_printable(res.status) &&
               fuzz_printable(res.run_id));
    /* ok and a problem exclude each other */
    FUZZ_CHECK(res.ok == (res.problem[0] == '\0'));
    /* an altered size, digest or content, or an extra file, is never
     * judged ok */
    FUZZ_CHECK(!(altered && res.ok));
  }
  rp__seen_free(&seen);
  return 0;
}
