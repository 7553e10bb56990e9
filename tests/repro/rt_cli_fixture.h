/* rt_cli_fixture.h: the real repro executable run against a fake
 * repository root, for the suites that test repro end to end
 * (test_repro_cli, test_repro_interrupt). Compiled into each suite, whose
 * target defines RP_REPRO_EXE (the repro under test) and RP_FAKE_PF_EXE
 * (rt_fake_portfolio, copied in as cuda_portfolio). Portable, as
 * rp_test_util.h. */
#ifndef RT_CLI_FIXTURE_H
#define RT_CLI_FIXTURE_H

#include "rp_runner.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The executable suffix of this build's programs ("" or ".exe"), taken
 * from the fake's own file name. */
const char *rt_exe_suffix(void);

/* TEST_SKIP (77, with a line saying why) when repro would not find
 * cuda_portfolio<suffix> in a build folder: rp_build_bin must name the
 * file as the OS spells it. 0 if it does, -1 on an error. */
int rt_engine_names_exe(void);

/* Makes <tmp>/<name>-.../root with env/{test,time}.contract (no device
 * needed, short timeouts) and build/linux/bin/cuda_portfolio (the fake,
 * copied); the root's path into root[size]. 0 on success. */
int rt_make_root(const char *name, char *root, size_t size);

/* Runs repro with args (after --root ROOT --out ROOT/logs) and extra_env
 * (NAME=value words, at most 7, replacing inherited ones), its stdout
 * captured into res (rp_step_run's contract: the caller frees res). */
int rt_run_repro(const char *root, const char *const *args,
                 const char *const *extra_env, rp_step_result *res);

/* RUN/manifest.json, parsed (the caller owns it), or NULL. */
json_t *rt_load_manifest_at(const char *run);

/* The manifest of the one run under ROOT/logs, its folder into run[size];
 * NULL when there is none. */
json_t *rt_load_manifest(const char *root, char *run, size_t size);

/* The record of stage name in manifest m (borrowed), or NULL. */
json_t *rt_stage(json_t *m, const char *name);

/* The string member key of o, or "(null)" (never NULL, for ASSERT_STR_EQ). */
const char *rt_str(json_t *o, const char *key);

/* repro ARGS under ENV in a fresh root NAME: its manifest when it exited
 * with want (run gets the run folder), else NULL. */
json_t *rt_repro_manifest(const char *name, const char *const *args,
                          const char *const *env, int64_t want, char *run,
                          size_t size);

#endif
