local speck = require "speck"
local sparse = require "speck.sparse"
-- vdict_spec.lua: a matrix's values as one-byte codes into a table of at
-- most 32 distinct values (kernels/sparse/vdict.c), read with the compact
-- index by sparse.spmv (mode N, one vector) and the host CG of sparse.cg.
-- Their results are the plain CSR kernels' bit for bit: the reference is
-- the same matrix with its arrays exposed (view:data() hands out a raw
-- pointer, after which no memo is kept: plain CSR). Built with the compact
-- index once the values served three SpMVs unchanged (CG: at once); values
-- with too many distinct numbers, one the table's sample lacked, or a NaN
-- keep the plain values; values written in place make the codes stale.
-- Views live in the default space (cuda with SPECK_CUDA_UVM=1 too), where
-- the coded kernels must be the ones launched (speck.jit.stats()).

local SPACE = speck.info().default_space
local HOST = SPACE == "serial" or SPACE == "openmp" or SPACE == "host"
local CODED = HOST and "sparse.spmv16v" or "sparse.spmv16v_team"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/csr_fixtures.lua")
local plain_copy, vec, same_bits = F.plain_copy, F.vec, F.same_bits
-- launches of 'label' or of the diagonal form (dia.c), which a matrix
-- with value codes takes where it is a stencil's (a band here)
local function launches(label) return F.launches(label, table.unpack(F.DIA)) end

-- an n x n band matrix with entries at 'offs' from the diagonal; entry
-- number e (0-based, in row order) gets value(e, i, j)
local function band(n, offs, value, dtype)
  local rows, cols, vals = {}, {}, {}
  local e = 0
  for i = 0, n - 1 do
    for _, d in ipairs(offs) do
      local j = i + d
      if j >= 0 and j < n then
        rows[#rows + 1], cols[#cols + 1] = i, j
        vals[#vals + 1] = value(e, i, j)
        e = e + 1
      end
    end
  end
  return sparse.from_coo(n, n, rows, cols, vals, {dtype = dtype or "float64"})
end

local function stencil(e, i, j) return i == j and 4.0 or -1.0 end

-- y = beta*y0 + alpha*A*x 'reps' times on A (the last result) and once on
-- its plain copy
local function both(A, alpha, beta, reps, dtype)
  local n = A:nrows()
  local x = vec(n, dtype, 3)
  local y
  for _ = 1, reps do
    y = vec(n, dtype, 5)
    sparse.spmv("N", alpha, A, x, beta, y)
  end
  local yr = vec(n, dtype, 5)
  sparse.spmv("N", alpha, plain_copy(A), x, beta, yr)
  return y, yr
end

describe("sparse.spmv with value codes on " .. SPACE, function()
  for _, dt in ipairs{"float64", "float32"} do
    it("a stencil of constant coefficients, " .. dt .. ": the coded kernel, bit for bit", function()
      local A = band(3000, {-55, -1, 0, 1, 55}, stencil, dt)
      local before = launches(CODED)
      local y, yr = both(A, 1.0, 0.0, 6, dt)
      same_bits(y, yr)
      local y2, yr2 = both(A, -0.75, 0.5, 6, dt)
      same_bits(y2, yr2)
      assert.is_true(launches(CODED) >= before + 4)
    end)
  end

  it("32 distinct values are coded; 33 are not (the same results)", function()
    local A = band(2000, {-3, 0, 3}, function(e) return 1 + e % 32 end)
    local before = launches(CODED)
    local y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    assert.is_true(launches(CODED) > before)
    local B = band(2000, {-3, 0, 3}, function(e) return 1 + e % 33 end)
    before = launches(CODED)
    y, yr = both(B, 1.0, 0.0, 6)
    same_bits(y, yr)
    assert.equal(before, launches(CODED))
  end)

  it("a value the table's sample lacked (entry 10000, between its windows): plain values, right results", function()
    local A = band(4000, {-1, 0, 1}, function(e, i, j)
      return e == 10000 and 2.5 or stencil(e, i, j)
    end)
    local before = launches(CODED)
    local y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    assert.equal(before, launches(CODED))
  end)

  it("a NaN among the values: plain values (NaN has no code), the same NaNs", function()
    local A = band(500, {-1, 0, 1}, function(e, i, j)
      return e == 7 and 0 / 0 or stencil(e, i, j)
    end)
    local before = launches(CODED)
    local y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    assert.is_true(y[2] ~= y[2])
    assert.equal(before, launches(CODED))
  end)

  it("signed zeros keep their own codes (bit for bit)", function()
    local A = band(800, {-2, 0, 2}, function(e, i, j)
      if i == j then return 3.0 end
      return e % 3 == 0 and -0.0 or (e % 3 == 1 and 0.0 or -1.0)
    end)
    local before = launches(CODED)
    local y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    assert.is_true(launches(CODED) > before)
  end)

  it("values stored from Lua make the codes stale (a new value, then a known one)", function()
    local A = band(1500, {-1, 0, 1}, stencil)
    local y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    A.values[4] = 7.25 -- a value the table lacks
    y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    A.values[4] = 4.0 -- back to a coded one
    local before = launches(CODED)
    y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    assert.is_true(launches(CODED) > before)
  end)

  it("values rewritten by a kernel and by fill make the codes stale", function()
    local A = band(1500, {-1, 0, 1}, stencil)
    both(A, 1.0, 0.0, 6)
    speck.parallel_for("vdict.scale", A.values:extent(0), {v = A.values}, "v(i) = 2.0 * v(i);")
    local y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
    A.values:fill(0.5)
    y, yr = both(A, 1.0, 0.0, 6)
    same_bits(y, yr)
  end)
end)

describe("CG with value codes on " .. SPACE, function()
  it("sparse.cg: the plain iteration's result, the coded SpMV launched", function()
    local A = band(2500, {-50, -1, 0, 1, 50}, stencil)
    local b = vec(2500)
    local label = HOST and "solve.cg_spmv16v_dots" or CODED
    local before, c0 = launches(label), F.launches(label)
    local x, it1 = sparse.cg(A, b, {tol = 1e-12, maxiter = 300})
    local xr, it2 = sparse.cg(plain_copy(A), b, {tol = 1e-12, maxiter = 300})
    -- (the coded kernel itself, or on a device the diagonal form in its place)
    if HOST or F.launches(label) >= c0 + it1 then
      assert.equal(it1, it2)
      same_bits(x, xr)
    else -- a device's diagonal form: the same sums to rounding (csr_fixtures' F.close)
      assert.is_true(math.abs(it1 - it2) <= 1)
      F.close(x, xr, 1e-10)
    end
    assert.is_true(launches(label) >= before + it1)
  end)
end)

describe("the value codes' device bodies", function()
  it("compile with NVRTC (as the GPU back end compiles them)", function()
    local V = F.V
    local jobs = {
      {"sparse_spmv16v_team", "team", {rowptr = V("int32", 5), off = V("int16"),
        vcode = V("uint8"), vtab = V("float64", 2), x = V("float64"), y = V("float64"),
        alpha = 1.0, beta = 0.0, rpt = {"int64", 2}}, {}},
      {"sparse_vdict_code", "range", {values = V("float64"), tab = V("float64", 2),
        code = V("uint8"), nt = {"int64", 2}},
       {pattern = "reduce", reducer = {{op = "max", dtype = "int64"}}}},
    }
    local made, seen = F.nvrtc_compile("vdict_gpu_", jobs)
    if not made then
      pending(seen)
      return
    end
    for _, k in ipairs(made) do assert.are.equal("nvrtc", k[2], k[1]) end
    assert.equal(#jobs, seen)
  end)
end)
