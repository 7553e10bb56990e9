/* cm_test.h: the unit-test harness (libuv's model, one ctest entry a test).
 *
 * A test is `TEST_IMPL(name) { ...; return 0; }`. ASSERT_* print both values,
 * the expression and the location, then return 1 from the test. Each test runs
 * as its own process (ctest starts `suite NAME`), with ctest's timeout. A test
 * returns 77 (TEST_SKIP) to be reported as skipped.
 *
 * Helpers are fake child processes: `HELPER_IMPL(name)` receives the argv that
 * follows `--helper name`, so a test can spawn its own binary as a child
 * (cm_test_self_path() gives the path) and control exactly what it does.
 */
#ifndef CM_TEST_H
#define CM_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TEST_SKIP 77

#define TEST_IMPL(name) int test_##name(void)
#define HELPER_IMPL(name) int helper_##name(int argc, char **argv)

/* Path of the running test binary, for spawning helpers. */
const char *cm_test_self_path(void);
/* The suite's scratch folder under the build tree (tmp-<suite>), shared by
 * its tests: each names its files or folders after itself (and its pid). */
const char *cm_test_tmpdir(void);
/* fn runs once the test has passed or been skipped (not when it failed, so
 * that a failing test's files stay for a look): what a helper made for the
 * test and can remove, so that the scratch folder does not grow with every
 * run. At most 4 functions; a fifth is not kept. */
void cm_test_on_success(void (*fn)(void));

#define CM_TEST_FAIL_(fmt, ...)                                                \
  do {                                                                         \
    fprintf(stderr, "%s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__);      \
    fflush(stderr);                                                            \
    return 1;                                                                  \
  } while (0)

#define ASSERT_TRUE(e)                                                         \
  do {                                                                         \
    if (!(e))                                                                  \
      CM_TEST_FAIL_("ASSERT_TRUE(%s) failed", #e);                             \
  } while (0)

#define ASSERT_CMP_(a, b, op)                                                  \
  do {                                                                         \
    int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                              \
    if (!(a_ op b_))                                                           \
      CM_TEST_FAIL_("ASSERT(%s %s %s) failed: %" PRId64 " vs %" PRId64, #a,    \
                    #op, #b, a_, b_);                                          \
  } while (0)

#define ASSERT_EQ(a, b) ASSERT_CMP_(a, b, ==)
#define ASSERT_NE(a, b) ASSERT_CMP_(a, b, !=)
#define ASSERT_LT(a, b) ASSERT_CMP_(a, b, <)
#define ASSERT_LE(a, b) ASSERT_CMP_(a, b, <=)
#define ASSERT_GT(a, b) ASSERT_CMP_(a, b, >)
#define ASSERT_GE(a, b) ASSERT_CMP_(a, b, >=)

/* a and b must be within tol of each other (NaN never passes). */
#define ASSERT_NEAR(a, b, tol)                                                 \
  do {                                                                         \
    double a_ = (double)(a), b_ = (double)(b);                                 \
    if (!(fabs(a_ - b_) <= (double)(tol)))                                     \
      CM_TEST_FAIL_("ASSERT_NEAR(%s, %s, %s) failed: %.17g vs %.17g", #a, #b,  \
                    #tol, a_, b_);                                             \
  } while (0)

#define ASSERT_STR_EQ(a, b)                                                    \
  do {                                                                         \
    const char *a_ = (a), *b_ = (b);                                           \
    if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)                       \
      CM_TEST_FAIL_("ASSERT_STR_EQ(%s, %s) failed: \"%s\" vs \"%s\"", #a, #b,  \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                   \
  } while (0)

/* haystack must contain needle. */
#define ASSERT_CONTAINS(haystack, needle)                                      \
  do {                                                                         \
    const char *h_ = (haystack), *n_ = (needle);                               \
    if (h_ == NULL || strstr(h_, n_) == NULL)                                  \
      CM_TEST_FAIL_("ASSERT_CONTAINS(%s, \"%s\") failed in: %.400s",           \
                    #haystack, n_, h_ ? h_ : "(null)");                        \
  } while (0)

/* e must evaluate to CM_OK (0); prints the error's name otherwise. */
#define ASSERT_OK(e)                                                           \
  do {                                                                         \
    int r_ = (e);                                                              \
    if (r_ != 0)                                                               \
      CM_TEST_FAIL_("ASSERT_OK(%s) failed: %d", #e, r_);                       \
  } while (0)

#endif
