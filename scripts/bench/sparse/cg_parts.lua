-- cg_parts.lua: where a GPU CG iteration's time goes on the 27-point
-- 128^3 matrix (issue 31): sparse.spmv and a sparse.cg iteration beside
-- the pieces an iteration is made of -- SpMV forms over the compact index
-- (int32 row pointers, int16 column offsets, built here as csr16.c does)
-- and the vector passes -- each the median of REPS timed calls. The
-- library's SpMV and CG take the matrix's diagonal form (kernels/sparse/
-- dia.c; the line says which ran); SPECK_SPARSE_NODIA=1 keeps them on the
-- coded CSR kernels (run both, beside cupy_peer.py parts m27).
-- Usage: SPECK_SPACE=cuda speck cg_parts.lua [REPS]
local sparse = require "speck.sparse"
local LIB = (arg[0]:match("^(.*)/") or ".") .. "/../lib/"
local csr = dofile(LIB .. "csr.lua")
local REPS = tonumber(arg[1]) or 15

local A = csr.m27(tonumber(os.getenv("CG_PARTS_G")) or 128, "26.0")
local n, nnz = A:nrows(), A:nnz()
local tm = speck.Timer()
local function time(f)
  f(); f(); speck.fence()
  local t = {}
  for r = 1, REPS do
    tm:reset(); f(); speck.fence(); t[r] = tm:seconds()
  end
  table.sort(t)
  return t[(REPS + 1) // 2]
end
local function show(what, t, bytes)
  print(("%-44s %9.1f us%s"):format(what, t * 1e6,
        bytes and ("  %6.0f GB/s"):format(bytes / t / 1e9) or ""))
  io.stdout:flush()
end
local function vec(name, init)
  local v = speck.View(name, "float64", n)
  speck.parallel_for("p.init", n, {v = v}, init or "v(i) = 1.0 + (double)(i % 1000003) * 1e-6;")
  return v
end

-- the compact index
local rp = speck.View("rp32", "int32", n + 1)
local off = speck.View("off", "int16", nnz)
speck.parallel_for("p.rp", n + 1, {rowptr = A.rowptr, rp = rp}, "rp(i) = (int32_t)rowptr(i);")
speck.parallel_for("p.off", n, {rowptr = A.rowptr, colidx = A.colidx, off = off}, [[
  for (int64_t k = rowptr(i); k < rowptr(i + 1); k++) off(k) = (int16_t)(colidx(k) - i);]])

local x, y, yref, p, r, w, s, xx = vec("x"), vec("y"), vec("yref"), vec("p"), vec("r"), vec("w"),
                                  vec("s"), vec("xx")
local mbytes = 10.0 * nnz + 4.0 * (n + 1) + 16.0 * n
-- launches of the diagonal form's kernels so far
local function dia_launches()
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label:match("^sparse%.spmv_dia") or k.label:match("^sparse%.cg_dia_dots") then
      s = s + (k.launches or 0)
    end
  end
  return s
end
local d0 = dia_launches()
local tsp = time(function() sparse.spmv("N", 1.0, A, x, 0.0, yref) end)
local form = dia_launches() > d0 and "by diagonals" or "coded CSR"
-- by diagonals: 1 byte a slot (nd = 27 a row) instead of 3 an entry
show(("sparse.spmv (library, %s)"):format(form), tsp,
     form == "by diagonals" and 27.0 * n + 16.0 * n or mbytes)
local its = 50
sparse.cg(A, x, {tol = 0.0, maxiter = 5})
d0 = dia_launches()
local tcg = time(function() sparse.cg(A, x, {tol = 0.0, maxiter = its}) end) / its
show(("sparse.cg per iteration (library, %s)"):format(dia_launches() > d0 and "by diagonals"
                                                      or "coded CSR"), tcg)

local function maxdiff(a, b)
  return speck.parallel_reduce("p.diff", n, {a = a, b = b},
    "const double d = fabs(a(i) - b(i)); if (d > acc) acc = d;", "max")
end

-- the library's body: a row a member, its entries over the lanes
local BODY_A = [[
const int64_t nr = rp.extent[0] - 1;
const int64_t r0 = team.league_rank * (int64_t)team.team_size;
const int64_t r1 = r0 + team.team_size < nr ? r0 + team.team_size : nr;
TEAM_FOR(r, r0, r1) {
  double s;
  VECTOR_REDUCE(sum, k, (int64_t)rp(r), (int64_t)rp(r + 1), s) { s += v(k) * x(r + off(k)); }
  SINGLE_THREAD(team) { y(r) = s; }
}]]
-- four entries a lane a trip, their loads issued together
local BODY_B = [[
const int64_t nr = rp.extent[0] - 1;
const int64_t r0 = team.league_rank * (int64_t)team.team_size;
const int64_t r1 = r0 + team.team_size < nr ? r0 + team.team_size : nr;
TEAM_FOR(r, r0, r1) {
  double s;
  const int p0 = rp(r), e = rp(r + 1), L = team.vector_length;
  VECTOR_REDUCE(sum, q, 0, L, s) {
    for (int k = p0 + (int)q; k < e; k += 4 * L) {
      const int k1 = k + L, k2 = k + 2 * L, k3 = k + 3 * L;
      const double a0 = v(k) * x(r + off(k));
      const double a1 = k1 < e ? v(k1) * x(r + off(k1)) : 0.0;
      const double a2 = k2 < e ? v(k2) * x(r + off(k2)) : 0.0;
      const double a3 = k3 < e ? v(k3) * x(r + off(k3)) : 0.0;
      s += (a0 + a1) + (a2 + a3);
    }
  }
  SINGLE_THREAD(team) { y(r) = s; }
}]]
local caps = {rp = rp, off = off, v = A.values, x = x, y = y}
local TMAX = tonumber(os.getenv("CG_PARTS_TMAX"))   -- a host check: team sizes capped
local function tryit(name, body, T, V, scratch)
  if TMAX and T > TMAX then T = TMAX end
  local league = (n + T - 1) // T
  local pol = speck.TeamPolicy(league, T, V, scratch and {scratch = {per_team = {scratch, 0}}} or nil)
  local ok, t = pcall(time, function() speck.parallel_for(name, pol, caps, body) end)
  if not ok then print(name, "failed", t) return end
  show(("%s T=%d V=%d"):format(name, T, V), t, mbytes)
  print(("   max |y - library| = %.3g"):format(maxdiff(y, yref)))
end
for _, tv in ipairs{{16, 8}, {8, 8}, {32, 4}, {16, 4}} do
  tryit("p.spmvA", BODY_A, tv[1], tv[2])
end
for _, tv in ipairs{{32, 4}} do
  tryit("p.spmvB", BODY_B, tv[1], tv[2])
end

-- sliced ELL (32 rows a slice, 27 columns, entries of a slice column-major;
-- a row's first rp(i+1) - rp(i) slots hold its entries): a row a thread,
-- every load of a warp contiguous
local ns = (n + 31) // 32
local ev = speck.View("ell_v", "float64", ns * 32 * 27)
local eo = speck.View("ell_o", "int16", ns * 32 * 27)
speck.parallel_for("p.ell", n, {rp = rp, off = off, v = A.values, ev = ev, eo = eo}, [[
  const int64_t base = (i / 32) * 32 * 27 + i % 32;
  for (int j = 0; j < rp(i + 1) - rp(i); j++) {
    ev(base + 32 * j) = v(rp(i) + j); eo(base + 32 * j) = off(rp(i) + j); }]])
local function tryell(name, body, extra)
  local c = {rp = rp, ev = ev, eo = eo, x = x, y = y}
  for k2, v2 in pairs(extra or {}) do c[k2] = v2 end
  local ok, t = pcall(time, function() speck.parallel_for(name, n, c, body) end)
  if not ok then print(name, "failed", t) return end
  show(name, t, mbytes)
  print(("   max |y - library| = %.3g"):format(maxdiff(y, yref)))
end
tryell("p.ell", [[
  const int64_t base = (i / 32) * 32 * 27 + i % 32;
  const int len = rp(i + 1) - rp(i);
  double s = 0;
  for (int j = 0; j < len; j++) s += ev(base + 32 * j) * x(i + eo(base + 32 * j));
  y(i) = s;]])

-- the vector passes
local V8 = 8.0 * n
show("copy y = x", time(function()
  speck.parallel_for("p.copy", n, {x = x, y = y}, "y(i) = x(i);") end), 2 * V8)
show("cg_step (p, s, x, r: 5 read, 4 written)", time(function()
  speck.parallel_for("p.step", n, {u = r, w = w, p = p, s = s, x = xx, rv = r, alpha = 1e-9, beta = 0.5}, [[
    const double pi = u(i) + beta * p(i), si = w(i) + beta * s(i);
    p(i) = pi; s(i) = si; x(i) += alpha * pi; rv(i) -= alpha * si;]]) end), 9 * V8)
show("dot r.w (2 read, host read)", time(function()
  speck.parallel_reduce("p.dot", n, {r = r, w = w}, "acc += r(i) * w(i);") end), 2 * V8)
show("x += a p, r -= a q, r.r (4 read, 2 written)", time(function()
  speck.parallel_reduce("p.upd", n, {x = xx, p = p, r = r, q = w, a = 1e-9}, [[
    x(i) += a * p(i); const double ri = r(i) - a * q(i); r(i) = ri; acc += ri * ri;]]) end), 6 * V8)
-- standard CG's first launch: p = r + beta p formed while gathering, q = A p
local BODY_P = [[
const int64_t nr = rp.extent[0] - 1;
const int64_t r0 = team.league_rank * (int64_t)team.team_size;
const int64_t r1 = r0 + team.team_size < nr ? r0 + team.team_size : nr;
TEAM_FOR(r, r0, r1) {
  double s;
  const int p0 = rp(r), e = rp(r + 1), L = team.vector_length;
  VECTOR_REDUCE(sum, q, 0, L, s) {
    for (int k = p0 + (int)q; k < e; k += 4 * L) {
      const int k1 = k + L, k2 = k + 2 * L, k3 = k + 3 * L;
      int64_t c = r + off(k);
      const double a0 = v(k) * (rv(c) + beta * po(c));
      c = r + off(k1 < e ? k1 : k);
      const double a1 = k1 < e ? v(k1) * (rv(c) + beta * po(c)) : 0.0;
      c = r + off(k2 < e ? k2 : k);
      const double a2 = k2 < e ? v(k2) * (rv(c) + beta * po(c)) : 0.0;
      c = r + off(k3 < e ? k3 : k);
      const double a3 = k3 < e ? v(k3) * (rv(c) + beta * po(c)) : 0.0;
      s += (a0 + a1) + (a2 + a3);
    }
  }
  SINGLE_THREAD(team) { y(r) = s; pn(r) = rv(r) + beta * po(r); }
}]]
local cp = {rp = rp, off = off, v = A.values, rv = r, po = p, pn = s, y = y, beta = 0.5}
for _, tv in ipairs{{16, 8}} do
  if TMAX then tv[1] = math.min(tv[1], TMAX) end
  local pol = speck.TeamPolicy((n + tv[1] - 1) // tv[1], tv[1], tv[2])
  show(("p-forming SpMV T=%d V=%d"):format(tv[1], tv[2]), time(function()
    speck.parallel_for("p.spmvP", pol, cp, BODY_P) end), mbytes + 3 * V8)
end
