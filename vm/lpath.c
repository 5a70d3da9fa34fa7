/* lpath.c: the Lua paths (and the folders of tcc's library and of the
 * shelf of device images) below the installation prefix (core/prefix.c
 * finds it).

 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/env.h"
#include "vm.h"
#include "../exec/exec.h"

/* -- Lua, tcc and shelf paths ------------------------------------------ */

/* the shelf of the library's device images (jit/diskcache.c): where
 * <prefix>/share/speck/images is not there and no setting names one,
 * <prefix>/lib/lua/5.4/speck/images, where a luarocks tree has it */
static void setup_shelf(void) {
  const char *d = sk_disk_shelf_dir();
  char dir[PATH_MAX + 32];
  if (!d || sk_env_get("SPECK_PREBUILT") || access(d, X_OK) == 0) return;
  snprintf(dir, sizeof dir, "%s/lib/lua/5.4/speck/images", sk_prefix());
  if (access(dir, X_OK) == 0) sk_disk_shelf_set(dir);
}

/* tcc's libtcc1.a: exec's choice (SPECK_TCC_LIBDIR, else
 * <prefix>/lib/speck/tcc); when that folder lacks it and no setting named
 * it, <prefix>/lib/lua/5.4/speck/tcc, where a luarocks tree has it (a
 * rock's files below its lib/ folder all land below lib/lua/5.4); and
 * the shelf's folder the same way */
void sk_vm_setup_dirs(void) {
  char probe[PATH_MAX + 64], dir[PATH_MAX + 32];
  setup_shelf();
  sk_exec_setup_tcc();
  if (sk_env_get("SPECK_TCC_LIBDIR")) return;
  snprintf(probe, sizeof probe, "%s/libtcc1.a", sk_tcc_libdir());
  if (access(probe, R_OK) == 0) return;
  snprintf(dir, sizeof dir, "%s/lib/lua/5.4/speck/tcc", sk_prefix());
  snprintf(probe, sizeof probe, "%s/libtcc1.a", dir);
  if (access(probe, R_OK) == 0) sk_tcc_set_libdir(dir);
}

/* Prepend 'entries' to package[field] unless it already holds them.
 * Expects the package table at the top of the stack. */
static void prepend_path(lua_State *L, const char *field, const char *entries) {
  lua_getfield(L, -1, field);
  const char *old = lua_tostring(L, -1);
  if (old != NULL && strstr(old, entries) != NULL) {
    lua_pop(L, 1);
    return;
  }
  lua_pushfstring(L, "%s;%s", entries, old != NULL ? old : "");
  lua_setfield(L, -3, field);
  lua_pop(L, 1);
}

/* Make <prefix>'s Lua modules and C modules found first by require, and
 * tell the tcc tier where libtcc1.a is. Safe to call more than once. */
void sk_vm_setup_paths(lua_State *L) {
  char entries[2 * PATH_MAX + 64];
  const char *p = sk_prefix();
  if (lua_getglobal(L, "package") == LUA_TTABLE) {
    snprintf(entries, sizeof entries,
             "%s/share/lua/5.4/?.lua;%s/share/lua/5.4/?/init.lua", p, p);
    prepend_path(L, "path", entries);
    snprintf(entries, sizeof entries, "%s/lib/lua/5.4/?.so", p);
    prepend_path(L, "cpath", entries);
  }
  lua_pop(L, 1);
  sk_vm_setup_dirs();
}
