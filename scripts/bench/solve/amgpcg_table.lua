-- amgpcg_table.lua: scripts/bench/solve/amgpcg's records (scripts/bench/lib's
-- format: R <case>.setup|.solve|.total <impl> <seconds> 0 <relative
-- residual>; I <impl> <case>.iters|.oc|.levels|.resid <value>) as one
-- Markdown table: per case and implementation the medians over the rounds
-- of the setup, the solve and their sum, the iterations, operator
-- complexity and levels; then per case the median over the rounds of
-- (the fastest peer's setup + solve in that round) / (speck's): the
-- page's ratio (> 1: speck faster; the issue's goal, speck <= 0.8x the
-- faster peer, is a ratio >= 1.25). A relative residual above 1.5e-8 is
-- flagged.
--   speck amgpcg_table.lua RECORDS
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")
local path = assert(arg[1], "usage: amgpcg_table.lua RECORDS")
local res, facts = records.read(path)

local cases, seen = {}, {}
for kernel in pairs(res) do
  local c = kernel:match("^(.*)%.total$")
  if c and not seen[c] then seen[c], cases[#cases + 1] = true, c end
end
local function case_order(c)
  local kind, g = c:match("^amgpcg%-(%a[%a%d])(%d+)$")
  return (kind == "p7" and 0 or 1) + 2 * (tonumber(g) or 0)
end
table.sort(cases, function(a, b) return case_order(a) < case_order(b) end)

-- speck's threads (BENCH_THREADS, as amgpcg ran it; 2 by default)
local THR = tonumber(os.getenv("BENCH_THREADS") or "") or 2
local TS = ("%d thread%s"):format(THR, THR == 1 and "" or "s")
local NAMES = {speck = ("speck (AMG-PCG, %s)"):format(TS),
               ["speck-base"] = ("speck before (SPECK_BASE, %s)"):format(TS)}
local OURS = {speck = true, ["speck-base"] = true}
local function name(impl)
  local peer, np = impl:match("^(%a+)%-np(%d+)$")
  if peer == "hypre" then return ("hypre BoomerAMG-PCG, %s MPI rank%s"):format(np, np == "1" and "" or "s") end
  if peer == "petsc" then return ("PETSc GAMG-CG, %s MPI rank%s"):format(np, np == "1" and "" or "s") end
  return NAMES[impl] or impl
end
local function rows_of(c)
  local kind, g = c:match("^amgpcg%-(%a[%a%d])(%d+)$")
  g = tonumber(g)
  if kind == "p7" then return ("7-pt Poisson %d^3 (%d rows)"):format(g, g * g * g) end
  return ("27-pt miniFE %d^3 el. (%d rows)"):format(g, (g + 1) ^ 3)
end

print("| matrix | implementation | iterations | operator complexity | levels | setup | solve | setup + solve | ratio peer/speck |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
local summary, bad = {}, {}
for _, c in ipairs(cases) do
  local tot = res[c .. ".total"]
  local impls = {}
  for impl in pairs(tot) do impls[#impls + 1] = impl end
  table.sort(impls, function(a, b)
    if (a == "speck") ~= (b == "speck") then return a == "speck" end
    if (a == "speck-base") ~= (b == "speck-base") then return a == "speck-base" end
    return a < b
  end)
  local sp = tot.speck
  for _, impl in ipairs(impls) do
    local r = tot[impl]
    local f = function(k) return facts[impl .. "." .. c .. "." .. k] or "-" end
    for _, v in ipairs(r.checks) do
      if v > 1.5e-8 then bad[#bad + 1] = ("%s %s: relative residual %.3g"):format(c, impl, v) end
    end
    local ratio = (impl ~= "speck" and sp) and ("%.2f"):format(r.t / sp.t) or "-"
    print(("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"):format(rows_of(c), name(impl),
      f("iters"), f("oc"), f("levels"), records.fmt_time(res[c .. ".setup"][impl].t),
      records.fmt_time(res[c .. ".solve"][impl].t), records.fmt_time(r.t), ratio))
  end
  -- per round: the fastest peer's total over speck's (and over the base
  -- build's), the median and the spread (min - max) of the rounds
  for _, who_ in ipairs{"speck", "speck-base"} do
    local mine = tot[who_]
    local per, best = {}, {}
    for i, ts in ipairs(mine and mine.ts or {}) do
      local fastest, who
      for impl, r in pairs(tot) do
        if not OURS[impl] and r.ts[i] and (not fastest or r.ts[i] < fastest) then
          fastest, who = r.ts[i], impl
        end
      end
      if fastest then
        per[#per + 1] = fastest / ts
        best[who] = (best[who] or 0) + 1
      end
    end
    if #per > 0 then
      local whos = {}
      for who, k in pairs(best) do whos[#whos + 1] = ("%s %d"):format(name(who), k) end
      table.sort(whos)
      local m = records.median(per)
      local lo, hi = math.huge, -math.huge
      for _, v in ipairs(per) do lo, hi = math.min(lo, v), math.max(hi, v) end
      summary[#summary + 1] = ("%s, %s: fastest peer / %s = %.2f (median of %d rounds, spread %.2f - %.2f; %s at %.2fx the fastest peer, the goal <= 0.8x: %s); fastest peer by rounds: %s")
        :format(rows_of(c), who_, who_, m, #per, lo, hi, who_, 1 / m,
                m >= 1.25 and "met" or "NOT met", table.concat(whos, ", "))
    end
  end
end
print()
for _, s in ipairs(summary) do print(s) end
if #bad > 0 then print("results: RESIDUAL ABOVE 1.5e-8\n  " .. table.concat(bad, "\n  "))
else print("results: every solution's true relative residual <= 1.5e-8") end
