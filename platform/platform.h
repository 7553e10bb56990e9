/* platform.h: what differs between POSIX and Windows, behind one header.
 *
 * The split is whole files chosen in CMake (posix/ or win32/), never #ifdef
 * inside a function (the libuv model). Every function returns CM_OK or a
 * negative cm_error (see src/common/cm_error.h) unless stated otherwise, and
 * never exits the process. Buffers are caller-owned and bounded.
 */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  PLAT_OS_LINUX = 0,
  PLAT_OS_WSL = 1,
  PLAT_OS_WINDOWS = 2,
  PLAT_OS_OTHER = 3
} plat_os;

/* Which environment this process runs in. Linux and WSL are told apart by
 * WSL_DISTRO_NAME or "microsoft" in /proc/version (the path can be overridden
 * for tests with plat_os_detect_from). */
plat_os plat_os_detect(void);
/* As plat_os_detect, reading the given /proc/version-like file and the given
 * value of WSL_DISTRO_NAME (either may be NULL). POSIX only: on Windows it
 * returns PLAT_OS_WINDOWS. */
plat_os plat_os_detect_from(const char *proc_version_path,
                            const char *wsl_distro_name);
/* "linux", "wsl", "windows" or "other": the strings used in JSON. */
const char *plat_os_name(plat_os os);
/* A one-line description of the OS and kernel (uname or Windows version). */
int plat_os_release(char *buf, size_t size);

int plat_hostname(char *buf, size_t size);
/* Absolute path of the running executable. */
int plat_exe_path(char *buf, size_t size);
/* Current UTC time as ISO 8601 with seconds, "2026-11-29T11:15:56Z". */
int plat_utc_now(char *buf, size_t size);
/* Same format for a given epoch time in seconds. */
int plat_utc_format(int64_t epoch_s, char *buf, size_t size);
/* Seconds from an arbitrary fixed point, monotonic, sub-microsecond. */
double plat_monotonic_s(void);
/* 1 if the stream (0 stdin, 1 stdout, 2 stderr) is a terminal. */
int plat_isatty(int fd);

/* Creates a directory and its parents (like mkdir -p). */
int plat_mkdir_p(const char *path);
/* Renames from to to, replacing to if it exists, atomically where the OS can. */
int plat_rename(const char *from, const char *to);
/* 1 if path names an existing regular file or directory, else 0. */
int plat_path_exists(const char *path);

/* Dynamic libraries: NULL on failure; plat_dl_error describes the last one. */
void *plat_dl_open(const char *name);
void *plat_dl_sym(void *lib, const char *symbol);
void plat_dl_close(void *lib);
const char *plat_dl_error(void);
/* NULL-terminated list of names/paths to try for NVML, most likely first
 * (libnvidia-ml.so.1 on Linux; nvml.dll in System32 or NVSMI on Windows). */
const char *const *plat_nvml_candidates(void);

#endif
