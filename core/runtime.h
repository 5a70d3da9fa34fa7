/* runtime.h: the floor's runtime services (core/runtime.c, core/view.c,
 * core/env.c): the active back end, interrupts, host and device memory
 * budgets. Below every back end; nothing here knows a device. */
#ifndef SK_RUNTIME_H
#define SK_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

struct sk_backend;

/* -- runtime (core/runtime.c): the active back end ---------------- */
/* Initialise with 'space' (NULL: SPECK_SPACE or "openmp") and 'threads'
 * (<= 0: SPECK_THREADS, OMP_NUM_THREADS or the core count). Can be called
 * again after sk_rt_finalize. */
int sk_rt_initialize(const char *space, int threads, int device, char *err,
                     size_t errlen);
void sk_rt_finalize(void);
int sk_rt_initialized(void);
/* the active back end, initialising with the defaults on first use;
 * NULL only if that failed (message in 'err') */
const struct sk_backend *sk_rt_backend(char *err, size_t errlen);
int sk_rt_threads(void);
/* the space of new views (the active back end's; see runtime.c), or -1
 * with a message when no back end can be initialised */
int sk_rt_default_space(char *err, size_t errlen);

/* The settings of an initialisation; a member left unset means "not
 * given": the environment's value or the default is used, and a second
 * initialisation does not compare it. */
typedef struct sk_rt_settings {
  const char *space; /* NULL: SPECK_SPACE, else "openmp" */
  int threads;       /* <= 0: SPECK_THREADS, OMP_NUM_THREADS, the cores */
  int device;        /* < 0: device 0 */
} sk_rt_settings;
/* Start the runtime with 's' (after checking the environment, env.c). If
 * it runs already, nothing is restarted: every setting 's' gives must
 * equal the running one, else -1 with "already running with threads 2,
 * asked for 4 (...)". sk_rt_initialize is this with every setting given
 * ('device' >= 0). */
int sk_rt_start(const sk_rt_settings *s, char *err, size_t errlen);
/* Wait for the work of a space: NULL the active back end (initialising
 * it on first use), else a back end's name or a memory space's (the back
 * end that owns it). An unknown name is an error listing the known ones. */
int sk_rt_fence(const char *space, char *err, size_t errlen);

/* -- execution-space instances (core/runtime.c): speck.Instance ------ */
struct sk_instance;
/* A new instance of 'space' (NULL: the active back end; else a back
 * end's name or a memory space's, as sk_rt_fence reads it) into 'out':
 * the back end's own queue of work when it has instances (a GPU's
 * stream), else its default instance (handle NULL). 0 or -1. */
int sk_rt_instance_create(const char *space, struct sk_instance *out, char *err,
                          size_t errlen);
/* wait for the work queued on 'inst' (nothing for a default instance) */
int sk_rt_instance_fence(const struct sk_instance *inst, char *err, size_t errlen);
/* give the instance back (its queued work still runs); 'inst' is then
 * the default instance of its back end */
void sk_rt_instance_release(struct sk_instance *inst);

/* -- interrupts (core/runtime.c) ------------------------------------ */
/* A request that running launches stop (Ctrl-C in the REPL). Setting it
 * is one lock-free atomic store, safe in a signal handler; the host back
 * ends read it between the pieces of a launch and on every back edge of
 * a loop in a user's body (sk_body_flag) and end the launch with the
 * error SK_INTERRUPTED, every view keeping what was written. It stays set
 * (a loop of launches stops too) until a launch has reported it once
 * (sk_interrupt_reported) or the front end clears it. */
#define SK_INTERRUPTED "interrupted"
/* returns 1 when an interruptible launch was running (it will stop) */
int sk_interrupt_request(void);
void sk_interrupt_clear(void);
int sk_interrupted(void);
/* an interruptible launch starts / ends (the exec layer around a
 * launch's compile, the back ends around its run) */
void sk_interruptible_enter(void);
void sk_interruptible_leave(void);
/* a launch failed with SK_INTERRUPTED: the request is answered */
void sk_interrupt_reported(void);
/* The word bodies poll (dialect/abi.h sk_ctx.stop): bit 0 the interrupt
 * request, plus 2 for every launch abandoning its threads after a fault
 * (sk_body_fault_mark(+1 / -1) around that). */
const int *sk_body_flag(void);
extern int sk_body_stop_word; /* that word (backends/host/symbols.c) */
/* 'word' (or NULL) gets a copy of the interrupt bit from now on: a device
 * back end's mapped word its kernels poll */
