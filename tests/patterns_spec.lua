local speck = require "speck"
-- patterns_spec.lua: parallel_for / parallel_scan over RangePolicy and
-- MDRangePolicy, captures, the kernel dialect (math, atomics, view
-- metadata, 'return'), compiled kernel handles and the JIT's bookkeeping.
-- Every result is checked against the same computation in plain Lua. The
-- spec runs on the space chosen by SPECK_SPACE (tests/run.sh runs it once
-- per back end).

local SPACE = speck.info().default_space
local SPECK_BIN = os.getenv("SPECK_BIN") or "build/bin/speck"

local DTYPES = {"float64", "float32", "int64", "int32", "int16", "int8",
                "uint64", "uint32", "uint8", "bool"}
local INT_BITS = {int64 = 64, int32 = 32, int16 = 16, int8 = 8,
                  uint64 = 64, uint32 = 32, uint8 = 8}
local SIGNED = {int64 = true, int32 = true, int16 = true, int8 = true}

-- the value a C integer of 'dt' holds after (dt)v, as Lua reads it back
local function wrap(dt, v)
  local bits = INT_BITS[dt]
  if not bits or bits == 64 then return v end
  v = v & ((1 << bits) - 1)
  if SIGNED[dt] and v >= (1 << (bits - 1)) then v = v - (1 << bits) end
  return v
end

local function f32(v) return (string.unpack("f", string.pack("f", v))) end

-- every index tuple of the box [lo, hi) (0-based, last dimension fastest)
local function each_index(lo, hi, fn)
  local r = #lo
  for d = 1, r do if hi[d] <= lo[d] then return end end
  local idx = {}
  for d = 1, r do idx[d] = lo[d] end
  while true do
    fn(idx)
    local d = r
    while d >= 1 do
      idx[d] = idx[d] + 1
      if idx[d] < hi[d] then break end
      idx[d] = lo[d]
      d = d - 1
    end
    if d == 0 then return end
  end
end

local function cat(...) return table.concat({...}) end

