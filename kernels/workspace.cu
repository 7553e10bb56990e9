#include "cpk.h"

extern "C" size_t cpk_workspace_bytes(cpk_op op, cpk_variant v, cpk_dtype dt,
                                      cpk_rows shape) {
  (void)op; (void)v; (void)dt; (void)shape;
  return 0;
}
