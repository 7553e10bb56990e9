// probe.cu: a tiny program with one planted defect per sanitizer tool, used
// only to capture REAL tool output on the GPU machine as test fixtures
// (scripts/capture/capture-tool-fixtures.sh). Not part of the product.
//   probe clean | oob | race | uninit | sync | leak | profile
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,              \
              cudaGetErrorString(e_));                                         \
      return 3;                                                                \
    }                                                                          \
  } while (0)

__global__ void probe_copy(const float *x, float *y, int n, int guard) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!guard || i < n) // guard == 0: the planted out-of-bounds write
    y[i] = x[i < n ? i : 0];
}

__global__ void probe_race(float *out) {
  __shared__ float s[256];
  s[threadIdx.x] = (float)threadIdx.x;
  // planted: no __syncthreads() between the write and the neighbour's read
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

__global__ void probe_uninit(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * 2.0f; // planted: x was never written
}

__global__ void probe_sync(float *y) {
  __shared__ float s[256];
  s[threadIdx.x] = 1.0f;
  if (threadIdx.x < 16)
    __syncthreads(); // planted: barrier in divergent code
  y[threadIdx.x] = s[threadIdx.x];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "clean";
  const int n = 1000; // not a multiple of the block size
  float *x = 0, *y = 0;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemset(x, 0, n * sizeof(float)));
  if (!strcmp(mode, "oob")) {
    probe_copy<<<(n + 255) / 256, 256>>>(x, y, n, 0);
  } else if (!strcmp(mode, "race")) {
    probe_race<<<1, 256>>>(y);
  } else if (!strcmp(mode, "uninit")) {
    float *u = 0;
    CK(cudaMalloc(&u, n * sizeof(float)));
    probe_uninit<<<(n + 255) / 256, 256>>>(u, y, n);
    CK(cudaDeviceSynchronize());
    CK(cudaFree(u));
  } else if (!strcmp(mode, "sync")) {
    probe_sync<<<1, 256>>>(y);
  } else if (!strcmp(mode, "leak")) {
    float *l = 0;
    CK(cudaMalloc(&l, 4096)); // planted: never freed
    probe_copy<<<(n + 255) / 256, 256>>>(x, y, n, 1);
  } else if (!strcmp(mode, "profile")) {
    probe_copy<<<(n + 255) / 256, 256>>>(x, y, n, 1); // warm-up, not captured
    CK(cudaDeviceSynchronize());
    CK(cudaProfilerStart());
    nvtxRangePushA("copy/vector/fp32/1000");
    probe_copy<<<(n + 255) / 256, 256>>>(x, y, n, 1);
    nvtxRangePop();
    CK(cudaDeviceSynchronize());
    CK(cudaProfilerStop());
  } else {
    probe_copy<<<(n + 255) / 256, 256>>>(x, y, n, 1);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("probe %s: %s\n", mode, cudaGetErrorString(e));
  CK(cudaFree(x));
  CK(cudaFree(y));
  return e == cudaSuccess ? 0 : 3;
}
