local speck = require "speck"
-- cuda_codegen_spec.lua: the CUDA back end.
-- suite: faults the GPU on purpose (a context of its own: tests/run.sh)
--
-- 1. Everywhere libnvrtc loads: every pattern's generated CUDA source
--    (range / MDRange / team; for, every reducer, several at once, custom,
--    scan; atomics of every dtype; view traits) compiles with NVRTC,
--    through speck.kernel(..., {target = "cuda"}) -- PTX for a default
--    architecture when no device is present -- and compile errors name
--    the body's lines.
-- 2. Without a usable driver: the reason is reported (speck.info(),
--    speck --info) and the cuda spaces fail with that message, no crash.
-- 3. With a GPU (speck.info().spaces.cuda.available): the same kernels
--    run on the device and agree with the serial back end (integers
--    exactly, floats within 1e-12 relative); deep_copy in every direction
--    and layout, strided views included; mirrors; bad input (device
--    index, out of memory, managed oversubscription, a faulting kernel is
--    left to tests run in a child process, host views on the device).

local SPECK_BIN = os.getenv("SPECK_BIN") or "build/bin/speck"
local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available
local GPU = INFO.spaces.cuda.available
local START = INFO.default_space

local DTYPES = {"float64", "float32", "int64", "int32", "int16", "int8",
                "uint64", "uint32", "uint8", "bool"}
local CTYPE = {float64 = "double", float32 = "float", int64 = "int64_t",
               int32 = "int32_t", int16 = "int16_t", int8 = "int8_t",
               uint64 = "uint64_t", uint32 = "uint32_t", uint8 = "uint8_t",
               bool = "bool"}

local function sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

-- compile for CUDA only; returns the kernel's stats entry
local n_kernels = 0
local function cuda_compile(policy_kind, caps, body, opts)
  n_kernels = n_kernels + 1
  local label = "cg_" .. n_kernels
  opts = opts or {}
  opts.target = "cuda"
  speck.kernel(label, policy_kind, caps, body, opts)
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label == label then return k end
  end
end

