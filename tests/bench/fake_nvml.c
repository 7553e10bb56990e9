/* fake_nvml.c: a stand-in for the driver's libnvidia-ml.so.1, built as
 * libnvidia-ml.so.1 in its own folder and put first on LD_LIBRARY_PATH for
 * test_bench_nvml, so that the clock lock of pf_nvml.c is exercised without
 * touching a GPU's clocks (on the GPU machine too: the tests check that this
 * library, not the driver's, is the one loaded).
 *
 * Every call that would change clocks appends a line to $FAKE_NVML_LOG.
 * $FAKE_NVML_SET_GPU_RC / $FAKE_NVML_SET_MEM_RC make the locks fail with
 * that NVML status; $FAKE_NVML_RAISE_IN_CLOCK=N raises signal N from inside
 * nvmlDeviceGetClockInfo (a signal during an NVML call). */
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
