/* nvrtc.c: the GPU tier: NVRTC compiles the CUDA source of a kernel
 * (codegen.c) into an image (core/backend.h's sk_image): a cubin
 * for the architecture the spec names, or PTX when none is named (compile
 * only: no device) or NVRTC does not know that architecture (the driver
 * then finishes the PTX). The image carries the launch facts the
 * generator decided; the back end that runs it loads it ('load' of its
 * table). No device, driver or back end is involved here.
 *
 * Images go through the disk cache (diskcache.c) with the cc tier's
 * rules, keyed by the source, NVRTC's version, the target architecture,
 * the options and speck's JIT version; suffix ".cubin" or ".ptx". The
 * installation's shelf (the library's images made at build time) is
 * looked at first.
 * Settable at run time: SPECK_NVRTC_ARCH (sm_XX cubin or compute_XX
 * PTX, over the spec's), SPECK_NVRTC_FLAGS (extra options, space
 * separated). The default options keep floating point as on the host
 * (--fmad=false: no FMA contraction, as the cc tier's -ffp-contract=off)
 * and are chosen for compile time (docs/bench.md, "NVRTC compile time"):
 * no warnings are produced (-w: they are never shown) and, from NVRTC
 * 12.4, -minimal leaves out the CUDA runtime API declarations that the
 * dialect does not use.
 *
 * A reducing kernel also needs its accumulator on the host (identity,
 * join, layout for the result): that part is compiled with libtcc from
 * codegen_host.c's host text, so both sides share one struct layout.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "backends/cuda/codegen.h"
#include "jit/jit.h"
#include "backends/cuda/nvrtc.h"
#include "backends/cuda/nvrtc_lib.h"
#include "jit/strbuf.h"

/* compile only (no architecture given): PTX for this virtual one */
#define DEFAULT_ARCH "compute_90"
#define BASE_FLAGS   "-std=c++17 --fmad=false -w"
#define MINIMAL_FROM 12040 /* NVRTC version that knows -minimal */

int sk_nvrtc_status(char *buf, size_t n) {
  char why[1600];
  if (!sk_nvrtc_load(why, sizeof why)) {
    snprintf(buf, n, "%s", why);
    return 0;
  }
  int v = sk_nvrtc_version();
  snprintf(buf, n, "NVRTC %d.%d (%s)", v / 1000, v % 1000 / 10, sk_nvrtc_libpath());
  return 1;
}

/* The architecture option for 'want' (the spec's "sm_90"; NULL or "":
 * compile only), SPECK_NVRTC_ARCH over both: a cubin when NVRTC knows the
 * architecture, else PTX for the newest virtual architecture it knows
 * that is not newer (the driver compiles PTX for its device). */
static void pick_arch(const char *want, char *arch, size_t n, int *cubin) {
  const char *env = getenv("SPECK_NVRTC_ARCH");
  if (env && *env) {
    snprintf(arch, n, "%s", env);
    *cubin = strncmp(env, "sm_", 3) == 0;
    return;
  }
  int cc = 0;
  if (want && strncmp(want, "sm_", 3) == 0) cc = atoi(want + 3);
  else if (want && strncmp(want, "compute_", 8) == 0) cc = -atoi(want + 8);
  if (cc == 0) {
    snprintf(arch, n, "%s", DEFAULT_ARCH);
    *cubin = 0;
  } else if (cc > 0 && sk_nvrtc_supports(cc)) {
    snprintf(arch, n, "sm_%d", cc);
    *cubin = 1;
  } else {
    int c = cc > 0 ? cc : -cc, best = sk_nvrtc_best_below(c);
    snprintf(arch, n, "compute_%d", best ? best : c);
    *cubin = 0;
  }
}

/* NVRTC's log -> "body line N: error: ..." lines (errors only; the source
 * echo and caret lines are dropped). */
