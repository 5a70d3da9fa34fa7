-- installed_spec.lua: speck as installed by 'make install PREFIX=...' (or a
-- luarocks tree), required from Debian's lua5.4 through busted; tests/run.sh
-- runs it with LUA_PATH / LUA_CPATH naming only that prefix and
-- SPECK_PREFIX set to it.
local PREFIX = assert(os.getenv("SPECK_PREFIX"), "SPECK_PREFIX not set")

describe("installed speck", function()
  local speck = require "speck"

  it("comes from the prefix, Lua modules and C module alike", function()
    local lua = package.searchpath("speck", package.path)
    local core = package.searchpath("speck.core", package.cpath)
    assert.are.equal(PREFIX, lua:sub(1, #PREFIX))
    assert.are.equal(PREFIX, core:sub(1, #PREFIX))
    assert.truthy(speck.info().compilers.tcc.libdir:find(PREFIX, 1, true))
    -- the shelf of the library's device images ('make install' copies
    -- what the build made; a build without NVRTC leaves it empty)
    assert.are.equal(PREFIX .. "/share/speck/images", speck.info().cache.prebuilt)
  end)

  it("runs kernels (tcc finds its run-time library) and the library", function()
    local n = 100
    local x = speck.View("x", "float64", n)
    speck.parallel_for("init", n, {x = x}, "x(i) = i;")
    -- a uint64 conversion calls into libtcc1.a
    local s = speck.parallel_reduce("u", n, {x = x},
      "acc += (double)(uint64_t)(x(i) * 1.5);", nil, {jit = "tcc"})
    local want = 0
    for i = 0, n - 1 do want = want + math.floor(i * 1.5) end
    assert.are.equal(want, s)
    local blas = require "speck.blas"
    assert.are.equal(328350.0, blas.dot(x, x))
  end)

  it("reads and writes .npy files", function()
    local path = os.tmpname()
    local v = speck.View.from({{1, 2}, {3, 4}}, "int32")
    speck.io.save_npy(path, v)
    assert.are.same({{1, 2}, {3, 4}}, speck.io.load_npy(path):totable())
    os.remove(path)
  end)
end)
