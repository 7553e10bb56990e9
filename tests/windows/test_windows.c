/* Tests of platform/win32: run under Wine in CI (windows-mingw preset) and
 * natively on Windows. Paths with spaces and non-ASCII characters, the
 * process-tree kill (job object and process-table walk), the counter
 * permission logic, and the rest of platform.h as Windows implements it. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "cm_test.h"
#include "cm_error.h"
#include "cm_file.h"
#include "cm_sha256.h"
#include "cm_str.h"
#include "platform.h"
#include "plat_win32.h"

#include <stdlib.h>
#include <uv.h>

/* "Zoë's runs" plus a CJK folder: UTF-8 spelled out so the source stays ASCII.
 */
#define UNI_DIR "Zo\xc3\xab's runs"
#define CJK_DIR "\xe7\xb5\x90\xe6\x9e\x9c"

static int write_text(const char *path, const char *text) {
  wchar_t *w = plat__utf8_to_wide(path, NULL);
  FILE *f = w != NULL ? _wfopen(w, L"wb") : NULL;
  free(w);
  if (f == NULL)
    return -1;
  fputs(text, f);
  return fclose(f) == 0 ? 0 : -1;
}

static int read_text(const char *path, char *buf, size_t size) {
  wchar_t *w = plat__utf8_to_wide(path, NULL);
  FILE *f = w != NULL ? _wfopen(w, L"rb") : NULL;
  size_t n;
  free(w);
  if (f == NULL)
    return -1;
  n = fread(buf, 1, size - 1, f);
  buf[n] = '\0';
  fclose(f);
  return 0;
}

TEST_IMPL(utf8_wide_roundtrip) {
  char back[64];
  int err = 0;
  wchar_t *w = plat__utf8_to_wide(UNI_DIR, &err);
  ASSERT_TRUE(w != NULL);
  ASSERT_EQ(err, CM_OK);
  ASSERT_EQ(wcslen(w), 10); /* ë is one UTF-16 unit, two UTF-8 bytes */
  ASSERT_EQ(w[2], 0xEB);
  ASSERT_OK(plat__wide_to_utf8(w, back, sizeof back));
  ASSERT_STR_EQ(back, UNI_DIR);
  ASSERT_EQ(plat__wide_to_utf8(w, back, 5), CM_ERANGE);
  ASSERT_STR_EQ(back, "");
  free(w);
  /* A lone continuation byte is not UTF-8: refused, not replaced. */
  ASSERT_TRUE(plat__utf8_to_wide("bad\x80name", &err) == NULL);
  ASSERT_EQ(err, CM_EINVAL);
  return 0;
}

TEST_IMPL(error_mapping) {
  ASSERT_EQ(plat__win_error(ERROR_FILE_NOT_FOUND), CM_ENOENT);
  ASSERT_EQ(plat__win_error(ERROR_PATH_NOT_FOUND), CM_ENOENT);
  ASSERT_EQ(plat__win_error(ERROR_ACCESS_DENIED), CM_EACCES);
  ASSERT_EQ(plat__win_error(ERROR_ALREADY_EXISTS), CM_EEXIST);
  ASSERT_EQ(plat__win_error(ERROR_DISK_FULL), CM_ENOSPC);
  /* as POSIX names them: a path too long, a file where a folder is
   * needed, a share that is not there or refused, a read-only medium */
  ASSERT_EQ(plat__win_error(ERROR_FILENAME_EXCED_RANGE), CM_ENAMETOOLONG);
  ASSERT_EQ(plat__win_error(ERROR_DIRECTORY), CM_ENOTDIR);
  ASSERT_EQ(plat__win_error(ERROR_BAD_NET_NAME), CM_ENOENT);
  ASSERT_EQ(plat__win_error(ERROR_NETWORK_ACCESS_DENIED), CM_EACCES);
  ASSERT_EQ(plat__win_error(ERROR_WRITE_PROTECT), CM_EACCES);
  ASSERT_EQ(plat__win_error(0xDEADu), CM_EIO);
  return 0;
}

