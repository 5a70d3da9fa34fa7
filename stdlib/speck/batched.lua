-- speck/batched.lua: batched dense linear algebra on rank-3 views (batch,
-- rows, cols), the library's kernels/batched/: every call runs one
-- operation on each matrix of the batch, at the level opts.mode chooses
-- ("serial": a thread per matrix, "team" / "teamvector": a team per matrix,
-- "auto": by size and back end). The same operations are dialect functions
-- a kernel body can call on one matrix (dialect/README.md, "Dense linear
-- algebra"). Factorisations return an int64 'info' view, one entry per
-- matrix (0, or pivot + 1 of the first zero pivot); a nonzero entry is an
-- error naming the matrix and the pivot unless opts.check == false.
local core = require "speck.core"

local batched = {}

local check_opts = require "speck.opts"
local function with(fname, opts, args, names)
  if opts ~= nil then
    check_opts("speck.batched." .. fname, opts, names, 3)
    for _, k in ipairs(names) do
      local v = opts[k]
      if k == "check" or k == "pivot" then
        if v ~= nil then v = v and 1 or 0 end
      elseif k == "stream" and type(v) == "boolean" then
        v = v and 1 or 0   -- anything else reaches the C side and its error
      end
      args[k] = v
    end
  end
  return args
end

-- complex views (kernels/batched/zbatched.c): alpha, beta {re, im} or numbers
local function parts(a)
  if type(a) == "table" then return a[1] or a.re, a[2] or a.im or 0 end
  return a, 0
end

-- C_b = alpha op(A_b) op(B_b) + beta C_b (op "C": the conjugate transpose)
function batched.gemm(transA, transB, alpha, A, B, beta, C, opts)
  if core.complex(A) or core.complex(B) or core.complex(C) then
    local ar, ai = parts(alpha)
    local br, bi = parts(beta)
    return core.call("batched.zgemm", with("gemm", opts, {transA = transA, transB = transB,
                                                          alpha_re = ar, alpha_im = ai, A = A, B = B,
                                                          beta_re = br, beta_im = bi, C = C},
                                       {"mode", "impl", "stream"}))
  end
  core.call("batched.gemm", with("gemm", opts, {transA = transA, transB = transB, alpha = alpha,
                                                A = A, B = B, beta = beta, C = C},
                             {"mode", "impl", "stream"}))
end
-- B_b = alpha op(A_b)^-1 B_b (side "L") or alpha B_b op(A_b)^-1 ("R")
function batched.trsm(side, uplo, transA, diag, alpha, A, B, opts)
  if core.complex(A) or core.complex(B) then
    local ar, ai = parts(alpha)
    return core.call("batched.ztrsm", with("trsm", opts, {side = side, uplo = uplo, transA = transA,
                                                          diag = diag, alpha_re = ar, alpha_im = ai,
                                                          A = A, B = B}, {"mode"}))
  end
  core.call("batched.trsm", with("trsm", opts, {side = side, uplo = uplo, transA = transA,
                                                diag = diag, alpha = alpha, A = A, B = B}, {"mode"}))
end
-- B_b = alpha op(A_b) B_b (side "L") or alpha B_b op(A_b) ("R")
-- (complex views: alpha {re, im} or a number, transA "C" the conjugate
-- transpose)
function batched.trmm(side, uplo, transA, diag, alpha, A, B, opts)
  if core.complex(A) or core.complex(B) then
    local ar, ai = parts(alpha)
    return core.call("batched.ztrmm", with("trmm", opts, {side = side, uplo = uplo, transA = transA,
                                                          diag = diag, alpha_re = ar, alpha_im = ai,
                                                          A = A, B = B}, {"mode"}))
  end
  core.call("batched.trmm", with("trmm", opts, {side = side, uplo = uplo, transA = transA,
                                                diag = diag, alpha = alpha, A = A, B = B}, {"mode"}))
end

local FAC = {"mode", "check", "info", "ipiv", "pivot"}
-- the factorisations of complex views (kernels/batched/zbatched.c): the
-- same options, info and ipiv views
local function fac(name, A, B)
  return (core.complex(A) or core.complex(B)) and "batched.z" .. name or "batched." .. name
end

-- in place: the inverse of each triangle; returns info
function batched.trtri(uplo, diag, A, opts)
  local _, out = core.call(fac("trtri", A), with("trtri", opts, {uplo = uplo, diag = diag, A = A}, FAC))
  return (out and out.info) or (opts and opts.info)
end
-- in place LU of each matrix: opts.pivot (partial pivoting, pivots into
-- opts.ipiv or a new int64 batch x min(m, n) view); returns info, ipiv
function batched.lu(A, opts)
  local _, out = core.call(fac("lu", A), with("lu", opts, {A = A}, FAC))
  return (out and out.info) or (opts and opts.info), (out and out.ipiv) or (opts and opts.ipiv)
end
-- B_b = A_b^-1 B_b by LU with partial pivoting (A_b overwritten by its
-- factors); returns info, ipiv
function batched.gesv(A, B, opts)
  local _, out = core.call(fac("gesv", A, B), with("gesv", opts, {A = A, B = B}, FAC))
  return (out and out.info) or (opts and opts.info), (out and out.ipiv) or (opts and opts.ipiv)
end

-- SIMD interleaving (seed 000 section 3.2): a new rank-4 view (groups,
-- rows, cols, width) holding V's matrices 'width' at a time (default: a
-- vector register's worth, 8 float64 or 16 float32), element (i, j) of
-- matrix b at P(b // width, i, j, b % width); the last group is padded
-- with identity matrices. Every batched call accepts packed views (batch
-- entry b = lane b % width of group b // width, so info / ipiv views
-- count the padding too); gemm on three packed views vectorises across
-- the batch.
function batched.pack(V, width)
  local _, out = core.call("batched.pack", {V = V, width = width})
  return out.P
end
-- copy the matrices of packed P back into V (rank 3)
function batched.unpack(P, V)
  core.call("batched.unpack", {P = P, V = V})
end

return batched
