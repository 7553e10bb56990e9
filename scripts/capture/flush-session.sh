#!/usr/bin/env bash
# Where the time between Nsight Compute's kernel duration and the
# event-bracketed median goes (docs/PERFORMANCE.md, "What bounds the cases
# that miss"): on the GPU machine, with the stripped binary in BIN (default
# .carry/bin):
#   bash scripts/capture/flush-session.sh OUTDIR [BUDGET_S]
# Each selection is timed cold (the default: the L2 written over by a memset
# of twice its size before every sample, three input sets rotated) and then
# hot (--hot: no flush, one input set), back to back in one lease.
set -u
out=${1:?usage: flush-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for sel in "--op softmax_backward --dtype fp32" "--op rmsnorm --dtype fp32" "--op row_sum --dtype bf16" "--op copy --dtype bf16"; do
  tag=$(echo "$sel" | awk '{print $2"-"$4}')
  run "cold-$tag.txt" 40 "$pf" --bench $sel --json "$out/cold-$tag.json"
  run "hot-$tag.txt" 40 "$pf" --bench $sel --hot --json "$out/hot-$tag.json"
done
finish
python3 scripts/capture/bench-table.py "$out"/cold-*.json "$out"/hot-*.json
exit 0
