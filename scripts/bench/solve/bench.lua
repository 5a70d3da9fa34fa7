-- bench.lua: the speck side of scripts/bench/solve: time to ||b - A x|| <=
-- 1e-8 ||b|| of speck.solve.cg with each point preconditioner (setup +
-- solve, the setup timed apart), on the matrix named by arg[1]:
--   p7 G    the 3D 7-point Poisson matrix of a G^3 grid (6 / -1)
--   fe N    examples/cg.lua's miniFE matrix (hex8 elements on an N^3 box:
--           27-point interior rows, identity boundary rows), b its heat source
-- b = 1 for p7. With arg[3] a folder, the matrix and b are also written
-- there as .npy files (rowptr, colidx, values, b) for the SciPy peer.
-- Prints records (R <kernel> <impl> <seconds> <iterations> <setup seconds>).
local solve = require "speck.solve"
local mats = dofile((arg[0]:match("^(.*)/") or ".") .. "/mats.lua")

local kind, g, dir = arg[1], tonumber(arg[2]), arg[3]
if kind ~= "p7" and kind ~= "fe" then error("usage: bench.lua p7|fe SIZE [DIR]") end
local A, b = mats.build(kind, g)
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
