/* matmul_sm90.cu: the Hopper matmul (CPK_V_HOPPER), C[M x N] = op(A) op(B)
 * for fp16/bf16 with fp32 accumulation, built for sm_90a only (TMA bulk
 * tensor copies + wgmma). Without CPK_BUILD_SM90A it is a stub that reports
 * cudaErrorNotSupported.
 *
 * Tiles and pipeline
 *  - Block tile 128 (M) x 256 (N), 64 K per stage, a ring of 4 stages in
 *    dynamic shared memory (48 KiB a stage: A 16 KiB, B 32 KiB), 32 KiB of
 *    C staging (below), one full and one empty mbarrier per stage: 225 KiB
 *    in all.
 *  - 384 threads = 3 warpgroups. Warpgroup 0 is the producer: it fills
 *    stages (and gives registers back with setmaxnreg.dec). Warpgroups 1 and
 *    2 are consumers (setmaxnreg.inc). Registers per thread, producer /
 *    consumer: 40 / 232 with TMA only, 152 / 176 when an operand takes the
 *    manual path below. Consumer c owns rows 64c..64c+63 of the tile and
 *    issues wgmma.mma_async m64n256k16 (four per stage) into
 *    128 fp32 accumulators per thread. A consumer keeps one wgmma group in
 *    flight behind the current one (wait_group 1) and releases a stage to
 *    the producer (one arrive per warp on its empty barrier) as soon as the
 *    wgmmas that read it have completed.
 *  - Persistent grid: one CTA per SM walks the tiles t = blockIdx.x,
 *    blockIdx.x + gridDim.x, ...; tiles are numbered in groups of 16 tile
 *    rows (M) so that the CTAs running at one time share A and B panels in
 *    L2. Producer and consumers walk the same sequence, and the stage ring
 *    runs on across tiles, so the producer fills the next tile's stages
 *    while the consumers store the previous one.
 *  - Epilogue (v4, TMA store): where C's base and ldc are 16-byte aligned
 *    and both operands go by TMA, each consumer rounds its 64 x 256 rows to
 *    T into a 16 KiB staging buffer (stmatrix, 128-byte swizzle), half its
 *    columns at a time, and one of its threads stores the two 64 x 64 boxes
 *    with cp.async.bulk.tensor (the tensor map clips past M and N); the
 *    consumer goes on to the next tile while the stores drain, waiting only
 *    before it writes into the buffer again. Otherwise (v3, and with
 *    CPK_MM_TMA_STORE=0): straight from the accumulator registers to global
 *    memory, every store masked against M and N; two elements are written
 *    with one 4-byte store where C and ldc allow it. Both round each
 *    accumulator once: the same bits.
 *
 * Shared-memory layouts (what the wgmma descriptors describe)
 *  Every operand tile is stored as "boxes" of R rows x 64 elements (128
 *  bytes a row) with the 128-byte swizzle: the 16-byte chunk j of row r sits
 *  at r*128 + ((j ^ (r % 8)) * 16) from the 1024-byte aligned box start,
 *  which is exactly what TMA writes with CU_TENSOR_MAP_SWIZZLE_128B and what
 *  wgmma reads with descriptor swizzle mode 1. A stored row is a row of the
 *  operand as it lies in global memory (row-major), so:
 *  - A, trans_a = 0 (M x K, K contiguous: K-major): one box of 128 rows
 *    (m) x 64 k. Descriptor: start + 32 bytes per k16 step, SBO 1024 (next 8
 *    rows), LBO unused (1), imm-trans-a 0.
 *  - A, trans_a = 1 (K x M, M contiguous: M-major): two boxes of 64 rows (k)
 *    x 64 m. Consumer c reads box c. Start + 2048 bytes per k16 step (16
 *    rows), SBO 1024 (next 8 k rows), LBO 8192 (next 64 m), imm-trans-a 1.
 *  - B, trans_b = 0 (K x N, N contiguous: N-major): four boxes of 64 rows
 *    (k) x 64 n. Start + 2048 per k16 step, SBO 1024, LBO 8192 (next 64 n),
 *    imm-trans-b 1.
 *  - B, trans_b = 1 (N x K, K contiguous: K-major): one box of 256 rows (n)
 *    x 64 k. Start + 32 per k16 step, SBO 1024, imm-trans-b 0.
 *  In every case the boxes are contiguous, so "segment" s (box s / R, row
 *  s % R) is at s*128 bytes with swizzle key s % 8.
 *
 * Producer paths (chosen per operand, per call, by the launcher)
 *  - TMA: needs the operand's base address 16-byte aligned and its leading
 *    dimension a multiple of 8 elements (16 bytes). One thread issues
 *    cp.async.bulk.tensor.2d per box with the stage's full barrier and
 *    expect_tx; the tensor map has the true sizes, so TMA fills zeros past
 *    M, N and K (the byte count is always the full box).
 *  - Manual: any alignment (2 bytes) and any leading dimension. All 128
 *    producer threads load segments of 64 contiguous elements with 16-byte
 *    aligned vector loads (9 of them cover a 2-byte aligned 128-byte run),
 *    realign them with word selects and 16-bit funnel shifts, and store them
 *    in the swizzled layout above; a 16-byte chunk that is not wholly inside
 *    the stored row (row start, row end) is read element by element with
 *    bounds checks, so nothing outside the matrix's rows is ever read and
 *    elements past the edge are zero. Then fence.proxy.async.shared::cta
 *    (generic-proxy stores made visible to wgmma's async proxy) and an
 *    arrive on the stage's full barrier. All loads of a stage (three
 *    segments a thread) are issued before waiting for its empty barrier, so
 *    a stage costs about one global-load latency.
 *  A call may mix the two (one operand by TMA, the other by hand): the full
 *  barrier then expects 128 arrivals plus one arrive.expect_tx.
 *  - Repack (when the caller gave a workspace, cpk_matmul_workspace_bytes):
 *    an operand whose leading dimension TMA cannot take is first copied by
 *    mm_pack_k into the workspace with the padded leading dimension
 *    mm_pack_ld(cols) (a multiple of 64 elements, rows 128-byte aligned),
 *    then read from the copy by TMA. The tensor map keeps the true sizes, so
 *    the padding is never read and the values (hence C's bits) are the same
 *    as the manual path gives. An operand whose ld is fine but whose base is
 *    not 16-byte aligned is copied too when the workspace has room left
 *    after the sections it was sized for; otherwise it takes the manual
 *    path. mm_pack_k: one 16-byte output chunk (8 elements) per thread,
 *    warps along a row; each thread reads the 16-byte aligned chunk under
 *    its output and takes the next one from its neighbour lane (shuffle),
 *    realigns with word selects and a 16-bit funnel shift, and writes one
 *    16-byte store; reads touch only the stored rows' elements (chunks that
 *    cross a row's ends are read element by element), the copy's padding
 *    past cols within the last chunk is written as zeros.
 *
 * Limits: m, n, k < 2^31 (TMA coordinates are 32-bit; larger operands would
 * take the manual path, but tile counts are int). Accumulation is fp32 in
 * the order of K, C is rounded once.
 */
