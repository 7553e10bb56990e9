/* selftest_ops.cuh: the per-op tests of cpk_selftest.cu (included once
 * from it, after its helpers). Each test builds dtype-rounded inputs, a
 * float64 reference with a per-element magnitude for the tolerance, and runs
 * every variant through run2/check_out. */

namespace {

void expect_inval(Tally &t, const char *what, cudaError_t e) {
  ++t.cases;
  if (e != cudaErrorInvalidValue)
    fail(t, "%s: returned %s, want cudaErrorInvalidValue", what,
         cudaGetErrorName(e));
}

void *dev_ws(size_t bytes) {
  void *p = nullptr;
  if (bytes) {
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, 0, bytes)); /* zeroed once, as cpk.h asks */
  }
  return p;
}

/* The row ops' variants that every test runs; softmax adds its own. */
const std::vector<cpk_variant> kRowVariants = {CPK_V_WARP, CPK_V_BLOCK,
                                               CPK_V_SPLIT, CPK_V_FUSED};

/* run(v, ws, wb, t) for each variant v of vs that runs op at this shape (a
 * FUSED that cannot run it here is left out: skip_fused), in vs's order,
 * with a workspace of the bytes cpk_workspace_bytes asks (zeroed, freed
 * after) and t the tally of (name, v, dt). */
template <typename F>
void each_variant(const char *name, cpk_op op, cpk_dtype dt, cpk_rows shape,
                  const std::vector<cpk_variant> &vs, F run) {
  for (cpk_variant v : vs) {
    if (skip_fused(op, v, dt, shape))
      continue;
    const size_t wb = cpk_workspace_bytes(op, v, dt, shape);
    void *ws = dev_ws(wb);
    run(v, ws, wb, tally(name, v, dt));
    if (ws)
      CK(cudaFree(ws));
  }
}

