-- csr_fixtures.lua: what spmv16_spec.lua and vdict_spec.lua share (loaded
-- with dofile): the launches of a kernel label (the diagonal form's,
-- F.DIA), a matrix's plain copy
-- (its arrays exposed, so the library keeps no compact index or value
-- codes for them: plain CSR), a deterministic vector, a bit-for-bit
-- comparison of two views (NaN equal to NaN), and library bodies compiled
-- by NVRTC for the GPU target.
--   local F = dofile(HERE .. "/csr_fixtures.lua")
local speck = require "speck"

local F = {}

-- launches of kernels labelled with any of the given labels
-- the diagonal form's kernels (kernels/sparse/dia.c: a stencil's matrix
-- with value codes takes them in place of the coded CSR kernels): SpMV
-- on the host and on a device, CG's SpMV with its dots likewise
F.DIA = {"sparse.spmv_dia", "sparse.spmv_dia_row", "sparse.cg_dia_dots",
         "sparse.cg_dia_dots_row"}

function F.launches(...)
  local want, s = {}, 0
  for _, l in ipairs({...}) do want[l] = true end
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if want[k.label] then s = s + (k.launches or 0) end
  end
  return s
end

-- a copy of A whose arrays are exposed (plain CSR from then on)
function F.plain_copy(A)
  local B = A:to(A:space())
  B.rowptr:data()
  B.colidx:data()
  B.values:data()
  return B
end

function F.vec(n, dtype, seed)
  local v = speck.View("v", dtype or "float64", n, {init = false})
  speck.parallel_for("csr.vec", n, {v = v, s = seed or 1},
                     "v(i) = 0.5 + (double)((i * 37 + s * 11) % 101) / 64.0;")
  return v
end

function F.same_bits(a, b)
  if a:extent(0) ~= b:extent(0) then
    error(("extents %d and %d"):format(a:extent(0), b:extent(0)), 2)
  end
  for i = 0, a:extent(0) - 1 do
    local x, y = a[i], b[i]
    if x ~= y and not (x ~= x and y ~= y) then
      error(("element %d: %.17g against %.17g"):format(i, x, y), 2)
    end
  end
end

-- a and b the same to rounding: max |a - b| <= rel * max |b| (a device's
-- diagonal form sums a row in column order, as the host does; its CSR
-- kernels over vector lanes: the same sums to rounding, not bit for bit)
function F.close(a, b, rel)
  if a:extent(0) ~= b:extent(0) then
    error(("extents %d and %d"):format(a:extent(0), b:extent(0)), 2)
  end
  local d, m = 0, 0
  for i = 0, a:extent(0) - 1 do
    local x, y = a[i], b[i]
    if x ~= y and not (x ~= x and y ~= y) then d = math.max(d, math.abs(x - y)) end
    m = math.max(m, math.abs(y))
  end
  if not (d <= rel * m) then
    error(("max difference %.17g over max %.17g (relative %g allowed)"):format(d, m, rel), 2)
  end
end

-- bit for bit where 'exact' (the host, or a device's CSR kernels against
-- each other), else the same to rounding (a device's diagonal form
-- against its CSR kernels)
function F.compare(exact, dtype)
  if exact then return F.same_bits end
  local rel = dtype == "float32" and 1e-6 or 1e-14
  return function(a, b) F.close(a, b, rel) end
end

