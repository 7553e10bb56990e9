/* mm_sm90.cuh: the Hopper matmul path (TMA + wgmma, built for sm_90a only),
 * internal to kernels/. matmul.cu dispatches CPK_V_HOPPER here after checking
 * that the device is compute capability 9.0. */
#ifndef CPK_MM_SM90_CUH
#define CPK_MM_SM90_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cpk.h"

namespace cpk__ {

/* True when this build contains the sm_90a kernels (CMake: CP_HOPPER). */
bool mm_sm90_built();

/* ---- the repack plan (shared by cpk_matmul_workspace_bytes in matmul.cu
 * and the launcher in matmul_sm90.cu, so both agree on the layout) ----
 * An operand is stored as `rows` rows of `cols` contiguous elements with a
 * row stride of ld elements (A: K x M when trans_a, else M x K; B: N x K
 * when trans_b, else K x N). TMA needs a 16-byte aligned base and ld a
 * multiple of 8 (2-byte elements). An operand whose ld is not gets copied
 * into the workspace with the padded stride mm_pack_ld(cols) (a multiple of
 * kPackAlign elements, so every copied row starts 128-byte aligned); the
 * workspace holds the copy of A first (if A is copied), then that of B, each
 * section mm_pack_bytes long. */
constexpr int64_t kPackAlign = 64;
/* Largest stored extent the Hopper path takes (TMA coordinates are int32;
 * cpk.h states the limit). */
constexpr int64_t kPackMaxDim = CPK_HOPPER_MAX_DIM;
static_assert(kPackMaxDim == 0x7ffffffe, "HOPPER's coordinates are int32");

/* The operand's ld lets TMA read it (given a 16-byte aligned base). */
inline bool mm_ld_tma_ok(int64_t ld) {
  return ld % 8 == 0;
}

/* Padded leading dimension of a copy of a stored rows x cols operand. */
inline int64_t mm_pack_ld(int64_t cols) {
  return (cols + kPackAlign - 1) / kPackAlign * kPackAlign;
}

/* Bytes of the copy (2-byte elements, rows x mm_pack_ld(cols)), rounded up
 * to 256 (ws_round); 0 when no copy is made: an extent outside
 * [1, kPackMaxDim] (the Hopper path refuses the shape) or a size past
 * SIZE_MAX. */
inline size_t mm_pack_bytes(int64_t rows, int64_t cols) {
  if (rows < 1 || cols < 1 || rows > kPackMaxDim || cols > kPackMaxDim)
    return 0;
  const uint64_t ld = (uint64_t)mm_pack_ld(cols);
  /* rows, ld < 2^31: the product of rows * ld * 2 fits in 63 bits. */
  const uint64_t b = (uint64_t)rows * ld * 2u;
  if (b > (uint64_t)SIZE_MAX - 255u)
    return 0;
  return (size_t)((b + 255u) / 256u * 256u);
}

/* Stored shape of A and B of g. */
inline void mm_stored(const cpk_gemm &g, int64_t &ar, int64_t &ac, int64_t &br,
                      int64_t &bc) {
  ar = g.trans_a ? g.k : g.m;
  ac = g.trans_a ? g.m : g.k;
  br = g.trans_b ? g.n : g.k;
  bc = g.trans_b ? g.k : g.n;
}

/* Bytes of the sections for A and for B (0 for an operand that is not
 * copied); their sum is cpk_matmul_workspace_bytes for HOPPER. */
inline void mm_pack_sections(const cpk_gemm &g, size_t &sa, size_t &sb) {
  int64_t ar, ac, br, bc;
  mm_stored(g, ar, ac, br, bc);
  sa = mm_ld_tma_ok(g.lda) ? 0 : mm_pack_bytes(ar, ac);
  sb = mm_ld_tma_ok(g.ldb) ? 0 : mm_pack_bytes(br, bc);
  if (sa > SIZE_MAX - sb) /* cannot happen with 64-bit size_t */
    sa = sb = 0;
}

/* C = op(A) op(B) for dt CPK_F16 or CPK_BF16 with the cpk_matmul contract
 * (any m, n, k >= 1, both trans flags, any leading dimensions, fp32
 * accumulation, C rounded to dt). ws / ws_bytes: scratch for the repacked
 * operands (ws_bytes 0: none; the operands that TMA cannot read take the
 * manual loader). The caller has checked that ws_bytes is 0 or at least the
 * sum of mm_pack_sections and that ws is then 16-byte aligned. Asynchronous
 * on st; returns the launch error, or cudaErrorNotSupported when the build
 * has no sm_90a code. */
cudaError_t mm_sm90(cpk_dtype dt, const void *a, const void *b, void *c,
                    const cpk_gemm &g, void *ws, size_t ws_bytes,
                    cudaStream_t st);

} /* namespace cpk__ */

#endif
