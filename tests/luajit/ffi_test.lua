-- ffi_test.lua: speck.ffi under LuaJIT (run by tests/run.sh with luajit,
-- once per space in SPECK_SPACE): the cdef agrees with api/speck.h, views
-- over FFI memory share it, user and library kernels run, every bad input
-- is a Lua error with the C library's or the binding's message.
-- Last line: 'N passed, M failed'.
--   luajit tests/luajit/ffi_test.lua [path/to/speck.h [path/to/speck]]
local ffi = require "ffi"
local sf = require "speck.ffi"

local HEADER = arg[1] or "api/speck.h"
local SPECK = arg[2] or os.getenv("SPECK_BIN") or "build/bin/speck"

local passed, failed = 0, 0
local function test(name, fn)
  local ok, e = pcall(fn)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    print("FAIL: " .. name .. ": " .. tostring(e))
  end
end

local function eq(want, got, what)
  if want ~= got then
    error(("%s: expected %s, got %s"):format(what or "value", tostring(want), tostring(got)), 2)
  end
end

-- the message of the error f(...) raises, without "file:line: "
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- -- the binding agrees with the header --------------------------------------
-- Both sides without comments, preprocessor lines and spacing; every
-- top-level declaration of the cdef must appear in the header as written.
local function normalise(s)
  s = s:gsub("/%*.-%*/", " "):gsub("\n#[^\n]*", "\n"):gsub("%s+", " ")
  s = s:gsub(" ?([%*%(%),;{}]) ?", "%1")
  return s
end

test("the cdef matches api/speck.h", function()
  local header = normalise("\n" .. slurp(HEADER))
  local cdef, n, depth, start = normalise(sf.cdef), 0, 0, 1
  for i = 1, #cdef do
    local c = cdef:sub(i, i)
    if c == "{" then depth = depth + 1 elseif c == "}" then depth = depth - 1 end
    if c == ";" and depth == 0 then
      local decl = cdef:sub(start, i):gsub("^ ", "")
      if not header:find(decl, 1, true) then
        error("not in " .. HEADER .. " as declared: " .. decl)
      end
      n = n + 1
      start = i + 1
    end
  end
  assert(n >= 18, "only " .. n .. " declarations")
end)

test("one version: the library, the header and speck --version", function()
  local h = slurp(HEADER)
  local v = table.concat({h:match("SPECK_VERSION_MAJOR (%d+)"), h:match("SPECK_VERSION_MINOR (%d+)"),
                          h:match("SPECK_VERSION_PATCH (%d+)")}, ".")
  eq(v, sf.version, "speck_version()")
  local p = assert(io.popen("'" .. SPECK .. "' --version"))
  eq("speck " .. v .. "\n", p:read("*a"), "speck --version")
  p:close()
end)

local rt = sf.open()
local space = rt:space()
-- views the test reads through data() live in host memory
local HOST = (space == "serial" or space == "openmp") and nil or "host"

test("the runtime follows SPECK_SPACE", function()
  local want = os.getenv("SPECK_SPACE")
  if want and want ~= "" then eq(want, space, "space") end
end)

test("a wrapped FFI array is shared, not copied", function()
  local n = 1000
  local buf = ffi.new("double[?]", n)
  for i = 0, n - 1 do buf[i] = i end
  local x = rt:wrap("x", "float64", n, buf)
  eq(ffi.cast("void *", buf), ffi.cast("void *", x:data()), "data pointer")
  eq("float64", x:dtype())
  eq(n, x:extent(0))
  if HOST then return end   -- kernels of a GPU space cannot touch it
  rt:parallel_for("double it", n, {x = x}, "x(i) = 2 * x(i);")
  rt:fence()
  for i = 0, n - 1 do eq(2 * i, buf[i], "buf[" .. i .. "]") end
  local sum = rt:parallel_reduce("sum", n, {x = x}, "acc += x(i);")
  eq(n * (n - 1), sum, "sum")
end)

test("rank-2 wrap (layout right) and int32 data", function()
  if HOST then return end
  local buf = ffi.new("int32_t[3][4]")
  local a = rt:wrap("a", "int32", {3, 4}, buf)
  eq("speck.ffi View<int32[3][4]> 'a'", tostring(a))
  rt:parallel_for("fill", 3, {a = a}, "for (int j = 0; j < 4; j++) a(i, j) = 10 * i + j;")
  rt:fence()
  eq(23, buf[2][3], "a(2, 3)")
  eq(12, buf[1][2], "a(1, 2)")
end)

test("managed views, deep_copy, reducers, scans and int64 captures", function()
  local n = 100
  local h = rt:view("h", "float64", n, HOST)
  local d = rt:view("d", "float64", n)
  local p = h:data()
  for i = 0, n - 1 do p[i] = (i * 37) % 101 end
  rt:deep_copy(d, h)
  eq(100, rt:parallel_reduce("max", n, {d = d}, "if (d(i) > acc) acc = d(i);", "max"))
  eq(0, rt:parallel_reduce("min", n, {d = d}, "if (d(i) < acc) acc = d(i);", "min"))
  local o = rt:view("o", "float64", n)
  local total = rt:parallel_scan("scan", n, {d = d, o = o}, "if (final) o(i) = acc; acc += d(i);")
  rt:deep_copy(h, o)
  local s = 0
  for i = 0, n - 1 do
    eq(s, p[i], "scan(" .. i .. ")")
    s = s + (i * 37) % 101
  end
  eq(s, total, "scan total")
  -- int64 captures: an int64_t cdata or {"int64", v}
  local k = rt:view("k", "int64", 4, HOST)
  local kd = rt:view("kd", "int64", 4)
  rt:parallel_for("ints", 4, {out = kd, a = 3LL, b = {"int64", 5}, c = 0.5},
                  "out(i) = a * i + b + (int64_t)(c * 2);")
  rt:deep_copy(k, kd)
  eq(15LL, k:data()[3], "k(3)")
  eq(9LL, k:data()[1], "k(1)")
  -- a range {b, e}
  local r = rt:parallel_reduce("part", {10, 20}, {}, "acc += i;")
  eq(145, r, "sum of 10..19")
end)

