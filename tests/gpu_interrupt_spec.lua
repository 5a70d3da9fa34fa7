-- gpu_interrupt_spec.lua: Ctrl-C stops a GPU kernel stuck in a loop
-- (issue 30, item 2), in the cuda suite (SPECK_SPACE=cuda on a machine
-- with a GPU); pending elsewhere. Loops in a user's body poll a word of
-- page-locked host memory mapped into the device (backends/cuda/dialect.h SK__GO,
-- every 4096th iteration of a thread); the host's interrupt sets it, the
-- loops end, the kernel finishes and the launch that waits for it fails
-- with "interrupted" (a parallel_for, which is not waited for: the fence
-- that waits for it) -- once: the next launch runs, and the context stays
-- usable. The REPL runs as a child fed through stdin; a background shell
-- sends it SIGINT (as tests/interrupt_spec.lua does on the host).
local speck = require "speck"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local INFO = speck.info()
local GPU = INFO.spaces.cuda and INFO.spaces.cuda.available
local ON_CUDA = INFO.default_space == "cuda"

local function repl(input)
  local inpath, errpath = os.tmpname(), os.tmpname()
  local f = assert(io.open(inpath, "wb"))
  f:write(input)
  f:close()
  local p = assert(io.popen(("env SPECK_SPACE=cuda timeout -k 10 120 %s <%s 2>%s"):format(
    SPECK, inpath, errpath)))
  local out = p:read("a")
  p:close()
  f = io.open(errpath)
  local err = f:read("a")
  f:close()
  os.remove(inpath)
  os.remove(errpath)
  return out, err
end

describe("Ctrl-C during a GPU kernel", function()
  if not (GPU and ON_CUDA) then
    it("runs in the cuda suite on a GPU machine", function()
      pending("no GPU here, or not the cuda suite (SPECK_SPACE=cuda)")
    end)
    return
  end

  it("ends a body's endless loop; the launch fails once, the device goes on", function()
    local out, err = repl([[
pid = io.open("/proc/self/stat"):read("l"):match("^(%d+)")
function ctrl_c(s) os.execute(("(sleep %g; kill -INT %s) &"):format(s, pid)) end
x = speck.View("x", "float64", 1024)
t = speck.Timer()
ctrl_c(1) t:reset() ok, e = pcall(speck.parallel_reduce, "gpu_spin", 1024, {x = x}, "long k = 0; while (1) { k++; } acc += k;") print("case 1", ok, e, t:seconds() < 30)
ctrl_c(1) t:reset() ok, e = pcall(function() speck.parallel_for("gpu_spin_for", 1024, {x = x}, "for (;;) { x(i) += 1; }") speck.fence() end) print("case 2", ok, e, t:seconds() < 30)
speck.parallel_for("gpu_after", 1024, {x = x}, "x(i) = i;")
print("after", speck.parallel_reduce("gpu_sum", 1024, {x = x}, "acc += x(i);"))
for _, k in ipairs(speck.jit.stats().per_kernel) do if k.label == "gpu_spin" then print("tier", k.tier) end end
print("done")
]])
    assert.truthy(out:find("case 1\tfalse\t[^\n]*speck%.parallel_reduce 'gpu_spin': interrupted\ttrue"),
                  out .. err)
    -- an asynchronous launch: the fence that waits for it reports it
    assert.truthy(out:find("case 2\tfalse\t[^\n]*interrupted\ttrue"), out .. err)
    -- the kernel ran on the device (the image tier's compiler)
    assert.truthy(out:find("tier\tnvrtc", 1, true), out .. err)
    assert.truthy(out:find("after\t523776.0", 1, true), out .. err)
    assert.truthy(out:find("done", 1, true), out .. err)
  end)
end)
