-- lu_gpu.lua: one sparse LU of the GPU-LU benchmark (lu-gpu-run): a
-- nonsymmetric convection-diffusion matrix (7-point upwind on a G^3 grid,
-- "cd3", or 5-point on G^2, "cd2"; CSR built by kernels in the back end's
-- space) factored by speck.solve.lu and solved once (F:solve(b), with
-- iterative refinement to the backward error eps).
--   speck lu_gpu.lua cd3|cd2 G LABEL [columns|levels]
-- columns: the host's left-looking LU (one thread); levels: the level-set
-- schedule on the active back end (a device back end's default: the
-- numeric phase, the factor and the solve on the device). Prints
-- "lu<kind><G> LABEL 1 <factor + solve seconds>" and, on stderr, the
-- phases (symbolic on the host: matching, ordering, supernodes; numeric;
-- solve), the factor's size and the backward error.
local speck = require "speck"
local solve = require "speck.solve"
local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")
local kind, g, label, sched = arg[1], tonumber(arg[2]), arg[3] or "speck", arg[4]

local function build(kind, g)
  local three = kind == "cd3"
  local nn = three and g * g * g or g * g
  return csr.from_row(nn, g, three and [[
    int64_t a = i / (g * g), b = (i / g) % g, c = i % g;
    const int64_t d[7][3] = {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}};
    const double w[7] = {-1.3, -1.2, -1.6, 6.5, -0.7, -0.9, -0.8};
    for (int k = 0; k < 7; k++) {
      int64_t x = a + d[k][0], y = b + d[k][1], z = c + d[k][2];
      if (x < 0 || x >= g || y < 0 || y >= g || z < 0 || z >= g) continue;
      if (ci) { ci[cnt] = (int32_t)((x * g + y) * g + z); vx[cnt] = w[k]; }
      cnt++;
    }
  ]] or [[
    int64_t a = i / g, b = i % g;
    if (a > 0) { if (ci) { ci[cnt] = (int32_t)(i - g); vx[cnt] = -1.2; } cnt++; }
    if (b > 0) { if (ci) { ci[cnt] = (int32_t)(i - 1); vx[cnt] = -1.6; } cnt++; }
    if (ci) { ci[cnt] = (int32_t)i; vx[cnt] = 4.9; } cnt++;
    if (b + 1 < g) { if (ci) { ci[cnt] = (int32_t)(i + 1); vx[cnt] = -0.7; } cnt++; }
    if (a + 1 < g) { if (ci) { ci[cnt] = (int32_t)(i + g); vx[cnt] = -0.9; } cnt++; }
  ]])
end

local opts = sched and {schedule = sched} or nil
-- a small one first: the kernels compiled (and cached) before the clock
local W = build(kind, 6)
solve.lu(W, opts):solve(speck.View("w", "float64", W:nrows()))
local A = build(kind, g)
local nn = A:nrows()
local b = speck.View("b", "float64", nn)
speck.parallel_for("fill_b", nn, {b = b}, [[ b(i) = 1.0 + (i % 7) / 7.0; ]])
speck.fence()
local t0 = speck.now()
local F = solve.lu(A, opts)
speck.fence()
local tf = speck.now() - t0
local x, si = F:solve(b)
speck.fence()
local dt = speck.now() - t0
local info = F:info()
io.stderr:write(("%s %s-%d: %s schedule in '%s', %s levels, %s supernodes, nnz(L) %d, nnz(U) %d; " ..
                 "factor %.3f s (symbolic %s, numeric %s), solve %.4f s (%d refinement steps), berr %.1e\n")
                :format(label, kind, g, info.schedule, info.space, tostring(info.levels),
                        tostring(info.supernodes), info.nnz_L, info.nnz_U, tf,
                        info.symbolic_seconds and ("%.3f s"):format(info.symbolic_seconds) or "-",
                        info.numeric_seconds and ("%.3f s"):format(info.numeric_seconds) or "-",
                        dt - tf, si.steps, si.berr))
print(("lu%s-%d %s 1 %.6f"):format(kind, g, label, dt))
