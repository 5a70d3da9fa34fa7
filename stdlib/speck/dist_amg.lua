-- speck/dist_amg.lua: smoothed-aggregation AMG over a distributed matrix
-- (speck.dist.amg), MueLu's algorithm with its default "uncoupled"
-- aggregation: each rank aggregates its own rows (MIS-2 coarsening of its
-- diagonal block's graph, graph.coarsen_mis2, isolated rows left out as
-- speck.solve.amg does), the tentative prolongator from the constant
-- near-null space (solve.amg_tentative), smoothed by one damped Jacobi
-- step P = (I - omega D^-1 A) P_t with omega = 4/3 / lambda_max(D^-1 A)
-- (a distributed SpGEMM, dist.spgemm), R = P^T (each rank transposes its
-- rows of P and sends every coarse row's entries to its owner), and the
-- Galerkin product R (A P) by two distributed SpGEMMs. Coarse levels are
-- split in contiguous blocks: rank r owns its own aggregates. Smoothing:
-- dist's Chebyshev (degree 3) before and after the coarse correction;
-- the coarsest level (at most coarse_size rows) is gathered on every
-- rank and solved by sparse Cholesky there (a few hundred rows: the one
-- object of a global size a rank holds, as MueLu's coarse solve on one
-- rank). Loaded by speck/dist.lua, which accepts the result as a solver's
-- precond. On GPU ranks (dist's I.dev) the set-up runs as dist's matrix
-- construction does: the aggregation and the tentative prolongator on the
-- level's interior block where it lives, the rows' products, transposes
-- and exchanges over host copies (global_rows, hview/hfor: on a device
-- the kernels run there over copies), every level's A, P and R made a
-- distributed matrix in the back end's memory; the cycle's SpMVs,
-- Chebyshev steps and level vectors are the device's. The coarsest level:
-- its right-hand side gathered through host memory (gather()) and copied
-- over, the Cholesky factor in the back end's memory (sparse.cholesky's
-- level-set schedule on a device, as block Jacobi's local factor). On
-- host ranks todev/tohost/hfor are the identity and plain launches, so
-- the same code runs (SPECK_DIST_STAGE=1: tests/dist/distdev_test.lua).
local speck = require "speck"
local sparse = require "speck.sparse"
local blas = require "speck.blas"
local remote = require "speck.remote"
local text = require "speck.ktext"

local DAMPING = 4 / 3    -- MueLu's prolongator damping, over lambda_max(D^-1 A)
local DIRECT_MAX = 5000  -- the largest coarsest level solved directly
local KEYS = {"coarse_size", "degree", "max_levels"}

return function(dist)
  local I = dist._internal
  local c = I.c
  local me, np = remote.rank(), remote.size()
  local _, fail, call = require("speck.raise")("speck.dist.")
  local made = 0   -- AMGs made so far: the same count on every rank (a collective call)

  local AMG = {}
  AMG.__index = AMG
  local AMGT = {__index = AMG, __name = "speck.dist.AMG"}
  dist._is_precond = function(p) return getmetatable(p) == AMGT end

  local function view(name, dt, n) return speck.View(name, dt, n) end
  -- the set-up's kernels over host views (dist's hfor: on a device, over copies)
  local hview, hfor = I.hview, I.hfor
  local function reduce(name, n, caps, op)
    return I.hreduce(name, n, caps, text(name), {op = op, dtype = "int64"})
  end

  -- this rank's rows of the smoothed prolongator, global columns:
  -- P_t - w D^-1 (A P_t), as one CRS (duplicates summed)
  local function smoothed(Pt, APt, dinv, w, ncoarse)
    local Tg, Ag = I.global_rows(Pt), I.global_rows(APt)
    local nloc = Pt.map.nloc
    local n1, n2 = Tg.colidx:extent(0), Ag.colidx:extent(0)
    local R, C, V = hview("r", "int64", n1 + n2), hview("c", "int64", n1 + n2), hview("v", "float64", n1 + n2)
    hfor("dist_amg_coo", nloc,
      {rp = Tg.rowptr, ci = Tg.colidx, va = Tg.values, R = R, C = C, V = V, o = 0}, text("dist_amg_coo"))
    hfor("dist_amg_coo_scaled", nloc,
      {rp = Ag.rowptr, ci = Ag.colidx, va = Ag.values, d = I.tohost(dinv), w = -w, R = R, C = C, V = V,
       o = n1}, text("dist_amg_coo_scaled"))
    return I.coo(nloc, ncoarse, R, C, V)
  end

  -- R = P^T: this rank's rows of P transposed (their coarse columns lie
  -- in [lo, hi], its own aggregates and its neighbours'), each coarse
  -- row's entries sent to the rank owning it
  local function transpose(f, P, cmap)
    local Pg = I.global_rows(P)
    local nloc, m = P.map.nloc, Pg.colidx:extent(0)
    local lo, hi = 0, -1
    if m > 0 then
      lo = reduce("dist_amg_colmin", m, {ci = Pg.colidx}, "min")
      hi = reduce("dist_amg_colmax", m, {ci = Pg.colidx}, "max")
    end
    local span = hi - lo + 1
    local sc = hview("shifted columns", "int32", m)
    if m > 0 then
      hfor("dist_amg_shift", m, {sc = sc, ci = Pg.colidx, lo = lo}, text("dist_amg_shift"))
    end
    -- the local transpose where the back end runs (the library's), read back on the host
    local T = I.crs_host(sparse.CrsMatrix{nrows = nloc, ncols = math.max(span, 1),
                                          rowptr = I.todev(Pg.rowptr), colidx = I.todev(sc),
                                          values = I.todev(Pg.values)}:transpose())
    local R, C, V = hview("r", "int64", m), hview("c", "int64", m), hview("v", "float64", m)
    if span > 0 then
      hfor("dist_amg_tcoo", span,
        {rp = T.rowptr, ci = T.colidx, va = T.values, gid = P.map:local_ids(), lo = lo, R = R, C = C, V = V},
        text("dist_amg_tcoo"))
    end
    -- the entries for rank r: the transposed rows in r's coarse range
    local cnt = {}
    for r = 1, np do
      local a = math.max(cmap.off[r], lo) - lo
      local b = math.min(cmap.off[r + 1], hi + 1) - lo
      cnt[r] = b > a and T.rowptr(b) - T.rowptr(a) or 0
    end
    local rr, rc, rv = c.alltoallv(R, cnt), c.alltoallv(C, cnt), c.alltoallv(V, cnt)
    local k = rr:extent(0)
    local lr = hview("local rows", "int64", k)
    if k > 0 then
      hfor("dist_amg_local_rows", k, {lr = lr, rr = rr, b = cmap.b}, text("dist_amg_local_rows"))
    end
    local Rl = I.coo(cmap.nloc, P.nrows, lr, rc, rv)
    return I.build(f, cmap, P.nrows, Rl, P.map)
  end

  -- the coarsest matrix, whole, on every rank: its sparse Cholesky factor
  local function coarse_factor(f, A)
    local Ag = I.global_rows(A)
    local m = Ag.colidx:extent(0)
    local R, C, V = hview("r", "int64", m), hview("c", "int64", m), hview("v", "float64", m)
    hfor("dist_amg_coo_gid", A.map.nloc,
      {rp = Ag.rowptr, ci = Ag.colidx, va = Ag.values, gid = A.map:local_ids(), R = R, C = C, V = V},
      text("dist_amg_coo_gid"))
    local cnt, rep = {}, {}
    for r = 1, np do cnt[r] = m end
    for _, p in ipairs{{R, "int64"}, {C, "int64"}, {V, "float64"}} do
      local out = hview("repeated", p[2], m * np)
      if m > 0 then
        hfor("dist_amg_repeat", m * np, {out = out, v = p[1], m = m}, text("dist_amg_repeat"))
      end
      rep[#rep + 1] = c.alltoallv(out, cnt)
    end
    -- in the back end's memory: on a device the factor and its solves run there
    local full = I.coo(A.nrows, A.nrows, rep[1], rep[2], rep[3])
    local ok, F = pcall(sparse.cholesky, full)
    return ok and F or nil, not ok and tostring(F):gsub("^.-speck%.sparse%.cholesky: ", "") or nil
  end

  local function check_int(f, what, v, min)
    if math.type(v) ~= "integer" or v < min then
      fail(f, "%s must be an integer >= %d, got %s", what, min, tostring(v))
    end
  end

  -- M = dist.amg(A [, {coarse_size = 500, max_levels = 10, degree = 3}])
  function dist.amg(A, opts)
    local f = "amg"
    local o
    I.agree_checked(f, function()
      o = I.check_opts(f, opts, KEYS)
      if not I.is_dm(A) then fail(f, "A must be a distributed matrix, got %s", type(A)) end
      if A.nrows ~= A.ncols then fail(f, "A must be square, it is %dx%d", A.nrows, A.ncols) end
      check_int(f, "coarse_size", o.coarse_size or 500, 1)
      check_int(f, "max_levels", o.max_levels or 10, 1)
      check_int(f, "degree", o.degree or 3, 1)
    end, function()
      return {A.id, o.coarse_size or 500, o.max_levels or 10, o.degree or 3}
    end, {"A", "coarse_size", "max_levels", "degree"})
    local coarse_size, max_levels, degree = o.coarse_size or 500, o.max_levels or 10, o.degree or 3
    local t0 = c.wtime()
    local levels, Al = {}, A
    local B = view("near-null space", "float64", A.map.nloc)
    speck.deep_copy(B, 1.0)
    while true do
      local L = {A = Al, n = Al.nrows}
      levels[#levels + 1] = L
      if L.n <= coarse_size or #levels == max_levels then break end
      -- this rank's aggregates, on its diagonal block's graph
      local G = {G_rowptr = Al.interior.rowptr, G_colidx = Al.interior.colidx}
      local _, mo = call(f, "graph.mis2", G)
      local _, co = call(f, "graph.coarsen_mis2", {G_rowptr = G.G_rowptr, G_colidx = G.G_colidx,
                                                   members = mo.members})
      local _, di = call(f, "solve.amg_drop_isolated", {G_rowptr = G.G_rowptr, G_colidx = G.G_colidx,
                                                        labels = co.labels,
                                                        nagg = math.tointeger(co.ncoarse)})
      local labels, nagg = di.labels or co.labels, math.tointeger(di.nagg)
      local counts = c.allgather(nagg)
      local off, total, fewest = {0}, 0, math.huge
      for r = 1, np do
        total = total + counts[r]
        off[r + 1] = total
        fewest = math.min(fewest, counts[r])
      end
      -- no coarsening, or a rank without an aggregate: this level is the coarsest
      if fewest == 0 or total >= L.n then break end
      local smooth, lmax = I.chebyshev(f, Al, degree)
      L.smooth = smooth
      local _, t = call(f, "solve.amg_tentative", {labels = labels, nagg = nagg, b = B, k = 1})
      local gc = view("P colidx", "int32", t.P_colidx:extent(0))
      if gc:extent(0) > 0 then
        speck.parallel_for("dist_amg_globalize", gc:extent(0), {gc = gc, pc = t.P_colidx, off = off[me + 1]},
          text("dist_amg_globalize"))
      end
      local cmap = I.map_from_offsets(total, off)
      local Pt = I.build(f, Al.map, total,
        sparse.CrsMatrix{nrows = Al.map.nloc, ncols = total, rowptr = t.P_rowptr, colidx = gc,
                         values = t.P_values}, cmap)
      local w = lmax > 0 and DAMPING / (lmax / 1.1) or 0
      local APt = dist.spgemm(Al, Pt)
      L.P = I.build(f, Al.map, total, smoothed(Pt, APt, Al._jacobi.v, w, total), cmap)
      L.R = transpose(f, L.P, cmap)
      Al = dist.spgemm(L.R, dist.spgemm(Al, L.P))
      B = t.bc
    end
    local last = levels[#levels]
    if last.n <= DIRECT_MAX then
      local F, why = coarse_factor(f, last.A)
      if not F then
        fail(f, "the coarsest matrix (%d rows) has no Cholesky factor: %s", last.n, why)
      end
      last.F = F
      last.gid = I.todev(last.A.map:local_ids())
    else
      -- a coarsening that stalled: a Chebyshev polynomial of twice the degree
      last.smooth = I.chebyshev(f, last.A, 2 * degree)
    end
    -- the cycle's vectors
    for _, L in ipairs(levels) do
      local map = L.A.map
      L.x, L.b, L.r, L.t = I.new_vec(map), I.new_vec(map), I.new_vec(map), I.new_vec(map)
    end
    made = made + 1
    return setmetatable({A = A, levels = levels, id = made, setup_seconds = c.wtime() - t0}, AMGT)
  end

  -- x = the V-cycle applied to b on level l (x's initial value ignored)
  local function cycle(levels, l, b, x)
    local L = levels[l]
    if L.F then
      local y = L.F:solve(I.todev(b:gather()))   -- gather(): a host view
      speck.parallel_for("dist_amg_slice", L.A.map.nloc, {x = x.v, full = y, gid = L.gid},
                         text("dist_amg_slice"))
      return
    end
    if not L.P then  -- the coarsest level by a polynomial
      L.smooth(b, x)
      return
    end
    local C = levels[l + 1]
    L.smooth(b, x)                              -- x = S b
    speck.deep_copy(L.r.v, b.v)
    I.spmv(-1.0, L.A, x, 1.0, L.r)              -- r = b - A x
    I.spmv(1.0, L.R, L.r, 0.0, C.b)             -- b_c = R r
    cycle(levels, l + 1, C.b, C.x)
    I.spmv(1.0, L.P, C.x, 1.0, x)               -- x += P x_c
    speck.deep_copy(L.r.v, b.v)
    I.spmv(-1.0, L.A, x, 1.0, L.r)
    L.smooth(L.r, L.t)                          -- x += S (b - A x)
    blas.axpy(1.0, L.t.v, x.v)
  end

  -- the preconditioner as dist's solvers call it: M(r, z), z = cycle(r)
  function AMG:applier()
    local levels = self.levels
    return function(r, z) cycle(levels, 1, r, z) end
  end

  -- called by dist's solvers while checking their arguments
  function AMG:check_for(f, A)
    if A ~= self.A then
      error(("speck.dist.%s: precond is a dist.amg of another matrix (%d rows), A has %d rows"):format(
        f, self.A.nrows, A.nrows), 0)
    end
  end

  -- M:info(): levels ({rows, nnz} each, finest first), operator complexity
  -- (all levels' entries over the finest's), setup seconds, the coarsest
  -- solve ("cholesky" or "chebyshev")
  function AMG:info()
    local lv, tot = {}, 0
    for i, L in ipairs(self.levels) do
      local nnz = L.A:nnz()
      lv[i] = {rows = L.n, nnz = nnz}
      tot = tot + nnz
    end
    return {levels = lv, operator_complexity = lv[1].nnz > 0 and tot / lv[1].nnz or 1,
            setup_seconds = self.setup_seconds,
            coarse_solve = self.levels[#self.levels].F and "cholesky" or "chebyshev"}
  end

  AMGT.__tostring = function(self)
    return ("speck.dist.amg(%d rows, %d levels)"):format(self.A.nrows, #self.levels)
  end
end
