local speck = require "speck"
-- options_spec.lua: the one option checker (issue 30 item 3). Every public
-- function that takes an options table refuses a misspelled key with one
-- message, "<function>: unknown option '<key>' (valid: <keys, sorted>)"
-- (core/errmsg.h's OPTION_UNKNOWN, raised by vm/lcore.c's sk_lopts_check
-- and by speck/opts.lua through core.check_opts), at the caller's line;
-- and no documented key is refused as unknown.
local sparse = require "speck.sparse"
local graph = require "speck.graph"
local blas = require "speck.blas"
local batched = require "speck.batched"
local task = require "speck.task"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local x = speck.View("x", "float64", 4)
local M = speck.View("M", "float64", {2, 2})
local B3 = speck.View("B3", "float64", {2, 2, 2})
local A = sparse.from_coo(2, 2, {0, 1}, {0, 1}, {1.0, 1.0})
local g = graph.grid2d(3, 3)
local TMP = os.tmpname()

-- {name in the message, keys as documented, call(opts)}
local CASES = {
  {"speck.parallel_for 'k'", {"bounds_check", "dtype", "index", "jit", "prelude"},
   function(o) speck.parallel_for("k", 4, {x = x}, "x(i) = 1;", o) end},
  {"speck.parallel_reduce 'k'", {"bounds_check", "dtype", "index", "jit", "prelude"},
   function(o) return speck.parallel_reduce("k", 4, {}, "acc += 1;", "sum", o) end},
  {"speck.parallel_reduce 'k'", {"dtype", "init", "join", "op"},   -- a reducer table
   function(o) return speck.parallel_reduce("k", 4, {}, "acc += 1;", o) end, {op = "sum"}},
  {"speck.parallel_scan 'k'", {"bounds_check", "dtype", "index", "jit", "prelude"},
   function(o) return speck.parallel_scan("k", 4, {}, "if (final) {} acc += 1;", o) end},
  {"speck.kernel 'k'", {"bounds_check", "dtype", "index", "jit", "pattern", "prelude",
                        "reducer", "target"},
   function(o) return speck.kernel("k", "range", {x = x}, "x(i) = 1;", o) end},
  {"speck.RangePolicy", {"chunk", "schedule", "space"},
   function(o) return speck.RangePolicy(0, 4, o) end},
  {"speck.MDRangePolicy", {"space", "tile"},
   function(o) return speck.MDRangePolicy({0, 0}, {2, 2}, o) end},
  {"speck.TeamPolicy", {"chunk", "schedule", "scratch", "space"},
   function(o) return speck.TeamPolicy(2, "auto", o) end},
  {"speck.initialize", {"bounds_check", "device", "jit", "space", "threads"},
   function(o) speck.initialize(o) end, {bounds_check = false}},
  {"speck.View 'V'", {"atomic", "data", "init", "label", "layout", "random_access",
                      "restrict", "space"},
   function(o) return speck.View("V", "float64", 3, o) end},
  {"speck.View.from 'from'", {"atomic", "init", "label", "layout", "random_access", "restrict",
                              "space"},
   function(o) return speck.View.from({1, 2}, "float64", o) end},
  {"speck.io.load_npy '" .. TMP .. "'", {"label", "layout", "space"},
   function(o) return speck.io.load_npy(TMP, o) end},
  {"speck.io.save_npy '" .. TMP .. "'", {},
   function(o) speck.io.save_npy(TMP, x, o) end},
  {"speck.progress", {"delay", "interval", "mode"},
   function(o) return speck.progress(o) end, {mode = "auto"}},
  {"speck.sort", {"algorithm", "comparator", "descending"},
   function(o) return speck.sort(x, o) end},
  {"speck.sort_by_key", {"algorithm", "comparator", "descending"},
   function(o) return speck.sort_by_key(x, speck.View("w", "int64", 4), o) end},
  {"speck.UnorderedMap", {"capacity", "key", "value"},
   function(o) return speck.UnorderedMap(o) end, {capacity = 16}},
  -- sparse
  {"speck.sparse.from_coo", {"dtype", "sort", "space", "sum_duplicates"},
   function(o) return sparse.from_coo(2, 2, {0}, {0}, {1.0}, o) end},
  {"speck.sparse.read_mm", {"dtype", "space"},
   function(o) return sparse.read_mm(TMP, o) end},
  {"speck.sparse.write_mm", {"field", "format", "symmetry"},
   function(o) return sparse.write_mm(TMP, A, o) end},
  {"speck.sparse.spmv", {"algorithm"},
   function(o) return sparse.spmv("N", 1, A, speck.View("v", "float64", 2), 0,
                                  speck.View("y", "float64", 2), o) end},
  {"speck.sparse.cg", {"maxiter", "tol", "x0"},
   function(o) return sparse.cg(A, speck.View("b", "float64", 2), o) end},
  {"speck.sparse.spgemm_symbolic", {"algorithm"},
   function(o) return sparse.spgemm_symbolic(A, A, o) end},
  {"speck.sparse.spgemm_numeric", {"algorithm"},
   function(o)
     local h, C = sparse.spgemm_symbolic(A, A)
     return sparse.spgemm_numeric(h, A, A, C, o)
   end},
  {"speck.sparse.spgemm", {"algorithm"},
   function(o) return sparse.spgemm(A, A, o) end},
  {"speck.sparse.sptrsv_symbolic", {"algorithm", "diag", "uplo"},
   function(o) return sparse.sptrsv_symbolic(A, o) end},
  {"speck.sparse.sptrsv_solve", {"trans"},
   function(o)
     return sparse.sptrsv_solve(sparse.sptrsv_symbolic(A), A, speck.View("b", "float64", 2),
                                speck.View("s", "float64", 2), o)
   end},
  {"speck.sparse.sptrsv", {"algorithm", "diag", "trans", "uplo"},
   function(o) return sparse.sptrsv(A, speck.View("b", "float64", 2),
                                    speck.View("s", "float64", 2), o) end},
  -- graph
  {"speck.graph.to", {"edges"}, function(o) return g:to(g:space(), o) end},
  {"speck.graph.from_edges", {"dedupe", "directed", "self_loops", "weights"},
   function(o) return graph.from_edges(2, {0}, {1}, o) end},
  {"speck.graph.from_matrix", {"dedupe", "directed", "self_loops", "weighted"},
   function(o) return graph.from_matrix(A, o) end},
  {"speck.graph.read", {"dedupe", "directed", "format", "names", "self_loops", "source", "target", "weight"},
   function(o) return graph.read(TMP, o) end},
  {"speck.graph.from_mesh", {"capacity", "nodes"},
   function(o) return graph.from_mesh({{0, 1, 2}}, o) end},
  {"speck.graph.kronecker", {"seed"}, function(o) return graph.kronecker(3, 2, o) end},
  {"speck.graph.erdos_renyi", {"seed"}, function(o) return graph.erdos_renyi(8, 8, o) end},
  {"speck.graph.bfs", {"direction_optimizing", "visitor"},
   function(o) return graph.bfs(g, 0, o) end},
  {"speck.graph.connected_components", {"algorithm"},
   function(o) return graph.connected_components(g, o) end},
  {"speck.graph.pagerank", {"damping", "dtype", "maxiter", "personalization", "tol"},
   function(o) return graph.pagerank(g, o) end},
  {"speck.graph.triangles", {"per_vertex"}, function(o) return graph.triangles(g, o) end},
  {"speck.graph.color", {"algorithm", "order"}, function(o) return graph.color(g, o) end},
  {"speck.graph.color_d2", {"algorithm"}, function(o) return graph.color_d2(g, o) end},
  {"speck.graph.color_bipartite", {"algorithm", "side"},
   function(o) return graph.color_bipartite(A, o) end},
  {"speck.graph.linear_recurrence", {"coeff", "op"},
   function(o) return graph.linear_recurrence(x, o) end},
  -- dense
  {"speck.blas.gemv", {"impl"}, function(o) blas.gemv("N", 1, M, x, 0, x, o) end},
  {"speck.blas.gemm", {"impl"}, function(o) blas.gemm("N", "N", 1, M, M, 0, M, o) end},
  {"speck.blas.syrk", {"impl"}, function(o) blas.syrk("L", "N", 1, M, 0, M, o) end},
  {"speck.blas.trsm", {"impl"}, function(o) blas.trsm("L", "L", "N", "N", 1, M, M, o) end},
  {"speck.blas.trmm", {"impl"}, function(o) blas.trmm("L", "L", "N", "N", 1, M, M, o) end},
  {"speck.blas.trtri", {"impl"}, function(o) blas.trtri("L", "N", M, o) end},
  {"speck.blas.potrf", {"impl"}, function(o) blas.potrf("L", M, o) end},
  {"speck.blas.getrf", {"impl"}, function(o) blas.getrf(M, x, o) end},
  {"speck.blas.getrs", {"impl"}, function(o) blas.getrs(M, x, M, o) end},
  {"speck.blas.gesv", {"impl"}, function(o) blas.gesv(M, M, o) end},
  {"speck.batched.gemm", {"impl", "mode", "stream"},
   function(o) batched.gemm("N", "N", 1, B3, B3, 0, B3, o) end},
  {"speck.batched.trsm", {"mode"},
   function(o) batched.trsm("L", "L", "N", "N", 1, B3, B3, o) end},
  {"speck.batched.trmm", {"mode"},
   function(o) batched.trmm("L", "L", "N", "N", 1, B3, B3, o) end},
  {"speck.batched.trtri", {"check", "info", "ipiv", "mode", "pivot"},
   function(o) return batched.trtri("L", "N", B3, o) end},
  {"speck.batched.lu", {"check", "info", "ipiv", "mode", "pivot"},
   function(o) return batched.lu(B3, o) end},
  {"speck.batched.gesv", {"check", "info", "ipiv", "mode", "pivot"},
   function(o) return batched.gesv(B3, B3, o) end},
  -- tasks
  {"speck.task.Scheduler", {"memory", "queue", "space"},
   function(o) return task.Scheduler(o) end},
  {"speck.task.MemoryPool", {"superblock"}, function(o) return task.MemoryPool(1 << 20, o) end},
  {"speck.task.Scheduler:spawn 'one'", {"priority", "team"},
   function(o)
     local s = task.Scheduler()
     return s:spawn(s:functor("one", {}, "int64", "task_return(1);"), {}, o)
   end},
}

