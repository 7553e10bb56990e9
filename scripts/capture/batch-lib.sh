# batch-lib.sh: sourced by the GPU-machine batch scripts of scripts/capture/.
# Needs $out (the output folder) and $budget (seconds for the whole batch).
#   left               seconds of the budget that are left
#   run NAME LIM CMD   runs CMD with a time limit of LIM seconds, stdout and
#                      stderr to $out/NAME, and records NAME, the exit code and
#                      the duration in $out/COMMANDS.txt; a step with 5 s or
#                      less left is recorded as not run
t0=$(date +%s)
log="$out/COMMANDS.txt"
: >"$log"
left() { echo $((budget - ($(date +%s) - t0))); }
run() {
  local name=$1 lim=$2; shift 2
  local s=$(date +%s)
  if [ "$lim" -le 5 ]; then
    printf '%s\tnot run: no time left\t%s\n' "$name" "$*" >>"$log"; return
  fi
  timeout -s INT -k 10 "$lim" "$@" >"$out/$name" 2>&1
  printf '%s\trc=%d\t%ds\t%s\n' "$name" "$?" "$(($(date +%s) - s))" "$*" >>"$log"
}
