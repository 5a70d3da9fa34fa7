local speck = require "speck"
-- teams_spec.lua: TeamPolicy (hierarchical parallelism) on the host back
-- ends: the seed's examples (team SpMV, the multi-matrix multiply), a
-- scratch-tiled transpose, nested reductions and scans for every op and
-- several dtypes over team sizes 1, 2 and team_size_max(), vector lengths
-- 1..32 and league sizes 0, 1, primes and 10007, the team handle, the
-- single/broadcast constructs, schedules, a barrier stress test, scratch
-- limits and every bad input with its exact message. Every result is
-- checked against the same computation in plain Lua. tests/run.sh runs the
-- spec once per back end; team sizes above policy:team_size_max() (1 on
-- serial) are reported pending.

local SPACE = speck.info().default_space
-- the limits, scratch layout and messages asserted below are the host
-- back ends' (backends/host/team.c); other spaces skip those tests
local HOST = SPACE == "serial" or SPACE == "openmp"
local function host_only() return pending("host back ends only (limits, scratch layout)") end
local SPECK_BIN = os.getenv("SPECK_BIN") or "build/bin/speck"
local LIMITS = speck.TeamPolicy(1, 1)
local TMAX = LIMITS:team_size_max()
local VMAX = LIMITS:vector_length_max()

