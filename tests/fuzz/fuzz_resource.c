/* fuzz_resource.c: the inspect stage's resource table from ptxas's
 * verbose output and cuobjdump --dump-resource-usage
 * (rp_res_parse_ptxas, rp_res_parse_cuobjdump), c++filt's answer applied
 * to it (rp_res_apply_demangled), and the table's text and JSON. The
 * input is cut at form feeds into the ptxas text, the cuobjdump text and
 * the demangler's lines. */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_resource_parse.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p[3];
  size_t n[3];
  const char *text = (const char *)data, *end = text + size;
  const char *names[64];
  rp_res_table t;
  char *out = NULL;
  size_t i, nn;
  for (i = 0; i < 3; i++) {
    const char *ff = memchr(text, '\f', (size_t)(end - text));
    p[i] = text;
    n[i] = ff != NULL && i < 2 ? (size_t)(ff - text) : (size_t)(end - text);
    text = ff != NULL && i < 2 ? ff + 1 : end;
  }
  rp_res_table_init(&t);
  (void)rp_res_parse_ptxas(p[0], n[0], &t);
  (void)rp_res_parse_cuobjdump(p[1], n[1], &t);
  nn = rp_res_mangled_names(&t, names, 64);
  FUZZ_CHECK(nn <= t.count);
  (void)rp_res_apply_demangled(&t, p[2], n[2]);
  for (i = 0; i < t.count; i++) {
    const rp_kernel_res *r = &t.rows[i];
    FUZZ_CHECK(fuzz_terminated(r->mangled, sizeof r->mangled));
    FUZZ_CHECK(fuzz_terminated(r->readable, sizeof r->readable));
    FUZZ_CHECK(fuzz_terminated(r->arch, sizeof r->arch));
    FUZZ_CHECK(r->spills == (r->spill_stores > 0 || r->spill_loads > 0));
    /* A count is read (>= 0, saturated at INT64_MAX) or unknown (-1). */
    FUZZ_CHECK(r->registers >= -1 && r->barriers >= -1 &&
               r->stack_frame >= -1 && r->spill_stores >= -1 &&
               r->spill_loads >= -1 && r->shared >= -1 && r->constant0 >= -1 &&
               r->local >= -1);
  }
  FUZZ_CHECK(rp_res_spilling(&t) <= t.count);
  if (rp_res_table_text(&t, &out) == CM_OK)
    free(out);
  fuzz_json_serialises(rp_res_table_json(&t));
  rp_res_table_free(&t);
  return 0;
}
