#!/usr/bin/env bash
# v33 (docs/PERFORMANCE.md): two experiment builds of kernels/rowfused.cu
# against the default, one call. l2pf (-DCPK_L2PF=1): every FUSED row
# load (register slots, cp.async cells, the wide and grid paths' policy
# loads) carries the .L2::256B prefetch-size qualifier. wreg5
# (-DCPK_FUSED_RMS_WREG5=1): 16-bit rmsnorm's 256-thread configuration
# (8192 columns) loads w with the row (v32b) and is built for 4 blocks an
# SM. Per variant: its resource usage, the load instructions its SASS
# holds (l2pf and the default), its --test-only (FUSED; wreg5: rmsnorm), its
# FUSED smoke set under memcheck, edge shapes under memcheck and
# racecheck; then def / l2pf / def on every row op's benchmark set, and
# def1 / wreg5 / def2 on rmsnorm 16-bit 8192x8192 three times and at
# 1024 and 4096 columns once; Nsight Compute on row_sum and rmsnorm bf16
# 8192x8192, def against l2pf, if time is left.
#   BIN=DIR VAR=DIR bash scripts/capture/v33-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v33-session.sh OUTDIR [BUDGET_S]}
budget=${2:-560}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
sass_ld() {
  cuobjdump -sass "$1" | grep -o 'LDG[.A-Z0-9_]*\|LDGSTS[.A-Z0-9_]*' |
    sort | uniq -c
}
run sass-ld-def.txt 90 bash -c "$(declare -f sass_ld); sass_ld $pf"
l2="$var/cuda_portfolio-l2pf"
w5="$var/cuda_portfolio-wreg5"
run sass-ld-l2pf.txt 90 bash -c "$(declare -f sass_ld); sass_ld $l2"
for v in l2pf wreg5; do
  run cuobjdump-$v.txt 60 cuobjdump --dump-resource-usage "$var/cuda_portfolio-$v"
done
VT_TLIM=90 vcheck l2pf "$l2"
SAN_TAG=l2pf sanshapes "$l2" row_sum 300x2000 33x4097
SAN_TAG=l2pf sanshapes "$l2" softmax 5x40000
run test-only-wreg5.txt 60 "$w5" --test-only --op rmsnorm
run memcheck-smoke-wreg5.txt 45 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$w5" --alloc exact --smoke --variant fused
SAN_TAG=wreg5 sanshapes "$w5" rmsnorm 5x8192 33x6000 300x8000
export ONE_BUDGET=0.4
for dt in bf16 fp16; do
  bench_abc rmsnorm $dt 8192x8192 wreg5 "$w5"
done
for op in row_sum rmsnorm softmax softmax_backward rmsnorm_backward; do
  abc 60 def l2pf "$l2" $op
done
for dt in bf16 fp16; do
  BA_SUF=b bench_abc rmsnorm $dt 8192x8192 wreg5 "$w5"
  bench_abc rmsnorm $dt 65536x1024 wreg5 "$w5"
  bench_abc rmsnorm $dt 16384x4096 wreg5 "$w5"
  BA_SUF=c bench_abc rmsnorm $dt 8192x8192 wreg5 "$w5"
done
if [ "$(left)" -gt 90 ]; then
  NCU_K=fused_k ncu_one ncu-def-row_sum "$pf" row_sum bf16 8192x8192 \
    SpeedOfLight MemoryWorkloadAnalysis
  NCU_K=fused_k ncu_one ncu-l2pf-row_sum "$l2" row_sum bf16 8192x8192 \
    SpeedOfLight MemoryWorkloadAnalysis
  NCU_K=fused_k ncu_one ncu-def-rmsnorm "$pf" rmsnorm bf16 8192x8192 \
    SpeedOfLight MemoryWorkloadAnalysis
  NCU_K=fused_k ncu_one ncu-l2pf-rmsnorm "$l2" rmsnorm bf16 8192x8192 \
    SpeedOfLight MemoryWorkloadAnalysis
fi
finish
exit 0
