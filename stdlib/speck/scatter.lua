-- speck/scatter.lua: ScatterView (Kokkos Containers) -- contributions of
-- many work items to shared entries of a view, by private copies per host
-- thread (duplicated) or by atomics (non-duplicated), chosen per back end
-- as Kokkos chooses. Loaded on first use of speck.ScatterView.
--
--   local sv = speck.ScatterView(view [, {op = "sum" | "min" | "max",
--                                          duplication = "auto" | "duplicated" | "non_duplicated"}])
--   speck.parallel_for("hist", n, {s = sv, x = x}, [[
--     auto a = s.access();
--     a(bin_of(x(i))) += 1;          // op "sum": +=, -=, ++, --
--   ]])                              // op "min"/"max": a(j).update(v)
--   speck.contribute(view, sv)       -- the copies into the view, copies reset
--
-- In a body the accesses are rewritten here, before compiling, into
-- plain updates of this thread's copy (sk_thread_index(), dialect/blocks.h) or
-- into the dialect's atomics; an access is write-only, and an update that
-- does not match the op is refused naming the body line.
local speck = require "speck"
local check_options = require "speck.opts"
local flat_index = require "speck.flat_index"
-- the bodies: kernels/scatter/scatter.sk
local text = require "speck.ktext"
local _, fail = require("speck.raise")("speck.")

local Scatter = {}
Scatter.__index = Scatter

local OPS = {sum = true, min = true, max = true}
local INT_MAX = {int64 = math.maxinteger, int32 = 2147483647, int16 = 32767, int8 = 127,
                 uint64 = -1, uint32 = 4294967295, uint8 = 255}
local INT_MIN = {int64 = math.mininteger, int32 = -2147483648, int16 = -32768, int8 = -128,
                 uint64 = 0, uint32 = 0, uint8 = 0}

local function identity(op, dtype)
  if op == "sum" then return 0 end
  local float = dtype == "float64" or dtype == "float32"
  if op == "min" then return float and math.huge or INT_MAX[dtype] end
  return float and -math.huge or INT_MIN[dtype]
end

function Scatter:__tostring()
  return ("ScatterView<%s, %s, %s> of '%s'"):format(self.op, self.dup and "duplicated" or
    "non_duplicated", self.dtype, self.view:label())
end

function Scatter:reset()
  if self.dup then speck.deep_copy(self.copies, identity(self.op, self.dtype)) end
  return self
end

function Scatter:is_duplicated() return self.dup end

