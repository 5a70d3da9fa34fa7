-- amgsmooth_spec.lua: speck.solve.amg's Chebyshev smoothing per level: by
-- default degree 2 on [lambda_max/12, lambda_max] on the finest level and
-- degree 3 on [lambda_max/20, lambda_max] below (info().levels names
-- them); a given degree or eig_ratio holds on every level; AMG-PCG's
-- iterations on the 7-point Laplacian stay flat in the size with the
-- defaults and P:update(A) keeps the levels' smoothers; the setup makes
-- A's compact index and value codes (CG's SpMVs then find them); the host's
-- Chebyshev step fused with its SpMV (kernels/solve/cheby.sk, in CSR,
-- with the compact index and with the value codes) against a Lua
-- recurrence, its bodies compiled for the GPU target. Every view lives in
-- the default space: under cuda the spec checks that the Chebyshev kernels
-- ran as device code.
local speck = require "speck"
local solve = require "speck.solve"
local sparse = require "speck.sparse"

local SPACE = speck.info().default_space
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo, poisson_entries, device_launches = F.coo, F.poisson_entries, F.device_launches

local function poisson(m) return coo(m * m * m, poisson_entries(m)) end

-- preconditioned CG from x = 0 to 1e-8 (b = 1): its iterations
local function pcg(A, P)
  local b = speck.View("b", "float64", A:nrows())
  speck.deep_copy(b, 1.0)
  local _, info = solve.cg(A, b, {tol = 1e-8, maxiter = 200, precond = P})
  assert.are.equal("converged", info.reason)
  return info.iters
end

