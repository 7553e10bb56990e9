/* Unit tests of repro's pure parts: contracts, banner, versions, counter
 * permission, preflight against fabricated inputs, CLI. No GPU, no child
 * processes except where a check probes a tool (none here: tool_dirs is an
 * empty folder and nvidia-smi is never consulted). */
#include "cm_test.h"
#include "cm_error.h"
#include "platform.h"
#include "cm_str.h"
#include "rp_banner.h"
#include "rp_cli.h"
#include "rp_contract.h"
#include "pf_instrument.h"
#include "rp_doctor.h"
#include "rp_preflight.h"
#include "rp_stage.h"
#include "rp_test_util.h"
#include "archive/rp_archive.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static const char good_contract[] =
    "# a comment line\n"
    "set CUDA_PORTFOLIO_ALLOC=exact   # trailing comment\n"
    "set EMPTY=\n"
    "unset CUDA_*\n"
    "forbid NSYS_*\n"
    "forbid LD_PRELOAD\n"
    "tool compute-sanitizer >= 2023.1\n"
    "tool nsys optional\n"
    "tool cmake >= 3.24 optional\n"
    "\n"
    "device required\r\n"
    "counters optional\n"
    "idle required\n"
    "timeout 2.5\n"
    "instrumented yes\n";

TEST_IMPL(contract_good) {
  rp_contract c;
  char err[256];
  /* the same text after a UTF-8 byte order mark (a Windows editor's) */
  char bom[sizeof good_contract + 3];
  memcpy(bom, "\xEF\xBB\xBF", 3);
  memcpy(bom + 3, good_contract, sizeof good_contract);
  ASSERT_OK(rp_contract_parse(bom, "bom.contract", &c, err, sizeof err));
  ASSERT_EQ(c.nset, 2);
  ASSERT_OK(
      rp_contract_parse(good_contract, "g.contract", &c, err, sizeof err));
  ASSERT_EQ(c.nset, 2);
  ASSERT_STR_EQ(c.set[0], "CUDA_PORTFOLIO_ALLOC=exact");
  ASSERT_STR_EQ(c.set[1], "EMPTY=");
  ASSERT_EQ(c.nunset, 1);
  ASSERT_STR_EQ(c.unset[0], "CUDA_*");
  ASSERT_EQ(c.nforbid, 2);
  ASSERT_EQ(c.ntools, 3);
  ASSERT_STR_EQ(c.tools[0].name, "compute-sanitizer");
  ASSERT_STR_EQ(c.tools[0].min_version, "2023.1");
  ASSERT_EQ(c.tools[0].optional, 0);
  ASSERT_EQ(c.tools[1].optional, 1);
  ASSERT_STR_EQ(c.tools[1].min_version, "");
  ASSERT_EQ(c.tools[2].optional, 1);
  ASSERT_EQ(c.device, RP_NEED_REQUIRED);
  ASSERT_EQ(c.counters, RP_NEED_OPTIONAL);
  ASSERT_EQ(c.idle, RP_NEED_REQUIRED);
  ASSERT_NEAR(c.timeout_s, 2.5, 1e-12);
  ASSERT_EQ(c.instrumented, 1);
  return 0;
}

