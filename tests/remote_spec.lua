-- remote_spec.lua: speck.remote from outside an MPI job (the cases on
-- every rank are tests/remote/remote_test.lua, run by tests/run.sh under
-- mpirun): speck --info lists the space, bad settings are refused before
-- MPI starts.
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

describe("speck.remote", function()
  it("is listed by speck --info with its MPI library", function()
    local out, code = sh(SPECK .. " --info")
    assert.are.equal(0, code)
    assert.truthy(out:find("remote:\n      available:  true\n      info:       remote: MPI one-sided (Open MPI v", 1, true), out)
  end)

  it("takes a host space by any of its names; GPU memory through NVSHMEM or why not", function()
    local code = [[local r = require "speck.remote"
      local v = r.View("h", "float64", {8}, {space = "openmp"}); print(v:extent(0))
      print(select(2, pcall(function()
        return "gpu " .. r.View("g", "float64", {8}, {space = "cuda"}):extent(0) end)))
      print(select(2, pcall(r.View, "p", "float64", {8}, {space = "cuda_pinned"})))
      print(select(2, pcall(r.View, "b", "float64", {8}, {space = "nowhere"})))]]
    local out = sh(SPECK .. " -e '" .. code .. "'")
    assert.truthy(out:find("^8\n"), out)
    -- a remote view in GPU memory: made where NVSHMEM and a GPU are, else
    -- the reason (NVSHMEM's library, or no GPU for it)
    assert.truthy(out:find("\ngpu 8\n") or
                  out:find("remote.View 'g': a remote view in GPU memory needs NVSHMEM: ", 1, true) or
                  out:find("remote.View 'g': cuda is not available", 1, true), out)
    assert.truthy(out:find("remote.View 'p': space cuda_pinned: a remote view lies in host " ..
                           "memory ('host': MPI windows) or in GPU memory ('cuda': NVSHMEM)", 1, true), out)
    assert.truthy(out:find("'b'", 1, true) and out:find("nowhere", 1, true), out)
  end)

  it("refuses a malformed SPECK_REMOTE_DIRECT at require, before MPI starts", function()
    local out, code = sh("env SPECK_REMOTE_DIRECT=yes " .. SPECK .. " -e 'require \"speck.remote\"'")
    assert.are.equal(1, code)
    assert.truthy(out:find("speck.remote: SPECK_REMOTE_DIRECT=yes: expected 0 or 1", 1, true), out)
  end)

  it("speck.dist refuses a malformed SPECK_DIST_TRANSPORT at require", function()
    local out, code = sh("env SPECK_DIST_TRANSPORT=tcp " .. SPECK .. " -e 'require \"speck.dist\"'")
    assert.are.equal(1, code)
    assert.truthy(out:find("speck.dist: SPECK_DIST_TRANSPORT is 'tcp': 'mpi' or 'onesided' (or unset)", 1, true), out)
  end)
end)
