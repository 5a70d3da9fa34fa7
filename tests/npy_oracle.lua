-- npy_oracle.lua: the oracle of the specs that check complex linear
-- algebra against NumPy / SciPy (complex_spec, zlinalg_spec,
-- zlinalg2_spec): a job's views saved as .npy files (a string: a file's
-- path, given as it is), the oracle script run on them, its answer
-- loaded back (a host view). One oracle process serves every job of a
-- spec file through two FIFOs (tests/oracle_serve.py): a Python start with
-- NumPy and SciPy costs a tenth of a second and a file asks hundreds of
-- times. Where FIFOs cannot be made, a process a job.
--
--   local oracle, close = dofile(HERE .. "/npy_oracle.lua")(PY, SCRIPT, DIR, host)
--   teardown(close)
--   local want = oracle("trsm:1:0", A, B)
local speck = require "speck"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"

return function(py, script, dir, host)
  local njob = 0
  local w, r, close = dofile(HERE .. "/fifo_channel.lua")(dir, "jobs", "done",
    function(a, b) return py .. " " .. script .. " --serve '" .. a .. "' '" .. b .. "'" end)
  local function oracle(job, ...)
    njob = njob + 1
    local ins = {}
    for k, v in ipairs{...} do
      if type(v) == "string" then
        ins[k] = v
      else
        ins[k] = dir .. "/in" .. njob .. "_" .. k .. ".npy"
        speck.io.save_npy(ins[k], host(v))
      end
    end
    local out = dir .. "/out" .. njob .. ".npy"
    if r then
      w:write(job, " ", out, " ", table.concat(ins, " "), "\n")
      w:flush()
      local line = r:read("l")
      assert(line == "ok", "the oracle: " .. tostring(line))
    else
      local p = assert(io.popen(py .. " " .. script .. " '" .. job .. "' " .. out .. " " ..
                                table.concat(ins, " ") .. " 2>&1", "r"))
      local msg = p:read("a")
      assert(p:close(), msg)
    end
    return speck.io.load_npy(out, {space = "host"})
  end
  return oracle, close
end
