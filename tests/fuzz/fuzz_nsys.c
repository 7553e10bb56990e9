/* fuzz_nsys.c: Nsight Systems' console text (rp_nsys_scan_output, the
 * importer failure the H200's nsys prints) and the verdict on the files it
 * left (rp_nsys_classify), with the files' names and sizes taken from the
 * input's lines ("NAME SIZE"). */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_nsys_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char line[512];
  char *text = fuzz_strdup(data, size), *p, *save;
  rp_nsys_file files[8];
  char *names[8];
  rp_nsys_result res;
  size_t n = 0;
  int found;
  if (text == NULL)
    return 0;
  found = rp_nsys_scan_output((const char *)data, size, line, sizeof line);
  FUZZ_CHECK(fuzz_terminated(line, sizeof line));
  FUZZ_CHECK(found ? line[0] != '\0' : line[0] == '\0');
  for (p = text; n < 8 && p != NULL && *p != '\0'; p = save) {
    char *sp;
    save = strchr(p, '\n');
    if (save != NULL)
      *save++ = '\0';
    sp = strchr(p, ' ');
    names[n] = p;
    files[n].bytes = 0;
    if (sp != NULL) {
      *sp = '\0';
      files[n].bytes = strtoull(sp + 1, NULL, 10);
    }
    files[n].name = names[n];
    n++;
  }
  memset(&res, 0, sizeof res);
  if (rp_nsys_classify("profile", "timeline", files, n, &res) == CM_OK) {
    FUZZ_CHECK(fuzz_terminated(res.reason, sizeof res.reason));
    FUZZ_CHECK(rp_nsys_outcome_name(res.outcome) != NULL);
  }
  free(text);
  return 0;
}
