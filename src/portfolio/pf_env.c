/* pf_env.c: see pf_env.h for where each fact comes from. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* getpid */
#endif

#include "pf_env.h"

#include "cm_error.h"
#include "cm_str.h"
#include "pf_gitinfo.h" /* generated at build time: see bench.cmake */
#include "platform.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

/* The only OS-specific line in this file: getpid has another name on
 * Windows. (platform.h has no process id yet; see the report.) */
#ifdef _WIN32
#include <process.h>
#define PF__GETPID() ((unsigned)_getpid())
#else
#include <unistd.h>
#define PF__GETPID() ((unsigned)getpid())
#endif

unsigned pf_env_self_pid(void) {
  return PF__GETPID();
}

void pf_env_build_git(const char **commit, int *dirty) {
  *commit = PF_GIT_COMMIT;
  *dirty = PF_GIT_DIRTY;
}

int pf_env_host(pf_env *e, int argc, char **argv) {
  int r;
  memset(e, 0, sizeof *e);
  e->device = -1;
  e->argc = argc;
  e->argv = argv;
  cm_strlcpy(e->nvcc_version, PF_GIT_NVCC_VERSION, sizeof e->nvcc_version);
  cm_strlcpy(e->cuda_flags, PF_GIT_CUDA_FLAGS, sizeof e->cuda_flags);
  cm_strlcpy(e->cuda_archs, PF_GIT_CUDA_ARCHS, sizeof e->cuda_archs);
  cm_strlcpy(e->build_type, PF_GIT_BUILD_TYPE, sizeof e->build_type);
  cm_strlcpy(e->c_compiler, PF_GIT_C_COMPILER, sizeof e->c_compiler);
  cm_strlcpy(e->git_commit, PF_GIT_COMMIT, sizeof e->git_commit);
  e->git_dirty = PF_GIT_DIRTY;
  cm_strlcpy(e->os, plat_os_name(plat_os_detect()), sizeof e->os);
  if (plat_os_release(e->os_release, sizeof e->os_release) != CM_OK)
    e->os_release[0] = '\0';
  if (plat_hostname(e->host, sizeof e->host) != CM_OK)
    e->host[0] = '\0';
  if (plat_utc_now(e->timestamp, sizeof e->timestamp) != CM_OK)
    e->timestamp[0] = '\0';
  if (plat_exe_path(e->exe_path, sizeof e->exe_path) == CM_OK) {
    r = cm_sha256_file(e->exe_path, e->exe_sha256, NULL);
    if (r != CM_OK) {
      fprintf(stderr, "cuda_portfolio: cannot hash %s: %s\n", e->exe_path,
              cm_strerror(r));
      e->exe_sha256[0] = '\0';
    }
  } else {
    e->exe_path[0] = '\0';
  }
  return CM_OK;
}

/* cudaUUID_t is 16 raw bytes; nvidia-smi and NVML print them as
 * GPU-8-4-4-4-12 hex groups, which we match so the two can be compared. */
static void format_uuid(const unsigned char b[16], char *out, size_t size) {
  char hex[33];
  cm_hex(b, 16, hex);
  cm_snprintf(out, size, "GPU-%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8,
              hex + 12, hex + 16, hex + 20);
}

int pf_env_device(pf_env *e, int device) {
  struct cudaDeviceProp p;
  int count = 0, v = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    (void)cudaGetLastError();
    return CM_ENODEV;
  }
  if (device < 0 || device >= count)
    return CM_ENODEV;
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return CM_ECUDA;
  }
  e->device = device;
  cm_strlcpy(e->gpu_name, p.name, sizeof e->gpu_name);
  format_uuid((const unsigned char *)p.uuid.bytes, e->gpu_uuid,
              sizeof e->gpu_uuid);
  if (cudaDeviceGetPCIBusId(e->pci_bus_id, (int)sizeof e->pci_bus_id, device) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    e->pci_bus_id[0] = '\0';
  }
  e->cc_major = p.major;
  e->cc_minor = p.minor;
  e->sm_count = p.multiProcessorCount;
  e->global_mem_bytes = (int64_t)p.totalGlobalMem;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, device) == cudaSuccess)
    e->l2_bytes = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device) == cudaSuccess)
    e->sm_clock_khz = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device) ==
      cudaSuccess)
    e->mem_clock_khz = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, device) ==
      cudaSuccess)
    e->mem_bus_width_bits = v;
  (void)cudaGetLastError(); /* an unsupported attribute is not an error */
  if (cudaDriverGetVersion(&v) == cudaSuccess)
    e->driver_version = v;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess)
    e->runtime_version = v;
  (void)cudaGetLastError();
  return CM_OK;
}

void pf_env_nvml(pf_env *e, pf_nvml *nvml) {
  const char *why = nvml ? pf_nvml_absent_reason(nvml) : "NVML not opened";
  memset(&e->nvml, 0, sizeof e->nvml);
  e->have_nvml = why == NULL;
  e->nvml_absent_reason[0] = '\0';
  if (why == NULL)
    pf_nvml_facts_read(nvml, &e->nvml);
  else
    cm_strlcpy(e->nvml_absent_reason, why, sizeof e->nvml_absent_reason);
}
