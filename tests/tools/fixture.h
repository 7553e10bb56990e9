/* fixture.h: loading the real tool captures in tests/fixtures/tools/.
 *
 * A fixture still holding its placeholder (every line starts with '#': the
 * "# CAPTURE: <command>" line that says how to capture it on the GPU
 * machine) makes the test skip with 77 and print why.
 */
#ifndef TOOLS_FIXTURE_H
#define TOOLS_FIXTURE_H

#include <stddef.h>

/* Loads tests/fixtures/tools/<name> into a malloc'd NUL-terminated buffer.
 * Returns 0 on success, 77 (after printing the capture command) when it is
 * a placeholder, 1 when it cannot be read. */
int fx_load(const char *name, char **text, size_t *len);

/* Loads tests/fixtures/h200-probe/<name> (the probe program's captures,
 * never placeholders) into a malloc'd NUL-terminated buffer. Returns 0, or
 * 1 (after printing why) when it cannot be read: a missing capture fails. */
int fx_load_probe(const char *name, char **text, size_t *len);

/* Loads a probe capture or fails the calling test. */
#define FX_PROBE(name, text, len)                                              \
  do {                                                                         \
    if (fx_load_probe((name), (text), (len)) != 0)                             \
      return 1;                                                                \
  } while (0)

/* The N of a "# exit N" line the capture commands append, or -1. */
int fx_exit_code(const char *text);

/* Loads a fixture or returns from the calling test with its skip/fail. */
#define FX_LOAD(name, text, len)                                               \
  do {                                                                         \
    int fx_rc_ = fx_load((name), (text), (len));                               \
    if (fx_rc_ != 0)                                                           \
      return fx_rc_;                                                           \
  } while (0)

#endif
