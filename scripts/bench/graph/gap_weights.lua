-- gap_weights.lua: a graph's arcs weighted as the graph benchmarks weight
-- them (paths.lua, gap.lua): arc u -> v gets 1 + hash(min(u, v), max(u, v))
-- % 255 (int32, the same both ways), rebuilt by from_edges (its dedupe
-- merges the two arcs of an edge: the same graph). Loaded with dofile:
--   local weighted = dofile(dir .. "/gap_weights.lua")
--   local gw = weighted(g)
local graph = require "speck.graph"

return function(g)
  local nv, narcs = g:num_vertices(), g:num_arcs()
  local rows = speck.View("rows", "int32", narcs)
  local w = speck.View("w", "int32", narcs)
  speck.parallel_for("bench.gap_weights", nv, {rowptr = g.rowptr, colidx = g.colidx,
                                               rows = rows, w = w}, [[
    for (int64_t k = rowptr(i); k < rowptr(i + 1); k++) {
      const int64_t v = colidx(k), a = i < v ? i : v, b = i < v ? v : i;
      uint64_t z = (uint64_t)a * 0x9E3779B97F4A7C15ull + (uint64_t)b + 0x2545F4914F6CDD1Dull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      rows(k) = (int32_t)i;
      w(k) = (int32_t)(z % 255 + 1);
    }]])
  local gw = graph.from_edges(nv, rows, g.colidx, {weights = w})
  rows, w = nil, nil
  collectgarbage()
  return gw
end
