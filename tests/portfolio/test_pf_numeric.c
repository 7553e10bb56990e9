/* Unit tests of the portfolio's numeric core, no GPU: fp16/bf16
 * conversions, assert_close and the tolerance table, and the float64
 * references against hand-computed values and finite differences. */
#include "cm_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_error.h"
#include "pf_case.h"
#include "pf_fill.h"
#include "pf_half.h"
#include "pf_ops.h"
#include "pf_ref.h"
#include "pf_cli.h"
#include "pf_rng.h"
#include "pf_sets.h"
#include "pf_tol.h"
#include "platform.h"

/* The smallest normal of each dtype (by cpk_dtype: fp32, fp16, bf16),
 * stated here, not taken from the code under test: a value under it is
 * subnormal. */
static const double min_normal[3] = {0x1p-126, 0x1p-14, 0x1p-126};

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Every fp16 and bf16 bit pattern survives a round trip through float. */
TEST_IMPL(half_roundtrip) {
  uint32_t h;
  for (h = 0; h < 65536; h++) {
    float f = pf_f16_to_f32((uint16_t)h);
    float g = pf_bf16_to_f32((uint16_t)h);
    if (isnan(f))
      ASSERT_TRUE(isnan(pf_f16_to_f32(pf_f32_to_f16(f))));
    else
      ASSERT_EQ(pf_f32_to_f16(f), h);
    if (isnan(g))
      ASSERT_TRUE(isnan(pf_bf16_to_f32(pf_f32_to_bf16(g))));
    else
      ASSERT_EQ(pf_f32_to_bf16(g), h);
  }
  return 0;
}

TEST_IMPL(half_rounding) {
  /* Ties go to even, in normal and subnormal ranges. */
  ASSERT_EQ(pf_f32_to_f16(1.0f + 0x1p-11f), 0x3C00);
  ASSERT_EQ(pf_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3C02);
  ASSERT_EQ(pf_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);
  ASSERT_EQ(pf_f32_to_f16(0x1p-24f), 0x0001);
  ASSERT_EQ(pf_f32_to_f16(0x1p-25f), 0x0000);
  ASSERT_EQ(pf_f32_to_f16(1.5f * 0x1p-25f), 0x0001);
  ASSERT_EQ(pf_f32_to_f16(3 * 0x1p-25f), 0x0002);
  ASSERT_EQ(pf_f32_to_f16(-0.0f), 0x8000);
  /* Overflow: 65519 still rounds down to 65504, 65520 is the tie to inf. */
  ASSERT_EQ(pf_f32_to_f16(65519.0f), 0x7BFF);
  ASSERT_EQ(pf_f32_to_f16(65520.0f), 0x7C00);
  ASSERT_EQ(pf_f32_to_f16(-INFINITY), 0xFC00);
  ASSERT_EQ(pf_f32_to_f16(NAN) & 0x7C00, 0x7C00);
  ASSERT_NE(pf_f32_to_f16(NAN) & 0x03FF, 0);
  ASSERT_NEAR(pf_f16_to_f32(0x0001), 0x1p-24, 0);
  ASSERT_NEAR(pf_f16_to_f32(0x7BFF), 65504.0, 0);
  /* bf16 */
  ASSERT_EQ(pf_f32_to_bf16(1.0f + 0x1p-8f), 0x3F80);
  ASSERT_EQ(pf_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);
  ASSERT_EQ(pf_f32_to_bf16(FLT_MAX), 0x7F80);
  ASSERT_EQ(pf_f32_to_bf16(f32_of(0x00000001u)), 0x0000); /* tiny denormal */
  ASSERT_EQ(pf_f32_to_bf16(f32_of(0x00018000u)), 0x0002); /* tie, to even */
  ASSERT_TRUE(isnan(pf_bf16_to_f32(pf_f32_to_bf16(f32_of(0x7F800001u)))));
  ASSERT_NEAR(pf_dtype_round(CPK_BF16, 10000.0), 9984.0, 0);
  ASSERT_NEAR(pf_dtype_round(CPK_F16, 9999.0), 10000.0, 0);
  return 0;
}

TEST_IMPL(assert_close) {
  pf_tol t = {1e-3, 1e-5, 0};
  pf_tol g = {0, 0, 1e-6};
  ASSERT_TRUE(pf_close(1.0 + 1e-3 + 0.9e-5, 1.0, 0, t));
  ASSERT_TRUE(!pf_close(1.0 + 1.1e-3, 1.0, 0, t));
  ASSERT_TRUE(pf_close(NAN, NAN, 0, t));
  ASSERT_TRUE(!pf_close(1.0, NAN, 0, t));
  ASSERT_TRUE(!pf_close(NAN, 1.0, 0, t));
  ASSERT_TRUE(pf_close(INFINITY, INFINITY, 0, t));
  ASSERT_TRUE(!pf_close(-INFINITY, INFINITY, 0, t));
  ASSERT_TRUE(!pf_close(INFINITY, 1e300, 0, t));
  /* gamma: the allowance grows with the sum of |terms| */
  ASSERT_TRUE(pf_close(1e-4, 0.0, 200.0, g));
  ASSERT_TRUE(!pf_close(1e-4, 0.0, 50.0, g));
  /* exact tolerance: only identical values pass */
  ASSERT_TRUE(pf_close(0.5, 0.5, 0, (pf_tol){0, 0, 0}));
  ASSERT_TRUE(!pf_close(0.5, 0.5 + 1e-16, 0, (pf_tol){0, 0, 0}));
  /* and of the sign of zero: a copy that turns -0 into +0 changed a bit;
   * with a tolerance, -0 meets +0 as in torch */
  ASSERT_TRUE(!pf_close(0.0, -0.0, 0, (pf_tol){0, 0, 0}));
  ASSERT_TRUE(!pf_close(-0.0, 0.0, 0, (pf_tol){0, 0, 0}));
  ASSERT_TRUE(pf_close(-0.0, -0.0, 0, (pf_tol){0, 0, 0}));
  ASSERT_TRUE(pf_close(0.0, -0.0, 0, t));
  return 0;
}

TEST_IMPL(compare_worst) {
  double a[6] = {1, 2, 3, NAN, 5, 6.1};
  double e[6] = {1, 2, 3.0001, NAN, 5, 6};
  int64_t idx[2] = {0, 2};
  pf_tol t = {1.3e-6, 1e-5, 0};
  pf_cmp c;
  ASSERT_EQ(pf_compare(a, e, NULL, 6, NULL, 0, t, &c), 0);
  ASSERT_EQ(c.checked, 6);
  ASSERT_EQ(c.failed, 2);
  ASSERT_EQ(c.worst, 5); /* 0.1 off is worse than 1e-4 off */
  ASSERT_NEAR(c.worst_actual, 6.1, 0);
  ASSERT_NEAR(c.max_abs, 0.1, 1e-12);
  ASSERT_NEAR(c.max_rel, 0.1 / 6, 1e-12);
  /* With a sample only the listed elements count. */
  ASSERT_EQ(pf_compare(a, e, NULL, 6, idx, 2, t, &c), 0);
  ASSERT_EQ(c.checked, 2);
  ASSERT_EQ(c.worst, 2);
  /* An unwritten (poisoned, NaN) element fails against a finite one. */
  a[1] = NAN;
  ASSERT_EQ(pf_compare(a, e, NULL, 3, NULL, 0, t, &c), 0);
  ASSERT_EQ(c.worst, 1);
  return 0;
}

TEST_IMPL(tol_table) {
  static const cpk_op ops[] = {CPK_OP_ROW_SUM,     CPK_OP_SOFTMAX,
                               CPK_OP_SOFTMAX_BWD, CPK_OP_RMSNORM,
                               CPK_OP_RMSNORM_BWD, CPK_OP_MATMUL};
  size_t i;
  int d;
  pf_tol t = pf_tol_get(CPK_OP_ROW_SUM, CPK_F32);
  ASSERT_NEAR(t.rtol, 1.3e-6, 0);
  ASSERT_NEAR(t.atol, 1e-5, 0);
  /* copy and add are exact (add against the once-rounded sum) */
  for (d = 0; d < 3; d++) {
    t = pf_tol_get(CPK_OP_COPY, (cpk_dtype)d);
    ASSERT_TRUE(t.rtol == 0 && t.atol == 0 && t.gamma == 0);
    t = pf_tol_get(CPK_OP_ADD, (cpk_dtype)d);
    ASSERT_TRUE(t.rtol == 0 && t.atol == 0 && t.gamma == 0);
  }
  for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    /* An output rounded to the dtype is off by up to half an ulp from the
     * float64 reference: the relative tolerance can never be below that. */
    ASSERT_TRUE(pf_tol_get(ops[i], CPK_F16).rtol >= 0x1p-11);
    ASSERT_TRUE(pf_tol_get(ops[i], CPK_BF16).rtol >= 0x1p-8);
    ASSERT_TRUE(pf_tol_get(ops[i], CPK_F32).rtol >= 0x1p-24);
    /* and none is looser than 1e-5 (fp32) without a written reason */
    ASSERT_TRUE(pf_tol_get(ops[i], CPK_F32).rtol <= 1e-5);
  }
  ASSERT_TRUE(pf_tol_get(CPK_OP_SOFTMAX, CPK_F32).atol < 1e-6);
  return 0;
}

