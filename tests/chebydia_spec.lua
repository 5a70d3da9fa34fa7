local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
-- chebydia_spec.lua: the Chebyshev smoother and its eigenvalue bound by
-- diagonals (kernels/sparse/dia.c's dia_cheby / dia_cheby_first bodies,
-- called by kernels/solve/cheby.c where the matrix has the diagonal form):
-- on the host the step adds a row's entries into cheby.c's four partial
-- sums in the CSR order (entry j into s(j % 4), the last m % 4 into s0) and
-- the power step's SpMV is sparse.spmv's by diagonals, so z, lambda_max
-- and a whole AMG-PCG solve are the CSR paths' bit for bit -- against the
-- matrix's plain copy (arrays exposed: plain CSR, the same fused sums) and,
-- in a child process, against SPECK_SPARSE_NODIA=1 (the coded CSR). A
-- device keeps its path (sparse.spmv by diagonals, then cheby_step).

local SPACE = speck.info().default_space
local HOST = SPACE == "serial" or SPACE == "openmp" or SPACE == "host"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/csr_fixtures.lua")
local launches, plain_copy, vec = F.launches, F.plain_copy, F.vec
local CHEBY_DIA = {"solve.cheby_dia_first", "solve.cheby_dia"}

-- the stencil matrices (csr_fixtures' F.box and F.points; with 'vary'
-- the rows z = 0 scaled by 1.5: some diagonals of two values, read from
-- the table, not as a constant)
local function box(gx, gy, gz, pts, diag, vary)
  return F.box(gx, gy, gz, pts, diag, {vary = vary})
end
local points = F.points
local P5, P7, P27 = points(2, false), points(3, false), points(3, true)

local function agree(a, b)
  if HOST then
    F.same_bits(a, b)
  else
    F.close(a, b, 1e-12)
  end
end

-- z = M r for the Chebyshev smoother of A (degree 'deg'), its lambda_max
local function cheby(A, deg, r)
  local P = solve.chebyshev(A, {degree = deg, eig_ratio = 12})
  local z = vec(A:nrows(), "float64", 7)
  P:apply(r, z)
  return z, P:info().lambda_max
end

local CASES = {
  {"7-point 30 x 30 x 30", 30, 30, 30, P7, 7.0},
  {"7-point 9 x 8 x 7", 9, 8, 7, P7, 7.0},
  {"27-point 20 x 20 x 20", 20, 20, 20, P27, 33.0},
  {"27-point 11 x 7 x 5, two-valued diagonals", 11, 7, 5, P27, 33.0, true},
  {"5-point 70 x 40, two-valued diagonals", 70, 40, 1, P5, 5.0, true},
}

describe("speck.solve.chebyshev by diagonals on " .. SPACE, function()
  for _, c in ipairs(CASES) do
    it(c[1] .. ": z and lambda_max, degrees 1-4, the CSR results", function()
      local A = box(c[2], c[3], c[4], c[5], c[6], c[7])
      local B = plain_copy(A)
      local n = A:nrows()
      local r = vec(n, "float64", 3)
      -- a few calls first (the memos: compact index, value codes, the form)
      for _ = 1, 3 do sparse.spmv("N", 1.0, A, r, 0.0, vec(n, "float64", 1)) end
      for deg = 1, 4 do
        local before, steps = launches(table.unpack(CHEBY_DIA)), launches("solve.cheby_step")
        local z, lam = cheby(A, deg, r)
        local zr, lamr = cheby(B, deg, r)
        agree(z, zr)
        if HOST then
          assert.are.equal(lamr, lam)
        else
          assert.is_true(math.abs(lam - lamr) <= 1e-12 * lamr)
        end
        if deg > 1 then
          if HOST then -- the form's steps ran: the first two in one launch, then one a step
            assert.are.equal(before + deg - 1, launches(table.unpack(CHEBY_DIA)))
          else -- a device's path: its steps
            assert.is_true(launches("solve.cheby_step") >= steps + 2 * (deg - 1))
          end
        end
      end
    end)
  end

  it("r with Inf, -Inf, NaN and -0.0: the CSR results", function()
    local A = box(24, 23, 22, P7, 7.0)
    local B = plain_copy(A)
    local n = A:nrows()
    local r = vec(n, "float64", 3)
    r[0], r[n - 1], r[5000], r[n // 2] = math.huge, -math.huge, 0 / 0, math.huge
    for i = 600, 700 do r[i] = -0.0 end
    for deg = 2, 3 do
      local z, zr = cheby(A, deg, r), cheby(B, deg, r)
      agree(z, zr)
    end
    -- r all -0.0: every term -0.0 times a value
    local m = vec(n, "float64", 1)
    m:fill(-0.0)
    agree(cheby(A, 2, m), cheby(B, 2, m))
  end)

  it("values written after the form was made: the smoother follows them", function()
    local A = box(16, 15, 14, P7, 7.0)
    local n = A:nrows()
    local r = vec(n, "float64", 3)
    local z1 = cheby(A, 2, r)
    speck.parallel_for("chebydia.scale", A.values:extent(0), {v = A.values},
                       "v(i) = 2.0 * v(i);")
    local z2, lam2 = cheby(A, 2, r)
    local zr, lamr = cheby(plain_copy(A), 2, r)
    agree(z2, zr)
    if HOST then assert.are.equal(lamr, lam2) end
    -- twice the matrix: half the smoother's output
    for i = 0, n - 1, 97 do
      assert.is_true(math.abs(z2[i] - 0.5 * z1[i]) <= 1e-12 * (1 + math.abs(z1[i])))
    end
  end)
end)

describe("diagonals of two values on " .. SPACE, function()
  -- a diagonal whose entries have two codes (kernels/sparse/dia.c: on the
  -- host picked by a compare, not a table load): rows z = 0 scaled, and a
  -- boundary's couplings stored as zeros (miniFE's matrix)
  local function zeros_box(g)
    local function bnd(x, y, z)
      return x == 0 or y == 0 or z == 0 or x == g - 1 or y == g - 1 or z == g - 1
    end
    return F.box(g, g, g, P27, 26.0, {value = function(x, y, z, a, b, c)
      local centre = a == x and b == y and c == z
      if bnd(x, y, z) then return centre and 1.0 or nil end
      return centre and 26.0 or (bnd(a, b, c) and 0.0 or -1.0)
    end})
  end
  local two = {
    {"27-point 18^3, rows z = 0 scaled", function() return box(18, 18, 18, P27, 33.0, true) end},
    {"miniFE-like 19^3, a boundary's zeros stored", function() return zeros_box(19) end},
  }
  for _, c in ipairs(two) do
    it(c[1] .. ": sparse.spmv, CG and the smoother, the CSR results", function()
      local A = c[2]()
      local B = plain_copy(A)
      local n = A:nrows()
      local x = vec(n, "float64", 3)
      x[5], x[n - 7] = math.huge, -0.0
      local y, yr
      local d0, c0 = launches("sparse.spmv_dia", "sparse.spmv_dia_row"),
                     launches("sparse.cg_dia_dots", "sparse.cg_dia_dots_row")
      for _ = 1, 6 do
        y = vec(n, "float64", 5)
        sparse.spmv("N", -0.5, A, x, 1.0, y)
      end
      yr = vec(n, "float64", 5)
      sparse.spmv("N", -0.5, B, x, 1.0, yr)
      agree(y, yr)
      local b = vec(n, "float64", 2)
      local xs, i1 = solve.cg(A, b, {tol = 1e-10, maxiter = 300})
      local xr, i2 = solve.cg(B, b, {tol = 1e-10, maxiter = 300})
      assert.are.equal(i2.iters, i1.iters)
      agree(xs, xr)
      -- A by diagonals (B, its arrays exposed, on the CSR kernels)
      assert.is_true(launches("sparse.spmv_dia", "sparse.spmv_dia_row") > d0)
      assert.is_true(launches("sparse.cg_dia_dots", "sparse.cg_dia_dots_row") >= c0 + i1.iters)
      for deg = 2, 3 do agree(cheby(A, deg, b), cheby(B, deg, b)) end
    end)
  end
end)

