local speck = require "speck"
local graph = require "speck.graph"
-- graph_values_spec.lua: graphs as values and real files
-- (stdlib/speck/graph_values.lua, kernels/graph/gvalues.c, gread.c,
-- gio.c, gnames.c, io/lines.c): g:subgraph (lists, int64 views, int32
-- masks), g:filter_edges, g:reverse, g:to_undirected, g:symmetrize,
-- graph.union and graph.largest_component against Lua references on
-- random graphs; vertex and edge properties and names following a
-- subgraph; graph.read with names, CSV / TSV columns and gzip (written
-- with /usr/bin/python3's gzip), round trips through graph.write and
-- graph.write_csv; every bad input with its exact message. tests/run.sh
-- runs it once per back end; on a GPU back end it checks through
-- speck.jit.stats() that the compactions ran as device kernels.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local SPACE = speck.info().default_space
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local function write_file(name, text)
  local path = DIR .. "/" .. name
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end
local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end
-- gzip 'text' into DIR/name with Python's gzip (cut: keep the first
-- 'cut' bytes; flip: xor the byte at 'flip' with 0xff)
local function write_gz(name, text, cut, flip)
  local raw = write_file(name .. ".raw", text)
  local path = DIR .. "/" .. name
  local code = ("import gzip; d = gzip.compress(open('%s', 'rb').read())"):format(raw)
  if cut then code = code .. ("; d = d[:%d]"):format(cut) end
  if flip then code = code .. ("; d = bytearray(d); d[%d] ^= 0xff; d[%d] ^= 0x55; d = bytes(d)"):format(flip, flip + 1) end
  code = code .. ("; open('%s', 'wb').write(d); print(len(d))"):format(path)
  local p = assert(io.popen(PY .. ' -c "' .. code .. '"', "r"))
  local n = tonumber(p:read("a"))
  p:close()
  return path, n
end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function host(v) return speck.create_mirror_view_and_copy("host", v):totable() end

