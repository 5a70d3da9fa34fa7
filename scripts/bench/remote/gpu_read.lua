-- gpu_read.lua: a kernel reading a remote view across NVLink (issue 14's
-- GPU row, issue 31's "remote read across 2 H200s"), two ranks, one GPU
-- each (SPECK_SPACE=cuda, speck.remote over NVSHMEM). Each rank's part
-- holds M doubles; the kernel copies the other rank's part into a local
-- view, element by element through the remote view (the peer pointer of
-- nvshmem_ptr: loads over NVLink); the same kernel over this rank's own
-- part for the local rate. Two remote rates, as p2p_peer.py measures
-- them:
--   one way     rank 0 reads rank 1's part while rank 1 waits (the links
--               carry one direction's data)
--   both ways   every rank reads the next one's part at the same time
--               (each link carries data both ways: about 10 % less a GPU
--               on an H200 pair, for the raw peer load as for speck)
-- Prints GB/s on rank 0 (best of REPS after a warm-up; both ways: the
-- slowest rank's).
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
-- GB/s of the copy from global index 'base' on the ranks that 'run'
-- (math.huge on the others, so that a "min" over the ranks is theirs)
local function rate(base, run)
  local best = math.huge
  for r = 0, REPS do
    speck.fence()
    remote.barrier()
    local t = speck.Timer()
    if run then speck.parallel_for("read", M, {x = x, y = y, b = base}, [[ y(i) = x(b + i); ]]) end
    speck.fence()
    local s = t:seconds()
    if r > 0 and s < best then best = s end
  end
  if not run then return math.huge end
  -- check: y holds the global indices base .. base + M - 1
  local bad = speck.parallel_reduce("check", M, {y = y, b = base},
    [[ acc += y(i) != (double)(b + i); ]])
  assert(bad == 0, ("gpu_read: %d wrong elements"):format(bad))
  return M * 8 / best / 1e9
end
local other = ((me + 1) % np) * M
local one_way = remote.allreduce(rate(other, me == 0), "min")
local both_ways = remote.allreduce(rate(other, true), "min")
local local_gbs = remote.allreduce(rate(lb, true), "min")
if me == 0 then
  print(("gpu_read: %d ranks, %d MiB per rank: remote %.1f GB/s, both ways %.1f GB/s, local %.1f GB/s"):format(
    np, mib, one_way, both_ways, local_gbs))
end
