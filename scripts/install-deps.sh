#!/bin/sh
# install-deps.sh: install the Debian packages speck needs, only when missing.
# Runs apt-get update at most once; when not root, names what is missing.
set -e

# luajit: speck.ffi and its tests; luarocks: the rockspec test (it brings
# lua5.1, which Debian then makes the plain 'lua': tests run busted with
# lua5.4 by name); Open MPI: speck.remote and its 2-rank specs;
# SuiteSparse: orderings for the Cholesky and CHOLMOD as its peer; TBB,
# LIBXSMM, GraphBLAS and igraph: benchmark peers; pkg-config:
# programs built against speck.pc; gnuplot-nox: scripts/bench/plot
PKGS="lua5.4 liblua5.4-dev libtcc-dev tcc lua-busted luajit libreadline-dev \
gcc g++ make bzip2 curl pkg-config luarocks gnuplot-nox \
python3-numpy python3-scipy python3-numba python3-networkx libopenblas-dev \
libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev \
libopenmpi-dev openmpi-bin libsuitesparse-dev libtbb-dev libxsmm-dev \
libgraphblas-dev libigraph-dev"
# speck.plot's PNG (rsvg-convert; zlib for rasters in SVG and gzip'd
# graphs), the Jupyter kernel and its notebook tests (chromium: the
# screenshot test); python3-igraph: the graph specs' second oracle
PKGS="$PKGS zlib1g-dev librsvg2-bin chromium python3-ipykernel jupyter-client jupyter-nbconvert \
python3-nbformat python3-nbclient python3-igraph"
# 'install-deps.sh fuzz' (make fuzz): clang and its libFuzzer runtime
# (libclang_rt.fuzzer); the ASan/UBSan/TSan builds use gcc's own runtimes
if [ "${1:-}" = fuzz ]; then
  PKGS="$PKGS clang libclang-rt-14-dev"
fi
# 'install-deps.sh bench' (make bench): the solver benchmark's peers, hypre
# (BoomerAMG) and PETSc (GAMG), scripts/bench/solve/amgpcg
if [ "${1:-}" = bench ]; then
  PKGS="$PKGS libhypre-dev petsc-dev"
fi

missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "speck: missing Debian packages:$missing" >&2
    echo "speck: run as root: apt-get install$missing" >&2
    exit 1
  fi
else
  SUDO=
fi

echo "speck: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
