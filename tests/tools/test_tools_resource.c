/* Tests of rp_resource_parse: ptxas -v output captured here from the
 * project's own kernels, cuobjdump --dump-resource-usage captured on the
 * H200 (tests/fixtures/tools/). */
/* popen for running c++filt. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "fixture.h"
#include "rp_resource_parse.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts lines of text containing needle: an independent tally to compare
 * the parser's results with. */
static size_t count_lines_with(const char *text, const char *needle) {
  size_t n = 0;
  const char *p = text;
  while ((p = strstr(p, needle)) != NULL) {
    n++;
    p = strchr(p, '\n');
    if (p == NULL)
      break;
  }
  return n;
}

/* Property lines whose spill bytes are not both zero. */
static size_t count_spilling(const char *text) {
  size_t n = 0;
  const char *p = text;
  while ((p = strstr(p, "bytes stack frame,")) != NULL) {
    const char *eol = strchr(p, '\n');
    const char *st = strstr(p, "bytes spill stores");
    const char *ld = strstr(p, "bytes spill loads");
    if (st != NULL && ld != NULL && (eol == NULL || ld < eol) &&
        (!(st[-2] == '0' && st[-3] == ' ') ||
         !(ld[-2] == '0' && ld[-3] == ' ')))
      n++; /* "N bytes": N is not a lone "0" */
    if (eol == NULL)
      break;
    p = eol;
  }
  return n;
}

static const rp_kernel_res *find_row(const rp_res_table *t, const char *part) {
  size_t i;
  for (i = 0; i < t->count; i++)
    if (strstr(t->rows[i].mangled, part) != NULL)
      return &t->rows[i];
  return NULL;
}

TEST_IMPL(res_ptxas_real) {
  char *text;
  size_t len, i;
  rp_res_table t;
  FX_LOAD("ptxas_kernels_sm90.txt", &text, &len);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_ptxas(text, len, &t));
  ASSERT_GT(t.count, 0);
  ASSERT_EQ(t.count, count_lines_with(text, "Compiling entry function"));
  for (i = 0; i < t.count; i++) {
    const rp_kernel_res *r = &t.rows[i];
    ASSERT_STR_EQ(r->arch, "sm_90");
    ASSERT_GT(r->registers, 0);
    ASSERT_GE(r->stack_frame, 0);
    ASSERT_GE(r->spill_stores, 0);
    ASSERT_GE(r->spill_loads, 0);
    ASSERT_GE(r->barriers, 0);
    ASSERT_EQ(r->sources, RP_RES_FROM_PTXAS);
  }
  ASSERT_EQ(rp_res_spilling(&t), count_spilling(text));
  ASSERT_TRUE(find_row(&t, "copy_unmasked") != NULL);
  rp_res_table_free(&t);
  free(text);
  return 0;
}

/* The text and JSON views carry every row and flag exactly the spills. */
TEST_IMPL(res_table_views) {
  char *text, *out;
  size_t len, i, spilling = 0;
  rp_res_table t;
  json_t *j;
  FX_LOAD("ptxas_kernels_sm90.txt", &text, &len);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_ptxas(text, len, &t));
  ASSERT_OK(rp_res_table_text(&t, &out));
  ASSERT_EQ(count_lines_with(out, "sm_90 "), t.count);
  ASSERT_EQ(count_lines_with(out, "SPILLS") - 1 /* the header sentence */,
            rp_res_spilling(&t));
  j = rp_res_table_json(&t);
  ASSERT_TRUE(json_is_array(j));
  ASSERT_EQ(json_array_size(j), t.count);
  for (i = 0; i < t.count; i++) {
    json_t *o = json_array_get(j, i);
    ASSERT_EQ(json_integer_value(json_object_get(o, "registers")),
              t.rows[i].registers);
    ASSERT_STR_EQ(json_string_value(json_object_get(o, "mangled")),
                  t.rows[i].mangled);
    spilling += json_is_true(json_object_get(o, "spills")) ? 1 : 0;
  }
  ASSERT_EQ(spilling, rp_res_spilling(&t));
  json_decref(j);
  free(out);
  rp_res_table_free(&t);
  free(text);
  return 0;
}

/* Demangling via the real c++filt (skipped where it is not installed): its
 * answer is applied row by row; a wrong line count is refused. */
