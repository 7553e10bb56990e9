/* rp_report_model.c: the only place that knows results and manifest field
 * names (see rp_report_model.h). Liberal reader: absent means unknown. */
#include "rp_report_model.h"

#include "cm_error.h"
#include "cm_sha256.h"
#include "cm_file.h"
#include "cm_path.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#if defined(RP_REPORT_HAVE_ARCHIVE)
#include "rp_archive.h"
#endif

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* ---- small accessors: absent or wrong type means unknown ---- */

static const json_t *get(const json_t *o, const char *key) {
  return json_is_object(o) ? json_object_get(o, key) : NULL;
}

static void get_str(const json_t *o, const char *key, char *dst, size_t size) {
  const json_t *v = get(o, key);
  dst[0] = '\0';
  if (json_is_string(v))
    cm_strlcpy(dst, json_string_value(v), size);
  /* The model's strings come from files repro does not control: one
   * line each, with no control character for a terminal to obey. */
  cm_text_oneline(dst);
}

static double get_num(const json_t *o, const char *key) {
  const json_t *v = get(o, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static int64_t get_int(const json_t *o, const char *key) {
  const json_t *v = get(o, key);
  if (json_is_integer(v))
    return (int64_t)json_integer_value(v);
  if (json_is_real(v)) {
    /* in range before the cast (a file's 1e300 or NaN would be undefined
     * behaviour): the integers a double holds exactly, else unknown */
    const double d = json_real_value(v);
    return d >= -9007199254740992.0 && d <= 9007199254740992.0 ? (int64_t)d
                                                               : -1;
  }
  return -1;
}

/* 1, 0, or -1 for absent/null/other. */
static int get_bool(const json_t *o, const char *key) {
  const json_t *v = get(o, key);
  return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* ---- results ---- */

static int parse_case(const json_t *c, rp_case *k) {
  const json_t *cor = get(c, "correctness"), *tim = get(c, "timing");
  const json_t *thr = get(c, "throughput"), *peer = get(c, "peer");
  const json_t *s = get(tim, "samples_s");
  char bound[16];
  size_t i;
  memset(k, 0, sizeof *k);
  get_str(c, "op", k->op, sizeof k->op);
  get_str(c, "variant", k->variant, sizeof k->variant);
  get_str(c, "dtype", k->dtype, sizeof k->dtype);
  get_str(c, "shape", k->shape, sizeof k->shape);
  k->stride = get_int(c, "stride");
  k->logical_bytes = get_num(c, "logical_bytes");
  k->flops = get_num(c, "flops");
  get_str(c, "bound", bound, sizeof bound);
  k->memory_bound = bound[0] ? strcmp(bound, "memory") == 0 : !(k->flops > 0);
  k->passed = get_bool(cor, "passed");
  k->max_abs_err = get_num(cor, "max_abs_err");
  k->max_rel_err = get_num(cor, "max_rel_err");
  k->rtol = get_num(cor, "rtol");
  k->atol = get_num(cor, "atol");
  k->sampled = get_int(cor, "sampled");
  if (k->sampled < 0)
    k->sampled = 0;
  if (json_is_array(s) && json_array_size(s) > 0) {
    k->samples = malloc(json_array_size(s) * sizeof *k->samples);
    if (k->samples == NULL)
      return CM_ENOMEM;
    for (i = 0; i < json_array_size(s); i++) {
      const json_t *v = json_array_get(s, i);
      if (json_is_number(v))
        k->samples[k->n++] = json_number_value(v);
    }
  }
  k->median_s = get_num(tim, "median_s");
  k->min_s = get_num(tim, "min_s");
  k->max_s = get_num(tim, "max_s");
  k->mean_s = get_num(tim, "mean_s");
  k->stddev_s = get_num(tim, "stddev_s");
  k->cv = get_num(tim, "cv");
  k->throttled = get_bool(tim, "throttled") == 1;
  k->gbps = get_num(thr, "gbps");
  k->tflops = get_num(thr, "tflops");
  k->fraction_of_copy_bw = get_num(thr, "fraction_of_copy_bw");
  k->suspicious = get_bool(thr, "suspicious") == 1;
  get_str(peer, "name", k->peer_name, sizeof k->peer_name);
  k->peer_present = get_bool(peer, "present") == 1;
  k->peer_median_s = get_num(peer, "median_s");
  k->peer_ratio = get_num(peer, "ratio");
  return CM_OK;
}

int rp_results_version(const json_t *doc, char *why, size_t size) {
  const json_t *v = get(doc, "schema_version");
  why[0] = '\0';
  if (json_is_integer(v) && json_integer_value(v) == RP_RESULTS_SCHEMA_VERSION)
    return CM_OK;
  if (v == NULL)
    cm_snprintf(why, size, "no schema_version");
  else if (json_is_integer(v))
    cm_snprintf(why, size, "schema_version %lld",
                (long long)json_integer_value(v));
  else if (json_is_real(v))
    cm_snprintf(why, size, "schema_version %g (not a whole number)",
                json_real_value(v));
  else if (json_is_string(v)) {
    char t[40];
    cm_strlcpy(t, json_string_value(v), sizeof t);
    cm_text_oneline(t);
    cm_snprintf(why, size, "schema_version \"%s\" (a string)", t);
  } else
    cm_snprintf(why, size, "schema_version that is no number");
  cm_snprintf(why + strlen(why), size - strlen(why),
              ", where this repro reads only schema_version %d "
              "(docs/BENCHMARKING.md); write the results again with this "
              "checkout's cuda_portfolio, or read them with the repro of "
              "the checkout that wrote them",
              RP_RESULTS_SCHEMA_VERSION);
  return CM_ENOTSUP;
}

/* rp_results_from_json's parse; on failure *out holds what it had read */
static int results_parse(const json_t *doc, rp_results *out) {
  const json_t *env, *gpu, *cases, *marks, *warn, *os, *git;
  size_t i;
  int r;
  char why[8];
  memset(out, 0, sizeof *out);
  cases = get(doc, "cases");
  if (!json_is_object(doc) || !json_is_array(cases))
    return CM_EPARSE;
  /* another version's fields may mean other things (a reader refuses
   * other versions, BENCHMARKING.md): no guess at what they say */
  if (rp_results_version(doc, why, sizeof why) != CM_OK)
    return CM_ENOTSUP;
  out->instrumented = get_bool(doc, "instrumented");
  marks = get(doc, "instrumentation_markers");
  for (i = 0; json_is_array(marks) && i < json_array_size(marks); i++) {
    const json_t *m = json_array_get(marks, i);
    size_t l = strlen(out->markers);
    if (!json_is_string(m))
      continue;
    cm_snprintf(out->markers + l, sizeof out->markers - l, "%s%s",
                l ? ", " : "", json_string_value(m));
  }
  cm_text_oneline(out->markers);
  env = get(doc, "environment");
  gpu = get(env, "gpu");
  get_str(gpu, "name", out->gpu_name, sizeof out->gpu_name);
  get_str(gpu, "uuid", out->gpu_uuid, sizeof out->gpu_uuid);
  get_str(gpu, "compute_capability", out->compute_capability,
          sizeof out->compute_capability);
  out->sm_count = get_int(gpu, "sm_count");
  out->sm_clock_mhz = get_num(gpu, "sm_clock_peak_mhz");
  out->mem_clock_mhz = get_num(gpu, "mem_clock_peak_mhz");
  get_str(env, "driver_version", out->driver, sizeof out->driver);
  out->cuda_runtime = get_int(env, "cuda_runtime_version");
  out->cuda_driver = get_int(env, "cuda_driver_version");
  get_str(get(env, "nvcc"), "version", out->nvcc, sizeof out->nvcc);
  get_str(env, "host", out->host, sizeof out->host);
  os = get(env, "os");
  get_str(env, "os", out->os, sizeof out->os); /* a flat "os": "linux" */
  if (json_is_object(os))
    get_str(os, "name", out->os, sizeof out->os);
  get_str(os, "release", out->os_release, sizeof out->os_release);
  git = get(env, "git");
  get_str(git, "commit", out->git_commit, sizeof out->git_commit);
  out->git_dirty = get_bool(git, "dirty");
  get_str(get(env, "binary"), "sha256", out->binary_sha256,
          sizeof out->binary_sha256);
  get_str(env, "timestamp_utc", out->timestamp, sizeof out->timestamp);
  out->copy_gbps = get_num(get(doc, "ceilings"), "copy_bandwidth_gbps");
  out->read_gbps = get_num(get(doc, "ceilings"), "read_bandwidth_gbps");
  out->launch_floor_s = get_num(get(doc, "ceilings"), "launch_floor_s");
  get_str(get(doc, "settings"), "cache", out->cache, sizeof out->cache);
  get_str(get(doc, "settings"), "flush", out->flush, sizeof out->flush);
  get_str(get(doc, "settings"), "peer_sampling", out->peer_sampling,
          sizeof out->peer_sampling);
  get_str(get(doc, "ceilings"), "absent_reason", out->copy_absent_reason,
          sizeof out->copy_absent_reason);
  {
    const json_t *lk = get(get(doc, "settings"), "clocks_locked");
    int64_t sm = get_int(lk, "sm_mhz"), mem = get_int(lk, "mem_mhz");
    if (json_is_object(lk) && sm > 0)
      cm_snprintf(out->clocks_locked, sizeof out->clocks_locked,
                  mem > 0 ? "SM %lld MHz, memory %lld MHz" : "SM %lld MHz",
                  (long long)sm, (long long)mem);
  }

  warn = get(doc, "warnings");
  if (json_is_array(warn) && json_array_size(warn) > 0) {
    out->warnings = calloc(json_array_size(warn), sizeof *out->warnings);
    if (out->warnings == NULL)
      return CM_ENOMEM;
    for (i = 0; i < json_array_size(warn); i++) {
      const json_t *w = json_array_get(warn, i);
      const char *t = json_is_string(w) ? json_string_value(w) : "";
      size_t l = strlen(t) + 1;
      char *d = malloc(l);
      if (d == NULL)
        return CM_ENOMEM;
      memcpy(d, t, l);
      cm_text_oneline(d);
      out->warnings[out->nwarnings++] = d;
    }
  }
  if (json_array_size(cases) > 0) {
    out->cases = calloc(json_array_size(cases), sizeof *out->cases);
    if (out->cases == NULL)
      return CM_ENOMEM;
  }
  for (i = 0; i < json_array_size(cases); i++) {
    r = parse_case(json_array_get(cases, i), &out->cases[out->ncases]);
    out->ncases++; /* counted even on failure so that free sees it */
    if (r != CM_OK)
      return r;
  }
  return CM_OK;
}

int rp_results_from_json(const json_t *doc, rp_results *out) {
  int r = results_parse(doc, out);
  if (r != CM_OK)
    rp_results_free(out);
  return r;
}

void rp_results_free(rp_results *r) {
  size_t i;
  for (i = 0; i < r->ncases; i++)
    free(r->cases[i].samples);
  free(r->cases);
  for (i = 0; i < r->nwarnings; i++)
    free(r->warnings[i]);
  free(r->warnings);
  memset(r, 0, sizeof *r);
}

/* The time stage's results file, in results/clean/ or (a marker set)
 * results/instrumented/ (rp_stage_time.c); the profile stage's beside it
 * are profile-*.json. */
#define RP__TIME_JSON "time.json"

/* The most a results file may hold, as a bundle's kept file: a real
 * run's results are kilobytes. */
#define RP__RESULTS_MAX ((uint64_t)64 << 20)

/* uv_fs_stat (follow: 1) or uv_fs_lstat (0: a link is not followed) of
 * path as the OS's file calls take it (cm_path_os: a long Windows path in
 * the extended form) into *st: 0, or a libuv error. */
static int stat_path(const char *path, uv_stat_t *st, int follow) {
  char os[4096];
  uv_fs_t req;
  int r;
  if (cm_path_os(path, os, sizeof os) != CM_OK)
    return UV_ENAMETOOLONG;
  r = follow ? uv_fs_stat(NULL, &req, os, NULL)
             : uv_fs_lstat(NULL, &req, os, NULL);
  if (r == 0)
    *st = req.statbuf;
  uv_fs_req_cleanup(&req);
  return r;
}

static int stat_os(const char *path, uv_stat_t *st) {
  return stat_path(path, st, 1);
}

/* 1 when path itself is a symbolic link (not followed). */
static int is_link(const char *path) {
  uv_stat_t sb;
  return stat_path(path, &sb, 0) == 0 && (sb.st_mode & S_IFMT) == S_IFLNK;
}

/* A run folder's files are read as the archive holds them: a symbolic link
 * (to results kept elsewhere) is never followed, as verify and the
 * manifest's walk skip every link (docs/AUDIT.md). Says so on stderr. */
static int skip_link(const char *path) {
  char p[2048];
  if (!is_link(path))
    return 0;
  fprintf(stderr,
          "repro: %s: a symbolic link, not read (a run's files are never "
          "read through a link; verify and the manifest skip it too)\n",
          cm_text_shown(path, p, sizeof p));
  return 1;
}

/* buf (len bytes, the file at path or its decompressed text) as JSON; a
 * syntax error is named with its line and column. */
static json_t *parse_json(const char *path, const char *buf, size_t len,
                          int *err) {
  json_error_t je;
  char p[2048];
  json_t *doc = cm_json_loadb(buf, len, 0, &je);
  if (doc == NULL) {
    fprintf(stderr, "repro: %s:%d:%d: %s\n", cm_text_shown(path, p, sizeof p),
            je.line, je.column, je.text);
    *err = CM_EPARSE;
  }
  return doc;
}

static json_t *load_json(const char *path, int *err) {
  char *buf, p[2048];
  size_t len;
  json_t *doc;
  uv_stat_t sb;
  int st = stat_os(path, &sb);
  int reg = st == 0 && (sb.st_mode & S_IFMT) == S_IFREG;
  uint64_t size = st == 0 ? (uint64_t)sb.st_size : 0;
  /* Followed links included: a FIFO in a run's results folder would be
   * waited on for ever, /dev/zero read until memory ran out. */
  if (st == 0 && !reg) {
    fprintf(stderr,
            "repro: %s: not a regular file (a pipe, a device or a socket); "
            "a run's results are files\n",
            cm_text_shown(path, p, sizeof p));
    *err = CM_EINVAL;
    return NULL;
  }
  if (size > RP__RESULTS_MAX) {
    fprintf(stderr,
            "repro: %s: %llu bytes, more than a results file holds (at most "
            "%llu; a run's results are kilobytes)\n",
            cm_text_shown(path, p, sizeof p), (unsigned long long)size,
            (unsigned long long)RP__RESULTS_MAX);
    *err = CM_ERANGE;
    return NULL;
  }
  *err = cm_read_file(path, &buf, &len);
  if (*err != CM_OK)
    return NULL;
  doc = parse_json(path, buf, len, err);
  free(buf);
  return doc;
}

/* doc (from the file at path) as results into *out, what is wrong with it
 * named; takes doc. On failure *out is left zeroed (rp_results_from_json
 * frees what it had read). */
static int results_of(json_t *doc, const char *path, rp_results *out) {
  int r = rp_results_from_json(doc, out);
  if (r == CM_EPARSE) {
    char p[2048];
    fprintf(stderr, "repro: %s: not a results document (no cases[])\n",
            cm_text_shown(path, p, sizeof p));
  } else if (r == CM_ENOTSUP) {
    char p[2048], why[512];
    rp_results_version(doc, why, sizeof why);
    fprintf(stderr, "repro: %s: a results document with %s\n",
            cm_text_shown(path, p, sizeof p), why);
  }
  json_decref(doc);
  if (r == CM_OK)
    cm_strlcpy(out->path, path, sizeof out->path);
  return r;
}

int rp_results_load(const char *path, rp_results *out) {
  int r;
  json_t *doc = load_json(path, &r);
  memset(out, 0, sizeof *out);
  if (doc == NULL)
    return r;
  r = results_of(doc, path, out); /* *out left zeroed on failure */
  if (r == CM_OK && (r = cm_sha256_file(path, out->sha256, NULL)) != CM_OK)
    rp_results_free(out);
  return r;
}

void rp_case_key(const rp_case *c, char *buf, size_t size) {
  cm_snprintf(buf, size, "%s/%s/%s/%s/%lld", c->op, c->variant, c->dtype,
              c->shape, (long long)c->stride);
}

/* ---- folders ---- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of regular files in dir ending in suffix, sorted; *names is a
 * malloc'd array of malloc'd strings. A missing folder gives 0 names. */
static int list_files(const char *dir, const char *suffix, char ***names,
                      size_t *count) {
  char os[4096];
  uv_fs_t req;
  uv_dirent_t ent;
  size_t sl = strlen(suffix);
  int n;
  *names = NULL;
  *count = 0;
  if (skip_link(dir) || cm_path_os(dir, os, sizeof os) != CM_OK)
    return CM_OK; /* as a folder that is not there */
  n = uv_fs_scandir(NULL, &req, os, 0, NULL);
  if (n < 0) {
    uv_fs_req_cleanup(&req);
    return CM_OK;
  }
  *names = calloc((size_t)n + 1, sizeof **names);
  if (*names == NULL) {
    uv_fs_req_cleanup(&req);
    return CM_ENOMEM;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    size_t l = strlen(ent.name);
    char *d;
    char full[4200];
    if (ent.type == UV_DIRENT_DIR || l < sl ||
        strcmp(ent.name + l - sl, suffix) != 0)
      continue;
    if (cm_snprintf(full, sizeof full, "%s/%s", dir, ent.name) != CM_OK ||
        skip_link(full))
      continue;
    d = malloc(l + 1);
    if (d == NULL)
      break;
    memcpy(d, ent.name, l + 1);
    (*names)[(*count)++] = d;
  }
  uv_fs_req_cleanup(&req);
  qsort(*names, *count, sizeof **names, cmp_str);
  return CM_OK;
}

static void free_names(char **names, size_t count) {
  size_t i;
  for (i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

static int load_results_dir(const char *dir, rp_results **out, size_t *count) {
  char **names, path[2048];
  size_t n, i;
  int r = list_files(dir, ".json", &names, &n);
  *out = NULL;
  *count = 0;
  if (r != CM_OK || n == 0) {
    free_names(names, n);
    return r;
  }
  *out = calloc(n, sizeof **out);
  if (*out == NULL) {
    free_names(names, n);
    return CM_ENOMEM;
  }
  for (i = 0; i < n && r == CM_OK; i++) {
    r = cm_snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (r == CM_OK)
      r = rp_results_load(path, &(*out)[*count]);
    (*count)++;
  }
  free_names(names, n);
  return r;
}

/* Appends the cases of src to dst (moved: src loses them). */
static int merge_cases(rp_results *dst, rp_results *src) {
  rp_case *p;
  if (src->ncases == 0)
    return CM_OK;
  p = realloc(dst->cases, (dst->ncases + src->ncases) * sizeof *p);
  if (p == NULL)
    return CM_ENOMEM;
  memcpy(p + dst->ncases, src->cases, src->ncases * sizeof *p);
  dst->cases = p;
  dst->ncases += src->ncases;
  free(src->cases);
  src->cases = NULL;
  src->ncases = 0;
  return CM_OK;
}

/* ---- bundles ---- */

/* 1 if the file at path starts as a gzip member does (a bundle). */
static int is_gzip_file(const char *path) {
  unsigned char m[2] = {0, 0};
  uv_buf_t buf = uv_buf_init((char *)m, 2);
  uv_fs_t req;
  char os[4096];
  int fd, got;
  if (cm_path_os(path, os, sizeof os) != CM_OK)
    return 0;
  fd = uv_fs_open(NULL, &req, os, UV_FS_O_RDONLY, 0, NULL);
  uv_fs_req_cleanup(&req);
  if (fd < 0)
    return 0;
  got = uv_fs_read(NULL, &req, fd, &buf, 1, 0, NULL);
  uv_fs_req_cleanup(&req);
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  return got == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

#if defined(RP_REPORT_HAVE_ARCHIVE)
/* The results files of a verified bundle: the clean ones, and the time
 * stage's instrumented one apart (used when there is no clean one). */
typedef struct {
  const char *bundle;
  rp_results *clean, *instr;
  size_t nclean, ninstr, cclean, cinstr;
} bundle_results;

static int on_bundle_results(void *ud, const char *rel, const char *data,
                             size_t len) {
  bundle_results *b = (bundle_results *)ud;
  int instr = cm_starts_with(rel, "results/instrumented/");
  const char *name = rel + (instr ? strlen("results/instrumented/")
                                  : strlen("results/clean/"));
  size_t nl;
  rp_results *r;
  json_t *doc;
  char sb[2048], sr[2048];
  int rc;
  if (!instr && !cm_starts_with(rel, "results/clean/"))
    return CM_OK;
  /* of the instrumented ones, the time stage's only (as for a folder) */
  if (instr && strcmp(name, RP__TIME_JSON) != 0)
    return CM_OK;
  nl = strlen(name);
  if (strchr(name, '/') != NULL || nl <= 5 || strcmp(name + nl - 5, ".json"))
    return CM_OK; /* only NAME.json directly in one of the two folders */
  if (instr ? cm_grow(&b->instr, &b->cinstr, b->ninstr, sizeof *r, 4)
            : cm_grow(&b->clean, &b->cclean, b->nclean, sizeof *r, 4))
    return CM_ENOMEM;
  r = instr ? &b->instr[b->ninstr++] : &b->clean[b->nclean++];
  memset(r, 0, sizeof *r);
  doc = cm_json_loadb(data, len, 0, NULL);
  if (doc == NULL) {
    fprintf(stderr, "repro: %s: %s: not JSON\n",
            cm_text_shown(b->bundle, sb, sizeof sb),
            cm_text_shown(rel, sr, sizeof sr));
    return CM_EPARSE;
  }
  rc = rp_results_from_json(doc, r);
  if (rc == CM_EPARSE)
    fprintf(stderr, "repro: %s: %s: not a results document (no cases[])\n",
            cm_text_shown(b->bundle, sb, sizeof sb),
            cm_text_shown(rel, sr, sizeof sr));
  if (rc == CM_ENOTSUP) {
    char why[512];
    rp_results_version(doc, why, sizeof why);
    fprintf(stderr, "repro: %s: %s: a results document with %s\n",
            cm_text_shown(b->bundle, sb, sizeof sb),
            cm_text_shown(rel, sr, sizeof sr), why);
  }
  json_decref(doc);
  if (rc == CM_OK)
    rc = cm_snprintf(r->path, sizeof r->path, "%s:%s", b->bundle, rel);
  if (rc == CM_OK)
    cm_sha256_hex(data, len, r->sha256);
  return rc;
}

static void free_all(rp_results *all, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    rp_results_free(&all[i]);
  free(all);
}
#endif

/* Verifies the bundle at path (refused, with verify's problem on stderr,
 * when it does not verify) and loads the results it holds, as for a run
 * folder. */
static int load_results_bundle(const char *path, rp_results **all, size_t *n) {
#if defined(RP_REPORT_HAVE_ARCHIVE)
  bundle_results b;
  rp_verify_result v;
  int r;
  memset(&b, 0, sizeof b);
  b.bundle = path;
  r = rp_verify_bundle_files(path, "results/", (size_t)RP__RESULTS_MAX,
                             on_bundle_results, &b, &v);
  /* verify's problem whether it judged the bundle (a mismatch) or could
   * not read it as one (no manifest, not a tar): "no such file" for a
   * bundle that exists would send the user looking for the wrong thing */
  if ((r == CM_OK && !v.ok) ||
      (r != CM_OK && r != CM_ENOMEM && v.problem[0] != '\0')) {
    char sp[2048];
    fprintf(stderr,
            "repro: %s: the bundle does not verify (%s); `repro verify %s` "
            "says the same, and nothing of it is read\n",
            cm_text_shown(path, sp, sizeof sp), v.problem, sp);
    r = CM_EMISMATCH;
  }
  if (r == CM_OK && b.nclean > 0) {
    *all = b.clean;
    *n = b.nclean;
    b.clean = NULL;
    b.nclean = 0;
  } else if (r == CM_OK) {
    *all = b.instr;
    *n = b.ninstr;
    b.instr = NULL;
    b.ninstr = 0;
  }
  free_all(b.clean, b.nclean);
  free_all(b.instr, b.ninstr);
  return r;
#else
  (void)all;
  (void)n;
  fprintf(stderr, "repro: %s: reading bundles needs the archive library\n",
          path);
  return CM_ENOTSUP;
#endif
}

/* A results file kept gzip-compressed (NAME.json.gz, as results/h200/
 * keeps its runs' files). *done 0 when the file is to be read as a bundle
 * (its first block a ustar header, or named *.tar.gz, or not gzip as a
 * whole: the bundle reader says why), and nothing is read then. Its
 * SHA-256 is the document's, decompressed, so that a file and its
 * compressed copy show the same. */
static int load_results_gz(const char *path, int *done, rp_results *out) {
#if defined(RP_REPORT_HAVE_ARCHIVE)
  char *buf = NULL, p[2048];
  size_t len = 0, k = 0, pl = strlen(path);
  json_t *doc;
  int r = rp_gz_read(path, 512, &buf, &len), json, tar;
  *done = 0;
  if (r != CM_OK && r != CM_ERANGE) {
    free(buf);
    return CM_OK;
  }
  while (k < len &&
         (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r' || buf[k] == '\n'))
    k++;
  json = k < len && buf[k] == '{';
  /* ustar's magic, "ustar" and its NUL, at offset 257 of a header */
  tar = len >= 263 && memcmp(buf + 257, "ustar", 6) == 0;
  free(buf);
  buf = NULL;
  if (!json && (tar || (pl > 7 && strcmp(path + pl - 7, ".tar.gz") == 0)))
    return CM_OK;
  *done = 1;
  if (!json) {
    fprintf(stderr,
            "repro: %s: a gzip file that holds neither a results document "
            "(JSON) nor a bundle (a tar); compare reads a results file, its "
            ".json.gz, a run folder or a bundle\n",
            cm_text_shown(path, p, sizeof p));
    return CM_EPARSE;
  }
  r = rp_gz_read(path, (size_t)RP__RESULTS_MAX, &buf, &len);
  if (r != CM_OK) {
    fprintf(stderr, "repro: %s: %s\n", cm_text_shown(path, p, sizeof p),
            r == CM_ERANGE ? "decompresses to more than a results file holds "
                             "(a run's results are kilobytes)"
            : r == CM_EMISMATCH || r == CM_ETRUNC
                ? "a damaged or unfinished gzip file (gzip -t says where)"
                : cm_strerror(r));
    free(buf);
    return r;
  }
  doc = parse_json(path, buf, len, &r);
  if (doc != NULL)
    r = results_of(doc, path, out);
  if (r == CM_OK)
    cm_sha256_hex(buf, len, out->sha256);
  free(buf);
  return r;
#else
  (void)path;
  (void)out;
  *done = 0;
  return CM_OK;
#endif
}

int rp_results_load_any(const char *path, rp_results *out) {
  uv_stat_t sb;
  char dir[2048];
  rp_results *all = NULL;
  size_t n = 0, i;
  int isdir, isreg, r;
  memset(out, 0, sizeof *out);
  r = stat_os(path, &sb);
  isdir = r == 0 && (sb.st_mode & S_IFMT) == S_IFDIR;
  isreg = r == 0 && (sb.st_mode & S_IFMT) == S_IFREG;
  if (r < 0)
    return CM_ENOENT;
  /* a FIFO or a device: opening it to look for gzip's magic would wait
   * for a writer for ever */
  if (!isdir && !isreg)
    return CM_EINVAL;
  if (!isdir && !is_gzip_file(path))
    return rp_results_load(path, out);
  if (!isdir) {
    int done;
    r = load_results_gz(path, &done, out);
    if (done)
      return r;
    r = load_results_bundle(path, &all, &n);
  } else {
    /* results/ a link: not the run's (rp_run_load's rule) */
    r = cm_snprintf(dir, sizeof dir, "%s/results", path);
    if (r == CM_OK && skip_link(dir))
      return CM_ENOENT;
    if (r == CM_OK)
      r = cm_snprintf(dir, sizeof dir, "%s/results/clean", path);
    if (r == CM_OK)
      r = load_results_dir(dir, &all, &n);
    if (r == CM_OK && n == 0) {
      /* the time stage's results filed as instrumented (a marker was
       * set), never the profile stage's: profiled timings are not the
       * time stage's, and their cases would have stood in for its */
      r = cm_snprintf(dir, sizeof dir, "%s/results/instrumented/" RP__TIME_JSON,
                      path);
      if (r == CM_OK && plat_path_exists(dir) && !skip_link(dir)) {
        free(all);
        all = calloc(1, sizeof *all);
        r = all != NULL ? rp_results_load(dir, &all[0]) : CM_ENOMEM;
        n = all != NULL ? 1 : 0;
      }
    }
  }
  if (r == CM_OK && n == 0)
    r = CM_ENOENT;
  if (r == CM_OK) {
    *out = all[0];
    memset(&all[0], 0, sizeof all[0]);
    cm_strlcpy(out->path, path, sizeof out->path);
    for (i = 1; i < n && r == CM_OK; i++) {
      /* Mixing flags inside one folder must not hide from compare. */
      if (all[i].instrumented != out->instrumented)
        out->instrumented = 1;
      r = merge_cases(out, &all[i]);
    }
  }
  for (i = 0; i < n; i++)
    rp_results_free(&all[i]);
  free(all);
  if (r != CM_OK)
    rp_results_free(out);
  return r;
}

/* ---- manifest ---- */

static int is_negative_name(const char *s) {
  return s != NULL &&
         (strstr(s, "negative") != NULL || strstr(s, "control") != NULL);
}

/* The sanitize stage's negative-control step (rp_stage_sanitize.c; its
 * retry is "negative-control-retry"), by name, not by a word in it: a step
 * of another stage whose name holds "control" is not it. */
static int is_negative_step(const rp_stage *s, const char *step) {
  static const char name[] = "negative-control";
  return strcmp(s->name, "sanitize") == 0 &&
         strncmp(step, name, sizeof name - 1) == 0;
}

/* The negative control's step exits non-zero when it does its job (the
 * sanitizer's error exit for the planted write), and the sanitize stage's
 * exit code is its last step's: both say so, or a passed stage reads
 * "exit 86" with nothing beside it. Whether it was caught is the
 * sanitizer's verdict (the report's "Sanitizer results"). */
static void note_negative_control(rp_stage *s) {
  static const char note[] = "the planted out-of-bounds write must make its "
                             "sanitizer exit non-zero; the verdict is under "
                             "Sanitizer results";
  size_t j;
  for (j = 0; j < s->nsteps; j++) {
    rp_item *it = &s->steps[j];
    size_t n = strlen(it->detail);
    /* whole or not at all: a cut sentence says something else */
    if (is_negative_step(s, it->name) &&
        n + 2 + sizeof note <= sizeof it->detail)
      cm_snprintf(it->detail + n, sizeof it->detail - n, "%s%s", n ? "; " : "",
                  note);
  }
  /* exit 0 included: the control not caught is where a reader most needs
   * to know whose exit it is */
  if (s->nsteps > 0 && is_negative_step(s, s->steps[s->nsteps - 1].name))
    cm_strlcpy(s->exit_note, "the negative control's", sizeof s->exit_note);
}

static int parse_items(const json_t *arr, rp_item **out, size_t *count) {
  size_t i;
  *out = NULL;
  *count = 0;
  if (!json_is_array(arr) || json_array_size(arr) == 0)
    return CM_OK;
  *out = calloc(json_array_size(arr), sizeof **out);
  if (*out == NULL)
    return CM_ENOMEM;
  for (i = 0; i < json_array_size(arr); i++) {
    const json_t *o = json_array_get(arr, i);
    rp_item *it = &(*out)[(*count)++];
    int ok = get_bool(o, "ok");
    int64_t ec = get_int(o, "exit_code");
    get_str(o, "name", it->name, sizeof it->name);
    get_str(o, "outcome", it->status, sizeof it->status);
    if (!it->status[0])
      get_str(o, "status", it->status, sizeof it->status);
    if (!it->status[0] && ok >= 0)
      cm_strlcpy(it->status, ok ? "pass" : "fail", sizeof it->status);
    /* no exit code (null): say what the step record says instead of an
     * invented "exit -1" */
    if (!it->status[0] && get_bool(o, "timed_out") == 1)
      cm_strlcpy(it->status, "timed out", sizeof it->status);
    if (!it->status[0] && get_bool(o, "started") == 0)
      cm_strlcpy(it->status, "not started", sizeof it->status);
    if (!it->status[0] && json_is_integer(get(o, "signal")) &&
        get_int(o, "signal") > 0)
      cm_snprintf(it->status, sizeof it->status, "killed by signal %lld",
                  (long long)get_int(o, "signal"));
    if (!it->status[0] && json_is_integer(get(o, "exit_code")))
      cm_snprintf(it->status, sizeof it->status, "exit %lld", (long long)ec);
    if (!it->status[0] && get(o, "exit_code") != NULL)
      cm_strlcpy(it->status, "no exit code", sizeof it->status);
    get_str(o, "detail", it->detail, sizeof it->detail);
    if (!it->detail[0])
      get_str(o, "reason", it->detail, sizeof it->detail);
    if (!it->detail[0])
      get_str(o, "error", it->detail, sizeof it->detail);
    if (!it->detail[0] && json_is_number(get(o, "duration_s")))
      cm_snprintf(it->detail, sizeof it->detail, "%.2f s",
                  get_num(o, "duration_s"));
  }
  return CM_OK;
}

static int parse_stages(const json_t *arr, rp_run *run) {
  size_t i;
  double t = 0;
  if (!json_is_array(arr) || json_array_size(arr) == 0)
    return CM_OK;
  run->stages = calloc(json_array_size(arr), sizeof *run->stages);
  if (run->stages == NULL)
    return CM_ENOMEM;
  for (i = 0; i < json_array_size(arr); i++) {
    const json_t *o = json_array_get(arr, i);
    rp_stage *s = &run->stages[run->nstages++];
    int r;
    get_str(o, "name", s->name, sizeof s->name);
    get_str(o, "status", s->status, sizeof s->status);
    get_str(o, "reason", s->reason, sizeof s->reason);
    s->exit_code = get_int(o, "exit_code");
    s->duration_s = get_num(o, "duration_s");
    /* Stages run one after another; without a recorded start offset the
     * sum of the previous durations is where each began. */
    s->start_s = get_num(o, "start_offset_s");
    if (isnan(s->start_s))
      s->start_s = t;
    if (!isnan(s->duration_s))
      t = s->start_s + s->duration_s;
    r = parse_items(get(o, "checks"), &s->checks, &s->nchecks);
    if (r == CM_OK)
      r = parse_items(get(o, "steps"), &s->steps, &s->nsteps);
    if (r != CM_OK)
      return r;
    note_negative_control(s);
    if (!run->binary_git[0])
      get_str(get(o, "banner"), "git", run->binary_git, sizeof run->binary_git);
    if (strcmp(s->name, "test") == 0 &&
        json_is_object(get(o, "verification_control"))) {
      const json_t *vc = get(o, "verification_control");
      int as = get_bool(vc, "failed_as_predicted");
      run->verify_control_recorded = 1;
      run->verify_control_exit = get_int(vc, "exit_code");
      run->verify_control = as == 1                                    ? 1
                            : as == 0 && run->verify_control_exit == 1 ? 0
                                                                       : -1;
    }
  }
  return CM_OK;
}

static void parse_tools(const json_t *tools, char *dst, size_t size) {
  const char *key;
  const json_t *v;
  dst[0] = '\0';
  if (!json_is_object(tools))
    return;
  json_object_foreach((json_t *)tools, key, v) {
    char ver[64];
    size_t l = strlen(dst);
    if (json_is_string(v))
      cm_strlcpy(ver, json_string_value(v), sizeof ver);
    else if (get_bool(v, "found") == 0)
      cm_strlcpy(ver, "not found", sizeof ver);
    else
      get_str(v, "version", ver, sizeof ver);
    cm_snprintf(dst + l, size - l, "%s%s %s", l ? "; " : "", key,
                ver[0] ? ver : "(version unknown)");
  }
  cm_text_oneline(dst);
}

/* ---- sanitizer findings and the resource table, wherever they sit ----
 * The stages add these to their manifest records (and may write them as
 * JSON files); their exact nesting is the tool stages' business, so the
 * search is structural: an array named "findings" holds findings, an
 * array of objects with "registers" is a resource table. */

static int add_finding(rp_run *run, const json_t *f, const char *tool,
                       int negative) {
  rp_finding *p = realloc(run->findings, (run->nfindings + 1) * sizeof *p);
  rp_finding *d;
  if (p == NULL)
    return CM_ENOMEM;
  run->findings = p;
  d = &p[run->nfindings++];
  memset(d, 0, sizeof *d);
  cm_strlcpy(d->tool, tool, sizeof d->tool);
  d->negative_control = negative;
  get_str(f, "class", d->cls, sizeof d->cls);
  get_str(f, "kind", d->kind, sizeof d->kind);
  get_str(f, "severity", d->severity, sizeof d->severity);
  get_str(f, "kernel", d->kernel, sizeof d->kernel);
  get_str(f, "location", d->location, sizeof d->location);
  get_str(f, "detail", d->detail, sizeof d->detail);
  if (!d->severity[0])
    cm_strlcpy(d->severity, "error", sizeof d->severity);
  return CM_OK;
}

static int add_res_row(rp_run *run, const json_t *o) {
  rp_res_row *p = realloc(run->resources, (run->nresources + 1) * sizeof *p);
  rp_res_row *d;
  if (p == NULL)
    return CM_ENOMEM;
  run->resources = p;
  d = &p[run->nresources++];
  memset(d, 0, sizeof *d);
  get_str(o, "kernel", d->kernel, sizeof d->kernel);
  if (!d->kernel[0])
    get_str(o, "mangled", d->kernel, sizeof d->kernel);
  get_str(o, "arch", d->arch, sizeof d->arch);
  d->registers = get_int(o, "registers");
  d->stack = get_int(o, "stack_frame_bytes");
  d->spill_stores = get_int(o, "spill_store_bytes");
  d->spill_loads = get_int(o, "spill_load_bytes");
  d->shared = get_int(o, "shared_bytes");
  d->local = get_int(o, "local_bytes");
  d->spills = get_bool(o, "spills") == 1;
  return CM_OK;
}

/* Walks v (depth-limited). tool/negative come from the nearest enclosing
 * object that names itself. */
static int walk(rp_run *run, const json_t *v, const char *tool, int negative,
                int depth, const char *key_name) {
  size_t i;
  int r = CM_OK;
  if (depth > 8)
    return CM_OK;
  if (json_is_object(v)) {
    const char *key, *name = NULL;
    const json_t *x, *nc;
    char own[24], label[24];
    /* A record keyed by its step ("sanitizer": {"memcheck": {...},
     * "negative-control": {...}}) is named by that key. */
    get_str(v, "name", label, sizeof label);
    if (!label[0] && key_name != NULL)
      cm_strlcpy(label, key_name, sizeof label);
    get_str(v, "tool", own, sizeof own);
    if (!own[0])
      cm_strlcpy(own, label, sizeof own);
    if (own[0])
      name = own;
    /* The negative control by its step's name or key, never by a word in
     * a tool's path: an install under .../controlled/... made every real
     * finding of the sanitizer record "negative control", suppressed in
     * SARIF. */
    if (label[0] && is_negative_name(label))
      negative = 1;
    if (get_bool(v, "negative_control") == 1)
      negative = 1;
    /* The sanitize stage's own record of the negative control. */
    if (negative && get_bool(v, "caught") >= 0 &&
        run->negative_control_caught < 0) {
      char verdict[sizeof run->negative_control_detail];
      const char *d = verdict;
      run->negative_control_caught = get_bool(v, "caught");
      get_str(v, "verdict", verdict, sizeof verdict);
      /* "caught: <first finding>": the status is printed on its own. */
      if (cm_starts_with(d, "caught: "))
        d += strlen("caught: ");
      cm_strlcpy(run->negative_control_detail, d,
                 sizeof run->negative_control_detail);
    }
    nc = get(v, "negative_control");
    if (json_is_object(nc) && get_bool(nc, "caught") >= 0) {
      run->negative_control_caught = get_bool(nc, "caught");
      get_str(nc, "detail", run->negative_control_detail,
              sizeof run->negative_control_detail);
      if (!run->negative_control_detail[0])
        get_str(nc, "why", run->negative_control_detail,
                sizeof run->negative_control_detail);
    }
    json_object_foreach((json_t *)v, key, x) {
      if (strcmp(key, "findings") == 0 && json_is_array(x)) {
        for (i = 0; i < json_array_size(x) && r == CM_OK; i++)
          r = add_finding(run, json_array_get(x, i), name ? name : tool,
                          negative);
      } else if (json_is_array(x) && json_array_size(x) > 0 &&
                 get(json_array_get(x, 0), "registers") != NULL) {
        for (i = 0; i < json_array_size(x) && r == CM_OK; i++)
          r = add_res_row(run, json_array_get(x, i));
      } else {
        r = walk(run, x, name ? name : tool, negative, depth + 1, key);
      }
      if (r != CM_OK)
        return r;
    }
  } else if (json_is_array(v)) {
    for (i = 0; i < json_array_size(v) && r == CM_OK; i++)
      r = walk(run, json_array_get(v, i), tool, negative, depth + 1, NULL);
  }
  return r;
}

/* JSON files the sanitize and inspect stages wrote, when the manifest's
 * own records held nothing. */
static int walk_stage_files(rp_run *run, const char *sub) {
  char dir[2048], path[2200], **names;
  size_t n, i;
  int r = cm_snprintf(dir, sizeof dir, "%s/%s", run->dir, sub);
  if (r == CM_OK)
    r = list_files(dir, ".json", &names, &n);
  if (r != CM_OK)
    return r;
  for (i = 0; i < n && r == CM_OK; i++) {
    json_t *doc;
    int e;
    if (cm_snprintf(path, sizeof path, "%s/%s", dir, names[i]) != CM_OK)
      continue;
    doc = load_json(path, &e);
    if (doc != NULL)
      r = walk(run, doc, names[i], 0, 0, NULL);
    json_decref(doc);
  }
  free_names(names, n);
  return r;
}

int rp_run_load(const char *dir, rp_run *out) {
  uv_stat_t sb;
  char path[2048], sub[2048];
  json_t *m = NULL;
  size_t i;
  int r, isdir;
  memset(out, 0, sizeof *out);
  out->git_dirty = -1;
  out->negative_control_caught = -1;
  out->verify_control = -1;
  out->verify_control_exit = -1;
  r = stat_os(dir, &sb);
  isdir = r == 0 && (sb.st_mode & S_IFMT) == S_IFDIR;
  if (!isdir)
    return CM_ENOENT;
  cm_strlcpy(out->dir, dir, sizeof out->dir);
  r = cm_snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (r != CM_OK)
    return r;
  if (skip_link(path)) /* a run's manifest is a file (verify refuses it) */
    return CM_EINVAL;
  if (plat_path_exists(path)) {
    m = load_json(path, &r);
    if (m == NULL)
      return r;
    out->have_manifest = 1;
    r = cm_sha256_file(path, out->manifest_sha256, NULL);
    get_str(m, "run_id", out->run_id, sizeof out->run_id);
    get_str(m, "status", out->status, sizeof out->status);
    get_str(m, "started", out->started, sizeof out->started);
    get_str(m, "ended", out->ended, sizeof out->ended);
    get_str(m, "host", out->host, sizeof out->host);
    get_str(m, "os", out->os, sizeof out->os);
    get_str(get(m, "git"), "commit", out->git_commit, sizeof out->git_commit);
    out->git_dirty = get_bool(get(m, "git"), "dirty");
    parse_tools(get(m, "tools"), out->tools, sizeof out->tools);
    if (r == CM_OK)
      r = parse_stages(get(m, "stages"), out);
    for (i = 0; r == CM_OK && i < json_array_size(get(m, "stages")); i++)
      r = walk(out, json_array_get(get(m, "stages"), i), "", 0, 0, NULL);
    json_decref(m);
  }
  if (r == CM_OK && out->nfindings == 0)
    r = walk_stage_files(out, "sanitize");
  if (r == CM_OK && out->nresources == 0)
    r = walk_stage_files(out, "inspect");
  /* results/ itself a link: its folders are not the run's either */
  if (r == CM_OK)
    r = cm_snprintf(sub, sizeof sub, "%s/results", dir);
  if (r == CM_OK && skip_link(sub))
    return CM_OK;
  if (r == CM_OK)
    r = cm_snprintf(sub, sizeof sub, "%s/results/clean", dir);
  if (r == CM_OK)
    r = load_results_dir(sub, &out->clean, &out->nclean);
  if (r == CM_OK)
    r = cm_snprintf(sub, sizeof sub, "%s/results/instrumented", dir);
  if (r == CM_OK)
    r = load_results_dir(sub, &out->instrumented, &out->ninstrumented);
  return r;
}

static void free_stage(rp_stage *s) {
  free(s->checks);
  free(s->steps);
}

void rp_run_free(rp_run *r) {
  size_t i;
  for (i = 0; i < r->nstages; i++)
    free_stage(&r->stages[i]);
  free(r->stages);
  free(r->findings);
  free(r->resources);
  for (i = 0; i < r->nclean; i++)
    rp_results_free(&r->clean[i]);
  free(r->clean);
  for (i = 0; i < r->ninstrumented; i++)
    rp_results_free(&r->instrumented[i]);
  free(r->instrumented);
  memset(r, 0, sizeof *r);
}
