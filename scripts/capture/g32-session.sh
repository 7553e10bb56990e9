#!/usr/bin/env bash
# v17a (docs/PERFORMANCE.md): the grid path with 32 warps an SM on every
# wide row. The experiment build (hint-variants.sh g32="-DCPK_GRID_Q=4
# -DCPK_GRID_Q512=2 -DCPK_GRID_NT1024=1") differs from $pf only in those
# macros: 16-bit 2^18 rows on four 256-thread blocks an SM (alternate
# batches), fp32 2^18 on two 512-thread blocks, the 2^20 rows on one block
# of 1024 threads (1 or 2 slots) instead of 512 (2 or 4); rmsnorm_bwd keeps
# one block an SM below 2^20 (its dw is a block's own rows). One lease: the
# variant's FUSED --test-only and smoke set (memcheck, racecheck) with every
# FUSED case through the grid path, then every row op at 2^20 and 2^18 in
# every dtype: the default pick / $pf with the grid path forced / the
# variant with it forced / the default pick:
#   BIN=DIR VAR=DIR bash scripts/capture/g32-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: g32-session.sh OUTDIR [BUDGET_S]}
budget=${2:-500}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run resources-g32.txt 60 cuobjdump --dump-resource-usage "$var/cuda_portfolio-g32"
gridall "$var/cuda_portfolio-g32" memcheck racecheck
ONE_BUDGET=0.3
env_grid grid CPK_GRID_MIN=131073 \
  "rmsnorm softmax softmax_backward row_sum rmsnorm_backward" \
  "bf16 fp32 fp16" "32x1048576 256x262144" g32
finish
exit 0
