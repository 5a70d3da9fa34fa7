-- tools_multi_spec.lua: Kokkos Tools as real tools use them (issue 30):
-- two tool libraries in KOKKOS_TOOLS_LIBS, each seeing every event with
-- its own kernel and fence ids (one tool's id is never handed to the
-- other's end hooks); KOKKOS_TOOLS_ARGS reaching each tool's
-- kokkosp_parse_args (argv[0] the library's path); a kernel without a
-- label reaching tools under a generated name. The tools are
-- tests/tools/tool.c built twice (build/tests/tools/libspeck_testtool*.so):
-- the second hands out ids from 5000 and logs to TOOL_LOG2; an end hook
-- given an id its library did not hand out logs "foreign".

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local TOOL = SPECK:gsub("bin/speck$", "tests/tools/libspeck_testtool.so")
local TOOL2 = SPECK:gsub("bin/speck$", "tests/tools/libspeck_testtool2.so")
local SPACE = os.getenv("SPECK_SPACE") or "openmp"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function lines_of(path)
  local t = {}
  local f = io.open(path)
  if f then
    for l in f:lines() do t[#t + 1] = l end
    f:close()
  end
  return t
end

-- run 'script' under 'envs' with both logs; stdout, stderr, status, logs
local function run(script, envs)
  local path, log, log2, errp = os.tmpname(), os.tmpname(), os.tmpname(), os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(script)
  f:close()
  os.remove(log)
  os.remove(log2)
  local p = io.popen(("env %s TOOL_LOG=%s TOOL_LOG2=%s %s %s 2>%s"):format(
    envs, quote(log), quote(log2), quote(SPECK), quote(path), quote(errp)))
  local out = p:read("a")
  local ok, _, code = p:close()
  local ef = io.open(errp)
  local err = ef:read("a")
  ef:close()
  local a, b = lines_of(log), lines_of(log2)
  os.remove(path); os.remove(log); os.remove(log2); os.remove(errp)
  return out, err, ok and 0 or code, a, b
end

local SCRIPT = [[
local x = speck.View("xs", "float64", 10, {space = "host"})
speck.parallel_for("pf", 10, {x = x}, "x(i) = i;")
assert(speck.parallel_reduce("pr", 10, {x = x}, "acc += x(i);") == 45)
speck.parallel_for("", 10, {x = x}, "x(i) = 2 * i;")
assert(speck.parallel_reduce("", 10, {x = x}, "acc += x(i);") == 90)
speck.fence()
speck.finalize()
print("done")
]]

describe("several Kokkos tools on " .. SPACE, function()
  if SPACE ~= "serial" and SPACE ~= "openmp" then
    it("runs on the host back ends", function() pending("host scripts") end)
    return
  end

  it("each tool sees every event with its own ids; unnamed kernels get a name", function()
    local out, err, code, a, b = run(SCRIPT, "SPECK_SPACE=" .. SPACE ..
                                     " KOKKOS_TOOLS_LIBS=" .. quote(TOOL .. ";" .. TOOL2))
    assert.are.equal(0, code, err)
    assert.are.equal("done\n", out)
    for n, log in ipairs({a, b}) do
      local text = table.concat(log, "\n")
      assert.are.equal("init 20211015", log[1], text)
      assert.are.equal("finalize", log[#log], text)
      assert.falsy(text:find("foreign", 1, true), "tool " .. n .. " got another's id:\n" .. text)
      assert.falsy(text:find("(empty)", 1, true), text)
      local base = n == 1 and 100 or 5000
      local kernels = {}
      for i, l in ipairs(log) do
        local kind, name, id = l:match("^begin_(%a+) (.-) (%d+)$")
        if kind then
          assert.truthy(tonumber(id) >= base and tonumber(id) < base + 1000, l)
          -- its end follows with its own id
          assert.are.equal(("end_%s %s"):format(kind, id), log[i + 1], text)
          if kind ~= "fence" then kernels[#kernels + 1] = kind .. " " .. name end
        end
      end
      assert.are.same({"for pf", "reduce pr", "for speck.parallel_for (unnamed)",
                       "reduce speck.parallel_reduce (unnamed)"}, kernels)
    end
  end)

  it("KOKKOS_TOOLS_ARGS reaches kokkosp_parse_args of each tool after its init", function()
    local out, err, code, a, b = run('print("ok")', "SPECK_SPACE=" .. SPACE ..
                                     " KOKKOS_TOOLS_LIBS=" .. quote(TOOL .. ";" .. TOOL2) ..
                                     " KOKKOS_TOOLS_ARGS=" .. quote("--rate 10 -v"))
    assert.are.equal(0, code, err)
    assert.are.equal("ok\n", out)
    assert.are.equal("init 20211015", a[1])
    assert.are.equal(("args 4 [%s] [--rate] [10] [-v]"):format(TOOL), a[2])
    assert.are.equal(("args 4 [%s] [--rate] [10] [-v]"):format(TOOL2), b[2])
  end)

  it("no KOKKOS_TOOLS_ARGS: kokkosp_parse_args is not called", function()
    local _, err, code, a = run('print("ok")', "-u KOKKOS_TOOLS_ARGS SPECK_SPACE=" .. SPACE ..
                                " KOKKOS_TOOLS_LIBS=" .. quote(TOOL))
    assert.are.equal(0, code, err)
    for _, l in ipairs(a) do assert.falsy(l:find("^args"), l) end
  end)
end)
