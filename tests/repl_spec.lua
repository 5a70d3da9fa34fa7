-- repl_spec.lua: the REPL's additions (speck.repl): completion of names and
-- view methods, help() from speck/help.lua's table of signatures, pretty
-- printing of views with elision; and the REPL itself fed through a pipe
-- and, for Tab completion through readline, a pseudo-terminal.
local speck = require "speck"
local repl = require "speck.repl"

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local DEFAULT = speck.View("probe", "float64", 1):space()
local HOST_OK = {host = true, cuda_pinned = true, cuda_uvm = true}
local HS = HOST_OK[DEFAULT] and DEFAULT or "host"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(args, input)
  local inpath = os.tmpname()
  local f = assert(io.open(inpath, "wb"))
  f:write(input or "")
  f:close()
  local p = assert(io.popen(quote(SPECK) .. " " .. args .. " <" .. quote(inpath) .. " 2>&1"))
  local out = p:read("a")
  p:close()
  os.remove(inpath)
  return out
end

-- a view in HS whose element k (C order) is f(k)
local function filled(label, dtype, dims, f)
  local v = speck.View(label, dtype, dims, {space = HS, layout = "right"})
  local n, ext = v:size(), v:extents()
  for k = 0, n - 1 do
    local idx, r = {}, k
    for d = #ext, 1, -1 do
      idx[d] = r % ext[d]
      r = r // ext[d]
    end
    idx[#ext + 1] = f(k)
    v:set(table.unpack(idx))
  end
  return v
end

describe("speck.repl.complete", function()
  it("completes speck's names, submodules and globals", function()
    local env = {speck = speck}
    local function c(w) return repl.complete(w, env) end
    assert.are.same({"speck.parallel_for", "speck.parallel_reduce", "speck.parallel_scan"},
                    c("speck.par"))
    assert.are.same({"speck.io.load_npy", "speck.io.pack_strings", "speck.io.save_npy", "speck.io.strings"}, c("speck.io."))
    assert.are.same({"speck.View.from"}, c("speck.View.fr"))
    assert.are.same({"speck"}, c("spec"))
    assert.are.same({"speck.jit.source", "speck.jit.stats"}, c("speck.jit.s"))
    -- the globals by default
    assert.are.same({"string"}, repl.complete("strin"))
  end)

  it("completes view methods after ':' and nothing for bad paths", function()
    local env = {v = speck.View("v", "float64", 3, {space = HS}), t = {alpha = 1, beta = print}}
    assert.are.same({"v:extent", "v:extents"}, repl.complete("v:exten", env))
    assert.are.same({"v:totable"}, repl.complete("v:to", env))
    assert.are.same({"t:beta"}, repl.complete("t:", env))          -- methods only
    assert.are.same({"t.alpha", "t.beta"}, repl.complete("t.", env))
    assert.are.same({}, repl.complete("nothere.x", env))
    assert.are.same({}, repl.complete("v(1).x", env))
    assert.are.same({}, repl.complete("a + b", env))
    -- no code runs: an __index function is never called
    local trap = setmetatable({}, {__index = function() error("called") end})
    assert.are.same({}, repl.complete("trap.x", {trap = trap}))
  end)
end)

describe("help", function()
  it("prints the documented signature", function()
    assert.are.equal("speck.parallel_for(label, policy, captures, body [, opts])\n"
      .. "  captures: table name -> view | number | boolean | {dtype, value}; body: a "
      .. "string in the kernel dialect; opts: prelude = \"C helper functions\", jit = "
      .. "\"tcc\"|\"cc\"|\"auto\".", repl.doc(speck.parallel_for))
    assert.truthy(repl.doc(speck.io.load_npy):find("^local v = speck.io.load_npy%(path %[, {space =, layout =, label =}%]%)\n"))
    assert.truthy(repl.doc("parallel_reduce"):find("^local r = speck.parallel_reduce%("))
    assert.truthy(repl.doc(speck.View):find("^local v = speck.View%(label, dtype, dims %[, opts%]%)"))
    assert.truthy(repl.doc(require("speck.blas").dot):find("^blas.dot%(x, y%)"))
    local v = speck.View("v", "int8", 2, {space = HS})
    assert.truthy(repl.doc(v.extent):find("^v:extent%(d%)\n"))
    assert.truthy(repl.doc(v):find("^View<int8%[2%], %a+, [%w_]+> 'v', methods:\n  v:data%(%)"))
    assert.are.equal("help: no entry for 'nothing' (help() lists them)", repl.doc("nothing"))
    assert.truthy(repl.doc():find("^help%(f%) shows the signature"))
  end)

  it("has an entry for every public function of speck, its modules and views", function()
    require "speck.blas"
    -- the core's helpers that speck.lua wraps or re-exports under other names
    local internal = {check_policy = true, check_opts = true, team_limits = true, now = true,
                      call = true, kernel_text = true, profile_push = true, profile_pop = true}
    local missing = {}
    local function need(x, what)
      if repl.doc(x):find("^help: no entry") then missing[#missing + 1] = what end
    end
    for k, x in pairs(speck) do
      if type(x) == "function" and not internal[k] then need(x, "speck." .. k) end
    end
    for _, m in ipairs {"io", "jit", "profile", "dtype"} do
      for k, x in pairs(speck[m]) do
        if type(x) == "function" then need(x, "speck." .. m .. "." .. k) end
      end
    end
    for k, x in pairs(require "speck.blas") do need(x, "speck.blas." .. k) end
    for k, x in pairs(require "speck.batched") do need(x, "speck.batched." .. k) end
    need(speck.View.from, "speck.View.from")
    local v = speck.View("v", "int8", 1, {space = HS})
    for _, k in ipairs(repl.complete("v:", {v = v})) do need(v[k:sub(3)], k) end
    table.sort(missing)
    assert.are.same({}, missing)
  end)
end)

describe("speck.repl.format", function()
  it("prints small views whole, aligned", function()
    local a = filled("A", "float64", {3, 4}, function(k) return k end)
    assert.are.equal("View<float64[3][4], right, " .. HS .. "> 'A'\n"
      .. "[[ 0.0,  1.0,  2.0,  3.0],\n"
      .. " [ 4.0,  5.0,  6.0,  7.0],\n"
      .. " [ 8.0,  9.0, 10.0, 11.0]]", repl.format(a))
    local c = filled("C", "int64", {2, 2, 3}, function(k) return k - 5 end)
    assert.are.equal("View<int64[2][2][3], right, " .. HS .. "> 'C'\n"
      .. "[[[-5, -4, -3],\n  [-2, -1,  0]],\n\n [[ 1,  2,  3],\n  [ 4,  5,  6]]]",
      repl.format(c))
    local b = filled("B", "bool", 4, function(k) return k % 2 == 0 end)
    assert.are.equal("View<bool[4], right, " .. HS .. "> 'B'\n[ true, false,  true, false]",
                     repl.format(b))
    local f = filled("F", "float32", 3, function(k) return ({0.5, -1.25e-7, 3})[k + 1] end)
    assert.are.equal("[      0.5, -1.25e-07,       3.0]", repl.format(f):match("\n(.*)"))
    local s = speck.View("S", "float64", {}, {space = HS, layout = "right"})
    s:set(2.5)
    assert.are.equal("View<float64, right, " .. HS .. "> 'S'\n2.5", repl.format(s))
    assert.are.equal("[]", repl.format(speck.View("E", "int32", {0, 3}, {space = HS})):match("\n(.*)"))
  end)

  it("prints aggregate elements as their components and tiled views by index", function()
    local x = speck.View("X", speck.dtype.fad(2), 2, {space = HS})
    x:set(1, {1.5, 1, 0})
    assert.are.equal("View<fad(2)[2], right, " .. HS .. "> 'X'\n"
      .. "[{0.0, 0.0, 0.0}, {1.5, 1.0, 0.0}]", repl.format(x))
    local t = speck.View("T", "int64", {2, 3}, {space = HS, layout = {tile = {2, 2}}})
    for i = 0, 1 do for j = 0, 2 do t:set(i, j, 10 * i + j) end end
    assert.are.equal("[[ 0,  1,  2],\n [10, 11, 12]]", repl.format(t):match("\n(.*)"))
  end)

  it("elides long dimensions past the limit", function()
    local big = filled("big", "int32", {40, 50}, function(k) return k end)
    assert.are.equal("View<int32[40][50], right, " .. HS .. "> 'big'\n"
      .. "[[   0,    1,    2, ...,   47,   48,   49],\n"
      .. " [  50,   51,   52, ...,   97,   98,   99],\n"
      .. " [ 100,  101,  102, ...,  147,  148,  149],\n"
      .. " ...,\n"
      .. " [1850, 1851, 1852, ..., 1897, 1898, 1899],\n"
      .. " [1900, 1901, 1902, ..., 1947, 1948, 1949],\n"
      .. " [1950, 1951, 1952, ..., 1997, 1998, 1999]]", repl.format(big))
    local v = filled("v", "int16", 10, function(k) return k end)
    assert.are.equal("[0, 1, ..., 8, 9]", repl.format(v, {limit = 5, edge = 2}):match("\n(.*)"))
    assert.are.equal("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", repl.format(v):match("\n(.*)"))
  end)

  it("shows a view of the default space (copied to the host if need be)", function()
    local d = speck.View("d", "int32", 3)
    speck.parallel_for("fill", 3, {d = d}, "d(i) = 7 * i;")
    assert.are.equal("[ 0,  7, 14]", repl.format(d):match("\n(.*)"))
  end)
end)

describe("the REPL", function()
  it("pretty-prints '= v' and has help", function()
    local out = run("", "x = speck.View('A', 'int32', {2, 3}, {space = 'host'})\n= x\n"
                        .. "help(speck.fence)\n= 1, 'two'\n")
    assert.are.equal("View<int32[2][3], right, host> 'A'\n[[0, 0, 0],\n [0, 0, 0]]\n"
      .. "speck.fence([space])\n  Wait for every kernel and copy launched (in 'space').\n"
      .. "1\ttwo\n", out)
  end)

  it("completes names with Tab through readline (a pseudo-terminal)", function()
    local py = "/usr/bin/python3"
    local probe = io.popen(py .. " -c 'import pty; print(1)' 2>/dev/null")
    local okpy = probe:read("a") == "1\n"
    probe:close()
    assert.is_true(okpy, "/usr/bin/python3 with pty is needed (Debian's python3)")
    local home = os.tmpname()
    os.remove(home)
    os.execute("mkdir -p " .. quote(home))
    local p = assert(io.popen(("timeout -k 10 300 %s tests/pty_drive.py %s %s %s %s 2>&1")
      :format(py, quote(SPECK), quote(home), quote("= speck.parallel_f\\t\\n"), quote("function"))))
    local a = p:read("a")
    local ok = p:close()
    os.execute("rm -rf " .. quote(home))
    assert.is_true(ok, a)
    local out = (a:find("= speck.parallel_for\r\n", 1, true) and a:find("function", 1, true)) and "ok\n" or a
    assert.are.equal("ok\n", out)
  end)
end)
