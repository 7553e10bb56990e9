/* rp_resource_parse.c: see rp_resource_parse.h. */
#include "rp_resource_parse.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_tools_text.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void rp_res_table_init(rp_res_table *t) {
  memset(t, 0, sizeof *t);
}

void rp_res_table_free(rp_res_table *t) {
  free(t->rows);
  rp_res_table_init(t);
}

/* The row for (name, arch), created with every field unknown if absent. An
 * empty arch on either side matches, so that a source that does not name
 * the arch merges into one that did. */
static rp_kernel_res *row_for(rp_res_table *t, const char *name,
                              const char *arch) {
  size_t i;
  rp_kernel_res *r;
  for (i = 0; i < t->count; i++) {
    r = &t->rows[i];
    if (strcmp(r->mangled, name) == 0 &&
        (r->arch[0] == '\0' || arch[0] == '\0' || strcmp(r->arch, arch) == 0)) {
      if (r->arch[0] == '\0')
        cm_strlcpy(r->arch, arch, sizeof r->arch);
      return r;
    }
  }
  if (cm_grow(&t->rows, &t->cap, t->count, sizeof *t->rows, 16) != CM_OK)
    return NULL;
  r = &t->rows[t->count++];
  memset(r, 0, sizeof *r);
  cm_strlcpy(r->mangled, name, sizeof r->mangled);
  cm_strlcpy(r->arch, arch, sizeof r->arch);
  r->registers = r->stack_frame = r->spill_stores = r->spill_loads = -1;
  r->shared = r->local = r->constant0 = r->barriers = -1;
  return r;
}

static void update_spills(rp_kernel_res *r) {
  r->spills = r->spill_stores > 0 || r->spill_loads > 0;
}

/* Copies the text between the first pair of single quotes after s. */
static int quoted(const char *s, char *dst, size_t size) {
  const char *a = strchr(s, '\''), *b;
  if (a == NULL)
    return 0;
  b = strchr(a + 1, '\'');
  if (b == NULL)
    return 0;
  rp__copy_n(dst, size, a + 1, (size_t)(b - a - 1));
  return 1;
}

/* Walks "N word word, N word, ..." items: for each number followed by a
 * phrase, calls the matcher. Used for both ptxas property lines. */
static void ptxas_items(const char *s, rp_kernel_res *r) {
  char item[256];
  while (*s) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    const char *p;
    int64_t x = 0;
    int has_num;
    rp__copy_n(item, sizeof item, s, n);
    p = rp__skip_ws(item);
    if (cm_starts_with(p, "Used ") || cm_starts_with(p, "used "))
      p += 5;
    has_num = rp__scan_count(&p, &x);
    p = rp__skip_ws(p);
    if (has_num) {
      if (cm_starts_with(p, "registers"))
        r->registers = x;
      else if (cm_starts_with(p, "barriers"))
        r->barriers = x;
      else if (cm_starts_with(p, "bytes stack frame"))
        r->stack_frame = x;
      else if (cm_starts_with(p, "bytes spill stores"))
        r->spill_stores = x;
      else if (cm_starts_with(p, "bytes spill loads"))
        r->spill_loads = x;
      else if (cm_starts_with(p, "bytes smem"))
        r->shared = x;
      else if (cm_starts_with(p, "bytes cmem[0]"))
        r->constant0 = x;
      else if (cm_starts_with(p, "bytes lmem"))
        r->local = x;
    }
    if (comma == NULL)
      break;
    s = comma + 1;
  }
  update_spills(r);
}

int rp_res_parse_ptxas(const char *text, size_t len, rp_res_table *t) {
  rp__lines it;
  char line[RP__LINE_MAX];
  char entry[512] = "", arch[16] = "";
  rp_kernel_res *cur = NULL;
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, line, sizeof line)) {
    const char *p = rp__skip_ws(rp__rtrim(line));
    const char *info = rp__after(p, "ptxas info");
    if (info != NULL) {
      const char *body = strchr(info, ':');
      body = body ? rp__skip_ws(body + 1) : info;
      if (cm_starts_with(body, "Compiling entry function")) {
        const char *f = rp__after(body, " for ");
        cur = NULL;
        if (!quoted(body, entry, sizeof entry))
          continue;
        arch[0] = '\0';
        if (f != NULL)
          quoted(f, arch, sizeof arch);
        cur = row_for(t, entry, arch);
        if (cur == NULL)
          return CM_ENOMEM;
        cur->sources |= RP_RES_FROM_PTXAS;
      } else if (cm_starts_with(body, "Function properties for ")) {
        /* Device functions get properties too; only the entry counts. */
        const char *name = body + strlen("Function properties for ");
        char nm[512];
        cm_strlcpy(nm, name, sizeof nm);
        rp__rtrim(nm);
        if (strcmp(nm, entry) != 0)
          cur = NULL;
        else if (cur == NULL && entry[0] != '\0')
          cur = row_for(t, entry, arch);
      } else if (cm_starts_with(body, "Used ") && cur != NULL) {
        /* ptxas leaves out "N bytes smem" when there is none. */
        if (cur->shared < 0)
          cur->shared = 0;
        ptxas_items(body, cur);
      }
      continue;
    }
    /* "    256 bytes stack frame, 0 bytes spill stores, ..." */
    if (cur != NULL && strstr(p, "bytes stack frame") != NULL)
      ptxas_items(p, cur);
  }
  return CM_OK;
}

