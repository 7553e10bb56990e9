#!/usr/bin/env bash
# v36 (docs/PERFORMANCE.md): the build ($BIN: v36a's stage for fp32
# rmsnorm_backward's configuration 6, CPK_STAGE_RB8K=1, and the cluster
# stage's one merge helper, merge_ranks) beside two variants ($VAR): old
# (7d89708's kernels/rowfused.cu, c9c6f90's kernels: the last final run's)
# and g132 (-DCPK_RB_GMIN=132, v36b: rmsnorm_backward's configurations
# built for one 512-thread block an SM, 6 and 20-23, on one wave of
# groups instead of two). Checks first: the build's configuration-6,
# clustered and wide-path shapes under memcheck and racecheck, g132's FUSED
# --test-only and smoke set under memcheck and its regrouped shapes under
# both tools; then rmsnorm_backward's set def / old / g132 / def, the
# 2^18- and 2^20-wide cases of the other four ops (the cluster kernels the
# helper recompiled) def / old / def, and a second pass of the three
# regrouped benchmark cases. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v36-session.sh OUTDIR [BUDGET_S]
# (measured: bounds/v36-2026-12-02T1910; g132 then became the default)
set -u
out=${1:?usage: v36-session.sh OUTDIR [BUDGET_S]}
budget=${2:-330}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
# configuration 6 (fp32 4097-8192: the stage), 20 (16-bit 16385-32768:
# clusters of 2, the push), 11 (softmax_backward fp32 16385-32768: the
# cluster barrier), the wide path (softmax at 2^18)
SAN_TAG=def sanshapes "$pf" rmsnorm_backward 300x8192 37x8000 3x32768 150x32768
SAN_TAG=def sanshapes "$pf" softmax_backward 3x32768
SAN_TAG=def sanshapes "$pf" softmax 3x200000
VT_TLIM=60 VT_LIM=60 vtools g132 "$var/cuda_portfolio-g132" memcheck
SAN_TAG=g132 sanshapes "$var/cuda_portfolio-g132" rmsnorm_backward 300x8192 150x32768
sel="--bench --op rmsnorm_backward"
run bench-rmsnorm_backward-def-1.txt 60 "$pf" $sel --json "$out/bench-rmsnorm_backward-def-1.json"
run bench-rmsnorm_backward-old.txt 60 "$var/cuda_portfolio-old" $sel --json "$out/bench-rmsnorm_backward-old.json"
run bench-rmsnorm_backward-g132.txt 60 "$var/cuda_portfolio-g132" $sel --json "$out/bench-rmsnorm_backward-g132.json"
run bench-rmsnorm_backward-def-2.txt 60 "$pf" $sel --json "$out/bench-rmsnorm_backward-def-2.json"
export ONE_BUDGET=0.4
for op in row_sum softmax softmax_backward rmsnorm; do
  abc_grid $op "bf16 fp32" "256x262144 32x1048576" old "$var/cuda_portfolio-old"
done
bench_abc softmax_backward fp32 2048x32768 old "$var/cuda_portfolio-old"
export ONE_BUDGET=0.5 BA_SUF=-p2
bench_abc rmsnorm_backward fp32 8192x8192 old "$var/cuda_portfolio-old" g132 "$var/cuda_portfolio-g132"
bench_abc rmsnorm_backward bf16 2048x32768 old "$var/cuda_portfolio-old" g132 "$var/cuda_portfolio-g132"
bench_abc rmsnorm_backward fp16 2048x32768 old "$var/cuda_portfolio-old" g132 "$var/cuda_portfolio-g132"
finish_checks v36
exit 0
