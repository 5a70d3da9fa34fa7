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
 *
 * Kicks (sk_guard_async_setup): code the libtcc tier compiled for a
 * user's body has no polls; it is left from the outside. Every thread
 * that runs launches has a slot naming its current guard. When the
 * interrupt is requested or a launch is marked faulted, the core calls
 * the kick (a semaphore post, safe in a signal handler); a watchdog
 * thread then sends SK_KICK_SIG to each thread inside a body, every
 * 2 ms while the body word is set. The thread's handler jumps back to
 * its guard -- as a fault does -- only when the interrupted instruction
 * is in such code (core/coderange.c) and the thread has a reason to
 * leave; in speck's own code, a library kernel or libm it returns, and
 * the next kick tries again. Not under ThreadSanitizer, which delivers a
 * signal only when the thread next calls into its runtime (libtcc's code
 * never does): there the libtcc tier keeps its polls.
 */
#define _GNU_SOURCE
#include "guard.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
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

static uintptr_t context_pc(void *ucv) {
  const ucontext_t *uc = ucv;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
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
  g->fault.pc = context_pc(uc);
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

/* -- kicks ----------------------------------------------------------------- */
#if defined(__SANITIZE_THREAD__)
#define SK_KICKS 0
#else
#define SK_KICKS 1
#endif
#define SK_KICK_SIG (SIGRTMIN + 7)
#define SK_KICK_MAGIC 0x5eec
#define NSLOTS 1024

/* a slot a thread that runs launches: its id and its current guard */
static struct {
  pthread_t th;
  sk_guard *g; /* atomic */
  int taken;   /* atomic */
} slots[NSLOTS];
static int slots_used; /* atomic, grows */
static _Thread_local int my_slot = -1;
static pthread_key_t slot_key;
static sem_t wd_sem;
static pthread_once_t async_once = PTHREAD_ONCE_INIT;
static int async_ready; /* the handler, semaphore and slot key exist */
/* the watchdog thread: started with a host back end, stopped with it (an
 * embedding program's finished runtime leaves no thread behind) */
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t wd_thread;
static int wd_running, wd_quit; /* wd_quit atomic */

static void on_kick(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  if (si->si_code != SI_QUEUE || si->si_value.sival_int != SK_KICK_MAGIC) return;
  sk_guard *g = sk_guard_cur;
  if (!g || !g->in_body || !sk_code_range_has(context_pc(uc))) return;
  int why = SK_GUARD_NONE;
  if (sk_interrupted()) why = SK_GUARD_INTERRUPT;
  else if (g->stop && atomic_load_explicit(g->stop, memory_order_relaxed)) why = SK_GUARD_ABANDON;
  if (why == SK_GUARD_NONE) return;
  g->in_body = 0;
  g->why = why;
  siglongjmp(g->jb, 1);
}

static void slot_release(void *p) {
  int k = (int)(intptr_t)p - 1;
  __atomic_store_n(&slots[k].g, NULL, __ATOMIC_RELEASE);
  __atomic_store_n(&slots[k].taken, 0, __ATOMIC_RELEASE);
}

/* this thread's slot (once a thread); none when all are taken: its
 * libtcc bodies are then left only at piece boundaries */
static void slot_claim(void) {
  if (!async_ready) return;
  for (int k = 0; k < NSLOTS; k++) {
    int free_ = 0;
    if (__atomic_compare_exchange_n(&slots[k].taken, &free_, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      slots[k].th = pthread_self();
      __atomic_store_n(&slots[k].g, NULL, __ATOMIC_RELAXED);
      int u = __atomic_load_n(&slots_used, __ATOMIC_RELAXED);
      while (u < k + 1 && !__atomic_compare_exchange_n(&slots_used, &u, k + 1, 0,
                                                      __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
      }
      my_slot = k;
      pthread_setspecific(slot_key, (void *)(intptr_t)(k + 1));
      /* kicks reach this thread even where its creator blocked signals */
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SK_KICK_SIG);
      pthread_sigmask(SIG_UNBLOCK, &set, NULL);
      return;
    }
  }
}

static void kick(void) {
  sem_post(&wd_sem); /* async-signal-safe */
}

/* the watchdog: kicks the threads inside guards while the body word is
 * set (an interrupt, or a launch abandoning its threads); stops after
 * 20 ms with nobody inside a guard (a launch that starts later reads the
 * interrupt at its first piece boundary) */
static void *watchdog(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  for (;;) {
    /* (read before and after the wait: a stop's post may have been
     * drained below) */
    if (__atomic_load_n(&wd_quit, __ATOMIC_ACQUIRE)) return NULL;
    while (sem_wait(&wd_sem) != 0 && errno == EINTR) {
    }
    if (__atomic_load_n(&wd_quit, __ATOMIC_ACQUIRE)) return NULL;
    int idle = 0;
    while (*sk_body_flag() && idle < 10) {
      int any = 0, n = __atomic_load_n(&slots_used, __ATOMIC_ACQUIRE);
      for (int k = 0; k < n; k++) {
        /* a thread in a guard (not dereferenced: it is the thread's stack;
         * the handler looks whether the thread is inside a body) */
        if (!__atomic_load_n(&slots[k].taken, __ATOMIC_ACQUIRE) ||
            !__atomic_load_n(&slots[k].g, __ATOMIC_ACQUIRE))
          continue;
        union sigval v;
        v.sival_int = SK_KICK_MAGIC;
        pthread_sigqueue(slots[k].th, SK_KICK_SIG, v);
        any = 1;
      }
      idle = any ? 0 : idle + 1;
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
    }
    /* posts that came while kicking are answered */
    while (sem_trywait(&wd_sem) == 0) {
    }
  }
  return NULL;
}

static void async_install(void) {
  if (!SK_KICKS) return;
  if (sem_init(&wd_sem, 0, 0) != 0) return;
  if (pthread_key_create(&slot_key, slot_release) != 0) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_kick;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SK_KICK_SIG, &sa, NULL) != 0) return;
  async_ready = 1;
}

