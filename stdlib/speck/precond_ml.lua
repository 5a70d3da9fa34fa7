-- speck/precond_ml.lua: the polynomial, incomplete-factorization and
-- multigrid preconditioners of speck.solve (speck.solve re-exports them):
-- chebyshev, ic0, ilu and amg (smoothed aggregation, MueLu's algorithm),
-- each a preconditioner object over the library's kernels
-- (kernels/solve/: cheby.c, ilu.c, amg.c; sparse's SpMV, SpGEMM and
-- SpTRSV; graph's MIS-2 coarsening), set up and applied where A lives.
--
-- A preconditioner P: P:apply(r, z) writes z = M^-1 r into z (no
-- allocation), P(r) returns a new z, P.n (rows), P.space, P:info(),
-- P:update(A) recomputes the numeric phase for A's new values (the same
-- pattern). r and z are float64 rank-1 views of P.n entries in P.space.
local speck = require "speck"
local sparse = require "speck.sparse"
local blas = require "speck.blas"
local core = require "speck.core"

local M = {}

local user_level, fail, call = require("speck.raise")("speck.solve.")
local check_options = require "speck.opts"
local function check_opts(fname, opts, keys)
  local o = check_options("speck.solve." .. fname, opts, keys, user_level())
  return o   -- not a tail call: the levels count this frame
end
local margs, make = sparse._margs, sparse._make

-- the safety factor on the power iteration's lambda_max (Ifpack2's boost)
local BOOST = 1.1

-- -- arguments ------------------------------------------------------------------
local function check_A(f, A)
  if not sparse.is_matrix(A) then
    fail(f, "A must be a CrsMatrix, got %s", type(A) == "userdata" and "a view" or type(A))
  end
  if A:nrows() ~= A:ncols() then fail(f, "A must be square, it is %s", A:shape()) end
  if A:dtype() ~= "float64" then fail(f, "A must have float64 values, got %s", A:dtype()) end
end

local function check_int(f, what, x, lo)
  if math.type(x) ~= "integer" then
    fail(f, "%s must be an integer, got %s", what, tostring(x))
  end
  if x < lo then fail(f, "%s must be >= %d, got %d", what, lo, x) end
end

local function check_num(f, what, x)
  if type(x) ~= "number" or x ~= x or x <= 0 or x == math.huge then
    fail(f, "%s must be a positive number, got %s", what, tostring(x))
  end
end

-- sum of |a_ij - a_ji| <= 1e-10 sum of |a_ij|, over A's entries (one pass)
-- P = (I - omega D^-1 A) P_t. On the host with one near-null vector (P_t
-- one entry a row: row i -> its aggregate) by solve.amg_smooth's two
-- passes over A (a dense marker a thread), the same values bit for bit;
-- else, or where it declines (a zero diagonal; off the host),
-- sparse.spgemm_jacobi. (The bodies are dialect text and compile for a
-- GPU; a device keeps the general product: its marker would not fit a
-- team's scratch.)
local function smooth(f, omega, A, Pt, k)
  if k == 1 and A:space() == "host" then
    local _, o = call(f, "solve.amg_smooth", margs(margs({omega = omega}, "A", A), "P", Pt))
    if not o.general then
      return make(A:nrows(), Pt:ncols(), o.C_rowptr, o.C_colidx, o.C_values, true)
    end
  end
  return sparse.spgemm_jacobi(omega, A, Pt)
end

-- A_c = R (A P) (R = P^T). On the host by solve.amg_rap: each product in
-- one pass into an arena reserved by a bound (no symbolic phases; A P
-- never compacted nor sorted), the same values bit for bit; else, or
-- where it declines, sparse.spgemm's symbolic and numeric phases (their
-- handles kept in L for P:update, which reuses them)
local function galerkin(f, L, A)
  if A:space() == "host" then
    local _, o = call(f, "solve.amg_rap", margs(margs(margs({}, "A", A), "P", L.P), "R", L.R))
    if not o.general then
      return make(L.R:nrows(), L.P:ncols(), o.C_rowptr, o.C_colidx, o.C_values, true)
    end
  end
  if not L.hAP then
    L.hAP = sparse.spgemm_symbolic(A, L.P)
    L.AP = sparse.spgemm_numeric(L.hAP, A, L.P)
    L.hRAP = sparse.spgemm_symbolic(L.R, L.AP)
    L.Ac = sparse.spgemm_numeric(L.hRAP, L.R, L.AP)
    return L.Ac
  end
  sparse.spgemm_numeric(L.hAP, A, L.P, L.AP)
  return sparse.spgemm_numeric(L.hRAP, L.R, L.AP, L.Ac)