local seed = 777
local function rint(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

local function random_graph(nv, ne, opts)
  local s, d, w = {}, {}, {}
  for i = 1, ne do
    s[i], d[i], w[i] = rint(nv), rint(nv), (rint(1000) + 1) / 8
  end
  opts = opts or {}
  return graph.from_edges(nv, s, d, {directed = opts.directed, weights = opts.weighted and w or nil})
end

-- the arcs of g as a set "u v" -> weight (1 unweighted)
local function arcs(g)
  local rp, ci = host(g.rowptr), host(g.colidx)
  local w = g.weights and host(g.weights)
  local t = {}
  for u = 0, g:num_vertices() - 1 do
    for k = rp[u + 1], rp[u + 2] - 1 do
      t[u .. " " .. ci[k + 1]] = w and w[k + 1] or 1
    end
  end
  return t
end
local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end
local function same_arcs(want, got)
  assert.equal(count(want), count(got))
  for k, w in pairs(want) do assert.equal(w, got[k], "arc " .. k) end
end
-- rows sorted (a CSR invariant every new graph keeps)
local function check_sorted(g)
  local rp, ci = host(g.rowptr), host(g.colidx)
  for u = 0, g:num_vertices() - 1 do
    for k = rp[u + 1] + 1, rp[u + 2] - 1 do assert.is_true(ci[k] < ci[k + 1]) end
  end
end

-- launches of library kernels whose label starts with 'prefix' (on a
-- GPU back end: those compiled for the device, not the host's
-- precompiled entries, which the cache lists too)
local function launches(prefix)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label:sub(1, #prefix) == prefix and (SPACE ~= "cuda" or k.tier ~= "precompiled") then
      s = s + k.launches
    end
  end
  return s
end

describe("speck.graph values on " .. SPACE, function()
  local cases = {
    {"undirected", {}}, {"undirected weighted", {weighted = true}},
    {"directed", {directed = true}}, {"directed weighted", {directed = true, weighted = true}},
  }

  it("g:subgraph from a list, an int64 view and an int32 mask, against a Lua reference", function()
    for _, c in ipairs(cases) do
      local g = random_graph(60, 240, c[2])
      local keep, list, mask = {}, {}, {}
      for v = 0, 59 do
        keep[v] = rint(3) > 0
        mask[v + 1] = keep[v] and 1 or 0
        if keep[v] then list[#list + 1] = v end
      end
      -- the reference: induced arcs, renumbered in increasing old id
      local new, want = {}, {}
      for i, v in ipairs(list) do new[v] = i - 1 end
      for k, w in pairs(arcs(g)) do
        local u, v = k:match("(%d+) (%d+)")
        u, v = tonumber(u), tonumber(v)
        if keep[u] and keep[v] then want[new[u] .. " " .. new[v]] = w end
      end
      local shuffled = {}
      for i = #list, 1, -1 do shuffled[#shuffled + 1] = list[i] end
      shuffled[#shuffled + 1] = list[1]   -- a repeat marks once
      for _, vs in ipairs{list, shuffled, speck.View.from(list, "int64"),
                          speck.View.from(mask, "int32")} do
        local h = g:subgraph(vs)
        assert.equal(#list, h:num_vertices())
        assert.equal(g:is_directed(), h:is_directed())
        same_arcs(want, arcs(h))
        check_sorted(h)
        for i, v in ipairs(list) do assert.equal(v, h:original_id(i - 1)) end
        assert.same(list, host(h:original_ids()))
      end
    end
  end)

  it("a subgraph of a subgraph keeps the first graph's ids; empty and full subgraphs", function()
    local g = random_graph(30, 90)
    local h = g:subgraph({3, 5, 7, 9, 11})
    local h2 = h:subgraph({1, 3})
    assert.same({5, 9}, host(h2:original_ids()))
    local e = g:subgraph({})
    assert.equal(0, e:num_vertices())
    assert.equal(0, e:num_edges())
    local all = {}
    for v = 0, 29 do all[#all + 1] = v end
    same_arcs(arcs(g), arcs(g:subgraph(all)))
  end)

  it("properties and names follow a subgraph and a filter", function()
    local g = random_graph(40, 160, {weighted = true})
    local vp, ep = {}, {}
    for v = 1, 40 do vp[v] = 10 * (v - 1) end
    for k = 1, g:num_arcs() do ep[k] = k - 1 end
    g:set_vertex_property("x", speck.View.from(vp, "int64"))
    g:set_edge_property("arc", speck.View.from(ep, "int64"))
    assert.same({"x"}, g:vertex_properties())
    assert.same({"arc"}, g:edge_properties())
    local h = g:subgraph({2, 4, 8, 16, 32, 33, 34, 35})
    local hx = host(h:vertex_property("x"))
    for v = 0, h:num_vertices() - 1 do assert.equal(10 * h:original_id(v), hx[v + 1]) end
    -- each new arc's property is the old arc's: same ends, same weight
    local grp, gci, gw = host(g.rowptr), host(g.colidx), host(g.weights)
    local hrp, hci, hw = host(h.rowptr), host(h.colidx), host(h.weights)
    local harc = host(h:edge_property("arc"))
    for u = 0, h:num_vertices() - 1 do
      for k = hrp[u + 1], hrp[u + 2] - 1 do
        local old = harc[k + 1]
        assert.equal(hw[k + 1], gw[old + 1])
        assert.equal(h:original_id(hci[k + 1]), gci[old + 1])
        assert.is_true(old >= grp[h:original_id(u) + 1] and old < grp[h:original_id(u) + 2])
      end
    end
    local f = g:filter_edges("w > 60.0")
    assert.equal(g:vertex_property("x"), f:vertex_property("x"))
    local farc, fw = host(f:edge_property("arc")), host(f.weights)
    for k = 1, f:num_arcs() do assert.equal(fw[k], gw[farc[k] + 1]) end
  end)

  it("g:filter_edges against a Lua reference (u, v, w, e; captures; undirected edges whole)", function()
    for _, c in ipairs(cases) do
      local g = random_graph(50, 300, c[2])
      local lim = speck.View.from({40.0}, "float64")
      local f = g:filter_edges("(u + v) % 3 != 0 && w <= lim(0) && e >= 0", {lim = lim})
      local want = {}
      for k, w in pairs(arcs(g)) do
        local a, b = k:match("(%d+) (%d+)")
        a, b = tonumber(a), tonumber(b)
        if (a + b) % 3 ~= 0 and w <= 40.0 then want[k] = w end
      end
      same_arcs(want, arcs(f))
      check_sorted(f)
      assert.equal(g:num_vertices(), f:num_vertices())
      -- u <= v on an undirected graph: an asymmetric predicate keeps or drops both arcs
      local lo = g:filter_edges("u < v")
      local want2 = {}
      for k, w in pairs(arcs(g)) do
        local a, b = k:match("(%d+) (%d+)")
        a, b = tonumber(a), tonumber(b)
        if (g:is_directed() and a < b) or (not g:is_directed() and a ~= b) then want2[k] = w end
      end
      same_arcs(want2, arcs(lo))
    end
  end)

  it("reverse, to_undirected, symmetrize and union against Lua references", function()
    local d = random_graph(40, 200, {directed = true, weighted = true})
    local A = arcs(d)
    local rev, und, sym = {}, {}, {}
    for k, w in pairs(A) do
      local u, v = k:match("(%d+) (%d+)")
      rev[v .. " " .. u] = w
      sym[k] = w
    end
    for k, w in pairs(A) do
      local u, v = k:match("(%d+) (%d+)")
      if not A[v .. " " .. u] then sym[v .. " " .. u] = w end
      -- to_undirected: both ways, the weight of the arc from the larger vertex
      local iu, iv = tonumber(u), tonumber(v)
      local back = A[v .. " " .. u]
      local keep = back and (iv > iu and back or w) or w
      und[k], und[v .. " " .. u] = keep, keep
    end
    local r = d:reverse()
    assert.is_true(r:is_directed())
    same_arcs(rev, arcs(r))
    check_sorted(r)
    local s = d:symmetrize()
    assert.is_true(s:is_directed())
    same_arcs(sym, arcs(s))
    check_sorted(s)
    local u = d:to_undirected()
    assert.is_false(u:is_directed())
    same_arcs(und, arcs(u))
    check_sorted(u)
    -- undirected graphs are their own reverse / symmetrization
    same_arcs(arcs(u), arcs(u:reverse()))
    same_arcs(arcs(u), arcs(u:symmetrize()))
    -- union: max(nv) vertices, common arcs once with g2's weight
    local g1 = random_graph(30, 80, {weighted = true})
    local g2 = random_graph(35, 80, {weighted = true})
    local want = arcs(g1)
    for k, w in pairs(arcs(g2)) do want[k] = w end
    local un = graph.union(g1, g2)
    assert.equal(35, un:num_vertices())
    assert.is_false(un:is_directed())
    same_arcs(want, arcs(un))
    check_sorted(un)
  end)

  it("graph.largest_component is the largest weakly connected component as a subgraph", function()
    -- components of 5 (0..4), 7 (5..11, directed chain) and 3 vertices
    local s = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 13}
    local d = {1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14}
    for _, dir in ipairs{false, true} do
      local g = graph.from_edges(16, s, d, {directed = dir})
      local h = graph.largest_component(g)
      assert.equal(7, h:num_vertices())
      assert.same({5, 6, 7, 8, 9, 10, 11}, host(h:original_ids()))
      assert.equal(6, h:num_edges())
    end
    -- ties: the component of the smallest vertex
    local t = graph.largest_component(graph.from_edges(4, {2, 0}, {3, 1}))
    assert.same({0, 1}, host(t:original_ids()))
    assert.equal(0, graph.largest_component(graph.from_edges(0, {}, {})):num_vertices())
    -- a random graph: the Lua count of the largest component
    local g = random_graph(200, 150)
    local labels = host((graph.connected_components(g)))
    local n = {}
    for _, l in ipairs(labels) do n[l] = (n[l] or 0) + 1 end
    local best = 0
    for _, c in pairs(n) do best = math.max(best, c) end
    assert.equal(best, graph.largest_component(g):num_vertices())
  end)

  it("runs the compactions as kernels of the back end", function()
    local before = launches("graph.sub_")
    local g = random_graph(100, 400)
    g:subgraph({1, 2, 3})
    g:filter_edges("u + v > 50")
    graph.largest_component(g)
    assert.is_true(launches("graph.sub_") - before >= 8)
    assert.is_true(launches("graph.filter_") >= 2)
    assert.is_true(launches("graph.lc_") >= 3)
    if SPACE == "cuda" then
      -- no launch of these labels ran host code
      for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
        if k.label:match("^graph%.sub_") or k.label:match("^graph%.filter_") or
           k.label:match("^graph%.lc_") then
          assert.is_true(k.tier ~= "precompiled" or k.launches == 0, k.label)
        end
      end
    end
  end)

  it("refuses bad subgraph vertices, predicates and combinations", function()
    local g = random_graph(6, 10)
    assert.equal("speck.graph.subgraph: the mask (view 'm') has 5 entries, the graph 6 vertices (an int32 view is a mask of length nv)",
                 err_of(g.subgraph, g, speck.View("m", "int32", 5)))
    assert.equal("speck.graph.subgraph: vertices (view 'f') is float64: an int64 view holds vertex ids, an int32 view of length 6 is a mask",
                 err_of(g.subgraph, g, speck.View("f", "float64", 6)))
    assert.equal("speck.graph.subgraph: vertices[2] = 9 is not a vertex (0..5)", err_of(g.subgraph, g, {0, 9}))
    assert.equal("speck.graph.subgraph: vertices[1] must be an integer, got 0.5", err_of(g.subgraph, g, {0.5}))
    assert.equal("speck.graph.subgraph: vertices(1) = -1 is not a vertex (0..5)",
                 err_of(g.subgraph, g, speck.View.from({2, -1}, "int64")))
    assert.equal("speck.graph.subgraph: vertices must be a Lua list of ids, an int64 view of ids or an int32 mask, got string",
                 err_of(g.subgraph, g, "all"))
    -- the compiler's own words differ by back end (libtcc, NVRTC); the line is the predicate's
    local e1 = err_of(g.filter_edges, g, "w >> > 2")
    assert.truthy(e1:find("^speck%.graph%.filter_edges: the predicate does not compile:\npredicate line 1: error: "), e1)
    -- an expression cut short is found at its end: still the predicate's last line
    local e3 = err_of(g.filter_edges, g, "w >")
    assert.truthy(e3:find("^speck%.graph%.filter_edges: the predicate does not compile:\npredicate line 1: error: "), e3)
    local e2 = err_of(g.filter_edges, g, "w > 1 &&\n  foo(3)")
    assert.truthy(e2:find("^speck%.graph%.filter_edges: the predicate does not compile:\npredicate line 2: error: 'foo' "), e2)
    if SPACE ~= "cuda" then
      assert.equal("speck.graph.filter_edges: the predicate does not compile:\npredicate line 2: error: 'foo' is not a capture", e2)
    end
    assert.equal("speck.graph.filter_edges: pred must be a string (an expression of the kernel dialect), got number",
                 err_of(g.filter_edges, g, 1))
    assert.equal("speck.graph.filter_edges: capture 'rowptr' is a name the predicate's kernel uses",
                 err_of(g.filter_edges, g, "u < v", {rowptr = 1}))
    local d = random_graph(6, 10, {directed = true})
    assert.equal("speck.graph.union: g1 is undirected and g2 directed: make them alike first (g:to_undirected() or g:symmetrize())",
                 err_of(graph.union, g, d))
    assert.equal("speck.graph.union: g1 is not weighted and g2 weighted: both or neither",
                 err_of(graph.union, g, random_graph(6, 10, {weighted = true})))
    assert.equal("speck.graph.set_vertex_property: the property (view 'p', float64[5]) must be a rank-1 view of 6 entries (one per vertex)",
                 err_of(g.set_vertex_property, g, "p", speck.View("p", "float64", 5)))
    -- the VM is usable after each
    assert.equal(6, g:subgraph({0, 1, 2, 3, 4, 5}):num_vertices())
  end)
end)

describe("speck.graph files on " .. SPACE, function()
  it("reads names (order of first appearance) and writes them back", function()
    local path = write_file("names.txt", "# a named list\nalice bob 1.5\nbob carol 2\n42 alice 0.5\n1000000000000 carol 3\n")
    local g = graph.read(path, {names = true})
    assert.equal(5, g:num_vertices())
    assert.is_true(g:has_names())
    assert.same({"alice", "bob", "carol", "42", "1000000000000"}, g:names())
    assert.equal("carol", g:name(2))
    assert.equal(1, g:id("bob"))
    assert.equal(3, g:id(42))
    assert.equal(3, g:id("42"))
    assert.equal(4, g:id(1000000000000))
    assert.is_nil(g:id("dave"))
    local A = arcs(g)
    assert.equal(1.5, A["0 1"])
    assert.equal(0.5, A["3 0"])
    -- the names follow a subgraph, and the file is written by name
    local h = g:subgraph({1, 2, 4})
    assert.same({"bob", "carol", "1000000000000"}, h:names())
    local out = DIR .. "/names_out.txt"
    graph.write(out, g, "edges")
    local g2 = graph.read(out, {names = true})
    local byname = {}
    for k, w in pairs(arcs(g)) do
      local u, v = k:match("(%d+) (%d+)")
      byname[g:name(tonumber(u)) .. " " .. g:name(tonumber(v))] = w
    end
    local got = {}
    for k, w in pairs(arcs(g2)) do
      local u, v = k:match("(%d+) (%d+)")
      got[g2:name(tonumber(u)) .. " " .. g2:name(tonumber(v))] = w
    end
    same_arcs(byname, got)
  end)

  it("refuses two names of one vertex and empty names", function()
    local p = write_file("dup.txt", "7 8\n9 07\n")
    assert.equal("speck.graph.read: '" .. p .. "' line 2: names '7' (line 1) and '07' (line 2) are the same integer 7: two names of one vertex (integer names are compared as numbers)",
                 err_of(graph.read, p, {names = true}))
    local c = write_file("empty_name.csv", "a,b\nx,\n")
    assert.equal("speck.graph.read: '" .. c .. "' line 2: an empty name (a vertex's name is a token of at least one character)",
                 err_of(graph.read, c, {names = true}))
  end)

  it("g:set_names names a graph's vertices; a name of two vertices is refused", function()
    local g = graph.grid2d(2, 2)
    g:set_names({"nw", "ne", "sw", "se"})
    assert.equal("se", g:name(3))
    assert.equal(1, g:id("ne"))
    assert.same({"ne", "se"}, g:subgraph({1, 3}):names())
    local out = DIR .. "/grid.csv"
    graph.write(out, g)
    assert.equal("source,target\nnw,ne\nnw,sw\nne,se\nsw,se\n", read_file(out))
    assert.equal("speck.graph.set_names: names[3] = 'a' and names[4] = 'a' name one vertex: two vertices with one name",
                 err_of(g.set_names, g, {"b", "c", "a", "a"}))
    assert.equal("speck.graph.set_names: names[1] = '7' and names[2] = '07' name one vertex: two vertices with one name",
                 err_of(g.set_names, g, {"7", "07", "x", "y"}))
    assert.equal("speck.graph.set_names: 3 names for 4 vertices", err_of(g.set_names, g, {"a", "b", "c"}))
    assert.equal("speck.graph.set_names: names[2] must be a non-empty string, got number",
                 err_of(g.set_names, g, {"a", 2, "c", "d"}))
    -- the names refused left the old ones
    assert.equal("se", g:name(3))
    assert.is_false(g:set_names(nil):has_names())
  end)

  it("keeps integer ids as the file has them; a SNAP count below the largest id is a note", function()
    local p = write_file("as.txt", "# Nodes: 4 Edges: 2\n0 1\n2 9\n")
    local g = graph.read(p)
    assert.equal(10, g:num_vertices())
    assert.equal("'" .. p .. "': ids reach 9, beyond the header's '# Nodes: 4' (a count, not a bound): read with 10 vertices", g.note)
    assert.is_nil(graph.read(write_file("ok.txt", "# Nodes: 12\n0 1\n")).note)
  end)

  it("reads CSV and TSV by header columns", function()
    local c = write_file("e.csv", "# comment\nweight,from,to\n2.5,a,b\n1,\"c, d\",a\n  4 , b , \"c, d\"\n")
    local g = graph.read(c, {names = true, source = "from", target = "to", weight = "weight", directed = true})
    assert.same({"a", "b", "c, d"}, g:names())
    same_arcs({["0 1"] = 2.5, ["2 0"] = 1, ["1 2"] = 4}, arcs(g))
    -- a byte order mark and Windows line ends
    local bom = write_file("bom.csv", "\xEF\xBB\xBFsrc,dst\r\nx,y\r\n")
    assert.same({"x", "y"}, graph.read(bom, {names = true, source = "src", target = "dst"}):names())
    local t = write_file("e.tsv", "s\tt\n0\t1\n1\t2\n")
    local h = graph.read(t)
    assert.equal(3, h:num_vertices())
    assert.is_false(h:is_weighted())
    same_arcs({["0 1"] = 1, ["1 0"] = 1, ["1 2"] = 1, ["2 1"] = 1}, arcs(h))
    -- format given: any extension
    local x = write_file("e.dat", "u;v\n")
    assert.equal(0, graph.read(write_file("h.txt", "u,v\n"), {format = "csv"}):num_vertices())
    assert.truthy(x)
    -- a CSV round trip (names quoted where they must be)
    local out = DIR .. "/rt.csv"
    graph.write(out, g)
    assert.equal("source,target,weight\na,b,2.5\nb,\"c, d\",4\n\"c, d\",a,1\n", read_file(out))
    local g3 = graph.read(out, {names = true, weight = "weight", directed = true})
    assert.same({"a", "b", "c, d"}, g3:names())
    same_arcs(arcs(g), arcs(g3))
  end)

  it("refuses CSV files with a missing column, a header naming no column, no header", function()
    local c = write_file("bad.csv", "src,dst\n1,2\n3\n")
    assert.equal("speck.graph.read: '" .. c .. "' line 3: 1 field, but column 'dst' (the target) is field 2",
                 err_of(graph.read, c, {source = "src", target = "dst"}))
    assert.equal("speck.graph.read: '" .. c .. "' line 1: the header has no column 'wt' (the weight column; the header names 'src', 'dst')",
                 err_of(graph.read, c, {weight = "wt"}))
    local e = write_file("none.csv", "# only a comment\n")
    assert.equal("speck.graph.read: '" .. e .. "' has no header line (a CSV file's first line names its columns)",
                 err_of(graph.read, e))
    local one = write_file("one.csv", "only\n1\n")
    assert.equal("speck.graph.read: '" .. one .. "' line 1: the header names 1 column: the source and the target are its first two unless chosen",
                 err_of(graph.read, one))
    local short = write_file("short.csv", "a,b,c\n1,2\n3\n")
    assert.equal("speck.graph.read: '" .. short .. "' line 3: 1 field, but column 'b' (the target) is field 2",
                 err_of(graph.read, short))
    local q = write_file("quote.csv", "a,b\n\"x,y\n")
    assert.equal("speck.graph.read: '" .. q .. "' line 2: a quoted field is not closed on its line",
                 err_of(graph.read, q))
    assert.equal("speck.graph.read: option source names a column of a CSV or TSV file; 'x.txt' is read as snap",
                 err_of(graph.read, "x.txt", {source = "a"}))
    assert.equal("speck.graph.read: option weight must be a column's name (a string), got number",
                 err_of(graph.read, "x.csv", {weight = 3}))
  end)

  it("reads gzip-compressed files directly, the same graph as the plain file", function()
    local lines = {"# Nodes: 300"}
    for i = 1, 3000 do lines[#lines + 1] = rint(300) .. " " .. rint(300) .. " " .. (rint(50) + 1) end
    local text = table.concat(lines, "\n") .. "\n"
    local plain = write_file("big.txt", text)
    local gz = write_gz("big.txt.gz", text)
    local a, b = graph.read(plain), graph.read(gz)
    assert.equal(a:num_vertices(), b:num_vertices())
    same_arcs(arcs(a), arcs(b))
    -- two members concatenated are one stream (as gzip -d reads them)
    local m1 = write_gz("m1.gz", "0 1\n")
    local m2 = write_gz("m2.gz", "1 2\n")
    local cat = DIR .. "/cat.txt.gz"
    os.execute(("cat '%s' '%s' > '%s'"):format(m1, m2, cat))
    assert.equal(2, graph.read(cat):num_edges())
    -- names and CSV through gzip
    local nz = write_gz("n.csv.gz", "from,to\nx,y\ny,z\n")
    local g = graph.read(nz, {names = true})
    assert.same({"x", "y", "z"}, g:names())
  end)

  it("refuses truncated and corrupt gzip files, naming the file and the byte offset", function()
    local lines = {}
    for i = 1, 20000 do lines[i] = i .. " " .. (i + 1) end
    local text = table.concat(lines, "\n") .. "\n"
    local _, full = write_gz("full.gz", text)
    local cut = full // 2
    local t = write_gz("trunc.txt.gz", text, cut)
    assert.equal("speck.graph.read: '" .. t .. "': the gzip stream ends early at byte " .. cut .. ", the end of the file (truncated?)",
                 err_of(graph.read, t))
    local c = write_gz("corrupt.txt.gz", text, nil, 100)
    local e = err_of(graph.read, c)
    local at = tonumber(e:match("corrupt gzip data at byte (%d+)"))
    assert.truthy(at, e)
    assert.is_true(at >= 100 and at <= 140, e)
    assert.equal("speck.graph.read: '" .. c .. "': corrupt gzip data at byte " .. at, e:match("^(.-) %("))
    -- a stream cut inside its header, and the VM still reads
    local h = write_gz("head.txt.gz", text, 5)
    assert.equal("speck.graph.read: '" .. h .. "': the gzip stream ends early at byte 5, the end of the file (truncated?)",
                 err_of(graph.read, h))
    assert.equal(3, graph.read((write_gz("fine.gz", "0 1\n1 2\n"))):num_vertices())
    assert.equal("speck.graph.read: 'm.mtx.gz': a compressed Matrix Market file is not read (gunzip it first)",
                 err_of(graph.read, "m.mtx.gz"))
    assert.equal("speck.graph.write: 'out.mtx.gz': a compressed Matrix Market file is not " ..
                 "written (write it plain)", err_of(graph.write, "out.mtx.gz", graph.grid2d(2, 2)))
  end)

  it("writes gzip-compressed edge lists and CSV where the path ends in .gz", function()
    -- a weighted graph with names, through a .txt.gz and a .csv.gz, read
    -- back the same; the files are gzip as Python's gzip reads them
    local g = graph.read(write_file("wz.csv", "s,t,w\nann,bob,1.5\nbob,cy,2\ncy,ann,0.25\n" ..
                                     "dee,ann,4\n"), {names = true})
    for _, name in ipairs{"rt.txt.gz", "rt.csv.gz", "rt.tsv.gz"} do
      local p = DIR .. "/" .. name
      graph.write(p, g)
      local back = graph.read(p, {names = true})
      assert.equal(g:num_vertices(), back:num_vertices(), name)
      assert.equal(g:num_edges(), back:num_edges(), name)
      -- the same edges by name: both written plain
      graph.write(DIR .. "/a.txt", g)
      graph.write(DIR .. "/b.txt", back)
      assert.equal(read_file(DIR .. "/a.txt"), read_file(DIR .. "/b.txt"), name)
      -- gzip as gzip reads it
      local f = io.popen("gzip -dc " .. p)
      assert.truthy(f:read("a"):find("ann", 1, true), name)
      f:close()
    end
    -- a big one: many deflate buffers
    local big = graph.grid2d(300, 300)
    local p = DIR .. "/big_out.txt.gz"
    graph.write(p, big)
    local back = graph.read(p)
    assert.equal(big:num_vertices(), back:num_vertices())
    assert.equal(big:num_edges(), back:num_edges())
    local out = DIR .. "/res.csv.gz"
    graph.write_csv(out, {x = speck.View.from({1, 2, 3}, "int64")})
    local f = io.popen("gzip -dc " .. out)
    assert.equal("id,x\n0,1\n1,2\n2,3\n", f:read("a"))
    f:close()
    -- a directory that does not exist: the message, nothing left behind
    local e = err_of(graph.write, DIR .. "/no/such/dir/x.txt.gz", g)
    assert.truthy(e:match("^speck%.graph%.write: cannot write '.*/no/such/dir/x%.txt%.gz%.tmp%d+': " ..
                          "No such file or directory$"), e)
  end)

  it("writes per-vertex results as CSV, atomically", function()
    local g = graph.read(write_file("w.txt", "a b\nb c\n"), {names = true})
    local deg = speck.View.from({1, 2, 1}, "int64")
    local r = speck.View.from({0.25, 0.5, 0.25}, "float64")
    local out = DIR .. "/res.csv"
    graph.write_csv(out, {rank = r, degree = deg}, {graph = g})
    assert.equal("id,name,degree,rank\n0,a,1,0.25\n1,b,2,0.5\n2,c,1,0.25\n", read_file(out))
    graph.write_csv(out, {rank = r, degree = deg}, {graph = g, id = false})
    assert.equal("name,degree,rank\na,1,0.25\nb,2,0.5\nc,1,0.25\n", read_file(out))
    graph.write_csv(out, {rank = r, degree = deg}, {order = {"rank", "degree"}})
    assert.equal("id,rank,degree\n0,0.25,1\n1,0.5,2\n2,0.25,1\n", read_file(out))
    assert.equal("speck.graph.write_csv: column 'x' (view 'x') has 2 entries, column 'rank' 3",
                 err_of(graph.write_csv, out, {rank = r, x = speck.View("x", "float64", 2)}, {order = {"rank", "x"}}))
    assert.equal("speck.graph.write_csv: column 'degree' is missing from order",
                 err_of(graph.write_csv, out, {rank = r, degree = deg}, {order = {"rank"}}))
    assert.equal("speck.graph.write_csv: column 'rank' has 3 entries, the graph 4 vertices",
                 err_of(graph.write_csv, out, {rank = r}, {graph = graph.grid2d(2, 2)}))
    -- the failed writes left the last good file
    assert.equal("id,rank,degree\n0,0.25,1\n1,0.5,2\n2,0.25,1\n", read_file(out))
    -- Matrix Market and edge lists round trip
    local mm = DIR .. "/g.mtx"
    local k = graph.kronecker(6, 4)
    graph.write(mm, k)
    same_arcs(arcs(k), arcs(graph.read(mm)))
  end)
end)

-- -- device launches ---------------------------------------------------------------------
-- a result computed on the host does not count on a GPU: each operation
-- must have launched its own kernels there (speck.jit.stats(); the
-- precompiled variants are host code)
describe("speck.graph's values and subgraphs run their kernels on " .. SPACE, function()
  local ON_HOST = SPACE ~= "cuda"
  it("each operation launched its kernels" .. (ON_HOST and "" or " on the device"), function()
    local g = graph.kronecker(8, 8, {seed = 4})
    local d = graph.from_edges(6, {0, 1, 2, 3, 4}, {1, 2, 0, 4, 5}, {directed = true})
    local function launches(label)
      local s = 0
      for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
        if k.label == label and (ON_HOST or k.tier ~= "precompiled") then s = s + k.launches end
      end
      return s
    end
    local calls = {
      {"graph.sub_fill", function() g:subgraph({0, 1, 2, 3, 5, 8}) end},
      {"graph.filter_fill", function() g:filter_edges("u < v") end},
      {"graph.lc_best", function() graph.largest_component(g) end},
      {"graph.comb_expand", function() d:reverse() end},
      {"graph.dedupe_fill", function() d:to_undirected() end},
      {"graph.dedupe_count", function() d:symmetrize() end},
      {"graph.comb_expand", function() graph.union(d, d) end},
    }
    for _, c in ipairs(calls) do
      local before = launches(c[1])
      c[2]()
      assert.is_true(launches(c[1]) > before, c[1] .. " launched no kernel" .. (ON_HOST and "" or " on the device"))
    end
  end)
end)
