-- replay.lua: the launch cost per kernel of a sequence of K empty kernels,
-- launched one by one (a speck.kernel handle) and replayed as a captured
-- graph (speck.graph_capture), beside the raw driver-API peer
-- (replay_peer.c: a cuLaunchKernel loop, and its own graph replay), all in
-- this one run on the device.
--   speck replay.lua [K] [ROUNDS] [PEER]
-- K kernels a sequence (100), ROUNDS sequences a measure (200), PEER the
-- built replay_peer (cc -O2 -o replay_peer replay_peer.c -ldl); prints
-- "RESULT name seconds-per-kernel" lines (best of 5 measures after a
-- warm-up), then a Markdown table.
speck.initialize{space = "cuda"}
local K, R = tonumber(arg[1]) or 100, tonumber(arg[2]) or 200
local peer = arg[3]

local function best_of(fn)
  fn()
  speck.fence()
  local best = math.huge
  for _ = 1, 5 do
    local t = speck.Timer()
    fn()
    speck.fence()
    best = math.min(best, t:seconds() / (R * K))
  end
  return best
end

local res = {}
local function result(name, v)
  res[name] = v
  print(("RESULT %s %.9g"):format(name, v))
end

local empty = speck.kernel("empty", "range", {}, "")
local function sequence() for _ = 1, K do empty(1, {}) end end
result("speck_launch_loop", best_of(function() for _ = 1, R do sequence() end end))

local g = speck.graph_capture(sequence, {label = "empty x" .. K})
local info = g:info()
assert(info.kernels == K, "captured " .. info.kernels .. " kernels, not " .. K)
result("speck_graph_replay", best_of(function() g:replay(R) end))
-- a counter kernel: the replays really run (R replays of K increments)
local c = speck.View("counter", "int64", 1, {space = "cuda_uvm"})
local inc = speck.graph_capture(function()
  for _ = 1, K do speck.parallel_for("inc", 1, {c = c}, "c(0) = c(0) + 1;") end
end)
inc:replay(R)
speck.fence()
assert(c[0] == K * (R + 1), ("counter %d, expected %d"):format(c[0], K * (R + 1)))
g:free()
inc:free()

if peer then
  local p = assert(io.popen(("%q %d %d"):format(peer, K, R)))
  for line in p:lines() do
    print(line)
    local name, v = line:match("^RESULT (%S+) (%S+)")
    if name then res[name] = tonumber(v) end
  end
  p:close()
end

local function us(x) return x and ("%.2f"):format(x * 1e6) or "-" end
print(("\n| %d empty kernels a sequence | us per kernel |"):format(K))
print("| --- | --- |")
for _, k in ipairs{"speck_launch_loop", "speck_graph_replay", "raw_launch_loop",
                   "raw_graph_replay"} do
  print(("| %s | %s |"):format(k, us(res[k])))
end
if res.raw_launch_loop then
  print(("\nspeck replayed / raw cuLaunchKernel loop: %.2fx"):format(
    res.speck_graph_replay / res.raw_launch_loop))
end
