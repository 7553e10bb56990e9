/* The sanitize stage's stall rule, with a fake compute-sanitizer
 * (rt_fake_sanitizer) that replays real captures from the H200 machine and
 * hangs where told to: a step that times out is retried once with the
 * alternative launch, both attempts are in the manifest, and a second
 * timeout fails the stage. Runs the stage's steps hook in-process, on POSIX
 * and under Wine alike. */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"
#include "rp_stage.h"
#include "rp_test_util.h"

#include <jansson.h>
#include <stdlib.h>
#include <uv.h>

typedef struct {
  char dir[512];
  char tools[700];
  rp_ctx ctx;
  rp_stage_run st;
} san_fixture;

/* A run folder, a tool folder holding compute-sanitizer, a one-second
 * step timeout, and an empty stage record. */
static int san_setup(const char *name, san_fixture *f) {
  char p[900], err[256];
  size_t n = strlen(RP_FAKE_SAN_EXE);
  const char *suffix =
      n > 4 && strcmp(&RP_FAKE_SAN_EXE[n - 4], ".exe") == 0 ? ".exe" : "";
  memset(f, 0, sizeof *f);
  if (rt_fresh_dir(name, f->dir, sizeof f->dir) != 0)
    return -1;
  snprintf(f->tools, sizeof f->tools, "%s/tools", f->dir);
  if (plat_mkdir_p(f->tools) != CM_OK)
    return -1;
  snprintf(p, sizeof p, "%s/compute-sanitizer%s", f->tools, suffix);
  if (rt_copy_file(RP_FAKE_SAN_EXE, p) != 0)
    return -1;
  cm_strlcpy(f->ctx.opt.root, f->dir, sizeof f->ctx.opt.root);
  snprintf(f->ctx.opt.build_dir, sizeof f->ctx.opt.build_dir, "%s/build",
           f->dir);
  snprintf(f->ctx.run_dir, sizeof f->ctx.run_dir, "%s/run", f->dir);
  if (plat_mkdir_p(f->ctx.run_dir) != CM_OK)
    return -1;
  f->ctx.opt.gpu = -1;
  f->ctx.probe.tool_dirs = f->tools;
  f->ctx.probe.no_nvidia_smi = 1;
  if (rp_contract_parse("device none\ntimeout 1\ninstrumented yes\n", "san",
                        &f->st.contract, err, sizeof err) != CM_OK)
    return -1;
  f->st.desc = &rp_stage_sanitize;
  f->st.status = RP_ST_PASSED;
  f->st.exit_code = -1;
  f->st.record = json_object();
  f->st.steps = json_array();
  json_object_set(f->st.record, "steps", f->st.steps);
  snprintf(p, sizeof p, "%s/tests/fixtures/tools", CM_SOURCE_DIR);
  if (rt_setenv("FAKE_SAN_FIXTURES", p) != 0)
    return -1;
  return 0;
}

static void san_teardown(san_fixture *f) {
  json_decref(f->st.steps);
  json_decref(f->st.record);
}

static json_t *step_at(san_fixture *f, size_t i) {
  return json_array_get(f->st.steps, i);
}

static const char *jstr(json_t *o, const char *key) {
  const char *v = json_string_value(json_object_get(o, key));
  return v != NULL ? v : "(null)";
}

static int argv_has(json_t *step, const char *word) {
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(step, "argv"), i, a) {
    if (strcmp(json_string_value(a), word) == 0)
      return 1;
  }
  return 0;
}

/* memcheck stalls under the default launch and runs under the alternative:
 * the stage passes, with both memcheck attempts recorded. */
TEST_IMPL(sanitize_retry_after_stall) {
  san_fixture f;
  json_t *san, *first, *retry, *one;
  ASSERT_EQ(san_setup("stall-once", &f), 0);
  ASSERT_EQ(rt_setenv("FAKE_SAN_HANG_TOOL", "memcheck"), 0);
  rp_stage_sanitize.steps(&f.ctx, &f.st);
  ASSERT_STR_EQ(f.st.reason, "");
  ASSERT_EQ(f.st.status, RP_ST_PASSED);
  /* memcheck, memcheck-retry, racecheck, initcheck, synccheck, and the
   * negative control (memcheck too, so it stalls and is retried as well) */
  ASSERT_EQ(json_array_size(f.st.steps), 7);
  first = step_at(&f, 0);
  retry = step_at(&f, 1);
  ASSERT_STR_EQ(jstr(first, "name"), "memcheck");
  ASSERT_TRUE(json_is_true(json_object_get(first, "timed_out")));
  ASSERT_TRUE(json_is_true(json_object_get(first, "retried_after_timeout")));
  ASSERT_EQ(argv_has(first, "--target-processes"), 0);
  ASSERT_STR_EQ(jstr(retry, "name"), "memcheck-retry");
  ASSERT_STR_EQ(jstr(retry, "retry_of"), "memcheck");
  ASSERT_TRUE(json_is_false(json_object_get(retry, "timed_out")));
  ASSERT_EQ(argv_has(retry, "--target-processes"), 1);
  ASSERT_EQ(argv_has(retry, "application-only"), 1);
  ASSERT_EQ(argv_has(retry, "--leak-check"), 1); /* same checks, new launch */
  ASSERT_STR_EQ(jstr(step_at(&f, 2), "name"), "racecheck");
  ASSERT_EQ(argv_has(step_at(&f, 2), "--target-processes"), 0);
  ASSERT_STR_EQ(jstr(step_at(&f, 5), "name"), "negative-control");
  ASSERT_STR_EQ(jstr(step_at(&f, 6), "name"), "negative-control-retry");
  san = json_object_get(f.st.record, "sanitizer");
  one = json_object_get(san, "memcheck");
  ASSERT_TRUE(json_is_true(json_object_get(one, "retried_after_timeout")));
  ASSERT_STR_EQ(jstr(one, "retry"), "memcheck-retry");
  one = json_object_get(san, "memcheck-retry");
  ASSERT_TRUE(json_is_true(json_object_get(one, "clean")));
  ASSERT_TRUE(json_is_true(json_object_get(one, "retried_after_timeout")));
  ASSERT_TRUE(json_is_true(json_object_get(
      json_object_get(san, "negative-control-retry"), "caught")));
  ASSERT_TRUE(json_object_get(json_object_get(san, "racecheck"),
                              "retried_after_timeout") == NULL);
  /* the first step's banner is the stage's, as test's and time's are (the
   * captures predate git=, so none is recorded) */
  one = json_object_get(f.st.record, "banner");
  ASSERT_STR_EQ(jstr(one, "allocator"), "exact");
  ASSERT_TRUE(json_object_get(one, "git") == NULL);
  san_teardown(&f);
  return 0;
}

