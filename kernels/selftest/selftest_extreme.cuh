/* selftest_extreme.cuh: extreme wide rows for the row reductions (included
 * once from cpk_selftest.cu, after selftest_ops.cuh).
 *
 * Rows of 1,048,577 values near 1e4 (10000 and 9999 alternating, as the
 * portfolio's "large equal" pattern), some with +-1e4 cancellations. A plain
 * fp32 loop over ~3*10^4 such terms per thread is off by ~1e-4 relative;
 * the kernels' compensated sums must stay inside the portfolio's rule
 *   |got - want| <= atol + rtol * |want| + gamma * sum|terms|
 * with gamma = 2e-6 (32 fp32 roundings) and the per-dtype atol/rtol of the
 * portfolio's tolerance table (src/portfolio/pf_tol.c). The loose
 * eps_of rule of check_out would let the old kernels pass, hence this
 * separate check. */

namespace {

/* Tolerance of one (op, dtype): the numbers of pf_tol.c. */
struct Tol {
  double rtol, atol, gamma;
};

const double kGamma = 2e-6;

int dt_index(cpk_dtype d) {
  return d == CPK_F32 ? 0 : d == CPK_F16 ? 1 : 2;
}
double rtol_of(cpk_dtype d, double f32) {
  const double r[3] = {f32, 1e-3, 1.6e-2};
  return r[dt_index(d)];
}

/* Like check_out (walk_out: determinism, padding poison), with the
 * tolerance above; the failure message names the error in units of the
 * allowance. */
void check_tol(Tally &t, const char *what, const Out &o, Tol tol,
               const std::vector<char> &run1, const std::vector<char> &run2,
               const char *shape) {
  walk_out(t, what, o, run1, run2, shape,
           [&](double got, size_t j, int64_t r, int64_t c) {
             const double want = (*o.ref)[j];
             const double allow = tol.atol + tol.rtol * std::fabs(want) +
                                  tol.gamma * (*o.scale)[j];
             if (std::fabs(got - want) <= allow)
               return true;
             fail(t, "%s %s: (%lld,%lld) got %.9g want %.17g (%.3g x allowed)",
                  shape, what, (long long)r, (long long)c, got, want,
                  std::fabs(got - want) / allow);
             return false;
           });
}

/* Row r of the extreme input (before rounding to dt). Row 0: 10000/9999
 * alternating. Row 1: the same with a -1e4, -9999 pair every 4096 columns.
 * Row 2: 1e4 + uniform(-1, 1). Row 3: +-1e4 in alternating 64-column
 * blocks, so the row nearly cancels and gamma * sum|terms| dominates. */
void extreme_row(float *row, int64_t r, int64_t cols) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t c = 0; c < cols; ++c) {
    const float base = (c & 1) ? 9999.f : 10000.f;
    switch (r % 4) {
    case 0:
      row[c] = base;
      break;
    case 1:
      row[c] = (c % 4096 == 100 || c % 4096 == 101) ? -base : base;
      break;
    case 2:
      row[c] = 1e4f + u(g_rng);
      break;
    default:
      row[c] = ((c >> 6) & 1) ? -base : base;
      break;
    }
  }
}

std::vector<float> extreme_in(cpk_dtype dt, const RowShape &s) {
  std::vector<float> h((size_t)(s.rows * s.stride), 0.f);
  for (int64_t r = 0; r < s.rows; ++r) {
    extreme_row(&h[(size_t)(r * s.stride)], r, s.cols);
    for (int64_t c = 0; c < s.cols; ++c)
      h[(size_t)(r * s.stride + c)] = rnd(dt, h[(size_t)(r * s.stride + c)]);
  }
  return h;
}

void ext_row_sum(const RowShape &s, cpk_dtype dt, const char *sh) {
  std::vector<float> h = extreme_in(dt, s);
  Buf x = alloc(dt, h.size(), s.off), y = alloc(dt, (size_t)s.rows, s.off);
  upload(x, h);
  std::vector<double> ref((size_t)s.rows, 0.0), scale((size_t)s.rows, 0.0);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c) {
      ref[r] += h[(size_t)(r * s.stride + c)];
      scale[r] += std::fabs(h[(size_t)(r * s.stride + c)]);
    }
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  const Tol tol = {rtol_of(dt, 1.3e-6), 1e-5, kGamma};
  each_variant("extreme_row_sum", CPK_OP_ROW_SUM, dt, shape, kRowVariants,
               [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                 std::vector<char> r1, r2;
                 if (run2(
                         t, sh, y,
                         [&] {
                           return cpk_row_sum(v, dt, x.p(), y.p(), shape, ws,
                                              wb, 0);
                         },
                         r1, r2))
                   check_tol(t, "y", {&y, 1, s.rows, s.rows, &ref, &scale}, tol,
                             r1, r2, sh);
               });
  release(x);
  release(y);
}

