-- view_spec.lua: speck.View and friends (subview, deep_copy, mirrors,
-- resize/realloc, View.from/totable), run once per back end (SPECK_SPACE).
-- Views whose elements the spec reads live in HS: the active back end's
-- space when the CPU can reach it, else "host"; views in the default space
-- are only reached through mirrors and deep_copy.
local speck = require "speck"

local DEFAULT = speck.View("probe", "float64", 1):space()
local HOST_OK = {host = true, cuda_pinned = true, cuda_uvm = true}
local HS = HOST_OK[DEFAULT] and DEFAULT or "host"

-- a view in HS unless the options say otherwise; layout right unless they
-- say otherwise (the layout arithmetic below is written for it; GPU spaces
-- default to left, which the "lays out" test checks on its own)
local function V(label, dtype, dims, opts)
  opts = opts or {}
  if opts.space == nil and opts.data == nil then opts.space = HS end
  if opts.layout == nil and opts.data == nil then opts.layout = "right" end
  return speck.View(label, dtype, dims, opts)
end

-- the message of the error raised by f(...), without the "file:line: "
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

local function assert_error(msg, f, ...)
  assert.are.equal(msg, err_of(f, ...))
end

-- every index tuple of extents 'ext' (0-based), in row-major order
local function each_index(ext)
  local idx, n, done = {}, #ext, false
  for d = 1, n do
    if ext[d] == 0 then done = true end
    idx[d] = 0
  end
  return function()
    if done then return nil end
    local cur = {table.unpack(idx, 1, n)}
    local d = n
    while d >= 1 do
      idx[d] = idx[d] + 1
      if idx[d] < ext[d] then break end
      idx[d] = 0
      d = d - 1
    end
    if d < 1 then done = true end
    return cur
  end
end

-- a view that must keep its data through every error below
local keep = V("keep", "int32", {2, 3})
for i = 0, 1 do for j = 0, 2 do keep:set(i, j, 10 * i + j) end end
local function keep_intact()
  for i = 0, 1 do
    for j = 0, 2 do assert.are.equal(10 * i + j, keep(i, j)) end
  end
end

local DTYPES = {"float64", "float32", "int64", "int32", "int16", "int8",
                "uint64", "uint32", "uint8", "bool"}

