/* Windows implementation of platform.h (MSVC and MinGW-w64, also under Wine).
 *
 * Every Windows call goes through its W entry point with UTF-16 converted
 * from the project's UTF-8 here, so a path like "C:\Users\Zoë\My runs" works
 * whatever the ANSI code page is. Win32 errors are translated once, here, by
 * plat__win_error. Process-tree kill, counter permission and the console are
 * the parts that differ most from POSIX; their reasons are given where they
 * are implemented.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef UNICODE
#define UNICODE
#endif
#include <windows.h>
#include <shellapi.h> /* CommandLineToArgvW (shell32) */

#include "platform.h"
#include "plat_win32.h"
#include "cm_error.h"
#include "cm_path.h"
#include "cm_str.h"

#include <io.h>
#include <stdlib.h>
#include <string.h>

/* Long enough for any path Windows accepts with the \\?\ prefix. */
#define PLAT__WPATH_MAX 32768

int plat__win_error(unsigned long e) {
  switch (e) {
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_DRIVE:
  case ERROR_MOD_NOT_FOUND:
  case ERROR_BAD_NETPATH:
  case ERROR_BAD_NET_NAME: /* a share that is not there */
    return CM_ENOENT;
  case ERROR_ACCESS_DENIED:
  case ERROR_SHARING_VIOLATION:
  case ERROR_LOCK_VIOLATION:
  case ERROR_PRIVILEGE_NOT_HELD:
  case ERROR_NETWORK_ACCESS_DENIED:
  case ERROR_WRITE_PROTECT: /* POSIX's EROFS, mapped there to CM_EACCES */
    return CM_EACCES;
  case ERROR_FILENAME_EXCED_RANGE: /* a path past MAX_PATH (260) */
    return CM_ENAMETOOLONG;
  case ERROR_DIRECTORY: /* a file where a folder is needed */
    return CM_ENOTDIR;
  case ERROR_ALREADY_EXISTS:
  case ERROR_FILE_EXISTS:
    return CM_EEXIST;
  case ERROR_NOT_ENOUGH_MEMORY:
  case ERROR_OUTOFMEMORY:
    return CM_ENOMEM;
  case ERROR_DISK_FULL:
  case ERROR_HANDLE_DISK_FULL:
    return CM_ENOSPC;
  case ERROR_INSUFFICIENT_BUFFER:
  case ERROR_BUFFER_OVERFLOW:
    return CM_ERANGE;
  case ERROR_INVALID_PARAMETER:
  case ERROR_INVALID_NAME:
  case ERROR_NO_UNICODE_TRANSLATION:
    return CM_EINVAL;
  case ERROR_TIMEOUT:
  case WAIT_TIMEOUT:
    return CM_ETIMEDOUT;
  case ERROR_NOT_SUPPORTED:
  case ERROR_CALL_NOT_IMPLEMENTED:
    return CM_ENOTSUP;
  default:
    return CM_EIO;
  }
}

wchar_t *plat__utf8_to_wide(const char *s, int *err) {
  int n;
  wchar_t *w;
  if (err != NULL)
    *err = CM_OK;
  /* -1: the length includes the terminating NUL. MB_ERR_INVALID_CHARS makes
   * malformed UTF-8 an error instead of silently becoming U+FFFD, which would
   * name a different file. */
  n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  if (n <= 0) {
    if (err != NULL)
      *err = CM_EINVAL;
    return NULL;
  }
  w = malloc((size_t)n * sizeof *w);
  if (w == NULL) {
    if (err != NULL)
      *err = CM_ENOMEM;
    return NULL;
  }
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
  return w;
}

int plat__wide_to_utf8(const wchar_t *w, char *buf, size_t size) {
  int n;
  if (size == 0)
    return CM_ERANGE;
  buf[0] = '\0';
  n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL,
                          NULL);
  if (n <= 0)
    return CM_EINVAL;
  if ((size_t)n > size)
    return CM_ERANGE;
  WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, buf, (int)size,
                      NULL, NULL);
  return CM_OK;
}

