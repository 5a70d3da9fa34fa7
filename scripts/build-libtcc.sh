#!/bin/sh
# build-libtcc.sh: build a position-independent libtcc.a (and libtcc1.a, the
# run-time library tcc links into generated code) under .deps/tcc/.
#
# Debian ships only a non-PIC libtcc.a, which cannot be linked into a shared
# object such as the Lua module speck/core.so. We therefore rebuild Debian's
# own tcc source with -fPIC. Idempotent: does nothing once .deps/tcc/libtcc.a
# exists. .deps/ is git-ignored and survives 'make clean'.
set -e

URL=http://deb.debian.org/debian/pool/main/t/tcc/tcc_0.9.27+git20200814.62c30a4a.orig.tar.bz2
SHA256=d63c113bcdd657f51c8ee197a0b0a24203603313e19a52b5f678d40ab7f5df35

top=$(cd "$(dirname "$0")/.." && pwd)
deps="$top/.deps"
dir="$deps/tcc"
tarball="$deps/$(basename "$URL")"

# speck's addition to libtcc (scripts/libtcc_lines.c: the line of a code
# address), compiled with libtcc's headers into its libtcc.a
add_lines() {
  cc -fPIC -O2 -w -I"$dir" -c "$top/scripts/libtcc_lines.c" -o "$dir/libtcc_lines.o" &&
    ar rcs "$dir/libtcc.a" "$dir/libtcc_lines.o"
}

if [ -f "$dir/libtcc.a" ] && [ -f "$dir/libtcc1.a" ] && [ -f "$dir/libtcc.h" ]; then
  # a build from before the addition (or an older addition) gets it
  if [ ! -f "$dir/libtcc_lines.o" ] || [ "$top/scripts/libtcc_lines.c" -nt "$dir/libtcc_lines.o" ]; then
    add_lines
  fi
  exit 0
fi

mkdir -p "$deps"

verify() {
  echo "$SHA256  $1" | sha256sum -c --status -
}

if [ ! -f "$tarball" ] || ! verify "$tarball"; then
  echo "speck: downloading $URL"
  rm -f "$tarball.part"
  if command -v curl >/dev/null 2>&1; then
    curl -sSfL -o "$tarball.part" "$URL"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$tarball.part" "$URL"
  else
    echo "speck: need curl or wget to download the tcc source" >&2
    exit 1
  fi
  if ! verify "$tarball.part"; then
    echo "speck: checksum mismatch for $(basename "$URL") (want sha256 $SHA256)" >&2
    rm -f "$tarball.part"
    exit 1
  fi
  mv "$tarball.part" "$tarball"
fi

# The tarball holds its files at top level, so extract into a fresh folder.
rm -rf "$dir"
mkdir -p "$dir"
tar -xjf "$tarball" -C "$dir"

echo "speck: building PIC libtcc in .deps/tcc"
cd "$dir"
./configure --extra-cflags="-fPIC -O2" >configure.log 2>&1 || {
  cat configure.log >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" libtcc.a libtcc1.a >make.log 2>&1 || {
  tail -n 40 make.log >&2; exit 1; }
add_lines
echo "speck: built .deps/tcc/libtcc.a and .deps/tcc/libtcc1.a"
