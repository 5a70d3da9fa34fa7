-- table.lua: the task benchmark's records ("what impl count seconds") as
-- one Markdown table of medians: rate (millions per second) and speck's
-- rate over each peer's (> 1: speck faster).
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
print("| what | median (M/s) | rounds | speck / this |")
print("| --- | ---: | ---: | ---: |")
for _, r in ipairs(rows) do
  local t = rates[r[1] .. " " .. r[2]]
  if t then
    local m = median(t)
    local s = median(rates[r[1] .. " speck"])
    print(("| %s | %.2f | %d | %s |"):format(r[3], m / 1e6, #t,
          r[2] == "speck" and "" or ("%.2f"):format(s / m)))
  end
end
