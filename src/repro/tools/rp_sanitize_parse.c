/* rp_sanitize_parse.c: see rp_sanitize_parse.h.
 *
 * compute-sanitizer prints every report as a heading line right after the
 * "=========" prefix, followed by indented detail lines (location, thread,
 * address, host backtrace). We therefore classify by indentation: a heading
 * opens a finding, indented lines fill it, and anything not prefixed belongs
 * to the target program and is skipped.
 */
#include "rp_sanitize_parse.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_tools_text.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

const char *rp_san_class_name(rp_san_class c) {
  switch (c) {
  case RP_SAN_ACCESS:
    return "access";
  case RP_SAN_HAZARD:
    return "hazard";
  case RP_SAN_BARRIER:
    return "barrier";
  case RP_SAN_API:
    return "api";
  case RP_SAN_LEAK:
    return "leak";
  default:
    return "other";
  }
}

static int starts_ci(const char *s, const char *prefix) {
  for (; *prefix; s++, prefix++) {
    char a = *s, b = *prefix;
    if (a >= 'A' && a <= 'Z')
      a = (char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z')
      b = (char)(b - 'A' + 'a');
    if (a != b)
      return 0;
  }
  return 1;
}

/* Headings of reports that count as findings in every tool. */
static int access_heading(const char *b) {
  static const char *const heads[] = {
      "Invalid ", "Uninitialized ", "Misaligned ", "Out-of-range",
      "Malloc/Free", "Unused memory", "Host API memory access error",
      "Memory access error", "Cuda Memory", "Invalid address",
      /* per-warp reports ("Warp Misaligned
       * Address", "Warp Out-of-range
       * Address", "Warp Illegal Address") and
       * the host API's ("Host API
       * uninitialized memory access") */
      "Warp ", "Host API ", "Hardware Stack Overflow", "Stack overflow", NULL};
  int i;
  for (i = 0; heads[i] != NULL; i++)
    if (cm_starts_with(b, heads[i]))
      return 1;
  return 0;
}

/* Lines that mean the sanitizer could not check anything. */
static int tool_failure_line(const char *b) {
  static const char *const needles[] = {"Internal Sanitizer Error",
                                        "Internal error",
                                        "INTERNAL ERROR",
                                        "not supported",
                                        "Not supported",
                                        "No attachable process",
                                        "before first instrumented API call",
                                        "Unable to ",
                                        "Failed to ",
                                        "Could not ",
                                        "could not ",
                                        "Unrecognized option",
                                        "unrecognized option",
                                        "Tool requires",
                                        NULL};
  int i;
  for (i = 0; needles[i] != NULL; i++)
    if (strstr(b, needles[i]) != NULL)
      return 1;
  return 0;
}

static rp_san_finding *add_finding(rp_san_report *r, rp_san_class cls,
                                   const char *kind, int *err) {
  rp_san_finding *f;
  r->findings_total++;
  if (r->count >= RP_SAN_MAX_FINDINGS)
    return NULL;
  if (cm_grow(&r->items, &r->cap, r->count, sizeof *r->items, 16) != CM_OK) {
    *err = CM_ENOMEM;
    return NULL;
  }
  f = &r->items[r->count++];
  memset(f, 0, sizeof *f);
  f->cls = cls;
  cm_strlcpy(f->kind, kind, sizeof f->kind);
  cm_strlcpy(f->severity, "error", sizeof f->severity);
  return f;
}

/* "of size N" anywhere in s -> N (access size or allocation size). */
static uint64_t size_in(const char *s) {
  const char *p = rp__after(s, "of size ");
  uint64_t v = 0;
  if (p != NULL && rp__scan_u64(&p, &v))
    return v;
  return 0;
}

/* Finds a ":<digits>" that ends the file part of "path/file.cu:12[:rest]".
 * Returns a pointer to the ':' before the digits, or NULL. */
static const char *line_colon(const char *s) {
  const char *p = s;
  while ((p = strchr(p, ':')) != NULL) {
    const char *d = p + 1;
    while (*d >= '0' && *d <= '9')
      d++;
    if (d > p + 1 && (*d == ':' || *d == '\0' || *d == ' '))
      return p;
    p++;
  }
  return NULL;
}

/* Fills kernel, pc and location from the text after "at ". Accepts
 * "0x70 in dir/f.cu:6:kern(args)", "0x70 in kern(args)",
 * "kern(args)+0x70 in dir/f.cu:6", "kern(args)+0x70" and "0x70". */
static void parse_at(const char *s, rp_san_finding *f) {
  char buf[RP__LINE_MAX];
  char *tail, *plus = NULL, *p;
  cm_strlcpy(buf, rp__skip_ws(s), sizeof buf);
  /* racecheck appends " [N hazards]" to the location. */
  tail = strstr(buf, " [");
  if (tail != NULL && strchr(tail, ']') != NULL)
    *tail = '\0';
  rp__rtrim(buf);
  if (cm_starts_with(buf, "0x")) {
    char *sp = strchr(buf, ' ');
    char *rest;
    if (sp != NULL)
      *sp = '\0';
    cm_strlcpy(f->pc, buf, sizeof f->pc);
    if (sp == NULL)
      return;
    rest = (char *)rp__skip_ws(sp + 1);
    if (cm_starts_with(rest, "in "))
      rest += 3;
    {
      const char *c = line_colon(rest);
      if (c != NULL) {
        const char *d = c + 1;
        while (*d >= '0' && *d <= '9')
          d++;
        rp__copy_n(f->location, sizeof f->location, rest, (size_t)(d - rest));
        if (*d == ':')
          cm_strlcpy(f->kernel, d + 1, sizeof f->kernel);
      } else {
        cm_strlcpy(f->kernel, rest, sizeof f->kernel);
      }
    }
    return;
  }
  for (p = buf; (p = strstr(p, "+0x")) != NULL; p++)
    plus = p;
  if (plus == NULL) {
    /* No PC: "kern(args) in file:line" or just a name. */
    char *in = strstr(buf, " in ");
    if (in != NULL) {
      *in = '\0';
      cm_strlcpy(f->location, in + 4, sizeof f->location);
    }
    cm_strlcpy(f->kernel, buf, sizeof f->kernel);
    return;
  }
  *plus = '\0';
  cm_strlcpy(f->kernel, buf, sizeof f->kernel);
  p = plus + 1;
  {
    size_t n = 2;
    while ((p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'f') ||
           (p[n] >= 'A' && p[n] <= 'F'))
      n++;
    rp__copy_n(f->pc, sizeof f->pc, p, n);
    p += n;
  }
  p = (char *)rp__skip_ws(p);
  if (cm_starts_with(p, "in "))
    cm_strlcpy(f->location, rp__skip_ws(p + 3), sizeof f->location);
}

/* Copies the "(x,y,z)" group that starts at or after s into dst. */
static void copy_paren(const char *s, char *dst, size_t size) {
  const char *a = strchr(s, '('), *b;
  if (a == NULL)
    return;
  b = strchr(a, ')');
  if (b == NULL)
    return;
  rp__copy_n(dst, size, a, (size_t)(b - a + 1));
}

static void copy_token(const char *s, char *dst, size_t size) {
  size_t n = 0;
  s = rp__skip_ws(s);
  while (s[n] && s[n] != ' ' && s[n] != ',')
    n++;
  rp__copy_n(dst, size, s, n);
}

/* A continuation (indented) line of the current finding. */
static void detail_line(rp_san_finding *f, const char *c) {
  const char *p;
  if (cm_starts_with(c, "at ")) {
    if (f->kernel[0] == '\0' && f->pc[0] == '\0')
      parse_at(c + 3, f);
    return;
  }
  if (cm_starts_with(c, "by thread ")) {
    copy_paren(c, f->thread, sizeof f->thread);
    p = strstr(c, "block ");
    if (p != NULL)
      copy_paren(p, f->block, sizeof f->block);
    return;
  }
  if (cm_starts_with(c, "Saved host backtrace") ||
      cm_starts_with(c, "Host Frame") || cm_starts_with(c, "Device Frame"))
    return;
  /* memcheck: "Access to 0x7f.. is out of bounds"; initcheck:
   * "Address 0x7f.."; older releases: "Access at 0x7f.. is ...". */
  if (cm_starts_with(c, "Address ") || cm_starts_with(c, "Access at ") ||
      cm_starts_with(c, "Access to ")) {
    p = cm_starts_with(c, "Address ") ? c + 8 : c + 10;
    if (f->address[0] == '\0')
      copy_token(p, f->address, sizeof f->address);
    p = rp__skip_ws(p);
    while (*p && *p != ' ')
      p++;
    if (f->detail[0] == '\0')
      cm_strlcpy(f->detail, rp__skip_ws(p), sizeof f->detail);
    return;
  }
  if (f->cls == RP_SAN_HAZARD && cm_starts_with(c, "and ")) {
    /* "and Read access at kern+0x200 in f.cu:18 [4 hazards]" */
    const char *acc = strstr(c, " access");
    size_t n = strlen(f->kind);
    if (acc != NULL && n + (size_t)(acc - c) + 8 < sizeof f->kind) {
      f->kind[n] = ' ';
      rp__copy_n(f->kind + n + 1, sizeof f->kind - n - 1, c,
                 (size_t)(acc - c) + 7);
    }
    /* The second access's place and the hazard count are kept whole. */
    if (f->detail[0] == '\0')
      cm_strlcpy(f->detail, c, sizeof f->detail);
    return;
  }
  if (f->detail[0] == '\0')
    cm_strlcpy(f->detail, c, sizeof f->detail);
}

/* "Race reported between Write access at LOC" -> kind and location. */
static void race_heading(rp_san_finding *f, const char *r) {
  const char *between = rp__after(r, "between ");
  const char *at;
  if (between == NULL)
    return;
  at = strstr(between, " at ");
  if (at == NULL)
    return;
  cm_snprintf(f->kind, sizeof f->kind, "Race reported between %.*s",
              (int)(at - between), between);
  parse_at(at + 4, f);
}

static int64_t scan_i64_after(const char *s, const char *needle) {
  const char *p = needle ? rp__after(s, needle) : s;
  int64_t v;
  if (p == NULL || !rp__scan_count(&p, &v))
    return -1;
  return v;
}

/* A summary line whose count cannot be read must not leave the run to
 * the other summary line: keeps the first such line for the verdict. */
static void note_unreadable(rp_san_report *r, const char *b, int64_t v) {
  if (v < 0 && r->unreadable_summary[0] == '\0')
    cm_strlcpy(r->unreadable_summary, b, sizeof r->unreadable_summary);
}

static void set_tool_failed(rp_san_report *r, const char *line) {
  if (!r->tool_failed)
    cm_strlcpy(r->tool_error, line, sizeof r->tool_error);
  r->tool_failed = 1;
}

/* A heading line (no indentation after the prefix). Returns the finding it
 * opens, or NULL. */
static rp_san_finding *heading(rp_san_report *r, const char *b, int *err) {
  rp_san_finding *f;
  const char *rest;
  int warning = 0;
  if (strstr(b, "COMPUTE-SANITIZER") != NULL) {
    r->banner = 1;
    return NULL;
  }
  if (cm_starts_with(b, "ERROR SUMMARY:")) {
    /* With more errors than --print-limit, a second line follows:
     * "ERROR SUMMARY: 900 errors were not printed. ..."; it must not
     * replace the total of the first. */
    if (strstr(b, "not printed") != NULL) {
      r->errors_not_printed = scan_i64_after(b, "SUMMARY:");
      note_unreadable(r, b, r->errors_not_printed);
    } else {
      r->error_summary = scan_i64_after(b, "SUMMARY:");
      note_unreadable(r, b, r->error_summary);
    }
    return NULL;
  }
  if (cm_starts_with(b, "RACECHECK SUMMARY:")) {
    const char *paren = strchr(b, '(');
    r->hazards = scan_i64_after(b, "SUMMARY:");
    note_unreadable(r, b, r->hazards);
    if (paren != NULL) {
      r->hazard_errors = scan_i64_after(paren + 1, NULL);
      {
        /* the comma after "errors": "1,923 errors, 3 warnings" has one
         * inside its first count */
        const char *e = strstr(paren, "error");
        const char *comma = e != NULL ? strchr(e, ',') : NULL;
        if (comma != NULL)
          r->hazard_warnings = scan_i64_after(comma + 1, NULL);
      }
    }
    return NULL;
  }
  if (cm_starts_with(b, "LEAK SUMMARY:")) {
    r->leaked_bytes = scan_i64_after(b, "SUMMARY:");
    r->leak_allocs = scan_i64_after(b, " in ");
    note_unreadable(r, b, r->leaked_bytes);
    return NULL;
  }
  if (cm_starts_with(b, "Leaked ")) {
    f = add_finding(r, RP_SAN_LEAK, b, err);
    if (f != NULL) {
      int64_t n = scan_i64_after(b, "Leaked ");
      const char *at = rp__after(b, " at ");
      f->bytes = n > 0 ? (uint64_t)n : 0;
      if (at != NULL)
        copy_token(at, f->address, sizeof f->address);
    }
    return f;
  }
  if (cm_starts_with(b, "Program hit ")) {
    return add_finding(r, RP_SAN_API, b, err);
  }
  if (strstr(b, "Target application returned an error") != NULL ||
      strstr(b, "didn't terminate successfully") != NULL ||
      strstr(b, "did not terminate successfully") != NULL) {
    r->target_failed = 1;
    return NULL;
  }
  rest = b;
  if (starts_ci(b, "error:")) {
    rest = rp__skip_ws(b + 6);
  } else if (starts_ci(b, "warning:")) {
    rest = rp__skip_ws(b + 8);
    warning = 1;
  } else if (starts_ci(b, "warn:")) {
    rest = rp__skip_ws(b + 5);
    warning = 1;
  }
  if (strstr(rest, "Race reported") != NULL ||
      (strstr(rest, "hazard") != NULL && strstr(rest, "detected") != NULL)) {
    f = add_finding(r, RP_SAN_HAZARD, rest, err);
    if (f != NULL) {
      if (warning)
        cm_strlcpy(f->severity, "warning", sizeof f->severity);
      race_heading(f, rest);
    }
    return f;
  }
  if (access_heading(rest)) {
    f = add_finding(r, RP_SAN_ACCESS, rest, err);
    if (f != NULL)
      f->bytes = size_in(rest);
    return f;
  }
  if (cm_starts_with(rest, "Barrier error"))
    return add_finding(r, RP_SAN_BARRIER, rest, err);
  if (tool_failure_line(rest) || (rest != b && !warning)) {
    /* "Error: <anything we do not know>" from the tool itself. */
    set_tool_failed(r, b);
    return NULL;
  }
  if (strstr(rest, "Exception") != NULL || strstr(rest, "Illegal") != NULL ||
      strstr(rest, "exception") != NULL)
    return add_finding(r, RP_SAN_OTHER, rest, err);
  return NULL;
}

int rp_san_parse(const char *text, size_t len, rp_san_report *out) {
  rp__lines it;
  char line[RP__LINE_MAX];
  rp_san_finding *cur = NULL;
  int err = CM_OK;
  memset(out, 0, sizeof *out);
  out->error_summary = -1;
  out->errors_not_printed = -1;
  out->hazards = out->hazard_errors = out->hazard_warnings = -1;
  out->leaked_bytes = out->leak_allocs = -1;
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, line, sizeof line)) {
    const char *b = rp__san_body(rp__rtrim(line));
    if (b == NULL)
      continue; /* the target's own output */
    if (*b == '\0')
      continue; /* "=========" alone separates reports */
    if (*b == ' ' || *b == '\t') {
      if (cur != NULL)
        detail_line(cur, rp__skip_ws(b));
      continue;
    }
    cur = heading(out, b, &err);
    if (err)
      return err;
    /* A finding pointer stays valid until the next add_finding, which only
     * happens at the next heading, after cur was replaced. */
  }
  /* errors counted under headings this parser does not know: said as a
   * finding, so that no report reads "no finding" beside a failed step */
  if (out->error_summary > 0 && out->findings_total == 0 &&
      add_finding(out, RP_SAN_OTHER,
                  "errors counted by the sanitizer's ERROR SUMMARY under a "
                  "heading this parser does not know (see its log)",
                  &err) == NULL &&
      err)
    return err;
  return CM_OK;
}