/* Every kind of malformed line is an error naming file:line. */
TEST_IMPL(contract_malformed) {
  static const struct {
    const char *line;
    const char *want;
  } bad[] = {
      {"colour blue\n", "unknown key 'colour'"},
      {"set NOEQUALS\n", "set needs NAME=VALUE"},
      {"set BAD-NAME=1\n", "bad variable name"},
      {"set A=1 B=2\n", "set needs NAME=VALUE"},
      {"unset\n", "unset needs one NAME or PREFIX*"},
      {"forbid A*B\n", "forbid needs one NAME or PREFIX*"},
      {"tool\n", "tool needs a NAME"},
      {"tool nvcc >=\n", "'>=' needs a version"},
      {"tool nvcc >= 1.x\n", "'>=' needs a version"},
      {"tool nvcc sometimes\n", "unexpected 'sometimes'"},
      /* six words: the sixth was read through an unset pointer (a crash) */
      {"tool nvcc >= 12.0 optional extra\n", "too many words"},
      {"idle maybe\n", "idle must be none, optional or required"},
      {"counters\n", "counters takes exactly one value"},
      {"timeout -3\n", "timeout must be seconds > 0"},
      {"timeout soon\n", "timeout must be seconds > 0"},
      {"instrumented perhaps\n", "instrumented must be yes or no"},
      {"device none\n", "device given twice"},
      {"timeout 7\n", "timeout given twice"},
  };
  char text[512], err[256];
  rp_contract c;
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    /* The bad line comes after a valid header: line 4. */
    snprintf(text, sizeof text, "device none\ntimeout 5\ninstrumented no\n%s",
             bad[i].line);
    ASSERT_EQ(rp_contract_parse(text, "x.contract", &c, err, sizeof err),
              CM_EPARSE);
    ASSERT_CONTAINS(err, "x.contract:4: ");
    ASSERT_CONTAINS(err, bad[i].want);
  }
  /* Missing required keys name the file. */
  ASSERT_EQ(rp_contract_parse("device none\ntimeout 5\n", "m.contract", &c, err,
                              sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "m.contract: missing 'instrumented");
  ASSERT_EQ(rp_contract_parse("timeout 5\ninstrumented no\n", "m.contract", &c,
                              err, sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "missing 'device");
  ASSERT_EQ(rp_contract_parse("device none\ninstrumented no\n", "m.contract",
                              &c, err, sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "missing 'timeout");
  return 0;
}

/* The shipped contracts all parse, and time's forbids the usual markers. */
TEST_IMPL(contract_shipped) {
  static const char *const names[] = {"build",   "test", "sanitize", "inspect",
                                      "profile", "time", "selftest", NULL};
  char path[1024], err[256];
  rp_contract c;
  int i;
  for (i = 0; names[i] != NULL; i++) {
    snprintf(path, sizeof path, "%s/env/%s.contract", CM_SOURCE_DIR, names[i]);
    if (rp_contract_load(path, &c, err, sizeof err) != CM_OK)
      CM_TEST_FAIL_("%s", err);
  }
  snprintf(path, sizeof path, "%s/env/sanitize.contract", CM_SOURCE_DIR);
  ASSERT_OK(rp_contract_load(path, &c, err, sizeof err));
  ASSERT_STR_EQ(c.set[0], "CUDA_PORTFOLIO_ALLOC=exact");
  snprintf(path, sizeof path, "%s/env/time.contract", CM_SOURCE_DIR);
  ASSERT_OK(rp_contract_load(path, &c, err, sizeof err));
  {
    char *env[] = {"HOME=/root", "NSYS_PROFILING_SESSION_ID=3", NULL};
    char name[64];
    ASSERT_TRUE(rp_contract_forbidden(&c, env, name, sizeof name) != NULL);
    ASSERT_STR_EQ(name, "NSYS_PROFILING_SESSION_ID");
  }
  ASSERT_EQ(c.instrumented, 0);
  {
    /* every marker cuda_portfolio detects is one the time contract
     * forbids: a marker it missed reached the timed run, which then said
     * instrumented instead of being refused up front (exit 3) */
    int k;
    for (k = 0; k < 2; k++) {
      const char *const *m = pf_instrument_markers(k);
      for (i = 0; m[i] != NULL; i++) {
        char var[160], *env[2], name[64];
        snprintf(var, sizeof var, "%s%s=1", m[i], k ? "X" : "");
        env[0] = var;
        env[1] = NULL;
        if (rp_contract_forbidden(&c, env, name, sizeof name) == NULL)
          CM_TEST_FAIL_("env/time.contract does not forbid %s", var);
      }
    }
    /* and the other way: every variable the time contract forbids is one
     * the binary itself reports, so a run started by hand (not through
     * repro) under such a variable says instrumented (NV_NSIGHT_FOO and
     * NV_COMPUTE_SANITIZER_FOO were refused by repro and unseen by the
     * binary until 2026-12-06) */
    for (i = 0; i < c.nforbid; i++) {
      char var[160];
      size_t len = strlen(c.forbid[i]);
      if (len > 0 && c.forbid[i][len - 1] == '*')
        snprintf(var, sizeof var, "%.*sFOO", (int)(len - 1), c.forbid[i]);
      else
        snprintf(var, sizeof var, "%s", c.forbid[i]);
      if (!pf_instrument_is_marker(var))
        CM_TEST_FAIL_("cuda_portfolio does not report %s, which "
                      "env/time.contract forbids",
                      var);
    }
  }
  /* the build stage refuses the variables nvcc reads at every compile:
   * kernels built with flags outside the preset's, unrecorded */
  snprintf(path, sizeof path, "%s/env/build.contract", CM_SOURCE_DIR);
  ASSERT_OK(rp_contract_load(path, &c, err, sizeof err));
  {
    char *env[] = {"HOME=/root", "NVCC_APPEND_FLAGS=-G", NULL};
    char *env2[] = {"NVCC_PREPEND_FLAGS=-lineinfo", NULL};
    char name[64];
    ASSERT_TRUE(rp_contract_forbidden(&c, env, name, sizeof name) != NULL);
    ASSERT_STR_EQ(name, "NVCC_APPEND_FLAGS");
    ASSERT_TRUE(rp_contract_forbidden(&c, env2, name, sizeof name) != NULL);
  }
  return 0;
}

/* What a contract says must be what the children get, or it is refused:
 * two values for one name (the child's environment held both), a set name
 * that the same contract forbids (the forbidden variable reached the
 * child), a NUL byte (the lines after it, a forbid rule among them,
 * were dropped without a word), a UTF-16 file (refused as "unknown key"
 * with garbage), and a check list past its room (the checks past it, the
 * device's among them, were dropped and the stage ran). */
TEST_IMPL(contract_hazards) {
  static const struct {
    const char *lines, *want;
  } bad[] = {
      /* FILE:LINE, as every other contract error (REPRO.md) */
      {"set A=1\nset A=2\n", "h.contract:5: set A twice (also at line 4)"},
      {"set LD_PRELOAD=x.so\nforbid LD_*\n",
       "h.contract:4: set LD_PRELOAD, which 'forbid LD_*' (line 5) forbids"},
  };
  static const char head[] = "device none\ntimeout 5\ninstrumented no\n";
  char text[512], err[256], dir[512], path[700], big[8192];
  rp_contract c;
  rp_checks cs;
  rp_probe p;
  size_t i;
  FILE *f;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(text, sizeof text, "%s%s", head, bad[i].lines);
    ASSERT_EQ(rp_contract_parse(text, "h.contract", &c, err, sizeof err),
              CM_EPARSE);
    ASSERT_CONTAINS(err, bad[i].want);
  }
  ASSERT_EQ(rt_fresh_dir("hazards", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/has-zero-byte.contract", dir);
  f = fopen(path, "wb");
  ASSERT_TRUE(f != NULL);
  fwrite(head, 1, sizeof head - 1, f);
  fwrite("\0\nforbid LD_PRELOAD\n", 1, 20, f);
  fclose(f);
  ASSERT_EQ(rp_contract_load(path, &c, err, sizeof err), CM_EPARSE);
  ASSERT_CONTAINS(err, "NUL byte at offset 38");
  snprintf(path, sizeof path, "%s/utf16.contract", dir);
  f = fopen(path, "wb");
  ASSERT_TRUE(f != NULL);
  fwrite("\xff\xfe"
         "d\0e\0v\0",
         1, 8, f);
  fclose(f);
  ASSERT_EQ(rp_contract_load(path, &c, err, sizeof err), CM_EPARSE);
  ASSERT_CONTAINS(err, "UTF-16");
  /* the longest contract the parser takes: every check is made, the
   * device's (last in line) included */
  {
    size_t o = 0;
    int k;
    for (k = 0; k < RP_CONTRACT_MAX; k++)
      o += (size_t)snprintf(big + o, sizeof big - o,
                            "unset U%d\nforbid F%d\nset S%d=1\n", k, k, k);
    for (k = 0; k < RP_CONTRACT_MAX; k++)
      o += (size_t)snprintf(big + o, sizeof big - o, "tool tool%d optional\n",
                            k);
    snprintf(big + o, sizeof big - o,
             "device required\ntimeout 5\ninstrumented no\n");
  }
  ASSERT_OK(rp_contract_parse(big, "big", &c, err, sizeof err));
  memset(&p, 0, sizeof p);
  p.env = (char *[]){"HOME=/x", NULL};
  snprintf(path, sizeof path, "%s/nogpus", dir);
  ASSERT_OK(plat_mkdir_p(path));
  p.gpus_dir = path;
  p.no_nvidia_smi = 1;
  p.tool_dirs = dir;
  rp_preflight(&c, &p, &cs);
  ASSERT_TRUE(cs.n < RP_MAX_CHECKS);
  for (i = 0; i < (size_t)cs.n; i++)
    if (strcmp(cs.items[i].name, "device") == 0)
      break;
  ASSERT_TRUE(i < (size_t)cs.n);
  ASSERT_EQ(cs.items[i].state, RP_CHECK_FAIL);
  /* past its room, the list refuses the stage */
  memset(&cs, 0, sizeof cs);
  for (i = 0; i < RP_MAX_CHECKS + 5; i++)
    rp_checks_add(&cs, "x", RP_CHECK_PASS, RP_EFFECT_NONE, "ok");
  ASSERT_EQ(cs.n, RP_MAX_CHECKS);
  ASSERT_EQ(cs.items[RP_MAX_CHECKS - 1].state, RP_CHECK_FAIL);
  ASSERT_EQ(rp_checks_verdict(&cs, err, sizeof err), RP_EFFECT_REFUSE);
  ASSERT_CONTAINS(err, "the rest were not made");
  return 0;
}

/* Variable names compare as the OS compares them: on Windows, where names
 * ignore case and the driver's getenv("CUDA_INJECTION64_PATH") finds
 * Cuda_Injection64_Path, a forbid rule, the child environment's scrub and
 * cuda_portfolio's marker check all fold case; on POSIX they do not (there
 * it is another variable, which CUDA does not read). */
TEST_IMPL(env_names_case) {
#ifdef _WIN32
  const int folded = 1;
#else
  const int folded = 0;
#endif
  rp_contract c;
  char err[256], **env = NULL;
  char *parent[] = {"cuda_portfolio_alloc=pooled", "Nsys_X=1", NULL};
  int i, n;
  ASSERT_EQ(rp_pattern_match("CUDA_INJECTION*", "Cuda_Injection64_Path"),
            folded);
  ASSERT_EQ(rp_pattern_match("LD_PRELOAD", "ld_preload"), folded);
  ASSERT_EQ(rp_pattern_match("NSYS_*", "NSY"), 0);
  ASSERT_EQ(pf_instrument_is_marker("Cuda_Injection64_Path"), folded);
  ASSERT_EQ(pf_instrument_is_marker("ld_preload"), folded);
  ASSERT_EQ(pf_instrument_is_marker("LD_PRELOAD"), 1);
  ASSERT_EQ(pf_instrument_is_marker("LD_PRELOADX"), 0);
  ASSERT_OK(rp_contract_parse("set CUDA_PORTFOLIO_ALLOC=exact\n"
                              "forbid NSYS_*\n"
                              "device none\ntimeout 1\ninstrumented no\n",
                              "e", &c, err, sizeof err));
  ASSERT_EQ(rp_contract_forbidden(&c, parent, NULL, 0) != NULL, folded);
  ASSERT_OK(rp_contract_child_env(&c, parent, NULL, &env));
  for (n = 0; env[n] != NULL; n++)
    ;
  /* folded: the set replaces the parent's value and the forbidden one is
   * gone; else the three are three variables */
  ASSERT_EQ(n, folded ? 1 : 3);
  for (i = 0; i < n; i++)
    if (folded)
      ASSERT_STR_EQ(env[i], "CUDA_PORTFOLIO_ALLOC=exact");
  rp_env_free(env);
  return 0;
}

TEST_IMPL(pattern_and_child_env) {
  rp_contract c;
  char err[256], **env = NULL;
  char *parent[] = {"PATH=/bin",
                    "CUDA_PORTFOLIO_ALLOC=pooled",
                    "LD_PRELOAD=x.so",
                    "NSYS_X=1",
                    "KEEP=1",
                    "CUDA_VISIBLE_DEVICES=0",
                    NULL};
  const char *extra[] = {"KEEP=2", NULL};
  int i, seen_keep = 0, seen_alloc = 0;
  ASSERT_TRUE(rp_pattern_match("NSYS_*", "NSYS_CONFIG"));
  ASSERT_TRUE(!rp_pattern_match("NSYS_*", "XNSYS_CONFIG"));
  ASSERT_TRUE(rp_pattern_match("LD_PRELOAD", "LD_PRELOAD"));
  ASSERT_TRUE(!rp_pattern_match("LD_PRELOAD", "LD_PRELOAD_X"));
  ASSERT_OK(rp_contract_parse("set CUDA_PORTFOLIO_ALLOC=exact\n"
                              "unset CUDA_VISIBLE*\nforbid NSYS_*\n"
                              "forbid LD_PRELOAD\n"
                              "device none\ntimeout 1\ninstrumented no\n",
                              "e", &c, err, sizeof err));
  ASSERT_OK(rp_contract_child_env(&c, parent, extra, &env));
  for (i = 0; env[i] != NULL; i++) {
    ASSERT_TRUE(strncmp(env[i], "LD_PRELOAD", 10) != 0);
    ASSERT_TRUE(strncmp(env[i], "NSYS_", 5) != 0);
    ASSERT_TRUE(strncmp(env[i], "CUDA_VISIBLE", 12) != 0);
    if (strncmp(env[i], "KEEP=", 5) == 0) {
      ASSERT_STR_EQ(env[i], "KEEP=2");
      seen_keep++;
    }
    if (strncmp(env[i], "CUDA_PORTFOLIO_ALLOC=", 21) == 0) {
      ASSERT_STR_EQ(env[i], "CUDA_PORTFOLIO_ALLOC=exact");
      seen_alloc++;
    }
  }
  ASSERT_EQ(seen_keep, 1);
  ASSERT_EQ(seen_alloc, 1);
  ASSERT_EQ(i, 3); /* PATH, CUDA_PORTFOLIO_ALLOC, KEEP; nothing else */
  rp_env_free(env);
  return 0;
}

TEST_IMPL(banner_parse) {
  rp_banner b;
  char err[256];
  ASSERT_OK(rp_banner_parse("[cuda_portfolio] version=0.1.0 allocator=exact "
                            "instrumented=false markers=- seed=42\nmore\n",
                            &b, err, sizeof err));
  ASSERT_STR_EQ(b.version, "0.1.0");
  ASSERT_STR_EQ(b.allocator, "exact");
  ASSERT_EQ(b.instrumented, 0);
  ASSERT_STR_EQ(b.markers, "");
  ASSERT_EQ(b.seed, 42);
  ASSERT_STR_EQ(b.git, ""); /* a binary before git= */
  ASSERT_OK(rp_banner_parse("[cuda_portfolio] version=0.1.0 allocator=exact "
                            "instrumented=false markers=- seed=42 "
                            "git=2b15a501ab+dirty",
                            &b, err, sizeof err));
  ASSERT_STR_EQ(b.git, "2b15a501ab+dirty");
  ASSERT_EQ(rp_banner_parse("[cuda_portfolio] version=0.1.0 allocator=exact "
                            "instrumented=false markers=- seed=42 git=",
                            &b, err, sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "git");
  ASSERT_OK(rp_banner_parse("[cuda_portfolio] seed=-1 markers=NSYS_A,"
                            "LD_PRELOAD instrumented=true allocator=pooled "
                            "version=x extra=ignored\r\n",
                            &b, err, sizeof err));
  ASSERT_STR_EQ(b.markers, "NSYS_A,LD_PRELOAD");
  ASSERT_EQ(b.instrumented, 1);
  ASSERT_STR_EQ(b.allocator, "pooled");
  ASSERT_EQ(
      rp_banner_parse("hello\n[cuda_portfolio] version=1", &b, err, sizeof err),
      CM_EPARSE);
  ASSERT_EQ(rp_banner_parse("[cuda_portfolio] version=1 allocator=big "
                            "instrumented=false markers=- seed=1",
                            &b, err, sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "allocator");
  ASSERT_EQ(rp_banner_parse("[cuda_portfolio] version=1 allocator=exact "
                            "instrumented=false markers=-",
                            &b, err, sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "missing seed");
  ASSERT_EQ(rp_banner_parse("[cuda_portfolio] version=1 allocator=exact "
                            "instrumented=false markers=NSYS_A seed=1",
                            &b, err, sizeof err),
            CM_EPARSE);
  ASSERT_CONTAINS(err, "markers listed");
  ASSERT_EQ(rp_banner_parse(NULL, &b, NULL, 0), CM_EPARSE);
  return 0;
}

TEST_IMPL(version_parse) {
  int v[4];
  char s[64];
  ASSERT_OK(
      rp_version_parse("cmake version 3.25.1\n\nCMake suite", v, s, sizeof s));
  ASSERT_STR_EQ(s, "3.25.1");
  ASSERT_OK(rp_version_parse("nvcc: NVIDIA (R) Cuda compiler driver\n"
                             "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                             "Built on Wed_Jul_16_07:30:01_PM_PDT_2025\n"
                             "Cuda compilation tools, release 13.0, "
                             "V13.0.48\n",
                             v, s, sizeof s));
  ASSERT_STR_EQ(s, "13.0");
  ASSERT_OK(rp_version_parse("NVIDIA (R) Compute Sanitizer\nCopyright (c) "
                             "2020-2025 NVIDIA Corporation\nVersion "
                             "2025.3.1.0 (build 36398880) (public-release)\n",
                             v, s, sizeof s));
  ASSERT_STR_EQ(s, "2025.3.1.0");
  ASSERT_EQ(v[0], 2025);
  ASSERT_EQ(v[2], 1);
  ASSERT_EQ(rp_version_parse("no digits here 2025", v, s, sizeof s), CM_EPARSE);
  ASSERT_TRUE(rp_version_cmp("3.25.1", "3.24") > 0);
  ASSERT_TRUE(rp_version_cmp("12.0", "13.0") < 0);
  ASSERT_TRUE(rp_version_cmp("2025.3.1.0", "2025.3.1") == 0);
  ASSERT_TRUE(rp_version_cmp("3.9", "3.24") < 0); /* numeric, not text */
  return 0;
}

/* plat_counter_permission with fabricated params files. */
TEST_IMPL(counter_permission) {
  char dir[512], p0[600], p1[600], pn[600];
  plat_counter_perm perm;
  int windows = plat_os_detect() == PLAT_OS_WINDOWS;
  ASSERT_EQ(rt_fresh_dir("counters", dir, sizeof dir), 0);
  snprintf(p0, sizeof p0, "%s/params0", dir);
  snprintf(p1, sizeof p1, "%s/params1", dir);
  snprintf(pn, sizeof pn, "%s/absent", dir);
  ASSERT_EQ(rt_write(p0,
                     "ResmanDebugLevel: 4294967295\n"
                     "RmProfilingAdminOnly: 0\nEnableMSI: 1\n",
                     0),
            0);
  ASSERT_EQ(rt_write(p1,
                     "ResmanDebugLevel: 4294967295\n"
                     "RmProfilingAdminOnly: 1\n",
                     0),
            0);
  ASSERT_EQ(plat_parse_admin_only("XRmProfilingAdminOnly: 0\n"), -1);
#ifndef _WIN32
  /* privilege is CAP_SYS_ADMIN in the effective set, not uid 0: Docker's
   * default root has every capability but that one (bit 21) */
  ASSERT_EQ(plat_parse_cap_sys_admin("Uid:\t0\t0\t0\t0\n"
                                     "CapInh:\t0000000000000000\n"
                                     "CapEff:\t00000000a80425fb\n"),
            0);
  ASSERT_EQ(plat_parse_cap_sys_admin("CapEff:\t000001ffffffffff\n"), 1);
  ASSERT_EQ(plat_parse_cap_sys_admin("CapEff:\t000001fffedfffff\n"), 0);
  ASSERT_EQ(plat_parse_cap_sys_admin("XCapEff:\t000001ffffffffff\n"), -1);
  ASSERT_EQ(plat_parse_cap_sys_admin("CapEff:\tzz\n"), -1);
  ASSERT_EQ(plat_parse_cap_sys_admin("Name:\tbash\n"), -1);
#endif
  ASSERT_OK(plat_counter_permission(p0, 0, &perm));
  ASSERT_EQ(perm.params_found, 1);
  ASSERT_EQ(perm.admin_only, 0);
  ASSERT_EQ(perm.allowed, 1);
  ASSERT_CONTAINS(perm.detail, windows ? "RmProfilingAdminOnly is 0"
                                       : "RmProfilingAdminOnly=0");
  ASSERT_OK(plat_counter_permission(p1, 0, &perm));
  ASSERT_EQ(perm.admin_only, 1);
  ASSERT_EQ(perm.allowed, 0);
  /* Each OS names its own notion of an administrator. */
  ASSERT_CONTAINS(perm.detail,
                  windows ? "not elevated" : "neither root nor CAP_SYS_ADMIN");
  ASSERT_OK(plat_counter_permission(p1, 1, &perm));
  ASSERT_EQ(perm.allowed, 1);
  ASSERT_OK(plat_counter_permission(pn, 0, &perm));
  ASSERT_EQ(perm.params_found, 0);
  ASSERT_EQ(perm.allowed, 0);
  ASSERT_CONTAINS(perm.detail,
                  windows ? "no NVIDIA driver setting found" : "not readable");
  return 0;
}

static const char *find_check(const rp_checks *cs, const char *name,
                              rp_check_state *state) {
  int i;
  for (i = 0; i < cs->n; i++)
    if (strcmp(cs->items[i].name, name) == 0) {
      *state = cs->items[i].state;
      return cs->items[i].detail;
    }
  return NULL;
}

/* nsys as the profile stage finds it: a fake install tree under
 * rp_probe.nsight_root, each nsys a script printing what the GPU machine's
 * `nsys --version` printed (tests/fixtures/h200-probe/nsys-version.txt). */
static void nsys_tree(const char *root, const char *rel, const char *ver) {
  char path[900], dir[900], text[200];
  char *slash;
  snprintf(path, sizeof path, "%s/%s", root, rel);
  snprintf(dir, sizeof dir, "%s", path);
  slash = strrchr(dir, '/');
  if (slash != NULL)
    *slash = '\0';
  if (plat_mkdir_p(dir) != CM_OK)
    return;
  if (ver != NULL) {
    snprintf(text, sizeof text,
             "#!/bin/sh\necho 'NVIDIA Nsight Systems version %s'\n", ver);
    (void)rt_write(path, text, 1);
  }
}

/* Sets p up over an empty tool folder and a root holding Nsight Compute
 * 2024.1.1's and 2025.3.1's copies of nsys; 1 (said on stderr) when PATH
 * already has an nsys, which the probe takes first, so the tree is not what a
 * test would see; -1 on a setup error. */
static int nsys_setup(rp_probe *p, const char *name, char *tools, char *root,
                      size_t size) {
  rp_tool_info t;
  char dir[512];
  memset(p, 0, sizeof *p);
  if (rt_fresh_dir(name, dir, sizeof dir) != 0)
    return -1;
  snprintf(tools, size, "%s/tools", dir);
  snprintf(root, size, "%s/opt-nvidia", dir);
  if (plat_mkdir_p(tools) != CM_OK || plat_mkdir_p(root) != CM_OK)
    return -1;
  p->tool_dirs = tools;
  p->no_nvidia_smi = 1;
  rp_tool_probe(p, "nsys", &t);
  if (t.found) {
    fprintf(stderr, "skipped: an nsys on PATH is found first\n");
    return 1;
  }
  nsys_tree(root, "nsight-compute/2024.1.1/host/target-linux-x64/nsys",
            "2024.1.1.0");
  nsys_tree(root, "nsight-compute/2025.3.1/host/target-linux-x64/nsys",
            "2025.3.1.0");
  return 0;
}

/* One probe over the setup's tree plus the folder rel (its nsys printing
 * version ver, none when ver is NULL): found at want, whose version, where
 * the fake script can run (POSIX), is want_ver. */
static int nsys_probe_case(const char *name, const char *rel, const char *ver,
                           const char *want, const char *want_ver) {
  char tools[640], root[640];
  rp_probe p;
  rp_tool_info t;
  int r = nsys_setup(&p, name, tools, root, sizeof root);
  ASSERT_TRUE(r >= 0);
  if (r == 1)
    return TEST_SKIP;
  nsys_tree(root, rel, ver);
  p.nsight_root = root;
  rp_nsys_probe(&p, &t);
  ASSERT_EQ(t.found, 1);
  ASSERT_CONTAINS(t.path, want);
  if (plat_os_detect() != PLAT_OS_WINDOWS) /* a shell script: POSIX only */
    ASSERT_STR_EQ(t.version, want_ver);
  return 0;
}

/* The copy Nsight Compute ships, newest version that has one (2025.3.1,
 * not 2024.1.1; a newer version folder without the copy does not count); the
 * manifest and the stage get the same path and version (they both ask
 * rp_nsys_probe). */
TEST_IMPL(nsys_probe_compute_copy) {
  return nsys_probe_case(
      "nsys-compute", "nsight-compute/2025.10.0/host/target-linux-x64/nsys",
      NULL, "/nsight-compute/2025.3.1/host/target-linux-x64/nsys",
      "2025.3.1.0");
}

/* Nsight Systems' own install comes before the copy in Nsight Compute. */
TEST_IMPL(nsys_probe_own_install) {
  return nsys_probe_case("nsys-own", "nsight-systems/2024.5.1/bin/nsys",
                         "2024.5.1.113", "/nsight-systems/2024.5.1/bin/nsys",
                         "2024.5.1.113");
}

/* ncu and compute-sanitizer where NVIDIA installs them outside the CUDA
 * bin folder: Nsight Compute's own install (Windows: "Nsight Compute
 * <version>/target/windows-desktop-win7-x64/ncu.exe", the newest version,
 * whose top holds only ncu.bat; Linux: nsight-compute/<version>/ncu) and
 * $CUDA_PATH/compute-sanitizer (Windows: bin holds compute-sanitizer.bat).
 * Before, both were "not found" on Windows and the sanitize and profile
 * stages were always skipped there. */
TEST_IMPL(tool_probe_nvidia_installs) {
  char dir[512], tools[640], root[640], p1[900], cuda[640];
  rp_probe p;
  rp_tool_info t;
  const char *sfx = plat_exe_suffix();
  ASSERT_EQ(rt_fresh_dir("ncu-installs", dir, sizeof dir), 0);
  snprintf(tools, sizeof tools, "%s/tools", dir);
  snprintf(root, sizeof root, "%s/nvidia", dir);
  ASSERT_OK(plat_mkdir_p(tools));
  memset(&p, 0, sizeof p);
  p.tool_dirs = tools;
  p.no_nvidia_smi = 1;
  rp_tool_probe(&p, "ncu", &t);
  if (t.found) {
    fprintf(stderr, "skipped: an ncu on PATH is found first\n");
    return TEST_SKIP;
  }
  /* Windows layout: 2024.1.1 and 2025.3.1 (newest), a newer one without
   * the executable, and Linux's beside them */
  snprintf(p1, sizeof p1,
           "%s/Nsight Compute 2024.1.1/target/windows-desktop-win7-x64/ncu%s",
           root, sfx);
  nsys_tree(dir, p1 + strlen(dir) + 1, NULL);
  ASSERT_EQ(rt_write(p1, "", 1), 0);
  snprintf(p1, sizeof p1,
           "%s/Nsight Compute 2025.3.1/target/windows-desktop-win7-x64/ncu%s",
           root, sfx);
  nsys_tree(dir, p1 + strlen(dir) + 1, NULL);
  ASSERT_EQ(rt_write(p1, "", 1), 0);
  snprintf(p1, sizeof p1, "%s/Nsight Compute 2025.10.0/ncu.bat", root);
  nsys_tree(dir, p1 + strlen(dir) + 1, NULL);
  ASSERT_EQ(rt_write(p1, "", 1), 0);
  p.nsight_root = root;
  rp_tool_probe(&p, "ncu", &t);
  ASSERT_EQ(t.found, 1);
  ASSERT_CONTAINS(t.path, "/Nsight Compute 2025.3.1/target/"
                          "windows-desktop-win7-x64/ncu");
  /* Linux layout alone */
  snprintf(root, sizeof root, "%s/opt-nvidia", dir);
  snprintf(p1, sizeof p1, "%s/nsight-compute/2025.3.1/ncu%s", root, sfx);
  nsys_tree(dir, p1 + strlen(dir) + 1, NULL);
  ASSERT_EQ(rt_write(p1, "", 1), 0);
  p.nsight_root = root;
  rp_tool_probe(&p, "ncu", &t);
  ASSERT_EQ(t.found, 1);
  ASSERT_CONTAINS(t.path, "/nsight-compute/2025.3.1/ncu");
  /* $CUDA_PATH/compute-sanitizer, with the default folders */
  snprintf(cuda, sizeof cuda, "%s/cuda", dir);
  snprintf(p1, sizeof p1, "%s/compute-sanitizer/compute-sanitizer%s", cuda,
           sfx);
  nsys_tree(dir, p1 + strlen(dir) + 1, NULL);
  ASSERT_EQ(rt_write(p1, "", 1), 0);
  ASSERT_EQ(uv_os_setenv("CUDA_PATH", cuda), 0);
  memset(&p, 0, sizeof p);
  p.no_nvidia_smi = 1;
  rp_tool_probe(&p, "compute-sanitizer", &t);
  if (t.found && strstr(t.path, cuda) == NULL) {
    fprintf(stderr, "skipped: a compute-sanitizer on PATH is found first\n");
    return TEST_SKIP;
  }
  ASSERT_EQ(t.found, 1);
  ASSERT_TRUE(strstr(t.path, cuda) != NULL); /* Windows joins with '\\' */
  ASSERT_CONTAINS(t.path + strlen(cuda), "compute-sanitizer");
  return 0;
}

/* --lock-clocks: the spec cuda_portfolio takes, and the time stage's check
 * (root needed; refused without, with the command that works). */
TEST_IMPL(lock_clocks_check) {
  unsigned sm = 9, mem = 9;
  rp_checks cs;
  char reason[512];
  ASSERT_OK(rp_lock_spec_parse("1755", &sm, &mem));
  ASSERT_TRUE(sm == 1755 && mem == 0);
  ASSERT_OK(rp_lock_spec_parse("1755:2619", &sm, &mem));
  ASSERT_TRUE(sm == 1755 && mem == 2619);
  ASSERT_EQ(rp_lock_spec_parse("", &sm, &mem), CM_EINVAL);
  ASSERT_EQ(rp_lock_spec_parse("fast", &sm, &mem), CM_EINVAL);
  ASSERT_EQ(rp_lock_spec_parse("1755:", &sm, &mem), CM_EINVAL);
  ASSERT_EQ(rp_lock_spec_parse(":2619", &sm, &mem), CM_EINVAL);
  ASSERT_EQ(rp_lock_spec_parse("0", &sm, &mem), CM_EINVAL);
  ASSERT_EQ(rp_lock_spec_parse("1755:2619:1", &sm, &mem), CM_EINVAL);
  memset(&cs, 0, sizeof cs);
  rp_lock_clocks_check("1755", 0, &cs);
  ASSERT_EQ(cs.n, 1);
  ASSERT_EQ(cs.items[0].state, RP_CHECK_FAIL);
  ASSERT_EQ(rp_checks_verdict(&cs, reason, sizeof reason), RP_EFFECT_REFUSE);
  ASSERT_CONTAINS(reason, "needs root");
  ASSERT_CONTAINS(reason, "sudo ./repro time --lock-clocks 1755");
  memset(&cs, 0, sizeof cs);
  rp_lock_clocks_check("1755", 1, &cs);
  ASSERT_EQ(cs.items[0].state, RP_CHECK_PASS);
  ASSERT_EQ(rp_checks_verdict(&cs, reason, sizeof reason), RP_EFFECT_NONE);
  /* What the time stage's preflight and doctor call: the option and the
   * probe's answer on privilege. */
  {
    rp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.probe.use_privileged = 1;
    memset(&cs, 0, sizeof cs);
    rp_time_lock_check(&ctx, &cs); /* no --lock-clocks: no check */
    ASSERT_EQ(cs.n, 0);
    cm_strlcpy(ctx.opt.lock_clocks, "1755:2619", sizeof ctx.opt.lock_clocks);
    rp_time_lock_check(&ctx, &cs);
    ASSERT_EQ(cs.n, 1);
    ASSERT_EQ(cs.items[0].effect, RP_EFFECT_REFUSE);
    ASSERT_CONTAINS(cs.items[0].detail, "--lock-clocks 1755:2619 needs root");
    ctx.probe.privileged = 1;
    memset(&cs, 0, sizeof cs);
    rp_time_lock_check(&ctx, &cs);
    ASSERT_EQ(cs.items[0].state, RP_CHECK_PASS);
  }
  return 0;
}

/* Preflight against fabricated inputs: markers, device folder, counters,
 * tool missing, and the verdicts they lead to. */
TEST_IMPL(preflight_fabricated) {
  char dir[512], gpus[600], nogpus[600], params[600], err[256], reason[512];
  char *env_marked[] = {"HOME=/x", "NV_SANITIZER_INJECTION=1", NULL};
  char *env_clean[] = {"HOME=/x", NULL};
  rp_contract c;
  rp_checks cs;
  rp_probe p;
  rp_check_state s;
  const char *d;
  int windows = plat_os_detect() == PLAT_OS_WINDOWS;
  ASSERT_EQ(rt_fresh_dir("preflight", dir, sizeof dir), 0);
  snprintf(gpus, sizeof gpus, "%s/gpus", dir);
  snprintf(nogpus, sizeof nogpus, "%s/nogpus", dir);
  snprintf(params, sizeof params, "%s/params", dir);
  ASSERT_OK(plat_mkdir_p(nogpus));
  {
    /* The driver names entries by PCI address (0000:1b:00.0); only the
     * count matters, and ':' is not allowed in a Windows file name. */
    char g0[700];
    snprintf(g0, sizeof g0, "%s/0000-1b-00.0", gpus);
    ASSERT_OK(plat_mkdir_p(g0));
  }
  ASSERT_EQ(rt_write(params, "RmProfilingAdminOnly: 1\n", 0), 0);
  ASSERT_OK(rp_contract_parse("forbid NV_SANITIZER_*\n"
                              "set CUDA_PORTFOLIO_ALLOC=exact\n"
                              "tool no-such-tool-xyz >= 1.0\n"
                              "device required\ncounters required\n"
                              "timeout 1\ninstrumented no\n",
                              "pf", &c, err, sizeof err));
  memset(&p, 0, sizeof p);
  p.env = env_marked;
  p.gpus_dir = gpus;
  p.params_path = params;
  p.use_privileged = 1;
  p.privileged = 0;
  p.no_nvidia_smi = 1;
  p.tool_dirs = dir; /* no tools there; PATH has none of that name */
  memset(&cs, 0, sizeof cs);
  rp_preflight(&c, &p, &cs);
  d = find_check(&cs, "forbid NV_SANITIZER_*", &s);
  ASSERT_TRUE(d != NULL);
  ASSERT_EQ(s, RP_CHECK_FAIL);
  ASSERT_CONTAINS(d, "NV_SANITIZER_INJECTION");
  d = find_check(&cs, "device", &s);
  ASSERT_TRUE(d != NULL);
  if (windows) {
    /* Windows has no driver folder to list (plat_nvidia_gpu_count says
     * CM_ENOTSUP) and nvidia-smi is off here: no device. */
    ASSERT_EQ(s, RP_CHECK_FAIL);
    ASSERT_CONTAINS(d, "no CUDA device");
  } else {
    ASSERT_EQ(s, RP_CHECK_PASS);
    ASSERT_CONTAINS(d, "1 GPU(s)");
  }
  d = find_check(&cs, "counters", &s);
  ASSERT_TRUE(d != NULL);
  ASSERT_EQ(s, RP_CHECK_FAIL);
  d = find_check(&cs, "tool no-such-tool-xyz", &s);
  ASSERT_TRUE(d != NULL);
  ASSERT_EQ(s, RP_CHECK_FAIL);
  d = find_check(&cs, "set CUDA_PORTFOLIO_ALLOC", &s);
  ASSERT_TRUE(d != NULL);
  ASSERT_CONTAINS(d, "exact");
  /* The marker is the worst: refuse, naming it. */
  ASSERT_EQ(rp_checks_verdict(&cs, reason, sizeof reason), RP_EFFECT_REFUSE);
  ASSERT_CONTAINS(reason, "NV_SANITIZER_INJECTION");

  /* Clean environment, no device: skipped for the missing tool or device. */
  p.env = env_clean;
  p.gpus_dir = nogpus;
  memset(&cs, 0, sizeof cs);
  rp_preflight(&c, &p, &cs);
  d = find_check(&cs, "device", &s);
  ASSERT_EQ(s, RP_CHECK_FAIL);
  ASSERT_CONTAINS(d, "no CUDA device");
  ASSERT_EQ(rp_checks_verdict(&cs, reason, sizeof reason), RP_EFFECT_SKIP);

  if (windows) {
    printf("note: the counters-only case needs a fabricated device folder, "
           "which only Linux reads; not repeated on Windows\n");
    return 0;
  }
  /* Only counters missing: limited. */
  ASSERT_OK(rp_contract_parse("device required\ncounters required\n"
                              "timeout 1\ninstrumented yes\n",
                              "pf2", &c, err, sizeof err));
  p.gpus_dir = gpus;
  memset(&cs, 0, sizeof cs);
  rp_preflight(&c, &p, &cs);
  ASSERT_EQ(rp_checks_verdict(&cs, reason, sizeof reason), RP_EFFECT_LIMIT);
  ASSERT_CONTAINS(reason, "counters");
  p.privileged = 1;
  memset(&cs, 0, sizeof cs);
  rp_preflight(&c, &p, &cs);
  ASSERT_EQ(rp_checks_verdict(&cs, reason, sizeof reason), RP_EFFECT_NONE);
  return 0;
}

TEST_IMPL(cli_parse_select) {
  char *a1[] = {"repro", "--only",   "build,time",   "--gpu", "1",
                "all",   "--strict", "--out=/tmp/o", NULL};
  char *a2[] = {"repro", "frobnicate", NULL};
  char *a3[] = {"repro", "verify", NULL};
  char *a4[] = {"repro", "--gpu", "x", "test", NULL};
  char *a5[] = {"repro", "all", "--skip", "nosuch", NULL};
  char *a6[] = {"repro", "profile", "--profile-set", "bench", NULL};
  char *a7[] = {"repro", "profile", "--profile-set=full", NULL};
  char *a8[] = {"repro", "--select", "--op softmax --format gbench", "time",
                NULL};
  char *a9[] = {"repro", "--select", " --dtype bf16  --gpu 1", "time", NULL};
  char *a10[] = {"repro", "--select", "--op softmax --flush read", "time",
                 NULL};
  rp_cli cli;
  const rp_stage_desc *sel[16];
  char err[256];
  ASSERT_OK(rp_cli_parse(8, a1, &cli, err, sizeof err));
  ASSERT_STR_EQ(cli.command, "all");
  ASSERT_EQ(cli.opt.gpu, 1);
  ASSERT_EQ(cli.opt.strict, 1);
  ASSERT_STR_EQ(cli.out, "/tmp/o");
  ASSERT_EQ(cli.opt.profile_bench, 0); /* the default: smoke */
  ASSERT_OK(
      rp_cli_resolve(&cli, "/r/build/linux/bin/repro", NULL, err, sizeof err));
  ASSERT_STR_EQ(cli.opt.root, "/r");
  ASSERT_STR_EQ(cli.opt.out_parent, "/tmp/o");
  ASSERT_STR_EQ(cli.opt.build_dir, "/r/build/linux");
  ASSERT_OK(rp_cli_select(&cli, sel, 16, err, sizeof err));
  ASSERT_STR_EQ(sel[0]->name, "build");
  ASSERT_STR_EQ(sel[1]->name, "time");
  ASSERT_TRUE(sel[2] == NULL);
  ASSERT_EQ(rp_cli_parse(2, a2, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "unknown command");
  /* a flag given a value is named as such (it was "unknown option") */
  {
    char *a11[] = {"repro", "--strict=1", "test", NULL};
    ASSERT_EQ(rp_cli_parse(3, a11, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--strict takes no value");
  }
  {
    char *a12[] = {"repro", "--help=1", "test", NULL};
    ASSERT_EQ(rp_cli_parse(3, a12, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--help takes no value");
  }
  /* --select: a word that changes cuda_portfolio's mode or output, or
   * that repro has its own option for, is refused by name */
  ASSERT_EQ(rp_cli_parse(4, a8, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "--format is not a selection word");
  ASSERT_EQ(rp_cli_parse(4, a9, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "give --gpu to repro itself");
  {
    /* the verification control is a mode: the time stage would run it
     * instead of the benchmark set */
    char *vc[] = {"repro", "--select", "--verify-control", "time", NULL};
    ASSERT_EQ(rp_cli_parse(4, vc, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--verify-control is not a selection word");
  }
  {
    char *many[] = {"repro", "--select", "a b c d e f g h i j k l m", "time",
                    NULL};
    ASSERT_EQ(rp_cli_parse(4, many, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "more than 12 words");
  }
  ASSERT_OK(rp_cli_parse(4, a10, &cli, err, sizeof err));
  ASSERT_STR_EQ(cli.opt.select, "--op softmax --flush read");
  {
    /* relative --root, --out and --build-dir: made absolute against the
     * working folder (the stages' children run in the root) */
    char *rel[] = {"repro",       "--root", "./r2", "--out", "o/x",
                   "--build-dir", "b",      "test", NULL};
    char cwd[1024], want[1100];
    size_t n = sizeof cwd;
    ASSERT_EQ(uv_cwd(cwd, &n), 0);
    ASSERT_OK(rp_cli_parse(8, rel, &cli, err, sizeof err));
    ASSERT_OK(rp_cli_resolve(&cli, NULL, NULL, err, sizeof err));
    ASSERT_OK(cm_snprintf(want, sizeof want, "%s/r2", cwd));
    ASSERT_STR_EQ(cli.opt.root, want);
    ASSERT_OK(cm_snprintf(want, sizeof want, "%s/o/x", cwd));
    ASSERT_STR_EQ(cli.opt.out_parent, want);
    ASSERT_OK(cm_snprintf(want, sizeof want, "%s/b", cwd));
    ASSERT_STR_EQ(cli.opt.build_dir, want);
  }
  ASSERT_EQ(rp_cli_parse(2, a3, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_EQ(rp_cli_parse(4, a4, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_OK(rp_cli_parse(4, a5, &cli, err, sizeof err));
  ASSERT_EQ(rp_cli_select(&cli, sel, 16, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "nosuch");
  ASSERT_OK(rp_cli_parse(4, a6, &cli, err, sizeof err));
  ASSERT_EQ(cli.opt.profile_bench, 1);
  ASSERT_EQ(rp_cli_parse(3, a7, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "smoke");
  ASSERT_CONTAINS(err, "full");
  /* an unknown option is named as unknown, whether last or followed by
   * the command it would otherwise have taken as its value */
  {
    char *b1[] = {"repro", "doctor", "--bogus", NULL};
    char *b2[] = {"repro", "--bogus", "all", NULL};
    char *b3[] = {"repro", "all", "--bogus=1", NULL};
    ASSERT_EQ(rp_cli_parse(3, b1, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "unknown option --bogus");
    ASSERT_EQ(rp_cli_parse(3, b2, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "unknown option --bogus");
    ASSERT_EQ(rp_cli_parse(3, b3, &cli, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "unknown option --bogus");
  }
  return 0;
}

/* A contract path that is a folder parsed as an empty contract ("missing
 * 'device ...'": fopen opens a folder on POSIX and fread's error went
 * unchecked); one that cannot be opened said only "cannot open contract".
 * Each now says why, and the fix. */
TEST_IMPL(contract_unreadable) {
  char dir[512], path[700], err[512];
  rp_contract c;
  ASSERT_EQ(rt_fresh_dir("unreadable", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/time.contract", dir);
  ASSERT_OK(plat_mkdir_p(path));
  ASSERT_EQ(rp_contract_load(path, &c, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "is a folder");
  ASSERT_TRUE(strstr(err, "missing") == NULL);
  snprintf(path, sizeof path, "%s/none.contract", dir);
  ASSERT_EQ(rp_contract_load(path, &c, err, sizeof err), CM_ENOENT);
  ASSERT_CONTAINS(err, "no such file");
#ifndef _WIN32
  /* a file where a folder should be: the OS's reason is named */
  snprintf(path, sizeof path, "%s/plain", dir);
  ASSERT_EQ(rt_write(path, "x", 0), 0);
  snprintf(path, sizeof path, "%s/plain/test.contract", dir);
  ASSERT_EQ(rp_contract_load(path, &c, err, sizeof err), CM_EIO);
  ASSERT_CONTAINS(err, strerror(ENOTDIR));
#endif
#ifdef __linux__
  /* opens, and the first read fails (EIO): an error, not an empty
   * contract */
  ASSERT_EQ(rp_contract_load("/proc/self/mem", &c, err, sizeof err), CM_EIO);
  ASSERT_CONTAINS(err, "cannot read contract");
#endif
  return 0;
}

/* --select "--alloc exact" got around time.contract's unset
 * CUDA_PORTFOLIO_ALLOC: the time stage ran with the exact allocator and
 * filed its results as clean. Refused, in both spellings. */
TEST_IMPL(cli_select_alloc) {
  char *a1[] = {"repro", "--select", "--alloc exact", "time", NULL};
  char *a2[] = {"repro", "--select", "--op softmax --alloc=exact", "time",
                NULL};
  char *a3[] = {"repro", "--select", "--op softmax --format=json", "time",
                NULL};
  rp_cli cli;
  char err[512];
  ASSERT_EQ(rp_cli_parse(4, a1, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "--alloc is not a selection word");
  ASSERT_CONTAINS(err, "leave it out of --select");
  ASSERT_EQ(rp_cli_parse(4, a2, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "--alloc is not a selection word");
  /* the other refused words, given as --word=value, too */
  ASSERT_EQ(rp_cli_parse(4, a3, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "is not a selection word");
  return 0;
}

/* Messages that named the problem but not the fix: an unknown stage now
 * lists the stages, a short unknown option points at --help as a long
 * one does. */
TEST_IMPL(cli_messages_name_fix) {
  char *a1[] = {"repro", "--only", "tset", "test", NULL};
  char *a2[] = {"repro", "-x", "build", NULL};
  rp_cli cli;
  const rp_stage_desc *sel[16];
  char err[512];
  ASSERT_OK(rp_cli_parse(4, a1, &cli, err, sizeof err));
  ASSERT_EQ(rp_cli_select(&cli, sel, 16, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "unknown stage 'tset'");
  ASSERT_CONTAINS(
      err,
      "the stages: build, test, sanitize, inspect, profile, time, selftest");
  ASSERT_EQ(rp_cli_parse(3, a2, &cli, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "unknown option -x (see --help)");
  return 0;
}

TEST_IMPL(run_id_format) {
  char id[128];
  /* 2026-11-29 12:15:30 UTC */
  ASSERT_OK(
      rp_make_run_id(1795954530, "gpu-box.example.org", 0xbeef, id, sizeof id));
  ASSERT_STR_EQ(id, "20261129T121530Z-gpu-box-beef");
  ASSERT_OK(rp_make_run_id(0, "we ird/", 1, id, sizeof id));
  ASSERT_STR_EQ(id, "19700101T000000Z-we-ird--0001");
  return 0;
}

/* A finished manifest for run id in folder run, with a file step.txt
 * holding text beside it. 0 on success. */
static int run_dir_fill(const char *run, const char *id, const char *text) {
  char p[1300];
  json_t *m = json_object();
  int r;
  snprintf(p, sizeof p, "%s/step.txt", run);
  if (rt_write(p, text, 0) != 0)
    return -1;
  json_object_set_new(m, "run_id", json_string(id));
  json_object_set_new(m, "status", json_string("complete"));
  r = rp_manifest_finish(run, m);
  json_decref(m);
  return r == CM_OK ? 0 : -1;
}

/* The run folder holds manifest.json and step.txt as run_dir_fill left
 * them: verify passes, names id, and step.txt still says text. */
static int run_dir_intact(const char *run, const char *id, const char *text) {
  rp_verify_result vr;
  char p[1300], *got;
  memset(&vr, 0, sizeof vr);
  ASSERT_OK(rp_verify(run, &vr));
  ASSERT_STR_EQ(vr.problem, "");
  ASSERT_EQ(vr.ok, 1);
  ASSERT_STR_EQ(vr.run_id, id);
  snprintf(p, sizeof p, "%s/step.txt", run);
  got = rt_read(p, NULL);
  ASSERT_TRUE(got != NULL);
  ASSERT_STR_EQ(got, text);
  free(got);
  return 0;
}

/* Two runs that draw the same run id (same second, same host, same random
 * part: 1 in 65536) get a folder each. The second finds the first's folder
 * there, draws again and takes a new one, and both manifests stay whole.
 * Before, the folder was made with mkdir -p, which takes an existing folder
 * as its own: the second run wrote its logs and manifest over the first's.
 * When every draw is taken the answer is CM_EEXIST and nothing is touched;
 * an --out that is a file is another error, not a collision. */
TEST_IMPL(run_dir_exclusive) {
  static const unsigned draw1[] = {0xbeef};
  static const unsigned draw2[] = {0xbeef, 0xbeef, 0x0042};
  static const unsigned taken[] = {0x0042, 0xbeef};
  char dir[512], parent[1300], id1[128], id2[128], id3[128];
  char run1[1200], run2[1200], run3[1200];
  int r;
  ASSERT_EQ(rt_fresh_dir("run-dirs", dir, sizeof dir), 0);
  snprintf(parent, sizeof parent, "%s/logs", dir); /* made by the first */
  ASSERT_OK(rp_make_run_dir(parent, 1795954530, "gpu-box.example.org", draw1, 1,
                            id1, sizeof id1, run1, sizeof run1));
  ASSERT_STR_EQ(id1, "20261129T121530Z-gpu-box-beef");
  ASSERT_TRUE(plat_path_is_dir(run1));
  ASSERT_EQ(run_dir_fill(run1, id1, "first run\n"), 0);
  /* the second run: same second, same host, same first draw */
  ASSERT_OK(rp_make_run_dir(parent, 1795954530, "gpu-box", draw2, 3, id2,
                            sizeof id2, run2, sizeof run2));
  ASSERT_STR_EQ(id2, "20261129T121530Z-gpu-box-0042");
  ASSERT_TRUE(strcmp(run1, run2) != 0);
  ASSERT_TRUE(plat_path_is_dir(run2));
  ASSERT_EQ(run_dir_fill(run2, id2, "second run\n"), 0);
  ASSERT_EQ(run_dir_intact(run1, id1, "first run\n"), 0);
  ASSERT_EQ(run_dir_intact(run2, id2, "second run\n"), 0);
  /* every draw taken: no folder is shared, none is touched */
  ASSERT_EQ(rp_make_run_dir(parent, 1795954530, "gpu-box", taken, 2, id3,
                            sizeof id3, run3, sizeof run3),
            CM_EEXIST);
  ASSERT_EQ(run_dir_intact(run1, id1, "first run\n"), 0);
  ASSERT_EQ(run_dir_intact(run2, id2, "second run\n"), 0);
  /* a file where the runs' folder should be is no collision */
  snprintf(parent, sizeof parent, "%s/step.txt", run1);
  r = rp_make_run_dir(parent, 1795954530, "gpu-box", draw1, 1, id3, sizeof id3,
                      run3, sizeof run3);
  ASSERT_NE(r, CM_OK);
  ASSERT_NE(r, CM_EEXIST);
  ASSERT_EQ(run_dir_intact(run1, id1, "first run\n"), 0);
  return 0;
}

/* Renders doctor's OS notes (or a whole doctor run) into a file and reads
 * it back. */
static char *doctor_text(const char *name, plat_os os, int whole) {
  char dir[512], p[700];
  FILE *f;
  if (rt_fresh_dir(name, dir, sizeof dir) != 0)
    return NULL;
  snprintf(p, sizeof p, "%s/doctor.txt", dir);
  f = fopen(p, "w");
  if (f == NULL)
    return NULL;
  if (whole) {
    rp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    cm_strlcpy(ctx.opt.root, CM_SOURCE_DIR, sizeof ctx.opt.root);
    snprintf(ctx.env_dir, sizeof ctx.env_dir, "%s/env", CM_SOURCE_DIR);
    snprintf(ctx.opt.build_dir, sizeof ctx.opt.build_dir, "%s/nobuild", dir);
    /* The system's device listing (gpus_dir NULL): on this machine that is
     * the /proc folder a Windows doctor must not mention. */
    ctx.probe.no_nvidia_smi = 1;
    ctx.probe.tool_dirs = dir;
    ctx.probe.use_privileged = 1;
    rp_doctor_for(&ctx, os, f);
  } else {
    rp_doctor_os_notes(os, f);
  }
  fclose(f);
  return rt_read(p, NULL);
}

/* WSL: counters belong to the Windows driver, sudo does not help, the
 * sanitizer may be missing, and repro.ps1 runs it on the Windows side. */
TEST_IMPL(doctor_wsl_notes) {
  char *t = doctor_text("doctor-wsl", PLAT_OS_WSL, 0);
  ASSERT_TRUE(t != NULL);
  ASSERT_CONTAINS(t, "set by the Windows NVIDIA driver");
  ASSERT_CONTAINS(t, "sudo inside WSL does not help");
  ASSERT_CONTAINS(t, "compute-sanitizer may be missing");
  ASSERT_CONTAINS(t, ".\\repro.ps1 sanitize");
  free(t);
  t = doctor_text("doctor-linux", PLAT_OS_LINUX, 0);
  ASSERT_TRUE(t != NULL);
  ASSERT_STR_EQ(t, ""); /* nothing to add on plain Linux */
  free(t);
  t = doctor_text("doctor-win", PLAT_OS_WINDOWS, 0);
  ASSERT_TRUE(t != NULL);
  ASSERT_CONTAINS(t, "RmProfilingAdminOnly");
  ASSERT_TRUE(strstr(t, "sudo") == NULL);
  free(t);
  return 0;
}

/* Windows' device check never sends the user to Linux's /proc. */
TEST_IMPL(doctor_device_text) {
  const char *lin = "no CUDA device: /proc/driver/nvidia/gpus empty or absent";
  const char *t = rp_doctor_check_text(PLAT_OS_WINDOWS, "device", lin);
  ASSERT_TRUE(strstr(t, "/proc") == NULL);
  ASSERT_CONTAINS(t, "no CUDA device");
  ASSERT_CONTAINS(t, "nvidia-smi -L");
  ASSERT_STR_EQ(rp_doctor_check_text(PLAT_OS_LINUX, "device", lin), lin);
  ASSERT_STR_EQ(rp_doctor_check_text(PLAT_OS_WSL, "device", lin), lin);
  ASSERT_STR_EQ(rp_doctor_check_text(PLAT_OS_WINDOWS, "device", "1 GPU(s)"),
                "1 GPU(s)");
  ASSERT_STR_EQ(rp_doctor_check_text(PLAT_OS_WINDOWS, "counters", lin), lin);
  return 0;
}

/* doctor prints the profile stage's own nsys check, as the stage records
 * it: the nsys it would run, or the warning that limits it. */
TEST_IMPL(doctor_profile_nsys) {
  static const rp_stage_desc *const only[] = {&rp_stage_profile, NULL};
  char tools[640], root[640], p[700], want[900];
  rp_ctx ctx;
  FILE *f;
  char *t;
  int r = nsys_setup(&ctx.probe, "doctor-nsys", tools, root, sizeof root);
  ASSERT_TRUE(r >= 0);
  if (r == 1)
    return TEST_SKIP;
  {
    rp_probe keep = ctx.probe;
    memset(&ctx, 0, sizeof ctx);
    ctx.probe = keep;
  }
  cm_strlcpy(ctx.opt.root, CM_SOURCE_DIR, sizeof ctx.opt.root);
  snprintf(ctx.env_dir, sizeof ctx.env_dir, "%s/env", CM_SOURCE_DIR);
  snprintf(ctx.opt.build_dir, sizeof ctx.opt.build_dir, "%s/nobuild", root);
  ctx.probe.use_privileged = 1;
  ctx.probe.nsight_root = root;
  snprintf(p, sizeof p, "%s/doctor.txt", root);
  f = fopen(p, "w");
  ASSERT_TRUE(f != NULL);
  rp_doctor_stages(&ctx, PLAT_OS_LINUX, only, f);
  fclose(f);
  t = rt_read(p, NULL);
  ASSERT_TRUE(t != NULL);
  ASSERT_CONTAINS(t, "[profile]");
  snprintf(want, sizeof want,
           "  PASS  tool nsys: %s/nsight-compute/2025.3.1/host/"
           "target-linux-x64/nsys, version ",
           root);
  ASSERT_CONTAINS(t, want);
  if (plat_os_detect() != PLAT_OS_WINDOWS) /* the script runs on POSIX */
    ASSERT_CONTAINS(t, "target-linux-x64/nsys, version 2025.3.1.0\n");
  free(t);
  return 0;
}

/* A whole doctor run with the OS injected: the notes appear in place, the
 * OS is named, and on Windows no line sends the user to /proc. */
TEST_IMPL(doctor_injected_os) {
  char *t = doctor_text("doctor-run-wsl", PLAT_OS_WSL, 1);
  const char *dev;
  ASSERT_TRUE(t != NULL);
  ASSERT_CONTAINS(t, ", os wsl (");
  ASSERT_CONTAINS(t, "NOTE  WSL: the GPU belongs to the Windows host");
  ASSERT_CONTAINS(t, "[sanitize]");
  ASSERT_CONTAINS(t, "doctor changed nothing");
  free(t);
  t = doctor_text("doctor-run-win", PLAT_OS_WINDOWS, 1);
  ASSERT_TRUE(t != NULL);
  ASSERT_CONTAINS(t, ", os windows (");
  ASSERT_CONTAINS(t, "effective user: not elevated");
  /* Every device line: a GPU found (only where this test runs on a Linux
   * machine with one) or Windows' own wording, never a /proc folder. */
  for (dev = strstr(t, "device: "); dev != NULL;
       dev = strstr(dev + 1, "device: ")) {
    const char *eol = strchr(dev, '\n');
    const char *proc = strstr(dev, "/proc/");
    if (proc != NULL && (eol == NULL || proc < eol))
      ASSERT_TRUE(strncmp(dev + 8, "no CUDA device", 14) != 0);
    if (strncmp(dev + 8, "no CUDA device", 14) == 0)
      ASSERT_CONTAINS(dev, "nvidia-smi -L is unavailable");
  }
  ASSERT_CONTAINS(t, "device: ");
  free(t);
  return 0;
}

/* A compile command split as its generator quoted it: POSIX shell words
 * (a backslash escapes) and Windows command-line words (backslashes
 * literal but before a double quote), so a native Windows path reaches
 * inspect whole (it lost every backslash when split the POSIX way). */
TEST_IMPL(inspect_split_rules) {
  char *w[8];
  char posix[] = "/usr/cuda/bin/nvcc -DA=\"x y\" a\\ b -c /k/s.cu";
  char win[] = "C:\\PROGRA~1\\CUDA\\bin\\nvcc.exe -I\"C:\\a b\\\\\" "
               "x\\\"y 3\\\\\\\\\"q\" -c C:\\k\\s.cu";
  char narrow[] = "a b c";
  ASSERT_EQ(rp_inspect_split(posix, w, 8, 0), 5);
  ASSERT_STR_EQ(w[0], "/usr/cuda/bin/nvcc");
  ASSERT_STR_EQ(w[1], "-DA=x y");
  ASSERT_STR_EQ(w[2], "a b");
  ASSERT_STR_EQ(w[4], "/k/s.cu");
  ASSERT_EQ(rp_inspect_split(win, w, 8, 1), 6);
  ASSERT_STR_EQ(w[0], "C:\\PROGRA~1\\CUDA\\bin\\nvcc.exe");
  ASSERT_STR_EQ(w[1], "-IC:\\a b\\");
  ASSERT_STR_EQ(w[2], "x\"y");
  ASSERT_STR_EQ(w[3], "3\\\\q");
  ASSERT_STR_EQ(w[5], "C:\\k\\s.cu");
  ASSERT_EQ(rp_inspect_split(narrow, w, 2, 0), -1);
  return 0;
}
