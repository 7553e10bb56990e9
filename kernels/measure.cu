/* measure.cu: the timing harness's device helpers (cpk.h, "measurement
 * helpers"): a flush of the L2 by reading, a read stream for the read
 * ceiling, an empty launch, and a hold of the stream. */
#include "common.cuh"

namespace {

using namespace cpk__;

constexpr int kFlushThreads = 512;

/* 16-byte load: L2 only (ld.global.cg), with normal priority (the flush:
 * it must displace what is there) or evict-first (CS, ld.global.cs: the
 * read stream displaces as little as it can, so it pays no write-back of
 * the dirty lines it finds). */
template <bool CS> __device__ __forceinline__ uint4 ld16(const uint4 *p) {
  if constexpr (CS)
    return __ldcs(p);
  else
    return __ldcg(p);
}

/* Reads every 16 bytes of buf once. The xor of what it read decides whether
 * it writes *sink, so the loads cannot be dropped; the sink is a scratch
 * word of the caller's. */
template <bool CS>
__global__ void __launch_bounds__(kFlushThreads)
    read_k(const uint4 *__restrict__ buf, int64_t n,
           unsigned *__restrict__ sink) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t nthr = (int64_t)gridDim.x * blockDim.x;
  unsigned acc = 0;
  int64_t i = tid;
  for (; i + 3 * nthr < n; i += 4 * nthr) {
    uint4 q[4];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      q[u] = ld16<CS>(buf + i + u * nthr);
#pragma unroll
    for (int u = 0; u < 4; ++u)
      acc ^= q[u].x ^ q[u].y ^ q[u].z ^ q[u].w;
  }
  for (; i < n; i += nthr) {
    const uint4 q = ld16<CS>(buf + i);
    acc ^= q.x ^ q.y ^ q.z ^ q.w;
  }
  if (acc == 0x5bd1e995u)
    *sink = acc;
}

__global__ void empty_k() {
}

/* Spins on *go (mapped host memory: each read crosses the bus) until the
 * host sets it, or gives up after timeout_ns and says so in *late. */
__global__ void hold_k(const volatile int *go, unsigned long long timeout_ns,
                       int *late) {
  const unsigned long long t0 = global_ns();
  while (*go == 0) {
    if (global_ns() - t0 > timeout_ns) {
      *late = 1;
      return;
    }
  }
}

template <bool CS>
cudaError_t launch_read(const void *buf, size_t bytes, unsigned *sink,
                        cudaStream_t stream) {
  if (buf == nullptr || sink == nullptr || bytes < 16 || bytes % 16 != 0 ||
      (reinterpret_cast<uintptr_t>(buf) & 15u) != 0)
    return cudaErrorInvalidValue;
  const int64_t n = (int64_t)(bytes / 16);
  /* As many 512-thread blocks as are resident (four per SM on the H200),
   * four loads in flight per thread, capped by the work. */
  unsigned grid = 0;
  CPK__TRY(grid_for(read_k<CS>, kFlushThreads, 0,
                    (n + kFlushThreads - 1) / kFlushThreads, &grid));
  read_k<CS><<<grid, kFlushThreads, 0, stream>>>(
      reinterpret_cast<const uint4 *>(buf), n, sink);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t cpk_l2_flush_read(const void *buf, size_t bytes,
                                         unsigned *sink, cudaStream_t stream) {
  return launch_read<false>(buf, bytes, sink, stream);
}

extern "C" cudaError_t cpk_read_stream(const void *buf, size_t bytes,
                                       unsigned *sink, cudaStream_t stream) {
  return launch_read<true>(buf, bytes, sink, stream);
}

extern "C" cudaError_t cpk_empty_launch(cudaStream_t stream) {
  empty_k<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

extern "C" cudaError_t cpk_hold_stream(const volatile int *go,
                                       unsigned long long timeout_ns, int *late,
                                       cudaStream_t stream) {
  if (go == nullptr || late == nullptr)
    return cudaErrorInvalidValue;
  hold_k<<<1, 1, 0, stream>>>(go, timeout_ns, late);
  return cudaGetLastError();
}
