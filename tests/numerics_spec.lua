-- numerics_spec.lua: numerical breakdown is an error or a flag, never a
-- silent NaN (issue 30 item 4): CG's reasons and its NaN / Inf errors
-- naming the input, the first bad pivot of the sparse Cholesky and of
-- blas.potrf, blas outputs that alias an input, typed captures out of
-- their dtype's range.
local speck = require "speck"
local sparse = require "speck.sparse"
local blas = require "speck.blas"

local HOST_SPACE = ({serial = true, openmp = true})[speck.info().default_space]
local function it_host(name, fn)
  if HOST_SPACE then return it(name, fn) end
  return pending(name .. " (the sparse Cholesky runs on the host back ends)")
end
local VENDOR = HOST_SPACE and speck.info().blas_vendor.available

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(e)
end

local function coo(n, entries)
  local r, c, v = {}, {}, {}
  for _, e in ipairs(entries) do r[#r + 1], c[#c + 1], v[#v + 1] = e[1], e[2], e[3] end
  return sparse.from_coo(n, n, r, c, v)
end

-- a rank-1 view of 'n' ones (in the default space) with 'x' at 'at'
local function vec(label, n, at, x)
  local v = speck.View(label, "float64", n)
  speck.parallel_for("vec", n, {v = v, at = at or -1, x = x or 1.0},
                     "v(i) = i == at ? x : 1.0;")
  return v
end

-- an n x n diagonal matrix 'd' with 'x' put at (r, c)
local function dmat(label, n, d, r, c, x)
  local A = speck.View(label, "float64", {n, n})
  speck.parallel_for("dmat", n * n, {A = A, n = n, d = d, r = r or -1, c = c or -1,
                                     x = x or 0.0},
                     [[ long a = i / n, b = i % n;
                        A(a, b) = a == r && b == c ? x : a == b ? d : 0.0; ]])
  return A
end

local NAN, INF = 0 / 0, 1 / 0
-- 4x4 SPD: diagonal 4, a coupling between rows 0 and 1
local function spd4(extra)
  local e = {{0, 0, 4.0}, {1, 1, 4.0}, {2, 2, 4.0}, {3, 3, 4.0}, {0, 1, 1.0}, {1, 0, 1.0}}
  for _, x in ipairs(extra or {}) do e[#e + 1] = x end
  return coo(4, e)
end

describe("speck.sparse.cg reasons and non-finite input", function()
  it("returns the reason after x, iters and resid", function()
    local x, it, resid, reason = sparse.cg(spd4(), vec("b", 4))
    assert.are.equal("converged", reason)
    assert.is_true(it >= 1 and resid < 1e-9)
    assert.are.equal(4, x:extent(0))
    local _, it1, _, r1 = sparse.cg(spd4(), vec("b", 4), {tol = 0.0, maxiter = 1})
    assert.are.equal(1, it1)
    assert.are.equal("maxiter", r1)
    local _, it0, _, r0 = sparse.cg(spd4(), vec("b", 4, -1), {maxiter = 0})
    assert.are.equal(0, it0)
    assert.are.equal("maxiter", r0)
  end)

  it("a NaN or Inf in b or x0 is an error naming the row", function()
    assert.are.equal("speck.sparse.cg: the right-hand side b (view 'b') holds a NaN at row 3",
                     err_of(sparse.cg, spd4(), vec("b", 4, 3, NAN)))
    assert.are.equal("speck.sparse.cg: the right-hand side b (view 'rhs') holds a -Inf at row 0",
                     err_of(sparse.cg, spd4(), vec("rhs", 4, 0, -INF)))
    assert.are.equal("speck.sparse.cg: the initial guess x0 (view 'g') holds an Inf at row 1",
                     err_of(sparse.cg, spd4(), vec("b", 4), {x0 = vec("g", 4, 1, INF)}))
  end)

  it("a NaN or Inf in A's values is an error naming the row and column", function()
    assert.are.equal("speck.sparse.cg: the operator A holds an Inf at row 2, column 2",
                     err_of(sparse.cg, coo(4, {{0, 0, 4.0}, {1, 1, 4.0}, {2, 2, INF}, {3, 3, 4.0}}),
                            vec("b", 4)))
    assert.are.equal("speck.sparse.cg: the operator A holds a NaN at row 3, column 1",
                     err_of(sparse.cg, spd4({{3, 1, NAN}}), vec("b", 4)))
    -- with x0: found through r = b - A*x0
    assert.are.equal("speck.sparse.cg: the operator A holds a NaN at row 3, column 1",
                     err_of(sparse.cg, spd4({{3, 1, NAN}}), vec("b", 4), {x0 = vec("g", 4)}))
  end)

  it("an overflow of finite input is an error naming the quantity", function()
    assert.are.equal("speck.sparse.cg: b'b = inf at iteration 0: the iteration overflowed (A, b and x0 are finite)",
                     err_of(sparse.cg, spd4(), vec("b", 4, 2, 1e300)))
  end)

  it("an indefinite matrix: p'Ap < 0 an error, p'Ap = 0 the reason breakdown", function()
    assert.are.equal("speck.sparse.cg: p'Ap = -2 at iteration 1: A is not positive definite",
                     err_of(sparse.cg, coo(2, {{0, 0, 1.0}, {1, 1, -3.0}}), vec("b", 2)))
    local x, it, resid, reason = sparse.cg(coo(2, {{0, 0, 1.0}, {1, 1, -1.0}}), vec("b", 2))
    assert.are.equal("breakdown", reason)
    assert.are.equal(0, it)
    assert.is_true(math.abs(resid - math.sqrt(2)) < 1e-12)
    assert.are.equal(2, x:extent(0))
  end)
end)

describe("the first bad pivot of a factorization", function()
  it_host("speck.sparse.cholesky names a NaN, Inf or non-positive pivot's row", function()
    assert.are.equal("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row 1 is NaN (column 1 of the AMD-ordered matrix)",
                     err_of(sparse.cholesky, coo(3, {{0, 0, 1.0}, {1, 1, NAN}, {2, 2, 1.0}})))
    assert.are.equal("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row 1 is Inf (column 1 of the AMD-ordered matrix)",
                     err_of(sparse.cholesky, coo(3, {{0, 0, 1.0}, {1, 1, INF}, {2, 2, 1.0}})))
    assert.are.equal("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row 1 is not positive (column 1 of the AMD-ordered matrix)",
                     err_of(sparse.cholesky, coo(3, {{0, 0, 1.0}, {1, 1, -2.0}, {2, 2, 1.0}})))
    -- a NaN off the diagonal reaches a later pivot
    assert.matches("is not positive definite: the pivot of row %d is NaN",
                   err_of(sparse.cholesky, coo(2, {{0, 0, 4.0}, {1, 0, NAN}, {0, 1, NAN}, {1, 1, 4.0}})))
  end)

  local impls = {"native"}
  if VENDOR then impls[2] = "vendor" end
  for _, impl in ipairs(impls) do
    it("blas.potrf (" .. impl .. ") names a NaN, Inf or non-positive pivot", function()
      local o = {impl = impl}
      assert.are.equal("speck.blas.potrf: A (view 'P') is not positive definite: the pivot of row 1, column 1 is NaN",
                       err_of(blas.potrf, "L", dmat("P", 3, 1.0, 1, 1, NAN), o))
      assert.are.equal("speck.blas.potrf: A (view 'P') is not positive definite: the pivot of row 2, column 2 is Inf",
                       err_of(blas.potrf, "U", dmat("P", 3, 1.0, 2, 2, INF), o))
      assert.are.equal("speck.blas.potrf: A (view 'P') is not positive definite: the leading minor of order 3 is not positive (pivot 2)",
                       err_of(blas.potrf, "L", dmat("P", 3, 1.0, 2, 2, -1.0), o))
      -- a NaN below the diagonal: the pivot of its row
      assert.are.equal("speck.blas.potrf: A (view 'P') is not positive definite: the pivot of row 2, column 2 is NaN",
                       err_of(blas.potrf, "L", dmat("P", 3, 2.0, 2, 0, NAN), o))
      blas.potrf("L", dmat("P", 3, 4.0), o)
    end)
  end
end)

describe("blas outputs that alias an input", function()
  it("gemm, gemv, trsm, trmm and syrk refuse them, as spmv does", function()
    local M = dmat("M", 3, 1.0)
    local N = dmat("N", 3, 1.0)
    local msg = function(f, a, av, o, ov)
      return ("speck.blas.%s: %s (view '%s') and %s (view '%s') share memory: the output must not alias an input")
        :format(f, a, av, o, ov)
    end
    assert.are.equal(msg("gemm", "A", "M", "C", "M"), err_of(blas.gemm, "N", "N", 1, M, N, 0, M))
    assert.are.equal(msg("gemm", "B", "M", "C", "M"), err_of(blas.gemm, "N", "N", 1, N, M, 0, M))
    -- a subview of the same allocation is the same memory
    local top = speck.subview(M, {0, 2}, {0, 2})
    local W = dmat("W", 2, 1.0)
    assert.are.equal(msg("gemm", "B", "M", "C", "M"), err_of(blas.gemm, "N", "N", 1, W, top, 0,
                                                             speck.subview(M, {1, 3}, {1, 3})))
    local v = vec("v", 3)
    assert.are.equal(msg("gemv", "x", "v", "y", "v"), err_of(blas.gemv, "N", 1, M, v, 0, v))
    local col = speck.subview(M, speck.ALL, 0)
    assert.are.equal(msg("gemv", "A", "M", "y", "M"), err_of(blas.gemv, "N", 1, M, vec("x", 3), 0, col))
    assert.are.equal(msg("trsm", "A", "M", "B", "M"), err_of(blas.trsm, "L", "L", "N", "N", 1, M, M))
    assert.are.equal(msg("trmm", "A", "M", "B", "M"), err_of(blas.trmm, "L", "L", "N", "N", 1, M, M))
    assert.are.equal(msg("syrk", "A", "M", "C", "M"), err_of(blas.syrk, "L", "N", 1, M, 0, M))
    -- distinct views still work
    local C = speck.View("C", "float64", {3, 3})
    blas.gemm("N", "N", 1, M, N, 0, C)
  end)
end)

describe("typed captures out of their dtype's range", function()
  local function cap(c) return err_of(speck.parallel_for, "cap", 1, {t = c}, "") end
  it("are refused with the value and the range", function()
    local pre = "speck.parallel_for 'cap': capture 't': "
    assert.are.equal(pre .. "1099511627776.0 is out of the range of int32 [-2147483648, 2147483647]",
                     cap({"int32", 2 ^ 40}))
    assert.are.equal(pre .. "2147483648 is out of the range of int32 [-2147483648, 2147483647]",
                     cap({"int32", 2147483648}))
    assert.are.equal(pre .. "40000 is out of the range of int16 [-32768, 32767]", cap({"int16", 40000}))
    assert.are.equal(pre .. "-129 is out of the range of int8 [-128, 127]", cap({"int8", -129}))
    assert.are.equal(pre .. "256 is out of the range of uint8 [0, 255]", cap({"uint8", 256}))
    assert.are.equal(pre .. "-1 is out of the range of uint8 [0, 255]", cap({"uint8", -1}))
    assert.are.equal(pre .. "-1 is out of the range of uint32 [0, 4294967295]", cap({"uint32", -1}))
    -- a uint64 Lua integer is its bit pattern (values from 2^63 wrap, as
    -- parallel_reduce returns them: docs/guide.md "Reductions"); a float
    -- must not be negative
    assert.are.equal(pre .. "-1.0 is out of the range of uint64 [0, 18446744073709551615]",
                     cap({"uint64", -1.0}))
    assert.are.equal(pre .. "1e+39 is out of the range of float32 (magnitude at most 3.40282e+38)",
                     cap({"float32", 1e39}))
    assert.are.equal(pre .. "value is not of dtype int8", cap({"int8", 1.5}))
  end)

  it("the ends of each range, integral floats and float32's Inf still pass", function()
    local out = speck.View("out", "int64", 6)
    speck.parallel_for("ends", 1, {out = out, a = {"int32", -2 ^ 31}, b = {"int32", 2 ^ 31 - 1},
                                   c = {"int8", -128}, d = {"uint8", 255}, e = {"int16", 32767.0},
                                   f = {"uint32", 4294967295}},
                       "out(0) = a; out(1) = b; out(2) = c; out(3) = d; out(4) = e; out(5) = f;")
    local h = speck.create_mirror_view_and_copy("host", out)
    local want = {-2 ^ 31, 2 ^ 31 - 1, -128, 255, 32767, 4294967295}
    for i = 0, 5 do assert.are.equal(want[i + 1], h(i)) end
    speck.parallel_for("inf", 1, {t = {"float32", INF}}, "")
  end)
end)