int plat_utf8_argv(int *argc, char ***argv) {
  int n, i, rc = CM_OK;
  size_t total = 0, off = 0;
  wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
  char **out;
  char *text;
  if (wargv == NULL)
    return plat__win_error(GetLastError());
  for (i = 0; i < n; i++) {
    int len =
        WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
    if (len <= 0) {
      LocalFree(wargv);
      return CM_EINVAL;
    }
    total += (size_t)len;
  }
  /* One block: the pointer array, then the strings. */
  out = malloc((size_t)(n + 1) * sizeof *out + total);
  if (out == NULL) {
    LocalFree(wargv);
    return CM_ENOMEM;
  }
  text = (char *)(out + n + 1);
  for (i = 0; i < n; i++) {
    int len = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, text + off,
                                  (int)(total - off), NULL, NULL);
    out[i] = text + off;
    off += (size_t)len;
  }
  out[n] = NULL;
  LocalFree(wargv);
  *argc = n;
  *argv = out;
  return rc;
}

/* ---- OS identity ---- */

plat_os plat_os_detect(void) {
  return PLAT_OS_WINDOWS;
}

plat_os plat_os_detect_from(const char *proc_version_path,
                            const char *wsl_distro_name) {
  (void)proc_version_path;
  (void)wsl_distro_name;
  return PLAT_OS_WINDOWS;
}

const char *plat_os_name(plat_os os) {
  switch (os) {
  case PLAT_OS_LINUX:
    return "linux";
  case PLAT_OS_WSL:
    return "wsl";
  case PLAT_OS_WINDOWS:
    return "windows";
  default:
    return "other";
  }
}

typedef LONG(WINAPI *plat__rtl_get_version_fn)(OSVERSIONINFOW *);
typedef const char *(*plat__wine_version_fn)(void);

/* GetVersionEx reports 6.2 to programs without a compatibility manifest, so
 * the true version comes from ntdll's RtlGetVersion. Under Wine, ntdll also
 * exports wine_get_version: the release line says so, because results from
 * Wine must never pass for results from Windows. */
int plat_os_release(char *buf, size_t size) {
  OSVERSIONINFOW vi;
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  FARPROC p;
  plat__rtl_get_version_fn get_version = NULL;
  plat__wine_version_fn wine_version = NULL;
  memset(&vi, 0, sizeof vi);
  vi.dwOSVersionInfoSize = sizeof vi;
  if (ntdll != NULL) {
    p = GetProcAddress(ntdll, "RtlGetVersion");
    memcpy(&get_version, &p, sizeof p);
    p = GetProcAddress(ntdll, "wine_get_version");
    memcpy(&wine_version, &p, sizeof p);
  }
  if (get_version == NULL || get_version(&vi) != 0)
    return cm_snprintf(buf, size, "Windows (version unknown)");
  if (wine_version != NULL)
    return cm_snprintf(buf, size, "Windows %lu.%lu.%lu x86_64 (Wine %s)",
                       vi.dwMajorVersion, vi.dwMinorVersion, vi.dwBuildNumber,
                       wine_version());
  return cm_snprintf(buf, size, "Windows %lu.%lu.%lu x86_64", vi.dwMajorVersion,
                     vi.dwMinorVersion, vi.dwBuildNumber);
}

int plat_hostname(char *buf, size_t size) {
  wchar_t w[256];
  DWORD n = (DWORD)(sizeof w / sizeof w[0]);
  if (size == 0)
    return CM_EINVAL;
  if (!GetComputerNameExW(ComputerNameDnsHostname, w, &n))
    return plat__win_error(GetLastError());
  return plat__wide_to_utf8(w, buf, size);
}

int plat_exe_path(char *buf, size_t size) {
  wchar_t *w = malloc(PLAT__WPATH_MAX * sizeof *w);
  DWORD n;
  int rc;
  if (w == NULL)
    return CM_ENOMEM;
  n = GetModuleFileNameW(NULL, w, PLAT__WPATH_MAX);
  if (n == 0 || n >= PLAT__WPATH_MAX)
    rc = n == 0 ? plat__win_error(GetLastError()) : CM_ERANGE;
  else
    rc = plat__wide_to_utf8(w, buf, size);
  free(w);
  return rc;
}

/* ---- Time ---- */

