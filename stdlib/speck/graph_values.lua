-- speck/graph_values.lua: graphs as values and real files, the part of
-- speck.graph (stdlib/speck/graph.lua installs it) that makes new graphs
-- from graphs -- g:subgraph, g:filter_edges, graph.largest_component,
-- g:reverse, g:to_undirected, g:symmetrize, graph.union -- keeps named
-- vertex and edge properties following them, and reads and writes files:
-- graph.read (SNAP / edge lists / CSV / TSV, plain or gzip, vertex names),
-- graph.write and graph.write_csv. Every step is one call into the C
-- library (kernels/graph/gvalues.c, gread.c, gio.c, gnames.c); the
-- compactions run as dialect kernels on the graph's back end.
--
-- Properties: g:set_vertex_property(name, view) (a rank-1 view of nv
-- entries in the graph's space) and g:set_edge_property(name, view) (one
-- entry per arc, in the order of g.colidx: an undirected edge has two)
-- are kept by name; a subgraph gathers them through its renumbering, a
-- filter through the arcs it keeps; reverse / to_undirected / symmetrize
-- keep the vertex properties (the same views) and drop the edge ones
-- (their arcs are rebuilt). Vertex names (graph.read with names = true,
-- g:set_names) follow every one of these; graph.union keeps no
-- properties and no names.
local speck = require "speck"
local sparse = require "speck.sparse"
local sio = speck.io

local user_level, fail, call = require("speck.raise")("speck.graph.")
local check_options = require "speck.opts"
local function check_opts(fname, opts, known)
  local o = check_options("speck.graph." .. fname, opts, known, user_level())
  return o
end