TEST_IMPL(ref_softmax) {
  double x[12] = {0, log(3.0), 10000, 9999,  -INFINITY, -INFINITY,
                  1, INFINITY, -9000, -9000, 5,         7};
  uint8_t m[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  double y[12];
  double e = exp(1.0);
  ASSERT_OK(pf_ref_softmax(x, m, 6, 2, y));
  ASSERT_NEAR(y[0], 0.25, 1e-15);
  ASSERT_NEAR(y[1], 0.75, 1e-15);
  ASSERT_NEAR(y[2], e / (1 + e), 1e-15);
  ASSERT_NEAR(y[3], 1 / (1 + e), 1e-15);
  ASSERT_TRUE(y[4] == 0 && y[5] == 0);     /* all -inf: zeros, not NaN */
  ASSERT_TRUE(isnan(y[6]) && isnan(y[7])); /* +inf: NaN row */
  ASSERT_NEAR(y[8], 0.5, 1e-15);
  ASSERT_TRUE(y[10] == 0 && y[11] == 0); /* fully masked: zeros */
  /* partly masked: mass goes to the unmasked position */
  m[0] = 1;
  ASSERT_OK(pf_ref_softmax(x, m, 1, 2, y));
  ASSERT_TRUE(y[0] == 0 && y[1] == 1);
  return 0;
}

TEST_IMPL(ref_row_sum) {
  double x[6] = {1, -2, 3, INFINITY, -INFINITY, 1};
  double y[2], s[2];
  ASSERT_OK(pf_ref_row_sum(x, 2, 3, y, s));
  ASSERT_NEAR(y[0], 2, 0);
  ASSERT_NEAR(s[0], 6, 0);
  ASSERT_TRUE(isnan(y[1]));
  return 0;
}

/* Many threads and one thread must agree bit for bit. */
TEST_IMPL(ref_threads) {
  int64_t rows = 64, cols = 70001, i;
  double *x = malloc((size_t)(rows * cols) * sizeof *x);
  double y1[64], y2[64];
  ASSERT_TRUE(x != NULL);
  for (i = 0; i < rows * cols; i++)
    x[i] = (double)((i * 7919) % 1001) / 1000.0 - 0.5;
  pf_ref_set_threads(1);
  ASSERT_OK(pf_ref_row_sum(x, rows, cols, y1, NULL));
  pf_ref_set_threads(8);
  ASSERT_EQ(pf_ref_threads(), 8);
  ASSERT_OK(pf_ref_row_sum(x, rows, cols, y2, NULL));
  ASSERT_TRUE(memcmp(y1, y2, sizeof y1) == 0);
  free(x);
  return 0;
}

TEST_IMPL(ref_rmsnorm) {
  double x[2] = {3, 4}, w[2] = {1, 2}, y[2];
  double r = 1 / sqrt(12.5);
  ASSERT_OK(pf_ref_rmsnorm(x, w, 0.0, 1, 2, y));
  ASSERT_NEAR(y[0], 3 * r, 1e-15);
  ASSERT_NEAR(y[1], 8 * r, 1e-15);
  return 0;
}

/* Gradients against central finite differences of the forward references:
 * d/dx_j sum_i dy_i f(x)_i. */
TEST_IMPL(ref_backward_fd) {
  enum { R = 2, C = 5 };
  double x[R * C], w[C], dy[R * C], dx[R * C], dw[C], y[R * C], sdx[R * C];
  double xp[R * C], yp[R * C], ym[R * C], h = 1e-6;
  int i, j;
  for (i = 0; i < R * C; i++) {
    x[i] = sin(i + 1.0);
    dy[i] = cos(3.0 * i);
  }
  for (i = 0; i < C; i++)
    w[i] = 0.5 + 0.1 * i;
  ASSERT_OK(pf_ref_rmsnorm_bwd(dy, x, w, 1e-5, R, C, dx, sdx, dw, NULL));
  for (j = 0; j < R * C; j++) {
    double fp = 0, fm = 0;
    memcpy(xp, x, sizeof x);
    xp[j] += h;
    ASSERT_OK(pf_ref_rmsnorm(xp, w, 1e-5, R, C, yp));
    xp[j] -= 2 * h;
    ASSERT_OK(pf_ref_rmsnorm(xp, w, 1e-5, R, C, ym));
    for (i = 0; i < R * C; i++) {
      fp += dy[i] * yp[i];
      fm += dy[i] * ym[i];
    }
    ASSERT_NEAR(dx[j], (fp - fm) / (2 * h), 1e-7);
    ASSERT_TRUE(sdx[j] >= fabs(dx[j]) * 0.999);
  }
  /* dw[c] = sum_r dy * x * rstd: the forward output divided by w. */
  ASSERT_OK(pf_ref_rmsnorm(x, w, 1e-5, R, C, y));
  for (j = 0; j < C; j++)
    ASSERT_NEAR(dw[j], dy[j] * y[j] / w[j] + dy[C + j] * y[C + j] / w[j],
                1e-12);
  /* softmax backward */
  ASSERT_OK(pf_ref_softmax(x, NULL, R, C, y));
  ASSERT_OK(pf_ref_softmax_bwd(dy, y, R, C, dx, NULL));
  for (j = 0; j < R * C; j++) {
    double fp = 0, fm = 0;
    memcpy(xp, x, sizeof x);
    xp[j] += h;
    ASSERT_OK(pf_ref_softmax(xp, NULL, R, C, yp));
    xp[j] -= 2 * h;
    ASSERT_OK(pf_ref_softmax(xp, NULL, R, C, ym));
    for (i = 0; i < R * C; i++) {
      fp += dy[i] * yp[i];
      fm += dy[i] * ym[i];
    }
    ASSERT_NEAR(dx[j], (fp - fm) / (2 * h), 1e-7);
  }
  return 0;
}

TEST_IMPL(ref_matmul) {
  /* A = [1 2 3; 4 5 6] (2x3), B = [1 0; 0 1; 1 1] (3x2): C = [4 5; 10 11] */
  double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1};
  double at[6] = {1, 4, 2, 5, 3, 6}, bt[6] = {1, 0, 1, 0, 1, 1};
  double c[4], s[4], c2[4] = {-1, -1, -1, -1};
  int64_t idx[1] = {3};
  pf_ref_gemm g = {2, 2, 3, 0, 0};
  ASSERT_OK(pf_ref_matmul(a, b, g, c, s, NULL, 0));
  ASSERT_TRUE(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11);
  ASSERT_NEAR(s[0], 4, 0);
  g.trans_a = 1;
  g.trans_b = 1;
  ASSERT_OK(pf_ref_matmul(at, bt, g, c2, NULL, NULL, 0));
  ASSERT_TRUE(memcmp(c, c2, sizeof c) == 0);
  c2[0] = c2[3] = -1;
  ASSERT_OK(pf_ref_matmul(at, bt, g, c2, NULL, idx, 1));
  ASSERT_NEAR(c2[3], 11, 0);
  ASSERT_NEAR(c2[0], -1, 0); /* not in the sample: untouched */
  /* K = 0: every sum is empty, 0 (the full path wrote nothing, the listed
   * one divided by K) */
  g.k = 0;
  g.trans_a = g.trans_b = 0;
  c2[0] = c2[1] = c2[2] = c2[3] = s[0] = s[1] = s[2] = s[3] = -1;
  ASSERT_OK(pf_ref_matmul(a, b, g, c2, s, NULL, 0));
  ASSERT_TRUE(c2[0] == 0 && c2[3] == 0 && s[0] == 0 && s[3] == 0);
  c2[0] = c2[3] = -1;
  ASSERT_OK(pf_ref_matmul(a, b, g, c2, NULL, idx, 1));
  ASSERT_TRUE(c2[3] == 0 && c2[0] == -1);
  return 0;
}

/* A and B of a reference test: uniform in [-1, 1), A's values drawn
 * first, from rng. */
static void mm_operands(pf_rng *rng, double *a, int64_t na, double *b,
                        int64_t nb) {
  int64_t i;
  for (i = 0; i < na; i++)
    a[i] = pf_rng_uniform(rng, -1.0, 1.0);
  for (i = 0; i < nb; i++)
    b[i] = pf_rng_uniform(rng, -1.0, 1.0);
}

/* The listed path (a sampled matmul) reads strided operands from
 * contiguous copies of 8 columns, in an order of its own: every element
 * it computes is the full path's bit for bit, in each transpose, on a
 * shape whose last panels are ragged (101 rows, 77 columns), on one thread
 * and on several (the list is long enough for two ranges); elements not
 * listed stay untouched. */
TEST_IMPL(ref_matmul_listed) {
  enum { M = 101, N = 77, K = 29 };
  static double a[M * K], b[K * N], full[M * N], fs[M * N], part[M * N],
      ps[M * N];
  static int64_t idx[M * N];
  pf_rng rng;
  int64_t i, nidx = 0;
  int tr, threads;
  pf_rng_seed(&rng, 3);
  mm_operands(&rng, a, M * K, b, K * N);
  for (i = 0; i < M * N; i++)
    if (i % 3 != 1)
      idx[nidx++] = i;
  for (threads = 1; threads <= 3; threads += 2)
    for (tr = 0; tr < 4; tr++) {
      pf_ref_gemm g = {M, N, K, tr & 1, tr >> 1};
      pf_ref_set_threads(threads);
      ASSERT_OK(pf_ref_matmul(a, b, g, full, fs, NULL, 0));
      for (i = 0; i < M * N; i++)
        part[i] = ps[i] = -1;
      ASSERT_OK(pf_ref_matmul(a, b, g, part, ps, idx, nidx));
      for (i = 0; i < M * N; i++)
        if (i % 3 == 1 ? part[i] != -1 || ps[i] != -1
                       : memcmp(&part[i], &full[i], sizeof part[i]) != 0 ||
                             memcmp(&ps[i], &fs[i], sizeof ps[i]) != 0)
          CM_TEST_FAIL_("trans %d%d, %d threads: element %lld is %.17g "
                        "(scale %.17g), the full path's %.17g (%.17g)",
                        tr & 1, tr >> 1, threads, (long long)i, part[i], ps[i],
                        full[i], fs[i]);
    }
  pf_ref_set_threads(0);
  return 0;
}

/* The full path computes in cache blocks of 256 columns and 256 of the
 * depth and in register tiles (pf_ref.c, mm_blocked: 2 x 4, and 4 x 4 and
 * 4 x 8 where the CPU has AVX2 and AVX-512); the listed path computes each
 * element as one plain dot product (mm_dot). On a shape with several blocks
 * each way and ragged last ones (rows not a multiple of 4, columns not a
 * multiple of 4 or 8 past two column blocks, a depth past two depth
 * blocks), every element of every transpose is the plain dot product's bit
 * for bit, its scale too, in every tile the CPU runs, on one thread and on
 * three (odd row ranges), with the scale and without it; and so for shapes
 * smaller than a tile (one row, a depth of one). A tile the CPU lacks is
 * said on stderr, not run. */
TEST_IMPL(ref_matmul_blocked) {
  enum { M = 37, N = 517, K = 600 };
  static double a[M * K], b[K * N], full[M * N], fs[M * N], dot[M * N],
      ds[M * N], ns[M * N];
  static int64_t idx[M * N];
  static const char *const tile[3] = {"2x4", "4x4 (AVX2)", "4x8 (AVX-512)"};
  static const char *const name[3] = {"2x4", "4x4", "4x8"};
  /* the blocks' shape first, then shapes smaller than a tile each way (one
   * row, fewer columns than a tile is wide, a depth of one) */
  static const int64_t shape[][3] = {{M, N, K}, {1, 1, 1},   {1, 9, 5},
                                     {5, 3, 1}, {3, 7, 257}, {6, 2, 9}};
  pf_rng rng;
  int64_t i;
  size_t sh;
  int tr, threads, level, ran = 0;
  pf_rng_seed(&rng, 5);
  mm_operands(&rng, a, M * K, b, K * N);
  for (i = 0; i < M * N; i++)
    idx[i] = i;
  ASSERT_EQ(pf_ref_set_matmul_tiles(0), 0);
  for (level = 0; level <= 2; level++) {
    if (pf_ref_set_matmul_tiles(level) != level) {
      fprintf(stderr,
              "ref_matmul_blocked: tile %s not run: this CPU lacks "
              "it\n",
              tile[level]);
      continue;
    }
    ran++;
    ASSERT_STR_EQ(pf_ref_matmul_tile(), name[level]);
    for (sh = 0; sh < sizeof shape / sizeof shape[0]; sh++)
      for (threads = 1; threads <= 3; threads += 2)
        for (tr = 0; tr < 4; tr++) {
          pf_ref_gemm g = {shape[sh][0], shape[sh][1], shape[sh][2], tr & 1,
                           tr >> 1};
          const int64_t mn = g.m * g.n;
          pf_ref_set_threads(threads);
          for (i = 0; i < mn; i++)
            full[i] = fs[i] = ns[i] = -7;
          ASSERT_OK(pf_ref_matmul(a, b, g, full, fs, NULL, 0));
          ASSERT_OK(pf_ref_matmul(a, b, g, ns, NULL, NULL, 0));
          ASSERT_OK(pf_ref_matmul(a, b, g, dot, ds, idx, mn));
          for (i = 0; i < mn; i++)
            if (memcmp(&full[i], &dot[i], sizeof full[i]) != 0 ||
                memcmp(&fs[i], &ds[i], sizeof fs[i]) != 0 ||
                memcmp(&ns[i], &dot[i], sizeof ns[i]) != 0)
              CM_TEST_FAIL_(
                  "tile %s, %lldx%lldx%lld, trans %d%d, %d "
                  "threads: element %lld (row %lld, column %lld) "
                  "is %.17g (scale %.17g; %.17g without it), the "
                  "dot product's %.17g (%.17g)",
                  tile[level], (long long)g.m, (long long)g.n, (long long)g.k,
                  tr & 1, tr >> 1, threads, (long long)i, (long long)(i / g.n),
                  (long long)(i % g.n), full[i], fs[i], ns[i], dot[i], ds[i]);
        }
  }
  ASSERT_TRUE(ran >= 1);
  pf_ref_set_matmul_tiles(-1);
  /* and a value checked by hand: C[0][0] of the nn product is the sum of
   * a[0][p] b[p][0] in order */
  {
    pf_ref_gemm g = {M, N, K, 0, 0};
    double s = 0;
    ASSERT_OK(pf_ref_matmul(a, b, g, full, NULL, NULL, 0));
    for (i = 0; i < K; i++) {
      const double x = a[i] * b[i * N]; /* two statements: never an FMA */
      s += x;
    }
    ASSERT_TRUE(memcmp(&s, &full[0], sizeof s) == 0);
  }
  pf_ref_set_threads(0);
  return 0;
}

