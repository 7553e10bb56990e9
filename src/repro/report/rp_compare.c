/* rp_compare.c: matching, refusals, per-case verdicts (see rp_compare.h). */
#include "rp_compare.h"

#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_sb.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *rp_verdict_name(rp_verdict v) {
  switch (v) {
  case RP_VERDICT_SAME:
    return "same";
  case RP_VERDICT_FASTER:
    return "faster";
  case RP_VERDICT_SLOWER:
    return "slower";
  default:
    return "ambiguous";
  }
}

void rp_compare_opts_init(rp_compare_opts *o) {
  memset(o, 0, sizeof *o);
  o->threshold = 0.05;
  o->alpha = 0.01;
  o->level = 0.95;
  o->resamples = 2000;
  o->seed = 0x5EEDC0DEull;
  o->min_samples = 5;
}

rp_verdict rp_verdict_decide(const rp_boot *b, const rp_mw *mw, size_t nbase,
                             size_t nnew, const rp_compare_opts *o, char *why,
                             size_t size) {
  double t = o->threshold;
  if (nbase < o->min_samples || nnew < o->min_samples) {
    cm_snprintf(why, size, "too few samples (%zu and %zu, need %zu each)",
                nbase, nnew, o->min_samples);
    return RP_VERDICT_AMBIGUOUS;
  }
  if (b->lo >= 1.0 - t && b->hi <= 1.0 + t) {
    cm_snprintf(why, size, "interval [%.4f, %.4f] within +-%.1f%%", b->lo,
                b->hi, 100 * t);
    return RP_VERDICT_SAME;
  }
  if (b->lo > 1.0 && b->ratio > 1.0 + t && mw->p < o->alpha) {
    cm_snprintf(why, size,
                "interval [%.4f, %.4f] above 1, ratio beyond +%.1f%%, "
                "U test p=%.2g",
                b->lo, b->hi, 100 * t, mw->p);
    return RP_VERDICT_SLOWER;
  }
  if (b->hi < 1.0 && b->ratio < 1.0 - t && mw->p < o->alpha) {
    cm_snprintf(why, size,
                "interval [%.4f, %.4f] below 1, ratio beyond -%.1f%%, "
                "U test p=%.2g",
                b->lo, b->hi, 100 * t, mw->p);
    return RP_VERDICT_FASTER;
  }
  if ((b->lo > 1.0 || b->hi < 1.0) && mw->p >= o->alpha)
    cm_snprintf(why, size,
                "interval [%.4f, %.4f] excludes 1 but U test p=%.2g is not "
                "significant",
                b->lo, b->hi, mw->p);
  else
    cm_snprintf(why, size,
                "interval [%.4f, %.4f] too wide or change below the "
                "threshold (p=%.2g)",
                b->lo, b->hi, mw->p);
  return RP_VERDICT_AMBIGUOUS;
}

static void add_reason(char *buf, size_t size, const char *what, const char *a,
                       const char *b) {
  size_t l = strlen(buf);
  cm_snprintf(buf + l, size - l, "%s%s differ (BASE \"%s\", NEW \"%s\")",
              l ? "; " : "", what, a, b);
}

static const char *flag_name(int f) {
  return f == 1 ? "instrumented" : f == 0 ? "clean" : "unknown";
}

int rp_compare_check(const rp_results *b, const rp_results *n, char *why,
                     size_t size) {
  why[0] = '\0';
  /* An unknown flag is refused too: a result that does not say it was
   * clean cannot be trusted to be. */
  if (b->instrumented != n->instrumented || b->instrumented < 0)
    add_reason(why, size, "instrumentation", flag_name(b->instrumented),
               flag_name(n->instrumented));
  if (strcmp(b->gpu_name, n->gpu_name) != 0)
    add_reason(why, size, "GPU models", b->gpu_name, n->gpu_name);
  if (strcmp(b->compute_capability, n->compute_capability) != 0)
    add_reason(why, size, "compute capabilities", b->compute_capability,
               n->compute_capability);
  if (strcmp(b->os, n->os) != 0)
    add_reason(why, size, "OS environments", b->os, n->os);
  /* Locked clocks against clocks as found (or other locked clocks): a
   * difference in time would be the clocks' as much as the kernels'. */
  if (strcmp(b->clocks_locked, n->clocks_locked) != 0)
    add_reason(why, size, "clock locks",
               b->clocks_locked[0] ? b->clocks_locked : "as found",
               n->clocks_locked[0] ? n->clocks_locked : "as found");
  /* The timing protocol: a cold sample against a hot one, or the write
   * flush against the read flush (docs/BENCHMARKING.md, "The two
   * flushes": 1-20 % on the same binary), would make the ratio the
   * protocol's. Where one side did not record it (the first versions'
   * files had no flush field), the comparison runs and the notes say so. */
  if (b->cache[0] && n->cache[0] && strcmp(b->cache, n->cache) != 0)
    add_reason(why, size, "cache states", b->cache, n->cache);
  else if (b->flush[0] && n->flush[0] && strcmp(b->flush, n->flush) != 0)
    add_reason(why, size, "L2 flushes", b->flush, n->flush);
  return why[0] == '\0';
}

