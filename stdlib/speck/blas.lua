-- speck/blas.lua: BLAS on views, the library's precompiled kernels
-- (kernels/blas/). Level 1: dot nrm2 asum iamax scal axpy axpby, on rank-1
-- views of any dtype in the active back end's space. Each function is one
-- call into the C library (speck_call's "blas.<name>" from C); arguments
-- are checked there, and errors name the function and the view.
local core = require "speck.core"

local blas = {}

-- complex views (complex128, complex64) go to the complex BLAS
-- (kernels/blas/zblas.c): results and scalars are {re, im} (a plain
-- number is a real scalar)
-- (core.complex: a view of a complex dtype; a non-view is false, and the
-- call below names it)
local cx = core.complex
local function parts(a)
  if type(a) == "table" then return a[1] or a.re, a[2] or a.im or 0 end
  return a, 0
end
local function zdot(x, y, conj)
  local _, r = core.call("blas.zdot", {x = x, y = y, conj = conj})
  return {r.re, r.im}
end

-- Level 1 are library calls bound to their argument names (core.bind: a
-- C function, no table and no Lua frame a call); a complex view goes to
-- the complex BLAS through the fallback given.
-- x . y (complex: dotu, no conjugate)
blas.dot = core.bind("blas.dot", function(x, y) return zdot(x, y, 0) end, "x", "y")
-- conj(x) . y (real views: dot)
blas.dotc = core.bind("blas.dot", function(x, y) return zdot(x, y, 1) end, "x", "y")
blas.nrm2 = core.bind("blas.nrm2", function(x) return core.call("blas.znrm2", {x = x}) end,
                      "x")
blas.asum = core.bind("blas.asum", nil, "x")
-- 0-based index of the first entry of largest magnitude; -1 when empty
blas.iamax = core.bind("blas.iamax", nil, "x")
-- x = a*x (a = 0 zeroes x, NaN included)
blas.scal = core.bind("blas.scal", function(a, x)
  local re, im = parts(a)
  return core.call("blas.zscal", {a_re = re, a_im = im, x = x})
end, "a", "x")
-- y = a*x + y (a = 0 leaves y and does not read x)
blas.axpy = core.bind("blas.axpy", function(a, x, y)
  local re, im = parts(a)
  return core.call("blas.zaxpy", {a_re = re, a_im = im, x = x, y = y})
end, "a", "x", "y")
-- y = a*x + b*y (b = 0 overwrites y, NaN included)
blas.axpby = core.bind("blas.axpby", nil, "a", "x", "b", "y")

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
-- trans "C": the conjugate transpose ("T" for real views); complex views
-- take complex alpha, beta ({re, im} or numbers)
function blas.gemv(trans, alpha, A, x, beta, y, opts)
  if cx(A) or cx(x) or cx(y) then
    check_opts("speck.blas.gemv", opts, {"impl"}, 3)
    local ar, ai = parts(alpha)
    local br, bi = parts(beta)
    return core.call("blas.zgemv", {trans = trans, alpha_re = ar, alpha_im = ai, A = A, x = x,
                                    beta_re = br, beta_im = bi, y = y})
  end
  if trans == "C" then trans = "T" end
  core.call("blas.gemv", impl("gemv", opts, {trans = trans, alpha = alpha, A = A, x = x,
                                             beta = beta, y = y}))
end
-- C = alpha op(A) op(B) + beta C (beta = 0 overwrites C, NaN included)
function blas.gemm(transA, transB, alpha, A, B, beta, C, opts)
  if cx(A) or cx(B) or cx(C) then
    local ar, ai = parts(alpha)
    local br, bi = parts(beta)
    return core.call("blas.zgemm", impl("gemm", opts, {transA = transA, transB = transB,
                                                       alpha_re = ar, alpha_im = ai, A = A,
                                                       B = B, beta_re = br, beta_im = bi,
                                                       C = C}))
  end
  if transA == "C" then transA = "T" end
  if transB == "C" then transB = "T" end
  core.call("blas.gemm", impl("gemm", opts, {transA = transA, transB = transB, alpha = alpha,
                                             A = A, B = B, beta = beta, C = C}))
end
-- C = alpha op(A) op(A)^T + beta C, triangle uplo of C only (complex
-- views: trans "N" | "T", alpha and beta {re, im} or numbers, zsyrk)
function blas.syrk(uplo, trans, alpha, A, beta, C, opts)
  if cx(A) or cx(C) then
    local ar, ai = parts(alpha)
    local br, bi = parts(beta)
    return core.call("blas.zsyrk", impl("syrk", opts, {uplo = uplo, trans = trans, alpha_re = ar,
                                                       alpha_im = ai, A = A, beta_re = br,
                                                       beta_im = bi, C = C}))
  end
  core.call("blas.syrk", impl("syrk", opts, {uplo = uplo, trans = trans, alpha = alpha, A = A,
                                             beta = beta, C = C}))
end
-- C = alpha op(A) op(A)^H + beta C, triangle uplo of C only, trans "N" |
-- "C"; alpha and beta real (a complex one is refused); the diagonal's
-- imaginary parts are set to 0 (BLAS zherk). Real views: syrk ("C" = "T").
function blas.herk(uplo, trans, alpha, A, beta, C, opts)
  if cx(A) or cx(C) then
    local ar, ai = parts(alpha)
    local br, bi = parts(beta)
    return core.call("blas.zherk", impl("herk", opts, {uplo = uplo, trans = trans, alpha_re = ar,
                                                       alpha_im = ai, A = A, beta_re = br,
                                                       beta_im = bi, C = C}))
  end
  if trans == "C" then trans = "T" end
  core.call("blas.syrk", impl("herk", opts, {uplo = uplo, trans = trans, alpha = alpha, A = A,
                                             beta = beta, C = C}))
end
-- B = alpha op(A)^-1 B (side "L") or alpha B op(A)^-1 ("R"); complex views
-- (kernels/blas/zlapack.c): transA "C" the conjugate transpose, alpha
-- {re, im} or a number
function blas.trsm(side, uplo, transA, diag, alpha, A, B, opts)
  if cx(A) or cx(B) then
    local ar, ai = parts(alpha)
    return core.call("blas.ztrsm", impl("trsm", opts, {side = side, uplo = uplo, transA = transA,
                                                       diag = diag, alpha_re = ar, alpha_im = ai,
                                                       A = A, B = B}))
  end
  core.call("blas.trsm", impl("trsm", opts, {side = side, uplo = uplo, transA = transA,
                                             diag = diag, alpha = alpha, A = A, B = B}))
end
-- B = alpha op(A) B (side "L") or alpha B op(A) ("R")
-- (complex views: transA "C" the conjugate transpose, alpha {re, im})
function blas.trmm(side, uplo, transA, diag, alpha, A, B, opts)
  if cx(A) or cx(B) then
    local ar, ai = parts(alpha)
    return core.call("blas.ztrmm", impl("trmm", opts, {side = side, uplo = uplo, transA = transA,
                                                       diag = diag, alpha_re = ar, alpha_im = ai,
                                                       A = A, B = B}))
  end
  core.call("blas.trmm", impl("trmm", opts, {side = side, uplo = uplo, transA = transA,
                                             diag = diag, alpha = alpha, A = A, B = B}))
end
-- in place: the inverse of triangle uplo of A
function blas.trtri(uplo, diag, A, opts)
  if cx(A) then
    return core.call("blas.ztrtri", impl("trtri", opts, {uplo = uplo, diag = diag, A = A}))
  end
  core.call("blas.trtri", impl("trtri", opts, {uplo = uplo, diag = diag, A = A}))
end
-- in place: the Cholesky factor in triangle uplo of A (complex: A
-- Hermitian, A = L L^H or U^H U)
function blas.potrf(uplo, A, opts)
  if cx(A) then return core.call("blas.zpotrf", impl("potrf", opts, {uplo = uplo, A = A})) end
  core.call("blas.potrf", impl("potrf", opts, {uplo = uplo, A = A}))
end
-- in place: P A = L U (unit L below the diagonal); 0-based pivots into ipiv
function blas.getrf(A, ipiv, opts)
  if cx(A) then return core.call("blas.zgetrf", impl("getrf", opts, {A = A, ipiv = ipiv})) end
  core.call("blas.getrf", impl("getrf", opts, {A = A, ipiv = ipiv}))
end
-- B = A^-1 B with getrf's factors and pivots (complex views: also
-- opts.trans = "N" | "T" | "C", B = op(A)^-1 B)
function blas.getrs(A, ipiv, B, opts)
  if cx(A) or cx(B) then
    local o = check_opts("speck.blas.getrs", opts, {"impl", "trans"}, 3)
    return core.call("blas.zgetrs", {A = A, ipiv = ipiv, B = B, trans = o.trans, impl = o.impl})
  end
  core.call("blas.getrs", impl("getrs", opts, {A = A, ipiv = ipiv, B = B}))
end
-- B = A^-1 B (A overwritten by its factors, the pivots into ipiv if given)
function blas.gesv(A, B, ipiv, opts)
  if type(ipiv) == "table" and opts == nil then ipiv, opts = nil, ipiv end
  if cx(A) or cx(B) then
    return core.call("blas.zgesv", impl("gesv", opts, {A = A, B = B, ipiv = ipiv}))
  end
  core.call("blas.gesv", impl("gesv", opts, {A = A, B = B, ipiv = ipiv}))
end

return blas
