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
  if not sparse.is_matrix(A) then
    fail(f, "A must be a CrsMatrix, got %s", is_view(A) and "a view" or type(A))
  end
  if A:nrows() ~= A:ncols() then
    fail(f, "A is %dx%d: it must be square", A:nrows(), A:ncols())
  end
end

-- b: a rank-1 view (or rank 2: one right-hand side a column) of A's rows
-- in A's space
local function check_rhs(f, A, b)
  if not is_view(b) then fail(f, "b must be a view, got %s", type(b)) end
  if b:rank() ~= 1 and b:rank() ~= 2 then
    fail(f, "b must be a rank-1 or rank-2 view, got rank %d", b:rank())
  end
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
local GVIEWS = {"G_ip", "G_rows", "G_x", "G_plan", "G_info"}

-- the schedule of lu(A, opts): "columns" (the host's left-looking LU,
-- lu.c) or "levels" (level sets of supernodes on the active back end,
-- lu_ls.c: the factor in A's space); a float64 A in a device space takes
-- "levels" by default
local function lu_schedule(f, A, opts)
  local sch = opts.schedule
  if sch ~= nil and sch ~= "columns" and sch ~= "levels" then
    fail(f, "schedule must be \"columns\" or \"levels\", got %s", tostring(sch))
  end
  local gm = opts.gemm_min
  if gm ~= nil and (math.type(gm) ~= "integer" or gm < 1) then
    fail(f, "gemm_min must be a positive integer, got %s", tostring(gm))
  end
  if sch == nil then
    sch = (A:space() ~= "host" and A.values:dtype() == "float64") and "levels" or "columns"
  end
  if gm ~= nil and sch ~= "levels" then
    fail(f, "gemm_min is an option of the level-set schedule: schedule must be \"levels\"")
  end
  return sch
end

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
  local ord = opts.ordering
  if ord ~= nil and ord ~= "auto" and ord ~= "amd" and ord ~= "rcm" then
    fail(f, "ordering must be \"auto\", \"amd\" or \"rcm\", got %s", tostring(ord))
  end
  local sch = lu_schedule(f, A, opts)
  if sch == "levels" then
    local _, outs = call(f, "solve.lu_levels",
                         sparse._margs({pivtol = pivtol, ordering = ord, gemm_min = opts.gemm_min}, "A", A))
    local F = {n = A:nrows(), space = A:space(), _A = A, _f = {}, _levels = true}
    for _, k in ipairs(GVIEWS) do F._f[k] = outs[k] end
    local gi = outs.G_info
    F._info = {rows = A:nrows(), nnz_L = math.tointeger(gi(4)), nnz_U = math.tointeger(gi(5)),
               static_pivots = math.tointeger(gi(0)), static_row = math.tointeger(gi(1)),
               static_col = math.tointeger(gi(2)), tau = gi(3),
               ordering = gi(6) == 1 and "amd" or "rcm", schedule = "levels",
               levels = math.tointeger(gi(7)), supernodes = math.tointeger(gi(8)),
               symbolic_seconds = gi(9), numeric_seconds = gi(10),
               gemm_updates = math.tointeger(outs.gemm_updates), space = A:space()}
    return setmetatable(F, LUMT)
  end
  local _, outs = call(f, "solve.lu", sparse._margs({pivtol = pivtol, ordering = ord}, "A", A))
  local F = {n = A:nrows(), space = A:space(), _A = A, _f = {}}
  for _, k in ipairs(FVIEWS) do F._f[k] = outs[k] end
  local fi = outs.F_info
  F._info = {rows = A:nrows(), nnz_L = math.tointeger(fi(4)), nnz_U = math.tointeger(fi(5)),
             static_pivots = math.tointeger(fi(0)), static_row = math.tointeger(fi(1)),
             static_col = math.tointeger(fi(2)), tau = fi(3),
             ordering = fi(6) == 1 and "amd" or "rcm", schedule = "columns", space = "host"}
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

local function lu_solve1(f, F, b, refine, tol)
  if F._levels and (b:dtype() ~= "float64" or not b:is_contiguous()) then
    -- the level-set solve reads a contiguous float64 b
    local c = speck.View(b:label(), "float64", b:extent(0), {space = b:space()})
    speck.deep_copy(c, b)
    b = c
  end
  local args = sparse._margs({b = b, refine = refine, tol = tol}, "A", F._A)
  for k, v in pairs(F._f) do args[k] = v end
  local _, outs = call(f, F._levels and "solve.lu_levels_solve" or "solve.lu_solve", args)
  return outs.x, {berr = outs.berr, steps = math.tointeger(outs.steps), solve_seconds = outs.seconds}
end

-- x for a rank-1 b; X (b's shape, layout and space) column by column for a
-- rank-2 b, info's berr and steps the largest over the columns
local function lu_solve(f, F, b, refine, tol)
  if b:rank() == 1 then return lu_solve1(f, F, b, refine, tol) end
  local m = b:extent(1)
  local X = speck.View("x", F._A.values:dtype(), {b:extent(0), m},
                       {space = b:space(), layout = b:layout() == "left" and "left" or "right"})
  local info = {berr = 0.0, steps = 0}
  for j = 0, m - 1 do
    local x, i = lu_solve1(f, F, speck.subview(b, speck.ALL, j), refine, tol)
    speck.deep_copy(speck.subview(X, speck.ALL, j), x)
    info.berr, info.steps = math.max(info.berr, i.berr), math.max(info.steps, i.steps)
    if i.solve_seconds then info.solve_seconds = (info.solve_seconds or 0) + i.solve_seconds end
  end
  return X, info
end

-- F = lu(A [, {pivtol = sqrt(eps), ordering = "auto", schedule =, gemm_min =}]):
-- the factor of a square sparse A (A kept for the refinement); ordering
-- "auto": AMD where SuiteSparse's libamd loads, else reverse Cuthill-McKee.
-- schedule "columns" (a host A's default, and a float32 A's): the host's
-- left-looking LU, the factor in host memory; "levels" (a float64 A in a
-- device space: the default there): level sets of supernodes on the active
-- back end, the numeric phase, the factor, the solves and the refinement
-- in A's space (the matching, the ordering and the symbolic phase on the
-- host); gemm_min (levels): updates of at least that many multiply-adds by
-- the vendor's gemm. F:info() adds, for "levels": levels, supernodes,
-- gemm_updates, symbolic_seconds (host: matching, ordering, supernodes,
-- the plan moved to A's space),
-- numeric_seconds (the back end's numeric phase); F:solve's info
-- solve_seconds.
function M.lu(A, opts)
  local f = "lu"
  check_square(f, A)
  opts = check_opts(f, opts, {"pivtol", "ordering", "schedule", "gemm_min"})
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

-- x, info = spsolve(A, b [, {pivtol =, ordering =, refine = 10, tol = 1e-10,
-- schedule =, gemm_min =}])
function M.spsolve(A, b, opts)
  local f = "spsolve"
  check_square(f, A)
  check_rhs(f, A, b)
  opts = check_opts(f, opts, {"pivtol", "ordering", "refine", "tol", "schedule", "gemm_min"})
  local refine, tol = solve_opts(f, opts)
  local F = lu_factor(f, A, opts)
  local x, info = lu_solve(f, F, b, refine, tol)
  for k, v in pairs(F._info) do info[k] = v end
  return x, info
end

-- -- LOBPCG ---------------------------------------------------------------------------
-- eigenvalues d (ascending) and eigenvectors V (columns) of the symmetric
-- m x m Lua matrix a (1-based, copied): cyclic Jacobi rotations
local function sym_eig(a0, m)
  local a, v = {}, {}
  for i = 1, m do
    a[i], v[i] = {}, {}
    for j = 1, m do a[i][j], v[i][j] = 0.5 * (a0[i][j] + a0[j][i]), i == j and 1.0 or 0.0 end
  end
  for _ = 1, 100 do
    local off, diag = 0.0, 0.0
    for p = 1, m do
      diag = diag + a[p][p] * a[p][p]
      for q = p + 1, m do off = off + a[p][q] * a[p][q] end
    end
    if off <= 1e-32 * diag or off == 0 then break end
    for p = 1, m - 1 do
      for q = p + 1, m do
        local apq = a[p][q]
        if apq ~= 0 then
          local th = (a[q][q] - a[p][p]) / (2 * apq)
          local t = (th >= 0 and 1 or -1) / (math.abs(th) + math.sqrt(th * th + 1))
          local c = 1 / math.sqrt(t * t + 1)
          local s = t * c
          for r = 1, m do
            local ar = a[r]
            local arp, arq = ar[p], ar[q]
            ar[p], ar[q] = c * arp - s * arq, s * arp + c * arq
          end
          local ap, aq = a[p], a[q]
          for r = 1, m do
            local apr, aqr = ap[r], aq[r]
            ap[r], aq[r] = c * apr - s * aqr, s * apr + c * aqr
          end
          for r = 1, m do
            local vr = v[r]
            local vrp, vrq = vr[p], vr[q]
            vr[p], vr[q] = c * vrp - s * vrq, s * vrp + c * vrq
          end
        end
      end
    end
  end
  local idx = {}
  for i = 1, m do idx[i] = i end
  table.sort(idx, function(x, y) return a[x][x] < a[y][y] end)
  local d, V = {}, {}
  for i = 1, m do V[i] = {} end
  for jj, j in ipairs(idx) do
    d[jj] = a[j][j]
    for i = 1, m do V[i][jj] = v[i][j] end
  end
  return d, V
end

-- the block workspace of one lobpcg call: views in A's space (layout
-- left: a column is contiguous; separate allocations, as gemm's output
-- may not share an input's memory) and small host / device matrices
local function workspace(A, k, dt)
  local n, sp = A:nrows(), A:space()
  local function mat(label, r, c, space)
    return speck.View(label, dt, {r, c}, {space = space or sp, layout = "left"})
  end
  local w = {n = n, k = k, X = mat("X", n, k), AX = mat("AX", n, k), Q = mat("Q", n, 2 * k),
             AQ = mat("AQ", n, 2 * k), T = mat("T", n, 2 * k), U = mat("U", n, k),
             AU = mat("AU", n, k), Gd = mat("G", 3 * k, 3 * k),
             Gh = mat("Gh", 3 * k, 3 * k, "host"), Cd = mat("C", 3 * k, 3 * k),
             Ch = mat("Ch", 3 * k, 3 * k, "host")}
  return w
end

local function cols(V, a, b) return speck.subview(V, speck.ALL, {a, b}) end
local function sub(V, r0, r1, c0, c1) return speck.subview(V, {r0, r1}, {c0, c1}) end

-- the Lua matrix B^T C (columns of two n x * views)
local function gram(w, B, C)
  local p, q = B:extent(1), C:extent(1)
  local gd, gh = sub(w.Gd, 0, p, 0, q), sub(w.Gh, 0, p, 0, q)
  blas.gemm("T", "N", 1.0, B, C, 0.0, gd)
  speck.deep_copy(gh, gd)
  local G = {}
  for i = 1, p do
    G[i] = {}
    for j = 1, q do G[i][j] = gh(i - 1, j - 1) end
  end
  return G
end

-- a p x q Lua matrix on the device (a view of w.Cd from column c0, 0 by
-- default: two live at once take different columns)
local function small(w, C, p, q, c0)
  c0 = c0 or 0
  local ch, cd = sub(w.Ch, 0, p, c0, c0 + q), sub(w.Cd, 0, p, c0, c0 + q)
  for i = 1, p do
    for j = 1, q do ch:set(i - 1, j - 1, C[i][j]) end
  end
  speck.deep_copy(cd, ch)
  return cd
end

-- SVQB (Stathopoulos and Wu): the columns of Q (n x q, not in w.T) made
-- orthonormal, directions below 'drop' relative dropped; the new columns
-- are written to the first ones of Q; returns their number
local function svqb(w, Q, drop)
  local q = Q:extent(1)
  if q == 0 then return 0 end
  local G = gram(w, Q, Q)
  local s = {}
  for i = 1, q do s[i] = G[i][i] > 0 and 1 / math.sqrt(G[i][i]) or 0 end
  for i = 1, q do for j = 1, q do G[i][j] = G[i][j] * s[i] * s[j] end end
  local d, V = sym_eig(G, q)
  local keep = {}
  for j = q, 1, -1 do if d[j] > drop * d[q] and d[j] > 0 then keep[#keep + 1] = j end end
  local m = #keep
  if m == 0 then return 0 end
  local Mx = {}
  for i = 1, q do
    Mx[i] = {}
    for jj, j in ipairs(keep) do Mx[i][jj] = s[i] * V[i][j] / math.sqrt(d[j]) end
  end
  local T = cols(w.T, 0, m)
  blas.gemm("N", "N", 1.0, Q, small(w, Mx, q, m), 0.0, T)
  speck.deep_copy(cols(Q, 0, m), T)
  return m
end

-- Q -= X (X^T Q)
local function project(w, X, Q)
  local H = gram(w, X, Q)
  blas.gemm("N", "N", -1.0, X, small(w, H, X:extent(1), Q:extent(1)), 1.0, Q)
end

local function apply_precond(P, R, W, k)
  for i = 0, k - 1 do
    local r, z = speck.subview(R, speck.ALL, i), speck.subview(W, speck.ALL, i)
    if type(P) == "function" then P(r, z) else P:apply(r, z) end
  end
end

-- vals, vecs, info = lobpcg(A, k [, {largest = false, precond = P, tol = 1e-8,
-- maxiter = 500, X0 = V}])
function M.lobpcg(A, k, opts)
  local f = "lobpcg"
  check_square(f, A)
  local n = A:nrows()
  if math.type(k) ~= "integer" or k <= 0 or 3 * k > n then
    fail(f, "k must be an integer in [1, n/3] = [1, %d] for A of %d rows, got %s", n // 3, n,
         tostring(k))
  end
  opts = check_opts(f, opts, {"largest", "precond", "tol", "maxiter", "X0"})
  local largest = opts.largest
  if largest == nil then largest = false end
  if type(largest) ~= "boolean" then
    fail(f, "largest must be a boolean, got %s", type(largest))
  end
  local tol = opts.tol == nil and 1e-8 or check_num(f, "tol", opts.tol)
  if not (tol > 0) then fail(f, "tol %s must be a positive number", tostring(tol)) end
  local maxiter = opts.maxiter == nil and 500 or opts.maxiter
  if math.type(maxiter) ~= "integer" or maxiter < 1 then
    fail(f, "maxiter must be a positive integer, got %s", tostring(maxiter))
  end
  local P = opts.precond
  if P ~= nil then
    local ok, ap = pcall(function() return P.apply end)
    if type(P) ~= "function" and not (ok and ap ~= nil) then
      fail(f, "precond must be a preconditioner (an object with apply) or a function(r, z), got %s",
           type(P))
    end
    local okn, pn = pcall(function() return P.n end)
    if type(P) ~= "function" and okn and pn ~= nil and pn ~= n then
      fail(f, "the preconditioner (%s) has %s rows, A has %d", tostring(P.kind or "object"),
           tostring(pn), n)
    end
    local oks, ps = pcall(function() return P.space end)
    if type(P) ~= "function" and oks and ps ~= nil and ps ~= A:space() then
      fail(f, "the preconditioner (%s) is in space '%s', A in '%s'", tostring(P.kind or "object"),
           tostring(ps), A:space())
    end
  end
  local X0 = opts.X0
  if X0 ~= nil then
    if not is_view(X0) then fail(f, "X0 must be a view, got %s", type(X0)) end
    if X0:rank() ~= 2 or X0:extent(0) ~= n or X0:extent(1) ~= k then
      local sh = {}
      for r = 0, X0:rank() - 1 do sh[#sh + 1] = tostring(X0:extent(r)) end
      fail(f, "X0 (view '%s') must be %dx%d (n x k), got %s", X0:label(), n, k,
           table.concat(sh, "x"))
    end
  end
  local dt = A.values:dtype()
  if dt ~= "float64" and dt ~= "float32" then
    fail(f, "A must be float64 or float32, got %s", dt)
  end
  if X0 ~= nil and X0:dtype() ~= dt then
    fail(f, "X0 (view '%s') is %s, A is %s", X0:label(), X0:dtype(), dt)
  end
  -- symmetry: A z = A^T z for a random z (a nonsymmetric A is refused)
  local sp = A:space()
  local pool = speck.random.Pool(20260, {space = sp})
  local z = speck.View("z", dt, n, {space = sp})
  local y1, y2 = speck.View("y1", dt, n, {space = sp}), speck.View("y2", dt, n, {space = sp})
  speck.random.fill(z, pool, -1, 1)
  sparse.spmv("N", 1.0, A, z, 0.0, y1)
  sparse.spmv("T", 1.0, A, z, 0.0, y2)
  local ny, nz = blas.nrm2(y1), blas.nrm2(z)
  blas.axpy(-1.0, y1, y2)
  local asym = blas.nrm2(y2)
  local symtol = dt == "float32" and 1e-5 or 1e-12
  if asym > symtol * ny then
    fail(f, "A is not symmetric (||A z - A^T z|| / ||A z|| = %.3g for a random z): LOBPCG needs a symmetric matrix",
         asym / ny)
  end

  local w = workspace(A, k, dt)
  local X, AX = w.X, w.AX
  if X0 then speck.deep_copy(X, X0) else speck.random.fill(X, pool, -1, 1) end
  local drop = dt == "float32" and 1e-6 or 1e-13
  if svqb(w, X, drop) < k then
    fail(f, "X0 (view '%s') has rank below k = %d", X0 and X0:label() or "random", k)
  end
  sparse.spmv("N", 1.0, A, X, 0.0, AX)
  -- Rayleigh-Ritz on X alone
  -- the residuals are relative to 'scale', a lower bound of ||A||_2 (||A z||
  -- / ||z||, then the largest |Ritz value| seen)
  local theta, scale = {}, nz > 0 and ny / nz or 0.0
  do
    local d, V = sym_eig(gram(w, X, AX), k)
    local C, order = {}, {}
    for j = 1, k do order[j] = largest and k + 1 - j or j end
    for i = 1, k do
      C[i] = {}
      for jj, j in ipairs(order) do C[i][jj] = V[i][j] end
    end
    for jj, j in ipairs(order) do
      theta[jj] = d[j]
      scale = math.max(scale, math.abs(d[j]))
    end
    local Cd = small(w, C, k, k)
    blas.gemm("N", "N", 1.0, X, Cd, 0.0, w.U)
    blas.gemm("N", "N", 1.0, AX, Cd, 0.0, w.AU)
    speck.deep_copy(X, w.U)
    speck.deep_copy(AX, w.AU)
  end
  local havep, iters, resid, converged = false, 0, {}, false
  while true do
    -- residuals R = AX - X diag(theta) in T's first block
    local R = cols(w.T, 0, k)
    speck.deep_copy(R, AX)
    local D = {}
    for i = 1, k do
      D[i] = {}
      for j = 1, k do D[i][j] = i == j and theta[i] or 0.0 end
    end
    blas.gemm("N", "N", -1.0, X, small(w, D, k, k), 1.0, R)
    local RR = gram(w, R, R)
    converged = true
    for i = 1, k do
      resid[i] = math.sqrt(math.max(RR[i][i], 0)) / math.max(scale, 1e-300)
      if not (resid[i] <= tol) then converged = false end
    end
    if converged or iters >= maxiter then break end
    iters = iters + 1
    -- Q = [W P]: W = M^-1 R, P the last step (Q's second block)
    local W = cols(w.Q, 0, k)
    if P then apply_precond(P, R, W, k) else speck.deep_copy(W, R) end
    local q = havep and 2 * k or k
    local Q = cols(w.Q, 0, q)
    for _ = 1, 2 do
      project(w, X, Q)
      q = svqb(w, Q, drop)
      Q = cols(w.Q, 0, q)
    end
    if q == 0 then break end
    local AQ = cols(w.AQ, 0, q)
    sparse.spmv("N", 1.0, A, Q, 0.0, AQ)
    -- Rayleigh-Ritz on [X Q]
    local m = k + q
    local H, Hxx, Hxq, Hqq = {}, gram(w, X, AX), gram(w, X, AQ), gram(w, Q, AQ)
    for i = 1, m do
      H[i] = {}
      for j = 1, m do
        if i <= k and j <= k then H[i][j] = Hxx[i][j]
        elseif i <= k then H[i][j] = Hxq[i][j - k]
        elseif j <= k then H[i][j] = Hxq[j][i - k]
        else H[i][j] = Hqq[i - k][j - k] end
      end
    end
    local d, V = sym_eig(H, m)
    scale = math.max(scale, math.abs(d[1]), math.abs(d[m]))
    local Cx, Cq = {}, {}
    for i = 1, m do
      local row = {}
      for jj = 1, k do row[jj] = V[i][largest and m + 1 - jj or jj] end
      if i <= k then Cx[i] = row else Cq[i - k] = row end
    end
    for jj = 1, k do theta[jj] = d[largest and m + 1 - jj or jj] end
    local Pn = cols(w.T, 0, k)
    local Cqd = small(w, Cq, q, k)
    blas.gemm("N", "N", 1.0, Q, Cqd, 0.0, Pn)            -- P = Q Cq
    blas.gemm("N", "N", 1.0, AQ, Cqd, 0.0, w.AU)         -- A X = A X Cx + A Q Cq
    local Cxd = small(w, Cx, k, k, k)
    blas.gemm("N", "N", 1.0, X, Cxd, 0.0, w.U)           -- X = X Cx + P
    blas.gemm("N", "N", 1.0, Q, Cqd, 1.0, w.U)
    blas.gemm("N", "N", 1.0, AX, Cxd, 1.0, w.AU)
    speck.deep_copy(X, w.U)
    speck.deep_copy(AX, w.AU)
    speck.deep_copy(cols(w.Q, k, 2 * k), Pn)
    havep = true
  end
  local vals = speck.View("vals", "float64", k, {space = "host"})
  for i = 1, k do vals:set(i - 1, theta[i]) end
  local vecs = speck.View("vecs", dt, {n, k}, {space = sp, layout = "left", init = false})
  speck.deep_copy(vecs, X)
  return vals, vecs, {iters = iters, resid = resid, converged = converged,
                      reason = converged and "converged" or (iters >= maxiter and "maxiter"
                                                             or "stagnated")}
end

return M
