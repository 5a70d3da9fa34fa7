-- sparse_util.lua: what the sparse specs share: deterministic random
-- COO matrices, the text files tests/sparse_oracle.py reads and writes,
-- one run of the SciPy oracle over a list of jobs, comparisons and
-- messages. Loaded with dofile by tests/sparse*_spec.lua.
local speck = require "speck"
local sparse = require "speck.sparse"
-- busted's assert and pending, which live in the spec's environment
local assert, pending = assert, print

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/sparse_oracle.py"

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

local HAVE_SCIPY = select(2, sh(PY .. " -c 'import scipy.sparse'")) == 0
local DIR = os.tmpname()
os.remove(DIR)
assert(sh("mkdir -p " .. DIR) ~= nil)

-- -- random matrices (deterministic) ------------------------------------------
local seed = 12345
local function rnd()   -- [0, 1)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function rint(n) return math.floor(rnd() * n) end
local function rval() return math.floor((rnd() * 2 - 1) * 1e6) / 1e6 end

-- COO triplets (Lua arrays, 0-based) of an m x n matrix: 'per_row' entries
-- per row on average, a fraction 'empty' of rows empty, duplicates, and
-- optionally one row 'long_row' with 'long_n' entries
local function random_coo(m, n, per_row, empty, opts)
  opts = opts or {}
  local r, c, v = {}, {}, {}
  if n == 0 then return r, c, v end
  for i = 0, m - 1 do
    if rnd() >= empty then
      local k = rint(2 * per_row + 1)
      for _ = 1, k do
        r[#r + 1], c[#c + 1], v[#v + 1] = i, rint(n), rval()
      end
    end
  end
  if opts.long_row then
    for _ = 1, opts.long_n do
      r[#r + 1], c[#c + 1], v[#v + 1] = opts.long_row, rint(n), rval()
    end
  end
  if opts.diag then   -- a dominant diagonal on every row (square)
    for i = 0, math.min(m, n) - 1 do
      r[#r + 1], c[#c + 1], v[#v + 1] = i, i, 4 + per_row * 2 + rnd()
    end
  end
  return r, c, v
end

local function write_coo(path, m, n, r, c, v)
  local f = assert(io.open(path, "w"))
  f:write(("%d %d %d\n"):format(m, n, #r))
  for k = 1, #r do f:write(("%d %d %.17g\n"):format(r[k], c[k], v[k])) end
  f:close()
end

local function write_dense(path, t, m, k)
  local f = assert(io.open(path, "w"))
  f:write(("%d %d\n"):format(m, k))
  for i = 1, m do
    local row = {}
    for j = 1, k do row[j] = ("%.17g"):format(k == 1 and t[i] or t[i][j]) end
    f:write(table.concat(row, " "), "\n")
  end
  f:close()
end

local function read_dense(path)
  local f = assert(io.open(path))
  local m, n = f:read("n", "n")
  local a = {}
  for i = 1, m do
    a[i] = {}
    for j = 1, n do a[i][j] = f:read("n") end
  end
  f:close()
  return a, m, n
end

local function rand_vec(n, k)
  local t = {}
  for i = 1, n do
    if k == 1 then t[i] = rval() else
      t[i] = {}
      for j = 1, k do t[i][j] = rval() end
    end
  end
  return t
end


-- run the oracle over 'jobs' (lines "op out args..."); nil or its output
-- on failure
local function run_oracle(jobs)
  if not HAVE_SCIPY then return nil end
  local f = assert(io.open(DIR .. "/jobs", "w"))
  f:write(table.concat(jobs, "\n"), "\n")
  f:close()
  local out, code = sh(PY .. " " .. ORACLE .. " " .. DIR)
  if code ~= 0 then return out end
  return nil
end

-- -- helpers -----------------------------------------------------------------
local TOL = {float64 = 1e-12, float32 = 2e-5}

local function view_of(t, m, k, dtype)
  if k == 1 then
    local v = speck.View("v", dtype, m)
    for i = 1, m do v[i - 1] = t[i] end
    return v
  end
  local v = speck.View("v", dtype, {m, k})
  for i = 1, m do for j = 1, k do v:set(i - 1, j - 1, t[i][j]) end end
  return v
end

-- assert view 'got' (rank 1 or 2) equals the table 'exp' (rows of rows)
local function assert_dense(got, exp, dtype, what)
  local scale = 1
  for i = 1, #exp do for j = 1, #exp[i] do scale = math.max(scale, math.abs(exp[i][j])) end end
  local tol = TOL[dtype] * scale * 10
  assert.are.equal(#exp, got:extent(0), what .. ": rows")
  for i = 1, #exp do
    for j = 1, #exp[i] do
      local g = got:rank() == 1 and got(i - 1) or got(i - 1, j - 1)
      if not (math.abs(g - exp[i][j]) <= tol) then
        error(("%s: (%d, %d) is %.17g, SciPy says %.17g"):format(what, i - 1, j - 1, g,
              exp[i][j]), 2)
      end
    end
  end
end

local function matrix_of(case, dtype, opts)
  local s = case.shape
  local o = {dtype = dtype}
  for k, v in pairs(opts or {}) do o[k] = v end
  return sparse.from_coo(s.m, s.n, case.r, case.c, case.v, o)
end

local function need_oracle(oracle_err)
  if not HAVE_SCIPY then pending("SciPy (python3-scipy) is not installed") return false end
  if oracle_err then error("the SciPy oracle failed:\n" .. oracle_err) end
  return true
end

-- CSR views -> a table (i, j) -> value, duplicates summed
local function entries_of(A)
  local rp, ci, va = A.rowptr:totable(), A.colidx:totable(), A.values:totable()
  local t = {}
  for i = 1, A:nrows() do
    for k = rp[i] + 1, rp[i + 1] do
      local key = (i - 1) .. "," .. ci[k]
      t[key] = (t[key] or 0) + va[k]
    end
  end
  return t
end

local function read_coo(path)
  local f = assert(io.open(path))
  local m, n, nnz = f:read("n", "n", "n")
  local t = {}
  for _ = 1, nnz do
    local i, j, v = f:read("n", "n", "n")
    t[math.tointeger(i) .. "," .. math.tointeger(j)] = v
  end
  f:close()
  return t, m, n
end

-- assert matrix A equals the oracle's COO file (missing entries are 0;
-- rows sorted without duplicates when 'sorted')
local function assert_matrix(A, path, dtype, what, sorted)
  local exp, m, n = read_coo(path)
  assert.are.equal(m, A:nrows(), what .. ": rows")
  assert.are.equal(n, A:ncols(), what .. ": columns")
  local got = entries_of(A)
  local scale = 1
  for _, v in pairs(exp) do scale = math.max(scale, math.abs(v)) end
  local tol = TOL[dtype] * scale * 10
  for k, v in pairs(exp) do
    if not (math.abs((got[k] or 0) - v) <= tol) then
      error(("%s: entry (%s) is %.17g, SciPy says %.17g"):format(what, k, got[k] or 0, v), 2)
    end
  end
  for k, v in pairs(got) do
    if not exp[k] and not (math.abs(v) <= tol) then
      error(("%s: entry (%s) is %.17g, SciPy has none"):format(what, k, v), 2)
    end
  end
  if sorted then
    local rp, ci = A.rowptr:totable(), A.colidx:totable()
    for i = 1, A:nrows() do
      for k = rp[i] + 2, rp[i + 1] do
        if ci[k] <= ci[k - 1] then error(what .. ": row " .. (i - 1) .. " is not sorted", 2) end
      end
    end
  end
end

-- the exact message of a failing call, without the position
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end


-- the scratch folder's removal (a spec file's teardown: teardown(U.cleanup))
local function cleanup() os.execute("rm -rf '" .. DIR .. "'") end

return {bind = function(a, p) assert, pending = a, p end, PY = PY, DIR = DIR, cleanup = cleanup, HAVE_SCIPY = HAVE_SCIPY, sh = sh, rnd = rnd, rint = rint,
        rval = rval, random_coo = random_coo, write_coo = write_coo,
        write_dense = write_dense, read_dense = read_dense, rand_vec = rand_vec,
        run_oracle = run_oracle, TOL = TOL, view_of = view_of,
        assert_dense = assert_dense, matrix_of = matrix_of, need_oracle = need_oracle,
        err_of = err_of, entries_of = entries_of, assert_matrix = assert_matrix}