end

-- (uses: the SpMVs the caller will make with A: sparse's memos of A, by
-- whose diagonal form the check runs, are made now where they pay)
local function symmetric(f, A, uses)
  local _, o = call(f, "solve.amg_symmetry", margs({sorted = A:is_sorted() and 1 or 0,
                                                   uses = uses or 1}, "A", A))
  return o.diff <= 1e-10 * o.total, o.total > 0 and o.diff / o.total or 0
end

local function vec(label, n, space)
  return speck.View(label, "float64", n, {space = space})
end

-- -- the preconditioner object ----------------------------------------------------
local PC = {}
local MT = {__index = PC, __name = "speck.solve.Preconditioner"}
MT.__tostring = function(P) return ("Preconditioner<%s, n %d, %s>"):format(P.kind, P.n, P.space) end

local function check_vec(P, f, what, v)
  if type(v) ~= "userdata" or not pcall(v.extent, v, 0) then
    fail(f, "%s must be a rank-1 view, got %s", what, type(v))
  end
  if v:rank() ~= 1 or v:extent(0) ~= P.n then
    fail(f, "%s has %s entries, the preconditioner is for %d rows", what,
         v:rank() == 1 and tostring(v:extent(0)) or ("a rank-" .. v:rank() .. " view of"), P.n)
  end
  if v:dtype() ~= "float64" then fail(f, "%s must be float64, got %s", what, v:dtype()) end
  if v:space() ~= P.space then
    fail(f, "%s is in space '%s', the preconditioner in '%s'", what, v:space(), P.space)
  end
end

function PC:apply(r, z)
  local f = self.kind .. ":apply"
  check_vec(self, f, "r", r)
  check_vec(self, f, "z", z)
  if r:data() == z:data() then fail(f, "r and z share memory: z must be another view") end
  self._apply(r, z)
  return z
end

MT.__call = function(P, r)
  check_vec(P, P.kind, "r", r)
  local z = vec("z", P.n, P.space)
  P._apply(r, z)
  return z
end

function PC:info() return self._info() end

function PC:update(A)
  local f = self.kind .. ":update"
  check_A(f, A)
  if A:nrows() ~= self.n then
    fail(f, "A has %d rows, the preconditioner is for %d rows", A:nrows(), self.n)
  end
  if A:space() ~= self.space then
    fail(f, "A is in space '%s', the preconditioner in '%s'", A:space(), self.space)
  end
  if A:nnz() ~= self._nnz then
    fail(f, "A has %d entries, the preconditioner was set up for %d (the same pattern is needed)",
         A:nnz(), self._nnz)
  end
  self._update(A)
  return self
end

local function new(kind, A)
  return setmetatable({kind = kind, n = A:nrows(), space = A:space(), _nnz = A:nnz()}, MT)
end

-- -- Chebyshev ---------------------------------------------------------------------
-- the smoother's state on one matrix: D^-1, the bounds, two work vectors
local function cheby_state(f, A, o)
  local _, outs = call(f, "solve.cheby_setup", margs({iters = o.eig_iters}, "A", A))
  local est = outs.lambda_max
  local lmax = o.lambda_max or est * BOOST
  if not (lmax > 0) then lmax = 1 end   -- a zero matrix's D^-1 A: any interval
  local s = {A = A, dinv = outs.dinv, estimate = est, lmax = lmax, lmin = lmax / o.eig_ratio,
             degree = o.degree}
  s.d = s.d or vec("chebyshev d", A:nrows(), A:space())
  s.w = vec("chebyshev w", A:nrows(), A:space())
  return s
end

