/* rp_preflight.h: the checks a stage's contract asks for, made before the
 * stage runs (and by `repro doctor`, which only prints them).
 *
 * The checks are code, what they check is data (rp_contract). Each check has
 * an outcome (pass, warn, fail) and an effect on the stage when it fails:
 * refuse (a violated contract: exit code 3), skip (something the stage needs
 * is absent: no device, tool missing), limit (the stage runs, but the result
 * is partial: no counter permission, busy GPU). Nothing here changes the
 * machine; probes only run `TOOL --version` and nvidia-smi queries.
 */
#ifndef RP_PREFLIGHT_H
#define RP_PREFLIGHT_H

#include "cm_str.h"
#include "rp_contract.h"

#include <stddef.h>

typedef enum { RP_CHECK_PASS = 0, RP_CHECK_WARN, RP_CHECK_FAIL } rp_check_state;

/* Ordered by severity: a stage takes the worst effect of its failed checks. */
typedef enum {
  RP_EFFECT_NONE = 0,
  RP_EFFECT_LIMIT,
  RP_EFFECT_SKIP,
  RP_EFFECT_REFUSE
} rp_effect;

/* Room for every check a contract can ask for: its four lists at their
 * most, and the device, counter, idle, allocator, clock and tool-path
 * checks beside them. */
#define RP_MAX_CHECKS (4 * RP_CONTRACT_MAX + 32)

typedef struct {
  char name[64]; /* "tool nvcc", "device", "forbid NSYS_*" */
  rp_check_state state;
  rp_effect effect;  /* what a FAIL (or a WARN) does to the stage */
  char detail[1024]; /* why, in words: versions, paths, values */
} rp_check;

typedef struct {
  int n;
  rp_check items[RP_MAX_CHECKS];
} rp_checks;

/* Where the facts come from. Zero-initialise, then override for tests. */
typedef struct {
  char *const *env;        /* repro's environment; NULL: plat_environ() */
  const char *params_path; /* NVIDIA params file; NULL: the system's */
  int privileged;          /* the answer, when use_privileged is 1 */
  int use_privileged;      /* 0: ask the OS (plat_is_privileged) */
  const char *gpus_dir;    /* /proc/driver/nvidia/gpus; NULL: the system's */
  int no_nvidia_smi;       /* 1: never run nvidia-smi (tests) */
  const char *tool_dirs;   /* extra folders searched for tools, PATH-like
                              list; NULL: $CUDA_HOME/bin and
                              /usr/local/cuda/bin */
  const char *nsight_root; /* the folder holding nsight-systems/ and
                              nsight-compute/; NULL: /opt/nvidia, searched
                              only while tool_dirs is NULL (tests confine
                              the search to their folders) */
} rp_probe;

/* Adds a check; ignored when the list is full, whose last slot then holds a
 * failed check that refuses the stage. detail is printf-like. */
void rp_checks_add(rp_checks *cs, const char *name, rp_check_state state,
                   rp_effect effect, const char *fmt, ...) CM_PRINTF_LIKE(5, 6);

/* Runs every check the contract asks for, appending to *out (which the
 * caller zeroes). Never fails: what cannot be probed is a check that says
 * so. */
void rp_preflight(const rp_contract *c, const rp_probe *p, rp_checks *out);

/* The worst effect among failed checks (warns count only with effect LIMIT),
 * and the first such check's "name: detail" in reason[size]. */
rp_effect rp_checks_verdict(const rp_checks *cs, char *reason, size_t size);

/* "pass", "warn", "fail". */
const char *rp_check_state_name(rp_check_state s);

/* ---- Pure helpers, unit-tested ---- */

/* --lock-clocks SM_MHZ[:MEM_MHZ], as cuda_portfolio takes it: CM_OK with the
 * MHz (mem 0 when absent), or CM_EINVAL. */
int rp_lock_spec_parse(const char *spec, unsigned *sm, unsigned *mem);

/* The time stage's check of --lock-clocks spec (the caller passes a valid
 * one): locking clocks needs root (Linux) or an elevated prompt (Windows);
 * without, the stage is refused, with the command that would work. */
void rp_lock_clocks_check(const char *spec, int privileged, rp_checks *out);

/* Finds a version in `TOOL --version` output: the number after "release ",
 * "version " or "Version " when present, else the first dotted number.
 * Writes up to 4 components into v (missing ones 0) and the text into
 * str[size]. Returns CM_OK or CM_EPARSE. */
int rp_version_parse(const char *text, int v[4], char *str, size_t size);

/* Compares dotted versions: <0, 0, >0. Unparseable text compares as 0.0. */
int rp_version_cmp(const char *a, const char *b);

/* Tool facts (cached per name for the process's lifetime). found: 1 if the
 * executable was found; path and version filled when known. */
typedef struct {
  int found;
  char path[512];
  char version[64]; /* "" if `--version` gave nothing parseable */
} rp_tool_info;

/* Finds and probes a tool (runs `TOOL --version` once, 20 s timeout). */
void rp_tool_probe(const rp_probe *p, const char *name, rp_tool_info *out);

/* Finds nsys where the profile stage looks for it, and probes it as
 * rp_tool_probe does: PATH and the CUDA folders, then the newest
 * <root>/nsight-systems/<version>/bin/nsys, then the copy Nsight Compute
 * ships, the newest <root>/nsight-compute/<version>/host/target-linux-x64/nsys
 * (where the H200 machine has it; root: rp_probe.nsight_root). The stage
 * and the manifest's tool list both ask this, so the archive names the nsys
 * the stage ran. Cached for the process's lifetime. */
void rp_nsys_probe(const rp_probe *p, rp_tool_info *out);

/* Number of CUDA devices: the driver's /proc listing, else `nvidia-smi -L`
 * lines. detail says which source answered. */
int rp_device_count(const rp_probe *p, char *detail, size_t size);

/* GPU idle: 1 idle, 0 busy (pids in detail), -1 unknown (no nvidia-smi). */
int rp_gpu_idle(const rp_probe *p, char *detail, size_t size);

#endif
