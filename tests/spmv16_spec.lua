local speck = require "speck"
local sparse = require "speck.sparse"
-- spmv16_spec.lua: the compact index of a CSR matrix (kernels/sparse/csr16.c:
-- int32 row pointers, int16 column offsets from the row), kept with the
-- matrix and read by sparse.spmv (modes N and T, one vector) and the CG of
-- sparse.cg / speck.solve.cg. Its results are the plain CSR kernels' bit for
-- bit (the same sums in the same order): the reference is the same matrix
-- with its arrays exposed (view:data() hands out a raw pointer, after which
-- the library keeps no memo for them, so they take plain CSR). The index is
-- built on the third SpMV of an unchanged pattern (CG: at once); a matrix
-- whose columns lie too far from their row keeps plain CSR; writing the
-- column indices or the row pointers in place (a store from Lua, a kernel,
-- deep_copy, fill) makes the index stale, and the next SpMV is right.
-- Views live in the default space (cuda with SPECK_CUDA_UVM=1 too), where
-- the compact kernels must be the ones launched (speck.jit.stats()).

local SPACE = speck.info().default_space
local HOST = SPACE == "serial" or SPACE == "openmp" or SPACE == "host"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/csr_fixtures.lua")

local SPMV16 = HOST and "sparse.spmv16" or "sparse.spmv16_team"
-- launches of kernels labelled 'label', or its form with value codes
-- (kernels/sparse/vdict.c: "spmv16" -> "spmv16v"; the compact index either
-- way), or for mode N the diagonal form (dia.c), which a band matrix with
-- value codes takes
local function launches(label)
  if label == SPMV16 or label:match("cg_spmv16") then
    return F.launches(label, (label:gsub("16", "16v", 1)), table.unpack(F.DIA))
  end
  return F.launches(label, (label:gsub("16", "16v", 1)))
end

