-- amgpcg.lua: the speck side of scripts/bench/solve/amgpcg: AMG-PCG
-- (speck.solve.amg, its defaults: smoothed aggregation from MIS-2,
-- Chebyshev degree 2 on the finest level and 3 below, V-cycle, dense
-- coarsest inverse; speck.solve.cg with
-- it as precond) to ||b - A x|| <= 1e-8 ||b|| on a matrix of mats.lua.
-- An untimed setup + short solve first on the same kind of matrix of size
-- min(SIZE, 16), and on a slab of 8 planes of SIZE x SIZE (the stencil's
-- offsets are SIZE's: the bodies by diagonals are made per offset set,
-- dia.c), compiling every kernel the cycle and the setup use and waiting
-- for the cc tier (the memory of the timed run is fresh, as the peers'
-- is), then the timed setup and solve. Prints the records of
-- scripts/bench/lib, as hypre_pcg.c and petsc_gamg.c do:
--   R <case>.setup|.solve|.total speck <seconds> 0 <relative residual>
--   I speck <case>.iters|.oc|.levels|.resid <value>
-- <case> = amgpcg-<kind><size>.
--   speck amgpcg.lua p7|fe SIZE [profile]
-- With 'profile' it also times every step of the setup and of the cycle
-- (each library call followed by speck.fence(), which slows the whole
-- down a little) and prints the sums by phase as "P <phase> <seconds>
-- <calls>" lines after the records.
local sparse = require "speck.sparse"
local blas = require "speck.blas"
local solve = require "speck.solve"
local core = require "speck.core"
local mats = dofile((arg[0]:match("^(.*)/") or ".") .. "/mats.lua")

local kind, g, profile = arg[1], tonumber(arg[2]), arg[3] == "profile"
if (kind ~= "p7" and kind ~= "fe") or not g then
  error("usage: amgpcg.lua p7|fe SIZE [profile]")
end
local A, b = mats.build(kind, g)
local key = ("amgpcg-%s%d"):format(kind, g)

-- the warm-up (compiles)
do
  local function warm(Aw, bw)
    local P = solve.amg(Aw)
    solve.cg(Aw, bw, {tol = 0.0, maxiter = 5, precond = P})
  end
  if g > 16 then
    warm(mats.build(kind, 16))
    warm(mats.build(kind, g, 8))
  else
    warm(A, b)
  end
  speck.fence()
  speck.jit.wait()
end
collectgarbage()

-- profile: every library call the setup and the cycle make, timed by phase
-- (the outermost call only: a library function's own core.call is in it)
local prof, phase, depth = {}, "other", 0
if profile then
  local tm = speck.Timer()
  local function wrap(tbl, name, label)
    local f = tbl[name]
    tbl[name] = function(...)
      if depth > 0 then return f(...) end
      speck.fence()
      local t0 = tm:seconds()
      depth = 1
      local r1, r2, r3 = f(...)
      depth = 0
      speck.fence()
      local k = phase .. ": " .. (type(label) == "function" and label(...) or label)
      local e = prof[k] or {0, 0}
      e[1], e[2] = e[1] + tm:seconds() - t0, e[2] + 1
      prof[k] = e
      return r1, r2, r3
    end
  end
  -- the cycle's steps by level (the rows of their matrix)
  wrap(core, "call", function(name, t)
    if phase == "solve" and type(t) == "table" and t.A_rowptr then
      return ("%s %d rows"):format(name, t.A_rowptr:extent(0) - 1)
    end
    return name
  end)
  wrap(sparse, "spgemm_jacobi", "sparse.spgemm_jacobi")
  wrap(sparse, "spmv", function(_, _, M)
    return ("sparse.spmv %dx%d"):format(M:nrows(), M:ncols())
  end)
  -- the products by their shapes (A P and R (A P) of each level apart)
  wrap(sparse, "spgemm_symbolic", function(A, B)
    return ("sparse.spgemm_symbolic %dx%d * %dx%d"):format(A:nrows(), A:ncols(), B:nrows(), B:ncols())
  end)
  wrap(sparse, "spgemm_numeric", function(_, A, B)
    return ("sparse.spgemm_numeric %dx%d * %dx%d"):format(A:nrows(), A:ncols(), B:nrows(), B:ncols())
  end)
  for _, name in ipairs({"potrf", "trsm", "gemv", "axpy", "nrm2", "dot"}) do
    wrap(blas, name, "blas." .. name)
  end
  wrap(speck, "deep_copy", "deep_copy")
  local Crs = getmetatable(A).__index
  wrap(Crs, "transpose", "transpose")
  wrap(Crs, "to_dense", "to_dense")
end

local t = speck.Timer()
phase = "setup"
local P = solve.amg(A)
speck.fence()
local setup = t:seconds()
phase = "solve"
local x, info = solve.cg(A, b, {tol = 1e-8, maxiter = 1000, precond = P})
speck.fence()
local total = t:seconds()
phase = "check"
assert(info.reason == "converged", "speck amg-pcg: " .. tostring(info.reason))
local r = speck.View("r", "float64", A:nrows())
speck.deep_copy(r, b)
sparse.spmv("N", -1.0, A, x, 1.0, r)
local rel = blas.nrm2(r) / blas.nrm2(b)
local pi = P:info()
for _, w in ipairs({"setup", "solve", "total"}) do
  local s = w == "setup" and setup or w == "solve" and total - setup or total
  print(("R\t%s.%s\tspeck\t%.9e\t0\t%.17g"):format(key, w, s, rel))
end
print(("I\tspeck\t%s.iters\t%d"):format(key, info.iters))
print(("I\tspeck\t%s.oc\t%.3f"):format(key, pi.operator_complexity))
print(("I\tspeck\t%s.levels\t%d"):format(key, #pi.levels))
print(("I\tspeck\t%s.resid\t%.3e"):format(key, rel))
if profile then
  local rows, inside = {}, {setup = 0, solve = 0}
  for k, e in pairs(prof) do
    rows[#rows + 1] = {k, e[1], e[2]}
    local ph = k:match("^(%a+):")
    if inside[ph] then inside[ph] = inside[ph] + e[1] end
  end
  rows[#rows + 1] = {"setup: Lua between the calls", setup - inside.setup, 1}
  rows[#rows + 1] = {"solve: CG's own work (SpMV, dots, updates) and the callbacks",
                     total - setup - inside.solve, 1}
  table.sort(rows, function(p, q) return p[2] > q[2] end)
  for _, row in ipairs(rows) do print(("P\t%s\t%.4f\t%d"):format(row[1], row[2], row[3])) end
  local lv = {}
  for i, l in ipairs(pi.levels) do lv[i] = ("%d rows %d nnz"):format(l.rows, l.nnz) end
  print("P\tlevels\t" .. table.concat(lv, "; "))
end
io.stdout:flush()
