/* tcc.c: the libtcc tier: compile generated source in-process, in well
 * under a millisecond, into memory held by the returned state.
 *
 * libtcc 0.9.27 keeps global state, so compiles are serialised. The
 * caller (jit.c) keeps the state as long as the code may run. The
 * generated code includes no
 * headers; math and atomics resolve to the
 * runtime's functions registered here (backends/host/symbols.c), and
 * libtcc's own helpers come from libtcc1.a found next to the binary.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "core/runtime.h"
#include "libtcc.h"

#include "../backends/host/symbols.h"
#include "jit.h"
#include "tier.h"
#include "strbuf.h"

static pthread_mutex_t tcc_lock = PTHREAD_MUTEX_INITIALIZER;

/* The libtcc1.a directory: an immutable string behind an atomic pointer,
 * since every new VM sets it while other VMs' threads compile. A replaced
 * string is kept (on 'retired'), so pointers handed out stay valid;
 * setting the same directory again allocates nothing. */
typedef struct dirname {
  struct dirname *next;
  const char *s; /* the bytes after the struct, or "" */
} dirname;
/* (not a flexible array member: a static empty one would have no room
 * for its NUL, which strcmp read past -- found by fuzz_codegen) */
static dirname empty_dir = {NULL, ""};
static dirname *libdir = &empty_dir; /* atomic */
static dirname *retired;             /* under tcc_lock */