/* Days since 1970-01-01 -> civil date (proleptic Gregorian). Done by hand
 * because gmtime_s has different argument orders in MSVC and older MinGW
 * headers; 400-year eras keep the arithmetic exact for any int64 day. */
static void plat__civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  int64_t era, doe, yoe, doy, mp;
  z += 719468; /* shift the epoch to 0000-03-01 */
  era = (z >= 0 ? z : z - 146096) / 146097;
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2 ? 1 : 0);
}

int plat_utc_format(int64_t epoch_s, char *buf, size_t size) {
  int64_t days, secs, y;
  int m, d;
  days = epoch_s / 86400;
  secs = epoch_s % 86400;
  if (secs < 0) {
    secs += 86400;
    days -= 1;
  }
  plat__civil_from_days(days, &y, &m, &d);
  if (y < 0 || y > 9999)
    return CM_ERANGE;
  return cm_snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, m, d,
                     (int)(secs / 3600), (int)(secs / 60 % 60),
                     (int)(secs % 60));
}

int plat_utc_now(char *buf, size_t size) {
  FILETIME ft;
  ULARGE_INTEGER t;
  GetSystemTimeAsFileTime(&ft);
  t.LowPart = ft.dwLowDateTime;
  t.HighPart = ft.dwHighDateTime;
  /* FILETIME counts 100 ns ticks since 1601-01-01; 11644473600 s separate
   * that from the Unix epoch. */
  return plat_utc_format((int64_t)(t.QuadPart / 10000000ULL) - 11644473600LL,
                         buf, size);
}

double plat_monotonic_s(void) {
  static LARGE_INTEGER freq; /* constant after boot, so a benign race */
  LARGE_INTEGER now;
  if (freq.QuadPart == 0)
    QueryPerformanceFrequency(&freq);
  QueryPerformanceCounter(&now);
  /* Split to keep sub-microsecond resolution after long uptimes. */
  return (double)(now.QuadPart / freq.QuadPart) +
         (double)(now.QuadPart % freq.QuadPart) / (double)freq.QuadPart;
}

/* A terminal is a real console: _isatty is also true for NUL and serial
 * devices, where colour sequences would only be noise. */
int plat_isatty(int fd) {
  DWORD mode;
  HANDLE h;
  intptr_t osf = _get_osfhandle(fd);
  if (osf == -1)
    return 0;
  h = (HANDLE)osf;
  if (GetFileType(h) != FILE_TYPE_CHAR)
    return 0;
  return GetConsoleMode(h, &mode) ? 1 : 0;
}

/* GetActiveProcessorCount counts every processor group; GetSystemInfo sees
 * only the caller's group (at most 64 CPUs), so it is the fallback for
 * headers that target Windows before 7. */
int plat_cpu_count(void) {
#if defined(_WIN32_WINNT) && _WIN32_WINNT >= 0x0601
  DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
#else
  SYSTEM_INFO si;
  DWORD n;
  GetSystemInfo(&si);
  n = si.dwNumberOfProcessors;
#endif
  return n < 1 ? 1 : n > 65536 ? 65536 : (int)n;
}

int plat_mem_available(uint64_t *bytes) {
  MEMORYSTATUSEX ms;
  ms.dwLength = sizeof ms;
  if (!GlobalMemoryStatusEx(&ms))
    return CM_ENOTSUP;
  *bytes = (uint64_t)ms.ullAvailPhys;
  return CM_OK;
}

int plat_console_init(int fd) {
  DWORD mode;
  HANDLE h;
  if (fd != 1 && fd != 2)
    return 0;
  h = GetStdHandle(fd == 1 ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE);
  if (h == NULL || h == INVALID_HANDLE_VALUE || !GetConsoleMode(h, &mode))
    return 0;
  /* UTF-8 output so that paths and the report's symbols print as written. */
  SetConsoleOutputCP(CP_UTF8);
#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif
  if (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING)
    return 1;
  /* Consoles older than Windows 10 1511 refuse the flag: no colours then. */
  return SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) ? 1 : 0;
}

void plat_ignore_write_signals(void) {
}

/* ---- Files ---- */