/* "REG:24 STACK:256 SHARED:1024 LOCAL:0 CONSTANT[0]:900 TEXTURE:0 ..." */
static void cuobjdump_items(const char *s, rp_kernel_res *r) {
  while (*s) {
    const char *colon;
    char key[32];
    int64_t x;
    s = rp__skip_ws(s);
    colon = strchr(s, ':');
    if (colon == NULL)
      break;
    rp__copy_n(key, sizeof key, s, (size_t)(colon - s));
    s = colon + 1;
    if (rp__scan_count(&s, &x)) {
      if (strcmp(key, "REG") == 0)
        r->registers = x;
      else if (strcmp(key, "STACK") == 0 && r->stack_frame < 0)
        r->stack_frame = x;
      else if (strcmp(key, "SHARED") == 0 && r->shared < 0)
        /* ptxas's "bytes smem" wins when both are known: cuobjdump's
         * SHARED adds the 1 KiB per block the driver reserves on sm_80+
         * (H200 probe: ptxas 1024, cuobjdump 2048). */
        r->shared = x;
      else if (strcmp(key, "LOCAL") == 0)
        r->local = x;
      else if (strcmp(key, "CONSTANT[0]") == 0)
        r->constant0 = x;
    }
    while (*s && *s != ' ' && *s != '\t')
      s++;
  }
}

int rp_res_parse_cuobjdump(const char *text, size_t len, rp_res_table *t) {
  rp__lines it;
  char line[RP__LINE_MAX];
  char arch[16] = "";
  rp_kernel_res *cur = NULL;
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, line, sizeof line)) {
    const char *p = rp__skip_ws(rp__rtrim(line));
    if (cm_starts_with(p, "arch")) {
      const char *eq = strchr(p, '=');
      if (eq != NULL) {
        cm_strlcpy(arch, rp__skip_ws(eq + 1), sizeof arch);
        rp__rtrim(arch);
      }
      cur = NULL;
    } else if (cm_starts_with(p, "Function ")) {
      char name[512];
      size_t n;
      cm_strlcpy(name, rp__skip_ws(p + 9), sizeof name);
      n = strlen(name);
      if (n > 0 && name[n - 1] == ':')
        name[n - 1] = '\0';
      cur = row_for(t, name, arch);
      if (cur == NULL)
        return CM_ENOMEM;
      cur->sources |= RP_RES_FROM_CUOBJDUMP;
    } else if (cur != NULL && cm_starts_with(p, "REG:")) {
      cuobjdump_items(p, cur);
      cur = NULL;
    }
  }
  return CM_OK;
}

size_t rp_res_spilling(const rp_res_table *t) {
  size_t i, n = 0;
  for (i = 0; i < t->count; i++)
    n += t->rows[i].spills ? 1 : 0;
  return n;
}

size_t rp_res_mangled_names(const rp_res_table *t, const char **names,
                            size_t max) {
  size_t i, j, n = 0;
  for (i = 0; i < t->count && n < max; i++) {
    const char *m = t->rows[i].mangled;
    if (!cm_starts_with(m, "_Z"))
      continue;
    for (j = 0; j < n; j++)
      if (strcmp(names[j], m) == 0)
        break;
    if (j == n)
      names[n++] = m;
  }
  return n;
}

int rp_res_apply_demangled(rp_res_table *t, const char *text, size_t len) {
  const char *names[1024];
  size_t n = rp_res_mangled_names(t, names, 1024), k = 0, i;
  rp__lines it;
  char line[RP__LINE_MAX];
  /* Count first: a short or long answer means the lines do not pair up. */
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, line, sizeof line))
    if (rp__rtrim(line)[0] != '\0')
      k++;
  if (k != n)
    return CM_EPARSE;
  rp__lines_init(&it, text, len);
  k = 0;
  while (rp__lines_next(&it, line, sizeof line)) {
    if (rp__rtrim(line)[0] == '\0')
      continue;
    for (i = 0; i < t->count; i++)
      if (strcmp(t->rows[i].mangled, names[k]) == 0)
        cm_strlcpy(t->rows[i].readable, line, sizeof t->rows[i].readable);
    k++;
  }
  return CM_OK;
}

