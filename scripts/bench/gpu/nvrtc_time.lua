-- nvrtc_time.lua: what a new CUDA kernel costs to compile, and what a
-- compiled one costs to load from the disk cache.
--
--   speck nvrtc_time.lua [N]        driver: N new kernels of each kind
--   speck nvrtc_time.lua probe SEED N   (internal: one process's work)
--
-- The process's first kernel is timed apart (NVRTC's one-time set-up,
-- beside the warm-up thread's PCH). Each kind (range for, range reduce,
-- team for) then gets N kernels no cache has seen (their bodies carry a seed), compiled in one process; a second
-- process with the same seed then finds them all in the disk cache. The
-- numbers are each kernel's 'compile_seconds' (speck.jit.stats): the
-- whole JIT path from the spec to an image, NVRTC plus, for a reduction,
-- the host half of the accumulator and the disk-cache write; and the
-- process CPU time of making the kernel (os.clock: steady where other
-- work shares the cores). On a machine
-- with a CUDA device the kernels are launched on it (space cuda); without
-- one they are compiled only (speck.kernel{target = "cuda"}), which needs
-- libnvrtc alone (SPECK_NVRTC_ARCH=sm_90 makes that a cubin, as on an
-- H100; NVRTC_TIME_COMPILE_ONLY=1 compiles only where a device exists).
-- SPECK_CACHE_DIR is a fresh folder for the run unless set.
-- With a device the first call of each kernel (compile, load, launch)
-- minus its second call is shown too, as nvrtc_peer.py measures CuPy.
-- Prints "RESULT name value" lines (milliseconds) and a small table.
local mode = arg[1]

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  return s[(#s + 1) // 2]
end

local KINDS = {"for", "reduce", "team"}

-- one process: compile (or load) N kernels of each kind with 'seed'
local function probe(seed, n)
  local gpu = speck.info().spaces.cuda.available and os.getenv("NVRTC_TIME_COMPILE_ONLY") == nil
  if gpu then speck.initialize{space = "cuda"} end
  local times = {["for"] = {}, reduce = {}, team = {}}
  local first = {["for"] = {}, reduce = {}, team = {}}
  local cpu = {["for"] = {}, reduce = {}, team = {}}
  local hits = 0
  local x = speck.View("x", "float64", 1024)
  -- the process's first kernel (NVRTC's one-time set-up, beside the
  -- warm-up thread's): timed apart, as nvrtc_peer.py times CuPy's
  local t00 = speck.Timer()
  speck.kernel("nvrtc_first", "range", {x = x}, ("x(i) = %d.25;"):format(seed),
               gpu and {} or {target = "cuda"})
  print(("PROBEFIRST %.4f"):format(t00:seconds() * 1e3))
  for r = 1, n do
    local tag = ("%d.0 + %d"):format(seed, r)
    local work = {
      ["for"] = {"range", {x = x}, ("x(i) = %s + i;"):format(tag), {}},
      reduce = {"range", {x = x}, ("acc += x(i) * (%s);"):format(tag),
                {pattern = "reduce"}},
      team = {"team", {x = x},
              ("TEAM_FOR(j, 0, 4) { x(team.league_rank * 4 + j) = %s; }"):format(tag),
              {}},
    }
    for _, kind in ipairs(KINDS) do
      local w = work[kind]
      local label = ("nvrtc_%s_%d"):format(kind, r)
      local opts = w[4]
      if not gpu then opts.target = "cuda" end
      local t, c0 = speck.Timer(), os.clock()
      local k = speck.kernel(label, w[1], w[2], w[3], opts)
      cpu[kind][#cpu[kind] + 1] = (os.clock() - c0) * 1e3
      if gpu then
        -- first call (compile, load, launch) minus a second call
        local pol = w[1] == "team" and speck.TeamPolicy(8, 1) or 1024
        k(pol, w[2])
        speck.fence()
        local t1 = t:seconds()
        k(pol, w[2])
        speck.fence()
        local t2 = t:seconds()
        first[kind][#first[kind] + 1] = (t1 - (t2 - t1)) * 1e3
      end
    end
  end
  speck.fence()
  for _, s in ipairs(speck.jit.stats().per_kernel) do
    local kind, r = s.label:match("^nvrtc_(%a+)_(%d+)$")
    if kind then
      times[kind][#times[kind] + 1] = s.compile_seconds * 1e3
      hits = hits + s.cache_hits
    end
  end
  for _, kind in ipairs(KINDS) do
    local t = times[kind]
    print(("PROBE %s %d %.4f %.4f %.4f %.4f"):format(kind, hits, median(t),
          math.min(table.unpack(t)), #first[kind] > 0 and median(first[kind]) or 0,
          median(cpu[kind])))
  end
end

if mode == "probe" then
  probe(tonumber(arg[2]), tonumber(arg[3]))
  return
end

local n = tonumber(arg[1]) or 5
local bin = os.getenv("SPECK_BIN") or arg[-1]
local script = arg[0]
local dir = os.getenv("SPECK_CACHE_DIR")
local own = not dir
if own then
  dir = os.tmpname()
  os.remove(dir)
end
local seed = os.time() % 100000 * 1000 + math.random(0, 999)
-- a word for sh: single-quoted, so no $(...), `...` or \ in a path runs
-- (Lua's %q is a double-quoted string, which sh expands)
local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function run()
  local cmd = ("SPECK_CACHE_DIR=%s %s %s probe %d %d"):format(shq(dir), shq(bin), shq(script),
                                                              seed, n)
  local p = assert(io.popen(cmd, "r"))
  local out = {}
  for line in p:lines() do
    local kind, _, med, mn, fc, cpu = line:match("^PROBE (%a+) (%d+) (%S+) (%S+) (%S+) (%S+)")
    local pf = line:match("^PROBEFIRST (%S+)")
    if pf then
      out.first_in_process = tonumber(pf)
    elseif kind then
      out[kind] = {tonumber(med), tonumber(mn), tonumber(fc), tonumber(cpu)}
    else
      print(line)
    end
  end
  assert(p:close(), "probe failed")
  return out
end
local first, again = run(), run()
if own then os.execute("rm -rf -- " .. shq(dir)) end
local info = speck.info()
print(("%s, NVRTC %s, arch %s, %d kernels per kind"):format(
  info.spaces.cuda.available and "device" or "compile only",
  info.compilers.nvrtc.version or "-", os.getenv("SPECK_NVRTC_ARCH") or "device/default", n))
print("| kernel | first compile, median (min) ms | its CPU time, ms | first call - second call, ms | disk-cache load, median ms |")
print("| --- | ---: | ---: | ---: | ---: |")
print(("RESULT nvrtc_first_in_process_ms %.4f"):format(first.first_in_process))
for _, kind in ipairs(KINDS) do
  print(("| %s | %.1f (%.1f) | %.1f | %s | %.3f |"):format(kind, first[kind][1], first[kind][2],
        first[kind][4], first[kind][3] > 0 and ("%.1f"):format(first[kind][3]) or "-",
        again[kind][1]))
  print(("RESULT nvrtc_%s_ms %.4f"):format(kind, first[kind][1]))
  print(("RESULT cache_%s_ms %.4f"):format(kind, again[kind][1]))
end
