#!/usr/bin/env bash
# The command line and launcher changes of 2026-12-05 (second session) on
# the GPU machine, one call, the carried build (scripts/capture/pack-build.sh),
# KERNEL_REQUIRE_GPU=1. No kernel changed; this checks the product, not a
# kernel:
#  - scripts/setup-deps.sh --check and --cmake (the machine's cmake is
#    pip's; no libuv or jansson headers, no network);
#  - ./repro called from another folder (doctor: a read-only command, so
#    the existing native runs, no install tried);
#  - --select refusals: a word repro refuses itself (--help), and words
#    cuda_portfolio --check-args refuses with the real binary (a variant
#    the op does not have); cuda_portfolio's own refusals before the
#    device (--json /dev/null) and --check-args on the real binary;
#  - `./repro --prebuilt all --skip inspect --keep-going` on softmax bf16
#    (inspect needs no GPU: CI runs it): every stage but build and
#    inspect on the H200, the archive and the report; its manifest's stage
#    records and report copied out;
#  - verify of the bundle; compare and report run from the runs' folder
#    with relative paths (they were read from the root before);
#  - the GPU ctest entries.
#   bash scripts/capture/cli-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: cli-session.sh OUTDIR [BUDGET_S]}
budget=${2:-480}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
root=$(pwd)
runs=/tmp/cli-runs
gpu_csv gpu-before.csv
run setup-check.txt 20 bash scripts/setup-deps.sh --check
run setup-cmake.txt 20 bash scripts/setup-deps.sh --cmake
run doctor-elsewhere.txt 30 bash -c "cd /tmp && '$root/repro' doctor --only time"
run select-help.txt 30 ./repro --prebuilt --out "$runs-refused" \
  --select "--op softmax --help" time
run select-nocase.txt 30 ./repro --prebuilt --out "$runs-refused" \
  --select "--op copy --variant warp" time
run json-devnull.txt 20 "$pf" --op softmax --json /dev/null
run check-args.txt 20 "$pf" --check-args --bench --json /tmp/x.json \
  --op softmax --dtype bf16
run refused-runs.txt 10 ls -la "$runs-refused"
run repro-all.txt 330 ./repro --prebuilt --out "$runs" --skip inspect \
  --keep-going --select "--op softmax --dtype bf16" all
b=$(ls "$runs"/*.tar.gz 2>/dev/null | head -1)
d=${b%.tar.gz}
python3 - "$d/manifest.json" >"$out/manifest-stages.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(json.dumps({k: m[k] for k in m if k != "files"}, indent=1))
PY
cp "$d/report.md" "$out/" 2>/dev/null
run verify.txt 60 ./repro verify "${b:-$runs/none.tar.gz}"
run compare-relative.txt 60 bash -c "cd '$runs' && '$root/repro' compare \
  '$(basename "${b:-none.tar.gz}")' '$root/results/h200/bench/bench-all.json'"
run report-relative.txt 60 bash -c "cd '$runs' && '$root/repro' report \
  '$(basename "${d:-none}")' --no-finish"
run ctest-gpu.txt 60 ctest --test-dir build/linux/tests -L gpu \
  -E "gpu\.test_only" --output-on-failure
finish
exit 0
