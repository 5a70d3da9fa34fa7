local speck = require "speck"
-- errors_spec.lua: every bad input to the patterns, policies, reducers,
-- captures and compiled kernels raises a Lua error that names the
-- function, the label and what is wrong (the exact text the runtime
-- produces), and the VM stays usable afterwards: a following valid launch
-- works and existing views keep their data. Also: errors raised from a
-- script carry the script's file:line (bin/speck in a subprocess).

local SPACE = speck.info().default_space
local SPECK_BIN = os.getenv("SPECK_BIN") or "build/bin/speck"

local pf, pr, ps = speck.parallel_for, speck.parallel_reduce, speck.parallel_scan

-- the message of the error f raises (asserting that it raises one)
local function message(f)
  assert.has_error(f)
  local ok, msg = pcall(f)
  assert.is_false(ok)
  return tostring(msg)
end

-- f raises an error whose message contains every fragment (plain text)
local function expect(f, ...)
  local msg = message(f)
  for _, frag in ipairs{...} do
    assert.is_truthy(msg:find(frag, 1, true),
                     ("message %q lacks %q"):format(msg, frag))
  end
  return msg
end

-- a view created before the errors; its data must survive all of them
local N = 64
local keep = speck.View("keep", "int64", N)
for i = 0, N - 1 do keep:set(i, i * i - 7) end

-- the VM still works: 'keep' is intact, a launch and a reduction run
local function vm_ok()
  for i = 0, N - 1 do assert.are.equal(i * i - 7, keep(i)) end
  local y = speck.View("y", "float64", N)
  pf("after_error", N, {keep = keep, y = y}, "y(i) = (double)keep(i) * 0.5;")
  for i = 0, N - 1 do assert.are.equal((i * i - 7) * 0.5, y(i)) end
  local s = pr("after_error_sum", N, {keep = keep}, "acc += keep(i);",
               {op = "sum", dtype = "int64"})
  local e = 0
  for i = 0, N - 1 do e = e + i * i - 7 end
  assert.are.equal(e, s)
end

local x = speck.View("x", "float64", 10)
local a2 = speck.View("a2", "float64", {2, 2})
-- read-only (random_access) views; 'ro' holds 1 .. 10 and must keep it
local ro = speck.View("ro", "float64", 10, {random_access = true})
for i = 0, 9 do ro:set(i, i + 1) end
local ro2 = speck.View("ro2", "int64", {2, 2}, {random_access = true})
local function ro_msg(label, name, line, fname)
  return ("%s '%s': view '%s' is random_access (read-only); the body writes it (body line %d)")
    :format(fname or "speck.parallel_for", label, name, line)
end

