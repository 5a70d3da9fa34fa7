local speck = require "speck"
-- ktext_spec.lua: the kernel texts of the stdlib Lua drivers, by name
-- (kernels/<area>/*.sk through the build's index, sk_kernel_text,
-- speck.core's kernel_text and speck/ktext.lua): a text comes back as the
-- .sk file writes it, a template's placeholders are filled and checked,
-- every text(name) of a stdlib module names a text, and every driver text
-- compiles for the GPU target (NVRTC, no device needed) with the
-- captures its driver launches it with (tests/ktext_gpu.lua, run on the
-- serial back end under every space: it compiles, it does not launch, for
-- the GPU).

local SPECK_BIN = os.getenv("SPECK_BIN") or "build/bin/speck"
local sb = dofile("tests/stdlib_bodies.lua")
local text = require "speck.ktext"

describe("the stdlib drivers' kernel texts", function()
  it("are the .sk files' texts, by name", function()
    assert.are.equal("v(i) = b + i;", speck.kernel_text("dist_iota"))
    assert.are.equal("const int64_t u = src(e), v = colidx(e);\n", text("graph_arc_ends"))
    -- kept: the same string each time
    assert.are.equal(text("dist_jacobi_apply"), text("dist_jacobi_apply"))
    assert.are.equal("z(i) = d(i) * r(i);", text("dist_jacobi_apply"))
    -- the C drivers' texts are in the index too
    assert.truthy(speck.kernel_text("graph_pr_outdeg"):find("outw(i) =", 1, true))
  end)

  it("fills a template's placeholders, with numbers or strings", function()
    assert.are.equal("const sk_i64 i2 = q % 5; q /= 5;",
                     text("flat_index_dim", {D = 2, E = 5}))
    local t = text("random_fill_int", {DECODE = "const sk_i64 i0 = q;", IDX = "i0", BLOCK = 16})
    assert.truthy(t:find("v(i0) = rand_rand2(&r, lo, hi);", 1, true))
    assert.falsy(t:find("@", 1, true))
    local c = text("scatter_contribute_min_inf", {DECODE = "(void)q;", IDX = "i0"})
    assert.truthy(c:find("if (y < x) x = y;", 1, true))
    assert.truthy(c:find("d(c, i0) = INFINITY;", 1, true))
  end)

  it("refuses an unknown name, a missing value, an unused one and a bad one", function()
    local function err(...)
      local ok, e = pcall(speck.kernel_text, ...)
      assert.is_false(ok)
      return e
    end
    assert.are.equal("speck.kernel_text: no library kernel text 'dist_nothing' "
                     .. "(the texts are in kernels/<area>/*.sk)", err("dist_nothing"))
    assert.are.equal("speck.kernel_text: text 'random_fill_float' is a template: "
                     .. "placeholder @BLOCK@ has no value", err("random_fill_float"))
    assert.are.equal("speck.kernel_text: text 'flat_index_dim' is a template: "
                     .. "placeholder @E@ has no value", err("flat_index_dim", {D = 1}))
    assert.are.equal("speck.kernel_text: text 'dist_iota' has no placeholder @N@",
                     err("dist_iota", {N = 3}))
    assert.are.equal("speck.kernel_text: text 'flat_index_dim': the value of @E@ must be "
                     .. "a string or a number, got table", err("flat_index_dim", {D = 1, E = {}}))
    assert.truthy(err("flat_index_dim", {D = 1, E = 2, [1] = "x"})
                  :find("text 'flat_index_dim' has no placeholder @1@", 1, true))
    -- the VM stays usable
    assert.are.equal("v(i) = b + i;", speck.kernel_text("dist_iota"))
  end)

  it("are indexed by the build (scripts/embed.lua), the header rewritten only for new names", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p '" .. dir .. "/zz'")
    local function sk(body)
      local f = assert(io.open(dir .. "/zz/t.sk", "w"))
      f:write("// t.sk: a test file\n//| a note\n//: beta\n" .. body .. "\n\n//: alpha part\n"
              .. "x(i) = @V@;\n\n//: gamma\n//+ alpha\n//@ V 2\n")
      f:close()
      -- the suite's Lua (the GPU bundle runs specs with bin/speck)
      local cmd = ("'%s' scripts/embed.lua '%s/k.c' --header '%s/k.h' '%s/zz/t.sk' 2>&1")
        :format(os.getenv("SPECK_LUA") or "lua5.4", dir, dir, dir)
      local p = assert(io.popen(cmd))
      local out = p:read("a")
      assert.is_true(p:close(), out)
      local function read(name)
        local f = assert(io.open(dir .. "/" .. name, "rb"))
        local t = f:read("a")
        f:close()
        return t
      end
      local st = assert(io.popen("stat -c %y '" .. dir .. "/k.h'"))
      local stamp = st:read("a")
      st:close()
      return read("k.c"), read("k.h"), stamp
    end
    local c, h, stamp = sk("y(i) = 1;")
    -- sorted by name, NULL-terminated; the parts too
    assert.truthy(c:find('const char *const sk_ktext_index[] = {\n  "zz_alpha", sk_body_zz_alpha,\n'
                         .. '  "zz_beta", sk_body_zz_beta,\n  "zz_gamma", sk_body_zz_gamma,\n  0};',
                         1, true))
    assert.truthy(h:find("extern const char *const sk_ktext_index[];", 1, true))
    os.execute("sleep 0.05")
    local c2, h2, stamp2 = sk("y(i) = 2;")
    assert.truthy(c2:find('"y(i) = 2;"', 1, true))
    assert.are.equal(h, h2)
    assert.are.equal(stamp, stamp2) -- not rewritten: its includers are not rebuilt
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("names a text in every text(name) of the stdlib modules", function()
    local p = assert(io.popen("find stdlib -name '*.lua' -type f | sort"))
    local bad, n = {}, 0
    for path in p:lines() do
      local f = assert(io.open(path, "rb"))
      local toks = sb.tokens(f:read("a"))
      f:close()
      for i = 1, #toks - 2 do
        -- text(...): every name-like string literal among its arguments (a
        -- name has an underscore: area_name; no operand of a comparison)
        if toks[i].kind == "name" and toks[i].text == "text" and toks[i + 1].text == "(" and
           not (toks[i - 1] and (toks[i - 1].text == "." or toks[i - 1].text == ":" or
                                 toks[i - 1].text == "function")) then
          local depth, j = 0, i + 1
          repeat
            local t = toks[j]
            if t.text == "(" or t.text == "{" then depth = depth + 1
            elseif t.text == ")" or t.text == "}" then depth = depth - 1
            elseif t.kind == "string" and t.text:match("^[\"'][%w]+_[%w_]+[\"']$") and depth == 1 and
                   toks[j - 1].text ~= "==" and toks[j - 1].text ~= "~=" and
                   toks[j + 1].text ~= "==" and toks[j + 1].text ~= "~=" then
              local name = t.text:sub(2, -2)
              n = n + 1
              local ok, e = pcall(speck.kernel_text, name)
              if not ok and not tostring(e):find("is a template", 1, true) then
                bad[#bad + 1] = ("%s:%d: %s"):format(path, t.line, e)
              end
            end
            j = j + 1
          until depth == 0 or j > #toks
        end
      end
    end
    p:close()
    assert.are.same({}, bad)
    assert.truthy(n >= 35, "found " .. n .. " text(name) uses")
  end)

  it("compile for the GPU target, each with its driver's captures", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then
      pending("NVRTC is not available here: " .. tostring(nv and nv.reason))
      return
    end
    -- speck.dist's test writes its files under a folder of its own; a
    -- sanitized run checks no leaks in it (Open MPI keeps its allocations,
    -- as tests/run.sh's MPI runs say)
    local tmp = os.tmpname()
    local p = assert(io.popen(("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
                               .. "SPECK_SPACE=serial SPECK_THREADS=1 SPECK_DIST_TMP='%s_dist' '%s' "
                               .. "tests/ktext_gpu.lua 2>&1"):format(tmp, SPECK_BIN)))
    local out = p:read("a")
    p:close()
    os.execute("rm -rf '" .. tmp .. "_dist'")
    os.remove(tmp)
    local compiled, other = 0, {}
    for line in out:gmatch("[^\n]+") do
      if line:match("^compiled ") then compiled = compiled + 1
      elseif line:match("^missed ") or line:match("^failed ") or line == "nodist" then
        other[#other + 1] = line
      end
    end
    if #other == 1 and other[1] == "nodist" then
      pending("speck has no MPI here: speck.dist's texts are not run")
      return
    end
    assert.are.same({}, other)
    -- every text that is not a 'part': dist.sk 25, dist/amg.sk 11, random.sk 3,
    -- scatter.sk 5, umap.sk 3, graph_lua.sk 3
    assert.are.equal(50, compiled, out)
  end)
end)
