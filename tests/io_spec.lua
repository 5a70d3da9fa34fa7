-- io_spec.lua: speck.io.save_npy / load_npy against NumPy (both ways,
-- every dtype, C and Fortran order), malformed files, bad arguments, and
-- speck.progress (the bar, forced on, from a subprocess).
-- NumPy runs as $PY tests/npy_oracle.py; views the spec reads
-- live in HS (the default space when the CPU reaches it, else host), and
-- one test loads into the default space itself and reads it back through
-- a mirror.
local speck = require "speck"

-- Debian's python3 with NumPy (SPECK_PYTHON names another, e.g. on a GPU
-- host whose /usr/bin/python3 has none)
local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local ORACLE = "tests/npy_oracle.py"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local DEFAULT = speck.View("probe", "float64", 1):space()
local HOST_OK = {host = true, cuda_pinned = true, cuda_uvm = true}
local HS = HOST_OK[DEFAULT] and DEFAULT or "host"

local DTYPES = {"float64", "float32", "int64", "int32", "int16", "int8",
                "uint64", "uint32", "uint8", "bool"}
local SIGNED = {int64 = true, int32 = true, int16 = true, int8 = true}
local SHAPES = {{3, 4, 5}, {7}, {}, {0, 3}, {2, 1, 3, 2}}

-- the oracle's formula of the C-order linear index k
local function formula(dtype, k)
  if dtype == "float64" or dtype == "float32" then return k * 0.25 - 7.5 end
  if SIGNED[dtype] then return (k * 37) % 200 - 100 end
  if dtype == "bool" then return k % 3 == 1 end
  return (k * 37) % 250
end

local function shape_name(s)
  return #s == 0 and "scalar" or table.concat(s, "x")
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- stdout and stderr of 'cmd' (unless it redirects stderr itself)
local function sh(cmd)
  if not cmd:find("2>", 1, true) then cmd = cmd .. " 2>&1" end
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  p:close()
  return out
end

local function have_numpy()
  return sh(PY .. " -c 'import numpy; print(1)'"):match("^1") ~= nil
end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

local function write_bytes(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function read_bytes(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- every index tuple of 'ext' in C order, with its linear index
local function each(ext, fn)
  local n, total = #ext, 1
  for d = 1, n do total = total * ext[d] end
  local idx = {}
  for k = 0, total - 1 do
    local r = k
    for d = n, 1, -1 do
      idx[d] = r % ext[d]
      r = r // ext[d]
    end
    fn(idx, k)
  end
end

local dir
setup(function()
  dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. quote(dir)))
end)
teardown(function()
  if dir then os.execute("rm -rf " .. quote(dir)) end
end)

