#!/bin/sh
# run.sh: speck's test suite, as run by 'make test'. Ends with exactly one
# line 'N passed, N failed' and exits non-zero when anything failed.
#
#   1. C unit tests: every executable $BUILD/tests/c/test_* (built by make
#      from tests/c/test_*.c). A program may print, as its last line,
#      'N passed, M failed' to report its own checks; otherwise it counts
#      as one test, passed when it exits 0. A non-zero exit is always at
#      least one failure. With SPECK_TEST_JOBS=J > 1 up to J programs run
#      at a time.
#   2. busted specs tests/*_spec.lua, once per space in $SPECK_SPACES
#      (default "serial openmp"; openmp with SPECK_THREADS=2), counted from
#      busted's summary (successes passed; failures and errors failed;
#      pending shown apart). A space that cannot be initialised is a
#      failure. With SPECK_TEST_JOBS=J > 1 the specs run in up to J
#      processes at a time, each spec file cut into shards
#      (tests/shard.lua picks a shard's tests): SPECK_TEST_SHARDS is a
#      list of 'name=N' (e.g. teams_spec=10) and a bare N for the other
#      files (default J). The jobs (a file's shard each) start longest
#      first, a shard expected to take its file's seconds in
#      tests/suite-weights (the space's column, cuda's or the host's) over
#      the file's shards; the outputs are shown in that order once all
#      are done. A GPU space's side-by-side jobs share one GPU context:
#      the run starts its own MPS server (nvidia-cuda-mps-control, where
#      the machine has it, in a folder of the run; SPECK_TEST_MPS=0: not),
#      so their kernels run together instead of taking turns (the cuda
#      suite on an H200: 89 s -> 56 s). A fault on the device ends every
#      client of the server, so a file whose header has the line
#      '-- suite: faults the GPU on purpose' keeps a context of its own.
#   3. the embedding example $BUILD/bin/embed-example (one test).
#   4. the C kernel API example $BUILD/bin/kernel-api-example (built with
#      pkg-config, as SPEC.md's contract says), once per space.
#   5. LuaJIT: tests/luajit/ffi_test.lua (speck.ffi over libspeck.so, its
#      own 'N passed, M failed') and examples/luajit.lua, once per space.
#      Without luajit this is a failure, unless SPECK_SKIP_LUAJIT=1 (the
#      GPU bundle on a host that has none).
#   5b. the Jupyter kernel: tests/notebook_test.py runs the example
#      notebooks headless and drives the kernel's protocol (its own 'N
#      passed, M failed'); SPECK_SKIP_NOTEBOOKS=1 skips it.
#   6. the installed tree, when SPECK_INSTALLED names a prefix that 'make
#      install PREFIX=...' filled ('make test' makes one): its speck
#      --version, require "speck" from Debian's lua5.4 and from busted
#      (tests/install/installed_spec.lua), LuaJIT's speck.ffi, a program
#      built with its pkg-config file; and, when luarocks is there, 'luarocks
#      make' of the rockspec into a fresh tree, whose version must be
#      core/version.h's.
#   7, 8. speck.remote and speck.dist under mpirun (below).
# With SPECK_TEST_JOBS >= 4, 3 to 8 run while the specs do (3-6, 7, and
# 8 in three parts side by side), their output shown after the C programs' results as when
# they run after the specs.
#
# Environment: BUILD (default <root>/build), SPECK_SPACES, SPECK_LUA (an
# interpreter to run busted with, e.g. a sanitized bin/speck; default:
# lua5.4 -- not busted's '#!/usr/bin/env lua', which Debian points at
# Lua 5.1 once luarocks is installed), BUSTED (the busted script),
# SPECK_TEST_JOBS (default 1: one busted process per space),
# SPECK_TEST_SHARDS, SPECK_SPECS (the spec files to run, default every
# tests/*_spec.lua; 'make tsan' runs a slice), SPECK_CTESTS (the C test
# programs to run, names under $BUILD/tests/c, default every test_*).
# SPECK_JOB_TIMEOUT (seconds, default 900): one C test program or one
# busted process (a shard) that runs longer is killed and counted as a
# failure naming it, so a hang cannot stall the whole suite.
# SPECK_TEST_TIMES=FILE: every test appends its time to FILE
# (tests/shard.lua), and the 15 slowest are listed before the last line;
# side by side, every job (a shard, a C program, a phase after the specs)
# its start and end (epoch seconds) to FILE.spans.
# SPECK_PYTHON: the Python the specs' oracles run with (default Debian's
# /usr/bin/python3; the GPU bundle's run-tests.sh picks one that has NumPy,
# SciPy and NetworkX).
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
trap 'kill ${ctests_pid:-} ${after_pids:-} 2>/dev/null; mps_stop; rm -rf "$tmp"' EXIT INT TERM
# a GPU space's side-by-side jobs under one MPS server of this run (above)
mps_dir=
mps_start() {
  [ "${SPECK_TEST_MPS:-1}" = 0 ] && return 1
  command -v nvidia-cuda-mps-control >/dev/null 2>&1 || return 1
  mkdir -p "$tmp/mps/pipe" "$tmp/mps/log" || return 1
  CUDA_MPS_PIPE_DIRECTORY="$tmp/mps/pipe" CUDA_MPS_LOG_DIRECTORY="$tmp/mps/log" \
    nvidia-cuda-mps-control -d >/dev/null 2>&1 || return 1
  mps_dir=$tmp/mps/pipe
}
mps_stop() {
  [ -n "$mps_dir" ] || return 0
  echo quit | CUDA_MPS_PIPE_DIRECTORY="$mps_dir" nvidia-cuda-mps-control >/dev/null 2>&1
  mps_dir=
}

fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

job_timeout=${SPECK_JOB_TIMEOUT:-900}
case $job_timeout in ''|*[!0-9]*|0) job_timeout=900 ;; esac
export job_timeout
# a status of timeout(1)'s kill ($1) for the thing named $2
timed_out() {
  case $1 in
    124|137) fail "$2 was killed at its time limit (SPECK_JOB_TIMEOUT=$job_timeout s a job)" ;;
    *) return 1 ;;
  esac
}

# the environment a space's runs get: openmp on two threads
space_env() {
  if [ "$1" = openmp ]; then echo "SPECK_SPACE=$1 SPECK_THREADS=2"; else echo "SPECK_SPACE=$1"; fi
}

# -- 1. C unit tests ------------------------------------------------------
# SPECK_TEST_JOBS > 1 runs them side by side (xargs -P, each writing its
# output and exit status under $tmp/c.<name>); the results are read in
# name order either way
jobs=${SPECK_TEST_JOBS:-1}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
# Side by side, the oracles' NumPy / SciPy run their BLAS on one thread:
# OpenBLAS's threads wait spinning, and a process each on every core made
# a GPU host's complex-algebra shards 35x slower (179 s against 5 s). speck
# sets its own vendor library's threads (SPECK_THREADS), not from this.
[ "$jobs" -gt 1 ] && export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
ctests=
for c in ${SPECK_CTESTS:-}; do ctests="$ctests $BUILD/tests/c/$c"; done
: >"$tmp/ctests"
for t in ${ctests:-"$BUILD"/tests/c/test_*}; do
  [ -f "$t" ] && [ -x "$t" ] && echo "$t" >>"$tmp/ctests"
