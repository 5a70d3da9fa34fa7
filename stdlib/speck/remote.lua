-- speck.remote: global views over the ranks of an MPI job (seed 001,
-- Kokkos Remote Spaces). require starts MPI (unless the host program did)
-- and the Lua state's close finalises it; outside mpirun the script runs
-- as one rank. The C side is speck.core.remote (vm/lremote.c, backends/remote).
--
--   remote.rank()  remote.size()  remote.barrier()  remote.fence()
--   remote.View(label, dtype, dims [, {layout = "blocked" | "partitioned"}])
--   v:local_view()  v:local_range()  remote.allreduce(x [, "sum"|"min"|"max"])
--   remote.abort_on_error(on)  (an uncaught error ends the job; default true)
local core = require "speck.core"
local c = core.remote

c.start()

local M = {
  rank = c.rank, size = c.size, barrier = c.barrier, fence = c.fence,
  allreduce = c.allreduce, View = c.View, info = c.info,
  abort_on_error = c.abort_on_error,
}

-- local_view / local_range as functions too (they are view methods)
function M.local_view(v) return v:local_view() end
function M.local_range(v) return v:local_range() end

return M
