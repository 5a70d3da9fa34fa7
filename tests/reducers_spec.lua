local speck = require "speck"
-- reducers_spec.lua: parallel_reduce with every built-in reducer over
-- every dtype where it makes sense, custom reducers, several reducers at
-- once, identities of empty ranges, determinism, and MDRange reductions.
-- Every result is checked against plain Lua.

local SPACE = speck.info().default_space

local NUMS = {"float64", "float32", "int64", "int32", "int16", "int8",
              "uint64", "uint32", "uint8"}
local INTS = {"int64", "int32", "int16", "int8", "uint64", "uint32", "uint8"}
local IS_FLOAT = {float64 = true, float32 = true}
local IS_UNSIGNED = {uint64 = true, uint32 = true, uint8 = true}
local BITS = {int64 = 64, int32 = 32, int16 = 16, int8 = 8,
              uint64 = 64, uint32 = 32, uint8 = 8}
local INT_MIN = {int64 = math.mininteger, int32 = -(1 << 31), int16 = -(1 << 15),
                 int8 = -(1 << 7), uint64 = 0, uint32 = 0, uint8 = 0}
local INT_MAX = {int64 = math.maxinteger, int32 = (1 << 31) - 1,
                 int16 = (1 << 15) - 1, int8 = (1 << 7) - 1,
                 uint32 = (1 << 32) - 1, uint8 = (1 << 8) - 1}

-- C's (T)v for an integer dtype, as Lua reads the result back
local function wrap(dt, v)
  local bits = BITS[dt]
  if not bits or bits == 64 then return v end
  v = v & ((1 << bits) - 1)
  if not IS_UNSIGNED[dt] and v >= (1 << (bits - 1)) then v = v - (1 << bits) end
  return v
end

local function cat(...) return table.concat({...}) end

-- n values of 'dt' in range for it, with negatives for signed types:
-- the view and the same values as a Lua list (1-based)
local function sample(dt, n, seed)
  local vals = {}
  local s = seed or 12345
  local span = (dt == "int8" or dt == "uint8") and 100 or 1000
  for k = 1, n do
    s = (s * 1103515245 + 12345) % 2147483648
    local v = s % span
    if not IS_UNSIGNED[dt] then v = v - span // 2 end
    if IS_FLOAT[dt] then v = v + 0.5 end   -- exact in float32
    vals[k] = v
  end
  return speck.View.from(vals, dt), vals
end

