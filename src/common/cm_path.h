/* cm_path.h: how a path is spelled for the operating system's file calls.
 *
 * Windows refuses a path of MAX_PATH (260) UTF-16 units or more in its file
 * calls (248 for a folder to create), unless the system enables long paths
 * (LongPathsEnabled) and the program declares itself longPathAware in its
 * manifest; repro and cuda_portfolio declare it, the setting is the user's.
 * The extended form, "\\?\C:\..." or "\\?\UNC\server\share\...", is accepted
 * whatever the length and the setting, but Windows then takes the path
 * literally: a '/' is not a separator, "." and ".." are not resolved, and a
 * relative path has no meaning. cm_path_win_extended does that processing
 * first and writes the extended form, for long paths only: a short path is
 * passed on as it was given, so nothing changes for it. libuv's uv_fs_*
 * calls pass a path to Windows as they get it (no prefix added), so they are
 * given cm_path_os's spelling too. docs/WINDOWS.md, Long paths, says what
 * still needs the system setting.
 */
#ifndef CM_PATH_H
#define CM_PATH_H

#include <stddef.h>

/* UTF-16 units from which a path is given the extended form: MAX_PATH (260)
 * less the 12 that CreateDirectoryW keeps for an 8.3 name. */
#define CM_PATH_WIN_LONG 248

/* Writes into out[size] the spelling of the UTF-8 path that a Win32 file
 * call takes whatever its length. Portable C (no Windows call), so the rules
 * are tested on every OS:
 * - Copied unchanged: a path whose full form is shorter than
 *   CM_PATH_WIN_LONG UTF-16 units and, whatever their length, a device path
 *   ("\\.\NUL", "\\?\GLOBALROOT\..."), a drive-relative one ("C:x"), a
 *   share without its share name ("\\server"), and a relative or
 *   root-relative one when cwd is NULL or not absolute.
 * - A longer one that is drive-absolute ("C:\..."), UNC
 *   ("\\server\share\..."), root-relative ("\...", on cwd's drive or share)
 *   or relative (to cwd) becomes "\\?\C:\..." or
 *   "\\?\UNC\server\share\...", with '/' as '\', empty and "." components
 *   dropped and ".." removing the component before it (never the drive or
 *   the share), as Win32 itself would have read the path. A trailing
 *   separator is dropped. Trailing dots and spaces of a component, which
 *   Win32 would drop, are kept.
 * - A path already in the extended form of a drive or share gets the same
 *   processing whatever its length (a '/' there would name no file), so a
 *   well-formed one comes back unchanged.
 * cwd is the current folder in UTF-8 (any of the forms above, extended
 * included), or NULL. Returns CM_OK, CM_EINVAL (a NULL argument or size 0),
 * or CM_ERANGE when out is too small (out is then ""). */
int cm_path_win_extended(const char *path, const char *cwd, char *out,
                         size_t size);

/* 1 when cm_path_win_extended reads cwd for path: a relative or
 * root-relative one ("logs\x", "\x"); 0 for an absolute, device,
 * drive-relative ("C:x") or empty path, whose spelling needs no current
 * folder (so that the caller need not fetch it). */
int cm_path_win_uses_cwd(const char *path);

/* The spelling of path to hand this OS's file calls, libuv's uv_fs_*
 * included, into out[size]. POSIX: path itself. Windows:
 * cm_path_win_extended against the current folder. Returns CM_OK,
 * CM_EINVAL, CM_ENOMEM or CM_ERANGE. One implementation per platform
 * (cm_fopen_posix.c, cm_fopen_win32.c). */
int cm_path_os(const char *path, char *out, size_t size);

#ifdef _WIN32
#include <wchar.h>
/* cm_path_os's spelling of path as UTF-16, for a W file call: a malloc'd
 * string the caller frees, or NULL with *err (when err is not NULL) set to
 * CM_EINVAL (path is not valid UTF-8) or CM_ENOMEM. */
wchar_t *cm_path_wide(const char *path, int *err);
#endif

#endif
