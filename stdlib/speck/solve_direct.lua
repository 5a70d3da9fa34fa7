-- speck/solve_direct.lua: speck.solve's direct solves and eigenvalues --
-- spsolve / lu (sparse LU with static pivoting after a maximum-product
-- matching, kernels/solve/lu*.c) and lobpcg (Knyazev's locally optimal
-- block preconditioned conjugate gradient for a few extreme eigenpairs of
-- a symmetric matrix, its block operations on A's space through
-- speck.sparse.spmv and speck.blas.gemm, the small projected problems on
-- the host by a cyclic Jacobi eigensolver). speck/solve.lua merges this
-- module's functions into speck.solve.
local speck = require "speck"
local sparse = require "speck.sparse"
local blas = require "speck.blas"

local M = {}

local user_level, fail, call = require("speck.raise")("speck.solve.")
local check_options = require "speck.opts"
local function check_opts(fname, opts, keys)
  local o = check_options("speck.solve." .. fname, opts, keys, user_level())
  return o   -- not a tail call: the levels count this frame
end

local function is_view(v)
  return type(v) == "userdata" and (pcall(function() return v.extent end))
end

local function check_square(f, A)
  sparse._check_matrix(f, "A", A)
  if A:nrows() ~= A:ncols() then
    fail(f, "A is %dx%d: it must be square", A:nrows(), A:ncols())
  end
end

-- b: a float rank-1 view of A's rows in A's space
local function check_rhs(f, A, b)
  if not is_view(b) then fail(f, "b must be a view, got %s", type(b)) end
  if b:rank() ~= 1 then fail(f, "b must be a rank-1 view, got rank %d", b:rank()) end
  if b:extent(0) ~= A:nrows() then
    fail(f, "A has %d rows, b (view '%s') has %d", A:nrows(), b:label(), b:extent(0))
  end
  if b:space() ~= A:space() then
    fail(f, "A is in space '%s', b (view '%s') in '%s': the solve runs where A lives",
         A:space(), b:label(), b:space())
  end
end

-- -- LU ---------------------------------------------------------------------------
local LU = {}
LU.__index = LU
local LUMT = {__index = LU, __name = "speck.solve.LU"}

local FVIEWS = {"F_ip", "F_ii", "F_x", "F_info"}

local function check_num(f, what, x)
  if type(x) ~= "number" then fail(f, "%s must be a number, got %s", what, type(x)) end
  return x
end

local function lu_factor(f, A, opts)
  local pivtol = opts.pivtol
  if pivtol ~= nil then
    check_num(f, "pivtol", pivtol)
    if not (pivtol >= 0 and pivtol < 1) then
      fail(f, "pivtol %s must be in [0, 1)", tostring(pivtol))
    end
  end
  local _, outs = call(f, "solve.lu", sparse._margs({pivtol = pivtol}, "A", A))
  local F = {n = A:nrows(), space = A:space(), _A = A, _f = {}}
  for _, k in ipairs(FVIEWS) do F._f[k] = outs[k] end
  local fi = outs.F_info
  F._info = {rows = A:nrows(), nnz_L = math.tointeger(fi(4)), nnz_U = math.tointeger(fi(5)),
             static_pivots = math.tointeger(fi(0)), static_row = math.tointeger(fi(1)),
             static_col = math.tointeger(fi(2)), tau = fi(3)}
  return setmetatable(F, LUMT)
end

local function solve_opts(f, opts)
  local refine, tol = opts.refine, opts.tol
  if refine ~= nil and (math.type(refine) ~= "integer" or refine < 0) then
    fail(f, "refine must be a non-negative integer, got %s", tostring(refine))
  end
  if tol ~= nil then
    check_num(f, "tol", tol)
    if not (tol >= 0) then fail(f, "tol %s must be a non-negative number", tostring(tol)) end
  end
  return refine, tol
end

local function lu_solve(f, F, b, refine, tol)
  local args = sparse._margs({b = b, refine = refine, tol = tol}, "A", F._A)
  for k, v in pairs(F._f) do args[k] = v end
  local _, outs = call(f, "solve.lu_solve", args)
  return outs.x, {berr = outs.berr, steps = math.tointeger(outs.steps)}
end

-- F = lu(A [, {pivtol = sqrt(eps)}]): the factor of a square sparse A
-- (host memory; A kept for the refinement)
function M.lu(A, opts)
  local f = "lu"
  check_square(f, A)
  opts = check_opts(f, opts, {"pivtol"})
  return lu_factor(f, A, opts)
end

-- x, info = F:solve(b [, {refine = 10, tol = 1e-10}])
function LU:solve(b, opts)
  local f = "LU:solve"
  if getmetatable(self) ~= LUMT then fail(f, "call it as F:solve(b)") end
  check_rhs(f, self._A, b)
  opts = check_opts(f, opts, {"refine", "tol"})
  local refine, tol = solve_opts(f, opts)
  return lu_solve(f, self, b, refine, tol)
end

function LU:info()
  local t = {}
  for k, v in pairs(self._info) do t[k] = v end
  return t
end

function LUMT.__tostring(self)
  return ("speck.solve.LU(%d rows, nnz(L) %d, nnz(U) %d)"):format(self.n, self._info.nnz_L,
                                                                   self._info.nnz_U)
end

-- x, info = spsolve(A, b [, {pivtol =, refine = 10, tol = 1e-10}])
function M.spsolve(A, b, opts)
  local f = "spsolve"
  check_square(f, A)
  check_rhs(f, A, b)
  opts = check_opts(f, opts, {"pivtol", "refine", "tol"})
  local refine, tol = solve_opts(f, opts)
  local F = lu_factor(f, A, opts)
  local x, info = lu_solve(f, F, b, refine, tol)
  for k, v in pairs(F._info) do info[k] = v end
  return x, info
end

return M
