-- aggregate_spec.lua: aggregate scalar types (seed 004 §3.3), run once per
-- back end (SPECK_SPACE).
--
--   speck.dtype.fad(N)       forward-mode AD: value and N derivatives
--   speck.dtype.ensemble(N)  an ensemble of N values
--
-- as view element types (the components of an element contiguous, the
-- user dimensions in layout right), element access from Lua (a table of
-- the components), arithmetic in kernel bodies through dialect functions
-- (fad_add, fad_mul, fad_sqrt, ..., ens_add, ...), sum reductions over
-- them, deep_copy, subviews and mirrors; the CUDA generator's source
-- compiles with NVRTC; bad input.
local speck = require "speck"

local DEFAULT = speck.View("probe", "float64", 1):space()
local HOST_OK = {host = true, cuda_pinned = true, cuda_uvm = true}
local HS = HOST_OK[DEFAULT] and DEFAULT or "host"
local INFO = speck.info()
local NVRTC = INFO.compilers.nvrtc and INFO.compilers.nvrtc.available

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

local function assert_error(msg, f, ...)
  assert.are.equal(msg, err_of(f, ...))
end

local function near(want, got, tol)
  tol = tol or 1e-12
  assert(math.abs(want - got) <= tol * math.max(1, math.abs(want)),
         ("expected %.17g, got %.17g"):format(want, got))
end

local FAD2 = speck.dtype.fad(2)

