-- speck/repl.lua: what the REPL adds to Lua's: completion of names
-- (vm/main.c's readline hook calls complete), help (help.lua's table of
-- signatures) and pretty printing of views with elision ('= v').
-- Nothing here calls user code: completion reads tables raw and follows
-- only __index tables (and a C __index's method table).
local speck = require "speck"

local repl = {}

-- -- completion ----------------------------------------------------------------
local function is_ident(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil
end

-- the methods table behind a metatable's __index: a table, or the first
-- upvalue of a C __index that is a table (the View methods)
local function index_table(mt)
  local idx = type(mt) == "table" and rawget(mt, "__index") or nil
  if type(idx) == "table" then return idx end
  if type(idx) == "function" and debug and debug.getupvalue then
    local _, up = debug.getupvalue(idx, 1)
    if type(up) == "table" then return up end
  end
  return nil
end

-- field 'k' of 'obj' without running code: raw, then __index tables
local function peek(obj, k)
  local seen = 0
  while obj ~= nil and seen < 8 do
    if type(obj) == "table" then
      local v = rawget(obj, k)
      if v ~= nil then return v end
    end
    obj = index_table(getmetatable(obj))
    seen = seen + 1
  end
  return nil
end

-- every identifier key reachable from 'obj' (raw keys, then the __index
-- chain); methods only: keys whose values are functions
local function keys_of(obj, methods)
  local out, seen, depth = {}, {}, 0
  while obj ~= nil and depth < 8 do
    if type(obj) == "table" then
      for k, v in next, obj do
        if is_ident(k) and not seen[k] and (not methods or type(v) == "function") then
          seen[k] = true
          out[#out + 1] = k
        end
      end
    end
    obj = index_table(getmetatable(obj))
    depth = depth + 1
  end
  return out
end

-- Candidates completing 'word' ("speck.par", "v:ext", "spe"): full words,
-- sorted. The part before the last '.' or ':' must be a path of names
-- from the globals.
function repl.complete(word, env)
  env = env or _G
  if type(word) ~= "string" then return {} end
  local path, sep, partial = word:match("^(.-)([%.:])([%w_]*)$")
  local obj, prefix
  if not path then
    if not word:match("^[%w_]*$") then return {} end
    obj, prefix, partial = env, "", word
  else
    obj = env
    for name in (path .. "."):gmatch("([^%.]*)%.") do
      if not is_ident(name) then return {} end
      obj = peek(obj, name)
      if obj == nil then return {} end
    end
    prefix = path .. sep
  end
  local out = {}
  for _, k in ipairs(keys_of(obj, sep == ":")) do
    if k:sub(1, #partial) == partial then out[#out + 1] = prefix .. k end
  end
  table.sort(out)
  return out
end

-- -- help ------------------------------------------------------------------------
local SIGS   -- help.lua, loaded on first use

local function sigs()
  SIGS = SIGS or require "speck.help"
  return SIGS
end

local function is_view(x)
  local mt = type(x) == "userdata" and getmetatable(x)
  return type(mt) == "table" and rawget(mt, "__name") == "speck.View"
end

-- the name help.lua knows 'f' by: a function of speck, of a loaded speck
-- module, or a view method (a function with several names, such as
-- speck.profile.push and the core's profile_push, gets the documented one)
local function name_of(f)
  local S, found = sigs(), nil
  local function note(name)
    if S[name] then return name end
    found = found or name
  end
  local function search(t, prefix, depth)
    for k, v in next, t do
      if v == f and is_ident(k) then
        local n = note(prefix .. k)
        if n then return n end
      end
    end
    if depth > 0 then
      for k, v in next, t do
        if type(v) == "table" and is_ident(k) and k ~= "core" then
          local n = search(v, prefix .. k .. ".", depth - 1)
          if n then return n end
        end
      end
    end
  end
  local n = search(speck, "speck.", 1)
  if n then return n end
  for mod, t in pairs(package.loaded) do
    if type(t) == "table" and type(mod) == "string" and mod:match("^speck%.")
       and mod ~= "speck.core" then
      n = search(t, mod .. ".", 0)
      if n then return n end
    end
  end
  local methods = index_table(getmetatable(speck.View("help probe", "int8", 0)))
  if methods then
    for k, v in pairs(methods) do if v == f then return "View:" .. k end end
  end
  return found
end

local function entry_text(name)
  local e = sigs()[name]
  if not e then return nil end
  return e[1] .. "\n  " .. e[2]
end

-- the text help(x) prints
function repl.doc(x)
  local S = sigs()
  if x == nil then
    local names = {}
    for k in pairs(S) do
      if not k:match("^View:") then names[#names + 1] = k end
    end
    table.sort(names)
    return "help(f) shows the signature of a speck function (help(speck.parallel_for)),\n"
      .. "help \"name\" an entry by name, help(v) a view's methods. Tab completes names.\n"
      .. "Entries: " .. table.concat(names, " ")
  end
  if is_view(x) then
    local lines = {tostring(x) .. ", methods:"}
    local names = {}
    for k in pairs(S) do if k:match("^View:") then names[#names + 1] = k end end
    table.sort(names)
    for _, k in ipairs(names) do
      lines[#lines + 1] = ("  %-22s %s"):format(S[k][1], S[k][2])
    end
    return table.concat(lines, "\n")
  end
  local name
  if type(x) == "string" then
    name = S[x] and x or (S["speck." .. x] and "speck." .. x)
      or (S["View:" .. x] and "View:" .. x)
  elseif type(x) == "function" or type(x) == "table" then
    name = name_of(x)
    if not name and x == speck.View then name = "speck.View" end
  end
  local text = name and entry_text(name)
  if text then return text end
  return ("help: no entry for %s (help() lists them)"):format(
    type(x) == "string" and ("'" .. x .. "'") or tostring(x))
end

function repl.help(x)
  print(repl.doc(x))
end

-- -- pretty printing ------------------------------------------------------------------
local function fmt_elem(x)
  if type(x) == "boolean" then return tostring(x) end
  if type(x) == "table" then   -- an aggregate element (fad, ensemble)
    local parts = {}
    for i, c in ipairs(x) do parts[i] = fmt_elem(c) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  if math.type(x) == "integer" then return ("%d"):format(x) end
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  if x == math.floor(x) and math.abs(x) < 1e16 then return ("%.1f"):format(x) end
  return ("%.6g"):format(x)
end

-- an element as the REPL shows it (1.0, 2.5, nan, {1.0, 2.0} for aggregates)
repl.format_element = fmt_elem

-- The view's header and its elements as nested brackets; more than
-- opts.limit elements (1000) shows the first and last opts.edge (3) of
-- each long dimension with '...' between. Device views are copied to the
-- host to be shown.
function repl.format(v, opts)
  opts = opts or {}
  local limit, edge = opts.limit or 1000, opts.edge or 3
  local head = tostring(v)
  local rank, ext = v:rank(), v:extents()
  local ok, h = pcall(function()
    if not speck.host_accessible(v:space()) then
      return speck.create_mirror_view_and_copy("host", v)
    end
    return v
  end)
  if not ok then return head .. " (" .. tostring(h):gsub("^[^:]*:%d+: ", "") .. ")" end
  local elide = v:size() > limit
  -- the indices shown in dimension d: all, or edge ... edge (false = '...')
  local shown = {}
  for d = 1, rank do
    local n, list = ext[d], {}
    if elide and n > 2 * edge then
      for i = 0, edge - 1 do list[#list + 1] = i end
      list[#list + 1] = false
      for i = n - edge, n - 1 do list[#list + 1] = i end
    else
      for i = 0, n - 1 do list[#list + 1] = i end
    end
    shown[d] = list
  end
  -- format every shown element first, to align them
  local cells, width, idx = {}, 1, {}
  local function collect(d)
    if d > rank then
      local okv, x = pcall(h, table.unpack(idx, 1, rank))
      local s = okv and fmt_elem(x) or "?"
      cells[table.concat(idx, ",", 1, rank)] = s
      if #s > width then width = #s end
      return
    end
    for _, i in ipairs(shown[d]) do
      if i then
        idx[d] = i
        collect(d + 1)
      end
    end
  end
  if rank == 0 then
    local okv, x = pcall(h)
    return head .. "\n" .. (okv and fmt_elem(x) or "?")
  end
  collect(1)
  local function render(d, indent)
    local parts = {}
    for _, i in ipairs(shown[d]) do
      if not i then
        parts[#parts + 1] = "..."
      else
        idx[d] = i
        if d == rank then
          local s = cells[table.concat(idx, ",", 1, rank)]
          parts[#parts + 1] = (" "):rep(width - #s) .. s
        else
          parts[#parts + 1] = render(d + 1, indent .. " ")
        end
      end
    end
    local sep = d == rank and ", " or ("," .. ("\n"):rep(rank - d) .. indent .. " ")
    return "[" .. table.concat(parts, sep) .. "]"
  end
  return head .. "\n" .. render(1, "")
end

-- print(...) with views shown by format (the REPL's '= expr'); a plot is
-- saved to an SVG file whose path is printed
function repl.print(...)
  local n = select("#", ...)
  local parts, multi = {}, false
  for i = 1, n do
    local x = select(i, ...)
    if is_view(x) then
      parts[i] = repl.format(x)
      multi = true
    elseif type(x) == "table" and getmetatable(x)
           and rawget(getmetatable(x), "__name") == "speck.Plot" then
      -- a terminal shows no picture: the plot goes to a file
      parts[i] = tostring(x) .. " saved to " .. require("speck.plot").show_in_terminal(x)
    else
      parts[i] = tostring(x)
    end
  end
  print(table.concat(parts, multi and "\n" or "\t"))
end

return repl
