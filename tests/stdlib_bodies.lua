-- stdlib_bodies.lua: the house check that the library's Lua modules pass
-- no literal kernel body. A library body is written once in the dialect,
-- in kernels/<area>/*.sk, and a driver under stdlib/ gets it by name
-- (speck/ktext.lua's text(name)); so no call of speck.parallel_for,
-- parallel_reduce, parallel_scan or kernel there (directly, through a
-- local alias, or handed to another function as a value, as
-- run(f, speck.parallel_for, label, policy, captures, body) does) takes a
-- body that is, or is built from, a Lua string literal or long string.
--
-- The check reads the code, not lines: the source is split into Lua
-- tokens (comments dropped, strings and long strings one token each), a
-- launch's arguments are split at their top-level commas, and its 4th
-- argument (the body) is refused when, outside the arguments of the calls
-- in it, it holds a string token, or a variable whose assignments in the
-- file do (local BODY = [[...]], then BODY or BODY:format(...)). A
-- function's parameter (a user's body handed on) and text(...) pass.
--
--   lua5.4 tests/stdlib_bodies.lua [file-or-folder ...]   prints file:line:
--                                  what, exits 1 if any (default: stdlib)
-- tests/house_spec.lua runs it over stdlib/.

local M = {}

-- the end of a quoted literal: the CUDA-word check's scanner (one copy)
local string_end = dofile("tests/cudaword.lua").string_end

local LAUNCH = {parallel_for = true, parallel_reduce = true, parallel_scan = true,
                kernel = true}
local KEYWORD = {}
for w in ([[and break do else elseif end false for function goto if in local nil not
            or repeat return then true until while]]):gmatch("%a+") do KEYWORD[w] = true end

-- the tokens of Lua source 'src': {kind = "name"|"string"|"number"|"op",
-- text, line}
function M.tokens(src)
  local toks, i, n, line = {}, 1, #src, 1
  local function add(kind, text) toks[#toks + 1] = {kind = kind, text = text, line = line} end
  local function long_end(at) -- at: the '[' of '[=*['; returns the last index
    local eq = src:match("^%[(=*)%[", at)
    local _, stop = src:find("]" .. eq .. "]", at, true)
    return stop or n
  end
  while i <= n do
    local c = src:sub(i, i)
    if c == "\n" then
      line = line + 1
      i = i + 1
    elseif c:match("%s") then
      i = i + 1
    elseif src:sub(i, i + 1) == "--" then
      local stop
      if src:match("^%[=*%[", i + 2) then stop = long_end(i + 2)
      else stop = (src:find("\n", i, true) or n + 1) - 1 end
      local _, nl = src:sub(i, stop):gsub("\n", "")
      line = line + nl
      i = stop + 1
    elseif c == "[" and src:match("^%[=*%[", i) then
      local stop = long_end(i)
      add("string", src:sub(i, stop))
      local _, nl = src:sub(i, stop):gsub("\n", "")
      line = line + nl
      i = stop + 1
    elseif c == '"' or c == "'" then
      local j = string_end(src, i)
      add("string", src:sub(i, j))
      i = j + 1
    elseif c:match("[%a_]") then
      local w = src:match("^[%w_]+", i)
      add("name", w)
      i = i + #w
    elseif c:match("%d") or (c == "." and src:sub(i + 1, i + 1):match("%d")) then
      local j, hex = i, src:match("^0[xX]", i) ~= nil
      while j <= n do
        local x, prev = src:sub(j, j), src:sub(j - 1, j - 1)
        if x:match("[%w%.]") or (x == "+" or x == "-") and
           (hex and prev:match("[pP]") or not hex and prev:match("[eE]")) then
          j = j + 1
        else
          break
        end
      end
      add("number", src:sub(i, j - 1))
      i = j
    else
      local op = src:match("^%.%.%.", i) or src:match("^[=~<>/:%.][=/:%.<>]", i)
      if op and not ({["=="] = 1, ["~="] = 1, ["<="] = 1, [">="] = 1, ["//"] = 1,
                      ["::"] = 1, [".."] = 1, ["..."] = 1, ["<<"] = 1, [">>"] = 1})[op] then
        op = nil
      end
      op = op or c
      add("op", op)
      i = i + #op
    end
  end
  return toks
end

local OPEN = {["("] = ")", ["["] = "]", ["{"] = "}"}
local CLOSE = {[")"] = true, ["]"] = true, ["}"] = true}

-- the arguments from token 'i' on, up to the bracket that closes the
-- list (not included): a list of {first, last} token ranges
local function args_from(toks, i)
  local args, depth, first = {}, 0, i
  while i <= #toks do
    local t = toks[i]
    if t.kind == "op" and OPEN[t.text] then
      depth = depth + 1
    elseif t.kind == "op" and CLOSE[t.text] then
      if depth == 0 then break end
      depth = depth - 1
    elseif depth == 0 and t.kind == "op" and t.text == "," then
      args[#args + 1] = {first, i - 1}
      first = i + 1
    end
    i = i + 1
  end
  if i > first then args[#args + 1] = {first, i - 1} end
  return args
end

-- whether token i opens (or is) a call's argument: '(' , '{' or a string
-- right after a name, ')' or ']'
local function is_call_arg(toks, i)
  local p = toks[i - 1]
  if not p then return false end
  return (p.kind == "name" and not KEYWORD[p.text]) or
         (p.kind == "op" and (p.text == ")" or p.text == "]"))
end

-- the expressions assigned to variable 'name' in the file: {first, last}
-- ranges (to the end of the line, longer while a bracket is open or the
-- line ends with an operator)
local function assignments(toks, name)
  local out = {}
  for i = 1, #toks - 1 do
    local t, eq, p = toks[i], toks[i + 1], toks[i - 1]
    if t.kind == "name" and t.text == name and eq.kind == "op" and eq.text == "=" and
       not (p and p.kind == "op" and (p.text == "." or p.text == ":")) then
      local j, depth, last = i + 2, 0, i + 1
      while j <= #toks do
        local x = toks[j]
        if x.kind == "op" and OPEN[x.text] then depth = depth + 1
        elseif x.kind == "op" and CLOSE[x.text] then
          if depth == 0 then break end
          depth = depth - 1
        end
        local nx = toks[j + 1]
        last = j
        if depth == 0 and (not nx or nx.line > x.line) then
          local cont = x.kind == "op" and x.text ~= ")" and x.text ~= "]" and x.text ~= "}" or
                       (x.kind == "name" and (x.text == "and" or x.text == "or" or x.text == "not"))
          local next_cont = nx and (nx.kind == "op" and (nx.text == ".." or nx.text == ":" or
                            nx.text == ".") or nx.kind == "name" and (nx.text == "and" or nx.text == "or"))
          if not cont and not next_cont then break end
        end
        j = j + 1
      end
      out[#out + 1] = {i + 2, last}
    end
  end
  return out
end

-- why the expression toks[first..last] is built from a literal, or nil
local function literal(toks, first, last, seen)
  -- 'depth': inside a call's arguments, a table or an index; a grouping
  -- '(' stays at the expression's level ('open': whether each counted)
  local depth, open = 0, {}
  for i = first, last do
    local t = toks[i]
    if t.kind == "op" and OPEN[t.text] then
      local counts = t.text ~= "(" or is_call_arg(toks, i)
      open[#open + 1] = counts
      if counts then depth = depth + 1 end
    elseif t.kind == "op" and CLOSE[t.text] then
      if table.remove(open) then depth = depth - 1 end
    elseif depth == 0 and t.kind == "string" and not is_call_arg(toks, i) then
      return "a string literal"
    elseif depth == 0 and t.kind == "name" and not KEYWORD[t.text] then
      local p, nx = toks[i - 1], toks[i + 1]
      local field = p and p.kind == "op" and (p.text == "." or p.text == ":")
      local called = nx and (nx.kind == "string" or nx.kind == "op" and
                             (nx.text == "(" or nx.text == "{" or nx.text == "." or nx.text == "["))
      if not field and not called and not seen[t.text] then
        seen[t.text] = true
        for _, r in ipairs(assignments(toks, t.text)) do
          local why = literal(toks, r[1], r[2], seen)
          if why then
            return ("'%s' (assigned at line %d from %s)"):format(t.text, toks[r[1]].line, why)
          end
        end
      end
    end
  end
  return nil
end

-- the launches of file 'path' whose body is a literal, appended to 'found'
-- as "path:line: what"
function M.check_source(path, src, found)
  found = found or {}
  local toks = M.tokens(src)
  local prefix, alias = {speck = true, core = true}, {}
  for i = 1, #toks - 3 do -- local NAME = require "speck" / "speck.core"
    local t, eq, r, s = toks[i], toks[i + 1], toks[i + 2], toks[i + 3]
    if t.kind == "name" and eq.text == "=" and r.text == "require" then
      if s.text == "(" then s = toks[i + 4] end
      if s and s.kind == "string" and (s.text:match("^[\"']speck[\"']$") or
                                       s.text:match("^[\"']speck%.core[\"']$")) then
        prefix[t.text] = true
      end
    end
  end
  -- a launch reference: PREFIX . LAUNCH (tokens i..i+2), or an alias name
  local function launch_at(i)
    local t = toks[i]
    if t.kind == "name" and prefix[t.text] and toks[i + 1] and toks[i + 1].text == "." and
       toks[i + 2] and toks[i + 2].kind == "name" and LAUNCH[toks[i + 2].text] and
       not (toks[i - 1] and (toks[i - 1].text == "." or toks[i - 1].text == ":")) then
      return i + 2, t.text .. "." .. toks[i + 2].text
    end
    if t.kind == "name" and alias[t.text] and
       not (toks[i - 1] and (toks[i - 1].text == "." or toks[i - 1].text == ":")) and
       not (toks[i + 1] and toks[i + 1].text == "=") then
      return i, alias[t.text]
    end
  end
  for i = 1, #toks do
    local stop, what = launch_at(i)
    if stop then
      local nx = toks[stop + 1]
      local args
      if nx and nx.text == "(" then
        args = args_from(toks, stop + 2)
      elseif toks[i - 1] and toks[i - 1].text == "=" and toks[i - 2] and
             toks[i - 2].kind == "name" and (not nx or nx.line > toks[stop].line or
             nx.text == ";") then
        alias[toks[i - 2].text] = what -- local pf = speck.parallel_for
      elseif nx and nx.text == "," then -- handed on: f(..., speck.parallel_for, label, ...)
        args = args_from(toks, stop + 2)
      end
      local body = args and args[4]
      if body then
        local why = literal(toks, body[1], body[2], {})
        if why then
          found[#found + 1] = ("%s:%d: %s's body is %s: write it in kernels/<area>/*.sk, pass text(name)")
            :format(path, toks[body[1]].line, what, why)
        end
      end
    end
  end
  return found
end

function M.check_file(path, found)
  local f = assert(io.open(path, "rb"))
  local src = f:read("a")
  f:close()
  return M.check_source(path, src, found)
end

-- every .lua file under 'paths' (default {"stdlib"})
function M.check(paths)
  local found = {}
  for _, root in ipairs(paths or {"stdlib"}) do
    local p = io.popen("find '" .. root .. "' -name '*.lua' -type f | sort")
    for path in p:lines() do M.check_file(path, found) end
    p:close()
  end
  return found
end

if arg and arg[0] and arg[0]:match("stdlib_bodies%.lua$") then
  local found = M.check(#arg > 0 and {table.unpack(arg)} or nil)
  for _, l in ipairs(found) do print(l) end
  os.exit(#found == 0 and 0 or 1)
end

return M
