-- cli_spec.lua: the speck command line (SPEC.md "The command line"), run
-- as a subprocess: options, scripts and 'arg', exit statuses, error
-- messages and the REPL fed through stdin.

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function write_temp(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- Run speck with the (already quoted) argument string, optional stdin
-- text and optional environment changes (arguments of env(1): "A=1 -u B");
-- returns stdout, stderr, exit status.
local function run(args, input, envs)
  local errpath = os.tmpname()
  local cmd = (envs and "env " .. envs .. " " or "") .. quote(SPECK) .. " " .. args
              .. " 2>" .. quote(errpath)
  local inpath
  if input then
    inpath = write_temp(input)
    cmd = cmd .. " <" .. quote(inpath)
  else
    cmd = cmd .. " </dev/null"
  end
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  local err = slurp(errpath)
  os.remove(errpath)
  if inpath then os.remove(inpath) end
  return out, err, code
end

describe("speck command line", function()
  it("prints its version", function()
    local out, _, code = run("--version")
    assert.are.equal("speck 0.1.0\n", out)
    assert.are.equal(0, code)
  end)

  it("prints usage for -h and --help", function()
    for _, opt in ipairs { "-h", "--help" } do
      local out, _, code = run(opt)
      assert.truthy(out:find("usage: speck", 1, true))
      assert.are.equal(0, code)
    end
  end)

  it("describes the back ends with --info", function()
    local out, err, code = run("--info")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("^speck 0%.1%.0\n"))
    assert.truthy(out:find("threads", 1, true))
    assert.truthy(out:find("serial", 1, true))
  end)

  it("runs -e chunks in order, with speck preloaded", function()
    local out, err, code = run("-e 'print(1 + 2)' -e 'print(speck.version)'")
    assert.are.equal(0, code, err)
    assert.are.equal("3\n0.1.0\n", out)
  end)

  it("runs -e chunks before the script", function()
    local script = write_temp("print(x)\n")
    local out, _, code = run("-e 'x = 42' " .. quote(script))
    os.remove(script)
    assert.are.equal(0, code)
    assert.are.equal("42\n", out)
  end)

  it("passes script arguments as 'arg' and '...'", function()
    local script = write_temp(
      "print(arg[0] == ..., #arg, arg[1], arg[2], select('#', ...))\n")
    local out, err, code = run(quote(script) .. " a 'b c'")
    assert.are.equal(0, code, err)
    -- arg[0] is the script, not the first argument
    assert.are.equal("false\t2\ta\tb c\t2\n", out)
    out = run(quote(script))
    assert.are.equal("false\t0\tnil\tnil\t0\n", out)
    out = run("-e 'print(arg[0] ~= nil)' " .. quote(script) .. " z")
    assert.are.equal("true\nfalse\t1\tz\tnil\t1\n", out)
    os.remove(script)
  end)

  it("exits 0 on success and with os.exit's status", function()
    local _, _, code = run("-e 'local x = 1'")
    assert.are.equal(0, code)
    _, _, code = run("-e 'os.exit(3)'")
    assert.are.equal(3, code)
  end)

  it("exits 1 on a script error, naming the script's file:line", function()
    local script = write_temp("local x = 1\nerror('boom')\n")
    local out, err, code = run(quote(script))
    os.remove(script)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.truthy(err:find("speck: " .. script .. ":2: boom", 1, true), err)
    assert.truthy(err:find("stack traceback:", 1, true))
  end)

  it("exits 1 on a syntax error and on an unreadable script", function()
    local script = write_temp("x = = 1\n")
    local _, err, code = run(quote(script))
    os.remove(script)
    assert.are.equal(1, code)
    assert.truthy(err:find(script .. ":1:", 1, true), err)
    _, err, code = run("/nonexistent/script.lua")
    assert.are.equal(1, code)
    assert.truthy(err:find("cannot open /nonexistent/script.lua", 1, true))
  end)

  it("exits 2 on bad usage", function()
    local _, err, code = run("--bogus")
    assert.are.equal(2, code)
    assert.truthy(err:find("speck: unrecognized option '--bogus'", 1, true))
    assert.truthy(err:find("usage: speck", 1, true))
    _, err, code = run("-e")
    assert.are.equal(2, code)
    assert.truthy(err:find("'-e' needs argument", 1, true))
  end)

  it("runs a script from stdin with '-'", function()
    local out, _, code = run("- x", "print(arg[1])\n")
    assert.are.equal(0, code)
    assert.are.equal("x\n", out)
  end)
end)

