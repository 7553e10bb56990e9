/* Windows implementation of platform.h, part 2: what the repro runner needs
 * (environment, process trees, executables on PATH) and the NVIDIA counter
 * permission. Part 1 (plat_win32.c) holds files, time and libraries.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef UNICODE
#define UNICODE
#endif
#include <windows.h>
#include <tlhelp32.h>

#include "platform.h"
#include "plat_win32.h"
#include "cm_error.h"
#include "cm_str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Environment ---- */

/* The CRT's _environ is in the ANSI code page, which mangles non-ASCII
 * values; the UTF-16 block is the truth. The UTF-8 copy is rebuilt only when
 * the block changed, so repeated calls return the same array, and an array
 * stays valid until the environment is changed (the contract in
 * platform.h). Entries starting with '=' ("=C:=C:\\work") are the shell's
 * per-drive folders, not variables: they are left out as POSIX has none. */
static wchar_t *plat__env_block;
static size_t plat__env_block_len;
static char **plat__env_arr;

static size_t plat__block_len(const wchar_t *b) {
  const wchar_t *p = b;
  while (*p != L'\0')
    p += wcslen(p) + 1;
  return (size_t)(p - b) + 1; /* wide chars, the final NUL included */
}

static char **plat__env_build(const wchar_t *blk) {
  const wchar_t *p;
  size_t n = 0, k = 0;
  char **arr;
  for (p = blk; *p != L'\0'; p += wcslen(p) + 1)
    n++;
  arr = calloc(n + 1, sizeof *arr);
  if (arr == NULL)
    return NULL;
  for (p = blk; *p != L'\0'; p += wcslen(p) + 1) {
    int len;
    if (*p == L'=')
      continue;
    len = WideCharToMultiByte(CP_UTF8, 0, p, -1, NULL, 0, NULL, NULL);
    if (len <= 0 || (arr[k] = malloc((size_t)len)) == NULL)
      continue;
    WideCharToMultiByte(CP_UTF8, 0, p, -1, arr[k], len, NULL, NULL);
    k++;
  }
  return arr;
}

static void plat__env_free(char **arr) {
  size_t i;
  if (arr == NULL)
    return;
  for (i = 0; arr[i] != NULL; i++)
    free(arr[i]);
  free(arr);
}

const char *plat_getenv(const char *name) {
  char **e = plat_environ();
  size_t n = strlen(name);
  if (n == 0)
    return NULL;
  for (; *e != NULL; e++)
    if (_strnicmp(*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

char **plat_environ(void) {
  static char *empty[1] = {NULL};
  wchar_t *blk = GetEnvironmentStringsW();
  size_t len;
  char **arr;
  if (blk == NULL)
    return plat__env_arr != NULL ? plat__env_arr : empty;
  len = plat__block_len(blk);
  if (plat__env_arr != NULL && len == plat__env_block_len &&
      memcmp(blk, plat__env_block, len * sizeof *blk) == 0) {
    FreeEnvironmentStringsW(blk);
    return plat__env_arr;
  }
  arr = plat__env_build(blk);
  if (arr != NULL) {
    wchar_t *copy = malloc(len * sizeof *copy);
    if (copy != NULL)
      memcpy(copy, blk, len * sizeof *copy);
    plat__env_free(plat__env_arr);
    free(plat__env_block);
    plat__env_arr = arr;
    plat__env_block = copy;
    plat__env_block_len = copy != NULL ? len : 0;
  }
  FreeEnvironmentStringsW(blk);
  return plat__env_arr != NULL ? plat__env_arr : empty;
}

/* ---- Process trees ----
 *
 * Windows has no process groups to signal, and libuv's uv_process_kill ends
 * only the direct child (TerminateProcess). Two mechanisms cover the tree:
 *
 * 1. A job object per child (plat_tree_track, right after uv_spawn):
 *    everything the child starts from then on is in the job, and
 *    TerminateJobObject ends them all, orphans included. The race: a child
 *    that starts a process before it is assigned leaves that process outside
 *    the job. Creating the child suspended and resuming it after assignment
 *    would close the race, but uv_spawn offers no suspended start.
 * 2. A walk of the process table (Toolhelp snapshot) from pid through parent
 *    ids, which catches processes started in the race window as long as their
 *    parent chain is intact. A creation-time check keeps a reused pid from
 *    being mistaken for a descendant.
 *
 * The tracked child's process handle is kept open until the kill, which also
 * stops Windows from reusing its pid meanwhile. */

typedef struct {
  DWORD pid;
  HANDLE proc;
  HANDLE job;
} plat__tracked;

#define PLAT__MAX_TRACKED 64
static plat__tracked plat__kids[PLAT__MAX_TRACKED];
static SRWLOCK plat__kids_lock = SRWLOCK_INIT;

static void plat__release(plat__tracked *t) {
  /* Closing the last handle of a KILL_ON_JOB_CLOSE job ends what is left in
   * it: a stage must not leave processes behind. */
  CloseHandle(t->job);
  CloseHandle(t->proc);
  memset(t, 0, sizeof *t);
}

/* See platform.h. CM_ENOMEM when PLAT__MAX_TRACKED children are tracked at
 * once (the runner tracks one at a time). */
int plat_tree_track(int pid) {
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
  HANDLE proc, job;
  int i, slot = -1, rc = CM_OK;
  proc = OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE | SYNCHRONIZE |
                         PROCESS_QUERY_LIMITED_INFORMATION,
                     FALSE, (DWORD)pid);
  if (proc == NULL)
    return GetLastError() == ERROR_INVALID_PARAMETER
               ? CM_ENOENT
               : plat__win_error(GetLastError());
  job = CreateJobObjectW(NULL, NULL);
  if (job == NULL) {
    rc = plat__win_error(GetLastError());
    CloseHandle(proc);
    return rc;
  }
  memset(&lim, 0, sizeof lim);
  lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  /* Nested jobs (Windows 8 and later) let this work when repro itself runs
   * inside a job, as it does under many CI services and terminals. */
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim,
                               sizeof lim) ||
      !AssignProcessToJobObject(job, proc)) {
    rc = plat__win_error(GetLastError());
    CloseHandle(job);
    CloseHandle(proc);
    return rc;
  }
  AcquireSRWLockExclusive(&plat__kids_lock);
  for (i = 0; i < PLAT__MAX_TRACKED && slot < 0; i++)
    if (plat__kids[i].proc == NULL)
      slot = i;
  /* Full table: recycle the slots of children that have exited. */
  for (i = 0; i < PLAT__MAX_TRACKED && slot < 0; i++)
    if (WaitForSingleObject(plat__kids[i].proc, 0) == WAIT_OBJECT_0) {
      plat__release(&plat__kids[i]);
      slot = i;
    }
  if (slot >= 0) {
    plat__kids[slot].pid = (DWORD)pid;
    plat__kids[slot].proc = proc;
    plat__kids[slot].job = job;
  }
  ReleaseSRWLockExclusive(&plat__kids_lock);
  if (slot < 0) {
    CloseHandle(job); /* ends the child: better than an untracked tree */
    CloseHandle(proc);
    return CM_ENOMEM;
  }
  return CM_OK;
}

