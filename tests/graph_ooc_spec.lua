local speck = require "speck"
local graph = require "speck.graph"
-- graph_ooc_spec.lua: graphs larger than GPU memory (seed 003 4.7). A
-- graph's arcs (colidx, weights) lie in cuda_pinned host memory, which
-- the GPU reads in place, when they do not fit in device memory; its
-- vertex arrays and every algorithm's vertex arrays stay on the device.
-- SPECK_CUDA_MEMORY_MAX caps device memory (the views in cuda and
-- cuda_uvm) to show it on any GPU.
--
-- Everywhere: the cap's parsing and message, g:to(space [, {edges}]) and
-- its bad input, g:to's copy giving the same BFS and components. With a
-- GPU (the cuda suite): BFS levels and parents and connected components
-- (Afforest and Shiloach-Vishkin) of a graph whose edges are in
-- cuda_pinned -- placed by hand, and placed by the builder under a cap
-- below the edge array's size in a child process -- equal the in-memory
-- GPU result and a BFS / union-find in Lua over the host copy; and the
-- cap's message when not even the vertex arrays fit.

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local INFO = speck.info()
local GPU = INFO.spaces.cuda and INFO.spaces.cuda.available
local ON_CUDA = INFO.default_space == "cuda"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- run 'code' with bin/speck -e under 'envs'; stdout, stderr, status
local function speck_e(code, envs)
  local errpath = os.tmpname()
  local p = assert(io.popen(("env %s timeout -k 10 300 %s -e %s 2>%s"):format(
    envs or "", quote(SPECK), quote(code), quote(errpath))))
  local out = p:read("a")
  local _, _, status = p:close()
  local f = io.open(errpath)
  local err = f:read("a")
  f:close()
  os.remove(errpath)
  return out, err, status
end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v):totable() end

