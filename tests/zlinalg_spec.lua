local speck = require "speck"
-- zlinalg_spec.lua: linear algebra on complex views (complex128, complex64)
-- against NumPy / SciPy (tests/zlinalg_oracle.py, run with /usr/bin/python3
-- on .npy files written here): speck.blas.trsm (every side, uplo, trans
-- incl. "C", diag), potrf (Hermitian, both triangles), getrf (pivots as
-- LAPACK's), at n = 1, 7, 64, 200, row- and column-major, impl native and
-- (host) vendor; speck.batched.gemm and trsm in every mode; speck.sparse SpTRSV
-- (level-set, lower and upper, unit and not, trans N, T and C); bad input with its exact
-- message. tests/run.sh runs it once per back end; the views are in the
-- default space; on a GPU the library kernels must have run there (NVRTC,
-- speck.jit.stats), and their bodies are compiled for the GPU here when
-- NVRTC is present.

local blas = require "speck.blas"
local batched = require "speck.batched"
local sparse = require "speck.sparse"

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/zlinalg_oracle.py"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end
local HAVE_SCIPY = select(2, sh(PY .. " -c 'import numpy, scipy.linalg'"))
local SPACE = speck.info().default_space
local DEVICE = SPACE == "cuda"
local HOSTSPACE = not DEVICE
local VENDOR = HOSTSPACE and speck.info().blas_vendor.available
local IMPLS = VENDOR and {"native", "vendor"} or {"native"}
local DTYPES = {"complex128", "complex64"}
local TOL = {complex128 = 1e-10, complex64 = 2e-4}

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 4242
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

-- a host copy of any view
local function host(v)
  local m = speck.create_mirror(v)
  speck.deep_copy(m, v)
  return m
end

-- a view of the default space, entries f(i, j) (rank 2) or f(b, i, j)
local function make(label, dt, dims, layout, f)
  local h = speck.View(label, dt, dims, {space = "host", layout = layout})
  if #dims == 2 then
    for i = 0, dims[1] - 1 do for j = 0, dims[2] - 1 do h:set(i, j, f(i, j)) end end
  else
    for b = 0, dims[1] - 1 do
      for i = 0, dims[2] - 1 do for j = 0, dims[3] - 1 do h:set(b, i, j, f(b, i, j)) end end
    end
  end
  local d = speck.View(label, dt, dims, {layout = layout})
  speck.deep_copy(d, h)
  return d
end

local function crand(s) return {(rnd() - 0.5) * s, (rnd() - 0.5) * s} end

-- the oracle: job, input views; the result (host, rank 1)
-- (only where NumPy and SciPy are: a server that cannot start would leave
-- the FIFO's open waiting; the cases are pending then)
local oracle, oracle_close
if HAVE_SCIPY then
  oracle, oracle_close = dofile(HERE .. "/npy_oracle.lua")(PY, ORACLE, DIR, host)
  teardown(oracle_close)
end

-- max |got - want| over the entries of rank-2 'got' (host) that 'keep'
-- (i, j) accepts, against want(k0 + i * cols + j); relative to max(1, |want|)
local function maxerr(got, want, k0, keep)
  local m, n = got:extent(0), got:extent(1)
  local e, big = 0, 1
  for i = 0, m - 1 do
    for j = 0, n - 1 do
      if not keep or keep(i, j) then
        local g, w = got(i, j), want(k0 + i * n + j)
        local dr, di = g[1] - w[1], g[2] - w[2]
        e = math.max(e, math.sqrt(dr * dr + di * di))
        big = math.max(big, math.sqrt(w[1] * w[1] + w[2] * w[2]))
      end
    end
  end
  return e / big
end

local function launches(label)
  local n, tier = 0, nil
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label == label and k.launches > 0 then
      n = n + k.launches
      tier = k.tier
    end
  end
  return n, tier
end
-- on a GPU the library kernel 'label' ran there (NVRTC)
local function ran_on_device(label)
  if not DEVICE then return end
  local n, tier = launches(label)
  assert(n > 0, label .. " launched no kernel")
  assert.are.equal("nvrtc", tier)
end

local SIZES = {1, 7, 64, 200}
local LAYOUTS = {"right", "left"}

describe("complex speck.blas.trsm", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("solves every side, uplo, trans (N T C) and diag as NumPy (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          -- A and B of one layout, and of two (the vendor's trsm takes one
          -- order for both: the native kernels run)
          for _, lay2 in ipairs{{"right", "right"}, {"left", "left"}, {"right", "left"}} do
            local lay, blay = lay2[1], lay2[2]
            -- off-diagonal entries small: every triangle well conditioned
            local A = make("A", dt, {n, n}, lay, function(i, j)
              if i == j then return {2 + rnd(), rnd() - 0.5} end
              return crand(1 / n)
            end)
            local BL = make("BL", dt, {n, 3}, blay, function() return crand(4) end)
            local BR = make("BR", dt, {3, n}, blay, function() return crand(4) end)
            local want = oracle("trsm:1.5:-0.5", A, BL, BR)
            local k0 = 0
            for _, side in ipairs{"L", "R"} do
              local B0 = side == "L" and BL or BR
              for _, uplo in ipairs{"L", "U"} do
                for _, tr in ipairs{"N", "T", "C"} do
                  for _, diag in ipairs{"N", "U"} do
                    local X = speck.View("X", dt, {B0:extent(0), B0:extent(1)}, {layout = blay})
                    speck.deep_copy(X, B0)
                    blas.trsm(side, uplo, tr, diag, {1.5, -0.5}, A, X, {impl = impl})
                    local e = maxerr(host(X), want, k0)
                    assert(e <= TOL[dt], ("n %d %s/%s %s%s%s%s: error %g"):format(n, lay, blay, side, uplo, tr, diag, e))
                    k0 = k0 + #X
                  end
                end
              end
            end
          end
        end
        -- strided subviews give the contiguous views' answer
        local n = 40
        local big = make("big", dt, {n + 3, n + 2}, "right", function(i, j)
          if i == j + 1 then return {3, 0.5} end
          return crand(1 / n)
        end)
        local A = speck.subview(big, {1, n + 1}, {0, n})
        local Ac = speck.View("Ac", dt, {n, n})
        speck.deep_copy(Ac, A)
        local bigB = make("bigB", dt, {n + 1, 9}, "left", function() return crand(2) end)
        local B = speck.subview(bigB, {1, n + 1}, {2, 7})
        local Bc = speck.View("Bc", dt, {n, 5})
        speck.deep_copy(Bc, B)
        blas.trsm("L", "U", "C", "N", {0, 1}, A, B, {impl = impl})
        blas.trsm("L", "U", "C", "N", {0, 1}, Ac, Bc, {impl = impl})
        local hb, hc = host(B), host(Bc)
        for i = 0, n - 1 do
          for j = 0, 4 do
            local g, w = hb(i, j), hc(i, j)
            assert(math.abs(g[1] - w[1]) + math.abs(g[2] - w[2]) <= TOL[dt], ("subview (%d, %d)"):format(i, j))
          end
        end
        if impl == "native" then ran_on_device("blas.ztrsm") end
      end)
    end
  end
end)

describe("complex speck.blas.potrf", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("factors Hermitian positive definite matrices as SciPy (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          for _, lay in ipairs(LAYOUTS) do
            -- H = B + B^H + 2n I: Hermitian, diagonally dominant
            local B = {}
            for i = 0, n - 1 do B[i] = {} for j = 0, n - 1 do B[i][j] = crand(1) end end
            local function h(i, j)
              if i == j then return {2 * n + 2 * B[i][i][1], 0} end
              return {B[i][j][1] + B[j][i][1], B[i][j][2] - B[j][i][2]}
            end
            for _, uplo in ipairs{"L", "U"} do
              local H = make("H", dt, {n, n}, lay, h)
              local want = oracle("potrf:" .. uplo, H)
              blas.potrf(uplo, H, {impl = impl})
              local got = host(H)
              local e = maxerr(got, want, 0, function(i, j)
                return uplo == "L" and j <= i or uplo == "U" and j >= i
              end)
              assert(e <= TOL[dt], ("n %d %s %s: error %g"):format(n, lay, uplo, e))
              -- the other triangle is not touched
              for i = 0, n - 1 do
                for j = 0, n - 1 do
                  if (uplo == "L" and j > i) or (uplo == "U" and j < i) then
                    local g, w = got(i, j), h(i, j)
                    assert(math.abs(g[1] - w[1]) + math.abs(g[2] - w[2]) <= TOL[dt],
                           ("n %d %s %s: A(%d, %d) changed"):format(n, lay, uplo, i, j))
                  end
                end
              end
            end
          end
        end
        if impl == "native" then ran_on_device("blas.zpotrf") end
      end)
    end
  end
end)

describe("complex speck.blas.getrf", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("factors with LAPACK's pivots (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          for li, lay in ipairs(LAYOUTS) do
            local A = make("A", dt, {n, n}, lay, function() return crand(2) end)
            local A0 = host(A)
            local p = speck.View("p", li == 1 and "int64" or "int32", n)
            blas.getrf(A, p, {impl = impl})
            local hp = host(p)
            if dt == "complex128" then
              local want = oracle("getrf", A0)
              local e = maxerr(host(A), want, 0)
              assert(e <= 1e-10, ("n %d %s: LU error %g"):format(n, lay, e))
              for k = 0, n - 1 do
                assert.are.equal(math.tointeger(want(n * n + k)[1]), hp(k))
              end
            else
              local pv = speck.View("pv", "int64", n, {space = "host"})
              for k = 0, n - 1 do pv:set(k, hp(k)) end
              local r = oracle("lucheck", A0, A, pv)(0)[1]
              assert(r <= 1e-4, ("n %d %s: ||PA - LU|| / ||A|| = %g"):format(n, lay, r))
            end
          end
        end
        -- rectangular: m > n and m < n
        if dt == "complex128" then
          for _, mn in ipairs{{9, 4}, {4, 9}} do
            local A = make("A", dt, mn, "right", function() return crand(2) end)
            local A0 = host(A)
            local k = math.min(mn[1], mn[2])
            local p = speck.View("p", "int64", k)
            blas.getrf(A, p, {impl = impl})
            local want = oracle("getrf", A0)
            local e = maxerr(host(A), want, 0)
            assert(e <= 1e-10, ("%dx%d: LU error %g"):format(mn[1], mn[2], e))
            local hp = host(p)
            for q = 0, k - 1 do assert.are.equal(math.tointeger(want(mn[1] * mn[2] + q)[1]), hp(q)) end
          end
        end
        if impl == "native" then ran_on_device("blas.zgetrf") end
      end)
    end
  end
end)

describe("complex speck.batched.gemm", function()
  local CASES = {{"N", "N", 7, 7, 7}, {"T", "C", 3, 4, 5}, {"C", "N", 20, 20, 20},
                 {"N", "T", 1, 1, 1}, {"C", "C", 5, 2, 6}}
  for _, dt in ipairs(DTYPES) do
    it("multiplies every matrix of the batch in every mode as NumPy (" .. dt .. ")", function()
      if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
      for ci, c in ipairs(CASES) do
        local ta, tb, m, n, k = c[1], c[2], c[3], c[4], c[5]
        local nb = 6
        local lay = LAYOUTS[ci % 2 + 1]
        local A = make("A", dt, ta == "N" and {nb, m, k} or {nb, k, m}, lay, function() return crand(2) end)
        local B = make("B", dt, tb == "N" and {nb, k, n} or {nb, n, k}, lay, function() return crand(2) end)
        local C0 = make("C0", dt, {nb, m, n}, lay, function() return crand(2) end)
        local want = oracle(("bgemm:%s:%s:0.5:2:-1:0.25"):format(ta, tb), A, B, C0)
        for _, mode in ipairs{"serial", "rows", "team", "teamvector", "auto"} do
          local C = speck.View("C", dt, {nb, m, n}, {layout = lay})
          speck.deep_copy(C, C0)
          batched.gemm(ta, tb, {0.5, 2}, A, B, {-1, 0.25}, C, {mode = mode})
          local h = host(C)
          local e, big = 0, 1
          for b = 0, nb - 1 do
            for i = 0, m - 1 do
              for j = 0, n - 1 do
                local g, w = h(b, i, j), want((b * m + i) * n + j)
                e = math.max(e, math.abs(g[1] - w[1]) + math.abs(g[2] - w[2]))
                big = math.max(big, math.abs(w[1]) + math.abs(w[2]))
              end
            end
          end
          assert(e / big <= TOL[dt], ("%s%s %dx%dx%d %s: error %g"):format(ta, tb, m, n, k, mode, e / big))
        end
      end
      ran_on_device("batched.zgemm")
    end)
  end
end)

describe("complex speck.batched.trsm", function()
  for _, dt in ipairs(DTYPES) do
    it("solves every matrix of the batch in every mode as NumPy (" .. dt .. ")", function()
      if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
      local nb, n, k = 5, 9, 4
      local cases = {{"L", "L", "N", "N"}, {"L", "U", "C", "U"}, {"R", "L", "T", "N"},
                     {"R", "U", "C", "N"}, {"L", "L", "T", "U"}, {"R", "L", "C", "U"}}
      for ci, c in ipairs(cases) do
        local side, uplo, tr, diag = c[1], c[2], c[3], c[4]
        local lay = LAYOUTS[ci % 2 + 1]
        local A = make("A", dt, {nb, n, n}, lay, function(_, i, j)
          if i == j then return {2 + rnd(), rnd() - 0.5} end
          return crand(1 / n)
        end)
        local dims = side == "L" and {nb, n, k} or {nb, k, n}
        local B0 = make("B0", dt, dims, lay, function() return crand(4) end)
        local want = oracle(("btrsm:%s:%s:%s:%s:0.5:-2"):format(side, uplo, tr, diag), A, B0)
        for _, mode in ipairs{"serial", "team", "teamvector", "auto"} do
          local B = speck.View("B", dt, dims, {layout = lay})
          speck.deep_copy(B, B0)
          batched.trsm(side, uplo, tr, diag, {0.5, -2}, A, B, {mode = mode})
          local h = host(B)
          local e, big = 0, 1
          for b = 0, nb - 1 do
            for i = 0, dims[2] - 1 do
              for j = 0, dims[3] - 1 do
                local g, w = h(b, i, j), want((b * dims[2] + i) * dims[3] + j)
                e = math.max(e, math.abs(g[1] - w[1]) + math.abs(g[2] - w[2]))
                big = math.max(big, math.abs(w[1]) + math.abs(w[2]))
              end
            end
          end
          assert(e / big <= TOL[dt], ("%s%s%s%s %s: error %g"):format(side, uplo, tr, diag, mode, e / big))
        end
      end
      ran_on_device("batched.ztrsm")
    end)
  end
end)

describe("complex speck.sparse SpTRSV", function()
  -- a random triangular n x n matrix (density d off the diagonal) in
  -- Matrix Market, complex general
  local function tri_mm(name, n, lower, d)
    local lines = {}
    for i = 1, n do
      for j = 1, n do
        if i == j then
          lines[#lines + 1] = ("%d %d %.17g %.17g"):format(i, j, 2 + rnd(), rnd() - 0.5)
        elseif (lower and j < i or not lower and j > i) and rnd() < d then
          local z = crand(1 / (d * n + 1))
          lines[#lines + 1] = ("%d %d %.17g %.17g"):format(i, j, z[1], z[2])
        end
      end
    end
    local p = DIR .. "/" .. name
    local f = assert(io.open(p, "w"))
    f:write("%%MatrixMarket matrix coordinate complex general\n",
            ("%d %d %d\n"):format(n, n, #lines), table.concat(lines, "\n"), "\n")
    f:close()
    return p
  end
  for _, dt in ipairs(DTYPES) do
    it("solves lower and upper, unit and not, as NumPy (" .. dt .. ")", function()
      if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
      for _, n in ipairs{1, 7, 64, 200} do
        for _, uplo in ipairs{"L", "U"} do
          local T = sparse.read_mm(tri_mm("t.mtx", n, uplo == "L", 0.1), {dtype = dt})
          assert.are.equal(dt, T:dtype())
          local b = make("b", dt, {n, 1}, "right", function() return crand(4) end)
          local b1 = speck.View("b1", dt, n)
          speck.parallel_for("zl_col", n, {b1 = b1, b = b}, "b1(i) = b(i, 0);")
          for _, diag in ipairs{"N", "U"} do
           for _, tr in ipairs{"N", "T", "C"} do
            local want = oracle("sptrsv:" .. uplo .. ":" .. diag .. ":" .. tr, T:to_dense(), b1)
            for _, alg in ipairs{"auto", "levelset"} do
              local x = speck.View("x", dt, n)
              sparse.sptrsv(T, b1, x, {uplo = uplo, diag = diag, algorithm = alg, trans = tr})
              local h = host(x)
              local e, big = 0, 1
              for i = 0, n - 1 do
                local g, w = h(i), want(i)
                e = math.max(e, math.abs(g[1] - w[1]) + math.abs(g[2] - w[2]))
                big = math.max(big, math.abs(w[1]) + math.abs(w[2]))
              end
              assert(e / big <= TOL[dt], ("n %d %s%s%s %s: error %g"):format(n, uplo, diag, tr, alg, e / big))
            end
           end
          end
          -- a handle reused: for another right-hand side, and transposed
          -- after A's values changed (the level-set solve reads them again)
          local h = sparse.sptrsv_symbolic(T, {uplo = uplo})
          assert.are.equal("levelset", h.algorithm)
          local x = speck.View("x", dt, n)
          sparse.sptrsv_solve(h, T, b1, x, {trans = "C"})
          speck.parallel_for("zl_scale", T:nnz(), {v = T.values}, "v(i) = v(i) * cmplx(0, 2);")
          local want = oracle("sptrsv:" .. uplo .. ":N:C", T:to_dense(), b1)
          for _, tr in ipairs{"C", "N"} do
            sparse.sptrsv_solve(h, T, b1, x, {trans = tr})
            if tr == "C" then
              local hx = host(x)
              for i = 0, n - 1 do
                local g, w = hx(i), want(i)
                assert(math.abs(g[1] - w[1]) + math.abs(g[2] - w[2]) <= TOL[dt] * math.max(1, math.abs(w[1]) + math.abs(w[2])),
                       ("n %d %s: reused handle, row %d"):format(n, uplo, i))
              end
            end
          end
        end
      end
      -- a GPU solves runs of thin levels in one team (the chain kernel):
      -- these matrices' levels are all thin
      if DEVICE and launches("sparse.sptrsv_level") == 0 then
        ran_on_device("sparse.sptrsv_chain")
      else
        ran_on_device("sparse.sptrsv_level")
      end
      ran_on_device("sparse.sptrsv_conj")
    end)
  end
end)

describe("complex linear algebra: bad input", function()
  it("names the call, the view and what is wrong; the VM stays usable", function()
    local Z = make("Z", "complex128", {3, 3}, "right", function(i, j) return {i == j and 4 or 0, 0} end)
    local F = speck.View("F", "complex64", {3, 2})
    local R = speck.View("R", "float64", {3, 2})
    -- mixed complex dtypes
    assert.are.equal("speck.blas.ztrsm: B (view 'F') is complex64, the other views complex128",
                     err_of(blas.trsm, "L", "L", "N", "N", 1, Z, F))
    -- a real view beside a complex one, a complex one where a real one is needed
    assert.are.equal("speck.blas.ztrsm: B (view 'R') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)",
                     err_of(blas.trsm, "L", "L", "N", "N", 1, Z, R))
    assert.are.equal("speck.blas.zsyrk: C (view 'S') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)",
                     err_of(blas.syrk, "L", "N", 1, Z, 0, speck.View("S", "float64", {3, 3})))
    assert.are.equal("speck.blas.asum: x view 'c' is complex128; a real dtype is required (complex values are "
                     .. "not supported here)",
                     err_of(blas.asum, speck.View("c", "complex128", 3)))
    assert.are.equal("speck.blas.zgetrf: ipiv (view 'q') is complex128: int32 or int64 expected",
                     err_of(blas.getrf, Z, speck.View("q", "complex128", 3)))
    assert.are.equal("speck.blas.zgetrf: ipiv (view 'p') has 2 elements, the factorisation 3 pivots",
                     err_of(blas.getrf, Z, speck.View("p", "int64", 2)))
    assert.are.equal("speck.blas.ztrsm: shapes do not match: A is 3x3, B 2x3 (side L: A must be "
                     .. "square with as many rows as B)",
                     err_of(blas.trsm, "L", "L", "N", "N", 1, Z, speck.View("B", "complex128", {2, 3})))
    assert.are.equal("speck.blas.ztrsm: transA must be \"N\" | \"T\" | \"C\" (got \"X\")",
                     err_of(blas.trsm, "L", "L", "X", "N", 1, Z, speck.View("B", "complex128", {3, 3})))
    assert.are.equal("speck.blas.zpotrf: A (view 'W') is 3x2: a square matrix expected",
                     err_of(blas.potrf, "L", speck.View("W", "complex128", {3, 2})))
    assert.are.equal("speck.blas.zpotrf: impl must be \"native\" | \"vendor\" | \"auto\" (got \"fast\")",
                     err_of(blas.potrf, "L", Z, {impl = "fast"}))
    assert.are.equal("speck.blas.potrf: unknown option 'nb' (valid: impl)", err_of(blas.potrf, "L", Z, {nb = 4}))
    -- not positive definite, not finite, singular: the pivot named
    for _, impl in ipairs(IMPLS) do
      local function P(d22, d11)
        return make("P", "complex128", {3, 3}, "right", function(i, j)
          if i ~= j then return {0, 0} end
          if i == 2 then return {d22, 0} end
          if i == 1 and d11 then return {d11, 0} end
          return {4, 0}
        end)
      end
      assert.are.equal("speck.blas.zpotrf: A (view 'P') is not positive definite: the leading minor "
                       .. "of order 3 is not positive (pivot 2)",
                       err_of(blas.potrf, "L", P(-1), {impl = impl}))
      assert.are.equal("speck.blas.zpotrf: A (view 'P') is not positive definite: the pivot of row 1, "
                       .. "column 1 is NaN", err_of(blas.potrf, "U", P(4, 0 / 0), {impl = impl}))
      assert.are.equal("speck.blas.zpotrf: A (view 'P') is not positive definite: the pivot of row 2, "
                       .. "column 2 is Inf", err_of(blas.potrf, "L", P(math.huge), {impl = impl}))
      local S = make("S", "complex64", {3, 3}, "right", function(i, j)
        return j == 1 and {0, 0} or {i + 1, j}
      end)
      assert.are.equal("speck.blas.zgetrf: A (view 'S') is singular: pivot 1 is zero",
                       err_of(blas.getrf, S, speck.View("p", "int32", 3), {impl = impl}))
    end
    -- batched gemm
    local a3 = speck.View("a", "complex128", {2, 3, 3})
    assert.are.equal("speck.batched.zgemm: B (view 'b') is complex64, the other views complex128",
                     err_of(batched.gemm, "N", "N", 1, a3, speck.View("b", "complex64", {2, 3, 3}), 0,
                            speck.View("c", "complex128", {2, 3, 3})))
    assert.are.equal("speck.batched.zgemm: batch sizes differ: A is 2x3x3, C 3x3x3",
                     err_of(batched.gemm, "N", "N", 1, a3, a3, 0, speck.View("c", "complex128", {3, 3, 3})))
    assert.are.equal("speck.batched.zgemm: mode must be \"serial\" | \"team\" | \"teamvector\" | \"auto\" "
                     .. "(got \"simd\"; or \"rows\")",
                     err_of(batched.gemm, "N", "N", 1, a3, a3, 0, speck.View("c", "complex128", {2, 3, 3}),
                            {mode = "simd"}))
    assert.are.equal("speck.batched.zgemm: C (view 'a') shares its memory with A (view 'a')",
                     err_of(batched.gemm, "N", "N", 1, a3, a3, 0, a3))
    assert.are.equal("speck.batched.ztrsm: shapes do not match: A is 2x3x3, B 2x4x3 (side L: each A "
                     .. "square with as many rows as B)",
                     err_of(batched.trsm, "L", "L", "N", "N", 1, a3, speck.View("b", "complex128", {2, 4, 3})))
    assert.are.equal("speck.batched.ztrsm: B (view 'b') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)",
                     err_of(batched.trsm, "L", "L", "N", "N", 1, a3, speck.View("b", "float64", {2, 3, 3})))
    assert.are.equal("speck.batched.ztrsm: mode must be \"serial\" | \"team\" | \"teamvector\" | "
                     .. "\"auto\" (got \"rows\")",
                     err_of(batched.trsm, "L", "L", "N", "N", 1, a3, speck.View("b", "complex128", {2, 3, 3}),
                            {mode = "rows"}))
    -- SpTRSV: the supernodal algorithm is real only; a zero diagonal names its row
    local p = DIR .. "/z.mtx"
    local f = assert(io.open(p, "w"))
    f:write("%%MatrixMarket matrix coordinate complex general\n3 3 4\n1 1 1 0\n2 1 1 1\n2 2 0 0\n3 3 2 0\n")
    f:close()
    local T = sparse.read_mm(p)
    local b, x = speck.View("b", "complex128", 3):fill(1), speck.View("x", "complex128", 3)
    assert.are.equal("speck.sparse.sptrsv_symbolic: algorithm \"supernodal\" takes real values, A's are "
                     .. "complex128 (use \"levelset\" or \"auto\")",
                     err_of(sparse.sptrsv, T, b, x, {algorithm = "supernodal"}))
    assert.are.equal("speck.sparse.sptrsv_solve: zero on the diagonal in row 1: A is singular",
                     err_of(sparse.sptrsv, T, b, x))
    assert.are.equal("speck.sparse.sptrsv_solve: zero on the diagonal in row 1: A is singular",
                     err_of(sparse.sptrsv, T, b, x, {trans = "C"}))
    assert.are.equal("speck.sparse.sptrsv_solve: trans must be \"N\", \"T\" or \"C\", got H",
                     err_of(sparse.sptrsv, T, b, x, {trans = "H"}))
    assert.are.equal("speck.sparse.sptrsv_conj: v (view 'r') is float64: a rank-1 complex128 or "
                     .. "complex64 view expected",
                     err_of(speck.call, "sparse.sptrsv_conj", {v = speck.View("r", "float64", 3)}))
    assert.are.equal("speck.sparse.sptrsv_solve: A is complex128, b (view 'r') float64 and x "
                     .. "(view 'x') complex128: all must be one dtype",
                     err_of(sparse.sptrsv, T, speck.View("r", "float64", 3), x))
    -- the VM is usable
    blas.potrf("L", Z)
    assert.are.same({2, 0}, host(Z)(1, 1))
  end)
end)

describe("complex linear algebra bodies", function()
  it("compile for the GPU (NVRTC, compile only)", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then return pending("no NVRTC") end
    local function H(dt, dims) return speck.View("h", dt, dims, {space = "host"}) end
    local i64 = function(v) return {"int64", v} end
    local c = function(re, im) return {"complex128", {re, im}} end
    for _, dt in ipairs(DTYPES) do
      local A, B, C = H(dt, {4, 4}), H(dt, {4, 4}), H(dt, {4, 4})
      local info, P = H("int64", 1), H("int64", 4)
      local t = speck.kernel_text
      speck.kernel("g_ztrsv_" .. dt, "range", {A = A, B = B, lower = i64(1), unit = i64(0),
                   cj = i64(1), alpha = c(1, 0)}, t("blas_ztrsv"), {target = "cuda"})
      speck.kernel("g_zgemmt_" .. dt, "mdrange2", {A = A, B = B, C = C, ta = i64(78), tb = i64(67),
                   tri = i64(76), alpha = c(-1, 0), beta = c(1, 0)}, t("blas_zgemm_tri"), {target = "cuda"})
      speck.kernel("g_zpotrf_" .. dt, "team", {A = A, info = info, base = i64(0)}, t("blas_zpotrf"),
                   {target = "cuda"})
      speck.kernel("g_zgetrf_" .. dt, "team", {A = A, P = P, ipiv = H("int32", 4), info = info},
                   t("blas_zgetrf"), {target = "cuda"})
      local A3, B3, C3 = H(dt, {2, 3, 3}), H(dt, {2, 3, 3}), H(dt, {2, 3, 3})
      local caps = {A = A3, B = B3, C = C3, ta = i64(78), tb = i64(67), alpha = c(1, 1), beta = c(0, 0)}
      speck.kernel("g_zbs_" .. dt, "range", caps, t("batched_zbgemm_s"), {target = "cuda"})
      speck.kernel("g_zbr_" .. dt, "range", caps, t("batched_zbgemm_r"), {target = "cuda"})
      caps.vec = i64(1)
      speck.kernel("g_zbt_" .. dt, "team", caps, t("batched_zbgemm_t"), {target = "cuda"})
      local tcaps = {A = A3, B = B3, lower = i64(1), unit = i64(0), cj = i64(1), tr = i64(1),
                     sr = i64(0), alpha = c(1, 0)}
      speck.kernel("g_zbts_" .. dt, "range", tcaps, t("batched_zbtrsm_s"), {target = "cuda"})
      speck.kernel("g_zbtt_" .. dt, "team", tcaps, t("batched_zbtrsm_t"), {target = "cuda"})
      local rp, ci, v = H("int64", 5), H("int32", 4), H(dt, 4)
      local lcaps = {rowptr = rp, colidx = ci, values = v, rows = H("int64", 4), b = H(dt, 4),
                     x = H(dt, 4), bad = info, first = i64(0), unit = i64(0)}
      speck.kernel("g_sptrsv_" .. dt, "range", lcaps, t("sparse_sptrsv_level"), {target = "cuda"})
      lcaps.first, lcaps.lp, lcaps.la, lcaps.lb = nil, H("int64", 3), i64(0), i64(2)
      speck.kernel("g_sptrsvc_" .. dt, "team", lcaps, t("sparse_sptrsv_chain"), {target = "cuda"})
      speck.kernel("g_sconj_" .. dt, "range", {v = v}, t("sparse_sptrsv_conj"), {target = "cuda"})
      for _, l in ipairs{"g_ztrsv_", "g_zgemmt_", "g_zpotrf_", "g_zgetrf_", "g_zbs_", "g_zbt_", "g_sptrsvc_",
                     "g_sconj_", "g_zbts_", "g_zbtt_"} do
        local _, tier = nil, nil
        for _, k in ipairs(speck.jit.stats().per_kernel) do
          if k.label == l .. dt then tier = k.tier end
        end
        assert.are.equal("nvrtc", tier)
      end
    end
  end)
end)
