local speck = require "speck"
local blas = require "speck.blas"
-- libcall_spec.lua: the library call's prepared path (issue 31's launch
-- floor), on the space chosen by SPECK_SPACE: speck.blas level 1 bound by
-- core.bind to entries that take their arguments by position, and every
-- library body's launch kept per thread (exec's sk_lprep) and launched
-- again in place. A kept launch must give way whenever what it was made
-- for changes -- the views' dtype, layout, stride or aliasing, a scalar's
-- type -- and a call must count as a launch of its kernel (speck.jit.stats),
-- on a GPU one of a device kernel. Data are small integers: every result
-- is exact in float32 and float64.

local SPACE = speck.info().default_space
local ON_HOST = SPACE ~= "cuda"

-- a view of 'dt' (opts: layout) holding first, first + 1, ...
local function seq(label, dt, n, first, opts)
  local v = speck.View(label, dt, n, opts)
  speck.parallel_for("libcall_spec_seq", n, {v = v, f = first}, "v(i) = f + i;")
  speck.fence()
  return v
end

local function values(v)
  speck.fence()
  return v:totable()
end

-- launches of the kernels labelled 'label', summed over their entries, and
-- the tiers that ran them
local function launches(label)
  local n, tiers = 0, {}
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label and k.launches > 0 then
      n = n + k.launches
      tiers[k.tier] = true
    end
  end
  return n, tiers
end

describe("library calls on " .. SPACE .. " (prepared launches)", function()
  it("dot, axpy, scal alternating dtypes and layouts give exact results", function()
    local kinds = {{"float64"}, {"float32"}, {"float64", "left"}, {"float32", "left"},
                   {"float64"}, {"float32"}, {"float64"}}
    for _, k in ipairs(kinds) do
      local dt, layout = k[1], k[2]
      local opts = layout and {layout = layout} or nil
      local n = 9
      local x, y = seq("x", dt, n, 1, opts), seq("y", dt, n, 10, opts)
      for _ = 1, 3 do -- again and again: the kept launch
        local want = 0
        for i = 0, n - 1 do want = want + (1 + i) * (10 + i) end
        assert.are.equal(want, blas.dot(x, y), dt)
      end
      blas.axpy(2, x, y)  -- y = 2x + y, an integer 'a'
      local ys = values(y)
      for i = 0, n - 1 do assert.are.equal(2 * (1 + i) + 10 + i, ys[i + 1], dt) end
      blas.scal(0.5, y)   -- a float 'a'
      ys = values(y)
      for i = 0, n - 1 do assert.are.equal((2 * (1 + i) + 10 + i) / 2, ys[i + 1], dt) end
      assert.are.equal(n * (n + 1) / 2, blas.asum(x), dt)
      assert.are.equal(n - 1, blas.iamax(x), dt)
    end
  end)

  it("x given as y too (aliased) after it was not, and back", function()
    local x, y = seq("x", "float64", 7, 1), seq("y", "float64", 7, 0)
    blas.axpy(1, x, y)
    blas.axpy(1, x, y)
    local ys = values(y)
    for i = 0, 6 do assert.are.equal(2 * (1 + i) + i, ys[i + 1]) end
    blas.axpy(2, x, x)  -- x = 3x
    local xs = values(x)
    for i = 0, 6 do assert.are.equal(3 * (1 + i), xs[i + 1]) end
    assert.are.equal(9 * 140, blas.dot(x, x))  -- sum (3k)^2, k = 1..7
    blas.axpy(1, x, y)
    ys = values(y)
    for i = 0, 6 do assert.are.equal(5 * (1 + i) + i, ys[i + 1]) end
  end)

  it("a strided column after contiguous views, and back", function()
    local M = speck.View("M", "float64", {6, 3})
    speck.parallel_for("libcall_spec_m", 6, {M = M},
                       "for (int j = 0; j < 3; j++) M(i, j) = i + 10 * j;")
    local col = speck.subview(M, speck.ALL, 1)
    local x = seq("x", "float64", 6, 1)
    for _ = 1, 2 do
      assert.are.equal(21, blas.asum(x))
      assert.are.equal(60 + 15, blas.asum(col))  -- 10 + i, i = 0..5
    end
    blas.axpy(1, x, col)
    local cs = {}
    speck.fence()
    for i = 0, 5 do cs[i + 1] = M(i, 1) end
    for i = 0, 5 do assert.are.equal(10 + i + 1 + i, cs[i + 1]) end
  end)

  it("every call counts as a launch of its kernel (a device kernel on a GPU)", function()
    local x, y = seq("x", "float64", 5, 1), seq("y", "float64", 5, 1)
    blas.axpy(1, x, y)
    for _, c in ipairs({{"blas.axpy", function() blas.axpy(1, x, y) end},
                        {"blas.dot", function() return blas.dot(x, y) end},
                        {"blas.scal", function() blas.scal(1, x) end}}) do
      c[2]()
      local before = launches(c[1])
      for _ = 1, 5 do c[2]() end
      local after, tiers = launches(c[1])
      assert.are.equal(before + 5, after, c[1])
      if not ON_HOST then
        assert.is_true(tiers.nvrtc or false, c[1] .. " ran no device kernel")
      end
    end
  end)

  it("bad input after kept launches: the same messages, the VM usable", function()
    local x, y = seq("x", "float64", 4, 1), seq("y", "float64", 4, 1)
    for _ = 1, 3 do blas.axpy(1, x, y) end
    local z = seq("z", "float64", 3, 1)
    local ok, msg = pcall(blas.axpy, 1, x, z)
    assert.is_false(ok)
    assert.are.equal("speck.blas.axpy: x (view 'x') has 4 elements, y (view 'z') 3",
                     tostring(msg):gsub("^[^:]*:%d+: ", ""))
    ok, msg = pcall(blas.axpy, "1", x, y)
    assert.is_false(ok)
    assert.are.equal("speck.blas.axpy: a must be a number",
                     tostring(msg):gsub("^[^:]*:%d+: ", ""))
    ok, msg = pcall(blas.dot, x, true)
    assert.is_false(ok)
    assert.are.equal("speck.blas.dot: y must be a view", tostring(msg):gsub("^[^:]*:%d+: ", ""))
    ok, msg = pcall(blas.dot, x, {})
    assert.is_false(ok)
    assert.are.equal("speck.blas.dot: capture 'y' is a table; captures must be views, " ..
                     "numbers, booleans or {dtype, value}", tostring(msg):gsub("^[^:]*:%d+: ", ""))
    blas.axpy(1, x, y)
    local ys = values(y)
    for i = 0, 3 do assert.are.equal(5 * (1 + i), ys[i + 1]) end
  end)
end)
