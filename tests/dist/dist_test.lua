-- dist_test.lua: speck.dist on every rank of an MPI job (tests/run.sh runs
-- it on 1, 2 and 3 ranks under mpirun). Each distributed operation is
-- checked against the same operation of the library on one rank (the whole
-- matrix or graph, built here on every rank for the comparison): integer
-- results bit-identical, floating point within 1e-12 relative (PageRank
-- 1e-10). CG and GMRES are also checked against the 1-rank run of this
-- script: with SPECK_DIST_REF=file the 1-rank run writes its iterations
-- and solutions there and the others compare. A case passes when it passes
-- on all ranks; rank 0 prints 'N passed, M failed'.
--
--   mpirun -np 3 speck tests/dist/dist_test.lua
local speck = require "speck"
local dist = require "speck.dist"
local sparse = require "speck.sparse"
local graph = require "speck.graph"
local remote = require "speck.remote"
local me, np = dist.rank(), dist.size()
local TMP = os.getenv("SPECK_DIST_TMP") or ("/tmp/speck_dist_test_" .. (os.getenv("USER") or "u"))

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests/dist"
local H = dofile(HERE .. "/harness.lua")
local case, check, eq, fails_with, close = H.case, H.check, H.eq, H.fails_with, H.close
local cases = H.cases
local record, compare = H.record, H.compare

if me == 0 then os.execute("mkdir -p '" .. TMP .. "'") end
remote.barrier()

