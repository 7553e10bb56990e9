/* rp_report_html.c: report.html, one self-contained page: inline CSS,
 * inline SVG charts, each followed by its table, and a small inline script
 * that checks every chart drew (no library, no network). */
#include "rp_report.h"

#include "cm_error.h"
#include "cm_str.h"
#include "rp_report_common.h"
#include "rp_sb.h"
#include "rp_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
    "body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:1300px}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
    "vertical-align:top}th{background:#eee}td.n{text-align:right}"
    ".passed,.pass,.caught{color:#2a7a3a;font-weight:bold}"
    ".failed,.fail,.notcaught{color:#b02020;font-weight:bold}"
    ".skipped,.limited,.warn{color:#a06000;font-weight:bold}"
    "svg.chart{display:block;margin:8px 0}svg text{font:11px sans-serif}"
    "code{font-size:12px}details{margin:4px 0 12px}";

/* The self-check: a chart counts as drawn when it has a data mark with a
 * non-empty box. The test reads the title through --dump-dom. */
static const char script[] =
    "(function(){var c=document.querySelectorAll('svg.chart'),ok=0,bad=[];"
    "for(var i=0;i<c.length;i++){var m=c[i].querySelectorAll('.mark'),d=0;"
    "for(var j=0;j<m.length;j++){var r=m[j].getBBox();"
    "if(r.width>0||r.height>0)d++;}"
    "if(d>0)ok++;else bad.push(c[i].getAttribute('data-chart'));}"
    "document.title=bad.length?'charts-bad:'+bad.join(','):'charts-ok:'+ok;"
    "})();";

static void td(rp__sb *b, const char *cls, const char *text) {
  if (cls != NULL) {
    rp__sb_add(b, "<td class=\"");
    rp__sb_xml(b, cls);
    rp__sb_add(b, "\">");
  } else
    rp__sb_add(b, "<td>");
  rp__sb_xml(b, text);
  rp__sb_add(b, "</td>");
}

static void h_env(rp__sb *b, const rp_run *run) {
  rp__kv rows[RP__ENV_ROWS];
  size_t n = rp__env_rows(run, rows), i;
  rp__sb_add(b, "<h2>Environment</h2>\n<table>\n");
  for (i = 0; i < n; i++) {
    rp__sb_printf(b, "<tr><th>%s</th>", rows[i].key);
    td(b, NULL, rows[i].value[0] ? rows[i].value : "unknown");
    rp__sb_add(b, "</tr>\n");
  }
  rp__sb_add(b, "</table>\n");
}

static void h_binding(rp__sb *b, const rp_run *run) {
  size_t i;
  rp__sb_add(b, "<h2>Binding to the archive</h2>\n<p>");
  if (run->have_manifest)
    rp__sb_printf(b,
                  "Generated from manifest.json with SHA-256 <code>%s</code> "
                  "(the manifest before this report was added; the "
                  "re-finished manifest lists this page's own SHA-256).",
                  run->manifest_sha256);
  else
    rp__sb_add(b, "This run folder has no manifest.json: the report is not "
                  "bound to an archive.");
  rp__sb_add(b, "</p>\n<ul>\n");
  for (i = 0; i < run->nclean + run->ninstrumented; i++) {
    const rp_results *r =
        i < run->nclean ? &run->clean[i] : &run->instrumented[i - run->nclean];
    rp__sb_printf(b, "<li>%s results <code>",
                  i < run->nclean ? "clean" : "instrumented");
    rp__sb_xml(b, rp__relpath(run, r->path));
    rp__sb_printf(b, "</code>: SHA-256 <code>%s</code></li>\n", r->sha256);
  }
  rp__sb_add(b, "</ul>\n");
}

static void h_items(rp__sb *b, const char *what, const rp_item *it, size_t n) {
  size_t j;
  for (j = 0; j < n; j++) {
    rp__sb_printf(b, "<tr><td>%s</td>", what);
    td(b, NULL, it[j].name);
    td(b, it[j].status, it[j].status);
    td(b, NULL, it[j].detail);
    rp__sb_add(b, "</tr>\n");
  }
}