void rp_san_report_free(rp_san_report *r) {
  free(r->items);
  r->items = NULL;
  r->count = r->cap = 0;
}

static void set_str(json_t *o, const char *key, const char *v) {
  if (v != NULL && v[0] != '\0')
    json_object_set_new(o, key, cm_json_text(v));
}

json_t *rp_san_findings_json(const rp_san_report *r) {
  json_t *arr = json_array();
  size_t i;
  if (arr == NULL)
    return NULL;
  for (i = 0; i < r->count; i++) {
    const rp_san_finding *f = &r->items[i];
    json_t *o = json_object();
    if (o == NULL) {
      json_decref(arr);
      return NULL;
    }
    json_object_set_new(o, "class", cm_json_text(rp_san_class_name(f->cls)));
    set_str(o, "kind", f->kind);
    set_str(o, "severity", f->severity);
    set_str(o, "kernel", f->kernel);
    set_str(o, "location", f->location);
    set_str(o, "pc", f->pc);
    set_str(o, "thread", f->thread);
    set_str(o, "block", f->block);
    set_str(o, "address", f->address);
    set_str(o, "detail", f->detail);
    if (f->bytes > 0)
      json_object_set_new(o, "bytes",
                          json_integer(f->bytes > (uint64_t)INT64_MAX
                                           ? (json_int_t)INT64_MAX
                                           : (json_int_t)f->bytes));
    json_array_append_new(arr, o);
  }
  return arr;
}