/* Softmax of the extreme rows and, with y = that softmax and dy = the row
 * scaled to ~1, its backward (the dot sum dy*y has 10^6 terms). */
void ext_softmax(const RowShape &s, cpk_dtype dt, const char *sh) {
  std::vector<float> h = extreme_in(dt, s);
  const size_t n = h.size();
  std::vector<double> ref((size_t)(s.rows * s.cols)), zero(ref.size(), 0.0);
  std::vector<float> yh(n, 0.f), dyh(n, 0.f);
  for (int64_t r = 0; r < s.rows; ++r) {
    const float *xr = &h[(size_t)(r * s.stride)];
    double M = -INFINITY, S = 0;
    for (int64_t c = 0; c < s.cols; ++c)
      M = xr[c] > M ? xr[c] : M;
    for (int64_t c = 0; c < s.cols; ++c)
      S += std::exp(xr[c] - M);
    for (int64_t c = 0; c < s.cols; ++c) {
      const size_t i = (size_t)(r * s.stride + c);
      ref[(size_t)(r * s.cols + c)] = std::exp(xr[c] - M) / S;
      yh[i] = rnd(dt, (float)ref[(size_t)(r * s.cols + c)]);
      dyh[i] = rnd(dt, xr[c] * 1e-4f);
    }
  }
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  Buf x = alloc(dt, n, s.off), y = alloc(dt, n, s.off);
  upload(x, h);
  const double sm_atol[3] = {1e-9, 1e-7, 1e-9};
  const Tol tsm = {rtol_of(dt, 1e-5), sm_atol[dt_index(dt)], 0.0};
  each_variant(
      "extreme_softmax", CPK_OP_SOFTMAX, dt, shape,
      {CPK_V_WARP, CPK_V_BLOCK, CPK_V_ONLINE, CPK_V_SPLIT, CPK_V_FUSED},
      [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
        std::vector<char> r1, r2;
        if (run2(
                t, sh, y,
                [&] {
                  return cpk_softmax(v, dt, x.p(), y.p(), nullptr, 0, shape, ws,
                                     wb, 0);
                },
                r1, r2))
          check_tol(t, "y", {&y, s.rows, s.cols, s.stride, &ref, &zero}, tsm,
                    r1, r2, sh);
      });
  /* Backward: reuse x's buffer for dy, y's for the given y. */
  upload(x, dyh);
  upload(y, yh);
  Buf dx = alloc(dt, n, s.off);
  std::vector<double> scale(ref.size());
  for (int64_t r = 0; r < s.rows; ++r) {
    double dot = 0, adot = 0;
    for (int64_t c = 0; c < s.cols; ++c) {
      const size_t i = (size_t)(r * s.stride + c);
      dot += (double)dyh[i] * yh[i];
      adot += std::fabs((double)dyh[i] * yh[i]);
    }
    for (int64_t c = 0; c < s.cols; ++c) {
      const size_t i = (size_t)(r * s.stride + c);
      ref[(size_t)(r * s.cols + c)] = yh[i] * (dyh[i] - dot);
      scale[(size_t)(r * s.cols + c)] =
          std::fabs(yh[i]) * (std::fabs(dyh[i]) + adot);
    }
  }
  const Tol tbw = {rtol_of(dt, 1.3e-6), sm_atol[dt_index(dt)], kGamma};
  each_variant("extreme_softmax_bwd", CPK_OP_SOFTMAX_BWD, dt, shape,
               kRowVariants, [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                 std::vector<char> r1, r2;
                 if (run2(
                         t, sh, dx,
                         [&] {
                           return cpk_softmax_bwd(v, dt, x.p(), y.p(), dx.p(),
                                                  shape, ws, wb, 0);
                         },
                         r1, r2))
                   check_tol(t, "dx",
                             {&dx, s.rows, s.cols, s.stride, &ref, &scale}, tbw,
                             r1, r2, sh);
               });
  release(x);
  release(y);
  release(dx);
}