/* A step that stalls under both launches is retried exactly once, then
 * fails the stage as a timeout. */
TEST_IMPL(sanitize_retry_once_only) {
  san_fixture f;
  json_t *one;
  ASSERT_EQ(san_setup("stall-always", &f), 0);
  ASSERT_EQ(rt_setenv("FAKE_SAN_HANG_ALWAYS", "1"), 0);
  rp_stage_sanitize.steps(&f.ctx, &f.st);
  ASSERT_EQ(f.st.status, RP_ST_FAILED);
  ASSERT_CONTAINS(f.st.reason, "memcheck-retry: timed out");
  ASSERT_STR_EQ(jstr(step_at(&f, 0), "name"), "memcheck");
  ASSERT_STR_EQ(jstr(step_at(&f, 1), "name"), "memcheck-retry");
  ASSERT_TRUE(json_is_true(json_object_get(step_at(&f, 1), "timed_out")));
  /* No memcheck-retry-retry: each step gets one retry, no more. */
  ASSERT_TRUE(json_object_get(step_at(&f, 1), "retried_after_timeout") == NULL);
  one = json_object_get(json_object_get(f.st.record, "sanitizer"),
                        "memcheck-retry");
  ASSERT_TRUE(json_is_true(json_object_get(one, "timed_out")));
  san_teardown(&f);
  return 0;
}

/* A value for the preload variables that loads nothing: empty on POSIX
 * (ld.so skips it; a name it cannot find would print an error in every
 * child), any text on Windows, where an empty value removes the variable
 * and nothing reads it anyway. */
#ifdef _WIN32
#define RT_NO_LIB "rt-none.dll"
#else
#define RT_NO_LIB ""
#endif

/* LD_PRELOAD reaching the sanitized cuda_portfolio (a contract that does
 * not unset it, the fake reporting it in the banner's markers as the real
 * binary does): the stage fails, naming it, though the banner says
 * allocator=exact. Before, it passed: a preloaded allocator could serve
 * cudaMalloc from its own pool, unseen. */
TEST_IMPL(sanitize_preload_reaches_target) {
  san_fixture f;
  ASSERT_EQ(san_setup("preload-child", &f), 0);
  ASSERT_EQ(rt_setenv("LD_PRELOAD", RT_NO_LIB), 0);
  rp_stage_sanitize.steps(&f.ctx, &f.st);
  ASSERT_EQ(uv_os_unsetenv("LD_PRELOAD"), 0);
  ASSERT_EQ(f.st.status, RP_ST_FAILED);
  ASSERT_CONTAINS(f.st.reason, "memcheck: cuda_portfolio saw LD_PRELOAD");
  san_teardown(&f);
  return 0;
}

/* The shipped env/sanitize.contract keeps LD_PRELOAD and LD_AUDIT from the
 * children, and its preflight says it did: the stage passes with both set
 * in repro's own environment. */
TEST_IMPL(sanitize_contract_unsets_preload) {
  san_fixture f;
  rp_checks cs;
  rp_probe probe;
  char path[700], err[256];
  int i, warned = 0;
  ASSERT_EQ(san_setup("preload-contract", &f), 0);
  snprintf(path, sizeof path, "%s/env/sanitize.contract", CM_SOURCE_DIR);
  ASSERT_OK(rp_contract_load(path, &f.st.contract, err, sizeof err));
  ASSERT_EQ(rt_setenv("LD_PRELOAD", RT_NO_LIB), 0);
  ASSERT_EQ(rt_setenv("LD_AUDIT", RT_NO_LIB), 0);
  memset(&cs, 0, sizeof cs);
  memset(&probe, 0, sizeof probe);
  probe.tool_dirs = f.tools;
  probe.no_nvidia_smi = 1;
  rp_preflight(&f.st.contract, &probe, &cs);
  rp_stage_sanitize.steps(&f.ctx, &f.st);
  ASSERT_EQ(uv_os_unsetenv("LD_PRELOAD"), 0);
  ASSERT_EQ(uv_os_unsetenv("LD_AUDIT"), 0);
  for (i = 0; i < cs.n; i++)
    if (strcmp(cs.items[i].name, "unset LD_PRELOAD") == 0 ||
        strcmp(cs.items[i].name, "unset LD_AUDIT") == 0) {
      ASSERT_EQ(cs.items[i].state, RP_CHECK_WARN);
      ASSERT_CONTAINS(cs.items[i].detail, "the children do not get it");
      warned++;
    }
  ASSERT_EQ(warned, 2);
  ASSERT_STR_EQ(f.st.reason, "");
  ASSERT_EQ(f.st.status, RP_ST_PASSED);
  san_teardown(&f);
  return 0;
}
