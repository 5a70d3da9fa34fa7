local speck = require "speck"
-- complex_spec.lua: the complex dtypes complex64 and complex128 against
-- NumPy (tests/complex_oracle.py, run with /usr/bin/python3 on .npy files
-- written here): element access from Lua as {re, im} at every rank and
-- layout, fill / deep_copy of a scalar, View.from, printing; every
-- operator and word of a kernel body (+ - * / conj cabs cexp csqrt real
-- imag cmplx, compound assignment) element by element; sum and prod
-- reductions; atomic_add under contention; .npy round trips in both byte
-- orders; bad input (a complex value into an integer view, reducers and
-- traits complex values do not have, speck.sort's keys, graph weights).
-- tests/run.sh runs it once per back end; every view is in the default
-- space, and the bodies must be built by the cc tier on the host ("cc" in
-- speck.jit.stats) and by NVRTC on a GPU ("nvrtc").

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/complex_oracle.py"
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
local HAVE_NP = select(2, sh(PY .. " -c 'import numpy'"))
local SPACE = speck.info().default_space
local DEVICE = SPACE == "cuda"
local TIER = DEVICE and "nvrtc" or "cc"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 97
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

-- a host copy of any view (a new one: later changes of v do not show)
local function host(v)
  local m = speck.create_mirror(v)
  speck.deep_copy(m, v)
  return m
end

-- a rank-1 view of dtype dt in the default space from {{re, im}, ...}
local function from(t, dt, opts)
  return speck.View.from(t, dt, opts)
end

-- run the oracle: job, then input views (saved as .npy) or .mtx paths;
-- the result view (one oracle process for the file: tests/npy_oracle.lua)
local oracle, oracle_close
if HAVE_NP then
  oracle, oracle_close = dofile(HERE .. "/npy_oracle.lua")(PY, ORACLE, DIR, host)
  teardown(oracle_close)
end

local function close(a, b, tol, what)
  local re, im = a[1] - b[1], a[2] - b[2]
  local d = math.sqrt(re * re + im * im)
  local m = math.max(1, math.sqrt(b[1] * b[1] + b[2] * b[2]))
  if not (d <= tol * m) then
    error(string.format("%s: got %.17g%+.17gi, expected %.17g%+.17gi", what, a[1], a[2],
                        b[1], b[2]), 2)
  end
end

local function tier_of(label)
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label == label then return k.tier end
  end
end

local TOL = {complex128 = 1e-12, complex64 = 2e-5}

describe("complex views", function()
  it("are created with either name and print their dtype", function()
    for _, dt in ipairs{"complex128", "complex64"} do
      local z = speck.View("z", dt, {3, 4})
      assert.are.equal(dt, z:dtype())
      assert.truthy(tostring(z):find("View<" .. dt .. "[3][4]", 1, true))
      assert.are.equal(12, #z)
    end
  end)

  it("give {re, im} at every rank and layout, and take numbers and tables", function()
    for _, dt in ipairs{"complex128", "complex64"} do
      for rank = 0, 8 do
        for _, layout in ipairs{"right", "left"} do
          local dims = {}
          for d = 1, rank do dims[d] = (d % 3) + 1 end
          local v = speck.View("v", dt, dims, {layout = layout, space = "host"})
          local idx = {}
          for d = 1, rank do idx[d] = dims[d] - 1 end
          idx[rank + 1] = {1.5, -2.25}
          v:set(table.unpack(idx))
          local e = v(table.unpack(idx, 1, rank))
          assert.are.same({1.5, -2.25}, e)
          idx[rank + 1] = {re = -3, im = 0.5}
          v:set(table.unpack(idx))
          assert.are.same({-3, 0.5}, v(table.unpack(idx, 1, rank)))
          idx[rank + 1] = 7 -- a real number: im = 0
          v:set(table.unpack(idx))
          assert.are.same({7, 0}, v(table.unpack(idx, 1, rank)))
        end
      end
    end
  end)

  it("fill, deep_copy of a scalar, View.from and totable", function()
    for _, dt in ipairs{"complex128", "complex64"} do
      local z = speck.View("z", dt, {2, 3})
      z:fill({0.5, -0.25})
      local h = host(z)
      assert.are.same({0.5, -0.25}, h(1, 2))
      speck.deep_copy(z, 4)
      assert.are.same({{{4, 0}, {4, 0}, {4, 0}}, {{4, 0}, {4, 0}, {4, 0}}}, host(z):totable())
      speck.deep_copy(z, {re = 1, im = 2})
      assert.are.same({1, 2}, host(z)(0, 0))
      local f = from({{{1, 2}, {3, 4}}, {{5, 6}, {7, -8}}}, dt)
      assert.are.same({2, 2}, f:extents())
      assert.are.same({{{1, 2}, {3, 4}}, {{5, 6}, {7, -8}}}, host(f):totable())
      local g = from({{1, 2}, 3, {re = 4}}, dt)
      assert.are.same({{1, 2}, {3, 0}, {4, 0}}, host(g):totable())
      -- strided subviews and layouts copy element by element
      local L = speck.View("L", dt, {3, 4}, {layout = "left", space = "host"})
      for i = 0, 2 do for j = 0, 3 do L:set(i, j, {i, j}) end end
      local R = speck.View("R", dt, {3, 4}, {layout = "right"})
      speck.deep_copy(R, L)
      local s = speck.subview(R, speck.ALL, 2)
      assert.are.same({{0, 2}, {1, 2}, {2, 2}}, host(s):totable())
    end
  end)

  it("take tiled layouts: element access, bodies, deep_copy and fill", function()
    local H = speck.View("A", "complex128", {10, 12}, {layout = {tile = {4, 4}}, space = "host"})
    H:set(3, 5, {1, 2})
    assert.are.same({1, 2}, H(3, 5))
    -- the kernel runs on the default space: a tiled view there (H itself
    -- on the host back ends), copied in and out
    local A = H
    local probe = speck.View("probe", "int32", 0)
    if probe:space() ~= "host" then
      A = speck.View("A", "complex128", {10, 12}, {layout = {tile = {4, 4}}})
      speck.deep_copy(A, H)
    end
    speck.parallel_for("tiled", speck.MDRangePolicy({0, 0}, {10, 12}), {A = A},
                       "A(i, j) = cmplx(i, j) * A(i, j) + cmplx(i, -j);")
    local U = speck.View("U", "complex128", {10, 12}, {space = "host"})
    speck.deep_copy(U, A)
    assert.are.same({-4, 6}, U(3, 5))
    assert.are.same({9, -11}, U(9, 11))
    H:fill({7, 8})
    assert.are.same({7, 8}, H(9, 11))
  end)

  it("refuse complex values where they do not fit", function()
    local i = speck.View("i", "int32", 2, {space = "host"})
    assert.are.equal("View 'i': cannot store a table in int32", err_of(function() i[0] = {1, 2} end))
    local r = speck.View("r", "float64", 2, {space = "host"})
    assert.are.equal("View 'r': cannot store a table in float64", err_of(function() r[0] = {1, 2} end))
    local z = speck.View("z", "complex128", 2)
    assert.truthy(err_of(speck.deep_copy, speck.View("i", "int32", 2), z):find("dtype", 1, true))
    assert.are.equal("View 'z': cannot store 'x' in complex128 (use a number, {re, im} or {re = x, im = y})",
      err_of(function() z:fill("x") end))
    assert.are.equal("speck.parallel_reduce 'm': reducer 'max' is not defined on complex128 "
      .. "(complex reductions: sum, prod)",
      err_of(speck.parallel_reduce, "m", 2, {z = z}, "acc = z(i);", {op = "max", dtype = "complex128"}))
    assert.are.equal("speck.parallel_for 't': capture 'a': a complex64 view with the atomic trait "
      .. "is not supported (use atomic_add on its elements)",
      err_of(speck.parallel_for, "t", 2, {a = speck.View("a", "complex64", 2, {atomic = true})},
             "a(i) += 1;"))
    assert.are.equal("speck.sort: keys view 'z' is complex128; a real dtype is required "
      .. "(complex values are not supported here)", err_of(speck.sort, z))
    local graph = require "speck.graph"
    local s = speck.View.from({0, 1}, "int64")
    assert.are.equal("speck.graph.from_edges: weights (view 'from') is complex128, must be float64",
      err_of(graph.from_edges, 3, s, s, {weights = from({{1, 0}, {2, 0}}, "complex128")}))
    -- values may be complex where only keys are ordered
    local k = speck.View.from({3, 1, 2}, "int64")
    local v = from({{3, 3}, {1, 1}, {2, 2}}, "complex128")
    speck.sort_by_key(k, v)
    assert.are.same({{1, 1}, {2, 2}, {3, 3}}, host(v):totable())
    -- the VM stays usable
    z:fill(1)
    assert.are.same({1, 0}, host(z)(1))
  end)
end)

describe("complex kernel bodies", function()
  local WORDS = [[
    Y(0, i) = x(i) + w(i);
    Y(1, i) = x(i) - w(i);
    Y(2, i) = x(i) * w(i);
    Y(3, i) = x(i) / w(i);
    Y(4, i) = conj(x(i));
    Y(5, i) = cabs(x(i));
    Y(6, i) = cexp(x(i));
    Y(7, i) = csqrt(x(i));
    Y(8, i) = real(x(i));
    Y(9, i) = imag(x(i));
    Y(10, i) = cmplx(imag(x(i)), real(x(i)));
    Y(11, i) = -x(i);
    Y(12, i) = 2.5 * x(i) + 1;
    { T t = x(i); t *= w(i); t /= (w(i) + x(i)); t -= conj(w(i)); Y(13, i) = t; }
  ]]

  for _, dt in ipairs{"complex128", "complex64"} do
    it("every operator and word agrees with NumPy (" .. dt .. ")", function()
      if not HAVE_NP then return pending("no NumPy at " .. PY) end
      local n = 64
      local xt, wt = {}, {}
      for k = 1, n do
        xt[k] = {(rnd() - 0.5) * 6, (rnd() - 0.5) * 6}
        wt[k] = {(rnd() - 0.5) * 4, (rnd() - 0.5) * 4}
      end
      xt[1] = {-4, 0} -- csqrt on the negative real axis
      xt[2] = {-4, -0.0}
      xt[3] = {0, 0}
      local x, w = from(xt, dt), from(wt, dt)
      local Y = speck.View("Y", dt, {14, n})
      local label = "words_" .. dt
      speck.parallel_for(label, n, {x = x, w = w, Y = Y},
                         (WORDS:gsub("T t", dt .. "_t t")))
      assert.are.equal(TIER, tier_of(label))
      local want = oracle("words", x, w)
      local got = host(Y)
      local names = {"+", "-", "*", "/", "conj", "cabs", "cexp", "csqrt", "real", "imag",
                     "cmplx", "unary -", "2.5 * x + 1", "compound"}
      for r = 0, 13 do
        for k = 0, n - 1 do
          close(got(r, k), want(r, k), TOL[dt] * (r == 13 and 100 or 1),
                names[r + 1] .. " at " .. k .. " of " .. dt)
        end
      end
    end)

    it("captures a complex scalar and mixes real and complex operands (" .. dt .. ")", function()
      local x = from({{1, 2}, {3, -1}}, dt)
      local y = speck.View("y", dt, 2)
      speck.parallel_for("scalar_" .. dt, 2, {x = x, y = y, a = {dt, {0, 1}}, b = 2.0, c = 3},
                         "y(i) = a * x(i) * b + c - x(i) / c;")
      local h = host(y)
      -- i*(1+2i)*2 + 3 - (1+2i)/3 = -4+2i + 3 - 1/3 - 2i/3
      close(h(0), {-4 + 3 - 1 / 3, 2 - 2 / 3}, TOL[dt], "scalar 0")
      close(h(1), {2 + 3 - 1, 6 + 1 / 3}, TOL[dt], "scalar 1")
    end)

    it("sum and prod reductions agree with NumPy (" .. dt .. ")", function()
      if not HAVE_NP then return pending("no NumPy at " .. PY) end
      local n = 1000
      local t = {}
      for k = 1, n do
        local th, r = rnd() * 2 * math.pi, 1 + (rnd() - 0.5) * 0.01
        t[k] = {r * math.cos(th), r * math.sin(th)}
      end
      local x = from(t, dt)
      local s = speck.parallel_reduce("csum_" .. dt, n, {x = x}, "acc += x(i);",
                                      {op = "sum", dtype = dt})
      local p = speck.parallel_reduce("cprod_" .. dt, n, {x = x}, "acc *= x(i);",
                                      {op = "prod", dtype = dt})
      assert.are.equal(TIER, tier_of("csum_" .. dt))
      local want = oracle("reduce", x)
      close(s, want(0), TOL[dt] * 100, "sum")
      close(p, want(1), TOL[dt] * 1000, "prod")
      -- several reducers at once, complex beside real
      local s2, c = speck.parallel_reduce("cmix_" .. dt, n, {x = x}, "acc0 += x(i); acc1 += 1;",
                                          {{op = "sum", dtype = dt}, "sum"})
      close(s2, want(0), TOL[dt] * 100, "sum beside a real reducer")
      assert.are.equal(n, c)
    end)

    it("atomic_add sums both parts under contention (" .. dt .. ")", function()
      local h = speck.View("h", dt, 4)
      local n = 200000
      speck.parallel_for("cat_" .. dt, n, {h = h},
                         "atomic_add(&h(i % 4), cmplx(1, -0.5) * (double)(i % 3));")
      local r = host(h)
      for b = 0, 3 do
        local want = 0
        for i = b, n - 1, 4 do want = want + i % 3 end
        assert.are.same({want, -want / 2}, r(b))
      end
    end)
  end

  it("runs MDRange and team bodies over rank-2 complex views of both layouts", function()
    for _, layout in ipairs{"right", "left"} do
      local A = speck.View("A", "complex128", {5, 7}, {layout = layout})
      speck.parallel_for("md_" .. layout, speck.MDRangePolicy({0, 0}, {5, 7}), {A = A},
                         "A(i, j) = cmplx(i, j) * cmplx(0, 1);")
      local s = speck.parallel_reduce("team_" .. layout, speck.TeamPolicy(5, 1),
                                      {A = A}, [[
        complex128_t r = 0;
        TEAM_REDUCE(sum, j, 0, 7, r) { r += A(team.league_rank, j); }
        SINGLE_TEAM(team) { acc += r; }
      ]], {op = "sum", dtype = "complex128"})
      local h = host(A)
      assert.are.same({-6, 4}, h(4, 6))
      -- sum of i*(i + j i) = sum(-j) + i sum(i): -5*21, 7*10
      assert.are.same({-105, 70}, s)
    end
  end)

  it("compiles its bodies for the GPU (NVRTC, compile only)", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then return pending("no NVRTC") end
    for _, dt in ipairs{"complex128", "complex64"} do
      local x, w = speck.View("x", dt, 2, {space = "host"}), speck.View("w", dt, 2, {space = "host"})
      local Y = speck.View("Y", dt, {14, 2}, {space = "host"})
      speck.kernel("gpu_words_" .. dt, "range", {x = x, w = w, Y = Y},
                   (WORDS:gsub("T t", dt .. "_t t")), {target = "cuda"})
      speck.kernel("gpu_sum_" .. dt, "range", {x = x}, "acc += x(i) * 2.0;",
                   {target = "cuda", pattern = "reduce", reducer = {op = "sum", dtype = dt}})
      speck.kernel("gpu_prod_" .. dt, "range", {x = x}, "acc *= x(i);",
                   {target = "cuda", pattern = "reduce", reducer = {op = "prod", dtype = dt}})
      speck.kernel("gpu_atomic_" .. dt, "range", {x = x, a = {dt, {1, 2}}},
                   "atomic_add(&x(0), a); atomic_add(&x(1), 1.0);", {target = "cuda"})
      local A = speck.View("A", dt, {3, 4}, {space = "host", layout = "left"})
      speck.kernel("gpu_team_" .. dt, "team", {A = A}, [[
        complex128_t r = 0;
        TEAM_REDUCE(sum, j, 0, A.extent[1], r) { r += A(team.league_rank, j); }
        SINGLE_TEAM(team) { acc += r; }
      ]], {target = "cuda", pattern = "reduce", reducer = {op = "sum", dtype = "complex128"}})
      speck.kernel("gpu_md_" .. dt, "mdrange2", {A = A},
                   "A(i, j) = cmplx(i, j) * conj(A(i, j)) / (A(i, j) + 1);", {target = "cuda"})
      assert.are.equal("nvrtc", tier_of("gpu_team_" .. dt))
      assert.are.equal("nvrtc", tier_of("gpu_words_" .. dt))
      assert.are.equal("nvrtc", tier_of("gpu_sum_" .. dt))
    end
  end)
end)

describe("complex .npy files", function()
  it("round-trip both dtypes and layouts, and read big-endian files", function()
    if not HAVE_NP then return pending("no NumPy at " .. PY) end
    for _, dt in ipairs{"complex128", "complex64"} do
      for _, layout in ipairs{"right", "left"} do
        local A = speck.View("A", dt, {3, 2}, {layout = layout, space = "host"})
        for i = 0, 2 do for j = 0, 1 do A:set(i, j, {i + 0.5, -j - 0.25}) end end
        local p = DIR .. "/rt_" .. dt .. layout .. ".npy"
        speck.io.save_npy(p, A)
        local B = speck.io.load_npy(p)
        assert.are.equal(dt, B:dtype())
        assert.are.same(A:totable(), host(B):totable())
        -- NumPy writes it big-endian; speck reads it
        local be = oracle("save_be", A)
        assert.are.equal(dt, be:dtype())
        assert.are.same(A:totable(), be:totable())
      end
    end
  end)
end)

describe("complex speck.blas", function()
  local blas = require "speck.blas"
  local function rvec(n, dt)
    local t = {}
    for k = 1, n do t[k] = {(rnd() - 0.5) * 4, (rnd() - 0.5) * 4} end
    return from(t, dt)
  end
  local function rmat(m, n, dt, layout)
    local t = {}
    for i = 1, m do
      t[i] = {}
      for j = 1, n do t[i][j] = {(rnd() - 0.5) * 4, (rnd() - 0.5) * 4} end
    end
    return from(t, dt, {layout = layout})
  end

  for _, dt in ipairs{"complex128", "complex64"} do
    it("dot, dotc, nrm2, axpy and scal agree with NumPy (" .. dt .. ")", function()
      if not HAVE_NP then return pending("no NumPy at " .. PY) end
      local n = 37
      local x, y = rvec(n, dt), rvec(n, dt)
      local a = {0.75, -1.5}
      local want = oracle("blas1", x, y, from({a}, "complex128"))
      close(blas.dot(x, y), want(0), TOL[dt] * 10, "dot")
      close(blas.dotc(x, y), want(1), TOL[dt] * 10, "dotc")
      close({blas.nrm2(x), 0}, want(2), TOL[dt] * 10, "nrm2")
      local y2 = speck.View("y2", dt, n)
      speck.deep_copy(y2, y)
      blas.axpy(a, x, y2)
      local h = host(y2)
      for k = 0, n - 1 do close(h(k), want(3 + k), TOL[dt] * 10, "axpy " .. k) end
      blas.scal(a, x)
      h = host(x)
      for k = 0, n - 1 do close(h(k), want(3 + n + k), TOL[dt] * 10, "scal " .. k) end
      -- a = 0 zeroes x, NaN included
      x:fill({0 / 0, 1})
      blas.scal(0, x)
      assert.are.same({0, 0}, host(x)(3))
    end)

    it("gemv and gemm with N, T and C agree with NumPy (" .. dt .. ")", function()
      if not HAVE_NP then return pending("no NumPy at " .. PY) end
      for _, layout in ipairs{"right", "left"} do
        local m, n, k = 7, 5, 6
        local A, x = rmat(m, n, dt, layout), rvec(n, dt)
        local xt = rvec(m, dt)
        local want = oracle("gemv", A, x)
        local wantT = oracle("gemv", A, xt)
        local y = speck.View("y", dt, m)
        blas.gemv("N", 1, A, x, 0, y)
        local h = host(y)
        for i = 0, m - 1 do close(h(i), want(0, i), TOL[dt] * 10, "gemv N") end
        local yt = speck.View("yt", dt, n)
        for r, tr in ipairs{"T", "C"} do
          blas.gemv(tr, {1, 0}, A, xt, {0, 0}, yt)
          h = host(yt)
          for i = 0, n - 1 do close(h(i), wantT(r - 1, i), TOL[dt] * 10, "gemv " .. tr) end
        end
        -- alpha, beta complex: y = alpha A x + beta y
        speck.deep_copy(y, {1, 1})
        blas.gemv("N", {0, 2}, A, x, {0.5, 0}, y)
        h = host(y)
        for i = 0, m - 1 do
          local w = want(0, i)
          close(h(i), {-2 * w[2] + 0.5, 2 * w[1] + 0.5}, TOL[dt] * 10, "gemv alpha beta")
        end
        local G, B = rmat(k, m, dt, layout), rmat(k, n, dt, layout)
        local wg = oracle("gemm", G, B) -- G^T B, G^H B
        local C = speck.View("C", dt, {m, n}, {layout = layout})
        -- the native kernel and the vendor's (OpenBLAS zgemm/cgemm on the
        -- host when present; the native kernel otherwise)
        for _, im in ipairs{"native", "vendor", "auto"} do
          for r, tr in ipairs{"T", "C"} do
            C:fill({0 / 0, 0})
            blas.gemm(tr, "N", 1, G, B, 0, C, {impl = im})
            local hc = host(C)
            for i = 0, m - 1 do
              for j = 0, n - 1 do
                close(hc(i, j), wg(r - 1, i, j), TOL[dt] * 10, "gemm " .. tr .. "N " .. im)
              end
            end
          end
        end
        -- C = P Q^H: "C" on the right, beta = 0 overwrites NaN
        local P, Q = rmat(m, k, dt, layout), rmat(n, k, dt, layout)
        local wp = oracle("gemm_nc", P, Q)
        for _, im in ipairs{"native", "vendor"} do
          C:fill({0 / 0, 0})
          blas.gemm("N", "C", 1, P, Q, 0, C, {impl = im})
          local hc = host(C)
          for i = 0, m - 1 do
            for j = 0, n - 1 do close(hc(i, j), wp(0, i, j), TOL[dt] * 10, "gemm NC " .. im) end
          end
        end
        -- complex alpha and beta through the vendor: C = i P Q^H + 2 C
        local C0 = host(C)
        blas.gemm("N", "C", {0, 1}, P, Q, 2, C, {impl = "vendor"})
        local hc = host(C)
        for i = 0, m - 1 do
          for j = 0, n - 1 do
            local w, o = wp(0, i, j), C0(i, j)
            close(hc(i, j), {-w[2] + 2 * o[1], w[1] + 2 * o[2]}, TOL[dt] * 10, "gemm alpha beta")
          end
        end
      end
    end)
  end

  it("refuses what the complex BLAS does not take", function()
    local z = speck.View("z", "complex128", 3)
    local f = speck.View("f", "complex64", 3)
    assert.are.equal("speck.blas.asum: x view 'z' is complex128; a real dtype is required "
      .. "(complex values are not supported here)", err_of(blas.asum, z))
    assert.are.equal("speck.blas.zdot: y (view 'f') is complex64, the other views complex128",
      err_of(blas.dot, z, f))
    assert.are.equal("speck.blas.zdot: y (view 'r') is float64; the complex BLAS takes "
      .. "complex128 or complex64 views (plain, not tiled)",
      err_of(blas.dot, z, speck.View("r", "float64", 3)))
    local A = speck.View("A", "complex128", {3, 3})
    assert.are.equal("speck.blas.zgemv: trans must be \"N\", \"T\" or \"C\", got \"X\"",
      err_of(blas.gemv, "X", 1, A, z, 0, z))
    assert.are.equal("speck.blas.zgemm: C (view 'A') shares its memory with A (view 'A')",
      err_of(blas.gemm, "N", "N", 1, A, A, 0, A))
    assert.are.equal("speck.blas.zgemm: op(A) is 3 x 3 and op(B) 3 x 3, C (view 'C') is 2 x 3",
      err_of(blas.gemm, "N", "N", 1, A, A, 0, speck.View("C", "complex128", {2, 3})))
    assert.truthy(err_of(blas.gemm, "N", "N", 1, speck.View("R", "float64", {3, 3}), A, 0, A)
      :find("is float64; the complex BLAS takes", 1, true))
  end)
end)

describe("complex speck.sparse", function()
  local sparse = require "speck.sparse"
  local function write(name, text)
    local p = DIR .. "/" .. name
    local f = assert(io.open(p, "w"))
    f:write(text)
    f:close()
    return p
  end
  -- a random n x n complex matrix in Matrix Market, general or hermitian
  local function random_mm(name, n, hermitian)
    local lines = {}
    for i = 1, n do
      for j = 1, (hermitian and i or n) do
        if i == j or rnd() < 0.3 then
          local re, im = (rnd() - 0.5) * 4, (rnd() - 0.5) * 4
          if hermitian and i == j then im = 0 end
          lines[#lines + 1] = ("%d %d %.17g %.17g"):format(i, j, re, im)
        end
      end
    end
    return write(name, ("%%%%MatrixMarket matrix coordinate complex %s\n%d %d %d\n%s\n"):format(
      hermitian and "hermitian" or "general", n, n, #lines, table.concat(lines, "\n")))
  end
  local function dense_of(A) return host(A:to_dense()) end

  it("reads complex and hermitian Matrix Market files as SciPy does", function()
    if not HAVE_NP then return pending("no NumPy at " .. PY) end
    for _, herm in ipairs{false, true} do
      local p = random_mm(herm and "h.mtx" or "g.mtx", 9, herm)
      local A = sparse.read_mm(p)
      assert.are.equal("complex128", A:dtype())
      local D = dense_of(A)
      local W = oracle("mmread", p)
      for i = 0, 8 do
        for j = 0, 8 do close(D(i, j), W(i, j), 1e-15, "entry " .. i .. "," .. j) end
      end
      assert.are.equal("complex64", sparse.read_mm(p, {dtype = "complex64"}):dtype())
    end
  end)

  it("writes and reads back complex files, general and hermitian", function()
    local p = random_mm("rt.mtx", 7, true)
    local A = sparse.read_mm(p)
    for _, sym in ipairs{"general", "hermitian"} do
      local q = DIR .. "/rt_" .. sym .. ".mtx"
      sparse.write_mm(q, A, {symmetry = sym})
      local first = io.open(q):read("l")
      assert.are.equal("%%MatrixMarket matrix coordinate complex " .. sym, first)
      assert.are.same(dense_of(A):totable(), dense_of(sparse.read_mm(q)):totable())
    end
    -- complex64 values round-trip at their precision
    local F = sparse.read_mm(p, {dtype = "complex64"})
    sparse.write_mm(DIR .. "/f.mtx", F)
    assert.are.same(dense_of(F):totable(), dense_of(sparse.read_mm(DIR .. "/f.mtx", {dtype = "complex64"})):totable())
  end)

  it("refuses complex files and values where they do not fit", function()
    local p = write("c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n")
    assert.are.equal("speck.sparse.read_mm: '" .. p .. "' line 1: the file's field is complex and "
      .. "dtype 'float64' is real (use complex128 or complex64)",
      err_of(sparse.read_mm, p, {dtype = "float64"}))
    local A = sparse.read_mm(p)
    assert.are.equal("speck.sparse.write_mm: A's values are complex128: the field must be "
      .. "\"complex\" (the default for complex values), got \"real\"",
      err_of(sparse.write_mm, DIR .. "/x.mtx", A, {field = "real"}))
    local H = sparse.read_mm(write("nh.mtx", "%%MatrixMarket matrix coordinate complex general\n"
      .. "2 2 2\n1 2 1 1\n2 1 1 1\n"))
    assert.are.equal("speck.sparse.write_mm: not hermitian: A(0, 1) = 1+1i but A(1, 0) = 1+1i",
      err_of(sparse.write_mm, DIR .. "/x.mtx", H, {symmetry = "hermitian"}))
    assert.are.equal("speck.sparse.write_mm: complex values are written in the coordinate format only",
      err_of(sparse.write_mm, DIR .. "/x.mtx", H, {format = "array"}))
    -- operations without a complex path name the dtype
    local x = speck.View("x", "complex128", 2)
    assert.are.equal("speck.sparse.cholesky: A must have float64 values", err_of(sparse.cholesky, H))
    assert.are.equal("speck.sparse.spmv: x (view 'r') is float64; a complex matrix's SpMV "
      .. "takes x and y of its dtype complex128",
      err_of(sparse.spmv, "N", 1, H, speck.View("r", "float64", 2), 0, x))
  end)

  it("multiplies complex matrices (SpGEMM, every algorithm)", function()
    local A = sparse.read_mm(random_mm("mul_a.mtx", 12, false))
    local B = sparse.read_mm(random_mm("mul_b.mtx", 12, true))
    local DA, DB = dense_of(A), dense_of(B)
    for _, alg in ipairs{"auto", "hash", "merge"} do
      local C = sparse.spgemm(A, B, {algorithm = alg})
      assert.are.equal("complex128", C:dtype())
      local DC = dense_of(C)
      for i = 0, 11 do
        for j = 0, 11 do
          local re, im = 0, 0
          for k = 0, 11 do
            local a, b = DA(i, k), DB(k, j)
            re, im = re + a[1] * b[1] - a[2] * b[2], im + a[1] * b[2] + a[2] * b[1]
          end
          close(DC(i, j), {re, im}, 1e-13, alg .. " " .. i .. "," .. j)
        end
      end
    end
  end)

  it("adds complex matrices (SpAdd, real alpha and beta)", function()
    local A = sparse.read_mm(random_mm("add_a.mtx", 8, false))
    local B = sparse.read_mm(random_mm("add_b.mtx", 8, true))
    local C = sparse.spadd(2, A, -0.5, B)
    assert.are.equal("complex128", C:dtype())
    local DA, DB, DC = dense_of(A), dense_of(B), dense_of(C)
    for i = 0, 7 do
      for j = 0, 7 do
        local a, b = DA(i, j), DB(i, j)
        close(DC(i, j), {2 * a[1] - 0.5 * b[1], 2 * a[2] - 0.5 * b[2]}, 1e-15, "spadd " .. i .. "," .. j)
      end
    end
  end)

  for _, dt in ipairs{"complex128", "complex64"} do
    it("SpMV in modes N, C, T and H agrees with SciPy (" .. dt .. ")", function()
      if not HAVE_NP then return pending("no NumPy at " .. PY) end
      local n = 40
      local p = random_mm("spmv_" .. dt .. ".mtx", n, false)
      local A = sparse.read_mm(p, {dtype = dt})
      local xt = {}
      for k = 1, n do xt[k] = {(rnd() - 0.5) * 2, (rnd() - 0.5) * 2} end
      local x = from(xt, dt)
      local W = oracle("spmv", p, speck.View.from(xt, "complex128"))
      local y = speck.View("y", dt, n)
      for r, mode in ipairs{"N", "C", "T", "H"} do
        y:fill({1, -1})
        sparse.spmv(mode, 1, A, x, 0, y)
        local h = host(y)
        for i = 0, n - 1 do close(h(i), W(r - 1, i), TOL[dt] * 10, mode .. " row " .. i) end
        -- complex alpha and beta: y = (0.5 + 2i) op(A) x + (1 - i) y
        sparse.spmv(mode, {0.5, 2}, A, x, {1, -1}, y)
        local h2 = host(y)
        for i = 0, n - 1 do
          local w, o = W(r - 1, i), h(i)
          close(h2(i), {0.5 * w[1] - 2 * w[2] + o[1] + o[2], 0.5 * w[2] + 2 * w[1] + o[2] - o[1]},
                TOL[dt] * 10, mode .. " alpha beta row " .. i)
        end
      end
    end)
  end
end)

describe("complex CG", function()
  local sparse = require "speck.sparse"
  for _, dt in ipairs{"complex128", "complex64"} do
    it("solves a Hermitian positive definite system as NumPy does (" .. dt .. ")", function()
      if not HAVE_NP then return pending("no NumPy at " .. PY) end
      -- diagonally dominant Hermitian: random off-diagonal entries, a real
      -- diagonal larger than the row's sum of magnitudes
      local n, lines, rowsum = 60, {}, {}
      for i = 1, n do rowsum[i] = 0 end
      for i = 2, n do
        for j = 1, i - 1 do
          if rnd() < 0.1 then
            local re, im = (rnd() - 0.5) * 2, (rnd() - 0.5) * 2
            lines[#lines + 1] = ("%d %d %.17g %.17g"):format(i, j, re, im)
            local m = math.sqrt(re * re + im * im)
            rowsum[i], rowsum[j] = rowsum[i] + m, rowsum[j] + m
          end
        end
      end
      for i = 1, n do lines[#lines + 1] = ("%d %d %.17g 0"):format(i, i, rowsum[i] + 1) end
      local p = DIR .. "/hpd.mtx"
      local f = assert(io.open(p, "w"))
      f:write(("%%%%MatrixMarket matrix coordinate complex hermitian\n%d %d %d\n%s\n"):format(
        n, n, #lines, table.concat(lines, "\n")))
      f:close()
      local A = sparse.read_mm(p, {dtype = dt})
      local bt = {}
      for k = 1, n do bt[k] = {(rnd() - 0.5) * 2, (rnd() - 0.5) * 2} end
      local b = from(bt, dt)
      local x, iters, resid, reason = sparse.cg(A, b, {tol = dt == "complex128" and 1e-12 or 1e-5})
      assert.are.equal("converged", reason)
      assert.is_true(iters > 0 and iters <= n)
      assert.is_true(resid >= 0)
      assert.are.equal(dt, x:dtype())
      local W = oracle("solve", p, speck.View.from(bt, "complex128"))
      local h = host(x)
      for i = 0, n - 1 do close(h(i), W(0, i), dt == "complex128" and 1e-10 or 1e-4, "x " .. i) end
      -- x0 = the solution: no iteration
      local _, it0, _, why0 = sparse.cg(A, b, {x0 = x, tol = dt == "complex128" and 1e-8 or 1e-3})
      assert.are.equal(0, it0)
      assert.are.equal("converged", why0)
    end)
  end

  it("names what is wrong", function()
    local p = DIR .. "/small.mtx"
    local f = assert(io.open(p, "w"))
    f:write("%%MatrixMarket matrix coordinate complex general\n2 3 1\n1 1 1 0\n")
    f:close()
    local R = sparse.read_mm(p)
    assert.are.equal("speck.sparse.cg: A is 2x3; CG needs a square (symmetric positive definite) matrix",
      err_of(sparse.cg, R, speck.View("b", "complex128", 2)))
    f = assert(io.open(p, "w"))
    f:write("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n")
    f:close()
    local S = sparse.read_mm(p)
    assert.are.equal("speck.sparse.cg: b (view 'b') is float64; a complex matrix's SpMV takes "
      .. "x and y of its dtype complex128", err_of(sparse.cg, S, speck.View("b", "float64", 2)))
  end)
end)

describe("complex library kernels", function()
  it("run where the back end runs them (device kernels on a GPU)", function()
    local blas, sparse = require "speck.blas", require "speck.sparse"
    local x = from({{1, 2}, {3, 4}}, "complex128")
    local y = from({{1, -1}, {2, 0}}, "complex128")
    close(blas.dotc(x, y), {5, -11}, 1e-15, "dotc")
    local A = sparse.from_coo(2, 2, speck.View.from({0, 1}, "int64"), speck.View.from({1, 0}, "int64"),
                              from({{0, 1}, {2, 0}}, "complex128"))
    sparse.spmv("H", 1, A, x, 0, y)
    close(host(y)(0), {6, 8}, 1e-15, "spmv H")
    for _, label in ipairs{"blas.zdot", "sparse.zspmv_t", "sparse.zscale"} do
      local t = tier_of(label)
      if DEVICE then
        assert.are.equal("nvrtc", t, label)
      else
        assert.truthy(t == "precompiled" or t == "cc", label .. ": " .. tostring(t))
      end
    end
  end)
end)