/* pf_compare over several blocks: counts add up, the worst of two equally
 * bad elements in different blocks is the earlier one, and the answer is
 * the same on 1 and 4 threads. */
TEST_IMPL(compare_blocks) {
  int64_t n = (3 << 20) + 5, i;
  double *a = malloc((size_t)n * sizeof *a), *e = malloc((size_t)n * sizeof *e);
  pf_tol t = {1e-3, 0, 0};
  pf_cmp c1, c4;
  ASSERT_TRUE(a != NULL && e != NULL);
  for (i = 0; i < n; i++)
    a[i] = e[i] = 1.0 + (double)(i % 977);
  a[(2 << 20) + 7] = e[(2 << 20) + 7] * 1.01; /* excess 10 */
  a[(1 << 20) + 3] = e[(1 << 20) + 3] * 1.01; /* same excess, earlier */
  a[n - 1] = e[n - 1] * 1.0005;               /* within tolerance */
  pf_ref_set_threads(1);
  ASSERT_EQ(pf_compare(a, e, NULL, n, NULL, 0, t, &c1), 0);
  pf_ref_set_threads(4);
  ASSERT_EQ(pf_compare(a, e, NULL, n, NULL, 0, t, &c4), 0);
  pf_ref_set_threads(0);
  ASSERT_EQ(c1.checked, n);
  ASSERT_EQ(c1.failed, 2);
  ASSERT_EQ(c1.worst, (1 << 20) + 3);
  ASSERT_TRUE(memcmp(&c1, &c4, sizeof c1) == 0);
  ASSERT_NEAR(c1.max_rel, 0.01, 1e-12);
  free(a);
  free(e);
  return 0;
}

/* A case built on the host as the runner builds it: inputs, reference,
 * expected values saturated to the dtype; extreme values or not. */
/* The case set up, its buffers allocated, nothing filled or computed. */
static int host_case_setup(pf_case *c, const char *op, cpk_dtype dt,
                           const int64_t *dims, int ndims, int mask,
                           int extreme) {
  int n;
  memset(c, 0, sizeof *c);
  c->spec.op = pf_op_find(op);
  c->spec.dt = dt;
  memcpy(c->spec.dims, dims, (size_t)ndims * sizeof *dims);
  c->spec.ndims = ndims;
  c->spec.extreme = extreme;
  c->spec.mask = mask;
  return pf_case_setup(c, &pf_ops(&n)[c->spec.op],
                       ndims == 3 ? CPK_V_NAIVE : CPK_V_SPLIT) == CM_OK
             ? CM_OK
             : CM_EINVAL;
}

static int host_case_x(pf_case *c, const char *op, cpk_dtype dt,
                       const int64_t *dims, int ndims, int mask, uint64_t seed,
                       int extreme) {
  pf_rng rng;
  int n, i;
  if (host_case_setup(c, op, dt, dims, ndims, mask, extreme) != CM_OK)
    return CM_EINVAL;
  pf_rng_seed(&rng, seed);
  c->op->fill(c, &rng);
  if ((n = c->op->reference(c)) != CM_OK)
    return n;
  for (i = 0; i < c->ntensors; i++)
    if (c->t[i].is_output)
      pf_dtype_saturate(dt, c->t[i].expected, c->t[i].rows * c->t[i].cols);
  return CM_OK;
}

/* A case of the default set: a row op's with extreme values. */
static int host_case(pf_case *c, const char *op, cpk_dtype dt,
                     const int64_t *dims, int ndims, int mask, uint64_t seed) {
  return host_case_x(c, op, dt, dims, ndims, mask, seed, ndims == 2);
}

/* Elements of output y (rounded to the dtype here) that fail the check
 * (-1: pf_compare's verdict and its count disagree). */
static int64_t failures(pf_case *c, pf_tensor *y) {
  int64_t i, n = y->rows * y->cols;
  pf_cmp cmp;
  int ok;
  for (i = 0; i < n; i++)
    y->val[i] = pf_dtype_round(c->dt, y->val[i]);
  ok = pf_compare(y->val, y->expected, y->scale, n, NULL, 0,
                  pf_tol_get(c->kop, c->dt), &cmp);
  return ok == (cmp.failed == 0) ? cmp.failed : -1;
}

/* Elements of the op's first output that fail the check when the default
 * set's case of op (dims, mask, seed) is computed by model with bug (0:
 * the kernels' own arithmetic); -2 when the case cannot be built. */
static int64_t model_failures(const char *op, cpk_dtype dt, const int64_t *dims,
                              int mask, uint64_t seed,
                              void (*model)(pf_case *, int), int bug) {
  pf_case c;
  int64_t f;
  int y = 0;
  if (host_case(&c, op, dt, dims, 2, mask, seed) != CM_OK)
    return -2;
  while (!c.t[y].is_output) /* the op's first output */
    y++;
  model(&c, bug);
  f = failures(&c, &c.t[y]);
  pf_case_free(&c);
  return f;
}

/* The widest extreme shape, where one element hides inside gamma. */
static const int64_t tail_dims[2] = {4, 1048577};

/* The set's rows of 2^20 + 1 with extreme values (pf_sets.c): a kernel
 * that leaves the one-element tail out of its reduction, but writes every
 * output, must fail. On random rows that wide gamma * sum |x| exceeds any
 * one element; the ends row of the fill (pf_fill.c) is what catches it. */
TEST_IMPL(extreme_ends_catch_tail) {
  int64_t rows = tail_dims[0], cols = tail_dims[1], r, j;
  int d;
  pf_case c;
  pf_cmp cmp;
  for (d = 0; d < 3; d++) {
    pf_tensor *y;
    /* row_sum without the last column */
    ASSERT_OK(host_case(&c, "row_sum", (cpk_dtype)d, tail_dims, 2, 0, 1234));
    y = &c.t[1];
    for (r = 0; r < rows; r++)
      y->val[r] = pf_dtype_round(c.dt, y->expected[r] -
                                           c.t[0].val[r * cols + cols - 1]);
    ASSERT_EQ(pf_compare(y->val, y->expected, y->scale, rows, NULL, 0,
                         pf_tol_get(c.kop, c.dt), &cmp),
              0);
    pf_case_free(&c);
    /* softmax whose sum left the last column out (still written): every
     * output of the row is divided by 1 - y[last] too little */
    ASSERT_OK(host_case(&c, "softmax", (cpk_dtype)d, tail_dims, 2, 0, 1234));
    y = &c.t[1];
    for (r = 0; r < rows; r++)
      for (j = 0; j < cols; j++)
        y->val[r * cols + j] =
            pf_dtype_round(c.dt, y->expected[r * cols + j] /
                                     (1.0 - y->expected[r * cols + cols - 1]));
    ASSERT_EQ(pf_compare(y->val, y->expected, y->scale, rows * cols, NULL, 0,
                         pf_tol_get(c.kop, c.dt), &cmp),
              0);
    pf_case_free(&c);
    /* rmsnorm whose sum of squares left the last column out */
    ASSERT_OK(host_case(&c, "rmsnorm", (cpk_dtype)d, tail_dims, 2, 0, 1234));
    y = &c.t[2];
    for (r = 0; r < rows; r++) {
      const double *x = c.t[0].val + r * cols;
      double ss = 0, f;
      for (j = 0; j < cols; j++)
        ss += x[j] * x[j];
      f = sqrt(
          (ss / (double)cols + (double)c.eps) /
          ((ss - x[cols - 1] * x[cols - 1]) / (double)cols + (double)c.eps));
      for (j = 0; j < cols; j++)
        y->val[r * cols + j] =
            pf_dtype_round(c.dt, y->expected[r * cols + j] * f);
    }
    ASSERT_EQ(pf_compare(y->val, y->expected, y->scale, rows * cols, NULL, 0,
                         pf_tol_get(c.kop, c.dt), &cmp),
              0);
    pf_case_free(&c);
  }
  return 0;
}

/* Masked softmax keeps the ends row's ends visible: with the last row's
 * one kept position (4 rows: r % 4 == 3) that is its last element, and a
 * randomly masked last row (5 rows) keeps both; otherwise the mask hid the
 * two elements that catch a dropped first or last element. */
TEST_IMPL(extreme_ends_masked) {
  static const int64_t shapes[][2] = {{4, 1000}, {5, 1000}, {64, 1000}};
  size_t k;
  int n;
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    const int64_t rows = shapes[k][0], cols = shapes[k][1];
    const int64_t last = (rows - 1) * cols;
    pf_case c;
    pf_rng rng;
    memset(&c, 0, sizeof c);
    c.spec.op = pf_op_find("softmax");
    c.spec.dt = CPK_F32;
    c.spec.dims[0] = rows;
    c.spec.dims[1] = cols;
    c.spec.ndims = 2;
    c.spec.extreme = 1;
    c.spec.mask = 1;
    ASSERT_OK(pf_case_setup(&c, &pf_ops(&n)[c.spec.op], CPK_V_SPLIT));
    ASSERT_TRUE(c.t[1].is_mask);
    pf_rng_seed(&rng, 99);
    c.op->fill(&c, &rng);
    ASSERT_TRUE(c.t[0].val[last] == 16.0);
    ASSERT_TRUE(c.t[0].val[last + cols - 1] == 16.0);
    ASSERT_EQ(c.t[1].mval[last + cols - 1], 0);
    if ((rows - 1) % 4 == 3) { /* one position kept: the last */
      ASSERT_EQ(c.t[1].mval[last], 1);
    } else {
      ASSERT_EQ(c.t[1].mval[last], 0);
    }
    pf_case_free(&c);
  }
  return 0;
}

/* pf_case_host_bytes counts what the tensors hold on the host: fp16
 * softmax 100x30 is 38 bytes an element (x: image 2 + values 8; y: image 2,
 * values 8, first image 2, expected 8, scales 8), a mask adds 2 (image and
 * values of one byte); the figure the host-memory check compares with
 * what the machine has. */
