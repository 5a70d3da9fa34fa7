/* test_two_vms.c: two VMs (speck_vm_new) in two threads of one process,
 * sharing the back ends, the kernel cache and the background compiler.
 * Each runs many launches of the same kernels (one compile wins, both
 * launch it while it tiers up from libtcc to cc and the background result
 * is installed once), of kernels of its own, of the shared reduction under
 * labels of its own (the alias table), and of one kernel asked for with
 * jit = "cc" then jit = "tcc" (libtcc code compiled on demand while the
 * other VM may be running it). Every result is checked in the VM; a third
 * VM then checks the statistics: one tier-up, no lost launch counts.
 * The third VM launches one kernel before the threads start: vm/lcore.c
 * reads SPECK_BOUNDS_CHECK lazily into a plain global at the first launch
 * (a race of its own, to be made atomic there; nothing of the JIT's).
 * Meant to be run under ThreadSanitizer too (make tsan). The disk cache
 * goes to a fresh temporary directory, removed at the end. */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

enum { ROUNDS = 24, N = 4096 };

/* Run by each VM, with the global 'tid' (1 or 2) and 'rounds' set. */
static const char *const script =
  "local n = "
  "4096"
  "\n"
  "local x = speck.View('x', 'float64', n)\n"
  "local y = speck.View('y', 'float64', n)\n"
  "local function check(ok, what, got)\n"
  "  if not ok then error(('vm %d: %s (got %s)'):format(tid, what,\n"
  "                       tostring(got)), 2) end\n"
  "end\n"
  "local tri = n * (n - 1) / 2\n"
  "for round = 1, rounds do\n"
  "  -- the same kernels in both VMs\n"
  "  speck.parallel_for('fill', n, {x = x}, 'x(i) = (double)i;')\n"
  "  local s = speck.parallel_reduce('sum', n, {x = x}, 'acc += x(i);')\n"
  "  check(s == tri, 'sum', s)\n"
  "  -- kernels of this VM only (the constant is in the body)\n"
  "  speck.parallel_for('scale' .. tid, n, {x = x, y = y},\n"
  "                     ('y(i) = %d.0 * x(i);'):format(tid + 1))\n"
  "  local d = speck.parallel_reduce('dot' .. tid, n, {y = y},\n"
  "                                  ('acc += y(i) + %d;'):format(tid))\n"
  "  check(d == (tid + 1) * tri + tid * n, 'dot', d)\n"
  "  -- the shared reduction under labels of this VM (aliases)\n"
  "  local label = ('sum_%d_%d'):format(tid, round)\n"
  "  local a = speck.parallel_reduce(label, n, {x = x}, 'acc += x(i);')\n"
  "  check(a == tri, label, a)\n"
  "  local src = speck.jit.source(label)\n"
  "  check(src and src:find('acc += x(i);', 1, true), 'source of ' .. label)\n"
  "  check(speck.jit.source('sum') ~= nil, 'source of sum')\n"
  "  -- a max reduction, shared\n"
  "  local m = speck.parallel_reduce('max', n, {x = x},\n"
  "                                  'if (x(i) > acc) acc = x(i);', 'max')\n"
  "  check(m == n - 1, 'max', m)\n"
  "  -- a kernel new to both VMs, compiled by both at about the same time\n"
  "  local f = speck.parallel_reduce('new' .. round, n, {x = x},\n"
  "                                  ('acc += x(i) + %d;'):format(round))\n"
  "  check(f == tri + round * n, 'new' .. round, f)\n"
  "  if round == 10 then speck.jit.wait() end\n"
  "end\n"
  "-- cc code first, then libtcc code compiled on demand, both VMs at once\n"
  "for _ = 1, 6 do\n"
  "  local c = speck.parallel_reduce('tiers', n, {x = x}, 'acc += 3 * x(i);',\n"
  "                                  {jit = 'cc'})\n"
  "  local t = speck.parallel_reduce('tiers', n, {x = x}, 'acc += 3 * x(i);',\n"
  "                                  {jit = 'tcc'})\n"
  "  check(c == 3 * tri and t == c, 'tiers', tostring(c) .. ' ' .. tostring(t))\n"
  "end\n"
  "speck.jit.wait()\n";

typedef struct worker {
  int tid;
  pthread_barrier_t *start;
  int ok;
  char err[4096];
} worker;