#include "mm_sm90.cuh"

#if defined(CPK_BUILD_SM90A)

#include <cuda.h>         /* CUtensorMap and its enums: types only, no -lcuda */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <string.h>

#include <type_traits>

#include "common.cuh"
#include "mbar.cuh"

namespace {

using namespace cpk__;

constexpr int kBM = 128;      /* block tile M */
constexpr int kBN = 256;      /* block tile N */
constexpr int kBK = 64;       /* K per stage (one 128-byte swizzle row) */
constexpr int kStages = 4;    /* ring depth */
constexpr int kThreads = 384; /* producer warpgroup + two consumers */
constexpr int kGroupM = 16;   /* tile rows per raster group (L2 reuse) */
constexpr uint32_t kABytes = kBM * kBK * 2;         /* 16 KiB */
constexpr uint32_t kBBytes = kBN * kBK * 2;         /* 32 KiB */
constexpr uint32_t kStageBytes = kABytes + kBBytes; /* 48 KiB */
/* C staging of the TMA-store epilogue: per consumer, half its 64 x 256
 * rows (64 x 128 elements, two 128-byte swizzled boxes of 64 x 64). */
constexpr uint32_t kCHalfBytes = 64u * 128u * 2u; /* 16 KiB */
constexpr uint32_t kCStageBytes = 2u * kCHalfBytes;
constexpr size_t kSmemBytes = (size_t)kStages * kStageBytes + kCStageBytes +
                              2 * kStages * 8 + 1024; /* + barriers,
                                                         alignment */
static_assert(kSmemBytes <= 232448, "over the 227 KiB a block may have");

/* ---- PTX wrappers ---- */

/* Spins until the phase with the given parity has completed. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

__device__ __forceinline__ void prefetch_tmap(const CUtensorMap *m) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(m))
               : "memory");
}

/* One 2-D TMA box: coordinates c0 (contiguous dimension), c1 (rows). */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *m,
                                            int32_t c0, int32_t c1,
                                            uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
      "bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(m)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

template <int R> __device__ __forceinline__ void regs_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R> __device__ __forceinline__ void regs_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void
st_shared_v4(uint32_t addr, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(x),
               "r"(y), "r"(z), "r"(w)
               : "memory");
}

/* Four 8 x 8 matrices of 16-bit elements from the accumulator-fragment
 * layout (thread t: row t / 4, elements 2 (t % 4) and + 1 of matrix q in
 * r[q]) into shared memory; lanes 8q..8q+7 give the row addresses of
 * matrix q. */
__device__ __forceinline__ void
stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
          addr),
      "r"(r0), "r"(r1), "r"(r2), "r"(r3)
      : "memory");
}

/* One 2-D TMA store of a box from shared memory (bulk-group completion);
 * the tensor map clips what lies past the matrix's edges. */
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *m, uint32_t src,
                                             int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, "
               "{%1, %2}], [%3];" ::"l"(reinterpret_cast<uint64_t>(m)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/* Waits until the committed bulk stores have read their shared memory. */
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
/* Waits until the committed bulk stores are complete. */
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
/* Named barrier `id` over `n` threads (0 is __syncthreads'). */
__device__ __forceinline__ void bar_named(int id, int n) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}

/* wgmma shared-memory matrix descriptor with the 128-byte swizzle: start
 * address, leading and stride byte offsets, each stored >> 4; base offset 0
 * (every pattern starts on a 1024-byte boundary). */
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr, uint32_t lbo,
                                              uint32_t sbo) {
  return (uint64_t)((saddr & 0x3FFFFu) >> 4) | ((uint64_t)(lbo >> 4) << 16) |
         ((uint64_t)(sbo >> 4) << 32) | (1ull << 62);
}

