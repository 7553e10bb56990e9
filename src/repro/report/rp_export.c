/* rp_export.c: JUnit XML of stages and cases, SARIF 2.1.0 of sanitizer
 * findings, for CI systems that read those formats. */
#include "rp_report.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_report_common.h"
#include "rp_sb.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void attr(rp__sb *b, const char *name, const char *v) {
  rp__sb_printf(b, " %s=\"", name);
  rp__sb_xml(b, v);
  rp__sb_add(b, "\"");
}

int rp_report_junit(const rp_run *run, char **out) {
  const rp_results *r = rp__main_results(run);
  rp__sb b;
  size_t i, sf = 0, ss = 0, cf = 0, cs = 0, nc = r ? r->ncases : 0;
  double total = 0;
  for (i = 0; i < run->nstages; i++) {
    const char *s = run->stages[i].status;
    int skip = strcmp(s, "skipped") == 0 || strcmp(s, "limited") == 0;
    ss += skip;
    sf += !skip && strcmp(s, "passed") != 0;
    if (isfinite(run->stages[i].duration_s))
      total += run->stages[i].duration_s;
  }
  for (i = 0; i < nc; i++) {
    cf += r->cases[i].passed == 0;
    cs += r->cases[i].passed < 0;
  }
  rp__sb_init(&b);
  rp__sb_add(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
  attr(&b, "name", run->run_id[0] ? run->run_id : "repro");
  rp__sb_printf(&b, " tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
                run->nstages + nc, sf + cf, ss + cs);
  rp__sb_printf(&b,
                "  <testsuite name=\"stages\" tests=\"%zu\" failures=\"%zu\" "
                "errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
                run->nstages, sf, ss, total);
  for (i = 0; i < run->nstages; i++) {
    const rp_stage *s = &run->stages[i];
    rp__sb_add(&b, "    <testcase classname=\"repro.stages\"");
    attr(&b, "name", s->name);
    rp__sb_printf(&b, " time=\"%.3f\"",
                  isfinite(s->duration_s) ? s->duration_s : 0.0);
    if (strcmp(s->status, "passed") == 0) {
      rp__sb_add(&b, "/>\n");
      continue;
    }
    rp__sb_add(&b, ">\n      <");
    if (strcmp(s->status, "skipped") == 0 || strcmp(s->status, "limited") == 0)
      rp__sb_add(&b, "skipped");
    else
      rp__sb_add(&b, "failure type=\"stage\"");
    {
      char m[600];
      cm_snprintf(m, sizeof m, "%s: %s", s->status[0] ? s->status : "no status",
                  s->reason);
      attr(&b, "message", m);
    }
    rp__sb_add(&b, "/>\n    </testcase>\n");
  }
  rp__sb_add(&b, "  </testsuite>\n");
  rp__sb_printf(&b,
                "  <testsuite name=\"cases\" tests=\"%zu\" failures=\"%zu\" "
                "errors=\"0\" skipped=\"%zu\">\n",
                nc, cf, cs);
  for (i = 0; i < nc; i++) {
    const rp_case *c = &r->cases[i];
    char l[256], m[256];
    rp__case_label(c, l, sizeof l);
    rp__sb_add(&b, "    <testcase");
    cm_snprintf(m, sizeof m, "cuda_portfolio.%s", c->op);
    attr(&b, "classname", m);
    attr(&b, "name", l);
    rp__sb_printf(&b, " time=\"%.9f\"",
                  isfinite(c->median_s) ? c->median_s : 0.0);
    if (c->passed == 1) {
      rp__sb_add(&b, "/>\n");
      continue;
    }
    if (c->passed < 0) {
      rp__sb_add(&b, ">\n      <skipped message=\"correctness not recorded"
                     "\"/>\n    </testcase>\n");
      continue;
    }
    cm_snprintf(m, sizeof m,
                "verification failed: max_abs_err %.3g, max_rel_err %.3g "
                "(rtol %.3g, atol %.3g)",
                c->max_abs_err, c->max_rel_err, c->rtol, c->atol);
    rp__sb_add(&b, ">\n      <failure type=\"verification\"");
    attr(&b, "message", m);
    rp__sb_add(&b, "/>\n    </testcase>\n");
  }
  rp__sb_add(&b, "  </testsuite>\n</testsuites>\n");
  *out = rp__sb_take(&b);
  return *out != NULL ? CM_OK : CM_ENOMEM;
}

/* "file.cu:42" -> uri "file.cu", line 42; no line -> 0. */
static json_t *location_json(const char *loc) {
  char file[256];
  const char *colon = strrchr(loc, ':');
  int64_t line = 0;
  json_t *phys = json_object(), *l = json_object(), *art = json_object();
  cm_strlcpy(file, loc, sizeof file);
  if (colon != NULL && cm_parse_i64(colon + 1, &line) == CM_OK && line > 0)
    file[colon - loc] = '\0';
  else
    line = 0;
  json_object_set_new(art, "uri", cm_json_text(file));
  json_object_set_new(phys, "artifactLocation", art);
  if (line > 0) {
    json_t *reg = json_object();
    json_object_set_new(reg, "startLine", json_integer(line));
    json_object_set_new(phys, "region", reg);
  }
  json_object_set_new(l, "physicalLocation", phys);
  return l;
}

static json_t *result_json(const rp_finding *f) {
  json_t *o = json_object(), *msg = json_object(), *props = json_object();
  char text[800];
  cm_snprintf(text, sizeof text, "%s%s%s%s%s", f->kind,
              f->kernel[0] ? " in " : "", f->kernel, f->detail[0] ? ": " : "",
              f->detail);
  json_object_set_new(o, "ruleId", cm_json_text(f->cls[0] ? f->cls : "other"));
  json_object_set_new(
      o, "level",
      cm_json_text(strcmp(f->severity, "warning") == 0 ? "warning" : "error"));
  json_object_set_new(msg, "text", cm_json_text(text));
  json_object_set_new(o, "message", msg);
  if (f->location[0]) {
    json_t *locs = json_array();
    json_array_append_new(locs, location_json(f->location));
    json_object_set_new(o, "locations", locs);
  }
  if (f->negative_control) {
    /* An expected finding: CI must not fail on it, but it must be seen. */
    json_t *sup = json_array(), *s = json_object();
    json_object_set_new(s, "kind", cm_json_text("inSource"));
    json_object_set_new(s, "justification",
                        cm_json_text("negative control: this finding is "
                                     "required to prove the sanitizer works"));
    json_array_append_new(sup, s);
    json_object_set_new(o, "suppressions", sup);
  }
  json_object_set_new(props, "negative_control",
                      json_boolean(f->negative_control));
  json_object_set_new(props, "kernel", cm_json_text(f->kernel));
  json_object_set_new(o, "properties", props);
  return o;
}

static json_t *sarif_run(const char *tool) {
  json_t *run = json_object(), *t = json_object(), *drv = json_object();
  char name[64];
  cm_snprintf(name, sizeof name, "compute-sanitizer%s%s", tool[0] ? " " : "",
              tool);
  json_object_set_new(drv, "name", cm_json_text(name));
  json_object_set_new(t, "driver", drv);
  json_object_set_new(run, "tool", t);
  json_object_set_new(run, "results", json_array());
  return run;
}

int rp_report_sarif(const rp_run *run, char **out) {
  json_t *doc = json_object(), *runs = json_array();
  size_t i, j;
  *out = NULL;
  if (doc == NULL || runs == NULL) {
    json_decref(doc);
    json_decref(runs);
    return CM_ENOMEM;
  }
  json_object_set_new(doc, "version", cm_json_text("2.1.0"));
  for (i = 0; i < run->nfindings; i++) {
    const rp_finding *f = &run->findings[i];
    json_t *target = NULL;
    for (j = 0; j < json_array_size(runs) && target == NULL; j++) {
      json_t *r = json_array_get(runs, j);
      const char *n = json_string_value(json_object_get(
          json_object_get(json_object_get(r, "tool"), "driver"), "name"));
      char want[64];
      cm_snprintf(want, sizeof want, "compute-sanitizer%s%s",
                  f->tool[0] ? " " : "", f->tool);
      if (n != NULL && strcmp(n, want) == 0)
        target = r;
    }
    if (target == NULL) {
      target = sarif_run(f->tool);
      json_array_append_new(runs, target);
    }
    json_array_append_new(json_object_get(target, "results"), result_json(f));
  }
  if (json_array_size(runs) == 0)
    json_array_append_new(runs, sarif_run(""));
  json_object_set_new(doc, "runs", runs);
  *out = cm_json_dumps(doc, JSON_INDENT(2));
  json_decref(doc);
  return *out != NULL ? CM_OK : CM_ENOMEM;
}
