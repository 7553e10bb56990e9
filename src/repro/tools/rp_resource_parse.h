/* rp_resource_parse.h: per-kernel resource usage (registers, spills, shared
 * memory, stack) from ptxas and cuobjdump, merged into one table.
 *
 * Two sources, either or both:
 *  - ptxas verbose output (nvcc -Xptxas -v, or --resource-usage):
 *      ptxas info    : Compiling entry function '_Z2k1Pfi' for 'sm_90'
 *      ptxas info    : Function properties for _Z2k1Pfi
 *          256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *      ptxas info    : Used 24 registers, used 1 barriers, 1024 bytes smem
 *  - cuobjdump --dump-resource-usage:
 *      arch = sm_90
 *       Function _Z2k1Pfi:
 *        REG:24 STACK:256 SHARED:1024 LOCAL:0 CONSTANT[0]:900 ...
 * Rows are keyed by (mangled name, arch); a second source fills the fields
 * the first left unknown. Only kernels (entry functions) get rows: ptxas's
 * "Function properties" for device functions are skipped.
 *
 * Ownership: rp_res_table owns its rows; free with rp_res_table_free.
 */
#ifndef RP_RESOURCE_PARSE_H
#define RP_RESOURCE_PARSE_H

#include <stddef.h>
#include <stdint.h>

struct json_t;

#define RP_RES_FROM_PTXAS 1
#define RP_RES_FROM_CUOBJDUMP 2

typedef struct {
  char mangled[512];    /* as the tools print it */
  char readable[1024];  /* demangled (c++filt), or "" if not demangled */
  char arch[16];        /* "sm_90"; "" if the source did not say */
  int64_t registers;    /* per thread; -1 unknown (same for every field) */
  int64_t stack_frame;  /* bytes per thread */
  int64_t spill_stores; /* bytes */
  int64_t spill_loads;  /* bytes */
  int64_t shared;       /* static shared memory per block, bytes: ptxas's
                           "bytes smem" when known, else cuobjdump's SHARED,
                           which includes the driver's 1 KiB per-block
                           reserve on sm_80+ when the kernel uses any */
  int64_t local;        /* local memory per thread, bytes (cuobjdump) */
  int64_t constant0;    /* constant bank 0 bytes (cuobjdump, older ptxas) */
  int64_t barriers;
  int spills;  /* 1 if spill_stores > 0 or spill_loads > 0 */
  int sources; /* RP_RES_FROM_* bits */
} rp_kernel_res;

typedef struct {
  rp_kernel_res *rows; /* owned */
  size_t count;
  size_t cap;
} rp_res_table;

void rp_res_table_init(rp_res_table *t);
void rp_res_table_free(rp_res_table *t);

/* Adds the kernels found in ptxas -v output text[0..len) to t. Returns
 * CM_OK or CM_ENOMEM. Text with no kernel is not an error (count stays). */
int rp_res_parse_ptxas(const char *text, size_t len, rp_res_table *t);

/* Adds the kernels found in cuobjdump --dump-resource-usage output. */
int rp_res_parse_cuobjdump(const char *text, size_t len, rp_res_table *t);

/* Number of rows with spills set. */
size_t rp_res_spilling(const rp_res_table *t);

/* Applies c++filt's output: text holds one demangled name per line, in the
 * order of the rows whose mangled name starts with "_Z" (the order of the
 * argv the caller gave c++filt, see rp_res_mangled_names). Rows not covered
 * keep readable == "". Returns CM_OK, or CM_EPARSE if the line count does
 * not match (nothing is applied then). */
int rp_res_apply_demangled(rp_res_table *t, const char *text, size_t len);

/* Fills names[0..max) with pointers (borrowed from t) to each distinct
 * mangled name that starts with "_Z", in row order; returns the count. */
size_t rp_res_mangled_names(const rp_res_table *t, const char **names,
                            size_t max);

/* The table as aligned text, one row per kernel, spilling rows marked
 * "SPILLS". Writes a malloc'd NUL-terminated string to *out (caller frees).
 * Returns CM_OK or CM_ENOMEM. */
int rp_res_table_text(const rp_res_table *t, char **out);

/* The table as a JSON array of objects {kernel, mangled, arch, registers,
 * stack_frame_bytes, spill_store_bytes, spill_load_bytes, shared_bytes,
 * local_bytes, constant0_bytes, barriers, spills, sources}; unknown values
 * are null. NULL only when out of memory. */
struct json_t *rp_res_table_json(const rp_res_table *t);

#endif