describe("reducers on " .. SPACE, function()

  -- -- sum / prod / min / max for every numeric dtype ----------------------
  for _, dt in ipairs(NUMS) do
    describe(dt, function()
      it("sum", function()
        -- a sum that fits every dtype: 40 values of at most 3 in magnitude
        local n = 40
        local vals = {}
        for k = 1, n do
          vals[k] = IS_UNSIGNED[dt] and (k % 4) or (k % 7) - 3
          if IS_FLOAT[dt] then vals[k] = vals[k] + 0.25 end
        end
        local x = speck.View.from(vals, dt)
        local e = 0
        for _, v in ipairs(vals) do e = e + v end
        local r = speck.parallel_reduce("sum_" .. dt, n, {x = x}, "acc += x(i);",
                                        {op = "sum", dtype = dt})
        assert.are.equal(e, r)
        assert.are.equal(IS_FLOAT[dt] and "float" or "integer", math.type(r))
      end)

      it("sum over many items (integer wrap-around is order independent)", function()
        local n = 100000
        local r = speck.parallel_reduce("sumbig_" .. dt, n, {},
                                        "acc += i % 5;", {op = "sum", dtype = dt})
        local e = 0
        for i = 0, n - 1 do e = e + i % 5 end
        if not IS_FLOAT[dt] then e = wrap(dt, e) end
        assert.are.equal(e, r)
      end)

      it("prod", function()
        -- 2^k (and a sign for signed types) within every dtype's range
        local n = 30
        local vals = {}
        local e = 1
        for k = 1, n do
          local v = (k % 5 == 0) and 2 or 1
          if not IS_UNSIGNED[dt] and k % 9 == 0 then v = -v end
          vals[k] = v
          e = e * v
        end
        local x = speck.View.from(vals, dt)
        local r = speck.parallel_reduce("prod_" .. dt, n, {x = x}, "acc *= x(i);",
                                        {op = "prod", dtype = dt})
        assert.are.equal(e, r)
      end)

      it("min and max", function()
        local x, vals = sample(dt, 3001, 7)
        local lo, hi = math.huge, -math.huge
        for _, v in ipairs(vals) do lo = math.min(lo, v) hi = math.max(hi, v) end
        local rmin = speck.parallel_reduce("min_" .. dt, #vals, {x = x},
                                           "if (x(i) < acc) acc = x(i);",
                                           {op = "min", dtype = dt})
        local rmax = speck.parallel_reduce("max_" .. dt, #vals, {x = x},
                                           "if (x(i) > acc) acc = x(i);",
                                           {op = "max", dtype = dt})
        assert.are.equal(lo, rmin)
        assert.are.equal(hi, rmax)
      end)

      it("minloc and maxloc (ties pick the smallest index)", function()
        local n = 2500
        local x, vals = sample(dt, n, 99)
        local lo, hi = math.huge, -math.huge
        for _, v in ipairs(vals) do lo = math.min(lo, v) hi = math.max(hi, v) end
        -- plant ties: the extreme values at several places, far apart
        for _, p in ipairs{2400, 1700, 900, 1300} do
          x:set(p, lo) vals[p + 1] = lo
        end
        for _, p in ipairs{2300, 600, 2450} do
          x:set(p, hi) vals[p + 1] = hi
        end
        local lmin, lmax
        for k = 1, n do
          if vals[k] == lo and not lmin then lmin = k - 1 end
          if vals[k] == hi and not lmax then lmax = k - 1 end
        end
        local v, loc = speck.parallel_reduce("minloc_" .. dt, n, {x = x}, [[
          if (x(i) < acc.val) { acc.val = x(i); acc.loc = i; }
        ]], {op = "minloc", dtype = dt})
        assert.are.equal(lo, v)
        assert.are.equal(lmin, loc)
        assert.are.equal("integer", math.type(loc))
        v, loc = speck.parallel_reduce("maxloc_" .. dt, n, {x = x}, [[
          if (x(i) > acc.val) { acc.val = x(i); acc.loc = i; }
        ]], {op = "maxloc", dtype = dt})
        assert.are.equal(hi, v)
        assert.are.equal(lmax, loc)
      end)

      it("minloc over all-equal values picks index 0 of the range", function()
        local n = 1000
        local x = speck.View("x", dt, n)
        x:fill(5)
        for _, sched in ipairs{"static", "dynamic"} do
          local v, loc = speck.parallel_reduce("minloc_eq_" .. dt,
            speck.RangePolicy(10, n, {schedule = sched, chunk = 7}), {x = x},
            "if (x(i) < acc.val) { acc.val = x(i); acc.loc = i; }",
            {op = "minloc", dtype = dt})
          assert.are.equal(5, v)
          assert.are.equal(10, loc)
        end
      end)

      it("minmax", function()
        local x, vals = sample(dt, 1234, 3)
        local lo, hi = math.huge, -math.huge
        for _, v in ipairs(vals) do lo = math.min(lo, v) hi = math.max(hi, v) end
        local a, b = speck.parallel_reduce("minmax_" .. dt, #vals, {x = x}, [[
          if (x(i) < acc.min_val) acc.min_val = x(i);
          if (x(i) > acc.max_val) acc.max_val = x(i);
        ]], {op = "minmax", dtype = dt})
        assert.are.equal(lo, a)
        assert.are.equal(hi, b)
      end)

      it("empty ranges give the identities", function()
        local function red(op)
          return speck.parallel_reduce("empty_" .. op .. "_" .. dt, 0, {}, "", {op = op, dtype = dt})
        end
        assert.are.equal(0, red("sum"))
        assert.are.equal(1, red("prod"))
        if IS_FLOAT[dt] then
          assert.are.equal(math.huge, red("min"))
          assert.are.equal(-math.huge, red("max"))
        else
          if dt ~= "uint64" then assert.are.equal(INT_MAX[dt], red("min")) end
          assert.are.equal(INT_MIN[dt], red("max"))
        end
        local v, loc = red("minloc")
        assert.are.equal(-1, loc)
        if IS_FLOAT[dt] then assert.are.equal(math.huge, v) end
        v, loc = red("maxloc")
        assert.are.equal(-1, loc)
        if IS_FLOAT[dt] then assert.are.equal(-math.huge, v) end
        local a, b = red("minmax")
        if IS_FLOAT[dt] then
          assert.are.equal(math.huge, a)
          assert.are.equal(-math.huge, b)
        else
          assert.are.equal(INT_MIN[dt], b)
        end
      end)
    end)
  end

  -- -- default dtypes --------------------------------------------------------
  describe("default dtypes", function()
    it("sum (the default reducer) is float64", function()
      local r = speck.parallel_reduce("def_sum", 10, {}, "acc += i / 4.0;")
      assert.are.equal(11.25, r)
      assert.are.equal("float", math.type(r))
    end)

    it("minloc's location is an int64, its value a float64", function()
      local x = speck.View.from({3.5, -1.25, 7, -1.25}, "float64")
      local v, loc = speck.parallel_reduce("def_minloc", 4, {x = x},
        "if (x(i) < acc.val) { acc.val = x(i); acc.loc = i; }", "minloc")
      assert.are.equal(-1.25, v)
      assert.are.equal(1, loc)
      assert.are.equal("integer", math.type(loc))
    end)

    it("band / bor default to int64, land / lor to bool", function()
      local b = speck.parallel_reduce("def_band", 0, {}, "", "band")
      assert.are.equal(-1, b)
      assert.are.equal("integer", math.type(b))
      assert.are.equal(0, speck.parallel_reduce("def_bor", 0, {}, "", "bor"))
      assert.are.equal(true, speck.parallel_reduce("def_land", 0, {}, "", "land"))
      assert.are.equal(false, speck.parallel_reduce("def_lor", 0, {}, "", "lor"))
    end)

    it("empty ranges give the identities (defaults)", function()
      assert.are.equal(0, speck.parallel_reduce("e_sum", 0, {}, "acc += 1;"))
      assert.are.equal(1, speck.parallel_reduce("e_prod", 0, {}, "acc *= 2;", "prod"))
      assert.are.equal(math.huge, speck.parallel_reduce("e_min", 0, {}, "", "min"))
      assert.are.equal(-math.huge, speck.parallel_reduce("e_max", 0, {}, "", "max"))
      local v, loc = speck.parallel_reduce("e_minloc", 0, {}, "", "minloc")
      assert.are.equal(math.huge, v)
      assert.are.equal(-1, loc)
      v, loc = speck.parallel_reduce("e_maxloc", 0, {}, "", "maxloc")
      assert.are.equal(-math.huge, v)
      assert.are.equal(-1, loc)
      local a, b = speck.parallel_reduce("e_minmax", 0, {}, "", "minmax")
      assert.are.equal(math.huge, a)
      assert.are.equal(-math.huge, b)
      -- an empty RangePolicy with begin > 0 too
      assert.are.equal(0, speck.parallel_reduce("e_sum_be", speck.RangePolicy(9, 9),
                                                {}, "acc += 1;"))
    end)
  end)

  -- -- logical and bitwise ----------------------------------------------------
  describe("land / lor on bool", function()
    for _, case in ipairs{
      {"all true", function() return true end, true, true},
      {"one false", function(i) return i ~= 777 end, false, true},
      {"all false", function() return false end, false, false},
      {"one true", function(i) return i == 5 end, false, true},
    } do
      it(case[1], function()
        local n = 1000
        local vals = {}
        for i = 0, n - 1 do vals[i + 1] = case[2](i) end
        local x = speck.View.from(vals, "bool")
        local a = speck.parallel_reduce("land", n, {x = x}, "acc = acc && x(i);",
                                        "land")
        local o = speck.parallel_reduce("lor", n, {x = x}, "acc = acc || x(i);",
                                        {op = "lor", dtype = "bool"})
        assert.are.equal(case[3], a)
        assert.are.equal(case[4], o)
      end)
    end
  end)

  describe("band / bor on integer dtypes", function()
    for _, dt in ipairs(INTS) do
      it(dt, function()
        local n = 3000
        local bits = BITS[dt]
        -- band: every item clears at most one of the low bits (never bit 2)
        local all = bits == 64 and -1 or ((1 << bits) - 1)
        local ea, eo = all, 0
        for i = 0, n - 1 do
          local clr = (i % 11 == 3) and (1 << (i % (bits - 1))) or 0
          if clr == 4 then clr = 0 end
          ea = ea & ~clr
          eo = eo | (1 << ((i * 7) % (bits - 1)))
        end
        local a = speck.parallel_reduce("band_" .. dt, n, {}, cat([[
          uint64_t clr = (i % 11 == 3) ? ((uint64_t)1 << (i % ]], bits - 1, [[)) : 0;
          if (clr == 4) clr = 0;
          acc &= ~clr;
        ]]), {op = "band", dtype = dt})
        local o = speck.parallel_reduce("bor_" .. dt, n, {}, cat(
          "acc |= (uint64_t)1 << ((i * 7) % ", bits - 1, ");"),
          {op = "bor", dtype = dt})
        assert.are.equal(wrap(dt, ea), a)
        assert.are.equal(wrap(dt, eo), o)
        -- identities
        assert.are.equal(wrap(dt, all), speck.parallel_reduce("band_e_" .. dt, 0, {}, "",
                                                              {op = "band", dtype = dt}))
        assert.are.equal(0, speck.parallel_reduce("bor_e_" .. dt, 0, {}, "",
                                                  {op = "bor", dtype = dt}))
      end)
    end
  end)

  -- -- custom reducers -----------------------------------------------------------
  -- A uint64 result is returned as the Lua integer with the same 64 bits.
  -- Lua integers are 64-bit two's complement and wrap, so a result at or
  -- above 2^63 reads as negative; it is exact, and Lua's unsigned tools
  -- read it: math.ult to compare, "%u" / "%x" to print, >> (a logical
  -- shift), and r + 2.0^64 for a float. docs/guide.md ("Reductions").
  describe("uint64 results at or above 2^63", function()
    local function u64(label, n, body, op)
      return speck.parallel_reduce(label, n, {}, body, {op = op or "sum", dtype = "uint64"})
    end

    it("a sum of 3 * 2^62 keeps its bits and reads correctly as unsigned", function()
      local r = u64("u64_sum_big", 3, "acc += (uint64_t)1 << 62;")
      assert.are.equal("integer", math.type(r))
      assert.are.equal(3 * (1 << 62), r)                    -- the same wrapped Lua arithmetic
      assert.are.equal(-(1 << 62), r)                       -- i.e. 3 * 2^62 - 2^64
      assert.are.equal("13835058055282163712", ("%u"):format(r))
      assert.are.equal("c000000000000000", ("%x"):format(r))
      assert.are.equal(3, r >> 62)                          -- >> shifts in zeros
      assert.is_true(math.ult(math.maxinteger, r))          -- above 2^63 - 1, unsigned
      assert.is_true(math.ult(r, -1))                       -- below 2^64 - 1
      local f = r < 0 and r + 2.0 ^ 64 or r + 0.0           -- as a float (rounded above 2^53)
      assert.are.equal(3 * 2.0 ^ 62, f)
      -- back into a kernel as a uint64 scalar: the same value
      assert.are.equal(1, speck.parallel_reduce("u64_back", 1, {u = {"uint64", r}},
        "acc += u == 3 * ((uint64_t)1 << 62) && u > ((uint64_t)1 << 63);",
        {op = "sum", dtype = "int64"}))
    end)

    it("a sum past 2^64 wraps as in C, and below 2^63 nothing changes", function()
      assert.are.equal(1 << 62, u64("u64_sum_wrap", 5, "acc += (uint64_t)1 << 62;"))
      assert.are.equal(math.maxinteger,
                       u64("u64_sum_small", 1, "acc += ((uint64_t)1 << 63) - 1;"))
      assert.are.equal(math.mininteger, u64("u64_sum_263", 2, "acc += (uint64_t)1 << 62;"))
      assert.are.equal("9223372036854775808", ("%u"):format(math.mininteger))
    end)

    it("max, the empty min and bor above 2^63", function()
      local mx = u64("u64_max_big", 10, "uint64_t v = ~(uint64_t)0 - (uint64_t)i; if (v > acc) acc = v;",
                     "max")
      assert.are.equal(-1, mx)                              -- 2^64 - 1
      assert.are.equal("18446744073709551615", ("%u"):format(mx))
      assert.are.equal(-1, u64("u64_min_empty", 0, "", "min"))   -- the identity, 2^64 - 1
      local b = u64("u64_bor_top", 4, "acc |= (uint64_t)1 << (60 + i);", "bor")
      assert.are.equal("f000000000000000", ("%x"):format(b))
      assert.is_true(b & (1 << 63) ~= 0)                    -- bit 63 is set
    end)

    it("minloc, minmax and a scan total behave alike", function()
      local v, loc = speck.parallel_reduce("u64_maxloc", 4, {},
        "uint64_t x = ((uint64_t)1 << 63) + (uint64_t)i; if (x > acc.val) { acc.val = x; acc.loc = i; }",
        {op = "maxloc", dtype = "uint64"})
      assert.are.equal(3, loc)
      assert.are.equal("9223372036854775811", ("%u"):format(v))
      local lo, hi = speck.parallel_reduce("u64_minmax", 2, {},
        "uint64_t x = i ? ~(uint64_t)0 : 5; if (x < acc.min_val) acc.min_val = x; "
        .. "if (x > acc.max_val) acc.max_val = x;", {op = "minmax", dtype = "uint64"})
      assert.are.equal(5, lo)
      assert.are.equal(-1, hi)
      local total = speck.parallel_scan("u64_scan", 2, {}, "acc += (uint64_t)3 << 62;",
                                        {dtype = "uint64"})
      assert.are.equal("9223372036854775808", ("%u"):format(total))   -- 6 * 2^62 mod 2^64
    end)
  end)

  describe("custom reducers", function()
    it("a float64 sum", function()
      local n = 1000
      local r = speck.parallel_reduce("custom_sum", n, {}, "acc += i * 0.5;",
                                      {dtype = "float64", init = "acc = 0;",
                                       join = "dst += src;"})
      assert.are.equal(0.5 * n * (n - 1) / 2, r)
    end)

    it("an int64 max of |x| with a non-trivial init", function()
      local x, vals = sample("int64", 5000, 42)
      local e = 17
      for _, v in ipairs(vals) do e = math.max(e, math.abs(v)) end
      local r = speck.parallel_reduce("custom_absmax", #vals, {x = x}, [[
        int64_t a = x(i) < 0 ? -x(i) : x(i);
        if (a > acc) acc = a;
      ]], {dtype = "int64", init = "acc = 17;", join = "if (src > dst) dst = src;"})
      assert.are.equal(e, r)
      assert.are.equal("integer", math.type(r))
      -- the init is the identity of an empty range
      assert.are.equal(17, speck.parallel_reduce("custom_absmax", 0, {x = x}, [[
        int64_t a = x(i) < 0 ? -x(i) : x(i);
        if (a > acc) acc = a;
      ]], {dtype = "int64", init = "acc = 17;", join = "if (src > dst) dst = src;"}))
    end)

    it("an int32 count with a multi-statement join", function()
      local n = 10000
      local r = speck.parallel_reduce("custom_count", n, {}, "if (i % 3 == 0) acc++;",
        {dtype = "int32", init = "acc = 0;", join = "int32_t t = dst; t += src; dst = t;"})
      assert.are.equal((n + 2) // 3, r)
    end)

    it("a float32 product", function()
      local r = speck.parallel_reduce("custom_prod32", 20, {},
        "acc *= (i % 4 == 0) ? 2.0f : 1.0f;",
        {dtype = "float32", init = "acc = 1;", join = "dst *= src;"})
      assert.are.equal(32, r)
    end)

    it("a bool 'any odd' reducer", function()
      local x = speck.View.from({2, 4, 6, 9, 10}, "int32")
      local any = {dtype = "bool", init = "acc = false;", join = "dst = dst || src;"}
      assert.are.equal(true, speck.parallel_reduce("custom_any", 5, {x = x},
                                                   "acc = acc || (x(i) & 1);", any))
      assert.are.equal(false, speck.parallel_reduce("custom_any", 3, {x = x},
                                                    "acc = acc || (x(i) & 1);", any))
    end)

    it("a custom reducer next to built-in ones", function()
      local n = 100
      local a, b, c = speck.parallel_reduce("custom_mixed", n, {}, [[
        acc0 += i; if (i > acc1) acc1 = i; acc2 ^= i;
      ]], {"sum", {op = "max", dtype = "int32"},
           {dtype = "int64", init = "acc = 0;", join = "dst ^= src;"}})
      local x = 0
      for i = 0, n - 1 do x = x ~ i end
      assert.are.equal(n * (n - 1) / 2, a)
      assert.are.equal(n - 1, b)
      assert.are.equal(x, c)
    end)
  end)

  -- -- several reducers at once ----------------------------------------------------
  describe("several reducers", function()
    it("{'sum', 'max', 'minloc'} returns sum, max, min, index", function()
      local x, vals = sample("float64", 4000, 5)
      local s, hi, lo, lix = 0, -math.huge, math.huge, nil
      for k, v in ipairs(vals) do
        s = s + v
        hi = math.max(hi, v)
        if v < lo then lo, lix = v, k - 1 end
      end
      local r = table.pack(speck.parallel_reduce("multi", #vals, {x = x}, [[
        acc0 += x(i);
        if (x(i) > acc1) acc1 = x(i);
        if (x(i) < acc2.val) { acc2.val = x(i); acc2.loc = i; }
      ]], {"sum", "max", "minloc"}))
      assert.are.equal(4, r.n)
      assert.is_true(math.abs(s - r[1]) < 1e-9)
      assert.are.equal(hi, r[2])
      assert.are.equal(lo, r[3])
      assert.are.equal(lix, r[4])
    end)

    it("minloc, maxloc and minmax contribute two values each", function()
      local vals = {5, -3, 8, -3, 8, 1}
      local x = speck.View.from(vals, "int32")
      local r = table.pack(speck.parallel_reduce("multi2", #vals, {x = x}, [[
        if (x(i) < acc0.min_val) acc0.min_val = x(i);
        if (x(i) > acc0.max_val) acc0.max_val = x(i);
        if (x(i) > acc1.val) { acc1.val = x(i); acc1.loc = i; }
        acc2 += x(i);
        if (x(i) < acc3.val) { acc3.val = x(i); acc3.loc = i; }
        acc4 = acc4 && x(i) != 0;
      ]], {{op = "minmax", dtype = "int32"}, {op = "maxloc", dtype = "int32"},
           {op = "sum", dtype = "int64"}, "minloc", "land"}))
      assert.are.equal(8, r.n)
      assert.are.same({-3, 8, 8, 2, 16, -3, 1, true},
                      {r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]})
      for k = 1, 5 do assert.are.equal("integer", math.type(r[k])) end
      assert.are.equal("float", math.type(r[6]))
    end)

    it("several reducers over an empty range give all identities", function()
      local r = table.pack(speck.parallel_reduce("multi_empty", 0, {}, "",
        {"sum", "prod", "min", "max", "minloc", "land", "lor", "band", "bor"}))
      assert.are.equal(10, r.n)
      assert.are.same({0, 1, math.huge, -math.huge, math.huge, -1, true, false, -1, 0},
                      {r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10]})
    end)

    it("reducers of mixed dtypes keep their own types", function()
      local a, b, c = speck.parallel_reduce("multi_dt", 100, {},
        "acc0 += 1; acc1 += 0.5f; acc2 += i;",
        {{op = "sum", dtype = "int8"}, {op = "sum", dtype = "float32"},
         {op = "sum", dtype = "uint32"}})
      assert.are.equal(100, a)
      assert.are.equal(50, b)
      assert.are.equal(4950, c)
      assert.are.equal("integer", math.type(a))
      assert.are.equal("float", math.type(b))
    end)

    it("a reducer list and options together", function()
      local s, m = speck.parallel_reduce("multi_opts", 10, {}, "acc0 += sq(i); acc1 = fmax(acc1, sq(i));",
        {"sum", "max"}, {prelude = "SPECK_FN double sq(double x) { return x * x; }"})
      assert.are.equal(285, s)
      assert.are.equal(81, m)
    end)
  end)

  -- -- determinism ---------------------------------------------------------------
  describe("determinism", function()
    local n = 1000000
    local x
    setup(function()
      x = speck.View("x", "float64", n)
      speck.parallel_for("det_fill", n, {x = x}, [[
        double sign = (i & 1) ? -1.0 : 1.0;
        x(i) = sign * pow(10.0, (double)(i % 23) - 11.0) * (1.0 + 1e-7 * (double)i);
      ]])
    end)

    for _, pol in ipairs{
      {"an integer n", n},
      {"a static RangePolicy", speck.RangePolicy(0, n)},
      {"a dynamic RangePolicy", speck.RangePolicy(0, n, {schedule = "dynamic", chunk = 1000})},
      {"a dynamic RangePolicy without chunk", speck.RangePolicy(0, n, {schedule = "dynamic"})},
    } do
      it(cat("a float64 sum of 1e6 values of varying magnitude is bitwise identical ",
             "across 5 runs (", pol[1], ")"), function()
        local first = speck.parallel_reduce("det_sum", pol[2], {x = x}, "acc += x(i);")
        for _ = 1, 4 do
          assert.is_true(first == speck.parallel_reduce("det_sum", pol[2], {x = x},
                                                        "acc += x(i);"))
        end
        -- and close to a compensated Lua sum
        local s, c = 0.0, 0.0
        local t = x:totable()
        for k = 1, n do
          local y = t[k] - c
          local u = s + y
          c = (u - s) - y
          s = u
        end
        assert.is_true(math.abs(first - s) <= 1e-9 * math.abs(s) + 1e-6,
                       cat(first, " vs ", s))
      end)
    end

    it("several float reducers are bitwise identical across 5 runs", function()
      local a0, b0, c0 = speck.parallel_reduce("det_multi", n, {x = x},
        "acc0 += x(i); acc1 *= 1.0 + x(i) * 1e-15; acc2 += (float)x(i);",
        {"sum", "prod", {op = "sum", dtype = "float32"}})
      for _ = 1, 4 do
        local a, b, c = speck.parallel_reduce("det_multi", n, {x = x},
          "acc0 += x(i); acc1 *= 1.0 + x(i) * 1e-15; acc2 += (float)x(i);",
          {"sum", "prod", {op = "sum", dtype = "float32"}})
        assert.is_true(a == a0 and b == b0 and c == c0)
      end
    end)

    for _, dt in ipairs{"int64", "int32", "uint64", "uint32"} do
      it(cat("an ", dt, " sum equals an order-independent integer reference"), function()
        local m = 1000000
        local r = speck.parallel_reduce("det_int_" .. dt, m, {},
                                        "acc += (i * 2654435761u) % 1000003;",
                                        {op = "sum", dtype = dt})
        local e = 0
        for i = 0, m - 1 do e = e + (i * 2654435761) % 1000003 end
        assert.are.equal(wrap(dt, e), r)
      end)
    end

    it("an int64 sum with a dynamic schedule equals the reference", function()
      local m = 300000
      local r = speck.parallel_reduce("det_int_dyn", speck.RangePolicy(7, m,
                                      {schedule = "dynamic", chunk = 13}), {},
                                      "acc += i * i;", {op = "sum", dtype = "int64"})
      local e = 0
      for i = 7, m - 1 do e = e + i * i end
      assert.are.equal(e, r)
    end)
  end)

  -- -- ranges and MDRanges ---------------------------------------------------------
  describe("reduction policies", function()
    it("RangePolicy(b, e) with b > 0", function()
      local r = speck.parallel_reduce("red_be", speck.RangePolicy(100, 200), {},
                                      "acc += i;", {op = "sum", dtype = "int64"})
      assert.are.equal((100 + 199) * 100 // 2, r)
    end)

    it("n = 1", function()
      local v, loc = speck.parallel_reduce("red_one", 1, {},
        "acc.val = 3.5; acc.loc = i;", "maxloc")
      assert.are.equal(3.5, v)
      assert.are.equal(0, loc)
    end)

    for _, tile in ipairs{false, {4, 5}, {1, 64}, {7, 1}} do
      it(cat("a sum over a 2D MDRange", tile and cat(" with tile {", tile[1], ", ",
             tile[2], "}") or ""), function()
        local a = speck.View("a", "float64", {60, 45})
        speck.parallel_for("md_fill", speck.MDRangePolicy({0, 0}, {60, 45}), {a = a},
                           "a(i, j) = (double)((i * 37 + j * 11) % 101);")
        local pol = speck.MDRangePolicy({3, 2}, {57, 44}, tile and {tile = tile} or nil)
        local s = speck.parallel_reduce("md_sum", pol, {a = a}, "acc += a(i, j);")
        local v, loc = speck.parallel_reduce("md_maxloc", pol, {a = a},
          [[ int64_t l = i * 1000 + j;
             if (a(i, j) > acc.val || (a(i, j) == acc.val && l < acc.loc)) {
               acc.val = a(i, j); acc.loc = l; } ]],
          "maxloc")
        local cnt = speck.parallel_reduce("md_count", pol, {}, "acc += 1;",
                                          {op = "sum", dtype = "int64"})
        local e, hi, hloc = 0, -1, nil
        for i = 3, 56 do for j = 2, 43 do
          local w = (i * 37 + j * 11) % 101
          e = e + w
          if w > hi or (w == hi and i * 1000 + j < hloc) then hi, hloc = w, i * 1000 + j end
        end end
        assert.are.equal(e, s)
        assert.are.equal(hi, v)
        assert.are.equal(hloc, loc)
        assert.are.equal(54 * 42, cnt)
      end)
    end

    it("a reduce over a 3D MDRange with custom index names", function()
      local r = speck.parallel_reduce("md3_sum", speck.MDRangePolicy({1, 0, 2}, {5, 6, 7},
                                      {tile = {2, 4, 3}}), {},
                                      "acc += p * 100 + q * 10 + r;",
                                      {op = "sum", dtype = "int64"},
                                      {index = {"p", "q", "r"}})
      local e = 0
      for p = 1, 4 do for q = 0, 5 do for r2 = 2, 6 do e = e + p * 100 + q * 10 + r2 end end end
      assert.are.equal(e, r)
    end)

    it("a reduce over an empty MDRange gives the identity", function()
      assert.are.equal(0, speck.parallel_reduce("md_empty", speck.MDRangePolicy({0, 5}, {4, 5}),
                                                {}, "acc += 1;"))
      local v, loc = speck.parallel_reduce("md_empty_loc", speck.MDRangePolicy({2, 0}, {2, 5}),
                                           {}, "", "minloc")
      assert.are.equal(math.huge, v)
      assert.are.equal(-1, loc)
    end)

    it("a reduce over a rank-4 MDRange", function()
      local r = speck.parallel_reduce("md4_sum", speck.MDRangePolicy({0, 1, 0, 2}, {3, 4, 5, 6}),
                                      {}, "acc += i0 * i1 + i2 * i3;",
                                      {op = "sum", dtype = "int64"})
      local e = 0
      for a = 0, 2 do for b = 1, 3 do for c = 0, 4 do for d = 2, 5 do
        e = e + a * b + c * d
      end end end end
      assert.are.equal(e, r)
    end)
  end)
end)
