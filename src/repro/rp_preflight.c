/* Preflight: the contract's checks, with their outcomes and effects. */
#include "rp_preflight.h"
#include "cm_error.h"
#include "cm_path.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_runner.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

const char *rp_check_state_name(rp_check_state s) {
  return s == RP_CHECK_PASS ? "pass" : s == RP_CHECK_WARN ? "warn" : "fail";
}

void rp_checks_add(rp_checks *cs, const char *name, rp_check_state state,
                   rp_effect effect, const char *fmt, ...) {
  rp_check *c;
  va_list ap;
  if (cs->n >= RP_MAX_CHECKS)
    return;
  c = &cs->items[cs->n++];
  memset(c, 0, sizeof *c);
  cm_strlcpy(c->name, name, sizeof c->name);
  c->state = state;
  c->effect = state == RP_CHECK_PASS ? RP_EFFECT_NONE : effect;
  va_start(ap, fmt);
  (void)cm_vsnprintf(c->detail, sizeof c->detail, fmt, ap); /* cut: kept */
  va_end(ap);
  /* A check dropped is a check not made: the stage must not run as if it
   * had passed (a device or tool check past the end used to be lost). */
  if (cs->n == RP_MAX_CHECKS) {
    cm_strlcpy(c->name, "checks", sizeof c->name);
    c->state = RP_CHECK_FAIL;
    c->effect = RP_EFFECT_REFUSE;
    cm_snprintf(c->detail, sizeof c->detail,
                "more than %d checks: the rest were not made, so the stage "
                "is refused (a contract this long is a mistake: shorten it)",
                RP_MAX_CHECKS - 1);
  }
}

rp_effect rp_checks_verdict(const rp_checks *cs, char *reason, size_t size) {
  rp_effect worst = RP_EFFECT_NONE;
  int i;
  if (size > 0)
    reason[0] = '\0';
  for (i = 0; i < cs->n; i++) {
    const rp_check *c = &cs->items[i];
    if (c->state == RP_CHECK_PASS || c->effect <= worst)
      continue;
    worst = c->effect;
    cm_snprintf(reason, size, "%s: %s", c->name, c->detail);
  }
  return worst;
}

/* Parses a dotted number at s (digits, then .digits repeated). */
static int rp__dotted(const char *s, int v[4], char *str, size_t size) {
  const char *p = s;
  int k = 0;
  if (!isdigit((unsigned char)*p))
    return CM_EPARSE;
  memset(v, 0, 4 * sizeof v[0]);
  while (k < 4 && isdigit((unsigned char)*p)) {
    long x = 0;
    while (isdigit((unsigned char)*p)) {
      if (x < 100000000)
        x = x * 10 + (*p - '0');
      p++;
    }
    v[k++] = (int)x;
    if (*p == '.' && isdigit((unsigned char)p[1]))
      p++;
    else
      break;
  }
  if (k < 2)
    return CM_EPARSE; /* a bare number ("2025" in a copyright) is no version */
  if (str != NULL && size > 0) {
    size_t n = (size_t)(p - s);
    while (n > 0 && s[n - 1] == '.')
      n--;
    if (n >= size)
      n = size - 1;
    memcpy(str, s, n);
    str[n] = '\0';
  }
  return CM_OK;
}

int rp_version_parse(const char *text, int v[4], char *str, size_t size) {
  static const char *const keys[] = {"release ", "version ", "Version ", "V"};
  const char *p;
  int i;
  if (text == NULL)
    return CM_EPARSE;
  for (i = 0; i < 3; i++) {
    p = strstr(text, keys[i]);
    if (p != NULL && rp__dotted(p + strlen(keys[i]), v, str, size) == CM_OK)
      return CM_OK;
  }
  for (p = text; *p != '\0'; p++) {
    if ((p == text || !isalnum((unsigned char)p[-1])) &&
        rp__dotted(p, v, str, size) == CM_OK)
      return CM_OK;
  }
  return CM_EPARSE;
}

