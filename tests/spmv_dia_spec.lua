local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
-- spmv_dia_spec.lua: a stencil's matrix by diagonals (kernels/sparse/
-- dia.c): one byte a row and diagonal (the value code plus one, 0 where
-- the row lacks the column), no index. sparse.spmv (mode N, one vector)
-- and the CG of sparse.cg and speck.solve take it where the matrix has
-- value codes (vdict.c) and its offsets fit. On the host the results are
-- the CSR kernels' bit for bit -- against the matrix's plain copy (arrays
-- exposed: plain CSR) and, in a child process, against the coded CSR
-- kernels (SPECK_SPARSE_NODIA=1) -- for any x, Inf, NaN and -0.0
-- included; a device's CSR kernel sums a row over vector lanes (another
-- order), so there they agree to rounding, non-finite entries alike.
-- Views live in the default space (cuda with SPECK_CUDA_UVM=1 too), where
-- the diagonal kernels must be the ones launched (speck.jit.stats()).

local SPACE = speck.info().default_space
local HOST = SPACE == "serial" or SPACE == "openmp" or SPACE == "host"
local DIA = HOST and "sparse.spmv_dia" or "sparse.spmv_dia_row"
local DIA_CG = HOST and "sparse.cg_dia_dots" or "sparse.cg_dia_dots_row"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/csr_fixtures.lua")
local launches, plain_copy, vec = F.launches, F.plain_copy, F.vec

