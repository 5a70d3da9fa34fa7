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
  local n, w, r = 0, nil, nil
  if os.execute("mkfifo '" .. dir .. "/pyjobs' '" .. dir .. "/pydone' 2>/dev/null") then
    os.execute(python .. " " .. here .. "/py_serve.py '" .. dir .. "/pyjobs' '" .. dir .. "/pydone' &")
    w = io.open(dir .. "/pyjobs", "w")
    r = w and io.open(dir .. "/pydone", "r")
  end
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
  local function close()
    if w then w:close() end
    if r then r:close() end
    w, r = nil, nil
  end
  return py, close
end
