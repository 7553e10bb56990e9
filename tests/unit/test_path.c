/* cm_path.h: the extended ("\\?\") spelling of long Windows paths. The
 * conversion is plain string work, so these run on Linux and under Wine
 * alike; only path_os differs by OS. */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_path.h"
#include "cm_str.h"
#include "platform.h"

#include <string.h>

/* Ten components of 29 characters joined by sep: 299 characters, well past
 * CM_PATH_WIN_LONG on any root. */
static const char *tail(char sep) {
  static char buf[2][400];
  char *b = buf[sep == '/'];
  size_t n = 0;
  int i;
  for (i = 0; i < 10; i++) {
    if (i > 0)
      b[n++] = sep;
    n += (size_t)snprintf(b + n, sizeof buf[0] - n,
                          "nest-%02d-abcdefghijklmnopqrstu", i);
  }
  return b;
}

/* s with '@' spelled as tail('\\') and '#' as tail('/'), into out[size]. */
static const char *expand(const char *s, char *out, size_t size) {
  size_t n = 0;
  if (s == NULL)
    return NULL;
  for (; *s != '\0' && n + 1 < size; s++) {
    const char *t = *s == '@' ? tail('\\') : *s == '#' ? tail('/') : NULL;
    size_t len = t != NULL ? strlen(t) : 1;
    if (n + len >= size)
      break;
    memcpy(out + n, t != NULL ? t : s, len);
    n += len;
  }
  out[n] = '\0';
  return out;
}

/* path converted against cwd, into a static buffer ("(error)" on failure) */
static const char *ext(const char *path, const char *cwd) {
  static char out[2048];
  if (cm_path_win_extended(path, cwd, out, sizeof out) != CM_OK)
    return "(error)";
  return out;
}

/* path, converted against cwd, must give want ('@' and '#' as in expand). */
typedef struct {
  const char *path, *cwd, *want;
} path_case;

static int check_cases(const path_case *c, size_t n) {
  char path[1024], cwd[1024], want[1024], out[2048];
  size_t i;
  for (i = 0; i < n; i++) {
    int r = cm_path_win_extended(expand(c[i].path, path, sizeof path),
                                 expand(c[i].cwd, cwd, sizeof cwd), out,
                                 sizeof out);
    if (r != CM_OK)
      printf("case %u: %s\n", (unsigned)i, c[i].path);
    ASSERT_OK(r);
    ASSERT_STR_EQ(out, expand(c[i].want, want, sizeof want));
  }
  return 0;
}

#define CHECK_CASES(table) check_cases(table, sizeof table / sizeof table[0])

/* short paths are left exactly as they were given */
TEST_IMPL(path_win_short) {
  static const path_case c[] = {
      {"C:\\a\\b", NULL, "C:\\a\\b"},
      {"C:/a/./b/../c/", "C:\\w", "C:/a/./b/../c/"},
      {"\\\\srv\\share\\x", NULL, "\\\\srv\\share\\x"},
      {"logs/run", "C:\\work", "logs/run"},
      {"\\x", "D:\\work", "\\x"},
      {"", "C:\\work", ""},
      /* "" stays "", also against a long cwd (it named the cwd) */
      {"", "C:\\@", ""}};
  return CHECK_CASES(c);
}

TEST_IMPL(path_win_drive_unc) {
  static const path_case c[] = {
      {"C:\\@", NULL, "\\\\?\\C:\\@"},
      /* forward slashes become backslashes; the drive keeps its case */
      {"c:/#/", NULL, "\\\\?\\c:\\@"},
      {"\\\\srv\\share\\@", NULL, "\\\\?\\UNC\\srv\\share\\@"},
      {"//srv/share/#", NULL, "\\\\?\\UNC\\srv\\share\\@"},
      /* mixed, as repro joins a Windows root and its own '/' parts */
      {"C:\\root/#/run\\x.log.gz", NULL, "\\\\?\\C:\\root\\@\\run\\x.log.gz"}};
  return CHECK_CASES(c);
}

