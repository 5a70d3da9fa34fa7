/* replay.c: a main for a libFuzzer harness built without libFuzzer, so
 * that its corpus is a regression test of 'make test' and 'make asan'.
 *
 * 'test_fuzz_<name>' runs LLVMFuzzerTestOneInput once on every file of
 * the folders given as arguments (default: tests/fuzz/fuzz_<name>/, the
 * committed seeds and every crash found), and ends with 'N passed, 0
 * failed' as tests/run.sh counts it. A failing input aborts the program
 * (the harness' oracle) with its name printed first.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STR2(x) #x
#define STR(x)  STR2(x)

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      uint8_t *g = realloc(buf, cap *= 2);
      if (!g) {
        free(buf);
        buf = NULL;
      }
      buf = g;
    }
  }
  fclose(f);
  if (!buf) return 0;
  fprintf(stderr, "%s\n", path); /* named before a failure aborts */
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 1;
}

static int run_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "replay: cannot open %s\n", dir);
    return -1;
  }
  /* names sorted: the same order on every machine */
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **g = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
      if (!g) break;
      names = g;
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  for (size_t a = 1; a < n; a++)
    for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
      char *t = names[b];
      names[b] = names[b - 1];
      names[b - 1] = t;
    }
  int runs = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    runs += run_file(path);
    free(names[i]);
  }
  free(names);
  return runs;
}

int main(int argc, char **argv) {
  int runs = 0;
  if (argc < 2) {
    int r = run_dir("tests/fuzz/" STR(FUZZ_NAME));
    if (r < 0) return 1;
    runs = r;
  }
  for (int i = 1; i < argc; i++) {
    int r = run_dir(argv[i]);
    if (r < 0) return 1;
    runs += r;
  }
  printf("%d passed, 0 failed\n", runs);
  return 0;
}