/* The 128 accumulator operands of m64n256k16 with an f32 D. */
#define CPK__ACC_REGS                                                          \
  "{"                                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, "                                           \
  "%8, %9, %10, %11, %12, %13, %14, %15, "                                     \
  "%16, %17, %18, %19, %20, %21, %22, %23, "                                   \
  "%24, %25, %26, %27, %28, %29, %30, %31, "                                   \
  "%32, %33, %34, %35, %36, %37, %38, %39, "                                   \
  "%40, %41, %42, %43, %44, %45, %46, %47, "                                   \
  "%48, %49, %50, %51, %52, %53, %54, %55, "                                   \
  "%56, %57, %58, %59, %60, %61, %62, %63, "                                   \
  "%64, %65, %66, %67, %68, %69, %70, %71, "                                   \
  "%72, %73, %74, %75, %76, %77, %78, %79, "                                   \
  "%80, %81, %82, %83, %84, %85, %86, %87, "                                   \
  "%88, %89, %90, %91, %92, %93, %94, %95, "                                   \
  "%96, %97, %98, %99, %100, %101, %102, %103, "                               \
  "%104, %105, %106, %107, %108, %109, %110, %111, "                           \
  "%112, %113, %114, %115, %116, %117, %118, %119, "                           \
  "%120, %121, %122, %123, %124, %125, %126, %127"                             \
  "}"
#define CPK__D8(i)                                                             \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]),  \
      "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define CPK__D64(i)                                                            \
  CPK__D8(i), CPK__D8(i + 8), CPK__D8(i + 16), CPK__D8(i + 24),                \
      CPK__D8(i + 32), CPK__D8(i + 40), CPK__D8(i + 48), CPK__D8(i + 56)
/* %128 A descriptor, %129 B descriptor, %130 accumulate flag (0: D = A B),
 * %131 imm-trans-a, %132 imm-trans-b. */
#define CPK__WGMMA(TY)                                                         \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"             \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY        \
               " " CPK__ACC_REGS ", %128, %129, p, 1, 1, %131, %132;\n\t}"     \
               : CPK__D64(0), CPK__D64(64)                                     \
               : "l"(da), "l"(db), "r"(acc), "n"(TA), "n"(TB))

/* D (64 x 256 per warpgroup) (+)= A (64 x 16) B (16 x 256), both operands
 * from shared memory. TA / TB: imm-trans-a / imm-trans-b (1 = MN-major). */
template <typename T, int TA, int TB>
__device__ __forceinline__ void wgmma_256(float (&d)[128], uint64_t da,
                                          uint64_t db, uint32_t acc) {
  if constexpr (std::is_same<T, __half>::value) {
    CPK__WGMMA("f16");
  } else {
    CPK__WGMMA("bf16");
  }
}

/* Keeps the compiler from moving accumulator reads or writes across this
 * point (wgmma writes them asynchronously, behind the compiler's back). */
