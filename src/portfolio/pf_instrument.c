/* pf_instrument.c: instrumentation markers in the environment.
 *
 * The list errs on the side of "instrumented": a variable that a profiler,
 * sanitizer or tracer sets, or one that changes how CUDA launches work, makes
 * the run instrumented by its mere presence, whatever its value (an empty
 * LD_PRELOAD still says someone meant to inject). A false "instrumented"
 * costs a re-run; a false "clean" would put a profiled timing among clean
 * ones, which the project promises never to do.
 */
#include "pf_instrument.h"

#include "cm_str.h"

#include <string.h>

/* Whole names. */
static const char *const exact_names[] = {
    "CUDA_INJECTION64_PATH", /* CUPTI-based tools: ncu, nsys, sanitizer */
    "CUDA_INJECTION32_PATH",
    "NVTX_INJECTION64_PATH", /* NVTX tool attached (nsys, ncu) */
    "NVTX_INJECTION32_PATH",
    "LD_PRELOAD",           /* any preloaded library, interposers included */
    "LD_AUDIT",             /* rtld audit modules see every call */
    "CUDA_LAUNCH_BLOCKING", /* serialises launches: distorts timing */
    "CUDA_PROFILE",         /* legacy command-line profiler */
    "COMPUTE_PROFILE",
    "CUPTI_ACTIVITY_ENABLE",
    NULL};

/* Prefixes: the tools set families of variables whose members change between
 * releases, so the family is the marker. */
static const char *const prefixes[] = {
    "NV_NSIGHT_",    /* Nsight Systems/Compute (NV_NSIGHT_INJECTION_*...) */
    "NV_SANITIZER_", /* compute-sanitizer's injected library */
    "NV_COMPUTE_SANITIZER_",
    "COMPUTE_SANITIZER_",
    "NSYS_", /* nsys launcher and its children */
    "NSIGHT_",
    "NCU_",                 /* Nsight Compute */
    "NV_COMPUTE_PROFILER_", /* nvprof / Visual Profiler */
    "NVPROF_",
    "CUDA_PROFILE_", /* legacy profiler configuration */
    "COMPUTE_PROFILE_",
    "NVTX_INJECTION", /* any other NVTX injection variant */
    "CUDA_INJECTION",
    NULL};

const char *const *pf_instrument_markers(int prefixes_wanted) {
  return prefixes_wanted ? prefixes : exact_names;
}

int pf_instrument_is_marker(const char *name) {
  int i;
  if (name == NULL || name[0] == '\0')
    return 0;
  for (i = 0; exact_names[i] != NULL; i++)
    if (cm_env_name_eq(name, exact_names[i], (size_t)-1))
      return 1;
  for (i = 0; prefixes[i] != NULL; i++)
    if (cm_env_name_eq(name, prefixes[i], strlen(prefixes[i])))
      return 1;
  return 0;
}

void pf_instrument_detect(char *const *envp, pf_markers *out) {
  size_t i;
  memset(out, 0, sizeof *out);
  if (envp == NULL)
    return;
  for (i = 0; envp[i] != NULL && out->count < PF_MAX_MARKERS; i++) {
    char name[sizeof out->names[0]];
    const char *eq = strchr(envp[i], '=');
    size_t len = eq ? (size_t)(eq - envp[i]) : strlen(envp[i]);
    if (len == 0)
      continue; /* Windows keeps "=C:=C:\\..." entries: not variables */
    if (len >= sizeof name)
      len = sizeof name - 1; /* marker names are short; a cut name can still
                                match a prefix, which is what we want */
    memcpy(name, envp[i], len);
    name[len] = '\0';
    if (pf_instrument_is_marker(name))
      cm_strlcpy(out->names[out->count++], name, sizeof out->names[0]);
  }
}
