local speck = require "speck"
-- scatter_spec.lua: speck.ScatterView and speck.contribute
-- (stdlib/speck/scatter.lua): a histogram under heavy contention, an
-- FE-assembly-like scatter of element contributions into a rank-2 view,
-- min and max, every duplication choice the space allows (duplicated
-- copies on host spaces, atomics everywhere), the GPU compile of the
-- atomic form, and bad input. Oracle: the same contributions summed in Lua.

local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v) end

local N = 200000
local function key(i) return (i * 2654435761) % 1000003 end

local function choices(v)
  local c = {"auto", "non_duplicated"}
  if v:space() == "host" then c[#c + 1] = "duplicated" end
  return c
end

describe("speck.ScatterView", function()
  it("sums a histogram under heavy contention, equal to a serial count, every choice",
     function()
    local want = {}
    for b = 0, 15 do want[b] = 0 end
    for i = 0, N - 1 do
      local b = key(i) % 16
      want[b] = want[b] + 1
    end
    want[3] = want[3] + 2 * N
    for _, d in ipairs(choices(speck.View("probe", "int64", 1))) do
      local h = speck.View("h", "int64", 16)
      local sv = speck.ScatterView(h, {duplication = d})
      speck.parallel_for("hist_" .. d, N, {s = sv}, [[
        auto a = s.access();
        a(((i * 2654435761) % 1000003) % 16) += 1;
        a(3)++;
        a(3) += 2;
        a(3)--;
      ]])
      speck.contribute(h, sv)
      local t = host(h)
      for b = 0, 15 do assert.equal(want[b], t(b), d .. " bin " .. b) end
      -- a second round adds to what the view holds
      speck.parallel_for("hist2_" .. d, N, {s = sv}, "s.access()(5) += 1;")
      speck.contribute(h, sv)
      assert.equal(want[5] + N, host(h)(5))
    end
  end)

  it("assembles element contributions into a rank-2 view (float64)", function()
    -- a 1D mesh of ne elements, element e joining nodes e and e + 1; each
    -- contributes its 2x2 stiffness into a (nodes x 3) band matrix
    local ne = 50000
    for _, d in ipairs(choices(speck.View("probe", "float64", 1))) do
      local K = speck.View("K", "float64", {ne + 1, 3})
      local sv = speck.ScatterView(K, {duplication = d})
      speck.parallel_for("assemble_" .. d, ne, {s = sv}, [[
        auto k = s.access();
        const double h = 1.0 + 0.001 * (double)(i % 7);
        k(i, 1) += 1.0 / h;      k(i, 2) -= 1.0 / h;
        k(i + 1, 0) -= 1.0 / h;  k(i + 1, 1) += 1.0 / h;
      ]])
      speck.contribute(K, sv)
      local t = host(K)
      for _, n in ipairs{0, 1, 7, ne // 2, ne} do
        local diag, lo, up = 0, 0, 0
        if n < ne then
          local h = 1.0 + 0.001 * (n % 7)
          diag, up = diag + 1 / h, up - 1 / h
        end
        if n > 0 then
          local h = 1.0 + 0.001 * ((n - 1) % 7)
          diag, lo = diag + 1 / h, lo - 1 / h
        end
        assert.near(diag, t(n, 1), 1e-12)
        assert.near(lo, t(n, 0), 1e-12)
        assert.near(up, t(n, 2), 1e-12)
      end
    end
  end)

  it("takes the min and the max of contributions", function()
    for _, d in ipairs(choices(speck.View("probe", "int32", 1))) do
      local mn = speck.View("mn", "int32", 8)
      local mx = speck.View("mx", "float64", 8)
      speck.deep_copy(mn, 1000000)
      local smn = speck.ScatterView(mn, {op = "min", duplication = d})
      local smx = speck.ScatterView(mx, {op = "max", duplication = d})
      speck.parallel_for("minmax_" .. d, N, {a = smn, b = smx}, [[
        const int64_t k = (i * 2654435761) % 1000003;
        a.access()(k % 8).update((int32_t)k);
        b.access()(k % 8).update((double)k);
      ]])
      speck.contribute(mn, smn)
      speck.contribute(mx, smx)
      local lo, hi = {}, {}
      for b = 0, 7 do lo[b], hi[b] = 1000000, 0 end
      for i = 0, N - 1 do
        local k = key(i)
        local b = k % 8
        if k < lo[b] then lo[b] = k end
        if k > hi[b] then hi[b] = k end
      end
      local tmn, tmx = host(mn), host(mx)
      for b = 0, 7 do
        assert.equal(lo[b], tmn(b))
        assert.equal(hi[b], tmx(b))
      end
    end
  end)

  it("chooses copies on multi-threaded host spaces and atomics elsewhere", function()
    local v = speck.View("c", "float64", 4)
    local sv = speck.ScatterView(v)
    local host_space = v:space() == "host"
    assert.equal(host_space and (INFO.threads or 1) > 1, sv:is_duplicated())
    assert.is_false(speck.ScatterView(v, {duplication = "non_duplicated"}):is_duplicated())
  end)

  it("compiles its atomic form for the GPU", function()
    if not NVRTC then pending("no NVRTC") return end
    local h = speck.View("h", "float64", 16, {space = "host"})
    local sv = speck.ScatterView(h, {duplication = "non_duplicated"})
    speck.kernel("scatter_cuda", "range", {s = sv},
                 "auto a = s.access(); a(i % 16) += 0.5; a(0)++;", {target = "cuda"})
    local m = speck.View("m", "int64", 16, {space = "host"})
    local sm = speck.ScatterView(m, {op = "max", duplication = "non_duplicated"})
    speck.kernel("scatter_cuda_max", "range", {s = sm}, "s.access()(i % 16).update(i);",
                 {target = "cuda"})
  end)

  it("rewrites a repeated body once, per ScatterView setting", function()
    -- the same capture name and body text for a sum and a max ScatterView:
    -- each launch gets its own rewrite (the launch layer keeps rewrites by
    -- the settings they depend on), and a refused body stays refused
    local v = speck.View("m", "float64", 4)
    local sum, mx = speck.ScatterView(v), speck.ScatterView(v, {op = "max"})
    for r = 1, 3 do
      speck.parallel_for("memo_sum", 8, {s = sum}, "auto a = s.access(); a(i % 4) += 1.0;")
      speck.contribute(v, sum)
      assert.equal(2 * r, host(v)(1))
      assert.equal("speck.parallel_for 'memo_sum': ScatterView 'm' (capture 's'): op 'max' " ..
                   "takes a(i).update(v), not += (body line 1)",
                   err_of(speck.parallel_for, "memo_sum", 8, {s = mx},
                          "auto a = s.access(); a(i % 4) += 1.0;"))
    end
    speck.parallel_for("memo_max", 8, {s = mx}, "auto a = s.access(); a(i % 4).update(100.0 + i);")
    speck.contribute(v, mx)
    assert.equal(107, host(v)(3))
  end)

  it("refuses bad input by name", function()
    local v = speck.View("q", "float64", 3)
    assert.equal("speck.parallel_for 'bad': ScatterView 'q' (capture 's'): an access is " ..
                 "written, never read: follow a(...) with +=, -=, ++ or -- (body line 1)",
                 err_of(speck.parallel_for, "bad", 4, {s = speck.ScatterView(v)},
                        "auto a = s.access(); double y = a(0);"))
    assert.equal("speck.parallel_for 'bad': ScatterView 'q' (capture 's'): op 'min' takes " ..
                 "a(i).update(v), not += (body line 2)",
                 err_of(speck.parallel_for, "bad", 4,
                        {s = speck.ScatterView(v, {op = "min"})},
                        "auto a = s.access();\na(0) += 1;"))
    assert.equal("speck.parallel_for 'bad': ScatterView 'q' (capture 's'): op 'sum' takes " ..
                 "+=, -=, ++ or --, not .update() (body line 1)",
                 err_of(speck.parallel_for, "bad", 4, {s = speck.ScatterView(v)},
                        "s.access()(0).update(1.0);"))
    assert.equal("speck.ScatterView: view 'q': unknown op 'prod' (expected 'sum', 'min' " ..
                 "or 'max')", err_of(speck.ScatterView, v, {op = "prod"}))
    assert.equal("speck.ScatterView: view 'q': unknown duplication 'twice' (expected " ..
                 "'auto', 'duplicated' or 'non_duplicated')",
                 err_of(speck.ScatterView, v, {duplication = "twice"}))
    assert.equal("speck.ScatterView 'q': unknown option 'dup' (valid: duplication, op)",
                 err_of(speck.ScatterView, v, {dup = true}))
    assert.equal("speck.ScatterView: argument 1 must be a view, got table",
                 err_of(speck.ScatterView, {}))
    local b = speck.View("flags", "bool", 3)
    assert.equal("speck.ScatterView: view 'flags': dtype bool cannot be scattered into",
                 err_of(speck.ScatterView, b))
    local w = speck.View("w", "float64", 3)
    local sv = speck.ScatterView(v)
    assert.equal("speck.contribute: view 'w' is not the view of ScatterView 'q'",
                 err_of(speck.contribute, w, sv))
    assert.equal("speck.contribute: argument 2 must be a speck.ScatterView, got table",
                 err_of(speck.contribute, v, {}))
    if v:space() ~= "host" then
      assert.equal(("speck.ScatterView: view 'q': duplication 'duplicated' needs a host " ..
                    "space (the view is in '%s', where updates are atomic)"):format(v:space()),
                   err_of(speck.ScatterView, v, {duplication = "duplicated"}))
    end
  end)
end)
