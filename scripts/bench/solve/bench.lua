-- bench.lua: the speck side of scripts/bench/solve: time to ||b - A x|| <=
-- 1e-8 ||b|| of speck.solve.cg with each point preconditioner (setup +
-- solve, the setup timed apart), on the matrix named by arg[1]:
--   p7 G    the 3D 7-point Poisson matrix of a G^3 grid (6 / -1)
--   fe N    examples/cg.lua's miniFE matrix (hex8 elements on an N^3 box:
--           27-point interior rows, identity boundary rows), b its heat source
-- b = 1 for p7. With arg[3] a folder, the matrix and b are also written
-- there as .npy files (rowptr, colidx, values, b) for the SciPy peer.
-- Prints records (R <kernel> <impl> <seconds> <iterations> <setup seconds>).
local sparse = require "speck.sparse"
local solve = require "speck.solve"
local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")

local kind, g, dir = arg[1], tonumber(arg[2]), arg[3]
local A, b
if kind == "p7" then
  A = csr.from(g * g * g, [[
    const int64_t x = i % n3, y = (i / n3) % n3, z = i / (n3 * n3);
    c = 1 + (x > 0) + (x < n3 - 1) + (y > 0) + (y < n3 - 1) + (z > 0) + (z < n3 - 1);
  ]], [[
    const int64_t x = i % n3, y = (i / n3) % n3, z = i / (n3 * n3);
    if (z > 0) { colidx(p) = (int32_t)(i - n3 * n3); values(p++) = -1; }
    if (y > 0) { colidx(p) = (int32_t)(i - n3); values(p++) = -1; }
    if (x > 0) { colidx(p) = (int32_t)(i - 1); values(p++) = -1; }
    colidx(p) = (int32_t)i; values(p++) = 6;
    if (x < n3 - 1) { colidx(p) = (int32_t)(i + 1); values(p++) = -1; }
    if (y < n3 - 1) { colidx(p) = (int32_t)(i + n3); values(p++) = -1; }
    if (z < n3 - 1) { colidx(p) = (int32_t)(i + n3 * n3); values(p++) = -1; }
  ]], {n3 = g})
  b = speck.View("b", "float64", A:nrows())
  speck.deep_copy(b, 1.0)
elseif kind == "fe" then
  local np, h = g + 1, 1.0 / g
  local pre = [[
    const int64_t ix = i % np, iy = (i / np) % np, iz = i / (np * np);
    const int in = ix > 0 && ix < np - 1 && iy > 0 && iy < np - 1 && iz > 0 && iz < np - 1;
  ]]
  A = csr.from(np * np * np, pre .. "c = in ? 27 : 1;", pre .. [[
    if (!in) { colidx(p) = (int32_t)i; values(p) = 1.0; }
    else
      for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          const int64_t jx = ix + dx, jy = iy + dy, jz = iz + dz;
          const int nz = (dx != 0) + (dy != 0) + (dz != 0);
          const int jb = jx == 0 || jx == np - 1 || jy == 0 || jy == np - 1 ||
                         jz == 0 || jz == np - 1;
          double v = nz == 0 ? 8.0 / 3.0 : nz == 1 ? 0.0 : nz == 2 ? -2.0 / 12.0 : -1.0 / 12.0;
          colidx(p) = (int32_t)(jx + np * (jy + np * jz));
          values(p++) = jb ? 0.0 : v * h;
        }
  ]], {np = np, h = h})
  b = speck.View("b", "float64", A:nrows())
  speck.parallel_for("bench.rhs", A:nrows(), {b = b, np = np, h = h}, pre .. [[
    b(i) = in ? h * h * h : 0.0; ]])
else
  error("usage: bench.lua p7|fe SIZE [DIR]")
end
speck.fence()
if dir then
  for _, p in ipairs({{"rowptr", A.rowptr}, {"colidx", A.colidx}, {"values", A.values}, {"b", b}}) do
    speck.io.save_npy(dir .. "/" .. kind .. "_" .. p[1] .. ".npy", p[2])
  end
end

local pcs = {
  {"cg", function() return nil end},
  {"jacobi-pcg", function() return solve.jacobi(A) end},
  {"gs-pcg", function() return solve.gauss_seidel(A, {symmetric = true, multicolor = true}) end},
}
local key = kind .. g
for _, pc in ipairs(pcs) do
  -- a warm-up on the same kernels (compiles and tiers up), then the timed run
  solve.cg(A, b, {tol = 0.0, maxiter = 20, precond = pc[2]()})
  speck.fence()
  speck.jit.wait()
  local t = speck.Timer()
  local P = pc[2]()
  speck.fence()
  local setup = t:seconds()
  local _, info = solve.cg(A, b, {tol = 1e-8, maxiter = 5000, precond = P})
  speck.fence()
  local total = t:seconds()
  assert(info.reason == "converged", pc[1] .. ": " .. info.reason)
  print(("R\t%s-%s\tspeck\t%.6e\t%d\t%.6e"):format(pc[1], key, total, info.iters, setup))
end
