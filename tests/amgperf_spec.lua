-- amgperf_spec.lua: the faster AMG setup (issue 27's benchmark work):
-- solve.amg drops A's stored zeros from its finest level (the same
-- hierarchy and iterations as without them), leaves aggregates of
-- isolated nodes (Dirichlet rows) without a coarse unknown, builds one
-- level for a diagonal matrix, and P:update(A) either reuses the setup or
-- (a nonzero on a dropped zero) runs it again; the host's counting-sort
-- transpose and dense-accumulator SpGEMM against references on
-- rectangular, duplicate-holding and float32 matrices; multicolor
-- Gauss-Seidel on an unsymmetric pattern (its A + A^T from a transpose and
-- a row merge): no coupling inside a color, one symmetric sweep equal to
-- a Lua sweep in the same color order. Every view lives in the default space: under
-- cuda the spec checks that device kernels ran.
local speck = require "speck"
local sparse = require "speck.sparse"
local blas = require "speck.blas"
local solve = require "speck.solve"

local SPACE = speck.info().default_space
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo, poisson_entries, host_table = F.coo, F.poisson_entries, F.host_table
local device_launches = F.device_launches

-- preconditioned CG from x = 0 to ||b - A x|| <= tol ||b|| (b = 1): the
-- iterations and x
local function pcg(A, P, tol)
  local b = speck.View("b", "float64", A:nrows())
  speck.deep_copy(b, 1.0)
  local x, info = solve.cg(A, b, {tol = tol, maxiter = 200, precond = P})
  assert.are.equal("converged", info.reason)
  local r = speck.View("r", "float64", A:nrows())
  speck.deep_copy(r, b)
  sparse.spmv("N", -1.0, A, x, 1.0, r)
  assert.is_true(blas.nrm2(r) <= 1.01 * tol * blas.nrm2(b))
  return info.iters, x
end

