-- speck/plot.lua: pictures of views, matrices, graphs and solver runs.
-- speck writes the SVG itself: no dependency, the same structure on every
-- machine (tests read it: <g class="series">, <text class="title">, ...),
-- and long data reduced in C first (vm/lplot.c, io/plot.c) so a picture of
-- 10^6 points or the spy of a 10^6-row matrix renders in milliseconds:
--   line: min/max per bucket of consecutive points, 2 buckets a pixel
--         (the same pixels as every point);
--   scatter: one point per 2x2-pixel cell; hist: counts in C;
--   heatmap: block means on at most 160x120 cells; spy: stored entries
--         counted on at most 360x360 cells, shaded by the count.
-- PNG is the SVG rasterised by rsvg-convert (Debian's librsvg2-bin, the
-- GNOME SVG renderer): the same picture in both formats, and no user text
-- ever reaches a command line -- only temporary file names, quoted.
local core = require "speck.core"
local speck = require "speck"
local C = core.plot

local plot = {}

local user_level, fail = require("speck.raise")("speck.plot.")
local check_options = require "speck.opts"
local function check_opts(fname, opts, keys)
  local o = check_options("speck.plot." .. fname, opts, keys, user_level())
  return o
end

-- the picture's size and the plot area inside it
local W, H = 640, 420
local ML, MR, MT, MB = 72, 24, 40, 56
local PALETTE = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}
-- at most this many vertices in plot.graph (a force layout costs nv^2 a round)
plot.max_vertices = 2000

local Plot = {}
local MT_PLOT = {__index = Plot, __name = "speck.Plot"}
local function is_plot(p) return getmetatable(p) == MT_PLOT end
plot.is_plot = is_plot

local function is_view(x)
  local mt = type(x) == "userdata" and getmetatable(x)
  return type(mt) == "table" and rawget(mt, "__name") == "speck.View"
end
local function mt_name(x)
  local mt = getmetatable(x)
  return type(mt) == "table" and rawget(mt, "__name") or nil
end

local function describe(x)
  if is_view(x) then return ("a rank-%d view '%s'"):format(x:rank(), x:label()) end
  return mt_name(x) or type(x)
end

-- a host copy of a view in a device space
local function on_host(v)
  if speck.host_accessible(v:space()) then return v end
  return speck.create_mirror_view_and_copy("host", v)
end

-- 'v' (a rank-1 view or a sequence of numbers) checked; returns what C
-- reads and its length
local function values(fname, what, v)
  if is_view(v) then
    if v:rank() ~= 1 then
      fail(fname, "%s must be a rank-1 view or an array of numbers, got %s", what, describe(v))
    end
    return on_host(v), v:extent(0)
  end
  if type(v) ~= "table" or mt_name(v) then
    fail(fname, "%s must be a rank-1 view or an array of numbers, got %s", what, describe(v))
  end
  local n = #v
  for i = 1, n do
    if type(v[i]) ~= "number" then
      fail(fname, "%s[%d] is a %s, not a number", what, i, type(v[i]))
    end
  end
  return v, n
end

local function check_string(fname, what, s)
  if s ~= nil and type(s) ~= "string" and type(s) ~= "number" then
    fail(fname, "option %s must be a string, got %s", what, type(s))
  end
  return s ~= nil and tostring(s) or nil
end

