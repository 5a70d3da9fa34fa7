/* kgen.c: the library's build-time generator (run by make).
 *
 *   speck-kgen OUTDIR
 *   speck-kgen --images ARCHS OUTDIR
 *
 * For every precompiled variant of every library body (kernels/, see
 * sk_kpre_variant) writes OUTDIR/k<N>.c: the host source the JIT would
 * generate for that signature, its entry points renamed sk_pre<N>_*, and
 * OUTDIR/table.c: the table (entry points and key hashes) that seeds the
 * JIT cache at run time, with the CPU check of the instruction set the
 * table is compiled for. A file is only rewritten when its text changes,
 * so make recompiles what changed.
 *
 * With --images: the shelf (jit/diskcache.c). Every variant (a signature,
 * or the defaults' rank-1 views) of every library body a device runs,
 * compiled by each image back end for each architecture of ARCHS (comma
 * separated, "sm_90,sm_100"), lands in OUTDIR as a disk-cache entry
 * (OUTDIR is the cache while it runs: what is there and still current is
 * kept, so a rebuild compiles only what changed; an entry no variant
 * asked for is removed). A back end that cannot compile here (no compiler
 * library) is passed over with a line saying why, and a variant its
 * compiler refuses with a count: the library's compile checks (tests/c)
 * say which. The entries are made readable by all (an installation's
 * users share them); OUTDIR/archs lists the back ends and architectures
 * they were made for, a line each.
 *
 * This program links the library without a table; it defines an empty one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/backend.h"
#include "../exec/exec.h"
#include "../kernels/kernels.h"

const sk_kpre sk_kpre_table[1];
const int sk_kpre_count = 0;
int sk_kpre_cpu_ok(void) { return 0; }

/* write 'text' to 'path' unless it already holds exactly that */
static int put(const char *path, const char *text) {
  size_t n = strlen(text);
  FILE *f = fopen(path, "rb");
  if (f) {
    char *old = malloc(n + 2);
    size_t got = old ? fread(old, 1, n + 1, f) : 0;
    fclose(f);
    int same = old && got == n && memcmp(old, text, n) == 0;
    free(old);
    if (same) return 0;
  }
  f = fopen(path, "wb");
  if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "speck-kgen: cannot write %s\n", path);
    return -1;
  }
  return 0;
}

static const char *const entries[4] = {"kernel", "init", "join", "layout"};

/* -- --images ------------------------------------------------------------ */
typedef struct img_job {
  const sk_kbody *kb;
  int sig;
} img_job;

static struct {
  const sk_backend *b;
  const char *arch;
  img_job *jobs;
  int njobs, next, made, refused;
  char first_err[1024];
  pthread_mutex_t lock;
} ig = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *img_worker(void *arg) {
  (void)arg;
  char err[1024];
  for (;;) {
    pthread_mutex_lock(&ig.lock);
    int j = ig.next++;
    pthread_mutex_unlock(&ig.lock);
    if (j >= ig.njobs) return NULL;
    int rc = sk_kbody_compile_arch(ig.jobs[j].kb, ig.jobs[j].sig, ig.b, ig.arch, err, sizeof err);
    pthread_mutex_lock(&ig.lock);
    if (rc == 0) ig.made++;
    else if (ig.refused++ == 0) snprintf(ig.first_err, sizeof ig.first_err, "%s", err);
    pthread_mutex_unlock(&ig.lock);
  }
}

