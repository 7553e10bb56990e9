#!/usr/bin/env bash
# The peer sampling side by side (docs/PERFORMANCE.md, Matmul), on the GPU
# machine, with the binary in BIN (default .carry/bin):
#   bash scripts/capture/peer-sampling-session.sh OUTDIR [BUDGET_S]
# The GPU harness tests, then matmul and softmax bf16 (the cuBLAS and cuDNN
# peers) with ours and the peer sampled in alternation (the default) and
# one after the other, alternating the two modes twice.
set -u
out=${1:?usage: peer-sampling-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
mkdir -p build/linux/tests/bench/tmp-test_bench_gpu
for t in run_one_case run_read_flush run_peer_interleaved run_peer_sequential; do
  run "test_bench_gpu-$t.txt" 30 "$bin/test_bench_gpu" $t
done
for i in 1 2; do
  run "matmul-interleaved-$i.txt" 40 "$pf" --bench --op matmul --json "$out/matmul-interleaved-$i.json"
  run "matmul-sequential-$i.txt" 40 "$pf" --bench --op matmul --peer-sampling sequential --json "$out/matmul-sequential-$i.json"
done
run softmax-bf16-interleaved.txt 30 "$pf" --bench --op softmax --dtype bf16 --json "$out/softmax-bf16-interleaved.json"
run softmax-bf16-sequential.txt 30 "$pf" --bench --op softmax --dtype bf16 --peer-sampling sequential --json "$out/softmax-bf16-sequential.json"
finish
exit 0
