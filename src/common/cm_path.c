/* cm_path.c: the extended ("\\?\") spelling of a long Windows path
 * (cm_path.h). Plain string work, no Windows call: the same rules are
 * tested on Linux and under Wine. */
#include "cm_path.h"

#include "cm_error.h"
#include "cm_str.h"

#include <string.h>

static int cm__is_sep(char c) {
  return c == '\\' || c == '/';
}

static int cm__is_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* UTF-16 units of the UTF-8 text s[0..n): one for each character, two for
 * one past U+FFFF (a four-byte sequence). */
static size_t cm__utf16_units(const char *s, size_t n) {
  size_t i, units = 0;
  for (i = 0; i < n; i++) {
    unsigned char b = (unsigned char)s[i];
    if ((b & 0xC0) != 0x80)
      units += b >= 0xF0 ? 2 : 1;
  }
  return units;
}

/* path copied as it is; "" when it does not fit. */
static int cm__copy(const char *path, char *out, size_t size) {
  int r = cm_strlcpy(out, path, size);
  if (r != CM_OK)
    out[0] = '\0';
  return r;
}

/* The root of an absolute path: a drive ("C:") or a share (server and
 * share), and where the rest of the path starts. */
typedef struct {
  char drive; /* the drive letter, or 0 for a share */
  const char *server, *share;
  size_t server_len, share_len;
  const char *rest; /* what follows the root (may start with separators) */
  int extended;     /* written with the "\\?\" prefix */
} cm__root;

/* Reads "server\share" at p into r. 1 when both names are there. */
static int cm__share_parse(const char *p, cm__root *r) {
  r->drive = 0;
  r->server = p;
  for (r->server_len = 0; p[r->server_len] != '\0'; r->server_len++)
    if (cm__is_sep(p[r->server_len]))
      break;
  if (r->server_len == 0 || p[r->server_len] == '\0')
    return 0;
  r->share = p + r->server_len + 1;
  for (r->share_len = 0; r->share[r->share_len] != '\0'; r->share_len++)
    if (cm__is_sep(r->share[r->share_len]))
      break;
  r->rest = r->share + r->share_len;
  return r->share_len > 0;
}

/* 1 when p is drive-absolute ("C:\x", "C:/x") or a share ("\\server\share"),
 * either also in the extended form ("\\?\C:\x", "\\?\UNC\server\share"),
 * with r filled; 0 for anything else (relative, drive-relative, a device). */
static int cm__root_parse(const char *p, cm__root *r) {
  memset(r, 0, sizeof *r);
  r->extended = strncmp(p, "\\\\?\\", 4) == 0;
  if (r->extended) {
    p += 4;
    if (cm__is_letter(p[0]) && p[1] == ':' &&
        (p[2] == '\0' || cm__is_sep(p[2]))) {
      r->drive = p[0];
      r->rest = p + 2;
      return 1;
    }
    if ((p[0] == 'U' || p[0] == 'u') && (p[1] == 'N' || p[1] == 'n') &&
        (p[2] == 'C' || p[2] == 'c') && cm__is_sep(p[3]))
      return cm__share_parse(p + 4, r);
    return 0; /* "\\?\GLOBALROOT\...", "\\?\Volume{...}\..." */
  }
  if (cm__is_letter(p[0]) && p[1] == ':' && cm__is_sep(p[2])) {
    r->drive = p[0];
    r->rest = p + 2;
    return 1;
  }
  if (cm__is_sep(p[0]) && cm__is_sep(p[1])) {
    /* "\\.\NUL", "\\?\..." with '/', "//./pipe/x": the device namespace */
    if ((p[2] == '.' || p[2] == '?') && (p[3] == '\0' || cm__is_sep(p[3])))
      return 0;
    return cm__share_parse(p + 2, r);
  }
  return 0;
}

/* The extended form being written into out[size]: n bytes so far, the
 * first root of them the root with its final '\', err set once it does not
 * fit. */
typedef struct {
  char *out;
  size_t size, n, root;
  int err;
} cm__ext;

static void cm__ext_put(cm__ext *e, const char *s, size_t len) {
  if (e->err != CM_OK || len >= e->size - e->n) {
    e->err = CM_ERANGE;
    return;
  }
  memcpy(e->out + e->n, s, len);
  e->n += len;
}

/* Appends the components of s, resolving "." and ".." as Win32 does. */
static void cm__ext_components(cm__ext *e, const char *s) {
  while (*s != '\0' && e->err == CM_OK) {
    size_t len = 0;
    while (s[len] != '\0' && !cm__is_sep(s[len]))
      len++;
    if (len == 2 && s[0] == '.' && s[1] == '.') {
      /* drop the last component and its separator, never the root */
      while (e->n > e->root && e->out[e->n - 1] != '\\')
        e->n--;
      if (e->n > e->root)
        e->n--;
    } else if (len > 0 && !(len == 1 && s[0] == '.')) {
      if (e->n > e->root)
        cm__ext_put(e, "\\", 1);
      cm__ext_put(e, s, len);
    }
    s += len;
    if (*s != '\0')
      s++;
  }
}

int cm_path_win_uses_cwd(const char *path) {
  cm__root r;
  return path != NULL && path[0] != '\0' && !cm__root_parse(path, &r) &&
         !(cm__is_sep(path[0]) && cm__is_sep(path[1])) && path[1] != ':';
}

int cm_path_win_extended(const char *path, const char *cwd, char *out,
                         size_t size) {
  cm__root r, c;
  const char *more = NULL; /* a relative path's part, after cwd's */
  size_t units;
  cm__ext e;
  if (path == NULL || out == NULL || size == 0)
    return CM_EINVAL;
  /* "" names no file on either platform; joined to a long cwd it would
   * name the cwd */
  if (path[0] == '\0')
    return cm__copy(path, out, size);
  if (cm__root_parse(path, &r)) {
    units = cm__utf16_units(path, strlen(path));
  } else if (!cm_path_win_uses_cwd(path) || cwd == NULL ||
             !cm__root_parse(cwd, &c)) {
    return cm__copy(path, out, size); /* device, "C:x", no cwd */
  } else if (cm__is_sep(path[0])) {
    /* "\x": the rest of cwd's root is replaced by path */
    r = c;
    r.rest = path;
    r.extended = 0;
    units = (r.drive != 0 ? 2 : 3 + r.server_len + r.share_len) +
            cm__utf16_units(path, strlen(path));
  } else {
    r = c;
    r.extended = 0;
    more = path;
    units = cm__utf16_units(cwd, strlen(cwd)) + 1 +
            cm__utf16_units(path, strlen(path));
  }
  if (units < CM_PATH_WIN_LONG && !r.extended)
    return cm__copy(path, out, size);
  e.out = out;
  e.size = size;
  e.n = 0;
  e.err = CM_OK;
  if (r.drive != 0) {
    char root[7] = {'\\', '\\', '?', '\\', r.drive, ':', '\\'};
    cm__ext_put(&e, root, sizeof root);
  } else {
    cm__ext_put(&e, "\\\\?\\UNC\\", 8);
    cm__ext_put(&e, r.server, r.server_len);
    cm__ext_put(&e, "\\", 1);
    cm__ext_put(&e, r.share, r.share_len);
    cm__ext_put(&e, "\\", 1);
  }
  e.root = e.n;
  cm__ext_components(&e, r.rest);
  if (more != NULL)
    cm__ext_components(&e, more);
  if (e.err != CM_OK) {
    out[0] = '\0';
    return e.err;
  }
  out[e.n] = '\0';
  return CM_OK;
}
