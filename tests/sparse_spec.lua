local speck = require "speck"
local sparse = require "speck.sparse"
-- sparse_spec.lua: speck.sparse against SciPy (Debian's python3-scipy,
-- run once per spec run with /usr/bin/python3 on inputs written here; see
-- tests/sparse_oracle.py): CrsMatrix construction (COO with duplicates,
-- sorted and unsorted, dense, transpose, copies between spaces), Matrix
-- Market files (every format, field and symmetry, round trips, every
-- malformed file with its line number), SpMV in every mode and rank with
-- the BLAS rules for alpha and beta, structured SpMV for every stencil,
-- on random matrices of several shapes (empty rows, empty matrix, 1x1,
-- rectangular, one row with thousands of entries) in float64 and
-- float32. tests/run.sh runs it once per back end; views are created in
-- the default space, so it runs on cuda (with SPECK_CUDA_UVM=1) too.
-- SpGEMM, SpAdd, SpTRSV and CG are in sparse_algos_spec.lua.

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local U = dofile(HERE .. "/sparse_util.lua")
teardown(U.cleanup)
U.bind(assert, pending)
local DIR, rval, random_coo, write_coo, write_dense = U.DIR, U.rval, U.random_coo,
  U.write_coo, U.write_dense
local read_dense, rand_vec, TOL, view_of, assert_dense = U.read_dense, U.rand_vec,
  U.TOL, U.view_of, U.assert_dense
local matrix_of, err_of = U.matrix_of, U.err_of

local SHAPES = {
  {name = "empty rows", m = 40, n = 30, per_row = 4, empty = 0.3},
  {name = "empty matrix", m = 0, n = 0, per_row = 0, empty = 0},
  {name = "no entries", m = 4, n = 3, per_row = 0, empty = 1},
  {name = "1x1", m = 1, n = 1, per_row = 1, empty = 0},
  {name = "rectangular tall", m = 53, n = 37, per_row = 3, empty = 0.1},
  {name = "rectangular wide", m = 37, n = 53, per_row = 5, empty = 0.1},
  {name = "long row", m = 20, n = 3000, per_row = 2, empty = 0.2,
   long_row = 7, long_n = 2500},
}

