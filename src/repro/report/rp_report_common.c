/* rp_report_common.c: rows and facts shared by the report writers. */
#include "rp_report_common.h"

#include "cm_str.h"

#include <math.h>
#include <string.h>

const rp_results *rp__main_results(const rp_run *run) {
  return run->nclean > 0 ? &run->clean[0] : NULL;
}

static void set(rp__kv *rows, size_t *n, const char *key, const char *v) {
  rows[*n].key = key;
  cm_strlcpy(rows[*n].value, v ? v : "", sizeof rows[*n].value);
  (*n)++;
}

/* The commit the binary was built from into buf ("" when unknown) and its
 * tree's dirty flag: the results' record where there are results, else
 * what a stage banner said (a run of test or sanitize alone has no
 * results). */
static void bin_git(const rp_run *run, const rp_results *r, char *buf,
                    size_t size, int *dirty) {
  const char *plus;
  buf[0] = '\0';
  *dirty = -1;
  if (r != NULL && r->git_commit[0] != '\0' &&
      strcmp(r->git_commit, "unknown") != 0) {
    cm_strlcpy(buf, r->git_commit, size);
    *dirty = r->git_dirty;
    return;
  }
  if (!run->binary_git[0] || cm_starts_with(run->binary_git, "unknown"))
    return;
  cm_strlcpy(buf, run->binary_git, size);
  plus = strchr(run->binary_git, '+');
  *dirty = 0;
  if (plus != NULL) {
    size_t off = (size_t)(plus - run->binary_git);
    if (off < size)
      buf[off] = '\0';
    *dirty = strcmp(plus, "+dirty") == 0 ? 1 : -1;
  }
}

size_t rp__env_rows(const rp_run *run, rp__kv *rows) {
  const rp_results *r = rp__main_results(run);
  char t[512], bin[64];
  size_t n = 0;
  int bin_dirty;
  if (r == NULL && run->ninstrumented > 0)
    r = &run->instrumented[0];
  set(rows, &n, "run id", run->run_id);
  set(rows, &n, "run status", run->status);
  cm_snprintf(t, sizeof t, "%s .. %s", run->started, run->ended);
  set(rows, &n, "run time (UTC)", t);
  set(rows, &n, "host", run->host[0] || !r ? run->host : r->host);
  set(rows, &n, "OS environment", run->os[0] || !r ? run->os : r->os);
  bin_git(run, r, bin, sizeof bin, &bin_dirty);
  if (bin[0] != '\0' &&
      (strcmp(run->git_commit, bin) != 0 ||
       (bin_dirty >= 0 && run->git_dirty >= 0 && bin_dirty != run->git_dirty)))
    /* The run's folder had no git, or not the binary's commit or tree
     * state (a tree copied to the GPU machine, a prebuilt build folder, a
     * folder changed after the build): the binary still says what it was
     * built from. */
    cm_snprintf(t, sizeof t, "%s%s in the run's folder; binary built from %s%s",
                run->git_commit[0] ? run->git_commit : "unknown",
                run->git_dirty == 1 ? " (dirty)" : "", bin,
                bin_dirty == 1   ? " (dirty tree)"
                : bin_dirty == 0 ? " (clean tree)"
                                 : "");
  else
    cm_snprintf(t, sizeof t, "%s%s", run->git_commit,
                run->git_dirty == 1 ? " (dirty)" : "");
  set(rows, &n, "git commit", t);
  set(rows, &n, "tools", run->tools);
  if (r == NULL)
    return n;
  set(rows, &n, "OS release", r->os_release);
  {
    /* a value the results file left null reads "unknown", not nan or -1 */
    char sms[32], smc[32], mc[32], rt[32], dr[32];
    if (r->sm_count > 0)
      cm_snprintf(sms, sizeof sms, "%lld SMs", (long long)r->sm_count);
    else
      cm_strlcpy(sms, "SMs unknown", sizeof sms);
    cm_snprintf(t, sizeof t, "%s (compute capability %s, %s)", r->gpu_name,
                r->compute_capability[0] ? r->compute_capability : "unknown",
                sms);
    set(rows, &n, "GPU", t);
    set(rows, &n, "GPU UUID", r->gpu_uuid);
    cm_snprintf(t, sizeof t, "SM %s MHz, memory %s MHz (peak)",
                rp__fmt(smc, sizeof smc, 0, r->sm_clock_mhz),
                rp__fmt(mc, sizeof mc, 0, r->mem_clock_mhz));
    set(rows, &n, "clocks", t);
    set(rows, &n, "driver", r->driver);
    if (r->cuda_runtime > 0)
      cm_snprintf(rt, sizeof rt, "%lld", (long long)r->cuda_runtime);
    else
      cm_strlcpy(rt, "unknown", sizeof rt);
    if (r->cuda_driver > 0)
      cm_snprintf(dr, sizeof dr, "%lld", (long long)r->cuda_driver);
    else
      cm_strlcpy(dr, "unknown", sizeof dr);
    cm_snprintf(t, sizeof t, "runtime %s, driver API %s", rt, dr);
    set(rows, &n, "CUDA", t);
  }
  set(rows, &n, "nvcc", r->nvcc);
  set(rows, &n, "binary SHA-256", r->binary_sha256);
  set(rows, &n, "results timestamp", r->timestamp);
  cm_snprintf(t, sizeof t, "%s GB/s%s%s", isfinite(r->copy_gbps) ? "" : "n/a",
              r->copy_absent_reason[0] ? ": " : "", r->copy_absent_reason);
  if (isfinite(r->copy_gbps))
    cm_snprintf(t, sizeof t, "%.1f GB/s (device-to-device copy, this run)",
                r->copy_gbps);
  set(rows, &n, "copy ceiling", t);
  if (isfinite(r->read_gbps)) {
    cm_snprintf(t, sizeof t, "%.1f GB/s (reading alone, this run)",
                r->read_gbps);
    set(rows, &n, "read ceiling", t);
  }
  if (isfinite(r->launch_floor_s)) {
    cm_snprintf(t, sizeof t, "%.2f us (an empty kernel between the events)",
                r->launch_floor_s * 1e6);
    set(rows, &n, "launch floor", t);
  }
  if (r->cache[0] != '\0') {
    cm_snprintf(t, sizeof t, "%s%s%s%s%s", r->cache,
                r->flush[0] ? ", L2 flush by " : "",
                r->flush[0]
                    ? (strcmp(r->flush, "read") == 0 ? "reading" : "writing")
                    : "",
                r->peer_sampling[0] ? ", peer sampled " : "", r->peer_sampling);
    set(rows, &n, "timing protocol", t);
  }
  if (r != NULL) {
    if (r->clocks_locked[0] != '\0')
      cm_snprintf(t, sizeof t, "locked for the run (--lock-clocks): %s",
                  r->clocks_locked);
    else
      cm_strlcpy(t,
                 "none: clocks as found (recorded before and after each "
                 "case)",
                 sizeof t);
    set(rows, &n, "clock lock", t);
  }
  cm_snprintf(t, sizeof t, "%zu clean, %zu instrumented", run->nclean,
              run->ninstrumented);
  set(rows, &n, "results files", t);
  return n;
}

