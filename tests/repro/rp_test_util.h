/* rp_test_util.h: small helpers shared by the repro test suites (test side,
 * independent of the code under test where it matters: files are written
 * and read with stdio, gzip logs are read back with zlib directly).
 *
 * Portable: libuv and platform.h underneath, so that the suites that use
 * them build and run unchanged on POSIX and on Windows (under Wine in CI).
 * Paths are UTF-8 with '/' separators (Windows accepts both). */
#ifndef RP_TEST_UTIL_H
#define RP_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* What rt_fake_portfolio's json_malformed mode writes as its results file
 * (a results document cut off inside "cases"), for the tests to compare. */
#define RT_MALFORMED_JSON                                                      \
  "{\"schema_version\": 1, \"instrumented\": false, \"cases\": ["

/* A fresh folder <suite tmp>/<name>-<pid>-<k> (created, k the first free
 * number) into out, removed with what is in it once the test passes or is
 * skipped (the first 32 a test makes); a failing test's stay. 0 on
 * success. */
int rt_fresh_dir(const char *name, char *out, size_t size);
/* Removes path and everything under it, not following links; a folder
 * whose mode keeps its entries (a test's unwritable one) and a read-only
 * file (Windows) are made writable first. 0 (also when path is absent), or
 * the first libuv error. */
int rt_remove_tree(const char *path);
/* Writes a whole file; 0 on success. mode 0755 when exec is 1 (POSIX; a
 * no-op for executability on Windows). */
int rt_write(const char *path, const char *text, int exec);
/* Reads a whole file into a malloc'd NUL-terminated buffer (NULL on
 * failure); *len may be NULL. */
char *rt_read(const char *path, size_t *len);
/* Decompresses a gzip file with zlib; bytes -> *n, and the count of bytes
 * equal to `expect` -> *n_expect. 0 on success. */
int rt_gunzip_count(const char *path, uint64_t *n, uint64_t *n_expect,
                    char expect);
/* The first entry of dir that does not end in ".tar.gz" and is not "." or
 * "..": the run folder a repro run made under --out dir. 0 on success. */
int rt_find_run(const char *dir, char *out, size_t size);

/* Sleeps ms milliseconds (uv_sleep). */
void rt_sleep_ms(unsigned ms);
/* Sets NAME=value in this process's environment (uv_os_setenv, which on
 * Windows also updates what child processes inherit). 0 on success. */
int rt_setenv(const char *name, const char *value);
/* This process's id. */
long rt_getpid(void);
/* Copies a file, replacing to. 0 on success. */
int rt_copy_file(const char *from, const char *to);

#endif
