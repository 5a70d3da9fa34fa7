-- speck/solve.lua: speck.solve -- preconditioned Krylov methods (CG,
-- BiCGStab, restarted GMRES) and point preconditioners / smoothers
-- (Jacobi, l1-Jacobi, Gauss-Seidel / SOR, symmetric, sequential or
-- multicolor), over the library's drivers in kernels/solve/ (speck_call's
-- "solve.<name>" from C).
--
-- The operator A is a CrsMatrix (the solve runs where A lives) or a user
-- kernel body {n = N, body = "y(i) = ... x(...) ...", captures = {...}}
-- (a parallel_for over i in [0, N) that writes y = A x).
--
-- The preconditioner contract (any object that keeps it plugs into every
-- method, docs/solve.md): P:apply(r, z) writes z = M^-1 r
-- into the existing view z (no allocation per call); P(r) returns a new
-- view z; P.n is its number of rows, P.space its memory space; P:info()
-- a table. A Krylov method also takes a user body {body = "z(i) = ...
-- rv(i) ...", captures = {...}} or a Lua function(r, z).
local core = require "speck.core"
local speck = require "speck"
local sparse = require "speck.sparse"

local solve = {}

local user_level, fail, call = require("speck.raise")("speck.solve.")
local check_options = require "speck.opts"
local function check_opts(fname, opts, keys)
  local o = check_options("speck.solve." .. fname, opts, keys, user_level())
  return o   -- not a tail call: the levels count this frame
end

-- -- preconditioners ------------------------------------------------------------
local PC = {}
PC.__index = PC
local PMT = {__index = PC, __name = "speck.solve.Preconditioner"}

-- P:apply(r, z): z = M^-1 r (z an existing view of r's length, not r)
function PC:apply(r, z)
  local t = {r = r, z = z}
  for k, v in pairs(self._args) do t[k] = v end
  call("apply", "solve.precond_apply", t)
  return z
end

-- P(r): a new view z = M^-1 r in r's space
function PMT.__call(self, r)
  if type(r) ~= "userdata" or not r.extent then
    fail("apply", "r must be a view, got %s", type(r))
  end
  local z = speck.View("z", r:dtype(), r:extent(0), {space = r:space(), init = false})
  return self:apply(r, z)
end

function PC:info()
  local t = {}
  for k, v in pairs(self._info) do t[k] = v end
  return t
end

function PMT.__tostring(self)
  return ("speck.solve.%s(%d rows)"):format(self.kind, self.n)
end

local function is_precond(P) return getmetatable(P) == PMT end

local function new_precond(kind, A, args, info)
  info.kind, info.rows = kind, A:nrows()
  return setmetatable({kind = kind, n = A:nrows(), space = A:space(), _args = args,
                       _info = info}, PMT)
end

local function check_number(f, what, x)
  if type(x) ~= "number" then fail(f, "%s must be a number, got %s", what, type(x)) end
  return x
end

-- boolean option 'x' ('dflt' when nil)
local function check_bool(f, what, x, dflt)
  if x == nil then return dflt == true end
  if type(x) ~= "boolean" then fail(f, "%s must be a boolean, got %s", what, type(x)) end
  return x
end

-- jacobi(A [, {l1 = false, omega = 1}]): z = omega D^-1 r; l1: D the rows'
-- sums of |a_ij| (the l1-Jacobi smoother: convergent for any SPD A)
function solve.jacobi(A, opts)
  local f = "jacobi"
  sparse._check_matrix(f, "A", A)
  opts = check_opts(f, opts, {"l1", "omega"})
  local l1 = check_bool(f, "l1", opts.l1)
  local omega = opts.omega == nil and 1.0 or check_number(f, "omega", opts.omega)
  local _, outs = call(f, "solve.jacobi", sparse._margs({l1 = l1 and 1 or 0, omega = omega}, "A", A))
  return new_precond("jacobi", A, {precond = "jacobi", M_dinv = outs.M_dinv},
                     {l1 = l1, omega = omega})
end

-- gauss_seidel(A [, {symmetric = true, multicolor = true, sweeps = 1,
-- omega = 1}]) (SPEC.md's defaults): z from z = 0 by 'sweeps' Gauss-Seidel /
-- SOR sweeps (symmetric: each a forward and a backward sweep, SSOR: the one
-- for CG); multicolor: the rows of each color of graph.color (on A's
-- symmetrized pattern) updated at once, one launch per color; false: in row
-- order on one thread (the host's sequential form)
function solve.gauss_seidel(A, opts)
  local f = "gauss_seidel"
  sparse._check_matrix(f, "A", A)
  opts = check_opts(f, opts, {"symmetric", "multicolor", "sweeps", "omega"})
  local sym = check_bool(f, "symmetric", opts.symmetric, true)
  local mc = check_bool(f, "multicolor", opts.multicolor, true)
  local sweeps = opts.sweeps == nil and 1 or opts.sweeps
  if math.type(sweeps) ~= "integer" or sweeps < 1 then
    fail(f, "sweeps must be a positive integer, got %s", tostring(sweeps))
  end
  local omega = opts.omega == nil and 1.0 or check_number(f, "omega", opts.omega)
  if not (omega > 0 and omega < 2) then fail(f, "omega %s must be in (0, 2)", tostring(omega)) end
  local _, outs = call(f, "solve.gauss_seidel", sparse._margs({multicolor = mc and 1 or 0}, "A", A))
  local args = sparse._margs({precond = "gs", M_dinv = outs.M_dinv, M_omega = omega,
                              M_sweeps = sweeps, M_symmetric = sym and 1 or 0,
                              M_perm = outs.M_perm, M_colorptr = outs.M_colorptr}, "M", A)
  return new_precond("gauss_seidel", A, args,
                     {symmetric = sym, multicolor = mc, sweeps = sweeps, omega = omega,
                      ncolors = outs.ncolors and math.tointeger(outs.ncolors)})
end

-- -- operators -------------------------------------------------------------------
-- a user body {n =, body =, captures =} into args under prefix p ("op_")
local function body_args(f, what, t, p, args, n)
  for k in pairs(t) do
    if k ~= "n" and k ~= "body" and k ~= "captures" then
      fail(f, "%s: unknown field '%s' (n, body, captures)", what, tostring(k))
    end
  end
  if type(t.body) ~= "string" then fail(f, "%s.body must be a string, got %s", what, type(t.body)) end
  local m = t.n == nil and n or t.n
  if math.type(m) ~= "integer" or m < 0 then
    fail(f, "%s.n must be a non-negative integer, got %s", what, tostring(m))
  end
  if t.captures ~= nil and type(t.captures) ~= "table" then
    fail(f, "%s.captures must be a table, got %s", what, type(t.captures))
  end
  args[p .. "body"], args[p .. "n"] = t.body, m
  for k, v in pairs(t.captures or {}) do
    if type(k) ~= "string" then fail(f, "%s.captures: names must be strings", what) end
    args[p .. k] = v
  end
  return m
end

-- the operator's arguments; its rows
local function op_args(f, A, args)
  if sparse.is_matrix(A) then
    sparse._margs(args, "A", A)
    return A:nrows()
  end
  if type(A) == "table" and A.body ~= nil then return body_args(f, "A", A, "op_", args) end
  fail(f, "A must be a CrsMatrix or a body {n =, body =, captures =}, got %s",
       type(A) == "userdata" and "a view" or type(A))
end

-- the preconditioner's arguments; a Lua function(r, z) for a callback.
-- 'space': A's (nil for a body operator)
local function pc_args(f, P, n, space, args)
  if P == nil then return nil end
  local function check_space(kind)
    local ok, ps = pcall(function() return P.space end)
    if space and ok and ps ~= nil and ps ~= space then
      fail(f, "the preconditioner (%s) is in space '%s', A in '%s'", kind, tostring(ps), space)
    end
  end
  if is_precond(P) then
    if P.n ~= n then fail(f, "the preconditioner (%s) has %d rows, A has %d", P.kind, P.n, n) end
    check_space(P.kind)
    for k, v in pairs(P._args) do args[k] = v end
    return nil
  end
  if type(P) == "function" then
    args.precond = "callback"
    return P
  end
  local ok, apply = pcall(function() return P.apply end)
  if (type(P) == "table" or type(P) == "userdata") and ok and apply ~= nil then
    local pn = P.n
    if pn ~= nil and pn ~= n then
      fail(f, "the preconditioner (%s) has %s rows, A has %d", tostring(P.kind or "object"),
           tostring(pn), n)
    end
    check_space(tostring(P.kind or "object"))
    args.precond = "callback"
    return function(r, z) P:apply(r, z) end
  end
  if type(P) == "table" and P.body ~= nil then
    args.precond = "body"
    local m = body_args(f, "precond", P, "M_", args, n)
    if m ~= n then fail(f, "the preconditioner (body) has %d rows, A has %d", m, n) end
    return nil
  end
  fail(f, "precond must be a preconditioner (an object with apply), a body {body =, captures =} or a function(r, z), got %s",
       type(P))
end

local REASONS = {[0] = "converged", "maxiter", "breakdown"}

local function krylov(f, A, b, opts, keys)
  opts = check_opts(f, opts, keys)
  local args = {b = b, x0 = opts.x0, tol = opts.tol, maxiter = opts.maxiter,
                restart = opts.restart}
  local n = op_args(f, A, args)
  local fn = pc_args(f, opts.precond, n, sparse.is_matrix(A) and A:space() or nil, args)
  local outs
  if fn then
    local ok, _, o = pcall(core._solve.with, fn, "solve." .. f, args, "speck.solve." .. f)
    if not ok then error(_, user_level()) end
    outs = o
  else
    local _, o = call(f, "solve." .. f, args)
    outs = o
  end
  local h, hist = outs.history, {}
  for i = 0, h:extent(0) - 1 do hist[i + 1] = h(i) end
  return outs.x, {iters = math.tointeger(outs.iters), resid = outs.resid,
                  reason = REASONS[math.tointeger(outs.reason)], history = hist}
end

-- x, info = cg(A, b [, {tol = 1e-8, maxiter = 1000, x0 = v, precond = P}])
function solve.cg(A, b, opts)
  return krylov("cg", A, b, opts, {"tol", "maxiter", "x0", "precond"})
end

-- x, info = bicgstab(A, b [, opts]) (right-preconditioned)
function solve.bicgstab(A, b, opts)
  return krylov("bicgstab", A, b, opts, {"tol", "maxiter", "x0", "precond"})
end

-- x, info = gmres(A, b [, {restart = 30, ...}]) (right-preconditioned)
function solve.gmres(A, b, opts)
  return krylov("gmres", A, b, opts, {"tol", "maxiter", "x0", "precond", "restart"})
end

solve._is_precond = is_precond

-- the multilevel and factorization preconditioners (speck/precond_ml.lua:
-- chebyshev, ic0, ilu, amg), written against the contract above
for k, v in pairs(require "speck.precond_ml") do solve[k] = v end
for k, v in pairs(require "speck.solve_direct") do solve[k] = v end   -- spsolve, lu, lobpcg
return solve
