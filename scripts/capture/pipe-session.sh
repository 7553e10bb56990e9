#!/usr/bin/env bash
# rmsnorm_backward's staged rows (PIPE, kernels/rowfused.cu; v6 in
# docs/PERFORMANCE.md) against fused_k (CPK_FUSED_PIPE=0), on the GPU
# machine, with the binaries in BIN (default .carry/bin):
#   bash scripts/capture/pipe-session.sh OUTDIR [BUDGET_S]
# The kernels' self-test (resident groups printed by CPK_FUSED_DEBUG=1), the
# verification set, the sanitizer on rmsnorm_backward, PIPE's dx and dw
# against fused_k's bit for bit where both use the same groups, then the
# rmsnorm_backward benchmark set: PIPE, fused_k, PIPE again (the spread
# between the two PIPE runs is the lease's noise). Needs binaries built from
# 0ba933f: 15e3798 removed PIPE with its switches (CPK_FUSED_PIPE,
# CPK_FUSED_DEBUG), which later builds ignore.
set -u
out=${1:?usage: pipe-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 150 env CPK_FUSED_DEBUG=1 "$bin/cpk_selftest"
run test-only.txt 150 "$pf" --test-only
for tool in memcheck racecheck synccheck initcheck; do
  run "sanitize-$tool.txt" 60 compute-sanitizer --tool $tool --error-exitcode 9 \
    "$pf" --alloc exact --smoke --op rmsnorm_backward
done
# bit for bit: same seed, PIPE and fused_k, every output file compared
for c in "300x1024 bf16" "300x4096 bf16" "300x8192 bf16" "300x1024 fp32" \
  "300x4096 fp32" "64x32768 bf16"; do
  set -- $c
  for m in 1 0; do
    run "dump-$1-$2-$m.txt" 30 env CPK_FUSED_PIPE=$m "$pf" --op rmsnorm_backward \
      --variant fused --dtype "$2" --shape "$1" --seed 7 --dump "/tmp/dump-$1-$2-$m"
  done
  for f in /tmp/dump-$1-$2-1/*; do
    g=/tmp/dump-$1-$2-0/$(basename "$f")
    if cmp -s "$f" "$g"; then echo "same $1 $2 $(basename "$f")"
    else echo "DIFFER $1 $2 $(basename "$f")"; fi
  done >>"$out/bits.txt"
done
run bench-pipe-1.txt 60 env CPK_FUSED_DEBUG=1 "$pf" --bench --op rmsnorm_backward --json "$out/bench-pipe-1.json"
run bench-old.txt 60 env CPK_FUSED_PIPE=0 "$pf" --bench --op rmsnorm_backward --json "$out/bench-old.json"
run bench-pipe-2.txt 60 "$pf" --bench --op rmsnorm_backward --json "$out/bench-pipe-2.json"
finish
exit 0
