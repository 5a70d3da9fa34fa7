local speck = require "speck"
-- zlinalg2_spec.lua: the rest of dense linear algebra on complex views
-- (complex128, complex64) against NumPy / SciPy (tests/zlinalg2_oracle.py,
-- run with SPECK_PYTHON or /usr/bin/python3 on .npy files written here):
-- speck.blas.getrs (trans N, T, C; int32 and int64 pivots) and gesv,
-- trtri, trmm (every side, uplo, trans, diag), syrk and herk, at n = 1, 7,
-- 64, 150, row- and column-major, impl native and (host) vendor;
-- speck.batched.lu (with and without pivoting), gesv, trtri and trmm in
-- every mode; bad input with its exact message. tests/run.sh runs it once
-- per back end; the views are in the default space; on a GPU the library
-- kernels must have run there (NVRTC, speck.jit.stats), and their bodies
-- are compiled for the GPU here when NVRTC is present.

local blas = require "speck.blas"
local batched = require "speck.batched"

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/zlinalg2_oracle.py"
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
local VENDOR = not DEVICE and speck.info().blas_vendor.available
local IMPLS = VENDOR and {"native", "vendor"} or {"native"}
local DTYPES = {"complex128", "complex64"}
local TOL = {complex128 = 1e-10, complex64 = 3e-4}
local SIZES = {1, 7, 64, 150}
local LAYOUTS = {"right", "left"}
local MODES = {"serial", "team", "teamvector", "auto"}

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 777
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function crand(s) return {(rnd() - 0.5) * s, (rnd() - 0.5) * s} end

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
local function copy(v, label)
  local dims = {}
  for k = 0, v:rank() - 1 do dims[#dims + 1] = v:extent(k) end
  local c = speck.View(label or "copy", v:dtype(), dims, {layout = v:layout()})
  speck.deep_copy(c, v)
  return c
end

-- (only where NumPy and SciPy are: a server that cannot start would leave
-- the FIFO's open waiting; the cases are pending then)
local oracle, oracle_close
if HAVE_SCIPY then
  oracle, oracle_close = dofile(HERE .. "/npy_oracle.lua")(PY, ORACLE, DIR, host)
  teardown(oracle_close)
end

-- max |got - want| / max(1, max |want|) over the entries of 'got' (host,
-- rank 2 or 3) that keep(i, j) accepts, want(k0 + flat index)
local function maxerr(got, want, k0, keep)
  local e, big = 0, 1
  local function one(g, w)
    local dr, di = g[1] - w[1], g[2] - w[2]
    e = math.max(e, math.sqrt(dr * dr + di * di))
    big = math.max(big, math.sqrt(w[1] * w[1] + w[2] * w[2]))
  end
  if got:rank() == 2 then
    local m, n = got:extent(0), got:extent(1)
    for i = 0, m - 1 do
      for j = 0, n - 1 do
        if not keep or keep(i, j) then one(got(i, j), want(k0 + i * n + j)) end
      end
    end
  else
    local nb, m, n = got:extent(0), got:extent(1), got:extent(2)
    for b = 0, nb - 1 do
      for i = 0, m - 1 do
        for j = 0, n - 1 do
          if not keep or keep(i, j) then one(got(b, i, j), want(k0 + (b * m + i) * n + j)) end
        end
      end
    end
  end
  return e / big
end

-- on a GPU the library kernel 'label' ran there (NVRTC)
local function ran_on_device(label)
  if not DEVICE then return end
  local n, tier = 0, nil
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label == label and k.launches > 0 then
      n = n + k.launches
      tier = k.tier
    end
  end
  assert(n > 0, label .. " launched no kernel")
  assert.are.equal("nvrtc", tier)
end

-- a general matrix, well conditioned (a heavier diagonal)
local function general(n) return function(i, j)
  local z = crand(2)
  if i == j then z[1] = z[1] + 3 end
  return z
end end
-- triangles well conditioned: diagonal 2..3, small off-diagonal entries
local function triangular(n) return function(_, i, j)
  if j == nil then i, j = _, i end
  if i == j then return {2 + rnd(), rnd() - 0.5} end
  return crand(1 / n)
end end

describe("complex speck.blas.getrs and gesv", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("solve op(A) X = B with getrf's pivots as NumPy (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          for li, lay in ipairs(LAYOUTS) do
            local A = make("A", dt, {n, n}, lay, general(n))
            local B = make("B", dt, {n, 3}, LAYOUTS[3 - li], function() return crand(4) end)
            -- gesv, the pivots kept and not
            local want = oracle("solve:N", A, B)
            local F, X = copy(A, "F"), copy(B, "X")
            blas.gesv(F, X, {impl = impl})
            local e = maxerr(host(X), want, 0)
            assert(e <= TOL[dt], ("gesv n %d %s: error %g"):format(n, lay, e))
            local F2, X2 = copy(A, "F2"), copy(B, "X2")
            local p2 = speck.View("p2", "int64", n)
            blas.gesv(F2, X2, p2, {impl = impl})
            e = maxerr(host(X2), want, 0)
            assert(e <= TOL[dt], ("gesv with ipiv n %d %s: error %g"):format(n, lay, e))
            -- getrs after getrf, every trans, int32 and int64 pivots
            local G = copy(A, "G")
            local p = speck.View("p", li == 1 and "int32" or "int64", n)
            blas.getrf(G, p, {impl = impl})
            local hp, hp2 = host(p), host(p2)
            for k = 0, n - 1 do assert.are.equal(hp(k), hp2(k)) end
            for _, t in ipairs{"N", "T", "C"} do
              local w = t == "N" and want or oracle("solve:" .. t, A, B)
              local Y = copy(B, "Y")
              blas.getrs(G, p, Y, {impl = impl, trans = t})
              e = maxerr(host(Y), w, 0)
              assert(e <= TOL[dt], ("getrs %s n %d %s: error %g"):format(t, n, lay, e))
            end
          end
        end
        if impl == "native" then
          ran_on_device("blas.zgetrs")
          ran_on_device("blas.zgetrf")
        end
      end)
    end
  end
end)

describe("complex speck.blas.trtri", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("inverts each triangle as NumPy, the other untouched (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          for _, lay in ipairs(LAYOUTS) do
            local f = triangular(n)
            local A = make("A", dt, {n, n}, lay, f)
            local A0 = host(A)
            for _, uplo in ipairs{"L", "U"} do
              for _, diag in ipairs{"N", "U"} do
                local want = oracle(("trtri:%s:%s"):format(uplo, diag), A)
                local T = copy(A, "T")
                blas.trtri(uplo, diag, T, {impl = impl})
                local got = host(T)
                local e = maxerr(got, want, 0, function(i, j)
                  return (uplo == "L" and j <= i or uplo == "U" and j >= i) and (diag == "N" or i ~= j)
                end)
                assert(e <= TOL[dt], ("n %d %s %s%s: error %g"):format(n, lay, uplo, diag, e))
                for i = 0, n - 1 do
                  for j = 0, n - 1 do
                    if (uplo == "L" and j > i) or (uplo == "U" and j < i) or (diag == "U" and i == j) then
                      assert.are.same(A0(i, j), got(i, j))
                    end
                  end
                end
              end
            end
          end
        end
        if impl == "native" then ran_on_device("blas.ztrtri") end
      end)
    end
  end
end)

describe("complex speck.blas.trmm", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("multiplies every side, uplo, trans (N T C) and diag as NumPy (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          -- one layout for A and B (the vendor's), and two (native)
          for _, lay2 in ipairs{{"right", "right"}, {"left", "left"}, {"right", "left"}} do
            local lay, blay = lay2[1], lay2[2]
            local A = make("A", dt, {n, n}, lay, function() return crand(2) end)
            local BL = make("BL", dt, {n, 3}, blay, function() return crand(4) end)
            local BR = make("BR", dt, {3, n}, blay, function() return crand(4) end)
            local want = oracle("trmm:0.5:-1.5", A, BL, BR)
            local k0 = 0
            for _, side in ipairs{"L", "R"} do
              local B0 = side == "L" and BL or BR
              for _, uplo in ipairs{"L", "U"} do
                for _, tr in ipairs{"N", "T", "C"} do
                  for _, diag in ipairs{"N", "U"} do
                    local X = copy(B0, "X")
                    blas.trmm(side, uplo, tr, diag, {0.5, -1.5}, A, X, {impl = impl})
                    local e = maxerr(host(X), want, k0)
                    assert(e <= TOL[dt], ("n %d %s/%s %s%s%s%s: error %g"):format(n, lay, blay, side, uplo, tr, diag, e))
                    k0 = k0 + #X
                  end
                end
              end
            end
          end
        end
        -- alpha 0 writes zeros
        local A = make("A", dt, {4, 4}, "right", function() return crand(2) end)
        local X = make("X", dt, {4, 2}, "right", function() return {0 / 0, 1} end)
        blas.trmm("L", "U", "N", "N", 0, A, X, {impl = impl})
        local h = host(X)
        for i = 0, 3 do for j = 0, 1 do assert.are.same({0, 0}, h(i, j)) end end
        if impl == "native" then ran_on_device("blas.ztrmm") end
      end)
    end
  end
end)

describe("complex speck.blas.syrk and herk", function()
  for _, dt in ipairs(DTYPES) do
    for _, impl in ipairs(IMPLS) do
      it("update one triangle as NumPy, the other untouched (" .. dt .. ", " .. impl .. ")", function()
        if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
        for _, n in ipairs(SIZES) do
          for li, lay in ipairs(LAYOUTS) do
            local k = n + 2
            local C0 = make("C0", dt, {n, n}, lay, function() return crand(2) end)
            local hc0 = host(C0)
            for _, her in ipairs{false, true} do
              for _, t in ipairs(her and {"N", "C"} or {"N", "T"}) do
                local A = make("A", dt, t == "N" and {n, k} or {k, n}, LAYOUTS[li], function() return crand(2) end)
                local want = her and oracle(("herk:%s:1.5:-0.5"):format(t), A, C0)
                             or oracle(("syrk:%s:0.5:1:-1:0.25"):format(t), A, C0)
                for _, uplo in ipairs{"L", "U"} do
                  local C = copy(C0, "C")
                  if her then
                    blas.herk(uplo, t, 1.5, A, -0.5, C, {impl = impl})
                  else
                    blas.syrk(uplo, t, {0.5, 1}, A, {-1, 0.25}, C, {impl = impl})
                  end
                  local got = host(C)
                  local e = maxerr(got, want, 0, function(i, j)
                    return uplo == "L" and j <= i or uplo == "U" and j >= i
                  end)
                  assert(e <= TOL[dt], ("%s %s%s n %d %s: error %g"):format(her and "herk" or "syrk", uplo, t, n, lay, e))
                  for i = 0, n - 1 do
                    if her then assert.are.equal(0, got(i, i)[2]) end
                    for j = 0, n - 1 do
                      if (uplo == "L" and j > i) or (uplo == "U" and j < i) then
                        assert.are.same(hc0(i, j), got(i, j))
                      end
                    end
                  end
                end
              end
            end
          end
        end
        -- real views: herk is syrk ("C" = "T")
        local R = speck.View("R", "float64", {3, 2}):fill(1)
        local S = speck.View("S", "float64", {2, 2})
        blas.herk("U", "C", 2, R, 0, S)
        assert.are.equal(6, host(S)(0, 1))
        if impl == "native" then ran_on_device("blas.zsyrk") end
      end)
    end
  end
end)

describe("complex speck.batched.lu, gesv, trtri, trmm", function()
  local nb = 5
  for _, dt in ipairs(DTYPES) do
    it("factor, solve, invert and multiply each matrix in every mode as NumPy (" .. dt .. ")", function()
      if not HAVE_SCIPY then return pending("no NumPy / SciPy at " .. PY) end
      for li, lay in ipairs(LAYOUTS) do
        for _, n in ipairs{1, 4, 9, 17} do
          local A = make("A", dt, {nb, n, n}, lay, function(_, i, j)
            local z = crand(2)
            if i == j then z[1] = z[1] + 4 end
            return z
          end)
          local B = make("B", dt, {nb, n, 3}, lay, function() return crand(4) end)
          local w_lu, w_getrf = oracle("blu", A), oracle("bgetrf", A)
          local w_gesv = oracle("bgesv", A, B)
          local T = make("T", dt, {nb, n, n}, lay, triangular(n))
          local TRI = {{"L", "N"}, {"U", "N"}, {"L", "U"}, {"U", "U"}}
          local w_tri = {}
          for k, ud in ipairs(TRI) do w_tri[k] = oracle(("btrtri:%s:%s"):format(ud[1], ud[2]), T) end
          for _, mode in ipairs(MODES) do
            local tag = ("%s n %d %s"):format(lay, n, mode)
            -- lu without pivoting
            local L = copy(A, "L")
            local info = batched.lu(L, {mode = mode})
            assert.are.equal(0, host(info)(0))
            local e = maxerr(host(L), w_lu, 0)
            assert(e <= TOL[dt], ("lu %s: error %g"):format(tag, e))
            -- with pivoting: LAPACK's pivots
            local G = copy(A, "G")
            local _, ipiv = batched.lu(G, {mode = mode, pivot = true})
            e = maxerr(host(G), w_getrf, 0)
            assert(e <= TOL[dt], ("getrf %s: error %g"):format(tag, e))
            local hp = host(ipiv)
            for b = 0, nb - 1 do
              for k = 0, n - 1 do
                assert.are.equal(math.tointeger(w_getrf(nb * n * n + b * n + k)[1]), hp(b, k))
              end
            end
            -- gesv
            local F, X = copy(A, "F"), copy(B, "X")
            batched.gesv(F, X, {mode = mode})
            e = maxerr(host(X), w_gesv, 0)
            assert(e <= TOL[dt], ("gesv %s: error %g"):format(tag, e))
            -- trtri, each triangle
            for k, ud in ipairs(TRI) do
              local uplo, diag, W = ud[1], ud[2], w_tri[k]
              local I = copy(T, "I")
              batched.trtri(uplo, diag, I, {mode = mode})
              e = maxerr(host(I), W, 0, function(i, j)
                return (uplo == "L" and j <= i or uplo == "U" and j >= i) and (diag == "N" or i ~= j)
              end)
              assert(e <= TOL[dt], ("trtri %s%s %s: error %g"):format(uplo, diag, tag, e))
            end
          end
          -- trmm, a few of each side, uplo, trans, diag
          local cases = {{"L", "L", "N", "N"}, {"L", "U", "C", "U"}, {"R", "L", "T", "N"},
                         {"R", "U", "C", "N"}, {"L", "L", "T", "U"}, {"R", "L", "C", "U"}}
          for _, c in ipairs(cases) do
            local side, uplo, tr, diag = c[1], c[2], c[3], c[4]
            local dims = side == "L" and {nb, n, 3} or {nb, 3, n}
            local B0 = make("B0", dt, dims, LAYOUTS[3 - li], function() return crand(4) end)
            local want = oracle(("btrmm:%s:%s:%s:%s:0.5:-2"):format(side, uplo, tr, diag), A, B0)
            for _, mode in ipairs(MODES) do
              local X = copy(B0, "X")
              batched.trmm(side, uplo, tr, diag, {0.5, -2}, A, X, {mode = mode})
              local e = maxerr(host(X), want, 0)
              assert(e <= TOL[dt], ("trmm %s%s%s%s n %d %s: error %g"):format(side, uplo, tr, diag, n, mode, e))
            end
          end
        end
      end
      ran_on_device("batched.zlu")
      ran_on_device("batched.ztrmm")
    end)
  end
end)

describe("complex dense and batched: bad input", function()
  it("names the call, the view and what is wrong; the VM stays usable", function()
    local Z = make("Z", "complex128", {3, 3}, "right", function(i, j) return {i == j and 4 or 1, 0} end)
    local F = speck.View("F", "complex64", {3, 2})
    local R = speck.View("R", "float64", {3, 2})
    local p = speck.View("p", "int64", 3)
    -- mixed complex dtypes, a real view beside a complex one
    assert.are.equal("speck.blas.zgesv: B (view 'F') is complex64, the other views complex128",
                     err_of(blas.gesv, Z, F))
    assert.are.equal("speck.blas.zgetrs: B (view 'R') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)", err_of(blas.getrs, Z, p, R))
    assert.are.equal("speck.blas.zgetrs: A (view 'Q') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)",
                     err_of(blas.getrs, speck.View("Q", "float64", {3, 3}), p, F))
    assert.are.equal("speck.blas.ztrmm: B (view 'F') is complex64, the other views complex128",
                     err_of(blas.trmm, "L", "L", "N", "N", 1, Z, F))
    assert.are.equal("speck.blas.zsyrk: C (view 'R') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)",
                     err_of(blas.syrk, "L", "N", 1, Z, 0, R))
    -- herk: alpha and beta real
    local C = speck.View("C", "complex128", {3, 3})
    assert.are.equal("speck.blas.zherk: alpha must be real for herk (C = alpha A A^H + beta C stays "
                     .. "Hermitian only so), got 1+2i", err_of(blas.herk, "L", "N", {1, 2}, Z, 0, C))
    assert.are.equal("speck.blas.zherk: beta must be real for herk (C = alpha A A^H + beta C stays "
                     .. "Hermitian only so), got 0-0.5i", err_of(blas.herk, "L", "N", 1, Z, {0, -0.5}, C))
    assert.are.equal("speck.blas.zherk: trans must be \"N\" | \"C\" (got \"T\")",
                     err_of(blas.herk, "L", "T", 1, Z, 0, C))
    assert.are.equal("speck.blas.zsyrk: trans must be \"N\" | \"T\" (got \"C\")",
                     err_of(blas.syrk, "L", "C", 1, Z, 0, C))
    assert.are.equal("speck.blas.zherk: shapes do not match: op(A) is 3x3, C 2x2 (square, as many "
                     .. "rows as op(A))", err_of(blas.herk, "L", "N", 1, Z, 0, speck.View("c", "complex128", {2, 2})))
    assert.are.equal("speck.blas.zherk: C (view 'Z') shares its memory with A (view 'Z')",
                     err_of(blas.herk, "L", "N", 1, Z, 0, Z))
    -- shapes, pivots, options
    assert.are.equal("speck.blas.zgesv: shapes do not match: A is 3x3, B 2x2 (B needs as many rows as A)",
                     err_of(blas.gesv, Z, speck.View("b", "complex128", {2, 2})))
    assert.are.equal("speck.blas.zgetrs: ipiv (view 'q') is float64: int32 or int64 expected",
                     err_of(blas.getrs, Z, speck.View("q", "float64", 3), C))
    assert.are.equal("speck.blas.zgetrs: ipiv (view 'p') has 2 elements, the factorisation 3 pivots",
                     err_of(blas.getrs, Z, speck.View("p", "int64", 2), C))
    assert.are.equal("speck.blas.zgetrs: trans must be \"N\" | \"T\" | \"C\" (got \"H\")",
                     err_of(blas.getrs, Z, p, C, {trans = "H"}))
    assert.are.equal("speck.blas.getrs: unknown option 'nb' (valid: impl, trans)",
                     err_of(blas.getrs, Z, p, C, {nb = 2}))
    assert.are.equal("speck.blas.herk: unknown option 'nb' (valid: impl)",
                     err_of(blas.herk, "L", "N", 1, Z, 0, C, {nb = 2}))
    assert.are.equal("speck.blas.ztrtri: A (view 'F') is 3x2: a square matrix expected",
                     err_of(blas.trtri, "U", "N", F))
    assert.are.equal("speck.blas.ztrmm: shapes do not match: A is 3x3, B 2x3 (side L: A must be "
                     .. "square with as many rows as B)",
                     err_of(blas.trmm, "L", "L", "N", "N", 1, Z, speck.View("B", "complex128", {2, 3})))
    assert.are.equal("speck.blas.ztrmm: A (view 'Z') and B (view 'Z') share memory: the output must "
                     .. "not alias an input", err_of(blas.trmm, "L", "L", "N", "N", 1, Z, Z))
    -- a singular matrix: the pivot named, by every implementation
    for _, impl in ipairs(IMPLS) do
      local S = make("S", "complex64", {3, 3}, "right", function(i, j)
        return j == 1 and {0, 0} or {i + 1, j}
      end)
      assert.are.equal("speck.blas.zgesv: A (view 'S') is singular: pivot 1 is zero",
                       err_of(blas.gesv, S, speck.View("b", "complex64", {3, 1}), {impl = impl}))
      local U = make("U", "complex128", {3, 3}, "right", function(i, j)
        return (i == 2 and j == 2) and {0, 0} or {1, 1}
      end)
      assert.are.equal("speck.blas.ztrtri: A (view 'U') is singular: pivot 2 is zero",
                       err_of(blas.trtri, "U", "N", U, {impl = impl}))
    end
    -- batched
    local a3 = make("a", "complex128", {2, 3, 3}, "right", function(_, i, j) return {i == j and 2 or 0, 0} end)
    assert.are.equal("speck.batched.zgesv: B (view 'b') is complex64, the other views complex128",
                     err_of(batched.gesv, a3, speck.View("b", "complex64", {2, 3, 1})))
    assert.are.equal("speck.batched.zgesv: B (view 'b') is float64; the complex BLAS takes complex128 "
                     .. "or complex64 views (plain, not tiled)",
                     err_of(batched.gesv, a3, speck.View("b", "float64", {2, 3, 1})))
    assert.are.equal("speck.batched.ztrmm: B (view 'b') is complex64, the other views complex128",
                     err_of(batched.trmm, "L", "L", "N", "N", 1, a3, speck.View("b", "complex64", {2, 3, 3})))
    assert.are.equal("speck.batched.ztrmm: mode must be \"serial\" | \"team\" | \"teamvector\" | "
                     .. "\"auto\" (got \"rows\")",
                     err_of(batched.trmm, "L", "L", "N", "N", 1, a3, speck.View("b", "complex128", {2, 3, 3}),
                            {mode = "rows"}))
    assert.are.equal("speck.batched.zlu: mode must be \"serial\" | \"team\" | \"teamvector\" | "
                     .. "\"auto\" (got \"simd\")", err_of(batched.lu, a3, {mode = "simd"}))
    assert.are.equal("speck.batched.ztrtri: A (view 'w') is 2x3x2: trtri needs square matrices",
                     err_of(batched.trtri, "U", "N", speck.View("w", "complex128", {2, 3, 2})))
    assert.are.equal("speck.batched.zgesv: batch sizes differ: A is 2x3x3, B 3x3x1",
                     err_of(batched.gesv, a3, speck.View("b", "complex128", {3, 3, 1})))
    assert.are.equal("speck.batched.lu: unknown option 'nb' (valid: check, info, ipiv, mode, pivot)",
                     err_of(batched.lu, a3, {nb = 1}))
    -- singular batch entries: the first named, or the info view returned
    for _, mode in ipairs(MODES) do
      local s3 = make("s", "complex128", {3, 3, 3}, "right", function(b, i, j)
        if b == 1 and i == 2 and j == 2 then return {0, 0} end
        return {i == j and 2 or 0, 0}
      end)
      for _, f in ipairs{function(o) return batched.lu(copy(s3, "s"), o) end,
                         function(o) return batched.lu(copy(s3, "s"), {pivot = true, mode = o.mode, check = o.check}) end,
                         function(o) return batched.gesv(copy(s3, "s"), speck.View("b", "complex128", {3, 3, 1}), o) end,
                         function(o) return batched.trtri("L", "N", copy(s3, "s"), o) end} do
        local e = err_of(f, {mode = mode})
        assert.are.equal("matrix 1 of A (view 's') is singular: pivot 2 is zero (1 of 3 matrices failed; "
                         .. "opts.check = false returns the info view instead)", (e:gsub("^speck%.batched%.z%a+: ", "")))
        local info = f({mode = mode, check = false})
        local h = host(info)
        assert.are.same({0, 3, 0}, {h(0), h(1), h(2)})
      end
    end
    -- the VM is usable
    local X = make("X", "complex128", {3, 1}, "right", function(i) return {i + 1, 0} end)
    blas.gesv(Z, X)
    assert(math.abs(host(X)(0, 0)[1] - (1 - 1 * 0.5) / (4 + 0)) < 10)
  end)
end)

describe("complex dense and batched bodies", function()
  it("compile for the GPU (NVRTC, compile only)", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then return pending("no NVRTC") end
    local function H(dt, dims) return speck.View("h", dt, dims, {space = "host"}) end
    local i64 = function(v) return {"int64", v} end
    local c = function(re, im) return {"complex128", {re, im}} end
    local t = speck.kernel_text
    local labels = {}
    local function k(label, pol, caps, name)
      speck.kernel(label, pol, caps, t(name), {target = "cuda"})
      labels[#labels + 1] = label
    end
    for _, dt in ipairs(DTYPES) do
      local A, B, C = H(dt, {4, 4}), H(dt, {4, 4}), H(dt, {4, 4})
      local info = H("int64", 1)
      for _, pt in ipairs{"int64", "int32"} do
        k("g_zlaswp_" .. pt .. dt, "range", {B = B, ipiv = H(pt, 4), rev = i64(1)}, "blas_zlaswp")
      end
      k("g_ztrmv_" .. dt, "range", {A = A, B = B, lower = i64(1), unit = i64(0), cj = i64(1),
        alpha = c(1, 0)}, "blas_ztrmv")
      k("g_ztrtri_" .. dt, "team", {A = A, info = info, unit = i64(0)}, "blas_ztrtri")
      k("g_zsyrk_" .. dt, "mdrange2", {A = A, C = C, t = i64(67), tri = i64(76), her = i64(1),
        alpha = c(1, 0), beta = c(0, 0)}, "blas_zsyrk")
      local A3, B3 = H(dt, {2, 3, 3}), H(dt, {2, 3, 3})
      local tc = {A = A3, B = B3, side = i64(82), uplo = i64(76), trans = i64(67), diag = i64(78),
                  alpha = c(1, 1), mm = i64(1), vec = i64(1)}
      k("g_zbtri_s_" .. dt, "range", tc, "batched_zbtri_s")
      k("g_zbtri_t_" .. dt, "team", tc, "batched_zbtri_t")
      local fc = {A = A3, B = B3, P = H("int64", {2, 3}), info = H("int64", 2), op = i64(3),
                  uplo = i64(85), diag = i64(78), vec = i64(1)}
      k("g_zbfac_s_" .. dt, "range", fc, "batched_zbfac_s")
      k("g_zbfac_t_" .. dt, "team", fc, "batched_zbfac_t")
    end
    for _, l in ipairs(labels) do
      local tier
      for _, s in ipairs(speck.jit.stats().per_kernel) do
        if s.label == l then tier = s.tier end
      end
      assert.are.equal("nvrtc", tier, l)
    end
  end)
end)
