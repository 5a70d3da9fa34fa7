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
local function build(kind, g)
  local three = kind == "lap3d"
  local nn = three and g * g * g or g * g
  local rowptr = speck.View("rowptr", "int64", nn + 1)
  local prelude = ("SPECK_FN int64_t row(int64_t i, int64_t g, int32_t *ci, double *vx) {\n" ..
    "  int64_t cnt = 0;\n" .. (three and [[
    int64_t a = i / (g * g), b = (i / g) % g, c = i % g;
    for (int da = -1; da <= 1; da++) for (int db = -1; db <= 1; db++) for (int dc = -1; dc <= 1; dc++) {
      int64_t x = a + da, y = b + db, z = c + dc;
      if (x < 0 || x >= g || y < 0 || y >= g || z < 0 || z >= g) continue;
      if (ci) { ci[cnt] = (int32_t)((x * g + y) * g + z); vx[cnt] = (da == 0 && db == 0 && dc == 0) ? 26.0 : -1.0; }
      cnt++;
    }
  ]] or [[
    int64_t a = i / g, b = i % g;
    if (a > 0) { if (ci) { ci[cnt] = (int32_t)(i - g); vx[cnt] = -1.0; } cnt++; }
    if (b > 0) { if (ci) { ci[cnt] = (int32_t)(i - 1); vx[cnt] = -1.0; } cnt++; }
    if (ci) { ci[cnt] = (int32_t)i; vx[cnt] = 4.0; } cnt++;
    if (b + 1 < g) { if (ci) { ci[cnt] = (int32_t)(i + 1); vx[cnt] = -1.0; } cnt++; }
    if (a + 1 < g) { if (ci) { ci[cnt] = (int32_t)(i + g); vx[cnt] = -1.0; } cnt++; }
  ]]) .. "  return cnt;\n}\n")
  speck.parallel_scan("rows", nn + 1, {rowptr = rowptr, g = g, nn = nn}, [[
    int64_t c = i < nn ? row(i, g, 0, 0) : 0;
    if (final) rowptr(i) = acc;
    acc += c;
  ]], {dtype = "int64", prelude = prelude})
  local nnz = speck.create_mirror_view_and_copy("host", rowptr)(nn)
  local colidx = speck.View("colidx", "int32", nnz)
  local values = speck.View("values", "float64", nnz)
  speck.parallel_for("fill", nn, {rowptr = rowptr, colidx = colidx, values = values, g = g}, [[
    row(i, g, &colidx(rowptr(i)), &values(rowptr(i)));
  ]], {prelude = prelude})
  return sparse.CrsMatrix{nrows = nn, ncols = nn, rowptr = rowptr, colidx = colidx, values = values}
end

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