void test_args() {
  Tally &t = g_tally["args/validation/all"];
  Buf b = alloc(CPK_F32, 4096, 0);
  void *p = b.p();
  const cpk_rows ok = {2, 8, 8}, r0 = {0, 8, 8}, c0 = {2, 0, 8}, sm = {2, 8, 7};
  expect_inval(t, "row_sum null x",
               cpk_row_sum(CPK_V_WARP, CPK_F32, nullptr, p, ok, 0, 0, 0));
  expect_inval(t, "row_sum rows 0",
               cpk_row_sum(CPK_V_WARP, CPK_F32, p, p, r0, 0, 0, 0));
  expect_inval(t, "row_sum cols 0",
               cpk_row_sum(CPK_V_BLOCK, CPK_F32, p, p, c0, 0, 0, 0));
  expect_inval(t, "row_sum stride<cols",
               cpk_row_sum(CPK_V_BLOCK, CPK_F32, p, p, sm, 0, 0, 0));
  expect_inval(t, "row_sum online",
               cpk_row_sum(CPK_V_ONLINE, CPK_F32, p, p, ok, 0, 0, 0));
  expect_inval(t, "row_sum split no ws",
               cpk_row_sum(CPK_V_SPLIT, CPK_F32, p, p, ok, 0, 0, 0));
  expect_inval(
      t, "softmax naive",
      cpk_softmax(CPK_V_NAIVE, CPK_F32, p, p, nullptr, 0, ok, 0, 0, 0));
  expect_inval(t, "softmax mask_stride<cols",
               cpk_softmax(CPK_V_BLOCK, CPK_F32, p, p, (const uint8_t *)p, 4,
                           ok, 0, 0, 0));
  expect_inval(
      t, "softmax bad dtype",
      cpk_softmax(CPK_V_BLOCK, (cpk_dtype)7, p, p, nullptr, 0, ok, 0, 0, 0));
  const size_t need =
      cpk_workspace_bytes(CPK_OP_SOFTMAX, CPK_V_SPLIT, CPK_F32, ok);
  expect_inval(
      t, "softmax split ws short",
      cpk_softmax(CPK_V_SPLIT, CPK_F32, p, p, nullptr, 0, ok, p, need - 1, 0));
  expect_inval(t, "softmax_bwd serial",
               cpk_softmax_bwd(CPK_V_SERIAL, CPK_F32, p, p, p, ok, 0, 0, 0));
  expect_inval(
      t, "rmsnorm null w",
      cpk_rmsnorm(CPK_V_WARP, CPK_F32, p, nullptr, p, 1e-5f, ok, 0, 0, 0));
  expect_inval(
      t, "rmsnorm_bwd no ws",
      cpk_rmsnorm_bwd(CPK_V_WARP, CPK_F32, p, p, p, p, p, 1e-5f, ok, 0, 0, 0));
  cpk_gemm g = {4, 4, 4, 4, 4, 4, 0, 0};
  expect_inval(t, "matmul tiled f16",
               cpk_matmul(CPK_V_TILED, CPK_F16, p, p, p, g, nullptr, 0, 0));
  expect_inval(
      t, "matmul tensorcore f32",
      cpk_matmul(CPK_V_TENSORCORE, CPK_F32, p, p, p, g, nullptr, 0, 0));
  expect_inval(t, "matmul split",
               cpk_matmul(CPK_V_SPLIT, CPK_F32, p, p, p, g, nullptr, 0, 0));
  g.lda = 3;
  expect_inval(t, "matmul lda<k",
               cpk_matmul(CPK_V_NAIVE, CPK_F32, p, p, p, g, nullptr, 0, 0));
  const cpk_gemm gb = {4, 5, 6, 6, 5, 5, 0, 1}; /* trans_b: ldb >= k */
  expect_inval(t, "matmul ldb<k (trans_b)",
               cpk_matmul(CPK_V_NAIVE, CPK_F32, p, p, p, gb, nullptr, 0, 0));
  {
    /* HOPPER's workspace: short, NULL or misaligned -> invalid (checked
     * before the device is asked whether it runs HOPPER at all). */
    const cpk_gemm go = {4, 5, 7, 7, 5, 5, 0, 0}; /* odd lds: repack */
    const size_t mw = cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, go);
    if (mw == 0)
      fail(t, "matmul_workspace_bytes: 0 for odd lds");
    expect_inval(t, "matmul hopper ws short",
                 cpk_matmul(CPK_V_HOPPER, CPK_F16, p, p, p, go, p, mw - 1, 0));
    expect_inval(
        t, "matmul hopper ws null",
        cpk_matmul(CPK_V_HOPPER, CPK_F16, p, p, p, go, nullptr, mw, 0));
    expect_inval(
        t, "matmul hopper ws misaligned",
        cpk_matmul(CPK_V_HOPPER, CPK_F16, p, p, p, go, (char *)p + 2, mw, 0));
  }
  expect_inval(t, "copy n 0", cpk_copy(CPK_F32, p, p, 0, 0));
  expect_inval(t, "add null b", cpk_add(CPK_F32, p, nullptr, p, 4, 0));
  release(b);
}

