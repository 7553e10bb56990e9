/* test_report_render.c: `repro report` on a fabricated run folder, the CI
 * exports, and the page rendered in headless Chromium. */
#include "cm_file.h"
#include "cm_test.h"

#include "cm_error.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "platform.h"
#include "report_fixture.h"
#include "rp_archive.h"
#include "rp_compare.h"
#include "rp_report.h"
#include "rp_report_common.h"
#include "rp_report_cli.h"
#include "rp_report_model.h"
#include "rp_tar.h"

#include <ctype.h>
#include <math.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* A run folder as repro leaves it: the fixture's files, and its manifest
 * finished (hashed), so that it verifies, as the report requires before
 * it re-finishes. */
static int make(const char *name, char *dir, size_t size) {
  char p[1100];
  json_t *m;
  int r;
  if (cm_snprintf(dir, size, "%s/%s", cm_test_tmpdir(), name) != CM_OK ||
      fx_make_run(dir) != 0 ||
      cm_snprintf(p, sizeof p, "%s/manifest.json", dir) != CM_OK ||
      (m = cm_json_load_file(p, 0, NULL)) == NULL)
    return 1;
  r = rp_manifest_finish(dir, m);
  json_decref(m);
  return r == CM_OK ? 0 : 1;
}

/* The fixture run NAME (made as make() does) and its manifest, parsed for
 * a test to edit and write back to p (the manifest's path); NULL on
 * failure. */
static json_t *make_manifest(const char *name, char *dir, size_t size, char *p,
                             size_t psize) {
  if (make(name, dir, size) != 0 ||
      cm_snprintf(p, psize, "%s/manifest.json", dir) != CM_OK)
    return NULL;
  return cm_json_load_file(p, 0, NULL);
}

static char *slurp(const char *dir, const char *name) {
  char p[1024], *buf = NULL;
  size_t len;
  if (cm_snprintf(p, sizeof p, "%s/%s", dir, name) != CM_OK ||
      cm_read_file(p, &buf, &len) != CM_OK)
    return NULL;
  return buf;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  const char *p = hay;
  while ((p = strstr(p, needle)) != NULL) {
    n++;
    p += strlen(needle);
  }
  return n;
}

/* A run folder's links are not its files: verify and the manifest skip
 * every link, so report and compare may not read one either. Before, a
 * results file that was a link to data outside the run (or results/ or
 * results/clean a linked folder) was reported, with a SHA-256 under
 * "Binding", as the run's, and compare judged it; a manifest.json that was
 * a link was read. */
#ifdef _WIN32
TEST_IMPL(model_skips_links) {
  printf("skip: symbolic links need privileges on Windows (POSIX-only "
         "test)\n");
  return TEST_SKIP;
}
#else
TEST_IMPL(model_skips_links) {
  char d[512], o[600], p[700], q[700], name[64];
  rp_run run;
  fx_opts fo;
  int i;
  /* fresh each run: the links and moves below would stand in the way */
  ASSERT_OK(cm_snprintf(name, sizeof name, "links-%ld", (long)getpid()));
  ASSERT_EQ(make(name, d, sizeof d), 0);
  ASSERT_OK(cm_snprintf(o, sizeof o, "%s-outside", d));
  ASSERT_OK(plat_mkdir_p(o));
  /* a results file that is a link to a file outside */
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/time.json", o));
  fx_opts_init(&fo);
  ASSERT_EQ(fx_write_results(p, &fo), 0);
  ASSERT_OK(cm_snprintf(q, sizeof q, "%s/results/clean/a.json", d));
  ASSERT_EQ(symlink(p, q), 0);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_EQ(run.nclean, 1);
  ASSERT_TRUE(strstr(run.clean[0].path, "a.json") == NULL);
  rp_run_free(&run);
  ASSERT_EQ(unlink(q), 0);
  /* results/clean, then results/, then manifest.json moved outside and
   * left as links there: read as absent, then refused */
  for (i = 0; i < 3; i++) {
    static const char *const sub[3] = {"results/clean", "results",
                                       "manifest.json"};
    ASSERT_OK(cm_snprintf(p, sizeof p, "%s/%d", o, i));
    ASSERT_OK(cm_snprintf(q, sizeof q, "%s/%s", d, sub[i]));
    ASSERT_EQ(rename(q, p), 0);
    ASSERT_EQ(symlink(p, q), 0);
    if (i == 2) {
      ASSERT_TRUE(rp_run_load(d, &run) != CM_OK);
    } else {
      ASSERT_OK(rp_run_load(d, &run));
      ASSERT_EQ(run.nclean, 0);
      ASSERT_EQ(run.ninstrumented, i == 0 ? 1 : 0);
    }
    rp_run_free(&run);
  }
  return 0;
}
#endif

TEST_IMPL(model_reads_run) {
  char d[512];
  rp_run run;
  ASSERT_EQ(make("model", d, sizeof d), 0);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_EQ(run.have_manifest, 1);
  ASSERT_STR_EQ(run.status, "complete");
  ASSERT_EQ(run.nstages, 6);
  ASSERT_STR_EQ(run.stages[4].status, "limited");
  /* Stage starts are the sum of earlier durations: 95 + 12.5. */
  ASSERT_NEAR(run.stages[2].start_s, 107.5, 1e-9);
  ASSERT_EQ(run.nfindings, 1);
  ASSERT_EQ(run.findings[0].negative_control, 1);
  ASSERT_EQ(run.negative_control_caught, 1);
  ASSERT_EQ(run.verify_control, 1);
  ASSERT_STR_EQ(run.binary_git, "0123456789abcdef");
  ASSERT_EQ(run.verify_control_exit, 0);
  ASSERT_EQ(run.nresources, 1);
  ASSERT_EQ(run.resources[0].registers, 32);
  ASSERT_EQ(run.nclean, 1);
  ASSERT_EQ(run.ninstrumented, 1);
  ASSERT_EQ(run.clean[0].ncases, 4);
  ASSERT_EQ(run.clean[0].cases[0].n, 40);
  ASSERT_EQ(strlen(run.manifest_sha256), 64);
  ASSERT_NEAR(run.clean[0].read_gbps, 4400.0, 1e-9);
  ASSERT_NEAR(run.clean[0].launch_floor_s, 2.75e-6, 1e-18);
  ASSERT_STR_EQ(run.clean[0].flush, "read");
  rp_run_free(&run);
  return 0;
}

/* The git row of a run without results (repro test, or sanitize, alone):
 * the folder's tree is not what the binary was built from when the binary
 * came prebuilt or the tree was copied, and the banner's git= says what it
 * was. Before, the row showed only the folder's commit (the H200 run of
 * checks/control-2026-12-05T1357: the device copy's 15389128 for a binary
 * of 2b15a501). */
