-- rma.lua: speck.remote's element get / put from a kernel body and 1 MiB
-- deep_copy through the window, as rma_peer.c measures raw MPI. Rank 0
-- reads and writes elements of the last rank's part of a remote view;
-- one element per iteration of a serial kernel (each a MPI_Get / MPI_Put
-- and MPI_Win_flush in the runtime). Prints "get_us put_us get_gbs
-- put_gbs" on rank 0.
--
--   mpirun -np 2 speck rma.lua [elements]
local speck = require "speck"
local remote = require "speck.remote"
local k = tonumber(arg[1]) or 200000
local np, me = remote.size(), remote.rank()
local MIB = 1 << 20
local n = np * (2 * MIB // 8)
local x = remote.View("x", "float64", n)
local base = (np - 1) * (2 * MIB // 8)      -- the last rank's first element
local h = speck.View("h", "float64", MIB // 8)
local sub = speck.subview(x, {base, base + MIB // 8})
-- compile and tier up before timing
local get = [[ acc += x(base + (i & 1023)); ]]
local put = [[ x(base + (i & 1023)) = (double)i; ]]
for _ = 1, 2 do
  speck.parallel_reduce("rma.get", 1000, {x = x, base = base}, get)
  speck.parallel_for("rma.put", 1000, {x = x, base = base}, put)
  speck.jit.wait()
end
remote.barrier()
if me == 0 then
  local t = speck.Timer()
  speck.parallel_reduce("rma.get", k, {x = x, base = base}, get)
  local tg = t:seconds() / k
  t:reset()
  speck.parallel_for("rma.put", k, {x = x, base = base}, put)
  local tp = t:seconds() / k
  local reps = 200
  t:reset()
  for _ = 1, reps do speck.deep_copy(h, sub) end
  local bg = MIB * reps / t:seconds() / 1e9
  t:reset()
  for _ = 1, reps do speck.deep_copy(sub, h) end
  local bp = MIB * reps / t:seconds() / 1e9
  print(("%.4f %.4f %.2f %.2f"):format(tg * 1e6, tp * 1e6, bg, bp))
end
remote.barrier()
