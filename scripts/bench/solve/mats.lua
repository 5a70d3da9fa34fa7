-- mats.lua: the two matrices of scripts/bench/solve, built with speck
-- kernels (scripts/bench/lib/csr.lua), with the same entries in the same
-- order as mats.h gives the C peers:
--   p7 G    the 3D 7-point Poisson matrix of a G^3 grid (6 / -1), b = 1
--   fe N    examples/cg.lua's miniFE matrix (hex8 elements on an N^3 box:
--           27-point interior rows, identity boundary rows, entries to
--           boundary nodes stored as zeros), b its heat source h^3
-- Loaded beside the script:
--   local mats = dofile((arg[0]:match("^(.*)/") or ".") .. "/mats.lua")
--   local A, b = mats.build("p7", 64)
-- mats.build(kind, g, layers) builds a slab of 'layers' planes (grid
-- points, or elements) of the same G x G plane instead: the same stencil
-- offsets as the cube (amgpcg.lua's warm-up; not a peer's matrix)
local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")

local M = {}

function M.build(kind, g, layers)
  local A, b
  if kind == "p7" then
    local nz = layers or g
    A = csr.from(g * g * nz, [[
      const int64_t x = i % n3, y = (i / n3) % n3, z = i / (n3 * n3);
      c = 1 + (x > 0) + (x < n3 - 1) + (y > 0) + (y < n3 - 1) + (z > 0) + (z < nz - 1);
    ]], [[
      const int64_t x = i % n3, y = (i / n3) % n3, z = i / (n3 * n3);
      if (z > 0) { colidx(p) = (int32_t)(i - n3 * n3); values(p++) = -1; }
      if (y > 0) { colidx(p) = (int32_t)(i - n3); values(p++) = -1; }
      if (x > 0) { colidx(p) = (int32_t)(i - 1); values(p++) = -1; }
      colidx(p) = (int32_t)i; values(p++) = 6;
      if (x < n3 - 1) { colidx(p) = (int32_t)(i + 1); values(p++) = -1; }
      if (y < n3 - 1) { colidx(p) = (int32_t)(i + n3); values(p++) = -1; }
      if (z < nz - 1) { colidx(p) = (int32_t)(i + n3 * n3); values(p++) = -1; }
    ]], {n3 = g, nz = nz})
    b = speck.View("b", "float64", A:nrows())
    speck.deep_copy(b, 1.0)
  elseif kind == "fe" then
    local np, h = g + 1, 1.0 / g
    local nzp = (layers or g) + 1
    local pre = [[
      const int64_t ix = i % np, iy = (i / np) % np, iz = i / (np * np);
      const int in = ix > 0 && ix < np - 1 && iy > 0 && iy < np - 1 && iz > 0 && iz < nzp - 1;
    ]]
    A = csr.from(np * np * nzp, pre .. "c = in ? 27 : 1;", pre .. [[
      if (!in) { colidx(p) = (int32_t)i; values(p) = 1.0; }
      else
        for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            const int64_t jx = ix + dx, jy = iy + dy, jz = iz + dz;
            const int nz = (dx != 0) + (dy != 0) + (dz != 0);
            const int jb = jx == 0 || jx == np - 1 || jy == 0 || jy == np - 1 ||
                           jz == 0 || jz == nzp - 1;
            double v = nz == 0 ? 8.0 / 3.0 : nz == 1 ? 0.0 : nz == 2 ? -2.0 / 12.0 : -1.0 / 12.0;
            colidx(p) = (int32_t)(jx + np * (jy + np * jz));
            values(p++) = jb ? 0.0 : v * h;
          }
    ]], {np = np, nzp = nzp, h = h})
    b = speck.View("b", "float64", A:nrows())
    speck.parallel_for("bench.rhs", A:nrows(), {b = b, np = np, nzp = nzp, h = h}, pre .. [[
      b(i) = in ? h * h * h : 0.0; ]])
  else
    error("unknown matrix " .. tostring(kind) .. " (p7 or fe)")
  end
  speck.fence()
  return A, b
end

return M
