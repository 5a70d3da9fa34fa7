-- speck/umap.lua: speck.UnorderedMap, Kokkos' lock-free unordered map
-- (seed 002), usable in kernel bodies. A map is four views in the default
-- space: keys (int64), values, flags (int32: 0 empty, 2 full) and meta
-- (int64[2]: size, failed inserts); its capacity is a power of two. Given
-- as a capture named m, a kernel sees it through the dialect's umap_*
-- words (dialect/README.md, "Unordered map"): the launch expands it into
-- the captures m_keys, m_vals, m_flags and m_meta. Inserts that find the
-- map full are counted; the caller then rehashes into a larger map and
-- runs the inserts again (a key already in keeps its slot and value).
local speck = require "speck"
-- the bodies: kernels/umap/umap.sk
local text = require "speck.ktext"

local M = {}
local MT = {__index = M, __name = "speck.UnorderedMap"}

local function fail(fname, fmt, ...)
  error(("speck.UnorderedMap%s: " .. fmt):format(fname, ...), 3)
end

local function pow2(n)
  local p = 16
  while p < n do p = p * 2 end
  return p
end

local VALUE_DTYPES = {float64 = true, float32 = true, int64 = true, int32 = true,
                      int16 = true, int8 = true, uint64 = true, uint32 = true, uint8 = true}

local function alloc(cap, vdtype)
  return {
    keys = speck.View("umap keys", "int64", cap),
    values = speck.View("umap values", vdtype, cap),
    flags = speck.View("umap flags", "int32", cap),
    meta = speck.View("umap meta", "int64", 2),
  }
end

-- one element of a view in any space
local function get(v, i)
  local h = speck.create_mirror_view(v)
  if h ~= v then speck.deep_copy(h, v) end
  return h(i)
end

-- speck.UnorderedMap{capacity = n [, key = "int64"] [, value = "float64"]}
-- (value nil: a set; its values are uint8 zeros)
function speck.UnorderedMap(t)
  if type(t) ~= "table" then fail("", "expects a table {capacity = n, key = dtype, value = dtype}, got %s", type(t)) end
  require "speck.opts"("speck.UnorderedMap", t, {"capacity", "key", "value"})
  if math.type(t.capacity) ~= "integer" or t.capacity < 1 then
    fail("", "capacity must be a positive integer, got %s", tostring(t.capacity))
  end
  if t.capacity > 1 << 40 then fail("", "capacity %d is too large", t.capacity) end
  local key = t.key or "int64"
  if key ~= "int64" then
    fail("", "key must be \"int64\" (pack smaller or composite keys into one), got %s", tostring(key))
  end
  local vd = t.value or "uint8"
  if not VALUE_DTYPES[vd] then
    fail("", "value must be a numeric dtype (float64, int64, ...), got %s", tostring(t.value))
  end
  local m = setmetatable(alloc(pow2(t.capacity), vd), MT)
  m._vdtype, m._set = vd, t.value == nil
  return m
end

function M:capacity() return self.keys:extent(0) end
function M:size() return get(self.meta, 0) end
function M:failed_inserts() return get(self.meta, 1) end
function M:value_dtype() return self._vdtype end

-- the views a capture named 'name' expands to, added to 't' (or a new table)
function M:captures(name, t)
  t = t or {}
  t[name .. "_keys"], t[name .. "_vals"] = self.keys, self.values
  t[name .. "_flags"], t[name .. "_meta"] = self.flags, self.meta
  return t
end

-- empty the map (capacity kept)
function M:clear()
  speck.deep_copy(self.flags, 0)
  speck.deep_copy(self.meta, 0)
  speck.deep_copy(self.values, 0)
  return self
end

-- a map of 'capacity' (at least the size) with every entry of this one;
-- the failed-insert count starts again at 0
function M:rehash(capacity)
  capacity = capacity or 2 * self:capacity()
  if math.type(capacity) ~= "integer" or capacity < 1 then
    fail(":rehash", "capacity must be a positive integer, got %s", tostring(capacity))
  end
  local size = self:size()
  if capacity < size then
    fail(":rehash", "capacity %d is below the map's size %d", capacity, size)
  end
  local new = alloc(pow2(capacity), self._vdtype)
  local caps = {}
  self:captures("o", caps)
  setmetatable(new, MT):captures("n", caps)
  speck.parallel_for("UnorderedMap.rehash", self:capacity(), caps, text("umap_rehash"))
  self.keys, self.values, self.flags, self.meta = new.keys, new.values, new.flags, new.meta
  return self
end

-- the value stored under 'key' and its slot, or nil
function M:find(key)
  if math.type(key) ~= "integer" then fail(":find", "key must be an integer, got %s", tostring(key)) end
  local slot = speck.parallel_reduce("UnorderedMap.find", 1, self:captures("m", {key = key}),
    text("umap_find"), {op = "max", dtype = "int64"})
  if slot < 0 then return nil end
  return get(self.values, slot), slot
end

-- keys, values: new views of the entries, sorted by key
function M:export()
  local n = self:size()
  local k = speck.View("umap keys", "int64", n)
  local v = speck.View("umap values", self._vdtype, n)
  speck.parallel_scan("UnorderedMap.export", self:capacity(), self:captures("m", {ok = k, ov = v}),
                    text("umap_export"), {dtype = "int64"})
  speck.sort_by_key(k, v)
  return k, v
end

MT.__tostring = function(m)
  return ("UnorderedMap<int64 -> %s, %d of %d, %s>"):format(m._set and "set" or m._vdtype,
    m:size(), m:capacity(), m.keys:space())
end

-- a capture named 'name' holding a map: its four views, and the body
-- mentions them (so a GPU's generator sees they may be written)
speck._expanders[MT] = function(name, m, out)
  m:captures(name, out)
  return ("(void)%s_keys.data; (void)%s_vals.data; (void)%s_flags.data; (void)%s_meta.data; ")
    :format(name, name, name, name)
end

M.is_map = function(x) return getmetatable(x) == MT end
return M
