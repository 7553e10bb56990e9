/* cpk_selftest.cu: runs every cpk.h launcher, variant and dtype over awkward
 * shapes on the GPU and compares with a float64 CPU loop.
 *
 * Not part of the default build (EXCLUDE_FROM_ALL target cpk_selftest).
 * Usage: cpk_selftest [--big]   (--big adds 2^31+ element and 65536-row
 * cases; slower). Prints one line per (op, variant, dtype) with the first
 * failing element, and exits 1 if anything failed, 2 without a device.
 *
 * Each output is poisoned (bytes 0xA5) before the launch; the padding
 * between cols and stride must still hold the poison afterwards. Every
 * launch runs twice and the two outputs must match bit for bit
 * (determinism). Inputs are rounded to the dtype first, so the reference
 * sees exactly what the kernel sees; tolerances are eps(dtype) times the
 * magnitude of the terms that make each output. The extreme-row groups
 * (extreme_*, selftest_extreme.cuh) use the portfolio's tighter rule
 * atol + rtol*|ref| + 2e-6*sum|terms| on 10^6-wide rows of ~1e4 values.
 */
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cpk.h"

namespace {

const cpk_dtype kDts[] = {CPK_F32, CPK_F16, CPK_BF16};
const char *dt_name(cpk_dtype d) {
  return d == CPK_F32 ? "f32" : d == CPK_F16 ? "f16" : "bf16";
}
size_t esz(cpk_dtype d) {
  return d == CPK_F32 ? 4 : 2;
}
double eps_of(cpk_dtype d) {
  return d == CPK_F32 ? 1e-5 : d == CPK_F16 ? 2e-3 : 1.6e-2;
}
double floor_of(cpk_dtype d) {
  return d == CPK_F32 ? 1e-9 : d == CPK_F16 ? 2e-7 : 1e-8;
}

float rnd(cpk_dtype d, float v) {
  if (d == CPK_F16)
    return __half2float(__float2half_rn(v));
  if (d == CPK_BF16)
    return __bfloat162float(__float2bfloat16_rn(v));
  return v;
}

/* A device buffer of n elements of dt plus `off` leading elements, so the
 * pointer handed to kernels can be deliberately misaligned. */
struct Buf {
  cpk_dtype dt = CPK_F32;
  size_t n = 0, off = 0;
  char *base = nullptr;
  void *p() const {
    return base + off * esz(dt);
  }
  size_t bytes() const {
    return n * esz(dt);
  }
};

bool g_cuda_failed = false;
#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_),        \
                  __FILE__, __LINE__, #call);                                  \
      g_cuda_failed = true;                                                    \
    }                                                                          \
  } while (0)

Buf alloc(cpk_dtype dt, size_t n, size_t off) {
  Buf b;
  b.dt = dt;
  b.n = n;
  b.off = off;
  CK(cudaMalloc((void **)&b.base, (n + off) * esz(dt) + 16));
  return b;
}
void release(Buf &b) {
  if (b.base)
    CK(cudaFree(b.base));
  b.base = nullptr;
}
void upload(const Buf &b, const std::vector<float> &h) {
  std::vector<char> raw(b.bytes());
  for (size_t i = 0; i < b.n; ++i) {
    if (b.dt == CPK_F32) {
      std::memcpy(&raw[i * 4], &h[i], 4);
    } else if (b.dt == CPK_F16) {
      __half v = __float2half_rn(h[i]);
      std::memcpy(&raw[i * 2], &v, 2);
    } else {
      __nv_bfloat16 v = __float2bfloat16_rn(h[i]);
      std::memcpy(&raw[i * 2], &v, 2);
    }
  }
  CK(cudaMemcpy(b.p(), raw.data(), raw.size(), cudaMemcpyHostToDevice));
}
std::vector<char> raw_of(const Buf &b) {
  std::vector<char> raw(b.bytes());
  CK(cudaMemcpy(raw.data(), b.p(), raw.size(), cudaMemcpyDeviceToHost));
  return raw;
}
float val_at(const std::vector<char> &raw, cpk_dtype dt, size_t i) {
  if (dt == CPK_F32) {
    float v;
    std::memcpy(&v, &raw[i * 4], 4);
    return v;
  }
  if (dt == CPK_F16) {
    __half v;
    std::memcpy(&v, &raw[i * 2], 2);
    return __half2float(v);
  }
  __nv_bfloat16 v;
  std::memcpy(&v, &raw[i * 2], 2);
  return __bfloat162float(v);
}
void poison(const Buf &b) {
  CK(cudaMemset(b.p(), 0xA5, b.bytes()));
}

