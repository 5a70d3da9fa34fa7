-- speck/opts.lua: the one option checker of speck's Lua modules. Every
-- public function that takes an options table calls it with the keys it
-- documents; an unknown key raises the message every C binding raises
-- too (vm/lcore.c's sk_lopts_check, text SK_E_OPTION_UNKNOWN in
-- core/errmsg.h): "<fname>: unknown option 'k' (valid: a, b, ...)", the
-- valid keys sorted.
--   local check_opts = require "speck.opts"
--   opts = check_opts("speck.sparse.spmv", opts, {"algorithm"}, level)
-- 'opts' nil is no options (returns {}); anything but a table raises
-- "<fname>: options must be a table, got <type>". 'level' is error()'s
-- level as seen from the caller (default 2: the caller's caller);
-- 'label' (optional, 5th) is named after fname as "fname 'label'".
local check = require("speck.core").check_opts

return function(fname, opts, keys, level, label)
  level = (level or 2) + 1
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(("%s%s: options must be a table, got %s"):format(fname,
          label and (" '%s'"):format(label) or "", type(opts)), level)
  end
  local msg = check(fname, opts, keys, label)
  if msg then error(msg, level) end
  return opts
end