describe("speck.View", function()
  after_each(keep_intact)

  it("exposes the dtype constants", function()
    for _, t in ipairs(DTYPES) do assert.are.equal(t, speck[t]) end
    assert.are.equal("float64", speck.double)
    assert.are.equal("float32", speck.float)
  end)

  it("creates zero-filled views of every dtype", function()
    for _, t in ipairs(DTYPES) do
      local v = V("v_" .. t, t, 4)
      assert.are.equal(t, v:dtype())
      assert.are.equal(4, v:size())
      assert.are.equal(4, #v)
      for i = 0, 3 do
        if t == "bool" then
          assert.are.equal(false, v(i))
        else
          assert.are.equal(0, v(i))
        end
      end
    end
    assert.are.equal("float64", V("d", "double", 1):dtype())
    assert.are.equal("float32", V("f", "float", 1):dtype())
  end)

  it("returns integers, floats and booleans by dtype", function()
    for _, t in ipairs(DTYPES) do
      local v = V("v", t, 3)
      if t == "bool" then
        v[0] = true; v[1] = 1; v[2] = 0.0
        assert.are.same({true, true, false}, v:totable())
      else
        v[0] = 7; v[1] = 7.0
        local kind = (t:sub(1, 5) == "float") and "float" or "integer"
        assert.are.equal(kind, math.type(v(0)))
        assert.are.equal(kind, math.type(v(1)))
        assert.are.equal(7, v(0))
        assert.are.equal(7, v(1))
      end
    end
  end)

  it("stores the full range of each integer dtype", function()
    local lim = {
      int8 = {-128, 127}, int16 = {-32768, 32767},
      int32 = {-2147483648, 2147483647},
      int64 = {math.mininteger, math.maxinteger},
      uint8 = {0, 255}, uint32 = {0, 4294967295}, uint64 = {0, math.maxinteger},
    }
    for t, r in pairs(lim) do
      local v = V("r", t, 2)
      v[0], v[1] = r[1], r[2]
      assert.are.equal(r[1], v[0])
      assert.are.equal(r[2], v[1])
    end
    local u = V("u", "uint64", 1)
    u[0] = 2.0 ^ 63                     -- beyond int64: read back as a float
    assert.are.equal(2.0 ^ 63, u[0])
    local f = V("f", "float32", 1)
    f[0] = 0.1
    assert.are_not.equal(0.1, f[0])
    assert.is_true(math.abs(f[0] - 0.1) < 1e-7)
  end)

  it("rejects values that do not fit the dtype", function()
    local i = V("i", "int32", 2)
    local u = V("u", "uint8", 2)
    local b = V("b", "bool", 2)
    local d = V("d", "float64", 2)
    local u64 = V("w", "uint64", 1)
    assert_error("View 'i': cannot store 1.5 in int32 (not an integer)",
                 function() i[0] = 1.5 end)
    assert_error("View 'i': cannot store 2147483648 in int32 (out of range "
                 .. "[-2147483648, 2147483647])", function() i[1] = 2 ^ 31 | 0 end)
    assert_error("View 'u': cannot store 300 in uint8 (out of range [0, 255])",
                 function() u[0] = 300 end)
    assert_error("View 'u': cannot store -1 in uint8 (out of range [0, 255])",
                 function() u:set(1, -1) end)
    assert_error("View 'w': cannot store -1 in uint64 (out of range "
                 .. "[0, 18446744073709551615])", function() u64[0] = -1 end)
    assert_error("View 'b': cannot store 2 in bool (use true, false, 0 or 1)",
                 function() b[0] = 2 end)
    assert_error("View 'b': cannot store 'yes' in bool", function() b[0] = "yes" end)
    assert_error("View 'd': cannot store '1' in float64", function() d[0] = "1" end)
    assert_error("View 'd': cannot store true in float64", function() d[1] = true end)
    assert_error("View 'd': cannot store nil in float64", function() d[1] = nil end)
    assert_error("View 'i': cannot store inf in int32 (not an integer)",
                 function() i[0] = math.huge end)
    assert.are.equal(0, i[0])
    assert.are.equal(0, u[0])
  end)

  it("creates every rank from 0 to 8", function()
    for r = 0, 8 do
      local dims = {}
      for d = 1, r do dims[d] = 2 end
      local v = V("r" .. r, "int64", dims)
      assert.are.equal(r, v:rank())
      assert.are.equal(2 ^ r, v:size())
      assert.are.same(dims, v:extents())
      local k = 0
      for idx in each_index(dims) do
        local args = {table.unpack(idx)}
        args[#args + 1] = k
        v:set(table.unpack(args))
        k = k + 1
      end
      k = 0
      for idx in each_index(dims) do
        assert.are.equal(k, v(table.unpack(idx)))
        k = k + 1
      end
    end
    local s = V("s", "float64", {})
    s:set(2.5)
    assert.are.equal(2.5, s())
    assert.are.equal(2.5, s:totable())
    assert.are.equal("View<float64, right, " .. HS .. "> 's'", tostring(s))
  end)

  it("accepts an integer or a table of extents, and integral floats", function()
    assert.are.same({5}, V("a", "float64", 5):extents())
    assert.are.same({1000}, V("a", "float64", 1e3):extents())
    assert.are.same({0, 3}, V("z", "float64", {0, 3}):extents())
    assert.are.equal(0, V("z", "float64", {0, 3}):size())
  end)

  it("lays out right and left", function()
    local r = V("r", "float64", {3, 4, 5})
    local l = V("l", "float64", {3, 4, 5}, {layout = "left"})
    assert.are.equal("right", r:layout())
    assert.are.equal("left", l:layout())
    assert.are.same({20, 5, 1}, r:strides())
    assert.are.same({1, 3, 12}, l:strides())
    assert.are.equal(5, r:stride(1))
    assert.are.equal(1, r:extent(5))       -- beyond the rank, as in Kokkos
    assert.are.equal(0, r:stride(5))
    assert.is_true(r:is_contiguous() and l:is_contiguous())
    assert.are.equal(60, r:span())
    -- the same logical element, different memory positions
    r:set(1, 2, 3, 9)
    l:set(1, 2, 3, 9)
    assert.are.equal(9, r(1, 2, 3))
    assert.are.equal(9, l(1, 2, 3))
    if HS == "host" then assert.are.equal("right", V("d", "float64", 2):layout()) end
  end)

  it("keeps labels and formats tostring", function()
    local a = V("A", "float64", {3, 4})
    assert.are.equal("A", a:label())
    assert.are.equal("View<float64[3][4], right, " .. HS .. "> 'A'", tostring(a))
    local l = V("L", "int8", {2}, {layout = "left"})
    assert.are.equal("View<int8[2], left, " .. HS .. "> 'L'", tostring(l))
    local long = V(string.rep("x", 300), "float64", 1)
    assert.are.equal(127, #long:label())
    assert.are.equal("B", V("A", "float64", 1, {label = "B"}):label())
  end)

  it("accepts the memory traits", function()
    local v = V("t", "float64", 4, {atomic = true, random_access = true,
                                    restrict = true, init = false})
    assert.are.equal(4, v:size())
    assert_error("speck.View 't': option 'atomic' must be a boolean (got 1)",
                 V, "t", "float64", 4, {atomic = 1})
  end)

  it("shares data on assignment (shallow copy)", function()
    local a = V("a", "float64", 3)
    local b = a
    b[1] = 5
    assert.are.equal(5, a[1])
    assert.are.equal(1, a:use_count())
    local s = speck.subview(a, speck.ALL)
    assert.are.equal(2, a:use_count())
    s[2] = 7
    assert.are.equal(7, a[2])
    assert.is_true(s == a)
    assert.is_false(V("c", "float64", 3) == a)
  end)

  it("indexes rank-1 views with v[i]", function()
    local v = V("v", "int32", 4)
    for i = 0, 3 do v[i] = i * i end
    assert.are.same({0, 1, 4, 9}, v:totable())
    assert.are.equal(9, v[3.0])
    assert.is_nil(v.nonexistent)
  end)

  it("fills with a scalar, returning the view", function()
    local v = V("v", "float32", {2, 3})
    assert.are.equal(v, v:fill(1.5))
    assert.are.same({{1.5, 1.5, 1.5}, {1.5, 1.5, 1.5}}, v:totable())
    local b = V("b", "bool", 3):fill(true)
    assert.are.same({true, true, true}, b:totable())
    assert_error("View 'v': cannot store 'x' in float32", v.fill, v, "x")
  end)

  it("releases on __close", function()
    local x
    do
      local v <close> = V("c", "float64", 3)
      v[0] = 1
      x = v
    end
    assert.are.equal(0, x:use_count())
    assert_error("View 'c': has no memory (released)", function() return x[0] end)
    assert_error("View 'c': has no memory (released)", x.fill, x, 1)
    assert_error("speck.deep_copy 'c': has no memory (released)", speck.deep_copy, x, 1)
    assert_error("speck.deep_copy: view 'c' has no memory (released)",
                 speck.deep_copy, V("d", "float64", 3), x)
    assert.are.equal(3, x:size())
  end)

  it("stays bounded when a loop allocates large views", function()
    local f = io.open("/proc/self/statm")
    if not f then return pending("no /proc/self/statm") end
    f:close()
    local function rss()
      local g = io.open("/proc/self/statm")
      local _, res = g:read("n", "n")
      g:close()
      return res * 4096
    end
    collectgarbage()
    local before = rss()
    for _ = 1, 40 do
      local v = speck.View("big", "float64", 5 * 1000 * 1000, {space = HS})
      v[0] = 1
    end
    -- 40 x 40 MB were allocated and first-touched; far less may stay
    assert.is_true(rss() - before < 800 * 1024 * 1024)
  end)
end)

describe("speck.View errors", function()
  after_each(keep_intact)

  it("names the view and what is wrong", function()
    assert_error("speck.View 'A': unknown dtype 'float65'", V, "A", "float65", 3)
    assert_error("speck.View 'A': unknown dtype nil", V, "A", nil, 3)
    assert_error("speck.View 'A': rank 9 exceeds the maximum 8",
                 V, "A", "float64", {1, 1, 1, 1, 1, 1, 1, 1, 1})
    assert_error("speck.View 'A': extent 1 is -3 (must be a non-negative integer)",
                 V, "A", "float64", {4, -3})
    assert_error("speck.View 'A': extent 0 is 2.5 (must be a non-negative integer)",
                 V, "A", "float64", 2.5)
    assert_error("speck.View 'A': extent 1 is '3' (must be a non-negative integer)",
                 V, "A", "float64", {2, "3"})
    assert_error("speck.View 'A': dims must be an integer or a table of extents "
                 .. "(got 'x')", V, "A", "float64", "x")
    assert_error("speck.View: label must be a string (got 5)", V, 5, "float64", 3)
    assert_error("speck.View 'A': options must be a table (got 'left')",
                 speck.View, "A", "float64", 3, "left")
    assert_error("speck.View 'A': unknown option 'layuot' (valid: atomic, data, init, "
                 .. "label, layout, random_access, restrict, space)",
                 V, "A", "float64", 3, {layuot = "left"})
    assert_error("speck.View 'A': unknown layout 'diag' (expected 'right' or 'left')",
                 V, "A", "float64", 3, {layout = "diag"})
    assert_error("speck.View 'A': layout 'stride' needs its strides: "
                 .. "{layout = {stride = {s1, s2, ...}}}", V, "A", "float64", 3, {layout = "stride"})
    assert_error("speck.View 'A': unknown space 'gpu' (expected 'host', 'cuda', "
                 .. "'cuda_pinned' or 'cuda_uvm')", V, "A", "float64", 3, {space = "gpu"})
    assert_error("speck.View 'A': option 'data' must be a lightuserdata, userdata "
                 .. "or view (got 5)", V, "A", "float64", 3, {data = 5})
  end)

  it("reports allocations that cannot be satisfied", function()
    assert_error("speck.View 'big': cannot allocate 9223372036854775808 bytes",
                 V, "big", "float64", 2 ^ 60)
    assert_error("speck.View 'big': cannot allocate [1099511627776][1099511627776] "
                 .. "float64: the size overflows 64 bits",
                 V, "big", "float64", {2 ^ 40, 2 ^ 40})
    assert_error("speck.View 'big': cannot allocate [4611686018427387904] int32: "
                 .. "the size overflows 64 bits", V, "big", "int32", 2 ^ 62)
    -- the VM goes on
    local v = V("after", "float64", 2)
    v[1] = 3
    assert.are.equal(3, v[1])
  end)

  it("checks indices", function()
    local a = V("A", "float64", {3, 4})
    local v = V("v", "float64", 4)
    assert_error("View 'A': index 1 is 7, out of range [0, 4)", a, 1, 7)
    assert_error("View 'A': index 0 is -1, out of range [0, 3)", a, -1, 0)
    assert_error("View 'A': rank 2, indexed with 1 index", a, 1)
    assert_error("View 'A': rank 2, indexed with 3 indices", a, 1, 1, 1)
    assert_error("View 'A': rank 2, indexed with 0 indices", a)
    assert_error("View 'A': index 0 is 1.5 (must be an integer)", a, 1.5, 0)
    assert_error("View 'A': index 1 is 'x' (must be an integer)", a, 0, "x")
    assert_error("View 'v': index 0 is 4, out of range [0, 4)", function() return v[4] end)
    assert_error("View 'v': index 0 is 4, out of range [0, 4)", function() v[4] = 1 end)
    assert_error("View 'A': rank 2, indexed with 1 index", function() return a[0] end)
    assert_error("View 'A': rank 2, set with 1 index and a value", a.set, a, 0, 1)
    assert_error("View 'A': index 1 is 4, out of range [0, 4)", a.set, a, 0, 4, 1)
    assert_error("View 'A': cannot assign to field 'x'", function() a.x = 1 end)
    assert_error("View 'A': extent: dimension 8 out of range [0, 8)", a.extent, a, 8)
    assert_error("View 'A': stride: dimension -1 out of range [0, 8)", a.stride, a, -1)
    a:set(2, 3, 1)
    assert.are.equal(1, a(2, 3))
  end)
end)

describe("speck.deep_copy", function()
  after_each(keep_intact)

  local function iota(v)
    local k = 0
    for idx in each_index(v:extents()) do
      local args = {table.unpack(idx)}
      args[#args + 1] = k
      v:set(table.unpack(args))
      k = k + 1
    end
    return v
  end

  it("copies between layouts", function()
    local r = iota(V("r", "float64", {3, 4}))
    local l = V("l", "float64", {3, 4}, {layout = "left"})
    speck.deep_copy(l, r)
    assert.are.same(r:totable(), l:totable())
    local r2 = V("r2", "float64", {3, 4})
    speck.deep_copy(r2, l)
    assert.are.same(r:totable(), r2:totable())
    -- views are independent after a deep copy
    r:set(0, 0, 100)
    assert.are.equal(0, l(0, 0))
  end)

  it("copies every dtype and rank", function()
    for _, t in ipairs(DTYPES) do
      local a, b = V("a", t, {2, 3, 2}), V("b", t, {2, 3, 2}, {layout = "left"})
      a:fill(1)
      a:set(1, 2, 1, t == "bool" and 0 or 5)
      speck.deep_copy(b, a)
      assert.are.same(a:totable(), b:totable())
    end
  end)

  it("copies strided subviews", function()
    local a = iota(V("a", "int32", {4, 5}))
    local b = V("b", "int32", {5, 4}, {layout = "left"})
    local col = speck.subview(a, speck.ALL, 2)          -- a(:, 2), stride 5
    local row = speck.subview(b, 1, {0, 4})             -- b(1, :), stride 5
    assert.are.equal("stride", col:layout())
    assert.are.equal("stride", row:layout())
    speck.deep_copy(row, col)
    assert.are.same({2, 7, 12, 17}, row:totable())
    assert.are.equal(0, b(0, 0))
    assert.are.equal(0, b(2, 3))
    -- a 2-d block into a 2-d block of the other layout
    local blk = speck.subview(a, {1, 3}, {1, 4})
    local dst = speck.subview(b, {2, 4}, {0, 3})
    speck.deep_copy(dst, blk)
    assert.are.same({{6, 7, 8}, {11, 12, 13}}, dst:totable())
  end)

  it("fills with a scalar", function()
    local a = V("a", "int16", {2, 2})
    speck.deep_copy(a, 3)
    assert.are.same({{3, 3}, {3, 3}}, a:totable())
    local s = speck.subview(a, speck.ALL, 1)
    speck.deep_copy(s, -1)
    assert.are.same({{3, -1}, {3, -1}}, a:totable())
    assert_error("speck.deep_copy 'a': cannot store 0.5 in int16 (not an integer)",
                 speck.deep_copy, a, 0.5)
  end)

  it("refuses different extents and dtypes", function()
    local a, b = V("a", "float64", {3, 4}), V("b", "float64", {4, 3})
    local c = V("c", "float32", {3, 4})
    local d = V("d", "float64", 12)
    assert_error("speck.deep_copy: extents differ: 'a' is [3][4], 'b' is [4][3]",
                 speck.deep_copy, a, b)
    assert_error("speck.deep_copy: extents differ: 'd' is [12], 'a' is [3][4]",
                 speck.deep_copy, d, a)
    assert_error("speck.deep_copy: dtypes differ: 'a' is float64, 'c' is float32 "
                 .. "(deep_copy does not convert)", speck.deep_copy, a, c)
    assert_error("speck.deep_copy: the destination must be a view (got 3)",
                 speck.deep_copy, 3, a)
  end)

  it("round-trips through the default space", function()
    local d = speck.View("dev", "float64", {3, 4})
    local m = speck.create_mirror_view(d)
    assert.are.equal(d:layout(), m:layout())
    iota(m)
    speck.deep_copy(d, m)
    local h = speck.create_mirror(d)
    assert.are.equal("host", h:space())
    speck.deep_copy(h, d)
    assert.are.same(m:totable(), h:totable())
    -- and through a strided device subview
    local col = speck.subview(d, speck.ALL, 1)
    local hc = V("hc", "float64", 3)
    speck.deep_copy(hc, col)
    assert.are.same({1, 5, 9}, hc:totable())
    speck.deep_copy(col, 0)
    speck.deep_copy(h, d)
    assert.are.same({{0, 0, 2, 3}, {4, 0, 6, 7}, {8, 0, 10, 11}}, h:totable())
  end)
end)

describe("mirrors", function()
  after_each(keep_intact)

  it("create_mirror_view returns a host-accessible view itself", function()
    local v = V("v", "float64", 3)
    assert.is_true(rawequal(v, speck.create_mirror_view(v)))
  end)

  it("create_mirror makes a new zeroed host view with the same layout", function()
    local v = V("v", "float64", {2, 3}, {layout = "left"}):fill(4)
    local m = speck.create_mirror(v)
    assert.is_false(rawequal(v, m))
    assert.are.equal("v_mirror", m:label())
    assert.are.equal("left", m:layout())
    assert.are.equal("host", m:space())
    assert.are.same({2, 3}, m:extents())
    assert.are.same({{0, 0, 0}, {0, 0, 0}}, m:totable())
  end)

  it("create_mirror_view_and_copy copies only across spaces", function()
    local v = V("v", "float64", 3):fill(2)
    assert.is_true(rawequal(v, speck.create_mirror_view_and_copy(HS, v)))
    assert.is_true(rawequal(v, speck.create_mirror_view_and_copy("host", v)))
    local d = speck.create_mirror_view_and_copy(DEFAULT, v)
    assert.are.equal(DEFAULT, d:space())
    local back = speck.create_mirror_view_and_copy("host", d)
    assert.are.same({2, 2, 2}, back:totable())
    assert_error("speck.create_mirror_view_and_copy 'v': unknown space 'mars' "
                 .. "(expected 'host', 'cuda', 'cuda_pinned' or 'cuda_uvm')",
                 speck.create_mirror_view_and_copy, "mars", v)
  end)

  it("refuses element access to device views", function()
    local ok, d = pcall(speck.View, "dev", "float64", 3, {space = "cuda"})
    if not ok then return pending("no cuda space: " .. tostring(d)) end
    assert_error("View 'dev': lives in space 'cuda', not accessible from Lua "
                 .. "(use speck.create_mirror_view)", d, 0)
    assert_error("View 'dev': lives in space 'cuda', not accessible from Lua "
                 .. "(use speck.create_mirror_view)", function() d[0] = 1 end)
    local m = speck.create_mirror_view(d)
    assert.is_false(rawequal(d, m))
    assert.are.equal("host", m:space())
    d:fill(3)
    speck.deep_copy(m, d)
    assert.are.same({3, 3, 3}, m:totable())
  end)
end)

describe("speck.subview", function()
  after_each(keep_intact)

  local A
  before_each(function()
    A = V("A", "float64", {3, 4})
    for i = 0, 2 do for j = 0, 3 do A:set(i, j, 10 * i + j) end end
  end)

  it("drops dimensions given an index", function()
    local row = speck.subview(A, 1, speck.ALL)
    assert.are.equal(1, row:rank())
    assert.are.same({10, 11, 12, 13}, row:totable())
    assert.are.equal("right", row:layout())
    assert.is_true(row:is_contiguous())
    local col = speck.subview(A, speck.ALL, 2)
    assert.are.same({2, 12, 22}, col:totable())
    assert.are.equal("stride", col:layout())
    assert.are.equal(4, col:stride(0))
    assert.are.equal(9, col:span())
    assert.is_false(col:is_contiguous())
    local pt = speck.subview(A, 2, 3)
    assert.are.equal(0, pt:rank())
    assert.are.equal(23, pt())
  end)

  it("takes half-open ranges", function()
    local blk = speck.subview(A, {1, 3}, {1, 3})
    assert.are.same({2, 2}, blk:extents())
    assert.are.same({{11, 12}, {21, 22}}, blk:totable())
    assert.are.equal("stride", blk:layout())
    local rows = speck.subview(A, {0, 2}, speck.ALL)
    assert.are.equal("right", rows:layout())
    local empty = speck.subview(A, {3, 3}, speck.ALL)
    assert.are.equal(0, empty:size())
    assert.are.same({}, empty:totable())
  end)

  it("shares the parent's memory", function()
    local col = speck.subview(A, speck.ALL, 0)
    col[1] = -1
    assert.are.equal(-1, A(1, 0))
    A:set(2, 0, -2)
    assert.are.equal(-2, col[2])
    -- the allocation outlives the parent
    A = nil
    collectgarbage()
    collectgarbage()
    assert.are.same({0, -1, -2}, col:totable())
  end)

  it("keeps a left parent's layout when dense", function()
    local L = V("L", "int32", {3, 4}, {layout = "left"})
    assert.are.equal("left", speck.subview(L, speck.ALL, 1):layout())
    assert.are.equal("stride", speck.subview(L, 1, speck.ALL):layout())
  end)

  it("nests", function()
    local blk = speck.subview(A, {1, 3}, speck.ALL)
    local x = speck.subview(blk, 1, {1, 4})
    assert.are.same({21, 22, 23}, x:totable())
    local c = speck.subview(speck.subview(A, speck.ALL, {1, 3}), 1, speck.ALL)
    assert.are.equal("right", c:layout())         -- dense again
    assert.are.same({11, 12}, c:totable())
  end)

  it("checks its slices", function()
    assert_error("speck.subview 'A': rank 2, given 1 slice", speck.subview, A, 1)
    assert_error("speck.subview 'A': rank 2, given 3 slices",
                 speck.subview, A, 1, 1, 1)
    assert_error("speck.subview 'A': slice 0 is 3, out of range [0, 3)",
                 speck.subview, A, 3, speck.ALL)
    assert_error("speck.subview 'A': slice 1 is {2, 5}, out of range for extent 4 "
                 .. "(need 0 <= b <= e <= 4)", speck.subview, A, speck.ALL, {2, 5})
    assert_error("speck.subview 'A': slice 0 is {2, 1}, out of range for extent 3 "
                 .. "(need 0 <= b <= e <= 3)", speck.subview, A, {2, 1}, speck.ALL)
    assert_error("speck.subview 'A': slice 1 must be an integer, {b, e} or speck.ALL "
                 .. "(got 'all')", speck.subview, A, 0, "all")
    assert_error("speck.subview 'A': slice 0 must be an integer, {b, e} or speck.ALL "
                 .. "(got a table)", speck.subview, A, {1}, speck.ALL)
    assert_error("speck.subview 'A': slice 0 must be an integer, {b, e} or speck.ALL "
                 .. "(got 0.5)", speck.subview, A, 0.5, speck.ALL)
    assert_error("speck.subview: argument 1 must be a view (got nil)", speck.subview)
    assert.are.equal(23, A(2, 3))
  end)
end)

describe("speck.resize and speck.realloc", function()
  after_each(keep_intact)

  it("resize keeps the overlapping data, in place", function()
    local v = V("v", "int32", {2, 3})
    for i = 0, 1 do for j = 0, 2 do v:set(i, j, 10 * i + j + 1) end end
    local alias = v
    assert.are.equal(v, speck.resize(v, {3, 2}))
    assert.are.same({3, 2}, alias:extents())
    assert.are.same({{1, 2}, {11, 12}, {0, 0}}, alias:totable())
    assert.are.equal("v", v:label())
    speck.resize(v, {1, 1})
    assert.are.same({{1}}, v:totable())
  end)

  it("resize keeps a left layout and a rank-1 integer size", function()
    local l = V("l", "float64", {2, 2}, {layout = "left"})
    l:set(1, 0, 5)
    speck.resize(l, {3, 3})
    assert.are.equal("left", l:layout())
    assert.are.equal(5, l(1, 0))
    local v = V("v", "float64", 3):fill(1)
    speck.resize(v, 5)
    assert.are.same({1, 1, 1, 0, 0}, v:totable())
  end)

  it("a subview of the old allocation stays valid", function()
    local v = V("v", "float64", 4):fill(2)
    local s = speck.subview(v, {1, 3})
    speck.resize(v, 8)
    v:fill(0)
    assert.are.same({2, 2}, s:totable())
  end)

  it("realloc drops the data", function()
    local v = V("v", "float64", {2, 2}):fill(1)
    speck.realloc(v, {3, 3})
    assert.are.same({3, 3}, v:extents())
    for i = 0, 2 do for j = 0, 2 do assert.are.equal(0, v(i, j)) end end
  end)

  it("checks its arguments", function()
    local v = V("v", "float64", {2, 2}):fill(1)
    assert_error("speck.resize 'v': rank 2, given 3 extents", speck.resize, v, {1, 2, 3})
    assert_error("speck.realloc 'v': extent 0 is -1 (must be a non-negative integer)",
                 speck.realloc, v, {-1, 2})
    assert_error("speck.resize 'v': cannot allocate 9223372036854775808 bytes",
                 speck.resize, v, {2 ^ 30, 2 ^ 30})
    assert.are.same({{1, 1}, {1, 1}}, v:totable())
  end)
end)

describe("View.from and totable", function()
  after_each(keep_intact)

  it("builds views from nested tables", function()
    local v = speck.View.from({{1, 2, 3}, {4, 5, 6}}, "int32", {space = HS})
    assert.are.equal(2, v:rank())
    assert.are.same({2, 3}, v:extents())
    assert.are.equal("int32", v:dtype())
    assert.are.equal(6, v(1, 2))
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, v:totable())
    local l = speck.View.from({{1, 2}, {3, 4}}, "float64",
                              {layout = "left", space = HS, label = "L"})
    assert.are.equal("left", l:layout())
    assert.are.equal("L", l:label())
    assert.are.equal(3, l(1, 0))
    assert.are.same({{1, 2}, {3, 4}}, l:totable())
    local c = speck.View.from({{{1}, {2}}, {{3}, {4}}}, nil, {space = HS})
    assert.are.equal("float64", c:dtype())
    assert.are.same({2, 2, 1}, c:extents())
    local b = speck.View.from({true, false, 1}, "bool", {space = HS})
    assert.are.same({true, false, true}, b:totable())
    local s = speck.View.from(4.5, "float32", {space = HS})
    assert.are.equal(0, s:rank())
    assert.are.equal(4.5, s())
    local e = speck.View.from({}, "int8", {space = HS})
    assert.are.equal(1, e:rank())
    assert.are.equal(0, e:size())
  end)

  it("builds in the default space", function()
    local d = speck.View.from({1, 2, 3}, "float64")
    assert.are.equal(DEFAULT, d:space())
    local h = speck.create_mirror(d)
    speck.deep_copy(h, d)
    assert.are.same({1, 2, 3}, h:totable())
  end)

  it("rejects ragged tables and bad elements", function()
    assert_error("speck.View.from 'from': ragged table: t[2] has 1 element, expected 2",
                 speck.View.from, {{1, 2}, {3}}, "float64", {space = HS})
    assert_error("speck.View.from 'from': ragged table: t[2] is 3, expected a table",
                 speck.View.from, {{1, 2}, 3}, "float64", {space = HS})
    assert_error("speck.View.from 'from': ragged table: t[2][1] is a table, "
                 .. "expected a value", speck.View.from, {{1, 2}, {{3}, 4}}, "float64")
    assert_error("speck.View.from 'from': t[2][2]: cannot store 'x' in float64",
                 speck.View.from, {{1, 2}, {3, "x"}}, "float64", {space = HS})
    assert_error("speck.View.from 'T': t[1]: cannot store 1.5 in int32 (not an integer)",
                 speck.View.from, {1.5}, "int32", {label = "T"})
    assert_error("speck.View.from 'from': unknown dtype 'int3'",
                 speck.View.from, {1}, "int3")
    assert_error("speck.View.from 'from': rank 9 exceeds the maximum 8",
                 speck.View.from, {{{{{{{{{1}}}}}}}}}, "float64")
    assert_error("speck.View.from 'from': unknown option 'data' (valid: atomic, init, label, "
                 .. "layout, random_access, restrict, space)",
                 speck.View.from, {1}, "float64", {data = keep})
  end)

  it("round-trips totable through from, every dtype", function()
    for _, t in ipairs(DTYPES) do
      local v = V("v", t, {2, 2})
      v:set(1, 0, 1)
      local w = speck.View.from(v:totable(), t, {space = HS})
      assert.are.same(v:totable(), w:totable())
    end
  end)
end)

describe("wrapping external memory", function()
  after_each(keep_intact)

  it("wraps a pointer, unmanaged", function()
    local a = V("a", "float64", 4)
    local w = speck.View("w", "float64", {2, 2}, {data = a:data(), space = a:space()})
    assert.are.equal(a:data(), w:data())
    w:set(1, 1, 9)
    assert.are.equal(9, a[3])
    a[0] = 4
    assert.are.equal(4, w(0, 0))
    assert.are.equal(1, a:use_count())
    local r = speck.View("r", "int32", 2, {data = a:data(), space = a:space()})
    assert.are.equal(2, r:size())
  end)

  it("shares the allocation of a view given as data", function()
    local a = V("a", "float64", 6)
    local w = speck.View("w", "float64", {2, 3}, {data = a})
    assert.are.equal(a:space(), w:space())
    assert.are.equal(2, a:use_count())
    w:set(1, 2, 5)
    assert.are.equal(5, a[5])
    assert_error("speck.View 'x': data view 'a' holds 48 bytes, the view needs 56",
                 speck.View, "x", "float64", 7, {data = a})
  end)

  it("refuses a NULL pointer", function()
    local x
    do
      local z <close> = V("z", "float64", 1)
      x = z
    end
    assert_error("speck.View 'n': option 'data' is a NULL pointer",
                 speck.View, "n", "float64", 2, {data = x:data()})
    assert.are.equal(0, speck.View("n", "float64", 0, {data = x:data()}):size())
  end)
end)
