-- teams.lua: the speck side of scripts/bench/teams (run by ./run).
--
-- Usage: speck teams.lua lap GN | kron SCALE EF | barrier N | tensor C D E P
-- (the same arguments as ref.c). Every kernel is compiled by the cc tier
-- (opts.jit = "cc", the steady state), launched WARM times untimed, then
-- timed REPS times (speck.Timer around the launch and speck.fence); the
-- median goes out as a tab-separated record, the format ref.c prints:
--
--   I <impl> <key> <value>                   facts
--   R <kernel> <impl> <median s> <checksum>  results
--
-- impl names the variant: speck-range (flat RangePolicy), speck-team1 /
-- speck-team2 (one league rank per row, TEAM_REDUCE over the row: the
-- seed's team SpMV, team size 1 = the CPU default, or 2), speck-rows1 /
-- speck-rows2 (256 rows per league rank, TEAM_FOR over them, VECTOR_REDUCE
-- over each row). Matrices and data are generated exactly as ref.c does,
-- so the checksums compare.

local KERNEL = arg[1] or ""
local REPS, WARM = 9, 2
local SLOW_REPS, SLOW_WARM = 5, 1      -- variants whose warm-up took > 0.3 s
local CC = {jit = "cc"}
local ROWS_PER_TEAM = 256

local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end

local function record(kernel, impl, t, check)
  print(string.format("R\t%s\t%s\t%.9e\t%.17g", kernel, impl, t, check or 0))
  io.stdout:flush()
end

local function info(impl, key, value)
  print(string.format("I\t%s\t%s\t%s", impl, key, tostring(value)))
end

local timer = speck.Timer()
local function time_median(f)
  local t0 = speck.Timer()
  f()
  speck.fence()
  local slow = t0:seconds() > 0.3
  for _ = 2, slow and SLOW_WARM or WARM do f() end
  local t = {}
  for r = 1, slow and SLOW_REPS or REPS do
    timer:reset()
    f()
    speck.fence()
    t[r] = timer:seconds()
  end
  return median(t)
end

local bench = {}

-- -- SpMV: four ways over one CSR matrix -------------------------------------
local SPMV = {
  {"speck-range", function(n) return n end, [[
    double s = 0.0;
    for (int64_t p = rowptr(i); p < rowptr(i + 1); p++) s += values(p) * x(colidx(p));
    y(i) = s;]]},
  {"speck-team1", function(n) return speck.TeamPolicy(n, 1) end, [[
    const int64_t i = team.league_rank;
    double s;
    TEAM_REDUCE(sum, p, rowptr(i), rowptr(i + 1), s) { s += values(p) * x(colidx(p)); }
    SINGLE_TEAM(team) { y(i) = s; }]]},
  {"speck-team2", function(n) return speck.TeamPolicy(n, 2) end, nil},
  {"speck-rows1", function(n) return speck.TeamPolicy((n + ROWS_PER_TEAM - 1) // ROWS_PER_TEAM, 1) end, [[
    const int64_t r0 = team.league_rank * RPT;
    const int64_t r1 = r0 + RPT < y.extent[0] ? r0 + RPT : y.extent[0];
    TEAM_FOR(r, r0, r1) {
      double s;
      VECTOR_REDUCE(sum, p, rowptr(r), rowptr(r + 1), s) { s += values(p) * x(colidx(p)); }
      y(r) = s;
    }]]},
  {"speck-rows2", function(n) return speck.TeamPolicy((n + ROWS_PER_TEAM - 1) // ROWS_PER_TEAM, 2) end, nil},
}
SPMV[3][3], SPMV[5][3] = SPMV[2][3], SPMV[4][3]

local function spmv_all(kernel, n, rowptr, colidx, values)
  local x = speck.View("x", "float64", n, {init = false})
  local y = speck.View("y", "float64", n)
  speck.parallel_for("bench_teams_x", n, {x = x}, "x(i) = 1.0 + (double)(i % 1000003) * 1e-6;", CC)
  local caps = {rowptr = rowptr, colidx = colidx, values = values, x = x, y = y,
                RPT = ROWS_PER_TEAM}
  for _, v in ipairs(SPMV) do
    local impl, policy, body = v[1], v[2], v[3]
    y:fill(0)
    local label = "bench_teams_" .. kernel .. "_" .. impl
    local t = time_median(function() speck.parallel_for(label, policy(n), caps, body, CC) end)
    local check = speck.parallel_reduce("bench_teams_check", n, {y = y},
                                        "acc += y(i) * (double)(1 + i % 3);", CC)
    record(kernel, impl, t, check)
  end
end

-- the 2D 5-point Laplacian on a GN x GN grid, as ref.c builds it
function bench.lap(g)
  g = math.tointeger(tonumber(g)) or 2048
  local n = g * g
  local rowptr = speck.View("rowptr", "int64", n + 1)
  local build = {rowptr = rowptr, g = g}
  local nnz = speck.parallel_scan("bench_teams_lap_count", n, build, [[
    const int64_t gi = i / g, gj = i % g;
    const int64_t c = 1 + (gi > 0) + (gi < g - 1) + (gj > 0) + (gj < g - 1);
    if (final) rowptr(i) = acc;
    acc += c;]], {dtype = "int64", jit = "cc"})
  rowptr[n] = nnz
  local colidx = speck.View("colidx", "int32", nnz, {init = false})
  local values = speck.View("values", "float64", nnz, {init = false})
  build.colidx, build.values = colidx, values
  speck.parallel_for("bench_teams_lap_fill", n, build, [[
    const int64_t gi = i / g, gj = i % g;
    int64_t p = rowptr(i);
    if (gi > 0)     { colidx(p) = (int32_t)(i - g); values(p++) = -1.0; }
    if (gj > 0)     { colidx(p) = (int32_t)(i - 1); values(p++) = -1.0; }
    colidx(p) = (int32_t)i; values(p++) = 4.0;
    if (gj < g - 1) { colidx(p) = (int32_t)(i + 1); values(p++) = -1.0; }
    if (gi < g - 1) { colidx(p) = (int32_t)(i + g); values(p++) = -1.0; }]], CC)
  info("speck", "lap_nnz", nnz)
  spmv_all("lap", n, rowptr, colidx, values)
end

-- the Kronecker graph of ref.c: same hash, thresholds, label scramble and
-- serial fill order (see kron_edge there)
local KRON_PRELUDE = [[
SPECK_FN uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}
]]
function bench.kron(scale, ef)
  scale = math.tointeger(tonumber(scale)) or 18
  ef = math.tointeger(tonumber(ef)) or 16
  local n, m = 1 << scale, (1 << scale) * ef
  local src = speck.View("src", "int32", m, {init = false})
  local dst = speck.View("dst", "int32", m, {init = false})
  speck.parallel_for("bench_teams_kron_gen", m, {src = src, dst = dst, SCALE = scale}, [[
    uint64_t st = mix64((uint64_t)i * 2 + 1), a = 0, b = 0;
    for (int64_t l = 0; l < SCALE; l++) {
      uint64_t q = mix64(st + (uint64_t)l) >> 11;
      uint64_t ub = q >= 6845471433603153UL;
      uint64_t vb = (q >= 5134103575202365UL && q < 6845471433603153UL) || q >= 8556839292003942UL;
      a = (a << 1) | ub;
      b = (b << 1) | vb;
    }
    const uint64_t msk = ((uint64_t)1 << SCALE) - 1;
    src(i) = (int32_t)((a * 2654435761UL + 12345) & msk);
    dst(i) = (int32_t)((b * 2654435761UL + 12345) & msk);]],
    {prelude = KRON_PRELUDE, jit = "cc"})
  local rowptr = speck.View("rowptr", "int64", n + 1)
  local caps = {src = src, dst = dst, rowptr = rowptr, N = n, M = m}
  speck.parallel_for("bench_teams_kron_count", 1, caps, [[
    for (int64_t e = 0; e < M; e++)
      if (src(e) != dst(e)) { rowptr(src(e) + 1)++; rowptr(dst(e) + 1)++; }
    for (int64_t r = 0; r < N; r++) rowptr(r + 1) += rowptr(r);]], CC)
  local nnz = rowptr[n]
  local colidx = speck.View("colidx", "int32", nnz, {init = false})
  local values = speck.View("values", "float64", nnz, {init = false})
  local cur = speck.View("cur", "int64", n, {init = false})
  caps.colidx, caps.cur = colidx, cur
  speck.parallel_for("bench_teams_kron_fill", 1, caps, [[
    for (int64_t r = 0; r < N; r++) cur(r) = rowptr(r);
    for (int64_t e = 0; e < M; e++)
      if (src(e) != dst(e)) { colidx(cur(src(e))++) = dst(e); colidx(cur(dst(e))++) = src(e); }]], CC)
  speck.parallel_for("bench_teams_kron_vals", nnz, {values = values},
                     "values(i) = 1.0 + (double)(i % 7) * 0.125;", CC)
  local maxdeg = speck.parallel_reduce("bench_teams_kron_maxdeg", n, {rowptr = rowptr},
    "const double d = (double)(rowptr(i + 1) - rowptr(i)); if (d > acc) acc = d;", "max", CC)
  info("speck", "kron_nnz", nnz)
  info("speck", "kron_maxdeg", math.tointeger(maxdeg))
  src, dst, cur = nil, nil, nil
  collectgarbage()
  spmv_all("kron", n, rowptr, colidx, values)
end

-- -- team barrier: N barriers in one league rank, team size 2 ------------------
function bench.barrier(nb)
  nb = math.tointeger(tonumber(nb)) or 1000000
  local body = "for (int64_t k = 0; k < NB; ++k) team_barrier(team);"
  local t = time_median(function()
    speck.parallel_for("bench_teams_barrier", speck.TeamPolicy(1, 2), {NB = nb}, body, CC)
  end)
  record("barrier", "speck-team2", t / nb, nb)
end

-- -- tensor contraction V(c,d,e) = sum_p A(c,p,d) B(c,p,e) ---------------------
function bench.tensor(C, D, E, P)
  C, D, E, P = math.tointeger(tonumber(C)), math.tointeger(tonumber(D)),
               math.tointeger(tonumber(E)), math.tointeger(tonumber(P))
  local A = speck.View("A", "float64", {C, P, D}, {init = false})
  local B = speck.View("B", "float64", {C, P, E}, {init = false})
  local V = speck.View("V", "float64", {C, D, E})
  local caps = {A = A, B = B, V = V}
  speck.parallel_for("bench_teams_tensor_init", C, caps, [[
    const int64_t P = A.extent[1], D = A.extent[2], E = B.extent[2];
    for (int64_t p = 0; p < P; p++) {
      for (int64_t d = 0; d < D; d++) {
        const int64_t q = (i * P + p) * D + d;
        A(i, p, d) = 1.0 + (double)(q % 1009) * 1e-3;
      }
      for (int64_t e = 0; e < E; e++) {
        const int64_t q = (i * P + p) * E + e;
        B(i, p, e) = 0.5 - (double)(q % 997) * 1e-3;
      }
    }]], CC)
  local kernel = string.format("tensor_%dx%dx%d", D, E, P)
  local variants = {
    {"speck-team1", speck.TeamPolicy(C, 1), [[
      const int64_t c = team.league_rank;
      const int64_t P = A.extent[1], E = V.extent[2];
      TEAM_FOR(de, 0, V.extent[1] * E) {
        const int64_t d = de / E, e = de % E;
        double s;
        VECTOR_REDUCE(sum, p, 0, P, s) { s += A(c, p, d) * B(c, p, e); }
        V(c, d, e) = s;
      }]]},
    {"speck-range", C, [[
      const int64_t P = A.extent[1], D = V.extent[1], E = V.extent[2];
      for (int64_t d = 0; d < D; d++)
        for (int64_t e = 0; e < E; e++) {
          double s = 0.0;
          for (int64_t p = 0; p < P; p++) s += A(i, p, d) * B(i, p, e);
          V(i, d, e) = s;
        }]]},
  }
  for _, v in ipairs(variants) do
    V:fill(0)
    local t = time_median(function()
      speck.parallel_for("bench_teams_" .. kernel .. "_" .. v[1], v[2], caps, v[3], CC)
    end)
    local check = speck.parallel_reduce("bench_teams_tensor_check", C, {V = V}, [[
      for (int64_t d = 0; d < V.extent[1]; d++)
        for (int64_t e = 0; e < V.extent[2]; e++) {
          const int64_t q = (i * V.extent[1] + d) * V.extent[2] + e;
          acc += V(i, d, e) * (double)(1 + q % 3);
        }]], CC)
    record(kernel, v[1], t, check)
  end
end

if not bench[KERNEL] then
  io.stderr:write("usage: speck teams.lua lap GN | kron SCALE EF | barrier N | tensor C D E P\n")
  os.exit(2)
end
local inf = speck.info()
info("speck", "threads", inf.threads)
info("speck", "cc_available", inf.compilers and inf.compilers.cc
                              and inf.compilers.cc.available and "yes" or "no")
bench[KERNEL](table.unpack(arg, 2))
