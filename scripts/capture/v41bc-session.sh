#!/usr/bin/env bash
# v41b and v41c (docs/PERFORMANCE.md): two forms of v41a's balanced
# segment path for FUSED row_sum, each against the build's default in one
# lease; V picks the form:
#   V=segbp  v41b, segbp_k (-DCPK_SEGB=2): v41a with the next step's loads
#            issued before the current step's are added;
#   V=segi   v41c, segi_k (-DCPK_SEGB=3): the rows' vectors cut into
#            C = G x K equal chunks of at most a step, block b taking
#            chunks b, b + G, ... (neighbouring chunks read together, as
#            seg_k's blocks do), the next chunk's loads issued first.
# Variants ($VAR): `git apply` results/h200/bounds/v41c-2026-12-03T1433/
# v41.patch.gz on c8cfa22, build, then scripts/capture/hint-variants.sh
# with SOURCES=kernels/rowseg.cu: $V (-DCPK_SEGB=2 or 3: 8 loads a thread
# a step) and ${V}4 (that and -DCPK_SEG_U=4: 4 loads). Checks first: each
# variant's FUSED row_sum cases through the path (CPK_SEG_MIN=1) under
# --test-only and its row_sum smoke set under memcheck, racecheck and
# initcheck, and $V's whole --test-only; then row_sum default / $V /
# ${V}4 / default at the three widest standard shapes in every dtype,
# fp32 and bf16 8192x8192 with the path forced, and Nsight Compute on the
# kernel (${V}_k) of both at fp32 2048x32768:
#   V=segbp|segi BIN=DIR VAR=DIR bash scripts/capture/v41bc-session.sh \
#     OUTDIR [BUDGET_S]
set -u
out=${1:?usage: V=segbp|segi v41bc-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
v0=${V:?V=segbp or V=segi}
tag=$([ "$v0" = segi ] && echo v41c || echo v41b)
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
sp=$var/cuda_portfolio-$v0
s4=$var/cuda_portfolio-${v0}4
for v in "$v0" "${v0}4"; do
  VT_SEL="--op row_sum" VT_ENV=CPK_SEG_MIN=1 vtools $v \
    "$var/cuda_portfolio-$v" memcheck racecheck initcheck
done
run "test-only-$v0-all.txt" 150 "$sp" --test-only
ONE_BUDGET=0.3
abc_grid row_sum "fp32 bf16 fp16" "2048x32768 256x262144 32x1048576" \
  "$v0" "$sp" "${v0}4" "$s4"
BA_ENV=CPK_SEG_MIN=1 abc_grid row_sum "fp32 bf16" "8192x8192" "$v0" "$sp" \
  "${v0}4" "$s4"
for v in "$v0" "${v0}4"; do
  NCU_K=${v0}_k ncu_one "ncu-$v-row_sum-fp32-2048x32768" \
    "$var/cuda_portfolio-$v" row_sum fp32 2048x32768 SpeedOfLight \
    MemoryWorkloadAnalysis Occupancy LaunchStats
done
finish_checks "$tag"
exit 0