static int plat__is_sep(wchar_t c) {
  return c == L'\\' || c == L'/';
}

static int plat__is_dir(const wchar_t *w) {
  DWORD a = GetFileAttributesW(w);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

/* Creates one directory; an existing directory is success, an existing file
 * is CM_EEXIST. */
static int plat__mkdir_one(const wchar_t *w) {
  DWORD e;
  if (CreateDirectoryW(w, NULL))
    return CM_OK;
  e = GetLastError();
  if (e == ERROR_ALREADY_EXISTS || e == ERROR_ACCESS_DENIED)
    return plat__is_dir(w) ? CM_OK : plat__win_error(e);
  return plat__win_error(e);
}

int plat_mkdir_p(const char *path) {
  int rc;
  wchar_t *w, *p, *start;
  if (path == NULL || *path == '\0')
    return CM_EINVAL;
  /* a long path comes back as "\\?\C:\..." or "\\?\UNC\server\share\..." */
  w = cm_path_wide(path, &rc);
  if (w == NULL)
    return rc;
  /* Skip what cannot be created: a drive ("C:\"), a UNC share
   * ("\\server\share\"), either in the long-path form ("\\?\C:\",
   * "\\?\UNC\server\share\"). */
  start = w;
  if (wcsncmp(start, L"\\\\?\\", 4) == 0)
    start += 4;
  if (start[0] != L'\0' && start[1] == L':') {
    start += 2;
  } else if ((start == w && plat__is_sep(w[0]) && plat__is_sep(w[1])) ||
             (start != w && _wcsnicmp(start, L"UNC\\", 4) == 0)) {
    int seps = 0;
    for (start += start == w ? 2 : 4; *start != L'\0' && seps < 2; start++)
      if (plat__is_sep(*start))
        seps++;
  }
  while (plat__is_sep(*start))
    start++;
  rc = CM_OK;
  for (p = start; *p != L'\0' && rc == CM_OK; p++) {
    wchar_t c = *p;
    if (!plat__is_sep(c) || plat__is_sep(p[-1]))
      continue;
    *p = L'\0';
    rc = plat__mkdir_one(w);
    *p = c;
  }
  if (rc == CM_OK)
    rc = plat__mkdir_one(w);
  free(w);
  return rc;
}

int plat_mkdir_new(const char *path) {
  int rc;
  wchar_t *w = cm_path_wide(path, &rc);
  if (w == NULL)
    return rc;
  /* ERROR_ALREADY_EXISTS (a folder or a file) maps to CM_EEXIST. */
  rc = CreateDirectoryW(w, NULL) ? CM_OK : plat__win_error(GetLastError());
  free(w);
  return rc;
}

/* MoveFileExW with REPLACE_EXISTING is the closest Windows has to POSIX
 * rename(): it replaces a file atomically on NTFS. WRITE_THROUGH makes it
 * return only once the move is on disk, which archives rely on. */
int plat_rename(const char *from, const char *to) {
  int rc;
  wchar_t *wf = cm_path_wide(from, &rc), *wt;
  if (wf == NULL)
    return rc;
  wt = cm_path_wide(to, &rc);
  if (wt != NULL) {
    if (MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
      rc = CM_OK;
    else
      rc = plat__win_error(GetLastError());
  }
  free(wf);
  free(wt);
  return rc;
}

unsigned long plat__attributes(const char *path) {
  wchar_t *w = cm_path_wide(path, NULL);
  DWORD a;
  if (w == NULL)
    return INVALID_FILE_ATTRIBUTES;
  a = GetFileAttributesW(w);
  free(w);
  return a;
}

int plat_path_exists(const char *path) {
  return plat__attributes(path) != INVALID_FILE_ATTRIBUTES ? 1 : 0;
}

int plat_path_is_dir(const char *path) {
  const DWORD a = plat__attributes(path);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) ? 1 : 0;
}

/* 1 if the path's last component is one of DOS's device names (CON, PRN,
 * AUX, NUL, COM0-9, LPT0-9, CONIN$, CONOUT$), with or without an extension
 * and with any trailing dots, spaces or colon, in any case: names that Win32
 * maps to a device in whatever folder they are written. */
static int plat__dos_device_name(const wchar_t *w) {
  static const wchar_t *const names[] = {L"CON", L"PRN",    L"AUX",
                                         L"NUL", L"CONIN$", L"CONOUT$"};
  const wchar_t *base = w;
  size_t end = wcslen(w), n, i;
  /* "COM1:" names the device as "COM1" does */
  while (end > 0 && w[end - 1] == L':')
    end--;
  for (i = 0; i < end; i++)
    if (w[i] == L'\\' || w[i] == L'/' || w[i] == L':')
      base = w + i + 1;
  end -= (size_t)(base - w);
  /* the stem: up to the first dot, less trailing spaces ("NUL .json") */
  for (n = 0; n < end && base[n] != L'.'; n++)
    ;
  while (n > 0 && base[n - 1] == L' ')
    n--;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (wcslen(names[i]) == n && _wcsnicmp(base, names[i], n) == 0)
      return 1;
  /* COM0-9 and LPT0-9, and with a superscript 1, 2 or 3 (U+00B9, U+00B2,
   * U+00B3), which Windows reserves in every folder too */
  return n == 4 &&
         (_wcsnicmp(base, L"COM", 3) == 0 || _wcsnicmp(base, L"LPT", 3) == 0) &&
         ((base[3] >= L'0' && base[3] <= L'9') || base[3] == 0x00B9 ||
          base[3] == 0x00B2 || base[3] == 0x00B3);
}

/* 1 if the path is in Win32's device namespace ("\\.\NUL", "\\.\pipe\x",
 * "\\?\GLOBALROOT\..."): everything there but a drive ("\\?\C:\..."), a
 * share ("\\?\UNC\...") or a volume ("\\?\Volume{...}\...") is a device or
 * a pipe. Decided by name:
 * opening a pipe to ask would take one of its server's instances. */
static int plat__device_namespace(const wchar_t *w) {
  /* each test stops at the terminator before the next index is read */
  if ((w[0] != L'\\' && w[0] != L'/') || (w[1] != L'\\' && w[1] != L'/') ||
      (w[2] != L'.' && w[2] != L'?') || (w[3] != L'\\' && w[3] != L'/'))
    return 0;
  if (((w[4] >= L'A' && w[4] <= L'Z') || (w[4] >= L'a' && w[4] <= L'z')) &&
      w[5] == L':')
    return 0;
  return _wcsnicmp(w + 4, L"UNC\\", 4) != 0 &&
         _wcsnicmp(w + 4, L"UNC/", 4) != 0 &&
         _wcsnicmp(w + 4, L"Volume{", 7) != 0;
}

/* GetFileAttributesW does not say "device" for the DOS device names (it
 * reports NUL as an ordinary archive file, on Windows as under Wine), so the
 * attribute alone let --json NUL through: the results went to the device
 * and the rename over it failed after the whole run. Hence, in order, each
 * decided without opening a device: the device namespace and the DOS device
 * names by name (opening COM1 to ask may toggle a serial port's lines, and
 * a pipe loses an instance; Windows 11 maps some of those names with an
 * extension to files, which are refused all the same: a name Windows
 * reserves is no place for results); the attribute; then what the handle
 * is, when the path opens (no access asked, everything shared). */
int plat_path_is_special(const char *path) {
  wchar_t *w = cm_path_wide(path, NULL);
  DWORD a, type;
  HANDLE h;
  if (w == NULL)
    return 0;
  if (plat__device_namespace(w) || plat__dos_device_name(w)) {
    free(w);
    return 1;
  }
  a = GetFileAttributesW(w);
  if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DEVICE)) {
    free(w);
    return 1;
  }
  h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                  NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  free(w);
  if (h == INVALID_HANDLE_VALUE)
    return 0;
  type = GetFileType(h);
  CloseHandle(h);
  return type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE;
}

