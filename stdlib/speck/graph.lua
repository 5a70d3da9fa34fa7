-- speck/graph.lua: graph analytics on the library's precompiled kernels
-- (kernels/graph/). A Graph is a Lua object over the CSR views of
-- speck.sparse (rowptr int64, colidx int32, weights float64 or nil) in the
-- default memory space: g:matrix() is a CrsMatrix over the same views, no
-- copy. An undirected graph stores each edge in both rows. Every operation
-- is one call into the C library (speck_call's "graph.<name>" from C) that
-- checks its arguments; errors name the function, the object and what is
-- wrong.
local core = require "speck.core"
local speck = require "speck"
local sparse = require "speck.sparse"
-- the bodies it launches itself: kernels/graph/graph_lua.sk
local text = require "speck.ktext"

local graph = {}

-- -- errors ------------------------------------------------------------------
local user_level, fail, call = require("speck.raise")("speck.graph.")

-- 'opts' a table (or nil) whose keys are all in 'known' (a list)
local check_options = require "speck.opts"
local function check_opts(fname, opts, known)
  local o = check_options("speck.graph." .. fname, opts, known, user_level())
  return o   -- not a tail call: the levels count this frame
end

local function check_bool(fname, what, x)
  if x ~= nil and type(x) ~= "boolean" then
    fail(fname, "option %s must be a boolean, got %s", what, type(x))
  end
end

-- -- graphs -----------------------------------------------------------------
local G = {}
local MT = {__index = G, __name = "speck.Graph"}

local function is_graph(g) return getmetatable(g) == MT end
graph.is_graph = is_graph

local function check_graph(fname, g)
  if not is_graph(g) then
    fail(fname, "g must be a Graph, got %s", type(g) == "userdata" and "a view" or type(g))
  end
  return g
end

-- put g's arguments into 't'
local function gargs(t, g)
  t.G_rowptr, t.G_colidx, t.G_weights = g.rowptr, g.colidx, g.weights
  t.directed = g._directed
  return t
end

local function make(nv, outs, directed)
  return setmetatable({rowptr = outs.G_rowptr, colidx = outs.G_colidx,
                       weights = outs.G_weights, _nv = nv, _directed = directed}, MT)
end

function G:num_vertices() return self._nv end
-- edges: arcs of a directed graph; an undirected graph's edges {u, v}
-- (a kept self-loop counts once)
function G:num_edges()
  if self._ne then return self._ne end
  local arcs = self.colidx:extent(0)
  if self._directed then self._ne = arcs return arcs end
  local loops = core.call("graph.count_loops", {G_rowptr = self.rowptr, G_colidx = self.colidx})
  self._ne = (arcs - loops) // 2 + loops
  return self._ne
end
function G:num_arcs() return self.colidx:extent(0) end
function G:is_directed() return self._directed end
function G:is_weighted() return self.weights ~= nil end
function G:space() return self.rowptr:space() end
-- where the arcs (colidx, weights) live: the graph's space, or host memory
-- the device reads in place (pinned host memory) when they did not fit in device
-- memory (out of core)
function G:edge_space() return self.colidx:space() end
-- g:to(space [, {edges = space}]): a copy in 'space'; the arcs go where
-- 'edges' says ('space' or, on a GPU, its pinned host memory), by default to 'space'
-- when they fit in its free memory (under the device's memory budget) and to
-- pinned host memory when they do not
function G:to(space, opts)
  local f = "to"
  opts = check_opts(f, opts, {"edges"})
  if type(space) ~= "string" then fail(f, "space must be a string, got %s", type(space)) end
  if opts.edges ~= nil and type(opts.edges) ~= "string" then
    fail(f, "option edges must be a string, got %s", type(opts.edges))
  end
  local _, outs = call(f, "graph.to", gargs({space = space, edges = opts.edges}, self))
  return make(self._nv, outs, self._directed)
end
function G:degree(v)
  if math.type(v) ~= "integer" or v < 0 or v >= self._nv then
    fail("degree", "vertex %s is not in 0..%d", tostring(v), self._nv - 1)
  end
  return math.tointeger(self.rowptr(v + 1) - self.rowptr(v))
end
-- the adjacency matrix: a CrsMatrix over the same views (ones when unweighted)
function G:matrix()
  local vals = self.weights
  if not vals then
    vals = speck.View("ones", "float64", self.colidx:extent(0), {init = false})
    vals:fill(1)
  end
  return sparse._make(self._nv, self._nv, self.rowptr, self.colidx, vals, true)
end
function G:memory()
  local b = self.rowptr:size() * 8 + self.colidx:size() * 4
  if self.weights then b = b + self.weights:size() * 8 end
  return b
end
MT.__tostring = function(g)
  local sp = g:space()
  if g:edge_space() ~= sp then sp = sp .. ", edges in " .. g:edge_space() end
  return ("Graph<%d vertices, %d edges, %s%s, %s, %.1f MB>"):format(
    g._nv, g:num_edges(), g._directed and "directed" or "undirected",
    g.weights and ", weighted" or "", sp, g:memory() / 1e6)
end

-- -- building -----------------------------------------------------------------
local BUILD = {"directed", "weights", "dedupe", "self_loops"}

local function id_view(fname, what, t)
  if type(t) == "table" then
    for i = 1, #t do
      if math.type(t[i]) ~= "integer" then
        fail(fname, "%s[%d] must be an integer, got %s", what, i, tostring(t[i]))
      end
    end
    return speck.View.from(t, "int64")
  end
  if type(t) ~= "userdata" then fail(fname, "%s must be a view or a Lua array, got %s", what, type(t)) end
  return t
end

local function build_flags(fname, opts)
  check_bool(fname, "directed", opts.directed)
  check_bool(fname, "dedupe", opts.dedupe)
  check_bool(fname, "self_loops", opts.self_loops)
  return opts.directed == true, opts.dedupe ~= false, opts.self_loops == true
end

-- integer weights (the paths block at the end says how they are kept):
-- the dtype of an int32 or int64 view, else nil; a copy of view w as 'dtype'
local function int_weights_of(w)
  local dt = w.dtype and w:dtype()
  return (dt == "int32" or dt == "int64") and dt or nil
end

local function weights_as(w, dtype)
  local out = speck.View("weights", dtype, w:extent(0))
  speck.parallel_for("graph.weights_as_" .. dtype, w:extent(0), {a = w, b = out},
    text(dtype == "float64" and "graph_weights_as_float64" or "graph_weights_as_int"))
  return out
end

-- from_edges(nv, src, dst [, {directed, weights, dedupe, self_loops, space}])
function graph.from_edges(nv, src, dst, opts)
  local f = "from_edges"
  opts = check_opts(f, opts, {"directed", "weights", "dedupe", "self_loops"})
  if math.type(nv) ~= "integer" or nv < 0 then
    fail(f, "nv must be a non-negative integer, got %s", tostring(nv))
  end
  local directed, dedupe, loops = build_flags(f, opts)
  local s, d = id_view(f, "src", src), id_view(f, "dst", dst)
  local w = opts.weights
  local iw = type(w) == "userdata" and int_weights_of(w)
  if iw then w = weights_as(w, "float64") end
  if type(w) == "table" then
    for i = 1, #w do
      if type(w[i]) ~= "number" then fail(f, "weights[%d] must be a number, got %s", i, type(w[i])) end
    end
    w = speck.View.from(w, "float64")
  elseif w ~= nil and type(w) ~= "userdata" then
    fail(f, "weights must be a view or a Lua array, got %s", type(w))
  end
  local _, outs = call(f, "graph.from_edges", {nv = nv, src = s, dst = d, weights = w,
    directed = directed, dedupe = dedupe, self_loops = loops})
  local g = make(nv, outs, directed)
  g._int_weights = iw or nil
  return g
end

-- a graph whose edges are the entries of square CrsMatrix A (values as weights)
function graph.from_matrix(A, opts)
  local f = "from_matrix"
  opts = check_opts(f, opts, {"directed", "dedupe", "self_loops", "weighted"})
  sparse._check_matrix(f, "A", A)
  local directed, dedupe, loops = build_flags(f, opts)
  local t = sparse._margs({directed = directed, dedupe = dedupe, self_loops = loops}, "A", A)
  if opts.weighted == false then t.A_values = nil end
  local _, outs = call(f, "graph.from_csr", t)
  return make(A:nrows(), outs, directed)
end

-- graph.read, graph.write and graph.write_csv: stdlib/speck/graph_values.lua

-- from_mesh(elem_nodes [, {nodes = N, capacity = c}]): the node graph of a
-- finite element mesh (seed 002): elem_nodes a rank-2 int64 or int32 view
-- (elements x nodes per element, or a Lua table of tables); two nodes are
-- adjacent when an element holds both. Built through a lock-free unordered
-- map in the kernels (grown and refilled when full; 'capacity' its first
-- size). Undirected, no self-loops; nodes: the node count (default the
-- largest id + 1).
function graph.from_mesh(elems, opts)
  local f = "from_mesh"
  opts = check_opts(f, opts, {"nodes", "capacity"})
  if type(elems) == "table" then
    local npe = elems[1] and #elems[1] or 0
    for e, row in ipairs(elems) do
      if type(row) ~= "table" or #row ~= npe then
        fail(f, "elems[%d] must be a list of %d node ids", e, npe)
      end
      for k, x in ipairs(row) do
        if math.type(x) ~= "integer" then
          fail(f, "elems[%d][%d] must be an integer, got %s", e, k, tostring(x))
        end
      end
    end
    elems = #elems > 0 and speck.View.from(elems, "int64") or speck.View("elems", "int64", {0, 0})
  elseif type(elems) ~= "userdata" then
    fail(f, "elems must be a rank-2 view or a Lua table of elements, got %s", type(elems))
  end
  for _, k in ipairs{"nodes", "capacity"} do
    if opts[k] ~= nil and math.type(opts[k]) ~= "integer" then
      fail(f, "option %s must be an integer, got %s", k, tostring(opts[k]))
    end
  end
  local _, outs = call(f, "graph.from_mesh", {elems = elems, nodes = opts.nodes,
                                              capacity = opts.capacity})
  local g = make(math.tointeger(outs.nv), outs, false)
  g._rehashes = math.tointeger(outs.rehashes)
  return g
end

-- -- generators ----------------------------------------------------------------
local function seed_of(f, opts)
  opts = check_opts(f, opts, {"seed"})
  local s = opts.seed or 1
  if math.type(s) ~= "integer" then fail(f, "seed must be an integer, got %s", tostring(s)) end
  return s
end

local function int_arg(f, what, x)
  if math.type(x) ~= "integer" then fail(f, "%s must be an integer, got %s", what, tostring(x)) end
  return x
end

-- Graph500 Kronecker (R-MAT A = 0.57, B = C = 0.19): 2^scale vertices,
-- edgefactor * 2^scale drawn edges (undirected, duplicates and self-loops
-- dropped), the same graph for a seed on every back end
function graph.kronecker(scale, edgefactor, opts)
  local f = "kronecker"
  local seed = seed_of(f, opts)
  local _, outs = call(f, "graph.kronecker", {scale = int_arg(f, "scale", scale),
    edgefactor = int_arg(f, "edgefactor", edgefactor), seed = seed})
  return make(math.tointeger(outs.nv), outs, false)
end

-- nedges random pairs over nv vertices (G(n, m); duplicates and self-loops
-- dropped, so a few fewer edges)
function graph.erdos_renyi(nv, nedges, opts)
  local f = "erdos_renyi"
  local seed = seed_of(f, opts)
  local _, outs = call(f, "graph.erdos_renyi", {nv = int_arg(f, "nv", nv),
    nedges = int_arg(f, "nedges", nedges), seed = seed})
  return make(math.tointeger(outs.nv), outs, false)
end

-- grids: vertex x + nx*y (+ nx*ny*z), edges to the +x, +y (+z) neighbours
function graph.grid2d(nx, ny)
  local f = "grid2d"
  local _, outs = call(f, "graph.grid", {nx = int_arg(f, "nx", nx), ny = int_arg(f, "ny", ny), nz = 1})
  return make(math.tointeger(outs.nv), outs, false)
end

function graph.grid3d(nx, ny, nz)
  local f = "grid3d"
  local _, outs = call(f, "graph.grid", {nx = int_arg(f, "nx", nx), ny = int_arg(f, "ny", ny),
                                         nz = int_arg(f, "nz", nz)})
  return make(math.tointeger(outs.nv), outs, false)
end

-- -- algorithms ------------------------------------------------------------------
local VISIT = {examine_edge = true, filter = true, tree_edge = true, discover_vertex = true,
               captures = true}

-- level, parent = bfs(g, source(s) [, {direction_optimizing = true}]):
-- int64 views; level -1 and parent -1 where unreached, a source its own parent;
-- several sources (a Lua list or an int64 view, not empty): level is the
-- distance to the nearest one
function graph.bfs(g, source, opts)
  local f = "bfs"
  check_graph(f, g)
  opts = check_opts(f, opts, {"direction_optimizing", "visitor"})
  check_bool(f, "direction_optimizing", opts.direction_optimizing)
  local src, one
  if math.type(source) == "integer" then
    one = source  -- a number: checked by the driver, no view to copy to the device
  elseif type(source) == "table" then
    if #source == 0 then fail(f, "sources must not be empty") end
    src = id_view(f, "sources", source)
  elseif type(source) == "userdata" then
    src = source
    if src:rank() == 1 and src:extent(0) == 0 then fail(f, "sources must not be empty") end
  else
    fail(f, "source must be a vertex (an integer), a list or a view, got %s",
         math.type(source) == "float" and "the float " .. tostring(source) or type(source))
  end
  local args = {}
  if opts.visitor ~= nil then
    local vis = opts.visitor
    if type(vis) ~= "table" then fail(f, "option visitor must be a table, got %s", type(vis)) end
    for k, x in pairs(vis) do
      if not VISIT[k] then
        fail(f, "unknown visitor field '%s' (examine_edge, filter, tree_edge, discover_vertex, captures)", tostring(k))
      end
      if k ~= "captures" and type(x) ~= "string" then
        fail(f, "visitor.%s must be a string of the kernel dialect, got %s", k, type(x))
      end
    end
    if vis.captures ~= nil and type(vis.captures) ~= "table" then
      fail(f, "visitor.captures must be a table, got %s", type(vis.captures))
    end
    for k, x in pairs(vis.captures or {}) do
      if type(k) ~= "string" or k:match("^G_") or k:match("^visit_") or k == "sources"
         or k == "source" or k == "directed" or k == "direction_optimizing" then
        fail(f, "visitor capture '%s' is a name graph.bfs uses", tostring(k))
      end
      args[k] = x
    end
    for k, x in pairs(vis) do
      if k ~= "captures" then args["visit_" .. k] = x end
    end
  end
  args.sources, args.source = src, one
  args.direction_optimizing = opts.direction_optimizing ~= false
  local _, outs = call(f, "graph.bfs", gargs(args, g))
  return outs.level, outs.parent, math.tointeger(outs.nlevels)
end

-- labels, ncomp: labels(v) the smallest vertex of v's component (weak
-- components of a directed graph)
function graph.connected_components(g, opts)
  local f = "connected_components"
  check_graph(f, g)
  opts = check_opts(f, opts, {"algorithm"})
  if opts.algorithm ~= nil and opts.algorithm ~= "afforest" and opts.algorithm ~= "sv" then
    fail(f, "algorithm must be \"afforest\" or \"sv\", got %s", tostring(opts.algorithm))
  end
  local _, outs = call(f, "graph.connected_components", gargs({algorithm = opts.algorithm}, g))
  return outs.labels, math.tointeger(outs.ncomp)
end

-- rank, iters: NetworkX's pagerank (weights when the graph has them);
-- {personalization = p}: a float64 view or Lua array of n non-negative
-- weights (not all 0, normalised to sum 1) that the teleport and the
-- dangling rank go to (NetworkX's personalization, dangling = None)
function graph.pagerank(g, opts)
  local f = "pagerank"
  check_graph(f, g)
  opts = check_opts(f, opts, {"damping", "tol", "maxiter", "dtype", "personalization"})
  if opts.dtype ~= nil and opts.dtype ~= "float64" and opts.dtype ~= "float32" then
    fail(f, "dtype must be \"float64\" or \"float32\", got %s", tostring(opts.dtype))
  end
  for _, k in ipairs{"damping", "tol"} do
    if opts[k] ~= nil and type(opts[k]) ~= "number" then
      fail(f, "option %s must be a number, got %s", k, type(opts[k]))
    end
  end
  if opts.maxiter ~= nil and math.type(opts.maxiter) ~= "integer" then
    fail(f, "option maxiter must be an integer, got %s", tostring(opts.maxiter))
  end
  local p = opts.personalization
  if type(p) == "table" then
    for i = 1, #p do
      if type(p[i]) ~= "number" then
        fail(f, "personalization[%d] must be a number, got %s", i, type(p[i]))
      end
    end
    p = #p > 0 and speck.View.from(p, "float64") or speck.View("personalization", "float64", 0)
  elseif p ~= nil and type(p) ~= "userdata" then
    fail(f, "option personalization must be a view or a Lua array of numbers, got %s", type(p))
  end
  local _, outs = call(f, "graph.pagerank", gargs({damping = opts.damping, tol = opts.tol,
    maxiter = opts.maxiter, dtype = opts.dtype, personalization = p}, g))
  return outs.rank, math.tointeger(outs.iters)
end

-- total, per_vertex (int64 view): triangles of an undirected graph;
-- {per_vertex = false}: the total only (faster: no per-vertex atomics)
function graph.triangles(g, opts)
  local f = "triangles"
  check_graph(f, g)
  opts = check_opts(f, opts, {"per_vertex"})
  check_bool(f, "per_vertex", opts.per_vertex)
  local _, outs = call(f, "graph.triangles", gargs({per_vertex = opts.per_vertex ~= false}, g))
  return math.tointeger(outs.total), outs.per_vertex
end

-- colors (int32 view, 1..ncolors), ncolors: a distance-1 coloring,
-- vertex-based ("vb", default) or edge-based ("eb": a thread per arc);
-- VB's order: "largest_first" (default: the vertices of high degree first,
-- by decreasing degree, then the rest by id; fewer colors on skewed
-- graphs) or "natural" (by id)
function graph.color(g, opts)
  local f = "color"
  check_graph(f, g)
  opts = check_opts(f, opts, {"algorithm", "order"})
  if opts.algorithm ~= nil and opts.algorithm ~= "vb" and opts.algorithm ~= "eb" then
    fail(f, "algorithm must be \"vb\" or \"eb\", got %s", tostring(opts.algorithm))
  end
  if opts.order ~= nil and opts.order ~= "largest_first" and opts.order ~= "natural" then
    fail(f, "order must be \"largest_first\" or \"natural\", got %s", tostring(opts.order))
  end
  if opts.order ~= nil and opts.algorithm == "eb" then
    fail(f, "order is an option of algorithm \"vb\", not \"eb\"")
  end
  local _, outs = call(f, "graph.color", gargs({algorithm = opts.algorithm, order = opts.order}, g))
  return outs.colors, math.tointeger(outs.ncolors)
end

-- colors (int32 view, 1..ncolors), ncolors: a distance-2 coloring (any two
-- vertices joined by a path of one or two edges differ), vertex-based
-- ("vb", default) or net-based ("nb")
function graph.color_d2(g, opts)
  local f = "color_d2"
  check_graph(f, g)
  opts = check_opts(f, opts, {"algorithm"})
  if opts.algorithm ~= nil and opts.algorithm ~= "vb" and opts.algorithm ~= "nb" then
    fail(f, "algorithm must be \"vb\" or \"nb\", got %s", tostring(opts.algorithm))
  end
  local _, outs = call(f, "graph.color", gargs({algorithm = opts.algorithm, distance = 2}, g))
  return outs.colors, math.tointeger(outs.ncolors)
end

-- colors, ncolors: bipartite partial coloring (seed 000 §4.2) of a
-- bipartite graph given as a CrsMatrix A (rows the left part, columns the
-- right) or as a Graph (its arcs u -> v: rows u, columns v): the rows
-- ({side = "rows"}, default) or the columns ({side = "columns"}) get
-- colors 1..ncolors such that two rows sharing a column (two columns
-- sharing a row) differ. {algorithm = "nb"} (net-based, default) or "vb".
function graph.color_bipartite(A, opts)
  local f = "color_bipartite"
  opts = check_opts(f, opts, {"side", "algorithm"})
  if opts.side ~= nil and opts.side ~= "rows" and opts.side ~= "columns" then
    fail(f, "side must be \"rows\" or \"columns\", got %s", tostring(opts.side))
  end
  if opts.algorithm ~= nil and opts.algorithm ~= "vb" and opts.algorithm ~= "nb" then
    fail(f, "algorithm must be \"vb\" or \"nb\", got %s", tostring(opts.algorithm))
  end
  if is_graph(A) then
    A = A:matrix()
  elseif not sparse.is_matrix(A) then
    fail(f, "A must be a CrsMatrix or a Graph, got %s", type(A) == "userdata" and "a view" or type(A))
  end
  local T = A:transpose()
  if opts.side == "columns" then A, T = T, A end
  local t = sparse._margs(sparse._margs({algorithm = opts.algorithm}, "A", A), "T", T)
  local _, outs = call(f, "graph.color_bipartite", t)
  return outs.colors, math.tointeger(outs.ncolors)
end

-- miniTri (seed 003 ch. 6): a Lua table k -> the number of triangles whose
-- clique bound is k (only the k that occur)
function graph.minitri(g)
  local f = "minitri"
  check_graph(f, g)
  local _, outs = call(f, "graph.minitri", gargs({}, g))
  local hist = {}
  for k, c in ipairs(outs.hist:totable()) do
    if c > 0 then hist[k - 1] = math.tointeger(c) end
  end
  return hist
end

-- members (int32 view: 1 in the set), count: a distance-2 maximal
-- independent set (deterministic: the same set on every back end)
function graph.mis2(g)
  local f = "mis2"
  check_graph(f, g)
  local _, outs = call(f, "graph.mis2", gargs({}, g))
  return outs.members, math.tointeger(outs.count)
end

-- -- user kernels over a graph -------------------------------------------------
-- The graph's views join the user's captures as 'rowptr', 'colidx' and
-- 'weights' (when weighted); a capture of one of those names is refused.
local function graph_caps(f, g, captures)
  if captures ~= nil and type(captures) ~= "table" then
    fail(f, "captures must be a table, got %s", type(captures))
  end
  local caps = {}
  for k, x in pairs(captures or {}) do
    if k == "rowptr" or k == "colidx" or k == "weights" or k == "src" then
      fail(f, "capture '%s' is taken by the graph (rowptr, colidx, weights, src)", k)
    end
    caps[k] = x
  end
  caps.rowptr, caps.colidx, caps.weights = g.rowptr, g.colidx, g.weights
  return caps
end

local function check_body(f, body)
  if type(body) ~= "string" then fail(f, "body must be a string of the kernel dialect, got %s", type(body)) end
end

-- the source vertex of every arc (made once per graph, kept)
local function arc_sources(g)
  if not g._src then
    local _, outs = core.call("graph.arc_sources", {G_rowptr = g.rowptr, G_colidx = g.colidx})
    g._src = outs.src
  end
  return g._src
end

-- raise a pattern's error as speck.graph.<f>'s
local function run(f, fn, ...)
  local ok, r = pcall(fn, ...)
  if ok then return r end
  fail(f, "%s", (tostring(r):gsub("^[^\n]-:%d+: ", "", 1)))
end

-- body runs once per vertex 'v' (degree: rowptr(v + 1) - rowptr(v))
function graph.forall_vertices(g, captures, body)
  local f = "forall_vertices"
  check_graph(f, g)
  check_body(f, body)
  run(f, speck.parallel_for, "graph.forall_vertices", g._nv, graph_caps(f, g, captures),
      body, {index = {"v"}})
end

-- body runs once per arc 'e' from 'u' to 'v' (an undirected edge: both ways)
function graph.forall_edges(g, captures, body)
  local f = "forall_edges"
  check_graph(f, g)
  check_body(f, body)
  local caps = graph_caps(f, g, captures)
  caps.src = arc_sources(g)
  run(f, speck.parallel_for, "graph.forall_edges", g:num_arcs(), caps,
      text("graph_arc_ends") .. body, {index = {"e"}})
end

-- parallel_reduce over the vertices 'v' (acc, reducer as speck.parallel_reduce)
function graph.reduce_vertices(g, captures, body, reducer)
  local f = "reduce_vertices"
  check_graph(f, g)
  check_body(f, body)
  return run(f, speck.parallel_reduce, "graph.reduce_vertices", g._nv,
             graph_caps(f, g, captures), body, reducer or "sum", {index = {"v"}})
end

-- parallel_reduce over the arcs 'e' from 'u' to 'v'
function graph.reduce_edges(g, captures, body, reducer)
  local f = "reduce_edges"
  check_graph(f, g)
  check_body(f, body)
  local caps = graph_caps(f, g, captures)
  caps.src = arc_sources(g)
  return run(f, speck.parallel_reduce, "graph.reduce_edges", g:num_arcs(), caps,
             text("graph_arc_ends") .. body, reducer or "sum",
             {index = {"e"}})
end

-- linear_recurrence(x [, {op = "sum"|"prod"|"min"|"max", coeff = a}]):
-- MTGL's parallel prefix over a property map (a rank-1 view), in place:
-- x(i) = x(i - 1) op x(i) (an inclusive scan), or with coefficients
-- x(i) = a(i) * x(i - 1) + x(i) (x(-1) = 0; op sum). Returns x.
function graph.linear_recurrence(x, opts)
  local f = "linear_recurrence"
  opts = check_opts(f, opts, {"op", "coeff"})
  if type(x) ~= "userdata" then fail(f, "x must be a view (a property map), got %s", type(x)) end
  if opts.op ~= nil and type(opts.op) ~= "string" then
    fail(f, "option op must be a string, got %s", type(opts.op))
  end
  if opts.coeff ~= nil and type(opts.coeff) ~= "userdata" then
    fail(f, "option coeff must be a view, got %s", type(opts.coeff))
  end
  call(f, "graph.linear_recurrence", {x = x, op = opts.op, a = opts.coeff})
  return x
end

-- labels (int64 view, 0..ncoarse-1), ncoarse: MIS-2 coarsening, each root
-- of graph.mis2 and the vertices within two edges of it one aggregate
function graph.coarsen_mis2(g)
  local f = "coarsen_mis2"
  check_graph(f, g)
  local _, o1 = call(f, "graph.mis2", gargs({}, g))
  local _, outs = call(f, "graph.coarsen_mis2", gargs({members = o1.members}, g))
  return outs.labels, math.tointeger(outs.ncoarse)
end


-- -- properties and similarity -------------------------------------------------
-- (issue 26: clustering, transitivity, Jaccard and overlap, HITS, degree
-- statistics; personalized PageRank and multi-source BFS extend
-- graph.pagerank and graph.bfs above)

-- c: float64 local clustering coefficient per vertex (networkx.clustering:
-- weights ignored, self-loops not neighbours; a directed graph's counts
-- the directed triangles through a vertex, Fagiolo's definition, from its
-- out-rows and its reverse's)
function graph.clustering(g)
  local f = "clustering"
  check_graph(f, g)
  local t = gargs({}, g)
  if g:is_directed() then
    local r = g:reverse()
    t.R_rowptr, t.R_colidx = r.rowptr, r.colidx
  end
  local _, outs = call(f, "graph.clustering", t)
  return outs.clustering
end

-- t: networkx.transitivity (3 * triangles / connected triples)
function graph.transitivity(g)
  local f = "transitivity"
  check_graph(f, g)
  local _, outs = call(f, "graph.clustering", gargs({what = "transitivity"}, g))
  return outs.transitivity
end

-- a list of vertex ids (an int64 view) or an int64 / int32 view
local function pair_view(f, what, t)
  if type(t) == "table" then
    if #t == 0 then return speck.View(what, "int64", 0) end
    return id_view(f, what, t)
  end
  if type(t) ~= "userdata" then
    fail(f, "%s must be a view or a Lua array of vertices, got %s", what, type(t))
  end
  return t
end

local function similarity(f, g, us, vs)
  check_graph(f, g)
  local args = {measure = f}
  if us ~= nil or vs ~= nil then
    if us == nil or vs == nil then
      fail(f, "give both us and vs (the pairs), or neither (every arc)")
    end
    args.us, args.vs = pair_view(f, "us", us), pair_view(f, "vs", vs)
  end
  local _, outs = call(f, "graph.similarity", gargs(args, g))
  return outs.s
end

-- s = jaccard(g [, us, vs]): float64 |N(u) & N(v)| / |N(u) | N(v)| per pair
-- (us(k), vs(k)) (networkx.jaccard_coefficient; 0 when both have no
-- neighbours), or with no pairs of every arc, aligned with g.colidx; a
-- directed graph's out-neighbours
function graph.jaccard(g, us, vs)
  local s = similarity("jaccard", g, us, vs)
  return s
end

-- s = overlap(g [, us, vs]): |N(u) & N(v)| / min(|N(u)|, |N(v)|) (cuGraph's
-- overlap coefficient; 0 when either has no neighbours), as jaccard
function graph.overlap(g, us, vs)
  local s = similarity("overlap", g, us, vs)
  return s
end

-- hubs, authorities, iters: networkx.hits (each sums to 1; weights count);
-- {tol = 1e-8, maxiter = 100}: until sum |h' - h| < tol, the hubs scaled
-- to a largest entry of 1 (NetworkX's power iteration)
function graph.hits(g, opts)
  local f = "hits"
  check_graph(f, g)
  opts = check_opts(f, opts, {"tol", "maxiter"})
  if opts.tol ~= nil and type(opts.tol) ~= "number" then
    fail(f, "option tol must be a number, got %s", type(opts.tol))
  end
  if opts.maxiter ~= nil and math.type(opts.maxiter) ~= "integer" then
    fail(f, "option maxiter must be an integer, got %s", tostring(opts.maxiter))
  end
  local _, outs = call(f, "graph.hits", gargs({tol = opts.tol, maxiter = opts.maxiter}, g))
  return outs.hubs, outs.authorities, math.tointeger(outs.iters)
end

local function degree_call(f, g, opts)
  check_graph(f, g)
  opts = check_opts(f, opts, {"mode"})
  if opts.mode ~= nil and type(opts.mode) ~= "string" then
    fail(f, "option mode must be a string, got %s", type(opts.mode))
  end
  local _, outs = call(f, "graph.degrees", gargs({mode = opts.mode}, g))
  return outs
end

-- hist: int64 view, hist(k) the vertices of degree k, k = 0..max degree
-- (networkx.degree_histogram as a view); {mode = "total"|"in"|"out"}
-- for a directed graph (default "total", NetworkX's G.degree)
function graph.degree_histogram(g, opts)
  local outs = degree_call("degree_histogram", g, opts)
  return outs.hist
end

-- {n, min, max, mean, stddev, median} of the degrees (stddev: the
-- population's, numpy.std; median: numpy.median); only n = 0 when the
-- graph has no vertices; mode as degree_histogram
function graph.degree_stats(g, opts)
  local outs = degree_call("degree_stats", g, opts)
  local st = {n = g._nv}
  if g._nv > 0 then
    st.min, st.max = math.tointeger(outs.min), math.tointeger(outs.max)
    st.mean, st.stddev, st.median = outs.mean, outs.stddev, outs.median
  end
  return st
end

-- -- structural and community algorithms (kernels/graph/kcore.c, scc.c,
-- louvain.c, lpa.c) -----------------------------------------------------------
-- Labels are canonical: 0..n-1 numbered in the order of each class's
-- smallest vertex (vertex 0 is in class 0), so equal partitions give
-- equal label views.

-- core (int32 view): the core number of each vertex (networkx.core_number);
-- self-loops are left out of the degrees (networkx refuses them); a
-- directed graph's degree is in- plus out-degree, its arcs taken both ways
function graph.kcore(g)
  local f = "kcore"
  check_graph(f, g)
  local _, outs = call(f, "graph.kcore", gargs({}, g))
  return outs.core
end

-- labels (int64 view), n: strongly connected components of a directed
-- graph; an undirected graph's strong components are its connected
-- components (each edge goes both ways), so there it equals graph.wcc
function graph.scc(g)
  local f = "scc"
  check_graph(f, g)
  local _, outs = call(f, "graph.scc", gargs({}, g))
  return outs.labels, math.tointeger(outs.n)
end

-- labels (int64 view), n: weakly connected components (a directed graph's
-- arcs taken both ways; connected components of an undirected one)
function graph.wcc(g)
  local f = "wcc"
  check_graph(f, g)
  local _, outs = call(f, "graph.wcc", gargs({}, g))
  return outs.labels, math.tointeger(outs.n)
end

-- comm (int32 view, 0..k-1), q: Louvain communities and their modularity
-- (networkx.community.modularity with the same resolution); the weights
-- count when the graph has them (negative or non-finite ones are
-- refused); a directed graph is refused. The same result for a seed on
-- every back end and thread count. A graph without edges: every vertex
-- its own community, q = 0.
function graph.louvain(g, opts)
  local f = "louvain"
  check_graph(f, g)
  opts = check_opts(f, opts, {"seed", "resolution"})
  local seed = opts.seed or 1
  if math.type(seed) ~= "integer" then
    fail(f, "option seed must be an integer, got %s", tostring(seed))
  end
  local res = opts.resolution
  if res ~= nil and type(res) ~= "number" then
    fail(f, "option resolution must be a number, got %s", type(res))
  end
  if res ~= nil and not (res > 0 and res < math.huge) then
    fail(f, "option resolution must be a positive finite number, got %s",
         res ~= res and "nan" or tostring(res))
  end
  local _, outs = call(f, "graph.louvain", gargs({seed = seed, resolution = res}, g))
  return outs.comm, outs.q
end

-- labels (int64 view), n: communities by semi-synchronous label
-- propagation (networkx's label_propagation_communities); at the end
-- every vertex's label is among the most frequent of its neighbours'
-- labels; the same result for a seed everywhere; a directed graph is
-- refused
function graph.label_propagation(g, opts)
  local f = "label_propagation"
  check_graph(f, g)
  opts = check_opts(f, opts, {"seed"})
  local seed = opts.seed or 1
  if math.type(seed) ~= "integer" then
    fail(f, "option seed must be an integer, got %s", tostring(seed))
  end
  local _, outs = call(f, "graph.label_propagation", gargs({seed = seed}, g))
  return outs.labels, math.tointeger(outs.n)
end
-- graphs as values (subgraphs, filters, reversed and combined graphs,
-- properties) and files (graph.read, graph.write, graph.write_csv):
-- stdlib/speck/graph_values.lua
require("speck.graph_values")(graph, {G = G, make = make, gargs = gargs,
                                      check_graph = check_graph})

-- -- shortest paths and betweenness (kernels/graph/sssp.c, bc.c) ---------------
-- Integer weights: from_edges given an int32 or int64 weights view keeps
-- the graph's weights in float64 (exact below 2^53, what every other
-- algorithm reads) and remembers the integer dtype in g._int_weights;
-- sssp then reads an integer copy of the arc weights (made once, kept in
-- g._iweights) and gives int64 distances.
local SSSP_ALG = {delta = true, bellman_ford = true}

-- dist [, pred] = sssp(g, source [, {delta, predecessors, algorithm}])
function graph.sssp(g, source, opts)
  local f = "sssp"
  check_graph(f, g)
  opts = check_opts(f, opts, {"delta", "predecessors", "algorithm"})
  if math.type(source) ~= "integer" then
    fail(f, "source must be a vertex (an integer), got %s",
         math.type(source) == "float" and "the float " .. tostring(source) or type(source))
  end
  check_bool(f, "predecessors", opts.predecessors)
  if opts.delta ~= nil and type(opts.delta) ~= "number" then
    fail(f, "option delta must be a number, got %s", type(opts.delta))
  end
  if opts.algorithm ~= nil and not SSSP_ALG[opts.algorithm] then
    fail(f, "algorithm must be \"delta\" or \"bellman_ford\", got %s", tostring(opts.algorithm))
  end
  if opts.delta ~= nil and opts.algorithm == "bellman_ford" then
    fail(f, "option delta is for algorithm \"delta\" (Bellman-Ford has no buckets)")
  end
  local args = gargs({source = source, delta = opts.delta, algorithm = opts.algorithm,
                      predecessors = opts.predecessors == true}, g)
  if g._int_weights and g.weights then
    g._iweights = g._iweights or weights_as(g.weights, g._int_weights)
    args.G_weights = g._iweights
  end
  local _, outs = call(f, "graph.sssp", args)
  if opts.predecessors then return outs.dist, outs.pred end
  return outs.dist
end

-- bc = betweenness(g [, {sources = list_or_view, normalized = true}])
function graph.betweenness(g, opts)
  local f = "betweenness"
  check_graph(f, g)
  opts = check_opts(f, opts, {"sources", "normalized"})
  check_bool(f, "normalized", opts.normalized)
  local src = opts.sources
  if src ~= nil then
    if type(src) == "table" and #src == 0 and next(src) == nil then
      fail(f, "sources is empty (leave it out for every vertex)")
    end
    src = id_view(f, "sources", src)
  end
  local _, outs = call(f, "graph.betweenness", gargs({sources = src,
    normalized = opts.normalized ~= false}, g))
  return outs.bc
end

return graph
