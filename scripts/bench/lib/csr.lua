-- csr.lua: the matrices the speck sides of scripts/bench/sparse,
-- scripts/bench/sptrsv, the task and the GPU solver benchmarks build with speck kernels (the same entries as the
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

-- an n x n CrsMatrix from 'row_text', the body of
--   int64_t row(int64_t i, int64_t g, int32_t *ci, double *vx)
-- which counts row i's entries in cnt (declared before the text, returned
-- after it) and writes them through ci and vx when those are given; g is
-- the grid's side. Rows counted by a scan, then filled.
function M.from_row(n, g, row_text)
  local prelude = "SPECK_FN int64_t row(int64_t i, int64_t g, int32_t *ci, double *vx) {\n" ..
                  "  int64_t cnt = 0;\n" .. row_text .. "  return cnt;\n}\n"
  local rowptr = speck.View("rowptr", "int64", n + 1)
  speck.parallel_scan("rows", n + 1, {rowptr = rowptr, g = g, nn = n}, [[
    int64_t c = i < nn ? row(i, g, 0, 0) : 0;
    if (final) rowptr(i) = acc;
    acc += c;
  ]], {dtype = "int64", prelude = prelude})
  local nnz = speck.create_mirror_view_and_copy("host", rowptr)(n)
  local colidx = speck.View("colidx", "int32", nnz)
  local values = speck.View("values", "float64", nnz)
  speck.parallel_for("fill", n, {rowptr = rowptr, colidx = colidx, values = values, g = g}, [[
    row(i, g, &colidx(rowptr(i)), &values(rowptr(i)));
  ]], {prelude = prelude})
  return sparse.CrsMatrix{nrows = n, ncols = n, rowptr = rowptr, colidx = colidx, values = values}
end

-- the Laplacians of the task and Cholesky benchmarks: "lap3d", the 27-point
-- stencil of a g^3 grid (26 on the diagonal), else "lap2d", the 5-point one
-- of a g x g grid (4 on the diagonal); -1 off the diagonal
function M.laplacian(kind, g)
  if kind == "lap3d" then
    return M.from_row(g * g * g, g, [[
  int64_t a = i / (g * g), b = (i / g) % g, c = i % g;
  for (int da = -1; da <= 1; da++) for (int db = -1; db <= 1; db++) for (int dc = -1; dc <= 1; dc++) {
    int64_t x = a + da, y = b + db, z = c + dc;
    if (x < 0 || x >= g || y < 0 || y >= g || z < 0 || z >= g) continue;
    if (ci) { ci[cnt] = (int32_t)((x * g + y) * g + z); vx[cnt] = (da == 0 && db == 0 && dc == 0) ? 26.0 : -1.0; }
    cnt++;
  }
]])
  end
  return M.from_row(g * g, g, [[
  int64_t a = i / g, b = i % g;
  if (a > 0) { if (ci) { ci[cnt] = (int32_t)(i - g); vx[cnt] = -1.0; } cnt++; }
  if (b > 0) { if (ci) { ci[cnt] = (int32_t)(i - 1); vx[cnt] = -1.0; } cnt++; }
  if (ci) { ci[cnt] = (int32_t)i; vx[cnt] = 4.0; } cnt++;
  if (b + 1 < g) { if (ci) { ci[cnt] = (int32_t)(i + 1); vx[cnt] = -1.0; } cnt++; }
  if (a + 1 < g) { if (ci) { ci[cnt] = (int32_t)(i + g); vx[cnt] = -1.0; } cnt++; }
]])
end

return M