/* Results per (op/variant/dtype) key, printed at the end in key order. */
struct Tally {
  long cases = 0, fails = 0;
  std::string first;
};
std::map<std::string, Tally> g_tally;

void fail(Tally &t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fail(Tally &t, const char *fmt, ...) {
  ++t.fails;
  if (!t.first.empty())
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  t.first = msg;
}

/* Output check: rows x cols values against ref (NaN must match NaN),
 * padding bytes still poisoned, second run bit-identical. */
struct Out {
  const Buf *buf;
  int64_t rows, cols, stride;
  const std::vector<double> *ref;   /* rows x cols, dense */
  const std::vector<double> *scale; /* magnitude of the terms, dense */
};

/* Walks o's cells: the two runs equal (determinism), the padding columns
 * past cols still poisoned (0xA5), and each value against its reference by
 * ok(got, j, r, c), j the cell's index in the dense reference, which names
 * a mismatch itself (fail) and returns false; the walk ends at the first
 * failure. check_out's rule and check_tol's (selftest_extreme.cuh) are the
 * two ok functions. */
template <typename Ok>
void walk_out(Tally &t, const char *what, const Out &o,
              const std::vector<char> &run1, const std::vector<char> &run2,
              const char *shape, Ok ok) {
  const cpk_dtype dt = o.buf->dt;
  if (run1 != run2) {
    fail(t, "%s %s: two runs differ (not deterministic)", shape, what);
    return;
  }
  for (int64_t r = 0; r < o.rows; ++r) {
    for (int64_t c = 0; c < o.stride; ++c) {
      const size_t i = (size_t)(r * o.stride + c);
      if (c >= o.cols) {
        const size_t es = esz(dt);
        for (size_t k = 0; k < es; ++k)
          if ((unsigned char)run1[i * es + k] != 0xA5) {
            fail(t, "%s %s: padding (%lld,%lld) overwritten", shape, what,
                 (long long)r, (long long)c);
            return;
          }
        continue;
      }
      if (!ok(val_at(run1, dt, i), (size_t)(r * o.cols + c), r, c))
        return;
    }
  }
}

void check_out(Tally &t, const char *what, const Out &o,
               const std::vector<char> &run1, const std::vector<char> &run2,
               const char *shape) {
  const cpk_dtype dt = o.buf->dt;
  walk_out(t, what, o, run1, run2, shape,
           [&](double got, size_t j, int64_t r, int64_t c) {
             const double want = (*o.ref)[j];
             const bool ok =
                 std::isnan(want)
                     ? std::isnan(got)
                     : !std::isnan(got) &&
                           std::fabs(got - want) <=
                               eps_of(dt) * ((*o.scale)[j] + std::fabs(want)) +
                                   floor_of(dt);
             if (!ok)
               fail(t, "%s %s: (%lld,%lld) got %.9g want %.9g", shape, what,
                    (long long)r, (long long)c, got, want);
             return ok;
           });
}

std::mt19937_64 g_rng(12345);
std::vector<float> rand_vec(cpk_dtype dt, size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v)
    x = rnd(dt, u(g_rng));
  return v;
}

struct RowShape {
  int64_t rows, cols, stride;
  size_t off; /* leading elements: misaligns the base pointer if odd */
};

/* The last three: wide rows whose persistent row groups (rmsnorm_bwd's
 * FUSED grid, clusters up to 16 blocks) walk several rows each. */
std::vector<RowShape> row_shapes(bool big) {
  std::vector<RowShape> s = {{1, 1, 1, 0},           {1, 7, 9, 1},
                             {3, 31, 33, 0},         {5, 32, 32, 0},
                             {2, 33, 40, 0},         {7, 100, 100, 3},
                             {8, 128, 136, 0},       {4, 1000, 1003, 0},
                             {3, 1024, 1024, 0},     {2, 4097, 4104, 0},
                             {65, 257, 260, 0},      {1, 12288, 12288, 0},
                             {2, 12289, 12296, 0},   {1, 70001, 70001, 1},
                             {300, 64, 64, 0},       {2, 1048577, 1048584, 0},
                             {600, 4096, 4096, 0},   {40, 65536, 65536, 0},
                             {20, 262144, 262144, 0}};
  if (big) {
    s.push_back({32, 1048577, 1048580, 0});
    s.push_back({65536, 1024, 1030, 0});
  }
  return s;
}

