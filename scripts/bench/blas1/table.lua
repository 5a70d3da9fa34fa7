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
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")

-- A kernel run in several rounds has several records: its time is the
-- median of the rounds' medians; every round's checksum is checked.
local pingpong = {}         -- ns, one per round
local res, facts, rounds = records.read(path, function(_, key, value)
  if key == "pingpong_ns" then pingpong[#pingpong + 1] = tonumber(value) end
end)
local fmt_time, gbs = records.fmt_time, records.gbs

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
local bad, checked = records.check_ref(res)
records.print_checks(bad, checked, "dot's value, axpy's sum of y")
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