__device__ __forceinline__ void fence_acc(float (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

/* ---- operand geometry ----
 * An operand tile is NBOX boxes of ROWS stored rows x 64 contiguous elements.
 * K-major (A with trans_a 0, B with trans_b 1): one box; stored row = the
 * M or N index, contiguous = K. MN-major: MN/64 boxes; stored row = K,
 * contiguous = M or N. */
template <bool KMAJOR, int MN> struct geom {
  static constexpr int rows = KMAJOR ? MN : kBK;
  static constexpr int nbox = KMAJOR ? 1 : MN / 64;
  static constexpr int segs = rows * nbox;
  static constexpr uint32_t bytes = (uint32_t)segs * 128u;
  /* Byte step of the descriptor start per k16 slice, and the LBO. */
  static constexpr uint32_t kstep = KMAJOR ? 32u : 2048u;
  static constexpr uint32_t lbo = KMAJOR ? 16u : (uint32_t)rows * 128u;
};

/* One operand as stored in global memory. */
struct opnd {
  const uint8_t *p; /* base, 2-byte elements */
  int64_t ld;       /* elements between stored rows */
  int64_t rows;     /* stored rows */
  int64_t cols;     /* stored columns (contiguous) */
};

struct mm_args {
  opnd a, b;
  void *c;
  int64_t m, n, ldc;
  int tiles_m, tiles_n, nk;
  int c_pair; /* C and ldc allow 4-byte stores of element pairs */
};

/* Tile t of the persistent walk -> (tile row, tile column), grouped by
 * kGroupM tile rows. */
__device__ __forceinline__ void tile_of(int t, int tiles_m, int tiles_n,
                                        int &tm, int &tn) {
  const int per_group = kGroupM * tiles_n;
  const int g = t / per_group;
  const int first = g * kGroupM;
  const int gs = min(tiles_m - first, kGroupM);
  const int r = t - g * per_group;
  tm = first + r % gs;
  tn = r / gs;
}

/* ---- manual producer: one 64-element segment of a stored row ---- */

/* Loads the 16-byte chunk at x (16-byte aligned) of a stored row whose
 * valid bytes are [rb, re): a vector load when the chunk lies wholly inside,
 * otherwise element by element, zero outside. */
__device__ __forceinline__ uint4 ld_chunk(uintptr_t x, uintptr_t rb,
                                          uintptr_t re) {
  if (x >= rb && x + 16 <= re)
    return __ldg(reinterpret_cast<const uint4 *>(x));
  uint32_t h[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const uintptr_t y = x + 2 * e;
    h[e] = (y >= rb && y < re)
               ? (uint32_t)__ldg(reinterpret_cast<const unsigned short *>(y))
               : 0u;
  }
  return make_uint4(h[0] | (h[1] << 16), h[2] | (h[3] << 16),
                    h[4] | (h[5] << 16), h[6] | (h[7] << 16));
}

/* Fetches elements [c0, c0 + 64) of stored row `row` (zero past the edges)
 * as 9 aligned chunks in w; sh gets the byte offset of element c0 within
 * the first chunk. */
__device__ __forceinline__ void seg_fetch(uint32_t (&w)[36], const opnd &o,
                                          int64_t row, int64_t c0,
                                          uint32_t &sh) {
  if (row >= o.rows || c0 >= o.cols) {
#pragma unroll
    for (int i = 0; i < 36; ++i)
      w[i] = 0u;
    sh = 0;
    return;
  }
  const uintptr_t rb =
      reinterpret_cast<uintptr_t>(o.p) + (uintptr_t)(row * o.ld * 2);
  const uintptr_t re = rb + (uintptr_t)(o.cols * 2);
  const uintptr_t p = rb + (uintptr_t)(c0 * 2);
  const uintptr_t q = p & ~(uintptr_t)15;
  sh = (uint32_t)(p - q);
#pragma unroll
  for (int i = 0; i < 9; ++i) {
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (i < 8 || sh != 0)
      v = ld_chunk(q + 16 * i, rb, re);
    w[4 * i + 0] = v.x;
    w[4 * i + 1] = v.y;
    w[4 * i + 2] = v.z;
    w[4 * i + 3] = v.w;
  }
}

/* Shifts the fetched bytes down by sh (even, 0..14) so that w[0..31] hold
 * the segment, and stores it as swizzled segment `seg` of the tile at
 * sbase. */
__device__ __forceinline__ void seg_store(uint32_t (&w)[36], uint32_t sh,
                                          uint32_t sbase, int seg) {
  if (sh & 8) {
#pragma unroll
    for (int i = 0; i < 34; ++i)
      w[i] = w[i + 2];
  }
  if (sh & 4) {
#pragma unroll
    for (int i = 0; i < 33; ++i)
      w[i] = w[i + 1];
  }
  if (sh & 2) {
#pragma unroll
    for (int i = 0; i < 32; ++i)
      w[i] = __funnelshift_r(w[i], w[i + 1], 16);
  }
  const uint32_t row = sbase + (uint32_t)seg * 128u;
  const uint32_t key = (uint32_t)seg & 7u;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    st_shared_v4(row + ((j ^ key) << 4), w[4 * j], w[4 * j + 1], w[4 * j + 2],
                 w[4 * j + 3]);
}

/* Stored row and first contiguous element of segment s of an operand tile
 * whose stored-row origin is r0 and contiguous origin c0. */
template <class G>
__device__ __forceinline__ void seg_pos(int s, int64_t r0, int64_t c0,
                                        int64_t &row, int64_t &col) {
  row = r0 + s % G::rows;
  col = c0 + (int64_t)(s / G::rows) * 64;
}

/* ---- the kernel ----
 * T: __half or __nv_bfloat16. TRA / TRB: trans_a / trans_b. MANA / MANB:
 * the operand is loaded by the manual producer (else by TMA). TMAC: C is
 * written through shared memory by TMA stores (tma_c), else straight from
 * the registers. */
template <typename T, bool TRA, bool TRB, bool MANA, bool MANB, bool TMAC>
__global__ void __launch_bounds__(kThreads, 1)
    mm_sm90_k(const __grid_constant__ CUtensorMap tma_a,
              const __grid_constant__ CUtensorMap tma_b,
              const __grid_constant__ CUtensorMap tma_c, const mm_args g) {
  using GA = geom<!TRA, kBM>; /* A is K-major when not transposed */
  using GB = geom<TRB, kBN>;  /* B is K-major when transposed */
  static_assert(GA::bytes == kABytes && GB::bytes == kBBytes, "tile bytes");
  constexpr bool kAnyMan = MANA || MANB;
  constexpr bool kAnyTma = !MANA || !MANB;
  constexpr uint32_t kTmaBytes = (MANA ? 0u : kABytes) + (MANB ? 0u : kBBytes);
  /* Registers: 128 * producer + 256 * consumer <= 64 K. The manual producer
   * issues all of a stage's loads (108 words) before storing any. */
  constexpr int kProdRegs = kAnyMan ? 152 : 40;
  constexpr int kConsRegs = kAnyMan ? 176 : 232;

  extern __shared__ uint8_t smem_raw[];
  const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t cstage = base + kStages * kStageBytes; /* 1024-aligned */
  const uint32_t bars = cstage + kCStageBytes;
  auto sa = [&](int s) { return base + (uint32_t)s * kStageBytes; };
  auto sb = [&](int s) { return base + (uint32_t)s * kStageBytes + kABytes; };
  auto full = [&](int s) { return bars + 8u * (uint32_t)s; };
  auto empty = [&](int s) { return bars + 8u * (uint32_t)(kStages + s); };

  const int tid = threadIdx.x;
  const int wg = tid / 128;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full(s), (kAnyMan ? 128u : 0u) + (kAnyTma ? 1u : 0u));
      mbar_init(empty(s), 8u); /* one arrive per consumer warp */
    }
    fence_barrier_init();
  }
  __syncthreads();

  const int ntiles = g.tiles_m * g.tiles_n;

  if (wg == 0) {
    /* ---------------- producer ---------------- */
    regs_dec<kProdRegs>();
    const int ptid = tid; /* 0..127 */
    if (!kAnyMan && ptid != 0)
      return;
    if (kAnyTma && ptid == 0) {
      if (!MANA)
        prefetch_tmap(&tma_a);
      if (!MANB)
        prefetch_tmap(&tma_b);
      if (TMAC)
        prefetch_tmap(&tma_c);
    }
    int s = 0;
    uint32_t ph = 0;
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
      int tm, tn;
      tile_of(t, g.tiles_m, g.tiles_n, tm, tn);
      const int64_t m0 = (int64_t)tm * kBM, n0 = (int64_t)tn * kBN;
      for (int kb = 0; kb < g.nk; ++kb) {
        const int64_t k0 = (int64_t)kb * kBK;
        /* Stored-row / contiguous origins of this stage's tiles. */
        const int64_t ar0 = TRA ? k0 : m0, ac0 = TRA ? m0 : k0;
        const int64_t br0 = TRB ? n0 : k0, bc0 = TRB ? k0 : n0;

        /* Manual operands: issue every load of the stage first, so their
         * latency overlaps the wait for the stage to be free. */
        uint32_t wa[36], sha, wb[2][36], shb[2];
        if constexpr (MANA) {
          int64_t row, col;
          seg_pos<GA>(ptid, ar0, ac0, row, col);
          seg_fetch(wa, g.a, row, col, sha);
        }
        if constexpr (MANB) {
#pragma unroll
          for (int u = 0; u < 2; ++u) {
            int64_t row, col;
            seg_pos<GB>(ptid + 128 * u, br0, bc0, row, col);
            seg_fetch(wb[u], g.b, row, col, shb[u]);
          }
        }

        mbar_wait(empty(s), ph ^ 1u);

        if constexpr (kAnyTma) {
          if (ptid == 0) {
            mbar_arrive_tx(full(s), kTmaBytes);
            if constexpr (!MANA) {
#pragma unroll
              for (int bx = 0; bx < GA::nbox; ++bx)
                tma_load_2d(sa(s) + (uint32_t)bx * GA::rows * 128u, &tma_a,
                            (int32_t)(ac0 + 64 * bx), (int32_t)ar0, full(s));
            }
            if constexpr (!MANB) {
#pragma unroll
              for (int bx = 0; bx < GB::nbox; ++bx)
                tma_load_2d(sb(s) + (uint32_t)bx * GB::rows * 128u, &tma_b,
                            (int32_t)(bc0 + 64 * bx), (int32_t)br0, full(s));
            }
          }
        }
        if constexpr (MANB) {
#pragma unroll
          for (int u = 0; u < 2; ++u)
            seg_store(wb[u], shb[u], sb(s), ptid + 128 * u);
        }
        if constexpr (MANA)
          seg_store(wa, sha, sa(s), ptid);
        if constexpr (kAnyMan) {
          fence_proxy_async();
          mbar_arrive(full(s));
        }
        if (++s == kStages) {
          s = 0;
          ph ^= 1u;
        }
      }
    }
  } else {
    /* ---------------- consumers ---------------- */
    regs_inc<kConsRegs>();
    const int c = wg - 1;            /* rows 64c..64c+63 of the tile */
    const int ctid = tid - 128 * wg; /* 0..127 */
    const int warp = ctid / 32, lane = ctid % 32;
    /* Descriptors for stage 0; other stages and k16 slices add their byte
     * offset >> 4 to the start-address field (addresses stay < 256 KiB, so
     * the 14-bit field never carries). Consumer c's A rows: K-major, 64
     * rows x 128 bytes further; M-major, the next box (also 8 KiB). */
    const uint64_t da0 = make_desc(sa(0) + (uint32_t)c * 8192u, GA::lbo, 1024u);
    const uint64_t db0 = make_desc(sb(0), GB::lbo, 1024u);
    T *const cp = reinterpret_cast<T *>(g.c);

    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
      d[i] = 0.f;

    int s = 0;
    uint32_t ph = 0;
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
      int tm, tn;
      tile_of(t, g.tiles_m, g.tiles_n, tm, tn);
      int prev = 0;
      for (int kb = 0; kb < g.nk; ++kb) {
        mbar_wait(full(s), ph);
        const uint64_t soff = (uint64_t)(((uint32_t)s * kStageBytes) >> 4);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk)
          wgmma_256<T, TRA ? 1 : 0, TRB ? 0 : 1>(
              d, da0 + soff + ((kk * GA::kstep) >> 4),
              db0 + soff + ((kk * GB::kstep) >> 4), (kb | kk) != 0);
        wgmma_commit();
        /* The group before this one is done: its stage can be refilled. */
        wgmma_wait<1>();
        if (kb > 0 && lane == 0)
          mbar_arrive(empty(prev));
        prev = s;
        if (++s == kStages) {
          s = 0;
          ph ^= 1u;
        }
      }
      wgmma_wait<0>();
      fence_acc(d);
      if (lane == 0)
        mbar_arrive(empty(prev));

      /* Epilogue. Accumulator layout of m64nNk16: warp w of the warpgroup
       * holds rows 16w..16w+15; d[4j + 2h + e] is row 16w + lane/4 + 8h,
       * column 8j + 2 (lane % 4) + e. */
      if constexpr (TMAC) {
        /* Through shared memory, half the consumer's 256 columns at a time:
         * stmatrix puts the rounded values into the staging buffer (two
         * 64 x 64 boxes, 128-byte swizzle, as the tensor map of C
         * describes), then one thread stores the two boxes with TMA and the
         * consumer goes on; the next write into the buffer first waits
         * until those stores have read it. j pairs (j, j + 1) make one
         * stmatrix: matrices q = 0..3 are (h, j) = (0, j), (1, j), (0, j +
         * 1), (1, j + 1); lane 8q + i gives row i of matrix q. */
        const uint32_t stg = cstage + (uint32_t)c * kCHalfBytes;
        const int q = lane / 8;
        const uint32_t srow = (uint32_t)(16 * warp + lane % 8 + 8 * (q & 1));
        const uint32_t skey = srow & 7u;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          if (ctid == 0)
            bulk_wait_read();
          bar_named(1 + c, 128);
#pragma unroll
          for (int jj = 0; jj < 16; jj += 2) {
            const int j = 16 * half + jj;
            /* 16-byte chunk of the row within the half: 0..15 */
            const uint32_t ch = (uint32_t)(jj + (q >> 1));
            const uint32_t addr = stg + (ch >> 3) * 8192u + srow * 128u +
                                  (((ch & 7u) ^ skey) << 4);
            stmatrix_x4(addr, ty<T>::pack(d[4 * j], d[4 * j + 1]),
                        ty<T>::pack(d[4 * j + 2], d[4 * j + 3]),
                        ty<T>::pack(d[4 * j + 4], d[4 * j + 5]),
                        ty<T>::pack(d[4 * j + 6], d[4 * j + 7]));
          }
          fence_proxy_async();
          bar_named(1 + c, 128);
          if (ctid == 0) {
            const int32_t cy = tm * kBM + 64 * c;
            const int32_t cx = tn * kBN + 128 * half;
            tma_store_2d(&tma_c, stg, cx, cy);
            tma_store_2d(&tma_c, stg + 8192u, cx + 64, cy);
            bulk_commit();
          }
        }
      } else {
        /* Straight from the registers, every store masked (v3). */
        const int64_t r0 = (int64_t)tm * kBM + 64 * c + 16 * warp + lane / 4;
        const int64_t c0 = (int64_t)tn * kBN + 2 * (lane % 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t row = r0 + 8 * h;
          if (row >= g.m)
            continue;
          T *const crow = cp + row * g.ldc;
#pragma unroll
          for (int j = 0; j < 32; ++j) {
            const int64_t col = c0 + 8 * j;
            const float v0 = d[4 * j + 2 * h], v1 = d[4 * j + 2 * h + 1];
            if (g.c_pair && col + 1 < g.n) {
              *reinterpret_cast<uint32_t *>(crow + col) = ty<T>::pack(v0, v1);
            } else {
              if (col < g.n)
                crow[col] = ty<T>::from_f(v0);
              if (col + 1 < g.n)
                crow[col + 1] = ty<T>::from_f(v1);
            }
          }
        }
      }
    }
    /* The TMA stores read this block's shared memory: complete them before
     * the block exits. */
    if (TMAC && ctid == 0)
      bulk_wait();
  }
}

