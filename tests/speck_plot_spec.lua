local speck = require "speck"
-- speck_plot_spec.lua: speck.plot (stdlib/speck/plot.lua over vm/lplot.c
-- and io/plot.c): the SVG's structure for every plot type (axes, ticks,
-- series count, labels, legend), the thinning of 10^6 points and the spy
-- of a 10^6-row matrix in under a second, PNG through rsvg-convert, a
-- title full of shell syntax that reaches no shell, and bad input.
local plot = require "speck.plot"
local graph = require "speck.graph"
local sparse = require "speck.sparse"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end

-- the text of every <text class="c"> element
local function texts(svg, class)
  local t = {}
  for s in svg:gmatch('<text class="' .. class .. '"[^>]*>([^<]*)</text>') do t[#t + 1] = s end
  return t
end

local function series(svg)
  local t = {}
  for attrs, body in svg:gmatch('<g class="series"([^>]*)>(.-)</g>') do
    t[#t + 1] = {kind = attrs:match('data%-kind="([^"]*)"'),
                 n = tonumber(attrs:match('data%-n="(%d+)"')),
                 label = attrs:match('data%-label="([^"]*)"'), attrs = attrs, body = body}
  end
  return t
end

local function ramp(n, f)
  local x, y = speck.View("x", "float64", n), speck.View("y", "float64", n)
  speck.parallel_for("ramp", n, {x = x, y = y}, "x(i) = (double)i; y(i) = " .. f .. ";")
  return x, y
end

local function slurp(path)
  local fh = io.open(path, "rb")
  if not fh then return nil end
  local s = fh:read("a")
  fh:close()
  return s
end

local HAVE_PNG = plot.png_available()

describe("speck.plot", function()
  it("draws a line plot with axes, ticks, labels, a title and a legend", function()
    local p = plot.line({1, 2, 3, 4}, {1, 4, 9, 16}, {title = "squares", xlabel = "n",
                                                      ylabel = "n^2", label = "n*n"})
    assert.are.equal(p, p:add_line({1, 2, 3, 4}, {2, 3, 4, 5}, {label = "n+1"}))
    local svg = p:svg()
    assert.truthy(svg:match('^<svg xmlns="http://www.w3.org/2000/svg"'))
    assert.truthy(svg:find('class="speck-plot" data-kind="line"', 1, true))
    assert.are.same({"squares"}, texts(svg, "title"))
    assert.are.same({"n"}, texts(svg, "xlabel"))
    assert.are.same({"n^2"}, texts(svg, "ylabel"))
    local s = series(svg)
    assert.are.equal(2, #s)
    assert.are.same({"line", 4, "n*n"}, {s[1].kind, s[1].n, s[1].label})
    assert.are.same({"line", 4, "n+1"}, {s[2].kind, s[2].n, s[2].label})
    assert.are.equal(4, count(s[1].body:match('points="([^"]*)"'), "[^ ]+"))
    assert.truthy(svg:find('<g class="legend">', 1, true))
    assert.truthy(svg:find('class="xaxis"', 1, true) and svg:find('class="yaxis"', 1, true))
    -- ticks: nice numbers covering the data (1..4 and 1..16)
    local ticks = texts(svg, "tick")
    assert.is_true(#ticks >= 6)
    assert.truthy(svg:find('>2</text>', 1, true) and svg:find('>10</text>', 1, true))
    assert.are.equal("Plot<line, 2 series, 'squares'>", tostring(p))
  end)

  it("takes y alone (x = 0, 1, ...) and views as well as arrays", function()
    local _, y = ramp(10, "i * 0.5")
    local s = series(plot.line(y, {title = "t"}):svg())
    assert.are.equal(1, #s)
    assert.are.equal(10, s[1].n)
  end)

  it("thins 10^6 points to what the picture shows, in under a second", function()
    local x, y = ramp(1000000, "sin(i * 1e-4)")
    local t = speck.Timer()
    local p = plot.line(x, y)
    local svg = p:svg()
    local secs = t:seconds()
    assert.is_true(secs < 1.0, "took " .. secs .. " s")
    local s = series(svg)
    assert.are.equal(1000000, s[1].n)
    local npts = count(s[1].body:match('points="([^"]*)"'), "[^ ]+")
    assert.is_true(npts > 1000 and npts <= 4 * 2 * 544, "points " .. npts)
    -- min/max per bucket keeps the extremes: the y axis spans [-1, 1]
    assert.truthy(svg:find('>-1</text>', 1, true) and svg:find('>1</text>', 1, true))
    -- a scatter of 10^6 points: one per 2x2-pixel cell
    t:reset()
    local sc = series(plot.scatter(x, y):svg())
    assert.is_true(t:seconds() < 1.0)
    assert.are.equal("scatter", sc[1].kind)
    local dots = count(sc[1].body, "h0")
    assert.is_true(dots > 100 and dots <= (544 // 2 + 1) * (324 // 2 + 1), "dots " .. dots)
  end)

  it("draws log axes by decades and leaves out values <= 0 there", function()
    local svg = plot.line({1, 2, 3, 4}, {1, 1e-2, 1e-4, 0}, {logy = true}):svg()
    assert.truthy(svg:find('>0.01</text>', 1, true) and svg:find('>1</text>', 1, true))
    assert.are.equal(3, count(series(svg)[1].body:match('points="([^"]*)"'), "[^ ]+"))
    local conv = plot.convergence({iters = 5, history = {1, 0.1, 1e-3, 1e-6, 1e-9}})
    svg = conv:svg()
    assert.are.same({"convergence"}, texts(svg, "title"))
    assert.are.same({"iteration"}, texts(svg, "xlabel"))
    assert.are.same({"residual norm"}, texts(svg, "ylabel"))
    assert.truthy(svg:find('>1e-09</text>', 1, true) or svg:find('>1e-9</text>', 1, true))
    assert.are.equal(5, series(svg)[1].n)
  end)

  it("bins a histogram as the counts say", function()
    local v = {}
    for i = 1, 1000 do v[i] = (i * 37 % 100) / 10 end   -- 0.0 .. 9.9, 10 of each
    local svg = plot.hist(v, {bins = 5, title = "h"}):svg()
    local s = series(svg)
    assert.are.equal("hist", s[1].kind)
    assert.are.equal(1000, s[1].n)
    assert.are.equal(5, count(s[1].body, "<rect"))
    assert.are.same({"count"}, texts(svg, "ylabel"))
    -- five equal bins of 200: five equal heights
    local hs = {}
    for h in s[1].body:gmatch('height="([%d.]+)"') do hs[#hs + 1] = h end
    assert.are.equal(5, #hs)
    for i = 2, 5 do assert.are.equal(hs[1], hs[i]) end
  end)

  it("draws bars with their labels, on a log axis too", function()
    local svg = plot.bar({"tcc", "cc", "gcc -O3"}, {0.5, 0.9, 1.0}, {logy = true, title = "tiers"}):svg()
    local s = series(svg)
    assert.are.equal("bar", s[1].kind)
    assert.are.equal(3, count(s[1].body, "<rect"))
    for _, l in ipairs({"tcc", "cc", "gcc -O3", "0.1", "1"}) do
      assert.truthy(svg:find(">" .. l .. "</text>", 1, true), l)
    end
  end)

  it("draws a heat map of a rank-2 view, block means past 160x120", function()
    local V = speck.View("V", "float64", {4, 3})
    speck.parallel_for("v", speck.MDRangePolicy({0, 0}, {4, 3}), {V = V}, "V(i, j) = i * 3 + j;")
    local svg = plot.heatmap(V, {title = "V"}):svg()
    local s = series(svg)
    assert.are.equal("heatmap", s[1].kind)
    assert.truthy(s[1].attrs:find('data-grid="4x3"', 1, true))
    -- 12 distinct values: 12 cells, no run merged
    assert.are.equal(12, count(s[1].body, "<rect"))
    assert.truthy(svg:find('<g class="colorbar">', 1, true))
    local B = speck.View("B", "float64", {1000, 500})
    s = series(plot.heatmap(B):svg())
    assert.truthy(s[1].attrs:find('data-grid="120x160"', 1, true))
    -- past plot.max_cells rectangles: one PNG of the grid inside the SVG
    speck.parallel_for("b", speck.MDRangePolicy({0, 0}, {1000, 500}), {B = B},
                       "B(i, j) = sin(i * 0.01) * cos(j * 0.02);")
    s = series(plot.heatmap(B):svg())
    assert.are.equal(0, count(s[1].body, "<rect"))
    local b64 = s[1].body:match('<image class="raster"[^>]* xlink:href="data:image/png;base64,([^"]+)"')
    assert.truthy(b64)
    -- the PNG's first 24 bytes, decoded from base64 here
    local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    local bytes = {}
    for i = 1, 32, 4 do
      local n = 0
      for k = 0, 3 do n = n * 64 + (B64:find(b64:sub(i + k, i + k), 1, true) - 1) end
      bytes[#bytes + 1] = string.char(n >> 16, (n >> 8) & 255, n & 255)
    end
    local head = table.concat(bytes)
    assert.are.equal("\137PNG\r\n\26\n", head:sub(1, 8))
    assert.are.same({160, 120}, {string.unpack(">I4", head, 17), (string.unpack(">I4", head, 21))})
  end)

  it("draws the spy of a CrsMatrix, and of a 10^6-row matrix in under a second", function()
    local A = sparse.from_coo(5, 5, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {1, 1, 1, 1, 1})
    local svg = plot.spy(A):svg()
    local s = series(svg)
    assert.are.equal("spy", s[1].kind)
    assert.are.equal(5, s[1].n)
    assert.are.equal(5, count(s[1].body, "<rect"))
    assert.are.same({"5x5, nnz 5"}, texts(svg, "title"))
    local g = graph.grid2d(1000, 1000)
    local t = speck.Timer()
    svg = plot.spy(g:matrix()):svg()
    local secs = t:seconds()
    assert.is_true(secs < 1.0, "took " .. secs .. " s")
    s = series(svg)
    assert.truthy(s[1].attrs:find('data-rows="1000000"', 1, true))
    assert.truthy(s[1].attrs:find('data-grid="360x360"', 1, true))
    assert.are.equal(g:num_arcs(), s[1].n)
  end)

  it("draws a graph with a layout speck computes, each edge once", function()
    local g = graph.grid2d(4, 4)
    local color = {}
    for i = 1, 16 do color[i] = i % 2 end
    local svg = plot.graph(g, {color = color, title = "grid"}):svg()
    local s = series(svg)
    assert.are.equal("graph", s[1].kind)
    assert.are.equal(16, s[1].n)
    assert.truthy(s[1].attrs:find('data-edges="24"', 1, true))
    assert.are.equal(16, count(svg, "<circle"))
    assert.are.equal(24, count(svg:match('class="edges"[^>]* d="([^"]*)"'), "M"))
    assert.are.equal(16, #texts(svg, "vlabel"))
    -- a 4x4 grid laid out by force: neighbours closer than the corners
    local xy = {}
    for cx, cy in svg:gmatch('<circle cx="([%d.]+)" cy="([%d.]+)"') do xy[#xy + 1] = {tonumber(cx), tonumber(cy)} end
    local function d(a, b) return math.sqrt((xy[a][1] - xy[b][1]) ^ 2 + (xy[a][2] - xy[b][2]) ^ 2) end
    assert.is_true(d(1, 2) < d(1, 16) / 2)
    local sp = series(plot.graph(g, {layout = "spectral"}):svg())
    assert.are.equal(16, sp[1].n)
  end)

  it("writes SVG and PNG files; a title of shell syntax reaches no shell", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert.is_true(os.execute("mkdir -p '" .. dir .. "'"))
    local mark = dir .. "/ran"
    local title = "`touch " .. mark .. "` $(touch " .. mark .. ") '; touch " .. mark .. "; ' \"q\" <b>&"
    local p = plot.line({1, 2, 3}, {3, 1, 2}, {title = title, xlabel = "$(id)", ylabel = "`id`"})
    local svg = p:svg()
    assert.are.equal(dir .. "/a b'c.svg", p:save(dir .. "/a b'c.svg"))
    assert.are.equal(svg:gsub('speck%-clip%-[%w-]+', ""), slurp(dir .. "/a b'c.svg"):gsub('speck%-clip%-[%w-]+', ""))
    -- the title escaped into the SVG, as typed
    assert.truthy(svg:find("&#39;; touch", 1, true) and svg:find("&quot;q&quot; &lt;b&gt;&amp;", 1, true))
    if HAVE_PNG then
      p:save(dir .. "/a b'c $(x).png")
      local png = slurp(dir .. "/a b'c $(x).png")
      assert.are.equal("\137PNG\r\n\26\n", png:sub(1, 8))
      -- the IHDR's size: the SVG's 640x420
      local w = string.unpack(">I4", png, 17)
      local h = string.unpack(">I4", png, 21)
      assert.are.same({640, 420}, {w, h})
    end
    assert.is_nil(io.open(mark, "r"))
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("refuses bad input with the function, the object and what is wrong", function()
    assert.are.equal("speck.plot.line: x has 3 values and y has 2: they must be the same length",
                     err_of(plot.line, {1, 2, 3}, {1, 2}))
    local p = plot.line({1, 2}, {1, 2})
    assert.are.equal("speck.plot.add_line: x has 2 values and y has 3: they must be the same length",
                     err_of(p.add_line, p, {1, 2}, {1, 2, 3}))
    local V3 = speck.View("cube", "float64", {2, 2, 2})
    assert.are.equal("speck.plot.heatmap: V must be a rank-2 view, got a rank-3 view 'cube'",
                     err_of(plot.heatmap, V3))
    assert.are.equal("speck.plot.line: y must be a rank-1 view or an array of numbers, got a rank-3 view 'cube'",
                     err_of(plot.line, V3))
    assert.are.equal("speck.plot.line: y[2] is a string, not a number",
                     err_of(plot.line, {1, "two"}))
    assert.are.equal("speck.plot.scatter: x has 2 values and y has 1: they must be the same length",
                     err_of(plot.scatter, {1, 2}, {1}))
    assert.are.equal("speck.plot.line: unknown option 'colour' (valid: height, label, logx, logy, title, width, xlabel, ylabel)",
                     err_of(plot.line, {1}, {1}, {colour = "red"}))
    assert.are.equal("speck.plot.bar: 2 labels and 3 values: they must be the same length",
                     err_of(plot.bar, {"a", "b"}, {1, 2, 3}))
    assert.are.equal("speck.plot.hist: option bins must be an integer in [1, 10000], got 0",
                     err_of(plot.hist, {1, 2}, {bins = 0}))
    assert.are.equal("speck.plot.spy: A must be a CrsMatrix or a Graph, got a rank-3 view 'cube'",
                     err_of(plot.spy, V3))
    assert.are.equal("speck.plot.graph: the graph has 10000 vertices, more than the drawing limit 2000 (max_vertices; a force layout costs nv^2 a round): draw a subgraph, or plot.spy(g) for its pattern",
                     err_of(plot.graph, graph.grid2d(100, 100)))
    assert.are.equal("speck.plot.convergence: info has no residual history (info.history is nil)",
                     err_of(plot.convergence, {iters = 3}))
    assert.are.equal("speck.plot.save: 'x.pdf': the file name must end in .svg or .png",
                     err_of(p.save, p, "x.pdf"))
    -- the VM goes on
    assert.are.equal(1, #series(plot.line({1, 2}, {2, 1}):svg()))
  end)
  it("is saved to a file whose path is printed when the terminal REPL shows it", function()
    local repl = require "speck.repl"
    local said
    local old = _G.print
    _G.print = function(s) said = s end
    local ok, e = pcall(repl.print, plot.line({1, 2}, {2, 1}, {title = "t"}))
    _G.print = old
    assert.is_true(ok, e)
    local path = said:match("^Plot<line, 1 series, 't'> saved to (.+%.svg)$")
    assert.truthy(path, said)
    assert.truthy(slurp(path):find('class="speck-plot"', 1, true))
    os.remove(path)
  end)
end)
