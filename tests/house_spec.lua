-- house_spec.lua: the house's rules, as tests (issue 25). A back end is one
-- folder: no CUDA word in a code line outside the CUDA back end's files
-- (tests/cudaword.lua says which, and which string lines are allowed and
-- why). A failure lists every offending file:line. Library kernels are
-- written once in the dialect: no module under stdlib/ passes a literal
-- body to a launch (tests/stdlib_bodies.lua).

local cw = dofile("tests/cudaword.lua")
local sb = dofile("tests/stdlib_bodies.lua")

local function tmpfile(ext, text)
  local p = os.tmpname() .. ext
  local f = assert(io.open(p, "w"))
  f:write(text)
  f:close()
  return p
end

describe("the house", function()
  it("has no CUDA word in code lines outside the CUDA back end", function()
    local f = io.open("core/backend.h", "rb")
    if not f then
      pending("the C sources are not in this tree (a bundle of the build)")
      return
    end
    f:close()
    local found = cw.check()
    if #found > 0 then
      print("\nCUDA words in code lines outside backends/cuda/ (tests/cudaword.lua):\n"
            .. table.concat(found, "\n"))
    end
    assert.are.same({}, found)
  end)

  it("checks code, not comments; strings are code", function()
    local c = tmpfile(".c", table.concat({
      "/* cuda in a comment,",
      "   over lines: CU_ nvrtc */",
      "int a; // __syncthreads in a comment",
      "int b = CUDA_OK;",
      "const char *s = \"a // cubin in a string\";",
      "const char *t = \"/* not a comment */\"; int ptx;",
      "char q = '\"'; int cu_ok;",
    }, "\n"))
    local found = cw.check_file(c, {})
    os.remove(c)
    assert.are.equal(3, #found)
    assert.truthy(found[1]:find(":4: int b = CUDA_OK;", 1, true))
    assert.truthy(found[2]:find(":5: ", 1, true))
    assert.truthy(found[3]:find(":6: ", 1, true))
    local l = tmpfile(".lua", table.concat({
      "-- cuda in a comment",
      "--[[ nvrtc",
      "  in a long comment ]] local x = 1",
      "local s = '-- cuda in a string'",
      "local t = [[ptx]] -- and a comment",
    }, "\n"))
    found = cw.check_file(l, {})
    os.remove(l)
    assert.are.equal(2, #found)
    assert.truthy(found[1]:find(":4: ", 1, true))
    assert.truthy(found[2]:find(":5: ", 1, true))
  end)

  it("exempts the CUDA back end's own files", function()
    assert.are.same({}, cw.check({"backends/cuda"}))
  end)

  it("has no literal kernel body in the Lua modules of stdlib/", function()
    local f = io.open("stdlib/speck/dist.lua", "rb")
    if not f then
      pending("the Lua sources are not in this tree (a bundle of the build)")
      return
    end
    f:close()
    local found = sb.check({"stdlib"})
    if #found > 0 then
      print("\nliteral kernel bodies in stdlib/ (tests/stdlib_bodies.lua):\n"
            .. table.concat(found, "\n"))
    end
    assert.are.same({}, found)
  end)

  it("finds a literal body in every form, and passes texts and handed-on bodies", function()
    local bad = table.concat({
      'local speck = require "speck"',
      'local core = require("speck.core")',
      'local S = require "speck"',
      'speck.parallel_for("a", n, {x = x}, "x(i) = 1;")',                    -- 4
      'local r = speck.parallel_reduce("b", n, {}, [==[',                     -- 5
      '  acc += 1;', ']==], {op = "sum", dtype = "int64"})',
      'local BODY = [[x(i) = 2;]]',                                          -- 8
      'core.parallel_scan("c", n, caps, BODY, {dtype = "int64"})',            -- 9
      'local FILL = "v(%s) = %s;"',
      'local body = FILL:format(idx,',
      '  value)',
      'S.parallel_for("d", n, caps, body)',                                   -- 13
      'speck.parallel_for("e", n, caps, "const int64_t u = src(e);\\n" .. ub)', -- 14
      'speck.kernel("f", "range", caps, dt == "f" and "b(i) = a(i);" or "b(i) = 0;")', -- 15
      'run(f, speck.parallel_reduce, "g", n, caps, "acc += 1;", "sum")',      -- 16
      'local pf = speck.parallel_for',
      'pf("h", n, caps, ("x(i) = %d;"):format(k))',                           -- 18
    }, "\n")
    local found = sb.check_source("bad.lua", bad)
    local lines = {}
    for _, l in ipairs(found) do lines[#lines + 1] = tonumber(l:match("^bad%.lua:(%d+):")) end
    assert.are.same({4, 5, 9, 13, 14, 15, 16, 18}, lines)
    assert.are.equal("bad.lua:4: speck.parallel_for's body is a string literal: write it in "
                     .. "kernels/<area>/*.sk, pass text(name)", found[1])
    assert.truthy(found[3]:find("core.parallel_scan's body is 'BODY' (assigned at line 8 from "
                                .. "a string literal)", 1, true))
    assert.truthy(found[4]:find("S.parallel_for's body is 'body' (assigned at line 11 from 'FILL' "
                                .. "(assigned at line 10 from a string literal))", 1, true))
    assert.truthy(found[7]:find("bad.lua:16: speck.parallel_reduce's body", 1, true))
    assert.truthy(found[8]:find("bad.lua:18: speck.parallel_for's body", 1, true))
    local good = table.concat({
      'local speck = require "speck"',
      'local text = require "speck.ktext"',
      '-- speck.parallel_for("a", n, {}, "x(i) = 1;") in a comment',
      '--[[ speck.parallel_for("a", n, {}, [=[x(i) = 1;]=]) ]]',
      'local s = "speck.parallel_for(\'a\', n, {}, \'x(i) = 1;\')"',
      'speck.parallel_for("a", n, {x = x}, text("dist_iota"))',
      'speck.parallel_reduce("b", n, {}, text(dt == "f" and "t_f" or "t_i"), {op = "sum"})',
      'local body2 = text("t", {DECODE = d, IDX = "i0"})',
      'speck.parallel_for("c", n, caps, body2)',
      'function M.forall(g, caps, body)',
      '  run(f, speck.parallel_for, "d", g.n, caps, text("arc_ends") .. body, {index = {"e"}})',
      '  return speck.parallel_reduce("e", g.n, caps, body, reducer or "sum")',
      'end',
    }, "\n")
    assert.are.same({}, sb.check_source("good.lua", good))
  end)
end)
