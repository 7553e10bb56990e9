/* pf_json.c: the results model and the versioned results document.
 * Field meanings are documented in docs/BENCHMARKING.md; the schema in
 * docs/schema/results-v1.schema.json must change with this file. */
#include "pf_json.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pf_results_init(pf_results *r) {
  memset(r, 0, sizeof *r);
  r->other_processes = -1;
  pf_bench_opts_init(&r->opts);
}

void pf_results_free(pf_results *r) {
  size_t i;
  for (i = 0; i < r->ncases; i++) {
    free(r->cases[i].series.samples);
    free(r->cases[i].peer.series.samples);
  }
  free(r->cases);
  for (i = 0; i < r->nwarnings; i++)
    free(r->warnings[i]);
  free(r->warnings);
  free(r->copy.series.samples);
  free(r->launch_floor.series.samples);
  free(r->read.series.samples);
  pf_results_init(r);
}

int pf_results_add_case(pf_results *r, pf_case_result **out) {
  if (r->ncases == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    pf_case_result *p = realloc(r->cases, cap * sizeof *p);
    if (p == NULL)
      return CM_ENOMEM;
    r->cases = p;
    r->cap = cap;
  }
  *out = &r->cases[r->ncases++];
  memset(*out, 0, sizeof **out);
  /* Unknown until pf_case_derive runs, which it does not for a case whose
   * timing failed: null in the document, never a rate of 0. */
  (*out)->gbps = (*out)->tflops = NAN;
  (*out)->fraction_of_copy_bw = (*out)->fraction_of_peer = NAN;
  (*out)->roofline_s = NAN;
  (*out)->peer.ratio = NAN;
  return CM_OK;
}

int pf_series_summarised(const pf_series *s) {
  return s->n > 0 && s->stats.n == s->n;
}

int pf_results_warn(pf_results *r, const char *fmt, ...) {
  char buf[512];
  char **w;
  va_list ap;
  va_start(ap, fmt);
  /* A cut warning is still a warning (cut between characters). */
  (void)cm_vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  w = realloc(r->warnings, (r->nwarnings + 1) * sizeof *w);
  if (w == NULL)
    return CM_ENOMEM;
  r->warnings = w;
  w[r->nwarnings] = malloc(strlen(buf) + 1);
  if (w[r->nwarnings] == NULL)
    return CM_ENOMEM;
  memcpy(w[r->nwarnings], buf, strlen(buf) + 1);
  r->nwarnings++;
  return CM_OK;
}

void pf_case_derive(pf_case_result *c, const pf_ceiling *copy,
                    const pf_ceiling *read) {
  double med = c->series.n ? c->series.stats.median : NAN;
  double copy_gbps = copy->measured ? copy->gbps : NAN;
  double read_gbps = (read != NULL && read->measured) ? read->gbps : NAN;
  /* The roofline's rate: the faster of the two ceilings. A kernel that
   * mostly reads can beat the copy (read + write) rate, never the rate of
   * reading alone. */
  double roof_gbps = read_gbps > copy_gbps ? read_gbps : copy_gbps;
  c->gbps = med > 0 ? c->logical_bytes / med / 1e9 : NAN;
  c->tflops = (med > 0 && c->flops > 0) ? c->flops / med / 1e12 : NAN;
  c->fraction_of_copy_bw = copy->measured ? c->gbps / copy->gbps : NAN;
  c->roofline_s = roof_gbps > 0 ? c->logical_bytes / (roof_gbps * 1e9) : NAN;
  c->peer.ratio = NAN;
  c->fraction_of_peer = NAN;
  if (c->peer.present && c->peer.series.n && med > 0) {
    c->peer.ratio = c->peer.series.stats.median / med;
    /* Same work, so the rate ratio is the time ratio. */
    if (c->flops > 0)
      c->fraction_of_peer = c->peer.ratio;
  }
  c->suspicious = 0;
  c->suspicious_reason[0] = '\0';
  /* Moving logical_bytes cannot take less than logical_bytes over the
   * fastest measured bandwidth; beating that bound means the measurement
   * saw a cache, skipped work, or timed nothing. */
  if (med > 0 && c->roofline_s > 0 &&
      med < c->roofline_s * (1.0 - PF_ROOFLINE_SLACK)) {
    c->suspicious = 1;
    cm_snprintf(c->suspicious_reason, sizeof c->suspicious_reason,
                "median %.3g s is below the roofline bound %.3g s "
                "(%.0f bytes at %.1f GB/s, the faster of the measured copy "
                "and read bandwidths)",
                med, c->roofline_s, c->logical_bytes, roof_gbps);
  }
}