json_t *rp_san_report_json(const rp_san_report *r) {
  json_t *o = json_object();
  json_t *f;
  if (o == NULL)
    return NULL;
  {
    static const char *const keys[] = {
        "error_summary",   "errors_not_printed", "hazards",    "hazard_errors",
        "hazard_warnings", "leaked_bytes",       "leak_allocs"};
    const int64_t vals[] = {r->error_summary,   r->errors_not_printed,
                            r->hazards,         r->hazard_errors,
                            r->hazard_warnings, r->leaked_bytes,
                            r->leak_allocs};
    rp__json_set_counts(o, keys, vals, sizeof vals / sizeof vals[0]);
  }
  json_object_set_new(o, "tool_failed", json_boolean(r->tool_failed));
  if (r->tool_failed)
    json_object_set_new(o, "tool_error", cm_json_text(r->tool_error));
  if (r->unreadable_summary[0] != '\0')
    json_object_set_new(o, "unreadable_summary",
                        cm_json_text(r->unreadable_summary));
  json_object_set_new(o, "target_failed", json_boolean(r->target_failed));
  json_object_set_new(o, "findings_total",
                      json_integer((json_int_t)r->findings_total));
  f = rp_san_findings_json(r);
  if (f == NULL) {
    json_decref(o);
    return NULL;
  }
  json_object_set_new(o, "findings", f);
  return o;
}

