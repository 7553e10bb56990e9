/* Stage contracts: the strict line parser and the child environment. */
#include "rp_contract.h"
#include "cm_file.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rp_need_name(rp_need n) {
  switch (n) {
  case RP_NEED_OPTIONAL:
    return "optional";
  case RP_NEED_REQUIRED:
    return "required";
  default:
    return "none";
  }
}

/* A variable name or a pattern: letters, digits, '_' and at most one '*'
 * at the end. Anything else is a typo we would rather report. */
static int rp__valid_name(const char *s, int allow_star) {
  size_t i, n = strlen(s);
  if (n == 0)
    return 0;
  for (i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '*' && allow_star && i == n - 1 && i > 0)
      continue;
    if (!isalnum(ch) && ch != '_')
      return 0;
  }
  return 1;
}

/* Tool names may also hold '-' and '.' ("compute-sanitizer"). */
static int rp__valid_tool(const char *s) {
  if (*s == '\0' || *s == '-')
    return 0;
  for (; *s != '\0'; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
      return 0;
  return 1;
}

static int rp__need_parse(const char *v, rp_need *out) {
  if (strcmp(v, "none") == 0)
    *out = RP_NEED_NONE;
  else if (strcmp(v, "optional") == 0)
    *out = RP_NEED_OPTIONAL;
  else if (strcmp(v, "required") == 0)
    *out = RP_NEED_REQUIRED;
  else
    return CM_EPARSE;
  return CM_OK;
}

/* Version strings are dotted decimals: "3.24", "12.0.1". */
static int rp__valid_version(const char *v) {
  int digits = 0;
  if (*v == '\0' || *v == '.')
    return 0;
  for (; *v != '\0'; v++) {
    if (isdigit((unsigned char)*v))
      digits++;
    else if (*v != '.' || digits == 0)
      return 0;
    else
      digits = 0;
  }
  return digits > 0;
}

static int rp__add(char list[][RP_CONTRACT_STR], int *n, const char *v) {
  if (*n >= RP_CONTRACT_MAX)
    return CM_ERANGE;
  if (cm_strlcpy(list[*n], v, RP_CONTRACT_STR) != CM_OK)
    return CM_ERANGE;
  (*n)++;
  return CM_OK;
}

#define RP__FAIL(...)                                                          \
  do {                                                                         \
    cm_snprintf(err, errsize, __VA_ARGS__);                                    \
    return CM_EPARSE;                                                          \
  } while (0)

/* One non-empty, comment-stripped line. seen[] tracks single-valued keys. */
static int rp__parse_line(char *line, const char *name, int lineno,
                          rp_contract *c, int seen[5], char *err,
                          size_t errsize) {
  char *w[5];
  int nw = cm_split(line, " \t", w, 5);
  const char *key;
  if (nw == 0)
    return CM_OK;
  /* cm_split says max + 1 for more words than it keeps: no line has more
   * than "tool NAME >= VERSION optional" */
  if (nw > 5)
    RP__FAIL("%s:%d: too many words (at most 5: tool NAME >= VERSION "
             "optional)",
             name, lineno);
  key = w[0];
  if (strcmp(key, "set") == 0) {
    char *eq;
    if (nw != 2 || (eq = strchr(w[1], '=')) == NULL)
      RP__FAIL("%s:%d: set needs NAME=VALUE (no spaces)", name, lineno);
    *eq = '\0';
    if (!rp__valid_name(w[1], 0))
      RP__FAIL("%s:%d: bad variable name '%s'", name, lineno, w[1]);
    *eq = '=';
    if (rp__add(c->set, &c->nset, w[1]) != CM_OK)
      RP__FAIL("%s:%d: too many set lines", name, lineno);
    c->set_line[c->nset - 1] = lineno;
    return CM_OK;
  }
  if (strcmp(key, "unset") == 0 || strcmp(key, "forbid") == 0) {
    int is_unset = key[0] == 'u';
    if (nw != 2 || !rp__valid_name(w[1], 1))
      RP__FAIL("%s:%d: %s needs one NAME or PREFIX*", name, lineno, key);
    if (rp__add(is_unset ? c->unset : c->forbid,
                is_unset ? &c->nunset : &c->nforbid, w[1]) != CM_OK)
      RP__FAIL("%s:%d: too many %s lines", name, lineno, key);
    if (!is_unset)
      c->forbid_line[c->nforbid - 1] = lineno;
    return CM_OK;
  }
  if (strcmp(key, "tool") == 0) {
    rp_tool_req *t;
    int i = 2;
    if (nw < 2 || !rp__valid_tool(w[1]))
      RP__FAIL("%s:%d: tool needs a NAME", name, lineno);
    if (c->ntools >= RP_CONTRACT_MAX)
      RP__FAIL("%s:%d: too many tool lines", name, lineno);
    t = &c->tools[c->ntools];
    memset(t, 0, sizeof *t);
    if (cm_strlcpy(t->name, w[1], sizeof t->name) != CM_OK)
      RP__FAIL("%s:%d: tool name too long", name, lineno);
    if (i < nw && strcmp(w[i], ">=") == 0) {
      if (i + 1 >= nw || !rp__valid_version(w[i + 1]) ||
          cm_strlcpy(t->min_version, w[i + 1], sizeof t->min_version) != CM_OK)
        RP__FAIL("%s:%d: tool %s: '>=' needs a version like 12.0", name, lineno,
                 t->name);
      i += 2;
    }
    if (i < nw && strcmp(w[i], "optional") == 0) {
      t->optional = 1;
      i++;
    }
    if (i != nw)
      RP__FAIL("%s:%d: tool %s: unexpected '%s' (want: tool NAME "
               "[>= VERSION] [optional])",
               name, lineno, t->name, w[i]);
    c->ntools++;
    return CM_OK;
  }
  {
    static const char *const singles[] = {"device", "counters", "idle",
                                          "timeout", "instrumented"};
    int k;
    for (k = 0; k < 5; k++)
      if (strcmp(key, singles[k]) == 0)
        break;
    if (k == 5)
      RP__FAIL("%s:%d: unknown key '%s'", name, lineno, key);
    if (nw != 2)
      RP__FAIL("%s:%d: %s takes exactly one value", name, lineno, key);
    if (k <= 2) {
      rp_need *dst = k == 0 ? &c->device : k == 1 ? &c->counters : &c->idle;
      if (rp__need_parse(w[1], dst) != CM_OK)
        RP__FAIL("%s:%d: %s must be none, optional or required", name, lineno,
                 key);
    } else if (k == 3) {
      double v;
      if (cm_parse_double(w[1], &v) != CM_OK || !(v > 0) || v > 86400 * 7)
        RP__FAIL("%s:%d: timeout must be seconds > 0", name, lineno);
      c->timeout_s = v;
    } else {
      if (strcmp(w[1], "yes") == 0)
        c->instrumented = 1;
      else if (strcmp(w[1], "no") == 0)
        c->instrumented = 0;
      else
        RP__FAIL("%s:%d: instrumented must be yes or no", name, lineno);
    }
    /* Checked after the value, so a typo is reported as what it is. */
    if (seen[k])
      RP__FAIL("%s:%d: %s given twice", name, lineno, key);
    seen[k] = 1;
  }
  return CM_OK;
}

/* Copies the NAME part of "NAME=value" into buf. */
static void rp__env_name(const char *entry, char *buf, size_t size) {
  const char *eq = strchr(entry, '=');
  size_t n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
  if (n >= size)
    n = size - 1;
  memcpy(buf, entry, n);
  buf[n] = '\0';
}

/* A set line says what the children get: two for one name (the child's
 * environment held both, and which one a program read depended on how it
 * read it), or one for a name the contract also forbids (which must never
 * reach a child), say two things at once. (An unset pattern over a set
 * name is not: "unset CUDA_*" with "set CUDA_PORTFOLIO_ALLOC=exact" clears
 * the parent's and gives the contract's.) */
static int rp__check_sets(const rp_contract *c, const char *name, char *err,
                          size_t errsize) {
  char a[RP_CONTRACT_STR], b[RP_CONTRACT_STR];
  int i, j;
  for (i = 0; i < c->nset; i++) {
    rp__env_name(c->set[i], a, sizeof a);
    for (j = 0; j < i; j++) {
      rp__env_name(c->set[j], b, sizeof b);
      if (cm_env_name_eq(a, b, (size_t)-1))
        RP__FAIL("%s:%d: set %s twice (also at line %d): a child gets one "
                 "value; keep one of the two lines",
                 name, c->set_line[i], a, c->set_line[j]);
    }
    for (j = 0; j < c->nforbid; j++)
      if (rp_pattern_match(c->forbid[j], a))
        RP__FAIL("%s:%d: set %s, which 'forbid %s' (line %d) forbids; drop "
                 "one of the two lines",
                 name, c->set_line[i], a, c->forbid[j], c->forbid_line[j]);
  }
  return CM_OK;
}

int rp_contract_parse(const char *text, const char *name, rp_contract *out,
                      char *err, size_t errsize) {
  char line[1024];
  const char *p = text;
  int lineno = 0, seen[5] = {0, 0, 0, 0, 0}, rc;
  memset(out, 0, sizeof *out);
  cm_strlcpy(out->source, name, sizeof out->source);
  if (errsize > 0)
    err[0] = '\0';
  /* a UTF-8 byte order mark, as Windows editors save: not a key */
  if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
      (unsigned char)p[2] == 0xBF)
    p += 3;
  while (*p != '\0') {
    const char *nl = strchr(p, '\n');
    size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
    char *hash;
    lineno++;
    if (len >= sizeof line)
      RP__FAIL("%s:%d: line too long", name, lineno);
    memcpy(line, p, len);
    line[len] = '\0';
    if (len > 0 && line[len - 1] == '\r')
      line[len - 1] = '\0';
    hash = strchr(line, '#');
    if (hash != NULL)
      *hash = '\0';
    rc = rp__parse_line(line, name, lineno, out, seen, err, errsize);
    if (rc != CM_OK)
      return rc;
    p = nl != NULL ? nl + 1 : p + len;
  }
  if (!seen[0])
    RP__FAIL("%s: missing 'device none|optional|required'", name);
  if (!seen[3])
    RP__FAIL("%s: missing 'timeout SECONDS'", name);
  if (!seen[4])
    RP__FAIL("%s: missing 'instrumented yes|no'", name);
  return rp__check_sets(out, name, err, errsize);
}

