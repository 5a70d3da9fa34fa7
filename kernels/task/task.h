/* task.h: the task family's internal interface (kernels/task/): the
 * memory pool (mpool.c), the scheduler (sched.c: the facade; hsched.c:
 * the host's) and the functor source generator (functor.c). No Lua here: vm/ltask.c binds it.
 */
#ifndef SK_TASK_H
#define SK_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "../kernels.h"
#define SK_TASK_RUNTIME
#include "../../dialect/task.h"

/* -- memory pool (mpool.c), seed 003 §3.4 ---------------------------------
 * Superblocks of one power-of-two size, each serving blocks of one size
 * class at a time (16 bytes up to the superblock) from a bitset; a
 * superblock whose blocks are all free can serve another class. Allocation
 * and free are lock-free (a CAS reserving a block in the superblock's
 * state word, then a fetch-or / fetch-and on its bitset). */
typedef struct sk_mpool sk_mpool;

/* A pool of about 'bytes' (at least one superblock; superblocks of
 * 'sb_bytes', 0: chosen from 'bytes'). NULL with a message. */
sk_mpool *sk_mpool_new(int64_t bytes, int64_t sb_bytes, char *err, size_t errlen);
void sk_mpool_free(sk_mpool *p);
/* a block of at least 'bytes' (16-byte aligned), NULL when exhausted or
 * larger than a superblock */
void *sk_mpool_alloc(sk_mpool *p, int64_t bytes);
/* 0, or -1 when 'ptr' is not a live block of 'p' (nothing changes) */
int sk_mpool_release(sk_mpool *p, void *ptr);
/* the block size 'ptr' was served with (0: not a live block) */
int64_t sk_mpool_block_size(const sk_mpool *p, const void *ptr);
/* forget every block (nothing may use them any more) */
void sk_mpool_reset(sk_mpool *p);
/* in_use: bytes of live blocks; high_water: the most superblocks ever in
 * use at once, in bytes */
typedef struct sk_mpool_stats {
  int64_t capacity, superblock, in_use, high_water, failures;
  int64_t allocs, frees;
} sk_mpool_stats;
void sk_mpool_stats_get(const sk_mpool *p, sk_mpool_stats *s);
/* the head a kernel captures (dialect/task.h) */
sk_mpool_head *sk_mpool_head_of(sk_mpool *p);
/* "memory pool of 1.0 MiB exhausted (1.0 MiB in use ...)" */
void sk_mpool_describe(const sk_mpool *p, int64_t asked, char *buf, size_t n);

/* -- functors ------------------------------------------------------------- */
enum { SK_TF_SCALAR, SK_TF_FUTURE, SK_TF_VIEW };
typedef struct sk_tfield {
  char name[48];
  int kind;  /* SK_TF_* */
  int dtype; /* scalar: its dtype; view: the element dtype */
  int rank, layout;
  sk_varg view; /* view: the declared view (the default) */
} sk_tfield;

typedef struct sk_tfunctor {
  char label[64];
  int nfields;
  sk_tfield fields[SK_TASK_MAXFIELDS]; /* sorted by name */
  int ret;                             /* dtype of task_return's value, -1: none */
  char *body;                          /* malloc'd */
} sk_tfunctor;

/* -- functor.c: checks and the generated source ------------------------- */
/* the label, fields and body text of 'f' (before anything is compiled) */
int sk_task_check_functor(const sk_tfunctor *f, char *err, size_t errlen);
/* one source holding the 'n' functors' field structs and bodies, for
 * the code target named 'target' (jit/target.h; NULL: host C) in its task
 * dialect: with host code the table filler 'sk__task_fill', with an image
 * the dispatch the device workers call (malloc'd), NULL with a message */
char *sk_task_codegen(const sk_tfunctor *fx, int n, const char *target, char *err,
                      size_t errlen);
/* a compiler message about the generated source, its "label:line:" turned
 * into "functor 'label' line N:" */
void sk_task_compile_message(const sk_tfunctor *fx, int n, const char *msg, char *err,
                             size_t errlen);

/* -- scheduler (sched.c) ---------------------------------------------- */
typedef struct sk_sched sk_sched;
/* priorities inside the runtime (the dialect's TASK_* codes are these + 1) */
enum { SK_PRIO_HIGH, SK_PRIO_REGULAR, SK_PRIO_LOW };
enum { SK_QUEUE_MULTIPLE, SK_QUEUE_SINGLE };

/* A scheduler on back end 'b' (NULL: the active one) with a pool of
 * 'memory' bytes and queues of 'queue' kind; with NULL on a back end that
 * runs no host code (a GPU), the host's back end. */
sk_sched *sk_sched_new(const sk_backend *b, int64_t memory, int queue, char *err,
                       size_t errlen);
void sk_sched_free(sk_sched *s);
/* Declare functor 'f' (copied); checks the label, the fields and the
 * body's text. Returns its index or -1 with a message. */
int sk_sched_functor(sk_sched *s, const sk_tfunctor *f, char *err, size_t errlen);
int sk_sched_nfunctors(const sk_sched *s);
const sk_tfunctor *sk_sched_functor_at(const sk_sched *s, int i);
int sk_sched_find(const sk_sched *s, const char *label); /* -1: none */
/* Compile the functors declared so far (nothing when up to date). */
int sk_sched_compile(sk_sched *s, char *err, size_t errlen);
/* The byte offset of field 'k' of functor 'f' in its fields struct and
 * the struct's size (after sk_sched_compile). */
