-- harness.lua: what the MPI test scripts of tests/dist share (loaded with
-- dofile by dist_test.lua and distdev_test.lua): cases that pass when they
-- pass on every rank, checks that raise at the caller's line, a closeness
-- check on views of any space, and the 1-rank reference of solver runs
-- (SPECK_DIST_REF=file: the 1-rank run writes each key's iterations and
-- solution there, the runs on more ranks compare; REF.np: results that
-- depend on the number of ranks, compared between runs on as many).
--   local H = dofile(HERE .. "/harness.lua")
--   H.case(name, f) ... local passed, failed = H.run()
local speck = require "speck"
local remote = require "speck.remote"

local H = {}
local me, np = remote.rank(), remote.size()
local REF = os.getenv("SPECK_DIST_REF")
local HOST = {space = "host"}
local cases = {}
H.cases = cases

function H.case(name, f) cases[#cases + 1] = {name = name, f = f} end
function H.check(c, msg) if not c then error(msg or "check failed", 2) end end
function H.eq(a, b, what)
  if a ~= b then error(("%s: expected %s, got %s"):format(what or "value", tostring(b), tostring(a)), 2) end
end
function H.fails_with(want, f, ...)
  local ok, e = pcall(f, ...)
  if ok then error("no error (expected '" .. want .. "')", 2) end
  if not tostring(e):find(want, 1, true) then error(("error '%s' lacks '%s'"):format(tostring(e), want), 2) end
end
local function host(v) return v:space() == "host" and v or speck.create_mirror_view_and_copy("host", v) end
H.host = host
-- a and b (views of n, any space) within rtol relative to max |b|
function H.close(a, b, n, rtol, what)
  a, b = host(a), host(b)
  local m = 0
  for i = 0, n - 1 do m = math.max(m, math.abs(b(i))) end
  for i = 0, n - 1 do
    if math.abs(a(i) - b(i)) > rtol * math.max(m, 1e-300) then
      error(("%s: entry %d is %.17g, expected %.17g"):format(what, i, a(i), b(i)), 2)
    end
  end
end

-- the 1-rank run's numbers (written by np = 1, read by the others)
local ref = {}
function H.record(key, iters, x) ref[key] = {iters = iters, x = host(x)} end
-- a reference line 'key iters x1 x2 ...': key and {iters, x}
local function ref_line(l)
  local k, it, rest = l:match("^(%S+) (%d+) (.*)$")
  if not k then return nil end
  local want = {iters = math.tointeger(tonumber(it)), x = {}}
  for v in rest:gmatch("%S+") do want.x[#want.x + 1] = tonumber(v) end
  return k, want
end
function H.compare(key, iters, xg)
  if np == 1 or not REF then return end
  local fh = assert(io.open(REF, "r"))
  local want
  for l in fh:lines() do
    local k, w = ref_line(l)
    if k == key then want = w end
  end
  fh:close()
  H.check(want, "no 1-rank reference for " .. key)
  if iters then H.eq(iters, want.iters, key .. " iterations against 1 rank") end
  local xr = speck.View.from(want.x, "float64", HOST)
  H.eq(xg:extent(0), xr:extent(0), key .. " solution's length")
  H.close(xg, xr, xr:extent(0), 1e-12, key .. " solution against 1 rank")
end

-- dist.amg's M:info() on an n-row matrix made with coarse_size 20: two
-- levels or more, n rows on the finest, at most 20 on the coarsest, solved
-- by Cholesky, an operator complexity between 1 and 2
function H.amg_info(M, n)
  local mi = M:info()
  H.check(#mi.levels >= 2, "levels: " .. #mi.levels)
  H.eq(mi.levels[1].rows, n, "the finest level's rows")
  H.check(mi.levels[#mi.levels].rows <= 20, "the coarsest: " .. mi.levels[#mi.levels].rows .. " rows")
  H.eq(mi.coarse_solve, "cholesky", "coarse solve")
  H.check(mi.operator_complexity > 1 and mi.operator_complexity < 2,
          "operator complexity " .. mi.operator_complexity)
  return mi
end

-- a result that depends on the number of ranks (dist.amg's aggregates lie
-- within each rank): the first run on np ranks with this SPECK_DIST_REF
-- writes its iterations and solution to REF.np as key@np, the later runs
-- on np ranks (another transport, another space) compare: the same
-- iterations, the solution within 1e-12 relative. The file outlives the
-- 1-rank run's rewrite of REF; a fresh series removes it.
function H.same_np(key, iters, xg)
  if not REF then return end
  local k = key .. "@" .. np
  local fh = io.open(REF .. ".np", "r")
  local want, lines = nil, {}
  if fh then
    for l in fh:lines() do
      lines[#lines + 1] = l
      local kk, w = ref_line(l)
      if kk == k then want = w end
    end
    fh:close()
  end
  if not want then
    -- rank 0 writes the file anew and renames it over: a rank reading
    -- meanwhile sees the old file or the new one, whole
    if me == 0 then
      local t = {}
      local xh = host(xg)
      for i = 0, xh:extent(0) - 1 do t[#t + 1] = ("%.17g"):format(xh(i)) end
      lines[#lines + 1] = k .. " " .. iters .. " " .. table.concat(t, " ")
      local out = assert(io.open(REF .. ".np.tmp", "w"))
      out:write(table.concat(lines, "\n"), "\n")
      out:close()
      assert(os.rename(REF .. ".np.tmp", REF .. ".np"))
    end
    return
  end
  H.eq(iters, want.iters, k .. " iterations against the first run on " .. np .. " rank(s)")
  local xr = speck.View.from(want.x, "float64", HOST)
  H.eq(xg:extent(0), xr:extent(0), k .. " solution's length")
  H.close(xg, xr, xr:extent(0), 1e-12, k .. " solution against the first run on " .. np .. " rank(s)")
end

-- run every case (a failure printed by its rank; a case passes when it
-- the test graph of both scripts: 300 vertices, a random part on 0..199
-- (700 edges) and one on 200..289 (60 edges), deterministic, so that the
-- components count; vertices 290..299 stay isolated. Returns nv, the
-- sources and the destinations (Lua arrays)
function H.two_part_graph()
  local GS, GD = {}, {}
  local s = 12345
  local function rnd(n) s = (s * 1103515245 + 12345) % 2147483648 return s % n end
  for _ = 1, 700 do
    local u = rnd(200)
    GS[#GS + 1], GD[#GD + 1] = u, rnd(200)
  end
  for _ = 1, 60 do GS[#GS + 1], GD[#GD + 1] = 200 + rnd(90), 200 + rnd(90) end
  return 300, GS, GD
end

-- passes on all), write the 1-rank reference; returns passed, failed
function H.run()
  local passed, failed = 0, 0
  for _, c in ipairs(cases) do
    if os.getenv("SPECK_TEST_VERBOSE") then io.stderr:write(("rank %d: %s\n"):format(me, c.name)) end
    local ok, e = pcall(c.f)
    if not ok then io.stderr:write(("rank %d: %s: %s\n"):format(me, c.name, tostring(e))) end
    collectgarbage()
    local all = remote.allreduce(ok and 1 or 0, "min")
    if all == 1 then passed = passed + 1 else failed = failed + 1 end
    remote.barrier()
  end
  if np == 1 and REF then
    local fh = assert(io.open(REF, "w"))
    for k, r in pairs(ref) do
      local t = {}
      for i = 0, r.x:extent(0) - 1 do t[#t + 1] = ("%.17g"):format(r.x(i)) end
      fh:write(k, " ", r.iters, " ", table.concat(t, " "), "\n")
    end
    fh:close()
  end
  return passed, failed
end

return H