const char *rp__sampled_note(const rp_case *c, char *buf, size_t size) {
  if (size > 0)
    buf[0] = '\0';
  if (c->sampled > 0)
    (void)cm_snprintf(buf, size, ", sampled %lld", (long long)c->sampled);
  return buf;
}

void rp__case_label(const rp_case *c, char *buf, size_t size) {
  if (c->stride > 1)
    cm_snprintf(buf, size, "%s %s %s %s s%lld", c->op, c->variant, c->dtype,
                c->shape, (long long)c->stride);
  else
    cm_snprintf(buf, size, "%s %s %s %s", c->op, c->variant, c->dtype,
                c->shape);
}

int rp__negative_control(const rp_run *run, char *buf, size_t size) {
  size_t i;
  if (run->negative_control_caught >= 0) {
    cm_snprintf(buf, size, "%s%s%s",
                run->negative_control_caught ? "caught" : "NOT caught",
                run->negative_control_detail[0] ? ": " : "",
                run->negative_control_detail);
    return run->negative_control_caught;
  }
  for (i = 0; i < run->nfindings; i++) {
    const rp_finding *f = &run->findings[i];
    if (f->negative_control &&
        cm_starts_with(f->kind, "Invalid __global__ write")) {
      cm_snprintf(buf, size, "caught: %s in %s%s%s", f->kind, f->kernel,
                  f->location[0] ? " at " : "", f->location);
      return 1;
    }
  }
  cm_snprintf(buf, size, "not recorded in this run");
  return -1;
}

