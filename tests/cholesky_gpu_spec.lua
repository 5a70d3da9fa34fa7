-- cholesky_gpu_spec.lua: speck.sparse.cholesky's level-set schedule
-- (kernels/task/chol_ls.c: the numeric phase and the solves by level sets
-- of the supernodal tree on the active back end, the factor kept in its
-- space) and L D L^T with static pivoting. On the host back ends the
-- level-set factor equals the task DAG's (kernels/task/chol.c) within
-- 1e-12 relative; on every back end it equals the dense Cholesky of
-- P A P^T (NumPy, tests/cholesky_gpu_oracle.py) and its solves SciPy's
-- spsolve; on a GPU the factorization and the solves ran as device
-- kernels (speck.jit.stats()). Bad input names what is wrong.
local speck = require "speck"
local sparse = require "speck.sparse"

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/cholesky_gpu_oracle.py"
-- NumPy and SciPy (the oracle): absent on a bare GPU host, where the
-- residual checks still run
local HAVE_NUMPY = os.execute(PY .. " -c 'import numpy, scipy' 2>/dev/null") == true
local BACKEND = speck.info().default_space
local HOST = BACKEND == "serial" or BACKEND == "openmp"
-- the level-set schedule: asked for on the host, a device space's default
local LEVELS = HOST and {schedule = "levels"} or nil
local function levels_opts(extra)
  local o = {}
  for k, v in pairs(LEVELS or {}) do o[k] = v end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. TMP))
teardown(function() os.execute("rm -rf '" .. TMP .. "'") end)
-- the oracle's commands: one Python process for the file (tests/py_serve.lua)
local py
if HAVE_NUMPY then
  local close
  py, close = dofile(HERE .. "/py_serve.lua")(PY, TMP, HERE)
  teardown(close)
end

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

