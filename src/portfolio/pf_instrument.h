/* pf_instrument.h: does this process run under an instrumenting tool?
 *
 * Profilers and sanitizers leave markers in the environment of the process
 * they inject into (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, LD_PRELOAD,
 * NV_NSIGHT_INJECTION_*, NV_SANITIZER_*, NSYS_*, ...). A run that sees any of
 * them is `instrumented` and its timings are never labelled clean.
 */
#ifndef PF_INSTRUMENT_H
#define PF_INSTRUMENT_H

#define PF_MAX_MARKERS 32

typedef struct {
  int count;                       /* markers found (capped) */
  char names[PF_MAX_MARKERS][128]; /* variable names, in environment order */
} pf_markers;

/* Scans envp (a NULL-terminated "NAME=value" array, e.g. environ) for
 * instrumentation markers. Pure: reads nothing else. */
void pf_instrument_detect(char *const *envp, pf_markers *out);

/* 1 if name (a variable name, no '=') is an instrumentation marker. */
int pf_instrument_is_marker(const char *name);

/* The markers themselves, NULL-terminated: whole names (prefixes 0) or the
 * prefixes of families (prefixes 1). repro's time contract (env/
 * time.contract) must forbid each; test_repro_unit.contract_shipped
 * checks that it does. */
const char *const *pf_instrument_markers(int prefixes);

#endif
