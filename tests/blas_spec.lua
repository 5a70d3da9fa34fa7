local speck = require "speck"
local blas = require "speck.blas"
-- blas_spec.lua: speck.blas level 1 (dot nrm2 asum iamax scal axpy axpby),
-- the precompiled library kernels (kernels/blas/blas1.c) behind it, on the
-- space chosen by SPECK_SPACE (tests/run.sh runs it once per back end; on
-- cuda with SPECK_CUDA_UVM=1, so default views are readable from Lua).
--
-- Every result is checked against the same computation in plain Lua. Most
-- data are multiples of 1/64 of at most 500/64 in magnitude: every product,
-- partial sum and update of them is exact in float64 (and the updates in
-- float32), so the library's results must equal the reference bit for bit
-- whatever its summation order, thread count or FMA use. Other data
-- (rounding, 1e200, 1e-200) are compared to a few ulps, or to the error
-- bound of a sum where many rounded terms are added.
--
-- Covered: float64 and float32, layout right and left, a strided column of
-- a rank-2 view (compiled by the JIT: the precompiled variants are
-- contiguous), empty views, n = 1, odd sizes, n = 1e6; the BLAS rules for
-- a = 0 / b = 0 and NaN; nrm2 near overflow and underflow; iamax's
-- 0-based, first-of-equal-magnitude index; mixed dtypes, int views, the
-- same view passed twice; speck.jit.stats() of library launches; errors
-- with their exact messages, each followed by a check that the VM works.

-- busted runs a spec in an environment whose global lookups are slow (a
-- chain of __index functions): the loops over 1e6 elements use locals
local math, string, table, ipairs, pcall, tostring =
      math, string, table, ipairs, pcall, tostring

local SPACE = speck.info().default_space
local ON_HOST = SPACE ~= "cuda"

-- Known library bugs: the spec that shows one is 'pending' with this
-- reason until the entry is removed (after the fix).
local KNOWN_BUGS = {}
local function known_bug(key)
  if KNOWN_BUGS[key] then
    pending("known bug: " .. KNOWN_BUGS[key])
    return true
  end
  return false
end

local FLOATS = {"float64", "float32"}
local SIZES = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 127,
               129, 1000, 1001, 4099}

local function f32(v) return (string.unpack("f", string.pack("f", v))) end

-- the value a view of 'dt' holds after storing the double v (C conversion:
-- float32 rounds to nearest, integers truncate toward zero)
local function stored(dt, v)
  if dt == "float64" then return v end
  if dt == "float32" then return f32(v) end
  return math.tointeger(v >= 0 and math.floor(v) or math.ceil(v))
end

-- distance in ulps between two finite doubles of the same sign
local function ulps(a, b)
  local ia = string.unpack("<i8", string.pack("<d", a))
  local ib = string.unpack("<i8", string.pack("<d", b))
  return math.abs(ia - ib)
end

local function assert_ulps(want, got, max, what)
  assert.is_true(got == got, (what or "") .. ": got NaN")
  assert.is_true(ulps(want, got) <= max,
    ("%s: got %.17g, want %.17g (%d ulps apart, at most %d)"):format(
      what or "value", got, want, ulps(want, got), max))
end

-- got[i] == want(i) for i in [0, n), asserting (slow in luassert) only the
-- first difference
local function check_each(n, want, got, what)
  for i = 0, n - 1 do
    local w = want(i)
    if w ~= got[i] then
      assert.are.equal(w, got[i], what .. " at " .. i)
    end
  end
end

-- -- views ------------------------------------------------------------------
-- A rank-1 view of n elements: kind "right" / "left" (a rank-1 view in that
-- layout) or "strided" (column 1 of an n x 3 rank-2 view, stride 3).
local function vec(label, dt, n, kind)
  if kind == "strided" then
    local M = speck.View(label .. "_M", dt, {n, 3}, {layout = "right"})
    return speck.subview(M, speck.ALL, 1)
  end
  return speck.View(label, dt, n, {layout = kind or "right"})
end