int rp_contract_load(const char *path, rp_contract *out, char *err,
                     size_t errsize) {
  static char text[65536];
  const char *nul;
  size_t n;
  int bad;
  FILE *f;
  /* a folder opens as a file on POSIX and reads as nothing: it parsed as
   * an empty contract ("missing 'device ...'") */
  if (plat_path_is_dir(path)) {
    cm_snprintf(err, errsize,
                "%s: is a folder, not a contract; the contract is the file "
                "env/<stage>.contract (move the folder away)",
                path);
    return CM_EINVAL;
  }
  errno = 0;
  f = cm_fopen(path, "rb");
  if (f == NULL) {
    int e = errno;
    if (e == ENOENT || e == 0) {
      cm_snprintf(err, errsize,
                  "%s: cannot open contract: no such file (each stage "
                  "needs env/<stage>.contract; check --root)",
                  path);
      return CM_ENOENT;
    }
    cm_snprintf(err, errsize,
                "%s: cannot open contract: %s (make it readable by this "
                "user)",
                path, strerror(e));
    return CM_EIO;
  }
  errno = 0;
  n = fread(text, 1, sizeof text - 1, f);
  bad = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
  fclose(f);
  if (bad) {
    cm_snprintf(err, errsize,
                "%s: cannot read contract: %s (make it a readable file)", path,
                strerror(bad));
    return CM_EIO;
  }
  if (n == sizeof text - 1) {
    cm_snprintf(err, errsize, "%s: contract larger than 64 KiB", path);
    return CM_ERANGE;
  }
  text[n] = '\0';
  /* parsed as text, a NUL would end the contract there, and every line
   * after it (a forbid rule) would be dropped without a word */
  if (n >= 2 &&
      (((unsigned char)text[0] == 0xFF && (unsigned char)text[1] == 0xFE) ||
       ((unsigned char)text[0] == 0xFE && (unsigned char)text[1] == 0xFF))) {
    cm_snprintf(err, errsize,
                "%s: the contract is UTF-16 (as some Windows editors save); "
                "save it as UTF-8",
                path);
    return CM_EPARSE;
  }
  nul = memchr(text, '\0', n);
  if (nul != NULL) {
    cm_snprintf(err, errsize,
                "%s: the contract holds a NUL byte at offset %lu; a contract "
                "is text (UTF-8)",
                path, (unsigned long)(nul - text));
    return CM_EPARSE;
  }
  return rp_contract_parse(text, path, out, err, errsize);
}

