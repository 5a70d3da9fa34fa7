-- table.lua: print scripts/bench/core's one table from the records that
-- core.lua, ref.c and numba_peer.py wrote (run by ./run with bin/speck).
--
-- Usage: speck table.lua RECORDS log2n stencil_n grid_n
-- A record line is 'I <impl> <key> <value>' or
-- 'R <kernel> <impl> <seconds> <bytes> <checksum>'. Each speck row is set
-- beside one peer; ratio = peer time / speck time, so > 1 means speck is
-- faster. The table is Markdown, to paste into docs/bench.md as is.

local path, log2n, SN, GN = arg[1], tonumber(arg[2]), tonumber(arg[3]),
                            tonumber(arg[4])
assert(path and log2n and SN and GN, "usage: speck table.lua RECORDS log2n stencil_n grid_n")

-- A kernel run in several rounds has several records: its time is the
-- median of the rounds' medians; every round's checksum is checked.
local res, facts = {}, {}   -- res[kernel][impl] = {t=, ts=, bytes=, checks=}
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

local n = 1 << log2n
local nnz = 5 * GN * GN - 4 * GN
local PEER = {ref = "gcc -O3 -march=native, OpenMP", numba = "Numba @njit(parallel) prange"}

-- rows: {what, size, speck kernel, peer kernel, peers}
local ROWS = {
  {"empty parallel_for (median launch)", "1024 iters", "empty", "empty", {"ref"}},
  {"empty, prepared speck.kernel handle", "1024 iters", "empty-kernel", "empty", {"ref"}},
  {"axpy y = a*x + y", "2^" .. log2n .. " f64", "axpy", "axpy", {"ref", "numba"}},
  {"axpy first call (compile + run)", "2^" .. log2n .. " f64", "axpy-first", "axpy-first", {"numba"}},
  {"dot", "2^" .. log2n .. " f64", "dot", "dot", {"ref"}},
  {"stencil 5-pt, MDRange", string.format("%dx%d", SN, SN), "stencil", "stencil", {"ref"}},
  {"CSR SpMV, 2D Laplacian", string.format("%d^2 rows, %.1fM nnz", GN, nnz / 1e6),
   "spmv", "spmv", {"ref", "numba"}},
  {"SpMV first call (compile + run)", string.format("%d^2 rows", GN), "spmv-first",
   "spmv-first", {"numba"}},
}

local cc_ran = {}
for k, v in pairs(facts) do
  if k:match("^speck%-cc%.tier_") then cc_ran[#cc_ran + 1] = v end
end
local cc_label = "speck-cc"
for _, v in ipairs(cc_ran) do
  if v ~= "cc" then cc_label = "speck-cc (ran tcc)" end
end

print("| kernel | size | speck | speck time | peer | peer time | ratio peer/speck | speck GB/s | peer GB/s |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for _, row in ipairs(ROWS) do
  local what, size, sk, pk, peers = table.unpack(row)
  for _, peer in ipairs(peers) do
    for _, tier in ipairs({"tcc", "cc"}) do
      local s = res[sk] and res[sk]["speck-" .. tier]
      local p = res[pk] and res[pk][peer]
      if s or p then
        local ratio = (s and p) and string.format("%.2f", p.t / s.t) or "-"
        local first = sk:match("%-first$")   -- latency rows: no bandwidth
        print(string.format("| %s | %s | %s | %s | %s | %s | %s | %s | %s |", what, size,
          tier == "cc" and cc_label or "speck-tcc", fmt_time(s and s.t), PEER[peer],
          p and fmt_time(p.t) or "(not run)", ratio, first and "-" or gbs(s),
          first and "-" or gbs(p)))
      end
    end
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
  print(string.format("results: %d checksums (dot, stencil, spmv; every implementation, every round) agree with the reference's first (rel. err <= 1e-9)", checked))
else
  print("results: MISMATCH\n  " .. table.concat(bad, "\n  "))
end
print(string.format("times: each the median of %d rounds' medians (a round: %s)", rounds,
  "2 warm-up + 9 timed runs; first calls: one per round, each in a fresh process"))
print(string.format("threads: speck %s, OpenMP %s, Numba %s (%s, threading layer %s); speck.Timer overhead %s us",
  facts["speck.threads"] or "?", facts["ref.threads"] or "?", facts["numba.threads"] or "-",
  facts["numba.version"] and ("numba " .. facts["numba.version"]) or "not run",
  facts["numba.threading_layer"] or "-", facts["speck.timer_overhead_us"] or "?"))
if cc_label ~= "speck-cc" then
  print("note: the cc tier is not available in this build; opts jit = \"cc\" ran on libtcc")
end
return #bad == 0 or os.exit(1)
