local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
-- lu_levels_spec.lua: speck.solve.lu and spsolve on the level-set schedule
-- (kernels/solve/lu_ls.c: the numeric phase, the factor, the triangular
-- solves and the refinement on the active back end, in A's space; the
-- matching, the ordering and the symbolic phase on the host) against
-- SciPy's scipy.sparse.linalg.spsolve (tests/direct_oracle.py,
-- /usr/bin/python3 or SPECK_PYTHON): spsolve_spec's nonsymmetric matrices
-- (2D convection-diffusion, a random sparse one, the convection-diffusion
-- rows shifted so that no entry is on the diagonal -- only the matching
-- finds the pivots --, a Matrix Market file with zeros on its diagonal)
-- and a 3D convection-diffusion matrix whose supernodes are wide enough to
-- be blocked and whose updates go through gemm. On the host back ends the
-- schedule is asked for and agrees with the host's column LU; on a GPU it
-- is the default of a float64 A in device memory, and the factorization
-- and the solves must have launched device kernels (speck.jit.stats()).
-- Static pivots are replaced and refinement recovers x; a pivot static
-- pivoting cannot handle is an error naming it, never an x; bad options
-- name what is wrong, and the VM stays usable.

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local MEM = speck.View("probe", "float64", 1):space()
local HOST = MEM == "host"
-- the level-set schedule: asked for on the host, a device A's default
local function lv(extra)
  local o = HOST and {schedule = "levels"} or {}
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

local FX = dofile(HERE .. "/direct_fixtures.lua")(DIR)
local err_of, host, rhs, berr, rel_error = FX.err_of, FX.host, FX.rhs, FX.berr, FX.rel_error
local convdiff, convdiff3, randmat, mm_matrix = FX.convdiff, FX.convdiff3, FX.randmat, FX.mm_matrix
local coo = FX.coo

local MATS = {
  {name = "convdiff", make = function() return convdiff(15) end},
  {name = "random", make = function() return randmat(300, 4) end},
  {name = "shifted", make = function() return convdiff(12, true) end},
  {name = "general", make = mm_matrix},
  {name = "convdiff3", make = function() return convdiff3(11) end},
}

local A_OF, REF = FX.load(MATS)

