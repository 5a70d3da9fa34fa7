-- nvrtc_host.lua: the host side of a new GPU kernel's first compile,
-- measured without a device: speck's whole JIT path for a new range-for
-- axpy (code generation, NVRTC to a cubin for sm_90, the disk-cache
-- write; speck.kernel{target = "cuda"}) beside plain NVRTC compiling the
-- raw CUDA axpy that CuPy's RawModule compiles (raw_axpy.cu, -arch=sm_90,
-- through nvrtc_probe.c), in alternating rounds of fresh processes.
--
--   speck nvrtc_host.lua [ROUNDS [N]]   driver (5 rounds, 8 kernels)
--   speck nvrtc_host.lua probe SEED N   (internal: one process's kernels)
--
-- Each process compiles N + 1 new kernels (constants no cache has seen);
-- its first compile pays NVRTC's one-time set-up and, for speck, makes
-- the dialect's precompiled header -- on a GPU host the warm-up thread
-- does both while the device starts -- so it is shown apart, and each
-- round's figure is the median of the other N. Times are process CPU
-- time (steady where other work shares the cores) and wall, in ms; the
-- ratio is speck / raw NVRTC, taken per round, then its median and
-- spread over the rounds. Environment: NVRTC_HOST_ARCH (sm_90: as on an
-- H100/H200), NVRTC_HOST_BEFORE (another speck binary, e.g. a build
-- before a change, measured in the same rounds), CC (cc, for
-- nvrtc_probe), NVRTC_HOST_DEVICE (1 or 2, on a GPU host: every process
-- first holds a CUDA context as a speck process on the device does --
-- speck starts the cuda space, whose warm-up thread makes the PCH; the
-- probe runs with PROBE_CUDA=1 or 2, 2 adding managed memory -- so the
-- ratio shows what a context does to NVRTC). Prints a Markdown table and
-- RESULT lines.
local mode = arg[1]

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  return s[(#s + 1) // 2]
end

local function range(t)
  return math.min(table.unpack(t)), math.max(table.unpack(t))
end

if mode == "probe" then
  local seed, n = tonumber(arg[2]), tonumber(arg[3])
  local dev = tonumber(os.getenv("NVRTC_HOST_DEVICE") or "0") or 0
  if dev > 0 then
    speck.initialize{space = "cuda"}
    if dev > 1 then speck.View("m", "float64", 1 << 17, {space = "cuda_uvm"}) end
  end
  local x = speck.View("x", "float64", 1024)
  local y = speck.View("y", "float64", 1024)
  local cpu = {}
  for r = 0, n do
    local c0 = os.clock()
    speck.kernel(("nvrtc_host_%d"):format(r), "range", {x = x, y = y, a = 2.0},
                 ("y(i) = a * x(i) + y(i) + %d.0;"):format(seed * 100 + r),
                 {target = "cuda"})
    cpu[r] = (os.clock() - c0) * 1e3
  end
  local wall = {}
  for _, s in ipairs(speck.jit.stats().per_kernel) do
    local r = tonumber(s.label:match("^nvrtc_host_(%d+)$"))
    if r then
      assert(s.cache_hits == 0, "a kernel came from a cache")
      wall[r] = s.compile_seconds * 1e3
    end
  end
  local rc, rw = {}, {}
  for r = 1, n do
    rc[r], rw[r] = cpu[r], wall[r]
  end
  print(("PROBE %.3f %.3f %.3f %.3f"):format(cpu[0], wall[0], median(rc), median(rw)))
  return
end

local rounds = tonumber(arg[1]) or 5
local n = tonumber(arg[2]) or 8
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local bin = os.getenv("SPECK_BIN") or arg[-1]
local before = os.getenv("NVRTC_HOST_BEFORE")
local archopt = os.getenv("NVRTC_HOST_ARCH") or "sm_90"
local cc = os.getenv("CC") or "cc"
local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p " .. shq(tmp)))
local probe = tmp .. "/nvrtc_probe"
assert(os.execute(("%s -O2 -o %s %s -ldl"):format(cc, shq(probe),
                                                   shq(here .. "/nvrtc_probe.c"))),
       "cannot build nvrtc_probe")

local function lines(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  assert(p:close(), "failed: " .. cmd .. "\n" .. out)
  return out
end

-- one speck process: {first cpu, first wall, median cpu, median wall}
local function speck_round(b, seed, r)
  local out = lines(("SPECK_NVRTC_ARCH=%s SPECK_CACHE_DIR=%s %s %s probe %d %d 2>&1"):format(
    archopt, shq(("%s/cache-%s-%d"):format(tmp, seed, r)), shq(b), shq(arg[0]), seed, n))
  local v = {out:match("PROBE (%S+) (%S+) (%S+) (%S+)")}
  assert(#v == 4, out)
  for i = 1, 4 do v[i] = tonumber(v[i]) end
  return v
end

local function raw_round()
  local dev = os.getenv("NVRTC_HOST_DEVICE")
  local out = lines(("PROBE_CUDA=%s %s %s %d -arch=%s 2>&1"):format(
    dev and dev ~= "" and shq(dev) or "0", shq(probe), shq(here .. "/raw_axpy.cu"), n + 1,
    archopt))
  local fw, fc, mw, mc = out:match(
    "first (%S+) ms %(cpu (%S+)%).-median (%S+) ms %(cpu (%S+)%)")
  assert(fw, out)
  return {tonumber(fc), tonumber(fw), tonumber(mc), tonumber(mw)}
end

local who = {"speck", "raw"}
if before then table.insert(who, 2, "before") end
local res = {}
for _, w in ipairs(who) do res[w] = {} end
local seed0 = os.time() % 100000
for r = 1, rounds do
  for _, w in ipairs(who) do
    local v
    if w == "raw" then v = raw_round()
    else v = speck_round(w == "speck" and bin or before, seed0 * 10 + (w == "speck" and 1 or 2), r) end
    res[w][r] = v
  end
end
os.execute("rm -rf -- " .. shq(tmp))

local info = speck.info()
print(("%s, arch %s, %d rounds of %d new kernels after a first, %s, %s"):format(
  info.compilers.nvrtc.version or "-", archopt, rounds, n,
  (os.getenv("NVRTC_HOST_DEVICE") or "0") ~= "0" and "with a CUDA context" or "no CUDA context",
  os.date("!%Y-%m-%d %H:%M UTC")))
print("| compile of a new kernel | CPU ms, median [min..max] of rounds | wall ms | first of the process, CPU ms | CPU ratio to raw NVRTC, median [min..max] |")
print("| --- | ---: | ---: | ---: | ---: |")
local names = {speck = "speck (range-for axpy, whole JIT path)",
               before = "speck, NVRTC_HOST_BEFORE", raw = "raw NVRTC, raw_axpy.cu -arch=" .. archopt}
for _, w in ipairs(who) do
  local c, wl, f, ratio = {}, {}, {}, {}
  for r = 1, rounds do
    c[r], wl[r], f[r] = res[w][r][3], res[w][r][4], res[w][r][1]
    ratio[r] = res[w][r][3] / res.raw[r][3]
  end
  local lo, hi = range(c)
  local rlo, rhi = range(ratio)
  print(("| %s | %.1f [%.1f..%.1f] | %.1f | %.1f | %.2f [%.2f..%.2f] |"):format(
    names[w], median(c), lo, hi, median(wl), median(f), median(ratio), rlo, rhi))
  print(("RESULT nvrtc_host_%s_cpu_ms %.3f"):format(w, median(c)))
  if w ~= "raw" then print(("RESULT nvrtc_host_%s_ratio %.3f"):format(w, median(ratio))) end
end
