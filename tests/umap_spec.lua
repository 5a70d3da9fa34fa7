local speck = require "speck"
-- umap_spec.lua: speck.UnorderedMap (stdlib/speck/umap.lua, the dialect's
-- umap_* words): inserts from kernels (new, existing, failed), the
-- failed-insert count and the driver's rehash loop, values accumulated
-- atomically, find from Lua and from kernels, export sorted by key, sets,
-- a map in a TeamPolicy body, the CUDA compile of a body using the words,
-- and bad input. Oracle: the same inserts counted in Lua.

local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

-- the key of index i: a pseudo-random multiset of 'distinct' keys
local KEY = "((i * 2654435761) %% %d) * 1000003 - 77"
local function key_of(i, distinct) return ((i * 2654435761) % distinct) * 1000003 - 77 end

local INSERT = [[
  const int64_t r = umap_insert(m, %s);
  if (umap_inserted(r)) atomic_add(&cnt(0), (int64_t)1);
  if (umap_existing(r)) atomic_add(&cnt(1), (int64_t)1);
  if (!umap_failed(r)) atomic_add(&umap_value(m, umap_slot(r)), 1.5);
]]

describe("speck.UnorderedMap", function()
  it("takes inserts from a kernel, counts the failed ones, and grows by rehash", function()
    local n, distinct = 20000, 3001
    local m = speck.UnorderedMap{capacity = 500, value = "float64"}
    assert.equal(512, m:capacity())
    local cnt = speck.View("cnt", "int64", 2)
    local rounds = 0
    repeat
      speck.parallel_for("umap_ins", n, {m = m, cnt = cnt},
                         INSERT:format(KEY:format(distinct)))
      local failed = m:failed_inserts()
      rounds = rounds + 1
      if failed > 0 then
        assert.is_true(m:size() <= m:capacity())
        local before = m:size()
        m:rehash(m:capacity() * 4)
        assert.equal(before, m:size())
        assert.equal(0, m:failed_inserts())
        m:clear()
        cnt:fill(0)
      end
    until failed == 0
    assert.is_true(rounds >= 2)
    assert.equal(distinct, m:size())
    assert.equal(distinct, cnt(0))
    assert.equal(n - distinct, cnt(1))
    -- the oracle: each key's multiplicity
    local mult = {}
    for i = 0, n - 1 do
      local k = key_of(i, distinct)
      mult[k] = (mult[k] or 0) + 1
    end
    local keys, vals = m:export()
    assert.equal(distinct, keys:extent(0))
    local prev
    for s = 0, distinct - 1 do
      local k = keys(s)
      if prev then assert.is_true(prev < k) end
      prev = k
      assert.equal(1.5 * mult[k], vals(s))
    end
    local v, slot = m:find(key_of(7, distinct))
    assert.equal(1.5 * mult[key_of(7, distinct)], v)
    assert.is_true(slot >= 0 and slot < m:capacity())
    assert.is_nil(m:find(12345))
    assert.matches("^UnorderedMap<int64 %-> float64, 3001 of %d+, ", tostring(m))
  end)

  it("keeps entries and values across a rehash, and finds them in a kernel", function()
    local m = speck.UnorderedMap{capacity = 64, value = "int32"}
    speck.parallel_for("umap_fill", 40, {m = m}, [[
      const int64_t r = umap_insert(m, -5 * i);
      if (umap_inserted(r)) umap_value(m, r) = (int32_t)(i + 100);
    ]])
    assert.equal(40, m:size())
    m:rehash(1000)
    assert.equal(1024, m:capacity())
    local found = speck.parallel_reduce("umap_find", 80, {m = m}, [[
      const int64_t s = umap_find(m, -5 * i);
      if (s >= 0 && umap_valid_at(m, s) && umap_key(m, s) == -5 * i && umap_value(m, s) == i + 100)
        acc += 1;
      if (umap_exists(m, -5 * i) != (i < 40)) acc += 1000;
    ]], {op = "sum", dtype = "int64"})
    assert.equal(40, found)
    assert.equal(139, (m:find(-195)))
    assert.equal("speck.UnorderedMap:rehash: capacity 10 is below the map's size 40",
                 err_of(m.rehash, m, 10))
  end)

  it("is a set without a value type, and works in a team kernel", function()
    local s = speck.UnorderedMap{capacity = 100}
    assert.equal("uint8", s:value_dtype())
    speck.parallel_for("umap_team", speck.TeamPolicy(30, "auto"), {s = s}, [[
      TEAM_FOR(q, 0, 10) { umap_insert(s, (team.league_rank * 10 + q) % 77); }
    ]])
    assert.equal(77, s:size())
    assert.equal(0, s:failed_inserts())
    local keys = s:export()
    for q = 0, 76 do assert.equal(q, keys(q)) end
    s:clear()
    assert.equal(0, s:size())
    assert.is_nil(s:find(3))
  end)

  it("hands its views to prepared kernels by name", function()
    local m = speck.UnorderedMap{capacity = 16, value = "int64"}
    local caps = m:captures("m", {})
    for _, k in ipairs{"m_keys", "m_vals", "m_flags", "m_meta"} do
      assert.equal("userdata", type(caps[k]))
    end
    speck.parallel_for("umap_named", 5, caps, [[
      (void)m_keys.data; (void)m_vals.data; (void)m_flags.data; (void)m_meta.data;
      umap_insert(m, i * i);
    ]])
    assert.equal(5, m:size())
  end)

  it("compiles its words for CUDA with NVRTC", function()
    if not NVRTC then
      print("NVRTC not available here: the CUDA compile is checked where it is")
      return
    end
    local m = speck.UnorderedMap{capacity = 16, value = "float64"}
    local cnt = speck.View("cnt", "int64", 2)
    speck.kernel("umap_cuda", "range", {m = m, cnt = cnt}, INSERT:format("i % 5"),
                 {target = "cuda"})
  end)

  it("refuses bad input by name", function()
    assert.equal("speck.UnorderedMap: capacity must be a positive integer, got 0",
                 err_of(speck.UnorderedMap, {capacity = 0}))
    assert.equal("speck.UnorderedMap: expects a table {capacity = n, key = dtype, value = dtype}, got number",
                 err_of(speck.UnorderedMap, 5))
    assert.equal("speck.UnorderedMap: unknown option 'size' (valid: capacity, key, value)",
                 err_of(speck.UnorderedMap, {capacity = 4, size = 3}))
    assert.equal("speck.UnorderedMap: key must be \"int64\" (pack smaller or composite keys into one), got int32",
                 err_of(speck.UnorderedMap, {capacity = 4, key = "int32"}))
    assert.equal("speck.UnorderedMap: value must be a numeric dtype (float64, int64, ...), got fad",
                 err_of(speck.UnorderedMap, {capacity = 4, value = "fad"}))
    local m = speck.UnorderedMap{capacity = 4}
    assert.equal("speck.UnorderedMap:find: key must be an integer, got 1.5",
                 err_of(m.find, m, 1.5))
    -- a kernel error through a map capture names the kernel, not speck.lua
    local e = err_of(speck.parallel_for, "umap_bad", 3, {m = m}, "umap_insert(m, nosuch);")
    assert.matches("^speck.parallel_for 'umap_bad': .*nosuch", e)
  end)
end)
