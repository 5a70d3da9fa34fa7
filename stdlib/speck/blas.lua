-- speck/blas.lua: BLAS on views, the library's precompiled kernels
-- (kernels/blas/). Level 1: dot nrm2 asum iamax scal axpy axpby, on rank-1
-- views of any dtype in the active back end's space. Each function is one
-- call into the C library (speck_call's "blas.<name>" from C); arguments
-- are checked there, and errors name the function and the view.
local core = require "speck.core"

local blas = {}

function blas.dot(x, y) return core.call("blas.dot", {x = x, y = y}) end
function blas.nrm2(x) return core.call("blas.nrm2", {x = x}) end
function blas.asum(x) return core.call("blas.asum", {x = x}) end
-- 0-based index of the first entry of largest magnitude; -1 when empty
function blas.iamax(x) return core.call("blas.iamax", {x = x}) end
-- x = a*x (a = 0 zeroes x, NaN included)
function blas.scal(a, x) core.call("blas.scal", {a = a, x = x}) end
-- y = a*x + y (a = 0 leaves y and does not read x)
function blas.axpy(a, x, y) core.call("blas.axpy", {a = a, x = x, y = y}) end
-- y = a*x + b*y (b = 0 overwrites y, NaN included)
function blas.axpby(a, x, b, y)
  core.call("blas.axpby", {a = a, x = x, b = b, y = y})
end

-- -- levels 2 and 3, LAPACK (kernels/blas/blas3.c, lapack.c) -----------------
-- Rank-2 views of any layout (strided too), float64 or float32, in the
-- active back end's space; opts last on any call: {impl = "native" |
-- "vendor" | "auto"} (vendor: OpenBLAS on the host; auto: the vendor above
-- the crossover of docs/bench.md). Errors name the function and the view.
local check_opts = require "speck.opts"
local function impl(fname, opts, args)
  args.impl = check_opts("speck.blas." .. fname, opts, {"impl"}, 3).impl
  return args
end

-- y = alpha op(A) x + beta y
function blas.gemv(trans, alpha, A, x, beta, y, opts)
  core.call("blas.gemv", impl("gemv", opts, {trans = trans, alpha = alpha, A = A, x = x,
                                             beta = beta, y = y}))
end
-- C = alpha op(A) op(B) + beta C (beta = 0 overwrites C, NaN included)
function blas.gemm(transA, transB, alpha, A, B, beta, C, opts)
  core.call("blas.gemm", impl("gemm", opts, {transA = transA, transB = transB, alpha = alpha,
                                             A = A, B = B, beta = beta, C = C}))
end
-- C = alpha op(A) op(A)^T + beta C, triangle uplo of C only
function blas.syrk(uplo, trans, alpha, A, beta, C, opts)
  core.call("blas.syrk", impl("syrk", opts, {uplo = uplo, trans = trans, alpha = alpha, A = A,
                                             beta = beta, C = C}))
end
-- B = alpha op(A)^-1 B (side "L") or alpha B op(A)^-1 ("R")
function blas.trsm(side, uplo, transA, diag, alpha, A, B, opts)
  core.call("blas.trsm", impl("trsm", opts, {side = side, uplo = uplo, transA = transA,
                                             diag = diag, alpha = alpha, A = A, B = B}))
end
-- B = alpha op(A) B (side "L") or alpha B op(A) ("R")
function blas.trmm(side, uplo, transA, diag, alpha, A, B, opts)
  core.call("blas.trmm", impl("trmm", opts, {side = side, uplo = uplo, transA = transA,
                                             diag = diag, alpha = alpha, A = A, B = B}))
end
-- in place: the inverse of triangle uplo of A
function blas.trtri(uplo, diag, A, opts)
  core.call("blas.trtri", impl("trtri", opts, {uplo = uplo, diag = diag, A = A}))
end
-- in place: the Cholesky factor in triangle uplo of A
function blas.potrf(uplo, A, opts)
  core.call("blas.potrf", impl("potrf", opts, {uplo = uplo, A = A}))
end
-- in place: P A = L U (unit L below the diagonal); 0-based pivots into ipiv
function blas.getrf(A, ipiv, opts)
  core.call("blas.getrf", impl("getrf", opts, {A = A, ipiv = ipiv}))
end
-- B = A^-1 B with getrf's factors and pivots
function blas.getrs(A, ipiv, B, opts)
  core.call("blas.getrs", impl("getrs", opts, {A = A, ipiv = ipiv, B = B}))
end
-- B = A^-1 B (A overwritten by its factors, the pivots into ipiv if given)
function blas.gesv(A, B, ipiv, opts)
  if type(ipiv) == "table" and opts == nil then ipiv, opts = nil, ipiv end
  core.call("blas.gesv", impl("gesv", opts, {A = A, B = B, ipiv = ipiv}))
end

return blas