void shape_str(char *buf, size_t n, const RowShape &s) {
  std::snprintf(buf, n, "[%lldx%lld s%lld o%zu]", (long long)s.rows,
                (long long)s.cols, (long long)s.stride, s.off);
}

const char *vname(cpk_variant v) {
  switch (v) {
  case CPK_V_VECTOR:
    return "vector";
  case CPK_V_SERIAL:
    return "serial";
  case CPK_V_WARP:
    return "warp";
  case CPK_V_BLOCK:
    return "block";
  case CPK_V_ONLINE:
    return "online";
  case CPK_V_SPLIT:
    return "split";
  case CPK_V_NAIVE:
    return "naive";
  case CPK_V_TILED:
    return "tiled";
  case CPK_V_TENSORCORE:
    return "tensorcore";
  case CPK_V_FUSED:
    return "fused";
  case CPK_V_HOPPER:
    return "hopper";
  }
  return "?";
}

Tally &tally(const char *op, cpk_variant v, cpk_dtype dt) {
  std::string k = std::string(op) + "/" + vname(v) + "/" + dt_name(dt);
  return g_tally[k];
}

/* Runs launch(out) twice on poisoned outputs; returns the raw results. */
template <typename F>
bool run2(Tally &t, const char *shape, const Buf &out, F launch,
          std::vector<char> &r1, std::vector<char> &r2) {
  ++t.cases;
  for (int i = 0; i < 2; ++i) {
    poison(out);
    cudaError_t e = launch();
    if (e == cudaSuccess)
      e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      fail(t, "%s launch returned %s", shape, cudaGetErrorName(e));
      cudaGetLastError();
      return false;
    }
    (i == 0 ? r1 : r2) = raw_of(out);
  }
  return true;
}

} /* namespace */

/* FUSED runs only where the row fits and the device has clusters (and,
 * for the widths only its grid path takes, runs the grid path): elsewhere
 * the launcher refuses it by contract, nothing to test. */
bool skip_fused(cpk_op op, cpk_variant v, cpk_dtype dt, cpk_rows s) {
  return v == CPK_V_FUSED && (!cpk_fused_fits(op, dt, s.cols) ||
                              cpk_variant_available(op, v, dt) != 1 ||
                              (cpk_fused_needs_grid(op, dt, s.cols) &&
                               cpk_fused_grid_available() != 1));
}

#include "selftest_ops.cuh"
#include "selftest_extreme.cuh"

int main(int argc, char **argv) {
  bool big = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--big") == 0)
      big = true;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
    /* ctest's skip code, or a failure where a device was required */
    const char *req = std::getenv("KERNEL_REQUIRE_GPU");
    if (req != nullptr && std::strcmp(req, "1") == 0) {
      std::printf("FAILED: no CUDA device, and KERNEL_REQUIRE_GPU=1\n");
      return 3;
    }
    std::printf("SKIP no CUDA device\n");
    return 77;
  }
  test_args();
  test_measure();
  test_elementwise(big);
  for (const RowShape &s : row_shapes(big)) {
    test_row_sum(s);
    test_softmax(s);
    test_softmax_bwd(s);
    test_rmsnorm(s);
    test_rmsnorm_bwd(s);
  }
  test_extreme_rows();
  test_matmul();
  long bad = 0;
  for (const auto &kv : g_tally) {
    const Tally &t = kv.second;
    if (t.fails)
      std::printf("FAIL %-28s %ld/%ld cases; first: %s\n", kv.first.c_str(),
                  t.fails, t.cases, t.first.c_str());
    else
      std::printf("PASS %-28s %ld cases\n", kv.first.c_str(), t.cases);
    bad += t.fails;
  }
  if (g_cuda_failed)
    ++bad;
  std::printf("%s: %zu groups, %ld failures\n", bad ? "FAILED" : "OK",
              g_tally.size(), bad);
  return bad ? 1 : 0;
}
