/* POSIX (Linux, WSL) implementation of platform.h. */
#define _GNU_SOURCE
#include "platform.h"
#include "cm_error.h"
#include "cm_str.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
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

/* POSIX hands main() the bytes as typed; the project assumes UTF-8. */
int plat_utf8_argv(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return CM_OK;
}

/* A terminal takes ANSI colours as is; there is nothing to switch on. */
int plat_console_init(int fd) {
  return (fd == 1 || fd == 2) && isatty(fd) ? 1 : 0;
}

void plat_ignore_write_signals(void) {
  (void)signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
  (void)signal(SIGXFSZ, SIG_IGN);
#endif
}

int plat_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 65536 ? 65536 : (int)n;
}

int plat_mem_available(uint64_t *bytes) {
  char line[256];
  unsigned long long kb;
  int r = CM_ENOTSUP;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f == NULL)
    return CM_ENOTSUP;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
      *bytes = (uint64_t)kb * 1024u;
      r = CM_OK;
      break;
    }
  fclose(f);
  return r;
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

int plat_mkdir_new(const char *path) {
  if (mkdir(path, 0777) != 0)
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

int plat_path_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 1 : 0;
}

int plat_path_is_special(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)
             ? 1
             : 0;
}

const char *plat_exe_suffix(void) {
  return "";
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
  static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so",
                                      "/usr/lib/wsl/lib/libnvidia-ml.so.1",
                                      NULL};
  return names;
}

/* ---- Processes, environment and permissions (the repro runner) ---- */

extern char **environ;

const char *plat_getenv(const char *name) {
  return getenv(name);
}

char **plat_environ(void) {
  static char *empty[] = {NULL};
  return environ != NULL ? environ : empty;
}

int plat_kill_tree(int pid, int force) {
  int sig = force ? SIGKILL : SIGTERM;
  if (pid <= 0)
    return CM_EINVAL;
  /* The child leads its own process group (spawned detached), so the
   * negative pid reaches every descendant that did not leave the group. */
  if (kill(-(pid_t)pid, sig) == 0)
    return CM_OK;
  return errno == ESRCH ? CM_ENOENT : cm_error_from_errno(errno);
}

int plat_tree_track(int pid) {
  return pid > 0 ? CM_OK : CM_EINVAL;
}

void plat_tree_release(int pid) {
  (void)pid;
}

int plat_pid_alive(int pid) {
  char path[64], buf[512];
  FILE *f;
  char *rp;
  if (pid <= 0)
    return 0;
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
    return 0;
  /* kill(pid, 0) succeeds on a zombie; its state letter follows the
   * command name's closing parenthesis in /proc/<pid>/stat. */
  if (cm_snprintf(path, sizeof path, "/proc/%d/stat", pid) != CM_OK)
    return 1;
  f = fopen(path, "r");
  if (f == NULL)
    return 1;
  if (fgets(buf, sizeof buf, f) == NULL)
    buf[0] = '\0';
  fclose(f);
  rp = strrchr(buf, ')');
  if (rp != NULL && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'))
    return 0;
  return 1;
}

int plat_parse_admin_only(const char *text) {
  const char *key = "RmProfilingAdminOnly:";
  const char *p = text;
  while (p != NULL && (p = strstr(p, key)) != NULL) {
    /* Only a match at the start of a line counts. */
    if (p == text || p[-1] == '\n') {
      p += strlen(key);
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '0' || *p == '1')
        return *p - '0';
      return -1;
    }
    p += strlen(key);
  }
  return -1;
}

int plat_parse_cap_sys_admin(const char *text) {
  const char *key = "CapEff:";
  const char *p = text;
  while (p != NULL && (p = strstr(p, key)) != NULL) {
    if (p == text || p[-1] == '\n') {
      unsigned long long caps;
      char *end;
      p += strlen(key);
      errno = 0;
      caps = strtoull(p, &end, 16);
      if (errno != 0 || end == p)
        return -1;
      return (caps >> 21) & 1ull ? 1 : 0; /* CAP_SYS_ADMIN is bit 21 */
    }
    p += strlen(key);
  }
  return -1;
}

