-- speck/jupyter.lua: the Lua half of speck's Jupyter kernel
-- (jupyter/speck_kernel.py is the other: Debian's ipykernel, the wire
-- protocol, calling libspeck through the embedding API). One VM a kernel;
-- a cell runs as a chunk named "cell N" (so errors say "cell N:line:"),
-- globals persist across cells, and the value of a cell's last expression
-- is shown richly:
--   a view: an HTML table (elided past 25 rows / 20 columns) headed by
--     its label, dtype, extents, layout and space;
--   a CrsMatrix: its spy picture (SVG) and a summary table;
--   a Graph: a summary and, under 300 vertices, a drawing (speck.plot);
--   a plot: SVG and PNG;  a table (speck.jit.stats(), a profile): a table.
-- Everything reaches the kernel as JSON through speck.output (the
-- embedding API's output hook, stream 16): {"type": "result" | "display"
-- | "error" | "complete" | "inspect", ...}.
local speck = require "speck"
local repl = require "speck.repl"

local jupyter = {}

-- -- JSON and base64 -------------------------------------------------------------
local ESC = {['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
             ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t"}
local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return ESC[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local ARRAY = {}   -- the metatable of a table written as a JSON array even when empty

local function json(x)
  local t = type(x)
  if t == "string" then return json_string(x) end
  if t == "number" then
    if x ~= x or x == math.huge or x == -math.huge then return "null" end
    return math.type(x) == "integer" and tostring(x) or ("%.17g"):format(x)
  end
  if t == "boolean" then return tostring(x) end
  if t == "table" then
    if x[1] ~= nil or next(x) == nil and getmetatable(x) == ARRAY then
      local parts = {}
      for i, v in ipairs(x) do parts[i] = json(v) end
      return "[" .. table.concat(parts, ",") .. "]"
    end
    local keys = {}
    for k in pairs(x) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    local parts = {}
    for i, k in ipairs(keys) do parts[i] = json_string(k) .. ":" .. json(x[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return "null"
end
jupyter.json = json

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q = {}
    for k = 1, 4 do
      local v = (n >> (6 * (4 - k))) & 63
      q[k] = B64:sub(v + 1, v + 1)
    end
    if not b then q[3], q[4] = "=", "=" elseif not c then q[4] = "=" end
    out[#out + 1] = table.concat(q)
  end
  return table.concat(out)
end
jupyter.base64 = base64

local function emit(msg)
  local out = debug.getregistry()["speck.output"]
  if out then out(16, json(msg)) end
end

-- -- rich display -------------------------------------------------------------------
local function esc(s)
  return (tostring(s):gsub("[&<>\"]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
                                       ['"'] = "&quot;"}))
end

local function mt_name(x)
  local mt = getmetatable(x)
  return type(mt) == "table" and rawget(mt, "__name") or nil
end

local ROWS, COLS, EDGE_R, EDGE_C = 25, 20, 10, 8

-- the indices shown of n: all, or the first and last 'edge' with false between
local function shown(n, limit, edge)
  local t = {}
  if n <= limit then
    for i = 0, n - 1 do t[#t + 1] = i end
  else
    for i = 0, edge - 1 do t[#t + 1] = i end
    t[#t + 1] = false
    for i = n - edge, n - 1 do t[#t + 1] = i end
  end
  return t
end

local TABLE_STYLE = 'style="font-family: monospace; font-size: 12px"'

local function view_html(v)
  local ext = v:extents()
  local head = ("<div><b>View '%s'</b> %s[%s], layout %s, space %s</div>"):format(
    esc(v:label()), esc(v:dtype()), table.concat(ext, "]["), esc(v:layout()), esc(v:space()))
  local rank = v:rank()
  if rank == 0 or rank > 2 then
    return head .. "<pre>" .. esc(repl.format(v)) .. "</pre>"
  end
  local ok, h = pcall(function()
    if speck.host_accessible(v:space()) then return v end
    return speck.create_mirror_view_and_copy("host", v)
  end)
  if not ok then return head .. "<pre>" .. esc(tostring(h)) .. "</pre>" end
  local function cell(...)
    local okv, x = pcall(h, ...)
    return okv and esc(repl.format_element(x)) or "?"
  end
  local out = {head, "<table " .. TABLE_STYLE .. ">"}
  if rank == 1 then
    out[#out + 1] = "<tr><th>i</th><th>value</th></tr>"
    for _, i in ipairs(shown(ext[1], ROWS, EDGE_R)) do
      if i then
        out[#out + 1] = ("<tr><th>%d</th><td>%s</td></tr>"):format(i, cell(i))
      else
        out[#out + 1] = "<tr><th>&#8942;</th><td>&#8942;</td></tr>"
      end
    end
  else
    local cols = shown(ext[2], COLS, EDGE_C)
    local hdr = {"<tr><th></th>"}
    for _, j in ipairs(cols) do hdr[#hdr + 1] = j and ("<th>%d</th>"):format(j) or "<th>&#8230;</th>" end
    out[#out + 1] = table.concat(hdr) .. "</tr>"
    for _, i in ipairs(shown(ext[1], ROWS, EDGE_R)) do
      local row = {i and ("<tr><th>%d</th>"):format(i) or "<tr><th>&#8942;</th>"}
      for _, j in ipairs(cols) do
        row[#row + 1] = (i and j) and ("<td>%s</td>"):format(cell(i, j)) or "<td>&#8230;</td>"
      end
      out[#out + 1] = table.concat(row) .. "</tr>"
    end
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

local function kv_table(rows)
  local out = {"<table " .. TABLE_STYLE .. ">"}
  for _, r in ipairs(rows) do
    out[#out + 1] = ("<tr><th style=\"text-align: left\">%s</th><td>%s</td></tr>"):format(esc(r[1]), esc(r[2]))
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

local function scalar(x)
  if type(x) == "number" then return repl.format_element(x) end
  if type(x) == "table" and not mt_name(x) then
    local parts = {}
    for k, v in pairs(x) do
      parts[#parts + 1] = tostring(k) .. "=" .. (type(v) == "table" and "{...}" or tostring(v))
      if #parts > 8 then parts[#parts + 1] = "..." break end
    end
    table.sort(parts)
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(x)
end

-- a plain table as HTML: records (an array of tables) as rows with a
-- column per key; fields as key/value rows, a field that is an array of
-- records as its own table below
local function records_html(list)
  local cols, seen = {}, {}
  for _, r in ipairs(list) do
    for k in pairs(r) do
      if not seen[k] then seen[k] = true; cols[#cols + 1] = k end
    end
  end
  table.sort(cols, function(a, b)
    if a == "label" or a == "name" then return b ~= "label" and b ~= "name" or a < b end
    if b == "label" or b == "name" then return false end
    return tostring(a) < tostring(b)
  end)
  local out = {"<table " .. TABLE_STYLE .. "><tr>"}
  for _, c in ipairs(cols) do out[#out + 1] = "<th>" .. esc(c) .. "</th>" end
  out[#out + 1] = "</tr>"
  for _, r in ipairs(list) do
    out[#out + 1] = "<tr>"
    for _, c in ipairs(cols) do out[#out + 1] = "<td>" .. esc(r[c] == nil and "" or scalar(r[c])) .. "</td>" end
    out[#out + 1] = "</tr>"
  end
  out[#out + 1] = "</table>"
  return table.concat(out)
end

local function is_records(t)
  if type(t) ~= "table" or mt_name(t) or #t == 0 then return false end
  for _, r in ipairs(t) do
    if type(r) ~= "table" or mt_name(r) then return false end
  end
  return true
end

local function table_html(t)
  if is_records(t) then return records_html(t) end
  local rows, subs = {}, {}
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local v = t[k]
    if is_records(v) then subs[#subs + 1] = {k, v}
    else rows[#rows + 1] = {tostring(k), scalar(v)} end
  end
  local out = {kv_table(rows)}
  for _, s in ipairs(subs) do
    out[#out + 1] = "<div><b>" .. esc(s[1]) .. "</b></div>" .. records_html(s[2])
  end
  return table.concat(out, "\n")
end

jupyter.graph_drawing_limit = 300

-- the MIME bundle of a value: {["text/plain"] = ..., ...}
function jupyter.bundle(x)
  local name = mt_name(x)
  if name == "speck.View" then
    return {["text/plain"] = repl.format(x), ["text/html"] = view_html(x)}
  end
  if name == "speck.Plot" then
    local b = {["text/plain"] = tostring(x), ["image/svg+xml"] = x:svg()}
    local plot = require "speck.plot"
    if plot.png_available() then
      local ok, png = pcall(x.png, x)
      if ok then b["image/png"] = base64(png) end
    end
    return b
  end
  if name == "speck.CrsMatrix" then
    local plot = require "speck.plot"
    local nnz, n = x:nnz(), x:nrows()
    return {["text/plain"] = tostring(x),
            ["text/html"] = kv_table({{"rows", x:nrows()}, {"columns", x:ncols()}, {"nnz", nnz},
              {"nnz per row", ("%.2f"):format(n > 0 and nnz / n or 0)}, {"dtype", x:dtype()},
              {"space", x:space()}, {"sorted", tostring(x:is_sorted())}}),
            ["image/svg+xml"] = plot.spy(x):svg()}
  end
  if name == "speck.Graph" then
    local b = {["text/plain"] = tostring(x),
               ["text/html"] = kv_table({{"vertices", x:num_vertices()}, {"edges", x:num_edges()},
                 {"directed", tostring(x:is_directed())}, {"weighted", tostring(x:is_weighted())},
                 {"space", x:space()}})}
    if x:num_vertices() <= jupyter.graph_drawing_limit then
      b["image/svg+xml"] = require("speck.plot").graph(x):svg()
    end
    return b
  end
  if type(x) == "table" and not name then
    return {["text/plain"] = scalar(x), ["text/html"] = table_html(x)}
  end
  return {["text/plain"] = tostring(x)}
end

-- display(x): show x in the cell now (a global in the kernel)
function jupyter.display(...)
  for i = 1, select("#", ...) do
    emit({type = "display", data = jupyter.bundle((select(i, ...)))})
  end
end

-- -- running a cell -------------------------------------------------------------
local function compile(code, name)
  if code:match("^%s*=") then code = code:gsub("^%s*=", "return ", 1) end
  local f = load("return " .. code .. "\n;", name, "t")
  if f then return f end
  -- the last line as an expression whose value is shown
  local body = code:gsub("%s+$", "")
  local head, last = body:match("^(.*\n)([^\n]*)$")
  -- (the last line must be an expression on its own: "end" would make
  -- "return end", a statement; and one that cannot continue the line
  -- before: "- 1", "(x)", "{...}" or a string would be an operand or the
  -- arguments of a call there)
  if head and load("return " .. last, "=expr", "t") and not last:match("^%s*[-(%[{\"']") then
    f = load(head .. "return " .. last .. "\n;", name, "t")
    if f then return f end
  end
  return load(code, name, "t")
end

local function error_msg(e)
  if type(e) == "string" then return e end
  local mt = getmetatable(e)
  if mt and mt.__tostring then return tostring(e) end
  return ("(error object is a %s value)"):format(type(e))
end

-- run(code, n): the cell's value, output and error as JSON messages
function jupyter.run(code, n)
  local name = "=cell " .. tostring(n or "?")
  local f, err = compile(code, name)
  if not f then
    emit({type = "error", ename = "SyntaxError", evalue = err, traceback = {err}})
    return
  end
  local tb
  local res = table.pack(xpcall(f, function(e)
    local msg = error_msg(e)
    -- an interrupt lands wherever the chunk was: name the cell's line
    if msg:match("interrupted$") and not msg:match("^cell %d+:%d+:") then
      for level = 2, 200 do
        local info = debug.getinfo(level, "Sl")
        if not info then break end
        if info.source:match("^=cell ") and info.currentline > 0 then
          msg = ("%s:%d: interrupted"):format(info.short_src, info.currentline)
          break
        end
      end
    end
    tb = debug.traceback(msg, 2)
    return msg
  end))
  if not res[1] then
    local msg = res[2]
    local lines = {msg}
    -- the traceback's lines in the cells
    for l in (tb or ""):gmatch("[^\n]+") do
      if l:match("^%s+cell %d+:%d+:") then lines[#lines + 1] = l end
    end
    emit({type = "error", ename = msg:match("interrupted") and "Interrupted" or "Error",
          evalue = msg, traceback = lines})
    return
  end
  if res.n == 1 then return end
  if res.n == 2 then
    emit({type = "result", data = jupyter.bundle(res[2])})
    return
  end
  local parts = {}
  for i = 2, res.n do
    local x = res[i]
    parts[#parts + 1] = mt_name(x) == "speck.View" and repl.format(x) or tostring(x)
  end
  emit({type = "result", data = {["text/plain"] = table.concat(parts, "\t")}})
end

-- -- completion and inspection -------------------------------------------------------
-- the name being typed before byte 'pos' of 'code' (0-based, Jupyter's
-- cursor_pos counts characters: ASCII names agree)
local function word_at(code, pos, extend)
  local before = code:sub(1, pos)
  local word = before:match("[%w_%.:]*$") or ""
  local stop = pos
  if extend then
    local after = code:sub(pos + 1):match("^[%w_]*") or ""
    word = word .. after
    stop = pos + #after
  end
  return word, pos - #(before:match("[%w_%.:]*$") or ""), stop
end

function jupyter.complete(code, pos)
  local word, start = word_at(code, pos, false)
  local ok, matches = pcall(repl.complete, word)
  emit({type = "complete", matches = setmetatable(ok and matches or {}, ARRAY),
        cursor_start = start, cursor_end = pos})
end

-- the object a dotted name denotes, without calling anything
local function resolve(word)
  local obj = _G
  for part in word:gmatch("[^%.:]+") do
    if type(obj) ~= "table" then return nil end
    obj = rawget(obj, part)
    if obj == nil then return nil end
  end
  return obj
end

function jupyter.inspect(code, pos)
  local word = word_at(code, pos, true)
  word = word:gsub("[%.:]$", "")
  local text
  if word ~= "" then
    local obj = resolve(word)
    local doc = repl.doc(obj ~= nil and obj or word)
    -- a value with no entry (a view, a number, a table) shows itself; a
    -- function with none is not found
    if obj ~= nil and type(obj) ~= "function" and doc:match("^help: no entry") then
      local okb, b = pcall(jupyter.bundle, obj)
      doc = okb and b["text/plain"] or tostring(obj)
    end
    if not doc:match("^help: no entry") then text = doc end
  end
  emit({type = "inspect", found = text ~= nil, text = text or ""})
end

-- is_complete(code): "complete", "incomplete" (the chunk ends early: a
-- console asks for more lines) or "invalid"
function jupyter.is_complete(code)
  local status = "complete"
  if not compile(code, "=cell") then
    local _, err = load(code, "=cell", "t")
    status = err and err:match("<eof>$") and "incomplete" or "invalid"
  end
  emit({type = "is_complete", status = status})
end

return jupyter