TEST_IMPL(report_git_from_banner) {
  static rp_run run; /* large: not on the stack */
  rp__kv rows[RP__ENV_ROWS];
  size_t n, i;
  const char *git = NULL;
  memset(&run, 0, sizeof run);
  run.git_dirty = 1;
  cm_strlcpy(run.git_commit, "15389128", sizeof run.git_commit);
  cm_strlcpy(run.binary_git, "2b15a501+dirty", sizeof run.binary_git);
  n = rp__env_rows(&run, rows);
  for (i = 0; i < n; i++)
    if (strcmp(rows[i].key, "git commit") == 0)
      git = rows[i].value;
  ASSERT_TRUE(git != NULL);
  ASSERT_STR_EQ(git, "15389128 (dirty) in the run's folder; binary built "
                     "from 2b15a501 (dirty tree)");
  /* the same commit and tree state: one, as before */
  cm_strlcpy(run.binary_git, "15389128+dirty", sizeof run.binary_git);
  n = rp__env_rows(&run, rows);
  for (i = 0; i < n; i++)
    if (strcmp(rows[i].key, "git commit") == 0)
      ASSERT_STR_EQ(rows[i].value, "15389128 (dirty)");
  /* the same commit, the folder dirty and the binary built clean (the
   * H100 run of checks/verify-h100-2026-12-05T2123: results/h200's
   * folders moved out after packing): both, or the row would call the
   * binary's tree dirty */
  cm_strlcpy(run.binary_git, "15389128", sizeof run.binary_git);
  n = rp__env_rows(&run, rows);
  for (i = 0; i < n; i++)
    if (strcmp(rows[i].key, "git commit") == 0)
      ASSERT_STR_EQ(rows[i].value, "15389128 (dirty) in the run's folder; "
                                   "binary built from 15389128 (clean tree)");
  /* a binary that could not tell: nothing to add */
  cm_strlcpy(run.binary_git, "unknown", sizeof run.binary_git);
  n = rp__env_rows(&run, rows);
  for (i = 0; i < n; i++)
    if (strcmp(rows[i].key, "git commit") == 0)
      ASSERT_STR_EQ(rows[i].value, "15389128 (dirty)");
  return 0;
}

/* The verification control's words in each state the test stage can
 * record (rp_stage_test.c). */
TEST_IMPL(report_verify_control_states) {
  rp_run run;
  char buf[256];
  memset(&run, 0, sizeof run);
  run.verify_control = 0;
  run.verify_control_exit = 1;
  ASSERT_EQ(rp__verify_control(&run, buf, sizeof buf), 0);
  ASSERT_CONTAINS(buf, "NOT caught");
  run.verify_control = -1;
  run.verify_control_exit = 77;
  ASSERT_EQ(rp__verify_control(&run, buf, sizeof buf), -1);
  ASSERT_STR_EQ(buf, "not decided (its step exited 77)");
  run.verify_control_exit = -1;
  ASSERT_EQ(rp__verify_control(&run, buf, sizeof buf), -1);
  ASSERT_STR_EQ(buf, "not recorded in this run");
  run.verify_control = 1;
  run.verify_control_exit = 0;
  ASSERT_EQ(rp__verify_control(&run, buf, sizeof buf), 1);
  ASSERT_STR_EQ(buf, "failed as predicted");
  return 0;
}

/* A control step killed or timed out leaves the record with exit_code null
 * (rp_stage_test.c): the report says it was not decided, not that the run
 * has no record (it used to read "not recorded in this run"). */
TEST_IMPL(report_verify_control_no_exit) {
  char d[512], p[1024], buf[256];
  json_t *m, *st, *vc;
  rp_run run;
  m = make_manifest("vcnoexit", d, sizeof d, p, sizeof p);
  ASSERT_TRUE(m != NULL);
  st = json_array_get(json_object_get(m, "stages"), 1);
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "name")), "test");
  json_object_set_new(st, "status", json_string("failed"));
  vc = json_object_get(st, "verification_control");
  ASSERT_TRUE(json_is_object(vc));
  json_object_set_new(vc, "exit_code", json_null());
  json_object_set_new(vc, "failed_as_predicted", json_false());
  ASSERT_EQ(cm_json_dump_file(m, p, JSON_INDENT(2)), 0);
  json_decref(m);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_EQ(rp__verify_control(&run, buf, sizeof buf), -1);
  ASSERT_CONTAINS(buf, "not decided (its step did not exit");
  rp_run_free(&run);
  return 0;
}

/* The exit note and the step's sentence are the sanitize stage's
 * negative-control step's only: a step of another stage whose name holds
 * "control", last in its stage with a non-zero exit, gets neither; a long
 * detail is left whole rather than cut mid-sentence. */
TEST_IMPL(report_exit_note_scope) {
  char d[512], p[1024], longd[sizeof(((rp_item *)0)->detail) - 12];
  json_t *m, *st, *steps, *step;
  rp_run run;
  size_t i;
  m = make_manifest("exitnote", d, sizeof d, p, sizeof p);
  ASSERT_TRUE(m != NULL);
  st = json_array_get(json_object_get(m, "stages"), 4); /* profile */
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "name")), "profile");
  json_object_set_new(st, "exit_code", json_integer(3));
  steps = json_object_get(st, "steps");
  if (!json_is_array(steps)) {
    steps = json_array();
    json_object_set_new(st, "steps", steps);
  }
  step = json_object();
  json_object_set_new(step, "name", json_string("clock-control"));
  json_object_set_new(step, "exit_code", json_integer(3));
  json_array_append_new(steps, step);
  /* the negative control's step with a detail near the buffer's size */
  memset(longd, 'x', sizeof longd - 1);
  longd[sizeof longd - 1] = '\0';
  st = json_array_get(json_object_get(m, "stages"), 2);
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "name")), "sanitize");
  steps = json_object_get(st, "steps");
  step = json_array_get(steps, json_array_size(steps) - 1);
  json_object_set_new(step, "detail", json_string(longd));
  ASSERT_EQ(cm_json_dump_file(m, p, JSON_INDENT(2)), 0);
  json_decref(m);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_STR_EQ(run.stages[4].exit_note, "");
  for (i = 0; i < run.stages[4].nsteps; i++)
    ASSERT_TRUE(strstr(run.stages[4].steps[i].detail, "planted") == NULL);
  ASSERT_STR_EQ(run.stages[2].exit_note, "the negative control's");
  ASSERT_STR_EQ(run.stages[2].steps[run.stages[2].nsteps - 1].detail, longd);
  rp_run_free(&run);
  /* the control not caught (exit 0, a failed stage): still labelled */
  m = cm_json_load_file(p, 0, NULL);
  ASSERT_TRUE(m != NULL);
  st = json_array_get(json_object_get(m, "stages"), 2);
  json_object_set_new(st, "status", json_string("failed"));
  json_object_set_new(st, "exit_code", json_integer(0));
  steps = json_object_get(st, "steps");
  step = json_array_get(steps, json_array_size(steps) - 1);
  json_object_set_new(step, "exit_code", json_integer(0));
  ASSERT_EQ(cm_json_dump_file(m, p, JSON_INDENT(2)), 0);
  json_decref(m);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_STR_EQ(run.stages[2].exit_note, "the negative control's");
  rp_run_free(&run);
  return 0;
}

/* The fixture's run with its inspect stage removed (status NULL) or
 * given that status and reason and no resource table; its manifest
 * finished again, so that the report verifies it. */