TEST_IMPL(res_demangle_cxxfilt) {
#if defined(_WIN32)
  return TEST_SKIP;
#else
  char *text;
  size_t len, n, i, used = 0;
  rp_res_table t;
  static const char *names[1024];
  static char cmd[262144], out[262144];
  FILE *p;
  FX_LOAD("ptxas_kernels_sm90.txt", &text, &len);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_ptxas(text, len, &t));
  n = rp_res_mangled_names(&t, names, 1024);
  ASSERT_GT(n, 0);
  ASSERT_OK(cm_snprintf(cmd, sizeof cmd, "c++filt"));
  for (i = 0; i < n; i++) {
    size_t k = strlen(cmd);
    ASSERT_OK(cm_snprintf(cmd + k, sizeof cmd - k, " '%s'", names[i]));
  }
  p = popen(cmd, "r");
  if (p == NULL) {
    printf("skip: c++filt not available\n");
    return TEST_SKIP;
  }
  used = fread(out, 1, sizeof out - 1, p);
  out[used] = '\0';
  if (pclose(p) != 0 || used == 0) {
    printf("skip: c++filt not available\n");
    return TEST_SKIP;
  }
  /* One line short: refused, nothing applied. */
  {
    size_t cut = used;
    if (cut > 0 && out[cut - 1] == '\n')
      cut--;
    while (cut > 0 && out[cut - 1] != '\n')
      cut--;
    ASSERT_EQ(rp_res_apply_demangled(&t, out, cut), CM_EPARSE);
    ASSERT_STR_EQ(t.rows[0].readable, "");
  }
  ASSERT_OK(rp_res_apply_demangled(&t, out, used));
  for (i = 0; i < t.count; i++) {
    if (strncmp(t.rows[i].mangled, "_Z", 2) != 0)
      continue;
    ASSERT_TRUE(t.rows[i].readable[0] != '\0');
    ASSERT_TRUE(strcmp(t.rows[i].readable, t.rows[i].mangled) != 0);
  }
  ASSERT_TRUE(find_row(&t, "copy_unmasked") != NULL);
  ASSERT_CONTAINS(find_row(&t, "copy_unmasked")->readable, "copy_unmasked");
  rp_res_table_free(&t);
  free(text);
  return 0;
#endif
}

TEST_IMPL(res_cuobjdump_real) {
  char *text;
  size_t len, i, sm90 = 0;
  rp_res_table t;
  FX_LOAD("cuobjdump_resource_usage.txt", &text, &len);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_cuobjdump(text, len, &t));
  ASSERT_GT(t.count, 0);
  for (i = 0; i < t.count; i++) {
    const rp_kernel_res *r = &t.rows[i];
    ASSERT_GE(r->registers, 0);
    ASSERT_GE(r->shared, 0);
    ASSERT_GE(r->local, 0);
    ASSERT_EQ(r->sources, RP_RES_FROM_CUOBJDUMP);
    sm90 += strcmp(r->arch, "sm_90") == 0 ? 1 : 0;
  }
  ASSERT_GT(sm90, 0);
  ASSERT_TRUE(find_row(&t, "copy_unmasked") != NULL);
  rp_res_table_free(&t);
  free(text);
  return 0;
}

/* Drops the anonymous-namespace hash ("_GLOBAL__N__d85400ed_"), which
 * depends on the path the file was compiled from. */
static void normalise(const char *in, char *out, size_t size) {
  const char *g = strstr(in, "_GLOBAL__N__");
  size_t o = 0;
  if (g == NULL) {
    cm_strlcpy(out, in, size);
    return;
  }
  while (in < g && o + 1 < size)
    out[o++] = *in++;
  in = g + strlen("_GLOBAL__N__");
  while (*in && *in != '_')
    in++;
  while (*in && o + 1 < size)
    out[o++] = *in++;
  out[o] = '\0';
}

/* ptxas (here) and cuobjdump (on the H200) see the same sm_90 code: both
 * list the same sm_90 kernels, and the registers and shared memory of each
 * must agree. */