static void map_log(const char *log, char *err, size_t errlen) {
  sk_buf b;
  sk_buf_init(&b);
  static const char *const files[] = {"body", "prelude", "init", "join", NULL};
  for (const char *p = log; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    const char *paren = memchr(p, '(', len);
    if (paren && len > 0 && p[0] != ' ' && memmem(p, len, "error", 5)) {
      size_t fl = (size_t)(paren - p);
      int known = 0;
      for (int f = 0; files[f]; f++)
        if (strlen(files[f]) == fl && memcmp(p, files[f], fl) == 0) known = 1;
      const char *close = memchr(paren, ')', len - fl);
      if (b.n) sk_buf_puts(&b, "\n");
      if (known && close && close[1] == ':') {
        sk_buf_add(&b, p, fl);
        sk_buf_puts(&b, " line ");
        sk_buf_add(&b, paren + 1, (size_t)(close - paren - 1));
        /* NVRTC's 'identifier "x" is undefined' in the host tiers' words */
        const char *msg = close + 1, *mend = p + len;
        const char *id = memmem(msg, (size_t)(mend - msg), "identifier \"", 12);
        const char *q2 = id ? memchr(id + 12, '"', (size_t)(mend - id - 12)) : NULL;
        if (id && q2 && (size_t)(mend - q2) >= 14 &&
            memcmp(q2, "\" is undefined", 14) == 0) {
          sk_buf_add(&b, msg, (size_t)(id - msg));
          sk_buf_puts(&b, "'");
          sk_buf_add(&b, id + 12, (size_t)(q2 - id - 12));
          sk_buf_puts(&b, "' undeclared");
          sk_buf_add(&b, q2 + 14, (size_t)(mend - q2 - 14));
        } else {
          sk_buf_add(&b, msg, (size_t)(mend - msg));
        }
      } else {
        sk_buf_add(&b, p, len);
      }
    }
    p += len + (nl ? 1 : 0);
  }
  if (b.n) sk_jit_diag(err, errlen, b.s);
  else sk_err(err, errlen, SK_E_NVRTC_FAILED, log);
  sk_buf_free(&b);
}

static const char *pch_dir(void);

/* Compile 'source' to an image (malloc'd), with the in-memory headers
 * 'hdrs' (named 'names') and automatic PCH when 'pch'. *pch_failed is
 * set when NVRTC's log blames its PCH (its folder gone: see below). */
static int compile(const sk_nvrtc_api *nv, const char *source, int nhdr,
                   const char *const *hdrs, const char *const *names, const char *arch,
                   int cubin, const char *flags, int pch, int *pch_failed, char **img,
                   size_t *len, char *err, size_t errlen) {
  nvrtcProgram prog;
  int rc = nv->nvrtcCreateProgram(&prog, source, "speck_kernel.cu", nhdr, hdrs, names);
  if (rc != 0) {
    sk_err(err, errlen, SK_E_NVRTCCREATEPROGRAM, nv->nvrtcGetErrorString(rc));
    return -1;
  }
  char archopt[64], fl[1024];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
  snprintf(fl, sizeof fl, "%s", flags);
  const char *opts[64];
  int no = 0;
  opts[no++] = archopt;
  if (pch) {
    opts[no++] = "-pch";
    opts[no++] = "-pch-messages=false";
    opts[no++] = "-pch-verbose=false";
    if (*pch_dir()) opts[no++] = pch_dir();
  }
  for (char *save = NULL, *t = strtok_r(fl, " \t", &save); t && no < 63;
       t = strtok_r(NULL, " \t", &save))
    opts[no++] = t;
  rc = nv->nvrtcCompileProgram(prog, no, opts);
  if (rc != 0) {
    size_t ls = 0;
    nv->nvrtcGetProgramLogSize(prog, &ls);
    char *log = malloc(ls + 1);
    if (log && nv->nvrtcGetProgramLog(prog, log) == 0) {
      log[ls] = '\0';
      if (pch && pch_failed && strstr(log, "PCH")) *pch_failed = 1;
      map_log(log, err, errlen);
    } else {
      sk_err(err, errlen, SK_E_NVRTC, nv->nvrtcGetErrorString(rc));
    }
    free(log);
    nv->nvrtcDestroyProgram(&prog);
    return -1;
  }
  size_t n = 0;
  rc = cubin ? nv->nvrtcGetCUBINSize(prog, &n) : nv->nvrtcGetPTXSize(prog, &n);
  char *out = rc == 0 ? malloc(n + 1) : NULL;
  if (out) rc = cubin ? nv->nvrtcGetCUBIN(prog, out) : nv->nvrtcGetPTX(prog, out);
  nv->nvrtcDestroyProgram(&prog);
  if (rc != 0 || !out) {
    free(out);
    sk_err(err, errlen, SK_E_NVRTC_CANNOT_READ, cubin ? "cubin" : "PTX");
    return -1;
  }
  out[n] = '\0';
  *img = out;
  *len = n;
  return 0;
}