TEST_IMPL(host_bytes) {
  int n, m;
  for (m = 0; m < 2; m++) {
    pf_case c;
    memset(&c, 0, sizeof c);
    c.spec.op = pf_op_find("softmax");
    c.spec.dt = CPK_F16;
    c.spec.dims[0] = 100;
    c.spec.dims[1] = 30;
    c.spec.ndims = 2;
    c.spec.mask = m;
    ASSERT_OK(pf_case_setup(&c, &pf_ops(&n)[c.spec.op], CPK_V_SPLIT));
    ASSERT_EQ(pf_case_host_bytes(&c), (38 + 2 * m) * 3000);
    pf_case_free(&c);
  }
  return 0;
}

/* The elementwise specials hold a subnormal of every dtype (docs/
 * VALIDATION.md: "the smallest subnormal"), so a copy or add that flushes
 * subnormals is seen in bf16 too. */
TEST_IMPL(fill_specials_subnormal) {
  int d, n;
  for (d = 0; d < 3; d++) {
    pf_case c;
    pf_rng rng;
    int64_t i, found = 0;
    memset(&c, 0, sizeof c);
    c.spec.op = pf_op_find("copy");
    c.spec.dt = (cpk_dtype)d;
    c.spec.dims[0] = 1;
    c.spec.dims[1] = 1000003;
    c.spec.ndims = 2;
    c.spec.extreme = 1;
    ASSERT_OK(pf_case_setup(&c, &pf_ops(&n)[c.spec.op], CPK_V_VECTOR));
    pf_rng_seed(&rng, 77);
    c.op->fill(&c, &rng);
    for (i = 0; i < c.cols; i++)
      if (c.t[0].val[i] != 0 && fabs(c.t[0].val[i]) < min_normal[d])
        found++;
    if (found == 0)
      CM_TEST_FAIL_("%s: no subnormal among the specials", pf_dtype_name(c.dt));
    pf_case_free(&c);
  }
  return 0;
}

/* add is checked exactly: the kernel's arithmetic (the fp32 sum rounded to
 * the dtype, pf_ops.c's ref_add) passes on the extreme inputs in every
 * dtype, and a flush of the dtype's subnormal sums to zero or a -0 + -0
 * stored as +0 fails. The second input meets the first one's specials
 * with its own, so both faults have positions to show in. */
static void add_as_kernel(pf_case *c, double *y) {
  int64_t i;
  /* each input widened to fp32 (exact), one fp32 addition, the sum
   * rounded to the dtype */
  for (i = 0; i < c->cols; i++)
    y[i] = pf_dtype_round(
        c->dt, (double)((float)c->t[0].val[i] + (float)c->t[1].val[i]));
}

TEST_IMPL(add_exact) {
  static const int64_t dims[2] = {1, 1000003};
  int d;
  for (d = 0; d < 3; d++) {
    const cpk_dtype dt = (cpk_dtype)d;
    pf_case c;
    pf_tensor *y;
    int64_t i, subs = 0, negzeros = 0;
    ASSERT_OK(host_case(&c, "add", dt, dims, 2, 0, 91));
    y = &c.t[2];
    ASSERT_TRUE(y->is_output);
    add_as_kernel(&c, y->val);
    ASSERT_EQ(failures(&c, y), 0);
    /* flush the dtype's subnormal results to a zero of the same sign */
    for (i = 0; i < c.cols; i++)
      if (y->val[i] != 0 && fabs(y->val[i]) < min_normal[d]) {
        y->val[i] = copysign(0.0, y->val[i]);
        subs++;
      }
    if (subs < 10)
      CM_TEST_FAIL_("%s: %lld subnormal sums", pf_dtype_name(dt),
                    (long long)subs);
    ASSERT_EQ(failures(&c, y), subs);
    /* the sums put back; -0 + -0 stored as +0 */
    add_as_kernel(&c, y->val);
    for (i = 0; i < c.cols; i++)
      if (y->val[i] == 0 && signbit(y->val[i])) {
        y->val[i] = 0.0;
        negzeros++;
      }
    if (negzeros < 10)
      CM_TEST_FAIL_("%s: %lld sums of -0 and -0", pf_dtype_name(dt),
                    (long long)negzeros);
    ASSERT_EQ(failures(&c, y), negzeros);
    pf_case_free(&c);
  }
  return 0;
}

/* The host model of the verification control's kernel (add.ftz.f32):
 * inputs and results below FLT_MIN are zeros of their sign, every other
 * sum the binary32 one. */
TEST_IMPL(verify_control_model) {
  static const struct {
    double a, b, y;
    int neg; /* y is -0 */
  } t[] = {
      {0x1p-130, 0.0, 0.0, 0},         /* a subnormal input */
      {-0x1p-149, -0.0, 0.0, 1},       /* the smallest, negative */
      {0x1.8p-126, -0x1p-126, 0.0, 0}, /* a subnormal result */
      {-0x1.8p-126, 0x1p-126, 0.0, 1},
      {0x1p-126, 0x1p-149, 0x1p-126, 0}, /* a normal stays */
      {1.0, 0x1p-130, 1.0, 0},
      {1.0, 0x1p-24, 1.0, 0},                 /* a tie to even */
      {1.0, 0x1.000002p-24, 0x1.000002p0, 0}, /* past the tie */
      {3.0, 4.0, 7.0, 0},
      {FLT_MAX, FLT_MAX, INFINITY, 0}, /* overflow in binary32 */
      {INFINITY, 0x1p-140, INFINITY, 0},
  };
  const size_t n = sizeof t / sizeof t[0];
  double a[16], b[16], y[16], nan_a = NAN, nan_y;
  size_t i;
  for (i = 0; i < n; i++) {
    a[i] = t[i].a;
    b[i] = t[i].b;
  }
  ASSERT_OK(pf_ref_add_ftz_f32(a, b, y, (int64_t)n));
  for (i = 0; i < n; i++) {
    if (y[i] != t[i].y || (y[i] == 0 && !signbit(y[i]) != !t[i].neg))
      CM_TEST_FAIL_("row %zu: %a + %a gave %a, expected %s%a", i, a[i], b[i],
                    y[i], t[i].neg ? "-" : "", t[i].y);
  }
  ASSERT_OK(pf_ref_add_ftz_f32(&nan_a, &b[0], &nan_y, 1));
  ASSERT_TRUE(isnan(nan_y));
  return 0;
}

/* The control's verdict is of elements, not of counts: a kernel that
 * fails as many elements as predicted but other ones (here the flushed
 * subnormal kept and a 1 lost) does not agree, nor does a zero of the
 * other sign, nor a failure of another kind; the model's own values do. */
TEST_IMPL(verify_control_agree) {
  const double expected[3] = {0x1p-149, 1.0, 2.0};
  const double pred[3] = {0.0, 1.0, 2.0};
  const double other[3] = {0x1p-149, 0.0, 2.0};
  const double negzero[3] = {-0.0, 1.0, 2.0};
  const double nans[2] = {NAN, 3.0}, nans2[2] = {-NAN, 3.0};
  pf_tol exact = {0, 0, 0};
  pf_cmp cp, co;
  int64_t mis = -1;
  ASSERT_EQ(pf_compare(pred, expected, NULL, 3, NULL, 0, exact, &cp), 0);
  ASSERT_EQ(pf_compare(other, expected, NULL, 3, NULL, 0, exact, &co), 0);
  ASSERT_EQ(cp.failed, 1);
  ASSERT_EQ(co.failed, 1);
  ASSERT_EQ(pf_control_agree(pred, pred, 3, NULL, 0, "tolerance", 1, 1, &mis),
            1);
  ASSERT_EQ(mis, 0);
  ASSERT_EQ(pf_control_agree(other, pred, 3, NULL, 0, "tolerance", 1, 1, &mis),
            0);
  ASSERT_EQ(mis, 2);
  ASSERT_EQ(
      pf_control_agree(negzero, pred, 3, NULL, 0, "tolerance", 1, 1, &mis), 0);
  ASSERT_EQ(mis, 1);
  ASSERT_EQ(
      pf_control_agree(pred, pred, 3, NULL, 0, "input-modified", 1, 1, &mis),
      0);
  ASSERT_EQ(pf_control_agree(pred, pred, 3, NULL, 0, "tolerance", 2, 1, &mis),
            0);
  /* a case that passes where none is predicted agrees; NaN is any NaN */
  ASSERT_EQ(pf_control_agree(nans2, nans, 2, NULL, 0, NULL, 0, 0, &mis), 1);
  ASSERT_EQ(mis, 0);
  return 0;
}

/* --verify-control's cases, built on the host as pf_run_verify_control
 * builds them (the set --test-only --op add --dtype fp32 makes, run as
 * add_ftz): the model of the flushing kernel must fail elements (or the
 * control could pass a GPU path that compares nothing), a correct sum must
 * fail none, and the control is add in all but its arithmetic. */
TEST_IMPL(verify_control_cases) {
  const pf_op *vc = pf_op_verify_control();
  const pf_op *add;
  pf_opts o;
  pf_set set;
  int n, i;
  int64_t failing = 0, cases_failing = 0;
  add = &pf_ops(&n)[pf_op_find("add")];
  ASSERT_TRUE(vc->layout == add->layout && vc->fill == add->fill &&
              vc->reference == add->reference && vc->kind == add->kind);
  ASSERT_EQ(vc->dtypes, 1u << CPK_F32);
  {
    pf_tol ta = pf_tol_get(CPK_OP_ADD, CPK_F32),
           tc = pf_tol_get(CPK_OP_ADD_FTZ, CPK_F32);
    ASSERT_TRUE(ta.rtol == tc.rtol && ta.atol == tc.atol &&
                ta.gamma == tc.gamma);
  }
  pf_opts_init(&o);
  o.mode = PF_MODE_TEST_ONLY;
  o.op = pf_op_find("add");
  o.dtype = CPK_F32;
  ASSERT_OK(pf_sets_build(&o, &set));
  ASSERT_TRUE(set.n >= 3);
  for (i = 0; i < set.n; i++) {
    pf_case c;
    pf_rng rng;
    pf_tensor *y;
    int64_t f;
    memset(&c, 0, sizeof c);
    c.spec = set.v[i];
    c.spec.op = PF_OP_VERIFY_CONTROL;
    ASSERT_OK(pf_case_setup(&c, vc, CPK_V_VECTOR));
    pf_rng_seed(&rng, pf_case_seed(77, &c.spec));
    c.op->fill(&c, &rng);
    ASSERT_OK(c.op->reference(&c));
    y = &c.t[2];
    pf_dtype_saturate(c.dt, y->expected, c.cols);
    /* a correct kernel: the binary32 sum */
    add_as_kernel(&c, y->val);
    ASSERT_EQ(failures(&c, y), 0);
    ASSERT_OK(pf_ref_add_ftz_f32(c.t[0].val, c.t[1].val, y->val, c.cols));
    f = failures(&c, y);
    ASSERT_TRUE(f >= 0);
    /* only the extreme case holds subnormals */
    if (c.spec.extreme ? f < 10 : f != 0)
      CM_TEST_FAIL_("case %d (%lld elements, extreme=%d): %lld failures", i,
                    (long long)c.cols, c.spec.extreme, (long long)f);
    failing += f;
    cases_failing += f > 0;
    pf_case_free(&c);
  }
  pf_set_free(&set);
  ASSERT_TRUE(cases_failing >= 1 && failing >= 10);
  return 0;
}

/* rmsnorm as the kernels compute it (fp32 sum of squares, mean, eps,
 * 1/sqrt), with eps placed as `how` says: 0 inside the square root, 1
 * added to the root, 2 inside but 1e-6 instead of the case's 1e-5; 3 as 0
 * but the mean divided by n - 1. */
