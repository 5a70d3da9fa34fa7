local speck = require "speck"
local sparse = require "speck.sparse"
-- the factors come from speck.sparse.cholesky, which runs on the host back
-- ends (its tasks cannot reach device views): on a GPU space the file is
-- pending as a whole
if not ({serial = true, openmp = true})[speck.info().default_space] then
  describe("supernodal SpTRSV", function()
    pending("the host back ends only (its factors come from speck.sparse.cholesky)")
  end)
  return
end
-- sptrsv_sn_spec.lua: the supernodal triangular solve (seed 000 section
-- 2.4.2, kernels/sparse/sptrsv.c) against SciPy's spsolve_triangular
-- (tests/sparse_oracle.py) and against the level-set solve: the Cholesky
-- factors of random SPD matrices and of Laplacians (speck.sparse.cholesky,
-- the factor object and its L as CSR), L and L^T, the whole Cholesky solve
-- L L^T x = b against the factor's own solve; the lower and upper
-- triangles of random matrices, unit and non-unit diagonal, float64 and
-- float32; n = 0 and 1; 'auto'; and every bad input with its message.

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local U = dofile(HERE .. "/sparse_util.lua")
teardown(U.cleanup)
U.bind(assert, pending)
local DIR, rnd, rval, random_coo, write_coo = U.DIR, U.rnd, U.rval, U.random_coo,
  U.write_coo
local write_dense, read_dense, assert_dense, err_of = U.write_dense, U.read_dense,
  U.assert_dense, U.err_of

