/* diskcache.c: the on-disk cache of compiled kernels (cc .so, device images).
 *
 * Directory: $SPECK_CACHE_DIR, else $XDG_CACHE_HOME/speck, else
 * ~/.cache/speck; created 0700; refused when owned by another user or
 * writable by group/others. SPECK_CACHE=off disables it.
 *
 * An entry '<key>.<suffix>' is the payload followed by a trailer
 * {magic, key, payload length, payload hash}. Writers build the file
 * under a temporary name in the same directory and rename() it into
 * place, so readers never see a torn file; a reader checks owner, mode,
 * size, magic, key and hash and deletes what fails (it is rebuilt).
 * Least-recently-used eviction (mtime, refreshed on every load) keeps
 * the directory under SPECK_CACHE_MAX bytes (default 256M): every kind
 * of entry counts (cc .so, device images and their text, any later kind named
 * '<16 hex digits>.<suffix>'). It runs when the cache is first used and
 * after each write. A malformed SPECK_CACHE_MAX disables the cache and
 * is reported by sk_disk_config (the JIT refuses to compile with it).
 *
 * Compiles in flight: processes that share the cache and need the same
 * new device image at once (a test suite's files side by side, the ranks
 * of an MPI job, each compiling the library's kernels at start-up) would
 * each compile it. The first claims it ('.claim-<key><suffix>', made
 * exclusively, holding its process id); the others wait for its entry
 * (sk_disk_await) instead. The claimant gives the claim up after writing
 * the entry or failing to compile (a waiter then claims it and compiles,
 * and so meets the same error; a claim made just after the entry landed
 * reads it and gives the claim up); a claim whose process is gone, or older
 * than CLAIM_MAX seconds, is taken over, and eviction removes it.
 *
 * The shelf: a folder of entries made at build time (speck-kgen --images
 * writes the library's device images into a cache folder of its own,
 * installed as <prefix>/share/speck/images), read-only and looked at
 * first: a fresh machine's first call of a library kernel on a GPU loads
 * its image instead of compiling it. Its entries are checked as the
 * cache's are (the owner may also be root: an installation), and a bad
 * one is passed over (compiled), never removed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env.h"
#include "core/err.h"
#include "tier.h"

/* FNV-1a, 64 bit */
uint64_t sk_hash(const void *p, size_t n, uint64_t seed) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

#define MAGIC "SPECKC01"

typedef struct trailer {
  char magic[8];
  uint64_t key;
  uint64_t len;
  uint64_t sum;
} trailer;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int enabled;
static char dir[4096];
static char status[4400];
static char config_err[512]; /* a malformed setting, or "" */
static int64_t max_bytes = 256LL << 20;
static pthread_mutex_t evict_lock = PTHREAD_MUTEX_INITIALIZER;
static void evict(void);
static int stale_claim(int dfd, const char *name, time_t age);
#define CLAIM_MAX 120 /* seconds: a compile longer than this is not waited for */

static int mkdir_p(const char *path, mode_t last_mode) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0755) < 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(tmp, last_mode) < 0 && errno != EEXIST) return -1;
  return 0;
}

/* Settings first (a malformed one is an error even with the cache off:
 * the user meant something by it), then the directory's checks. */
static void init(void) {
  const char *mx = getenv("SPECK_CACHE_MAX");
  if (mx && *mx) {
    int64_t v = sk_parse_size(mx);
    if (v < 0) {
      sk_err(config_err, sizeof config_err, SK_E_SPECK_CACHE_MAX, mx);
      sk_err(status, sizeof status, SK_E_DISABLED, config_err);
      return;
    }
    max_bytes = v;
  }
  const char *off = getenv("SPECK_CACHE");
  if (off && (strcmp(off, "off") == 0 || strcmp(off, "0") == 0)) {
    sk_err(status, sizeof status, SK_E_DISABLED_SPECK_CACHE);
    return;
  }
  const char *d = getenv("SPECK_CACHE_DIR");
  if (d && *d) {
    snprintf(dir, sizeof dir, "%s", d);
  } else if ((d = getenv("XDG_CACHE_HOME")) && *d) {
    snprintf(dir, sizeof dir, "%s/speck", d);
  } else if ((d = getenv("HOME")) && *d) {
    snprintf(dir, sizeof dir, "%s/.cache/speck", d);
  } else {
    sk_err(status, sizeof status, SK_E_DISABLED_NO_HOME);
    return;
  }
  if (mkdir_p(dir, 0700) < 0) {
    sk_err(status, sizeof status, SK_E_DISABLED_CANNOT_CREATE, dir, strerror(errno));
    return;
  }
  struct stat st;
  if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
    sk_err(status, sizeof status, SK_E_DISABLED_NOT_DIRECTORY, dir);
    return;
  }
  if (st.st_uid != geteuid()) {
    sk_err(status, sizeof status, SK_E_DISABLED_OWNED_UID, dir, (unsigned)st.st_uid);
    return;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    sk_err(status, sizeof status, SK_E_DISABLED_WRITABLE_GROUP, dir);
    return;
  }
  if (access(dir, W_OK | X_OK) < 0) {
    sk_err(status, sizeof status, SK_E_DISABLED_NOT_WRITABLE, dir);
    return;
  }
  enabled = 1;
  snprintf(status, sizeof status, "%s", dir);
  evict(); /* SPECK_CACHE_MAX may be lower than in the last process */
}

