/* pf_nvml.c: NVML through function pointers looked up at run time.
 *
 * The few NVML types used are declared here rather than taken from nvml.h,
 * which the CUDA toolkit does not always ship and the build machine may not
 * have; the values below are NVML's documented ABI, stable across releases.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* sigaction */
#endif
#include "pf_nvml.h"

#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

typedef int nvml_ret;   /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef void *nvml_dev; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };
/* nvmlPerfPolicyType_t and nvmlViolationTime_t */
enum { NVML_PERF_POLICY_POWER = 0, NVML_PERF_POLICY_THERMAL = 1 };
typedef struct {
  unsigned long long reference_us; /* CPU timestamp, us */
  unsigned long long violation_ns; /* cumulative violation time, ns */
} nvml_violation;
enum {
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_INSUFFICIENT_SIZE = 7
};

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
  nvml_ret (*violation)(nvml_dev, int, nvml_violation *);
  nvml_ret (*persistence)(nvml_dev, int *);
  nvml_ret (*ecc)(nvml_dev, int *, int *);
  nvml_ret (*procs)(nvml_dev, unsigned *, nvml_process *);
  nvml_ret (*name)(nvml_dev, char *, unsigned);
  nvml_ret (*uuid)(nvml_dev, char *, unsigned);
  nvml_ret (*driver)(char *, unsigned);
  nvml_ret (*set_gpu_locked)(nvml_dev, unsigned, unsigned);
  nvml_ret (*reset_gpu_locked)(nvml_dev);
  nvml_ret (*set_mem_locked)(nvml_dev, unsigned, unsigned);
  nvml_ret (*reset_mem_locked)(nvml_dev);
  const char *(*error_string)(nvml_ret);
  int gpu_locked, mem_locked; /* what pf_nvml_lock_clocks locked */
};

/* The clock lock's guard (see pf_nvml.h): the handle whose clocks are
 * locked, whether this file is inside an NVML call, and a signal that came
 * during one. */
static pf_nvml *volatile pf__locked;
static volatile sig_atomic_t pf__in_nvml, pf__pending;

static void pf__reset_and_exit(int sig);

/* Around the NVML calls that can happen while clocks are locked. */
static void nvml_enter(void) {
  pf__in_nvml = 1;
}
static void nvml_leave(void) {
  pf__in_nvml = 0;
  if (pf__pending != 0)
    pf__reset_and_exit((int)pf__pending);
}

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
  sym(n, "nvmlDeviceGetViolationStatus", &n->violation);
  sym(n, "nvmlDeviceGetPersistenceMode", &n->persistence);
  sym(n, "nvmlDeviceGetEccMode", &n->ecc);
  sym(n, "nvmlDeviceGetComputeRunningProcesses_v3", &n->procs);
  sym(n, "nvmlDeviceGetName", &n->name);
  sym(n, "nvmlDeviceGetUUID", &n->uuid);
  sym(n, "nvmlSystemGetDriverVersion", &n->driver);
  sym(n, "nvmlDeviceSetGpuLockedClocks", &n->set_gpu_locked);
  sym(n, "nvmlDeviceResetGpuLockedClocks", &n->reset_gpu_locked);
  sym(n, "nvmlDeviceSetMemoryLockedClocks", &n->set_mem_locked);
  sym(n, "nvmlDeviceResetMemoryLockedClocks", &n->reset_mem_locked);
  sym(n, "nvmlErrorString", &n->error_string);
  n->ready = 1;
  return n;
}

void pf_nvml_close(pf_nvml *n) {
  if (n == NULL)
    return;
  pf_nvml_unlock_clocks(n);
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
  nvml_enter();
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
  if (n->violation) {
    nvml_violation p, t;
    memset(&p, 0, sizeof p);
    memset(&t, 0, sizeof t);
    if (n->violation(n->dev, NVML_PERF_POLICY_POWER, &p) == 0 &&
        n->violation(n->dev, NVML_PERF_POLICY_THERMAL, &t) == 0) {
      s->viol_ok = 1;
      s->viol_power_ns = p.violation_ns;
      s->viol_thermal_ns = t.violation_ns;
    }
  }
  nvml_leave();
}