int pf_results_clean(const pf_results *r) {
  size_t i;
  /* a case that failed verification is not in cases[] (it was never
   * timed), but the run it belongs to is not one to call clean */
  if (r->markers.count > 0 || r->other_processes != 0 || r->launch_knobs ||
      r->ceilings_throttled || r->unverified > 0 || r->stopped)
    return 0;
  for (i = 0; i < r->ncases; i++) {
    const pf_case_result *c = &r->cases[i];
    /* Throttling that could not be ruled out counts as throttling, as an
     * unknown list of processes counts as a busy GPU; and a case whose
     * timing failed, or whose outputs failed the recheck, has no timing to
     * call clean. */
    if (c->throttled || !c->before.reasons_ok || !c->after.reasons_ok ||
        c->peer_reasons_unread || !c->passed ||
        (c->rechecked && !c->recheck_passed))
      return 0;
  }
  return 1;
}

json_t *pf__json_num(double v) {
  return isfinite(v) ? json_real(v) : json_null();
}

/* A snprintf-free way to build "9.0" and friends is not worth having; the
 * strings here are short and bounded. */
static json_t *str_or_null(const char *s) {
  return (s != NULL && s[0] != '\0') ? cm_json_text(s) : json_null();
}

static json_t *opt_uint(int ok, unsigned v) {
  return ok ? json_integer((json_int_t)v) : json_null();
}

static json_t *opt_bool(int ok, int v) {
  return ok ? json_boolean(v) : json_null();
}

/* {"power": us, "thermal": us} or null when the counters were not read */
static json_t *violation_json(int ok, double power_us, double thermal_us) {
  json_t *o;
  if (!ok)
    return json_null();
  o = json_object();
  json_object_set_new(o, "power", json_real(power_us));
  json_object_set_new(o, "thermal", json_real(thermal_us));
  return o;
}

static json_t *snapshot_json(const pf_nvml_snapshot *s) {
  char names[256];
  json_t *o = json_object();
  pf_nvml_reason_names(s->reasons, names, sizeof names);
  json_object_set_new(o, "sm_clock_mhz",
                      opt_uint(s->sm_clock_ok, s->sm_clock_mhz));
  json_object_set_new(o, "mem_clock_mhz",
                      opt_uint(s->mem_clock_ok, s->mem_clock_mhz));
  json_object_set_new(o, "temperature_c", opt_uint(s->temp_ok, s->temp_c));
  json_object_set_new(o, "power_w",
                      s->power_ok ? json_real(s->power_w) : json_null());
  json_object_set_new(o, "throttle_reasons",
                      s->reasons_ok ? json_integer((json_int_t)s->reasons)
                                    : json_null());
  json_object_set_new(o, "throttle_reason_names",
                      s->reasons_ok ? cm_json_text(names) : json_null());
  if (s->viol_ok) {
    json_t *v = json_object();
    json_object_set_new(v, "power", json_integer((json_int_t)s->viol_power_ns));
    json_object_set_new(v, "thermal",
                        json_integer((json_int_t)s->viol_thermal_ns));
    json_object_set_new(o, "violation_ns", v);
  } else {
    json_object_set_new(o, "violation_ns", json_null());
  }
  return o;
}

