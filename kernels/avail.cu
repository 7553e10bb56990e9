/* avail.cu: cpk_variant_available, what the current device can run. */
#include "common.cuh"
#include "mm_sm90.cuh"

extern "C" int cpk_variant_available(cpk_op op, cpk_variant v, cpk_dtype dt) {
  (void)op;
  (void)dt;
  if (v != CPK_V_FUSED && v != CPK_V_HOPPER)
    return 1;
  int dev = 0, major = 0, minor = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (e != cudaSuccess)
    return -(int)e;
  if (v == CPK_V_FUSED) /* thread-block clusters: sm_90 and later */
    return major >= 9 ? 1 : 0;
  /* wgmma and this TMA code are sm_90a: compute capability 9.0 exactly. */
  return (cpk__::mm_sm90_built() && major == 9 && minor == 0) ? 1 : 0;
}
