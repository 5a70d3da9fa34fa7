local speck = require "speck"
local sparse = require "speck.sparse"
-- sparse_algos_spec.lua: the multi-phase sparse algorithms against SciPy
-- (tests/sparse_oracle.py, one run per spec run): SpGEMM one-shot and
-- through the symbolic/numeric handle (reused with new values, in place),
-- Jacobi-fused SpGEMM, SpAdd (sorted, unsorted, duplicates; handle reuse),
-- SpTRSV (lower and upper, unit and non-unit, level sets with thin levels
-- chained, a banded matrix whose every level is thin), and CG; on random
-- matrices of several shapes (empty rows, empty matrix, 1x1, rectangular,
-- a row with thousands of entries that overflows the first level of the
-- hashmap accumulator) in float64 and float32; and every bad input with
-- its message. Views live in the default space (cuda with UVM too).

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local U = dofile(HERE .. "/sparse_util.lua")
teardown(U.cleanup)
U.bind(assert, pending)
local DIR, rnd, rval, random_coo, write_coo = U.DIR, U.rnd, U.rval, U.random_coo,
  U.write_coo
local write_dense, read_dense, assert_dense = U.write_dense, U.read_dense, U.assert_dense
local assert_matrix, err_of, TOL = U.assert_matrix, U.err_of, U.TOL

-- shapes of A (m x n) and of B (n x p)
local SHAPES = {
  {name = "empty rows", m = 40, n = 30, p = 25, per_row = 4, empty = 0.3},
  {name = "empty matrix", m = 0, n = 0, p = 0, per_row = 0, empty = 0},
  {name = "no entries", m = 4, n = 3, p = 5, per_row = 0, empty = 1},
  {name = "1x1", m = 1, n = 1, p = 1, per_row = 1, empty = 0},
  {name = "rectangular", m = 53, n = 37, p = 61, per_row = 3, empty = 0.1},
  {name = "long row", m = 20, n = 3000, p = 5000, per_row = 2, empty = 0.2,
   long_row = 7, long_n = 4000, bper = 7},
}

