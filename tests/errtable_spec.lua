-- errtable_spec.lua: every message the C code writes comes from one table,
-- core/errmsg.h (SK_ERRDEF(ID, "text")). Proven by reading the sources:
-- no formatted write of an error buffer with a literal message outside
-- the table, and every call that raises an id passes as many arguments as
-- its text has slots (the compiler checks their types through sk_err's
-- macro), and no id is left that nothing raises. And the id crosses into
-- Lua with the text: core.err_last() names the message an error raised,
-- core.err_text() gives its text.

local core = require "speck.core"
local speck = require "speck"

local LAYERS = {"core", "io", "api", "exec", "jit", "backends", "kernels", "vm"}
local TABLE = "core/errmsg.h"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- the table's files: core/errmsg.h and the parts it includes (the back
-- ends' own messages, each in its folder), in order
local function table_files(path, out)
  out = out or {}
  out[#out + 1] = path
  for inc in read(path):gmatch('\n#include "([^"]+)"') do table_files(inc, out) end
  return out
end

local function sources()
  local out, parts = {}, {}
  for _, f in ipairs(table_files(TABLE)) do parts[f] = true end
  local p = io.popen("find " .. table.concat(LAYERS, " ") .. " -name '*.[ch]' | sort")
  for l in p:lines() do
    if not parts[l] then out[#out + 1] = l end
  end
  p:close()
  return out
end

-- the source with comments blanked (newlines kept, so lines still count),
-- strings kept: the CUDA-word check's reader
local strip_comments = dofile("tests/cudaword.lua").strip_c

-- the arguments of the call whose '(' is at s[open]: a list of strings
local function call_args(s, open)
  local args, depth, start, i = {}, 0, open + 1, open
  while i <= #s do
    local c = s:sub(i, i)
    if c == '"' or c == "'" then
      local j = i + 1
      while j <= #s and s:sub(j, j) ~= c do
        j = j + (s:sub(j, j) == "\\" and 2 or 1)
      end
      i = j
    elseif c == "(" or c == "[" or c == "{" then
      depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" then
      depth = depth - 1
      if depth == 0 then
        args[#args + 1] = s:sub(start, i - 1)
        return args
      end
    elseif c == "," and depth == 1 then
      args[#args + 1] = s:sub(start, i - 1)
      start = i + 1
    end
    i = i + 1
  end
  return args
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- the contents of the string literals in s, concatenated (escapes kept),
-- and what is left of s without them
local function literals(s)
  local out, rest, i = {}, {}, 1
  while true do
    local k = s:find('"', i, true)
    if not k then break end
    rest[#rest + 1] = s:sub(i, k - 1)
    local j = k + 1
    while j <= #s and s:sub(j, j) ~= '"' do
      j = j + (s:sub(j, j) == "\\" and 2 or 1)
    end
    out[#out + 1] = s:sub(k + 1, j - 1)
    i = j + 1
  end
  rest[#rest + 1] = s:sub(i)
  return table.concat(out), table.concat(rest)
end

-- the argument's text when it is string literals only, else nil
local function literal_arg(a)
  a = trim(a or "")
  local text, rest = literals(a)
  if a:match('^"') and not rest:match("[%w_]") then return text end
end

-- printf slots of a format ('*' widths count)
local function slots(t)
  local n = 0
  for spec in t:gmatch("%%([^%%diouxXeEfgGcsp]*[%%diouxXeEfgGcsp])") do
    if spec ~= "%" then
      n = n + 1
      for _ in spec:gmatch("%*") do n = n + 1 end
    end
  end
  return n
end

-- words outside the printf slots: a message, not a copy ("%s") or a number
local function has_words(lit)
  local plain = lit:gsub("\\.", " "):gsub("%%[-+ #0]*[%d%*]*%.?[%d%*]*[hlzjtL]*[diouxXeEfgGcsp%%]", " ")
  return plain:find("%a%a") ~= nil
end

local function lineof(s, pos)
  local _, k = s:sub(1, pos):gsub("\n", "")
  return k + 1
end

-- the table: id -> text
local function load_table()
  local t, order = {}, {}
  for _, f in ipairs(table_files(TABLE)) do
    local src = strip_comments(read(f))
    for pos, id in src:gmatch("()SK_ERRDEF%((%w[%w_]*),") do
      local args = call_args(src, src:find("(", pos, true))
      t[id] = (literals(args[2]))
      order[#order + 1] = id
    end
  end
  return t, order
end

-- functions that write a message into a buffer, and the position of their
-- format (an id, once converted)
local WRITERS = {snprintf = 3, vsnprintf = 3, sk_err = 3, sk_err_ = 3,
                 sk_lerror = 4, lv_raise = 4, luaL_error = 2, fail = false,
                 rd_fail = 2}
-- an error buffer: what a message is written into
local function error_buffer(a)
  a = trim(a)
  return a:match("err") or a == "e" or a:match("msg") or a:match("why")
         or a == "what" or a:match("status") or a:match("warning")
end

-- the C sources are read where they are (a checkout); a GPU bundle
-- carries the built library and the specs only
local function have_sources()
  local f = io.open(TABLE, "rb")
  if f then f:close() end
  return f ~= nil
end

describe("the error table", function()
  local HAVE_SRC = have_sources()
  local TABLE_T, ORDER = {}, {}
  if HAVE_SRC then TABLE_T, ORDER = load_table() end
  -- a test that reads the sources
  local function src_it(name, fn)
    it(name, function()
      if not HAVE_SRC then
        pending("the C sources are not in this tree (a bundle of the build)")
        return
      end
      fn()
    end)
  end

  src_it("holds every id once, each with a literal text", function()
    assert.is_true(#ORDER > 600)
    local seen, texts = {}, {}
    for _, id in ipairs(ORDER) do
      assert.is_nil(seen[id], "id " .. id .. " twice")
      seen[id] = true
      assert.is_nil(texts[TABLE_T[id]], ("ids %s and %s share a text"):format(
        tostring(texts[TABLE_T[id]]), id))
      texts[TABLE_T[id]] = id
    end
    assert.are.equal("out of memory", TABLE_T.NOMEM)
  end)

  src_it("is the only place C writes a message (file:line of each offender)", function()
    local bad = {}
    for _, path in ipairs(sources()) do
      local s = strip_comments(read(path))
      for pos, name, open in s:gmatch("()([%a_][%w_]*)%s*()%(") do
        local fpos = WRITERS[name]
        local before = s:sub(pos - 1, pos - 1)
        if fpos ~= nil and not before:match("[%w_]") then
          local args = call_args(s, open)
          local lit
          if fpos then
            local a = args[fpos]
            lit = literal_arg(a)
            if lit and (name == "snprintf" or name == "vsnprintf")
                and not error_buffer(args[1]) then
              lit = nil
            end
          else   -- a file's own fail(): a literal before any id, not a NAME
            for _, a in ipairs(args) do
              if trim(a):match("^SK_E_") then break end
              local l = literal_arg(a)
              if l and not l:match("^[%u%d_]+$") then
                lit = l
                break
              end
            end
          end
          if lit and has_words(lit) and not (path == "vm/main.c") then
            bad[#bad + 1] = ("%s:%d: %s(... \"%s\" ...)"):format(path, lineof(s, pos),
                                                               name, lit:sub(1, 60))
          end
        end
      end
    end
    if #bad > 0 then print("\nmessages outside core/errmsg.h:\n" .. table.concat(bad, "\n")) end
    assert.are.same({}, bad)
  end)

  src_it("is raised with as many arguments as each text has slots", function()
    local bad = {}
    for _, path in ipairs(sources()) do
      local s = strip_comments(read(path))
      for pos, name, open in s:gmatch("()([%a_][%w_]*)%s*()%(") do
        if WRITERS[name] ~= nil or name:match("fail") then
          local args = call_args(s, open)
          for k, a in ipairs(args) do
            local id = trim(a):match("^SK_E_([%w_]+)$")
            if id then
              local text = TABLE_T[id]
              if not text then
                bad[#bad + 1] = ("%s:%d: unknown id %s"):format(path, lineof(s, pos), id)
              elseif #args - k ~= slots(text) then
                bad[#bad + 1] = ("%s:%d: %s has %d slots, given %d arguments"):format(
                  path, lineof(s, pos), id, slots(text), #args - k)
              end
              break
            end
          end
        end
      end
    end
    assert.are.same({}, bad)
  end)

  src_it("holds no id that no code raises (a message whose text changed leaves one)", function()
    local used = {}
    for _, path in ipairs(sources()) do
      for id in read(path):gmatch("SK_E_([%w_]+)") do used[id] = true end
    end
    local unused = {}
    for _, id in ipairs(ORDER) do
      if not used[id] then unused[#unused + 1] = id end
    end
    assert.are.same({}, unused)
  end)

  it("gives Lua the id with the text", function()
    local ok, msg = pcall(speck.View, "x", "nope", 3)
    assert.is_false(ok)
    assert.are.equal("UNKNOWN_DTYPE_SHOWN", core.err_last())
    assert.are.equal("unknown dtype %s", core.err_text("UNKNOWN_DTYPE_SHOWN"))
    assert.is_truthy(tostring(msg):find("speck.View 'x': " ..
      core.err_text("UNKNOWN_DTYPE_SHOWN"):format("'nope'"), 1, true))
    assert.is_nil(core.err_text("NO_SUCH_ID"))
  end)

  it("names a library kernel's error after the public function, by id", function()
    local sparse = require "speck.sparse"
    local graph = require "speck.graph"
    local path = os.tmpname() .. "-none"
    local why = "No such file or directory"
    local ok, msg = pcall(sparse.read_mm, path)
    assert.is_false(ok)
    assert.are.equal("CANNOT_OPEN_PATH", core.err_last())
    local text = core.err_text("CANNOT_OPEN_PATH"):format(path, why)
    assert.is_truthy(tostring(msg):find("speck.sparse.read_mm: " .. text, 1, true))
    ok, msg = pcall(graph.read, path .. ".mtx")
    assert.is_false(ok)
    assert.are.equal("CANNOT_OPEN_PATH", core.err_last())
    text = core.err_text("CANNOT_OPEN_PATH"):format(path .. ".mtx", why)
    assert.is_truthy(tostring(msg):find("speck.graph.read: " .. text, 1, true))
  end)

  it("tells a body's compile error by id", function()
    local ok, msg = pcall(speck.parallel_for, "bad_body", 4, {}, "zz = 1;")
    assert.is_false(ok)
    assert.are.equal("BODY_NOT_COMPILE", core.err_last())
    assert.is_truthy(tostring(msg):find("speck.parallel_for 'bad_body': body does not compile:\n" ..
                                        "body line 1: error: 'zz' undeclared", 1, true))
  end)
end)
