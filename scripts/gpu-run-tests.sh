#!/bin/sh
# run-tests.sh: run speck's test suite from this bundle (made by
# 'make gpu-bundle'), on a machine where nothing is installed: the bundled
# build/bin/speck is the Lua interpreter, and busted with its Lua and C
# modules come from lua/. SPECK_SPACES picks the back ends
# (default "serial openmp"; 'make test-cuda' sets "cuda").
#
# The machine is a GPU host with many cores: the spec files run in
# parallel processes, each cut into shards (tests/run.sh:
# SPECK_TEST_JOBS, default the core count; SPECK_TEST_SHARDS), and share
# one disk cache for the run (SPECK_CACHE_DIR, default a fresh folder
# removed at the end), so a kernel compiled by one process is loaded by
# the others. The output still ends with one 'N passed, N failed' line and
# the exit status says whether anything failed.
here=$(cd "$(dirname "$0")" && pwd)
LUA_PATH="$here/lua/share/?.lua;$here/lua/share/?/init.lua;;"
LUA_CPATH="$here/lua/lib/?.so;;"
SPECK_LUA="$here/build/bin/speck"
BUSTED="$here/busted"
BUILD="$here/build"
# the bundled shared libraries (Lua's, SuiteSparse AMD for the Cholesky)
LD_LIBRARY_PATH="$here/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
SPECK_TEST_JOBS=${SPECK_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
# shards per file from the cuda suite's times on an H200 (16 jobs sharing
# one MPS server, 2026-11-29, scripts/suite_schedule.py --cap 25 over its
# log and times): each process pays 1-8 s of start-up (CUDA, the file's
# top level, its oracle), 213 s of the 750 s the jobs took in 91
# processes; whole files but the five longest (two or three shards) fill
# the 16 cores as evenly (the jobs longest first, tests/suite-weights) in
# 88 processes, the longest job about 24 s
SPECK_TEST_SHARDS=${SPECK_TEST_SHARDS:-1 dense_spec=3 teams_spec=2 graph_paths_spec=2 graph_spec=2 zlinalg2_spec=2}
# What the host has, asked side by side (on a fresh GPU host each of
# these reads a cold disk: the search for NVSHMEM walks the Python
# trees, the imports load NumPy, SciPy, NetworkX and Jupyter), each
# answer in a file of $ask:
ask=$(mktemp -d "${TMPDIR:-/tmp}/speck-ask.XXXXXX") || exit 1
# NVSHMEM (remote views in GPU memory): pip's wheel, where one is
# installed, unless the loader finds it already or SPECK_NVSHMEM_LIB names it
[ -z "${SPECK_NVSHMEM_LIB:-}" ] &&
  { find /opt /usr/local/lib /usr/lib/python3* -path '*nvidia/nvshmem/lib/libnvshmem_host.so.3' \
      2>/dev/null | head -n 1 >"$ask/nvshmem"; } &
# the Jupyter kernel's tests run where Debian's Python has Jupyter
{ /usr/bin/python3 -c 'import ipykernel, jupyter_client, nbclient, nbformat' 2>/dev/null &&
    : >"$ask/jupyter"; } &
# the specs' oracles (NumPy, SciPy, NetworkX) run with Debian's
# /usr/bin/python3; where it lacks them (a GPU host's image), with the
# python3 on PATH that has them (SPECK_PYTHON), else those cases pend
if [ -z "${SPECK_PYTHON:-}" ]; then
  { /usr/bin/python3 -c 'import numpy, scipy, networkx' 2>/dev/null && : >"$ask/debian"; } &
  { py=$(command -v python3) && "$py" -c 'import numpy, scipy, networkx' 2>/dev/null &&
      echo "$py" >"$ask/python"; } &
fi
wait
nvs=$(cat "$ask/nvshmem" 2>/dev/null)
[ -n "$nvs" ] && LD_LIBRARY_PATH="$(dirname "$nvs")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" &&
  export LD_LIBRARY_PATH
[ -f "$ask/jupyter" ] || SPECK_SKIP_NOTEBOOKS=1
[ -z "${SPECK_PYTHON:-}" ] && [ ! -f "$ask/debian" ] && [ -s "$ask/python" ] &&
  SPECK_PYTHON=$(cat "$ask/python")
rm -rf "$ask"
# LuaJIT's speck.ffi runs where the host has luajit
command -v luajit >/dev/null 2>&1 || SPECK_SKIP_LUAJIT=1
command -v chromium >/dev/null 2>&1 || SPECK_SKIP_SCREENSHOT=1
export LUA_PATH LUA_CPATH SPECK_LUA BUSTED BUILD SPECK_TEST_JOBS SPECK_TEST_SHARDS \
  SPECK_SKIP_LUAJIT SPECK_SKIP_NOTEBOOKS SPECK_SKIP_SCREENSHOT ${SPECK_PYTHON:+SPECK_PYTHON}
own_cache=
if [ -z "${SPECK_CACHE_DIR:-}" ]; then
  own_cache=$(mktemp -d "${TMPDIR:-/tmp}/speck-cache.XXXXXX") || exit 1
  SPECK_CACHE_DIR=$own_cache
  export SPECK_CACHE_DIR
fi
"$here/tests/run.sh" "$@"
rc=$?
[ -n "$own_cache" ] && rm -rf "$own_cache"
exit $rc
