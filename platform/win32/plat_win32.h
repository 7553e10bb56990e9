/* plat_win32.h: Windows-only helpers behind platform.h, for the win32
 * implementation files and the tests in tests/windows. Nothing outside
 * platform/win32 and tests/windows includes this header; portable code uses
 * platform.h only.
 *
 * Strings crossing this interface are UTF-8 (the project's encoding); the
 * Windows API is always called through its W (UTF-16) entry points, so paths
 * with spaces and non-ASCII characters work whatever the ANSI code page is.
 */
#ifndef PLAT_WIN32_H
#define PLAT_WIN32_H

#include <stddef.h>
#include <wchar.h>

/* Translates a Win32 error code (GetLastError) into a negative cm_error;
 * unknown codes become CM_EIO. Done once, where the error arises. */
int plat__win_error(unsigned long win_err);

/* UTF-8 -> UTF-16. Returns a malloc'd, NUL-terminated wide string the caller
 * frees, or NULL (invalid UTF-8 or out of memory; *err receives CM_EINVAL or
 * CM_ENOMEM when err is not NULL). */
wchar_t *plat__utf8_to_wide(const char *s, int *err);

/* GetFileAttributesW of a UTF-8 path (a long one in the extended form,
 * cm_path_wide): INVALID_FILE_ATTRIBUTES (as an unsigned long) when the
 * path does not exist or is not valid UTF-8. */
unsigned long plat__attributes(const char *path);

/* UTF-16 -> UTF-8 into buf[size]. Returns CM_OK, CM_ERANGE when buf is too
 * small (buf then holds ""), or CM_EINVAL for unpaired surrogates. */
int plat__wide_to_utf8(const wchar_t *w, char *buf, size_t size);

/* Reads RmProfilingAdminOnly under the NVIDIA driver's NVTweak registry key
 * (HKLM\SYSTEM\CurrentControlSet\Services\nvlddmkm\Global\NVTweak). Returns
 * the value (0 or 1, any non-zero value reads as 1), -1 when the key exists
 * without the value (the driver's default applies: administrators only), or
 * -2 when the key is absent (no NVIDIA driver installed). */
int plat__win_admin_only_from_registry(void);

/* plat_console_init and plat_utf8_argv, which every Windows main() needs,
 * are public: see platform.h. */

#endif
