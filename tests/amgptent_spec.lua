-- amgptent_spec.lua: speck.solve.amg's prolongator smoothing for a
-- tentative prolongator of one entry a row (solve.amg_smooth,
-- kernels/solve/amg.c and amg.sk): P = (I - omega D^-1 A) P_t against
-- sparse.spgemm_jacobi's general product (on the host bit for bit: the
-- same operations in the same order), rows of P_t without an entry
-- (dropped aggregates), a long row of A, the cases it hands back to the
-- general product (a row of P_t with two entries, a zero diagonal; off
-- the host, always), a P of the wrong size refused, the AMG setup on the
-- host taking it, and its bodies compiled for the GPU target.
local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
local core = require "speck.core"

local SPACE = speck.info().default_space
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo, host_table, rng, stencil27 = F.coo, F.host_table, F.rng, F.stencil27

-- P_t: row i -> aggregate lab[i] (0-based; -1: no entry) with value c_i
local function tentative(n, lab, nagg, r)
  local e = {}
  for i = 0, n - 1 do
    if lab[i] >= 0 then e[#e + 1] = {i, lab[i], 0.1 + r()} end
  end
  return coo(n, e, nagg)
end

local function smooth(omega, A, P)
  local _, o = core.call("solve.amg_smooth",
                         sparse._margs(sparse._margs({omega = omega}, "A", A), "P", P))
  return o
end

describe("speck.solve.amg's prolongator smoothing of a one-entry-a-row P on " .. SPACE, function()
  it("equals sparse.spgemm_jacobi's (bit for bit on the host)", function()
    local r = rng(7)
    local m = 7
    local n = m * m * m
    local A = stencil27(m, r)
    -- aggregates of 2x2x2 blocks, a few rows left without one
    local lab, nagg = {}, 0
    local ids = {}
    for z = 0, m - 1 do for y = 0, m - 1 do for x = 0, m - 1 do
      local key = (x // 2) + 4 * ((y // 2) + 4 * (z // 2))
      if not ids[key] then ids[key] = nagg; nagg = nagg + 1 end
      local i = x + m * (y + m * z)
      lab[i] = (i % 37 == 5) and -1 or ids[key]
    end end end
    local Pt = tentative(n, lab, nagg, r)
    local omega = 4 / 3 / 1.7
    local o = smooth(omega, A, Pt)
    if A:space() ~= "host" then
      assert.are.equal(1, o.general)
      return
    end
    assert.is_nil(o.general)
    local G = sparse.spgemm_jacobi(omega, A, Pt)
    local rp, ci, cv = host_table(o.C_rowptr), host_table(o.C_colidx), host_table(o.C_values)
    local grp, gci, gcv = host_table(G.rowptr), host_table(G.colidx), host_table(G.values)
    assert.are.same(grp, rp)
    assert.are.same(gci, ci)
    assert.are.equal(#gcv, #cv)
    local differ = 0
    for q = 1, #cv do
      if cv[q] ~= gcv[q] then differ = differ + 1 end
    end
    assert.are.equal(0, differ)
    -- a row without an entry in P_t still has the smoothed entries of its
    -- neighbours' aggregates
    assert.is_true(rp[6] > rp[5])
  end)

  it("takes a long row of A; hands back to the general product two entries in a row of P_t, a zero diagonal", function()
    -- row 0 of A: 100 entries (the diagonal and 99 others)
    local n = 120
    local e = {}
    for i = 0, n - 1 do e[#e + 1] = {i, i, 200.0} end
    for j = 1, 99 do e[#e + 1] = {0, j, -1.0 - j / 7}; e[#e + 1] = {j, 0, -1.0 - j / 7} end
    local lab = {}
    for i = 0, n - 1 do lab[i] = i // 5 end
    local r = rng(3)
    local Pt = tentative(n, lab, 24, r)
    local A = coo(n, e)
    local o = smooth(0.5, A, Pt)
    if A:space() ~= "host" then
      assert.are.equal(1, o.general)
      return
    end
    assert.is_nil(o.general)
    local G = sparse.spgemm_jacobi(0.5, A, Pt)
    assert.are.same(host_table(G.rowptr), host_table(o.C_rowptr))
    assert.are.same(host_table(G.colidx), host_table(o.C_colidx))
    assert.are.same(host_table(G.values), host_table(o.C_values))
    -- P_t with two entries in row 3
    local pe = {{3, 1, 1.0}}
    for i = 0, n - 1 do pe[#pe + 1] = {i, lab[i], 1.0} end
    assert.are.equal(1, smooth(0.5, A, coo(n, pe, 24)).general)
    -- a zero diagonal in row 4
    local e3 = {}
    for i = 0, n - 1 do e3[#e3 + 1] = {i, i, i == 4 and 0.0 or 2.0} end
    e3[#e3 + 1] = {4, 5, -1.0}
    e3[#e3 + 1] = {5, 4, -1.0}
    assert.are.equal(1, smooth(0.5, coo(n, e3), Pt).general)
  end)

  it("refuses a P whose rows are not A's columns", function()
    local A = coo(4, {{0, 0, 2.0}, {1, 1, 2.0}, {2, 2, 2.0}, {3, 3, 2.0}})
    local P = coo(3, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 1, 1.0}}, 2)
    local ok, msg = pcall(smooth, 0.5, A, P)
    assert.is_false(ok)
    assert.are.equal("solve.amg_smooth: P (3x2, float64) must have as many rows as A (4x4) has columns and live in its space",
                     tostring(msg):match("(solve%.amg_smooth: .*)$"))
    -- the VM stays usable
    local o = smooth(0.5, A, coo(4, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 1, 1.0}, {3, 1, 1.0}}, 2))
    assert.are.equal(A:space() == "host" and 0 or 1, o.general or 0)
  end)

  it("the AMG setup takes it on the host with one near-null vector, the general product with more", function()
    local launches = F.launches
    local A = stencil27(8, rng(11))
    local b0 = launches("solve.amg_smooth_fill")
    local P = solve.amg(A, {coarse_size = 20})
    assert.is_true(#P:info().levels >= 2)
    if A:space() == "host" then
      assert.is_true(launches("solve.amg_smooth_fill") > b0)
    else
      assert.are.equal(b0, launches("solve.amg_smooth_fill"))
    end
    -- two near-null vectors (block_size 2's constant a component): two
    -- entries a row of P_t, never this kernel
    local b1 = launches("solve.amg_smooth_fill")
    local Q = solve.amg(A, {coarse_size = 40, block_size = 2})
    assert.are.equal(2, Q:info().nullspace_dim)
    assert.is_true(#Q:info().levels >= 2)
    assert.are.equal(b1, launches("solve.amg_smooth_fill"))
  end)

  it("the bodies compile for the GPU target (NVRTC, compile only)", function()
    local V = function(dt, n) return speck.View("v", dt, n or 8) end
    local I = function(x) return {"int64", x} end
    local jobs = {
      {"amg_smooth_count", {rowptr = V("int64", 9), colidx = V("int32"), prp = V("int64", 9),
                            pci = V("int32"), cnt = V("int64", 9), bad = V("int64", 1),
                            nb = I(8), rpt = I(2)}},
      {"amg_smooth_fill", {rowptr = V("int64", 9), colidx = V("int32"), values = V("float64"),
                           prp = V("int64", 9), pci = V("int32"), pv = V("float64"),
                           crp = V("int64", 9), cci = V("int32"), cv = V("float64"),
                           bad = V("int64", 1), nb = I(8), rpt = I(2),
                           omega = {"float64", 0.5}}},
    }
    local ok, why = F.nvrtc_solve("amgptent_gpu_", "team", jobs)
    if not ok then pending(why) end
  end)
end)