void sk_tcc_set_libdir(const char *dir) {
  if (!dir) dir = "";
  pthread_mutex_lock(&tcc_lock);
  dirname *cur = __atomic_load_n(&libdir, __ATOMIC_ACQUIRE);
  size_t n = strlen(dir) + 1;
  dirname *d = strcmp(cur->s, dir) == 0 ? NULL : malloc(sizeof *d + n);
  if (d) {
    char *text = (char *)(d + 1);
    memcpy(text, dir, n);
    d->s = text;
    if (cur != &empty_dir) {
      cur->next = retired;
      retired = cur;
    }
    __atomic_store_n(&libdir, d, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&tcc_lock);
}

const char *sk_tcc_libdir(void) { return __atomic_load_n(&libdir, __ATOMIC_ACQUIRE)->s; }

/* "body:3: error: x" -> "body line 3: error: x", collected in order */
static void on_error(void *opaque, const char *msg) {
  sk_buf *b = opaque;
  if (b->n) sk_buf_puts(b, "\n");
  const char *p = msg;
  if (strncmp(p, "<string>:", 9) == 0) p += 9;
  const char *colon = strchr(p, ':');
  if (colon && colon[1] >= '0' && colon[1] <= '9' &&
      (strncmp(p, "body:", 5) == 0 || strncmp(p, "prelude:", 8) == 0 ||
       strncmp(p, "init:", 5) == 0 || strncmp(p, "join:", 5) == 0)) {
    sk_buf_add(b, p, (size_t)(colon - p));
    sk_buf_puts(b, " line ");
    sk_buf_puts(b, colon + 1);
  } else {
    sk_buf_puts(b, p);
  }
}

static void copy_err(sk_buf *m, char *err, size_t errlen) {
  if (m->s && m->n) sk_jit_diag(err, errlen, m->s);
  else sk_err(err, errlen, SK_E_LIBTCC_FAILED);
}

/* What sk_tcc_build returns as the code's handle: the libtcc state and
 * the memory the code was relocated into (ours, so its range is known). */
typedef struct tcc_code {
  TCCState *s;
  void *mem;
  const char *source; /* the caller's (a user's body: it outlives the code) */
  int ranged;         /* the range was added (core/coderange.c) */
} tcc_code;

/* libtcc's addition (scripts/libtcc_lines.c) */
int sk_tcc_stab_line(TCCState *s1, unsigned long long pc, const char *file);

/* Compile 'source' into memory of our own (*mem, *size), under
 * 'tcc_lock'; 'kicked': without polls (dialect/host.h SK__GO); 'debug':
 * with line information (-g; libtcc's machine code is the same). NULL
 * with the messages in 'msg' (or none: out of memory). */
static TCCState *compile_locked(const char *source, int kicked, int debug, void **mem,
                                int *size, sk_buf *msg, int *created) {
  *mem = NULL;
  const char *dir = sk_tcc_libdir();
  TCCState *s = tcc_new();
  *created = s != NULL;
  if (!s) return NULL;
  tcc_set_error_func(s, msg, on_error);
  if (dir[0]) tcc_set_lib_path(s, dir);
  tcc_set_options(s, debug ? "-nostdlib -nostdinc -g" : "-nostdlib -nostdinc");
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  if (kicked) tcc_define_symbol(s, "SK_KICKED", "1");
  int rc = tcc_compile_string(s, source);
  if (rc == 0) {
    for (const sk_host_symbol *y = sk_host_symbols(); y->name; y++)
      tcc_add_symbol(s, y->name, y->addr);
    char path[4200];
    snprintf(path, sizeof path, "%s/libtcc1.a", dir);
    if (dir[0] && access(path, R_OK) == 0) tcc_add_file(s, path);
    *size = tcc_relocate(s, NULL);
    rc = *size < 0 ? -1 : 0;
  }
  if (rc == 0) {
    /* aligned as libtcc aligns the code (64 bytes): the code starts at
     * the same offset in every compile of one source (code_line) */
    *mem = aligned_alloc(64, ((size_t)*size + 63) & ~(size_t)63);
    rc = *mem ? tcc_relocate(s, *mem) : -1;
  }
  if (rc < 0) {
    tcc_delete(s);
    free(*mem);
    *mem = NULL;
    return NULL;
  }
  return s;
}

/* core/coderange.c's resolver: the body line of 'pc' in a user's code,
 * from the same source compiled again with line information (a fault is
 * rare; the code every launch runs carries none) */
static int code_line(void *owner, uintptr_t pc) {
  tcc_code *h = owner;
  sk_buf msg;
  sk_buf_init(&msg);
  void *mem;
  int size, line = 0, created;
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = compile_locked(h->source, 1, 1, &mem, &size, &msg, &created);
  if (s) {
    line = sk_tcc_stab_line(s, (unsigned long long)((uintptr_t)mem + (pc - (uintptr_t)h->mem)),
                            "body");
    tcc_delete(s);
    free(mem);
  }
  pthread_mutex_unlock(&tcc_lock);
  sk_buf_free(&msg);
  return line;
}

/* libtcc keeps global state: a compile runs under 'tcc_lock'. */
int sk_tcc_build(const char *source, int user, sk_ccode *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  sk_buf msg;
  sk_buf_init(&msg);
  /* a user's body left from the outside (backends/host/guard.c): its
   * loops need no polls, and a fault names its line */
  int kicked = user && sk_body_kicks();
  void *mem;
  int size, created;
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = compile_locked(source, kicked, 0, &mem, &size, &msg, &created);
  tcc_code *h = s ? malloc(sizeof *h) : NULL;
  if (!h) {
    if (s) sk_err(err, errlen, SK_E_NOMEM);
    else if (created) copy_err(&msg, err, errlen);
    else sk_err(err, errlen, SK_E_LIBTCC_CANNOT_CREATE);
    if (s) tcc_delete(s);
    free(mem);
    pthread_mutex_unlock(&tcc_lock);
    sk_buf_free(&msg);
    return -1;
  }
  h->s = s;
  h->mem = mem;
  h->source = source;
  h->ranged = kicked && sk_code_range_add(mem, (size_t)size, h);
  if (h->ranged) sk_code_line_resolver(code_line);
  out->fn = tcc_get_symbol(s, "sk__kernel");
  out->init = tcc_get_symbol(s, "sk__init");
  out->join = tcc_get_symbol(s, "sk__join");
  out->layout = tcc_get_symbol(s, "sk__layout");
  sk_buf_free(&msg);
  out->dl = h;
  pthread_mutex_unlock(&tcc_lock);
  if (!out->fn) {
    sk_tcc_free(h);
    memset(out, 0, sizeof *out);
    sk_err(err, errlen, SK_E_LIBTCC_GENERATED_CODE);
    return -1;
  }
  return 0;
}

void sk_tcc_free(void *code) {
  tcc_code *h = code;
  if (!h) return;
  if (h->ranged) sk_code_range_remove(h->mem);
  pthread_mutex_lock(&tcc_lock);
  tcc_delete(h->s);
  pthread_mutex_unlock(&tcc_lock);
  free(h->mem);
  free(h);
}