local jobs = {}
local function job(line) jobs[#jobs + 1] = line end
local function out(id) return DIR .. "/" .. id end

-- -- SPD matrices and their factors ------------------------------------------------
local function laplacian(dims, pts)
  local r, c, v = {}, {}, {}
  local nx, ny, nz = dims[1], dims[2] or 1, dims[3] or 1
  local function id(i, j, k) return (k * ny + j) * nx + i end
  for k = 0, nz - 1 do for j = 0, ny - 1 do for i = 0, nx - 1 do
    local row = id(i, j, k)
    for dk = -1, 1 do for dj = -1, 1 do for di = -1, 1 do
      local I, J, K = i + di, j + dj, k + dk
      local far = math.abs(di) + math.abs(dj) + math.abs(dk)
      if I >= 0 and I < nx and J >= 0 and J < ny and K >= 0 and K < nz and
         (pts == 27 or far <= 1) and (nz > 1 or dk == 0) and (ny > 1 or dj == 0) then
        r[#r + 1], c[#c + 1] = row, id(I, J, K)
        v[#v + 1] = far == 0 and (pts == 27 and 26.5 or 2 * #dims + 0.5) or -1
      end
    end end end
  end end end
  return nx * ny * nz, r, c, v
end

local function random_spd(n, per_row)
  local r0, c0, v0 = random_coo(n, n, per_row, 0.1)
  local r, c, v, rowsum = {}, {}, {}, {}
  for i = 0, n - 1 do rowsum[i] = 0 end
  for k = 1, #r0 do   -- B + B^T
    r[#r + 1], c[#c + 1], v[#v + 1] = r0[k], c0[k], v0[k]
    r[#r + 1], c[#c + 1], v[#v + 1] = c0[k], r0[k], v0[k]
    rowsum[r0[k]] = rowsum[r0[k]] + math.abs(v0[k])
    rowsum[c0[k]] = rowsum[c0[k]] + math.abs(v0[k])
  end
  for i = 0, n - 1 do r[#r + 1], c[#c + 1], v[#v + 1] = i, i, 2 * rowsum[i] + 1 + rnd() end
  return n, r, c, v
end

local function csr_coo(A)   -- a CrsMatrix's entries as COO tables
  local rp, ci, va = A.rowptr:totable(), A.colidx:totable(), A.values:totable()
  local r, c, v = {}, {}, {}
  for i = 1, A:nrows() do
    for k = rp[i] + 1, rp[i + 1] do r[#r + 1], c[#c + 1], v[#v + 1] = i - 1, ci[k], va[k] end
  end
  return r, c, v
end

local FACTORS = {
  {name = "random SPD 300", make = function() return random_spd(300, 3) end},
  {name = "5-point 24^2", make = function() return laplacian({24, 24}, 5) end},
  {name = "27-point 9^3", make = function() return laplacian({9, 9, 9}, 27) end},
  {name = "1x1", make = function() return 1, {0}, {0}, {3.0} end},
}
for f, F in ipairs(FACTORS) do
  local n, r, c, v = F.make()
  F.n, F.id = n, "f" .. f
  F.A = sparse.from_coo(n, n, r, c, v)
  F.F = sparse.cholesky(F.A)
  F.L, F.perm = sparse.cholesky_lower(F.F)
  local lr, lc, lv = csr_coo(F.L)
  write_coo(out(F.id .. "L"), n, n, lr, lc, lv)
  write_coo(out(F.id .. "LT"), n, n, lc, lr, lv)   -- L^T, upper
  F.b = {}
  for i = 1, n do F.b[i] = rval() end
  write_dense(out(F.id .. ".b"), F.b, n, 1)
  job(("sptrsv %s.L L N %sL %s.b"):format(F.id, F.id, F.id))
  job(("sptrsv %s.LT U N %sLT %s.b"):format(F.id, F.id, F.id))
end

-- -- triangles of random matrices ----------------------------------------------------
local TRI = {
  {name = "random 80", n = 80, per_row = 4, empty = 0.2},
  {name = "1x1", n = 1, per_row = 0, empty = 0},
  {name = "0x0", n = 0, per_row = 0, empty = 0},
}
for t, T in ipairs(TRI) do
  T.id = "t" .. t
  T.r, T.c, T.v = random_coo(T.n, T.n, T.per_row, T.empty, {diag = true})
  write_coo(out(T.id), T.n, T.n, T.r, T.c, T.v)
  T.b = {}
  for i = 1, T.n do T.b[i] = rval() end
  write_dense(out(T.id .. ".b"), T.b, T.n, 1)
  for _, uplo in ipairs{"L", "U"} do
    for _, diag in ipairs{"N", "U"} do
      job(("sptrsv %s.%s%s %s %s %s %s.b"):format(T.id, uplo, diag, uplo, diag, T.id, T.id))
    end
  end
end

local ORACLE_ERR = U.run_oracle(jobs)
local function need_oracle() return U.need_oracle(ORACLE_ERR) end

local function vec(t, dtype, n)
  local x = speck.View("b", dtype, n or #t)
  for i = 1, #t do x[i - 1] = t[i] end
  return x
end

local function max_diff(a, b)
  local d = 0
  for i = 0, a:extent(0) - 1 do d = math.max(d, math.abs(a(i) - b(i))) end
  return d
end

describe("speck.sparse.sptrsv (supernodal)", function()
  for _, F in ipairs(FACTORS) do
    it(("solves with the Cholesky factor of %s: L, L^T, L L^T"):format(F.name), function()
      if not need_oracle() then return end
      local n = F.n
      local h = sparse.sptrsv_symbolic(F.F)   -- the factor object: supernodal
      assert.are.equal("supernodal", h.algorithm)
      assert.is_true(h.nsupernodes >= 1 and h.nsupernodes <= F.F:info().supernodes)
      local b = vec(F.b, "float64")
      local x = speck.View("x", "float64", n)
      sparse.sptrsv_solve(h, F.F, b, x)
      assert_dense(x, read_dense(out(F.id .. ".L")), "float64", "L x = b")
      local xt = speck.View("xt", "float64", n)
      sparse.sptrsv_solve(h, F.F, b, xt, {trans = "T"})
      assert_dense(xt, read_dense(out(F.id .. ".LT")), "float64", "L^T x = b")
      -- the same through the CSR L, and the level-set solve agrees
      local hc = sparse.sptrsv_symbolic(F.L, {algorithm = "supernodal"})
      assert.are.equal(h.nsupernodes, hc.nsupernodes)
      local x2 = speck.View("x2", "float64", n)
      sparse.sptrsv_solve(hc, F.L, b, x2)
      local hl = sparse.sptrsv_symbolic(F.L, {algorithm = "levelset"})
      local x3 = speck.View("x3", "float64", n)
      sparse.sptrsv_solve(hl, F.L, b, x3)
      local xs = 0   -- (the forward solve's atomics add in any order: not bit for bit)
      for k = 0, n - 1 do xs = math.max(xs, math.abs(x(k))) end
      assert.is_true(max_diff(x, x2) <= 1e-13 * (1 + xs))
      assert.is_true(max_diff(x, x3) <= 1e-12 * (1 + xs))
      -- the whole Cholesky solve: P A P^T = L L^T
      local pb = speck.View("pb", "float64", n)
      for k = 0, n - 1 do pb[k] = F.b[F.perm(k) + 1] end
      local y, z = speck.View("y", "float64", n), speck.View("z", "float64", n)
      sparse.sptrsv_solve(h, F.F, pb, y)
      sparse.sptrsv_solve(h, F.F, y, z, {trans = "T"})
      local want = F.F:solve(b)
      local scale = 1
      for k = 0, n - 1 do scale = math.max(scale, math.abs(want(k))) end
      for k = 0, n - 1 do
        assert.is_true(math.abs(z(k) - want(F.perm(k))) <= 1e-11 * scale,
                       ("row %d: %.17g, the factor's solve %.17g"):format(k, z(k), want(F.perm(k))))
      end
      -- the upper triangle U = L^T as CSR: U x = b is L^T x = b
      local lr, lc, lv = csr_coo(F.L)
      local Ut = sparse.from_coo(n, n, lc, lr, lv)
      local hu = sparse.sptrsv_symbolic(Ut, {uplo = "U", algorithm = "supernodal"})
      local xu = speck.View("xu", "float64", n)
      sparse.sptrsv_solve(hu, Ut, b, xu)
      assert_dense(xu, read_dense(out(F.id .. ".LT")), "float64", "U x = b")
      sparse.sptrsv_solve(hu, Ut, b, xu, {trans = "T"})
      assert_dense(xu, read_dense(out(F.id .. ".L")), "float64", "U^T x = b")
    end)
  end

  for _, T in ipairs(TRI) do
    for _, dtype in ipairs{"float64", "float32"} do
      it(("matches SciPy on the triangles of %s, unit and non-unit (%s)"):format(T.name, dtype), function()
        if not need_oracle() then return end
        for _, uplo in ipairs{"L", "U"} do
          local r, c, v = {}, {}, {}
          for k = 1, #T.r do
            if (uplo == "L" and T.c[k] <= T.r[k]) or (uplo == "U" and T.c[k] >= T.r[k]) then
              r[#r + 1], c[#c + 1], v[#v + 1] = T.r[k], T.c[k], T.v[k]
            end
          end
          local A = sparse.from_coo(T.n, T.n, r, c, v, {dtype = dtype})
          for _, diag in ipairs{"N", "U"} do
            local h = sparse.sptrsv_symbolic(A, {uplo = uplo, diag = diag, algorithm = "supernodal"})
            local b = vec(T.b, dtype, T.n)
            local x = speck.View("x", dtype, T.n)
            sparse.sptrsv_solve(h, A, b, x)
            local want = read_dense(out(("%s.%s%s"):format(T.id, uplo, diag)))
            assert_dense(x, want, dtype, "supernodal " .. uplo .. diag)
            local x2 = speck.View("x2", dtype, T.n)
            sparse.sptrsv(A, b, x2, {uplo = uplo, diag = diag, algorithm = "levelset"})
            assert_dense(x2, want, dtype, "level-set " .. uplo .. diag)
          end
        end
      end)
    end
  end

  it("finds dense supernodes: a dense lower triangle is one, a bidiagonal has none", function()
    local n = 40
    local r, c, v = {}, {}, {}
    for i = 0, n - 1 do
      for j = 0, i do r[#r + 1], c[#c + 1], v[#v + 1] = i, j, i == j and n or 1 / (1 + i + j) end
    end
    local D = sparse.from_coo(n, n, r, c, v)
    local h = sparse.sptrsv_symbolic(D, {algorithm = "auto"})
    assert.are.equal("supernodal", h.algorithm)
    assert.are.equal(1, h.nsupernodes)
    assert.are.equal(1, h.nlevels)
    local b = speck.View("b", "float64", n)
    b:fill(1)
    local x, x2 = speck.View("x", "float64", n), speck.View("x2", "float64", n)
    sparse.sptrsv_solve(h, D, b, x)
    sparse.sptrsv(D, b, x2)
    assert.is_true(max_diff(x, x2) <= 1e-14)
    -- a bidiagonal: every column its own supernode but the last two (their
    -- 2x2 triangle is dense), one per level: 'auto' keeps level sets
    r, c, v = {}, {}, {}
    for i = 0, n - 1 do
      r[#r + 1], c[#c + 1], v[#v + 1] = i, i, 2.0
      if i > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - 1, -1.0 end
    end
    local B = sparse.from_coo(n, n, r, c, v)
    assert.are.equal("levelset", sparse.sptrsv_symbolic(B, {algorithm = "auto"}).algorithm)
    local hs = sparse.sptrsv_symbolic(B, {algorithm = "supernodal"})
    assert.are.equal(n - 1, hs.nsupernodes)
    assert.are.equal(n - 1, hs.nlevels)
    sparse.sptrsv_solve(hs, B, b, x)
    local want = 0
    for i = 0, n - 1 do
      want = (1 + want) / 2
      assert.is_true(math.abs(x(i) - want) < 1e-14)
    end
  end)

  it("refuses bad input with messages, the VM usable after", function()
    local function coo_mat(n, m, t)
      local r, c, v = {}, {}, {}
      for _, e in ipairs(t) do r[#r + 1], c[#c + 1], v[#v + 1] = e[1], e[2], e[3] end
      return sparse.from_coo(n, m, r, c, v)
    end
    local SN = {algorithm = "supernodal"}
    local b, x = speck.View("b", "float64", 3), speck.View("x", "float64", 3)
    b:fill(1)
    assert.are.equal("speck.sparse.sptrsv_symbolic: A is 3x4: a triangular solve needs a square matrix",
      err_of(sparse.sptrsv_symbolic, coo_mat(3, 4, {{0, 0, 1}}), SN))
    assert.are.equal("speck.sparse.sptrsv_symbolic: A has the entry (0, 2) above the diagonal: it is not lower triangular",
      err_of(sparse.sptrsv_symbolic, coo_mat(3, 3, {{0, 0, 1}, {1, 1, 1}, {2, 2, 1}, {0, 2, 5}}), SN))
    assert.are.equal("speck.sparse.sptrsv_symbolic: A has the entry (2, 0) below the diagonal: it is not upper triangular",
      err_of(sparse.sptrsv_symbolic, coo_mat(3, 3, {{0, 0, 1}, {1, 1, 1}, {2, 2, 1}, {2, 0, 5}}),
             {uplo = "U", algorithm = "supernodal"}))
    assert.are.equal('speck.sparse.sptrsv_symbolic: row 1 of A has no diagonal entry (diag = "N")',
      err_of(sparse.sptrsv_symbolic, coo_mat(3, 3, {{0, 0, 1}, {2, 2, 1}, {1, 0, 2}}), SN))
    local Z = coo_mat(3, 3, {{0, 0, 1}, {1, 1, 0}, {2, 2, 1}, {1, 0, 2}, {2, 1, 1}})
    assert.are.equal("speck.sparse.sptrsv_symbolic: zero on the diagonal in row 1: A is singular",
      err_of(sparse.sptrsv_symbolic, Z, SN))
    assert.are.equal("speck.sparse.sptrsv_symbolic: zero on the diagonal in row 1: A is singular",
      err_of(sparse.sptrsv, Z, b, x, SN))
    assert.are.equal('speck.sparse.sptrsv_symbolic: algorithm must be "levelset", "supernodal" or "auto", got fast',
      err_of(sparse.sptrsv_symbolic, Z, {algorithm = "fast"}))
    local L = coo_mat(3, 3, {{0, 0, 2}, {1, 1, 2}, {2, 2, 2}, {1, 0, 1}, {2, 1, 1}})
    local h = sparse.sptrsv_symbolic(L, SN)
    local b4 = speck.View("b", "float64", 4)
    assert.are.equal("speck.sparse.sptrsv_solve: A is 3x3, b (view 'b') has 4 rows and x (view 'x') 3",
      err_of(sparse.sptrsv_solve, h, L, b4, x))
    assert.are.equal("speck.sparse.sptrsv_solve: A is float64, b (view 'b') float32 and x (view 'x') float64: all must be one dtype",
      err_of(sparse.sptrsv_solve, h, L, speck.View("b", "float32", 3), x))
    assert.are.equal("speck.sparse.sptrsv_solve: b (view 'b') and x (view 'b') share memory",
      err_of(sparse.sptrsv_solve, h, L, b, b))
    assert.are.equal("speck.sparse.sptrsv_solve: the handle does not belong to A (4x4)",
      err_of(sparse.sptrsv_solve, h, coo_mat(4, 4, {{0, 0, 1}, {1, 1, 1}, {2, 2, 1}, {3, 3, 1}}),
             b4, speck.View("x", "float64", 4)))
    assert.are.equal('speck.sparse.sptrsv_solve: trans must be "N" or "T", got C',
      err_of(sparse.sptrsv_solve, h, L, b, x, {trans = "C"}))
    assert.are.equal('speck.sparse.sptrsv_solve: trans = "T" needs a handle with algorithm = "supernodal" (this one is level-set)',
      err_of(sparse.sptrsv_solve, sparse.sptrsv_symbolic(L), L, b, x, {trans = "T"}))
    local F = FACTORS[1].F
    assert.are.equal("speck.sparse.sptrsv_solve: A is a Cholesky factor, but h was not made from it",
      err_of(sparse.sptrsv_solve, h, F, b, x))
    assert.are.equal('speck.sparse.sptrsv_symbolic: a Cholesky factor\'s L is lower triangular: uplo must be "L", got U',
      err_of(sparse.sptrsv_symbolic, F, {uplo = "U"}))
    assert.are.equal("speck.sparse.cholesky_lower: F must be a factor from speck.sparse.cholesky, got table",
      err_of(sparse.cholesky_lower, L))
    -- still usable, b and x intact
    assert.are.equal(1, b(2))
    sparse.sptrsv_solve(h, L, b, x)
    assert.is_true(math.abs(x(0) - 0.5) < 1e-15 and math.abs(x(1) - 0.25) < 1e-15 and
                   math.abs(x(2) - 0.375) < 1e-15)
  end)
end)
