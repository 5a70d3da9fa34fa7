-- amgsmooth_spec.lua: speck.solve.amg's Chebyshev smoothing per level: by
-- default degree 2 on [lambda_max/12, lambda_max] on the finest level and
-- degree 3 on [lambda_max/20, lambda_max] below (info().levels names
-- them); a given degree or eig_ratio holds on every level; AMG-PCG's
-- iterations on the 7-point Laplacian stay flat in the size with the
-- defaults and P:update(A) keeps the levels' smoothers. Every view lives in
-- the default space: under cuda the spec checks that the Chebyshev kernels
-- ran as device code.
local speck = require "speck"
local solve = require "speck.solve"

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

  if SPACE == "cuda" then
    it("the smoothers ran as device code", function()
      local before = device_launches("solve.cheby_step")
      local A = poisson(16)
      pcg(A, solve.amg(A))
      assert.is_true(device_launches("solve.cheby_step") > before)
    end)
  end
end)
