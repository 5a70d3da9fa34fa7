-- faults_spec.lua: a fault inside a kernel body on a host back end -- a
-- store far out of range, an integer division by zero, a stack overflow
-- (a large array among the body's locals) -- is the launch's error
-- "speck.<pattern> '<label>': the body faulted (...)", at both JIT tiers
-- and for every pattern and policy; the VM goes on: the next launch runs
-- and the views keep their data. A body stuck in an endless loop (one
-- iteration that never ends) is stopped by SIGINT from a child process
-- within 100 ms, and the interrupt is answered once: the next launch
-- runs. (docs/hardening.md, "Faults and endless loops".)
-- host-only: this file checks the host back ends; the cuda suite reports
-- it pending
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("faults in host kernel bodies", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local speck = require "speck"
local SPACE = os.getenv("SPECK_SPACE") or "openmp"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "the launch did not fail")
  return tostring(e)
end

-- the exact message with the address (and stack size) as patterns
local ADDR = "0x%x+"
local MSG = {
  access = "the body faulted %(invalid memory access at " .. ADDR .. "%)",
  divide = "the body faulted %(integer division by zero or overflow%)",
  stack = "the body faulted %(stack overflow at " .. ADDR ..
          ": the body's locals need more than the thread's stack of %d+ KiB%)",
}

-- far below the view: unmapped in a plain build and under AddressSanitizer
-- (whose heap and shadow lie above); far above could land in ASan's heap
local FAR = "x(i - 100000000000) = 1;"
local DIV = "x(i) = (double)(7 / z);"
local BIG = "volatile double big[1 << 24]; big[0] = i; big[(1 << 24) - 1] = 1; x(i) = big[0];"

describe("faults in kernel bodies on " .. SPACE, function()
  local keep, x
  before_each(function()
    keep = speck.View("keep", "float64", 1000)
    keep:fill(3)
    x = speck.View("x", "float64", 64)
  end)

  -- after every fault: a correct launch runs in the same VM, 'keep' kept
  local function still_works(tag)
    speck.parallel_for("works_" .. tag, 64, {x = x}, "x(i) = 2 * i;")
    assert.are.equal(126, x(63))
    assert.are.equal(3 * 1000, speck.parallel_reduce("sum_keep", 1000, {keep = keep},
                                                     "acc += keep(i);"))
  end

  for _, tier in ipairs({"tcc", "cc"}) do
    local opts = {jit = tier}
    local cases = {
      {"parallel_for", "far_" .. tier, 64, {x = x}, FAR, "access"},
      {"parallel_for", "div_" .. tier, 64, {x = x, z = 0}, DIV, "divide"},
      {"parallel_for", "stack_" .. tier, 64, {x = x}, BIG, "stack"},
      {"parallel_reduce", "rfar_" .. tier, 1000, {x = x},
       "acc += x(-i * 100000000);", "access"},
      {"parallel_scan", "sdiv_" .. tier, 1000, {x = x, z = 0},
       "acc += 7 / (z + (i == 500 ? 0 : 1));", "divide"},
      {"parallel_for", "mdfar_" .. tier, "md", {x = x},
       "x(-i * 1000000000 + j) = 1;", "access"},
      {"parallel_for", "tfar_" .. tier, "team1", {x = x},
       "if (team.league_rank == 5) x(-100000000000) = 1;", "access"},
      {"parallel_reduce", "tdiv_" .. tier, "team1", {x = x, z = 0},
       "acc += 7 / (z + (team.league_rank == 3 ? 0 : 1));", "divide"},
    }
    if SPACE == "openmp" then
      -- one member of a team of two faults between two barriers: its
      -- partner waiting in the second barrier leaves too
      cases[#cases + 1] = {"parallel_for", "t2far_" .. tier, "team2", {x = x},
        "team_barrier(team); if (team.team_rank == 1) x(-100000000000) = 1; team_barrier(team);",
        "access"}
      cases[#cases + 1] = {"parallel_for", "t2stack_" .. tier, "team2", {x = x},
        "team_barrier(team); if (team.team_rank == 0) { volatile double big[1 << 24]; " ..
        "big[0] = 1; big[(1 << 24) - 1] = 1; x(0) = big[0]; } team_barrier(team);", "stack"}
    end
    for _, c in ipairs(cases) do
      local pattern, label, pol, _, body, kind = table.unpack(c)
      it(("%s at the %s tier: %s"):format(label, tier, kind), function()
        local caps = {x = x, z = c[4].z}
        local policy = pol
        if pol == "md" then policy = speck.MDRangePolicy({0, 0}, {8, 8})
        elseif pol == "team1" then policy = speck.TeamPolicy(16, 1)
        elseif pol == "team2" then policy = speck.TeamPolicy(16, 2) end
        local e = err_of(speck[pattern], label, policy, caps, body, opts)
        -- libtcc's code names the body line (all these bodies are one
        -- line); a stack overflow may fault in the frame's set-up, which
        -- is no body line
        local msg = MSG[kind]
        if tier == "tcc" then msg = msg:gsub("%%%)$", ", in body line 1%%)") end
        local want = ("^speck%%.%s '%s': %s$"):format(pattern, label, msg)
        local plain = ("^speck%%.%s '%s': %s$"):format(pattern, label, MSG[kind])
        assert.truthy(e:match(want) or (kind == "stack" and e:match(plain)),
                      e .. "\n(wanted " .. want .. ")")
        still_works(label)
        -- the same body faults again: nothing was left behind
        local e2 = err_of(speck[pattern], label, policy, caps, body, opts)
        assert.truthy(e2:match(want) or (kind == "stack" and e2:match(plain)), e2)
        still_works(label .. "_again")
      end)
    end
  end

  it("a SIGSEGV that no body raised still ends the process (nothing masked)", function()
    -- after a caught fault (the handlers are installed), a SIGSEGV sent
    -- to the process while no body runs goes to the handler that was
    -- there before: the default action (status 139), or a sanitizer's
    -- report (status 1 under make asan)
    local code = [[
local x = speck.View("x", "float64", 4)
pcall(speck.parallel_for, "far", 4, {x = x}, "x(i - 100000000000) = 1;")
speck.parallel_for("ok", 4, {x = x}, "x(i) = 1;")
print("survived")
os.execute("kill -SEGV " .. io.open("/proc/self/stat"):read("l"):match("^(%d+)"))
-- (the kernel may hand the signal to any thread: a pool worker's report
-- and exit can take a moment while this thread goes on)
os.execute("sleep 10")
print("not reached")
]]
    local p = assert(io.popen(("SPECK_SPACE=%s timeout -k 10 60 %s -e '%s' 2>&1; echo status=$?")
                              :format(SPACE, SPECK, code:gsub("'", "'\\''"))))
    local out = p:read("a")
    p:close()
    assert.truthy(out:find("survived", 1, true), out)
    assert.falsy(out:find("not reached", 1, true), out)
    assert.truthy(out:find("status=139", 1, true) or out:find("status=1\n", 1, true), out)
  end)
end)