-- every pattern the generator knows, as (name, policy kind, captures
-- maker, body, opts) -- reused by the GPU section
local function patterns()
  local P = {}
  local function add(name, pk, caps, body, opts)
    P[#P + 1] = {name = name, pk = pk, caps = caps, body = body, opts = opts}
  end
  add("range for", "range", function(n)
    return {x = speck.View("x", "float64", n), y = speck.View("y", "float64", n), a = 2.5}
  end, "x(i) = (double)i * 0.5; y(i) = a * x(i) + 1.0;")
  for _, op in ipairs{"sum", "prod", "min", "max", "minloc", "maxloc", "minmax",
                      "land", "lor", "band", "bor"} do
    local body = ({
      sum = "acc += (double)(i % 17) * 0.25;",
      prod = "acc *= 1.0 + (double)(i % 3 == 0) * 1e-6;",
      min = "double v = (double)((i * 7919) % 1000) - 3.5; if (v < acc) acc = v;",
      max = "double v = (double)((i * 7919) % 1000) - 3.5; if (v > acc) acc = v;",
      minloc = "double v = (double)((i * 7919) % 1000); if (v < acc.val) { acc.val = v; acc.loc = i; }",
      maxloc = "double v = (double)((i * 7919) % 1000); if (v > acc.val) { acc.val = v; acc.loc = i; }",
      minmax = "double v = (double)((i * 31) % 977); if (v < acc.min_val) acc.min_val = v; if (v > acc.max_val) acc.max_val = v;",
      land = "acc = acc && (i >= 0);",
      lor = "acc = acc || (i == 5);",
      band = "acc &= ~(int64_t)(i % 64 == 3 ? 8 : 0);",
      bor = "acc |= (int64_t)1 << (i % 40);",
    })[op]
    add("range reduce " .. op, "range", function() return {} end, body,
        {pattern = "reduce", reducer = op})
  end
  add("range reduce, several reducers", "range", function() return {} end,
      "acc0 += (double)i; if ((double)i > acc1) acc1 = (double)i; acc2 += (int32_t)(i & 1);",
      {pattern = "reduce", reducer = {"sum", "max", {op = "sum", dtype = "int32"}}})
  add("range reduce, custom", "range", function() return {} end,
      "acc += (double)(i % 5);",
      {pattern = "reduce", reducer = {dtype = "float64", init = "acc = 0;",
                                      join = "dst += src;"}})
  for _, dt in ipairs{"float64", "int64", "int32", "uint8"} do
    add("range reduce sum " .. dt, "range", function() return {} end,
        ("acc += (%s)(i %% 3);"):format(CTYPE[dt]),
        {pattern = "reduce", reducer = {op = "sum", dtype = dt}})
  end
  add("range scan", "range", function(n)
    return {x = speck.View("x", "int64", n), y = speck.View("y", "int64", n)}
  end, "if (final) y(i) = acc; acc += i % 7 + 1;", {pattern = "scan", dtype = "int64"})
  add("range scan float64", "range", function(n)
    return {y = speck.View("y", "float64", n)}
  end, "if (final) y(i) = acc; acc += 0.5;", {pattern = "scan"})
  add("range for with return", "range", function(n)
    return {x = speck.View("x", "int32", n)}
  end, "if (i % 2) return; x(i) = 7;")
  return P
end

local function md_patterns()
  local P = {}
  for r = 2, 6 do
    local lo, hi, idx = {}, {}, {}
    for d = 1, r do lo[d] = 0; hi[d] = ({13, 5, 4, 3, 2, 2})[d]; idx[d] = "i" .. (d - 1) end
    P[#P + 1] = {rank = r, lo = lo, hi = hi, idx = idx}
  end
  return P
end

local TEAM_BODY = [[
  double *p = team_scratch(team, 0, 64);
  double *q = thread_scratch(team, 1, 32);
  double s;
  TEAM_REDUCE(sum, j, 0, 10, s) {
    double w;
    VECTOR_REDUCE(max, k, 0, 10, w) { w = fmax(w, (double)(j * k)); }
    s += w;
  }
  double t;
  TEAM_VECTOR_REDUCE(min, j, 0, 100, t) { t = fmin(t, (double)j); }
  int64_t u;
  TEAM_SCAN(j, 0, 10, u) { if (final && team.league_rank < 10) y(team.league_rank, j) = (double)u; u += j; }
  int32_t v2;
  VECTOR_SCAN(k, 0, 10, v2) { v2 += (int32_t)k; }
  TEAM_FOR(j, 0, 10) { VECTOR_FOR(k, 0, 10) { if (p) x(j, k) = 1; } TEAM_VECTOR_FOR(k, 0, 3) { } }
  team_barrier(team);
  SINGLE_TEAM(team) { s = 1; }
  TEAM_BROADCAST(team, s);
  SINGLE_THREAD(team) { if (q) q[0] = s + t + v2; }
  bool b;
  TEAM_REDUCE(land, j, 0, 3, b) { b = b && j < 5; }
  uint8_t bb;
  TEAM_REDUCE(band, j, 0, 3, bb) { bb &= (uint8_t)(j + 1); }
]]

describe("CUDA code generator (NVRTC)", function()
  if not NVRTC then
    it("needs libnvrtc", function()
      pending("NVRTC unavailable: " .. tostring(INFO.compilers.nvrtc and
                                                INFO.compilers.nvrtc.reason))
    end)
    return
  end

  for _, p in ipairs(patterns()) do
    it("compiles " .. p.name, function()
      local opts = {}
      for k, v in pairs(p.opts or {}) do opts[k] = v end
      local k = cuda_compile("range", p.caps(4), p.body, opts)
      assert.are.equal("nvrtc", k.tier)
    end)
  end

  for _, m in ipairs(md_patterns()) do
    for _, pat in ipairs{"for", "reduce"} do
      it(("compiles MDRange rank %d %s, layouts left and right"):format(m.rank, pat), function()
        for _, layout in ipairs{"left", "right"} do
          local dims = {}
          for d = 1, m.rank do dims[d] = m.hi[d] end
          local A = speck.View("A", "float64", dims, {layout = layout, space = "host"})
          local sum = table.concat(m.idx, " + ")
          local body = pat == "for"
            and ("A(%s) = (double)(%s);"):format(table.concat(m.idx, ", "), sum)
            or ("acc += A(%s) + (double)(%s);"):format(table.concat(m.idx, ", "), sum)
          local k = cuda_compile("mdrange" .. m.rank, {A = A}, body,
                                 {pattern = pat == "for" and "for" or "reduce"})
          assert.are.equal("nvrtc", k.tier)
        end
      end)
    end
  end

  it("compiles every team construct (for and reduce)", function()
    local caps = {x = speck.View("x", "float64", {10, 10}, {space = "host"}),
                  y = speck.View("y", "float64", {10, 10}, {space = "host"})}
    assert.are.equal("nvrtc", cuda_compile("team", caps, TEAM_BODY).tier)
    assert.are.equal("nvrtc", cuda_compile("team", caps,
      "double s; TEAM_REDUCE(sum, j, 0, 4, s) { s += j; } SINGLE_TEAM(team) { acc += s; }",
      {pattern = "reduce"}).tier)
  end)

  it("compiles atomics of every dtype and the view traits", function()
    local caps, body = {}, {}
    for _, dt in ipairs(DTYPES) do
      local n = "v_" .. dt
      caps[n] = speck.View(n, dt, 4, {space = "host"})
      body[#body + 1] = ("atomic_add(&%s(i), 1); atomic_sub(&%s(i), 1); atomic_min(&%s(i), 1); atomic_max(&%s(i), 1); (void)atomic_exchange(&%s(i), 1); (void)atomic_cas(&%s(i), 1, 0); (void)atomic_fetch_add(&%s(i), 2);"):format(n, n, n, n, n, n, n)
      if dt ~= "float64" and dt ~= "float32" then
        body[#body + 1] = ("atomic_and(&%s(i), 1); atomic_or(&%s(i), 1); atomic_xor(&%s(i), 1);"):format(n, n, n)
      end
    end
    caps.ra = speck.View("ra", "float64", 4, {random_access = true, space = "host"})
    caps.at = speck.View("at", "int32", 4, {atomic = true, space = "host"})
    body[#body + 1] = "at(i) += 1; at(i)++; at(0) = at(1); at(2) |= 4; " ..
      "double q = ra(i) * 2 + sqrt(ra(0)) + pow(2, 3) + fmin(1.0f, 2) + INFINITY; (void)q;"
    local k = cuda_compile("range", caps, table.concat(body, "\n"))
    assert.are.equal("nvrtc", k.tier)
    local src = speck.jit.source(k.label)
    assert.truthy(src:find("sk__ldg", 1, true), "random_access reads through __ldg")
    assert.truthy(src:find("sk__aref<int32_t>", 1, true), "atomic views store atomically")
  end)

  it("compiles a prelude's helpers", function()
    local k = cuda_compile("range", {x = speck.View("x", "float64", 4, {space = "host"})},
                           "x(i) = twice((double)i);",
                           {prelude = "SPECK_FN double twice(double v) { return 2 * v; }"})
    assert.are.equal("nvrtc", k.tier)
  end)

  it("maps compile errors to the body's lines", function()
    local ok, e = pcall(cuda_compile, "range",
                        {x = speck.View("x", "float64", 4, {space = "host"})},
                        "x(i) = 1;\nx(i) = undefined_name;")
    assert.is_false(ok)
    assert.truthy(tostring(e):find("body does not compile", 1, true), e)
    assert.truthy(tostring(e):find("body line 2: error:", 1, true), e)
  end)

  it("refuses a TeamPolicy or MDRange scan, as Kokkos", function()
    local ok, e = pcall(cuda_compile, "mdrange2", {}, "acc += i;", {pattern = "scan"})
    assert.is_false(ok)
    assert.truthy(tostring(e):find("RangePolicy", 1, true), e)
  end)

  it("caches images on disk: a second process loads instead of compiling", function()
    local dir = (sh("mktemp -d")):gsub("%s+$", "")
    local script = dir .. "/k.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
      speck.kernel("disk", "range", {x = speck.View("x", "float64", 4, {space = "host"})},
                   "x(i) = 3.25 * i;", {target = "cuda"})
      local k = speck.jit.stats().per_kernel[1]
      print("@@" .. k.compiles.nvrtc .. "," .. k.cache_hits)
    ]])
    f:close()
    local env = "SPECK_CACHE_DIR=" .. dir .. "/cache "
    local o1 = sh(env .. SPECK_BIN .. " " .. script .. " 2>&1")
    local o2 = sh(env .. SPECK_BIN .. " " .. script .. " 2>&1")
    sh("rm -rf " .. dir)
    assert.truthy(o1:find("@@1,0", 1, true), o1)
    assert.truthy(o2:find("@@0,1", 1, true), o2)
  end)

  it("makes PTX without an architecture and a cubin for one NVRTC knows", function()
    -- the JIT decides from the architecture alone (no device involved):
    -- compile only -> compute_90 PTX; SPECK_NVRTC_ARCH=sm_80 -> a cubin;
    -- an architecture newer than NVRTC knows -> PTX the driver finishes
    local dir = (sh("mktemp -d")):gsub("%s+$", "")
    local script = dir .. "/k.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
      speck.kernel("arch", "range", {x = speck.View("x", "float64", 4, {space = "host"})},
                   "x(i) = 1.5 * i;", {target = "cuda"})
    ]])
    f:close()
    local function entries(arch)
      local cache = dir .. "/c" .. arch
      sh(("SPECK_CACHE_DIR=%s SPECK_NVRTC_ARCH=%s %s %s 2>&1"):format(
        cache, arch == "none" and "" or arch, SPECK_BIN, script))
      return sh("ls -R " .. cache .. " 2>/dev/null")
    end
    local none, sm80 = entries("none"), entries("sm_80")
    sh("rm -rf " .. dir)
    if GPU then
      -- with a device the back end names its own architecture (a cubin)
      assert.truthy(none:find("%.cubin"), none)
    else
      assert.truthy(none:find("%.ptx"), none)
    end
    assert.truthy(sm80:find("%.cubin"), sm80)
  end)

  it("keeps parallel_for's grid-stride loop rolled, a reduction's unrolled", function()
    -- rolled: a third less NVRTC time; a reduction's single load stream
    -- needs the unrolled copies to reach the memory bandwidth
    local x = speck.View("x", "float64", 4, {space = "host"})
    local k = cuda_compile("range", {x = x}, "x(i) = 0.5 * i;")
    local src = speck.jit.source(k.label)
    assert.truthy(src:find("SK__ROLLED for (sk_i64 i0", 1, true), src)
    k = cuda_compile("range", {x = x}, "acc += x(i);", {pattern = "reduce"})
    src = speck.jit.source(k.label)
    assert.truthy(src:find("  for (sk_i64 i0", 1, true), src)
    assert.falsy(src:find("SK__ROLLED for (sk_i64 i0", 1, true), src)
  end)
