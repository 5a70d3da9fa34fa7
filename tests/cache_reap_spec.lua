-- cache_reap_spec.lua: a process killed mid-compile leaves nothing
-- running and nothing for ever (issue 30). A speck process compiling at
-- the cc tier (SPECK_CC: a stand-in compiler that notes its pid and
-- sleeps) is killed with SIGKILL; its compiler is killed too (the
-- compile's guardian, PR_SET_PDEATHSIG); the temporary files it left in
-- the cache directory are reaped by the next process once they are older
-- than a minute, their owner gone -- and only those. (docs/hardening.md,
-- "The cache".)
-- host-only: this file checks the host back ends (the cc tier); the cuda
-- suite reports it pending
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("the cache after a killed compile", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local SPACE = os.getenv("SPECK_SPACE") or "openmp"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return out
end
local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end
-- running: a process that exists and is not a zombie
local function running(pid)
  local f = io.open("/proc/" .. pid .. "/stat")
  if not f then return false end
  local st = f:read("l")
  f:close()
  return st and st:match("^%d+ %b() (%a)") ~= "Z"
end
local function sleep(s) os.execute("sleep " .. s) end

describe("the cache after a compile killed by SIGKILL on " .. SPACE, function()
  local dir = os.tmpname()
  os.remove(dir)
  local cache = dir .. "/cache"
  setup(function()
    assert(os.execute("mkdir -p " .. quote(dir) .. " && mkdir -m 700 " .. quote(cache)))
    local f = assert(io.open(dir .. "/fakecc", "w"))
    f:write([[#!/bin/sh
case "$1" in --version) echo "fakecc 1.0"; exit 0;; esac
echo $$ > "$FAKECC_PIDFILE"
exec sleep 60
]])
    f:close()
    assert(os.execute("chmod +x " .. quote(dir .. "/fakecc")))
  end)
  teardown(function() os.execute("rm -rf " .. quote(dir)) end)

  it("kills the compiler, and the next process reaps what was left", function()
    local pidfile = dir .. "/cc.pid"
    local code = 'local x = speck.View("x", "float64", 4) ' ..
                 'speck.parallel_for("k", 4, {x = x}, "x(i) = 1;", {jit = "cc"})'
    local envs = ("SPECK_SPACE=%s SPECK_CC=%s FAKECC_PIDFILE=%s SPECK_CACHE_DIR=%s"):format(
      SPACE, quote(dir .. "/fakecc"), quote(pidfile), quote(cache))
    local speck_pid = sh(("env %s %s -e %s >/dev/null 2>&1 & echo $!"):format(
      envs, SPECK, quote(code))):match("%d+")
    assert.truthy(speck_pid)
    for _ = 1, 100 do
      if exists(pidfile) then break end
      sleep(0.1)
    end
    local f = assert(io.open(pidfile), "the compiler never started")
    local cc_pid = f:read("l"):match("%d+")
    f:close()
    assert.truthy(running(cc_pid), "the compiler is not running")
    os.execute("kill -KILL " .. speck_pid)
    local gone = false
    for _ = 1, 50 do
      if not running(cc_pid) then gone = true break end
      sleep(0.1)
    end
    assert.truthy(gone, "the compiler outlived its process (pid " .. cc_pid .. ")")

    -- the files the killed process left: .tmp-<its pid>-...
    local left = {}
    for name in sh("ls -A " .. quote(cache)):gmatch("[^\n]+") do
      if name:find("^%.tmp%-" .. speck_pid .. "%-") then left[#left + 1] = name end
    end
    assert.truthy(#left > 0, "no temporary file was left to reap")
    -- older than a minute, owner gone: reaped; a fresh one of the same
    -- owner and an old one whose owner lives (pid 1) are kept
    for _, name in ipairs(left) do
      os.execute("touch -d '2 minutes ago' " .. quote(cache .. "/" .. name))
    end
    local fresh = ("%s/.tmp-%s-speck-fresh.c"):format(cache, speck_pid)
    local alive = cache .. "/.tmp-1-speck-alive.c"
    io.open(fresh, "w"):close()
    io.open(alive, "w"):close()
    os.execute("touch -d '2 minutes ago' " .. quote(alive))
    assert(os.execute(("env SPECK_SPACE=%s SPECK_CACHE_DIR=%s %s -e %s >/dev/null"):format(
      SPACE, quote(cache), SPECK, quote('speck.parallel_for("r", 4, {}, "")'))))
    for _, name in ipairs(left) do
      assert.falsy(exists(cache .. "/" .. name), name .. " was not reaped")
    end
    assert.truthy(exists(fresh), "a file younger than a minute was reaped")
    assert.truthy(exists(alive), "a file of a live process was reaped")
  end)
end)