-- the oracle: BFS levels and smallest-vertex component labels in Lua
local function lua_bfs(rp, ci, nv, s)
  local lev = {}
  for v = 1, nv do lev[v] = -1 end
  lev[s + 1] = 0
  local q, head = {s}, 1
  while head <= #q do
    local u = q[head]
    head = head + 1
    for k = rp[u + 1], rp[u + 2] - 1 do
      local v = ci[k + 1]
      if lev[v + 1] == -1 then
        lev[v + 1] = lev[u + 1] + 1
        q[#q + 1] = v
      end
    end
  end
  return lev
end

local function lua_components(rp, ci, nv)
  local p = {}
  for v = 0, nv - 1 do p[v] = v end
  local function find(x)
    while p[x] ~= x do p[x] = p[p[x]]; x = p[x] end
    return x
  end
  for u = 0, nv - 1 do
    for k = rp[u + 1], rp[u + 2] - 1 do
      local a, b = find(u), find(ci[k + 1])
      if a < b then p[b] = a elseif b < a then p[a] = b end
    end
  end
  local lab, n = {}, 0
  for v = 0, nv - 1 do
    lab[v + 1] = find(v)
    if lab[v + 1] == v then n = n + 1 end
  end
  return lab, n
end

-- equal lists, or a message naming the first difference
local function same(what, a, b)
  if #a ~= #b then return ("%s: %d entries against %d"):format(what, #a, #b) end
  for i = 1, #a do
    if a[i] ~= b[i] then
      return ("%s: vertex %d is %s, expected %s"):format(what, i - 1, tostring(a[i]),
                                                       tostring(b[i]))
    end
  end
  return nil
end

-- every reached non-source vertex's parent is a neighbour one level up
local function parents_ok(rp, ci, lev, par, s)
  for v = 0, #lev - 1 do
    local l, p = lev[v + 1], par[v + 1]
    if l == -1 then
      if p ~= -1 then return ("vertex %d unreached but has parent %d"):format(v, p) end
    elseif v == s then
      if p ~= s then return ("the source %d has parent %d"):format(s, p) end
    else
      if p < 0 or lev[p + 1] ~= l - 1 then
        return ("vertex %d (level %d) has parent %d (level %s)"):format(v, l, p,
                                                                       tostring(lev[p + 1]))
      end
      local adj = false
      for k = rp[v + 1], rp[v + 2] - 1 do adj = adj or ci[k + 1] == p end
      if not adj then return ("vertex %d's parent %d is not a neighbour"):format(v, p) end
    end
  end
  return nil
end

describe("SPECK_CUDA_MEMORY_MAX", function()
  it("refuses a malformed value at start-up, as SPECK_MEMORY_MAX", function()
    for _, v in ipairs{"x", "-1", "0", "1T"} do
      local _, err, status = speck_e("print(1)", "SPECK_CUDA_MEMORY_MAX=" .. v)
      assert.are.equal(1, status)
      assert.truthy(err:find(("speck: SPECK_CUDA_MEMORY_MAX=%s: not a size (bytes, or a number "
        .. "with K, M or G; more than 0)"):format(v), 1, true), err)
    end
  end)

  it("refuses a device view past the cap before asking the device", function()
    local out = speck_e([[local speck = require "speck"
      print(select(2, pcall(speck.View, "big", "float64", 2^20, {space = "cuda"})))
      print(select(2, pcall(speck.View, "big", "int32", 2^20, {space = "cuda_uvm"})))
      print(select(2, pcall(speck.View, "tiny", "int32", 1000, {space = "cuda"})))]],
      "SPECK_CUDA_MEMORY_MAX=1M")
    for _, x in ipairs{{8388608, "cuda"}, {4194304, "cuda_uvm"}} do
      local want = ("speck%%.View 'big': cannot allocate %d bytes in space '%s' %%(with %%d+ "
        .. "bytes of views held, more than SPECK_CUDA_MEMORY_MAX's 1%%.00 MiB%%)"):format(x[1], x[2])
      assert.truthy(out:find(want), "expected /" .. want .. "/ in:\n" .. out)
    end
    -- below the cap: the device's own answer (a view without a GPU)
    assert.falsy(out:find("speck.View 'tiny': cannot allocate 4000 bytes in space 'cuda' (with",
                          1, true), out)
  end)

  it("leaves host graphs alone", function()
    local out, err = speck_e([[local graph = require "speck.graph"
      local g = graph.kronecker(10, 8, {seed = 5})
      print(g:space(), g:edge_space(), g:num_vertices())]],
      "SPECK_SPACE=serial SPECK_CUDA_MEMORY_MAX=1K")
    assert.are.equal("host\thost\t1024\n", out, err)
  end)
end)

describe("graph:to", function()
  local g = graph.kronecker(9, 8, {seed = 11})

  it("copies a graph, the edges in its space when they fit", function()
    local h = g:to(g:space())
    assert.are.equal(g:space(), h:space())
    assert.are.equal(g:space(), h:edge_space())
    assert.are.equal(tostring(g), tostring(h))
    assert.are.same(host(graph.bfs(g, 3)), host(graph.bfs(h, 3)))
    assert.are.same(host(graph.connected_components(g)),
                    host(graph.connected_components(h)))
    local w = graph.from_edges(4, {0, 1, 2}, {1, 2, 3}, {weights = {0.5, 1.5, 2.5}})
    local w2 = w:to(w:space(), {edges = w:space()})
    assert.are.same(host(w.weights), host(w2.weights))
    assert.is_true(w2:is_weighted())
  end)

  it("refuses bad spaces and options, naming them", function()
    local sp = g:space()
    assert.are.equal("speck.graph.to: unknown space 'mars' (expected 'host', 'cuda', "
      .. "'cuda_pinned' or 'cuda_uvm')", err_of(g.to, g, "mars"))
    assert.are.equal("speck.graph.to: unknown edges space 'venus' (expected 'host', 'cuda', "
      .. "'cuda_pinned' or 'cuda_uvm')", err_of(g.to, g, sp, {edges = "venus"}))
    assert.are.equal("speck.graph.to: edges in 'cuda_pinned' with the vertices in 'host': "
      .. "the edges of a graph in 'host' go to 'host'",
      err_of(g.to, g, "host", {edges = "cuda_pinned"}))
    assert.are.equal("speck.graph.to: edges in 'host' with the vertices in 'cuda': the "
      .. "edges go to 'cuda' or 'cuda_pinned' (host memory the device reads in place)",
      err_of(g.to, g, "cuda", {edges = "host"}))
    assert.are.equal("speck.graph.to: edges in 'cuda_uvm' with the vertices in 'cuda': the "
      .. "edges go to 'cuda' or 'cuda_pinned' (host memory the device reads in place)",
      err_of(g.to, g, "cuda", {edges = "cuda_uvm"}))
    assert.are.equal("speck.graph.to: space must be a string, got number", err_of(g.to, g, 1))
    assert.are.equal("speck.graph.to: option edges must be a string, got boolean",
                     err_of(g.to, g, sp, {edges = true}))
    assert.are.equal("speck.graph.to: unknown option 'edge' (valid: edges)",
                     err_of(g.to, g, sp, {edge = "cuda"}))
    -- the VM and the graph are fine afterwards
    assert.are.equal(g:num_edges(), g:to(sp):num_edges())
  end)
end)

describe("graphs larger than GPU memory", function()
  if not (GPU and ON_CUDA) then
    it("run on the GPU", function()
      pending(GPU and "the cuda suite runs these (SPECK_SPACE=cuda)"
              or "no usable GPU here (speck.info().spaces.cuda): the cuda suite runs these")
    end)
    return
  end
  -- the graph: Kronecker scale 12, edge factor 32 (about 2.4e5 arcs, 1 MB
  -- of colidx), in device memory: the default space (cuda, or cuda_uvm
  -- with SPECK_CUDA_UVM=1)
  local SP = speck.View("x", "int32", 1):space()
  local SCALE, EF, SEED, SRC = 12, 32, 7, 1
  local g = graph.kronecker(SCALE, EF, {seed = SEED})
  local rp, ci = host(g.rowptr), host(g.colidx)
  local nv = g:num_vertices()
  local want_lev = lua_bfs(rp, ci, nv, SRC)
  local want_lab, want_n = lua_components(rp, ci, nv)

  it("in cuda_pinned by hand: BFS and components as in memory and on the host", function()
    local p = g:to(SP, {edges = "cuda_pinned"})
    assert.are.equal("cuda_pinned", p:edge_space())
    assert.are.equal(SP, p:space())
    assert.truthy(tostring(p):find(", edges in cuda_pinned,", 1, true), tostring(p))
    for _, dopt in ipairs{true, false} do
      local lm, pm = graph.bfs(g, SRC, {direction_optimizing = dopt})
      local lp, pp = graph.bfs(p, SRC, {direction_optimizing = dopt})
      local hl = host(lp)
      assert.is_nil(same("pinned BFS level vs Lua", hl, want_lev))
      assert.is_nil(same("pinned BFS level vs in-memory GPU", hl, host(lm)))
      assert.is_nil(parents_ok(rp, ci, hl, host(pp), SRC))
      assert.is_nil(parents_ok(rp, ci, host(lm), host(pm), SRC))
    end
    for _, alg in ipairs{"afforest", "sv"} do
      local lm, nm = graph.connected_components(g, {algorithm = alg})
      local lp, np = graph.connected_components(p, {algorithm = alg})
      assert.are.equal(want_n, np, alg)
      assert.are.equal(nm, np, alg)
      assert.is_nil(same(alg .. " pinned labels vs Lua", host(lp), want_lab))
      assert.is_nil(same(alg .. " pinned labels vs in-memory GPU", host(lp), host(lm)))
    end
  end)

  it("under a device cap below the edge array: the builder places the edges in cuda_pinned",
     function()
    local cbytes = g:num_arcs() * 4
    local cap = cbytes // 2
    local out, err, status = speck_e(([[local speck = require "speck"
      local graph = require "speck.graph"
      local g = graph.kronecker(%d, %d, {seed = %d})
      print("space", g:space(), g:edge_space(), g:num_arcs())
      local lev = speck.create_mirror_view_and_copy("host", graph.bfs(g, %d)):totable()
      print("levels", table.concat(lev, ","))
      local lab, n = graph.connected_components(g)
      print("labels", n, table.concat(speck.create_mirror_view_and_copy("host", lab):totable(), ","))
      local lab2 = graph.connected_components(g, {algorithm = "sv"})
      print("sv", table.concat(speck.create_mirror_view_and_copy("host", lab2):totable(), ","))
      local t = g:to(g:space())
      print("to", t:edge_space())
      print("forced", select(2, pcall(g.to, g, g:space(), {edges = g:space()})))]]):format(
      SCALE, EF, SEED, SRC), "SPECK_CUDA_MEMORY_MAX=" .. cap)
    assert.are.equal(0, status, "the capped child failed: " .. err .. out)
    local fields = {}
    for line in out:gmatch("[^\n]+") do
      local k, rest = line:match("^(%S+)\t(.*)$")
      if k then fields[k] = rest end
    end
    local function list(s)
      local t = {}
      for x in s:gmatch("[^,]+") do t[#t + 1] = math.tointeger(tonumber(x)) end
      return t
    end
    assert.are.equal(("%s\tcuda_pinned\t%d"):format(SP, g:num_arcs()), fields.space,
                     ("with a cap of %d bytes below the %d-byte edge array the edges must be "
                      .. "in cuda_pinned: %s"):format(cap, cbytes, out))
    assert.is_nil(same("capped BFS level vs Lua", list(fields.levels), want_lev))
    assert.is_nil(same("capped BFS level vs in-memory GPU", list(fields.levels),
                       host(graph.bfs(g, SRC))))
    local n, labs = fields.labels:match("^(%d+)\t(.*)$")
    assert.are.equal(want_n, math.tointeger(tonumber(n)))
    assert.is_nil(same("capped afforest labels vs Lua", list(labs), want_lab))
    assert.is_nil(same("capped sv labels vs Lua", list(fields.sv), want_lab))
    assert.is_nil(same("capped labels vs in-memory GPU", list(labs),
                       host(graph.connected_components(g))))
    assert.are.equal("cuda_pinned", fields.to)
    assert.truthy(fields.forced:find(("^speck%%.graph%%.to: cannot allocate %d bytes in space '%s' "
      .. "%%(with %%d+ bytes of views held, more than SPECK_CUDA_MEMORY_MAX's"):format(cbytes, SP)),
      fields.forced)
  end)

  it("says what does not fit when not even the vertex arrays fit under the cap", function()
    local out, err = speck_e([[local graph = require "speck.graph"
      print(select(2, pcall(graph.kronecker, 12, 32, {seed = 7})))
      print(graph.grid2d(2, 2):num_edges())]], "SPECK_CUDA_MEMORY_MAX=4K")
    assert.truthy(out:find(("^speck%%.graph%%.kronecker: cannot allocate %%d+ bytes in space '%s' "
      .. "%%(with %%d+ bytes of views held, more than SPECK_CUDA_MEMORY_MAX's 4096 bytes%%)\n4\n$")
      :format(SP)), out .. err)
  end)
end)