static void rms_as_kernel(pf_case *c, int how) {
  const double *x = c->t[0].val, *w = c->t[1].val;
  double *y = c->t[2].val;
  int64_t r, i, n = c->cols;
  for (r = 0; r < c->rows; r++) {
    double ss = 0;
    float ms, rstd;
    for (i = 0; i < n; i++)
      ss += x[r * n + i] * x[r * n + i];
    ms = (float)ss / (float)n;
    if (how == 3)
      ms = (float)ss / (float)(n - 1);
    rstd = how == 1   ? 1.0f / (sqrtf(ms) + c->eps)
           : how == 2 ? 1.0f / sqrtf(ms + 1e-6f)
                      : 1.0f / sqrtf(ms + c->eps);
    for (i = 0; i < n; i++)
      y[r * n + i] = (double)((float)x[r * n + i] * rstd * (float)w[i]);
  }
}

/* rmsnorm's eps matters only where the mean square is near it: on random
 * rows (mean square 4/3) an eps added outside the square root or 1e-6 for
 * 1e-5 moves rstd by under 1e-5, and the tiny row's outputs (~1e-28 in
 * fp32 and bf16) sit under atol. The near-eps row of the extreme inputs
 * (pf_fill.c, rows 21 and 45 of 64x1000) makes both fail in every dtype,
 * and the kernels' own arithmetic still passes. */
TEST_IMPL(rmsnorm_eps_caught) {
  static const int64_t dims[2] = {64, 1000};
  int d, how;
  for (d = 0; d < 3; d++)
    for (how = 0; how < 3; how++) {
      int64_t f = model_failures("rmsnorm", (cpk_dtype)d, dims, 0, 21,
                                 rms_as_kernel, how);
      if (how == 0 ? f != 0 : f < 1000)
        CM_TEST_FAIL_("%s eps bug %d: %lld elements fail",
                      pf_dtype_name((cpk_dtype)d), how, (long long)f);
    }
  return 0;
}

/* softmax as the kernels compute it (fp32 max, exp and sum, a row with no
 * unmasked finite position all 0), except that the max skips the row's
 * first element (skip 1) or its last (skip 2), or (skip 3) a NaN or +inf
 * poisons the row before the mask is applied. */
static void softmax_as_kernel(pf_case *c, int skip) {
  const double *x = c->t[0].val;
  const uint8_t *m = c->t[1].mval;
  double *y = c->t[2].val;
  int64_t r, i, n = c->cols;
  for (r = 0; r < c->rows; r++) {
    const int64_t o = r * n;
    float mx = -INFINITY;
    double sum = 0;
    int nan = 0;
    for (i = 0; i < n; i++)
      if ((!m[o + i] || skip == 3) && (isnan(x[o + i]) || x[o + i] == INFINITY))
        nan = 1;
      else if (!m[o + i] && !(skip == 1 && i == 0) &&
               !(skip == 2 && i == n - 1) && x[o + i] > mx)
        mx = (float)x[o + i];
    for (i = 0; i < n; i++)
      sum += (y[o + i] = m[o + i] ? 0.0f : expf((float)x[o + i] - mx));
    for (i = 0; i < n; i++)
      y[o + i] = nan               ? NAN
                 : mx == -INFINITY ? 0.0
                                   : (double)((float)y[o + i] / (float)sum);
  }
}

/* A softmax whose max skips the first or the last element passes any row
 * where exp does not overflow: it fails only where that element is the
 * one unmasked position, row 3 of a masked case (its first, pf_fill.c)
 * and the ends row when it is such a row (its last: 64x1000's row 63). */
TEST_IMPL(softmax_max_skip_caught) {
  static const int64_t dims[2] = {64, 1000};
  int d, skip;
  for (d = 0; d < 3; d++)
    for (skip = 0; skip < 3; skip++) {
      int64_t f = model_failures("softmax", (cpk_dtype)d, dims, 1, 33,
                                 softmax_as_kernel, skip);
      if (skip == 0 ? f != 0 : f < 1)
        CM_TEST_FAIL_("%s max skipping %d: %lld elements fail",
                      pf_dtype_name((cpk_dtype)d), skip, (long long)f);
    }
  return 0;
}

/* A softmax that tests for NaN or +inf before applying the mask fails on
 * every seed, in every dtype: row 3 holds both at masked positions
 * (pf_fill.c). Before, it failed only where a special of the extreme rows
 * landed on a masked position (fp32 seed 1, the first tried, passed). */
TEST_IMPL(softmax_nan_before_mask_caught) {
  static const int64_t dims[2] = {64, 1000};
  int d;
  uint64_t seed;
  for (d = 0; d < 3; d++)
    for (seed = 1; seed <= 40; seed++) {
      int64_t ok = model_failures("softmax", (cpk_dtype)d, dims, 1, seed,
                                  softmax_as_kernel, 0);
      int64_t bad = model_failures("softmax", (cpk_dtype)d, dims, 1, seed,
                                   softmax_as_kernel, 3);
      if (ok != 0 || bad < 1)
        CM_TEST_FAIL_("%s seed %llu: %lld elements fail, %lld with the NaN "
                      "test before the mask",
                      pf_dtype_name((cpk_dtype)d), (unsigned long long)seed,
                      (long long)ok, (long long)bad);
    }
  return 0;
}

/* The value of dt nearest v toward zero: a store that truncates. */
static double toward_zero(cpk_dtype dt, double v) {
  double r = pf_dtype_round(dt, v);
  uint16_t h;
  if (!isfinite(v) || fabs(r) <= fabs(v))
    return r;
  /* r is a step too far; one less in the magnitude bits is the value
   * below it in magnitude, either sign (r != 0 here) */
  if (dt == CPK_BF16) {
    h = (uint16_t)(pf_f32_to_bf16((float)r) - 1);
    return pf_bf16_to_f32(h);
  }
  h = (uint16_t)(pf_f32_to_f16((float)r) - 1);
  return pf_f16_to_f32(h);
}

/* The rounding check of output y as stored (the model's values rounded to
 * the dtype, or truncated); *tol_failed receives the elements outside the
 * tolerance. Returns pf_rounding_check's verdict. */
static int rounding_of(pf_case *c, pf_tensor *y, const char *what, int truncate,
                       pf_rounding *rd, int64_t *tol_failed) {
  int64_t i, n = y->rows * y->cols;
  int fair;
  if (truncate)
    for (i = 0; i < n; i++)
      y->val[i] = toward_zero(c->dt, y->val[i]);
  *tol_failed = failures(c, y);
  fair = pf_rounding_check(c->dt, y->val, y->expected, n, NULL, 0, rd);
  printf("# %s %s %lldx%lld %s: %.2e of %lld off the nearest value, one way "
         "%+.3f, z %.1f; %lld outside the tolerance\n",
         c->op->name, pf_dtype_name(c->dt), (long long)c->rows,
         (long long)c->cols, what, rd->off, (long long)rd->counted, rd->one_way,
         rd->z, (long long)*tol_failed);
  return fair;
}

/* The rounding check (pf_tol.h) on the 16-bit row ops' cases without
 * extreme values, where rtol (never below half an ulp) passes a store that
 * truncates and a relative error of a good part of an ulp. The kernels'
 * own arithmetic (fp32, one rounding to nearest) stores the nearest value
 * on all but a few elements in 10^4; truncated, about half are off, all
 * toward zero; a softmax row sum off by 1/n (bf16 at 1000 columns) and an
 * rmsnorm mean divided by n - 1 (bf16 at 1000, fp16 at 4096) pass every
 * element's tolerance and fail the check. 16x262144 in fp16 is the shape of
 * the first design's false alarm (a share of the stored values above the
 * reference: 0.43 on the H200, from the few normal outputs of each row,
 * all just under the row's largest: docs/VALIDATION.md). */
TEST_IMPL(rounding_lean_caught) {
  static const int64_t shapes[3][2] = {{64, 1000}, {256, 4096}, {16, 262144}};
  int d, k;
  for (d = 1; d < 3; d++) {
    const cpk_dtype dt = (cpk_dtype)d;
    for (k = 0; k < 3; k++) {
      const int64_t *dims = shapes[k], n = dims[1];
      pf_case c;
      pf_rounding rd;
      int64_t bad, r;
      int m;
      for (m = 0; m < (k == 2 ? 2 : 4); m++) {
        /* softmax (masked) and rmsnorm, as computed and truncated */
        const int rms = m >= 2, trunc = m % 2;
        ASSERT_OK(host_case_x(&c, rms ? "rmsnorm" : "softmax", dt, dims, 2,
                              !rms, (rms ? 50 : 40) + (uint64_t)k, 0));
        if (rms)
          rms_as_kernel(&c, 0);
        else
          softmax_as_kernel(&c, 0);
        if (rounding_of(&c, &c.t[2], trunc ? "truncated" : "as the kernels",
                        trunc, &rd, &bad) == trunc ||
            bad != 0 || (trunc ? rd.one_way > -0.9 : rd.off > 1e-3))
          CM_TEST_FAIL_("%s %s %lldx%lld truncate %d: off %.2e one way %.3f "
                        "z %.1f, %lld outside the tolerance",
                        pf_dtype_name(dt), c.op->name, (long long)dims[0],
                        (long long)n, trunc, rd.off, rd.one_way, rd.z,
                        (long long)bad);
        pf_case_free(&c);
      }
      /* softmax whose row sum is 1/n too large: every output 1/(n+1) low */
      if (dt == CPK_BF16 && k == 0) {
        ASSERT_OK(host_case_x(&c, "softmax", dt, dims, 2, 1, 42, 0));
        softmax_as_kernel(&c, 0);
        for (r = 0; r < dims[0] * n; r++)
          c.t[2].val[r] /= 1.0 + 1.0 / (double)n;
        if (rounding_of(&c, &c.t[2], "row sum 1/n off", 0, &rd, &bad) != 0 ||
            bad != 0)
          CM_TEST_FAIL_("bf16 softmax sum 1/n off: off %.2e one way %.3f z "
                        "%.1f, %lld outside the tolerance",
                        rd.off, rd.one_way, rd.z, (long long)bad);
        pf_case_free(&c);
      }
      /* rmsnorm's mean divided by n - 1: bf16 at 1000, fp16 at 4096 */
      if (k < 2 && (dt == CPK_BF16) == (k == 0)) {
        ASSERT_OK(host_case_x(&c, "rmsnorm", dt, dims, 2, 0, 52, 0));
        rms_as_kernel(&c, 3);
        if (rounding_of(&c, &c.t[2], "mean over n - 1", 0, &rd, &bad) != 0 ||
            bad != 0)
          CM_TEST_FAIL_("%s rmsnorm n - 1 at %lld: off %.2e one way %.3f z "
                        "%.1f, %lld outside the tolerance",
                        pf_dtype_name(dt), (long long)n, rd.off, rd.one_way,
                        rd.z, (long long)bad);
        pf_case_free(&c);
      }
    }
  }
  return 0;
}

/* row_sum's SPLIT as the kernels plan it (kernels/common.cuh's plan_split:
 * chunks of at least 2048 columns, about 1024 blocks in all, a multiple of
 * 8 columns each), each chunk summed in double and its partial stored in
 * dt instead of fp32 (with store_dt), the partials then added in fp32. */
