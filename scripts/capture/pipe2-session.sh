#!/usr/bin/env bash
# Second PIPE round (v6 in docs/PERFORMANCE.md): the default build's PIPE
# (two stages, groups = the H200's resident counts), the variants of
# scripts/capture/hint-variants.sh beside it in VAR (default .carry/var):
# cuda_portfolio-nst3 (-DCPK_PIPE_NST=3 -DCPK_PIPE_CLAMP=1: three stages)
# and cuda_portfolio-wide (-DCPK_PIPE_TABLE=1 -DCPK_PIPE_CLAMP=1: twice the
# threads, half the slots), and fused_k (CPK_FUSED_PIPE=0), on the GPU
# machine:
#   bash scripts/capture/pipe2-session.sh OUTDIR [BUDGET_S]
# Needs the default build and the variants built from 0ba933f: 15e3798
# removed PIPE, its switches (CPK_FUSED_PIPE, CPK_FUSED_DEBUG) and its
# macros (CPK_PIPE_*).
set -u
out=${1:?usage: pipe2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for v in nst3 wide; do
  run "test-$v.txt" 40 "$var/cuda_portfolio-$v" --test-only --op rmsnorm_backward
done
sel="--bench --op rmsnorm_backward"
run bench-old-1.txt 40 env CPK_FUSED_PIPE=0 "$pf" $sel --json "$out/bench-old-1.json"
run bench-pipe.txt 40 env CPK_FUSED_DEBUG=1 "$pf" $sel --json "$out/bench-pipe.json"
for v in nst3 wide; do
  run "bench-$v.txt" 40 env CPK_FUSED_DEBUG=1 "$var/cuda_portfolio-$v" $sel --json "$out/bench-$v.json"
done
run bench-old-2.txt 40 env CPK_FUSED_PIPE=0 "$pf" $sel --json "$out/bench-old-2.json"
finish
exit 0
