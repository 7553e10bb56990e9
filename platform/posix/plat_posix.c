/* POSIX (Linux, WSL) implementation of platform.h. */
#define _GNU_SOURCE
#include "platform.h"
#include "cm_error.h"
#include "cm_str.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

plat_os plat_os_detect_from(const char *proc_version_path,
                            const char *wsl_distro_name) {
  char line[512];
  FILE *f;
  if (wsl_distro_name != NULL && *wsl_distro_name != '\0')
    return PLAT_OS_WSL;
  if (proc_version_path == NULL)
    return PLAT_OS_LINUX;
  f = fopen(proc_version_path, "r");
  if (f == NULL)
    return PLAT_OS_LINUX;
  if (fgets(line, sizeof line, f) == NULL)
    line[0] = '\0';
  fclose(f);
  if (strstr(line, "microsoft") != NULL || strstr(line, "Microsoft") != NULL ||
      strstr(line, "WSL") != NULL)
    return PLAT_OS_WSL;
  return PLAT_OS_LINUX;
}

plat_os plat_os_detect(void) {
  return plat_os_detect_from("/proc/version", getenv("WSL_DISTRO_NAME"));
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

int plat_os_release(char *buf, size_t size) {
  struct utsname u;
  if (uname(&u) != 0)
    return cm_error_from_errno(errno);
  return cm_snprintf(buf, size, "%s %s %s", u.sysname, u.release, u.machine);
}

int plat_hostname(char *buf, size_t size) {
  if (size == 0)
    return CM_EINVAL;
  if (gethostname(buf, size) != 0)
    return cm_error_from_errno(errno);
  buf[size - 1] = '\0';
  return CM_OK;
}

int plat_exe_path(char *buf, size_t size) {
  ssize_t n;
  if (size == 0)
    return CM_EINVAL;
  n = readlink("/proc/self/exe", buf, size - 1);
  if (n < 0)
    return cm_error_from_errno(errno);
  if ((size_t)n >= size - 1)
    return CM_ERANGE;
  buf[n] = '\0';
  return CM_OK;
}

int plat_utc_format(int64_t epoch_s, char *buf, size_t size) {
  struct tm tm;
  time_t t = (time_t)epoch_s;
  if (gmtime_r(&t, &tm) == NULL)
    return CM_ERANGE;
  if (strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    return CM_ERANGE;
  return CM_OK;
}

int plat_utc_now(char *buf, size_t size) {
  return plat_utc_format((int64_t)time(NULL), buf, size);
}

double plat_monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int plat_isatty(int fd) {
  return isatty(fd) ? 1 : 0;
}

int plat_mkdir_p(const char *path) {
  char tmp[4096];
  char *p;
  if (cm_strlcpy(tmp, path, sizeof tmp) != CM_OK)
    return CM_ERANGE;
  for (p = tmp + 1; *p != '\0'; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
      return cm_error_from_errno(errno);
    *p = '/';
  }
  if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
    return cm_error_from_errno(errno);
  return CM_OK;
}

int plat_rename(const char *from, const char *to) {
  if (rename(from, to) != 0)
    return cm_error_from_errno(errno);
  return CM_OK;
}

int plat_path_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? 1 : 0;
}

void *plat_dl_open(const char *name) {
  return dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

void *plat_dl_sym(void *lib, const char *symbol) {
  return dlsym(lib, symbol);
}

void plat_dl_close(void *lib) {
  if (lib != NULL)
    dlclose(lib);
}

const char *plat_dl_error(void) {
  const char *e = dlerror();
  return e != NULL ? e : "no error";
}

const char *const *plat_nvml_candidates(void) {
  static const char *const names[] = {
      "libnvidia-ml.so.1", "libnvidia-ml.so",
      "/usr/lib/wsl/lib/libnvidia-ml.so.1", NULL};
  return names;
}