/* Statistics of a series, keys suffixed _s where they are times. */
static void series_json(json_t *o, const pf_series *s) {
  json_t *arr = json_array();
  size_t i;
  const pf_stats *st = &s->stats;
  /* Statistics only over a finished series: one whose timing failed keeps
   * its samples, with null statistics rather than the zeroes never
   * computed. */
  int have = pf_series_summarised(s);
  for (i = 0; i < s->n; i++)
    json_array_append_new(arr, json_real(s->samples[i]));
  json_object_set_new(o, "samples_s", arr);
  json_object_set_new(o, "n", json_integer((json_int_t)s->n));
  json_object_set_new(o, "min_s", pf__json_num(have ? st->min : NAN));
  json_object_set_new(o, "median_s", pf__json_num(have ? st->median : NAN));
  json_object_set_new(o, "max_s", pf__json_num(have ? st->max : NAN));
  json_object_set_new(o, "mean_s", pf__json_num(have ? st->mean : NAN));
  json_object_set_new(o, "stddev_s", pf__json_num(have ? st->stddev : NAN));
  json_object_set_new(o, "cv", pf__json_num(have ? st->cv : NAN));
  json_object_set_new(o, "q1_s", pf__json_num(have ? st->q1 : NAN));
  json_object_set_new(o, "q3_s", pf__json_num(have ? st->q3 : NAN));
  json_object_set_new(o, "iqr_s", pf__json_num(have ? st->iqr : NAN));
  json_object_set_new(o, "warmup_s", pf__json_num(s->warmup_s));
  json_object_set_new(o, "warmup_launches", json_integer(s->warmup_launches));
  json_object_set_new(o, "stop_reason", str_or_null(s->stop_reason));
}

static json_t *env_json(const pf_results *r) {
  const pf_env *e = &r->env;
  json_t *o = json_object(), *gpu = json_object(), *nv = json_object();
  json_t *os = json_object(), *git = json_object(), *bin = json_object();
  json_t *nvml = json_object(), *argv = json_array();
  char cc[16];
  int i;

  cm_snprintf(cc, sizeof cc, "%d.%d", e->cc_major, e->cc_minor);
  json_object_set_new(gpu, "ordinal", json_integer(e->device));
  json_object_set_new(gpu, "name", str_or_null(e->gpu_name));
  json_object_set_new(gpu, "uuid", str_or_null(e->gpu_uuid));
  json_object_set_new(gpu, "pci_bus_id", str_or_null(e->pci_bus_id));
  json_object_set_new(gpu, "compute_capability",
                      e->cc_major ? cm_json_text(cc) : json_null());
  json_object_set_new(gpu, "sm_count", json_integer(e->sm_count));
  json_object_set_new(gpu, "l2_bytes", json_integer(e->l2_bytes));
  json_object_set_new(gpu, "memory_bytes", json_integer(e->global_mem_bytes));
  json_object_set_new(
      gpu, "sm_clock_peak_mhz",
      pf__json_num(e->sm_clock_khz ? e->sm_clock_khz / 1e3 : NAN));
  json_object_set_new(
      gpu, "mem_clock_peak_mhz",
      pf__json_num(e->mem_clock_khz ? e->mem_clock_khz / 1e3 : NAN));
  json_object_set_new(gpu, "mem_bus_width_bits",
                      json_integer(e->mem_bus_width_bits));
  json_object_set_new(
      gpu, "max_sm_clock_mhz",
      opt_uint(e->nvml.max_sm_clock_ok, e->nvml.max_sm_clock_mhz));
  json_object_set_new(
      gpu, "max_mem_clock_mhz",
      opt_uint(e->nvml.max_mem_clock_ok, e->nvml.max_mem_clock_mhz));
  json_object_set_new(gpu, "persistence_mode",
                      opt_bool(e->nvml.persistence_ok, e->nvml.persistence));
  json_object_set_new(gpu, "ecc", opt_bool(e->nvml.ecc_ok, e->nvml.ecc));
  json_object_set_new(o, "gpu", gpu);

  json_object_set_new(o, "driver_version", str_or_null(e->nvml.driver));
  json_object_set_new(o, "cuda_driver_version",
                      json_integer(e->driver_version));
  json_object_set_new(o, "cuda_runtime_version",
                      json_integer(e->runtime_version));
  json_object_set_new(nv, "version", str_or_null(e->nvcc_version));
  json_object_set_new(nv, "flags", cm_json_text(e->cuda_flags));
  json_object_set_new(nv, "architectures", str_or_null(e->cuda_archs));
  json_object_set_new(o, "nvcc", nv);
  json_object_set_new(o, "build_type", str_or_null(e->build_type));
  json_object_set_new(o, "c_compiler", str_or_null(e->c_compiler));
  json_object_set_new(o, "host", str_or_null(e->host));
  json_object_set_new(os, "name", cm_json_text(e->os[0] ? e->os : "other"));
  json_object_set_new(os, "release", str_or_null(e->os_release));
  json_object_set_new(o, "os", os);
  json_object_set_new(git, "commit", str_or_null(e->git_commit));
  json_object_set_new(git, "dirty",
                      e->git_dirty < 0 ? json_null()
                                       : json_boolean(e->git_dirty));
  json_object_set_new(git, "source", cm_json_text("build"));
  json_object_set_new(o, "git", git);
  json_object_set_new(bin, "path", str_or_null(e->exe_path));
  json_object_set_new(bin, "sha256", str_or_null(e->exe_sha256));
  json_object_set_new(o, "binary", bin);
  for (i = 0; i < e->argc && e->argv != NULL; i++)
    json_array_append_new(argv, cm_json_text(e->argv[i] ? e->argv[i] : ""));
  json_object_set_new(o, "argv", argv);
  json_object_set_new(o, "timestamp_utc", str_or_null(e->timestamp));
  json_object_set_new(nvml, "present", json_boolean(e->have_nvml));
  json_object_set_new(nvml, "absent_reason",
                      e->have_nvml ? json_null()
                                   : str_or_null(e->nvml_absent_reason));
  json_object_set_new(o, "nvml", nvml);
  json_object_set_new(
      o, "other_processes",
      r->other_processes < 0 ? json_null() : json_integer(r->other_processes));
  return o;
}