void rp_san_finding_line(const rp_san_finding *f, char *buf, size_t size) {
  char where[640] = "";
  char who[160] = "";
  if (f->location[0])
    cm_snprintf(where, sizeof where, " at %s", f->location);
  else if (f->pc[0])
    cm_snprintf(where, sizeof where, " at %s", f->pc);
  if (f->thread[0] || f->address[0])
    cm_snprintf(who, sizeof who, " (%s%s%s%s%s%s)",
                f->thread[0] ? "thread " : "", f->thread,
                f->block[0] ? " block " : "", f->block,
                f->address[0] ? (f->thread[0] ? ", address " : "address ") : "",
                f->address);
  /* Truncation is fine: this is a one-line summary for humans. */
  (void)cm_snprintf(buf, size, "%s%s%s%s%s", f->kind,
                    f->kernel[0] ? " in " : "", f->kernel, where, who);
}

int rp_san_verdict_clean(const rp_san_report *r, int exit_code,
                         int error_exitcode, char *why, size_t size) {
  char first[1024];
  if (r->tool_failed) {
    cm_snprintf(why, size,
                "the sanitizer itself failed, so this run proves "
                "nothing: %s",
                r->tool_error);
    return 0;
  }
  if (r->count > 0) {
    rp_san_finding_line(&r->items[0], first, sizeof first);
    cm_snprintf(why, size, "%zu finding(s); first: %s", r->findings_total,
                first);
    return 0;
  }
  if (r->unreadable_summary[0] != '\0') {
    cm_snprintf(why, size,
                "a summary line without a count this parser can read, "
                "so the run is not known to be clean: \"%s\"",
                r->unreadable_summary);
    return 0;
  }
  /* racecheck ends with its RACECHECK SUMMARY instead of an ERROR
   * SUMMARY; either line shows that the tool ran to its end. */
  if (r->error_summary < 0 && r->hazards < 0) {
    cm_snprintf(why, size,
                "no ERROR SUMMARY (or RACECHECK SUMMARY) line: "
                "the sanitizer did not finish (exit %d)",
                exit_code);
    return 0;
  }
  if (r->error_summary > 0) {
    cm_snprintf(why, size, "ERROR SUMMARY: %lld error(s)",
                (long long)r->error_summary);
    return 0;
  }
  if (r->hazards > 0) {
    cm_snprintf(why, size, "RACECHECK SUMMARY: %lld hazard(s)",
                (long long)r->hazards);
    return 0;
  }
  if (r->leaked_bytes > 0) {
    cm_snprintf(why, size, "LEAK SUMMARY: %lld byte(s) leaked",
                (long long)r->leaked_bytes);
    return 0;
  }
  if (exit_code == error_exitcode) {
    cm_snprintf(why, size,
                "the sanitizer exited %d (its error exit code) "
                "although no finding was parsed",
                exit_code);
    return 0;
  }
  if (exit_code != 0 || r->target_failed) {
    cm_snprintf(why, size,
                "the target failed under the sanitizer "
                "(exit %d)",
                exit_code);
    return 0;
  }
  cm_snprintf(why, size, "clean: 0 errors");
  return 1;
}

