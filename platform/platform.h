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

/* A program's main() calls these two first, before it reads argv or prints.
 *
 * plat_utf8_argv replaces *argc and *argv with the UTF-8 form of the
 * command line. POSIX: a no-op (argv is already the bytes the user typed),
 * CM_OK. Windows: main()'s argv arrives in the ANSI code page, where a path
 * like "Zoe's runs" with a diaeresis, or one in CJK, is lost, so the array is
 * rebuilt from GetCommandLineW; it is allocated once and lives until the
 * process ends (never freed, like argv). Returns CM_OK, CM_ENOMEM or
 * CM_EINVAL; on error *argc and *argv are left as they were. */
int plat_utf8_argv(int *argc, char ***argv);

/* Prepares the stream fd (1 stdout, 2 stderr) for text and colour. Returns
 * 1 when ANSI colour sequences may be written to it, 0 otherwise (a pipe,
 * a file, a bad fd). POSIX: 1 exactly when fd is a terminal; nothing is
 * changed. Windows: on a console, sets the output code page to UTF-8 and
 * enables virtual-terminal processing; 1 when the console accepts it
 * (Windows 10 and later), 0 for older consoles, pipes and files. */
int plat_console_init(int fd);
/* Makes a write to a pipe whose reader has gone, or a write past the file
 * size limit (ulimit -f), fail with an error (EPIPE, EFBIG) instead of
 * ending the process. POSIX: SIGPIPE and SIGXFSZ ignored (their defaults
 * kill: `./repro all | tee run.log` whose tee dies on Ctrl-C, or a bundle
 * larger than the limit, would take repro down before it closes its logs
 * and writes the manifest; children started through libuv get the
 * defaults back). Windows: a no-op (both are errors there). */
void plat_ignore_write_signals(void);
/* Number of CPUs online now (all processor groups on Windows), >= 1; 1 if
 * the OS cannot tell. Used to size CPU worker pools. */
int plat_cpu_count(void);
/* Physical memory available to a new allocation now, in bytes, into *bytes
 * (Linux: /proc/meminfo's MemAvailable, which counts the page cache the
 * kernel can drop; Windows: GlobalMemoryStatusEx's ullAvailPhys). Returns
 * CM_OK, or CM_ENOTSUP where the OS does not say (*bytes untouched). */
int plat_mem_available(uint64_t *bytes);

/* The file functions from here to plat_probe_write_atomic take UTF-8
 * paths; on Windows one of 248 UTF-16 units or more goes to the OS in the
 * extended form, "\\?\C:\..." (cm_path.h), so folders of any depth work
 * without the system's long-path setting. */

/* Creates a directory and its parents (like mkdir -p). */
int plat_mkdir_p(const char *path);
/* Creates the one directory path, whose parent must exist, and only if
 * nothing is there yet: CM_EEXIST when path already exists (a directory
 * or a file), so that a caller who gets CM_OK knows the directory is its
 * own and no other process writes into it (plat_mkdir_p counts an existing
 * directory as success). Other failures as a cm_error (CM_ENOENT for a
 * missing parent, CM_ENOTDIR or CM_ENOENT where a file stands in the
 * parent's place, CM_EACCES, CM_ENOSPC, ...). */
int plat_mkdir_new(const char *path);
/* Renames from to to, replacing to if it exists, atomically where the OS can.
 */
int plat_rename(const char *from, const char *to);
/* 1 if path names an existing regular file or directory, else 0. */
int plat_path_exists(const char *path);
/* 1 if path names an existing directory, else 0. */
int plat_path_is_dir(const char *path);
/* 1 if path names something that exists and is neither a regular file nor
 * a directory (a device such as /dev/null, a FIFO, a socket; on Windows a
 * device), else 0. */
int plat_path_is_special(const char *path);
/* Writes len bytes of buf to path through "path.tmp" and plat_rename, so a
 * reader never sees half a file; the temporary is removed on failure.
 * Returns CM_OK, CM_EINVAL, the temporary's fopen failure as a cm_error
 * (CM_ENOENT for a missing folder, CM_EACCES, ...), CM_EIO for a failed
 * write, or plat_rename's error. No fsync: for
 * files that must survive a crash, repro's archive has its own writer. */
int plat_write_file_atomic(const char *path, const void *buf, size_t len);
/* The checks of plat_probe_write_atomic that write nothing: path is not
 * empty (CM_EINVAL), not a directory (CM_EEXIST), nor a device, FIFO or
 * socket (CM_EINVAL: the rename would replace it). CM_OK otherwise. */
int plat_check_write_target(const char *path);
/* Checks, before the work that produces it, that plat_write_file_atomic
 * could write path: plat_check_write_target's checks, and a file
 * beside it can be created ("path.tmp-probe", created empty and removed
 * again; otherwise the fopen failure as a cm_error: CM_ENOENT for a missing
 * folder, CM_EACCES, ...). An existing file at path, and at "path.tmp", is
 * left as it is. */
int plat_probe_write_atomic(const char *path);

/* The suffix executables carry on this OS: "" on POSIX, ".exe" on Windows.
 * Static string, never NULL. */
const char *plat_exe_suffix(void);

/* Dynamic libraries: NULL on failure; plat_dl_error describes the last one. */
void *plat_dl_open(const char *name);
void *plat_dl_sym(void *lib, const char *symbol);
void plat_dl_close(void *lib);
const char *plat_dl_error(void);
/* NULL-terminated list of names/paths to try for NVML, most likely first
 * (libnvidia-ml.so.1 on Linux; nvml.dll in System32 or NVSMI on Windows). */