static int inspect_as(const char *name, char *d, size_t size,
                      const char *status, const char *reason) {
  char p[1100];
  json_t *m, *stages, *st = NULL;
  size_t i;
  int r;
  if (make(name, d, size) != 0 ||
      cm_snprintf(p, sizeof p, "%s/manifest.json", d) != CM_OK ||
      (m = cm_json_load_file(p, 0, NULL)) == NULL)
    return 1;
  stages = json_object_get(m, "stages");
  for (i = 0; i < json_array_size(stages); i++) {
    st = json_array_get(stages, i);
    if (strcmp(json_string_value(json_object_get(st, "name")), "inspect") == 0)
      break;
  }
  if (i == json_array_size(stages)) {
    json_decref(m);
    return 1;
  }
  if (status == NULL) {
    json_array_remove(stages, i);
  } else {
    json_object_set_new(st, "status", json_string(status));
    json_object_set_new(st, "reason", json_string(reason));
    json_object_del(st, "resources");
  }
  r = rp_manifest_finish(d, m);
  json_decref(m);
  return r == CM_OK ? 0 : 1;
}

/* An empty resource table says why: the inspect stage was left out of the
 * run, or did not record one (its status and reason). */
TEST_IMPL(report_resources_why) {
  static const struct {
    const char *name, *status, *reason, *md, *html;
  } k[] = {
      {"res-left-out", NULL, NULL,
       "## Resource usage (inspect)\n\nNo resource table is recorded: the "
       "inspect stage did not run (left out by --only or --skip, as in runs "
       "on a GPU machine whose build machine inspects, or the run ended "
       "before it: see Stages; ./repro inspect records one).\n",
       "<p>No resource table is recorded: the inspect stage did not run"},
      {"res-skipped", "skipped",
       "cuobjdump not found in PATH or the CUDA folders",
       "No resource table is recorded: the inspect stage skipped: cuobjdump "
       "not found in PATH or the CUDA folders.\n",
       "the inspect stage skipped: cuobjdump not found"}};
  char d[512];
  char *argv[] = {"report", d, NULL};
  char *md, *html;
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; i++) {
    ASSERT_EQ(inspect_as(k[i].name, d, sizeof d, k[i].status, k[i].reason), 0);
    ASSERT_EQ(rp_report_main(2, argv, NULL), 0);
    md = slurp(d, "report.md");
    html = slurp(d, "report.html");
    ASSERT_TRUE(md != NULL && html != NULL);
    ASSERT_CONTAINS(md, k[i].md);
    ASSERT_CONTAINS(html, k[i].html);
    free(md);
    free(html);
  }
  return 0;
}

/* A run whose folder's git is not the binary's (a tree copied to the GPU
 * machine, a prebuilt build folder) shows both in the report. */
/* compare reads a bundle as it is: verified first, in the same pass that
 * keeps its results files, which then load as the run folder's do; a
 * bundle that does not verify is refused and nothing of it is read. */
TEST_IMPL(compare_reads_bundles) {
  char d[512], mp[1024], bundle[1100], bad[1200];
  char *argv[] = {"compare", bundle, d, NULL};
  char *bad_argv[] = {"compare", bad, d, NULL};
  json_t *m;
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result r;
  char *buf = NULL;
  size_t len = 0;
  ASSERT_EQ(make("bundled", d, sizeof d), 0);
  ASSERT_OK(cm_snprintf(mp, sizeof mp, "%s/manifest.json", d));
  m = cm_json_load_file(mp, 0, NULL);
  ASSERT_TRUE(m != NULL);
  ASSERT_OK(rp_manifest_finish(d, m));
  json_decref(m);
  ASSERT_OK(rp_bundle_write(d, bundle, sizeof bundle));
  ASSERT_OK(rp_results_load_any(d, &a));
  ASSERT_OK(rp_results_load_any(bundle, &b));
  ASSERT_EQ(b.instrumented, 0); /* results/clean/, as for the folder */
  ASSERT_EQ(b.ncases, a.ncases);
  ASSERT_GT(b.ncases, 0);
  ASSERT_STR_EQ(b.sha256, a.sha256);
  ASSERT_STR_EQ(b.path, bundle);
  rp_compare_opts_init(&co);
  memset(&r, 0, sizeof r);
  ASSERT_OK(rp_compare(&a, &b, &co, &r));
  ASSERT_EQ(r.refused, 0);
  ASSERT_EQ((size_t)r.counts[RP_VERDICT_SAME], a.ncases);
  rp_compare_result_free(&r);
  rp_results_free(&a);
  rp_results_free(&b);
  ASSERT_EQ(rp_compare_main(3, argv), 0);
  /* one byte changed in the middle of the bundle */
  ASSERT_OK(cm_read_file(bundle, &buf, &len));
  ASSERT_GT(len, 100);
  buf[len / 2] ^= 0x20;
  ASSERT_OK(cm_snprintf(bad, sizeof bad, "%s.bad.tar.gz", d));
  ASSERT_OK(plat_write_file_atomic(bad, buf, len));
  free(buf);
  ASSERT_EQ(rp_results_load_any(bad, &b), CM_EMISMATCH);
  ASSERT_EQ(rp_compare_main(3, bad_argv), 2);
  return 0;
}

/* Writes len bytes of data as <dir>/<name>, gzip-compressed. */
static int write_gz(const char *dir, const char *name, const char *data,
                    size_t len) {
  rp_log *log = NULL;
  int r = rp_log_open(dir, name, &log);
  if (r == CM_OK)
    r = rp_log_write(log, data, len);
  if (log != NULL) {
    int c = rp_log_close(log, NULL);
    r = r == CM_OK ? c : r;
  }
  return r;
}

/* Results files kept gzip-compressed (NAME.json.gz, as results/h200/
 * keeps a run's files) are read as the file they hold: compare took every
 * gzip file for a bundle and refused them with "the bundle does not verify
 * (tar stream: header checksum mismatch)". A damaged one is refused with
 * what is wrong, one that holds neither JSON nor a tar as such; a *.tar.gz
 * is still read as a bundle (compare_reads_bundles has the tar inside). */
