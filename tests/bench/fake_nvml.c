/* fake_nvml.c: a stand-in for the driver's libnvidia-ml.so.1, built as
 * libnvidia-ml.so.1 in its own folder and put first on LD_LIBRARY_PATH for
 * test_bench_nvml, so that the clock lock of pf_nvml.c is exercised without
 * touching a GPU's clocks (on the GPU machine too: the tests check that this
 * library, not the driver's, is the one loaded).
 *
 * Every call that would change clocks appends a line to $FAKE_NVML_LOG.
 * $FAKE_NVML_SET_GPU_RC / $FAKE_NVML_SET_MEM_RC make the locks fail with
 * that NVML status; $FAKE_NVML_RAISE_IN_CLOCK=N raises signal N from inside
 * nvmlDeviceGetClockInfo (a signal during an NVML call).
 * nvmlDeviceGetViolationStatus counts its calls per policy and answers
 * $FAKE_NVML_VIOL_<POLICY>_NS (POWER, THERMAL) times that count, as a
 * cumulative counter would grow; $FAKE_NVML_VIOL_RC makes it fail with
 * that status, and $FAKE_NVML_VIOL_BACK=1 makes the counters go back by
 * one step per call (a driver reload). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int cp_fake_nvml = 1; /* the marker the tests look for */

static void note(const char *fmt, unsigned a, unsigned b) {
  const char *path = getenv("FAKE_NVML_LOG");
  FILE *f = path != NULL ? fopen(path, "a") : NULL;
  if (f == NULL)
    return;
  fprintf(f, fmt, a, b);
  fputc('\n', f);
  fclose(f);
}

static int rc_of(const char *name) {
  const char *v = getenv(name);
  return v != NULL ? atoi(v) : 0;
}

int nvmlInit_v2(void) {
  return 0;
}

int nvmlShutdown(void) {
  note("shutdown", 0, 0);
  return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **dev) {
  (void)pci;
  *dev = (void *)&cp_fake_nvml;
  return 0;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz) {
  const char *sig = getenv("FAKE_NVML_RAISE_IN_CLOCK");
  (void)dev;
  *mhz = type == 1 ? 1755u : 2619u;
  if (sig != NULL) {
    note("clock query raises %u", (unsigned)atoi(sig), 0);
    raise(atoi(sig));
    note("clock query returns", 0, 0);
  }
  return 0;
}

int nvmlDeviceSetGpuLockedClocks(void *dev, unsigned lo, unsigned hi) {
  int rc = rc_of("FAKE_NVML_SET_GPU_RC");
  (void)dev;
  note(rc ? "set_gpu %u %u refused" : "set_gpu %u %u", lo, hi);
  return rc;
}

int nvmlDeviceResetGpuLockedClocks(void *dev) {
  (void)dev;
  note("reset_gpu", 0, 0);
  return 0;
}

int nvmlDeviceSetMemoryLockedClocks(void *dev, unsigned lo, unsigned hi) {
  int rc = rc_of("FAKE_NVML_SET_MEM_RC");
  (void)dev;
  note(rc ? "set_mem %u %u refused" : "set_mem %u %u", lo, hi);
  return rc;
}

int nvmlDeviceResetMemoryLockedClocks(void *dev) {
  (void)dev;
  note("reset_mem", 0, 0);
  return 0;
}

typedef struct {
  unsigned long long reference_us, violation_ns;
} fake_violation;

int nvmlDeviceGetViolationStatus(void *dev, int policy, fake_violation *v) {
  static unsigned long long calls[2];
  const char *step = getenv(policy == 0 ? "FAKE_NVML_VIOL_POWER_NS"
                                        : "FAKE_NVML_VIOL_THERMAL_NS");
  int rc = rc_of("FAKE_NVML_VIOL_RC");
  unsigned long long k;
  (void)dev;
  if (rc != 0 || policy < 0 || policy > 1)
    return rc != 0 ? rc : 2;
  k = ++calls[policy];
  if (rc_of("FAKE_NVML_VIOL_BACK"))
    k = 1000u - k;
  v->reference_us = k;
  v->violation_ns = (step != NULL ? strtoull(step, NULL, 10) : 0u) * k;
  return 0;
}

const char *nvmlErrorString(int r) {
  switch (r) {
  case 2:
    return "Invalid Argument";
  case 3:
    return "Not Supported";
  case 4:
    return "Insufficient Permissions";
  default:
    return "Unknown Error";
  }
}
