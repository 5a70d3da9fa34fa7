/* version.h: speck's version, defined here and nowhere else.
 *
 * The library, the CLI, the JIT's cache keys, speck.version, the
 * pkg-config file and the rockspec (the Makefile reads the three
 * SPECK_VERSION_* lines) all derive from it. api/speck.h includes it, and
 * the installed speck.h carries it inline (the Makefile's $(SPECK_H)). */
#ifndef SPECK_VERSION_H
#define SPECK_VERSION_H

#define SPECK_VERSION_MAJOR 0
#define SPECK_VERSION_MINOR 1
#define SPECK_VERSION_PATCH 0
#define SPECK_STR_(x)       #x
#define SPECK_STR(x)        SPECK_STR_(x)
#define SPECK_VERSION \
  SPECK_STR(SPECK_VERSION_MAJOR) \
  "." SPECK_STR(SPECK_VERSION_MINOR) "." SPECK_STR(SPECK_VERSION_PATCH)

#endif
