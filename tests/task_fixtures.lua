-- task_fixtures.lua: helpers shared by the task specs (task_spec.lua,
-- task_join_spec.lua), loaded with dofile.
local T = {}

-- the message of f(...)'s error (it must fail)
function T.err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(e)
end

-- the n-th Fibonacci number, the fib tasks' reference
function T.fibn(n)
  local a, b = 0, 1
  for _ = 1, n do a, b = b, a + b end
  return a
end

return T