/* The options: the base set, -minimal where NVRTC knows it, then
 * SPECK_NVRTC_FLAGS. */
static void nvrtc_flags(char *flags, size_t n) {
  const char *extra = getenv("SPECK_NVRTC_FLAGS");
  snprintf(flags, n, "%s%s%s%s", BASE_FLAGS,
           sk_nvrtc_version() >= MINIMAL_FROM ? " -minimal" : "",
           extra && *extra ? " " : "", extra && *extra ? extra : "");
}

/* -- the dialect as a precompiled header --------------------------------
 * A kernel's source is its title line, the dialect (about 125 KB, the
 * same for every kernel: sk_codegen_cuda_dialect) and the kernel's own
 * part. Parsing the dialect was most of a small kernel's NVRTC time, so
 * the compile hands NVRTC the dialect as in-memory headers that the
 * source includes instead ('split'), the same text, which gives the same
 * code, and from NVRTC 12.8 with automatic PCH (-pch): the first compile
 * of the process for a virtual architecture and sequence of headers
 * saves NVRTC's state after them (a file in NVRTC's temporary folder,
 * removed at exit), later ones load it instead of parsing -- about 1 ms
 * a MB of that state (docs/bench.md, "NVRTC compile time"), so a kernel
 * gets no more than it names, in one of three forms:
 *   lean    a range or MDRange parallel_for with no atomic, complex,
 *           remote or aggregate capture that names no word of the parts
 *           cuda.h keeps under SK__LEAN (complex numbers, atomics, teams)
 *           or of blocks.h: abi.h and cuda.h with SK__LEAN defined
 *   full    abi.h, cuda.h and blocks.h
 *   linalg  those and linalg.h, when the kernel names one of its words
 * The warm-up thread makes the lean and full states for the device's
 * architecture. A compile that fails on an undeclared name is made again
 * with every header (its messages are then those of the whole text); one
 * whose log blames the PCH (its folder removed under the process: a
 * forked child's exit does that) is made again without, and PCH stays
 * off in the process. SPECK_NVRTC_PCH=0 turns PCH off. The disk cache's
 * key is the whole text's, as before. */
#define PCH_FROM 12080 /* NVRTC version with automatic PCH */
static const char *const hdr_names[3] = {"speck_dialect.h", "speck_blocks.h",
                                         "speck_linalg.h"};
enum { FORM_LEAN, FORM_FULL, FORM_LINALG };
static int pch_dead; /* a compile blamed the PCH: off for the process */

/* Where NVRTC keeps the PCH state: reading it back is a compile's largest
 * share after the kernel itself, and from a disk-backed temporary folder
 * it cost an H200 host 14 ms a kernel more than from memory (44 against
 * 30 ms, docs/bench.md). So the state goes to a folder of this process's
 * own under a folder of this user's in /dev/shm (mode 0700, created on
 * first use) when that is writable with room to spare, under SPECK_NVRTC_PCH_DIR when set,
 * else to NVRTC's default ($TMPDIR). Given a folder, NVRTC names its file
 * after the program, not the process, so each process (a forked child
 * too) has its own: the folder's name is the process id. It is removed
 * at exit; what a process that died without exiting left is removed by
 * the next process that picks a folder there. */
static char pch_dir_opt[320]; /* "-pch-dir=..." or "" */
/* /dev/shm is memory and may be small (64 MB in a default container); a
 * process's states take 5-20 MB: used only with this much free */
#define SHM_ROOM ((uint64_t)512 << 20)
static pid_t pch_dir_pid;    /* the process that picked it */
static pthread_mutex_t pch_dir_lock = PTHREAD_MUTEX_INITIALIZER;

/* remove the folder 'path' and its files */
static void remove_folder(const char *path) {
  DIR *d = opendir(path);
  if (!d) return;
  char sub[600];
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub)
      (void)unlink(sub);
  }
  closedir(d);
  (void)rmdir(path);
}

/* the folders in 'base' of processes that no longer run */
static void sweep_dead(const char *base) {
  DIR *d = opendir(base);
  if (!d) return;
  char path[600], *end;
  for (struct dirent *e; (e = readdir(d));) {
    long pid = strtol(e->d_name, &end, 10);
    if (*end || !sk_pid_gone(pid)) continue;
    if (snprintf(path, sizeof path, "%s/%s", base, e->d_name) < (int)sizeof path)
      remove_folder(path);
  }
  closedir(d);
}

