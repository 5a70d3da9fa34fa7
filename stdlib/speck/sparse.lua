-- speck/sparse.lua: sparse linear algebra on CRS matrices, the library's
-- precompiled kernels (kernels/sparse/). A CrsMatrix is a Lua object over
-- three views (rowptr int64, colidx int32, values float64 or float32) in
-- one memory space; every operation is one call into the C library
-- (speck_call's "sparse.<name>" from C) that checks its arguments, and
-- errors name the function, the object and what is wrong.
--
-- Matrices reach the C drivers as the arguments A_rowptr, A_colidx,
-- A_values and A_ncols (B_*, P_* ... for the others); new matrices come
-- back as the output views C_rowptr, C_colidx, C_values.
local core = require "speck.core"
local speck = require "speck"

local sparse = {}

-- -- errors ----------------------------------------------------------------
local user_level, fail, call = require("speck.raise")("speck.sparse.")

-- 'opts' a table (or nil) whose keys are all in 'keys' (speck/opts.lua)
local check_options = require "speck.opts"
local function check_opts(fname, opts, keys)
  local o = check_options("speck.sparse." .. fname, opts, keys, user_level())
  return o   -- not a tail call: the levels count this frame
end

-- -- matrices ---------------------------------------------------------------
local Crs = {}
Crs.__index = Crs
local MT = {__index = Crs, __name = "speck.CrsMatrix"}

local function is_matrix(A) return getmetatable(A) == MT end
sparse.is_matrix = is_matrix

local function check_matrix(fname, what, A)
  if not is_matrix(A) then
    fail(fname, "%s must be a CrsMatrix, got %s", what,
         speck.View and type(A) == "userdata" and "a view" or type(A))
  end
  return A
end

-- put A's four arguments into 't' under prefix 'p'
local function margs(t, p, A)
  t[p .. "_rowptr"] = A.rowptr
  t[p .. "_colidx"] = A.colidx
  t[p .. "_values"] = A.values
  t[p .. "_ncols"] = A._ncols
  return t
end

-- a matrix from checked parts ('sorted': rows known sorted, no duplicates)
local function make(nrows, ncols, rowptr, colidx, values, sorted)
  return setmetatable({rowptr = rowptr, colidx = colidx, values = values,
                       _nrows = nrows, _ncols = ncols, _sorted = sorted}, MT)
end

local function from_outs(outs, nrows, ncols, sorted)
  return make(nrows, ncols, outs.C_rowptr, outs.C_colidx, outs.C_values, sorted)
end

-- CrsMatrix{nrows =, ncols =, rowptr =, colidx =, values =}: the views as
-- given (not copied), checked once here: dtypes, lengths, rowptr from 0 to
-- nnz and non-decreasing, columns in range.
function sparse.CrsMatrix(t)
  local f = "CrsMatrix"
  if type(t) ~= "table" then fail(f, "expects a table {nrows, ncols, rowptr, colidx, values}, got %s", type(t)) end
  for k in pairs(t) do
    if k ~= "nrows" and k ~= "ncols" and k ~= "rowptr" and k ~= "colidx" and k ~= "values" then
      fail(f, "unknown field '%s' (nrows, ncols, rowptr, colidx, values)", tostring(k))
    end
  end
  local m, n = t.nrows, t.ncols
  if math.type(m) ~= "integer" or m < 0 then fail(f, "nrows must be a non-negative integer, got %s", tostring(m)) end
  if math.type(n) ~= "integer" or n < 0 then fail(f, "ncols must be a non-negative integer, got %s", tostring(n)) end
  for _, k in ipairs{"rowptr", "colidx", "values"} do
    if getmetatable(t[k]) == nil or type(t[k]) ~= "userdata" then
      fail(f, "%s must be a view, got %s", k, type(t[k]))
    end
  end
  if t.rowptr:rank() ~= 1 or t.rowptr:extent(0) ~= m + 1 then
    fail(f, "rowptr (view '%s') must be rank 1 with nrows + 1 = %d entries, it is %s",
         t.rowptr:label(), m + 1, tostring(t.rowptr))
  end
  local A = make(m, n, t.rowptr, t.colidx, t.values, false)
  A._sorted = call(f, "sparse.validate", margs({}, "A", A)) == 1
  return A
end

function Crs:nrows() return self._nrows end
function Crs:ncols() return self._ncols end
function Crs:nnz() return self.colidx:extent(0) end
function Crs:dtype() return self.values:dtype() end
function Crs:space() return self.rowptr:space() end
function Crs:shape() return ("%dx%d"):format(self._nrows, self._ncols) end
MT.__tostring = function(A)
  return ("CrsMatrix<%s, %dx%d, nnz %d, %s>"):format(A:dtype(), A._nrows, A._ncols,
                                                     A:nnz(), A:space())
end

-- 1 when every row is sorted without duplicates (checked or known)
function Crs:is_sorted() return self._sorted end

function Crs:transpose()
  local _, outs = call("transpose", "sparse.transpose", margs({}, "A", self))
  return from_outs(outs, self._ncols, self._nrows, true)
end

function Crs:to_dense()
  local _, outs = call("to_dense", "sparse.to_dense", margs({}, "A", self))
  return outs.D
end

local function copy_to(v, space)
  local w = speck.View(v:label(), v:dtype(), v:extent(0), {space = space, init = false})
  speck.deep_copy(w, v)
  return w
end

-- a deep copy in memory space 'space'
function Crs:to(space)
  if type(space) ~= "string" then fail("to", "space must be a string, got %s", type(space)) end
  local ok, r = pcall(copy_to, self.rowptr, space)
  if not ok then fail("to", "%s", tostring(r):gsub("^[^\n]-:%d+: ", "", 1)) end
  return make(self._nrows, self._ncols, r, copy_to(self.colidx, space),
              copy_to(self.values, space), self._sorted)
end

-- the graph of A (a StaticCrsGraph: rowptr and colidx, shared)
function Crs:graph()
  return {rowptr = self.rowptr, colidx = self.colidx, nrows = self._nrows,
          ncols = self._ncols}
end

-- -- building ---------------------------------------------------------------
local function index_view(fname, what, t, space)
  if type(t) == "table" then
    for i = 1, #t do
      if math.type(t[i]) ~= "integer" then
        fail(fname, "%s[%d] must be an integer, got %s", what, i, tostring(t[i]))
      end
    end
    return speck.View.from(t, "int64", {space = space})
  end
  if type(t) ~= "userdata" then fail(fname, "%s must be a view or a Lua array, got %s", what, type(t)) end
  if space and t:space() ~= space then return speck.create_mirror_view_and_copy(space, t) end
  return t
end

-- from_coo(m, n, rows, cols, vals [, {sum_duplicates, sort, dtype, space}])
function sparse.from_coo(m, n, rows, cols, vals, opts)
  local f = "from_coo"
  opts = check_opts(f, opts, {"dtype", "sort", "space", "sum_duplicates"})
  if math.type(m) ~= "integer" or math.type(n) ~= "integer" then
    fail(f, "the shape must be two integers, got %s and %s", tostring(m), tostring(n))
  end
  local space = opts.space
  if not space and type(rows) == "userdata" then space = rows:space() end
  local dtype = opts.dtype
  if not dtype and type(vals) == "userdata" then dtype = vals:dtype() end
  dtype = dtype or "float64"
  local r = index_view(f, "rows", rows, space)
  local c = index_view(f, "cols", cols, space or r:space())
  local v
  if type(vals) == "table" then
    for i = 1, #vals do
      if type(vals[i]) ~= "number" then fail(f, "vals[%d] must be a number, got %s", i, type(vals[i])) end
    end
    v = speck.View.from(vals, dtype, {space = r:space()})
  elseif vals ~= nil then
    v = index_view(f, "vals", vals, r:space())
  end
  local _, outs = call(f, "sparse.from_coo", {
    nrows = m, ncols = n, rows = r, cols = c, vals = v, dtype = dtype,
    sum_duplicates = opts.sum_duplicates == false and 0 or 1,
    sort = opts.sort == false and 0 or 1})
  local sorted = opts.sort ~= false and opts.sum_duplicates ~= false
  return from_outs(outs, m, n, sorted)
end

function sparse.from_dense(V)
  if type(V) ~= "userdata" then fail("from_dense", "V must be a rank-2 view, got %s", type(V)) end
  local _, outs = call("from_dense", "sparse.from_dense", {V = V})
  return from_outs(outs, V:extent(0), V:extent(1), true)
end

-- -- Matrix Market ------------------------------------------------------------
function sparse.read_mm(path, opts)
  local f = "read_mm"
  opts = check_opts(f, opts, {"dtype", "space"})
  if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
  local _, outs = call(f, "sparse.read_mm", {path = path, dtype = opts.dtype,
                                             space = opts.space})
  return from_outs(outs, math.tointeger(outs.nrows), math.tointeger(outs.ncols), true)
end

function sparse.write_mm(path, A, opts)
  local f = "write_mm"
  opts = check_opts(f, opts, {"field", "format", "symmetry"})
  if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
  check_matrix(f, "A", A)
  call(f, "sparse.write_mm", margs({path = path, field = opts.field, symmetry = opts.symmetry,
                                    format = opts.format}, "A", A))
end


-- -- SpMV ---------------------------------------------------------------------
local function check_mode(fname, mode)
  if mode ~= "N" and mode ~= "T" and mode ~= "C" and mode ~= "H" then
    fail(fname, "mode must be \"N\", \"T\", \"C\" or \"H\", got %s", tostring(mode))
  end
end

-- y = beta*y + alpha*op(A)*x; x, y rank 1 or rank 2 (multivector)
function sparse.spmv(mode, alpha, A, x, beta, y, opts)
  local f = "spmv"
  check_mode(f, mode)
  check_matrix(f, "A", A)
  opts = check_opts(f, opts, {"algorithm"})
  -- complex alpha / beta: {re, im} (a complex matrix's SpMV, zspmv.c)
  local ai, bi
  if type(alpha) == "table" then alpha, ai = alpha[1] or alpha.re, alpha[2] or alpha.im or 0 end
  if type(beta) == "table" then beta, bi = beta[1] or beta.re, beta[2] or beta.im or 0 end
  call(f, "sparse.spmv", margs({mode = mode, alpha = alpha, x = x, beta = beta,
                                y = y, algorithm = opts.algorithm, alpha_im = ai,
                                beta_im = bi}, "A", A))
end

local STENCIL_DIMS = {[3] = 1, [5] = 2, [9] = 2, [7] = 3, [27] = 3}

-- structured SpMV: A a 'stencil'-point matrix on the box 'dims' {nx, ny, nz}
-- (rows numbered x fastest); the column pattern is checked once per
-- (A, stencil, dims) and remembered
function sparse.spmv_struct(stencil, dims, alpha, A, x, beta, y)
  local f = "spmv_struct"
  local d = STENCIL_DIMS[stencil]
  if not d then fail(f, "stencil must be 3, 5, 7, 9 or 27, got %s", tostring(stencil)) end
  if type(dims) ~= "table" or #dims ~= d then
    fail(f, "the %d-point stencil needs dims {%s}, got %s", stencil,
         ({"nx", "nx, ny", "nx, ny, nz"})[d], type(dims) == "table" and #dims .. " numbers" or type(dims))
  end
  check_matrix(f, "A", A)
  local key = stencil .. ":" .. table.concat(dims, "x")
  A._struct = A._struct or {}
  local t = margs({stencil = stencil, nx = dims[1], ny = dims[2] or 1, nz = dims[3] or 1,
                   alpha = alpha, x = x, beta = beta, y = y,
                   checked = A._struct[key] and 1 or 0}, "A", A)
  call(f, "sparse.spmv_struct", t)
  A._struct[key] = true
end

-- -- CG ---------------------------------------------------------------------------
-- x, iters, resid, reason = cg(A, b [, {tol = 1e-10, maxiter = 1000, x0 = v}]):
-- stops when ||r|| <= tol*||b||; resid is the final ||b - A x|| (speck.solve.cg's iteration);
-- reason "converged", "maxiter" or "breakdown" (p'Ap = 0); a NaN or Inf in
-- A, b, x0 or the residual is an error naming which
local cg_reasons = {[0] = "converged", "maxiter", "breakdown"}
function sparse.cg(A, b, opts)
  local f = "cg"
  check_matrix(f, "A", A)
  opts = check_opts(f, opts, {"maxiter", "tol", "x0"})
  -- a complex matrix (Hermitian positive definite): kernels/sparse/zcg.c
  local d = A:dtype()
  local entry = (d == "complex128" or d == "complex64") and "sparse.zcg" or "sparse.cg"
  local _, outs = call(f, entry, margs({b = b, x0 = opts.x0, tol = opts.tol,
                                               maxiter = opts.maxiter}, "A", A))
  return outs.x, math.tointeger(outs.iters), outs.resid, cg_reasons[outs.reason]
end

-- -- SpGEMM -------------------------------------------------------------------------
local function check_product(f, A, B, bn)
  check_matrix(f, "A", A)
  check_matrix(f, bn, B)
end

-- the symbolic phase: a handle (C's row offsets) for A*B and for any
-- matrices of the same patterns
-- opts.algorithm: "auto" | "hash" | "merge" (kernels/sparse/spgemm.c)
function sparse.spgemm_symbolic(A, B, opts)
  local f = "spgemm_symbolic"
  check_product(f, A, B, "B")
  opts = check_opts(f, opts, {"algorithm"})
  local _, outs = call(f, "sparse.spgemm_symbolic",
                       margs(margs({algorithm = opts.algorithm}, "A", A), "B", B))
  return {rowptr = outs.C_rowptr, nnz = math.tointeger(outs.nnz),
          maxub = math.tointeger(outs.maxub), nrows = A._nrows, ncols = B._ncols,
          kind = "spgemm"}
end

local function check_handle(f, h, kind)
  if type(h) ~= "table" or h.kind ~= kind then
    fail(f, "h must be a handle from %s_symbolic, got %s", kind, type(h))
  end
end

-- the numeric phase: a new C, or C's values recomputed in place
function sparse.spgemm_numeric(h, A, B, C, opts)
  local f = "spgemm_numeric"
  check_handle(f, h, "spgemm")
  check_product(f, A, B, "B")
  opts = check_opts(f, opts, {"algorithm"})
  local t = margs(margs({C_rowptr = h.rowptr, maxub = h.maxub, algorithm = opts.algorithm},
                        "A", A), "B", B)
  if C ~= nil then
    check_matrix(f, "C", C)
    t.C_colidx, t.C_values = C.colidx, C.values
  end
  local _, outs = call(f, "sparse.spgemm_numeric", t)
  if C ~= nil then return C end
  return make(h.nrows, h.ncols, h.rowptr, outs.C_colidx, outs.C_values, true)
end

function sparse.spgemm(A, B, opts)
  local f = "spgemm"
  check_product(f, A, B, "B")
  opts = check_opts(f, opts, {"algorithm"})
  local _, outs = call(f, "sparse.spgemm",
                       margs(margs({algorithm = opts.algorithm}, "A", A), "B", B))
  return from_outs(outs, A._nrows, B._ncols, true)
end

-- (I - omega*D^-1*A)*P in one pass, D = diag(A)
function sparse.spgemm_jacobi(omega, A, P)
  local f = "spgemm_jacobi"
  check_product(f, A, P, "P")
  local _, outs = call(f, "sparse.spgemm_jacobi",
                       margs(margs({omega = omega}, "A", A), "P", P))
  return from_outs(outs, A._nrows, P._ncols, true)
end

-- -- SpAdd ----------------------------------------------------------------------------
-- the symbolic phase: C's pattern and where A's and B's entries land in it
function sparse.spadd_symbolic(A, B)
  local f = "spadd_symbolic"
  check_matrix(f, "A", A)
  check_matrix(f, "B", B)
  local _, outs = call(f, "sparse.spadd_symbolic", margs(margs({}, "A", A), "B", B))
  return {rowptr = outs.C_rowptr, colidx = outs.C_colidx, a_pos = outs.A_pos,
          b_pos = outs.B_pos, sorted = outs.sorted == 1, nrows = A._nrows,
          ncols = A._ncols, kind = "spadd"}
end

-- C = alpha*A + beta*B for the handle's patterns (C given: its values
-- recomputed in place)
function sparse.spadd_numeric(h, alpha, A, beta, B, C)
  local f = "spadd_numeric"
  check_handle(f, h, "spadd")
  check_matrix(f, "A", A)
  check_matrix(f, "B", B)
  local t = margs(margs({alpha = alpha, beta = beta, C_rowptr = h.rowptr, A_pos = h.a_pos,
                         B_pos = h.b_pos}, "A", A), "B", B)
  if C ~= nil then
    check_matrix(f, "C", C)
    t.C_values = C.values
  end
  local _, outs = call(f, "sparse.spadd_numeric", t)
  if C ~= nil then return C end
  return make(h.nrows, h.ncols, h.rowptr, h.colidx, outs.C_values, true)
end

function sparse.spadd(alpha, A, beta, B)
  local f = "spadd"
  check_matrix(f, "A", A)
  check_matrix(f, "B", B)
  local _, outs = call(f, "sparse.spadd", margs(margs({alpha = alpha, beta = beta}, "A", A),
                                                "B", B))
  return from_outs(outs, A._nrows, A._ncols, true)
end

-- -- SpTRSV -------------------------------------------------------------------------------
-- Two algorithms behind one handle: "levelset" (seed 000 section 2.4.1,
-- levels of rows) and "supernodal" (section 2.4.2: supernodes of the
-- lower triangle, their diagonal blocks inverted once, dense products by
-- levels of supernodes; it also solves with the transpose, so one handle
-- of a Cholesky factor L serves L y = b and L^T x = y). "auto" takes the
-- supernodal one where the supernodes average SN_AUTO columns or more.
local SN_AUTO = 4
local CHOL_NAME = "speck.sparse.Cholesky"

local function is_factor(F)
  local mt = getmetatable(F)
  return type(F) == "userdata" and type(mt) == "table" and mt.__name == CHOL_NAME
end

-- the factor L (a CrsMatrix, lower, of P A P^T = L L^T) of speck.sparse.cholesky's
-- F and the permutation perm (int64: perm[k] = the row of A that goes k-th)
function sparse.cholesky_lower(F)
  if not is_factor(F) then
    fail("cholesky_lower", "F must be a factor from speck.sparse.cholesky, got %s", type(F))
  end
  local rowptr, colidx, values, perm = F:lower()
  local n = perm:extent(0)
  return make(n, n, rowptr, colidx, values, true), perm
end

local TRI_KEYS = {"algorithm", "diag", "uplo"}
local function tri_opts(f, opts)
  opts = check_opts(f, opts, TRI_KEYS)
  local uplo, diag, algo = opts.uplo or "L", opts.diag or "N", opts.algorithm or "levelset"
  if uplo ~= "L" and uplo ~= "U" then fail(f, "uplo must be \"L\" or \"U\", got %s", tostring(uplo)) end
  if diag ~= "N" and diag ~= "U" then fail(f, "diag must be \"N\" or \"U\", got %s", tostring(diag)) end
  if algo ~= "levelset" and algo ~= "supernodal" and algo ~= "auto" then
    fail(f, "algorithm must be \"levelset\", \"supernodal\" or \"auto\", got %s", tostring(algo))
  end
  return uplo, diag, algo
end

local SN_KEYS = {"ix", "ri", "blk", "plan", "nsupernodes", "nlevels", "nlevels_t", "lower"}

-- the schedule of A's triangle, reused by every solve with A (the level-set
-- one reads A's values at each solve; the supernodal one keeps them as
-- they were here). A may be a factor from speck.sparse.cholesky: its L.
function sparse.sptrsv_symbolic(A, opts)
  local f = "sptrsv_symbolic"
  local factor
  if is_factor(A) then
    factor = A
    opts = check_opts(f, opts, TRI_KEYS)
    if opts.uplo ~= nil and opts.uplo ~= "L" then
      fail(f, "a Cholesky factor's L is lower triangular: uplo must be \"L\", got %s", tostring(opts.uplo))
    end
    if opts.algorithm == nil then
      local o = {}
      for k, v in pairs(opts) do o[k] = v end
      o.algorithm = "supernodal"
      opts = o
    end
    A = sparse.cholesky_lower(A)
  end
  check_matrix(f, "A", A)
  local uplo, diag, algo = tri_opts(f, opts)
  -- complex values: the level-set solve (the supernodal one is real only)
  local d = A:dtype()
  if d == "complex128" or d == "complex64" then
    if algo == "supernodal" then
      fail(f, "algorithm \"supernodal\" takes real values, A's are %s (use \"levelset\" or \"auto\")", d)
    end
    algo = "levelset"
  end
  if algo ~= "levelset" then
    local _, outs = call(f, "sparse.sptrsv_sn_symbolic", margs({uplo = uplo, diag = diag}, "A", A))
    local nsn = math.tointeger(outs.nsupernodes)
    if algo == "supernodal" or nsn == 0 or A._nrows >= SN_AUTO * nsn then
      local h = {kind = "sptrsv", algorithm = "supernodal", uplo = uplo, diag = diag,
                 nsupernodes = nsn, nlevels = math.tointeger(outs.nlevels),
                 nlevels_t = math.tointeger(outs.nlevels_t), lower = math.tointeger(outs.lower),
                 factor = factor, L = factor and A or nil}
      for _, k in ipairs{"ix", "ri", "blk", "plan"} do h[k] = outs[k] end
      return h
    end
  end
  local _, outs = call(f, "sparse.sptrsv_symbolic", margs({uplo = uplo, diag = diag}, "A", A))
  return {rows = outs.rows, lp = outs.lp, plan = outs.plan,
          nlevels = math.tointeger(outs.nlevels), unit = math.tointeger(outs.unit),
          uplo = uplo, diag = diag, kind = "sptrsv", algorithm = "levelset",
          factor = factor, L = factor and A or nil}
end

-- solve op(A) x = b (x a view of A's rows, overwritten); opts.trans "T":
-- A^T x = b (the supernodal handle, and complex matrices' level-set one);
-- "C": A^H x = b (complex matrices)
function sparse.sptrsv_solve(h, A, b, x, opts)
  local f = "sptrsv_solve"
  check_handle(f, h, "sptrsv")
  opts = check_opts(f, opts, {"trans"})
  local trans = opts.trans or "N"
  if is_factor(A) then
    if A ~= h.factor then fail(f, "A is a Cholesky factor, but h was not made from it") end
    A = h.L
  end
  check_matrix(f, "A", A)
  local d = A:dtype()
  if d == "complex128" or d == "complex64" then
    if trans ~= "N" and trans ~= "T" and trans ~= "C" then
      fail(f, "trans must be \"N\", \"T\" or \"C\", got %s", tostring(trans))
    end
    if trans ~= "N" then
      -- A^T (conjugated for "C": A^H) solved by level sets of its own,
      -- made once per handle (the values are read again at each solve)
      local At = A:transpose()
      if trans == "C" then call(f, "sparse.sptrsv_conj", {v = At.values}) end
      if not h.transposed then
        h.transposed = sparse.sptrsv_symbolic(At, {uplo = h.uplo == "L" and "U" or "L",
                                                   diag = h.diag, algorithm = "levelset"})
      end
      local t = h.transposed
      call(f, "sparse.sptrsv_solve", margs({rows = t.rows, lp = t.lp, plan = t.plan,
                                            unit = t.unit, b = b, x = x}, "A", At))
      return x
    end
  elseif trans ~= "N" and trans ~= "T" then
    fail(f, "trans must be \"N\" or \"T\", got %s", tostring(trans))
  end
  if h.algorithm == "supernodal" then
    local t = margs({lower = h.lower, trans = trans == "T" and 1 or 0, b = b, x = x}, "A", A)
    for _, k in ipairs(SN_KEYS) do t[k] = h[k] end
    call(f, "sparse.sptrsv_sn_solve", t)
    return x
  end
  if trans ~= "N" then
    fail(f, "trans = \"T\" needs a handle with algorithm = \"supernodal\" (this one is level-set)")
  end
  call(f, "sparse.sptrsv_solve", margs({rows = h.rows, lp = h.lp, plan = h.plan,
                                        unit = h.unit, b = b, x = x}, "A", A))
  return x
end

-- one solve; opts: the symbolic phase's and trans
function sparse.sptrsv(A, b, x, opts)
  opts = check_opts("sptrsv", opts, {"algorithm", "diag", "trans", "uplo"})
  local so, trans = {}, nil
  for k, v in pairs(opts) do
    if k == "trans" then trans = v else so[k] = v end
  end
  local h = sparse.sptrsv_symbolic(A, so)
  return sparse.sptrsv_solve(h, A, b, x, {trans = trans})
end

-- cholesky(A [, opts]): the sparse Cholesky factor of a symmetric positive
-- definite CrsMatrix (both triangles stored; the lower one is read): AMD
-- ordering, elimination tree, supernodes (kernels/task/chol.c, host), then
-- the numeric phase by one of two schedules:
--   "dag"    (host matrices' default): a task DAG on speck.task's scheduler;
--   "levels" (a device space's, and L D L^T's): level sets of the supernodal
--            tree on the active back end (kernels/task/chol_ls.c: dialect
--            kernels and the vendor BLAS), the factor kept in its space.
-- opts: space (where the factor lives: "host" or the active back end's
-- device space; default A's), ldl = true (L D L^T of a symmetric indefinite
-- matrix, static pivoting as Tacho's: tiny pivots replaced, counted in
-- F:info().static_pivots), schedule = "dag" | "levels", gemm_min (levels:
-- updates of at least that many multiply-adds by the vendor's gemm, the
-- rest by one dialect launch a level; default 8192 on the host, 524288 on
-- a device).
-- F:solve(b) -> x (b in the factor's space), F:info() -> {n, nnz_l,
-- supernodes, max_front, schedule, levels, space, ldl, static_pivots, ...}
function sparse.cholesky(A, opts)
  check_matrix("cholesky", "A", A)
  opts = check_opts("cholesky", opts, {"gemm_min", "ldl", "schedule", "space"})
  if A._nrows ~= A._ncols then
    fail("cholesky", "A is %dx%d, not square", A._nrows, A._ncols)
  end
  if A.values == nil or A.values:dtype() ~= "float64" then
    fail("cholesky", "A must have float64 values")
  end
  local ldl, schedule, space = opts.ldl, opts.schedule, opts.space
  if ldl ~= nil and type(ldl) ~= "boolean" then
    fail("cholesky", "ldl must be a boolean, got %s", type(ldl))
  end
  if schedule ~= nil and schedule ~= "dag" and schedule ~= "levels" then
    fail("cholesky", "schedule must be \"dag\" or \"levels\", got %s", tostring(schedule))
  end
  local gemm_min = opts.gemm_min
  if gemm_min ~= nil and (math.type(gemm_min) ~= "integer" or gemm_min < 1) then
    fail("cholesky", "gemm_min must be a positive integer, got %s", tostring(gemm_min))
  end
  if space ~= nil and type(space) ~= "string" then
    fail("cholesky", "space must be a string, got %s", type(space))
  end
  space = space or A:space()
  local backend = speck.info().default_space
  local bspace = speck.View("cholesky", "float64", 0):space()   -- the back end's space
  if space ~= "host" then
    if space ~= bspace then
      fail("cholesky", "space '%s' is not the active back end's (%s works in '%s')", space, backend, bspace)
    end
    if schedule == "dag" then
      fail("cholesky", "schedule = \"dag\" runs on the host: space must be \"host\", got '%s'", space)
    end
    schedule = "levels"
  else
    schedule = schedule or (ldl and "levels" or "dag")
    if schedule == "levels" and bspace ~= "host" then
      fail("cholesky", "schedule = \"levels\" runs on the active back end (%s): space must be '%s', got 'host'", backend, bspace)
    end
  end
  if ldl and schedule == "dag" then
    fail("cholesky", "ldl = true runs on the level-set schedule: schedule must be \"levels\"")
  end
  if gemm_min and schedule == "dag" then
    fail("cholesky", "gemm_min is an option of the level-set schedule: schedule must be \"levels\"")
  end
  local H = A
  if A:space() ~= "host" then H = A:to("host") end   -- the symbolic phase is the host's
  local ok, F = pcall(core.task.cholesky, H._nrows, H.rowptr, H.colidx, H.values,
                      schedule == "levels", ldl == true, gemm_min)
  if not ok then
    error((tostring(F):gsub("^[^\n]-:%d+: ", "", 1)), user_level())
  end
  return F
end

sparse._call, sparse._margs, sparse._make, sparse._fail = call, margs, make, fail
sparse._check_matrix, sparse._check_opts, sparse._from_outs = check_matrix, check_opts, from_outs

return sparse