const char *const *plat_nvml_candidates(void);

/* ---- What the repro runner needs: processes, environment, rights ---- */

/* The process's environment as a NULL-terminated "NAME=value" array. The
 * array is owned by the C runtime: read it, do not free or keep it across a
 * setenv/putenv. Never NULL (an empty array when there is none). */
char **plat_environ(void);
/* The value of the environment variable name, in UTF-8, or NULL when it is
 * not set. POSIX: getenv. Windows: the C runtime's getenv answers in the
 * ANSI code page (a REPRO_ROOT under "Zoë" came back as bytes no UTF-8 call
 * could use), so the name is looked up in plat_environ's UTF-8 copy,
 * ignoring case as Windows does. The string is valid until the environment
 * changes. */
const char *plat_getenv(const char *name);

/* Ends the process tree led by pid. POSIX: the runner spawns every child as
 * the leader of a new session/process group (UV_PROCESS_DETACHED), so this
 * signals the whole group: SIGTERM when force is 0, SIGKILL when force is 1.
 * Windows: the job object plat_tree_track assigned the child to is
 * terminated (force is ignored there). Returns CM_OK, or CM_ENOENT when no
 * such group is left (not an error for callers that just want it gone).
 * Only the group is signalled, never the bare pid: after the leader has been
 * reaped its pid may belong to an unrelated process. */
int plat_kill_tree(int pid, int force);

/* Tree tracking around one spawned child. The runner calls plat_tree_track
 * right after spawning pid and plat_tree_release once the step is over.
 * POSIX: nothing to do (the child leads its own process group), CM_OK.
 * Windows: creates a job object, assigns pid to it (children it starts join
 * the job), and remembers it for plat_kill_tree; release closes it. */
int plat_tree_track(int pid);
void plat_tree_release(int pid);

/* 1 if the process pid still runs (a zombie counts as gone), else 0. */
int plat_pid_alive(int pid);

/* Counter permission for NVIDIA's performance counters (what ncu needs).
 * The driver restricts counters to admins when RmProfilingAdminOnly is 1.
 * Linux keeps it in the params file (/proc/driver/nvidia/params), and an
 * admin is root or a process with CAP_SYS_ADMIN in its effective set.
 * Windows keeps it in the registry, value RmProfilingAdminOnly under
 * HKLM\SYSTEM\CurrentControlSet\Services\nvlddmkm\Global\NVTweak (absent
 * means the driver's default, admins only), and an admin is an elevated
 * process. WSL has no setting of its own: the Windows host's applies. */
typedef struct {
  int params_found; /* 1 if the params file (or registry key) was read */
  int admin_only;   /* RmProfilingAdminOnly value; -1 if not present */
  int privileged;   /* root/CAP_SYS_ADMIN, or elevated (plat_is_privileged) */
  int allowed;      /* counters usable: admin_only == 0, or privileged */
  char detail[256]; /* one sentence saying why, for doctor and manifest */
} plat_counter_perm;

/* Fills *out. params_path NULL means the system's setting (Linux:
 * /proc/driver/nvidia/params; Windows: the NVTweak registry value above);
 * tests pass a fabricated params-like file, which Windows reads too.
 * privileged < 0 means "ask plat_is_privileged()", 0 or 1 forces the answer
 * (for tests). A missing file or key is not an error: params_found = 0,
 * allowed = 0 unless privileged, and detail says so. allowed is admin_only
 * == 0 or privileged on both; a missing value on Windows counts as 1 (the
 * driver's default). The Windows fix the detail names: an elevated prompt,
 * or NVIDIA Control Panel > Developer > Manage GPU Performance Counters. */
int plat_counter_permission(const char *params_path, int privileged,
                            plat_counter_perm *out);

/* Pure parser behind plat_counter_permission: finds "RmProfilingAdminOnly:
 * N" in the params file's text. Returns N (0 or 1) or -1 when absent. */
int plat_parse_admin_only(const char *params_text);

#ifndef _WIN32
/* Pure parser behind plat_is_privileged on Linux: CAP_SYS_ADMIN (bit 21)
 * of the "CapEff:" line of /proc/self/status's text. 1 or 0, -1 when the
 * line is absent or unreadable. */
int plat_parse_cap_sys_admin(const char *status_text);
#endif

/* 1 if the effective user may read counters regardless of the driver
 * setting: POSIX effective uid 0 or CAP_SYS_ADMIN (bit 21) in the CapEff
 * line of /proc/self/status; Windows: an elevated token. */
int plat_is_privileged(void);

/* Number of NVIDIA GPUs the driver lists (Linux: entries of
 * /proc/driver/nvidia/gpus, or of dir when not NULL, for tests). Returns
 * CM_OK with *count (0 when the folder is absent), CM_ENOTSUP where the OS has
 * no such listing (Windows: use nvidia-smi -L instead). */
int plat_nvidia_gpu_count(const char *dir, int *count);

/* Looks for an executable named name: in each folder of PATH, then in each
 * folder of the NULL-terminated extra_dirs (may be NULL). Writes the full
 * path into buf. Windows appends ".exe" when name has no extension. Returns
 * CM_OK, CM_ENOENT when not found, CM_ERANGE if buf is too small. */
int plat_find_executable(const char *name, const char *const *extra_dirs,
                         char *buf, size_t size);

/* Separator of PATH-like lists: ':' on POSIX, ';' on Windows. */
char plat_path_list_sep(void);

#endif
