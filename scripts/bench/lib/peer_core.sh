# peer_core.sh: sourced by the bench scripts whose peers call OpenBLAS
# through NumPy / SciPy ($SPECK set): PEER_ENV is what the peer runs with
# so that its OpenBLAS uses the core speck's does -- speck names one for
# an AVX-512 CPU whose model OpenBLAS does not know, where OpenBLAS alone
# takes Prescott's SSE3 kernels (kernels/blas/vendor.c). Empty when the
# environment forces a core already or speck names none.
PEER_ENV=
peer_core=$("$SPECK" -e 'print((speck.info().blas_vendor.host or ""):match("core (%w+)") or "")' \
  2>/dev/null || true)
[ -n "$peer_core" ] && [ -z "${OPENBLAS_CORETYPE:-}" ] && PEER_ENV="OPENBLAS_CORETYPE=$peer_core"