TEST_IMPL(os_identity) {
  char rel[256];
  ASSERT_EQ(plat_os_detect(), PLAT_OS_WINDOWS);
  ASSERT_EQ(plat_os_detect_from("/proc/version", "Ubuntu"), PLAT_OS_WINDOWS);
  ASSERT_STR_EQ(plat_os_name(plat_os_detect()), "windows");
  ASSERT_STR_EQ(plat_os_name(PLAT_OS_WSL), "wsl");
  ASSERT_OK(plat_os_release(rel, sizeof rel));
  ASSERT_TRUE(cm_starts_with(rel, "Windows "));
  /* Under Wine the release line must say so (results from Wine are not
   * results from Windows). */
  if (GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version"))
    ASSERT_CONTAINS(rel, "(Wine ");
  ASSERT_OK(plat_hostname(rel, sizeof rel));
  ASSERT_TRUE(rel[0] != '\0');
  return 0;
}

TEST_IMPL(utc_format) {
  char buf[32], now[32];
  ASSERT_OK(plat_utc_format(0, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "1970-01-01T00:00:00Z");
  ASSERT_OK(plat_utc_format(951782400, buf, sizeof buf)); /* leap day */
  ASSERT_STR_EQ(buf, "2000-02-29T00:00:00Z");
  ASSERT_OK(plat_utc_format(1795950956, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "2026-11-29T11:15:56Z");
  ASSERT_OK(plat_utc_format(-1, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "1969-12-31T23:59:59Z");
  ASSERT_EQ(plat_utc_format(0, buf, 10), CM_ERANGE);
  ASSERT_OK(plat_utc_now(now, sizeof now));
  ASSERT_EQ(strlen(now), 20);
  ASSERT_TRUE(strcmp(now, "2024-01-01T00:00:00Z") > 0);
  return 0;
}

TEST_IMPL(monotonic) {
  double a = plat_monotonic_s(), b;
  Sleep(50);
  b = plat_monotonic_s();
  ASSERT_TRUE(b - a >= 0.040);
  ASSERT_TRUE(b - a < 5.0);
  return 0;
}

TEST_IMPL(mkdir_rename_unicode_spaces) {
  char dir[1024], a[1200], b[1200], text[64];
  ASSERT_OK(cm_snprintf(dir, sizeof dir, "%s\\" UNI_DIR "\\" CJK_DIR "\\x y",
                        cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(dir));
  ASSERT_EQ(plat_path_exists(dir), 1);
  ASSERT_OK(plat_mkdir_p(dir)); /* existing: still fine */
  /* Forward slashes are accepted too. */
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s/" UNI_DIR "/fwd/slash", dir));
  ASSERT_OK(plat_mkdir_p(a));
  ASSERT_EQ(plat_path_exists(a), 1);
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s\\new file.tmp", dir));
  ASSERT_OK(cm_snprintf(b, sizeof b, "%s\\manifest \xc3\xab.json", dir));
  ASSERT_EQ(write_text(a, "first"), 0);
  ASSERT_OK(plat_rename(a, b));
  ASSERT_EQ(plat_path_exists(a), 0);
  ASSERT_EQ(write_text(a, "second"), 0);
  ASSERT_OK(plat_rename(a, b)); /* replaces the existing target */
  ASSERT_EQ(read_text(b, text, sizeof text), 0);
  ASSERT_STR_EQ(text, "second");
  ASSERT_EQ(plat_rename(a, b), CM_ENOENT);
  /* A file in the way of a directory is an error, not success. */
  ASSERT_OK(cm_snprintf(a, sizeof a, "%s\\sub", b));
  ASSERT_TRUE(plat_mkdir_p(b) != CM_OK);
  ASSERT_TRUE(plat_mkdir_p(a) != CM_OK);
  return 0;
}

/* The project's file opens by UTF-8 name (cm_fopen, cm_remove, cm_read_file,
 * cm_sha256_file, cm_json_load_file, plat_write_file_atomic) reach a file
 * under "Zoe's runs" with its diaeresis and a CJK folder: the C runtime's
 * fopen took the ANSI code page, and repro under such a folder could open
 * none of its contracts. */
TEST_IMPL(fopen_utf8) {
  char dir[1024], p[1200], q[1200], hex[CM_SHA256_HEX_LEN], *text;
  size_t len;
  uint64_t size = 0;
  FILE *f;
  json_t *j;
  ASSERT_OK(cm_snprintf(dir, sizeof dir, "%s\\" UNI_DIR "\\" CJK_DIR,
                        cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(dir));
  ASSERT_OK(cm_snprintf(p, sizeof p, "%s\\r\xc3\xa9sultats.json", dir));
  f = cm_fopen(p, "wb");
  ASSERT_TRUE(f != NULL);
  ASSERT_TRUE(fputs("{\"a\": 1}", f) >= 0);
  ASSERT_EQ(fclose(f), 0);
  ASSERT_EQ(read_text(p, q, sizeof q), 0); /* the name _wfopen knows */
  ASSERT_STR_EQ(q, "{\"a\": 1}");
  ASSERT_OK(cm_read_file(p, &text, &len));
  ASSERT_EQ(len, 8);
  free(text);
  ASSERT_OK(cm_sha256_file(p, hex, &size));
  ASSERT_EQ(size, 8);
  j = cm_json_load_file(p, 0, NULL);
  ASSERT_TRUE(j != NULL);
  ASSERT_EQ(json_integer_value(json_object_get(j, "a")), 1);
  ASSERT_EQ(cm_json_dump_file(j, p, 0), 0);
  json_decref(j);
  ASSERT_OK(cm_snprintf(q, sizeof q, "%s\\atomic \xc3\xab.txt", dir));
  ASSERT_OK(plat_write_file_atomic(q, "x", 1));
  ASSERT_EQ(plat_path_exists(q), 1);
  ASSERT_EQ(cm_remove(q), 0);
  ASSERT_EQ(plat_path_exists(q), 0);
  ASSERT_EQ(cm_remove(p), 0);
  ASSERT_EQ(plat_path_exists(p), 0);
  /* an ANSI name (not UTF-8) is still opened as one */
  ASSERT_TRUE(cm_fopen("cp-no-such-\xe9.txt", "rb") == NULL);
  return 0;
}

TEST_IMPL(exe_path) {
  char p[1024];
  ASSERT_OK(plat_exe_path(p, sizeof p));
  ASSERT_TRUE(p[1] == ':' || (p[0] == '\\' && p[1] == '\\'));
  ASSERT_CONTAINS(p, "test_windows.exe");
  ASSERT_EQ(plat_path_exists(p), 1);
  ASSERT_EQ(plat_exe_path(p, 4), CM_ERANGE);
  return 0;
}

TEST_IMPL(dl_open_sym) {
  void *lib = plat_dl_open("kernel32.dll");
  DWORD (*tick)(void) = NULL;
  void *sym;
  ASSERT_TRUE(lib != NULL);
  sym = plat_dl_sym(lib, "GetTickCount");
  ASSERT_TRUE(sym != NULL);
  memcpy(&tick, &sym, sizeof sym);
  ASSERT_TRUE(tick() > 0);
  ASSERT_TRUE(plat_dl_sym(lib, "NoSuchFunctionAnywhere") == NULL);
  ASSERT_CONTAINS(plat_dl_error(), "NoSuchFunctionAnywhere");
  plat_dl_close(lib);
  ASSERT_TRUE(plat_dl_open("no such library 42.dll") == NULL);
  ASSERT_CONTAINS(plat_dl_error(), "no such library 42.dll");
  return 0;
}

TEST_IMPL(nvml_candidates) {
  const char *const *c = plat_nvml_candidates();
  char sys[MAX_PATH];
  int n = 0;
  ASSERT_TRUE(GetSystemDirectoryA(sys, MAX_PATH) > 0);
  while (c[n] != NULL)
    n++;
  ASSERT_EQ(n, 3);
  ASSERT_TRUE(cm_starts_with(c[0], sys));
  ASSERT_CONTAINS(c[0], "\\nvml.dll");
  ASSERT_CONTAINS(c[1], "\\NVIDIA Corporation\\NVSMI\\nvml.dll");
  ASSERT_STR_EQ(c[2], "nvml.dll");
  ASSERT_TRUE(plat_nvml_candidates() == c); /* built once */
  return 0;
}

TEST_IMPL(environ_utf8) {
  char **env, **again;
  int i, seen = 0;
  ASSERT_TRUE(SetEnvironmentVariableW(L"CP_TEST_VAR", L"caf\x00e9 \x7d50"));
  env = plat_environ();
  for (i = 0; env[i] != NULL; i++) {
    ASSERT_TRUE(env[i][0] != '='); /* per-drive folders are left out */
    if (strcmp(env[i], "CP_TEST_VAR=caf\xc3\xa9 \xe7\xb5\x90") == 0)
      seen = 1;
  }
  ASSERT_EQ(seen, 1);
  /* plat_getenv: the UTF-8 value, the name in any case (getenv gave the
   * ANSI code page's bytes) */
  ASSERT_STR_EQ(plat_getenv("CP_TEST_VAR"), "caf\xc3\xa9 \xe7\xb5\x90");
  ASSERT_STR_EQ(plat_getenv("cp_test_var"), "caf\xc3\xa9 \xe7\xb5\x90");
  ASSERT_TRUE(plat_getenv("CP_TEST_VA") == NULL);
  env = plat_environ();
  again = plat_environ();
  ASSERT_TRUE(again == env); /* unchanged environment: same array */
  ASSERT_TRUE(SetEnvironmentVariableW(L"CP_TEST_VAR", NULL));
  env = plat_environ();
  for (i = 0; env[i] != NULL; i++)
    ASSERT_TRUE(!cm_starts_with(env[i], "CP_TEST_VAR="));
  return 0;
}

TEST_IMPL(find_executable) {
  char dir[1024], exe[1200], found[1200];
  const char *extra[2];
  ASSERT_OK(
      cm_snprintf(dir, sizeof dir, "%s\\my tools " UNI_DIR, cm_test_tmpdir()));
  ASSERT_OK(plat_mkdir_p(dir));
  ASSERT_OK(cm_snprintf(exe, sizeof exe, "%s\\cp-fake-tool.exe", dir));
  ASSERT_EQ(write_text(exe, "MZ"), 0);
  extra[0] = dir;
  extra[1] = NULL;
  ASSERT_OK(plat_find_executable("cp-fake-tool", extra, found, sizeof found));
  ASSERT_STR_EQ(found, exe);
  ASSERT_OK(
      plat_find_executable("cp-fake-tool.exe", extra, found, sizeof found));
  ASSERT_STR_EQ(found, exe);
  ASSERT_EQ(plat_find_executable("cp-fake-tool", NULL, found, sizeof found),
            CM_ENOENT);
  ASSERT_EQ(plat_find_executable("cp-fake-tool", extra, found, 8), CM_ERANGE);
  /* Found on PATH: cmd.exe is in System32 on Windows and in Wine. */
  ASSERT_OK(plat_find_executable("cmd", NULL, found, sizeof found));
  ASSERT_CONTAINS(found, "cmd.exe");
  ASSERT_EQ(plat_path_list_sep(), ';');
  return 0;
}

/* Starts `self --helper NAME arg` through libuv as the runner does
 * (detached: a process group of its own, no console). */
static int spawn_helper(uv_loop_t *loop, uv_process_t *proc, const char *name,
                        const char *arg) {
  uv_process_options_t o;
  uv_stdio_container_t stdio[3];
  char *args[5];
  int i;
  memset(&o, 0, sizeof o);
  args[0] = (char *)cm_test_self_path();
  args[1] = "--helper";
  args[2] = (char *)name;
  args[3] = (char *)arg;
  args[4] = NULL;
  for (i = 0; i < 3; i++)
    stdio[i].flags = UV_IGNORE;
  o.file = args[0];
  o.args = args;
  o.stdio = stdio;
  o.stdio_count = 3;
  o.flags = UV_PROCESS_DETACHED | UV_PROCESS_WINDOWS_HIDE;
  return uv_spawn(loop, proc, &o);
}

/* Waits up to seconds for cond(pid) to become want. */
static int wait_alive(int pid, int want, double seconds) {
  double end = plat_monotonic_s() + seconds;
  while (plat_pid_alive(pid) != want) {
    if (plat_monotonic_s() > end)
      return 0;
    Sleep(20);
  }
  return 1;
}

/* Sleeps 120 s. With an argument, first writes its own pid to that file
 * (the UTF-8 command line's last word: the name has non-ASCII characters),
 * so that whoever reads the pid knows this process is up and running. */
HELPER_IMPL(sleeper) {
  char pid[32], **uargv = NULL;
  int uargc = 0;
  if (argc >= 1) {
    if (plat_utf8_argv(&uargc, &uargv) != CM_OK ||
        cm_snprintf(pid, sizeof pid, "%lu",
                    (unsigned long)GetCurrentProcessId()) ||
        write_text(uargv[uargc - 1], pid) != 0)
      return 2;
  }
  Sleep(120000);
  return 0;
}

HELPER_IMPL(exit_now) {
  return 3;
}

/* Starts a sleeper grandchild that writes its own pid to argv[0], then
 * sleeps: the shape of a stage that hangs with a child of its own.
 *
 * The grandchild, not this process, writes the pid: the test kills the tree
 * only once the grandchild runs. Killed earlier, under Wine, a grandchild
 * can be listed in no process snapshot yet (Wine lists a process once its
 * first thread runs), and the console host Wine started for it (a console
 * program whose parent has none gets a new console) waits for a client
 * that never comes, holding the test's stderr, which ctest reads until its
 * 120 s timeout (seen under load in CI). */
HELPER_IMPL(tree_parent) {
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  wchar_t self[MAX_PATH], cmd[MAX_PATH + 1100], *wpid;
  char **uargv = NULL;
  int uargc = 0;
  if (argc < 1 || plat_utf8_argv(&uargc, &uargv) != CM_OK ||
      !GetModuleFileNameW(NULL, self, MAX_PATH))
    return 2;
  wpid = plat__utf8_to_wide(uargv[uargc - 1], NULL);
  if (wpid == NULL)
    return 2;
  _snwprintf(cmd, sizeof cmd / sizeof cmd[0],
             L"\"%ls\" --helper sleeper \"%ls\"", self, wpid);
  cmd[sizeof cmd / sizeof cmd[0] - 1] = L'\0';
  free(wpid);
  memset(&si, 0, sizeof si);
  si.cb = sizeof si;
  if (!CreateProcessW(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
    return 2;
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  Sleep(120000);
  return 0;
}

/* Ends pid directly (a failed assertion must not leave a sleeper behind). */
static void end_pid(int pid) {
  HANDLE h = OpenProcess(PROCESS_TERMINATE, FALSE, (DWORD)pid);
  if (h != NULL) {
    TerminateProcess(h, 1);
    CloseHandle(h);
  }
}

static int kill_tree_case(int track) {
  uv_loop_t loop;
  uv_process_t proc;
  char pidfile[1024], text[32];
  int64_t gc = 0;
  double end;
  ASSERT_OK(cm_snprintf(pidfile, sizeof pidfile, "%s\\tree %d " UNI_DIR ".pid",
                        cm_test_tmpdir(), track));
  {
    wchar_t *w = plat__utf8_to_wide(pidfile, NULL); /* a stale file */
    ASSERT_TRUE(w != NULL);
    DeleteFileW(w);
    free(w);
  }
  ASSERT_OK(uv_loop_init(&loop));
  memset(&proc, 0, sizeof proc);
  ASSERT_OK(spawn_helper(&loop, &proc, "tree_parent", pidfile));
  if (track) {
    HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, (DWORD)proc.pid);
    BOOL in = FALSE, ok;
    ASSERT_OK(plat_tree_track(proc.pid));
    ok = h != NULL && IsProcessInJob(h, NULL, &in);
    if (h != NULL)
      CloseHandle(h);
    if (!ok || !in)
      plat_kill_tree(proc.pid, 1); /* leave nothing running */
    ASSERT_TRUE(ok);
    ASSERT_TRUE(in); /* the job, not only the table walk, holds the tree */
  }
  end = plat_monotonic_s() + 30.0;
  while (read_text(pidfile, text, sizeof text) != 0 || text[0] == '\0') {
    if (plat_monotonic_s() > end) {
      plat_kill_tree(proc.pid, 1); /* leave nothing running */
      ASSERT_TRUE(!"the helper wrote no pid file within 30 s");
    }
    Sleep(20);
  }
  if (cm_parse_i64(text, &gc) != CM_OK || gc <= 0) {
    plat_kill_tree(proc.pid, 1);
    ASSERT_TRUE(!"the pid file holds no pid");
  }
  ASSERT_EQ(plat_pid_alive((int)gc), 1);
  ASSERT_EQ(plat_pid_alive(proc.pid), 1);
  {
    int rc = plat_kill_tree(proc.pid, 1);
    int parent_gone = wait_alive(proc.pid, 0, 10.0);
    int gc_gone = wait_alive((int)gc, 0, 10.0);
    if (!parent_gone)
      end_pid(proc.pid);
    if (!gc_gone)
      end_pid((int)gc);
    ASSERT_OK(rc);
    ASSERT_TRUE(parent_gone);
    ASSERT_TRUE(gc_gone); /* the walk found the grandchild */
  }
  /* Nothing left to end: said so, not an error for the caller. */
  ASSERT_EQ(plat_kill_tree(proc.pid, 1), CM_ENOENT);
  uv_close((uv_handle_t *)&proc, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ASSERT_OK(uv_loop_close(&loop));
  return 0;
}

TEST_IMPL(pid_alive) {
  uv_loop_t loop;
  uv_process_t proc;
  int pid;
  ASSERT_EQ(plat_pid_alive((int)GetCurrentProcessId()), 1);
  ASSERT_EQ(plat_pid_alive(0), 0);
  ASSERT_OK(uv_loop_init(&loop));
  memset(&proc, 0, sizeof proc);
  ASSERT_OK(spawn_helper(&loop, &proc, "exit_now", "x"));
  pid = proc.pid;
  ASSERT_TRUE(wait_alive(pid, 0, 20.0));
  uv_close((uv_handle_t *)&proc, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ASSERT_OK(uv_loop_close(&loop));
  return 0;
}

/* Job object: the child is assigned right after uv_spawn. */
TEST_IMPL(kill_tree_tracked) {
  return kill_tree_case(1);
}

/* No job: the process-table walk alone must find the grandchild. */
TEST_IMPL(kill_tree_untracked) {
  return kill_tree_case(0);
}

TEST_IMPL(counter_permission_file) {
  char path[1024];
  plat_counter_perm p;
  ASSERT_OK(
      cm_snprintf(path, sizeof path, "%s\\params " UNI_DIR, cm_test_tmpdir()));
  ASSERT_EQ(write_text(path, "ResmanDebugLevel: 4294967295\n"
                             "RmProfilingAdminOnly: 1\n"),
            0);
  ASSERT_OK(plat_counter_permission(path, 0, &p));
  ASSERT_EQ(p.params_found, 1);
  ASSERT_EQ(p.admin_only, 1);
  ASSERT_EQ(p.allowed, 0);
  ASSERT_CONTAINS(p.detail, "elevated");
  ASSERT_OK(plat_counter_permission(path, 1, &p));
  ASSERT_EQ(p.allowed, 1);
  ASSERT_EQ(write_text(path, "RmProfilingAdminOnly: 0\n"), 0);
  ASSERT_OK(plat_counter_permission(path, 0, &p));
  ASSERT_EQ(p.admin_only, 0);
  ASSERT_EQ(p.allowed, 1);
  ASSERT_OK(
      cm_snprintf(path, sizeof path, "%s\\no such file", cm_test_tmpdir()));
  ASSERT_OK(plat_counter_permission(path, 0, &p));
  ASSERT_EQ(p.params_found, 0);
  ASSERT_EQ(p.admin_only, -1);
  ASSERT_EQ(p.allowed, 0);
  /* The machine's own registry: no NVIDIA driver under Wine, so the key is
   * absent; on a real machine any of the three answers is valid. */
  ASSERT_OK(plat_counter_permission(NULL, 0, &p));
  ASSERT_EQ(p.admin_only, plat__win_admin_only_from_registry() >= 0
                              ? plat__win_admin_only_from_registry()
                              : -1);
  ASSERT_EQ(p.allowed, p.admin_only == 0);
  ASSERT_TRUE(p.detail[0] != '\0');
  return 0;
}

/* What a Windows main() sees: the UTF-8 form of its own command line. */
TEST_IMPL(utf8_argv) {
  int argc = 0;
  char **argv = NULL;
  ASSERT_OK(plat_utf8_argv(&argc, &argv));
  ASSERT_EQ(argc, 2); /* test_windows.exe utf8_argv */
  ASSERT_CONTAINS(argv[0], "test_windows");
  ASSERT_STR_EQ(argv[1], "utf8_argv");
  ASSERT_TRUE(argv[2] == NULL);
  return 0;
}

TEST_IMPL(parse_admin_only) {
  ASSERT_EQ(plat_parse_admin_only("RmProfilingAdminOnly: 1\n"), 1);
  ASSERT_EQ(plat_parse_admin_only("A: 2\nRmProfilingAdminOnly: 0\n"), 0);
  ASSERT_EQ(plat_parse_admin_only("RmProfilingAdminOnly=1"), 1);
  ASSERT_EQ(plat_parse_admin_only("RmProfilingAdminOnly: x"), -1);
  ASSERT_EQ(plat_parse_admin_only("nothing here"), -1);
  /* Only at a line start, as the POSIX parser (test_repro_unit too). */
  ASSERT_EQ(plat_parse_admin_only("XRmProfilingAdminOnly: 0\n"), -1);
  ASSERT_EQ(plat_parse_admin_only("XRmProfilingAdminOnly: 0\n"
                                  "RmProfilingAdminOnly: 1\n"),
            1);
  ASSERT_EQ(plat_parse_admin_only(NULL), -1);
  return 0;
}

TEST_IMPL(is_privileged) {
  HANDLE tok;
  TOKEN_ELEVATION el;
  DWORD sz = sizeof el;
  int p = plat_is_privileged();
  ASSERT_TRUE(p == 0 || p == 1);
  /* Same answer as asking the token directly. */
  ASSERT_TRUE(OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok));
  ASSERT_TRUE(GetTokenInformation(tok, TokenElevation, &el, sz, &sz));
  CloseHandle(tok);
  ASSERT_EQ(p, el.TokenIsElevated != 0);
  return 0;
}

/* Under ctest, stdout is a pipe: no console, so no colours and no tty. */
TEST_IMPL(console_init_pipe) {
  ASSERT_EQ(plat_isatty(1), 0);
  ASSERT_EQ(plat_console_init(1), 0);
  ASSERT_EQ(plat_console_init(5), 0);
  return 0;
}