static json_t *settings_json(const pf_bench_opts *o) {
  json_t *s = json_object();
  json_object_set_new(s, "warmup_s", pf__json_num(o->warmup_s));
  json_object_set_new(s, "min_samples", json_integer(o->min_samples));
  json_object_set_new(s, "max_samples", json_integer(o->max_samples));
  json_object_set_new(s, "target_cv", pf__json_num(o->target_cv));
  json_object_set_new(s, "budget_s", pf__json_num(o->budget_s));
  json_object_set_new(s, "cache", cm_json_text(o->cold ? "cold" : "hot"));
  json_object_set_new(s, "flush",
                      !o->cold                    ? json_null()
                      : o->flush == PF_FLUSH_READ ? cm_json_text("read")
                                                  : cm_json_text("write"));
  json_object_set_new(
      s, "peer_sampling",
      cm_json_text(o->peer_interleaved ? "interleaved" : "sequential"));
  json_object_set_new(s, "profile_range", json_boolean(o->profile_range));
  json_object_set_new(s, "allocator", str_or_null(o->allocator));
  json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
  json_object_set_new(s, "roofline_slack", json_real(PF_ROOFLINE_SLACK));
  json_object_set_new(s, "sample_above_macs",
                      o->sample_above_macs >= 0
                          ? json_integer((json_int_t)o->sample_above_macs)
                          : json_null());
  json_object_set_new(s, "matmul_ref_tile", str_or_null(o->matmul_ref_tile));
  if (o->lock_sm_mhz > 0) {
    json_t *l = json_object();
    json_object_set_new(l, "sm_mhz", json_integer(o->lock_sm_mhz));
    json_object_set_new(l, "mem_mhz",
                        o->lock_mem_mhz > 0 ? json_integer(o->lock_mem_mhz)
                                            : json_null());
    json_object_set_new(s, "clocks_locked", l);
  } else {
    json_object_set_new(s, "clocks_locked", json_null());
  }
  return s;
}

