/* prefix.c: where speck is installed, found at run time.
 *
 * Everything speck loads at run time (the stdlib Lua files, the speck.core
 * module, tcc's libtcc1.a, the library's device images) sits at fixed
 * places below one installation prefix:
 *
 *   <prefix>/bin/speck                      the CLI
 *   <prefix>/lib/libspeck.so                the library (C kernel API, embedding)
 *   <prefix>/lib/lua/5.4/speck/core.so      the Lua C module
 *   <prefix>/share/lua/5.4/speck.lua ...    the Lua modules
 *   <prefix>/lib/speck/tcc/libtcc1.a        tcc's run-time library
 *   <prefix>/share/speck/images/            the shelf of device images
 *
 * The prefix is found from the object that holds this code (dladdr), so
 * the build tree (build/) and any 'make install PREFIX=...' work alike,
 * with nothing baked in at build time. Used by vm/ (Lua paths), by exec/
 * (sk_exec_setup_tcc: the tcc tier's run-time library, for the C kernel
 * API too) and by the disk cache (jit/diskcache.c: the shelf of device
 * images made at build time, <prefix>/share/speck/images).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/env.h"

/* -- prefix ------------------------------------------------------------ */

static char prefix[PATH_MAX];
static pthread_once_t prefix_once = PTHREAD_ONCE_INIT;

/* Remove 'tail' from the end of 'dir' when 'dir' ends with it. */
static int strip_suffix(char *dir, const char *tail) {
  size_t n = strlen(dir), t = strlen(tail);
  if (n <= t || strcmp(dir + n - t, tail) != 0) return 0;
  dir[n - t] = '\0';
  return 1;
}

/* The real path of the object (executable or shared object) holding this
 * function; "" when it cannot be found. The main program has an empty
 * name in the link map, so it is taken from /proc/self/exe. */
static void object_path(char *out, size_t n) {
  Dl_info info;
  struct link_map *map = NULL;
  out[0] = '\0';
  if (dladdr1((void *)&sk_prefix, &info, (void **)&map, RTLD_DL_LINKMAP) != 0 &&
      map != NULL && map->l_name != NULL && map->l_name[0] != '\0') {
    char *real = realpath(map->l_name, NULL);
    if (real != NULL) {
      snprintf(out, n, "%s", real);
      free(real);
      return;
    }
  }
  ssize_t len = readlink("/proc/self/exe", out, n - 1);
  out[len > 0 ? len : 0] = '\0';
}

/* 1 if 'dir' looks like an installation prefix (holds speck's Lua front
 * end). */
static int is_prefix(const char *dir) {
  char probe[PATH_MAX + 32];
  snprintf(probe, sizeof probe, "%s/share/lua/5.4/speck.lua", dir);
  return access(probe, R_OK) == 0;
}

static void find_prefix(void) {
  char path[PATH_MAX], up[PATH_MAX];
  object_path(path, sizeof path);
  char *slash = strrchr(path, '/');
  if (slash == NULL) {
    snprintf(prefix, sizeof prefix, ".");
  } else {
    *slash = '\0'; /* the object's folder */
    /* the nearest folder above it that is a prefix (programs in other
     * folders of the tree, such as build/tests/c, find build/ too) */
    int found = 0;
    strcpy(up, path);
    for (int level = 0; level < 5 && up[0] != '\0' && !found; level++) {
      found = is_prefix(up);
      char *s = found ? NULL : strrchr(up, '/');
      if (s != NULL) *s = '\0';
      else if (!found) break;
    }
    if (found) strcpy(path, up);
    else if (!strip_suffix(path, "/lib/lua/5.4/speck") && !strip_suffix(path, "/bin"))
      strip_suffix(path, "/lib"); /* none found: the standard layout */
    snprintf(prefix, sizeof prefix, "%s", path[0] ? path : "/");
  }
}

/* The installation prefix: the nearest folder at or above the object that
 * holds this code with share/lua/5.4/speck.lua in it; failing that, the
 * folder above bin/ (the speck binary, programs linked with libspeck.a),
 * above lib/ (libspeck.so) or above lib/lua/5.4/speck/ (core.so), else the
 * object's own folder. Computed once; the string is static. */
const char *sk_prefix(void) {
  pthread_once(&prefix_once, find_prefix);
  return prefix;
}
