/* pf_nvml.h: GPU clocks, temperature, power and throttle reasons via NVML.
 *
 * NVML is loaded at run time (plat_dl_open over plat_nvml_candidates()), so
 * the binary runs where the driver's libnvidia-ml is missing: every reading
 * then says "absent" instead of failing. Each function that NVML lacks in the
 * installed driver is absent on its own; the rest still work.
 */
#ifndef PF_NVML_H
#define PF_NVML_H

#include <stddef.h>
#include <stdint.h>

typedef struct pf_nvml pf_nvml;

/* Clock-event (throttle) reason bits, as NVML defines them. */
#define PF_NVML_REASON_GPU_IDLE 0x1ULL
#define PF_NVML_REASON_APP_CLOCKS 0x2ULL
#define PF_NVML_REASON_SW_POWER_CAP 0x4ULL
#define PF_NVML_REASON_HW_SLOWDOWN 0x8ULL
#define PF_NVML_REASON_SYNC_BOOST 0x10ULL
#define PF_NVML_REASON_SW_THERMAL 0x20ULL
#define PF_NVML_REASON_HW_THERMAL 0x40ULL
#define PF_NVML_REASON_HW_POWER_BRAKE 0x80ULL
#define PF_NVML_REASON_DISPLAY_CLOCKS 0x100ULL
/* Reasons that do not slow a running kernel down: an idle GPU between
 * samples, or clocks an administrator fixed on purpose. */
#define PF_NVML_BENIGN_REASONS                                                 \
  (PF_NVML_REASON_GPU_IDLE | PF_NVML_REASON_APP_CLOCKS)

/* One reading. A field whose *_ok is 0 could not be read (NVML absent, the
 * function missing, or not supported on this GPU). */
typedef struct {
  int sm_clock_ok;
  unsigned sm_clock_mhz;
  int mem_clock_ok;
  unsigned mem_clock_mhz;
  int temp_ok;
  unsigned temp_c;
  int power_ok;
  double power_w;
  int reasons_ok;
  unsigned long long reasons; /* PF_NVML_REASON_* bits */
  /* NVML's cumulative violation counters (nvmlDeviceGetViolationStatus):
   * the time, in ns since the driver loaded, that the clocks were held
   * below what was asked for by the power policy and by the thermal one.
   * The instant reasons above see a throttle only if it is on at the
   * moment of reading; two readings of these see any between them. */
  int viol_ok; /* both counters read */
  unsigned long long viol_power_ns, viol_thermal_ns;
} pf_nvml_snapshot;

/* Static facts about the device. */
typedef struct {
  int persistence_ok;
  int persistence; /* 1 enabled */
  int ecc_ok;
  int ecc; /* current ECC mode, 1 enabled */
  int max_sm_clock_ok;
  unsigned max_sm_clock_mhz;
  int max_mem_clock_ok;
  unsigned max_mem_clock_mhz;
  char name[96];   /* "" if unknown */
  char uuid[96];   /* "GPU-...", "" if unknown */
  char driver[80]; /* driver version string, "" if unknown */
} pf_nvml_facts;

/* Loads NVML and finds the device with the given PCI bus id (as
 * cudaDeviceGetPCIBusId writes it, "0000:41:00.0"). Always returns a handle
 * (never NULL unless out of memory); when NVML or the device is missing the
 * handle is "absent" and pf_nvml_absent_reason says why. Owned by the caller,
 * freed with pf_nvml_close. */
pf_nvml *pf_nvml_open(const char *pci_bus_id);
void pf_nvml_close(pf_nvml *n);

/* NULL when NVML is present and the device found; otherwise a static or
 * handle-owned sentence ("libnvidia-ml.so.1: cannot open shared object"). */
const char *pf_nvml_absent_reason(const pf_nvml *n);

/* Fills *s (all *_ok 0 when absent). Never fails. */
void pf_nvml_read(pf_nvml *n, pf_nvml_snapshot *s);
void pf_nvml_facts_read(pf_nvml *n, pf_nvml_facts *f);

/* Number of compute processes on the device other than self_pid, or -1 if
 * it cannot be known. pids (may be NULL) receives up to max of them. */
int pf_nvml_other_processes(pf_nvml *n, unsigned self_pid, unsigned *pids,
                            int max);

/* Writes the names of the set reason bits ("sw_power_cap,hw_thermal"),
 * "none" for 0, into buf. Pure. */
void pf_nvml_reason_names(unsigned long long reasons, char *buf, size_t size);

/* The violation time between two readings a (earlier) and b (later), in
 * microseconds: 1 with *power_us and *thermal_us set when both readings
 * have their counters and neither counter went back (a driver reload
 * restarts them); 0, the outputs 0, when that cannot be known. Pure. */
int pf_nvml_violation_us(const pf_nvml_snapshot *a, const pf_nvml_snapshot *b,
                         double *power_us, double *thermal_us);

/* 1 if reasons holds a bit outside PF_NVML_BENIGN_REASONS. Pure. */
int pf_nvml_reasons_throttle(unsigned long long reasons);

/* ---- Locked clocks (cuda_portfolio --lock-clocks) ----
 *
 * For the user's own machine: fixed clocks make absolute times comparable
 * from run to run (the project's H200 runs never lock; they record the
 * clocks as found). Locks the SM clocks at sm_mhz (NVML's locked GPU clocks,
 * minimum = maximum) and, when mem_mhz is not 0, the memory clocks at
 * mem_mhz. Needs root (Linux) or an elevated prompt (Windows), and a GPU and
 * driver that support it (SM clocks: Volta and later; memory clocks: Ampere
 * and later). Returns CM_OK; else CM_EACCES (no permission), CM_ENOTSUP (the
 * GPU, driver or NVML cannot, or NVML is absent), CM_EINVAL (a clock the GPU
 * refuses) or CM_EIO, with a one-line message naming the fix in err. A
 * partial lock (SM locked, memory refused) is undone before an error
 * returns. One lock per process.
 *
 * Until pf_nvml_unlock_clocks (or pf_nvml_close, which calls it), SIGINT and
 * SIGTERM (SIGHUP too, on POSIX) reset the locked clocks and then end the
 * process with status 128 + the signal (a shell's code for it); a signal that
 * arrives while this file is inside an NVML call is acted on as that call
 * returns. */
int pf_nvml_lock_clocks(pf_nvml *n, unsigned sm_mhz, unsigned mem_mhz,
                        char *err, size_t errsize);
/* Resets what pf_nvml_lock_clocks locked and restores the signal handlers.
 * CM_OK (also when nothing was locked), or CM_EIO when NVML refused a reset
 * (the clocks may still be locked: `nvidia-smi -rgc` / `-rmc` as root). */
int pf_nvml_unlock_clocks(pf_nvml *n);

#endif