void sk_guard_async_setup(void) {
  pthread_once(&async_once, async_install);
  if (!async_ready) return;
  pthread_mutex_lock(&wd_lock);
  if (!wd_running) {
    __atomic_store_n(&wd_quit, 0, __ATOMIC_RELEASE);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 << 10);
    if (pthread_create(&wd_thread, &a, watchdog, NULL) == 0) {
      wd_running = 1;
      sk_body_kick_hook(kick);
    }
    pthread_attr_destroy(&a);
  }
  pthread_mutex_unlock(&wd_lock);
}

void sk_guard_async_stop(void) {
  pthread_mutex_lock(&wd_lock);
  if (wd_running) {
    sk_body_kick_hook(NULL);
    __atomic_store_n(&wd_quit, 1, __ATOMIC_RELEASE);
    sem_post(&wd_sem);
    pthread_join(wd_thread, NULL);
    wd_running = 0;
  }
  pthread_mutex_unlock(&wd_lock);
}

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
  slot_claim();
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
  if (my_slot >= 0) __atomic_store_n(&slots[my_slot].g, g, __ATOMIC_RELEASE);
}

void sk_guard_end(sk_guard *g) {
  g->in_body = 0;
  sk_guard_cur = g->prev;
  if (my_slot >= 0) __atomic_store_n(&slots[my_slot].g, g->prev, __ATOMIC_RELEASE);
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
  int line = sk_code_line(f->pc);
  size_t n = strlen(err);
  if (line > 0 && n > 0 && err[n - 1] == ')') {
    char base[512];
    snprintf(base, sizeof base, "%.*s", (int)(n - 1), err);
    sk_err(err, errlen, SK_E_BODY_FAULT_LINE, base, line);
  }
}