int rp_version_cmp(const char *a, const char *b) {
  int va[4] = {0, 0, 0, 0}, vb[4] = {0, 0, 0, 0}, i;
  rp__dotted(a, va, NULL, 0);
  rp__dotted(b, vb, NULL, 0);
  /* rp__dotted rejects a single component; accept "12" as 12.0 too. */
  if (va[0] == 0 && isdigit((unsigned char)a[0]))
    va[0] = (int)strtol(a, NULL, 10);
  if (vb[0] == 0 && isdigit((unsigned char)b[0]))
    vb[0] = (int)strtol(b, NULL, 10);
  for (i = 0; i < 4; i++)
    if (va[i] != vb[i])
      return va[i] < vb[i] ? -1 : 1;
  return 0;
}

/* Runs argv quietly, capturing stdout (and stderr into the same result's
 * exit status only). Returns the captured text via res. */
static int rp__probe_run(const char *const *argv, rp_step_result *res) {
  rp_step_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.argv = argv;
  sp.timeout_s = 20;
  sp.grace_s = 1;
  sp.capture_stdout = 1;
  sp.capture_limit = 1 << 16;
  sp.quiet = 1;
  return rp_step_run(&sp, res);
}

typedef struct {
  char name[64];
  rp_tool_info info;
} rp__tool_cache;

static rp__tool_cache rp__tools[32];
static int rp__ntools;

/* The cache holds what the machine's own folders answered: a probe
 * confined to a test's folders (tool_dirs, nsight_root) neither reads nor
 * fills it, so two probes of one name over two trees each see their own. */
static int rp__cacheable(const rp_probe *p) {
  return p == NULL || (p->tool_dirs == NULL && p->nsight_root == NULL);
}

/* 1 and *out filled when name was probed before in this process. */
static int rp__tool_recall(const rp_probe *p, const char *name,
                           rp_tool_info *out) {
  int i;
  if (!rp__cacheable(p))
    return 0;
  for (i = 0; i < rp__ntools; i++)
    if (strcmp(rp__tools[i].name, name) == 0) {
      *out = rp__tools[i].info;
      return 1;
    }
  return 0;
}

static void rp__tool_remember(const rp_probe *p, const char *name,
                              const rp_tool_info *info) {
  if (rp__cacheable(p) &&
      rp__ntools < (int)(sizeof rp__tools / sizeof rp__tools[0])) {
    cm_strlcpy(rp__tools[rp__ntools].name, name,
               sizeof rp__tools[rp__ntools].name);
    rp__tools[rp__ntools++].info = *info;
  }
}

/* Fills info->version from `PATH --version` (left "" when unparseable). */
static void rp__probe_version(rp_tool_info *info) {
  rp_step_result res;
  const char *argv[3];
  argv[0] = info->path;
  argv[1] = "--version";
  argv[2] = NULL;
  if (rp__probe_run(argv, &res) == CM_OK) {
    int v[4];
    rp_version_parse(res.out, v, info->version, sizeof info->version);
  }
  rp_step_result_free(&res);
}

/* Newest <base>/<prefix><version>/<tail> that exists (the folder names that
 * start with prefix, their versions compared as dotted numbers). Returns 1
 * and fills buf when found. */
static int rp__newest_under(const char *base, const char *prefix,
                            const char *tail, char *buf, size_t size) {
  uv_fs_t req;
  uv_dirent_t ent;
  char best[256] = "", cand[1024], os[4096];
  size_t pl = strlen(prefix);
  int found = 0;
  if (cm_path_os(base, os, sizeof os) != CM_OK)
    return 0;
  if (uv_fs_scandir(NULL, &req, os, 0, NULL) < 0) {
    uv_fs_req_cleanup(&req);
    return 0;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    if (strncmp(ent.name, prefix, pl) != 0 ||
        cm_snprintf(cand, sizeof cand, "%s/%s/%s", base, ent.name, tail) ||
        !plat_path_exists(cand))
      continue;
    if (!found || rp_version_cmp(ent.name + pl, best + pl) > 0) {
      cm_strlcpy(best, ent.name, sizeof best);
      found = 1;
    }
  }
  uv_fs_req_cleanup(&req);
  if (found && cm_snprintf(buf, size, "%s/%s/%s", base, best, tail) != CM_OK)
    found = 0;
  return found;
}

