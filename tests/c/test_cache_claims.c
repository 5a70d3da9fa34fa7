/* test_cache_claims.c: compiles in flight across processes (jit/diskcache.c,
 * sk_disk_await / sk_disk_unclaim): the first process to miss an entry
 * claims it; another that misses it meanwhile waits and gets the payload
 * the claimant writes; a claimant that gives up without writing hands the
 * claim on; a claim whose process is gone is taken over, and eviction
 * removes it while a live one stays. Processes are forked; no compiler or
 * device is needed (the payloads are written by hand).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jit/tier.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

static const char payload[] = "an image";

static void claim_file(const char *cache, uint64_t key, char *out, size_t n) {
  snprintf(out, n, "%s/.claim-%016llx.test", cache, (unsigned long long)key);
}

static int exists(const char *p) { return access(p, F_OK) == 0; }

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* a child that awaits 'key': exit 0 when it got the payload, 1 when it
 * was handed the claim, 2 otherwise */
static pid_t waiter(uint64_t key) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    size_t len = 0;
    int claimed = 0;
    char *p = sk_disk_await(key, ".test", &len, &claimed);
    int got = p && len == sizeof payload && memcmp(p, payload, len) == 0;
    free(p);
    if (claimed) sk_disk_unclaim(key, ".test");
    _exit(got ? 0 : claimed ? 1 : 2);
  }
  return pid;
}

static int status_of(pid_t pid) {
  int st = -1;
  if (pid <= 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

int main(void) {
  char dir[] = "/tmp/speck-claims-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char cache[256], path[512];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("SPECK_CACHE_DIR", cache, 1);
  unsetenv("SPECK_CACHE");
  unsetenv("SPECK_CACHE_MAX");
  CHECK(sk_disk_enabled());
  size_t len = 0;
  int claimed = -1;

  /* 1. a miss claims; a second process waits for the entry and gets it */
  CHECK(sk_disk_await(11, ".test", &len, &claimed) == NULL && claimed == 1);
  claim_file(cache, 11, path, sizeof path);
  CHECK(exists(path));
  pid_t w = waiter(11);
  sleep_ms(150); /* the waiter polls meanwhile */
  CHECK(sk_disk_write(11, ".test", payload, sizeof payload) == 0);
  sk_disk_unclaim(11, ".test");
  CHECK(status_of(w) == 0);
  CHECK(!exists(path));

  /* 2. a claimant that fails (no entry written) hands the claim on */
  CHECK(sk_disk_await(12, ".test", &len, &claimed) == NULL && claimed == 1);
  w = waiter(12);
  sleep_ms(100);
  sk_disk_unclaim(12, ".test");
  CHECK(status_of(w) == 1);

  /* 3. a claim whose process is gone (no process has id 2^30) is taken
   * over at once */
  claim_file(cache, 13, path, sizeof path);
  FILE *f = fopen(path, "w");
  CHECK(f && fprintf(f, "1073741824\n") > 0);
  if (f) fclose(f);
  time_t t0 = time(NULL);
  CHECK(sk_disk_await(13, ".test", &len, &claimed) == NULL && claimed == 1);
  CHECK(time(NULL) - t0 < 5);
  sk_disk_unclaim(13, ".test");
  CHECK(!exists(path));

  /* 4. eviction removes a dead process's claim and keeps a live one */
  char dead[512], live[512];
  claim_file(cache, 14, dead, sizeof dead);
  f = fopen(dead, "w");
  CHECK(f && fprintf(f, "1073741824\n") > 0);
  if (f) fclose(f);
  CHECK(sk_disk_await(15, ".test", &len, &claimed) == NULL && claimed == 1);
  claim_file(cache, 15, live, sizeof live);
  sk_disk_evict();
  CHECK(!exists(dead));
  CHECK(exists(live));
  sk_disk_unclaim(15, ".test");

  /* 5. an entry already written is returned without a claim */
  CHECK(sk_disk_write(16, ".test", payload, sizeof payload) == 0);
  char *p = sk_disk_await(16, ".test", &len, &claimed);
  CHECK(p && len == sizeof payload && claimed == 0);
  free(p);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("could not remove %s\n", dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
