-- house_spec.lua: the house's rules, as tests (issue 25). A back end is one
-- folder: no CUDA word in a code line outside the CUDA back end's files
-- (tests/cudaword.lua says which, and which string lines are allowed and
-- why). A failure lists every offending file:line.

local cw = dofile("tests/cudaword.lua")

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
    assert.are.same({}, cw.check({"backends/cuda", "dialect/cuda.h", "jit/codegen_cuda.c"}))
  end)
end)