end)

describe("cuda without a usable driver", function()
  if GPU then
    it("(a GPU is present)", function() pending("cuda is available here") end)
    return
  end
  it("says why in speck.info() and speck --info", function()
    local c = INFO.spaces.cuda
    assert.is_false(c.available)
    assert.is_string(c.reason)
    assert.truthy(#c.reason > 10)
    local out = sh(SPECK_BIN .. " --info 2>&1")
    assert.truthy(out:find("cuda: not available", 1, true), out)
  end)
  it("fails cleanly for a cuda view and speck.initialize{space = 'cuda'}", function()
    local ok, e = pcall(speck.View, "d", "float64", 8, {space = "cuda"})
    assert.is_false(ok)
    assert.truthy(tostring(e):find("'d'", 1, true), e)
    assert.truthy(tostring(e):find("not available", 1, true), e)
    local out, code = sh(SPECK_BIN .. " -e \"speck.initialize{space='cuda'}\" 2>&1")
    assert.are_not.equal(0, code)
    assert.truthy(out:find("space 'cuda' is not available", 1, true), out)
  end)
end)

-- -- 3. on a GPU ----------------------------------------------------------------
local function close(a, b, what)
  if a == b then return end
  if type(a) == "number" and math.type(a) == "float" then
    local tol = 1e-12 * math.max(1, math.abs(b))
    assert(math.abs(a - b) <= tol, ("%s: %s vs %s"):format(what, a, b))
  else
    assert.are.equal(b, a, what)
  end
end

describe("cuda on the GPU", function()
  if not GPU then
    it("(no GPU)", function() pending("cuda unavailable: " .. tostring(INFO.spaces.cuda.reason)) end)
    return
  end

  -- another space for the time of fn: the running one is finalised first
  -- (a second initialize must name the running settings)
  local function on(space, fn)
    speck.finalize()
    speck.initialize{space = space}
    local ok, e = pcall(fn)
    speck.finalize()
    speck.initialize{space = START}
    if not ok then error(e, 0) end
  end

  -- run pattern p with n items on 'space', views in 'vspace'; results and
  -- the views' contents as Lua tables
  local function run(p, n, space)
    local out = {}
    on(space, function()
      local caps = p.caps(n)
      for k, v in pairs(caps) do
        if type(v) == "userdata" then
          caps[k] = speck.View(v:label(), v:dtype(), n,
                               {space = space == "cuda" and "cuda_uvm" or "host"})
        end
      end
      local opts = {}
      for k, v in pairs(p.opts or {}) do opts[k] = v end
      local pat = opts.pattern or "for"
      opts.pattern = nil
      local red = opts.reducer
      opts.reducer = nil
      if pat == "reduce" then
        out.r = table.pack(speck.parallel_reduce(p.name, n, caps, p.body, red or "sum", opts))
      elseif pat == "scan" then
        out.r = table.pack(speck.parallel_scan(p.name, n, caps, p.body, opts))
      else
        speck.parallel_for(p.name, n, caps, p.body, opts)
      end
      speck.fence()
      out.views = {}
      for k, v in pairs(caps) do
        if type(v) == "userdata" then out.views[k] = v:totable() end
      end
    end)
    return out
  end

  for _, p in ipairs(patterns()) do
    for _, n in ipairs{0, 1, 1000, 100003} do
      it(("%s, n = %d, agrees with serial"):format(p.name, n), function()
        local a, b = run(p, n, "serial"), run(p, n, "cuda")
        if a.r then
          assert.are.equal(a.r.n, b.r.n)
          for i = 1, a.r.n do close(b.r[i], a.r[i], p.name .. " result " .. i) end
        end
        for k, t in pairs(a.views) do
          for i = 1, #t do close(b.views[k][i], t[i], p.name .. " " .. k .. "[" .. i .. "]") end
        end
      end)
    end
  end

  it("MDRange ranks 2..6, for and reduce, agree with serial", function()
    for _, m in ipairs(md_patterns()) do
      local res = {}
      for _, space in ipairs{"serial", "cuda"} do
        on(space, function()
          local dims = {}
          for d = 1, m.rank do dims[d] = m.hi[d] end
          local A = speck.View("A", "float64", dims,
                               {space = space == "cuda" and "cuda_uvm" or "host", layout = "left"})
          local sum = table.concat(m.idx, " * 3 + ")
          local pol = speck.MDRangePolicy(m.lo, m.hi)
          speck.parallel_for("md_for" .. m.rank, pol, {A = A},
            ("A(%s) = (double)(%s);"):format(table.concat(m.idx, ", "), sum))
          local r = speck.parallel_reduce("md_red" .. m.rank, pol, {A = A},
            ("acc += A(%s) * 0.5;"):format(table.concat(m.idx, ", ")), "sum")
          speck.fence()
          res[space] = {r = r, t = A:totable()}
        end)
      end
      close(res.cuda.r, res.serial.r, "rank " .. m.rank)
      local function flat(t, acc)
        acc = acc or {}
        for _, v in ipairs(t) do
          if type(v) == "table" then flat(v, acc) else acc[#acc + 1] = v end
        end
        return acc
      end
      local fa, fb = flat(res.serial.t), flat(res.cuda.t)
      for i = 1, #fa do close(fb[i], fa[i], "rank " .. m.rank .. " element " .. i) end
    end
  end)

  it("deep_copy in every direction and layout, strided views included", function()
    local h = speck.View("h", "int64", {37, 23}, {space = "host", layout = "right"})
    for i = 0, 36 do for j = 0, 22 do h:set(i, j, i * 1000 + j) end end
    for _, dl in ipairs{"left", "right"} do
      local d = speck.View("d", "int64", {37, 23}, {space = "cuda", layout = dl})
      speck.deep_copy(d, h)
      local back = speck.View("b", "int64", {37, 23}, {space = "host", layout = "left"})
      speck.deep_copy(back, d)
      local u = speck.View("u", "int64", {37, 23}, {space = "cuda_uvm", layout = "right"})
      speck.deep_copy(u, d)
      for i = 0, 36, 5 do for j = 0, 22, 3 do
        assert.are.equal(i * 1000 + j, back(i, j))
        assert.are.equal(i * 1000 + j, u(i, j))
      end end
      -- strided: a column block of the device view to and from the host
      local ds = speck.subview(d, {3, 30}, {2, 20})
      local hs = speck.View("hs", "int64", {27, 18}, {space = "host"})
      speck.deep_copy(hs, ds)
      for i = 0, 26, 4 do for j = 0, 17, 3 do
        assert.are.equal((i + 3) * 1000 + j + 2, hs(i, j))
      end end
      hs:fill(-5)
      speck.deep_copy(ds, hs)
      speck.deep_copy(back, d)
      assert.are.equal(-5, back(3, 2))
      assert.are.equal(-5, back(29, 19))
      assert.are.equal(2 * 1000 + 2, back(2, 2))
      assert.are.equal(30 * 1000 + 20, back(30, 20))
      -- device to device between layouts and strides
      local d2 = speck.View("d2", "int64", {27, 18}, {space = "cuda", layout = dl == "left" and "right" or "left"})
      speck.deep_copy(d2, ds)
      speck.deep_copy(hs, d2)
      assert.are.equal(-5, hs(26, 17))
      -- fill of a strided device view
      speck.deep_copy(ds, 9)
      speck.deep_copy(back, d)
      assert.are.equal(9, back(3, 2))
      assert.are.equal(2 * 1000 + 2, back(2, 2))
    end
  end)

  it("create_mirror_view keeps the device layout; device views refuse Lua access", function()
    local d = speck.View("d", "float64", {4, 5}, {space = "cuda", layout = "left"})
    local m = speck.create_mirror_view(d)
    assert.are.equal("left", m:layout())
    assert.are.equal("host", m:space())
    local ok, e = pcall(function() return d(0, 0) end)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("not accessible from Lua", 1, true), e)
  end)

  it("out of device memory names the view and the bytes", function()
    local ok, e = pcall(speck.View, "huge", "float64", 1 << 42, {space = "cuda"})
    assert.is_false(ok)
    e = tostring(e)
    assert.truthy(e:find("'huge'", 1, true), e)
    assert.truthy(e:find("35184372088832 bytes", 1, true), e)
    assert.truthy(e:find("free", 1, true), e)
    ok, e = pcall(speck.View, "huge_uvm", "float64", 1 << 42, {space = "cuda_uvm"})
    assert.is_false(ok)
    assert.truthy(tostring(e):find("refused", 1, true), e)
  end)

  -- backends/cuda/memory.c keeps freed managed blocks of up to 1 MiB for
  -- the next view of their size class
  it("managed views made after others were dropped start at zero, each its own block", function()
    local sizes = {1, 100, 511, 512, 513, 4096, 131072}  -- float64s: 8 B .. 1 MiB
    for _ = 1, 3 do
      local vs = {}
      for k, n in ipairs(sizes) do
        vs[k] = speck.View("kept", "float64", n, {space = "cuda_uvm"})
        speck.parallel_for("kept_fill", n, {v = vs[k], c = k}, "v(i) = c;")
      end
      speck.fence()
      vs = nil -- luacheck: ignore
      collectgarbage()
      collectgarbage()
      local again = {}
      for k, n in ipairs(sizes) do
        again[k] = speck.View("again", "float64", n, {space = "cuda_uvm"})
        local sum = speck.parallel_reduce("kept_sum", n, {v = again[k]}, "acc += v(i) != 0;")
        assert.are.equal(0, sum, "size " .. n)
      end
      for k, n in ipairs(sizes) do
        speck.parallel_for("kept_mark", n, {v = again[k], c = k}, "v(i) = c;")
      end
      for k, n in ipairs(sizes) do
        local sum = speck.parallel_reduce("kept_check", n, {v = again[k], c = k}, "acc += v(i) == c;")
        assert.are.equal(n, sum, "size " .. n .. " kept its own values")
      end
    end
  end)

  it("refuses host views in cuda kernels", function()
    on("cuda", function()
      local h = speck.View("h", "float64", 4, {space = "host"})
      local ok, e = pcall(speck.parallel_for, "hostview", 4, {h = h}, "h(i) = 1;")
      assert.is_false(ok)
      assert.truthy(tostring(e):find("lives in space host", 1, true), e)
    end)
  end)

  it("waits for the device as SPECK_CUDA_SYNC says, and refuses another word", function()
    for _, mode in ipairs({"spin", "yield", "block"}) do
      local out, code = sh("SPECK_CUDA_SYNC=" .. mode .. " " .. SPECK_BIN ..
        [[ -e "speck.initialize{space='cuda'}
        print('sum', speck.parallel_reduce('s', 1000, {}, 'acc += i;'))" 2>&1]])
      assert.are.equal(0, code, out)
      assert.truthy(out:find("sum\t499500", 1, true), out)
    end
    -- refused when the device is opened, before any context; the VM
    -- then starts on a host space
    local out, code = sh("SPECK_SPACE= SPECK_CUDA_SYNC=busy " .. SPECK_BIN ..
      [[ -e "print(pcall(speck.initialize, {space='cuda'}))
      speck.initialize{space='serial'}
      print('usable', speck.parallel_reduce('s', 10, {}, 'acc += i;'))" 2>&1]])
    assert.truthy(out:find("SPECK_CUDA_SYNC=busy: expected spin, yield or block", 1, true), out)
    assert.truthy(out:find("usable\t45", 1, true), out)
    assert.are.equal(0, code, out)
  end)

  it("reports a device index out of range and a faulting kernel", function()
    local out, code = sh(SPECK_BIN .. " -e \"speck.initialize{space='cuda', device=99}\" 2>&1")
    assert.are_not.equal(0, code)
    assert.truthy(out:find("device 99 is out of range", 1, true), out)
    out, code = sh(SPECK_BIN .. [[ -e "speck.initialize{space='cuda'}
      local x = speck.View('x', 'int64', 4)
      local ok, e = pcall(speck.parallel_reduce, 'wild', 4, {x = x},
        'int64_t *p = (int64_t *)0x10; acc += p[i * 100000];', 'sum')
      print(ok, e)
      local ok2, e2 = pcall(speck.fence)
      print('after', ok2, e2)" 2>&1]])
    assert.truthy(out:find("kernel 'wild': the body faulted", 1, true), out)
    assert.truthy(out:find("after", 1, true), out)
  end)
end)
