-- instance_spec.lua: execution-space instances (speck.Instance; issue 32
-- item 6). On every space: launches of every pattern and speck.kernel
-- calls with {instance = inst}, deep_copy on an instance, inst:fence(),
-- speck.fence(), two instances writing different views, a view dropped
-- while an instance still reads it, and bad input with exact messages
-- (not an Instance, an instance of another space, unknown options). On the
-- host back ends an Instance is the default instance (launches are done
-- when they return); in the cuda suite on a GPU machine each Instance is a
-- stream of its own and two instances overlap: a large deep_copy between
-- page-locked host memory and the device on one and a long kernel on the
-- other take less time together than the sum of each alone (the numbers
-- are printed), and the kernels ran as device kernels (speck.jit.stats).
local speck = require "speck"

local INFO = speck.info()
local GPU = INFO.spaces.cuda and INFO.spaces.cuda.available
local ON_CUDA = INFO.default_space == "cuda" and GPU

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "no error was raised")
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v) end

-- the active back end's name, and another one's
local ACTIVE = speck.Instance():space()
local OTHER = ACTIVE == "serial" and "openmp" or "serial"

-- i * 0.5 summed over [0, n)
local function halfsum(n) return 0.5 * n * (n - 1) / 2 end

describe("speck.Instance", function()
  it("is an instance of the active back end, or of the one named", function()
    local inst = speck.Instance()
    assert.equal(ACTIVE, inst:space())
    assert.equal(ACTIVE, speck.Instance(ACTIVE):space())
    assert.equal(OTHER, speck.Instance(OTHER):space())
    -- a memory space's name: the active back end when its kernels reach it
    assert.equal(ACTIVE, speck.Instance(INFO.default_space == "cuda" and "cuda" or "host")
      :space())
    assert.truthy(tostring(inst):find("^Instance%(" .. ACTIVE))
    if ON_CUDA then
      assert.truthy(tostring(inst):find("^Instance%(cuda, 0x"), tostring(inst))
    else
      assert.equal("Instance(" .. ACTIVE .. ", default)", tostring(inst))
    end
    inst:fence()
    speck.fence()
  end)

  it("runs parallel_for, parallel_reduce and parallel_scan on an instance", function()
    local inst = speck.Instance()
    local n = 100000
    local v = speck.View("v", "float64", n)
    speck.parallel_for("inst_fill", n, {v = v}, "v(i) = 0.5 * (double)i;", {instance = inst})
    local s = speck.parallel_reduce("inst_sum", n, {v = v}, "acc += v(i);", {instance = inst})
    assert.equal(halfsum(n), s)
    -- a reducer before the options
    local mx = speck.parallel_reduce("inst_max", n, {v = v}, "acc = fmax(acc, v(i));", "max",
      {instance = inst})
    assert.equal(0.5 * (n - 1), mx)
    local p = speck.View("p", "float64", n)
    local total = speck.parallel_scan("inst_scan", n, {v = v, p = p},
      "acc += v(i); if (final) p(i) = acc;", {instance = inst})
    assert.equal(halfsum(n), total)
    -- team and MDRange policies
    local t = speck.View("t", "int64", 64)
    speck.parallel_for("inst_team", speck.TeamPolicy(64, "auto"), {t = t},
      "if (team.team_rank == 0) t(team.league_rank) = 3 * team.league_rank;", {instance = inst})
    local m = speck.View("m", "float64", {40, 30})
    speck.parallel_for("inst_md", speck.MDRangePolicy({0, 0}, {40, 30}), {m = m},
      "m(i, j) = (double)(i * 100 + j);", {instance = inst})
    inst:fence()
    local hp, ht, hm = host(p), host(t), host(m)
    assert.equal(halfsum(n), hp(n - 1))
    assert.equal(0.5 * (0 + 1 + 2 + 3), hp(3))
    for l = 0, 63 do assert.equal(3 * l, ht(l)) end
    assert.equal(3929, hm(39, 29))
    assert.equal(517, hm(5, 17))
  end)

  it("runs speck.kernel handles on an instance", function()
    local inst = speck.Instance()
    local n = 5000
    local v = speck.View("kv", "int64", n)
    local k = speck.kernel("inst_kernel", "range", {v = v, c = 7}, "v(i) = c * i;")
    k(n, {v = v, c = 7}, {instance = inst})
    local r = speck.kernel("inst_kernel_sum", "range", {v = v}, "acc += v(i);",
      {pattern = "reduce", reducer = {op = "sum", dtype = "int64"}})
    assert.equal(7 * n * (n - 1) // 2, r(n, {v = v}, {instance = inst}))
    inst:fence()
    assert.equal(7 * (n - 1), host(v)(n - 1))
  end)

  it("copies on an instance: device, host and strided views, and fills", function()
    local inst = speck.Instance()
    local n = 4096
    local a = speck.View("a", "float64", n)
    speck.parallel_for("inst_a", n, {a = a}, "a(i) = (double)(i % 97);")
    local b = speck.View("b", "float64", n)
    speck.deep_copy(b, a, {instance = inst})
    local h = speck.View("h", "float64", n, {space = "host"})
    speck.deep_copy(h, b, {instance = inst})
    inst:fence()
    for _, i in ipairs{0, 1, 96, 97, 4095} do assert.equal(i % 97, h(i)) end
    -- host to the device on an instance, then a kernel on it reads it
    for i = 0, n - 1 do h:set(i, 2 * i) end
    local c = speck.View("c", "float64", n)
    speck.deep_copy(c, h, {instance = inst})
    local s = speck.parallel_reduce("inst_csum", n, {c = c}, "acc += c(i);", {instance = inst})
    assert.equal(n * (n - 1), s)
    -- views whose index maps differ (a rank-2 transpose of layouts): the
    -- ordinary deep_copy after the instance's work
    local L = speck.View("L", "float64", {64, 32}, {layout = "left"})
    local R = speck.View("R", "float64", {64, 32}, {layout = "right"})
    speck.parallel_for("inst_L", speck.MDRangePolicy({0, 0}, {64, 32}), {L = L},
      "L(i, j) = (double)(i * 32 + j);", {instance = inst})
    speck.deep_copy(R, L, {instance = inst})
    inst:fence()
    local hR = host(R)
    assert.equal(63 * 32 + 31, hR(63, 31))
    assert.equal(5 * 32 + 7, hR(5, 7))
    -- a scalar fill on an instance
    speck.deep_copy(c, 4.5, {instance = inst})
    inst:fence()
    assert.equal(4.5 * n, speck.parallel_reduce("inst_fillsum", n, {c = c}, "acc += c(i);"))
  end)

  it("runs two instances writing different views, both correct after fences", function()
    local A, B = speck.Instance(), speck.Instance()
    local n = 1 << 18
    local x = speck.View("x", "float64", n)
    local y = speck.View("y", "float64", n)
    for round = 1, 3 do
      speck.parallel_for("inst_two_a", n, {x = x, r = round},
        "x(i) = (double)(r * i);", {instance = A})
      speck.parallel_for("inst_two_b", n, {y = y, r = round},
        "y(i) = (double)(r + i);", {instance = B})
      local sa = speck.parallel_reduce("inst_two_sa", n, {x = x}, "acc += x(i);",
        {instance = A})
      local sb = speck.parallel_reduce("inst_two_sb", n, {y = y}, "acc += y(i);",
        {instance = B})
      assert.equal(round * n * (n - 1) / 2, sa)
      assert.equal(round * n + n * (n - 1) / 2, sb)
    end
    A:fence()
    B:fence()
    local hx, hy = host(x), host(y)
    for _, i in ipairs{0, 1, 12345, n - 1} do
      assert.equal(3 * i, hx(i))
      assert.equal(3 + i, hy(i))
    end
  end)

  it("keeps a view valid while an instance still uses it after it was dropped", function()
    local A = speck.Instance()
    local n = 1 << 20
    local src = speck.View("src", "float64", n)
    speck.parallel_for("inst_src", n, {s = src}, "s(i) = (double)i;")
    local dst = speck.View("dst", "float64", n)
    -- a long loop before the read of src: the index depends on the loop,
    -- so the load cannot move before it
    speck.parallel_for("inst_late_read", n, {s = src, d = dst, K = ON_CUDA and 200000 or 4},
      [[
        double x = (double)i * 1e-9;
        for (int64_t k = 0; k < K; k++) x = x * 0.999999 + 1e-7;
        const int64_t j = i + (x > 1e300 ? 1 : 0);
        d(i) = s(j);
      ]], {instance = A})
    src = nil
    collectgarbage()
    collectgarbage()
    -- new views of the same size take the freed memory on the default
    -- instance and are overwritten there
    local junk = {}
    for k = 1, 4 do
      junk[k] = speck.View("junk", "float64", n)
      speck.parallel_for("inst_junk", n, {g = junk[k]}, "g(i) = -1.0;")
    end
    A:fence()
    local h = host(dst)
    for _, i in ipairs{0, 1, 777, n // 2, n - 1} do assert.equal(i, h(i)) end
    assert.equal(0.5 * n * (n - 1), speck.parallel_reduce("inst_dst_sum", n, {d = dst},
      "acc += d(i);"))
  end)

  it("speck.fence() waits for every instance", function()
    local A, B = speck.Instance(), speck.Instance()
    local n = 1 << 16
    local x = speck.View("fx", "int64", n, {space = ON_CUDA and "cuda_uvm" or nil})
    local y = speck.View("fy", "int64", n, {space = ON_CUDA and "cuda_uvm" or nil})
    speck.parallel_for("inst_fx", n, {x = x}, "x(i) = 2 * i;", {instance = A})
    speck.parallel_for("inst_fy", n, {y = y}, "y(i) = 3 * i;", {instance = B})
    speck.fence()
    assert.equal(2 * (n - 1), x(n - 1))
    assert.equal(3 * (n - 1), y(n - 1))
  end)

  it("refuses bad input with a clear message; the VM stays usable", function()
    local v = speck.View("bv", "float64", 10)
    local w = speck.View("bw", "float64", 10)
    local inst = speck.Instance()
    assert.equal("speck.parallel_for 'bad': opts.instance must be an Instance "
      .. "(speck.Instance), got number",
      err_of(speck.parallel_for, "bad", 10, {v = v}, "v(i) = 1;", {instance = 3}))
    assert.equal("speck.parallel_reduce 'bad': opts.instance must be an Instance "
      .. "(speck.Instance), got userdata",
      err_of(speck.parallel_reduce, "bad", 10, {v = v}, "acc += v(i);", {instance = v}))
    assert.equal("speck.parallel_for 'bad': an instance of space '" .. OTHER
      .. "' cannot launch on space '" .. ACTIVE .. "'",
      err_of(speck.parallel_for, "bad", 10, {v = v}, "v(i) = 1;",
        {instance = speck.Instance(OTHER)}))
    assert.equal("speck.parallel_scan 'bad': an instance of space '" .. OTHER
      .. "' cannot launch on space '" .. ACTIVE .. "'",
      err_of(speck.parallel_scan, "bad", 10, {v = v}, "acc += v(i);",
        {instance = speck.Instance(OTHER)}))
    assert.equal("speck.parallel_for 'bad': unknown option 'instanc' (valid: bounds_check, "
      .. "dtype, index, instance, jit, prelude)",
      err_of(speck.parallel_for, "bad", 10, {v = v}, "v(i) = 1;", {instanc = inst}))
    local k = speck.kernel("bad_k", "range", {v = v}, "v(i) = 2;")
    assert.equal("speck.kernel 'bad_k': an instance of space '" .. OTHER
      .. "' cannot launch on space '" .. ACTIVE .. "'",
      err_of(k, 10, {v = v}, {instance = speck.Instance(OTHER)}))
    assert.equal("speck.kernel 'bad_k': opts.instance must be an Instance "
      .. "(speck.Instance), got string", err_of(k, 10, {v = v}, {instance = "cuda"}))
    assert.equal("speck.kernel 'bad_k': unknown option 'label' (valid: instance)",
      err_of(k, 10, {v = v}, {label = "x"}))
    assert.equal("speck.kernel 'bad_k': options must be a table, got number",
      err_of(k, 10, {v = v}, 5))
    -- speck.kernel takes the instance per call, not when compiling
    assert.truthy(err_of(speck.kernel, "bad_k2", "range", {v = v}, "v(i) = 2;",
      {instance = inst}):find("^speck.kernel 'bad_k2': unknown option 'instance'"))
    assert.equal("speck.deep_copy: opts.instance must be an Instance (speck.Instance), got "
      .. "boolean", err_of(speck.deep_copy, w, v, {instance = true}))
    assert.equal("speck.deep_copy: unknown option 'async' (valid: instance)",
      err_of(speck.deep_copy, w, v, {async = true}))
    assert.equal("speck.deep_copy: options must be a table, got string",
      err_of(speck.deep_copy, w, v, "instance"))
    assert.equal("speck.Instance: space must be a back end or memory space name (a string), "
      .. "got number", err_of(speck.Instance, 3))
    assert.truthy(err_of(speck.Instance, "nowhere")
      :find("^speck.Instance: unknown space 'nowhere' %("))
    assert.equal("Instance:fence: the receiver must be an Instance (speck.Instance), got "
      .. "no value", err_of(inst.fence))
    assert.equal("Instance:space: the receiver must be an Instance (speck.Instance), got "
      .. "table", err_of(inst.space, {}))
    -- the copy's own errors come through with an instance
    local z = speck.View("bz", "float64", 11)
    assert.truthy(err_of(speck.deep_copy, z, v, {instance = inst}):find("extents"))
    -- still usable
    speck.parallel_for("after_bad", 10, {v = v}, "v(i) = 5;", {instance = inst})
    inst:fence()
    assert.equal(50, speck.parallel_reduce("after_bad_sum", 10, {v = v}, "acc += v(i);"))
  end)
end)

describe("speck.Instance on the GPU", function()
  if not ON_CUDA then
    it("overlaps copies and kernels in the cuda suite on a GPU machine", function()
      pending("no GPU here, or not the cuda suite (SPECK_SPACE=cuda)")
    end)
    return
  end

  it("overlaps a page-locked deep_copy on one instance with a kernel on another", function()
    local A, B = speck.Instance("cuda"), speck.Instance("cuda")
    local n = 1 << 27 -- 1 GiB of float64 each way
    local pin = speck.View("pin", "float64", n, {space = "cuda_pinned"})
    local dev = speck.View("dev", "float64", n, {space = "cuda"})
    speck.parallel_for("inst_pinfill", n, {p = pin}, "p(i) = (double)(i % 1000);")
    local m = 1 << 20
    local out = speck.View("out", "float64", m, {space = "cuda"})
    local body = [[
      double x = (double)i * 1e-9;
      for (int64_t k = 0; k < K; k++) x = x * 0.999999 + 1e-7;
      out(i) = x;
    ]]
    local function kernel(K)
      speck.parallel_for("inst_spin", m, {out = out, K = K}, body, {instance = B})
    end
    local function copy() speck.deep_copy(dev, pin, {instance = A}) end
    local function timed(f)
      speck.fence()
      collectgarbage("stop") -- no frees between: they would order the streams
      local t0 = speck.now()
      f()
      A:fence()
      B:fence()
      local t = speck.now() - t0
      collectgarbage("restart")
      return t
    end
    -- warm up (compiles, first touches), then size the kernel like the copy
    kernel(16)
    timed(copy)
    local tc = timed(copy)
    local K, tk = 1024, 0
    while K < (1 << 26) do
      tk = timed(function() kernel(K) end)
      if tk >= tc then break end
      K = K * 2
    end
    local both = math.huge
    for _ = 1, 3 do
      both = math.min(both, timed(function()
        copy()
        kernel(K)
      end))
    end
    print(("\ninstance overlap: copy %.1f ms (%.1f GB/s), kernel %.1f ms (K = %d), both %.1f ms"
      .. " (sum %.1f ms, %.0f%%)"):format(tc * 1e3, 8 * n / tc / 1e9, tk * 1e3, K,
      both * 1e3, (tc + tk) * 1e3, 100 * both / (tc + tk)))
    assert.is_true(both < 0.85 * (tc + tk), ("both %.1f ms, copy %.1f ms + kernel %.1f ms")
      :format(both * 1e3, tc * 1e3, tk * 1e3))
    -- results: the copy's sum, the kernel's values against the recurrence
    local s = speck.parallel_reduce("inst_devsum", n, {d = dev}, "acc += d(i);")
    local full, rest = n // 1000, n % 1000
    assert.equal(full * 499500 + rest * (rest - 1) / 2, s)
    local h = host(out)
    for _, i in ipairs{0, 1, 4097, m - 1} do
      local x = i * 1e-9
      for _ = 1, K do x = x * 0.999999 + 1e-7 end
      assert.is_true(math.abs(h(i) - x) <= 1e-9 * math.max(1, math.abs(x)), tostring(i))
    end
    -- the other direction, device to page-locked memory, on an instance
    speck.parallel_for("inst_devset", n, {d = dev}, "d(i) = 1.0;")
    speck.deep_copy(pin, dev, {instance = A})
    A:fence()
    assert.equal(1, pin(0))
    assert.equal(1, pin(n - 1))
    local seen = {}
    for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
      if k.tier == "nvrtc" and k.launches > 0 then seen[k.label] = true end
    end
    assert.is_true(seen["inst_spin"] == true, "inst_spin did not run as a device kernel")
  end)
end)
