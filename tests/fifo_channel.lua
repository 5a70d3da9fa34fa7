-- fifo_channel.lua: the two FIFOs through which a spec file talks to one
-- long-lived oracle process (tests/py_serve.lua, tests/npy_oracle.lua):
-- makes DIR/A and DIR/B, starts 'launch' (a shell command that names them,
-- run in the background), opens A for writing and B for reading. Returns
-- the two files (nil, nil where FIFOs cannot be made: the caller then
-- runs a process a command) and a close function for teardown.
--
--   local w, r, close = dofile(HERE .. "/fifo_channel.lua")(DIR, "jobs", "done",
--     function(a, b) return PY .. " server.py '" .. a .. "' '" .. b .. "'" end)
return function(dir, a, b, launch)
  local w, r
  local fa, fb = dir .. "/" .. a, dir .. "/" .. b
  if os.execute("mkfifo '" .. fa .. "' '" .. fb .. "' 2>/dev/null") then
    os.execute(launch(fa, fb) .. " &")
    w = io.open(fa, "w")
    r = w and io.open(fb, "r")
  end
  local function close()
    if w then w:close() end
    if r then r:close() end
    w, r = nil, nil
  end
  return w, r, close
end
