#!/usr/bin/env bash
# The output checks of cuda_portfolio and repro on the GPU machine (e26bce2,
# 2f57b43, 99ca42b, 81545c0: host code only, the kernels unchanged), one call,
# KERNEL_REQUIRE_GPU=1, the carried build (scripts/capture/pack-build.sh):
# a --json PATH that is a folder, one in a missing folder and a --dump DIR
# that cannot be made, and a timing option without --json, each refused
# (exit 2) before anything runs; the
# --json file's folder removed while the run times (exit 4, the lost file
# named); a run that writes its --json and --dump files; the whole
# --test-only; the GPU ctest entries; `repro --prebuilt all --only
# test,time` on one selection and `repro verify` of its bundle.
#   bash scripts/capture/outputs-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: outputs-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
sel="--op softmax --dtype bf16"
run json-is-folder.txt 20 "$pf" --bench $sel --json "$out"
run json-no-folder.txt 20 "$pf" --bench $sel --json /nonexistent/r.json
run dump-no-folder.txt 20 "$pf" --smoke --dump /proc/cpk-dump
run flush-no-json.txt 20 "$pf" --bench $sel --flush read
# exit 4: the folder of the --json file goes away while the cases are timed
mkdir -p /tmp/gone
run json-folder-removed.txt 60 bash -c \
  "\"$pf\" --bench --op softmax --json /tmp/gone/r.json & p=\$!; sleep 4; rm -rf /tmp/gone; wait \$p"
run json-and-dump.txt 60 "$pf" $sel --shape 3x1000 --json "$out/sel.json" \
  --dump "$out/dump"
run test-only.txt 170 "$pf" --test-only
run ctest-gpu.txt 40 ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
run repro-test-time.txt 150 ./repro --prebuilt --out /tmp/outputs-runs \
  --only test,time --select "$sel" all
b=$(ls /tmp/outputs-runs/*.tar.gz 2>/dev/null | head -1)
run repro-verify.txt 30 ./repro verify "${b:-/tmp/outputs-runs/none.tar.gz}"
[ -n "$b" ] && cp "$b" "$out/"
finish
exit 0
