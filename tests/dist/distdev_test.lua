-- distdev_test.lua: speck.dist with its objects in the back end's memory:
-- GPU ranks (SPECK_SPACE=cuda: one rank per GPU, or ranks sharing one) and,
-- on host ranks, the same staged path (SPECK_DIST_STAGE=1: the halo packed
-- by a kernel, copied to host buffers, exchanged by MPI, copied back).
-- tests/run.sh runs it on 1, 2 and 3 host ranks staged, and in the cuda
-- suite on 1 and 2 ranks of the GPU(s) there. Each operation is checked
-- against the library on the whole problem on one rank (floating point
-- within 1e-12 relative, PageRank 1e-10, integers bit-identical), CG and
-- GMRES also against the 1-rank run of this script (SPECK_DIST_REF=file:
-- the 1-rank run writes its iterations and solutions, the others compare);
-- on a device, that the steps ran as device kernels (speck.jit.stats()),
-- and that the vectors, blocks and halos live in device memory. dist.amg
-- as CG's precond: its solution against the 1-rank run's, its iterations
-- and solution against the first run on as many ranks (H.same_np: its
-- aggregates change with the rank count), its levels in the back end's
-- memory and, on a device, its cycle's kernels on the device.
-- SPECK_DIST_TRANSPORT_EXPECT=name: the transport the plans must report.
-- A case passes when it passes on every rank; rank 0 prints 'N passed, M
-- failed'.
--
--   SPECK_SPACE=cuda mpirun -np 2 speck tests/dist/distdev_test.lua
local speck = require "speck"
local dist = require "speck.dist"
local sparse = require "speck.sparse"
local graph = require "speck.graph"
local blas = require "speck.blas"
local remote = require "speck.remote"
local me, np = dist.rank(), dist.size()
local DEV = speck.View("probe", "float64", 0):space()
local ONDEV = DEV ~= "host"
local STAGED = ONDEV or os.getenv("SPECK_DIST_STAGE") == "1"
local HOST = {space = "host"}
-- the one-sided path (NVSHMEM on GPUs; on host ranks over MPI windows, SPECK_DIST_TRANSPORT=onesided)
local function is_onesided(t) return t == "nvshmem" or t == "mpi one-sided windows" end
local ONESIDED = os.getenv("SPECK_DIST_TRANSPORT") == "onesided" and np > 1

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests/dist"
local H = dofile(HERE .. "/harness.lua")
local case, check, eq, fails_with, close = H.case, H.check, H.eq, H.fails_with, H.close
local cases = H.cases
local record, compare = H.record, H.compare
local host = H.host