/* ---- Dynamic libraries ---- */

/* Like dlerror: one message per thread, overwritten by the next failure. */
#if defined(_MSC_VER)
#define PLAT__TLS __declspec(thread)
#else
#define PLAT__TLS _Thread_local
#endif
static PLAT__TLS char plat__dl_msg[512];

static void plat__dl_set_error(const char *what, const char *name) {
  wchar_t w[256];
  char msg[384];
  DWORD e = GetLastError();
  DWORD n =
      FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                     NULL, e, 0, w, (DWORD)(sizeof w / sizeof w[0]), NULL);
  while (n > 0 && (w[n - 1] == L'\r' || w[n - 1] == L'\n' || w[n - 1] == L' '))
    w[--n] = L'\0';
  if (n == 0 || plat__wide_to_utf8(w, msg, sizeof msg) != CM_OK)
    cm_snprintf(msg, sizeof msg, "Win32 error %lu", (unsigned long)e);
  /* Truncation only shortens the message. */
  (void)cm_snprintf(plat__dl_msg, sizeof plat__dl_msg, "%s %s: %s", what, name,
                    msg);
}

const char *plat_exe_suffix(void) {
  return ".exe";
}

void *plat_dl_open(const char *name) {
  wchar_t *w = plat__utf8_to_wide(name, NULL);
  HMODULE h;
  if (w == NULL) {
    (void)cm_snprintf(plat__dl_msg, sizeof plat__dl_msg,
                      "LoadLibrary: name is not valid UTF-8");
    return NULL;
  }
  h = LoadLibraryW(w);
  free(w);
  if (h == NULL)
    plat__dl_set_error("LoadLibrary", name);
  return (void *)h;
}