/* one back end, one architecture: 0, or -1 when its compiler is missing */
static int images_for(const sk_backend *b, const char *arch) {
  ig.b = b;
  ig.arch = arch;
  ig.njobs = ig.next = ig.made = ig.refused = 0;
  ig.first_err[0] = '\0';
  for (int i = 0; sk_kbody_at(i); i++) {
    const sk_kbody *kb = sk_kbody_at(i);
    if (kb->host_only) continue;
    for (int s = 0; s < sk_kbody_nvariants(kb); s++) {
      img_job *g = realloc(ig.jobs, (size_t)(ig.njobs + 1) * sizeof *g);
      if (!g) return -1;
      ig.jobs = g;
      ig.jobs[ig.njobs++] = (img_job){kb, s};
    }
  }
  /* the first alone: a back end whose compiler does not load stops here */
  char err[1024];
  if (ig.njobs && sk_kbody_compile_arch(ig.jobs[0].kb, ig.jobs[0].sig, b, arch, err,
                                        sizeof err) < 0) {
    printf("speck-kgen: no %s images for %s: %s\n", b->name, arch, err);
    return -1;
  }
  ig.next = 1;
  ig.made = ig.njobs > 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = cores < 1 ? 1 : cores > 8 ? 8 : (int)cores, started = 0;
  pthread_t t[8];
  for (; started < nt; started++)
    if (pthread_create(&t[started], NULL, img_worker, NULL) != 0) break;
  if (!started) img_worker(NULL);
  for (int k = 0; k < started; k++) pthread_join(t[k], NULL);
  printf("speck-kgen: %d %s images for %s", ig.made, b->name, arch);
  if (ig.refused) printf(" (%d variants refused, the first: %s)", ig.refused, ig.first_err);
  printf("\n");
  return 0;
}

