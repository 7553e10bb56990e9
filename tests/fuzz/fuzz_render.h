/* fuzz_render.h: a run rendered the four ways `repro report` writes it
 * (markdown, HTML with its charts, JUnit, SARIF), for fuzz_results and
 * fuzz_run. What is tested is that any run the model can hold renders
 * without fault, as UTF-8, and as markdown, HTML and JUnit XML whose
 * every string from the run went through the escaper. */
#ifndef CP_FUZZ_RENDER_H
#define CP_FUZZ_RENDER_H

#include "cm_error.h"
#include "cm_utf8.h"
#include "rp_report.h"

#include <stdlib.h>
#include <string.h>

/* A rendering is UTF-8 (all four say so), whatever the strings in the
 * run were: no character cut in half by a fixed-size field, no stray byte
 * passed through. */
static inline int fuzz_utf8(const char *s) {
  size_t n = strlen(s), i = 0;
  while (i < n) {
    size_t k = cm_utf8_seq((const unsigned char *)s + i, n - i);
    if (k == 0)
      return 0;
    i += k;
  }
  return 1;
}

/* 1 if s starts with one of the names of list followed by a character
 * that ends a name; *len gets the name's length. */
static inline int fuzz_name_among(const char *s, const char *const *list,
                                  size_t *len) {
  size_t i;
  for (i = 0; list[i] != NULL; i++) {
    size_t n = strlen(list[i]);
    char c = s[n];
    if (strncmp(s, list[i], n) == 0 &&
        (c == ' ' || c == '>' || c == '/' || c == '=' || c == '\n')) {
      *len = n;
      return 1;
    }
  }
  return 0;
}

/* Markup whose text and attribute values all went through the escaper:
 * every tag is one the renderer writes (tags), with only the attributes
 * it writes (attrs), each value quoted and free of '<', '>' and '"';
 * every '&' starts an entity; no control character XML 1.0 forbids; the
 * contents of <style> and <script>, the renderer's own constants, are
 * skipped. A manifest's string that reached the page unescaped (a stage
 * named "<img onerror=...>", a status ending a class attribute) breaks
 * one of these. */
static inline int fuzz_markup_ok(const char *s, const char *const *tags,
                                 const char *const *attrs) {
  const char *p = s;
  while (*p) {
    unsigned char c = (unsigned char)*p;
    size_t n;
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
      return 0;
    if (c == '&') {
      if (strncmp(p, "&amp;", 5) != 0 && strncmp(p, "&lt;", 4) != 0 &&
          strncmp(p, "&gt;", 4) != 0 && strncmp(p, "&quot;", 6) != 0 &&
          strncmp(p, "&#39;", 5) != 0)
        return 0;
      p++;
      continue;
    }
    if (c != '<') {
      p++;
      continue;
    }
    if (strncmp(p, "<?xml ", 6) == 0 ||
        strncmp(p, "<!DOCTYPE html>", 15) == 0) {
      p = strchr(p, '>');
      if (p == NULL)
        return 0;
      if (p[-1] == '?' || p[-1] == 'l')
        p++;
      else
        return 0;
      continue;
    }
    if (strncmp(p, "<style>", 7) == 0 || strncmp(p, "<script>", 8) == 0) {
      const char *end = strstr(p, p[2] == 't' ? "</style>" : "</script>");
      if (end == NULL)
        return 0;
      p = end + (p[2] == 't' ? 8 : 9);
      continue;
    }
    p++;
    if (*p == '/')
      p++;
    if (!fuzz_name_among(p, tags, &n))
      return 0;
    p += n;
    for (;;) {
      while (*p == ' ' || *p == '\n')
        p++;
      if (*p == '>' || (p[0] == '/' && p[1] == '>')) {
        p += *p == '>' ? 1 : 2;
        break;
      }
      if (!fuzz_name_among(p, attrs, &n) || p[n] != '=' || p[n + 1] != '"')
        return 0;
      p += n + 2;
      while (*p && *p != '"') {
        if (*p == '<' || *p == '>')
          return 0;
        p++;
      }
      if (*p != '"')
        return 0;
      p++;
    }
  }
  return 1;
}

static const char *const fuzz_html_tags[] = {
    "html",    "head",    "meta", "title", "body", "h1",    "h2", "h3", "p",
    "ul",      "li",      "b",    "code",  "span", "table", "tr", "th", "td",
    "details", "summary", "svg",  "rect",  "line", "text",  NULL};
