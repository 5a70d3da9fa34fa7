-- table.lua: print scripts/bench/sparse's table from the records of
-- bench.lua, ref.c, kk.cpp and scipy_peer.py (run by ./run).
--
-- Usage: speck table.lua RECORDS
-- A record line is 'R <kernel> <impl> <seconds> <bytes> <checksum>' or
-- 'I <impl> <key> <value>'. A kernel run in several rounds shows the
-- median of its rounds. Each speck row is set beside its peers: ratio =
-- peer time / speck time (> 1: speck is faster); 'STREAM' is the rate
-- (bytes / time) as a fraction of the triad's measured in the same run.
-- Checksums of one kernel must agree between implementations (a mismatch
-- is flagged in the row).

local path = assert(arg[1], "usage: speck table.lua RECORDS")
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")
local res, facts = records.read(path)   -- res[kernel][impl] = {t, ts, bytes, checks}

local function fmt(t)
  if not t then return "-" end
  if t < 1e-3 then return string.format("%.1f us", t * 1e6) end
  if t < 1 then return string.format("%.2f ms", t * 1e3) end
  return string.format("%.3f s", t)
end

local triad = res.triad and res.triad.ref
local stream = triad and triad.bytes / triad.t
local function of_stream(r)
  if not r or not r.bytes or r.bytes == 0 then return "-" end
  -- the GPU run has no triad: the rate itself
  if not stream then return string.format("%.0f GB/s", r.bytes / r.t / 1e9) end
  return string.format("%.0f %%", 100 * (r.bytes / r.t) / stream)
end

-- the checksums of 'kernel' agree (relative 1e-9) across implementations
local function agree(kernel, keys)
  local ref
  for _, k in ipairs(keys) do
    local r = res[kernel] and res[kernel][k]
    if r and r.checks[1] and r.checks[1] ~= 0 then
      for _, c in ipairs(r.checks) do
        ref = ref or c
        if math.abs(c - ref) > 1e-9 * math.max(1, math.abs(ref)) then return false end
      end
    end
  end
  return true
end

local NAMES = {ref = "hand gcc -O3 OpenMP CSR", kk = "Kokkos Kernels (Serial)",
               scipy = "SciPy", cusparse = "cuSPARSE (CuPy)"}
local MATS = {m5 = "5-pt 2048^2", m27 = "27-pt 128^3", kron = "Kronecker scale 20"}

if stream then
  print(("STREAM triad (gcc -O3 OpenMP, same run): %s, %.1f GB/s"):format(fmt(triad.t),
        stream / 1e9))
end
print()
print("| operation | matrix | speck | speck time | speck / STREAM | peer | peer time | peer / STREAM | ratio peer/speck |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")

-- one block: speck rows (kernel key -> label) beside peers of 'peer_kernel'
local function block(op, mat, speck_rows, peer_kernel, peers)
  local keys = {"speck", "ref", "kk", "scipy", "cusparse"}
  for _, sr in ipairs(speck_rows) do
    local s = res[sr[1]] and res[sr[1]].speck
    if s then
      local ok = agree(sr[1], {"speck"}) and agree(peer_kernel, keys)
      for _, p in ipairs(peers) do
        local r = res[peer_kernel] and res[peer_kernel][p]
        if r or p ~= "cusparse" then
        local ratio = r and s and string.format("%.2f", r.t / s.t) or "-"
        print(("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"):format(op, MATS[mat] or mat,
              sr[2] .. (ok and "" or " (checksum differs!)"), fmt(s.t), of_stream(s), NAMES[p],
              fmt(r and r.t), of_stream(r), ratio))
        end
      end
    end
  end
end

-- '-nodia': the run under SPECK_SPARSE_NODIA=1 (a stencil's coded CSR
-- kernels instead of its diagonal form), where one was made
local NODIA = "sparse.spmv, SPECK_SPARSE_NODIA=1"
for _, m in ipairs{"m5", "m27", "kron"} do
  local rows = {{"spmv-" .. m, "sparse.spmv"}, {"spmv-" .. m .. "-nodia", NODIA}}
  if m ~= "kron" then rows[3] = {"struct-" .. m, "sparse.spmv_struct"} end
  block("SpMV", m, rows, "spmv-" .. m, {"ref", "kk", "scipy", "cusparse"})
end
block("SpGEMM A*A", "m5", {{"spgemm-m5", "sparse.spgemm"},
                           {"spgemm-numeric-m5", "spgemm_numeric (handle)"}},
      "spgemm-m5", {"kk", "scipy", "cusparse"})
block("SpTRSV lower", "5-pt 1024^2", {{"sptrsv-m5", "sptrsv_solve"}}, "sptrsv-m5", {"scipy"})
for _, m in ipairs{"m5", "m27"} do
  block("CG per iteration", m, {{"cg-" .. m, "sparse.cg"},
                                 {"cg-" .. m .. "-nodia", "sparse.cg, SPECK_SPARSE_NODIA=1"}},
        "cg-" .. m, {"scipy", "cusparse"})
end
local lv = facts["speck.levels-sptrsv"]
if lv then print(("\nSpTRSV: %s levels."):format(lv)) end
local nn = facts["speck.nnz-spgemm-m5"]
if nn then
  local peers = {}
  for _, p in ipairs{"kk", "scipy", "cusparse"} do
    local v = facts[p .. ".nnz-spgemm-m5"]
    if v then peers[#peers + 1] = NAMES[p] .. " " .. v end
  end
  print(("SpGEMM: C has %s entries (%s)."):format(nn, table.concat(peers, ", ")))
end
