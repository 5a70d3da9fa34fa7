-- table.lua REC LOG2N SN: the Markdown table of scripts/bench/gpu/run
local rec, log2n, sn = arg[1], tonumber(arg[2]), tonumber(arg[3])
local r = {}
for line in io.lines(rec) do
  local k, v = line:match("^RESULT (%S+) (%S+)")
  if k and r[k] == nil then r[k] = tonumber(v) end
end
local n = 1 << log2n
local GB = 1e9
local function bw(bytes, t) return t and bytes / t / GB end
local copy_bw = bw(16 * n, r.cupy_copy)
local rows = {
  {"d2d copy (deep_copy)", ("2^%d f64"):format(log2n), bw(16 * n, r.speck_copy), copy_bw, "GB/s", ">= 0.9"},
  {"axpy", ("2^%d f64"):format(log2n), bw(24 * n, r.axpy), copy_bw, "GB/s vs copy", ">= 0.9"},
  {"dot", ("2^%d f64"):format(log2n), bw(16 * n, r.dot), copy_bw, "GB/s vs copy", ">= 0.9"},
  {"blas.axpy (library)", ("2^%d f64"):format(log2n), bw(24 * n, r.blas_axpy), copy_bw, "GB/s vs copy", ">= 0.97"},
  {"blas.dot (library)", ("2^%d f64"):format(log2n), bw(16 * n, r.blas_dot), copy_bw, "GB/s vs copy", ">= 0.97"},
  {"reduce sum", ("2^%d f64"):format(log2n), r.sum and r.sum * 1e3, r.cupy_sum and r.cupy_sum * 1e3, "ms vs cupy.sum", ">= 0.9x", true},
  {"empty launch (handle)", "1 item", r.empty and r.empty * 1e6, r.raw_empty and r.raw_empty * 1e6, "us vs cuLaunchKernel", ">= 0.83 (<= 1.2x time)", true},
  {"empty parallel_for", "1 item", r.empty_parallel_for and r.empty_parallel_for * 1e6, r.raw_empty and r.raw_empty * 1e6, "us vs cuLaunchKernel", "", true},
  {"3D stencil (MDRange)", ("%d^3 f64"):format(sn), r.stencil and r.stencil * 1e3, r.nvcc_stencil and r.nvcc_stencil * 1e3, "ms vs nvcc", ">= 0.9x", true},
  {"NVRTC compile, new kernel", "", r.nvrtc_compile and r.nvrtc_compile * 1e3, nil, "ms", ""},
  {"load from disk cache", "", r.cache_load and r.cache_load * 1e3, nil, "ms", ""},
}
print("| kernel | size | speck | peer | unit | speed vs peer | target |")
print("| --- | --- | ---: | ---: | --- | ---: | --- |")
for _, w in ipairs(rows) do
  local s, p = w[3], w[4]
  local ratio = ""
  if s and p then
    ratio = ("%.2f"):format(w[7] and p / s or s / p)   -- time: peer/speck
  end
  print(("| %s | %s | %s | %s | %s | %s | %s |"):format(w[1], w[2],
    s and ("%.3g"):format(s) or "-", p and ("%.3g"):format(p) or "-", w[5], ratio, w[6]))
end
