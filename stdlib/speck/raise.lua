-- speck/raise.lua: how speck's Lua modules raise errors -- at the user's
-- line (the first stack level outside speck's own files) and named after
-- the public function ("speck.graph.bfs: ..."). Internal: a module asks
-- for its helpers once,
--   local user_level, fail, call = require("speck.raise")("speck.graph.")
-- with 'prefix' the public name of its functions.
local SELF = debug.getinfo(1, "S").source

return function(prefix)
  local src = debug.getinfo(2, "S").source   -- the module asking

  -- the stack level, seen from the function that calls this one, of the
  -- first function outside the module and this file (the user)
  local function user_level()
    local level = 2
    while true do
      local info = debug.getinfo(level, "S")
      if not info then return 1 end
      if info.source ~= src and info.source ~= SELF then return level - 1 end
      level = level + 1
    end
  end

  -- raise "<prefix><fname>: <message>" at the user's line
  local function fail(fname, fmt, ...)
    error((prefix .. "%s: " .. fmt):format(fname, ...), user_level())
  end

  -- core.call(name, args) with its errors named after the public function
  -- 'fname' (by core.call) and raised at the user's line
  local function call(fname, name, args)
    local ok, r, outs = pcall(require("speck.core").call, name, args, prefix .. fname)
    if ok then return r, outs end
    error(r, user_level())
  end

  return user_level, fail, call
end