describe("speck.io.load_npy", function()
  local written
  local function numpy_files()
    if not have_numpy() then return false end
    if not written then
      local out = sh(PY .. " " .. ORACLE .. " write " .. quote(dir))
      assert.are.equal("OK written\n", out)
      written = true
    end
    return true
  end

  it("reads every dtype NumPy writes, C and Fortran order", function()
    if not numpy_files() then return pending("no NumPy at " .. PY) end
    local n = 0
    for _, dtype in ipairs(DTYPES) do
      for _, shape in ipairs(SHAPES) do
        for _, order in ipairs {"C", "F"} do
          local name = ("%s_%s_%s.npy"):format(dtype, order, shape_name(shape))
          local v = speck.io.load_npy(dir .. "/" .. name, {space = HS})
          assert.are.equal(dtype, v:dtype())
          assert.are.same(shape, v:extents())
          assert.are.equal(dir .. "/" .. name, v:label())
          -- (NumPy writes an empty array as C order, being both)
          if #shape > 1 and v:size() > 0 then
            assert.are.equal(order == "F" and "left" or "right", v:layout(), name)
          end
          each(shape, function(idx, k)
            assert.are.equal(formula(dtype, k), v(table.unpack(idx, 1, #shape)),
                             name)
          end)
          n = n + 1
        end
      end
    end
    assert.are.equal(#DTYPES * #SHAPES * 2, n)
  end)

  it("reads big-endian files, format versions 2.0 and 3.0, and extremes", function()
    if not numpy_files() then return pending("no NumPy at " .. PY) end
    for _, dtype in ipairs {"float64", "int32", "int16", "uint32"} do
      local v = speck.io.load_npy(dir .. "/be_" .. dtype .. ".npy", {space = HS})
      assert.are.equal(dtype, v:dtype())
      each({3, 4}, function(idx, k)
        assert.are.equal(formula(dtype, k), v(idx[1], idx[2]))
      end)
    end
    for _, ver in ipairs {"v2", "v3"} do
      local v = speck.io.load_npy(dir .. "/" .. ver .. ".npy", {space = HS})
      assert.are.same({2, 3}, v:extents())
      assert.are.equal(formula("float64", 5), v(1, 2))
    end
    local i = speck.io.load_npy(dir .. "/ext_int64.npy", {space = HS})
    assert.are.same({math.mininteger, math.maxinteger, 0, -1}, i:totable())
    -- uint64 elements above 2^63 - 1 read as floats (View's rule)
    local u = speck.io.load_npy(dir .. "/ext_uint64.npy", {space = HS})
    assert.are.same({0, 2.0^64, 2.0^63}, u:totable())
    local f = speck.io.load_npy(dir .. "/ext_float64.npy", {space = HS})
    assert.are.equal(math.huge, f(0))
    assert.are.equal(-math.huge, f(1))
    assert.is_true(f(2) ~= f(2))
    assert.are.equal("-0.0", tostring(f(3)))
    assert.are.equal(5e-324, f(4))
    assert.are.equal(1.7976931348623157e308, f(5))
    local b = speck.io.load_npy(dir .. "/ext_bool.npy", {space = HS})
    assert.are.same({true, false, true}, b:totable())
  end)

  it("reorders to the layout asked for and loads into the default space", function()
    if not numpy_files() then return pending("no NumPy at " .. PY) end
    local path = dir .. "/float32_C_3x4x5.npy"
    local l = speck.io.load_npy(path, {layout = "left", space = HS, label = "L"})
    assert.are.equal("left", l:layout())
    assert.are.equal("L", l:label())
    each({3, 4, 5}, function(idx, k)
      assert.are.equal(formula("float32", k), l(idx[1], idx[2], idx[3]))
    end)
    -- the default space (device memory on a GPU back end)
    local d = speck.io.load_npy(dir .. "/int32_F_3x4x5.npy")
    assert.are.equal(DEFAULT, d:space())
    assert.are.equal("left", d:layout())
    local m = speck.create_mirror_view_and_copy("host", d)
    each({3, 4, 5}, function(idx, k)
      assert.are.equal(formula("int32", k), m(idx[1], idx[2], idx[3]))
    end)
  end)

  it("names the file and what is wrong with a malformed one", function()
    if not numpy_files() then return pending("no NumPy at " .. PY) end
    local L = speck.io.load_npy
    local function e(name, opts) return err_of(L, dir .. "/" .. name, opts) end
    local P = "speck.io.load_npy '" .. dir .. "/"
    assert.are.equal(P .. "bad_uint16.npy': dtype '<u2' (uint16) has no "
      .. "speck dtype (float64 float32 int64 int32 int16 int8 uint64 uint32 "
      .. "uint8 bool complex128 complex64)", e("bad_uint16.npy"))
    assert.truthy(e("bad_float16.npy"):find("dtype '<f2' (float16) has no speck dtype", 1, true))
    assert.truthy(e("bad_str.npy"):find("dtype '<U2' (str) has no speck dtype", 1, true))
    assert.are.equal(P .. "bad_struct.npy': a structured dtype (a list of "
      .. "fields) has no speck dtype", e("bad_struct.npy"))
    assert.are.equal(P .. "rank9.npy': shape has more than 8 dimensions "
      .. "(speck views have at most 8)", e("rank9.npy"))

    local good = read_bytes(dir .. "/float64_C_3x4x5.npy")
    local function variant(name, bytes)
      write_bytes(dir .. "/" .. name, bytes)
      return e(name)
    end
    assert.are.equal(P .. "magic.npy': not a .npy file (bad magic: it does "
      .. "not start with \\x93NUMPY)", variant("magic.npy", "PK\3\4" .. good:sub(5)))
    assert.are.equal(P .. "empty.npy': not a .npy file (bad magic: it does "
      .. "not start with \\x93NUMPY)", variant("empty.npy", ""))
    assert.are.equal(P .. "pre.npy': truncated: the file ends in its preamble",
      variant("pre.npy", good:sub(1, 8)))
    assert.are.equal(P .. "version.npy': unsupported .npy format version 9.0 "
      .. "(1.0, 2.0 and 3.0 are read)",
      variant("version.npy", good:sub(1, 6) .. "\9\0" .. good:sub(9)))
    assert.are.equal(P .. "hdr.npy': truncated header: 30 of its 118 bytes",
      variant("hdr.npy", good:sub(1, 40)))
    local data = good:sub(129)
    assert.are.equal(480, #data)
    assert.are.equal(P .. "short.npy': truncated data: shape (3, 4, 5) of "
      .. "float64 needs 480 bytes, the file has 100 after its header",
      variant("short.npy", good:sub(1, 128 + 100)))
    -- header dicts, edited in place (same length: the data stay aligned)
    local hdr = good:sub(11, 128)
    local function edit(name, from, to)
      local h = hdr:gsub(from, to, 1):gsub("%s+$", "")
      h = h .. (" "):rep(#hdr - #h - 1) .. "\n"
      assert.are.equal(#hdr, #h)
      return variant(name, good:sub(1, 10) .. h .. data)
    end
    assert.are.equal(P .. "key.npy': malformed header: unknown key 'descx' "
      .. "(a .npy header has 'descr', 'fortran_order' and 'shape')",
      edit("key.npy", "'descr'", "'descx'"))
    assert.are.equal(P .. "nokey.npy': malformed header: no 'shape' key",
      edit("nokey.npy", ", 'shape': %(3, 4, 5%)", ""))
    assert.are.equal(P .. "order.npy': malformed header at byte 34: expected "
      .. "True or False for 'fortran_order', found 'Maybe, 'shape': (3, '",
      edit("order.npy", "False", "Maybe"))
    assert.are.equal(P .. "descr.npy': malformed header: dtype 'f8' has no "
      .. "byte order ('<', '>', '|' or '=')", edit("descr.npy", "'<f8'", "'f8'"))
    assert.are.equal(P .. "size.npy': malformed header: dtype '<fx' is not a "
      .. "kind and an item size (such as '<f8')", edit("size.npy", "'<f8'", "'<fx'"))
    assert.are.equal(P .. "shape.npy': malformed header at byte 54: expected "
      .. "an extent (an integer), found 'x, 5), }            '",
      edit("shape.npy", "4, 5", "x, 5"))
    assert.are.equal(P .. "neg.npy': malformed header: extent -4 of the shape "
      .. "is not a size", edit("neg.npy", "4, 5", "-4, 5"))
    assert.are.equal(P .. "brace.npy': malformed header at byte 0: expected "
      .. "'{' opening the header dict, found '[\'descr\': \'<f8\', \'fo'",
      edit("brace.npy", "{", "["))
    assert.are.equal(P .. "missing.npy': cannot open: No such file or directory",
      e("missing.npy"))
    -- only regular files: a FIFO would block the read, a device never end
    assert(os.execute("mkfifo " .. quote(dir .. "/fifo.npy")))
    assert.are.equal(P .. "fifo.npy': cannot read a FIFO (named pipe): only regular "
      .. "files are read (reading it could block or never end)", e("fifo.npy"))
    assert.are.equal("speck.io.load_npy '/dev/zero': cannot read a character device: "
      .. "only regular files are read (reading it could block or never end)",
      err_of(L, "/dev/zero"))
    assert.are.equal("speck.io.load_npy '" .. dir .. "': cannot read a directory: "
      .. "only regular files are read (reading it could block or never end)",
      err_of(L, dir))
  end)

  it("refuses bad arguments, naming the option", function()
    local L = speck.io.load_npy
    assert.are.equal("speck.io.load_npy: path must be a string (got number)",
                     err_of(L, 3))
    assert.are.equal("speck.io.load_npy 'x.npy': options must be a table (got string)",
                     err_of(L, "x.npy", "host"))
    assert.are.equal("speck.io.load_npy 'x.npy': unknown space 'mars' (expected "
      .. "'host', 'cuda', 'cuda_pinned' or 'cuda_uvm')",
      err_of(L, "x.npy", {space = "mars"}))
    assert.are.equal("speck.io.load_npy 'x.npy': unknown layout 'stride' "
      .. "(expected 'right' or 'left')", err_of(L, "x.npy", {layout = "stride"}))
    assert.are.equal("speck.io.load_npy 'x.npy': label must be a string (got number)",
                     err_of(L, "x.npy", {label = 1}))
    assert.are.equal("speck.io.load_npy 'x.npy': unknown option 'lay' (valid: "
      .. "label, layout, space)", err_of(L, "x.npy", {lay = "left"}))
  end)
end)

describe("speck.io.save_npy", function()
  it("writes files NumPy reads: every dtype, C and Fortran order", function()
    if not have_numpy() then return pending("no NumPy at " .. PY) end
    local manifest = {}
    for _, dtype in ipairs(DTYPES) do
      for _, shape in ipairs(SHAPES) do
        for _, order in ipairs {"C", "F"} do
          local v = speck.View("v", dtype, shape,
                               {space = HS, layout = order == "F" and "left" or "right"})
          each(shape, function(idx, k)
            local args = {table.unpack(idx, 1, #shape)}
            args[#args + 1] = formula(dtype, k)
            v:set(table.unpack(args))
          end)
          local name = ("s_%s_%s_%s.npy"):format(dtype, order, shape_name(shape))
          speck.io.save_npy(dir .. "/" .. name, v)
          manifest[#manifest + 1] = table.concat({name, dtype, order, shape_name(shape)}, " ")
        end
      end
    end
    -- a strided subview (written in C order) and a view in the default
    -- space (copied to the host first)
    local big = speck.View("big", "int32", {6, 8}, {space = HS, layout = "right"})
    each({6, 8}, function(idx, k) big:set(idx[1], idx[2], k) end)
    local sub = speck.subview(big, {1, 4}, {2, 7})
    assert.are.equal("stride", sub:layout())
    speck.io.save_npy(dir .. "/sub.npy", sub)
    local d = speck.View("d", "float64", {3, 4})
    local h = speck.create_mirror_view(d)
    each({3, 4}, function(idx, k) h:set(idx[1], idx[2], formula("float64", k)) end)
    speck.deep_copy(d, h)
    speck.io.save_npy(dir .. "/dev.npy", d)
    manifest[#manifest + 1] = "dev.npy float64 " ..
      (d:layout() == "left" and "F" or "C") .. " 3x4"
    write_bytes(dir .. "/manifest.txt", table.concat(manifest, "\n") .. "\n")
    assert.are.equal("OK " .. #manifest .. "\n", sh(PY .. " " .. ORACLE .. " check " .. quote(dir)))
    local out = sh(PY .. " -c " .. quote("import numpy as np, sys; a = np.load(sys.argv[1]); "
      .. "print(a.dtype, a.shape, a.flags['C_CONTIGUOUS'], a.tolist())") .. " " .. quote(dir .. "/sub.npy"))
    assert.are.equal("int32 (3, 5) True [[10, 11, 12, 13, 14], [18, 19, 20, 21, 22], "
      .. "[26, 27, 28, 29, 30]]\n", out)
  end)

  it("round-trips without NumPy: speck reads what it wrote", function()
    for _, dtype in ipairs(DTYPES) do
      for _, layout in ipairs {"right", "left"} do
        local v = speck.View("rt", dtype, {4, 3}, {space = HS, layout = layout})
        each({4, 3}, function(idx, k) v:set(idx[1], idx[2], formula(dtype, k)) end)
        local path = dir .. "/rt.npy"
        speck.io.save_npy(path, v)
        local w = speck.io.load_npy(path, {space = HS})
        assert.are.equal(layout, w:layout())
        assert.are.same(v:totable(), w:totable())
        -- the data start at a multiple of 64 bytes
        local es = ({float64 = 8, int64 = 8, uint64 = 8, float32 = 4, int32 = 4,
                     uint32 = 4, int16 = 2})[dtype] or 1
        assert.are.equal(0, (#read_bytes(path) - 12 * es) % 64)
      end
    end
  end)

  it("replaces a file whole or not at all: a failed write keeps the old file", function()
    local path = dir .. "/keep.npy"
    speck.io.save_npy(path, speck.View("old", "float64", 4, {space = HS}):fill(1))
    local old = read_bytes(path)
    -- a child whose file size limit (dash's 'ulimit -f', 512-byte blocks:
    -- 32 KiB) stops the write midway; SIGXFSZ ignored, so the write fails
    -- with EFBIG instead of killing the process
    local script = dir .. "/limit.lua"
    write_bytes(script, ([[
      local ok, e = pcall(speck.io.save_npy, %q, speck.View("new", "float64", 1 << 16):fill(2))
      print(ok, e)
    ]]):format(path))
    local out = sh("/bin/sh -c " .. quote("trap '' XFSZ; ulimit -f 64; exec " .. quote(SPECK)
      .. " " .. quote(script)))
    assert.are.equal("false\tspeck.io.save_npy '" .. path .. "': write error: File too large\n", out)
    assert.are.equal(old, read_bytes(path))
    -- no temporary file left beside it
    assert.are.equal("keep.npy\n", sh("ls " .. quote(dir) .. " | grep '^keep'"))
    -- a write that completes replaces the file
    speck.io.save_npy(path, speck.View("new", "int32", {2, 3}, {space = HS}):fill(7))
    local v = speck.io.load_npy(path, {space = HS})
    assert.are.equal("int32", v:dtype())
    assert.are.same({{7, 7, 7}, {7, 7, 7}}, v:totable())
    assert.are.equal("keep.npy\n", sh("ls " .. quote(dir) .. " | grep '^keep'"))
  end)

  it("refuses bad arguments and unwritable paths", function()
    local S = speck.io.save_npy
    local v = speck.View("v", "float64", 3, {space = HS})
    assert.are.equal("speck.io.save_npy: path must be a string (got nil)", err_of(S))
    assert.are.equal("speck.io.save_npy 'a.npy': view must be a speck.View (got table)",
                     err_of(S, "a.npy", {1, 2}))
    assert.are.equal("speck.io.save_npy '/nonexistent-dir/a.npy': cannot open for "
      .. "writing: No such file or directory", err_of(S, "/nonexistent-dir/a.npy", v))
  end)
end)

describe("speck.progress", function()
  it("draws a bar on stderr for a long load when asked to", function()
    local path = dir .. "/big.npy"
    local v = speck.View("big", "float64", 1 << 18, {space = HS})
    speck.io.save_npy(path, v)
    local script = dir .. "/bar.lua"
    write_bytes(script, ([[
      speck.progress{mode = "on", delay = 0, interval = 0}
      local v = speck.io.load_npy(%q)
      print(v:size())
    ]]):format(path))
    local errpath = dir .. "/bar.err"
    local out = sh(quote(SPECK) .. " " .. quote(script) .. " 2>" .. quote(errpath))
    assert.are.equal(tostring(1 << 18) .. "\n", out)
    local err = read_bytes(errpath)
    assert.truthy(err:find("load_npy " .. path, 1, true), err)
    assert.truthy(err:find("[##############################] 100%  done in 0s", 1, true), err)
    -- not a terminal and the default mode: nothing
    write_bytes(script, ("local v = speck.io.load_npy(%q)"):format(path))
    out = sh(quote(SPECK) .. " " .. quote(script) .. " 2>" .. quote(errpath))
    assert.are.equal("", out)
    assert.are.equal("", read_bytes(errpath))
  end)

  it("returns and checks its settings", function()
    local old = speck.progress()
    assert.are.same({mode = "auto", delay = 0.5, interval = 0.1}, old)
    assert.are.same({mode = "off", delay = 2, interval = 0.1}, speck.progress{mode = "off", delay = 2})
    speck.progress(old)
    assert.are.equal("speck.progress: mode must be 'auto', 'on' or 'off' (got 'yes')",
                     err_of(speck.progress, {mode = "yes"}))
    assert.are.equal("speck.progress: delay must be a number of seconds >= 0 (got -1)",
                     err_of(speck.progress, {delay = -1}))
    assert.are.equal("speck.progress: unknown option 'speed' (valid: delay, interval, mode)",
                     err_of(speck.progress, {speed = 1}))
    assert.are.equal("speck.progress: options must be a table (got string)",
                     err_of(speck.progress, "on"))
  end)
end)