void test_elementwise(bool big) {
  const int64_t ns[] = {1, 3, 8, 1000, 4097, (1 << 20) + 3};
  char sh[96];
  for (cpk_dtype dt : kDts) {
    for (int64_t n : ns) {
      for (size_t off : {(size_t)0, (size_t)1}) {
        std::snprintf(sh, sizeof sh, "[n%lld o%zu]", (long long)n, off);
        std::vector<float> a = rand_vec(dt, (size_t)n, -2, 2);
        std::vector<float> b = rand_vec(dt, (size_t)n, -2, 2);
        Buf ba = alloc(dt, n, off), bb = alloc(dt, n, off),
            by = alloc(dt, n, off);
        upload(ba, a);
        upload(bb, b);
        std::vector<double> ref(n), scale(n, 0.0);
        for (int64_t i = 0; i < n; ++i)
          ref[i] = a[i];
        std::vector<char> r1, r2;
        const Out o = {&by, 1, n, n, &ref, &scale};
        Tally &tc = tally("copy", CPK_V_VECTOR, dt);
        if (run2(
                tc, sh, by, [&] { return cpk_copy(dt, ba.p(), by.p(), n, 0); },
                r1, r2))
          check_out(tc, "copy", o, r1, r2, sh);
        for (int64_t i = 0; i < n; ++i) {
          ref[i] = (double)a[i] + b[i];
          scale[i] = std::fabs(a[i]) + std::fabs(b[i]);
        }
        Tally &ta = tally("add", CPK_V_VECTOR, dt);
        if (run2(
                ta, sh, by,
                [&] { return cpk_add(dt, ba.p(), bb.p(), by.p(), n, 0); }, r1,
                r2))
          check_out(ta, "add", o, r1, r2, sh);
        if (n == 1000 && off == 0) {
          /* A multiple of the negative control's block size: no OOB. */
          Buf bu = alloc(dt, 1024, 0);
          Buf bv = alloc(dt, 1024, 0);
          std::vector<float> u = rand_vec(dt, 1024, -2, 2);
          upload(bu, u);
          std::vector<double> ru(1024), su(1024, 0.0);
          for (int i = 0; i < 1024; ++i)
            ru[i] = u[i];
          Tally &tu = tally("copy_unmasked", CPK_V_VECTOR, dt);
          if (run2(
                  tu, "[n1024]", bv,
                  [&] {
                    return cpk_copy_unmasked(dt, bu.p(), bv.p(), 1024, 0);
                  },
                  r1, r2))
            check_out(tu, "copy_unmasked", {&bv, 1, 1024, 1024, &ru, &su}, r1,
                      r2, "[n1024]");
          release(bu);
          release(bv);
        }
        release(ba);
        release(bb);
        release(by);
      }
    }
  }
  if (!big)
    return;
  /* 2^31 + 5 fp16 elements: indices past int32. Checked byte for byte. */
  const int64_t n = (int64_t(1) << 31) + 5;
  Tally &t = g_tally["copy/vector/f16-2^31+5"];
  ++t.cases;
  std::vector<uint16_t> h((size_t)n);
  for (int64_t i = 0; i < n; ++i)
    h[i] = (uint16_t)(i * 2654435761u >> 7);
  void *dx = dev_ws((size_t)n * 2), *dy = dev_ws((size_t)n * 2);
  CK(cudaMemcpy(dx, h.data(), (size_t)n * 2, cudaMemcpyHostToDevice));
  CK(cudaMemset(dy, 0xA5, (size_t)n * 2));
  cudaError_t e = cpk_copy(CPK_F16, dx, dy, n, 0);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  std::vector<uint16_t> g((size_t)n);
  CK(cudaMemcpy(g.data(), dy, (size_t)n * 2, cudaMemcpyDeviceToHost));
  if (e != cudaSuccess)
    fail(t, "launch %s", cudaGetErrorName(e));
  else if (std::memcmp(g.data(), h.data(), (size_t)n * 2) != 0)
    fail(t, "copy of 2^31+5 elements differs");
  CK(cudaFree(dx));
  CK(cudaFree(dy));
}

/* A rows x stride input of random values, uploaded. */
struct RowIn {
  std::vector<float> h;
  Buf b;
};
RowIn row_in(cpk_dtype dt, const RowShape &s, float lo, float hi) {
  RowIn r;
  r.h = rand_vec(dt, (size_t)(s.rows * s.stride), lo, hi);
  r.b = alloc(dt, (size_t)(s.rows * s.stride), s.off);
  upload(r.b, r.h);
  return r;
}

