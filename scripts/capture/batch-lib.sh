# batch-lib.sh: sourced by the GPU-machine batch scripts of scripts/capture/.
# Needs $out (the output folder) and $budget (seconds for the whole batch);
# creates $out, sets $bin (the binaries: $BIN, default .carry/bin), $pf
# (cuda_portfolio there) and $var (experiment builds beside them: $VAR,
# default .carry/var).
#   left               seconds of the budget that are left
#   upto S             S, or the seconds left less 10 if fewer: a step's
#                      limit cut to what the budget has left
#   gpu_csv NAME       the GPU's name and UUID, clocks, temperature, power
#                      and throttle reasons (nvidia-smi, CSV) into
#                      $out/NAME
#   ncu_bench LIM SEL  Nsight Compute (clocks not locked) on one launch per
#                      benchmark case of the selection SEL (cuda_portfolio
#                      words, "--op X --dtype Y"): the sections that say what
#                      bounds a kernel, the details page as CSV into
#                      $out/ncu-X-Y-details.csv and the profiled run's JSON
#                      into $out/ncu-X-Y.json (the report stays in /tmp:
#                      too big to bring back)
#   ncu_row_ops        ncu_bench on every row op in every dtype and on the
#                      copy (bf16): the counters table of docs/PERFORMANCE.md
#   abc LIM A B VB OP  OP's benchmark set, default build ($pf) as
#                      bench-OP-A-1, the variant VB as bench-OP-B, the default
#                      again as bench-OP-A-2 (LIM seconds each)
#   bench_one NAME BIN OP DTYPE SHAPE [ENV...]
#                      one benchmark case of BIN under ENV into
#                      $out/NAME-OP-DTYPE-SHAPE.{txt,json} (--budget
#                      $ONE_BUDGET, default 0.5; $ONE_LIM s at most, default
#                      20), skipped when $ONE_RESERVE seconds (default 8) or
#                      fewer are left; with ONE_BENCH=0, timed without
#                      --bench as --variant $ONE_VARIANT (default fused):
#                      the way to time a shape --bench does not take
#   vcheck NAME BIN    BIN's FUSED --test-only and its FUSED smoke set
#                      under memcheck into $out/test-only-NAME.txt and
#                      memcheck-smoke-NAME.txt (a variant's check before
#                      it is timed)
#   vtools NAME BIN TOOL...
#                      BIN's FUSED --test-only ($VT_TLIM seconds, default
#                      60) and its FUSED smoke set under each TOOL (exact
#                      allocator; $VT_LIM seconds each, default 90), all
#                      under the environment assignments $VT_ENV (none by
#                      default: e.g. an experiment path forced on every
#                      case), into $out/test-only-NAME.txt and
#                      TOOL-smoke-NAME.txt; $VT_SEL (none by default, e.g.
#                      "--op rmsnorm_backward") narrows both to a selection
#   ncu_one NAME BIN OP DTYPE SHAPE SECTION...
#                      Nsight Compute (clocks not locked) on the launches
#                      of the kernels matching $NCU_K (default fused_k)
#                      of one benchmark case of BIN under $NCU_ENV (none
#                      by default) with the SECTIONs, into $out/NAME.txt
#                      and, the details page as CSV, $out/NAME-details.csv;
#                      with $NCU_METRICS set, those metrics too (ncu's
#                      --metrics) and the raw page as $out/NAME-raw.csv
#   ncu_stalls NAME BIN OP DTYPE SHAPE
#                      ncu_one with the sections that say where a warp's
#                      cycles go (SpeedOfLight, SchedulerStats,
#                      WarpStateStats, InstructionStats, LaunchStats,
#                      Occupancy) and the raw per-reason stall counters
#                      (smsp__average_warps_issue_stalled_*_per_issue_active,
#                      in $out/NAME-raw.csv); $NCU_K, $NCU_ENV and
#                      $NCU_XARGS as for ncu_one
#   gridall BIN TOOL...
#                      BIN's FUSED --test-only and its FUSED smoke set
#                      under each TOOL, every FUSED case through the grid
#                      path (CPK_GRID_MIN=1), into $out/test-only-gridall.txt
#                      and TOOL-smoke-gridall.txt
#   sanshapes BIN OP SHAPE...
#                      BIN's OP at each SHAPE (every dtype, the plan's
#                      pick) under memcheck and racecheck into
#                      $out/TOOL-OP-SHAPE.txt (TOOL-TAG-OP-SHAPE.txt with
#                      $SAN_TAG set: one batch's several binaries)
#   flat_one NAME BIN OP DTYPE N [ENV...]
#                      BIN's OP of N elements as one 1xN row (a copy or
#                      add at any size: not a --bench shape), verified and
#                      timed with its peer, under ENV (CPK_NONE=1 without),
#                      into $out/NAME-OP-DTYPE-N.{txt,json}; --budget
#                      $FLAT_BUDGET (default 0.3), and the cuda_portfolio
#                      words in $FLAT_ARGS (none by default, e.g.
#                      "--flush read") after the others
#   bench_shapes NAME BIN OP "SHAPES"
#                      BIN's --bench of OP at each of SHAPES (every dtype in
#                      one run a shape) into $out/NAME-OP-SHAPE.{txt,json},
#                      30 s each at most: one round of an old / new A/B
#   bench_abc OP DTYPE SHAPE [NAME BIN]...
#                      bench_one of OP DTYPE SHAPE from $pf as def1, from
#                      each BIN as NAME, and from $pf again as def2, all
#                      with no knob set (CPK_NONE=1): a side by side; the
#                      BINs under $BA_ENV instead where it is set; every
#                      name suffixed $BA_SUF (none by default: passes)
#   ncu_as NAME BIN SEL
#                      ncu_bench of SEL on BIN, its files renamed
#                      ncu-NAME-X-Y*
#   ncu_vs NAME BIN SEL
#                      ncu_as def $pf SEL, then ncu_as NAME BIN SEL
#   abc_grid OP "DTYPES" "SHAPES" [NAME BIN]...
#                      bench_abc OP of every dtype (outer) and shape
#   env_grid NAME ENV "OPS" "DTYPES" "SHAPES" [VARIANT...]
#                      per shape (outer), op and dtype, bench_abc with
#                      BA_ENV=ENV: $pf under ENV as NAME and each
#                      $var/cuda_portfolio-VARIANT under ENV as VARIANT,
#                      between $pf's def1 and def2
#   bitscmp NAME BIN OP SHAPES
#                      OP (FUSED, one seed) at each of SHAPES (one word)
#                      in every dtype through $pf and BIN, every file
#                      --dump writes compared by cmp: $out/bits.txt, and a
#                      line bits.txt in COMMANDS.txt whose rc is how many
#                      differ (a variant that must keep the build's bits);
#                      $BITS_FILE instead of bits.txt where it is set (one
#                      batch's several variants)
#   finish             the GPU state after (gpu-after.csv), pack, and the
#                      command log on stdout (the batch's last step)
#   finish_checks TAG  finish, then one line "TAG-checks: OK" when every
#                      check step (memcheck, racecheck, synccheck,
#                      test-only, bits) exited 0, else "TAG-checks: FAIL (N)"
#   pack               gzips $out's text (COMMANDS.txt stays plain) and tars
#                      $out into $out.tar.gz
#   bundles_only DIR   for each repro bundle DIR/*Z-*.tar.gz whose run
#                      folder is beside it: `repro verify` it (output to
#                      $out/verify-bundles.txt) and, when it verifies,
#                      remove the folder (the same files, unpacked; too big
#                      to bring back with Nsight Compute's report)
#   run NAME LIM CMD   runs CMD with a time limit of LIM seconds, stdout and
#                      stderr to $out/NAME, and records NAME, the exit code and
#                      the duration in $out/COMMANDS.txt; a step with 5 s or
#                      less left is recorded as not run
t0=$(date +%s)
mkdir -p "$out"
bin=${BIN:-.carry/bin}
pf=$bin/cuda_portfolio
var=${VAR:-.carry/var}
log="$out/COMMANDS.txt"
: >"$log"
left() { echo $((budget - ($(date +%s) - t0))); }
upto() { local l=$(($(left) - 10)); echo $(($1 < l ? $1 : l)); }
run() {
  local name=$1 lim=$2; shift 2
  local s=$(date +%s)
  if [ "$lim" -le 5 ]; then
    printf '%s\tnot run: no time left\t%s\n' "$name" "$*" >>"$log"; return
  fi
  timeout -s INT -k 10 "$lim" "$@" >"$out/$name" 2>&1
  printf '%s\trc=%d\t%ds\t%s\n' "$name" "$?" "$(($(date +%s) - s))" "$*" >>"$log"
}
gpu_csv() {
  run "$1" 20 nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active --format=csv
}
ncu_bench() {
  local lim=$1 tag
  shift
  tag=$(echo "$*" | awk '{print $2"-"$4}')
  rm -f "/tmp/ncu-$tag.ncu-rep" # never export an earlier run's report
  run "ncu-$tag.txt" "$lim" ncu --profile-from-start off --clock-control none \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats -o "/tmp/ncu-$tag" -f \
    "$pf" --profile-range --bench "$@" --budget 0.3 --min-samples 3 \
    --max-samples 30 --json "/tmp/ncu-$tag.json"
  if [ -f "/tmp/ncu-$tag.ncu-rep" ]; then
    ncu -i "/tmp/ncu-$tag.ncu-rep" --csv --page details \
      >"$out/ncu-$tag-details.csv" 2>&1
  fi
  # the profiled run's own results: which case each launch belongs to
  # (scripts/capture/ncu-table.py)
  [ -f "/tmp/ncu-$tag.json" ] && cp "/tmp/ncu-$tag.json" "$out/ncu-$tag.json"
  return 0
}
ncu_row_ops() {
  local op dt
  for op in softmax rmsnorm row_sum rmsnorm_backward softmax_backward; do
    for dt in bf16 fp16 fp32; do
      ncu_bench 45 --op $op --dtype $dt
    done
  done
  ncu_bench 30 --op copy --dtype bf16
}
pack() {
  gzip -9 "$out"/*.txt "$out"/*.csv 2>/dev/null
  gunzip "$out"/COMMANDS.txt.gz 2>/dev/null
  tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
}
abc() {
  local lim=$1 a=$2 b=$3 vb=$4 op=$5 sel="--bench --op $5"
  run "bench-$op-$a-1.txt" "$lim" "$pf" $sel --json "$out/bench-$op-$a-1.json"
  run "bench-$op-$b.txt" "$lim" "$vb" $sel --json "$out/bench-$op-$b.json"
  run "bench-$op-$a-2.txt" "$lim" "$pf" $sel --json "$out/bench-$op-$a-2.json"
}
flat_one() {
  local name=$1 b=$2 op=$3 dt=$4 n=$5
  shift 5
  run "$name-$op-$dt-$n.txt" 30 env CPK_NONE=1 "$@" "$b" --op $op \
    --dtype $dt --shape 1x$n --budget "${FLAT_BUDGET:-0.3}" ${FLAT_ARGS:-} \
    --json "$out/$name-$op-$dt-$n.json"
}
bench_shapes() {
  local name=$1 b=$2 op=$3 sh
  for sh in $4; do
    run "$name-$op-$sh.txt" "$(upto 30)" "$b" --bench --op "$op" --shape "$sh" \
      --json "$out/$name-$op-$sh.json"
  done
}
bench_one() {
  local name=$1 b=$2 op=$3 dt=$4 sh=$5
  shift 5
  local sel=(--bench)
  [ "${ONE_BENCH:-1}" = 1 ] || sel=(--variant "${ONE_VARIANT:-fused}")
  [ "$(left)" -gt "${ONE_RESERVE:-8}" ] || return 0
  run "$name-$op-$dt-$sh.txt" "${ONE_LIM:-20}" env "$@" "$b" "${sel[@]}" \
    --op "$op" --dtype "$dt" --shape "$sh" --budget "${ONE_BUDGET:-0.5}" \
    --json "$out/$name-$op-$dt-$sh.json"
}
vtools() {
  local name=$1 b=$2 tool
  shift 2
  run "test-only-$name.txt" "${VT_TLIM:-60}" env ${VT_ENV:-} "$b" \
    --test-only --variant fused ${VT_SEL:-}
  for tool in "$@"; do
    run "$tool-smoke-$name.txt" "${VT_LIM:-90}" env ${VT_ENV:-} \
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$b" --alloc exact \
      --smoke --variant fused ${VT_SEL:-}
  done
}
ncu_one() {
  local name=$1 b=$2 op=$3 dt=$4 sh=$5 sec
  local secs=()
  shift 5
  for sec in "$@"; do secs+=(--section "$sec"); done
  [ -z "${NCU_METRICS:-}" ] || secs+=(--metrics "$NCU_METRICS")
  rm -f /tmp/ncu-instr.ncu-rep # never export an earlier run's report
  # NCU_XARGS: more ncu options (e.g. --cache-control none), split on blanks
  run "$name.txt" 60 env ${NCU_ENV:-} ncu --profile-from-start off \
    --clock-control none ${NCU_XARGS:-} -k "regex:${NCU_K:-fused_k}" "${secs[@]}" \
    -o /tmp/ncu-instr -f "$b" \
    --profile-range --bench --op "$op" --dtype "$dt" --shape "$sh" \
    --budget 0.3 --min-samples 3 --max-samples 30 --json /tmp/ncu-instr.json
  if [ -f /tmp/ncu-instr.ncu-rep ]; then
    ncu -i /tmp/ncu-instr.ncu-rep --csv --page details \
      >"$out/$name-details.csv" 2>&1
    [ -z "${NCU_METRICS:-}" ] ||
      ncu -i /tmp/ncu-instr.ncu-rep --csv --page raw >"$out/$name-raw.csv" 2>&1
  fi
}
ncu_stalls() {
  NCU_METRICS='regex:smsp__average_warps_issue_stalled_.*_per_issue_active' \
    ncu_one "$@" SpeedOfLight SchedulerStats WarpStateStats InstructionStats \
    LaunchStats Occupancy
}
vcheck() {
  VT_LIM=60 vtools "$1" "$2" memcheck
}
gridall() {
  VT_ENV=CPK_GRID_MIN=1 vtools gridall "$@"
}
sanshapes() {
  local b=$1 op=$2 sh tool
  shift 2
  for sh in "$@"; do
    for tool in memcheck racecheck; do
      run "$tool-${SAN_TAG:+$SAN_TAG-}$op-$sh.txt" 60 compute-sanitizer --tool $tool \
        --error-exitcode 9 "$b" --alloc exact --op $op --shape $sh
    done
  done
}
bench_abc() {
  local op=$1 dt=$2 sh=$3
  shift 3
  local suf=${BA_SUF:-}
  bench_one def1$suf "$pf" $op $dt $sh CPK_NONE=1
  while [ $# -ge 2 ]; do
    bench_one "$1$suf" "$2" $op $dt $sh ${BA_ENV:-CPK_NONE=1}
    shift 2
  done
  bench_one def2$suf "$pf" $op $dt $sh CPK_NONE=1
}
ncu_as() {
  local name=$1 x tag pfd=$pf
  pf=$2
  shift 2
  tag=$(echo "$*" | awk '{print $2"-"$4}')
  ncu_bench 45 "$@"
  for x in .txt -details.csv .json; do
    [ -f "$out/ncu-$tag$x" ] && mv "$out/ncu-$tag$x" "$out/ncu-$name-$tag$x"
  done
  pf=$pfd
}
ncu_vs() {
  local name=$1 b=$2
  shift 2
  ncu_as def "$pf" "$@"
  ncu_as "$name" "$b" "$@"
}
abc_grid() {
  local op=$1 dts=$2 shs=$3 dt sh
  shift 3
  for dt in $dts; do
    for sh in $shs; do
      bench_abc "$op" "$dt" "$sh" "$@"
    done
  done
}
env_grid() {
  local name=$1 e=$2 ops=$3 dts=$4 shs=$5 op dt sh v
  local bins=("$name" "$pf")
  shift 5
  for v in "$@"; do bins+=("$v" "$var/cuda_portfolio-$v"); done
  for sh in $shs; do
    for op in $ops; do
      for dt in $dts; do
        BA_ENV=$e bench_abc $op $dt $sh "${bins[@]}"
      done
    done
  done
}
bitscmp() {
  local name=$1 b=$2 op=$3 sh dt f n same=0 diff=0 bf=${BITS_FILE:-bits.txt}
  for sh in $4; do
    for dt in bf16 fp16 fp32; do
      rm -rf /tmp/bits && mkdir -p /tmp/bits/def "/tmp/bits/$name"
      "$pf" --op "$op" --variant fused --dtype $dt --shape $sh --seed 37 --dump /tmp/bits/def >/dev/null 2>&1
      "$b" --op "$op" --variant fused --dtype $dt --shape $sh --seed 37 --dump "/tmp/bits/$name" >/dev/null 2>&1
      n=0
      for f in /tmp/bits/def/*.npy; do
        n=$((n + 1))
        if cmp -s "$f" "/tmp/bits/$name/$(basename "$f")"; then
          same=$((same + 1))
        else
          diff=$((diff + 1))
          echo "DIFFER $dt $sh $(basename "$f")" >>"$out/$bf"
        fi
      done
      echo "$dt $sh files $n" >>"$out/$bf"
    done
  done
  echo "bits: $same files identical, $diff differ" >>"$out/$bf"
  printf '%s\trc=%d\t0s\tcmp of --dump outputs, build vs %s\n' "$bf" "$diff" "$name" >>"$log"
}
finish() {
  gpu_csv gpu-after.csv
  pack
  cat "$log"
}
finish_checks() {
  local bad
  bad=$(awk -F'\t' '$1 ~ /^(memcheck|racecheck|synccheck|test-only|bits)/ && $2 != "rc=0"' "$log" | wc -l)
  finish
  if [ "$bad" -eq 0 ]; then echo "$1-checks: OK"; else echo "$1-checks: FAIL ($bad)"; fi
}
bundles_only() {
  local b d
  for b in "$1"/*Z-*.tar.gz; do
    [ -f "$b" ] || continue
    d=${b%.tar.gz}
    if [ -d "$d" ] && build/linux/bin/repro verify "$b" >>"$out/verify-bundles.txt" 2>&1; then
      rm -rf "$d"
    fi
  done
}
