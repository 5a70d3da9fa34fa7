-- speck/random.lua: random pools (Kokkos' Random_XorShift64_Pool and
-- Random_XorShift1024_Pool) and fill_random. Loaded on first use of
-- speck.random.
--
--   local pool = speck.random.Pool(seed [, {kind = "xorshift64" | "xorshift1024",
--                                           states = n, space = s}])
--   speck.parallel_for("mc", n, {rp = pool, hits = hits}, [[
--     auto st = rp.get_state();
--     double x = st.drand(0.0, 1.0), y = st.drand(0.0, 1.0);
--     if (x * x + y * y < 1.0) atomic_add(&hits(0), (int64_t)1);
--     rp.free_state(st);
--   ]])
--   speck.random.fill(view, pool, lo, hi)
--
-- A pool is n generator states in its space (views <name>_st and
-- <name>_lk, with a lock per state); the dialect's words are in
-- dialect/blocks.h ("random pools"). In a body the pool's Kokkos spelling
-- is rewritten here into those words before the body is compiled:
--   auto st = rp.get_state()   ->  rand_state st = rand_get_state(rp)
--   rp.free_state(st)          ->  rand_free_state(rp, st)
--   st.drand() / (hi) / (lo, hi), st.frand(...), st.rand() / (hi) / (lo, hi),
--   st.urand64(), st.normal() / (mean, sd)  ->  rand_drand2(&st, lo, hi) ...
local speck = require "speck"
local check_options = require "speck.opts"
local flat_index = require "speck.flat_index"
-- the bodies: kernels/random/random.sk
local text = require "speck.ktext"
local _, fail = require("speck.raise")("speck.random.")

local M = {}
local Pool = {}
Pool.__index = Pool

local KINDS = {xorshift64 = 1, xorshift1024 = 17}   -- words per state
local DEVICE_STATES = 1 << 18

local function is_pool(x) return getmetatable(x) == Pool end

function Pool:__tostring()
  return ("random.Pool<%s, %d states, seed %d, %s>"):format(self.kind, self.n, self.seed,
                                                            self.space)
end
function Pool:num_states() return self.n end

