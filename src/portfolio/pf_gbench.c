/* pf_gbench.c: the results as Google Benchmark JSON.
 *
 * Each case becomes one benchmark family named "op/variant/dtype/shape"
 * (plus "/peer:NAME" for its peer), with one "iteration" row per timed
 * sample (iterations 1, repetition_index i) and "aggregate" rows mean,
 * median, stddev and cv, which is what --benchmark_repetitions=N with
 * --benchmark_enable_random_interleaving=false would print. Google
 * Benchmark's tools/compare.py reads it (including its Mann-Whitney U test,
 * which uses the per-repetition rows).
 *
 * cpu_time: there is no meaningful host CPU time for a GPU kernel timed with
 * events, so cpu_time repeats real_time (Google Benchmark's own UseManualTime
 * reports real_time the same way). docs/BENCHMARKING.md says so.
 */
#include "pf_json.h"

#include "cm_str.h"
#include "cm_utf8.h"

#include <math.h>

/* Times in microseconds: kernels take microseconds to milliseconds, and the
 * compare tool prints whatever unit the file uses. */
#define US_PER_S 1e6

static json_t *row(const char *name, const char *run_name, int family,
                   size_t reps) {
  json_t *b = json_object();
  json_object_set_new(b, "name", cm_json_text(name));
  json_object_set_new(b, "family_index", json_integer(family));
  json_object_set_new(b, "per_family_instance_index", json_integer(0));
  json_object_set_new(b, "run_name", cm_json_text(run_name));
  json_object_set_new(b, "repetitions", json_integer((json_int_t)reps));
  json_object_set_new(b, "threads", json_integer(1));
  return b;
}

static void add_series(json_t *arr, const char *run_name, int family,
                       const pf_series *s, double bytes, double flops) {
  static const char *const agg[] = {"mean", "median", "stddev", "cv"};
  char name[256];
  size_t i;
  int a;
  /* A series whose timing failed (samples, no statistics) is left out
   * rather than given aggregates of 0 us; the context's clean says so. */
  if (!pf_series_summarised(s))
    return;
  for (i = 0; i < s->n; i++) {
    json_t *b = row(run_name, run_name, family, s->n);
    json_object_set_new(b, "run_type", cm_json_text("iteration"));
    json_object_set_new(b, "repetition_index", json_integer((json_int_t)i));
    json_object_set_new(b, "iterations", json_integer(1));
    json_object_set_new(b, "real_time", json_real(s->samples[i] * US_PER_S));
    json_object_set_new(b, "cpu_time", json_real(s->samples[i] * US_PER_S));
    json_object_set_new(b, "time_unit", cm_json_text("us"));
    if (bytes > 0)
      json_object_set_new(b, "bytes_per_second",
                          json_real(bytes / s->samples[i]));
    if (flops > 0)
      json_object_set_new(b, "FLOPS", json_real(flops / s->samples[i]));
    json_array_append_new(arr, b);
  }
  for (a = 0; a < 4; a++) {
    double v = 0;
    json_t *b;
    cm_snprintf(name, sizeof name, "%s_%s", run_name, agg[a]);
    b = row(name, run_name, family, s->n);
    switch (a) {
    case 0:
      v = s->stats.mean * US_PER_S;
      break;
    case 1:
      v = s->stats.median * US_PER_S;
      break;
    case 2:
      v = s->stats.stddev * US_PER_S;
      break;
    default:
      v = s->stats.cv;
      break;
    }
    json_object_set_new(b, "run_type", cm_json_text("aggregate"));
    json_object_set_new(b, "aggregate_name", cm_json_text(agg[a]));
    /* Google Benchmark marks cv as a percentage-unit aggregate (a ratio,
     * not a time); compare.py relies on this to skip converting it. */
    json_object_set_new(b, "aggregate_unit",
                        cm_json_text(a == 3 ? "percentage" : "time"));
    json_object_set_new(b, "iterations", json_integer((json_int_t)s->n));
    json_object_set_new(b, "real_time", pf__json_num(v));
    json_object_set_new(b, "cpu_time", pf__json_num(v));
    json_object_set_new(b, "time_unit", cm_json_text("us"));
    json_array_append_new(arr, b);
  }
}

json_t *pf_gbench_document(const pf_results *r) {
  json_t *doc = json_object(), *ctx = json_object(), *arr = json_array();
  json_t *caches = json_array(), *load = json_array();
  char run_name[256];
  size_t i;
  int family = 0;
  const pf_env *e = &r->env;
  if (doc == NULL)
    return NULL;
  json_object_set_new(ctx, "date", cm_json_text(e->timestamp));
  json_object_set_new(ctx, "host_name", cm_json_text(e->host));
  json_object_set_new(ctx, "executable", cm_json_text(e->exe_path));
  json_object_set_new(ctx, "num_cpus", json_integer(1));
  json_object_set_new(ctx, "mhz_per_cpu", json_integer(0));
  json_object_set_new(ctx, "cpu_scaling_enabled", json_false());
  json_object_set_new(ctx, "caches", caches);
  json_object_set_new(ctx, "load_avg", load);
  json_object_set_new(ctx, "library_version", cm_json_text("cuda_portfolio"));
  json_object_set_new(ctx, "library_build_type", cm_json_text("release"));
  json_object_set_new(ctx, "json_schema_version", json_integer(1));
  /* Our own facts ride along; the compare tool ignores unknown keys. */
  json_object_set_new(ctx, "gpu_name", cm_json_text(e->gpu_name));
  json_object_set_new(ctx, "gpu_uuid", cm_json_text(e->gpu_uuid));
  json_object_set_new(ctx, "git_commit", cm_json_text(e->git_commit));
  json_object_set_new(ctx, "instrumented", json_boolean(r->markers.count));
  json_object_set_new(ctx, "clean", json_boolean(pf_results_clean(r)));
  json_object_set_new(ctx, "copy_bandwidth_gbps",
                      r->copy.measured ? pf__json_num(r->copy.gbps)
                                       : json_null());
  json_object_set_new(doc, "context", ctx);

  for (i = 0; i < r->ncases; i++) {
    const pf_case_result *c = &r->cases[i];
    cm_snprintf(run_name, sizeof run_name, "%s/%s/%s/%s", c->op, c->variant,
                c->dtype, c->shape);
    add_series(arr, run_name, family++, &c->series, c->logical_bytes, c->flops);
    if (c->peer.present) {
      cm_snprintf(run_name, sizeof run_name, "%s/%s/%s/%s/peer:%s", c->op,
                  c->variant, c->dtype, c->shape, c->peer.name);
      add_series(arr, run_name, family++, &c->peer.series, c->logical_bytes,
                 c->flops);
    }
  }
  json_object_set_new(doc, "benchmarks", arr);
  return doc;
}
