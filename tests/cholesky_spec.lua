-- cholesky_spec.lua: speck.sparse.cholesky (kernels/task/chol.c: AMD,
-- elimination tree, supernodes, multifrontal blocks as a task DAG)
-- against SciPy's solution (tests/cholesky_oracle.py, spsolve) on random
-- SPD matrices and the 2D 5-point and 3D 27-point Laplacians: relative
-- residual <= 1e-12 and the same x; a matrix that is not positive definite
-- names the row of the failing pivot; bad input.
local speck = require "speck"
-- the host back ends only: on a GPU space the views of these tests would be
-- device memory the host-side tasks cannot reach
local HOST_SPACE = ({serial = true, openmp = true})[speck.info().default_space]
local function it_host(name, fn)
  if HOST_SPACE then return it(name, fn) end
  return pending(name .. " (the sparse Cholesky runs on the host back ends)")
end
local sparse = require "speck.sparse"

local TMP = os.tmpname()
-- SciPy's Python: Debian's, or SPECK_PYTHON (a GPU host's image)
local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
os.remove(TMP)
assert(os.execute("mkdir -p " .. TMP))

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

-- a random SPD matrix: symmetric off-diagonals in [-1, 1], a dominant diagonal
local function random_spd(n, per_row, seed)
  math.randomseed(seed)
  local e, diag = {}, {}
  for i = 0, n - 1 do diag[i] = 1 + math.random() end
  for i = 0, n - 1 do
    for _ = 1, per_row do
      local j = math.random(0, n - 1)
      if j ~= i then
        local v = 2 * math.random() - 1
        e[#e + 1] = {i, j, v}
        e[#e + 1] = {j, i, v}
        diag[i] = diag[i] + math.abs(v)
        diag[j] = diag[j] + math.abs(v)
      end
    end
  end
  for i = 0, n - 1 do e[#e + 1] = {i, i, diag[i]} end
  return coo(n, e)
end

local function lap2d(g)
  local e = {}
  for i = 0, g - 1 do for j = 0, g - 1 do
    local p = i * g + j
    e[#e + 1] = {p, p, 4.0}
    if i > 0 then e[#e + 1] = {p, p - g, -1.0} end
    if i < g - 1 then e[#e + 1] = {p, p + g, -1.0} end
    if j > 0 then e[#e + 1] = {p, p - 1, -1.0} end
    if j < g - 1 then e[#e + 1] = {p, p + 1, -1.0} end
  end end
  return coo(g * g, e), g * g
end

local function lap3d27(g)
  local e = {}
  local function id(a, b, c) return (a * g + b) * g + c end
  for a = 0, g - 1 do for b = 0, g - 1 do for c = 0, g - 1 do
    for da = -1, 1 do for db = -1, 1 do for dc = -1, 1 do
      local x, y, z = a + da, b + db, c + dc
      if x >= 0 and x < g and y >= 0 and y < g and z >= 0 and z < g then
        local same = da == 0 and db == 0 and dc == 0
        e[#e + 1] = {id(a, b, c), id(x, y, z), same and 26.0 or -1.0}
      end
    end end end
  end end end
  return coo(g * g * g, e), g * g * g
end

local function check(name, A, n)
  local b = speck.View("b", "float64", n)
  speck.parallel_for("fill_b", n, {b = b}, [[ b(i) = 1.0 + (i * 37 % 11) - 0.5 * (i % 3); ]])
  local F = sparse.cholesky(A)
  local x = F:solve(b)
  -- relative residual
  local r = speck.View("r", "float64", n)
  speck.deep_copy(r, b)
  sparse.spmv("N", -1.0, A, x, 1.0, r)
  local rr = speck.parallel_reduce("rr", n, {r = r}, [[ acc += r(i) * r(i); ]])
  local bb = speck.parallel_reduce("bb", n, {b = b}, [[ acc += b(i) * b(i); ]])
  local res = math.sqrt(rr / bb)
  assert(res <= 1e-12, ("%s: relative residual %g"):format(name, res))
  -- SciPy's x
  local mtx, bt, xt = TMP .. "/" .. name .. ".mtx", TMP .. "/b.txt", TMP .. "/x.txt"
  sparse.write_mm(mtx, A)
  local f = assert(io.open(bt, "w"))
  for i = 0, n - 1 do f:write(("%.17g\n"):format(b(i))) end
  f:close()
  assert(os.execute((PY .. " tests/cholesky_oracle.py %s %s %s"):format(mtx, bt, xt)))
  local i, worst, xmax = 0, 0, 0
  for line in io.lines(xt) do
    local want = tonumber(line)
    worst = math.max(worst, math.abs(x(i) - want))
    xmax = math.max(xmax, math.abs(want))
    i = i + 1
  end
  assert.are.equal(n, i)
  assert(worst <= 1e-10 * xmax, ("%s: x differs from SciPy's by %g"):format(name, worst))
  local info = F:info()
  assert.are.equal(n, info.n)
  assert.is_true(info.supernodes >= 1 and info.supernodes <= n)
  assert.is_true(info.nnz_l >= n)
  return info
end

describe("speck.sparse.cholesky against SciPy", function()
  it_host("solves random SPD matrices", function()
    check("one", coo(1, {{0, 0, 4.0}}), 1)
    for k, spec in ipairs{{20, 1}, {150, 3}, {600, 2}, {400, 8}} do
      check("rand" .. k, random_spd(spec[1], spec[2], k), spec[1])
    end
  end)

  it_host("solves the 2D 5-point and 3D 27-point Laplacians", function()
    local A, n = lap2d(40)
    check("lap2d", A, n)
    A, n = lap3d27(9)
    local info = check("lap3d", A, n)
    assert.is_true(info.max_front > 20)   -- supernodes: dense fronts
  end)

  it_host("solves again with the same factor", function()
    local A, n = lap2d(12)
    local F = sparse.cholesky(A)
    local b = speck.View("b", "float64", n)
    for k = 1, 3 do
      speck.parallel_for("fb", n, {b = b, s = k}, [[ b(i) = s * (i + 1.0); ]])
      local x = F:solve(b)
      local r = speck.View("r", "float64", n)
      speck.deep_copy(r, b)
      sparse.spmv("N", -1.0, A, x, 1.0, r)
      local rr = speck.parallel_reduce("rr", n, {r = r}, [[ acc += fabs(r(i)); ]])
      assert.is_true(rr < 1e-9 * k * n * n)
    end
  end)
end)

describe("speck.sparse.cholesky bad input", function()
  it_host("names the pivot of a matrix that is not positive definite", function()
    local A = coo(4, {{0, 0, 1.0}, {1, 1, 2.0}, {2, 2, -3.0}, {3, 3, 4.0}})
    assert.matches("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row 2 is not positive",
                   err_of(sparse.cholesky, A), 1, true)
    -- indefinite 2x2 block: [1 2; 2 1]
    local B = coo(2, {{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 2.0}, {1, 1, 1.0}})
    assert.matches("is not positive definite: the pivot of row", err_of(sparse.cholesky, B), 1, true)
  end)

  it_host("refuses what is not a square float64 CrsMatrix", function()
    assert.matches("speck.sparse.cholesky: A must be a CrsMatrix, got number",
                   err_of(sparse.cholesky, 3), 1, true)
    local R = sparse.from_coo(2, 3, {0, 1}, {0, 1}, {1.0, 1.0})
    assert.matches("speck.sparse.cholesky: A is 2x3, not square", err_of(sparse.cholesky, R), 1, true)
    local S = sparse.from_coo(2, 2, {0, 1}, {0, 1}, {1.0, 1.0}, {dtype = "float32"})
    assert.matches("speck.sparse.cholesky: A must have float64 values", err_of(sparse.cholesky, S), 1, true)
    local A = coo(3, {{0, 0, 1.0}, {1, 1, 1.0}, {2, 2, 1.0}})
    local F = sparse.cholesky(A)
    assert.matches("factor:solve: b must be a contiguous float64 view of 3 entries",
                   err_of(F.solve, F, speck.View("b", "float64", 4)), 1, true)
  end)
end)