void rp__no_resources(const rp_run *run, char *buf, size_t size) {
  size_t i;
  if (!run->have_manifest) {
    cm_snprintf(buf, size,
                "No resource table is recorded: the run has no "
                "manifest.");
    return;
  }
  for (i = 0; i < run->nstages; i++) {
    const rp_stage *st = &run->stages[i];
    if (strcmp(st->name, "inspect") != 0)
      continue;
    if (strcmp(st->status, "passed") == 0)
      cm_snprintf(buf, size,
                  "No resource table is recorded, though the "
                  "inspect stage passed.");
    else
      cm_snprintf(buf, size,
                  "No resource table is recorded: the inspect stage %s%s%s.",
                  st->status[0] ? st->status : "left no status",
                  st->reason[0] ? ": " : "", st->reason);
    return;
  }
  cm_snprintf(buf, size,
              "No resource table is recorded: the inspect stage did not run "
              "(left out by --only or --skip, as in runs on a GPU machine "
              "whose build machine inspects, or the run ended before it: see "
              "Stages; ./repro inspect records one).");
}

int rp__verify_control(const rp_run *run, char *buf, size_t size) {
  if (run->verify_control == 1)
    cm_snprintf(buf, size, "failed as predicted");
  else if (run->verify_control == 0)
    cm_snprintf(buf, size,
                "NOT caught: the check did not fail it where the host "
                "predicts (the step's log has each case's line)");
  else if (run->verify_control_exit >= 0)
    cm_snprintf(buf, size, "not decided (its step exited %lld)",
                (long long)run->verify_control_exit);
  else if (run->verify_control_recorded)
    /* the stage ran the step and wrote its record with no exit code: it
     * was killed, timed out or could not start, which "not recorded"
     * would hide */
    cm_snprintf(buf, size,
                "not decided (its step did not exit: killed, timed out or "
                "not started; the test stage's reason says which)");
  else
    cm_snprintf(buf, size, "not recorded in this run");
  return run->verify_control;
}

int rp__is_limitation(const char *s) {
  return strcmp(s, "passed") != 0 && strcmp(s, "pass") != 0 &&
         strcmp(s, "ok") != 0;
}

size_t rp__each_limit(const rp_run *run,
                      void (*fn)(void *ud, const rp__limit *l), void *ud) {
  const rp_results *r = rp__main_results(run);
  size_t i, j, n = 0;
  for (i = 0; i < run->nstages; i++) {
    const rp_stage *s = &run->stages[i];
    if (rp__is_limitation(s->status)) {
      rp__limit l = {s->name, NULL, s->status,
                     s->reason[0] ? s->reason : "no reason recorded"};
      fn(ud, &l);
      n++;
    }
    for (j = 0; j < s->nchecks; j++)
      if (rp__is_limitation(s->checks[j].status)) {
        rp__limit l = {s->name, s->checks[j].name, s->checks[j].status,
                       s->checks[j].detail};
        fn(ud, &l);
        n++;
      }
  }
  for (i = 0; r != NULL && i < r->nwarnings; i++, n++) {
    rp__limit l = {NULL, NULL, NULL, r->warnings[i]};
    fn(ud, &l);
  }
  return n;
}

const char *rp__fmt(char *buf, size_t size, int digits, double v) {
  if (!isfinite(v))
    cm_strlcpy(buf, "n/a", size);
  else if (fabs(v) >= 1e15)
    /* fixed notation past this would not fit a table cell (and a cut one
     * reads as another number): 1e300 s was shown as 1000...0 (31 digits) */
    cm_snprintf(buf, size, "%.3g", v);
  else
    cm_snprintf(buf, size, "%.*f", digits, v);
  return buf;
}

double rp__peer_tflops(const rp_case *c) {
  if (c->flops > 0 && c->peer_median_s > 0)
    return c->flops / c->peer_median_s / 1e12;
  return NAN;
}

const char *rp__relpath(const rp_run *run, const char *path) {
  size_t l = strlen(run->dir);
  if (l > 0 && strncmp(path, run->dir, l) == 0 &&
      (path[l] == '/' || path[l] == '\\'))
    return path + l + 1;
  return path;
}

size_t rp__findings_elided(const rp_run *run, size_t i) {
  size_t first = i, end = i;
  const char *tool = run->findings[i].tool;
  while (first > 0 && strcmp(run->findings[first - 1].tool, tool) == 0)
    first--;
  if (i - first < RP__FINDINGS_SHOWN)
    return 0;
  while (end < run->nfindings && strcmp(run->findings[end].tool, tool) == 0)
    end++;
  return end - i;
}