TEST_IMPL(path_win_dots) {
  static const path_case c[] = {
      {"C:\\@\\.\\x\\..\\y\\\\z\\.", NULL, "\\\\?\\C:\\@\\y\\z"},
      {"C:/#/x/y/../../q", NULL, "\\\\?\\C:\\@\\q"},
      /* ".." stops at the root: never the drive, never the share */
      {"C:\\..\\..\\@", NULL, "\\\\?\\C:\\@"},
      {"\\\\srv\\share\\..\\..\\@", NULL, "\\\\?\\UNC\\srv\\share\\@"},
      /* dots inside a name are part of it */
      {"C:\\@\\...\\.x\\y..", NULL, "\\\\?\\C:\\@\\...\\.x\\y.."}};
  return CHECK_CASES(c);
}

TEST_IMPL(path_win_relative) {
  static const path_case c[] = {
      /* relative to the current folder, when the whole is long */
      {"#", "C:\\work\\dir", "\\\\?\\C:\\work\\dir\\@"},
      {"../#", "C:\\work\\dir", "\\\\?\\C:\\work\\@"},
      {"x", "C:\\@", "\\\\?\\C:\\@\\x"},
      {"@", "\\\\srv\\share\\d", "\\\\?\\UNC\\srv\\share\\d\\@"},
      /* root-relative: the current folder's drive or share */
      {"/#", "D:\\work", "\\\\?\\D:\\@"},
      {"\\@", "\\\\srv\\share\\d", "\\\\?\\UNC\\srv\\share\\@"},
      /* a current folder in the extended form */
      {"#", "\\\\?\\C:\\deep", "\\\\?\\C:\\deep\\@"},
      {"#", "\\\\?\\UNC\\srv\\share", "\\\\?\\UNC\\srv\\share\\@"},
      /* no current folder, or none that is absolute: left as it is */
      {"#", NULL, "#"},
      {"#", "work", "#"},
      {"/#", NULL, "/#"}};
  return CHECK_CASES(c);
}

/* cm_path_win_uses_cwd says which paths read the current folder; a path
 * it says does not comes out the same with no current folder as with a
 * long one (cm_path_os on Windows fetches the folder only when it does). */
TEST_IMPL(path_win_uses_cwd) {
  static const struct {
    const char *path;
    int uses;
  } c[] = {{"#", 1},
           {"x", 1},
           {"../#", 1},
           {"/#", 1},
           {"\\@", 1},
           {"C:\\@", 0},
           {"c:/#", 0},
           {"C:x", 0},
           {"\\\\srv\\share\\@", 0},
           {"//srv/share/#", 0},
           {"\\\\.\\NUL", 0},
           {"\\\\?\\C:\\@", 0},
           {"\\\\srv", 0},
           {"", 0}};
  char path[1024], cwd[1024], with[2048];
  size_t i;
  (void)expand("C:\\@", cwd, sizeof cwd);
  for (i = 0; i < sizeof c / sizeof c[0]; i++) {
    (void)expand(c[i].path, path, sizeof path);
    if (cm_path_win_uses_cwd(path) != c[i].uses)
      printf("case %u: %s\n", (unsigned)i, c[i].path);
    ASSERT_EQ(cm_path_win_uses_cwd(path), c[i].uses);
    if (!c[i].uses) {
      ASSERT_OK(cm_path_win_extended(path, cwd, with, sizeof with));
      ASSERT_STR_EQ(ext(path, NULL), with);
    }
  }
  ASSERT_EQ(cm_path_win_uses_cwd(NULL), 0);
  return 0;
}