int sk_disk_enabled(void) {
  pthread_once(&once, init);
  return enabled;
}

const char *sk_disk_status(void) {
  pthread_once(&once, init);
  return status;
}

const char *sk_disk_dir(void) { return sk_disk_enabled() ? dir : NULL; }

int64_t sk_disk_max(void) {
  pthread_once(&once, init);
  return max_bytes;
}

int sk_disk_config(char *err, size_t errlen) {
  pthread_once(&once, init);
  if (!config_err[0]) return 0;
  sk_err(err, errlen, SK_E_MSG, config_err);
  return -1;
}

/* An entry of any kind, as sk_disk_path names them: 16 lowercase hex
 * digits, a dot, a suffix of 1..8 letters and digits. */
static int is_entry(const char *name) {
  for (int i = 0; i < 16; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
      return 0;
  if (name[16] != '.') return 0;
  int n = 0;
  for (const char *p = name + 17; *p; p++, n++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) return 0;
  return n >= 1 && n <= 8;
}

int64_t sk_disk_size(void) {
  if (!sk_disk_enabled()) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  int64_t total = 0;
  struct dirent *e;
  struct stat st;
  while ((e = readdir(d))) {
    if (!is_entry(e->d_name)) continue;
    if (fstatat(dirfd(d), e->d_name, &st, 0) == 0) total += st.st_size;
  }
  closedir(d);
  return total;
}

void sk_disk_path(uint64_t key, const char *suffix, char *out, size_t n) {
  snprintf(out, n, "%s/%016llx%s", dir, (unsigned long long)key, suffix);
}

/* Validate the entry at 'path' for 'key'; returns the payload (malloc'd,
 * when 'want' is set) or NULL. A bad entry is removed, but on the shelf
 * (which root may own). */
static void *validate_in(const char *path, uint64_t key, size_t *len, int want, int *ok,
                         int shelf) {
  *ok = 0;
  /* O_NONBLOCK: a FIFO planted under an entry's name must not hang the
   * open (it then fails the S_ISREG check and is removed) */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return NULL;
  struct stat st;
  char *buf = NULL;
  trailer t;
  int bad = 1;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) goto done;
  if ((st.st_uid != geteuid() && !(shelf && st.st_uid == 0)) ||
      (st.st_mode & (S_IWGRP | S_IWOTH)))
    goto done;
  if ((size_t)st.st_size < sizeof t) goto done;
  size_t n = (size_t)st.st_size - sizeof t;
  buf = malloc(n ? n : 1);
  if (!buf) {
    bad = 0;
    goto done;
  }
  if (pread(fd, buf, n, 0) != (ssize_t)n ||
      pread(fd, &t, sizeof t, (off_t)n) != (ssize_t)sizeof t)
    goto done;
  if (memcmp(t.magic, MAGIC, 8) != 0 || t.key != key || t.len != n ||
      t.sum != sk_hash(buf, n, key))
    goto done;
  bad = 0;
  *ok = 1;
  if (len) *len = n;
done:
  close(fd);
  if (bad && !shelf) unlink(path);
  if (!*ok || !want) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void *validate(const char *path, uint64_t key, size_t *len, int want, int *ok) {
  return validate_in(path, key, len, want, ok, 0);
}

void *sk_disk_read(uint64_t key, const char *suffix, size_t *len) {
  if (!sk_disk_enabled()) return NULL;
  char path[4200];
  sk_disk_path(key, suffix, path, sizeof path);
  int ok;
  void *p = validate(path, key, len, 1, &ok);
  if (ok) utimensat(AT_FDCWD, path, NULL, 0);
  return p;
}

int sk_disk_check(uint64_t key, const char *suffix, char *path, size_t n) {
  if (!sk_disk_enabled()) return 0;
  sk_disk_path(key, suffix, path, n);
  int ok;
  validate(path, key, NULL, 0, &ok);
  if (ok) utimensat(AT_FDCWD, path, NULL, 0);
  return ok;
}

/* a fresh temporary name in the cache directory (or 'fallback') */
void sk_disk_tmpname(const char *suffix, char *out, size_t n) {
  static unsigned counter;
  unsigned c = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  snprintf(out, n, "%s/.tmp-%d-%u%s", dir, (int)getpid(), c, suffix);
}

typedef struct ent {
  char name[64];
  int64_t size;
  struct timespec mtime;
} ent;

static int older(const void *a, const void *b) {
  const ent *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  return (x->mtime.tv_nsec > y->mtime.tv_nsec) - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Delete least-recently-used entries until the total is under the cap;
 * stale temporary files (an hour old) go too. */
void sk_disk_evict(void) {
  if (sk_disk_enabled()) evict();
}

/* A temporary file ".tmp-<pid>-..." (sk_disk_tmpname, the cc tier's
 * sources, objects and logs) is stale, and removed, once it is older than
 * a minute and its process is gone (a process killed mid-compile or
 * mid-write; a zombie counts as gone), or older than an hour whoever wrote it (a name without a
 * pid, or a pid that was reused). */
static int stale_tmp(const char *name, time_t age) {
  if (age > 3600) return 1;
  if (age <= 60) return 0;
  const char *p = name + 5;
  long pid = 0;
  while (*p >= '0' && *p <= '9' && pid < 1L << 30) pid = 10 * pid + (*p++ - '0');
  if (*p != '-') return 0;
  return sk_pid_gone(pid);
}

int sk_pid_gone(long pid) {
  if (pid <= 0 || pid == (long)getpid()) return 0;
  if (kill((pid_t)pid, 0) < 0) return errno == ESRCH;
  /* a zombie (killed, not yet reaped by its parent) is gone too */
  char stat[64], buf[256];
  snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
  FILE *f = fopen(stat, "re");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *e = strrchr(buf, ')'); /* "pid (comm) S ..." */
  return e && e[1] == ' ' && e[2] == 'Z';
}

/* sk_disk_evict once the directory is known good (also from init) */
static void evict(void) {
  pthread_mutex_lock(&evict_lock);
  DIR *d = opendir(dir);
  if (!d) {
    pthread_mutex_unlock(&evict_lock);
    return;
  }
  ent *es = NULL;
  size_t n = 0, cap = 0;
  int64_t total = 0;
  struct dirent *e;
  struct stat st;
  time_t now = time(NULL);
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, ".tmp-", 5) == 0) {
      if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && stale_tmp(e->d_name, now - st.st_mtime))
        unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    if (strncmp(e->d_name, ".claim-", 7) == 0) {
      if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          stale_claim(dirfd(d), e->d_name, now - st.st_mtime))
        unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    if (!is_entry(e->d_name) || strlen(e->d_name) >= sizeof es->name) continue;
    if (fstatat(dirfd(d), e->d_name, &st, 0) < 0) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      ent *g = realloc(es, cap * sizeof *es);
      if (!g) break;
      es = g;
    }
    memcpy(es[n].name, e->d_name, strlen(e->d_name) + 1); /* length checked above */
    es[n].size = st.st_size;
    es[n].mtime = st.st_mtim;
    total += st.st_size;
    n++;
  }
  if (total > max_bytes && n) {
    qsort(es, n, sizeof *es, older);
    for (size_t i = 0; i < n && total > max_bytes; i++)
      if (unlinkat(dirfd(d), es[i].name, 0) == 0) total -= es[i].size;
  }
  closedir(d);
  free(es);
  pthread_mutex_unlock(&evict_lock);
}

