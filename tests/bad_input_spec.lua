-- bad_input_spec.lua: the catalog of bad input. Every case asserts the
-- exact message (the function, the object, what is wrong; a leading
-- "file:line: " position is not part of it), then runs correct kernels in
-- the same VM and checks that every view involved kept its data. Areas:
-- views, policies, patterns, the kernel dialect, kernel handles, the
-- environment (in a child process), the library (speck.blas), files
-- (speck.io) and interrupts. (The C API's own catalog: tests/c/
-- test_bad_input.c.)
local speck = require "speck"
local blas = require "speck.blas"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local SPACE = speck.info().default_space
local ON_HOST = SPACE ~= "cuda"

-- -- views every case must leave alone -----------------------------------------
local X = speck.View("X", "float64", 8)
local I = speck.View("I", "int32", {3, 4})
local RO = speck.View("RO", "float64", 4, {random_access = true})
local AT = speck.View("AT", "int64", 4, {atomic = true})
local function fill_all()
  for i = 0, 7 do X:set(i, i * 1.5) end
  for i = 0, 2 do for j = 0, 3 do I:set(i, j, i * 10 + j) end end
  RO:fill(9)
  AT:fill(5)
end
fill_all()

local function intact()
  for i = 0, 7 do assert.are.equal(i * 1.5, X(i)) end
  for i = 0, 2 do for j = 0, 3 do assert.are.equal(i * 10 + j, I(i, j)) end end
  assert.are.same({9, 9, 9, 9}, RO:totable())
  assert.are.same({5, 5, 5, 5}, AT:totable())
  -- correct kernels over the same views still run, with right results
  local y = speck.View("y", "float64", 8)
  speck.parallel_for("bi_after", 8, {X = X, y = y}, "y(i) = 2 * X(i);")
  for i = 0, 7 do assert.are.equal(3 * i, y(i)) end
  local s = speck.parallel_reduce("bi_after_sum", speck.MDRangePolicy({0, 0}, {3, 4}),
                                  {I = I}, "acc += I(i, j);", {op = "sum", dtype = "int64"})
  assert.are.equal(3 * (0 + 1 + 2 + 3) + 4 * (0 + 10 + 20), s)
  local r = speck.parallel_reduce("bi_after_ro", 4, {RO = RO}, "acc += RO(i);")
  assert.are.equal(36, r)
end

-- the message of the error f raises, without its "file:line: " position
local function message(f)
  local ok, e = pcall(f)
  assert(not ok, "no error was raised")
  e = tostring(e)
  return (e:gsub("^[^\n:]-:%d+: ", ""))
end

local pf, pr, ps = speck.parallel_for, speck.parallel_reduce, speck.parallel_scan