describe("speck's environment settings", function()
  -- a malformed value stops the CLI at start-up: exit 1, the variable,
  -- its value and what is wrong on stderr, nothing run
  for _, case in ipairs{
    {"SPECK_THREADS=abc", "SPECK_THREADS=abc: not a positive integer"},
    {"SPECK_THREADS=-1", "SPECK_THREADS=-1: not a positive integer"},
    {"SPECK_THREADS=0", "SPECK_THREADS=0: not a positive integer"},
    {"SPECK_THREADS=' 4'", "SPECK_THREADS= 4: not a positive integer"},
    {"SPECK_THREADS=2.5", "SPECK_THREADS=2.5: not a positive integer"},
    {"SPECK_THREADS=5000", "SPECK_THREADS=5000: more than 1024"},
    {"SPECK_THREADS=99999999999999999999", "SPECK_THREADS=99999999999999999999: more than 1024"},
    {"-u SPECK_THREADS OMP_NUM_THREADS=many", "OMP_NUM_THREADS=many: not a positive integer"},
    {"SPECK_JIT=fast", "SPECK_JIT=fast: unknown tier (tcc, cc or auto)"},
    {"SPECK_JIT=TCC", "SPECK_JIT=TCC: unknown tier (tcc, cc or auto)"},
    {"SPECK_SPACE=mars", "SPECK_SPACE=mars: unknown space (serial, openmp or cuda)"},
  } do
    it("exits 1 on " .. case[1], function()
      local out, err, code = run("-e 'print(\"ran\")'", nil, case[1])
      assert.are.equal("speck: " .. case[2] .. "\n", err)
      assert.are.equal("", out)
      assert.are.equal(1, code)
      -- the REPL and --info do not start either; --version and --help
      -- need no settings
      _, err, code = run("--info", nil, case[1])
      assert.are.equal("speck: " .. case[2] .. "\n", err)
      assert.are.equal(1, code)
      out, _, code = run("--version", nil, case[1])
      assert.are.equal("speck 0.1.0\n", out)
      assert.are.equal(0, code)
    end)
  end

  it("takes well-formed values (an empty one means unset)", function()
    for _, case in ipairs{
      {"SPECK_SPACE=openmp SPECK_THREADS=3", "openmp 3"},
      {"-u SPECK_THREADS SPECK_SPACE=openmp OMP_NUM_THREADS=3,2", "openmp 3"},
      {"SPECK_SPACE=openmp SPECK_THREADS=2 OMP_NUM_THREADS=junk", "openmp 2"},
      {"SPECK_SPACE=serial SPECK_THREADS= SPECK_JIT=", "serial 1"},
      {"SPECK_SPACE=serial SPECK_JIT=cc", "serial 1"},
    } do
      local out, err, code = run("-e 'local i = speck.info() print(i.default_space, i.threads)'",
                                 nil, case[1])
      assert.are.equal(0, code, err)
      assert.are.equal(case[2]:gsub(" ", "\t") .. "\n", out)
    end
  end)

  it("reaches Lua as an error from a plain Lua process (first use and initialize)", function()
    local lua = os.getenv("SPECK_LUA") or "lua"
    -- a sanitized build (make asan): Debian's lua5.4 with the runtimes
    -- preloaded, not the sanitized CLI
    local preload = os.getenv("SPECK_PRELOAD")
    if preload and lua:find("bin/speck$") then lua = "lua5.4" end
    local probe = io.popen("command -v " .. lua)
    local found = probe:read("a")
    probe:close()
    if found == "" then return pending("no standalone 'lua' interpreter") end
    -- the GPU bundle and the sanitizer builds run busted with the speck
    -- CLI, which is no plain Lua: it checks the environment before a script
    local vp = io.popen(lua .. " --version 2>&1")
    local v = vp:read("a")
    vp:close()
    if v:match("^speck") then return pending("the Lua here is the speck CLI") end
    if preload then
      lua = ("env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 %s"):format(preload, lua)
    end
    local script = [[local speck = require "speck"
      print(select(2, pcall(speck.View, "v", "float64", 4)))
      print(select(2, pcall(speck.initialize, {space = "serial"})))
      print(select(2, pcall(speck.parallel_for, "k", 4, {}, "(void)i;")))]]
    local p = io.popen("env SPECK_THREADS=-1 " .. lua .. " -e " .. quote(script) .. " 2>&1")
    local out = p:read("a")
    p:close()
    assert.are.equal("speck.View 'v': SPECK_THREADS=-1: not a positive integer\n"
      .. "speck.initialize: SPECK_THREADS=-1: not a positive integer\n"
      .. "speck.parallel_for 'k': SPECK_THREADS=-1: not a positive integer\n", out)
  end)

  -- SPECK_TCC_LIBDIR: where the tcc tier finds libtcc1.a (its helpers,
  -- e.g. the double -> uint64 conversion __fixunsdfdi)
  local TCC1 = SPECK:gsub("bin/speck$", "lib/speck/tcc/libtcc1.a")
  local CONVERT = "-e 'local x = speck.View(\"x\", \"uint64\", 2) "
    .. "speck.parallel_for(\"to_u64\", 2, {x = x}, \"x(i) = (uint64_t)(2.5 * (double)i);\", {jit = \"tcc\"}) "
    .. "print(x(1), speck.info().compilers.tcc.libdir)'"

  it("SPECK_TCC_LIBDIR is where the CLI's tcc tier finds libtcc1.a", function()
    local empty = os.tmpname()
    os.remove(empty)
    assert(os.execute("mkdir " .. quote(empty)))
    -- the tcc tier is the host's: serial, whatever space the suite runs
    local out, err, code = run(CONVERT, nil, "SPECK_SPACE=serial SPECK_TCC_LIBDIR=" .. quote(empty))
    assert.are.equal(1, code)
    assert.truthy(err:find("speck.parallel_for 'to_u64': tcc: error: undefined symbol '__fixunsdfdi'",
                           1, true), err)
    -- a folder holding libtcc1.a works, and speck.info() shows it
    assert(os.execute("cp " .. quote(TCC1) .. " " .. quote(empty .. "/libtcc1.a")))
    out, err, code = run(CONVERT, nil, "SPECK_SPACE=serial SPECK_TCC_LIBDIR=" .. quote(empty))
    assert.are.equal(0, code, err)
    assert.are.equal("2\t" .. empty .. "\n", out)
    os.execute("rm -r " .. quote(empty))
    -- unset: the installation's own folder
    out, err, code = run(CONVERT, nil, "-u SPECK_TCC_LIBDIR SPECK_SPACE=serial")
    assert.are.equal(0, code, err)
    assert.are.equal("2\t" .. TCC1:gsub("/libtcc1%.a$", "") .. "\n", out)
  end)

  it("SPECK_TCC_LIBDIR is honoured by the embedding API (speck_vm_new)", function()
    -- a program linked with a sanitized libspeck.so needs the sanitizer's
    -- runtime loaded first: not a test of speck
    if os.getenv("ASAN_OPTIONS") or os.getenv("TSAN_OPTIONS") then
      return pending("sanitizer build: the program would need its runtime preloaded")
    end
    local build = SPECK:gsub("/bin/speck$", "")
    local src = os.tmpname() .. ".c"
    local exe = os.tmpname()
    local f = assert(io.open(src, "w"))
    f:write([[
#include <stdio.h>
#include "speck.h"
int main(void) {
  char err[1024];
  speck_vm *vm = speck_vm_new(NULL VM_NEW_ARGS);
  if (!vm) { fprintf(stderr, "no VM\n"); return 1; }
  if (speck_vm_dostring(vm, "io.write(speck.info().compilers.tcc.libdir)", err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  speck_vm_free(vm);
  return 0;
}
]])
    f:close()
    -- speck_vm_new(opt) or speck_vm_new(opt, err, errlen)
    local built = false
    for _, args in ipairs{"", ", err, sizeof err"} do
      local cc = ("cc -I%s/include '-DVM_NEW_ARGS=%s' %s -o %s %s/lib/libspeck.so -llua5.4 "
                  .. "-Wl,-rpath,%s/lib >/dev/null 2>&1"):format(build, args, quote(src), quote(exe),
                  build, build)
      if os.execute(cc) then built = true break end
    end
    os.remove(src)
    if not built then return pending("cannot build a program against libspeck.so and liblua5.4") end
    -- (a sanitized libspeck.so in this plain program: its runtimes first)
    local preload = os.getenv("SPECK_PRELOAD")
    local p = io.popen("env SPECK_TCC_LIBDIR=/opt/elsewhere " ..
                       (preload and ("LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 "):format(preload) or "") ..
                       quote(exe) .. " 2>&1")
    local out = p:read("a")
    p:close()
    os.remove(exe)
    assert.are.equal("/opt/elsewhere", out)
  end)
end)

describe("speck REPL on stdin", function()
  it("prints '= expr' and bare expressions", function()
    local out, err, code = run("", "= 1+2\n")
    assert.are.equal(0, code, err)
    assert.are.equal("3\n", out)
    out = run("", "1 + 2, 'x'\n")
    assert.are.equal("3\tx\n", out)
  end)

  it("has the global speck", function()
    local out = run("", "= speck.version\n")
    assert.are.equal("0.1.0\n", out)
  end)

  it("continues incomplete input across lines", function()
    local out, err, code = run("", table.concat({
      "function twice(x)",
      "  return 2 * x",
      "end",
      "= twice(21)",
      "t = {",
      "  1,",
      "  2 }",
      "print(#t)",
    }, "\n") .. "\n")
    assert.are.equal(0, code, err)
    assert.are.equal("42\n2\n", out)
  end)

  it("reports an error and carries on, then exits 1", function()
    local out, err, code = run("", "error('oops')\n= 5\n")
    assert.are.equal("5\n", out)
    assert.truthy(err:find("stdin:1: oops", 1, true), err)
    assert.are.equal(1, code)
  end)

  it("enters the REPL after a script with -i", function()
    local script = write_temp("y = 7\n")
    local out, _, code = run("-i " .. quote(script), "= y * 6\n")
    os.remove(script)
    assert.are.equal(0, code)
    assert.are.equal("42\n", out)
  end)
end)