/* ---- repack: a stored operand into a copy with a padded ld ---- */

constexpr int kPackThreads = 256;

/* dst[r][0, cols) = src[r][0, cols) for r < rows, 2-byte elements; lds:
 * any; dst 16-byte aligned and ldd a multiple of 8, so every output chunk
 * is one 16-byte store. Thread (x, y) of a block: chunk blockIdx.x *
 * blockDim.x + x of row blockIdx.y * blockDim.y + y; blockDim.x is a
 * multiple of 32, so a warp shares one row and its loop bounds (the
 * shuffle needs every lane). Eight blocks per SM (32 registers): a full SM
 * keeps enough 16-byte loads in flight to stream at HBM bandwidth. */
__global__ void __launch_bounds__(kPackThreads, 8)
    mm_pack_k(const uint8_t *__restrict__ src, int64_t lds,
              uint8_t *__restrict__ dst, int64_t ldd, int64_t rows,
              int64_t cols) {
  const int64_t nch = (cols + 7) / 8; /* output chunks per row */
  const bool last_lane = (threadIdx.x & 31) == 31;
  for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < rows;
       r += (int64_t)gridDim.y * blockDim.y) {
    const uintptr_t rb =
        reinterpret_cast<uintptr_t>(src) + (uintptr_t)r * (uintptr_t)lds * 2u;
    const uintptr_t re = rb + (uintptr_t)cols * 2u;
    const uint32_t sh = (uint32_t)(rb & 15u); /* even; the same all row */
    const uintptr_t q0 = rb - sh;
    uint4 *const drow =
        reinterpret_cast<uint4 *>(dst + (uintptr_t)r * (uintptr_t)ldd * 2u);
    for (int64_t j0 = (int64_t)blockIdx.x * blockDim.x; j0 < nch;
         j0 += (int64_t)gridDim.x * blockDim.x) {
      const int64_t j = j0 + threadIdx.x;
      const uintptr_t x = q0 + (uintptr_t)j * 16u;
      const uint4 lo = ld_chunk(x, rb, re); /* zero wholly past the end */
      uint4 out = lo;
      if (sh != 0) {
        uint4 hi;
        hi.x = __shfl_down_sync(0xffffffffu, lo.x, 1);
        hi.y = __shfl_down_sync(0xffffffffu, lo.y, 1);
        hi.z = __shfl_down_sync(0xffffffffu, lo.z, 1);
        hi.w = __shfl_down_sync(0xffffffffu, lo.w, 1);
        if (last_lane)
          hi = ld_chunk(x + 16u, rb, re);
        uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        if (sh & 8) {
#pragma unroll
          for (int i = 0; i < 6; ++i)
            w[i] = w[i + 2];
        }
        if (sh & 4) {
#pragma unroll
          for (int i = 0; i < 7; ++i)
            w[i] = w[i + 1];
        }
        if (sh & 2) {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            w[i] = __funnelshift_r(w[i], w[i + 1], 16);
        }
        out = make_uint4(w[0], w[1], w[2], w[3]);
      }
      /* Elements past cols in the last chunk are zero: ld_chunk reads
       * nothing outside [rb, re). */
      if (j < nch)
        drow[j] = out;
    }
  }
}

