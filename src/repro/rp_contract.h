/* rp_contract.h: a stage's environment contract, parsed from env/<stage>
 * .contract (format in docs/REPRO.md).
 *
 * The contract is data: which variables the stage sets and removes in its
 * children's environment, which must be absent from repro's own environment,
 * which tools (and minimum versions) it needs, whether it needs a device,
 * counter permission or an idle GPU, its per-step timeout, and whether its
 * results count as instrumented. The checks themselves live in
 * rp_preflight.c. Everything here is plain memory in the struct: no
 * allocation except rp_contract_child_env's result.
 */
#ifndef RP_CONTRACT_H
#define RP_CONTRACT_H

#include <stddef.h>

#define RP_CONTRACT_MAX 32  /* entries per list */
#define RP_CONTRACT_STR 256 /* bytes per entry */

typedef enum {
  RP_NEED_NONE = 0,     /* not used by the stage */
  RP_NEED_OPTIONAL = 1, /* used when present; absent -> limited */
  RP_NEED_REQUIRED = 2  /* absent -> the stage is skipped (device) or
                           limited (counters, idle) with the reason */
} rp_need;

typedef struct {
  char name[64];        /* executable name, e.g. "nvcc" */
  char min_version[32]; /* "12.0", or "" for any version */
  int optional;         /* 1: missing only limits the stage */
} rp_tool_req;

typedef struct {
  char source[512]; /* file name, for messages */
  int nset;
  char set[RP_CONTRACT_MAX][RP_CONTRACT_STR]; /* "NAME=VALUE" */
  int nunset;
  char unset[RP_CONTRACT_MAX][RP_CONTRACT_STR]; /* patterns, see match */
  int nforbid;
  char forbid[RP_CONTRACT_MAX][RP_CONTRACT_STR]; /* patterns */
  int set_line[RP_CONTRACT_MAX];    /* each set's line, for messages */
  int forbid_line[RP_CONTRACT_MAX]; /* each forbid's line */
  int ntools;
  rp_tool_req tools[RP_CONTRACT_MAX];
  rp_need device;
  rp_need counters;
  rp_need idle;
  double timeout_s; /* per step, > 0 */
  int instrumented; /* 1: results are filed as instrumented */
} rp_contract;

/* Parses contract text. name is used in messages ("env/time.contract").
 * Strict: an unknown key, a malformed value, a duplicate single-valued key or
 * a missing required key (device, timeout, instrumented) is an error;
 * err receives "FILE:LINE: why" (or "FILE: why" for a missing key). Returns
 * CM_OK or CM_EPARSE (CM_ERANGE when a list overflows). */
int rp_contract_parse(const char *text, const char *name, rp_contract *out,
                      char *err, size_t errsize);

/* Reads and parses a file. CM_ENOENT (err says which file) if absent;
 * CM_EINVAL for a folder; CM_EIO (err names the OS's reason) when it
 * cannot be opened or read. */
int rp_contract_load(const char *path, rp_contract *out, char *err,
                     size_t errsize);

/* 1 if variable name matches pattern: an exact name, or a prefix followed by
 * a single trailing '*' ("NSYS_*" matches "NSYS_CONFIG"). Case-sensitive. */
int rp_pattern_match(const char *pattern, const char *name);

/* The first entry of env (NULL-terminated "NAME=value") whose name matches
 * one of the contract's forbid patterns, or NULL. Writes that variable's name
 * into name[size] when found. */
const char *rp_contract_forbidden(const rp_contract *c, char *const *env,
                                  char *name, size_t size);

/* Builds a child environment: parent minus every variable matching an unset
 * or forbid pattern, minus variables the contract sets, plus the contract's
 * set entries, plus extra (NULL-terminated "NAME=value", may be NULL; these
 * win over everything). The array and its strings are allocated: free with
 * rp_env_free. Returns CM_OK or CM_ENOMEM. */
int rp_contract_child_env(const rp_contract *c, char *const *parent,
                          const char *const *extra, char ***out);
void rp_env_free(char **env);

/* "none", "optional", "required". */
const char *rp_need_name(rp_need n);

#endif
