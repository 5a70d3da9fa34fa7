#!/bin/sh
# suite_time.sh: where the time of the cuda test suite goes. Run from a
# gpu-bundle (make gpu-bundle; copy this file into it): each spec file
# alone, one after the other, on SPECK_SPACE=cuda with a fresh disk
# cache per file, timed, with the number of kernels it generated
# (SPECK_JIT_DUMP); then the NVRTC probe (nvrtc_time.lua beside this
# file, if there). Prints a Markdown table last.
#   sh suite_time.sh [spec files...]     (default: tests/*_spec.lua)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
LUA_PATH="$here/lua/share/?.lua;$here/lua/share/?/init.lua;$here/build/share/lua/5.4/?.lua;$here/build/share/lua/5.4/?/init.lua;;"
LUA_CPATH="$here/lua/lib/?.so;$here/build/lib/lua/5.4/?.so;;"
SPECK_BIN="$here/build/bin/speck"
export LUA_PATH LUA_CPATH SPECK_BIN
export SPECK_SPACE=${SPECK_SPACE:-cuda} SPECK_CUDA_UVM=${SPECK_CUDA_UVM-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/speck-suite.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
specs=${*:-$(ls tests/*_spec.lua)}
now() { date +%s.%N; }
rows=
total0=$(now)
for s in $specs; do
  name=${s##*/}
  mkdir -p "$tmp/$name.cache" "$tmp/$name.dump"
  t0=$(now)
  SPECK_CACHE_DIR="$tmp/$name.cache" SPECK_JIT_DUMP="$tmp/$name.dump" \
    "$SPECK_BIN" "$here/busted" -o plainTerminal "$s" >"$tmp/out" 2>&1
  t1=$(now)
  sum=$(grep -E '^[0-9]+ success' "$tmp/out" | tail -n 1)
  k=$(ls "$tmp/$name.dump" | wc -l)
  secs=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
  echo "$name: ${secs}s, $k kernels, $sum"
  grep -E '^(Failure|Error) ' -A3 "$tmp/out" | head -n 20
  rows="$rows| $name | $secs | $k | $sum |
"
done
total1=$(now)
if [ -f "$here/nvrtc_time.lua" ]; then
  "$SPECK_BIN" "$here/nvrtc_time.lua" 5
fi
echo
echo "| spec | seconds | kernels | busted |"
echo "| --- | ---: | ---: | --- |"
printf "%s" "$rows"
echo "| all (sum) | $(awk "BEGIN{printf \"%.1f\", $total1 - $total0}") | | |"