int rp_pattern_match(const char *pattern, const char *name) {
  size_t n = strlen(pattern);
  if (n > 0 && pattern[n - 1] == '*')
    return cm_env_name_eq(pattern, name, n - 1);
  return cm_env_name_eq(pattern, name, (size_t)-1);
}

static int rp__matches_any(const char list[][RP_CONTRACT_STR], int n,
                           const char *name) {
  int i;
  for (i = 0; i < n; i++)
    if (rp_pattern_match(list[i], name))
      return 1;
  return 0;
}

const char *rp_contract_forbidden(const rp_contract *c, char *const *env,
                                  char *name, size_t size) {
  char nm[256];
  size_t i;
  for (i = 0; env != NULL && env[i] != NULL; i++) {
    rp__env_name(env[i], nm, sizeof nm);
    if (rp__matches_any(c->forbid, c->nforbid, nm)) {
      if (name != NULL && size > 0)
        cm_strlcpy(name, nm, size);
      return env[i];
    }
  }
  return NULL;
}

/* strdup is POSIX, not C11. */
static char *rp__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL)
    memcpy(d, s, n);
  return d;
}

static int rp__in_sets(const char *const *list, size_t n, const char *name) {
  char nm[256];
  size_t i;
  for (i = 0; i < n; i++) {
    rp__env_name(list[i], nm, sizeof nm);
    if (cm_env_name_eq(nm, name, (size_t)-1))
      return 1;
  }
  return 0;
}

