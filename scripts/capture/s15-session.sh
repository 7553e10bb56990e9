#!/usr/bin/env bash
# The fifteenth session's check of the head on a GPU that is not an H200
# (docs/PERFORMANCE.md, "fifteenth session"): the product end to end with the
# real tools after the fourteenth session's changes to the runner and the
# archive (created anew with O_EXCL, the first signal recorded, links
# refused), which no GPU had run. Times no kernel for #9. Run from the
# repository root with the build packed by scripts/capture/pack-build.sh
# extracted:
#   bash scripts/capture/s15-session.sh OUTDIR [SECONDS]
# 1. ./repro --prebuilt doctor (every stage's environment check);
# 2. ./repro --prebuilt sanitize interrupted by SIGINT after 30 s, while
#    compute-sanitizer runs: exit 130 expected, the manifest `interrupted`
#    with `interrupted_by` SIGINT, no sanitizer or cuda_portfolio left
#    running, and `repro verify` of the interrupted run folder;
# 3. the same with SIGTERM to the bash launcher ./repro during the test
#    stage's --test-only;
# 4. ./repro --prebuilt all (inspect skipped: the build machine runs it) on
#    softmax bf16 with the time that is left, its bundle verified (kept:
#    its manifest and report).
# OUTDIR is packed as OUTDIR.tar.gz beside it.
set -u
out=${1:?usage: s15-session.sh OUTDIR [SECONDS]}
budget=${2:-330}
BIN=build/linux/bin
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
run repro-doctor.txt 30 ./repro --prebuilt doctor
# what is left of the children after an interrupted run: nothing expected
leftovers() {
  pgrep -a -f 'compute-sanitizer|cuda_portfolio|bin/repro' || echo "none"
}
# newest run folder under $1, its manifest's status lines, and verify's answer
after_interrupt() {
  local d
  d=$(ls -d "$1"/*/ 2>/dev/null | tail -1)
  {
    echo "run folder: $d"
    echo "left running:"
    leftovers
    if [ -n "$d" ] && [ -f "$d/manifest.json" ]; then
      grep -E '"(status|interrupted_by|interrupted_during|exit_code)"' "$d/manifest.json" | head -20
      gzip -c "$d/manifest.json" >"$out/$2-manifest.json.gz"
      build/linux/bin/repro verify "$d"
      echo "verify exit $?"
    else
      echo "no manifest"
    fi
  } >"$out/$2-after.txt" 2>&1
}
# NAME SIGNAL SECONDS CMD...: CMD sent SIGNAL after SECONDS; its own exit
# code recorded (timeout's 124 would hide it), then after_interrupt
interrupt() {
  local name=$1 sig=$2 secs=$3
  shift 3
  timeout --preserve-status -s "$sig" -k 20 "$secs" "$@" >"$out/$name.txt" 2>&1
  printf '%s\trc=%d\t%s after %ss\t%s\n' "$name.txt" "$?" "$sig" "$secs" "$*" >>"$log"
  sleep 2
  after_interrupt "$out/$name" "$name"
}
if [ "$(left)" -gt 60 ]; then
  interrupt int-sanitize INT 30 build/linux/bin/repro --prebuilt sanitize --out "$out/int-sanitize"
fi
if [ "$(left)" -gt 45 ]; then
  # the launcher, while the test stage's --test-only runs
  interrupt int-launcher TERM 25 ./repro --prebuilt test --out "$out/int-launcher"
fi
# repro all last, with what is left (the interrupts are the shorter); if
# that is too little, the SIGINT at its end is one more interrupt, and
# its exit code (130) is recorded, not timeout's
lim=$(upto "$(left)")
s0=$(date +%s)
timeout --preserve-status -s INT -k 20 "$lim" ./repro --prebuilt all --skip inspect --out "$out/runs" --keep-going --select "--op softmax --dtype bf16" >"$out/repro-all.txt" 2>&1
printf '%s\trc=%d\t%ds (limit %ss)\t%s\n' repro-all.txt "$?" "$(($(date +%s) - s0))" "$lim" "./repro --prebuilt all" >>"$log"
bundles_only "$out/runs"
gpu_csv gpu-after.csv
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
exit 0