describe("solve.amg_resid on " .. SPACE, function()
  local core = require "speck.core"
  local function resid(A, b, x)
    local t = vec(A:nrows(), "float64", 9)
    core.call("solve.amg_resid", sparse._margs({b = b, x = x, t = t}, "A", A))
    return t
  end
  it("t = b - A x: a copy of b and sparse.spmv's values, by diagonals or not", function()
    for _, A in ipairs{box(21, 20, 19, P7, 7.0), box(12, 11, 10, P27, 33.0, true)} do
      local n = A:nrows()
      local b, x = vec(n, "float64", 2), vec(n, "float64", 3)
      x[7], b[n - 3] = math.huge, -0.0
      -- a few calls first (the memos: compact index, value codes, the form)
      for _ = 1, 3 do resid(A, b, x) end
      local before = launches("solve.amg_resid_dia")
      local t = resid(A, b, x)
      local tr = vec(n, "float64", 1)
      speck.deep_copy(tr, b)
      sparse.spmv("N", -1.0, plain_copy(A), x, 1.0, tr)
      agree(t, tr)
      agree(resid(plain_copy(A), b, x), tr)
      if HOST then assert.is_true(launches("solve.amg_resid_dia") > before) end
    end
  end)
  it("a vector of another length: an error naming it", function()
    local A = box(5, 5, 5, P7, 7.0)
    local ok, e = pcall(core.call, "solve.amg_resid",
                        sparse._margs({b = vec(125), x = vec(124), t = vec(125)}, "A", A))
    assert.is_false(ok)
    assert.matches("x", tostring(e))
    assert.matches("124", tostring(e))
  end)
end)

describe("AMG-PCG with SPECK_SPARSE_NODIA=1 on " .. SPACE, function()
  it("the same iterations, residuals and solution bits as by diagonals", function()
    local k1, on, k0, off = F.dia_on_off(([[
local speck = require "speck"
local solve = require "speck.solve"
local F = dofile(%q)
-- the 7-point Laplacian on a 24^3 box (6 on the diagonal, -1 off it)
local A = F.box(24, 24, 24, F.points(3), 6.0, {value = function(x, y, z, a, b, c)
  return (a == x and b == y and c == z) and 6.0 or -1.0
end})
local n = A:nrows()
local b = F.vec(n, "float64", 3)
local P = solve.amg(A)
local x, info = solve.cg(A, b, {tol = 1e-10, maxiter = 100, precond = P})
local s = {info.iters}
for _, h in ipairs(info.history) do s[#s + 1] = ("%%a"):format(h) end
for i = 0, n - 1 do s[#s + 1] = ("%%a"):format(x[i]) end
print(F.launches("solve.cheby_dia_first", "solve.cheby_dia"), table.concat(s, " "))
]]):format(HERE .. "/csr_fixtures.lua"))
    assert.are.equal(0, k0)
    if HOST then
      assert.is_true(k1 > 0)
      assert.are.equal(off, on)
    end
    assert.is_true(tonumber(on:match("^(%d+)")) <= 15)
  end)
end)