/* Enqueues the copy of o into dst (ld ldd) on st. */
cudaError_t pack(const opnd &o, uint8_t *dst, int64_t ldd, cudaStream_t st) {
  const int64_t nch = (o.cols + 7) / 8;
  const int tx =
      nch >= kPackThreads ? kPackThreads : (int)((nch + 31) / 32 * 32);
  const int ty = kPackThreads / tx;
  int64_t gx = (nch + tx - 1) / tx, gy = (o.rows + ty - 1) / ty;
  if (gx > 0x7fffffff)
    gx = 0x7fffffff;
  if (gy > 65535)
    gy = 65535;
  mm_pack_k<<<dim3((unsigned)gx, (unsigned)gy, 1),
              dim3((unsigned)tx, (unsigned)ty, 1), 0, st>>>(o.p, o.ld, dst, ldd,
                                                            o.rows, o.cols);
  return cudaGetLastError();
}

/* ---- host side ---- */

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void *p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
    cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p,
                                            cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError(); /* not sticky; the manual path serves */
      p = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

/* Builds the TMA map of one operand (box: 64 contiguous elements x
 * box_rows rows, 128-byte swizzle, zero fill). False when TMA cannot take it
 * (alignment, stride, sizes, no driver entry point). */
bool make_tmap(CUtensorMap *m, const opnd &o, int box_rows, cpk_dtype dt) {
  const uint64_t stride = (uint64_t)o.ld * 2u;
  if ((reinterpret_cast<uintptr_t>(o.p) & 15u) != 0 || stride % 16u != 0 ||
      stride >= (1ull << 40) || o.cols > 0x7fffffff || o.rows > 0x7fffffff)
    return false;
  PFN_cuTensorMapEncodeTiled_v12000 enc = encode_fn();
  if (!enc)
    return false;
  const cuuint64_t dims[2] = {(cuuint64_t)o.cols, (cuuint64_t)o.rows};
  const cuuint64_t strides[1] = {(cuuint64_t)stride};
  const cuuint32_t box[2] = {64u, (cuuint32_t)box_rows};
  const cuuint32_t estr[2] = {1u, 1u};
  const CUresult r = enc(
      m,
      dt == CPK_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                     : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      2, const_cast<uint8_t *>(o.p), dims, strides, box, estr,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}

/* The three tensor maps of a launch (tc: only read when C goes by TMA). */
struct tmaps {
  CUtensorMap a, b, c;
};

template <typename T, bool TRA, bool TRB, bool MANA, bool MANB, bool TMAC>
cudaError_t launch(const tmaps &tm, const mm_args &g, unsigned grid,
                   cudaStream_t st) {
  auto k = mm_sm90_k<T, TRA, TRB, MANA, MANB, TMAC>;
  CPK__TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)kSmemBytes));
  k<<<grid, kThreads, kSmemBytes, st>>>(tm.a, tm.b, tm.c, g);
  return cudaGetLastError();
}