local COMMON = {"title", "xlabel", "ylabel", "logx", "logy", "label", "width", "height"}
local function keys(extra)
  local t = {}
  for _, k in ipairs(COMMON) do t[#t + 1] = k end
  for _, k in ipairs(extra or {}) do t[#t + 1] = k end
  return t
end

local function new_plot(fname, kind, opts)
  for _, k in ipairs({"logx", "logy"}) do
    if opts[k] ~= nil and type(opts[k]) ~= "boolean" then
      fail(fname, "option %s must be a boolean, got %s", k, type(opts[k]))
    end
  end
  for _, k in ipairs({"width", "height"}) do
    local v = opts[k]
    if v ~= nil and (math.type(v) ~= "integer" or v < 200 or v > 4000) then
      fail(fname, "option %s must be an integer number of pixels in [200, 4000], got %s",
           k, tostring(v))
    end
  end
  return setmetatable({kind = kind, series = {},
    title = check_string(fname, "title", opts.title),
    xlabel = check_string(fname, "xlabel", opts.xlabel),
    ylabel = check_string(fname, "ylabel", opts.ylabel),
    logx = opts.logx or false, logy = opts.logy or false,
    width = opts.width or W, height = opts.height or H}, MT_PLOT)
end

-- the plot area's width in pixels (thinning targets it)
local function area_w(p) return p.width - ML - MR end
local function area_h(p) return p.height - MT - MB end

-- a series of points (x nil: 0, 1, ...), thinned for a line
local function line_series(fname, p, x, y, opts, kind)
  local yv, ny = values(fname, "y", y)
  local xv, nx
  if x ~= nil then
    xv, nx = values(fname, "x", x)
    if nx ~= ny then
      fail(fname, "x has %d values and y has %d: they must be the same length", nx, ny)
    end
  end
  local s = {kind = kind, n = ny, label = check_string(fname, "label", opts.label),
             color = PALETTE[(#p.series % #PALETTE) + 1]}
  if kind == "line" then
    local nb = 2 * area_w(p)
    if ny > 4 * nb then
      s.xs, s.ys = C.thin_line(xv, yv, nb)
    else
      s.xs, s.ys = C.thin_line(xv, yv, math.max(ny, 1))
    end
  else
    -- scatter: the box first (log axes keep positive values), then one
    -- point per 2x2-pixel cell
    local xs = xv or C.thin_line(nil, yv, math.max(ny, 1))
    local xlo, xhi = C.range(xs, p.logx)
    local ylo, yhi = C.range(yv, p.logy)
    if xlo and ylo and ny > 2000 then
      local gx, gy = area_w(p) // 2, area_h(p) // 2
      if p.logx or p.logy then
        -- thin in the picture's coordinates: a log axis is thinned in log
        local tx, ty = {}, {}
        local sx, sy = xs, yv
        if is_view(sx) then sx = select(2, C.thin_line(nil, sx, math.max(ny, 1))) end
        if is_view(sy) then sy = select(2, C.thin_line(nil, sy, math.max(ny, 1))) end
        for i = 1, ny do
          local a, b = sx[i], sy[i]
          tx[i] = p.logx and (a > 0 and math.log(a, 10) or 0 / 0) or a
          ty[i] = p.logy and (b > 0 and math.log(b, 10) or 0 / 0) or b
        end
        local lx0, lx1 = C.range(tx, false)
        local ly0, ly1 = C.range(ty, false)
        local kx, ky = C.thin_scatter(tx, ty, lx0 or 0, lx1 or 1, ly0 or 0, ly1 or 1, gx, gy)
        s.xs, s.ys = {}, {}
        for i = 1, #kx do
          s.xs[i] = p.logx and 10 ^ kx[i] or kx[i]
          s.ys[i] = p.logy and 10 ^ ky[i] or ky[i]
        end
      else
        s.xs, s.ys = C.thin_scatter(xs, yv, xlo, xhi, ylo, yhi, gx, gy)
      end
    else
      s.xs, s.ys = C.thin_line(xv, yv, math.max(ny, 1))
      -- thin_line keeps every point when there is one per bucket
    end
  end
  return s
end

-- -- constructors -------------------------------------------------------------
-- plot.line(y) | plot.line(x, y [, opts])
function plot.line(x, y, opts)
  local f = "line"
  if y == nil or (type(y) == "table" and not mt_name(y) and #y == 0 and next(y) ~= nil) then
    x, y, opts = nil, x, y
  end
  opts = check_opts(f, opts, keys())
  local p = new_plot(f, "line", opts)
  p.series[1] = line_series(f, p, x, y, opts, "line")
  return p
end

function plot.scatter(x, y, opts)
  local f = "scatter"
  if y == nil then fail(f, "needs x and y, got one argument") end
  opts = check_opts(f, opts, keys())
  local p = new_plot(f, "scatter", opts)
  p.series[1] = line_series(f, p, x, y, opts, "scatter")
  return p
end

-- p:add_line(x, y [, opts]) / p:add_line(y [, opts]): one more series
function Plot:add_line(x, y, opts)
  local f = "add_line"
  if not is_plot(self) then fail(f, "call it as p:add_line(x, y), got %s", describe(self)) end
  if y == nil or (type(y) == "table" and not mt_name(y) and #y == 0 and next(y) ~= nil) then
    x, y, opts = nil, x, y
  end
  opts = check_opts(f, opts, {"label", "scatter"})
  if self.kind ~= "line" and self.kind ~= "scatter" then
    fail(f, "a %s plot takes no lines (line and scatter plots do)", self.kind)
  end
  local s = line_series(f, self, x, y, opts, opts.scatter and "scatter" or "line")
  s.color = PALETTE[(#self.series % #PALETTE) + 1]
  self.series[#self.series + 1] = s
  return self
end

-- plot.hist(v [, {bins = 50, range = {lo, hi}}])
function plot.hist(v, opts)
  local f = "hist"
  opts = check_opts(f, opts, keys({"bins", "range"}))
  local bins = opts.bins or 50
  if math.type(bins) ~= "integer" or bins < 1 or bins > 10000 then
    fail(f, "option bins must be an integer in [1, 10000], got %s", tostring(bins))
  end
  local vv, n = values(f, "v", v)
  local lo, hi
  if opts.range ~= nil then
    local r = opts.range
    if type(r) ~= "table" or type(r[1]) ~= "number" or type(r[2]) ~= "number" or not (r[1] < r[2]) then
      fail(f, "option range must be {lo, hi} with lo < hi")
    end
    lo, hi = r[1], r[2]
  else
    lo, hi = C.range(vv, false)
    if not lo then lo, hi = 0, 1 end
    if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  end
  local counts = C.hist(vv, bins, lo, hi)
  local p = new_plot(f, "hist", opts)
  p.ylabel = p.ylabel or "count"
  p.series[1] = {kind = "hist", n = n, counts = counts, lo = lo, hi = hi,
                 label = check_string(f, "label", opts.label), color = PALETTE[1]}
  return p
end

-- plot.bar(labels, values [, opts]): one bar per label
function plot.bar(labels, vals, opts)
  local f = "bar"
  opts = check_opts(f, opts, keys())
  if type(labels) ~= "table" or mt_name(labels) then
    fail(f, "labels must be an array of strings, got %s", describe(labels))
  end
  local vv, n = values(f, "values", vals)
  if #labels ~= n then
    fail(f, "%d labels and %d values: they must be the same length", #labels, n)
  end
  local ls = {}
  for i = 1, n do
    local l = labels[i]
    if type(l) ~= "string" and type(l) ~= "number" then
      fail(f, "labels[%d] is a %s, not a string", i, type(l))
    end
    ls[i] = tostring(l)
  end
  local _, ys = C.thin_line(nil, vv, math.max(n, 1))
  local p = new_plot(f, "bar", opts)
  p.series[1] = {kind = "bar", n = n, labels = ls, ys = ys,
                 label = check_string(f, "label", opts.label), color = PALETTE[1]}
  return p
end

-- plot.heatmap(V [, opts]): a rank-2 view, row 0 at the top
function plot.heatmap(V, opts)
  local f = "heatmap"
  opts = check_opts(f, opts, keys())
  if not is_view(V) then fail(f, "V must be a rank-2 view, got %s", describe(V)) end
  if V:rank() ~= 2 then fail(f, "V must be a rank-2 view, got %s", describe(V)) end
  local rows, cols = V:extent(0), V:extent(1)
  if rows == 0 or cols == 0 then fail(f, "V '%s' is empty (%dx%d)", V:label(), rows, cols) end
  local gh, gw = math.min(rows, 120), math.min(cols, 160)
  local grid = C.grid(on_host(V), gh, gw)
  local p = new_plot(f, "heatmap", opts)
  p.xlabel, p.ylabel = p.xlabel or "column", p.ylabel or "row"
  p.series[1] = {kind = "heatmap", n = rows * cols, grid = grid, gh = gh, gw = gw,
                 rows = rows, cols = cols, label = V:label()}
  return p
end

local function csr_of(f, A)
  local n = mt_name(A)
  if n == "speck.CrsMatrix" then return A.rowptr, A.colidx, A:nrows(), A:ncols(), A:nnz() end
  if n == "speck.Graph" then
    local nv = A:num_vertices()
    return A.rowptr, A.colidx, nv, nv, A:num_arcs()
  end
  fail(f, "A must be a CrsMatrix or a Graph, got %s", describe(A))
end

-- plot.spy(A [, opts]): the sparsity pattern of a CrsMatrix (or a Graph)
function plot.spy(A, opts)
  local f = "spy"
  opts = check_opts(f, opts, keys())
  local rp, ci, nrows, ncols, nnz = csr_of(f, A)
  local side = 360
  local gh, gw
  if nrows >= ncols then
    gh = math.min(nrows, side)
    gw = math.max(1, math.min(ncols, math.floor(side * ncols / math.max(nrows, 1) + 0.5)))
  else
    gw = math.min(ncols, side)
    gh = math.max(1, math.min(nrows, math.floor(side * nrows / math.max(ncols, 1) + 0.5)))
  end
  local counts = nrows > 0 and C.spy(on_host(rp), on_host(ci), nrows, ncols, gh, gw) or {}
  local p = new_plot(f, "spy", opts)
  p.title = p.title or ("%dx%d, nnz %d"):format(nrows, ncols, nnz)
  p.xlabel, p.ylabel = p.xlabel or "column", p.ylabel or "row"
  p.series[1] = {kind = "spy", n = nnz, counts = counts, gh = gh, gw = gw,
                 rows = nrows, cols = ncols}
  return p
end

-- plot.graph(g [, {layout = "force" | "spectral", color = v, labels = bool,
--   iterations = n, max_vertices = n}]): a drawing, the layout computed by speck
function plot.graph(g, opts)
  local f = "graph"
  opts = check_opts(f, opts, keys({"layout", "color", "labels", "iterations",
                                   "max_vertices", "seed"}))
  local rp, ci, nv = csr_of(f, g)
  local limit = opts.max_vertices or plot.max_vertices
  if math.type(limit) ~= "integer" or limit < 1 then
    fail(f, "option max_vertices must be a positive integer, got %s", tostring(limit))
  end
  if nv > limit then
    fail(f, "the graph has %d vertices, more than the drawing limit %d (max_vertices; a force layout costs nv^2 a round): draw a subgraph, or plot.spy(g) for its pattern",
         nv, limit)
  end
  local layout = opts.layout or "force"
  if layout ~= "force" and layout ~= "spectral" then
    fail(f, "option layout must be \"force\" or \"spectral\", got %s", tostring(layout))
  end
  local iters = opts.iterations or (layout == "force" and (nv <= 500 and 300 or 100) or 300)
  if math.type(iters) ~= "integer" or iters < 1 then
    fail(f, "option iterations must be a positive integer, got %s", tostring(iters))
  end
  local color
  if opts.color ~= nil then
    local cv, n = values(f, "color", opts.color)
    if n ~= nv then fail(f, "option color has %d values for %d vertices", n, nv) end
    color = select(2, C.thin_line(nil, cv, math.max(n, 1)))
  end
  local hrp, hci = on_host(rp), on_host(ci)
  local xs, ys = C.layout(hrp, hci, nv, layout, iters, opts.seed or 1)
  -- the edges, each undirected edge once
  local directed = mt_name(g) == "speck.Graph" and g:is_directed()
  local edges = {}
  for u = 0, nv - 1 do
    for k = hrp(u), hrp(u + 1) - 1 do
      local v = hci(k)
      if v ~= u and (directed or u < v) then edges[#edges + 1] = {u, v} end
    end
  end
  local p = new_plot(f, "graph", opts)
  p.series[1] = {kind = "graph", n = nv, xs = xs, ys = ys, edges = edges, color = color,
                 labels = opts.labels == nil and nv <= 30 or opts.labels, directed = directed}
  return p
end

-- plot.convergence(info | history [, opts]): residual norms against the
-- iteration on a log axis (info.history of speck.solve's methods)
function plot.convergence(info, opts)
  local f = "convergence"
  opts = check_opts(f, opts, keys())
  local h = info
  if type(info) == "table" and not mt_name(info) and info.history ~= nil then h = info.history
  elseif type(info) == "table" and not mt_name(info) and #info == 0 then
    fail(f, "info has no residual history (info.history is nil)")
  end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  if o.logy == nil then o.logy = true end
  o.xlabel = o.xlabel or "iteration"
  o.ylabel = o.ylabel or "residual norm"
  o.title = o.title or "convergence"
  local p = new_plot(f, "line", o)
  p.series[1] = line_series(f, p, nil, h, o, "line")
  return p
end

-- -- rendering ------------------------------------------------------------------
local function esc(s)
  return (tostring(s):gsub("[&<>\"']", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
                                        ['"'] = "&quot;", ["'"] = "&#39;"}))
end

local function num(x)
  if x ~= x then return "nan" end
  if x == math.floor(x) and math.abs(x) < 1e7 then return ("%d"):format(math.floor(x)) end
  local s = ("%.4g"):format(x)
  if s == "-0" then s = "0" end
  return s
end

local function nice_ticks(lo, hi, n)
  local span = hi - lo
  local raw = span / n
  local step = 10 ^ math.floor(math.log(raw, 10))
  local e = raw / step
  if e >= 7.5 then step = step * 10 elseif e >= 3.5 then step = step * 5
  elseif e >= 1.5 then step = step * 2 end
  local t = {}
  local k = math.ceil(lo / step - 1e-9)
  while k * step <= hi + step * 1e-9 and #t < 50 do
    t[#t + 1] = k * step
    k = k + 1
  end
  return t
end

local function log_label(k)
  if k >= -3 and k <= 4 then return num(10 ^ k) end
  return "1e" .. k
end

-- an axis over [lo, hi] of the data: its mapping to [a, b] pixels and ticks
local function axis(lo, hi, log, a, b)
  if log then
    if not lo then lo, hi = 1, 10 end
    local l0, l1 = math.floor(math.log(lo, 10) + 1e-9), math.ceil(math.log(hi, 10) - 1e-9)
    if l1 <= l0 then l1 = l0 + 1 end
    local step = math.max(1, math.ceil((l1 - l0) / 8))
    local ticks, labels = {}, {}
    for k = l0, l1, step do ticks[#ticks + 1] = 10 ^ k; labels[#labels + 1] = log_label(k) end
    local function map(v) return a + (math.log(v, 10) - l0) / (l1 - l0) * (b - a) end
    return map, ticks, labels
  end
  if not lo then lo, hi = 0, 1 end
  if hi <= lo then lo, hi = lo - 0.5, hi + 0.5 end
  local pad = (hi - lo) * 0.04
  lo, hi = lo - pad, hi + pad
  local ticks = nice_ticks(lo, hi, 6)
  local labels = {}
  for i, t in ipairs(ticks) do labels[i] = num(t) end
  local function map(v) return a + (v - lo) / (hi - lo) * (b - a) end
  return map, ticks, labels
end

local function fmt(x) return ("%.1f"):format(x) end

local clip_seq, clip_tag = 0, ("%x"):format(math.random(0, 0xffffff))

-- the frame: title, axes with ticks and labels; 'xt'/'yt' tick lists
local function frame(out, p, x0, y0, x1, y1, xmap, xt, xl, ymap, yt, yl)
  out[#out + 1] = ('<g class="axes"><rect class="frame" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#333"/>')
    :format(fmt(x0), fmt(y0), fmt(x1 - x0), fmt(y1 - y0))
  out[#out + 1] = '<g class="xaxis">'
  for i, t in ipairs(xt or {}) do
    local x = xmap(t)
    if x >= x0 - 0.5 and x <= x1 + 0.5 then
      out[#out + 1] = ('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/><text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>')
        :format(fmt(x), fmt(y1), fmt(x), fmt(y1 + 5), fmt(x), fmt(y1 + 18), esc(xl[i]))
    end
  end
  out[#out + 1] = '</g><g class="yaxis">'
  for i, t in ipairs(yt or {}) do
    local y = ymap(t)
    if y >= y0 - 0.5 and y <= y1 + 0.5 then
      out[#out + 1] = ('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/><text class="tick" x="%s" y="%s" text-anchor="end">%s</text>')
        :format(fmt(x0 - 5), fmt(y), fmt(x0), fmt(y), fmt(x0 - 8), fmt(y + 4), esc(yl[i]))
    end
  end
  out[#out + 1] = '</g></g>'
  if p.title then
    out[#out + 1] = ('<text class="title" x="%s" y="24" text-anchor="middle" font-size="15">%s</text>')
      :format(fmt(p.width / 2), esc(p.title))
  end
  if p.xlabel then
    out[#out + 1] = ('<text class="xlabel" x="%s" y="%s" text-anchor="middle">%s</text>')
      :format(fmt((x0 + x1) / 2), fmt(p.height - 12), esc(p.xlabel))
  end
  if p.ylabel then
    out[#out + 1] = ('<text class="ylabel" x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">%s</text>')
      :format(fmt((y0 + y1) / 2), fmt((y0 + y1) / 2), esc(p.ylabel))
  end
end

local function legend(out, p, x1, y0)
  local items = {}
  for _, s in ipairs(p.series) do
    if s.label and s.color then items[#items + 1] = s end
  end
  if #items == 0 then return end
  local wmax = 0
  for _, s in ipairs(items) do wmax = math.max(wmax, #s.label) end
  local w = 34 + wmax * 7
  local x = x1 - w - 8
  out[#out + 1] = ('<g class="legend"><rect x="%s" y="%s" width="%s" height="%s" fill="white" fill-opacity="0.85" stroke="#999"/>')
    :format(fmt(x), fmt(y0 + 8), fmt(w), fmt(#items * 18 + 6))
  for i, s in ipairs(items) do
    local y = y0 + 8 + i * 18 - 4
    out[#out + 1] = ('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/><text x="%s" y="%s">%s</text>')
      :format(fmt(x + 6), fmt(y - 4), fmt(x + 26), fmt(y - 4), s.color, fmt(x + 30), fmt(y), esc(s.label))
  end
  out[#out + 1] = '</g>'
end

-- viridis, by 9 stops
local VIRIDIS = {{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141},
                 {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}}
local function viridis(t)
  if t ~= t then return "#ffffff" end
  t = math.min(1, math.max(0, t)) * (#VIRIDIS - 1)
  local i = math.min(#VIRIDIS - 2, math.floor(t))
  local a, b, u = VIRIDIS[i + 1], VIRIDIS[i + 2], t - i
  return ("#%02x%02x%02x"):format(math.floor(a[1] + (b[1] - a[1]) * u + 0.5),
    math.floor(a[2] + (b[2] - a[2]) * u + 0.5), math.floor(a[3] + (b[3] - a[3]) * u + 0.5))
end

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(str)
  local out = {}
  for i = 1, #str, 3 do
    local a, b, c = str:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q1, q2, q3, q4 = (n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63
    out[#out + 1] = B64:sub(q1 + 1, q1 + 1) .. B64:sub(q2 + 1, q2 + 1)
      .. (b and B64:sub(q3 + 1, q3 + 1) or "=") .. (c and B64:sub(q4 + 1, q4 + 1) or "=")
  end
  return table.concat(out)
end

-- at most this many rectangles a grid (spy, heatmap); past it the grid is
-- one PNG image inside the SVG (a browser or an HTML exporter handles
-- one element faster than tens of thousands)
plot.max_cells = 2000

-- a grid of cells: color(k) is a colour "#rrggbb" or nil (nothing drawn)
-- for cell k (0-based, row-major). Rows of rectangles with runs of one
-- colour merged, or past plot.max_cells rectangles a PNG of the grid
-- (empty cells white) stretched over the same box.
local function cells(out, gh, gw, x0, y0, cw, ch, color)
  local runs = {}
  for r = 0, gh - 1 do
    local c = 0
    while c < gw do
      local col = color(r * gw + c)
      local c2 = c + 1
      while c2 < gw and color(r * gw + c2) == col do c2 = c2 + 1 end
      if col then runs[#runs + 1] = {r, c, c2, col} end
      c = c2
    end
  end
  if #runs <= plot.max_cells then
    for _, u in ipairs(runs) do
      out[#out + 1] = ('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>')
        :format(fmt(x0 + u[2] * cw), fmt(y0 + u[1] * ch), fmt((u[3] - u[2]) * cw + 0.3),
                fmt(ch + 0.3), u[4])
    end
    return
  end
  local index, palette, pal = {["#ffffff"] = 0}, {"\255\255\255"}, 1
  local rows = {}
  for r = 0, gh - 1 do
    local row = {}
    for c = 0, gw - 1 do
      local col = color(r * gw + c) or "#ffffff"
      local k = index[col]
      if not k then
        k = pal
        index[col], pal = k, pal + 1
        palette[#palette + 1] = string.char(tonumber(col:sub(2, 3), 16),
          tonumber(col:sub(4, 5), 16), tonumber(col:sub(6, 7), 16))
      end
      row[c + 1] = k
    end
    rows[r + 1] = string.char(table.unpack(row))
  end
  local png = C.png(gw, gh, table.concat(rows), table.concat(palette))
  out[#out + 1] = ('<image class="raster" x="%s" y="%s" width="%s" height="%s" preserveAspectRatio="none" image-rendering="optimizeSpeed" style="image-rendering: pixelated" xlink:href="data:image/png;base64,%s"/>')
    :format(fmt(x0), fmt(y0), fmt(gw * cw), fmt(gh * ch), base64(png))
end

local function render_xy(p, out, x0, y0, x1, y1, clip)
  -- the data's box
  local xlo, xhi, ylo, yhi
  local function widen(a, b, lo, hi)
    if not a then return lo, hi end
    if not lo then return a, b end
    return math.min(lo, a), math.max(hi, b)
  end
  local kind = p.kind
  for _, s in ipairs(p.series) do
    if s.kind == "hist" then
      xlo, xhi = widen(s.lo, s.hi, xlo, xhi)
      local a, b = C.range(s.counts, p.logy)
      if not p.logy then a = 0 end
      ylo, yhi = widen(a, b, ylo, yhi)
    elseif s.kind == "bar" then
      xlo, xhi = widen(0, s.n, xlo, xhi)
      local a, b = C.range(s.ys, p.logy)
      if not p.logy and a then a, b = math.min(a, 0), math.max(b, 0) end
      ylo, yhi = widen(a, b, ylo, yhi)
    else
      xlo, xhi = widen(select(1, C.range(s.xs, p.logx)), select(2, C.range(s.xs, p.logx)), xlo, xhi)
      ylo, yhi = widen(select(1, C.range(s.ys, p.logy)), select(2, C.range(s.ys, p.logy)), ylo, yhi)
    end
  end
  local xmap, xt, xl, ymap, yt, yl
  if kind == "bar" then
    local n = p.series[1].n
    xmap = function(v) return x0 + v / math.max(n, 1) * (x1 - x0) end
    xt, xl = {}, {}
    local every = math.max(1, math.ceil(n / 20))
    for i = 1, n, every do xt[#xt + 1] = i - 0.5; xl[#xl + 1] = p.series[1].labels[i] end
  else
    xmap, xt, xl = axis(xlo, xhi, p.logx, x0, x1)
  end
  ymap, yt, yl = axis(ylo, yhi, p.logy, y1, y0)
  frame(out, p, x0, y0, x1, y1, xmap, xt, xl, ymap, yt, yl)
  for _, s in ipairs(p.series) do
    out[#out + 1] = ('<g class="series" data-kind="%s" data-n="%d"%s clip-path="url(#%s)">')
      :format(s.kind, s.n, s.label and (' data-label="%s"'):format(esc(s.label)) or "", clip)
    if s.kind == "line" or s.kind == "scatter" then
      local pts = {}
      for i = 1, #s.xs do
        local x, y = s.xs[i], s.ys[i]
        if (not p.logx or x > 0) and (not p.logy or y > 0) and x == x and y == y then
          pts[#pts + 1] = fmt(xmap(x)) .. "," .. fmt(ymap(y))
        end
      end
      if s.kind == "line" then
        out[#out + 1] = ('<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round" points="%s"/>')
          :format(s.color, table.concat(pts, " "))
      else
        for i = 1, #pts do pts[i] = "M" .. pts[i] .. "h0" end
        out[#out + 1] = ('<path fill="none" stroke="%s" stroke-width="5" stroke-linecap="round" stroke-opacity="0.8" d="%s"/>')
          :format(s.color, table.concat(pts))
      end
    elseif s.kind == "hist" then
      local nb = #s.counts
      local bw = (s.hi - s.lo) / nb
      local base = p.logy and y1 or ymap(0)
      for b = 1, nb do
        local c = s.counts[b]
        if c > 0 then
          local xa, xb, y = xmap(s.lo + (b - 1) * bw), xmap(s.lo + b * bw), ymap(c)
          out[#out + 1] = ('<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="white" stroke-width="0.5"/>')
            :format(fmt(xa), fmt(y), fmt(math.max(xb - xa, 0.5)), fmt(math.max(base - y, 0)), s.color)
        end
      end
    elseif s.kind == "bar" then
      local base = p.logy and y1 or ymap(0)
      for i = 1, s.n do
        local v = s.ys[i]
        if v == v and (not p.logy or v > 0) then
          local xa, xb, y = xmap(i - 0.9), xmap(i - 0.1), ymap(v)
          out[#out + 1] = ('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>')
            :format(fmt(xa), fmt(math.min(y, base)), fmt(xb - xa), fmt(math.abs(base - y)), s.color)
        end
      end
    end
    out[#out + 1] = '</g>'
  end
  legend(out, p, x1, y0)
end

local function render_heatmap(p, out, x0, y0, x1, y1)
  local s = p.series[1]
  local lo, hi = C.range(s.grid, false)
  lo, hi = lo or 0, hi or 1
  local span = hi > lo and hi - lo or 1
  local xmap, xt, xl = axis(0, s.cols, false, x0, x1)
  local ymap, yt, yl = axis(0, s.rows, false, y0, y1)
  -- cells fill the frame exactly (no padding)
  xmap = function(v) return x0 + v / s.cols * (x1 - x0) end
  ymap = function(v) return y0 + v / s.rows * (y1 - y0) end
  xt, yt = nice_ticks(0, s.cols, 6), nice_ticks(0, s.rows, 6)
  xl, yl = {}, {}
  for i, t in ipairs(xt) do xl[i] = num(t) end
  for i, t in ipairs(yt) do yl[i] = num(t) end
  out[#out + 1] = ('<g class="series" data-kind="heatmap" data-n="%d" data-grid="%dx%d">')
    :format(s.n, s.gh, s.gw)
  local levels = {}
  for k = 0, 63 do levels[k] = viridis(k / 63) end
  cells(out, s.gh, s.gw, x0, y0, (x1 - x0) / s.gw, (y1 - y0) / s.gh, function(k)
    local v = s.grid[k + 1]
    if v ~= v then return nil end
    return levels[math.floor((v - lo) / span * 63 + 0.5)]
  end)
  out[#out + 1] = '</g>'
  frame(out, p, x0, y0, x1, y1, xmap, xt, xl, ymap, yt, yl)
  -- the colour bar
  local bx = x1 + 14
  out[#out + 1] = '<g class="colorbar">'
  for k = 0, 31 do
    out[#out + 1] = ('<rect x="%s" y="%s" width="12" height="%s" fill="%s"/>')
      :format(fmt(bx), fmt(y1 - (k + 1) * (y1 - y0) / 32), fmt((y1 - y0) / 32 + 0.3), viridis(k / 31))
  end
  out[#out + 1] = ('<text class="tick" x="%s" y="%s">%s</text><text class="tick" x="%s" y="%s">%s</text></g>')
    :format(fmt(bx + 16), fmt(y0 + 8), esc(num(hi)), fmt(bx + 16), fmt(y1), esc(num(lo)))
end

local SPY_SHADES = {"#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"}

local function render_spy(p, out, x0, y0, x1, y1)
  local s = p.series[1]
  -- square cells: the frame shrinks to the matrix's aspect
  local cw = math.min((x1 - x0) / s.gw, (y1 - y0) / s.gh)
  x0 = x0 + ((x1 - x0) - cw * s.gw) / 2
  x1, y1 = x0 + cw * s.gw, y0 + cw * s.gh
  local maxc = 0
  for k = 1, #s.counts do if s.counts[k] > maxc then maxc = s.counts[k] end end
  local lm = math.log(maxc + 1)
  out[#out + 1] = ('<g class="series" data-kind="spy" data-n="%d" data-grid="%dx%d" data-rows="%d" data-cols="%d">')
    :format(s.n, s.gh, s.gw, s.rows, s.cols)
  cells(out, s.gh, s.gw, x0, y0, cw, cw, function(k)
    local c = s.counts[k + 1]
    if c == 0 then return nil end
    if maxc <= 1 then return SPY_SHADES[#SPY_SHADES] end
    return SPY_SHADES[math.max(1, math.ceil(math.log(c + 1) / lm * #SPY_SHADES))]
  end)
  out[#out + 1] = '</g>'
  local xt, yt = nice_ticks(0, s.cols, 4), nice_ticks(0, s.rows, 5)
  local xl, yl = {}, {}
  for i, t in ipairs(xt) do xl[i] = num(t) end
  for i, t in ipairs(yt) do yl[i] = num(t) end
  frame(out, p, x0, y0, x1, y1, function(v) return x0 + v / math.max(s.cols, 1) * (x1 - x0) end,
        xt, xl, function(v) return y0 + v / math.max(s.rows, 1) * (y1 - y0) end, yt, yl)
end

local function render_graph(p, out, x0, y0, x1, y1)
  local s = p.series[1]
  local side = math.min(x1 - x0, y1 - y0)
  local cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
  local r = s.n <= 100 and 5 or (s.n <= 500 and 3.5 or 2)
  local function X(i) return cx + (s.xs[i + 1] - 0.5) * (side - 2 * r - 4) end
  local function Y(i) return cy + (s.ys[i + 1] - 0.5) * (side - 2 * r - 4) end
  out[#out + 1] = ('<g class="series" data-kind="graph" data-n="%d" data-edges="%d">')
    :format(s.n, #s.edges)
  local d = {}
  for i, e in ipairs(s.edges) do
    d[i] = "M" .. fmt(X(e[1])) .. "," .. fmt(Y(e[1])) .. "L" .. fmt(X(e[2])) .. "," .. fmt(Y(e[2]))
  end
  out[#out + 1] = ('<path class="edges" fill="none" stroke="#888" stroke-opacity="0.7" stroke-width="%s" d="%s"/>')
    :format(s.n <= 100 and "1" or "0.5", table.concat(d))
  -- colours: integers with at most 64 distinct values are categories
  -- (component or community labels), numbered in order of appearance;
  -- anything else a viridis scale
  local clo, chi, category
  if s.color then
    clo, chi = C.range(s.color, false)
    category = {}
    local k = 0
    for i = 1, s.n do
      local c = s.color[i]
      if c ~= math.floor(c) then category = nil break end
      if not category[c] then
        k = k + 1
        if k > 64 then category = nil break end
        category[c] = k
      end
    end
  end
  out[#out + 1] = '<g class="vertices">'
  for i = 0, s.n - 1 do
    local fill = PALETTE[1]
    if s.color then
      local c = s.color[i + 1]
      if category then fill = PALETTE[(category[c] - 1) % #PALETTE + 1]
      else fill = viridis(chi > clo and (c - clo) / (chi - clo) or 0.5) end
    end
    out[#out + 1] = ('<circle cx="%s" cy="%s" r="%s" fill="%s" stroke="white" stroke-width="0.5"/>')
      :format(fmt(X(i)), fmt(Y(i)), fmt(r), fill)
    if s.labels then
      out[#out + 1] = ('<text class="vlabel" x="%s" y="%s" font-size="10">%d</text>')
        :format(fmt(X(i) + r + 1), fmt(Y(i) - r), i)
    end
  end
  out[#out + 1] = '</g></g>'
  if p.title then
    out[#out + 1] = ('<text class="title" x="%s" y="24" text-anchor="middle" font-size="15">%s</text>')
      :format(fmt(p.width / 2), esc(p.title))
  end
end

-- p:svg() --> the picture as an SVG document (a string)
function Plot:svg()
  if not is_plot(self) then fail("svg", "call it as p:svg(), got %s", describe(self)) end
  local out = {}
  local w, h = self.width, self.height
  out[1] = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="%d" height="%d" viewBox="0 0 %d %d" class="speck-plot" data-kind="%s" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">')
    :format(w, h, w, h, self.kind)
  out[2] = '<rect width="100%" height="100%" fill="white"/>'
  local x0, y0, x1, y1 = ML, MT, w - MR, h - MB
  if self.kind == "heatmap" then x1 = w - MR - 60 end
  clip_seq = clip_seq + 1
  local clip = ("speck-clip-%s-%d"):format(clip_tag, clip_seq)
  out[3] = ('<defs><clipPath id="%s"><rect x="%s" y="%s" width="%s" height="%s"/></clipPath></defs>')
    :format(clip, fmt(x0), fmt(y0), fmt(x1 - x0), fmt(y1 - y0))
  if self.kind == "heatmap" then render_heatmap(self, out, x0, y0, x1, y1)
  elseif self.kind == "spy" then render_spy(self, out, x0, y0, x1, y1)
  elseif self.kind == "graph" then render_graph(self, out, x0, y0, x1, y1)
  else render_xy(self, out, x0, y0, x1, y1, clip) end
  out[#out + 1] = '</svg>\n'
  return table.concat(out, "\n")
end

-- -- files ---------------------------------------------------------------------
local function quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function write_file(fname, path, data)
  local fh, msg = io.open(path, "wb")
  if not fh then fail(fname, "cannot write '%s': %s", path, msg) end
  fh:write(data)
  fh:close()
end

-- is rsvg-convert there? (asked once)
local have_rsvg
function plot.png_available()
  if have_rsvg == nil then
    local okc = os.execute("command -v rsvg-convert >/dev/null 2>&1")
    have_rsvg = okc == true
  end
  return have_rsvg
end

-- p:png() --> the picture as PNG bytes (the SVG through rsvg-convert)
function Plot:png()
  local f = "png"
  if not is_plot(self) then fail(f, "call it as p:png(), got %s", describe(self)) end
  if not plot.png_available() then
    fail(f, "PNG needs rsvg-convert (Debian package librsvg2-bin), which is not installed; p:svg() and p:save(\"x.svg\") work without it")
  end
  local base = os.tmpname()
  local svg, png = base .. ".svg", base .. ".png"
  write_file(f, svg, self:svg())
  local ok = os.execute("rsvg-convert -f png -o " .. quote(png) .. " " .. quote(svg)
                        .. " 2>/dev/null")
  os.remove(svg)
  os.remove(base)
  local fh = ok and io.open(png, "rb")
  local data = fh and fh:read("a")
  if fh then fh:close() end
  os.remove(png)
  if not data or #data == 0 then fail(f, "rsvg-convert could not render the picture") end
  return data
end

-- p:save("x.svg" | "x.png") --> the path
function Plot:save(path)
  local f = "save"
  if not is_plot(self) then fail(f, "call it as p:save(path), got %s", describe(self)) end
  if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
  local ext = path:match("%.(%w+)$")
  ext = ext and ext:lower()
  if ext == "svg" then write_file(f, path, self:svg())
  elseif ext == "png" then write_file(f, path, self:png())
  else fail(f, "'%s': the file name must end in .svg or .png", path) end
  return path
end

MT_PLOT.__tostring = function(p)
  return ("Plot<%s, %d series%s>"):format(p.kind, #p.series,
    p.title and (", '" .. p.title .. "'") or "")
end

-- the terminal REPL shows a plot by saving it: the path of a new file in
-- SPECK_PLOT_DIR (or the temporary folder)
local saved = 0
function plot.show_in_terminal(p)
  local dir = os.getenv("SPECK_PLOT_DIR")
  local path
  if dir and dir ~= "" then
    saved = saved + 1
    path = ("%s/speck-plot-%d.svg"):format(dir, saved)
  else
    local base = os.tmpname()
    os.remove(base)
    path = base .. ".svg"
  end
  p:save(path)
  return path
end

return plot
