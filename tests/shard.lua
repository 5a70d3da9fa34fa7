-- shard.lua: a busted helper (--helper=tests/shard.lua) that runs one
-- shard of a spec file, so that tests/run.sh can spread a long file over
-- several processes. With SPECK_TEST_SHARD=k/n (0 <= k < n), only every
-- n-th test ('it' and 'pending', counted in registration order, which is
-- the same in every process) starting at the k-th is registered; the
-- others are left out as busted's --filter leaves them out. The n shards
-- of a file together run each of its tests exactly once. Without the
-- variable every test runs.
local busted = require "busted"

local k, n = (os.getenv("SPECK_TEST_SHARD") or ""):match("^(%d+)/(%d+)$")
k, n = tonumber(k), tonumber(n)
if k and n and n > 1 and k < n then
  local seen = -1
  local function mine()
    seen = seen + 1
    return nil, seen % n == k
  end
  busted.subscribe({"register", "it"}, mine, {priority = 1})
  busted.subscribe({"register", "pending"}, mine, {priority = 1})
end

-- With SPECK_TEST_TIMES=FILE, every test appends a line to FILE: seconds
-- since this process loaded the helper when the test ended, the test's
-- own seconds, the shard, and the test's full name (tests/run.sh's
-- SPECK_TEST_TIMES prints the slowest of them after the suite).
local times = os.getenv("SPECK_TEST_TIMES")
if times and times ~= "" then
  local t0 = busted.monotime()
  local shard = os.getenv("SPECK_TEST_SHARD") or "0/1"
  busted.subscribe({"test", "end"}, function(element, parent)
    local f = io.open(times, "a")
    if f then
      f:write(string.format("%.3f\t%.3f\t%s\t%s\t%s\n", busted.monotime() - t0,
                            element.duration or 0, shard,
                            (element.trace and element.trace.short_src) or "?",
                            ((parent and parent.name and parent.name .. " ") or "") ..
                              (element.name or "?")))
      f:close()
    end
    return nil, true
  end)
  -- and, when the file's tests are over, the process's JIT totals to
  -- FILE.jit: seconds since the helper loaded, compiles, their seconds,
  -- kernels, the shard and the spec file (where a GPU suite's time goes)
  busted.subscribe({"file", "end"}, function(element)
    local speck = package.loaded.speck
    local f = speck and io.open(times .. ".jit", "a")
    if f then
      local st = speck.jit.stats()
      f:write(string.format("%.3f\t%d\t%.3f\t%d\t%s\t%s\n", busted.monotime() - t0,
                            st.compiles, st.compile_seconds, st.kernels, shard,
                            (element and element.name) or "?"))
      f:close()
    end
    return nil, true
  end)
end