local function cheby_apply(f, s, r, z)
  call(f, "solve.cheby_apply", margs({dinv = s.dinv, r = r, z = z, d = s.d, w = s.w,
                                      lmax = s.lmax, lmin = s.lmin, degree = s.degree}, "A", s.A))
end

local CHEBY_KEYS = {"degree", "eig_iters", "eig_ratio", "lambda_max"}
local function cheby_opts(f, opts)
  local o = {degree = opts.degree or 3, eig_ratio = opts.eig_ratio or 30,
             eig_iters = opts.eig_iters or 10, lambda_max = opts.lambda_max}
  check_int(f, "degree", o.degree, 1)
  check_int(f, "eig_iters", o.eig_iters, 1)
  check_num(f, "eig_ratio", o.eig_ratio)
  if o.eig_ratio <= 1 then fail(f, "eig_ratio must be > 1, got %s", tostring(o.eig_ratio)) end
  if o.lambda_max ~= nil then check_num(f, "lambda_max", o.lambda_max) end
  return o
end

-- chebyshev(A [, {degree = 3, eig_ratio = 30, eig_iters = 10, lambda_max =}]):
-- the Chebyshev polynomial in D^-1 A of 'degree' that is smallest on
-- [lambda_max / eig_ratio, lambda_max]; lambda_max estimated by eig_iters
-- power steps (the Rayleigh quotient x'Ax / x'Dx) times 1.1 unless given
function M.chebyshev(A, opts)
  local f = "chebyshev"
  check_A(f, A)
  local o = cheby_opts(f, check_opts(f, opts, CHEBY_KEYS))
  local P = new(f, A)
  local s = cheby_state(f, A, o)
  P._apply = function(r, z) cheby_apply(f, s, r, z) end
  P._update = function(B) s = cheby_state(f, B, o) end
  P._info = function()
    return {kind = f, degree = s.degree, lambda_max = s.lmax, lambda_min = s.lmin,
            lambda_estimate = s.estimate}
  end
  return P
end

-- -- incomplete factorizations ---------------------------------------------------------
local function ilu_make(f, A, k, ic, shift)
  local n, space = A:nrows(), A:space()
  local _, s = call(f, "solve.ilu_symbolic", margs({k = k}, "A", A))
  local _, p = call(f, "solve.ilu_pattern", {F_rowptr = s.F_rowptr, F_colidx = s.F_colidx,
                                             diag = s.diag})
  local F = {rowptr = s.F_rowptr, colidx = s.F_colidx, diag = s.diag, rows = s.rows, lp = s.lp,
             nlevels = math.tointeger(s.nlevels),
             values = vec("F values", s.F_colidx:extent(0), space)}
  local L = make(n, n, p.L_rowptr, p.L_colidx, vec("L values", p.L_colidx:extent(0), space), true)
  local U = make(n, n, p.U_rowptr, p.U_colidx, vec("U values", p.U_colidx:extent(0), space), true)
  local function numeric(B)
    call(f, "solve.ilu_numeric", margs({F_rowptr = F.rowptr, F_colidx = F.colidx,
                                        F_values = F.values, diag = F.diag, rows = F.rows,
                                        lp = F.lp, L_rowptr = L.rowptr, L_values = L.values,
                                        U_rowptr = U.rowptr, U_values = U.values,
                                        shift = shift, ic = ic and 1 or 0}, "A", B))
  end
  numeric(A)
  local hL = sparse.sptrsv_symbolic(L, {uplo = "L", diag = "U"})
  local hU = sparse.sptrsv_symbolic(U, {uplo = "U"})
  local y = vec("ilu y", n, space)
  local P = new(f, A)
  P._apply = function(r, z)
    sparse.sptrsv_solve(hL, L, r, y)
    sparse.sptrsv_solve(hU, U, y, z)
  end
  P._update = numeric
  P._info = function()
    return {kind = f, k = k, shift = shift, nnz = L:nnz() + U:nnz() + n, nnz_A = A:nnz(),
            levels = F.nlevels}
  end
  -- the factors: L (unit lower, its diagonal not stored) and U
  P.factors = function() return L, U end
  return P
end