/* Growable text buffer for rp_res_table_text. */
typedef struct {
  char *s;
  size_t n, cap;
  int err;
} sbuf;

static void sb_add(sbuf *b, const char *s) {
  size_t k = strlen(s);
  if (b->err)
    return;
  if (b->n + k + 1 > b->cap) {
    size_t ncap = (b->cap ? b->cap * 2 : 4096) + k;
    char *n = realloc(b->s, ncap);
    if (n == NULL) {
      b->err = CM_ENOMEM;
      return;
    }
    b->s = n;
    b->cap = ncap;
  }
  memcpy(b->s + b->n, s, k + 1);
  b->n += k;
}

static void fmt_num(char *dst, size_t size, int64_t v) {
  if (v < 0)
    cm_strlcpy(dst, "?", size);
  else
    cm_snprintf(dst, size, "%lld", (long long)v);
}

int rp_res_table_text(const rp_res_table *t, char **out) {
  sbuf b = {NULL, 0, 0, 0};
  char line[2048], f[8][24];
  size_t i;
  sb_add(&b, "# Per-kernel resources (bytes unless stated). "
             "SPILLS marks a kernel whose registers spill to local memory.\n");
  cm_snprintf(line, sizeof line, "%-8s %5s %7s %8s %8s %8s %8s %5s  %s\n",
              "arch", "regs", "stack", "spill_st", "spill_ld", "shared",
              "local", "flag", "kernel");
  sb_add(&b, line);
  for (i = 0; i < t->count; i++) {
    const rp_kernel_res *r = &t->rows[i];
    fmt_num(f[0], sizeof f[0], r->registers);
    fmt_num(f[1], sizeof f[1], r->stack_frame);
    fmt_num(f[2], sizeof f[2], r->spill_stores);
    fmt_num(f[3], sizeof f[3], r->spill_loads);
    fmt_num(f[4], sizeof f[4], r->shared);
    fmt_num(f[5], sizeof f[5], r->local);
    /* Truncation of a very long signature is acceptable in the text view;
     * the JSON keeps the full names. */
    (void)cm_snprintf(
        line, sizeof line, "%-8s %5s %7s %8s %8s %8s %8s %5s  %s%s%s%s\n",
        r->arch[0] ? r->arch : "?", f[0], f[1], f[2], f[3], f[4], f[5],
        r->spills ? "SPILLS" : "-", r->readable[0] ? r->readable : r->mangled,
        r->readable[0] ? " [" : "", r->readable[0] ? r->mangled : "",
        r->readable[0] ? "]" : "");
    sb_add(&b, line);
  }
  cm_snprintf(line, sizeof line, "# %zu kernel(s), %zu spilling\n", t->count,
              rp_res_spilling(t));
  sb_add(&b, line);
  if (b.err) {
    free(b.s);
    return b.err;
  }
  *out = b.s;
  return CM_OK;
}

json_t *rp_res_table_json(const rp_res_table *t) {
  json_t *arr = json_array();
  size_t i;
  if (arr == NULL)
    return NULL;
  for (i = 0; i < t->count; i++) {
    const rp_kernel_res *r = &t->rows[i];
    json_t *o = json_object(), *src = json_array();
    if (o == NULL || src == NULL) {
      json_decref(o);
      json_decref(src);
      json_decref(arr);
      return NULL;
    }
    json_object_set_new(
        o, "kernel", cm_json_text(r->readable[0] ? r->readable : r->mangled));
    json_object_set_new(o, "mangled", cm_json_text(r->mangled));
    json_object_set_new(o, "arch", cm_json_text(r->arch));
    {
      static const char *const keys[] = {
          "registers",        "stack_frame_bytes", "spill_store_bytes",
          "spill_load_bytes", "shared_bytes",      "local_bytes",
          "constant0_bytes",  "barriers"};
      const int64_t vals[] = {r->registers,   r->stack_frame, r->spill_stores,
                              r->spill_loads, r->shared,      r->local,
                              r->constant0,   r->barriers};
      rp__json_set_counts(o, keys, vals, sizeof vals / sizeof vals[0]);
    }
    json_object_set_new(o, "spills", json_boolean(r->spills));
    if (r->sources & RP_RES_FROM_PTXAS)
      json_array_append_new(src, cm_json_text("ptxas"));
    if (r->sources & RP_RES_FROM_CUOBJDUMP)
      json_array_append_new(src, cm_json_text("cuobjdump"));
    json_object_set_new(o, "sources", src);
    json_array_append_new(arr, o);
  }
  return arr;
}
