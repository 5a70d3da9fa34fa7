-- gpu_read.lua: a kernel reading a remote view across NVLink (issue 14's
-- GPU row), two ranks, one GPU each (SPECK_SPACE=cuda, speck.remote over
-- NVSHMEM). Each rank's part holds M doubles; the kernel copies the other
-- rank's part into a local view, element by element through the remote
-- view (the peer pointer of nvshmem_ptr: loads over NVLink); the same
-- kernel over this rank's own part for the local rate. Prints GB/s of
-- remote and local reads on rank 0 (best of REPS after a warm-up).
--
--   mpirun -np 2 speck scripts/bench/remote/gpu_read.lua [MiB per rank]
local speck = require "speck"
local remote = require "speck.remote"
local me, np = remote.rank(), remote.size()
local mib = tonumber(arg and arg[1]) or 1024
local M = mib * 1024 * 1024 // 8
local REPS = tonumber(os.getenv("BENCH_REPS") or 10)
local x = remote.View("x", "float64", np * M)
local y = speck.View("y", "float64", M)
local lb = x:local_range()
speck.parallel_for("fill", M, {l = x:local_view(), b = lb}, [[ l(i) = (double)(b + i); ]])
remote.fence()
local function rate(base)
  local best = math.huge
  for r = 0, REPS do
    speck.fence()
    remote.barrier()
    local t = speck.Timer()
    speck.parallel_for("read", M, {x = x, y = y, b = base}, [[ y(i) = x(b + i); ]])
    speck.fence()
    local s = t:seconds()
    if r > 0 and s < best then best = s end
  end
  -- check: y holds the global indices base .. base + M - 1
  local bad = speck.parallel_reduce("check", M, {y = y, b = base},
    [[ acc += y(i) != (double)(b + i); ]])
  assert(bad == 0, ("gpu_read: %d wrong elements"):format(bad))
  return M * 8 / best / 1e9
end
local other = ((me + 1) % np) * M
local remote_gbs = rate(other)
local local_gbs = rate(lb)
remote_gbs = remote.allreduce(remote_gbs, "min")
local_gbs = remote.allreduce(local_gbs, "min")
if me == 0 then
  print(("gpu_read: %d ranks, %d MiB per rank: remote %.1f GB/s, local %.1f GB/s"):format(
    np, mib, remote_gbs, local_gbs))
end
