local speck = require "speck"
local blas = require "speck.blas"
local batched = require "speck.batched"
-- dense_spec.lua: speck.blas levels 2-3 and the LAPACK subset
-- (kernels/blas/blas3.c, lapack.c, vendor.c), speck.batched
-- (kernels/batched/) and the dialect's one-matrix operations called from a
-- user's kernel body (dialect/linalg.h), on the space SPECK_SPACE selects.
--
-- Results are compared with NumPy / SciPy (tests/dense_oracle.py, one run
-- for the whole spec): every operation, layouts right and left and a
-- strided subview, every trans / side / uplo / diag combination, sizes 0,
-- 1, 17, 63, float64 and float32, batches of 0, 1 and 10,000; native and
-- vendor (OpenBLAS) agree within 1e-12; beta = 0 overwrites NaN; bad input
-- is refused with its message and the VM keeps working.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local SPACE = speck.info().default_space
local ON_HOST = SPACE ~= "cuda"
local BV = speck.info().blas_vendor
local VENDOR = ON_HOST and BV.available or (not ON_HOST and (BV.gpu or ""):match("^cuBLAS %(") ~= nil)

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

local DIR = os.tmpname()
os.remove(DIR)
sh("mkdir -p " .. DIR)

-- -- data -----------------------------------------------------------------------
local seed = 4242
local function rnd()   -- [-1, 1), multiples of 2^-20: exact in float32
  seed = (seed * 1103515245 + 12345) % 2147483648
  return math.floor(seed / 2147483648 * 2 ^ 21) / 2 ^ 20 - 1
end

-- a view of 'dims' filled by f(idx...) (default: random), layout 'layout'
local function make(label, dt, dims, layout, f)
  local v = speck.View(label, dt, dims, {layout = layout})
  if #dims == 1 then for i = 0, dims[1] - 1 do v:set(i, f and f(i) or rnd()) end
  elseif #dims == 2 then
    for i = 0, dims[1] - 1 do
      for j = 0, dims[2] - 1 do v:set(i, j, f and f(i, j) or rnd()) end
    end
  else
    for b = 0, dims[1] - 1 do
      for i = 0, dims[2] - 1 do
        for j = 0, dims[3] - 1 do v:set(b, i, j, f and f(b, i, j) or rnd()) end
      end
    end
  end
  return v
end

