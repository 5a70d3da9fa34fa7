-- amg_fixtures.lua: what the AMG specs (amgperf, amgsetup, amgptent,
-- amgrap, amgsmooth, chebypower) and precond_spec.lua share (loaded with
-- dofile): a CrsMatrix from a Lua table of {i, j, v} entries, the 7-point
-- Laplacian's entries on an m^3 grid, a deterministic generator and a
-- 27-point matrix of values of several scales, a Lua table of any view's
-- entries, the launches of a label that ran as device code, and the check
-- that library bodies compiled for the GPU target.
--   local F = dofile(HERE .. "/amg_fixtures.lua")
local speck = require "speck"
local sparse = require "speck.sparse"

local F = {}

-- an n x m (default n x n) CrsMatrix in the default space from {i, j, v}
function F.coo(n, entries, m)
  local r, c, v = {}, {}, {}
  for _, e in ipairs(entries) do r[#r + 1], c[#c + 1], v[#v + 1] = e[1], e[2], e[3] end
  return sparse.from_coo(n, m or n, r, c, v)
end

-- the 7-point Laplacian's entries on an m^3 grid, unknown (x, y, z) at
-- base + x + m (y + m z) (base 0), appended to e (a new table)
function F.poisson_entries(m, base, e)
  base, e = base or 0, e or {}
  local function id(x, y, z) return base + x + m * (y + m * z) end
  for z = 0, m - 1 do for y = 0, m - 1 do for x = 0, m - 1 do
    local i = id(x, y, z)
    e[#e + 1] = {i, i, 6.0}
    for _, s in ipairs{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} do
      local a, b, c = x + s[1], y + s[2], z + s[3]
      if a >= 0 and a < m and b >= 0 and b < m and c >= 0 and c < m then
        e[#e + 1] = {i, id(a, b, c), -1.0}
      end
    end
  end end end
  return e
end

-- a deterministic generator (a linear congruence): floats in [0, 1)
function F.rng(seed)
  local s = seed
  return function()
    s = (s * 1103515245 + 12345) % 2147483648
    return s / 2147483648
  end
end

-- the 27-point stencil's pattern on an m^3 grid, values of several scales
-- from r (the sums round differently in another order), symmetric, the
-- diagonal dominant
function F.stencil27(m, r)
  local e, off = {}, {}
  local function id(x, y, z) return x + m * (y + m * z) end
  for z = 0, m - 1 do for y = 0, m - 1 do for x = 0, m - 1 do
    local i = id(x, y, z)
    for dz = -1, 1 do for dy = -1, 1 do for dx = -1, 1 do
      local a, b, c = x + dx, y + dy, z + dz
      if a >= 0 and a < m and b >= 0 and b < m and c >= 0 and c < m then
        local j = id(a, b, c)
        local key = math.min(i, j) * m * m * m + math.max(i, j)
        off[key] = off[key] or -(r() * 10 ^ (math.floor(r() * 4) - 3))
        e[#e + 1] = {i, j, i == j and 30 + r() or off[key]}
      end
    end end end
  end end end
  return F.coo(m * m * m, e)
end

-- every job's kernel (labelled prefix .. job[1]) compiled by NVRTC
-- (busted's assert: luassert). With 'library' (a label prefix such as
-- "solve."), a body the library's own kernel library .. job[1] already
-- compiled by NVRTC in this process counts too: on a GPU space the cache
-- keeps one entry a text, under the label of its first compile.
function F.assert_nvrtc(prefix, jobs, library)
  local assert = require "luassert"
  local seen = {}
  for _, k in ipairs(speck.jit.stats().per_kernel) do
    if k.label:sub(1, #prefix) == prefix then
      assert.are.equal("nvrtc", k.tier, k.label)
      seen[k.label] = true
    elseif library and k.tier == "nvrtc" and k.label:sub(1, #library) == library then
      seen[prefix .. k.label:sub(#library + 1)] = true
    end
  end
  for _, j in ipairs(jobs) do assert.is_true(seen[prefix .. j[1]], j[1]) end
end

-- the library text solve_<name> of each job {name, captures} (or {name,
-- kind, captures}) compiled for the GPU target as prefix .. name by NVRTC
-- (compile only: where a host back end runs, as a GPU back end would
-- compile it), as 'kind' with the options 'opts', each checked: true, or
-- false and why not (NVRTC unavailable: the test pends)
function F.nvrtc_solve(prefix, kind, jobs, opts)
  local assert = require "luassert"
  local nv = speck.info().compilers.nvrtc
  if not (nv and nv.available) then
    return false, "NVRTC unavailable: " .. tostring(nv and nv.reason)
  end
  local core = require "speck.core"
  for _, j in ipairs(jobs) do
    local text = core.kernel_text("solve_" .. j[1])
    assert.is_string(text, j[1])
    assert.is_nil(text:find("#", 1, true))
    local o = {target = "cuda"}
    for k, v in pairs(opts or {}) do o[k] = v end
    speck.kernel(prefix .. j[1], j[3] and j[2] or kind, j[3] or j[2], text, o)
  end
  F.assert_nvrtc(prefix, jobs, "solve.")
  return true
end

-- a view's entries as a Lua table (copied to the host when it lives elsewhere)
function F.host_table(v)
  local h = v:space() == "host" and v or speck.create_mirror_view_and_copy("host", v)
  return h:totable()
end

-- launches of the kernel 'label' so far, summed over its cache entries
-- (those of a tier 'keep' accepts, else every tier)
function F.launches(label, keep)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label and (not keep or keep(k.tier)) then s = s + k.launches end
  end
  return s
end

-- launches of kernels labelled 'label' that ran as device code
local HOST_TIERS = {precompiled = true, tcc = true, cc = true}
function F.device_launches(label)
  return F.launches(label, function(tier) return not HOST_TIERS[tier] end)
end

return F
