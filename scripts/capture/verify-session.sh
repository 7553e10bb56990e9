#!/usr/bin/env bash
# The verification and hygiene changes of 2026-12-05 (third session) on the
# GPU machine, one call of about 4 minutes, the carried build
# (scripts/capture/pack-build.sh). No kernel changed; this checks what the
# harness now asks of the kernels:
#  - the whole --test-only set, whose extreme tensors of 3 rows and more now
#    end with the "ends" row (16 first and last, 0 between: a dropped or
#    doubled first or last element of a reduction fails on every width),
#    and whose bf16 specials now hold a bf16 subnormal; copy's exact
#    compare now tells -0 from +0 (docs/VALIDATION.md);
#  - one benchmark set (add fp32): the ceilings are now bracketed by NVML
#    readings, and a run is clean only with every case passed and its
#    throttle reasons read (docs/BENCHMARKING.md "Hygiene"); clean.txt has
#    the document's clean flag and warnings;
#  - the host-memory check: fp16 softmax 100000x60000 needs 24 GB on the
#    device (fits the H200) and about 228 GB on the host (the machine has
#    128 GiB): exit 2 with "host memory" in host-refuse.txt, within
#    seconds, where it used to fill until the OOM killer came.
# Since 2026-12-05 (fourth session) the same call checks add's exact
# compare (the sum rounded once to the dtype; add's second input meets the
# first one's specials with its own) on the GPU, inside --test-only and in
# add-only.txt (every dtype, the case lines), and --mask on an op other
# than softmax: exit 2 in mask-refuse.txt.
# Since 2026-12-05 (fifth session): the near-eps rmsnorm row and masked
# row 3's kept first position (inside --test-only), the verification
# control (--verify-control: add_ftz must fail add's fp32 cases exactly
# where the host predicts; verify-control.txt), the GPU ctest entries but
# the two whole sets (ctest-gpu.txt) and the repro test stage with the control as its first
# step (repro-test/, repro --prebuilt test). Ran on the H200 as
# checks/control-2026-12-05T1357/. Added after that run, for the next
# lease: masked row 3's +inf and NaN at masked positions (inside
# --test-only and repro test) and the banner's git= (every step's first
# line).
#   bash scripts/capture/verify-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: verify-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
# most telling first: a short lease still brings the new checks back
# (each step's limit is cut to what the budget has left)
run verify-control.txt $(upto 60) "$pf" --verify-control
run repro-test.txt $(upto 240) ./repro --prebuilt --out "$out/repro-test" test
run ctest-gpu.txt $(upto 120) ctest --test-dir build/linux/tests -L gpu \
  -E 'gpu\.(test_only|smoke)' --output-on-failure
run mask-refuse.txt $(upto 20) "$pf" --op row_sum --mask
run test-only.txt $(upto 200) "$pf" --test-only
run add-only.txt $(upto 60) "$pf" --test-only --op add
run bench-add.txt $(upto 60) "$pf" --bench --op add --dtype fp32 --budget 0.5 \
  --json "$out/bench-add.json"
run host-refuse.txt $(upto 60) "$pf" --op softmax --dtype fp16 \
  --shape 100000x60000
python3 - "$out/bench-add.json" >"$out/clean.txt" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("clean:", d.get("clean"))
for w in d.get("warnings", []):
    print("warning:", w)
PY
finish_checks verify
exit 0
