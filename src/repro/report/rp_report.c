/* rp_report.c: writes the report files into a run and binds them to its
 * manifest (see rp_report.h). */
#include "rp_report.h"
#include "cm_file.h"

#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(RP_REPORT_HAVE_ARCHIVE)
#include "rp_archive.h"
#endif

/* Temporary name, then rename: a reader never sees half a report. */
static int write_atomic(const char *dir, const char *name, const char *text) {
  char path[2048];
  int r = cm_snprintf(path, sizeof path, "%s/%s", dir, name);
  return r != CM_OK ? r : plat_write_file_atomic(path, text, strlen(text));
}

static int refinish(const char *dir) {
#if defined(RP_REPORT_HAVE_ARCHIVE)
  char path[2048];
  json_error_t je;
  json_t *m;
  int r = cm_snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (r != CM_OK)
    return r;
  m = cm_json_load_file(path, 0, &je);
  if (m == NULL)
    return CM_EPARSE;
  r = rp_manifest_finish(dir, m);
  json_decref(m);
  return r;
#else
  (void)dir;
  return CM_ENOTSUP;
#endif
}

/* The re-finish hashes every file of the folder into the manifest: on a
 * folder that no longer verifies (a results file edited after the run), it
 * would bind the change and make the tampered run verify again. */
int rp_report_check(const char *dir, char *msg, size_t size) {
#if defined(RP_REPORT_HAVE_ARCHIVE)
  rp_verify_result vr;
  char path[2048];
  int r;
  msg[0] = '\0';
  if (cm_snprintf(path, sizeof path, "%s/manifest.json", dir) != CM_OK ||
      !plat_path_exists(path))
    return CM_OK; /* nothing to bind to */
  memset(&vr, 0, sizeof vr);
  r = rp_verify(dir, &vr);
  if (r == CM_OK && vr.ok)
    return CM_OK;
  cm_snprintf(msg, size,
              "%s does not verify (%s): a report would re-hash the changed "
              "files into its manifest and hide the change, so none was "
              "written (repro verify %s names it; to read the run anyway, "
              "report a copy without its manifest.json)",
              dir, vr.problem[0] ? vr.problem : cm_strerror(r), dir);
  return CM_EMISMATCH;
#else
  (void)dir;
  msg[0] = '\0';
  (void)size;
  return CM_OK;
#endif
}

int rp_report_write(const char *dir, const rp_report_opts *o, char *msg,
                    size_t size) {
  rp_run run;
  char *md = NULL, *html = NULL, *junit = NULL, *sarif = NULL;
  int r, charts = 0;
  msg[0] = '\0';
  /* A bundle or a results file is the likely slip: say what to do. */
  if (plat_path_exists(dir) && !plat_path_is_dir(dir)) {
    cm_snprintf(msg, size,
                "%s is a file, not a run folder: report writes into the run "
                "folder it reads (for a bundle: tar xzf %s -C DIR, then "
                "repro report DIR/<run-id>; `repro verify` and `repro "
                "compare` read bundles as they are)",
                dir, dir);
    return CM_EINVAL;
  }
  r = rp_run_load(dir, &run);
  if (r != CM_OK) {
    cm_snprintf(msg, size, "cannot read run %s: %s", dir, cm_strerror(r));
    rp_run_free(&run);
    return r;
  }
  /* Nothing to report: not a run folder. Say so instead of writing a
   * report of nothing into an arbitrary folder. */
  if (!run.have_manifest && run.nclean == 0 && run.ninstrumented == 0) {
    cm_snprintf(msg, size,
                "%s is not a run folder: it has no manifest.json and no "
                "results/clean or results/instrumented JSON (give a "
                "logs/<run-id> folder)",
                dir);
    rp_run_free(&run);
    return CM_ENOENT;
  }
  if (run.have_manifest && !o->no_finish && !o->just_finished &&
      (r = rp_report_check(dir, msg, size)) != CM_OK) {
    rp_run_free(&run);
    return r;
  }
  r = rp_report_markdown(&run, &md);
  if (r == CM_OK)
    r = rp_report_html(&run, &html, &charts);
  if (r == CM_OK && o->junit)
    r = rp_report_junit(&run, &junit);
  if (r == CM_OK && o->sarif)
    r = rp_report_sarif(&run, &sarif);
  if (r == CM_OK)
    r = write_atomic(dir, "report.md", md);
  if (r == CM_OK)
    r = write_atomic(dir, "report.html", html);
  if (r == CM_OK && junit != NULL)
    r = write_atomic(dir, "report.junit.xml", junit);
  if (r == CM_OK && sarif != NULL)
    r = write_atomic(dir, "sanitizer.sarif", sarif);
  if (r != CM_OK) {
    cm_snprintf(msg, size, "cannot write the report into %s: %s", dir,
                cm_strerror(r));
  } else if (run.have_manifest && !o->no_finish) {
    r = refinish(dir);
    if (r == CM_ENOTSUP)
      cm_snprintf(msg, size,
                  "report written to %s (%d charts) but NOT bound: this "
                  "build has no archive library to re-finish the manifest",
                  dir, charts);
    else if (r != CM_OK)
      cm_snprintf(msg, size,
                  "report written to %s but the manifest could not be "
                  "re-finished: %s",
                  dir, cm_strerror(r));
    else
      cm_snprintf(msg, size,
                  "report written to %s (%d charts); manifest re-finished "
                  "with its SHA-256",
                  dir, charts);
  } else {
    cm_snprintf(msg, size, "report written to %s (%d charts)%s", dir, charts,
                run.have_manifest ? "" : "; no manifest to bind it to");
  }
  free(md);
  free(html);
  free(junit);
  free(sarif);
  rp_run_free(&run);
  return r;
}
