/* cc.c: the optimising tier: the system C compiler builds the generated
 * source into a shared object that is loaded with dlopen.
 *
 * The compiler is found at run time (SPECK_CC, else cc, gcc, clang on
 * PATH); nothing from the build machine is baked in. Flags default to
 * -O3 -march=native plus -ffp-contract=off so floating-point results are
 * bitwise those of the libtcc tier (no FMA contraction, no fast-math);
 * SPECK_CFLAGS replaces them. The object's key hashes the source, the
 * compiler's identity (its --version line), the flags, the CPU model and
 * speck's version; with the disk cache on it is stored there. A compile
 * that runs longer than SPECK_CC_TIMEOUT seconds (default 60) is killed
 * with everything it started, and fails (the kernel keeps libtcc code);
 * so is a compile whose process dies (a guardian in the compiler's
 * process group, PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "tier.h"

extern char **environ;

/* -fstack-clash-protection: a frame larger than a page touches each page
 * as it grows, so a body's locals that overflow a thread's stack fault on
 * its guard page (caught: backends/host/guard.c) instead of landing in
 * the memory below it */
#define DEFAULT_CFLAGS \
  "-O3 -march=native -ffp-contract=off -fno-fast-math -fstack-clash-protection"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct {
  int ok;
  char path[1024];
  char ident[512];
  char flags[1024];
  char why[1200];
  char cpu[256];
} cc;

/* a new empty file named <dir>/speck-XXXXXX<suffix>, in the cache
 * directory when there is one (same file system as the entries) */
static int tmpfile_name(char *out, size_t n, const char *suffix) {
  const char *d = sk_disk_dir();
  if (!d) d = getenv("TMPDIR");
  if (!d || !*d) d = "/tmp";
  /* the pid: a file its process left behind is reaped (diskcache.c) */
  snprintf(out, n, "%s/.tmp-%d-speck-XXXXXX%s", d, (int)getpid(), suffix);
  int fd = mkstemps(out, (int)strlen(suffix));
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

static int find_in_path(const char *name, char *out, size_t n) {
  if (strchr(name, '/')) {
    snprintf(out, n, "%s", name);
    return access(out, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  if (!path) return 0;
  const char *p = path;
  while (*p) {
    const char *c = strchr(p, ':');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    snprintf(out, n, "%.*s/%s", (int)len, p, name);
    struct stat st;
    if (len && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
      return 1;
    p += len + (c ? 1 : 0);
    if (!c) break;
  }
  return 0;
}

#define RUN_TIMEOUT (-2)

/* Run argv with stderr (and stdout) to 'errfile'; returns the exit status,
 * -1 if it could not start, or RUN_TIMEOUT when it ran longer than
 * SPECK_CC_TIMEOUT seconds: then the compiler and everything it started
 * (its own process group: cc1, as, ld) are killed. */
/* The compiler's guardian (a child of this process, in its own process
 * group, which the compiler and everything it starts join): it runs the
 * compiler and exits with its status. When this process dies -- killed
 * mid-compile, even by SIGKILL -- the kernel sends the guardian SIGTERM
 * (PR_SET_PDEATHSIG), and it kills its whole group: no compiler is left
 * running. Only async-signal-safe calls after fork (this process has
 * threads). */
/* fork without the atfork handlers (glibc 2.34's _Fork): a library's
 * handler runs in this process before the copy -- OpenBLAS's shuts its
 * thread pool down, and a BLAS call running meanwhile on another thread
 * waited for its vanished workers for ever (seen in dense_spec, a
 * background compile forking during dtrtri). The child only execs. */
static pid_t fork_bare(void) {
  /* (not under ThreadSanitizer: the child's calls go through its
   * interceptors, which need its own fork's care of its locks) */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)) && \
  !defined(__SANITIZE_THREAD__)
  return _Fork();
#else
  return fork();
#endif
}

static void guardian_term(int sig) {
  (void)sig;
  kill(0, SIGKILL); /* the group: the compiler, its children, the guardian */
}

static void guardian(char *const argv[], const char *errfile, pid_t parent) {
  setpgid(0, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = guardian_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigset_t all;
  sigemptyset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(128); /* it died before prctl */
  int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) _exit(127);
  pid_t c = fork_bare();
  if (c == 0) {
    sa.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &sa, NULL);
    dup2(fd, 1);
    dup2(fd, 2);
    execve(argv[0], argv, environ);
    _exit(127);
  }
  if (c < 0) _exit(127);
  int st;
  while (waitpid(c, &st, 0) < 0)
    if (errno != EINTR) _exit(127);
  _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128);
}