describe("aggregate scalar types on " .. DEFAULT, function()
  describe("views", function()
    it("speck.dtype.fad and ensemble name the types", function()
      assert.are.equal("fad(8)", speck.dtype.fad(8))
      assert.are.equal("ensemble(16)", speck.dtype.ensemble(16))
      assert.are.equal("float64", speck.dtype.float64)
      local X = speck.View("X", speck.dtype.fad(3), {4, 5}, {space = HS})
      assert.are.equal(2, X:rank())
      assert.are.same({4, 5}, X:extents())
      assert.are.equal(20, X:size())
      assert.are.equal(20, #X)
      assert.are.equal("fad(3)", X:dtype())
      assert.are.equal("right", X:layout())
      assert.are.equal("View<fad(3)[4][5], right, " .. HS .. "> 'X'", tostring(X))
      -- the components of an element are contiguous: strides count them
      assert.are.same({20, 4}, X:strides())
      assert.are.equal(1, X:extent(2))
      assert.are.equal(80, X:span())
    end)

    it("element access from Lua: tables of components, numbers", function()
      local X = speck.View("X", FAD2, 3, {space = HS})
      assert.are.same({0, 0, 0}, X(1))
      X:set(1, {1.5, 2, 3})
      assert.are.same({1.5, 2, 3}, X(1))
      X[2] = 7                    -- a number: the value, derivatives 0
      assert.are.same({7, 0, 0}, X(2))
      local E = speck.View("E", speck.dtype.ensemble(3), {2, 2}, {space = HS})
      E:set(1, 0, 4)              -- a number: every member
      assert.are.same({4, 4, 4}, E(1, 0))
      assert.are.same({{{0, 0, 0}, {0, 0, 0}}, {{4, 4, 4}, {0, 0, 0}}}, E:totable())
      -- the memory: element i at components [i * 3, i * 3 + 3)
      local F = speck.View("flat", "float64", 9, {data = X})
      assert.are.same({0, 0, 0, 1.5, 2, 3, 7, 0, 0}, F:totable())
    end)

    it("fill and deep_copy with a scalar: fad gets the value, an ensemble every member", function()
      local X = speck.View("X", FAD2, 4, {space = HS})
      X:set(0, {9, 9, 9})
      X:fill(2)
      assert.are.same({2, 0, 0}, X(0))
      speck.deep_copy(X, 5)
      assert.are.same({5, 0, 0}, X(3))
      local E = speck.View("E", speck.dtype.ensemble(2), 3, {space = HS})
      speck.deep_copy(E, -1)
      assert.are.same({{-1, -1}, {-1, -1}, {-1, -1}}, E:totable())
    end)

    it("subviews, mirrors and deep_copy keep the type", function()
      local X = speck.View("X", FAD2, {3, 4}, {space = HS})
      for i = 0, 2 do for j = 0, 3 do X:set(i, j, {i, j, i * j}) end end
      local row = speck.subview(X, 2, speck.ALL)
      assert.are.equal("fad(2)", row:dtype())
      assert.are.same({4}, row:extents())
      assert.are.same({2, 3, 6}, row(3))
      local D = speck.View("D", FAD2, {3, 4})   -- the default space
      speck.deep_copy(D, X)
      local M = speck.create_mirror_view_and_copy(HS, D)
      assert.are.equal("fad(2)", M:dtype())
      assert.are.same({1, 2, 2}, M(1, 2))
      local col = speck.subview(X, speck.ALL, 1)
      local C = speck.View("C", FAD2, 3, {space = HS})
      speck.deep_copy(C, col)
      assert.are.same({2, 1, 2}, C(2))
    end)
  end)

  it("save_npy writes the components as the last axis", function()
    local X = speck.View("X", FAD2, {2, 3}, {space = HS})
    X:set(1, 2, {1, 2, 3})
    local path = os.tmpname()
    speck.io.save_npy(path, speck.subview(X, speck.ALL, 2))   -- strided: through a copy
    local Y = speck.io.load_npy(path, {space = HS})
    os.remove(path)
    assert.are.equal("float64", Y:dtype())
    assert.are.same({2, 3}, Y:extents())
    assert.are.same({{0, 0, 0}, {1, 2, 3}}, Y:totable())
  end)

  describe("kernels", function()
    -- f and its derivative for each one-argument function
    local UNARY = {
      {"fad_sqrt", math.sqrt, function(x) return 0.5 / math.sqrt(x) end},
      {"fad_exp", math.exp, math.exp},
      {"fad_log", math.log, function(x) return 1 / x end},
      {"fad_sin", math.sin, math.cos},
      {"fad_cos", math.cos, function(x) return -math.sin(x) end},
      {"fad_tanh", function(x) return (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1) end,
                   function(x) local t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1) return 1 - t * t end},
      {"fad_neg", function(x) return -x end, function() return -1 end},
    }
    for _, tier in ipairs{"tcc", "cc"} do
      it("fad functions give values and derivatives (" .. tier .. ")", function()
        local n = 6
        local X = speck.View("X", FAD2, n, {space = HS})
        local Y = speck.View("Y", FAD2, n, {space = HS})
        -- x seeded in direction 0; direction 1 carries 3 * dx
        speck.parallel_for("ag_seed", n, {X = X},
                           "X(i) = fad2_var(0.25 + 0.5 * (double)i, 0); X(i).dx[1] = 3.0;",
                           {jit = tier})
        for _, u in ipairs(UNARY) do
          speck.parallel_for("ag_" .. u[1], n, {X = X, Y = Y}, "Y(i) = " .. u[1] .. "(X(i));",
                             {jit = tier})
          for i = 0, n - 1 do
            local x = 0.25 + 0.5 * i
            local y = Y(i)
            near(u[2](x), y[1])
            near(u[3](x), y[2])
            near(3 * u[3](x), y[3])
          end
        end
        -- binary and mixed: f(x) = (x * x - x / (x + 2)) * 1.5 + 4, then ^ 2.5
        speck.parallel_for("ag_bin", n, {X = X, Y = Y}, [[
          fad2 x = X(i);
          fad2 t = fad_sub(fad_mul(x, x), fad_div(x, fad_shift(x, 2.0)));
          Y(i) = fad_pow(fad_shift(fad_scale(t, 1.5), 4.0), 2.5);
          if (fad_val(Y(i)) != Y(i).val || fad_dx(Y(i), 1) != Y(i).dx[1]) Y(i).val = -1;
        ]], {jit = tier})
        for i = 0, n - 1 do
          local x = 0.25 + 0.5 * i
          local t = x * x - x / (x + 2)
          local dt = 2 * x - 2 / (x + 2) ^ 2
          local g = 1.5 * t + 4
          local y = Y(i)
          near(g ^ 2.5, y[1])
          near(2.5 * g ^ 1.5 * 1.5 * dt, y[2], 1e-11)
          near(3 * 2.5 * g ^ 1.5 * 1.5 * dt, y[3], 1e-11)
        end
      end)

      it("ensemble functions act member by member (" .. tier .. ")", function()
        local E = speck.View("E", speck.dtype.ensemble(4), {3, 2}, {space = HS})
        local R = speck.View("R", speck.dtype.ensemble(4), {3, 2}, {space = HS})
        speck.parallel_for("ag_ens_init", speck.MDRangePolicy({0, 0}, {3, 2}), {E = E}, [[
          for (int k = 0; k < 4; k++) E(i, j).v[k] = 1.0 + i + 0.5 * j + 0.25 * k;
        ]], {jit = tier})
        speck.parallel_for("ag_ens", speck.MDRangePolicy({0, 0}, {3, 2}), {E = E, R = R}, [[
          ens4 a = E(i, j);
          ens4 b = ens_add(ens_mul(a, a), ens_div(ens_sqrt(a), ens4_const(2.0)));
          b = ens_sub(ens_scale(ens_exp(ens_log(b)), 2.0), ens_neg(ens_shift(ens_pow(a, 2.0), 1.0)));
          R(i, j) = ens_add(b, ens_sin(ens_cos(ens_tanh(ens4_const(0.0)))));
        ]], {jit = tier})
        for i = 0, 2 do for j = 0, 1 do
          local r = R(i, j)
          for k = 0, 3 do
            local a = 1 + i + 0.5 * j + 0.25 * k
            near(2 * (a * a + math.sqrt(a) / 2) + a * a + 1 + math.sin(1), r[k + 1])
          end
        end end
      end)
    end

    it("sum reductions over fad and ensemble values", function()
      local n = 1000
      local X = speck.View("X", speck.dtype.fad(8), n)   -- the default space
      speck.parallel_for("ag_red_init", n, {X = X}, "X(i) = fad8_var((double)i, i % 8);")
      local s = speck.parallel_reduce("ag_red", n, {X = X}, "acc = fad_add(acc, fad_mul(X(i), X(i)));",
                                      {op = "sum", dtype = speck.dtype.fad(8)})
      -- sum i^2, d/dx_k sum over i with i % 8 == k of 2 i
      local want = {0, 0, 0, 0, 0, 0, 0, 0, 0}
      for i = 0, n - 1 do
        want[1] = want[1] + i * i
        want[2 + i % 8] = want[2 + i % 8] + 2 * i
      end
      assert.are.same(want, s)
      local e, c = speck.parallel_reduce("ag_red2", 10, {}, [[
        acc0 = ens_add(acc0, ens3_const((double)i)); acc1 += 1;
      ]], {{op = "sum", dtype = speck.dtype.ensemble(3)}, {op = "sum", dtype = "int64"}})
      assert.are.same({45, 45, 45}, e)
      assert.are.equal(10, c)
    end)

    it("an MDRange over a rank-2 fad view and a team kernel", function()
      local A = speck.View("A", FAD2, {4, 5})
      speck.parallel_for("ag_md", speck.MDRangePolicy({0, 0}, {4, 5}), {A = A},
                         "A(i, j) = fad_scale(fad2_var((double)(i + j), 1), 2.0);")
      speck.parallel_for("ag_team", speck.TeamPolicy(4, "auto"), {A = A}, [[
        const int64_t i = team.league_rank;
        TEAM_FOR(j, 0, 5) { A(i, j).dx[0] = A(i, j).val + 1.0; }
      ]])
      local H = speck.create_mirror_view_and_copy(HS, A)
      assert.are.same({14, 15, 2}, H(3, 4))
    end)

    it("bounds checks name the view and the index", function()
      local X = speck.View("X", FAD2, 4, {space = HS})
      local e = err_of(speck.parallel_for, "ag_oob", 5, {X = X}, "X(i).val = 1;",
                       {bounds_check = true})
      assert.truthy(e:find("view 'X' (capture 'X'): index 0 is 4, out of range [0, 4) (bounds check)", 1, true), e)
    end)
  end)

  describe("bad input", function()
    it("refuses N = 0, absurd N and non-integers", function()
      assert_error("speck.dtype.fad: N must be an integer from 1 to 64 (got 0)", speck.dtype.fad, 0)
      assert_error("speck.dtype.fad: N must be an integer from 1 to 64 (got 1000000)", speck.dtype.fad, 1000000)
      assert_error("speck.dtype.ensemble: N must be an integer from 1 to 64 (got 2.5)", speck.dtype.ensemble, 2.5)
      assert_error("speck.dtype.ensemble: N must be an integer from 1 to 64 (got 'x')", speck.dtype.ensemble, "x")
      assert_error("speck.View 'X': dtype 'fad(0)': N must be an integer from 1 to 64",
                   speck.View, "X", "fad(0)", 3)
      assert_error("speck.View 'X': dtype 'ensemble(65)': N must be an integer from 1 to 64",
                   speck.View, "X", "ensemble(65)", 3)
      assert_error("speck.View 'X': unknown dtype 'fad(x)'", speck.View, "X", "fad(x)", 3)
    end)
    it("refuses other layouts and too many dimensions", function()
      assert_error("speck.View 'X': fad(2) views have layout right (the components of an element are contiguous); layout left is not available",
                   speck.View, "X", FAD2, {2, 2}, {layout = "left"})
      assert_error("speck.View 'X': fad(2) views have layout right (the components of an element are contiguous); layout tiled is not available",
                   speck.View, "X", FAD2, {2, 2}, {layout = {tile = {2, 2}}})
      assert_error("speck.View 'X': rank 8 exceeds the maximum 7 for ensemble(2) views",
                   speck.View, "X", speck.dtype.ensemble(2), {1, 1, 1, 1, 1, 1, 1, 1})
    end)
    it("refuses bad element values and mixed deep_copy", function()
      local X = speck.View("X", FAD2, 3, {space = HS})
      assert_error("View 'X': cannot store a table in fad(2) (a number, or a table of 3 numbers)",
                   X.set, X, 0, {1, 2})
      assert_error("View 'X': cannot store 'a' in fad(2) (a number, or a table of 3 numbers)",
                   X.set, X, 0, "a")
      assert_error("View 'X': rank 1, indexed with 2 indices", X, 0, 0)
      local P = speck.View("P", "float64", {3, 3}, {space = HS})
      assert_error("speck.deep_copy: dtypes differ: 'X' is fad(2), 'P' is float64 (deep_copy does not convert)",
                   speck.deep_copy, X, P)
      local E = speck.View("E", speck.dtype.ensemble(2), 3, {space = HS})
      assert_error("speck.deep_copy: dtypes differ: 'E' is ensemble(2), 'X' is fad(2) (deep_copy does not convert)",
                   speck.deep_copy, E, X)
    end)
    it("refuses reducers other than sum, the atomic trait, reserved names", function()
      local e = err_of(speck.parallel_reduce, "ag_bad", 3, {}, "acc = acc;",
                       {op = "max", dtype = FAD2})
      assert.truthy(e:find("reducer 'max' is not defined for fad(2) (aggregate types reduce with 'sum')", 1, true), e)
      e = err_of(speck.parallel_reduce, "ag_bad2", 3, {}, "acc = acc;",
                 {op = "sum", dtype = "fad(99)"})
      assert.truthy(e:find("reducer: dtype fad(99): N must be an integer from 1 to 64", 1, true), e)
      local A = speck.View("A", FAD2, 3, {space = HS, atomic = true})
      e = err_of(speck.parallel_for, "ag_at", 3, {A = A}, "A(i).val = 1;")
      assert.truthy(e:find("view 'A' (capture 'A'): the atomic trait is not available for aggregate element types", 1, true), e)
      local X = speck.View("X", FAD2, 3, {space = HS})
      e = err_of(speck.parallel_for, "ag_res", 3, {fad2 = X}, "(void)0;")
      assert.truthy(e:find("fad2", 1, true), e)
    end)
  end)

  describe("CUDA code generation", function()
    if not NVRTC then
      pending("libnvrtc is not available here")
      return
    end
    local n = 0
    local function cuda_compile(pk, caps, body, opts)
      n = n + 1
      local label = "ag_cuda_" .. n
      opts = opts or {}
      opts.target = "cuda"
      speck.kernel(label, pk, caps, body, opts)
      for _, k in ipairs(speck.jit.stats().per_kernel) do
        if k.label == label then return k, speck.jit.source(label) end
      end
    end
    it("fad and ensemble kernels compile with NVRTC (overloaded functions)", function()
      local X = speck.View("X", speck.dtype.fad(8), 16, {space = "host"})
      local E = speck.View("E", speck.dtype.ensemble(16), {16, 4},
                           {space = "host", random_access = true})
      local k, src = cuda_compile("range", {X = X, E = E}, [[
        fad8 x = X(i);
        X(i) = fad_mul(fad_exp(x), fad_div(fad8_var(2.0, 1), fad_sqrt(x)));
        X(i) = fad_add(fad_sub(fad_neg(X(i)), fad_scale(x, 2.0)), fad_pow(fad_shift(x, 1.0), 1.5));
        X(i) = fad_add(X(i), fad_log(fad_sin(fad_cos(fad_tanh(x)))));
        X(i).val += fad_val(x) + fad_dx(x, 2) + E(i, 0).v[3];
        ens16 q = ens_add(E(i, 1), ens16_const(1.0));
        X(i).dx[0] = ens_sqrt(ens_mul(q, q)).v[0];
      ]])
      assert.are.equal("nvrtc", k.tier)
      assert.truthy(src:find("fad8 fad_add(fad8 a, fad8 b)", 1, true), src)
      local k2 = cuda_compile("mdrange2", {E = E}, "acc = ens_add(acc, E(i, j));",
                              {pattern = "reduce", reducer = {op = "sum", dtype = speck.dtype.ensemble(16)}})
      assert.are.equal("nvrtc", k2.tier)
      local k3 = cuda_compile("range", {X = X}, "acc0 = fad_add(acc0, X(i)); acc1 += X(i).val;",
                              {pattern = "reduce", bounds_check = true,
                               reducer = {{op = "sum", dtype = speck.dtype.fad(8)}, "sum"}})
      assert.are.equal("nvrtc", k3.tier)
    end)
  end)
end)
