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

  it("draws the library's and the solvers' tables too (bench-library.md, bench-solvers.md)", function()
    if select(2, sh("command -v gnuplot")) ~= 0 then return pending("no gnuplot") end
    if not slurp("docs/bench-library.md") then return pending("no docs/ here (a bundle)") end
    for file, name in pairs {["docs/bench-library.md"] = "graph", ["docs/bench-solvers.md"] = "solve"} do
      local out, code = sh("scripts/bench/plot " .. file .. " " .. quote(dir))
      assert.are.equal(0, code, out)
      assert.truthy(out:find(dir .. "/bench-" .. name .. ".svg\n", 1, true), out)
    end
  end)

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

  it("runs nothing a table says: backquotes, $(...) and quotes are drawn as text", function()
    if not slurp("scripts/bench/plot") then return pending("no scripts/ here (a bundle)") end
    if select(2, sh("command -v gnuplot")) ~= 0 then return pending("no gnuplot") end
    local mark = os.tmpname()
    os.remove(mark)
    local evil = "`touch " .. mark .. "1` $(touch " .. mark .. "2) 'q' \"dq\" \\ @m"
    local md = os.tmpname()
    local f = assert(io.open(md, "w"))
    f:write("## core `touch " .. mark .. "3`\n\n### " .. evil .. "\n\n",
            "| kernel | speck | peer | ratio |\n| --- | --- | --- | ---: |\n",
            "| k1 " .. evil .. " | cc $(touch " .. mark .. "4) | gcc`touch " .. mark .. "5` | 2.5 |\n",
            "| k2 'a''b\" | tcc | x | 0.5 |\n")
    f:close()
    -- the output directory's name is data too
    local out_dir = dir .. "/o`touch " .. mark .. "6`$(touch " .. mark .. "7)'\""
    local out, code = sh("scripts/bench/plot " .. quote(md) .. " " .. quote(out_dir))
    os.remove(md)
    for k = 1, 7 do
      assert.is_nil(io.open(mark .. k), "ran the text of a table: " .. mark .. k)
    end
    assert.are.equal(0, code, out)
    assert.are.equal(out_dir .. "/bench-core.svg\n" .. out_dir .. "/bench-core.png\n", out)
    local svg = assert(slurp(out_dir .. "/bench-core.svg"))
    -- the title and labels as written (Markdown's code quotes dropped)
    local shown = "touch " .. mark .. "1 $(touch " .. mark .. "2) 'q' \"dq\" \\ @m"
    local function esc(s) return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end
    local function has(s)
      return svg:find(s, 1, true) or svg:find(esc(s), 1, true)
        or svg:find((esc(s):gsub("'", "&apos;"):gsub('"', "&quot;")), 1, true)
    end
    assert.truthy(has("speck against its peers: core, " .. shown), svg)
    assert.truthy(has("k1 touch " .. mark .. "1 $(touch " .. mark .. "2) 'q'"), svg)
    assert.truthy(has("k2 'a''b\" [tcc vs x]"), svg)
    assert.are.equal("\137PNG", (slurp(out_dir .. "/bench-core.png") or ""):sub(1, 4))
  end)
end)
