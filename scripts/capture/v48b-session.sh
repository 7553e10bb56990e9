#!/usr/bin/env bash
# v48b (docs/PERFORMANCE.md), after v48: what each path's launch costs
# beyond the empty launch, and whether the cooperative attribute is part
# of it. The ring, skew_k and the grid path (the rows of 2^18 and 2^20
# columns, 0.63-0.88 of the copy ceiling) are cooperative launches; the
# variant nocoop (-DCPK_COOP_OFF=1, kernels/common.cuh: the same launches
# without the attribute; an experiment build only) is run beside the
# final run's build:
#   fixed   each path on one short row (fused_k, its rmsnorm_backward dw
#           kernel, seg_k, the ring, skew_k, the grid path; the vector
#           copy of 8 elements), bf16, timed without --bench (the case's
#           median and the run's launch floor in its JSON), def and nocoop
#   coop    def / nocoop / def at 256x262144 and 32x1048576 for softmax
#           and rmsnorm (the ring), softmax_backward and rmsnorm_backward
#           (skew_k; rmsnorm_backward's 2^20 rows on the grid path), bf16
#           and fp32
#   waves   v48's last-wave question, now timed without --bench (which
#           takes the standard shapes only): fused_k's bf16 softmax and
#           rmsnorm at 1848, 1980, 2048 and 2112 rows of 32768
# then nocoop's checks: its FUSED --test-only and smoke set under memcheck
# and racecheck. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v48b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v48b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
nc=$var/cuda_portfolio-nocoop
one() { # NAME BIN OP SHAPE: one case without --bench, bf16 (batch-lib's
  # bench_one; until 2026-12-04 this script ran the same command itself)
  ONE_BENCH=0 ONE_LIM=40 ONE_BUDGET=0.5 bench_one "$1" "$2" "$3" bf16 "$4"
}
ONE_RESERVE=200
for b in def:$pf nocoop:$nc; do
  n=${b%%:*} x=${b#*:}
  one fixed-$n "$x" row_sum 1x1024
  one fixed-$n "$x" softmax 1x32768
  one fixed-$n "$x" rmsnorm_backward 1x1024
  one fixed-$n "$x" row_sum 1x262144
  one fixed-$n "$x" softmax 1x262144
  one fixed-$n "$x" rmsnorm 1x262144
  one fixed-$n "$x" softmax_backward 1x262144
  one fixed-$n "$x" rmsnorm_backward 1x262144
  one fixed-$n "$x" rmsnorm_backward 1x1048576
done
run fixed-def-copy-bf16-1x8.txt 30 "$pf" --op copy --dtype bf16 --shape 1x8 \
  --budget 0.5 --json "$out/fixed-def-copy-bf16-1x8.json"
ONE_RESERVE=120
for op in softmax rmsnorm softmax_backward rmsnorm_backward; do
  abc_grid $op "bf16 fp32" "256x262144 32x1048576" c1 "$nc"
done
ONE_RESERVE=70
for op in softmax rmsnorm; do
  for r in 1848 1980 2048 2112; do
    one waves "$pf" $op ${r}x32768
  done
done
VT_TLIM=60 VT_LIM=40 vtools nocoop "$nc" memcheck racecheck
finish_checks v48b
exit 0