/* Closing the job ends whatever the step left running in it (the job has
 * KILL_ON_JOB_CLOSE): on Windows a stage cannot leave processes behind. */
void plat_tree_release(int pid) {
  int i;
  AcquireSRWLockExclusive(&plat__kids_lock);
  for (i = 0; i < PLAT__MAX_TRACKED; i++)
    if (plat__kids[i].proc != NULL && plat__kids[i].pid == (DWORD)pid)
      plat__release(&plat__kids[i]);
  ReleaseSRWLockExclusive(&plat__kids_lock);
}

/* Terminates the job tracked for pid, if any. Returns 1 if there was one. */
static int plat__kill_tracked(DWORD pid) {
  int i, found = 0;
  AcquireSRWLockExclusive(&plat__kids_lock);
  for (i = 0; i < PLAT__MAX_TRACKED; i++) {
    if (plat__kids[i].proc == NULL || plat__kids[i].pid != pid)
      continue;
    /* Exit code 1, as uv_process_kill uses for TerminateProcess. */
    TerminateJobObject(plat__kids[i].job, 1);
    plat__release(&plat__kids[i]);
    found = 1;
  }
  ReleaseSRWLockExclusive(&plat__kids_lock);
  return found;
}

static ULONGLONG plat__created(HANDLE h) {
  FILETIME c, e, k, u;
  if (!GetProcessTimes(h, &c, &e, &k, &u))
    return 0;
  return ((ULONGLONG)c.dwHighDateTime << 32) | c.dwLowDateTime;
}

/* One pass: terminates every live descendant of root found in a fresh
 * snapshot (root itself too, when alive). Returns how many were ended. */