static void row_sum_split_model(pf_case *c, int store_dt) {
  const int64_t rows = c->rows, cols = c->cols;
  int64_t want = (1024 + rows - 1) / rows, by_len = (cols + 2047) / 2048;
  int64_t chunks = want < by_len ? want : by_len, cc, r, j, k;
  if (chunks > 4096)
    chunks = 4096;
  if (chunks < 1)
    chunks = 1;
  cc = ((cols + chunks - 1) / chunks + 7) / 8 * 8;
  for (r = 0; r < rows; r++) {
    float sum = 0;
    for (k = 0; k < cols; k += cc) {
      double part = 0;
      for (j = k; j < cols && j < k + cc; j++)
        part += c->t[0].val[r * cols + j];
      sum += store_dt ? (float)pf_dtype_round(c->dt, part) : (float)part;
    }
    c->t[1].val[r] = sum;
  }
}

/* row_sum's split partials stored in the dtype instead of fp32: on the
 * set's 260x131080 with extreme values (4 chunks a row) the kernels' own
 * arithmetic passes, and the bug fails each of the 7 cancelling rows
 * (pf_fill.c's P_CANCEL: rows 33, 69, ..., 249) besides the random and
 * huge rows whose sums happen to lie near 0 (before the cancelling row,
 * all it failed: 7 rows in fp16, 6 in bf16 with seed 61). The shapes of 3
 * to 5 rows have no cancelling row, and there the bug passes. */
TEST_IMPL(row_sum_partials_caught) {
  static const int64_t dims[2] = {260, 131080};
  int d, bug;
  for (d = 1; d < 3; d++)
    for (bug = 0; bug < 2; bug++) {
      /* pattern rows r % 4 == 1 take pattern (r / 4) % npat of the sums'
       * list (pf_fill.h), P_CANCEL its last */
      const int npat = pf_fill_npatterns(1);
      pf_case c;
      pf_tensor *y;
      int64_t f, r, cancel_failed = 0;
      ASSERT_OK(host_case(&c, "row_sum", (cpk_dtype)d, dims, 2, 0, 61));
      y = &c.t[1];
      ASSERT_TRUE(y->is_output);
      row_sum_split_model(&c, bug);
      f = failures(&c, y); /* rounds y to the dtype */
      for (r = 1; r < dims[0]; r += 4)
        if ((r / 4) % npat == npat - 1)
          cancel_failed += !pf_close(y->val[r], y->expected[r], y->scale[r],
                                     pf_tol_get(c.kop, c.dt));
      printf("# row_sum %s 260x131080 partials in %s: %lld rows fail, %lld "
             "of the 7 cancelling rows\n",
             pf_dtype_name((cpk_dtype)d), bug ? "the dtype" : "fp32",
             (long long)f, (long long)cancel_failed);
      if (bug ? cancel_failed != 7 || f < 7 : f != 0)
        CM_TEST_FAIL_("%s partials in %s: %lld rows fail, %lld cancelling",
                      pf_dtype_name((cpk_dtype)d), bug ? "the dtype" : "fp32",
                      (long long)f, (long long)cancel_failed);
      pf_case_free(&c);
    }
  return 0;
}

/* Bugs the default set catches today, pinned so that a looser tolerance or
 * a change of inputs that lets one through fails here: in every dtype, a
 * masked or all -inf row given NaN or 1/n instead of 0 and a softmax
 * without the max subtraction (64x1000, masked, extreme); softmax_backward
 * with the dot term's sign flipped; rmsnorm_backward's dw without the last
 * row (the ends row: its two ends); matmul without the last K step and
 * with B read untransposed (257x511x129, nt, padding 3). */
TEST_IMPL(row_and_matmul_mutations_caught) {
  static const int64_t rows[2] = {64, 1000}, mm[3] = {257, 511, 129};
  int d, bug;
  for (d = 0; d < 3; d++) {
    const cpk_dtype dt = (cpk_dtype)d;
    pf_case c;
    pf_tensor *y;
    int64_t r, i, p, f, n = rows[1];
    for (bug = 0; bug < 3; bug++) {
      ASSERT_OK(host_case(&c, "softmax", dt, rows, 2, 1, 5));
      y = &c.t[2];
      softmax_as_kernel(&c, 0);
      for (r = 0; r < rows[0]; r++) {
        const double *x = c.t[0].val + r * n;
        const uint8_t *mk = c.t[1].mval + r * n;
        float sum = 0;
        for (i = 0; i < n; i++) /* no max: exp(10000) overflows */
          sum += mk[i] ? 0.0f : expf((float)x[i]);
        for (i = 0; i < n; i++)
          if (bug == 2)
            y->val[r * n + i] = mk[i] ? 0.0 : (double)(expf((float)x[i]) / sum);
          else if (r % 4 == 2) /* fully masked: 0 expected */
            y->val[r * n + i] = bug == 0 ? NAN : 1.0 / (double)n;
      }
      f = failures(&c, y);
      if (f < (bug == 2 ? 1000 : 16 * n))
        CM_TEST_FAIL_("%s softmax bug %d: %lld fail", pf_dtype_name(dt), bug,
                      (long long)f);
      pf_case_free(&c);
    }
    /* softmax_backward: y (dy + dot) */
    ASSERT_OK(host_case(&c, "softmax_backward", dt, rows, 2, 0, 6));
    y = &c.t[2];
    for (r = 0; r < rows[0]; r++) {
      double dot = 0;
      for (i = 0; i < n; i++)
        dot += c.t[0].val[r * n + i] * c.t[1].val[r * n + i];
      for (i = 0; i < n; i++)
        y->val[r * n + i] =
            c.t[1].val[r * n + i] * (c.t[0].val[r * n + i] + dot);
    }
    ASSERT_TRUE(failures(&c, y) > 1000);
    pf_case_free(&c);
    /* rmsnorm_backward: dw = sum over all rows but the last (the ends row) */
    ASSERT_OK(host_case(&c, "rmsnorm_backward", dt, rows, 2, 0, 7));
    y = &c.t[4];
    {
      const double *dy = c.t[0].val + (rows[0] - 1) * n;
      const double *x = c.t[1].val + (rows[0] - 1) * n;
      double ss = 0;
      for (i = 0; i < n; i++)
        ss += x[i] * x[i];
      for (i = 0; i < n; i++)
        y->val[i] = y->expected[i] -
                    dy[i] * x[i] / sqrt(ss / (double)n + (double)c.eps);
    }
    ASSERT_TRUE(failures(&c, y) >= 2);
    pf_case_free(&c);
    /* matmul: without the last K step; B read as if not transposed */
    for (bug = 0; bug < 2; bug++) {
      pf_rng rng;
      int nops;
      const int64_t m = mm[0], nn = mm[1], k = mm[2];
      memset(&c, 0, sizeof c);
      c.spec.op = pf_op_find("matmul");
      c.spec.dt = dt;
      memcpy(c.spec.dims, mm, sizeof mm);
      c.spec.ndims = 3;
      c.spec.trans_b = 1;
      c.spec.ld_pad = 3;
      ASSERT_OK(pf_case_setup(&c, &pf_ops(&nops)[c.spec.op], CPK_V_NAIVE));
      pf_rng_seed(&rng, 8);
      c.op->fill(&c, &rng);
      ASSERT_OK(c.op->reference(&c));
      y = &c.t[2];
      for (r = 0; r < m; r++)
        for (i = 0; i < nn; i++) {
          double s = 0;
          for (p = 0; p < (bug == 0 ? k - 1 : k); p++)
            s += c.t[0].val[r * k + p] *
                 (bug == 0 ? c.t[1].val[i * k + p] : c.t[1].val[p * nn + i]);
          y->val[r * nn + i] = (double)(float)s;
        }
      f = failures(&c, y);
      if (f < m * nn / 2)
        CM_TEST_FAIL_("%s matmul bug %d: %lld fail", pf_dtype_name(dt), bug,
                      (long long)f);
      pf_case_free(&c);
    }
  }
  return 0;
}