return function(graph, I)
  local G, make, gargs, check_graph = I.G, I.make, I.gargs, I.check_graph

  local function check_bool(fname, what, x)
    if x ~= nil and type(x) ~= "boolean" then
      fail(fname, "option %s must be a boolean, got %s", what, type(x))
    end
  end

  -- a new graph from a call's outputs with 'g''s names and vertex
  -- properties (same vertex set) unless told otherwise
  local function derive(g, nv, outs, directed, same_vertices)
    local h = make(nv, outs, directed)
    if same_vertices then
      h._names, h._orig = g._names, g._orig
      h._name_list, h._name_ids = g._name_list, g._name_ids
      if g._vprops then
        h._vprops = {}
        for k, v in pairs(g._vprops) do h._vprops[k] = v end
      end
    end
    return h
  end

  -- -- properties ---------------------------------------------------------------
  local function check_name(f, name)
    if type(name) ~= "string" or name == "" then
      fail(f, "name must be a non-empty string, got %s", type(name) == "string" and "''" or type(name))
    end
  end

  local function check_prop(f, g, what, view, n)
    if type(view) ~= "userdata" then fail(f, "%s must be a rank-1 view, got %s", what, type(view)) end
    if view:rank() ~= 1 or view:extent(0) ~= n then
      fail(f, "%s (view '%s', %s[%s]) must be a rank-1 view of %d entries (%s)", what,
           view:label(), view:dtype(), table.concat(view:extents(), ","), n,
           f == "set_vertex_property" and "one per vertex" or "one per arc, as g.colidx")
    end
    if view:space() ~= g:space() then
      fail(f, "%s (view '%s') is in space %s, the graph in %s", what, view:label(), view:space(), g:space())
    end
  end

  function G:set_vertex_property(name, view)
    local f = "set_vertex_property"
    check_name(f, name)
    if view ~= nil then check_prop(f, self, "the property", view, self._nv) end
    self._vprops = self._vprops or {}
    self._vprops[name] = view
    return self
  end
  function G:vertex_property(name) return self._vprops and self._vprops[name] end
  function G:set_edge_property(name, view)
    local f = "set_edge_property"
    check_name(f, name)
    if view ~= nil then check_prop(f, self, "the property", view, self:num_arcs()) end
    self._eprops = self._eprops or {}
    self._eprops[name] = view
    return self
  end
  function G:edge_property(name) return self._eprops and self._eprops[name] end
  local function names_of(t)
    local r = {}
    for k in pairs(t or {}) do r[#r + 1] = k end
    table.sort(r)
    return r
  end
  function G:vertex_properties() return names_of(self._vprops) end
  function G:edge_properties() return names_of(self._eprops) end

  -- -- names ------------------------------------------------------------------------
  function G:has_names() return self._names ~= nil end
  local function name_list(g)
    if not g._name_list then g._name_list = sio.strings(g._names.bytes, g._names.off) end
    return g._name_list
  end
  function G:name(v)
    if math.type(v) ~= "integer" or v < 0 or v >= self._nv then
      fail("name", "vertex %s is not in 0..%d", tostring(v), self._nv - 1)
    end
    if not self._names then return tostring(v) end
    return name_list(self)[v + 1]
  end
  -- g:set_names(list): name the vertices (a Lua list of nv strings,
  -- names[v + 1] for vertex v); a name given twice -- or two spellings of
  -- one integer, "7" and "07" -- would be two vertices with one name, and
  -- is refused. nil removes the names. Returns g.
  function G:set_names(list)
    local f = "set_names"
    if list == nil then
      self._names, self._name_list, self._name_ids = nil, nil, nil
      return self
    end
    if type(list) ~= "table" then fail(f, "names must be a Lua list of strings, got %s", type(list)) end
    if #list ~= self._nv then fail(f, "%d names for %d vertices", #list, self._nv) end
    local seen = {}
    for i = 1, #list do
      local s = list[i]
      if type(s) ~= "string" or s == "" then
        fail(f, "names[%d] must be a non-empty string, got %s", i, type(s) == "string" and "''" or type(s))
      end
      local k = s:match("^[+-]?%d+$") and math.tointeger(tonumber(s)) or s
      if seen[k] then
        fail(f, "names[%d] = '%s' and names[%d] = '%s' name one vertex: two vertices with one name",
             seen[k], list[seen[k]], i, s)
      end
      seen[k] = i
    end
    local bytes, off = sio.pack_strings(list)
    self._names, self._name_list, self._name_ids = {bytes = bytes, off = off}, nil, nil
    return self
  end
  -- all names as a Lua list (1-based: names[v + 1]); nil without names
  function G:names()
    if not self._names then return nil end
    return name_list(self)
  end
  -- the vertex named 'name' (a string, or an integer: integer names are
  -- compared as numbers); nil when there is none. Without names, a vertex
  -- id in range is its own name.
  function G:id(name)
    local f = "id"
    if type(name) ~= "string" and math.type(name) ~= "integer" then
      fail(f, "name must be a string or an integer, got %s", type(name))
    end
    local key = math.tointeger(tonumber(name)) or name
    if type(name) == "string" and not name:match("^%s*[+-]?%d+%s*$") then key = name end
    if not self._names then
      if math.type(key) == "integer" and key >= 0 and key < self._nv then return key end
      return nil
    end
    if not self._name_ids then
      local ids = {}
      for i, s in ipairs(name_list(self)) do
        local k = s:match("^[+-]?%d+$") and math.tointeger(tonumber(s)) or s
        ids[k] = i - 1
      end
      self._name_ids = ids
    end
    return self._name_ids[key]
  end

  -- -- subgraphs -----------------------------------------------------------------------
  function G:original_id(v)
    if math.type(v) ~= "integer" or v < 0 or v >= self._nv then
      fail("original_id", "vertex %s is not in 0..%d", tostring(v), self._nv - 1)
    end
    if not self._orig then return v end
    if not self._orig_host then   -- one host copy, kept (the ids may live on a device)
      self._orig_host = speck.create_mirror_view_and_copy("host", self._orig)
    end
    return math.tointeger(self._orig_host(v))
  end
  -- the original ids as an int64 view (nil for a graph that is no subgraph)
  function G:original_ids() return self._orig end

  local function gather(f, src, idx)
    local _, o = call(f, "graph.gather", {src = src, idx = idx})
    return o.out
  end

  -- carry g's vertex properties, names and original ids through 'orig',
  -- its edge properties through 'amap' (nil: edges dropped)
  local function follow(f, g, h, orig, amap)
    if orig then
      for k, v in pairs(g._vprops or {}) do h:set_vertex_property(k, gather(f, v, orig)) end
      h._orig = g._orig and gather(f, g._orig, orig) or orig
      if g._names then
        local _, o = call(f, "graph.gather_names",
                          {names = g._names.bytes, name_offsets = g._names.off, idx = orig})
        h._names = {bytes = o.names, off = o.name_offsets}
      end
    end
    if amap then
      for k, v in pairs(g._eprops or {}) do h:set_edge_property(k, gather(f, v, amap)) end
    end
    return h
  end

  -- h = g:subgraph(vertices): the subgraph induced by 'vertices' (a Lua
  -- list or an int64 view of ids, repeats allowed; or an int32 view of
  -- nv entries, a mask: nonzero keeps), its vertices renumbered in
  -- increasing old id; h:original_id(v) the old id
  function G:subgraph(vertices)
    local f = "subgraph"
    local vs = vertices
    if type(vs) == "table" then
      for i = 1, #vs do
        local x = vs[i]
        if math.type(x) ~= "integer" then
          fail(f, "vertices[%d] must be an integer, got %s", i, tostring(x))
        end
        if x < 0 or x >= self._nv then
          fail(f, "vertices[%d] = %d is not a vertex (0..%d)", i, x, self._nv - 1)
        end
      end
      vs = #vs > 0 and speck.View.from(vs, "int64") or speck.View("vertices", "int64", 0)
    elseif type(vs) ~= "userdata" then
      fail(f, "vertices must be a Lua list of ids, an int64 view of ids or an int32 mask, got %s", type(vs))
    end
    local _, o = call(f, "graph.subgraph", gargs({vertices = vs}, self))
    local h = make(math.tointeger(o.nv), o, self._directed)
    return follow(f, self, h, o.orig, o.amap)
  end

  -- h = g:filter_edges(pred [, captures]): the arcs for which 'pred', an
  -- expression of the kernel dialect, is true (nonzero), compiled into
  -- the kernel. It sees u and v (the arc's ends; an undirected edge as
  -- u <= v, so both of its arcs are kept or dropped together), w (its
  -- weight, 1.0 on an unweighted graph) and e (the arc: an index of
  -- g.colidx, of an edge property); 'captures' adds views and numbers.
  -- The vertices stay (no renumbering).
  function G:filter_edges(pred, captures)
    local f = "filter_edges"
    if type(pred) ~= "string" then
      fail(f, "pred must be a string (an expression of the kernel dialect), got %s", type(pred))
    end
    if captures ~= nil and type(captures) ~= "table" then
      fail(f, "captures must be a table, got %s", type(captures))
    end
    local args = {}
    for k, x in pairs(captures or {}) do
      if type(k) ~= "string" or k:match("^G_") or k == "pred" or k == "directed" then
        fail(f, "capture '%s' is a name graph.filter_edges uses", tostring(k))
      end
      args[k] = x
    end
    args.pred = pred
    local _, o = call(f, "graph.filter_edges", gargs(args, self))
    local h = derive(self, self._nv, o, self._directed, true)
    return follow(f, self, h, nil, o.amap)
  end

  local function combine(f, g, h, opts)
    local t = gargs({nv = opts.nv, g_rev = opts.g_rev or false, h_rev = opts.h_rev or false,
                     directed = opts.directed, dedupe = opts.dedupe}, g)
    t.directed = opts.directed
    if h then
      t.H_rowptr, t.H_colidx, t.H_weights = h.rowptr, h.colidx, h.weights
    end
    local _, o = call(f, "graph.combine", t)
    return o
  end

  -- the arcs reversed (u -> v becomes v -> u); an undirected graph is its
  -- own reverse
  function G:reverse()
    if not self._directed then return derive(self, self._nv, gargs({}, self), false, true) end
    local o = combine("reverse", self, nil, {nv = self._nv, g_rev = true, directed = true, dedupe = false})
    return derive(self, self._nv, o, true, true)
  end

  -- an undirected graph with an edge {u, v} where g has u -> v or v -> u;
  -- where it has both with different weights, the weight of the arc from
  -- the larger vertex is kept (it comes later in row order)
  function G:to_undirected()
    if not self._directed then return derive(self, self._nv, gargs({}, self), false, true) end
    local o = combine("to_undirected", self, nil, {nv = self._nv, directed = false, dedupe = true})
    return derive(self, self._nv, o, false, true)
  end

  -- a directed graph with both u -> v and v -> u wherever g has either;
  -- an arc g has keeps its weight, an added one takes its reverse's
  function G:symmetrize()
    if not self._directed then return derive(self, self._nv, gargs({}, self), false, true) end
    local o = combine("symmetrize", self, self, {nv = self._nv, g_rev = true, directed = true, dedupe = true})
    return derive(self, self._nv, o, true, true)
  end

  -- graph.union(g1, g2): the edges of both over max(nv1, nv2) vertices
  -- (ids as they are), an edge of both once with g2's weight; both
  -- directed or both undirected, both weighted or both not
  function graph.union(g1, g2)
    local f = "union"
    check_graph(f, g1)
    check_graph(f, g2)
    if g1._directed ~= g2._directed then
      fail(f, "g1 is %s and g2 %s: make them alike first (g:to_undirected() or g:symmetrize())",
           g1._directed and "directed" or "undirected", g2._directed and "directed" or "undirected")
    end
    if (g1.weights ~= nil) ~= (g2.weights ~= nil) then
      fail(f, "g1 is %sweighted and g2 %sweighted: both or neither", g1.weights and "" or "not ",
           g2.weights and "" or "not ")
    end
    local nv = math.max(g1._nv, g2._nv)
    local o = combine(f, g1, g2, {nv = nv, directed = true, dedupe = true})
    return make(nv, o, g1._directed)
  end

  -- the largest weakly connected component as g:subgraph (ties: the one
  -- holding the smallest vertex); its size is h:num_vertices()
  function graph.largest_component(g)
    local f = "largest_component"
    check_graph(f, g)
    local _, c = call(f, "graph.connected_components", gargs({}, g))
    local _, m = call(f, "graph.largest_mask", {labels = c.labels})
    return g:subgraph(m.keep)
  end

  -- -- files ---------------------------------------------------------------------------
  local FORMATS = {snap = true, mm = true, edges = true, csv = true, tsv = true}
  local FMT_LIST = '"snap", "edges", "mm", "csv" or "tsv"'

  local function format_of(f, path, fmt)
    if fmt == nil then
      local p = path:gsub("%.gz$", "")
      if p:match("%.mtx$") or p:match("%.mm$") then return "mm" end
      if p:match("%.csv$") then return "csv" end
      if p:match("%.tsv$") then return "tsv" end
      return "snap"
    end
    if not FORMATS[fmt] then fail(f, "format must be %s, got %s", FMT_LIST, tostring(fmt)) end
    return fmt
  end

  -- a Matrix Market file through speck.sparse's reader (a pattern file
  -- has no weights)
  local function read_mm(f, path, opts)
    local directed = opts.directed == true
    local _, o = call(f, "sparse.read_mm", {path = path})
    local A = sparse._from_outs(o, math.tointeger(o.nrows), math.tointeger(o.ncols), true)
    if A:nrows() ~= A:ncols() then
      fail(f, "'%s' is a %s matrix: an adjacency matrix is square", path, A:shape())
    end
    local t = sparse._margs({directed = directed, dedupe = opts.dedupe ~= false,
                             self_loops = opts.self_loops == true}, "A", A)
    local fh = io.open(path, "rb")
    local banner = fh and fh:read("l") or ""
    if fh then fh:close() end
    if banner:lower():find("pattern", 1, true) then t.A_values = nil end
    local _, outs = call(f, "graph.from_csr", t)
    return make(A:nrows(), outs, directed)
  end

  -- read(path [, {format, directed, dedupe, self_loops, names, source,
  -- target, weight}])
  function graph.read(path, opts)
    local f = "read"
    opts = check_opts(f, opts, {"format", "directed", "dedupe", "self_loops", "names",
                                "source", "target", "weight"})
    if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
    for _, k in ipairs{"directed", "dedupe", "self_loops", "names"} do check_bool(f, k, opts[k]) end
    local fmt = format_of(f, path, opts.format)
    for _, k in ipairs{"source", "target", "weight"} do
      if opts[k] ~= nil then
        if fmt ~= "csv" and fmt ~= "tsv" then
          fail(f, "option %s names a column of a CSV or TSV file; '%s' is read as %s", k, path, fmt)
        end
        if type(opts[k]) ~= "string" then
          fail(f, "option %s must be a column's name (a string), got %s", k, type(opts[k]))
        end
      end
    end
    if fmt == "mm" then
      if path:match("%.gz$") then
        fail(f, "'%s': a compressed Matrix Market file is not read (gunzip it first)", path)
      end
      if opts.names then fail(f, "option names is for edge lists, not Matrix Market files") end
      return read_mm(f, path, opts)
    end
    local _, o = call(f, "graph.read_edges", {path = path, format = fmt,
      directed = opts.directed == true, dedupe = opts.dedupe ~= false,
      self_loops = opts.self_loops == true, names = opts.names == true,
      source = opts.source, target = opts.target, weight = opts.weight})
    local nv = math.tointeger(o.nv)
    local g = make(nv, o, opts.directed == true)
    -- integer weights (GAP's .wel, SNAP's weighted lists): sssp gives int64
    -- distances, as from_edges with an integer weights view
    if o.weighted == 2 then g._int_weights = "int64" end
    if o.names then g._names = {bytes = o.names, off = o.name_offsets} end
    local declared = math.tointeger(o.declared)
    if declared and declared >= 0 and nv > declared then
      g.note = ("'%s': ids reach %d, beyond the header's '# Nodes: %d' (a count, not a bound): read with %d vertices")
        :format(path, nv - 1, declared, nv)
    end
    return g
  end

  -- write(path, g [, format]): snap / edges ("# Nodes: N" kept, an
  -- undirected edge once), csv / tsv (a header "source,target[,weight]")
  -- or mm (the adjacency matrix, general); a graph with names is written
  -- by name (not mm); a path ending in .gz is written gzip-compressed
  -- (not mm)
  function graph.write(path, g, fmt)
    local f = "write"
    if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
    check_graph(f, g)
    fmt = format_of(f, path, fmt)
    if fmt == "mm" then
      if path:match("%.gz$") then
        fail(f, "'%s': a compressed Matrix Market file is not written (write it plain)", path)
      end
      call(f, "sparse.write_mm", sparse._margs({path = path,
        field = g.weights and "real" or "pattern"}, "A", g:matrix()))
      return
    end
    local t = gargs({path = path, format = fmt}, g)
    if g._names then t.names, t.name_offsets = g._names.bytes, g._names.off end
    call(f, "graph.write_edges", t)
  end

  -- write_csv(path, columns [, {graph = g, order = {...}, id = true}]): a
  -- CSV file with a line per vertex: "id" (unless id = false), the name
  -- when 'graph' has names, then the columns (a table name -> rank-1 view
  -- of numbers, one length), in 'order' or sorted by name; written whole
  -- or not at all
  function graph.write_csv(path, columns, opts)
    local f = "write_csv"
    opts = check_opts(f, opts, {"graph", "order", "id"})
    check_bool(f, "id", opts.id)
    if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
    if type(columns) ~= "table" then
      fail(f, "columns must be a table (heading -> view), got %s", type(columns))
    end
    local order = opts.order
    if order ~= nil then
      if type(order) ~= "table" then fail(f, "option order must be a list of headings, got %s", type(order)) end
      local seen = {}
      for i, k in ipairs(order) do
        if columns[k] == nil then fail(f, "order[%d] = %s is not a column", i, tostring(k)) end
        seen[k] = true
      end
      for k in pairs(columns) do
        if not seen[k] then fail(f, "column '%s' is missing from order", tostring(k)) end
      end
    else
      order = {}
      for k in pairs(columns) do
        if type(k) ~= "string" then fail(f, "column headings must be strings, got %s", type(k)) end
        order[#order + 1] = k
      end
      table.sort(order)
    end
    local t = {path = path, ncols = #order, id = opts.id ~= false}
    for i, k in ipairs(order) do
      local v = columns[k]
      if type(v) ~= "userdata" then fail(f, "column '%s' must be a view, got %s", k, type(v)) end
      if v:rank() ~= 1 then fail(f, "column '%s' (view '%s') must be rank 1, got rank %d", k, v:label(), v:rank()) end
      t["col" .. i], t["head" .. i] = v, k
    end
    local g = opts.graph
    if g ~= nil then
      check_graph(f, g)
      for _, k in ipairs(order) do
        if columns[k]:extent(0) ~= g._nv then
          fail(f, "column '%s' has %d entries, the graph %d vertices", k, columns[k]:extent(0), g._nv)
        end
      end
      if g._names then t.names, t.name_offsets = g._names.bytes, g._names.off end
    end
    call(f, "graph.write_csv", t)
  end
end