void test_row_sum(const RowShape &s) {
  char sh[96];
  shape_str(sh, sizeof sh, s);
  for (cpk_dtype dt : kDts) {
    RowIn x = row_in(dt, s, -1, 1);
    Buf y = alloc(dt, (size_t)s.rows, s.off);
    std::vector<double> ref(s.rows, 0.0), scale(s.rows, 0.0);
    for (int64_t r = 0; r < s.rows; ++r)
      for (int64_t c = 0; c < s.cols; ++c) {
        ref[r] += x.h[r * s.stride + c];
        scale[r] += std::fabs(x.h[r * s.stride + c]);
      }
    const cpk_rows shape = {s.rows, s.cols, s.stride};
    each_variant("row_sum", CPK_OP_ROW_SUM, dt, shape, kRowVariants,
                 [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                   std::vector<char> r1, r2;
                   if (run2(
                           t, sh, y,
                           [&] {
                             return cpk_row_sum(v, dt, x.b.p(), y.p(), shape,
                                                ws, wb, 0);
                           },
                           r1, r2))
                     check_out(t, "y", {&y, 1, s.rows, s.rows, &ref, &scale},
                               r1, r2, sh);
                 });
    release(x.b);
    release(y);
  }
}

void test_softmax(const RowShape &s) {
  char sh[96];
  const float inf = INFINITY;
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  for (int with_mask = 0; with_mask < 2; ++with_mask) {
    shape_str(sh, sizeof sh, s);
    if (with_mask)
      std::strncat(sh, "+mask", sizeof sh - std::strlen(sh) - 1);
    const int64_t ms = s.cols + 3;
    std::vector<uint8_t> mask;
    uint8_t *dmask = nullptr;
    if (with_mask) {
      mask.resize((size_t)(s.rows * ms));
      for (auto &m : mask)
        m = (g_rng() % 10) < 3;
    }
    for (cpk_dtype dt : kDts) {
      std::vector<float> h = rand_vec(dt, (size_t)(s.rows * s.stride), -4, 4);
      /* Special rows (see cpk.h); row r's role is r % 7. */
      for (int64_t r = 1; r < s.rows; ++r) {
        float *xr = &h[r * s.stride];
        uint8_t *mr = with_mask ? &mask[r * ms] : nullptr;
        switch (r % 7) {
        case 1: /* all masked, or all -inf */
          for (int64_t c = 0; c < s.cols; ++c)
            if (mr)
              mr[c] = 1;
            else
              xr[c] = -inf;
          break;
        case 2: /* unmasked +inf: NaN row */
          xr[s.cols / 2] = inf;
          if (mr)
            mr[s.cols / 2] = 0;
          break;
        case 3: /* NaN: a NaN row unless masked */
          xr[0] = NAN;
          if (mr)
            mr[0] = 1;
          break;
        case 4: /* some -inf */
          for (int64_t c = 0; c < s.cols; c += 2)
            xr[c] = -inf;
          break;
        default:
          break;
        }
      }
      if (with_mask && !dmask) {
        CK(cudaMalloc((void **)&dmask, mask.size()));
        CK(cudaMemcpy(dmask, mask.data(), mask.size(), cudaMemcpyHostToDevice));
      }
      Buf x = alloc(dt, h.size(), s.off), y = alloc(dt, h.size(), s.off);
      upload(x, h);
      std::vector<double> ref((size_t)(s.rows * s.cols)),
          scale(ref.size(), 0.0);
      for (int64_t r = 0; r < s.rows; ++r) {
        bool bad = false;
        double M = -INFINITY;
        auto v_at = [&](int64_t c) -> double {
          if (with_mask && mask[r * ms + c])
            return -INFINITY;
          return h[r * s.stride + c];
        };
        for (int64_t c = 0; c < s.cols; ++c) {
          double v = v_at(c);
          if (std::isnan(v) || v == INFINITY)
            bad = true;
          else if (v > M)
            M = v;
        }
        double S = 0;
        if (!bad && M != -INFINITY)
          for (int64_t c = 0; c < s.cols; ++c)
            S += std::exp(v_at(c) - M);
        for (int64_t c = 0; c < s.cols; ++c) {
          double o = bad              ? NAN
                     : M == -INFINITY ? 0.0
                                      : std::exp(v_at(c) - M) / S;
          ref[r * s.cols + c] = o;
        }
      }
      std::vector<cpk_variant> vs = {CPK_V_SERIAL, CPK_V_WARP,  CPK_V_BLOCK,
                                     CPK_V_ONLINE, CPK_V_SPLIT, CPK_V_FUSED};
      if (s.cols > 131072) /* one thread walking 10^6 columns: seconds a run */
        vs.erase(vs.begin());
      each_variant("softmax", CPK_OP_SOFTMAX, dt, shape, vs,
                   [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                     std::vector<char> r1, r2;
                     if (run2(
                             t, sh, y,
                             [&] {
                               return cpk_softmax(v, dt, x.p(), y.p(), dmask,
                                                  ms, shape, ws, wb, 0);
                             },
                             r1, r2))
                       check_out(t, "y",
                                 {&y, s.rows, s.cols, s.stride, &ref, &scale},
                                 r1, r2, sh);
                   });
      release(x);
      release(y);
    }
    if (dmask)
      CK(cudaFree(dmask));
  }
}