static void notes_for(const rp_results *b, const rp_results *n, char *buf,
                      size_t size) {
  buf[0] = '\0';
  /* Two instrumented results are not mixed, so they are compared (a run
   * folder without clean results gives its results/instrumented/), but
   * their times are a profiled or sanitized run's: said first, so that
   * "no regression" is not read as a verdict on clean timings. */
  if (b->instrumented == 1 && n->instrumented == 1)
    cm_snprintf(buf, size,
                "both sides are instrumented results (profiled or "
                "sanitized runs), not clean timings");
  if (b->gpu_uuid[0] && n->gpu_uuid[0] && strcmp(b->gpu_uuid, n->gpu_uuid) != 0)
    add_reason(buf, size, "GPU UUIDs (same model, another card)", b->gpu_uuid,
               n->gpu_uuid);
  if (strcmp(b->driver, n->driver) != 0)
    add_reason(buf, size, "drivers", b->driver, n->driver);
  if (strcmp(b->git_commit, n->git_commit) != 0)
    add_reason(buf, size, "commits", b->git_commit, n->git_commit);
  if (!b->cache[0] != !n->cache[0])
    add_reason(buf, size, "cache states (one side not recorded)",
               b->cache[0] ? b->cache : "not recorded",
               n->cache[0] ? n->cache : "not recorded");
  else if (strcmp(b->cache, "cold") == 0 && strcmp(n->cache, "cold") == 0 &&
           !b->flush[0] != !n->flush[0])
    add_reason(buf, size, "L2 flushes (one side not recorded)",
               b->flush[0] ? b->flush : "not recorded",
               n->flush[0] ? n->flush : "not recorded");
}

/* A side's case keys, sorted by key and then by position, so that the
 * first case of a key is found by bisection: compare used to rebuild every
 * key on every lookup, three lookups a case, which took minutes at 20000
 * cases (and a results file a bundle may hold has more). */
typedef struct {
  char key[256];
  size_t i;
} keyed_case;