/* Where NVIDIA's Nsight installs are: the probe's nsight_root (tests), else
 * /opt/nvidia on POSIX and %ProgramFiles%/NVIDIA Corporation on Windows;
 * NULL when the probe is confined to its tool_dirs (tests). */
static const char *rp__nsight_root(const rp_probe *p, char *buf, size_t size) {
  const char *pf;
  if (p != NULL && p->nsight_root != NULL)
    return p->nsight_root;
  if (p != NULL && p->tool_dirs != NULL)
    return NULL;
  if (plat_os_detect() != PLAT_OS_WINDOWS)
    return "/opt/nvidia";
  pf = plat_getenv("ProgramFiles");
  if (pf == NULL || *pf == '\0' ||
      cm_snprintf(buf, size, "%s/NVIDIA Corporation", pf) != CM_OK)
    return NULL;
  return buf;
}

/* ncu where Nsight Compute installs it, outside the CUDA folders: Linux
 * <root>/nsight-compute/<version>/ncu; Windows <root>/Nsight Compute
 * <version>/target/windows-desktop-win7-x64/ncu.exe (the install's top holds
 * only ncu.bat, which runs that one, and a .bat is not what the stages
 * start). The newest version that has one. */
static int rp__ncu_install(const char *root, char *buf, size_t size) {
  char base[700], tail[128];
  if (cm_snprintf(tail, sizeof tail, "target/windows-desktop-win7-x64/ncu%s",
                  plat_exe_suffix()) == CM_OK &&
      rp__newest_under(root, "Nsight Compute ", tail, buf, size))
    return 1;
  return cm_snprintf(base, sizeof base, "%s/nsight-compute", root) == CM_OK &&
         cm_snprintf(tail, sizeof tail, "ncu%s", plat_exe_suffix()) == CM_OK &&
         rp__newest_under(base, "", tail, buf, size);
}

void rp_tool_probe(const rp_probe *p, const char *name, rp_tool_info *out) {
  char dirs_buf[2048], root_buf[600];
  const char *dirs[16], *root;
  const char *cuda_home = plat_getenv("CUDA_HOME");
  const char *cuda_path = plat_getenv("CUDA_PATH");
  char cuda_bin[600], cuda_path_bin[600], cuda_san[600];
  int nd = 0;

  if (rp__tool_recall(p, name, out))
    return;
  memset(out, 0, sizeof *out);
  if (p != NULL && p->tool_dirs != NULL) {
    char *s, sep = plat_path_list_sep();
    cm_strlcpy(dirs_buf, p->tool_dirs, sizeof dirs_buf);
    for (s = dirs_buf; s != NULL && *s != '\0' && nd < 15;) {
      char *e = strchr(s, sep);
      if (e != NULL)
        *e++ = '\0';
      dirs[nd++] = s;
      s = e;
    }
  } else {
    if (cuda_home != NULL && *cuda_home != '\0' &&
        cm_snprintf(cuda_bin, sizeof cuda_bin, "%s/bin", cuda_home) == CM_OK)
      dirs[nd++] = cuda_bin;
    /* CUDA_PATH: what the toolkit's Windows installer sets; there
     * compute-sanitizer.exe is in its own folder (bin holds a .bat) */
    if (cuda_path != NULL && *cuda_path != '\0' &&
        cm_snprintf(cuda_path_bin, sizeof cuda_path_bin, "%s/bin", cuda_path) ==
            CM_OK &&
        cm_snprintf(cuda_san, sizeof cuda_san, "%s/compute-sanitizer",
                    cuda_path) == CM_OK) {
      dirs[nd++] = cuda_path_bin;
      dirs[nd++] = cuda_san;
    }
    dirs[nd++] = "/usr/local/cuda/bin";
  }
  dirs[nd] = NULL;
  if (plat_find_executable(name, dirs, out->path, sizeof out->path) == CM_OK) {
    out->found = 1;
  } else if (strcmp(name, "ncu") == 0 &&
             (root = rp__nsight_root(p, root_buf, sizeof root_buf)) != NULL &&
             rp__ncu_install(root, out->path, sizeof out->path)) {
    out->found = 1;
  }
  if (out->found)
    rp__probe_version(out);
  rp__tool_remember(p, name, out);
}

