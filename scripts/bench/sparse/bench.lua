-- bench.lua: the speck side of scripts/bench/sparse (run by ./run).
--
-- Usage: speck bench.lua OP MATRIX
--   spmv m5|m27|m27v|kron  sparse.spmv("N", 1, A, x, 0, y) (m27v: the 27-point
--                        matrix without value codes, as varying coefficients)
--   struct m5|m27        sparse.spmv_struct (5- and 27-point)
--   spgemm m5            sparse.spgemm(A, A), symbolic + numeric
--   sptrsv m5            sparse.sptrsv_solve on tril of the 1024^2
--                        5-point Laplacian (symbolic phase reused)
--   cg m5|m27|m27v       sparse.cg time per iteration (50 iterations)
-- The matrices are built with speck kernels, the same as ref.c's (the
-- Kronecker graph through sparse.from_coo), so checksums compare. WARM
-- untimed calls, then the median of REPS timed ones. Records as ref.c.
-- SPECK_SPARSE_NODIA=1: the kernels' names end in '-nodia' (see record).
local sparse = require "speck.sparse"

local OP, M = arg[1] or "", arg[2] or "m5"
local LIB = (arg[0]:match("^(.*)/") or ".") .. "/../lib/"
local records, csr = dofile(LIB .. "records.lua"), dofile(LIB .. "csr.lua")
-- under SPECK_SPARSE_NODIA=1 (stencils on their coded CSR kernels, not
-- by diagonals: kernels/sparse/dia.c) the kernels are recorded as
-- '<kernel>-nodia', a row of their own beside the same peers
local NODIA = (os.getenv("SPECK_SPARSE_NODIA") or "0") ~= "0"
local function record(kernel, t, bytes, check)
  records.record(kernel .. (NODIA and "-nodia" or ""), "speck", t, bytes, check)
end

-- WARM untimed calls of f, the median of REPS timed ones; the last result
-- goes before each timed call, as a peer's destructor would free it
local function timed(f, reps, warm) return (records.time_median(f, reps, warm, true)) end

-- -- matrices --------------------------------------------------------------------
local csr_from = csr.from
local function m5(g) g = g or 2048; return csr.m5(g), g end
local function m27() return csr.m27(128, "26.0"), 128 end

local function kron()
  local scale = 20
  local n, m = 1 << scale, 16 << scale
  local rows = speck.View("rows", "int64", 2 * m, {init = false})
  local cols = speck.View("cols", "int64", 2 * m, {init = false})
  speck.parallel_for("bench.rmat", m, {rows = rows, cols = cols, m = m, scale = scale}, [[
    int64_t u = 0, v = 0;
    for (int l = 0; l < scale; l++) {
      uint64_t z = (((uint64_t)i) << 6 | (uint64_t)l) + 0x9E3779B97F4A7C15UL;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
      z = z ^ (z >> 31);
      const double p = (double)(z >> 11) * (1.0 / 9007199254740992.0);
      if (p >= 0.57 + 0.19 + 0.19) { u |= (int64_t)1 << l; v |= (int64_t)1 << l; }
      else if (p >= 0.57 + 0.19) u |= (int64_t)1 << l;
      else if (p >= 0.57) v |= (int64_t)1 << l;
    }
    rows(i) = u; cols(i) = v; rows(m + i) = v; cols(m + i) = u;]])
  local A = sparse.from_coo(n, n, rows, cols)
  speck.parallel_for("bench.ones", A:nnz(), {v = A.values}, "v(i) = 1.0;")
  return A
end

local function matrix(name)
  if name == "m5" then return m5() elseif name == "m27" then return m27() end
  if name == "m27v" then
    -- the 27-point matrix read as a matrix of varying coefficients would be:
    -- its values handed out (view:data()), so speck keeps no value codes
    -- for them (kernels/sparse/vdict.c); the compact index stays
    local A, g = m27()
    A.values:data()
    return A, g
  end
  return kron()
end

local function vectors(n)
  local x = speck.View("x", "float64", n, {init = false})
  local y = speck.View("y", "float64", n)
  speck.parallel_for("bench.x", n, {x = x}, "x(i) = 1.0 + (double)(i % 1000003) * 1e-6;")
  return x, y
end

local function checksum(y)
  return speck.parallel_reduce("bench.check", y:extent(0), {y = y},
                               "acc += y(i) * (double)(1 + i % 3);")
end

local function spmv_bytes(A)
  local n = A:nrows()
  return 12.0 * A:nnz() + 8.0 * (n + 1) + 16.0 * n
end

-- -- operations ------------------------------------------------------------------------
if OP == "spmv" or OP == "struct" then
  local A, g = matrix(M)
  local x, y = vectors(A:nrows())
  local t
  if OP == "spmv" then
    -- 8 untimed calls: the compact index (third call), the value codes and
    -- the diagonal form (fifth) made, and the diagonal kernel's cc code in
    -- (its first calls run libtcc code while the cc tier compiles)
    t = timed(function() sparse.spmv("N", 1.0, A, x, 0.0, y) end, nil, 8)
  else
    local st, dims = M == "m5" and 5 or 27, M == "m5" and {g, g} or {g, g, g}
    t = timed(function() sparse.spmv_struct(st, dims, 1.0, A, x, 0.0, y) end)
  end
  record(OP .. "-" .. M, t, spmv_bytes(A), checksum(y))
elseif OP == "spgemm" then
  local A = matrix(M)
  local C
  local t = timed(function() C = sparse.spgemm(A, A) end, 3, 1)
  local check = speck.parallel_reduce("bench.gcheck", C:nnz(), {v = C.values, c = C.colidx},
                                      "acc += v(i) * (double)(1 + c(i) % 3);")
  record("spgemm-" .. M, t, 0, check)
  print(("I\tspeck\tnnz-spgemm-%s\t%d"):format(M, C:nnz()))
  -- the numeric phase alone, through the handle
  local h = sparse.spgemm_symbolic(A, A)
  local tn = timed(function() sparse.spgemm_numeric(h, A, A, C) end, 3, 1)
  record("spgemm-numeric-" .. M, tn, 0, check)
elseif OP == "sptrsv" then
  local A = m5(1024)
  -- the lower triangle, rows sorted
  local L = csr_from(A:nrows(), [[
    for (int64_t k = arp(i); k < arp(i + 1); k++) c += aci(k) <= i;]], [[
    for (int64_t k = arp(i); k < arp(i + 1); k++)
      if (aci(k) <= i) { colidx(p) = aci(k); values(p++) = av(k); }]],
    {arp = A.rowptr, aci = A.colidx, av = A.values})
  local n = L:nrows()
  local b, x = vectors(n)
  local h = sparse.sptrsv_symbolic(L)
  local t = timed(function() sparse.sptrsv_solve(h, L, b, x) end)
  record("sptrsv-m5", t, 12.0 * L:nnz() + 8.0 * (n + 1) + 24.0 * n, checksum(x))
  print(("I\tspeck\tlevels-sptrsv\t%d"):format(h.nlevels))
elseif OP == "cg" then
  local A = matrix(M)
  local b = vectors(A:nrows())
  local its = 50
  sparse.cg(A, b, {tol = 0.0, maxiter = 5})
  local t = timed(function() sparse.cg(A, b, {tol = 0.0, maxiter = its}) end, 3, 0)
  record("cg-" .. M, t / its, 0, 0)
else
  io.stderr:write("usage: speck bench.lua spmv|struct|spgemm|sptrsv|cg MATRIX\n")
  os.exit(2)
end
