-- dist_fail.lua: a rank that dies in the middle of a distributed solve
-- (tests/run.sh runs it on 2 ranks). Rank 1 exits (status 3, without
-- MPI_Finalize) at its 5th sweep of dist.cg (each sweep ends in the
-- iteration's one MPI_Allreduce, where rank 0 then waits); the job must
-- end -- Open MPI's mpirun aborts the other rank and reports the one that
-- died -- and never hang. Rank 0 printing 'survived' would mean the solve went on.
local dist = require "speck.dist"
local sparse = require "speck.sparse"
local me = dist.rank()
local n = 2000
local m = dist.map(n)
local b, e = m:local_range()
local R, C, V = {}, {}, {}
for i = b, e - 1 do
  R[#R + 1], C[#C + 1], V[#V + 1] = i - b, i, 2.0
  if i > 0 then R[#R + 1], C[#C + 1], V[#V + 1] = i - b, i - 1, -1.0 end
  if i < n - 1 then R[#R + 1], C[#C + 1], V[#V + 1] = i - b, i + 1, -1.0 end
end
local A = dist.from_local(n, n, b, sparse.from_coo(e - b, n, R, C, V))
if me == 1 then
  local c = require("speck.core").dist
  local sweep, calls = c.cg_sweep, 0
  c.cg_sweep = function(...)
    calls = calls + 1
    if calls == 5 then io.stderr:write("rank 1: exiting mid-solve\n") os.exit(3, false) end
    return sweep(...)
  end
end
dist.cg(A, dist.vector(A, 1.0), {tol = 1e-12, maxiter = 5000})
print("survived")
