-- vdict_windows_spec.lua: the value codes' table (kernels/sparse/vdict.c)
-- is sampled from windows spread over the whole values array, not only
-- from its first entries: a matrix whose first rows are not like the rest
-- (the identity rows of a boundary numbered first, as in the miniFE matrix
-- of examples/cg.lua and scripts/bench/solve) gets its codes, and the
-- coded SpMV gives the plain kernel's results bit for bit. Views live in
-- the default space, where the coded kernels must be the ones launched
-- (speck.jit.stats()).
local speck = require "speck"
local sparse = require "speck.sparse"

local SPACE = speck.info().default_space
local HOST = SPACE == "serial" or SPACE == "openmp" or SPACE == "host"
local CODED = HOST and "sparse.spmv16v" or "sparse.spmv16v_team"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local F = dofile(HERE .. "/csr_fixtures.lua")
local plain_copy, vec, same_bits = F.plain_copy, F.vec, F.same_bits
-- launches of 'label' or of the diagonal form (dia.c), which a matrix
-- with value codes takes where it is a stencil's (a band here)
local function launches(label) return F.launches(label, table.unpack(F.DIA)) end

-- n rows: the first 'nb' identity rows (value 1), then rows of a 5-entry
-- stencil (4 on the diagonal, -1 at +-1 and +-w), in COO
local function boundary_first(n, nb, w)
  local rows, cols, vals = {}, {}, {}
  for i = 0, n - 1 do
    if i < nb then
      rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = i, i, 1.0
    else
      for _, d in ipairs({-w, -1, 0, 1, w}) do
        local j = i + d
        if j >= 0 and j < n then
          rows[#rows + 1], cols[#cols + 1] = i, j
          vals[#vals + 1] = d == 0 and 4.0 or -1.0
        end
      end
    end
  end
  return sparse.from_coo(n, n, rows, cols, vals)
end

describe("value codes sampled over the whole matrix on " .. SPACE, function()
  it("identity rows first (5000 entries of 1), a stencil after: coded, bit for bit", function()
    local A = boundary_first(9000, 5000, 40)
    assert.is_true(A:nnz() > 20000)
    local x = vec(A:nrows(), "float64", 3)
    local before = launches(CODED)
    local y
    -- (the compact index is built at the third SpMV, the codes three later)
    for _ = 1, 10 do
      y = vec(A:nrows(), "float64", 5)
      sparse.spmv("N", -0.5, A, x, 1.0, y)
    end
    assert.is_true(launches(CODED) >= before + 4)
    local yr = vec(A:nrows(), "float64", 5)
    sparse.spmv("N", -0.5, plain_copy(A), x, 1.0, yr)
    same_bits(y, yr)
  end)

  it("too many distinct values over the windows: plain values, the same results", function()
    -- 1 on the first 5000 rows, then a value per row after: more than 32
    local n = 6000
    local rows, cols, vals = {}, {}, {}
    for i = 0, n - 1 do
      rows[#rows + 1], cols[#cols + 1] = i, i
      vals[#vals + 1] = i < 5000 and 1.0 or 2.0 + i
    end
    local A = sparse.from_coo(n, n, rows, cols, vals)
    local x = vec(n, "float64", 7)
    local before = launches(CODED)
    local y
    for _ = 1, 10 do
      y = vec(n, "float64", 2)
      sparse.spmv("N", 1.0, A, x, 0.0, y)
    end
    assert.equal(before, launches(CODED))
    local yr = vec(n, "float64", 2)
    sparse.spmv("N", 1.0, plain_copy(A), x, 0.0, yr)
    same_bits(y, yr)
  end)
end)
