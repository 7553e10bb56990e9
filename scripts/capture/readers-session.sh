#!/usr/bin/env bash
# This session's reader changes on the GPU machine, one call, the carried
# build (scripts/capture/pack-build.sh), KERNEL_REQUIRE_GPU=1:
#  - the profile stage's Nsight Compute tables through the ncu CSV reader
#    of 30292f8 (only launch numbers make rows): `./repro --prebuilt --only
#    profile --profile-set bench` on softmax bf16, then the run's
#    key-metrics CSV and the manifest's profile record copied out;
#  - compare reading bundles as they are (48e8069): the fresh bundle
#    against the final run's bench-all.json (on another card: a
#    comparison across runs, expected near 1 with a note on the UUIDs), and
#    a copy with one byte changed (refused, exit 2);
#  - report of a bundle (exit 1, naming it a file);
#  - the write and read flush sets of the final run compared (refused:
#    the protocols differ, d3f7dc6).
#   bash scripts/capture/readers-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: readers-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
runs=/tmp/readers-runs
run repro-profile.txt 240 ./repro --prebuilt --out "$runs" --only profile \
  --profile-set bench --select "--op softmax --dtype bf16" all
b=$(ls "$runs"/*.tar.gz 2>/dev/null | head -1)
d=${b%.tar.gz}
cp "$d/profile/ncu-key-metrics.csv" "$out/" 2>/dev/null
python3 - "$d/manifest.json" > "$out/profile-record.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(json.dumps([s for s in m["stages"] if s["name"] == "profile"], indent=1))
PY
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
run report-bundle.txt 60 ./repro report "${b:-$runs/none.tar.gz}"
run compare-flushes.txt 60 ./repro compare results/h200/bench/bench-all.json \
  results/h200/bench/bench-all-read.json
cp "${b:-/dev/null}" "$out/" 2>/dev/null
gpu_csv gpu-after.csv
finish
exit 0
