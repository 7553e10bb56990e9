/* rp_nsys_check.c: see rp_nsys_check.h. */
#include "rp_nsys_check.h"
#include "cm_file.h"

#include "cm_error.h"
#include "cm_str.h"
#include "rp_tools_text.h"

#include <stdio.h>
#include <string.h>

/* Size of a regular, readable file, or 0 when absent or empty. fopen+fseek
 * rather than stat so that this stays the same code on Windows. */
static uint64_t file_size(const char *path) {
  FILE *f = cm_fopen(path, "rb");
  long n;
  if (f == NULL)
    return 0;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return 0;
  }
  n = ftell(f);
  fclose(f);
  return n > 0 ? (uint64_t)n : 0;
}

const char *rp_nsys_outcome_name(rp_nsys_outcome o) {
  switch (o) {
  case RP_NSYS_REPORT:
    return "ok";
  case RP_NSYS_QDSTRM_ONLY:
    return "limited";
  default:
    return "failed";
  }
}

/* Size of <prefix><ext> among files, 0 when absent. */
static uint64_t listed(const rp_nsys_file *files, size_t n, const char *prefix,
                       const char *ext) {
  size_t i, pl = strlen(prefix);
  for (i = 0; i < n; i++) {
    const char *nm = files[i].name;
    if (nm != NULL && strncmp(nm, prefix, pl) == 0 && strcmp(nm + pl, ext) == 0)
      return files[i].bytes;
  }
  return 0;
}

static int join(char *buf, size_t size, const char *dir, const char *prefix,
                const char *ext) {
  if (dir[0] == '\0')
    return cm_snprintf(buf, size, "%s%s", prefix, ext);
  return cm_snprintf(buf, size, "%s/%s%s", dir, prefix, ext);
}

int rp_nsys_classify(const char *dir, const char *prefix,
                     const rp_nsys_file *files, size_t n, rp_nsys_result *out) {
  static const char *const reports[] = {".nsys-rep", ".qdrep", NULL};
  int i, rc;
  if (dir == NULL || prefix == NULL || out == NULL || prefix[0] == '\0' ||
      (files == NULL && n > 0))
    return CM_EINVAL;
  memset(out, 0, sizeof *out);
  for (i = 0; reports[i] != NULL; i++) {
    out->report_bytes = listed(files, n, prefix, reports[i]);
    if (out->report_bytes > 0) {
      rc = join(out->report, sizeof out->report, dir, prefix, reports[i]);
      if (rc)
        return rc;
      break;
    }
  }
  out->qdstrm_bytes = listed(files, n, prefix, ".qdstrm");
  if (out->qdstrm_bytes > 0) {
    rc = join(out->qdstrm, sizeof out->qdstrm, dir, prefix, ".qdstrm");
    if (rc)
      return rc;
  }
  if (out->report[0] != '\0') {
    out->outcome = RP_NSYS_REPORT;
    cm_snprintf(out->reason, sizeof out->reason,
                "nsys wrote its report (%llu bytes)",
                (unsigned long long)out->report_bytes);
  } else if (out->qdstrm[0] != '\0') {
    out->outcome = RP_NSYS_QDSTRM_ONLY;
    cm_strlcpy(out->reason,
               "nsys wrote a .qdstrm but no report (importer missing)",
               sizeof out->reason);
  } else {
    out->outcome = RP_NSYS_NOTHING;
    cm_snprintf(out->reason, sizeof out->reason,
                "nsys wrote neither %s.nsys-rep nor %s.qdstrm in %s", prefix,
                prefix, dir[0] ? dir : ".");
  }
  return CM_OK;
}

int rp_nsys_check(const char *dir, const char *prefix, rp_nsys_result *out) {
  static const char *const exts[] = {".nsys-rep", ".qdrep", ".qdstrm"};
  char path[1200], names[3][300];
  rp_nsys_file files[3];
  size_t i;
  int rc;
  if (dir == NULL || prefix == NULL || out == NULL || prefix[0] == '\0')
    return CM_EINVAL;
  for (i = 0; i < 3; i++) {
    rc = cm_snprintf(path, sizeof path, "%s/%s%s", dir, prefix, exts[i]);
    if (rc == CM_OK)
      rc = cm_snprintf(names[i], sizeof names[i], "%s%s", prefix, exts[i]);
    if (rc)
      return rc;
    files[i].name = names[i];
    files[i].bytes = file_size(path);
  }
  return rp_nsys_classify(dir, prefix, files, 3, out);
}

int rp_nsys_scan_output(const char *text, size_t len, char *line, size_t size) {
  rp__lines it;
  char buf[RP__LINE_MAX];
  if (line != NULL && size > 0)
    line[0] = '\0';
  if (text == NULL)
    return 0;
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, buf, sizeof buf)) {
    const char *b = rp__skip_ws(rp__rtrim(buf));
    if (strstr(b, "Importer error") != NULL ||
        strstr(b, "skipping importation") != NULL) {
      if (line != NULL)
        cm_strlcpy(line, b, size);
      return 1;
    }
  }
  return 0;
}
