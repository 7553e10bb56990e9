/* report_fixture.h: fabricated but schema-shaped results JSON and run
 * folders for the report and compare tests (the shape of
 * src/portfolio/pf_json.c's document and of the engine's manifest). The
 * lead adds a real H200 run later; these keep the tests independent of it.
 */
#ifndef REPORT_FIXTURE_H
#define REPORT_FIXTURE_H

#include <jansson.h>

typedef struct {
  int instrumented; /* the document's "instrumented" flag */
  const char *os;   /* "linux", "wsl", "windows" */
  const char *gpu;  /* GPU name */
  const char *cc;   /* compute capability "9.0" */
  double scale;     /* every sample multiplied by this */
  unsigned seed;    /* noise generator seed */
  int nsamples;     /* samples per case */
  int fail_case;    /* index of a case whose correctness failed, -1 */
} fx_opts;

/* Defaults: clean, linux, "NVIDIA H200", "9.0", scale 1, seed 1, 40
 * samples, no failing case. */
void fx_opts_init(fx_opts *o);

/* A results document with four cases (two memory-bound, two matmul with a
 * cuBLAS peer). New reference. */
json_t *fx_results(const fx_opts *o);

/* Writes fx_results(o) to path. Returns 0 on success. */
int fx_write_results(const char *path, const fx_opts *o);

/* Makes a run folder at dir: manifest.json (status "complete", stages with
 * every status, a sanitize stage with findings and a caught negative
 * control, an inspect stage with a resource table), results/clean/time.json
 * and results/instrumented/profile.json. Returns 0 on success. */
int fx_make_run(const char *dir);

#endif