-- the stencil matrices (csr_fixtures' F.box and F.points)
local function box(gx, gy, gz, pts, diag, dtype)
  return F.box(gx, gy, gz, pts, diag, {dtype = dtype})
end
local points = F.points
local P5, P9, P7, P27 = points(2, false), points(2, true), points(3, false), points(3, true)

-- the bits of a float: equal values, a NaN equal to a NaN, and a zero's sign
local function same_bits(a, b)
  assert.are.equal(a:extent(0), b:extent(0))
  for i = 0, a:extent(0) - 1 do
    local x, y = a[i], b[i]
    local same = (x == y and (x ~= 0 or 1 / x == 1 / y)) or (x ~= x and y ~= y)
    if not same then error(("element %d: %.17g against %.17g"):format(i, x, y), 2) end
  end
end
-- a device: within 'tol' relative, the same non-finite entries
local function close(a, b, tol)
  for i = 0, a:extent(0) - 1 do
    local x, y = a[i], b[i]
    if x ~= x or y ~= y or x == math.huge or x == -math.huge then
      assert(x ~= x and y ~= y or x == y, ("element %d: %.17g against %.17g"):format(i, x, y))
    else
      assert(math.abs(x - y) <= tol * (1 + math.abs(y)),
             ("element %d: %.17g against %.17g"):format(i, x, y))
    end
  end
end
local function agree(a, b, tol)
  if HOST then same_bits(a, b) else close(a, b, tol or 1e-13) end
end

-- y = beta*y0 + alpha*A*x six times on A (codes, then the diagonal form:
-- the last result) and once on its plain copy
local function both(A, alpha, beta, x, dtype)
  local n = A:nrows()
  local y
  for _ = 1, 6 do
    y = vec(n, dtype, 5)
    sparse.spmv("N", alpha, A, x, beta, y)
  end
  local yr = vec(n, dtype, 5)
  sparse.spmv("N", alpha, plain_copy(A), x, beta, yr)
  return y, yr
end

local CASES = {
  {"5-point 37 x 23", 37, 23, 1, P5, 5.0},
  {"5-point 3 x 200", 3, 200, 1, P5, 5.0},
  {"9-point 25 x 17", 25, 17, 1, P9, 10.0},
  {"7-point 9 x 8 x 7", 9, 8, 7, P7, 7.0},
  {"7-point 30 x 30 x 30", 30, 30, 30, P7, 7.0},
  {"27-point 8 x 8 x 8", 8, 8, 8, P27, 33.0},
  {"27-point 11 x 7 x 5", 11, 7, 5, P27, 33.0},
  {"27-point 20 x 20 x 20", 20, 20, 20, P27, 33.0},
}

describe("sparse.spmv by diagonals on " .. SPACE, function()
  for _, c in ipairs(CASES) do
    for _, dt in ipairs{"float64", "float32"} do
      it(c[1] .. ", " .. dt .. ": the diagonal kernel, the CSR results", function()
        local A = box(c[2], c[3], c[4], c[5], c[6], dt)
        local x = vec(A:nrows(), dt, 3)
        local before = launches(DIA)
        local y, yr = both(A, 1.0, 0.0, x, dt)
        agree(y, yr)
        local y2, yr2 = both(A, -0.75, 0.5, x, dt)
        agree(y2, yr2)
        assert.is_true(launches(DIA) >= before + 8)
      end)
    end
  end

  it("x with Inf, -Inf, NaN and -0.0 (corners and edges too): the CSR results", function()
    for _, c in ipairs{CASES[1], CASES[3], CASES[6]} do
      local A = box(c[2], c[3], c[4], c[5], c[6])
      local n = A:nrows()
      local x = vec(n, "float64", 3)
      x[0] = math.huge
      x[n - 1] = -math.huge
      x[c[2] - 1] = 0 / 0
      x[n // 2] = math.huge
      x[n // 2 + 1] = math.huge -- their rows: Inf (centre) - Inf (neighbour)
      for i = c[2], 2 * c[2] - 1 do x[i] = -0.0 end
      local before = launches(DIA)
      local y, yr = both(A, 1.0, 0.0, x)
      agree(y, yr)
      assert.is_true(y[1] == -math.huge and y[n - 2] == math.huge and y[n // 2] ~= y[n // 2])
      -- a row whose terms are all -0.0 times a positive value, y = -1 * s
      local z = vec(n, "float64", 3)
      z:fill(-0.0)
      local y3, yr3 = both(A, -1.0, 0.0, z)
      agree(y3, yr3)
      assert.is_true(launches(DIA) >= before + 2)
    end
  end)

  it("values written after the form was made: the form follows them", function()
    local A = box(12, 11, 10, P7, 7.0)
    local x = vec(A:nrows(), "float64", 3)
    local y, yr = both(A, 1.0, 0.0, x)
    agree(y, yr)
    A.values[5] = 7.25 -- stored from Lua: a new value in the table
    y, yr = both(A, 1.0, 0.0, x)
    agree(y, yr)
    speck.parallel_for("dia.scale", A.values:extent(0), {v = A.values}, "v(i) = 0.5 * v(i);")
    local before = launches(DIA)
    y, yr = both(A, 1.0, 0.0, x)
    agree(y, yr)
    assert.is_true(launches(DIA) > before)
    A.values:fill(2.0)
    y, yr = both(A, -1.0, 1.0, x)
    agree(y, yr)
  end)

  it("matrices that do not qualify keep the CSR kernels (the same results)", function()
    -- 40 offsets (more than 32); a band with a far entry in one row
    -- (an offset the sample lacks: the coding pass finds it); too many
    -- distinct values (no codes)
    local offs40, rows, cols, vals = {}, {}, {}, {}
    for k = 1, 40 do offs40[k] = (k - 20) * 3 end
    local n = 3000
    for i = 0, n - 1 do
      for _, d in ipairs(offs40) do
        if i + d >= 0 and i + d < n then
          rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = i, i + d, d == 0 and 50 or -1
        end
      end
    end
    local wide = sparse.from_coo(n, n, rows, cols, vals)
    rows, cols, vals = {}, {}, {}
    for i = 0, n - 1 do
      for _, d in ipairs{-1, 0, 1} do
        if i + d >= 0 and i + d < n then
          rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = i, i + d, d == 0 and 4 or -1
        end
      end
      if i == 100 then rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = i, 5, -1 end
    end
    local far = sparse.from_coo(n, n, rows, cols, vals)
    local many = box(20, 20, 1, P5, 5.0)
    speck.parallel_for("dia.many", many.values:extent(0), {v = many.values},
                       "v(i) = 1.0 + (double)i * 1e-3;")
    for _, A in ipairs{wide, far, many} do
      local x = vec(A:nrows(), "float64", 3)
      local before = launches(DIA)
      local y, yr = both(A, 1.0, 0.0, x)
      agree(y, yr)
      assert.are.equal(before, launches(DIA))
    end
  end)

  it("mode T, a multivector and the host's team algorithm keep the CSR kernels", function()
    local A = box(15, 14, 1, P9, 10.0)
    local n = A:nrows()
    local x = vec(n, "float64", 3)
    for _ = 1, 6 do sparse.spmv("N", 1.0, A, x, 0.0, vec(n)) end -- the form is made
    local before = launches(DIA)
    local y, yr = vec(n), vec(n)
    sparse.spmv("T", 1.0, A, x, 0.0, y)
    sparse.spmv("T", 1.0, plain_copy(A), x, 0.0, yr)
    agree(y, yr)
    local X, Y = speck.View("X", "float64", {n, 2}), speck.View("Y", "float64", {n, 2})
    X:fill(1.5)
    sparse.spmv("N", 1.0, A, X, 0.0, Y)
    if HOST then sparse.spmv("N", 1.0, A, x, 0.0, y, {algorithm = "team"}) end
    assert.are.equal(before, launches(DIA))
  end)
end)

describe("CG by diagonals on " .. SPACE, function()
  it("sparse.cg: the iterations and the solution of the CSR CG", function()
    for _, c in ipairs{CASES[4], CASES[7], CASES[1]} do
      local A = box(c[2], c[3], c[4], c[5], c[6])
      local b = vec(A:nrows())
      local before = launches(DIA_CG)
      local x, it1 = sparse.cg(A, b, {tol = 1e-12, maxiter = 500})
      local xr, it2 = sparse.cg(plain_copy(A), b, {tol = 1e-12, maxiter = 500})
      if HOST then assert.are.equal(it1, it2) end
      agree(x, xr, 1e-8)
      assert.is_true(launches(DIA_CG) >= before + it1)
    end
  end)

  it("sparse.cg on float32 values: the iterations and the solution of the CSR CG", function()
    local A = box(12, 11, 10, P27, 33.0, "float32")
    local b = vec(A:nrows(), "float32")
    local before = launches(DIA_CG)
    local x, it1 = sparse.cg(A, b, {tol = 1e-5, maxiter = 300})
    local xr, it2 = sparse.cg(plain_copy(A), b, {tol = 1e-5, maxiter = 300})
    if HOST then assert.are.equal(it1, it2) end
    agree(x, xr, 1e-4)
    assert.is_true(launches(DIA_CG) >= before + it1)
  end)

  it("speck.solve.cg, plain and with Jacobi: the same iterations and history", function()
    local A = box(16, 15, 14, P27, 33.0)
    local b = vec(A:nrows())
    for _, pc in ipairs{false, true} do
      local before = launches(DIA_CG)
      local o1 = {tol = 1e-10, precond = pc and solve.jacobi(A) or nil}
      local Ar = plain_copy(A)
      local o2 = {tol = 1e-10, precond = pc and solve.jacobi(Ar) or nil}
      local x, i1 = solve.cg(A, b, o1)
      local xr, i2 = solve.cg(Ar, b, o2)
      agree(x, xr, 1e-8)
      if HOST then
        assert.are.equal(i1.iters, i2.iters)
        for k = 1, #i2.history do assert.are.equal(i2.history[k], i1.history[k]) end
      end
      assert.is_true(launches(DIA_CG) >= before + i1.iters)
    end
  end)
end)

describe("SPECK_SPARSE_NODIA=1 on " .. SPACE, function()
  it("keeps the coded CSR kernels: the same bits as the diagonal form", function()
    local k1, on, k0, off = F.dia_on_off(([[
local speck = require "speck"
local sparse = require "speck.sparse"
local F = dofile(%q)
local rows, cols, vals = {}, {}, {}
local g = 9
for z = 0, g - 1 do for y = 0, g - 1 do for x = 0, g - 1 do
  for dz = -1, 1 do for dy = -1, 1 do for dx = -1, 1 do
    local a, b, c = x + dx, y + dy, z + dz
    if a >= 0 and a < g and b >= 0 and b < g and c >= 0 and c < g then
      rows[#rows + 1] = (z * g + y) * g + x; cols[#cols + 1] = (c * g + b) * g + a
      vals[#vals + 1] = (dx == 0 and dy == 0 and dz == 0) and 40.0 or -1.0 - math.abs(dx + dy) / 4
    end end end end end end end
local A = sparse.from_coo(g * g * g, g * g * g, rows, cols, vals)
local n = A:nrows()
local x = F.vec(n, "float64", 3)
x[3] = math.huge; x[100] = 0 / 0; x[200] = -0.0
local y
for _ = 1, 6 do y = F.vec(n, "float64", 5); sparse.spmv("N", 1.0, A, x, 0.5, y) end
local s = {}
for i = 0, n - 1 do s[#s + 1] = ("%%a"):format(y[i]) end
local xs = sparse.cg(A, F.vec(n), {tol = 1e-12, maxiter = 400})
for i = 0, n - 1 do s[#s + 1] = ("%%a"):format(xs[i]) end
print(F.launches("sparse.spmv_dia", "sparse.spmv_dia_row", "sparse.cg_dia_dots",
                 "sparse.cg_dia_dots_row"), table.concat(s, " "))
]]):format(HERE .. "/csr_fixtures.lua"))
    assert.is_true(k1 > 0)
    assert.are.equal(0, k0)
    if HOST then assert.are.equal(off, on) end
  end)
end)

-- dia.c's term for diagonal q (0-based) at offset o of vector X: the
-- column clamped into [0, nrow) by the one bound o's sign needs; the
-- value from the table, or with 'uni' the diagonal's own dv(q)
local function term(q, o, X, uni)
  local idx = o < 0 and ("r + (%d) < 0 ? 0 : r + (%d)"):format(o, o)
              or o > 0 and ("r + %d < nrow ? r + %d : nrow - 1"):format(o, o) or "r"
  return require("speck.core").kernel_text("sparse_dia_term",
    {Q = tostring(q), X = X, IDX = idx, VAL = uni and ("dv(%d)"):format(q) or "dtab(c_)"})
end

-- the device texts run on this back end: the form built here as dia.c
-- builds it (offsets ascending, blocks of 64 rows, code 0 where a row
-- lacks the column), the texts filled as dia.c fills them
local function device_form(A, X)
  local core = require "speck.core"
  local n, rp, ci, va = A:nrows(), A.rowptr, A.colidx, A.values
  local seen, offs, vals, code = {}, {}, {}, {}
  for i = 0, n - 1 do
    for k = rp[i], rp[i + 1] - 1 do
      local o = ci[k] - i
      if not seen[o] then seen[o] = true; offs[#offs + 1] = o end
    end
  end
  table.sort(offs)
  local q_of = {}
  for q, o in ipairs(offs) do q_of[o] = q - 1 end
  local nd = #offs
  local dc = speck.View("dc", "uint8", ((n + 63) // 64) * 64 * nd)
  local dtab = speck.View("dtab", A:dtype(), 33)
  local dv = speck.View("dv", A:dtype(), nd) -- a diagonal's one value (box's: each has one)
  for i = 0, n - 1 do
    for k = rp[i], rp[i + 1] - 1 do
      local v = va[k]
      if not code[v] then vals[#vals + 1] = v; code[v] = #vals; dtab[#vals] = v end
      dc[(i // 64) * 64 * nd + q_of[ci[k] - i] * 64 + i % 64] = code[v]
      dv[q_of[ci[k] - i]] = v
    end
  end
  -- odd diagonals by their own value, even ones from the table
  local terms = {}
  for q, o in ipairs(offs) do
    terms[#terms + 1] = term(q - 1, o, X, q % 2 == 0)
  end
  return dc, dtab, dv, table.concat(terms, "\n") .. "\n", tostring(nd)
end

describe("the diagonal form's device texts on " .. SPACE, function()
  it("give the CSR sums: SpMV, and CG's SpMV with its dots", function()
    local core = require "speck.core"
    for _, c in ipairs{CASES[1], CASES[3], CASES[7]} do
      local A = box(c[2], c[3], c[4], c[5], c[6])
      local n = A:nrows()
      local x = vec(n, "float64", 3)
      x[0], x[n - 1], x[n // 3] = math.huge, 0 / 0, -math.huge
      local dc, dtab, dv, terms, nd = device_form(A, "x")
      local y, yr = vec(n, "float64", 5), vec(n, "float64", 5)
      speck.parallel_for("dia_spec.spmv_row", n,
        {dc = dc, dtab = dtab, dv = dv, x = x, y = y, alpha = -0.5, beta = 0.25},
        core.kernel_text("sparse_dia_spmv_row", {TERMS = terms, ND = nd}))
      sparse.spmv("N", -0.5, plain_copy(A), x, 0.25, yr)
      same_bits(y, yr) -- a thread a row: the row's sum in order, on every back end
      local u, rv = vec(n, "float64", 3), vec(n, "float64", 7)
      local w, wr = vec(n), vec(n)
      local _, _, _, tu = device_form(A, "u")
      local r3 = {speck.parallel_reduce("dia_spec.cg_row", n,
        {dc = dc, dtab = dtab, dv = dv, u = u, w = w, rv = rv},
        core.kernel_text("sparse_dia_cg_dots_row", {TERMS = tu, ND = nd}),
        {{op = "sum", dtype = "float64"}, {op = "sum", dtype = "float64"},
         {op = "sum", dtype = "float64"}})}
      sparse.spmv("N", 1.0, plain_copy(A), u, 0.0, wr)
      same_bits(w, wr)
      local g, d, q = 0, 0, 0
      for i = 0, n - 1 do
        g, d, q = g + rv[i] * u[i], d + wr[i] * u[i], q + rv[i] * rv[i]
      end
      for k, e in ipairs{g, d, q} do
        assert(math.abs(r3[k] - e) <= 1e-12 * math.abs(e), ("sum %d: %.17g against %.17g"):format(k, r3[k], e))
      end
    end
  end)
end)

describe("the diagonal form's device bodies", function()
  it("compile with NVRTC for a 27-point and a 5-point offset set", function()
    local info = speck.info()
    if not HOST then -- a GPU back end: they ran on the device above
      assert.is_true(launches("sparse.spmv_dia_row") > 0)
      assert.is_true(launches("sparse.cg_dia_dots_row") > 0)
      return
    end
    local nv = info.compilers.nvrtc
    if not (nv and nv.available) then
      pending("NVRTC unavailable: " .. tostring(nv and nv.reason))
      return
    end
    local core = require "speck.core"
    local V = F.V
    local made = 0
    for _, offs in ipairs{{-901, -900, -899, -31, -30, -29, -1, 0, 1, 29, 30, 31, 899, 900, 901},
                          {-64, -1, 0, 1, 64}} do
      local terms = {}
      for q, o in ipairs(offs) do
        for _, X in ipairs{"x", "u"} do
          terms[X] = (terms[X] or "") .. term(q - 1, o, X, q % 2 == 0) .. "\n"
        end
      end
      for _, dt in ipairs{"float64", "float32"} do
        made = made + 1
        speck.kernel("dia_gpu_spmv_" .. made, "range",
          {dc = V("uint8"), dtab = V(dt, 3), dv = V(dt), x = V(dt), y = V(dt), alpha = 1.0,
           beta = 0.0},
          core.kernel_text("sparse_dia_spmv_row", {TERMS = terms.x, ND = tostring(#offs)}), {target = "cuda"})
        speck.kernel("dia_gpu_cg_" .. made, "range",
          {dc = V("uint8"), dtab = V(dt, 3), dv = V(dt), u = V(dt), w = V(dt), rv = V(dt)},
          core.kernel_text("sparse_dia_cg_dots_row", {TERMS = terms.u, ND = tostring(#offs)}),
          {target = "cuda", pattern = "reduce",
           reducer = {{op = "sum", dtype = "float64"}, {op = "sum", dtype = "float64"},
                      {op = "sum", dtype = "float64"}}})
      end
    end
    local seen = 0
    for _, k in ipairs(speck.jit.stats().per_kernel) do
      if k.label:match("^dia_gpu_") then
        assert.are.equal("nvrtc", k.tier, k.label)
        seen = seen + 1
      end
    end
    assert.are.equal(2 * made, seen)
    -- the coding pass, a library body
    local ok, seen2 = F.nvrtc_compile("dia_gpu_code_", {
      {"sparse_dia_code", "range", {rowptr = V("int64", 5), colidx = V("int32"),
        vcode = V("uint8"), doff = V("int64"), dc = V("uint8"), nd = {"int64", 2},
        w = {"int64", 2}}, {pattern = "reduce", reducer = {{op = "max", dtype = "int64"},
                                                           {op = "bor", dtype = "int64"}}}}})
    assert(ok, seen2)
    assert.are.equal(1, seen2)
  end)
end)
