-- gpu_faults_spec.lua: faults on the GPU (issue 16, item 5), in the cuda
-- suite (SPECK_SPACE=cuda on a machine with a GPU); pending elsewhere.
-- suite: faults the GPU on purpose (a context of its own: tests/run.sh)
--
-- The decision, as backends/cuda/device.c documents it: a kernel that
-- faults (illegal address, ...) leaves the CUDA context unusable. The
-- launch that sees the fault raises an error naming the kernel's label
-- (and the script line, as every Lua error does); from then on every call
-- into the cuda space answers with that message ("... the CUDA context is
-- unusable, restart the process"), never a crash or a hang; host views keep
-- their data, and after speck.finalize() the host back ends run kernels
-- again in the same process. Device out of memory is an ordinary error
-- naming the view and its size; every existing view keeps its data and
-- the device goes on working.
local speck = require "speck"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local INFO = speck.info()
local GPU = INFO.spaces.cuda and INFO.spaces.cuda.available
local ON_CUDA = INFO.default_space == "cuda"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function message(f)
  local ok, e = pcall(f)
  assert(not ok, "no error was raised")
  return tostring(e)
end

-- run a script file in a child bin/speck; output (both streams), status
local function child(code)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(code)
  f:close()
  local p = assert(io.popen(("env SPECK_SPACE=cuda timeout -k 10 120 %s %s 2>&1"):format(quote(SPECK), quote(path))))
  local out = p:read("a")
  local _, _, status = p:close()
  os.remove(path)
  return out, status, path
end

describe("GPU faults", function()
  if not (GPU and ON_CUDA) then
    it("run in the cuda suite on a GPU machine", function()
      pending("no GPU here, or not the cuda suite (SPECK_SPACE=cuda)")
    end)
    return
  end

  it("device out of memory names the view and its size; every view intact", function()
    local keep = speck.View("keep", "float64", 1000, {space = "cuda"})
    speck.parallel_for("gf_fill", 1000, {keep = keep}, "keep(i) = 3 * i;")
    local hostv = speck.View("hostv", "int32", 10, {space = "host"})
    for i = 0, 9 do hostv:set(i, 7 * i) end
    local bytes = 1 << 45   -- 32 TiB of float64: more than any device has
    local e = message(function() speck.View("huge", "float64", bytes // 8, {space = "cuda"}) end)
    assert.truthy(e:find("speck.View 'huge': cannot allocate " .. bytes .. " bytes in space 'cuda'", 1, true), e)
    e = message(function() speck.View("huge2", "float32", {1 << 20, 1 << 20, 8}, {space = "cuda"}) end)
    assert.truthy(e:find("speck.View 'huge2': cannot allocate 35184372088832 bytes in space 'cuda'", 1, true), e)
    -- the device and every view go on
    local m = speck.create_mirror_view_and_copy("host", keep)
    for i = 0, 999 do assert.are.equal(3 * i, m(i)) end
    for i = 0, 9 do assert.are.equal(7 * i, hostv(i)) end
    local s = speck.parallel_reduce("gf_sum", 1000, {keep = keep}, "acc += keep(i);")
    assert.are.equal(3 * 999 * 1000 / 2, s)
  end)

  it("a kernel that reads out of bounds: its label and line, then the space says it is unusable", function()
    local out, status, path = child([[
local h = speck.View("h", "float64", 4, {space = "host"})
for i = 0, 3 do h:set(i, i + 0.5) end
local x = speck.View("x", "int64", 4, {space = "cuda"})
speck.parallel_for("fill", 4, {x = x}, "x(i) = i;")
local ok, e = pcall(speck.parallel_reduce, "wild", 4, {x = x},
  "int64_t *p = (int64_t *)0x10; acc += p[i * 100000];", "sum")
print("fault", ok, e)
-- every later cuda call: the same message, no crash, no hang
print("fence", pcall(speck.fence))
print("view", pcall(speck.View, "y", "float64", 4, {space = "cuda"}))
print("launch", pcall(speck.parallel_for, "again", 4, {x = x}, "x(i) = 0;"))
print("copy", pcall(speck.create_mirror_view_and_copy, "host", x))
-- host data intact; the host back ends run again after finalize
print("host", h(0), h(3))
speck.finalize()
speck.initialize{space = "serial"}
local y = speck.View("y", "float64", 4)
speck.parallel_for("host_again", 4, {h = h, y = y}, "y(i) = 2 * h(i);")
print("host kernel", y(0), y(3))
print("done")
]])
    local script = path:match("[^/]+$")
    assert.truthy(out:find("fault\tfalse\t", 1, true), out)
    -- the launch's error: the script's line, the pattern and label, the fault
    assert.truthy(out:find("speck.parallel_reduce 'wild': kernel 'wild': the body faulted on device 0 (", 1, true), out)
    assert.truthy(out:find("the CUDA context is unusable, restart the process", 1, true), out)
    for _, what in ipairs{"fence", "view", "launch", "copy"} do
      local line = out:match("\n" .. what .. "\t([^\n]*)")
      assert.truthy(line and line:find("^false\t") and line:find("kernel 'wild': the body faulted", 1, true),
                    what .. ": " .. tostring(line) .. "\n" .. out)
    end
    assert.truthy(out:find("host\t0.5\t3.5", 1, true), out)
    assert.truthy(out:find("host kernel\t1.0\t7.0", 1, true), out)
    assert.truthy(out:find("done", 1, true), out)
    assert.are.equal(0, status, out)
  end)

  it("a fault is reported by the next call when the launch itself returned first", function()
    -- asynchronous: the launch may return before the fault shows; the
    -- next synchronising call names the kernel
    local out = child([[
local x = speck.View("x", "int64", 4, {space = "cuda"})
pcall(speck.parallel_for, "wild_for", 4, {x = x}, "int64_t *p = (int64_t *)0x10; p[i * 100000] = 1;")
print("fence", pcall(speck.fence))
print("done")
]])
    assert.truthy(out:find("kernel 'wild_for': the body faulted", 1, true), out)
    assert.truthy(out:find("done", 1, true), out)
  end)
end)
