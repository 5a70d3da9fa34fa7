-- speck/task.lua: task parallelism (seed 003 ch. 2-3): a scheduler of
-- task functors whose bodies are dialect code run by the host back end's
-- threads (kernels/task/), futures, priorities, team tasks, the memory
-- pool. Every operation is one call into speck.core's 'task' bindings;
-- errors name the function, the object and what is wrong.
local core = require "speck.core"
local C = core.task

local task = {}

-- -- errors -------------------------------------------------------------------
local user_level, fail = require("speck.raise")("speck.task.")
local check_opts = require "speck.opts"

-- call C, its errors raised at the user's line and named "speck.task.<what>"
local function call(f, ...)
  local r = table.pack(pcall(f, ...))
  if r[1] then return table.unpack(r, 2, r.n) end
  local msg = tostring(r[2]):gsub("^[^\n]-:%d+: ", "", 1)
  error("speck.task." .. msg, user_level())
end

-- -- Scheduler ------------------------------------------------------------------
local Scheduler = {}
Scheduler.__index = Scheduler
Scheduler.__name = "speck.task.Scheduler"

local DEFAULT_MEMORY = 64 * 1024 * 1024

--- task.Scheduler{space =, memory = bytes, queue = "single" | "multiple"}
function task.Scheduler(opts)
  opts = check_opts("speck.task.Scheduler", opts, {"memory", "queue", "space"}, user_level())
  local space = opts.space
  if space ~= nil and type(space) ~= "string" then
    fail("Scheduler", "space must be a back end's name, got %s", type(space))
  end
  local memory = opts.memory or DEFAULT_MEMORY
  if math.type(memory) ~= "integer" and not (type(memory) == "number" and memory == math.floor(memory)) then
    fail("Scheduler", "memory must be a whole number of bytes, got %s", tostring(memory))
  end
  if memory <= 0 then fail("Scheduler", "memory %d is not positive", memory) end
  local queue = opts.queue or "multiple"
  if queue ~= "single" and queue ~= "multiple" then
    fail("Scheduler", "queue must be \"single\" or \"multiple\", got %s", tostring(queue))
  end
  local s = call(C.scheduler, space, math.tointeger(memory), queue)
  return setmetatable({_s = s, _functors = {}}, Scheduler)
end

--- sched:functor(label, fields, result_type | nil, body)
function Scheduler:functor(label, fields, ret, body)
  if type(label) ~= "string" then
    fail("Scheduler:functor", "label must be a string, got %s", type(label))
  end
  if type(fields) ~= "table" then
    fail("Scheduler:functor", "'%s': fields must be a table, got %s", label, type(fields))
  end
  if ret ~= nil and type(ret) ~= "string" then
    fail("Scheduler:functor", "'%s': the result type must be a dtype name or nil, got %s",
         label, type(ret))
  end
  if type(body) ~= "string" then
    fail("Scheduler:functor", "'%s': body must be a string, got %s", label, type(body))
  end
  local idx = call(self._s.functor, self._s, label, fields, ret, body)
  local f = setmetatable({label = label, index = idx, sched = self},
                         {__name = "speck.task.Functor",
                          __tostring = function() return "functor '" .. label .. "'" end})
  self._functors[label] = f
  return f
end

local PRIO = {high = true, regular = true, low = true}

--- sched:spawn(functor, fields [, {priority =, team =}]) -> future
function Scheduler:spawn(f, fields, opts)
  if type(f) ~= "table" or f.sched == nil or f.index == nil then
    fail("Scheduler:spawn", "expected a functor of sched:functor, got %s", type(f))
  end
  if f.sched ~= self then
    fail("Scheduler:spawn", "functor '%s' belongs to another scheduler", f.label)
  end
  if fields ~= nil and type(fields) ~= "table" then
    fail("Scheduler:spawn", "'%s': fields must be a table, got %s", f.label, type(fields))
  end
  local prio, team = "regular", false
  if opts ~= nil then
    check_opts("speck.task.Scheduler:spawn", opts, {"priority", "team"}, user_level(), f.label)
    prio = opts.priority or "regular"
    if not PRIO[prio] then
      fail("Scheduler:spawn", "'%s': priority must be \"high\", \"regular\" or \"low\", got %s",
           f.label, tostring(prio))
    end
    team = opts.team and true or false
  end
  if self._functors[f.label] ~= f then -- declared again after it failed
    fail("Scheduler:spawn", "functor '%s' did not compile and is forgotten (declare it again)",
         f.label)
  end
  return call(self._s.spawn, self._s, f.label, fields, prio, team)
end

--- sched:wait(): run every spawned task to completion
function Scheduler:wait() call(self._s.wait, self._s) end

--- sched:stats() -> {tasks, respawns, steals, pool_high_water, pool_in_use,
--- spawned, threads}
function Scheduler:stats() return call(self._s.stats, self._s) end

--- sched:compile(): compile the functors declared so far now
function Scheduler:compile() call(self._s.compile, self._s) end

--- sched:close(): free the scheduler (its futures can no longer be read)
function Scheduler:close() self._s:close() end
Scheduler.__close = Scheduler.close

-- -- MemoryPool -----------------------------------------------------------------
--- task.MemoryPool(bytes [, {superblock = bytes}]): a pool a kernel captures
--- ({mp = pool}) and uses with pool_alloc(mp, bytes) / pool_free(mp, p)
function task.MemoryPool(bytes, opts)
  -- a whole number of bytes, 2^20 as well as 1048576 (as View and
  -- Scheduler{memory =} take it)
  local function whole(v) return math.type(v) == "float" and (math.tointeger(v) or v) or v end
  bytes = whole(bytes)
  if math.type(bytes) ~= "integer" then
    fail("MemoryPool", "bytes must be an integer, got %s", tostring(bytes))
  end
  local sb = 0
  if opts ~= nil then
    check_opts("speck.task.MemoryPool", opts, {"superblock"}, user_level())
    sb = whole(opts.superblock or 0)
    if math.type(sb) ~= "integer" then
      fail("MemoryPool", "superblock must be an integer, got %s", tostring(sb))
    end
  end
  return call(C.pool, bytes, sb)
end

return task
