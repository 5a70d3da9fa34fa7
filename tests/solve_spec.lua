local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"
-- solve_spec.lua: speck.solve's Krylov methods and point preconditioners
-- against SciPy (tests/solve_oracle.py, Debian's python3-scipy run once
-- per spec run with /usr/bin/python3 on matrices written here): CG,
-- BiCGStab and GMRES with no preconditioner, Jacobi, l1-Jacobi and
-- Gauss-Seidel (sequential, multicolor, symmetric) on SPD matrices (2D
-- and 3D Poisson, a variable-coefficient Poisson, the miniFE 27-point
-- hex8 matrix) and BiCGStab / GMRES on a nonsymmetric convection-diffusion
-- one, every solution within 1e-6 of spsolve's; PCG iteration counts
-- strictly below CG's; multicolor Gauss-Seidel converging to the same
-- tolerance on every back end; the info table's fields exact, the
-- residual histories; the operator as a user body, the preconditioner as
-- a body, a Lua function or an object of the preconditioner contract;
-- bad inputs with their exact messages, the VM usable after each. On a
-- GPU, speck.jit.stats() shows the device kernels that ran. tests/run.sh
-- runs it once per back end; every matrix and vector is in the default
-- space.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/solve_oracle.py"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local SPACE = speck.info().default_space
local MEM = speck.View("probe", "float64", 1):space()
local ON_HOST = SPACE ~= "cuda"

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v)
  if v:space() == "host" then return v end
  return speck.create_mirror_view_and_copy("host", v)
end

-- -- matrices ------------------------------------------------------------------------
local function coo()
  local t = {r = {}, c = {}, v = {}}
  function t.add(i, j, x)
    local k = #t.r + 1
    t.r[k], t.c[k], t.v[k] = i, j, x
  end
  function t.matrix(n) return sparse.from_coo(n, n, t.r, t.c, t.v, {space = MEM}) end
  return t
end

