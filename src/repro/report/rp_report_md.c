/* rp_report_md.c: report.md, the text an auditor attaches to a review.
 * Same sections as report.html, charts replaced by their tables. */
#include "rp_report.h"

#include "cm_error.h"
#include "rp_report_common.h"
#include "rp_sb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "- KIND results PATH: SHA-256 `HEX`": the path is the manifest's, so
 * text (a code span would end at a backtick in it); the digest is of the
 * file's bytes, computed here. */
static void md_file(rp__sb *b, const char *kind, const rp_run *run,
                    const rp_results *r) {
  rp__sb_printf(b, "- %s results ", kind);
  rp__sb_md(b, rp__relpath(run, r->path));
  rp__sb_printf(b, ": SHA-256 `%s`\n", r->sha256);
}

static void md_binding(rp__sb *b, const rp_run *run) {
  size_t i;
  rp__sb_add(&*b, "## Binding to the archive\n\n");
  if (run->have_manifest)
    rp__sb_printf(b,
                  "Generated from manifest.json with SHA-256 `%s` (the "
                  "manifest as it was before this report was added; the "
                  "re-finished manifest lists this report's own SHA-256).\n\n",
                  run->manifest_sha256);
  else
    rp__sb_add(b, "This run folder has no manifest.json: the report is "
                  "not bound to an archive.\n\n");
  for (i = 0; i < run->nclean; i++)
    md_file(b, "clean", run, &run->clean[i]);
  for (i = 0; i < run->ninstrumented; i++)
    md_file(b, "instrumented", run, &run->instrumented[i]);
  rp__sb_add(b, "\n");
}

static void md_env(rp__sb *b, const rp_run *run) {
  rp__kv rows[RP__ENV_ROWS];
  size_t n = rp__env_rows(run, rows), i;
  rp__sb_add(b, "## Environment\n\n| item | value |\n| --- | --- |\n");
  for (i = 0; i < n; i++) {
    rp__sb_printf(b, "| %s | ", rows[i].key);
    rp__sb_md(b, rows[i].value[0] ? rows[i].value : "unknown");
    rp__sb_add(b, " |\n");
  }
  rp__sb_add(b, "\n");
}

/* "- check NAME: STATUS" of a check or step, its detail to follow. */
static void md_item(rp__sb *b, const char *what, const rp_item *it) {
  rp__sb_printf(b, "- %s ", what);
  rp__sb_md(b, it->name);
  rp__sb_add(b, ": ");
  rp__sb_md(b, it->status);
}

static void md_stages(rp__sb *b, const rp_run *run) {
  size_t i, j;
  rp__sb_add(b, "## Stages\n\n");
  if (run->nstages == 0) {
    rp__sb_add(b, "No stage is recorded in this run.\n\n");
    return;
  }
  rp__sb_add(b, "| stage | status | start s | duration s | exit | reason |\n"
                "| --- | --- | ---: | ---: | ---: | --- |\n");
  for (i = 0; i < run->nstages; i++) {
    const rp_stage *s = &run->stages[i];
    char a[32], d[32];
    rp__sb_add(b, "| ");
    rp__sb_md(b, s->name);
    rp__sb_add(b, " | **");
    rp__sb_md(b, s->status[0] ? s->status : "unknown");
    rp__sb_printf(b, "** | %s | %s | ", rp__fmt(a, sizeof a, 1, s->start_s),
                  rp__fmt(d, sizeof d, 2, s->duration_s));
    if (s->exit_code >= 0)
      rp__sb_printf(b, "%lld", (long long)s->exit_code);
    if (s->exit_code >= 0 && s->exit_note[0]) {
      rp__sb_add(b, " (");
      rp__sb_md(b, s->exit_note);
      rp__sb_add(b, ")");
    }
    rp__sb_add(b, " | ");
    rp__sb_md(b, s->reason);
    rp__sb_add(b, " |\n");
  }
  rp__sb_add(b, "\n");
  for (i = 0; i < run->nstages; i++) {
    const rp_stage *s = &run->stages[i];
    if (s->nchecks == 0 && s->nsteps == 0)
      continue;
    rp__sb_add(b, "### Stage ");
    rp__sb_md(b, s->name);
    rp__sb_add(b, "\n\n");
    for (j = 0; j < s->nchecks; j++) {
      md_item(b, "check", &s->checks[j]);
      if (s->checks[j].detail[0]) {
        rp__sb_add(b, " (");
        rp__sb_md(b, s->checks[j].detail);
        rp__sb_add(b, ")");
      }
      rp__sb_add(b, "\n");
    }
    for (j = 0; j < s->nsteps; j++) {
      md_item(b, "step", &s->steps[j]);
      if (s->steps[j].detail[0]) {
        rp__sb_add(b, " (");
        rp__sb_md(b, s->steps[j].detail);
        rp__sb_add(b, ")");
      }
      rp__sb_add(b, "\n");
    }
    rp__sb_add(b, "\n");
  }
}

