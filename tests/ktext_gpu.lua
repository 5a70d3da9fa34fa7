-- ktext_gpu.lua: run by tests/ktext_spec.lua in a child process. Runs the
-- Lua drivers of stdlib/ (speck.dist through tests/dist/dist_test.lua as
-- one rank, speck.random, ScatterView, UnorderedMap, speck.graph's own
-- launches) with every launch of a driver text (kernels/dist/dist.sk, amg.sk,
-- random/random.sk, scatter/scatter.sk, umap/umap.sk, graph/graph_lua.sk)
-- also compiled for the GPU target: speck.kernel(..., {target = "cuda"}),
-- NVRTC, no device needed, with the launch's own captures and reducers.
-- Prints one line per text, "compiled NAME" or "missed NAME" (no launch
-- ran it), "failed NAME: message" per failed compile, and "nodist" when
-- speck has no MPI (speck.dist cannot run).
local speck = require "speck"
-- the containers' expanders first: they wrap the launch functions, which
-- are wrapped again below
require "speck.random"
require "speck.umap"
require "speck.scatter"
local graph = require "speck.graph"

local FILES = {"kernels/dist/dist.sk", "kernels/dist/amg.sk", "kernels/random/random.sk", "kernels/scatter/scatter.sk",
               "kernels/umap/umap.sk", "kernels/graph/graph_lua.sk"}

-- the driver texts: name -> a matcher of launched bodies
local names, match = {}, {}
local function escape(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end
for _, path in ipairs(FILES) do
  local area = path:match("([%w_]+)/[^/]+%.sk$")
  for line in io.lines(path) do
    local short, flags = line:match("^//:%s*([%w_]+)(.*)$")
    if short and not flags:find("part") then
      local name = area .. "_" .. short
      names[#names + 1] = name
      -- a template: its placeholders' names from kernel_text's refusals
      local vals, text = {}, nil
      for _ = 1, 8 do
        local ok, r = pcall(speck.kernel_text, name, next(vals) and vals or nil)
        if ok then text = r break end
        local p = tostring(r):match("placeholder @([%w_]+)@ has no value")
        if not p then error(r) end
        vals[p] = "\1" .. p .. "\1"
      end
      if next(vals) then
        local pat = "^" .. escape(text):gsub("\1[%w_]+\1", ".-") .. "$"
        match[name] = function(body) return body:match(pat) ~= nil end
      elseif text:sub(-1) == "\n" then -- a body's first lines (graph_arc_ends)
        match[name] = function(body) return body:sub(1, #text) == text end
      else
        match[name] = function(body) return body == text end
      end
    end
  end
end

local compiled, fails, seen, n = {}, {}, {}, 0
for _, fn in ipairs{"parallel_for", "parallel_reduce", "parallel_scan"} do
  local launch = speck[fn]
  speck[fn] = function(label, policy, caps, body, ...)
    local name
    if type(body) == "string" then
      for _, nm in ipairs(names) do
        if match[nm](body) then name = nm break end
      end
    end
    if name and type(caps) == "table" and not seen[label .. "\0" .. body] then
      seen[label .. "\0" .. body] = true
      local extra, opts, o = {...}, {target = "cuda"}, nil
      if fn == "parallel_reduce" then
        opts.pattern, opts.reducer, o = "reduce", extra[1] or "sum", extra[2]
      elseif fn == "parallel_scan" then
        opts.pattern, o = "scan", extra[1]
      else
        o = extra[1]
      end
      for k, v in pairs(o or {}) do
        if k ~= "instance" then opts[k] = v end
      end
      n = n + 1
      local ok, err = pcall(speck.kernel, ("ktext_gpu_%d"):format(n), "range", caps, body, opts)
      if ok then compiled[name] = true else fails[#fails + 1] = name .. ": " .. tostring(err) end
    end
    return launch(label, policy, caps, body, ...)
  end
end

-- speck.dist: the MPI job's test as one rank
if speck.info().spaces.remote.available then
  dofile("tests/dist/dist_test.lua")
  local dist = require "speck.dist" -- int32 ids (widened)
  dist.from_edges(4, speck.View.from({0, 1, 2}, "int32"), speck.View.from({1, 2, 3}, "int32"))
  -- the halo texts of GPU ranks that one rank never launches (it sends
  -- nothing), with dist.lua's captures: the pack, the one-sided put into
  -- a remote view, an export's sums added on the device
  local text = require "speck.ktext"
  local x, i64 = speck.View("x", "float64", 1), speck.View("i", "int64", 1)
  speck.parallel_for("dist_pack", 0, {b = x, sl = i64, x = x}, text("dist_pack"))
  speck.parallel_for("dist_add", 0, {x = i64, d = i64}, text("dist_add"))
  local rb = require("speck.remote").View("rb", "float64", {1, 1}, {layout = "partitioned"})
  speck.parallel_for("dist_put", 0, {rb = rb, pe = i64, off = i64, sl = i64, x = x}, text("dist_put"))
else
  print("nodist")
end

-- speck.random: both generators' seeding, float and integer fills
for _, kind in ipairs{"xorshift64", "xorshift1024"} do
  local pool = speck.random.Pool(7, {kind = kind, states = 4})
  speck.random.fill(speck.View("f", "float64", {3, 4}), pool, 0.0, 1.0)
  speck.random.fill(speck.View("k", "int32", 10), pool, 0, 9)
end

-- ScatterView: every op on float and integer views, duplicated
for _, dt in ipairs{"float64", "int64"} do
  for _, op in ipairs{"sum", "min", "max"} do
    local v = speck.View("s", dt, {4, 3}, {space = "host"})
    local sv = speck.ScatterView(v, {op = op, duplication = "duplicated"})
    speck.contribute(v, sv)
  end
end

-- UnorderedMap: inserts past the capacity (rehash), find, export
local m = speck.UnorderedMap{capacity = 16, value = "float64"}
speck.parallel_for("ktext_gpu_insert", 40, {m = m}, [[
  const int64_t s = umap_insert(m, i * 7);
  if (s >= 0) m_vals(s) = (double)i;
]])
m:rehash(64)
assert(m:find(7))
m:export()

-- speck.graph: integer weights (as float64), user kernels over the arcs
local g = graph.from_edges(4, {0, 1, 2}, {1, 2, 3}, {weights = speck.View.from({1, 2, 3}, "int64")})
graph.forall_edges(g, {x = speck.View("x", "float64", g:num_arcs())}, "x(e) = (double)(u + v);")
graph.reduce_edges(g, {}, "acc += (double)v;")
graph.sssp(g, 0) -- the integer weights kept as their dtype

for _, nm in ipairs(names) do print((compiled[nm] and "compiled " or "missed ") .. nm) end
for _, f in ipairs(fails) do print("failed " .. f) end
