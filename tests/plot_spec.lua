-- plot_spec.lua: scripts/bench/plot renders docs/bench.md's tables with
-- gnuplot (SVG and PNG), and says why when there is nothing to plot.
local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

describe("scripts/bench/plot", function()
  local dir
  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
  end)
  after_each(function() os.execute("rm -rf " .. quote(dir)) end)

  it("draws every table of docs/bench.md that has a ratio column", function()
    if select(2, sh("command -v gnuplot")) ~= 0 then return pending("no gnuplot") end
    if not slurp("docs/bench.md") then return pending("no docs/bench.md here (a bundle)") end
    local out, code = sh("scripts/bench/plot docs/bench.md " .. quote(dir))
    assert.are.equal(0, code, out)
    for _, name in ipairs {"core", "teams", "gpu"} do
      assert.truthy(out:find(dir .. "/bench-" .. name .. ".svg\n", 1, true), out)
      local svg = slurp(dir .. "/bench-" .. name .. ".svg")
      assert.truthy(svg and svg:find("<svg", 1, true), name)
      local png = slurp(dir .. "/bench-" .. name .. ".png")
      assert.are.equal("\137PNG", png and png:sub(1, 4), name)
    end
    -- one bar per row, labelled with the speck variant and the peer
    local svg = slurp(dir .. "/bench-core.svg")
    assert.truthy(svg:find("axpy y = a*x + y [speck-cc vs Numba]", 1, true))
    assert.truthy(svg:find("14.73", 1, true))
  end)

  it("fails with a message when there is nothing to plot", function()
    if not slurp("scripts/bench/plot") then return pending("no scripts/ here (a bundle)") end
    local md = os.tmpname()
    local f = assert(io.open(md, "w"))
    f:write("# notes\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n")
    f:close()
    local out, code = sh("scripts/bench/plot " .. quote(md) .. " " .. quote(dir))
    os.remove(md)
    assert.are.equal(1, code)
    assert.are.equal("plot: no table with a ratio column in " .. md .. "\n", out)
    out, code = sh("scripts/bench/plot /nonexistent.md " .. quote(dir))
    assert.are.equal(1, code)
    assert.are.equal("plot: cannot open /nonexistent.md\n", out)
  end)
end)
