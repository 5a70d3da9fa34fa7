-- fuzz_regress_spec.lua: every crash or escape the fuzz harnesses found
-- (tests/fuzz/), replayed through the Lua API. Each would have crashed the
-- VM or let a body reach the compiler outside its block; each is now a
-- clean result or a clear error, and the VM goes on with its views intact.
-- (The harness inputs themselves are replayed by build/tests/c/test_fuzz_*.)
local speck = require "speck"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return tostring(e)
end

-- a view that must keep its data through every case
local keep = speck.View("keep", "float64", 16)
for i = 0, 15 do keep:set(i, i * 1.5) end

local function intact()
  for i = 0, 15 do assert.are.equal(i * 1.5, keep(i)) end
  local y = speck.View("y", "float64", 16)
  speck.parallel_for("fr_ok", 16, {keep = keep, y = y}, "y(i) = 2 * keep(i);")
  for i = 0, 15 do assert.are.equal(3 * i, y(i)) end
end

describe("fuzz regressions", function()
  -- fuzz_codegen, crash 2: the atomic rewrite took the '++' of 'x(0)++'
  -- again as the prefix of the next 'x(1)' and copied a negative length
  -- (memcpy of ~2^64 bytes: a segfault in the VM)
  it("x(0)+++x(1) on an atomic view is x(0)++ + x(1)", function()
    local x = speck.View("xa", "int64", 4, {atomic = true})
    x:set(1, 5)
    speck.parallel_for("fr_prefix", 1, {x = x}, "(void)(x(0)+++x(1)); ++x(2); x(3)++;")
    assert.are.same({1, 5, 1, 1}, x:totable())
    intact()
  end)

  -- fuzz_codegen, escape 1: an assignment to an atomic view with no ';'
  -- and a trailing // comment put the rewrite's closing parentheses
  -- inside the comment; now left alone, so the compiler names the line
  it("an unterminated atomic assignment ending in a // comment", function()
    local x = speck.View("xb", "int64", 4, {atomic = true})
    local e = err_of(speck.parallel_for, "fr_comment", 4, {x = x}, "x(i) = 1 // no ';'")
    assert.truthy(e:find("speck.parallel_for 'fr_comment': body does not compile:", 1, true), e)
    assert.truthy(e:find("body line 1: error:", 1, true), e)
    assert.are.same({0, 0, 0, 0}, x:totable())
    intact()
  end)

  -- fuzz_codegen, crash 1 (ASan): the libtcc1.a directory before it was
  -- set read past a static struct with an empty flexible array; the C
  -- replay test (test_fuzz_codegen) runs first in a fresh process, here
  -- the setting is only exercised again
  it("compiles after the libtcc1.a directory is set again", function()
    local r = speck.parallel_reduce("fr_tcc", 10, {}, "acc += i;")
    assert.are.equal(45, r)
    intact()
  end)

  -- the escapes the new text checks refuse (each reached a compiler
  -- before, with the body outside its block or the generator's lines
  -- changed)
  local cases = {
    {"closes the kernel's block", "x(i) = 1; } void evil(void) {",
     "'}' on body line 1 closes nothing: the body cannot close a block it did not open"},
    {"undefines the generator's return", "x(i) = 1;\n#undef return\nreturn;",
     "a preprocessor directive on body line 2: the body cannot hold directives"},
    {"splices the generator's next line", "x(i) = 1; // \\\n",
     "a line splice (backslash-newline) on body line 1: the body cannot join lines"},
    -- fuzz_codegen, escape 3: a // comment ending in '\' at the very end
    -- of the body joined the generator's '#undef return' to the comment
    {"ends a comment with a backslash", "x(i) = 1; // \\",
     "a line splice (backslash-newline) on body line 1: the body cannot join lines"},
    {"uses a digraph brace", "x(i) = 1; %> void f() <%",
     "the digraph '%>' on body line 1 is not part of the dialect"},
    {"uses a trigraph", "x(i) = 1; ??/\n",
     "the trigraph '??/' on body line 1 is not part of the dialect"},
    {"opens a comment it never closes", "x(i) = 1; /* ",
     "a comment opened on body line 1 is never closed"},
    {"opens a string it never closes", "x(i) = 1; const char *s = \"abc;\n",
     "a string literal on body line 1 is never closed"},
    {"hides a brace in a C++ raw string", "const char *s = R\"(}\";",
     "a quote right after 'R' on body line 1: raw strings and digit separators are not part of the dialect"},
    {"hides a brace behind a digit separator", "x(i) = 1'0; } '",
     "a quote right after '1' on body line 1"},
    {"names the generator's label", "goto sk__next;",
     "'sk__next' on body line 1: names starting with sk__ are the generator's"},
    {"holds a NUL byte", "x(i) = 1;\0 }",
     "a NUL byte on body line 1"},
    {"leaves a parenthesis open", "x(i) = (1;",
     "'(' opened on body line 1 is never closed"},
    {"closes a bracket with a brace", "x(i) = a[1};",
     "'}' on body line 1 closes the '[' opened on line 1"},
  }
  for _, c in ipairs(cases) do
    it("refuses a body that " .. c[1], function()
      local x = speck.View("xc", "float64", 4)
      x:fill(9)
      local e = err_of(speck.parallel_for, "fr_shape", 4, {x = x, a = 1.0}, c[2])
      assert.truthy(e:find("speck.parallel_for 'fr_shape': " .. c[3], 1, true), e)
      assert.are.same({9, 9, 9, 9}, x:totable())
      intact()
    end)
  end

  it("refuses a prelude or custom reducer that leaves its place", function()
    local e = err_of(speck.parallel_for, "fr_pre", 4, {}, "(void)i;",
                     {prelude = "SPECK_FN double f(double v) { return v; }\n#define i 0"})
    assert.truthy(e:find("speck.parallel_for 'fr_pre': a preprocessor directive on prelude line 2: the prelude cannot hold directives", 1, true), e)
    e = err_of(speck.parallel_reduce, "fr_join", 4, {}, "acc += 1;",
               {dtype = "float64", init = "acc = 0;", join = "dst += src; }"})
    assert.truthy(e:find("speck.parallel_reduce 'fr_join': '}' on join line 1 closes nothing: the join cannot close a block it did not open", 1, true), e)
    intact()
  end)

  it("keeps a label that closes a comment out of the source", function()
    local x = speck.View("xl", "float64", 2)
    speck.parallel_for("*/ int evil; /*", 2, {x = x}, "x(i) = 4;")
    assert.are.same({4, 4}, x:totable())
    local src = speck.jit.source("*/ int evil; /*")
    -- the host and CUDA generators title their sources alike
    assert.truthy(src:find("kernel '_/ int evil; /_' (parallel_for) */", 1, true), src:sub(1, 200))
    intact()
  end)
end)
