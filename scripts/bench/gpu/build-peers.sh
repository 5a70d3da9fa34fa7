#!/bin/sh
# build-peers.sh DIR: build the raw-driver peers (peer.c, replay_peer.c, gcc) and the
# hand-written stencil (stencil.cu, nvcc -O3 for sm_90) into DIR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-peers.sh DIR}
mkdir -p "$out"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
${CC:-cc} -O2 -o "$out/peer" "$here/peer.c" -ldl
${CC:-cc} -O2 -o "$out/replay_peer" "$here/replay_peer.c" -ldl
"$NVCC" -O3 -arch=sm_90 -cubin -o "$out/stencil.cubin" "$here/stencil.cu"
