-- task.lua: the speck side of the task benchmark, one measurement per
-- process: "fib N" prints "fib speck <tasks> <seconds>" for fib(N) with one
-- task per call (respawn + when_all + futures); "pool N" prints
-- "pool speck <pairs> <seconds>" for N pool_alloc/pool_free pairs (16 to
-- 256 bytes) from a kernel on every thread. Run with SPECK_JIT=cc.
-- On a GPU space (SPECK_SPACE=cuda) "fib" runs on the GPU's persistent
-- warps; SPECK_BENCH_TASK_MEMORY sets the scheduler's pool (bytes).
local speck = require "speck"
local task = require "speck.task"
local what, n = arg[1], tonumber(arg[2])

if what == "fib" then
  local s = task.Scheduler{queue = arg[3] or "multiple",
                           memory = tonumber(os.getenv("SPECK_BENCH_TASK_MEMORY") or "")}
  local fib = s:functor("fib", {n = "int64", f1 = "future", f2 = "future"}, "int64", [[
    if (self.n < 2) task_return(self.n);
    if (future_is_null(self.f1)) {
      self.f1 = task_spawn(fib, {.n = self.n - 1});
      self.f2 = task_spawn(fib, {.n = self.n - 2});
      task_respawn(when_all(self.f1, self.f2));
      return;
    }
    task_return(future_get(self.f1) + future_get(self.f2));
  ]])
  s:spawn(fib, {n = 20})   -- warm-up: compile, fault the pool in
  s:wait()
  local before = s:stats().tasks
  local t0 = speck.now()
  local f = s:spawn(fib, {n = n})
  s:wait()
  local dt = speck.now() - t0
  local a, b = 0, 1
  for _ = 1, n do a, b = b, a + b end
  assert(f:get() == a, "fib: wrong result")
  print(("fib speck %d %.6f"):format(s:stats().tasks - before, dt))
elseif what == "pool" then
  local pool = task.MemoryPool(64 * 1024 * 1024)
  local body = [[
    int64_t bytes = 16 << (i & 4);
    char *p = (char *)pool_alloc(mp, bytes);
    if (!p) { acc += 1; return; }
    p[0] = (char)i;
    acc += p[0] != (char)i;
    pool_free(mp, p);
  ]]
  speck.parallel_reduce("pool_pairs", 100000, {mp = pool}, body, {dtype = "int64"})
  local t0 = speck.now()
  local bad = speck.parallel_reduce("pool_pairs", n, {mp = pool}, body, {dtype = "int64"})
  local dt = speck.now() - t0
  assert(bad == 0 and pool:stats().in_use == 0, "pool: a pair failed")
  print(("pool speck %d %.6f"):format(n, dt))
elseif what == "chol" then
  -- "chol lap3d 40" / "chol lap2d 1024": the 27-point or 5-point
  -- Laplacian (CSR, both triangles, built by kernels), factored by
  -- speck.sparse.cholesky; prints "chol<name> speck 1 <seconds>"
  local sparse = require "speck.sparse"
  local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")
  local kind, g = arg[2], tonumber(arg[3])
  local A = csr.laplacian(kind, g)
  local t0 = speck.now()
  local F = sparse.cholesky(A)
  local dt = speck.now() - t0
  local info = F:info()
  io.stderr:write(("speck %s: symbolic %.3f s, numeric %.3f s, nnz(L) %d (with supernode padding), %d supernodes\n")
                  :format(kind, info.symbolic_seconds, info.numeric_seconds, info.nnz_l, info.supernodes))
  print(("chol%s speck 1 %.6f"):format(kind, dt))
else
  error("usage: task.lua fib N [queue] | pool N | chol lap3d|lap2d G")
end
