-- amgxfer_spec.lua: speck.solve.amg's coded prolongator and restriction
-- on the host (solve.amg_xfer_make and solve.amg_xfer, kernels/solve/
-- amg_xfer.c and amg_xfer.sk): P and R = P^T coded (3 bytes an entry, R
-- with P's value table) give y = beta y + M x bit for bit as sparse.spmv
-- (alpha 1, beta 0 and 1) on a smoothed prolongator of a constant-
-- coefficient stencil with rows of P without an entry, a row of one entry
-- and an x holding an Inf; a matrix of too many distinct values, a gap past
-- 65535, columns out of order and any other space decline (ok = 0: the
-- cycle keeps sparse.spmv); a bad table, a form that does not fit x or y
-- and beta other than 0 or 1 are refused with the message, the VM usable;
-- AMG-PCG takes the forms on the host (their launches counted) and its
-- solution is the one of the same cycle with sparse.spmv, bit for bit
-- (speck/precond_ml.lua loaded a second time with the forms left out).
local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
local core = require "speck.core"

local SPACE = speck.info().default_space
local HOST = speck.View("probe", "float64", 1):space() == "host"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo, host_table, rng = F.coo, F.host_table, F.rng

local function make(M, tab)
  local _, o = core.call("solve.amg_xfer_make", sparse._margs({tab = tab}, "M", M))
  return o
end

local function apply(c, x, y, beta)
  core.call("solve.amg_xfer", {rp = c.rp, base = c.base, gap = c.gap, code = c.code, tab = c.tab,
                               ncols = c.ncols, x = x, y = y, beta = beta})
end

local function vec(n, f)
  local h = {}
  for i = 1, n do h[i] = f(i) end
  return speck.View.from(h, "float64")
end

-- y = beta y0 + M x by the form and by sparse.spmv: the same bits
local function check(c, M, x, y0, beta)
  local y1 = vec(M:nrows(), function(i) return y0[i] end)
  local y2 = vec(M:nrows(), function(i) return y0[i] end)
  apply(c, x, y1, beta)
  sparse.spmv("N", 1.0, M, x, beta, y2)
  local a, b = host_table(y1), host_table(y2)
  local differ = 0
  for i = 1, #a do
    if not (a[i] == b[i] or (a[i] ~= a[i] and b[i] ~= b[i])) then differ = differ + 1 end
  end
  assert.are.equal(0, differ)
end

-- the 7-point Laplacian on an m^3 grid, P smoothed from aggregates of
-- 2x2x2 blocks (one value 1/sqrt(8) a block; every 37th row without one,
-- row 0 alone in its aggregate)
local function level(m)
  local A = coo(m * m * m, F.poisson_entries(m))
  local e, ids, nagg = {}, {}, 0
  for z = 0, m - 1 do for y = 0, m - 1 do for x = 0, m - 1 do
    local i = x + m * (y + m * z)
    local key = i == 0 and -1 or (x // 2) + m * ((y // 2) + m * (z // 2))
    if not ids[key] then ids[key] = nagg; nagg = nagg + 1 end
    if i % 37 ~= 5 then e[#e + 1] = {i, ids[key], i == 0 and 1.0 or 1 / math.sqrt(8)} end
  end end end
  local Pt = coo(m * m * m, e, nagg)
  local P = sparse.spgemm_jacobi(4 / 3 / 12, A, Pt)
  return A, P, P:transpose()
end

describe("speck.solve.amg's coded P and R on " .. SPACE, function()
  it("give sparse.spmv's values bit for bit (beta 0 and 1)", function()
    local _, P, R = level(10)
    local p = make(P)
    if P:space() ~= "host" then
      assert.are.equal(0, p.ok)
      return
    end
    assert.are.equal(1, p.ok)
    local r = make(R, p.tab)
    assert.are.equal(1, r.ok)
    assert.is_true(p.tab:extent(0) <= 256)
    assert.are.equal(P:nnz(), p.code:extent(0))
    local g = rng(3)
    local xc = vec(P:ncols(), function(i) return i == 7 and math.huge or g() * 10 ^ (g() * 6 - 3) end)
    local xf = vec(P:nrows(), function() return g() - 0.5 end)
    local y0f, y0c = {}, {}
    for i = 1, P:nrows() do y0f[i] = g() - 0.25 end
    for i = 1, P:ncols() do y0c[i] = g() * 3 end
    for _, beta in ipairs({0.0, 1.0}) do
      check(p, P, xc, y0f, beta)
      check(r, R, xf, y0c, beta)
    end
  end)

  it("declines too many values, a wide gap, columns out of order and another space", function()
    if not HOST then
      local _, P = level(4)
      assert.are.equal(0, make(P).ok)
      return
    end
    local e = {}
    for i = 0, 299 do e[#e + 1] = {i, i, 1.0 + i} end
    assert.are.equal(0, make(coo(300, e)).ok)               -- 300 distinct values
    local g = coo(2, {{0, 0, 1.0}, {0, 66000, 1.0}, {1, 1, 1.0}}, 70000)
    assert.are.equal(0, make(g).ok)                          -- a gap of 66000
    assert.are.equal(1, make(coo(2, {{0, 0, 1.0}, {0, 65535, 1.0}, {1, 1, 1.0}}, 70000)).ok)
    local u = sparse.CrsMatrix{nrows = 2, ncols = 3, rowptr = speck.View.from({0, 2, 3}, "int64"),
                               colidx = speck.View.from({2, 0, 1}, "int32"),
                               values = speck.View.from({1.0, 2.0, 3.0}, "float64")}
    assert.are.equal(0, make(u).ok)                          -- row 0's columns 2, 0
    -- R's values not in P's table
    local t = make(coo(2, {{0, 0, 1.0}, {1, 1, 2.0}})).tab
    assert.are.equal(0, make(coo(2, {{0, 0, 1.0}, {1, 1, 3.0}}), t).ok)
  end)

  it("refuses a bad table, a form that does not fit and beta other than 0 or 1", function()
    if not HOST then return end
    local M = coo(3, {{0, 0, 1.0}, {1, 1, 2.0}, {2, 0, 3.0}, {2, 2, 1.0}})
    local ok, msg = pcall(make, M, speck.View("t32", "float32", 4))
    assert.is_false(ok)
    assert.are.equal("solve.amg_xfer_make: tab (view 't32') must be a contiguous float64 host view of 1 to 256 values",
                     tostring(msg):match("(solve%.amg_xfer_make: .*)$"))
    ok, msg = pcall(make, M, speck.View("big", "float64", 300))
    assert.is_false(ok)
    assert.are.equal("solve.amg_xfer_make: tab (view 'big') must be a contiguous float64 host view of 1 to 256 values",
                     tostring(msg):match("(solve%.amg_xfer_make: .*)$"))
    local c = make(M)
    assert.are.equal(1, c.ok)
    ok, msg = pcall(apply, c, speck.View("x4", "float64", 4), speck.View("y", "float64", 3), 0.0)
    assert.is_false(ok)
    assert.are.equal("solve.amg_xfer: x (view 'x4') does not fit the form: rp int32, base int32 (the rows), gap int16, code uint8 (the entries), tab float64, x float64 (ncols), y float64 (the rows)",
                     tostring(msg):match("(solve%.amg_xfer: .*)$"))
    ok, msg = pcall(apply, c, speck.View("x", "float64", 3), speck.View("y", "float64", 3), 2.0)
    assert.is_false(ok)
    assert.are.equal("solve.amg_xfer: beta must be 0 or 1, got 2",
                     tostring(msg):match("(solve%.amg_xfer: .*)$"))
    -- the VM stays usable
    local x = vec(3, function(i) return i end)
    check(c, M, x, {0, 0, 0}, 0.0)
  end)

  it("AMG-PCG takes them on the host: the solution of the cycle with sparse.spmv, bit for bit", function()
    local launches = F.launches
    local m = 16
    local A = coo(m * m * m, F.poisson_entries(m))
    local b = speck.View("b", "float64", A:nrows())
    speck.deep_copy(b, 1.0)
    -- the same module with the forms left out: the cycle's sparse.spmv
    local src = assert(io.open(HERE .. "/../stdlib/speck/precond_ml.lua")):read("a")
    local n
    src, n = src:gsub("\n(%s*)xfer_forms%(f, L%)\n", "\n%1-- (left out)\n")
    assert.are.equal(2, n)
    local plain = assert(load(src, "=precond_ml (no forms)"))()
    local c0 = launches("solve.amg_xfer_apply")
    local M1 = solve.amg(A, {coarse_size = 30})
    local x1, i1 = solve.cg(A, b, {tol = 1e-8, precond = M1})
    local c1 = launches("solve.amg_xfer_apply")
    if A:space() == "host" then assert.is_true(c1 - c0 >= 2 * i1.iters) else assert.are.equal(c0, c1) end
    local M2 = plain.amg(A, {coarse_size = 30})
    local x2, i2 = solve.cg(A, b, {tol = 1e-8, precond = M2})
    assert.are.equal(c1, launches("solve.amg_xfer_apply"))
    assert.are.equal("converged", i1.reason)
    assert.are.equal(i2.iters, i1.iters)
    assert.are.same(host_table(x2), host_table(x1))
    -- P:update keeps them
    M1:update(A)
    local x3 = solve.cg(A, b, {tol = 1e-8, precond = M1})
    assert.are.same(host_table(x1), host_table(x3))
    assert.is_true(launches("solve.amg_xfer_apply") > c1 or A:space() ~= "host")
  end)
end)
