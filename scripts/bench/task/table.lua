-- table.lua: the task benchmark's records ("what impl count seconds") as
-- one Markdown table of medians: rate (millions per second) and speck's
-- rate over each peer's (> 1: speck faster), and the median of the
-- per-round ratios (round i's speck over round i's peer: the rounds
-- alternate the programs, so a pair saw about the same load).
local rates = {}
for line in io.lines(arg[1]) do
  local what, impl, count, secs = line:match("^(%S+) (%S+) (%S+) (%S+)")
  if what then
    local k = what .. " " .. impl
    rates[k] = rates[k] or {}
    table.insert(rates[k], tonumber(count) / tonumber(secs))
  end
end
local function median(t)
  t = table.move(t, 1, #t, 1, {})
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or (t[n // 2] + t[n // 2 + 1]) / 2
end
local rows = {
  {"fib", "speck", "fib, speck.task (respawn + when_all), tasks/s"},
  {"fib", "tbb", "fib, oneTBB task_group, tasks/s"},
  {"fib", "omp", "fib, OpenMP tasks (libgomp), tasks/s"},
  {"pool", "speck", "pool_alloc/pool_free pairs/s (kernel)"},
  {"pool", "malloc", "glibc malloc/free pairs/s (pthreads)"},
}
-- speck's rate over the peer's, round by round, and their median
local function round_ratio(sp, peer)
  local r = {}
  for i = 1, math.min(#sp, #peer) do r[i] = sp[i] / peer[i] end
  return #r > 0 and median(r) or 0 / 0
end
print("| what | median (M/s) | rounds | speck / this | median of round ratios |")
print("| --- | ---: | ---: | ---: | ---: |")
local chol = {
  {"chollap3d", "27-point 40^3 Laplacian"}, {"chollap2d", "5-point 1024^2 Laplacian"}}
for _, r in ipairs(rows) do
  local t = rates[r[1] .. " " .. r[2]]
  if t then
    local m = median(t)
    local s = median(rates[r[1] .. " speck"])
    local sp = rates[r[1] .. " speck"]
    print(("| %s | %.2f | %d | %s | %s |"):format(r[3], m / 1e6, #t,
          r[2] == "speck" and "" or ("%.2f"):format(s / m),
          r[2] == "speck" and "" or ("%.2f"):format(round_ratio(sp, t))))
  end
end
-- Cholesky: seconds (the records hold 1 / seconds as a rate)
local head = false
for _, c in ipairs(chol) do
  local sp, cm = rates[c[1] .. " speck"], rates[c[1] .. " cholmod"]
  if sp and cm then
    if not head then
      print()
      print("| Cholesky (ordering + factorisation) | speck (s) | CHOLMOD (s) | rounds | " ..
            "CHOLMOD time / speck time | median of round ratios |")
      print("| --- | ---: | ---: | ---: | ---: | ---: |")
      head = true
    end
    local s, m = 1 / median(sp), 1 / median(cm)
    print(("| %s | %.3f | %.3f | %d | %.2f | %.2f |"):format(c[2], s, m, #sp, m / s,
          round_ratio(sp, cm)))
  end
end
