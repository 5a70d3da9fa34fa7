-- py_serve.lua: a spec file's Python commands (its oracles) run by one
-- Python process through two FIFOs (tests/py_serve.py), not a process a
-- command: a Python start that imports NumPy / SciPy / NetworkX costs a
-- tenth of a second or more (several times that beside 16 other spec
-- processes) and a file runs tens of commands. Where FIFOs cannot be
-- made, a process a command.
--
--   local py, close = dofile(HERE .. "/py_serve.lua")(PY, DIR, HERE)
--   teardown(close)
--   local out, ok = py(ORACLE .. " louvain " .. path)  -- as the output and
--                                                     -- status of sh(PY .. " " .. ...)
return function(python, dir, here)
  local n = 0
  local w, r, close = dofile(here .. "/fifo_channel.lua")(dir, "pyjobs", "pydone",
    function(a, b) return python .. " " .. here .. "/py_serve.py '" .. a .. "' '" .. b .. "'" end)
  local function py(cmd)
    if not r then
      local p = assert(io.popen(python .. " " .. cmd .. " 2>&1", "r"))
      local out = p:read("a")
      return out, p:close()
    end
    n = n + 1
    local c, o = dir .. "/pycmd" .. n, dir .. "/pyout" .. n
    local f = assert(io.open(c, "w"))
    f:write(cmd)
    f:close()
    w:write(c, " ", o, "\n")
    w:flush()
    local status = r:read("l")
    assert(status, "tests/py_serve.py ended before answering: " .. cmd)
    f = assert(io.open(o))
    local out = f:read("a")
    f:close()
    return out, status == "0"
  end
  return py, close
end
