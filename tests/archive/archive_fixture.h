/* archive_fixture.h: helpers shared by the archive test suites.
 *
 * A fixture run folder is made fresh per test under the suite's tmp folder;
 * external tools (gzip, sha256sum, tar) are run as child processes through
 * libuv so that the tests check the archive against independent readers.
 */
#ifndef ARCHIVE_FIXTURE_H
#define ARCHIVE_FIXTURE_H

#include <stddef.h>

/* Makes an empty folder <tmpdir>/<name> (removing an old one) into out. */
int fx_fresh_dir(const char *name, char *out, size_t size);
/* Writes / reads a whole file with stdio (test side, independent of the
 * library under test). fx_read returns a malloc'd, NUL-terminated buffer or
 * NULL; *len may be NULL. */
int fx_write(const char *path, const void *data, size_t len);
char *fx_read(const char *path, size_t *len);
/* Flips the bits of the byte at offset (keeps the size). 0 on success. */
int fx_flip_byte(const char *path, long offset);
/* Cuts the file to len bytes. 0 on success. */
int fx_truncate(const char *path, size_t len);
/* Makes a small run folder with two gzip logs (one of them under a path
 * long enough to need the ustar prefix field), a plain text file and a
 * clean results JSON, then finishes its manifest. 0 on success. */
int fx_make_run(const char *dir);
/* Runs argv[0] (searched on PATH) with cwd (may be NULL) and stdout sent to
 * out_path (may be NULL: inherited). Returns the exit status, or -1 if the
 * program could not be started (not installed). */
int fx_spawn(const char *const *argv, const char *cwd, const char *out_path);

#endif