void rp_nsys_probe(const rp_probe *p, rp_tool_info *out) {
  static const char key[] = "nsys (the profile stage's)";
  const char *root;
  char base[600], root_buf[600];
  if (rp__tool_recall(p, key, out))
    return;
  rp_tool_probe(p, "nsys", out);
  if (!out->found &&
      (root = rp__nsight_root(p, root_buf, sizeof root_buf)) != NULL) {
    memset(out, 0, sizeof *out);
    if ((cm_snprintf(base, sizeof base, "%s/nsight-systems", root) == CM_OK &&
         rp__newest_under(base, "", "bin/nsys", out->path, sizeof out->path)) ||
        (cm_snprintf(base, sizeof base, "%s/nsight-compute", root) == CM_OK &&
         rp__newest_under(base, "", "host/target-linux-x64/nsys", out->path,
                          sizeof out->path))) {
      out->found = 1;
      rp__probe_version(out);
    }
  }
  rp__tool_remember(p, key, out);
}

int rp_device_count(const rp_probe *p, char *detail, size_t size) {
  int n = 0;
  int r = plat_nvidia_gpu_count(p != NULL ? p->gpus_dir : NULL, &n);
  const char *dir = p != NULL && p->gpus_dir != NULL
                        ? p->gpus_dir
                        : "/proc/driver/nvidia/gpus";
  if (r == CM_OK && n > 0) {
    cm_snprintf(detail, size, "%d GPU(s) listed in %s", n, dir);
    return n;
  }
  if (p == NULL || !p->no_nvidia_smi) {
    static const char *const argv[] = {"nvidia-smi", "-L", NULL};
    rp_step_result res;
    if (rp__probe_run(argv, &res) == CM_OK && res.exit_code == 0) {
      const char *s;
      for (s = res.out; s != NULL && (s = strstr(s, "GPU ")) != NULL; s += 4)
        if (s == res.out || s[-1] == '\n')
          n++;
      rp_step_result_free(&res);
      cm_snprintf(detail, size, "%d GPU(s) from nvidia-smi -L", n);
      return n;
    }
    rp_step_result_free(&res);
  }
  if (r == CM_ENOTSUP) /* no driver folder to read on this OS (Windows) */
    cm_snprintf(detail, size,
                "no CUDA device: nvidia-smi -L is unavailable or lists no GPU "
                "(install or update the NVIDIA driver; nvidia-smi.exe comes "
                "with it)");
  else
    cm_snprintf(detail, size, "no CUDA device: %s empty or absent%s", dir,
                p != NULL && p->no_nvidia_smi ? ""
                                              : ", nvidia-smi -L unavailable");
  return 0;
}

int rp_gpu_idle(const rp_probe *p, char *detail, size_t size) {
  static const char *const argv[] = {"nvidia-smi", "--query-compute-apps=pid",
                                     "--format=csv,noheader", NULL};
  rp_step_result res;
  int idle = -1;
  if (p != NULL && p->no_nvidia_smi) {
    cm_snprintf(detail, size, "unknown: nvidia-smi not consulted");
    return -1;
  }
  if (rp__probe_run(argv, &res) == CM_OK && res.exit_code == 0) {
    const char *s = res.out;
    while (*s == ' ' || *s == '\n' || *s == '\r')
      s++;
    idle = *s == '\0';
    if (idle)
      cm_snprintf(detail, size, "no compute process on any GPU");
    else
      cm_snprintf(detail, size, "compute processes running: pid %.200s", s);
  } else {
    cm_snprintf(detail, size, "unknown: nvidia-smi unavailable (%s)",
                res.error[0] ? res.error : "non-zero exit");
  }
  rp_step_result_free(&res);
  return idle;
}

/* The name of the first variable of env that pattern matches, into
 * found[size] ("" when none does). Names longer than found are skipped. */
