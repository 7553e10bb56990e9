#!/usr/bin/env bash
# v37a (docs/PERFORMANCE.md): the build ($BIN, the head's kernels) beside
# the variant tail ($VAR/cuda_portfolio-tail, -DCPK_DW_TAIL=1:
# rmsnorm_backward's fused_k and wide_k add dw in their last blocks, no dw
# kernel).
# Checks first: the variant's rmsnorm_backward --test-only, its FUSED smoke
# set under memcheck, racecheck and synccheck, rmsnorm_backward at shapes of
# every fused_k configuration it changes under memcheck and racecheck, and
# dw (and dx) bit for bit against the build's on the same inputs (--seed,
# --dump, cmp); then rmsnorm_backward's benchmark set def / tail / def /
# tail. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v37-session.sh OUTDIR [BUDGET_S]
# (measured: bounds/v37-2026-12-03T0903, dw_tail's first form, counting
# blocks in by a CAS: 0.25-0.86x, not taken; its code is v37a-cas.patch.gz
# there)
set -u
out=${1:?usage: v37-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
tv=$var/cuda_portfolio-tail
run cuobjdump-tail.txt 30 cuobjdump --dump-resource-usage "$tv"
run test-only-tail-rmsnorm_backward.txt 90 "$tv" --test-only --op rmsnorm_backward
VT_TLIM=60 VT_LIM=60 vtools tail "$tv" memcheck racecheck synccheck
# fused_k's configurations: 1 (16-bit 513-1024), 27 (fp32 513-1024),
# 3/5 (4096, 8192), 6 (fp32 8192: the stage), 20-22 (16-bit clusters of
# 2-8), a row group short of rows (5x100), more groups than rows (3x8192);
# wide_k: fp32 at 20000 and 32768 columns
shapes="5x100 300x1024 300x4096 300x8192 3x8192 37x8000 7x20000 150x32768 3x65536"
SAN_TAG=tail sanshapes "$tv" rmsnorm_backward 5x100 300x1024 300x8192 37x8000 7x20000 150x32768
# bits: the same inputs through both binaries, every output compared
bitscmp tail "$tv" rmsnorm_backward "$shapes 4000x1024"
abc 60 def tail "$tv" rmsnorm_backward
run bench-rmsnorm_backward-tail-2.txt 60 "$tv" --bench --op rmsnorm_backward --json "$out/bench-rmsnorm_backward-tail-2.json"
finish_checks v37
exit 0
