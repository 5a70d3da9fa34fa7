-- limits_spec.lua: requests larger than the machine are refused before
-- anything is allocated, and a runaway cc-tier compile is bounded in time
-- (SPECK_CC_TIMEOUT) and falls back to the libtcc code with a warning.
-- (Ctrl-C during a long kernel: interrupt_spec.lua.)
-- host-only: this file checks the host back ends (memory, host kernels,
-- the cc tier); the cuda suite reports it pending
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("memory and time limits", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local speck = require "speck"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return tostring(e)
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- run 'code' with bin/speck -e under 'envs'; stdout, stderr, status
local function speck_e(code, envs)
  local errpath = os.tmpname()
  local p = assert(io.popen(("env %s timeout -k 10 120 %s -e %s 2>%s"):format(
    envs or "", quote(SPECK), quote(code), quote(errpath))))
  local out = p:read("a")
  local _, _, status = p:close()
  local f = io.open(errpath)
  local err = f:read("a")
  f:close()
  os.remove(errpath)
  return out, err, status
end

local function meminfo_bytes()
  local f = io.open("/proc/meminfo")
  if not f then return nil end
  local t = f:read("a")
  f:close()
  local ram, swap = t:match("MemTotal:%s+(%d+)"), t:match("SwapTotal:%s+(%d+)")
  return (tonumber(ram) + tonumber(swap or 0)) * 1024
end

describe("memory limits", function()
  local keep = speck.View("keep", "int32", 8)
  for i = 0, 7 do keep:set(i, 10 + i) end
  local function intact()
    for i = 0, 7 do assert.are.equal(10 + i, keep(i)) end
    local s = speck.parallel_reduce("lim_sum", 8, {keep = keep}, "acc += keep(i);")
    assert.are.equal(108, s)
  end

  it("refuses a view larger than the machine's memory before allocating", function()
    local machine = meminfo_bytes()
    if not machine then pending("no /proc/meminfo") return end
    -- twice the machine, as a float64 count: no allocator is asked (with
    -- overcommit it could say yes and the zero fill end the process)
    local n = (machine // 8) * 2
    local e = err_of(speck.View, "huge", "float64", n)
    assert.truthy(e:find(("speck.View 'huge': cannot allocate %d bytes in space 'host' (more than "):format(n * 8), 1, true), e)
    assert.truthy(e:find("GiB", 1, true), e)
    -- uninitialised too, and a rank-3 shape of the same size
    e = err_of(speck.View, "huge", "float64", n, {init = false})
    assert.truthy(e:find("speck.View 'huge': cannot allocate", 1, true), e)
    e = err_of(speck.View, "huge3", "int8", {1024, 1024, machine // (1024 * 1024) * 4})
    assert.truthy(e:find("speck.View 'huge3': cannot allocate", 1, true), e)
    intact()
  end)

  it("refuses a resize or realloc beyond the machine and keeps the view", function()
    local machine = meminfo_bytes()
    if not machine then pending("no /proc/meminfo") return end
    local v = speck.View("v", "float64", 4)
    v:fill(2)
    local n = (machine // 8) * 2
    local e = err_of(speck.resize, v, {n})
    assert.truthy(e:find("speck.resize 'v': cannot allocate", 1, true), e)
    e = err_of(speck.realloc, v, {n})
    assert.truthy(e:find("speck.realloc 'v': cannot allocate", 1, true), e)
    assert.are.same({2, 2, 2, 2}, v:totable())
    intact()
  end)

  it("names the address-space limit under ulimit -v", function()
    if (os.getenv("ASAN_OPTIONS") or os.getenv("TSAN_OPTIONS")) then
      pending("a sanitizer's shadow memory does not fit under ulimit -v")
      return
    end
    -- a shell with a 2 GiB address-space limit runs the script
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[print(select(2, pcall(speck.View, "big", "float64", 2^31)))]])
    f:close()
    local p = io.popen(("sh -c %s 2>&1"):format(
      quote(("ulimit -v 2097152 && exec %s %s"):format(quote(SPECK), quote(script)))))
    local out = p:read("a")
    p:close()
    os.remove(script)
    assert.truthy(out:find("speck.View 'big': cannot allocate 17179869184 bytes in space 'host' " ..
                           "(more than the 2.0 GiB address-space limit of ulimit -v)", 1, true), out)
  end)

  it("keeps to SPECK_MEMORY_MAX, and refuses a malformed one", function()
    local out = speck_e([[print(select(2, pcall(speck.View, "big", "float64", 2^25)));
      local v = speck.View("small", "float64", 2^20):fill(3); print(v(7))]], "SPECK_MEMORY_MAX=64M")
    assert.truthy(out:find("speck.View 'big': cannot allocate 268435456 bytes in space 'host' " ..
                           "(more than SPECK_MEMORY_MAX's 0.06 GiB)", 1, true), out)
    assert.truthy(out:find("\n3.0\n", 1, true), out)
    for _, v in ipairs{"lots", "0", "-5G", "1T"} do
      local _, err, status = speck_e("print(1)", "SPECK_MEMORY_MAX=" .. v)
      assert.are_not.equal(0, status)
      assert.truthy(err:find(("speck: SPECK_MEMORY_MAX=%s: not a size (bytes, or a number with K, M or G; more than 0)"):format(v), 1, true), err)
    end
  end)
end)

describe("cc tier time limit (SPECK_CC_TIMEOUT)", function()
  -- a 'compiler' that answers --version and then hangs (with a child of
  -- its own, which must be killed too)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. quote(dir)))
  local slow = dir .. "/slowcc"
  local f = assert(io.open(slow, "w"))
  f:write("#!/bin/sh\ncase \"$1\" in --version) echo slow-cc 1.0; exit 0;; esac\n" ..
          "sleep 300 &\necho $! >" .. dir .. "/child\nwait\n")
  f:close()
  assert(os.execute("chmod +x " .. quote(slow)))
  teardown(function() os.execute("rm -rf " .. quote(dir)) end)

  local SCRIPT = [[
local x = speck.View("x", "float64", 100)
local t = speck.Timer()
speck.parallel_for("runaway", 100, {x = x}, "x(i) = 2 * i;", {jit = "cc"})
print("seconds", t:seconds())
print("x", x(99))
for _, k in ipairs(speck.jit.stats().per_kernel) do
  if k.label == "runaway" then print("tier", k.tier) print("warning", k.warning) end
end
]]

  it("stops a compile that runs too long; the kernel runs on libtcc code", function()
    local out, err, code = speck_e(SCRIPT, ("SPECK_CACHE=off SPECK_CC=%s SPECK_CC_TIMEOUT=0.5"):format(slow))
    assert.are.equal(0, code, err)
    assert.truthy(out:find("x\t198.0", 1, true), out)
    assert.truthy(out:find("tier\ttcc", 1, true), out)
    assert.truthy(out:find(("warning\t%s ran longer than 0.5 s (SPECK_CC_TIMEOUT) and was stopped; " ..
                            "the kernel keeps its libtcc code"):format(slow), 1, true), out)
    local secs = tonumber(out:match("seconds\t([%d.e-]+)"))
    assert.truthy(secs and secs < 10, out)
    -- the compiler's own child went with it
    local cf = io.open(dir .. "/child")
    if cf then
      local pid = cf:read("l")
      cf:close()
      -- gone, or a zombie nobody has reaped yet (killed all the same)
      local function alive()
        local st = io.open("/proc/" .. pid .. "/stat")
        if not st then return false end
        local state = st:read("a"):match("^%d+ %b() (%a)")
        st:close()
        return state ~= "Z"
      end
      for _ = 1, 20 do
        if not alive() then break end
        os.execute("sleep 0.05")
      end
      assert.is_false(alive(), "the compiler's child survived")
    end
  end)

  it("bounds the background tier-up the same way", function()
    local out, err, code = speck_e([[
local x = speck.View("x", "float64", 100)
for r = 1, 20 do speck.parallel_for("hot", 100, {x = x}, "x(i) += 1;") end
speck.jit.wait()
for r = 1, 5 do speck.parallel_for("hot", 100, {x = x}, "x(i) += 1;") end
print("x", x(7))
for _, k in ipairs(speck.jit.stats().per_kernel) do
  if k.label == "hot" then print("tier", k.tier) print("warning", k.warning) end
end
]], ("SPECK_CACHE=off SPECK_CC=%s SPECK_CC_TIMEOUT=0.3"):format(slow))
    assert.are.equal(0, code, err)
    assert.truthy(out:find("x\t25.0", 1, true), out)
    assert.truthy(out:find("tier\ttcc", 1, true), out)
    assert.truthy(out:find("(SPECK_CC_TIMEOUT) and was stopped", 1, true), out)
  end)

  it("a malformed SPECK_CC_TIMEOUT is an error naming it", function()
    for _, v in ipairs{"abc", "-1", "0", "1e3", "2 s", "100000"} do
      local _, err, code = speck_e("print(1)", "SPECK_CC_TIMEOUT=" .. quote(v))
      assert.are.equal(1, code)
      local what = v == "100000" and "more than 86400 seconds" or "not a positive number of seconds"
      assert.truthy(err:find(("speck: SPECK_CC_TIMEOUT=%s: %s"):format(v, what), 1, true), err)
    end
  end)
end)