test("library kernels by name", function()
  local n = 64
  local x = rt:view("x", "float64", n)
  local y = rt:view("y", "float64", n)
  rt:parallel_for("init", n, {x = x, y = y}, "x(i) = i; y(i) = 1;")
  eq(n * (n - 1) / 2, rt:call("blas.dot", {x = x, y = y}), "blas.dot")
  rt:call("blas.axpy", {a = 2.0, x = x, y = y})
  eq(n * (n - 1) + n, rt:call("blas.asum", {x = y}), "asum after axpy")
end)

test("errors carry the C library's message", function()
  local x = rt:view("x", "float64", 4)
  eq("speck_run_for 'bad': body does not compile:\nbody line 1: error: 'oops' undeclared",
     err_of(rt.parallel_for, rt, "bad", 4, {x = x}, "x(i) = oops;"))
  eq("speck_view_new 'v': unknown space 'mars'",
     err_of(rt.view, rt, "v", "float64", 3, "mars"))
  local e = err_of(rt.call, rt, "blas.nope", {x = x})
  assert(e:find("^speck_call: no library kernel 'blas.nope' %(known: "), e)
  eq("speck_run_reduce 'r': unknown reducer 'avg' (sum, prod, min, max, minloc, maxloc, "
     .. "land, lor, band, bor)", err_of(rt.parallel_reduce, rt, "r", 4, {x = x}, "acc += x(i);", "avg"))
  local i32 = rt:view("i", "int32", 4)
  eq("speck_deep_copy 'i' <- 'x': ", err_of(rt.deep_copy, rt, i32, x):sub(1, 28))
  eq("speck_runtime_open: threads -2 is negative", err_of(sf.open, nil, -2))
end)

test("bad Lua arguments name the method and the object", function()
  local x = rt:view("x", "float64", 4)
  eq("speck.ffi view 'v': unknown dtype 'complex'", err_of(rt.view, rt, "v", "complex", 3))
  eq("speck.ffi view: label must be a string (got number)", err_of(rt.view, rt, 1, "float64", 3))
  eq("speck.ffi view 'v': extent 1 is -3 (must be a non-negative integer)",
     err_of(rt.view, rt, "v", "float64", {2, -3}))
  eq("speck.ffi view 'v': rank 9 exceeds the maximum 8",
     err_of(rt.view, rt, "v", "float64", {1, 1, 1, 1, 1, 1, 1, 1, 1}))
  eq("speck.ffi wrap 'w': data must be an FFI pointer or array (got table)",
     err_of(rt.wrap, rt, "w", "float64", 3, {}))
  eq("speck.ffi wrap 'w': the array holds 16 bytes, float64[3] needs 24",
     err_of(rt.wrap, rt, "w", "float64", 3, ffi.new("double[2]")))
  eq("speck.ffi parallel_for 'f': capture 'y' is 'text' (a view, a number, an int64_t cdata "
     .. "or {\"float64\"|\"int64\", value})",
     err_of(rt.parallel_for, rt, "f", 4, {x = x, y = "text"}, "x(i) = 1;"))
  eq("speck.ffi parallel_for 'f': body must be a string of dialect code (got nil)",
     err_of(rt.parallel_for, rt, "f", 4, {x = x}))
  eq("speck.ffi parallel_for 'f': range must be n or {begin, end} (got table)",
     err_of(rt.parallel_for, rt, "f", {}, {x = x}, "x(i) = 1;"))
  eq("speck.ffi View 'x': extent: dimension 1 out of range [0, 1)", err_of(x.extent, x, 1))
  x:release()
  eq("speck.ffi View<float64[4]> (released) 'x'", tostring(x))
  eq("speck.ffi View 'x': parallel_for 'f' capture 'x': released",
     err_of(rt.parallel_for, rt, "f", 4, {x = x}, "x(i) = 1;"))
  eq("speck.ffi View 'x': data: released", err_of(x.data, x))
  eq("speck.ffi parallel_for: call it as rt:parallel_for(...) on a runtime from speck.ffi.open",
     err_of(rt.parallel_for, {}, "f", 4, {}, ""))
  local rt2 = sf.open()
  rt2:close()
  eq("speck.ffi fence: the runtime is closed", err_of(rt2.fence, rt2))
end)

test("wrapped memory outlives a collection: the view anchors it", function()
  if HOST then return end
  local v = rt:wrap("tmp", "float64", 1000, ffi.new("double[1000]"))
  collectgarbage()
  collectgarbage()
  rt:parallel_for("touch", 1000, {v = v}, "v(i) = i;")
  rt:fence()
  eq(999, v:data()[999], "v(999)")
end)

rt:fence()
print(("speck.ffi %s (%s, %s)"):format(sf.version, space, sf.lib_path))
print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