-- -- the test matrix: a 5-point Poisson on an nx x ny grid with a
-- nonsymmetric convection term (GMRES), written as a general file
local NX, NY = 13, 11
local N = NX * NY
local function poisson(conv)
  local R, C, V = {}, {}, {}
  local function add(i, j, v) R[#R + 1], C[#C + 1], V[#V + 1] = i, j, v end
  for y = 0, NY - 1 do
    for x = 0, NX - 1 do
      local i = y * NX + x
      add(i, i, 4.0 + 0.01 * (i % 7))
      if x > 0 then add(i, i - 1, -1.0 - conv) end
      if x < NX - 1 then add(i, i + 1, -1.0 + conv) end
      if y > 0 then add(i, i - NX, -1.0) end
      if y < NY - 1 then add(i, i + NX, -1.0) end
    end
  end
  return R, C, V
end
local PR, PC, PV = poisson(0.0)
local full = sparse.from_coo(N, N, PR, PC, PV, {sum_duplicates = true})
local NR, NC, NV = poisson(0.3)
local fulln = sparse.from_coo(N, N, NR, NC, NV, {sum_duplicates = true})
local MTX = TMP .. "/poisson.mtx"
if me == 0 then sparse.write_mm(MTX, full) end
remote.barrier()

-- the whole of a vector function on every rank (reference input)
local function fullvec(f)
  local v = speck.View("full", "float64", N)
  for i = 0, N - 1 do v[i] = f(i) end
  return v
end
local function distvec(A, f)
  local x = dist.vector(A)
  local ids = x:local_ids()
  for k = 0, ids:extent(0) - 1 do x:local_view()[k] = f(ids(k)) end
  return x
end
local XF = function(i) return math.sin(i + 1) + 0.25 * (i % 5) end

-- -- maps ------------------------------------------------------------------------------------
case("blocks: local_range tiles [0, n) in rank order; owner", function()
  local m = dist.map(10)
  local b, e = m:local_range()
  local all = dist._internal.c.allgather(b)
  eq(all[1], 0, "rank 0 starts at")
  for r = 0, np - 1 do eq(all[r + 1], (r * 10) // np, "start of rank " .. r) end
  eq(e, ((me + 1) * 10) // np, "end")
  for g = 0, 9 do check(g >= (m:owner(g) * 10) // np and g < ((m:owner(g) + 1) * 10) // np, "owner of " .. g) end
  eq(remote.allreduce(e - b, "sum"), 10, "rows over the ranks")
end)

case("partition map: local_ids, owner, gather puts each entry at its id", function()
  local part = {}
  for i = 0, 16 do part[i + 1] = (i * 7 + 3) % np end
  local m = dist.map(17, {partition = part})
  local ids = m:local_ids()
  for k = 0, ids:extent(0) - 1 do eq(part[ids(k) + 1], me, "owner of local id " .. ids(k)) end
  for g = 0, 16 do eq(m:owner(g), part[g + 1], "owner " .. g) end
  fails_with("the map comes from a partition vector", m.local_range, m)
  local x = dist.vector(m)
  for k = 0, ids:extent(0) - 1 do x:local_view()[k] = 100 + ids(k) end
  local g = x:gather()
  for i = 0, 16 do eq(g(i), 100.0 + i, "gathered " .. i) end
  -- to one rank only
  local root = np - 1
  local g1 = x:gather(root)
  if me == root then
    for i = 0, 16 do eq(g1(i), 100.0 + i, "gathered to the last rank " .. i) end
  else
    eq(g1, nil, "nothing on the other ranks")
  end
  fails_with("speck.dist.gather: root must be a rank in [0, " .. np .. "), got " .. np, x.gather, x, np)
end)

-- -- matrices --------------------------------------------------------------------------------
local A -- read_mm's
case("read_mm + spmv against sparse.spmv on the whole matrix", function()
  A = dist.read_mm(MTX)
  eq(A:nnz(), full:nnz(), "nnz")
  local x, y = distvec(A, XF), distvec(A, function(i) return i * 0.5 end)
  dist.spmv(2.0, A, x, -0.5, y)
  local yf = fullvec(function(i) return i * 0.5 end)
  sparse.spmv("N", 2.0, full, fullvec(XF), -0.5, yf)
  close(y:gather(), yf, N, 1e-12, "y")
  local info = A:plan_info()
  check(info.build_seconds >= 0 and info.matrix_build_seconds >= info.build_seconds, "build times")
  eq(info.halo, np == 1 and 0 or info.halo, "halo")
  if np > 1 then check(info.halo > 0 and #info.sources > 0, "a halo on " .. np .. " ranks") end
  -- the plan is reused: a second product gives the same
  local y2 = dist.vector(A)
  dist.spmv(1.0, A, x, 0.0, y2)
  local y3 = fullvec(function() return 0 end)
  sparse.spmv("N", 1.0, full, fullvec(XF), 0.0, y3)
  close(y2:gather(), y3, N, 1e-12, "y again")
end)

case("from_local and assemble give read_mm's operator", function()
  local m = dist.map(N)
  local b, e = m:local_range()
  local R, C, V = {}, {}, {}
  for k = 1, #PR do
    if PR[k] >= b and PR[k] < e then R[#R + 1], C[#C + 1], V[#V + 1] = PR[k] - b, PC[k], PV[k] end
  end
  local B = dist.from_local(N, N, b, sparse.from_coo(e - b, N, R, C, V))
  -- assembly: every rank contributes half of every entry of a slice (off-rank rows summed by owners)
  local R2, C2, V2 = {}, {}, {}
  for k = 1, #PR do
    if k % np == me then
      for _ = 1, 2 do R2[#R2 + 1], C2[#C2 + 1], V2[#V2 + 1] = PR[k], PC[k], PV[k] / 2 end
    end
  end
  local E = dist.assemble(N, N, R2, C2, V2)
  local x = distvec(B, XF)
  local yb, ye = dist.vector(B), dist.vector(E)
  dist.spmv(1.0, B, x, 0.0, yb)
  dist.spmv(1.0, E, x, 0.0, ye)
  local yf = fullvec(function() return 0 end)
  sparse.spmv("N", 1.0, full, fullvec(XF), 0.0, yf)
  close(yb:gather(), yf, N, 1e-12, "from_local")
  close(ye:gather(), yf, N, 1e-12, "assemble")
end)

case("a rectangular matrix: x over the domain map, y over the rows", function()
  local M = N + 7
  local m = dist.map(N)
  local b, e = m:local_range()
  local R, C, V = {}, {}, {}
  for i = b, e - 1 do
    for _, j in ipairs{i, (i * 5 + 3) % M, M - 1 - (i % 11)} do R[#R + 1], C[#C + 1], V[#V + 1] = i - b, j, 1.0 + j % 4 end
  end
  local B = dist.from_local(N, M, b, sparse.from_coo(e - b, M, R, C, V, {sum_duplicates = true}))
  local x, y = dist.vector(B:domain_map(), 0.0), dist.vector(B)
  local ids = x:local_ids()
  for k = 0, ids:extent(0) - 1 do x:local_view()[k] = XF(ids(k)) end
  dist.spmv(1.0, B, x, 0.0, y)
  local FR, FC, FV = {}, {}, {}
  for i = 0, N - 1 do
    for _, j in ipairs{i, (i * 5 + 3) % M, M - 1 - (i % 11)} do FR[#FR + 1], FC[#FC + 1], FV[#FV + 1] = i, j, 1.0 + j % 4 end
  end
  local Bf = sparse.from_coo(N, M, FR, FC, FV, {sum_duplicates = true})
  local xf = speck.View("xf", "float64", M)
  for j = 0, M - 1 do xf[j] = XF(j) end
  local yf = fullvec(function() return 0 end)
  sparse.spmv("N", 1.0, Bf, xf, 0.0, yf)
  close(y:gather(), yf, N, 1e-12, "rectangular spmv")
  fails_with("speck.dist.spmv: x is a vector of another map", dist.spmv, 1.0, B, y, 0.0, dist.vector(B))
end)

case("a partition map: from_local and read_mm over it, spmv, cg, gather", function()
  local part = {}
  for i = 0, N - 1 do part[i + 1] = ((i // 5) * 3 + i) % np end
  local m = dist.map(N, {partition = part})
  local ids = m:local_ids()
  local lid = {}
  for k = 0, ids:extent(0) - 1 do lid[ids(k)] = k end
  local R, C, V = {}, {}, {}
  for k = 1, #PR do
    if lid[PR[k]] then R[#R + 1], C[#C + 1], V[#V + 1] = lid[PR[k]], PC[k], PV[k] end
  end
  local B = dist.from_local(N, N, 0, sparse.from_coo(ids:extent(0), N, R, C, V), {map = m})
  local x, y = distvec(B, XF), dist.vector(B)
  dist.spmv(1.0, B, x, 0.0, y)
  local yf = fullvec(function() return 0 end)
  sparse.spmv("N", 1.0, full, fullvec(XF), 0.0, yf)
  close(y:gather(), yf, N, 1e-12, "partitioned spmv")
  -- read_mm over the same map
  local Bm = dist.read_mm(MTX, {map = m})
  local y2 = dist.vector(Bm)
  dist.spmv(1.0, Bm, x, 0.0, y2)
  close(y2:gather(), yf, N, 1e-12, "read_mm over a partition map")
  local _, info = dist.cg(Bm, distvec(Bm, function() return 1.0 end), {tol = 1e-10})
  eq(info.reason, "converged", "cg over a partition map")
  fails_with("speck.dist.read_mm: '" .. MTX .. "' has " .. N .. " rows, the map 17", dist.read_mm, MTX,
             {map = dist.map(17)})
end)

case("spgemm A*A against sparse.spgemm on the whole matrix", function()
  local C = dist.spgemm(A, A)
  local Cf = sparse.spgemm(full, full)
  eq(C:nnz(), Cf:nnz(), "nnz of A*A")
  local x, y = distvec(C, XF), dist.vector(C)
  dist.spmv(1.0, C, x, 0.0, y)
  local yf = fullvec(function() return 0 end)
  sparse.spmv("N", 1.0, Cf, fullvec(XF), 0.0, yf)
  close(y:gather(), yf, N, 1e-12, "(A*A) x")
end)

case("dot, norm2, axpy against the whole vectors", function()
  local x, y = distvec(A, XF), distvec(A, function(i) return 1.0 / (i + 1) end)
  local d = 0
  for i = 0, N - 1 do d = d + XF(i) / (i + 1) end
  check(math.abs(dist.dot(x, y) - d) <= 1e-12 * math.abs(d), "dot")
  local n2 = 0
  for i = 0, N - 1 do n2 = n2 + XF(i) ^ 2 end
  check(math.abs(dist.norm2(x) - math.sqrt(n2)) <= 1e-12 * math.sqrt(n2), "norm2")
  dist.axpy(3.0, x, y)
  close(y:gather(), fullvec(function(i) return 3.0 * XF(i) + 1.0 / (i + 1) end), N, 1e-12, "axpy")
  local y0, yall = y:gather(0), y:gather()
  if me == 0 then close(y0, yall, N, 0, "gathered to rank 0") else eq(y0, nil, "not gathered here") end
end)

-- -- solvers ------------------------------------------------------------------------------------

local function solved(key, B, bfull, x, info, Afull, tol)
  eq(info.reason, "converged", key .. " reason")
  check(info.resid <= tol, key .. " resid " .. info.resid)
  eq(#info.history, info.iters + 1, key .. " history length")
  local xg = x:gather()
  local r = speck.View("r", "float64", N)
  speck.deep_copy(r, bfull)
  sparse.spmv("N", -1.0, Afull, xg, 1.0, r)
  local rn, bn = 0, 0
  for i = 0, N - 1 do rn, bn = rn + r(i) ^ 2, bn + bfull(i) ^ 2 end
  check(math.sqrt(rn / bn) <= 2 * tol, key .. ": ||b - A x|| / ||b|| on one rank is " .. math.sqrt(rn / bn))
  check(math.abs(math.sqrt(rn / bn) - info.resid) <= 1e-12 + 1e-6 * info.resid, key .. " info.resid")
  if np == 1 then record(key, info.iters, xg) else compare(key, info.iters, xg) end
end

case("cg (Jacobi and none) against the whole system and the 1-rank run", function()
  local b = distvec(A, function(i) return 1.0 + (i % 3) end)
  local bf = fullvec(function(i) return 1.0 + (i % 3) end)
  for _, pc in ipairs{"jacobi", "none", "chebyshev"} do
    local x, info = dist.cg(A, b, {tol = 1e-10, precond = pc})
    solved("cg_" .. pc, A, bf, x, info, full, 1e-10)
  end
end)

case("cg's interior SpMV by diagonals: the index's sums bit for bit, its phases timed", function()
  -- two sweep states of a matrix (kernels/dist/cg.c): by diagonals where
  -- the host runs it (the 5-point matrix: the body of width 5; A's values
  -- by the table, a constant-coefficient one's by one value a diagonal,
  -- 64 rows a launch index), and by the index only; one sweep each over
  -- the same vectors leaves them and the three sums the same bit for bit
  local c = dist._internal.c
  local host = A.interior.values:space() == "host"
  local stage = not host or os.getenv("SPECK_DIST_STAGE") == "1"
  local b, e = A:local_range()
  local nloc = e - b
  -- the constant-coefficient 5-point matrix, this rank's rows
  local R, C, V = {}, {}, {}
  for i = b, e - 1 do
    for _, o in ipairs{-NX, -1, 0, 1, NX} do
      local j = i + o
      if j >= 0 and j < N and (o ~= -1 or i % NX > 0) and (o ~= 1 or i % NX < NX - 1) then
        R[#R + 1], C[#C + 1], V[#V + 1] = i - b, j, o == 0 and 4.0 or -1.0
      end
    end
  end
  local U = dist.from_local(N, N, b, sparse.from_coo(nloc, N, R, C, V))
  local function vecs(dconst)
    local t = {}
    for q, f in ipairs{function(g) return dconst or 1 / (4.0 + 0.01 * (g % 7)) end,
                       function(g) return 0.1 * (g % 5) end, function(g) return 1.0 + (g % 3) * 0.25 end,
                       function(g) return -0.5 + (g % 11) * 0.1 end, function(g) return (g % 4) * 0.3 end,
                       function(g) return 2.0 - (g % 9) * 0.2 end} do
      local v = speck.View("v" .. q, "float64", nloc, {space = A.interior.values:space()})
      local h = speck.View("h" .. q, "float64", nloc, {space = "host"})
      for k = 0, nloc - 1 do h[k] = f(b + k) end
      speck.deep_copy(v, h)
      t[q] = v
    end
    return t
  end
  local sd
  for _, M in ipairs{A, U} do
    local function state(nodia)
      return c.cg_matrix(M.plan, M.interior.rowptr, M.interior.colidx, M.interior.values,
                         M.boundary.rowptr, M.boundary.colidx, M.boundary.values, M.halo,
                         stage, nodia)
    end
    local si
    sd, si = state(false), state(true)
    local what = M == A and "A: " or "constant coefficients: "
    -- the rows whose columns all lie in the rank (13 either side): some on every rank here
    eq(sd:phases().dia, host and nloc > 26 and 5 or 0, what .. "the diagonal body's width")
    eq(sd:phases().dia_one_value, host and nloc > 26 and M == U, what .. "one value a diagonal")
    eq(si:phases().dia, 0, what .. "nodia: the index only")
    -- U with d all 0.25 (Jacobi's of a constant diagonal): u = 0.25 r
    -- formed where it is read, not stored
    local dconst = M == U and 0.25 or nil
    local v1, v2 = vecs(dconst), vecs(dconst)
    local a1, b1, c1 = c.cg_sweep(sd, v1[1], v1[2], v1[3], v1[4], v1[5], v1[6], 0.3, 0.7)
    local a2, b2, c2 = c.cg_sweep(si, v2[1], v2[2], v2[3], v2[4], v2[5], v2[6], 0.3, 0.7)
    eq(sd:phases().d_one_value, host and nloc > 26 and M == U, what .. "d one number")
    eq(si:phases().d_one_value, false, what .. "nodia: u stored")
    eq(a1, a2, what .. "r'u")
    eq(b1, b2, what .. "w'u")
    eq(c1, c2, what .. "r'r")
    for q = 1, 6 do
      local h1 = speck.View("c1", "float64", nloc, {space = "host"})
      local h2 = speck.View("c2", "float64", nloc, {space = "host"})
      speck.deep_copy(h1, v1[q])
      speck.deep_copy(h2, v2[q])
      for k = 0, nloc - 1 do
        if h1[k] ~= h2[k] then
          check(false, ("%svector %d row %d: %.17g against %.17g"):format(what, q, k, h1[k], h2[k]))
          break
        end
      end
    end
  end
  -- the phases: one sweep counted, times not negative
  local ph = sd:phases()
  eq(ph.sweeps, 1, "sweeps")
  for _, k in ipairs{"pack", "interior", "wait", "boundary", "allreduce"} do
    check(ph[k] >= 0, k .. " time " .. tostring(ph[k]))
  end
  -- dist.cg hands them back
  local _, info = dist.cg(A, dist.vector(A, 1.0), {tol = 1e-8, precond = "jacobi"})
  eq(info.phases.sweeps, info.iters + 1, "dist.cg's sweeps: one an iteration and the first")
  check(info.phases.interior > 0, "dist.cg's interior time")
end)

case("cg with block Jacobi (local sparse Cholesky): one iteration on one rank, converged on all", function()
  local b = distvec(A, function(i) return 1.0 + (i % 3) end)
  local bf = fullvec(function(i) return 1.0 + (i % 3) end)
  local x, info = dist.cg(A, b, {tol = 1e-10, precond = "block_jacobi"})
  eq(info.reason, "converged", "reason")
  if np == 1 then eq(info.iters, 1, "an exact preconditioner on one rank") end
  local _, jinfo = dist.cg(A, b, {tol = 1e-10, precond = "jacobi"})
  check(info.iters < jinfo.iters, ("fewer iterations than Jacobi (%d, %d)"):format(info.iters, jinfo.iters))
  local xg = x:gather()
  local r = speck.View("r", "float64", N)
  speck.deep_copy(r, bf)
  sparse.spmv("N", -1.0, full, xg, 1.0, r)
  local rn, bn = 0, 0
  for i = 0, N - 1 do rn, bn = rn + r(i) ^ 2, bn + bf(i) ^ 2 end
  check(math.sqrt(rn / bn) <= 2e-10, "||b - A x|| / ||b|| = " .. math.sqrt(rn / bn))
end)

case("block Jacobi with local IC(0), ILU(0) and symmetric multicolor Gauss-Seidel: converged, fewer iterations than Jacobi", function()
  local b = distvec(A, function(i) return 1.0 + (i % 3) end)
  local bf = fullvec(function(i) return 1.0 + (i % 3) end)
  local _, jinfo = dist.cg(A, b, {tol = 1e-10, precond = "jacobi"})
  for _, blk in ipairs{"ic0", "ilu0", "gs"} do
    local x, info = dist.cg(A, b, {tol = 1e-10, precond = "block_jacobi", block = blk})
    eq(info.reason, "converged", blk .. " reason")
    check(info.iters < jinfo.iters, ("%s: fewer iterations than Jacobi (%d, %d)"):format(blk, info.iters, jinfo.iters))
    local xg = x:gather()
    local r = speck.View("r", "float64", N)
    speck.deep_copy(r, bf)
    sparse.spmv("N", -1.0, full, xg, 1.0, r)
    local rn, bn = 0, 0
    for i = 0, N - 1 do rn, bn = rn + r(i) ^ 2, bn + bf(i) ^ 2 end
    check(math.sqrt(rn / bn) <= 2e-10, blk .. ": ||b - A x|| / ||b|| = " .. math.sqrt(rn / bn))
    -- a second solve reuses the factor kept on the matrix: the same iterates
    local x2, info2 = dist.cg(A, b, {tol = 1e-10, precond = "block_jacobi", block = blk})
    eq(info2.iters, info.iters, blk .. " iterations of a second solve")
    local x2g = x2:gather()
    for i = 0, N - 1 do eq(x2g(i), xg(i), blk .. " second solve, entry " .. i) end
  end
  -- on one rank IC(0) of the whole matrix: the same preconditioner as speck.solve.ic0
  if np == 1 then
    local solve = require "speck.solve"
    local _, sinfo = solve.cg(full, bf, {tol = 1e-10, precond = solve.ic0(full)})
    local _, dinfo = dist.cg(A, b, {tol = 1e-10, precond = "block_jacobi", block = "ic0"})
    check(math.abs(dinfo.iters - sinfo.iters) <= 1,
          ("one rank: dist IC(0) %d iterations, solve.cg with ic0 %d"):format(dinfo.iters, sinfo.iters))
  end
end)

case("block Jacobi's local solver: a wrong name, a block without block Jacobi, a block IC(0) refuses", function()
  local b = distvec(A, function(i) return 1.0 + (i % 3) end)
  fails_with('speck.dist.cg: block must be "cholesky", "ic0", "ilu0" or "gs" (block Jacobi\'s local solver), got lu',
             dist.cg, A, b, {precond = "block_jacobi", block = "lu"})
  fails_with('speck.dist.cg: block names block Jacobi\'s local solver: give it with precond = "block_jacobi"',
             dist.cg, A, b, {precond = "jacobi", block = "ic0"})
  -- a matrix whose last row's diagonal is negative: the last rank's IC(0) fails, every rank says so
  local m = dist.map(N)
  local lo, hi = m:local_range()
  local R, C, V = {}, {}, {}
  for k = 1, #PR do
    if PR[k] >= lo and PR[k] < hi then
      local v = PV[k]
      if PR[k] == N - 1 and PC[k] == N - 1 then v = -v end
      R[#R + 1], C[#C + 1], V[#V + 1] = PR[k] - lo, PC[k], v
    end
  end
  local Bad = dist.from_local(N, N, lo, sparse.from_coo(hi - lo, N, R, C, V, {sum_duplicates = true}))
  local rb = distvec(Bad, function() return 1.0 end)
  fails_with("speck.dist.cg: block Jacobi (ic0): rank " .. (np - 1) .. "'s diagonal block: ",
             dist.cg, Bad, rb, {precond = "block_jacobi", block = "ic0"})
  -- the VM goes on: the good matrix still solves
  local _, info = dist.cg(A, b, {tol = 1e-10, precond = "block_jacobi", block = "ic0"})
  eq(info.reason, "converged", "after the failure")
end)

case("amg (smoothed aggregation, aggregates within each rank) as cg's and gmres' precond: converged, fewer iterations than Jacobi", function()
  local b = distvec(A, function(i) return 1.0 + (i % 3) end)
  local bf = fullvec(function(i) return 1.0 + (i % 3) end)
  local M = dist.amg(A, {coarse_size = 20})
  H.amg_info(M, N)
  local _, jinfo = dist.cg(A, b, {tol = 1e-10, precond = "jacobi"})
  local x, info = dist.cg(A, b, {tol = 1e-10, precond = M})
  eq(info.reason, "converged", "reason")
  check(2 * info.iters < jinfo.iters, ("fewer than half Jacobi's iterations (%d, %d)"):format(info.iters, jinfo.iters))
  local xg = x:gather()
  local r = speck.View("r", "float64", N)
  speck.deep_copy(r, bf)
  sparse.spmv("N", -1.0, full, xg, 1.0, r)
  local rn, bn = 0, 0
  for i = 0, N - 1 do rn, bn = rn + r(i) ^ 2, bn + bf(i) ^ 2 end
  check(math.sqrt(rn / bn) <= 2e-10, "||b - A x|| / ||b|| = " .. math.sqrt(rn / bn))
  -- the same preconditioner again: the same iterates
  local x2, info2 = dist.cg(A, b, {tol = 1e-10, precond = M})
  eq(info2.iters, info.iters, "a second solve's iterations")
  local x2g = x2:gather()
  for i = 0, N - 1 do eq(x2g(i), xg(i), "a second solve, entry " .. i) end
  local _, ginfo = dist.gmres(A, b, {tol = 1e-10, restart = 30, precond = M})
  eq(ginfo.reason, "converged", "gmres with amg")
  check(ginfo.iters < jinfo.iters, ("gmres with amg: %d iterations, cg with Jacobi %d"):format(ginfo.iters, jinfo.iters))
  -- on one rank: within 3 iterations of speck.solve.amg with speck.solve.cg
  if np == 1 then
    local solve = require "speck.solve"
    local _, sinfo = solve.cg(full, bf, {tol = 1e-10, precond = solve.amg(full, {coarse_size = 20})})
    check(math.abs(info.iters - sinfo.iters) <= 3,
          ("one rank: dist.amg %d iterations, solve.amg %d"):format(info.iters, sinfo.iters))
  end
end)

case("amg: a wrong matrix, options, and its use with another matrix", function()
  fails_with("speck.dist.amg: A must be a distributed matrix, got string", dist.amg, "A")
  fails_with("speck.dist.amg: coarse_size must be an integer >= 1, got 0", dist.amg, A, {coarse_size = 0})
  fails_with("speck.dist.amg: degree must be an integer >= 1, got 1.5", dist.amg, A, {degree = 1.5})
  fails_with("speck.dist.amg: unknown option 'smoother'", dist.amg, A, {smoother = "gs"})
  local m = dist.map(N)
  local lo, hi = m:local_range()
  local Rr, Rc, Rv = {}, {}, {}
  for i = lo, hi - 1 do Rr[#Rr + 1], Rc[#Rc + 1], Rv[#Rv + 1] = i - lo, i + 1, 1.0 end
  local W = dist.from_local(N, N + 1, lo, sparse.from_coo(hi - lo, N + 1, Rr, Rc, Rv))
  fails_with("speck.dist.amg: A must be square, it is " .. N .. "x" .. (N + 1), dist.amg, W)
  -- a preconditioner of A given for another matrix of another size
  local M = dist.amg(A, {coarse_size = 20})
  local B2 = dist.from_local(N, N, lo, sparse.from_coo(hi - lo, N, Rr, Rr, Rv))
  local small = dist.map(N - 1)
  local sl, sh = small:local_range()
  local S = {}
  for i = sl, sh - 1 do S[#S + 1] = i - sl end
  local ones = {}
  for k = 1, #S do ones[k] = 1.0 end
  local Cm = dist.from_local(N - 1, N - 1, sl, sparse.from_coo(sh - sl, N - 1, S, (function()
    local t = {} for k = 1, #S do t[k] = S[k] + sl end return t end)(), ones))
  fails_with("speck.dist.cg: precond is a dist.amg of another matrix (" .. N .. " rows), A has " .. (N - 1) .. " rows",
             dist.cg, Cm, dist.vector(Cm, 1.0), {precond = M})
  fails_with("speck.dist.cg: precond is a dist.amg of another matrix", dist.cg, B2, dist.vector(B2, 1.0), {precond = M})
  -- the VM goes on
  local _, info = dist.cg(A, dist.vector(A, 1.0), {tol = 1e-8, precond = M})
  eq(info.reason, "converged", "after the errors")
end)

case("gmres (restarted; Jacobi, Chebyshev) and bicgstab on a nonsymmetric matrix against the whole system and the 1-rank run", function()
  local m = dist.map(N)
  local b, e = m:local_range()
  local R, C, V = {}, {}, {}
  for k = 1, #NR do
    if NR[k] >= b and NR[k] < e then R[#R + 1], C[#C + 1], V[#V + 1] = NR[k] - b, NC[k], NV[k] end
  end
  local B = dist.from_local(N, N, b, sparse.from_coo(e - b, N, R, C, V))
  local rhs = distvec(B, function(i) return 1.0 + (i % 3) end)
  local bf = fullvec(function(i) return 1.0 + (i % 3) end)
  local x, info = dist.gmres(B, rhs, {tol = 1e-10, restart = 20, precond = "jacobi"})
  solved("gmres_jacobi", B, bf, x, info, fulln, 1e-10)
  check(info.iters > 20, "restarted at least once (" .. info.iters .. " iterations)")
  x, info = dist.bicgstab(B, rhs, {tol = 1e-10, precond = "jacobi"})
  solved("bicgstab_jacobi", B, bf, x, info, fulln, 1e-10)
  x, info = dist.gmres(B, rhs, {tol = 1e-10, restart = 20, precond = "chebyshev", degree = 2})
  solved("gmres_chebyshev", B, bf, x, info, fulln, 1e-10)
end)

-- -- graphs ----------------------------------------------------------------------------------
local NV_G, GS, GD = H.two_part_graph() -- two parts (so components count)
local GEDGES = TMP .. "/graph.txt"
if me == 0 then
  local fh = assert(io.open(GEDGES, "w"))
  fh:write("# a test graph\n# Nodes: " .. NV_G .. " Edges: " .. #GS .. "\n")
  for k = 1, #GS do fh:write(GS[k], "\t", GD[k], "\n") end
  fh:close()
  os.execute("gzip -c '" .. GEDGES .. "' > '" .. GEDGES .. ".gz'")
end
remote.barrier()
local whole = graph.from_edges(NV_G, GS, GD)
local g
case("read_graph (byte ranges) against the whole graph", function()
  g = dist.read_graph(GEDGES)
  eq(g:num_vertices(), NV_G, "vertices")
  eq(g:num_edges(), whole:num_edges(), "edges")
end)

case("bfs levels bit-identical to graph.bfs, top-down, bottom-up and switching", function()
  local switched = false
  for _, s in ipairs{0, 17, 250, 295} do
    local want = graph.bfs(whole, s)
    for _, d in ipairs{"auto", "top_down", "bottom_up"} do
      local l = dist.bfs(g, s, {direction = d})
      if d == "auto" and l.directions:find("T") and l.directions:find("B") then switched = true end
      if d == "top_down" then check(not l.directions:find("B"), "top-down only") end
      if d == "bottom_up" then check(not l.directions:find("T"), "bottom-up only") end
      local lev = l:gather()
      for v = 0, NV_G - 1 do eq(lev(v), want(v), ("level of %d from %d (%s)"):format(v, s, d)) end
    end
  end
  check(switched, "the auto direction switched at least once")
  fails_with("speck.dist.bfs: direction must be \"auto\", \"top_down\" or \"bottom_up\", got sideways",
             dist.bfs, g, 0, {direction = "sideways"})
  -- the C driver's own check of the views it is given (core.dist.bfs_graph,
  -- which dist.bfs calls): refused on every rank alike, before any exchange
  local B = g.Ain
  fails_with("speck.dist.bfs: view 'wrong' must be a contiguous rank-1 int64 view in the graph's space",
             require("speck.core").dist.bfs_graph, g.map.c, speck.View("wrong", "float64", 4),
             g.A.interior.colidx, B.interior.rowptr, B.interior.colidx, B.boundary.rowptr,
             B.boundary.colidx, g.degree, B.halo_ids, 1, false)
  eq(dist.bfs(g, 0):gather()(0), 0, "dist.bfs after the refusal")
end)

case("connected components: the same partition as graph.connected_components", function()
  local lab, n = dist.connected_components(g)
  local want, wn = graph.connected_components(whole)
  eq(n, wn, "components")
  local l = lab:gather()
  local fw, bw = {}, {}
  for v = 0, NV_G - 1 do
    local a, b = l(v), want(v)
    if fw[a] == nil then fw[a] = b end
    if bw[b] == nil then bw[b] = a end
    eq(fw[a], b, "partition at " .. v)
    eq(bw[b], a, "partition at " .. v)
    check(l(v) <= v, "label is the smallest id")
  end
end)

case("pagerank within 1e-10 of graph.pagerank", function()
  local r, it = dist.pagerank(g, {tol = 1e-13, maxiter = 500})
  local want = graph.pagerank(whole, {tol = 1e-13, maxiter = 500})
  check(it > 1, "iterations")
  close(r:gather(), want, NV_G, 1e-10, "pagerank")
end)

case("triangles: the total of graph.triangles; a .gz file (rank 0 reads it) gives the same graph", function()
  local want = graph.triangles(whole)
  eq(dist.triangles(g), want, "triangles")
  local gz = dist.read_graph(GEDGES .. ".gz")
  eq(gz:num_edges(), whole:num_edges(), "edges of the .gz")
  eq(dist.triangles(gz), want, "triangles of the .gz")
end)

case("a directed graph: bfs along out-arcs, weak components, pagerank against the library", function()
  local dg = dist.read_graph(GEDGES, {directed = true})
  local wd = graph.from_edges(NV_G, GS, GD, {directed = true})
  check(dg:is_directed(), "directed")
  eq(dg:num_edges(), wd:num_edges(), "arcs")
  for _, s in ipairs{0, 17, 250} do
    local want = graph.bfs(wd, s)
    for _, d in ipairs{"auto", "top_down", "bottom_up"} do
      local lev = dist.bfs(dg, s, {direction = d}):gather()
      for v = 0, NV_G - 1 do eq(lev(v), want(v), ("level of %d from %d (%s)"):format(v, s, d)) end
    end
  end
  local lab, n = dist.connected_components(dg)
  local want, wn = graph.wcc(wd)
  eq(n, wn, "weak components")
  local l, fw = lab:gather(), {}
  for v = 0, NV_G - 1 do
    if fw[l(v)] == nil then fw[l(v)] = want(v) end
    eq(fw[l(v)], want(v), "partition at " .. v)
  end
  local r = dist.pagerank(dg, {tol = 1e-13, maxiter = 500})
  close(r:gather(), graph.pagerank(wd, {tol = 1e-13, maxiter = 500}), NV_G, 1e-10, "directed pagerank")
  fails_with("speck.dist.triangles: g is directed", dist.triangles, dg)
end)

-- -- memory: no rank holds more than its rows plus the halo ------------------------------------
case("each rank holds its rows and the halo only (matrix, vectors, solver output, graph)", function()
  local b, e = A:local_range()
  local nloc = e - b
  local nnz_mine = 0
  for k = 1, #PR do if PR[k] >= b and PR[k] < e then nnz_mine = nnz_mine + 1 end end
  local h = A:plan_info().halo
  local c = dist._internal.c
  local round = function(x) return (x + 63) // 64 * 64 end
  -- rowptr twice, colidx int32 + values float64 per entry, halo values and ids
  local allowed = 2 * round(8 * (nloc + 1)) + 2 * round(4 * nnz_mine) + 2 * round(8 * nnz_mine)
                  + 2 * round(8 * h) + 4 * 64
  -- the halo staged through host memory (GPU ranks; SPECK_DIST_STAGE=1): the
  -- send list, the send buffer and its host copy, the halo's host copy
  local staged = os.getenv("SPECK_DIST_STAGE") == "1" or A.interior:space() ~= "host"
  if staged then allowed = allowed + 3 * round(8 * A:plan_info().sent) + round(8 * h) + 4 * 64 end
  -- the one-sided path's receive buffers (symmetric: two a dtype, each
  -- the largest halo over the ranks) and send list
  local function onesided_bytes(M)
    local t = 0
    for _, b in pairs(M._xb or {}) do
      for _, r in ipairs(b.rb or {}) do t = t + c.bytes(r) end
    end
    for _, r in ipairs(M._cgrb or {}) do t = t + c.bytes(r) end
    return t + (M.onesided and round(8 * M:plan_info().sent) or 0)
  end
  allowed = allowed + onesided_bytes(A)
  check(A:memory() <= allowed, ("matrix part %d bytes > %d"):format(A:memory(), allowed))
  if np == 3 then
    check(A:memory() - onesided_bytes(A) < c.bytes(full.values) + c.bytes(full.colidx), "less than the whole")
  end
  local x = dist.cg(A, dist.vector(A, 1.0), {tol = 1e-6})
  check(c.bytes(x:local_view()) <= round(8 * nloc), "solution: own rows only")
  -- (staged: those buffers for int64 levels and float64 ranks)
  local gs = g.A:plan_info()
  local gextra = (staged and 2 * (3 * round(8 * gs.sent) + round(8 * gs.halo) + 4 * 64) or 0)
                 + onesided_bytes(g.A) + (g.Ain ~= g.A and onesided_bytes(g.Ain) or 0)
  -- the BFS driver's state (kernels/dist/bfs.c, made at the first search
  -- and counted by g:memory()): the halo's in-arcs transposed (a row
  -- pointer by halo vertex, an int32 per arc), the halo vertices' bits,
  -- the visited and new-frontier words of this rank's vertices and the
  -- replicated frontier (nv bits and three counters a rank); staged: host
  -- copies of the last two
  local bs = g._bfs and g._bfs:bytes() or 0
  local B, nw = g.Ain, (g.map.nloc + 63) // 64
  local bnnz = B.nnz_local - B.interior.colidx:extent(0)
  local nall = g.nv // 64 + 4 * np
  local ballowed = round(8 * (B.nhalo + 1)) + round(4 * math.max(bnnz, 1)) + round(8 * math.max(B.nhalo, 1))
                   + round(8 * nw) + 2 * round(8 * (nw + 3)) + 2 * round(8 * nall)
  check(bs <= ballowed, ("bfs state %d bytes > %d"):format(bs, ballowed))
  check(g:memory() - bs < 3 * c.bytes(whole.colidx) * 2 // np + 4096 + gextra, "graph part")
  local lev = dist.bfs(g, 0)
  check(c.bytes(lev:local_view()) <= round(8 * g.map.nloc), "levels: own rows only")
end)

case("no call but gather() makes a view larger than this rank's rows plus the halo", function()
  -- every view speck.View makes during the calls, counted (dist.lua makes
  -- its views through speck.View; the library's outputs are checked above)
  local View = speck.View
  local largest, what = 0, ""
  speck.View = setmetatable({}, {__index = View, __call = function(_, label, dt, dims, ...)
    local n = type(dims) == "table" and 1 or dims
    if type(dims) == "table" then for _, d in ipairs(dims) do n = n * d end end
    if n > largest then largest, what = n, label end
    return View(label, dt, dims, ...)
  end})
  local ok, e = pcall(function()
    local b = dist.vector(A, 1.0)
    local y = dist.vector(A)
    dist.spmv(1.0, A, b, 0.0, y)
    dist.cg(A, b, {tol = 1e-6, precond = "jacobi"})
    dist.gmres(A, b, {tol = 1e-6, restart = 5})
    dist.bfs(g, 0)
    dist.connected_components(g)
    dist.pagerank(g)
  end)
  speck.View = View
  assert(ok, e)
  local b, e2 = A:local_range()
  local gb, ge = g:local_range()
  local bound = math.max(e2 - b + 1, A:plan_info().halo, ge - gb + 1, g.A.nhalo)
  check(largest <= bound, ("view '%s' of %d elements > %d (rows + 1 or halo)"):format(what, largest, bound))
  if np == 3 then check(largest < N, "smaller than a whole vector") end
end)

-- -- bad input: the same error on every rank, no hang, the VM usable ----------------------------
case("ranks in different collective calls: every rank gets the same error", function()
  if np == 1 then return end
  local x = dist.vector(A, 1.0)
  local want = "speck.dist: the ranks are in different collective calls: rank 0 in speck.dist.dot, rank 1 in speck.dist.norm2"
  if me == 0 then fails_with(want, dist.dot, x, x) else fails_with(want, dist.norm2, x) end
  fails_with("speck.dist.bfs: the ranks disagree on source: rank 0 has 0, rank " .. (np - 1) .. " has " .. (np - 1),
             dist.bfs, g, me)
  -- a bad argument on one rank only: every rank gets that rank's message
  local want2 = "speck.dist.cg: tol must be a positive number, got -1.0"
  fails_with(want2, dist.cg, A, x, {tol = me == np - 1 and -1.0 or 1e-8})
  fails_with("speck.dist.spmv: y must be a distributed vector, got nil", dist.spmv, 1.0, A, x, 0.0,
             me ~= 0 and dist.vector(A) or nil)
  eq(dist.dot(x, x), N * 1.0, "usable after")
end)

case("a partition vector with an out-of-range or missing owner", function()
  fails_with("speck.dist.map: partition[2] (from 0) is " .. np .. ": an owner must be a rank in [0, " .. np .. ")",
             dist.map, 4, {partition = {0, 0, np, 0}})
  fails_with("speck.dist.map: partition[1] (from 0) is -1", dist.map, 4, {partition = {0, -1, 0, 0}})
  if np > 1 then
    fails_with("speck.dist.map: partition gives rank 1 no index", dist.map, 4, {partition = {0, 0, 0, 0}})
  end
  fails_with("speck.dist.map: partition has 3 entries, the map has 4 indices", dist.map, 4, {partition = {0, 0, 0}})
  if np > 1 then -- rank 0 passes another partition than the others
    local part = {}
    for i = 0, 9 do part[i + 1] = (me == 0 and i + 1 or i) % np end
    fails_with("speck.dist.map: the ranks disagree on the partition's checksum", dist.map, 10, {partition = part})
    -- and an out-of-range owner on rank 0 alone: the same error everywhere, no hang
    part = {}
    for i = 0, 9 do part[i + 1] = (me == 0 and i == 4) and 99 or i % np end
    fails_with("speck.dist.map: the ranks disagree on the partition's checksum", dist.map, 10, {partition = part})
    fails_with("speck.dist.map: the ranks disagree on the partition's length: rank 1 has 3, rank 0 has 4",
               dist.map, 4, {partition = me == 0 and {0, 0, 0, 1} or {0, 0, 1}})
  end
end)

case("a matrix file the last rank cannot read: every rank gets its error", function()
  local path = me == np - 1 and (TMP .. "/missing.mtx") or (TMP .. "/poisson.mtx")
  fails_with("speck.dist.read_mm: rank " .. (np - 1) .. " cannot read '" .. TMP .. "/missing.mtx'", dist.read_mm, path)
  fails_with("speck.dist.read_graph: rank " .. (np - 1) .. " cannot read '" .. TMP .. "/missing.mtx'",
             dist.read_graph, path)
end)

case("more ranks than rows", function()
  fails_with(("speck.dist.map: %d ranks but only %d rows: every rank needs at least one row"):format(np, np - 1),
             dist.map, np - 1)
  local small = TMP .. "/small.mtx"
  if me == 0 then
    sparse.write_mm(small, sparse.from_coo(np - 1 + (np == 1 and 1 or 0), 2, {0}, {0}, {1.0}))
  end
  remote.barrier()
  if np > 1 then
    fails_with(("speck.dist.read_mm: %d ranks but only %d rows"):format(np, np - 1), dist.read_mm, small)
  end
end)

case("a vector of another map passed to spmv, and other wrong arguments", function()
  local xb = dist.vector(dist.map(N + np))
  local y = dist.vector(A)
  fails_with("speck.dist.spmv: x is a vector of another map (" .. (N + np) .. " rows", dist.spmv, 1.0, A, xb, 0.0, y)
  fails_with("speck.dist.spmv: A must be a distributed matrix, got table", dist.spmv, 1.0, {}, y, 0.0, y)
  fails_with("speck.dist.cg: unknown option 'tolerance'", dist.cg, A, y, {tolerance = 1})
  fails_with("speck.dist.bfs: source 300 is not a vertex (the graph has 300: 0..299)", dist.bfs, g, 300)
  -- an edge out of range on the last rank only: every rank gets its message
  local es, ed = {0, 1, 2}, {1, 2, me == np - 1 and 300 or 3}
  fails_with("speck.dist.from_edges: edge 2 (from 0) on rank " .. (np - 1) .. " is 2 -> 300: not a vertex (the graph has 300)",
             dist.from_edges, 300, es, ed)
  local x = dist.vector(A, 1.0)
  dist.spmv(1.0, A, x, 0.0, y) -- usable after
  eq(dist.dot(y, y) > 0, true, "usable")
end)

case("a zero diagonal under Jacobi names the row", function()
  local m = dist.map(N)
  local b, e = m:local_range()
  local R, C, V = {}, {}, {}
  for k = 1, #PR do
    if PR[k] >= b and PR[k] < e and not (PR[k] == 7 and PC[k] == 7) then
      R[#R + 1], C[#C + 1], V[#V + 1] = PR[k] - b, PC[k], PV[k]
    end
  end
  local Z = dist.from_local(N, N, b, sparse.from_coo(e - b, N, R, C, V))
  fails_with("speck.dist.cg: Jacobi: row 7 has a zero diagonal", dist.cg, Z, dist.vector(Z, 1.0), {precond = "jacobi"})
end)

-- -- the fused CG (kernels/dist/cg.c) on a matrix whose columns reach past
-- 32767 rows from the diagonal: the SpMV on int32 columns, not int16
-- offsets (the Poisson matrices above take those)
case("cg (Jacobi) with columns far from the diagonal against the whole system and the 1-rank run", function()
  local NW = 40000
  local m = dist.map(NW)
  local b, e = m:local_range()
  local R, C, V = {}, {}, {}
  local function add(i, j, v) R[#R + 1], C[#C + 1], V[#V + 1] = i - b, j, v end
  for i = b, e - 1 do
    add(i, i, 4.0 + 0.01 * (i % 7))
    if i > 0 then add(i, i - 1, -1.0) end
    if i < NW - 1 then add(i, i + 1, -1.0) end
    if i == 0 then add(i, NW - 1, -0.5) end
    if i == NW - 1 then add(i, 0, -0.5) end
  end
  local W = dist.from_local(NW, NW, b, sparse.from_coo(e - b, NW, R, C, V))
  local rhs = dist.vector(W)
  for k = 0, e - b - 1 do rhs:local_view()[k] = 1.0 + ((b + k) % 3) end
  local x, info = dist.cg(W, rhs, {tol = 1e-10, precond = "jacobi"})
  eq(info.reason, "converged", "reason")
  check(info.resid <= 1e-10, "resid " .. info.resid)
  eq(#info.history, info.iters + 1, "history length")
  local r = dist.vector(W)
  dist.copy(rhs, r)
  dist.spmv(-1.0, W, x, 1.0, r)
  check(dist.norm2(r) / dist.norm2(rhs) <= 2e-10, "||b - A x|| / ||b|| = " .. dist.norm2(r) / dist.norm2(rhs))
  local xg = x:gather()
  if np == 1 then record("cg_wide", info.iters, xg) else compare("cg_wide", info.iters, xg) end
end)

-- -- run ---------------------------------------------------------------------------------------
local passed, failed = H.run()
if me == 0 then
  print(("dist (%d rank%s, %s): %d cases"):format(np, np == 1 and "" or "s", speck.info().default_space, #cases))
  print(("%d passed, %d failed"):format(passed, failed))
end