/* What the driver checks is the capability, not the uid: root in a
 * container without CAP_SYS_ADMIN (Docker's default) may not read the
 * counters. The uid decides only where the capabilities cannot be read. */
int plat_is_privileged(void) {
  char text[8192];
  size_t n;
  int cap;
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL)
    return geteuid() == 0;
  n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  cap = plat_parse_cap_sys_admin(text);
  return cap >= 0 ? cap : geteuid() == 0;
}

int plat_counter_permission(const char *params_path, int privileged,
                            plat_counter_perm *out) {
  char text[16384];
  size_t n;
  FILE *f;
  const char *path =
      params_path != NULL ? params_path : "/proc/driver/nvidia/params";
  memset(out, 0, sizeof *out);
  out->admin_only = -1;
  out->privileged = privileged < 0 ? plat_is_privileged() : privileged != 0;
  f = fopen(path, "r");
  if (f != NULL) {
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    out->params_found = 1;
    out->admin_only = plat_parse_admin_only(text);
  }
  if (!out->params_found) {
    out->allowed = out->privileged;
    return cm_snprintf(out->detail, sizeof out->detail,
                       "%s not readable (no NVIDIA driver?); %s", path,
                       out->privileged ? "privileged user"
                                       : "unprivileged user");
  }
  if (out->admin_only == 0) {
    out->allowed = 1;
    return cm_snprintf(out->detail, sizeof out->detail,
                       "RmProfilingAdminOnly=0 in %s: counters open to all "
                       "users",
                       path);
  }
  out->allowed = out->privileged;
  if (out->admin_only < 0)
    return cm_snprintf(out->detail, sizeof out->detail,
                       "RmProfilingAdminOnly not found in %s; %s", path,
                       out->privileged ? "privileged user: allowed"
                                       : "unprivileged user: assume denied");
  return cm_snprintf(out->detail, sizeof out->detail,
                     "RmProfilingAdminOnly=1 in %s and the effective user %s",
                     path,
                     out->privileged ? "is root or has CAP_SYS_ADMIN"
                                     : "is neither root nor CAP_SYS_ADMIN");
}

int plat_nvidia_gpu_count(const char *dir, int *count) {
  DIR *d = opendir(dir != NULL ? dir : "/proc/driver/nvidia/gpus");
  struct dirent *e;
  *count = 0;
  if (d == NULL)
    return CM_OK;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      (*count)++;
  closedir(d);
  return CM_OK;
}

static int plat__try_exe(const char *dir, size_t dlen, const char *name,
                         char *buf, size_t size) {
  struct stat st;
  if (dlen == 0) {
    dir = ".";
    dlen = 1;
  }
  if (cm_snprintf(buf, size, "%.*s/%s", (int)dlen, dir, name) != CM_OK)
    return CM_ERANGE;
  if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
    return CM_OK;
  return CM_ENOENT;
}

int plat_find_executable(const char *name, const char *const *extra_dirs,
                         char *buf, size_t size) {
  const char *path = getenv("PATH");
  const char *p;
  size_t i;
  if (name == NULL || *name == '\0' || size == 0)
    return CM_EINVAL;
  if (strchr(name, '/') != NULL) {
    if (access(name, X_OK) != 0)
      return CM_ENOENT;
    return cm_strlcpy(buf, name, size);
  }
  for (p = path; p != NULL && *p != '\0';) {
    const char *colon = strchr(p, ':');
    size_t len = colon != NULL ? (size_t)(colon - p) : strlen(p);
    if (plat__try_exe(p, len, name, buf, size) == CM_OK)
      return CM_OK;
    p = colon != NULL ? colon + 1 : NULL;
  }
  for (i = 0; extra_dirs != NULL && extra_dirs[i] != NULL; i++)
    if (plat__try_exe(extra_dirs[i], strlen(extra_dirs[i]), name, buf, size) ==
        CM_OK)
      return CM_OK;
  buf[0] = '\0';
  return CM_ENOENT;
}

char plat_path_list_sep(void) {
  return ':';
}
