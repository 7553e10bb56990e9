/* mbar.cuh: shared-memory mbarriers and the async-proxy fences around them
 * (sm_90), internal to kernels/: the Hopper matmul's stage ring
 * (matmul_sm90.cu) and the skew path's slot ring (rowskew_ring.cuh).
 * Callers compile these only for compute capability 9.0 and up. */
#ifndef CPK_MBAR_CUH
#define CPK_MBAR_CUH

#include <cstdint>

namespace cpk__ {

/* The shared-state-space address of a generic pointer into shared memory. */
__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar),
               "r"(count));
}

/* Makes the barrier initialisation visible to the async proxy (TMA). */
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
               : "memory");
}

/* Arrives and announces `bytes` more to come from TMA in this phase. */
__device__ __forceinline__ void mbar_arrive_tx(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

/* One probe (potentially blocking for a while): whether the phase with the
 * given parity has completed. */
__device__ __forceinline__ uint32_t mbar_try_wait(uint32_t bar,
                                                  uint32_t parity) {
  uint32_t done;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done;
}

/* Generic-proxy shared-memory accesses before this are ordered with the
 * async proxy's (TMA, wgmma) after the following synchronisation. */
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

} /* namespace cpk__ */

#endif
