-- speck.lua: the front end. Re-exports the C core ('speck.core') and adds
-- the Lua-level pieces: execution policies and the Timer.
local core = require "speck.core"

local speck = {}
-- the core's helpers for the library's own modules (binding library
-- calls, complex scalars) stay in speck.core
local library_only = {bind = true, callv = true, complex = true}
for k, v in pairs(core) do
  if not library_only[k] then speck[k] = v end
end

-- -- captures that are containers ---------------------------------------------
-- A capture whose metatable has an expander (speck.UnorderedMap's,
-- speck.random.Pool's) becomes the views it stands for, and the body gets
-- a prefix on its first line; an expander may also return a function that
-- rewrites the body (a pool's Kokkos spelling into the dialect's words),
-- and with it a key naming what the rewrite depends on besides the body:
-- keyed rewrites are remembered per body text, so a launch repeated in a
-- loop pays the rewrite once (a ScatterView's took 27 us a launch).
-- The launch functions are wrapped only once an expander is registered
-- (a launch without containers keeps calling the C functions directly);
-- the wrapped ones raise errors at their caller's line, as those do.
local HERE = debug.getinfo(1, "S").short_src

local memo, memo_n = {}, 0   -- rewritten bodies by keys and text; at most 256

local function expand(caps, body)
  local out, pre, rw, keys
  for k, v in pairs(caps) do
    local ex = type(v) == "table" and speck._expanders[getmetatable(v)]
    if ex then
      if not out then
        out, pre, rw, keys = {}, {}, {}, {}
        for k2, v2 in pairs(caps) do out[k2] = v2 end
      end
      out[k] = nil
      local p, f, key = ex(k, v, out)
      pre[#pre + 1] = p
      if f then
        rw[#rw + 1] = f
        keys[#keys + 1] = key or false
      end
    end
  end
  if not out then return caps, body end
  if type(body) ~= "string" then return out, body end
  -- the captures' order is pairs' order: sorted keys make one memo key
  local keyed = true
  for _, key in ipairs(keys) do keyed = keyed and key end
  -- by the body text (its hash kept with the string) and then the short
  -- key of the settings: no long string is built on a hit
  local mk, byb
  if keyed and #keys > 0 then
    table.sort(keys)
    table.sort(pre)
    mk = table.concat(keys, "\0") .. "\1" .. table.concat(pre)
    byb = memo[body]
    local hit = byb and byb[mk]
    if hit then return out, hit end
  end
  local text = body
  for _, f in ipairs(rw) do body = f(body) end
  body = table.concat(pre) .. body
  if mk then
    if memo_n >= 256 then memo, memo_n, byb = {}, 0, nil end
    if not byb then
      byb = {}
      memo[text] = byb
    end
    byb[mk], memo_n = body, memo_n + 1
  end
  return out, body
end

local function wrap_launches()
  for _, name in ipairs{"parallel_for", "parallel_reduce", "parallel_scan", "kernel"} do
    local f = core[name]
    speck[name] = function(label, policy, caps, body, ...)
      if type(caps) == "table" then
        local ok, c, b = pcall(expand, caps, body)
        if not ok then error(("speck.%s '%s': %s"):format(name, tostring(label), c), 2) end
        caps, body = c, b
      end
      local r = table.pack(pcall(f, label, policy, caps, body, ...))
      if not r[1] then
        local msg = r[2]
        if type(msg) == "string" and msg:sub(1, #HERE + 1) == HERE .. ":" then
          msg = msg:gsub("^[^\n]-:%d+: ", "", 1)
        end
        error(msg, 2)
      end
      return table.unpack(r, 2, r.n)
    end
  end
end

speck._expanders = setmetatable({}, {__newindex = function(t, k, v)
  if next(t) == nil then wrap_launches() end
  rawset(t, k, v)
end})

-- speck.UnorderedMap{capacity, key, value}: speck/umap.lua (loaded on first use)
function speck.UnorderedMap(t)
  require "speck.umap"
  return speck.UnorderedMap(t)
end

-- speck.random: speck/random.lua (loaded on first use)
speck.random = setmetatable({}, {__index = function(t, k)
  local r = require "speck.random"
  setmetatable(t, nil)
  for name, f in pairs(r) do rawset(t, name, f) end
  return rawget(t, k)
end})

-- speck.ScatterView(view [, opts]), speck.contribute(view, sv): speck/scatter.lua
function speck.ScatterView(view, opts)
  require "speck.scatter"
  return speck.ScatterView(view, opts)
end
function speck.contribute(view, sv)
  require "speck.scatter"
  return speck.contribute(view, sv)
end

-- speck.DualView(label, dtype, dims [, opts]): speck/dualview.lua
function speck.DualView(label, dtype, dims, opts)
  require "speck.dualview"
  return speck.DualView(label, dtype, dims, opts)
end

-- -- policies --------------------------------------------------------------
local check_options = require "speck.opts"

-- the options of a policy: errors at the caller of the policy function
local function check_opts(fname, opts, keys)
  local o = check_options(fname, opts, keys, 3)
  return o   -- not a tail call: the levels count this frame
end

local function check_int(fname, what, v)
  if math.type(v) ~= "integer" then
    error(("%s: %s must be an integer, got %s"):format(fname, what, tostring(v)), 3)
  end
end

local AUTO = "auto"

local Policy = {}
Policy.__index = Policy
function Policy:__tostring()
  if self.kind == "range" then
    return ("RangePolicy(%d, %d)"):format(self.begin, self["end"])
  elseif self.kind == "mdrange" then
    return ("MDRangePolicy({%s}, {%s})"):format(table.concat(self.lower, ", "),
                                                table.concat(self.upper, ", "))
  end
  return ("TeamPolicy(%d, %s, %s)"):format(self.league_size,
    self.team_size == AUTO and "auto" or tostring(self.team_size),
    self.vector_length == AUTO and "auto" or tostring(self.vector_length))
end

function speck.RangePolicy(b, e, opts)
  opts = check_opts("speck.RangePolicy", opts, {"chunk", "schedule", "space"})
  check_int("speck.RangePolicy", "begin", b)
  check_int("speck.RangePolicy", "end", e)
  return core.check_policy("speck.RangePolicy",
    setmetatable({kind = "range", begin = b, ["end"] = e,
                  chunk = opts.chunk, schedule = opts.schedule,
                  space = opts.space}, Policy))
end

function speck.MDRangePolicy(lower, upper, opts)
  opts = check_opts("speck.MDRangePolicy", opts, {"space", "tile"})
  if type(lower) ~= "table" or type(upper) ~= "table" then
    error("speck.MDRangePolicy: lower and upper bounds must be tables", 2)
  end
  if #lower ~= #upper or #lower < 2 or #lower > 6 then
    error(("speck.MDRangePolicy: bounds of rank %d and %d (need equal ranks 2..6)")
          :format(#lower, #upper), 2)
  end
  for d = 1, #lower do
    check_int("speck.MDRangePolicy", "bound " .. d, lower[d])
    check_int("speck.MDRangePolicy", "bound " .. d, upper[d])
  end
  return core.check_policy("speck.MDRangePolicy",
    setmetatable({kind = "mdrange", lower = lower, upper = upper,
                  tile = opts.tile, space = opts.space}, Policy))
end

local function auto_or_int(fname, what, v)
  if v == nil or v == "auto" then return AUTO end
  check_int(fname, what, v)
  return v
end

-- TeamPolicy queries (Kokkos' team_size_max / team_size_recommended)
function Policy:team_size_max()
  local mx = core.team_limits()
  return mx
end
function Policy:team_size_recommended()
  local _, rec = core.team_limits()
  return rec
end
function Policy:vector_length_max()
  local _, _, vl = core.team_limits()
  return vl
end
function Policy:scratch_size_max(level)
  local _, _, _, s0, s1 = core.team_limits()
  return (level or 0) == 0 and s0 or s1
end

function speck.TeamPolicy(league_size, team_size, vector_length, opts)
  if type(vector_length) == "table" and opts == nil then
    opts, vector_length = vector_length, nil
  end
  opts = check_opts("speck.TeamPolicy", opts, {"chunk", "schedule", "scratch", "space"})
  check_int("speck.TeamPolicy", "league size", league_size)
  local ts = auto_or_int("speck.TeamPolicy", "team size", team_size)
  local vl = auto_or_int("speck.TeamPolicy", "vector length", vector_length)
  local sc = opts.scratch or {}
  local function pair(t, what)
    if t == nil then return {0, 0} end
    if type(t) ~= "table" then
      error(("speck.TeamPolicy: scratch.%s must be {level0_bytes, level1_bytes}"):format(what), 3)
    end
    return {t[1] or 0, t[2] or 0}
  end
  return core.check_policy("speck.TeamPolicy",
    setmetatable({kind = "team", league_size = league_size, team_size = ts,
                  vector_length = vl, schedule = opts.schedule,
                  chunk = opts.chunk, space = opts.space,
                  scratch_team = pair(sc.per_team, "per_team"),
                  scratch_thread = pair(sc.per_thread, "per_thread")}, Policy))
end

-- -- sorting (kernels/sort/): in place, the comparator a C expression over
-- a and b (true when a comes before b) compiled into the sort
local SORT_OPTS = {"algorithm", "comparator", "descending"}

local function sort_call(fname, entry, t, opts)
  for k, x in pairs(check_options(fname, opts, SORT_OPTS, 3)) do
    if k == "descending" and type(x) ~= "boolean" then
      error(("%s: option descending must be a boolean, got %s"):format(fname, type(x)), 3)
    elseif k ~= "descending" and type(x) ~= "string" then
      error(("%s: option %s must be a string, got %s"):format(fname, k, type(x)), 3)
    end
    t[k] = x
  end
  for _, k in ipairs(entry == "sort.sort" and {"keys"} or {"keys", "values"}) do
    if type(t[k]) ~= "userdata" then
      error(("%s: %s must be a view, got %s"):format(fname, k == "keys" and
            (entry == "sort.sort" and "v" or "keys") or k, type(t[k])), 3)
    end
  end
  local ok, e = pcall(core.call, entry, t, fname)
  if not ok then error(e, 3) end
end

function speck.sort(v, opts)
  sort_call("speck.sort", "sort.sort", {keys = v}, opts)
  return v
end

function speck.sort_by_key(keys, values, opts)
  sort_call("speck.sort_by_key", "sort.sort_by_key", {keys = keys, values = values}, opts)
  return keys, values
end

-- -- help ---------------------------------------------------------------------
-- help(speck.parallel_for) prints the signature (speck/help.lua's table);
-- the REPL binds it to the global 'help'
function speck.help(x) return require("speck.repl").help(x) end

-- -- profile regions (Kokkos Tools' push/pop, no-ops without a tool) ----
speck.profile = {push = core.profile_push, pop = core.profile_pop}

-- -- Timer ------------------------------------------------------------------
local Timer = {}
Timer.__index = Timer
function Timer:seconds() return core.now() - self.t0 end
function Timer:reset() self.t0 = core.now() end
function speck.Timer() return setmetatable({t0 = core.now()}, Timer) end

return speck