-- -- the cases, and one run of the oracle -------------------------------------
local CASES = {}
local jobs = {}
local function job(line) jobs[#jobs + 1] = line end

for s, shape in ipairs(SHAPES) do
  local r, c, v = random_coo(shape.m, shape.n, shape.per_row, shape.empty, shape)
  local case = {shape = shape, r = r, c = c, v = v, id = "m" .. s}
  write_coo(DIR .. "/" .. case.id, shape.m, shape.n, r, c, v)
  job(("dense %s.dense %s"):format(case.id, case.id))
  case.spmv = {}
  for _, mode in ipairs{"N", "T", "C", "H"} do
    for _, k in ipairs{1, 3} do
      for _, ab in ipairs{{1.0, 0.0}, {-0.5, 2.0}, {0.0, 0.5}, {2.0, 1.0}} do
        local trans = mode == "T" or mode == "H"
        local nx = trans and shape.m or shape.n
        local ny = trans and shape.n or shape.m
        local x, y = rand_vec(nx, k), rand_vec(ny, k)
        local id = ("%s.spmv.%s.%d.%g.%g"):format(case.id, mode, k, ab[1], ab[2])
        write_dense(DIR .. "/" .. id .. ".x", x, nx, k)
        write_dense(DIR .. "/" .. id .. ".y", y, ny, k)
        job(("spmv %s.out %s %.17g %.17g %s %s.x %s.y"):format(id, mode, ab[1], ab[2],
            case.id, id, id))
        case.spmv[#case.spmv + 1] = {id = id, mode = mode, k = k, alpha = ab[1],
                                     beta = ab[2], x = x, y = y, nx = nx, ny = ny}
      end
    end
  end
  CASES[#CASES + 1] = case
end

local ORACLE_ERR = U.run_oracle(jobs)
local function need_oracle() return U.need_oracle(ORACLE_ERR) end
-- the cases' own SciPy commands: one Python process for the file
-- (tests/py_serve.lua)
local py
if U.HAVE_SCIPY then
  local close
  py, close = dofile(HERE .. "/py_serve.lua")(U.PY, DIR, HERE)
  teardown(close)
end

-- -- specs ------------------------------------------------------------------------
describe("speck.sparse CrsMatrix", function()
  for _, case in ipairs(CASES) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("from_coo sums duplicates and sorts rows (%s, %s)"):format(case.shape.name, dtype),
         function()
        if not need_oracle() then return end
        local A = matrix_of(case, dtype)
        assert.are.equal(case.shape.m, A:nrows())
        assert.are.equal(case.shape.n, A:ncols())
        assert.are.equal(dtype, A:dtype())
        assert.is_true(A:is_sorted())
        local rp, ci = A.rowptr:totable(), A.colidx:totable()
        for i = 1, A:nrows() do
          for k = rp[i] + 2, rp[i + 1] do
            assert.is_true(ci[k] > ci[k - 1], "row sorted without duplicates")
          end
        end
        assert_dense(A:to_dense(), read_dense(DIR .. "/" .. case.id .. ".dense"), dtype,
                     "to_dense")
        local T = A:transpose()
        assert.are.equal(A:ncols(), T:nrows())
        local D, DT = read_dense(DIR .. "/" .. case.id .. ".dense"), {}
        for j = 1, case.shape.n do
          DT[j] = {}
          for i = 1, case.shape.m do DT[j][i] = D[i][j] end
        end
        assert_dense(T:to_dense(), DT, dtype, "transpose")
        local B = sparse.from_dense(A:to_dense())
        assert_dense(B:to_dense(), D, dtype, "from_dense")
      end)
    end
  end

  it("keeps input order with sort = false (duplicates at their first place)", function()
    local r, c, v = {0, 2, 0, 1, 0}, {1, 3, 1, 0, 0}, {1.0, 2.0, 3.0, 4.0, 5.0}
    local U = sparse.from_coo(3, 4, r, c, v, {sort = false})
    assert.are.same({0, 2, 3, 4}, U.rowptr:totable())
    assert.are.same({1, 0, 0, 3}, U.colidx:totable())
    assert.are.same({4.0, 5.0, 4.0, 2.0}, U.values:totable())
    assert.is_false(U:is_sorted())
    local W = sparse.from_coo(3, 4, r, c, v, {sort = false, sum_duplicates = false})
    assert.are.same({1, 1, 0, 0, 3}, W.colidx:totable())
    assert.are.same({1.0, 3.0, 5.0, 4.0, 2.0}, W.values:totable())
    local S = sparse.from_coo(3, 4, r, c, v, {sum_duplicates = false})
    assert.are.same({0, 1, 1, 0, 3}, S.colidx:totable())
    assert.are.same({5.0, 1.0, 3.0, 4.0, 2.0}, S.values:totable())
  end)

  it("takes views (int64 or int32) and keeps its views' space", function()
    local r = speck.View.from({0, 1, 1}, "int32")
    local c = speck.View.from({1, 0, 1}, "int32")
    local v = speck.View.from({1.5, 2.5, 3.5}, "float32")
    local A = sparse.from_coo(2, 2, r, c, v)
    assert.are.equal("float32", A:dtype())
    assert.are.equal(r:space(), A:space())
    assert.are.same({0, 1, 3}, A.rowptr:totable())
    local A2 = sparse.from_coo(2, 2, r, c)   -- a pattern: ones
    assert.are.same({1.0, 1.0, 1.0}, A2.values:totable())
  end)

  it("CrsMatrix{} wraps views after checking them", function()
    local A = sparse.CrsMatrix{nrows = 2, ncols = 3,
      rowptr = speck.View.from({0, 2, 3}, "int64"),
      colidx = speck.View.from({2, 0, 1}, "int32"),
      values = speck.View.from({1, 2, 3}, "float64")}
    assert.are.equal(3, A:nnz())
    assert.is_false(A:is_sorted())
    assert.are.equal("CrsMatrix<float64, 2x3, nnz 3, " .. A:space() .. ">", tostring(A))
  end)

  it("A:to(space) makes a deep copy", function()
    local A = sparse.from_coo(2, 2, {0, 1}, {1, 0}, {1.0, 2.0})
    local B = A:to(A:space())
    B.values[0] = 7
    assert.are.same({1.0, 2.0}, A.values:totable())
    assert.are.same({7.0, 2.0}, B.values:totable())
    assert.are.equal(A:space(), B:space())
    local H = A:to("host")
    assert.are.equal("host", H:space())
    assert.are.same({1.0, 2.0}, H.values:totable())
  end)

  it("refuses bad input with a message naming the function and the object", function()
    assert.are.equal("speck.sparse.from_coo: entry 1 is (3, 1), outside the 3x4 matrix (indices are 0-based)",
      err_of(sparse.from_coo, 3, 4, {0, 3}, {1, 1}, {1.0, 2.0}))
    assert.are.equal("speck.sparse.from_coo: entry 0 is (0, -1), outside the 3x4 matrix (indices are 0-based)",
      err_of(sparse.from_coo, 3, 4, {0}, {-1}, {1.0}))
    assert.are.equal("speck.sparse.from_coo: rows has 2 entries, cols 1, vals 2",
      err_of(sparse.from_coo, 3, 4, {0, 1}, {1}, {1.0, 2.0}))
    assert.are.equal("speck.sparse.from_coo: rows[2] must be an integer, got 1.5",
      err_of(sparse.from_coo, 3, 4, {0, 1.5}, {1, 1}, {1.0, 2.0}))
    assert.are.equal("speck.sparse.from_coo: dtype 'int32': values must be float64, float32, complex128 or complex64",
      err_of(sparse.from_coo, 3, 4, {0}, {1}, nil, {dtype = "int32"}))
    assert.are.equal("speck.sparse.from_coo: a 3x3000000000 matrix: rows and columns must be in 0..2147483647 (int32 column indices)",
      err_of(sparse.from_coo, 3, 3000000000, {0}, {1}, {1.0}))
    local rp = speck.View.from({0, 1, 3}, "int64")
    local ci = speck.View.from({0, 5, 1}, "int32")
    local va = speck.View.from({1, 2, 3}, "float64")
    assert.are.equal("speck.sparse.CrsMatrix: row 1 of A has a column outside [0, 2)",
      err_of(sparse.CrsMatrix, {nrows = 2, ncols = 2, rowptr = rp, colidx = ci, values = va}))
    assert.are.equal("speck.sparse.CrsMatrix: A.rowptr(2) is 3, A.colidx has 2 entries",
      err_of(sparse.CrsMatrix, {nrows = 2, ncols = 2, rowptr = rp,
                                colidx = speck.View.from({0, 1}, "int32"),
                                values = speck.View.from({1, 2}, "float64")}))
    assert.are.equal("speck.sparse.CrsMatrix: A.colidx (view 'v') is int64, must be int32",
      err_of(sparse.CrsMatrix, {nrows = 2, ncols = 2, rowptr = rp,
                                colidx = speck.View("v", "int64", 3), values = va}))
    assert.are.equal("speck.sparse.CrsMatrix: A.rowptr decreases or leaves [0, 3] at row 0",
      err_of(sparse.CrsMatrix, {nrows = 2, ncols = 2, rowptr = speck.View.from({0, 4, 3}, "int64"),
                                colidx = ci, values = va}))
    assert.are.equal("speck.sparse.from_dense: V (view 'v') is rank 1, expected rank 2",
      err_of(sparse.from_dense, speck.View("v", "float64", 3)))
  end)
end)

-- -- Matrix Market ----------------------------------------------------------------
local function mm_file(name, text)
  local path = DIR .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local function dense_of(A)
  local D = A:to_dense()
  local t = {}
  for i = 0, A:nrows() - 1 do
    t[i + 1] = {}
    for j = 0, A:ncols() - 1 do t[i + 1][j + 1] = D(i, j) end
  end
  return t
end

describe("speck.sparse Matrix Market", function()
  it("reads every format, field and symmetry", function()
    local B = "%%MatrixMarket matrix "
    local A = sparse.read_mm(mm_file("gen.mtx", B .. "coordinate real general\n% c\n\n3 2 4\n1 1 1.5\n3 2 -2e1\n1 1 0.5\n2 1 3\n"))
    assert.are.same({{2, 0}, {3, 0}, {0, -20}}, dense_of(A))
    A = sparse.read_mm(mm_file("sym.mtx", B .. "coordinate integer symmetric\n3 3 3\n1 1 2\n3 1 -1\n3 3 5\n"))
    assert.are.same({{2, 0, -1}, {0, 0, 0}, {-1, 0, 5}}, dense_of(A))
    A = sparse.read_mm(mm_file("skew.mtx", B .. "coordinate real skew-symmetric\n2 2 1\n2 1 4\n"))
    assert.are.same({{0, -4}, {4, 0}}, dense_of(A))
    A = sparse.read_mm(mm_file("pat.mtx", B .. "coordinate pattern general\n2 3 2\n1 3\n2 1\n"))
    assert.are.same({{0, 0, 1}, {1, 0, 0}}, dense_of(A))
    A = sparse.read_mm(mm_file("arr.mtx", B .. "array real general\n2 3\n1\n2\n0\n4\n5\n0\n"))
    assert.are.same({{1, 0, 5}, {2, 4, 0}}, dense_of(A))
    assert.are.equal(4, A:nnz())
    A = sparse.read_mm(mm_file("arrs.mtx", B .. "array real symmetric\n2 2\n1\n2\n3\n"))
    assert.are.same({{1, 2}, {2, 3}}, dense_of(A))
    A = sparse.read_mm(mm_file("arrk.mtx", B .. "array integer skew-symmetric\n3 3\n1\n2\n3\n"))
    assert.are.same({{0, -1, -2}, {1, 0, -3}, {2, 3, 0}}, dense_of(A))
    A = sparse.read_mm(mm_file("f32.mtx", B .. "coordinate real general\n1 1 1\n1 1 0.1\n"), {dtype = "float32"})
    assert.are.equal("float32", A:dtype())
    A = sparse.read_mm(mm_file("empty.mtx", B .. "coordinate real general\n0 0 0\n"))
    assert.are.equal(0, A:nrows())
  end)

  it("reads more entries than m*n: the duplicates summed, as SciPy reads them", function()
    local B = "%%MatrixMarket matrix coordinate "
    local lines = {B .. "real general", "% 10 entries in a 2x2 matrix", "2 2 10"}
    for k = 1, 10 do lines[#lines + 1] = ("%d %d %g"):format((k % 2) + 1, (k % 3 == 0) and 2 or 1, k) end
    local path = mm_file("dups.mtx", table.concat(lines, "\n") .. "\n")
    local A = sparse.read_mm(path)
    assert.are.equal(2, A:nrows())
    local got = dense_of(A)
    assert.are.same({{2 + 4 + 8 + 10, 6}, {1 + 5 + 7, 3 + 9}}, got)
    if U.HAVE_SCIPY then
      local out = py("-c \"import scipy.io, sys; a = scipy.io.mmread(sys.argv[1]).toarray(); " ..
                     "print(' '.join(repr(float(v)) for v in a.ravel()))\" " .. path)
      local flat = {}
      for w in out:gmatch("%S+") do flat[#flat + 1] = tonumber(w) end
      assert.are.same({got[1][1], got[1][2], got[2][1], got[2][2]}, flat)
    end
    -- symmetric: 5 entries of a 2x2 lower triangle (3 places), mirrored
    A = sparse.read_mm(mm_file("dupsym.mtx", B .. "integer symmetric\n2 2 5\n1 1 1\n2 1 2\n2 1 3\n2 2 4\n1 1 5\n"))
    assert.are.same({{6, 5}, {5, 4}}, dense_of(A))
    -- a pattern file's duplicates count (SciPy's sum of ones)
    A = sparse.read_mm(mm_file("duppat.mtx", B .. "pattern general\n1 2 4\n1 1\n1 2\n1 1\n1 1\n"))
    assert.are.same({{3, 1}}, dense_of(A))
  end)

  it("refuses what is not a regular file, before it could block", function()
    local fifo = DIR .. "/fifo.mtx"
    assert(os.execute("mkfifo '" .. fifo .. "'"))
    local tail = ": only regular files are read (reading it could block or never end)"
    assert.are.equal("speck.sparse.read_mm: cannot read '" .. fifo .. "', a FIFO (named pipe)" .. tail,
                     err_of(sparse.read_mm, fifo))
    assert.are.equal("speck.sparse.read_mm: cannot read '/dev/null', a character device" .. tail,
                     err_of(sparse.read_mm, "/dev/null"))
    assert.are.equal("speck.sparse.read_mm: cannot read '" .. DIR .. "', a directory" .. tail,
                     err_of(sparse.read_mm, DIR))
  end)

  for _, case in ipairs(CASES) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("round trips a matrix (%s, %s)"):format(case.shape.name, dtype), function()
        local A = matrix_of(case, dtype)
        local path = DIR .. "/rt.mtx"
        sparse.write_mm(path, A)
        local B = sparse.read_mm(path, {dtype = dtype})
        assert.are.same(A.rowptr:totable(), B.rowptr:totable())
        assert.are.same(A.colidx:totable(), B.colidx:totable())
        assert.are.same(A.values:totable(), B.values:totable())
        assert.are.equal(A:ncols(), B:ncols())
      end)
    end
  end

  it("round trips integer and pattern fields", function()
    local A = sparse.from_coo(2, 3, {0, 1, 1}, {2, 0, 1}, {3.0, -4.0, 5.0})
    local path = DIR .. "/int.mtx"
    sparse.write_mm(path, A, {field = "integer"})
    assert.are.same(dense_of(A), dense_of(sparse.read_mm(path)))
    sparse.write_mm(path, A, {field = "pattern"})
    assert.are.same({{0, 0, 1}, {1, 1, 0}}, dense_of(sparse.read_mm(path)))
    local F = sparse.from_coo(1, 1, {0}, {0}, {0.5})
    assert.are.equal("speck.sparse.write_mm: field 'integer': A has the value 0.5 (entry 0)",
      err_of(sparse.write_mm, path, F, {field = "integer"}))
  end)

  it("writes symmetric, skew-symmetric and array files that SciPy reads as the same matrix", function()
    if not need_oracle() then return end
    local S = sparse.from_coo(3, 3, {0, 1, 0, 2, 2, 0, 1}, {0, 0, 1, 2, 0, 2, 1},
                              {2, -1.5, -1.5, 4, 0.25, 0.25, 3})
    local I = sparse.from_coo(3, 3, {0, 1, 0, 2, 1}, {0, 0, 1, 2, 1}, {2, -1, -1, 4, 3})
    local K = sparse.from_coo(3, 3, {1, 0, 2, 0}, {0, 1, 0, 2}, {5.0, -5.0, -2.0, 2.0})
    local G = sparse.from_coo(2, 3, {0, 1, 1}, {2, 0, 1}, {3.0, -4.0, 0.5})
    local files = {
      {S, {symmetry = "symmetric"}, "coordinate real symmetric", 5},
      {K, {symmetry = "skew-symmetric"}, "coordinate real skew-symmetric", 2},
      {I, {symmetry = "symmetric", field = "integer"}, "coordinate integer symmetric", 4},
      {S, {symmetry = "symmetric", field = "pattern"}, "coordinate pattern symmetric", 5,
       {{1, 1, 1}, {1, 1, 0}, {1, 0, 1}}},
      {G, {format = "array"}, "array real general", nil},
      {S, {format = "array", symmetry = "symmetric"}, "array real symmetric", nil},
      {K, {format = "array", symmetry = "skew-symmetric"}, "array real skew-symmetric", nil},
    }
    for n, c in ipairs(files) do
      local A, path = c[1], ("%s/w%d.mtx"):format(DIR, n)
      sparse.write_mm(path, A, c[2])
      local f = assert(io.open(path))
      local banner, body = f:read("l"), f:read("a")
      f:close()
      if c[3] then assert.are.equal("%%MatrixMarket matrix " .. c[3], banner) end
      if c[4] then assert.are.equal(c[4], select(2, body:gsub("\n", "")) - 2) end
      local want = c[5] or dense_of(A)
      assert.are.same(want, dense_of(sparse.read_mm(path)))
      local out = py("-c \"import scipy.io, sys; a = scipy.io.mmread(sys.argv[1]); " ..
                     "a = a.toarray() if hasattr(a, 'toarray') else a; " ..
                     "print(' '.join(repr(float(v)) for v in a.ravel()))\" " .. path)
      local flat = {}
      for _, row in ipairs(want) do for _, v in ipairs(row) do flat[#flat + 1] = v end end
      local got = {}
      for w in out:gmatch("%S+") do got[#got + 1] = tonumber(w) end
      assert.are.same(flat, got)
    end
    local path = DIR .. "/wbad.mtx"
    assert.are.equal("speck.sparse.write_mm: symmetry 'symmetric': A(0,2) = 3 has no entry A(2,0)",
      err_of(sparse.write_mm, path, sparse.from_coo(3, 3, {0}, {2}, {3.0}), {symmetry = "symmetric"}))
    assert.are.equal("speck.sparse.write_mm: symmetry 'symmetric': A(0,1) = -1.5 but A(1,0) = 2",
      err_of(sparse.write_mm, path, sparse.from_coo(2, 2, {0, 1}, {1, 0}, {-1.5, 2.0}),
             {symmetry = "symmetric"}))
    assert.are.equal("speck.sparse.write_mm: symmetry 'skew-symmetric': A(1,1) = 1 on the diagonal (must be 0)",
      err_of(sparse.write_mm, path, sparse.from_coo(2, 2, {1}, {1}, {1.0}), {symmetry = "skew-symmetric"}))
    assert.are.equal("speck.sparse.write_mm: symmetry 'symmetric': A is 2x3, not square",
      err_of(sparse.write_mm, path, G, {symmetry = "symmetric"}))
    assert.are.equal("speck.sparse.write_mm: symmetry 'hermitian' needs the field 'complex'",
      err_of(sparse.write_mm, path, G, {symmetry = "hermitian"}))
    assert.are.equal("speck.sparse.write_mm: symmetry 'upper' is not general, symmetric, skew-symmetric or hermitian",
      err_of(sparse.write_mm, path, G, {symmetry = "upper"}))
    assert.are.equal("speck.sparse.write_mm: format 'dense' is not coordinate or array",
      err_of(sparse.write_mm, path, G, {format = "dense"}))
    assert.are.equal("speck.sparse.write_mm: format 'array' holds values: field 'pattern' needs 'coordinate'",
      err_of(sparse.write_mm, path, G, {format = "array", field = "pattern"}))
    assert.are.equal("speck.sparse.write_mm: field 'pattern' has no signs: symmetry 'skew-symmetric' needs values",
      err_of(sparse.write_mm, path, K, {field = "pattern", symmetry = "skew-symmetric"}))
    assert.is_nil(io.open(path))   -- nothing half-written
  end)

  it("names the file, the line and the token of a malformed file, building nothing", function()
    local B = "%%MatrixMarket matrix coordinate real general\n"
    local cases = {
      {"", "line 1: the file is empty (no %%MatrixMarket banner)"},
      {"%%MatrixMarket matrix coordinate real\n", "line 1: the banner has 4 words, expected 5 (%%MatrixMarket matrix format field symmetry)"},
      {"hello world\n", "line 1: not a Matrix Market file: the banner 'hello world' does not start with %%MatrixMarket"},
      {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n", "line 3: entry (1, 1) has no imaginary part (a complex field needs \"re im\")"},
      {"%%MatrixMarket vector coordinate real general\n", "line 1: object 'vector' is not supported (only 'matrix')"},
      {"%%MatrixMarket matrix coordinate real hermitian\n", "line 1: symmetry 'hermitian' needs the field 'complex'"},
      {B .. "3 3\n", "line 2: the size line has 2 numbers, expected 3 (rows columns entries)"},
      {B .. "% only comments\n", "line 3: the file ends before the size line"},
      {B .. "3 3 x\n", "line 2: size 'x' is not an integer"},
      {B .. "3 3 2\n1 1 1.0\n", "line 4: the file ends after 1 of 2 entries (truncated?)"},
      {B .. "3 3 1\n1 1 1.0\n2 2 2.0\n", "line 4: more entries than the 1 the size line announced"},
      {B .. "3 3 1\n0 1 1.0\n", "line 3: row index 0 is outside 1..3"},
      {B .. "3 3 1\n1 4 1.0\n", "line 3: column index 4 is outside 1..3"},
      {B .. "3 3 1\n1 1 abc\n", "line 3: value 'abc' is not a number"},
      {B .. "3 3 1\n1 1\n", "line 3: entry (1, 1) has no value"},
      {B .. "3 3 1\n1 1 2 3\n", "line 3: unexpected '3' after the entry"},
      {B .. "3 3 1\n1\n", "line 3: entry 1 of 1: expected 'row column value', got '1'"},
      {B .. "3 3 1\n1.5 1 2\n", "line 3: row index '1.5' is not an integer"},
      {"%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n", "line 3: value '2.5' is not an integer (the file says integer)"},
      {"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 2 5\n", "line 4: entry (1, 2) is above the diagonal; a symmetric file stores the lower triangle"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", "line 3: entry (2, 2) is on the diagonal of a skew-symmetric matrix"},
      {"%%MatrixMarket matrix coordinate real symmetric\n3 2 0\n", "line 2: a symmetric matrix must be square, the size line says 3x2"},
      {B .. "3000000000 3 0\n", "line 2: a 3000000000x3 matrix overflows int32 column indices (at most 2147483647)"},
      {B .. "2 2 5\n", "line 3: the file ends after 0 of 5 entries (truncated?)"},
      {B .. "2 2 5\n1 1 1\n1 1 2\n% c\n", "line 6: the file ends after 2 of 5 entries (truncated?)"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 2\n", "line 5: the file ends after 2 of 3 entries (truncated?)"},
      -- text only: a NUL byte, a binary file
      {B .. "3 3 2\n1 1 1\n2 2\0 3\n", "line 4: byte 0x00 at offset 61 is not text (a binary file?)"},
      {B .. "3 3 1\n1 1 1\n\0\0\0\0", "line 4: byte 0x00 at offset 58 is not text (a binary file?)"},
      {"\x93NUMPY\x01\x00v\x00{'descr'", "line 1: byte 0x01 at offset 6 is not text (a binary file?)"},
      {"%%MatrixMarket matrix coordinate real general\r\n% \x1b[1mbold\x1b[0m\r\n", "line 2: byte 0x1b at offset 49 is not text (a binary file?)"},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "line 6: the file ends after 3 of 4 entries (truncated?)"},
      {"%%MatrixMarket matrix array pattern general\n2 2\n", "line 1: an array file cannot have field 'pattern'"},
    }
    for n, c in ipairs(cases) do
      local path = mm_file("bad" .. n .. ".mtx", c[1])
      assert.are.equal(("speck.sparse.read_mm: '%s' %s"):format(path, c[2]),
                       err_of(sparse.read_mm, path))
    end
    assert.are.equal(("speck.sparse.read_mm: cannot open '%s/none.mtx': No such file or directory"):format(DIR),
                     err_of(sparse.read_mm, DIR .. "/none.mtx"))
    assert.are.equal("speck.sparse.read_mm: dtype 'int64': values must be float64, float32, complex128 or complex64",
                     err_of(sparse.read_mm, DIR .. "/gen.mtx", {dtype = "int64"}))
  end)
end)

-- -- SpMV ----------------------------------------------------------------------------
describe("speck.sparse.spmv", function()
  it("runs the rows and team algorithms alike and refuses another", function()
    local A = sparse.from_coo(3, 3, {0, 1, 2, 2}, {0, 1, 0, 2}, {2.0, 3.0, 1.0, 4.0})
    local x = speck.View("x", "float64", 3):fill(1)
    for _, algo in ipairs{"rows", "team", "auto"} do
      local y = speck.View("y", "float64", 3)
      sparse.spmv("N", 1.0, A, x, 0.0, y, {algorithm = algo})
      assert.are.same({2, 3, 5}, y:totable())
    end
    assert.are.equal("speck.sparse.spmv: algorithm 'host' is not auto, rows or team",
      err_of(sparse.spmv, "N", 1.0, A, x, 0.0, speck.View("y", "float64", 3), {algorithm = "host"}))
  end)

  for _, case in ipairs(CASES) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("matches SciPy in every mode and rank (%s, %s)"):format(case.shape.name, dtype), function()
        if not need_oracle() then return end
        local A = matrix_of(case, dtype)
        local algos = {{}}
        if dtype == "float64" then algos[2] = {algorithm = "team"} end
        for _, t in ipairs(case.spmv) do
          for _, opts in ipairs(algos) do
            local x = view_of(t.x, t.nx, t.k, dtype)
            local y = view_of(t.y, t.ny, t.k, dtype)
            if t.beta == 0 and t.ny > 0 then   -- beta = 0 overwrites NaN
              if t.k == 1 then y[0] = 0 / 0 else y:set(0, 0, 0 / 0) end
            end
            if t.alpha == 0 and t.nx > 0 then  -- alpha = 0 does not read x
              if t.k == 1 then x[0] = 0 / 0 else x:set(0, 0, 0 / 0) end
            end
            sparse.spmv(t.mode, t.alpha, A, x, t.beta, y, opts)
            assert_dense(y, read_dense(DIR .. "/" .. t.id .. ".out"), dtype,
                         ("spmv %s k=%d alpha=%g beta=%g %s"):format(t.mode, t.k, t.alpha,
                         t.beta, opts.algorithm or ""))
          end
        end
      end)
    end
  end

  it("names both shapes on a mismatch, and every other bad argument", function()
    local A = sparse.from_coo(3, 2, {0, 2}, {1, 0}, {1.0, 2.0})
    local x2, x3 = speck.View("x", "float64", 2), speck.View("x", "float64", 3)
    local y2, y3 = speck.View("y", "float64", 2), speck.View("y", "float64", 3)
    assert.are.equal("speck.sparse.spmv: mode N: A is 3x2, x (view 'x') has 3 rows and y (view 'y') 3; op(A)*x needs x of 2 and y of 3",
      err_of(sparse.spmv, "N", 1.0, A, x3, 0.0, y3))
    assert.are.equal("speck.sparse.spmv: mode T: A is 3x2, x (view 'x') has 2 rows and y (view 'y') 2; op(A)*x needs x of 3 and y of 2",
      err_of(sparse.spmv, "T", 1.0, A, x2, 0.0, y2))
    assert.are.equal('speck.sparse.spmv: mode must be "N", "T", "C" or "H", got X',
      err_of(sparse.spmv, "X", 1.0, A, x2, 0.0, y3))
    assert.are.equal("speck.sparse.spmv: A must be a CrsMatrix, got table",
      err_of(sparse.spmv, "N", 1.0, {}, x2, 0.0, y3))
    assert.are.equal("speck.sparse.spmv: x (view 'x') is int32, must be float64 or float32",
      err_of(sparse.spmv, "N", 1.0, A, speck.View("x", "int32", 2), 0.0, y3))
    assert.are.equal("speck.sparse.spmv: x (view 'x') is rank 1, y (view 'y') rank 2",
      err_of(sparse.spmv, "N", 1.0, A, x2, 0.0, speck.View("y", "float64", {3, 2})))
    assert.are.equal("speck.sparse.spmv: x (view 'x') has 2 columns, y (view 'y') 3",
      err_of(sparse.spmv, "N", 1.0, A, speck.View("x", "float64", {2, 2}), 0.0,
             speck.View("y", "float64", {3, 3})))
    assert.are.equal("speck.sparse.spmv: alpha must be a number",
      err_of(sparse.spmv, "N", "a", A, x2, 0.0, y3))
    assert.are.equal("speck.sparse.spmv: x (view 'x') is rank 3, must be rank 1 or 2",
      err_of(sparse.spmv, "N", 1.0, A, speck.View("x", "float64", {2, 1, 1}), 0.0, y3))
    local B = sparse.from_coo(2, 2, {0, 1}, {1, 0}, {1.0, 2.0})
    assert.are.equal("speck.sparse.spmv: x (view 'y') and y (view 'y') share memory",
      err_of(sparse.spmv, "N", 1.0, B, y2, 0.0, y2))
  end)
end)

-- -- structured SpMV ---------------------------------------------------------------
-- the stencil matrix of a box (rows x fastest), random values; 'skin'
-- rows get an extra entry so the CSR path is exercised with other lengths
local function stencil_matrix(st, dims, dtype, perturb)
  local nx, ny, nz = dims[1], dims[2] or 1, dims[3] or 1
  local r, c, v = {}, {}, {}
  for iz = 0, nz - 1 do for iy = 0, ny - 1 do for ix = 0, nx - 1 do
    local row = ix + nx * (iy + ny * iz)
    for dz = -1, 1 do for dy = -1, 1 do for dx = -1, 1 do
      local ax, ay, az = dx ~= 0 and 1 or 0, dy ~= 0 and 1 or 0, dz ~= 0 and 1 or 0
      local keep = st == 27 or (st == 9 and az == 0) or (st == 3 and ay + az == 0) or
                   ((st == 5 or st == 7) and ax + ay + az <= 1 and (st == 7 or az == 0))
      local jx, jy, jz = ix + dx, iy + dy, iz + dz
      if keep and jx >= 0 and jx < nx and jy >= 0 and jy < ny and jz >= 0 and jz < nz then
        local col = jx + nx * (jy + ny * jz)
        if row == perturb and col == row - 1 then col = row - nx - 1 end
        r[#r + 1], c[#c + 1], v[#v + 1] = row, col, rval()
      end
    end end end
  end end end
  local n = nx * ny * nz
  return sparse.from_coo(n, n, r, c, v, {dtype = dtype}), n
end

describe("speck.sparse.spmv_struct", function()
  for _, t in ipairs{{3, {17}}, {5, {7, 6}}, {9, {5, 8}}, {7, {4, 5, 6}}, {27, {5, 4, 3}},
                     {27, {2, 3, 4}}} do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("equals plain SpMV for the %d-point stencil on %s (%s)"):format(t[1],
         table.concat(t[2], "x"), dtype), function()
        local A, n = stencil_matrix(t[1], t[2], dtype)
        local x = speck.View("x", dtype, n)
        for i = 0, n - 1 do x[i] = rval() end
        for _, ab in ipairs{{1.0, 0.0}, {0.5, -2.0}, {0.0, 3.0}} do
          local y1, y2 = speck.View("y1", dtype, n), speck.View("y2", dtype, n)
          for i = 0, n - 1 do local w = rval(); y1[i] = w; y2[i] = w end
          sparse.spmv("N", ab[1], A, x, ab[2], y1)
          sparse.spmv_struct(t[1], t[2], ab[1], A, x, ab[2], y2)
          local tol = TOL[dtype] * 10
          for i = 0, n - 1 do
            assert.is_true(math.abs(y1(i) - y2(i)) <= tol * (1 + math.abs(y1(i))),
              ("row %d: %.17g vs %.17g"):format(i, y1(i), y2(i)))
          end
        end
      end)
    end
  end

  it("refuses a matrix without the stencil's structure and bad boxes", function()
    local A, n = stencil_matrix(5, {4, 4}, "float64", 6)
    local x, y = speck.View("x", "float64", n), speck.View("y", "float64", n)
    assert.are.equal("speck.sparse.spmv_struct: A is not a 5-point stencil on the 4x4x1 box: interior row 6 has other columns (rows sorted?)",
      err_of(sparse.spmv_struct, 5, {4, 4}, 1.0, A, x, 0.0, y))
    assert.are.equal("speck.sparse.spmv_struct: A is 16x16; a box of 3x4x1 points needs a square matrix of 12 rows",
      err_of(sparse.spmv_struct, 5, {3, 4}, 1.0, A, x, 0.0, y))
    assert.are.equal("speck.sparse.spmv_struct: stencil must be 3, 5, 7, 9 or 27, got 4",
      err_of(sparse.spmv_struct, 4, {4, 4}, 1.0, A, x, 0.0, y))
    assert.are.equal("speck.sparse.spmv_struct: the 7-point stencil needs dims {nx, ny, nz}, got 2 numbers",
      err_of(sparse.spmv_struct, 7, {4, 4}, 1.0, A, x, 0.0, y))
  end)
end)

describe("speck.sparse (clean-up)", function()
  it("removes its temporary files", function() os.execute("rm -rf " .. DIR) end)
end)
