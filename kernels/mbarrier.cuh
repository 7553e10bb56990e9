/* mbarrier.cuh: shared-memory barriers with transaction counts and the bulk
 * copies that complete them (sm_90), internal to kernels/. Used by the Hopper
 * matmul (matmul_sm90.cu: TMA tensor copies) and by rmsnorm_backward's staged
 * rows (rowfused.cu: 1-D bulk copies). Below compute capability 9.0 the
 * wrappers trap: their callers are compiled for the portable PTX too but only
 * ever launched on 9.0 and later. */
#ifndef CPK_MBARRIER_CUH
#define CPK_MBARRIER_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CPK__SM90_ONLY(body) __trap()
#else
#define CPK__SM90_ONLY(body) body
#endif

namespace cpk__ {

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  CPK__SM90_ONLY(asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count)));
}

/* Makes the barrier initialisation visible to the async proxy (TMA). */
__device__ __forceinline__ void fence_barrier_init() {
  CPK__SM90_ONLY(asm volatile("fence.mbarrier_init.release.cluster;" ::
                                  : "memory"));
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  CPK__SM90_ONLY(
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                   : "memory"));
}

/* Arrives and announces `bytes` more to come from bulk copies in this phase. */
__device__ __forceinline__ void mbar_arrive_tx(uint32_t bar, uint32_t bytes) {
  CPK__SM90_ONLY(asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
      "r"(bytes)
      : "memory"));
}

/* Spins until the phase with the given parity has completed. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  CPK__SM90_ONLY({
    uint32_t done;
    do {
      asm volatile("{\n\t.reg .pred p;\n\t"
                   "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                   "selp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done)
                   : "r"(bar), "r"(parity)
                   : "memory");
    } while (!done);
  });
}

/* One 1-D bulk copy of `bytes` (a multiple of 16; both addresses 16-byte
 * aligned) from global to this block's shared memory, completing `bytes` of
 * the barrier's transaction count. */
__device__ __forceinline__ void bulk_g2s(uint32_t dst, const void *src,
                                         uint32_t bytes, uint32_t bar) {
  CPK__SM90_ONLY(asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%0], [%1], %2, [%3];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes), "r"(bar)
      : "memory"));
}

} /* namespace cpk__ */

#endif
