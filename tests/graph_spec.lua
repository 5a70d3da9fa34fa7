local speck = require "speck"
local graph = require "speck.graph"
-- graph_spec.lua: speck.graph against NetworkX (Debian's python3-networkx,
-- run once per spec run with /usr/bin/python3 on graphs written here; see
-- tests/graph_oracle.py): building from edges (duplicates, self-loops,
-- symmetrisation, weights), the SNAP, "u v [w]" and Matrix Market readers
-- and writers (round trips, every malformed line with its number), the
-- generators (the same graph for a seed on every back end), BFS levels
-- and parents, connected components as partitions, PageRank within 1e-6,
-- per-vertex triangles and valid colorings, on random, generated, empty
-- and isolated-vertex graphs. tests/run.sh runs it once per back end;
-- every view is in the default space, so it runs on cuda (with
-- SPECK_CUDA_UVM=1) too.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/graph_oracle.py"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end
local HAVE_NX = select(2, sh(PY .. " -c 'import networkx'"))
local HAVE_NP = select(2, sh(PY .. " -c 'import numpy'"))

local function write_file(name, text)
  local path = DIR .. "/" .. name
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 4242
local function rint(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

-- -- the graphs, and one run of the oracle ------------------------------------
local function random_edges(nv, ne, weighted)
  local s, d, w = {}, {}, {}
  for i = 1, ne do
    s[i], d[i] = rint(nv), rint(nv)
    w[i] = (rint(1000) + 1) / 100
  end
  return s, d, weighted and w or nil
end

local CASES = {}
local function case(name, g) CASES[#CASES + 1] = {name = name, g = g} end
do
  case("erdos-renyi", graph.erdos_renyi(300, 700, {seed = 3}))
  case("kronecker scale 8", graph.kronecker(8, 8, {seed = 2}))
  case("grid 7x5", graph.grid2d(7, 5))
  case("grid 3x3x4", graph.grid3d(3, 3, 4))
  local s, d = random_edges(120, 260)
  case("directed random", graph.from_edges(120, s, d, {directed = true}))
  local s2, d2, w2 = random_edges(90, 200, true)
  case("weighted", graph.from_edges(90, s2, d2, {weights = w2}))
  local s3, d3, w3 = random_edges(60, 150, true)
  case("weighted directed", graph.from_edges(60, s3, d3, {weights = w3, directed = true}))
  case("isolated vertices", graph.from_edges(12, {3, 4, 5, 9}, {4, 5, 3, 9}))
  do
    -- hubs of degrees 16 * 2^h (h = 0..4), 160 and 180, joined to each
    -- other and to random leaves, and a sparse random graph of the
    -- leaves: the hubs of degree >= 64 x the mean degree (2: 128) are
    -- VB's heavy vertices (colored first, in two log2 buckets)
    local hs, hd = {}, {}
    local nv = 1000
    local deg = {16, 32, 64, 128, 320, 160, 180}
    for h = 0, #deg - 1 do
      for j = h + 1, #deg - 1 do hs[#hs + 1], hd[#hd + 1] = h, j end
      for _ = 1, deg[h + 1] do hs[#hs + 1], hd[#hd + 1] = h, #deg + rint(nv - #deg) end
    end
    for _ = 1, 250 do
      hs[#hs + 1], hd[#hd + 1] = #deg + rint(nv - #deg), #deg + rint(nv - #deg)
    end
    case("hubs and leaves", graph.from_edges(nv, hs, hd))
  end
  case("no edges", graph.from_edges(5, {}, {}))
  case("empty", graph.from_edges(0, {}, {}))
end

local ORACLE_OUT = {}
if HAVE_NX then
  local jobs = {}
  for i, c in ipairs(CASES) do
    local gp = DIR .. "/case" .. i .. ".snap"
    graph.write(gp, c.g)
    c.out = DIR .. "/case" .. i .. ".out"
    jobs[#jobs + 1] = ("%s %d %s 0"):format(gp, c.g:is_directed() and 1 or 0, c.out)
  end
  local jp = write_file("jobs.txt", table.concat(jobs, "\n") .. "\n")
  local out, ok = sh(PY .. " " .. ORACLE .. " " .. jp)
  assert(ok, "the NetworkX oracle failed: " .. out)
  for _, c in ipairs(CASES) do
    local r = {}
    for line in io.lines(c.out) do
      local key, rest = line:match("^(%S+)%s*(.*)$")
      local t = {}
      for x in rest:gmatch("%S+") do t[#t + 1] = tonumber(x) end
      r[key] = t
    end
    ORACLE_OUT[c] = r
  end
end

local function oracle(c)
  if not HAVE_NX then pending("python3-networkx is not installed") return nil end
  return ORACLE_OUT[c]
end

-- the arcs of g as a set "u v"
local function arcs(g)
  local rp, ci, set = g.rowptr:totable(), g.colidx:totable(), {}
  for u = 0, g:num_vertices() - 1 do
    for k = rp[u + 1], rp[u + 2] - 1 do set[u .. " " .. ci[k + 1]] = true end
  end
  return set, rp, ci
end

-- -- the algorithms against NetworkX -------------------------------------------
describe("speck.graph algorithms against NetworkX", function()
  for _, c in ipairs(CASES) do
    local g = c.g
    it("BFS levels and parents: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      if g:num_vertices() == 0 then
        assert.equal("speck.graph.bfs: source 0 is not a vertex (the graph has 0: 0..-1)",
                     err_of(graph.bfs, g, 0))
        return
      end
      local set = arcs(g)
      for _, dopt in ipairs{true, false} do
        local level, parent = graph.bfs(g, 0, {direction_optimizing = dopt})
        local lt, pt = level:totable(), parent:totable()
        assert.same(r.bfs, lt)
        for v = 0, g:num_vertices() - 1 do
          local p = pt[v + 1]
          if lt[v + 1] <= 0 then
            assert.equal(lt[v + 1] == 0 and v or -1, p)
          else
            assert.equal(lt[v + 1] - 1, lt[p + 1])
            assert.is_true(set[p .. " " .. v] ~= nil)
          end
        end
      end
    end)
    it("connected components: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      for _, alg in ipairs{"afforest", "sv"} do
        local labels, ncomp = graph.connected_components(g, {algorithm = alg})
        assert.same(r.cc, labels:totable())
        local roots = 0
        for v, l in ipairs(r.cc) do if l == v - 1 then roots = roots + 1 end end
        assert.equal(roots, ncomp)
      end
    end)
    it("PageRank within 1e-6: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local rank, iters = graph.pagerank(g, {tol = 1e-12, maxiter = 1000})
      local t, sum = rank:totable(), 0
      assert.equal(#r.pr, #t)
      for v = 1, #t do
        assert.is_true(math.abs(t[v] - r.pr[v]) < 1e-6, ("vertex %d: %.12g vs %.12g"):format(v - 1, t[v], r.pr[v]))
        sum = sum + t[v]
      end
      if #t > 0 then
        assert.is_true(math.abs(sum - 1) < 1e-9)
        assert.is_true(iters >= 1 and iters <= 1000)
      end
    end)
    it("PageRank in float32 within 1e-6: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      -- float32 ranks hold about 7 digits, so sum |x' - x| stays near
      -- 1e-7 at best: 150 iterations without a tolerance (0.85^150 =
      -- 2.6e-11), then the default tol (1e-6: N * 1e-6) must be met
      local rank, iters = graph.pagerank(g, {tol = 1e-300, maxiter = 150, dtype = "float32"})
      assert.equal("float32", rank:dtype())
      assert.equal(#r.pr > 0 and 150 or 0, iters)
      local _, iters6 = graph.pagerank(g, {maxiter = 1000, dtype = "float32"})
      local t, sum = rank:totable(), 0
      assert.equal(#r.pr, #t)
      for v = 1, #t do
        assert.is_true(math.abs(t[v] - r.pr[v]) < 1e-6, ("vertex %d: %.12g vs %.12g"):format(v - 1, t[v], r.pr[v]))
        sum = sum + t[v]
      end
      if #t > 0 then
        assert.is_true(math.abs(sum - 1) < 1e-6)
        assert.is_true(iters6 >= 1 and iters6 < 1000)
      end
    end)
    if not g:is_directed() then
      it("triangles per vertex: " .. c.name, function()
        local r = oracle(c)
        if not r then return end
        local total, per = graph.triangles(g)
        assert.same(r.tri, per:totable())
        local s = 0
        for _, x in ipairs(r.tri) do s = s + x end
        assert.equal(s // 3, total)
        local hist, want = graph.minitri(g), {}
        for j = 1, #r.mt, 2 do want[r.mt[j]] = r.mt[j + 1] end
        assert.same(want, hist)
        local only, none = graph.triangles(g, {per_vertex = false})
        assert.equal(total, only)
        assert.is_nil(none)
      end)
      for _, alg in ipairs{"vb", "vb natural", "eb"} do
        it("distance-1 coloring (" .. alg .. ") is valid: " .. c.name, function()
          local colors, ncolors = graph.color(g, {algorithm = alg:match("^%a+"),
                                                  order = alg:match(" (%a+)$")})
          local _, rp, ci = arcs(g)
          local ct, maxc = colors:totable(), 0
          for u = 0, g:num_vertices() - 1 do
            assert.is_true(ct[u + 1] >= 1 and ct[u + 1] <= ncolors)
            maxc = math.max(maxc, ct[u + 1])
            for k = rp[u + 1], rp[u + 2] - 1 do
              local v = ci[k + 1]
              if v ~= u then assert.is_true(ct[u + 1] ~= ct[v + 1]) end
            end
          end
          assert.equal(maxc, ncolors)
          local o = oracle(c)
          if o then assert.is_true(ncolors <= o.maxdeg[1] + 1) end
        end)
      end
      for _, alg in ipairs{"vb", "nb"} do
        it("distance-2 coloring (" .. alg .. ") is valid: " .. c.name, function()
          local colors, ncolors = graph.color_d2(g, {algorithm = alg})
          local _, rp, ci = arcs(g)
          local ct, maxc = colors:totable(), 0
          for v = 0, g:num_vertices() - 1 do
            maxc = math.max(maxc, ct[v + 1])
            assert.is_true(ct[v + 1] >= 1)
            for k = rp[v + 1], rp[v + 2] - 1 do
              local u = ci[k + 1]
              if u ~= v then assert.is_true(ct[u + 1] ~= ct[v + 1]) end
              for j = rp[u + 1], rp[u + 2] - 1 do
                local w = ci[j + 1]
                if w ~= v then assert.is_true(ct[w + 1] ~= ct[v + 1]) end
              end
            end
          end
          assert.equal(maxc, ncolors)
          local o = oracle(c)
          -- VB is greedy (at most Δ(G²) + 1 colors); NB may open a new
          -- window of 64 colors while lower ones still have room
          if o and alg == "vb" then assert.is_true(ncolors <= o.maxdeg[2] + 1) end
        end)
      end
      it("MIS-2 coarsening: aggregates of one root, within two edges: " .. c.name, function()
        local labels, ncoarse = graph.coarsen_mis2(g)
        local members = graph.mis2(g):totable()
        local _, rp, ci = arcs(g)
        local lt, root = labels:totable(), {}
        -- the roots, numbered in vertex order
        for v = 0, g:num_vertices() - 1 do
          if members[v + 1] == 1 then root[#root + 1] = v end
        end
        assert.equal(#root, ncoarse)
        for a, r in ipairs(root) do assert.equal(a - 1, lt[r + 1]) end
        -- every vertex is in an aggregate whose root is within distance 2
        for v = 0, g:num_vertices() - 1 do
          local l = lt[v + 1]
          assert.is_true(l >= 0 and l < ncoarse)
          local r, near = root[l + 1], v == root[l + 1]
          for k = rp[v + 1], rp[v + 2] - 1 do
            local u = ci[k + 1]
            near = near or u == r
            for j = rp[u + 1], rp[u + 2] - 1 do near = near or ci[j + 1] == r end
          end
          assert.is_true(near)
        end
      end)
      it("MIS-2 is independent at distance 2 and maximal: " .. c.name, function()
        local members, count = graph.mis2(g)
        local _, rp, ci = arcs(g)
        local mt, n = members:totable(), 0
        -- near[v]: members within distance 2 of v (v itself included)
        for v = 0, g:num_vertices() - 1 do
          local seen, near = {[v] = true}, mt[v + 1]
          for k = rp[v + 1], rp[v + 2] - 1 do
            local u = ci[k + 1]
            if not seen[u] then seen[u] = true; near = near + mt[u + 1] end
            for j = rp[u + 1], rp[u + 2] - 1 do
              local w = ci[j + 1]
              if not seen[w] then seen[w] = true; near = near + mt[w + 1] end
            end
          end
          if mt[v + 1] == 1 then assert.equal(1, near) else assert.is_true(near >= 1) end
          n = n + mt[v + 1]
        end
        assert.equal(n, count)
      end)
    end
  end

  it("BFS from several sources", function()
    local g = graph.grid2d(5, 1)
    local level = graph.bfs(g, {0, 4})
    assert.same({0, 1, 2, 1, 0}, level:totable())
    level = graph.bfs(g, speck.View.from({2, 2}, "int64"))
    assert.same({2, 1, 0, 1, 2}, level:totable())
  end)

  it("BFS with a visitor compiled into the kernel, against a Lua-side recount", function()
    local g = graph.erdos_renyi(400, 900, {seed = 11})
    local _, rp, ci = arcs(g)
    local found = speck.View("found", "int64", 1)
    local exam = speck.View("exam", "int64", 1)
    local tree = speck.View("tree", "int64", 1)
    local depth = speck.View("depth", "int64", g:num_vertices())
    local level = graph.bfs(g, 0, {visitor = {
      captures = {found = found, exam = exam, tree = tree, depth = depth, m = 3},
      discover_vertex = "atomic_add(&found(0), (int64_t)1); depth(v) = lv;",
      examine_edge = "atomic_add(&exam(0), (int64_t)1);",
      tree_edge = "atomic_add(&tree(0), (int64_t)1);",
      filter = "v % m != 1"}})
    -- the same search in Lua: arcs into v = 1 (mod 3) are not followed
    local lev, queue, head, nfound, nexam = {[0] = 0}, {0}, 1, 1, 0
    while head <= #queue do
      local u = queue[head]; head = head + 1
      for k = rp[u + 1], rp[u + 2] - 1 do
        local v = ci[k + 1]
        nexam = nexam + 1
        if v % 3 ~= 1 and not lev[v] then
          lev[v] = lev[u] + 1; queue[#queue + 1] = v; nfound = nfound + 1
        end
      end
    end
    local lt, dt = level:totable(), depth:totable()
    for v = 0, g:num_vertices() - 1 do
      assert.equal(lev[v] or -1, lt[v + 1])
      assert.equal(lev[v] or 0, dt[v + 1])
    end
    assert.equal(nfound, found(0))
    assert.equal(nfound - 1, tree(0))
    assert.equal(nexam, exam(0))
  end)

  it("VB colors the vertices of high degree first, by decreasing degree", function()
    -- four hubs at the top ids (degrees 1280, 700, 640, 320: >= 64 x the
    -- mean degree) joined to each other and to random leaves, and a
    -- path through the leaves; by id they would come last
    local nv, deg = 3000, {320, 640, 700, 1280}
    local s, d = {}, {}
    for h = 1, 4 do
      local hub = nv - h
      for j = h + 1, 4 do s[#s + 1], d[#d + 1] = hub, nv - j end
      for _ = 1, deg[h] do s[#s + 1], d[#d + 1] = hub, rint(nv - 4) end
    end
    for v = 0, nv - 6 do s[#s + 1], d[#d + 1] = v, v + 1 end
    local g = graph.from_edges(nv, s, d)
    local _, rp, ci = arcs(g)
    for _, order in ipairs{"largest_first", "natural"} do
      local colors, ncolors = graph.color(g, {order = order})
      local ct = colors:totable()
      for u = 0, nv - 1 do
        for k = rp[u + 1], rp[u + 2] - 1 do
          local v = ci[k + 1]
          if v ~= u then assert.is_true(ct[u + 1] ~= ct[v + 1]) end
        end
      end
      if order == "largest_first" then
        -- 1280 first, then 700 and 640 (one bucket of log2), then 320
        assert.equal(1, ct[nv - 4 + 1])
        assert.same({2, 3}, {math.min(ct[nv - 3 + 1], ct[nv - 2 + 1]),
                             math.max(ct[nv - 3 + 1], ct[nv - 2 + 1])})
        assert.equal(4, ct[nv - 1 + 1])
        assert.is_true(ncolors <= 6)
      end
    end
    assert.equal("speck.graph.color: order must be \"largest_first\" or \"natural\", got random",
                 err_of(graph.color, g, {order = "random"}))
    assert.equal("speck.graph.color: order is an option of algorithm \"vb\", not \"eb\"",
                 err_of(graph.color, g, {algorithm = "eb", order = "natural"}))
  end)

  it("PageRank of a directed graph with a dangling vertex (NetworkX's values)", function()
    -- nx.pagerank(nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 1), (0, 3)]))
    local g = graph.from_edges(4, {0, 1, 2, 2, 0}, {1, 2, 0, 1, 3}, {directed = true})
    local rank = graph.pagerank(g, {tol = 1e-12, maxiter = 1000}):totable()
    local want = {0.2108699774, 0.3004897178, 0.3272184123, 0.1614218926}
    for v = 1, 4 do assert.is_true(math.abs(rank[v] - want[v]) < 1e-6, tostring(rank[v])) end
    local r32 = graph.pagerank(g, {tol = 1e-300, maxiter = 150, dtype = "float32"}):totable()
    for v = 1, 4 do assert.is_true(math.abs(r32[v] - want[v]) < 1e-6, tostring(r32[v])) end
  end)

  -- skewed graphs whose rows reach hundreds of arcs (on a GPU: PageRank's
  -- rows of 64+ arcs in chunks, summed atomically; triangles a thread per
  -- kept arc), against Lua references of NetworkX's iteration and of the
  -- per-vertex count: every space, no oracle needed
  it("PageRank and triangles on skewed graphs against Lua references", function()
    local function lua_pagerank(nv, rp, ci, w, directed, iters)
      local d, x, outw = 0.85, {}, {}
      for v = 1, nv do x[v], outw[v] = 1 / nv, 0 end
      -- the in-arcs: (source, weight) lists per target
      local inn = {}
      for v = 1, nv do inn[v] = {} end
      for u = 1, nv do
        for k = rp[u] + 1, rp[u + 1] do
          local v, wt = ci[k] + 1, w and w[k] or 1
          outw[u] = outw[u] + wt
          local t = inn[directed and v or u]
          t[#t + 1] = {directed and u or v, wt}
        end
      end
      for _ = 1, iters do
        local dang = 0
        for v = 1, nv do if outw[v] == 0 then dang = dang + x[v] end end
        local base, xn = (d * dang + 1 - d) / nv, {}
        for v = 1, nv do
          local s = 0
          for _, a in ipairs(inn[v]) do s = s + x[a[1]] * a[2] / outw[a[1]] end
          xn[v] = d * s + base
        end
        x = xn
      end
      return x
    end
    local sk, dk, wk = {}, {}, {}
    for i = 1, 6000 do
      sk[i], dk[i], wk[i] = rint(700), rint(8) == 0 and rint(700) or rint(12), (rint(100) + 1) / 10
    end
    local cases = {
      {graph.kronecker(10, 16, {seed = 7}), false, false},
      {graph.from_edges(700, sk, dk, {directed = true}), true, false},
      {graph.from_edges(700, sk, dk, {weights = wk}), false, true},
    }
    for ci_, c in ipairs(cases) do
      local g, directed, weighted = c[1], c[2], c[3]
      local nv, rp, ci = g:num_vertices(), g.rowptr:totable(), g.colidx:totable()
      -- the rows the pull walks (a directed graph's: its in-arcs)
      local deg, maxd = {}, 0
      for u = 1, nv do deg[u] = directed and 0 or rp[u + 1] - rp[u] end
      if directed then for k = 1, #ci do deg[ci[k] + 1] = deg[ci[k] + 1] + 1 end end
      for u = 1, nv do maxd = math.max(maxd, deg[u]) end
      assert.is_true(maxd >= 100, "case " .. ci_ .. ": a row of " .. maxd .. " arcs")
      -- (a run whose change reaches exactly 0 stops early: the reference
      -- runs as many iterations)
      local got, it_ = graph.pagerank(g, {maxiter = 30, tol = 1e-300})
      assert.is_true(it_ >= 10 and it_ <= 30, tostring(it_))
      local want = lua_pagerank(nv, rp, ci, weighted and g.weights:totable() or nil, directed, it_)
      got = got:totable()
      for v = 1, nv do
        assert.is_true(math.abs(got[v] - want[v]) < 1e-12,
                       ("case %d vertex %d: %.17g, want %.17g"):format(ci_, v - 1, got[v], want[v]))
      end
      if not directed and not weighted then
        local adj = {}
        for u = 1, nv do
          adj[u] = {}
          for k = rp[u] + 1, rp[u + 1] do adj[u][ci[k] + 1] = true end
        end
        local tri, total = {}, 0
        for u = 1, nv do tri[u] = 0 end
        for u = 1, nv do
          for v in pairs(adj[u]) do
            if v > u then
              for w in pairs(adj[v]) do
                if w > v and adj[u][w] then
                  tri[u], tri[v], tri[w], total = tri[u] + 1, tri[v] + 1, tri[w] + 1, total + 1
                end
              end
            end
          end
        end
        local t, per = graph.triangles(g)
        assert.equal(total, t)
        assert.equal(total, (graph.triangles(g, {per_vertex = false})))
        assert.same(tri, per:totable())
      end
    end
  end)

  -- graphs big enough for several bottom-up steps (on the host over a
  -- frontier bitmap, a word of 64 vertices a work item; 1000 and 4096
  -- vertices: a last word part full, and full): the levels of the
  -- direction-optimising BFS are the top-down BFS's, from one source and
  -- from several, and every parent is a neighbour one level up; Afforest
  -- (giant component skipped) gives SV's labels
  it("direction-optimising BFS and Afforest on larger graphs", function()
    local gs = {graph.kronecker(12, 16, {seed = 5}), graph.erdos_renyi(1000, 6000, {seed = 9}),
                graph.kronecker(10, 4, {seed = 3})}
    for _, g in ipairs(gs) do
      local set = arcs(g)
      local nv = g:num_vertices()
      for _, src in ipairs{{0}, {nv - 1}, {3, nv // 2, nv - 1}} do
        local l1, p1, n1 = graph.bfs(g, src)
        local l2, _, n2 = graph.bfs(g, src, {direction_optimizing = false})
        local a, b, pa = l1:totable(), l2:totable(), p1:totable()
        assert.same(b, a)
        assert.equal(n2, n1)
        for v = 0, nv - 1 do
          local l, p = a[v + 1], pa[v + 1]
          if l < 0 then assert.equal(-1, p)
          elseif l == 0 then assert.equal(v, p)
          else
            assert.equal(l - 1, a[p + 1])
            assert.is_true(set[p .. " " .. v] ~= nil)
          end
        end
      end
      local la, na = graph.connected_components(g)
      local ls, ns = graph.connected_components(g, {algorithm = "sv"})
      assert.same(ls:totable(), la:totable())
      assert.equal(ns, na)
    end
  end)
end)

-- -- building ----------------------------------------------------------------------
describe("speck.graph.color_bipartite", function()
  local sparse = require "speck.sparse"
  -- rows r1 ~= r2 sharing a column must differ (columns: sharing a row)
  local function check(m, n, rows, cols, colors, ncolors, side)
    local by = {}
    for k = 1, #rows do
      local net, mem = cols[k], rows[k]
      if side == "columns" then net, mem = rows[k], cols[k] end
      by[net] = by[net] or {}
      by[net][#by[net] + 1] = mem
    end
    local ct, maxc = colors:totable(), 0
    assert.equal(side == "columns" and n or m, #ct)
    for _, c in ipairs(ct) do
      assert.is_true(c >= 1 and c <= ncolors)
      maxc = math.max(maxc, c)
    end
    for _, mem in pairs(by) do
      for x = 1, #mem do
        for y = x + 1, #mem do
          if mem[x] ~= mem[y] then assert.is_true(ct[mem[x] + 1] ~= ct[mem[y] + 1]) end
        end
      end
    end
    assert.equal(#ct > 0 and maxc or 0, ncolors)
  end

  it("colors the rows or the columns of random bipartite matrices (nb and vb)", function()
    for _, shape in ipairs{{40, 25, 120}, {7, 300, 900}, {200, 3, 150}, {5, 5, 0}} do
      local m, n, nnz = shape[1], shape[2], shape[3]
      local rows, cols, vals = {}, {}, {}
      for k = 1, nnz do rows[k], cols[k], vals[k] = rint(m), rint(n), 1.0 end
      local A = sparse.from_coo(m, n, rows, cols, vals)
      for _, alg in ipairs{"nb", "vb"} do
        for _, side in ipairs{"rows", "columns"} do
          local colors, ncolors = graph.color_bipartite(A, {algorithm = alg, side = side})
          check(m, n, rows, cols, colors, ncolors, side)
        end
      end
    end
  end)

  it("takes a Graph: its arcs u -> v as rows u and columns v", function()
    local s, d = random_edges(80, 300)
    local g = graph.from_edges(80, s, d, {directed = true})
    local colors, ncolors = graph.color_bipartite(g)
    check(80, 80, s, d, colors, ncolors, "rows")
    -- a symmetric graph with every self-loop: the same as distance-2 coloring's conflicts
    local ls, ld = {}, {}
    for v = 0, 79 do ls[#ls + 1], ld[#ld + 1] = v, v end
    for k = 1, #s do ls[#ls + 1], ld[#ld + 1] = s[k], d[k] end
    local h = graph.from_edges(80, ls, ld, {self_loops = true})
    local c2, n2 = graph.color_bipartite(h, {side = "columns"})
    local hs, hd = {}, {}
    local rp, ci = h.rowptr:totable(), h.colidx:totable()
    for u = 0, 79 do
      for k = rp[u + 1], rp[u + 2] - 1 do hs[#hs + 1], hd[#hd + 1] = u, ci[k + 1] end
    end
    check(80, 80, hs, hd, c2, n2, "columns")
  end)
end)

describe("speck.graph.linear_recurrence", function()
  -- NumPy's cumsum / cumprod / minimum.accumulate / maximum.accumulate and
  -- the affine recurrence x(i) = a(i) x(i-1) + x(i) as a Python loop, all
  -- cases in one run of the oracle
  local CASES_LR = {}
  for _, n in ipairs{0, 1, 2, 100, 9001} do
    for _, op in ipairs{"sum", "prod", "min", "max"} do
      local xs = {}
      for i = 0, n - 1 do
        xs[i + 1] = op == "prod" and ((i % 3 == 0) and -1 or 1) * ((n <= 100 and i % 5 == 0) and 2 or 1)
                    or rint(2001) - 1000
      end
      CASES_LR[#CASES_LR + 1] = {op = op, n = n, xs = xs}
    end
  end
  for _, n in ipairs{1, 3, 5000, 30011} do
    local xs, as = {}, {}
    for i = 1, n do xs[i], as[i] = (rint(200) - 100) / 8, (rint(100) + 50) / 100 end
    CASES_LR[#CASES_LR + 1] = {op = "affine", n = n, xs = xs, as = as}
  end
  local ran = false
  local function run_oracle()
    if ran then return end
    ran = true
    local lines = {}
    for _, c in ipairs(CASES_LR) do
      local fx, fa = {}, {}
      for i = 1, c.n do
        fx[i] = ("%.17g"):format(c.xs[i])
        fa[i] = c.as and ("%.17g"):format(c.as[i]) or "0"
      end
      lines[#lines + 1] = c.op .. " " .. table.concat(fx, ",") .. " " .. table.concat(fa, ",")
    end
    local path = write_file("lr_cases.txt", table.concat(lines, "\n") .. "\n")
    local prog = write_file("lr_oracle.py", ([[
import numpy as np
for line in open('%s'):
    op, xs, as_ = (line.rstrip('\n').split(' ') + ['', ''])[:3]
    x = np.array([float(t) for t in xs.split(',') if t])
    a = np.array([float(t) for t in as_.split(',') if t])
    if op == 'affine':
        z = 0.0
        for i in range(len(x)):
            z = a[i] * z + x[i]
            x[i] = z
        r = x
    elif len(x):
        r = {'sum': np.cumsum, 'prod': np.cumprod, 'min': np.minimum.accumulate,
             'max': np.maximum.accumulate}[op](x)
    else:
        r = x
    print(' '.join(repr(float(v)) for v in r))
]]):format(path))
    local out, ok = sh(PY .. " " .. prog)
    assert(ok, out)
    local k = 0
    for line in out:gmatch("[^\n]*\n") do
      k = k + 1
      local r = {}
      for t in line:gmatch("%S+") do r[#r + 1] = tonumber(t) end
      CASES_LR[k].want = r
    end
    assert.equal(#CASES_LR, k)
  end

  it("scans property maps in place against NumPy (sum, prod, min, max; three dtypes)", function()
    if not HAVE_NP then pending("python3-numpy is not installed") return end
    run_oracle()
    for _, c in ipairs(CASES_LR) do
      if c.op ~= "affine" then
        for _, dt in ipairs{"float64", "int64", "int32"} do
          local x = speck.View("x", dt, c.n)
          for i = 0, c.n - 1 do x[i] = c.xs[i + 1] end
          assert.equal(x, graph.linear_recurrence(x, c.op ~= "sum" and {op = c.op} or nil))
          for i = 0, c.n - 1 do
            if x[i] ~= c.want[i + 1] then
              error(("%s %s n=%d at %d: %s, NumPy %s"):format(c.op, dt, c.n, i, tostring(x[i]),
                    tostring(c.want[i + 1])))
            end
          end
        end
      end
    end
  end)

  it("runs x(i) = a(i) * x(i-1) + x(i) with coefficients, against a Python loop", function()
    if not HAVE_NP then pending("python3-numpy is not installed") return end
    run_oracle()
    for _, c in ipairs(CASES_LR) do
      if c.op == "affine" then
        local x, a = speck.View("x", "float64", c.n), speck.View("a", "float64", c.n)
        for i = 0, c.n - 1 do x[i], a[i] = c.xs[i + 1], c.as[i + 1] end
        graph.linear_recurrence(x, {coeff = a})
        for i = 0, c.n - 1 do
          local w = c.want[i + 1]
          if math.abs(x[i] - w) > 1e-9 * (1 + math.abs(w)) then
            error(("n=%d at %d: %.17g, Python %.17g"):format(c.n, i, x[i], w))
          end
        end
      end
    end
  end)

  it("refuses bad input by name", function()
    local x = speck.View("x", "float64", 4)
    assert.equal("speck.graph.linear_recurrence: x must be a view (a property map), got table",
                 err_of(graph.linear_recurrence, {1, 2}))
    assert.equal("speck.graph.linear_recurrence: op must be \"sum\", \"prod\", \"min\" or \"max\", got \"avg\"",
                 err_of(graph.linear_recurrence, x, {op = "avg"}))
    assert.equal("speck.graph.linear_recurrence: unknown option 'operator' (valid: coeff, op)",
                 err_of(graph.linear_recurrence, x, {operator = "sum"}))
    assert.equal("speck.graph.linear_recurrence: the coefficients (view 'a', float64[3]) must match the property map (view 'x', float64[4])",
                 err_of(graph.linear_recurrence, x, {coeff = speck.View("a", "float64", 3)}))
    assert.equal("speck.graph.linear_recurrence: coefficients make the recurrence x(i) = a(i) * x(i - 1) + x(i): op must be \"sum\", got \"max\"",
                 err_of(graph.linear_recurrence, x, {op = "max", coeff = speck.View("a", "float64", 4)}))
    assert.equal("speck.graph.linear_recurrence: the property map (view 'M') must be a rank-1 view of numbers, got float64 rank 2",
                 err_of(graph.linear_recurrence, speck.View("M", "float64", {2, 2})))
  end)
end)

describe("speck.graph.from_mesh", function()
  -- a hexahedral mesh of nx x ny x nz elements, 8 nodes each
  local function hexes(nx, ny, nz)
    local function id(x, y, z) return x + (nx + 1) * (y + (ny + 1) * z) end
    local els = {}
    for z = 0, nz - 1 do
      for y = 0, ny - 1 do
        for x = 0, nx - 1 do
          els[#els + 1] = {id(x, y, z), id(x + 1, y, z), id(x + 1, y + 1, z), id(x, y + 1, z),
                           id(x, y, z + 1), id(x + 1, y, z + 1), id(x + 1, y + 1, z + 1),
                           id(x, y + 1, z + 1)}
        end
      end
    end
    return els, (nx + 1) * (ny + 1) * (nz + 1)
  end
  -- random "tetrahedra" over nn nodes (repeated nodes within one allowed)
  local function tets(ne, nn)
    local els = {}
    for e = 1, ne do els[e] = {rint(nn), rint(nn), rint(nn), rint(nn)} end
    return els
  end
  -- the arcs of the element cliques, as a Lua oracle
  local function clique_arcs(els)
    local set = {}
    for _, el in ipairs(els) do
      for a = 1, #el do
        for b = 1, #el do
          if el[a] ~= el[b] then set[el[a] .. " " .. el[b]] = true end
        end
      end
    end
    return set
  end
  local function same_arcs(g, set)
    local got = arcs(g)
    for k in pairs(set) do assert(got[k], "missing arc " .. k) end
    for k in pairs(got) do assert(set[k], "extra arc " .. k) end
    local rp, ci = g.rowptr:totable(), g.colidx:totable()
    for u = 0, g:num_vertices() - 1 do
      for k = rp[u + 1] + 1, rp[u + 2] - 1 do assert.is_true(ci[k] < ci[k + 1]) end
    end
  end

  it("builds the node graph of a hexahedral mesh, growing its map when full", function()
    local els, nn = hexes(4, 3, 2)
    local want = clique_arcs(els)
    local g = graph.from_mesh(els)
    assert.equal(nn, g:num_vertices())
    assert.is_false(g:is_directed())
    same_arcs(g, want)
    assert.equal(0, g._rehashes)
    local small = graph.from_mesh(speck.View.from(els, "int32"), {capacity = 8})
    assert.is_true(small._rehashes >= 3)
    same_arcs(small, want)
    assert.equal(8, g:degree(0) + 1)                      -- a corner: its own hexahedron
    assert.equal(26, g:degree(1 + 5 * (1 + 4 * 1)))      -- an interior node
  end)

  it("matches NetworkX's union of element cliques on a random mesh", function()
    local els = tets(400, 150)
    local lines = {}
    for _, el in ipairs(els) do lines[#lines + 1] = table.concat(el, " ") end
    local path = write_file("mesh.txt", table.concat(lines, "\n") .. "\n")
    local g = graph.from_mesh(els, {nodes = 160, capacity = 64})
    assert.equal(160, g:num_vertices())
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local out, ok = sh(PY .. " -c \"import networkx as nx, itertools\n" ..
      "g = nx.Graph(); g.add_nodes_from(range(160))\n" ..
      "for l in open('" .. path .. "'):\n" ..
      "    t = [int(x) for x in l.split()]\n" ..
      "    g.add_edges_from((a, b) for a, b in itertools.combinations(t, 2) if a != b)\n" ..
      "print(g.number_of_edges(), ' '.join(str(d) for _, d in sorted(g.degree())))\"")
    assert(ok, out)
    local ne, degs = out:match("^(%d+) (.*)$")
    assert.equal(tonumber(ne), g:num_edges())
    local v = 0
    for d in degs:gmatch("%d+") do
      assert.equal(tonumber(d), g:degree(v))
      v = v + 1
    end
    assert.equal(160, v)
    same_arcs(g, clique_arcs(els))
  end)

  it("takes an empty mesh and refuses bad ones by name", function()
    local g = graph.from_mesh({})
    assert.equal(0, g:num_vertices())
    assert.equal(5, graph.from_mesh({}, {nodes = 5}):num_vertices())
    assert.equal("speck.graph.from_mesh: element 1, node 2 is -3: node ids must not be negative",
                 err_of(graph.from_mesh, {{0, 1, 2}, {3, 4, -3}}))
    assert.equal("speck.graph.from_mesh: element 0, node 1 is 7: the mesh has 5 nodes (ids 0..4)",
                 err_of(graph.from_mesh, {{0, 7}}, {nodes = 5}))
    assert.equal("speck.graph.from_mesh: elems (view 'v') must be a rank-2 int64 or int32 view (elements x nodes per element), got float64 rank 1",
                 err_of(graph.from_mesh, speck.View("v", "float64", 4)))
    assert.equal("speck.graph.from_mesh: elems[2] must be a list of 3 node ids",
                 err_of(graph.from_mesh, {{0, 1, 2}, {3, 4}}))
    assert.equal("speck.graph.from_mesh: capacity is 0, must be at least 1",
                 err_of(graph.from_mesh, {{0, 1}}, {capacity = 0}))
    assert.equal("speck.graph.from_mesh: unknown option 'directed' (valid: capacity, nodes)",
                 err_of(graph.from_mesh, {{0, 1}}, {directed = true}))
  end)
end)

describe("speck.graph.from_edges", function()
  it("drops self-loops, merges duplicates and symmetrises", function()
    local g = graph.from_edges(4, {0, 1, 0, 2, 3, 1}, {1, 0, 1, 2, 1, 3})
    assert.same({0, 1, 3, 3, 4}, g.rowptr:totable())
    assert.same({1, 0, 3, 1}, g.colidx:totable())
    assert.equal(2, g:num_edges())
    assert.equal(4, g:num_arcs())
    assert.equal(2, g:degree(1))
    assert.is_false(g:is_directed())
  end)

  it("keeps what the options ask for", function()
    local g = graph.from_edges(3, {0, 0, 1, 1}, {1, 1, 1, 2},
                               {directed = true, dedupe = false, self_loops = true})
    assert.same({0, 2, 4, 4}, g.rowptr:totable())
    assert.same({1, 1, 1, 2}, g.colidx:totable())
    assert.equal(4, g:num_edges())
  end)

  it("keeps the last weight of a repeated edge (NetworkX's add_edge)", function()
    local g = graph.from_edges(3, {0, 1, 2}, {1, 0, 1}, {weights = {1.5, 2.5, 4}})
    assert.same({0, 1, 3, 4}, g.rowptr:totable())
    assert.same({1, 0, 2, 1}, g.colidx:totable())
    assert.same({2.5, 2.5, 4, 4}, g.weights:totable())
  end)

  it("takes int32 views", function()
    local s = speck.View.from({0, 1, 2}, "int32")
    local d = speck.View.from({1, 2, 0}, "int32")
    local g = graph.from_edges(3, s, d, {directed = true})
    assert.same({0, 1, 2, 3}, g.rowptr:totable())
    assert.same({1, 2, 0}, g.colidx:totable())
    assert.equal("speck.graph.from_edges: src (view 'v') is int32 and dst (view 'd') int64: both must be int64 or both int32",
                 err_of(graph.from_edges, 3, speck.View.from({0}, "int32", {label = "v"}),
                        speck.View("d", "int64", 1)))
    assert.equal("speck.graph.degree: vertex 3 is not in 0..2", err_of(g.degree, g, 3))
  end)

  it("shares its CSR with speck.sparse", function()
    local g = graph.grid2d(3, 3)
    local A = g:matrix()
    assert.equal(g.rowptr:data(), A.rowptr:data())
    assert.equal(g.colidx:data(), A.colidx:data())
    assert.equal(24, A:nnz())
    local g2 = graph.from_matrix(A, {weighted = false})
    assert.same(g.colidx:totable(), g2.colidx:totable())
  end)

  it("prints a one-line summary", function()
    assert.equal("Graph<12 vertices, 17 edges, undirected, " .. graph.grid2d(3, 4):space()
                 .. ", 0.0 MB>", tostring(graph.grid2d(3, 4)))
  end)

  it("refuses bad input by name", function()
    assert.equal("speck.graph.from_edges: edge 1 is (2, 7): vertex 7 is outside 0..4 (ids are 0-based)",
                 err_of(graph.from_edges, 5, {0, 2}, {1, 7}))
    assert.equal("speck.graph.from_edges: edge 0 is (-1, 2): vertex -1 is outside 0..4 (ids are 0-based)",
                 err_of(graph.from_edges, 5, {-1}, {2}))
    assert.equal("speck.graph.from_edges: src has 2 entries, dst 1",
                 err_of(graph.from_edges, 5, {0, 1}, {1}))
    assert.equal("speck.graph.from_edges: src[2] must be an integer, got x",
                 err_of(graph.from_edges, 5, {0, "x"}, {1, 2}))
    assert.equal("speck.graph.from_edges: nv must be a non-negative integer, got -1",
                 err_of(graph.from_edges, -1, {}, {}))
    assert.equal("speck.graph.from_edges: unknown option 'directd' (valid: dedupe, directed, self_loops, weights)",
                 err_of(graph.from_edges, 2, {0}, {1}, {directd = true}))
    assert.equal("speck.graph.from_edges: option directed must be a boolean, got string",
                 err_of(graph.from_edges, 2, {0}, {1}, {directed = "yes"}))
    assert.equal("speck.graph.from_edges: src has 1 entries, dst 1, weights 2",
                 err_of(graph.from_edges, 2, {0}, {1}, {weights = {1, 2}}))
  end)
end)

-- -- readers and writers -------------------------------------------------------------
describe("speck.graph readers and writers", function()
  it("round-trips SNAP, edges and Matrix Market files, isolated vertices kept", function()
    local g = graph.from_edges(10, {0, 1, 2, 5}, {1, 2, 0, 6})
    for _, f in ipairs{"snap", "edges", "mm"} do
      local p = DIR .. "/rt." .. f
      graph.write(p, g, f)
      local h = graph.read(p, {format = f})
      assert.equal(10, h:num_vertices())
      assert.same(g.rowptr:totable(), h.rowptr:totable())
      assert.same(g.colidx:totable(), h.colidx:totable())
      assert.is_nil(h.weights)
    end
    local w = graph.from_edges(4, {0, 1, 2}, {1, 2, 3}, {weights = {0.5, 1.25, 3}, directed = true})
    for _, f in ipairs{"snap", "mm"} do
      local p = DIR .. "/rtw." .. f
      graph.write(p, w, f)
      local h = graph.read(p, {format = f, directed = true})
      assert.same(w.colidx:totable(), h.colidx:totable())
      assert.same({0.5, 1.25, 3}, h.weights:totable())
    end
  end)

  it("reads comments, blank lines and trailing comments; a 0-byte file is empty", function()
    local p = write_file("ok.txt", "# a comment\n\n0 1\n  % another\n1 2 # trailing\n2\t3\n\n")
    local g = graph.read(p, {format = "edges"})
    assert.equal(4, g:num_vertices())
    assert.equal(3, g:num_edges())
    local e = graph.read(write_file("empty.txt", ""))
    assert.equal(0, e:num_vertices())
    assert.equal(0, e:num_edges())
    local n = graph.read(write_file("nodes.txt", "# Nodes: 7 Edges: 1\n0 1"))
    assert.equal(7, n:num_vertices())
  end)

  it("reads ids beyond '# Nodes:' (a count, not a bound) and more edges than 'Edges:'", function()
    -- SNAP's AS graphs: ids are names, larger than the vertex count
    local p = write_file("as.txt", "# Undirected graph: as.txt\n# Nodes: 3\tEdges: 3\n"
      .. "# FromNodeId\tToNodeId\n0\t1\n1\t7\n7\t12\n")
    local g = graph.read(p)
    assert.equal(13, g:num_vertices())
    assert.equal(3, g:num_edges())
    assert.same({1}, {g.colidx:totable()[1]})
    local d = graph.read(p, {directed = true})
    assert.equal(13, d:num_vertices())
    assert.same({0, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3}, d.rowptr:totable())
    assert.same({1, 7, 12}, d.colidx:totable())
    -- a consistent header still gives its count (isolated vertices kept)
    assert.equal(9, graph.read(write_file("n9.txt", "# Nodes: 9 Edges: 2\n0 1\n3 4\n")):num_vertices())
    -- more edge lines than 'Edges:' (repeats) are read
    local r = graph.read(write_file("more.txt", "# Nodes: 3 Edges: 1\n0 1\n1 0\n1 2\n"))
    assert.equal(3, r:num_vertices())
    assert.equal(2, r:num_edges())
  end)

  it("refuses what is not a regular file, before it could block", function()
    local fifo = DIR .. "/fifo.txt"
    assert(os.execute("mkfifo '" .. fifo .. "'"))
    local tail = ": only regular files are read (reading it could block or never end)"
    assert.equal("speck.graph.read: cannot read '" .. fifo .. "', a FIFO (named pipe)" .. tail,
                 err_of(graph.read, fifo))
    assert.equal("speck.graph.read: cannot read '" .. fifo .. "', a FIFO (named pipe)" .. tail,
                 err_of(graph.read, fifo, {format = "mm"}))
    assert.equal("speck.graph.read: cannot read '/dev/zero', a character device" .. tail,
                 err_of(graph.read, "/dev/zero"))
    assert.equal("speck.graph.read: cannot read '" .. DIR .. "', a directory" .. tail,
                 err_of(graph.read, DIR))
  end)

  it("shows speck.progress's bar on a long load", function()
    local bin = os.getenv("SPECK_BIN")
    if not bin then pending("SPECK_BIN is not set") return end
    local g = graph.erdos_renyi(20000, 60000, {seed = 5})
    local p = DIR .. "/big.snap"
    graph.write(p, g)
    local script = write_file("bar.lua", ([[
      speck.progress{mode = "on", delay = 0, interval = 0}
      print(require("speck.graph").read(%q):num_edges())
    ]]):format(p))
    local pipe = assert(io.popen(("%s %s 2>%s/bar.err"):format(bin, script, DIR), "r"))
    local out = pipe:read("a")
    pipe:close()
    assert.equal(g:num_edges() .. "\n", out)
    local f = assert(io.open(DIR .. "/bar.err"))
    local err = f:read("a")
    f:close()
    assert.is_truthy(err:find("graph.read " .. p, 1, true), err)
    assert.is_truthy(err:find("100%", 1, true), err)
    -- the bar covers the graph's build after the file: the read ends at
    -- 50 %, the build's sort at 90 %
    assert.is_truthy(err:find(" 90%", 1, true), "the bar skips the build: " .. err)
  end)

  it("names the file and the line of every malformed line", function()
    local cases = {
      {"0 1\n2 x\n", "line 2: 'x' is not a vertex id (a non-negative integer)"},
      {"0 1\n-3 2\n", "line 2: vertex id -3 is negative (ids are 0-based)"},
      {"# c\n0 1\n\n3\n", "line 4: expected 'u v' or 'u v w', got only '3'"},
      {"0 1\n1 2\n2", "line 3: expected 'u v' or 'u v w', got only '2'"},
      {"0 1 2.5\n1 2\n", "line 2: 2 fields, earlier lines have 3 (weights go on every line or on none)"},
      {"0 1 abc\n", "line 1: weight 'abc' is not a number"},
      {"0 1 2 3\n", "line 1: unexpected '3' after 'u v w'"},
      -- what the header promises: the edges, and counts that are counts
      {"# Nodes: 4 Edges: 3\n0 1\n1 2\n", "line 4: the file ends after 2 of the 3 edges its header announces (truncated?)"},
      {"# Nodes: 4\tEdges: 5\n# c\n0 1\n\n", "line 5: the file ends after 1 of the 5 edges its header announces (truncated?)"},
      {"# Nodes: 4 Edges: 1\n", "line 2: the file ends after 0 of the 1 edges its header announces (truncated?)"},
      {"# Nodes: abc\n0 1\n", "line 1: malformed '# Nodes:' header '# Nodes: abc' (expected '# Nodes: N' or '# Nodes: N Edges: M', N and M non-negative integers)"},
      {"# Nodes: -4\n0 1\n", "line 1: malformed '# Nodes:' header '# Nodes: -4' (expected '# Nodes: N' or '# Nodes: N Edges: M', N and M non-negative integers)"},
      {"# c\n# Nodes: 4x Edges: 2\n0 1\n", "line 2: malformed '# Nodes:' header '# Nodes: 4x Edges: 2' (expected '# Nodes: N' or '# Nodes: N Edges: M', N and M non-negative integers)"},
      {"# Nodes: 4 Edges: many\r\n0 1\n", "line 1: malformed '# Nodes:' header '# Nodes: 4 Edges: many' (expected '# Nodes: N' or '# Nodes: N Edges: M', N and M non-negative integers)"},
      {"# Nodes:\n0 1\n", "line 1: malformed '# Nodes:' header '# Nodes:' (expected '# Nodes: N' or '# Nodes: N Edges: M', N and M non-negative integers)"},
      -- text only: a NUL byte, a binary file
      {"0 1\n1 2\0 junk\n", "line 2: byte 0x00 at offset 7 is not text (a binary file?)"},
      {"\0\0\0\0\0\0\0\0", "line 1: byte 0x00 at offset 0 is not text (a binary file?)"},
      {"\x1f\x9d\x90\x00\x00\x00", "line 1: byte 0x1f at offset 0 is not text (a binary file?)"},  -- compress(1)'s .Z: binary (gzip is read: graph_values_spec)
      {"# ok\n0 1\n\x93NUMPY\x01\x00v\x00{'descr'", "line 3: byte 0x01 at offset 15 is not text (a binary file?)"},
      {"0 99999999999\n", "line 1: vertex id 99999999999 is too large (at most 2147483645: int32 ids)"},
      {"0 1\n# Nodes: 5\n", "line 2: a '# Nodes:' comment after the first edge"},
    }
    for i, c in ipairs(cases) do
      local p = write_file("bad" .. i .. ".txt", c[1])
      assert.equal("speck.graph.read: '" .. p .. "' " .. c[2], err_of(graph.read, p))
    end
    assert.equal("speck.graph.read: cannot open '" .. DIR .. "/none.txt': No such file or directory",
                 err_of(graph.read, DIR .. "/none.txt"))
    local mm = write_file("bad.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n")
    assert.equal("speck.graph.read: '" .. mm .. "' is a 3x4 matrix: an adjacency matrix is square",
                 err_of(graph.read, mm))
    assert.equal("speck.graph.read: format must be \"snap\", \"edges\", \"mm\", \"csv\" or \"tsv\", got json",
                 err_of(graph.read, mm, {format = "json"}))
  end)
end)

-- -- generators ------------------------------------------------------------------------
describe("speck.graph generators", function()
  -- a checksum of the CSR: the same on every back end and thread count
  local function sum(g)
    local s = 0
    for i, c in ipairs(g.colidx:totable()) do s = (s * 31 + c + i) % 1000000007 end
    return s
  end

  it("are deterministic for a seed on every back end", function()
    local k = graph.kronecker(10, 16, {seed = 7})
    assert.equal(1024, k:num_vertices())
    assert.equal(sum(k), sum(graph.kronecker(10, 16, {seed = 7})))
    assert.is_true(sum(k) ~= sum(graph.kronecker(10, 16, {seed = 8})))
    assert.equal(552060419, sum(k))   -- recorded on serial; every back end gives it
    -- MIS-2 is deterministic too
    local m, count = graph.mis2(k)
    local ms = 0
    for i, x in ipairs(m:totable()) do if x == 1 then ms = (ms * 31 + i) % 1000000007 end end
    assert.same({205, 203218825}, {count, ms})
    local e = graph.erdos_renyi(500, 2000, {seed = 9})
    assert.equal(111293901, sum(e))
  end)

  it("make grids", function()
    local g = graph.grid2d(4, 3)
    assert.equal(12, g:num_vertices())
    assert.equal(17, g:num_edges())
    assert.same({1, 4}, {g.colidx(0), g.colidx(1)})
    local h = graph.grid3d(3, 4, 5)
    assert.equal(60, h:num_vertices())
    assert.equal(2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4, h:num_edges())
  end)

  it("refuse what cannot be built before allocating", function()
    assert.equal("speck.graph.kronecker: scale is 40, must be in 0..30 (2^scale vertices, int32 ids)",
                 err_of(graph.kronecker, 40, 16))
    local e = err_of(graph.erdos_renyi, 1000, 1 << 50)
    assert.is_truthy(e:find("^speck%.graph%.erdos_renyi: 1125899906842624 edges need about 1%.13e%+08 GB to build, more than the machine's [%d.e+]+ GB$"), e)
    assert.equal("speck.graph.grid2d: nx is 0, must be a positive integer", err_of(graph.grid2d, 0, 3))
    assert.equal("speck.graph.erdos_renyi: seed must be an integer, got 1.5",
                 err_of(graph.erdos_renyi, 10, 10, {seed = 1.5}))
  end)
end)

-- -- user kernels over a graph ------------------------------------------------------
describe("speck.graph.forall_* and reduce_*", function()
  local g = graph.grid2d(3, 3)
  it("run dialect bodies over vertices and arcs", function()
    local deg = speck.View("deg", "int64", g:num_vertices())
    graph.forall_vertices(g, {deg = deg}, "deg(v) = rowptr(v + 1) - rowptr(v);")
    assert.same({2, 3, 2, 3, 4, 3, 2, 3, 2}, deg:totable())
    local indeg = speck.View("indeg", "int64", g:num_vertices())
    graph.forall_edges(g, {indeg = indeg}, "atomic_add(&indeg(v), (int64_t)1);")
    assert.same(deg:totable(), indeg:totable())
    assert.equal(12, graph.reduce_edges(g, {}, "acc += u < v;"))
    assert.equal(4, graph.reduce_vertices(g, {}, "acc = fmax(acc, (double)(rowptr(v + 1) - rowptr(v)));", "max"))
    assert.equal(24, graph.reduce_vertices(g, {}, "acc += rowptr(v + 1) - rowptr(v);"))
  end)
  it("refuse captures the graph takes, and say why a body fails", function()
    assert.equal("speck.graph.forall_vertices: capture 'rowptr' is taken by the graph (rowptr, colidx, weights, src)",
                 err_of(graph.forall_vertices, g, {rowptr = 1}, "x"))
    assert.equal("speck.graph.reduce_edges: body must be a string of the kernel dialect, got nil",
                 err_of(graph.reduce_edges, g, {}))
    local e = err_of(graph.forall_vertices, g, {}, "y(v) = 1;")
    assert.is_truthy(e:find("^speck%.graph%.forall_vertices: speck%.parallel_for 'graph%.forall_vertices': body does not compile"), e)
  end)
end)

-- -- the example ------------------------------------------------------------------------
describe("examples/graph_analytics.lua", function()
  it("writes, reads and ranks a graph and writes the CSV", function()
    local bin = os.getenv("SPECK_BIN")
    if not bin then pending("SPECK_BIN is not set") return end
    local ex = HERE .. "/../examples/graph_analytics.lua"
    if ex:sub(1, 1) ~= "/" then ex = os.getenv("PWD") .. "/" .. ex end
    local out, ok = sh(("cd %s && %s %s"):format(DIR, bin, ex))
    assert.is_true(ok, out)
    assert.is_truthy(out:find("wrote top_vertices.csv", 1, true), out)
    local n = 0
    for line in io.lines(DIR .. "/top_vertices.csv") do n = n + 1 end
    assert.equal(21, n)
  end)
end)

-- -- bad input to the algorithms ---------------------------------------------------------
describe("speck.graph algorithms refuse bad input", function()
  local g = graph.grid2d(3, 3)
  it("by name", function()
    assert.equal("speck.graph.bfs: source 9 is not a vertex (the graph has 9: 0..8)",
                 err_of(graph.bfs, g, 9))
    assert.equal("speck.graph.bfs: source -1 is not a vertex (the graph has 9: 0..8)",
                 err_of(graph.bfs, g, {0, -1}))
    assert.equal("speck.graph.bfs: source must be a vertex (an integer), a list or a view, got the float 1.5",
                 err_of(graph.bfs, g, 1.5))
    assert.equal("speck.graph.bfs: g must be a Graph, got table", err_of(graph.bfs, {}, 0))
    assert.equal("speck.graph.bfs: unknown option 'dir' (valid: direction_optimizing, visitor)",
                 err_of(graph.bfs, g, 0, {dir = 1}))
    assert.equal("speck.graph.bfs: unknown visitor field 'discover' (examine_edge, filter, tree_edge, discover_vertex, captures)",
                 err_of(graph.bfs, g, 0, {visitor = {discover = ""}}))
    assert.equal("speck.graph.bfs: visitor.filter must be a string of the kernel dialect, got boolean",
                 err_of(graph.bfs, g, 0, {visitor = {filter = true}}))
    assert.equal("speck.graph.bfs: visitor capture 'source' is a name graph.bfs uses",
                 err_of(graph.bfs, g, 0, {visitor = {discover_vertex = "(void)v;", captures = {source = 1}}}))
    assert.equal("speck.graph.bfs: the visitor's capture 'level' is a name the BFS kernel uses (rowptr, colidx, level, parent, q, nq, cnt, l1, src)",
                 err_of(graph.bfs, g, 0, {visitor = {discover_vertex = "(void)v;", captures = {level = 1}}}))
    assert.equal("speck.graph.pagerank: damping is 1.5, must be in [0, 1]",
                 err_of(graph.pagerank, g, {damping = 1.5}))
    assert.equal("speck.graph.pagerank: maxiter is 0, must be at least 1",
                 err_of(graph.pagerank, g, {maxiter = 0}))
    assert.equal("speck.graph.pagerank: option tol must be a number, got string",
                 err_of(graph.pagerank, g, {tol = "x"}))
    assert.equal("speck.graph.pagerank: dtype must be \"float64\" or \"float32\", got float16",
                 err_of(graph.pagerank, g, {dtype = "float16"}))
    assert.equal("speck.graph.connected_components: algorithm must be \"afforest\" or \"sv\", got bfs",
                 err_of(graph.connected_components, g, {algorithm = "bfs"}))
    local d = graph.from_edges(3, {0}, {1}, {directed = true})
    assert.equal("speck.graph.triangles: the graph is directed: triangles are counted on undirected graphs",
                 err_of(graph.triangles, d))
    assert.equal("speck.graph.color: the graph is directed: coloring needs an undirected graph",
                 err_of(graph.color, d))
    assert.equal("speck.graph.color_d2: the graph is directed: coloring needs an undirected graph",
                 err_of(graph.color_d2, d))
    assert.equal("speck.graph.color_d2: algorithm must be \"vb\" or \"nb\", got eb",
                 err_of(graph.color_d2, g, {algorithm = "eb"}))
    assert.equal("speck.graph.color: algorithm must be \"vb\" or \"eb\", got nb",
                 err_of(graph.color, g, {algorithm = "nb"}))
    assert.equal("speck.graph.color_bipartite: A must be a CrsMatrix or a Graph, got number",
                 err_of(graph.color_bipartite, 3))
    assert.equal("speck.graph.color_bipartite: side must be \"rows\" or \"columns\", got left",
                 err_of(graph.color_bipartite, g, {side = "left"}))
    assert.equal("speck.graph.color_bipartite: algorithm must be \"vb\" or \"nb\", got eb",
                 err_of(graph.color_bipartite, g, {algorithm = "eb"}))
    assert.equal("speck.graph.minitri: the graph is directed: miniTri needs an undirected graph",
                 err_of(graph.minitri, d))
    assert.equal("speck.graph.mis2: the graph is directed: MIS-2 needs an undirected graph",
                 err_of(graph.mis2, d))
    assert.equal("speck.graph.triangles: option per_vertex must be a boolean, got number",
                 err_of(graph.triangles, g, {per_vertex = 1}))
  end)
end)
