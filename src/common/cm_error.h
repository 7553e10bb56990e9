/* cm_error.h: the error codes shared by cuda_portfolio and repro.
 *
 * Errors are negative ints from one X-macro table that generates the enum,
 * the name and the message (the libuv model). OS errors are translated once,
 * where they arise (cm_error_from_errno). 0 is success. Exit codes of the two
 * programs are a separate, documented table (see each program's main.c and
 * docs/); an error code is never used as an exit code directly.
 */
#ifndef CM_ERROR_H
#define CM_ERROR_H

#define CM_ERROR_MAP(XX)                                                       \
  XX(INVAL, "invalid argument")                                                \
  XX(RANGE, "value out of range")                                              \
  XX(NOMEM, "out of memory")                                                   \
  XX(NOENT, "no such file or directory")                                       \
  XX(EXIST, "file already exists")                                             \
  XX(ACCES, "permission denied")                                               \
  XX(IO, "input/output error")                                                 \
  XX(PARSE, "malformed input")                                                 \
  XX(TRUNC, "truncated data")                                                  \
  XX(MISMATCH, "checksum or content mismatch")                                 \
  XX(NOSPC, "no space left on device")                                         \
  XX(TIMEDOUT, "timed out")                                                    \
  XX(INTR, "interrupted")                                                      \
  XX(NOTSUP, "operation not supported")                                        \
  XX(NODEV, "no CUDA device")                                                  \
  XX(CUDA, "CUDA error")                                                       \
  XX(CUBLAS, "cuBLAS error")                                                   \
  XX(VERIFY, "verification failed")                                            \
  XX(REFUSED, "refused")                                                       \
  XX(INTERNAL, "internal error")                                               \
  XX(NOTDIR, "a part of the path is not a folder")                             \
  XX(NAMETOOLONG, "file name too long")

typedef enum {
  CM_OK = 0,
#define XX(name, msg) CM_E##name,
  CM__EFIRST = -1000,
  CM_ERROR_MAP(XX)
#undef XX
} cm_error;

/* Returns a static, human-readable message for err ("unknown error" for a
 * value not in the table). Never NULL. */
const char *cm_strerror(int err);

/* Returns the symbolic name ("CM_EINVAL") for err. Never NULL. */
const char *cm_err_name(int err);

/* Translates a C errno value into a cm_error (CM_EIO where unknown). */
int cm_error_from_errno(int errnum);

#endif
