-- speck/dist.lua: distributed sparse matrices, vectors, solvers and graphs
-- over the ranks of an MPI job (host ranks; `mpirun -np N speck script.lua`).
-- Rows (vertices) are split over the ranks by a row map -- contiguous
-- blocks in rank order (the default) or a partition vector; each rank
-- holds its own rows and the halo (the remote entries its rows reference),
-- nothing more, except gather(). The MPI side is speck.core.dist
-- (vm/ldist.c over backends/dist): halo plans built once from a matrix's
-- column indices and replayed by MPI_Ineighbor_alltoallv, agreement
-- checks before collective calls, allgather(v) and alltoallv. The local
-- work is the library's: sparse.spmv on the local interior and boundary
-- blocks, blas dot/axpy, and kernels in the dialect for the graph steps.
--
--   dist.map(n [, {partition = p}])   dist.read_mm(path)   dist.from_local(m, n, first_row, A)
--   dist.assemble(m, n, rows, cols, vals)   dist.vector(A | map [, value])
--   x:local_view() x:local_range() x:local_ids() x:gather()
--   dist.spmv(alpha, A, x, beta, y)  dist.dot(x, y)  dist.norm2(x)  dist.axpy(a, x, y)
--   dist.cg(A, b [, opts])  dist.gmres(A, b [, opts])  dist.amg(A [, opts]) (speck/dist_amg.lua)
--   dist.read_graph(path [, opts])  dist.from_edges(nv, src, dst)  dist.bfs(g, s)
--   dist.connected_components(g)  dist.pagerank(g [, opts])  dist.triangles(g)
local speck = require "speck"
local remote = require "speck.remote" -- starts MPI
local sparse = require "speck.sparse"
local blas = require "speck.blas"
local c = require("speck.core").dist

local dist = {}
local user_level, fail = require("speck.raise")("speck.dist.")
local check_options = require "speck.opts"
-- the kernel bodies: kernels/dist/dist.sk
local text = require "speck.ktext"
local function check_opts(fname, opts, keys)
  local o = check_options("speck.dist." .. fname, opts, keys, user_level())
  return o
end