static int plat__kill_walk(DWORD root) {
  PROCESSENTRY32W pe;
  DWORD tree[1024];
  ULONGLONG born[1024];
  int ntree = 1, i, killed = 0, grew = 1;
  HANDLE h, snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE)
    return 0;
  tree[0] = root;
  h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, root);
  born[0] = h != NULL ? plat__created(h) : 0;
  if (h != NULL)
    CloseHandle(h);
  /* Grow the set to a fixed point: a child listed before its parent in the
   * snapshot is picked up on the next sweep. */
  while (grew && ntree < 1024) {
    grew = 0;
    pe.dwSize = sizeof pe;
    if (!Process32FirstW(snap, &pe))
      break;
    do {
      int j, in = 0, parent = -1;
      for (j = 0; j < ntree; j++) {
        if (tree[j] == pe.th32ProcessID)
          in = 1;
        if (tree[j] == pe.th32ParentProcessID)
          parent = j;
      }
      if (in || parent < 0 || pe.th32ProcessID == GetCurrentProcessId())
        continue;
      h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
                      pe.th32ProcessID);
      if (h == NULL)
        continue;
      born[ntree] = plat__created(h);
      CloseHandle(h);
      /* A process older than its "parent" got the parent's pid by reuse. */
      if (born[parent] != 0 && born[ntree] < born[parent])
        continue;
      tree[ntree++] = pe.th32ProcessID;
      grew = 1;
    } while (ntree < 1024 && Process32NextW(snap, &pe));
  }
  CloseHandle(snap);
  for (i = 0; i < ntree; i++) {
    h = OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE, FALSE, tree[i]);
    if (h == NULL)
      continue;
    if (WaitForSingleObject(h, 0) == WAIT_TIMEOUT && TerminateProcess(h, 1))
      killed++;
    CloseHandle(h);
  }
  return killed;
}

int plat_kill_tree(int pid, int force) {
  int found, round, n;
  (void)force; /* Windows has no polite signal for a console-less child. */
  if (pid <= 0)
    return CM_EINVAL;
  found = plat__kill_tracked((DWORD)pid);
  /* A second round catches what the first round's victims started while it
   * ran; a third finds nothing in practice. */
  for (round = 0; round < 3; round++) {
    n = plat__kill_walk((DWORD)pid);
    found += n;
    if (n == 0)
      break;
  }
  return found > 0 ? CM_OK : CM_ENOENT;
}

int plat_pid_alive(int pid) {
  HANDLE h;
  DWORD w;
  if (pid <= 0)
    return 0;
  h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
                  (DWORD)pid);
  if (h == NULL)
    return GetLastError() == ERROR_ACCESS_DENIED ? 1 : 0;
  w = WaitForSingleObject(h, 0);
  CloseHandle(h);
  return w == WAIT_TIMEOUT ? 1 : 0;
}

/* ---- Executables ---- */

char plat_path_list_sep(void) {
  return ';';
}

