-- interrupt_spec.lua: Ctrl-C (SIGINT) in the REPL during a long host
-- kernel stops it at the next chunk boundary: the launch raises
-- "speck.<pattern> '<label>': interrupted", the REPL carries on with the
-- next line, the views keep their data and the next kernel runs. Every
-- host pattern and policy is interrupted (range, MDRange, teams of one and
-- of two members, static and dynamic, reduce and scan). The REPL runs as
-- a subprocess fed through stdin; each line first asks a background shell
-- to send SIGINT to the REPL 0.3 s later, then starts a kernel that would
-- otherwise run for hours.
-- host-only: this file checks the host back ends (memory, host kernels,
-- the cc tier); the cuda suite reports it pending
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("Ctrl-C in the REPL", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local speck = require "speck"
local SPACE = os.getenv("SPECK_SPACE") or "openmp"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- run the REPL on 'input' (bounded by timeout(1)); stdout, stderr, status
local function repl(input, envs)
  local inpath, errpath = os.tmpname(), os.tmpname()
  local f = assert(io.open(inpath, "wb"))
  f:write(input)
  f:close()
  local cmd = ("env %s timeout -k 10 60 %s <%s 2>%s"):format(envs or "", SPECK, inpath, errpath)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  local err = slurp(errpath)
  os.remove(inpath)
  os.remove(errpath)
  return out, err, code
end

-- the REPL's prologue: 'ctrl_c(s)' sends SIGINT to this process in s
-- seconds; a view whose data every case checks
local PROLOGUE = [[
pid = io.open("/proc/self/stat"):read("l"):match("^(%d+)")
function ctrl_c(s) os.execute(("(sleep %g; kill -INT %s) &"):format(s, pid)) end
keep = speck.View("keep", "float64", 1000)
for i = 0, 999 do keep:set(i, i) end
function intact()
  local s = speck.parallel_reduce("sum_keep", 1000, {keep = keep}, "acc += keep(i);")
  print("intact", s == 499500 and keep(7) == 7)
end
]]

-- Long kernels: a huge index space over a cheap body that never changes
-- 'keep' (it adds zero), each on one line after ctrl_c.
local FOREVER = "1 << 40"
local CASES = {
  {"parallel_for", "a range", ("speck.parallel_for('inf_for', %s, {keep = keep}, 'keep(i %% 1000) += 0;')"):format(FOREVER)},
  {"parallel_for", "a dynamic range", ("speck.parallel_for('inf_dyn', speck.RangePolicy(0, %s, {schedule = 'dynamic', chunk = 1000}), {keep = keep}, 'keep(i %% 1000) += 0;')"):format(FOREVER)},
  {"parallel_reduce", "a reduction", ("speck.parallel_reduce('inf_red', %s, {keep = keep}, 'acc += keep(i %% 1000) * 0;')"):format(FOREVER)},
  {"parallel_scan", "a scan", ("speck.parallel_scan('inf_scan', %s, {keep = keep}, 'acc += keep(i %% 1000) * 0;')"):format(FOREVER)},
  {"parallel_for", "an MDRange", "speck.parallel_for('inf_md', speck.MDRangePolicy({0, 0}, {1 << 30, 1 << 20}), {keep = keep}, 'keep((i + j) % 1000) += 0;')"},
  {"parallel_for", "a team of one", "speck.parallel_for('inf_team', speck.TeamPolicy(1 << 30, 1), {keep = keep}, 'TEAM_FOR(j, 0, 1000) { keep(j) += 0; }')"},
  {"parallel_reduce", "a dynamic team of one", "speck.parallel_reduce('inf_dteam', speck.TeamPolicy(1 << 30, 1, 1, {schedule = 'dynamic'}), {keep = keep}, 'double s = 0; TEAM_REDUCE(sum, j, 0, 1000, s) { s += keep(j) * 0; } acc += s;')"},
}
-- teams of two members agree where to stop (barriers): openmp only
if SPACE == "openmp" then
  CASES[#CASES + 1] = {"parallel_for", "a static team of two",
    "speck.parallel_for('inf_team2', speck.TeamPolicy(1 << 30, 2), {keep = keep}, 'TEAM_FOR(j, 0, 1000) { keep(j) += 0; } team_barrier(team);')"}
  CASES[#CASES + 1] = {"parallel_for", "a dynamic team of two",
    "speck.parallel_for('inf_dteam2', speck.TeamPolicy(1 << 30, 2, 1, {schedule = 'dynamic', chunk = 64}), {keep = keep}, 'TEAM_FOR(j, 0, 1000) { keep(j) += 0; } team_barrier(team);')"}
end

describe("Ctrl-C in the REPL on " .. SPACE, function()
  local envs = "SPECK_SPACE=" .. SPACE .. (SPACE == "openmp" and " SPECK_THREADS=2" or "")

  it("stops each long host kernel at a chunk boundary; views intact", function()
    local lines = {PROLOGUE}
    for k, c in ipairs(CASES) do
      lines[#lines + 1] = ("print('case %d') ctrl_c(0.3) %s"):format(k, c[3])
      lines[#lines + 1] = "intact()"
    end
    lines[#lines + 1] = "print('done')"
    local t0 = os.time()
    local out, err, code = repl(table.concat(lines, "\n") .. "\n", envs)
    assert.truthy(os.time() - t0 < 50, "interrupts took too long")
    assert.truthy(out:find("done", 1, true), out .. err)
    for k, c in ipairs(CASES) do
      assert.truthy(out:find(("case %d\nintact\ttrue\n"):format(k), 1, true),
                    ("%s: %s\n%s"):format(c[2], out, err))
      assert.truthy(err:find(("stdin:1: speck.%s 'inf_"):format(c[1]), 1, true), err)
    end
    -- one "interrupted" launch error per case, nothing else went wrong
    local n = 0
    for _ in err:gmatch("': interrupted\n") do n = n + 1 end
    assert.are.equal(#CASES, n, err)
    assert.falsy(err:find("interrupted!", 1, true), err)
    assert.are.equal(1, code)   -- the REPL on a pipe: failed chunks give 1
  end)

  it("still stops a Lua loop (no kernel running) as lua.c does", function()
    if os.getenv("TSAN_OPTIONS") then
      -- ThreadSanitizer holds a signal until the thread calls into libc,
      -- which a bare Lua loop never does
      pending("signals wait for a libc call under ThreadSanitizer")
      return
    end
    local out, err = repl(PROLOGUE .. "ctrl_c(0.3) while true do end\nintact()\nprint('done')\n", envs)
    assert.truthy(err:find("interrupted!", 1, true), err)
    assert.truthy(out:find("intact\ttrue\ndone", 1, true), out .. err)
  end)

  it("a Lua loop of kernels stops at the next launch", function()
    local out, err = repl(PROLOGUE .. [[
ctrl_c(0.3) local n = 0 while true do speck.parallel_for("short", 1000, {keep = keep}, "keep(i) += 0;") n = n + 1 end
intact()
print('done')
]], envs)
    assert.truthy(err:find("speck.parallel_for 'short': interrupted", 1, true) or
                  err:find("interrupted!", 1, true), err)
    assert.truthy(out:find("intact\ttrue\ndone", 1, true), out .. err)
  end)

  it("ends a launch whose body is still compiling, not the next Lua line", function()
    -- a C compiler that takes 2 s (the cc tier): Ctrl-C at 0.3 s lands
    -- while the body compiles; the launch reports it once compiled
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    local slow = dir .. "/slowcc"
    local f = assert(io.open(slow, "w"))
    f:write('#!/bin/sh\ncase "$1" in --version) exec cc --version;; esac\nsleep 2\nexec cc "$@"\n')
    f:close()
    assert(os.execute("chmod +x " .. slow))
    local out, err = repl(PROLOGUE .. [[
ctrl_c(0.3) speck.parallel_for("compiling", 1000, {keep = keep}, "keep(i) += 0.0 * 3;", {jit = "cc"})
intact()
print('done')
]], envs .. " SPECK_CACHE=off SPECK_CC=" .. slow)
    os.execute("rm -rf " .. dir)
    assert.truthy(err:find("speck.parallel_for 'compiling': interrupted", 1, true), err)
    assert.falsy(err:find("interrupted!", 1, true), err)
    assert.truthy(out:find("intact\ttrue\ndone", 1, true), out .. err)
  end)

  it("answers a request once (C API: speck_interrupt)", function()
    -- in this process: no kernel runs, so nothing stops; the flag stays
    -- until a launch has reported it (that launch leaves views alone) or
    -- it is cleared
    local core = require "speck.core"
    if not core.interrupt then pending("speck.core.interrupt not exposed") return end
    local x = speck.View("xi", "float64", 4)
    x:fill(2)
    assert.are.equal(false, core.interrupt())
    local ok, e = pcall(speck.parallel_for, "after_int", 4, {x = x}, "x(i) = 5;")
    assert.is_false(ok)
    assert.truthy(tostring(e):find("speck.parallel_for 'after_int': interrupted", 1, true), e)
    assert.are.same({2, 2, 2, 2}, x:totable())
    -- reported once: the next launch runs without interrupt_clear
    speck.parallel_for("after_int", 4, {x = x}, "x(i) = 5;")
    assert.are.same({5, 5, 5, 5}, x:totable())
    -- a request cleared before any launch saw it stops nothing
    assert.are.equal(false, core.interrupt())
    core.interrupt_clear()
    speck.parallel_for("after_int", 4, {x = x}, "x(i) = 6;")
    assert.are.same({6, 6, 6, 6}, x:totable())
  end)
end)
