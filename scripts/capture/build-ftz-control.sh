#!/usr/bin/env bash
# A control for add's exact compare on the GPU (docs/VALIDATION.md, "add is
# exact too"): cuda_portfolio relinked with kernels/elementwise.cu compiled
# with -ftz=true, as a --use_fast_math build would compile it, every other
# object the linux build's own. Its add flushes fp32 subnormals (so bf16's
# too) to zero; `--test-only --op add` must fail fp32 and bf16 with it and
# pass fp16 (fp16's subnormals are normal in fp32), where the build's own
# binary passes all three. A capture tool, not part of the product.
#   bash scripts/capture/build-ftz-control.sh [OUT]   (default build/ftz/cuda_portfolio-ftz)
# Run after `cmake --build --preset linux`; the GPU machine runs OUT.
set -euo pipefail
b=build/linux
out=${1:-build/ftz/cuda_portfolio-ftz}
obj=$b/kernels/CMakeFiles/cp_kernels.dir/elementwise.cu.o
for f in "$obj" "$b/kernels/libcp_kernels.a" "$b/bin/cuda_portfolio"; do
  [ -e "$f" ] || { echo "build-ftz-control: $f missing: build first (cmake --build --preset linux)" >&2; exit 2; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# the build's own compile line for elementwise.cu, with -ftz=true added
cmd=$(cd "$b" && ninja -t commands bin/cuda_portfolio | grep -- "-c [^ ]*/kernels/elementwise.cu ")
[ -n "$cmd" ] || { echo "build-ftz-control: no compile line for elementwise.cu in $b" >&2; exit 3; }
cmd=${cmd/ -x cu / -ftz=true -x cu }
cmd=${cmd/-o kernels\/CMakeFiles\/cp_kernels.dir\/elementwise.cu.o/-o $stage/elementwise-ftz.o}
# both substitutions or nothing: an unchanged -o would compile the flushed
# object over the build's own, which the next build would link in
[[ $cmd == *" -ftz=true "*"-o $stage/elementwise-ftz.o"* ]] ||
  { echo "build-ftz-control: the compile line did not take -ftz=true and the scratch output: $cmd" >&2; exit 3; }
(cd "$b" && eval "$cmd")
cp "$b/kernels/libcp_kernels.a" "$stage/libcp_kernels.a"
# replace the member (ar keys members by name: elementwise.cu.o)
cp "$stage/elementwise-ftz.o" "$stage/elementwise.cu.o"
ar r "$stage/libcp_kernels.a" "$stage/elementwise.cu.o"
link=$(cd "$b" && ninja -t commands bin/cuda_portfolio | grep -- "-o bin/cuda_portfolio ")
[ -n "$link" ] || { echo "build-ftz-control: no link line for cuda_portfolio in $b" >&2; exit 3; }
mkdir -p "$(dirname "$out")"
abs_out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
link=${link/ kernels\/libcp_kernels.a / $stage/libcp_kernels.a }
link=${link/-o bin\/cuda_portfolio /-o $abs_out }
[[ $link == *" $stage/libcp_kernels.a "* && $link == *"-o $abs_out "* ]] ||
  { echo "build-ftz-control: the link line did not take the flushed library and OUT: $link" >&2; exit 3; }
(cd "$b" && eval "$link")
# the flushed add is in it: the same compile line to PTX has add.ftz.f32
# (this machine has no cuobjdump; the GPU machine's cuobjdump shows
# FADD.FTZ in the binary's SASS)
ptx=${cmd/ -c / -ptx }
ptx=${ptx/--generate-code=arch=compute_90,code=\[sm_90\]/-arch=sm_90}
ptx=$(echo "$ptx" | sed -e 's/--generate-code=[^ ]*//g' -e 's/ -MD -MT [^ ]* -MF [^ ]*//' \
  -e "s| -o [^ ]*| -arch=sm_90 -o $stage/elementwise-ftz.ptx|")
(cd "$b" && eval "$ptx")
n=$(grep -c "add.ftz.f32" "$stage/elementwise-ftz.ptx" || true)
[ "$n" -gt 0 ] || { echo "build-ftz-control: no add.ftz.f32 in the PTX of the flushed elementwise.cu" >&2; exit 3; }
echo "build-ftz-control: $out (elementwise.cu with -ftz=true: $n add.ftz.f32 in its sm_90 PTX)"