static void h_stages(rp__sb *b, const rp_run *run, int *ncharts) {
  const char **labels, **status;
  double *st, *du;
  size_t i, n = run->nstages;
  rp__sb_add(b, "<h2>Stages</h2>\n");
  if (n == 0) {
    rp__sb_add(b, "<p>No stage is recorded in this run.</p>\n");
    return;
  }
  labels = calloc(n, sizeof *labels);
  status = calloc(n, sizeof *status);
  st = calloc(n, sizeof *st);
  du = calloc(n, sizeof *du);
  if (labels && status && st && du) {
    for (i = 0; i < n; i++) {
      labels[i] = run->stages[i].name;
      status[i] = run->stages[i].status;
      st[i] = run->stages[i].start_s;
      du[i] = run->stages[i].duration_s;
    }
    rp__sb_add(b, "<h3>Stage timeline</h3>\n");
    rp__svg_gantt(b, "timeline", labels, status, st, du, n);
    (*ncharts)++;
  }
  free(labels);
  free(status);
  free(st);
  free(du);
  rp__sb_add(b, "<table><tr><th>stage</th><th>status</th><th>start s</th>"
                "<th>duration s</th><th>exit</th><th>reason</th></tr>\n");
  for (i = 0; i < n; i++) {
    const rp_stage *s = &run->stages[i];
    char a[32], d[32], e[32 + sizeof s->exit_note] = "";
    if (s->exit_code >= 0)
      rp__fmt(e, sizeof e, 0, (double)s->exit_code);
    if (s->exit_code >= 0 && s->exit_note[0]) {
      size_t k = strlen(e);
      cm_snprintf(e + k, sizeof e - k, " (%s)", s->exit_note);
    }
    rp__sb_add(b, "<tr>");
    td(b, NULL, s->name);
    td(b, s->status, s->status[0] ? s->status : "unknown");
    td(b, "n", rp__fmt(a, sizeof a, 1, s->start_s));
    td(b, "n", rp__fmt(d, sizeof d, 2, s->duration_s));
    td(b, "n", e);
    td(b, NULL, s->reason);
    rp__sb_add(b, "</tr>\n");
  }
  rp__sb_add(b, "</table>\n");
  for (i = 0; i < n; i++) {
    const rp_stage *s = &run->stages[i];
    if (s->nchecks == 0 && s->nsteps == 0)
      continue;
    rp__sb_add(b, "<details><summary>stage ");
    rp__sb_xml(b, s->name);
    rp__sb_printf(b, ": %zu checks, %zu steps</summary>\n<table>", s->nchecks,
                  s->nsteps);
    h_items(b, "check", s->checks, s->nchecks);
    h_items(b, "step", s->steps, s->nsteps);
    rp__sb_add(b, "</table></details>\n");
  }
}

static void h_verify_control(rp__sb *b, const rp_run *run) {
  char vc[256];
  int r = rp__verify_control(run, vc, sizeof vc);
  rp__sb_add(b, "<h2>Verification control</h2>\n<p>");
  rp__sb_xml(b, RP__VERIFY_CONTROL_WHAT);
  rp__sb_printf(b, ": <span class=\"%s\">",
                r == 1   ? "caught"
                : r == 0 ? "notcaught"
                         : "warn");
  rp__sb_xml(b, vc);
  rp__sb_add(b, "</span>.</p>\n");
}

static void h_sanitizer(rp__sb *b, const rp_run *run) {
  char nc[600];
  size_t i;
  int caught = rp__negative_control(run, nc, sizeof nc);
  rp__sb_printf(b,
                "<h2>Sanitizer results</h2>\n<p>Negative control "
                "(memcheck on a kernel that writes out of bounds on "
                "purpose): <span class=\"%s\">",
                caught == 1   ? "caught"
                : caught == 0 ? "notcaught"
                              : "warn");
  rp__sb_xml(b, nc);
  rp__sb_add(b, "</span></p>\n");
  if (run->nfindings == 0) {
    rp__sb_add(b, "<p>No sanitizer finding is recorded.</p>\n");
    return;
  }
  rp__sb_add(b, "<table><tr><th>tool</th><th>control</th><th>class</th>"
                "<th>finding</th><th>kernel</th><th>location</th></tr>\n");
  for (i = 0; i < run->nfindings; i++) {
    const rp_finding *f = &run->findings[i];
    size_t more = rp__findings_elided(run, i);
    if (more > 0) {
      rp__sb_add(b, "<tr><td>");
      rp__sb_xml(b, f->tool);
      rp__sb_printf(b,
                    "</td><td colspan=\"5\">... and %zu more "
                    "findings of this step (all in its log)</td></tr>\n",
                    more);
      i += more - 1;
      continue;
    }
    rp__sb_add(b, "<tr>");
    td(b, NULL, f->tool);
    td(b, NULL, f->negative_control ? "negative control" : "");
    td(b, NULL, f->cls);
    td(b, NULL, f->kind);
    td(b, NULL, f->kernel);
    td(b, NULL, f->location);
    rp__sb_add(b, "</tr>\n");
  }
  rp__sb_add(b, "</table>\n");
}

