-- task_join_spec.lua: speck.task's respawn on a when_all written in the
-- call, 'task_respawn(when_all(a, b, ...) [, prio])': host code makes no
-- when_all future for it (kernels/task/functor.c rewrites the call,
-- kernels/task/hsched.c waits on the task's own future fields, or on a
-- when_all made after the body when a dependence is not in a field).
-- Every shape of the call gives what a when_all kept in a variable gives:
-- the results, the respawn counts, the priorities, the messages with
-- their lines, and no task left in the pool.
local speck = require "speck"
local task = require "speck.task"
local HOST_SPACE = ({serial = true, openmp = true})[speck.info().default_space]
local function it_host(name, fn)
  if HOST_SPACE then return it(name, fn) end
  return pending(name .. " (host code only: the GPU's task header has no rewrite)")
end

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local T = dofile(HERE .. "/task_fixtures.lua")
local err_of, fibn = T.err_of, T.fibn

local function no_leak(s)
  collectgarbage()
  collectgarbage()
  assert.are.equal(0, s:stats().pool_in_use)
end

-- fib written twice: the when_all in the respawn call, and kept in a
-- variable first (the general path); both must agree in every count
local function fib_pair(s, call)
  local body = [[
    if (self.n < 2) task_return(self.n);
    if (future_is_null(self.f1)) {
      self.f1 = task_spawn(NAME, {.n = self.n - 1});
      self.f2 = task_spawn(NAME, {.n = self.n - 2});
      CALL
      return;
    }
    task_return(future_get(self.f1) + future_get(self.f2));
  ]]
  local fields = {n = "int64", f1 = "future", f2 = "future"}
  local direct = s:functor("fd", fields, "int64", (body:gsub("NAME", "fd"):gsub("CALL", call)))
  local kept = s:functor("fk", fields, "int64", (body:gsub("NAME", "fk"):gsub("CALL",
    "future all = when_all(self.f1, self.f2); task_respawn(all);")))
  return direct, kept
end

