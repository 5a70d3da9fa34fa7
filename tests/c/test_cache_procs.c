/* test_cache_procs.c: 8 processes sharing one JIT disk cache, each
 * compiling the same 100 kernels on the cc tier at once (in rotated
 * orders, so that every entry is written by one process while others
 * look it up, load it or race to write it too). Every process checks
 * every result; afterwards every file in the cache is a valid entry (its
 * trailer matches its name), there is one entry per kernel, no temporary
 * file is left, and a last process finds all 100 on disk. Uses the C
 * kernel API; the processes are forked before the parent starts speck.
 *
 * SPECK_CFLAGS=-O1 keeps the 100 compiles short; PROCS and KERNELS
 * (environment) change the counts. */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit/jit.h"
#include "api/speck.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

enum { N = 1000 };

/* kernel k: sum over i of x(i) * (k + 1) + k, x(i) = i */
static int64_t expect(int k) {
  return (int64_t)(k + 1) * N * (N - 1) / 2 + (int64_t)k * N;
}

/* Run the kernels in the order k0, k0+1, ...; returns the number of
 * wrong results (messages on stdout), and the cache hits in *hits. */
static int run_all(int nk, int k0, int *hits) {
  char err[1024];
  speck_runtime *rt = speck_runtime_open("serial", 1, err, sizeof err);
  if (!rt) {
    printf("open: %s\n", err);
    return nk;
  }
  int64_t ext[1] = {N};
  speck_view *x = speck_view_new(rt, "x", "float64", 1, ext, NULL, err, sizeof err);
  if (!x) {
    printf("view: %s\n", err);
    speck_runtime_close(rt);
    return nk;
  }
  double *xd = speck_view_data(x);
  for (int i = 0; i < N; i++) xd[i] = i;
  int wrong = 0;
  for (int t = 0; t < nk; t++) {
    int k = (k0 + t) % nk;
    char body[128], label[32];
    snprintf(body, sizeof body, "acc += x(i) * %d + %d;", k + 1, k);
    snprintf(label, sizeof label, "proc_k%d", k);
    speck_arg a = speck_arg_view("x", x);
    double r;
    if (speck_run_reduce(rt, label, 0, N, &a, 1, body, "sum", &r, err, sizeof err) != 0) {
      printf("kernel %d: %s\n", k, err);
      wrong++;
    } else if (r != (double)expect(k)) {
      printf("kernel %d: %.17g, expected %lld\n", k, r, (long long)expect(k));
      wrong++;
    }
  }
  *hits = 0;
  for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) {
    sk_kstats st;
    sk_jit_kstats(k, &st);
    if (strncmp(k->label, "proc_k", 6) != 0) continue;
    *hits += (int)st.disk_hits;
    if (st.tier != SK_TIER_CC) {
      printf("kernel '%s' runs on tier %d (%s)\n", k->label, st.tier, st.warning);
      wrong++;
    }
  }
  speck_view_release(x);
  speck_runtime_close(rt);
  return wrong;
}

static int rm_entry(const char *p, const struct stat *s, int f, struct FTW *w) {
  (void)s;
  (void)f;
  (void)w;
  return remove(p);
}

static int env_int(const char *name, int def) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : def;
}

int main(void) {
  int procs = env_int("PROCS", 8), nk = env_int("KERNELS", 100);
  char dir[] = "/tmp/speck-procs-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char cache[256];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("SPECK_CACHE_DIR", cache, 1);
  setenv("SPECK_JIT", "cc", 1);
  setenv("SPECK_CFLAGS", "-O1 -ffp-contract=off", 1);
  unsetenv("SPECK_CACHE_MAX");
  unsetenv("SPECK_CACHE");
  fflush(stdout);

  /* -- the processes, all at once ------------------------------------- */
  pid_t pids[64];
  for (int p = 0; p < procs && p < 64; p++) {
    pids[p] = fork();
    if (pids[p] == 0) {
      int hits;
      int wrong = run_all(nk, p * nk / procs, &hits);
      printf("process %d: %d kernels, %d loaded from the cache, %d wrong\n", p, nk, hits,
             wrong);
      fflush(stdout);
      _exit(wrong ? 1 : 0);
    }
  }
  int ok = 0;
  for (int p = 0; p < procs && p < 64; p++) {
    int st;
    if (pids[p] > 0 && waitpid(pids[p], &st, 0) == pids[p] && WIFEXITED(st) &&
        WEXITSTATUS(st) == 0)
      ok++;
  }
  CHECK(ok == procs);

  /* -- the cache they left ---------------------------------------------- */
  int entries = 0, bad = 0, other = 0;
  DIR *d = opendir(cache);
  CHECK(d != NULL);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
      continue;
    char *end;
    unsigned long long key = strtoull(e->d_name, &end, 16);
    if (end - e->d_name != 16 || strcmp(end, ".so") != 0) {
      printf("not an entry: %s\n", e->d_name);
      other++;
      continue;
    }
    char path[512];
    if (sk_disk_check((uint64_t)key, ".so", path, sizeof path)) entries++;
    else {
      printf("corrupt entry: %s\n", e->d_name);
      bad++;
    }
  }
  if (d) closedir(d);
  CHECK(bad == 0);
  CHECK(other == 0);    /* no temporary file left behind */
  CHECK(entries == nk); /* one per kernel */

  /* -- a last process finds every kernel on disk -------------------------- */
  int hits = 0;
  CHECK(run_all(nk, 0, &hits) == 0);
  CHECK(hits == nk);

  nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
  printf("%d processes x %d kernels, %d entries\n", procs, nk, entries);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