static void md_verify_control(rp__sb *b, const rp_run *run) {
  char vc[256];
  int r = rp__verify_control(run, vc, sizeof vc);
  rp__sb_add(b, "## Verification control\n\n" RP__VERIFY_CONTROL_WHAT ": ");
  rp__sb_printf(b, r >= 0 ? "**%s**.\n\n" : "%s.\n\n", vc);
}

static void md_sanitizer(rp__sb *b, const rp_run *run) {
  char nc[600];
  size_t i;
  int caught = rp__negative_control(run, nc, sizeof nc);
  rp__sb_add(b, "## Sanitizer results\n\n");
  rp__sb_printf(b,
                "Negative control (memcheck on a kernel that writes out "
                "of bounds on purpose): **%s**. ",
                caught == 1   ? "caught"
                : caught == 0 ? "NOT caught"
                              : "not recorded");
  rp__sb_md(b, nc);
  rp__sb_add(b, "\n\n");
  if (run->nfindings == 0) {
    rp__sb_add(b, "No sanitizer finding is recorded.\n\n");
    return;
  }
  rp__sb_add(b, "| tool | control | class | finding | kernel | location |\n"
                "| --- | --- | --- | --- | --- | --- |\n");
  for (i = 0; i < run->nfindings; i++) {
    const rp_finding *f = &run->findings[i];
    size_t more = rp__findings_elided(run, i);
    if (more > 0) {
      rp__sb_add(b, "| ");
      rp__sb_md(b, f->tool);
      rp__sb_printf(b,
                    " | | | ... and %zu more findings of this step "
                    "(all in its log) | | |\n",
                    more);
      i += more - 1;
      continue;
    }
    rp__sb_add(b, "| ");
    rp__sb_md(b, f->tool);
    rp__sb_printf(b, " | %s | ", f->negative_control ? "negative control" : "");
    rp__sb_md(b, f->cls);
    rp__sb_add(b, " | ");
    rp__sb_md(b, f->kind);
    rp__sb_add(b, " | ");
    rp__sb_md(b, f->kernel);
    rp__sb_add(b, " | ");
    rp__sb_md(b, f->location);
    rp__sb_add(b, " |\n");
  }
  rp__sb_add(b, "\n");
}

static void md_limit(void *ud, const rp__limit *l) {
  rp__sb *b = ud;
  if (l->stage == NULL) {
    rp__sb_add(b, "- results warning: ");
  } else {
    rp__sb_add(b, l->check == NULL ? "- stage " : "- ");
    rp__sb_md(b, l->stage);
    if (l->check != NULL) {
      rp__sb_add(b, " check ");
      rp__sb_md(b, l->check);
    }
    rp__sb_add(b, " ");
    rp__sb_md(b, l->status);
    rp__sb_add(b, ": ");
  }
  rp__sb_md(b, l->text);
  rp__sb_add(b, "\n");
}

static void md_limitations(rp__sb *b, const rp_run *run) {
  rp__sb_add(b, "## Limitations\n\n");
  if (rp__each_limit(run, md_limit, b) == 0)
    rp__sb_add(b, "None recorded.\n");
  rp__sb_add(b, "\n");
}

