local speck = require "speck"
-- random_spec.lua: speck.random (stdlib/speck/random.lua, the dialect's
-- random-pool words in dialect/blocks.h): Kokkos' body spelling
-- (get_state / drand / normal / free_state), both generators, fill_random,
-- statistics of the draws (a chi-square test of uniformity, the mean and
-- variance of normal draws), independent streams, the same numbers for
-- the same seed and number of states, the GPU compile of a pool body,
-- and bad input. Oracle: the statistics' known values, and the
-- generators written again in Lua for the first draws of a state.

local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v) end

local DRAW = [[
  auto st = rp.get_state();
  for (int k = 0; k < 10; k++) u(i * 10 + k) = st.drand(0.0, 1.0);
  rp.free_state(st);
]]

-- chi-square of 'nb' equal bins over the values of 'u' in [0, 1)
local function chi2(u, nb)
  local h, n = {}, u:extent(0)
  for b = 1, nb do h[b] = 0 end
  local t = host(u)
  for i = 0, n - 1 do
    local b = math.floor(t(i) * nb) + 1
    h[b] = h[b] + 1
  end
  local e, x = n / nb, 0
  for b = 1, nb do x = x + (h[b] - e) ^ 2 / e end
  return x
end

describe("speck.random.Pool", function()
  for _, kind in ipairs{"xorshift64", "xorshift1024"} do
    it(kind .. " draws uniform doubles (chi-square over 100 bins)", function()
      local pool = speck.random.Pool(12345, {kind = kind})
      local n = 100000
      local u = speck.View("u", "float64", 10 * n)
      speck.parallel_for("draw", n, {rp = pool, u = u}, DRAW)
      local lo = speck.parallel_reduce("lo", 10 * n, {u = u}, "acc = fmin(acc, u(i));",
                                       {op = "min"})
      local hi = speck.parallel_reduce("hi", 10 * n, {u = u}, "acc = fmax(acc, u(i));",
                                       {op = "max"})
      assert.is_true(lo >= 0 and hi < 1)
      -- 99 degrees of freedom: P(chi2 > 160) < 1e-4
      assert.is_true(chi2(u, 100) < 160)
    end)
  end

  it("draws normal numbers of the given mean and deviation (10^7 draws)", function()
    local pool = speck.random.Pool(99, {kind = "xorshift1024"})
    local n = 1000000
    local s0, s1 = speck.parallel_reduce("moments", n, {rp = pool}, [[
      auto st = rp.get_state();
      for (int k = 0; k < 10; k++) {
        double z = st.normal(2.0, 3.0);
        acc0 += z; acc1 += z * z;
      }
      rp.free_state(st);
    ]], {"sum", "sum"})
    local N = 10 * n
    local mean = s0 / N
    local var = s1 / N - mean * mean
    -- standard errors: 3/sqrt(N) ~ 1e-3 for the mean, ~3e-3 relative for the variance
    assert.is_true(math.abs(mean - 2.0) < 6e-3, tostring(mean))
    assert.is_true(math.abs(var / 9.0 - 1.0) < 1.5e-2, tostring(var))
  end)

  it("gives independent streams to different states (correlation of neighbours)", function()
    local pool = speck.random.Pool(5, {states = 256})
    local n = 256
    local u = speck.View("u", "float64", {n, 4000})
    speck.random.fill(u, pool, 0.0, 1.0)
    local t = host(u)
    -- state i fills blocks i, i + n, ... (of 16 elements on the host, 1
    -- on a GPU): row r, column c of 'u' is element r * 4000 + c, rows r
    -- and r + 1 lie in blocks of different states; correlate them
    local sx, sy, sxy, sxx, syy, m = 0, 0, 0, 0, 0, 0
    for r = 0, n - 1 do
      for c = 0, 3999, 7 do
        local x, y = t(r, c), t((r + 1) % n, c)
        sx, sy, sxy, sxx, syy, m = sx + x, sy + y, sxy + x * y, sxx + x * x, syy + y * y, m + 1
      end
    end
    local cov = sxy / m - (sx / m) * (sy / m)
    local rho = cov / math.sqrt((sxx / m - (sx / m) ^ 2) * (syy / m - (sy / m) ^ 2))
    assert.is_true(math.abs(rho) < 0.02, tostring(rho))
  end)

  it("fills with the same numbers for the same seed and number of states on every back end",
     function()
    -- the numbers of xorshift64* written in Lua: state s fills blocks of
    -- B elements s, s + 64, ... (B = 16 on the host, 1 on a GPU): its k-th
    -- draw is element B (s + 64 (k // B)) + k % B
    local function splitmix(z)
      z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
      z = (z ~ (z >> 27)) * 0x94D049BB133111EB
      return z ~ (z >> 31)
    end
    local a = speck.View("a", "float64", 5000)
    local B = a:space() == "host" and 16 or 1
    speck.random.fill(a, speck.random.Pool(77, {states = 64}), -2.0, 5.0)
    local ta = host(a)
    for s = 0, 63 do
      local x = splitmix(77 + 0x9E3779B97F4A7C15 * (s + 1))
      for k = 0, 2 do
        x = x ~ (x >> 12)
        x = x ~ (x << 25)
        x = x ~ (x >> 27)
        local u = ((x * 2685821657736338717) >> 11) * (1.0 / 9007199254740992.0)
        local want = -2.0 + 7.0 * u
        assert.near(want, ta(B * (s + 64 * (k // B)) + k % B), 1e-14)
      end
    end
    local c = speck.View("c", "float64", 5000)
    speck.random.fill(c, speck.random.Pool(78, {states = 64}), -2.0, 5.0)
    assert.are_not.equal(host(c)(0), ta(0))
  end)

  it("matches xorshift64* written in Lua for a state's first draws", function()
    -- one state, seeded as random.lua seeds it: draw 3 urand64 values
    local pool = speck.random.Pool(3, {states = 1})
    local out = speck.View("out", "int64", 4)   -- the bits of the uint64 draws
    speck.parallel_for("first", 1, {rp = pool, out = out}, [[
      auto st = rp.get_state();
      out(0) = (int64_t)st.urand64(); out(1) = (int64_t)st.urand64();
      out(2) = (int64_t)st.urand64();
      rp.free_state(st);
    ]])
    local function splitmix(z)
      z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
      z = (z ~ (z >> 27)) * 0x94D049BB133111EB
      return z ~ (z >> 31)
    end
    local x = splitmix(3 + 0x9E3779B97F4A7C15)
    local t = host(out)
    for k = 0, 2 do
      x = x ~ (x >> 12)
      x = x ~ (x << 25)
      x = x ~ (x >> 27)
      assert.equal(x * 2685821657736338717, t(k))
    end
  end)

  it("fills integer views in [lo, hi) and any rank", function()
    local v = speck.View("iv", "int32", {30, 7, 3})
    speck.random.fill(v, speck.random.Pool(1), 5, 10)
    local lo = speck.parallel_reduce("ilo", speck.MDRangePolicy({0, 0, 0}, {30, 7, 3}), {v = v},
                                     "acc = acc < v(i, j, k) ? acc : v(i, j, k);", {op = "min",
                                     dtype = "int64"})
    local hi = speck.parallel_reduce("ihi", speck.MDRangePolicy({0, 0, 0}, {30, 7, 3}), {v = v},
                                     "acc = acc > v(i, j, k) ? acc : v(i, j, k);", {op = "max",
                                     dtype = "int64"})
    assert.equal(5, lo)
    assert.equal(9, hi)
  end)

  it("compiles a pool body for the GPU", function()
    if not NVRTC then pending("no NVRTC") return end
    local pool = speck.random.Pool(1, {space = "host", states = 4})
    local u = speck.View("u", "float64", 40, {space = "host"})
    speck.kernel("draw_cuda", "range", {rp = pool, u = u}, DRAW, {target = "cuda"})
  end)

  it("refuses bad input by name", function()
    local pool = speck.random.Pool(1)
    assert.equal("speck.random.Pool: seed must be an integer, got 1.5",
                 err_of(speck.random.Pool, 1.5))
    assert.equal("speck.random.Pool: unknown kind 'mt' (expected 'xorshift64' or " ..
                 "'xorshift1024')", err_of(speck.random.Pool, 1, {kind = "mt"}))
    assert.equal("speck.random.Pool: states must be an integer in [1, 2^30], got 0",
                 err_of(speck.random.Pool, 1, {states = 0}))
    assert.equal("speck.random.Pool: unknown option 'kidn' (valid: kind, space, states)",
                 err_of(speck.random.Pool, 1, {kidn = "xorshift64"}))
    assert.equal("speck.parallel_for 'bad': random pool 'rp': state 'st' is used after " ..
                 "rp.free_state(st) (body line 3)",
                 err_of(speck.parallel_for, "bad", 4, {rp = pool},
                        "auto st = rp.get_state();\nrp.free_state(st);\ndouble x = st.drand();"))
    assert.equal("speck.parallel_for 'bad': random pool 'rp': st.normal takes 0 or 2 " ..
                 "arguments (body line 1)",
                 err_of(speck.parallel_for, "bad", 4, {rp = pool},
                        "auto st = rp.get_state(); double z = st.normal(1.0); " ..
                        "rp.free_state(st);"))
    assert.equal("speck.parallel_for 'bad': random pool 'rp': state 'st' has no method " ..
                 "'gauss' (body line 1; methods: drand, frand, rand, urand64, normal)",
                 err_of(speck.parallel_for, "bad", 4, {rp = pool},
                        "auto st = rp.get_state(); double z = st.gauss(); rp.free_state(st);"))
    local v = speck.View("v", "float64", 4)
    assert.equal("speck.random.fill: view 'v': the range [1, 1) is empty or not numbers",
                 err_of(speck.random.fill, v, pool, 1, 1))
    assert.equal("speck.random.fill: argument 2 must be a speck.random.Pool, got table",
                 err_of(speck.random.fill, v, {}, 0, 1))
    local iv = speck.View("iv", "int32", 4)
    assert.equal("speck.random.fill: view 'iv' (int32): lo and hi must be integers",
                 err_of(speck.random.fill, iv, pool, 0, 1.5))
    local b = speck.View("flag", "bool", 4)
    assert.equal("speck.random.fill: view 'flag': dtype bool cannot be filled with random " ..
                 "numbers", err_of(speck.random.fill, b, pool, 0, 1))
  end)
end)