static const char *const fuzz_html_attrs[] = {
    "lang",        "charset", "class",  "colspan",      "data-chart",
    "xmlns",       "width",   "height", "viewBox",      "role",
    "x",           "y",       "x1",     "y1",           "x2",
    "y2",          "fill",    "stroke", "stroke-width", "stroke-dasharray",
    "text-anchor", NULL};
static const char *const fuzz_junit_tags[] = {
    "testsuites", "testsuite", "testcase", "failure", "skipped", NULL};
static const char *const fuzz_junit_attrs[] = {
    "name", "tests",     "failures", "errors",  "skipped",
    "time", "classname", "type",     "message", NULL};

/* Markdown whose strings from the run went through its escaper: each
 * heading is one the renderer writes, each table row has as many cell
 * bars ('|' not escaped by a backslash, which itself may be escaped) as
 * its table's header, and no line has inline markup the renderer did not
 * write (a bare < > [ ] & ~, a bare '_' but between two letters or digits,
 * a '*' that is not one of its '**' pairs, an odd backtick). A stage reason
 * with a line break and
 * "| profile | **passed** |" in it would otherwise add a row the manifest
 * does not have; a stage named "<img src=x onerror=...>" would be raw HTML
 * to a Markdown viewer. */
static inline int fuzz_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

static inline int fuzz_md_ok(const char *s) {
  static const char *const heads[] = {"# Audit report: run ",
                                      "## Binding to the archive\n",
                                      "## Environment\n",
                                      "## Limitations\n",
                                      "## Resource usage (inspect)\n",
                                      "## Sanitizer results\n",
                                      "## Stages\n",
                                      "## Timing results (clean)\n",
                                      "## Verification control\n",
                                      "### Stage ",
                                      NULL};
  const char *line = s;
  long header = -1; /* bars of the current table's header; -1 outside */
  int heads_seen = 0;
  while (*line) {
    const char *eol = strchr(line, '\n'), *p;
    size_t len = eol != NULL ? (size_t)(eol - line) : strlen(line);
    if (line[0] == '#') {
      size_t i;
      for (i = 0; heads[i] != NULL; i++)
        if (strncmp(line, heads[i], strlen(heads[i])) == 0)
          break;
      if (heads[i] == NULL || (i == 0 && heads_seen++ > 0))
        return 0;
    }
    {
      /* Inline markup only the renderer's own: no bare character that
       * starts raw HTML, an entity, a link or other emphasis, '**' pairs
       * and code spans whole. */
      size_t stars = 0, ticks = 0;
      for (p = line; p < line + len; p++) {
        if (*p == '\\' && p + 1 < line + len)
          p++;
        else if (*p == '_' && p > line && fuzz_alnum(p[-1]) && fuzz_alnum(p[1]))
          continue; /* inside a word: no emphasis */
        else if (strchr("<>[]&~_", *p) != NULL)
          return 0;
        else if (*p == '*')
          stars++;
        else if (*p == '`')
          ticks++;
      }
      if (stars % 4 != 0 || ticks % 2 != 0)
        return 0;
    }
    if (line[0] == '|') {
      long bars = 0;
      for (p = line; p < line + len; p++) {
        if (*p == '\\' && p + 1 < line + len)
          p++; /* a backslash escapes the character after it */
        else if (*p == '|')
          bars++;
      }
      if (header < 0)
        header = bars;
      else if (bars != header)
        return 0;
    } else {
      header = -1;
    }
    if (eol == NULL)
      break;
    line = eol + 1;
  }
  return 1;
}

static inline void fuzz_render(const rp_run *run) {
  char *out = NULL;
  int ncharts = 0;
  if (rp_report_markdown(run, &out) == CM_OK) {
    FUZZ_CHECK(fuzz_utf8(out));
    FUZZ_CHECK(fuzz_md_ok(out));
    free(out);
  }
  out = NULL;
  if (rp_report_html(run, &out, &ncharts) == CM_OK) {
    FUZZ_CHECK(fuzz_utf8(out));
    FUZZ_CHECK(fuzz_markup_ok(out, fuzz_html_tags, fuzz_html_attrs));
    free(out);
  }
  out = NULL;
  if (rp_report_junit(run, &out) == CM_OK) {
    FUZZ_CHECK(fuzz_utf8(out));
    FUZZ_CHECK(fuzz_markup_ok(out, fuzz_junit_tags, fuzz_junit_attrs));
    free(out);
  }
  out = NULL;
  if (rp_report_sarif(run, &out) == CM_OK) {
    FUZZ_CHECK(fuzz_utf8(out));
    free(out);
  }
}

#endif