-- ic0(A [, {shift = 0}]): IC(0) of a symmetric A, in the form L D L^T
-- (applied as L y = r, U z = y with U = D L^T); a non-positive pivot is an
-- error naming its row; shift = alpha factors A + alpha*diag(A)
function M.ic0(A, opts)
  local f = "ic0"
  check_A(f, A)
  opts = check_opts(f, opts, {"shift"})
  local shift = opts.shift or 0
  if type(shift) ~= "number" or shift ~= shift or shift < 0 then
    fail(f, "shift must be a number >= 0, got %s", tostring(shift))
  end
  local sym, rel = symmetric(f, A)
  if not sym then
    fail(f, "A is not symmetric (sum of |a_ij - a_ji| / sum of |a_ij| = %.3g): IC(0) needs a symmetric matrix (ilu takes any)", rel)
  end
  return ilu_make(f, A, 0, true, shift)
end

-- ilu(A [, {k = 0}]): ILU(k) by levels of fill (k = 0: A's pattern)
function M.ilu(A, opts)
  local f = "ilu"
  check_A(f, A)
  opts = check_opts(f, opts, {"k"})
  local k = opts.k or 0
  if math.type(k) ~= "integer" then fail(f, "k must be an integer, got %s", tostring(k)) end
  return ilu_make(f, A, k, false, 0)
end

-- -- smoothed aggregation AMG ------------------------------------------------------------
local DAMPING = 4 / 3   -- MueLu's prolongator damping, over lambda_max(D^-1 A)
local DENSE_MAX = 3000  -- the largest coarsest level solved by its dense inverse

-- t = b - A x: solve.amg_resid (by diagonals in one pass where A has the
-- form; else a copy of b and sparse.spmv's -1 A x + t: the same values)
local function resid(A, b, x, t)
  call("amg", "solve.amg_resid", margs({b = b, x = x, t = t}, "A", A))
end


-- the coarsest level's inverse, where the levels live: its dense form
-- factored by blas.potrf (Cholesky), then two blas.trsm on the identity
-- (L^-T L^-1); a cycle applies it with blas.gemv
local function coarse_inverse(f, L)
  local m, space = L.A:nrows(), L.A:space()
  local D = L.A:to_dense()
  local ok, e = pcall(blas.potrf, "L", D)
  if not ok then
    fail(f, "the coarsest matrix (%d rows) is not positive definite: %s", m,
         (tostring(e):gsub("^[^\n]-:%d+: ", "", 1)))
  end
  local ids, ones = {}, {}
  for i = 1, m do ids[i], ones[i] = i - 1, 1.0 end
  local I = sparse.from_coo(m, m, ids, ids, ones, {space = space}):to_dense()
  blas.trsm("L", "L", "N", "N", 1.0, D, I)
  blas.trsm("L", "L", "T", "N", 1.0, D, I)
  L.inv = I
end

local AMG_KEYS = {"block_size", "coarse_size", "cycle", "degree", "drop_tol", "eig_iters",
                  "eig_ratio", "max_levels", "nullspace", "smoother"}

-- The AMG setup's blocks on 4 KiB pages (core.host_small_pages, until the
-- value returned goes out of scope, error or not): its products are
-- written once and read by a few cycles, and on a VM the first touch of a
-- huge page costs more than it saves them (docs/bench-solvers.md)
local SMALL = {__close = function() core.host_small_pages(-1) end}
local function small_pages()
  core.host_small_pages(1)
  return setmetatable({}, SMALL)
end

-- amg(A [, {nullspace = V, smoother = "chebyshev" | "gs", cycle = "V" | "W",
--          coarse_size = 500, max_levels = 10, degree = 2 | 3,
--          eig_ratio = 12 | 20, drop_tol = 0, block_size = 1}]): the
-- Chebyshev smoother's degree and eig_ratio default to 2 and 12 on the
-- finest level, 3 and 20 below (given, they hold on every level);
-- drop_tol > 0 aggregates on the
-- graph of the entries with |a_ij| > drop_tol sqrt(|a_ii a_jj|);
-- block_size b > 1 (b unknowns a node, numbered node by node) aggregates
-- the nodes (the graph amalgamated) and defaults the near-null space to b
-- constant vectors, one a component
function M.amg(A, opts)
  local f = "amg"
  local pages <close> = small_pages()
  check_A(f, A)
  local user_opts = opts
  opts = check_opts(f, opts, AMG_KEYS)
  local n, space = A:nrows(), A:space()
  local smoother, cyc = opts.smoother or "chebyshev", opts.cycle or "V"
  if smoother ~= "chebyshev" and smoother ~= "gs" then
    fail(f, "smoother must be \"chebyshev\" or \"gs\", got %s", tostring(smoother))
  end
  if cyc ~= "V" and cyc ~= "W" then fail(f, "cycle must be \"V\" or \"W\", got %s", tostring(cyc)) end
  local co = cheby_opts(f, {degree = opts.degree or 3, eig_ratio = opts.eig_ratio or 20,
                            eig_iters = opts.eig_iters})
  -- the finest level's Chebyshev, unless degree / eig_ratio are given:
  -- degree 2 on [lambda_max/12, lambda_max] (its SpMVs are the cycle's
  -- dearest; the same iterations as degree 3 on the benchmark's matrices,
  -- docs/bench-solvers.md); the levels below: degree 3, eig_ratio 20
  local co1 = cheby_opts(f, {degree = opts.degree or 2, eig_ratio = opts.eig_ratio or 12,
                             eig_iters = opts.eig_iters})
  local function level_co(l) return l == 1 and co1 or co end
  local coarse_size, max_levels = opts.coarse_size or 500, opts.max_levels or 10
  check_int(f, "coarse_size", coarse_size, 1)
  check_int(f, "max_levels", max_levels, 1)
  local drop_tol = opts.drop_tol or 0
  if type(drop_tol) ~= "number" or not (drop_tol >= 0) or drop_tol == math.huge then
    fail(f, "drop_tol must be a number >= 0, got %s", tostring(drop_tol))
  end
  local bs = opts.block_size or 1
  if math.type(bs) ~= "integer" or bs < 1 or bs > 16 then
    fail(f, "block_size must be an integer from 1 to 16, got %s", tostring(bs))
  end
  if n % bs ~= 0 then fail(f, "block_size %d does not divide A's %d rows", bs, n) end
  if bs > 1 and not A:is_sorted() then
    fail(f, "block_size needs A's rows sorted without duplicates (sparse.from_coo sorts them)")
  end
  local gs
  if smoother == "gs" then
    local ok, solve = pcall(require, "speck.solve")
    gs = ok and type(solve) == "table" and solve.gauss_seidel
    if not gs then
      fail(f, "smoother \"gs\" needs speck.solve.gauss_seidel, which this build does not have")
    end
  end
  -- the finest level without A's stored zeros (the same operator, fewer
  -- entries to check, smooth and multiply; a Dirichlet row's zeros leave
  -- it isolated, so that it gets no aggregate below)
  local function compact(B)
    local _, c = call(f, "solve.amg_compact", margs({}, "A", B))
    if c.zeros == 0 then return B, false end
    return make(n, n, c.B_rowptr, c.B_colidx, c.B_values, B:is_sorted()), true
  end
  local A1, compacted = compact(A)
  -- (the stored zeros add nothing to either sum)
  local sym, rel = symmetric(f, A1, co1.eig_iters)
  if not sym then
    fail(f, "A is not symmetric (sum of |a_ij - a_ji| / sum of |a_ij| = %.3g): smoothed aggregation needs a symmetric matrix", rel)
  end
  -- the near-null space, flat (row-major n x k)
  local B, k
  local V = opts.nullspace
  if V == nil then
    B, k = vec("near-null space", n * bs, space), bs
    if bs == 1 then
      speck.deep_copy(B, 1.0)
    else
      call(f, "solve.amg_block_nullspace", {b = B, nb = bs})
    end
  else
    if type(V) ~= "userdata" or not pcall(V.rank, V) then
      fail(f, "nullspace must be a rank-2 view (n x k), got %s", type(V))
    end
    if V:rank() ~= 2 and V:rank() ~= 1 then fail(f, "nullspace must be a rank-2 view (n x k), got rank %d", V:rank()) end
    if V:extent(0) ~= n then fail(f, "nullspace has %d rows, A has %d", V:extent(0), n) end
    if V:dtype() ~= "float64" then fail(f, "nullspace must be float64, got %s", V:dtype()) end
    if V:space() ~= space then fail(f, "nullspace is in space '%s', A in '%s'", V:space(), space) end
    if V:rank() == 1 then
      B, k = V, 1
    else
      k = V:extent(1)
      if k < 1 then fail(f, "nullspace has no columns") end
      local _, outs = call(f, "solve.amg_nullspace", {V = V})
      B = outs.b
    end
  end
  -- the levels
  local levels = {}
  local Al = A1
  while true do
    local L = {A = Al, n = Al:nrows()}
    levels[#levels + 1] = L
    L.cheby = cheby_state(f, Al, level_co(#levels))
    if L.n <= coarse_size or #levels == max_levels then break end
    -- (A's pattern weighted by its values: on the host MIS-2 and the
    -- coarsening then scan a stencil's neighbours by its diagonal form,
    -- kept since the Chebyshev bounds: the same neighbours, the same set)
    local G = {G_rowptr = Al.rowptr, G_colidx = Al.colidx, G_weights = Al.values}
    if drop_tol > 0 then
      local _, g = call(f, "solve.amg_filter", margs({dinv = L.cheby.dinv, theta = drop_tol}, "A", Al))
      G = {G_rowptr = g.G_rowptr, G_colidx = g.G_colidx}
    end
    -- unknowns a node: block_size on the first level, the near-null
    -- space's dimension below (an aggregate's k coarse unknowns)
    local nb = #levels == 1 and bs or (k <= 16 and k or 1)
    if nb > 1 then
      local _, g = call(f, "solve.amg_amalgamate", {G_rowptr = G.G_rowptr, G_colidx = G.G_colidx,
                                                    nb = nb})
      G = {G_rowptr = g.N_rowptr, G_colidx = g.N_colidx}
    end
    local _, mo = call(f, "graph.mis2", G)
    local _, co2 = call(f, "graph.coarsen_mis2", {G_rowptr = G.G_rowptr, G_colidx = G.G_colidx,
                                                  G_weights = G.G_weights, members = mo.members})
    -- aggregates of isolated nodes only (Dirichlet rows) left out: their
    -- rows of P are zero, the smoother alone treats them (MueLu's rule)
    local _, di = call(f, "solve.amg_drop_isolated", {G_rowptr = G.G_rowptr, G_colidx = G.G_colidx,
                                                      labels = co2.labels,
                                                      nagg = math.tointeger(co2.ncoarse)})
    if di.labels then co2.labels = di.labels end
    co2.ncoarse = di.nagg
    if nb > 1 then
      local _, e = call(f, "solve.amg_expand", {nlab = co2.labels, nb = nb})
      co2.labels = e.labels
    end
    local nagg = math.tointeger(co2.ncoarse)
    -- no coarsening (or nothing to coarsen): this level is the coarsest
    if nagg == 0 or nagg * k >= L.n then break end
    local _, t = call(f, "solve.amg_tentative", {labels = co2.labels, nagg = nagg, b = B, k = k})
    L.Pt = make(L.n, nagg * k, t.P_rowptr, t.P_colidx, t.P_values, true)
    L.omega = L.cheby.estimate > 0 and DAMPING / L.cheby.estimate or 0
    L.P = smooth(f, L.omega, Al, L.Pt, k)
    L.R = L.P:transpose()
    Al = galerkin(f, L, Al)
    B = t.bc
  end
  local last = levels[#levels]
  last.coarse = true
  -- the coarsest solve: the dense inverse, or (a coarsening that stalled
  -- above DENSE_MAX rows) a Chebyshev polynomial of twice the degree
  local dense = last.n <= math.max(DENSE_MAX, coarse_size)
  local cco = {degree = 2 * co.degree, eig_ratio = co.eig_ratio, eig_iters = co.eig_iters}
  local function coarse_setup(L)
    if L.n == 0 then return end
    if dense then
      L.cheby = nil
      coarse_inverse(f, L)
    else
      L.cheby = cheby_state(f, L.A, cco)
    end
  end
  coarse_setup(last)
  -- smoothers and vectors
  local function make_smoothers()
    for i = 1, #levels - 1 do
      local L = levels[i]
      if gs then
        -- symmetric (forward then backward) so that the cycle stays
        -- symmetric for CG; multicolor: the parallel (and GPU) form
        local S = gs(L.A, {symmetric = true, multicolor = true})
        L.smooth = function(b, x) S:apply(b, x) end
      else
        local s = L.cheby
        L.smooth = function(b, x) cheby_apply(f, s, b, x) end
      end
    end
  end
  make_smoothers()
  for i, L in ipairs(levels) do
    L.t = vec("amg t", L.n, space)
    L.e = vec("amg e", L.n, space)
    if i > 1 then L.b, L.x = vec("amg b", L.n, space), vec("amg x", L.n, space) end
    if cyc == "W" then L.r2, L.e2 = vec("amg r2", L.n, space), vec("amg e2", L.n, space) end
  end
  local W = cyc == "W"
  local function cycle(l, b, x)
    local L = levels[l]
    if L.coarse then
      if L.n == 0 then return end
      if dense then blas.gemv("N", 1.0, L.inv, b, 0.0, x) else cheby_apply(f, L.cheby, b, x) end
      return
    end
    local C = levels[l + 1]
    L.smooth(b, x)
    resid(L.A, b, x, L.t)
    sparse.spmv("N", 1.0, L.R, L.t, 0.0, C.b)
    cycle(l + 1, C.b, C.x)
    if W and not C.coarse then
      resid(C.A, C.b, C.x, C.r2)
      cycle(l + 1, C.r2, C.e2)
      blas.axpy(1.0, C.e2, C.x)
    end
    sparse.spmv("N", 1.0, L.P, C.x, 1.0, x)
    resid(L.A, b, x, L.t)
    L.smooth(L.t, L.e)
    blas.axpy(1.0, L.e, x)
  end
  local P = new(f, A)
  P._apply = function(r, z) cycle(1, r, z) end
  P._update = function(A2)
    local pages2 <close> = small_pages()
    local Al2 = A2
    if compacted then
      -- A2 without its zeros; a nonzero where A had a zero (or a new
      -- zero) changes the finest level's pattern: the whole setup again
      local B2 = compact(A2)
      local L1 = levels[1].A
      local _, d = call(f, "solve.amg_pattern_diff", {A_rowptr = L1.rowptr, A_colidx = L1.colidx,
                                                      B_rowptr = B2.rowptr, B_colidx = B2.colidx})
      if d.rows > 0 then
        local Q = M.amg(A2, user_opts)
        P._apply, P._update, P._info = Q._apply, Q._update, Q._info
        return
      end
      Al2 = B2
    end
    for i, L in ipairs(levels) do
      L.A = Al2
      if L.coarse then
        coarse_setup(L)
        break
      end
      L.cheby = cheby_state(f, Al2, level_co(i))
      L.omega = L.cheby.estimate > 0 and DAMPING / L.cheby.estimate or 0
      L.P = smooth(f, L.omega, Al2, L.Pt, k)
      L.R = L.P:transpose()
      Al2 = galerkin(f, L, Al2)
    end
    make_smoothers()
  end
  P._info = function()
    local lv, tot = {}, 0
    for i, L in ipairs(levels) do
      lv[i] = {rows = L.n, nnz = L.A:nnz()}
      if not L.coarse and not gs then
        lv[i].degree, lv[i].eig_ratio = L.cheby.degree, level_co(i).eig_ratio
      end
      tot = tot + L.A:nnz()
    end
    local nnz1 = levels[1].A:nnz()
    return {kind = f, levels = lv, operator_complexity = nnz1 > 0 and tot / nnz1 or 1,
            zeros_dropped = A:nnz() - nnz1,
            cycle = cyc, smoother = smoother, nullspace_dim = k, drop_tol = drop_tol,
            coarse_solve = dense and "dense" or "chebyshev", block_size = bs}
  end
  return P
end

return M