void ext_rmsnorm(const RowShape &s, cpk_dtype dt, const char *sh) {
  const float eps = 1e-5f;
  std::vector<float> h = extreme_in(dt, s);
  std::vector<float> w = rand_vec(dt, (size_t)s.cols, 0.5f, 1.5f);
  std::vector<float> g = rand_vec(dt, h.size(), -1.f, 1.f);
  const size_t n = h.size();
  Buf x = alloc(dt, n, s.off), bw = alloc(dt, w.size(), s.off),
      bg = alloc(dt, n, s.off), y = alloc(dt, n, s.off),
      dw = alloc(dt, w.size(), s.off);
  upload(x, h);
  upload(bw, w);
  upload(bg, g);
  const size_t m = (size_t)(s.rows * s.cols);
  std::vector<double> yref(m), zero(m, 0.0), dxref(m), dxs(m);
  std::vector<double> dwr((size_t)s.cols, 0.0), dws((size_t)s.cols, 0.0);
  for (int64_t r = 0; r < s.rows; ++r) {
    const float *xr = &h[(size_t)(r * s.stride)],
                *gr = &g[(size_t)(r * s.stride)];
    double ss = 0, d = 0, ad = 0;
    for (int64_t c = 0; c < s.cols; ++c) {
      ss += (double)xr[c] * xr[c];
      d += (double)gr[c] * w[c] * xr[c];
      ad += std::fabs((double)gr[c] * w[c] * xr[c]);
    }
    const double rstd = 1.0 / std::sqrt(ss / s.cols + eps);
    const double k3 = rstd * rstd * rstd / s.cols;
    for (int64_t c = 0; c < s.cols; ++c) {
      const size_t j = (size_t)(r * s.cols + c);
      yref[j] = xr[c] * rstd * w[c];
      dxref[j] = rstd * gr[c] * w[c] - xr[c] * k3 * d;
      dxs[j] =
          rstd * std::fabs((double)gr[c] * w[c]) + std::fabs(xr[c]) * k3 * ad;
      dwr[c] += (double)gr[c] * xr[c] * rstd;
      dws[c] += std::fabs((double)gr[c] * xr[c] * rstd);
    }
  }
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  const Tol tf = {rtol_of(dt, 1e-5), 1e-5, 0.0};
  const Tol tb = {rtol_of(dt, 1e-5), 1e-5, kGamma};
  each_variant("extreme_rmsnorm", CPK_OP_RMSNORM, dt, shape, kRowVariants,
               [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                 std::vector<char> r1, r2;
                 if (run2(
                         t, sh, y,
                         [&] {
                           return cpk_rmsnorm(v, dt, x.p(), bw.p(), y.p(), eps,
                                              shape, ws, wb, 0);
                         },
                         r1, r2))
                   check_tol(t, "y",
                             {&y, s.rows, s.cols, s.stride, &yref, &zero}, tf,
                             r1, r2, sh);
               });
  /* y is the backward's dx; a FUSED backward that does not fit (two rows on
   * chip) is left out where the forward ran */
  each_variant("extreme_rmsnorm_bwd", CPK_OP_RMSNORM_BWD, dt, shape,
               kRowVariants, [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                 std::vector<char> r1, r2;
                 auto go = [&] {
                   return cpk_rmsnorm_bwd(v, dt, bg.p(), x.p(), bw.p(), y.p(),
                                          dw.p(), eps, shape, ws, wb, 0);
                 };
                 if (run2(t, sh, y, go, r1, r2))
                   check_tol(t, "dx",
                             {&y, s.rows, s.cols, s.stride, &dxref, &dxs}, tb,
                             r1, r2, sh);
                 --t.cases; /* the dw check below is part of the same case */
                 if (run2(t, sh, dw, go, r1, r2))
                   check_tol(t, "dw", {&dw, 1, s.cols, s.cols, &dwr, &dws}, tb,
                             r1, r2, sh);
               });
  release(x);
  release(bw);
  release(bg);
  release(y);
  release(dw);
}

/* Two layouts: stride == cols (rows not 16-byte aligned: the scalar path,
 * as in the failing portfolio case) and a padded stride (vector path). */
void test_extreme_rows() {
  const RowShape shapes[] = {{4, 1048577, 1048577, 0},
                             {4, 1048577, 1048584, 0}};
  char sh[96];
  for (const RowShape &s : shapes) {
    shape_str(sh, sizeof sh, s);
    for (cpk_dtype dt : kDts) {
      /* A 1e10 row total is not representable in fp16 (max 65504). */
      if (dt != CPK_F16)
        ext_row_sum(s, dt, sh);
      ext_softmax(s, dt, sh);
      ext_rmsnorm(s, dt, sh);
    }
  }
}

} /* namespace */