-- the REPL as a child, fed through stdin (as interrupt_spec.lua)
local function repl(input, envs)
  local inpath, errpath = os.tmpname(), os.tmpname()
  local f = assert(io.open(inpath, "wb"))
  f:write(input)
  f:close()
  local p = assert(io.popen(("env %s timeout -k 10 60 %s <%s 2>%s"):format(envs, SPECK, inpath,
                                                                     errpath)))
  local out = p:read("a")
  p:close()
  f = io.open(errpath)
  local err = f:read("a")
  f:close()
  os.remove(inpath)
  os.remove(errpath)
  return out, err
end

describe("an endless loop in a body on " .. SPACE, function()
  local envs = "SPECK_SPACE=" .. SPACE .. (SPACE == "openmp" and " SPECK_THREADS=2" or "")
  -- ctrl_c(s): a child shell sends SIGINT to the REPL s seconds later,
  -- noting the time it sent it in a file; late() is the time from that
  -- note to now, the launch having returned. The clock is /proc/uptime
  -- (10 ms steps), read by the shell's builtins and by io.open: no
  -- process is started between the two readings
  local PROLOGUE = [[
pid = io.open("/proc/self/stat"):read("l"):match("^(%d+)")
sent = os.tmpname()
function ctrl_c(s) os.execute(("(sleep %g; read t rest < /proc/uptime; echo $t > %s; kill -INT %s) &"):format(s, sent, pid)) end
function now() local f = io.open("/proc/uptime") local t = tonumber(f:read("l"):match("^%S+")) f:close() return t end
function late() local f = io.open(sent) local t = tonumber(f:read("l")) f:close() return now() - t end
x = speck.View("x", "float64", 8)
x:fill(5)
]]
  local LOOPS = {
    {"parallel_for", "spin_for", "8", "while (1) {}"},
    {"parallel_for", "spin_team", "speck.TeamPolicy(4, 1)", "for (;;) { x(0) += 0; }"},
    {"parallel_reduce", "spin_red", "8", "long k = 0; do { k++; } while (k != 0 || 1); acc += k;"},
  }
  -- at the libtcc tier a body is left by a signal, not a poll
  -- (docs/hardening.md "Endless loops"): a goto loop, which no poll
  -- reaches, stops too
  local TCC_LOOPS = {table.unpack(LOOPS)}
  TCC_LOOPS[#TCC_LOOPS + 1] = {"parallel_for", "spin_goto", "8", "again: x(0) += 0; goto again;"}
  for _, tier in ipairs({"tcc", "cc"}) do
    local loops = tier == "tcc" and TCC_LOOPS or LOOPS
    it(("is stopped by SIGINT within 100 ms at the %s tier; the next launch runs"):format(tier),
       function()
      local lines = {PROLOGUE}
      for k, l in ipairs(loops) do
        local label = l[2] .. "_" .. tier
        -- one Ctrl-C per line: the REPL takes a second one in the same
        -- chunk as a request to stop the Lua code
        lines[#lines + 1] = ([[
ctrl_c(0.3) ok, e = pcall(speck.%s, "%s", %s, {x = x}, "%s", {jit = "%s"}) dt = late()
print("case %d", ok, e) print("late %d", dt < 0.1, dt)
speck.parallel_for("after_%d", 8, {x = x}, "x(i) = x(i) + 1;") print("after %d", x(7))
]]):format(l[1], label, l[3], l[4], tier, k, k, k, k)
      end
      lines[#lines + 1] = "print('done')"
      local out, err = repl(table.concat(lines, "\n") .. "\n", envs)
      assert.truthy(out:find("done", 1, true), out .. err)
      for k, l in ipairs(loops) do
        local label = l[2] .. "_" .. tier
        local msg = ("case %d\tfalse\t[^\n]*speck%%.%s '%s': interrupted\n"):format(k, l[1],
                                                                                  label)
        assert.truthy(out:find(msg), out .. err)
        assert.truthy(out:find(("late %d\ttrue"):format(k), 1, true), out .. err)
        -- the interrupt was answered once: the next launch ran
        assert.truthy(out:find(("after %d\t%d.0"):format(k, 5 + k), 1, true), out .. err)
      end
    end)
  end
end)

