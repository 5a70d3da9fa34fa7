-- remote_test.lua: speck.remote on every rank of an MPI job (tests/run.sh
-- runs it with 2 ranks under mpirun and as one rank without it). Every
-- case runs on every rank; a case passes when it passes on all of them.
-- Rank 0 prints the failures and, last, 'N passed, M failed'.
--
--   mpirun -np 2 speck tests/remote/remote_test.lua
local speck = require "speck"
local remote = require "speck.remote"
local me, np = remote.rank(), remote.size()
-- the repository: two folders above this script
local ROOT = (arg and arg[0] or ""):gsub("[^/]*$", "") .. "../../"

local cases = {}
local function case(name, f) cases[#cases + 1] = {name = name, f = f} end

local function check(c, msg)
  if not c then error(msg or "check failed", 2) end
end

local function eq(a, b, what)
  if a ~= b then error(("%s: expected %s, got %s"):format(what or "value",
    tostring(b), tostring(a)), 2) end
end

-- the error of f(...) must contain 'want' (plain text)
local function fails_with(want, f, ...)
  local ok, e = pcall(f, ...)
  if ok then error("no error (expected '" .. want .. "')", 2) end
  if not tostring(e):find(want, 1, true) then
    error(("error '%s' lacks '%s'"):format(tostring(e), want), 2)
  end
end

-- where remote views live by default: GPU memory (NVSHMEM) when the suite
-- runs on the cuda back end, else host memory (MPI windows)
local GPU = speck.info().default_space:find("cuda") ~= nil
local MEM = GPU and "GPU" or "host"
local NVSHMEM = speck.info().spaces.remote.info:find("GPU memory: NVSHMEM %d") ~= nil
local RSPACE = GPU and "remote_cuda" or "remote"
-- a local part (GPU memory on the cuda back end) as Lua can read it
local function hostof(v) return speck.create_mirror_view_and_copy("host", v) end

local DTYPES = {"float64", "float32", "int64", "int32", "int16", "int8",
                "uint64", "uint32", "uint8", "bool"}

-- a value of element g that fits every dtype
local function val(dt, g)
  if dt == "bool" then return g % 3 == 0 end
  local v = (g * 7 + 3) % 100
  if dt == "float64" or dt == "float32" then return v + 0.5 end
  return v
end
local VAL = {bool = "(i % 3 == 0)", float64 = "((i * 7 + 3) % 100) + 0.5",
             float32 = "((i * 7 + 3) % 100) + 0.5f"}

-- -- the job ------------------------------------------------------------------------
case("rank and size", function()
  eq(np, tonumber(os.getenv("SPECK_TEST_NP") or np), "size")
  check(me >= 0 and me < np)
  local all = remote.allreduce(me, "sum")
  eq(all, np * (np - 1) / 2, "sum of ranks")
  eq(remote.allreduce({me, 1}, "max")[2], 1.0, "allreduce of a table")
  remote.barrier()
  local sp = speck.info().spaces.remote
  eq(sp.available, true, "speck.info().spaces.remote.available")
  check(sp.info:find(("MPI one%%-sided %%(Open MPI v%%d[.%%d]*%%), rank %d of %d"):format(me, np)),
        sp.info)
end)

-- -- get / put of every dtype, blocked ----------------------------------------------
for _, dt in ipairs(DTYPES) do
  case("blocked " .. dt .. ": rank 0 puts every element, every rank gets them", function()
    local n = 13
    local x = remote.View("x_" .. dt, dt, n)
    if me == 0 then
      speck.parallel_for("put", n, {x = x}, ("x(i) = %s;"):format(VAL[dt] or "(i * 7 + 3) % 100"))
    end
    remote.fence()
    local y = speck.View("y", dt, n)
    speck.parallel_for("get", n, {x = x, y = y}, [[ y(i) = x(i); ]])
    for g = 0, n - 1 do eq(y(g), val(dt, g), dt .. " element " .. g) end
    -- the local part holds this rank's share
    local b, e = x:local_range()
    local l = x:local_view()
    eq(l:extent(0), e - b, "local extent")
    local hl = hostof(l)
    for g = b, e - 1 do eq(hl(g - b), val(dt, g), "local element " .. g) end
    remote.fence()
  end)
end

-- -- partitioned: v(pe, i) ------------------------------------------------------------
case("partitioned: each rank writes its part, reads the next rank's", function()
  local m = 5
  local v = remote.View("part", "int64", {np, m}, {layout = "partitioned"})
  local b, e = v:local_range()
  eq(b, me, "local_range begin")
  eq(e, me + 1, "local_range end")
  local l = v:local_view()
  eq(l:rank(), 1, "local rank")
  eq(l:extent(0), m, "local extent")
  speck.parallel_for("own", m, {l = l, me = me}, [[ l(i) = 100 * me + i; ]])
  remote.fence()
  local nxt = (me + 1) % np
  local y = speck.View("y", "int64", m)
  speck.parallel_for("next", m, {v = v, y = y, pe = nxt}, [[ y(i) = v(pe, i); ]])
  for i = 0, m - 1 do eq(y(i), 100 * nxt + i, "element " .. i) end
  remote.fence()
  -- and writes into the next rank's part
  speck.parallel_for("towr", m, {v = v, pe = nxt, me = me}, [[ v(pe, i) = -1000 * (me + 1) - i; ]])
  remote.fence()
  local prev = (me - 1 + np) % np
  local hl = hostof(l)
  for i = 0, m - 1 do eq(hl(i), -1000 * (prev + 1) - i, "written by the previous rank") end
end)

-- the windows' table grows by realloc: one grown in place once kept its old
-- capacity, and a later window was written past its end (the GPU suite's
-- rare "realloc(): invalid next size" in a 3-rank run of speck.dist)
case("many remote views live at once, each with its own data", function()
  local vs = {}
  for k = 1, 300 do
    local v = remote.View("many" .. k, "int64", {np, 3}, {layout = "partitioned"})
    speck.parallel_for("many_fill", 3, {l = v:local_view(), kv = k, me = me},
                       [[ l(i) = 1000 * kv + 10 * me + i; ]])
    vs[k] = v
  end
  remote.fence()
  for k = 1, 300, 7 do
    local hl = hostof(vs[k]:local_view())
    for i = 0, 2 do eq(hl(i), 1000 * k + 10 * me + i, ("view %d, element %d"):format(k, i)) end
  end
end)

-- -- a kernel reading the other rank's part ---------------------------------------------
case("a reduction over a remote view reads every rank's part", function()
  local n = 1001
  local x = remote.View("xr", "float64", n)
  local b, e = x:local_range()
  local l = x:local_view()
  speck.parallel_for("fill", e - b, {l = l, b = b}, [[ l(i) = (double)(b + i); ]])
  remote.fence()
  local s = speck.parallel_reduce("sum", n, {x = x}, [[ acc += x(i); ]])
  eq(s, n * (n - 1) / 2, "sum")
  -- reversed: most reads remote
  local y = speck.View("yr", "float64", n)
  speck.parallel_for("rev", n, {x = x, y = y, n = n}, [[ y(i) = x(n - 1 - i); ]])
  for _, g in ipairs{0, 1, n // 2, n - 1} do eq(y(g), n - 1 - g, "reversed " .. g) end
  remote.fence()
end)

case("rank 2 views, compound assignments, ++ on remote elements", function()
  local x = remote.View("m", "int32", {6, 4})
  local b, e = x:local_range()
  eq(x:local_view():extent(0), e - b, "local rows")
  eq(x:local_view():extent(1), 4, "local columns")
  if me == np - 1 then
    speck.parallel_for("w", speck.MDRangePolicy({0, 0}, {6, 4}), {x = x}, [[ x(i, j) = 10 * i + j; ]])
  end
  remote.fence()
  if me == 0 then
    speck.parallel_for("c", 6, {x = x}, [[ x(i, 1) += 1000; x(i, 2) *= 2; x(i, 3)++; --x(i, 0); ]])
  end
  remote.fence()
  local y = speck.View("y", "int32", {6, 4})
  speck.parallel_for("g", speck.MDRangePolicy({0, 0}, {6, 4}), {x = x, y = y}, [[ y(i, j) = x(i, j); ]])
  for i = 0, 5 do
    eq(y(i, 0), 10 * i - 1, "--")
    eq(y(i, 1), 10 * i + 1 + 1000, "+=")
    eq(y(i, 2), 2 * (10 * i + 2), "*=")
    eq(y(i, 3), 10 * i + 3 + 1, "++")
  end
  remote.fence()
end)

case("every pattern on remote views: scan, team reduction, a library kernel", function()
  local blas = require "speck.blas"
  local n = 100
  local x = remote.View("xp", "float64", n)
  local b, e = x:local_range()
  speck.parallel_for("f", e - b, {l = x:local_view(), b = b}, [[ l(i) = b + i; ]])
  remote.fence()
  local pre = speck.View("pre", "float64", n)
  local tot = speck.parallel_scan("scan", n, {x = x, pre = pre},
    [[ if (final) pre(i) = acc; acc += x(i); ]])
  eq(tot, n * (n - 1) / 2, "scan total")
  eq(pre(n - 1), (n - 1) * (n - 2) / 2, "exclusive prefix")
  local rows = speck.View("rows", "float64", 10)
  speck.parallel_for("team", speck.TeamPolicy(10, 1), {x = x, rows = rows}, [[
    const int64_t r = team.league_rank;
    double s;
    TEAM_REDUCE(sum, k, 0, 10, s) { s += x(r * 10 + k); }
    SINGLE_TEAM(team) { rows(r) = s; }
  ]])
  for r = 0, 9 do eq(rows(r), 100 * r + 45, "team row " .. r) end
  local ones = speck.View("ones", "float64", n)
  speck.deep_copy(ones, 1.0)
  eq(blas.dot(x, ones), n * (n - 1) / 2, "speck.blas.dot")
  remote.fence()
end)

-- -- subviews ---------------------------------------------------------------------------
case("subviews of a remote view: a range and a row", function()
  local x = remote.View("xs", "float64", {8, 3})
  local b, e = x:local_range()
  local l = x:local_view()
  speck.parallel_for("f", speck.MDRangePolicy({0, 0}, {e - b, 3}), {l = l, b = b}, [[ l(i, j) = 10.0 * (b + i) + j; ]])
  remote.fence()
  local row = speck.subview(x, 6, speck.ALL)
  eq(row:space(), RSPACE, "subview space")
  local y = speck.View("y", "float64", 3)
  speck.parallel_for("row", 3, {row = row, y = y}, [[ y(i) = row(i); ]])
  for j = 0, 2 do eq(y(j), 60 + j, "row 6, column " .. j) end
  local blk = speck.subview(x, {3, 7}, {1, 3})
  local z = speck.View("z", "float64", {4, 2})
  speck.parallel_for("blk", speck.MDRangePolicy({0, 0}, {4, 2}), {blk = blk, z = z}, [[ z(i, j) = blk(i, j); ]])
  for i = 0, 3 do for j = 0, 1 do eq(z(i, j), 10 * (3 + i) + 1 + j, "block") end end
  -- deep_copy of the (strided) block both ways, through the owner's copy
  local z2 = speck.View("z2", "float64", {4, 2})
  speck.deep_copy(z2, blk)
  local hz = hostof(z2)
  for i = 0, 3 do for j = 0, 1 do eq(hz(i, j), 10 * (3 + i) + 1 + j, "deep_copy of a block") end end
  remote.fence()
  if me == 0 then
    speck.parallel_for("neg", speck.MDRangePolicy({0, 0}, {4, 2}), {z2 = z2}, [[ z2(i, j) = -z2(i, j); ]])
    speck.deep_copy(blk, z2)
  end
  remote.fence()
  speck.parallel_for("blk2", speck.MDRangePolicy({0, 0}, {4, 2}), {blk = blk, z = z}, [[ z(i, j) = blk(i, j); ]])
  local hz2 = hostof(z)
  for i = 0, 3 do for j = 0, 1 do eq(hz2(i, j), -(10 * (3 + i) + 1 + j), "deep_copy into a block") end end
  remote.fence()
end)

-- -- deep_copy: bulk gets and puts through the window ------------------------------------
case("deep_copy between host views and remote (sub)views", function()
  local n = 1000
  local x = remote.View("xd", "float64", n)
  if me == 0 then
    local h = speck.View("h", "float64", n)
    speck.parallel_for("h", n, {h = h}, [[ h(i) = 0.5 * i; ]])
    speck.deep_copy(x, h)                 -- every rank's part, one put each
  end
  remote.fence()
  local m = speck.create_mirror_view_and_copy("host", x)
  for _, g in ipairs{0, 499, 500, 999} do eq(m(g), 0.5 * g, "mirror " .. g) end
  local tail = speck.View("tail", "float64", 10)
  speck.deep_copy(tail, speck.subview(x, {n - 10, n}))
  for i = 0, 9 do eq(tail(i), 0.5 * (n - 10 + i), "tail " .. i) end
  remote.fence()
end)

-- -- atomics ----------------------------------------------------------------------------
case("atomics on remote elements from every rank", function()
  local c = remote.View("cnt", "int64", {np, 4}, {layout = "partitioned"})
  local f = remote.View("fsum", "float64", {np, 1}, {layout = "partitioned"})
  local k = 200
  speck.parallel_for("at", k, {c = c, f = f, np = np, me = me}, [[
    for (int pe = 0; pe < np; pe++) {
      atomic_fetch_add(&c(pe, 0), 1);
      atomic_add(&c(pe, 1), 2);
      atomic_fetch_max(&c(pe, 2), (int64_t)(1000 * me + i));
      atomic_add(&f(pe, 0), 0.5);
    }
  ]])
  remote.fence()
  local l, lf = hostof(c:local_view()), hostof(f:local_view())
  eq(l(0), k * np, "fetch_add")
  eq(l(1), 2 * k * np, "add")
  eq(l(2), 1000 * (np - 1) + k - 1, "fetch_max")
  eq(lf(0), 0.5 * k * np, "float add")
  remote.fence()
  -- compare-and-swap: exactly one rank wins element (pe, 3)
  local won = speck.View("won", "int64", 1)
  speck.parallel_for("cas", 1, {c = c, won = won, np = np, me = me}, [[
    int64_t w = 0;
    for (int pe = 0; pe < np; pe++) w += atomic_cas(&c(pe, 3), 0, me + 1) == 0;
    won(0) = w;
  ]])
  remote.fence()
  l = hostof(c:local_view())
  check(l(3) >= 1 and l(3) <= np, "cas winner " .. l(3))
  eq(remote.allreduce(won(0), "sum"), np, "cas wins over the ranks")
  remote.fence()
end)

case("the atomic option makes updates of remote elements atomic", function()
  local c = remote.View("tr", "int32", 3, {atomic = true})
  local y = speck.View("y", "int32", 1)
  speck.parallel_for("t", 50, {c = c}, [[ c(0) += 1; c(2) -= 3; c(1)++; ]])
  remote.fence()
  speck.parallel_for("r", 1, {c = c, y = y}, [[ y(0) = c(0) + 1000 * c(1) + 10 * c(2); ]])
  eq(y(0), 50 * np + 1000 * 50 * np - 10 * 150 * np, "atomic updates")
  remote.fence()
end)

-- -- CG against speck.sparse.cg --------------------------------------------------------
case("distributed CG matches single-process CG: iterations and solution", function()
  local rcg = dofile(ROOT .. "examples/remote_cg.lua")
  local sparse = require "speck.sparse"
  local n = 20
  local N = n * n
  local x, it = rcg.solve(n, {tol = 1e-10})
  -- the whole matrix in this process
  local rowptr, colidx, values = rcg.build(n, 0, N, "int32")
  local A = sparse.CrsMatrix{nrows = N, ncols = N, rowptr = rowptr, colidx = colidx,
                             values = values}
  local xs, its = sparse.cg(A, rcg.rhs(n, 0, N), {tol = 1e-10})
  eq(it, its, "iterations")
  local p = remote.View("probe", "float64", N)   -- the same blocks as the solve's
  local b = p:local_range()
  local worst = speck.parallel_reduce("diff", x:extent(0), {x = x, xs = xs, b = b},
    [[ const double d = fabs(x(i) - xs(b + i)); if (d > acc) acc = d; ]], "max")
  check(remote.allreduce(worst, "max") < 1e-9, "solution differs by " .. worst)
end)

-- -- bad input ----------------------------------------------------------------------------
case("an index beyond the global extent names the view, the index and the owner", function()
  local x = remote.View("far", "float64", 10)
  fails_with("view 'far' (capture 'x'): global index 12 is beyond the global extent 10 " ..
             ("(owner = index / %d elements per rank = rank %d, of %d ranks)"):format(
               (10 + np - 1) // np, 12 // ((10 + np - 1) // np), np),
    speck.parallel_for, "oob", 1, {x = x}, [[ double t = x(12); (void)t; ]])
  fails_with("global index -1 is beyond", speck.parallel_for, "oobw", 1, {x = x},
    [[ x(i - 1) = 1.0; ]])
  -- the VM stays usable, the view keeps its data
  speck.parallel_for("ok", 10, {x = x}, [[ if (i == 0) x(9) = 7.0; ]])
  remote.fence()
  eq(speck.parallel_reduce("s", 10, {x = x}, [[ acc += x(i); ]]), 7.0, "after the error")
  remote.fence()
end)

case("different sizes on different ranks are reported on every rank", function()
  if np > 1 then
    fails_with("remote.View 'bad': the ranks disagree", remote.View, "bad", "float64",
               10 + me)
    fails_with(("(rank 0 asks for float64 [10] blocked in %s memory, rank 1 for float64 "
                .. "[11] blocked in %s memory)"):format(MEM, MEM),
               remote.View, "bad", "float64", 10 + me)
    fails_with(("(rank 0 asks for float64 [2, 5] blocked in %s memory, rank 1 for float64 "
                .. "[2, 5] partitioned in %s memory)"):format(MEM, MEM),
               remote.View, "bad", "float64", {2, 5},
               {layout = me == 0 and "blocked" or "partitioned"})
  else   -- one rank agrees with itself: the view is made
    eq(remote.View("bad", "float64", 10 + me):extent(0), 10, "extent")
  end
  -- the job goes on: a good view afterwards
  local ok = remote.View("good", "int8", 4)
  eq(ok:extent(0), 4, "extent")
end)

case("bad arguments to remote.View", function()
  fails_with("a partitioned view's dims[1] is the rank and must be " .. np,
             remote.View, "p", "float64", {np + 1, 3}, {layout = "partitioned"})
  fails_with("remote.View 'q': layout is diagonal (expected 'blocked' or 'partitioned')",
             remote.View, "q", "float64", 4, {layout = "diagonal"})
  fails_with("remote.View 'r': unknown dtype", remote.View, "r", "complex", 4)
  fails_with("remote.View 's': space cuda_pinned: a remote view lies in host memory "
             .. "('host': MPI windows) or in GPU memory ('cuda': NVSHMEM)",
             remote.View, "s", "float64", 4, {space = "cuda_pinned"})
  if not NVSHMEM then
    -- GPU memory without NVSHMEM: the reason, on every rank
    fails_with("remote.View 's': a remote view in GPU memory needs NVSHMEM: ",
               remote.View, "s", "float64", 4, {space = "cuda"})
  end
end)

case("remote views are not Lua-indexable, and only remote.View makes them", function()
  local x = remote.View("lx", "float64", 4)
  fails_with("lives in space '" .. RSPACE .. "', not accessible from Lua", function() return x(0) end)
  fails_with("lives in space '" .. RSPACE .. "', not accessible from Lua", function() x[0] = 1 end)
  fails_with("lives in space '" .. RSPACE .. "', not accessible from Lua", x.totable, x)
  local h = speck.View("h", "float64", 4)
  fails_with("local_view: view 'h' is not a remote view", h.local_view, h)
  fails_with("local_range: view 'h' is not a remote view", h.local_range, h)
end)

-- -- run ----------------------------------------------------------------------------------
local passed, failed = 0, 0
for _, c in ipairs(cases) do
  if os.getenv("SPECK_TEST_VERBOSE") then io.stderr:write(("rank %d: %s\n"):format(me, c.name)) end
  local ok, e = pcall(c.f)
  collectgarbage()
  local all = remote.allreduce(ok and 1 or 0, "min")
  if not ok then io.stderr:write(("rank %d: %s: %s\n"):format(me, c.name, tostring(e))) end
  if all == 1 then passed = passed + 1 else failed = failed + 1 end
  remote.barrier()
end
if me == 0 then
  print(("remote (%d rank%s, %s): %d cases"):format(np, np == 1 and "" or "s",
        speck.info().default_space, #cases))
  print(("%d passed, %d failed"):format(passed, failed))
end