-- {name, function, the exact message}
local CASES = {
  -- the runtime ----------------------------------------------------------------
  {"initialize with an unknown space", function() speck.initialize{space = "mars"} end,
   "speck.initialize: unknown space 'mars' (expected serial, openmp or cuda)"},
  {"fence of an unknown space", function() speck.fence("mars") end,
   "speck.fence: unknown space 'mars' (serial, openmp, cuda, host, cuda_pinned or cuda_uvm)"},

  -- views ------------------------------------------------------------------
  {"unknown dtype", function() speck.View("v", "float128", 3) end,
   "speck.View 'v': unknown dtype 'float128'"},
  {"negative extent", function() speck.View("v", "float64", -1) end,
   "speck.View 'v': extent 0 is -1 (must be a non-negative integer)"},
  {"rank 9", function() speck.View("v", "float64", {1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "speck.View 'v': rank 9 exceeds the maximum 8"},
  {"fractional extent", function() speck.View("v", "float64", 2.5) end,
   "speck.View 'v': extent 0 is 2.5 (must be a non-negative integer)"},
  {"unknown layout", function() speck.View("v", "float64", 3, {layout = "diag"}) end,
   "speck.View 'v': unknown layout 'diag' (expected 'right' or 'left')"},
  {"unknown space", function() speck.View("v", "float64", 3, {space = "gpu"}) end,
   "speck.View 'v': unknown space 'gpu' (expected 'host', 'cuda', 'cuda_pinned' or 'cuda_uvm')"},
  {"a label that is not a string", function() speck.View(42, "float64", 3) end,
   "speck.View: label must be a string (got 42)"},
  {"element read past the end", function() return X(8) end,
   "View 'X': index 0 is 8, out of range [0, 8)"},
  {"negative element index", function() return X(-1) end,
   "View 'X': index 0 is -1, out of range [0, 8)"},
  {"element store past the end", function() X:set(8, 1) end,
   "View 'X': index 0 is 8, out of range [0, 8)"},
  {"one index into a rank-2 view", function() return I(1) end,
   "View 'I': rank 2, indexed with 1 index"},
  {"storing a string", function() X:set(0, "abc") end,
   "View 'X': cannot store 'abc' in float64"},
  {"fill with a table", function() X:fill({}) end,
   "View 'X': cannot store a table in float64"},
  {"a subview index out of range", function() speck.subview(I, 3, speck.ALL) end,
   "speck.subview 'I': slice 0 is 3, out of range [0, 3)"},
  {"a reversed subview range", function() speck.subview(I, {2, 1}, speck.ALL) end,
   "speck.subview 'I': slice 0 is {2, 1}, out of range for extent 3 (need 0 <= b <= e <= 3)"},
  {"a subview with too few slices", function() speck.subview(I, 0) end,
   "speck.subview 'I': rank 2, given 1 slice"},
  {"deep_copy between different shapes", function() speck.deep_copy(X, I) end,
   "speck.deep_copy: dtypes differ: 'X' is float64, 'I' is int32 (deep_copy does not convert)"},
  {"deep_copy from a string", function() speck.deep_copy(X, "s") end,
   "speck.deep_copy 'X': cannot store 's' in float64"},
  {"resize to a negative extent", function() speck.resize(X, {-1}) end,
   "speck.resize 'X': extent 0 is -1 (must be a non-negative integer)"},
  {"a ragged table", function() speck.View.from({1, {2}}, "float64") end,
   "speck.View.from 'from': ragged table: t[2] is a table, expected a value"},
  {"View.from with an unknown dtype", function() speck.View.from({1, 2}, "nope") end,
   "speck.View.from 'from': unknown dtype 'nope'"},
  {"an extent of a negative dimension", function() return X:extent(-1) end,
   "View 'X': extent: dimension -1 out of range [0, 8)"},

  -- policies -------------------------------------------------------------------
  {"a range that ends before it begins", function() speck.RangePolicy(5, 2) end,
   "speck.RangePolicy: range end 2 is before begin 5"},
  {"a fractional range end", function() speck.RangePolicy(0, 1.5) end,
   "speck.RangePolicy: end must be an integer, got 1.5"},
  {"an MDRange of rank 1", function() speck.MDRangePolicy({0}, {1}) end,
   "speck.MDRangePolicy: bounds of rank 1 and 1 (need equal ranks 2..6)"},
  {"MDRange bounds of different ranks", function() speck.MDRangePolicy({0, 0}, {1, 2, 3}) end,
   "speck.MDRangePolicy: bounds of rank 2 and 3 (need equal ranks 2..6)"},
  {"an MDRange tile of 0", function() speck.MDRangePolicy({0, 0}, {4, 4}, {tile = {0, 1}}) end,
   "speck.MDRangePolicy: MDRange tile 0 is 0 (must be >= 1)"},
  {"a negative league", function() speck.TeamPolicy(-1, 1) end,
   "speck.TeamPolicy: league size -1 is negative"},
  {"a team size of 0", function() speck.TeamPolicy(4, 0) end,
   "speck.TeamPolicy: team size 0 is not positive (a size >= 1, or \"auto\")"},
  {"a vector length of 3", function() speck.TeamPolicy(4, 1, 3) end,
   "speck.TeamPolicy: vector length 3 is not a power of two"},
  {"a team too large for the back end", function()
     pf("bi_team", speck.TeamPolicy(4, 100000), {}, "(void)team;") end,
   "speck.parallel_for 'bi_team': team size 100000 exceeds the maximum %d of this back end"},
  {"an unknown schedule", function() speck.RangePolicy(0, 10, {schedule = "guided"}) end,
   "speck.RangePolicy: unknown schedule 'guided' (static or dynamic)"},
  {"a negative chunk", function() speck.RangePolicy(0, 10, {chunk = -1}) end,
   "speck.RangePolicy: chunk -1 is negative"},
  {"more scratch than a team has", function()
     pf("bi_scr", speck.TeamPolicy(4, 1, 1, {scratch = {per_team = {1 << 40, 0}}}), {}, "(void)team;") end,
   "speck.parallel_for 'bi_scr': scratch level 0 asks 1099511627776 bytes per team (1099511627776 per team + 1 x 0 per thread), at most %d"},

  -- patterns ---------------------------------------------------------------------
  {"a policy of the wrong type", function() pf("bi", "ten", {}, "(void)i;") end,
   "speck.parallel_for 'bi': policy must be an integer or a speck policy, got string"},
  {"captures that are not a table", function() pf("bi", 4, 5, "(void)i;") end,
   "speck.parallel_for 'bi': captures must be a table, got number"},
  {"a function as a capture", function() pf("bi", 4, {f = print}, "(void)i;") end,
   "speck.parallel_for 'bi': capture 'f' is a function; captures must be views, numbers, booleans or {dtype, value}"},
  {"a capture name that is not an identifier", function() pf("bi", 4, {["2x"] = 1}, "(void)i;") end,
   "speck.parallel_for 'bi': capture name '2x' is not a C identifier"},
  {"a capture named like the accumulator", function() pf("bi", 4, {acc = 1}, "(void)i;") end,
   "speck.parallel_for 'bi': capture name 'acc' collides with a word of the kernel dialect"},
  {"a capture named like a C++ keyword", function() pf("bi", 4, {class = 1}, "(void)i;") end,
   "speck.parallel_for 'bi': capture name 'class' collides with a word of the kernel dialect"},
  {"an unknown reducer", function() pr("bi", 4, {}, "acc += i;", "median") end,
   "speck.parallel_reduce 'bi': unknown reducer 'median' (sum, prod, min, max, minloc, maxloc, minmax, land, lor, band, bor, or a custom {dtype, init, join})"},
  {"band over floats", function() pr("bi", 4, {}, "acc &= i;", {op = "band", dtype = "float64"}) end,
   "speck.parallel_reduce 'bi': reducer 'band' needs an integer dtype, not float64"},
  {"a custom reducer without join", function() pr("bi", 4, {}, "acc += i;", {dtype = "float64", init = "acc = 0;"}) end,
   "speck.parallel_reduce 'bi': custom reducer needs 'init' and 'join' C code strings"},
  {"an unknown jit tier", function() pf("bi", 4, {}, "(void)i;", {jit = "fast"}) end,
   "speck.parallel_for 'bi': unknown jit 'fast' (tcc, cc or auto)"},
  {"a scan over teams", function() ps("bi", speck.TeamPolicy(2, 1), {}, "(void)team;") end,
   "speck.parallel_scan 'bi': parallel_scan does not take a TeamPolicy (as in Kokkos)"},
  {"no body", function() pf("bi", 4, {}) end,
   "speck.parallel_for 'bi': body must be a string, got no value"},

  -- the kernel dialect -------------------------------------------------------------
  {"two indices into a rank-1 view", function() pf("bi", 8, {X = X}, "X(i, i) = 1;") end,
   "speck.parallel_for 'bi': view 'X' is rank 1, body indexes it with 2 indices (body line 1)"},
  {"a team word in a range body", function() pf("bi", 8, {X = X}, "team_barrier(team);") end,
   "speck.parallel_for 'bi': 'team_barrier' is a team construct, but this kernel runs a RangePolicy (use a TeamPolicy) (body line 1)"},
  {"a store to a random_access view", function() pf("bi", 4, {RO = RO}, "RO(i) = 1;") end,
   "speck.parallel_for 'bi': view 'RO' is random_access (read-only); the body writes it (body line 1)"},
  {"return inside TEAM_FOR", function()
     pf("bi", speck.TeamPolicy(2, 1), {}, "TEAM_FOR(j, 0, 4) {\n  return;\n}") end,
   "speck.parallel_for 'bi': return inside TEAM_FOR (body line 2): a nested construct cannot leave the league rank; use continue to end this iteration"},
  {"a barrier inside TEAM_FOR", function()
     pf("bi", speck.TeamPolicy(2, 1), {}, "TEAM_FOR(j, 0, 4) { team_barrier(team); }") end,
   "speck.parallel_for 'bi': team_barrier inside TEAM_FOR (body line 1): the members of a team do not all reach it equally often, so the team would hang"},
  {"a body that closes its block", function() pf("bi", 8, {X = X}, "X(i) = 0; } {") end,
   "speck.parallel_for 'bi': '}' on body line 1 closes nothing: the body cannot close a block it did not open"},
  {"a directive in the body", function() pf("bi", 8, {X = X}, "#define X(i) zz\nX(i) = 0;") end,
   "speck.parallel_for 'bi': a preprocessor directive on body line 1: the body cannot hold directives (helpers go in opts.prelude as SPECK_FN functions)"},
  {"an undeclared name", function() pf("bi", 8, {X = X}, "X(i) = zz;") end,
   "speck.parallel_for 'bi': body does not compile:\nbody line 1: error: 'zz' undeclared"},
  {"an index name given twice", function()
     pf("bi", speck.MDRangePolicy({0, 0}, {2, 2}), {}, "(void)a;", {index = {"a", "a"}}) end,
   "speck.parallel_for 'bi': opts.index names 'a' twice"},
  {"a name of the generator's", function() pf("bi", 8, {X = X}, "int sk__b = 0; X(i) = sk__b;") end,
   "speck.parallel_for 'bi': 'sk__b' on body line 1: names starting with sk__ are the generator's"},
  {"a directive in the prelude", function()
     pf("bi", 8, {X = X}, "X(i) = 0;", {prelude = "#include <stdio.h>"}) end,
   "speck.parallel_for 'bi': a preprocessor directive on prelude line 1: the prelude cannot hold directives (helpers go in opts.prelude as SPECK_FN functions)"},
  {"an unclosed string", function() pf("bi", 8, {X = X}, "const char *s = \"abc;\nX(i) = 0;") end,
   "speck.parallel_for 'bi': a string literal on body line 1 is never closed"},

  -- kernel handles -------------------------------------------------------------------
  {"an unknown policy kind", function() speck.kernel("bk", "diagonal", {X = X}, "X(i) = 0;") end,
   "speck.kernel 'bk': unknown policy kind 'diagonal' (range, mdrange<rank>, team)"},
  {"a handle launched with another dtype", function()
     local k = speck.kernel("bk1", "range", {X = X}, "X(i) = X(i);")
     k(4, {X = I}) end,
   "speck.kernel 'bk1': capture 'X' does not match the kernel's signature (expected view float64 rank 1)"},
  {"a handle launched without its capture", function()
     local k = speck.kernel("bk2", "range", {X = X}, "X(i) = X(i);")
     k(4, {}) end,
   "speck.kernel 'bk2': 0 captures given, the kernel has 1"},
  {"a handle launched over an MDRange", function()
     local k = speck.kernel("bk3", "range", {X = X}, "X(i) = X(i);")
     k(speck.MDRangePolicy({0, 0}, {2, 2}), {X = X}) end,
   "speck.kernel 'bk3': policy does not match the kernel's (compiled for a range)"},
  {"a handle launched with an extra capture", function()
     local k = speck.kernel("bk4", "range", {X = X}, "X(i) = X(i);")
     k(4, {X = X, Y = X}) end,
   "speck.kernel 'bk4': 2 captures given, the kernel has 1"},

  -- the library -------------------------------------------------------------------------
  {"blas.dot of a rank-2 view", function() blas.dot(X, I) end,
   "speck.blas.dot: y (view 'I') is rank 2, expected rank 1"},
  {"blas.dot of different lengths", function() blas.dot(X, speck.View("short", "float64", 3)) end,
   "speck.blas.dot: x (view 'X') has 8 elements, y (view 'short') 3"},
  {"blas.axpy with a string for alpha", function() blas.axpy("a", X, X) end,
   "speck.blas.axpy: a must be a number"},
  {"blas.nrm2 of nothing", function() blas.nrm2(nil) end,
   "speck.blas.nrm2: x must be a view"},
  {"an unknown library kernel", function() speck.call("blas.nosuch", {}) end,
   "speck.call: no library kernel 'blas.nosuch' (known: blas.dot, blas.nrm2, blas.asum, blas.iamax, "
   .. "blas.scal, blas.axpy, blas.axpby, blas.gemv, blas.gemm, blas.syrk, blas.trsm, blas.trmm, "
   .. "blas.potrf, blas.getrf, blas.getrs, blas.gesv, blas.trtri, blas.zdot, blas.znrm2, blas.zscal, blas.zaxpy, blas.zgemv, "
   .. "blas.zgemm, blas.ztrsm, blas.zpotrf, blas.zgetrf, blas.zgetrs, blas.zgesv, blas.ztrtri, "
   .. "blas.ztrmm, blas.zsyrk, blas.zherk)"},

  -- files ------------------------------------------------------------------------------------
  {"load_npy of a missing file", function() speck.io.load_npy("/nonexistent/x.npy") end,
   "speck.io.load_npy '/nonexistent/x.npy': cannot open: No such file or directory"},
  {"save_npy into a missing folder", function() speck.io.save_npy("/nonexistent/x.npy", X) end,
   "speck.io.save_npy '/nonexistent/x.npy': cannot open for writing: No such file or directory"},
}

-- files that ask for more than the machine: refused before anything is
-- allocated (fuzz_edges, fuzz_mm: each had the process killed)
local function tmpfile(text)
  local p = os.tmpname()
  local f = assert(io.open(p, "wb"))
  f:write(text)
  f:close()
  return p
end
local big_edges = tmpfile("0 2147483645\n")
local big_mm = tmpfile("%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n")
local short_mm = tmpfile("%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1000000000\n1 1 1\n")
-- (host only: the check is the host's memory; an H200 holds such a graph)
CASES[#CASES + 1] = {host_only = true, "an edge list whose one id needs 2^31 vertices", function()
  require("speck.graph").read(big_edges) end,
  ("speck.graph.read: '%s': a graph of 2147483646 vertices and 1 edges: cannot allocate 51539607544 bytes in space 'host' (with %%d bytes of views held, more than %%s)"):format(big_edges)}
CASES[#CASES + 1] = {host_only = true, "a Matrix Market file announcing 2e9 rows", function()
  require("speck.sparse").read_mm(big_mm) end,
  ("speck.sparse.read_mm: '%s': a 2000000000x2000000000 matrix with 1 entries: cannot allocate 48000000064 bytes in space 'host' (with %%d bytes of views held, more than %%s)"):format(big_mm)}
CASES[#CASES + 1] = {"a Matrix Market file announcing 1e9 entries it does not hold", function()
  require("speck.sparse").read_mm(short_mm) end,
  ("speck.sparse.read_mm: '%s' line 4: the file ends after 1 of 1000000000 entries (truncated?)"):format(short_mm)}

-- a .npy file whose header claims 2 GiB it does not hold: refused before
-- the view is allocated (fuzz_npy)
local short_npy = os.tmpname()
do
  local head = "{'descr': '<f8', 'fortran_order': False, 'shape': (268435456,), }"
  head = head .. string.rep(" ", 64 - (10 + #head + 1) % 64) .. "\n"
  local f = assert(io.open(short_npy, "wb"))
  f:write("\x93NUMPY\1\0", string.pack("<I2", #head), head, string.pack("<d", 1))
  f:close()
end
CASES[#CASES + 1] = {"a .npy file shorter than its shape", function() speck.io.load_npy(short_npy) end,
  ("speck.io.load_npy '%s': truncated data: shape (268435456,) of float64 needs 2147483648 bytes, the file has 8 after its header"):format(short_npy)}

-- the back end's limits, for the messages that name them
local lim = speck.team_limits and speck.team_limits() or {}

describe("bad input on " .. SPACE, function()
  teardown(function()
    for _, p in ipairs{short_npy, big_edges, big_mm, short_mm} do os.remove(p) end
  end)

  for _, c in ipairs(CASES) do
    it(c[1], function()
      if c.host_only and not ON_HOST then return pending("host memory") end
      local want = c[3]
      if want:find("%d", 1, true) then
        -- '%d' stands for a number the back end decides (its limits), '%s'
        -- for words it decides (the machine's memory)
        local pat = want:gsub("[%(%)%.%[%]%*%+%-%?%^%$]", "%%%0")
                        :gsub("%%d", "%%d+"):gsub("%%s", ".-")
        local got = message(c[2])
        assert.truthy(got:match("^" .. pat .. "$"), ("got %q"):format(got))
      else
        assert.are.equal(want, message(c[2]))
      end
      intact()
    end)
  end

  it("a view larger than the machine", function()
    -- the host's memory limits; cuda_uvm refuses with its own message
    if (os.getenv("SPECK_SPACE") or "") == "cuda" then return pending("host memory") end
    local e = message(function() speck.View("huge", "float64", 1 << 50) end)
    assert.truthy(e:find("^speck%.View 'huge': cannot allocate 9007199254740992 bytes in space '%w+' %(more than "), e)
    intact()
  end)

  it("a launch after speck.interrupt() fails once: the request is answered", function()
    if not ON_HOST then pending("GPU kernels are not interrupted") return end
    speck.interrupt()
    assert.are.equal("speck.parallel_for 'bi_int': interrupted",
                     message(function() pf("bi_int", 8, {X = X}, "X(i) = -1;") end))
    speck.interrupt()
    assert.are.equal("speck.parallel_reduce 'bi_int': interrupted",
                     message(function() pr("bi_int", 8, {X = X}, "acc += X(i);") end))
    intact()
  end)

  -- the environment: a malformed setting stops bin/speck before any work,
  -- with the variable and the value named (exit status 1)
  local ENV = {
    {"SPECK_THREADS=abc", "speck: SPECK_THREADS=abc: not a positive integer"},
    {"SPECK_THREADS=99999", "speck: SPECK_THREADS=99999: more than 1024"},
    {"SPECK_SPACE=gpu", "speck: SPECK_SPACE=gpu: unknown space (serial, openmp or cuda)"},
    {"SPECK_JIT=fast", "speck: SPECK_JIT=fast: unknown tier (tcc, cc or auto)"},
    {"OMP_NUM_THREADS=0", "speck: OMP_NUM_THREADS=0: not a positive integer"},
    {"SPECK_CC_TIMEOUT=-1", "speck: SPECK_CC_TIMEOUT=-1: not a positive number of seconds"},
  }
  for _, e in ipairs(ENV) do
    it("the environment: " .. e[1], function()
      local p = io.popen(("env -u SPECK_THREADS -u OMP_NUM_THREADS %s %s -e 'print(1)' 2>&1; echo status $?")
                         :format(e[1], SPECK))
      local out = p:read("a")
      p:close()
      assert.are.equal(e[2] .. "\nstatus 1\n", out)
      intact()
    end)
  end

  it("the environment: SPECK_CACHE_MAX=lots fails the first compile", function()
    local p = io.popen(("env -u SPECK_SPACE SPECK_CACHE_MAX=lots %s -e %q 2>&1"):format(SPECK,
      "print(select(2, pcall(speck.parallel_for, 'c', 4, {}, '(void)i;')))"))
    local out = p:read("a")
    p:close()
    assert.truthy(out:find("speck.parallel_for 'c': SPECK_CACHE_MAX=lots: not a size (bytes, or a number with K, M or G)", 1, true), out)
    intact()
  end)
end)
