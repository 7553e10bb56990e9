/* cm_fopen_win32.c: cm_fopen and cm_remove for UTF-8 paths on Windows
 * (cm_file.h): the C runtime's narrow calls take the ANSI code page, so
 * the path goes through UTF-16 and the wide calls. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "cm_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

FILE *cm_fopen(const char *path, const char *mode) {
  wchar_t wmode[16], *w;
  FILE *f;
  size_t i;
  for (i = 0; mode[i] != '\0' && i + 1 < sizeof wmode / sizeof wmode[0]; i++)
    wmode[i] = (wchar_t)(unsigned char)mode[i];
  wmode[i] = L'\0';
  w = cm__wide(path);
  if (w == NULL)
    return errno == EILSEQ ? fopen(path, mode) : NULL;
  f = _wfopen(w, wmode);
  free(w);
  return f;
}

int cm_remove(const char *path) {
  wchar_t *w = cm__wide(path);
  int r;
  if (w == NULL)
    return errno == EILSEQ ? remove(path) : -1;
  r = _wremove(w);
  free(w);
  return r;
}
