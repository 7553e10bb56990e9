#!/usr/bin/env bash
# The head's repro on the GPU machine, one call, the carried build
# (scripts/capture/pack-build.sh), KERNEL_REQUIRE_GPU=1:
#  - `./repro --prebuilt all --skip inspect --keep-going --profile-set
#    bench` on softmax bf16 (inspect needs no GPU: CI runs it): the test
#    stage, the sanitizer's four tools on the smoke set and its negative
#    control through the summary verdict of bc492c6 (unreadable counts and
#    leaked bytes fail, counts saturate), the profile stage's Nsight
#    Compute tables through the ncu CSV reader of 30292f8 (only launch
#    numbers make rows), the time stage, the archive, and the report
#    (report.md and report.html through the escapers of bc492c6 and
#    706bcae); the run's key-metrics CSV, its manifest's stage records
#    and its report copied out;
#  - compare reading bundles as they are (48e8069): the fresh bundle
#    against the final run's bench-all.json (on another card: a
#    comparison across runs, expected near 1 with a note on the UUIDs), and
#    a copy with one byte changed (refused, exit 2);
#  - verify of the bundle, and of the changed copy (exit 4);
#  - report of a bundle (exit 1, naming it a file);
#  - the write and read flush sets of the final run compared (refused:
#    the protocols differ, d3f7dc6);
#  - the GPU ctest entries;
#  - time left: the whole benchmark set of the head's build, compared with
#    the final run's (the kernels are the same; the host code is newer).
#   bash scripts/capture/readers-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: readers-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
runs=/tmp/readers-runs
run repro-all.txt 300 ./repro --prebuilt --out "$runs" \
  --skip inspect --keep-going --profile-set bench \
  --select "--op softmax --dtype bf16" all
b=$(ls "$runs"/*.tar.gz 2>/dev/null | head -1)
d=${b%.tar.gz}
cp "$d/profile/ncu-key-metrics.csv" "$out/" 2>/dev/null
python3 - "$d/manifest.json" > "$out/manifest-stages.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(json.dumps({k: m[k] for k in m if k != "files"}, indent=1))
PY
cp "$d/report.md" "$d/report.html" "$out/" 2>/dev/null
run repro-verify.txt 60 ./repro verify "${b:-$runs/none.tar.gz}"
run compare-bundle.txt 60 ./repro compare "${b:-$runs/none.tar.gz}" \
  results/h200/bench/bench-all.json
python3 - "${b:-/dev/null}" /tmp/readers-bad.tar.gz <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[len(d) // 2] ^= 0x20
open(sys.argv[2], "wb").write(d)
PY
run compare-bad-bundle.txt 60 ./repro compare /tmp/readers-bad.tar.gz \
  results/h200/bench/bench-all.json
run verify-bad-bundle.txt 60 ./repro verify /tmp/readers-bad.tar.gz
run report-bundle.txt 60 ./repro report "${b:-$runs/none.tar.gz}"
run compare-flushes.txt 60 ./repro compare results/h200/bench/bench-all.json \
  results/h200/bench/bench-all-read.json
run ctest-gpu.txt 40 ctest --test-dir build/linux/tests -L gpu \
  -E "gpu\.test_only" --output-on-failure
cp "${b:-/dev/null}" "$out/" 2>/dev/null
# The head's whole benchmark set (the kernels are the final run's; the
# host code is not) beside the final run's, when there is time for it.
if [ "$(left)" -gt 175 ]; then
  run bench-all.txt 170 "$pf" --bench --json "$out/bench-all-head.json"
  run compare-head.txt 30 ./repro compare results/h200/bench/bench-all.json \
    "$out/bench-all-head.json"
fi
gpu_csv gpu-after.csv
finish
exit 0
