-- tiled_spec.lua: the tiled layout (Kokkos LayoutTiled, seed 004 Fig. 5),
-- run once per back end (SPECK_SPACE).
--
--   speck.View(label, dtype, {n0, n1 [, n2]}, {layout = {tile = {t0, t1 [, t2]},
--                                                     order = "right" | "left"}})
--
-- Element access from Lua and in kernel bodies is unchanged; the kernel
-- signature carries the tile shifts, so the generated index arithmetic is
-- the tiled one with constant shifts and masks; speck.tile_subview gives
-- one tile as a dense right/left view sharing the memory; deep_copy
-- between tiled and untiled views in both directions (and between
-- tilings); the CUDA generator's source compiles with NVRTC.
local speck = require "speck"

local DEFAULT = speck.View("probe", "float64", 1):space()
local HOST_OK = {host = true, cuda_pinned = true, cuda_uvm = true}
local HS = HOST_OK[DEFAULT] and DEFAULT or "host"
local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

local function assert_error(msg, f, ...)
  assert.are.equal(msg, err_of(f, ...))
end

local function T(label, dtype, dims, tile, order, space)
  return speck.View(label, dtype, dims,
                    {space = space or HS, layout = {tile = tile, order = order}})
end

-- the reference map: tile index times the tile strides (tiles ordered
-- right or left over the padded tile grid), plus the in-tile offset
-- (right or left inside the tile)
local function ref_offset(idx, ext, tile, order)
  local r = #ext
  local nt, vol = {}, 1
  for d = 1, r do
    nt[d] = (ext[d] + tile[d] - 1) // tile[d]
    vol = vol * tile[d]
  end
  local tix, inn = 0, 0
  local dims = {}
  for d = 1, r do dims[d] = d end
  if order == "right" then
    for d = 1, r do
      tix = tix * nt[d] + idx[d] // tile[d]
      inn = inn * tile[d] + idx[d] % tile[d]
    end
  else
    for d = r, 1, -1 do
      tix = tix * nt[d] + idx[d] // tile[d]
      inn = inn * tile[d] + idx[d] % tile[d]
    end
  end
  return tix * vol + inn
end

local function each(ext, f)
  if #ext == 2 then
    for i = 0, ext[1] - 1 do for j = 0, ext[2] - 1 do f({i, j}) end end
  else
    for i = 0, ext[1] - 1 do for j = 0, ext[2] - 1 do for k = 0, ext[3] - 1 do
      f({i, j, k})
    end end end
  end
end