int rp_san_verdict_negative(const rp_san_report *r, int exit_code,
                            int error_exitcode, char *why, size_t size) {
  size_t i;
  char line[1024];
  if (r->tool_failed) {
    cm_snprintf(why, size, "the sanitizer is not working: %s", r->tool_error);
    return 0;
  }
  for (i = 0; i < r->count; i++) {
    if (r->items[i].cls == RP_SAN_ACCESS &&
        cm_starts_with(r->items[i].kind, "Invalid __global__ write"))
      break;
  }
  if (i == r->count) {
    if (r->count > 0) {
      rp_san_finding_line(&r->items[0], line, sizeof line);
      cm_snprintf(why, size,
                  "the sanitizer is not working: no \"Invalid "
                  "__global__ write\" reported (exit %d); first finding: %s",
                  exit_code, line);
    } else {
      cm_snprintf(why, size,
                  "the sanitizer is not working: no \"Invalid "
                  "__global__ write\" reported (exit %d, ERROR SUMMARY %lld)",
                  exit_code, (long long)r->error_summary);
    }
    return 0;
  }
  rp_san_finding_line(&r->items[i], line, sizeof line);
  if (exit_code != error_exitcode) {
    cm_snprintf(why, size,
                "the sanitizer is not working: it reported %s "
                "but exited %d, not its error exit code %d",
                line, exit_code, error_exitcode);
    return 0;
  }
  cm_snprintf(why, size, "caught: %s", line);
  return 1;
}
