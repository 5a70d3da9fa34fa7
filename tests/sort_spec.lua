local speck = require "speck"
-- sort_spec.lua: speck.sort and speck.sort_by_key (kernels/sort/) on the
-- default space: both algorithms (bitonic, the GPU's, and merge, the
-- host's fast path) across sizes around the bitonic block (1024) and the
-- merge's chunking, every dtype family, descending, comparators compiled
-- into the sort, strided views, stability of sort_by_key against NumPy's
-- stable argsort, the dialect's TEAM_SORT / TEAM_SORT_KV in a user
-- kernel (and their CUDA compile with NVRTC), and bad input.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available
local HAVE_NP = os.execute(PY .. " -c 'import numpy' 2>/dev/null")

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 777
local function rint(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

local function filled(dtype, n, range)
  local v = speck.View("v", dtype, n)
  local t = {}
  for i = 0, n - 1 do
    local x = rint(range)
    if dtype:match("^float") then x = x / 8 - range / 16 end
    if dtype:match("^int") and dtype ~= "int8" then x = x - range // 2 end
    v[i] = x
    t[i + 1] = v[i]
  end
  return v, t
end

local function same(v, t, what)
  for i = 0, #t - 1 do
    if v[i] ~= t[i + 1] then
      error(("%s: position %d holds %s, expected %s"):format(what, i, tostring(v[i]),
                                                            tostring(t[i + 1])))
    end
  end
end

local SIZES = {0, 1, 2, 3, 7, 16, 17, 100, 1023, 1024, 1025, 2049, 5000, 9000, 20011}

describe("speck.sort", function()
  for _, alg in ipairs{"bitonic", "merge", "auto"} do
    it("sorts float64, int32, uint8 and int64 ascending and descending (" .. alg .. ")", function()
      for _, dt in ipairs{"float64", "int32", "uint8", "int64", "float32"} do
        for _, n in ipairs(SIZES) do
          local range = dt == "uint8" and 256 or (n < 50 and 7 or 4 * n)
          local v, t = filled(dt, n, range)
          assert.equal(v, speck.sort(v, {algorithm = alg}))
          table.sort(t)
          same(v, t, ("%s %s n=%d"):format(alg, dt, n))
          local w, u = filled(dt, n, range)
          speck.sort(w, {algorithm = alg, descending = true})
          table.sort(u, function(a, b) return a > b end)
          same(w, u, ("%s %s descending n=%d"):format(alg, dt, n))
        end
      end
    end)

    it("compiles a comparator into the sort (" .. alg .. ")", function()
      for _, n in ipairs{5, 1500, 9000} do
        local v, t = filled("float64", n, 2 * n)
        -- by absolute value, then by value (a strict weak order)
        local cmp = "fabs(a) < fabs(b) || (fabs(a) == fabs(b) && a < b)"
        speck.sort(v, {algorithm = alg, comparator = cmp})
        local function lt(a, b) return math.abs(a) < math.abs(b) or (math.abs(a) == math.abs(b) and a < b) end
        table.sort(t, lt)
        same(v, t, "comparator " .. n)
        speck.sort(v, {algorithm = alg, comparator = cmp, descending = true})
        table.sort(t, function(a, b) return lt(b, a) end)
        same(v, t, "comparator descending " .. n)
      end
    end)

    it("sorts keys with values, stably (" .. alg .. ")", function()
      for _, n in ipairs{0, 1, 9, 1024, 3001, 12000} do
        local k = speck.View("k", "int32", n)
        local u = speck.View("u", "float64", n)
        local rows = {}
        for i = 0, n - 1 do
          k[i] = rint(13) - 6
          u[i] = i + 0.5
          rows[i + 1] = {k[i], u[i]}
        end
        local k2, u2 = speck.sort_by_key(k, u, {algorithm = alg})
        assert.equal(k, k2)
        assert.equal(u, u2)
        table.sort(rows, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
        for i = 0, n - 1 do
          assert(k[i] == rows[i + 1][1] and u[i] == rows[i + 1][2],
                 ("%s n=%d at %d: (%d, %g), expected (%d, %g)"):format(alg, n, i, k[i], u[i],
                 rows[i + 1][1], rows[i + 1][2]))
        end
        -- descending keeps equal keys in their first order too
        for i = 0, n - 1 do u[i] = i end
        speck.sort_by_key(k, u, {algorithm = alg, descending = true})
        for i = 1, n - 1 do
          assert(k[i - 1] > k[i] or (k[i - 1] == k[i] and u[i - 1] < u[i]),
                 ("%s descending n=%d at %d"):format(alg, n, i))
        end
      end
    end)
  end

  it("matches NumPy's stable argsort on keys with values", function()
    if not HAVE_NP then pending("python3-numpy is not installed") return end
    local n = 4000
    local k = speck.View("k", "float64", n)
    local u = speck.View("u", "int64", n)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    for i = 0, n - 1 do
      k[i] = rint(300) / 4
      u[i] = i * 7
      f:write(("%.17g\n"):format(k[i]))
    end
    f:close()
    local p = assert(io.popen(PY .. " -c \"import numpy as np; k = np.loadtxt('" .. path ..
      "'); print(' '.join(str(int(x)) for x in np.argsort(k, kind='stable')))\""))
    local order = p:read("a")
    p:close()
    os.remove(path)
    local want = {}
    for x in order:gmatch("%d+") do want[#want + 1] = tonumber(x) * 7 end
    assert.equal(n, #want)
    for _, alg in ipairs{"bitonic", "merge"} do
      local k2 = speck.View("k2", "float64", n)
      local u2 = speck.View("u2", "int64", n)
      speck.deep_copy(k2, k)
      speck.deep_copy(u2, u)
      speck.sort_by_key(k2, u2, {algorithm = alg})
      for i = 0, n - 1 do
        if u2[i] ~= want[i + 1] then error(("%s: value %d is %d, NumPy %d"):format(alg, i, u2[i], want[i + 1])) end
      end
    end
  end)

  it("sorts strided views (columns) in place, leaving the rest", function()
    local A = speck.View("A", "float64", {3000, 3}, {layout = "right"})
    local t = {}
    for i = 0, 2999 do
      A:set(i, 0, -1); A:set(i, 1, rint(5000)); A:set(i, 2, -2)
      t[i + 1] = A(i, 1)
    end
    local col = speck.subview(A, speck.ALL, 1)
    assert.equal(3, col:stride(0))
    speck.sort(col)
    table.sort(t)
    for i = 0, 2999 do
      assert(A(i, 1) == t[i + 1] and A(i, 0) == -1 and A(i, 2) == -2, "row " .. i)
    end
    -- every algorithm, keys and values strided
    for _, alg in ipairs{"merge", "bitonic", "auto"} do
      local K = speck.View("K", "int64", {2000, 2}, {layout = "right"})
      local V = speck.View("V", "float64", {2000, 3}, {layout = "right"})
      for i = 0, 1999 do
        K:set(i, 0, rint(50)); K:set(i, 1, -7)
        V:set(i, 0, -1); V:set(i, 1, i); V:set(i, 2, -2)
      end
      local k, vv = speck.subview(K, speck.ALL, 0), speck.subview(V, speck.ALL, 1)
      local rows = {}
      for i = 0, 1999 do rows[i + 1] = {k(i), vv(i)} end
      speck.sort_by_key(k, vv, {algorithm = alg})
      table.sort(rows, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
      for i = 0, 1999 do
        assert(k(i) == rows[i + 1][1] and vv(i) == rows[i + 1][2] and K(i, 1) == -7 and
               V(i, 0) == -1 and V(i, 2) == -2, alg .. " row " .. i)
      end
    end
  end)

  it("refuses bad input, naming the function and what is wrong", function()
    local v = speck.View("v", "float64", 10)
    for i = 0, 9 do v[i] = 10 - i end
    assert.equal("speck.sort: v must be a view, got table", err_of(speck.sort, {3, 2, 1}))
    assert.equal("speck.sort: unknown option 'stable' (valid: algorithm, comparator, descending)",
                 err_of(speck.sort, v, {stable = true}))
    assert.equal("speck.sort: option descending must be a boolean, got string",
                 err_of(speck.sort, v, {descending = "yes"}))
    assert.equal('speck.sort: algorithm must be "auto", "bitonic" or "merge", got "quick"',
                 err_of(speck.sort, v, {algorithm = "quick"}))
    assert.equal("speck.sort: comparator must be one C expression over a and b, got " ..
                 "'a < b; x = 1' (it holds ';')", err_of(speck.sort, v, {comparator = "a < b; x = 1"}))
    assert.equal("speck.sort: comparator 'fabs(a < b' has unbalanced parentheses",
                 err_of(speck.sort, v, {comparator = "fabs(a < b"}))
    assert.matches("^speck.sort: keys %(view 'M'%) is rank 2, expected rank 1",
                   err_of(speck.sort, speck.View("M", "float64", {2, 2})))
    assert.equal("speck.sort_by_key: keys (view 'v') has 10 entries, values (view 'w') 9",
                 err_of(speck.sort_by_key, v, speck.View("w", "int64", 9)))
    assert.equal("speck.sort_by_key: values must be a view, got nil",
                 err_of(speck.sort_by_key, v))
    assert.equal("speck.sort_by_key: keys and values are views of one allocation ('v')",
                 err_of(speck.sort_by_key, v, speck.subview(v, {0, 10})))
    assert.matches("^speck.sort: keys %(view 'F'%) holds fad elements",
                   err_of(speck.sort, speck.View("F", speck.dtype.fad(2), 4)))
    -- a comparator that does not compile: the compiler's message, nothing sorted
    local e = err_of(speck.sort, v, {comparator = "a < nosuchname"})
    assert.matches("^speck.sort: .*nosuchname", e)
    for i = 0, 9 do assert.equal(10 - i, v[i]) end
    -- the VM is still usable
    speck.sort(v)
    for i = 0, 9 do assert.equal(i + 1, v[i]) end
  end)
end)

describe("TEAM_SORT in a user kernel", function()
  local body = [[
    const int64_t r = team.league_rank, n = A.extent[1];
    double *s = (double *)team_scratch(team, 0, n * sizeof(double));
    int64_t *p = (int64_t *)team_scratch(team, 0, n * sizeof(int64_t));
    TEAM_FOR(c, 0, n) { s[c] = A(r, c); p[c] = c; }
    TEAM_SORT_KV(team, s, p, n, a > b || (a == b && va < vb));
    TEAM_FOR(c, 0, n) { A(r, c) = s[c]; P(r, c) = p[c]; }
    double *q = (double *)team_scratch(team, 0, n * sizeof(double));
    TEAM_FOR(c, 0, n) { q[c] = B(r, c); }
    TEAM_SORT(team, q, n, fabs(a) < fabs(b));
    TEAM_FOR(c, 0, n) { B(r, c) = q[c]; }
  ]]
  local function pol(rows, n)
    return speck.TeamPolicy(rows, "auto", {scratch = {per_team = {3 * (8 * n + 64), 0}}})
  end

  it("sorts each row of a matrix in team scratch, with values and a tie-break", function()
    for _, n in ipairs{1, 5, 64, 100, 257} do
      local rows = 6
      local A = speck.View("A", "float64", {rows, n})
      local B = speck.View("B", "float64", {rows, n})
      local P = speck.View("P", "int64", {rows, n})
      local keep = {}
      for r = 0, rows - 1 do
        keep[r] = {}
        for c = 0, n - 1 do
          A:set(r, c, rint(20))
          B:set(r, c, rint(41) - 20.5)
          keep[r][c] = A(r, c)
        end
      end
      speck.parallel_for("team_sort_rows", pol(rows, n), {A = A, B = B, P = P}, body)
      for r = 0, rows - 1 do
        for c = 0, n - 1 do
          assert.equal(keep[r][P(r, c)], A(r, c))
          if c > 0 then
            assert(A(r, c - 1) > A(r, c) or (A(r, c - 1) == A(r, c) and P(r, c - 1) < P(r, c)),
                   ("row %d col %d"):format(r, c))
            assert(math.abs(B(r, c - 1)) <= math.abs(B(r, c)))
          end
        end
      end
    end
  end)

  it("is a collective: refused inside TEAM_FOR, and only in team kernels", function()
    local v = speck.View("v", "float64", 8)
    assert.matches("TEAM_SORT inside TEAM_FOR",
      err_of(speck.parallel_for, "bad", speck.TeamPolicy(1, 1), {v = v},
             "TEAM_FOR(c, 0, 1) { TEAM_SORT(team, &v(0), 8, a < b); }"))
    assert.matches("'TEAM_SORT' is a team construct, but this kernel runs a RangePolicy",
      err_of(speck.parallel_for, "bad2", 1, {v = v}, "TEAM_SORT(team, &v(0), 8, a < b);"))
  end)

  it("compiles for CUDA with NVRTC", function()
    if not NVRTC then
      print("NVRTC not available here: the CUDA compile is checked where it is")
      return
    end
    local A = speck.View("A", "float64", {2, 8})
    local B = speck.View("B", "float64", {2, 8})
    local P = speck.View("P", "int64", {2, 8})
    speck.kernel("team_sort_cuda", "team", {A = A, B = B, P = P}, body, {target = "cuda"})
  end)
end)