static json_t *case_json(const pf_case_result *c) {
  json_t *o = json_object(), *dims = json_array(), *cor = json_object();
  json_t *tim = json_object(), *thr = json_object(), *peer = json_object();
  int i;
  json_object_set_new(o, "op", cm_json_text(c->op));
  json_object_set_new(o, "variant", cm_json_text(c->variant));
  json_object_set_new(o, "dtype", cm_json_text(c->dtype));
  json_object_set_new(o, "shape", cm_json_text(c->shape));
  for (i = 0; i < c->ndims && i < 3; i++)
    json_array_append_new(dims, json_integer(c->dims[i]));
  json_object_set_new(o, "dims", dims);
  json_object_set_new(o, "stride", json_integer(c->stride));
  json_object_set_new(o, "logical_bytes", json_real(c->logical_bytes));
  json_object_set_new(o, "flops", json_real(c->flops));
  json_object_set_new(o, "bound",
                      cm_json_text(c->flops > 0 ? "compute" : "memory"));
  json_object_set_new(o, "cache", cm_json_text(c->cold ? "cold" : "hot"));
  json_object_set_new(o, "input_sets", json_integer(c->nsets));

  json_object_set_new(
      cor, "passed",
      json_boolean(c->passed && (!c->rechecked || c->recheck_passed)));
  json_object_set_new(cor, "max_abs_err", pf__json_num(c->max_abs_err));
  json_object_set_new(cor, "max_rel_err", pf__json_num(c->max_rel_err));
  json_object_set_new(cor, "rtol", pf__json_num(c->rtol));
  json_object_set_new(cor, "atol", pf__json_num(c->atol));
  json_object_set_new(cor, "rechecked_after_timing",
                      json_boolean(c->rechecked));
  json_object_set_new(cor, "recheck_passed",
                      c->rechecked ? json_boolean(c->recheck_passed)
                                   : json_null());
  if (c->rounding_checked) {
    json_t *rd = json_object();
    json_object_set_new(rd, "counted", json_integer(c->rounding.counted));
    json_object_set_new(rd, "off_nearest", pf__json_num(c->rounding.off));
    json_object_set_new(rd, "one_way", pf__json_num(c->rounding.one_way));
    json_object_set_new(cor, "rounding", rd);
  } else {
    json_object_set_new(cor, "rounding", json_null());
  }
  json_object_set_new(cor, "sampled",
                      c->sampled > 0 ? json_integer((json_int_t)c->sampled)
                                     : json_null());
  json_object_set_new(o, "correctness", cor);

  series_json(tim, &c->series);
  json_object_set_new(tim, "throttled", json_boolean(c->throttled));
  json_object_set_new(
      tim, "throttle_time_us",
      violation_json(c->viol_ok, c->viol_power_us, c->viol_thermal_us));
  json_object_set_new(tim, "nvml_before", snapshot_json(&c->before));
  json_object_set_new(tim, "nvml_after", snapshot_json(&c->after));
  json_object_set_new(tim, "profiled_launch", json_boolean(c->profiled));
  json_object_set_new(tim, "hold_late", json_integer(c->hold_late));
  json_object_set_new(o, "timing", tim);

  json_object_set_new(thr, "gbps", pf__json_num(c->gbps));
  json_object_set_new(thr, "tflops", pf__json_num(c->tflops));
  json_object_set_new(thr, "fraction_of_copy_bw",
                      pf__json_num(c->fraction_of_copy_bw));
  json_object_set_new(thr, "fraction_of_peer",
                      pf__json_num(c->fraction_of_peer));
  json_object_set_new(thr, "roofline_s", pf__json_num(c->roofline_s));
  json_object_set_new(thr, "suspicious", json_boolean(c->suspicious));
  json_object_set_new(thr, "suspicious_reason",
                      c->suspicious ? cm_json_text(c->suspicious_reason)
                                    : json_null());
  json_object_set_new(o, "throughput", thr);

  json_object_set_new(peer, "name", str_or_null(c->peer.name));
  json_object_set_new(peer, "present", json_boolean(c->peer.present));
  json_object_set_new(peer, "absent_reason",
                      c->peer.present ? json_null()
                                      : str_or_null(c->peer.absent_reason));
  json_object_set_new(
      peer, "median_s",
      pf__json_num(c->peer.present && pf_series_summarised(&c->peer.series)
                       ? c->peer.series.stats.median
                       : NAN));
  json_object_set_new(peer, "ratio", pf__json_num(c->peer.ratio));
  if (c->peer.present) {
    json_t *ps = json_object();
    series_json(ps, &c->peer.series);
    json_object_set_new(peer, "timing", ps);
  }
  json_object_set_new(o, "peer", peer);
  return o;
}

