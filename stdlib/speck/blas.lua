-- speck/blas.lua: BLAS on views, the library's precompiled kernels
-- (kernels/blas/). Level 1: dot nrm2 asum iamax scal axpy axpby, on rank-1
-- views of any dtype in the active back end's space. Each function is one
-- call into the C library (speck_call's "blas.<name>" from C); arguments
-- are checked there, and errors name the function and the view.
local core = require "speck.core"

local blas = {}

function blas.dot(x, y) return core.call("blas.dot", {x = x, y = y}) end
function blas.nrm2(x) return core.call("blas.nrm2", {x = x}) end
function blas.asum(x) return core.call("blas.asum", {x = x}) end
-- 0-based index of the first entry of largest magnitude; -1 when empty
function blas.iamax(x) return core.call("blas.iamax", {x = x}) end
-- x = a*x (a = 0 zeroes x, NaN included)
function blas.scal(a, x) core.call("blas.scal", {a = a, x = x}) end
-- y = a*x + y (a = 0 leaves y and does not read x)
function blas.axpy(a, x, y) core.call("blas.axpy", {a = a, x = x, y = y}) end
-- y = a*x + b*y (b = 0 overwrites y, NaN included)
function blas.axpby(a, x, b, y)
  core.call("blas.axpby", {a = a, x = x, b = b, y = y})
end

return blas