static int cmp_index(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* A wrong region of a sampled matmul (docs/VALIDATION.md, "Matmul: sampled
 * verification of large products"): 1100x1000x2000 is 2.2e9 multiply-adds,
 * so it is checked on a sample under a limit of 2^31 (--sample-above
 * 2147483648; the default, 2^40, checks it in full). Its output is made equal
 * to the reference, then each 32x32 block of it (clipped at the edges) in turn
 * is put 1 off in full, as a tile stored in the wrong place or a garbled
 * fragment would be: the check on the sample must fail for every one. Before
 * the block draws were added the sample was the 4096 uniform draws and the
 * edges, and the uniform draws leave interior blocks without an element
 * (measured, seed 11: 16 of the 990 blocks that touch no edge row or
 * column, printed below); a block put off there passed. The sample is
 * sorted, unique, the same for the same seed, and keeps the uniform draws:
 * the block draws come after them. */
TEST_IMPL(matmul_sample_blocks) {
  static const int64_t dims[3] = {1100, 1000, 2000};
  const int64_t m = dims[0], n = dims[1], bs = PF_MATMUL_BLOCK;
  const int64_t mb = (m + bs - 1) / bs, nb = (n + bs - 1) / bs;
  pf_case c, again;
  pf_tensor *y;
  pf_rng rng;
  pf_cmp cmp;
  pf_tol tol;
  unsigned char *hit = calloc((size_t)(mb * nb), 1);
  int64_t q, i, j, r, missed = 0, interior = 0, passed = 0, first = -1;
  ASSERT_TRUE(hit != NULL);
  pf_set_matmul_sample_above((int64_t)1 << 31);
  ASSERT_OK(host_case_x(&c, "matmul", CPK_F32, dims, 3, 0, 11, 0));
  ASSERT_TRUE(c.sample != NULL);
  for (q = 1; q < c.nsample; q++)
    ASSERT_TRUE(c.sample[q] > c.sample[q - 1]); /* sorted, unique */
  ASSERT_TRUE(c.sample[0] == 0 && c.sample[c.nsample - 1] == m * n - 1);
  ASSERT_OK(host_case_x(&again, "matmul", CPK_F32, dims, 3, 0, 11, 0));
  ASSERT_EQ(again.nsample, c.nsample);
  ASSERT_TRUE(memcmp(again.sample, c.sample,
                     (size_t)c.nsample * sizeof *c.sample) == 0);
  pf_case_free(&again);
  /* The uniform draws, after the inputs' two keys: all still listed. */
  pf_rng_seed(&rng, 11);
  (void)pf_rng_next(&rng);
  (void)pf_rng_next(&rng);
  for (q = 0; q < PF_MATMUL_SAMPLE; q++) {
    const int64_t e = (int64_t)pf_rng_below(&rng, (uint64_t)(m * n));
    ASSERT_TRUE(bsearch(&e, c.sample, (size_t)c.nsample, sizeof e, cmp_index) !=
                NULL);
    hit[(e / n / bs) * nb + e % n / bs] = 1;
  }
  for (i = 0; i < mb; i++)
    for (j = 0; j < nb; j++)
      if (i > 0 && j > 0 && (i + 1) * bs < m && (j + 1) * bs < n) {
        interior++;
        missed += !hit[i * nb + j];
      }
  printf("# uniform draws alone: %lld of %lld interior blocks without an "
         "element\n",
         (long long)missed, (long long)interior);
  ASSERT_GT(missed, 0);
  /* Every block put off, one at a time, fails on the sample. */
  y = &c.t[2];
  ASSERT_TRUE(y->is_output);
  tol = pf_tol_get(c.kop, c.dt);
  memcpy(y->val, y->expected, (size_t)(m * n) * sizeof *y->val);
  ASSERT_TRUE(pf_compare(y->val, y->expected, y->scale, m * n, c.sample,
                         c.nsample, tol, &cmp));
  for (i = 0; i < m; i += bs)
    for (j = 0; j < n; j += bs) {
      const int64_t h = m - i < bs ? m - i : bs, w = n - j < bs ? n - j : bs;
      for (r = i; r < i + h; r++)
        for (q = j; q < j + w; q++)
          y->val[r * n + q] = y->expected[r * n + q] + 1.0;
      if ((pf_compare(y->val, y->expected, y->scale, m * n, c.sample, c.nsample,
                      tol, &cmp) ||
           cmp.failed < 1) &&
          passed++ == 0)
        first = i * n + j;
      for (r = i; r < i + h; r++)
        for (q = j; q < j + w; q++)
          y->val[r * n + q] = y->expected[r * n + q];
    }
  if (passed)
    CM_TEST_FAIL_("%lld of the %lld blocks put off passed, the first at row "
                  "%lld, column %lld",
                  (long long)passed, (long long)(mb * nb),
                  (long long)(first / n), (long long)(first % n));
  free(hit);
  pf_case_free(&c);
  pf_set_matmul_sample_above(-1);
  return 0;
}

/* The determinism rerun's comparison (pf_two_runs): an element a kernel
 * never wrote passes the value comparison where the reference is NaN (the
 * first poison is a NaN), but holds each launch's poison in turn, which
 * the rerun, poisoned with another byte, tells apart from a NaN written
 * twice; a changed element, and a gap written in the rerun, are named. */
static void fill_run(unsigned char *buf, unsigned char poison, int skip_r,
                     int skip_c, unsigned short salt) {
  int r, c;
  memset(buf, poison, 3 * 7 * 2);
  for (r = 0; r < 3; r++)
    for (c = 0; c < 5; c++) {
      unsigned short v = (unsigned short)(0x3f80 + r * 16 + c);
      if (r == skip_r && c == skip_c)
        continue;
      if (r == 2 && c == 4)
        v = (unsigned short)(v ^ salt);
      memcpy(buf + (size_t)(r * 7 + c) * 2, &v, 2);
    }
}

TEST_IMPL(two_runs_unwritten) {
  unsigned char a[3 * 7 * 2], b[3 * 7 * 2];
  int64_t where;
  unsigned short nan16 = 0xffff;
  /* the hole: a poison NaN against a NaN reference passes the values */
  ASSERT_TRUE(pf_close(NAN, NAN, 0.0, pf_tol_get(CPK_OP_SOFTMAX, CPK_BF16)));
  fill_run(a, 0xFF, -1, -1, 0);
  fill_run(b, 0x55, -1, -1, 0);
  ASSERT_EQ(pf_two_runs(a, b, 3, 5, 7, 2, 0xFF, 0x55, &where), PF_TWO_SAME);
  ASSERT_EQ(where, -1);
  /* element (1, 2) never written */
  fill_run(a, 0xFF, 1, 2, 0);
  fill_run(b, 0x55, 1, 2, 0);
  ASSERT_EQ(pf_two_runs(a, b, 3, 5, 7, 2, 0xFF, 0x55, &where),
            PF_TWO_UNWRITTEN);
  ASSERT_EQ(where, 1 * 5 + 2);
  /* written as NaN with the poison's bits, twice: the same, not unwritten */
  memcpy(a + (size_t)(1 * 7 + 2) * 2, &nan16, 2);
  memcpy(b + (size_t)(1 * 7 + 2) * 2, &nan16, 2);
  ASSERT_EQ(pf_two_runs(a, b, 3, 5, 7, 2, 0xFF, 0x55, &where), PF_TWO_SAME);
  /* the last element different between the launches */
  fill_run(a, 0xFF, -1, -1, 0);
  fill_run(b, 0x55, -1, -1, 1);
  ASSERT_EQ(pf_two_runs(a, b, 3, 5, 7, 2, 0xFF, 0x55, &where), PF_TWO_DIFFER);
  ASSERT_EQ(where, 2 * 5 + 4);
  /* a gap byte of row 1 written in the rerun */
  fill_run(b, 0x55, -1, -1, 0);
  b[(size_t)(1 * 7 + 6) * 2] = 0;
  ASSERT_EQ(pf_two_runs(a, b, 3, 5, 7, 2, 0xFF, 0x55, &where), PF_TWO_GAP);
  ASSERT_EQ(where, 1);
  /* contiguous (ld == cols): no gaps to check */
  ASSERT_EQ(pf_two_runs(a, a, 3, 7, 7, 2, 0xFF, 0x55, &where), PF_TWO_SAME);
  return 0;
}

/* rmsnorm_backward's dx as the kernels compute it in fp32, with the row
 * coefficient rstd^3 d / cols multiplied left to right (old: rstd^3 is a
 * subnormal on the extreme rows of 1e15) or as rb_coef orders it (new). */
static void rmsbwd_dx_as_kernel(pf_case *c, pf_tensor *dx, int old) {
  const pf_tensor *g = NULL, *x = NULL, *w = NULL;
  int64_t r, i, n = c->cols;
  for (i = 0; i < c->ntensors; i++) {
    if (strcmp(c->t[i].name, "dy") == 0)
      g = &c->t[i];
    else if (strcmp(c->t[i].name, "x") == 0)
      x = &c->t[i];
    else if (strcmp(c->t[i].name, "w") == 0)
      w = &c->t[i];
  }
  for (r = 0; r < c->rows; r++) {
    const double *gr = g->val + r * n, *xr = x->val + r * n;
    double ss = 0, dd = 0;
    float rs, d, nc;
    volatile float r3, r2;
    for (i = 0; i < n; i++) {
      ss += xr[i] * xr[i];
      dd += gr[i] * w->val[i] * xr[i];
    }
    rs = 1.0f / sqrtf((float)ss / (float)n + 1e-5f);
    d = (float)dd;
    r3 = rs * rs * rs;
    r2 = rs * rs;
    nc = old ? -(r3 * d / (float)n) : -(r2 * (rs * d / (float)n));
    for (i = 0; i < n; i++)
      dx->val[r * n + i] = pf_dtype_round(
          c->dt, fmaf(rs, (float)gr[i] * (float)w->val[i], (float)xr[i] * nc));
  }
}

/* The extreme rows of 1e15 put rmsnorm_backward's dx near 1e-15, under
 * atol: pf_compare passes the old coefficient's dx there (off by about
 * 0.1 % in fp32, measured so on an H100), and pf_compare_small_rows, which
 * scales atol by such a row's size, fails it on those rows alone; the
 * reordered coefficient passes both, in every dtype. */
TEST_IMPL(small_rows_rmsbwd_caught) {
  static const int64_t dims[2] = {64, 1000};
  int d, old;
  for (d = 0; d < 3; d++)
    for (old = 0; old < 2; old++) {
      pf_case c;
      pf_tensor *dx = NULL;
      pf_cmp cmp;
      pf_tol tol;
      int i, ok;
      ASSERT_OK(host_case(&c, "rmsnorm_backward", (cpk_dtype)d, dims, 2, 0, 5));
      for (i = 0; i < c.ntensors; i++)
        if (strcmp(c.t[i].name, "dx") == 0)
          dx = &c.t[i];
      ASSERT_TRUE(dx != NULL);
      tol = pf_tol_get(c.kop, c.dt);
      rmsbwd_dx_as_kernel(&c, dx, old);
      ASSERT_EQ(pf_compare(dx->val, dx->expected, dx->scale, 64 * 1000, NULL, 0,
                           tol, &cmp),
                1);
      ok = pf_compare_small_rows(dx->val, dx->expected, dx->scale, 64, 1000,
                                 tol, pf_dtype_tiny(c.dt), &cmp);
      if (old && d == CPK_F32) {
        ASSERT_EQ(ok, 0);
        ASSERT_TRUE(cmp.failed > 0);
        /* only the huge rows (9, 33, 57 of 64x1000) are so compared */
        ASSERT_EQ(cmp.checked, 3 * 1000);
        ASSERT_TRUE(cmp.worst / 1000 == 9 || cmp.worst / 1000 == 33 ||
                    cmp.worst / 1000 == 57);
      } else if (!old) {
        if (!ok)
          CM_TEST_FAIL_("%s: the reordered coefficient fails %lld elements",
                        pf_dtype_name((cpk_dtype)d), (long long)cmp.failed);
      }
      pf_case_free(&c);
    }
  return 0;
}

/* A product above the sampling limit whose sample is missing (its
 * allocation failed) is refused at once, never referenced in full (2.25e9
 * multiply-adds here, above a limit of 2^31: a second; 8192^3 above the
 * default, a minute on 8 cores). */
TEST_IMPL(matmul_no_sample_refused) {
  static const int64_t dims[3] = {2048, 1100, 1000};
  pf_case c;
  double t0;
  pf_set_matmul_sample_above((int64_t)1 << 31);
  ASSERT_OK(host_case_setup(&c, "matmul", CPK_F32, dims, 3, 0, 0));
  ASSERT_TRUE(c.sample == NULL); /* no fill: as if its malloc failed */
  t0 = plat_monotonic_s();
  ASSERT_EQ(c.op->reference(&c), CM_ENOMEM);
  ASSERT_TRUE(plat_monotonic_s() - t0 < 0.5);
  pf_case_free(&c);
  pf_set_matmul_sample_above(-1);
  return 0;
}

/* op(A)[i, p] and op(B)[p, j] of a matmul case's inputs. */
static double mm_a(const pf_case *c, int64_t i, int64_t p) {
  return c->t[0].val[c->g.trans_a ? p * c->g.m + i : i * c->g.k + p];
}
static double mm_b(const pf_case *c, int64_t p, int64_t j) {
  return c->t[1].val[c->g.trans_b ? j * c->g.k + p : p * c->g.n + j];
}

/* C = op(A) op(B) as a kernel computes it: a binary32 sum of the products
 * (k ascending, or descending with `down`), with fmaf; bug 1: the inputs
 * below the dtype's smallest normal flushed to zero first;
 * bug 2: the store saturating to the largest finite value (satfinite);
 * bug 3: a non-finite product skipped. */
static void matmul_as_kernel(pf_case *c, double *out, int down, int bug) {
  const double tiny = min_normal[c->dt];
  const double top = pf_dtype_max(c->dt);
  int64_t i, j, q;
  for (i = 0; i < c->g.m; i++)
    for (j = 0; j < c->g.n; j++) {
      float s = 0.0f;
      double v;
      for (q = 0; q < c->g.k; q++) {
        const int64_t p = down ? c->g.k - 1 - q : q;
        float a = (float)mm_a(c, i, p), b = (float)mm_b(c, p, j);
        if (bug == 1 && fabsf(a) < tiny)
          a = 0.0f;
        if (bug == 1 && fabsf(b) < tiny)
          b = 0.0f;
        if (bug == 3 && !isfinite(a * b))
          continue;
        s = fmaf(a, b, s);
      }
      v = pf_dtype_round(c->dt, (double)s);
      if (bug == 2 && isinf(v))
        v = copysign(top, v);
      out[i * c->g.n + j] = v;
    }
}

/* Matmul's extreme inputs (pf_fill_matmul, docs/VALIDATION.md): each
 * operand reaches both ends of its dtype's range (fp16 with subnormals in
 * both; bf16 and fp32 in one, op(A) where the layouts agree, else op(B)),
 * the specials land where they are documented, and the products keep
 * their size: a kernel's binary32 arithmetic passes the check in either
 * order of its sum, while a flush of subnormal inputs, a saturating store,
 * or a skipped non-finite product fails it. */
TEST_IMPL(matmul_extreme) {
  static const struct {
    int64_t m, n, k;
    int ta, tb;
  } shapes[] = {{33, 65, 17, 0, 0}, {57, 41, 129, 1, 0}, {40, 72, 24, 1, 1}};
  /* the scales docs/VALIDATION.md states, stated again here. fp16:
   * 2^sk16[p % 5] on op(A)'s column p and 2^-sk16 on op(B)'s row p,
   * 2^rs16[i % 3] on op(A)'s row i, 2^cs16[j % 3] on op(B)'s column j.
   * bf16 and fp32: on the operand with the subnormals, 2^sk32[p % 5]
   * along k and 2^ls32 along its other index; on the other, 2^-sk32. */
  static const int sk16[5] = {0, 8, -8, 12, -12}, rs16[3] = {0, 3, -3},
                   cs16[3] = {0, 2, -2};
  static const int sk32[5] = {0, 40, -40, 60, -127}, ls32[3] = {0, 30, 60};
  int d, s, down, bug;
  for (d = 0; d < 3; d++)
    for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
      const cpk_dtype dt = (cpk_dtype)d;
      const int w = dt != CPK_F16;
      const int64_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
      const int64_t dims[3] = {m, n, k};
      const double top = pf_dtype_max(dt);
      /* the operand with bf16's and fp32's subnormals: 0 op(A), 1 op(B) */
      const int so = shapes[s].ta != shapes[s].tb;
      double amax = 0, amin = INFINITY, bmax = 0, bmin = INFINITY;
      int64_t i, j, p, asub = 0, bsub = 0, nonfinite = 0, f;
      pf_case c;
      pf_rng rng;
      pf_tensor *y;
      int nops;
      memset(&c, 0, sizeof c);
      c.spec.op = pf_op_find("matmul");
      c.spec.dt = dt;
      memcpy(c.spec.dims, dims, sizeof dims);
      c.spec.ndims = 3;
      c.spec.trans_a = shapes[s].ta;
      c.spec.trans_b = shapes[s].tb;
      c.spec.extreme = 1;
      ASSERT_OK(pf_case_setup(&c, &pf_ops(&nops)[c.spec.op], CPK_V_NAIVE));
      pf_rng_seed(&rng, 77 + (uint64_t)s);
      c.op->fill(&c, &rng);
      ASSERT_OK(c.op->reference(&c));
      y = &c.t[2];
      pf_dtype_saturate(dt, y->expected, m * n);
      /* the inputs: the specials where documented, every other value
       * finite, within the dtype, and spread over its range */
      ASSERT_TRUE(mm_a(&c, m / 4, 0) == top && mm_b(&c, 0, n / 4) == top);
      ASSERT_TRUE(isinf(mm_a(&c, m / 2, 1)) && mm_a(&c, m / 2, 1) > 0);
      ASSERT_TRUE(isnan(mm_b(&c, 2, n / 2)));
      for (i = 0; i < m; i++)
        for (p = 0; p < k; p++) {
          const double a = fabs(mm_a(&c, i, p));
          if (p == 0 || (i == m / 2 && p == 1))
            continue;
          ASSERT_TRUE(a <= top);
          /* within its scale: the uniform value was in [-1, 1] */
          ASSERT_TRUE(a <= ldexp(1.0, !w        ? sk16[p % 5] + rs16[i % 3]
                                      : so == 0 ? sk32[p % 5] + ls32[i % 3]
                                                : -sk32[p % 5]));
          amax = a > amax ? a : amax;
          amin = a > 0 && a < amin ? a : amin;
          asub += a > 0 && a < min_normal[d];
        }
      for (p = 0; p < k; p++)
        for (j = 0; j < n; j++) {
          const double b = fabs(mm_b(&c, p, j));
          if (p == 0 || (p == 2 && j == n / 2))
            continue;
          ASSERT_TRUE(b <= top);
          ASSERT_TRUE(b <= ldexp(1.0, !w        ? -sk16[p % 5] + cs16[j % 3]
                                      : so == 1 ? sk32[p % 5] + ls32[j % 3]
                                                : -sk32[p % 5]));
          bmax = b > bmax ? b : bmax;
          bmin = b > 0 && b < bmin ? b : bmin;
          bsub += b > 0 && b < min_normal[d];
        }
      if (dt == CPK_F16) {
        ASSERT_TRUE(amax >= 0x1p14 && bmax >= 0x1p13);
        ASSERT_TRUE(amin < 0x1p-18 && bmin < 0x1p-18);
        ASSERT_TRUE(asub + bsub > (m + n) * k / 20); /* about 9 % */
      } else {
        /* the operand with the subnormals: 2^120 and about 1/15 of its
         * values subnormal; the other: 2^127 and 2^-60, all normal */
        const double smax = so ? bmax : amax, omax = so ? amax : bmax;
        const double smin = so ? bmin : amin, omin = so ? amin : bmin;
        const int64_t ssub = so ? bsub : asub, osub = so ? asub : bsub;
        ASSERT_TRUE(smax >= 0x1p118 && omax >= 0x1p126);
        ASSERT_TRUE(smin < min_normal[d] && omin < 0x1p-60);
        ASSERT_TRUE(ssub > (so ? n : m) * k / 20);
        ASSERT_EQ(osub, 0);
      }
      /* the outputs the specials make; every other one finite */
      ASSERT_TRUE(isinf(y->expected[(m / 4) * n + n / 4]) &&
                  y->expected[(m / 4) * n + n / 4] > 0);
      for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
          const double e = y->expected[i * n + j];
          if (j == n / 2)
            ASSERT_TRUE(isnan(e));
          else if (i == m / 2)
            ASSERT_TRUE(isinf(e) || isnan(e));
          else if (!(i == m / 4 && j == n / 4))
            ASSERT_TRUE(isfinite(e));
          nonfinite += !isfinite(e);
        }
      ASSERT_EQ(nonfinite, m + n - 1 + (m / 4 != m / 2 && n / 4 != n / 2));
      /* a kernel's arithmetic, both orders: passes */
      for (down = 0; down < 2; down++) {
        matmul_as_kernel(&c, y->val, down, 0);
        f = failures(&c, y);
        if (f != 0)
          CM_TEST_FAIL_("%s %lldx%lldx%lld order %d: %lld fail",
                        pf_dtype_name(dt), (long long)m, (long long)n,
                        (long long)k, down, (long long)f);
      }
      /* the faults: fail */
      for (bug = 1; bug <= 3; bug++) {
        /* bug 1: most outputs (bf16, fp32: most of the third of C's rows,
         * or columns, whose products meet the subnormals); 2: row m/2's
         * infinities; 3: row m/2 and column n/2 */
        const int64_t least = bug == 1   ? (w ? m * n / 4 : m * n / 2)
                              : bug == 2 ? n / 2
                                         : m + n - 1;
        matmul_as_kernel(&c, y->val, 0, bug);
        f = failures(&c, y);
        if (f < least)
          CM_TEST_FAIL_("%s %lldx%lldx%lld bug %d: %lld fail",
                        pf_dtype_name(dt), (long long)m, (long long)n,
                        (long long)k, bug, (long long)f);
      }
      pf_case_free(&c);
    }
  return 0;
}