int rp_contract_child_env(const rp_contract *c, char *const *parent,
                          const char *const *extra, char ***out) {
  size_t np = 0, ne = 0, k = 0, i;
  const char *sets[RP_CONTRACT_MAX];
  char **env;
  char nm[256];
  for (i = 0; parent != NULL && parent[i] != NULL; i++)
    np++;
  for (i = 0; extra != NULL && extra[i] != NULL; i++)
    ne++;
  for (i = 0; i < (size_t)c->nset; i++)
    sets[i] = c->set[i];
  env = calloc(np + (size_t)c->nset + ne + 1, sizeof *env);
  if (env == NULL)
    return CM_ENOMEM;
  for (i = 0; i < np; i++) {
    rp__env_name(parent[i], nm, sizeof nm);
    if (rp__matches_any(c->unset, c->nunset, nm) ||
        rp__matches_any(c->forbid, c->nforbid, nm) ||
        rp__in_sets(sets, (size_t)c->nset, nm) || rp__in_sets(extra, ne, nm))
      continue;
    if ((env[k++] = rp__strdup(parent[i])) == NULL)
      goto nomem;
  }
  for (i = 0; i < (size_t)c->nset; i++) {
    rp__env_name(c->set[i], nm, sizeof nm);
    if (rp__in_sets(extra, ne, nm))
      continue;
    if ((env[k++] = rp__strdup(c->set[i])) == NULL)
      goto nomem;
  }
  for (i = 0; i < ne; i++)
    if ((env[k++] = rp__strdup(extra[i])) == NULL)
      goto nomem;
  env[k] = NULL;
  *out = env;
  return CM_OK;
nomem:
  rp_env_free(env);
  return CM_ENOMEM;
}

void rp_env_free(char **env) {
  size_t i;
  if (env == NULL)
    return;
  for (i = 0; env[i] != NULL; i++)
    free(env[i]);
  free(env);
}
