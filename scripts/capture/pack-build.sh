#!/usr/bin/env bash
# Packs the linux build for a call of the device tool (results/h200/README.md,
# "The carry"): builds cuda_portfolio and the kernels' self-test
# (cpk_selftest), copies build/linux without its objects, static
# libraries, CMakeFiles/ and what the tests left in their scratch folders,
# strips the executables, and writes one xz
# archive that the GPU machine unpacks at the repository root:
#   bash scripts/capture/pack-build.sh [ARCHIVE]     (default .carry/build.tar.xz)
#   on the GPU machine: xz -dc .carry/build.tar.xz | tar xf -
# Fails (exit 3) on a working tree that git does not call clean, and
# (exit 1) if the archive with the tree's tracked files would not fit
# the tool's 64 MiB carry; results/h200/{bounds,history,v23-partial-*} are
# counted out, since a call moves them out of the tree.
set -euo pipefail
out=${1:-.carry/build.tar.xz}
# The build records git status in the binary (pf_gitinfo.cmake): pack a
# clean commit, and move results/h200's folders out only after packing
# (c9c6f90's final run says dirty for that reason alone).
if [ -n "$(git status --porcelain)" ]; then
  echo "pack-build: the working tree is not clean (git status --porcelain): commit, or put back what was moved out, then pack" >&2
  exit 3
fi
cmake --build --preset linux
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build" "$(dirname "$out")"
cp -a build/linux "$stage/build/"
find "$stage/build/linux" \( -name '*.o' -o -name '*.a' \) -delete
find "$stage/build/linux" -name CMakeFiles -type d -prune -exec rm -rf {} +
# the tests' scratch folders (tmp-SUITE, made at configure time) stay, empty:
# earlier local runs leave bundles and Nsight Compute reports in them
find "$stage/build/linux" -path '*/tmp-*/*' -delete
for f in "$stage"/build/linux/bin/*; do
  if file "$f" | grep -q ELF; then strip "$f"; fi
done
tar cf - -C "$stage" build | xz -9e --lzma2=dict=128MiB -T2 >"$out"
tree=$(git ls-files -z | grep -zv '^results/h200/\(bounds\|history\|v23-partial-\)' |
  du -cb --files0-from=- | tail -1 | cut -f1)
pack=$(stat -c %s "$out")
echo "pack-build: $out $((pack / 1048576)) MiB, the tree without the moved folders $((tree / 1048576)) MiB"
if [ $((tree + pack)) -gt $((64 * 1048576)) ]; then
  echo "pack-build: over the 64 MiB carry: move more of results/ out for the call" >&2
  exit 1
fi