/* A measured quantity of the ceilings block: `key` (value, or null when
 * not measured) and, when timing_key is not NULL and it was measured, its
 * series under timing_key. */
static void ceiling_json(json_t *ceil, const char *key, const pf_ceiling *c,
                         double value, const char *timing_key) {
  json_object_set_new(ceil, key,
                      c->measured ? pf__json_num(value) : json_null());
  if (timing_key != NULL && c->measured) {
    json_t *t = json_object();
    series_json(t, &c->series);
    json_object_set_new(ceil, timing_key, t);
  }
}

json_t *pf_json_document(const pf_results *r) {
  json_t *doc = json_object(), *marks = json_array(), *warn = json_array();
  json_t *ceil = json_object(), *cases = json_array();
  size_t i;
  int m;
  if (doc == NULL)
    return NULL;
  json_object_set_new(doc, "schema_version", json_integer(PF_SCHEMA_VERSION));
  json_object_set_new(doc, "generator", cm_json_text("cuda_portfolio"));
  json_object_set_new(doc, "instrumented", json_boolean(r->markers.count));
  for (m = 0; m < r->markers.count; m++)
    json_array_append_new(marks, cm_json_text(r->markers.names[m]));
  json_object_set_new(doc, "instrumentation_markers", marks);
  json_object_set_new(doc, "clean", json_boolean(pf_results_clean(r)));
  /* every case of the selection timed (or failed before timing): a file
   * from a run that stopped, or skipped cases on this device, says so */
  json_object_set_new(doc, "complete", json_boolean(r->not_timed == 0));
  json_object_set_new(doc, "settings", settings_json(&r->opts));
  /* hot: whether the samples were queued behind the hold (cpk_hold_stream),
   * which keeps the host's submission out of them; null when cold */
  json_object_set_new(json_object_get(doc, "settings"), "hot_hold",
                      r->opts.cold ? json_null() : json_boolean(r->hot_held));
  json_object_set_new(doc, "environment", env_json(r));

  ceiling_json(ceil, "copy_bandwidth_gbps", &r->copy, r->copy.gbps, "timing");
  json_object_set_new(ceil, "copy_bytes", json_real(r->copy.bytes));
  json_object_set_new(ceil, "method",
                      cm_json_text("cudaMemcpyAsync device to device; "
                                   "2 x bytes (read + write) / median"));
  json_object_set_new(ceil, "absent_reason",
                      r->copy.measured ? json_null()
                                       : str_or_null(r->copy.absent_reason));
  ceiling_json(ceil, "read_bandwidth_gbps", &r->read, r->read.gbps,
               "read_timing");
  json_object_set_new(ceil, "read_bytes", json_real(r->read.bytes));
  json_object_set_new(ceil, "read_method",
                      cm_json_text("cpk_read_stream (16-byte evict-first "
                                   "loads) of the copy's source; bytes / "
                                   "median"));
  ceiling_json(ceil, "launch_floor_s", &r->launch_floor,
               r->launch_floor.series.stats.median, "launch_floor_timing");
  json_object_set_new(ceil, "throttle_time_us",
                      violation_json(r->ceil_viol_ok, r->ceil_viol_power_us,
                                     r->ceil_viol_thermal_us));
  json_object_set_new(doc, "ceilings", ceil);

  for (i = 0; i < r->nwarnings; i++)
    json_array_append_new(warn, cm_json_text(r->warnings[i]));
  json_object_set_new(doc, "warnings", warn);
  for (i = 0; i < r->ncases; i++)
    json_array_append_new(cases, case_json(&r->cases[i]));
  json_object_set_new(doc, "cases", cases);
  return doc;
}

int pf_json_write_file(const json_t *doc, const char *path) {
  char *text;
  int r;
  if (doc == NULL || path == NULL)
    return CM_EINVAL;
  text = cm_json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
  if (text == NULL)
    return CM_ENOMEM;
  r = plat_write_file_atomic(path, text, strlen(text));
  free(text);
  return r;
}