void test_softmax_bwd(const RowShape &s) {
  char sh[96];
  shape_str(sh, sizeof sh, s);
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  for (cpk_dtype dt : kDts) {
    RowIn dy = row_in(dt, s, -1, 1), y = row_in(dt, s, 0, 1);
    Buf dx = alloc(dt, dy.h.size(), s.off);
    std::vector<double> ref((size_t)(s.rows * s.cols)), scale(ref.size());
    for (int64_t r = 0; r < s.rows; ++r) {
      double dot = 0, adot = 0;
      for (int64_t c = 0; c < s.cols; ++c) {
        const size_t i = (size_t)(r * s.stride + c);
        dot += (double)dy.h[i] * y.h[i];
        adot += std::fabs((double)dy.h[i] * y.h[i]);
      }
      for (int64_t c = 0; c < s.cols; ++c) {
        const size_t i = (size_t)(r * s.stride + c);
        ref[r * s.cols + c] = y.h[i] * (dy.h[i] - dot);
        scale[r * s.cols + c] = std::fabs(y.h[i]) * (std::fabs(dy.h[i]) + adot);
      }
    }
    each_variant("softmax_bwd", CPK_OP_SOFTMAX_BWD, dt, shape, kRowVariants,
                 [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                   std::vector<char> r1, r2;
                   if (run2(
                           t, sh, dx,
                           [&] {
                             return cpk_softmax_bwd(v, dt, dy.b.p(), y.b.p(),
                                                    dx.p(), shape, ws, wb, 0);
                           },
                           r1, r2))
                     check_out(t, "dx",
                               {&dx, s.rows, s.cols, s.stride, &ref, &scale},
                               r1, r2, sh);
                 });
    release(dy.b);
    release(y.b);
    release(dx);
  }
}

const float kEps = 1e-5f;

void test_rmsnorm(const RowShape &s) {
  char sh[96];
  shape_str(sh, sizeof sh, s);
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  for (cpk_dtype dt : kDts) {
    RowIn x = row_in(dt, s, -1, 1);
    std::vector<float> w = rand_vec(dt, (size_t)s.cols, 0.5f, 1.5f);
    Buf bw = alloc(dt, w.size(), s.off), y = alloc(dt, x.h.size(), s.off);
    upload(bw, w);
    std::vector<double> ref((size_t)(s.rows * s.cols)), scale(ref.size());
    for (int64_t r = 0; r < s.rows; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < s.cols; ++c)
        ss += (double)x.h[r * s.stride + c] * x.h[r * s.stride + c];
      const double rstd = 1.0 / std::sqrt(ss / s.cols + kEps);
      for (int64_t c = 0; c < s.cols; ++c) {
        ref[r * s.cols + c] = x.h[r * s.stride + c] * rstd * w[c];
        scale[r * s.cols + c] = std::fabs(ref[r * s.cols + c]);
      }
    }
    each_variant("rmsnorm", CPK_OP_RMSNORM, dt, shape, kRowVariants,
                 [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
                   std::vector<char> r1, r2;
                   if (run2(
                           t, sh, y,
                           [&] {
                             return cpk_rmsnorm(v, dt, x.b.p(), bw.p(), y.p(),
                                                kEps, shape, ws, wb, 0);
                           },
                           r1, r2))
                     check_out(t, "y",
                               {&y, s.rows, s.cols, s.stride, &ref, &scale}, r1,
                               r2, sh);
                 });
    release(x.b);
    release(bw);
    release(y);
  }
}