static int images(const char *archs, const char *dir) {
  /* the folder is this run's cache: kept entries are read (their time
   * refreshed), new ones written; the shelf itself is not looked at */
  if (setenv("SPECK_CACHE_DIR", dir, 1) || setenv("SPECK_PREBUILT", "off", 1) ||
      unsetenv("SPECK_CACHE") || unsetenv("SPECK_CACHE_MAX"))
    return 1;
  time_t start = time(NULL);
  sk_exec_setup_tcc();
  char made[1024] = ""; /* "back end architecture" lines: the manifest */
  size_t nm = 0;
  for (const sk_backend *const *b = sk_backend_list(); *b; b++) {
    if ((*b)->code != SK_CODE_IMAGE) continue;
    char list[256];
    snprintf(list, sizeof list, "%s", archs);
    for (char *save = NULL, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save))
      if (images_for(*b, a) == 0 && nm < sizeof made)
        nm += (size_t)snprintf(made + nm, sizeof made - nm, "%s %s\n", (*b)->name, a);
  }
  free(ig.jobs);
  /* what this run did not touch is stale; the rest readable by all */
  DIR *d = opendir(dir);
  if (!d) return 0; /* nothing was written */
  struct dirent *e;
  struct stat st;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
      continue;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_mtime < start || e->d_name[0] == '.')
      unlinkat(dirfd(d), e->d_name, 0);
    else
      fchmodat(dirfd(d), e->d_name, 0644, 0);
  }
  closedir(d);
  chmod(dir, 0755);
  /* what the shelf holds (tests/c/test_shelf.c checks it is all there) */
  char path[4200];
  snprintf(path, sizeof path, "%s/archs", dir);
  if (!made[0]) remove(path);
  else if (put(path, made) < 0) return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--images") == 0) return images(argv[2], argv[3]);
  if (argc != 2) {
    fprintf(stderr, "usage: speck-kgen OUTDIR | speck-kgen --images ARCHS OUTDIR\n");
    return 2;
  }
  const char *dir = argv[1];
  char path[4096], err[4096];
  size_t cap = 1 << 16, len = 0;
  char *table = malloc(cap);
  char *decl = malloc(cap);
  size_t dlen = 0;
  if (!table || !decl) return 1;
  table[0] = decl[0] = '\0';
  int n = 0;
  for (;; n++) {
    sk_spec_store st;
    int rc = sk_kpre_variant(n, &st, err, sizeof err);
    if (rc == 0) break;
    if (rc < 0) {
      fprintf(stderr, "speck-kgen: variant %d: %s\n", n, err);
      return 1;
    }
    char *src = sk_codegen_host(&st.spec, err, sizeof err);
    if (!src) {
      fprintf(stderr, "speck-kgen: %s: %s\n", st.spec.label, err);
      return 1;
    }
    char head[512];
    int has[4];
    size_t hl = 0;
    hl += (size_t)snprintf(head + hl, sizeof head - hl,
                           "/* generated by speck-kgen: '%s', variant %d */\n",
                           st.spec.label, n);
    for (int e = 0; e < 4; e++) {
      char def[32];
      snprintf(def, sizeof def, "sk__%s(", entries[e]);
      has[e] = strstr(src, def) != NULL;
      hl += (size_t)snprintf(head + hl, sizeof head - hl, "#define sk__%s sk_pre%d_%s\n",
                             entries[e], n, entries[e]);
    }
    size_t total = hl + strlen(src) + 1;
    char *text = malloc(total);
    if (!text) return 1;
    snprintf(text, total, "%s%s", head, src);
    free(src);
    snprintf(path, sizeof path, "%s/k%d.c", dir, n);
    if (put(path, text) < 0) return 1;
    free(text);
    if (len + 1024 > cap || dlen + 1024 > cap) {
      cap *= 2;
      table = realloc(table, cap);
      decl = realloc(decl, cap);
      if (!table || !decl) return 1;
    }
    static const char *const proto[4] = {
      "void %s(const sk_slot *, sk_i64, sk_i64, void *, const sk_ctx *);\n",
      "void %s(void *);\n", "void %s(void *, const void *);\n", "long %s(long *);\n"};
    char ent[4][64];
    for (int e = 0; e < 4; e++) {
      snprintf(ent[e], sizeof ent[e], has[e] ? "sk_pre%d_%s" : "", n, entries[e]);
      if (has[e]) dlen += (size_t)snprintf(decl + dlen, cap - dlen, proto[e], ent[e]);
    }
    len += (size_t)snprintf(
      table + len, cap - len, "  {%s%s, %s%s, %s%s, %s%s, 0x%016llxULL},\n",
      has[0] ? "(void *)" : "NULL", ent[0], has[1] ? "(void *)" : "NULL", ent[1],
      has[2] ? "(void *)" : "NULL", ent[2], has[3] ? "(void *)" : "NULL", ent[3],
      (unsigned long long)sk_jit_key_hash(&st.spec));
  }
  /* variants that no longer exist */
  for (int k = n;; k++) {
    snprintf(path, sizeof path, "%s/k%d.c", dir, k);
    if (remove(path) != 0) break;
  }
  size_t tcap = len + dlen + 4096;
  char *t = malloc(tcap);
  if (!t) return 1;
  snprintf(t, tcap,
           "/* generated by speck-kgen: the precompiled kernels' table */\n"
           "#include \"kernels/kernels.h\"\n\n%s\n"
           "const sk_kpre sk_kpre_table[%d] = {\n%s};\n"
           "const int sk_kpre_count = %d;\n\n"
           "/* the instruction set these objects were compiled for */\n"
           "int sk_kpre_cpu_ok(void) {\n"
           "  __builtin_cpu_init();\n"
           "#ifdef __AVX512F__\n"
           "  if (!__builtin_cpu_supports(\"avx512f\")) return 0;\n"
           "#endif\n"
           "#ifdef __AVX512VL__\n"
           "  if (!__builtin_cpu_supports(\"avx512vl\")) return 0;\n"
           "#endif\n"
           "#ifdef __AVX2__\n"
           "  if (!__builtin_cpu_supports(\"avx2\")) return 0;\n"
           "#endif\n"
           "#ifdef __FMA__\n"
           "  if (!__builtin_cpu_supports(\"fma\")) return 0;\n"
           "#endif\n"
           "#ifdef __AVX__\n"
           "  if (!__builtin_cpu_supports(\"avx\")) return 0;\n"
           "#endif\n"
           "  return 1;\n"
           "}\n",
           decl, n > 0 ? n : 1, len ? table : "  {0}\n", n);
  snprintf(path, sizeof path, "%s/table.c", dir);
  int rc = put(path, t);
  free(t);
  free(table);
  free(decl);
  if (rc < 0) return 1;
  printf("speck-kgen: %d precompiled kernels in %s\n", n, dir);
  return 0;
}
