-- speck/dist_graph.lua: speck.dist's distributed graphs (stdlib/speck/dist.lua
-- loads it): a 1D vertex partition, edge lists read in parallel, and BFS,
-- connected components, PageRank and triangle counting over the halo
-- plans of speck.dist's matrices; on GPU ranks the vertex vectors and the
-- steps are on the device (triangles on the host's kernels).
local speck = require "speck"
local remote = require "speck.remote"
local text = require "speck.ktext"

return function(dist)
-- -- graphs ---------------------------------------------------------------------------
-- 1D vertex partition in contiguous blocks. A graph is a distributed
-- pattern matrix of out-arcs (its rows: this rank's vertices, split into
-- interior and boundary columns with a halo plan; undirected: each edge
-- both ways), for a directed graph a second one of in-arcs, plus this
-- rank's adjacency rows with global ids (for triangles). Each step is a
-- kernel over the local vertices and one halo exchange; levels, labels and
-- ranks come back as distributed vectors (gather() for the whole).
  local I = dist._internal
  local c, agree, together, fail, lfail = I.c, I.agree, I.together, I.fail, I.lfail
  local me, np = remote.rank(), remote.size()

  local G = {}
  G.__index = G
  local GMT = {__index = G, __name = "speck.dist.Graph"}
  local function check_graph(f, g)
    if getmetatable(g) ~= GMT then fail(f, "g must be a distributed graph, got %s", type(g)) end
  end

  function G:num_vertices() return self.nv end
  function G:num_edges()
    agree("num_edges", {self.id}, {"g"})
    local m = c.allreduce_int({self.A.nnz_local}, "sum")[1]
    return self.directed and m or m // 2
  end
  function G:local_range() return self.map:local_range() end
  function G:is_directed() return self.directed end
  function G:memory()
    local s = self.A:memory() + c.bytes(self.adj.rowptr) + c.bytes(self.adj.colidx)
    if self._bfs then s = s + self._bfs:bytes() end
    return self.directed and s + self.Ain:memory() or s
  end

  -- a local pattern CRS of the arcs (src -> dst) sent to the owners of
  -- their sources; self-loops dropped, duplicates merged. Undirected: each
  -- arc both ways.
  local function arcs_to_owners(map, nv, src, dst, both)
    -- counted and placed by kernels over host views (an arc's order within
    -- its owner's run is the atomics'; the rows are sorted by coo below)
    local n = src:extent(0)
    local off = I.hview("offsets", "int64", np + 1)
    for r = 0, np do off[r] = map.off[r + 1] end
    local cnt = I.hview("counts", "int64", np)
    for r = 0, np - 1 do cnt[r] = 0 end
    local caps = {s = src, d = dst, off = off, np = np, both = both and 1 or 0, cnt = cnt}
    if n > 0 then I.hfor("dist_graph_arc_count", n, caps, text("dist_graph_arc_count")) end
    local tc, pos, at = {}, I.hview("cursors", "int64", np), 0
    for r = 1, np do
      tc[r] = cnt(r - 1)
      pos[r - 1] = at
      at = at + tc[r]
    end
    local ss, sd = I.hview("s", "int64", at), I.hview("d", "int64", at)
    caps.cur, caps.ss, caps.sd, caps.cnt = pos, ss, sd, nil
    if n > 0 then I.hfor("dist_graph_arc_place", n, caps, text("dist_graph_arc_place")) end
    local rs = c.alltoallv(ss, tc)
    local rd = c.alltoallv(sd, tc)
    local m = rs:extent(0)
    local lr = I.hview("lr", "int64", m)
    I.hfor("dist_graph_lid", m, {lr = lr, rs = rs, b = map.b}, text("dist_graph_lid"))
    return I.coo(map.nloc, nv, lr, rd, I.hview("ones", "float64", m))
  end

  -- the graph from this rank's arcs (src, dst: int64 views, global ids).
  -- A: the out-arcs of this rank's vertices (undirected: every edge both
  -- ways), Ain: the in-arcs (undirected: A itself), each with its plan
  local function from_arcs(f, nv, src, dst, directed)
    local map = I.map_from_offsets(nv, I.blocks(f, nv))
    local A = arcs_to_owners(map, nv, src, dst, not directed)
    local M = I.build(f, map, nv, A)
    local g = setmetatable({map = map, nv = nv, A = M, Ain = M, adj = A, id = M.id,
                            directed = directed and true or false}, GMT)
    if directed then g.Ain = I.build(f, map, nv, arcs_to_owners(map, nv, dst, src, false)) end
    local deg = speck.View("degree", "int64", map.nloc)
    speck.parallel_for("dist_graph_degree", map.nloc, {d = deg, rp = A.rowptr},
                       text("dist_graph_degree"))
    g.degree = deg
    return g
  end

  local function id_view(f, what, t)
    if type(t) == "table" then return speck.View.from(#t > 0 and t or {}, "int64", I.HOST) end
    if type(t) ~= "userdata" or (t:dtype() ~= "int64" and t:dtype() ~= "int32") then
      fail(f, "%s must be an int64/int32 view or a Lua array, got %s", what, type(t))
    end
    t = I.tohost(t)
    if t:dtype() == "int32" then
      local v = I.hview(what, "int64", t:extent(0))
      I.hfor("dist_widen", t:extent(0), {v = v, t = t}, text("dist_widen"))
      return v
    end
    return t
  end

  -- from_edges(nv, src, dst): this rank's share of the edges (any split)
  function dist.from_edges(nv, src, dst, opts)
    local f = "from_edges"
    opts = I.check_opts(f, opts, {"directed"})
    if math.type(nv) ~= "integer" or nv < 0 then fail(f, "nv must be a non-negative integer, got %s", tostring(nv)) end
    agree(f, {nv, opts.directed and 1 or 0}, {"nv", "directed"})
    if np > nv then
      fail(f, "%d ranks but only %d vertices: every rank needs at least one vertex (run with at most %d ranks)", np, nv, nv)
    end
    local s, d = id_view(f, "src", src), id_view(f, "dst", dst)
    together(function()
      if s:extent(0) ~= d:extent(0) then lfail(f, "src has %d ids and dst %d", s:extent(0), d:extent(0)) end
      if s:extent(0) == 0 then return end
      local k = I.hreduce("dist_graph_arc_check", s:extent(0), {s = s, d = d, nv = nv},
        text("dist_graph_arc_check"), {op = "min", dtype = "int64"})
      if k < s:extent(0) then
        lfail(f, "edge %d (from 0) on rank %d is %d -> %d: not a vertex (the graph has %d)", k, me, s(k), d(k), nv)
      end
    end)
    return from_arcs(f, nv, s, d, opts.directed)
  end

  -- read_graph(path [, {nv = n}]): an edge list ("u v" a line, 0-based;
  -- '#' and '%' lines are comments, "# Nodes: N" gives the vertex count);
  -- each rank reads its byte range of the file (lines belong to the rank
  -- whose range holds their first byte). A .gz file is read by rank 0 alone
  -- (gzip -dc) and its edges sent to their owners.
  function dist.read_graph(path, opts)
    local f = "read_graph"
    opts = I.check_opts(f, opts, {"directed", "nv"})
    if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
    agree(f, {#path, opts.nv or -1, opts.directed and 1 or 0}, {"the path's length", "nv", "directed"})
    local gz = path:sub(-3) == ".gz"
    local S, D, maxid, nodes = together(function()
      local S, D, k, maxid, nodes = {}, {}, 0, -1, -1
      local function line_of(l, where)
        if l:find("^%s*[#%%]") then
          local n = l:match("[Nn]odes:%s*(%d+)")
          if n then nodes = math.max(nodes, math.tointeger(tonumber(n))) end
          return
        end
        if not l:find("%S") then return end
        local u, v = l:match("^%s*(%d+)[%s,;]+(%d+)")
        if not u then lfail(f, "'%s' %s: bad edge line '%s' (expected two vertex ids)", path, where, l) end
        u, v = math.tointeger(tonumber(u)), math.tointeger(tonumber(v))
        k = k + 1
        S[k], D[k] = u, v
        if u > maxid then maxid = u end
        if v > maxid then maxid = v end
      end
      if gz then
        if me == 0 then
          local fh = io.open(path, "rb")
          if not fh then lfail(f, "rank 0 cannot read '%s'", path) end
          fh:close()
          local p = io.popen("gzip -dc '" .. path:gsub("'", "'\\''") .. "' 2>/dev/null", "r")
          local n = 0
          for l in p:lines() do n = n + 1 line_of(l, "line " .. n) end
          if not p:close() then lfail(f, "'%s': gzip -dc failed (not a gzip file?)", path) end
        end
        return S, D, maxid, nodes
      end
      local fh, why = io.open(path, "rb")
      if not fh then lfail(f, "rank %d cannot read '%s': %s", me, path, why) end
      local size = fh:seek("end")
      local b, e = (size * me) // np, (size * (me + 1)) // np
      if b > 0 then fh:seek("set", b - 1) fh:read("l") else fh:seek("set", 0) end
      while true do
        local pos = fh:seek()
        if pos >= e then break end
        local l = fh:read("l")
        if not l then break end
        line_of(l, "byte " .. pos)
      end
      fh:close()
      return S, D, maxid, nodes
    end)
    local t = c.allreduce_int({maxid, nodes, opts.nv or -1}, "max")
    local nv = math.max(t[1] + 1, t[2], t[3])
    if opts.nv and t[1] >= opts.nv then fail(f, "'%s' has vertex %d, but nv is %d", path, t[1], opts.nv) end
    if np > nv then
      fail(f, "%d ranks but only %d vertices: every rank needs at least one vertex (run with at most %d ranks)", np, nv, nv)
    end
    local s = #S > 0 and speck.View.from(S, "int64", I.HOST) or I.hview("s", "int64", 0)
    local d = #D > 0 and speck.View.from(D, "int64", I.HOST) or I.hview("d", "int64", 0)
    return from_arcs(f, nv, s, d, opts.directed)
  end

  -- the interior and boundary blocks of A (g.A: out-arcs by default) as
  -- captures ip, ic, bp, bc
  local function gcaps(g, t, A)
    A = A or g.A
    t.ip, t.ic, t.bp, t.bc = A.interior.rowptr, A.interior.colidx, A.boundary.rowptr, A.boundary.colidx
    return t
  end

  -- level = bfs(g, source [, {direction = "auto" | "top_down" | "bottom_up"}]):
  -- hops from 'source' (-1: unreached) as an int64 distributed vector.
  -- Level-synchronous and direction-optimizing (Beamer's switch: top-down
  -- while the frontier's edges are fewer than 1/14 of the unvisited
  -- vertices' edges, bottom-up while the frontier holds more than n/24
  -- vertices). The levels run in C (kernels/dist/bfs.c): the frontier a
  -- bitmap every rank holds whole, gathered once a level with the level's
  -- counts (Graph500's replicated-bitmap BFS). Bottom-up: each unvisited
  -- vertex looks for an in-neighbour's bit; top-down: each frontier
  -- vertex (this rank's, or a halo vertex with arcs into this rank) gives
  -- the next level to its unvisited out-neighbours here. The graph's part
  -- of it (the halo's in-arcs transposed, the halo's bits, the bitmaps)
  -- is made at the first search and kept (g:memory() counts it).
  local BFS_DIR = {auto = 0, top_down = 1, bottom_up = 2}
  function dist.bfs(g, source, opts)
    local f = "bfs"
    local dir
    I.agree_checked(f, function()
      check_graph(f, g)
      opts = I.check_opts(f, opts, {"direction"})
      dir = BFS_DIR[opts.direction or "auto"]
      if not dir then
        fail(f, "direction must be \"auto\", \"top_down\" or \"bottom_up\", got %s", tostring(opts.direction))
      end
      if math.type(source) ~= "integer" then fail(f, "source must be a vertex (an integer), got %s", type(source)) end
    end, function() return {g.id, source, dir} end, {"g", "source", "direction"})
    if source < 0 or source >= g.nv then
      fail(f, "source %d is not a vertex (the graph has %d: 0..%d)", source, g.nv, g.nv - 1)
    end
    if not g._bfs then
      local B = g.Ain -- in-arcs (A itself when undirected)
      local m_total = c.allreduce_int({g.A.nnz_local}, "sum")[1]
      -- (a rank that cannot make it fails every rank, never a hang)
      g._bfs = together(c.bfs_graph, g.map.c, g.A.interior.rowptr, g.A.interior.colidx,
                        B.interior.rowptr, B.interior.colidx, B.boundary.rowptr,
                        B.boundary.colidx, g.degree, B.halo_ids, m_total, I.stage)
    end
    local lev = speck.View("level", "int64", g.map.nloc)
    local vec = I.new_vec(g.map, lev)
    vec.directions = c.bfs_run(g._bfs, lev, source, dir)
    return vec
  end

  -- labels, n = connected_components(g): each vertex's label is the
  -- smallest vertex id of its component (min-label propagation over the
  -- halo); n the number of components. The iterations run in C
  -- (kernels/dist/cc.c: an iteration the halo exchange, the step's
  -- kernels and one allreduce)
  function dist.connected_components(g)
    local f = "connected_components"
    check_graph(f, g)
    agree(f, {g.id}, {"g"})
    local map, A, B = g.map, g.A, g.directed and g.Ain or nil
    local lab = {speck.View("labels", "int64", map.nloc), speck.View("labels", "int64", map.nloc)}
    local hl = speck.View("halo_labels", "int64", A.nhalo)
    local hli = B and speck.View("halo_labels_in", "int64", B.nhalo)
    local xa, ba = I.xchg(A, "int64")
    local xb, bb
    if B then xb, bb = I.xchg(B, "int64") end
    local ok, which, n = pcall(c.cc_run, xa, xb, lab[1], lab[2], hl, hli,
      A.interior.rowptr, A.interior.colidx, A.boundary.rowptr, A.boundary.colidx,
      B and B.interior.rowptr, B and B.interior.colidx, B and B.boundary.rowptr,
      B and B.boundary.colidx, map.b)
    if ba then ba.turn = xa.turn end
    if bb then bb.turn = xb.turn end
    if not ok then error(which, 0) end
    return I.new_vec(map, lab[which + 1]), n
  end

  -- rank, iters = pagerank(g [, {damping = 0.85, tol = 1e-6, maxiter = 100}]):
  -- NetworkX's (as graph.pagerank): a vertex without edges spreads its
  -- rank over all; stops when sum |x' - x| < N * tol. The iterations run
  -- in C (kernels/dist/pr.c: an iteration the shares' halo exchange, the
  -- step's and the next shares' kernels, one allreduce)
  function dist.pagerank(g, opts)
    local f = "pagerank"
    local d, tol, maxiter
    I.agree_checked(f, function()
      check_graph(f, g)
      opts = I.check_opts(f, opts, {"damping", "tol", "maxiter"})
      d, tol, maxiter = opts.damping or 0.85, opts.tol or 1e-6, opts.maxiter or 100
      if type(d) ~= "number" or d < 0 or d > 1 then fail(f, "damping must be a number in [0, 1], got %s", tostring(d)) end
      if type(tol) ~= "number" or not (tol > 0) then fail(f, "tol must be a positive number, got %s", tostring(tol)) end
      if math.type(maxiter) ~= "integer" or maxiter < 0 then fail(f, "maxiter must be a non-negative integer, got %s", tostring(maxiter)) end
    end, function() return {g.id, maxiter, math.floor(d * 2 ^ 40), math.floor(-math.log(tol, 2) * 1024)} end,
    {"g", "maxiter", "damping", "tol"})
    local map, N = g.map, g.nv
    local x = {speck.View("rank", "float64", map.nloc), speck.View("rank", "float64", map.nloc)}
    local y = speck.View("contrib", "float64", map.nloc)
    speck.deep_copy(x[1], 1.0 / N)
    local B = g.Ain
    local hy = speck.View("halo_contrib", "float64", B.nhalo)
    local xb, bb = I.xchg(B, "float64")
    local ok, which, it = pcall(c.pr_run, xb, x[1], x[2], y, hy, g.degree, B.interior.rowptr,
      B.interior.colidx, B.boundary.rowptr, B.boundary.colidx, N, d, tol, maxiter)
    if bb then bb.turn = xb.turn end
    if not ok then error(which, 0) end
    return I.new_vec(map, x[which + 1]), it
  end

  -- total = triangles(g): triangles u < v < w, each counted by the owner
  -- of u; the adjacency rows of the halo vertices are fetched once from
  -- their owners (as a distributed SpGEMM fetches the remote rows of B)
  function dist.triangles(g)
    local f = "triangles"
    check_graph(f, g)
    agree(f, {g.id}, {"g"})
    if g.directed then fail(f, "g is directed: triangles are counted on undirected graphs") end
    -- on the host's kernels (GPU ranks too): the rows are fetched and
    -- merged once, from Lua and host views
    local map, A, adj = g.map, g.A, I.crs_host(g.adj)
    local nh = A.nhalo
    -- the halo rows from their owners
    local hlens, hcols = I.fetch_rows(map, A.halo_ids, adj.rowptr, adj.colidx)
    -- the extended rows: this rank's, then the halo's
    local nloc = map.nloc
    local nl = adj.colidx:extent(0)
    local erp = I.hview("erp", "int64", nloc + nh + 1)
    local ecol = I.hview("ecol", "int64", nl + hcols:extent(0))
    I.hfor("dist_tri_rows", nloc + 1, {erp = erp, rp = adj.rowptr},
                       text("dist_copy_rowptr"))
    for k = 0, nh - 1 do erp[nloc + k + 1] = erp(nloc + k) + hlens(k) end
    I.hfor("dist_tri_cols", nl, {e = ecol, c = adj.colidx}, text("dist_tri_cols"))
    I.hfor("dist_tri_hcols", hcols:extent(0), {e = ecol, h = hcols, o = nl},
                       text("dist_tri_hcols"))
    local mine = I.hreduce("dist_triangles", nloc,
      {rp = adj.rowptr, ci = adj.colidx, erp = erp, ecol = ecol, hid = A.halo_ids,
       b = map.b, e = map.e, nloc = nloc, nh = nh}, text("dist_triangles"),
      {op = "sum", dtype = "int64"})
    return c.allreduce_int({mine}, "sum")[1]
  end
end