-- a misspelling of the first documented key ("zz" when there is none)
local function typo(keys) return keys[1] and keys[1] .. keys[1]:sub(-1) or "zz" end

describe("one option checker", function()
  teardown(function() os.remove(TMP) end)

  for _, c in ipairs(CASES) do
    local name, keys, call, base = c[1], c[2], c[3], c[4]
    local function with(k, v)
      local o = {}
      for k2, v2 in pairs(base or {}) do o[k2] = v2 end
      o[k] = v
      return o
    end
    it(name .. " refuses a misspelled key", function()
      local bad = typo(keys)
      local valid = #keys > 0 and "(valid: " .. table.concat(keys, ", ") .. ")"
                    or "(it takes no options)"
      assert.are.equal(("%s: unknown option '%s' %s"):format(name, bad, valid),
                       err_of(call, with(bad, true)))
    end)
    it(name .. " accepts each documented key", function()
      for _, k in ipairs(keys) do
        local ok, e = pcall(call, with(k, (base or {})[k] or false))
        assert.is_nil(not ok and tostring(e):find("unknown option", 1, true) and e or nil)
      end
    end)
  end

  it("keeps the valid keys sorted in every case", function()
    for _, c in ipairs(CASES) do
      local s = {table.unpack(c[2])}
      table.sort(s)
      assert.are.same(s, c[2])
    end
  end)

  it("raises at the caller's line, from C and from Lua", function()
    local line = debug.getinfo(1, "l").currentline
    local ok1, e1 = pcall(function() speck.parallel_for("k", 4, {}, "", {jitt = "tcc"}) end)
    local ok2, e2 = pcall(function() sparse.spmv("N", 1, A, x, 0, x, {algo = "x"}) end)
    local ok3, e3 = pcall(function() speck.RangePolicy(0, 4, {chunks = 2}) end)
    local ok4, e4 = pcall(function() blas.gemm("N", "N", 1, M, M, 0, M, {imp = 1}) end)
    local ok5, e5 = pcall(function() graph.bfs(g, 0, {dir = true}) end)
    for i, e in ipairs{e1, e2, e3, e4, e5} do
      assert.is_false(({ok1, ok2, ok3, ok4, ok5})[i])
      assert.are.equal("options_spec.lua:" .. (line + i) .. ": ",
                       e:match("options_spec%.lua:%d+: "))
    end
  end)

  it("names a key that is not a string", function()
    assert.are.equal("speck.RangePolicy: unknown option '1' (valid: chunk, schedule, space)",
                     err_of(speck.RangePolicy, 0, 4, {"static"}))
  end)

  it("leaves the VM usable", function()
    pcall(speck.parallel_for, "k", 4, {x = x}, "x(i) = 1;", {jitt = "tcc"})
    speck.parallel_for("k", 4, {x = x}, "x(i) = 2;", {jit = "tcc"})
    assert.are.equal(2, x[3])
  end)
end)

-- remote.View: the C function (vm/lremote.c) checks its options before it
-- needs MPI; speck.remote itself (which starts MPI and adds the 'remote'
-- space to this process) is remote_spec's
describe("remote.View options", function()
  it("refuses a misspelled key", function()
    local rv = require("speck.core").remote.View
    assert.are.equal("remote.View 'r': unknown option 'layoutt' (valid: atomic, layout, space)",
                     err_of(rv, "r", "float64", 4, {layoutt = "blocked"}))
    for _, k in ipairs{"atomic", "layout", "space"} do
      local ok, e = pcall(rv, "r", "float64", 4, {[k] = false})
      assert.is_nil(not ok and tostring(e):find("unknown option", 1, true) and e or nil)
    end
  end)
end)