-- -- the test matrix: the 7-point Poisson on an NX x NY x NZ grid (each
-- rank builds its rows; the whole matrix on every rank for reference)
local NX, NY, NZ = 9, 8, 7
local N = NX * NY * NZ
local function rows(b, e, base)
  local R, C, V = {}, {}, {}
  for i = b, e - 1 do
    local x, y, z = i % NX, (i // NX) % NY, i // (NX * NY)
    local function add(j, v) R[#R + 1], C[#C + 1], V[#V + 1] = i - base, j, v end
    if z > 0 then add(i - NX * NY, -1.0) end
    if y > 0 then add(i - NX, -1.0) end
    if x > 0 then add(i - 1, -1.0) end
    add(i, 6.0 + 0.01 * (i % 5))
    if x < NX - 1 then add(i + 1, -1.0) end
    if y < NY - 1 then add(i + NX, -1.0) end
    if z < NZ - 1 then add(i + NX * NY, -1.0) end
  end
  return R, C, V
end
local full = sparse.from_coo(N, N, rows(0, N, 0))
local m0 = dist.map(N)
local B0, E0 = m0:local_range()
local A = dist.from_local(N, N, B0, sparse.from_coo(E0 - B0, N, rows(B0, E0, B0)))

-- the whole of a vector function in the back end's memory, and this rank's rows of it
local function fullvec(f, n)
  local v = speck.View("full", "float64", n or N, HOST)
  for i = 0, (n or N) - 1 do v[i] = f(i) end
  return speck.create_mirror_view_and_copy(DEV, v)
end
local function distvec(M, f)
  local x = dist.vector(M)
  local ids = x:local_ids()
  local h = speck.View("mine", "float64", ids:extent(0), HOST)
  for k = 0, ids:extent(0) - 1 do h[k] = f(ids(k)) end
  speck.deep_copy(x:local_view(), h)
  return x
end
local XF = function(i) return math.sin(i + 1) + 0.25 * (i % 5) end

-- launches of kernels labelled 'label' as device code (the image tier:
-- neither the host's compilers nor the precompiled host kernels)
local function device_launches(label)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label and k.tier ~= "tcc" and k.tier ~= "cc" and k.tier ~= "precompiled" then
      s = s + k.launches
    end
  end
  return s
end
local function launches(label)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label then s = s + k.launches end
  end
  return s
end

-- -- where the objects live; the transport ----------------------------------------------------
case("vectors, matrix blocks and halo in the back end's memory; plan_info names the transport", function()
  local x = dist.vector(A, 1.0)
  eq(x:local_view():space(), DEV, "a vector's local part")
  local info = A:plan_info()
  eq(info.space, DEV, "the matrix blocks' space")
  eq(A.halo:space(), DEV, "the halo")
  local want = os.getenv("SPECK_DIST_TRANSPORT_EXPECT")
  if want then eq(info.transport, want, "transport") end
  if not STAGED and not ONESIDED then eq(info.transport, "mpi", "host ranks' transport") end
  check(info.transport == "mpi" or info.transport == "nvshmem" or info.transport == "mpi one-sided windows"
        or info.transport == "mpi, staged through host memory", "transport " .. tostring(info.transport))
  if np > 1 then check(info.halo > 0 and info.sent > 0, "a halo on " .. np .. " ranks") end
end)

-- -- kernels against the whole ------------------------------------------------------------------
case("spmv against sparse.spmv on the whole matrix (twice: the plan reused)", function()
  local x, y = distvec(A, XF), distvec(A, function(i) return i * 0.5 end)
  local before = launches("dist_pack")
  dist.spmv(2.0, A, x, -0.5, y)
  local yf = fullvec(function(i) return i * 0.5 end)
  sparse.spmv("N", 2.0, full, fullvec(XF), -0.5, yf)
  close(y:gather(), yf, N, 1e-12, "y")
  dist.spmv(1.0, A, x, 0.0, y)
  sparse.spmv("N", 1.0, full, fullvec(XF), 0.0, yf)
  close(y:gather(), yf, N, 1e-12, "y again")
  if STAGED and np > 1 and not is_onesided(A:plan_info().transport) then
    eq(launches("dist_pack") - before, 2, "the halo packed by a kernel, once a product")
  end
  if is_onesided(A:plan_info().transport) then
    check((ONDEV and device_launches("dist_put") or launches("dist_put")) > 0, "the puts ran")
  end
end)

case("dot, norm2, axpy against the whole vectors (blas on the whole)", function()
  local x, y = distvec(A, XF), distvec(A, function(i) return 1.0 / (i + 1) end)
  local xf, yf = fullvec(XF), fullvec(function(i) return 1.0 / (i + 1) end)
  local d = blas.dot(xf, yf)
  check(math.abs(dist.dot(x, y) - d) <= 1e-12 * math.abs(d), "dot")
  local n2 = blas.nrm2(xf)
  check(math.abs(dist.norm2(x) - n2) <= 1e-12 * n2, "norm2")
  dist.axpy(3.0, x, y)
  blas.axpy(3.0, xf, yf)
  close(y:gather(), yf, N, 1e-12, "axpy")
  eq(y:local_view():space(), DEV, "the result stays in the back end's memory")
  local y0 = y:gather(0)
  if me == 0 then close(y0, yf, N, 1e-12, "gathered to rank 0") else eq(y0, nil, "not gathered here") end
end)

case("a partition map: from_local over it, spmv, gather; spgemm A*A (the set-up's kernels over copies on a device)", function()
  local part = {}
  for i = 0, N - 1 do part[i + 1] = ((i // 5) * 3 + i) % np end
  local m = dist.map(N, {partition = part})
  local ids = m:local_ids()
  local R, C, V = {}, {}, {}
  for k = 0, ids:extent(0) - 1 do
    local r, c, v = rows(ids(k), ids(k) + 1, ids(k))
    for q = 1, #r do R[#R + 1], C[#C + 1], V[#V + 1] = k, c[q], v[q] end
  end
  local B = dist.from_local(N, N, 0, sparse.from_coo(ids:extent(0), N, R, C, V), {map = m})
  local x, y = distvec(B, XF), dist.vector(B)
  dist.spmv(1.0, B, x, 0.0, y)
  local yf = fullvec(function() return 0 end)
  sparse.spmv("N", 1.0, full, fullvec(XF), 0.0, yf)
  close(y:gather(), yf, N, 1e-12, "partitioned spmv")
  local Cm = dist.spgemm(A, A)
  local Cf = sparse.spgemm(full, full)
  eq(Cm:nnz(), Cf:nnz(), "nnz of A*A")
  eq(Cm:plan_info().space, DEV, "A*A in the back end's memory")
  local xc, yc = distvec(Cm, XF), dist.vector(Cm)
  dist.spmv(1.0, Cm, xc, 0.0, yc)
  sparse.spmv("N", 1.0, Cf, fullvec(XF), 0.0, yf)
  close(yc:gather(), yf, N, 1e-12, "(A*A) x")
end)

-- -- solvers ------------------------------------------------------------------------------------
-- converged, ||b - A x|| / ||b|| on the whole matrix, the 1-rank run's iterations and x
local function solved(key, x, info, bf, tol)
  eq(info.reason, "converged", key .. " reason")
  check(info.resid <= tol, key .. " resid " .. info.resid)
  eq(#info.history, info.iters + 1, key .. " history length")
  eq(x:local_view():space(), DEV, key .. ": x in the back end's memory")
  local xg = x:gather()
  local r = speck.View("r", "float64", N)
  speck.deep_copy(r, bf)
  sparse.spmv("N", -1.0, full, speck.create_mirror_view_and_copy(DEV, xg), 1.0, r)
  local rel = blas.nrm2(r) / blas.nrm2(bf)
  check(rel <= 2 * tol, ("%s: ||b - A x|| / ||b|| = %g on the whole matrix"):format(key, rel))
  if np == 1 then record(key, info.iters, xg) else compare(key, info.iters, xg) end
end

case("cg (Jacobi: the fused sweep; none; Chebyshev) and gmres against the whole system and the 1-rank run", function()
  local bfun = function(i) return 1.0 + (i % 3) end
  local b, bf = distvec(A, bfun), fullvec(bfun)
  -- (the update's body: cg_update on a device, cg_upddot or cg_upddot1 on the host)
  local function updates()
    return launches("dist.cg_update") + launches("dist.cg_upddot") + launches("dist.cg_upddot1")
  end
  local sweeps = updates()
  for _, pc in ipairs{"jacobi", "none", "chebyshev"} do
    local x, info = dist.cg(A, b, {tol = 1e-10, precond = pc})
    solved("cg_" .. pc, x, info, bf, 1e-10)
  end
  check(updates() > sweeps, "the fused sweep ran")
  if is_onesided(A:plan_info().transport) and np > 1 then
    check(launches("dist.cg_put") > 0, "the fused sweep's halo went one-sided")
  end
  local x, info = dist.gmres(A, b, {tol = 1e-10, restart = 20, precond = "jacobi"})
  solved("gmres_jacobi", x, info, bf, 1e-10)
end)

-- -- graphs -------------------------------------------------------------------------------------
local NV_G, GS, GD = H.two_part_graph() -- two parts (so components count)
local whole = graph.from_edges(NV_G, GS, GD)
local g
do -- this rank's share of the edges
  local S, D = {}, {}
  for k = 1, #GS do if k % np == me then S[#S + 1], D[#D + 1] = GS[k], GD[k] end end
  g = dist.from_edges(NV_G, S, D)
end

case("bfs levels bit-identical to graph.bfs (top-down, bottom-up, switching)", function()
  for _, s in ipairs{0, 17, 250, 295} do
    local want = host(graph.bfs(whole, s))
    for _, d in ipairs{"auto", "top_down", "bottom_up"} do
      local l = dist.bfs(g, s, {direction = d})
      eq(l:local_view():space(), DEV, "levels in the back end's memory")
      local lev = l:gather()
      for v = 0, NV_G - 1 do eq(lev(v), want(v), ("level of %d from %d (%s)"):format(v, s, d)) end
    end
  end
end)

case("connected components: the same partition as graph.connected_components", function()
  local lab, n = dist.connected_components(g)
  local want, wn = graph.connected_components(whole)
  want = host(want)
  eq(n, wn, "components")
  local l = lab:gather()
  local fw, bw = {}, {}
  for v = 0, NV_G - 1 do
    local a, b = l(v), want(v)
    if fw[a] == nil then fw[a] = b end
    if bw[b] == nil then bw[b] = a end
    eq(fw[a], b, "partition at " .. v)
    eq(bw[b], a, "partition at " .. v)
  end
end)

case("pagerank within 1e-10 of graph.pagerank; triangles' total", function()
  local r, it = dist.pagerank(g, {tol = 1e-13, maxiter = 500})
  local want = graph.pagerank(whole, {tol = 1e-13, maxiter = 500})
  check(it > 1, "iterations")
  close(r:gather(), want, NV_G, 1e-10, "pagerank")
  eq(dist.triangles(g), graph.triangles(whole), "triangles")
end)

-- -- device kernels ------------------------------------------------------------------------------
case("on a device the steps ran as device kernels (speck.jit.stats)", function()
  if not ONDEV then return end
  local tr = A:plan_info().transport
  local labels = {"dist.bfs_init", "dist.bfs_bottom_up_team", "dist.bfs_top_down_team", "dist.bfs_collect_team",
                  "dist.cc_step", "dist.pr_step",
                  "dist.cg_update"}
  if np > 1 then
    labels[#labels + 1] = "dist.cg_halo"
    if is_onesided(tr) then
      labels[#labels + 1] = "dist_put"
      labels[#labels + 1] = "dist.cg_put"
    else
      labels[#labels + 1] = "dist_pack"
    end
  end
  for _, l in ipairs(labels) do check(device_launches(l) > 0, l .. " ran on the device") end
  local sp = 0
  for _, l in ipairs{"dist.cg_spmv16v_team", "dist.cg_spmv16_team", "dist.cg_spmv_team"} do
    sp = sp + device_launches(l)
  end
  check(sp > 0, "the fused SpMV ran on the device")
end)

-- -- dist.amg: the set-up over host copies, the levels and the cycle in the back end's memory ----
-- the cycle's kernels: dist.amg's slice of the coarse solution, the
-- Chebyshev smoother's Jacobi step, the level SpMVs (any of
-- sparse.spmv's forms), the coarse Cholesky solve (the level-set
-- schedule's kernels where the factor is a device's)
local function amg_cycle_launches(count)
  local t = {slice = count("dist_amg_slice"), jacobi = count("dist_jacobi_apply"), spmv = 0, chol = 0}
  local seen = {}
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if not seen[k.label] then
      seen[k.label] = true
      if k.label:find("^sparse%.spmv") then t.spmv = t.spmv + count(k.label) end
      if k.label:find("^task%.chol_ls_") then t.chol = t.chol + count(k.label) end
    end
  end
  return t
end
-- launches of host code (the host's compilers or its precompiled kernels)
local function host_launches()
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.tier == "tcc" or k.tier == "cc" or k.tier == "precompiled" then s = s + k.launches end
  end
  return s
end

case("dist.amg as cg's precond: levels, vectors and coarse factor in the back end's memory; "
     .. "against the whole system, the 1-rank run and the first run on as many ranks", function()
  local bfun = function(i) return 1.0 + (i % 3) end
  local b, bf = distvec(A, bfun), fullvec(bfun)
  local M = dist.amg(A, {coarse_size = 20})
  H.amg_info(M, N)
  for l, L in ipairs(M.levels) do
    for _, k in ipairs{"x", "b", "r", "t"} do
      eq(L[k]:local_view():space(), DEV, ("level %d's vector %s"):format(l, k))
    end
    eq(L.A:plan_info().space, DEV, ("level %d's matrix"):format(l))
    eq(L.A.halo:space(), DEV, ("level %d's halo"):format(l))
    if L.P then
      eq(L.P:plan_info().space, DEV, ("level %d's prolongator"):format(l))
      eq(L.R:plan_info().space, DEV, ("level %d's restriction"):format(l))
    end
  end
  -- the coarse factor: where sparse.cholesky keeps a device's factor (its
  -- own device memory, also when views default to managed memory)
  local fs = M.levels[#M.levels].F:info().space
  if ONDEV then check(fs ~= "host", "the coarse factor in " .. fs)
  else eq(fs, DEV, "the coarse factor") end
  local _, jinfo = dist.cg(A, b, {tol = 1e-10, precond = "jacobi"})
  local count = ONDEV and device_launches or launches
  local c0, h0 = amg_cycle_launches(count), host_launches()
  -- tol 1e-13: the solution within 1e-12 of the 1-rank run's, whose
  -- aggregates (and so iterations) differ from those on more ranks
  local x, info = dist.cg(A, b, {tol = 1e-13, precond = M})
  local c1, h1 = amg_cycle_launches(count), host_launches()
  eq(info.reason, "converged", "reason")
  check(2 * info.iters < jinfo.iters,
        ("fewer than half Jacobi's iterations (%d, %d)"):format(info.iters, jinfo.iters))
  -- the true residual: the recurrence's within rounding
  check(info.resid <= 2e-13, "cg_amg resid " .. info.resid)
  eq(#info.history, info.iters + 1, "history length")
  eq(x:local_view():space(), DEV, "x in the back end's memory")
  local xg = x:gather()
  local r = speck.View("r", "float64", N)
  speck.deep_copy(r, bf)
  sparse.spmv("N", -1.0, full, speck.create_mirror_view_and_copy(DEV, xg), 1.0, r)
  local rel = blas.nrm2(r) / blas.nrm2(bf)
  check(rel <= 2e-13, ("cg_amg: ||b - A x|| / ||b|| = %g on the whole matrix"):format(rel))
  if np == 1 then record("cg_amg", info.iters, xg) else compare("cg_amg", nil, xg) end
  -- the same iterations as the first run on as many ranks (host ranks
  -- staged, before the one-sided runs and the GPU ranks' in tests/run.sh)
  H.same_np("cg_amg", info.iters, xg)
  -- the cycle's steps, once a cycle at least (on a device: as device
  -- kernels, and no host code launched while solving)
  local cycles = info.iters -- M once before the first iteration and after each but the last
  check(c1.slice - c0.slice >= cycles,
        ("the coarse slice ran %d times in %d cycles"):format(c1.slice - c0.slice, cycles))
  check(c1.jacobi - c0.jacobi >= cycles, "the Chebyshev smoother ran: " .. (c1.jacobi - c0.jacobi))
  check(c1.spmv - c0.spmv >= 3 * cycles, "the level SpMVs ran: " .. (c1.spmv - c0.spmv))
  if ONDEV then
    check(c1.chol - c0.chol >= cycles,
          "the coarse Cholesky solve ran on the device: " .. (c1.chol - c0.chol))
    eq(h1 - h0, 0, "host kernels launched while solving with dist.amg")
  end
  -- the same preconditioner again: the same iterations and solution
  local x2, info2 = dist.cg(A, b, {tol = 1e-13, precond = M})
  eq(info2.iters, info.iters, "a second solve's iterations")
  close(x2:gather(), xg, N, 1e-12, "a second solve")
  local _, ginfo = dist.gmres(A, b, {tol = 1e-10, restart = 30, precond = M})
  eq(ginfo.reason, "converged", "gmres with amg")
  check(ginfo.iters < jinfo.iters,
        ("gmres with amg: %d iterations, cg with Jacobi %d"):format(ginfo.iters, jinfo.iters))
end)

case("dist.amg: bad input fails alike on every rank; the VM usable after", function()
  fails_with("speck.dist.amg: coarse_size must be an integer >= 1, got 0", dist.amg, A, {coarse_size = 0})
  local small = dist.map(N - np)
  local sl, sh = small:local_range()
  local S, G, O = {}, {}, {}
  for i = sl, sh - 1 do S[#S + 1], G[#G + 1], O[#O + 1] = i - sl, i, 1.0 end
  local Cm = dist.from_local(N - np, N - np, sl, sparse.from_coo(sh - sl, N - np, S, G, O))
  local M = dist.amg(A, {coarse_size = 20})
  fails_with("speck.dist.cg: precond is a dist.amg of another matrix (" .. N .. " rows), A has "
             .. (N - np) .. " rows", dist.cg, Cm, dist.vector(Cm, 1.0), {precond = M})
  local _, info = dist.cg(A, dist.vector(A, 1.0), {tol = 1e-8, precond = M})
  eq(info.reason, "converged", "after the errors")
end)

-- -- bad input: the same error on every rank, no hang, the VM usable ----------------------------
case("a vector of another map; ranks that disagree; the VM usable after", function()
  local xb = dist.vector(dist.map(N + np))
  local y = dist.vector(A)
  fails_with("speck.dist.spmv: x is a vector of another map (" .. (N + np) .. " rows", dist.spmv, 1.0, A, xb, 0.0, y)
  if np > 1 then
    local x = dist.vector(A, 1.0)
    local want = "speck.dist: the ranks are in different collective calls: rank 0 in speck.dist.dot, rank 1 in speck.dist.norm2"
    if me == 0 then fails_with(want, dist.dot, x, x) else fails_with(want, dist.norm2, x) end
    fails_with("speck.dist.bfs: the ranks disagree on source: rank 0 has 0, rank " .. (np - 1) .. " has " .. (np - 1),
               dist.bfs, g, me)
    fails_with("speck.dist.cg: tol must be a positive number, got -1.0", dist.cg, A, x,
               {tol = me == np - 1 and -1.0 or 1e-8})
  end
  local x = dist.vector(A, 1.0)
  dist.spmv(1.0, A, x, 0.0, y)
  check(dist.dot(y, y) > 0, "usable after")
end)

-- -- run ---------------------------------------------------------------------------------------
local passed, failed = H.run()
if me == 0 then
  print(("distdev (%d rank%s, %s, %s): %d cases"):format(np, np == 1 and "" or "s",
        speck.info().default_space, A:plan_info().transport, #cases))
  print(("%d passed, %d failed"):format(passed, failed))
end
