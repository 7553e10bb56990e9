/* Statistics of timing samples against values worked out by hand.
 * Quantiles are type 7 (linear interpolation between closest ranks, as
 * stated in pf_stats.h): for sorted x and p, h = (n - 1) p. */
#include "cm_test.h"
#include "cm_error.h"
#include "pf_stats.h"

TEST_IMPL(stats_odd) {
  /* Unsorted on purpose: sorted {1, 2, 3, 4, 100}. */
  const double x[] = {4, 100, 1, 3, 2};
  pf_stats s;
  ASSERT_OK(pf_stats_compute(x, 5, &s));
  ASSERT_EQ(s.n, 5);
  ASSERT_NEAR(s.min, 1, 0);
  ASSERT_NEAR(s.max, 100, 0);
  ASSERT_NEAR(s.median, 3, 0);
  ASSERT_NEAR(s.mean, 22, 1e-12);
  /* deviations -21,-20,-19,-18,78: squares 441+400+361+324+6084 = 7610,
   * / 4 = 1902.5 */
  ASSERT_NEAR(s.stddev, sqrt(1902.5), 1e-12);
  ASSERT_NEAR(s.cv, sqrt(1902.5) / 22, 1e-12);
  /* h = 1 and 3 exactly: q1 = 2, q3 = 4 */
  ASSERT_NEAR(s.q1, 2, 1e-12);
  ASSERT_NEAR(s.q3, 4, 1e-12);
  ASSERT_NEAR(s.iqr, 2, 1e-12);
  ASSERT_NEAR(x[0], 4, 0); /* input untouched */
  return 0;
}

TEST_IMPL(stats_even) {
  const double x[] = {8, 2, 6, 4};
  pf_stats s;
  ASSERT_OK(pf_stats_compute(x, 4, &s));
  ASSERT_NEAR(s.median, 5, 1e-12); /* mean of 4 and 6 */
  ASSERT_NEAR(s.mean, 5, 1e-12);
  /* squares 9+1+1+9 = 20, / 3 */
  ASSERT_NEAR(s.stddev, sqrt(20.0 / 3.0), 1e-12);
  /* h = 0.75: 2 + 0.75 * 2 = 3.5; h = 2.25: 6 + 0.25 * 2 = 6.5 */
  ASSERT_NEAR(s.q1, 3.5, 1e-12);
  ASSERT_NEAR(s.q3, 6.5, 1e-12);
  ASSERT_NEAR(s.iqr, 3.0, 1e-12);
  return 0;
}

TEST_IMPL(stats_single) {
  const double x[] = {2.5e-6};
  pf_stats s;
  ASSERT_OK(pf_stats_compute(x, 1, &s));
  ASSERT_NEAR(s.median, 2.5e-6, 0);
  ASSERT_NEAR(s.stddev, 0, 0);
  ASSERT_NEAR(s.cv, 0, 0);
  ASSERT_NEAR(s.iqr, 0, 0);
  return 0;
}

TEST_IMPL(stats_rejects) {
  const double bad[] = {1.0, NAN, 2.0};
  const double inf[] = {INFINITY};
  pf_stats s;
  ASSERT_EQ(pf_stats_compute(bad, 3, &s), CM_EINVAL);
  ASSERT_EQ(s.n, 0); /* zeroed on failure */
  ASSERT_EQ(pf_stats_compute(inf, 1, &s), CM_EINVAL);
  ASSERT_EQ(pf_stats_compute(bad, 0, &s), CM_EINVAL);
  ASSERT_EQ(pf_stats_compute(NULL, 3, &s), CM_EINVAL);
  return 0;
}

/* The running cv used by the stopping rule must agree with the batch one. */
TEST_IMPL(running_cv) {
  const double x[] = {1.00e-3, 1.02e-3, 0.99e-3, 1.05e-3, 1.01e-3, 0.97e-3};
  pf_running r;
  pf_stats s;
  size_t i;
  pf_running_init(&r);
  pf_running_add(&r, x[0]);
  ASSERT_TRUE(isinf(pf_running_cv(&r))); /* unknown with one sample */
  for (i = 1; i < 6; i++)
    pf_running_add(&r, x[i]);
  ASSERT_OK(pf_stats_compute(x, 6, &s));
  ASSERT_NEAR(pf_running_cv(&r), s.cv, 1e-12);
  ASSERT_TRUE(s.cv > 0.02 && s.cv < 0.04);
  return 0;
}
