-- jit_tiers_spec.lua: the tiered host JIT (libtcc first, then the
-- optimising cc tier) and its on-disk cache of compiled kernels.
--
-- Almost everything here needs a fresh process or its own environment
-- (SPECK_JIT, SPECK_CC, SPECK_CFLAGS, SPECK_CACHE*, PATH), so the tests run
-- build/bin/speck ($SPECK_BIN) on temporary scripts. Each test gets its own
-- cache directory (mktemp -d), removed afterwards. A script reports back by
-- calling emit(value): one line '@@RESULT@@<Lua constructor>' on stdout.

local speck = require "speck"

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function trim(s) return (s:gsub("%s+$", "")) end

if SPECK:sub(1, 1) ~= "/" then
  SPECK = trim(sh("pwd")) .. "/" .. SPECK
end

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function spit(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function mktemp_d()
  local d = trim(sh("mktemp -d"))
  assert(d ~= "" and d:sub(1, 1) == "/", "mktemp -d failed")
  return d
end

local function is_root() return trim(sh("id -u")) == "0" end

-- Prepended to every script: emit() and a few helpers.
local PRELUDE = [==[
local function ser(v)
  local t = type(v)
  if t == "table" then
    local parts = {}
    for k, x in pairs(v) do parts[#parts + 1] = "[" .. ser(k) .. "]=" .. ser(x) end
    return "{" .. table.concat(parts, ",") .. "}"
  elseif t == "string" or t == "number" then
    return (string.format("%q", v):gsub("\\\n", "\\n"))
  else
    return tostring(v)
  end
end
function emit(v) io.write("\n@@RESULT@@", ser(v), "\n") io.flush() end
-- the stats entry of the kernel labelled 'label' (the latest one)
function kstat(label)
  local found
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label == label then found = k end
  end
  return found
end
-- a kernel with an exactly known result: sum of 3*i + 1 over 0..n-1; the
-- label goes into the body too (kernels are keyed by content, not label)
local cx
function canon(opts, label, n)
  n = n or 1000
  if not cx or cx:size() ~= n then
    cx = speck.View("cx", "int64", n)
    for i = 0, n - 1 do cx[i] = i end
  end
  label = label or "canon"
  return speck.parallel_reduce(label, n, {x = cx},
    "/* " .. label .. " */ acc += x(i) * 3 + 1;", {op = "sum", dtype = "int64"}, opts)
end
function canon_expect(n) n = n or 1000 return 3 * n * (n - 1) // 2 + n end
]==]

-- env variables a test never inherits from the caller
local CLEAR = { "SPECK_JIT", "SPECK_CC", "SPECK_CFLAGS", "SPECK_CACHE",
  "SPECK_CACHE_MAX", "SPECK_CACHE_DIR", "XDG_CACHE_HOME", "SPECK_JIT_DUMP" }

-- The shell command that runs speck with 'env' (name -> value) set on top
-- of the caller's environment minus CLEAR. 'args' is already quoted.
local function speck_cmd(env, args)
  -- a hung process (e.g. blocked opening a cache entry) fails, not hangs
  local parts = { "timeout -k 10 60 env" }
  for _, k in ipairs(CLEAR) do parts[#parts + 1] = "-u " .. k end
  local keys = {}
  for k in pairs(env or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. quote(env[k]) end
  parts[#parts + 1] = quote(SPECK)
  parts[#parts + 1] = args
  return table.concat(parts, " ")
end

local function parse_result(out)
  local last
  for s in out:gmatch("@@RESULT@@([^\n]*)") do last = s end
  if not last then return nil end
  local f = assert(load("return " .. last, "=result", "t", {}))
  return f()
end

-- Run 'code' (after PRELUDE) in a fresh speck process. Returns the emitted
-- value, stdout, stderr and the exit status.
local function run(env, code)
  local script = os.tmpname()
  local errpath = os.tmpname()
  spit(script, PRELUDE .. code)
  local out, status = sh(speck_cmd(env, quote(script)) .. " 2>" ..
                         quote(errpath) .. " </dev/null")
  local err = slurp(errpath)
  os.remove(script)
  os.remove(errpath)
  return parse_result(out), out, err, status
end

-- run() that must succeed; returns the emitted value
local function run_ok(env, code)
  local r, out, err, status = run(env, code)
  assert(status == 0, "speck failed (status " .. tostring(status) .. "):\n" ..
         err .. "\nstdout:\n" .. out)
  assert(r ~= nil, "script emitted nothing; stdout:\n" .. out .. "\nstderr:\n" .. err)
  return r
end

-- `speck --info` output (stdout and stderr together) and status
local function info_text(env)
  return sh(speck_cmd(env, "--info") .. " 2>&1 </dev/null")
end

-- entries (*.so) and every file name in a cache directory
local function listing(dir)
  local entries, all = {}, {}
  local out = sh("ls -A " .. quote(dir) .. " 2>/dev/null")
  for name in out:gmatch("[^\n]+") do
    all[#all + 1] = name
    if name:match("%.so$") and name:sub(1, 1) ~= "." then entries[#entries + 1] = name end
  end
  table.sort(entries)
  return entries, all
end

local function fsize(path)
  local f = assert(io.open(path, "rb"))
  local n = f:seek("end")
  f:close()
  return n
end

local function mode_of(path) return trim(sh("stat -c %a " .. quote(path))) end

local function env_with(base, extra)
  local e = {}
  for k, v in pairs(base) do e[k] = v end
  for k, v in pairs(extra or {}) do e[k] = v end
  return e
end

-- a script that launches the canonical kernel once (jit 'tier', or the
-- default) and emits its result and stats
local function canon_script(tier)
  return (tier and ("local r = canon{jit = %q}\n"):format(tier) or
          "local r = canon()\n") .. [[
emit{r = r, expect = canon_expect(), k = kstat("canon"),
     cache = speck.info().cache}
]]
end

local HOT = [[
local n = 1000
local x = speck.View("x", "float64", n)
for i = 0, n - 1 do x[i] = i * 0.5 end
local function hot() return speck.parallel_reduce("hot", n, {x = x}, "acc += x(i);") end
local function cold() return speck.parallel_reduce("cold", 100, {x = x}, "acc += 2 * x(i);") end
local first = hot()
for _ = 2, 20 do assert(hot() == first) end
cold() cold()
local mid = kstat("hot")
speck.jit.wait()
local waited = kstat("hot")
local last = hot()
emit{first = first, last = last, hot = kstat("hot"), cold = kstat("cold"),
     mid_tier = mid.tier, waited = waited}
]]

describe("tiered host JIT", function()
  if (speck.info().default_space) == "cuda" then
    it("applies to the host back ends", function()
      pending("the tcc/cc tiers and their .so cache are host-only; CUDA kernels: cuda_codegen_spec")
    end)
    return
  end
  local dir, env

  before_each(function()
    dir = mktemp_d()
    env = { SPECK_CACHE_DIR = dir }
  end)

  after_each(function()
    if dir then
      sh("chmod -R u+rwx " .. quote(dir) .. " 2>/dev/null; rm -rf " .. quote(dir))
    end
    dir = nil
  end)

  describe("statistics", function()
    it("per-kernel stats have the documented fields (in process, jit = 'tcc')", function()
      local x = speck.View("x", "float64", 10)
      for i = 0, 9 do x[i] = i end
      -- a body of its own: kernels are keyed by body and signature, not
      -- label, so a spec run before this one with the same body would own
      -- the entry under its label
      local r = speck.parallel_reduce("jit_tiers_shape", 10, {x = x},
                                      "acc += x(i); /* jit_tiers_shape */", {jit = "tcc"})
      assert.are.equal(45, r)
      assert.is_function(speck.jit.wait)
      speck.jit.wait()
      local k
      for _, e in ipairs(speck.jit.stats().per_kernel) do
        if e.label == "jit_tiers_shape" then k = e end
      end
      assert.is_table(k)
      assert.are.equal("tcc", k.tier)
      assert.is_table(k.compiles)
      assert.are.equal(1, k.compiles.tcc)
      assert.are.equal(0, k.compiles.cc)
      assert.are.equal(0, k.compiles.nvrtc)
      assert.is_number(k.compile_seconds)
      assert.are.equal(0, k.cache_hits)
      assert.are.equal(0, k.tierups)
      assert.are.equal(1, k.launches)
      assert.are.equal(0, k.hits)
      assert.is_nil(k.warning)
    end)
  end)

  describe("tier selection", function()
    it("tiers a hot kernel up to cc in the background, not a cold one", function()
      local r = run_ok(env, HOT)
      assert.are.equal(r.first, r.last)
      assert.are.equal(0.5 * 999 * 1000 / 2, r.first)
      assert.are.equal("cc", r.hot.tier)
      assert.are.equal(1, r.hot.tierups)
      assert.are.equal(1, r.hot.compiles.tcc)
      assert.are.equal(1, r.hot.compiles.cc)
      assert.are.equal(21, r.hot.launches)
      assert.is_nil(r.hot.warning)
      assert.are.equal(2, r.cold.launches)
      -- two launches stay on tcc unless they ran 5 ms (SK_TIERUP_SECONDS:
      -- a loaded machine's first OpenMP launch can); jit.stats() shows a
      -- finished tier-up at once, so the tier is checked against the rule
      if r.cold.run_seconds < 0.005 then
        assert.are.equal("tcc", r.cold.tier)
        assert.are.equal(0, r.cold.tierups)
        assert.are.equal(0, r.cold.compiles.cc)
      end
      -- current right after jit.wait(), before any launch installs it
      assert.are.equal("cc", r.waited.tier)
      assert.are.equal(1, r.waited.tierups)
      assert.are.equal(20, r.waited.launches)
    end)

    it("jit = 'tcc' never tiers up (per launch and SPECK_JIT=tcc)", function()
      local code = [[
local x = speck.View("x", "float64", 1000)
for _ = 1, 30 do speck.parallel_reduce("k", 1000, {x = x}, "acc += x(i);", OPTS) end
speck.jit.wait()
speck.parallel_reduce("k", 1000, {x = x}, "acc += x(i);", OPTS)
emit{k = kstat("k"), jit = speck.info().jit}
]]
      local a = run_ok(env, (code:gsub("OPTS", "{jit = 'tcc'}")))
      local b = run_ok(env_with(env, { SPECK_JIT = "tcc" }), (code:gsub("OPTS", "nil")))
      for _, r in ipairs { a, b } do
        assert.are.equal("tcc", r.k.tier)
        assert.are.equal(0, r.k.tierups)
        assert.are.equal(0, r.k.compiles.cc)
        assert.are.equal(0, r.k.cache_hits)
        assert.are.equal(31, r.k.launches)
      end
      assert.are.equal("tcc", b.jit)
      assert.are.same({}, (listing(dir)))
    end)

    it("jit = 'cc' runs cc code from the first launch", function()
      local r = run_ok(env, canon_script("cc"))
      assert.are.equal(r.expect, r.r)
      assert.are.equal("cc", r.k.tier)
      assert.are.equal(1, r.k.compiles.cc)
      assert.are.equal(0, r.k.compiles.tcc)
      assert.are.equal(0, r.k.tierups)
      assert.are.equal(1, r.k.launches)
      assert.is_nil(r.k.warning)
    end)

    it("SPECK_JIT=cc sets the default tier; a launch's jit option wins", function()
      local r = run_ok(env_with(env, { SPECK_JIT = "cc" }), [[
local a = canon()
local b = canon({jit = "tcc"}, "other")
emit{a = a, b = b, expect = canon_expect(), k = kstat("canon"), o = kstat("other"),
     jit = speck.info().jit}
]])
      assert.are.equal("cc", r.jit)
      assert.are.equal(r.expect, r.a)
      assert.are.equal(r.expect, r.b)
      assert.are.equal("cc", r.k.tier)
      assert.are.equal(0, r.k.compiles.tcc)
      assert.are.equal(1, r.k.compiles.cc)
      assert.are.equal("tcc", r.o.tier)
      assert.are.equal(0, r.o.compiles.cc)
    end)

    it("speck.initialize{jit = 'cc'} sets the default tier", function()
      local r = run_ok(env, [[
speck.initialize{jit = "cc"}
local a = canon()
emit{a = a, expect = canon_expect(), k = kstat("canon"), jit = speck.info().jit}
]])
      assert.are.equal("cc", r.jit)
      assert.are.equal(r.expect, r.a)
      assert.are.equal("cc", r.k.tier)
      assert.are.equal(0, r.k.compiles.tcc)
      assert.are.equal(1, r.k.compiles.cc)
    end)

    it("speck.initialize rejects an unknown jit", function()
      local _, _, err, status = run(env, [[speck.initialize{jit = "fast"}]])
      assert.are_not.equal(0, status)
      assert.truthy(err:find("unknown jit 'fast'", 1, true), err)
    end)
  end)

  describe("results are bitwise identical between tcc and cc", function()
    local tenv
    before_each(function()
      tenv = env_with(env, { SPECK_SPACE = "openmp", SPECK_THREADS = "2" })
    end)

    it("for every reducer and every dtype it accepts", function()
      -- Each (reducer, dtype) kernel runs first with jit = "tcc", then with
      -- jit = "cc" (the same kernel, switched synchronously to cc code).
      local r = run_ok(tenv, [=[
assert(speck.info().threads == 2, "expected 2 threads")
local n = 4099
local dtypes = {"float64", "float32", "int64", "int32", "int16", "int8",
                "uint64", "uint32", "uint8", "bool"}
local float = {float64 = true, float32 = true}
local unsigned = {uint64 = true, uint32 = true, uint8 = true}
local bodies = {
  sum = "acc += x(i);",
  prod = "acc *= p(i);",
  min = "if (x(i) < acc) acc = x(i);",
  max = "if (x(i) > acc) acc = x(i);",
  minloc = "if (x(i) < acc.val) { acc.val = x(i); acc.loc = i; }",
  maxloc = "if (x(i) > acc.val) { acc.val = x(i); acc.loc = i; }",
  minmax = "if (x(i) < acc.min_val) acc.min_val = x(i); if (x(i) > acc.max_val) acc.max_val = x(i);",
  land = "acc = acc && (x(i) != 0 || i % 2 == 0);",
  lor = "acc = acc || (x(i) == x(0) && i > 0);",
  band = "acc &= x(i) | p(i);",
  bor = "acc |= x(i);",
}
local ops = {"sum", "prod", "min", "max", "minloc", "maxloc", "minmax",
             "land", "lor", "band", "bor"}
local function enc(dt, v)
  if type(v) == "number" and math.type(v) == "float" then
    return string.format("%a", v) .. (dt == "float32" and "f" or "")
  end
  return tostring(v)
end
local data = {}
for _, dt in ipairs(dtypes) do
  local x = speck.View("x", dt, n)
  local p = speck.View("p", dt, n)
  for i = 0, n - 1 do
    local h = (i * 7919) % 1000
    if float[dt] then
      -- magnitudes from 1e-6 to 1e9, both signs: the order of a sum matters
      x[i] = (h - 500) * 10.0 ^ ((i % 7) * 2 - 6) + 1 / (i + 3)
      p[i] = 1 + (h - 500) * 1e-6
    elseif dt == "bool" then
      x[i] = (h % 3) ~= 0
      p[i] = (i % 5) ~= 0
    else
      local s = (i * 37) % 19
      x[i] = unsigned[dt] and s or s - 9
      p[i] = (i % 1001 == 7) and 2 or ((not unsigned[dt] and i % 97 == 5) and -1 or 1)
    end
  end
  data[dt] = {x = x, p = p}
end
-- a witness that order matters for this data: float64 sums forward and
-- backward differ
local fwd, bwd = 0.0, 0.0
for i = 0, n - 1 do fwd = fwd + data.float64.x[i] end
for i = n - 1, 0, -1 do bwd = bwd + data.float64.x[i] end
local res = {order_matters = fwd ~= bwd, cases = {}, bad = {}}
for _, op in ipairs(ops) do
  for _, dt in ipairs(dtypes) do
    if not ((op == "band" or op == "bor") and float[dt]) then
      local label = op .. "_" .. dt
      local red = {op = op, dtype = dt}
      local t = table.pack(speck.parallel_reduce(label, n, data[dt], bodies[op], red, {jit = "tcc"}))
      local tier1 = kstat(label).tier
      local c = table.pack(speck.parallel_reduce(label, n, data[dt], bodies[op], red, {jit = "cc"}))
      local k = kstat(label)
      local a, b = {}, {}
      for j = 1, t.n do a[j] = enc(dt, t[j]) end
      for j = 1, c.n do b[j] = enc(dt, c[j]) end
      res.cases[#res.cases + 1] = label
      local sa, sb = table.concat(a, " "), table.concat(b, " ")
      if sa ~= sb or tier1 ~= "tcc" or k.tier ~= "cc" or k.compiles.tcc ~= 1 or
         k.compiles.cc ~= 1 or k.warning then
        res.bad[#res.bad + 1] = string.format("%s: tcc=[%s] (tier %s) cc=[%s] (tier %s, compiles tcc %d cc %d) %s",
          label, sa, tier1, sb, k.tier, k.compiles.tcc, k.compiles.cc, k.warning or "")
      end
      if op == "sum" and dt == "float64" then res.sum64 = sa end
    end
  end
end
emit(res)
]=])
      assert.is_true(r.order_matters)
      assert.are.equal(11 * 10 - 2 * 2, #r.cases)
      assert.are.same({}, r.bad)
    end)

    it("for a parallel_for computing floats with math builtins", function()
      local r = run_ok(tenv, [=[
local n = 3000
local body = [[
  double v = x(i);
  y(i) = sin(v) * exp(-fabs(v) * 1e-3) + sqrt(fabs(v)) + pow(fabs(v) + 1.0, 0.37)
       + atan2(v, 3.0) + tanh(v * 1e-2) + log(1.0 + fabs(v)) + cos(v) * tan(v * 1e-3)
       + floor(v * 0.5) - ceil(v * 0.25) + fmin(v, 1.0) * fmax(v, -1.0) + v * v / 7.0;
]]
local res = {bad = {}, count = 0}
for _, dt in ipairs {"float64", "float32"} do
  local fmt = dt == "float64" and "<d" or "<f"
  local x = speck.View("x", dt, n)
  local y1 = speck.View("y1", dt, n)
  local y2 = speck.View("y2", dt, n)
  for i = 0, n - 1 do x[i] = (i - n / 2) * 0.731 + 1 / (i + 1) end
  local label = "math_" .. dt
  speck.parallel_for(label, n, {x = x, y = y1}, body, {jit = "tcc"})
  local t1 = kstat(label).tier
  speck.parallel_for(label, n, {x = x, y = y2}, body, {jit = "cc"})
  local k = kstat(label)
  if t1 ~= "tcc" or k.tier ~= "cc" or k.compiles.cc ~= 1 then
    res.bad[#res.bad + 1] = label .. ": tiers " .. t1 .. " -> " .. k.tier
  end
  for i = 0, n - 1 do
    res.count = res.count + 1
    local a, b = string.pack(fmt, y1[i]), string.pack(fmt, y2[i])
    if a ~= b and #res.bad < 10 then
      res.bad[#res.bad + 1] = string.format("%s[%d]: tcc %a cc %a", label, i, y1[i], y2[i])
    end
  end
end
emit(res)
]=])
      assert.are.equal(6000, r.count)
      assert.are.same({}, r.bad)
    end)
  end)

  describe("the disk cache", function()
    it("survives a restart: a second process loads the kernel, compiling nothing", function()
      local a = run_ok(env, canon_script("cc"))
      assert.are.equal(a.expect, a.r)
      assert.are.equal(1, a.k.compiles.cc)
      assert.are.equal(0, a.k.cache_hits)
      local entries = listing(dir)
      assert.are.equal(1, #entries)
      assert.are.equal("600", mode_of(dir .. "/" .. entries[1]))
      assert.are.equal("700", mode_of(dir))
      -- jit = "cc" and the default (auto) both load it
      for _, tier in ipairs { "cc", false } do
        local b = run_ok(env, canon_script(tier or nil))
        assert.are.equal(b.expect, b.r)
        assert.are.equal("cc", b.k.tier)
        assert.are.equal(1, b.k.cache_hits)
        assert.are.equal(0, b.k.compiles.cc)
        assert.are.equal(0, b.k.compiles.tcc)
        assert.is_true(b.cache.enabled)
        assert.are.equal(dir, b.cache.dir)
        assert.is_true(b.cache.size >= fsize(dir .. "/" .. entries[1]))
      end
      -- jit = "tcc" does not use it
      local c = run_ok(env, canon_script("tcc"))
      assert.are.equal("tcc", c.k.tier)
      assert.are.equal(0, c.k.cache_hits)
      assert.are.equal(1, c.k.compiles.tcc)
      -- a background tier-up finds it too
      local d = run_ok(env, [[
for _ = 1, 10 do canon() end
speck.jit.wait()
canon()
emit{k = kstat("canon")}
]])
      assert.are.equal("cc", d.k.tier)
      assert.are.equal(1, d.k.cache_hits)
      assert.are.equal(0, d.k.compiles.cc)
    end)

    it("keys entries by the compiler flags", function()
      run_ok(env, canon_script("cc"))
      local b = run_ok(env_with(env, { SPECK_CFLAGS = "-O1 -ffp-contract=off" }), canon_script("cc"))
      assert.are.equal(b.expect, b.r)
      assert.are.equal(0, b.k.cache_hits)
      assert.are.equal(1, b.k.compiles.cc)
      assert.are.equal(2, #listing(dir))
    end)

    -- process 1 compiles; 'damage' spoils the entry; process 2 must
    -- rebuild it (never load it) and process 3 loads the rebuilt one
    local function rebuilds_after(damage)
      local before = listing(dir)
      local a = run_ok(env, canon_script("cc"))
      assert.are.equal(1, a.k.compiles.cc)
      local entries = listing(dir)
      assert.are.equal(#before + 1, #entries)
      local path
      for _, e in ipairs(entries) do
        local old = false
        for _, b in ipairs(before) do old = old or b == e end
        if not old then path = dir .. "/" .. e end
      end
      damage(path)
      local b = run_ok(env, canon_script("cc"))
      assert.are.equal(b.expect, b.r)
      assert.are.equal("cc", b.k.tier)
      assert.are.equal(1, b.k.compiles.cc)
      assert.are.equal(0, b.k.cache_hits)
      assert.is_nil(b.k.warning)
      local after = listing(dir)
      assert.are.same(entries, after)
      assert.are.equal("600", mode_of(path))
      local c = run_ok(env, canon_script("cc"))
      assert.are.equal(c.expect, c.r)
      assert.are.equal(1, c.k.cache_hits)
      assert.are.equal(0, c.k.compiles.cc)
    end

    it("rebuilds a truncated entry", function()
      rebuilds_after(function(path)
        local s = slurp(path)
        spit(path, s:sub(1, #s // 2))
      end)
    end)

    it("rebuilds an entry that lost only its last bytes", function()
      rebuilds_after(function(path)
        local s = slurp(path)
        spit(path, s:sub(1, #s - 1))
      end)
    end)

    it("rebuilds an empty entry", function()
      rebuilds_after(function(path) spit(path, "") end)
    end)

    it("rebuilds an entry overwritten with garbage", function()
      rebuilds_after(function(path)
        local n = fsize(path)
        local t = {}
        for i = 1, n do t[i] = string.char((i * 131 + 17) % 256) end
        spit(path, table.concat(t))
      end)
    end)

    it("rebuilds an entry with one payload byte flipped", function()
      rebuilds_after(function(path)
        local s = slurp(path)
        local i = 200
        spit(path, s:sub(1, i - 1) .. string.char((s:byte(i) + 1) % 256) .. s:sub(i + 1))
      end)
    end)

    it("rebuilds an entry writable by others (chmod 0666)", function()
      rebuilds_after(function(path) sh("chmod 0666 " .. quote(path)) end)
    end)

    it("rebuilds an entry owned by another user", function()
      if not is_root() then
        pending("needs root to chown a cache entry")
        return
      end
      rebuilds_after(function(path)
        local _, code = sh("chown nobody " .. quote(path) .. " 2>&1")
        assert.are.equal(0, code)
      end)
    end)

    it("rebuilds a foreign entry (another kernel's object under this name)", function()
      run_ok(env, [[emit{r = canon({jit = "cc"}, "other", 500)}]])
      local other = listing(dir)
      assert.are.equal(1, #other)
      rebuilds_after(function(path)
        sh("cp " .. quote(dir .. "/" .. other[1]) .. " " .. quote(path))
      end)
    end)

    it("four processes compiling the same new kernel at once leave one valid entry", function()
      local script = os.tmpname()
      spit(script, PRELUDE .. canon_script("cc"))
      -- each appends its exit status to its output
      local outs = {}
      local par = {}
      for p = 1, 4 do
        outs[p] = os.tmpname()
        par[#par + 1] = "( " .. speck_cmd(env, quote(script)) .. " >" .. quote(outs[p]) ..
                        " 2>&1 </dev/null; echo \"@@STATUS $?\" >>" .. quote(outs[p]) .. " ) &"
      end
      sh(table.concat(par, " ") .. " wait")
      os.remove(script)
      local compiled = 0
      for p = 1, 4 do
        local out = slurp(outs[p])
        os.remove(outs[p])
        assert.truthy(out:find("@@STATUS 0", 1, true), out)
        local r = parse_result(out)
        assert.is_table(r, out)
        assert.are.equal(r.expect, r.r)
        assert.are.equal("cc", r.k.tier)
        assert.are.equal(1, r.k.compiles.cc + r.k.cache_hits)
        assert.is_nil(r.k.warning)
        compiled = compiled + r.k.compiles.cc
      end
      assert.is_true(compiled >= 1)
      local entries, all = listing(dir)
      assert.are.equal(1, #entries)
      assert.are.same(entries, all) -- no temporary files left behind
      local c = run_ok(env, canon_script("cc"))
      assert.are.equal(c.expect, c.r)
      assert.are.equal(1, c.k.cache_hits)
      assert.are.equal(0, c.k.compiles.cc)
    end)

    it("evicts least recently used entries to stay under SPECK_CACHE_MAX", function()
      local cenv = env_with(env, { SPECK_CACHE_MAX = "40K" })
      local function kernels(list)
        local lines = { "local res = {}" }
        for _, m in ipairs(list) do
          lines[#lines + 1] = ("res.k%d = {r = canon({jit = 'cc'}, 'k%d', %d), e = canon_expect(%d), s = kstat('k%d')}")
                              :format(m, m, 100 + m, 100 + m, m)
        end
        lines[#lines + 1] = "res.cache = speck.info().cache emit(res)"
        return table.concat(lines, "\n")
      end
      local function total()
        local t = 0
        for _, e in ipairs(listing(dir)) do t = t + fsize(dir .. "/" .. e) end
        return t
      end
      -- several distinct kernels: the cache never exceeds 40K
      local r = run_ok(cenv, kernels { 1, 2, 3, 4, 5, 6 })
      for m = 1, 6 do
        assert.are.equal(r["k" .. m].e, r["k" .. m].r)
        assert.are.equal("cc", r["k" .. m].s.tier)
      end
      assert.are.equal(40 * 1024, r.cache.max)
      assert.is_true(r.cache.size <= 40 * 1024, tostring(r.cache.size))
      assert.is_true(total() <= 40 * 1024, tostring(total()))
      assert.is_true(#listing(dir) >= 1)
      -- the newest survives
      local s = run_ok(cenv, kernels { 6 })
      assert.are.equal(1, s.k6.s.cache_hits)

      -- least recently *used*: k1 and k2 stored, k1 loaded again, k3 stored
      -- -> k2 goes, k1 stays (entries are ~15K: two fit, three do not)
      sh("rm -f " .. quote(dir) .. "/*.so")
      run_ok(cenv, kernels { 1, 2 })
      local two = listing(dir)
      assert.are.equal(2, #two)
      local one = fsize(dir .. "/" .. two[1])
      if 3 * one <= 40 * 1024 or 2 * one > 40 * 1024 then
        pending("cache entries of " .. one .. " bytes do not fit the LRU scenario")
        return
      end
      sh("sleep 0.02")
      local l = run_ok(cenv, kernels { 1 })
      assert.are.equal(1, l.k1.s.cache_hits)
      sh("sleep 0.02")
      run_ok(cenv, kernels { 3 })
      assert.are.equal(2, #listing(dir))
      local again = run_ok(cenv, kernels { 1, 3, 2 })
      assert.are.equal(1, again.k1.s.cache_hits)
      assert.are.equal(1, again.k3.s.cache_hits)
      assert.are.equal(0, again.k2.s.cache_hits)
      assert.are.equal(1, again.k2.s.compiles.cc)
    end)

    it("an object larger than SPECK_CACHE_MAX still runs on cc, uncached", function()
      -- regression: the entry was evicted by its own commit before it was
      -- loaded, so the kernel fell back to libtcc with a warning
      local r = run_ok(env_with(env, { SPECK_CACHE_MAX = "1K" }), canon_script("cc"))
      assert.are.equal(r.expect, r.r)
      assert.are.equal("cc", r.k.tier)
      assert.are.equal(1, r.k.compiles.cc)
      assert.is_nil(r.k.warning)
      local _, all = listing(dir)
      assert.are.same({}, all)
    end)

    it("counts and evicts every kind of entry: .so, .cubin and .ptx", function()
      -- fake NVRTC entries (payloads are never read here: counting and
      -- eviction go by name, size and age), oldest first, and a file that
      -- is no entry
      local kb = string.rep("x", 1024)
      local fakes = {
        { "00000000000000a1.ptx", "4 hours ago" },
        { "00000000000000a2.cubin", "3 hours ago" },
        { "00000000000000a3.ptx", "2 hours ago" },
        { "00000000000000a4.ptx", "1 hour ago" },
      }
      for _, f in ipairs(fakes) do
        local path = dir .. "/" .. f[1]
        spit(path, string.rep(kb, 10))
        sh("chmod 600 " .. quote(path) .. " && touch -d " .. quote(f[2]) .. " " .. quote(path))
      end
      spit(dir .. "/notes.txt", string.rep(kb, 50))
      local function present()
        local set = {}
        for _, f in ipairs(fakes) do
          local h = io.open(dir .. "/" .. f[1], "rb")
          set[#set + 1] = h ~= nil
          if h then h:close() end
        end
        return set
      end
      -- under the cap: all counted (not the stranger), none removed
      local big = run_ok(env_with(env, { SPECK_CACHE_MAX = "1M" }),
                         "emit(speck.info().cache)")
      assert.are.equal(40 * 1024, big.size)
      assert.are.same({ true, true, true, true }, present())
      -- a lower cap is honoured from the first use: the two oldest go
      local small = run_ok(env_with(env, { SPECK_CACHE_MAX = "25K" }),
                           "emit(speck.info().cache)")
      assert.are.equal(20 * 1024, small.size)
      assert.are.same({ false, false, true, true }, present())
      assert.are.equal(50 * 1024, fsize(dir .. "/notes.txt"))
      -- a new cc entry evicts the least recently used .ptx before itself
      if not speck.info().compilers.cc.available then return end
      local r = run_ok(env_with(env, { SPECK_CACHE_MAX = "25K" }), canon_script("cc"))
      assert.are.equal(r.expect, r.r)
      assert.are.equal(1, #listing(dir))
      local so = fsize(dir .. "/" .. listing(dir)[1])
      if so + 10 * 1024 <= 25 * 1024 then
        assert.are.same({ false, false, false, true }, present())
      else
        assert.are.same({ false, false, false, false }, present())
      end
      assert.is_true(r.cache.size <= 25 * 1024, tostring(r.cache.size))
    end)

    it("SPECK_CACHE_MAX takes bytes or a number with K, M or G", function()
      for value, bytes in pairs { ["100"] = 100, ["1.5K"] = 1536, ["256m"] = 256 << 20,
                                  ["2G"] = 2 << 30, ["0"] = 0 } do
        local r = run_ok(env_with(env, { SPECK_CACHE_MAX = value }),
                         "emit(speck.info().cache)")
        assert.are.equal(bytes, r.max, value)
        assert.is_true(r.enabled, value)
      end
    end)

    it("a malformed SPECK_CACHE_MAX is an error naming the variable", function()
      for _, value in ipairs { "12q", "-1", "12KB", "1e3", "0x10", "K", "1.5.2", " 12", "inf" } do
        local want = "SPECK_CACHE_MAX=" .. value ..
                     ": not a size (bytes, or a number with K, M or G)"
        local e = env_with(env, { SPECK_CACHE_MAX = value })
        -- raised by the first compile, whichever tier, as a Lua error
        local r = run_ok(e, [[
local res = {}
for _, jit in ipairs { "tcc", "cc" } do
  local ok, err = pcall(canon, {jit = jit})
  res[jit] = {ok = ok, err = err}
end
res.cache = speck.info().cache
emit(res)
]])
        for _, jit in ipairs { "tcc", "cc" } do
          assert.is_false(r[jit].ok, value)
          assert.truthy(r[jit].err:find("speck.parallel_reduce 'canon': " .. want, 1, true),
                        r[jit].err)
        end
        assert.is_false(r.cache.enabled)
        assert.truthy(r.cache.reason:find(want, 1, true), r.cache.reason)
        -- a script that does not catch it stops with the message, status 1
        local _, out, err, status = run(e, "canon() emit(true)")
        assert.are_not.equal(0, status)
        assert.truthy(err:find(want, 1, true), err)
        assert.falsy(out:find("@@RESULT@@", 1, true))
        local _, all = listing(dir)
        assert.are.same({}, all)
      end
    end)

    it("does not hang on a FIFO or a directory under an entry's name", function()
      local a = run_ok(env, canon_script("cc"))
      assert.are.equal(1, a.k.compiles.cc)
      local name = listing(dir)[1]
      local path = dir .. "/" .. name
      for _, make in ipairs { "mkfifo", "mkdir" } do
        sh("rm -f " .. quote(path) .. " && " .. make .. " " .. quote(path))
        local r = run_ok(env, canon_script("cc"))
        assert.are.equal(r.expect, r.r)
        assert.are.equal("cc", r.k.tier)
        assert.are.equal(0, r.k.cache_hits)
        assert.is_nil(r.k.warning)
        sh("rm -rf " .. quote(path))
      end
    end)

    it("a synchronous jit = 'cc' compile alongside a background one", function()
      local r = run_ok(env, [[
for _ = 1, 8 do canon(nil, "bg") end        -- queues a background tier-up
local res = {}
for m = 1, 4 do res[m] = canon({jit = "cc"}, "sync" .. m) end
speck.jit.wait()
canon(nil, "bg")
local ks = {}
for m = 1, 4 do ks[m] = kstat("sync" .. m) end
emit{res = res, expect = canon_expect(), bg = kstat("bg"), ks = ks}
]])
      assert.are.equal("cc", r.bg.tier)
      assert.are.equal(1, r.bg.tierups)
      assert.is_nil(r.bg.warning)
      for m = 1, 4 do
        assert.are.equal(r.expect, r.res[m])
        assert.are.equal("cc", r.ks[m].tier)
        assert.is_nil(r.ks[m].warning)
      end
      assert.are.equal(5, #listing(dir))
    end)

    it("a process exiting during a background compile exits cleanly", function()
      local _, out, err, status = run(env, [[
for _ = 1, 8 do canon() end
io.write("done\n")
]])
      assert.are.equal(0, status, err)
      assert.truthy(out:find("done", 1, true))
    end)

    it("SPECK_CACHE=off disables it; kernels still work at jit = 'cc'", function()
      local oenv = env_with(env, { SPECK_CACHE = "off" })
      for _ = 1, 2 do
        local r = run_ok(oenv, canon_script("cc"))
        assert.is_false(r.cache.enabled)
        assert.is_string(r.cache.reason)
        assert.is_nil(r.cache.dir)
        assert.are.equal(r.expect, r.r)
        assert.are.equal("cc", r.k.tier)
        assert.are.equal(1, r.k.compiles.cc)
        assert.are.equal(0, r.k.cache_hits)
      end
      local _, all = listing(dir)
      assert.are.same({}, all)
      local out = info_text(oenv)
      assert.truthy(out:find("SPECK_CACHE=off", 1, true), out)
    end)

    it("defaults to $XDG_CACHE_HOME/speck, else ~/.cache/speck, created 0700", function()
      local r = run_ok({ XDG_CACHE_HOME = dir .. "/xdg" }, canon_script("cc"))
      assert.is_true(r.cache.enabled)
      assert.are.equal(dir .. "/xdg/speck", r.cache.dir)
      assert.are.equal("700", mode_of(dir .. "/xdg/speck"))
      assert.are.equal(1, #listing(dir .. "/xdg/speck"))
      local h = run_ok({ HOME = dir .. "/home" }, canon_script("cc"))
      assert.are.equal(dir .. "/home/.cache/speck", h.cache.dir)
      assert.are.equal("700", mode_of(dir .. "/home/.cache/speck"))
      assert.are.equal(1, #listing(dir .. "/home/.cache/speck"))
    end)

    it("refuses a directory writable by others", function()
      local d = dir .. "/open"
      sh("mkdir " .. quote(d) .. " && chmod 777 " .. quote(d))
      local r = run_ok({ SPECK_CACHE_DIR = d }, canon_script("cc"))
      assert.is_false(r.cache.enabled)
      assert.truthy(r.cache.reason:find("writable", 1, true), r.cache.reason)
      assert.are.equal(r.expect, r.r)
      assert.are.equal("cc", r.k.tier)
      assert.are.equal(0, r.k.cache_hits)
      local _, all = listing(d)
      assert.are.same({}, all) -- nothing written there, not even temporaries
      local out = info_text({ SPECK_CACHE_DIR = d })
      assert.truthy(out:find("writable", 1, true), out)
    end)

    it("refuses a directory owned by another user", function()
      if not is_root() then
        pending("needs root to chown the cache directory")
        return
      end
      local d = dir .. "/theirs"
      sh("mkdir -m 700 " .. quote(d) .. " && chown nobody " .. quote(d))
      local r = run_ok({ SPECK_CACHE_DIR = d }, canon_script("cc"))
      assert.is_false(r.cache.enabled)
      assert.truthy(r.cache.reason:find("owned", 1, true), r.cache.reason)
      assert.are.equal(r.expect, r.r)
      local _, all = listing(d)
      assert.are.same({}, all)
    end)

    it("is disabled with a message in --info when the directory cannot be made", function()
      local e = { SPECK_CACHE_DIR = "/dev/null/x" }
      local out, code = info_text(e)
      assert.are.equal(0, code)
      assert.truthy(out:find("/dev/null/x", 1, true), out)
      assert.truthy(out:find("disabled", 1, true), out)
      assert.truthy(out:match("enabled:%s+false"), out)
      local r = run_ok(e, canon_script("cc"))
      assert.is_false(r.cache.enabled)
      assert.are.equal(r.expect, r.r)
      assert.are.equal("cc", r.k.tier)
    end)
  end)

  describe("without a working compiler", function()
    it("stays on libtcc when PATH has no C compiler; --info says so", function()
      local bin = dir .. "/bin"
      sh("mkdir " .. quote(bin))
      for _, c in ipairs { "cc", "gcc", "clang" } do
        sh("ln -s /nonexistent/" .. c .. " " .. quote(bin .. "/" .. c))
      end
      local e = env_with(env, { PATH = bin })
      local out, code = info_text(e)
      assert.are.equal(0, code)
      assert.truthy(out:find("libtcc", 1, true), out)
      assert.truthy(out:match("cc:%s+available:%s+false"), out)
      local r = run_ok(e, [[
local info = speck.info()
local a = canon()
for _ = 1, 20 do canon() end
speck.jit.wait()
canon()
local b = canon({jit = "cc"}, "forced")
emit{cc = info.compilers.cc, a = a, b = b, expect = canon_expect(),
     k = kstat("canon"), f = kstat("forced")}
]])
      assert.is_false(r.cc.available)
      assert.is_string(r.cc.reason)
      assert.is_nil(r.cc.path)
      assert.are.equal(r.expect, r.a)
      assert.are.equal(r.expect, r.b)
      assert.are.equal("tcc", r.k.tier)
      assert.are.equal(0, r.k.compiles.cc)
      assert.are.equal("tcc", r.f.tier)
      assert.are.equal(0, r.f.compiles.cc)
      assert.is_string(r.f.warning)
      assert.is_true(#r.f.warning > 0)
    end)

    it("a failing compiler (bad SPECK_CFLAGS) leaves the kernel on libtcc with a warning", function()
      local e = env_with(env, { SPECK_CFLAGS = "-fno-such-flag" })
      local r = run_ok(e, [[
local a = canon({jit = "cc"})
local b = canon({jit = "cc"})
for _ = 1, 20 do canon(nil, "bg") end
speck.jit.wait()
local c = canon(nil, "bg")
emit{a = a, b = b, c = c, expect = canon_expect(), k = kstat("canon"), bg = kstat("bg"),
     flags = speck.info().compilers.cc.flags}
]])
      assert.are.equal("-fno-such-flag", r.flags)
      assert.are.equal(r.expect, r.a)
      assert.are.equal(r.expect, r.b)
      assert.are.equal(r.expect, r.c)
      for _, k in ipairs { r.k, r.bg } do
        assert.are.equal("tcc", k.tier)
        assert.are.equal(0, k.compiles.cc)
        assert.are.equal(1, k.compiles.tcc)
        assert.are.equal(0, k.tierups)
        assert.is_string(k.warning)
        assert.is_true(#k.warning > 0)
      end
      local _, all = listing(dir)
      assert.are.same({}, all) -- no entries, no temporaries
    end)

    it("a missing SPECK_CC leaves the kernel on libtcc with a warning", function()
      local e = env_with(env, { SPECK_CC = "/nonexistent/cc" })
      local r = run_ok(e, [[
local a = canon({jit = "cc"})
emit{a = a, expect = canon_expect(), k = kstat("canon"), cc = speck.info().compilers.cc}
]])
      assert.are.equal(r.expect, r.a)
      assert.is_false(r.cc.available)
      assert.truthy(r.cc.reason:find("/nonexistent/cc", 1, true), r.cc.reason)
      assert.are.equal("tcc", r.k.tier)
      assert.are.equal(0, r.k.compiles.cc)
      assert.is_string(r.k.warning)
      assert.is_true(#r.k.warning > 0)
      local out = info_text(e)
      assert.truthy(out:find("/nonexistent/cc", 1, true), out)
    end)
  end)
end)
