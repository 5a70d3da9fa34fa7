local speck = require "speck"
-- containers_spec.lua: the Kokkos vocabulary of views built directly with
-- strides (LayoutStride), mirrors in either argument order, and DualView
-- with its modify/sync flags -- in the default space of the run (serial,
-- openmp, or a device space, where DualView's two sides differ).
-- Oracle: the same indices computed in Lua.

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v) end

describe("LayoutStride views built directly", function()
  it("keep the given strides, hold every index, and run in kernels", function()
    local v = speck.View("s", "float64", {3, 4}, {layout = {stride = {1, 5}}})
    assert.equal("stride", v:layout())
    assert.same({1, 5}, {v:stride(0), v:stride(1)})
    speck.parallel_for("fill_s", speck.MDRangePolicy({0, 0}, {3, 4}), {v = v},
                       "v(i, j) = 10 * i + j;")
    local h = host(v)
    for i = 0, 2 do
      for j = 0, 3 do assert.equal(10 * i + j, h(i, j)) end
    end
    -- a dense copy and back
    local d = speck.View("d", "float64", {3, 4})
    speck.deep_copy(d, v)
    local hd = host(d)
    assert.equal(23, hd(2, 3))
    local w = speck.View("w", "float64", {3, 4}, {layout = {stride = {8, 2}}})
    speck.deep_copy(w, d)
    local hw = host(w)
    for i = 0, 2 do
      for j = 0, 3 do assert.equal(10 * i + j, hw(i, j)) end
    end
  end)

  it("of rank 3 with padding between rows, reduced in a kernel", function()
    local v = speck.View("p", "int64", {2, 3, 5}, {layout = {stride = {40, 8, 1}}})
    speck.parallel_for("fill_p", speck.MDRangePolicy({0, 0, 0}, {2, 3, 5}), {v = v},
                       "v(i, j, k) = 100 * i + 10 * j + k;")
    local sum = speck.parallel_reduce("sum_p", speck.MDRangePolicy({0, 0, 0}, {2, 3, 5}),
                                      {v = v}, "acc += v(i, j, k);")
    local want = 0
    for i = 0, 1 do
      for j = 0, 2 do
        for k = 0, 4 do want = want + 100 * i + 10 * j + k end
      end
    end
    assert.equal(want, sum)
  end)

  it("refuse overlapping, non-positive, overflowing and miscounted strides", function()
    assert.equal("speck.View 's': layout.stride[2] = 2 overlaps dimension 1 (it must be " ..
                 "at least 3, the span of the dimensions of smaller stride)",
                 err_of(speck.View, "s", "float64", {3, 4}, {layout = {stride = {1, 2}}}))
    assert.equal("speck.View 's': layout.stride has 1 stride, the view has rank 2",
                 err_of(speck.View, "s", "float64", {3, 4}, {layout = {stride = {1}}}))
    assert.equal("speck.View 's': layout.stride[1] is 0 (strides must be integers >= 1)",
                 err_of(speck.View, "s", "float64", {3, 4}, {layout = {stride = {0, 3}}}))
    assert.equal("speck.View 's': layout.stride[2] is 1.5 (must be an integer)",
                 err_of(speck.View, "s", "float64", {3, 4}, {layout = {stride = {4, 1.5}}}))
    assert.equal("speck.View 's': layout.stride[1] = 4611686018427387904 with extent 3: " ..
                 "the span does not fit in 64 bits",
                 err_of(speck.View, "s", "float64", {3, 4}, {layout = {stride = {2^62, 3}}}))
    assert.equal("speck.View 's': layout table takes either 'tile' (and 'order') or " ..
                 "'stride', not both",
                 err_of(speck.View, "s", "float64", {3, 4},
                        {layout = {stride = {1, 3}, tile = {2, 2}}}))
    assert.equal("speck.View 's': layout 'stride' needs its strides: " ..
                 "{layout = {stride = {s1, s2, ...}}}",
                 err_of(speck.View, "s", "float64", {3, 4}, {layout = "stride"}))
    -- a dimension of extent 1 places no constraint
    local v = speck.View("one", "float64", {1, 4}, {layout = {stride = {1, 1}}})
    assert.equal(4, v:size())
  end)
end)

describe("mirrors in either argument order", function()
  it("create_mirror_view(space, v) and (v, space) give v itself where it can serve", function()
    local v = speck.View("m", "int32", 6)
    local host_ok = speck.info().spaces[v:space()] == nil or v:space() == "host" or
                    v:space() == "serial" or v:space() == "openmp"
    local a = speck.create_mirror_view("host", v)
    local b = speck.create_mirror_view(v, "host")
    assert.equal(a == v, b == v)
    if host_ok then assert.equal(v, a) end
    local c = speck.create_mirror(v:space(), v)
    assert.are_not.equal(v, c)
    local d = speck.create_mirror_view_and_copy(v, "host")
    assert.equal(6, d:extent(0))
    assert.truthy(err_of(speck.create_mirror_view, "nowhere", v):find(
      "speck.create_mirror_view 'm': unknown space 'nowhere'", 1, true))
  end)
end)

describe("DualView", function()
  it("tracks which side is newer and copies only when a side is stale", function()
    local dv = speck.DualView("dv", "int32", 5)
    assert.is_false(dv:need_sync_host())
    assert.is_false(dv:need_sync_device())
    dv.h:fill(3)
    dv:modify_host()
    assert.is_true(dv:need_sync_device())
    dv:sync_device()
    assert.is_false(dv:need_sync_device())
    speck.parallel_for("dv_inc", 5, {d = dv.d}, "d(i) += (int32_t)i;")
    dv:modify_device()
    assert.is_true(dv:need_sync_host())
    dv:sync_host()
    assert.same({3, 4, 5, 6, 7}, dv.h:totable())
    assert.equal(dv.h, dv:view_host())
    assert.equal(dv.d, dv:view_device())
    dv:resize(7)
    assert.equal(7, dv:extent(0))
    assert.equal(7, dv.h:extent(0))
    assert.equal(7, dv.h(4))
    dv:modify_host()
    dv:realloc(2)
    assert.is_false(dv:need_sync_device())
  end)

  it("refuses a modification of both sides without a sync, and unknown options", function()
    local dv = speck.DualView("both", "float64", 4)
    dv:modify_device()
    assert.equal("speck.DualView.modify_host: DualView 'both': the device side was " ..
                 "modified and not synced to the host side (call sync_host first)",
                 err_of(dv.modify_host, dv))
    dv:sync_host()
    dv:modify_host()
    assert.equal("speck.DualView.modify_device: DualView 'both': the host side was " ..
                 "modified and not synced to the device side (call sync_device first)",
                 err_of(dv.modify_device, dv))
    assert.equal("speck.DualView 'x': unknown option 'spaec' (valid: init, layout, space)",
                 err_of(speck.DualView, "x", "int32", 5, {spaec = 1}))
    assert.equal("speck.DualView: label must be a string, got number",
                 err_of(speck.DualView, 5, "int32", 5))
  end)
end)