void test_rmsnorm_bwd(const RowShape &s) {
  char sh[96];
  shape_str(sh, sizeof sh, s);
  const cpk_rows shape = {s.rows, s.cols, s.stride};
  for (cpk_dtype dt : kDts) {
    RowIn x = row_in(dt, s, -1, 1), dy = row_in(dt, s, -1, 1);
    std::vector<float> w = rand_vec(dt, (size_t)s.cols, 0.5f, 1.5f);
    Buf bw = alloc(dt, w.size(), s.off), dx = alloc(dt, x.h.size(), s.off),
        dw = alloc(dt, w.size(), s.off);
    upload(bw, w);
    std::vector<double> ref((size_t)(s.rows * s.cols)), scale(ref.size());
    std::vector<double> dwr((size_t)s.cols, 0.0), dws((size_t)s.cols, 0.0);
    for (int64_t r = 0; r < s.rows; ++r) {
      double ss = 0, d = 0, ad = 0;
      const float *xr = &x.h[r * s.stride], *gr = &dy.h[r * s.stride];
      for (int64_t c = 0; c < s.cols; ++c) {
        ss += (double)xr[c] * xr[c];
        d += (double)gr[c] * w[c] * xr[c];
        ad += std::fabs((double)gr[c] * w[c] * xr[c]);
      }
      const double rstd = 1.0 / std::sqrt(ss / s.cols + kEps);
      const double k3 = rstd * rstd * rstd / s.cols;
      for (int64_t c = 0; c < s.cols; ++c) {
        ref[r * s.cols + c] = rstd * gr[c] * w[c] - xr[c] * k3 * d;
        scale[r * s.cols + c] =
            rstd * std::fabs(gr[c] * w[c]) + std::fabs(xr[c]) * k3 * ad;
        dwr[c] += (double)gr[c] * xr[c] * rstd;
        dws[c] += std::fabs((double)gr[c] * xr[c] * rstd);
      }
    }
    each_variant(
        "rmsnorm_bwd", CPK_OP_RMSNORM_BWD, dt, shape, kRowVariants,
        [&](cpk_variant v, void *ws, size_t wb, Tally &t) {
          std::vector<char> r1, r2, w1, w2;
          auto go = [&] {
            return cpk_rmsnorm_bwd(v, dt, dy.b.p(), x.b.p(), bw.p(), dx.p(),
                                   dw.p(), kEps, shape, ws, wb, 0);
          };
          if (run2(t, sh, dx, go, r1, r2))
            check_out(t, "dx", {&dx, s.rows, s.cols, s.stride, &ref, &scale},
                      r1, r2, sh);
          --t.cases; /* the dw check below is part of the same case */
          if (run2(t, sh, dw, go, w1, w2))
            check_out(t, "dw", {&dw, 1, s.cols, s.cols, &dwr, &dws}, w1, w2,
                      sh);
        });
    release(x.b);
    release(dy.b);
    release(bw);
    release(dx);
    release(dw);
  }
}

/* Mode 0: every variant, odd leading dimensions (HOPPER repacks both
 * operands into its workspace, or, without one, loads them by hand). Mode 1:
 * HOPPER only, leading dimensions that are multiples of 8 but A and B one
 * element off a 16-byte boundary: no sized workspace (0 bytes), but given
 * room for both copies HOPPER repacks them for their base address. Either
 * way the results with and without the workspace must agree bit for bit. */
