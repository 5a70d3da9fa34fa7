-- capture_spec.lua: replayed launch sequences (speck.graph_capture; issue
-- 31 item 1). On every space: a captured function's launches, deep_copy
-- and fills replayed n times (a counter view incremented by a captured
-- kernel: n replays, n increments), a parameter that changes per replay
-- passed through a view, warm = false, the handle's info, free and
-- tostring, no compile on replay (speck.jit.stats), and bad input with
-- exact messages: whatever needs the host during a capture (a reduction,
-- a scan, a fence, an element access from Lua, a view allocated, a launch
-- or deep_copy on an instance, a nested capture) is refused naming
-- speck.graph_capture and what was done, the capture is abandoned and the
-- VM stays usable; a freed handle, a non-function, bad options and
-- counts. On the host back ends nothing is recorded (a replay runs the
-- function again); in the cuda suite (SPECK_SPACE=cuda, SPECK_CUDA_UVM=1)
-- the launches are recorded into a device graph: info says recorded with
-- its nodes, the replays do not go through the launch path (the kernels'
-- launch counts stay), and a deep_copy to host memory is refused.
local speck = require "speck"

local INFO = speck.info()
local GPU = INFO.spaces.cuda and INFO.spaces.cuda.available
local ON_CUDA = INFO.default_space == "cuda" and GPU
local ACTIVE = speck.Instance():space()

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "no error was raised")
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v) end
local function get(v, i) return host(v)[i or 0] end

-- launches of the kernels labelled 'label', summed over their cache entries
local function launches(label)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label then s = s + k.launches end
  end
  return s
end

local INC = "c(0) = c(0) + 1;"
local ADD = "d(i) = d(i) + s(0);"

-- the VM is usable after a refused capture: no capture is running (a
-- fence works), a new capture records and replays
local function still_usable()
  speck.fence()
  local c = speck.View("usable", "int64", 1)
  local g = speck.graph_capture(function() speck.parallel_for("cap_inc", 1, {c = c}, INC) end)
  g:replay(2)
  assert.equal(3, get(c))
  g:free()
end

local NEEDS = "speck.graph_capture: %s needs the host during a capture (%s); "
  .. "the capture is abandoned"

