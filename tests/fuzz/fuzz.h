/* fuzz.h: the fuzz targets' one entry point and the helpers they share.
 *
 * Every fuzz_*.c defines LLVMFuzzerTestOneInput for one parser that reads
 * what repro does not control: a bundle handed to `repro verify`, a
 * manifest or results file handed to `report` and `compare`, a contract in
 * env/, and the NVIDIA tools' console output. The same file links two
 * ways (tests/fuzz/CMakeLists.txt): with libFuzzer under clang (the
 * linux-fuzz preset) to search for inputs, and with replay.c everywhere
 * else, where ctest runs it over the seeds and over every input that once
 * crashed (tests/fuzz/regress/), so a fixed crash stays fixed in the
 * ordinary build and under linux-asan. docs/REPRO.md, "Fuzzing its
 * readers".
 *
 * A target asserts what must hold for any input (FUZZ_CHECK): a crash, a
 * leak or a broken invariant is a finding; an error return is not.
 */
#ifndef CP_FUZZ_H
#define CP_FUZZ_H

#include "cm_error.h"
#include "cm_utf8.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 once an allocation has been made to fail during this input: the
 * allocation-failure build (oom.c, FUZZ_OOM) defines it; elsewhere nothing
 * fails on purpose. Only an invariant that states an allocation's success
 * asks it. */
#ifdef FUZZ_OOM
int fuzz_oom_failed(void);
#else
static inline int fuzz_oom_failed(void) {
  return 0;
}
#endif

/* An invariant every input must keep; abort() so that libFuzzer and the
 * replay driver both report it with the input that broke it. */
#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,     \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* data[0..size) as a malloc'd NUL-terminated string (NULL when out of
 * memory: the target then returns). Parsers that take (text, len) get the
 * exact bytes; those that take a C string see the text up to the first
 * NUL. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (s != NULL) {
    if (size > 0)
      memcpy(s, data, size);
    s[size] = '\0';
  }
  return s;
}

/* The targets that take options read them from a leading selector byte,
 * but only when that byte is below 8: a real file (a tar, a gzip member,
 * JSON, text) never starts so, so the committed real files serve as seeds
 * as they are. Returns the selector, or -1 (defaults) and leaves the input
 * whole. */
static inline int fuzz_selector(const uint8_t **data, size_t *size) {
  int sel;
  if (*size == 0 || (*data)[0] >= 8)
    return -1;
  sel = (*data)[0];
  (*data)++;
  (*size)--;
  return sel;
}

/* 1 if s[0..size) is NUL-terminated within size bytes. */
static inline int fuzz_terminated(const char *s, size_t size) {
  return memchr(s, '\0', size) != NULL;
}

/* 1 if s (NUL-terminated) is one line a terminal shows as text: UTF-8,
 * no control character (C0, DEL, C1). What repro prints of a file it does
 * not control must be (cm_text_oneline). */
static inline int fuzz_printable(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strlen(s), i = 0;
  while (i < n) {
    size_t k = cm_utf8_seq(u + i, n - i);
    if (k == 0 || (k == 1 && (u[i] < 0x20 || u[i] == 0x7F)) ||
        (k == 2 && u[i] == 0xC2 && u[i + 1] < 0xA0))
      return 0;
    i += k;
  }
  return 1;
}

/* The JSON a reader made of its input (a new reference, NULL when out of
 * memory) serialises: no NaN or infinity slipped in where null belongs.
 * The reference is released here. */
static inline void fuzz_json_serialises(json_t *js) {
  if (js != NULL) {
    char *dump = json_dumps(js, JSON_COMPACT);
    FUZZ_CHECK(dump != NULL || fuzz_oom_failed());
    free(dump);
  }
  json_decref(js);
}

/* A growing byte buffer, filled through fuzz_buf_add, which has the shape
 * of rp__gz_sink: what gzip compresses or gunzip restores lands in it.
 * max > 0 refuses more than max bytes (CM_ERANGE). */
typedef struct {
  unsigned char *p; /* malloc'd; the target frees it */
  size_t n, cap, max;
} fuzz_buf;

static inline int fuzz_buf_add(void *ud, const unsigned char *data,
                               size_t len) {
  fuzz_buf *b = (fuzz_buf *)ud;
  if (b->max > 0 && b->n + len > b->max)
    return CM_ERANGE;
  if (b->n + len > b->cap) {
    size_t cap = (b->n + len) * 2 + 4096;
    unsigned char *p = (unsigned char *)realloc(b->p, cap);
    if (p == NULL)
      return CM_ENOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, len);
  b->n += len;
  return CM_OK;
}

#endif
