-- speck/ktext.lua: an internal helper of the library's Lua modules: the
-- kernel texts of their drivers, by name. Every library body is written
-- once in the dialect, in kernels/<area>/*.sk (scripts/embed.lua says how);
-- a Lua driver passes text(name) where a body goes, never a literal
-- (tests/house_spec.lua checks):
--
--   local text = require "speck.ktext"
--   speck.parallel_for("dist_iota", n, {v = v, b = b}, text("dist_iota"))
--   text("random_fill", {DECODE = ..., IDX = ..., VALUE = ...})  -- a template
--
-- A text without values is looked up once and kept (a launch in a loop
-- costs a table look-up); a template's placeholders @P@ are filled from
-- 'values' on every call (speck.core's kernel_text refuses a placeholder
-- left without a value and a value no placeholder takes).
local core = require "speck.core"

local kept = {}
return function(name, values)
  if values ~= nil then return core.kernel_text(name, values) end
  local t = kept[name]
  if not t then
    t = core.kernel_text(name)
    kept[name] = t
  end
  return t
end
