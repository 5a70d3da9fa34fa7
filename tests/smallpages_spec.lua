-- smallpages_spec.lua: the host's small-page scopes (core.host_small_pages,
-- backends/host/host.c): opened and closed in nesting order, the depth
-- never below 0, a bad delta refused; speck.solve.amg builds its levels
-- and P:update(A) recomputes them inside one, and closes it on the way
-- out, an error included (its message unchanged). The scope is a host thread's hint: on a device back end it still
-- nests and closes the same way (its views are device memory, which it
-- does not touch), and under cuda the spec checks that the setup's SpGEMM
-- ran as device code.
local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
local core = require "speck.core"

local SPACE = speck.info().default_space
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo, poisson_entries, device_launches = F.coo, F.poisson_entries, F.device_launches

local function depth() return core.host_small_pages(0) end

-- the depth seen by every sparse.spgemm_numeric call 'fn' makes, and by
-- every solve.amg_rap (the host's Galerkin product, which replaces them)
local function depths_in_spgemm(fn)
  local seen, orig, ocall = {}, sparse.spgemm_numeric, core.call
  sparse.spgemm_numeric = function(...)
    seen[#seen + 1] = depth()
    return orig(...)
  end
  core.call = function(name, ...)
    if name == "solve.amg_rap" then seen[#seen + 1] = depth() end
    return ocall(name, ...)
  end
  local ok, e = pcall(fn)
  sparse.spgemm_numeric, core.call = orig, ocall
  assert(ok, e)
  return seen
end

describe("small-page scopes on " .. SPACE, function()
  it("nest, give their depth back and never go below 0", function()
    assert.are.equal(0, depth())
    assert.are.equal(1, core.host_small_pages(1))
    assert.are.equal(2, core.host_small_pages(1))
    assert.are.equal(2, depth())
    assert.are.equal(1, core.host_small_pages(-1))
    assert.are.equal(0, core.host_small_pages(-1))
    assert.are.equal(0, core.host_small_pages(-1))
    assert.are.equal(0, depth())
  end)

  it("refuses a delta other than -1, 0 or 1", function()
    local ok, e = pcall(core.host_small_pages, 2)
    assert.is_false(ok)
    assert.are.equal("speck.core.host_small_pages: delta must be -1 (close), 0 (the depth) or 1 (open), got 2",
                     (tostring(e):gsub("^[^:]*:%d+: ", "")))
    assert.is_false((pcall(core.host_small_pages, "x")))
    assert.are.equal(0, depth())
  end)

  it("hold the AMG setup and its update, and are closed after them", function()
    local A = coo(512, poisson_entries(8))
    local P
    local seen = depths_in_spgemm(function() P = solve.amg(A, {coarse_size = 20}) end)
    assert.is_true(#seen >= (SPACE == "cuda" and 2 or 1))
    for _, d in ipairs(seen) do assert.are.equal(1, d) end
    assert.are.equal(0, depth())
    local upd = depths_in_spgemm(function() P:update(A) end)
    assert.are.equal(#seen, #upd)
    for _, d in ipairs(upd) do assert.are.equal(1, d) end
    assert.are.equal(0, depth())
    -- inside a scope of the caller's: one deeper, the caller's left open
    core.host_small_pages(1)
    local nested = depths_in_spgemm(function() solve.amg(A, {coarse_size = 20}) end)
    for _, d in ipairs(nested) do assert.are.equal(2, d) end
    assert.are.equal(1, depth())
    core.host_small_pages(-1)
    -- CG converges with the preconditioner built inside the scope
    local b = speck.View("b", "float64", 512)
    speck.deep_copy(b, 1.0)
    local _, info = solve.cg(A, b, {tol = 1e-8, maxiter = 100, precond = P})
    assert.are.equal("converged", info.reason)
    if SPACE == "cuda" then
      assert.is_true(device_launches("sparse.spgemm_numeric") > 0, "no device SpGEMM")
    end
  end)

  it("are closed when the setup fails, its message unchanged", function()
    local e = {{0, 0, 4.0}, {1, 1, 4.0}, {0, 1, -1.0}, {1, 0, -2.0}}
    local M = coo(2, e)
    local ok, msg = pcall(function() return solve.amg(M) end)
    assert.is_false(ok)
    assert.are.equal("speck.solve.amg: A is not symmetric (sum of |a_ij - a_ji| / sum of |a_ij| = 0.182): smoothed aggregation needs a symmetric matrix",
                     msg)
    assert.are.equal(0, depth())
  end)
end)