static int cmp_keyed(const void *a, const void *b) {
  const keyed_case *x = (const keyed_case *)a, *y = (const keyed_case *)b;
  int c = strcmp(x->key, y->key);
  return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

static keyed_case *index_cases(const rp_results *r) {
  keyed_case *ix = calloc(r->ncases + 1, sizeof *ix);
  size_t i;
  if (ix == NULL)
    return NULL;
  for (i = 0; i < r->ncases; i++) {
    rp_case_key(&r->cases[i], ix[i].key, sizeof ix[i].key);
    ix[i].i = i;
  }
  qsort(ix, r->ncases, sizeof *ix, cmp_keyed);
  return ix;
}

/* The position of the first case of key in the side ix indexes (n cases),
 * or -1. */
static int find_case(const keyed_case *ix, size_t n, const char *key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(ix[mid].key, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && strcmp(ix[lo].key, key) == 0 ? (int)ix[lo].i : -1;
}

static int compare_case(const rp_case *cb, const rp_case *cn,
                        const rp_compare_opts *o, rp_case_cmp *out) {
  int r;
  out->nbase = cb->n;
  out->nnew = cn->n;
  out->base_median_s = cb->n ? rp_median(cb->samples, cb->n) : cb->median_s;
  out->new_median_s = cn->n ? rp_median(cn->samples, cn->n) : cn->median_s;
  if (cb->n == 0 || cn->n == 0) {
    out->verdict = RP_VERDICT_AMBIGUOUS;
    cm_strlcpy(out->why, "no samples on one side", sizeof out->why);
    return CM_OK;
  }
  r = rp_mann_whitney(cn->samples, cn->n, cb->samples, cb->n, &out->mw);
  if (r == CM_OK)
    r = rp_bootstrap_median_ratio(cb->samples, cb->n, cn->samples, cn->n,
                                  o->resamples, o->seed, o->level, &out->boot);
  if (r == CM_EINVAL) {
    out->verdict = RP_VERDICT_AMBIGUOUS;
    cm_strlcpy(out->why, "samples not usable (zero or negative median)",
               sizeof out->why);
    return CM_OK;
  }
  if (r != CM_OK)
    return r;
  out->stats_ok = 1;
  out->verdict = rp_verdict_decide(&out->boot, &out->mw, cb->n, cn->n, o,
                                   out->why, sizeof out->why);
  return CM_OK;
}

int rp_compare(const rp_results *b, const rp_results *n,
               const rp_compare_opts *o, rp_compare_result *out) {
  double *ratios = NULL;
  keyed_case *bx = NULL, *nx = NULL;
  size_t nr = 0, i;
  int r = CM_OK;
  memset(out, 0, sizeof *out);
  out->geomean = NAN;
  if (!rp_compare_check(b, n, out->reasons, sizeof out->reasons) && !o->force) {
    out->refused = 1;
    return CM_OK;
  }
  notes_for(b, n, out->notes, sizeof out->notes);
  out->cases = calloc(b->ncases + 1, sizeof *out->cases);
  out->only_base = calloc(b->ncases + 1, sizeof *out->only_base);
  out->only_new = calloc(n->ncases + 1, sizeof *out->only_new);
  ratios = calloc(b->ncases + 1, sizeof *ratios);
  bx = index_cases(b);
  nx = index_cases(n);
  if (!out->cases || !out->only_base || !out->only_new || !ratios || !bx ||
      !nx) {
    free(ratios);
    free(bx);
    free(nx);
    return CM_ENOMEM;
  }
  for (i = 0; i < b->ncases && r == CM_OK; i++) {
    char key[256];
    int j;
    rp_case_key(&b->cases[i], key, sizeof key);
    /* A key seen before in BASE was matched already. */
    if (find_case(bx, b->ncases, key) != (int)i)
      continue;
    j = find_case(nx, n->ncases, key);
    if (j < 0) {
      cm_strlcpy(out->only_base[out->nonly_base++], key, 256);
      continue;
    }
    rp_case_cmp *c = &out->cases[out->ncases++];
    cm_strlcpy(c->key, key, sizeof c->key);
    r = compare_case(&b->cases[i], &n->cases[j], o, c);
    c->throttled = (b->cases[i].throttled ? RP_THROTTLED_BASE : 0) |
                   (n->cases[j].throttled ? RP_THROTTLED_NEW : 0);
    out->nthrottled += c->throttled != 0;
    out->counts[c->verdict]++;
    if (c->stats_ok)
      ratios[nr++] = c->boot.ratio;
  }
  for (i = 0; i < n->ncases; i++) {
    char key[256];
    rp_case_key(&n->cases[i], key, sizeof key);
    if (find_case(bx, b->ncases, key) < 0 &&
        find_case(nx, n->ncases, key) == (int)i)
      cm_strlcpy(out->only_new[out->nonly_new++], key, 256);
  }
  out->geomean = rp_geomean(ratios, nr);
  free(ratios);
  free(bx);
  free(nx);
  /* Nothing matched: no case was compared, so "no regression" would be a
   * verdict on nothing (a CI gate reading exit 0 would pass two unrelated
   * selections). Refused, --force or not: there is nothing to force. */
  if (r == CM_OK && out->ncases == 0) {
    out->refused = 1;
    out->unmatched = 1;
    cm_snprintf(out->reasons, sizeof out->reasons,
                "BASE and NEW have no case in common (BASE %zu case(s), "
                "NEW %zu): nothing was compared; compare runs of the same "
                "selection (the same --op/--dtype/--shape words)",
                b->ncases, n->ncases);
  }
  return r;
}

void rp_compare_result_free(rp_compare_result *r) {
  free(r->cases);
  free(r->only_base);
  free(r->only_new);
  memset(r, 0, sizeof *r);
}

int rp_compare_exit_code(const rp_compare_result *r) {
  if (r->refused)
    return 2;
  return r->counts[RP_VERDICT_SLOWER] > 0 ? 1 : 0;
}

static json_t *num(double v) {
  return isfinite(v) ? json_real(v) : json_null();
}

json_t *rp_compare_json(const rp_compare_result *r, const rp_compare_opts *o,
                        const char *base_path, const char *new_path) {
  json_t *doc = json_object(), *cases = json_array(), *method = json_object();
  json_t *ob = json_array(), *on = json_array(), *cnt = json_object();
  size_t i;
  int v;
  if (!doc || !cases || !method || !ob || !on || !cnt) {
    json_decref(doc);
    json_decref(cases);
    json_decref(method);
    json_decref(ob);
    json_decref(on);
    json_decref(cnt);
    return NULL;
  }
  json_object_set_new(doc, "schema_version", json_integer(1));
  json_object_set_new(doc, "base", cm_json_text(base_path));
  json_object_set_new(doc, "new", cm_json_text(new_path));
  json_object_set_new(doc, "refused", json_boolean(r->refused));
  json_object_set_new(doc, "forced", json_boolean(o->force && r->reasons[0]));
  json_object_set_new(doc, "reasons",
                      r->reasons[0] ? cm_json_text(r->reasons) : json_null());
  json_object_set_new(doc, "notes",
                      r->notes[0] ? cm_json_text(r->notes) : json_null());
  json_object_set_new(method, "decides",
                      cm_json_text("bootstrap percentile interval of "
                                   "median(NEW)/median(BASE)"));
  json_object_set_new(method, "guard",
                      cm_json_text("Mann-Whitney U, two-sided, normal "
                                   "approximation with tie and continuity "
                                   "correction"));
  json_object_set_new(method, "threshold", json_real(o->threshold));
  json_object_set_new(method, "alpha", json_real(o->alpha));
  json_object_set_new(method, "level", json_real(o->level));
  json_object_set_new(method, "resamples", json_integer(o->resamples));
  json_object_set_new(method, "seed", json_integer((json_int_t)o->seed));
  json_object_set_new(method, "min_samples",
                      json_integer((json_int_t)o->min_samples));
  json_object_set_new(doc, "method", method);
  for (i = 0; i < r->ncases; i++) {
    const rp_case_cmp *c = &r->cases[i];
    json_t *e = json_object();
    json_object_set_new(e, "key", cm_json_text(c->key));
    json_object_set_new(e, "n_base", json_integer((json_int_t)c->nbase));
    json_object_set_new(e, "n_new", json_integer((json_int_t)c->nnew));
    json_object_set_new(e, "base_median_s", num(c->base_median_s));
    json_object_set_new(e, "new_median_s", num(c->new_median_s));
    json_object_set_new(e, "ratio",
                        c->stats_ok ? num(c->boot.ratio) : json_null());
    json_object_set_new(e, "ci_lo",
                        c->stats_ok ? num(c->boot.lo) : json_null());
    json_object_set_new(e, "ci_hi",
                        c->stats_ok ? num(c->boot.hi) : json_null());
    json_object_set_new(e, "u", c->stats_ok ? num(c->mw.u_a) : json_null());
    json_object_set_new(e, "z", c->stats_ok ? num(c->mw.z) : json_null());
    json_object_set_new(e, "p", c->stats_ok ? num(c->mw.p) : json_null());
    json_object_set_new(e, "verdict",
                        cm_json_text(rp_verdict_name(c->verdict)));
    json_object_set_new(e, "why", cm_json_text(c->why));
    json_object_set_new(e, "throttled_base",
                        json_boolean(c->throttled & RP_THROTTLED_BASE));
    json_object_set_new(e, "throttled_new",
                        json_boolean(c->throttled & RP_THROTTLED_NEW));
    json_array_append_new(cases, e);
  }
  json_object_set_new(doc, "cases", cases);
  for (i = 0; i < r->nonly_base; i++)
    json_array_append_new(ob, cm_json_text(r->only_base[i]));
  for (i = 0; i < r->nonly_new; i++)
    json_array_append_new(on, cm_json_text(r->only_new[i]));
  json_object_set_new(doc, "only_in_base", ob);
  json_object_set_new(doc, "only_in_new", on);
  for (v = 0; v < 4; v++)
    json_object_set_new(cnt, rp_verdict_name((rp_verdict)v),
                        json_integer(r->counts[v]));
  json_object_set_new(doc, "counts", cnt);
  json_object_set_new(doc, "geomean_ratio", num(r->geomean));
  json_object_set_new(doc, "throttled_cases",
                      json_integer((json_int_t)r->nthrottled));
  json_object_set_new(doc, "exit_code", json_integer(rp_compare_exit_code(r)));
  return doc;
}

char *rp_compare_text(const rp_compare_result *r, const rp_compare_opts *o,
                      const char *base_path, const char *new_path) {
  rp__sb b;
  size_t i;
  char bp[4096], np[4096];
  /* the paths as given, one line of text each (the JSON form escapes) */
  rp__sb_init(&b);
  rp__sb_printf(&b, "BASE %s\nNEW  %s\n",
                cm_text_shown(base_path, bp, sizeof bp),
                cm_text_shown(new_path, np, sizeof np));
  if (r->refused) {
    rp__sb_printf(&b, "refused: %s\n", r->reasons);
    if (!r->unmatched)
      rp__sb_printf(&b, "(--force compares anyway; the reasons are then "
                        "kept as warnings)\n");
    return rp__sb_take(&b);
  }
  if (r->reasons[0])
    rp__sb_printf(&b, "warning (forced): %s\n", r->reasons);
  if (r->notes[0])
    rp__sb_printf(&b, "note: %s\n", r->notes);
  rp__sb_printf(&b,
                "method: bootstrap %.0f%% interval of median ratio "
                "(%d resamples, seed %llu) decides, Mann-Whitney U "
                "(alpha %.3g) guards; threshold %.1f%%\n\n",
                100 * o->level, o->resamples, (unsigned long long)o->seed,
                o->alpha, 100 * o->threshold);
  rp__sb_printf(&b, "%-48s %12s %12s %8s %19s %9s  %s\n", "case", "base med s",
                "new med s", "ratio", "95% interval", "U p", "verdict");
  for (i = 0; i < r->ncases; i++) {
    const rp_case_cmp *c = &r->cases[i];
    static const char *const marks[] = {"", " !BASE throttled",
                                        " !NEW throttled", " !both throttled"};
    const char *mark = marks[c->throttled & 3];
    if (c->stats_ok)
      rp__sb_printf(
          &b, "%-48s %12.6g %12.6g %8.4f [%8.4f, %8.4f] %9.2g  %s%s\n", c->key,
          c->base_median_s, c->new_median_s, c->boot.ratio, c->boot.lo,
          c->boot.hi, c->mw.p, rp_verdict_name(c->verdict), mark);
    else
      rp__sb_printf(&b, "%-48s %12.6g %12.6g %8s %19s %9s  %s (%s)%s\n", c->key,
                    c->base_median_s, c->new_median_s, "-", "-", "-",
                    rp_verdict_name(c->verdict), c->why, mark);
  }
  for (i = 0; i < r->nonly_base; i++)
    rp__sb_printf(&b, "only in BASE: %s\n", r->only_base[i]);
  for (i = 0; i < r->nonly_new; i++)
    rp__sb_printf(&b, "only in NEW:  %s\n", r->only_new[i]);
  rp__sb_printf(&b,
                "\n%zu matched: %d same, %d faster, %d slower, %d ambiguous; "
                "geometric mean ratio %.4f (NEW/BASE time)\n",
                r->ncases, r->counts[RP_VERDICT_SAME],
                r->counts[RP_VERDICT_FASTER], r->counts[RP_VERDICT_SLOWER],
                r->counts[RP_VERDICT_AMBIGUOUS], r->geomean);
  if (r->nthrottled > 0)
    rp__sb_printf(&b,
                  "%zu matched case(s) marked ! were sampled while NVML "
                  "reported a throttle reason on that side: their verdicts "
                  "may be the clocks' as much as the kernels'\n",
                  r->nthrottled);
  rp__sb_printf(&b, "%s\n",
                rp_compare_exit_code(r)
                    ? "REGRESSION: a case is slower beyond the "
                      "threshold"
                    : "no regression beyond the threshold");
  return rp__sb_take(&b);
}
