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
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")

-- A kernel run in several rounds has several records: its time is the
-- median of the rounds' medians; every round's checksum is checked.
local res, facts, rounds = records.read(path)
local fmt_time, gbs = records.fmt_time, records.gbs

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
local bad, checked = records.check_ref(res)
records.print_checks(bad, checked, "dot, stencil, spmv")
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