/* Append the trailer to the finished temporary file 'tmp' and rename it
 * to the entry for 'key'. Returns 0 or -1 (tmp removed). */
int sk_disk_commit(const char *tmp, uint64_t key, const char *suffix, char *final,
                   size_t n) {
  int fd = open(tmp, O_RDWR | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  char *buf = NULL;
  int rc = -1;
  if (fstat(fd, &st) < 0) goto out;
  size_t len = (size_t)st.st_size;
  buf = malloc(len ? len : 1);
  if (!buf || pread(fd, buf, len, 0) != (ssize_t)len) goto out;
  trailer t;
  memcpy(t.magic, MAGIC, 8);
  t.key = key;
  t.len = len;
  t.sum = sk_hash(buf, len, key);
  if (pwrite(fd, &t, sizeof t, (off_t)len) != (ssize_t)sizeof t) goto out;
  /* no fsync: a cache entry torn by a crash fails its checksum and is rebuilt */
  if (fchmod(fd, 0600) < 0) goto out;
  sk_disk_path(key, suffix, final, n);
  if (rename(tmp, final) < 0) goto out;
  rc = 0;
out:
  free(buf);
  close(fd);
  if (rc < 0) unlink(tmp);
  else sk_disk_evict();
  return rc;
}

/* -- compiles in flight across processes ---------------------------------- */

static void claim_path(uint64_t key, const char *suffix, char *out, size_t n) {
  snprintf(out, n, "%s/.claim-%016llx%s", dir, (unsigned long long)key, suffix);
}

/* is the claim file 'name' (in the cache directory, 'age' seconds old)
 * stale: its process gone, or too old? */
static int stale_claim(int dfd, const char *name, time_t age) {
  if (age > CLAIM_MAX) return 1;
  int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return 0;
  char b[32] = {0};
  ssize_t r = read(fd, b, sizeof b - 1);
  close(fd);
  return r > 0 && sk_pid_gone(strtol(b, NULL, 10)); /* empty: being written */
}

/* 1: claimed; 0: another process holds it; -1: cannot claim (compile unclaimed) */
static int try_claim(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    char b[32];
    int n = snprintf(b, sizeof b, "%ld\n", (long)getpid());
    ssize_t w = write(fd, b, (size_t)n);
    close(fd);
    return w == n ? 1 : -1;
  }
  if (errno != EEXIST) return -1;
  struct stat st;
  if (lstat(path, &st) == 0 && stale_claim(AT_FDCWD, path, time(NULL) - st.st_mtime))
    unlink(path); /* taken over at the next look */
  return 0;
}

