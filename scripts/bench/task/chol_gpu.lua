-- chol_gpu.lua: one sparse Cholesky of the GPU-Cholesky benchmark
-- (chol-gpu-run): the 27-point G^3 or 5-point G^2 Laplacian (CSR, both
-- triangles, built by kernels in the back end's space, as task.lua's),
-- factored by speck.sparse.cholesky -- on a device back end the level-set
-- schedule with the factor on the device, on a host one the task DAG (or,
-- with "levels", the level-set schedule there) -- then one F:solve(b).
--   speck chol_gpu.lua lap3d|lap2d G LABEL [levels]
-- prints "chol<name> LABEL 1 <seconds>" (ordering + symbolic + numeric,
-- as CHOLMOD's analyze + factorize) and, on stderr, the phases, the
-- factor's size, the solve's time and its relative residual, and the
-- level-set kernels' launches and run seconds (speck.jit.stats) in the
-- factorization and in the solve.
local speck = require "speck"
local sparse = require "speck.sparse"
local kind, g, label, sched = arg[1], tonumber(arg[2]), arg[3] or "speck", arg[4]
-- the Laplacian of the kind in the back end's space
local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")
local build = csr.laplacian

-- a small one first: the kernels compiled (and cached) before the clock
local opts = sched == "levels" and {schedule = "levels"} or nil
local gm = math.tointeger(tonumber(os.getenv("BENCH_GEMM_MIN") or ""))
if gm and (sched == "levels" or speck.View("p", "float64", 0):space() ~= "host") then
  opts = opts or {}
  opts.gemm_min = gm   -- the level-set schedule's gemm threshold
end
local W = build("lap3d", 8)
sparse.cholesky(W, opts):solve(speck.View("w", "float64", W:nrows()))
local A = build(kind, g)
local nn = A:nrows()
-- the level-set kernels' launches and run time so far (speck.jit.stats)
local function kstats()
  local t = {}
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    local name = k.label:match("^task%.chol_ls_(.*)")
    if name then
      local e = t[name] or {n = 0, s = 0}
      e.n, e.s = e.n + k.launches, e.s + (k.run_seconds or 0)
      t[name] = e
    end
  end
  return t
end
local function kdiff(a, b)
  local out = {}
  for name, e in pairs(b) do
    local o = a[name] or {n = 0, s = 0}
    if e.n > o.n then out[#out + 1] = ("%s %d/%.3f s"):format(name, e.n - o.n, e.s - o.s) end
  end
  table.sort(out)
  return table.concat(out, ", ")
end
speck.fence()
local k0 = kstats()
local t0 = speck.now()
local F = sparse.cholesky(A, opts)
speck.fence()
local dt = speck.now() - t0
local k1 = kstats()
local info = F:info()
local b = speck.View("b", "float64", nn)
speck.parallel_for("fill_b", nn, {b = b}, [[ b(i) = 1.0 + (i * 37 % 11) - 0.5 * (i % 3); ]])
speck.fence()
local t1 = speck.now()
local x = F:solve(b)
speck.fence()
local ds = speck.now() - t1
local k2 = kstats()
local r = speck.View("r", "float64", nn)
speck.deep_copy(r, b)
sparse.spmv("N", -1.0, A, x, 1.0, r)
local rr = speck.parallel_reduce("rr", nn, {r = r}, [[ acc += r(i) * r(i); ]])
local bb = speck.parallel_reduce("bb", nn, {b = b}, [[ acc += b(i) * b(i); ]])
io.stderr:write(("%s %s: %s schedule (%d levels) in '%s', symbolic %.3f s, numeric %.3f s, " ..
                 "nnz(L) %d, %d supernodes; solve %.4f s, residual %.1e\n")
                :format(label, kind, info.schedule, info.levels, info.space, info.symbolic_seconds,
                        info.numeric_seconds, info.nnz_l, info.supernodes, ds, math.sqrt(rr / bb)))
print(("chol%s%d %s 1 %.6f"):format(kind, g, label, dt))
if next(k1) then
  io.stderr:write(("%s-kernels %s: factor: %s; solve: %s\n"):format(label, kind, kdiff(k0, k1), kdiff(k1, k2)))
end
