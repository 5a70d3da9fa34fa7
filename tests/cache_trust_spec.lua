-- cache_trust_spec.lua: nothing in the JIT disk cache is run unless speck
-- wrote it. The directory is created 0700 and refused when group- or
-- world-writable or owned by someone else; a planted shared object whose
-- bytes do not carry the trailer of its key (none, another entry's, one
-- for another key, a symbolic link, a mode others can write) is never
-- dlopen'ed: its constructor would leave a mark, and the kernel is rebuilt
-- and right; planted NVRTC images (.ptx/.cubin) are refused the same way,
-- in the cache and on the shelf of prebuilt images (passed over there);
-- labels cannot steer a file outside the cache or SPECK_JIT_DUMP's folder.
-- (Corrupt, truncated and foreign entries in general: jit_tiers_spec.lua;
-- the loader under libFuzzer: tests/fuzz/fuzz_diskcache.c.)
-- host-only: this file checks the host back ends (memory, host kernels,
-- the cc tier); the cuda suite reports it pending
if (os.getenv("SPECK_SPACE") or "") == "cuda" then
  describe("a trustworthy JIT cache", function()
    it("runs on the host back ends", function() pending("host back ends only") end)
  end)
  return
end

local speck = require "speck"
local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"

local function quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function exists(path) return slurp(path) ~= nil or sh("test -e " .. quote(path) .. " && echo y") == "y\n" end

local function mode_of(path)
  return (sh("stat -c %a " .. quote(path)):gsub("%s+$", ""))
end