-- name, function, fragments the message must contain
local CASES = {
  -- bodies
  {"a body that does not compile", function() pf("bad", 10, {x = x}, "x(i) = zz;") end,
   "speck.parallel_for 'bad': body does not compile:",
   "body line 1: error: 'zz' undeclared"},
  {"a compile error on line 3 of a body", function()
     pf("bad", 10, {x = x}, "x(i) = 1;\nx(i) += 2;\nx(i) = qq;\n") end,
   "speck.parallel_for 'bad': body does not compile:", "body line 3: error: 'qq' undeclared"},
  {"a reduce body that does not compile", function()
     pr("badr", 10, {}, "acc += ;;; int q = ; ") end,
   "speck.parallel_reduce 'badr': body does not compile:", "body line 1: error:"},
  {"a scan body that does not compile", function()
     ps("bads", 10, {}, "if (final) acc += nope;") end,
   "speck.parallel_scan 'bads': body does not compile:",
   "body line 1: error: 'nope' undeclared"},
  {"a prelude that does not compile", function()
     pf("bad", 4, {}, "(void)i;", {prelude = "SPECK_FN double f(double x) { return y; }"}) end,
   "speck.parallel_for 'bad': prelude does not compile:", "prelude line 1: error: 'y' undeclared"},
  {"a custom join that does not compile", function()
     pr("bad", 4, {}, "acc += 1;", {dtype = "float64", init = "acc = 0;", join = "dst += srcc;"}) end,
   "speck.parallel_reduce 'bad':", "join line 1: error: 'srcc' undeclared"},
  {"a custom init that does not compile", function()
     pr("bad", 4, {}, "acc += 1;", {dtype = "float64", init = "acc = zz;", join = "dst += src;"}) end,
   "speck.parallel_reduce 'bad':", "init line 1: error: 'zz' undeclared"},
  {"a call to an undefined function", function() pf("bad", 4, {}, "nosuch(i);") end,
   "speck.parallel_for 'bad': body does not compile:", "nosuch"},
  {"a name the body did not capture, called", function() pf("bad", 4, {x = x}, "x(i) = y(i);") end,
   "speck.parallel_for 'bad': body does not compile:\nbody line 1: error: " ..
   (SPACE == "cuda" and "'y' undeclared" or "'y' is not a capture")},
  {"a missing body", function() pf("bad", 4, {}) end,
   "speck.parallel_for 'bad': body must be a string, got no value"},
  {"a body that is not a string (nil)", function() pf("bad", 4, {}, nil) end,
   "speck.parallel_for 'bad': body must be a string, got nil"},
  {"a body that is not a string (table)", function() pf("bad", 4, {}, {}) end,
   "speck.parallel_for 'bad': body must be a string, got table"},
  {"a reduce body that is not a string", function() pr("bad", 4, {}, 42 == 0) end,
   "speck.parallel_reduce 'bad': body must be a string, got boolean"},
  {"a label that is not a string", function() speck.parallel_for(nil, 4, {}, "") end,
   "bad argument #1 to '", "(string expected, got nil)"},

  -- view indexing
  {"a rank-1 view indexed with 2 indices", function() pf("bad", 10, {x = x}, "x(i, i) = 1;") end,
   "speck.parallel_for 'bad': view 'x' is rank 1, body indexes it with 2 indices (body line 1)"},
  {"a rank-2 view indexed with 1 index", function() pf("bad", 2, {a2 = a2}, "a2(i) = 1;") end,
   "speck.parallel_for 'bad': view 'a2' is rank 2, body indexes it with 1 index (body line 1)"},
  {"a rank-2 view indexed with 3 indices on line 3", function()
     pf("bad", 2, {a2 = a2}, "a2(i, 0) = 1;\n\n a2(i,\n 0, 1) = 2;") end,
   "speck.parallel_for 'bad': view 'a2' is rank 2, body indexes it with 3 indices (body line 3)"},
  {"a view indexed with no index", function() pf("bad", 2, {x = x}, "x() = 1;") end,
   "view 'x' is rank 1, body indexes it with 0 indices (body line 1)"},
  {"a nested wrong index count", function()
     pf("bad", 2, {a2 = a2}, "a2(i, 0) = a2(i, 0, 0);") end,
   "view 'a2' is rank 2, body indexes it with 3 indices (body line 1)"},
  {"more indices than rank in an MDRange body", function()
     pf("bad", speck.MDRangePolicy({0, 0}, {2, 2}), {x = x}, "x(i, j) = 1;") end,
   "speck.parallel_for 'bad': view 'x' is rank 1, body indexes it with 2 indices (body line 1)"},
  {"a reduce indexing a view wrongly", function()
     pr("badr", 2, {x = x}, "acc += x(i, 1, 2);") end,
   "speck.parallel_reduce 'badr': view 'x' is rank 1, body indexes it with 3 indices"},

  -- writes to random_access (read-only) views, as Kokkos refuses a store
  -- through a view of const data
  {"an assignment to a random_access view", function()
     pf("ro_w", 10, {ro = ro, x = x}, "x(i) = ro(i);\nro(i) = 1;") end,
   ro_msg("ro_w", "ro", 2)},
  {"a compound assignment to a random_access view", function()
     pf("ro_w", 10, {ro = ro}, "ro (i)  *= 2;") end, ro_msg("ro_w", "ro", 1)},
  {"a shift assignment to a random_access view", function()
     pf("ro_w", 2, {ro2 = ro2}, "\n\nro2(i, 0) <<= 1;") end, ro_msg("ro_w", "ro2", 3)},
  {"a postfix increment of a random_access view", function()
     pf("ro_w", 10, {ro = ro}, "ro(i)--;") end, ro_msg("ro_w", "ro", 1)},
  {"a prefix increment of a random_access view", function()
     pf("ro_w", 2, {ro2 = ro2}, "if (i > 0)\n  ++ ro2(i, i);") end, ro_msg("ro_w", "ro2", 2)},
  {"an atomic on an element of a random_access view", function()
     pf("ro_w", 10, {ro = ro}, "atomic_add( &ro(i), 1.0);") end, ro_msg("ro_w", "ro", 1)},
  {"a reduction that writes a random_access view", function()
     pr("ro_r", 10, {ro = ro}, "acc += ro(i); ro(i) = 0;") end,
   ro_msg("ro_r", "ro", 1, "speck.parallel_reduce")},
  {"a scan that writes a random_access view", function()
     ps("ro_s", 10, {ro = ro}, "acc += ro(i);\nif (final) ro(i) = acc;") end,
   ro_msg("ro_s", "ro", 2, "speck.parallel_scan")},
  {"a team body that writes a random_access view", function()
     pf("ro_t", speck.TeamPolicy(2, 1), {ro2 = ro2},
        "TEAM_FOR(j, 0, 2) { ro2(team.league_rank, j) += 1; }") end,
   ro_msg("ro_t", "ro2", 1)},
  {"a kernel handle whose body writes a random_access view", function()
     speck.kernel("ro_k", "range", {ro = ro}, "ro(i) = 0;") end,
   ro_msg("ro_k", "ro", 1, "speck.kernel")},

  -- captures
  {"a function capture", function() pf("bad", 10, {f = print}, "") end,
   "speck.parallel_for 'bad': capture 'f' is a function; captures must be views, numbers, booleans or {dtype, value}"},
  {"a string capture", function() pf("bad", 10, {s = "text"}, "") end,
   "speck.parallel_for 'bad': capture 's' is a string; captures must be views, numbers, booleans or {dtype, value}"},
  {"a table capture that is not {dtype, value}", function() pf("bad", 4, {t = {}}, "") end,
   "speck.parallel_for 'bad': capture 't' is a table; captures must be views, numbers, booleans or {dtype, value}"},
  {"a {dtype, value} capture with an unknown dtype", function() pf("bad", 4, {t = {"int33", 1}}, "") end,
   "speck.parallel_for 'bad': capture 't' is a table; captures must be views, numbers, booleans or {dtype, value}"},
  {"a {dtype, value} capture whose value does not fit the dtype", function()
     pf("bad", 4, {t = {"int32", 1.5}}, "") end,
   "speck.parallel_for 'bad': capture 't': value is not of dtype int32"},
  {"a {dtype, value} capture whose value is a string", function()
     pf("bad", 4, {t = {"float32", "z"}}, "") end,
   "speck.parallel_for 'bad': capture 't': value is not of dtype float32"},
  {"a capture named 'for'", function() pf("bad", 10, {["for"] = 1}, "") end,
   "speck.parallel_for 'bad': capture name 'for' collides with a word of the kernel dialect"},
  {"a capture named 'i'", function() pf("bad", 10, {i = 1}, "") end,
   "capture name 'i' collides with a word of the kernel dialect"},
  {"a capture named 'acc'", function() pr("badr", 10, {acc = 1}, "") end,
   "speck.parallel_reduce 'badr': capture name 'acc' collides with a word of the kernel dialect"},
  {"a capture named 'acc0'", function() pf("bad", 10, {acc0 = 1}, "") end,
   "capture name 'acc0' collides with a word of the kernel dialect"},
  {"a capture named 'i3'", function() pf("bad", 10, {i3 = 1}, "") end,
   "capture name 'i3' collides with a word of the kernel dialect"},
  {"a capture named 'sqrt'", function() pf("bad", 10, {sqrt = 1.0}, "") end,
   "capture name 'sqrt' collides with a word of the kernel dialect"},
  {"a capture named 'sk_x'", function() pf("bad", 10, {sk_x = 1}, "") end,
   "capture name 'sk_x' collides with a word of the kernel dialect"},
  {"a capture name that is not a C identifier", function() pf("bad", 10, {["my var"] = 1}, "") end,
   "speck.parallel_for 'bad': capture name 'my var' is not a C identifier"},
  {"a capture name that is also an index name", function()
     pf("bad", 4, {r = 1}, "", {index = {"r"}}) end,
   "speck.parallel_for 'bad': capture name 'r' is also an index name"},
  {"captures that are not a table", function() pf("bad", 4, "caps", "") end,
   "speck.parallel_for 'bad': captures must be a table, got string"},
  {"a capture key that is not a string", function() pf("bad", 4, {1}, "") end,
   "speck.parallel_for 'bad': capture names must be strings, got number"},

  {"more than 64 captures", function()
     local caps = {}
     for k = 1, 65 do caps["c" .. k] = k end
     pf("bad", 1, caps, "") end,
   "speck.parallel_for 'bad': more than 64 captures"},

  -- reducers
  {"an unknown reducer", function() pr("bad", 10, {}, "", "avg") end,
   "speck.parallel_reduce 'bad': unknown reducer 'avg'"},
  {"an unknown reducer op in a table", function() pr("bad", 10, {}, "", {op = "avg"}) end,
   "speck.parallel_reduce 'bad': unknown reducer 'avg'"},
  {"an unknown reducer in a list", function() pr("bad", 10, {}, "", {"sum", "avg"}) end,
   "speck.parallel_reduce 'bad': unknown reducer 'avg'"},
  {"band of a float dtype", function() pr("bad", 4, {}, "", {op = "band", dtype = "float64"}) end,
   "speck.parallel_reduce 'bad': reducer 'band' needs an integer dtype, not float64"},
  {"bor of a float dtype", function() pr("bad", 4, {}, "", {op = "bor", dtype = "float32"}) end,
   "speck.parallel_reduce 'bad': reducer 'bor' needs an integer dtype, not float32"},
  {"a reducer of an unknown dtype", function()
     pr("bad", 4, {}, "", {op = "sum", dtype = "complex"}) end,
   "speck.parallel_reduce 'bad': reducer: unknown dtype 'complex'"},
  {"a custom reducer without join", function() pr("bad", 4, {}, "", {init = "acc = 0;"}) end,
   "speck.parallel_reduce 'bad': custom reducer needs 'init' and 'join' C code strings"},
  {"a reducer that is a number", function() pr("bad", 4, {}, "", 5) end,
   "speck.parallel_reduce 'bad': reducer must be a string or a table, got number"},
  {"too many reducers", function()
     local r = {}
     for k = 1, 40 do r[k] = "sum" end
     pr("bad", 4, {}, "", r) end,
   "speck.parallel_reduce 'bad': more than 16 reducers"},

  -- policies
  {"RangePolicy with end before begin", function() speck.RangePolicy(5, 2) end,
   "speck.RangePolicy: range end 2 is before begin 5"},
  {"a range table with end before begin", function()
     pf("bad", {kind = "range", begin = 5, ["end"] = 2}, {}, "") end,
   "speck.parallel_for 'bad': range end 2 is before begin 5"},
  {"a negative n", function() pf("bad", -1, {}, "") end,
   "speck.parallel_for 'bad': range end -1 is negative"},
  {"a negative n in a reduce", function() pr("badr", -5, {}, "") end,
   "speck.parallel_reduce 'badr': range end -5 is negative"},
  {"a non-integer n", function() pf("bad", 2.5, {}, "") end,
   "speck.parallel_for 'bad': range 2.5 is not an integer"},
  {"a non-integer n in a scan", function() ps("bads", 0.5, {}, "") end,
   "speck.parallel_scan 'bads': range 0.5 is not an integer"},
  {"a non-integer RangePolicy bound", function() speck.RangePolicy(0.5, 2) end,
   "speck.RangePolicy: begin must be an integer, got 0.5"},
  {"RangePolicy options that are not a table", function() speck.RangePolicy(0, 2, 5) end,
   "speck.RangePolicy: options must be a table, got number"},
  {"an unknown schedule", function()
     pf("bad", speck.RangePolicy(0, 4, {schedule = "guided"}), {}, "") end,
   "speck.RangePolicy: unknown schedule 'guided' (static or dynamic)"},
  {"a negative chunk", function() pf("bad", speck.RangePolicy(0, 10, {chunk = -1}), {}, "") end,
   "speck.RangePolicy: chunk -1 is negative"},
  {"a non-integer chunk", function() pf("bad", speck.RangePolicy(0, 10, {chunk = 1.5}), {}, "") end,
   "speck.RangePolicy: policy field 'chunk' must be an integer"},
  {"a policy that is a string", function() pf("bad", "ten", {}, "") end,
   "speck.parallel_for 'bad': policy must be an integer or a speck policy, got string"},
  {"a policy table without kind", function() pf("bad", {}, {}, "") end,
   "speck.parallel_for 'bad': policy table has no 'kind'"},
  {"a policy of an unknown kind", function() pf("bad", {kind = "weird"}, {}, "") end,
   "speck.parallel_for 'bad': unknown policy kind 'weird'"},
  {"MDRangePolicy of rank 1", function() speck.MDRangePolicy({0}, {1}) end,
   "speck.MDRangePolicy: bounds of rank 1 and 1 (need equal ranks 2..6)"},
  {"MDRangePolicy of rank 7", function()
     speck.MDRangePolicy({0, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1}) end,
   "speck.MDRangePolicy: bounds of rank 7 and 7 (need equal ranks 2..6)"},
  {"MDRangePolicy bounds of different ranks", function() speck.MDRangePolicy({0, 0}, {1}) end,
   "speck.MDRangePolicy: bounds of rank 2 and 1 (need equal ranks 2..6)"},
  {"a non-integer MDRangePolicy bound", function() speck.MDRangePolicy({0, 0.5}, {1, 1}) end,
   "speck.MDRangePolicy: bound 2 must be an integer, got 0.5"},
  {"an mdrange table of rank 1", function()
     pf("bad", {kind = "mdrange", lower = {0}, upper = {1}}, {}, "") end,
   "speck.parallel_for 'bad': MDRangePolicy needs lower and upper bounds of equal rank 2..6"},
  {"an mdrange table of rank 7", function()
     pf("bad", {kind = "mdrange", lower = {0, 0, 0, 0, 0, 0, 0},
                upper = {1, 1, 1, 1, 1, 1, 1}}, {}, "") end,
   "speck.parallel_for 'bad': policy 'lower' has 7 entries, at most 6"},
  {"an MDRange upper bound below the lower", function()
     pf("bad", speck.MDRangePolicy({0, 3}, {4, 1}), {}, "") end,
   "speck.MDRangePolicy: MDRange dimension 1: upper 1 < lower 3"},
  {"a zero tile", function()
     pf("bad", speck.MDRangePolicy({0, 0}, {4, 4}, {tile = {0, 2}}), {}, "") end,
   "speck.MDRangePolicy: MDRange tile 0 is 0 (must be >= 1)"},
  {"a negative tile", function()
     pr("badr", speck.MDRangePolicy({0, 0}, {4, 4}, {tile = {2, -3}}), {}, "") end,
   "speck.MDRangePolicy: MDRange tile 1 is -3 (must be >= 1)"},
  {"a tile of the wrong rank", function()
     pf("bad", speck.MDRangePolicy({0, 0}, {4, 4}, {tile = {2, 2, 2}}), {}, "") end,
   "speck.MDRangePolicy: MDRange tile has 3 entries, rank is 2"},
  {"a RangePolicy of more than 2^63 - 1 iterations", function()
     speck.RangePolicy(math.mininteger, math.maxinteger) end,
   "speck.RangePolicy: RangePolicy(-9223372036854775808, 9223372036854775807) has more than 2^63 - 1 iterations"},
  {"a range table of more than 2^63 - 1 iterations", function()
     pf("bad", {kind = "range", begin = math.mininteger, ["end"] = 1}, {}, "") end,
   "speck.parallel_for 'bad': RangePolicy(-9223372036854775808, 1) has more than 2^63 - 1 iterations"},
  {"an MDRangePolicy whose count overflows int64", function()
     speck.MDRangePolicy({0, 0, 0}, {1 << 30, 1 << 30, 1 << 30}) end,
   "speck.MDRangePolicy: MDRangePolicy of rank 3 has more than 2^63 - 1 iterations (the product of its extents overflows int64)"},
  {"an mdrange table whose count overflows int64", function()
     pr("badr", {kind = "mdrange", lower = {0, 0}, upper = {1 << 40, 1 << 40}}, {}, "") end,
   "speck.parallel_reduce 'badr': MDRangePolicy of rank 2 has more than 2^63 - 1 iterations"},
  {"an empty MDRange is fine even when other extents are huge", function()
     assert.are.equal(0.0, pr("ok", speck.MDRangePolicy({0, 0, 0}, {1 << 40, 0, 1 << 40}), {}, "acc += 1;"))
     error("reached")
   end, "reached"},
  {"TeamPolicy with team size 0", function() speck.TeamPolicy(4, 0) end,
   'speck.TeamPolicy: team size 0 is not positive (a size >= 1, or "auto")'},
  {"TeamPolicy with vector length 0", function() speck.TeamPolicy(4, 1, 0) end,
   'speck.TeamPolicy: vector length 0 is not positive (a power of two, or "auto")'},
  {"a team table with team size 0", function()
     pf("bad", {kind = "team", league_size = 4, team_size = 0}, {}, "") end,
   'speck.parallel_for \'bad\': team size 0 is not positive (a size >= 1, or "auto")'},
  {"a team table whose scratch request wraps int64", function()
     pf("bad", {kind = "team", league_size = 4, team_size = 1,
                scratch_team = {16, 0}, scratch_thread = {(1 << 62) + 16, 0}}, {}, "") end,
   "speck.parallel_for 'bad': scratch level 0 asks"},
  {"a non-integer tile", function()
     pf("bad", speck.MDRangePolicy({0, 0}, {4, 4}, {tile = {2.5, 2}}), {}, "") end,
   "speck.MDRangePolicy: policy 'tile' entry 1 is not an integer"},

  -- options
  {"options that are not a table", function() pf("bad", 4, {}, "", 5) end,
   "speck.parallel_for 'bad': options must be a table, got number"},
  {"scan options that are not a table", function() ps("bads", 4, {}, "", "int64") end,
   "speck.parallel_scan 'bads': options must be a table, got string"},
  {"reduce options that are not a table", function() pr("badr", 4, {}, "", "sum", true) end,
   "speck.parallel_reduce 'badr': options must be a table, got boolean"},
  {"an unknown jit", function() pf("bad", 4, {}, "", {jit = "llvm"}) end,
   "speck.parallel_for 'bad': unknown jit 'llvm' (tcc, cc or auto)"},
  {"an unknown scan dtype", function() ps("bads", 4, {}, "", {dtype = "int128"}) end,
   "speck.parallel_scan 'bads': unknown dtype 'int128'"},
  {"an index name that is a C keyword", function() pf("bad", 4, {}, "", {index = {"for"}}) end,
   "speck.parallel_for 'bad': index name 'for' is not a usable C identifier"},
  {"an index name that is not a string", function() pf("bad", 4, {}, "", {index = {{}}}) end,
   "speck.parallel_for 'bad': opts.index entries must be strings"},

  -- compiled kernels
  {"speck.kernel with an unknown policy kind", function() speck.kernel("kbad", "foo", {}, "") end,
   "speck.kernel 'kbad': unknown policy kind 'foo' (range, mdrange<rank>, team)"},
  {"speck.kernel with an MDRange rank of 9", function()
     speck.kernel("kbad", "mdrange9", {}, "") end,
   "speck.kernel 'kbad': policy kind 'mdrange9': rank must be 2..6"},
  {"speck.kernel with an unknown pattern", function()
     speck.kernel("kbad", "range", {}, "", {pattern = "map"}) end,
   "speck.kernel 'kbad': unknown pattern 'map' (for, reduce, scan)"},
  {"speck.kernel with a body that does not compile", function()
     speck.kernel("kbad", "range", {x = x}, "x(i) = zz;") end,
   "speck.kernel 'kbad':", "body line 1: error: 'zz' undeclared"},
  {"speck.kernel with a wrong index count", function()
     speck.kernel("kbad", "range", {x = x}, "x(i, 1) = 0;") end,
   "speck.kernel 'kbad': view 'x' is rank 1, body indexes it with 2 indices (body line 1)"},
  {"speck.kernel with a body that is not a string", function()
     speck.kernel("kbad", "range", {x = x}, nil) end,
   "speck.kernel 'kbad': body must be a string"},
  {"speck.kernel with an unknown reducer", function()
     speck.kernel("kbad", "range", {}, "", {pattern = "reduce", reducer = "avg"}) end,
   "speck.kernel 'kbad': unknown reducer 'avg'"},
}