void *sk_disk_await(uint64_t key, const char *suffix, size_t *len, int *claimed) {
  *claimed = 0;
  if (!sk_disk_enabled()) return NULL;
  char path[4200];
  claim_path(key, suffix, path, sizeof path);
  struct timespec pause = {0, 1000000}; /* 1 ms, doubling to 16 */
  for (time_t end = time(NULL) + CLAIM_MAX; time(NULL) <= end;) {
    void *p = sk_disk_read(key, suffix, len);
    if (p) return p;
    int c = try_claim(path);
    if (c == 1) {
      /* the claimant before may have written the entry and given its
       * claim up between the read above and this claim: read again */
      if ((p = sk_disk_read(key, suffix, len))) {
        unlink(path);
        return p;
      }
      *claimed = 1;
      return NULL;
    }
    if (c != 0) return NULL;
    nanosleep(&pause, NULL);
    if (pause.tv_nsec < 16000000) pause.tv_nsec *= 2;
  }
  return NULL; /* waited long enough: compile it too */
}

void sk_disk_unclaim(uint64_t key, const char *suffix) {
  char path[4200];
  claim_path(key, suffix, path, sizeof path);
  unlink(path);
}

/* Store a payload held in memory (device images). */
int sk_disk_write(uint64_t key, const char *suffix, const void *data, size_t len) {
  if (!sk_disk_enabled()) return -1;
  char tmp[4200], final[4200];
  sk_disk_tmpname(suffix, tmp, sizeof tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  ssize_t w = write(fd, data, len);
  close(fd);
  if (w != (ssize_t)len) {
    unlink(tmp);
    return -1;
  }
  return sk_disk_commit(tmp, key, suffix, final, sizeof final);
}

/* -- the shelf ---------------------------------------------------------- */
static pthread_once_t shelf_once = PTHREAD_ONCE_INIT;
static char shelf_default[4096]; /* "" when off */
static const char *shelf;        /* NULL: off; sk_disk_shelf_set may move it */
static int64_t shelf_hits;

static void shelf_init(void) {
  const char *e = sk_env_get("SPECK_PREBUILT");
  if (e && (strcmp(e, "off") == 0 || strcmp(e, "0") == 0)) return;
  if (e) snprintf(shelf_default, sizeof shelf_default, "%s", e);
  else snprintf(shelf_default, sizeof shelf_default, "%s/share/speck/images", sk_prefix());
  __atomic_store_n(&shelf, shelf_default, __ATOMIC_RELEASE);
}

const char *sk_disk_shelf_dir(void) {
  pthread_once(&shelf_once, shelf_init);
  return __atomic_load_n(&shelf, __ATOMIC_ACQUIRE);
}

void sk_disk_shelf_set(const char *dir) {
  pthread_once(&shelf_once, shelf_init);
  const char *old = __atomic_load_n(&shelf, __ATOMIC_ACQUIRE);
  if (!old || strcmp(old, dir) == 0) return; /* off, or already there */
  char *d = strdup(dir); /* kept for the process: readers may hold the old one */
  if (d) __atomic_store_n(&shelf, d, __ATOMIC_RELEASE);
}

void *sk_disk_shelf_read(uint64_t key, const char *suffix, size_t *len) {
  const char *d = sk_disk_shelf_dir();
  if (!d) return NULL;
  char path[4200];
  snprintf(path, sizeof path, "%s/%016llx%s", d, (unsigned long long)key, suffix);
  int ok;
  void *p = validate_in(path, key, len, 1, &ok, 1);
  if (p) __atomic_add_fetch(&shelf_hits, 1, __ATOMIC_RELAXED);
  return p;
}

int64_t sk_disk_shelf_hits(void) { return __atomic_load_n(&shelf_hits, __ATOMIC_RELAXED); }