/* Turns the runtime flags into template arguments. C goes by TMA only when
 * both operands do (the manual paths keep the register epilogue: fewer
 * instantiations, and their calls are the unaligned ones). */
template <typename T, bool TRA, bool TRB>
cudaError_t pick_path(bool mana, bool manb, bool tmac, const tmaps &tm,
                      const mm_args &g, unsigned grid, cudaStream_t st) {
  if (mana)
    return manb ? launch<T, TRA, TRB, true, true, false>(tm, g, grid, st)
                : launch<T, TRA, TRB, true, false, false>(tm, g, grid, st);
  if (manb)
    return launch<T, TRA, TRB, false, true, false>(tm, g, grid, st);
  return tmac ? launch<T, TRA, TRB, false, false, true>(tm, g, grid, st)
              : launch<T, TRA, TRB, false, false, false>(tm, g, grid, st);
}

template <typename T>
cudaError_t pick_trans(bool tra, bool trb, bool mana, bool manb, bool tmac,
                       const tmaps &tm, const mm_args &g, unsigned grid,
                       cudaStream_t st) {
  if (tra)
    return trb ? pick_path<T, true, true>(mana, manb, tmac, tm, g, grid, st)
               : pick_path<T, true, false>(mana, manb, tmac, tm, g, grid, st);
  return trb ? pick_path<T, false, true>(mana, manb, tmac, tm, g, grid, st)
             : pick_path<T, false, false>(mana, manb, tmac, tm, g, grid, st);
}

/* CPK_MM_TMA_STORE=0 keeps C's epilogue in registers (the v3 epilogue) for
 * side-by-side runs (docs/PERFORMANCE.md); C's bits are the same either
 * way (both round each fp32 accumulator once to T). */
