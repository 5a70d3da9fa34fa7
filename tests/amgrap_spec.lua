-- amgrap_spec.lua: speck.solve.amg's Galerkin product on the host
-- (solve.amg_rap, kernels/solve/amg_rap.c and amg_rap.sk): A_c = R (A P)
-- with no symbolic phase, against sparse.spgemm's symbolic and numeric
-- phases (bit for bit on the host: the same operations in the same
-- order) on a 27-point matrix with values of several scales and a
-- smoothed prolongator, a long row, empty rows of P and an empty coarse
-- row, and so in phases (A P made for a phase's fine rows at a time); off
-- the host it hands back to the general product; shapes that do not fit
-- and a bad number of phases are refused with the message; the AMG setup and P:update take it
-- on the host (an update to the same values: the same levels and
-- iterations; to new values: the solution of a setup from them, bit for
-- bit), and its bodies compile for the GPU target.
local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
local core = require "speck.core"

local SPACE = speck.info().default_space
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo, host_table, rng, stencil27 = F.coo, F.host_table, F.rng, F.stencil27

local function rap(A, P, R, phases)
  local _, o = core.call("solve.amg_rap", sparse._margs(sparse._margs(sparse._margs({phases = phases}, "A", A),
                                                                        "P", P), "R", R))
  return o
end

-- R (A P) by sparse.spgemm's phases
local function general(A, P, R)
  local AP = sparse.spgemm_numeric(sparse.spgemm_symbolic(A, P), A, P)
  return sparse.spgemm_numeric(sparse.spgemm_symbolic(R, AP), R, AP)
end

local function same(o, G)
  assert.is_nil(o.general)
  assert.are.same(host_table(G.rowptr), host_table(o.C_rowptr))
  assert.are.same(host_table(G.colidx), host_table(o.C_colidx))
  local gv, cv = host_table(G.values), host_table(o.C_values)
  assert.are.equal(#gv, #cv)
  local differ = 0
  for q = 1, #cv do
    if cv[q] ~= gv[q] then differ = differ + 1 end
  end
  assert.are.equal(0, differ)
end

-- R (A P) by solve.amg_rap against the general product: on the host the
-- same bits (its result); elsewhere handed back to the general product (false)
local function rap_checked(A, P, R)
  local o = rap(A, P, R)
  if A:space() ~= "host" then
    assert.are.equal(1, o.general)
    return false
  end
  same(o, general(A, P, R))
  return o
end

describe("speck.solve.amg's Galerkin product R (A P) on " .. SPACE, function()
  it("equals sparse.spgemm's phases (bit for bit on the host)", function()
    local r = rng(5)
    local m = 8
    local n = m * m * m
    local A = stencil27(m, r)
    -- aggregates of 2x2x2 blocks (the last one empty: a zero coarse row),
    -- a few rows left without one; P smoothed by the general product
    local e, nagg, ids = {}, 0, {}
    for z = 0, m - 1 do for y = 0, m - 1 do for x = 0, m - 1 do
      local key = (x // 2) + 4 * ((y // 2) + 4 * (z // 2))
      if not ids[key] then ids[key] = nagg; nagg = nagg + 1 end
      local i = x + m * (y + m * z)
      if i % 41 ~= 7 then e[#e + 1] = {i, ids[key], 0.1 + r()} end
    end end end
    local Pt = coo(n, e, nagg + 1)
    local P = sparse.spgemm_jacobi(4 / 3 / 1.9, A, Pt)
    local R = P:transpose()
    local o = rap_checked(A, P, R)
    if not o then return end
    local rp = host_table(o.C_rowptr)
    assert.are.equal(rp[nagg + 1], rp[nagg + 2])
    -- in phases (A P made for a phase's fine rows at a time, its arena
    -- reused; the last phase's coarse row empty): the same bits
    for _, k in ipairs({2, 3, 4}) do same(rap(A, P, R, k), general(A, P, R)) end
  end)

  it("takes a long row, a P with many entries a row and rows of P without one", function()
    local n = 150
    local e = {}
    for i = 0, n - 1 do e[#e + 1] = {i, i, 300.0 + i / 3} end
    for j = 1, 120 do e[#e + 1] = {0, j, -1.0 - j / 7}; e[#e + 1] = {j, 0, -1.0 - j / 7} end
    for i = 1, n - 2 do e[#e + 1] = {i, i + 1, -0.5 - i / 1000}; e[#e + 1] = {i + 1, i, -0.5 - i / 1000} end
    local A = coo(n, e)
    -- P: 90 columns, row i with up to 70 entries, rows 10-19 empty
    local r = rng(9)
    local pe = {}
    for i = 0, n - 1 do
      if i < 10 or i > 19 then
        for c = 0, 89 do
          if (i * 7 + c * 13) % 97 < 60 then pe[#pe + 1] = {i, c, r() - 0.3} end
        end
      end
    end
    local P = coo(n, pe, 90)
    local R = P:transpose()
    if not rap_checked(A, P, R) then return end
    -- phases whose fine rows overlap (every coarse row reads most of them)
    same(rap(A, P, R, 4), general(A, P, R))
  end)

  it("refuses shapes that do not fit", function()
    local A = coo(4, {{0, 0, 2.0}, {1, 1, 2.0}, {2, 2, 2.0}, {3, 3, 2.0}})
    local P = coo(4, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 1, 1.0}, {3, 1, 1.0}}, 2)
    local ok, msg = pcall(rap, A, P, P)
    assert.is_false(ok)
    assert.are.equal("solve.amg_rap: A (4x4), P (4x2) and R (4x2) must be float64 matrices of one space with P's rows = A's columns and R = P's transpose in shape",
                     tostring(msg):match("(solve%.amg_rap: .*)$"))
    local P3 = coo(3, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 1, 1.0}}, 2)
    ok, msg = pcall(rap, A, P3, P3:transpose())
    assert.is_false(ok)
    assert.are.equal("solve.amg_rap: A (4x4), P (3x2) and R (2x3) must be float64 matrices of one space with P's rows = A's columns and R = P's transpose in shape",
                     tostring(msg):match("(solve%.amg_rap: .*)$"))
    ok, msg = pcall(rap, A, P, P:transpose(), 5)
    assert.is_false(ok)
    assert.are.equal("solve.amg_rap: phases must be 0 (by the size) or 1 to 4, got 5",
                     tostring(msg):match("(solve%.amg_rap: .*)$"))
    -- the VM stays usable
    rap_checked(A, P, P:transpose())
  end)

  it("the AMG setup and P:update take it on the host, with the general product's hierarchy", function()
    local launches = F.launches
    local m = 12
    local A = stencil27(m, rng(13))
    local b = speck.View("b", "float64", A:nrows())
    speck.deep_copy(b, 1.0)
    local c0 = launches("solve.amg_arena_product")
    local M = solve.amg(A, {coarse_size = 30})
    local lv = M:info().levels
    assert.is_true(#lv >= 3)
    local c1 = launches("solve.amg_arena_product")
    if A:space() == "host" then
      assert.are.equal(2 * (#lv - 1), c1 - c0)
    else
      assert.are.equal(c0, c1)
    end
    local _, info = solve.cg(A, b, {tol = 1e-8, precond = M})
    assert.are.equal("converged", info.reason)
    -- an update with the same values: the same levels, the same iterations
    M:update(A)
    if A:space() == "host" then
      assert.are.equal(4 * (#lv - 1), launches("solve.amg_arena_product") - c0)
    end
    local lv2 = M:info().levels
    for l = 1, #lv do
      assert.are.equal(lv[l].rows, lv2[l].rows)
      assert.are.equal(lv[l].nnz, lv2[l].nnz)
    end
    local _, info2 = solve.cg(A, b, {tol = 1e-8, precond = M})
    assert.are.equal(info.iters, info2.iters)
    -- new values (the same pattern): the update equals a setup from them,
    -- bit for bit on the host (the aggregates depend on the pattern only)
    local e = {}
    local rp, ci, cv = host_table(A.rowptr), host_table(A.colidx), host_table(A.values)
    for i = 0, A:nrows() - 1 do
      for q = rp[i + 1], rp[i + 2] - 1 do
        local j = ci[q + 1]
        e[#e + 1] = {i, j, cv[q + 1] * (i == j and 1.5 or 1.0 + ((i + j) % 5) / 10)}
      end
    end
    local A2 = coo(A:nrows(), e)
    M:update(A2)
    local M2 = solve.amg(A2, {coarse_size = 30})
    local x1, i1 = solve.cg(A2, b, {tol = 1e-8, precond = M})
    local x2, i2 = solve.cg(A2, b, {tol = 1e-8, precond = M2})
    assert.are.equal("converged", i1.reason)
    assert.are.equal(i2.iters, i1.iters)
    if A:space() == "host" then
      assert.are.same(host_table(x2), host_table(x1))
    else
      -- a GPU's SpGEMM sums a row's products in the order its team's
      -- atomics land in the row's hash table (spgemm.sk): the products
      -- agree to rounding, not bit for bit, where kernels share the GPU
      local h1, h2 = host_table(x1), host_table(x2)
      for k = 1, #h2 do
        assert.is_true(math.abs(h1[k] - h2[k]) <= 1e-10 * math.abs(h2[k]) + 1e-300,
                       ("x[%d]: %.17g against %.17g"):format(k - 1, h1[k], h2[k]))
      end
    end
  end)

  it("the bodies compile for the GPU target (NVRTC, compile only)", function()
    local V = function(dt, n) return speck.View("v", dt, n or 8) end
    local I = function(x) return {"int64", x} end
    local jobs = {
      {"amg_arena_bound", "range", {xrp = V("int64", 9), xci = V("int32"), yp = V("int64", 9),
                                    bnd = V("int64", 4), ys = I(1), ylo = I(0), nb = I(8), rpt = I(2)}},
      {"amg_arena_product", "team", {xrp = V("int64", 9), xci = V("int32"), xv = V("float64"),
                                     yp = V("int64", 9), yci = V("int32"), yv = V("float64"),
                                     off = V("int64", 5), cci = V("int32", 64),
                                     cv = V("float64", 64), cbe = V("int64", 16), ys = I(1),
                                     ylo = I(0), nb = I(8), rpt = I(2), sorted = I(1)}},
      {"amg_arena_count", "range", {cbe = V("int64", 16), cnt = V("int64", 9), o = I(0)}},
      {"amg_arena_copy", "range", {cbe = V("int64", 16), aci = V("int32", 64), av = V("float64", 64),
                                   crp = V("int64", 9), cci = V("int32"), cv = V("float64"), o = I(0)}},
    }
    local ok, why = F.nvrtc_solve("amgrap_gpu_", nil, jobs)
    if not ok then pending(why) end
    ok, why = F.nvrtc_solve("amgrap_gpu_red_", "range",
                            {{"amg_arena_span", {rp = V("int64", 9), ci = V("int32"), r0 = I(0)}}},
                            {pattern = "reduce", reducer = {{op = "min", dtype = "int64"},
                                                            {op = "max", dtype = "int64"}}})
    if not ok then pending(why) end
  end)
end)