/* a private folder 'path' (made if missing): 0 when usable */
static int private_folder(const char *path) {
  struct stat st;
  if (mkdir(path, 0700) != 0 && errno != EEXIST) return -1;
  return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
             !(st.st_mode & 077)
           ? 0
           : -1;
}

static void pch_dir_pick(void) {
  const char *e = getenv("SPECK_NVRTC_PCH_DIR");
  char base[256], dir[300];
  struct stat st;
  pch_dir_opt[0] = '\0';
  if (e && *e) { /* the user's: a folder (made if missing) */
    snprintf(base, sizeof base, "%s", e);
    if ((mkdir(base, 0700) != 0 && errno != EEXIST) || stat(base, &st) != 0 ||
        !S_ISDIR(st.st_mode))
      return;
  } else { /* in a folder anyone may write to: ours and private */
    struct statvfs fs;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) ||
        access("/dev/shm", W_OK | X_OK) != 0 || statvfs("/dev/shm", &fs) != 0 ||
        (uint64_t)fs.f_bavail * fs.f_frsize < SHM_ROOM)
      return;
    snprintf(base, sizeof base, "/dev/shm/speck-nvrtc-%u", (unsigned)getuid());
    if (private_folder(base) < 0) return;
  }
  sweep_dead(base);
  snprintf(dir, sizeof dir, "%s/%ld", base, (long)getpid());
  if (private_folder(dir) < 0) return;
  snprintf(pch_dir_opt, sizeof pch_dir_opt, "-pch-dir=%s", dir);
}

/* at exit: the process's folder and its state (NVRTC's own removal runs
 * later and finds nothing; a compile still at work keeps a file it has
 * open) */
static void pch_dir_exit(void) {
  if (pch_dir_opt[0] && pch_dir_pid == getpid())
    remove_folder(pch_dir_opt + sizeof "-pch-dir=" - 1);
}

static const char *pch_dir(void) {
  pthread_mutex_lock(&pch_dir_lock);
  if (pch_dir_pid != getpid()) {
    if (!pch_dir_pid) (void)atexit(pch_dir_exit);
    pch_dir_pick();
    pch_dir_pid = getpid();
  }
  pthread_mutex_unlock(&pch_dir_lock);
  return pch_dir_opt;
}

static int pch_wanted(void) {
  if (__atomic_load_n(&pch_dead, __ATOMIC_ACQUIRE) || sk_nvrtc_version() < PCH_FROM)
    return 0;
  const char *e = getenv("SPECK_NVRTC_PCH");
  return !(e && strcmp(e, "0") == 0);
}

/* The words that call for a form: set 0 (full) those of cuda.h's SK__LEAN
 * parts and of blocks.h, set 1 (linalg) those of linalg.h -- the names
 * they #define, and their identifiers of five or more characters with an
 * underscore that the text before them never uses (functions and types),
 * but not private ones (sk__, SK__: the generator's names start so too);
 * hash sets, built once. */
#define WSET 4096
static uint64_t wset[2][WSET];
static pthread_once_t words_once = PTHREAD_ONCE_INIT;
static size_t dialect_len[3]; /* 0: no split */