/* n little-endian values of a .npy file that cuda_portfolio --dump wrote
 * (header: magic, version 1.0, a 2-byte length), as doubles: elsize 2
 * (fp16) or 8 (float64). 0 on success. */
static int read_npy(const char *path, size_t elsize, int64_t n, double *out) {
  unsigned char head[10], b[8];
  FILE *f = fopen(path, "rb");
  int64_t i;
  if (f == NULL || fread(head, 1, 10, f) != 10 ||
      fseek(f, 10 + head[8] + 256 * head[9], SEEK_SET) != 0)
    return -1;
  for (i = 0; i < n; i++) {
    double v;
    if (fread(b, 1, elsize, f) != elsize)
      break;
    if (elsize == 2)
      v = pf_dtype_load(CPK_F16, b);
    else
      memcpy(&v, b, 8);
    out[i] = v;
  }
  fclose(f);
  return i == n ? 0 : -1;
}

/* A correct kernel failed the row-scaled check (pf_compare_small_rows) on
 * an H100 (2026-12-07, tests/fixtures/h100-sbwd-small-row/README.md):
 * softmax_backward fp16 64x1000 with extreme values, row 53, whose
 * outputs all lie under atol (1e-7): atol scaled to 1e-7 times the row's
 * largest |expected| left 6e-15 of room where fp16 stores that row in
 * steps of 2^-24 (6e-8), and element 53879, expected 5.65e-8, was stored
 * as 2^-24, its correctly rounded value. The room is now at least one
 * step of the dtype: the captured outputs pass, and one put a step
 * further off still fails. */
TEST_IMPL(small_rows_dtype_step) {
  const int64_t rows = 64, cols = 1000, n = rows * cols;
  double *dx = malloc((size_t)n * sizeof *dx);
  double *ref = malloc((size_t)n * sizeof *ref);
  const pf_tol tol = pf_tol_get(CPK_OP_SOFTMAX_BWD, CPK_F16);
  pf_cmp cmp;
  ASSERT_TRUE(dx != NULL && ref != NULL);
  ASSERT_EQ(read_npy(CM_SOURCE_DIR
                     "/tests/fixtures/h100-sbwd-small-row/"
                     "case0000_softmax_backward_fused_fp16_dx.npy",
                     2, n, dx),
            0);
  ASSERT_EQ(read_npy(CM_SOURCE_DIR
                     "/tests/fixtures/h100-sbwd-small-row/"
                     "case0000_softmax_backward_fused_fp16_dx_ref.npy",
                     8, n, ref),
            0);
  pf_dtype_saturate(CPK_F16, ref, n);
  ASSERT_TRUE(dx[53879] == 0x1p-24 && ref[53879] > 5.6e-8 &&
              ref[53879] < 5.7e-8);
  /* the plain check passes; the row-scaled one without the step (as
   * before) fails row 53, with it passes */
  ASSERT_EQ(pf_compare(dx, ref, NULL, n, NULL, 0, tol, &cmp), 1);
  ASSERT_EQ(pf_compare_small_rows(dx, ref, NULL, rows, cols, tol, 0.0, &cmp),
            0);
  /* (the GPU run failed 1 element; the dump has no gamma scales, so here
   * one more of row 53 fails too) */
  ASSERT_TRUE(cmp.failed >= 1 && cmp.worst / cols == 53);
  ASSERT_EQ(pf_compare_small_rows(dx, ref, NULL, rows, cols, tol,
                                  pf_dtype_tiny(CPK_F16), &cmp),
            1);
  ASSERT_TRUE(cmp.checked >= cols);
  /* two steps off: still caught */
  dx[53879] = 3 * 0x1p-24;
  ASSERT_EQ(pf_compare_small_rows(dx, ref, NULL, rows, cols, tol,
                                  pf_dtype_tiny(CPK_F16), &cmp),
            0);
  free(dx);
  free(ref);
  return 0;
}