-- a deterministic matrix: rows of entries at 'offs' from the diagonal
-- (columns in range), an empty row every 'gap' rows (0: none)
local function band(m, n, offs, dtype, gap)
  local rows, cols, vals = {}, {}, {}
  for i = 0, m - 1 do
    if gap == 0 or i % gap ~= gap - 1 then
      for _, d in ipairs(offs) do
        local j = i + d
        if j >= 0 and j < n then
          rows[#rows + 1], cols[#cols + 1] = i, j
          -- symmetric values where the pattern is: (i, j) and (j, i) alike
          vals[#vals + 1] = (d == 0 and 8 or -1) + ((math.min(i, j) * 7 + math.max(i, j) * 3) % 13) / 17
        end
      end
    end
  end
  return sparse.from_coo(m, n, rows, cols, vals, {dtype = dtype or "float64"})
end

local plain_copy, vec, same_bits = F.plain_copy, F.vec, F.same_bits

local function close(a, b, tol)
  for i = 0, a:extent(0) - 1 do
    local d = math.abs(a[i] - b[i])
    if d > tol * (1 + math.abs(b[i])) then
      error(("element %d: %.17g against %.17g"):format(i, a[i], b[i]), 2)
    end
  end
end

-- y = beta*y0 + alpha*op(A)*x on A 'reps' times (the last result) and on
-- its plain copy
local function both(mode, alpha, A, beta, reps, dtype)
  local m, n = A:nrows(), A:ncols()
  local xn, yn = mode == "N" and n or m, mode == "N" and m or n
  local x = vec(xn, dtype, 3)
  local y, yr
  for _ = 1, reps do
    y = vec(yn, dtype, 5)
    sparse.spmv(mode, alpha, A, x, beta, y)
  end
  local B = plain_copy(A)
  yr = vec(yn, dtype, 5)
  sparse.spmv(mode, alpha, B, x, beta, yr)
  return y, yr
end

describe("sparse.spmv with the compact index on " .. SPACE, function()
  local CASES = {
    {name = "5-point band", m = 900, n = 900, offs = {-30, -1, 0, 1, 30}, gap = 0},
    {name = "empty rows", m = 500, n = 500, offs = {-7, -2, 0, 3, 9}, gap = 4},
    {name = "wide offsets (32767 both ways)", m = 70000, n = 70000,
     offs = {-32767, 0, 32767}, gap = 0},
    {name = "rectangular", m = 300, n = 450, offs = {-3, 0, 100, 149}, gap = 7},
  }
  for _, c in ipairs(CASES) do
    for _, dt in ipairs{"float64", "float32"} do
      it(c.name .. ", " .. dt .. ": mode N, bit for bit, the compact kernel launched", function()
        local A = band(c.m, c.n, c.offs, dt, c.gap)
        -- (the compact kernels alone: a device's diagonal form sums in
        -- column order, its CSR kernels over vector lanes)
        local csr = {SPMV16, (SPMV16:gsub("16", "16v", 1))}
        local before, c0 = launches(SPMV16), F.launches(table.unpack(csr))
        local y, yr = both("N", 1.0, A, 0.0, 4, dt)
        local same = F.compare(HOST or F.launches(table.unpack(csr)) >= c0 + 4, dt)
        same(y, yr)
        local y2, yr2 = both("N", -0.75, A, 0.5, 4, dt)
        same(y2, yr2)
        assert.is_true(launches(SPMV16) >= before + 4)
      end)
    end
    it(c.name .. ": mode T through the compact index", function()
      local A = band(c.m, c.n, c.offs, "float64", c.gap)
      local before = launches("sparse.spmv16_t")
      local y, yr = both("T", 1.25, A, 0.5, 4, "float64")
      close(y, yr, 1e-13) -- atomic scatter: the order of the adds may differ
      assert.is_true(launches("sparse.spmv16_t") >= before + 2)
    end)
  end

  it("keeps plain CSR where a column lies 32768 from its row (the same results)", function()
    local A = band(70000, 70000, {-32768, 0, 5}, "float64", 0)
    local before = launches(SPMV16)
    local y, yr = both("N", 1.0, A, 0.0, 5, "float64")
    same_bits(y, yr)
    assert.equal(before, launches(SPMV16))
  end)

  it("builds on the third SpMV of an unchanged pattern", function()
    local A = band(400, 400, {-5, 0, 5}, "float64", 0)
    local x, y = vec(400), vec(400)
    local m0, c0 = launches("sparse.csr16_make"), launches(SPMV16)
    sparse.spmv("N", 1.0, A, x, 0.0, y)
    sparse.spmv("N", 1.0, A, x, 0.0, y)
    assert.equal(m0, launches("sparse.csr16_make"))
    assert.equal(c0, launches(SPMV16))
    sparse.spmv("N", 1.0, A, x, 0.0, y)
    sparse.spmv("N", 1.0, A, x, 0.0, y)
    assert.equal(m0 + 1, launches("sparse.csr16_make"))
    assert.equal(c0 + 2, launches(SPMV16))
    -- a matrix sharing the pattern (other values) shares the index
    local B = sparse.CrsMatrix{nrows = 400, ncols = 400, rowptr = A.rowptr,
                               colidx = A.colidx, values = vec(A:nnz(), "float64", 9)}
    sparse.spmv("N", 1.0, B, x, 0.0, y)
    assert.equal(m0 + 1, launches("sparse.csr16_make"))
    assert.equal(c0 + 3, launches(SPMV16))
  end)
end)

describe("the compact index after the pattern changes in place on " .. SPACE, function()
  -- A with its index built (three SpMVs), x; the check: A x now equals the
  -- plain SpMV of a fresh copy
  local function ready()
    local A = band(600, 600, {-20, -1, 0, 1, 20}, "float64", 0)
    local x, y = vec(600), vec(600)
    for _ = 1, 3 do sparse.spmv("N", 1.0, A, x, 0.0, y) end
    return A, x
  end
  local function check(A, x)
    local y = vec(600)
    sparse.spmv("N", 1.0, A, x, 0.0, y)
    local yr = vec(600)
    sparse.spmv("N", 1.0, plain_copy(A), x, 0.0, yr)
    same_bits(y, yr)
    return y
  end

  it("a column index stored from Lua", function()
    local A, x = ready()
    local y0 = check(A, x)
    local k = A.rowptr[300] + 4 -- row 300's last entry (column 320) to column 330
    assert.equal(320, A.colidx[k])
    A.colidx[k] = 330
    local y1 = check(A, x)
    assert.are_not.equal(y0[300], y1[300])
  end)

  it("column indices written by a kernel, and a column too far for int16", function()
    local A, x = ready()
    check(A, x)
    speck.parallel_for("spmv16.shift", A:nrows(), {rp = A.rowptr, ci = A.colidx}, [[
      const int64_t k = rp(i + 1) - 1;
      if (i < 500) ci(k) = ci(k) + 1;]])
    check(A, x)
    local before = launches(SPMV16)
    A.colidx[0] = A.colidx[0] -- the same value: still a write, the index made anew
    check(A, x)
    -- now a column 40000 away would not fit: a bigger matrix
    local Bm = band(50000, 50000, {0, 1}, "float64", 0)
    local bx, by = vec(50000), vec(50000)
    for _ = 1, 3 do sparse.spmv("N", 1.0, Bm, bx, 0.0, by) end
    local k = Bm.rowptr[10] + 1
    Bm.colidx[k] = 40010
    local c = launches(SPMV16)
    sparse.spmv("N", 1.0, Bm, bx, 0.0, by)
    local yr = vec(50000)
    sparse.spmv("N", 1.0, plain_copy(Bm), bx, 0.0, yr)
    same_bits(by, yr)
    assert.equal(c, launches(SPMV16)) -- the rebuilt index does not fit: plain CSR
    assert.is_true(launches(SPMV16) > before)
  end)

  it("column indices rewritten by a library kernel (random.fill)", function()
    local A, x = ready()
    check(A, x)
    local pool = speck.random.Pool(7)
    local w = speck.View("w", "int32", A:nnz())
    speck.random.fill(w, pool, 0, 599)
    speck.random.fill(A.colidx, pool, 0, 599)
    check(A, x)
  end)

  it("column indices replaced by deep_copy and by fill", function()
    local A, x = ready()
    check(A, x)
    local host = speck.View("ci", "int32", A:nnz(), {space = "host"})
    speck.deep_copy(host, A.colidx)
    host[5] = host[5] + 1
    speck.deep_copy(A.colidx, host)
    check(A, x)
    local B = band(64, 64, {0}, "float64", 0)
    local bx, by = vec(64), vec(64)
    for _ = 1, 3 do sparse.spmv("N", 1.0, B, bx, 0.0, by) end
    B.colidx:fill(3)
    sparse.spmv("N", 1.0, B, bx, 0.0, by)
    local yr = vec(64)
    sparse.spmv("N", 1.0, plain_copy(B), bx, 0.0, yr)
    same_bits(by, yr)
  end)

  it("row pointers stored from Lua (an entry moved to the row before)", function()
    local A, x = ready()
    check(A, x)
    A.rowptr[301] = A.rowptr[301] + 1 -- row 301's first entry now ends row 300
    check(A, x)
  end)
end)

describe("CG through the compact index on " .. SPACE, function()
  it("sparse.cg: the plain iteration's result bit for bit, the compact SpMV launched", function()
    local A = band(2500, 2500, {-50, -1, 0, 1, 50}, "float64", 0)
    local b = vec(2500)
    -- the host's fused SpMV and dots; a GPU's SpMV then the dots
    local label = HOST and "solve.cg_spmv16_dots" or SPMV16
    local before = launches(label)
    local x, it1 = sparse.cg(A, b, {tol = 1e-12, maxiter = 200})
    local xr, it2 = sparse.cg(plain_copy(A), b, {tol = 1e-12, maxiter = 200})
    assert.equal(it1, it2)
    if HOST then same_bits(x, xr) else close(x, xr, 1e-10) end
    assert.is_true(launches(label) >= before + it1)
  end)

  it("speck.solve.cg with Jacobi: the same iterations and result", function()
    local solve = require "speck.solve"
    local A = band(1600, 1600, {-40, -1, 0, 1, 40}, "float64", 0)
    local b = vec(1600)
    local x, info = solve.cg(A, b, {tol = 1e-10, precond = solve.jacobi(A)})
    local B = plain_copy(A)
    local xr, info2 = solve.cg(B, b, {tol = 1e-10, precond = solve.jacobi(B)})
    assert.equal(info.iters, info2.iters)
    if HOST then same_bits(x, xr) else close(x, xr, 1e-10) end
  end)
end)

describe("the compact index's device bodies", function()
  it("compile with NVRTC (as the GPU back end compiles them)", function()
    local V = F.V
    local I = function(x) return {"int64", x} end
    local sums = function(k)
      local r = {}
      for q = 1, k do r[q] = {op = "sum", dtype = "float64"} end
      return {pattern = "reduce", reducer = r}
    end
    local jobs = {
      {"sparse_spmv16_team", "team", {rowptr = V("int32", 5), off = V("int16"),
        values = V("float64"), x = V("float64"), y = V("float64"), alpha = 1.0, beta = 0.0,
        rpt = I(2)}, {}},
      {"sparse_spmv16_t", "range", {rowptr = V("int32", 5), off = V("int16"),
        values = V("float64"), x = V("float64"), y = V("float64"), alpha = 1.0}, {}},
      {"sparse_csr16_make", "range", {rowptr = V("int64", 5), colidx = V("int32"),
        rp32 = V("int32", 5), off = V("int16"), n = I(4)},
       {pattern = "reduce", reducer = {{op = "max", dtype = "int64"}, {op = "max", dtype = "int64"}}}},
      {"dist_cg_spmv16_team", "team", {ip = V("int32", 5), io = V("int16"), iv = V("float64"),
        d = V("float64"), r = V("float64"), w = V("float64"), n = I(4)}, sums(1)},
      -- the plain forms written from the same templates
      {"sparse_spmv_team", "team", {rowptr = V("int64", 5), colidx = V("int32"),
        values = V("float64"), x = V("float64"), y = V("float64"), alpha = 1.0, beta = 0.0,
        rpt = I(2)}, {}},
      {"dist_cg_spmv_team", "team", {ip = V("int64", 5), ic = V("int32"), iv = V("float64"),
        d = V("float64"), r = V("float64"), w = V("float64"), n = I(4)}, sums(1)},
    }
    local made, seen = F.nvrtc_compile("spmv16_gpu_", jobs)
    if not made then
      pending(seen)
      return
    end
    for _, k in ipairs(made) do assert.are.equal("nvrtc", k[2], k[1]) end
    assert.is_true(seen >= #jobs)
  end)
end)