static int is_id(char c, int first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

/* the next identifier of [p, end) outside comments, strings and
 * characters: its start, *n its length, *def whether '#define' precedes
 * it; NULL at the end */
static const char *next_id(const char **pp, const char *end, size_t *n, int *def) {
  const char *p = *pp;
  int hash = 0, after_define = 0;
  while (p < end) {
    char c = *p;
    if (c == '/' && p + 1 < end && p[1] == '*') {
      const char *q = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
      p = q ? q + 2 : end;
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      const char *q = memchr(p, '\n', (size_t)(end - p));
      p = q ? q : end;
    } else if (c == '"' || c == '\'') {
      for (p++; p < end && *p != c && *p != '\n'; p++)
        if (*p == '\\' && p + 1 < end) p++;
      if (p < end) p++;
    } else if (is_id(c, 1)) {
      const char *b = p;
      while (p < end && is_id(*p, 0)) p++;
      if (hash && (size_t)(p - b) == 6 && memcmp(b, "define", 6) == 0) {
        hash = 0;
        after_define = 1;
        continue;
      }
      *n = (size_t)(p - b);
      *def = after_define;
      *pp = p;
      return b;
    } else if (c >= '0' && c <= '9') {
      while (p < end && is_id(*p, 0)) p++;
    } else {
      if (c == '#') hash = 1;
      else if (c == '\n') hash = after_define = 0;
      else if (c != ' ' && c != '\t') hash = 0;
      p++;
    }
  }
  *pp = end;
  return NULL;
}

static uint64_t id_hash(const char *s, size_t n) { return sk_hash(s, n, 0x1a) | 1; }

/* open addressing over 'cap' slots; 0 when full */
static int set_add(uint64_t *set, size_t cap, uint64_t h) {
  for (size_t i = h % cap, k = 0; k < cap; i = (i + 1) % cap, k++) {
    if (set[i] == h) return 1;
    if (!set[i]) {
      set[i] = h;
      return 1;
    }
  }
  return 0;
}

static int set_has(const uint64_t *set, size_t cap, uint64_t h) {
  for (size_t i = h % cap, k = 0; k < cap && set[i]; i = (i + 1) % cap, k++)
    if (set[i] == h) return 1;
  return 0;
}

/* the SK__LEAN parts of 'd' ('in' 1) or the rest ('in' 0), through 'add' */
#define LEAN_OPEN  "#ifndef SK__LEAN\n"
#define LEAN_CLOSE "#endif /* SK__LEAN */"
static void lean_parts(const char *d, int in,
                       void (*add)(const char *, const char *, void *), void *u) {
  const char *p = d, *e = d + strlen(d);
  while (p < e) {
    const char *o = strstr(p, LEAN_OPEN);
    const char *c = o ? strstr(o, LEAN_CLOSE) : NULL;
    if (!o || !c) {
      if (!in) add(p, e, u);
      return;
    }
    if (in) add(o, c, u);
    else add(p, o, u);
    p = c + strlen(LEAN_CLOSE);
  }
}

typedef struct {
  uint64_t *set;
  size_t cap;
  int ok;
} idset;

static void add_ids(const char *b, const char *e, void *u) {
  idset *s = u;
  size_t n;
  int def;
  for (const char *id; (id = next_id(&b, e, &n, &def));)
    s->ok &= set_add(s->set, s->cap, id_hash(id, n));
}

/* add to wset[w] the words of [b, e) that 'before' (all identifiers of
 * the text before them) lacks */
typedef struct {
  const idset *before;
  int w, ok;
} wctx;

static void add_words(const char *b, const char *e, void *u) {
  wctx *c = u;
  size_t n;
  int def;
  for (const char *id; (id = next_id(&b, e, &n, &def));) {
    uint64_t h = id_hash(id, n);
    int priv = n > 4 && (memcmp(id, "sk__", 4) == 0 || memcmp(id, "SK__", 4) == 0);
    if (!priv && (def || (n >= 5 && memchr(id, '_', n) &&
                          !set_has(c->before->set, c->before->cap, h))))
      c->ok &= set_add(wset[c->w], WSET / 2, h);
  }
}

static void words_build(void) {
  const char *d[3];
  for (int i = 0; i < 3; i++)
    if (!(d[i] = sk_codegen_cuda_dialect(i))) return;
  idset core = {calloc(WSET * 8, sizeof(uint64_t)), WSET * 8, 1};
  if (!core.set) return;
  /* full: what lean leaves out, against what it keeps */
  lean_parts(d[0], 0, add_ids, &core);
  wctx c = {&core, 0, 1};
  lean_parts(d[0], 1, add_words, &c);
  add_words(d[1], d[1] + strlen(d[1]), &c);
  /* linalg: linalg.h against everything before it */
  lean_parts(d[0], 1, add_ids, &core);
  add_ids(d[1], d[1] + strlen(d[1]), &core);
  wctx l = {&core, 1, 1};
  add_words(d[2], d[2] + strlen(d[2]), &l);
  if (core.ok && c.ok && l.ok)
    for (int i = 0; i < 3; i++) dialect_len[i] = strlen(d[i]);
  free(core.set);
}

/* 1 if 'rest' names a word of set 'w' (or one of its functions for a
 * type: the word with _d or _f) */
static int names_word(const char *rest, int w) {
  const char *p = rest, *e = rest + strlen(rest), *id;
  size_t n;
  int def;
  while ((id = next_id(&p, e, &n, &def))) {
    if (set_has(wset[w], WSET / 2, id_hash(id, n))) return 1;
    if (n > 2 && id[n - 2] == '_' && (id[n - 1] == 'd' || id[n - 1] == 'f') &&
        set_has(wset[w], WSET / 2, id_hash(id, n - 2)))
      return 1;
  }
  return 0;
}

/* the form kernel 's' (its part 'rest') is compiled in */
static int form_of(const sk_kspec *s, const char *rest) {
  if (names_word(rest, 1)) return FORM_LINALG;
  int lean = s->pattern == SK_FOR && s->policy_kind != SK_POL_TEAM;
  for (int i = 0; lean && i < s->ncap; i++) {
    const sk_capture *k = &s->caps[i];
    if ((k->kind == SK_CAP_VIEW &&
         ((k->traits & SK_TRAIT_ATOMIC) || k->agg || sk_space_remote(k->space))) ||
        sk_dtypes[k->dtype].is_complex)
      lean = 0;
  }
  return lean && !names_word(rest, 0) ? FORM_LEAN : FORM_FULL;
}

/* the text of 'form' that stands for the dialect */
static const char *form_text(int form) {
  switch (form) {
  case FORM_LEAN: return "#define SK__LEAN 1\n#include \"speck_dialect.h\"\n";
  case FORM_FULL: return "#include \"speck_dialect.h\"\n#include \"speck_blocks.h\"\n";
  default:
    return "#include \"speck_dialect.h\"\n#include \"speck_blocks.h\"\n"
           "#include \"speck_linalg.h\"\n";
  }
}

/* 1 if 'source' is its title line, then the dialect: *title_len and
 * *rest (the kernel's part) set */
static int split(const char *source, size_t *title_len, const char **rest) {
  pthread_once(&words_once, words_build);
  const char *nl = strchr(source, '\n');
  if (!dialect_len[0] || !nl) return 0;
  const char *p = nl + 1;
  for (int i = 0; i < 3; i++) {
    if (strncmp(p, sk_codegen_cuda_dialect(i), dialect_len[i]) != 0) return 0;
    p += dialect_len[i];
  }
  *title_len = (size_t)(nl + 1 - source);
  *rest = p;
  return 1;
}

/* -- warm-up ------------------------------------------------------------- */
/* NVRTC's first compile in a process pays a one-time set-up (its builtin
 * headers and ptxas, paged in and initialised): 10-25 ms over a warm
 * compile, and the first compile of each form with PCH for an
 * architecture makes its PCH (another 20-40 ms). sk_nvrtc_warm pays the
 * set-up and the lean and full forms' PCH on a thread of its own, for
 * the architecture the back end's kernels will use, while the caller
 * goes on (exec/ calls it when a back end with a CUDA code target
 * starts). A kernel compiled for that architecture whose form the thread
 * has not made yet does without PCH rather than wait for it (one made is
 * used while the thread makes the next). The JIT's shutdown
 * and the process's exit wait for the compile at work (NVRTC is never
 * torn down under it) but start no other. NVRTC registers its own exit
 * handlers during the process's first compile, after the one that waits:
 * exit runs them first, and a process ending while the thread's first
 * compile ran crashed in it. So the thread registers the wait again
 * after that compile, sk_jit_shutdown (the last Lua state closing, the C
 * API's last runtime closing) waits before exit is reached, and where
 * the C library runs a thread's exit destructors before the exit
 * handlers (glibc's __cxa_thread_atexit_impl, which C++'s thread_local
 * uses), the thread that started the warm-up waits there too: a program
 * that calls exit() without closing its runtime. */
static pthread_once_t warm_once = PTHREAD_ONCE_INIT;
static pthread_t warm_thread;
static pthread_mutex_t warm_lock = PTHREAD_MUTEX_INITIALIZER;
static char warm_want[24], warm_arch[24]; /* asked for; compiled for */
static int warm_busy, warm_cubin, warm_stop; /* stop: the process exits */
static int warm_started, warm_joined;
static pthread_mutex_t warm_join_lock = PTHREAD_MUTEX_INITIALIZER;
static void warm_join(void);

static int warm_making = -1; /* the form the thread is making now */

/* is the warm-up yet to make the PCH of 'form' for 'arch'? (NVRTC keeps
 * one PCH per header sequence: a form already made is used while the
 * thread makes the next) */
static int warm_busy_for(const char *arch, int form) {
  pthread_mutex_lock(&warm_lock);
  int busy = warm_busy && strcmp(warm_arch, arch) == 0 && form >= warm_making;
  pthread_mutex_unlock(&warm_lock);
  return busy;
}

static void *warm_main(void *arg) {
  (void)arg;
  const sk_nvrtc_api *nv = sk_nvrtc_load(NULL, 0);
  const char *hdrs[3];
  for (int i = 0; i < 3; i++) hdrs[i] = sk_codegen_cuda_dialect(i);
  pthread_once(&words_once, words_build);
  char arch[24], flags[1024], err[256], src[256], *data = NULL;
  size_t len;
  int pch = nv && dialect_len[0] && pch_wanted();
  pthread_mutex_lock(&warm_lock);
  snprintf(arch, sizeof arch, "%s", warm_arch);
  int cubin = warm_cubin;
  pthread_mutex_unlock(&warm_lock);
  nvrtc_flags(flags, sizeof flags);
  /* with PCH: the lean and the full form's state; else a tiny kernel */
  for (int form = FORM_LEAN; nv && form <= (pch ? FORM_FULL : FORM_LEAN); form++) {
    pthread_mutex_lock(&warm_lock);
    int stop = warm_stop;
    if (!stop) warm_making = form;
    pthread_mutex_unlock(&warm_lock);
    if (stop) break;
    snprintf(src, sizeof src, "%sextern \"C\" __global__ void sk__warm() {}\n",
             pch ? form_text(form) : "");
    int failed = 0;
    if (compile(nv, src, pch ? 3 : 0, hdrs, hdr_names, arch, cubin, flags, pch, &failed,
                &data, &len, err, sizeof err) == 0)
      free(data);
    data = NULL;
    if (form == FORM_LEAN) (void)atexit(warm_join); /* after NVRTC's own: see above */
    if (failed) __atomic_store_n(&pch_dead, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_lock(&warm_lock);
  warm_busy = 0;
  pthread_mutex_unlock(&warm_lock);
  return NULL;
}

/* no further form is started; the one at work finishes (once; any
 * thread, any number of times) */
static void warm_join(void) {
  pthread_mutex_lock(&warm_lock);
  warm_stop = 1;
  pthread_mutex_unlock(&warm_lock);
  pthread_mutex_lock(&warm_join_lock);
  if (warm_started && !warm_joined) {
    pthread_join(warm_thread, NULL);
    warm_joined = 1;
  }
  pthread_mutex_unlock(&warm_join_lock);
}

void sk_nvrtc_quiesce(void) { warm_join(); }

/* the C library's thread-exit destructors, where it has them */
extern int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso)
  __attribute__((weak));
extern void *__dso_handle __attribute__((weak));
static void warm_join_tls(void *obj) {
  (void)obj;
  warm_join();
}

static void warm_start(void) {
  if (!sk_nvrtc_load(NULL, 0)) return;
  pthread_mutex_lock(&warm_lock);
  pick_arch(warm_want[0] ? warm_want : NULL, warm_arch, sizeof warm_arch, &warm_cubin);
  warm_busy = 1;
  pthread_mutex_unlock(&warm_lock);
  /* the PCH folder's removal at exit is registered before warm_join, so
   * it runs after the thread's compile at work is over (a folder removed
   * under NVRTC's compile crashes it) */
  if (pch_wanted()) (void)pch_dir();
  pthread_mutex_lock(&warm_join_lock);
  warm_started = pthread_create(&warm_thread, NULL, warm_main, NULL) == 0;
  pthread_mutex_unlock(&warm_join_lock);
  if (!warm_started) {
    pthread_mutex_lock(&warm_lock);
    warm_busy = 0;
    pthread_mutex_unlock(&warm_lock);
    return;
  }
  (void)atexit(warm_join);
  if (__cxa_thread_atexit_impl && &__dso_handle)
    (void)__cxa_thread_atexit_impl(warm_join_tls, NULL, &__dso_handle);
}

void sk_nvrtc_warm(const char *arch) {
  pthread_mutex_lock(&warm_lock);
  if (!warm_want[0] && arch) snprintf(warm_want, sizeof warm_want, "%s", arch);
  pthread_mutex_unlock(&warm_lock);
  pthread_once(&warm_once, warm_start);
}

/* Compile kernel 's' ('source') for 'arch': split into the dialect's
 * headers and the kernel's part where it can be, else as one text. */
static int build_image(const sk_nvrtc_api *nv, const sk_kspec *s, const char *source,
                       const char *arch, int cubin, const char *flags, char **img,
                       size_t *len, char *err, size_t errlen) {
  size_t tl;
  const char *rest;
  if (split(source, &tl, &rest)) {
    const char *hdrs[3];
    for (int i = 0; i < 3; i++) hdrs[i] = sk_codegen_cuda_dialect(i);
    int form = form_of(s, rest), pch = pch_wanted() && !warm_busy_for(arch, form);
    size_t rl = strlen(rest);
    char *src = malloc(tl + rl + 128);
    while (src) {
      memcpy(src, source, tl);
      size_t k = tl + (size_t)sprintf(src + tl, "%s", form_text(form));
      memcpy(src + k, rest, rl + 1);
      int failed = 0;
      if (compile(nv, src, 3, hdrs, hdr_names, arch, cubin, flags, pch, &failed, img, len,
                  err, errlen) == 0) {
        free(src);
        return 0;
      }
      if (failed) {
        __atomic_store_n(&pch_dead, 1, __ATOMIC_RELEASE);
        pch = 0;
      } else if (form != FORM_LINALG &&
                 (strstr(err, "undeclared") || strstr(err, "undefined"))) {
        form = FORM_LINALG; /* a word the scan missed? */
      } else {
        free(src);
        return -1;
      }
    }
  }
  return compile(nv, source, 0, NULL, NULL, arch, cubin, flags, 0, NULL, img, len, err,
                 errlen);
}

int sk_nvrtc_build(const sk_kspec *s, const char *source, sk_image **out,
                   int *from_disk_out, char *err, size_t errlen) {
  char why[1600];
  const sk_nvrtc_api *nv = sk_nvrtc_load(why, sizeof why);
  if (!nv) {
    sk_err(err, errlen, SK_E_CANNOT_COMPILE_CUDA, why);
    return -1;
  }
  char arch[24], flags[1024];
  int cubin;
  pick_arch(s->arch, arch, sizeof arch, &cubin);
  nvrtc_flags(flags, sizeof flags);
  char ver[32];
  snprintf(ver, sizeof ver, "nvrtc-%d", sk_nvrtc_version());
  uint64_t key = sk_hash(source, strlen(source), 0xc0da);
  key = sk_hash(ver, strlen(ver), key);
  key = sk_hash(arch, strlen(arch), key);
  key = sk_hash(flags, strlen(flags), key);
  key = sk_hash(SK_JIT_VERSION, strlen(SK_JIT_VERSION), key);
  const char *suffix = cubin ? ".cubin" : ".ptx";
  size_t len = 0;
  int claimed = 0; /* the shelf's entry (the library's, made at build
                     * time), the cache's, or another process's as it
                     * finishes */
  char *data = sk_disk_shelf_read(key, suffix, &len);
  if (!data) data = sk_disk_await(key, suffix, &len, &claimed);
  int from_disk = data != NULL;
  if (data && !cubin) { /* PTX must end in NUL for the driver */
    char *g = realloc(data, len + 1);
    if (!g) {
      free(data);
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    data = g;
    data[len] = '\0';
  }
  if (!data) {
    int rc = build_image(nv, s, source, arch, cubin, flags, &data, &len, err, errlen);
    if (rc == 0) sk_disk_write(key, suffix, data, len);
    if (claimed) sk_disk_unclaim(key, suffix);
    if (rc < 0) return -1;
  }
  sk_image *img = calloc(1, sizeof *img);
  if (!img) {
    free(data);
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  img->data = data;
  img->size = cubin ? len : len + 1;
  img->is_binary = cubin;
  snprintf(img->arch, sizeof img->arch, "%s", arch);
  img->pattern = s->pattern;
  img->policy_kind = s->policy_kind;
  img->md_rank = s->md_rank;
  sk_codegen_cuda_perm(s, img->md_perm);
  img->nargs = s->ncap;
  img->bounds = s->bounds;
  /* only team_scratch / thread_scratch can set a team launch's flag */
  img->scratch = memmem(s->body, s->body_len, "_scratch", 8) != NULL;
  for (int i = 0; i < s->ncap; i++) {
    if (s->caps[i].kind == SK_CAP_VIEW && sk_space_host_accessible(s->caps[i].space))
      img->host_visible = 1;
    /* a remote view's global index beyond its extent is reported through
     * the bounds record, bounds-check mode or not */
    if (s->caps[i].kind == SK_CAP_VIEW && sk_space_remote(s->caps[i].space))
      img->bounds = 1;
  }
  *out = img;
  *from_disk_out = from_disk;
  return 0;
}
