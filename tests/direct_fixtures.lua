-- direct_fixtures.lua: what spsolve_spec.lua and lu_levels_spec.lua share
-- (loaded with dofile by both): the nonsymmetric test matrices (2D upwind
-- convection-diffusion, its rows shifted off the diagonal, a 3D one, a
-- random sparse one, a Matrix Market file with zeros on its diagonal) in
-- the back end's default space, right-hand sides, the SciPy spsolve
-- oracle (tests/direct_oracle.py, SPECK_PYTHON or /usr/bin/python3), the
-- backward error and the error against the oracle.
--   local F = dofile(HERE .. "/direct_fixtures.lua")(DIR)
local speck = require "speck"
local sparse = require "speck.sparse"

return function(DIR)
  local F = {}
  local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
  local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
  local ORACLE = HERE .. "/direct_oracle.py"
  local MEM = speck.View("probe", "float64", 1):space()
  F.MEM = MEM
  function F.sh(cmd)
    local p = assert(io.popen(cmd .. " 2>&1", "r"))
    local out = p:read("a")
    local ok = p:close()
    return out, ok
  end
  local sh = F.sh

  function F.err_of(f, ...)
    local ok, e = pcall(f, ...)
    if ok then error("expected an error; the call succeeded", 2) end
    return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
  end

  function F.host(v)
    if v:space() == "host" then return v end
    return speck.create_mirror_view_and_copy("host", v)
  end

  function F.coo()
    local t = {r = {}, c = {}, v = {}}
    function t.add(i, j, x)
      local k = #t.r + 1
      t.r[k], t.c[k], t.v[k] = i, j, x
    end
    function t.matrix(n, m) return sparse.from_coo(n, m or n, t.r, t.c, t.v, {space = MEM}) end
    return t
  end

  -- upwind convection-diffusion on an m x m grid; 'shift' moves row i to i - 2
  -- (cyclically: no entry stays on the diagonal)
  function F.convdiff(m, shift)
    local t, n = F.coo(), m * m
    for y = 0, m - 1 do
      for x = 0, m - 1 do
        local i = y * m + x
        local r = shift and (i + n - 2) % n or i
        t.add(r, i, 4 + 0.9)
        if x > 0 then t.add(r, i - 1, -1 - 0.6) end
        if x < m - 1 then t.add(r, i + 1, -1 + 0.3) end
        if y > 0 then t.add(r, i - m, -1 - 0.2) end
        if y < m - 1 then t.add(r, i + m, -1 + 0.1) end
      end
    end
    return t.matrix(n)
  end

  -- 3D convection-diffusion on an m^3 grid (the top separators are wide
  -- supernodes: blocked, their updates by gemm)
  function F.convdiff3(m)
    local t, n = F.coo(), m * m * m
    for z = 0, m - 1 do
      for y = 0, m - 1 do
        for x = 0, m - 1 do
          local i = (z * m + y) * m + x
          t.add(i, i, 6.5)
          if x > 0 then t.add(i, i - 1, -1.6) end
          if x < m - 1 then t.add(i, i + 1, -0.7) end
          if y > 0 then t.add(i, i - m, -1.2) end
          if y < m - 1 then t.add(i, i + m, -0.9) end
          if z > 0 then t.add(i, i - m * m, -1.3) end
          if z < m - 1 then t.add(i, i + m * m, -0.8) end
        end
      end
    end
    return t.matrix(n)
  end

  -- a random sparse nonsymmetric matrix (an LCG: the same on every run)
  function F.randmat(n, per_row)
    local t, s = F.coo(), 12345
    local function rnd()
      s = (s * 1103515245 + 12345) % 2147483648
      return s / 2147483648
    end
    for i = 0, n - 1 do
      local seen = {[i] = true}
      t.add(i, i, 0.5 + rnd())
      for _ = 1, per_row do
        local j = math.floor(rnd() * n)
        if not seen[j] then
          seen[j] = true
          t.add(i, j, 2 * rnd() - 1)
        end
      end
    end
    return t.matrix(n)
  end

  function F.mm_matrix()
    local path = DIR .. "/general_in.mtx"
    local f = assert(io.open(path, "w"))
    f:write("%%MatrixMarket matrix coordinate real general\n% zeros on the diagonal\n6 6 12\n",
            "1 2 3.5\n2 1 -2\n2 3 1\n3 4 4\n4 3 -1.5\n4 5 2\n5 6 7\n6 5 1\n6 1 0.25\n",
            "1 6 -3\n3 2 0.5\n5 4 1\n")
    f:close()
    local A = sparse.read_mm(path)
    if MEM == "host" then return A end
    return sparse.CrsMatrix{nrows = 6, ncols = 6, rowptr = speck.create_mirror_view_and_copy(MEM, A.rowptr),
                            colidx = speck.create_mirror_view_and_copy(MEM, A.colidx),
                            values = speck.create_mirror_view_and_copy(MEM, A.values)}
  end

  function F.rhs(n, scale)
    local h = speck.View("b", "float64", n, {space = "host"})
    for i = 0, n - 1 do h:set(i, (scale or 1) * (1 + (i % 7) / 7)) end
    if MEM == "host" then return h end
    local d = speck.View("b", "float64", n, {space = MEM})
    speck.deep_copy(d, h)
    return d
  end

  -- a rank-1 view of the values of Lua array t (dtype dt, default
  -- float64) in A's space
  function F.vec(t, dt)
    local h = speck.View.from(t, dt or "float64")
    if MEM == "host" then return h end
    local d = speck.View(h:label(), dt or "float64", #t, {space = MEM})
    speck.deep_copy(d, h)
    return d
  end

  -- three right-hand sides as the columns of an n x 3 view in A's space
  -- (layout right), the scales 1, -3 and 0.5 of rhs(n)'s
  F.SCALES = {1, -3, 0.5}
  function F.rhs3(n)
    local Bh = speck.View("B", "float64", {n, 3}, {space = "host"})
    for i = 0, n - 1 do
      for j, s in ipairs(F.SCALES) do Bh:set(i, j - 1, s * (1 + (i % 7) / 7)) end
    end
    if MEM == "host" then return Bh end
    local B = speck.View("B", "float64", {n, 3}, {space = MEM, layout = "right"})
    speck.deep_copy(B, Bh)
    return B
  end

  -- the largest rel_error of X's columns (the solutions of rhs3) against
  -- ref scaled as rhs3 scales b
  function F.rel_error3(X, ref)
    local Xh, n, e = F.host(X), X:extent(0), 0
    for j, s in ipairs(F.SCALES) do
      local xj = speck.View("xj", "float64", n, {space = "host"})
      for i = 0, n - 1 do xj:set(i, Xh(i, j - 1)) end
      e = math.max(e, F.rel_error(xj, ref, s))
    end
    return e
  end

  -- a 3 x 3 matrix with zeros on its diagonal and b = (1, 2, 3) (x = (1.4,
  -- 0.5, 0.2)), in A's space
  function F.zero_diag3()
    local t = F.coo()
    t.add(0, 1, 2) t.add(1, 0, 1) t.add(1, 2, 3) t.add(2, 1, 4) t.add(2, 2, 5)
    local b = speck.View.from({1, 2, 3}, "float64")
    if MEM ~= "host" then b = speck.create_mirror_view_and_copy(MEM, b) end
    return t.matrix(3), b
  end

  -- the matrices of 'mats' ({name, make} each) made, written to DIR and
  -- solved by SciPy's spsolve when SciPy is there: A_OF[name], REF[name]
  -- (x as a Lua array; nil without SciPy: then x is checked by its residual
  -- alone), HAVE_SCIPY
  function F.load(mats)
    local A_OF, REF = {}, {}
    for _, m in ipairs(mats) do
      A_OF[m.name] = m.make()
      sparse.write_mm(DIR .. "/" .. m.name .. ".mtx", A_OF[m.name])
    end
    local have = select(2, sh(PY .. " -c 'import scipy.sparse.linalg, networkx'"))
    if have then
      local names = {}
      for _, m in ipairs(mats) do names[#names + 1] = m.name end
      local out, ok = sh(PY .. " " .. ORACLE .. " spsolve " .. DIR .. " " .. table.concat(names, " "))
      assert(ok, out)
      for _, nm in ipairs(names) do
        local x = {}
        for line in io.lines(DIR .. "/" .. nm .. ".x") do x[#x + 1] = tonumber(line) end
        REF[nm] = x
      end
    end
    return A_OF, REF, have
  end

  -- ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), on the host
  function F.berr(A, x, b)
    local rp, ci, va, xh, bh = F.host(A.rowptr), F.host(A.colidx), F.host(A.values), F.host(x), F.host(b)
    local rn, an, xn, bn = 0, 0, 0, 0
    for i = 0, A:nrows() - 1 do
      local s, a = bh(i), 0
      for p = rp(i), rp(i + 1) - 1 do
        s = s - va(p) * xh(ci(p))
        a = a + math.abs(va(p))
      end
      rn, an = math.max(rn, math.abs(s)), math.max(an, a)
      xn, bn = math.max(xn, math.abs(xh(i))), math.max(bn, math.abs(bh(i)))
    end
    return rn / (an * xn + bn)
  end

  -- max |x - ref| / max |ref| (0 without SciPy: berr checks x then)
  function F.rel_error(x, ref, scale)
    if not ref then return 0 end
    local xh, e, s = F.host(x), 0, 0
    for i = 1, #ref do
      e = math.max(e, math.abs(xh(i - 1) - (scale or 1) * ref[i]))
      s = math.max(s, math.abs((scale or 1) * ref[i]))
    end
    return e / s
  end
  return F
end
