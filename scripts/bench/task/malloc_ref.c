/* malloc_ref.c: the glibc malloc peer of the pool benchmark: N
 * malloc/free pairs (16 or 256 bytes, as task.lua's pool kernel) split
 * over T pthreads, the block touched as the kernel does. Prints
 * "pool malloc <pairs> <seconds>". */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long n_per;
static void *run(void *arg) {
  long base = (long)arg, bad = 0;
  for (long i = base; i < base + n_per; i++) {
    size_t bytes = (size_t)16 << (i & 4);
    char *p = malloc(bytes);
    if (!p) {
      bad++;
      continue;
    }
    p[0] = (char)i;
    bad += p[0] != (char)i;
    free(p);
  }
  return (void *)bad;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000000;
  int t = argc > 2 ? atoi(argv[2]) : 2;
  n_per = n / t;
  pthread_t th[64];
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int k = 0; k < t; k++) pthread_create(&th[k], NULL, run, (void *)(k * n_per));
  long bad = 0;
  for (int k = 0; k < t; k++) {
    void *r;
    pthread_join(th[k], &r);
    bad += (long)r;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (bad) return 1;
  printf("pool malloc %ld %.6f\n", n_per * t,
         (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
  return 0;
}
