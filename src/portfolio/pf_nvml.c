/* pf_nvml.c: NVML through function pointers looked up at run time.
 *
 * The few NVML types used are declared here rather than taken from nvml.h,
 * which the CUDA toolkit does not always ship and the build machine may not
 * have; the values below are NVML's documented ABI, stable across releases.
 */
#include "pf_nvml.h"

#include "cm_str.h"
#include "platform.h"

#include <stdlib.h>
#include <string.h>

typedef int nvml_ret;   /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef void *nvml_dev; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_ERROR_INSUFFICIENT_SIZE = 7 };

/* nvmlProcessInfo_t as the _v3 query fills it (pid, used memory, GPU and
 * compute instance ids). */
typedef struct {
  unsigned pid;
  unsigned long long used_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
} nvml_process;

struct pf_nvml {
  void *lib;
  nvml_dev dev;
  int ready;
  char why[192];
  nvml_ret (*shutdown)(void);
  nvml_ret (*clock)(nvml_dev, int, unsigned *);
  nvml_ret (*max_clock)(nvml_dev, int, unsigned *);
  nvml_ret (*temp)(nvml_dev, int, unsigned *);
  nvml_ret (*power)(nvml_dev, unsigned *);
  nvml_ret (*reasons)(nvml_dev, unsigned long long *);
  nvml_ret (*persistence)(nvml_dev, int *);
  nvml_ret (*ecc)(nvml_dev, int *, int *);
  nvml_ret (*procs)(nvml_dev, unsigned *, nvml_process *);
  nvml_ret (*name)(nvml_dev, char *, unsigned);
  nvml_ret (*uuid)(nvml_dev, char *, unsigned);
  nvml_ret (*driver)(char *, unsigned);
};

/* ISO C forbids converting void* to a function pointer; copying the bytes is
 * the portable way POSIX itself recommends for dlsym results. */
static void sym(pf_nvml *n, const char *name, void *fnptr_out) {
  void *p = plat_dl_sym(n->lib, name);
  memcpy(fnptr_out, &p, sizeof p);
}

pf_nvml *pf_nvml_open(const char *pci_bus_id) {
  const char *const *cand = plat_nvml_candidates();
  nvml_ret (*init)(void) = NULL;
  nvml_ret (*by_pci)(const char *, nvml_dev *) = NULL;
  pf_nvml *n = calloc(1, sizeof *n);
  int i;
  if (n == NULL)
    return NULL;
  for (i = 0; cand != NULL && cand[i] != NULL && n->lib == NULL; i++)
    n->lib = plat_dl_open(cand[i]);
  if (n->lib == NULL) {
    cm_snprintf(n->why, sizeof n->why, "NVML not loaded: %s", plat_dl_error());
    return n;
  }
  sym(n, "nvmlInit_v2", &init);
  sym(n, "nvmlDeviceGetHandleByPciBusId_v2", &by_pci);
  if (init == NULL || by_pci == NULL) {
    cm_strlcpy(n->why, "NVML lacks nvmlInit_v2 or GetHandleByPciBusId_v2",
               sizeof n->why);
    return n;
  }
  if (init() != 0) {
    cm_strlcpy(n->why, "nvmlInit_v2 failed", sizeof n->why);
    return n;
  }
  sym(n, "nvmlShutdown", &n->shutdown);
  if (pci_bus_id == NULL || by_pci(pci_bus_id, &n->dev) != 0) {
    cm_snprintf(n->why, sizeof n->why, "NVML has no device at PCI %s",
                pci_bus_id ? pci_bus_id : "(unknown)");
    return n;
  }
  sym(n, "nvmlDeviceGetClockInfo", &n->clock);
  sym(n, "nvmlDeviceGetMaxClockInfo", &n->max_clock);
  sym(n, "nvmlDeviceGetTemperature", &n->temp);
  sym(n, "nvmlDeviceGetPowerUsage", &n->power);
  /* Renamed in CUDA 12.2's NVML; older drivers have only the old name. */
  sym(n, "nvmlDeviceGetCurrentClocksEventReasons", &n->reasons);
  if (n->reasons == NULL)
    sym(n, "nvmlDeviceGetCurrentClocksThrottleReasons", &n->reasons);
  sym(n, "nvmlDeviceGetPersistenceMode", &n->persistence);
  sym(n, "nvmlDeviceGetEccMode", &n->ecc);
  sym(n, "nvmlDeviceGetComputeRunningProcesses_v3", &n->procs);
  sym(n, "nvmlDeviceGetName", &n->name);
  sym(n, "nvmlDeviceGetUUID", &n->uuid);
  sym(n, "nvmlSystemGetDriverVersion", &n->driver);
  n->ready = 1;
  return n;
}

void pf_nvml_close(pf_nvml *n) {
  if (n == NULL)
    return;
  if (n->ready && n->shutdown != NULL)
    n->shutdown();
  if (n->lib != NULL)
    plat_dl_close(n->lib);
  free(n);
}