void test_matmul() {
  struct MS {
    int64_t m, n, k;
  };
  const MS shapes[] = {{1, 1, 1},     {17, 33, 15},   {64, 64, 64},
                       {65, 63, 129}, {128, 96, 40},  {3, 200, 257},
                       {100, 1, 300}, {257, 255, 513}};
  char sh[96];
  for (int mode = 0; mode < 2; ++mode) {
    for (const MS &ms : shapes) {
      for (int ta = 0; ta < 2; ++ta) {
        for (int tb = 0; tb < 2; ++tb) {
          cpk_gemm g;
          g.m = ms.m;
          g.n = ms.n;
          g.k = ms.k;
          g.trans_a = ta;
          g.trans_b = tb;
          const int64_t ac = ta ? ms.m : ms.k, bc = tb ? ms.k : ms.n;
          g.lda = mode ? (ac + 7) / 8 * 8 : ac + 3;
          g.ldb = mode ? (bc + 7) / 8 * 8 : bc + 1;
          g.ldc = ms.n + 2;
          const size_t off = (size_t)mode;
          const int64_t arows = ta ? ms.k : ms.m, brows = tb ? ms.n : ms.k;
          std::snprintf(sh, sizeof sh, "[%lldx%lldx%lld t%d%d%s]",
                        (long long)ms.m, (long long)ms.n, (long long)ms.k, ta,
                        tb, mode ? " base+2B" : "");
          for (cpk_dtype dt : kDts) {
            if (mode && dt == CPK_F32)
              continue;
            std::vector<float> a = rand_vec(dt, (size_t)(arows * g.lda), -1, 1);
            std::vector<float> b = rand_vec(dt, (size_t)(brows * g.ldb), -1, 1);
            Buf ba = alloc(dt, a.size(), off), bb = alloc(dt, b.size(), off),
                bc_ = alloc(dt, (size_t)(ms.m * g.ldc), 0);
            upload(ba, a);
            upload(bb, b);
            std::vector<double> ref((size_t)(ms.m * ms.n)), scale(ref.size());
            for (int64_t i = 0; i < ms.m; ++i)
              for (int64_t j = 0; j < ms.n; ++j) {
                double acc = 0, aacc = 0;
                for (int64_t k = 0; k < ms.k; ++k) {
                  const double p =
                      (double)a[ta ? k * g.lda + i : i * g.lda + k] *
                      b[tb ? j * g.ldb + k : k * g.ldb + j];
                  acc += p;
                  aacc += std::fabs(p);
                }
                ref[i * ms.n + j] = acc;
                scale[i * ms.n + j] = aacc;
              }
            const cpk_variant fast =
                dt == CPK_F32 ? CPK_V_TILED : CPK_V_TENSORCORE;
            for (cpk_variant v : {CPK_V_NAIVE, fast, CPK_V_HOPPER}) {
              if (mode && v != CPK_V_HOPPER)
                continue;
              if (v == CPK_V_HOPPER &&
                  (dt == CPK_F32 ||
                   cpk_variant_available(CPK_OP_MATMUL, v, dt) != 1))
                continue;
              size_t wb = cpk_matmul_workspace_bytes(v, dt, g);
              if (v == CPK_V_HOPPER) {
                const bool odd = g.lda % 8 != 0 || g.ldb % 8 != 0;
                if (odd != (wb != 0))
                  fail(tally("matmul", v, dt),
                       "%s workspace_bytes %zu for lda %lld ldb %lld", sh, wb,
                       (long long)g.lda, (long long)g.ldb);
                if (mode) /* room for both copies (cpk.h: padded ld 64) */
                  wb = (size_t)(arows * ((ac + 63) / 64 * 64) * 2 + 255) / 256 *
                           256 +
                       (size_t)(brows * ((bc + 63) / 64 * 64) * 2 + 255) / 256 *
                           256;
              }
              void *ws = dev_ws(wb);
              Tally &t = mode ? g_tally["matmul/hopper_base_repack/" +
                                        std::string(dt_name(dt))]
                              : tally("matmul", v, dt);
              std::vector<char> r1, r2;
              const bool ok = run2(
                  t, sh, bc_,
                  [&] {
                    return cpk_matmul(v, dt, ba.p(), bb.p(), bc_.p(), g, ws, wb,
                                      0);
                  },
                  r1, r2);
              if (ok)
                check_out(t, "C", {&bc_, ms.m, ms.n, g.ldc, &ref, &scale}, r1,
                          r2, sh);
              if (v == CPK_V_HOPPER) {
                /* The manual loader (no workspace) must give the same bits. */
                std::vector<char> m1, m2;
                Tally &tm =
                    g_tally["matmul/hopper_no_ws/" + std::string(dt_name(dt))];
                if (run2(
                        tm, sh, bc_,
                        [&] {
                          return cpk_matmul(v, dt, ba.p(), bb.p(), bc_.p(), g,
                                            nullptr, 0, 0);
                        },
                        m1, m2)) {
                  check_out(tm, "C", {&bc_, ms.m, ms.n, g.ldc, &ref, &scale},
                            m1, m2, sh);
                  if (ok && m1 != r1)
                    fail(tm, "%s C differs with and without the workspace", sh);
                }
              }
              if (ws)
                CK(cudaFree(ws));
            }
            release(ba);
            release(bb);
            release(bc_);
          }
        }
      }
    }
  }
}

} /* namespace */

