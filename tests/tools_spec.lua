-- tools_spec.lua: Kokkos Tools (SPEC.md "Tools"). A tool library built
-- from tests/tools/tool.c with nothing of speck (Kokkos' ABI only) is
-- loaded through KOKKOS_TOOLS_LIBS / SPECK_TOOLS_LIBS by a speck process
-- and logs every hook call; the log must show the runtime's life, each
-- kernel (user and library, with its label and pattern), allocations with
-- labels and sizes, deep copies, fences and profile regions, in order.
-- A library that cannot be used is a warning, and the run goes on.

local speck = require "speck"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local TOOL = SPECK:gsub("bin/speck$", "tests/tools/libspeck_testtool.so")
local SPACE = os.getenv("SPECK_SPACE") or "openmp"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(script, envs)
  local path, log, errp = os.tmpname(), os.tmpname(), os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(script)
  f:close()
  os.remove(log)
  local p = io.popen(("env %s TOOL_LOG=%s %s %s 2>%s"):format(envs, quote(log),
                     quote(SPECK), quote(path), quote(errp)))
  local out = p:read("a")
  local ok, _, code = p:close()
  local lines = {}
  local lf = io.open(log)
  if lf then
    for l in lf:lines() do lines[#lines + 1] = l end
    lf:close()
  end
  local ef = io.open(errp)
  local err = ef and ef:read("a") or ""
  if ef then ef:close() end
  os.remove(path); os.remove(log); os.remove(errp)
  return lines, out, err, ok and 0 or code
end

-- the events of 'lines' whose text starts with one of the given words
local function only(lines, ...)
  local keep, r = {...}, {}
  for _, l in ipairs(lines) do
    for _, w in ipairs(keep) do
      if l:sub(1, #w) == w then
        -- kernel and fence events end with their id: not compared
        r[#r + 1] = l:match("^begin_") and l:gsub(" %d+$", "") or l:match("^end_%a+ %d+$")
                    and l:gsub(" %d+$", "") or l
        break
      end
    end
  end
  return r
end

local SCRIPT = [[
local blas = require "speck.blas"
local x = speck.View("xs", "float64", 10, {space = "host"})
local y = speck.View("ys", "float64", 10, {space = "host"})
speck.profile.push("phase1")
speck.parallel_for("pf", 10, {x = x}, "x(i) = i;")
assert(speck.parallel_reduce("pr", 10, {x = x}, "acc += x(i);") == 45)
assert(speck.parallel_scan("ps", 10, {x = x}, "acc += x(i);") == 45)
speck.deep_copy(y, x)
assert(blas.dot(x, y) == 285)
local k = speck.kernel("handle", "range", {x = x}, "x(i) = 2 * i;")
k(10, {x = x})
speck.profile.pop()
speck.fence()
x, y, k = nil, nil, nil
collectgarbage()
speck.finalize()
print("done")
]]

describe("Kokkos Tools on " .. SPACE, function()
  if SPACE ~= "serial" and SPACE ~= "openmp" then
    it("runs on the host back ends", function() pending("host scripts") end)
    return
  end

  it("a tool library sees the runtime, kernels, memory, copies, fences and regions", function()
    local lines, out, err, code = run(SCRIPT, "SPECK_SPACE=" .. SPACE ..
                                      " KOKKOS_TOOLS_LIBS=" .. quote(TOOL))
    assert.are.equal(0, code, err)
    assert.are.equal("done\n", out)
    assert.are.equal("init 20211015", lines[1])
    assert.are.equal("finalize", lines[#lines])
    assert.are.same({"begin_for pf", "end_for", "begin_reduce pr", "end_reduce",
                     "begin_scan ps", "end_scan", "begin_reduce blas.dot", "end_reduce",
                     "begin_for handle", "end_for"},
                    only(lines, "begin_for", "end_for", "begin_reduce", "end_reduce",
                         "begin_scan", "end_scan"))
    assert.are.same({"alloc Host xs 80", "alloc Host ys 80", "dealloc Host ys 80",
                     "dealloc Host xs 80"},
                    (function()
                      local r = only(lines, "alloc", "dealloc")
                      -- the order of the two deallocations is the collector's
                      if r[3] == "dealloc Host xs 80" then r[3], r[4] = r[4], r[3] end
                      return r
                    end)())
    assert.are.same({"copy ys<-xs 80", "end_copy"}, only(lines, "copy", "end_copy"))
    assert.are.same({"push phase1", "pop"}, only(lines, "push", "pop"))
    assert.are.same({"begin_fence speck.fence", "end_fence"},
                    only(lines, "begin_fence", "end_fence"))
    -- begin and end carry the same id
    for i, l in ipairs(lines) do
      local kind, id = l:match("^begin_(%a+) %S+ (%d+)$")
      if kind then
        local e = lines[i + 1]
        assert.are.equal(("end_%s %s"):format(kind, id), e)
      end
    end
  end)

  it("SPECK_TOOLS_LIBS works too, and speck.info() names the library", function()
    local lines, out, err, code = run('print(speck.info().tools.libraries)',
                                      "-u KOKKOS_TOOLS_LIBS SPECK_SPACE=" .. SPACE
                                      .. " SPECK_TOOLS_LIBS=" .. quote(TOOL))
    assert.are.equal(0, code, err)
    assert.are.equal(TOOL .. "\n", out)
    assert.are.equal("init 20211015", lines[1])
  end)

  it("a library that does not exist is a warning; the run goes on", function()
    local lines, out, err, code = run('print(speck.parallel_reduce("r", 4, {}, "acc += 1;"))\n'
                                      .. 'print(speck.info().tools.warning)',
                                      "SPECK_SPACE=" .. SPACE ..
                                      " KOKKOS_TOOLS_LIBS=/no/such/tool.so")
    assert.are.equal(0, code, err)
    local w = "cannot load tool library '/no/such/tool.so': /no/such/tool.so: cannot open "
              .. "shared object file: No such file or directory; running without it"
    assert.are.equal("4.0\n" .. w .. "\n", out)
    assert.are.equal("speck: " .. w .. "\n", err)
    assert.are.equal(0, #lines)
  end)

  it("a library without any kokkosp_ hook is skipped with a warning", function()
    local lib = "libm.so.6"   -- any shared library without the hooks
    local _, out, err, code = run('print(speck.info().tools.warning)',
                                  "SPECK_SPACE=" .. SPACE .. " KOKKOS_TOOLS_LIBS=" .. quote(lib))
    assert.are.equal(0, code, err)
    assert.are.equal("tool library '" .. lib .. "' has no kokkosp_* hook; running without it\n",
                     out)
  end)

  it("with no tool, regions are no-ops and nothing is loaded", function()
    speck.profile.push("nothing")
    speck.profile.pop()
    assert.are.equal("", speck.info().tools.libraries)
    assert.is_nil(speck.info().tools.warning)
  end)
end)
