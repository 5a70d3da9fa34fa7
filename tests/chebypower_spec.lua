-- chebypower_spec.lua: the power iteration that bounds the spectrum of
-- D^-1 A for the Chebyshev smoother (solve.cheby_setup, kernels/solve/
-- cheby.c): on the host each step is one pass, the SpMV fused with the
-- step's reductions (solve.cheby_power_fused*, cheby.sk), in its three
-- forms (plain CSR, the compact index, the compact index with value
-- codes), each against a Lua power iteration of the same steps; a device
-- keeps the SpMV and the separate step (its launches counted under cuda);
-- the bodies compile for the GPU target.
local speck = require "speck"
local sparse = require "speck.sparse"
local core = require "speck.core"

local SPACE = speck.info().default_space
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/amg_fixtures.lua")
local coo = F.coo

-- the launches of the kernels labelled 'label'
local launches = F.launches

-- the start vector of cheby_rand (splitmix64 of the row, in [-0.5, 0.5))
local function start(i)
  local z = i * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  z = z ~ (z >> 31)
  return (z >> 11) * (1.0 / 9007199254740992.0) - 0.5
end

-- lambda_max of D^-1 A by 'iters' power steps as cheby.c makes them,
-- from the entries {i, j, v} (0-based) of an n x n matrix
local function lua_lambda(n, e, iters)
  local rows, d = {}, {}
  for i = 0, n - 1 do rows[i], d[i] = {}, 0 end
  for _, t in ipairs(e) do
    local r = rows[t[1]]
    r[#r + 1] = t
    if t[1] == t[2] then d[t[1]] = d[t[1]] + t[3] end
  end
  local x = {}
  for i = 0, n - 1 do x[i] = start(i) end
  local s, lam = 1.0, 0.0
  for _ = 1, iters do
    local xy, xdx, nn, xn = 0.0, 0.0, 0.0, {}
    for i = 0, n - 1 do
      local y = 0.0
      for _, t in ipairs(rows[i]) do y = y + t[3] * x[t[2]] end
      local di = 1.0 / d[i]
      xy = xy + x[i] * y
      xdx = xdx + x[i] * x[i] / di
      xn[i] = s * di * y
      nn = nn + xn[i] * xn[i]
    end
    lam = xy / xdx
    s = 1.0 / math.sqrt(nn)
    x = xn
  end
  return lam
end

local function setup(A, iters)
  local _, o = core.call("solve.cheby_setup", sparse._margs({iters = iters}, "A", A))
  return o.lambda_max
end

-- a symmetric matrix: a 1D chain with a few longer links, 'vals' distinct
-- off-diagonal values (few: value codes; many: none), 'far' a link of
-- row 0 to row n - 1 (past the compact index's int16 offsets), 'spread'
-- links of 37 more offsets (not a stencil's: no diagonal form)
local function chain(n, vals, far, spread)
  local e = {}
  local function link(i, j, v) e[#e + 1] = {i, j, v}; e[#e + 1] = {j, i, v} end
  for i = 0, n - 1 do e[#e + 1] = {i, i, 4.0 + (i % 3)} end
  for i = 0, n - 2 do link(i, i + 1, -0.5 - (i % vals) / vals) end
  for i = 0, n - 8, 7 do link(i, i + 7, -0.25 - ((i // 7) % vals) / (2 * vals)) end
  if far then link(0, n - 1, -0.125) end
  if spread then
    for i = 0, n - 50, 5 do link(i, i + 9 + (i // 5) % 37, -0.0625) end
  end
  return n, e
end

describe("the Chebyshev bound's power steps on " .. SPACE, function()
  local cases = {
    {"value codes", "solve.cheby_power_fused16v", chain(3000, 4, false, true)},
    -- a stencil's offsets with value codes: by diagonals (sparse.spmv's,
    -- then the step: the same sums, kernels/sparse/dia.c)
    {"by diagonals", "sparse.spmv_dia", chain(3000, 4, false)},
    {"the compact index", "solve.cheby_power_fused16", chain(3000, 1000, false)},
    {"plain CSR", "solve.cheby_power_fused", chain(40000, 4, true)},
  }
  for _, c in ipairs(cases) do
    local name, label, n, e = c[1], c[2], c[3], c[4]
    it("equal a Lua power iteration (" .. name .. ")", function()
      local A = coo(n, e)
      local before = launches(label)
      local dev0 = launches("solve.cheby_power")
      local lam = setup(A, 10)
      local ref = lua_lambda(n, e, 10)
      assert.is_true(math.abs(lam - ref) <= 1e-12 * math.abs(ref), ("%.17g against %.17g"):format(lam, ref))
      if A:space() == "host" then
        assert.are.equal(10, launches(label) - before)
      else
        assert.are.equal(0, launches(label) - before)
        assert.is_true(launches("solve.cheby_power") - dev0 >= 10)
        if SPACE == "cuda" then
          assert.is_true(F.device_launches("solve.cheby_power") > 0, "no device power step")
        end
      end
    end)
  end

  it("the bodies compile for the GPU target (NVRTC, compile only)", function()
    local V = function(dt, n) return speck.View("v", dt, n or 8) end
    local vecs = function(t)
      t.x, t.xo, t.dinv, t.s = V("float64"), V("float64"), V("float64"), {"float64", 1.0}
      return t
    end
    local jobs = {
      {"cheby_power_fused", vecs{rowptr = V("int64", 9), colidx = V("int32"), values = V("float64")}},
      {"cheby_power_fused16", vecs{rowptr = V("int32", 9), off = V("int16"), values = V("float64")}},
      {"cheby_power_fused16v", vecs{rowptr = V("int32", 9), off = V("int16"), vcode = V("uint8"),
                                    vtab = V("float64")}},
    }
    local sum = {op = "sum", dtype = "float64"}
    local ok, why = F.nvrtc_solve("chebypower_gpu_", "range", jobs,
                                  {pattern = "reduce", reducer = {sum, sum, sum}})
    if not ok then pending(why) end
  end)
end)
