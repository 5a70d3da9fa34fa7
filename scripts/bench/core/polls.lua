-- polls.lua: the cost of the back-edge polls in user bodies (issue 30,
-- docs/hardening.md). The same CSR SpMV body twice in one process: its
-- row loop written with 'for' (rewritten to poll the stop word on every
-- back edge) and written with 'goto' (not rewritten), launched in
-- alternation so that a loaded machine disturbs both alike; at both JIT
-- tiers. Prints the median of each and their ratio.
--
-- Usage: speck scripts/bench/core/polls.lua [rows [nnz per row [rounds]]]
local speck = require "speck"
local N = tonumber(arg[1]) or (1 << 20)
local K = tonumber(arg[2]) or 8
local ROUNDS = tonumber(arg[3]) or 40

local rowptr = speck.View("rowptr", "int64", N + 1)
local colidx = speck.View("colidx", "int64", N * K)
local values = speck.View("values", "float64", N * K)
local x = speck.View("x", "float64", N)
local y = speck.View("y", "float64", N)
speck.parallel_for("polls_rowptr", N + 1, {rowptr = rowptr, K = K}, "rowptr(i) = i * K;")
speck.parallel_for("polls_csr", N * K, {colidx = colidx, values = values, N = N, K = K},
  "colidx(i) = (i / K + (i % K) * 977) % N; values(i) = 1.0 / (1 + i % 7);")
speck.parallel_for("polls_x", N, {x = x}, "x(i) = 1 + i % 3;")

local caps = {rowptr = rowptr, colidx = colidx, values = values, x = x, y = y}
local BODY = {
  polled = [[double s = 0;
for (int64_t p = rowptr(i); p < rowptr(i + 1); p++) s += values(p) * x(colidx(p));
y(i) = s;]],
  plain = [[double s = 0; int64_t p = rowptr(i);
if (p < rowptr(i + 1)) { again: s += values(p) * x(colidx(p)); if (++p < rowptr(i + 1)) goto again; }
y(i) = s;]],
}
local timer = speck.Timer()
local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or (t[n // 2] + t[n // 2 + 1]) / 2
end
for _, tier in ipairs({"tcc", "cc"}) do
  local times = {polled = {}, plain = {}}
  local sums = {}
  for r = 1, ROUNDS + 2 do
    for _, kind in ipairs({"polled", "plain"}) do
      local body = BODY[kind] .. "\n/* " .. tier .. " */"
      timer:reset()
      speck.parallel_for("spmv_" .. kind .. "_" .. tier, N, caps, body, {jit = tier})
      speck.fence()
      local t = timer:seconds()
      if r > 2 then table.insert(times[kind], t) end -- two warm-ups
      sums[kind] = speck.parallel_reduce("polls_sum", N, {y = y}, "acc += y(i);")
    end
  end
  assert(sums.polled == sums.plain, "the two bodies disagree")
  local a, b = median(times.polled), median(times.plain)
  print(("%s tier: polled %.3f ms, plain %.3f ms, ratio %.3f (median of %d)"):format(
    tier, a * 1e3, b * 1e3, a / b, ROUNDS))
end
