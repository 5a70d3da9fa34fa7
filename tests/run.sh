#!/bin/sh
# run.sh: speck's test suite, as run by 'make test'. Ends with exactly one
# line 'N passed, N failed' and exits non-zero when anything failed.
#
#   1. C unit tests: every executable $BUILD/tests/c/test_* (built by make
#      from tests/c/test_*.c). A program may print, as its last line,
#      'N passed, M failed' to report its own checks; otherwise it counts
#      as one test, passed when it exits 0. A non-zero exit is always at
#      least one failure.
#   2. busted specs tests/*_spec.lua, once per space in $SPECK_SPACES
#      (default "serial openmp"; openmp with SPECK_THREADS=2), counted from
#      busted's summary (successes passed; failures and errors failed;
#      pending shown apart). A space that cannot be initialised is a
#      failure. With SPECK_TEST_JOBS=J > 1 the specs run in up to J
#      processes at a time, each spec file cut into shards
#      (tests/shard.lua picks a shard's tests): SPECK_TEST_SHARDS is a
#      list of 'name=N' (e.g. teams_spec=10) and a bare N for the other
#      files (default J). Shard k of every file starts before shard k + 1
#      of any, longest files first; the outputs are shown in order once
#      all are done.
#   3. the embedding example $BUILD/bin/embed-example (one test).
#   4. the C kernel API example $BUILD/bin/kernel-api-example (built with
#      pkg-config, as SPEC.md's contract says), once per space.
#
# Environment: BUILD (default <root>/build), SPECK_SPACES, SPECK_LUA (an
# interpreter to run busted with, e.g. a sanitized bin/speck; default:
# lua5.4 -- not busted's '#!/usr/bin/env lua', which Debian points at
# Lua 5.1 once luarocks is installed), BUSTED (the busted script),
# SPECK_TEST_JOBS (default 1: one busted process per space),
# SPECK_TEST_SHARDS.
# The specs find the CLI as $SPECK_BIN.

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
BUILD=${BUILD:-$root/build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
SPECK_SPACES=${SPECK_SPACES:-serial openmp}
BUSTED=${BUSTED:-$(command -v busted)}
SPECK_BIN=$BUILD/bin/speck
export SPECK_BIN
SPECK_LUA=${SPECK_LUA:-$(command -v lua5.4)}
export SPECK_LUA

LUA_PATH="$BUILD/share/lua/5.4/?.lua;$BUILD/share/lua/5.4/?/init.lua;${LUA_PATH:-;}"
LUA_CPATH="$BUILD/lib/lua/5.4/?.so;${LUA_CPATH:-;}"
export LUA_PATH LUA_CPATH

passed=0
failed=0
pending=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/speck-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

# -- 1. C unit tests ------------------------------------------------------
for t in "$BUILD"/tests/c/test_*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  name=${t##*/}
  "$t" >"$tmp/out" 2>&1
  rc=$?
  counts=$(tail -n 1 "$tmp/out" |
    sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p')
  bad=0
  if [ -n "$counts" ]; then
    set -- $counts
    passed=$((passed + $1))
    failed=$((failed + $2))
    bad=$2
  elif [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
  fi
  if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
    fail "$name exited with status $rc"
    bad=1
  fi
  [ "$bad" -ne 0 ] && cat "$tmp/out"
  echo "c: $name: $(tail -n 1 "$tmp/out")"
done

# -- 2. busted specs, once per space ---------------------------------------
n='\([0-9][0-9]*\)'
summary_pat="^$n success[a-z]* \/ $n failures* \/ $n errors* \/ $n pending.*"

# count one busted output ($1) run as $2 (exit status $3)
count() {
  summary=$(sed -n "s/$summary_pat/\1 \2 \3 \4/p" "$1" | tail -n 1)
  if [ -z "$summary" ]; then
    fail "busted ($2) gave no summary"
    return
  fi
  set -- $summary "$2" "$3"
  passed=$((passed + $1))
  failed=$((failed + $2 + $3))
  pending=$((pending + $4))
  # e.g. a sanitizer report after a clean summary
  [ "$6" -ne 0 ] && [ $(($2 + $3)) -eq 0 ] &&
    fail "busted ($5) exited with status $6"
}

jobs=${SPECK_TEST_JOBS:-1}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac

# shards of spec file $1: its 'name=N' in SPECK_TEST_SHARDS, else the
# list's bare number, else J
shards_of() {
  b=${1##*/}
  b=${b%.lua}
  d=$jobs
  for w in ${SPECK_TEST_SHARDS:-}; do
    case $w in
      "$b="*) d=${w#*=}; break ;;
      *=*) ;;
      *) d=$w ;;
    esac
  done
  case $d in ''|*[!0-9]*|0) d=1 ;; esac
  echo "$d"
}
specs=$(ls tests/*_spec.lua 2>/dev/null)
if [ -n "$specs" ] && [ -z "$BUSTED" ]; then
  fail "busted not found (install lua-busted: make deps)"
  specs=
fi
# longest files first, so the slow ones start early
[ "$jobs" -gt 1 ] && specs=$(ls -S $specs)
for space in $SPECK_SPACES; do
  [ -n "$specs" ] || break
  envs="SPECK_SPACE=$space"
  [ "$space" = openmp ] && envs="$envs SPECK_THREADS=2"
  if ! env $envs "$SPECK_BIN" -e "speck.initialize{space = '$space'}" \
       >"$tmp/out" 2>&1; then
    fail "space $space cannot be initialised: $(head -n 1 "$tmp/out")"
    continue
  fi
  echo "== busted, $envs"
  if [ "$jobs" -le 1 ]; then
    # shellcheck disable=SC2086
    env $envs ${SPECK_LUA:+"$SPECK_LUA"} "$BUSTED" -o plainTerminal $specs \
      >"$tmp/out" 2>&1
    rc=$?
    cat "$tmp/out"
    count "$tmp/out" "$space" "$rc"
    continue
  fi
  # one job per (file, shard): 'id spec k n', run by xargs -P, each
  # writing its output and exit status under $tmp/job.<id>
  : >"$tmp/jobs"
  id=0
  most=0
  for s in $specs; do
    ns=$(shards_of "$s")
    [ "$ns" -gt "$most" ] && most=$ns
  done
  for k in $(seq 0 $((most - 1))); do
    for s in $specs; do
      ns=$(shards_of "$s")
      [ "$k" -lt "$ns" ] || continue
      id=$((id + 1))
      echo "$id $s $k $ns" >>"$tmp/jobs"
    done
  done
  # shellcheck disable=SC2016
  env $envs SPECK_TEST_TMP="$tmp" SPECK_TEST_LUA="${SPECK_LUA:-}" \
    BUSTED="$BUSTED" xargs -P "$jobs" -n 4 sh -c '
      SPECK_TEST_SHARD="$3/$4" ${SPECK_TEST_LUA:+"$SPECK_TEST_LUA"} \
        "$BUSTED" -o plainTerminal --helper=tests/shard.lua "$2" \
        >"$SPECK_TEST_TMP/job.$1" 2>&1
      echo $? >"$SPECK_TEST_TMP/job.$1.rc"' sh <"$tmp/jobs"
  while read -r id s k ns; do
    echo "-- $s, shard $k/$ns"
    cat "$tmp/job.$id"
    count "$tmp/job.$id" "$space, $s shard $k/$ns" \
      "$(cat "$tmp/job.$id.rc" 2>/dev/null || echo 1)"
  done <"$tmp/jobs"
done

# -- 3. the embedding example ----------------------------------------------
if [ -x "$BUILD/bin/embed-example" ]; then
  if "$BUILD/bin/embed-example" >"$tmp/out" 2>&1 && grep -q '^OK' "$tmp/out"; then
    passed=$((passed + 1))
    echo "embed-example: $(tail -n 1 "$tmp/out")"
  else
    cat "$tmp/out"
    fail "embed-example"
  fi
else
  fail "$BUILD/bin/embed-example missing (run make)"
fi

# -- 4. the C kernel API example (the contract of SPEC.md), per space ---------
if [ -x "$BUILD/bin/kernel-api-example" ]; then
  for space in $SPECK_SPACES; do
    envs="SPECK_SPACE=$space"
    [ "$space" = openmp ] && envs="$envs SPECK_THREADS=2"
    if env $envs "$BUILD/bin/kernel-api-example" >"$tmp/out" 2>&1 &&
       grep -q '^PASS' "$tmp/out"; then
      passed=$((passed + 1))
      echo "kernel-api-example ($space): PASS"
    else
      cat "$tmp/out"
      fail "kernel-api-example ($space)"
    fi
  done
else
  fail "$BUILD/bin/kernel-api-example missing (run make)"
fi

[ "$pending" -gt 0 ] && echo "($pending pending)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
