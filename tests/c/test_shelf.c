/* test_shelf.c: the shelf of prebuilt entries (jit/diskcache.c,
 * sk_disk_shelf_read; speck-kgen --images fills the build's).
 *
 * 1. A shelf made by hand (forked processes, each with its own settings):
 *    a good entry is read and counted, whether the cache is on or off; a
 *    damaged one, one writable by the group and a missing one are passed
 *    over, and the damaged ones stay (the shelf is never written);
 *    SPECK_PREBUILT=off turns it off.
 * 2. The build's shelf (<prefix>/share/speck/images), where it was made:
 *    every variant of every library body a device runs, compiled for each
 *    back end and architecture its manifest ('archs', speck-kgen) names,
 *    is found there -- nothing is compiled, so the shelf is current with
 *    this build's library, dialect and code generator (a stale one fails
 *    here after compiling what it lacks).
 * Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/backend.h"
#include "jit/tier.h"
#include "kernels/kernels.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

static const char payload[] = "a device image";
static char shelf[256];

static int exists(const char *p) { return access(p, F_OK) == 0; }

static void entry(uint64_t key, char *out, size_t n) {
  snprintf(out, n, "%s/%016llx.test", shelf, (unsigned long long)key);
}

/* run 'fn' in a child with these settings (SPECK_PREBUILT; the cache's
 * folder, NULL: the cache off); one check here: the child's all passed */
static void in_child(const char *prebuilt, const char *cache, int (*fn)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (prebuilt) setenv("SPECK_PREBUILT", prebuilt, 1);
    if (cache) setenv("SPECK_CACHE_DIR", cache, 1);
    else setenv("SPECK_CACHE", "off", 1);
    passed = failed = 0;
    int rc = fn();
    printf("  child: %d passed, %d failed\n", passed, failed);
    fflush(stdout);
    _exit(rc ? 1 : failed ? 2 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* the shelf's entries, written as the cache writes them (the shelf is
 * this process's cache folder) */
static int make_entries(void) {
  for (uint64_t k = 21; k <= 23; k++)
    CHECK(sk_disk_write(k, ".test", payload, sizeof payload) == 0);
  char p[512];
  entry(22, p, sizeof p); /* a flipped byte: its hash no longer holds */
  FILE *f = fopen(p, "r+b");
  CHECK(f != NULL);
  if (f) {
    fputc('A', f);
    fclose(f);
  }
  entry(23, p, sizeof p);
  CHECK(chmod(p, 0664) == 0);
  return 0;
}

static int read_entries(void) {
  CHECK(sk_disk_shelf_dir() && strcmp(sk_disk_shelf_dir(), shelf) == 0);
  size_t len = 0;
  char *p = sk_disk_shelf_read(21, ".test", &len);
  CHECK(p && len == sizeof payload && memcmp(p, payload, len) == 0);
  free(p);
  CHECK(sk_disk_shelf_hits() == 1);
  char path[512];
  for (uint64_t k = 22; k <= 24; k++) {
    CHECK(sk_disk_shelf_read(k, ".test", &len) == NULL);
    entry(k, path, sizeof path);
    CHECK(exists(path) == (k != 24)); /* passed over, not removed */
  }
  CHECK(sk_disk_shelf_hits() == 1);
  return 0;
}

static int shelf_off(void) {
  size_t len;
  CHECK(sk_disk_shelf_dir() == NULL);
  CHECK(sk_disk_shelf_read(21, ".test", &len) == NULL);
  CHECK(sk_disk_shelf_hits() == 0);
  return 0;
}

static int entries_in(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* 2: every variant a device runs is on the build's shelf: nothing is
 * compiled (an image compiled lands in the cache folder 'cache'; variants
 * whose kernels are the same are made once) */
static void build_shelf(const char *cache) {
  const char *dir = sk_disk_shelf_dir();
  char path[4200], line[256];
  snprintf(path, sizeof path, "%s/archs", dir ? dir : "");
  FILE *f = dir ? fopen(path, "r") : NULL;
  if (!f) {
    printf("the build's shelf: skipped (no %s)\n", dir ? path : "shelf");
    return;
  }
  int lines = 0;
  while (fgets(line, sizeof line, f)) {
    char name[64], arch[64];
    if (sscanf(line, "%63s %63s", name, arch) != 2) continue;
    lines++;
    const sk_backend *b = sk_backend_find(name);
    CHECK(b != NULL && b->code == SK_CODE_IMAGE);
    if (!b) continue;
    int64_t before = sk_disk_shelf_hits();
    int n = 0, bad = 0;
    char err[1024];
    for (int i = 0; sk_kbody_at(i); i++) {
      const sk_kbody *kb = sk_kbody_at(i);
      if (kb->host_only) continue;
      for (int s = 0; s < sk_kbody_nvariants(kb); s++, n++)
        if (sk_kbody_compile_arch(kb, s, b, arch, err, sizeof err) < 0 && bad++ == 0)
          printf("FAIL %s variant %d for %s: %s\n", kb->label, s, arch, err);
    }
    int64_t hits = sk_disk_shelf_hits() - before;
    int compiled = entries_in(cache);
    printf("the build's shelf: %d %s variants for %s, %lld images found, %d compiled\n", n,
           name, arch, (long long)hits, compiled);
    CHECK(bad == 0);
    CHECK(n > 100 && hits > n * 9 / 10 && compiled == 0);
  }
  fclose(f);
  CHECK(lines > 0);
}

int main(void) {
  char tmpl[] = "/tmp/speck-shelf-XXXXXX";
  if (!mkdtemp(tmpl)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(shelf, sizeof shelf, "%s/images", tmpl);
  char cache[300];
  snprintf(cache, sizeof cache, "%s/cache", tmpl);
  in_child("off", shelf, make_entries);
  in_child(shelf, NULL, read_entries);  /* the cache off */
  in_child(shelf, cache, read_entries); /* and on */
  in_child("off", cache, shelf_off);
  /* the build's shelf, with a cache of this test's own */
  unsetenv("SPECK_PREBUILT");
  unsetenv("SPECK_CACHE");
  snprintf(cache, sizeof cache, "%s/mine", tmpl);
  setenv("SPECK_CACHE_DIR", cache, 1);
  build_shelf(cache);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
  if (system(cmd) != 0) printf("note: %s not removed\n", tmpl);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
