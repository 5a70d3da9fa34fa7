/* guard.c: faults and interrupts inside kernel bodies on the host back
 * ends (see guard.h).
 *
 * Handlers for SIGSEGV, SIGBUS, SIGFPE and SIGILL are installed on the
 * first guarded launch (SA_ONSTACK: they run on the thread's alternate
 * signal stack, which every thread that runs a launch gets, so a body
 * whose locals overflow its stack is caught too; SA_NODEFER: the jump out
 * of the handler leaves the signal unblocked without a system call). A
 * signal the CPU raised (si_code > 0) while the thread's guard is inside
 * a chunk function is the body's: recorded, and the thread jumps back to
 * its guard. Any other -- outside a body, or sent by kill -- goes to the
 * handler installed before ours (AddressSanitizer's, an embedding
 * program's), or ends the process as it would have without speck (the
 * default action, re-raised). Whoever installs a handler after speck's
 * takes these signals over: bodies' faults then reach that handler.
 *
 * Polls (sk_guard_poll, reached from loops in bodies and from team
 * barriers through sk_ctx.poll) jump back the same way, from ordinary
 * code: no handler is involved.
 */
#define _GNU_SOURCE
#include "guard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/err.h"
#include "core/runtime.h"

_Thread_local sk_guard *sk_guard_cur;

static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define NSIGS ((int)(sizeof sigs / sizeof sigs[0]))
static struct sigaction prev_act[NSIGS];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

/* this thread's stack [lo, hi) (0 when unknown) and whether it has its
 * alternate signal stack */
static _Thread_local uintptr_t stack_lo, stack_hi;
static _Thread_local int thread_ready;
static pthread_key_t altstack_key;

#define ALTSTACK_BYTES ((size_t)256 << 10) /* room for a sanitizer's report */

static void chain(int sig, siginfo_t *si, void *uc) {
  int k = 0;
  while (k < NSIGS && sigs[k] != sig) k++;
  if (k == NSIGS) return;
  const struct sigaction *o = &prev_act[k];
  if ((o->sa_flags & SA_SIGINFO) && o->sa_sigaction) {
    o->sa_sigaction(sig, si, uc);
    return;
  }
  if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN && o->sa_handler) {
    o->sa_handler(sig);
    return;
  }
  if (o->sa_handler == SIG_IGN && si->si_code <= 0) return; /* sent, ignored */
  /* the default action: a fault the CPU raised happens again when the
   * handler returns, now with nobody catching it; a sent one is raised */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  if (si->si_code <= 0) raise(sig);
}

static uintptr_t context_sp(void *ucv) {
  const ucontext_t *uc = ucv;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.sp;
#else
  (void)uc;
  return 0;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *uc) {
  sk_guard *g = sk_guard_cur;
  if (!g || !g->in_body || si->si_code <= 0) {
    chain(sig, si, uc);
    return;
  }
  g->in_body = 0;
  g->why = SK_GUARD_FAULT;
  g->fault.sig = sig;
  g->fault.code = si->si_code;
  g->fault.addr = (uintptr_t)si->si_addr;
  g->fault.stack = 0;
  g->fault.stack_size = stack_hi - stack_lo;
  if (sig == SIGSEGV && stack_lo) {
    /* a stack overflow: the stack pointer went below the stack (a frame
     * larger than what is left), or the access is just under it (the
     * guard page and the gap below it) */
    uintptr_t sp = context_sp(uc), a = g->fault.addr;
    if ((sp && sp < stack_lo + 4096) || (a < stack_lo + 4096 && a + ((uintptr_t)1 << 20) >= stack_lo))
      g->fault.stack = 1;
  }
  siglongjmp(g->jb, 1);
}

static void altstack_free(void *p);

static void install(void) {
  pthread_key_create(&altstack_key, altstack_free);
  for (int k = 0; k < NSIGS; k++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[k], &sa, &prev_act[k]);
  }
}

/* a thread's alternate stack, when speck made it: released when the
 * thread ends */
static void altstack_free(void *p) {
  stack_t off;
  memset(&off, 0, sizeof off);
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, NULL);
  munmap(p, ALTSTACK_BYTES);
}

static void thread_setup(void) {
  thread_ready = 1;
  pthread_attr_t a;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    void *lo;
    size_t size;
    if (pthread_attr_getstack(&a, &lo, &size) == 0) {
      stack_lo = (uintptr_t)lo;
      stack_hi = stack_lo + size;
    }
    pthread_attr_destroy(&a);
  }
  stack_t cur;
  if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
    return; /* one is there (a sanitizer's, the program's): kept */
  void *p = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED) return; /* faults still caught, stack overflows not */
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = p;
  ss.ss_size = ALTSTACK_BYTES;
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(p, ALTSTACK_BYTES);
    return;
  }
  pthread_setspecific(altstack_key, p);
}

void sk_guard_begin(sk_guard *g, atomic_int *stop) {
  pthread_once(&install_once, install);
  if (!thread_ready) thread_setup();
  g->stop = stop;
  g->in_body = 0;
  g->why = SK_GUARD_NONE;
  memset(&g->fault, 0, sizeof g->fault);
  g->prev = sk_guard_cur;
  sk_guard_cur = g;
}

void sk_guard_end(sk_guard *g) {
  g->in_body = 0;
  sk_guard_cur = g->prev;
}

int sk_guard_poll(void) {
  sk_guard *g = sk_guard_cur;
  if (!g) return 0;
  int why = SK_GUARD_NONE;
  if (sk_interrupted()) why = SK_GUARD_INTERRUPT;
  else if (g->stop && atomic_load_explicit(g->stop, memory_order_relaxed)) why = SK_GUARD_ABANDON;
  if (why == SK_GUARD_NONE) return 0;
  g->in_body = 0;
  g->why = why;
  siglongjmp(g->jb, 1);
}

void sk_guard_message(const sk_fault *f, char *err, size_t errlen) {
  unsigned long long a = (unsigned long long)f->addr;
  if (f->sig == SIGSEGV && f->stack)
    sk_err(err, errlen, SK_E_BODY_FAULT_STACK, a, f->stack_size >> 10);
  else if (f->sig == SIGSEGV) sk_err(err, errlen, SK_E_BODY_FAULT_ACCESS, a);
  else if (f->sig == SIGBUS) sk_err(err, errlen, SK_E_BODY_FAULT_BUS, a);
  else if (f->sig == SIGFPE && (f->code == FPE_INTDIV || f->code == FPE_INTOVF))
    sk_err(err, errlen, SK_E_BODY_FAULT_DIVZERO);
  else if (f->sig == SIGFPE) sk_err(err, errlen, SK_E_BODY_FAULT_ARITH, f->code);
  else sk_err(err, errlen, SK_E_BODY_FAULT_ILL, a);
}
