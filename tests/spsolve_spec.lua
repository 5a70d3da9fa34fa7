local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
-- spsolve_spec.lua: speck.solve.spsolve and speck.solve.lu (sparse LU with
-- static pivoting after a maximum-product matching) against SciPy's
-- scipy.sparse.linalg.spsolve (tests/direct_oracle.py, /usr/bin/python3):
-- a 2D convection-diffusion matrix, a random sparse nonsymmetric one, the
-- convection-diffusion rows shifted by one (zeros on the whole diagonal:
-- only the matching finds the pivots), a Matrix Market file read by
-- sparse.read_mm, each in AMD's and in reverse Cuthill-McKee's order;
-- the factor reused for several right-hand sides; the
-- backward error after refinement; errors naming the structurally singular
-- row and the failed static pivot, bad inputs with their exact messages,
-- the VM usable after each. The factorization runs on the host for a host
-- matrix; a float64 one in device memory takes the level-set schedule on
-- the device (tests/lu_levels_spec.lua); x comes back in A's space.
-- tests/run.sh runs it once per back end.

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local MEM = speck.View("probe", "float64", 1):space()

local FX = dofile(HERE .. "/direct_fixtures.lua")(DIR)
local sh, err_of, host, rhs, berr, rel_error = FX.sh, FX.err_of, FX.host, FX.rhs, FX.berr, FX.rel_error
local convdiff, randmat, mm_matrix = FX.convdiff, FX.randmat, FX.mm_matrix
local coo = FX.coo

local MATS = {
  {name = "convdiff", make = function() return convdiff(15) end},
  {name = "random", make = function() return randmat(300, 4) end},
  {name = "shifted", make = function() return convdiff(12, true) end},
  {name = "general", make = mm_matrix},
}

local A_OF, REF = FX.load(MATS)