local function lap2d(g, shift)
  local e = {}
  for i = 0, g - 1 do for j = 0, g - 1 do
    local p = i * g + j
    e[#e + 1] = {p, p, 4.0 - (shift or 0)}
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

-- symmetric, diagonally dominant, with diagonal entries of both signs
-- (indefinite when 'mixed', else positive definite)
local function random_sym(n, per_row, seed, mixed)
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
  for i = 0, n - 1 do
    e[#e + 1] = {i, i, (mixed and i % 3 == 1) and -diag[i] or diag[i]}
  end
  return coo(n, e), n
end

local function host(v)
  if v:space() == "host" then return v end
  return speck.create_mirror_view_and_copy("host", v)
end

local function write_vec(path, v)
  v = host(v)
  local f = assert(io.open(path, "w"))
  for i = 0, v:extent(0) - 1 do f:write(("%.17g\n"):format(v(i))) end
  f:close()
end

-- the right-hand side, in A's space
local function rhs(A, n)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = 1.0 + (i * 37 % 11) - 0.5 * (i % 3) end
  return speck.View.from(t, "float64", {space = A:space()})
end

-- x = F:solve(b) against SciPy's spsolve, and its relative residual
local function check_solve(name, A, F, n)
  local b = rhs(A, n)
  local x = F:solve(b)
  assert.are.equal(A:space(), x:space())
  local r = speck.View("r", "float64", n, {space = A:space()})
  speck.deep_copy(r, b)
  sparse.spmv("N", -1.0, A, x, 1.0, r)
  local rr = speck.parallel_reduce("rr", n, {r = r}, [[ acc += r(i) * r(i); ]])
  local bb = speck.parallel_reduce("bb", n, {b = b}, [[ acc += b(i) * b(i); ]])
  local res = math.sqrt(rr / bb)
  assert(res <= 1e-11, ("%s: relative residual %g"):format(name, res))
  if not HAVE_NUMPY then return end
  local mtx, bt, xt = TMP .. "/" .. name .. ".mtx", TMP .. "/b.txt", TMP .. "/x.txt"
  sparse.write_mm(mtx, A)
  write_vec(bt, b)
  local out, ok = py(("%s solve %s %s %s"):format(ORACLE, mtx, bt, xt))
  assert(ok, out)
  local xh, i, worst, xmax = host(x), 0, 0, 0
  for line in io.lines(xt) do
    local want = tonumber(line)
    worst = math.max(worst, math.abs(xh(i) - want))
    xmax = math.max(xmax, math.abs(want))
    i = i + 1
  end
  assert.are.equal(n, i)
  assert(worst <= 1e-9 * xmax, ("%s: x differs from SciPy's by %g"):format(name, worst))
end

-- the factor L against NumPy's dense Cholesky of P A P^T
local function check_dense(name, A, F)
  if not HAVE_NUMPY then
    -- no oracle: the factor reproduces A (L L^T's solve) instead
    local n = A:nrows()
    return check_solve(name, A, F, n)
  end
  local L, perm = sparse.cholesky_lower(F)   -- host views
  if A:space() ~= "host" then L = L:to(A:space()) end
  local mtx, pt, lt = TMP .. "/" .. name .. ".mtx", TMP .. "/perm.txt", TMP .. "/L.mtx"
  sparse.write_mm(mtx, A)
  sparse.write_mm(lt, L)
  write_vec(pt, perm)
  local out = py(("%s factor %s %s %s"):format(ORACLE, mtx, pt, lt))
  local rel = tonumber(out:match("(%S+)%s*$"))
  assert(rel and rel <= 1e-12, ("%s: L differs from the dense factor by %s"):format(name, tostring(rel)))
end

-- the level-set factor beside the task DAG's (host back ends)
local function check_same(name, A)
  local F0, F1 = sparse.cholesky(A), sparse.cholesky(A, {schedule = "levels"})
  assert.are.equal("dag", F0:info().schedule)
  assert.are.equal("levels", F1:info().schedule)
  local r0, c0, v0, p0 = F0:lower()
  local r1, c1, v1, p1 = F1:lower()
  assert.are.equal(v0:extent(0), v1:extent(0))
  for i = 0, r0:extent(0) - 1 do assert(r0(i) == r1(i), name .. ": rowptr differs") end
  for i = 0, p0:extent(0) - 1 do assert(p0(i) == p1(i), name .. ": perm differs") end
  local worst, big = 0, 0
  for q = 0, v0:extent(0) - 1 do
    assert(c0(q) == c1(q), name .. ": colidx differs")
    worst = math.max(worst, math.abs(v0(q) - v1(q)))
    big = math.max(big, math.abs(v0(q)))
  end
  assert(worst <= 1e-12 * big, ("%s: the factors differ by %g (largest entry %g)"):format(name, worst, big))
end

describe("speck.sparse.cholesky by level sets", function()
  it("equals the task DAG's factor on the host (5-point, 27-point, random)", function()
    if not HOST then
      pending("the task DAG's factor is the host back ends' (the dense check below runs here)")
      return
    end
    check_same("lap2d", lap2d(40))
    check_same("lap3d", lap3d27(9))
    check_same("rand", random_sym(500, 4, 7))
    assert.is_true(sparse.cholesky(lap3d27(9), {schedule = "levels"}):info().gemm_updates > 0)
  end)

  it("equals the dense Cholesky of P A P^T", function()
    local A = lap2d(30)
    local F = sparse.cholesky(A, LEVELS)
    assert.are.equal("levels", F:info().schedule)
    assert.is_true(F:info().levels >= 2)
    check_dense("lap2d", A, F)
    A = lap3d27(8)
    F = sparse.cholesky(A, LEVELS)
    assert.is_true(F:info().max_front > 32)   -- blocked supernodes, gemm updates
    check_dense("lap3d", A, F)
  end)

  it("equals the dense Cholesky on a 27-point 14^3 matrix (large updates by gemm)", function()
    local A = lap3d27(14)
    local F = sparse.cholesky(A, LEVELS)
    assert.is_true(F:info().max_front > 150)
    check_dense("lap3d14", A, F)
    check_solve("lap3d14", A, F, A:nrows())
  end)

  it("takes every update by gemm, or none (gemm_min)", function()
    local A = lap3d27(9)
    local F = sparse.cholesky(A, levels_opts{gemm_min = 1})
    assert.is_true(F:info().gemm_updates > 0)
    check_dense("gemm_all", A, F)
    F = sparse.cholesky(A, levels_opts{gemm_min = 1000000000000})
    assert.are.equal(0, F:info().gemm_updates)
    check_dense("gemm_none", A, F)
    F = sparse.cholesky(lap2d(24, 2.3), levels_opts{gemm_min = 1, ldl = true})
    check_solve("gemm_ldl", lap2d(24, 2.3), F, 576)
  end)

  it("solves against SciPy, again with the same factor", function()
    for _, c in ipairs{{"lap2d", lap2d(40)}, {"lap3d", lap3d27(9)}, {"rand", random_sym(600, 3, 3)},
                       {"one", coo(1, {{0, 0, 4.0}})}} do
      local A, n = c[2], c[2]:nrows()
      local F = sparse.cholesky(A, LEVELS)
      check_solve(c[1], A, F, n)
      check_solve(c[1] .. "2", A, F, n)
      local info = F:info()
      assert.are.equal(n, info.n)
      assert.are.equal(false, info.ldl)
      assert.are.equal(0, info.static_pivots)
      -- the factor in A's space, or the device memory of A's back end when
      -- A is in its managed memory
      assert.is_true(info.space == A:space() or
                     (A:space() == "cuda_uvm" and info.space == "cuda"), info.space)
    end
  end)

  it("L D L^T of symmetric indefinite matrices against SciPy", function()
    for _, c in ipairs{{"ind2d", lap2d(24, 2.3)}, {"ind3d", lap3d27(7)}, {"indr", random_sym(400, 4, 5, true)}} do
      local A, n = c[2], c[2]:nrows()
      local F = sparse.cholesky(A, levels_opts{ldl = true})
      local info = F:info()
      assert.are.equal(true, info.ldl)
      assert.are.equal("levels", info.schedule)
      assert.are.equal(0, info.static_pivots)
      check_solve(c[1], A, F, n)
    end
    -- the indefinite ones are no Cholesky's
    assert.matches("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row",
                   err_of(sparse.cholesky, lap2d(24, 2.3), LEVELS), 1, true)
    assert.matches("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row",
                   err_of(sparse.cholesky, random_sym(400, 4, 5, true), LEVELS), 1, true)
  end)

  it("replaces tiny pivots of L D L^T and counts them", function()
    local A = coo(3, {{0, 0, 1.0}, {1, 1, 1e-30}, {2, 2, -2.0}})
    local F = sparse.cholesky(A, levels_opts{ldl = true})
    assert.are.equal(1, F:info().static_pivots)
    local x = host(F:solve(rhs(A, 3)))
    assert.are.equal(1.0, x(0))
    assert.are.equal(-4.0, x(2))
    assert.is_true(x(1) > 1e7 and x(1) < 1e9)   -- 4.5 / 2.98e-8: the replaced pivot
  end)
end)

describe("speck.sparse.cholesky by level sets: bad input", function()
  it("names the failing column of an indefinite Cholesky and of a singular L D L^T", function()
    local A = coo(4, {{0, 0, 1.0}, {1, 1, 2.0}, {2, 2, -3.0}, {3, 3, 4.0}})
    assert.matches("speck.sparse.cholesky: the matrix is not positive definite: the pivot of row 2 is not positive (column ",
                   err_of(sparse.cholesky, A, LEVELS), 1, true)
    local S = coo(3, {{0, 0, 1.0}, {1, 1, 0.0}, {2, 2, 2.0}})
    assert.matches("speck.sparse.cholesky: the matrix is singular: the pivot of row 1 is zero (column ",
                   err_of(sparse.cholesky, S, levels_opts{ldl = true}), 1, true)
    local B = coo(2, {{0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}})
    assert.matches("speck.sparse.cholesky: the matrix is singular: the pivot of row",
                   err_of(sparse.cholesky, B, levels_opts{ldl = true}), 1, true)
    -- the VM goes on
    local F = sparse.cholesky(lap2d(5), LEVELS)
    assert.are.equal(25, F:info().n)
  end)

  it("refuses bad options", function()
    local A = lap2d(4)
    assert.matches("speck.sparse.cholesky: ldl must be a boolean, got number",
                   err_of(sparse.cholesky, A, {ldl = 1}), 1, true)
    assert.matches("speck.sparse.cholesky: schedule must be \"dag\" or \"levels\", got tasks",
                   err_of(sparse.cholesky, A, {schedule = "tasks"}), 1, true)
    assert.matches("speck.sparse.cholesky: space must be a string, got number",
                   err_of(sparse.cholesky, A, {space = 3}), 1, true)
    assert.matches("speck.sparse.cholesky: gemm_min must be a positive integer, got 0",
                   err_of(sparse.cholesky, A, {gemm_min = 0}), 1, true)
    assert.matches("speck.sparse.cholesky: gemm_min must be a positive integer, got 2.5",
                   err_of(sparse.cholesky, A, levels_opts{gemm_min = 2.5}), 1, true)
    assert.matches("speck.sparse.cholesky: unknown option 'pivot'",
                   err_of(sparse.cholesky, A, {pivot = true}), 1, true)
    if HOST then
      assert.matches("speck.sparse.cholesky: space 'cuda' is not the active back end's (" .. BACKEND .. " works in 'host')",
                     err_of(sparse.cholesky, A, {space = "cuda"}), 1, true)
      assert.matches("speck.sparse.cholesky: ldl = true runs on the level-set schedule: schedule must be \"levels\"",
                     err_of(sparse.cholesky, A, {ldl = true, schedule = "dag"}), 1, true)
      assert.matches("speck.sparse.cholesky: gemm_min is an option of the level-set schedule: schedule must be \"levels\"",
                     err_of(sparse.cholesky, A, {gemm_min = 64}), 1, true)
    else
      assert.matches("speck.sparse.cholesky: schedule = \"dag\" runs on the host: space must be \"host\", got '" .. A:space() .. "'",
                     err_of(sparse.cholesky, A, {schedule = "dag"}), 1, true)
      assert.matches("speck.sparse.cholesky: schedule = \"levels\" runs on the active back end (" .. BACKEND ..
                     "): space must be '" .. A:space() .. "', got 'host'",
                     err_of(sparse.cholesky, A, {schedule = "levels", space = "host"}), 1, true)
    end
    local F = sparse.cholesky(A, LEVELS)
    assert.matches("factor:solve: b must be a contiguous float64 view of 16 entries in space '" .. F:info().space .. "' (the factor's back end's)",
                   err_of(F.solve, F, speck.View("b", "float64", 15, {space = A:space()})), 1, true)
    assert.matches("factor:solve: b must be a contiguous float64 view of 16 entries in space",
                   err_of(F.solve, F, speck.View("b", "int64", 16, {space = A:space()})), 1, true)
  end)
end)

describe("speck.sparse.cholesky on a GPU", function()
  it("factors and solves with device kernels", function()
    if HOST then
      pending("the device check runs under SPECK_SPACES=cuda")
      return
    end
    local A, n = lap3d27(8)
    local F = sparse.cholesky(A)
    assert.are.equal("levels", F:info().schedule)
    F:solve(rhs(A, n))
    local A2 = lap3d27(16)
    local F2 = sparse.cholesky(A2)
    check_solve("dev16", A2, F2, A2:nrows())
    local seen = {}
    for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
      if k.tier == "nvrtc" and k.launches > 0 then seen[k.label] = true end
    end
    for _, l in ipairs{"task.chol_ls_assemble", "task.chol_ls_small", "task.chol_ls_panel",
                       "task.chol_ls_gather", "task.chol_ls_fdiag", "task.chol_ls_fbelow",
                       "task.chol_ls_bbelow", "task.chol_ls_bdiag", "task.chol_ls_unperm"} do
      assert.is_true(seen[l] == true, l .. " did not run as a device kernel")
    end
    if F2:info().gemm_updates > 0 then
      assert.is_true(seen["task.chol_ls_scatter"] == true, "task.chol_ls_scatter did not run as a device kernel")
    end
  end)
end)