static void h_limit(void *ud, const rp__limit *l) {
  rp__sb *b = ud;
  if (l->stage == NULL) {
    rp__sb_add(b, "<li>results warning: ");
  } else {
    rp__sb_add(b, l->check == NULL ? "<li>stage " : "<li>");
    rp__sb_xml(b, l->stage);
    if (l->check != NULL) {
      rp__sb_add(b, " check ");
      rp__sb_xml(b, l->check);
    }
    /* a stage's own status names its class; a check's is a warning */
    rp__sb_add(b, " <span class=\"");
    rp__sb_xml(b, l->check == NULL ? l->status : "warn");
    rp__sb_add(b, "\">");
    rp__sb_xml(b, l->status);
    rp__sb_add(b, "</span>: ");
  }
  rp__sb_xml(b, l->text);
  rp__sb_add(b, "</li>\n");
}

static void h_limitations(rp__sb *b, const rp_run *run) {
  rp__sb_add(b, "<h2>Limitations</h2>\n<ul>\n");
  if (rp__each_limit(run, h_limit, b) == 0)
    rp__sb_add(b, "<li>None recorded.</li>\n");
  rp__sb_add(b, "</ul>\n");
}

static void h_resources(rp__sb *b, const rp_run *run) {
  size_t i;
  rp__sb_add(b, "<h2>Resource usage (inspect)</h2>\n");
  if (run->nresources == 0) {
    char why[700];
    rp__no_resources(run, why, sizeof why);
    rp__sb_add(b, "<p>");
    rp__sb_xml(b, why);
    rp__sb_add(b, "</p>\n");
    return;
  }
  rp__sb_add(b, "<table><tr><th>kernel</th><th>arch</th><th>registers</th>"
                "<th>stack B</th><th>spill stores B</th><th>spill loads B"
                "</th><th>shared B</th><th>local B</th></tr>\n");
  for (i = 0; i < run->nresources; i++) {
    const rp_res_row *k = &run->resources[i];
    rp__sb_add(b, "<tr>");
    td(b, k->spills ? "failed" : NULL, k->kernel);
    td(b, NULL, k->arch);
    rp__sb_printf(b,
                  "<td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                  "<td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                  "<td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                  "</tr>\n",
                  (long long)k->registers, (long long)k->stack,
                  (long long)k->spill_stores, (long long)k->spill_loads,
                  (long long)k->shared, (long long)k->local);
  }
  rp__sb_add(b, "</table>\n");
}

/* Charts of the timing section: bandwidth vs ceiling, TFLOP/s vs peer,
 * box plots. Labels point into lab[] (n * 256 bytes). */
static void h_charts(rp__sb *b, const rp_results *r, int *ncharts) {
  size_t n = r->ncases, i, nm = 0, nc = 0, nb = 0;
  char(*lab)[256] = calloc(n + 1, sizeof *lab);
  const char **ml = calloc(n + 1, sizeof *ml), **cl = calloc(n + 1, sizeof *cl);
  const char **bl = calloc(n + 1, sizeof *bl);
  double *mv = calloc(n + 1, sizeof *mv), *ca = calloc(n + 1, sizeof *ca);
  double *cr = calloc(n + 1, sizeof *cr);
  rp_five *bx = calloc(n + 1, sizeof *bx);
  if (!lab || !ml || !cl || !bl || !mv || !ca || !cr || !bx)
    goto done;
  for (i = 0; i < n; i++) {
    const rp_case *c = &r->cases[i];
    rp__case_label(c, lab[i], sizeof lab[i]);
    if (c->memory_bound && isfinite(c->gbps)) {
      ml[nm] = lab[i];
      mv[nm++] = c->gbps;
    }
    if (c->flops > 0 && isfinite(c->tflops)) {
      cl[nc] = lab[i];
      ca[nc] = c->tflops;
      cr[nc++] = rp__peer_tflops(c);
    }
    if (c->n > 0 && rp_five_number(c->samples, c->n, &bx[nb]) == CM_OK)
      bl[nb++] = lab[i];
  }
  rp__sb_add(b, "<h3>Achieved bandwidth against the copy ceiling</h3>\n");
  if (nm > 0) {
    rp__svg_bars(b, "bandwidth", "GB/s", ml, mv, nm,
                 isfinite(r->copy_gbps) ? r->copy_gbps : 0, "copy ceiling");
    (*ncharts)++;
  } else {
    rp__sb_add(b, "<p>No memory-bound case with a bandwidth.</p>\n");
  }
  rp__sb_add(b, "<h3>Matmul TFLOP/s against the peer library</h3>\n");
  if (nc > 0) {
    rp__svg_pairs(b, "tflops", "TFLOP/s", cl, ca, cr, nc, "ours",
                  "peer (cuBLAS)");
    (*ncharts)++;
  } else {
    rp__sb_add(b, "<p>No compute-bound case.</p>\n");
  }
  rp__sb_add(b, "<h3>Timing distribution per case</h3>\n");
  if (nb > 0) {
    rp__svg_boxes(b, "boxplots", "us", 1e6, bl, bx, nb);
    (*ncharts)++;
  } else {
    rp__sb_add(b, "<p>No samples.</p>\n");
  }
done:
  free(lab);
  free(ml);
  free(cl);
  free(bl);
  free(mv);
  free(ca);
  free(cr);
  free(bx);
}