static int run(char *const argv[], const char *errfile) {
  double limit;
  char msg[256];
  if (sk_env_cc_timeout(&limit, msg, sizeof msg) < 0) limit = SK_CC_TIMEOUT_DEFAULT;
  pid_t parent = getpid();
  pid_t pid = fork_bare();
  if (pid < 0) return -1;
  if (pid == 0) guardian(argv, errfile, parent);
  setpgid(pid, pid); /* (the child does it too: whichever runs first) */
  /* poll, sleeping 1 ms growing to 20 ms: compiles take tens of ms */
  double t0 = now_s(), nap = 1e-3;
  int st;
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (now_s() - t0 > limit) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
      return RUN_TIMEOUT;
    }
    struct timespec ts = {0, (long)(nap * 1e9)};
    nanosleep(&ts, NULL);
    if (nap < 20e-3) nap *= 2;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void read_file(const char *path, char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t r = fread(out, 1, n - 1, f);
  out[r] = '\0';
  fclose(f);
}

static void probe(void) {
  const char *flags = getenv("SPECK_CFLAGS");
  snprintf(cc.flags, sizeof cc.flags, "%s", flags && *flags ? flags : DEFAULT_CFLAGS);
  /* CPU model: -march=native objects are only valid on the same kind */
  char info[8192];
  read_file("/proc/cpuinfo", info, sizeof info);
  char *m = strstr(info, "model name");
  if (m) {
    char *colon = strchr(m, ':'), *nl = strchr(m, '\n');
    if (colon && nl && nl > colon)
      snprintf(cc.cpu, sizeof cc.cpu, "%.*s", (int)(nl - colon - 1), colon + 1);
  }
  const char *want = getenv("SPECK_CC");
  const char *cands[] = {"cc", "gcc", "clang", NULL};
  int found = 0;
  if (want && *want) {
    found = find_in_path(want, cc.path, sizeof cc.path);
    if (!found) {
      sk_err(cc.why, sizeof cc.why, SK_E_SPECK_CC_NOT, want);
      return;
    }
  } else {
    for (int i = 0; cands[i] && !found; i++)
      found = find_in_path(cands[i], cc.path, sizeof cc.path);
    if (!found) {
      sk_err(cc.why, sizeof cc.why, SK_E_NO_C_COMPILER);
      return;
    }
  }
  char out[4200];
  char *argv[] = {cc.path, "--version", NULL};
  int rc = 0;
  if (tmpfile_name(out, sizeof out, ".txt") < 0 || (rc = run(argv, out)) != 0) {
    unlink(out);
    if (rc == RUN_TIMEOUT)
      sk_err(cc.why, sizeof cc.why, SK_E_VERSION_RAN_LONGER, cc.path);
    else sk_err(cc.why, sizeof cc.why, SK_E_VERSION_FAILED, cc.path);
    return;
  }
  read_file(out, cc.ident, sizeof cc.ident);
  unlink(out);
  char *nl = strchr(cc.ident, '\n');
  if (nl) *nl = '\0';
  cc.ok = 1;
}

int sk_cc_available(void) {
  pthread_once(&once, probe);
  return cc.ok;
}

const char *sk_cc_path(void) { return sk_cc_available() ? cc.path : NULL; }
const char *sk_cc_ident(void) {
  sk_cc_available();
  return cc.ident;
}
const char *sk_cc_flags(void) {
  sk_cc_available();
  return cc.flags;
}
const char *sk_cc_why(void) {
  sk_cc_available();
  return cc.why;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

uint64_t sk_cc_key(const char *source) {
  sk_cc_available();
  uint64_t h = sk_hash(source, strlen(source), 0x5eed);
  h = sk_hash(cc.ident, strlen(cc.ident), h);
  h = sk_hash(cc.flags, strlen(cc.flags), h);
  h = sk_hash(cc.cpu, strlen(cc.cpu), h);
  return sk_hash(SK_JIT_VERSION, strlen(SK_JIT_VERSION), h);
}

static int load(const char *path, sk_ccode *out, char *err, size_t errlen) {
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    sk_err(err, errlen, SK_E_CANNOT_LOAD, path, dlerror());
    return -1;
  }
  out->dl = dl;
  out->fn = dlsym(dl, "sk__kernel");
  out->init = dlsym(dl, "sk__init");
  out->join = dlsym(dl, "sk__join");
  out->layout = dlsym(dl, "sk__layout");
  if (!out->fn) {
    dlclose(dl);
    out->dl = NULL;
    sk_err(err, errlen, SK_E_LACKS_SK_KERNEL, path);
    return -1;
  }
  return 0;
}