-- where the distributed objects live: the running back end's memory (DEV).
-- On a GPU back end (one rank per GPU, or ranks sharing one) vectors, the
-- matrices' blocks and the halos are device views and every step is a
-- device kernel; what a rank builds once (maps, the split into interior
-- and boundary blocks, the halo plans) is made in host memory (its
-- kernels through hfor: on a device, over copies) and moved over. Any
-- memory but the host's counts as a device's (managed memory too: the
-- host reads it only after the device's work). 'stage': halo values
-- travel through host buffers (packed on the device, exchanged by MPI,
-- copied back) -- on a device without the one-sided transport;
-- SPECK_DIST_STAGE=1 takes that path on host ranks too (the tests check
-- it there).
do
  local t = os.getenv("SPECK_DIST_TRANSPORT")
  if t and t ~= "" and t ~= "mpi" and t ~= "onesided" then
    error(("speck.dist: SPECK_DIST_TRANSPORT is '%s': 'mpi' or 'onesided' (or unset)"):format(t), 2)
  end
end
local DEV = speck.View("dist_probe", "float64", 0):space()
local dev = DEV ~= "host"
local stage = dev or os.getenv("SPECK_DIST_STAGE") == "1"
-- SPECK_DIST_NODIA=1: dist.cg's interior SpMV by the matrix's index only,
-- never by diagonals (kernels/dist/cg.h), to compare the two
local nodia = os.getenv("SPECK_DIST_NODIA") == "1"
local HOST = {space = "host"}
local function hview(label, dt, n) return speck.View(label, dt, n, HOST) end
-- v itself in host memory, else a host copy (after the device's work)
local function tohost(v)
  if v:space() == "host" then return v end
  local h = speck.create_mirror("host", v)
  speck.deep_copy(h, v)
  return h
end
-- v itself in the back end's memory, else a copy there
local function todev(v)
  if v:space() == DEV then return v end
  return speck.create_mirror_view_and_copy(DEV, v)
end
local function crs_host(A) return A:space() == "host" and A or A:to("host") end
-- a kernel over host views (the set-up's): on a host back end as it is; on
-- a device the host views it captures go over, it runs there, and (a
-- parallel_for's) come back
local function hlaunch(launch, back, label, n, caps, body, ...)
  if not dev then return launch(label, n, caps, body, ...) end
  local dc = {}
  for k, v in pairs(caps) do
    dc[k] = (type(v) == "userdata" and v:space() == "host") and todev(v) or v
  end
  local r = table.pack(launch(label, n, dc, body, ...))
  if back then
    for k, v in pairs(caps) do if dc[k] ~= v then speck.deep_copy(v, dc[k]) end end
  end
  return table.unpack(r, 1, r.n)
end
local function hfor(...) return hlaunch(speck.parallel_for, true, ...) end
local function hreduce(...) return hlaunch(speck.parallel_reduce, false, ...) end
-- a CrsMatrix over views in the back end's memory (host views copied over
-- first: the library's check runs where the back end runs)
local function crs_of(m, n, rp, ci, va)
  return sparse.CrsMatrix{nrows = m, ncols = n, rowptr = todev(rp), colidx = todev(ci),
                          values = todev(va)}
end
-- from_coo into the back end's memory, duplicates summed
local function coo(m, n, R, C, V)
  return sparse.from_coo(m, n, R, C, V, {sum_duplicates = true, space = dev and DEV or nil})
end

local me, np = remote.rank(), remote.size()
dist.rank, dist.size, dist.barrier = remote.rank, remote.size, remote.barrier

-- -- agreement: every collective entry point first agrees with the other
-- ranks on what it is called with (an allreduce of a small descriptor),
-- so a disagreement is the same error on every rank, never a hang
local function agree(fname, desc, names)
  local msg = c.agree("speck.dist." .. fname, desc, names)
  if msg then error(msg, user_level()) end
end

-- the argument checks 'check' of a collective call, then agree(): a
-- rank whose arguments are wrong joins the agreement with a flag instead of
-- raising alone (which would leave the others waiting), and every rank
-- raises the message of the lowest failing rank. 'descf' gives the
-- descriptor once the checks passed.
local function agree_checked(fname, check, descf, names)
  local ok, err = pcall(check)
  local desc = {ok and 0 or 1}
  local nm = {"the argument checks"}
  for k, v in ipairs(ok and descf() or {}) do desc[k + 1] = v end
  for k, v in ipairs(names) do nm[k + 1] = v end
  for k = #desc + 1, #nm do desc[k] = 0 end
  local msg = c.agree("speck.dist." .. fname, desc, nm)
  if msg then
    local first = c.consensus(not ok and tostring(err) or nil)
    error(first or msg, user_level())
  end
  if not ok then error(tostring(err), user_level()) end
end

-- run f(); if it fails on any rank, every rank raises the first failing
-- rank's message (a rank that fails alone would leave the others waiting)
local function together(f, ...)
  local r = table.pack(pcall(f, ...))
  local msg = c.consensus(not r[1] and tostring(r[2]) or nil)
  if msg then error(msg, user_level()) end
  return table.unpack(r, 2, r.n)
end
local function lfail(fname, fmt, ...)  -- a local failure, raised inside together()
  error(("speck.dist.%s: " .. fmt):format(fname, ...), 0)
end

-- -- maps -----------------------------------------------------------------------------
local Map = {}
Map.__index = Map
local next_id = 0
local function new_id() next_id = next_id + 1 return next_id end

local function blocks(fname, n)
  if n < np then
    fail(fname, "%d ranks but only %d rows: every rank needs at least one row (run with at most %d ranks)",
         np, n, n)
  end
  local off = {}
  for r = 0, np do off[r + 1] = (r * n) // np end
  return off
end

local function map_from_offsets(n, off)
  local m = setmetatable({n = n, off = off, kind = "blocks", id = new_id()}, Map)
  m.c = c.map(n, off)
  m.b, m.e = off[me + 1], off[me + 2]
  m.nloc = m.e - m.b
  return m
end

-- map(n [, {partition = p}]): contiguous blocks in rank order, or the
-- owner of each global index given by 'p' (an int32/int64 view or Lua
-- array of n ranks, the same on every rank)
function dist.map(n, opts)
  local f = "map"
  opts = check_opts(f, opts, {"partition"})
  if math.type(n) ~= "integer" or n < 0 then fail(f, "n must be a non-negative integer, got %s", tostring(n)) end
  agree(f, {n, opts.partition and 1 or 0}, {"n", "partition"})
  if not opts.partition then return map_from_offsets(n, blocks(f, n)) end
  local p, p_given = opts.partition, opts.partition
  -- every rank must pass the same partition: agree on its length and a
  -- checksum first, so the checks below fail alike on every rank
  local len, sum = together(function()
    if type(p) == "table" then
      p = #p > 0 and speck.View.from(p, "int64", HOST) or hview("partition", "int64", 0)
    elseif type(p) ~= "userdata" or (p:dtype() ~= "int64" and p:dtype() ~= "int32") then
      lfail(f, "partition must be an int32/int64 view or a Lua array of ranks, got %s",
            type(p) == "userdata" and "a " .. p:dtype() .. " view" or type(p))
    else
      p = tohost(p)
    end
    return p:extent(0), hreduce("dist_part_sum", p:extent(0), {p = p},
      text("dist_part_sum"), {op = "sum", dtype = "int64"})
  end)
  agree(f, {len, sum}, {"the partition's length", "the partition's checksum"})
  if len ~= n then
    fail(f, "partition has %d entries, the map has %d indices", len, n)
  end
  -- every owner in [0, np), every rank owning at least one index
  local i = hreduce("dist_part_check", n, {p = p, np = np},
    text("dist_part_check"), {op = "min", dtype = "int64"})
  if i < n then
    fail(f, "partition[%d] (from 0) is %d: an owner must be a rank in [0, %d)", i, p(i), np)
  end
  local counts = hview("counts", "int64", np)
  hfor("dist_part_count", n, {p = p, cnt = counts},
    text("dist_part_count"))
  for r = 0, np - 1 do
    if counts(r) == 0 then
      fail(f, "partition gives rank %d no index: every rank needs at least one (%d ranks, %d indices)",
           r, np, n)
    end
  end
  local nloc = counts(me)
  local ids = hview("local_ids", "int64", nloc)
  local k = 0
  for i = 0, n - 1 do
    if p(i) == me then ids[k] = i k = k + 1 end
  end
  -- part: the caller's vector (two maps of one vector are the same map)
  local m = setmetatable({n = n, kind = "partition", part = p_given, hpart = p, ids = ids,
                          nloc = nloc, id = new_id()}, Map)
  m.c = c.map(n, p, ids)
  return m
end

function Map:owner(g)
  if math.type(g) ~= "integer" or g < 0 or g >= self.n then
    fail("owner", "index %s is outside the map's [0, %d)", tostring(g), self.n)
  end
  return self.c:owner(g)
end
function Map:local_range()
  if self.kind ~= "blocks" then
    fail("local_range", "the map comes from a partition vector: its rows are not a range (use local_ids())")
  end
  return self.b, self.e
end
function Map:local_ids()
  if not self.ids then
    local ids = hview("local_ids", "int64", self.nloc)
    hfor("dist_iota", self.nloc, {v = ids, b = self.b}, text("dist_iota"))
    self.ids = ids
  end
  return self.ids
end
dist.Map = Map

-- -- vectors --------------------------------------------------------------------------
local Vec = {}
Vec.__index = Vec
local VMT = {__index = Vec, __name = "speck.dist.Vector"}
local function is_vec(x) return getmetatable(x) == VMT end

local function new_vec(map, v)
  return setmetatable({map = map, v = v or speck.View("dist_vector", "float64", map.nloc)}, VMT)
end

function Vec:local_view() return self.v end
function Vec:local_range() return self.map:local_range() end
function Vec:local_ids() return self.map:local_ids() end
function Vec:size() return self.map.n end
function Vec:map_of() return self.map end
-- gather([root]): the whole vector on every rank (the one call that
-- holds it), or on rank 'root' only (the others get nil)
function Vec:gather(root)
  local m = self.map
  if root ~= nil and (math.type(root) ~= "integer" or root < 0 or root >= np) then
    fail("gather", "root must be a rank in [0, %d), got %s", np, tostring(root))
  end
  agree("gather", {m.id, m.n, root or -1}, {"the vector's map", "its length", "root"})
  local counts = c.allgather(m.nloc)
  local here = root == nil or root == me
  -- a host view: on GPU ranks the local part comes over first
  local src = tohost(self.v)
  local out = here and hview("gathered", self.v:dtype(), m.n) or nil
  local function collect(src, dst)
    if root == nil then c.allgatherv(src, counts, dst) else c.gatherv(src, counts, dst, root) end
  end
  if m.kind == "blocks" then
    collect(src, out)
    return out
  end
  local tmp = here and hview("gathered_local", self.v:dtype(), m.n) or nil
  local ids = here and hview("gathered_ids", "int64", m.n) or nil
  collect(src, tmp)
  collect(m.ids, ids)
  if not here then return nil end
  hfor("dist_scatter", m.n, {o = out, t = tmp, ids = ids}, text("dist_scatter"))
  return out
end

-- vector(A | g | map [, value | local view]): a float64 vector over the
-- rows of a matrix (or a map); 'value' fills it
function dist.vector(A, value)
  local f = "vector"
  local map = A and (A.map or (getmetatable(A) == Map and A))
  if not map then fail(f, "expects a distributed matrix, graph or map, got %s", type(A)) end
  local x = new_vec(map)
  if type(value) == "number" then speck.deep_copy(x.v, value)
  elseif type(value) == "userdata" then
    if value:extent(0) ~= map.nloc then
      fail(f, "the local view has %d entries, this rank owns %d rows", value:extent(0), map.nloc)
    end
    speck.deep_copy(x.v, value)
  end
  return x
end

-- maps are the same when they are one object, or blocks of the same
-- offsets, or built from the same partition view
local function same_map(a, b)
  if a == b then return true end
  if a.n ~= b.n or a.kind ~= b.kind then return false end
  if a.kind == "partition" then return a.part == b.part end
  for r = 1, np + 1 do if a.off[r] ~= b.off[r] then return false end end
  return true
end

local function check_vec(fname, what, x, map)
  if not is_vec(x) then fail(fname, "%s must be a distributed vector, got %s", what, type(x)) end
  if map and not same_map(x.map, map) then
    fail(fname, "%s is a vector of another map (%d rows, map %d; expected %d rows, map %d)",
         what, x.map.n, x.map.id, map.n, map.id)
  end
end

local function ldot(x, y) return blas.dot(x.v, y.v) end
local function gdot(x, y) return remote.allreduce(ldot(x, y), "sum") end

function dist.dot(x, y)
  agree_checked("dot", function()
    check_vec("dot", "x", x)
    check_vec("dot", "y", y)
  end, function() return {x.map.id, y.map.id} end, {"x's map", "y's map"})
  check_vec("dot", "y", y, x.map)
  return gdot(x, y)
end
function dist.norm2(x)
  agree_checked("norm2", function() check_vec("norm2", "x", x) end,
                function() return {x.map.id} end, {"x's map"})
  return math.sqrt(gdot(x, x))
end
-- y = a*x + y (local: no communication)
function dist.axpy(a, x, y)
  check_vec("axpy", "x", x)
  check_vec("axpy", "y", y, x.map)
  blas.axpy(a, x.v, y.v)
end
function dist.scal(a, x) check_vec("scal", "x", x) blas.scal(a, x.v) end
function dist.copy(x, y) check_vec("copy", "x", x) check_vec("copy", "y", y, x.map) speck.deep_copy(y.v, x.v) end

-- -- matrices -------------------------------------------------------------------------
local DM = {}
DM.__index = DM
local DMT = {__index = DM, __name = "speck.dist.CrsMatrix"}
local function is_dm(A) return getmetatable(A) == DMT end

-- -- the halo transport -------------------------------------------------------------
-- Host ranks: MPI straight from the vectors ("mpi"). GPU ranks: with
-- NVSHMEM (speck.remote's remote views in GPU memory) and one GPU to each
-- rank, the sender's kernel stores each value into its receiver's part of
-- a remote receive buffer (over NVLink / peer access) and a remote.fence
-- completes the exchange ("nvshmem"); otherwise -- ranks sharing a GPU,
-- no NVSHMEM, or SPECK_DIST_TRANSPORT=mpi -- the values are packed on the
-- device, copied to host buffers, exchanged by MPI and copied back
-- ("mpi, staged through host memory"). SPECK_DIST_TRANSPORT=onesided on
-- host ranks takes the one-sided path over speck.remote's MPI windows
-- ("mpi one-sided windows": the tests check that path there). Picked
-- once, at the first matrix (collective), alike on every rank; the
-- remote views' space in 'onesided_space'.
local transport, onesided_space
local function pick_transport()
  if transport then return transport end
  transport = stage and "mpi, staged through host memory" or "mpi"
  local want = os.getenv("SPECK_DIST_TRANSPORT")
  if np == 1 or want == "mpi" then return transport end
  if not dev then
    if want == "onesided" then transport, onesided_space = "mpi one-sided windows", "host" end
    return transport
  end
  local rinfo = speck.info().spaces.remote or {}
  local ok = tostring(rinfo.info or ""):find("GPU memory: NVSHMEM %d") ~= nil
  -- one GPU to each rank: no node holds more ranks than GPUs
  ok = ok and c.node_ranks() <= #(speck.info().devices or {})
  if c.allreduce_int({ok and 1 or 0}, "min")[1] == 1 then
    -- remote.View fails alike on every rank (its own agreement) where
    -- NVSHMEM cannot start or a pair of GPUs cannot reach each other
    if pcall(remote.View, "dist_transport_probe", "float64", {np, 1},
             {layout = "partitioned", space = DEV}) then
      transport, onesided_space = "nvshmem", DEV
    end
  end
  return transport
end

-- per matrix and element type: the buffers of its exchanges
local function xbufs(A, dt)
  A._xb = A._xb or {}
  local b = A._xb[dt]
  if b then return b end
  b = {}
  local ns = A.plan:info().sent
  if A.onesided then
    if not A._put then
      local pe, off = A.plan:put_targets()
      A._put = {pe = todev(pe), off = todev(off)}
    end
    -- two receive buffers used in turn: a rank's stores into one cannot
    -- land before its receiver has read it (a fence between)
    local L = c.allreduce_int({math.max(A.nhalo, 1)}, "max")[1]
    local o = {layout = "partitioned", space = onesided_space}
    b.rb = {remote.View("dist_halo_recv", dt, {np, L}, o), remote.View("dist_halo_recv", dt, {np, L}, o)}
    b.turn = 0
  else
    b.sbuf = speck.View("halo_send", dt, ns)
    b.hsbuf = hview("halo_send_host", dt, ns)
    b.hhalo = hview("halo_host", dt, A.nhalo)
  end
  A._xb[dt] = b
  return b
end

-- start the exchange of x's entries the other ranks read into 'halo'
-- (this rank's, of A.nhalo); finish with xwait
local function xstart(A, x, halo)
  if not stage and not A.onesided then return A.plan:start(x, halo) end
  local b = xbufs(A, x:dtype())
  local ns = A.nsend
  if A.onesided then
    b.turn = 3 - (b.turn == 0 and 2 or b.turn)
    if ns > 0 then
      speck.parallel_for("dist_put", ns, {rb = b.rb[b.turn], pe = A._put.pe, off = A._put.off,
                                          sl = A.slid, x = x}, text("dist_put"))
    end
    remote.fence()
    return
  end
  if ns > 0 then
    speck.parallel_for("dist_pack", ns, {b = b.sbuf, sl = A.slid, x = x}, text("dist_pack"))
    speck.deep_copy(b.hsbuf, b.sbuf)
  end
  A.plan:start_packed(b.hsbuf, b.hhalo)
end
local function xwait(A, x, halo)
  if not stage and not A.onesided then return A.plan:wait() end
  local b = xbufs(A, x:dtype())
  if A.nhalo == 0 then return A.plan:wait() end
  if A.onesided then
    speck.deep_copy(halo, speck.subview(b.rb[b.turn]:local_view(), {0, A.nhalo}))
    return
  end
  A.plan:wait()
  speck.deep_copy(halo, b.hhalo)
end

-- A's exchange of 8-byte values (dtype dt) as the C drivers take it
-- (kernels/dist/cc.h): {plan, mode (0 mpi, 1 staged, 2 one-sided), its
-- buffers, turn}; with the buffers' table b, whose turn the caller sets
-- back (b.turn = t.turn) after the call
local function xchg(A, dt)
  if not stage and not A.onesided then return {plan = A.plan, mode = 0} end
  local b = xbufs(A, dt)
  if A.onesided then
    return {plan = A.plan, mode = 2, turn = b.turn, slid = A.slid, rb1 = b.rb[1], rb2 = b.rb[2],
            pe = A._put.pe, off = A._put.off}, b
  end
  return {plan = A.plan, mode = 1, slid = A.slid, sbuf = b.sbuf, hsbuf = b.hsbuf,
          hhalo = b.hhalo}, b
end

-- an export with ADD (the halo's values summed into their owners' x):
-- through host memory on GPU ranks
local function xexport_add(A, halo, x)
  if not dev then return A.plan:export_add(halo, x) end
  local hx = hview("export_sum", x:dtype(), x:extent(0))
  A.plan:export_add(tohost(halo), hx)
  local d = speck.View("export_sum", x:dtype(), x:extent(0))
  speck.deep_copy(d, hx)
  speck.parallel_for("dist_export_add", x:extent(0), {x = x, d = d}, text("dist_add"))
end

-- a distributed matrix from this rank's rows (global column ids)
-- over 'map'; the domain (x's map in spmv) is 'dom', else the row map
-- when square, else contiguous blocks of the columns
local function build(fname, map, ncols, A, dom)
  local t0 = c.wtime()
  dom = dom or map
  if ncols ~= dom.n then dom = map_from_offsets(ncols, blocks(fname, ncols)) end
  A = crs_host(A) -- the split runs on the host
  local ip, ic, iv, bp, bc, bv, halo = together(c.split, dom.c, ncols, A.rowptr, A.colidx, A.values)
  local M = setmetatable({map = map, domain = dom, nrows = map.n, ncols = ncols, id = new_id()}, DMT)
  local nloc = map.nloc
  M.interior = crs_of(nloc, dom.nloc, ip, ic, iv)
  M.nhalo = halo:extent(0)
  M.halo_ids = halo
  M.boundary = crs_of(nloc, math.max(M.nhalo, 1), bp, bc, bv)
  M.halo = speck.View("halo", "float64", M.nhalo)
  M.plan = c.plan(dom.c, halo)
  M.nnz_local = ic:extent(0) + bc:extent(0)
  M.nsend = M.plan:info().sent
  M.transport = pick_transport()
  M.onesided = onesided_space ~= nil
  -- the send list beside the vectors, for the pack or the puts
  if stage or M.onesided then M.slid = todev(M.plan:send_ids()) end
  M.build_seconds = c.wtime() - t0
  return M
end

function DM:row_map() return self.map end
function DM:domain_map() return self.domain end   -- x's map in spmv (the row map when square)
function DM:nrows_global() return self.nrows end
function DM:ncols_global() return self.ncols end
function DM:local_range() return self.map:local_range() end
function DM:local_ids() return self.map:local_ids() end
function DM:nnz()
  agree("nnz", {self.id}, {"A"})
  return c.allreduce_int({self.nnz_local}, "sum")[1]
end
-- the halo plan's numbers: {build_seconds, halo, sent, sources,
-- destinations, transport, space}
function DM:plan_info()
  local t = self.plan:info()
  t.matrix_build_seconds = self.build_seconds
  t.transport = self.transport
  t.space = self.interior:space()
  return t
end
-- the bytes this rank's part holds (its rows, the halo ids and values;
-- after a solve, the Jacobi diagonal and CG's index arrays it keeps)
function DM:memory()
  local s = 0
  for _, v in ipairs{self.interior.rowptr, self.interior.colidx, self.interior.values,
                     self.boundary.rowptr, self.boundary.colidx, self.boundary.values,
                     self.halo, self.halo_ids, self.slid} do
    s = s + c.bytes(v)
  end
  for _, b in pairs(self._xb or {}) do
    for _, v in ipairs{b.sbuf, b.hsbuf, b.hhalo} do s = s + c.bytes(v) end
    for _, r in ipairs(b.rb or {}) do s = s + c.bytes(r) end
  end
  for _, r in ipairs(self._cgrb or {}) do s = s + c.bytes(r) end
  if self._jacobi then s = s + c.bytes(self._jacobi.v) end
  if self._cg then s = s + self._cg:bytes() end
  return s
end

-- check this rank's local CRS and the row blocks of all ranks
function dist.from_local(nrows, ncols, first_row, A, opts)
  local f = "from_local"
  opts = check_opts(f, opts, {"map"})
  for _, p in ipairs{{"nrows_global", nrows}, {"ncols_global", ncols}, {"first_row", first_row}} do
    if math.type(p[2]) ~= "integer" or p[2] < 0 then
      fail(f, "%s must be a non-negative integer, got %s", p[1], tostring(p[2]))
    end
  end
  if not sparse.is_matrix(A) then fail(f, "local_crs must be a CrsMatrix, got %s", type(A)) end
  agree(f, {nrows, ncols, opts.map and opts.map.id or -1}, {"nrows_global", "ncols_global", "the map"})
  if np > nrows then
    fail(f, "%d ranks but only %d rows: every rank needs at least one row (run with at most %d ranks)",
         np, nrows, nrows)
  end
  local map = opts.map
  if map then
    if getmetatable(map) ~= Map then fail(f, "option map must be a dist.map, got %s", type(map)) end
    together(function()
      if map.n ~= nrows then lfail(f, "the map has %d rows, nrows_global is %d", map.n, nrows) end
      if A:nrows() ~= map.nloc then
        lfail(f, "rank %d's local_crs has %d rows, the map gives it %d", me, A:nrows(), map.nloc)
      end
    end)
  else
    local firsts, counts = c.allgather(first_row), c.allgather(A:nrows())
    local off, at = {}, 0
    for r = 1, np do
      if firsts[r] ~= at then
        fail(f, "rank %d's rows start at %d, but the ranks before it end at %d (rows must come in contiguous blocks in rank order)",
             r - 1, firsts[r], at)
      end
      if counts[r] == 0 then fail(f, "rank %d has no rows: every rank needs at least one", r - 1) end
      off[r] = at
      at = at + counts[r]
    end
    if at ~= nrows then fail(f, "the ranks' rows end at %d, nrows_global is %d", at, nrows) end
    off[np + 1] = at
    map = map_from_offsets(nrows, off)
  end
  together(function()
    if A:ncols() ~= ncols then
      lfail(f, "rank %d's local_crs has %d columns, ncols_global is %d (columns are global ids)", me, A:ncols(), ncols)
    end
  end)
  return build(f, map, ncols, A)
end

-- assemble(nrows, ncols, rows, cols, vals [, {map = m}]): global COO
-- contributions from any rank (views or Lua arrays, 0-based global ids);
-- each goes to the rank owning its row and duplicates are summed there
-- (Tpetra's export with ADD)
function dist.assemble(nrows, ncols, rows, cols, vals, opts)
  local f = "assemble"
  opts = check_opts(f, opts, {"map"})
  agree(f, {nrows, ncols, opts.map and opts.map.id or -1}, {"nrows_global", "ncols_global", "the map"})
  local map = opts.map or map_from_offsets(nrows, blocks(f, nrows))
  local function asview(t, dt) return type(t) == "table" and speck.View.from(t, dt, HOST) or tohost(t) end
  rows, cols, vals = asview(rows, "int64"), asview(cols, "int64"), asview(vals, "float64")
  local n = rows:extent(0)
  together(function()
    if cols:extent(0) ~= n or vals:extent(0) ~= n then
      lfail(f, "rows, cols and vals have %d, %d and %d entries", n, cols:extent(0), vals:extent(0))
    end
    for k = 0, n - 1 do
      if rows(k) < 0 or rows(k) >= nrows or cols(k) < 0 or cols(k) >= ncols then
        lfail(f, "entry %d (from 0) on rank %d is (%d, %d): outside the %dx%d matrix", k, me,
              rows(k), cols(k), nrows, ncols)
      end
    end
  end)
  -- bucket by owner
  local cnt = {}
  for r = 1, np do cnt[r] = 0 end
  local own = {}
  for k = 0, n - 1 do
    local o = map.c:owner(rows(k))
    own[k] = o
    cnt[o + 1] = cnt[o + 1] + 1
  end
  local pos, at = {}, 0
  for r = 1, np do pos[r] = at at = at + cnt[r] end
  local sr, sc, sv = hview("r", "int64", n), hview("c", "int64", n), hview("v", "float64", n)
  for k = 0, n - 1 do
    local o = own[k] + 1
    local p = pos[o]
    pos[o] = p + 1
    sr[p], sc[p], sv[p] = rows(k), cols(k), vals(k)
  end
  local rr = c.alltoallv(sr, cnt)
  local rc = c.alltoallv(sc, cnt)
  local rv = c.alltoallv(sv, cnt)
  local m = rr:extent(0)
  local lr = hview("lr", "int64", m)
  for k = 0, m - 1 do lr[k] = map.c:lid(rr(k)) end
  local A = coo(map.nloc, ncols, lr, rc, rv)
  return build(f, map, ncols, A)
end

-- read_mm(path [, {map = m}]): every rank reads the file and keeps its
-- rows (contiguous blocks, or map m's; no rank holds more than its rows);
-- a rank that cannot read it fails the call on every rank
function dist.read_mm(path, opts)
  local f = "read_mm"
  opts = check_opts(f, opts, {"map"})
  if type(path) ~= "string" then fail(f, "path must be a string, got %s", type(path)) end
  if opts.map ~= nil and getmetatable(opts.map) ~= Map then
    fail(f, "option map must be a dist.map, got %s", type(opts.map))
  end
  agree(f, {#path, opts.map and opts.map.id or -1}, {"the path's length", "the map"})
  local hdr = together(function()
    local fh, why = io.open(path, "rb")
    if not fh then lfail(f, "rank %d cannot read '%s': %s", me, path, why) end
    local banner = fh:read("l") or ""
    local lb = banner:lower()
    if not lb:find("^%%%%matrixmarket%s+matrix%s+coordinate") then
      fh:close()
      lfail(f, "'%s' line 1: not a Matrix Market coordinate matrix ('%s')", path, banner)
    end
    local h = {fh = fh, pattern = lb:find("pattern") ~= nil,
               sym = lb:find("symmetric") ~= nil or lb:find("hermitian") ~= nil,
               skew = lb:find("skew") ~= nil, line = 1}
    if lb:find("complex") then fh:close() lfail(f, "'%s': complex matrices are not supported", path) end
    for l in fh:lines() do
      h.line = h.line + 1
      if not l:find("^%s*%%") and l:find("%S") then
        local m, n, nz = l:match("^%s*(%d+)%s+(%d+)%s+(%d+)")
        if not m then fh:close() lfail(f, "'%s' line %d: bad size line '%s'", path, h.line, l) end
        h.m, h.n, h.nz = math.tointeger(tonumber(m)), math.tointeger(tonumber(n)), math.tointeger(tonumber(nz))
        break
      end
    end
    if not h.m then fh:close() lfail(f, "'%s': no size line", path) end
    return h
  end)
  agree(f, {hdr.m, hdr.n}, {"the rows in the file", "the columns in the file"})
  local map = opts.map
  if map and map.n ~= hdr.m then
    hdr.fh:close()
    fail(f, "'%s' has %d rows, the map %d", path, hdr.m, map.n)
  end
  map = map or map_from_offsets(hdr.m, blocks(f, hdr.m))
  local A = together(function()
    local R, C, V, k = {}, {}, {}, 0
    local fh, line = hdr.fh, hdr.line
    local mc = map.c
    local function add(i, j, v)
      local l = mc:lid(i)
      if l >= 0 then k = k + 1 R[k], C[k], V[k] = l, j, v end
    end
    for l in fh:lines() do
      line = line + 1
      if l:find("%S") and not l:find("^%s*%%") then
        local si, sj, sv = l:match("^%s*(%S+)%s+(%S+)%s*(%S*)")
        local i, j = math.tointeger(tonumber(si)), math.tointeger(tonumber(sj))
        local v = hdr.pattern and 1.0 or tonumber(sv)
        if not i or not j or not v or i < 1 or i > hdr.m or j < 1 or j > hdr.n then
          fh:close()
          lfail(f, "'%s' line %d: bad entry '%s'", path, line, l)
        end
        add(i - 1, j - 1, v)
        if hdr.sym and i ~= j then add(j - 1, i - 1, hdr.skew and -v or v) end
      end
    end
    fh:close()
    return sparse.from_coo(map.nloc, hdr.n, R, C, V, {sum_duplicates = true})
  end)
  return build(f, map, hdr.n, A)
end

-- y = beta*y + alpha*A*x: the halo exchange starts, the interior block
-- runs, the exchange completes, the boundary block adds its part
local function spmv(alpha, A, x, beta, y)
  xstart(A, x.v, A.halo)
  sparse.spmv("N", alpha, A.interior, x.v, beta, y.v)
  xwait(A, x.v, A.halo)
  if A.nhalo > 0 then sparse.spmv("N", alpha, A.boundary, A.halo, 1.0, y.v) end
end

function dist.spmv(alpha, A, x, beta, y)
  local f = "spmv"
  agree_checked(f, function()
    if not is_dm(A) then fail(f, "A must be a distributed matrix, got %s", type(A)) end
    check_vec(f, "x", x)
    check_vec(f, "y", y)
  end, function() return {A.id, x.map.id, y.map.id} end, {"A", "x's map", "y's map"})
  check_vec(f, "x", x, A.domain)
  check_vec(f, "y", y, A.map)
  if x == y then fail(f, "x and y are the same vector: the output must not alias the input") end
  spmv(alpha, A, x, beta, y)
end

-- the local diagonal's inverse (Jacobi); a zero diagonal is an error
local function jacobi(fname, A)
  if A.nrows ~= A.ncols then fail(fname, "Jacobi needs a square matrix, A is %dx%d", A.nrows, A.ncols) end
  local function apply(r, z) -- z = D^-1 r
    speck.parallel_for("dist_jacobi_apply", A.map.nloc, {d = A._jacobi.v, r = r.v, z = z.v},
                       text("dist_jacobi_apply"))
  end
  -- the matrix's inverse diagonal, kept for its next solves (a
  -- distributed matrix does not change)
  if A._jacobi then return apply, A._jacobi end
  local d = new_vec(A.map)
  local I = A.interior
  local zero = speck.parallel_reduce("dist_jacobi", A.map.nloc,
    {rp = I.rowptr, ci = I.colidx, va = I.values, d = d.v}, text("dist_jacobi"),
    {op = "min", dtype = "int64"})
  local nloc = A.map.nloc
  local first = c.allreduce_int({zero < nloc and (A.map.kind == "blocks" and A.map.b + zero
                                 or A.map.ids(zero)) or A.nrows}, "min")[1]
  if first < A.nrows then
    fail(fname, "Jacobi: row %d has a zero diagonal", first)
  end
  A._jacobi = d
  return apply, d
end

-- block Jacobi: each rank's diagonal block (its interior: rows and
-- columns it owns) solved by the local solver 'block' names; no
-- communication. "cholesky" (the default): exactly, by sparse Cholesky
-- (kernels/task/chol.c); "ic0", "ilu0": by the block's incomplete
-- factorization (speck.solve.ic0 / ilu, applied through SpTRSV); "gs": a
-- symmetric multicolor Gauss-Seidel sweep (speck.solve.gauss_seidel). A
-- block the local solver refuses (not SPD, a non-positive pivot) fails the
-- call on every rank, naming the rank.
local BLOCK_SOLVERS = {"cholesky", "ic0", "ilu0", "gs"}
local function block_jacobi(fname, A, block)
  if A.nrows ~= A.ncols then fail(fname, "block Jacobi needs a square matrix, A is %dx%d", A.nrows, A.ncols) end
  A._block_jacobi = A._block_jacobi or {}
  local F = A._block_jacobi[block]
  if not F then
    F = together(function()
      local solve = require "speck.solve"
      local make = {cholesky = sparse.cholesky, ic0 = solve.ic0,
                    ilu0 = function(B) return solve.ilu(B, {k = 0}) end,
                    gs = function(B) return solve.gauss_seidel(B, {symmetric = true, multicolor = true}) end}
      local ok, F = pcall(make[block], A.interior)
      if not ok then
        lfail(fname, "block Jacobi (%s): rank %d's diagonal block: %s", block, me,
              tostring(F):gsub("^.-speck%.[%a_.]+: ", ""))
      end
      return F
    end)
    A._block_jacobi[block] = F
  end
  if block == "cholesky" then
    return function(r, z) speck.deep_copy(z.v, F:solve(r.v)) end
  end
  return function(r, z) F:apply(r.v, z.v) end
end

-- Chebyshev: a degree-k polynomial in D^-1 A (Ifpack2's iteration, zero
-- initial guess) on [lmax / 30, lmax], lmax of D^-1 A estimated by 15
-- power iterations (times 1.1); k products with A, no reductions per use
local function chebyshev(fname, A, degree)
  local dinv = jacobi(fname, A)
  local map = A.map
  local v, w, t = new_vec(map), new_vec(map), new_vec(map)
  speck.parallel_for("dist_cheb_start", map.nloc, {v = v.v, gid = todev(map:local_ids())},
    text("dist_cheb_start"))
  local lmax = 1.0
  for _ = 1, 15 do
    local nv = math.sqrt(gdot(v, v))
    blas.scal(1.0 / nv, v.v)
    spmv(1.0, A, v, 0.0, w)
    dinv(w, t)
    lmax = gdot(v, t)
    speck.deep_copy(v.v, t.v)
  end
  lmax = 1.1 * lmax
  local lmin = lmax / 30
  local theta, delta = (lmax + lmin) / 2, (lmax - lmin) / 2
  local sigma = theta / delta
  local d, res = new_vec(map), new_vec(map)
  return function(r, z)
    dinv(r, d)
    blas.scal(1.0 / theta, d.v)
    speck.deep_copy(z.v, d.v)
    local rho = 1.0 / sigma
    for _ = 2, degree do
      local rho1 = 1.0 / (2.0 * sigma - rho)
      speck.deep_copy(res.v, r.v)
      spmv(-1.0, A, z, 1.0, res)
      dinv(res, w)
      blas.axpby(2.0 * rho1 / delta, w.v, rho1 * rho, d.v)
      blas.axpy(1.0, d.v, z.v)
      rho = rho1
    end
  end, lmax
end

local blockno = {}
for k, v in ipairs(BLOCK_SOLVERS) do blockno[v] = k end
local function solver_opts(f, A, b, opts, extra)
  local keys = {"tol", "maxiter", "x0", "precond", "degree", "block"}
  for _, k in ipairs(extra or {}) do keys[#keys + 1] = k end
  local pc, deg, tol, maxiter, block
  agree_checked(f, function()
    opts = check_opts(f, opts, keys)
    if not is_dm(A) then fail(f, "A must be a distributed matrix, got %s", type(A)) end
    check_vec(f, "b", b)
    if opts.x0 ~= nil then check_vec(f, "x0", opts.x0) end
    pc = opts.precond
    if dist._is_precond(pc) then
      pc:check_for(f, A)
    elseif pc ~= nil and pc ~= "jacobi" and pc ~= "block_jacobi" and pc ~= "chebyshev" and pc ~= "none" then
      fail(f, "precond must be \"jacobi\", \"block_jacobi\", \"chebyshev\", \"none\" or a dist.amg, got %s", tostring(pc))
    end
    deg = opts.degree or 3
    if math.type(deg) ~= "integer" or deg < 1 then fail(f, "degree must be a positive integer, got %s", tostring(deg)) end
    block = opts.block or "cholesky"
    if not blockno[block] then
      fail(f, "block must be \"cholesky\", \"ic0\", \"ilu0\" or \"gs\" (block Jacobi's local solver), got %s", tostring(block))
    end
    if opts.block ~= nil and pc ~= "block_jacobi" then
      fail(f, "block names block Jacobi's local solver: give it with precond = \"block_jacobi\"")
    end
    tol, maxiter = opts.tol or 1e-8, opts.maxiter or 1000
    if type(tol) ~= "number" or not (tol > 0) then fail(f, "tol must be a positive number, got %s", tostring(tol)) end
    if math.type(maxiter) ~= "integer" or maxiter < 0 then
      fail(f, "maxiter must be a non-negative integer, got %s", tostring(maxiter))
    end
  end, function()
    return {A.id, b.map.id, opts.x0 and opts.x0.map.id or -1,
            dist._is_precond(pc) and 4 + pc.id or ({jacobi = 1, block_jacobi = 2, chebyshev = 3})[pc] or 0,
            maxiter, math.floor(-math.log(tol, 2) * 1024), opts.restart or 0, deg, blockno[block]}
  end, {"A", "b's map", "x0's map", "precond", "maxiter", "tol", "restart", "degree", "block"})
  check_vec(f, "b", b, A.map)
  if A.nrows ~= A.ncols then fail(f, "A is %dx%d: the solver needs a square matrix", A.nrows, A.ncols) end
  if opts.x0 ~= nil then check_vec(f, "x0", opts.x0, A.map) end
  -- d: Jacobi's inverse diagonal (ones without a preconditioner) for
  -- CG's fused sweep; nil for the others
  local M, d
  if dist._is_precond(pc) then M = pc:applier()
  elseif pc == "jacobi" then M, d = jacobi(f, A)
  elseif pc == "block_jacobi" then M = block_jacobi(f, A, block)
  elseif pc == "chebyshev" then M = chebyshev(f, A, deg)
  else
    M = function(r, z) speck.deep_copy(z.v, r.v) end
    if f == "cg" then
      d = new_vec(A.map)
      speck.deep_copy(d.v, 1.0)
    end
  end
  return opts, tol, maxiter, M, d
end

local function true_resid(A, b, x, r)
  speck.deep_copy(r.v, b.v)
  spmv(-1.0, A, x, 1.0, r)
  return math.sqrt(gdot(r, r))
end

-- x, info = cg(A, b [, {tol = 1e-8, maxiter = 1000, x0 = v, precond = "jacobi" | "none" | ...}]):
-- preconditioned CG, stopping when ||r|| <= tol*||b|| (the recurrence's r);
-- info = {iters, resid (the true relative residual at exit), reason, history}
-- With Jacobi or no preconditioner: Chronopoulos and Gear's CG, one
-- sweep a call (kernels/dist/cg.c: the update and the SpMV in one pass,
-- the halo exchange behind the interior rows, r'u, w'u and r'r in one
-- MPI_Allreduce); the others: the textbook form below.
local function cg_fused(A, b, x, r, bn, tol, maxiter, d, info, x0)
  local f = "cg"
  local map = A.map
  local p, s, w = new_vec(map), new_vec(map), new_vec(map)
  -- from x = 0 the residual is b itself (no product, no exchange)
  local rn
  if x0 then rn = true_resid(A, b, x, r) / bn
  else
    speck.deep_copy(r.v, b.v)
    rn = bn / bn
  end
  info.history[1] = rn
  info.reason = rn <= tol and "converged" or "maxiter"
  local it = 0
  if info.reason ~= "converged" and maxiter > 0 then
    -- the matrix's part of the sweeps, once for all its solves
    A._cg = A._cg or c.cg_matrix(A.plan, A.interior.rowptr, A.interior.colidx,
                                 A.interior.values, A.boundary.rowptr, A.boundary.colidx,
                                 A.boundary.values, A.halo, stage, nodia)
    if A.onesided and not A._cgrb then
      -- the sweeps' halo one-sided, through receive buffers of their own
      -- (used in turn by the sweeps alone)
      xbufs(A, "float64") -- the put targets
      local L = c.allreduce_int({math.max(A.nhalo, 1)}, "max")[1]
      local o = {layout = "partitioned", space = onesided_space}
      A._cgrb = {remote.View("dist_cg_recv", "float64", {np, L}, o),
                 remote.View("dist_cg_recv", "float64", {np, L}, o)}
      c.cg_onesided(A._cg, A._cgrb[1], A._cgrb[2], A._put.pe, A._put.off)
    end
    local st, dv, xv, rv, pv, sv, wv = A._cg, d.v, x.v, r.v, p.v, s.v, w.v
    local ph0 = st:phases()
    local gamma, delta = c.cg_sweep(st, dv, xv, rv, pv, sv, wv, 0.0, 0.0) -- w = A u; r'u, w'u
    local alpha, gamma_old
    while it < maxiter do
      local beta, pq = 0.0, delta
      if it > 0 then
        beta = gamma / gamma_old
        pq = delta - beta * gamma / alpha
      end
      if pq == 0 or pq ~= pq then info.reason = "breakdown" break end
      alpha = gamma / pq
      gamma_old = gamma
      local rr
      gamma, delta, rr = c.cg_sweep(st, dv, xv, rv, pv, sv, wv, alpha, beta)
      it = it + 1
      rn = math.sqrt(rr) / bn
      info.history[#info.history + 1] = rn
      if rn ~= rn or rn == math.huge then
        fail(f, "the residual is %s at iteration %d: the iteration overflowed", tostring(rn), it)
      end
      if rn <= tol then info.reason = "converged" break end
    end
    -- this rank's seconds in each phase of this solve's sweeps
    info.phases = st:phases()
    for k, v in pairs(ph0) do if type(v) == "number" and k ~= "dia" then info.phases[k] = info.phases[k] - v end end
  end
  info.iters = it
  info.resid = true_resid(A, b, x, r) / bn
  return x, info
end

function dist.cg(A, b, opts)
  local f = "cg"
  local o, tol, maxiter, M, d = solver_opts(f, A, b, opts)
  local map = A.map
  local x, r = new_vec(map), new_vec(map)
  if o.x0 then speck.deep_copy(x.v, o.x0.v) end
  local bn = math.sqrt(gdot(b, b))
  local info = {history = {}, iters = 0}
  if bn == 0 then
    speck.deep_copy(x.v, 0.0)
    info.resid, info.reason = 0.0, "converged"
    return x, info
  end
  if d then return cg_fused(A, b, x, r, bn, tol, maxiter, d, info, o.x0 ~= nil) end
  local z, p, q = new_vec(map), new_vec(map), new_vec(map)
  local rn = true_resid(A, b, x, r) / bn
  info.history[1] = rn
  M(r, z)
  speck.deep_copy(p.v, z.v)
  local rz = gdot(r, z)
  info.reason = "maxiter"
  if rn <= tol then info.reason = "converged" end
  local it = 0
  while info.reason ~= "converged" and it < maxiter do
    spmv(1.0, A, p, 0.0, q)
    local pq = gdot(p, q)
    if pq == 0 or pq ~= pq then info.reason = "breakdown" break end
    local alpha = rz / pq
    blas.axpy(alpha, p.v, x.v)
    blas.axpy(-alpha, q.v, r.v)
    it = it + 1
    rn = math.sqrt(gdot(r, r)) / bn
    info.history[#info.history + 1] = rn
    if rn ~= rn or rn == math.huge then
      fail(f, "the residual is %s at iteration %d: the iteration overflowed", tostring(rn), it)
    end
    if rn <= tol then info.reason = "converged" break end
    M(r, z)
    local rz1 = gdot(r, z)
    blas.axpby(1.0, z.v, rz1 / rz, p.v)
    rz = rz1
  end
  info.iters = it
  info.resid = true_resid(A, b, x, r) / bn
  return x, info
end

-- x, info = bicgstab(A, b [, opts]): right-preconditioned BiCGStab;
-- stops when ||r|| <= tol*||b|| (the recurrence's r)
function dist.bicgstab(A, b, opts)
  local f = "bicgstab"
  local o, tol, maxiter, M = solver_opts(f, A, b, opts)
  local map = A.map
  local x, r, rh, p, v, ph, s, sh, t = new_vec(map), new_vec(map), new_vec(map), new_vec(map),
    new_vec(map), new_vec(map), new_vec(map), new_vec(map), new_vec(map)
  if o.x0 then speck.deep_copy(x.v, o.x0.v) end
  local bn = math.sqrt(gdot(b, b))
  local info = {history = {}, iters = 0}
  if bn == 0 then
    speck.deep_copy(x.v, 0.0)
    info.resid, info.reason = 0.0, "converged"
    return x, info
  end
  local rn = true_resid(A, b, x, r) / bn
  info.history[1] = rn
  speck.deep_copy(rh.v, r.v)
  local rho, alpha, omega = 1.0, 1.0, 1.0
  info.reason = rn <= tol and "converged" or "maxiter"
  local it = 0
  while info.reason ~= "converged" and it < maxiter do
    local rho1 = gdot(rh, r)
    if rho1 == 0 then info.reason = "breakdown" break end
    local beta = (rho1 / rho) * (alpha / omega)
    blas.axpy(-omega, v.v, p.v)            -- p = r + beta (p - omega v)
    blas.axpby(1.0, r.v, beta, p.v)
    M(p, ph)
    spmv(1.0, A, ph, 0.0, v)
    local rv = gdot(rh, v)
    if rv == 0 then info.reason = "breakdown" break end
    alpha = rho1 / rv
    speck.deep_copy(s.v, r.v)
    blas.axpy(-alpha, v.v, s.v)
    it = it + 1
    local sn = math.sqrt(gdot(s, s)) / bn
    if sn <= tol then
      blas.axpy(alpha, ph.v, x.v)
      speck.deep_copy(r.v, s.v)
      info.history[#info.history + 1] = sn
      info.reason = "converged"
      break
    end
    M(s, sh)
    spmv(1.0, A, sh, 0.0, t)
    local tt = gdot(t, t)
    if tt == 0 then info.reason = "breakdown" break end
    omega = gdot(t, s) / tt
    blas.axpy(alpha, ph.v, x.v)
    blas.axpy(omega, sh.v, x.v)
    speck.deep_copy(r.v, s.v)
    blas.axpy(-omega, t.v, r.v)
    rn = math.sqrt(gdot(r, r)) / bn
    info.history[#info.history + 1] = rn
    if rn ~= rn or rn == math.huge then
      fail(f, "the residual is %s at iteration %d: the iteration overflowed", tostring(rn), it)
    end
    if rn <= tol then info.reason = "converged" end
    if omega == 0 then info.reason = info.reason == "converged" and "converged" or "breakdown" break end
    rho = rho1
  end
  info.iters = it
  info.resid = true_resid(A, b, x, r) / bn
  return x, info
end

-- x, info = gmres(A, b [, {restart = 30, tol, maxiter, x0, precond}]):
-- restarted GMRES with right preconditioning (modified Gram-Schmidt,
-- Givens rotations); info.iters counts inner iterations
function dist.gmres(A, b, opts)
  local f = "gmres"
  local o, tol, maxiter, M = solver_opts(f, A, b, opts, {"restart"})
  local m = o.restart or 30
  if math.type(m) ~= "integer" or m < 1 then fail(f, "restart must be a positive integer, got %s", tostring(m)) end
  local map = A.map
  local x, r, w, z = new_vec(map), new_vec(map), new_vec(map), new_vec(map)
  if o.x0 then speck.deep_copy(x.v, o.x0.v) end
  local bn = math.sqrt(gdot(b, b))
  local info = {history = {}, iters = 0}
  if bn == 0 then
    speck.deep_copy(x.v, 0.0)
    info.resid, info.reason = 0.0, "converged"
    return x, info
  end
  local V = {}
  for i = 1, m + 1 do V[i] = new_vec(map) end
  local it = 0
  local beta = true_resid(A, b, x, r)
  info.history[1] = beta / bn
  info.reason = beta / bn <= tol and "converged" or "maxiter"
  while info.reason ~= "converged" and it < maxiter do
    speck.deep_copy(V[1].v, r.v)
    blas.scal(1.0 / beta, V[1].v)
    local H, cs, sn, g = {}, {}, {}, {beta}
    local k = 0
    while k < m and it < maxiter do
      k = k + 1
      it = it + 1
      M(V[k], z)
      spmv(1.0, A, z, 0.0, w)
      H[k] = {}
      for j = 1, k do
        local h = gdot(w, V[j])
        H[k][j] = h
        blas.axpy(-h, V[j].v, w.v)
      end
      local hn = math.sqrt(gdot(w, w))
      H[k][k + 1] = hn
      for j = 1, k - 1 do -- earlier rotations
        local a, bb = H[k][j], H[k][j + 1]
        H[k][j], H[k][j + 1] = cs[j] * a + sn[j] * bb, -sn[j] * a + cs[j] * bb
      end
      local a, bb = H[k][k], H[k][k + 1]
      local den = math.sqrt(a * a + bb * bb)
      if den == 0 then info.reason = "breakdown" k = k - 1 break end
      cs[k], sn[k] = a / den, bb / den
      H[k][k], H[k][k + 1] = den, 0.0
      g[k + 1] = -sn[k] * g[k]
      g[k] = cs[k] * g[k]
      info.history[#info.history + 1] = math.abs(g[k + 1]) / bn
      if hn ~= 0 then
        speck.deep_copy(V[k + 1].v, w.v)
        blas.scal(1.0 / hn, V[k + 1].v)
      end
      if math.abs(g[k + 1]) / bn <= tol or hn == 0 then break end
    end
    -- y = H \ g, x += M^-1 (V y)
    local y = {}
    for i = k, 1, -1 do
      local s = g[i]
      for j = i + 1, k do s = s - H[j][i] * y[j] end
      y[i] = s / H[i][i]
    end
    speck.deep_copy(w.v, 0.0)
    for j = 1, k do blas.axpy(y[j], V[j].v, w.v) end
    M(w, z)
    blas.axpy(1.0, z.v, x.v)
    beta = true_resid(A, b, x, r)
    if beta / bn <= tol then info.reason = "converged"
    elseif info.reason == "breakdown" then break end
  end
  info.iters = it
  info.resid = beta / bn
  return x, info
end

-- -- SpGEMM ---------------------------------------------------------------------------
-- fetch_rows(map, ids, rowptr, colidx [, values]): the rows 'ids' (global,
-- sorted by owner: a halo) of a CRS whose local rows are 'rowptr/colidx/
-- values' over 'map', from their owners: lens (int64, one per id), cols
-- (int64) and vals (float64, or nil) in the order of 'ids'
local function fetch_rows(map, ids, rowptr, colidx, values)
  local cnt = {}
  for r = 1, np do cnt[r] = 0 end
  for k = 0, ids:extent(0) - 1 do
    local o = map.c:owner(ids(k)) + 1
    cnt[o] = cnt[o] + 1
  end
  local req, rcnt = c.alltoallv(ids, cnt)
  local nreq = req:extent(0)
  local lens, total = hview("lens", "int64", nreq), 0
  local lid = {}
  for k = 0, nreq - 1 do
    local l = map.c:lid(req(k))
    lid[k] = l
    lens[k] = rowptr(l + 1) - rowptr(l)
    total = total + lens(k)
  end
  local cols = hview("cols", "int64", total)
  local vals = values and hview("vals", "float64", total)
  local at, colcnt, q = 0, {}, 0
  for r = 1, np do
    local s = 0
    for _ = 1, rcnt[r] do
      local l = lid[q]
      for e = rowptr(l), rowptr(l + 1) - 1 do
        cols[at] = colidx(e)
        if vals then vals[at] = values(e) end
        at = at + 1
      end
      s = s + lens(q)
      q = q + 1
    end
    colcnt[r] = s
  end
  return c.alltoallv(lens, rcnt), c.alltoallv(cols, colcnt), vals and c.alltoallv(vals, colcnt)
end

-- this rank's rows of A with global column ids (sorted), kept on A, in
-- host memory (fetch_rows reads them from Lua)
local function global_rows(A)
  if A._glob then return A._glob end
  local I, B, nloc = crs_host(A.interior), crs_host(A.boundary), A.map.nloc
  local nnz = A.nnz_local
  local R, C, V = hview("r", "int64", nnz), hview("c", "int64", nnz), hview("v", "float64", nnz)
  hfor("dist_global_rows", nloc,
    {ip = I.rowptr, ic = I.colidx, iv = I.values, bp = B.rowptr, bc = B.colidx, bv = B.values,
     gid = A.domain:local_ids(), hid = A.halo_ids, R = R, C = C, V = V}, text("dist_global_rows"))
  A._glob = crs_host(coo(nloc, A.ncols, R, C, V))
  return A._glob
end

-- C = spgemm(A, B): row-wise; each rank fetches the rows of B its halo
-- names (once a call) and multiplies its rows by the local and fetched rows
function dist.spgemm(A, B)
  local f = "spgemm"
  if not is_dm(A) then fail(f, "A must be a distributed matrix, got %s", type(A)) end
  if not is_dm(B) then fail(f, "B must be a distributed matrix, got %s", type(B)) end
  agree(f, {A.id, B.id}, {"A", "B"})
  if A.ncols ~= B.nrows or not same_map(A.domain, B.map) then
    fail(f, "A is %dx%d and B %dx%d: A's columns must be B's rows, split alike", A.nrows, A.ncols, B.nrows, B.ncols)
  end
  local Bg = global_rows(B)
  local hl, hc, hv = fetch_rows(B.map, A.halo_ids, Bg.rowptr, Bg.colidx, Bg.values)
  local nd, nh = A.domain.nloc, A.nhalo
  -- B's rows as A's local columns see them: this rank's, then the halo's
  local nb = Bg.colidx:extent(0)
  local erp = hview("erp", "int64", nd + nh + 1)
  local ecol = hview("ecol", "int32", nb + hc:extent(0))
  local eval = hview("eval", "float64", nb + hc:extent(0))
  hfor("dist_ext_rows", nd + 1, {erp = erp, rp = Bg.rowptr}, text("dist_copy_rowptr"))
  for k = 0, nh - 1 do erp[nd + k + 1] = erp(nd + k) + hl(k) end
  hfor("dist_ext_cols", nb, {e = ecol, c = Bg.colidx, ev = eval, v = Bg.values},
    text("dist_ext_cols"))
  hfor("dist_ext_hcols", hc:extent(0), {e = ecol, h = hc, ev = eval, hv = hv, o = nb},
    text("dist_ext_hcols"))
  local Bext = crs_of(nd + nh, B.ncols, erp, ecol, eval)
  -- A's rows with columns numbered as Bext's rows
  local I, Bd, nloc = crs_host(A.interior), crs_host(A.boundary), A.map.nloc
  local nnz = A.nnz_local
  local R, C, V = hview("r", "int64", nnz), hview("c", "int64", nnz), hview("v", "float64", nnz)
  hfor("dist_ext_a", nloc,
    {ip = I.rowptr, ic = I.colidx, iv = I.values, bp = Bd.rowptr, bc = Bd.colidx, bv = Bd.values,
     nd = nd, R = R, C = C, V = V}, text("dist_ext_a"))
  local Aext = coo(nloc, nd + nh, R, C, V)
  local Cl = sparse.spgemm(Aext, Bext)
  return build(f, A.map, B.ncols, Cl, B.domain)
end

dist._internal = {c = c, agree = agree, together = together, new_vec = new_vec, build = build,
                  hview = hview, hfor = hfor, hreduce = hreduce, tohost = tohost, todev = todev, coo = coo,
                  crs_host = crs_host, xstart = xstart, xwait = xwait, xexport_add = xexport_add, xchg = xchg,
                  HOST = HOST, dev = dev, stage = stage,
                  map_from_offsets = map_from_offsets, blocks = blocks, is_dm = is_dm,
                  is_vec = is_vec, check_vec = check_vec, gdot = gdot, fail = fail,
                  check_opts = check_opts, lfail = lfail, DMT = DMT, fetch_rows = fetch_rows,
                  agree_checked = agree_checked, spmv = spmv, chebyshev = chebyshev,
                  global_rows = global_rows}
-- distributed smoothed-aggregation AMG: dist.amg and dist._is_precond
-- (speck/dist_amg.lua)
require("speck.dist_amg")(dist)
-- the graphs: stdlib/speck/dist_graph.lua
require("speck.dist_graph")(dist)
return dist