const char *pf_nvml_absent_reason(const pf_nvml *n) {
  if (n == NULL)
    return "NVML handle missing (out of memory)";
  return n->ready ? NULL : n->why;
}

void pf_nvml_read(pf_nvml *n, pf_nvml_snapshot *s) {
  unsigned mw = 0;
  memset(s, 0, sizeof *s);
  if (n == NULL || !n->ready)
    return;
  if (n->clock) {
    s->sm_clock_ok = n->clock(n->dev, NVML_CLOCK_SM, &s->sm_clock_mhz) == 0;
    s->mem_clock_ok = n->clock(n->dev, NVML_CLOCK_MEM, &s->mem_clock_mhz) == 0;
  }
  if (n->temp)
    s->temp_ok = n->temp(n->dev, NVML_TEMPERATURE_GPU, &s->temp_c) == 0;
  if (n->power && n->power(n->dev, &mw) == 0) {
    s->power_ok = 1;
    s->power_w = mw / 1000.0; /* NVML reports milliwatts */
  }
  if (n->reasons)
    s->reasons_ok = n->reasons(n->dev, &s->reasons) == 0;
}

void pf_nvml_facts_read(pf_nvml *n, pf_nvml_facts *f) {
  int cur = 0, pending = 0;
  memset(f, 0, sizeof *f);
  if (n == NULL || !n->ready)
    return;
  if (n->persistence)
    f->persistence_ok = n->persistence(n->dev, &f->persistence) == 0;
  if (n->ecc && n->ecc(n->dev, &cur, &pending) == 0) {
    f->ecc_ok = 1;
    f->ecc = cur;
  }
  if (n->max_clock) {
    f->max_sm_clock_ok =
        n->max_clock(n->dev, NVML_CLOCK_SM, &f->max_sm_clock_mhz) == 0;
    f->max_mem_clock_ok =
        n->max_clock(n->dev, NVML_CLOCK_MEM, &f->max_mem_clock_mhz) == 0;
  }
  if (n->name && n->name(n->dev, f->name, sizeof f->name) != 0)
    f->name[0] = '\0';
  if (n->uuid && n->uuid(n->dev, f->uuid, sizeof f->uuid) != 0)
    f->uuid[0] = '\0';
  if (n->driver && n->driver(f->driver, sizeof f->driver) != 0)
    f->driver[0] = '\0';
}

int pf_nvml_other_processes(pf_nvml *n, unsigned self_pid, unsigned *pids,
                            int max) {
  /* Room for more processes than one GPU realistically hosts; the query
   * reports INSUFFICIENT_SIZE beyond it, which we pass on as unknown. */
  enum { CAP = 256 };
  nvml_process *buf;
  unsigned count = CAP, i;
  int others = 0;
  nvml_ret r;
  if (n == NULL || !n->ready || n->procs == NULL)
    return -1;
  buf = calloc(CAP, sizeof *buf);
  if (buf == NULL)
    return -1;
  r = n->procs(n->dev, &count, buf);
  if (r != 0 || count > CAP) {
    free(buf);
    return -1;
  }
  for (i = 0; i < count; i++) {
    if (buf[i].pid == self_pid)
      continue;
    if (pids != NULL && others < max)
      pids[others] = buf[i].pid;
    others++;
  }
  free(buf);
  return others;
}

void pf_nvml_reason_names(unsigned long long reasons, char *buf, size_t size) {
  static const struct {
    unsigned long long bit;
    const char *name;
  } table[] = {{PF_NVML_REASON_GPU_IDLE, "gpu_idle"},
               {PF_NVML_REASON_APP_CLOCKS, "applications_clocks"},
               {PF_NVML_REASON_SW_POWER_CAP, "sw_power_cap"},
               {PF_NVML_REASON_HW_SLOWDOWN, "hw_slowdown"},
               {PF_NVML_REASON_SYNC_BOOST, "sync_boost"},
               {PF_NVML_REASON_SW_THERMAL, "sw_thermal"},
               {PF_NVML_REASON_HW_THERMAL, "hw_thermal"},
               {PF_NVML_REASON_HW_POWER_BRAKE, "hw_power_brake"},
               {PF_NVML_REASON_DISPLAY_CLOCKS, "display_clocks"}};
  size_t i, used = 0;
  unsigned long long known = 0;
  if (size == 0)
    return;
  buf[0] = '\0';
  if (reasons == 0) {
    cm_strlcpy(buf, "none", size);
    return;
  }
  for (i = 0; i < sizeof table / sizeof table[0]; i++) {
    known |= table[i].bit;
    if (reasons & table[i].bit) {
      cm_snprintf(buf + used, size - used, "%s%s", used ? "," : "",
                  table[i].name);
      used = strlen(buf);
    }
  }
  if (reasons & ~known)
    cm_snprintf(buf + used, size - used, "%sother_0x%llx", used ? "," : "",
                reasons & ~known);
}

int pf_nvml_reasons_throttle(unsigned long long reasons) {
  return (reasons & ~PF_NVML_BENIGN_REASONS) != 0;
}