describe("speck.solve.amg's smoothers per level on " .. SPACE, function()
  it("defaults: degree 2 / eig_ratio 12 on the finest level, 3 / 20 below", function()
    local P = solve.amg(poisson(16), {coarse_size = 50})
    local lv = P:info().levels
    assert.is_true(#lv >= 3)
    assert.are.equal(2, lv[1].degree)
    assert.are.equal(12, lv[1].eig_ratio)
    for l = 2, #lv - 1 do
      assert.are.equal(3, lv[l].degree)
      assert.are.equal(20, lv[l].eig_ratio)
    end
    -- the coarsest level is solved, not smoothed
    assert.is_nil(lv[#lv].degree)
  end)

  it("a given degree or eig_ratio holds on every level", function()
    local A = poisson(16)
    local lv = solve.amg(A, {coarse_size = 50, degree = 4}):info().levels
    for l = 1, #lv - 1 do
      assert.are.equal(4, lv[l].degree)
      assert.are.equal(l == 1 and 12 or 20, lv[l].eig_ratio)
    end
    lv = solve.amg(A, {coarse_size = 50, eig_ratio = 30}):info().levels
    for l = 1, #lv - 1 do
      assert.are.equal(l == 1 and 2 or 3, lv[l].degree)
      assert.are.equal(30, lv[l].eig_ratio)
    end
  end)

  it("AMG-PCG on the 7-point Laplacian: iterations flat in the size, update keeps them", function()
    local its = {}
    for _, m in ipairs{12, 24, 36} do
      its[#its + 1] = pcg(poisson(m), solve.amg(poisson(m)))
    end
    assert.is_true(its[1] <= 12 and its[3] <= its[1] + 2,
                   ("AMG-PCG iterations %d, %d, %d"):format(its[1], its[2], its[3]))
    local A = poisson(20)
    local P = solve.amg(A)
    local k0 = pcg(A, P)
    P:update(A)
    assert.are.equal(2, P:info().levels[1].degree)
    assert.is_true(math.abs(pcg(A, P) - k0) <= 1)
  end)

  it("the setup makes A's compact index and value codes (the memos CG's SpMVs read)", function()
    -- A with a stored zero in each row: its finest level is another matrix
    local e = poisson_entries(12)
    for i = 0, 12 * 12 * 12 - 3, 2 do e[#e + 1] = {i, i + 2, 0.0}; e[#e + 1] = {i + 2, i, 0.0} end
    local A = coo(12 * 12 * 12, e)
    local made = dofile(HERE .. "/csr_fixtures.lua").launches
    local P = solve.amg(A)
    assert.is_true(P:info().zeros_dropped > 0)
    -- the first SpMV with A reads them (a matrix new to sparse.spmv gets its
    -- index at the third, its codes at the sixth)
    local coded = (SPACE == "serial" or SPACE == "openmp" or SPACE == "host")
      and "sparse.spmv16v" or "sparse.spmv16v_team"
    local x = speck.View("x", "float64", A:nrows())
    local y = speck.View("y", "float64", A:nrows())
    speck.deep_copy(x, 1.0)
    local dia = dofile(HERE .. "/csr_fixtures.lua").DIA -- or by diagonals (dia.c)
    local before = made(coded, dia[1], dia[2])
    sparse.spmv("N", 1.0, A, x, 0.0, y)
    assert.are.equal(before + 1, made(coded, dia[1], dia[2]))
    assert.is_true(pcg(A, P) <= 12)
  end)

  it("the host's fused Chebyshev step: the same iterations as the unfused steps", function()
    -- degree 4 on every level: three fused steps a call on the host (the
    -- iterate alternates between the work vector and z); the device runs
    -- the unfused steps. Against a Lua Chebyshev of the same bounds.
    local A = poisson(10)
    local n = A:nrows()
    local C = solve.chebyshev(A, {degree = 4, lambda_max = 2.2, eig_ratio = 20})
    local r = speck.View("r", "float64", n)
    speck.parallel_for("amgsmooth_r", n, {r = r}, "r(i) = 1.0 + (double)(i % 7) / 8.0;")
    local z = C(r)
    -- the reference: Saad's recurrence with D = 6 I, on the host
    local rt, zt = F.host_table(r), F.host_table(z)
    local rows = {}
    for _, e in ipairs(poisson_entries(10)) do
      local i = e[1] + 1
      rows[i] = rows[i] or {}
      table.insert(rows[i], {e[2] + 1, e[3]})
    end
    local lmax, lmin = 2.2, 2.2 / 20
    local theta, delta = (lmax + lmin) / 2, (lmax - lmin) / 2
    local sigma = theta / delta
    local rho = 1 / sigma
    local d, x = {}, {}
    for i = 1, n do d[i] = rt[i] / 6 / theta; x[i] = d[i] end
    for _ = 2, 4 do
      local rn = 1 / (2 * sigma - rho)
      local w = {}
      for i = 1, n do
        local s = 0
        for _, e in ipairs(rows[i]) do s = s + e[2] * x[e[1]] end
        w[i] = s
      end
      for i = 1, n do
        d[i] = rn * rho * d[i] + 2 * rn / delta * (rt[i] - w[i]) / 6
        x[i] = x[i] + d[i]
      end
      rho = rn
    end
    for i = 1, n do
      assert.is_true(math.abs(zt[i] - x[i]) <= 1e-12 * (1 + math.abs(x[i])),
                     ("row %d: %.17g, reference %.17g"):format(i - 1, zt[i], x[i]))
    end
  end)

  it("the fused bodies compile for the GPU target (NVRTC, compile only)", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then
      pending("NVRTC unavailable: " .. tostring(nv and nv.reason))
      return
    end
    local core = require "speck.core"
    local CH = {cheby_fused = core.kernel_text("solve_cheby_fused"),
                cheby_fused16 = core.kernel_text("solve_cheby_fused16"),
                cheby_fused16v = core.kernel_text("solve_cheby_fused16v")}
    local V = function(dt, n) return speck.View("v", dt, n or 8) end
    local I = function(x) return {"int64", x} end
    local F64 = function(x) return {"float64", x} end
    local vecs = function(t)
      for _, k in ipairs{"z", "zn", "d", "rv", "dinv"} do t[k] = V("float64") end
      t.nchunk, t.c1, t.c2 = I(1), F64(0.5), F64(0.5)
      return t
    end
    local jobs = {
      {"cheby_fused", vecs{rowptr = V("int64", 9), colidx = V("int32"), values = V("float64")}},
      {"cheby_fused16", vecs{rowptr = V("int32", 9), off = V("int16"), values = V("float64")}},
      {"cheby_fused16v", vecs{rowptr = V("int32", 9), off = V("int16"), vcode = V("uint8"),
                              vtab = V("float64", 4)}},
    }
    for _, j in ipairs(jobs) do
      assert.is_string(CH[j[1]], j[1])
      -- (a user kernel holds no directives: the merge-path split's macro,
      -- the prelude the library gives the body, is replaced by a row a run)
      local text = CH[j[1]]:gsub("SK_ROW_SPLIT%b();", "rb = i; re = i + 1 < nr ? i + 1 : nr;")
      assert.is_nil(text:find("#", 1, true))
      speck.kernel("amgsmooth_gpu_" .. j[1], "range", j[2], text, {target = "cuda"})
    end
    F.assert_nvrtc("amgsmooth_gpu_", jobs)
  end)

  if SPACE == "cuda" then
    it("the smoothers ran as device code", function()
      local before = device_launches("solve.cheby_step")
      local A = poisson(16)
      pcg(A, solve.amg(A))
      assert.is_true(device_launches("solve.cheby_step") > before)
    end)
  end
end)
