#!/usr/bin/env bash
# The launchers' offline paths and the exit-4 reason on the GPU machine
# (ded1625), one call, KERNEL_REQUIRE_GPU=1, the carried build
# (scripts/capture/pack-build.sh); the GPU machine has no network, so
# apt-get fails there as it does on an auditor's offline machine:
# the --json file's folder removed during --bench --op softmax (exit 4, the
# reason "no such file or directory"); `./repro --prebuilt --only time all`
# on one selection; then, without --prebuilt, `./repro verify` of its
# bundle and `./repro doctor --only time,profile` (they run on the
# existing build, saying so) and `./repro --only time all` (exit 3, naming
# --prebuilt).
#   bash scripts/capture/launcher-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: launcher-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
mkdir -p /tmp/gone
run json-folder-removed.txt 60 bash -c \
  "\"$pf\" --bench --op softmax --json /tmp/gone/r.json & p=\$!; sleep 4; rm -rf /tmp/gone; wait \$p"
run repro-time.txt 60 ./repro --prebuilt --out /tmp/launcher-runs \
  --only time --select "--op softmax --dtype bf16" all
b=$(ls /tmp/launcher-runs/*.tar.gz 2>/dev/null | head -1)
run repro-verify-offline.txt 60 ./repro verify "${b:-/tmp/launcher-runs/none.tar.gz}"
run repro-doctor-offline.txt 60 ./repro doctor --only time,profile
run repro-all-offline.txt 60 ./repro --out /tmp/launcher-runs --only time all
finish
exit 0