done
# side by side (SPECK_TEST_JOBS > 1) the C programs run while the specs
# do (a GPU host's longest C program took as long as the specs' longest
# file), and their results are read after the specs'
ctests_run() {
  # shellcheck disable=SC2016
  SPECK_TEST_TMP="$tmp" xargs -P "$jobs" -n 1 sh -c '
    n=${1##*/}
    t0=$(date +%s)
    timeout -k 10 "$job_timeout" "$1" >"$SPECK_TEST_TMP/c.$n" 2>&1
    echo $? >"$SPECK_TEST_TMP/c.$n.rc"
    echo $(($(date +%s) - t0)) >"$SPECK_TEST_TMP/c.$n.t"
    [ -n "${SPECK_TEST_TIMES:-}" ] && echo "$t0 $(date +%s) c $n" >>"$SPECK_TEST_TIMES.spans"
    exit 0' sh <"$tmp/ctests"
}
ctests_report() {
  while read -r t; do
    name=${t##*/}
    out="$tmp/c.$name"
    rc=$(cat "$out.rc" 2>/dev/null || echo 1)
    timed_out "$rc" "$name" && { tail -n 20 "$out"; continue; }
    counts=$(tail -n 1 "$out" |
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
    [ "$bad" -ne 0 ] && cat "$out"
    echo "c: $name: $(tail -n 1 "$out") ($(cat "$out.t" 2>/dev/null || echo '?') s)"
  done <"$tmp/ctests"
}
# (side by side they start in main, after the spaces' start-up checks)
if [ "$jobs" -le 1 ]; then
  ctests_run
  ctests_report
fi

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
specs=${SPECK_SPECS:-$(ls tests/*_spec.lua 2>/dev/null)}
# (a blank SPECK_SPECS: no spec file, not busted over the whole tree)
specs=$(echo $specs)
if [ -n "$specs" ] && [ -z "$BUSTED" ]; then
  fail "busted not found (install lua-busted: make deps)"
  specs=
fi
# side by side, the larger files first among those of equal weight (below)
[ "$jobs" -gt 1 ] && [ -n "$specs" ] && specs=$(ls -S $specs)
# Each space's start-up check (speck.initialize in a process of its own)
# runs before anything else does: side by side, beside the C programs'
# and the parts' start-ups (20 processes, CUDA's and NVRTC's first use
# in each), it took a GPU host 3-4 s, and the specs waited for it. A
# space that fails it is named and its specs are not run.
specs_probe() {
  for space in $SPECK_SPACES; do
    [ -n "$specs" ] || break
    # shellcheck disable=SC2046
    if env $(space_env "$space") "$SPECK_BIN" -e "speck.initialize{space = '$space'}" \
         >"$tmp/probe.$space" 2>&1; then
      : >"$tmp/probe.$space.ok"
    fi
  done
}
specs_phase() {
  for space in $SPECK_SPACES; do
    [ -n "$specs" ] || break
    if [ ! -f "$tmp/probe.$space.ok" ]; then
      fail "space $space cannot be initialised: $(head -n 1 "$tmp/probe.$space")"
      continue
    fi
    envs=$(space_env "$space")
    # a GPU space's host threads: two a process when files run side by side;
    # and their waits for the device asleep (SPECK_CUDA_SYNC=block): the
    # processes' kernels take turns on the one GPU, and each waiting
    # process spun a core meanwhile (16 jobs on an H200 host's 16 cores:
    # every core busy, 102 s; asleep a third of them idle, 96 s)
    if [ "$space" = cuda ] && [ "$jobs" -gt 1 ]; then
      [ -z "${SPECK_THREADS:-}" ] && envs="$envs SPECK_THREADS=2"
      [ -z "${SPECK_CUDA_SYNC:-}" ] && envs="$envs SPECK_CUDA_SYNC=block"
      mps_start && envs="$envs CUDA_MPS_PIPE_DIRECTORY=$mps_dir"
    fi
    echo "== busted, $envs"
    if [ "$jobs" -le 1 ]; then
      # shellcheck disable=SC2086
      env $envs timeout -k 10 $((job_timeout * 4)) ${SPECK_LUA:+"$SPECK_LUA"} \
        "$BUSTED" -o plainTerminal $specs >"$tmp/out" 2>&1
      rc=$?
      cat "$tmp/out"
      timed_out "$rc" "busted ($space)" && continue
      count "$tmp/out" "$space" "$rc"
      continue
    fi
    # one job per (file, shard): 'id spec k n', numbered longest first by
    # tests/suite-weights (this space's column: cuda, or the host's) for
    # xargs -P to start in that order; files it does not list count 1 s
    # (ties: the larger file first, as 'ls -S' gave them)
    wcol=3
    [ "$space" = cuda ] && wcol=2
    for s in $specs; do echo "$s $(shards_of "$s")"; done |
      awk -v col="$wcol" -v tab=tests/suite-weights '
        BEGIN { while ((getline l < tab) > 0) if (l !~ /^#/ && split(l, a) > 2) w[a[1]] = a[col] }
        { b = $1; sub(/.*\//, "", b); sub(/\.lua$/, "", b); c = (b in w) ? w[b] : 1
          for (k = 0; k < $2; k++) printf "%.3f %s %d %d\n", c / $2, $1, k, $2 }' |
      sort -s -k1,1gr | awk '{ print NR, $2, $3, $4 }' >"$tmp/jobs"
    # shellcheck disable=SC2016
    env $envs SPECK_TEST_TMP="$tmp" SPECK_TEST_LUA="${SPECK_LUA:-}" \
      BUSTED="$BUSTED" xargs -P "$jobs" -n 4 sh -c '
        t0=$(date +%s)
        grep -q "^-- suite: faults the GPU on purpose" "$2" && unset CUDA_MPS_PIPE_DIRECTORY
        SPECK_TEST_SHARD="$3/$4" timeout -k 10 "$job_timeout" \
          ${SPECK_TEST_LUA:+"$SPECK_TEST_LUA"} \
          "$BUSTED" -o plainTerminal --helper=tests/shard.lua "$2" \
          >"$SPECK_TEST_TMP/job.$1" 2>&1
        echo $? >"$SPECK_TEST_TMP/job.$1.rc"
        echo $(($(date +%s) - t0)) >"$SPECK_TEST_TMP/job.$1.t"
        [ -n "${SPECK_TEST_TIMES:-}" ] && echo "$t0 $(date +%s) spec $2 $3/$4" >>"$SPECK_TEST_TIMES.spans"
        exit 0' sh <"$tmp/jobs"
    while read -r id s k ns; do
      echo "-- $s, shard $k/$ns ($(cat "$tmp/job.$id.t" 2>/dev/null || echo '?') s)"
      cat "$tmp/job.$id"
      jrc=$(cat "$tmp/job.$id.rc" 2>/dev/null || echo 1)
      timed_out "$jrc" "busted ($space, $s shard $k/$ns)" && continue
      count "$tmp/job.$id" "$space, $s shard $k/$ns" "$jrc"
    done <"$tmp/jobs"
    [ -n "$mps_dir" ] && echo "(the jobs shared one GPU context: an MPS server of this run)"
    mps_stop
  done
}

# -- the phases after the specs, in five functions (their bodies not
# indented): 3 to 6 (after_local), 7 (after_remote) and 8 (after_dist:
# speck.dist's host objects; after_distdev and after_distgpu: its objects
# in a back end's memory, distdev_test.lua, on host ranks and GPU ranks),
# which main (at the end) runs after the specs, or, side by side
# (SPECK_TEST_JOBS >= 4), while they run
after_local() {

# -- 3. the embedding example ----------------------------------------------
if [ -x "$BUILD/bin/embed-example" ]; then
  if "$BUILD/bin/embed-example" >"$tmp/$part.out" 2>&1 && grep -q '^OK' "$tmp/$part.out"; then
    passed=$((passed + 1))
    echo "embed-example: $(tail -n 1 "$tmp/$part.out")"
  else
    cat "$tmp/$part.out"
    fail "embed-example"
  fi
else
  fail "$BUILD/bin/embed-example missing (run make)"
fi

# -- 4. the C kernel API example (the contract of SPEC.md), per space ---------
if [ -x "$BUILD/bin/kernel-api-example" ]; then
  for space in $SPECK_SPACES; do
    envs=$(space_env "$space")
    if env $envs "$BUILD/bin/kernel-api-example" >"$tmp/$part.out" 2>&1 &&
       grep -q '^PASS' "$tmp/$part.out"; then
      passed=$((passed + 1))
      echo "kernel-api-example ($space): PASS"
    else
      cat "$tmp/$part.out"
      fail "kernel-api-example ($space)"
    fi
  done
else
  fail "$BUILD/bin/kernel-api-example missing (run make)"
fi

# -- 5. LuaJIT: speck.ffi, per space ---------------------------------------
# a test program's counts: its last line 'N passed, M failed'
count_prog() {
  out=$1
  counts=$(tail -n 1 "$out" |
    sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p')
  if [ -z "$counts" ]; then
    cat "$out"
    fail "$2 gave no 'N passed, M failed' (status $3)"
    return
  fi
  set -- $counts "$2" "$3"
  passed=$((passed + $1))
  failed=$((failed + $2))
  [ "$2" -ne 0 ] && cat "$out"
  if [ "$4" -ne 0 ] && [ "$2" -eq 0 ]; then fail "$3 exited with status $4"; fi
  echo "$3: $(tail -n 1 "$out")"
}

LUAJIT=${LUAJIT:-$(command -v luajit)}
# a sanitized libspeck.so in an uninstrumented luajit needs the runtime
# first (make asan sets SPECK_PRELOAD; luajit's own leaks are not ours)
lj_env=
if [ -n "${SPECK_PRELOAD:-}" ]; then
  lj_env="LD_PRELOAD=$SPECK_PRELOAD ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
if [ "${SPECK_SKIP_LUAJIT:-0}" = 1 ]; then
  echo "luajit: skipped (SPECK_SKIP_LUAJIT=1)"
elif [ -z "$LUAJIT" ]; then
  fail "luajit not found (make deps)"
else
  for space in $SPECK_SPACES; do
    envs=$(space_env "$space")
    # shellcheck disable=SC2086
    env $envs $lj_env LUA_PATH="$BUILD/share/lua/5.4/?.lua;;" "$LUAJIT" \
      tests/luajit/ffi_test.lua "$BUILD/include/speck.h" "$SPECK_BIN" \
      >"$tmp/$part.out" 2>&1
    count_prog "$tmp/$part.out" "luajit ffi_test ($space)" $?
    # shellcheck disable=SC2086
    if env $envs $lj_env LUA_PATH="$BUILD/share/lua/5.4/?.lua;;" "$LUAJIT" \
         examples/luajit.lua >"$tmp/$part.out" 2>&1 && grep -q '^OK' "$tmp/$part.out"; then
      passed=$((passed + 1))
      echo "luajit examples/luajit.lua ($space): OK"
    else
      cat "$tmp/$part.out"
      fail "luajit examples/luajit.lua ($space)"
    fi
  done
fi

# -- 5b. the Jupyter kernel: tests/notebook_test.py (the example notebooks run
# headless, the protocol, the kernelspec) with Debian's Python, under the
# first space of $SPECK_SPACES; SPECK_SKIP_NOTEBOOKS=1 skips it (a GPU
# bundle on a host without Jupyter)
if [ "${SPECK_SKIP_NOTEBOOKS:-0}" = 1 ]; then
  echo "notebooks: skipped (SPECK_SKIP_NOTEBOOKS=1)"
elif ! /usr/bin/python3 -c 'import ipykernel, jupyter_client, nbclient, nbformat' 2>/dev/null; then
  fail "notebooks: /usr/bin/python3 lacks ipykernel, jupyter_client, nbclient or nbformat (make deps)"
else
  nb_space=$(echo "$SPECK_SPACES" | awk '{print $1}')
  envs=$(space_env "$nb_space")
  # shellcheck disable=SC2086
  env $envs BUILD="$BUILD" PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/python3 -Xfrozen_modules=off \
    tests/notebook_test.py >"$tmp/$part.out" 2>&1
  count_prog "$tmp/$part.out" "notebooks ($nb_space)" $?
fi

# -- 6. the installed tree ------------------------------------------------------
# check NAME CMD...: one test, passed when CMD exits 0 and prints a last
# line starting with OK (or, for busted, its summary shows no failure)
check() {
  name=$1
  shift
  if "$@" >"$tmp/$part.out" 2>&1 && tail -n 1 "$tmp/$part.out" | grep -q '^OK'; then
    passed=$((passed + 1))
    echo "installed: $name: $(tail -n 1 "$tmp/$part.out")"
  else
    cat "$tmp/$part.out"
    fail "installed: $name"
  fi
}

# run CMD with the Lua paths of prefix $1 only (Lua 5.4's and LuaJIT's)
with_prefix() {
  p=$1
  shift
  env -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u SPECK_TCC_LIBDIR -u SPECK_LIB -u SPECK_PREBUILT \
    LUA_PATH="$p/share/lua/5.4/?.lua;$p/share/lua/5.4/?/init.lua;;" \
    LUA_CPATH="$p/lib/lua/5.4/?.so;;" SPECK_PREFIX="$p" "$@"
}

if [ -n "${SPECK_INSTALLED:-}" ]; then
  P=$SPECK_INSTALLED
  version=$(sed -n 's/^#define SPECK_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
            "$BUILD/include/speck.h" | paste -sd.)
  check "speck --version" sh -c "v=\$('$P/bin/speck' --version) &&
    [ \"\$v\" = 'speck $version' ] && echo OK \$v"
  check "lua5.4 require" with_prefix "$P" lua5.4 -e "
    local speck = require 'speck'
    assert(package.searchpath('speck', package.path):find('$P', 1, true) == 1)
    assert(speck.version == '$version', speck.version)
    local r = speck.parallel_reduce('r', 10, {}, 'acc += i;')
    assert(r == 45, r)
    print('OK ' .. package.searchpath('speck.core', package.cpath))"
  # busted on Debian's lua5.4 (luarocks makes plain 'lua' Lua 5.1)
  if with_prefix "$P" lua5.4 "$BUSTED" -o plainTerminal tests/install/installed_spec.lua \
       >"$tmp/$part.out" 2>&1; then
    count "$tmp/$part.out" "installed busted" 0
  else
    count "$tmp/$part.out" "installed busted" 1
  fi
  if [ -n "$LUAJIT" ]; then
    with_prefix "$P" env LUA_PATH="$P/share/lua/5.1/?.lua;;" "$LUAJIT" \
      tests/luajit/ffi_test.lua "$P/include/speck.h" "$P/bin/speck" >"$tmp/$part.out" 2>&1
    count_prog "$tmp/$part.out" "installed luajit ffi_test" $?
    check "luajit finds $P/lib/libspeck.so" with_prefix "$P" \
      env LUA_PATH="$P/share/lua/5.1/?.lua;;" "$LUAJIT" -e "
      local sf = require 'speck.ffi'
      assert(sf.lib_path == '$P/lib/libspeck.so', sf.lib_path)
      print('OK ' .. sf.lib_path)"
  fi
  # the installed Jupyter kernel (make install writes its kernelspec under
  # the prefix): one cell run through it
  if [ "${SPECK_SKIP_NOTEBOOKS:-0}" != 1 ]; then
    check "Jupyter kernel" with_prefix "$P" env JUPYTER_PATH="$P/share/jupyter" \
      PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/python3 -c "
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name='speck', startup_timeout=60)
out = {}
kc.execute_interactive('speck.parallel_reduce(\\'r\\', 10, {}, \\'acc += i;\\')', timeout=60,
    output_hook=lambda m: out.update(m['content'].get('data', {})))
kc.stop_channels(); km.shutdown_kernel(now=True)
assert out.get('text/plain') in ('45', '45.0'), out
import os, sys
print('OK the installed kernel ran a cell'); sys.stdout.flush(); os._exit(0)"
  fi
  check "pkg-config build" sh -c "
    [ \"\$(PKG_CONFIG_PATH='$P/lib/pkgconfig' pkg-config --modversion speck)\" = '$version' ] &&
    cc -o '$tmp/kapi' examples/kernel_api/kernel_api.c \
      \$(PKG_CONFIG_PATH='$P/lib/pkgconfig' pkg-config --cflags --libs speck) &&
    '$tmp/kapi' | grep -q '^PASS' && echo OK"
  rock=speck-$version-1.rockspec
  if [ ! -f "$rock" ]; then
    fail "installed: no $rock (the rockspec's version must be core/version.h's: $(ls speck-*.rockspec 2>/dev/null))"
  elif command -v luarocks >/dev/null 2>&1; then
    check "luarocks make $rock" sh -c "
      luarocks --lua-version 5.4 --tree '$tmp/rocks' make '$rock' >'$tmp/rock.log' 2>&1 ||
        { cat '$tmp/rock.log'; exit 1; }
      eval \$(luarocks --lua-version 5.4 --tree '$tmp/rocks' path) &&
      lua5.4 -e \"
        local speck = require 'speck'
        assert(package.searchpath('speck.core', package.cpath):find('$tmp/rocks', 1, true) == 1)
        assert(speck.version == '$version')
        assert(speck.parallel_reduce('r', 10, {}, 'acc += (double)(uint64_t)(i * 1.5);',
                                     nil, {jit = 'tcc'}) == 65)
        local shelf = speck.info().cache.prebuilt
        assert(shelf:find('$tmp/rocks', 1, true) == 1, shelf)
        print('OK luarocks tree ' .. speck.info().compilers.tcc.libdir .. ', ' .. shelf)\""
  fi
fi

}

# -- 7. speck.remote: tests/remote/remote_test.lua on 2 ranks under mpirun
#      (--oversubscribe, and --allow-run-as-root as root), again with
#      SPECK_REMOTE_DIRECT=0 (every other rank's element through MPI calls)
#      and 2 threads per rank, and as one rank without mpirun (a singleton), each counted from rank 0's 'N passed,
#      M failed' and cut off after 120 s (a rank that fails before a
#      collective call leaves the others waiting). A build without MPI
#      (speck --info: spaces.remote.available false) is a failure unless
#      SPECK_SKIP_MPI=1.
# mpirun's flag to run as root, where we are root
root_flag=
[ "$(id -u)" -eq 0 ] && root_flag=--allow-run-as-root
remote_run() {   # $1: what, then the command
  what=$1
  shift
  # (a sanitized speck: no leak check -- Open MPI unloads its components
  # at MPI_Finalize, leaving what they allocated unattributable; the leak
  # reports of 'make asan' here named no speck frame)
  rt=$(date +%s)
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    timeout -k 10 120 "$@" >"$tmp/$part.out" 2>&1
  rc=$?
  rt=$(($(date +%s) - rt))
  counts=$(grep '^[0-9][0-9]* passed, [0-9][0-9]* failed$' "$tmp/$part.out" | tail -n 1 |
    sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
  if [ -z "$counts" ]; then
    cat "$tmp/$part.out"
    fail "remote ($what) gave no summary (status $rc)"
    return
  fi
  set -- $counts
  passed=$((passed + $1))
  failed=$((failed + $2))
  [ "$2" -ne 0 ] && cat "$tmp/$part.out"
  [ "$rc" -ne 0 ] && [ "$2" -eq 0 ] && fail "remote ($what) exited with status $rc"
  echo "remote ($what): $1 passed, $2 failed ($rt s)"
}
after_remote() {
if [ "${SPECK_SKIP_MPI:-0}" != 1 ]; then
  if [ "$(fact remote)" != 1 ]; then
    fail "remote: speck was built without MPI (install libopenmpi-dev, openmpi-bin; or SPECK_SKIP_MPI=1)"
  elif ! command -v mpirun >/dev/null 2>&1; then
    fail "remote: no mpirun (openmpi-bin; or SPECK_SKIP_MPI=1)"
  else
    SPECK_TEST_NP=2 SPECK_THREADS=1 remote_run "2 ranks" mpirun $root_flag --oversubscribe \
      -np 2 "$SPECK_BIN" tests/remote/remote_test.lua
    # the same through MPI_Get / MPI_Put / MPI_Win_allocate only (on one
    # node the elements of other ranks are otherwise plain loads and stores)
    SPECK_REMOTE_DIRECT=0 SPECK_TEST_NP=2 SPECK_THREADS=2 remote_run "2 ranks, 2 threads each, MPI calls" \
      mpirun $root_flag --oversubscribe -np 2 "$SPECK_BIN" tests/remote/remote_test.lua
    SPECK_TEST_NP=1 remote_run "1 rank, no mpirun" "$SPECK_BIN" tests/remote/remote_test.lua
    # the cuda suite: the same on two GPUs, remote views in GPU memory
    # over NVSHMEM (one rank per GPU; --bind-to none: speck's helper
    # threads must not share the rank's one core)
    case " $SPECK_SPACES " in *" cuda "*)
      if [ "$(fact devices)" -lt 2 ]; then
        echo "remote (2 ranks, 2 GPUs, NVSHMEM): pending (fewer than 2 GPUs)"
        pending=$((pending + 1))
      elif [ "$(fact nvshmem)" != 1 ]; then
        echo "remote (2 ranks, 2 GPUs, NVSHMEM): pending (NVSHMEM not found: put pip's nvidia/nvshmem/lib on LD_LIBRARY_PATH)"
        pending=$((pending + 1))
      else
        SPECK_SPACE=cuda SPECK_TEST_NP=2 NVSHMEM_DISABLE_NVLS=1 remote_run "2 ranks, 2 GPUs, NVSHMEM" \
          mpirun $root_flag --bind-to none -np 2 "$SPECK_BIN" tests/remote/remote_test.lua
      fi ;;
    esac
  fi
fi

}

# -- 8. speck.dist: tests/dist/dist_test.lua on 1, 2 and 3 ranks under
#      mpirun (3 ranks catch off-by-one splits), each operation against
#      the library on one rank; the 1-rank run writes the CG/GMRES
#      reference (SPECK_DIST_REF) the 2- and 3-rank runs compare with.
#      Counted and cut off as the remote runs are (remote_run).
after_dist() {
mpi_ready || return 0
rm -f "$tmp/dist_ref"
for np in 1 2 3; do
  SPECK_DIST_REF="$tmp/dist_ref" SPECK_DIST_TMP="$tmp/dist" SPECK_THREADS=1 \
    remote_run "dist, $np rank(s)" mpirun $root_flag --oversubscribe -np $np \
    "$SPECK_BIN" tests/dist/dist_test.lua
done
# a rank that dies mid-solve (tests/dist/dist_fail.lua): mpirun ends the
# job and names the rank; the survivor neither hangs nor goes on
# (no leak check in sanitized runs: Open MPI keeps its allocations)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  SPECK_THREADS=1 timeout -k 10 60 mpirun $root_flag --oversubscribe -np 2 "$SPECK_BIN" \
  tests/dist/dist_fail.lua >"$tmp/$part.out" 2>&1
rc=$?
if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ] && grep -q 'Exit code: *3' "$tmp/$part.out" &&
   ! grep -q survived "$tmp/$part.out"; then
  passed=$((passed + 1))
  echo "dist (a rank dies mid-solve): the job ended (status $rc), no hang"
else
  cat "$tmp/$part.out"
  fail "dist (a rank dies mid-solve): status $rc"
fi
}
# distdev_test.lua's staged path on host ranks (SPECK_DIST_STAGE=1: the
# halo packed by a kernel and staged through host buffers; dist.bfs's
# device bodies too: SPECK_DIST_BFS_TEAM=1) on each count of ranks given,
# writing the reference REF and REF.np (below) and, after each count N,
# REF.done-N (after_distgpu waits for them); $1: REF, $2: what to add to
# the lines' names, then the counts
distdev_staged() {
  ref=$1 also=$2
  shift 2
  rm -f "$ref" "$ref.np" "$ref".done-*
  for np in "$@"; do
    SPECK_DIST_STAGE=1 SPECK_DIST_BFS_TEAM=1 SPECK_DIST_REF="$ref" SPECK_THREADS=1 \
      remote_run "dist staged, $np rank(s)$also" mpirun $root_flag --oversubscribe -np $np \
      "$SPECK_BIN" tests/dist/distdev_test.lua
    : >"$ref.done-$np"
  done
}
# GPU ranks (issue 28): tests/dist/distdev_test.lua, the objects in the
# back end's memory; on host ranks its staged path on 1, 2 and 3 ranks,
# its one-sided path (SPECK_DIST_TRANSPORT=onesided: puts into the
# receivers' remote views, here MPI windows) on 2 and 3 (after_distdev);
# in the cuda suite on 1 and 2 ranks of the GPU(s) in device memory (two
# ranks share a GPU where there is one: MPI staged; one GPU each with
# NVSHMEM: one-sided puts), and 2 in managed memory (after_distgpu, each
# count once after_distdev's staged run on it has written its reference:
# the two parts run side by side). dist.amg's iterations depend on the
# number of ranks (aggregates within each): the staged runs write them per
# count to REF.np, the one-sided and the GPU ranks' runs compare with them
mpi_ready() {
  [ "${SPECK_SKIP_MPI:-0}" != 1 ] && command -v mpirun >/dev/null 2>&1 && [ "$(fact remote)" = 1 ]
}
after_distdev() {
mpi_ready || return 0
distdev_staged "$tmp/distdev_ref" "" 1 2 3
# the one-sided path (NVSHMEM puts on GPUs) over MPI windows on host ranks
for np in 2 3; do
  SPECK_DIST_TRANSPORT=onesided SPECK_DIST_REF="$tmp/distdev_ref" SPECK_THREADS=1 \
    remote_run "dist one-sided, $np ranks" mpirun $root_flag --oversubscribe -np $np \
    "$SPECK_BIN" tests/dist/distdev_test.lua
done
}
after_distgpu() {
case " $SPECK_SPACES " in *" cuda "*) ;; *) return 0 ;; esac
mpi_ready || return 0
if [ "$(fact cuda)" != 1 ]; then
  echo "dist on GPU ranks: pending (no GPU)"
  pending=$((pending + 1))
  return 0
fi
# after_distdev's staged run on np ranks: waited for (beside this part;
# its reference, REF.np, copied before each count's first GPU run); where
# it has not come within 5 minutes, this part's own staged runs
rm -f "$tmp/distgpu_ref" "$tmp/distgpu_ref.np"
host_ref=$tmp/distdev_ref
for np in 1 2; do
  w=0
  while [ ! -f "$host_ref.done-$np" ] && [ "$w" -lt 1500 ]; do sleep 0.2; w=$((w + 1)); done
  if [ ! -f "$host_ref.done-$np" ]; then
    distdev_staged "$tmp/distgpu_host" ", the GPU ranks' reference" 1 2
    host_ref=$tmp/distgpu_host
  fi
  [ -f "$host_ref.np" ] && cp "$host_ref.np" "$tmp/distgpu_ref.np"
  SPECK_SPACE=cuda SPECK_CUDA_UVM=0 NVSHMEM_DISABLE_NVLS=1 SPECK_DIST_REF="$tmp/distgpu_ref" \
    remote_run "dist on GPU ranks, $np rank(s)" mpirun $root_flag --oversubscribe --bind-to none \
    -np $np "$SPECK_BIN" tests/dist/distdev_test.lua
done
# (one after another: beside the 2-rank run on one GPU it took 21 s, not 13)
SPECK_SPACE=cuda SPECK_CUDA_UVM=1 NVSHMEM_DISABLE_NVLS=1 SPECK_DIST_REF="$tmp/distgpu_ref" \
  remote_run "dist on GPU ranks, managed memory, 2 ranks" mpirun $root_flag --oversubscribe \
  --bind-to none -np 2 "$SPECK_BIN" tests/dist/distdev_test.lua
}

# -- main ------------------------------------------------------------------
# Side by side on four or more cores (SPECK_TEST_JOBS >= 4) the five parts
# after the specs run while the specs do, each a process, their output and
# counts written to files, shown and added after the C programs' results as
# when they run after the specs: the same lines in the same order, the same
# totals. On fewer cores their mpirun ranks beside the specs would only
# slow both. (A part's commands write to $tmp/$part.out.)
after_parts="after_local after_remote after_dist after_distdev after_distgpu"
# what speck.info() says that the parts ask, asked once (on an H200 host
# 'speck --info' took 0.4 s and 2.3 s of CPU; the parts asked six times):
# 'fact remote' (built with MPI), 'cuda' (a GPU there), 'devices' (how
# many), 'nvshmem' (remote views in GPU memory through NVSHMEM), each 1 or
# 0 (devices: the count); beside the spaces' start-up checks
"$SPECK_BIN" -e 'local i = speck.info()
  local r, c = i.spaces.remote, i.spaces.cuda
  print("remote=" .. (r and r.available and 1 or 0))
  print("cuda=" .. (c and c.available and 1 or 0))
  print("devices=" .. #(i.devices or {}))
  print("nvshmem=" .. ((r and r.info or ""):find("GPU memory: NVSHMEM %d") and 1 or 0))' \
  >"$tmp/facts" 2>/dev/null &
facts_pid=$!
fact() { v=$(sed -n "s/^$1=//p" "$tmp/facts"); echo "${v:-0}"; }
specs_probe
if [ "$jobs" -gt 1 ]; then
  ctests_run &
  ctests_pid=$!
fi
wait "$facts_pid"
if [ "$jobs" -ge 4 ]; then
  for part in $after_parts; do
    (
      passed=0 failed=0 pending=0 t0=$(date +%s)
      # MPI ranks that wait yield their core to the specs
      OMPI_MCA_mpi_yield_when_idle=1
      export OMPI_MCA_mpi_yield_when_idle
      $part
      echo "$passed $failed $pending" >"$tmp/$part.counts"
      [ -n "${SPECK_TEST_TIMES:-}" ] && echo "$t0 $(date +%s) part $part" >>"$SPECK_TEST_TIMES.spans"
    ) >"$tmp/$part.log" 2>&1 &
    after_pids="${after_pids:-} $!"
  done
fi
specs_phase
# the C programs' results (side by side they ran with the specs)
if [ -n "${ctests_pid:-}" ]; then
  wait "$ctests_pid"
  ctests_report
fi
# shellcheck disable=SC2086
[ -n "${after_pids:-}" ] && wait $after_pids
for part in $after_parts; do
  if [ -z "${after_pids:-}" ]; then
    $part
    continue
  fi
  cat "$tmp/$part.log"
  if [ -s "$tmp/$part.counts" ]; then
    read -r p f q <"$tmp/$part.counts"
    passed=$((passed + p))
    failed=$((failed + f))
    pending=$((pending + q))
  else
    fail "$part (tests/run.sh's phases after the specs) gave no counts"
  fi
done

if [ -n "${SPECK_TEST_TIMES:-}" ] && [ -s "$SPECK_TEST_TIMES" ]; then
  echo "slowest tests (s since the process began, s, shard, file, name):"
  sort -t "$(printf '\t')" -k2,2 -g -r "$SPECK_TEST_TIMES" | head -n 15
fi
[ "$pending" -gt 0 ] && echo "($pending pending)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