TEST_IMPL(res_ptxas_matches_cuobjdump) {
  char *pt, *cu;
  size_t plen, clen, i, j, common = 0, cu90 = 0;
  rp_res_table a, b;
  FX_LOAD("cuobjdump_resource_usage.txt", &cu, &clen);
  FX_LOAD("ptxas_kernels_sm90.txt", &pt, &plen);
  rp_res_table_init(&a);
  rp_res_table_init(&b);
  ASSERT_OK(rp_res_parse_ptxas(pt, plen, &a));
  ASSERT_OK(rp_res_parse_cuobjdump(cu, clen, &b));
  for (i = 0; i < a.count; i++) {
    char na[512], nb[512];
    normalise(a.rows[i].mangled, na, sizeof na);
    for (j = 0; j < b.count; j++) {
      if (strcmp(b.rows[j].arch, "sm_90") != 0)
        continue;
      normalise(b.rows[j].mangled, nb, sizeof nb);
      if (strcmp(na, nb) != 0)
        continue;
      common++;
      ASSERT_EQ(a.rows[i].registers, b.rows[j].registers);
      /* cuobjdump's SHARED includes the 1 KiB per block the driver
       * reserves on sm_80+ for a kernel using shared memory (seen on the
       * H200 probe: ptxas 1024 bytes smem, cuobjdump SHARED:2048). ptxas
       * counts static shared memory only, so a kernel whose shared memory
       * is all dynamic (softmax ONLINE's row cache) shows 0 there and the
       * reserved 1024 in cuobjdump (seen in the project's H200 capture). */
      if (a.rows[i].shared > 0)
        ASSERT_EQ(b.rows[j].shared, a.rows[i].shared + 1024);
      else if (a.rows[i].shared == 0)
        ASSERT_TRUE(b.rows[j].shared == 0 || b.rows[j].shared == 1024);
    }
  }
  ASSERT_GT(common, 0);
  /* The same kernels on both sides, not only the same registers where both
   * have a kernel: every ptxas kernel is in the cuobjdump table once, and
   * the table's sm_90 kernels are all in the ptxas file (a fixture captured
   * from another build, with a kernel added or taken away, fails here). */
  for (j = 0; j < b.count; j++)
    if (strcmp(b.rows[j].arch, "sm_90") == 0)
      cu90++;
  ASSERT_EQ(common, a.count);
  ASSERT_EQ(common, cu90);
  rp_res_table_free(&a);
  rp_res_table_free(&b);
  free(pt);
  free(cu);
  return 0;
}

/* The first 'what' in text, replaced by 'with', in a new string. */
static char *replaced(const char *text, const char *what, const char *with) {
  const char *at = strstr(text, what);
  size_t n = strlen(text), a = strlen(what), b = strlen(with);
  char *out;
  if (at == NULL)
    return NULL;
  out = malloc(n - a + b + 1);
  if (out == NULL)
    return NULL;
  memcpy(out, text, (size_t)(at - text));
  memcpy(out + (at - text), with, b);
  memcpy(out + (at - text) + b, at + a, n - (size_t)(at - text) - a + 1);
  return out;
}

/* A count past INT64_MAX reads as INT64_MAX, never as a negative count or
 * none: the real capture's first kernel with its spill stores, then its
 * registers, out of range. (Before, 2^63 + 1 spill bytes were kept as a
 * negative number and the kernel was listed as not spilling; a count past
 * UINT64_MAX was dropped, leaving the registers unknown.) */
TEST_IMPL(res_counts_saturate) {
  char *text, *big, *huge;
  size_t len;
  rp_res_table t;
  const rp_kernel_res *r;
  FX_LOAD("ptxas_kernels_sm90.txt", &text, &len);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_ptxas(text, len, &t));
  ASSERT_EQ(t.rows[0].spills, 0); /* the capture as it is */
  ASSERT_EQ(t.rows[0].registers, 10);
  rp_res_table_free(&t);

  big = replaced(text, "0 bytes spill stores",
                 "9223372036854775809 bytes spill stores");
  ASSERT_TRUE(big != NULL);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_ptxas(big, strlen(big), &t));
  r = &t.rows[0];
  ASSERT_EQ(r->spill_stores, INT64_MAX);
  ASSERT_EQ(r->spills, 1);
  ASSERT_GE(rp_res_spilling(&t), 1);
  rp_res_table_free(&t);

  huge = replaced(text, "Used 10 registers",
                  "Used 99999999999999999999999 registers");
  ASSERT_TRUE(huge != NULL);
  rp_res_table_init(&t);
  ASSERT_OK(rp_res_parse_ptxas(huge, strlen(huge), &t));
  ASSERT_EQ(t.rows[0].registers, INT64_MAX);
  rp_res_table_free(&t);
  free(huge);
  free(big);
  free(text);
  return 0;
}