-- fill v with exact data: ((i*7919 + s) mod 1001 - 500) / 64 (integers
-- for integer views), by a kernel so that large views fill fast
local function fill(v, s)
  local dt = v:dtype()
  local body = (dt == "float64" or dt == "float32")
    and "v(i) = (double)((i * 7919 + s) % 1001 - 500) / 64.0;"
    or "v(i) = (i * 7919 + s) % 1001 - 500;"
  speck.parallel_for("blas_spec_fill", v:extent(0), {v = v, s = s}, body)
  speck.fence()
  return v
end

-- the view's elements, a 0-based Lua array (on a GPU through a host copy:
-- element reads of managed memory migrate pages one at a time)
local function read(v)
  speck.fence()
  if not ON_HOST and v:extent(0) > 1000 then
    local m = speck.create_mirror(v)
    speck.deep_copy(m, v)
    v = m
  end
  return table.move(v:totable(), 1, v:extent(0), 0, {})
end

local function from(values, dt, opts)
  local v = speck.View("v", dt, #values, opts)
  for i = 1, #values do v:set(i - 1, values[i]) end
  return v
end

-- -- the Lua reference ----------------------------------------------------------
local ref = {}
function ref.dot(x, y, n)
  local s = 0.0
  for i = 0, n - 1 do s = s + x[i] * y[i] end
  return s
end
function ref.asum(x, n)
  local s = 0.0
  for i = 0, n - 1 do s = s + math.abs(x[i]) end
  return s
end
function ref.nrm2(x, n) return math.sqrt(ref.dot(x, x, n)) end
function ref.iamax(x, n)
  local best, at = -1.0, -1
  for i = 0, n - 1 do
    if math.abs(x[i]) > best then best, at = math.abs(x[i]), i end
  end
  return at
end

-- the exact-data check of all seven functions on views of 'dt' and 'kind'
local A, B = 1.25, -0.75   -- exact in binary: updates stay exact
local function check_all(dt, n, kind)
  local what = ("%s %s n=%d"):format(dt, kind, n)
  local x, y = fill(vec("x", dt, n, kind), 3), fill(vec("y", dt, n, kind), 11)
  local xs, ys = read(x), read(y)
  assert.are.equal(ref.dot(xs, ys, n), blas.dot(x, y), what .. " dot")
  assert.are.equal(ref.nrm2(xs, n), blas.nrm2(x), what .. " nrm2")
  assert.are.equal(ref.asum(xs, n), blas.asum(x), what .. " asum")
  assert.are.equal(ref.iamax(xs, n), blas.iamax(x), what .. " iamax")
  -- updates: y = A*x + y, then y = A*x + B*y, then x = B*x
  blas.axpy(A, x, y)
  -- (every updated value is exact in float32 too: no rounding to model)
  local got = read(y)
  for i = 0, n - 1 do ys[i] = A * xs[i] + ys[i] end
  check_each(n, function(i) return ys[i] end, got, what .. " axpy")
  blas.axpby(A, x, B, y)
  check_each(n, function(i) return A * xs[i] + B * ys[i] end, read(y),
             what .. " axpby")
  blas.scal(B, x)
  check_each(n, function(i) return B * xs[i] end, read(x), what .. " scal")
end

-- launches of the kernels labelled 'label' at tier 'tier' (or any other
-- tier when 'other' is set), summed over their cache entries
local function launches(label, tier, other)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label and ((k.tier == tier) ~= (other or false)) then
      s = s + k.launches
    end
  end
  return s
end

describe("speck.blas level 1 on " .. SPACE, function()

  -- -- every function, every dtype, layout and size ------------------------------
  describe("exact results", function()
    for _, dt in ipairs(FLOATS) do
      for _, kind in ipairs({"right", "left", "strided"}) do
        it(("%s, %s views, sizes 0 .. 4099"):format(dt, kind), function()
          for _, n in ipairs(SIZES) do check_all(dt, n, kind) end
        end)
      end
    end

    it("a strided column leaves its neighbours in the rank-2 view alone", function()
      local M = speck.View("M", "float64", {17, 3}, {layout = "right"})
      speck.deep_copy(M, 7.0)
      local x = speck.View("x", "float64", 17)
      fill(x, 5)
      local col = speck.subview(M, speck.ALL, 1)
      blas.axpy(2.0, x, col)
      blas.scal(0.5, col)
      speck.fence()
      for i = 0, 16 do
        assert.are.equal(7.0, M(i, 0))
        assert.are.equal(7.0, M(i, 2))
        assert.are.equal((2.0 * x(i) + 7.0) * 0.5, M(i, 1))
      end
    end)

    it("n = 1e6, float64 right and float32 left", function()
      check_all("float64", 1000000, "right")
      check_all("float32", 1000000, "left")
    end)

    it("an empty view: dot, nrm2, asum are 0, iamax is -1, updates do nothing", function()
      for _, dt in ipairs(FLOATS) do
        local x, y = speck.View("x", dt, 0), speck.View("y", dt, 0)
        assert.are.equal(0, blas.dot(x, y))
        assert.are.equal(0, blas.nrm2(x))
        assert.are.equal(0, blas.asum(x))
        assert.are.equal(-1, blas.iamax(x))
        assert.is_true(math.type(blas.iamax(x)) == "integer")
        blas.scal(2.0, x)
        blas.axpy(2.0, x, y)
        blas.axpby(2.0, x, 3.0, y)
        assert.are.equal(0, y:size())
      end
    end)

    it("n = 1", function()
      for _, dt in ipairs(FLOATS) do
        local x, y = from({-3.5}, dt), from({2.0}, dt)
        assert.are.equal(-7.0, blas.dot(x, y))
        assert.are.equal(3.5, blas.nrm2(x))
        assert.are.equal(3.5, blas.asum(x))
        assert.are.equal(0, blas.iamax(x))
        blas.axpy(2.0, x, y)
        speck.fence()
        assert.are.equal(-5.0, y(0))
        blas.axpby(1.0, x, -1.0, y)
        speck.fence()
        assert.are.equal(1.5, y(0))
        blas.scal(-2.0, x)
        speck.fence()
        assert.are.equal(7.0, x(0))
      end
    end)

    it("results that round: to the reference's precision", function()
      -- magnitudes spread over 8 decades and both signs
      local n = 10007
      for _, dt in ipairs(FLOATS) do
        local x, y = speck.View("x", dt, n), speck.View("y", dt, n)
        for i = 0, n - 1 do
          x:set(i, math.sin(i) * 10.0 ^ (i % 9 - 4))
          y:set(i, math.cos(3 * i) * 10.0 ^ (i % 7 - 3))
        end
        local xs, ys = read(x), read(y)
        local absdot, ss = 0.0, 0.0
        for i = 0, n - 1 do
          absdot = absdot + math.abs(xs[i] * ys[i])
          ss = ss + xs[i] * xs[i]
        end
        local d = blas.dot(x, y)
        assert.is_true(math.abs(d - ref.dot(xs, ys, n)) <= 1e-13 * absdot,
                       dt .. " dot " .. d)
        local a = blas.asum(x)
        assert.is_true(math.abs(a - ref.asum(xs, n)) <= 1e-13 * a, dt .. " asum")
        assert.is_true(math.abs(blas.nrm2(x) - math.sqrt(ss)) <= 1e-13 * math.sqrt(ss),
                       dt .. " nrm2")
        assert.are.equal(ref.iamax(xs, n), blas.iamax(x))
        local a2 = 0.1   -- not exact in binary
        blas.axpy(a2, x, y)
        local got = read(y)
        for i = 0, n - 1 do
          local want = stored(dt, a2 * xs[i] + ys[i])
          -- one rounding of the update (two with an FMA-less float32 store)
          assert.is_true(math.abs(got[i] - want) <= 2 * math.abs(want) *
                         (dt == "float32" and 2^-24 or 2^-52) + 1e-300,
                         dt .. " axpy at " .. i)
        end
      end
    end)
  end)

  -- -- the BLAS rules ------------------------------------------------------------
  describe("BLAS rules", function()
    local NAN, INF = 0 / 0, math.huge

    it("scal with a = 0 zeroes every entry, NaN and Inf included", function()
      for _, dt in ipairs(FLOATS) do
        local x = from({1.0, NAN, INF, -INF, -2.0, NAN}, dt)
        blas.scal(0.0, x)
        speck.fence()
        for i = 0, 5 do assert.are.equal(0, x(i)) end
        -- an integer a = 0 as well
        local z = from({NAN, 3.0}, dt)
        blas.scal(0, z)
        speck.fence()
        assert.are.equal(0, z(0))
        assert.are.equal(0, z(1))
      end
    end)

    it("scal with a ~= 0 keeps NaN and scales Inf", function()
      local x = from({NAN, INF, 2.0}, "float64")
      blas.scal(-1.5, x)
      speck.fence()
      assert.is_true(x(0) ~= x(0))
      assert.are.equal(-INF, x(1))
      assert.are.equal(-3.0, x(2))
    end)

    it("axpy with a = 0 leaves y as it is and ignores NaN and Inf in x", function()
      for _, dt in ipairs(FLOATS) do
        local x = from({NAN, INF, -INF, 1.0}, dt)
        local y = from({1.0, 2.0, NAN, -4.0}, dt)
        blas.axpy(0.0, x, y)
        speck.fence()
        assert.are.equal(1.0, y(0))
        assert.are.equal(2.0, y(1))
        assert.is_true(y(2) ~= y(2))
        assert.are.equal(-4.0, y(3))
      end
    end)

    it("axpby with b = 0 overwrites y, NaN and Inf included", function()
      for _, dt in ipairs(FLOATS) do
        local x = from({1.0, 2.0, 3.0, -0.5}, dt)
        local y = from({NAN, INF, -INF, NAN}, dt)
        blas.axpby(2.0, x, 0.0, y)
        speck.fence()
        assert.are.same({2.0, 4.0, 6.0, -1.0}, {y(0), y(1), y(2), y(3)})
      end
    end)

    it("axpby with a = 0 ignores NaN and Inf in x (y = b*y; a = b = 0 zeroes y)", function()
      if known_bug("axpby_a0") then return end
      for _, dt in ipairs(FLOATS) do
        local x = from({NAN, INF, -INF, 1.0}, dt)
        local y = from({1.0, 2.0, 3.0, -4.0}, dt)
        blas.axpby(0.0, x, 2.0, y)
        speck.fence()
        assert.are.same({2.0, 4.0, 6.0, -8.0}, {y(0), y(1), y(2), y(3)})
        blas.axpby(0.0, x, 0.0, y)
        speck.fence()
        assert.are.same({0, 0, 0, 0}, {y(0), y(1), y(2), y(3)})
      end
    end)

    it("NaN and Inf in reductions", function()
      assert.are.equal(INF, blas.nrm2(from({1.0, INF, 2.0}, "float64")))
      assert.are.equal(INF, blas.nrm2(from({-INF, 1e200, 2.0}, "float64")))
      local r = blas.nrm2(from({1.0, NAN, 2.0}, "float64"))
      assert.is_true(r ~= r)
      assert.are.equal(INF, blas.asum(from({1.0, -INF}, "float64")))
      r = blas.dot(from({1.0, NAN}, "float64"), from({1.0, 1.0}, "float64"))
      assert.is_true(r ~= r)
    end)
  end)

  -- -- nrm2 near overflow and underflow ------------------------------------------
  describe("nrm2 without overflow or underflow", function()
    -- k * 2^e with small integers k: the exact norm is 2^e * sqrt(sum k^2),
    -- one correctly rounded sqrt and an exact power of two
    local function pow2_case(e, dt, n)
      local x = speck.View("x", dt, n)
      local s = 0
      for i = 0, n - 1 do
        local k = (i * 37) % 11 - 5
        x:set(i, k * 2.0 ^ e)
        s = s + k * k
      end
      return x, math.sqrt(s) * 2.0 ^ e
    end

    it("values near 1e200: squares overflow, the norm does not", function()
      assert_ulps(5e200, blas.nrm2(from({3e200, -4e200}, "float64")), 4, "3e200, 4e200")
      for _, n in ipairs({1, 2, 17, 1000, 100003}) do
        local x = speck.View("x", "float64", n)
        speck.deep_copy(x, 1e200)
        -- n equal entries: within the bound of a sum of n rounded squares
        assert_ulps(1e200 * math.sqrt(n), blas.nrm2(x), 4 + n // 2, "1e200 x " .. n)
      end
      -- the largest doubles: their squares and their sum overflow
      local big = 1.7e308
      assert_ulps(big * math.sqrt(2), blas.nrm2(from({big, -big}, "float64")), 4, "1.7e308")
    end)

    it("values near 1e-200: squares underflow, the norm does not", function()
      assert_ulps(5e-200, blas.nrm2(from({3e-200, -4e-200}, "float64")), 4, "3e-200, 4e-200")
      for _, n in ipairs({1, 2, 17, 1000, 100003}) do
        local x = speck.View("x", "float64", n)
        speck.deep_copy(x, 1e-200)
        assert_ulps(1e-200 * math.sqrt(n), blas.nrm2(x), 4 + n // 2, "1e-200 x " .. n)
      end
    end)

    it("scaled data are as exact as unscaled: k * 2^664, k * 2^-664", function()
      -- sum k^2 is exact, so the norm is one rounding from exact at any
      -- power-of-two scale; a scale factor 1/max that is not a power of
      -- two rounds every scaled entry and the sum drifts with n
      for _, n in ipairs({2, 17, 1000, 100003}) do
        local x0, want0 = pow2_case(0, "float64", n)
        assert.are.equal(want0, blas.nrm2(x0))
      end
      if known_bug("nrm2_scale") then return end
      for _, e in ipairs({664, -664}) do
        for _, n in ipairs({2, 17, 1000, 100003}) do
          local x, want = pow2_case(e, "float64", n)
          assert_ulps(want, blas.nrm2(x), 1, ("k * 2^%d, n = %d"):format(e, n))
        end
      end
    end)

    it("entries below 1/DBL_MAX (5.6e-309) and subnormal ones", function()
      if known_bug("nrm2_tiny") then return end
      assert.are.equal(1e-310, blas.nrm2(from({1e-310}, "float64")))
      assert.are.equal(5e-309, blas.nrm2(from({-5e-309}, "float64")))
      -- 3 * 2^-1070 and 4 * 2^-1070: 5 * 2^-1070, exactly
      assert.are.equal(5 * 2.0 ^ -1070,
                       blas.nrm2(from({3 * 2.0 ^ -1070, 4 * 2.0 ^ -1070}, "float64")))
      local x = speck.View("x", "float64", 1000)
      speck.deep_copy(x, 2.0 ^ -1040)
      assert_ulps(2.0 ^ -1040 * math.sqrt(1000), blas.nrm2(x), 1, "1000 x 2^-1040")
    end)

    it("one huge entry beside tiny ones", function()
      local x = from({1e-200, 1e200, -1e-300, 3e-200}, "float64")
      assert_ulps(1e200, blas.nrm2(x), 1, "1e200 among tiny")
    end)

    it("float32 extremes accumulate in float64", function()
      -- 3e38 and 4e38 overflow float32 only; 1e-38-scale squares are
      -- normal in float64
      local x = from({2.0 ^ 126, -2.0 ^ 126 * 0.75}, "float32")
      assert_ulps(2.0 ^ 126 * 1.25, blas.nrm2(x), 1, "float32 2^126")
      local t = from({2.0 ^ -140, 2.0 ^ -140 * 0.75}, "float32")   -- subnormal floats
      assert_ulps(2.0 ^ -140 * 1.25, blas.nrm2(t), 1, "float32 2^-140")
      -- x.x = 2^252 * 1.5625 overflows float32, not the float64 accumulator
      assert.are.equal(2.0 ^ 252 * 1.5625, blas.dot(x, x))
    end)
  end)

  -- -- iamax -------------------------------------------------------------------
  describe("iamax", function()
    it("is 0-based and returns the first of equal magnitudes", function()
      assert.are.equal(2, blas.iamax(from({1, -2, -3, 3, 2}, "float64")))
      assert.are.equal(0, blas.iamax(from({-5, 5, 5}, "float32")))
      assert.are.equal(0, blas.iamax(from({0, 0, 0}, "float64")))
      assert.are.equal(0, blas.iamax(from({0}, "float64")))
      assert.are.equal(3, blas.iamax(from({1, 1, 1, -9, 9, -9}, "float64")))
    end)

    it("ties across the threads' chunks: the lowest index wins", function()
      local n = 100001
      for _, dt in ipairs(FLOATS) do
        for _, kind in ipairs({"right", "left", "strided"}) do
          local x = vec("x", dt, n, kind)
          speck.parallel_for("blas_spec_zero", n, {x = x}, "x(i) = 0;")
          speck.fence()
          x:set(n - 3, 6.5)     -- last chunk
          x:set(60000, -6.5)    -- second half
          x:set(40000, 6.5)     -- first half
          x:set(40001, -6.5)
          assert.are.equal(40000, blas.iamax(x), dt .. " " .. kind)
          x:set(7, -6.5)
          assert.are.equal(7, blas.iamax(x), dt .. " " .. kind)
          speck.deep_copy(x, -1.0)   -- all equal
          assert.are.equal(0, blas.iamax(x), dt .. " " .. kind)
        end
      end
    end)

    it("returns an integer, -1 when empty", function()
      local r = blas.iamax(from({1.0, 2.0}, "float64"))
      assert.are.equal("integer", math.type(r))
      assert.are.equal(1, r)
      assert.are.equal(-1, blas.iamax(speck.View("e", "float32", 0)))
    end)
  end)

  -- -- dtypes ---------------------------------------------------------------------
  describe("dtypes", function()
    it("float32 x with float64 y (and the reverse) work through the JIT", function()
      local n = 1001
      for _, dts in ipairs({{"float32", "float64"}, {"float64", "float32"}}) do
        local x, y = fill(speck.View("x", dts[1], n), 3), fill(speck.View("y", dts[2], n), 5)
        local xs, ys = read(x), read(y)
        local before = ON_HOST and launches("blas.dot", "precompiled") or 0
        assert.are.equal(ref.dot(xs, ys, n), blas.dot(x, y))
        if ON_HOST then
          assert.are.equal(before, launches("blas.dot", "precompiled"))
        end
        blas.axpy(A, x, y)
        for i = 0, n - 1 do ys[i] = stored(dts[2], A * xs[i] + ys[i]) end
        check_each(n, function(i) return ys[i] end, read(y), "axpy")
        blas.axpby(B, x, A, y)
        check_each(n, function(i) return stored(dts[2], B * xs[i] + A * ys[i]) end,
                   read(y), "axpby")
      end
    end)

    it("int32 and int64 views", function()
      local n = 999
      for _, dt in ipairs({"int32", "int64"}) do
        local x, y = fill(speck.View("x", dt, n), 3), fill(speck.View("y", dt, n), 8)
        local xs, ys = read(x), read(y)
        assert.are.equal(ref.dot(xs, ys, n), blas.dot(x, y))
        assert.are.equal(ref.asum(xs, n), blas.asum(x))
        assert.are.equal(ref.nrm2(xs, n), blas.nrm2(x))
        assert.are.equal(ref.iamax(xs, n), blas.iamax(x))
        blas.axpy(3, x, y)
        for i = 0, n - 1 do ys[i] = 3 * xs[i] + ys[i] end
        check_each(n, function(i) return ys[i] end, read(y), dt .. " axpy")
        blas.axpby(-2, x, 1, y)
        check_each(n, function(i) return -2 * xs[i] + ys[i] end, read(y), dt .. " axpby")
        blas.scal(2.5, x)   -- truncated toward zero on the store, as in C
        check_each(n, function(i) return stored(dt, 2.5 * xs[i]) end, read(x),
                   dt .. " scal")
      end
    end)

    it("the same view as x and y", function()
      local x = fill(speck.View("x", "float64", 1001), 3)
      local xs = read(x)
      assert.are.equal(ref.dot(xs, xs, 1001), blas.dot(x, x))
      blas.axpy(A, x, x)
      check_each(1001, function(i) return A * xs[i] + xs[i] end, read(x), "axpy")
    end)
  end)

  -- -- the JIT's bookkeeping ------------------------------------------------------
  describe("speck.jit.stats()", function()
    it("lists the library kernels at tier 'precompiled' and counts host launches", function()
      if not ON_HOST then
        pending("the precompiled variants are host code; " .. SPACE .. " compiles them")
        return
      end
      local st = speck.jit.stats()
      local seen = {}
      for _, k in ipairs(st.per_kernel) do
        if k.tier == "precompiled" then seen[k.label] = true end
      end
      for _, f in ipairs({"dot", "nrm2", "asum", "iamax", "scal", "axpy", "axpby"}) do
        assert.is_true(seen["blas." .. f], "blas." .. f .. " is not precompiled")
      end
      local x, y = fill(speck.View("x", "float64", 100), 1), fill(speck.View("y", "float64", 100), 2)
      local calls = {
        {"blas.dot", function() blas.dot(x, y) end},
        {"blas.asum", function() blas.asum(x) end},
        {"blas.nrm2", function() blas.nrm2(x) end},
        {"blas.iamax", function() blas.iamax(x) end},
        {"blas.scal", function() blas.scal(1.0, x) end},
        {"blas.axpy", function() blas.axpy(1.0, x, y) end},
        {"blas.axpby", function() blas.axpby(1.0, x, 2.0, y) end},
      }
      for _, c in ipairs(calls) do
        local before = launches(c[1], "precompiled")
        local jit_before = launches(c[1], "precompiled", true)
        c[2]()
        c[2]()
        assert.are.equal(before + 2, launches(c[1], "precompiled"), c[1])
        assert.are.equal(jit_before, launches(c[1], "precompiled", true), c[1])
      end
      -- float32, layout left: precompiled as well
      local xl = fill(speck.View("xl", "float32", 100, {layout = "left"}), 1)
      local before = launches("blas.asum", "precompiled")
      blas.asum(xl)
      assert.are.equal(before + 1, launches("blas.asum", "precompiled"))
    end)

    it("a strided view runs a JIT-compiled kernel, not the precompiled one", function()
      if not ON_HOST then
        pending("the precompiled variants are host code; " .. SPACE .. " compiles them")
        return
      end
      local M = speck.View("M", "float64", {50, 3})
      local col = fill(speck.subview(M, speck.ALL, 1), 4)
      local before = launches("blas.asum", "precompiled")
      local jit_before = launches("blas.asum", "precompiled", true)
      assert.are.equal(ref.asum(read(col), 50), blas.asum(col))
      assert.are.equal(before, launches("blas.asum", "precompiled"))
      assert.are.equal(jit_before + 1, launches("blas.asum", "precompiled", true))
    end)
  end)

  -- -- errors -------------------------------------------------------------------
  describe("errors", function()
    -- the message of the error f raises (asserting that it raises one)
    local function message(f)
      local ok, msg = pcall(f)
      assert.is_false(ok, "no error raised")
      return tostring(msg)
    end

    -- f raises exactly 'want', at a line of this file (the caller's)
    local function expect(f, want)
      local msg = message(f)
      local where, rest = msg:match("^(.-:%d+): (.*)$")
      assert.are.equal(want, rest or msg)
      assert.is_truthy(where and where:find("blas_spec.lua", 1, true),
                       ("message %q is not at the caller's line"):format(msg))
    end

    -- a view made before the errors; its data must survive all of them
    local keep = fill(speck.View("keep", "float64", 64), 9)
    local kept = read(keep)

    -- the VM still works: 'keep' is intact, a library call and a kernel run
    local function vm_ok()
      check_each(64, function(i) return kept[i] end, read(keep), "keep")
      assert.are.equal(ref.dot(kept, kept, 64), blas.dot(keep, keep))
      local y = speck.View("y", "float64", 64)
      blas.axpy(2.0, keep, y)
      check_each(64, function(i) return 2.0 * kept[i] end, read(y), "axpy")
      assert.are.equal(64, speck.parallel_reduce("after_error", 64, {}, "acc += 1;"))
    end

    local x = speck.View("x", "float64", 10)
    local y = speck.View("y", "float64", 9)
    local M = speck.View("M", "float64", {3, 4})

    it("length mismatch", function()
      expect(function() blas.dot(x, y) end,
             "speck.blas.dot: x (view 'x') has 10 elements, y (view 'y') 9")
      vm_ok()
      expect(function() blas.axpy(1.0, x, y) end,
             "speck.blas.axpy: x (view 'x') has 10 elements, y (view 'y') 9")
      vm_ok()
      expect(function() blas.axpby(1.0, y, 2.0, x) end,
             "speck.blas.axpby: x (view 'y') has 9 elements, y (view 'x') 10")
      vm_ok()
    end)

    it("a rank-2 argument", function()
      expect(function() blas.nrm2(M) end,
             "speck.blas.nrm2: x (view 'M') is rank 2, expected rank 1")
      vm_ok()
      expect(function() blas.dot(x, M) end,
             "speck.blas.dot: y (view 'M') is rank 2, expected rank 1")
      vm_ok()
      expect(function() blas.scal(2.0, M) end,
             "speck.blas.scal: x (view 'M') is rank 2, expected rank 1")
      vm_ok()
    end)

    it("a number where a view is expected", function()
      expect(function() blas.dot(3, x) end, "speck.blas.dot: x must be a view")
      vm_ok()
      expect(function() blas.axpy(1.0, x, 2.0) end, "speck.blas.axpy: y must be a view")
      vm_ok()
      expect(function() blas.asum() end, "speck.blas.asum: x must be a view")
      vm_ok()
    end)

    it("a view where a number is expected", function()
      expect(function() blas.scal(x, x) end, "speck.blas.scal: a must be a number")
      vm_ok()
      expect(function() blas.axpby(1.0, x, x, x) end, "speck.blas.axpby: b must be a number")
      vm_ok()
      expect(function() blas.axpy(nil, x, x) end, "speck.blas.axpy: a must be a number")
      vm_ok()
    end)

    it("a string argument", function()
      if known_bug("string_arg") then
        -- what it does today: an error naming the call and the argument
        local msg = message(function() blas.scal("2", x) end)
        assert.is_truthy(msg:find("speck.blas.scal: capture 'a' is a string", 1, true), msg)
        vm_ok()
        return
      end
      expect(function() blas.scal("2", x) end, "speck.blas.scal: a must be a number")
      vm_ok()
    end)

    it("a view in a space the back end does not reach", function()
      local other = SPACE == "cuda" and "host" or "cuda"
      local ok, far = pcall(speck.View, "far", "float64", 10, {space = other})
      if not ok then
        pending("no '" .. other .. "' views on this machine")
        return
      end
      local near = speck.View("near", "float64", 10)
      expect(function() blas.dot(near, far) end,
             ("speck.blas.dot: view 'far' (capture 'y') lives in space %s; this kernel " ..
              "runs on %s (copy it with speck.deep_copy or create_mirror_view_and_copy)")
             :format(other, SPACE))
      vm_ok()
      expect(function() blas.scal(2.0, far) end,
             ("speck.blas.scal: view 'far' (capture 'x') lives in space %s; this kernel " ..
              "runs on %s (copy it with speck.deep_copy or create_mirror_view_and_copy)")
             :format(other, SPACE))
      vm_ok()
    end)
  end)
end)