static void rp__env_find(char *const *env, const char *pattern, char *found,
                         size_t size) {
  size_t j;
  found[0] = '\0';
  for (j = 0; env[j] != NULL; j++) {
    const char *eq = strchr(env[j], '=');
    size_t n = eq != NULL ? (size_t)(eq - env[j]) : strlen(env[j]);
    if (n >= size)
      continue;
    memcpy(found, env[j], n);
    found[n] = '\0';
    if (rp_pattern_match(pattern, found))
      return;
  }
  found[0] = '\0';
}

static void rp__check_forbid(const rp_contract *c, char *const *env,
                             rp_checks *out) {
  int i;
  for (i = 0; i < c->nforbid; i++) {
    char found[256], label[64];
    rp__env_find(env, c->forbid[i], found, sizeof found);
    cm_snprintf(label, sizeof label, "forbid %s", c->forbid[i]);
    if (found[0] != '\0')
      rp_checks_add(out, label, RP_CHECK_FAIL, RP_EFFECT_REFUSE,
                    "instrumentation marker %s is set in repro's "
                    "environment; unset it first",
                    found);
    else
      rp_checks_add(out, label, RP_CHECK_PASS, RP_EFFECT_NONE,
                    "absent from repro's environment");
  }
}

/* Each unset pattern: said when repro's own environment has a variable it
 * matches, which the children then do not get (sanitize's LD_PRELOAD: a
 * preloaded allocator), so the record shows what was kept from them. */
static void rp__check_unsets(const rp_contract *c, char *const *env,
                             rp_checks *out) {
  int i;
  for (i = 0; i < c->nunset; i++) {
    char found[256], label[64];
    rp__env_find(env, c->unset[i], found, sizeof found);
    cm_snprintf(label, sizeof label, "unset %s", c->unset[i]);
    if (found[0] != '\0')
      rp_checks_add(out, label, RP_CHECK_WARN, RP_EFFECT_NONE,
                    "%s is set in repro's environment; the children do not "
                    "get it",
                    found);
    else
      rp_checks_add(out, label, RP_CHECK_PASS, RP_EFFECT_NONE,
                    "absent from repro's environment");
  }
}

static void rp__check_sets(const rp_contract *c, char *const *env,
                           rp_checks *out) {
  int i;
  size_t j;
  for (i = 0; i < c->nset; i++) {
    const char *eq = strchr(c->set[i], '=');
    size_t n = (size_t)(eq - c->set[i]);
    char label[64];
    const char *mine = NULL;
    for (j = 0; env[j] != NULL; j++)
      if (strncmp(env[j], c->set[i], n) == 0 && env[j][n] == '=')
        mine = env[j] + n + 1;
    cm_snprintf(label, sizeof label, "set %.*s", (int)n, c->set[i]);
    if (mine != NULL && strcmp(mine, eq + 1) != 0)
      rp_checks_add(out, label, RP_CHECK_WARN, RP_EFFECT_NONE,
                    "children get %s (repro's own value %.100s is "
                    "overridden)",
                    eq + 1, mine);
    else
      rp_checks_add(out, label, RP_CHECK_PASS, RP_EFFECT_NONE,
                    "children get %s", eq + 1);
  }
}

static void rp__check_tools(const rp_contract *c, const rp_probe *p,
                            rp_checks *out) {
  int i;
  for (i = 0; i < c->ntools; i++) {
    const rp_tool_req *t = &c->tools[i];
    rp_tool_info info;
    char label[64];
    cm_snprintf(label, sizeof label, "tool %s", t->name);
    rp_tool_probe(p, t->name, &info);
    if (!info.found)
      rp_checks_add(out, label, t->optional ? RP_CHECK_WARN : RP_CHECK_FAIL,
                    t->optional ? RP_EFFECT_LIMIT : RP_EFFECT_SKIP,
                    "%s not found in PATH or the CUDA folders ($CUDA_HOME/bin, "
                    "$CUDA_PATH/bin, $CUDA_PATH/compute-sanitizer, "
                    "/usr/local/cuda/bin%s)",
                    t->name,
                    strcmp(t->name, "ncu") == 0
                        ? "; nor in Nsight Compute's installs"
                        : "");
    else if (t->min_version[0] == '\0')
      rp_checks_add(out, label, RP_CHECK_PASS, RP_EFFECT_NONE, "%s, version %s",
                    info.path, info.version[0] ? info.version : "unknown");
    else if (info.version[0] == '\0')
      rp_checks_add(out, label, RP_CHECK_WARN, RP_EFFECT_LIMIT,
                    "%s: version unknown, need >= %s", info.path,
                    t->min_version);
    else if (rp_version_cmp(info.version, t->min_version) < 0)
      rp_checks_add(out, label, RP_CHECK_FAIL,
                    t->optional ? RP_EFFECT_LIMIT : RP_EFFECT_REFUSE,
                    "%s: version %s < required %s", info.path, info.version,
                    t->min_version);
    else
      rp_checks_add(out, label, RP_CHECK_PASS, RP_EFFECT_NONE,
                    "%s, version %s >= %s", info.path, info.version,
                    t->min_version);
  }
}

