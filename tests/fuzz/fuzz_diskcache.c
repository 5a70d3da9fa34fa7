/* fuzz_diskcache.c: libFuzzer harness of the JIT disk-cache loader
 * (jit/diskcache.c): corrupt, truncated and foreign entries.
 *
 * Each input plants one thing under the name of an entry in a private
 * cache directory -- a file with the input's bytes and a chosen mode, a
 * symbolic link to such a file, a FIFO or a directory -- and asks the
 * loader for it (sk_disk_read or sk_disk_check), or plants several files
 * named by the input and runs the eviction. The loader must hand back a
 * payload exactly when an independent reading of the file finds a
 * regular file of ours, not writable by group or others, ending in a
 * trailer {magic, key, length, FNV-1a of the payload seeded with the key}
 * that matches; the payload must be the file minus the trailer; a
 * rejected regular file must be gone afterwards; nothing may hang on a
 * FIFO. (Loaded code is never run here: the cc tier dlopens only what
 * sk_disk_check accepted, which is what this harness judges.)
 *
 * Input layout: op (bit 0-1: read, check, evict; bits 2-3: suffix .so,
 * .cubin, .ptx), mode (bits 0-2: index into 'modes'; bit 3: owned by
 * another user, when run as root), kind (0 file, 1 symlink,
 * 2 FIFO, 3 directory), then the file's bytes. For eviction the bytes
 * are split at '\n' into up to 16 files named by each piece's first 20
 * bytes (an entry name when they look like one), holding the rest.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../jit/tier.h"

#define KEY 0x0123456789abcdefULL

static char dir[512];

static void fail(const char *what) {
  fprintf(stderr, "fuzz_diskcache: %s\n", what);
  abort();
}

static uint64_t fnv(const unsigned char *p, size_t n, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static uint64_t le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* the file's bytes would be accepted as the entry of KEY */
static int valid(const unsigned char *p, size_t n) {
  if (n < 32) return 0;
  const unsigned char *t = p + n - 32;
  return memcmp(t, "SPECKC01", 8) == 0 && le64(t + 8) == KEY && le64(t + 16) == n - 32 &&
         le64(t + 24) == fnv(p, n - 32, KEY);
}

static void rm_rf_entries(void) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (unlinkat(dirfd(d), e->d_name, 0) < 0) unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
  }
  closedir(d);
}

static void write_file(const char *path, const uint8_t *p, size_t n, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot plant a file");
  if (n && write(fd, p, n) != (ssize_t)n) fail("cannot write a planted file");
  fchmod(fd, mode);
  close(fd);
}

static const mode_t modes[] = {0600, 0644, 0620, 0602, 0666, 0400, 0700, 0660};
static const char *const suffixes[] = {".so", ".cubin", ".ptx", ".so"};

/* the private directory goes at exit */
static char top[512];

static void cleanup(void) {
  rm_rf_entries();
  rmdir(dir);
  rmdir(top);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "%s/speck-fuzz-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) fail("mkdtemp");
  char cache[sizeof dir];
  if (snprintf(cache, sizeof cache, "%.400s/cache", dir) < 0) fail("snprintf");
  setenv("SPECK_CACHE_DIR", cache, 1);
  setenv("SPECK_CACHE_MAX", "4K", 1);
  snprintf(top, sizeof top, "%s", dir);
  snprintf(dir, sizeof dir, "%s", cache);
  atexit(cleanup);
  if (!sk_disk_enabled()) fail(sk_disk_status());
  struct stat st;
  if (stat(dir, &st) < 0 || (st.st_mode & 0777) != 0700) fail("cache directory not 0700");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  if (!ready) {
    setup();
    ready = 1;
  }
  if (size < 3) return 0;
  int op = data[0] & 3, mode_i = data[1] & 7, kind = data[2] & 3;
  const char *suffix = suffixes[(data[0] >> 2) & 3];
  const uint8_t *p = data + 3;
  size_t n = size - 3;
  char path[4200], other[4300];
  sk_disk_path(KEY, suffix, path, sizeof path);

  if (op == 2 || op == 3) {
    /* eviction over files the input names */
    size_t b = 0;
    for (int f = 0; f < 16 && b < n; f++) {
      size_t e = b;
      while (e < n && p[e] != '\n') e++;
      char name[32];
      size_t nl = e - b < 20 ? e - b : 20, k = 0;
      for (size_t i = 0; i < nl; i++)
        if (p[b + i] != '/' && p[b + i] != '\0') name[k++] = (char)p[b + i];
      name[k] = '\0';
      if (k && strcmp(name, ".") && strcmp(name, "..")) {
        snprintf(other, sizeof other, "%s/%s", dir, name);
        write_file(other, p + b + nl, e - b - nl, modes[mode_i]);
      }
      b = e + 1;
    }
    (void)sk_disk_size();
    sk_disk_evict();
    if (sk_disk_size() > sk_disk_max()) fail("eviction left the cache over its size");
    rm_rf_entries();
    return 0;
  }

  mode_t mode = modes[mode_i];
  int regular = 0;
  switch (kind) {
  case 0:
    write_file(path, p, n, mode);
    regular = 1;
    break;
  case 1:
    snprintf(other, sizeof other, "%s.target", path);
    write_file(other, p, n, 0600);
    if (symlink(other, path) < 0) fail("symlink");
    break;
  case 2:
    if (mkfifo(path, 0600) < 0) fail("mkfifo");
    break;
  default:
    if (mkdir(path, 0700) < 0) fail("mkdir");
    break;
  }
  /* bit 3 of the mode byte: a file of another user (root only) */
  int foreign = 0;
  if ((data[1] & 8) && geteuid() == 0 && kind != 3)
    foreign = lchown(path, 65534, 65534) == 0;
  int good = regular && !foreign && !(mode & 022) && valid(p, n);
  size_t len = 0;
  if (op == 0) {
    char *got = sk_disk_read(KEY, suffix, &len);
    if (got && !good) fail("a bad entry was read");
    if (!got && good) fail("a good entry was refused");
    if (got && (len != n - 32 || memcmp(got, p, len) != 0)) fail("the payload differs");
    free(got);
  } else {
    char where[4200];
    int ok = sk_disk_check(KEY, suffix, where, sizeof where);
    if (ok && !good) fail("a bad entry was accepted");
    if (!ok && good) fail("a good entry was refused");
    if (ok && strcmp(where, path) != 0) fail("check names another path");
  }
  struct stat st;
  if (regular && !good && lstat(path, &st) == 0) fail("a bad entry was kept");
  if (good && lstat(path, &st) != 0) fail("a good entry was removed");
  if (unlink(path) < 0) rmdir(path);
  if (kind == 1) unlink(other);
  return 0;
}
