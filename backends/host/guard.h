/* guard.h: faults and interrupts inside kernel bodies on the host back
 * ends (guard.c).
 *
 * Every thread that runs a launch's share (the caller and each pool
 * worker) runs it inside a guard: SK_GUARDED sets a sigsetjmp point and
 * makes the guard the thread's current one. While a chunk function runs
 * (SK_BODY_CALL: the body's execution window) a SIGSEGV, SIGBUS, SIGFPE
 * or SIGILL raised by the CPU jumps back to that point with the fault
 * recorded (on an alternate signal stack, so a stack overflow is caught
 * too); outside the window the signal goes to the handler that was there
 * before (a sanitizer's) or ends the process as it would have. A loop
 * poll in a user's body or a barrier (dialect/abi.h: sk_ctx.stop/poll)
 * jumps back the same way when the process is interrupted or another
 * thread of the launch faulted. The thread then leaves its share; the
 * launch reports what happened once every thread is back.
 */
#ifndef SK_HOST_GUARD_H
#define SK_HOST_GUARD_H

#include <setjmp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum { SK_GUARD_NONE, SK_GUARD_FAULT, SK_GUARD_INTERRUPT, SK_GUARD_ABANDON };

typedef struct sk_fault {
  int sig, code;     /* the signal and its si_code */
  uintptr_t addr;    /* si_addr: the address (SIGSEGV, SIGBUS) or instruction */
  uintptr_t pc;      /* the faulting instruction */
  int stack;         /* the thread's stack overflowed */
  size_t stack_size; /* its size in bytes (when known) */
} sk_fault;

typedef struct sk_guard {
  sigjmp_buf jb;
  atomic_int *stop;     /* the launch's stop word: not 0 = leave */
  volatile int in_body; /* inside a chunk function */
  volatile int why;     /* SK_GUARD_* after a jump back */
  sk_fault fault;
  struct sk_guard *prev;
} sk_guard;

extern _Thread_local sk_guard *sk_guard_cur;

/* make 'g' current ('stop': the launch's stop word); the signal handlers
 * and this thread's alternate stack are set up on first use */
void sk_guard_begin(sk_guard *g, atomic_int *stop);
void sk_guard_end(sk_guard *g);
/* Kicks: libtcc-compiled user bodies are left from the outside (no
 * polls; guard.c). setup when a host back end starts (its watchdog
 * thread), stop when it finishes (the thread joined). */
void sk_guard_async_setup(void);
void sk_guard_async_stop(void);
/* sk_ctx.poll: leaves the body (a jump to the guard) when the process is
 * interrupted or the launch is being abandoned, else returns 0 */
int sk_guard_poll(void);
/* the message for a recorded fault: "the body faulted (...)", with the
 * body line where the code's range knows it (core/coderange.c) */
void sk_guard_message(const sk_fault *f, char *err, size_t errlen);

#define SK_GUARDED(g, stopword, call)                                         \
  do {                                                                       \
    sk_guard_begin(&(g), (stopword));                                        \
    if (sigsetjmp((g).jb, 0) == 0) {                                         \
      call;                                                                  \
    }                                                                        \
    sk_guard_end(&(g));                                                      \
  } while (0)

/* a call of a chunk function: the window in which faults are the body's */
#define SK_BODY_CALL(call)                                                   \
  do {                                                                       \
    sk_guard *sk_g_ = sk_guard_cur;                                          \
    if (sk_g_) sk_g_->in_body = 1;                                           \
    call;                                                                    \
    if (sk_g_) sk_g_->in_body = 0;                                           \
  } while (0)

#endif
