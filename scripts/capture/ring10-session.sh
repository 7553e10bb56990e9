#!/usr/bin/env bash
# The review's mend of ring_k (one fill loop: rmsnorm's w copy under
# if constexpr, its columns by where()), whose rmsnorm .text differs from
# v24c's (16 instructions more, in thread 0's prologue): the variant
# cuda_portfolio-v24c is v24c's build (fd80d21). One call, before the final
# run's first steps:
#  - rmsnorm's FUSED cases through the ring wherever it takes them
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only, their smoke set
#    under memcheck (racecheck and the rest: the final run's sanitize
#    stage, whose smoke set's rmsnorm 50x131080 takes the ring);
#  - rmsnorm at 2^20 and 2^18, every dtype, the defaults (the ring):
#    mended / v24c / mended;
#  - nvdisasm of rowskew.cu's cubin before and after (.carry/cub/old.cubin,
#    new.cubin, compiled on the build machine, which has no disassembler):
#    where rmsnorm's instructions changed.
#   BIN=DIR VAR=DIR bash scripts/capture/ring10-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring10-session.sh OUTDIR [BUDGET_S]}
budget=${2:-160}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
run gpu-before.csv 20 nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv
VT_TLIM=40 VT_LIM=40 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
  vtools ringall "$pf" memcheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_abc rmsnorm $dt $sh v24c "$var/cuda_portfolio-v24c"
  done
done
for c in old new; do
  [ -f .carry/cub/$c.cubin ] && run sass-$c.txt 60 nvdisasm -c .carry/cub/$c.cubin
done
finish
exit 0