static void h_timing(rp__sb *b, const rp_run *run, int *ncharts) {
  const rp_results *r = rp__main_results(run);
  size_t i;
  rp__sb_add(b, "<h2>Timing results (clean)</h2>\n");
  if (r == NULL) {
    rp__sb_add(b, "<p>No clean results in this run: nothing timed under "
                  "instrumentation is shown as a timing.</p>\n");
    return;
  }
  h_charts(b, r, ncharts);
  rp__sb_add(b, "<h3>Table (the charts' numbers)</h3>\n<table><tr>"
                "<th>case</th><th>correct</th><th>n</th><th>min us</th>"
                "<th>q1 us</th><th>median us</th><th>q3 us</th>"
                "<th>max us</th><th>cv</th><th>GB/s</th><th>of copy</th>"
                "<th>TFLOP/s</th><th>peer</th><th>peer TFLOP/s</th></tr>\n");
  for (i = 0; i < r->ncases; i++) {
    const rp_case *c = &r->cases[i];
    rp_five f = {NAN, NAN, NAN, NAN, NAN};
    char l[256], t[32], ok[64];
    if (c->n > 0)
      rp_five_number(c->samples, c->n, &f);
    rp__case_label(c, l, sizeof l);
    rp__sb_add(b, "<tr>");
    td(b, NULL, l);
    cm_snprintf(ok, sizeof ok, "%s%s",
                c->passed == 1   ? "yes"
                : c->passed == 0 ? "NO"
                                 : "?",
                rp__sampled_note(c, t, sizeof t));
    td(b, c->passed == 1 ? "pass" : "fail", ok);
    rp__sb_printf(b, "<td class=\"n\">%zu</td>", c->n);
    td(b, "n", rp__fmt(t, sizeof t, 3, f.min * 1e6));
    td(b, "n", rp__fmt(t, sizeof t, 3, f.q1 * 1e6));
    td(b, "n", rp__fmt(t, sizeof t, 3, f.median * 1e6));
    td(b, "n", rp__fmt(t, sizeof t, 3, f.q3 * 1e6));
    td(b, "n", rp__fmt(t, sizeof t, 3, f.max * 1e6));
    td(b, "n", rp__fmt(t, sizeof t, 4, c->cv));
    td(b, "n", rp__fmt(t, sizeof t, 1, c->gbps));
    td(b, "n", rp__fmt(t, sizeof t, 3, c->fraction_of_copy_bw));
    td(b, "n", rp__fmt(t, sizeof t, 2, c->tflops));
    td(b, NULL, c->peer_name);
    td(b, "n", rp__fmt(t, sizeof t, 2, rp__peer_tflops(c)));
    rp__sb_add(b, "</tr>\n");
  }
  rp__sb_add(b, "</table>\n");
}

int rp_report_html(const rp_run *run, char **out, int *ncharts) {
  rp__sb b;
  int charts = 0;
  rp__sb_init(&b);
  rp__sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                 "<meta charset=\"utf-8\"><title>repro report</title>\n");
  rp__sb_printf(&b, "<style>%s</style></head>\n<body>\n", css);
  rp__sb_add(&b, "<h1>Audit report: run ");
  rp__sb_xml(&b, run->run_id[0] ? run->run_id : "(no run id)");
  rp__sb_add(&b, "</h1>\n<p>Run status: <b>");
  rp__sb_xml(&b, run->status[0] ? run->status : "unknown");
  rp__sb_add(&b, "</b>. Written by <code>repro report</code>; "
                 "docs/REPORT.md says how to read it.</p>\n");
  h_binding(&b, run);
  h_env(&b, run);
  h_stages(&b, run, &charts);
  h_verify_control(&b, run);
  h_sanitizer(&b, run);
  h_limitations(&b, run);
  h_resources(&b, run);
  h_timing(&b, run, &charts);
  rp__sb_printf(&b, "<script>%s</script>\n</body></html>\n", script);
  if (ncharts != NULL)
    *ncharts = charts;
  *out = rp__sb_take(&b);
  return *out != NULL ? CM_OK : CM_ENOMEM;
}