/* The timing harness's helpers (cpk.h, measurement helpers). Both readers
 * (the L2 flush and the read stream) must read every 16 bytes: over a
 * buffer of zeros with one word set to the value their kernel compares the
 * xor of everything it read with, they write that value to the sink,
 * wherever the word is (first, middle, last, each word of a vector); over
 * zeros they leave the sink alone. They refuse arguments they cannot read
 * whole; the empty launch runs. */
void test_measure() {
  Tally &t = g_tally["measure/helpers/all"];
  const unsigned magic = 0x5bd1e995u;
  const size_t n16 = 1234567; /* 16-byte vectors: not a multiple of the
                                 kernel's unrolled stride */
  std::vector<unsigned> h(n16 * 4, 0u);
  char *buf = nullptr;
  unsigned *sink = nullptr;
  CK(cudaMalloc((void **)&buf, n16 * 16 + 16));
  CK(cudaMalloc((void **)&sink, sizeof *sink));
  if (buf == nullptr || sink == nullptr)
    return;
  typedef cudaError_t (*reader)(const void *, size_t, unsigned *, cudaStream_t);
  const reader readers[] = {cpk_l2_flush_read, cpk_read_stream};
  const char *names[] = {"l2_flush_read", "read_stream"};
  const size_t where[] = {0, 5, n16 * 2 + 2, n16 * 4 - 1};
  for (int rd = 0; rd < 2; ++rd) {
    for (int k = -1; k < 4; ++k) {
      if (k >= 0)
        h[where[k]] = magic;
      CK(cudaMemcpy(buf, h.data(), n16 * 16, cudaMemcpyHostToDevice));
      CK(cudaMemset(sink, 0, sizeof *sink));
      ++t.cases;
      cudaError_t e = readers[rd](buf, n16 * 16, sink, 0);
      if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
      unsigned got = 1;
      CK(cudaMemcpy(&got, sink, sizeof got, cudaMemcpyDeviceToHost));
      const unsigned want = k >= 0 ? magic : 0u;
      if (e != cudaSuccess)
        fail(t, "%s returned %s", names[rd], cudaGetErrorName(e));
      else if (got != want)
        fail(t, "%s with the word at %ld: sink %#x, want %#x", names[rd],
             k >= 0 ? (long)where[k] : -1L, got, want);
      if (k >= 0)
        h[where[k]] = 0u;
    }
    expect_inval(t, names[rd], readers[rd](nullptr, 64, sink, 0));
    expect_inval(t, names[rd], readers[rd](buf, 64, nullptr, 0));
    expect_inval(t, names[rd], readers[rd](buf, 0, sink, 0));
    expect_inval(t, names[rd], readers[rd](buf, 24, sink, 0));
    expect_inval(t, names[rd], readers[rd](buf + 4, 64, sink, 0));
  }
  ++t.cases;
  cudaError_t e = cpk_empty_launch(0);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    fail(t, "empty_launch returned %s", cudaGetErrorName(e));
  CK(cudaFree(buf));
  CK(cudaFree(sink));
}