local jobs, CASES = {}, {}
local function job(line) jobs[#jobs + 1] = line end

local function coo(id, m, n, per_row, empty, opts)
  local r, c, v = random_coo(m, n, per_row, empty, opts)
  write_coo(DIR .. "/" .. id, m, n, r, c, v)
  return {id = id, m = m, n = n, r = r, c = c, v = v}
end

for s, sh in ipairs(SHAPES) do
  local A = coo("g" .. s .. "A", sh.m, sh.n, sh.per_row, sh.empty, sh)
  local A2 = coo("g" .. s .. "A2", sh.m, sh.n, sh.per_row, sh.empty, sh)
  local B = coo("g" .. s .. "B", sh.n, sh.p, sh.bper or 3, 0.1)
  -- same patterns as A and B, new values (handle reuse)
  local An = {id = A.id .. "n", m = A.m, n = A.n, r = A.r, c = A.c, v = {}}
  for k = 1, #A.v do An.v[k] = rval() end
  write_coo(DIR .. "/" .. An.id, An.m, An.n, An.r, An.c, An.v)
  local Bn = {id = B.id .. "n", m = B.m, n = B.n, r = B.r, c = B.c, v = {}}
  for k = 1, #B.v do Bn.v[k] = rval() end
  write_coo(DIR .. "/" .. Bn.id, Bn.m, Bn.n, Bn.r, Bn.c, Bn.v)
  job(("spgemm %s.AB %s %s"):format(A.id, A.id, B.id))
  job(("spgemm %s.AB %s %s"):format(An.id, An.id, Bn.id))
  job(("spadd %s.add 1.5 %s -0.25 %s"):format(A.id, A.id, A2.id))
  job(("spadd %s.add 1.5 %s -0.25 %s"):format(An.id, An.id, A2.id))
  CASES[#CASES + 1] = {shape = sh, A = A, A2 = A2, B = B, An = An, Bn = Bn}
end

-- square matrices with a dominant diagonal: Jacobi, SpTRSV, CG
local SQUARE = {
  {name = "random 60", n = 60, per_row = 4, empty = 0.2, p = 25},
  {name = "1x1", n = 1, per_row = 0, empty = 0, p = 1},
  {name = "long row 3000", n = 3000, per_row = 2, empty = 0.1, p = 6000, pper = 7,
   long_row = 1500, long_n = 2500},
}
local SQ = {}
for s, sh in ipairs(SQUARE) do
  local o = {diag = true, long_row = sh.long_row, long_n = sh.long_n}
  local A = coo("s" .. s .. "A", sh.n, sh.n, sh.per_row, sh.empty, o)
  local P = coo("s" .. s .. "P", sh.n, sh.p, sh.pper or 2, 0.1)
  job(("jacobi %s.jac 0.6666 %s %s"):format(A.id, A.id, P.id))
  local b = {}
  for i = 1, sh.n do b[i] = rval() end
  write_dense(DIR .. "/" .. A.id .. ".b", b, sh.n, 1)
  for _, uplo in ipairs{"L", "U"} do
    for _, diag in ipairs{"N", "U"} do
      job(("sptrsv %s.%s%s %s %s %s %s.b"):format(A.id, uplo, diag, uplo, diag, A.id, A.id))
    end
  end
  SQ[#SQ + 1] = {shape = sh, A = A, P = P, b = b}
end

local ORACLE_ERR = U.run_oracle(jobs)
local function need_oracle() return U.need_oracle(ORACLE_ERR) end

local function mat(c, dtype, opts)
  local o = {dtype = dtype}
  for k, v in pairs(opts or {}) do o[k] = v end
  return sparse.from_coo(c.m, c.n, c.r, c.c, c.v, o)
end

local function out(id) return DIR .. "/" .. id end

local function vec(t, dtype)
  local v = speck.View("v", dtype, #t)
  for i = 1, #t do v[i - 1] = t[i] end
  return v
end

-- -- SpGEMM ------------------------------------------------------------------------------
describe("speck.sparse.spgemm", function()
  for _, c in ipairs(CASES) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("matches SciPy, one-shot and through a reused handle (%s, %s)"):format(
         c.shape.name, dtype), function()
        if not need_oracle() then return end
        local A, B = mat(c.A, dtype), mat(c.B, dtype)
        local C = sparse.spgemm(A, B)
        assert_matrix(C, out(c.A.id .. ".AB"), dtype, "spgemm", true)
        -- the inputs unsorted, the result the same
        local Au = mat(c.A, dtype, {sort = false})
        assert_matrix(sparse.spgemm(Au, B), out(c.A.id .. ".AB"), dtype, "spgemm unsorted", true)
        local h = sparse.spgemm_symbolic(A, B)
        assert.are.equal(C:nnz(), h.nnz)
        local C2 = sparse.spgemm_numeric(h, A, B)
        assert_matrix(C2, out(c.A.id .. ".AB"), dtype, "spgemm handle", true)
        local An, Bn = mat(c.An, dtype), mat(c.Bn, dtype)
        local C3 = sparse.spgemm_numeric(h, An, Bn, C2)
        assert.are.equal(C2, C3)
        assert_matrix(C3, out(c.An.id .. ".AB"), dtype, "spgemm handle, new values", true)
        -- each algorithm, one-shot and through a handle
        for _, algo in ipairs{"hash", "merge"} do
          local o = {algorithm = algo}
          if algo == "merge" and c.shape.long_row then
            assert.truthy(err_of(sparse.spgemm, A, B, o):find(
              "speck.sparse.spgemm: algorithm 'merge' takes rows of A of at most 16 entries; A has a row of ", 1, true))
          else
            assert_matrix(sparse.spgemm(A, B, o), out(c.A.id .. ".AB"), dtype, "spgemm " .. algo, true)
            local h2 = sparse.spgemm_symbolic(A, B, o)
            assert.are.equal(C:nnz(), h2.nnz)
            assert_matrix(sparse.spgemm_numeric(h2, An, Bn, nil, o), out(c.An.id .. ".AB"), dtype,
                          "spgemm handle " .. algo, true)
          end
        end
      end)
    end
  end

  it("refuses mismatched shapes, a handle of other patterns and bad arguments", function()
    local A = sparse.from_coo(300, 250, {0, 299}, {1, 249}, {1.0, 2.0})
    assert.are.equal("speck.sparse.spgemm: 300x250 * 300x250: A has 250 columns, B 300 rows",
      err_of(sparse.spgemm, A, A))
    assert.are.equal("speck.sparse.spgemm: B must be a CrsMatrix, got number",
      err_of(sparse.spgemm, A, 3))
    local B = sparse.from_coo(250, 4, {1, 249}, {0, 3}, {1.0, 2.0})
    local h = sparse.spgemm_symbolic(A, B)
    local B2 = sparse.from_coo(250, 4, {1, 249, 249}, {0, 3, 1}, {1.0, 2.0, 3.0})
    assert.are.equal("speck.sparse.spgemm_numeric: row 299 of C does not have the entries the symbolic phase counted: the pattern of A or B changed since (make a new handle)",
      err_of(sparse.spgemm_numeric, h, A, B2))
    local F = sparse.from_coo(250, 4, {1}, {0}, {1.0}, {dtype = "float32"})
    assert.are.equal("speck.sparse.spgemm: A is float64, B float32: both must be one dtype",
      err_of(sparse.spgemm, A, F))
    assert.are.equal("speck.sparse.spgemm_numeric: h must be a handle from spgemm_symbolic, got table",
      err_of(sparse.spgemm_numeric, {}, A, B))
    local I2 = sparse.from_coo(2, 2, {0, 1}, {0, 1}, {1.0, 1.0})
    local Bu = sparse.from_coo(2, 3, {0, 0}, {2, 0}, {1.0, 1.0}, {sort = false})
    assert.are.same({2, 0}, Bu.colidx:totable())
    assert.are.equal("speck.sparse.spgemm: algorithm 'merge' needs B's rows sorted by column; 1 of them are not",
      err_of(sparse.spgemm, I2, Bu, {algorithm = "merge"}))
    assert.are.same({{1, 0, 1}, {0, 0, 0}}, sparse.spgemm(I2, Bu):to_dense():totable())
    assert.are.equal("speck.sparse.spgemm: algorithm 'fast' is not auto, hash or merge",
      err_of(sparse.spgemm, I2, I2, {algorithm = "fast"}))
    assert.are.equal("speck.sparse.spgemm_symbolic: options must be a table, got string",
      err_of(sparse.spgemm_symbolic, I2, I2, "merge"))
  end)
end)

describe("speck.sparse.spgemm_jacobi", function()
  for _, c in ipairs(SQ) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("matches SciPy's (I - omega D^-1 A) P (%s, %s)"):format(c.shape.name, dtype), function()
        if not need_oracle() then return end
        local C = sparse.spgemm_jacobi(0.6666, mat(c.A, dtype), mat(c.P, dtype))
        assert_matrix(C, out(c.A.id .. ".jac"), dtype, "jacobi", true)
      end)
    end
  end

  it("names a zero or missing diagonal and a non-square A", function()
    local A = sparse.from_coo(3, 3, {0, 1, 2}, {0, 0, 2}, {1.0, 1.0, 1.0})
    local P = sparse.from_coo(3, 2, {0}, {1}, {1.0})
    assert.are.equal("speck.sparse.spgemm_jacobi: A has a zero (or no) diagonal entry in row 1: D^-1 does not exist",
      err_of(sparse.spgemm_jacobi, 0.5, A, P))
    local R = sparse.from_coo(3, 2, {0}, {0}, {1.0})
    assert.are.equal("speck.sparse.spgemm_jacobi: A is 3x2: (I - omega D^-1 A) needs a square A",
      err_of(sparse.spgemm_jacobi, 0.5, R, sparse.from_coo(2, 2, {}, {}, {})))
  end)
end)

-- -- SpAdd ---------------------------------------------------------------------------------
describe("speck.sparse.spadd", function()
  for _, c in ipairs(CASES) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("matches SciPy: sorted, unsorted, duplicates, handle reuse (%s, %s)"):format(
         c.shape.name, dtype), function()
        if not need_oracle() then return end
        local want = out(c.A.id .. ".add")
        -- sorted without duplicates: the merge path
        local A, B = mat(c.A, dtype), mat(c.A2, dtype)
        assert_matrix(sparse.spadd(1.5, A, -0.25, B), want, dtype, "spadd sorted", true)
        local h = sparse.spadd_symbolic(A, B)
        assert.is_true(h.sorted)
        -- sorted with duplicates kept: still the merge path, merged
        local Ad = mat(c.A, dtype, {sum_duplicates = false})
        local hd = sparse.spadd_symbolic(Ad, B)
        assert.is_true(hd.sorted)
        assert_matrix(sparse.spadd_numeric(hd, 1.5, Ad, -0.25, B), want, dtype,
                      "spadd duplicates", true)
        -- unsorted (and duplicates): the sort path
        local Au = mat(c.A, dtype, {sort = false, sum_duplicates = false})
        local Bu = mat(c.A2, dtype, {sort = false})
        local hu = sparse.spadd_symbolic(Au, Bu)
        assert_matrix(sparse.spadd_numeric(hu, 1.5, Au, -0.25, Bu), want, dtype,
                      "spadd unsorted", true)
        -- new values through the first handle, in place
        local C = sparse.spadd_numeric(h, 1.5, A, -0.25, B)
        local An = mat(c.An, dtype)
        assert.are.equal(C, sparse.spadd_numeric(h, 1.5, An, -0.25, B, C))
        assert_matrix(C, out(c.An.id .. ".add"), dtype, "spadd handle, new values", true)
      end)
    end
  end

  it("takes the sort path for unsorted rows (never merging them wrongly)", function()
    local A = sparse.from_coo(1, 5, {0, 0, 0}, {4, 1, 4}, {1.0, 2.0, 3.0},
                              {sort = false, sum_duplicates = false})
    local B = sparse.from_coo(1, 5, {0, 0}, {1, 3}, {10.0, 20.0})
    local h = sparse.spadd_symbolic(A, B)
    assert.is_false(h.sorted)
    local C = sparse.spadd_numeric(h, 1.0, A, 1.0, B)
    assert.are.same({1, 3, 4}, C.colidx:totable())
    assert.are.same({12.0, 20.0, 4.0}, C.values:totable())
  end)

  it("names both shapes on a mismatch", function()
    local A = sparse.from_coo(3, 4, {0}, {1}, {1.0})
    local B = sparse.from_coo(4, 3, {0}, {1}, {1.0})
    assert.are.equal("speck.sparse.spadd: A is 3x4, B is 4x3: alpha*A + beta*B needs one shape",
      err_of(sparse.spadd, 1.0, A, 1.0, B))
    local h = sparse.spadd_symbolic(A, A)
    local A2 = sparse.from_coo(3, 4, {0, 1}, {1, 2}, {1.0, 2.0})
    assert.are.equal("speck.sparse.spadd_numeric: the handle does not belong to these matrices (A has 2 entries, B 1; the handle 1 and 1)",
      err_of(sparse.spadd_numeric, h, 1.0, A2, 1.0, A))
  end)
end)

-- -- SpTRSV ----------------------------------------------------------------------------------
describe("speck.sparse.sptrsv", function()
  for _, c in ipairs(SQ) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("matches SciPy's spsolve_triangular for L, U, unit and non-unit (%s, %s)"):format(
         c.shape.name, dtype), function()
        if not need_oracle() then return end
        local n = c.shape.n
        for _, uplo in ipairs{"L", "U"} do
          -- the triangle (with its diagonal) from the same triplets
          local r, cc, v = {}, {}, {}
          for k = 1, #c.A.r do
            if (uplo == "L" and c.A.c[k] <= c.A.r[k]) or (uplo == "U" and c.A.c[k] >= c.A.r[k]) then
              r[#r + 1], cc[#cc + 1], v[#v + 1] = c.A.r[k], c.A.c[k], c.A.v[k]
            end
          end
          local T = sparse.from_coo(n, n, r, cc, v, {dtype = dtype})
          for _, diag in ipairs{"N", "U"} do
            local b = vec(c.b, dtype)
            local x = speck.View("x", dtype, n)
            local h = sparse.sptrsv_symbolic(T, {uplo = uplo, diag = diag})
            sparse.sptrsv_solve(h, T, b, x)
            local want = read_dense(out(c.A.id .. "." .. uplo .. diag))
            assert_dense(x, want, dtype, "sptrsv " .. uplo .. diag)
            -- reuse: a second solve with the same handle
            local x2 = speck.View("x2", dtype, n)
            sparse.sptrsv_solve(h, T, b, x2)
            assert_dense(x2, want, dtype, "sptrsv reuse " .. uplo .. diag)
          end
        end
      end)
    end
  end

  it("chains thin levels: a bidiagonal matrix has one row per level", function()
    local n = 500
    local r, c, v = {}, {}, {}
    for i = 0, n - 1 do
      r[#r + 1], c[#c + 1], v[#v + 1] = i, i, 2.0
      if i > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - 1, -1.0 end
    end
    local L = sparse.from_coo(n, n, r, c, v)
    local h = sparse.sptrsv_symbolic(L)
    assert.are.equal(n, h.nlevels)
    assert.are.equal(2, h.plan:extent(0))   -- one launch: a chain of every level
    local b = speck.View("b", "float64", n)
    b:fill(1)
    local x = speck.View("x", "float64", n)
    sparse.sptrsv_solve(h, L, b, x)
    local want = 0
    for i = 0, n - 1 do
      want = (1 + want) / 2
      assert.is_true(math.abs(x(i) - want) < 1e-14)
    end
  end)

  it("names the row of a zero diagonal, a missing diagonal and an entry of the wrong triangle", function()
    local L = sparse.from_coo(3, 3, {0, 1, 2, 2}, {0, 1, 2, 0}, {1.0, 0.0, 2.0, 1.0})
    local b, x = speck.View("b", "float64", 3), speck.View("x", "float64", 3)
    assert.are.equal("speck.sparse.sptrsv_solve: zero on the diagonal in row 1: A is singular",
      err_of(sparse.sptrsv, L, b, x))
    local M = sparse.from_coo(3, 3, {0, 2}, {0, 2}, {1.0, 2.0})
    assert.are.equal('speck.sparse.sptrsv_symbolic: row 1 of A has no diagonal entry (diag = "N")',
      err_of(sparse.sptrsv, M, b, x))
    sparse.sptrsv(M, b, x, {diag = "U"})   -- fine with a unit diagonal
    local F = sparse.from_coo(3, 3, {0, 0, 1, 2}, {0, 2, 1, 2}, {1.0, 1.0, 1.0, 1.0})
    assert.are.equal("speck.sparse.sptrsv_symbolic: A has the entry (0, 2) above the diagonal: it is not lower triangular",
      err_of(sparse.sptrsv, F, b, x))
    assert.are.equal('speck.sparse.sptrsv_symbolic: uplo must be "L" or "U", got X',
      err_of(sparse.sptrsv, F, b, x, {uplo = "X"}))
    assert.are.equal("speck.sparse.sptrsv_solve: A is 3x3, b (view 'b') has 3 rows and x (view 'x') 4",
      err_of(sparse.sptrsv, sparse.from_coo(3, 3, {0, 1, 2}, {0, 1, 2}, {1.0, 1.0, 1.0}), b,
             speck.View("x", "float64", 4)))
    assert.are.equal("speck.sparse.sptrsv_symbolic: A is 3x2: a triangular solve needs a square matrix",
      err_of(sparse.sptrsv, sparse.from_coo(3, 2, {}, {}, {}), b, x))
  end)
end)

-- -- CG -----------------------------------------------------------------------------------------
describe("speck.sparse.cg", function()
  for _, dtype in ipairs{"float64", "float32"} do
    it(("solves an SPD system to the tolerance (%s)"):format(dtype), function()
      -- 2D Laplacian, 20 x 20
      local n, r, c, v = 20, {}, {}, {}
      for j = 0, n - 1 do for i = 0, n - 1 do
        local row = i + n * j
        local function add(col, val) r[#r + 1], c[#c + 1], v[#v + 1] = row, col, val end
        add(row, 4)
        if i > 0 then add(row - 1, -1) end
        if i < n - 1 then add(row + 1, -1) end
        if j > 0 then add(row - n, -1) end
        if j < n - 1 then add(row + n, -1) end
      end end
      local N = n * n
      local A = sparse.from_coo(N, N, r, c, v, {dtype = dtype})
      local b = speck.View("b", dtype, N)
      for i = 0, N - 1 do b[i] = rval() end
      local tol = dtype == "float64" and 1e-10 or 1e-5
      local x, iters, resid = sparse.cg(A, b, {tol = tol})
      assert.is_true(iters > 5 and iters < 200, "iterations " .. iters)
      local y = speck.View("y", dtype, N)
      sparse.spmv("N", 1.0, A, x, 0.0, y)
      local bn, rn = 0, 0
      for i = 0, N - 1 do bn = bn + b(i) ^ 2; rn = rn + (y(i) - b(i)) ^ 2 end
      assert.is_true(math.sqrt(rn) <= 10 * tol * math.sqrt(bn),
                     ("||b - Ax|| = %g, ||b|| = %g"):format(math.sqrt(rn), math.sqrt(bn)))
      assert.is_true(resid <= tol * math.sqrt(bn) * 1.0001)
      -- from the solution itself: no iteration
      local x2, it2 = sparse.cg(A, b, {tol = tol * 10, x0 = x})
      assert.are.equal(0, it2)
      assert.are.equal(x:extent(0), x2:extent(0))
      local _, it3 = sparse.cg(A, b, {tol = 0.0, maxiter = 3})
      assert.are.equal(3, it3)
    end)
  end

  it("names a matrix that is not positive definite and bad arguments", function()
    local A = sparse.from_coo(2, 2, {0, 1}, {0, 1}, {1.0, -1.0})
    local b = speck.View.from({0.0, 1.0}, "float64")
    assert.are.equal("speck.sparse.cg: p'Ap = -1 at iteration 1: A is not positive definite",
      err_of(sparse.cg, A, b))
    assert.are.equal("speck.sparse.cg: A is 2x2, b (view 'v') has 3 rows",
      err_of(sparse.cg, A, speck.View("v", "float64", 3)))
    assert.are.equal("speck.sparse.cg: unknown option 'tolerance' (valid: maxiter, tol, x0)",
      err_of(sparse.cg, A, b, {tolerance = 1}))
  end)
end)

-- -- the hashmap accumulator in user bodies --------------------------------------
describe("the dialect's hashmap accumulator", function()
  local n, w = 37, 50
  local keys = speck.View("keys", "int32", {n, w})
  local want = {}
  for i = 0, n - 1 do
    local seen, cnt = {}, 0
    for k = 0, w - 1 do
      local key = (i * 7 + k * k) % (5 + i)
      keys:set(i, k, key)
      if not seen[key] then seen[key] = true; cnt = cnt + 1 end
    end
    want[i + 1] = cnt
  end
  local SIZE, CAP = 64, 32
  local function run(insert, team_size, vl)
    local out = speck.View("out", "int64", n)
    local sum = speck.View("sum", "float64", n)
    local T = team_size
    speck.parallel_for("hashmap_" .. insert, speck.TeamPolicy(n, T, vl,
      {scratch = {per_team = {4096, 0}}}), {keys = keys, out = out, sum = sum}, ([[
      hashmap h = hashmap_make(team_scratch(team, 0, hashmap_bytes(%d, %d)), %d, %d);
      double *val = (double *)team_scratch(team, 0, %d * sizeof(double));
      SINGLE_TEAM(team) { hashmap_reset(&h); for (int s = 0; s < %d; s++) val[s] = 0; }
      team_barrier(team);
      TEAM_VECTOR_FOR(k, 0, keys.extent[1]) {
        const int32_t s = %s(&h, keys(team.league_rank, k));
        if (s >= 0) atomic_add(&val[s], 1.0);
      }
      team_barrier(team);
      SINGLE_TEAM(team) {
        double t = 0;
        for (int32_t s = 0; s < hashmap_count(&h); s++) t += val[s];
        out(team.league_rank) = hashmap_count(&h);
        sum(team.league_rank) = t;
      }
    ]]):format(SIZE, CAP, SIZE, CAP, CAP, CAP, insert))
    return out, sum
  end
  local TMAX = speck.TeamPolicy(1, 1):team_size_max()
  for _, c in ipairs{{"hashmap_insert", 1, 1}, {"hashmap_insert_vector", 1, 4},
                     {"hashmap_insert_atomic", math.min(2, TMAX), 1}} do
    it(("%s counts distinct keys and their multiplicities (team %d x %d)"):format(c[1], c[2], c[3]),
       function()
      local out, sum = run(c[1], c[2], c[3])
      for i = 0, n - 1 do
        local exp = math.min(want[i + 1], CAP)
        assert.are.equal(exp, out(i), "row " .. i)
        if want[i + 1] <= CAP then assert.are.equal(w, sum(i), "row " .. i) end
      end
    end)
  end
end)

describe("speck.sparse algorithms (clean-up)", function()
  it("removes its temporary files", function() os.execute("rm -rf " .. DIR) end)
end)
