-- bounds_spec.lua: bounds-check mode (opts.bounds_check, SPECK_BOUNDS_CHECK,
-- speck.initialize{bounds_check=}): an out-of-range index inside a kernel
-- fails the launch with the view's label, the capture, the dimension and
-- the index, and no memory outside the view is touched.
local speck = require "speck"
local SPACE = os.getenv("SPECK_SPACE") or "openmp"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return tostring(e)
end

describe("bounds check on " .. SPACE, function()
  for _, tier in ipairs{"tcc", "cc"} do
    describe("at the " .. tier .. " tier", function()
      it("reports a rank-1 overrun with the view label and index", function()
        local x = speck.View("xs", "float64", 10)
        local guard = speck.View("guard", "float64", 10)
        guard:fill(7)
        local e = err_of(speck.parallel_for, "oob1", 12, {x = x}, "x(i) = 1;",
                         {bounds_check = true, jit = tier})
        assert.truthy(e:find("speck.parallel_for 'oob1': view 'xs' (capture 'x'): index 0 is 1", 1, true), e)
        assert.truthy(e:find("out of range [0, 10) (bounds check)", 1, true), e)
        -- in-range elements were written, nothing else was touched
        assert.are.equal(1, x(9))
        assert.are.same({7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, guard:totable())
      end)

      it("names the dimension of a rank-2 overrun in an MDRange", function()
        local A = speck.View("A", "float64", {4, 5})
        local e = err_of(speck.parallel_for, "oob2", speck.MDRangePolicy({0, 0}, {4, 6}),
                         {A = A}, "A(i, j) = 1;", {bounds_check = true, jit = tier})
        assert.truthy(e:find("view 'A' (capture 'A'): index 1 is 5, out of range [0, 5) (bounds check)", 1, true), e)
      end)

      it("catches negative indices and works in reductions and teams", function()
        local x = speck.View("xn", "int64", 8)
        local e = err_of(speck.parallel_reduce, "oob3", 8, {x = x}, "acc += x(i - 1);",
                         {op = "sum", dtype = "int64"}, {bounds_check = true, jit = tier})
        assert.truthy(e:find("view 'xn' (capture 'x'): index 0 is -1, out of range [0, 8)", 1, true), e)
        e = err_of(speck.parallel_for, "oob4", speck.TeamPolicy(3, 1), {x = x},
                   "x(team.league_rank * 4) = 1;", {bounds_check = true, jit = tier})
        assert.truthy(e:find("index 0 is 8, out of range [0, 8)", 1, true), e)
      end)

      it("leaves correct kernels alone and the VM usable", function()
        local x = speck.View("ok", "float64", 100)
        speck.parallel_for("inb", 100, {x = x}, "x(i) = 2 * i;", {bounds_check = true, jit = tier})
        assert.are.equal(198, x(99))
        local s = speck.parallel_reduce("inbr", 100, {x = x}, "acc += x(i);", nil,
                                        {bounds_check = true, jit = tier})
        assert.are.equal(9900, s)
      end)
    end)
  end

  it("is on for every launch with SPECK_BOUNDS_CHECK=1", function()
    local bin = os.getenv("SPECK_BIN") or "build/bin/speck"
    local code = [[local x = speck.View("ev", "float64", 3)
      local ok, e = pcall(speck.parallel_for, "envk", 4, {x = x}, "x(i) = 1;")
      io.write(tostring(e))]]
    local f = io.popen(("SPECK_BOUNDS_CHECK=1 SPECK_SPACE=%s %s -e '%s' 2>&1"):format(SPACE, bin, code))
    local out = f:read("a")
    f:close()
    assert.truthy(out:find("view 'ev' (capture 'x'): index 0 is 3, out of range [0, 3) (bounds check)", 1, true), out)
  end)
end)