void rp_preflight(const rp_contract *c, const rp_probe *p, rp_checks *out) {
  char *const *env = p != NULL && p->env != NULL ? p->env : plat_environ();
  char detail[1024];
  int ndev = -1;

  rp__check_forbid(c, env, out);
  rp__check_unsets(c, env, out);
  rp__check_sets(c, env, out);
  rp__check_tools(c, p, out);

  if (c->device != RP_NEED_NONE) {
    ndev = rp_device_count(p, detail, sizeof detail);
    if (ndev > 0)
      rp_checks_add(out, "device", RP_CHECK_PASS, RP_EFFECT_NONE, "%s", detail);
    else
      rp_checks_add(
          out, "device",
          c->device == RP_NEED_REQUIRED ? RP_CHECK_FAIL : RP_CHECK_WARN,
          c->device == RP_NEED_REQUIRED ? RP_EFFECT_SKIP : RP_EFFECT_NONE, "%s",
          detail);
  }
  if (c->counters != RP_NEED_NONE) {
    plat_counter_perm perm;
    int priv = p != NULL && p->use_privileged ? p->privileged : -1;
    plat_counter_permission(p != NULL ? p->params_path : NULL, priv, &perm);
    rp_checks_add(out, "counters",
                  perm.allowed                      ? RP_CHECK_PASS
                  : c->counters == RP_NEED_REQUIRED ? RP_CHECK_FAIL
                                                    : RP_CHECK_WARN,
                  RP_EFFECT_LIMIT, "%s", perm.detail);
  }
  if (c->idle != RP_NEED_NONE) {
    int idle = ndev == 0 ? -1 : rp_gpu_idle(p, detail, sizeof detail);
    if (ndev == 0)
      cm_snprintf(detail, sizeof detail, "not applicable: no device");
    rp_checks_add(out, "gpu idle",
                  idle == 1   ? RP_CHECK_PASS
                  : idle == 0 ? (c->idle == RP_NEED_REQUIRED ? RP_CHECK_FAIL
                                                             : RP_CHECK_WARN)
                              : RP_CHECK_WARN,
                  idle == 0 ? RP_EFFECT_LIMIT : RP_EFFECT_NONE, "%s", detail);
  }
}

int rp_lock_spec_parse(const char *spec, unsigned *sm, unsigned *mem) {
  int64_t a, b;
  if (cm_parse_pair(spec, 1, 100000, &a, &b) != CM_OK)
    return CM_EINVAL;
  *sm = (unsigned)a;
  *mem = (unsigned)b;
  return CM_OK;
}

void rp_lock_clocks_check(const char *spec, int privileged, rp_checks *out) {
  if (privileged)
    rp_checks_add(out, "lock clocks", RP_CHECK_PASS, RP_EFFECT_NONE,
                  "cuda_portfolio --lock-clocks %s: locked for the timing "
                  "run, reset at its end (and on SIGINT/SIGTERM), recorded "
                  "in the result's settings.clocks_locked",
                  spec);
  else
    rp_checks_add(out, "lock clocks", RP_CHECK_FAIL, RP_EFFECT_REFUSE,
                  "--lock-clocks %s needs root on Linux (sudo ./repro time "
                  "--lock-clocks %s) or an elevated prompt on Windows; or "
                  "time without it: the clocks are recorded either way",
                  spec, spec);
}