void sk_body_flag_mirror(int *word);
void sk_body_fault_mark(int delta);
/* Who stops bodies asynchronously (the host back ends' guard): called,
 * from any thread or a signal handler, whenever the interrupt is
 * requested or a launch is marked faulted; it must be async-signal-safe.
 * NULL: nobody (the default). */
void sk_body_kick_hook(void (*kick)(void));
/* 1 once a kick is installed: the libtcc tier then compiles user bodies
 * without polls and adds their code ranges */
int sk_body_kicks(void);

/* -- code ranges (core/coderange.c) --------------------------------------
 * The machine code of JIT-compiled user bodies that may be left at any
 * instruction: a body stuck in an endless loop there is stopped by a
 * signal instead of a poll (backends/host/guard.c). The JIT adds a
 * range when it publishes such code and removes it before freeing it.
 * add returns 0 when the table is full (the code is then not added);
 * has is async-signal-safe. */
int sk_code_range_add(const void *lo, size_t n, void *owner);
void sk_code_range_remove(const void *lo);
int sk_code_range_has(uintptr_t pc);
/* The body line of 'pc' in a range's code (0: unknown), answered by the
 * resolver the JIT sets with the range's 'owner' (not in a signal
 * handler: it may compile). */
void sk_code_line_resolver(int (*fn)(void *owner, uintptr_t pc));
int sk_code_line(uintptr_t pc);

/* -- captures (core/capture.c): speck.graph_capture ------------------------
 * While a function's launches are captured (exec/capture.c starts and ends
 * it), whatever needs the host -- a result read back, a fence, host memory,
 * a new allocation -- is refused where it is asked for: a replay runs the
 * captured operations alone, without the host. The floor keeps the state
 * so that every layer can ask. Mode: SK_CAPTURE_OFF, _CHECK (the launches
 * run; only the refusals apply: a host back end's capture, a device
 * back end's first pass) or _RECORD (the active back end records). */
enum { SK_CAPTURE_OFF, SK_CAPTURE_CHECK, SK_CAPTURE_RECORD };
int sk_capture_mode(void);
/* set the mode (exec/capture.c); a new capture's counts start at 0 */
void sk_capture_set_mode(int mode);
/* count a launch (1) or a copy or fill (0) of the capture in progress */
void sk_capture_note(int launch);
void sk_capture_counted(int64_t *launches, int64_t *copies);
/* 0 when no capture runs; else -1 with "speck.graph_capture: <what>
 * needs the host during a capture (<why>) ..." */
int sk_capture_refuse(const char *what, const char *why, char *err, size_t errlen);

/* -- host memory ---------------------------------------------------------- */
/* The most memory this process can have on the host -- RAM and swap, or a
 * lower cgroup or ulimit -v limit; 0 when unknown -- described in 'desc'
 * ("this machine's 23.5 GiB of RAM and swap"). (backends/host) */
uint64_t sk_host_memory(char *desc, size_t n);
/* Open (delta 1) or close (-1) a small-page scope on the calling thread;
 * gives the depth (0: none open). While one is open, the host blocks
 * allocated on this thread get 4 KiB pages, no huge-page advice: for
 * products written once and read a few times, such as an AMG setup's,
 * whose first touch of huge pages costs more than it saves.
 * (backends/host) */
int sk_host_small_pages(int delta);
/* bytes of host memory held by live views speck allocated, in host
 * memory and a device's page-locked memory (space.c) */
int64_t sk_view_host_bytes(void);
/* 0 when 'bytes' more fit beside the views held, else -1 with "cannot
 * allocate N bytes in space 'host' (with M bytes of views held, more than
 * <desc>)": for a driver, before the first of several allocations */
int sk_host_room(uint64_t bytes, char *err, size_t errlen);
/* A memory budget variable a back end's spaces declare (core/env.c): its
 * bytes (0 when unset), described in 'desc' ("NAME's 2.00 GiB") */
uint64_t sk_env_memory_max(const char *name, char *desc, size_t n);
/* Bytes that may still be allocated in 'space' (space.c): its budget (the
 * space's 'budget': host memory for host memory, a device back end's
 * variable for its memory) less the views held there, and no more than
 * its back end's free memory ('room'); -1 when nothing bounds it */
int64_t sk_space_room(int space);
#endif