-- the files of a folder (names, sorted)
local function listing(dir)
  local out = sh("ls -A " .. quote(dir) .. " 2>/dev/null")
  local t = {}
  for name in out:gmatch("[^\n]+") do t[#t + 1] = name end
  table.sort(t)
  return t
end

local function is_root() return sh("id -u") == "0\n" end

-- FNV-1a 64 seeded with 'seed' (jit/diskcache.c's sk_hash; Lua integers wrap)
local function fnv(s, seed)
  local h = 0xcbf29ce484222325 ~ seed
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 0x100000001b3
  end
  return h
end

local function trailer(payload, key)
  return "SPECKC01" .. string.pack("<i8<i8<i8", key, #payload, fnv(payload, key))
end

local function key_of(entry_bytes)
  return (string.unpack("<i8", entry_bytes, #entry_bytes - 23))
end

-- 'bytes' is a well-formed entry for 'key' (what speck writes)
local function valid_entry(bytes, key)
  if not bytes or #bytes < 32 then return false end
  local payload = bytes:sub(1, -33)
  return bytes:sub(-32) == trailer(payload, key)
end

local CLEAR = "-u SPECK_JIT -u SPECK_CC -u SPECK_CFLAGS -u SPECK_CACHE -u SPECK_CACHE_MAX " ..
              "-u SPECK_CACHE_DIR -u XDG_CACHE_HOME -u SPECK_JIT_DUMP -u SPECK_PREBUILT"

-- run 'code' in a fresh speck with 'envs' ("A=1 B=2"): stdout, stderr, status
local function run(envs, code)
  local script, errpath = os.tmpname(), os.tmpname()
  spit(script, code)
  local out, status = sh(("timeout -k 10 120 env %s %s %s %s 2>%s </dev/null"):format(
    CLEAR, envs, quote(SPECK), quote(script), quote(errpath)))
  local err = slurp(errpath)
  os.remove(script)
  os.remove(errpath)
  return out, err, status
end

-- a kernel on the cc tier with a known result, and how it got its code
local KERNEL = [[
local x = speck.View("x", "int64", 1000)
for i = 0, 999 do x[i] = i end
local r = speck.parallel_reduce("trusted", 1000, {x = x}, "acc += x(i) * 3 + 1;",
                                {op = "sum", dtype = "int64"}, {jit = "cc"})
print("result", r)
for _, k in ipairs(speck.jit.stats().per_kernel) do
  if k.label == "trusted" then
    print("tier", k.tier) print("hits", k.cache_hits) print("cc", k.compiles.cc)
    print("warning", k.warning)
  end
end
]]
local EXPECT = 3 * 1000 * 999 // 2 + 1000

local function fresh_dir()
  local d = os.tmpname()
  os.remove(d)
  return d
end

describe("a trustworthy JIT cache", function()
  local top = fresh_dir()
  assert(os.execute("mkdir -p " .. quote(top)))
  teardown(function() os.execute("rm -rf " .. quote(top)) end)

  describe("its directory", function()
    it("is created 0700, parents included", function()
      local d = top .. "/new/deeper/cache"
      local out, err, code = run("SPECK_CACHE_DIR=" .. quote(d), KERNEL)
      assert.are.equal(0, code, err)
      assert.truthy(out:find("result\t" .. EXPECT, 1, true), out)
      assert.are.equal("700", mode_of(d))
      assert.are.equal(1, #listing(d))
      assert.are.equal("600", mode_of(d .. "/" .. listing(d)[1]))
    end)

    for _, m in ipairs{"770", "707", "777", "720", "702"} do
      it("is refused when its mode is " .. m .. " (writable by others); kernels still run", function()
        local d = top .. "/mode" .. m
        assert(os.execute(("mkdir -p %s && chmod %s %s"):format(quote(d), m, quote(d))))
        local out, err, code = run("SPECK_CACHE_DIR=" .. quote(d), KERNEL)
        assert.are.equal(0, code, err)
        assert.truthy(out:find("result\t" .. EXPECT, 1, true), out)
        assert.truthy(out:find("cc\t1", 1, true), out)
        assert.are.same({}, listing(d))   -- nothing written into it
        assert.are.equal(m, mode_of(d))   -- and not "fixed" behind the user's back
      end)
    end

    it("is refused when another user owns it", function()
      if not is_root() then pending("needs root to chown") return end
      local d = top .. "/foreign"
      assert(os.execute(("mkdir -m 700 %s && chown nobody %s"):format(quote(d), quote(d))))
      local out, err, code = run("SPECK_CACHE_DIR=" .. quote(d), KERNEL)
      assert.are.equal(0, code, err)
      assert.truthy(out:find("result\t" .. EXPECT, 1, true), out)
      assert.are.same({}, listing(d))
    end)

    it("says why it is off in speck.info() and speck --info", function()
      local d = top .. "/why"
      assert(os.execute(("mkdir -p %s && chmod 777 %s"):format(quote(d), quote(d))))
      local out = run("SPECK_CACHE_DIR=" .. quote(d), [[
local c = speck.info().cache
print(c.enabled, c.reason)
]])
      assert.truthy(out:find("false", 1, true), out)
      assert.truthy(out:find("writable by group or others (refused; chmod 700 it)", 1, true), out)
    end)
  end)

  describe("a planted shared object", function()
    local dir = top .. "/plant"
    local mark = top .. "/MARK"
    local evil = top .. "/evil.so"
    local entry_path, good

    setup(function()
      -- a library that leaves a mark when loaded and would compute junk
      local src = top .. "/evil.c"
      spit(src, ([[
#include <stdio.h>
__attribute__((constructor)) static void mark(void) {
  FILE *f = fopen("%s", "w");
  if (f) { fputs("loaded\n", f); fclose(f); }
}
void sk__kernel(void) {}
long sk__layout(long *off) { off[0] = 0; return 8; }
void sk__init(void *p) { *(long *)p = 666; }
void sk__join(void *d, const void *s) { (void)d; (void)s; }
]]):format(mark))
      local out, code = sh(("cc -shared -fPIC -o %s %s 2>&1"):format(quote(evil), quote(src)))
      assert(code == 0, out)
      -- the real entry
      local o, err, c = run("SPECK_CACHE_DIR=" .. quote(dir), KERNEL)
      assert(c == 0, err)
      assert(o:find("cc\t1", 1, true), o)
      local names = listing(dir)
      assert(#names == 1 and names[1]:match("^%x+%.so$"), table.concat(names, " "))
      entry_path = dir .. "/" .. names[1]
      good = slurp(entry_path)
    end)

    before_each(function() os.remove(mark) end)

    -- 'plant' replaces the entry; the next process must not load it, must
    -- compute the right result on cc code it compiled, and leave a valid
    -- entry again (loaded by the process after it)
    local function never_loaded(plant)
      plant(entry_path)
      local out, err, code = run("SPECK_CACHE_DIR=" .. quote(dir), KERNEL)
      assert.are.equal(0, code, err)
      assert.is_nil(slurp(mark), "the planted object was loaded")
      assert.truthy(out:find("result\t" .. EXPECT, 1, true), out)
      assert.truthy(out:find("tier\tcc\nhits\t0\ncc\t1", 1, true), out)
      local again = run("SPECK_CACHE_DIR=" .. quote(dir), KERNEL)
      assert.truthy(again:find("tier\tcc\nhits\t1\ncc\t0", 1, true), again)
      assert.is_nil(slurp(mark))
      -- (a rebuild is not byte-identical: the object names its temporary
      -- source file)
      local now = slurp(entry_path)
      assert.is_true(valid_entry(now, key_of(good)), "the entry was not rebuilt")
      assert.is_nil(now:find("fputs", 1, true), "the planted bytes are still there")
    end

    it("as a bare object (no trailer)", function()
      never_loaded(function(p) spit(p, slurp(evil)) end)
    end)

    it("with the real entry's trailer (its hash no longer matches)", function()
      never_loaded(function(p) spit(p, slurp(evil) .. good:sub(-32)) end)
    end)

    it("with a well-formed trailer for another key", function()
      never_loaded(function(p)
        local e = slurp(evil)
        spit(p, e .. trailer(e, key_of(good) ~ 1))
      end)
    end)

    it("with a trailer claiming the real length", function()
      never_loaded(function(p)
        local e = slurp(evil)
        spit(p, e .. "SPECKC01" .. string.pack("<i8<i8<i8", key_of(good), #e, fnv(e, key_of(good)) ~ 1))
      end)
    end)

    it("as a symbolic link to the real entry's bytes elsewhere", function()
      never_loaded(function(p)
        local elsewhere = top .. "/elsewhere.so"
        spit(elsewhere, good)
        os.remove(p)
        assert(os.execute(("ln -s %s %s"):format(quote(elsewhere), quote(p))))
      end)
    end)

    it("with the right trailer but writable by others", function()
      never_loaded(function(p)
        local e = slurp(evil)
        spit(p, e .. trailer(e, key_of(good)))
        assert(os.execute("chmod 666 " .. quote(p)))
      end)
    end)

    -- the control: the mark does show a load. An object with the right
    -- trailer, of this user and mode 0600, is loaded -- the cache trusts
    -- what its owner put in a directory only its owner can write (the
    -- checks above are what keep everyone else out)
    it("(control: with everything right it is loaded, so the mark works)", function()
      local e = slurp(evil)
      spit(entry_path, e .. trailer(e, key_of(good)))
      assert(os.execute("chmod 600 " .. quote(entry_path)))
      local out, err, code = run("SPECK_CACHE_DIR=" .. quote(dir), KERNEL)
      assert.are.equal(0, code, err)
      assert.are.equal("loaded\n", slurp(mark))
      assert.truthy(out:find("result\t666", 1, true), out)
      spit(entry_path, good)   -- put the real one back
      assert(os.execute("chmod 600 " .. quote(entry_path)))
    end)

    it("with the right trailer but owned by another user", function()
      if not is_root() then pending("needs root to chown") return end
      never_loaded(function(p)
        local e = slurp(evil)
        spit(p, e .. trailer(e, key_of(good)))
        assert(os.execute("chown nobody " .. quote(p)))
      end)
    end)
  end)

  describe("a planted NVRTC image", function()
    local INFO = speck.info()
    local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available
    local dir = top .. "/images"
    local CUDA = [[
speck.kernel("img", "range", {x = speck.View("x", "float64", 4, {space = "host"})},
             "x(i) = 2 * x(i);", {target = "cuda"})
for _, k in ipairs(speck.jit.stats().per_kernel) do
  if k.label == "img" then print("hits", k.cache_hits) print("nvrtc", k.compiles.nvrtc) end
end
]]
    it("is refused and rebuilt unless its trailer matches its key", function()
      if not NVRTC then pending("no NVRTC here") return end
      local out, err, code = run("SPECK_CACHE_DIR=" .. quote(dir), CUDA)
      assert.are.equal(0, code, err)
      assert.truthy(out:find("hits\t0\nnvrtc\t1", 1, true), out)
      local names = listing(dir)
      assert.are.equal(1, #names)
      assert.truthy(names[1]:match("^%x+%.ptx$") or names[1]:match("^%x+%.cubin$"), names[1])
      local path = dir .. "/" .. names[1]
      local good = slurp(path)
      for _, bad in ipairs{
        "junk",                                                  -- no trailer
        ".version 8.0\n.target sm_90\n" .. good:sub(-32),        -- another payload
        "// planted\n" .. trailer("// planted\n", key_of(good) ~ 7),  -- another key
      } do
        spit(path, bad)
        out = run("SPECK_CACHE_DIR=" .. quote(dir), CUDA)
        assert.truthy(out:find("hits\t0\nnvrtc\t1", 1, true), out)
        assert.is_true(valid_entry(slurp(path), key_of(good)), "the image was not rebuilt")
      end
      out = run("SPECK_CACHE_DIR=" .. quote(dir), CUDA)
      assert.truthy(out:find("hits\t1\nnvrtc\t0", 1, true), out)
    end)

    -- the shelf (SPECK_PREBUILT; the build's is <prefix>/share/speck/images):
    -- read-only, looked at first, with the cache off too
    it("is read from the shelf, and a bad one there is passed over, not removed", function()
      if not NVRTC then pending("no NVRTC here") return end
      local shelf = top .. "/shelf"
      local SHOW = CUDA .. "local c = speck.info().cache print('shelf', c.prebuilt, c.prebuilt_hits)\n"
      local out, err, code = run("SPECK_PREBUILT=off SPECK_CACHE_DIR=" .. quote(shelf), SHOW)
      assert.are.equal(0, code, err)
      assert.truthy(out:find("hits\t0\nnvrtc\t1\nshelf\toff\t0", 1, true), out)
      local names = listing(shelf)
      assert.are.equal(1, #names)
      local path = shelf .. "/" .. names[1]
      local good = slurp(path)
      out = run("SPECK_CACHE=off SPECK_PREBUILT=" .. quote(shelf), SHOW)
      assert.truthy(out:find("hits\t1\nnvrtc\t0\nshelf\t" .. shelf .. "\t1", 1, true), out)
      spit(path, "junk")
      out = run("SPECK_CACHE=off SPECK_PREBUILT=" .. quote(shelf), SHOW)
      assert.truthy(out:find("hits\t0\nnvrtc\t1\nshelf\t" .. shelf .. "\t0", 1, true), out)
      assert.are.equal("junk", slurp(path))
      spit(path, good)
      out = run("SPECK_CACHE=off SPECK_PREBUILT=off", SHOW)
      assert.truthy(out:find("hits\t0\nnvrtc\t1\nshelf\toff\t0", 1, true), out)
    end)
  end)

  describe("labels and names", function()
    local LABELS = {"../../x", "../../../../../../tmp/escaped", "/etc/passwd", "a/b/c",
                    "..", ".", "~", "$(touch pwned)", "%s%n%s", "x\ny", string.rep("L", 5000)}

    it("never steer a file outside the cache or SPECK_JIT_DUMP's folder", function()
      local cache, dump = top .. "/lc/cache", top .. "/lc/dump"
      local code = {"local x = speck.View('x', 'float64', 4)"}
      for k, l in ipairs(LABELS) do
        code[#code + 1] = ("speck.parallel_for(%q, 4, {x = x}, 'x(i) = %d;', {jit = 'cc'})"):format(l, k)
        code[#code + 1] = ("assert(x(3) == %d)"):format(k)
      end
      code[#code + 1] = "print('ok')"
      local out, err, status = run(("SPECK_CACHE_DIR=%s SPECK_JIT_DUMP=%s"):format(quote(cache), quote(dump)),
                                   table.concat(code, "\n"))
      assert.are.equal(0, status, err)
      assert.truthy(out:find("ok", 1, true), out)
      -- the cache holds only entries named by their keys
      for _, n in ipairs(listing(cache)) do
        assert.truthy(n:match("^%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%.%w+$"), n)
      end
      -- the dump folder holds one plain file per kernel, named from the
      -- label's letters and the key; nothing next to it or above it
      local dumped = listing(dump)
      assert.are.equal(#LABELS, #dumped)
      for _, n in ipairs(dumped) do
        assert.truthy(n:match("^[%w_%-]+%-%x+%.c$"), n)
        assert.falsy(n:find("/", 1, true))
      end
      assert.are.same({"cache", "dump"}, listing(top .. "/lc"))
      assert.is_false(exists(top .. "/x"))
      assert.is_false(exists("/tmp/escaped"))
      assert.is_false(exists("pwned"))
    end)
  end)
end)