describe("speck.graph_capture on " .. ACTIVE, function()
  it("replays the captured launches n times: n replays, n increments", function()
    local c = speck.View("counter", "int64", 1)
    local d = speck.View("twice", "int64", 1)
    local g = speck.graph_capture(function()
      speck.parallel_for("cap_inc", 1, {c = c}, INC)
      speck.parallel_for("cap_twice", 1, {d = d}, "d(0) = d(0) + 2;")
    end, {label = "step"})
    -- the warm run before the recording ran the function once
    assert.equal(1, get(c))
    assert.equal(2, get(d))
    local st0 = speck.jit.stats()
    local l0 = launches("cap_inc")
    g:replay(5)
    assert.equal(6, get(c))
    assert.equal(12, get(d))
    g:replay()
    g:replay(0)
    assert.equal(7, get(c))
    -- nothing compiled on replay
    local st1 = speck.jit.stats()
    assert.equal(st0.compiles, st1.compiles)
    local info = g:info()
    assert.equal("step", info.label)
    assert.equal(ACTIVE, info.backend)
    assert.equal(2, info.kernels)
    assert.equal(0, info.copies)
    assert.equal(6, info.replays)
    if ON_CUDA then
      -- recorded into a device graph: replays bypass the launch path
      assert.is_true(info.recorded)
      assert.is_true(info.nodes >= 2, tostring(info.nodes))
      assert.equal(l0, launches("cap_inc"))
      assert.equal("LaunchGraph 'step' (cuda, 2 kernels, recorded)", tostring(g))
    else
      assert.is_false(info.recorded)
      assert.equal(0, info.nodes)
      assert.equal(l0 + 6, launches("cap_inc"))
      assert.equal("LaunchGraph 'step' (" .. ACTIVE .. ", 2 kernels, runs the function again)",
                   tostring(g))
    end
    g:free()
    g:free() -- twice is harmless
    assert.equal("LaunchGraph 'step' (freed)", tostring(g))
  end)

  it("reads what changes per replay from device memory (views), not from the capture",
     function()
    local n = 64
    local s = speck.View("step_size", "int64", 1)
    local d = speck.View("acc", "int64", n)
    speck.deep_copy(s, 1)
    local g = speck.graph_capture(function()
      speck.parallel_for("cap_add", n, {d = d, s = s}, ADD)
    end)
    -- warm run: +1; then +3, +3, +10
    speck.deep_copy(s, 3)
    g:replay(2)
    speck.deep_copy(s, 10)
    g:replay(1)
    local h = host(d)
    for i = 0, n - 1 do assert.equal(17, h[i]) end
    g:free()
  end)

  it("captures deep_copy and fills between views the back end reaches", function()
    local a = speck.View("ca", "float64", 100)
    local b = speck.View("cb", "float64", 100)
    local g = speck.graph_capture(function()
      speck.deep_copy(a, 0.5)
      speck.parallel_for("cap_scale", 100, {a = a}, "a(i) = a(i) * (i + 1);")
      speck.deep_copy(b, a)
    end)
    speck.deep_copy(b, -1)
    g:replay(3)
    local h = host(b)
    for i = 0, 99 do assert.equal(0.5 * (i + 1), h[i]) end
    assert.equal(1, g:info().kernels)
    assert.equal(2, g:info().copies)
    g:free()
  end)

  it("captures MDRange launches and team launches with scratch on both levels", function()
    local m = speck.View("cm", "int64", {6, 5})
    local L = 9
    local t = speck.View("ct", "int64", L)
    local g = speck.graph_capture(function()
      speck.parallel_for("cap_md", speck.MDRangePolicy({0, 0}, {6, 5}), {m = m},
                         "m(i, j) = m(i, j) + 10 * i + j;")
      speck.parallel_for("cap_team", speck.TeamPolicy(L, 1, 1,
          {scratch = {per_team = {8, 0}, per_thread = {0, 16}}}), {t = t}, [[
        const int64_t r = team.league_rank;
        int64_t *s = (int64_t *)team_scratch(team, 0, 8);
        int64_t *p = (int64_t *)thread_scratch(team, 1, 16);
        s[0] = r;
        p[0] = 2 * r;
        team_barrier(team);
        t(r) = t(r) + s[0] + p[0];
      ]])
    end)
    g:replay(3)
    local hm, ht = host(m), host(t)
    for i = 0, 5 do for j = 0, 4 do assert.equal(4 * (10 * i + j), hm(i, j)) end end
    for r = 0, L - 1 do assert.equal(4 * 3 * r, ht[r]) end
    assert.equal(2, g:info().kernels)
    g:free()
  end)

  it("captures a library call made of launches (blas.axpy)", function()
    local blas = require "speck.blas"
    local x = speck.View("bx", "float64", 300)
    local y = speck.View("by", "float64", 300)
    speck.deep_copy(x, 1.5)
    local g = speck.graph_capture(function() blas.axpy(2.0, x, y) end)
    g:replay(3)
    local h = host(y)
    for i = 0, 299 do assert.equal(12.0, h[i]) end
    g:free()
  end)

  it("with warm = false runs nothing at the capture", function()
    local c = speck.View("cold", "int64", 1)
    local g = speck.graph_capture(function()
      speck.parallel_for("cap_inc", 1, {c = c}, INC)
    end, {warm = false})
    assert.equal(0, get(c))
    g:replay(4)
    assert.equal(4, get(c))
    assert.equal(4, g:info().replays)
    g:free()
  end)

  it("raises the function's own error as it was and abandons the capture", function()
    assert.equal("boom", err_of(speck.graph_capture, function() error("boom", 0) end))
    still_usable()
  end)
end)

