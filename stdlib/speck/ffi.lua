-- speck/ffi.lua: speck from LuaJIT, through its FFI and the C kernel API of
-- speck.h (SPEC.md "The C kernel API"): runtimes, views (managed, or over
-- FFI memory without copying), user kernels in the dialect and library
-- kernels by name. No Lua 5.4 inside: libspeck.so is loaded with ffi.load
-- and only its Lua-free half is called.
--
--   local sf = require "speck.ffi"
--   local rt = sf.open()                          -- SPECK_SPACE or the default
--   local buf = ffi.new("double[?]", n)
--   local x = rt:wrap("x", "float64", n, buf)     -- zero-copy
--   local y = rt:view("y", "float64", n)          -- managed, zero-filled
--   rt:parallel_for("axpy", n, {x = x, y = y, a = 2.0}, "y(i) = a*x(i) + y(i);")
--   local dot = rt:call("blas.dot", {x = x, y = y})
--
-- libspeck.so is found at SPECK_LIB, else next to this file's installation
-- (<prefix>/share/lua/<v>/speck/ffi.lua -> <prefix>/lib/libspeck.so),
-- else by the system's search (ffi.load "speck"). Every failure of the C
-- library is raised as a Lua error carrying its message ("speck_run_for
-- 'axpy': ..."); bad Lua arguments name the method, the object and what
-- is wrong. Scalars: a Lua number is a float64 capture, an int64_t cdata
-- (10LL) or {"int64", v} an int64 one.
local ok_ffi, ffi = pcall(require, "ffi")
if not ok_ffi or not jit then
  error("speck.ffi needs LuaJIT and its FFI (from Lua 5.4, require \"speck\")", 2)
end

-- The declarations of api/speck.h's kernel API, as written there
-- (tests/luajit/ffi_test.lua checks each one against the header).
local cdef = [[
typedef struct speck_runtime speck_runtime;
typedef struct speck_view speck_view;
const char *speck_version(void);
speck_runtime *speck_runtime_open(const char *space, int threads, char *err, size_t errlen);
void speck_runtime_close(speck_runtime *rt);
const char *speck_runtime_space(const speck_runtime *rt);
int speck_fence(speck_runtime *rt, char *err, size_t errlen);
speck_view *speck_view_new(speck_runtime *rt, const char *label, const char *dtype, int rank, const int64_t *extents, const char *space, char *err, size_t errlen);
speck_view *speck_view_wrap(speck_runtime *rt, const char *label, const char *dtype, int rank, const int64_t *extents, void *host_data, char *err, size_t errlen);
void *speck_view_data(speck_view *v);
int64_t speck_view_extent(const speck_view *v, int dim);
int speck_deep_copy(speck_view *dst, const speck_view *src, char *err, size_t errlen);
void speck_view_release(speck_view *v);
enum { SPECK_ARG_VIEW, SPECK_ARG_F64, SPECK_ARG_I64, SPECK_ARG_STR };
typedef struct speck_arg { const char *name; int kind; speck_view *view; double f64; int64_t i64; const char *str; } speck_arg;
int speck_run_for(speck_runtime *rt, const char *label, int64_t begin, int64_t end, const speck_arg *args, int nargs, const char *body, char *err, size_t errlen);
int speck_run_reduce(speck_runtime *rt, const char *label, int64_t begin, int64_t end, const speck_arg *args, int nargs, const char *body, const char *reducer, double *result, char *err, size_t errlen);
int speck_run_scan(speck_runtime *rt, const char *label, int64_t begin, int64_t end, const speck_arg *args, int nargs, const char *body, double *total, char *err, size_t errlen);
int speck_call(speck_runtime *rt, const char *kernel, const speck_arg *args, int nargs, double *result, char *err, size_t errlen);
]]
ffi.cdef(cdef)

local M = {cdef = cdef}

-- -- loading the library ------------------------------------------------------
local function this_dir()
  local src = debug.getinfo(1, "S").source
  return src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$") or nil
end

local function load_lib()
  local tried = {}
  local env = os.getenv("SPECK_LIB")
  if env and env ~= "" then
    local ok, lib = pcall(ffi.load, env)
    if ok then return lib, env end
    error(("speck.ffi: SPECK_LIB=%s cannot be loaded (%s)"):format(env, tostring(lib)), 3)
  end
  local dir = this_dir()
  if dir then
    -- <prefix>/share/lua/<v>/speck -> <prefix>/lib/libspeck.so
    local prefix = dir:match("^(.*)/share/lua/[^/]+/speck$")
    if prefix then
      local path = prefix .. "/lib/libspeck.so"
      local ok, lib = pcall(ffi.load, path)
      if ok then return lib, path end
      tried[#tried + 1] = path .. " (" .. tostring(lib) .. ")"
    end
  end
  local ok, lib = pcall(ffi.load, "speck")
  if ok then return lib, "libspeck.so" end
  tried[#tried + 1] = "the system's libspeck.so (" .. tostring(lib) .. ")"
  error("speck.ffi: cannot load libspeck.so; tried " .. table.concat(tried, ", ")
        .. "; set SPECK_LIB to its path", 3)
end

local C, lib_path = load_lib()
M.lib_path = lib_path
M.version = ffi.string(C.speck_version())
M.C = C

-- -- helpers -------------------------------------------------------------------
local ERRLEN = 4096
local errbuf = ffi.new("char[?]", ERRLEN)

-- raise the C library's message at the caller of the method (level 3)
local function cfail()
  error(ffi.string(errbuf), 3)
end

local function argfail(fmt, ...)
  error(("speck.ffi " .. fmt):format(...), 3)
end

local CTYPE = {
  float64 = "double", double = "double", float32 = "float", float = "float",
  int64 = "int64_t", int32 = "int32_t", int16 = "int16_t", int8 = "int8_t",
  uint64 = "uint64_t", uint32 = "uint32_t", uint8 = "uint8_t", bool = "bool",
  complex128 = "complex", complex64 = "complex float", -- LuaJIT's complex types: {re, im}
}
local CANON = {double = "float64", float = "float32"}

local int64_t = ffi.typeof("int64_t")
local uint64_t = ffi.typeof("uint64_t")

local function describe(x)
  if type(x) == "string" then return "'" .. x .. "'" end
  if type(x) == "number" then return tostring(x) end
  if type(x) == "cdata" then return tostring(ffi.typeof(x)) end
  return type(x)
end

-- -- views -----------------------------------------------------------------------
local View = {}
View.__index = View

local function check_live(self, what)
  if self._p == nil then argfail("View '%s': %s: released", self._label, what) end
  return self._p
end

function View:label() return self._label end
function View:dtype() return self._dtype end
function View:rank() return #self._dims end
function View:extent(d)
  if type(d) ~= "number" or d < 0 or d >= #self._dims or d % 1 ~= 0 then
    argfail("View '%s': extent: dimension %s out of range [0, %d)", self._label,
            describe(d), #self._dims)
  end
  return self._dims[d + 1]
end
function View:extents()
  local t = {}
  for d = 1, #self._dims do t[d] = self._dims[d] end
  return t
end
function View:size()
  local n = 1
  for d = 1, #self._dims do n = n * self._dims[d] end
  return n
end
-- the data as a typed pointer (double* for float64); host memory for
-- wrapped views and views in host spaces
function View:data()
  return ffi.cast(CTYPE[self._dtype] .. "*", C.speck_view_data(check_live(self, "data")))
end
-- drop the view's reference now (the collector does it otherwise)
function View:release()
  local p = self._p
  if p ~= nil then
    ffi.gc(p, nil)
    C.speck_view_release(p)
    self._p = nil
    self._anchor = nil
  end
end
function View:__tostring()
  local dims = {}
  for d = 1, #self._dims do dims[d] = "[" .. self._dims[d] .. "]" end
  return ("speck.ffi View<%s%s>%s '%s'"):format(self._dtype, table.concat(dims),
    self._p == nil and " (released)" or "", self._label)
end

local function is_view(x) return getmetatable(x) == View end

-- the extents of 'dims' (an integer or a table) as a Lua list and an
-- int64_t array
local function parse_dims(fname, label, dims)
  local list = {}
  if type(dims) == "number" then
    list[1] = dims
  elseif type(dims) == "table" then
    for d = 1, #dims do list[d] = dims[d] end
  else
    argfail("%s '%s': dims must be an integer or a table of extents (got %s)",
            fname, label, describe(dims))
  end
  if #list > 8 then argfail("%s '%s': rank %d exceeds the maximum 8", fname, label, #list) end
  local ext = ffi.new("int64_t[?]", math.max(#list, 1))
  for d = 1, #list do
    local n = list[d]
    if type(n) ~= "number" or n < 0 or n % 1 ~= 0 then
      argfail("%s '%s': extent %d is %s (must be a non-negative integer)", fname,
              label, d - 1, describe(n))
    end
    ext[d - 1] = n
  end
  return list, ext
end

local function check_label(fname, label)
  if type(label) ~= "string" then
    argfail("%s: label must be a string (got %s)", fname, type(label))
  end
end

local function check_dtype(fname, label, dtype)
  if type(dtype) ~= "string" or not CTYPE[dtype] then
    argfail("%s '%s': unknown dtype %s", fname, label, describe(dtype))
  end
  return CANON[dtype] or dtype
end

local function new_view(rt, p, label, dtype, dims, anchor)
  return setmetatable({_p = ffi.gc(p, C.speck_view_release), _rt = rt,
                       _label = label, _dtype = dtype, _dims = dims,
                       _anchor = anchor}, View)
end

-- -- runtimes ---------------------------------------------------------------------
local Runtime = {}
Runtime.__index = Runtime

local function check_rt(self, fname)
  if getmetatable(self) ~= Runtime then
    argfail("%s: call it as rt:%s(...) on a runtime from speck.ffi.open", fname, fname)
  end
  if self._p == nil then argfail("%s: the runtime is closed", fname) end
  return self._p
end

-- open([space [, threads]]): space a back end's name (nil: SPECK_SPACE or
-- the default), threads (nil or 0: the default)
function M.open(space, threads)
  if space ~= nil and type(space) ~= "string" then
    argfail("open: space must be a string or nil (got %s)", describe(space))
  end
  if threads ~= nil and (type(threads) ~= "number" or threads % 1 ~= 0) then
    argfail("open: threads must be an integer or nil (got %s)", describe(threads))
  end
  local p = C.speck_runtime_open(space, threads or 0, errbuf, ERRLEN)
  if p == nil then cfail() end
  return setmetatable({_p = ffi.gc(p, C.speck_runtime_close)}, Runtime)
end

function Runtime:space() return ffi.string(C.speck_runtime_space(check_rt(self, "space"))) end

function Runtime:fence()
  if C.speck_fence(check_rt(self, "fence"), errbuf, ERRLEN) ~= 0 then cfail() end
end

-- close now (the collector does it otherwise); views of it must be gone
function Runtime:close()
  local p = self._p
  if p ~= nil then
    ffi.gc(p, nil)
    C.speck_runtime_close(p)
    self._p = nil
  end
end

-- view(label, dtype, dims [, space]): a new zero-filled view
function Runtime:view(label, dtype, dims, space)
  local rtp = check_rt(self, "view")
  check_label("view", label)
  dtype = check_dtype("view", label, dtype)
  local list, ext = parse_dims("view", label, dims)
  if space ~= nil and type(space) ~= "string" then
    argfail("view '%s': space must be a string or nil (got %s)", label, describe(space))
  end
  local p = C.speck_view_new(rtp, label, dtype, #list, ext, space, errbuf, ERRLEN)
  if p == nil then cfail() end
  return new_view(self, p, label, dtype, list)
end

-- wrap(label, dtype, dims, data): a view of FFI memory 'data' (a pointer
-- or an array cdata; layout right), never copied nor freed by speck; the
-- view keeps 'data' alive
function Runtime:wrap(label, dtype, dims, data)
  local rtp = check_rt(self, "wrap")
  check_label("wrap", label)
  dtype = check_dtype("wrap", label, dtype)
  local list, ext = parse_dims("wrap", label, dims)
  if type(data) ~= "cdata" then
    argfail("wrap '%s': data must be an FFI pointer or array (got %s)", label, describe(data))
  end
  local n = ffi.sizeof(CTYPE[dtype])
  for d = 1, #list do n = n * list[d] end
  local ct = tostring(ffi.typeof(data))
  if ct:find("%[") then   -- an array knows its size: check it
    local have = ffi.sizeof(data)
    if have and have < n then
      argfail("wrap '%s': the array holds %d bytes, %s%s needs %d", label, have, dtype,
              #list > 0 and "[" .. table.concat(list, "][") .. "]" or "", n)
    end
  end
  local p = C.speck_view_wrap(rtp, label, dtype, #list, ext, ffi.cast("void *", data),
                              errbuf, ERRLEN)
  if p == nil then cfail() end
  return new_view(self, p, label, dtype, list, data)
end

function Runtime:deep_copy(dst, src)
  check_rt(self, "deep_copy")
  if not is_view(dst) then argfail("deep_copy: dst must be a view (got %s)", describe(dst)) end
  if not is_view(src) then argfail("deep_copy: src must be a view (got %s)", describe(src)) end
  if C.speck_deep_copy(check_live(dst, "deep_copy"), check_live(src, "deep_copy"),
                       errbuf, ERRLEN) ~= 0 then
    cfail()
  end
end

-- -- kernels ------------------------------------------------------------------------
-- The captures table (name -> view | number | int64 cdata | {dtype, v};
-- for call() also a string: a library kernel's option such as "mode") as
-- a speck_arg array; the names stay alive in 'captures' during the call.
local function make_args(fname, label, captures)
  if captures == nil then return nil, 0 end
  if type(captures) ~= "table" then
    argfail("%s '%s': captures must be a table (got %s)", fname, label, describe(captures))
  end
  local names = {}
  for k in pairs(captures) do
    if type(k) ~= "string" then
      argfail("%s '%s': capture names must be strings (got %s)", fname, label, describe(k))
    end
    names[#names + 1] = k
  end
  table.sort(names)
  local args = ffi.new("speck_arg[?]", math.max(#names, 1))
  for i, name in ipairs(names) do
    local a, x = args[i - 1], captures[name]
    a.name = name
    if is_view(x) then
      a.kind = C.SPECK_ARG_VIEW
      a.view = check_live(x, fname .. " '" .. label .. "' capture '" .. name .. "'")
    elseif type(x) == "number" then
      a.kind = C.SPECK_ARG_F64
      a.f64 = x
    elseif type(x) == "cdata" and (ffi.istype(int64_t, x) or ffi.istype(uint64_t, x)) then
      a.kind = C.SPECK_ARG_I64
      a.i64 = x
    elseif type(x) == "string" and fname == "call" then
      -- options of library kernels ("mode"); the table keeps it alive
      a.kind = C.SPECK_ARG_STR
      a.str = x
    elseif type(x) == "table" and (x[1] == "float64" or x[1] == "double" or x[1] == "int64")
           and (type(x[2]) == "number" or type(x[2]) == "cdata") then
      if x[1] == "int64" then
        a.kind, a.i64 = C.SPECK_ARG_I64, x[2]
      else
        a.kind, a.f64 = C.SPECK_ARG_F64, x[2]
      end
    else
      argfail("%s '%s': capture '%s' is %s (a view, a number, an int64_t cdata "
              .. "or {\"float64\"|\"int64\", value})", fname, label, name, describe(x))
    end
  end
  return args, #names
end

-- a range: n (that is [0, n)) or {b, e}
local function parse_range(fname, label, r)
  if type(r) == "number" or type(r) == "cdata" then return 0, r end
  if type(r) == "table" and r[1] ~= nil and r[2] ~= nil then return r[1], r[2] end
  argfail("%s '%s': range must be n or {begin, end} (got %s)", fname, label, describe(r))
end

local function check_kernel(self, fname, label, body)
  local rtp = check_rt(self, fname)
  check_label(fname, label)
  if type(body) ~= "string" then
    argfail("%s '%s': body must be a string of dialect code (got %s)", fname, label,
            describe(body))
  end
  return rtp
end

function Runtime:parallel_for(label, range, captures, body)
  local rtp = check_kernel(self, "parallel_for", label, body)
  local b, e = parse_range("parallel_for", label, range)
  local args, n = make_args("parallel_for", label, captures)
  if C.speck_run_for(rtp, label, b, e, args, n, body, errbuf, ERRLEN) ~= 0 then cfail() end
end

-- reducer: "sum" (nil) | "prod" | "min" | "max" | "land" | "lor" | "band" | "bor"
function Runtime:parallel_reduce(label, range, captures, body, reducer)
  local rtp = check_kernel(self, "parallel_reduce", label, body)
  local b, e = parse_range("parallel_reduce", label, range)
  local args, n = make_args("parallel_reduce", label, captures)
  if reducer ~= nil and type(reducer) ~= "string" then
    argfail("parallel_reduce '%s': reducer must be a string (got %s)", label, describe(reducer))
  end
  local out = ffi.new("double[1]")
  if C.speck_run_reduce(rtp, label, b, e, args, n, body, reducer, out, errbuf, ERRLEN) ~= 0 then
    cfail()
  end
  return out[0]
end

function Runtime:parallel_scan(label, range, captures, body)
  local rtp = check_kernel(self, "parallel_scan", label, body)
  local b, e = parse_range("parallel_scan", label, range)
  local args, n = make_args("parallel_scan", label, captures)
  local out = ffi.new("double[1]")
  if C.speck_run_scan(rtp, label, b, e, args, n, body, out, errbuf, ERRLEN) ~= 0 then
    cfail()
  end
  return out[0]
end

-- call(kernel, args): a library kernel by name ("blas.dot"); its number
function Runtime:call(kernel, captures)
  local rtp = check_rt(self, "call")
  if type(kernel) ~= "string" then
    argfail("call: kernel must be a name such as \"blas.dot\" (got %s)", describe(kernel))
  end
  local args, n = make_args("call", kernel, captures)
  local out = ffi.new("double[1]")
  if C.speck_call(rtp, kernel, args, n, out, errbuf, ERRLEN) ~= 0 then cfail() end
  return out[0]
end

M.Runtime, M.View = Runtime, View
return M