local function setv(A, idx, v)
  local a = {table.unpack(idx)}
  a[#a + 1] = v
  A:set(table.unpack(a))
end

local function val(idx)
  local v = 0
  for d = 1, #idx do v = v * 100 + idx[d] end
  return v
end

local CASES = {
  {{5, 7}, {2, 4}}, {{8, 8}, {8, 8}}, {{9, 3}, {4, 1}}, {{3, 5}, {8, 16}},
  {{4, 6, 5}, {2, 4, 2}}, {{3, 3, 9}, {1, 2, 8}},
}

describe("tiled layout on " .. DEFAULT, function()
  describe("element mapping", function()
    for _, c in ipairs(CASES) do
      for _, order in ipairs{"right", "left"} do
        local ext, tile = c[1], c[2]
        local name = ("%s tiles %s (%s)"):format(table.concat(ext, "x"),
                                                 table.concat(tile, "x"), order)
        it(name .. " agrees with the reference formula", function()
          local A = T("A", "int64", ext, tile, order)
          assert.are.equal("tiled_" .. order, A:layout())
          assert.are.same(tile, {A:tile_extents()})
          assert.are.same(ext, A:extents())
          -- the padded allocation, seen flat through a view sharing it
          local span = 1
          for d = 1, #ext do span = span * ((ext[d] + tile[d] - 1) // tile[d]) * tile[d] end
          assert.are.equal(span, A:span())
          local F = speck.View("flat", "int64", span, {data = A})
          each(ext, function(idx) setv(A, idx, val(idx)) end)
          each(ext, function(idx)
            local off = ref_offset(idx, ext, tile, order)
            assert.are.equal(val(idx), F(off))
            assert.are.equal(val(idx), A(table.unpack(idx)))
          end)
        end)
      end
    end

    it("totable and View.from go through the tiled map", function()
      local t = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
      local A = speck.View.from(t, "int32", {space = HS, layout = {tile = {2, 2}}})
      assert.are.equal("tiled_", A:layout():sub(1, 6))
      assert.are.same(t, A:totable())
      assert.are.equal(5, A(1, 1))
    end)

    it("fill writes every element; a tile larger than the extent is padded", function()
      local A = T("A", "float64", {3, 5}, {8, 8}, "right")
      assert.are.equal(64, A:span())
      assert.is_false(A:is_contiguous())
      A:fill(2.5)
      assert.are.same({{2.5, 2.5, 2.5, 2.5, 2.5}, {2.5, 2.5, 2.5, 2.5, 2.5},
                       {2.5, 2.5, 2.5, 2.5, 2.5}}, A:totable())
      local B = T("B", "float64", {4, 8}, {2, 4}, "left")
      assert.is_true(B:is_contiguous())
    end)

    it("mirrors keep the tiling; tostring and == know it", function()
      local A = T("A", "float64", {6, 6}, {2, 4}, "left")
      local M = speck.create_mirror(A)
      assert.are.equal("tiled_left", M:layout())
      assert.are.same({2, 4}, {M:tile_extents()})
      assert.are.equal("View<float64[6][6], tiled_left, " .. HS .. "> 'A'", tostring(A))
      local U = speck.View("U", "float64", {6, 6}, {space = HS, layout = "right"})
      assert.is_false(A == U)
      assert.is_true(A == A)
      assert.are.same({}, {U:tile_extents()})
    end)
  end)

  describe("kernels", function()
    for _, order in ipairs{"right", "left"} do
      for _, tier in ipairs{"tcc", "cc"} do
        it("rank 2 (" .. order .. ", " .. tier .. "): MDRange and range bodies are unchanged", function()
          local A = T("A", "float64", {13, 10}, {4, 8}, order)
          local B = T("B", "float64", {13, 10}, {4, 8}, order)
          speck.parallel_for("tl_fill_" .. order, speck.MDRangePolicy({0, 0}, {13, 10}),
                             {A = A}, "A(i, j) = i * 100 + j;", {jit = tier})
          speck.parallel_for("tl_range_" .. order, 13, {A = A, B = B},
                             "for (int64_t j = 0; j < 10; j++) B(i, j) = 2 * A(i, j);",
                             {jit = tier})
          for i = 0, 12 do for j = 0, 9 do
            assert.are.equal(i * 100 + j, A(i, j))
            assert.are.equal(2 * (i * 100 + j), B(i, j))
          end end
          local s = speck.parallel_reduce("tl_sum_" .. order, speck.MDRangePolicy({0, 0}, {13, 10}),
                                          {A = A}, "acc += A(i, j);", {jit = tier})
          local want = 0
          for i = 0, 12 do for j = 0, 9 do want = want + i * 100 + j end end
          assert.are.equal(want, s)
        end)
      end

      it("rank 3 (" .. order .. ")", function()
        local A = T("A", "int64", {5, 6, 7}, {2, 4, 4}, order)
        speck.parallel_for("tl3_" .. order, speck.MDRangePolicy({0, 0, 0}, {5, 6, 7}),
                           {A = A}, "A(i, j, k) = i * 10000 + j * 100 + k;")
        each({5, 6, 7}, function(idx)
          assert.are.equal(val(idx), A(idx[1], idx[2], idx[3]))
        end)
      end)
    end

    it("the signature carries the tiles: constant shifts and masks in the source", function()
      local A = T("A", "float64", {16, 16}, {4, 8}, "right")
      speck.parallel_for("tl_src", speck.MDRangePolicy({0, 0}, {16, 16}), {A = A},
                         "A(i, j) = 1;")
      local src = speck.jit.source("tl_src")
      assert.truthy(src:find("(a0 >> 2) * s0 + (a1 >> 3) * s1 + (((a0 & 3L) << 3) | ((a1 & 7L) << 0))", 1, true), src)
      -- another tiling is another kernel: the values stay right
      local B = T("B", "float64", {16, 16}, {8, 2}, "left")
      speck.parallel_for("tl_src", speck.MDRangePolicy({0, 0}, {16, 16}), {A = B},
                         "A(i, j) = i * 16 + j;")
      src = speck.jit.source("tl_src")
      assert.truthy(src:find("(a0 >> 3) * s0 + (a1 >> 1) * s1 + (((a0 & 7L) << 0) | ((a1 & 1L) << 3))", 1, true), src)
      for i = 0, 15 do for j = 0, 15 do assert.are.equal(i * 16 + j, B(i, j)) end end
    end)

    it("a tiled and an untiled view in one kernel (transpose)", function()
      local n = 37
      local A = speck.View("A", "float64", {n, n}, {space = HS, layout = "right"})
      local B = T("B", "float64", {n, n}, {8, 8}, "right")
      speck.parallel_for("tl_tr_init", speck.MDRangePolicy({0, 0}, {n, n}), {A = A},
                         "A(i, j) = i * 1000 + j;")
      speck.parallel_for("tl_tr", speck.MDRangePolicy({0, 0}, {n, n}), {A = A, B = B},
                         "B(j, i) = A(i, j);")
      for i = 0, n - 1, 5 do for j = 0, n - 1, 3 do
        assert.are.equal(i * 1000 + j, B(j, i))
      end end
    end)

    it("bounds checks name the view and the index", function()
      local A = T("A", "float64", {4, 5}, {4, 8}, "right")
      local e = err_of(speck.parallel_for, "tl_oob", speck.MDRangePolicy({0, 0}, {4, 6}),
                       {A = A}, "A(i, j) = 1;", {bounds_check = true})
      assert.truthy(e:find("view 'A' (capture 'A'): index 1 is 5, out of range [0, 5) (bounds check)", 1, true), e)
    end)
  end)

  describe("tile_subview", function()
    for _, order in ipairs{"right", "left"} do
      it("gives one tile as a dense " .. order .. " view sharing the memory", function()
        local A = T("A", "int64", {10, 12}, {4, 8}, order)
        each({10, 12}, function(idx) A:set(idx[1], idx[2], val(idx)) end)
        for ti = 0, 2 do for tj = 0, 1 do
          local t = speck.tile_subview(A, ti, tj)
          assert.are.equal(order, t:layout())
          assert.are.same({4, 8}, t:extents())
          assert.is_true(t:is_contiguous())
          for a = 0, 3 do for b = 0, 7 do
            local i, j = ti * 4 + a, tj * 8 + b
            if i < 10 and j < 12 then
              assert.are.equal(val({i, j}), t(a, b))
            else
              assert.are.equal(0, t(a, b))   -- padding
            end
          end end
        end end
        local t = speck.tile_subview(A, 1, 0)
        t:set(3, 7, -1)              -- element (7, 7) of A
        assert.are.equal(-1, A(7, 7))
        -- a kernel on the tile
        speck.parallel_for("tl_tile_k", speck.MDRangePolicy({0, 0}, {4, 8}), {t = t},
                           "t(i, j) = t(i, j) + 1;")
        assert.are.equal(0, A(7, 7))
        assert.are.equal(val({4, 0}) + 1, A(4, 0))
      end)
    end

    it("rank 3", function()
      local A = T("A", "int64", {4, 4, 4}, {2, 2, 4}, "right")
      each({4, 4, 4}, function(idx) A:set(idx[1], idx[2], idx[3], val(idx)) end)
      local t = speck.tile_subview(A, 1, 0, 0)
      assert.are.same({2, 2, 4}, t:extents())
      assert.are.equal(val({3, 1, 2}), t(1, 1, 2))
    end)

    it("keeps the memory alive", function()
      local A = T("A", "float64", {4, 4}, {2, 2}, "left")
      A:set(3, 3, 9)
      local t = speck.tile_subview(A, 1, 1)
      A = nil
      collectgarbage()
      assert.are.equal(9, t(1, 1))
    end)

    it("refuses bad input", function()
      local A = T("A", "float64", {5, 7}, {2, 4}, "right")
      local U = speck.View("U", "float64", {4, 4}, {space = HS})
      assert_error("speck.tile_subview 'A': tile index 0 is 3, out of range [0, 3)",
                   speck.tile_subview, A, 3, 0)
      assert_error("speck.tile_subview 'A': tile index 1 is -1, out of range [0, 2)",
                   speck.tile_subview, A, 0, -1)
      assert_error("speck.tile_subview 'A': rank 2, given 1 tile index",
                   speck.tile_subview, A, 0)
      assert_error("speck.tile_subview 'A': tile index 1 is 'x' (must be an integer)",
                   speck.tile_subview, A, 0, "x")
      assert_error("speck.tile_subview 'U': view 'U' has layout '" .. U:layout() ..
                   "', not a tiled layout", speck.tile_subview, U, 0, 0)
      assert_error("speck.tile_subview: argument 1 must be a view (got 42)",
                   speck.tile_subview, 42, 0, 0)
    end)
  end)

  describe("deep_copy", function()
    local function untiled(label, ext, layout, space)
      return speck.View(label, "float64", ext, {space = space or HS, layout = layout})
    end

    for _, c in ipairs(CASES) do
      local ext, tile = c[1], c[2]
      for _, order in ipairs{"right", "left"} do
        for _, ul in ipairs{"right", "left"} do
          it(("%s tiled %s <-> untiled %s, tiles %s"):format(table.concat(ext, "x"),
               order, ul, table.concat(tile, "x")), function()
            local U = untiled("U", ext, ul)
            each(ext, function(idx) setv(U, idx, val(idx)) end)
            local A = T("A", "float64", ext, tile, order)
            speck.deep_copy(A, U)
            local W = untiled("W", ext, ul == "right" and "left" or "right")
            speck.deep_copy(W, A)
            each(ext, function(idx)
              assert.are.equal(val(idx), A(table.unpack(idx)))
              assert.are.equal(val(idx), W(table.unpack(idx)))
            end)
          end)
        end
      end
    end

    it("between tilings and with strided subviews", function()
      local U = untiled("U", {9, 11}, "right")
      each({9, 11}, function(idx) U:set(idx[1], idx[2], val(idx)) end)
      local A = T("A", "float64", {9, 11}, {4, 4}, "right")
      local B = T("B", "float64", {9, 11}, {2, 8}, "left")
      local C = T("C", "float64", {9, 11}, {4, 4}, "right")
      speck.deep_copy(A, U)
      speck.deep_copy(B, A)
      speck.deep_copy(C, B)
      local S = untiled("S", {18, 22}, "left")
      local sub = speck.subview(S, {0, 9}, {11, 22})
      speck.deep_copy(sub, C)
      each({9, 11}, function(idx)
        assert.are.equal(val(idx), B(idx[1], idx[2]))
        assert.are.equal(val(idx), C(idx[1], idx[2]))
        assert.are.equal(val(idx), S(idx[1], idx[2] + 11))
      end)
      local D = T("D", "float64", {9, 11}, {8, 2}, "left")
      speck.deep_copy(D, sub)
      assert.are.equal(val({8, 10}), D(8, 10))
      speck.deep_copy(D, 3)   -- a scalar fills
      assert.are.equal(3, D(8, 10))
    end)

    it("with the default space (device memory when there is one)", function()
      local U = untiled("U", {6, 10}, "right")
      each({6, 10}, function(idx) U:set(idx[1], idx[2], val(idx)) end)
      local D = speck.View("D", "float64", {6, 10}, {layout = {tile = {4, 4}}})
      assert.are.equal(DEFAULT, D:space())
      speck.deep_copy(D, U)
      speck.parallel_for("tl_dev", speck.MDRangePolicy({0, 0}, {6, 10}), {D = D},
                         "D(i, j) = D(i, j) + 1;")
      local E = untiled("E", {6, 10}, "left", DEFAULT)
      speck.deep_copy(E, D)
      local H = speck.create_mirror_view_and_copy(HS, E)
      local M = speck.create_mirror_view_and_copy(HS, D)
      assert.are.equal("tiled_" .. (D:layout() == "tiled_left" and "left" or "right"), M:layout())
      each({6, 10}, function(idx)
        assert.are.equal(val(idx) + 1, H(idx[1], idx[2]))
        assert.are.equal(val(idx) + 1, M(idx[1], idx[2]))
      end)
    end)

    it("refuses other extents and dtypes", function()
      local A = T("A", "float64", {4, 4}, {2, 2}, "right")
      local U = speck.View("U", "float64", {4, 5}, {space = HS})
      local I = speck.View("I", "int32", {4, 4}, {space = HS})
      assert_error("speck.deep_copy: extents differ: 'A' is [4][4], 'U' is [4][5]",
                   speck.deep_copy, A, U)
      assert_error("speck.deep_copy: dtypes differ: 'A' is float64, 'I' is int32 (deep_copy does not convert)",
                   speck.deep_copy, A, I)
    end)
  end)

  describe("bad input", function()
    local function mk(dims, layout, opts)
      opts = opts or {}
      opts.layout = layout
      opts.space = opts.space or HS
      return speck.View("A", "float64", dims, opts)
    end
    it("refuses tiles that are not powers of two", function()
      assert_error("speck.View 'A': tile size 3 of dimension 1 is not a power of two between 1 and 65536",
                   mk, {8, 8}, {tile = {4, 3}})
      assert_error("speck.View 'A': tile size 0 of dimension 0 is not a power of two between 1 and 65536",
                   mk, {8, 8}, {tile = {0, 4}})
      assert_error("speck.View 'A': tile size -4 of dimension 0 is not a power of two between 1 and 65536",
                   mk, {8, 8}, {tile = {-4, 4}})
      assert_error("speck.View 'A': tile size 131072 of dimension 1 is not a power of two between 1 and 65536",
                   mk, {8, 8}, {tile = {4, 131072}})
      -- a tile may exceed its extent (padding), up to 2^20 elements
      assert_error("speck.View 'A': a tile of 2097152 elements exceeds the maximum 1048576",
                   mk, {8, 8}, {tile = {2048, 1024}})
      assert_error("speck.View 'A': a tile of 4294967296 elements exceeds the maximum 1048576",
                   mk, {8, 8, 8}, {tile = {65536, 65536, 1}})
      assert.are.equal(1048576, mk({3, 3}, {tile = {1024, 1024}}):span())
    end)
    it("refuses ranks other than 2 and 3", function()
      assert_error("speck.View 'A': a tiled layout needs rank 2 or 3, the view has rank 1",
                   mk, 8, {tile = {4}})
      assert_error("speck.View 'A': a tiled layout needs rank 2 or 3, the view has rank 4",
                   mk, {2, 2, 2, 2}, {tile = {2, 2, 2, 2}})
      assert_error("speck.View 'A': layout.tile has 3 sizes, the view has rank 2",
                   mk, {8, 8}, {tile = {2, 2, 2}})
    end)
    it("refuses malformed layout tables", function()
      assert_error("speck.View 'A': layout table needs 'tile', an array of tile sizes (got nil)",
                   mk, {8, 8}, {order = "right"})
      assert_error("speck.View 'A': layout table needs 'tile', an array of tile sizes (got 4)",
                   mk, {8, 8}, {tile = 4})
      assert_error("speck.View 'A': layout.tile[2] is 'x' (must be an integer)",
                   mk, {8, 8}, {tile = {4, "x"}})
      assert_error("speck.View 'A': layout.tile[1] is 2.5 (must be an integer)",
                   mk, {8, 8}, {tile = {2.5, 4}})
      assert_error("speck.View 'A': layout.order is 'stride' (expected 'right' or 'left')",
                   mk, {8, 8}, {tile = {4, 4}, order = "stride"})
      assert_error("speck.View 'A': unknown layout key 'size' (expected 'tile', 'order' or 'stride')",
                   mk, {8, 8}, {tile = {4, 4}, size = 2})
      local U = speck.View("U", "float64", 64, {space = HS})
      assert_error("speck.View 'A': option 'data' is not accepted with a tiled layout",
                   speck.View, "A", "float64", {8, 8}, {data = U, layout = {tile = {4, 4}}})
    end)
    it("refuses subview, resize and realloc of tiled views", function()
      local A = mk({8, 8}, {tile = {4, 4}})
      assert_error("speck.subview 'A': view 'A' has a tiled layout: take tiles with tile_subview (subview does not slice tiled views)",
                   speck.subview, A, 0, {0, 4})
      local e = err_of(speck.resize, A, {16, 16})
      assert.truthy(e:find("view 'A' has a tiled layout (resize and realloc keep right or left views only)", 1, true), e)
      e = err_of(speck.realloc, A, {16, 16})
      assert.truthy(e:find("view 'A' has a tiled layout (resize and realloc keep right or left views only)", 1, true), e)
    end)
  end)

  describe("CUDA code generation", function()
    if not NVRTC then
      pending("libnvrtc is not available here")
      return
    end
    local n = 0
    local function cuda_compile(caps, body, opts)
      n = n + 1
      local label = "tl_cuda_" .. n
      opts = opts or {}
      opts.target = "cuda"
      speck.kernel(label, "mdrange2", caps, body, opts)
      for _, k in ipairs(speck.jit.stats().per_kernel) do
        if k.label == label then return k, speck.jit.source(label) end
      end
    end
    for _, order in ipairs{"right", "left"} do
      it("tiled views compile with NVRTC (" .. order .. ")", function()
        local caps = {
          A = T("A", "float64", {16, 16}, {4, 8}, order, "host"),
          B = T("B", "float32", {16, 16, 16}, {2, 2, 4}, order, "host"),
          R = speck.View("R", "float64", {16, 16}, {layout = {tile = {8, 8}, order = order},
                                                     space = "host", random_access = true}),
          X = speck.View("X", "int32", {16, 16}, {layout = {tile = {4, 4}, order = order},
                                                   space = "host", atomic = true}),
        }
        local k, src = cuda_compile(caps,
          "A(i, j) = R(j, i) + B(i, j, 0); X(i, j) += 1; atomic_add(&A(i, j), 1.0);",
          {})
        assert.are.equal("nvrtc", k.tier)
        assert.truthy(src:find("__device__ __forceinline__ sk_i64 sk__A_at", 1, true), src)
        local k2 = cuda_compile(caps, "A(i, j) = 1;", {bounds_check = true})
        assert.are.equal("nvrtc", k2.tier)
      end)
    end
  end)
end)