describe("the AMG setup's fast paths on " .. SPACE, function()
  describe("solve.amg", function()
    it("drops A's stored zeros: the same levels and iterations as without them", function()
      local e = poisson_entries(10)
      local A = coo(1000, e)
      -- zeros at (i, i + 2) and (i + 2, i): a symmetric pattern, the same operator
      local z = {}
      for _, t in ipairs(e) do z[#z + 1] = t end
      local nz = 0
      for i = 0, 997, 3 do
        z[#z + 1], z[#z + 2] = {i, i + 2, 0.0}, {i + 2, i, 0.0}
        nz = nz + 2
      end
      local Z = coo(1000, z)
      assert.are.equal(A:nnz() + nz, Z:nnz())
      local PA, PZ = solve.amg(A), solve.amg(Z)
      local ia, iz = PA:info(), PZ:info()
      assert.are.equal(0, ia.zeros_dropped)
      assert.are.equal(nz, iz.zeros_dropped)
      assert.are.equal(#ia.levels, #iz.levels)
      for l = 1, #ia.levels do
        assert.are.equal(ia.levels[l].rows, iz.levels[l].rows)
        assert.are.equal(ia.levels[l].nnz, iz.levels[l].nnz)
      end
      assert.are.equal(ia.operator_complexity, iz.operator_complexity)
      assert.are.equal((pcg(A, PA, 1e-8)), (pcg(Z, PZ, 1e-8)))
    end)

    it("gives Dirichlet rows (isolated once the zeros are gone) no coarse unknown", function()
      -- a 10^3 Laplacian beside 300 identity rows; every Laplacian row
      -- stores a zero to one identity row (miniFE's pattern: unsymmetric)
      local m, nd = 10, 300
      local n = m * m * m + nd
      local e = poisson_entries(m)
      for i = 0, m * m * m - 1 do e[#e + 1] = {i, m * m * m + i % nd, 0.0} end
      for d = 0, nd - 1 do e[#e + 1] = {m * m * m + d, m * m * m + d, 1.0} end
      local A = coo(n, e)
      local L = coo(m * m * m, poisson_entries(m))
      local PA, PL = solve.amg(A), solve.amg(L)
      local ia, il = PA:info(), PL:info()
      assert.are.equal(m * m * m, ia.zeros_dropped)
      assert.are.equal(n, ia.levels[1].rows)
      assert.is_true(#ia.levels >= 2)
      -- the coarse levels are the Laplacian's alone
      assert.are.equal(#il.levels, #ia.levels)
      for l = 2, #ia.levels do
        assert.are.equal(il.levels[l].rows, ia.levels[l].rows)
        assert.are.equal(il.levels[l].nnz, ia.levels[l].nnz)
      end
      local its, x = pcg(A, PA, 1e-10)
      assert.is_true(its <= (pcg(L, PL, 1e-10)) + 2)
      local xt = host_table(x)
      for d = 1, nd do assert.is_true(math.abs(xt[m * m * m + d] - 1.0) <= 1e-8) end
    end)

    it("makes a diagonal matrix (every node isolated) one level", function()
      local e = {}
      for i = 0, 3999 do e[#e + 1] = {i, i, 1.0 + i % 7} end
      local A = coo(4000, e)
      local P = solve.amg(A)
      local info = P:info()
      assert.are.equal(1, #info.levels)
      assert.are.equal("chebyshev", info.coarse_solve)
      assert.is_true(pcg(A, P, 1e-8) <= 5)
    end)

    it("P:update(A): the same zeros reuse the setup, a nonzero on a dropped zero sets up again", function()
      local e = poisson_entries(8)
      local base = #e
      for i = 0, 509, 2 do e[#e + 1], e[#e + 2] = {i, i + 2, 0.0}, {i + 2, i, 0.0} end
      local A = coo(512, e)
      local P = solve.amg(A)
      local levels = #P:info().levels
      -- the same pattern, every value doubled: the numeric update
      local v2 = {}
      for k, t in ipairs(e) do v2[k] = {t[1], t[2], 2 * t[3]} end
      local B = coo(512, v2)
      P:update(B)
      assert.are.equal(B:nnz() - (A:nnz() - P:info().levels[1].nnz), P:info().levels[1].nnz)
      local fresh = pcg(B, solve.amg(B), 1e-8)
      assert.is_true(math.abs(pcg(B, P, 1e-8) - fresh) <= 1)
      -- the stored zeros become -0.05 couplings (still diagonally dominant):
      -- the finest level changes, the whole setup runs again
      local v3 = {}
      for k, t in ipairs(e) do v3[k] = {t[1], t[2], k > base and -0.05 or t[3]} end
      local C = coo(512, v3)
      P:update(C)
      local ic = P:info()
      assert.are.equal(0, ic.zeros_dropped)
      assert.are.equal(C:nnz(), ic.levels[1].nnz)
      assert.is_true(#ic.levels >= 1 and levels >= 1)
      local want = solve.amg(C):info()
      assert.are.equal(#want.levels, #ic.levels)
      for l = 1, #want.levels do assert.are.equal(want.levels[l].rows, ic.levels[l].rows) end
      assert.is_true(math.abs(pcg(C, P, 1e-8) - pcg(C, solve.amg(C), 1e-8)) <= 1)
    end)

    if SPACE == "cuda" then
      it("runs the new setup steps as device kernels", function()
        -- the stencil's few values are coded (vdict.c): the coded fill keeps
        -- A's codes; with a diagonal of many values, the plain fill
        local function explicit_zeros(vary)
          local e = poisson_entries(12)
          if vary then for _, t in ipairs(e) do if t[1] == t[2] then t[3] = 6 + t[1] / 1728 end end end
          for i = 0, 1700, 2 do e[#e + 1], e[#e + 2] = {i, i + 2, 0.0}, {i + 2, i, 0.0} end
          return coo(1728, e)
        end
        local plain = device_launches("solve.amg_nz_fill")
        local A = explicit_zeros(false)
        pcg(A, solve.amg(A), 1e-8)
        for _, l in ipairs{"solve.amg_nz_count", "solve.amg_nz_fill_coded", "solve.amg_iso_keep",
                           "solve.amg_count", "solve.amg_qr"} do
          assert.is_true(device_launches(l) > 0, l .. " did not run on the device")
        end
        assert.are.equal(plain, device_launches("solve.amg_nz_fill"))
        local V = explicit_zeros(true)
        pcg(V, solve.amg(V), 1e-8)
        assert.is_true(device_launches("solve.amg_nz_fill") > plain, "solve.amg_nz_fill did not run on the device")
      end)
    end
  end)

  describe("the host paths of transpose and SpGEMM", function()
    local seed = 11
    local function rnd(m) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % m end
    local function random(n, m, per, dtype)
      local r, c, v = {}, {}, {}
      for i = 0, n - 1 do
        for _ = 1, rnd(per + 1) do
          r[#r + 1], c[#c + 1], v[#v + 1] = i, rnd(m), (1 + rnd(97)) / 8
        end
      end
      return sparse.from_coo(n, m, r, c, v, dtype and {dtype = dtype} or nil)
    end
    local function dense(A)
      local D = host_table(A:to_dense())
      return D
    end

    for _, dt in ipairs{"float64", "float32"} do
      it("transpose (" .. dt .. ") equals the reference, rows ascending", function()
        local A = random(301, 173, 9, dt)
        local T = A:transpose()
        assert.are.equal(173, T:nrows())
        assert.are.equal(301, T:ncols())
        assert.are.equal(A:nnz(), T:nnz())
        assert.is_true(T:is_sorted())
        local D, DT = dense(A), dense(T)
        for i = 1, 301 do for j = 1, 173 do assert.are.equal(D[i][j], DT[j][i]) end end
        local H = T:space() == "host" and T or T:to("host")
        local rp, ci = H.rowptr:totable(), H.colidx:totable()
        for i = 1, 173 do
          for k = rp[i] + 2, rp[i + 1] do assert.is_true(ci[k] > ci[k - 1]) end
        end
      end)
    end

    it("SpGEMM (A*B and the Jacobi product) equals the dense reference", function()
      -- short rows of C (insertion sort) and long ones (over 64: heapsort)
      for _, sh in ipairs{{120, 90, 140, 7, 6}, {30, 200, 300, 60, 12}} do
        local A, B = random(sh[1], sh[2], sh[4]), random(sh[2], sh[3], sh[5])
        local C = sparse.spgemm(A, B)
        assert.is_true(C:is_sorted())
        local DA, DB, DC = dense(A), dense(B), dense(C)
        for i = 1, sh[1] do
          for j = 1, sh[3] do
            local s = 0
            for k = 1, sh[2] do s = s + DA[i][k] * DB[k][j] end
            assert.is_true(math.abs(DC[i][j] - s) <= 1e-12 * (1 + math.abs(s)))
          end
        end
        local H = C:space() == "host" and C or C:to("host")
        local rp, ci = H.rowptr:totable(), H.colidx:totable()
        local longest = 0
        for i = 1, sh[1] do
          longest = math.max(longest, rp[i + 1] - rp[i])
          for k = rp[i] + 2, rp[i + 1] do assert.is_true(ci[k] > ci[k - 1]) end
        end
        if sh[1] == 30 then assert.is_true(longest > 64, "longest row " .. longest) end
      end
      -- (I - omega D^-1 S) P on a square S with a full diagonal
      local e = {}
      for i = 0, 79 do
        e[#e + 1] = {i, i, 4 + rnd(3)}
        for _ = 1, 4 do e[#e + 1] = {i, rnd(80), -(1 + rnd(5)) / 3} end
      end
      local S, P = coo(80, e), random(80, 30, 3)
      local J = sparse.spgemm_jacobi(0.7, S, P)
      local DS, DP, DJ = dense(S), dense(P), dense(J)
      for i = 1, 80 do
        for j = 1, 30 do
          local s = 0
          for k = 1, 80 do s = s + DS[i][k] * DP[k][j] end
          local want = DP[i][j] - 0.7 / DS[i][i] * s
          assert.is_true(math.abs(DJ[i][j] - want) <= 1e-12 * (1 + math.abs(want)))
        end
      end
    end)
  end)

  describe("multicolor Gauss-Seidel on an unsymmetric pattern", function()
    it("colors A + A^T (no coupling inside a color) and sweeps as the reference", function()
      -- a convection-diffusion-like matrix: each row couples to its
      -- neighbour below and to a scattered column, no mirror entries
      local n, e, seed = 600, {}, 5
      local function rnd(m) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % m end
      for i = 0, n - 1 do
        e[#e + 1] = {i, i, 6.0 + rnd(3)}
        if i > 0 then e[#e + 1] = {i, i - 1, -1.5} end
        local j = rnd(n)
        if j ~= i and j ~= i - 1 then e[#e + 1] = {i, j, -0.5} end
      end
      local A = coo(n, e)
      -- the coloring the preconditioner sweeps by (graph.color's may
      -- differ between runs on a parallel back end: any proper one will do)
      local P = solve.gauss_seidel(A)
      local perm, cp = host_table(P._args.M_perm), host_table(P._args.M_colorptr)
      assert.is_true(#cp - 1 >= 2)
      local color = {}
      for c = 1, #cp - 1 do for k = cp[c] + 1, cp[c + 1] do color[perm[k]] = c end end
      for _, t in ipairs(e) do
        if t[1] ~= t[2] then assert.are_not.equal(color[t[1]], color[t[2]]) end
      end
      -- one symmetric sweep from z = 0 in that order, in Lua
      local d, rows = {}, {}
      for _, t in ipairs(e) do
        if t[1] == t[2] then d[t[1]] = t[3] end
        rows[t[1]] = rows[t[1]] or {}
        table.insert(rows[t[1]], t)
      end
      local r, z = {}, {}
      for i = 0, n - 1 do r[i], z[i] = 1.0 + (i % 13) / 7.0, 0.0 end
      local function relax(i)
        local s = r[i]
        for _, t in ipairs(rows[i]) do s = s - t[3] * z[t[2]] end
        z[i] = z[i] + s / d[i]
      end
      for k = 1, n do relax(perm[k]) end
      for c = #cp - 1, 1, -1 do for k = cp[c] + 1, cp[c + 1] do relax(perm[k]) end end
      -- the preconditioner's sweep
      local rv = speck.View("r", "float64", n)
      speck.parallel_for("amgperf.r", n, {r = rv}, "r(i) = 1.0 + (double)(i % 13) / 7.0;")
      local zt = host_table(P(rv))
      for i = 1, n do
        assert.is_true(math.abs(zt[i] - z[i - 1]) <= 1e-13 * (1 + math.abs(z[i - 1])),
                       ("row %d: %.17g, reference %.17g"):format(i - 1, zt[i], z[i - 1]))
      end
      local b = speck.View("b", "float64", n)
      speck.deep_copy(b, 1.0)
      local _, info = solve.bicgstab(A, b, {tol = 1e-10, precond = P})
      assert.are.equal("converged", info.reason)
    end)
  end)

  -- -- the GPU target: the new bodies compile with NVRTC (compile only) -------------------
  describe("the new bodies for the GPU target", function()
    local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
    -- the texts of a .sk file (scripts/embed.lua's format: '//: name
    -- [part] [eol]', '//| notes', '//+ part' includes)
    local function bodies(path)
      local fh = io.open(path)
      if not fh then return nil end
      fh:close()
      local t, cur = {}, nil
      for line in io.lines(path) do
        local name = line:match("^//: (%S+)")
        if name then cur = name; t[cur] = {}
        elseif cur and not line:match("^//|") then table.insert(t[cur], line) end
      end
      local function expand(name)
        local out = {}
        for _, l in ipairs(t[name]) do
          local inc = l:match("^//%+ (%S+)")
          if inc then out[#out + 1] = expand(inc) else out[#out + 1] = l end
        end
        return table.concat(out, "\n")
      end
      local r = {}
      for k in pairs(t) do r[k] = expand(k) .. "\n" end
      return r
    end
    it("compile with NVRTC", function()
      local nv = speck.info().compilers.nvrtc
      if not (nv and nv.available) then
        pending("NVRTC unavailable: " .. tostring(nv and nv.reason))
        return
      end
      local CSR = bodies(HERE .. "/../kernels/sparse/csr.sk")
      local GEMM = bodies(HERE .. "/../kernels/sparse/spgemm.sk")
      local AMG = bodies(HERE .. "/../kernels/solve/amg.sk")
      local SOL = bodies(HERE .. "/../kernels/solve/solve.sk")
      if not (CSR and GEMM and AMG and SOL) then
        pending("kernels/*/*.sk are not beside the tests")
        return
      end
      local V = function(dt, n) return speck.View("v", dt, n or 8) end
      local I = function(x) return {"int64", x} end
      local red = function() return {pattern = "reduce", reducer = {{op = "sum", dtype = "int64"}}} end
      local mat = function(t)
        local r = {rowptr = V("int64", 5), colidx = V("int32"), values = V("float64")}
        for k, v in pairs(t or {}) do r[k] = v end
        return r
      end
      local jobs = {
        {CSR, "transpose_bcount", "range", {rowptr = V("int64", 5), colidx = V("int32"),
                                            cnt = V("int64"), nb = I(2), rpb = I(2)}, {}},
        {CSR, "transpose_bptr", "range", {off = V("int64"), rp = V("int64"), nb = I(2)}, {}},
        {CSR, "transpose_bmove", "range", {rowptr = V("int64", 5), colidx = V("int32"),
                                           values = V("float64"), off = V("int64"),
                                           tcol = V("int32"), tval = V("float64"), nb = I(2),
                                           rpb = I(2)}, {}},
        {GEMM, "spgemm_numeric_dense", "team",
         {arp = V("int64", 5), aci = V("int32"), av = V("float64"), brp = V("int64", 5),
          bci = V("int32"), bv = V("float64"), crp = V("int64", 5), cci = V("int32"),
          cv = V("float64"), bad = V("int64", 1), nb = I(8), rpt = I(2), jacobi = I(0),
          omega = 1.0}, {}},
        {AMG, "amg_count", "range", {lab = V("int64"), cnt = V("int64"), rc = V("int64"),
                                     nk = I(1)}, {}},
        {AMG, "amg_fill", "range", {lab = V("int64"), aptr = V("int64"), cur = V("int64"),
                                    arows = V("int64")}, {}},
        {AMG, "amg_qr", "range", {aptr = V("int64"), arows = V("int64"), bf = V("float64"),
                                  rp = V("int64"), pv = V("float64"), pc = V("int32"),
                                  bc = V("float64"), bad = V("int64", 1), nk = I(1)}, {}},
        {AMG, "amg_iso_keep", "range", {rowptr = V("int64", 5), colidx = V("int32"),
                                        lab = V("int64"), keep = V("int64")}, {}},
        {AMG, "amg_relabel", "range", {lab = V("int64"), keep = V("int64"), nid = V("int64"),
                                       out = V("int64")}, {}},
        {AMG, "amg_nz_count", "range", mat{cnt = V("int64")}, red()},
        {AMG, "amg_nz_fill", "range", mat{bp = V("int64"), bc = V("int32"), bv = V("float64")},
         {}},
        {AMG, "amg_pattern_diff", "range", {ap = V("int64", 5), ac = V("int32"),
                                            bp = V("int64", 5), bc = V("int32")}, red()},
        {SOL, "gs_unsorted", "range", {rowptr = V("int64", 5), colidx = V("int32")}, red()},
        {SOL, "gs_union", "range", {rowptr = V("int64", 5), colidx = V("int32"),
                                    tp = V("int64", 5), tc = V("int32"), gp = V("int64"),
                                    gc = V("int32"), fill = I(1)}, {}},
      }
      for _, j in ipairs(jobs) do
        local text = j[1][j[2]]
        assert.is_string(text, j[2])
        local o = j[5]
        o.target = "cuda"
        speck.kernel("amgperf_gpu_" .. j[2], j[3], j[4], text, o)
      end
      local seen = {}
      for _, k in ipairs(speck.jit.stats().per_kernel) do
        if k.label:match("^amgperf_gpu_") then
          assert.are.equal("nvrtc", k.tier, k.label)
          seen[k.label] = true
        end
      end
      for _, j in ipairs(jobs) do assert.is_true(seen["amgperf_gpu_" .. j[2]], j[2]) end
    end)
  end)
end)