-- well conditioned: random plus n on the diagonal (dimensions 2, 3 of a batch)
local function dominant(label, dt, dims, layout)
  local n = dims[#dims]
  return make(label, dt, dims, layout, function(...)
    local t = {...}
    local i, j = t[#t - 1], t[#t]
    return rnd() + (i == j and n + 1 or 0)
  end)
end

-- symmetric positive definite
local function spd(label, dt, n, layout)
  local r = {}
  for i = 0, n - 1 do r[i] = {} for j = 0, i do r[i][j] = rnd() end end
  return make(label, dt, {n, n}, layout, function(i, j)
    local a, b = math.max(i, j), math.min(i, j)
    return r[a][b] + (i == j and n + 1 or 0)
  end)
end

local function copy(v)
  local c = speck.View(v:label() .. "'", v:dtype(), v:extents(), {layout = v:layout() == "left" and "left" or "right"})
  speck.deep_copy(c, v)
  return c
end

local nfile = 0
local function save(v)
  nfile = nfile + 1
  local name = ("f%d.npy"):format(nfile)
  speck.io.save_npy(DIR .. "/" .. name, v)
  return name
end

-- -- the cases: each records its inputs, runs speck, and checks after the oracle ----
local jobs, checks = {}, {}
local function job(line) jobs[#jobs + 1] = line end

-- max |got - want| / max(1, max |want|) by two reductions (NaN counts as
-- infinitely far)
local function maxdiff(got, want)
  local e = got:extents()
  local n = 1
  for _, x in ipairs(e) do n = n * x end
  if n == 0 then return 0 end
  local idx = #e == 1 and "i" or #e == 2 and "i, j" or "i, j, k"
  local pol = #e == 1 and e[1] or speck.MDRangePolicy(#e == 2 and {0, 0} or {0, 0, 0}, e)
  local d = speck.parallel_reduce("dense_diff", pol, {g = got, w = want},
    ("double d = fabs((double)g(%s) - (double)w(%s)); if (d != d) d = INFINITY; "
     .. "if (d > acc) acc = d;"):format(idx, idx), "max")
  local m = speck.parallel_reduce("dense_max", pol, {w = want},
    ("double d = fabs((double)w(%s)); if (d > acc) acc = d;"):format(idx), "max")
  return d / math.max(1, m)
end

local TOL = {float64 = 1e-11, float32 = 2e-4}

-- after the oracle: view 'got' equals file 'out'
local function expect(what, got, out, dt)
  checks[#checks + 1] = {what = what, got = got, out = out, dt = dt}
end

local LAYOUTS = {"right", "left"}
local FLOATS = {"float64", "float32"}

-- Every case runs once, when a test first needs the oracle (not when the
-- file loads: each shard of the file loads it, and only the tests below
-- that compare with the oracle use the cases)
local bcases = {}
local KE, KB, KF
-- in-kernel calls: an FE-like element loop (dialect/README.md's example):
-- K_e = B_e^T B_e + I assembled in team scratch, solved in place
-- (made once: the gesv test needs K and f, the oracle's test K's check)
local FE_FILES
local function fe_case()
  if FE_FILES then return end
  local ne, n = 50, 6
  local Bm = make("Bm", "float64", {ne, n, n})
  local F = make("F", "float64", {ne, n, 1})
  local fb, ff = save(Bm), save(F)
  KB = speck.View("K", "float64", {ne, n, n})
  KF = copy(F)
  speck.parallel_for("fe", speck.TeamPolicy(ne, "auto", 1, {scratch = {per_team = {n * n * 8 + 64, 0}}}),
    {Bm = Bm, F = F, K = KB, P = speck.View("P", "int64", {ne, n})}, [[
    const sk_i64 e = team.league_rank;
    sk_mat k = matrix_scratch(team, 0, Bm.extent[1], Bm.extent[2]);
    teamvector_gemm(team, 'T', 'N', 1.0, matrix(Bm, e), matrix(Bm, e), 0.0, k);
    TEAM_FOR(r, 0, k.m) if (r >= 0) sk_at(k, r, r) += 1.0;
    team_barrier(team);
    TEAM_VECTOR_FOR(r, 0, k.m) for (sk_i64 c = 0; c < k.n; c++) K(e, r, c) = sk_at(k, r, c);
    team_barrier(team);
    team_gesv(team, k, &P(e, 0), P.stride[1], matrix(F, e));]])
  KE = F
  local I = make("I", "float64", {ne, n, n}, nil, function(_, i, j) return i == j and 1 or 0 end)
  FE_FILES = {fb, save(I)}
end

-- the cases in groups, each run when its test first needs it (not when
-- the file loads: each shard of the file loads it), with its own oracle
-- run: a group a test, so that the shards share them
local GROUPS = {}
local function group(name, fn) GROUPS[#GROUPS + 1] = {name = name, fn = fn} end

group("gemm", function()
  -- gemm: every trans pair, both layouts, sizes 0 1 17 63, beta 0 over NaN and beta 0.5
  for _, dt in ipairs(FLOATS) do
    for _, lay in ipairs(LAYOUTS) do
      for _, n in ipairs({0, 1, 17, 63}) do
        for _, tt in ipairs({{"N", "N"}, {"N", "T"}, {"T", "N"}, {"T", "C"}}) do
          local m, k = n, math.max(n - 3, 0)
          local ta, tb = tt[1], tt[2]
          local A = make("A", dt, ta == "N" and {m, k} or {k, m}, lay)
          local B = make("B", dt, tb == "N" and {k, n + 2} or {n + 2, k}, lay)
          for _, beta in ipairs({0.0, 0.5}) do
            local C = make("C", dt, {m, n + 2}, lay, beta == 0 and function() return 0 / 0 end or nil)
            local fa, fb, fc = save(A), save(B), save(C)
            blas.gemm(ta, tb, 1.5, A, B, beta, C, {impl = "native"})
            local out = ("o%d.npy"):format(#jobs)
            job(("gemm %s %s %s 1.5 %s %s %s %s"):format(out, ta, tb, beta, fa, fb, fc))
            expect(("gemm %s%s %s %s n=%d beta=%s"):format(ta, tb, dt, lay, n, beta), C, out, dt)
          end
        end
      end
    end
  end
end)

group("gemv, syrk, trsm, trmm", function()
  -- gemv, syrk
  for _, dt in ipairs(FLOATS) do
    for _, lay in ipairs(LAYOUTS) do
      for _, n in ipairs({0, 1, 17, 63}) do
        for _, ta in ipairs({"N", "T"}) do
          local A = make("A", dt, {n, n + 1}, lay)
          local x = make("x", dt, {ta == "N" and n + 1 or n})
          local y = make("y", dt, {ta == "N" and n or n + 1}, nil, function() return 0 / 0 end)
          local fa, fx, fy = save(A), save(x), save(y)
          local y2 = copy(y)
          blas.gemv(ta, 2.0, A, x, 0.0, y, {impl = "native"})
          blas.gemv(ta, 2.0, A, x, 0.0, y2)   -- auto: the vendor library where there is one
          local out = ("o%d.npy"):format(#jobs)
          job(("gemv %s %s 2.0 0.0 %s %s %s"):format(out, ta, fa, fx, fy))
          expect(("gemv %s %s %s n=%d"):format(ta, dt, lay, n), y, out, dt)
          expect(("gemv (auto) %s %s %s n=%d"):format(ta, dt, lay, n), y2, out, dt)
          for _, uplo in ipairs({"U", "L"}) do
            local C = make("C", dt, {ta == "N" and n or n + 1, ta == "N" and n or n + 1}, lay)
            local fc = save(C)
            local C2 = copy(C)
            blas.syrk(uplo, ta, -1.0, A, 0.25, C, {impl = "native"})
            blas.syrk(uplo, ta, -1.0, A, 0.25, C2)
            local o2 = ("o%d.npy"):format(#jobs)
            job(("syrk %s %s %s -1.0 0.25 %s %s"):format(o2, uplo, ta, fa, fc))
            expect(("syrk %s%s %s %s n=%d"):format(uplo, ta, dt, lay, n), C, o2, dt)
            expect(("syrk (auto) %s%s %s %s n=%d"):format(uplo, ta, dt, lay, n), C2, o2, dt)
          end
        end
      end
    end
  end

  -- trsm and trmm: every side / uplo / trans / diag
  for _, dt in ipairs(FLOATS) do
    for _, lay in ipairs(LAYOUTS) do
      for _, n in ipairs({0, 1, 17, 63, 200}) do
        -- every combination at n = 17 (both dtypes and layouts); at the
        -- other sizes (200: the blocked path) float64 and every other one
        if n == 17 or (dt == "float64" and (n < 200 or lay == "right")) then
          local c = 0
          for _, side in ipairs({"L", "R"}) do
            for _, uplo in ipairs({"U", "L"}) do
              for _, tr in ipairs({"N", "T"}) do
                for _, diag in ipairs({"N", "U"}) do
                c = c + 1
                if n == 17 or c % 2 == (lay == "right" and 1 or 0) then
                  local A = dominant("A", dt, {n, n}, lay)
                  local fa = save(A)
                  for _, op in ipairs({"trsm", "trmm"}) do
                    local B = make("B", dt, side == "L" and {n, 5} or {5, n}, lay)
                    local fb = save(B)
                    blas[op](side, uplo, tr, diag, 0.5, A, B, {impl = "native"})
                    local out = ("o%d.npy"):format(#jobs)
                    job(("%s %s %s %s %s %s 0.5 %s %s"):format(op, out, side, uplo, tr, diag, fa, fb))
                    expect(("%s %s%s%s%s %s %s n=%d"):format(op, side, uplo, tr, diag, dt, lay, n), B, out, dt)
                  end
                end
                end
              end
            end
          end
        end
      end
    end
  end
end)

group("potrf, getrf, gesv, trtri", function()
  -- potrf, getrf, gesv, trtri (sizes up to 200: several blocks of potrf)
  for _, dt in ipairs(FLOATS) do
    for _, lay in ipairs(LAYOUTS) do
      for _, n in ipairs({0, 1, 17, 63, 200}) do
        for _, uplo in ipairs({"U", "L"}) do
          local A = spd("A", dt, n, lay)
          local fa = save(A)
          blas.potrf(uplo, A, {impl = "native"})
          local out = ("o%d.npy"):format(#jobs)
          job(("potrf %s %s %s"):format(out, uplo, fa))
          expect(("potrf %s %s %s n=%d"):format(uplo, dt, lay, n), A, out, dt)
          for _, diag in ipairs({"N", "U"}) do
            local T = dominant("T", dt, {n, n}, lay)
            local ft = save(T)
            blas.trtri(uplo, diag, T, {impl = "native"})
            local o2 = ("o%d.npy"):format(#jobs)
            job(("trtri %s %s %s %s"):format(o2, uplo, diag, ft))
            expect(("trtri %s%s %s %s n=%d"):format(uplo, diag, dt, lay, n), T, o2, dt)
          end
        end
        local G = make("G", dt, {n, n}, lay)
        local fg = save(G)
        local piv = speck.View("piv", "int64", n)
        blas.getrf(G, piv, {impl = "native"})
        local o3, p3 = ("o%d.npy"):format(#jobs), ("p%d.npy"):format(#jobs)
        job(("getrf %s %s %s"):format(o3, p3, fg))
        expect(("getrf %s %s n=%d"):format(dt, lay, n), G, o3, dt)
        expect(("getrf pivots %s %s n=%d"):format(dt, lay, n), piv, p3, "pivots")
        local S = dominant("S", dt, {n, n}, lay)
        local R = make("R", dt, {n, 3}, lay)
        local fs, fr = save(S), save(R)
        blas.gesv(S, R, {impl = "native"})
        local o4 = ("o%d.npy"):format(#jobs)
        job(("gesv %s %s %s"):format(o4, fs, fr))
        expect(("gesv %s %s n=%d"):format(dt, lay, n), R, o4, dt)
      end
    end
  end
end)

group("batched gemm", function()
  -- batched gemm, mode "rows" (a work item per row of C): the unrolled square
  -- sizes (12, 15; 14 and 16 in their kernel of two rows a work item), the
  -- general loop (17, transposed), batches 0 and 1
  for _, dt in ipairs(FLOATS) do
    for _, lay in ipairs(LAYOUTS) do
      for _, c in ipairs({{0, 12, "N"}, {1, 5, "N"}, {30, 12, "N"}, {20, 15, "N"}, {10, 16, "N"},
                          {7, 14, "N"}, {12, 17, "N"}, {9, 15, "T"}}) do
        local nb, n, tb = c[1], c[2], c[3]
        local A = make("A", dt, {nb, n, n}, lay)
        local B = make("B", dt, {nb, n, n}, lay)
        local C = make("C", dt, {nb, n, n}, lay)
        local fa, fb, fc = save(A), save(B), save(C)
        batched.gemm("N", tb, 1.5, A, B, 0.5, C, {mode = "rows"})
        local out = ("o%d.npy"):format(#jobs)
        job(("gemm %s N %s 1.5 0.5 %s %s %s"):format(out, tb, fa, fb, fc))
        expect(("batched gemm N%s %s %s %dx%d rows"):format(tb, dt, lay, nb, n), C, out, dt)
      end
    end
  end

  -- batched gemm, the host's fast path (float64 and float32, square 2..16,
  -- mode auto = serial; kernels/batched/batched.c, dialect/linalg.h SK__SGT):
  -- every size it unrolls (batch 17: a work item's 16 and one more), beta 0
  -- over NaN and beta 0.5; then 3x3, 9x9, 15x15 in layouts right and left
  -- and a strided subview (batch 17 of a 20-matrix view, rows and columns
  -- offset), every trans pair; batches 0 and 1; sizes 1 and 17 beside it (the
  -- general kernel)
  local function fast_case(dt, lay, nb, n, ta, tb, beta, sub)
    local function operand(label, f)
      if not sub then return make(label, dt, {nb, n, n}, lay, f) end
      local big = make(label .. "big", dt, {nb + 3, n + 2, n + 3}, lay, f)
      return speck.subview(big, {1, nb + 1}, {2, n + 2}, {1, n + 1})
    end
    local A, B = operand("A"), operand("B")
    local C = operand("C", beta == 0 and function() return 0 / 0 end or nil)
    local fa, fb, fc = save(A), save(B), save(C)
    batched.gemm(ta, tb, 1.5, A, B, beta, C)
    local out = ("o%d.npy"):format(#jobs)
    job(("gemm %s %s %s 1.5 %s %s %s %s"):format(out, ta, tb, beta, fa, fb, fc))
    expect(("batched gemm (fast path) %s%s %s %s%s %dx%d beta=%s"):format(ta, tb, dt, lay,
           sub and " subview" or "", nb, n, beta), C, out, dt)
  end
  for _, dt in ipairs(FLOATS) do
    for n = 2, 16 do
      for _, beta in ipairs({0.0, 0.5}) do fast_case(dt, "right", 17, n, "N", "N", beta) end
    end
    for _, n in ipairs({3, 9, 15}) do
      for _, lay in ipairs({"right", "left", "sub"}) do
        for _, tt in ipairs({{"N", "N"}, {"N", "T"}, {"T", "N"}, {"T", "C"}}) do
          for _, beta in ipairs({0.0, 0.5}) do
            fast_case(dt, lay == "sub" and "right" or lay, 17, n, tt[1], tt[2], beta, lay == "sub")
          end
        end
      end
    end
    for _, c in ipairs({{0, 5}, {1, 5}, {1, 16}, {17, 1}, {17, 17}}) do
      for _, lay in ipairs(LAYOUTS) do fast_case(dt, lay, c[1], c[2], "N", "T", 0.5) end
    end
  end
end)

group("batched: every operation", function()
  -- batched: every operation at every level, batches 0, 1, 10,000 (3x3) and 40 of 17x17
  local MODES = {"serial", "team", "teamvector"}
  local BATCHES = {{0, 3}, {1, 5}, {10000, 3}, {40, 17}}

  for _, dt in ipairs(FLOATS) do
    for _, lay in ipairs(LAYOUTS) do
      for _, bn in ipairs(BATCHES) do
        local nb, n = bn[1], bn[2]
        if not (nb == 10000 and (dt ~= "float64" or lay ~= "right")) then
          for _, mode in ipairs((nb == 10000 or nb == 0) and {"serial"} or MODES) do
            local A = make("A", dt, {nb, n, n}, lay)
            local B = make("B", dt, {nb, n, n}, lay)
            local C = make("C", dt, {nb, n, n}, lay, function() return 0 / 0 end)
            local fa, fb, fc = save(A), save(B), save(C)
            batched.gemm("N", "T", 1.0, A, B, 0.0, C, {mode = mode})
            local out = ("o%d.npy"):format(#jobs)
            job(("gemm %s N T 1.0 0.0 %s %s %s"):format(out, fa, fb, fc))
            expect(("batched gemm NT %s %s %dx%d %s"):format(dt, lay, nb, n, mode), C, out, dt)
            -- the batch of 10,000: gemm, lu with pivoting and gesv (time)
            local big = nb == 10000
            local combos = nb == 40 and {{"L", "U", "N", "N"}, {"R", "L", "T", "U"}, {"L", "L", "T", "N"}, {"R", "U", "N", "U"}}
                           or big and {} or {{"L", "L", "N", "N"}, {"R", "U", "T", "U"}}
            for _, cb in ipairs(combos) do
              local T = dominant("T", dt, {nb, n, n}, lay)
              local ft = save(T)
              for _, op in ipairs({"trsm", "trmm"}) do
                local X = make("X", dt, {nb, n, n}, lay)
                local fx = save(X)
                batched[op](cb[1], cb[2], cb[3], cb[4], 2.0, T, X, {mode = mode})
                local o = ("o%d.npy"):format(#jobs)
                job(("%s %s %s %s %s %s 2.0 %s %s"):format(op, o, cb[1], cb[2], cb[3], cb[4], ft, fx))
                expect(("batched %s %s %s %s %dx%d %s"):format(op, table.concat(cb), dt, lay, nb, n, mode), X, o, dt)
              end
            end
            if not big then
            local T = dominant("T", dt, {nb, n, n}, lay)
            local ft = save(T)
            local info = batched.trtri("L", "N", T, {mode = mode})
            local o = ("o%d.npy"):format(#jobs)
            job(("trtri %s L N %s"):format(o, ft))
            expect(("batched trtri %s %s %dx%d %s"):format(dt, lay, nb, n, mode), T, o, dt)
            bcases[#bcases + 1] = {info = info, nb = nb}
            local L = dominant("L", dt, {nb, n, n}, lay)
            local fl = save(L)
            batched.lu(L, {mode = mode})
            local o5 = ("o%d.npy"):format(#jobs)
            job(("lunp %s %s"):format(o5, fl))
            expect(("batched lu (no pivoting) %s %s %dx%d %s"):format(dt, lay, nb, n, mode), L, o5, dt)
            end
            local P = make("P", dt, {nb, n, n}, lay)
            local fp = save(P)
            local _, ipiv = batched.lu(P, {pivot = true, mode = mode})
            local o6, p6 = ("o%d.npy"):format(#jobs), ("p%d.npy"):format(#jobs)
            job(("getrf %s %s %s"):format(o6, p6, fp))
            expect(("batched lu (pivoting) %s %s %dx%d %s"):format(dt, lay, nb, n, mode), P, o6, dt)
            expect(("batched lu pivots %s %s %dx%d %s"):format(dt, lay, nb, n, mode), ipiv, p6, "pivots")
            local S = dominant("S", dt, {nb, n, n}, lay)
            local R = make("R", dt, {nb, n, 2}, lay)
            local fs, fr = save(S), save(R)
            batched.gesv(S, R, {mode = mode})
            local o7 = ("o%d.npy"):format(#jobs)
            job(("gesv %s %s %s"):format(o7, fs, fr))
            expect(("batched gesv %s %s %dx%d %s"):format(dt, lay, nb, n, mode), R, o7, dt)
          end
        end
      end
    end
  end
end)

-- the in-kernel element loop's K (the gesv test below solves with it)
group("in-kernel teamvector_gemm", function()
  fe_case()
  -- oracle: B^T B + I
  local ok = ("o%d.npy"):format(#jobs)
  job(("gemm %s T N 1.0 1.0 %s %s %s"):format(ok, FE_FILES[1], FE_FILES[1], FE_FILES[2]))
  expect("in-kernel teamvector_gemm (FE element matrices)", KB, ok, "float64")
end)

-- NumPy and SciPy of Debian's /usr/bin/python3 (the GPU machines have none:
-- the oracle's specs are pending there, the rest run)
local HAVE_NUMPY = select(2, sh(PY .. " -c 'import numpy, scipy.linalg'")) == 0
-- group g's cases run and the oracle run on their jobs: their checks, or
-- false (pending) without NumPy
local function oracle(g)
  if not HAVE_NUMPY then
    pending("NumPy/SciPy (python3-numpy, python3-scipy) are not installed")
    return false
  end
  local j0, c0 = #jobs + 1, #checks + 1
  g.fn()
  local f = assert(io.open(DIR .. "/jobs", "w"))
  f:write(table.concat(jobs, "\n", j0, #jobs), "\n")
  f:close()
  local out, code = sh(PY .. " " .. HERE .. "/dense_oracle.py " .. DIR)
  assert.are.equal(0, code, out)
  return {table.unpack(checks, c0, #checks)}
end

describe("speck.blas levels 2-3, LAPACK and speck.batched on " .. SPACE, function()
  teardown(function() sh("rm -rf " .. DIR) end)

  for _, g in ipairs(GROUPS) do
    it("agree with NumPy / SciPy: " .. g.name, function()
      local b0 = #bcases
      local mine = oracle(g)
      if not mine then return end
      assert.is_true(#mine > 0, "no results")
      local bad = {}
      for _, c in ipairs(mine) do
        local want = speck.io.load_npy(DIR .. "/" .. c.out, {space = c.got:space()})
        if c.dt == "pivots" then
          local e = c.got:extents()
          local same = true
          if #e == 1 then for i = 0, e[1] - 1 do same = same and c.got(i) == want(i) end
          else for b = 0, e[1] - 1 do for i = 0, e[2] - 1 do same = same and c.got(b, i) == want(b, i) end end end
          if not same then bad[#bad + 1] = c.what end
        else
          local d = maxdiff(c.got, want)
          if not (d <= TOL[c.dt]) then bad[#bad + 1] = ("%s: relative error %g"):format(c.what, d) end
        end
      end
      assert.are.same({}, bad)
      for k = b0 + 1, #bcases do
        local b = bcases[k]
        assert.are.equal(b.nb, b.info:extent(0))
        for i = 0, b.nb - 1 do assert.are.equal(0, b.info(i)) end
      end
    end)
  end

  it("the in-kernel gesv solves each element system", function()
    fe_case()
    -- K x = f with K checked against the oracle above: the residual
    local K = KB
    local ne, n = K:extent(0), K:extent(1)
    for e = 0, ne - 1 do
      for r = 0, n - 1 do
        local s = 0
        for c = 0, n - 1 do s = s + K(e, r, c) * KE(e, c, 0) end
        assert.is_true(math.abs(s - KF(e, r, 0)) < 1e-10,
                       ("element %d row %d: K x = %.17g, f = %.17g"):format(e, r, s, KF(e, r, 0)))
      end
    end
  end)

  it("every in-kernel operation compiles for CUDA (NVRTC)", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then
      pending("NVRTC not available: " .. tostring(nv and nv.reason))
      return
    end
    local caps = {A = speck.View("A", "float64", {3, 4, 4}), F = speck.View("F", "float32", {3, 4, 4}),
                  P = speck.View("P", "int64", {3, 4})}
    local k = speck.kernel("dense_cuda_serial", "range", caps, [[
      sk_mat a = matrix(A, i); sk_matf f = matrix(F, i);
      serial_gemm('N', 'T', 1.0, a, a, 0.0, a); serial_gemm('T', 'N', 1.0f, f, f, 0.0f, f);
      serial_trsm('L', 'U', 'N', 'N', 1.0, a, a); serial_trmm('R', 'L', 'T', 'U', 2.0f, f, f);
      sk_i64 s = serial_trtri('U', 'N', a) + serial_lu(f) + serial_getrf(a, &P(i, 0), 1)
               + serial_potrf('L', f);
      serial_getrs(a, &P(i, 0), 1, a); s += serial_gesv(f, &P(i, 0), 1, f);
      P(i, 0) = s;]], {target = "cuda"})
    assert.is_not_nil(k)
    k = speck.kernel("dense_cuda_team", "team", caps, [[
      const sk_i64 l = team.league_rank;
      sk_mat a = matrix(A, l); sk_matf f = matrix(F, l);
      sk_mat s = matrix_scratch(team, 0, 4, 4);
      team_gemm(team, 'N', 'T', 1.0, a, a, 0.0, s); teamvector_gemm(team, 'T', 'N', 1.0f, f, f, 0.0f, f);
      team_trsm(team, 'L', 'U', 'N', 'N', 1.0, a, a); teamvector_trmm(team, 'R', 'L', 'T', 'U', 2.0f, f, f);
      teamvector_trsm(team, 'L', 'U', 'N', 'N', 1.0, a, a); team_trmm(team, 'R', 'L', 'T', 'U', 2.0f, f, f);
      sk_i64 x = team_trtri(team, 'U', 'N', a) + teamvector_trtri(team, 'U', 'N', f) + team_lu(team, f)
               + teamvector_lu(team, a) + team_getrf(team, a, &P(l, 0), 1) + teamvector_getrf(team, f, &P(l, 0), 1);
      x += team_gesv(team, a, &P(l, 0), 1, a) + teamvector_gesv(team, f, &P(l, 0), 1, f);
      if (team.team_rank == 0) P(l, 0) = x;]], {target = "cuda"})
    assert.is_not_nil(k)
  end)

  it("the host's gemm fast path matches the packed kernel bit for bit, n = 2 .. 16", function()
    if not ON_HOST then return pending("host only: the fast path and packed views are the host's") end
    for _, dt in ipairs(FLOATS) do
      for n = 2, 16 do
        for _, beta in ipairs({0.0, 0.5}) do
          local A, B = make("A", dt, {21, n, n}), make("B", dt, {21, n, n})
          local C = make("C", dt, {21, n, n})
          local Ap, Bp, Cp = batched.pack(A), batched.pack(B), batched.pack(C)
          batched.gemm("N", "N", 1.5, A, B, beta, C)
          batched.gemm("N", "N", 1.5, Ap, Bp, beta, Cp)
          local U = speck.View("U", dt, {21, n, n})
          batched.unpack(Cp, U)
          local diff = speck.parallel_reduce("fast_bits", speck.MDRangePolicy({0, 0, 0}, {21, n, n}),
            {u = U, c = C}, "if (u(i, j, k) != c(i, j, k)) acc += 1;")
          assert.are.equal(0, diff, ("%s n = %d, beta = %s"):format(dt, n, beta))
        end
      end
    end
  end)

  it("the fast path's in-place loop matches the packed kernel bit for bit: alpha 1 and not, beta 0 and not, a batch stride of its own, batches past one work item size", function()
    -- sk__sgb_<type><n> (dialect/linalg.h SK__SGB) runs when A, B and C
    -- are all row major in place; it has loops of its own for beta != 0,
    -- beta 0 with alpha 1 (no multiply) and beta 0; rows 0 .. n-1 of an
    -- (nb, n + 1, n) view are row major with a batch stride (n + 1) n; a
    -- batch of 33,000 makes work items of 32 matrices (the last one short)
    if not ON_HOST then return pending("host only: the fast path and packed views are the host's") end
    local function fill(v, seed)
      speck.parallel_for("sgb_fill", speck.MDRangePolicy({0, 0, 0}, v:extents()), {v = v, s0 = seed},
        [[uint32_t s = (uint32_t)(((i * 131 + j) * 17 + k) * 2654435761u + (uint32_t)s0);
          s ^= s >> 13; s *= 1103515245u; s ^= s >> 16;
          v(i, j, k) = (double)(s >> 8) / 16777216.0 - 0.5;]])
    end
    for _, dt in ipairs(FLOATS) do
      for n = 2, 16 do
        local sizes = (n == 2 or n == 3) and {17, 33000} or {17}
        for _, nb in ipairs(sizes) do
          for _, sub in ipairs(nb == 17 and {false, true} or {false}) do
            local function operand(label, seed)
              local v = speck.View(label, dt, {nb, sub and n + 1 or n, n})
              fill(v, seed)
              return sub and speck.subview(v, {0, nb}, {0, n}, {0, n}) or v
            end
            local A, B = operand("A", 1), operand("B", 2)
            for _, alpha in ipairs({1.0, 1.5}) do
              for _, beta in ipairs({0.0, 0.5}) do
                local C = operand("C", 3)
                local Ap, Bp, Cp = batched.pack(A), batched.pack(B), batched.pack(C)
                batched.gemm("N", "N", alpha, A, B, beta, C)
                batched.gemm("N", "N", alpha, Ap, Bp, beta, Cp)
                local U = speck.View("U", dt, {nb, n, n})
                batched.unpack(Cp, U)
                local diff = speck.parallel_reduce("sgb_bits", speck.MDRangePolicy({0, 0, 0}, {nb, n, n}),
                  {u = U, c = C}, "if (!(u(i, j, k) == c(i, j, k))) acc += 1;")
                assert.are.equal(0, diff, ("%s n = %d, batch %d%s, alpha = %s, beta = %s"):format(
                  dt, n, nb, sub and " (batch stride (n + 1) n)" or "", alpha, beta))
              end
            end
          end
        end
      end
    end
  end)

  it("the fast path's streamed C (stream = true) is the cached one bit for bit, n = 2 .. 16", function()
    -- batches 1, 17, 40 and (3x3, 9x9, 16x16) 600: streamed work items of
    -- 256 matrices, the last one short; C written through a one-matrix
    -- buffer with non-temporal stores (AVX-512 gcc builds) or copied
    -- (elsewhere); stream = true over beta != 0 is the plain path
    for _, dt in ipairs(FLOATS) do
      for n = 2, 16 do
        for _, nb in ipairs((n == 3 or n == 9 or n == 16) and {1, 17, 40, 600} or {1, 17, 40}) do
          local A, B = make("A", dt, {nb, n, n}), make("B", dt, {nb, n, n})
          for _, alpha in ipairs({1.0, 1.5}) do
            local C1 = speck.View("C1", dt, {nb, n, n}):fill(0 / 0)
            local C2 = speck.View("C2", dt, {nb, n, n}):fill(0 / 0)
            batched.gemm("N", "N", alpha, A, B, 0.0, C1, {stream = false})
            batched.gemm("N", "N", alpha, A, B, 0.0, C2, {stream = true})
            local diff = speck.parallel_reduce("stream_bits", speck.MDRangePolicy({0, 0, 0}, {nb, n, n}),
              {u = C1, c = C2}, "if (!(u(i, j, k) == c(i, j, k))) acc += 1;")
            assert.are.equal(0, diff, ("%s n = %d, batch %d, alpha %s"):format(dt, n, nb, alpha))
          end
        end
      end
      local A, B = make("A", dt, {17, 9, 9}), make("B", dt, {17, 9, 9})
      local C1, C2 = make("C1", dt, {17, 9, 9}), speck.View("C2", dt, {17, 9, 9})
      speck.deep_copy(C2, C1)
      batched.gemm("N", "N", 1.5, A, B, 0.5, C1, {stream = false})
      batched.gemm("N", "N", 1.5, A, B, 0.5, C2, {stream = true})
      local diff = speck.parallel_reduce("stream_beta", speck.MDRangePolicy({0, 0, 0}, {17, 9, 9}),
        {u = C1, c = C2}, "if (!(u(i, j, k) == c(i, j, k))) acc += 1;")
      assert.are.equal(0, diff, dt .. " beta 0.5")
    end
  end)

  it("packed views (batched.pack) give the unpacked results bit for bit, every operation", function()
    for _, dt in ipairs(FLOATS) do
      for _, nb in ipairs({0, 1, 13, 40}) do
        local n = nb == 40 and 4 or 3
        local function pair(f)   -- an unpacked view and its packed copy
          local V = (f or make)("V", dt, {nb, n, n})
          return V, batched.pack(V, dt == "float64" and 8 or 4)
        end
        local function same(V, P, what)
          local U = speck.View("U", dt, {nb, n, n})
          batched.unpack(P, U)
          assert.are.equal(0, maxdiff(U, V), what .. " " .. dt .. " batch " .. nb)
          for b = 0, nb - 1 do
            for i = 0, n - 1 do for j = 0, n - 1 do
              if U(b, i, j) ~= V(b, i, j) then assert.are.equal(V(b, i, j), U(b, i, j), what) end
            end end
          end
        end
        local A, Ap = pair()
        local B, Bp = pair()
        local C, Cp = pair()
        batched.gemm("N", "N", 1.5, A, B, 0.5, C)
        batched.gemm("N", "N", 1.5, Ap, Bp, 0.5, Cp)
        same(C, Cp, "gemm (vectorised across the batch)")
        batched.gemm("T", "N", 1.0, A, B, 0.0, C, {mode = "team"})
        batched.gemm("T", "N", 1.0, Ap, Bp, 0.0, Cp, {mode = "team"})
        same(C, Cp, "gemm T")
        local T, Tp = pair(function(l, d, dims) return dominant(l, d, dims) end)
        batched.trsm("L", "U", "N", "N", 2.0, T, B)
        batched.trsm("L", "U", "N", "N", 2.0, Tp, Bp)
        same(B, Bp, "trsm")
        batched.trmm("R", "L", "T", "U", 0.5, T, B)
        batched.trmm("R", "L", "T", "U", 0.5, Tp, Bp)
        same(B, Bp, "trmm")
        batched.trtri("U", "N", T)
        batched.trtri("U", "N", Tp)
        same(T, Tp, "trtri")
        local L, Lp = pair(function(l, d, dims) return dominant(l, d, dims) end)
        batched.lu(L)
        batched.lu(Lp)
        same(L, Lp, "lu")
        local G, Gp = pair()
        local _, p1 = batched.lu(G, {pivot = true})
        local _, p2 = batched.lu(Gp, {pivot = true})
        same(G, Gp, "lu with pivoting")
        for b = 0, nb - 1 do for k = 0, n - 1 do assert.are.equal(p1(b, k), p2(b, k)) end end
        local S, Sp = pair(function(l, d, dims) return dominant(l, d, dims) end)
        local R, Rp = pair()
        batched.gesv(S, R)
        batched.gesv(Sp, Rp)
        same(R, Rp, "gesv")
      end
    end
    local ok, e = pcall(batched.pack, speck.View("V", "float64", {2, 3, 3}), 0)
    assert.is_false(ok)
    assert.matches("speck.batched.pack: width 0 is out of range %(1 .. 64%)", e)
    ok, e = pcall(batched.unpack, batched.pack(speck.View("V", "float64", {9, 3, 3})),
                  speck.View("W", "float64", {20, 3, 3}))
    assert.is_false(ok)
    assert.matches("speck.batched.unpack: P %(view 'V %(packed%)', float64 2x3x3x8%) is not a packed form of V %(view 'W', float64 20x3x3%)", e)
  end)

  it("a strided subview works as a matrix (gemm)", function()
    local big = make("big", "float64", {40, 40})
    local A = speck.subview(big, {0, 20}, {0, 20})
    local B = speck.subview(big, {20, 40}, {20, 40})
    local C = speck.View("C", "float64", {20, 20})
    blas.gemm("N", "N", 1.0, A, B, 0.0, C)
    for i = 0, 19, 5 do
      for j = 0, 19, 3 do
        local s = 0
        for k = 0, 19 do s = s + big(i, k) * big(20 + k, 20 + j) end
        assert.is_true(math.abs(C(i, j) - s) < 1e-12 * 20)
      end
    end
  end)

  it("vendor and native agree within 1e-12 (OpenBLAS on the host, cuBLAS on a GPU)", function()
    if not VENDOR then
      pending("no vendor BLAS on this space: " .. (BV.note or BV.gpu or SPACE))
      return
    end
    local n = 150
    for _, lay in ipairs(LAYOUTS) do
      local A, B = make("A", "float64", {n, n}, lay), make("B", "float64", {n, n}, lay)
      local C1, C2 = speck.View("C1", "float64", {n, n}, {layout = lay}), speck.View("C2", "float64", {n, n}, {layout = lay})
      blas.gemm("T", "N", 1.0, A, B, 0.0, C1, {impl = "native"})
      blas.gemm("T", "N", 1.0, A, B, 0.0, C2, {impl = "vendor"})
      assert.is_true(maxdiff(C1, C2) < 1e-12)
      local S1, S2 = spd("S", "float64", n, lay), nil
      S2 = copy(S1)
      blas.potrf("L", S1, {impl = "native"})
      blas.potrf("L", S2, {impl = "vendor"})
      assert.is_true(maxdiff(S1, S2) < 1e-12)
      local T1 = dominant("T", "float64", {n, n}, lay)
      local T2 = copy(T1)
      local X1 = make("X", "float64", {n, 7}, lay)
      local X2 = copy(X1)
      blas.trsm("L", "U", "T", "N", 1.0, T1, X1, {impl = "native"})
      blas.trsm("L", "U", "T", "N", 1.0, T2, X2, {impl = "vendor"})
      assert.is_true(maxdiff(X1, X2) < 1e-12)
      blas.trtri("U", "N", T1, {impl = "native"})
      blas.trtri("U", "N", T2, {impl = "vendor"})
      assert.is_true(maxdiff(T1, T2) < 1e-12)
      local G1 = make("G", "float64", {n, n}, lay)
      local G2 = copy(G1)
      local p1, p2 = speck.View("p1", "int32", n), speck.View("p2", "int32", n)
      blas.getrf(G1, p1, {impl = "native"})
      blas.getrf(G2, p2, {impl = "vendor"})
      assert.is_true(maxdiff(G1, G2) < 1e-12)
      for i = 0, n - 1 do assert.are.equal(p1(i), p2(i)) end
    end
  end)

  it("speck.info() reports the vendor library or why it is missing", function()
    local v = speck.info().blas_vendor
    assert.is_boolean(v.available)
    assert.is_string(v.available and v.host or v.note)
    local out = sh("SPECK_OPENBLAS=libnosuch.so.0 " .. (os.getenv("SPECK_BIN") or "build/bin/speck") ..
                   [[ -e 'local b = require "speck.blas"; local A = speck.View("A","float64",{2,2}):fill(1);]] ..
                   [[ local C = speck.View("C","float64",{2,2}); b.gemm("N","N",1,A,A,0,C,{impl="vendor"});]] ..
                   [[ print(C(0,0), speck.info().blas_vendor.note)']])
    assert.matches("^2%.?0?%s+OpenBLAS not available %(libnosuch", out)
  end)

  it("a singular or non-SPD matrix names the call and the pivot; a batch names the matrix", function()
    local A = speck.View("A", "float64", {3, 3}):fill(1)
    local ok, e = pcall(blas.potrf, "L", A)
    assert.is_false(ok)
    assert.matches("speck.blas.potrf: A %(view 'A'%) is not positive definite: the leading minor of order 2", e)
    local S = speck.View("S", "float64", {3, 3}):fill(1)
    ok, e = pcall(blas.getrf, S, speck.View("p", "int64", 3), {impl = "native"})
    assert.is_false(ok)
    assert.matches("speck.blas.getrf: A %(view 'S'%) is singular: pivot 1 is zero", e)
    local Z = speck.View("Z", "float64", {3, 3})
    ok, e = pcall(blas.trtri, "U", "N", Z)
    assert.matches("speck.blas.trtri: A %(view 'Z'%) is singular: pivot 0 is zero", e)
    local Bt = make("Bt", "float64", {4, 3, 3})
    for i = 0, 2 do for j = 0, 2 do Bt:set(2, i, j, 1) end end
    ok, e = pcall(batched.lu, Bt, {pivot = true})
    assert.matches("speck.batched.lu: matrix 2 of A %(view 'Bt'%) is singular: pivot 1 is zero %(1 of 4", e)
    local info = batched.lu(Bt, {pivot = true, check = false})
    assert.are.equal(0, info(0))
    assert.are.equal(0, info(1))
    assert.is_true(info(2) > 0)
    assert.are.equal(3, speck.View("ok", "float64", 3):fill(3)(0))
  end)

  it("bad input is refused with a clear message, the views keep their data", function()
    local A = speck.View("A", "float64", {3, 4}):fill(2)
    local B = speck.View("B", "float64", {5, 6}):fill(1)
    local C = speck.View("C", "float64", {3, 6}):fill(7)
    local function err(f, ...) local ok, e = pcall(f, ...); assert.is_false(ok); return e end
    assert.matches("speck.blas.gemm: shapes do not match: op%(A%) is 3x4, op%(B%) 5x6, C 3x6",
                   err(blas.gemm, "N", "N", 1, A, B, 0, C))
    assert.matches("speck.blas.gemm: transA must be \"N\" | \"T\" | \"C\" %(got \"X\"%)",
                   err(blas.gemm, "X", "N", 1, A, B, 0, C))
    assert.matches("speck.blas.potrf: A %(view 'A'%) is 3x4: a square matrix expected",
                   err(blas.potrf, "L", A))
    assert.matches("speck.blas.trtri: A %(view 'A'%) is 3x4: a square matrix expected",
                   err(blas.trtri, "U", "N", A))
    assert.matches("speck.blas.getrf: ipiv %(view 'p'%) has 2 elements, the factorisation 3 pivots",
                   err(blas.getrf, A, speck.View("p", "int64", 2)))
    assert.matches("speck.blas.gemm: A %(view 'I'%) is int32: float64 or float32 expected",
                   err(blas.gemm, "N", "N", 1, speck.View("I", "int32", {3, 5}), B, 0, C))
    assert.matches("speck.blas.gemm: B %(view 'F'%) is float32, the other matrices float64",
                   err(blas.gemm, "N", "N", 1, speck.View("A2", "float64", {3, 5}), speck.View("F", "float32", {5, 6}), 0, C))
    assert.matches("speck.blas.gemm: impl must be \"native\" | \"vendor\" | \"auto\" %(got \"fast\"%)",
                   err(blas.gemm, "N", "N", 1, speck.View("A3", "float64", {3, 5}), B, 0, C, {impl = "fast"}))
    assert.matches("speck.blas.trsm: shapes do not match: A is 3x4, B 5x6",
                   err(blas.trsm, "L", "U", "N", "N", 1, A, B))
    assert.matches("speck.blas.gemv: A must be a view", err(blas.gemv, "N", 1, nil, B, 0, C))
    assert.matches("speck.batched.gemm: batch sizes differ: A is 2x3x3, B 3x3x3",
                   err(batched.gemm, "N", "N", 1, speck.View("a", "float64", {2, 3, 3}),
                       speck.View("b", "float64", {3, 3, 3}), 0, speck.View("c", "float64", {2, 3, 3})))
    assert.matches("speck.batched.gemm: A %(view 'a'%) is rank 2, expected rank 3",
                   err(batched.gemm, "N", "N", 1, speck.View("a", "float64", {3, 3}),
                       speck.View("b", "float64", {3, 3, 3}), 0, speck.View("c", "float64", {3, 3, 3})))
    assert.matches("speck.batched.gemm: mode must be \"serial\" | \"team\" | \"teamvector\" | \"auto\" %(got \"simd\"; or \"rows\"%)",
                   err(batched.gemm, "N", "N", 1, speck.View("a", "float64", {3, 3, 3}),
                       speck.View("b", "float64", {3, 3, 3}), 0, speck.View("c", "float64", {3, 3, 3}), {mode = "simd"}))
    assert.matches("speck.batched.gemm: impl must be \"native\" | \"vendor\" | \"auto\" %(got \"fast\"%)",
                   err(batched.gemm, "N", "N", 1, speck.View("a", "float64", {3, 3, 3}),
                       speck.View("b", "float64", {3, 3, 3}), 0, speck.View("c", "float64", {3, 3, 3}), {impl = "fast"}))
    assert.matches("speck.batched.gemm: stream must be true or false %(got \"yes\"%)",
                   err(batched.gemm, "N", "N", 1, speck.View("a", "float64", {3, 3, 3}),
                       speck.View("b", "float64", {3, 3, 3}), 0, speck.View("c", "float64", {3, 3, 3}), {stream = "yes"}))
    assert.matches("speck.batched.gemm: stream must be true or false %(got a number%)",
                   err(batched.gemm, "N", "N", 1, speck.View("a", "float64", {3, 3, 3}),
                       speck.View("b", "float64", {3, 3, 3}), 0, speck.View("c", "float64", {3, 3, 3}), {stream = 2}))
    assert.matches("speck.batched.trsm: mode must be \"serial\" | \"team\" | \"teamvector\" | \"auto\" %(got \"rows\"%)",
                   err(batched.trsm, "L", "L", "N", "N", 1, speck.View("t", "float64", {3, 3, 3}),
                       speck.View("u", "float64", {3, 3, 3}), {mode = "rows"}))
    assert.matches("speck.batched.gesv: A %(view 'r'%) is 2x3x4: gesv needs square matrices",
                   err(batched.gesv, speck.View("r", "float64", {2, 3, 4}), speck.View("s", "float64", {2, 3, 1})))
    -- the views keep their data and the VM works
    assert.are.equal(2, A(2, 3))
    assert.are.equal(7, C(2, 5))
    blas.gemm("N", "N", 1, A, speck.View("B4", "float64", {4, 6}):fill(1), 0, C)
    assert.are.equal(8, C(1, 1))
  end)
end)