describe("speck.task respawn on a when_all in the call", function()
  for _, call in ipairs{
    "task_respawn(when_all(self.f1, self.f2));",
    "task_respawn ( when_all ( self.f2 , self.f1 ) ) ;",
    "task_respawn(when_all(self.f1, self.f2,));",                 -- a trailing comma
    "task_respawn(when_all(self.f1, self.f1, self.f2, 0));",      -- twice, and a null
    "task_respawn(when_all(self.f1, /* , */ self.f2), TASK_REGULAR);",
  } do
    it_host("counts and results as a kept when_all: " .. call, function()
      local s = task.Scheduler{}
      local direct, kept = fib_pair(s, call)
      for _, n in ipairs{0, 1, 2, 9, 18} do
        local before = s:stats()
        local f = s:spawn(direct, {n = n})
        s:wait()
        local mid = s:stats()
        local g = s:spawn(kept, {n = n})
        s:wait()
        local after = s:stats()
        assert.are.equal(fibn(n), f:get())
        assert.are.equal(fibn(n), g:get())
        assert.are.equal(2 * fibn(n + 1) - 1, mid.tasks - before.tasks)
        assert.are.equal(mid.tasks - before.tasks, after.tasks - mid.tasks)
        assert.are.equal(math.max(fibn(n + 1) - 1, 0), mid.respawns - before.respawns)
        assert.are.equal(mid.respawns - before.respawns, after.respawns - mid.respawns)
      end
      no_leak(s)
    end)
  end

  it_host("keeps the body's lines: a call over several lines, then an error", function()
    local s = task.Scheduler{}
    local f = s:functor("lines", {a = "future", b = "future", w = "int32"}, "int64",
      "if (!self.w) {\n" ..
      "  self.w = 1;\n" ..
      "  task_respawn(\n" ..
      "    when_all(self.a,\n" ..
      "             self.b),\n" ..
      "    TASK_LOW);\n" ..
      "  return;\n" ..
      "}\n" ..
      "task_return(self.nope);\n")
    local err = err_of(s.spawn, s, f, {})
    assert.matches("functor 'lines' line 9", err, 1, true)
  end)

  it_host("waits on futures the body does not keep in a field", function()
    -- a child only a local names (kept in a field after the call), a field
    -- replaced after the call, a when_all inside the call and one kept in
    -- a field: the second run finds every dependence complete (future_get
    -- says so otherwise), and the replaced field's child goes
    local s = task.Scheduler{}
    s:functor("kid", {v = "int64"}, "int64", [[ task_return(self.v); ]])
    local top = s:functor("top", {a = "future", b = "future", all = "future", w = "int32"},
                          "int64", [[
      if (!self.w) {
        self.w = 1;
        future loose = task_spawn(kid, {.v = 5});
        self.a = task_spawn(kid, {.v = 7});
        self.all = when_all(self.a, loose);
        task_respawn(when_all(loose, self.a, when_all(self.all)));
        self.a = task_spawn(kid, {.v = 11});          /* after the call */
        self.b = loose;
        return;
      }
      future_get(self.all);
      task_return(future_get(self.b) * 100 + !future_is_null(self.a));
    ]])
    for _ = 1, 20 do
      local f = s:spawn(top, {})
      s:wait()
      assert.are.equal(501, f:get())
    end
    assert.are.equal(20, s:stats().respawns)
    assert.are.equal(20 * 4, s:stats().tasks)
    no_leak(s)
  end)

  it_host("more dependences than the direct path takes (12 fields)", function()
    local s = task.Scheduler{}
    s:functor("kid", {v = "int64"}, "int64", [[ task_return(self.v); ]])
    local fields, spawns, gets, deps = {w = "int32"}, {}, {}, {}
    for k = 1, 12 do
      local n = ("d%02d"):format(k)
      fields[n] = "future"
      spawns[#spawns + 1] = ("self.%s = task_spawn(kid, {.v = %d});"):format(n, k)
      gets[#gets + 1] = ("future_get(self.%s)"):format(n)
      deps[#deps + 1] = "self." .. n
    end
    local many = s:functor("many", fields, "int64", ([[
      if (!self.w) {
        self.w = 1;
        SPAWNS
        task_respawn(when_all(DEPS), TASK_HIGH);
        return;
      }
      task_return(GETS);
    ]]):gsub("SPAWNS", table.concat(spawns, "\n")):gsub("DEPS", table.concat(deps, ", "))
       :gsub("GETS", table.concat(gets, " + ")))
    for _ = 1, 10 do
      local f = s:spawn(many, {})
      s:wait()
      assert.are.equal(78, f:get())
    end
    assert.are.equal(10, s:stats().respawns)
    no_leak(s)
  end)

  it_host("waits on a when_all kept in a field and on the host's futures", function()
    local s = task.Scheduler{}
    s:functor("kid", {v = "int64"}, "int64", [[ task_return(self.v); ]])
    local top = s:functor("top", {a = "future", b = "future", all = "future", h = "future",
                                  w = "int32"}, "int64", [[
      if (!self.w) {
        self.w = 1;
        self.a = task_spawn(kid, {.v = 3});
        self.b = task_spawn(kid, {.v = 4});
        self.all = when_all(self.a, self.b);
        task_respawn(when_all(self.h, self.all));
        return;
      }
      task_return(future_get(self.a) + future_get(self.b) + future_get(self.h));
    ]])
    local kid = s._functors.kid
    for _ = 1, 10 do
      local h = s:spawn(kid, {v = 40})
      local f = s:spawn(top, {h = h})
      s:wait()
      assert.are.equal(47, f:get())
    end
    no_leak(s)
  end)

  it_host("keeps the dependences of a when_all in a field that only it names", function()
    -- 'loose' is held by the when_all kept in 'all' alone once the body
    -- ends: that when_all takes its own references before the body's go
    local s = task.Scheduler{}
    s:functor("kid", {v = "int64"}, "int64", [[ task_return(self.v); ]])
    local top = s:functor("top", {a = "future", all = "future", w = "int32"}, "int64", [[
      if (!self.w) {
        self.w = 1;
        self.a = task_spawn(kid, {.v = 3});
        future loose = task_spawn(kid, {.v = 4});
        self.all = when_all(self.a, loose);
        task_respawn(when_all(self.a, self.all));
        return;
      }
      future_get(self.all);
      task_return(future_get(self.a));
    ]])
    for _ = 1, 50 do
      local f = s:spawn(top, {})
      s:wait()
      assert.are.equal(3, f:get())
    end
    assert.are.equal(150, s:stats().tasks)
    no_leak(s)
  end)

  it_host("refuses a bad priority as task_respawn does", function()
    local s = task.Scheduler{}
    s:functor("kid", {}, "int64", [[ task_return(1); ]])
    s:functor("rp", {a = "future"}, nil, [[
      self.a = task_spawn(kid, {});
      task_respawn(when_all(self.a), 9);
    ]])
    s:spawn(s._functors.rp, {})
    assert.matches("task_respawn in 'rp': priority 9 is not TASK_HIGH, TASK_REGULAR or TASK_LOW",
                   err_of(s.wait, s), 1, true)
    -- the scheduler goes on
    local f = s:spawn(s._functors.kid, {})
    s:wait()
    assert.are.equal(1, f:get())
  end)

  it_host("runs a high-priority respawn before regular work", function()
    -- the respawned task's priority comes from the call: with one worker
    -- it runs before the low-priority tasks queued before it
    local s = task.Scheduler{space = "serial"}
    local order = speck.View("order", "int64", 64)
    local clock = speck.View("clock", "int64", 1)
    s:functor("mark", {id = "int64", order = order, clock = clock}, nil, [[
      self.order(atomic_fetch_add(&self.clock(0), 1)) = self.id;
    ]])
    s:functor("kid", {}, "int64", [[ task_return(1); ]])
    local top = s:functor("top", {a = "future", w = "int32", order = order, clock = clock},
                          nil, [[
      if (!self.w) {
        self.w = 1;
        self.a = task_spawn(kid, {});
        for (int64_t k = 1; k <= 20; k++) task_spawn(mark, {.id = k}, TASK_LOW);
        task_respawn(when_all(self.a), TASK_HIGH);
        return;
      }
      self.order(atomic_fetch_add(&self.clock(0), 1)) = 100;
    ]])
    s:spawn(top, {})
    s:wait()
    assert.are.equal(21, clock(0))
    assert.are.equal(100, order(0))   -- before every low-priority mark
    local seen = 0
    for k = 1, 20 do seen = seen + order(k) end
    assert.are.equal(210, seen)       -- then every mark, once
    no_leak(s)
  end)
end)
