-- gpu.lua: batched gemm on the GPU (SPECK_SPACE=cuda): speck's kernels at
-- each level against cuBLAS' strided batched gemm through the same call
-- (impl = "vendor"), 163,840 matrices of N x N, float64, layouts left (the
-- GPU default: the batch index fastest, coalesced) and right; modes
-- serial (a thread per matrix), rows (a thread per row of C) and
-- teamvector. Prints
-- "R\t<impl>\t<n>\t<seconds per call>\t<checksum>" lines.
local speck = require "speck"
local batched = require "speck.batched"
local nb = tonumber(arg[1]) or 163840
local INNER = 20
for _, n in ipairs({3, 5, 9, 12, 15, 16}) do
  for _, lay in ipairs({"left", "right"}) do
    local A = speck.View("A", "float64", {nb, n, n}, {layout = lay})
    local B = speck.View("B", "float64", {nb, n, n}, {layout = lay})
    local C = speck.View("C", "float64", {nb, n, n}, {layout = lay})
    speck.parallel_for("init", speck.MDRangePolicy({0, 0, 0}, {nb, n, n}), {A = A, B = B},
      "A(i, j, k) = 0.001 * ((i + 3 * j + 7 * k) % 11); B(i, j, k) = 0.002 * ((2 * i + j + k) % 13);")
    for _, v in ipairs({{"serial", "native"}, {"rows", "native"}, {"teamvector", "native"}, {"serial", "vendor"}}) do
      local ok, err = pcall(function()
        batched.gemm("N", "N", 1.0, A, B, 0.0, C, {mode = v[1], impl = v[2]})
        speck.fence()
        local t = speck.now()
        for _ = 1, INNER do batched.gemm("N", "N", 1.0, A, B, 0.0, C, {mode = v[1], impl = v[2]}) end
        speck.fence()
        t = (speck.now() - t) / INNER
        local s = speck.parallel_reduce("sum", speck.MDRangePolicy({0, 0, 0}, {nb, n, n}), {C = C},
                                        "acc += C(i, j, k);")
        print(("R\t%s-%s-%s\t%d\t%.6f\t%.6e\t%.1f GFLOP/s"):format(v[2], v[1], lay, n, t, s,
              2 * n ^ 3 * nb / t * 1e-9))
      end)
      if not ok then print("E", v[1], v[2], lay, n, err) end
    end
  end
end
