-- mpi_end_spec.lua: MPI jobs end. 2-rank jobs of bin/speck under mpirun
-- (--oversubscribe, as make test runs tests/remote/): an uncaught error on
-- one rank ends the whole job with a non-zero status within 10 s
-- (MPI_Abort, as mpi4py does), the message printed, and so does a rank
-- that aborts inside malloc; a collective call of
-- speck.remote refused by one rank's own checks is refused on every rank
-- with the same message, and the job goes on. (docs/hardening.md, "MPI
-- jobs end".) The job runs on the space under test; the cuda suite
-- reports it pending (remote views in GPU memory have their own run).
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("MPI jobs end", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local SPACE = os.getenv("SPECK_SPACE") or "openmp"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function mpi_ready()
  if os.getenv("SPECK_SKIP_MPI") == "1" then return false, "SPECK_SKIP_MPI=1" end
  local _, c = sh(SPECK .. " -e 'assert(speck.info().spaces.remote.available)'")
  if c ~= 0 then return false, "speck built without MPI" end
  local _, c2 = sh("command -v mpirun")
  if c2 ~= 0 then return false, "no mpirun" end
  return true
end

-- run 'code' as a script on 2 ranks; output (both ranks), status, seconds
local function job(code)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(code)
  f:close()
  local root = sh("id -u"):match("^0") and "--allow-run-as-root" or ""
  local t0 = os.time()
  -- Open MPI's own allocations are not freed at exit: no leak check in
  -- sanitized runs (as tests/run.sh runs speck.remote's ranks)
  local out, status = sh(("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" " ..
                          "SPECK_SPACE=%s SPECK_THREADS=1 timeout -k 10 60 mpirun %s --oversubscribe -np 2 %s %s")
                         :format(SPACE, root, SPECK, path))
  local dt = os.time() - t0
  os.remove(path)
  return out, status, dt
end

describe("MPI jobs end (2 ranks, " .. SPACE .. ")", function()
  local ready, why = mpi_ready()

  it("an uncaught error on one rank ends the job within 10 s", function()
    if not ready then pending(why) return end
    -- rank 1 fails before the barrier rank 0 waits in
    local out, status, dt = job([[
speck.remote.start()
local r = speck.remote.rank()
if r == 1 then error("boom on rank 1") end
speck.remote.barrier()
print("rank " .. r .. " past the barrier")
]])
    assert.are_not.equal(0, status, out)
    assert.truthy(dt <= 10, ("the job took %d s\n%s"):format(dt, out))
    assert.truthy(out:find("boom on rank 1", 1, true), out)
    assert.truthy(out:find("speck: rank 1: an uncaught error ends the MPI job (MPI_Abort)", 1, true),
                  out)
    assert.falsy(out:find("past the barrier", 1, true), out)
  end)

  it("an error inside a kernel launch on one rank ends the job too", function()
    if not ready then pending(why) return end
    local out, status, dt = job([[
speck.remote.start()
local r = speck.remote.rank()
local x = speck.View("x", "float64", 4)
if r == 0 then speck.parallel_for("far", 4, {x = x}, "x(i - 100000000000) = 1;") end
speck.remote.barrier()
print("rank " .. r .. " past the barrier")
]])
    assert.are_not.equal(0, status, out)
    assert.truthy(dt <= 10, ("the job took %d s\n%s"):format(dt, out))
    assert.truthy(out:find("speck.parallel_for 'far': the body faulted (invalid memory access at 0x", 1,
                           true), out)
    assert.truthy(out:find("speck: rank 0: an uncaught error ends the MPI job (MPI_Abort)", 1, true),
                  out)
    assert.falsy(out:find("past the barrier", 1, true), out)
  end)

  it("a rank that aborts inside malloc (a corrupted heap) ends the job within 10 s", function()
    if not ready then pending(why) return end
    -- rank 1's body writes past the end of x's block (no bounds checks),
    -- over the heap's header of the next one: glibc's checks in free()
    -- abort there, with the heap's lock held, and Open MPI's handler of
    -- SIGABRT prints a backtrace (backends/remote/remote.c's
    -- backtrace_ready: it waited for that lock for ever, and so did the
    -- job). A sanitizer's heap may let the free pass: then the error ends it.
    local out, status, dt = job([[
speck.remote.start()
local r = speck.remote.rank()
if r == 1 then
  local x = speck.View("x", "int64", 300)
  speck.parallel_for("smash", 16, {x = x}, "x(300 + i) = 0;")
  x = nil
  collectgarbage()
  collectgarbage()
  error("rank 1 survived the free")
end
speck.remote.barrier()
print("rank " .. r .. " past the barrier")
]])
    assert.are_not.equal(0, status, out)
    assert.truthy(dt <= 10, ("the job took %d s\n%s"):format(dt, out))
    assert.falsy(out:find("past the barrier", 1, true), out)
  end)

  it("a collective refused on one rank is refused on both with the same message", function()
    if not ready then pending(why) return end
    local out, status = job([[
speck.remote.start()
local r = speck.remote.rank()
local function show(what, ok, e) print(("rank %d %s %s %s"):format(r, what, tostring(ok), tostring(e))) end
show("view", pcall(speck.remote.View, "v", r == 1 and "flaot64" or "float64", 100))
show("opts", pcall(speck.remote.View, "w", "float64", 100, r == 0 and {layoutt = "blocked"} or nil))
show("elem", pcall(speck.remote.allreduce, r == 0 and {1, "x"} or {1, 2}))
show("len", pcall(speck.remote.allreduce, r == 0 and {1, 2} or {1, 2, 3}))
show("op", pcall(speck.remote.allreduce, 1, r == 0 and "max" or "min"))
-- and the job goes on: collectives agree again
local v = speck.remote.View("v", "float64", 100)
print(("rank %d sum %g"):format(r, speck.remote.allreduce(r + 1)))
speck.remote.barrier()
]])
    assert.are.equal(0, status, out)
    local want = {
      view = "false remote.View 'v': unknown dtype 'flaot64' (refused on rank 1; every rank refuses the call)",
      opts = "false remote.View 'w': unknown option 'layoutt' (valid: atomic, layout, space) (refused on rank 0; every rank refuses the call)",
      elem = "false remote.allreduce: element 2 is string (expected a number) (refused on rank 0; every rank refuses the call)",
      len = "false remote.allreduce: the ranks pass different lengths or operations",
      op = "false remote.allreduce: the ranks pass different lengths or operations",
    }
    for _, r in ipairs({0, 1}) do
      for what, text in pairs(want) do
        local line = ("rank %d %s %s\n"):format(r, what, text)
        assert.truthy(out:find(line, 1, true), "wanted: " .. line .. "\n" .. out)
      end
      assert.truthy(out:find(("rank %d sum 3"):format(r), 1, true), out)
    end
  end)

  it("speck.remote.abort_on_error takes a boolean", function()
    local speck = require "speck"
    local ok, e = pcall(speck.remote.abort_on_error, "no")
    assert.is_false(ok)
    assert.truthy(tostring(e):find("boolean expected, got string", 1, true), e)
    speck.remote.abort_on_error(true)
  end)
end)