function speck.ScatterView(view, opts)
  local fname = "ScatterView"
  if type(view) ~= "userdata" or not pcall(view.dtype, view) then
    fail(fname, "argument 1 must be a view, got %s", type(view))
  end
  local label = view:label()
  opts = check_options("speck.ScatterView", opts, {"op", "duplication"}, 2, label)
  local op = opts.op or "sum"
  if not OPS[op] then
    fail(fname, "view '%s': unknown op '%s' (expected 'sum', 'min' or 'max')", label,
         tostring(op))
  end
  local dtype = view:dtype()
  if not (dtype:match("^float") or INT_MAX[dtype]) then
    fail(fname, "view '%s': dtype %s cannot be scattered into", label, dtype)
  end
  local rank = view:rank()
  if rank < 1 or rank > 7 then
    fail(fname, "view '%s': rank %d (a ScatterView takes ranks 1 to 7)", label, rank)
  end
  local space = view:space()
  -- copies per thread only where host threads run the kernels (managed GPU
  -- memory is host accessible, but its kernels run on the GPU)
  local host = space == "host"
  local threads = math.max(1, speck.info().threads or 1)
  local d = opts.duplication or "auto"
  local dup
  if d == "auto" then
    dup = host and threads > 1
  elseif d == "duplicated" then
    if not host then
      fail(fname, "view '%s': duplication 'duplicated' needs a host space (the view is in " ..
           "'%s', where updates are atomic)", label, space)
    end
    dup = true
  elseif d == "non_duplicated" then
    dup = false
  else
    fail(fname, "view '%s': unknown duplication '%s' (expected 'auto', 'duplicated' or " ..
         "'non_duplicated')", label, tostring(d))
  end
  local sv = setmetatable({view = view, op = op, dtype = dtype, rank = rank, dup = dup,
                           ncopies = dup and threads or 0}, Scatter)
  if dup then
    local dims = {threads}
    for k = 0, rank - 1 do dims[#dims + 1] = view:extent(k) end
    sv.copies = speck.View(label .. "_scatter", dtype, dims, {space = space, init = false})
    sv:reset()
  end
  return sv
end

-- -- the body's accesses -----------------------------------------------------
local function line_of(body, pos)
  local _, n = body:sub(1, pos):gsub("\n", "")
  return n + 1
end

-- the position of the bracket closing the one at 'open'
local function close_of(body, open)
  local depth = 0
  for k = open, #body do
    local c = body:sub(k, k)
    if c == "(" or c == "[" or c == "{" then depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" then
      depth = depth - 1
      if depth == 0 then return k end
    end
  end
end

-- the end of the expression starting at 'at': the ';' at depth 0
local function stmt_end(body, at)
  local depth = 0
  for k = at, #body do
    local c = body:sub(k, k)
    if c == "(" or c == "[" or c == "{" then depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" then depth = depth - 1
    elseif c == ";" and depth == 0 then return k end
  end
end

local function rewrite(name, sv, body)
  local function err(pos, fmt, ...)
    error(("ScatterView '%s' (capture '%s'): " .. fmt .. " (body line %d)"):format(
      sv.view:label(), name, ...) .. "", 0)
    return pos
  end
  local N = name:gsub("%p", "%%%0")
  local accessors = {[name] = true}
  body = body:gsub("auto%s+([%a_][%w_]*)%s*=%s*" .. N .. "%s*%.%s*access%s*%(%s*%)%s*;",
                   function(a) accessors[a] = true return "" end)
  body = body:gsub("%f[%w_]" .. N .. "%s*%.%s*access%s*%(%s*%)", name)
  local target = sv.dup and function(args)
    return ("%s_dup(sk_thread_index() %% %d, %s)"):format(name, sv.ncopies, args)
  end or function(args) return ("%s_v(%s)"):format(name, args) end
  local function update(args, value, pos)
    if sv.op == "sum" then
      if sv.dup then return ("%s += (%s);"):format(target(args), value) end
      return ("atomic_add(&%s, (%s));"):format(target(args), value)
    end
    if sv.dup then
      return ("{ __typeof__(%s) *sk_sv_p = &%s; const __typeof__(*sk_sv_p) sk_sv_x = (%s); " ..
              "if (sk_sv_x %s *sk_sv_p) *sk_sv_p = sk_sv_x; }"):format(target(args), target(args),
              value, sv.op == "min" and "<" or ">")
    end
    return ("atomic_%s(&%s, (%s));"):format(sv.op, target(args), value)
  end
  for a in pairs(accessors) do
    local A = a:gsub("%p", "%%%0")
    local out, at = {}, 1
    while true do
      local s, e = body:find("%f[%w_]" .. A .. "%s*%(", at)
      if not s then break end
      local close = close_of(body, e)
      if not close then err(s, "unbalanced parentheses", line_of(body, s)) end
      local args = body:sub(e + 1, close - 1)
      local rest = body:sub(close + 1)
      local ws = rest:match("^%s*")
      local k = close + 1 + #ws
      local op2 = body:sub(k, k + 1)
      local code, stop
      if op2 == "+=" or op2 == "-=" then
        if sv.op ~= "sum" then
          err(s, "op '%s' takes a(i).update(v), not %s", sv.op, op2, line_of(body, s))
        end
        local semi = stmt_end(body, k + 2)
        if not semi then err(s, "the update has no ';'", line_of(body, s)) end
        local v = body:sub(k + 2, semi - 1)
        code, stop = update(args, op2 == "-=" and "-(" .. v .. ")" or v), semi
      elseif op2 == "++" or op2 == "--" then
        if sv.op ~= "sum" then
          err(s, "op '%s' takes a(i).update(v), not %s", sv.op, op2, line_of(body, s))
        end
        local semi = body:match("^%s*;()", k + 2)
        code, stop = update(args, op2 == "++" and "1" or "-1"), semi and semi - 1 or k + 1
        if not semi then code = code:gsub(";$", "") end
      elseif body:match("^%.%s*update%s*%(", k) then
        if sv.op == "sum" then
          err(s, "op 'sum' takes +=, -=, ++ or --, not .update()", line_of(body, s))
        end
        local open = body:find("(", k, true)
        local c2 = close_of(body, open)
        local semi = body:match("^%s*;()", c2 + 1)
        code = update(args, body:sub(open + 1, c2 - 1))
        stop = semi and semi - 1 or c2
        if not semi then code = code:gsub(";$", "") end
      else
        err(s, "an access is written, never read: follow %s(...) with %s", a,
            sv.op == "sum" and "+=, -=, ++ or --" or ".update(v)", line_of(body, s))
      end
      out[#out + 1] = body:sub(at, s - 1) .. code
      at = stop + 1
    end
    out[#out + 1] = body:sub(at)
    body = table.concat(out)
  end
  return body
end

speck._expanders[Scatter] = function(name, sv, out)
  -- the rewrite depends on the name, op, duplication and copies, and on
  -- the view's label (in its messages)
  local key = ("sv %s %s %d %s"):format(name, sv.op, sv.dup and sv.ncopies or 0, sv.view:label())
  if sv.dup then
    out[name .. "_dup"] = sv.copies
    return ("(void)%s_dup.data; "):format(name), function(b) return rewrite(name, sv, b) end, key
  end
  out[name .. "_v"] = sv.view
  return ("(void)%s_v.data; "):format(name), function(b) return rewrite(name, sv, b) end, key
end

-- -- contribute ----------------------------------------------------------------
-- each element of the view combined with its copies, the copies reset
function speck.contribute(view, sv)
  local fname = "contribute"
  if getmetatable(sv) ~= Scatter then
    fail(fname, "argument 2 must be a speck.ScatterView, got %s", type(sv))
  end
  if view ~= sv.view then
    fail(fname, "view '%s' is not the view of ScatterView '%s'",
         type(view) == "userdata" and pcall(view.label, view) and view:label() or tostring(view),
         sv.view:label())
  end
  if not sv.dup then return view end
  local decode, ix, total = flat_index(view)
  local ctype = sv.dtype:match("^float") and "float64" or "int64"
  local ident = identity(sv.op, sv.dtype)
  if ctype == "float64" and ident == math.huge then ident = 1.7976931348623157e308
  elseif ctype == "float64" and ident == -math.huge then ident = -1.7976931348623157e308 end
  -- float min / max: the copies hold +-inf (deep_copy's fill); keep that identity
  local name = "scatter_contribute_" .. sv.op ..
               ((sv.op ~= "sum" and ctype == "float64") and "_inf" or "")
  speck.parallel_for("ScatterView.contribute", speck.RangePolicy(0, total, {space = "host"}),
                     {v = view, d = sv.copies, nc = {"int64", sv.ncopies},
                      ident = {ctype, ctype == "int64" and math.tointeger(ident) or ident}},
                     text(name, {DECODE = decode, IDX = ix}))
  return view
end

return speck.ScatterView
