/* pf_launch.h: the glue from a pf_case to its cpk_* launcher. */
#ifndef PF_LAUNCH_H
#define PF_LAUNCH_H

#include <cuda_runtime_api.h>

#include "pf_case.h"

/* Launches c's kernel once on stream for device buffer set `set`.
 * Asynchronous; returns what the cpk launcher returned. */
cudaError_t pf_launch(const pf_case *c, int set, cudaStream_t stream);

#endif
