-- bench.lua: the speck side of scripts/bench/sptrsv (run by ./run).
--
-- Usage: speck bench.lua ALGO MATRIX
--   ALGO    levelset | supernodal   (sparse.sptrsv_symbolic's algorithm)
--   MATRIX  m27 (27-point 40^3) | m5 (5-point 1024^2)
-- The matrix is built with speck kernels and factored by
-- speck.sparse.cholesky (AMD, supernodes); L (sparse.cholesky_lower) is
-- the triangle both algorithms solve with: L y = b, symbolic phase
-- outside the timing. WARM untimed solves, then the median of REPS timed
-- ones. Prints "R <kernel> <impl> <seconds> <checksum>" records and
-- "I" lines (factor facts, symbolic seconds).
local sparse = require "speck.sparse"

local ALGO, M = arg[1] or "", arg[2] or "m27"
local REPS, WARM = tonumber(os.getenv("BENCH_REPS") or 15), 3

local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end

local timer = speck.Timer()

local function csr_from(n, count_body, fill_body, caps)
  local rowptr = speck.View("rowptr", "int64", n + 1)
  caps.rowptr, caps.n = rowptr, n
  local nnz = speck.parallel_scan("bench.count", n + 1, caps,
    "int64_t c = 0; if (i < n) { " .. count_body .. " } if (final) rowptr(i) = acc; acc += c;",
    {dtype = "int64"})
  nnz = math.tointeger(nnz)
  local colidx = speck.View("colidx", "int32", nnz, {init = false})
  local values = speck.View("values", "float64", nnz, {init = false})
  caps.colidx, caps.values = colidx, values
  speck.parallel_for("bench.fill", n, caps, "int64_t p = rowptr(i);\n" .. fill_body)
  return sparse.CrsMatrix{nrows = n, ncols = n, rowptr = rowptr, colidx = colidx,
                          values = values}
end

local function m5(g)
  return csr_from(g * g, [[
    const int64_t gi = i / g, gj = i % g;
    c = 1 + (gi > 0) + (gi < g - 1) + (gj > 0) + (gj < g - 1);]], [[
    const int64_t gi = i / g, gj = i % g;
    if (gi > 0) { colidx(p) = (int32_t)(i - g); values(p++) = -1.0; }
    if (gj > 0) { colidx(p) = (int32_t)(i - 1); values(p++) = -1.0; }
    colidx(p) = (int32_t)i; values(p++) = 4.0;
    if (gj < g - 1) { colidx(p) = (int32_t)(i + 1); values(p++) = -1.0; }
    if (gi < g - 1) { colidx(p) = (int32_t)(i + g); values(p++) = -1.0; }]], {g = g})
end

local function m27(g)
  return csr_from(g * g * g, [[
    const int64_t x = i % g, y = (i / g) % g, z = i / (g * g);
    c = (1 + (x > 0) + (x < g - 1)) * (1 + (y > 0) + (y < g - 1)) * (1 + (z > 0) + (z < g - 1));]], [[
    const int64_t x = i % g, y = (i / g) % g, z = i / (g * g);
    for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) {
      const int64_t jx = x + dx, jy = y + dy, jz = z + dz;
      if (jx < 0 || jx >= g || jy < 0 || jy >= g || jz < 0 || jz >= g) continue;
      colidx(p) = (int32_t)(jx + g * (jy + g * jz));
      values(p++) = dx == 0 && dy == 0 && dz == 0 ? 26.5 : -1.0;
    }]], {g = g})
end

local A = M == "m5" and m5(tonumber(os.getenv("BENCH_G5") or 1024))
  or m27(tonumber(os.getenv("BENCH_G27") or 40))
timer:reset()
local F = sparse.cholesky(A)
local tf = timer:seconds()
local L = sparse.cholesky_lower(F)
local n = L:nrows()
print(("I\tfactor\t%s\tn=%d nnz(L)=%d supernodes=%d factor_s=%.3f"):format(M, n, L:nnz(),
      F:info().supernodes, tf))
timer:reset()
local h = sparse.sptrsv_symbolic(L, {algorithm = ALGO})
local ts = timer:seconds()
print(("I\tsymbolic\t%s\t%s\t%.4f\tlevels=%d supernodes=%s"):format(M, ALGO, ts, h.nlevels,
      tostring(h.nsupernodes)))
local b = speck.View("b", "float64", n, {init = false})
speck.parallel_for("bench.b", n, {b = b}, "b(i) = 1.0 + (double)(i % 1000003) * 1e-6;")
local x = speck.View("x", "float64", n)
local function run(trans)
  for _ = 1, WARM do sparse.sptrsv_solve(h, L, b, x, {trans = trans}) end
  local t = {}
  for r = 1, REPS do
    timer:reset()
    sparse.sptrsv_solve(h, L, b, x, {trans = trans})
    speck.fence()
    t[r] = timer:seconds()
  end
  local check = speck.parallel_reduce("bench.check", n, {y = x},
                                      "acc += y(i) * (double)(1 + i % 3);")
  return median(t), check
end
local t, c = run("N")
print(("R\tL-%s\t%s\t%.9e\t%.17g"):format(M, ALGO, t, c))
if ALGO == "supernodal" then
  t, c = run("T")
  print(("R\tLT-%s\t%s\t%.9e\t%.17g"):format(M, ALGO, t, c))
end
