-- table.lua: print scripts/bench/teams' one table from the records that
-- teams.lua and ref.c wrote (run by ./run with bin/speck).
--
-- Usage: speck table.lua RECORDS GN SCALE EF NBAR CELLS
-- A record line is 'I <impl> <key> <value>' or
-- 'R <kernel> <impl> <seconds> <checksum>'. Every speck row is set beside
-- the C reference of the same kernel; ratio = reference time / speck time,
-- so > 1 means speck is faster (the convention of the core table). A
-- checksum that differs from the reference's by more than 1e-9 (relative)
-- marks the row "CHECK FAILED". The table is Markdown, to paste into
-- docs/bench.md as is.

local path, GN, SCALE, EF, NBAR, CELLS = arg[1], tonumber(arg[2]), tonumber(arg[3]),
  tonumber(arg[4]), tonumber(arg[5]), tonumber(arg[6])
assert(path and GN and SCALE and EF and NBAR and CELLS,
       "usage: speck table.lua RECORDS GN SCALE EF NBAR CELLS")

local res, facts = {}, {}
for line in io.lines(path) do
  local f = {}
  for w in line:gmatch("[^\t]+") do f[#f + 1] = w end
  if f[1] == "R" and #f >= 5 then
    res[f[2]] = res[f[2]] or {}
    res[f[2]][f[3]] = {t = tonumber(f[4]), check = tonumber(f[5])}
  elseif f[1] == "I" and #f >= 4 then
    facts[f[2] .. "." .. f[3]] = f[4]
  end
end

local function fmt_time(t)
  if not t then return "(not run)" end
  if t < 1e-6 then return string.format("%.0f ns", t * 1e9) end
  if t < 1e-3 then return string.format("%.1f us", t * 1e6) end
  if t < 1 then return string.format("%.2f ms", t * 1e3) end
  return string.format("%.2f s", t)
end

local SPMV_VARIANTS = {
  {"speck-range", "RangePolicy, one row per index"},
  {"speck-team1", "TeamPolicy(rows, 1): TEAM_REDUCE per row (seed)"},
  {"speck-team2", "TeamPolicy(rows, 2): TEAM_REDUCE per row (seed)"},
  {"speck-rows1", "TeamPolicy(rows/256, 1): TEAM_FOR rows, VECTOR_REDUCE"},
  {"speck-rows2", "TeamPolicy(rows/256, 2): TEAM_FOR rows, VECTOR_REDUCE"},
}
local TENSOR_VARIANTS = {
  {"speck-team1", "TeamPolicy(cells, 1): TEAM_FOR (d,e), VECTOR_REDUCE p"},
  {"speck-range", "RangePolicy over cells, loops inside"},
}

local lap_nnz = tonumber(facts["speck.lap_nnz"]) or (5 * GN * GN - 4 * GN)
local kron_nnz = tonumber(facts["speck.kron_nnz"] or facts["ref.kron_nnz"])
local ROWS = {}
for _, v in ipairs(SPMV_VARIANTS) do
  ROWS[#ROWS + 1] = {"SpMV 2D Laplacian, " .. v[2],
    string.format("%d^2 rows, %.1fM nnz", GN, lap_nnz / 1e6), "lap", v[1]}
end
for _, v in ipairs(SPMV_VARIANTS) do
  ROWS[#ROWS + 1] = {"SpMV Kronecker graph, " .. v[2],
    string.format("2^%d rows, ef %d, %s nnz", SCALE, EF,
                  kron_nnz and string.format("%.1fM", kron_nnz / 1e6) or "?"), "kron", v[1]}
end
ROWS[#ROWS + 1] = {"team_barrier, team size 2 (per barrier; ref: omp barrier)",
  string.format("%.0e barriers", NBAR):gsub("e%+0?", "e"), "barrier", "speck-team2"}
for _, k in ipairs{"tensor_3x3x8", "tensor_6x6x27"} do
  local d, e, p = k:match("(%d+)x(%d+)x(%d+)")
  for _, v in ipairs(TENSOR_VARIANTS) do
    ROWS[#ROWS + 1] = {"V(c,d,e) = sum_p A(c,p,d) B(c,p,e), " .. v[2],
      string.format("%.0e cells, d=%s e=%s p=%s", CELLS, d, e, p):gsub("e%+0?", "e"), k, v[1]}
  end
end

print("| kernel | size | speck | reference | ratio |")
print("| --- | --- | --- | --- | --- |")
for _, row in ipairs(ROWS) do
  local what, size, kernel, impl = table.unpack(row)
  local s = res[kernel] and res[kernel][impl]
  local r = res[kernel] and res[kernel].ref
  local ratio = (s and r) and string.format("%.2f", r.t / s.t) or "-"
  if s and r and kernel ~= "barrier" and
     math.abs(s.check - r.check) > 1e-9 * math.max(1, math.abs(r.check)) then
    what = what .. " **CHECK FAILED**"
  end
  print(string.format("| %s | %s | %s | %s | %s |", what, size, fmt_time(s and s.t),
                      fmt_time(r and r.t), ratio))
end
if facts["speck.kron_maxdeg"] then
  print()
  print(string.format("Kronecker graph: %s nnz, largest degree %s (speck) / %s (ref).",
                      facts["speck.kron_nnz"] or "?", facts["speck.kron_maxdeg"],
                      facts["ref.kron_maxdeg"] or "?"))
end
