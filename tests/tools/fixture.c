/* fixture.c: see fixture.h. */
#include "cm_file.h"
#include "fixture.h"

#include "cm_str.h"
#include "rp_tools_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fx_load_probe(const char *name, char **text, size_t *len) {
  char path[1024];
  if (cm_snprintf(path, sizeof path, "%s/tests/fixtures/h200-probe/%s",
                  CM_SOURCE_DIR, name) != 0)
    return 1;
  if (cm_read_file(path, text, len) != 0) {
    fprintf(stderr, "cannot read capture %s\n", path);
    return 1;
  }
  return 0;
}

int fx_load(const char *name, char **text, size_t *len) {
  char path[1024];
  const char *p;
  int placeholder = 1;
  if (cm_snprintf(path, sizeof path, "%s/tests/fixtures/tools/%s",
                  CM_SOURCE_DIR, name) != 0)
    return 1;
  if (cm_read_file(path, text, len) != 0) {
    fprintf(stderr, "cannot read fixture %s\n", path);
    return 1;
  }
  /* A placeholder has only comment lines. */
  for (p = *text; *p;
       p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
    if (*p != '#' && *p != '\n' && *p != '\r') {
      placeholder = 0;
      break;
    }
  }
  if (placeholder) {
    char first[512] = "";
    const char *nl = strchr(*text, '\n');
    size_t n = nl ? (size_t)(nl - *text) : strlen(*text);
    if (n >= sizeof first)
      n = sizeof first - 1;
    memcpy(first, *text, n);
    first[n] = '\0';
    printf("skip: %s is a placeholder for a capture on the GPU machine:\n"
           "%s\n",
           name, first);
    free(*text);
    *text = NULL;
    return 77;
  }
  return 0;
}

int fx_exit_code(const char *text) {
  const char *p = text;
  while ((p = strstr(p, "# exit ")) != NULL) {
    if (p == text || p[-1] == '\n') {
      char num[16];
      int64_t v;
      size_t n = 0;
      p += 7;
      while (p[n] >= '0' && p[n] <= '9' && n + 1 < sizeof num)
        n++;
      memcpy(num, p, n);
      num[n] = '\0';
      if (cm_parse_i64(num, &v) == 0)
        return (int)v;
      return -1;
    }
    p++;
  }
  return -1;
}
