#!/usr/bin/env bash
# Captures cuda_portfolio's own tool output on the GPU machine for the
# placeholders in tests/fixtures/tools/ (the tests of src/repro/tools skip
# until they are real). Run from the repository root, with the build folder
# build/linux present (carried or built there):
#   bash scripts/capture/capture-project-fixtures.sh OUTDIR
# Each OUTDIR/<name> is named exactly like the placeholder it replaces; its
# first line says what was run and where ("# CAPTURED: ..."; the tests skip
# lines starting with '#'), then the tool's raw output. The sanitizer
# captures end with "# exit N", which the tests read. OUTDIR/COMMANDS.txt
# lists every command with its exit code and duration. The script ends by
# printing the cp command that puts the captures in place.
#
# ncu_noperm.txt is not captured: it needs a machine where
# RmProfilingAdminOnly=1 and a non-root user; the H200's counters are open.
set -u
out=${1:?usage: capture-project-fixtures.sh OUTDIR}
bin=build/linux/bin/cuda_portfolio
if [ ! -x "$bin" ]; then
  echo "capture-project-fixtures: $bin not found: run from the repository" \
       "root with build/linux built or carried" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/COMMANDS.txt"
: >"$log"
PATH=$PATH:/usr/local/cuda/bin
# Every step is bounded: racecheck over the smoke set is the slow one.
limit=${CAPTURE_TIMEOUT:-600}
host=$(hostname 2>/dev/null || echo unknown)
captured=()

# run NAME EXIT_LINE CMD...: stdout+stderr -> OUTDIR/NAME after a header;
# EXIT_LINE=1 appends "# exit N" as the placeholders' commands did.
run() {
  local name=$1 exit_line=$2
  shift 2
  local t0 rc
  t0=$(date +%s.%N)
  {
    printf '# CAPTURED: %s  (on %s, %s, timeout %ss)\n' "$*" "$host" \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$limit"
    timeout "$limit" "$@" 2>&1
    rc=$?
    if [ "$exit_line" = 1 ]; then
      echo "# exit $rc"
    fi
    echo "$rc" >"$out/.rc"
  } >"$out/$name"
  rc=$(cat "$out/.rc")
  rm -f "$out/.rc"
  printf '%s\trc=%d\t%ss\t%s\n' "$name" "$rc" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" \
    "$*" >>"$log"
  printf '%-34s rc=%d\n' "$name" "$rc"
  captured+=("$name")
}

san() { # san NAME TOOL [ARGS...]: compute-sanitizer with the exact allocator
  local name=$1 tool=$2
  shift 2
  run "$name" 1 env CUDA_PORTFOLIO_ALLOC=exact compute-sanitizer \
    --tool "$tool" --error-exitcode 86 "$@"
}

run cuobjdump_resource_usage.txt 0 cuobjdump --dump-resource-usage "$bin"
san sanitize_memcheck_smoke.txt memcheck --leak-check full \
  "$bin" --test-only --smoke
san sanitize_racecheck_smoke.txt racecheck "$bin" --test-only --smoke
san sanitize_initcheck_smoke.txt initcheck "$bin" --test-only --smoke
san sanitize_synccheck_smoke.txt synccheck "$bin" --test-only --smoke
san sanitize_memcheck_negative.txt memcheck "$bin" --negative-control
run ncu_profile_console.txt 0 ncu --profile-from-start off \
  --clock-control none --export "$out/cp-fixture" --force-overwrite \
  "$bin" --profile-range --smoke --json "$out/ncu-profiled.json"
if [ -s "$out/cp-fixture.ncu-rep" ]; then
  run ncu_raw.txt 0 ncu --import "$out/cp-fixture.ncu-rep" --csv --page raw
  run ncu_details.txt 0 ncu --import "$out/cp-fixture.ncu-rep" --csv \
    --page details
else
  echo "no $out/cp-fixture.ncu-rep: ncu_raw.txt and ncu_details.txt not" \
       "captured (see ncu_profile_console.txt)" >&2
fi

echo
echo "Commands and exit codes: $log"
echo "Put the captures in place (from the repository root):"
printf '  cp'
for f in "${captured[@]}"; do printf ' %s' "$out/$f"; done
printf ' tests/fixtures/tools/\n'