void *plat_dl_sym(void *lib, const char *symbol) {
  FARPROC p = GetProcAddress((HMODULE)lib, symbol);
  void *out;
  if (p == NULL) {
    plat__dl_set_error("GetProcAddress", symbol);
    return NULL;
  }
  /* Function to object pointer, as dlsym does; memcpy keeps it defined. */
  memcpy(&out, &p, sizeof out);
  return out;
}

void plat_dl_close(void *lib) {
  if (lib != NULL)
    FreeLibrary((HMODULE)lib);
}

const char *plat_dl_error(void) {
  return plat__dl_msg[0] != '\0' ? plat__dl_msg : "no error";
}

/* nvml.dll lives in System32 with current drivers (the DCH packages); older
 * ones put it in %ProgramFiles%\NVIDIA Corporation\NVSMI. The bare name
 * comes last, for a copy on PATH. Built once: the folders are the machine's,
 * not fixed strings. */
static char plat__nvml_sys[1024], plat__nvml_smi[1024];
static const char *plat__nvml_list[4];

static BOOL CALLBACK plat__nvml_init(PINIT_ONCE once, PVOID param, PVOID *ctx) {
  wchar_t w[MAX_PATH];
  char dir[1024];
  int k = 0;
  UINT n = GetSystemDirectoryW(w, MAX_PATH);
  DWORD m;
  (void)once;
  (void)param;
  (void)ctx;
  if (n > 0 && n < MAX_PATH && plat__wide_to_utf8(w, dir, sizeof dir) == 0 &&
      cm_snprintf(plat__nvml_sys, sizeof plat__nvml_sys, "%s\\nvml.dll", dir) ==
          CM_OK)
    plat__nvml_list[k++] = plat__nvml_sys;
  /* ProgramW6432 is the 64-bit Program Files even for a 32-bit caller. */
  m = GetEnvironmentVariableW(L"ProgramW6432", w, MAX_PATH);
  if (m == 0 || m >= MAX_PATH)
    m = GetEnvironmentVariableW(L"ProgramFiles", w, MAX_PATH);
  if (m > 0 && m < MAX_PATH && plat__wide_to_utf8(w, dir, sizeof dir) == 0 &&
      cm_snprintf(plat__nvml_smi, sizeof plat__nvml_smi,
                  "%s\\NVIDIA Corporation\\NVSMI\\nvml.dll", dir) == CM_OK)
    plat__nvml_list[k++] = plat__nvml_smi;
  plat__nvml_list[k++] = "nvml.dll";
  plat__nvml_list[k] = NULL;
  return TRUE;
}

const char *const *plat_nvml_candidates(void) {
  static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
  InitOnceExecuteOnce(&once, plat__nvml_init, NULL, NULL);
  return plat__nvml_list;
}
