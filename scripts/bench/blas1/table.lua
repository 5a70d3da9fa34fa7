-- table.lua: print scripts/bench/blas1's one table from the records that
-- blas1.lua, capi.c, ref.c and openblas.c wrote (run by ./run with
-- bin/speck).
--
-- Usage: speck table.lua RECORDS log2n
-- A record line is 'I <impl> <key> <value>' or
-- 'R <kernel> <impl> <seconds> <bytes> <checksum>'. Each speck row is set
-- beside one peer; ratio = peer time / speck time (a throughput ratio), so
-- >= 1 means speck is at least as fast. The launch rows' target, speck's
-- time <= 0.6 x the OpenMP region's, is a ratio >= 1/0.6 = 1.67. The table
-- is Markdown, to paste into docs/bench.md as is.

local path, log2n = arg[1], tonumber(arg[2])
assert(path and log2n, "usage: speck table.lua RECORDS log2n")

-- A kernel run in several rounds has several records: its time is the
-- median of the rounds' medians; every round's checksum is checked.
local res, facts = {}, {}   -- res[kernel][impl] = {t=, ts=, bytes=, checks=}
local pingpong = {}         -- ns, one per round
for line in io.lines(path) do
  local f = {}
  for w in line:gmatch("[^\t]+") do f[#f + 1] = w end
  if f[1] == "R" and #f >= 6 then
    res[f[2]] = res[f[2]] or {}
    local r = res[f[2]][f[3]] or {ts = {}, checks = {}}
    res[f[2]][f[3]] = r
    r.ts[#r.ts + 1] = tonumber(f[4])
    r.checks[#r.checks + 1] = tonumber(f[6])
    r.bytes = tonumber(f[5])
  elseif f[1] == "I" and #f >= 4 then
    facts[f[2] .. "." .. f[3]] = f[4]
    if f[3] == "pingpong_ns" then pingpong[#pingpong + 1] = tonumber(f[4]) end
  end
end
local rounds = 0
for _, impls in pairs(res) do
  for _, r in pairs(impls) do
    table.sort(r.ts)
    local n = #r.ts
    r.t = n % 2 == 1 and r.ts[(n + 1) // 2] or 0.5 * (r.ts[n // 2] + r.ts[n // 2 + 1])
    rounds = math.max(rounds, n)
  end
end

local function fmt_time(t)
  if not t then return "-" end
  if t < 1e-3 then return string.format("%.2f us", t * 1e6) end
  if t < 1 then return string.format("%.2f ms", t * 1e3) end
  return string.format("%.2f s", t)
end

local function gbs(r)
  if not r or not r.bytes or r.bytes == 0 or not r.t then return "-" end
  return string.format("%.1f", r.bytes / r.t / 1e9)
end

local SPECK = {["speck-lua"] = "speck.blas from Lua", ["speck-c"] = "speck from C"}
local PEER = {ref = "gcc -O3 -march=native, OpenMP",
              openblas = "OpenBLAS " .. (facts["openblas.core"] or "")}
local size = "2^" .. log2n .. " f64"
local LAUNCH_TARGET = 1 / 0.6

-- rows: {what, size, speck kernel, speck impl, peer kernel, peers, target}
local ROWS = {
  {"dot (blas.dot)", size, "dot", "speck-lua", "dot", {"ref", "openblas"}, 1},
  {"dot (speck_call \"blas.dot\")", size, "dot", "speck-c", "dot", {"ref", "openblas"}, 1},
  {"axpy (blas.axpy)", size, "axpy", "speck-lua", "axpy", {"ref", "openblas"}, 1},
  {"axpy (speck_call \"blas.axpy\")", size, "axpy", "speck-c", "axpy", {"ref", "openblas"}, 1},
  {"launch: speck_run_for, empty body (C)", "1024 indices", "empty-run_for", "speck-c",
   "empty", {"ref"}, LAUNCH_TARGET},
  {"launch: speck_call \"blas.scal\" (C)", "2 elements", "scal2-c", "speck-c", "empty",
   {"ref"}, LAUNCH_TARGET},
  {"launch: blas.scal (Lua)", "2 elements", "scal2", "speck-lua", "empty", {"ref"},
   LAUNCH_TARGET},
  {"launch: blas.scal (Lua), runs on the caller", "1 element", "scal1", "speck-lua",
   "empty", {"ref"}, LAUNCH_TARGET},
}

print("| kernel | size | speck | speck time | peer | peer time | ratio peer/speck | target | speck GB/s | peer GB/s |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
local missed = 0
for _, row in ipairs(ROWS) do
  local what, sz, sk, impl, pk, peers, target = table.unpack(row)
  for _, peer in ipairs(peers) do
    local s = res[sk] and res[sk][impl]
    local p = res[pk] and res[pk][peer]
    local peer_name = pk == "empty" and "empty `omp parallel` region, libgomp" or PEER[peer]
    local ratio, met = "-", ""
    if s and p then
      local r = p.t / s.t
      ratio = string.format("%.2f", r)
      met = r >= target and " (met)" or " (missed)"
      if r < target then missed = missed + 1 end
    end
    print(string.format("| %s | %s | %s | %s | %s | %s | %s | >= %.2f%s | %s | %s |", what, sz,
      SPECK[impl], fmt_time(s and s.t), peer_name, p and fmt_time(p.t) or "(not run)",
      ratio, target, met, gbs(s), gbs(p)))
  end
end

-- checksums: every implementation of a kernel must agree with the reference
local bad, checked = {}, 0
for kernel, impls in pairs(res) do
  local want = impls.ref and impls.ref.checks[1]
  if want and want ~= 0 then
    for impl, r in pairs(impls) do
      for _, got in ipairs(r.checks) do
        checked = checked + 1
        if math.abs(got - want) > 1e-9 * math.abs(want) then
          bad[#bad + 1] = string.format("%s %s: %.17g, reference %.17g", kernel, impl,
                                        got, want)
        end
      end
    end
  end
end
print()
if #bad == 0 then
  print(string.format("results: %d checksums (dot's value, axpy's sum of y; every implementation, every round) agree with the reference's first (rel. err <= 1e-9)", checked))
else
  print("results: MISMATCH\n  " .. table.concat(bad, "\n  "))
end
print(string.format("times: each the median of %d rounds' medians (a round: dot, axpy 2 warm-up + 9 timed calls; launches: the median of one launch at a time after warm-up)", rounds))
print(string.format("threads: speck %s (%s), OpenMP %s, OpenBLAS %s (%s); library kernels ran at tier: dot %s, axpy %s, scal %s; speck.Timer overhead %s us",
  facts["speck-lua.threads"] or "?", facts["speck-lua.space"] or "?",
  facts["ref.threads"] or "?", facts["openblas.threads"] or "-",
  facts["openblas.core"] and ("core " .. facts["openblas.core"]) or "not run",
  facts["speck-lua.tier_dot"] or "?", facts["speck-lua.tier_axpy"] or "?",
  facts["speck-lua.tier_scal2"] or "?", facts["speck-lua.timer_overhead_us"] or "?"))
if #pingpong > 0 then
  table.sort(pingpong)
  print(string.format("cache-line round trip between the two threads (ref.c pingpong, once per round): %.0f ns median, %.0f .. %.0f ns", pingpong[(#pingpong + 1) // 2], pingpong[1], pingpong[#pingpong]))
end
print(string.format("targets: %d row%s below target", missed, missed == 1 and "" or "s"))
return #bad == 0 or os.exit(1)