TEST_IMPL(path_win_prefixed) {
  static const path_case c[] = {
      /* already extended: a well-formed one is unchanged, any length */
      {"\\\\?\\C:\\a\\b", NULL, "\\\\?\\C:\\a\\b"},
      {"\\\\?\\C:\\@", NULL, "\\\\?\\C:\\@"},
      {"\\\\?\\UNC\\srv\\share\\a", NULL, "\\\\?\\UNC\\srv\\share\\a"},
      /* ... and '/', "." and ".." in one are what Win32 would have read */
      {"\\\\?\\C:\\a/b/./c/../d", NULL, "\\\\?\\C:\\a\\b\\d"},
      {"\\\\?\\unc\\srv\\share/a", NULL, "\\\\?\\UNC\\srv\\share\\a"},
      /* devices, volumes, drive-relative paths, a bare server: as given */
      {"\\\\?\\GLOBALROOT\\Device\\x", NULL, "\\\\?\\GLOBALROOT\\Device\\x"},
      {"\\\\?\\Volume{0}\\@", NULL, "\\\\?\\Volume{0}\\@"},
      {"\\\\.\\NUL", NULL, "\\\\.\\NUL"},
      {"\\\\.\\pipe\\@", "C:\\w", "\\\\.\\pipe\\@"},
      {"//?/C:/#", NULL, "//?/C:/#"},
      {"C:x\\@", "C:\\w", "C:x\\@"},
      {"\\\\srv\\", "C:\\w", "\\\\srv\\"}};
  char server[300];
  memset(server, 'x', sizeof server);
  memcpy(server, "\\\\", 2);
  server[sizeof server - 1] = '\0';
  ASSERT_STR_EQ(ext(server, "C:\\w"), server);
  return CHECK_CASES(c);
}

TEST_IMPL(path_win_limits) {
  char path[600], out[600], want[700];
  size_t n;
  int k;
  /* 247 UTF-16 units stay, 248 take the extended form */
  memset(path, 'x', sizeof path);
  memcpy(path, "C:\\", 3);
  path[CM_PATH_WIN_LONG - 1] = '\0';
  ASSERT_STR_EQ(ext(path, NULL), path);
  path[CM_PATH_WIN_LONG - 1] = 'x';
  path[CM_PATH_WIN_LONG] = '\0';
  ASSERT_OK(cm_snprintf(want, sizeof want, "\\\\?\\%s", path));
  ASSERT_STR_EQ(ext(path, NULL), want);
  /* counted in UTF-16 units, not bytes: U+00E9 is 2 bytes and 1 unit,
   * U+1F600 4 bytes and 2 units (a surrogate pair) */
  n = CM_PATH_WIN_LONG - 1 - 10;
  for (k = 0; k < 10; k++)
    memcpy(path + n + 2 * k, "\xc3\xa9", 2);
  path[n + 20] = '\0'; /* 247 units in 257 bytes */
  ASSERT_STR_EQ(ext(path, NULL), path);
  memset(path, 'x', sizeof path);
  memcpy(path, "C:\\", 3);
  memcpy(path + CM_PATH_WIN_LONG - 2, "\xf0\x9f\x98\x80", 5); /* 248 units */
  ASSERT_OK(cm_snprintf(want, sizeof want, "\\\\?\\%s", path));
  ASSERT_STR_EQ(ext(path, NULL), want);
  /* out too small: CM_ERANGE and "" */
  ASSERT_EQ(
      cm_path_win_extended(expand("C:\\@", path, sizeof path), NULL, out, 100),
      CM_ERANGE);
  ASSERT_STR_EQ(out, "");
  ASSERT_EQ(cm_path_win_extended("C:\\abc", NULL, out, 4), CM_ERANGE);
  ASSERT_STR_EQ(out, "");
  ASSERT_EQ(cm_path_win_extended(NULL, NULL, out, sizeof out), CM_EINVAL);
  ASSERT_EQ(cm_path_win_extended("x", NULL, out, 0), CM_EINVAL);
  return 0;
}

/* cm_path_os: the extended form on Windows, the path itself on POSIX. */
TEST_IMPL(path_os) {
  char out[2048], p[1024], want[1024];
  expand("C:/#", p, sizeof p);
  ASSERT_OK(cm_path_os(p, out, sizeof out));
  if (plat_os_detect() == PLAT_OS_WINDOWS)
    ASSERT_STR_EQ(out, expand("\\\\?\\C:\\@", want, sizeof want));
  else
    ASSERT_STR_EQ(out, p);
  ASSERT_OK(cm_path_os("a/b", out, sizeof out));
  ASSERT_STR_EQ(out, "a/b");
  ASSERT_EQ(cm_path_os(p, out, 10), CM_ERANGE);
  ASSERT_EQ(cm_path_os(NULL, out, sizeof out), CM_EINVAL);
  return 0;
}