static int plat__is_file(const char *path) {
  const DWORD a = plat__attributes(path);
  return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

/* Tries dir\name; dir may be NULL (name used as given). A PATH entry may be
 * quoted ("C:\Program Files\x") and may end with a separator. */
static int plat__try_dir(const char *dir, size_t dlen, const char *name,
                         const char *ext, char *buf, size_t size) {
  char cand[4096];
  int rc;
  if (dir != NULL && dlen >= 2 && dir[0] == '"' && dir[dlen - 1] == '"') {
    dir++;
    dlen -= 2;
  }
  if (dir != NULL && dlen == 0)
    return CM_ENOENT;
  if (dir == NULL)
    rc = cm_snprintf(cand, sizeof cand, "%s%s", name, ext);
  else
    rc = cm_snprintf(
        cand, sizeof cand, "%.*s%s%s%s", (int)dlen, dir,
        (dir[dlen - 1] == '\\' || dir[dlen - 1] == '/') ? "" : "\\", name, ext);
  if (rc != CM_OK || !plat__is_file(cand))
    return CM_ENOENT;
  return cm_strlcpy(buf, cand, size);
}

int plat_find_executable(const char *name, const char *const *extra_dirs,
                         char *buf, size_t size) {
  const char *base, *ext = "";
  char *path = NULL;
  wchar_t *wpath;
  DWORD n;
  int rc = CM_ENOENT;
  size_t i;
  if (name == NULL || *name == '\0' || size == 0)
    return CM_EINVAL;
  base = name + strlen(name);
  while (base > name && base[-1] != '\\' && base[-1] != '/')
    base--;
  if (strchr(base, '.') == NULL)
    ext = ".exe";
  if (base != name) /* a path: PATH is not searched */
    return plat__try_dir(NULL, 0, name, ext, buf, size);
  n = GetEnvironmentVariableW(L"PATH", NULL, 0);
  if (n > 0 && (wpath = malloc(n * sizeof *wpath)) != NULL) {
    GetEnvironmentVariableW(L"PATH", wpath, n);
    path = malloc((size_t)n * 3 + 1); /* UTF-8 needs at most 3 per unit */
    if (path != NULL &&
        plat__wide_to_utf8(wpath, path, (size_t)n * 3 + 1) != CM_OK) {
      free(path);
      path = NULL;
    }
    free(wpath);
  }
  if (path != NULL) {
    const char *p = path;
    while (rc == CM_ENOENT && *p != '\0') {
      size_t len = strcspn(p, ";");
      rc = plat__try_dir(p, len, name, ext, buf, size);
      p += len;
      if (*p == ';')
        p++;
    }
    free(path);
  }
  for (i = 0; rc == CM_ENOENT && extra_dirs != NULL && extra_dirs[i]; i++)
    rc = plat__try_dir(extra_dirs[i], strlen(extra_dirs[i]), name, ext, buf,
                       size);
  return rc;
}

/* ---- NVIDIA counters ---- */

#define PLAT__NVTWEAK                                                          \
  L"SYSTEM\\CurrentControlSet\\Services\\nvlddmkm\\Global\\NVTweak"

int plat__win_admin_only_from_registry(void) {
  HKEY key;
  DWORD v = 0, type = 0, sz = sizeof v;
  LONG r;
  /* The 64-bit view: a 32-bit build would otherwise read WOW6432Node. */
  r = RegOpenKeyExW(HKEY_LOCAL_MACHINE, PLAT__NVTWEAK, 0,
                    KEY_QUERY_VALUE | KEY_WOW64_64KEY, &key);
  if (r != ERROR_SUCCESS)
    return -2;
  r = RegQueryValueExW(key, L"RmProfilingAdminOnly", NULL, &type, (LPBYTE)&v,
                       &sz);
  RegCloseKey(key);
  if (r != ERROR_SUCCESS || type != REG_DWORD)
    return -1;
  return v != 0 ? 1 : 0;
}

int plat_parse_admin_only(const char *text) {
  static const char key[] = "RmProfilingAdminOnly";
  const char *p = text;
  while (p != NULL && (p = strstr(p, key)) != NULL) {
    /* As on POSIX, only a match at the start of a line is the setting:
     * "XRmProfilingAdminOnly" is another name. */
    if (p != text && p[-1] != '\n') {
      p += sizeof key - 1;
      continue;
    }
    p += sizeof key - 1;
    while (*p == ' ' || *p == '\t' || *p == ':' || *p == '=')
      p++;
    if (*p < '0' || *p > '9')
      return -1;
    return *p != '0' ? 1 : 0;
  }
  return -1;
}

int plat_is_privileged(void) {
  HANDLE tok;
  TOKEN_ELEVATION el;
  DWORD sz = sizeof el;
  int yes = 0;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
    return 0;
  if (GetTokenInformation(tok, TokenElevation, &el, sz, &sz))
    yes = el.TokenIsElevated != 0;
  CloseHandle(tok);
  return yes;
}

/* Reads a params-like text file (tests fabricate one; Windows itself keeps
 * the setting in the registry). Returns the parsed value, or -2 if the file
 * cannot be read. */
static int plat__admin_only_from_file(const char *path) {
  char text[8192];
  size_t n;
  FILE *f;
  wchar_t *w = plat__utf8_to_wide(path, NULL);
  if (w == NULL)
    return -2;
  f = _wfopen(w, L"rb");
  free(w);
  if (f == NULL)
    return -2;
  n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return plat_parse_admin_only(text);
}

int plat_counter_permission(const char *params_path, int privileged,
                            plat_counter_perm *out) {
  int v;
  const char *where = params_path != NULL ? params_path
                                          : "the NVIDIA driver's registry "
                                            "settings (nvlddmkm NVTweak)";
  if (out == NULL)
    return CM_EINVAL;
  memset(out, 0, sizeof *out);
  out->privileged = privileged < 0 ? plat_is_privileged() : privileged != 0;
  v = params_path != NULL ? plat__admin_only_from_file(params_path)
                          : plat__win_admin_only_from_registry();
  out->params_found = v != -2;
  out->admin_only = v >= 0 ? v : -1;
  out->allowed = v == 0 || out->privileged;
  if (v == 0)
    return cm_snprintf(out->detail, sizeof out->detail,
                       "RmProfilingAdminOnly is 0 in %s: performance counters "
                       "are open to all users",
                       where);
  if (out->privileged)
    return cm_snprintf(out->detail, sizeof out->detail,
                       "this process is elevated (administrator), so "
                       "performance counters are allowed");
  if (v == -2)
    return cm_snprintf(out->detail, sizeof out->detail,
                       "no NVIDIA driver setting found in %s; without it the "
                       "driver restricts counters to administrators: run "
                       "from an elevated prompt",
                       where);
  /* Truncation of the advice is acceptable; the first clause says it all. */
  (void)cm_snprintf(
      out->detail, sizeof out->detail,
      "counters are restricted to administrators (%s in %s) and "
      "this process is not elevated: run from an elevated "
      "prompt, or in the NVIDIA Control Panel enable Developer "
      "Settings, then Manage GPU Performance Counters > allow "
      "all users",
      v == 1 ? "RmProfilingAdminOnly is 1" : "the driver's default", where);
  return CM_OK;
}

int plat_nvidia_gpu_count(const char *dir, int *count) {
  (void)dir;
  if (count != NULL)
    *count = 0;
  return CM_ENOTSUP;
}
