#!/bin/sh
# run-tests.sh: run speck's test suite from this bundle (made by
# 'make gpu-bundle'), on a machine where nothing is installed: the bundled
# build/bin/speck is the Lua interpreter, and busted with its Lua and C
# modules come from lua/. SPECK_SPACES picks the back ends
# (default "serial openmp"; 'make test-cuda' sets "cuda").
here=$(cd "$(dirname "$0")" && pwd)
LUA_PATH="$here/lua/share/?.lua;$here/lua/share/?/init.lua;;"
LUA_CPATH="$here/lua/lib/?.so;;"
SPECK_LUA="$here/build/bin/speck"
BUSTED="$here/busted"
BUILD="$here/build"
export LUA_PATH LUA_CPATH SPECK_LUA BUSTED BUILD
exec "$here/tests/run.sh" "$@"
