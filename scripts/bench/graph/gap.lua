-- gap.lua: speck's six GAP kernels beside the GAP benchmark suite's own
-- programs, side by side in one run.
--
-- Usage: SPECK_SPACE=openmp SPECK_THREADS=2 speck gap.lua GAPBS DIR ROUNDS [OP ...]
--   GAPBS  a build of github.com/sbeamer/gapbs (fetched and built by hand,
--          never committed: bfs, cc, pr, tc, sssp, bc, converter)
--   DIR    where the graphs live: k.sg and kw.wsg, GAP's binary files of
--          the graphs this script builds, written there by its first run
--   OP     bfs cc pr pr32 tc sssp bc (default: all)
-- The graphs: graph.kronecker(SCALE, 16) (Graph500 parameters, seed 1;
-- SCALE from $SCALE, default 20) and, for SSSP, the same graph with
-- paths.lua's weights 1..255; GAP reads the same graphs (its converter's
-- .sg/.wsg of the edge lists written here). One speck process keeps the
-- graphs; each round runs, per operation, speck (its trials in this
-- process) and GAP (one process, its trials; the load not timed) back to
-- back, the order alternating by round and operation. Each side's figure
-- is GAP's: the kernel's time of a trial, not the load.
--   bfs   16 sources of the largest component, the mean (GAP: -n 16, its
--         own sources with arcs, the average)
--   cc    median of 3 (GAP: cc -n 3, Afforest)
--   pr    20 iterations, float64 ranks, median of 3 (GAP: pr -i 20 -t 0
--         -n 3; GAP's ranks are float32)
--   pr32  the same with dtype = "float32"
--   tc    the total, one call (GAP: tc -n 1)
--   sssp  8 sources, automatic delta, the mean (GAP: sssp -n 8 -d 2)
--   bc    2 trials of 4 sources, not normalized, the mean (GAP: bc -i 4 -n 2)
-- Prints a line per round and operation, then per operation the median
-- ratio GAP/speck with its min and max and the median times.
local graph = require "speck.graph"
local weighted = dofile((arg[0]:match("^(.*)/[^/]*$") or ".") .. "/gap_weights.lua")

local GAPBS, DIR = assert(arg[1], "usage: gap.lua GAPBS DIR ROUNDS [OP ...]"), assert(arg[2])
local ROUNDS = tonumber(arg[3]) or 5
local SCALE = tonumber(os.getenv("SCALE")) or 20
local THREADS = os.getenv("SPECK_THREADS") or "2"
local ops = {}
for k = 4, #arg do ops[#ops + 1] = arg[k] end
if #ops == 0 then ops = {"bfs", "cc", "pr", "pr32", "tc", "sssp", "bc"} end
local timer = speck.Timer()

local function exists(p)
  local f = io.open(p, "r")
  if f then f:close() end
  return f ~= nil
end
local function sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local s = p:read("a")
  p:close()
  return s
end

local g = graph.kronecker(SCALE, 16, {seed = 1})
local nv = g:num_vertices()
-- the weights of gap_weights.lua
local gw = weighted(g)

-- GAP's files: edge lists without the header lines, through its converter
local function gap_file(name, h, flag, ext)
  local path = DIR .. "/" .. name .. "." .. ext
  if exists(path) then return path end
  local snap = DIR .. "/" .. name .. ".snap"
  graph.write(snap, h)
  local el = DIR .. "/" .. name .. (ext == "wsg" and ".wel" or ".el")
  assert(os.execute(("grep -v '^#' %s > %s && %s/converter -f %s -s %s %s > /dev/null && rm -f %s %s")
    :format(snap, el, GAPBS, el, flag, path, snap, el)))
  return path
end
local SG = gap_file("k" .. SCALE, g, "-b", "sg")
local WSG = gap_file("kw" .. SCALE, gw, "-wb", "wsg")

-- BFS sources as bench.lua picks them; SSSP and BC sources as paths.lua
local labels = graph.connected_components(g):totable()
local size = {}
for _, l in ipairs(labels) do size[l] = (size[l] or 0) + 1 end
local giant, best = 0, 0
for l, s in pairs(size) do if s > best then giant, best = l, s end end
local rp = g.rowptr:totable()
local bsrc, v = {}, 12345
while #bsrc < 16 do
  v = (v * 1103515245 + 12345) % nv
  if labels[v + 1] == giant and rp[v + 2] > rp[v + 1] then bsrc[#bsrc + 1] = v end
end
local psrc = {}
v = 12345
while #psrc < 8 do
  v = (v * 1103515245 + 12345) % nv
  if rp[v + 2] > rp[v + 1] then psrc[#psrc + 1] = v end
end
labels, rp, size = nil, nil, nil
collectgarbage()

local function median(t)
  local s = {table.unpack(t)}
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end
local function once(f)
  collectgarbage()
  timer:reset()
  f()
  speck.fence()
  return timer:seconds()
end
local function mean_of(list, f)
  local t = 0
  for _, s in ipairs(list) do t = t + once(function() f(s) end) end
  return t / #list
end
local function median_of(k, f)
  local t = {}
  for j = 1, k do t[j] = once(f) end
  return median(t)
end

local speck_side = {
  bfs = function() return mean_of(bsrc, function(s) graph.bfs(g, s) end) end,
  cc = function() return median_of(3, function() graph.connected_components(g) end) end,
  pr = function()
    return median_of(3, function() graph.pagerank(g, {maxiter = 20, tol = 1e-300}) end)
  end,
  pr32 = function()
    return median_of(3, function()
      graph.pagerank(g, {maxiter = 20, tol = 1e-300, dtype = "float32"})
    end)
  end,
  tc = function() return median_of(1, function() graph.triangles(g, {per_vertex = false}) end) end,
  sssp = function() return mean_of(psrc, function(s) graph.sssp(gw, s) end) end,
  bc = function()
    return mean_of({{table.unpack(psrc, 1, 4)}, {table.unpack(psrc, 5, 8)}}, function(s)
      graph.betweenness(g, {sources = s, normalized = false})
    end)
  end,
}
-- GAP: program, arguments, and how its trial times combine
local gap_side = {
  bfs = {"bfs", "-f " .. SG .. " -n 16", "mean"},
  cc = {"cc", "-f " .. SG .. " -n 3", "median"},
  pr = {"pr", "-f " .. SG .. " -i 20 -t 0 -n 3", "median"},
  pr32 = {"pr", "-f " .. SG .. " -i 20 -t 0 -n 3", "median"},
  tc = {"tc", "-f " .. SG .. " -n 1", "median"},
  sssp = {"sssp", "-f " .. WSG .. " -n 8 -d 2", "mean"},
  bc = {"bc", "-f " .. SG .. " -i 4 -n 2", "mean"},
}
local function gap(op)
  local p = assert(gap_side[op], op)
  local out = sh(("OMP_NUM_THREADS=%s %s/%s %s"):format(THREADS, GAPBS, p[1], p[2]))
  local t = {}
  for x in out:gmatch("Trial Time:%s*([%d.]+)") do t[#t + 1] = tonumber(x) end
  assert(#t > 0, "no trial times from GAP's " .. p[1] .. ":\n" .. out)
  if p[3] == "median" then return median(t) end
  local s = 0
  for _, x in ipairs(t) do s = s + x end
  return s / #t
end

-- warm-up: each speck operation once (its kernels compiled or loaded)
for _, op in ipairs(ops) do assert(speck_side[op], "no operation " .. op)() end

local res = {}
for r = 1, ROUNDS do
  for j, op in ipairs(ops) do
    local ts, tg
    if (r + j) % 2 == 0 then
      ts = speck_side[op]()
      tg = gap(op)
    else
      tg = gap(op)
      ts = speck_side[op]()
    end
    res[op] = res[op] or {s = {}, g = {}, q = {}}
    local e = res[op]
    e.s[r], e.g[r], e.q[r] = ts, tg, tg / ts
    print(("round %d %-5s speck %9.4f s  GAP %9.4f s  GAP/speck %.3f  (%s first)")
      :format(r, op, ts, tg, tg / ts, (r + j) % 2 == 0 and "speck" or "GAP"))
    io.stdout:flush()
  end
end
print(("# %d rounds, scale %d, %s threads"):format(ROUNDS, SCALE, THREADS))
for _, op in ipairs(ops) do
  local e = res[op]
  local q = {table.unpack(e.q)}
  table.sort(q)
  print(("%-5s speck %.4f s  GAP %.4f s  GAP/speck median %.3f  (min %.3f, max %.3f)")
    :format(op, median(e.s), median(e.g), median(e.q), q[1], q[#q]))
end
