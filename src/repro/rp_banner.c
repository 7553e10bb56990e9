/* Parser of cuda_portfolio's banner line (pure). */
#include "rp_banner.h"
#include "cm_error.h"
#include "cm_str.h"

#include <string.h>

#define RP__TAG "[cuda_portfolio]"

#define RP__BAD(...)                                                           \
  do {                                                                         \
    if (err != NULL)                                                           \
      cm_snprintf(err, errsize, __VA_ARGS__);                                  \
    return CM_EPARSE;                                                          \
  } while (0)

int rp_banner_parse(const char *text, rp_banner *out, char *err,
                    size_t errsize) {
  char line[1024];
  const char *nl;
  char *p, *tok;
  size_t len;
  int have = 0; /* bit per field: version allocator instrumented markers seed */
  memset(out, 0, sizeof *out);
  if (err != NULL && errsize > 0)
    err[0] = '\0';
  if (text == NULL)
    RP__BAD("no output");
  nl = strchr(text, '\n');
  len = nl != NULL ? (size_t)(nl - text) : strlen(text);
  if (len >= sizeof line)
    RP__BAD("first line longer than %zu bytes", sizeof line - 1);
  memcpy(line, text, len);
  line[len] = '\0';
  while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
    line[--len] = '\0';
  if (!cm_starts_with(line, RP__TAG))
    RP__BAD("first line does not start with " RP__TAG);
  p = line + strlen(RP__TAG);
  while (*p != '\0') {
    char *eq;
    while (*p == ' ')
      p++;
    if (*p == '\0')
      break;
    tok = p;
    while (*p != '\0' && *p != ' ')
      p++;
    if (*p != '\0')
      *p++ = '\0';
    eq = strchr(tok, '=');
    if (eq == NULL)
      RP__BAD("token '%s' is not key=value", tok);
    *eq++ = '\0';
    if (strcmp(tok, "version") == 0) {
      if (*eq == '\0' || cm_strlcpy(out->version, eq, sizeof out->version))
        RP__BAD("bad version");
      have |= 1;
    } else if (strcmp(tok, "allocator") == 0) {
      if (strcmp(eq, "exact") != 0 && strcmp(eq, "pooled") != 0)
        RP__BAD("allocator must be exact or pooled, not '%s'", eq);
      cm_strlcpy(out->allocator, eq, sizeof out->allocator);
      have |= 2;
    } else if (strcmp(tok, "instrumented") == 0) {
      if (strcmp(eq, "true") == 0)
        out->instrumented = 1;
      else if (strcmp(eq, "false") == 0)
        out->instrumented = 0;
      else
        RP__BAD("instrumented must be true or false, not '%s'", eq);
      have |= 4;
    } else if (strcmp(tok, "markers") == 0) {
      if (*eq == '\0')
        RP__BAD("markers must be a list or -");
      if (strcmp(eq, "-") != 0 &&
          cm_strlcpy(out->markers, eq, sizeof out->markers) != CM_OK)
        RP__BAD("markers list too long");
      have |= 8;
    } else if (strcmp(tok, "git") == 0) {
      if (*eq == '\0' || cm_strlcpy(out->git, eq, sizeof out->git) != CM_OK)
        RP__BAD("bad git=");
    } else if (strcmp(tok, "seed") == 0) {
      if (cm_parse_i64(eq, &out->seed) != CM_OK)
        RP__BAD("seed must be an integer, not '%s'", eq);
      have |= 16;
    }
  }
  if (!(have & 1))
    RP__BAD("missing version=");
  if (!(have & 2))
    RP__BAD("missing allocator=");
  if (!(have & 4))
    RP__BAD("missing instrumented=");
  if (!(have & 8))
    RP__BAD("missing markers=");
  if (!(have & 16))
    RP__BAD("missing seed=");
  /* A binary that lists markers but says it is not instrumented contradicts
   * itself; trust neither claim. */
  if (out->markers[0] != '\0' && !out->instrumented)
    RP__BAD("markers listed (%s) but instrumented=false", out->markers);
  return CM_OK;
}