describe("a fault beside an endless loop on " .. SPACE, function()
  for _, tier in ipairs({"tcc", "cc"}) do
    it(("ends the launch with the fault at the %s tier: the looping threads leave"):format(tier),
       function()
      -- work item 0 divides by zero; every other one loops for ever: the
      -- looping threads are made to leave (polls at the cc tier, a signal
      -- at the libtcc tier), the launch reports the fault, the VM goes on
      local x = speck.View("x", "float64", 64)
      local e = err_of(speck.parallel_for, "fault_spin_" .. tier, 64, {x = x, z = 0},
                       "if (i == 0) x(0) = (double)(7 / z); while (1) {}", {jit = tier})
      assert.are.equal(("speck.parallel_for 'fault_spin_%s': the body faulted (integer division by zero or overflow%s)")
                       :format(tier, tier == "tcc" and ", in body line 1" or ""), e)
      speck.parallel_for("after_fault_spin_" .. tier, 64, {x = x}, "x(i) = 3;", {jit = tier})
      assert.are.equal(3, x(63))
    end)
  end
end)

describe("the line of a fault on " .. SPACE, function()
  it("is named at the libtcc tier, the body's own line", function()
    local x = speck.View("x", "float64", 8)
    local body = "double a = 1;\nif (i == 3)\n  x(i) = (double)(7 / z);\nx(i) = a;"
    assert.are.equal("speck.parallel_for 'line_div': the body faulted (integer division by zero or overflow, in body line 3)",
                     err_of(speck.parallel_for, "line_div", 8, {x = x, z = 0}, body, {jit = "tcc"}))
    body = "double a = 1;\n\n\nx(i - 100000000000) = a;\nx(i) = 2;"
    local e = err_of(speck.parallel_for, "line_far", 8, {x = x}, body, {jit = "tcc"})
    assert.truthy(e:match("^speck%.parallel_for 'line_far': the body faulted %(invalid memory access at 0x%x+, in body line 4%)$"), e)
    -- the cc tier's code carries no line table: no line
    e = err_of(speck.parallel_for, "line_far_cc", 8, {x = x}, body, {jit = "cc"})
    assert.truthy(e:match("^speck%.parallel_for 'line_far_cc': the body faulted %(invalid memory access at 0x%x+%)$"), e)
  end)
end)
