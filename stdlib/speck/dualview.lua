-- speck/dualview.lua: DualView (Kokkos Containers) -- a view in a device
-- space and its host mirror, with the modify/sync flags that say which
-- side holds the newest data. Loaded on first use of speck.DualView.
--
--   local dv = speck.DualView("x", "float64", {n} [, {space =, layout =}])
--   dv.d, dv.h                    the device and host views (the same view
--                                 when the device space is host accessible)
--   dv:modify_host()  dv:modify_device()   mark a side as written
--   dv:sync_host()    dv:sync_device()     copy to that side if it is stale
--   dv:need_sync_host()  dv:need_sync_device()  dv:clear_sync_state()
--   dv:view_host()  dv:view_device()  dv:resize(dims)  dv:realloc(dims)
--
-- Marking one side while the other holds changes not yet synced is an
-- error on every back end (Kokkos raises it too), also where both sides
-- are one view, so a program that runs on the host runs on a GPU.
local speck = require "speck"
local check_options = require "speck.opts"
local _, fail = require("speck.raise")("speck.")

local DualView = {}
DualView.__index = DualView

local function check(dv, fname)
  if getmetatable(dv) ~= DualView then
    fail(fname, "expected a DualView as 'self', got %s", type(dv))
  end
end

-- the flags: a counter per side, as Kokkos keeps them; a side needs a sync
-- when the other's counter is ahead
local function stale(dv, side)
  local other = side == "h" and "d" or "h"
  return dv.mod[other] > dv.mod[side]
end

local function modify(dv, side, fname)
  check(dv, fname)
  local other = side == "h" and "d" or "h"
  if stale(dv, side) then
    fail(fname, "DualView '%s': the %s side was modified and not synced to the %s side " ..
         "(call %s first)", dv.label, other == "h" and "host" or "device",
         side == "h" and "host" or "device", side == "h" and "sync_host" or "sync_device")
  end
  dv.clock = dv.clock + 1
  dv.mod[side] = dv.clock
end

local function sync(dv, side, fname)
  check(dv, fname)
  if not stale(dv, side) then return end
  if dv.h ~= dv.d then
    if side == "h" then speck.deep_copy(dv.h, dv.d) else speck.deep_copy(dv.d, dv.h) end
  end
  dv.mod[side] = dv.mod[side == "h" and "d" or "h"]
end

function DualView:modify_host() modify(self, "h", "DualView.modify_host") end
function DualView:modify_device() modify(self, "d", "DualView.modify_device") end
function DualView:sync_host() sync(self, "h", "DualView.sync_host") end
function DualView:sync_device() sync(self, "d", "DualView.sync_device") end
function DualView:need_sync_host() check(self, "DualView.need_sync_host") return stale(self, "h") end
function DualView:need_sync_device()
  check(self, "DualView.need_sync_device")
  return stale(self, "d")
end
function DualView:clear_sync_state()
  check(self, "DualView.clear_sync_state")
  self.mod.h, self.mod.d = 0, 0
end
function DualView:view_host() return self.h end
function DualView:view_device() return self.d end
function DualView:extent(d) return self.d:extent(d) end

-- resize keeps the contents: the newer side is synced to the other first
function DualView:resize(...)
  check(self, "DualView.resize")
  if stale(self, "h") then self:sync_host() elseif stale(self, "d") then self:sync_device() end
  speck.resize(self.d, ...)
  if self.h ~= self.d then speck.resize(self.h, ...) end
end

-- realloc drops the contents and the flags
function DualView:realloc(...)
  check(self, "DualView.realloc")
  speck.realloc(self.d, ...)
  if self.h ~= self.d then speck.realloc(self.h, ...) end
  self:clear_sync_state()
end

function DualView:__tostring()
  return ("DualView '%s' (%s%s)"):format(self.label, tostring(self.d),
    self.h ~= self.d and ", host mirror" or ", one view")
end

-- speck.DualView(label, dtype, dims [, opts]): opts are View's (space picks
-- the device side; default: the default space)
function speck.DualView(label, dtype, dims, opts)
  if type(label) ~= "string" then
    fail("DualView", "label must be a string, got %s", type(label))
  end
  check_options("speck.DualView", opts, {"space", "layout", "init"}, 2, label)
  local d = speck.View(label, dtype, dims, opts)
  local h = speck.create_mirror_view(d)
  return setmetatable({label = label, d = d, h = h, mod = {h = 0, d = 0}, clock = 0}, DualView)
end

return speck.DualView
