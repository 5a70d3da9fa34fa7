-- fib.lua: Fibonacci with one task per call on speck.task's scheduler
-- (seed 003 ch. 2): a task spawns its two children, respawns itself to
-- run again once both are done (when_all), then adds their results.
--   speck examples/fib.lua [n] [single|multiple]
local speck = require "speck"
local task = require "speck.task"

local n = tonumber(arg and arg[1]) or 27
local sched = task.Scheduler{queue = arg and arg[2] or "multiple"}

local fib = sched:functor("fib", {n = "int64", f1 = "future", f2 = "future"}, "int64", [[
  if (self.n < 2) task_return(self.n);
  if (future_is_null(self.f1)) {               /* first run: fork */
    self.f1 = task_spawn(fib, {.n = self.n - 1});
    self.f2 = task_spawn(fib, {.n = self.n - 2});
    task_respawn(when_all(self.f1, self.f2));  /* run again after both */
    return;
  }
  task_return(future_get(self.f1) + future_get(self.f2));   /* join */
]])

sched:compile()   -- compile the functor first (the JIT), then time
local t0 = speck.now()
local f = sched:spawn(fib, {n = n})
sched:wait()
local dt = speck.now() - t0
local st = sched:stats()
print(("fib(%d) = %d: %d tasks (%d respawns, %d steals) in %.3f s, %.1f M tasks/s on %d threads")
      :format(n, f:get(), st.tasks, st.respawns, st.steals, dt, st.tasks / dt / 1e6, st.threads))
print(("task memory high-water mark: %d bytes"):format(st.pool_high_water))
