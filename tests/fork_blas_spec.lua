-- fork_blas_spec.lua: a background compile never stops a BLAS call (issue
-- 30, "nothing hangs"). The cc tier starts its compiler with a fork from
-- the background thread; a plain fork() runs the libraries' atfork
-- handlers in this process first, and OpenBLAS's shuts its thread pool
-- down -- a gemm running meanwhile on the main thread then waited for its
-- vanished workers for ever. jit/cc.c forks without the handlers. The
-- child process below tiers up 40 new kernels in the background while
-- running multi-threaded gemms (OpenBLAS's when it is there); it must
-- finish (the 120 s bound checks that nothing hangs; it is no speed test:
-- the run takes a few seconds). (docs/hardening.md, "Interrupts and
-- limits".)
-- host-only: the cc tier and the host's vendor BLAS; the cuda suite
-- reports it pending
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("background compiles beside BLAS calls", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local SPACE = os.getenv("SPECK_SPACE") or "openmp"

describe("background compiles beside BLAS calls on " .. SPACE, function()
  it("never leave a gemm waiting", function()
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[
local blas = require "speck.blas"
local n = 300
local A = speck.View("A", "float64", {n, n}); A:fill(1)
local B = speck.View("B", "float64", {n, n}); B:fill(2)
local C = speck.View("C", "float64", {n, n})
local x = speck.View("x", "float64", 64)
local stamp = tostring(os.time()) .. tostring(os.clock())
for r = 1, 40 do
  -- a new body, launched often enough to go to the cc tier in the background
  local body = ("x(i) = i * %d; /* %s */"):format(r, stamp)
  for _ = 1, 12 do speck.parallel_for("fork_blas_k", 64, {x = x}, body) end
  for _ = 1, 20 do blas.gemm("N", "N", 1, A, B, 0, C) end
end
speck.jit.wait()
print("done", C(0, 0), C(n - 1, n - 1))
]])
    f:close()
    local cache = os.tmpname()
    os.remove(cache)
    local p = assert(io.popen(("SPECK_SPACE=%s SPECK_THREADS=2 SPECK_CACHE_DIR=%s timeout -k 10 120 %s %s 2>&1; echo status=$?")
                              :format(SPACE, cache, SPECK, script)))
    local out = p:read("a")
    p:close()
    os.remove(script)
    os.execute("rm -rf '" .. cache .. "'")
    assert.truthy(out:find("done\t600.0\t600.0", 1, true), out)
    assert.truthy(out:find("status=0", 1, true), out)
  end)
end)
