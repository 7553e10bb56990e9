#!/usr/bin/env bash
# Captures real NVIDIA tool output on the GPU machine for the parsers' test
# fixtures. Run from the repo root on the GPU machine:
#   bash scripts/capture/capture-tool-fixtures.sh OUTDIR
# Every file written starts with nothing added: the raw tool output. The
# commands are listed in OUTDIR/COMMANDS.txt with their exit codes.
set -u
out=${1:?usage: capture-tool-fixtures.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
log="$out/COMMANDS.txt"
: >"$log"
run() { # run NAME CMD...: stdout+stderr -> OUTDIR/NAME, exit code logged
  local name=$1; shift
  local t0=$(date +%s.%N)
  "$@" >"$out/$name" 2>&1
  local rc=$?
  printf '%s\trc=%d\t%ss\t%s\n' "$name" "$rc" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" "$*" >>"$log"
}
nsys=$(command -v nsys || ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
cd "$work"
run nvcc-version.txt nvcc --version
run probe-ptxas.txt nvcc -arch=sm_90 -lineinfo -Xptxas -v -o probe "$here/probe.cu"
run cs-version.txt compute-sanitizer --version
run memcheck-oob.txt compute-sanitizer --tool memcheck --leak-check full --error-exitcode 86 ./probe oob
run memcheck-clean.txt compute-sanitizer --tool memcheck --leak-check full --error-exitcode 86 ./probe clean
run memcheck-leak.txt compute-sanitizer --tool memcheck --leak-check full --error-exitcode 86 ./probe leak
run racecheck-race.txt compute-sanitizer --tool racecheck --error-exitcode 86 ./probe race
run racecheck-clean.txt compute-sanitizer --tool racecheck --error-exitcode 86 ./probe clean
run initcheck-uninit.txt compute-sanitizer --tool initcheck --error-exitcode 86 ./probe uninit
run initcheck-clean.txt compute-sanitizer --tool initcheck --error-exitcode 86 ./probe clean
run synccheck-sync.txt compute-sanitizer --tool synccheck --error-exitcode 86 ./probe sync
run synccheck-clean.txt compute-sanitizer --tool synccheck --error-exitcode 86 ./probe clean
run cuobjdump-resource-usage.txt cuobjdump --dump-resource-usage ./probe
run cuobjdump-sass.txt cuobjdump -sass ./probe
run ncu-version.txt ncu --version
run ncu-run.txt ncu --profile-from-start off --clock-control none --export ncu_probe --force-overwrite ./probe profile
run ncu-raw.csv ncu --import ncu_probe.ncu-rep --csv --page raw --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size
run ncu-details.csv ncu --import ncu_probe.ncu-rep --csv --page details
run ncu-nvtx.txt ncu --import ncu_probe.ncu-rep --print-nvtx-rename kernel --csv --page raw --metrics gpu__time_duration.sum
if [ -n "$nsys" ]; then
  run nsys-version.txt "$nsys" --version
  run nsys-run.txt "$nsys" profile --capture-range=cudaProfilerApi --capture-range-end=stop -o timeline --force-overwrite true ./probe profile
  ls -la "$work" >"$out/nsys-files.txt" 2>&1
else
  echo "nsys not found" >"$out/nsys-files.txt"
fi
run nvidia-params.txt cat /proc/driver/nvidia/params
run nvidia-smi-q.txt nvidia-smi -q
run nvidia-smi-L.txt nvidia-smi -L
run apps.txt nvidia-smi --query-compute-apps=pid,name --format=csv,noheader
run id.txt id
cp "$work/ncu_probe.ncu-rep" "$out/" 2>/dev/null
exit 0
