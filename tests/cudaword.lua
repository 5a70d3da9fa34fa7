-- cudaword.lua: the CUDA-word check of the house (issue 25: a back end is
-- one folder). Finds the words 'cuda' (any case), 'nvrtc', 'cubin', 'ptx'
-- (any case), 'CU_' and '__syncthreads' in CODE lines of the library's C
-- and Lua sources outside the CUDA back end's own files. Comments (C
-- '/* */' and '//', Lua '--' and '--[[ ]]') are skipped; string literals
-- are code, except the lines of the allowlist below, each with its reason
-- (help texts, the user-visible space names a user chooses, message texts
-- kept byte-identical).
--
--   lua5.4 tests/cudaword.lua [folder-or-file ...]   prints file:line: text
--                                                     for each, exits 1 if any
-- tests/house_spec.lua runs it over the whole tree.

local M = {}

-- the folders of the library
M.roots = {"core", "api", "exec", "jit", "dialect", "backends", "kernels",
           "vm", "io", "stdlib"}

-- where CUDA words belong: the CUDA back end's folder (its dialect
-- headers, the NVRTC tier and the CUDA code generator are in it)
M.exempt = {"^backends/cuda/"}

-- lines allowed to carry a CUDA word in a string: {file, plain text the
-- line contains, reason}
M.allow = {
  {"backends/errmsg.h", "backends/cuda/errmsg.h",
   "the one list of the back ends' message files, a line each (as the registry)"},
  {"jit/target.c", "sk_jit_target_cuda",
   "the one list of the JIT's code targets, a line each (as backends/registry.c lists back ends)"},
  {"backends/registry.c", "&sk_backend_cuda",
   "the registry line: the one place that lists the built-in back ends"},
  {"backends/registry.c", "extern const sk_backend sk_backend_cuda;",
   "the registry line's declaration of the CUDA table"},
}

local words_ci = {"cuda", "nvrtc", "cubin", "ptx"}
local words_cs = {"CU_", "__syncthreads"}

-- the end of the string literal (or character constant) opening at src[i]
-- (a line ends an unterminated one)
local function string_end(src, i)
  local c, j, n = src:sub(i, i), i + 1, #src
  while j <= n do
    local x = src:sub(j, j)
    if x == "\\" then j = j + 2
    elseif x == c or x == "\n" then break
    else j = j + 1 end
  end
  return j
end

-- 'src' with its comments blanked (newlines kept), strings kept
local function strip_c(src)
  local out, i, n = {}, 1, #src
  while i <= n do
    local c, d = src:sub(i, i), src:sub(i, i + 1)
    if d == "/*" then
      local e = src:find("*/", i + 2, true) or n - 1
      out[#out + 1] = src:sub(i, e + 1):gsub("[^\n]", " ")
      i = e + 2
    elseif d == "//" then
      local e = src:find("\n", i, true) or n + 1
      i = e
    elseif c == '"' or c == "'" then
      local j = string_end(src, i)
      out[#out + 1] = src:sub(i, j)
      i = j + 1
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return table.concat(out)
end

local function strip_lua(src)
  local out, i, n = {}, 1, #src
  while i <= n do
    local c = src:sub(i, i)
    if src:sub(i, i + 1) == "--" then
      local eq = src:match("^%[(=*)%[", i + 2)
      local e
      if eq then
        local _, stop = src:find("]" .. eq .. "]", i, true)
        e = stop or n
        out[#out + 1] = src:sub(i, e):gsub("[^\n]", " ")
        i = e + 1
      else
        i = src:find("\n", i, true) or n + 1
      end
    elseif c == "[" and src:match("^%[=*%[", i) then
      local eq = src:match("^%[(=*)%[", i)
      local _, stop = src:find("]" .. eq .. "]", i, true)
      stop = stop or n
      out[#out + 1] = src:sub(i, stop)
      i = stop + 1
    elseif c == '"' or c == "'" then
      local j = string_end(src, i)
      out[#out + 1] = src:sub(i, j)
      i = j + 1
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return table.concat(out)
end

local function exempt(path)
  for _, p in ipairs(M.exempt) do
    if path:match(p) then return true end
  end
  return false
end

local function allowed(path, line)
  for _, a in ipairs(M.allow) do
    if a[1] == path and line:find(a[2], 1, true) then return true end
  end
  return false
end

local function has_word(code)
  local low = code:lower()
  for _, w in ipairs(words_ci) do
    if low:find(w, 1, true) then return true end
  end
  for _, w in ipairs(words_cs) do
    if code:find(w, 1, true) then return true end
  end
  return false
end

-- the offending lines of one file: {"path:line: text", ...}
function M.check_file(path, found)
  if exempt(path) then return found end
  local f = io.open(path)
  if not f then return found end
  local src = f:read("a")
  f:close()
  local code = path:match("%.lua$") and strip_lua(src) or strip_c(src)
  local raw = {}
  for l in (src .. "\n"):gmatch("(.-)\n") do raw[#raw + 1] = l end
  local k = 0
  for l in (code .. "\n"):gmatch("(.-)\n") do
    k = k + 1
    if has_word(l) and not allowed(path, raw[k] or "") then
      found[#found + 1] = ("%s:%d: %s"):format(path, k, (raw[k] or ""):gsub("^%s+", ""))
    end
  end
  return found
end

-- every .c, .h and .lua file under 'paths' (folders or files), sorted
function M.files(paths)
  local list = {}
  for _, p in ipairs(paths) do
    local h = io.popen(("find %q -type f \\( -name '*.c' -o -name '*.h' -o " ..
                        "-name '*.lua' \\) 2>/dev/null"):format(p))
    for l in h:lines() do list[#list + 1] = (l:gsub("^%./", "")) end
    h:close()
  end
  table.sort(list)
  return list
end

function M.check(paths)
  local found = {}
  for _, f in ipairs(M.files(paths or M.roots)) do M.check_file(f, found) end
  return found
end

if not pcall(debug.getlocal, 4, 1) then   -- run as a script
  local found = M.check(#arg > 0 and arg or nil)
  for _, l in ipairs(found) do print(l) end
  print(("%d line%s with a CUDA word outside the CUDA back end"):format(
    #found, #found == 1 and "" or "s"))
  os.exit(#found == 0 and 0 or 1)
end

M.strip_c = strip_c
M.string_end = string_end
return M