-- the states of a pool: word j of state i from splitmix64 of (seed, i, j),
-- never all zero (xorshift's one fixed point), made by the body
-- random_pool_seed; seed_word makes word j of state i alike (Lua's
-- integers wrap and its >> is logical, as uint64_t's)
local function seed_word(seed, i, j, w)
  if j == 16 then return 0 end
  local z = seed + 0x9E3779B97F4A7C15 * (i * w + j + 1)
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  z = z ~ (z >> 31)
  return z ~= 0 and z or 0x9E3779B97F4A7C15
end

-- whether kernels run on the host: the default space's views are host views
local function kernels_on_host()
  return speck.View("random.probe", "int32", 0):space() == "host"
end

-- a range policy that runs where views of 'space' live: host views on the
-- host whatever the default space
local function policy_in(space, n)
  if space == "host" then return speck.RangePolicy(0, n, {space = "host"}) end
  return n
end

function M.Pool(seed, opts)
  local fname = "Pool"
  if math.type(seed) ~= "integer" then
    if type(seed) == "number" and seed == math.floor(seed) and math.abs(seed) < 2^63 then
      seed = math.tointeger(seed)
    else
      fail(fname, "seed must be an integer, got %s", tostring(seed))
    end
  end
  opts = check_options("speck.random.Pool", opts, {"kind", "states", "space"}, 2)
  local kind = opts.kind or "xorshift64"
  local w = KINDS[kind]
  if not w then
    fail(fname, "unknown kind '%s' (expected 'xorshift64' or 'xorshift1024')", tostring(kind))
  end
  -- the space views get when none is named (the default space's memory,
  -- which a back end may make managed memory), or the one named
  local probe = speck.View("random.Pool", "int32", 0, opts.space and {space = opts.space})
  local space = probe:space()
  local n = opts.states
  if n == nil then
    n = speck.host_accessible(space) and 4 * math.max(1, speck.info().threads or 1)
        or DEVICE_STATES
  elseif math.type(n) ~= "integer" or n < 1 or n > 1 << 30 then
    fail(fname, "states must be an integer in [1, 2^30], got %s", tostring(n))
  end
  local p = setmetatable({
    kind = kind, n = n, w = w, seed = seed, space = space,
    lk = speck.View("random.Pool_locks", "int32", n + 1, {space = space}),
  }, Pool)
  if space == "host" and not kernels_on_host() then
    -- host states while kernels run on a device (for host code, or a body
    -- compiled for another target): seeded here, as random_pool_seed seeds them
    p.raw = speck.View("random.Pool_states", "int64", n * w, {space = "host"})
    for i = 0, n - 1 do
      for j = 0, w - 1 do p.raw:set(i * w + j, seed_word(seed, i, j, w)) end
    end
    p.st = speck.View("random.Pool_states", "uint64", n * w, {space = "host", data = p.raw})
  else
    p.st = speck.View("random.Pool_states", "uint64", n * w, {space = space, init = false})
    speck.parallel_for("random.Pool_seed", policy_in(space, n),
                       {st = p.st, w = {"int64", w}, seed = {"int64", seed}},
                       text("random_pool_seed"))
  end
  return p
end

-- -- the body's spelling -----------------------------------------------------
local METHODS = {drand = {[0] = 1, 1, 1}, frand = {[0] = 1, 1, 1}, rand = {[0] = 1, 1, 1},
                 urand64 = {[0] = 1}, normal = {[0] = 1, [2] = 1}}
local WORD = {drand = "rand_drand", frand = "rand_frand", rand = "rand_rand",
              urand64 = "rand_urand64", normal = "rand_normal"}

-- the end of the argument list whose '(' is at 'open', and its number of
-- top-level arguments
local function args_of(body, open)
  local depth, commas, nonblank = 0, 0, false
  for k = open, #body do
    local c = body:sub(k, k)
    if c == "(" or c == "[" or c == "{" then
      depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" then
      depth = depth - 1
      if depth == 0 then return k, nonblank and commas + 1 or 0 end
    elseif c == "," and depth == 1 then
      commas = commas + 1
    elseif depth >= 1 and not c:match("%s") then
      nonblank = true
    end
  end
  return nil
end

local function line_of(body, pos)
  local _, n = body:sub(1, pos):gsub("\n", "")
  return n + 1
end

local function rewrite(name, body)
  local P = name:gsub("%p", "%%%0")
  local states, freed = {}, {}
  body = body:gsub("auto(%s+)([%a_][%w_]*)(%s*=%s*)" .. P .. "%s*%.%s*get_state%s*%(%s*%)",
                   function(sp, x, eq)
                     states[x] = true
                     return "rand_state" .. sp .. x .. eq .. "rand_get_state(" .. name .. ")"
                   end)
  body = body:gsub("rand_state(%s+)([%a_][%w_]*)(%s*=%s*)" .. P ..
                   "%s*%.%s*get_state%s*%(%s*%)", function(sp, x, eq)
                     states[x] = true
                     return "rand_state" .. sp .. x .. eq .. "rand_get_state(" .. name .. ")"
                   end)
  body = body:gsub("%f[%w_]" .. P .. "%s*%.%s*get_state%s*%(%s*%)",
                   "rand_get_state(" .. name .. ")")
  body = body:gsub("%f[%w_]" .. P .. "%s*%.%s*free_state%s*%(%s*([%a_][%w_]*)%s*%)()",
                   function(x, pos)
                     freed[#freed + 1] = {x = x, pos = pos}
                     return "rand_free_state(" .. name .. ", " .. x .. ")"
                   end)
  for x in pairs(states) do
    local X = x:gsub("%p", "%%%0")
    local out, at = {}, 1
    while true do
      local s, e, m = body:find("%f[%w_]" .. X .. "%s*%.%s*([%a_][%w_]*)%s*%(", at)
      if not s then break end
      if not METHODS[m] then
        error(("random pool '%s': state '%s' has no method '%s' (body line %d; methods: " ..
               "drand, frand, rand, urand64, normal)"):format(name, x, m, line_of(body, s)), 0)
      end
      local close, nargs = args_of(body, e)
      if not close or not METHODS[m][nargs] then
        error(("random pool '%s': %s.%s takes %s (body line %d)"):format(name, x, m,
              m == "urand64" and "no arguments" or m == "normal" and "0 or 2 arguments"
              or "0, 1 or 2 arguments", line_of(body, s)), 0)
      end
      for _, f in ipairs(freed) do
        if f.x == x and f.pos <= s then
          error(("random pool '%s': state '%s' is used after %s.free_state(%s) (body line %d)")
                :format(name, x, name, x, line_of(body, s)), 0)
        end
      end
      local word = WORD[m] .. (m == "urand64" and "" or tostring(nargs))
      local inner = body:sub(e + 1, close - 1)
      out[#out + 1] = body:sub(at, s - 1) .. word .. "(&" .. x ..
                      (nargs > 0 and ", " .. inner or "") .. ")"
      at = close + 1
    end
    out[#out + 1] = body:sub(at)
    body = table.concat(out)
  end
  return body
end

speck._expanders[Pool] = function(name, p, out)
  out[name .. "_st"], out[name .. "_lk"] = p.st, p.lk
  return ("(void)%s_st.data; (void)%s_lk.data; "):format(name, name),
         function(body) return rewrite(name, body) end, "pool " .. name
end

-- -- fill_random ---------------------------------------------------------------
-- the view's elements in index order (row-major over its extents,
-- whatever its layout) in blocks -- of 16 on the host, of 1 on a GPU --:
-- state i fills blocks i, i + n, i + 2n, ...; the same seed and number of
-- states give the same numbers on the host back ends whatever the thread
-- count, and on a GPU its own
function M.fill(v, pool, lo, hi)
  local fname = "fill"
  if type(v) ~= "userdata" or not pcall(v.dtype, v) then
    fail(fname, "argument 1 must be a view, got %s", type(v))
  end
  if not is_pool(pool) then
    fail(fname, "argument 2 must be a speck.random.Pool, got %s", type(pool))
  end
  if type(lo) ~= "number" or type(hi) ~= "number" or not (lo < hi) then
    fail(fname, "view '%s': the range [%s, %s) is empty or not numbers", v:label(),
         tostring(lo), tostring(hi))
  end
  local dt = v:dtype()
  local float = dt == "float64" or dt == "float32"
  if not float and not (dt:match("^u?int%d+$")) then
    fail(fname, "view '%s': dtype %s cannot be filled with random numbers", v:label(), dt)
  end
  if not float and (math.type(lo) ~= "integer" or math.type(hi) ~= "integer") then
    fail(fname, "view '%s' (%s): lo and hi must be integers", v:label(), dt)
  end
  if v:space() == "host" and not kernels_on_host() then
    fail(fname, "view '%s' is in host memory and kernels run on %s: fill a view of that space",
         v:label(), speck.info().default_space)
  end
  if speck.host_accessible(v:space()) ~= speck.host_accessible(pool.space) and
     (v:space() == "host" or pool.space == "host") then
    fail(fname, "view '%s' is in space '%s', the pool in '%s'", v:label(), v:space(),
         pool.space)
  end
  local decode, idx, total = flat_index(v)
  local ctype = float and "float64" or "int64"
  speck.parallel_for("random.fill", policy_in(v:space(), pool.n),
                     {v = v, rp = pool, w = {"int64", pool.w}, n = {"int64", pool.n},
                      total = {"int64", total}, lo = {ctype, lo}, hi = {ctype, hi}},
                     text(float and "random_fill_float" or "random_fill_int",
                          {DECODE = decode, IDX = idx,
                           BLOCK = v:space() == "host" and "16" or "1"}))
  return v
end

M.is_pool = is_pool
return M
