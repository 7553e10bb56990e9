/* cm_fopen_win32.c: cm_fopen and cm_remove for UTF-8 paths on Windows
 * (cm_file.h): the C runtime's narrow calls take the ANSI code page, so
 * the path goes through UTF-16 and the wide calls. And cm_path_os and
 * cm_path_wide (cm_path.h): a long path in the extended form, against the
 * current folder, which every file call of the project's on Windows takes
 * its path from (platform/win32 included). */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "cm_file.h"
#include "cm_path.h"

#include "cm_error.h"
#include "cm_str.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* path as UTF-16 (malloc'd), or NULL when it is not valid UTF-8 (errno
 * EILSEQ) or memory ran out (ENOMEM). */
static wchar_t *cm__wide(const char *path) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
  wchar_t *w;
  if (n <= 0) {
    errno = EILSEQ;
    return NULL;
  }
  w = malloc((size_t)n * sizeof *w);
  if (w == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n) != n) {
    free(w);
    errno = EILSEQ;
    return NULL;
  }
  return w;
}

/* The current folder in UTF-8 (malloc'd), or NULL when it cannot be had:
 * a relative path is then passed on as it is. */
static char *cm__cwd(void) {
  DWORD n = GetCurrentDirectoryW(0, NULL), got;
  wchar_t *w;
  char *u = NULL;
  int len;
  if (n == 0)
    return NULL;
  w = malloc((size_t)n * sizeof *w);
  if (w == NULL)
    return NULL;
  got = GetCurrentDirectoryW(n, w);
  len = got > 0 && got < n
            ? WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL)
            : 0;
  if (len > 0)
    u = malloc((size_t)len);
  if (u != NULL &&
      WideCharToMultiByte(CP_UTF8, 0, w, -1, u, len, NULL, NULL) != len) {
    free(u);
    u = NULL;
  }
  free(w);
  return u;
}

/* cm_path_win_extended of path against the current folder (fetched only
 * for a path that reads it), malloc'd into *out. Returns CM_OK, CM_ENOMEM
 * or cm_path_win_extended's error. */
static int cm__os_path(const char *path, char **out) {
  char *cwd = cm_path_win_uses_cwd(path) ? cm__cwd() : NULL;
  size_t size = strlen(path) + (cwd != NULL ? strlen(cwd) : 0) + 16;
  int r = CM_ENOMEM;
  *out = malloc(size);
  if (*out != NULL)
    r = cm_path_win_extended(path, cwd, *out, size);
  free(cwd);
  if (r != CM_OK) {
    free(*out);
    *out = NULL;
  }
  return r;
}

int cm_path_os(const char *path, char *out, size_t size) {
  char *p;
  int r;
  if (path == NULL || out == NULL || size == 0)
    return CM_EINVAL;
  r = cm__os_path(path, &p);
  if (r == CM_OK)
    r = cm_strlcpy(out, p, size);
  free(p);
  return r;
}

wchar_t *cm_path_wide(const char *path, int *err) {
  char *p;
  wchar_t *w = NULL;
  int r = cm__os_path(path, &p);
  if (r == CM_OK) {
    w = cm__wide(p);
    if (w == NULL)
      r = errno == ENOMEM ? CM_ENOMEM : CM_EINVAL;
  }
  free(p);
  if (err != NULL)
    *err = w != NULL ? CM_OK : r;
  return w;
}

FILE *cm_fopen(const char *path, const char *mode) {
  wchar_t wmode[16], *w;
  FILE *f;
  size_t i;
  int err;
  for (i = 0; mode[i] != '\0' && i + 1 < sizeof wmode / sizeof wmode[0]; i++)
    wmode[i] = (wchar_t)(unsigned char)mode[i];
  wmode[i] = L'\0';
  w = cm_path_wide(path, &err);
  if (w == NULL) {
    if (err == CM_EINVAL)
      return fopen(path, mode);
    errno = ENOMEM;
    return NULL;
  }
  f = _wfopen(w, wmode);
  free(w);
  return f;
}

int cm_remove(const char *path) {
  int err;
  wchar_t *w = cm_path_wide(path, &err);
  int r;
  if (w == NULL) {
    if (err == CM_EINVAL)
      return remove(path);
    errno = ENOMEM;
    return -1;
  }
  r = _wremove(w);
  free(w);
  return r;
}
