#!/usr/bin/env bash
# v47b (docs/PERFORMANCE.md), after v47: v47's rolled loops (`roll`, one
# shared-memory slot a trip) took the no-instruction stalls of 16-bit
# softmax at 32768 columns from 1.27 to 0.24 cycles an instruction and
# its kernel from 78.7 to 74.2 us in Nsight Compute (caches flushed
# clean before the launch), but issued 17.5 % more instructions and
# timed 0.96x the default under the benchmark's write flush. Here: the
# loops rolled by two and by four slots a trip (`roll2`, `roll4`:
# -DCPK_SM_ROLL=2 / 4, fewer loop instructions, a longer body), beside
# roll and the default, under the write flush (the benchmark's) twice,
# and under the read flush (`--flush read`: the L2 left clean, as
# Nsight Compute leaves it) once, so that the protocol's part in v47's
# two answers shows; checks as v47's; the stall counters of roll2 and
# roll4 on bf16 2048x32768.
# Built here from 3bfc753's tree (CPK_SM_ROLL in rowfused.cu; out of the
# tree since: bounds/v47-*/v47.patch.gz):
#   SOURCES=kernels/rowfused.cu bash scripts/capture/hint-variants.sh \
#     /tmp/var "roll2=-DCPK_SM_ROLL=2 -Xptxas=-v" \
#     "roll4=-DCPK_SM_ROLL=4 -Xptxas=-v"   (and v47's roll)
#   BIN=DIR VAR=DIR bash scripts/capture/v47b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v47b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
roll=$var/cuda_portfolio-roll
roll2=$var/cuda_portfolio-roll2
roll4=$var/cuda_portfolio-roll4
gpu_csv gpu-before.csv
for v in roll2 roll4; do
  VT_SEL="--op softmax" VT_LIM=75 vtools $v "$var/cuda_portfolio-$v" \
    memcheck racecheck
  BITS_FILE=bits-$v.txt bitscmp $v "$var/cuda_portfolio-$v" softmax \
    "300x20000 7x32768 64x16385 64x32768"
done
ONE_BUDGET=${ONE_BUDGET:-0.5}
for p in 1 2; do
  BA_SUF=-p$p abc_grid softmax "bf16 fp16 fp32" 2048x32768 roll "$roll" \
    roll2 "$roll2" roll4 "$roll4"
done
# the read flush: the same cases with the L2 left clean before each sample
rf_one() {
  local name=$1 b=$2 dt=$3
  run "$name-rf-softmax-$dt-2048x32768.txt" 20 env CPK_NONE=1 "$b" --bench \
    --op softmax --dtype $dt --shape 2048x32768 --flush read --budget 0.5 \
    --json "$out/$name-rf-softmax-$dt-2048x32768.json"
}
for dt in bf16 fp32; do
  rf_one def1 "$pf" $dt
  rf_one roll "$roll" $dt
  rf_one roll2 "$roll2" $dt
  rf_one roll4 "$roll4" $dt
  rf_one def2 "$pf" $dt
done
for b in roll2:$roll2 roll4:$roll4; do
  [ "$(left)" -gt 30 ] || continue
  ncu_stalls "ncu-${b%%:*}-softmax-bf16-2048x32768" "${b#*:}" softmax bf16 \
    2048x32768
done
finish_checks v47b
exit 0