int64_t sk_sched_field_offset(const sk_sched *s, int f, int k);
int64_t sk_sched_fields_size(const sk_sched *s, int f);
/* Spawn functor 'f' from the host with its fields struct 'fields' (the
 * layout above); the returned future holds one reference for the caller
 * (sk_sched_release). prio SK_PRIO_*; team 1 for a team task. */
struct sk_task *sk_sched_spawn(sk_sched *s, int f, const void *fields, int prio, int team,
                               char *err, size_t errlen);
/* Run every spawned task to completion on the back end's threads. */
int sk_sched_wait(sk_sched *s, char *err, size_t errlen);
/* the generation of the scheduler's tasks: a failed wait discards every
 * task and starts a new one */
uint64_t sk_sched_generation(const sk_sched *s);
void sk_sched_retain(sk_sched *s, struct sk_task *t);
void sk_sched_release(sk_sched *s, struct sk_task *t);
/* a completed task's result: 0, or -1 when it has not completed */
int sk_sched_result(const sk_sched *s, const struct sk_task *t, sk_slot *v, int *dtype,
                    char *err, size_t errlen);
int sk_sched_task_functor(const struct sk_task *t); /* -1: when_all */
typedef struct sk_sched_stats {
  int64_t tasks, respawns, steals, pool_high_water, pool_in_use, spawned, pending;
} sk_sched_stats;
void sk_sched_stats_get(const sk_sched *s, sk_sched_stats *st);
sk_mpool *sk_sched_pool(sk_sched *s);
int sk_sched_threads(const sk_sched *s);

/* -- scheduler ops ------------------------------------------------------
 * What runs the tasks of a scheduler: the host's threads (hsched.c,
 * sk_host_tasks) or a back end's own, named by its table's 'tasks' entry
 * (a GPU's persistent workers, in its back end's folder). sched.c is the
 * facade over them: it owns the functors and compiles their table
 * through sk_run, the ops see them through 'reg'. */
typedef struct sk_tfunctors {
  sk_tfunctor *fx;
  int nf, capf;
  int compiled;      /* functors in the compiled table */
  sk_task_table tab; /* their layout and entry points */
  char *source;      /* the generated functor source */
} sk_tfunctors;

typedef struct sk_task_ops {
  /* 1: the functors' kernel is made once per set of functors (a device's);
   * 0: looked up at every wait (it follows the JIT's tier-ups) */
  int compile_once;
  /* a scheduler on 'b' over the functors 'reg' (the facade's, alive as
   * long as it), 'memory' bytes for its tasks, queues SK_QUEUE_* */
  void *(*create)(const sk_backend *b, const sk_tfunctors *reg, int64_t memory, int queue,
                  char *err, size_t errlen);
  void (*destroy)(void *sch);
  int (*lanes)(void *sch);              /* the threads that run tasks */
  int (*team_size)(void *sch);          /* a team task's threads */
  int (*reaches)(void *sch, int space); /* 1 when its tasks reach 'space' */
  /* after every compile of the functors (reg->tab is new) */
  int (*compiled)(void *sch, char *err, size_t errlen);
  /* functor f (compiled) from the host; the future holds one reference */
  struct sk_task *(*spawn)(void *sch, int f, const void *fields, int prio, int team,
                           char *err, size_t errlen);
  void (*retain)(void *sch, struct sk_task *t);
  void (*release)(void *sch, struct sk_task *t);
  /* 1 when 't' completed (its result's bits in *result), 0 when not yet,
   * -1 with a message; its functor (-1: when_all) in *f (the scheduler's
   * table names it) */
  int (*result)(void *sch, const struct sk_task *t, uint64_t *result, int *f, char *err,
                size_t errlen);
  /* run every spawned task to completion; -1 discards every task */
  int (*wait)(void *sch, char *err, size_t errlen);
  void (*stats)(void *sch, sk_sched_stats *st);
  sk_mpool *(*pool)(void *sch); /* its host pool; NULL: none */
  /* optional: a task.MemoryPool in the back end's memory (sk_gpool_*) */
  void *(*pool_new)(const sk_backend *b, int64_t bytes, char *err, size_t errlen);
  void (*pool_free)(const sk_backend *b, void *pool);
  int (*pool_stats)(const sk_backend *b, void *pool, sk_mpool_stats *out, char *err,
                    size_t errlen);
} sk_task_ops;
/* the host's threads' scheduler (hsched.c): a back end without 'tasks' */
extern const sk_task_ops sk_host_tasks;

/* the scheduler's team tasks' size (host: its threads; GPU: a warp) */
int sk_sched_team_size(const sk_sched *s);
/* 1 when the scheduler's tasks reach memory of 'space' */
int sk_sched_reaches(const sk_sched *s, int space);

#define SK_GPU_SUPERBLOCK 65536 /* the GPU task header's superblock */
/* a task.MemoryPool in GPU memory: its arena (what a kernel captures),
 * NULL with a message; its stats read back from the device (the back
 * end's scheduler ops, 'pool_new' ..) */
void *sk_gpool_new(const sk_backend *b, int64_t bytes, char *err, size_t errlen);
void sk_gpool_free(const sk_backend *b, void *pool);
int sk_gpool_stats(const sk_backend *b, void *pool, sk_mpool_stats *out, char *err,
                   size_t errlen);

#endif