describe("speck.graph_capture refuses what needs the host on " .. ACTIVE, function()
  local c = speck.View("rc", "int64", 4)

  it("a reduction, a scan", function()
    assert.equal("speck.parallel_reduce 'cap_sum': "
      .. NEEDS:format("parallel_reduce 'cap_sum'", "its result comes back to the host"),
      err_of(speck.graph_capture, function()
        speck.parallel_for("cap_inc", 1, {c = c}, INC)
        return speck.parallel_reduce("cap_sum", 4, {c = c}, "acc += c(i);")
      end))
    still_usable()
    assert.equal("speck.parallel_scan 'cap_scan': "
      .. NEEDS:format("parallel_scan 'cap_scan'", "its total comes back to the host"),
      err_of(speck.graph_capture, function()
        speck.parallel_scan("cap_scan", 4, {c = c}, "acc += c(i); if (final) c(i) = acc;")
      end))
    still_usable()
  end)

  it("a fence, an element access from Lua", function()
    assert.equal("speck.fence: "
      .. NEEDS:format("speck.fence()", "it waits for the device's work"),
      err_of(speck.graph_capture, function() speck.fence() end))
    still_usable()
    local access = NEEDS:format("an element access from Lua",
                                "the host would see the memory before a replay writes it")
    if speck.host_accessible(c:space()) then
      assert.equal("View 'rc': " .. access,
                   err_of(speck.graph_capture, function() return c[0] end))
      assert.equal("View 'rc': " .. access,
                   err_of(speck.graph_capture, function() c[1] = 5 end))
    end
    still_usable()
  end)

  it("allocating a view", function()
    assert.equal("speck.View 'tmp': " .. NEEDS:format("allocating view 'tmp'",
      "a replay reuses the capture's memory: allocate before it"),
      err_of(speck.graph_capture, function() speck.View("tmp", "float64", 8) end))
    still_usable()
  end)

  it("a launch or a deep_copy on an instance", function()
    local inst = speck.Instance()
    assert.equal("speck.parallel_for 'cap_inst': speck.graph_capture: launch 'cap_inst' on "
      .. "an instance: a capture records the default instance only; the capture is abandoned",
      err_of(speck.graph_capture, function()
        speck.parallel_for("cap_inst", 4, {c = c}, "c(i) = i;", {instance = inst})
      end))
    local e = speck.View("re", "int64", 4)
    assert.equal("speck.deep_copy: speck.graph_capture: deep_copy on an instance: a capture "
      .. "records the default instance only; the capture is abandoned",
      err_of(speck.graph_capture, function() speck.deep_copy(e, c, {instance = inst}) end))
    still_usable()
  end)

  it("a deep_copy with host memory where the back end cannot reach it", function()
    local h = speck.View("hostside", "int64", 4, {space = "host"})
    local f = function() speck.deep_copy(h, c) end
    if ON_CUDA then
      assert.equal("speck.deep_copy: " .. NEEDS:format(
        "a deep_copy with view 'hostside' (space host)", "the replay runs on the back end alone"),
        err_of(speck.graph_capture, f))
    else -- the host back ends reach host memory: recorded as a copy
      local g = speck.graph_capture(f)
      assert.equal(1, g:info().copies)
      g:free()
    end
    still_usable()
  end)

  it("a nested capture, a replay during a capture", function()
    local nested = "speck.graph_capture: a capture is already running (captures do not "
      .. "nest); the capture is abandoned"
    assert.equal(nested, err_of(speck.graph_capture, function()
      speck.graph_capture(function() end)
    end))
    local g = speck.graph_capture(function() speck.parallel_for("cap_inc", 1, {c = c}, INC) end)
    assert.equal("LaunchGraph:replay 'graph': " .. nested,
                 err_of(speck.graph_capture, function() g:replay() end))
    g:free()
    still_usable()
  end)
end)

describe("speck.graph_capture's bad input", function()
  it("is refused with the function's name", function()
    assert.equal("speck.graph_capture: expects a function, got number",
                 err_of(speck.graph_capture, 3))
    assert.equal("speck.graph_capture: expects a function, got no value",
                 err_of(speck.graph_capture))
    assert.equal("speck.graph_capture: options must be a table, got string",
                 err_of(speck.graph_capture, function() end, "warm"))
    assert.equal("speck.graph_capture: unknown option 'wram' (valid: label, warm)",
                 err_of(speck.graph_capture, function() end, {wram = true}))
    assert.equal("speck.graph_capture: option 'warm' must be a boolean, got number",
                 err_of(speck.graph_capture, function() end, {warm = 1}))
    assert.equal("speck.graph_capture: option 'label' must be a string, got table",
                 err_of(speck.graph_capture, function() end, {label = {}}))
  end)

  it("replays, infos and counts are checked", function()
    local ran = 0
    local g = speck.graph_capture(function() ran = ran + 1 end, {label = "empty"})
    -- a recording back end ran it twice: the warm run, then the recording
    assert.equal(ON_CUDA and 2 or 1, ran)
    g:replay(2)
    assert.equal(0, g:info().kernels)
    assert.equal("LaunchGraph:replay 'empty': the count must be a non-negative integer, got -1",
                 err_of(g.replay, g, -1))
    assert.equal("LaunchGraph:replay 'empty': the count must be a non-negative integer, got 1.5",
                 err_of(g.replay, g, 1.5))
    assert.equal("LaunchGraph:replay 'empty': the count must be a non-negative integer, got string",
                 err_of(g.replay, g, "2"))
    assert.equal("LaunchGraph:replay: expects a LaunchGraph (from speck.graph_capture), got table",
                 err_of(g.replay, {}))
    g:free()
    assert.equal("LaunchGraph:replay 'empty': the launch graph was freed", err_of(g.replay, g))
    assert.equal("LaunchGraph:info 'empty': the launch graph was freed", err_of(g.info, g))
    still_usable()
  end)
end)
