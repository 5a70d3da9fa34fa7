-- csr.lua: the matrices the speck sides of scripts/bench/sparse and
-- scripts/bench/sptrsv build with speck kernels (the same entries as the
-- peers' generators, so checksums compare). Loaded beside the script:
--   local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")
local sparse = require "speck.sparse"

local M = {}

-- an n x n sparse.CrsMatrix: 'count_body' sets c, the entries of row i;
-- 'fill_body' writes them at colidx(p), values(p) from p = rowptr(i) on;
-- 'caps' are the bodies' further captures
function M.from(n, count_body, fill_body, caps)
  local rowptr = speck.View("rowptr", "int64", n + 1)
  caps = caps or {}
  caps.rowptr, caps.n = rowptr, n
  local nnz = speck.parallel_scan("bench.count", n + 1, caps,
    "int64_t c = 0; if (i < n) { " .. count_body .. " } if (final) rowptr(i) = acc; acc += c;",
    {dtype = "int64"})
  nnz = math.tointeger(nnz)
  local colidx = speck.View("colidx", "int32", nnz, {init = false})
  local values = speck.View("values", "float64", nnz, {init = false})
  caps.colidx, caps.values = colidx, values
  speck.parallel_for("bench.fill", n, caps, "int64_t p = rowptr(i);\n" .. fill_body)
  return sparse.CrsMatrix{nrows = n, ncols = n, rowptr = rowptr, colidx = colidx,
                          values = values}
end

-- the 2D 5-point Laplacian of a g x g grid (row gi*g + gj; 4 on the
-- diagonal, -1 off it)
function M.m5(g)
  return M.from(g * g, [[
    const int64_t gi = i / g, gj = i % g;
    c = 1 + (gi > 0) + (gi < g - 1) + (gj > 0) + (gj < g - 1);]], [[
    const int64_t gi = i / g, gj = i % g;
    if (gi > 0) { colidx(p) = (int32_t)(i - g); values(p++) = -1.0; }
    if (gj > 0) { colidx(p) = (int32_t)(i - 1); values(p++) = -1.0; }
    colidx(p) = (int32_t)i; values(p++) = 4.0;
    if (gj < g - 1) { colidx(p) = (int32_t)(i + 1); values(p++) = -1.0; }
    if (gi < g - 1) { colidx(p) = (int32_t)(i + g); values(p++) = -1.0; }]], {g = g})
end

-- the 3D 27-point stencil of a g^3 grid (row x + g*(y + g*z); 'diag', a C
-- literal such as "26.0", on the diagonal, -1 elsewhere)
function M.m27(g, diag)
  return M.from(g * g * g, [[
    const int64_t x = i % g, y = (i / g) % g, z = i / (g * g);
    c = (1 + (x > 0) + (x < g - 1)) * (1 + (y > 0) + (y < g - 1)) * (1 + (z > 0) + (z < g - 1));]], ([[
    const int64_t x = i % g, y = (i / g) % g, z = i / (g * g);
    for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) {
      const int64_t jx = x + dx, jy = y + dy, jz = z + dz;
      if (jx < 0 || jx >= g || jy < 0 || jy >= g || jz < 0 || jz >= g) continue;
      colidx(p) = (int32_t)(jx + g * (jy + g * jz));
      values(p++) = dx == 0 && dy == 0 && dz == 0 ? DIAG : -1.0;
    }]]):gsub("DIAG", diag), {g = g})
end

return M
