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

return function(py, script, dir, host)
  local njob = 0
  local w, r
  if os.execute("mkfifo '" .. dir .. "/jobs' '" .. dir .. "/done' 2>/dev/null") then
    os.execute(py .. " " .. script .. " --serve '" .. dir .. "/jobs' '" .. dir .. "/done' &")
    w = io.open(dir .. "/jobs", "w")
    r = w and io.open(dir .. "/done", "r")
  end
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
  local function close()
    if w then w:close() end
    if r then r:close() end
    w, r = nil, nil
  end
  return oracle, close
end
