-- speck-0.1.0-1.rockspec: speck as a rock. 'luarocks make' (Lua 5.4) builds
-- with the Makefile and installs its standard layout with the Lua folders
-- pointed into the tree:
--   luarocks --lua-version 5.4 make speck-0.1.0-1.rockspec [--tree DIR]
-- The version here must be core/version.h's (tests/run.sh checks that); the
-- C compiler, libtcc (scripts/build-libtcc.sh) and Lua 5.4's headers come
-- from the system ('make deps' on Debian).
rockspec_format = "3.0"
package = "speck"
version = "0.1.0-1"
source = {
  url = "git+file:///speck",   -- luarocks make builds the checkout it runs in
}
description = {
  summary = "Kokkos made interactive: views, policies and JIT-compiled kernels",
  detailed = [[
speck is an embeddable array language: Lua 5.4 scripts describe views,
execution policies and kernel bodies in a C dialect; a C runtime compiles
each body at run time (libtcc, cc, NVRTC) and runs it on Serial, OpenMP
or CUDA back ends, next to a precompiled kernel library.]],
  homepage = "https://speck.invalid/",
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "make",
  build_target = "all",
  build_variables = {
    LUA_INC = "$(LUA_INCDIR)",
  },
  install_target = "install",
  install_variables = {
    PREFIX = "$(PREFIX)",
    BINDIR = "$(BINDIR)",
    LUA_LDIR = "$(LUADIR)",
    LUA_CDIR = "$(LIBDIR)",
    TCC_LIBDIR = "$(LIBDIR)/speck/tcc",
    IMAGES_DIR = "$(LIBDIR)/speck/images",
  },
}
