/* fuzz_tmp.h: one folder a process, for the targets whose reader takes a
 * path (fuzz_bundle, fuzz_run). Separate from fuzz.h: only these two
 * include libuv's header. */
#ifndef CP_FUZZ_TMP_H
#define CP_FUZZ_TMP_H

#include "cm_error.h"
#include "cm_str.h"

#include <stddef.h>
#include <uv.h>

/* Makes dir[size] a fresh folder under the system's temporary directory
 * (uv_fs_mkdtemp of "<tmp>/cp-fuzz-<leaf>-XXXXXX") on the first call, and
 * keeps it. Returns 1 once the folder exists, 0 if it cannot be made. */
static inline int fuzz_tmpdir(char *dir, size_t size, const char *leaf) {
  char tmpl[1024];
  size_t n = sizeof tmpl;
  uv_fs_t req;
  int r;
  if (dir[0] != '\0')
    return 1;
  if (uv_os_tmpdir(tmpl, &n) != 0 ||
      cm_snprintf(tmpl + n, sizeof tmpl - n, "/cp-fuzz-%s-XXXXXX", leaf) !=
          CM_OK)
    return 0;
  r = uv_fs_mkdtemp(NULL, &req, tmpl, NULL);
  if (r == 0 && cm_strlcpy(dir, req.path, size) != CM_OK)
    r = -1;
  uv_fs_req_cleanup(&req);
  if (r != 0)
    dir[0] = '\0';
  return r == 0;
}

#endif