describe("errors on " .. SPACE, function()
  it("the VM works before any error", vm_ok)

  it("the library's call binder refuses more arguments than a launch takes", function()
    local names = {}
    for i = 1, 65 do names[i] = "a" .. i end
    local ok, e = pcall(require("speck.core").bind, "blas.scal", nil, table.unpack(names))
    assert.is_false(ok)
    assert.are.equal("core.bind: 65 captures, at most 64", e)
  end)

  it("a random_access view can be read, compared and have its address read", function()
    local y = speck.View("y", "float64", 10)
    -- on cuda an element of a random_access view is a value read through
    -- the read-only cache (__ldg), not an lvalue: no address there
    local addr = SPACE == "cuda" and "const double *p = &y(i); *(double *)p = ro(i);"
                 or "const double *p = &ro(i);    /* not a store */"
    pf("ro_read", 10, {ro = ro, y = y}, addr .. [[
      y(i) = ro(i) == *p && ro(i) >= 1 && ro(i) != 0 && ro(i) <= 10 ? ro(i) * 2 : -1;
    ]])
    for i = 0, 9 do assert.are.equal(2 * (i + 1), y(i)) end
    assert.are.equal(55, pr("ro_sum", 10, {ro = ro}, "acc += ro(i);"))
  end)

  it("says a name the body calls is not a capture (no compiler's words)", function()
    local msg = message(function() pf("uncap", 4, {x = x}, "x(i) = 1;\nx(i) = y(i) + yy(2);") end)
      :gsub("^[^\n]-:%d+: ", "", 1)
    if SPACE == "cuda" then -- NVRTC: 'identifier "y" is undefined', said as the host's
      assert.truthy(msg:find("body line 2: error: 'y' undeclared", 1, true), msg)
    else
      assert.are.equal("speck.parallel_for 'uncap': body does not compile:\n" ..
                       "body line 2: error: 'y' is not a capture\n" ..
                       "body line 2: error: 'yy' is not a capture", msg)
    end
    vm_ok()
  end)

  for _, c in ipairs(CASES) do
    it(c[1], function()
      expect(c[2], table.unpack(c, 3))
      vm_ok()
    end)
  end

  describe("compiled kernel handles", function()
    local k
    setup(function()
      k = speck.kernel("ksig", "range", {x = x, a = 1}, "x(i) = a;")
    end)
    local calls = {
      {"too few captures", function() k(4, {x = x}) end,
       "speck.kernel 'ksig': 1 capture given, the kernel has 2"},
      {"a scalar of another type", function() k(4, {x = x, a = 1.5}) end,
       "speck.kernel 'ksig': capture 'a' does not match the kernel's signature (expected scalar int64 rank 0)"},
      {"a view of another dtype", function() k(4, {x = speck.View("y", "int32", 4), a = 1}) end,
       "speck.kernel 'ksig': capture 'x' does not match the kernel's signature (expected view float64 rank 1)"},
      {"a view of another rank", function() k(4, {x = a2, a = 1}) end,
       "speck.kernel 'ksig': capture 'x' does not match the kernel's signature (expected view float64 rank 1)"},
      {"a view of another layout", function()
         local other = x:layout() == "right" and "left" or "right"
         k(4, {x = speck.View("o", "float64", 4, {layout = other}), a = 1}) end,
       "speck.kernel 'ksig': capture 'x' does not match the kernel's signature"},
      {"a renamed capture", function() k(4, {y = x, a = 1}) end,
       "speck.kernel 'ksig': capture 'y' does not match the kernel's signature"},
      {"another policy kind", function() k(speck.MDRangePolicy({0, 0}, {1, 1}), {x = x, a = 1}) end,
       "speck.kernel 'ksig': policy does not match the kernel's (compiled for a range)"},
      {"a bad policy", function() k(-3, {x = x, a = 1}) end,
       "speck.kernel 'ksig': range end -3 is negative"},
      {"a bad capture", function() k(4, {x = x, a = print}) end,
       "speck.kernel 'ksig': capture 'a' is a function; captures must be views, numbers, booleans or {dtype, value}"},
    }
    for _, c in ipairs(calls) do
      it(c[1], function()
        expect(c[2], c[3])
        vm_ok()
        -- the handle itself still works
        local z = speck.View("z", "float64", 4)
        k(4, {x = z, a = 3})
        assert.are.same({3, 3, 3, 3}, z:totable())
      end)
    end
  end)

  describe("missing checks (documented bugs)", function()
    it("opts.index with more names than the policy's rank", function()
      expect(function()
        pf("bad", speck.MDRangePolicy({0, 0}, {2, 2}), {}, "(void)a; (void)b;",
           {index = {"a", "b", "c"}})
      end, "speck.parallel_for 'bad':", "index")
      expect(function() pf("bad", 4, {}, "(void)a;", {index = {"a", "b"}}) end,
             "speck.parallel_for 'bad':", "index")
      vm_ok()
    end)

    it("a duplicated index name", function()
      expect(function()
        pf("bad", speck.MDRangePolicy({0, 0}, {2, 2}), {}, "(void)a;", {index = {"a", "a"}})
      end, "speck.parallel_for 'bad':", "opts.index names 'a' twice")
      vm_ok()
    end)

    it("a missing ';' at the end of a one-line body is reported on body line 1", function()
      expect(function() pf("bad", 10, {x = x}, "x(i) = 1") end,
             "speck.parallel_for 'bad': body does not compile:", "body line 1: error:")
      expect(function() pf("bad", 10, {x = x}, "x(i) = ;") end,
             "speck.parallel_for 'bad': body does not compile:", "body line 1: error:")
      vm_ok()
    end)
  end)

  describe("runtime calls", function()
    local OTHER = SPACE == "serial" and "openmp" or "serial"
    -- the message without the caller's file:line
    local function bare(f) return (message(f):gsub("^[^:]*:%d+: ", "")) end
    local ALL = "serial, openmp, cuda, host, cuda_pinned or cuda_uvm"

    it("speck.fence names an unknown space; known ones fence", function()
      assert.are.equal("speck.fence: unknown space 'mars' (" .. ALL .. ")",
                       bare(function() speck.fence("mars") end))
      assert.are.equal("speck.fence: unknown space 'Serial' (" .. ALL .. ")",
                       bare(function() speck.fence("Serial") end))
      expect(function() speck.fence({}) end, "bad argument #1 to", "string expected, got table")
      speck.fence()
      speck.fence(nil)
      for _, name in ipairs{"serial", "openmp", "cuda", "host", "cuda_pinned", "cuda_uvm", SPACE} do
        speck.fence(name)   -- a back end that does not run has nothing to wait for
      end
      vm_ok()
    end)

    it("a second speck.initialize must name the running settings", function()
      local threads = speck.info().threads
      speck.initialize()                    -- the same settings (none named) again
      speck.initialize{}
      speck.initialize{space = SPACE}
      speck.initialize{space = SPACE, threads = threads, device = 0}
      assert.are.equal(("speck.initialize: already running with space '%s', asked for '%s' "
                        .. "(call speck.finalize() first)"):format(SPACE, OTHER),
                       bare(function() speck.initialize{space = OTHER} end))
      assert.are.equal(("speck.initialize: already running with threads %d, asked for %d "
                        .. "(call speck.finalize() first)"):format(threads, threads + 1),
                       bare(function() speck.initialize{space = SPACE, threads = threads + 1} end))
      assert.are.equal("speck.initialize: already running with device 0, asked for 1 "
                       .. "(call speck.finalize() first)",
                       bare(function() speck.initialize{device = 1} end))
      assert.are.equal("speck.initialize: device must be a non-negative integer",
                       bare(function() speck.initialize{device = -1} end))
      -- the running back end is untouched
      assert.are.equal(SPACE, speck.info().default_space)
      assert.are.equal(threads, speck.info().threads)
      vm_ok()
    end)

    it("initialize after finalize takes new settings; jit and bounds_check may change any time",
       function()
      local code = [[
        speck.initialize{space = "openmp", threads = 2}
        local ok, e = pcall(speck.initialize, {space = "openmp", threads = 3})
        print(e)
        speck.initialize{space = "openmp", threads = 2, jit = "tcc", bounds_check = true}
        local x = speck.View("x", "float64", 2)
        print(select(2, pcall(speck.parallel_for, "oob", 2, {x = x}, "x(i + 1) = 1;")))
        speck.finalize()
        speck.initialize{space = "serial"}
        local i = speck.info()
        print(i.default_space, i.threads)
        speck.finalize()
        print(select(2, pcall(speck.initialize, {space = "mars"})))
        speck.View("y", "float64", 1)   -- first use after a failed initialize
        print(speck.info().default_space)
      ]]
      local p = io.popen(("env -u SPECK_SPACE -u SPECK_THREADS -u SPECK_JIT %s -e '%s' 2>&1")
                         :format(SPECK_BIN, code))
      local out = p:read("a")
      p:close()
      assert.are.equal("speck.initialize: already running with threads 2, asked for 3 "
        .. "(call speck.finalize() first)\n"
        .. "speck.parallel_for 'oob': view 'x' (capture 'x'): index 0 is 2, out of range [0, 2) "
        .. "(bounds check)\n"
        .. "serial\t1\n"
        .. "speck.initialize: unknown space 'mars' (expected serial, openmp or cuda)\n"
        .. "openmp\n", out)
    end)
  end)

  describe("error positions", function()
    it("an error raised in this file names this file and line", function()
      local ok, msg = pcall(function()
        pf("bad", -1, {}, "")       -- the line below is checked
      end)
      assert.is_false(ok)
      assert.is_truthy(msg:find("errors_spec.lua:%d+: speck.parallel_for 'bad': range end %-1 is negative"),
                       msg)
      ok, msg = pcall(function() speck.RangePolicy(3, 1) end)
      assert.is_truthy(msg:find("errors_spec.lua:%d+: speck.RangePolicy: range end 1 is before begin 3"), msg)
    end)

    local function run_script(text)
      local path = os.tmpname()
      local f = assert(io.open(path, "w"))
      f:write(text)
      f:close()
      local errpath = os.tmpname()
      local p = io.popen(("'%s' '%s' 2>'%s'"):format(SPECK_BIN, path, errpath))
      local out = p:read("a")
      local _, _, code = p:close()
      local ef = io.open(errpath)
      local err = ef:read("a")
      ef:close()
      os.remove(errpath)
      os.remove(path)
      return path, out, err, code
    end

    for _, case in ipairs{
      {"a launch error", [[
local x = speck.View("x", "float64", 4)
speck.parallel_for("ok", 4, {x = x}, "x(i) = 1;")
print("ran")
speck.parallel_for("bad", 4, {x = x}, "x(i, i) = 1;")
print("not reached")
]], 4, "speck.parallel_for 'bad': view 'x' is rank 1, body indexes it with 2 indices (body line 1)"},
      {"a compile error", [[
local function launch()
  speck.parallel_reduce("bad", 4, {}, "acc += zz;")
end
print("ran")
launch()
]], 2, "speck.parallel_reduce 'bad': body does not compile:"},
      {"a policy error", [[
print("ran")

local p = speck.RangePolicy(4, 1)
]], 3, "speck.RangePolicy: range end 1 is before begin 4"},
      {"an MDRange policy error", [[
print("ran")
local p = speck.MDRangePolicy({0}, {1})
]], 2, "speck.MDRangePolicy: bounds of rank 1 and 1"},
      {"a kernel handle error", [[
local x = speck.View("x", "float64", 4)
local k = speck.kernel("kh", "range", {x = x}, "x(i) = 2;")
k(4, {x = x})
print("ran")
k(4, {x = speck.View("y", "int8", 4)})
]], 5, "speck.kernel 'kh': capture 'x' does not match the kernel's signature"},
      {"an unknown reducer", [[
print("ran")
local r = speck.parallel_reduce("bad", 4, {}, "acc += 1;",
                                "avg")
]], 2, "speck.parallel_reduce 'bad': unknown reducer 'avg'"},
    } do
      it(case[1] .. " in a script carries the script's file:line", function()
        local path, out, err, code = run_script(case[2])
        assert.are.equal("ran\n", out)
        assert.are.equal(1, code)
        assert.is_truthy(err:find(path .. ":" .. case[3] .. ":", 1, true), err)
        assert.is_truthy(err:find(case[4], 1, true), err)
      end)
    end
  end)

  it("the VM works after all the errors", function()
    vm_ok()
    for i = 0, 9 do assert.are.equal(i + 1, ro(i)) end   -- never written
  end)
end)