static void *work(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(w->start); /* both VMs are created at once */
  char why[512];
  speck_vm *vm = speck_vm_new(NULL, why, sizeof why);
  if (!vm) {
    snprintf(w->err, sizeof w->err, "vm %d: speck_vm_new failed: %s", w->tid, why);
    return NULL;
  }
  char set[64];
  snprintf(set, sizeof set, "tid = %d; rounds = %d", w->tid, ROUNDS);
  if (speck_vm_dostring(vm, set, w->err, sizeof w->err) == SPECK_OK &&
      speck_vm_dostring(vm, script, w->err, sizeof w->err) == SPECK_OK)
    w->ok = 1;
  speck_vm_free(vm);
  return NULL;
}

/* run 'code' in 'vm'; 1 if it ran without error (else the error shown) */
static int lua_ok(speck_vm *vm, const char *code) {
  char err[4096];
  if (speck_vm_dostring(vm, code, err, sizeof err) == SPECK_OK) return 1;
  printf("%s\n", err);
  return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st;
  (void)flag;
  (void)f;
  return remove(path);
}

int main(void) {
  char dir[] = "/tmp/speck-two-vms-XXXXXX";
  if (!mkdtemp(dir)) {
    printf("cannot create a temporary directory\n0 passed, 1 failed\n");
    return 1;
  }
  setenv("SPECK_CACHE_DIR", dir, 1);
  unsetenv("SPECK_CACHE");
  unsetenv("SPECK_CACHE_MAX");
  unsetenv("SPECK_JIT");

  char why[512];
  speck_vm *vm = speck_vm_new(NULL, why, sizeof why);
  CHECK(vm != NULL);
  if (!vm) {
    printf("%d passed, %d failed\n", passed, failed);
    return 1;
  }

  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, 2);
  worker w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].tid = i + 1;
    w[i].start = &start;
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
  }
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    if (!w[i].ok) printf("%s\n", w[i].err);
    CHECK(w[i].ok);
  }
  pthread_barrier_destroy(&start);

  /* the statistics, seen from the third VM */
  {
    char set[64];
    snprintf(set, sizeof set, "rounds = %d", ROUNDS);
    CHECK(lua_ok(vm, set));
    CHECK(lua_ok(
      vm, "ks = {}\n"
          "for _, k in ipairs(speck.jit.stats().per_kernel) do ks[k.label] = k end\n"
          "cc = speck.info().compilers.cc.available\n"
          "for _, l in ipairs{'fill', 'sum', 'max', 'scale1', 'scale2', 'dot1',\n"
          "                   'dot2', 'tiers'} do\n"
          "  assert(ks[l], 'no kernel ' .. l)\n"
          "end\n"));
    /* every launch counted: 'sum' ran under its label and the aliases */
    CHECK(lua_ok(
      vm, "assert(ks.sum.launches == 4 * rounds, 'sum launches ' .. ks.sum.launches)\n"
          "assert(ks.fill.launches == 2 * rounds, 'fill launches ' .. ks.fill.launches)\n"
          "assert(ks.dot1.launches == rounds and ks.dot2.launches == rounds)\n"
          "assert(ks.tiers.launches == 24, 'tiers launches ' .. ks.tiers.launches)\n"
          "for r = 1, rounds do\n"
          "  local k = ks['new' .. r]\n"
          "  assert(k and k.launches == 2 and k.compiles.tcc == 1, 'new' .. r)\n"
          "end\n"
          "assert(#speck.jit.stats().per_kernel == 8 + rounds, 'one kernel per key')\n"));
    /* one tier-up per kernel however many VMs launched it */
    CHECK(lua_ok(
      vm, "if cc then\n"
          "  for _, l in ipairs{'fill', 'sum', 'max', 'scale1', 'dot2'} do\n"
          "    local k = ks[l]\n"
          "    assert(k.tier == 'cc', l .. ' tier ' .. k.tier)\n"
          "    assert(k.tierups == 1, l .. ' tierups ' .. k.tierups)\n"
          "    assert(k.compiles.tcc == 1, l .. ' tcc compiles ' .. k.compiles.tcc)\n"
          "    assert(k.warning == nil, k.warning)\n"
          "  end\n"
          "  assert(ks.tiers.tier == 'cc' and ks.tiers.tierups == 0)\n"
          "  assert(ks.tiers.compiles.tcc >= 1 and ks.tiers.compiles.tcc <= 2)\n"
          "end\n"));
    /* the labels of this run are found; the latest launch wins */
    CHECK(lua_ok(vm, "assert(speck.jit.source('sum_1_' .. rounds))\n"
                     "assert(speck.jit.source('sum_2_1'))\n"
                     "assert(speck.jit.source('nope') == nil)\n"));
  }
  speck_vm_free(vm);
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
