-- embed.lua: turn text files into C string constants.
--
--   lua5.4 scripts/embed.lua OUT.c [--include HEADER] [--header OUT.h]
--                            NAME=PATH ... FILE.sk ...
--
-- writes OUT.c defining `const char NAME[]` with the contents of PATH for
-- each pair; a PATH that does not exist becomes the empty string (so an
-- optional header, such as the CUDA dialect, may be absent).
--
-- A dialect file kernels/<area>/<file>.sk holds many kernel texts, each
-- after a marker line and up to the next one:
--
--   //: name            the text of sk_body_<area>_<name> follows
--   //: name eol        the same, and the text ends with a newline
--   //: name part       the same, a text that other texts include (the
--                       flags may come together: 'part eol')
--   //+ name            (in a text) this line is text 'name''s lines,
--   //@ P value         with each '@P@' in them replaced by 'value'
--   //= P name          (or by text 'name')
--   //| a note          a line for the reader, not part of any text
--
-- A text is its lines joined by newlines, trailing empty lines dropped
-- (they separate the texts); before the first marker only notes, '//'
-- comments and empty lines. Code that texts share is written once, as a
-- text they include; with '//@' lines (right after its '//+') it is a
-- template: 'value' is the rest of the line ('\n' a newline, '\\' a
-- backslash), a placeholder given no value stays for the includer's
-- includer. Included texts may include others. With --header, OUT.h declares every constant
-- (rewritten only when it changes, so the C files that include it are
-- not rebuilt for an edit of a text).
--
-- With dialect files, OUT.c also defines the index of their texts,
-- `const char *const sk_ktext_index[]`: name, text, name, text, ...,
-- NULL, sorted by name, a text's name being its constant's without
-- 'sk_body_' ("dist_jacobi_apply"). Lua drivers get texts by name through
-- it (sk_kernel_text, kernels/registry.c; speck.core's kernel_text). A
-- text that keeps placeholders '@P@' to the end (no '//@' gave them a
-- value) is a template of its Lua driver, which fills every one at run
-- time: kernel_text(name, {P = value, ...}) refuses a placeholder left
-- without a value and a value no placeholder takes.

local out = arg[1]
if not out then
  io.stderr:write("usage: embed.lua OUT.c [--include HEADER] NAME=PATH ...\n")
  os.exit(2)
end

-- One C string literal per input line: escape what C would interpret
-- (backslash, quote, '?' against trigraphs, control bytes) and keep the
-- newlines, so the text compiles back to exactly the file's bytes.
local function cstring(text)
  if text == "" then return '  ""' end
  local lines = {}
  for line in text:gmatch("[^\n]*\n?") do
    if line ~= "" then
      local esc = line:gsub('[\\"?%c\128-\255]', function(c)
        if c == "\n" then return "\\n" end
        if c == "\t" then return "\\t" end
        if c == "\\" or c == '"' or c == "?" then return "\\" .. c end
        return string.format("\\%03o", c:byte())
      end)
      lines[#lines + 1] = '  "' .. esc .. '"'
    end
  end
  return table.concat(lines, "\n")
end

local function fail(...)
  io.stderr:write("embed.lua: ", ...)
  io.stderr:write("\n")
  os.exit(1)
end

-- the texts of dialect file 'path' (see above), appended to 'inputs'
local function sk_file(path, inputs)
  local area = path:match("([%w_]+)/[^/]+%.sk$")
  if not area then fail("bad dialect file name '", path, "'") end
  local f = io.open(path, "rb")
  if not f then fail("cannot read '", path, "'") end
  local text = assert(f:read("a"))
  f:close()
  local seen, cur, ln, texts, byname = {}, nil, 0, {}, {}
  local function finish()
    if not cur then return end
    local lines = cur.lines
    while #lines > 0 and lines[#lines] == "" do lines[#lines] = nil end
    texts[#texts + 1] = cur
    byname[cur.short] = cur
  end
  for line in text:gmatch("([^\n]*)\n?") do
    ln = ln + 1
    if line:sub(1, 3) == "//:" then
      local name, flags = line:match("^//:%s*([%a_][%w_]*)([%a%s]*)$")
      local flag = {}
      for f in (flags or ""):gmatch("%a+") do
        if f ~= "eol" and f ~= "part" then name = nil end
        flag[f] = true
      end
      if not name then fail(path, ":", ln, ": bad marker '", line, "'") end
      local sym = "sk_body_" .. area .. "_" .. name
      if seen[sym] then fail(path, ":", ln, ": second text named '", name, "'") end
      seen[sym] = true
      finish()
      cur = { name = sym, short = name, path = path .. ": " .. name, lines = {},
              eol = flag.eol, part = flag.part }
    elseif line:sub(1, 3) == "//|" then
      -- a note
    elseif cur then
      cur.lines[#cur.lines + 1] = line
    elseif line ~= "" and line:sub(1, 2) ~= "//" then
      fail(path, ":", ln, ": text before the first marker")
    end
  end
  finish()
  -- text 't''s lines with its includes expanded ('depth': against cycles)
  local function expand(t, depth)
    if depth > 16 then fail(t.path, ": includes nest too deep (a cycle?)") end
    local lines, k = {}, 1
    while k <= #t.lines do
      local line = t.lines[k]
      local inc = line:match("^//%+%s*([%a_][%w_]*)%s*$")
      if inc then
        local piece = byname[inc]
        if not piece then fail(t.path, ": no text '", inc, "' in this file") end
        local text = table.concat(expand(piece, depth + 1), "\n")
        while k < #t.lines and (t.lines[k + 1]:sub(1, 3) == "//@" or
                                t.lines[k + 1]:sub(1, 3) == "//=") do
          k = k + 1
          local p, v
          if t.lines[k]:sub(1, 3) == "//=" then   -- the value is a text
            local name
            p, name = t.lines[k]:match("^//= ([%a_][%w_]*) ([%a_][%w_]*)$")
            local vt = name and byname[name]
            if not vt then fail(t.path, ": bad value line '", t.lines[k], "'") end
            v = table.concat(expand(vt, depth + 1), "\n") .. (vt.eol and "\n" or "")
          else
            p, v = t.lines[k]:match("^//@ ([%a_][%w_]*) ?(.*)$")
            if not p then fail(t.path, ": bad value line '", t.lines[k], "'") end
            v = v:gsub("\\(.)", function(c)
              if c == "n" then return "\n" end
              if c == "\\" then return "\\" end
              fail(t.path, ": bad escape '\\", c, "' in '", t.lines[k], "'")
            end)
          end
          local key = "@" .. p .. "@"
          local out, at = {}, 1
          while true do
            local i, j = text:find(key, at, true)
            if not i then break end
            out[#out + 1] = text:sub(at, i - 1)
            out[#out + 1] = v
            at = j + 1
          end
          out[#out + 1] = text:sub(at)
          text = table.concat(out)
        end
        for l in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
      elseif line:sub(1, 3) == "//@" or line:sub(1, 3) == "//=" then
        fail(t.path, ": a value line not after an include")
      else
        lines[#lines + 1] = line
      end
      k = k + 1
    end
    return lines
  end
  for _, t in ipairs(texts) do
    t.text = table.concat(expand(t, 0), "\n") .. (t.eol and "\n" or "")
    inputs[#inputs + 1] = t
  end
end

-- write 'text' to 'path' unless it already holds exactly that
local function put(path, text)
  local f = io.open(path, "rb")
  if f then
    local old = f:read("a")
    f:close()
    if old == text then return end
  end
  f = assert(io.open(path, "wb"))
  assert(f:write(text))
  assert(f:close())
end

local parts = {
  "/* generated by scripts/embed.lua; do not edit */\n",
}
local inputs = {}
local header
local i = 2
while i <= #arg do
  local a = arg[i]
  if a == "--include" then
    parts[#parts + 1] = string.format('#include "%s"\n', arg[i + 1])
    i = i + 2
  elseif a == "--header" then
    header = arg[i + 1]
    i = i + 2
  elseif a:match("%.sk$") then
    sk_file(a, inputs)
    i = i + 1
  else
    local name, path = a:match("^([%a_][%w_]*)=(.+)$")
    if not name then
      io.stderr:write("embed.lua: bad argument '", a, "' (want NAME=PATH)\n")
      os.exit(2)
    end
    inputs[#inputs + 1] = { name = name, path = path }
    i = i + 1
  end
end

local decls, index = {}, {}
for _, input in ipairs(inputs) do
  local text, note = input.text, ""
  if not text then
    local f = io.open(input.path, "rb")
    text = ""
    if f then
      text = assert(f:read("a"))
      f:close()
    else
      note = " (absent at build time)"
    end
  end
  parts[#parts + 1] = string.format("\n/* %s%s */\nconst char %s[] =\n%s;\n",
    input.path, note, input.name, cstring(text))
  decls[#decls + 1] = string.format("extern const char %s[];\n", input.name)
  if input.short then index[#index + 1] = input.name end
end
if #index > 0 then
  table.sort(index)
  local rows = {}
  for _, name in ipairs(index) do
    rows[#rows + 1] = string.format('  "%s", %s,\n', name:sub(#"sk_body_" + 1), name)
  end
  parts[#parts + 1] = "\n/* the texts by name (sorted), NULL-terminated */\n"
    .. "const char *const sk_ktext_index[] = {\n" .. table.concat(rows) .. "  0};\n"
  decls[#decls + 1] = "extern const char *const sk_ktext_index[];\n"
end

local f = assert(io.open(out, "wb"))
assert(f:write(table.concat(parts)))
assert(f:close())
if header then
  local guard = header:match("([%w_]+)%.h$"):upper()
  put(header, "/* generated by scripts/embed.lua; do not edit */\n#ifndef SK_"
    .. guard .. "_H\n#define SK_" .. guard .. "_H\n\n" .. table.concat(decls)
    .. "\n#endif\n")
end