int pf_nvml_violation_us(const pf_nvml_snapshot *a, const pf_nvml_snapshot *b,
                         double *power_us, double *thermal_us) {
  *power_us = 0.0;
  *thermal_us = 0.0;
  if (a == NULL || b == NULL || !a->viol_ok || !b->viol_ok ||
      b->viol_power_ns < a->viol_power_ns ||
      b->viol_thermal_ns < a->viol_thermal_ns)
    return 0;
  *power_us = (double)(b->viol_power_ns - a->viol_power_ns) / 1e3;
  *thermal_us = (double)(b->viol_thermal_ns - a->viol_thermal_ns) / 1e3;
  return 1;
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
  nvml_enter();
  r = n->procs(n->dev, &count, buf);
  nvml_leave();
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

/* ---- Locked clocks ---- */

/* The resets alone, with nothing else: also what the signal handler runs. */
static int pf__reset_locked(pf_nvml *n) {
  int bad = 0;
  if (n->mem_locked && n->reset_mem_locked != NULL)
    bad |= n->reset_mem_locked(n->dev) != 0;
  if (n->gpu_locked && n->reset_gpu_locked != NULL)
    bad |= n->reset_gpu_locked(n->dev) != 0;
  n->mem_locked = n->gpu_locked = 0;
  return bad;
}

static void pf__say(const char *msg) {
  size_t len = strlen(msg);
#ifdef _WIN32
  (void)!_write(2, msg, (unsigned)len);
#else
  (void)!write(2, msg, len);
#endif
}

static void pf__reset_and_exit(int sig) {
  pf_nvml *n = pf__locked;
  pf__locked = NULL;
  if (n != NULL && pf__reset_locked(n) != 0)
    pf__say("cuda_portfolio: interrupted; NVML refused to reset the locked "
            "clocks: reset them as root with nvidia-smi -rgc and -rmc\n");
  else
    pf__say("cuda_portfolio: interrupted; the locked clocks were reset\n");
  _exit(128 + sig);
}

static void pf__on_signal(int sig) {
#ifdef _WIN32
  /* The C runtime resets the handler before calling it: stay in place for
   * a second signal during an NVML call. */
  signal(sig, pf__on_signal);
#endif
  if (pf__in_nvml) {
    pf__pending = sig; /* acted on as the NVML call returns */
    return;
  }
  pf__reset_and_exit(sig);
}

static const int pf__sigs[] = {
    SIGINT,
    SIGTERM,
#ifdef SIGHUP
    SIGHUP,
#endif
};
#define PF__NSIGS (int)(sizeof pf__sigs / sizeof pf__sigs[0])

/* POSIX: sigaction, so that the handler stays installed after a first
 * signal (ISO C's signal() may reset it to the default, and does under
 * glibc in strict C11 mode: a second signal during an NVML call would then
 * end the process with the clocks still locked). */
#ifdef _WIN32
static void (*pf__old[PF__NSIGS])(int);
static void pf__handlers_install(void) {
  int i;
  for (i = 0; i < PF__NSIGS; i++)
    pf__old[i] = signal(pf__sigs[i], pf__on_signal);
}
static void pf__handlers_restore(void) {
  int i;
  for (i = 0; i < PF__NSIGS; i++)
    signal(pf__sigs[i], pf__old[i] == SIG_ERR ? SIG_DFL : pf__old[i]);
}
#else
static struct sigaction pf__old[PF__NSIGS];
static void pf__handlers_install(void) {
  struct sigaction sa;
  int i;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = pf__on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (i = 0; i < PF__NSIGS; i++)
    sigaction(pf__sigs[i], &sa, &pf__old[i]);
}
static void pf__handlers_restore(void) {
  int i;
  for (i = 0; i < PF__NSIGS; i++)
    sigaction(pf__sigs[i], &pf__old[i], NULL);
}
#endif

static int pf__lock_error(pf_nvml *n, nvml_ret r, const char *what,
                          unsigned mhz, char *err, size_t errsize) {
  const char *text = n->error_string != NULL ? n->error_string(r) : NULL;
  char nv[96];
  cm_snprintf(nv, sizeof nv, "NVML %d%s%s", r, text ? ": " : "",
              text ? text : "");
  switch (r) {
  case NVML_ERROR_NO_PERMISSION:
    cm_snprintf(err, errsize,
                "locking the %s clocks needs root on Linux (sudo) or an "
                "elevated prompt on Windows (%s); or time without "
                "--lock-clocks: the clocks are recorded either way",
                what, nv);
    return CM_EACCES;
  case NVML_ERROR_NOT_SUPPORTED:
    cm_snprintf(err, errsize,
                "this GPU or driver cannot lock its %s clocks (%s); time %s",
                what, nv,
                strcmp(what, "memory") == 0
                    ? "with the SM clock alone (--lock-clocks SM_MHZ)"
                    : "without --lock-clocks");
    return CM_ENOTSUP;
  case NVML_ERROR_INVALID_ARGUMENT:
    cm_snprintf(err, errsize,
                "the GPU refused %u MHz for its %s clocks (%s); pick one of "
                "the clocks `nvidia-smi -q -d SUPPORTED_CLOCKS` lists",
                mhz, what, nv);
    return CM_EINVAL;
  default:
    cm_snprintf(err, errsize, "locking the %s clocks at %u MHz failed (%s)",
                what, mhz, nv);
    return CM_EIO;
  }
}

int pf_nvml_lock_clocks(pf_nvml *n, unsigned sm_mhz, unsigned mem_mhz,
                        char *err, size_t errsize) {
  nvml_ret r;
  int rc = CM_OK;
  if (errsize > 0)
    err[0] = '\0';
  if (n == NULL || !n->ready) {
    cm_snprintf(err, errsize,
                "locking clocks needs NVML, and it is absent here (%s)",
                n != NULL ? n->why : "not opened");
    return CM_ENOTSUP;
  }
  if (sm_mhz == 0 || pf__locked != NULL) {
    cm_strlcpy(err, "clocks already locked, or no SM clock given", errsize);
    return CM_EINVAL;
  }
  if (n->set_gpu_locked == NULL || n->reset_gpu_locked == NULL ||
      (mem_mhz != 0 &&
       (n->set_mem_locked == NULL || n->reset_mem_locked == NULL))) {
    cm_snprintf(err, errsize,
                "this driver's NVML has no %s (an older driver); time "
                "without --lock-clocks",
                n->set_gpu_locked == NULL ? "nvmlDeviceSetGpuLockedClocks"
                                          : "nvmlDeviceSetMemoryLockedClocks");
    return CM_ENOTSUP;
  }
  /* The handlers first: from the moment a clock is locked, a signal resets
   * it. */
  pf__pending = 0;
  pf__locked = n;
  pf__handlers_install();
  nvml_enter();
  r = n->set_gpu_locked(n->dev, sm_mhz, sm_mhz);
  if (r == 0)
    n->gpu_locked = 1;
  if (r == 0 && mem_mhz != 0) {
    r = n->set_mem_locked(n->dev, mem_mhz, mem_mhz);
    if (r == 0)
      n->mem_locked = 1;
    else
      rc = pf__lock_error(n, r, "memory", mem_mhz, err, errsize);
  } else if (r != 0) {
    rc = pf__lock_error(n, r, "SM", sm_mhz, err, errsize);
  }
  nvml_leave();
  if (r != 0) {
    pf_nvml_unlock_clocks(n); /* the SM lock of a refused memory lock */
    return rc;
  }
  return CM_OK;
}

int pf_nvml_unlock_clocks(pf_nvml *n) {
  int bad, sig;
  if (n == NULL || pf__locked != n)
    return CM_OK;
  pf__in_nvml = 1; /* a signal now waits for the resets */
  bad = pf__reset_locked(n);
  pf__locked = NULL;
  pf__handlers_restore();
  sig = (int)pf__pending;
  pf__pending = 0;
  pf__in_nvml = 0;
  /* One that came meanwhile: the clocks are reset, so it acts as usual. */
  if (sig != 0)
    raise(sig);
  return bad ? CM_EIO : CM_OK;
}