describe("patterns on " .. SPACE, function()

  -- -- parallel_for over a range ------------------------------------------
  describe("parallel_for with a range", function()
    it("an integer n runs i = 0 .. n-1", function()
      local n = 1000
      local x = speck.View("x", "float64", n)
      speck.parallel_for("pf_n", n, {x = x}, "x(i) = (double)i * i + 0.5;")
      for i = 0, n - 1 do assert.are.equal(i * i + 0.5, x(i)) end
    end)

    it("RangePolicy(b, e) with b > 0 touches exactly [b, e)", function()
      local x = speck.View("x", "int64", 100)
      speck.parallel_for("pf_be", speck.RangePolicy(17, 83), {x = x},
                         "x(i) = i + 1000;")
      for i = 0, 99 do
        assert.are.equal((i >= 17 and i < 83) and i + 1000 or 0, x(i))
      end
    end)

    it("n = 0 and an empty RangePolicy run no work item", function()
      local c = speck.View("c", "int64", 1)
      speck.parallel_for("pf_empty", 0, {c = c}, "atomic_add(&c(0), 1);")
      speck.parallel_for("pf_empty", speck.RangePolicy(7, 7), {c = c},
                         "atomic_add(&c(0), 1);")
      assert.are.equal(0, c(0))
    end)

    it("n = 1 runs exactly i = 0", function()
      local x = speck.View("x", "int64", 3)
      local c = speck.View("c", "int64", 1)
      speck.parallel_for("pf_one", 1, {x = x, c = c},
                         "x(i) = 42 + i; atomic_add(&c(0), 1);")
      assert.are.same({42, 0, 0}, x:totable())
      assert.are.equal(1, c(0))
    end)

    it("a large n (1e6) writes every element once", function()
      local n = 1000000
      local x = speck.View("x", "int64", n)
      speck.parallel_for("pf_big", n, {x = x}, "x(i) += 3 * i + 1;")
      local t = x:totable()
      local bad = 0
      for i = 0, n - 1 do
        if t[i + 1] ~= 3 * i + 1 then bad = bad + 1 end
      end
      assert.are.equal(0, bad)
    end)

    for _, sched in ipairs{"static", "dynamic"} do
      for _, chunk in ipairs{1, 7, 1000} do
        it(cat("schedule '", sched, "' chunk ", chunk, " visits each index once"),
           function()
          local n = 10003
          local x = speck.View("x", "int32", n + 20)
          local pol = speck.RangePolicy(20, n + 20,
                                        {schedule = sched, chunk = chunk})
          speck.parallel_for("pf_sched", pol, {x = x}, "atomic_add(&x(i), 1);")
          local t = x:totable()
          for i = 0, n + 19 do
            assert.are.equal(i >= 20 and 1 or 0, t[i + 1])
          end
        end)
      end
    end

    it("a dynamic schedule without a chunk visits each index once", function()
      local n = 5000
      local x = speck.View("x", "int32", n)
      speck.parallel_for("pf_dyn", speck.RangePolicy(0, n, {schedule = "dynamic"}),
                         {x = x}, "atomic_add(&x(i), 1);")
      local t = x:totable()
      for i = 1, n do assert.are.equal(1, t[i]) end
    end)

    it("'return' skips the rest of that work item only", function()
      local n = 101
      local x = speck.View("x", "int64", n)
      speck.parallel_for("pf_ret", n, {x = x}, [[
        x(i) = 1;
        if (i % 3 == 0) return;
        x(i) = 2;
        if (i % 3 == 1) { return; }
        x(i) = 3;
      ]])
      for i = 0, n - 1 do assert.are.equal(({1, 2, 3})[i % 3 + 1], x(i)) end
    end)

    it("'return' in a reduction body keeps the accumulator", function()
      local r = speck.parallel_reduce("pr_ret", 1000, {},
                                      "if (i % 2) return; acc += i;")
      local e = 0
      for i = 0, 999, 2 do e = e + i end
      assert.are.equal(e, r)
    end)
  end)

  -- -- parallel_for over an MDRange ---------------------------------------
  describe("parallel_for with an MDRange", function()
    local EXT = {{13, 11}, {7, 6, 5}, {5, 4, 3, 6}, {4, 3, 3, 2, 5},
                 {3, 2, 3, 2, 2, 4}}
    local function idxs(r) local t = {} for d = 0, r - 1 do t[#t + 1] = "i" .. d end
      return table.concat(t, ", ") end
    -- the value the kernels store: a positional code of the index
    local function code(idx)
      local c = 0
      for d = 1, #idx do c = c * 16 + idx[d] end
      return c + 1
    end
    local function code_c(names)
      local c = "0"
      for _, n in ipairs(names) do c = "(" .. c .. ") * 16 + " .. n end
      return "(" .. c .. ") + 1"
    end

    for r = 2, 6 do
      local ext = EXT[r - 1]
      local lo, hi, tile = {}, {}, {}
      for d = 1, r do
        lo[d] = d % 2            -- nonzero lower bounds on odd dimensions
        hi[d] = ext[d] - (d == 1 and 1 or 0)
        tile[d] = (d % 3) + 1    -- tiles that do not divide the extents
      end
      for _, tiled in ipairs{false, true} do
        it(cat("rank ", r, tiled and " with tiles" or " without tiles",
               " visits exactly the box once"), function()
          local x = speck.View("x", "int64", ext)
          local cnt = speck.View("cnt", "int32", ext)
          local names = {}
          for d = 0, r - 1 do names[#names + 1] = "i" .. d end
          local pol = speck.MDRangePolicy(lo, hi, tiled and {tile = tile} or nil)
          speck.parallel_for("md_rank" .. r, pol, {x = x, cnt = cnt},
                             cat("x(", idxs(r), ") = ", code_c(names), ";",
                                 " atomic_add(&cnt(", idxs(r), "), 1);"))
          local zero = {}
          for d = 1, r do zero[d] = 0 end
          each_index(zero, ext, function(idx)
            local inside = true
            for d = 1, r do
              if idx[d] < lo[d] or idx[d] >= hi[d] then inside = false end
            end
            local ix = {table.unpack(idx)}
            assert.are.equal(inside and code(idx) or 0, x(table.unpack(ix)))
            assert.are.equal(inside and 1 or 0, cnt(table.unpack(ix)))
          end)
        end)
      end
    end

    it("rank 2 names the indices i, j (and i0, i1)", function()
      local a = speck.View("a", "int64", {6, 9})
      speck.parallel_for("md_ij", speck.MDRangePolicy({1, 2}, {6, 9}), {a = a},
                         "a(i, j) = i * 100 + j + (i0 - i) + (i1 - j);")
      for i = 0, 5 do for j = 0, 8 do
        assert.are.equal((i >= 1 and j >= 2) and i * 100 + j or 0, a(i, j))
      end end
    end)

    it("rank 3 names the indices i, j, k (and i0, i1, i2)", function()
      local a = speck.View("a", "int64", {4, 5, 6})
      speck.parallel_for("md_ijk", speck.MDRangePolicy({0, 0, 0}, {4, 5, 6},
                                                       {tile = {2, 2, 4}}),
                         {a = a}, "a(i, j, k) = i * 100 + j * 10 + k + (i2 - k);")
      for i = 0, 3 do for j = 0, 4 do for k = 0, 5 do
        assert.are.equal(i * 100 + j * 10 + k, a(i, j, k))
      end end end
    end)

    it("opts.index chooses the index names", function()
      local a = speck.View("a", "int64", {5, 7})
      speck.parallel_for("md_names", speck.MDRangePolicy({0, 0}, {5, 7}), {a = a},
                         "a(row, col) = row * 10 + col;",
                         {index = {"row", "col"}})
      for i = 0, 4 do for j = 0, 6 do
        assert.are.equal(i * 10 + j, a(i, j))
      end end
    end)

    it("opts.index names a range index too", function()
      local x = speck.View("x", "int64", 8)
      speck.parallel_for("range_name", 8, {x = x}, "x(n) = n * n;", {index = {"n"}})
      for i = 0, 7 do assert.are.equal(i * i, x(i)) end
    end)

    it("opts.index names a rank-4 range", function()
      local a = speck.View("a", "int64", {2, 3, 4, 5})
      speck.parallel_for("md_names4", speck.MDRangePolicy({0, 0, 0, 0}, {2, 3, 4, 5}),
                         {a = a}, "a(p, q, r, s) = p * 1000 + q * 100 + r * 10 + s;",
                         {index = {"p", "q", "r", "s"}})
      each_index({0, 0, 0, 0}, {2, 3, 4, 5}, function(t)
        assert.are.equal(t[1] * 1000 + t[2] * 100 + t[3] * 10 + t[4], a(table.unpack(t)))
      end)
    end)

    it("an empty MDRange runs nothing", function()
      local c = speck.View("c", "int64", 1)
      speck.parallel_for("md_empty", speck.MDRangePolicy({0, 3}, {5, 3}), {c = c},
                         "atomic_add(&c(0), 1);")
      assert.are.equal(0, c(0))
    end)
  end)

  -- -- parallel_scan -------------------------------------------------------
  describe("parallel_scan", function()
    local function data(n)
      local x = speck.View("x", "float64", n)
      speck.parallel_for("scan_fill", n, {x = x}, "x(i) = (double)(i % 7 + 1);")
      return x
    end

    for _, n in ipairs{0, 1, 2, 1000, 100003} do
      it(cat("exclusive scan, n = ", n), function()
        local x = data(n + 1)
        local y = speck.View("y", "float64", n + 1)
        y:fill(-1)
        local total = speck.parallel_scan("scan_ex", n, {x = x, y = y},
                                          "if (final) y(i) = acc; acc += x(i);")
        local acc = 0
        local t = y:totable()
        for i = 0, n - 1 do
          assert.are.equal(acc, t[i + 1])
          acc = acc + (i % 7 + 1)
        end
        assert.are.equal(-1, t[n + 1])   -- past the range: untouched
        assert.are.equal(acc, total)
        assert.are.equal("float", math.type(total))
      end)
    end

    it("inclusive scan", function()
      local n = 5000
      local x = data(n)
      local y = speck.View("y", "float64", n)
      local total = speck.parallel_scan("scan_in", n, {x = x, y = y},
                                        "acc += x(i); if (final) y(i) = acc;")
      local acc = 0
      for i = 0, n - 1 do
        acc = acc + (i % 7 + 1)
        assert.are.equal(acc, y(i))
      end
      assert.are.equal(acc, total)
    end)

    it("int64 scan via opts.dtype is exact beyond 2^53", function()
      local n = 2000
      local x = speck.View("x", "int64", n)
      local y = speck.View("y", "int64", n)
      speck.parallel_for("scan_fill64", n, {x = x},
                         "x(i) = ((int64_t)1 << 50) + i * 3 + 1;")
      local total = speck.parallel_scan("scan_i64", n, {x = x, y = y},
                                        "if (final) y(i) = acc; acc += x(i);",
                                        {dtype = "int64"})
      local acc = 0
      for i = 0, n - 1 do
        assert.are.equal(acc, y(i))
        acc = acc + (1 << 50) + i * 3 + 1
      end
      assert.are.equal("integer", math.type(total))
      assert.are.equal(acc, total)
    end)

    it("int32 scan via opts.dtype", function()
      local n = 300
      local y = speck.View("y", "int32", n)
      local total = speck.parallel_scan("scan_i32", n, {y = y},
                                        "if (final) y(i) = acc; acc += i;",
                                        {dtype = "int32"})
      for i = 0, n - 1 do assert.are.equal(i * (i - 1) // 2, y(i)) end
      assert.are.equal(n * (n - 1) // 2, total)
      assert.are.equal("integer", math.type(total))
    end)

    it("n = 0 returns 0 and writes nothing", function()
      local y = speck.View("y", "int64", 2)
      y:fill(7)
      assert.are.equal(0, speck.parallel_scan("scan_zero", 0, {y = y},
                                              "if (final) y(i) = acc; acc += 1;",
                                              {dtype = "int64"}))
      assert.are.same({7, 7}, y:totable())
    end)

    it("a scan over RangePolicy(b, e) with b > 0", function()
      local n = 1000
      local x = data(n)
      local y = speck.View("y", "float64", n)
      y:fill(-1)
      local total = speck.parallel_scan("scan_be", speck.RangePolicy(100, 900),
                                        {x = x, y = y},
                                        "if (final) y(i) = acc; acc += x(i);")
      local acc = 0
      for i = 0, n - 1 do
        if i < 100 or i >= 900 then
          assert.are.equal(-1, y(i))
        else
          assert.are.equal(acc, y(i))
          acc = acc + (i % 7 + 1)
        end
      end
      assert.are.equal(acc, total)
    end)

    it("a scan with 'return' skips those items' contribution", function()
      local n = 100
      local y = speck.View("y", "int64", n)
      local total = speck.parallel_scan("scan_ret", n, {y = y},
                                        "if (final) y(i) = acc; if (i % 2) return; acc += i;",
                                        {dtype = "int64"})
      local acc = 0
      for i = 0, n - 1 do
        assert.are.equal(acc, y(i))
        if i % 2 == 0 then acc = acc + i end
      end
      assert.are.equal(acc, total)
    end)
  end)

  -- -- captures ----------------------------------------------------------
  describe("captured scalars", function()
    if SPACE == "cuda" then
      it("are typed as in C (checked with C11 _Generic)", function()
        pending("the checks use C11 _Generic; CUDA bodies are C++ (NVRTC)")
      end)
      return
    end
    it("a Lua float is a double, a Lua integer an int64_t, a boolean a bool",
       function()
      local out = speck.View("out", "float64", 8)
      local big = speck.View("big", "int64", 1)
      speck.parallel_for("cap_types", 1, {out = out, big = big, a = 0.1,
                                           n = (1 << 62) + 7, b = true, f = false}, [[
        out(0) = a;
        out(1) = _Generic(a, double: 1, default: 0);
        out(2) = _Generic(n, int64_t: 1, default: 0);
        out(3) = _Generic(b, bool: 1, default: 0);
        out(4) = b ? 1 : 2;
        out(5) = f ? 1 : 2;
        out(6) = sizeof(n);
        big(0) = n;
      ]])
      assert.are.same({0.1, 1, 1, 1, 1, 2, 8, 0}, out:totable())
      assert.are.equal((1 << 62) + 7, big(0))
    end)

    it("an integral float stays a double", function()
      local out = speck.View("out", "float64", 2)
      speck.parallel_for("cap_intfloat", 1, {out = out, a = 3.0},
                         "out(0) = a / 2; out(1) = _Generic(a, double: 1, default: 0);")
      assert.are.same({1.5, 1}, out:totable())
    end)

    local typed = {
      {"float64", 0.1, 0.1, "double"},
      {"float32", 0.1, f32(0.1), "float"},
      {"int64", -(1 << 40), -(1 << 40), "int64_t"},
      {"int32", -123456789, -123456789, "int32_t"},
      {"int16", -12345, -12345, "int16_t"},
      {"int8", -100, -100, "int8_t"},
      {"uint64", 1 << 40, 1 << 40, "uint64_t"},
      {"uint32", 4000000000, 4000000000, "uint32_t"},
      {"uint8", 250, 250, "uint8_t"},
      {"bool", true, 1, "bool"},
    }
    for _, t in ipairs(typed) do
      local dt, value, expect, ctype = t[1], t[2], t[3], t[4]
      it(cat("{'", dt, "', v} is a const ", ctype), function()
        local out = speck.View("out", "float64", 3)
        speck.parallel_for("cap_typed_" .. dt, 1, {out = out, v = {dt, value}},
                           cat("out(0) = (double)v; out(1) = _Generic(v, ",
                               ctype, ": 1, default: 0); out(2) = sizeof(v);"))
        local size = ({float64 = 8, float32 = 4, int64 = 8, int32 = 4, int16 = 2,
                       int8 = 1, uint64 = 8, uint32 = 4, uint8 = 1, bool = 1})[dt]
        assert.are.same({expect, 1, size}, out:totable())
      end)
    end

    it("speck dtype constants work as capture dtypes", function()
      local out = speck.View("out", "int64", 1)
      speck.parallel_for("cap_const", 1, {out = out, v = {speck.int16, 300}},
                         "out(0) = v * 2 + _Generic(v, int16_t: 1, default: 0);")
      assert.are.equal(601, out(0))
    end)

    it("new scalar values reach the same compiled kernel", function()
      local out = speck.View("out", "float64", 1)
      for _, a in ipairs{1.5, -2.25, 1e300} do
        speck.parallel_for("cap_values", 1, {out = out, a = a}, "out(0) = a;")
        assert.are.equal(a, out(0))
      end
    end)
  end)

  describe("opts.prelude", function()
    it("defines SPECK_FN helpers the body can call", function()
      local n = 50
      local y = speck.View("y", "float64", n)
      speck.parallel_for("prelude", n, {y = y}, "y(i) = f(i) + g(i, 2);", {prelude = [[
        SPECK_FN double f(double x) { return x * x + 1.0; }
        SPECK_FN double g(double x, double k) { return k * f(x - 1.0); }
      ]]})
      for i = 0, n - 1 do
        assert.are.equal(i * i + 1 + 2 * ((i - 1) * (i - 1) + 1), y(i))
      end
    end)

    it("a different prelude is a different kernel", function()
      local y = speck.View("y", "float64", 1)
      speck.parallel_for("prelude2", 1, {y = y}, "y(0) = f(2);",
                         {prelude = "SPECK_FN double f(double x) { return x + 1; }"})
      assert.are.equal(3, y(0))
      speck.parallel_for("prelude2", 1, {y = y}, "y(0) = f(2);",
                         {prelude = "SPECK_FN double f(double x) { return x * 10; }"})
      assert.are.equal(20, y(0))
    end)
  end)

  describe("math builtins", function()
    local function close(a, b)
      if a == b then return true end
      return math.abs(a - b) <= 1e-14 * math.max(math.abs(a), math.abs(b))
    end
    local function tanh(x) local e = math.exp(2 * x) return (e - 1) / (e + 1) end
    local xs = {0.3, 1.7, 2.5, -0.8, 10.25}
    local cases = {
      {"sqrt(fabs(x))", function(x) return math.sqrt(math.abs(x)) end},
      {"exp(x)", math.exp},
      {"log(fabs(x))", function(x) return math.log(math.abs(x)) end},
      {"pow(fabs(x), 1.3)", function(x) return math.abs(x) ^ 1.3 end},
      {"fabs(x)", math.abs},
      {"fmin(x, 1.0)", function(x) return math.min(x, 1.0) end},
      {"fmax(x, 1.0)", function(x) return math.max(x, 1.0) end},
      {"floor(x)", function(x) return math.floor(x) + 0.0 end},
      {"ceil(x)", function(x) return math.ceil(x) + 0.0 end},
      {"sin(x)", math.sin},
      {"cos(x)", math.cos},
      {"tan(x)", math.tan},
      {"atan2(x, 2.0)", function(x) return math.atan(x, 2.0) end},
      {"tanh(x)", tanh},
    }
    for _, c in ipairs(cases) do
      it(c[1], function()
        local n = #xs
        local x = speck.View.from(xs, "float64")
        local y = speck.View("y", "float64", n)
        speck.parallel_for("math", n, {x = x, y = y},
                           cat("{ double x = x(i); y(i) = ", c[1], "; }"))
        for i = 1, n do
          local e = c[2](xs[i])
          assert.is_true(close(e, y(i - 1)),
                         cat(c[1], " at ", xs[i], ": ", tostring(y(i - 1)),
                             " vs ", tostring(e)))
        end
      end)
    end

    it("math on float32 views", function()
      local x = speck.View.from({4, 9, 2.25}, "float32")
      speck.parallel_for("math32", 3, {x = x}, "x(i) = sqrt(x(i));")
      assert.are.same({2, 3, 1.5}, x:totable())
    end)

    it("INFINITY and NAN", function()
      local y = speck.View("y", "float64", 6)
      speck.parallel_for("infnan", 1, {y = y}, [[
        y(0) = INFINITY; y(1) = -INFINITY; y(2) = NAN;
        y(3) = NAN != NAN; y(4) = fmin(INFINITY, 3.0); y(5) = 1.0 / INFINITY;
      ]])
      assert.are.equal(math.huge, y(0))
      assert.are.equal(-math.huge, y(1))
      assert.is_true(y(2) ~= y(2))
      assert.are.equal(1, y(3))
      assert.are.equal(3, y(4))
      assert.are.equal(0, y(5))
    end)
  end)

  -- -- views in bodies -----------------------------------------------------
  describe("views in bodies", function()
    -- per dtype: the value stored at i (as C computes it) and as Lua reads it
    local STORE = {
      float64 = {"x(i) = i * 0.25 - 3;", function(i) return i * 0.25 - 3 end},
      float32 = {"x(i) = i * 0.5f - 3;", function(i) return i * 0.5 - 3 end},
      int64 = {"x(i) = (int64_t)i * 1000000007 - 5;",
               function(i) return i * 1000000007 - 5 end},
      int32 = {"x(i) = (int32_t)(i * 65537 - 1000);",
               function(i) return wrap("int32", i * 65537 - 1000) end},
      int16 = {"x(i) = (int16_t)(i * 1001 - 300);",
               function(i) return wrap("int16", i * 1001 - 300) end},
      int8 = {"x(i) = (int8_t)(i * 37 - 100);",
              function(i) return wrap("int8", i * 37 - 100) end},
      uint64 = {"x(i) = (uint64_t)i * 3000000000u;",
                function(i) return i * 3000000000 end},
      uint32 = {"x(i) = (uint32_t)(i * 300000000u);",
                function(i) return wrap("uint32", i * 300000000) end},
      uint8 = {"x(i) = (uint8_t)(i * 37);", function(i) return wrap("uint8", i * 37) end},
      bool = {"x(i) = i % 3 == 1;", function(i) return i % 3 == 1 end},
    }
    for _, dt in ipairs(DTYPES) do
      it(cat(dt, " views are written and read in bodies"), function()
        local n = 40
        local x = speck.View("x", dt, n)
        speck.parallel_for("store_" .. dt, n, {x = x}, STORE[dt][1])
        for i = 0, n - 1 do assert.are.equal(STORE[dt][2](i), x(i)) end
        -- read back in a body: y(i) = x(i) converted to double (bool: !x)
        local y = speck.View("y", "float64", n)
        speck.parallel_for("load_" .. dt, n, {x = x, y = y},
                           dt == "bool" and "y(i) = !x(i);" or "y(i) = (double)x(i);")
        for i = 0, n - 1 do
          local e = STORE[dt][2](i)
          if dt == "bool" then e = e and 0 or 1 end
          assert.are.equal(e, y(i))
        end
      end)

      it(cat(dt, " views set from Lua are seen by bodies"), function()
        local vals = dt == "bool" and {true, false, true}
                  or (dt:sub(1, 4) == "uint" and {0, 7, 200} or {-7, 0, 100})
        local x = speck.View.from(vals, dt)
        local n = speck.parallel_reduce("sum_" .. dt, 3, {x = x},
                                        "acc += (double)x(i);")
        local e = 0
        for _, v in ipairs(vals) do e = e + (v == true and 1 or v == false and 0 or v) end
        assert.are.equal(e, n)
      end)
    end

    for _, layout in ipairs{"right", "left"} do
      it(cat("rank-2 views of layout '", layout, "'"), function()
        local a = speck.View("a", "float64", {7, 5}, {layout = layout})
        speck.parallel_for("lay_" .. layout, speck.MDRangePolicy({0, 0}, {7, 5}),
                           {a = a}, "a(i, j) = i * 10 + j;")
        for i = 0, 6 do for j = 0, 4 do assert.are.equal(i * 10 + j, a(i, j)) end end
        -- the memory order follows the layout
        local flat = speck.View("flat", "float64", 35)
        speck.parallel_for("lay_flat", 35, {a = a, flat = flat},
                           "flat(i) = a.data[i];")
        for p = 0, 34 do
          local i, j
          if layout == "right" then i, j = p // 5, p % 5 else i, j = p % 7, p // 7 end
          assert.are.equal(i * 10 + j, flat(p))
        end
        -- a range kernel over a rank-2 view
        speck.parallel_for("lay_rows_" .. layout, 7, {a = a},
                           "for (int64_t j = 0; j < a.extent[1]; j++) a(i, j) += 1000;")
        for i = 0, 6 do for j = 0, 4 do
          assert.are.equal(1000 + i * 10 + j, a(i, j))
        end end
      end)
    end

    it("a strided rank-1 subview (a column) is written by a kernel", function()
      local a = speck.View("a", "int64", {6, 4}, {layout = "right"})
      a:fill(-1)
      local col = speck.subview(a, speck.ALL, 2)
      assert.are.equal(4, col:stride(0))
      speck.parallel_for("sub_col", col:extent(0), {col = col}, "col(i) = 100 + i;")
      for i = 0, 5 do for j = 0, 3 do
        assert.are.equal(j == 2 and 100 + i or -1, a(i, j))
      end end
      for i = 0, 5 do assert.are.equal(100 + i, col(i)) end
    end)

    it("a row of a left-layout view (strided) is written by a kernel", function()
      local a = speck.View("a", "float64", {5, 6}, {layout = "left"})
      local row = speck.subview(a, 3, speck.ALL)
      assert.are.equal(5, row:stride(0))
      speck.parallel_for("sub_row_left", 6, {row = row}, "row(i) = 0.5 * i;")
      for i = 0, 4 do for j = 0, 5 do
        assert.are.equal(i == 3 and 0.5 * j or 0, a(i, j))
      end end
    end)

    it("a rank-2 block subview is written by an MDRange kernel", function()
      local a = speck.View("a", "int32", {8, 9})
      local b = speck.subview(a, {2, 6}, {3, 8})
      assert.are.same({4, 5}, b:extents())
      speck.parallel_for("sub_block", speck.MDRangePolicy({0, 0}, {4, 5}), {b = b},
                         "b(i, j) = (int32_t)(1 + i * 10 + j + b.stride[0] * 0);")
      for i = 0, 7 do for j = 0, 8 do
        local inside = i >= 2 and i < 6 and j >= 3 and j < 8
        assert.are.equal(inside and 1 + (i - 2) * 10 + (j - 3) or 0, a(i, j))
      end end
    end)

    it("a strided subview of a rank-3 view", function()
      local a = speck.View("a", "float64", {3, 4, 5})
      local s = speck.subview(a, speck.ALL, 1, {1, 4})   -- rank 2, strided
      speck.parallel_for("sub_3d", speck.MDRangePolicy({0, 0}, {3, 3}), {s = s},
                         "s(i, j) = i * 10 + j + 1;")
      each_index({0, 0, 0}, {3, 4, 5}, function(t)
        local i, j, k = t[1], t[2], t[3]
        local e = (j == 1 and k >= 1 and k < 4) and i * 10 + (k - 1) + 1 or 0
        assert.are.equal(e, a(i, j, k))
      end)
    end)

    it("rank-0 and rank-8 views in bodies", function()
      local z = speck.View("z", "float64", {})
      speck.parallel_for("rank0", 1, {z = z}, "z() = 5 + z.rank;")
      assert.are.equal(5, z())
      local r = speck.View("r8", "int32", {2, 2, 2, 2, 2, 2, 2, 3})
      speck.parallel_for("rank8", 2, {r = r}, [[
        for (int a = 0; a < r.extent[7]; a++)
          r(i, 1, 0, 1, 0, 1, 1, a) = (int32_t)(r.rank * 100 + i * 10 + a);
      ]])
      each_index({0, 0, 0, 0, 0, 0, 0, 0}, {2, 2, 2, 2, 2, 2, 2, 3}, function(t)
        local hit = t[2] == 1 and t[3] == 0 and t[4] == 1 and t[5] == 0 and t[6] == 1
                    and t[7] == 1
        assert.are.equal(hit and 800 + t[1] * 10 + t[8] or 0, r(table.unpack(t)))
      end)
    end)

    it("64 captures (the maximum) reach the body", function()
      local caps, parts = {}, {}
      local out = speck.View("out", "float64", 1)
      caps.out = out
      for k = 1, 63 do
        if k % 2 == 0 then
          caps["s" .. k] = k
          parts[#parts + 1] = "s" .. k
        else
          caps["v" .. k] = speck.View.from({k}, "float64")
          parts[#parts + 1] = "v" .. k .. "(0)"
        end
      end
      speck.parallel_for("caps64", 1, caps, "out(0) = " .. table.concat(parts, " + ") .. ";")
      assert.are.equal(63 * 64 // 2, out(0))
    end)

    it("view metadata: x.extent[d], x.stride[d], x.rank", function()
      for _, v in ipairs{
        speck.View("r", "float64", {3, 4, 5}),
        speck.View("l", "int8", {3, 4, 5}, {layout = "left"}),
        speck.subview(speck.View("s", "int32", {6, 7}), {1, 5}, 3),
        speck.View("one", "uint8", 17),
      } do
        local m = speck.View("m", "int64", 20)
        speck.parallel_for("meta_" .. v:dtype() .. v:rank(), 1, {x = v, m = m}, [[
          m(0) = x.rank;
          for (int d = 0; d < x.rank; d++) { m(1 + d) = x.extent[d]; m(10 + d) = x.stride[d]; }
        ]])
        assert.are.equal(v:rank(), m(0))
        for d = 0, v:rank() - 1 do
          assert.are.equal(v:extent(d), m(1 + d))
          assert.are.equal(v:stride(d), m(10 + d))
        end
      end
    end)

    it("the same view captured under two names (aliasing) stays correct", function()
      local n = 1000
      local x = speck.View("x", "float64", n)
      speck.parallel_for("alias", n, {a = x, b = x}, [[
        a(i) = i;
        b(i) += 1;
        a(i) *= 2;
        b(i) = b(i) + a(i);
      ]])
      for i = 0, n - 1 do assert.are.equal(4 * (i + 1), x(i)) end
    end)

    it("overlapping subviews of one allocation (aliasing)", function()
      local n = 100
      local x = speck.View("x", "int64", n)
      local tail = speck.subview(x, {1, n})
      speck.parallel_for("alias_sub", n - 1, {x = x, t = tail},
                         "t(i) += 5; x(i + 1) *= 3; t(i) += 1;")
      assert.are.equal(0, x(0))
      for i = 1, n - 1 do assert.are.equal(16, x(i)) end
    end)

    it("a kernel compiled without aliasing is not reused for aliased views", function()
      local x = speck.View("x", "int64", 10)
      local y = speck.View("y", "int64", 10)
      local body = "a(i) = 1; b(i) += 1; a(i) += b(i);"
      speck.parallel_for("alias_key", 10, {a = x, b = y}, body)
      for i = 0, 9 do assert.are.equal(2, x(i)) end
      local z = speck.View("z", "int64", 10)
      speck.parallel_for("alias_key", 10, {a = z, b = z}, body)
      for i = 0, 9 do assert.are.equal(4, z(i)) end
    end)
  end)

  -- -- atomics -------------------------------------------------------------
  describe("atomics", function()
    local INTS = {"int64", "int32", "int16", "int8", "uint64", "uint32", "uint8"}
    local NUMS = {"float64", "float32", "int64", "int32", "int16", "int8",
                  "uint64", "uint32", "uint8"}

    it("a histogram with atomic_add over 1e5 items gives exact counts", function()
      local n, nb = 100000, 17
      local h = speck.View("h", "int64", nb)
      speck.parallel_for("hist", n, {h = h}, "atomic_add(&h((i * 7919) % 17), 1);")
      local e = {}
      for b = 1, nb do e[b] = 0 end
      for i = 0, n - 1 do local b = (i * 7919) % 17 + 1 e[b] = e[b] + 1 end
      assert.are.same(e, h:totable())
    end)

    for _, dt in ipairs(NUMS) do
      it(cat("atomic_add / atomic_sub on ", dt), function()
        -- counts small enough for int8 bins
        local n, nb = 1000, 10
        local bins = speck.View("bins", dt, nb)
        local down = speck.View("down", dt, nb)
        down:fill(120)
        speck.parallel_for("at_addsub_" .. dt, n, {bins = bins, down = down},
                           "atomic_add(&bins(i % 10), 1); if (i % 100 == 0) atomic_sub(&down(i % 7), 1);")
        for b = 0, nb - 1 do assert.are.equal(100, bins(b)) end
        local e = {}
        for b = 0, nb - 1 do e[b] = 120 end
        for i = 0, n - 1, 100 do e[i % 7] = e[i % 7] - 1 end
        for b = 0, nb - 1 do assert.are.equal(e[b], down(b)) end
      end)

      it(cat("atomic_min / atomic_max on ", dt), function()
        local n = 5000
        local m = speck.View("m", dt, 2)
        local lo = (dt:sub(1, 1) == "u") and 3 or -50
        m:set(0, 100)
        m:set(1, lo + 1)
        -- values in [lo, lo + 120]; min lo + 3, max lo + 119
        speck.parallel_for("at_minmax_" .. dt, n, {m = m, lo = lo}, [[
          int64_t v = lo + 3 + (i * 31) % 117;
          atomic_min(&m(0), v);
          atomic_max(&m(1), v);
        ]])
        assert.are.equal(lo + 3, m(0))
        assert.are.equal(lo + 3 + 116, m(1))
      end)

      it(cat("atomic_exchange and atomic_cas on ", dt), function()
        local n = 100
        local r = speck.View("r", dt, 2)
        local olds = speck.View("olds", "int64", 1)
        -- exchange: the values swapped out plus the last one left are
        -- exactly the initial value and every value swapped in
        r:set(0, 1)
        speck.parallel_for("at_xchg_" .. dt, n, {r = r, olds = olds},
                           "atomic_add(&olds(0), (int64_t)atomic_exchange(&r(0), i + 2));")
        local sum_in = 1
        for i = 0, n - 1 do sum_in = sum_in + i + 2 end
        assert.are.equal(sum_in, olds(0) + r(0))
        -- cas: an increment loop counts every item
        speck.parallel_for("at_cas_" .. dt, n, {r = r}, [[
          for (;;) {
            __typeof__(r(1)) o = r(1);
            if (atomic_cas(&r(1), o, o + 1) == o) break;
          }
        ]])
        assert.are.equal(n, r(1))
      end)

      it(cat("atomic_fetch_add hands out distinct tickets on ", dt), function()
        local n = 120
        local c = speck.View("c", dt, 1)
        local t = speck.View("t", "int64", n)
        speck.parallel_for("at_ticket_" .. dt, n, {c = c, t = t},
                           "t(i) = (int64_t)atomic_fetch_add(&c(0), 1);")
        local seen = {}
        for i = 0, n - 1 do
          local v = t(i)
          assert.is_nil(seen[v])
          assert.is_true(v >= 0 and v < n)
          seen[v] = true
        end
        assert.are.equal(n, c(0))
      end)

      if dt == "int64" or dt == "int32" or dt == "uint64" or dt == "uint32" then
        it(cat("atomic_fetch_add_combined reserves distinct slots on ", dt), function()
          -- every item reserves 1 + i % 4 slots of one queue (lanes of a warp
          -- combine into one atomic with their own offsets); a second
          -- counter only sums
          local n, total, sum2 = 3000, 0, 0
          for i = 0, n - 1 do
            if i % 3 ~= 0 then total = total + 1 + i % 4 else sum2 = sum2 + i % 5 end
          end
          local c = speck.View("c", dt, 2)
          local q = speck.View("q", "int64", total)
          speck.parallel_for("at_combined_" .. dt, n, {c = c, q = q}, [[
            if (i % 3 != 0) {
              const int64_t k = 1 + i % 4;
              const int64_t p = (int64_t)atomic_fetch_add_combined(&c(0), k);
              for (int64_t j = 0; j < k; j++) q(p + j) = i;
            } else {
              (void)atomic_fetch_add_combined(&c(1), i % 5);
            }
          ]])
          assert.are.equal(total, c(0))
          assert.are.equal(sum2, c(1))
          local seen = {}
          for s = 0, total - 1 do
            local v = q(s)
            seen[v] = (seen[v] or 0) + 1
          end
          for i = 0, n - 1 do
            assert.are.equal(i % 3 ~= 0 and 1 + i % 4 or nil, seen[i])
          end
        end)
      end

      it(cat("atomic_fetch_* return the old value on ", dt), function()
        local o = speck.View("o", "float64", 8)
        local r = speck.View("r", dt, 8)
        speck.parallel_for("at_fetch_" .. dt, 1, {o = o, r = r}, [[
          r(0) = 10; o(0) = atomic_fetch_add(&r(0), 5);
          r(1) = 10; o(1) = atomic_fetch_sub(&r(1), 4);
          r(2) = 10; o(2) = atomic_fetch_min(&r(2), 3);
          r(3) = 10; o(3) = atomic_fetch_max(&r(3), 30);
          r(4) = 10; o(4) = atomic_exchange(&r(4), 7);
          r(5) = 10; o(5) = atomic_cas(&r(5), 10, 11);
          r(6) = 10; o(6) = atomic_cas(&r(6), 9, 12);
          r(7) = 10; o(7) = atomic_fetch_min(&r(7), 20);
        ]])
        assert.are.same({10, 10, 10, 10, 10, 10, 10, 10}, o:totable())
        assert.are.same({15, 6, 3, 30, 7, 11, 10, 10}, r:totable())
      end)
    end

    for _, dt in ipairs(INTS) do
      it(cat("atomic_and / atomic_or / atomic_xor and fetch forms on ", dt), function()
        local n = 2000
        local r = speck.View("r", dt, 3)
        r:set(0, 127)
        speck.parallel_for("at_bits_" .. dt, n, {r = r}, [[
          atomic_and(&r(0), ~(1 << (i % 5)) | 64);
          atomic_or(&r(1), 1 << (i % 7));
          atomic_xor(&r(2), i & 0x7f);
        ]])
        local x = 0
        for i = 0, n - 1 do x = x ~ (i & 0x7f) end
        assert.are.same({64 + 32, 127, x}, r:totable())
        local o = speck.View("o", "int64", 3)
        speck.parallel_for("at_fbits_" .. dt, 1, {o = o, r = r}, [[
          r(0) = 12; o(0) = atomic_fetch_and(&r(0), 10);
          r(1) = 12; o(1) = atomic_fetch_or(&r(1), 3);
          r(2) = 12; o(2) = atomic_fetch_xor(&r(2), 5);
        ]])
        assert.are.same({12, 12, 12}, o:totable())
        assert.are.same({8, 15, 9}, r:totable())
      end)
    end

    it("atomics on bool: or, and, xor, exchange, cas, min, max", function()
      local b = speck.View("b", "bool", 8)
      local wins = speck.View("wins", "int64", 1)
      b:set(1, true)
      b:set(3, true)
      b:set(4, true)
      b:set(6, true)
      speck.parallel_for("at_bool", 1000, {b = b, wins = wins}, [[
        if (i == 500) atomic_or(&b(0), true);
        if (i == 600) atomic_and(&b(1), false);
        atomic_xor(&b(2), true);               /* 1000 flips: false */
        if (atomic_cas(&b(5), false, true) == false) atomic_add(&wins(0), 1);
        if (i == 10) atomic_exchange(&b(3), false);
        atomic_min(&b(4), i != 3);
        atomic_max(&b(7), i == 999);
      ]])
      assert.are.same({true, false, false, false, false, true, true, true}, b:totable())
      assert.are.equal(1, wins(0))
    end)

    describe("the atomic memory trait", function()
      it("h(b) += 1 on an atomic view gives exact histogram counts", function()
        local n, nb = 100000, 17
        local h = speck.View("h", "int64", nb, {atomic = true})
        speck.parallel_for("trait_hist", n, {h = h}, "h((i * 7919) % 17) += 1;")
        local e = {}
        for b = 1, nb do e[b] = 0 end
        for i = 0, n - 1 do local b = (i * 7919) % 17 + 1 e[b] = e[b] + 1 end
        assert.are.same(e, h:totable())
      end)

      it("++, --, -=, |=, ^= and = on atomic views; comparisons untouched", function()
        local n = 1000
        local f = speck.View("f", "float64", 4, {atomic = true})
        local b = speck.View("b", "int32", 3, {atomic = true})
        local m = speck.View("m", "int32", 2, {atomic = true})
        speck.parallel_for("trait_ops", n, {f = f, b = b, m = m}, [[
          f(0) += 0.5; f(1)++; --f(2); f(3) -= 2;
          b(0) |= 1 << (i % 9); b(1) ^= 1; b(2) = 7;
          if (m(0) == 0 && m(0) <= 0 && m(0) >= 0) m(1) += 1;
        ]])
        assert.are.same({500, 1000, -1000, -2000}, f:totable())
        assert.are.same({511, 0, 7}, b:totable())
        assert.are.same({0, n}, m:totable())
      end)

      it("an atomic view's x(0)++ yields the old value (distinct tickets)", function()
        -- as Kokkos' atomic trait: postfix ++ is a fetch-add
        local n = 200
        local c = speck.View("c", "int64", 1, {atomic = true})
        local t = speck.View("t", "int64", n)
        speck.parallel_for("trait_ticket", n, {c = c, t = t}, "t(i) = c(0)++;")
        local seen = {}
        for i = 0, n - 1 do
          assert.is_nil(seen[t(i)])
          seen[t(i)] = true
        end
        assert.are.equal(n, c(0))
      end)
    end)

    it("float atomic_add sums exactly representable values exactly", function()
      local s = speck.View("s", "float64", 1)
      local f = speck.View("f", "float32", 1)
      speck.parallel_for("at_fadd", 100000, {s = s, f = f},
                         "atomic_add(&s(0), 0.5); atomic_add(&f(0), 0.25f);")
      assert.are.equal(50000, s(0))
      assert.are.equal(25000, f(0))
    end)
  end)

  -- -- compiled kernels and the JIT ----------------------------------------
  describe("speck.kernel", function()
    it("compiles once and runs with new views of the same signature", function()
      local x = speck.View("x", "float64", 10)
      local k = speck.kernel("k_for", "range", {x = x, a = 2.0}, "x(i) = a * i;")
      assert.is_truthy(tostring(k):find("k_for", 1, true))
      k(10, {x = x, a = 3.0})
      for i = 0, 9 do assert.are.equal(3 * i, x(i)) end
      local function compiles()
        local n = 0
        for _, e in ipairs(speck.jit.stats().per_kernel) do
          if e.label == "k_for" then
            for _, c in pairs(e.compiles) do n = n + c end
            n = n - e.tierups
          end
        end
        return n
      end
      local before = compiles()
      local y = speck.View("y", "float64", 1000)
      k(speck.RangePolicy(500, 1000), {x = y, a = 0.5})
      for i = 0, 999 do assert.are.equal(i < 500 and 0 or 0.5 * i, y(i)) end
      local z = speck.View("z", "float64", 3)
      k(3, {x = z, a = -1.0})
      assert.are.same({0, -1, -2}, z:totable())
      assert.are.equal(before, compiles())
    end)

    it("a reduce kernel", function()
      local x = speck.View.from({1, 2, 3, 4}, "float64")
      local k = speck.kernel("k_red", "range", {x = x}, "acc += x(i);",
                             {pattern = "reduce", reducer = "sum"})
      assert.are.equal(10, k(4, {x = x}))
      local y = speck.View.from({5, 6, 7}, "float64")
      assert.are.equal(18, k(3, {x = y}))
      assert.are.equal(13, k(speck.RangePolicy(1, 3), {x = y}))
    end)

    it("a reduce kernel with several reducers", function()
      local x = speck.View.from({3, -1, 4, 1, -5, 9}, "float64")
      local k = speck.kernel("k_red2", "range", {x = x},
                             "acc0 += x(i); if (x(i) > acc1) acc1 = x(i);",
                             {pattern = "reduce", reducer = {"sum", "max"}})
      local s, m = k(6, {x = x})
      assert.are.equal(11, s)
      assert.are.equal(9, m)
    end)

    it("a scan kernel", function()
      local y = speck.View("y", "int64", 6)
      local k = speck.kernel("k_scan", "range", {y = y},
                             "if (final) y(i) = acc; acc += i;",
                             {pattern = "scan", dtype = "int64"})
      assert.are.equal(15, k(6, {y = y}))
      assert.are.same({0, 0, 1, 3, 6, 10}, y:totable())
    end)

    it("an MDRange kernel", function()
      local a = speck.View("a", "int64", {3, 4})
      local k = speck.kernel("k_md", "mdrange2", {a = a}, "a(i, j) = i * j;")
      k(speck.MDRangePolicy({0, 0}, {3, 4}), {a = a})
      for i = 0, 2 do for j = 0, 3 do assert.are.equal(i * j, a(i, j)) end end
      local b = speck.View("b", "int64", {2, 2, 2})
      local k3 = speck.kernel("k_md3", "mdrange3", {b = b}, "b(i, j, k) = i + j + k;")
      k3(speck.MDRangePolicy({0, 0, 0}, {2, 2, 2}, {tile = {1, 1, 2}}), {b = b})
      each_index({0, 0, 0}, {2, 2, 2}, function(t)
        assert.are.equal(t[1] + t[2] + t[3], b(table.unpack(t)))
      end)
    end)

    it("a kernel built from a policy instead of a kind", function()
      local x = speck.View("x", "int64", 4)
      local k = speck.kernel("k_pol", speck.RangePolicy(0, 4), {x = x}, "x(i) = 7;")
      k(4, {x = x})
      assert.are.same({7, 7, 7, 7}, x:totable())
    end)

    it("rejects captures of a different signature", function()
      local x = speck.View("x", "float64", 10)
      local k = speck.kernel("k_sig", "range", {x = x}, "x(i) = 1;")
      local msg
      local ok = pcall(function() k(10, {x = speck.View("x", "int32", 10)}) end)
      assert.is_false(ok)
      assert.has_error(function() k(10, {x = speck.View("x", "float64", {2, 5})}) end)
      assert.has_error(function() k(10, {y = x}) end)
      assert.has_error(function() k(10, {x = x, extra = 1}) end)
      assert.has_error(function() k(10, {x = 1.0}) end)
      ok, msg = pcall(k, 10, {x = speck.View("x", "int32", 10)})
      assert.is_false(ok)
      assert.is_truthy(msg:find("speck.kernel 'k_sig': capture 'x' does not match "
                                .. "the kernel's signature (expected view float64 rank 1)",
                                1, true), msg)
      ok, msg = pcall(k, speck.MDRangePolicy({0, 0}, {2, 2}), {x = x})
      assert.is_false(ok)
      assert.is_truthy(msg:find("speck.kernel 'k_sig': policy does not match the "
                                .. "kernel's (compiled for a range)", 1, true), msg)
      -- still usable
      k(10, {x = x})
      assert.are.equal(1, x(9))
    end)
  end)

  describe("speck.jit", function()
    it("source(label) returns the generated source with the body", function()
      local body = "x(i) = 12345 + i; /* jit-source-marker */"
      speck.parallel_for("jit_src", 3, {x = speck.View("x", "int64", 3)}, body)
      local src = speck.jit.source("jit_src")
      assert.are.equal("string", type(src))
      assert.is_truthy(src:find(body, 1, true))
      assert.is_nil(speck.jit.source("no kernel has this label"))
    end)

    -- the kernel-cache entry of 'label' (labels are unique in this spec)
    local function entry(label)
      local found
      for _, e in ipairs(speck.jit.stats().per_kernel) do
        if e.label == label then
          assert.is_nil(found, "one kernel per label")
          found = e
        end
      end
      return found
    end
    local function ncompiles(e)
      local n = 0
      for _, c in pairs(e.compiles) do n = n + c end
      return n
    end

    it("a repeated launch is a cache hit, not a compile (jit = 'tcc')", function()
      if SPACE == "cuda" then return pending("libtcc is a host tier") end
      local label = "jit_stats_tcc"
      local x = speck.View("x", "int64", 8)
      local body = "x(i) += 1; /* stats probe, tcc */"
      local opts = {jit = "tcc"}
      speck.parallel_for(label, 8, {x = x}, body, opts)
      local s0, e0 = speck.jit.stats(), entry(label)
      assert.is_truthy(e0)
      assert.are.equal(1, e0.compiles.tcc)
      assert.are.equal("tcc", e0.tier)
      for _ = 1, 3 do speck.parallel_for(label, 8, {x = x}, body, opts) end
      -- new views of the same signature (other extents): still hits
      speck.parallel_for(label, 3, {x = speck.View("x2", "int64", 3)}, body, opts)
      local s1, e1 = speck.jit.stats(), entry(label)
      assert.are.equal(e0.hits + 4, e1.hits)
      assert.are.same(e0.compiles, e1.compiles)
      assert.are.equal(s0.hits + 4, s1.hits)
      assert.are.equal(s0.kernels, s1.kernels)
      assert.is_true(e1.launches >= e0.launches + 4)
      assert.are.same({4, 4, 4, 4, 4, 4, 4, 4}, x:totable())
      for _, k in ipairs{"kernels", "compiles", "hits", "tierups"} do
        assert.are.equal("integer", math.type(s1[k]))
      end
      assert.are.equal("number", type(s1.compile_seconds))
    end)

    it("a repeated launch is a cache hit, not a compile (default jit)", function()
      local label = "jit_stats_auto"
      local x = speck.View("x", "int64", 8)
      local body = "x(i) += 2; /* stats probe, default tier */"
      speck.parallel_for(label, 8, {x = x}, body)
      local e0 = entry(label)
      assert.is_truthy(e0)
      -- compiled by one tier, or loaded from the on-disk cache
      assert.are.equal(1, ncompiles(e0) + (e0.cache_hits or 0))
      for _ = 1, 3 do speck.parallel_for(label, 8, {x = x}, body) end
      local e1 = entry(label)
      assert.are.equal(e0.hits + 3, e1.hits)
      assert.are.equal(e0.compiles.tcc, e1.compiles.tcc)
      -- only a background tier-up may add a compile
      assert.are.equal(ncompiles(e0) - e0.tierups, ncompiles(e1) - e1.tierups)
      assert.are.same({8, 8, 8, 8, 8, 8, 8, 8}, x:totable())
    end)

    it("a kernel launched under a second label is found by that label", function()
      -- the label is not part of the cache key: the same body and
      -- signature under another label reuses the compiled kernel, but
      -- jit.source(label) is "the generated source of the last kernel
      -- with that label" (SPEC.md)
      local x = speck.View("x", "int64", 4)
      local body = "x(i) = 77; /* two labels */"
      speck.parallel_for("label_one", 4, {x = x}, body)
      speck.parallel_for("label_two", 4, {x = x}, body)
      assert.is_truthy(speck.jit.source("label_one"))
      local src = speck.jit.source("label_two")
      assert.is_truthy(src, "jit.source('label_two') is nil")
      assert.is_truthy(src:find(body, 1, true))
    end)

    it("a plain Lua process exits cleanly right after a launch", function()
      -- the standalone interpreter closes the state at exit, which unloads
      -- speck/core.so; nothing of it may still run then (pool workers)
      local lua = os.getenv("SPECK_LUA") or "lua"
      local probe = io.popen("command -v " .. lua)
      local found = probe:read("a")
      probe:close()
      if found == "" then
        pending("no standalone 'lua' interpreter")
        return
      end
      local script = 'local s = require "speck"; local x = s.View("x", "int64", 1000); '
                     .. 's.parallel_for("exit_probe", 1000, {x = x}, "x(i) = i;", '
                     .. '{jit = "tcc"}); assert(x(999) == 999)'
      -- jit = "tcc": a kernel loaded from the on-disk cache is a shared
      -- object that pins core.so in memory and hides the problem
      -- ten processes at once (each waits mostly for its device's start-up
      -- and its exit, one after another 9-19 s of a loaded GPU host's suite)
      local procs = {}
      for k = 1, 10 do
        procs[k] = io.popen(cat("SPECK_SPACE=", SPACE, " SPECK_THREADS=4 ", lua,
                                " -e '", script, "' 2>&1"))
      end
      for _, p in ipairs(procs) do
        local out = p:read("a")
        local ok, how, code = p:close()
        assert.is_true(ok, cat("exit: ", tostring(how), " ", tostring(code), " ", out))
      end
    end)

    it("SPECK_JIT_DUMP writes the generated source to a directory", function()
      local dir = os.tmpname()
      os.remove(dir)
      local cmd = cat("SPECK_JIT_DUMP='", dir, "' '", SPECK_BIN, "' -e ",
                      "'speck.parallel_for(\"dump probe\", 3, {}, \"(void)i; /* dumped */\")'",
                      " 2>&1")
      local p = io.popen(cmd)
      local out = p:read("a")
      local ok = p:close()
      assert.is_true(ok, out)
      local ls = io.popen(cat("ls '", dir, "'"))
      local files = ls:read("a")
      ls:close()
      local name = files:match("(dump_probe%-[%x]+%.c)")
      assert.is_truthy(name, files)
      local f = io.open(dir .. "/" .. name)
      local text = f:read("a")
      f:close()
      os.execute(cat("rm -rf '", dir, "'"))
      assert.is_truthy(text:find("/* dumped */", 1, true))
    end)
  end)
end)
