#include "cm_error.h"

#include <errno.h>

const char *cm_strerror(int err) {
  switch (err) {
  case CM_OK:
    return "success";
#define XX(name, msg)                                                          \
  case CM_E##name:                                                             \
    return msg;
    CM_ERROR_MAP(XX)
#undef XX
  default:
    return "unknown error";
  }
}

const char *cm_err_name(int err) {
  switch (err) {
  case CM_OK:
    return "CM_OK";
#define XX(name, msg)                                                          \
  case CM_E##name:                                                             \
    return "CM_E" #name;
    CM_ERROR_MAP(XX)
#undef XX
  default:
    return "CM_EUNKNOWN";
  }
}

int cm_error_from_errno(int errnum) {
  switch (errnum) {
  case 0:
    return CM_OK;
  case EINVAL:
    return CM_EINVAL;
  case ERANGE:
    return CM_ERANGE;
  case ENOMEM:
    return CM_ENOMEM;
  case ENOENT:
    return CM_ENOENT;
  case EEXIST:
    return CM_EEXIST;
  case EACCES:
  case EPERM:
#ifdef EROFS
  case EROFS:
#endif
    return CM_EACCES;
  case ENOTDIR:
    return CM_ENOTDIR;
  case ENAMETOOLONG:
    return CM_ENAMETOOLONG;
  case ENOSPC:
    return CM_ENOSPC;
  case EINTR:
    return CM_EINTR;
  default:
    return CM_EIO;
  }
}
