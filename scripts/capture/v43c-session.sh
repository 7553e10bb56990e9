#!/usr/bin/env bash
# v43c (docs/PERFORMANCE.md): the ring's row stores, plain (v43's default)
# against streaming (`rcs`, -DCPK_RING_ST_CS=1, built as in
# v43b-session.sh), timed side by side in one call on the final run's
# build: softmax and rmsnorm at 256x262144 and 32x1048576, every dtype,
# def / rcs / def2, two passes. On 2026-12-03 this loop ran as the device
# call's command line itself (results/h200/bounds/v43c-*/COMMANDS.txt);
# this file is that loop, unchanged but for OUTDIR:
#   bash scripts/capture/v43c-session.sh OUTDIR
# (from the repository root, build/linux and .carry/var unpacked).
set -u
o=${1:?usage: v43c-session.sh OUTDIR}
mkdir -p "$o"
q='name,uuid,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active'
nvidia-smi --query-gpu=$q --format=csv >"$o/gpu-before.csv"
for p in 1 2; do
  for op in softmax rmsnorm; do
    for sh in 256x262144 32x1048576; do
      for b in def:build/linux/bin/cuda_portfolio \
        rcs:.carry/var/cuda_portfolio-rcs def2:build/linux/bin/cuda_portfolio; do
        timeout 60 "${b#*:}" --bench --op $op --shape $sh --budget 0.5 \
          --json "$o/$op-$sh-${b%%:*}-p$p.json" >"$o/$op-$sh-${b%%:*}-p$p.log" 2>&1
        echo "$op $sh ${b%%:*} p$p rc=$?"
      done
    done
  done
done
nvidia-smi --query-gpu=$q --format=csv >"$o/gpu-after.csv"