static void md_resources(rp__sb *b, const rp_run *run) {
  size_t i;
  rp__sb_add(b, "## Resource usage (inspect)\n\n");
  if (run->nresources == 0) {
    char why[700];
    rp__no_resources(run, why, sizeof why);
    rp__sb_md(b, why);
    rp__sb_add(b, "\n\n");
    return;
  }
  rp__sb_add(b, "| kernel | arch | registers | stack B | spill st B | "
                "spill ld B | shared B | local B |\n"
                "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (i = 0; i < run->nresources; i++) {
    const rp_res_row *k = &run->resources[i];
    rp__sb_add(b, "| ");
    rp__sb_md(b, k->kernel);
    rp__sb_printf(b, "%s | ", k->spills ? " **SPILLS**" : "");
    rp__sb_md(b, k->arch);
    rp__sb_printf(b, " | %lld | %lld | %lld | %lld | %lld | %lld |\n",
                  (long long)k->registers, (long long)k->stack,
                  (long long)k->spill_stores, (long long)k->spill_loads,
                  (long long)k->shared, (long long)k->local);
  }
  rp__sb_add(b, "\n");
}

static void md_timing(rp__sb *b, const rp_run *run) {
  const rp_results *r = rp__main_results(run);
  size_t i;
  rp__sb_add(b, "## Timing results (clean)\n\n");
  if (r == NULL) {
    rp__sb_add(b, "No clean results in this run: nothing timed without "
                  "instrumentation is shown.\n\n");
    return;
  }
  rp__sb_add(b, "| case | ok | n | median us | q1 us | q3 us | cv | GB/s | "
                "of copy | TFLOP/s | peer | peer TFLOP/s |\n"
                "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | "
                "---: | ---: | --- | ---: |\n");
  for (i = 0; i < r->ncases; i++) {
    const rp_case *c = &r->cases[i];
    rp_five f = {NAN, NAN, NAN, NAN, NAN};
    char l[256], t[8][32], sn[48];
    if (c->n > 0)
      rp_five_number(c->samples, c->n, &f);
    rp__case_label(c, l, sizeof l);
    rp__sb_add(b, "| ");
    rp__sb_md(b, l);
    rp__sb_printf(b, " | %s%s | %zu | %s | %s | %s | %s | %s | %s | %s | ",
                  c->passed == 1   ? "yes"
                  : c->passed == 0 ? "**NO**"
                                   : "?",
                  rp__sampled_note(c, sn, sizeof sn), c->n,
                  rp__fmt(t[0], 32, 3, f.median * 1e6),
                  rp__fmt(t[1], 32, 3, f.q1 * 1e6),
                  rp__fmt(t[2], 32, 3, f.q3 * 1e6), rp__fmt(t[3], 32, 4, c->cv),
                  rp__fmt(t[4], 32, 1, c->gbps),
                  rp__fmt(t[5], 32, 3, c->fraction_of_copy_bw),
                  rp__fmt(t[6], 32, 2, c->tflops));
    rp__sb_md(b, c->peer_name);
    rp__sb_printf(b, " | %s |\n", rp__fmt(t[7], 32, 2, rp__peer_tflops(c)));
  }
  rp__sb_add(b, "\nCharts (in report.html): achieved bandwidth of each "
                "memory-bound case against the copy ceiling measured in the "
                "same run, TFLOP/s against the peer library, the timing "
                "distribution of each case, and the stage timeline. The "
                "tables above carry the same numbers.\n\n");
}

int rp_report_markdown(const rp_run *run, char **out) {
  rp__sb b;
  rp__sb_init(&b);
  rp__sb_add(&b, "# Audit report: run ");
  rp__sb_md(&b, run->run_id[0] ? run->run_id : "(no run id)");
  rp__sb_add(&b, "\n\nRun status: **");
  rp__sb_md(&b, run->status[0] ? run->status : "unknown");
  rp__sb_add(&b, "**. Written by `repro report`; "
                 "docs/REPORT.md says how to read it.\n\n");
  md_binding(&b, run);
  md_env(&b, run);
  md_stages(&b, run);
  md_verify_control(&b, run);
  md_sanitizer(&b, run);
  md_limitations(&b, run);
  md_resources(&b, run);
  md_timing(&b, run);
  *out = rp__sb_take(&b);
  return *out != NULL ? CM_OK : CM_ENOMEM;
}
