-- table.lua: scripts/bench/solve's records (R <kernel> <impl> <seconds>
-- <iterations> <setup seconds>) as one Markdown table, medians over rounds.
local path = assert(arg[1], "usage: table.lua RECORDS")
local rows, order = {}, {}
local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end
for line in io.lines(path) do
  local k, impl, s, it, su = line:match("^R\t(%S+)\t(%S+)\t(%S+)\t(%S+)\t(%S+)")
  if k then
    local key = k .. "\t" .. impl
    if not rows[key] then
      rows[key] = {kernel = k, impl = impl, t = {}, setup = {}, iters = it}
      order[#order + 1] = key
    end
    table.insert(rows[key].t, tonumber(s))
    table.insert(rows[key].setup, tonumber(su))
  end
end
print("| solve to 1e-8 | impl | iterations | setup (s) | setup + solve (s) |")
print("| --- | --- | ---: | ---: | ---: |")
for _, key in ipairs(order) do
  local r = rows[key]
  print(("| %s | %s | %s | %.3f | %.3f |"):format(r.kernel, r.impl, r.iters, median(r.setup),
                                                  median(r.t)))
end