bool tma_store_on() {
  static const bool on = knob_on("CPK_MM_TMA_STORE");
  return on;
}

} /* namespace */

namespace cpk__ {

bool mm_sm90_built() {
  return true;
}

cudaError_t mm_sm90(cpk_dtype dt, const void *a, const void *b, void *c,
                    const cpk_gemm &gm, void *ws, size_t ws_bytes,
                    cudaStream_t st) {
  const bool tra = gm.trans_a != 0, trb = gm.trans_b != 0;
  CPK__REQUIRE(a && b && c && (dt == CPK_F16 || dt == CPK_BF16));
  CPK__REQUIRE(gm.m >= 1 && gm.n >= 1 && gm.k >= 1);
  CPK__REQUIRE(gm.lda >= (tra ? gm.m : gm.k) && gm.ldb >= (trb ? gm.k : gm.n) &&
               gm.ldc >= gm.n);
  const int64_t tiles_m = (gm.m + kBM - 1) / kBM,
                tiles_n = (gm.n + kBN - 1) / kBN, nk = (gm.k + kBK - 1) / kBK;
  CPK__REQUIRE(gm.m <= kPackMaxDim && gm.n <= kPackMaxDim &&
               gm.k <= kPackMaxDim && tiles_m * tiles_n < 0x7fffffff);

  mm_args g;
  g.a.p = static_cast<const uint8_t *>(a);
  g.a.ld = gm.lda;
  g.a.rows = tra ? gm.k : gm.m;
  g.a.cols = tra ? gm.m : gm.k;
  g.b.p = static_cast<const uint8_t *>(b);
  g.b.ld = gm.ldb;
  g.b.rows = trb ? gm.n : gm.k;
  g.b.cols = trb ? gm.k : gm.n;
  g.c = c;
  g.m = gm.m;
  g.n = gm.n;
  g.ldc = gm.ldc;
  g.tiles_m = (int)tiles_m;
  g.tiles_n = (int)tiles_n;
  g.nk = (int)nk;
  g.c_pair = (reinterpret_cast<uintptr_t>(c) % 4u == 0) && (gm.ldc % 2 == 0);

  /* Repack (mm_sm90.cuh's plan): the operands whose ld TMA cannot take go
   * into their sections (A's, then B's), which cpk_matmul_workspace_bytes
   * counted; then an operand whose only fault is its base address, into what
   * room is left. Nothing is copied without the TMA entry point (the manual
   * path would read the copy no faster). */
  if (ws_bytes != 0 && encode_fn() != nullptr) {
    size_t sec[2];
    mm_pack_sections(gm, sec[0], sec[1]);
    opnd *const ops[2] = {&g.a, &g.b};
    uint8_t *const wp = static_cast<uint8_t *>(ws);
    size_t off = 0;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < 2; ++i) {
        opnd &o = *ops[i];
        const bool bad_ld = !mm_ld_tma_ok(o.ld);
        const bool bad_base = (reinterpret_cast<uintptr_t>(o.p) & 15u) != 0;
        if (pass == 0 ? !bad_ld : (bad_ld || !bad_base))
          continue;
        const size_t need = pass == 0 ? sec[i] : mm_pack_bytes(o.rows, o.cols);
        if (need == 0 || need > ws_bytes - off)
          continue;
        const int64_t ldp = mm_pack_ld(o.cols);
        CPK__TRY(pack(o, wp + off, ldp, st));
        o.p = wp + off;
        o.ld = ldp;
        off += need;
      }
    }
  }

  /* TMA where the operand allows it, else the manual producer. Box rows:
   * K-major tiles are one box of the tile's M or N rows, MN-major tiles
   * boxes of 64 K rows. */
  tmaps tm;
  memset(&tm, 0, sizeof tm);
  const bool mana = !make_tmap(&tm.a, g.a, tra ? kBK : kBM, dt);
  const bool manb = !make_tmap(&tm.b, g.b, trb ? kBN : kBK, dt);
  /* C as a TMA destination: rows of n elements, ld ldc, boxes of 64 x 64
   * (the staging layout); refused (register epilogue) when C's base or ldc
   * is not 16-byte aligned, as at odd ldc. */
  opnd oc;
  oc.p = static_cast<const uint8_t *>(c);
  oc.ld = gm.ldc;
  oc.rows = gm.m;
  oc.cols = gm.n;
  const bool tmac =
      !mana && !manb && tma_store_on() && make_tmap(&tm.c, oc, 64, dt);

  int dev = 0, sms = 0;
  CPK__TRY(cudaGetDevice(&dev));
  CPK__TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int64_t tiles = tiles_m * tiles_n;
  const unsigned grid = (unsigned)(tiles < sms ? tiles : (sms > 0 ? sms : 1));

  if (dt == CPK_F16)
    return pick_trans<__half>(tra, trb, mana, manb, tmac, tm, g, grid, st);
  return pick_trans<__nv_bfloat16>(tra, trb, mana, manb, tmac, tm, g, grid, st);
}

} /* namespace cpk__ */

#else /* !CPK_BUILD_SM90A: no sm_90a code in this build */

namespace cpk__ {
bool mm_sm90_built() {
  return false;
}
cudaError_t mm_sm90(cpk_dtype, const void *, const void *, void *,
                    const cpk_gemm &, void *, size_t, cudaStream_t) {
  return cudaErrorNotSupported;
}
} /* namespace cpk__ */

#endif