-- 5-point Poisson on an m x m grid, coefficient k(x, y) (nil: 1) on the
-- cell faces
local function poisson2d(m, k)
  local t = coo()
  k = k or function() return 1 end
  for y = 0, m - 1 do
    for x = 0, m - 1 do
      local i, d = y * m + x, 0
      for _, o in ipairs({{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) do
        local a = k(x + o[1] / 2, y + o[2] / 2)
        d = d + a
        local xx, yy = x + o[1], y + o[2]
        if xx >= 0 and xx < m and yy >= 0 and yy < m then t.add(i, yy * m + xx, -a) end
      end
      t.add(i, i, d)
    end
  end
  return t.matrix(m * m)
end

local function poisson3d(m)
  local t = coo()
  for z = 0, m - 1 do
    for y = 0, m - 1 do
      for x = 0, m - 1 do
        local i = (z * m + y) * m + x
        t.add(i, i, 6)
        for _, o in ipairs({{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}) do
          local xx, yy, zz = x + o[1], y + o[2], z + o[3]
          if xx >= 0 and xx < m and yy >= 0 and yy < m and zz >= 0 and zz < m then
            t.add(i, (zz * m + yy) * m + xx, -1)
          end
        end
      end
    end
  end
  return t.matrix(m * m * m)
end

-- examples/cg.lua's miniFE matrix: hex8 elements on an n^3 box, boundary
-- rows the identity, interior rows the 27-point stencil (couplings to
-- boundary nodes kept as explicit zeros)
local function minife(n)
  local np, h, t = n + 1, 1.0 / n, coo()
  for iz = 0, np - 1 do
    for iy = 0, np - 1 do
      for ix = 0, np - 1 do
        local i = ix + np * (iy + np * iz)
        local inn = ix > 0 and ix < np - 1 and iy > 0 and iy < np - 1 and iz > 0 and iz < np - 1
        if not inn then
          t.add(i, i, 1.0)
        else
          for dz = -1, 1 do
            for dy = -1, 1 do
              for dx = -1, 1 do
                local jx, jy, jz = ix + dx, iy + dy, iz + dz
                local nz = (dx ~= 0 and 1 or 0) + (dy ~= 0 and 1 or 0) + (dz ~= 0 and 1 or 0)
                local jb = jx == 0 or jx == np - 1 or jy == 0 or jy == np - 1 or jz == 0 or jz == np - 1
                local v = nz == 0 and 8.0 / 3.0 or nz == 1 and 0.0 or nz == 2 and -2.0 / 12.0 or -1.0 / 12.0
                t.add(i, jx + np * (jy + np * jz), jb and 0.0 or v * h)
              end
            end
          end
        end
      end
    end
  end
  return t.matrix(np * np * np)
end

-- upwinded convection-diffusion -lap u + c . grad u on an m x m grid
local function convdiff(m, cx, cy)
  local t = coo()
  for y = 0, m - 1 do
    for x = 0, m - 1 do
      local i = y * m + x
      t.add(i, i, 4 + cx + cy)
      if x > 0 then t.add(i, i - 1, -1 - cx) end
      if x < m - 1 then t.add(i, i + 1, -1) end
      if y > 0 then t.add(i, i - m, -1 - cy) end
      if y < m - 1 then t.add(i, i + m, -1) end
    end
  end
  return t.matrix(m * m)
end

local MATS = {
  {name = "poisson2d", spd = true, make = function() return poisson2d(24) end},
  {name = "poisson3d", spd = true, make = function() return poisson3d(9) end},
  {name = "varcoef", spd = true, make = function()
    return poisson2d(20, function(x, y) return 1 + 50 * ((math.floor(x) + math.floor(y)) % 3) end)
  end},
  {name = "minife", spd = true, make = function() return minife(8) end},
  {name = "convdiff", spd = false, make = function() return convdiff(20, 0.8, 0.4) end},
}

-- b_i = 1 + (i mod 7) / 7, as the oracle makes it
local function rhs(n)
  local h = speck.View("b", "float64", n, {space = "host"})
  for i = 0, n - 1 do h:set(i, 1 + (i % 7) / 7) end
  if MEM == "host" then return h end
  return speck.create_mirror_view_and_copy(MEM, h)
end

-- the oracle's solutions, once
local REF = {}
local HAVE_SCIPY = select(2, sh(PY .. " -c 'import scipy.sparse.linalg'"))
local A_OF = {}
for _, m in ipairs(MATS) do
  A_OF[m.name] = m.make()
  sparse.write_mm(DIR .. "/" .. m.name .. ".mtx", A_OF[m.name])
end
if HAVE_SCIPY then
  local names = {}
  for _, m in ipairs(MATS) do names[#names + 1] = m.name end
  local out, ok = sh(PY .. " " .. ORACLE .. " " .. DIR .. " " .. table.concat(names, " "))
  assert(ok, out)
  for _, nm in ipairs(names) do
    local x = {}
    for line in io.lines(DIR .. "/" .. nm .. ".x") do
      local c0, c1 = line:match("^cg (%d+) (%d+)")
      if c0 then
        x.cg, x.jcg = tonumber(c0), tonumber(c1)
      elseif not line:match("^resid") then
        x[#x + 1] = tonumber(line)
      end
    end
    REF[nm] = x
  end
end

-- max |x - ref| / max |ref|
local function rel_error(x, ref)
  local xh, e, s = host(x), 0, 0
  for i = 1, #ref do
    e = math.max(e, math.abs(xh(i - 1) - ref[i]))
    s = math.max(s, math.abs(ref[i]))
  end
  return e / s
end

-- {name, preconditioner} of A, those for which want(name) (default: every
-- one; only those are set up)
local function preconds(A, want)
  local all = {
    {"none", function() return nil end},
    {"jacobi", function() return solve.jacobi(A) end},
    {"l1-jacobi", function() return solve.jacobi(A, {l1 = true}) end},
    {"gs", function() return solve.gauss_seidel(A, {symmetric = false, multicolor = false}) end},
    {"sgs", function() return solve.gauss_seidel(A, {symmetric = true, multicolor = false}) end},
    {"mc-gs", function() return solve.gauss_seidel(A, {symmetric = false, multicolor = true}) end},
    {"mc-sgs", function() return solve.gauss_seidel(A) end},
  }
  local out = {}
  for _, pc in ipairs(all) do
    if not want or want(pc[1]) then out[#out + 1] = {pc[1], pc[2]()} end
  end
  return out
end

local TOL = 1e-10

local function check_info(info, tol)
  local keys = {}
  for k in pairs(info) do keys[#keys + 1] = k end
  table.sort(keys)
  assert.are.same({"history", "iters", "reason", "resid"}, keys)
  assert.are.equal("integer", math.type(info.iters))
  assert.are.equal("converged", info.reason)
  assert.is_true(info.resid <= tol, "resid " .. info.resid)
  assert.are.equal(info.iters + 1, #info.history)
  assert.are.equal(1.0, info.history[1])   -- x0 = 0: r0 = b
  assert.is_true(info.history[#info.history] <= tol)
end

describe("speck.solve on " .. SPACE, function()

  describe("solutions against SciPy's spsolve", function()
    for _, m in ipairs(MATS) do
      local methods = m.spd and {"cg", "bicgstab", "gmres"} or {"bicgstab", "gmres"}
      for _, meth in ipairs(methods) do
        it(("%s on %s with every preconditioner"):format(meth, m.name), function()
          if not HAVE_SCIPY then
            pending("python3-scipy is not installed (scripts/install-deps.sh)")
            return
          end
          local A = A_OF[m.name]
          local b = rhs(A:nrows())
          -- CG needs a symmetric preconditioner: the forward-only GS is not
          local function fits(nm) return meth ~= "cg" or (nm ~= "gs" and nm ~= "mc-gs") end
          for _, pc in ipairs(preconds(A, fits)) do
            local x, info = solve[meth](A, b, {tol = TOL, maxiter = 5000, precond = pc[2]})
            check_info(info, TOL)
            local e = rel_error(x, REF[m.name])
            assert.is_true(e < 1e-6, ("%s %s %s: error %g"):format(meth, m.name, pc[1], e))
          end
        end)
      end
    end
  end)

  describe("preconditioned CG iteration counts", function()
    it("Jacobi and symmetric Gauss-Seidel strictly below CG where the diagonal varies (l1-Jacobi on varcoef)", function()
      for _, nm in ipairs({"varcoef", "minife"}) do
        local A = A_OF[nm]
        local b = rhs(A:nrows())
        local _, i0 = solve.cg(A, b, {tol = 1e-8})
        -- l1-Jacobi halves miniFE's interior rows against its identity
        -- boundary rows: 17 iterations against CG's 16 there
        local function fits(p)
          return p ~= "none" and p ~= "gs" and p ~= "mc-gs" and (p ~= "l1-jacobi" or nm == "varcoef")
        end
        for _, pc in ipairs(preconds(A, fits)) do
          local _, info = solve.cg(A, b, {tol = 1e-8, precond = pc[2]})
          assert.are.equal("converged", info.reason)
          assert.is_true(info.iters < i0.iters,
            ("%s %s: %d iterations, CG %d"):format(nm, pc[1], info.iters, i0.iters))
        end
      end
    end)

    it("symmetric Gauss-Seidel (sequential and multicolor) strictly below CG on Poisson", function()
      for _, nm in ipairs({"poisson2d", "poisson3d"}) do
        local A = A_OF[nm]
        local b = rhs(A:nrows())
        local _, i0 = solve.cg(A, b, {tol = 1e-8})
        for _, mc in ipairs({false, true}) do
          local P = solve.gauss_seidel(A, {symmetric = true, multicolor = mc})
          local _, info = solve.cg(A, b, {tol = 1e-8, precond = P})
          assert.is_true(info.iters < i0.iters,
            ("%s mc=%s: %d, CG %d"):format(nm, tostring(mc), info.iters, i0.iters))
        end
      end
    end)

    it("CG and Jacobi-PCG take SciPy's cg's iterations (within 1) on every SPD matrix", function()
      if not HAVE_SCIPY then
        pending("python3-scipy is not installed (scripts/install-deps.sh)")
        return
      end
      for _, m in ipairs(MATS) do
        if m.spd then
          local A = A_OF[m.name]
          local b = rhs(A:nrows())
          local _, i0 = solve.cg(A, b, {tol = 1e-8})
          local _, i1 = solve.cg(A, b, {tol = 1e-8, precond = solve.jacobi(A)})
          assert.is_true(math.abs(i0.iters - REF[m.name].cg) <= 1,
            ("%s: CG %d, SciPy %d"):format(m.name, i0.iters, REF[m.name].cg))
          assert.is_true(math.abs(i1.iters - REF[m.name].jcg) <= 1,
            ("%s: Jacobi-PCG %d, SciPy %d"):format(m.name, i1.iters, REF[m.name].jcg))
        end
      end
    end)

    it("on constant-diagonal Poisson Jacobi is a scaling: CG's iterations exactly", function()
      local A = A_OF.poisson2d
      local b = rhs(A:nrows())
      local _, i0 = solve.cg(A, b, {tol = 1e-8})
      local _, i1 = solve.cg(A, b, {tol = 1e-8, precond = solve.jacobi(A)})
      assert.are.equal(i0.iters, i1.iters)
    end)
  end)

  describe("multicolor Gauss-Seidel", function()
    it("converges to the same tolerance (1e-10) on this back end, as a smoother and in PCG", function()
      for _, nm in ipairs({"poisson2d", "poisson3d", "minife", "convdiff"}) do
        local A = A_OF[nm]
        local b = rhs(A:nrows())
        local P = solve.gauss_seidel(A, {multicolor = true, symmetric = true, sweeps = 2, omega = 1.2})
        assert.is_true(P:info().ncolors >= 2)
        local meth = nm == "convdiff" and "gmres" or "cg"
        local _, info = solve[meth](A, b, {tol = TOL, maxiter = 2000, precond = P})
        check_info(info, TOL)
      end
    end)

    it("its colors are a valid coloring: one sweep from zero on a diagonal-free pattern", function()
      -- on the 1D Laplacian two colors suffice; GS from z = 0 with r = e_k
      -- touches only k's color then its neighbours
      local t = coo()
      local n = 9
      for i = 0, n - 1 do
        t.add(i, i, 2)
        if i > 0 then t.add(i, i - 1, -1) end
        if i < n - 1 then t.add(i, i + 1, -1) end
      end
      local A = t.matrix(n)
      local P = solve.gauss_seidel(A, {symmetric = false})
      assert.are.equal(2, P:info().ncolors)
      assert.are.same({kind = "gauss_seidel", rows = n, symmetric = false, multicolor = true,
                       sweeps = 1, omega = 1.0, ncolors = 2}, P:info())
      local z = host(P(rhs(n)))
      -- forward sweep by colors: first color's rows get r_i / 2, the
      -- second's (r_i + z_{i-1} + z_{i+1}) / 2 with the first's values
      local first = z(0) == (1 + 0 / 7) / 2
      local r = function(i) return 1 + (i % 7) / 7 end
      for i = 0, n - 1 do
        local own = (i % 2 == 0) == first
        local want = own and r(i) / 2
                     or (r(i) + (i > 0 and r(i - 1) / 2 or 0) + (i < n - 1 and r(i + 1) / 2 or 0)) / 2
        assert.is_true(math.abs(z(i) - want) < 1e-15, ("z(%d) = %g, want %g"):format(i, z(i), want))
      end
    end)
  end)

  describe("float32", function()
    it("every method and preconditioner solves a float32 system to 1e-5", function()
      local t = coo()
      local m = 16
      for y = 0, m - 1 do
        for x = 0, m - 1 do
          local i = y * m + x
          t.add(i, i, 4)
          if x > 0 then t.add(i, i - 1, -1) end
          if x < m - 1 then t.add(i, i + 1, -1) end
          if y > 0 then t.add(i, i - m, -1) end
          if y < m - 1 then t.add(i, i + m, -1) end
        end
      end
      local A = sparse.from_coo(m * m, m * m, t.r, t.c, t.v, {space = MEM, dtype = "float32"})
      local b = speck.View("b", "float32", m * m)
      speck.deep_copy(b, 1.0)
      for _, meth in ipairs({"cg", "bicgstab", "gmres"}) do
        for _, P in ipairs({false, solve.jacobi(A), solve.gauss_seidel(A, {symmetric = true, multicolor = false}),
                            solve.gauss_seidel(A, {symmetric = true, multicolor = true})}) do
          local x, info = solve[meth](A, b, {tol = 1e-5, precond = P or nil})
          assert.are.equal("float32", x:dtype())
          assert.are.equal("converged", info.reason)
          assert.is_true(info.resid <= 1e-5)
        end
      end
    end)
  end)

  describe("residual histories and info", function()
    it("GMRES' history never increases; CG's falls by 1e-10 in windows", function()
      local A = A_OF.poisson2d
      local b = rhs(A:nrows())
      local _, g = solve.gmres(A, b, {tol = TOL, restart = 20, maxiter = 5000})
      for k = 2, #g.history do
        assert.is_true(g.history[k] <= g.history[k - 1] * (1 + 1e-12), "GMRES history rose at " .. k)
      end
      local _, c = solve.cg(A, b, {tol = TOL})
      local best = math.huge
      for k = 1, #c.history, 10 do
        local lo = math.huge
        for q = k, math.min(k + 9, #c.history) do lo = math.min(lo, c.history[q]) end
        assert.is_true(lo < best, "CG made no progress in iterations " .. k .. ".." .. k + 9)
        best = lo
      end
    end)

    it("maxiter stops with reason 'maxiter', iters = maxiter and the true residual", function()
      local A = A_OF.poisson3d
      local b = rhs(A:nrows())
      for _, meth in ipairs({"cg", "bicgstab", "gmres"}) do
        local x, info = solve[meth](A, b, {tol = 1e-14, maxiter = 3})
        assert.are.equal("maxiter", info.reason)
        assert.are.equal(3, info.iters)
        assert.are.equal(4, #info.history)
        -- resid is ||b - A x|| / ||b|| of the x returned
        local r = speck.View("r", "float64", A:nrows())
        speck.deep_copy(r, b)
        sparse.spmv("N", -1.0, A, x, 1.0, r)
        local rh, bh, rr, bb = host(r), host(b), 0, 0
        for i = 0, A:nrows() - 1 do rr, bb = rr + rh(i) ^ 2, bb + bh(i) ^ 2 end
        assert.is_true(math.abs(info.resid - math.sqrt(rr / bb)) <= 1e-12 * info.resid)
      end
    end)

    it("a singular A stops with reason 'breakdown' and the true residual of the x returned", function()
      local A = sparse.from_coo(2, 2, {0, 1}, {0, 1}, {1.0, 0.0}, {space = MEM})
      local bh = speck.View.from({1.0, 1.0}, "float64", {space = "host"})
      local b = MEM == "host" and bh or speck.create_mirror_view_and_copy(MEM, bh)
      for _, meth in ipairs({"cg", "bicgstab", "gmres"}) do
        local x, info = solve[meth](A, b)
        assert.are.equal("breakdown", info.reason, meth)
        assert.are.equal(info.iters + 1, #info.history, meth)
        local xh = host(x)
        -- b - A x = (1 - x0, 1): ||.|| / sqrt(2)
        local want = math.sqrt((1 - xh(0)) ^ 2 + 1) / math.sqrt(2)
        assert.is_true(math.abs(info.resid - want) < 1e-14, meth .. " resid " .. info.resid)
      end
    end)

    it("x0 is the start: the exact solution stops at once, b = 0 gives x = 0", function()
      local A = A_OF.poisson2d
      local b = rhs(A:nrows())
      local x = solve.cg(A, b, {tol = TOL})
      local x2, info = solve.cg(A, b, {tol = 1e-6, x0 = x})
      assert.are.equal(0, info.iters)
      assert.are.equal("converged", info.reason)
      assert.is_true(info.history[1] <= 1e-6 and #info.history == 1)
      assert.are_not.equal(x, x2)
      local z = speck.View("z", "float64", A:nrows())
      local x3, i3 = solve.gmres(A, z)
      assert.are.same({iters = 0, resid = 0, reason = "converged", history = {0}}, i3)
      assert.are.equal(0, host(x3)(5))
    end)
  end)

  describe("operators and preconditioners of every kind", function()
    local m = 16
    local OP = {n = m * m, captures = {m = m}, body = [[
      const int64_t xx = i % m, yy = i / m;
      double s = 4 * x(i);
      if (xx > 0) s -= x(i - 1);
      if (xx < m - 1) s -= x(i + 1);
      if (yy > 0) s -= x(i - m);
      if (yy < m - 1) s -= x(i + m);
      y(i) = s;
    ]]}

    it("a user body as the operator gives the matrix's solution", function()
      local A = poisson2d(m)
      local b = rhs(m * m)
      local xa = host(solve.cg(A, b, {tol = TOL}))
      for _, meth in ipairs({"cg", "bicgstab", "gmres"}) do
        local x, info = solve[meth](OP, b, {tol = TOL, maxiter = 2000})
        check_info(info, TOL)
        local xh = host(x)
        for i = 0, m * m - 1 do assert.is_true(math.abs(xh(i) - xa(i)) < 1e-7 * xa(i)) end
      end
    end)

    it("a body, a function and a contract object as preconditioners give Jacobi's iterations", function()
      local A = A_OF.varcoef
      local b = rhs(A:nrows())
      local J = solve.jacobi(A)
      local _, ij = solve.cg(A, b, {precond = J})
      local d = J._args.M_dinv
      local _, ib = solve.cg(A, b, {precond = {body = "z(i) = d(i) * rv(i);", captures = {d = d}}})
      local calls = 0
      local _, ifn = solve.cg(A, b, {precond = function(r, z) calls = calls + 1; J:apply(r, z) end})
      local obj = {n = A:nrows(), space = A:space()}
      function obj:apply(r, z) return J:apply(r, z) end
      local _, io_ = solve.bicgstab(A, b, {precond = obj})
      local _, ij2 = solve.bicgstab(A, b, {precond = J})
      assert.are.equal(ij.iters, ib.iters)
      assert.are.equal(ij.iters, ifn.iters)
      assert.are.equal(ij2.iters, io_.iters)
      assert.are.equal(ifn.iters + 1, calls)   -- one application per iteration, and the first
      assert.are.same(J:info(), {kind = "jacobi", rows = A:nrows(), l1 = false, omega = 1.0})
      assert.are.equal(A:nrows(), J.n)
      assert.are.equal(A:space(), J.space)
    end)

    it("P(r) and P:apply(r, z) agree; apply writes into z", function()
      local A = A_OF.minife
      local r = rhs(A:nrows())
      for _, pc in ipairs(preconds(A, function(nm) return nm ~= "none" end)) do
        if pc[2] then
          local z1 = host(pc[2](r))
          local z = speck.View("z", "float64", A:nrows())
          assert.are.equal(z, pc[2]:apply(r, z))
          local z2 = host(z)
          for i = 0, A:nrows() - 1, 37 do assert.are.equal(z1(i), z2(i)) end
        end
      end
    end)
  end)

  describe("the fused kernels", function()
    local function launches(label)
      local s, tiers = 0, {}
      for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
        if k.label == label then
          s = s + k.launches
          tiers[#tiers + 1] = k.tier
        end
      end
      return s, tiers
    end

    it("CG: one fused SpMV-and-dots reduction per iteration", function()
      local A = A_OF.minife
      local b = rhs(A:nrows())
      -- the plain or the compact-index form (kernels/sparse/csr16.c), with
      -- value codes or not (vdict.c); a GPU reads the dots after the SpMV
      local function fused()
        -- or by diagonals (kernels/sparse/dia.c), SpMV and dots in one launch
        local dia = launches("sparse.cg_dia_dots") + launches("sparse.cg_dia_dots_row")
        if not ON_HOST then return launches("solve.cg_dots") + dia end
        return launches("solve.cg_spmv_dots") + launches("solve.cg_spmv16_dots") +
               launches("solve.cg_spmv16v_dots") + dia
      end
      local before = fused()
      local _, info = solve.cg(A, b, {tol = 1e-8, precond = solve.jacobi(A)})
      assert.are.equal(before + info.iters + 1, fused())
    end)

    it("BiCGStab and GMRES: one read (host-result reduction) per iteration", function()
      local A = A_OF.convdiff
      local b = rhs(A:nrows())
      local reads = {"solve.dot", "solve.resid", "solve.bicg_dots", "solve.cg_dots",
                     "solve.cg_spmv_dots", "solve.cg_spmv16_dots", "solve.cg_spmv16v_dots",
                     "sparse.cg_dia_dots", "sparse.cg_dia_dots_row"}
      local function count()
        local s = 0
        for _, l in ipairs(reads) do s = s + launches(l) end
        return s
      end
      local before, bd = count(), launches("solve.bicg_dots")
      local _, info = solve.bicgstab(A, b, {tol = 1e-8, precond = solve.jacobi(A)})
      assert.are.equal(bd + info.iters, launches("solve.bicg_dots"))
      -- b'b, the first and the last true residual besides
      assert.is_true(count() - before <= info.iters + 3, (count() - before) .. " reads")
      local m0 = launches("solve.gmres_mdot")
      local _, g = solve.gmres(A, b, {tol = 1e-8, restart = 200})
      -- one team launch (one read) per iteration, a second when DGKS reorthogonalises
      assert.is_true(launches("solve.gmres_mdot") - m0 >= g.iters)
      assert.is_true(launches("solve.gmres_mdot") - m0 <= 2 * g.iters)
    end)

    it("on a GPU the solvers' kernels ran on the device", function()
      if ON_HOST then
        pending("host back end " .. SPACE .. ": no device kernels to check")
        return
      end
      local A = A_OF.poisson3d
      local b = rhs(A:nrows())
      solve.cg(A, b, {precond = solve.gauss_seidel(A, {symmetric = true})})
      solve.gmres(A, b, {precond = solve.jacobi(A)})
      solve.bicgstab(A, b)
      -- a vector in host memory is refused: the solve runs where A lives
      local bh = speck.View("bh", "float64", A:nrows(), {space = "host"})
      assert.are.equal(("speck.solve.cg: A is in space '%s', b (view 'bh') in 'host': the solve runs where A lives"):format(A:space()),
                       err_of(solve.cg, A, bh))
      for _, lab in ipairs({"solve.cg_dots", "solve.cg_step", "solve.gs_color",
                            "solve.gmres_mdot", "solve.gmres_orth", "solve.jacobi_apply",
                            "solve.bicg_dots", "solve.jacobi_diag"}) do
        local n, tiers = launches(lab)
        if lab == "solve.cg_dots" and n == 0 then -- a stencil's CG by diagonals (dia.c)
          n, tiers = launches("sparse.cg_dia_dots_row")
        end
        assert.is_true(n > 0, lab .. " did not launch")
        -- earlier host-space solves of this file count too: one device tier is enough
        local device = false
        for _, t in ipairs(tiers) do
          if t ~= "precompiled" and t ~= "tcc" and t ~= "cc" then device = true end
        end
        assert.is_true(device, lab .. " ran only at host tiers: " .. table.concat(tiers, ", "))
      end
    end)
  end)

  describe("bad input", function()
    local A = A_OF.poisson2d            -- 576 rows
    local n = A:nrows()
    local b = rhs(n)
    local small = poisson2d(10)        -- 100 rows
    local function usable()
      local _, info = solve.cg(A, b, {tol = 1e-6})
      assert.are.equal("converged", info.reason)
    end

    it("a preconditioner of another size", function()
      local P = solve.jacobi(small)
      assert.are.equal("speck.solve.cg: the preconditioner (jacobi) has 100 rows, A has 576",
                       err_of(solve.cg, A, b, {precond = P}))
      assert.are.equal("speck.solve.gmres: the preconditioner (gauss_seidel) has 100 rows, A has 576",
                       err_of(solve.gmres, A, b, {precond = solve.gauss_seidel(small)}))
      local obj = {n = 7, kind = "ilu", apply = function() end}
      assert.are.equal("speck.solve.bicgstab: the preconditioner (ilu) has 7 rows, A has 576",
                       err_of(solve.bicgstab, A, b, {precond = obj}))
      local far = {n = n, kind = "amg", space = "elsewhere", apply = function() end}
      assert.are.equal(("speck.solve.cg: the preconditioner (amg) is in space 'elsewhere', A in '%s'"):format(A:space()),
                       err_of(solve.cg, A, b, {precond = far}))
      assert.are.equal("speck.solve.cg: the preconditioner (body) has 5 rows, A has 576",
                       err_of(solve.cg, A, b, {precond = {n = 5, body = "z(i) = rv(i);"}}))
      usable()
    end)

    it("GMRES restart 0, maxiter 0 and negative, tol negative, restart elsewhere", function()
      assert.are.equal("speck.solve.gmres: restart 0 must be at least 1",
                       err_of(solve.gmres, A, b, {restart = 0}))
      assert.are.equal("speck.solve.cg: maxiter 0 must be at least 1",
                       err_of(solve.cg, A, b, {maxiter = 0}))
      assert.are.equal("speck.solve.bicgstab: maxiter -4 must be at least 1",
                       err_of(solve.bicgstab, A, b, {maxiter = -4}))
      assert.are.equal("speck.solve.gmres: tol -1 must be a non-negative number",
                       err_of(solve.gmres, A, b, {tol = -1}))
      assert.are.equal("speck.solve.cg: unknown option 'restart' (valid: maxiter, precond, tol, x0)",
                       err_of(solve.cg, A, b, {restart = 10}))
      usable()
    end)

    it("b and x0 of the wrong length or dtype", function()
      local b100 = rhs(100)
      assert.are.equal(("speck.solve.cg: A has 576 rows, b (view '%s') has 100"):format(
                         b100:label()), err_of(solve.cg, A, b100))
      assert.are.equal(("speck.solve.gmres: A has 576 rows, x0 (view '%s') has 100"):format(
                         b100:label()), err_of(solve.gmres, A, b, {x0 = b100}))
      local b32 = speck.View("b32", "float32", n)
      assert.are.equal("speck.solve.bicgstab: A is float64, b (view 'b32') is float32",
                       err_of(solve.bicgstab, A, b32))
      usable()
    end)

    it("NaN or Inf in b, A or x0 is named", function()
      local bh = speck.View("bad", "float64", n, {space = "host"})
      speck.deep_copy(bh, 1.0)
      bh:set(7, 0 / 0)
      local bad = MEM == "host" and bh or speck.create_mirror_view_and_copy(MEM, bh)
      assert.are.equal("speck.solve.cg: the right-hand side b (view '" .. bad:label() .. "') holds a NaN at row 7",
                       err_of(solve.cg, A, bad))
      bh:set(7, 1.0)
      bh:set(9, math.huge)
      bad = MEM == "host" and bh or speck.create_mirror_view_and_copy(MEM, bh)
      assert.are.equal("speck.solve.gmres: the initial guess x0 (view '" .. bad:label() .. "') holds an Inf at row 9",
                       err_of(solve.gmres, A, b, {x0 = bad}))
      local t = coo()
      for i = 0, 9 do
        t.add(i, i, 2)
        if i > 0 then t.add(i, i - 1, i == 4 and 0 / 0 or -1) end
      end
      assert.are.equal("speck.solve.bicgstab: the operator A holds a NaN at row 4, column 3",
                       err_of(solve.bicgstab, t.matrix(10), rhs(10)))
      usable()
    end)

    it("preconditioner set-ups: a zero diagonal, omega out of range, options", function()
      local t = coo()
      for i = 0, 5 do
        if i ~= 3 then t.add(i, i, 2) end
        t.add(i, (i + 1) % 6, -1)
      end
      local Z = t.matrix(6)
      assert.are.equal("speck.solve.jacobi: A's diagonal at row 3 is 0: zero, missing or not finite",
                       err_of(solve.jacobi, Z))
      assert.are.equal("speck.solve.gauss_seidel: A's diagonal at row 3 is 0: zero, missing or not finite",
                       err_of(solve.gauss_seidel, Z))
      assert.are.equal("speck.solve.gauss_seidel: omega 2.5 must be in (0, 2)",
                       err_of(solve.gauss_seidel, A, {omega = 2.5}))
      assert.are.equal("speck.solve.gauss_seidel: sweeps must be a positive integer, got 0",
                       err_of(solve.gauss_seidel, A, {sweeps = 0}))
      assert.are.equal("speck.solve.jacobi: omega -1 must be a positive number",
                       err_of(solve.jacobi, A, {omega = -1}))
      assert.are.equal("speck.solve.jacobi: unknown option 'sweeps' (valid: l1, omega)",
                       err_of(solve.jacobi, A, {sweeps = 2}))
      assert.are.equal("speck.solve.cg: A must be a CrsMatrix or a body {n =, body =, captures =}, got number",
                       err_of(solve.cg, 3, b))
      usable()
    end)

    it("a failing Lua preconditioner is named with the iteration; a non-SPD one is refused", function()
      local k = 0
      local function boom(r, z)
        k = k + 1
        if k == 3 then error("boom", 0) end
        speck.deep_copy(z, r)
      end
      assert.are.equal("speck.solve.cg: the preconditioner (callback) failed at iteration 2: boom",
                       err_of(solve.cg, A, b, {precond = boom}))
      local neg = function(r, z) speck.deep_copy(z, r); require("speck.blas").scal(-1.0, z) end
      local bh, bb = host(b), 0
      for i = 0, n - 1 do bb = bb + bh(i) ^ 2 end
      assert.are.equal(("speck.solve.cg: r'z = %g at iteration 1: the preconditioner is not positive definite"):format(-bb),
                       err_of(solve.cg, A, b, {precond = neg}))
      usable()
    end)
  end)
end)