/* Look the object up on disk only (no compile). 1 if loaded. */
int sk_cc_lookup(const char *source, sk_ccode *out) {
  memset(out, 0, sizeof *out);
  if (!sk_cc_available() || !sk_disk_enabled()) return 0;
  char path[4200], err[256];
  double t0 = now();
  uint64_t key = sk_cc_key(source);
  if (!sk_disk_check(key, ".so", path, sizeof path)) return 0;
  if (load(path, out, err, sizeof err) < 0) return 0;
  out->from_disk = 1;
  out->seconds = now() - t0;
  return 1;
}

/* Compile 'source' (or load it from the disk cache) into 'out'. */
int sk_cc_build(const char *source, sk_ccode *out, char *err, size_t errlen) {
  if (sk_cc_lookup(source, out)) return 0;
  memset(out, 0, sizeof *out);
  if (!sk_cc_available()) {
    sk_err(err, errlen, SK_E_CC_TIER_UNAVAILABLE, cc.why);
    return -1;
  }
  double t0 = now();
  uint64_t key = sk_cc_key(source);
  char src[4200], so[4200], log[4200], final[4200];
  int disk = sk_disk_enabled();
  if (tmpfile_name(src, sizeof src, ".c") < 0) {
    sk_err(err, errlen, SK_E_CANNOT_CREATE_TEMPORARY, strerror(errno));
    return -1;
  }
  if (tmpfile_name(log, sizeof log, ".log") < 0 ||
      tmpfile_name(so, sizeof so, ".so") < 0) {
    unlink(src);
    unlink(log);
    sk_err(err, errlen, SK_E_CANNOT_CREATE_TEMPORARY, strerror(errno));
    return -1;
  }
  FILE *f = fopen(src, "w");
  int wok = f && fputs(source, f) >= 0;
  if (f && fclose(f) != 0) wok = 0;
  if (!wok) {
    sk_err(err, errlen, SK_E_CANNOT_WRITE, src);
    unlink(src);
    unlink(log);
    unlink(so);
    return -1;
  }
  /* argv: cc <flags...> -fPIC -shared -w -o so src */
  char flags[1024];
  snprintf(flags, sizeof flags, "%s", cc.flags);
  char *argv[80];
  int n = 0;
  argv[n++] = cc.path;
  /* strtok_r: the background compiler and a synchronous jit = "cc"
   * compile can be here at the same time */
  char *save = NULL;
  for (char *t = strtok_r(flags, " \t", &save); t && n < 70;
       t = strtok_r(NULL, " \t", &save))
    argv[n++] = t;
  argv[n++] = "-fPIC";
  argv[n++] = "-shared";
  argv[n++] = "-w";
  argv[n++] = "-o";
  argv[n++] = so;
  argv[n++] = src;
  argv[n] = NULL;
  int rc = run(argv, log);
  if (rc == RUN_TIMEOUT) {
    double limit;
    char m[256];
    if (sk_env_cc_timeout(&limit, m, sizeof m) < 0) limit = SK_CC_TIMEOUT_DEFAULT;
    sk_err(err, errlen, SK_E_RAN_LONGER_THAN, cc.path, limit);
    unlink(src);
    unlink(log);
    unlink(so);
    return -1;
  }
  if (rc != 0) {
    char msg[1500];
    read_file(log, msg, sizeof msg);
    sk_err(err, errlen, SK_E_FAILED_STATUS, cc.path, rc, msg);
    unlink(src);
    unlink(log);
    unlink(so);
    return -1;
  }
  unlink(src);
  unlink(log);
  /* Load the object under its temporary name before committing it: once
   * committed, the entry may be evicted (by this process when it alone
   * exceeds SPECK_CACHE_MAX, or by another process) before it could be
   * opened by its final name. Committing appends the trailer past the
   * object's end and renames the file; the mapping is unaffected. */
  rc = load(so, out, err, errlen);
  if (rc < 0) {
    unlink(so);
    return -1;
  }
  if (disk) {
    /* a failed commit only means the object is not cached */
    (void)sk_disk_commit(so, key, ".so", final, sizeof final);
  } else {
    unlink(so); /* mapped; the name is no longer needed */
  }
  out->seconds = now() - t0;
  return 0;
}
