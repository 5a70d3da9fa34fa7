-- speck/flat_index.lua: an internal helper of the library's Lua modules.
-- The body lines that turn a flat index q (row-major over v's extents)
-- into the indices i0, i1, ... of view v, and those indices as "i0, i1":
-- for library bodies that visit every element of a view of any rank
-- (speck.random.fill, speck.contribute). Returns decode, indices, size.
-- The lines are texts of kernels/flat_index/flat_index.sk.
local text = require "speck.ktext"

return function(v)
  local decode, idx, total = {}, {}, 1
  for d = v:rank() - 1, 0, -1 do
    local ext = v:extent(d)
    total = total * ext
    decode[#decode + 1] = d > 0 and text("flat_index_dim", {D = d, E = ext})
                          or text("flat_index_first")
  end
  for d = 0, v:rank() - 1 do idx[#idx + 1] = "i" .. d end
  if #idx == 0 then decode = {text("flat_index_none")} end
  return table.concat(decode, "\n"), table.concat(idx, ", "), total
end