-- team sizes 1, 2 and the maximum (deduplicated, in order)
local TEAM_SIZES = {}
do
  local seen = {}
  for _, t in ipairs{1, 2, TMAX} do
    if not seen[t] then seen[t] = true; TEAM_SIZES[#TEAM_SIZES + 1] = t end
  end
end
local VECTOR_LENGTHS = {1, 2, 4, 8, 16, 32}
local LEAGUES = {0, 1, 7, 13, 101, 10007}
local LMAX = 10007

local function too_big(T)
  return ("team size %d: team_size_max() is %d on %s"):format(T, TMAX, SPACE)
end

local CTYPE = {float64 = "double", float32 = "float", int64 = "int64_t",
               int32 = "int32_t", int16 = "int16_t", int8 = "int8_t",
               uint64 = "uint64_t", uint32 = "uint32_t", uint8 = "uint8_t",
               bool = "bool"}
local BITS = {int64 = 64, int32 = 32, int16 = 16, int8 = 8, uint64 = 64,
              uint32 = 32, uint8 = 8}
local SIGNED = {int64 = true, int32 = true, int16 = true, int8 = true}
local FLOAT = {float64 = true, float32 = true}

-- the value a C integer of 'dt' holds after (dt)v
local function wrap(dt, v)
  local bits = BITS[dt]
  if not bits or bits == 64 then return v end
  v = v & ((1 << bits) - 1)
  if SIGNED[dt] and v >= (1 << (bits - 1)) then v = v - (1 << bits) end
  return v
end
local function int_max(dt)
  if dt == "int64" then return math.maxinteger end
  if dt == "uint64" then return 2.0 ^ 64 end   -- a view reads values >= 2^63 as floats
  if SIGNED[dt] then return (1 << (BITS[dt] - 1)) - 1 end
  return (1 << BITS[dt]) - 1
end
local function int_min(dt)
  if dt == "int64" then return math.mininteger end
  if SIGNED[dt] then return -(1 << (BITS[dt] - 1)) end
  return 0
end

-- an error message without the "file:line: " position Lua may prepend
local function err_of(fn, ...)
  local ok, e = pcall(fn, ...)
  assert.is_false(ok, "expected an error")
  e = tostring(e)
  return (e:gsub("^[%w%./_%-]+%.lua:%d+: ", ""))
end

-- a small team kernel whose result is known: the VM still works
local function sanity()
  local T = math.min(2, TMAX)
  local r = speck.parallel_reduce("teams_sanity", speck.TeamPolicy(5, T), {}, [[
    int64_t t;
    TEAM_REDUCE(sum, j, 0, 10, t) { t += j; }
    SINGLE_TEAM(team) { acc += t + team.league_rank; }
  ]], {op = "sum", dtype = "int64"})
  assert.are.equal(5 * 45 + 10, r)
end

-- the first mismatch, as a message (nil when none)
local function first_bad(n, get_got, get_want, what)
  for q = 1, n do
    local got, want = get_got(q), get_want(q)
    if got ~= want then
      return ("%s: entry %d is %s, expected %s"):format(what, q, tostring(got),
                                                          tostring(want))
    end
  end
end

-- a deterministic 64-bit mix of (r, j)
local function mix(r, j)
  local x = r * 1000003 + j * 7919 + 12345
  x = (x ~ (x >> 17)) * 0x5bd1e995
  x = x ~ (x >> 29)
  return x
end

-- -- nested reductions: data per (op, dtype) ----------------------------------
local ROWLEN = 22                       -- row r has (7 r + 3) mod 23 entries
local function rowlen(r) return (r * 7 + 3) % 23 end

-- @V@: the reduction variable, @J@: the loop index
local UPDATE = {
  sum = "@V@ += X(r, @J@);", prod = "@V@ *= X(r, @J@);",
  min = "if (X(r, @J@) < @V@) @V@ = X(r, @J@);",
  max = "if (X(r, @J@) > @V@) @V@ = X(r, @J@);",
  land = "@V@ = @V@ && X(r, @J@);", lor = "@V@ = @V@ || X(r, @J@);",
  band = "@V@ &= X(r, @J@);", bor = "@V@ |= X(r, @J@);",
}

local function value(op, dt, r, j)
  if op == "sum" then
    local h = (r * 31 + j * 17) % 41
    return (SIGNED[dt] or FLOAT[dt]) and h - 20 or h
  elseif op == "prod" then
    if (r + j) % 7 == 0 then return 2 end
    if (r * 3 + j) % 5 == 0 and (SIGNED[dt] or FLOAT[dt]) then return -1 end
    return 1
  elseif op == "min" or op == "max" then
    local x = mix(r, j)
    if FLOAT[dt] then return ((x & 0xffff) % 2001 - 1000) / 8 end
    if dt == "uint64" then return x & 0x3fffffffffffffff end
    return wrap(dt, x)
  elseif op == "land" or op == "lor" then
    local hit = (r * 5 + j) % 29 == 0
    local v = (op == "land") ~= hit
    if dt == "bool" then return v end
    return v and 7 or 0
  elseif op == "band" then
    return wrap(dt, ~(1 << ((r * 3 + j) % BITS[dt])))
  elseif op == "bor" then
    return wrap(dt, 1 << ((r * 3 + j) % BITS[dt]))
  end
end

local function identity(op, dt)
  if op == "sum" then return 0 end
  if op == "prod" then return 1 end
  if op == "min" then return FLOAT[dt] and math.huge or int_max(dt) end
  if op == "max" then return FLOAT[dt] and -math.huge or int_min(dt) end
  if op == "land" then if dt == "bool" then return true end return 1 end
  if op == "lor" then if dt == "bool" then return false end return 0 end
  if op == "band" then return wrap(dt, -1) end
  if op == "bor" then return 0 end
end

local function join(op, dt, a, v)
  if op == "sum" then return FLOAT[dt] and a + v or wrap(dt, a + v) end
  if op == "prod" then return FLOAT[dt] and a * v or wrap(dt, a * v) end
  if op == "min" then return v < a and v or a end
  if op == "max" then return v > a and v or a end
  if op == "land" then
    if dt == "bool" then return a and v end
    return (a ~= 0 and v ~= 0) and 1 or 0
  end
  if op == "lor" then
    if dt == "bool" then return a or v end
    return (a ~= 0 or v ~= 0) and 1 or 0
  end
  if op == "band" then return wrap(dt, a & v) end
  if op == "bor" then return wrap(dt, a | v) end
end

-- rows as stored (read back, so float32 rounding is the kernel's)
local function make_rows(name, dt, fn)
  local N = speck.View(name .. "_n", "int64", LMAX)
  local X = speck.View(name .. "_x", dt, {LMAX, ROWLEN})
  for r = 0, LMAX - 1 do
    local n = rowlen(r)
    N[r] = n
    for j = 0, n - 1 do X:set(r, j, fn(r, j)) end
  end
  return N, X, X:totable()
end

local function row_reduce(op, dt, xt, r)
  local a = identity(op, dt)
  local row = xt[r + 1]
  for j = 1, rowlen(r) do a = join(op, dt, a, row[j]) end
  return a
end

local REDUCE_CASES = {
  {"sum", {"float64", "float32", "int64", "int32", "int8", "uint8"}},
  {"prod", {"float64", "int32", "int8"}},
  {"min", {"float64", "float32", "int64", "int16", "uint8", "uint64"}},
  {"max", {"float64", "float32", "int32", "uint32", "int8"}},
  {"land", {"bool", "int32"}},
  {"lor", {"bool", "int32"}},
  {"band", {"int64", "int32", "uint8"}},
  {"bor", {"int64", "uint32", "uint8"}},
}

local launch_id = 0
local function next_id() launch_id = launch_id + 1; return launch_id end

-- checks the marker view MK(r, t) == id exactly for r < L, t < T: every
-- entry counted on the view's own back end first (a GPU's LMAX x TMAX
-- markers as a Lua table cost the cuda suite about 0.2 s a league); the
-- entries read one by one only to name the first wrong one
local MARKER_BAD = "if ((MK(i, j) == id) != (i < L && j < T)) acc += 1;"
local function check_marker(MK, L, T, id)
  local bad = speck.parallel_reduce("team_marker_check",
    speck.MDRangePolicy({0, 0}, {LMAX, TMAX}), {MK = MK, L = L, T = T, id = id}, MARKER_BAD,
    {op = "sum", dtype = "int64"})
  if bad == 0 then return nil end
  local mk = MK:totable()
  for r = 1, LMAX do
    for t = 1, TMAX do
      local want = r <= L and t <= T
      if (mk[r][t] == id) ~= want then
        return ("league rank %d member %d %s"):format(r - 1, t - 1,
          want and "did not run" or "ran but should not have")
      end
    end
  end
end

-- the first L rows of view v (and of each row the first T entries, when
-- T is given) as a Lua table: what a league of L teams of T wrote
local function first_rows(v, L, T)
  if L == 0 then return {} end
  local sv = T and (v:rank() == 3 and speck.subview(v, {0, L}, {0, T}, speck.ALL)
                    or speck.subview(v, {0, L}, {0, T}))
             or speck.subview(v, {0, L}, speck.ALL)
  return sv:totable()
end

-- (team size index, league index) -> a vector length; over the leagues
-- every team size meets every vector length
local function vl_for(iT, iL)
  return VECTOR_LENGTHS[(iT + iL) % #VECTOR_LENGTHS + 1]
end

describe("TeamPolicy on " .. SPACE, function()

  -- -- the seed's team SpMV ------------------------------------------------
  -- a 2D 5-point Laplacian on an nx x ny grid as CSR
  local function laplacian(nx, ny)
    local rp, ci, va = {0}, {}, {}
    for y = 0, ny - 1 do
      for x = 0, nx - 1 do
        local function add(c, v) ci[#ci + 1] = c; va[#va + 1] = v end
        if y > 0 then add((y - 1) * nx + x, -1.0) end
        if x > 0 then add(y * nx + x - 1, -1.0) end
        add(y * nx + x, 4.0)
        if x < nx - 1 then add(y * nx + x + 1, -1.0) end
        if y < ny - 1 then add((y + 1) * nx + x, -1.0) end
        rp[#rp + 1] = #ci
      end
    end
    return rp, ci, va
  end

  local SPMV_BODY = [[
    const int64_t i = team.league_rank;
    double r;
    TEAM_REDUCE(sum, j, rowptr(i), rowptr(i + 1), r) {
      r += values(j) * x(colidx(j));
    }
    SINGLE_TEAM(team) { y(i) = r; }
  ]]

  local function spmv_setup()
    local nx, ny = 24, 17
    local rp, ci, va = laplacian(nx, ny)
    local n = nx * ny
    local xs = {}
    local seed = 12345
    for q = 1, n do
      seed = (seed * 1103515245 + 12345) % 2147483648
      xs[q] = seed / 2147483648 - 0.5
    end
    local want = {}
    for row = 0, n - 1 do
      local s = 0.0
      for q = rp[row + 1], rp[row + 2] - 1 do s = s + va[q + 1] * xs[ci[q + 1] + 1] end
      want[row + 1] = s
    end
    return {
      n = n, want = want,
      rowptr = speck.View.from(rp, "int64"), colidx = speck.View.from(ci, "int32"),
      values = speck.View.from(va, "float64"), x = speck.View.from(xs, "float64"),
    }
  end

  local function close(a, b) return math.abs(a - b) <= 1e-12 * math.max(1, math.abs(b)) end

  describe("the seed's team SpMV (one team per row, TEAM_REDUCE over its entries)", function()
    local S = spmv_setup()
    for _, T in ipairs(TEAM_SIZES) do
      it(("team size %d matches a serial Lua SpMV"):format(T), function()
        if T > TMAX then return pending(too_big(T)) end
        for _, V in ipairs{1, 4, 32} do
          local y = speck.View("y", "float64", S.n)
          y:fill(-99)
          speck.parallel_for("team_spmv", speck.TeamPolicy(S.n, T, V),
            {rowptr = S.rowptr, colidx = S.colidx, values = S.values, x = S.x, y = y},
            SPMV_BODY)
          local yt = y:totable()
          for row = 1, S.n do
            assert(close(yt[row], S.want[row]),
                   ("T=%d V=%d row %d: %s vs %s"):format(T, V, row - 1, yt[row], S.want[row]))
          end
        end
      end)
    end

    it("gives bitwise the same y for every schedule and chunk size", function()
      local T = math.min(2, TMAX)
      local function run(opts)
        local y = speck.View("y", "float64", S.n)
        speck.parallel_for("team_spmv", speck.TeamPolicy(S.n, T, opts),
          {rowptr = S.rowptr, colidx = S.colidx, values = S.values, x = S.x, y = y},
          SPMV_BODY)
        return y:totable()
      end
      local ref = run({})
      for _, o in ipairs{{schedule = "static"}, {schedule = "dynamic"},
                         {schedule = "dynamic", chunk = 1}, {chunk = 3},
                         {schedule = "dynamic", chunk = 64},
                         {schedule = "static", chunk = 100000}} do
        assert.are.same(ref, run(o))
      end
      for row = 1, S.n do assert(close(ref[row], S.want[row])) end
    end)
  end)

  -- -- the seed's multi-matrix multiply ------------------------------------
  describe("the multi-matrix multiply V(c,d,e) = sum_p A(c,p,d) B(c,p,e)", function()
    local C, P, D, E = 53, 8, 3, 4
    local A = speck.View("A", "float64", {C, P, D})
    local B = speck.View("B", "float64", {C, P, E})
    for c = 0, C - 1 do
      for p = 0, P - 1 do
        for d = 0, D - 1 do A:set(c, p, d, (c * 7 + p * 3 + d) % 11 - 5) end
        for e = 0, E - 1 do B:set(c, p, e, (c * 5 + p + e * 2) % 13 - 6) end
      end
    end
    local want = {}
    for c = 0, C - 1 do
      for d = 0, D - 1 do
        for e = 0, E - 1 do
          local s = 0
          for p = 0, P - 1 do s = s + A(c, p, d) * B(c, p, e) end
          want[#want + 1] = s
        end
      end
    end
    local function check(Vv, what)
      local got = {}
      for c = 0, C - 1 do
        for d = 0, D - 1 do
          for e = 0, E - 1 do got[#got + 1] = Vv(c, d, e) end
        end
      end
      assert.is_nil(first_bad(#want, function(q) return got[q] end,
                              function(q) return want[q] end, what))
    end
    local BODIES = {
      ["TEAM_FOR over (d, e), VECTOR_REDUCE over p"] = [[
        const int64_t c = team.league_rank;
        TEAM_FOR(de, 0, V.extent[1] * V.extent[2]) {
          const int64_t d = de / V.extent[2], e = de % V.extent[2];
          double s;
          VECTOR_REDUCE(sum, p, 0, A.extent[1], s) { s += A(c, p, d) * B(c, p, e); }
          V(c, d, e) = s;
        }
      ]],
      ["a loop over (d, e), TEAM_REDUCE over p"] = [[
        const int64_t c = team.league_rank;
        for (int64_t de = 0; de < V.extent[1] * V.extent[2]; ++de) {
          const int64_t d = de / V.extent[2], e = de % V.extent[2];
          double s;
          TEAM_REDUCE(sum, p, 0, A.extent[1], s) { s += A(c, p, d) * B(c, p, e); }
          SINGLE_TEAM(team) { V(c, d, e) = s; }
        }
      ]],
      ["TEAM_FOR over d, VECTOR_FOR over e, a plain loop over p"] = [[
        const int64_t c = team.league_rank;
        TEAM_FOR(d, 0, V.extent[1]) {
          VECTOR_FOR(e, 0, V.extent[2]) {
            double s = 0;
            for (int64_t p = 0; p < A.extent[1]; ++p) s += A(c, p, d) * B(c, p, e);
            V(c, d, e) = s;
          }
        }
      ]],
      ["TEAM_VECTOR_FOR over (d, e), a plain loop over p"] = [[
        const int64_t c = team.league_rank;
        TEAM_VECTOR_FOR(de, 0, V.extent[1] * V.extent[2]) {
          const int64_t d = de / V.extent[2], e = de % V.extent[2];
          double s = 0;
          for (int64_t p = 0; p < A.extent[1]; ++p) s += A(c, p, d) * B(c, p, e);
          V(c, d, e) = s;
        }
      ]],
      ["TEAM_VECTOR_REDUCE over p per (d, e)"] = [[
        const int64_t c = team.league_rank;
        for (int64_t d = 0; d < V.extent[1]; ++d)
          for (int64_t e = 0; e < V.extent[2]; ++e) {
            double s;
            TEAM_VECTOR_REDUCE(sum, p, 0, A.extent[1], s) { s += A(c, p, d) * B(c, p, e); }
            if (team.team_rank == team.team_size - 1) V(c, d, e) = s;
          }
      ]],
    }
    local names = {}
    for k in pairs(BODIES) do names[#names + 1] = k end
    table.sort(names)
    for _, name in ipairs(names) do
      for _, T in ipairs(TEAM_SIZES) do
        it(("%s, team size %d"):format(name, T), function()
          if T > TMAX then return pending(too_big(T)) end
          for _, Vl in ipairs{1, 8} do
            local Vv = speck.View("V", "float64", {C, D, E})
            Vv:fill(12345)
            speck.parallel_for("team_mmm", speck.TeamPolicy(C, T, Vl),
                               {A = A, B = B, V = Vv}, BODIES[name])
            check(Vv, name)
          end
        end)
      end
    end
  end)

  -- -- scratch ---------------------------------------------------------------
  describe("scratch", function()
    local TS = 8
    local TRANSPOSE = [[
      const int64_t nr = M.extent[0], nc = M.extent[1];
      const int64_t nbc = (nc + TS - 1) / TS;
      const int64_t ti = team.league_rank / nbc, tj = team.league_rank % nbc;
      double *tile = (double *)team_scratch(team, LEVEL, TS * TS * sizeof(double));
      TEAM_FOR(q, 0, TS * TS) {             /* load: row-major over the tile */
        const int64_t a = q / TS, b = q % TS, r = ti * TS + a, c = tj * TS + b;
        tile[a * TS + b] = (r < nr && c < nc) ? M(r, c) : 0.0;
      }
      team_barrier(team);                   /* another member loaded my reads */
      TEAM_FOR(q, 0, TS * TS) {             /* store: column-major over the tile */
        const int64_t b = q / TS, a = q % TS, r = ti * TS + a, c = tj * TS + b;
        if (r < nr && c < nc) MT(c, r) = tile[a * TS + b];
      }
    ]]
    local function transpose(level, T, trailing_barrier)
      local nr, nc = 37, 53
      local M = speck.View("M", "float64", {nr, nc})
      for r = 0, nr - 1 do for c = 0, nc - 1 do M:set(r, c, r * 1000 + c) end end
      local MT = speck.View("MT", "float64", {nc, nr})
      MT:fill(-1)
      local league = ((nr + TS - 1) // TS) * ((nc + TS - 1) // TS)
      local req = level == 0 and {TS * TS * 8, 0} or {0, TS * TS * 8}
      speck.parallel_for("team_transpose", speck.TeamPolicy(league, T,
                         {scratch = {per_team = req}}),
                         {M = M, MT = MT, TS = TS, LEVEL = level},
                         TRANSPOSE .. (trailing_barrier and "team_barrier(team);\n" or ""))
      for c = 0, nc - 1 do
        for r = 0, nr - 1 do assert.are.equal(r * 1000 + c, MT(c, r)) end
      end
    end
    for _, level in ipairs{0, 1} do
      for _, T in ipairs(TEAM_SIZES) do
        it(("a tiled transpose through team_scratch level %d, team size %d"):format(level, T),
           function()
          if T > TMAX then return pending(too_big(T)) end
          transpose(level, T, true)
        end)
      end
    end

    -- as in Kokkos (whose host back ends rendezvous the team after each
    -- league rank), members do not lap one another between league ranks,
    -- so a body need not end in a barrier to protect its team scratch
    it("the transpose needs no trailing barrier: members do not lap one another", function()
      if TMAX < 2 then return pending(too_big(2)) end
      for _ = 1, 20 do transpose(0, TMAX, false) end
    end)

    for _, T in ipairs(TEAM_SIZES) do
      it(("team_scratch is shared by the team, thread_scratch private, team size %d"):format(T),
         function()
        if T > TMAX then return pending(too_big(T)) end
        local L = 13
        local shared = speck.View("shared", "int64", {L, TMAX})
        local own = speck.View("own", "int64", {L, TMAX})
        speck.parallel_for("team_scratch_share", speck.TeamPolicy(L, T,
            {scratch = {per_team = {8 * TMAX, 0}, per_thread = {0, 16}}}),
            {shared = shared, own = own}, [[
          const int64_t r = team.league_rank;
          const int me = team.team_rank;
          int64_t *s = (int64_t *)team_scratch(team, 0, 8 * team.team_size);
          int64_t *p = (int64_t *)thread_scratch(team, 1, 16);
          s[me] = r * 10 + me;
          p[0] = r * 1000 + me;
          team_barrier(team);
          int64_t sum = 0;
          for (int t = 0; t < team.team_size; ++t) sum += s[t];
          shared(r, me) = sum;
          own(r, me) = p[0];
          team_barrier(team);   /* not needed (see below), allowed */
        ]])
        for r = 0, L - 1 do
          local sum = 0
          for t = 0, T - 1 do sum = sum + r * 10 + t end
          for t = 0, T - 1 do
            assert.are.equal(sum, shared(r, t))
            assert.are.equal(r * 1000 + t, own(r, t))
          end
        end
      end)
    end

    it("team_scratch is a 64-byte aligned bump allocator, reset per league rank", function()
      if not HOST then return host_only() end
      local L = 13
      local out = speck.View("out", "int64", {L, 3})
      -- 2 x 100 bytes fit a 256-byte request only because each league rank
      -- starts over; the second block starts at the next 64-byte boundary
      speck.parallel_for("team_scratch_bump", speck.TeamPolicy(L, 1,
          {scratch = {per_team = {256, 0}}}), {out = out}, [[
        char *a = (char *)team_scratch(team, 0, 100);
        char *b = (char *)team_scratch(team, 0, 100);
        out(team.league_rank, 0) = b - a;
        out(team.league_rank, 1) = (int64_t)((uint64_t)a % 64);
        out(team.league_rank, 2) = a != NULL && b != NULL;
      ]])
      for r = 0, L - 1 do
        assert.are.same({128, 0, 1}, {out(r, 0), out(r, 1), out(r, 2)})
      end
    end)

    it("the whole level-0 limit can be requested and used", function()
      if not HOST then return host_only() end
      local max0 = LIMITS:scratch_size_max(0)
      assert.are.equal(1024 * 1024, max0)
      assert.are.equal(1024 * 1024 * 1024, LIMITS:scratch_size_max(1))
      local out = speck.View("out", "int64", 3)
      speck.parallel_for("team_scratch_full", speck.TeamPolicy(3, 1,
          {scratch = {per_team = {max0, 0}}}), {out = out, MAX = max0}, [[
        uint8_t *s = (uint8_t *)team_scratch(team, 0, MAX);
        s[0] = 1; s[MAX - 1] = 2;
        out(team.league_rank) = s[0] + s[MAX - 1];
      ]])
      assert.are.same({3, 3, 3}, out:totable())
    end)

    it("a request above the limit fails the launch with a clear error", function()
      if not HOST then return host_only() end
      local max0, max1 = LIMITS:scratch_size_max(0), LIMITS:scratch_size_max(1)
      local x = speck.View("x", "int64", 1)
      assert.are.equal(
        ("speck.parallel_for 'team_big0': scratch level 0 asks %d bytes per team "
         .. "(%d per team + 1 x 0 per thread), at most %d"):format(max0 + 1, max0 + 1, max0),
        err_of(speck.parallel_for, "team_big0",
               speck.TeamPolicy(2, 1, {scratch = {per_team = {max0 + 1, 0}}}),
               {x = x}, "x(0) = 1;"))
      sanity()
      local T = TMAX
      local per = max1 // T + 1
      assert.are.equal(
        ("speck.parallel_for 'team_big1': scratch level 1 asks %d bytes per team "
         .. "(0 per team + %d x %d per thread), at most %d"):format(T * per, T, per, max1),
        err_of(speck.parallel_for, "team_big1",
               speck.TeamPolicy(2, T, {scratch = {per_thread = {0, per}}}),
               {x = x}, "x(0) = 1;"))
      sanity()
      assert.are.equal(0, x(0))
    end)

    it("a team_scratch / thread_scratch overrun fails the launch with a clear error", function()
      if not HOST then return host_only() end
      local x = speck.View("x", "int64", 4)
      local BODY = [[
        int64_t *s = (int64_t *)team_scratch(team, 0, 128);
        if (s) s[0] = 1;
        x(team.league_rank) = 1;
      ]]
      assert.are.equal(
        "speck.parallel_for 'team_overrun': a scratch request of 128 bytes does not "
        .. "fit the policy's scratch (team 64/0, thread 0/0 bytes at levels 0/1)",
        err_of(speck.parallel_for, "team_overrun",
               speck.TeamPolicy(4, 1, {scratch = {per_team = {64, 0}}}), {x = x}, BODY))
      sanity()
      assert.are.equal(
        "speck.parallel_for 'thread_overrun': a scratch request of 8 bytes does not "
        .. "fit the policy's scratch (team 0/0, thread 0/32 bytes at levels 0/1)",
        err_of(speck.parallel_for, "thread_overrun",
               speck.TeamPolicy(4, 1, {scratch = {per_thread = {0, 32}}}), {x = x}, [[
          int64_t *a = (int64_t *)thread_scratch(team, 1, 32);
          int64_t *b = (int64_t *)thread_scratch(team, 1, 8);   /* 32 + 8 > 32 */
          if (a && b) a[0] = b[0] = 0;
        ]]))
      sanity()
      -- the same kernel with a big enough request works
      x:fill(0)
      speck.parallel_for("team_overrun", speck.TeamPolicy(4, 1, {scratch = {per_team = {128, 0}}}),
                         {x = x}, BODY)
      assert.are.same({1, 1, 1, 1}, x:totable())
    end)

    it("a scratch level other than 0 or 1 fails the launch with a clear error", function()
      if not HOST then return host_only() end
      local x = speck.View("x", "int64", 4)
      assert.are.equal(
        "speck.parallel_for 'scr_level2': team_scratch: scratch level 2 does not exist "
        .. "(levels are 0 and 1)",
        err_of(speck.parallel_for, "scr_level2",
               speck.TeamPolicy(4, 1, {scratch = {per_team = {64, 64}}}), {x = x}, [[
          char *p = (char *)team_scratch(team, 2, 8);
          p[0] = 1;   /* a stand-in block, never the arena */
          x(team.league_rank) = 1;
        ]]))
      sanity()
      assert.are.equal(
        "speck.parallel_for 'scr_level_m1': thread_scratch: scratch level -1 does not exist "
        .. "(levels are 0 and 1)",
        err_of(speck.parallel_for, "scr_level_m1",
               speck.TeamPolicy(4, 1, {scratch = {per_thread = {64, 64}}}), {x = x},
               "char *p = (char *)thread_scratch(team, 1, 8); p = (char *)thread_scratch(team, -1, 8); p[0] = 1;"))
      sanity()
      assert.are.equal(
        "speck.parallel_for 'scr_negative': team_scratch: a scratch request of -8 bytes is negative",
        err_of(speck.parallel_for, "scr_negative",
               speck.TeamPolicy(4, 1, {scratch = {per_team = {64, 0}}}), {x = x},
               "int64_t n = -8; char *p = (char *)team_scratch(team, 0, n); (void)p;"))
      sanity()
    end)

    it("a scratch request whose end wraps int64 fails the launch with a clear error", function()
      if not HOST then return host_only() end
      local x = speck.View("x", "int64", 4)
      assert.are.equal(
        "speck.parallel_for 'scr_wrap': a scratch request of 9223372036854775797 bytes does not "
        .. "fit the policy's scratch (team 128/0, thread 0/0 bytes at levels 0/1)",
        err_of(speck.parallel_for, "scr_wrap",
               speck.TeamPolicy(4, 1, {scratch = {per_team = {128, 0}}}), {x = x}, [[
          char *a = (char *)team_scratch(team, 0, 64);
          char *b = (char *)team_scratch(team, 0, 9223372036854775807L - 10);   /* 64 + that wraps */
          a[0] = 1;
          x(team.league_rank) = b != 0;
        ]]))
      sanity()
    end)

    -- a level far outside 0..1 indexed the team context's arrays with it;
    -- per-team + per-thread scratch whose sum wraps int64 laid the arena
    -- out with wrapped offsets. Child processes, so that a regression
    -- cannot take the suite down.
    for _, case in ipairs{
      {"a scratch level far outside 0..1", "scratch = {per_team = {64, 0}}",
       "char *p = (char *)team_scratch(team, 1 << 30, 8); p[0] = 1;",
       "speck.parallel_for 'big': team_scratch: scratch level 1073741824 does not exist (levels are 0 and 1)"},
      {"per-team + per-thread scratch whose sum wraps int64",
       "scratch = {per_team = {math.maxinteger, 0}, per_thread = {math.maxinteger, 0}}",
       "char *p = (char *)team_scratch(team, 0, 64); p[0] = 1; p[1 << 20] = 2;",
       nil},
    } do
      it(case[1] .. " fails the launch instead of crashing", function()
        if not HOST then return host_only() end
        local code = ([[
          local x = speck.View("x", "int64", 4)
          local ok, e = pcall(speck.parallel_for, "big", speck.TeamPolicy(1, 1, {%s}), {x = x}, "%s")
          io.write(ok and "ran" or e)
        ]]):format(case[2], case[3])
        local f = io.popen(("(ulimit -c 0; SPECK_SPACE=%s timeout -k 10 20 %s -e '%s'; echo \" rc=$?\") 2>&1"):format(
          SPACE, SPECK_BIN, code))
        local out = f:read("a")
        f:close()
        if case[4] then
          assert.are.equal(case[4] .. " rc=0\n", out)
        else
          -- refused by the policy check or by the arena layout: either way
          -- a message about the scratch request, and no crash
          assert.is_truthy(out:find("^speck%.parallel_for 'big': .*scratch.* rc=0\n$"), out)
        end
      end)
    end

    -- an overrun must not leave the body a NULL to write through (that
    -- killed the process before the launch could report); in a child
    -- process so that a regression cannot take the suite down
    it("an unchecked team_scratch overrun fails the launch instead of crashing", function()
      if not HOST then return host_only() end
      local code = [[
        local x = speck.View("x", "int64", 4)
        local ok, e = pcall(speck.parallel_for, "ov", speck.TeamPolicy(4, 1,
          {scratch = {per_team = {64, 0}}}), {x = x},
          "int64_t *s = (int64_t *)team_scratch(team, 0, 128); s[0] = 1; x(team.league_rank) = s[0];")
        io.write(ok and "ran" or e)
      ]]
      local f = io.popen(("(ulimit -c 0; SPECK_SPACE=%s timeout -k 10 20 %s -e '%s'; echo \" rc=$?\") 2>&1"):format(
        SPACE, SPECK_BIN, code))
      local out = f:read("a")
      f:close()
      assert.are.equal("speck.parallel_for 'ov': a scratch request of 128 bytes does not "
        .. "fit the policy's scratch (team 64/0, thread 0/0 bytes at levels 0/1) rc=0\n", out)
    end)
  end)

  -- -- nested reductions ----------------------------------------------------
  describe("nested reductions (TEAM_REDUCE, VECTOR_REDUCE, TEAM_VECTOR_REDUCE)", function()
    for _, case in ipairs(REDUCE_CASES) do
      local op, dts = case[1], case[2]
      for _, dt in ipairs(dts) do
        local body = ([[
          const int64_t r = team.league_rank;
          const int64_t n = N(r);
          const int me = team.team_rank;
          @CT@ t, v, w;
          TEAM_REDUCE(@OP@, j, 0, n, t) { @UT@ }
          VECTOR_REDUCE(@OP@, k, 0, n, v) { @UV@ }
          TEAM_VECTOR_REDUCE(@OP@, j, 0, n, w) { @UW@ }
          O(r, me, 0) = t; O(r, me, 1) = v; O(r, me, 2) = w;
          MK(r, me) = id;
        ]]):gsub("@CT@", CTYPE[dt]):gsub("@OP@", op)
           :gsub("@UT@", (UPDATE[op]:gsub("@V@", "t"):gsub("@J@", "j")))
           :gsub("@UV@", (UPDATE[op]:gsub("@V@", "v"):gsub("@J@", "k")))
           :gsub("@UW@", (UPDATE[op]:gsub("@V@", "w"):gsub("@J@", "j")))
        local data
        for iT, T in ipairs(TEAM_SIZES) do
          it(("%s over %s, team size %d, every league size"):format(op, dt, T), function()
            if T > TMAX then return pending(too_big(T)) end
            if not data then
              local N, X, xt = make_rows("red", dt, function(r, j) return value(op, dt, r, j) end)
              local want = {}
              for r = 0, LMAX - 1 do want[r + 1] = row_reduce(op, dt, xt, r) end
              data = {N = N, X = X, want = want,
                      O = speck.View("O", dt, {LMAX, TMAX, 3}),
                      MK = speck.View("MK", "int64", {LMAX, TMAX})}
            end
            for iL, L in ipairs(LEAGUES) do
              local V = vl_for(iT, iL)
              local id = next_id()
              speck.parallel_for("team_nested_" .. op .. "_" .. dt, speck.TeamPolicy(L, T, V),
                                 {N = data.N, X = data.X, O = data.O, MK = data.MK, id = id},
                                 body)
              assert.is_nil(check_marker(data.MK, L, T, id))
              local ot = first_rows(data.O, L, T)
              for r = 1, L do
                for t = 1, T do
                  for c = 1, 3 do
                    if ot[r][t][c] ~= data.want[r] then
                      error(("L=%d T=%d V=%d rank %d member %d construct %d: %s, expected %s")
                            :format(L, T, V, r - 1, t - 1, c, tostring(ot[r][t][c]),
                                    tostring(data.want[r])))
                    end
                  end
                end
              end
            end
          end)
        end
      end
    end

    it("min and max over float, int and unsigned locals start at the type's extremes", function()
      local out = speck.View("out", "float64", 8)
      speck.parallel_for("team_red_ident", speck.TeamPolicy(1, 1), {out = out}, [[
        float f; int32_t a; uint16_t u; int8_t b; double d; uint64_t q; int64_t l; bool z;
        TEAM_REDUCE(min, j, 0, 0, f) { f = 0; }
        TEAM_REDUCE(max, j, 0, 0, a) { a = 0; }
        VECTOR_REDUCE(min, k, 0, 0, u) { u = 0; }
        VECTOR_REDUCE(max, k, 0, 0, b) { b = 0; }
        TEAM_REDUCE(max, j, 0, 0, d) { d = 0; }
        TEAM_REDUCE(band, j, 0, 0, q) { q = 0; }
        TEAM_REDUCE(min, j, 0, 0, l) { l = 0; }
        TEAM_REDUCE(land, j, 0, 0, z) { z = 0; }
        out(0) = f; out(1) = a; out(2) = u; out(3) = b; out(4) = d;
        out(5) = q == 18446744073709551615UL; out(6) = l == 9223372036854775807L; out(7) = z;
      ]])
      assert.are.same({math.huge, -2147483648, 65535, -128, -math.huge, 1, 1, 1}, out:totable())
    end)

    it("VECTOR_REDUCE nested in TEAM_FOR reduces each row once", function()
      local R, Cn = 29, 41
      local M = speck.View("M", "int32", {R, Cn})
      for r = 0, R - 1 do for c = 0, Cn - 1 do M:set(r, c, (r * 13 + c * 7) % 19 - 9) end end
      for _, T in ipairs(TEAM_SIZES) do
        if T <= TMAX then
          local rs = speck.View("rs", "int64", R)
          speck.parallel_for("team_rowsums", speck.TeamPolicy(1, T, 8), {M = M, rs = rs}, [[
            TEAM_FOR(r, 0, M.extent[0]) {
              int64_t s;
              VECTOR_REDUCE(sum, c, 0, M.extent[1], s) { s += M(r, c); }
              rs(r) = s;
            }
          ]])
          for r = 0, R - 1 do
            local s = 0
            for c = 0, Cn - 1 do s = s + M(r, c) end
            assert.are.equal(s, rs(r))
          end
        end
      end
    end)
  end)

  -- -- nested scans -----------------------------------------------------------
  describe("nested scans (TEAM_SCAN, VECTOR_SCAN)", function()
    for _, dt in ipairs{"float64", "float32", "int64", "int32", "int16"} do
      local body = ([[
        const int64_t r = team.league_rank;
        const int64_t n = N(r);
        const int me = team.team_rank;
        @CT@ s, s2;
        TEAM_SCAN(j, 0, n, s) {
          if (final) Y(r, j) = s;
          s += X(r, j);
        }
        VECTOR_SCAN(k, 0, n, s2) {
          if (final && me == 0) Y2(r, k) = s2;
          s2 += X(r, k);
        }
        O(r, me, 0) = s; O(r, me, 1) = s2;
        MK(r, me) = id;
      ]]):gsub("@CT@", CTYPE[dt])
      local data
      for iT, T in ipairs(TEAM_SIZES) do
        it(("an exclusive scan over %s, team size %d, every league size"):format(dt, T), function()
          if T > TMAX then return pending(too_big(T)) end
          if not data then
            local N, X, xt = make_rows("scan", dt, function(r, j) return value("sum", dt, r, j) end)
            data = {N = N, X = X, xt = xt,
                    Y = speck.View("Y", dt, {LMAX, ROWLEN}),
                    Y2 = speck.View("Y2", dt, {LMAX, ROWLEN}),
                    O = speck.View("O", dt, {LMAX, TMAX, 2}),
                    MK = speck.View("MK", "int64", {LMAX, TMAX})}
          end
          for iL, L in ipairs(LEAGUES) do
            local V = vl_for(iT, iL)
            local id = next_id()
            data.Y:fill(-12345)
            data.Y2:fill(-12345)
            speck.parallel_for("team_scan_" .. dt, speck.TeamPolicy(L, T, V),
                               {N = data.N, X = data.X, Y = data.Y, Y2 = data.Y2,
                                O = data.O, MK = data.MK, id = id}, body)
            assert.is_nil(check_marker(data.MK, L, T, id))
            local yt, y2t = first_rows(data.Y, L), first_rows(data.Y2, L)
            local ot = first_rows(data.O, L, T)
            for r = 1, L do
              local row, pre = data.xt[r], 0
              local n = rowlen(r - 1)
              for j = 1, ROWLEN do
                local want = j <= n and pre or -12345
                if yt[r][j] ~= want or y2t[r][j] ~= want then
                  error(("L=%d T=%d rank %d j=%d: team %s vector %s, expected %s"):format(
                    L, T, r - 1, j - 1, yt[r][j], y2t[r][j], want))
                end
                if j <= n then pre = pre + row[j] end
              end
              for t = 1, T do
                if ot[r][t][1] ~= pre or ot[r][t][2] ~= pre then
                  error(("L=%d T=%d rank %d member %d: totals %s %s, expected %s"):format(
                    L, T, r - 1, t - 1, ot[r][t][1], ot[r][t][2], pre))
                end
              end
            end
          end
        end)
      end
    end
  end)

  -- -- parallel_reduce over a TeamPolicy ---------------------------------------
  describe("parallel_reduce over a TeamPolicy with a nested TEAM_REDUCE", function()
    local N, X, xt = make_rows("pr", "int64", function(r, j) return value("sum", "int64", r, j) end)
    local rowsum = {}
    for r = 0, LMAX - 1 do rowsum[r + 1] = row_reduce("sum", "int64", xt, r) end
    local BODY = [[
      const int64_t r = team.league_rank;
      int64_t t;
      TEAM_REDUCE(sum, j, 0, N(r), t) { t += X(r, j); }
      SINGLE_TEAM(team) { acc += t; }
    ]]
    local BODY2 = [[
      const int64_t r = team.league_rank;
      double t;
      TEAM_REDUCE(sum, j, 0, N(r), t) { t += X(r, j); }
      SINGLE_TEAM(team) { acc0 += t; if (t > acc1) acc1 = t; }
    ]]
    for iT, T in ipairs(TEAM_SIZES) do
      it(("each team adds its total once, team size %d, every league size"):format(T), function()
        if T > TMAX then return pending(too_big(T)) end
        for iL, L in ipairs(LEAGUES) do
          local want, mx = 0, -math.huge
          for r = 1, L do want = want + rowsum[r]; mx = math.max(mx, rowsum[r]) end
          local pol = speck.TeamPolicy(L, T, vl_for(iT, iL))
          local got = speck.parallel_reduce("team_pr", pol, {N = N, X = X}, BODY,
                                            {op = "sum", dtype = "int64"})
          assert.are.equal(want, got)
          local s, m = speck.parallel_reduce("team_pr2", pol, {N = N, X = X}, BODY2,
                                             {"sum", "max"})
          assert.are.equal(want, s)
          assert.are.equal(mx, m)
        end
      end)
    end

    it("every schedule and chunk size gives the same total", function()
      local T = math.min(2, TMAX)
      local want = 0
      for r = 1, LMAX do want = want + rowsum[r] end
      for _, o in ipairs{{}, {schedule = "static"}, {schedule = "dynamic"},
                         {schedule = "dynamic", chunk = 1}, {chunk = 7},
                         {schedule = "dynamic", chunk = 500}, {chunk = 1000000}} do
        local got = speck.parallel_reduce("team_pr", speck.TeamPolicy(LMAX, T, o),
                                          {N = N, X = X}, BODY, {op = "sum", dtype = "int64"})
        assert.are.equal(want, got)
      end
    end)
  end)

  -- -- the team handle -------------------------------------------------------
  describe("the team handle", function()
    local BODY = [[
      const int64_t r = team.league_rank;
      const int me = team.team_rank;
      F(r, me, 0) = team.league_rank; F(r, me, 1) = team.league_size;
      F(r, me, 2) = team.team_rank;   F(r, me, 3) = team.team_size;
      F(r, me, 4) = team.vector_length;
      /* outside the vector constructs every vector lane runs (as in Kokkos
       * on GPUs): count once per thread */
      SINGLE_THREAD(team) { atomic_add(&C(r), 1); }
    ]]
    local function run(L, pol, T, V)
      local F = speck.View("F", "int64", {L + 1, TMAX, 5})   -- row L must stay untouched
      F:fill(-1)
      local C = speck.View("C", "int64", L + 1)
      speck.parallel_for("team_handle", pol, {F = F, C = C}, BODY)
      for r = 0, L do
        assert.are.equal(r < L and T or 0, C(r))
        for t = 0, TMAX - 1 do
          local want = (t < T and r < L) and {r, L, t, T, V} or {-1, -1, -1, -1, -1}
          assert.are.same(want, {F(r, t, 0), F(r, t, 1), F(r, t, 2), F(r, t, 3), F(r, t, 4)})
        end
      end
    end
    for _, T in ipairs(TEAM_SIZES) do
      it(("has league_rank, league_size, team_rank, team_size, vector_length, team size %d"):format(T),
         function()
        if T > TMAX then return pending(too_big(T)) end
        for _, V in ipairs{1, 2, 4, 8, 16, 32, VMAX} do
          run(101, speck.TeamPolicy(101, T, V), T, V)
        end
        run(7, speck.TeamPolicy(7, T), T, 1)
        run(0, speck.TeamPolicy(0, T, 4), T, 4)
      end)
    end

    it("'auto' team size and vector length are 1 on the CPU", function()
      if SPACE == "cuda" then return pending("host default: 'auto' is a CPU team of 1") end
      assert.are.equal(1, LIMITS:team_size_recommended())
      run(13, speck.TeamPolicy(13, "auto"), 1, 1)
      run(13, speck.TeamPolicy(13, "auto", "auto"), 1, 1)
      run(13, speck.TeamPolicy(13, "auto", 8), 1, 8)
      assert.are.equal("TeamPolicy(13, auto, 8)", tostring(speck.TeamPolicy(13, "auto", 8)))
    end)

    it("dynamic schedules and chunks run every league rank once per member", function()
      local T = TMAX
      for _, o in ipairs{{schedule = "dynamic"}, {schedule = "dynamic", chunk = 1},
                         {schedule = "dynamic", chunk = 5}, {chunk = 3},
                         {schedule = "static", chunk = 1}, {chunk = 1000}} do
        run(101, speck.TeamPolicy(101, T, 2, o), T, 2)
        run(0, speck.TeamPolicy(0, T, 2, o), T, 2)
      end
    end)

    it("limits are queryable", function()
      if not HOST then return host_only() end
      assert.is_true(TMAX >= 1)
      assert.are.equal(SPACE == "serial" and 1 or speck.info().threads, TMAX)
      assert.are.equal(64, VMAX)
    end)
  end)

  -- -- SINGLE_TEAM / SINGLE_THREAD / TEAM_BROADCAST --------------------------
  describe("SINGLE_TEAM, SINGLE_THREAD, TEAM_BROADCAST", function()
    for _, T in ipairs(TEAM_SIZES) do
      it(("run once per team / once per thread, broadcast reaches every member, team size %d"):format(T),
         function()
        if T > TMAX then return pending(too_big(T)) end
        local L = 101
        local once = speck.View("once", "int64", L)
        local each = speck.View("each", "int64", L)
        local B = speck.View("B", "int64", {L, TMAX})
        local D = speck.View("D", "float64", {L, TMAX})
        local G = speck.View("G", "int8", {L, TMAX})
        speck.parallel_for("team_single", speck.TeamPolicy(L, T, 4),
                           {once = once, each = each, B = B, D = D, G = G}, [[
          const int64_t r = team.league_rank;
          int64_t v = -1; double d = -1.0; int8_t g = 0;
          SINGLE_TEAM(team) { v = r * 3 + 1; d = r * 0.5; g = (int8_t)(r % 100); atomic_add(&once(r), 1); }
          SINGLE_THREAD(team) { atomic_add(&each(r), 1); }
          TEAM_BROADCAST(team, v);
          TEAM_BROADCAST(team, d);
          TEAM_BROADCAST(team, g);
          B(r, team.team_rank) = v; D(r, team.team_rank) = d; G(r, team.team_rank) = g;
        ]])
        for r = 0, L - 1 do
          assert.are.equal(1, once(r))
          assert.are.equal(T, each(r))
          for t = 0, T - 1 do
            assert.are.equal(r * 3 + 1, B(r, t))
            assert.are.equal(r * 0.5, D(r, t))
            assert.are.equal(r % 100, G(r, t))
          end
        end
      end)
    end

    it("'return' at the top of the body leaves the current league rank on every member",
       function()
      local T = TMAX
      local L = 31
      local x = speck.View("x", "int64", {L, TMAX})
      speck.parallel_for("team_return", speck.TeamPolicy(L, T), {x = x}, [[
        const int64_t r = team.league_rank;
        if (r % 3 == 1) return;          /* every member of the team returns */
        int64_t s;
        TEAM_REDUCE(sum, j, 0, r, s) { s += j; }
        x(r, team.team_rank) = s + 1;
      ]])
      for r = 0, L - 1 do
        for t = 0, T - 1 do
          assert.are.equal(r % 3 == 1 and 0 or r * (r - 1) // 2 + 1, x(r, t))
        end
      end
    end)
  end)

  -- -- barrier stress ----------------------------------------------------------
  describe("team_barrier", function()
    it("100,000 barriers in one league rank, team size 2: every write is seen", function()
      if TMAX < 2 then return pending(too_big(2)) end
      local bad = speck.View("bad", "int64", 2)
      local n = 100000
      local t = speck.Timer()
      speck.parallel_for("team_barrier_stress", speck.TeamPolicy(1, 2,
          {scratch = {per_team = {32, 0}}}), {bad = bad, n = n}, [[
        volatile int64_t *s = (volatile int64_t *)team_scratch(team, 0, 32);
        const int me = team.team_rank, other = 1 - me;
        int64_t miss = 0;
        for (int64_t it = 0; it < n; ++it) {
          s[(it & 1) * 2 + me] = it;        /* double-buffered: one barrier per step */
          team_barrier(team);
          if (s[(it & 1) * 2 + other] != it) miss++;
        }
        bad(me) = miss;
      ]])
      assert.are.same({0, 0}, bad:totable())
      assert(t:seconds() < 10, "100,000 barriers took " .. t:seconds() .. " s")
    end)

    -- BUG (reported): sk_team_barrier spins without ever yielding, so when
    -- the pool has more threads than the machine has free cores every
    -- barrier costs a scheduler time slice (about 6 ms each measured with 3
    -- threads on 2 cores: 2,000 barriers take 12 s). Runs in a child
    -- process with one thread more than there are cores.
    it("barriers stay cheap with more threads than cores (BUG)", function()
      if SPACE ~= "openmp" then return pending("a pool of threads (openmp) only") end
      local p = io.popen("nproc")
      local ncpu = tonumber(p:read("a")) or 2
      p:close()
      local code = [[
        local T = speck.TeamPolicy(1, 1):team_size_max()
        local r = speck.parallel_reduce("oversub", speck.TeamPolicy(1000, T), {},
          "int64_t t; TEAM_REDUCE(sum, j, 0, 10, t) { t += j; } SINGLE_TEAM(team) acc += t;",
          {op = "sum", dtype = "int64"})
        io.write(tostring(r))
      ]]
      -- (8 s: it takes well under 1 s; the bug made it take well over 10.
      -- 3 s here once timed out while the machine also built speck)
      local limit = 8
      local f = io.popen(("(SPECK_SPACE=openmp SPECK_THREADS=%d timeout %d %s -e '%s'; echo \" rc=$?\") 2>&1")
                         :format(ncpu + 1, limit, SPECK_BIN, code))
      local out = f:read("a")
      f:close()
      assert.are.equal("45000 rc=0\n", out)
    end)

    it("barriers between phases in many league ranks (team size max)", function()
      local T = TMAX
      local L = 1001
      local out = speck.View("out", "int64", {L, TMAX})
      speck.parallel_for("team_barrier_phases", speck.TeamPolicy(L, T,
          {schedule = "dynamic", chunk = 3, scratch = {per_team = {8 * 64, 0}}}), {out = out}, [[
        int64_t *s = (int64_t *)team_scratch(team, 0, 8 * 64);
        const int me = team.team_rank, T = team.team_size;
        for (int ph = 0; ph < 5; ++ph) {
          s[me] = team.league_rank * 10 + ph;
          team_barrier(team);
          int64_t ok = 1;
          for (int t = 0; t < T; ++t) ok &= s[t] == team.league_rank * 10 + ph;
          team_barrier(team);
          if (!ok) { out(team.league_rank, me) = -1 - ph; }
        }
        if (out(team.league_rank, me) == 0) out(team.league_rank, me) = 1;
      ]])
      for r = 0, L - 1 do
        for t = 0, T - 1 do assert.are.equal(1, out(r, t)) end
      end
    end)
  end)

  -- -- the cc tier -----------------------------------------------------------
  describe("the cc tier", function()
    it("compiles the team constructs (SpMV, scans, broadcast) to the same results", function()
      local S = spmv_setup()
      local T = TMAX
      local y = speck.View("y", "float64", S.n)
      speck.parallel_for("team_spmv_cc", speck.TeamPolicy(S.n, T, 8),
        {rowptr = S.rowptr, colidx = S.colidx, values = S.values, x = S.x, y = y},
        SPMV_BODY, {jit = "cc"})
      for row = 0, S.n - 1 do assert(close(y(row), S.want[row + 1])) end
      local L = 257
      local out = speck.View("out", "int64", {L, TMAX, 4})
      speck.parallel_for("team_mix_cc", speck.TeamPolicy(L, T, 4), {out = out}, [[
        const int64_t r = team.league_rank;
        int64_t s, s2, m, b = -1;
        TEAM_SCAN(j, 0, r, s) { s += j; }
        VECTOR_SCAN(k, 0, r, s2) { s2 += 2 * k; }
        TEAM_REDUCE(max, j, 0, r, m) { if (j * 7 % 11 > m) m = j * 7 % 11; }
        SINGLE_TEAM(team) { b = r * r; }
        TEAM_BROADCAST(team, b);
        out(r, team.team_rank, 0) = s; out(r, team.team_rank, 1) = s2;
        out(r, team.team_rank, 2) = m; out(r, team.team_rank, 3) = b;
      ]], {jit = "cc"})
      for r = 0, L - 1 do
        local mx = math.mininteger
        for j = 0, r - 1 do mx = math.max(mx, j * 7 % 11) end
        for t = 0, T - 1 do
          assert.are.same({r * (r - 1) // 2, r * (r - 1), mx, r * r},
                          {out(r, t, 0), out(r, t, 1), out(r, t, 2), out(r, t, 3)})
        end
      end
    end)

    it("a compiled kernel handle of kind 'team' relaunches with other policies", function()
      local k = speck.kernel("team_handle_k", "team", {x = speck.View("x", "int64", 1)}, [[
        int64_t s;
        TEAM_REDUCE(sum, j, 0, team.league_rank + 1, s) { s += j; }
        SINGLE_TEAM(team) { atomic_add(&x(0), s); }
      ]])
      for _, T in ipairs(TEAM_SIZES) do
        if T <= TMAX then
          for _, L in ipairs{0, 1, 13} do
            local x = speck.View("x", "int64", 1)
            k(speck.TeamPolicy(L, T), {x = x})
            local want = 0
            for r = 0, L - 1 do want = want + r * (r + 1) // 2 end
            assert.are.equal(want, x(0))
          end
        end
      end
    end)
  end)

  -- -- bad input -------------------------------------------------------------
  describe("bad input gives the exact message and leaves the VM usable", function()
    local x = speck.View("x", "int64", 4)
    local HANG = " the members of a team do not all reach it equally often, so the team would hang"

    it("team size above the maximum", function()
      assert.are.equal(
        ("speck.parallel_for 'bad_ts': team size %d exceeds the maximum %d of this back end")
          :format(TMAX + 1, TMAX),
        err_of(speck.parallel_for, "bad_ts", speck.TeamPolicy(4, TMAX + 1), {x = x}, "x(0) = 1;"))
      sanity()
      assert.are.equal(0, x(0))
    end)

    it("vector length not a power of two, or above the maximum", function()
      if not HOST then return host_only() end
      assert.are.equal("speck.TeamPolicy: vector length 3 is not a power of two",
                       err_of(speck.TeamPolicy, 4, 1, 3))
      assert.are.equal("speck.TeamPolicy: vector length 12 is not a power of two",
                       err_of(speck.TeamPolicy, 4, "auto", 12))
      assert.are.equal("speck.TeamPolicy: vector length -4 is not a power of two",
                       err_of(speck.TeamPolicy, 4, 1, -4))
      sanity()
      assert.are.equal("speck.parallel_for 'bad_vl': vector length 128 exceeds the maximum 64",
        err_of(speck.parallel_for, "bad_vl", speck.TeamPolicy(4, 1, 128), {x = x}, "x(0) = 1;"))
      sanity()
    end)

    it("negative league size, negative team size, non-integers", function()
      assert.are.equal("speck.TeamPolicy: league size -1 is negative",
                       err_of(speck.TeamPolicy, -1, 1))
      assert.are.equal("speck.TeamPolicy: team size -2 is negative",
                       err_of(speck.TeamPolicy, 4, -2))
      assert.are.equal("speck.TeamPolicy: league size must be an integer, got 2.5",
                       err_of(speck.TeamPolicy, 2.5, 1))
      assert.are.equal("speck.TeamPolicy: team size must be an integer, got two",
                       err_of(speck.TeamPolicy, 2, "two"))
      sanity()
    end)

    it("an unknown schedule and a negative scratch request", function()
      -- checked where the policy is made, by the check every launch makes
      assert.are.equal("speck.TeamPolicy: unknown schedule 'guided' (static or dynamic)",
        err_of(speck.TeamPolicy, 4, 1, {schedule = "guided"}))
      assert.are.equal("speck.TeamPolicy: negative scratch request",
        err_of(speck.TeamPolicy, 4, 1, {scratch = {per_team = {-8, 0}}}))
      assert.are.equal("speck.parallel_for 'bad_scr': negative scratch request",
        err_of(speck.parallel_for, "bad_scr", {kind = "team", league_size = 4, team_size = 1,
               scratch_team = {-8, 0}}, {x = x}, "x(0) = 1;"))
      sanity()
    end)

    it("a team construct inside a range or MDRange kernel", function()
      assert.are.equal("speck.parallel_for 'bad_range': 'TEAM_FOR' is a team construct, but "
        .. "this kernel runs a RangePolicy (use a TeamPolicy) (body line 2)",
        err_of(speck.parallel_for, "bad_range", 4, {x = x},
               "int64_t s = 0;\nTEAM_FOR(j, 0, 4) { s += j; }\nx(i) = s;"))
      sanity()
      assert.are.equal("speck.parallel_for 'bad_range2': 'team' is a team construct, but "
        .. "this kernel runs a RangePolicy (use a TeamPolicy) (body line 1)",
        err_of(speck.parallel_for, "bad_range2", 4, {x = x}, "x(i) = team.league_rank;"))
      sanity()
      assert.are.equal("speck.parallel_reduce 'bad_md': 'team_barrier' is a team construct, but "
        .. "this kernel runs an MDRangePolicy (use a TeamPolicy) (body line 1)",
        err_of(speck.parallel_reduce, "bad_md", speck.MDRangePolicy({0, 0}, {2, 2}), {},
               "team_barrier(team); acc += 1;"))
      sanity()
    end)

    it("a collective inside a nested loop", function()
      assert.are.equal("speck.parallel_for 'bad_bar_v': team_barrier inside VECTOR_FOR (body "
        .. "line 3):" .. HANG,
        err_of(speck.parallel_for, "bad_bar_v", speck.TeamPolicy(4, 1), {x = x},
               "int64_t s = 0;\nVECTOR_FOR(k, 0, 4) {\n  team_barrier(team);\n  s += k;\n}\n"))
      sanity()
      assert.are.equal("speck.parallel_for 'bad_bar_t': team_barrier inside TEAM_FOR (body "
        .. "line 1):" .. HANG,
        err_of(speck.parallel_for, "bad_bar_t", speck.TeamPolicy(4, 1), {x = x},
               "TEAM_FOR(j, 0, 4) team_barrier(team);"))
      sanity()
      assert.are.equal("speck.parallel_for 'bad_red_t': TEAM_REDUCE inside TEAM_FOR (body "
        .. "line 2):" .. HANG,
        err_of(speck.parallel_for, "bad_red_t", speck.TeamPolicy(4, 1), {x = x},
               "TEAM_FOR(j, 0, 4) {\n  int64_t s; TEAM_REDUCE(sum, k, 0, 4, s) { s += k; }\n}"))
      sanity()
      assert.are.equal("speck.parallel_for 'bad_bc_v': TEAM_BROADCAST inside VECTOR_REDUCE (body "
        .. "line 1):" .. HANG,
        err_of(speck.parallel_for, "bad_bc_v", speck.TeamPolicy(4, 1), {x = x},
               "int64_t s, b = 0; VECTOR_REDUCE(sum, k, 0, 4, s) { TEAM_BROADCAST(team, b); s += k; }"))
      sanity()
    end)

    it("a collective inside SINGLE_TEAM (only one member would reach it)", function()
      -- team size 1: a regression gives a wrong result here, not a hang
      assert.are.equal("speck.parallel_for 'bad_single': TEAM_BROADCAST inside SINGLE_TEAM "
        .. "(body line 2):" .. HANG,
        err_of(speck.parallel_for, "bad_single", speck.TeamPolicy(4, 1), {x = x},
               "int64_t v = 0;\nSINGLE_TEAM(team) { v = 5; TEAM_BROADCAST(team, v); }\nx(0) = v;"))
      sanity()
      assert.are.equal("speck.parallel_for 'bad_single2': team_barrier inside SINGLE_TEAM "
        .. "(body line 1):" .. HANG,
        err_of(speck.parallel_for, "bad_single2", speck.TeamPolicy(4, 1), {x = x},
               "SINGLE_TEAM(team) team_barrier(team);"))
      sanity()
    end)

    -- 'return' inside a nested construct would leave the league rank on
    -- some members only (the others wait in the join or barrier that
    -- follows); it is refused before compiling, naming the innermost
    -- construct around it
    it("'return' inside a nested construct", function()
      local LOOP = ": a nested construct cannot leave the league rank; use continue to end "
        .. "this iteration"
      local SINGLE = ": a nested construct cannot leave the league rank; put the rest of the "
        .. "block under an if instead"
      local cases = {
        {"TEAM_FOR", 2, LOOP, "int64_t s = 0;\nTEAM_FOR(j, 0, 4) { if (j == 2) return; s += j; }\nx(0) = s;"},
        {"VECTOR_FOR", 1, LOOP, "VECTOR_FOR(k, 0, 4) return;"},
        {"TEAM_VECTOR_FOR", 3, LOOP, "TEAM_VECTOR_FOR(k, 0, 4)\n{\n  return ; }"},
        {"TEAM_REDUCE", 1, LOOP, "int64_t s; TEAM_REDUCE(sum, j, 0, 4, s) { if (j) return; s += j; }"},
        {"VECTOR_REDUCE", 1, LOOP, "double s; VECTOR_REDUCE(max, j, 0, 4, s) { return; }"},
        {"TEAM_VECTOR_REDUCE", 1, LOOP, "int64_t s; TEAM_VECTOR_REDUCE(sum, j, 0, 4, s) return;"},
        {"TEAM_SCAN", 2, LOOP, "int64_t s;\nTEAM_SCAN(j, 0, 4, s) { if (final) return; s += 1; }"},
        {"VECTOR_SCAN", 1, LOOP, "int64_t s; VECTOR_SCAN(j, 0, 4, s) { s += 1; return; }"},
        {"SINGLE_TEAM", 1, SINGLE, "SINGLE_TEAM(team) { x(0) = 1; return; }\nx(1) = 2;"},
        {"SINGLE_THREAD", 2, SINGLE, "SINGLE_THREAD(team)\n  return;"},
        -- the innermost construct is named
        {"VECTOR_FOR", 3, LOOP, "TEAM_FOR(j, 0, 4) {\n  VECTOR_FOR(k, 0, 4) {\n    if (k == j) return;\n  }\n}"},
        {"TEAM_FOR", 4, LOOP, "TEAM_FOR(j, 0, 4) {\n  VECTOR_FOR(k, 0, 4) { x(0) = k; }\n  /* return; in a comment is fine */\n  return;\n}"},
      }
      for n, c in ipairs(cases) do
        local label = "bad_ret" .. n
        assert.are.equal(("speck.parallel_for '%s': return inside %s (body line %d)%s")
                           :format(label, c[1], c[2], c[3]),
                         err_of(speck.parallel_for, label, speck.TeamPolicy(4, 1), {x = x}, c[4]))
        sanity()
      end
      assert.are.equal("speck.parallel_reduce 'bad_ret_r': return inside TEAM_FOR (body line 1)" .. LOOP,
        err_of(speck.parallel_reduce, "bad_ret_r", speck.TeamPolicy(4, 1), {},
               "TEAM_FOR(j, 0, 4) { if (j) return; } SINGLE_TEAM(team) { acc += 1; }"))
      sanity()
      -- a return outside the constructs, and 'continue' inside them, are fine
      x:fill(0)
      speck.parallel_for("ok_ret", speck.TeamPolicy(4, 1), {x = x}, [[
        int64_t s = 0;
        TEAM_FOR(j, 0, 4) { if (j == 2) continue; s += j; }   /* a 'return_value' name is no return */
        if (team.league_rank == 3) return;
        x(team.league_rank) = s;
      ]])
      assert.are.same({4, 4, 4, 0}, x:totable())
    end)

    it("parallel_scan with a TeamPolicy", function()
      assert.are.equal("speck.parallel_scan 'bad_scan': parallel_scan does not take a "
        .. "TeamPolicy (as in Kokkos)",
        err_of(speck.parallel_scan, "bad_scan", speck.TeamPolicy(4, 1), {x = x}, "acc += 1;"))
      sanity()
    end)
  end)
end)
