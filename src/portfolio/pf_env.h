/* pf_env.h: the facts about a run that a reader needs to trust its numbers.
 *
 * Two halves so that the host half can be tested without a GPU:
 * pf_env_host (OS, host, build, git, binary hash, argv, time) and
 * pf_env_device (device properties from the CUDA runtime, and NVML's static
 * facts when the caller passes an NVML handle).
 *
 * Where the facts come from:
 *  - git commit and dirty flag: read from the source tree by CMake at BUILD
 *    time (every build re-runs `git rev-parse HEAD` and `git status
 *    --porcelain`; untracked files count as dirty) and compiled in. They
 *    describe the sources the binary was built from, not the tree it runs in.
 *  - nvcc version, CUDA flags and architectures: compiled in by CMake.
 *  - binary SHA-256: hashed at run time from plat_exe_path.
 *  - OS: plat_os_detect (Linux, WSL and Windows told apart).
 *  - driver and runtime versions: cudaDriverGetVersion and
 *    cudaRuntimeGetVersion (integers, 1000 * major + 10 * minor).
 */
#ifndef PF_ENV_H
#define PF_ENV_H

#include "cm_sha256.h"
#include "pf_nvml.h"

#include <stdint.h>

typedef struct {
  /* device (pf_env_device); 0 / "" when unknown */
  int device;
  char gpu_name[256];
  char gpu_uuid[64];   /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
  char pci_bus_id[32]; /* "0000:41:00.0" */
  int cc_major, cc_minor;
  int sm_count;
  int64_t l2_bytes;
  int64_t global_mem_bytes;
  int sm_clock_khz;  /* peak, from cudaDevAttrClockRate */
  int mem_clock_khz; /* peak, from cudaDevAttrMemoryClockRate */
  int mem_bus_width_bits;
  int driver_version;  /* cudaDriverGetVersion, 13000 = 13.0 */
  int runtime_version; /* cudaRuntimeGetVersion */
  int have_nvml;       /* 1 if nvml below was read */
  char nvml_absent_reason[192];
  pf_nvml_facts nvml;

  /* host and build (pf_env_host) */
  char nvcc_version[32];
  char cuda_flags[512];
  char cuda_archs[128];
  char build_type[32];
  char c_compiler[128];
  char host[256];
  char os[16]; /* "linux", "wsl", "windows", "other" */
  char os_release[256];
  char git_commit[48]; /* 40 hex digits, or "unknown" */
  int git_dirty;       /* 1 dirty, 0 clean, -1 unknown */
  char exe_path[1024];
  char exe_sha256[CM_SHA256_HEX_LEN]; /* "" if the binary could not be read */
  char timestamp[32];                 /* UTC, ISO 8601 */
  int argc;
  char **argv; /* borrowed from the caller; must outlive the env */
} pf_env;

/* Fills the host and build half of *e (zeroing the rest of it first). Never
 * fails as a whole: a fact that cannot be had is left "" (and the binary's
 * hash "" with a message to stderr). Returns CM_OK. */
int pf_env_host(pf_env *e, int argc, char **argv);

/* Fills the device half for CUDA device `device` (pci_bus_id included, which
 * is what pf_nvml_open needs). Returns CM_OK, CM_ENODEV or CM_ECUDA. Needs
 * the CUDA runtime; does not create streams or allocate device memory. */
int pf_env_device(pf_env *e, int device);

/* Records NVML's static facts (persistence, ECC, max clocks, driver string),
 * or why NVML is absent (nvml may be NULL). Never fails. */
void pf_env_nvml(pf_env *e, pf_nvml *nvml);

/* The commit the binary was built from and its tree's dirty flag, the
 * values pf_env_host records (pf_gitinfo.h): for the banner line. */
void pf_env_build_git(const char **commit, int *dirty);

/* This process's id, for telling our own GPU context from others'. */
unsigned pf_env_self_pid(void);

#endif