describe("speck.solve.lu on the level-set schedule", function()
  for _, m in ipairs(MATS) do
    it("matches scipy.sparse.linalg.spsolve on " .. m.name, function()
      local A = A_OF[m.name]
      local b = rhs(A:nrows())
      local F = solve.lu(A, lv())
      local info = F:info()
      assert.are.equal("levels", info.schedule)
      assert.are.equal(A:space(), info.space)
      assert.is_true(info.levels >= 1 and info.supernodes >= 1 and info.supernodes <= A:nrows())
      assert.is_true(info.nnz_L >= 0 and info.nnz_U >= A:nrows())
      assert.is_true(info.symbolic_seconds >= 0 and info.numeric_seconds >= 0)
      assert.are.equal(0, info.static_pivots)
      assert.are.equal(-1, info.static_row)
      local x, si = F:solve(b)
      assert.are.equal(A:space(), x:space())
      assert.are.equal(A:nrows(), x:extent(0))
      assert.is_true(berr(A, x, b) < 1e-14, m.name .. " " .. berr(A, x, b))
      assert.is_true(rel_error(x, REF[m.name]) < 1e-10, m.name .. " " .. rel_error(x, REF[m.name]))
      assert.is_true(si.berr <= 1e-10 and si.steps >= 0 and si.steps <= 10)
      assert.is_true(si.solve_seconds >= 0)
      -- spsolve takes the schedule too; RCM's order agrees
      local x2, i2 = solve.spsolve(A, b, lv({ordering = "rcm"}))
      assert.are.equal("levels", i2.schedule)
      assert.are.equal("rcm", i2.ordering)
      assert.is_true(rel_error(x2, REF[m.name]) < 1e-10)
      if HOST then
        -- the host's column LU gives the same x
        local xc, ic = solve.spsolve(A, b, {schedule = "columns"})
        assert.are.equal("columns", ic.schedule)
        local xh, ch, d = host(x), host(xc), 0
        for i = 0, A:nrows() - 1 do d = math.max(d, math.abs(xh(i) - ch(i))) end
        assert.is_true(d < 1e-10, m.name .. " " .. d)
      end
    end)
  end

  it("the updates by gemm and by one launch a level give the same factor", function()
    local A = A_OF.convdiff3
    local b = rhs(A:nrows())
    local Fg = solve.lu(A, lv({gemm_min = 1}))
    local Fs = solve.lu(A, lv({gemm_min = 1 << 40}))
    assert.is_true(Fg:info().gemm_updates > 0)
    assert.are.equal(0, Fs:info().gemm_updates)
    assert.are.equal(Fg:info().nnz_L, Fs:info().nnz_L)
    -- no refinement: the factors alone
    local xg = Fg:solve(b, {refine = 0})
    local xs = Fs:solve(b, {refine = 0})
    assert.is_true(rel_error(xg, REF.convdiff3) < 1e-11)
    assert.is_true(rel_error(xs, REF.convdiff3) < 1e-11)
    assert.is_true(berr(A, xg, b) < 1e-14 and berr(A, xs, b) < 1e-14)
  end)

  it("the shifted matrix has no nonzero on its diagonal: the matching finds the pivots", function()
    local A = A_OF.shifted
    local rp, ci = host(A.rowptr), host(A.colidx)
    for i = 0, A:nrows() - 1 do
      for p = rp(i), rp(i + 1) - 1 do assert.are_not.equal(i, ci(p)) end
    end
    local x, info = solve.spsolve(A, rhs(A:nrows()), lv())
    assert.are.equal("levels", info.schedule)
    assert.are.equal(0, info.static_pivots)
    assert.is_true(rel_error(x, REF.shifted) < 1e-10)
  end)

  it("a 3x3 with zeros on the diagonal, exactly", function()
    local A, b = FX.zero_diag3()
    local x = host((solve.spsolve(A, b, lv())))
    assert.is_true(math.abs(x(0) - 1.4) < 1e-14 and math.abs(x(1) - 0.5) < 1e-14 and
                   math.abs(x(2) - 0.2) < 1e-14)
  end)

  it("the factor serves several right-hand sides, rank-1 and rank-2", function()
    local A = A_OF.random
    local F = solve.lu(A, lv())
    assert.truthy(tostring(F):match("^speck.solve.LU%(300 rows"))
    for _, s in ipairs({1, -3, 0.5}) do
      local b = rhs(A:nrows(), s)
      local x = F:solve(b)
      assert.is_true(berr(A, x, b) < 1e-14)
      assert.is_true(rel_error(x, REF.random, s) < 1e-10)
    end
    local B = FX.rhs3(A:nrows())
    local X, bi = F:solve(B)
    assert.are.equal(2, X:rank())
    assert.are.equal(B:space(), X:space())
    assert.is_true(bi.berr <= 1e-10 and bi.solve_seconds >= 0)
    assert.is_true(FX.rel_error3(X, REF.random) < 1e-10)
  end)

  it("pivots below pivtol are replaced and refinement recovers x", function()
    local A = A_OF.convdiff
    local b = rhs(A:nrows())
    local x, info = solve.spsolve(A, b, lv({pivtol = 0.9, refine = 30}))
    assert.is_true(berr(A, x, b) < 1e-14)
    assert.is_true(info.static_pivots > 0 and info.static_row >= 0 and info.static_col >= 0)
    assert.is_true(info.steps > 1)
    assert.is_true(rel_error(x, REF.convdiff) < 1e-10)
    local e = err_of(solve.spsolve, A, rhs(A:nrows()), lv({pivtol = 0.9, refine = 0, ordering = "rcm"}))
    assert.truthy(e:match("^speck%.solve%.spsolve: static pivoting failed: the backward error is .- > tol 1e%-10 after 0 refinement steps %(largest residual at row %d+%); %d+ tiny pivots were replaced, the first at row %d+, column %d+ of A"), e)
  end)

  describe("errors", function()
    it("a structurally singular matrix names the unmatched row", function()
      local t = coo()
      t.add(0, 0, 1) t.add(1, 0, 2) t.add(2, 0, 3) t.add(2, 1, 1) t.add(2, 2, 1)
      local A = t.matrix(3)
      assert.are.equal("speck.solve.lu: A is structurally singular: the matching leaves row 0 unmatched (no augmenting path reaches column 2), so no permutation puts a nonzero on every pivot",
                       err_of(solve.lu, A, lv()))
    end)

    it("a numerically singular matrix: the zero pivot is named, no factor", function()
      local t = coo()
      t.add(0, 0, 1) t.add(0, 1, 2) t.add(1, 0, 2) t.add(1, 1, 4)
      local A = t.matrix(2)
      assert.are.equal("speck.solve.lu: the pivot at row 1, column 0 of A is 0 after elimination (at most 4.44089e-16, zero to working precision): A is numerically singular",
                       err_of(solve.lu, A, lv({ordering = "rcm"})))
      assert.truthy(err_of(solve.spsolve, A, rhs(2), lv()):match("^speck%.solve%.spsolve: the pivot at row %d, column %d of A is 0 after elimination"))
    end)

    it("a pivot static pivoting cannot handle: refinement fails, the pivot is named, no x", function()
      local t = coo()
      t.add(0, 0, 1) t.add(0, 1, 2) t.add(1, 0, 2) t.add(1, 1, 4 + 1e-10)
      local A = t.matrix(2)
      local function vec(a, b) return FX.vec({a, b}) end
      assert.are.equal("speck.solve.spsolve: static pivoting failed: the backward error is 8.25066e-10 > tol 1e-10 after 2 refinement steps (largest residual at row 0); 1 tiny pivots were replaced, the first at row 0, column 0 of A: A is singular or too ill-conditioned for LU with static pivoting",
                       err_of(solve.spsolve, A, vec(1, 3), lv({ordering = "rcm"})))
      assert.are.equal("speck.solve.spsolve: static pivoting failed: a refinement step still moves x by 0.00335544 relative (backward error 4.99328e-12); 1 tiny pivots were replaced, the first at row 0, column 0 of A: A is singular or too ill-conditioned for LU with static pivoting",
                       err_of(solve.spsolve, A, vec(1, 2), lv({ordering = "rcm"})))
    end)

    it("bad options", function()
      local A = A_OF.convdiff
      assert.are.equal("speck.solve.lu: schedule must be \"columns\" or \"levels\", got dag",
                       err_of(solve.lu, A, {schedule = "dag"}))
      assert.are.equal("speck.solve.lu: gemm_min must be a positive integer, got 0",
                       err_of(solve.lu, A, lv({gemm_min = 0})))
      assert.are.equal("speck.solve.spsolve: gemm_min must be a positive integer, got 1.5",
                       err_of(solve.spsolve, A, rhs(A:nrows()), lv({gemm_min = 1.5})))
      assert.are.equal("speck.solve.lu: gemm_min is an option of the level-set schedule: schedule must be \"levels\"",
                       err_of(solve.lu, A, {schedule = "columns", gemm_min = 8}))
      local F = solve.lu(A, lv())
      assert.are.equal(("speck.solve.LU:solve: A has %d rows, b (view 'b') has 3"):format(A:nrows()),
                       err_of(F.solve, F, rhs(3)))
      if not HOST then
        -- the level-set schedule runs where the back end's kernels reach
        -- (A:to copies into new host views: a mirror of managed memory may
        -- be the view itself, and CrsMatrix{} checks its views where the
        -- back end runs)
        local Ah = A:to("host")
        assert.are.equal("host", Ah:space())
        local e = err_of(solve.lu, Ah, {schedule = "levels"})
        assert.truthy(e:match("^speck%.solve%.lu: the level%-set schedule runs on the active back end: A must be in its space '[%w_]+', got 'host'$"), e)
      end
      -- the VM is usable after each
      local x = solve.spsolve(A, rhs(A:nrows()), lv())
      assert.is_true(rel_error(x, REF.convdiff) < 1e-10)
    end)
  end)
end)

describe("speck.solve.lu on a GPU", function()
  it("factors and solves with device kernels", function()
    if HOST then
      pending("the device check runs under SPECK_SPACES=cuda")
      return
    end
    local A = A_OF.convdiff3
    local F = solve.lu(A)
    assert.are.equal("levels", F:info().schedule)
    local b = rhs(A:nrows())
    local x = F:solve(b)
    assert.is_true(rel_error(x, REF.convdiff3) < 1e-10)
    local Fg = solve.lu(A, {gemm_min = 1})
    Fg:solve(b)
    local seen = {}
    for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
      if k.tier == "nvrtc" and k.launches > 0 then seen[k.label] = true end
    end
    for _, l in ipairs{"solve.lu_ls_assemble", "solve.lu_ls_small", "solve.lu_ls_scatter",
                       "solve.lu_ls_panel", "solve.lu_ls_gather", "solve.lu_ls_fdiag",
                       "solve.lu_ls_fbelow", "solve.lu_ls_bbelow", "solve.lu_ls_bdiag",
                       "solve.lu_ls_unperm", "solve.lu_ls_resid", "solve.lu_ls_anorm"} do
      assert.is_true(seen[l] == true, l .. " did not run as a device kernel")
    end
  end)
end)