describe("speck.solve.spsolve", function()
  for _, m in ipairs(MATS) do
    it("matches scipy.sparse.linalg.spsolve on " .. m.name, function()
      local A = A_OF[m.name]
      local b = rhs(A:nrows())
      local x, info = solve.spsolve(A, b)
      assert.is_true(berr(A, x, b) < 1e-14)
      assert.are.equal(A:space(), x:space())
      assert.are.equal(A:nrows(), x:extent(0))
      assert.is_true(rel_error(x, REF[m.name]) < 1e-10, m.name .. " " .. rel_error(x, REF[m.name]))
      assert.is_true(info.berr <= 1e-10)
      assert.is_true(info.steps >= 0 and info.steps <= 10)
      assert.is_true(info.nnz_L >= 0 and info.nnz_U >= 0)
      -- reverse Cuthill-McKee (the order where libamd is missing) agrees
      local xr, ir = solve.spsolve(A, b, {ordering = "rcm"})
      assert.are.equal("rcm", ir.ordering)
      assert.is_true(berr(A, xr, b) < 1e-14)
      assert.is_true(rel_error(xr, REF[m.name]) < 1e-10)
    end)
  end

  it("the shifted matrix has no nonzero on its diagonal: the matching finds the pivots", function()
    local A = A_OF.shifted
    local rp, ci = host(A.rowptr), host(A.colidx)
    for i = 0, A:nrows() - 1 do
      for p = rp(i), rp(i + 1) - 1 do assert.are_not.equal(i, ci(p)) end
    end
    local x, info = solve.spsolve(A, rhs(A:nrows()))
    assert.are.equal(0, info.static_pivots)
    assert.is_true(rel_error(x, REF.shifted) < 1e-10)
  end)

  it("a 3x3 with zeros on the diagonal, exactly", function()
    local A, b = FX.zero_diag3()
    local x = host((solve.spsolve(A, b)))
    assert.is_true(math.abs(x(0) - 1.4) < 1e-14 and math.abs(x(1) - 0.5) < 1e-14 and
                   math.abs(x(2) - 0.2) < 1e-14)
  end)

  it("duplicate entries of a CrsMatrix add up", function()
    local v = FX.vec
    -- [[1 + 1, 1], [0, 2]] with row 0's (0, 0) given twice
    local A = sparse.CrsMatrix{nrows = 2, ncols = 2, rowptr = v({0, 3, 4}, "int64"),
                               colidx = v({0, 0, 1, 1}, "int32"), values = v({1, 1, 1, 2}, "float64")}
    local x = host((solve.spsolve(A, v({3, 2}, "float64"))))
    assert.are.equal(1.0, x(0))
    assert.are.equal(1.0, x(1))
  end)

  it("solve.lu's factor serves several right-hand sides", function()
    local A = A_OF.random
    local F = solve.lu(A)
    assert.are.equal(A:nrows(), F.n)
    local info = F:info()
    assert.are.equal(A:nrows(), info.rows)
    assert.is_true(info.nnz_L > 0 and info.nnz_U > 0 and info.static_pivots == 0)
    assert.are.equal(-1, info.static_row)
    assert.truthy(tostring(F):match("^speck.solve.LU%(300 rows"))
    assert.truthy(info.ordering == "amd" or info.ordering == "rcm")
    for _, s in ipairs({1, -3, 0.5}) do
      local b = rhs(A:nrows(), s)
      local x, si = F:solve(b)
      assert.is_true(berr(A, x, b) < 1e-14)
      assert.is_true(rel_error(x, REF.random, s) < 1e-10)
      assert.is_true(si.berr <= 1e-10)
    end
    -- several right-hand sides at once: the columns of a rank-2 b
    local n = A:nrows()
    local B = FX.rhs3(n)
    local X, bi = F:solve(B)
    assert.are.equal(2, X:rank())
    assert.are.equal(n, X:extent(0))
    assert.are.equal(3, X:extent(1))
    assert.are.equal(B:space(), X:space())
    assert.is_true(bi.berr <= 1e-10)
    local Xh = host(X)
    assert.is_true(FX.rel_error3(X, REF.random) < 1e-10)
    local X2 = solve.spsolve(A, B)
    if MEM == "host" then
      assert.are.equal(Xh(7, 1), host(X2)(7, 1))
    else
      -- a device factor's atomic updates round in any order: two
      -- factorizations agree to rounding, not bit for bit
      assert.is_true(math.abs(Xh(7, 1) - host(X2)(7, 1)) <= 1e-12 * math.abs(Xh(7, 1)))
    end
    local x0 = F:solve(rhs(A:nrows()), {refine = 0})
    assert.is_true(rel_error(x0, REF.random) < 1e-8)
  end)

  it("pivots below pivtol are replaced and refinement recovers x", function()
    local A = A_OF.convdiff
    local b = rhs(A:nrows())
    local x, info = solve.spsolve(A, b, {pivtol = 0.9, refine = 30})
    assert.is_true(berr(A, x, b) < 1e-14)
    assert.is_true(info.static_pivots > 0 and info.static_row >= 0 and info.static_col >= 0)
    assert.is_true(info.steps > 1)
    assert.is_true(rel_error(x, REF.convdiff) < 1e-10)
    local e = err_of(solve.spsolve, A, rhs(A:nrows()), {pivtol = 0.9, refine = 0, ordering = "rcm"})
    assert.truthy(e:match("^speck%.solve%.spsolve: static pivoting failed: the backward error is .- > tol 1e%-10 after 0 refinement steps"), e)
  end)

  describe("errors", function()
    it("a structurally singular matrix names the unmatched row", function()
      local t = coo()
      t.add(0, 0, 1) t.add(1, 0, 2) t.add(2, 0, 3) t.add(2, 1, 1) t.add(2, 2, 1)
      local A = t.matrix(3)
      assert.are.equal("speck.solve.spsolve: A is structurally singular: the matching leaves row 0 unmatched (no augmenting path reaches column 2), so no permutation puts a nonzero on every pivot",
                       err_of(solve.spsolve, A, rhs(3)))
      assert.are.equal("speck.solve.lu: A is structurally singular: the matching leaves row 0 unmatched (no augmenting path reaches column 2), so no permutation puts a nonzero on every pivot",
                       err_of(solve.lu, A))
    end)

    -- the pivots named depend on the order: RCM's, which every host has
    it("a numerically singular matrix: the zero pivot is named, no x", function()
      local t = coo()
      t.add(0, 0, 1) t.add(0, 1, 2) t.add(1, 0, 2) t.add(1, 1, 4)
      local A = t.matrix(2)
      assert.are.equal("speck.solve.spsolve: the pivot at row 1, column 0 of A is 0 after elimination (at most 4.44089e-16, zero to working precision): A is numerically singular",
                       err_of(solve.spsolve, A, rhs(2), {ordering = "rcm"}))
      assert.are.equal("speck.solve.lu: the pivot at row 1, column 0 of A is 0 after elimination (at most 4.44089e-16, zero to working precision): A is numerically singular",
                       err_of(solve.lu, A, {ordering = "rcm"}))
      assert.truthy(err_of(solve.spsolve, A, rhs(2)):match("^speck%.solve%.spsolve: the pivot at row %d, column %d of A is 0 after elimination"))
    end)

    it("a pivot static pivoting cannot handle: refinement fails, the pivot is named, no x", function()
      local t = coo()
      t.add(0, 0, 1) t.add(0, 1, 2) t.add(1, 0, 2) t.add(1, 1, 4 + 1e-10)
      local A = t.matrix(2)
      local function vec(a, b) return FX.vec({a, b}) end
      assert.are.equal("speck.solve.spsolve: static pivoting failed: the backward error is 8.25066e-10 > tol 1e-10 after 2 refinement steps (largest residual at row 0); 1 tiny pivots were replaced, the first at row 0, column 0 of A: A is singular or too ill-conditioned for LU with static pivoting",
                       err_of(solve.spsolve, A, vec(1, 3), {ordering = "rcm"}))
      -- a small backward error is not enough: x must settle
      assert.are.equal("speck.solve.spsolve: static pivoting failed: a refinement step still moves x by 0.00335544 relative (backward error 4.99328e-12); 1 tiny pivots were replaced, the first at row 0, column 0 of A: A is singular or too ill-conditioned for LU with static pivoting",
                       err_of(solve.spsolve, A, vec(1, 2), {ordering = "rcm"}))
      assert.truthy(err_of(solve.spsolve, A, vec(1, 3)):match("^speck%.solve%.spsolve: static pivoting failed: "))
    end)

    it("bad inputs", function()
      local R = coo()
      R.add(0, 0, 1) R.add(1, 2, 1)
      local A = R.matrix(2, 3)
      assert.are.equal("speck.solve.spsolve: A is 2x3: it must be square", err_of(solve.spsolve, A, rhs(2)))
      assert.are.equal("speck.solve.lu: A is 2x3: it must be square", err_of(solve.lu, A))
      local B = A_OF.convdiff
      assert.are.equal(("speck.solve.spsolve: A has %d rows, b (view 'b') has 7"):format(B:nrows()),
                       err_of(solve.spsolve, B, rhs(7)))
      assert.are.equal("speck.solve.spsolve: b must be a view, got table", err_of(solve.spsolve, B, {1, 2}))
      assert.are.equal("speck.solve.spsolve: b must be a rank-1 or rank-2 view, got rank 3",
                       err_of(solve.spsolve, B, speck.View("b3", "float64", {2, 2, 2}, {space = MEM})))
      assert.are.equal("speck.solve.spsolve: A must be a CrsMatrix, got number", err_of(solve.spsolve, 3, rhs(2)))
      assert.are.equal("speck.solve.spsolve: pivtol 2 must be in [0, 1)",
                       err_of(solve.spsolve, B, rhs(B:nrows()), {pivtol = 2}))
      assert.are.equal("speck.solve.spsolve: ordering must be \"auto\", \"amd\" or \"rcm\", got metis",
                       err_of(solve.spsolve, B, rhs(B:nrows()), {ordering = "metis"}))
      assert.are.equal("speck.solve.spsolve: refine must be a non-negative integer, got -1",
                       err_of(solve.spsolve, B, rhs(B:nrows()), {refine = -1}))
      assert.truthy(err_of(solve.spsolve, B, rhs(B:nrows()), {pivot = 1}):match("^speck%.solve%.spsolve: .*pivot"))
      local F = solve.lu(B)
      assert.are.equal(("speck.solve.LU:solve: A has %d rows, b (view 'b') has 3"):format(B:nrows()),
                       err_of(F.solve, F, rhs(3)))
      -- the VM is usable after each
      local x = solve.spsolve(B, rhs(B:nrows()))
      assert.is_true(rel_error(x, REF.convdiff) < 1e-10)
    end)
  end)
end)
