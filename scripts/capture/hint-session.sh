#!/usr/bin/env bash
# The cache-hint experiment (docs/PERFORMANCE.md, "What bounds the cases
# that miss", item 2): on the GPU machine, with the default binary and the
# variants of scripts/capture/hint-variants.sh in BIN (default .carry/bin):
#   bash scripts/capture/hint-session.sh OUTDIR [BUDGET_S] [VARIANTS...]
# Times each selection cold with the default build, then each variant
# (cuda_portfolio-NAME), back to back in one lease. As run on 2026-11-29
# (results/h200/bounds/hints/): default = loads .cs (v4b), ld1 = loads .nc
# (the default since), ld1st1 = loads .nc and plain stores.
set -u
out=${1:?usage: hint-session.sh OUTDIR [BUDGET_S] [VARIANTS...]}
budget=${2:-200}
shift 2 2>/dev/null || shift $#
variants=${*:-cs stplain}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for sel in "--op softmax_backward --dtype fp32" "--op rmsnorm --dtype fp32" "--op softmax --dtype bf16" "--op rmsnorm_backward --dtype fp32"; do
  tag=$(echo "$sel" | awk '{print $2"-"$4}')
  run "default-$tag.txt" 40 "$pf" --bench $sel --json "$out/default-$tag.json"
  for v in $variants; do
    run "$v-$tag.txt" 40 "$pf-$v" --bench $sel --json "$out/$v-$tag.json"
  done
done
finish
python3 scripts/capture/bench-table.py "$out"/*.json | awk '{print $1, $2, $3, $4, $5, $7}'
exit 0