-- the matrix of stencil 'pts' (offsets {dx, dy, dz}: F.points) on a
-- gx x gy x gz box (rows x fastest), entries only inside the box: the
-- centre 'diag', the others -1 - (|dx| + |dy| + |dz|) / 8 (a few distinct
-- values; symmetric, positive definite for diagonals past the row sums);
-- o.dtype (default float64), o.vary: the rows z = 0 scaled by 1.5 (some
-- diagonals of two values); o.value(x, y, z, a, b, c, v): the entry of row
-- (x, y, z), column (a, b, c) in place of v, nil to leave it out
function F.box(gx, gy, gz, pts, diag, o)
  o = o or {}
  local rows, cols, vals = {}, {}, {}
  local function id(x, y, z) return (z * gy + y) * gx + x end
  for z = 0, gz - 1 do
    for y = 0, gy - 1 do
      for x = 0, gx - 1 do
        for _, d3 in ipairs(pts) do
          local a, b, c = x + d3[1], y + d3[2], z + d3[3]
          if a >= 0 and a < gx and b >= 0 and b < gy and c >= 0 and c < gz then
            local d = math.abs(d3[1]) + math.abs(d3[2]) + math.abs(d3[3])
            local v = d == 0 and diag or -1 - d / 8
            v = (o.vary and z == 0) and 1.5 * v or v
            if o.value then v = o.value(x, y, z, a, b, c, v) end
            if v then
              rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = id(x, y, z), id(a, b, c), v
            end
          end
        end
      end
    end
  end
  local n = gx * gy * gz
  return require("speck.sparse").from_coo(n, n, rows, cols, vals,
                                          {dtype = o.dtype or "float64"})
end

-- a stencil's offsets: the 5- (dim 2) or 7-point (dim 3) one, with
-- 'full' the 9- or 27-point one
function F.points(dim, full)
  local p = {}
  for dz = (dim == 3 and -1 or 0), (dim == 3 and 1 or 0) do
    for dy = -1, 1 do
      for dx = -1, 1 do
        if full or math.abs(dx) + math.abs(dy) + math.abs(dz) <= 1 then
          p[#p + 1] = {dx, dy, dz}
        end
      end
    end
  end
  return p
end

-- a script's text (printing "<launches>\t<results>") run in two child
-- processes, by diagonals (SPECK_SPARSE_NODIA=0) and on the CSR kernels
-- (SPECK_SPARSE_NODIA=1; a Lua process cannot set its own environment):
-- the launches and results of each, k1, on, k0, off
function F.dia_on_off(text)
  local bin = os.getenv("SPECK_BIN") or "build/bin/speck"
  local script = os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(text)
  f:close()
  local function run(env)
    local p = assert(io.popen(env .. " " .. bin .. " " .. script .. " 2>&1"))
    local out = p:read("a")
    p:close()
    local k, bits = out:match("^(%d+)\t(.*)$")
    if not k then
      os.remove(script)
      error(out, 3)
    end
    return tonumber(k), bits
  end
  local k1, on = run("SPECK_SPARSE_NODIA=0")
  local k0, off = run("SPECK_SPARSE_NODIA=1")
  os.remove(script)
  return k1, on, k0, off
end

-- a view for a compile-only capture
function F.V(dt, n) return speck.View("v", dt, n or 8) end

-- Library bodies compiled for the GPU target by NVRTC, as a GPU back end
-- compiles them, where speck runs on a host back end with NVRTC: 'jobs'
-- are {text name, policy kind, captures, options}, each made as kernel
-- prefix .. name. Returns the kernels so labelled ({label, tier} each,
-- as speck.jit.stats lists them) and their number; or nil and why not (a GPU back end launched them
-- already: kernels are shared by content, the labels are the library's).
function F.nvrtc_compile(prefix, jobs)
  local info = speck.info()
  local sp = info.default_space
  if not (sp == "serial" or sp == "openmp" or sp == "host") then
    return nil, "a GPU back end: the bodies ran on the device above"
  end
  local nv = info.compilers.nvrtc
  if not (nv and nv.available) then
    return nil, "NVRTC unavailable: " .. tostring(nv and nv.reason)
  end
  local core = require "speck.core"
  for _, j in ipairs(jobs) do
    local o = j[4]
    o.target = "cuda"
    speck.kernel(prefix .. j[1], j[2], j[3], core.kernel_text(j[1]), o)
  end
  local made = {}
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label:sub(1, #prefix) == prefix then made[#made + 1] = {k.label, k.tier} end
  end
  return made, #made
end

return F