TEST_IMPL(compare_reads_gzipped_results) {
  fx_opts o;
  char d[512], plain[700], gz[700], cut[700], bad[700], txt[700];
  char *argv[] = {"compare", gz, plain, NULL};
  char *text = NULL, *head = NULL;
  size_t len = 0, hl = 0;
  rp_results a, b;
  ASSERT_OK(cm_snprintf(d, sizeof d, "%s/gzres", cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(d));
  fx_opts_init(&o);
  ASSERT_OK(cm_snprintf(plain, sizeof plain, "%s/a.json", d));
  ASSERT_EQ(fx_write_results(plain, &o), 0);
  ASSERT_OK(cm_read_file(plain, &text, &len));
  ASSERT_OK(write_gz(d, "a.json.gz", text, len));
  ASSERT_OK(write_gz(d, "bad.json.gz", text, len / 2));
  ASSERT_OK(write_gz(d, "a.txt.gz", "just text\n", 10));
  ASSERT_OK(cm_snprintf(gz, sizeof gz, "%s/a.json.gz", d));
  ASSERT_OK(cm_snprintf(cut, sizeof cut, "%s/cut.json.gz", d));
  /* cut: the member's trailer (CRC-32 and length) gone, as a copy cut short */
  ASSERT_OK(cm_read_file(gz, &head, &hl));
  ASSERT_GT(hl, 8);
  ASSERT_OK(plat_write_file_atomic(cut, head, hl - 8));
  free(head);
  ASSERT_OK(cm_snprintf(bad, sizeof bad, "%s/bad.json.gz", d));
  ASSERT_OK(cm_snprintf(txt, sizeof txt, "%s/a.txt.gz", d));
  /* rp_gz_read: the whole, or the first bytes and CM_ERANGE */
  ASSERT_OK(rp_gz_read(gz, len, &head, &hl));
  ASSERT_EQ(hl, len);
  ASSERT_TRUE(memcmp(head, text, len) == 0 && head[hl] == '\0');
  free(head);
  ASSERT_EQ(rp_gz_read(gz, 5, &head, &hl), CM_ERANGE);
  ASSERT_EQ(hl, 5);
  ASSERT_TRUE(memcmp(head, text, 5) == 0 && head[5] == '\0');
  free(head);
  head = NULL;
  ASSERT_EQ(rp_gz_read(cut, len, &head, &hl), CM_ETRUNC);
  ASSERT_TRUE(head == NULL);
  free(text);
  /* the compressed copy reads as the file: its cases, its SHA-256 */
  ASSERT_OK(rp_results_load_any(plain, &a));
  ASSERT_OK(rp_results_load_any(gz, &b));
  ASSERT_EQ(b.ncases, a.ncases);
  ASSERT_GT(b.ncases, 0);
  ASSERT_STR_EQ(b.sha256, a.sha256);
  ASSERT_STR_EQ(b.path, gz);
  rp_results_free(&a);
  rp_results_free(&b);
  ASSERT_EQ(rp_compare_main(3, argv), 0);
  /* cut short, and half a document */
  ASSERT_EQ(rp_results_load_any(cut, &b), CM_ETRUNC);
  ASSERT_EQ(rp_results_load_any(bad, &b), CM_EPARSE);
  argv[1] = cut;
  ASSERT_EQ(rp_compare_main(3, argv), 2);
  /* neither JSON nor a tar inside: named as such (it was refused as a
   * bundle whose first tar header's checksum did not match) */
  ASSERT_EQ(rp_results_load_any(txt, &b), CM_EPARSE);
  /* a tar inside, or the name of a bundle: read as a bundle */
  ASSERT_OK(write_gz(d, "a.tar.gz", "just text\n", 10));
  ASSERT_OK(cm_snprintf(txt, sizeof txt, "%s/a.tar.gz", d));
  ASSERT_EQ(rp_results_load_any(txt, &b), CM_EMISMATCH);
  return 0;
}

/* What compare reads it bounds. A bundle without a manifest is refused with
 * verify's reason (it said "no such file" of a bundle that exists); 20000
 * cases a side compare in well under a second (every lookup rebuilt every
 * key: minutes); and, POSIX only, a FIFO or a link to /dev/zero among a run
 * folder's results is refused (it waited for a writer for ever, or read
 * until memory ran out), and a results file named with an ESC and a
 * carriage return is printed without them. */
TEST_IMPL(compare_reader_limits) {
  char d[700], p[1200];
  rp_results a, b;
  rp_compare_opts co;
  rp_compare_result r;
  rp_log *log = NULL;
  unsigned char h[RP__TAR_BLOCK], zeros[3 * RP__TAR_BLOCK];
  size_t i, n = 20000;
  double t0;
  ASSERT_OK(cm_snprintf(d, sizeof d, "%s/limits", cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(d));
  /* a bundle of one file and no manifest */
  memset(zeros, 0, sizeof zeros);
  ASSERT_OK(rp__tar_header(h, "run/a.txt", 0, 1700000000));
  ASSERT_OK(rp_log_open(d, "nomanifest.tar.gz", &log));
  ASSERT_OK(rp_log_write(log, h, sizeof h));
  ASSERT_OK(rp_log_write(log, zeros, sizeof zeros));
  ASSERT_OK(rp_log_close(log, NULL));
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/nomanifest.tar.gz", d));
  ASSERT_EQ(rp_results_load_any(p, &a), CM_EMISMATCH);
  /* 20000 cases a side */
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.cases = calloc(n, sizeof *a.cases);
  b.cases = calloc(n, sizeof *b.cases);
  ASSERT_TRUE(a.cases != NULL && b.cases != NULL);
  a.ncases = b.ncases = n;
  for (i = 0; i < n; i++) {
    rp_case *c = &a.cases[i];
    cm_strlcpy(c->op, "softmax", sizeof c->op);
    cm_strlcpy(c->variant, "fused", sizeof c->variant);
    cm_strlcpy(c->dtype, "bf16", sizeof c->dtype);
    cm_snprintf(c->shape, sizeof c->shape, "%zux1024", i + 1);
    c->stride = 1024;
    c->median_s = 1e-3;
    b.cases[n - 1 - i] = *c; /* the same keys in the other order */
  }
  rp_compare_opts_init(&co);
  co.force = 1;
  t0 = plat_monotonic_s();
  ASSERT_OK(rp_compare(&a, &b, &co, &r));
  ASSERT_TRUE(plat_monotonic_s() - t0 < 10.0);
  ASSERT_EQ(r.ncases, n);
  ASSERT_EQ(r.nonly_base, 0);
  ASSERT_EQ(r.nonly_new, 0);
  rp_compare_result_free(&r);
  rp_results_free(&a);
  rp_results_free(&b);
#ifndef _WIN32
  {
    char run[800], f[1300], errp[1300], *err;
    char *argv[] = {"compare", run, run, NULL};
    int saved, fd;
    ASSERT_OK(cm_snprintf(run, sizeof run, "%s/special", d));
    ASSERT_OK(cm_snprintf(f, sizeof f, "%s/results/clean", run));
    ASSERT_OK(plat_mkdir_p(f));
    /* what an earlier run of this test left */
    ASSERT_OK(
        cm_snprintf(f, sizeof f, "%s/results/clean/\x1b[2K\rok.json", run));
    remove(f);
    ASSERT_OK(cm_snprintf(f, sizeof f, "%s/results/clean/t.json", run));
    remove(f);
    ASSERT_EQ(mkfifo(f, 0600), 0);
    ASSERT_EQ(rp_results_load_any(run, &a), CM_EINVAL);
    remove(f);
    /* a link (here to /dev/zero) is never read: no results (it was
     * followed, and refused as not a regular file, before the fourteenth
     * session) */
    ASSERT_EQ(symlink("/dev/zero", f), 0);
    ASSERT_EQ(rp_results_load_any(run, &a), CM_ENOENT);
    remove(f);
    /* a name that would rewrite the terminal's line */
    ASSERT_OK(
        cm_snprintf(f, sizeof f, "%s/results/clean/\x1b[2K\rok.json", run));
    ASSERT_OK(plat_write_file_atomic(f, "{\"instrumented\": false}", 23));
    ASSERT_OK(cm_snprintf(errp, sizeof errp, "%s/stderr.txt", d));
    fflush(stderr);
    saved = dup(2);
    fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_TRUE(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    ASSERT_EQ(rp_compare_main(3, argv), 2);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    err = slurp(d, "stderr.txt");
    ASSERT_TRUE(err != NULL);
    ASSERT_CONTAINS(err, "?[2K ok.json: not a results document");
    ASSERT_TRUE(strchr(err, '\x1b') == NULL && strchr(err, '\r') == NULL);
    free(err);
  }
#endif
  return 0;
}

TEST_IMPL(report_git_of_binary) {
  char d[512];
  char *argv[] = {"report", d, "--no-finish", NULL};
  char *md;
  json_t *m;
  char p[1024];
  m = make_manifest("gitbin", d, sizeof d, p, sizeof p);
  ASSERT_TRUE(m != NULL);
  json_object_set_new(json_object_get(m, "git"), "commit",
                      json_string("fedcba9876543210"));
  json_object_set_new(json_object_get(m, "git"), "dirty", json_true());
  ASSERT_EQ(cm_json_dump_file(m, p, JSON_INDENT(2)), 0);
  json_decref(m);
  ASSERT_EQ(rp_report_main(3, argv, NULL), 0);
  md = slurp(d, "report.md");
  ASSERT_TRUE(md != NULL);
  ASSERT_CONTAINS(md, "fedcba9876543210 (dirty) in the run's folder; binary "
                      "built from 0123456789abcdef");
  free(md);
  return 0;
}

TEST_IMPL(report_writes_and_binds) {
  char d[512], p[1024], hex[65];
  char *argv[] = {"report", d, "--junit", "--sarif", NULL};
  char *md, *html, *man;
  json_t *m, *files;
  size_t i, bound = 0;
  ASSERT_EQ(make("bind", d, sizeof d), 0);
  ASSERT_EQ(rp_report_main(4, argv, NULL), 0);
  md = slurp(d, "report.md");
  html = slurp(d, "report.html");
  ASSERT_TRUE(md != NULL && html != NULL);
  ASSERT_CONTAINS(md, "## Environment");
  ASSERT_CONTAINS(md, "NVIDIA H200");
  ASSERT_CONTAINS(md, "| profile | **limited** |");
  ASSERT_CONTAINS(md, "ERR_NVGPUCTRPERM");
  ASSERT_CONTAINS(md, "Negative control");
  ASSERT_CONTAINS(md, "**caught**");
  ASSERT_CONTAINS(md, "## Verification control\n\nadd_ftz, an fp32 add");
  ASSERT_CONTAINS(md, "test stage's first step): **failed as predicted**.");
  ASSERT_CONTAINS(html, "<h2>Verification control</h2>");
  ASSERT_CONTAINS(html, "<span class=\"caught\">failed as predicted</span>");
  /* a passed sanitize stage's exit 86 is the negative control's, and
   * both the table and its step say so */
  ASSERT_CONTAINS(md, "| 86 (the negative control's) |");
  ASSERT_CONTAINS(md, "- step negative-control: exit 86 (the planted "
                      "out-of-bounds write must make its sanitizer exit "
                      "non-zero; the verdict is under Sanitizer results)");
  ASSERT_CONTAINS(md, "- step memcheck: exit 0\n");
  ASSERT_CONTAINS(html, "86 (the negative control");
  ASSERT_CONTAINS(md, "softmax_warp\\<float\\>");
  ASSERT_CONTAINS(md, "cublasGemmEx");
  /* a case verified on a sample says so beside its verdict, the others
   * do not */
  ASSERT_CONTAINS(md, "| yes, sampled 102358 |");
  ASSERT_CONTAINS(html, ">yes, sampled 102358</td>");
  ASSERT_EQ(count(md, "sampled 102358"), 1);
  ASSERT_EQ(count(md, ", sampled"), 1);
  /* The results' ceilings and timing protocol reach the environment. */
  ASSERT_CONTAINS(md,
                  "| read ceiling | 4400.0 GB/s (reading alone, this run) |");
  ASSERT_CONTAINS(md, "| launch floor | 2.75 us");
  ASSERT_CONTAINS(md, "| timing protocol | cold, L2 flush by reading, peer "
                      "sampled interleaved |");
  ASSERT_CONTAINS(html, "<th>launch floor</th>");
  /* Four charts, each with data marks, and no external reference. */
  ASSERT_EQ(count(html, "<svg class=\"chart\""), 4);
  /* bandwidth 2 bars + ceiling, tflops 2x2 bars, 4 boxes x 3, 6 stages. */
  ASSERT_EQ(count(html, "class=\"mark"), 3 + 4 + 12 + 6);
  ASSERT_TRUE(strstr(html, "src=\"http") == NULL);
  ASSERT_TRUE(strstr(html, "href=\"http") == NULL);
  ASSERT_TRUE(strstr(html, "<link") == NULL);
  /* The re-finished manifest names both files with their SHA-256. */
  man = slurp(d, "manifest.json");
  ASSERT_TRUE(man != NULL);
  m = json_loads(man, 0, NULL);
  ASSERT_TRUE(m != NULL);
  files = json_object_get(m, "files");
  for (i = 0; i < json_array_size(files); i++) {
    json_t *f = json_array_get(files, i);
    const char *path = json_string_value(json_object_get(f, "path"));
    if (strcmp(path, "report.html") == 0 || strcmp(path, "report.md") == 0 ||
        strcmp(path, "report.junit.xml") == 0 ||
        strcmp(path, "sanitizer.sarif") == 0) {
      ASSERT_OK(cm_snprintf(p, sizeof p, "%s/%s", d, path));
      ASSERT_OK(cm_sha256_file(p, hex, NULL));
      ASSERT_STR_EQ(json_string_value(json_object_get(f, "sha256")), hex);
      bound++;
    }
  }
  ASSERT_EQ(bound, 4);
  json_decref(m);
  free(md);
  free(html);
  free(man);
  {
    /* A results file changed after the run: the report refuses, writes
     * nothing and leaves the manifest as it was, so verify still names
     * the change (before, the re-finish hashed the edit in and the
     * tampered run verified again). */
    char res[1100], *before, *after;
    rp_verify_result vr;
    FILE *f;
    ASSERT_OK(cm_snprintf(res, sizeof res, "%s/results/clean/time.json", d));
    ASSERT_TRUE((f = fopen(res, "ab")) != NULL);
    fputs(" ", f);
    fclose(f);
    before = slurp(d, "manifest.json");
    ASSERT_TRUE(before != NULL);
    ASSERT_EQ(rp_report_main(4, argv, NULL), 1);
    after = slurp(d, "manifest.json");
    ASSERT_TRUE(after != NULL);
    ASSERT_STR_EQ(after, before);
    free(before);
    free(after);
    memset(&vr, 0, sizeof vr);
    ASSERT_OK(rp_verify(d, &vr));
    ASSERT_EQ(vr.ok, 0);
    ASSERT_CONTAINS(vr.problem, "results/clean/time.json");
  }
  return 0;
}

TEST_IMPL(junit_export) {
  char d[512];
  rp_run run;
  char *x;
  ASSERT_EQ(make("junit", d, sizeof d), 0);
  ASSERT_OK(rp_run_load(d, &run));
  run.clean[0].cases[1].passed = 0;
  ASSERT_OK(rp_report_junit(&run, &x));
  ASSERT_CONTAINS(x, "<testsuite name=\"stages\" tests=\"6\" failures=\"0\" "
                     "errors=\"0\" skipped=\"1\"");
  ASSERT_CONTAINS(x, "<testsuite name=\"cases\" tests=\"4\" failures=\"1\"");
  ASSERT_CONTAINS(x, "<skipped message=\"limited: ncu: ERR_NVGPUCTRPERM");
  ASSERT_CONTAINS(x, "<failure type=\"verification\"");
  ASSERT_EQ(count(x, "<testcase"), 10);
  free(x);
  rp_run_free(&run);
  return 0;
}

/* How many of the characters in set stand in md without a backslash
 * before them (a backslash escapes the one character after it), a '_'
 * between two letters or digits aside. */
static size_t md_bare(const char *md, const char *set) {
  const char *start = md;
  size_t n = 0;
  for (; *md; md++) {
    if (*md == '\\' && md[1] != '\0')
      md++;
    else if (*md == '_' && md > start && isalnum((unsigned char)md[-1]) &&
             isalnum((unsigned char)md[1]))
      continue; /* inside a word '_' is no emphasis */
    else if (strchr(set, *md) != NULL)
      n++;
  }
  return n;
}

/* A bundle handed to an auditor is input repro does not control: every
 * string of its manifest reaches the HTML escaped, attribute values
 * included, and the markdown as text that cannot add a line, a heading or
 * a table cell. Before, a stage named "<img src=x onerror=...>" was
 * written into the page as markup (in the stage list, the limitations and
 * the checks' summaries), a check's status ended the class attribute it
 * was written into, and in the markdown a stage name was written as it
 * was, and a reason ending in a backslash escaped the escape of the bar
 * after it. tests/fuzz/regress/run/markup-in-names.json is the same case
 * for the fuzz target's markup checks. */
TEST_IMPL(html_escapes_manifest) {
  char d[512];
  rp_run run;
  char *h = NULL;
  int ncharts = 0;
  size_t i;
  ASSERT_EQ(make("markup", d, sizeof d), 0);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_GT(run.nstages, 0);
  for (i = 0; i < run.nstages; i++) {
    rp_stage *st = &run.stages[i];
    cm_strlcpy(st->name, "<img src=x onerror=f()>", sizeof st->name);
    if (st->nchecks > 0) {
      cm_strlcpy(st->status, "limited", sizeof st->status);
      cm_strlcpy(st->checks[0].status, "warn\" onmouseover=\"f()",
                 sizeof st->checks[0].status);
    }
  }
  for (i = 0; i < run.nfindings; i++)
    cm_strlcpy(run.findings[i].tool, "<b>x</b>", sizeof run.findings[i].tool);
  ASSERT_OK(rp_report_html(&run, &h, &ncharts));
  ASSERT_TRUE(strstr(h, "<img") == NULL);
  ASSERT_TRUE(strstr(h, "onmouseover=\"") == NULL);
  ASSERT_TRUE(strstr(h, "<b>x") == NULL);
  ASSERT_CONTAINS(h, "&lt;img src=x onerror=f()&gt;");
  ASSERT_CONTAINS(h, "warn&quot; onmouseover=&quot;f()");
  free(h);
  /* The markdown: a name with a line break and a forged row, a reason
   * ending in a backslash, raw HTML (the other stages' names), a link,
   * emphasis and a code span, and a results path with a backtick, which
   * used to end the code span it was written in. */
  cm_strlcpy(run.stages[0].name, "x\n| profile | **passed** |",
             sizeof run.stages[0].name);
  cm_strlcpy(run.stages[0].reason, "ends in \\", sizeof run.stages[0].reason);
  ASSERT_GT(run.nstages, 1);
  cm_strlcpy(run.stages[1].reason,
             "[x](javascript:f()) *y* `z` &amp; ~~s~~ _e_ a_b",
             sizeof run.stages[1].reason);
  ASSERT_GT(run.nclean, 0);
  cm_strlcpy(run.clean[0].path, "results/clean/a`<b>`.json",
             sizeof run.clean[0].path);
  ASSERT_OK(rp_report_markdown(&run, &h));
  ASSERT_TRUE(strstr(h, "\n| profile | **passed**") == NULL);
  ASSERT_CONTAINS(h, "| x \\| profile \\| \\*\\*passed\\*\\* \\| | **");
  ASSERT_CONTAINS(h, "| ends in \\\\ |\n");
  ASSERT_EQ(md_bare(h, "<>[]&~_"), 0);
  ASSERT_CONTAINS(h, "| \\<img src=x onerror=f()\\> | **");
  ASSERT_CONTAINS(h, "| \\[x\\](javascript:f()) \\*y\\* \\`z\\` \\&amp; "
                     "\\~\\~s\\~\\~ \\_e\\_ a_b |\n");
  ASSERT_CONTAINS(h, "a\\`\\<b\\>\\`.json: SHA-256 `");
  free(h);
  rp_run_free(&run);
  return 0;
}

TEST_IMPL(sarif_export) {
  char d[512];
  rp_run run;
  char *s;
  json_t *doc, *runs, *res;
  ASSERT_EQ(make("sarif", d, sizeof d), 0);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_OK(rp_report_sarif(&run, &s));
  doc = json_loads(s, 0, NULL);
  ASSERT_TRUE(doc != NULL);
  ASSERT_STR_EQ(json_string_value(json_object_get(doc, "version")), "2.1.0");
  runs = json_object_get(doc, "runs");
  ASSERT_EQ(json_array_size(runs), 1);
  ASSERT_STR_EQ(
      json_string_value(json_object_get(
          json_object_get(json_object_get(json_array_get(runs, 0), "tool"),
                          "driver"),
          "name")),
      "compute-sanitizer negative-control");
  res = json_array_get(json_object_get(json_array_get(runs, 0), "results"), 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(res, "level")), "error");
  /* The expected finding is suppressed, so CI does not fail on it. */
  ASSERT_EQ(json_array_size(json_object_get(res, "suppressions")), 1);
  ASSERT_CONTAINS(s, "\"startLine\": 12");
  ASSERT_CONTAINS(s, "\"uri\": \"negative_control.cu\"");
  json_decref(doc);
  free(s);
  rp_run_free(&run);
  return 0;
}

/* A compute-sanitizer installed under a path with "control" in it
 * (/opt/nvidia/controlled/...): the sanitizer record's tool path made every
 * finding under it "negative control", and SARIF suppressed a real
 * synccheck error. Only the negative-control step's own findings are. */
TEST_IMPL(negative_control_by_step) {
  char d[512], p[1024];
  rp_run run;
  json_t *m, *stages, *san = NULL, *rec, *fs, *f;
  size_t i;
  int real = 0, neg = 0;
  m = make_manifest("negpath", d, sizeof d, p, sizeof p);
  ASSERT_TRUE(m != NULL);
  stages = json_object_get(m, "stages");
  for (i = 0; i < json_array_size(stages); i++)
    if (strcmp(json_string_value(
                   json_object_get(json_array_get(stages, i), "name")),
               "sanitize") == 0)
      san = json_array_get(stages, i);
  ASSERT_TRUE(san != NULL);
  /* the record as the stage writes it, keyed by step */
  rec = json_object();
  json_object_set_new(rec, "tool",
                      json_string("/opt/nvidia/controlled/cuda/bin/"
                                  "compute-sanitizer"));
  fs = json_array();
  f = json_object();
  json_object_set_new(f, "class", json_string("sync"));
  json_object_set_new(f, "kind", json_string("Barrier error"));
  json_object_set_new(f, "kernel", json_string("k2"));
  json_object_set_new(f, "location", json_string("b.cu:9"));
  json_array_append_new(fs, f);
  json_object_set_new(rec, "synccheck", json_pack("{s:o}", "findings", fs));
  fs = json_array();
  f = json_object();
  json_object_set_new(f, "class", json_string("access"));
  json_object_set_new(f, "kind", json_string("Invalid __global__ write"));
  json_array_append_new(fs, f);
  json_object_set_new(rec, "negative-control",
                      json_pack("{s:o}", "findings", fs));
  json_object_set_new(san, "sanitizer", rec);
  ASSERT_EQ(cm_json_dump_file(m, p, JSON_INDENT(2)), 0);
  json_decref(m);
  ASSERT_OK(rp_run_load(d, &run));
  for (i = 0; i < run.nfindings; i++) {
    if (strcmp(run.findings[i].kind, "Barrier error") == 0) {
      real++;
      ASSERT_EQ(run.findings[i].negative_control, 0);
    } else if (strcmp(run.findings[i].kind, "Invalid __global__ write") == 0 &&
               run.findings[i].negative_control) {
      neg++;
    }
  }
  ASSERT_EQ(real, 1);
  ASSERT_GT(neg, 0);
  rp_run_free(&run);
  return 0;
}

/* Steps with no exit code (the engine writes null for a step killed at its
 * timeout, by a signal, or never started) read "exit -1", a code no step
 * had. */
TEST_IMPL(steps_without_exit_code) {
  char d[512], p[1024];
  rp_run run;
  json_t *m, *steps;
  size_t i, j;
  int seen = 0;
  m = make_manifest("noexit", d, sizeof d, p, sizeof p);
  ASSERT_TRUE(m != NULL);
  steps =
      json_object_get(json_array_get(json_object_get(m, "stages"), 0), "steps");
  ASSERT_TRUE(json_is_array(steps));
  json_array_append_new(steps,
                        json_pack("{s:s,s:b,s:n,s:i,s:b,s:f}", "name", "slow",
                                  "started", 1, "exit_code", "signal", 9,
                                  "timed_out", 1, "duration_s", 900.0));
  json_array_append_new(steps, json_pack("{s:s,s:b,s:n,s:i,s:b}", "name",
                                         "killed", "started", 1, "exit_code",
                                         "signal", 9, "timed_out", 0));
  json_array_append_new(steps, json_pack("{s:s,s:b,s:n}", "name", "never",
                                         "started", 0, "exit_code"));
  ASSERT_EQ(cm_json_dump_file(m, p, JSON_INDENT(2)), 0);
  json_decref(m);
  ASSERT_OK(rp_run_load(d, &run));
  for (i = 0; i < run.nstages; i++)
    for (j = 0; j < run.stages[i].nsteps; j++) {
      const rp_item *it = &run.stages[i].steps[j];
      ASSERT_TRUE(strstr(it->status, "-1") == NULL);
      if (strcmp(it->name, "slow") == 0)
        seen += strcmp(it->status, "timed out") == 0;
      if (strcmp(it->name, "killed") == 0)
        seen += strcmp(it->status, "killed by signal 9") == 0;
      if (strcmp(it->name, "never") == 0)
        seen += strcmp(it->status, "not started") == 0;
    }
  ASSERT_EQ(seen, 3);
  rp_run_free(&run);
  return 0;
}

/* Values a results file leaves null, and numbers too large for fixed
 * notation: "SM nan MHz", "-1 SMs" and "runtime -1" became "unknown"/"n/a",
 * and 1e300 s, cut to 31 digits, read as about 1e30. */
TEST_IMPL(env_rows_unknowns) {
  char d[512], buf[64];
  rp_run run;
  rp__kv rows[RP__ENV_ROWS];
  size_t n, i;
  int checked = 0;
  ASSERT_STR_EQ(rp__fmt(buf, sizeof buf, 2, 1e300), "1e+300");
  ASSERT_STR_EQ(rp__fmt(buf, sizeof buf, 2, 2048.5), "2048.50");
  ASSERT_STR_EQ(rp__fmt(buf, sizeof buf, 2, NAN), "n/a");
  ASSERT_EQ(make("envunknown", d, sizeof d), 0);
  ASSERT_OK(rp_run_load(d, &run));
  ASSERT_TRUE(run.nclean > 0);
  run.clean[0].sm_clock_mhz = NAN;
  run.clean[0].mem_clock_mhz = NAN;
  run.clean[0].sm_count = -1;
  run.clean[0].cuda_runtime = -1;
  run.clean[0].cuda_driver = -1;
  run.clean[0].compute_capability[0] = '\0';
  n = rp__env_rows(&run, rows);
  for (i = 0; i < n; i++) {
    ASSERT_TRUE(strstr(rows[i].value, "nan") == NULL);
    ASSERT_TRUE(strstr(rows[i].value, "-1") == NULL);
    if (strcmp(rows[i].key, "clocks") == 0)
      checked +=
          strcmp(rows[i].value, "SM n/a MHz, memory n/a MHz (peak)") == 0;
    if (strcmp(rows[i].key, "CUDA") == 0)
      checked +=
          strcmp(rows[i].value, "runtime unknown, driver API unknown") == 0;
  }
  ASSERT_EQ(checked, 2);
  rp_run_free(&run);
  return 0;
}

TEST_IMPL(report_without_manifest) {
  char d[512], p[1024];
  char *argv[] = {"report", d, NULL};
  char *html;
  ASSERT_EQ(make("nomanifest", d, sizeof d), 0);
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s/manifest.json", d));
  ASSERT_EQ(remove(p), 0);
  ASSERT_EQ(rp_report_main(2, argv, NULL), 0);
  html = slurp(d, "report.html");
  ASSERT_TRUE(html != NULL);
  ASSERT_CONTAINS(html, "not bound to an archive");
  ASSERT_CONTAINS(html, "<p>No resource table is recorded: the run has no "
                        "manifest.</p>");
  /* No stages without a manifest: three charts (no timeline). */
  ASSERT_EQ(count(html, "<svg class=\"chart\""), 3);
  free(html);
  ASSERT_EQ(plat_path_exists(p), 0);
  {
    char *bad[] = {"report", "/nonexistent/run", NULL};
    char *usage[] = {"report", "--bogus", NULL};
    char empty[600], *not_run[] = {"report", empty, NULL};
    ASSERT_EQ(rp_report_main(2, bad, NULL), 1);
    ASSERT_EQ(rp_report_main(2, usage, NULL), 2);
    /* A folder with neither a manifest nor results is not a run: refused,
     * and nothing is written into it. */
    ASSERT_OK(cm_snprintf(empty, sizeof empty, "%s/not-a-run", d));
    ASSERT_OK(plat_mkdir_p(empty));
    ASSERT_EQ(rp_report_main(2, not_run, NULL), 1);
    ASSERT_OK(cm_snprintf(p, sizeof p, "%s/report.html", empty));
    ASSERT_EQ(plat_path_exists(p), 0);
  }
  {
    /* A file (a bundle, a results JSON) is named as a file, with the fix;
     * before, it was "no such file or directory". */
    rp_report_opts ro;
    char msg[1200];
    memset(&ro, 0, sizeof ro);
    ASSERT_OK(cm_snprintf(p, sizeof p, "%s/report.html", d));
    ASSERT_EQ(rp_report_write(p, &ro, msg, sizeof msg), CM_EINVAL);
    ASSERT_CONTAINS(msg, "is a file, not a run folder");
    ASSERT_CONTAINS(msg, "tar xzf");
  }
  return 0;
}

#define FLAGS                                                                  \
  "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "       \
  "--disable-background-networking --disable-component-update "                \
  "--disable-sync --disable-dev-shm-usage --enable-logging=stderr --v=0 "

/* Finds Debian's chromium; 0 if absent (the caller skips, saying so). */
static int find_chromium(char *exe, size_t size) {
  const char *candidates[] = {"chromium", "chromium-browser", NULL};
  int i;
  for (i = 0; candidates[i] != NULL; i++)
    if (plat_find_executable(candidates[i], NULL, exe, size) == CM_OK)
      return 1;
  fprintf(stderr, "chromium not found: run scripts/setup-deps.sh "
                  "--with-report to install it; skipping\n");
  return 0;
}

/* Renders <d>/report.html in headless Chromium: the page's own check must
 * put "charts-ok:N" in the title with N >= min_charts (every chart drew),
 * the console must be free of errors, and a screenshot must come out (to
 * keep_png when not NULL, else into d). Returns 0 or a test failure. */
static int render_and_check(const char *exe, const char *d, int min_charts,
                            const char *keep_png) {
  char cmd[4096], dom[1024], log[1024], png[1024], prof[1024];
  char *text, *err, *t;
  size_t len;
  ASSERT_OK(cm_snprintf(dom, sizeof dom, "%s/dom.html", d));
  ASSERT_OK(cm_snprintf(log, sizeof log, "%s/chromium.log", d));
  ASSERT_OK(cm_snprintf(png, sizeof png, "%s/shot.png", d));
  ASSERT_OK(cm_snprintf(prof, sizeof prof, "%s/profile", d));
  ASSERT_OK(cm_snprintf(cmd, sizeof cmd,
                        "'%s' " FLAGS "--user-data-dir='%s' --dump-dom "
                        "'file://%s/report.html' > '%s' 2> '%s'",
                        exe, prof, d, dom, log));
  ASSERT_EQ(system(cmd), 0);
  ASSERT_OK(cm_read_file(dom, &text, &len));
  t = strstr(text, "<title>charts-ok:");
  ASSERT_TRUE(t != NULL);
  ASSERT_GE(strtol(t + strlen("<title>charts-ok:"), NULL, 10), min_charts);
  free(text);
  ASSERT_OK(cm_read_file(log, &err, &len));
  ASSERT_TRUE(strstr(err, "Uncaught") == NULL);
  ASSERT_TRUE(strstr(err, ":CONSOLE(") == NULL);
  free(err);
  ASSERT_OK(cm_snprintf(cmd, sizeof cmd,
                        "'%s' " FLAGS "--user-data-dir='%s' "
                        "--hide-scrollbars --window-size=1400,3000 "
                        "--screenshot='%s' 'file://%s/report.html' "
                        ">> '%s' 2>&1",
                        exe, prof, keep_png ? keep_png : png, d, log));
  ASSERT_EQ(system(cmd), 0);
  ASSERT_OK(cm_read_file(keep_png ? keep_png : png, &text, &len));
  ASSERT_TRUE(len > 10000);
  ASSERT_TRUE(memcmp(text, "\x89PNG", 4) == 0);
  free(text);
  return 0;
}

/* The synthetic run's report: exactly its 4 charts draw. Set
 * CP_REPORT_SCREENSHOT to keep the PNG somewhere. */
TEST_IMPL(chromium_render) {
  char exe[1024], d[512];
  char *argv[] = {"report", d, "--no-finish", NULL};
  if (!find_chromium(exe, sizeof exe))
    return TEST_SKIP;
  ASSERT_EQ(make("chromium", d, sizeof d), 0);
  ASSERT_EQ(rp_report_main(3, argv, NULL), 0);
  return render_and_check(exe, d, 4, getenv("CP_REPORT_SCREENSHOT"));
}

/* The committed H200 run (results/h200/<run-id>.tar.gz): unpacked with tar,
 * its report rewritten by this build's code from the real manifest and
 * results, rendered: every chart must draw, at least three. The current run
 * timed softmax bf16 (--select), so its charts are bandwidth against the
 * copy ceiling, the box plots and the stage timeline (v17b's run timed
 * row_sum bf16, the same charts; runs v4-v15 timed matmul bf16: TFLOP/s
 * against cuBLAS in place of the first). Set
 * CP_REPORT_H200_SCREENSHOT to keep the PNG (docs/report-h200.png is
 * one). */
TEST_IMPL(chromium_render_h200) {
  char exe[1024], d[512], cmd[2048], run[1024], tarx[1024];
  const char *bundle = CP_EVIDENCE_BUNDLE;
  const char *base, *end;
  char *argv[] = {"report", run, "--no-finish", NULL};
  if (bundle[0] == '\0') {
    printf("skip: no committed bundle under results/\n");
    return TEST_SKIP;
  }
  if (!find_chromium(exe, sizeof exe))
    return TEST_SKIP;
  if (plat_find_executable("tar", NULL, tarx, sizeof tarx) != CM_OK) {
    printf("skip: tar not found to unpack %s\n", bundle);
    return TEST_SKIP;
  }
  ASSERT_OK(cm_snprintf(d, sizeof d, "%s/h200", cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(d));
  ASSERT_OK(
      cm_snprintf(cmd, sizeof cmd, "'%s' -xzf '%s' -C '%s'", tarx, bundle, d));
  ASSERT_EQ(system(cmd), 0);
  base = strrchr(bundle, '/');
  base = base != NULL ? base + 1 : bundle;
  end = strstr(base, ".tar.gz");
  ASSERT_TRUE(end != NULL);
  ASSERT_OK(
      cm_snprintf(run, sizeof run, "%s/%.*s", d, (int)(end - base), base));
  ASSERT_EQ(rp_report_main(3, argv, NULL), 0);
  return render_and_check(exe, run, 3, getenv("CP_REPORT_H200_SCREENSHOT"));
}
