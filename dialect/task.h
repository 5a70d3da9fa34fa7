/* task.h: the task dialect -- the words a task functor's body uses
 * (seed 003 ch. 2) and the binary contract between the generated functor
 * code and the scheduler (kernels/task/).
 *
 * Included after abi.h and host.h by the source the scheduler generates
 * for a set of functors (kernels/task/functor.c); the runtime includes the
 * contract half only (SK_TASK_RUNTIME). Generated code reaches the
 * scheduler through the function table 'sk_task_api' (no symbol is
 * linked), so libtcc and cc-tier code call the same runtime.
 *
 * In a body:
 *   self.n, self.out(i)          the task's fields (its own memory)
 *   task_spawn(F, {.n = 3} [, TASK_HIGH])      a child task, its future
 *   task_spawn_team(F, {...} [, prio])          a child run by a team
 *   task_respawn(dep [, prio])   run this body again once 'dep' completes
 *                                (host code makes no future for a
 *                                when_all(...) written in the call)
 *   when_all(f1, f2, ...)        a future completing after all of them
 *   future_get(f)  future_is_null(f)  task_return(value)
 *   pool_alloc(bytes)  pool_free(p)           the scheduler's memory pool
 *   pool_alloc(mp, bytes)  pool_free(mp, p)   a captured MemoryPool 'mp'
 */
#ifndef SK_DIALECT_TASK_H
#define SK_DIALECT_TASK_H

/* priorities, served in this order (0: not given -- regular for a spawn,
 * the task's own for a respawn) */
#define TASK_HIGH 1
#define TASK_REGULAR 2
#define TASK_LOW 3

struct sk_task;
struct sk_tworker;

/* The memory pool's public head, at the start of every pool (and what a
 * kernel captures as 'mp'): 'self' points at itself and 'magic' is
 * SK_MPOOL_MAGIC, so a capture that is not a pool is refused, not
 * followed. alloc returns NULL when the pool is exhausted. */
#define SK_MPOOL_MAGIC 0x4c4f4f506b636570UL
typedef struct sk_mpool_head {
  struct sk_mpool_head *self;
  sk_u64 magic;
  void *(*alloc)(struct sk_mpool_head *p, sk_i64 bytes);
  void (*free)(struct sk_mpool_head *p, void *ptr);
} sk_mpool_head;

/* What generated task code calls ('w': the running worker). */
typedef struct sk_task_api {
  struct sk_task *(*spawn)(struct sk_tworker *w, int functor,
                           const void *fields, int prio, int team);
  struct sk_task *(*when_all)(struct sk_tworker *w, struct sk_task *const *deps,
                              int n);
  void (*respawn)(struct sk_tworker *w, struct sk_task *dep, int prio);
  sk_i64 (*get_i64)(struct sk_tworker *w, struct sk_task *f);
  double (*get_f64)(struct sk_tworker *w, struct sk_task *f);
  void *(*alloc)(struct sk_tworker *w, sk_i64 bytes);
  void (*free)(struct sk_tworker *w, void *p);
  /* task_respawn(when_all(deps...) [, prio]) in one call: no when_all
   * future is made (its result is seen by no one else) */
  void (*respawn_all)(struct sk_tworker *w, struct sk_task *const *deps, int n,
                      int prio);
} sk_task_api;

/* A body's environment: the table, the worker, the team. */
typedef struct sk_task_env {
  const sk_task_api *api;
  struct sk_tworker *w;
  sk_team_ctx *team;
} sk_task_env;

/* A body: its environment, its fields and its result (8 bytes). */
typedef void (*sk_task_fn)(const sk_task_env *env, void *self, void *res);

/* What the generated source reports about its functors (sk__task_fill):
 * per functor its body and the layout of its fields struct. */
#define SK_TASK_MAXFUNCTORS 64
#define SK_TASK_MAXFIELDS 32
typedef struct sk_task_table {
  int n;
  sk_task_fn fn[SK_TASK_MAXFUNCTORS];
  sk_i64 size[SK_TASK_MAXFUNCTORS];
  sk_i64 off[SK_TASK_MAXFUNCTORS][SK_TASK_MAXFIELDS];
} sk_task_table;

#ifndef SK_TASK_RUNTIME
typedef struct sk_task *future;

/* pool_alloc(bytes) / pool_free(p) in a task body; pool_alloc(mp, bytes) /
 * pool_free(mp, p) with a captured MemoryPool anywhere */
static inline sk_mpool_head *sk__pool_of(void *data) {
  sk_mpool_head *h = (sk_mpool_head *)data;
  return h && h->self == h && h->magic == SK_MPOOL_MAGIC ? h : (sk_mpool_head *)0;
}
static inline void *sk__pool_alloc2(void *v, sk_i64 bytes) {
  sk_mpool_head *h = sk__pool_of(v);
  return h ? h->alloc(h, bytes) : (void *)0;
}
static inline void sk__pool_free2(void *v, void *p) {
  sk_mpool_head *h = sk__pool_of(v);
  if (h) h->free(h, p);
}
#define SK__POOL_PICK(a, b, f, ...) f
#define pool_alloc(...)                                                      \
  SK__POOL_PICK(__VA_ARGS__, SK__POOL_ALLOC2, SK__POOL_ALLOC1, 0)(__VA_ARGS__)
#define pool_free(...)                                                       \
  SK__POOL_PICK(__VA_ARGS__, SK__POOL_FREE2, SK__POOL_FREE1, 0)(__VA_ARGS__)
#define SK__POOL_ALLOC2(mp, bytes) sk__pool_alloc2((void *)(mp).data, (sk_i64)(bytes))
#define SK__POOL_FREE2(mp, p) sk__pool_free2((void *)(mp).data, (void *)(p))
#define SK__POOL_ALLOC1(bytes) sk__env->api->alloc(sk__env->w, (sk_i64)(bytes))
#define SK__POOL_FREE1(p) sk__env->api->free(sk__env->w, (void *)(p))

/* outside a task body the task words are a clear compile error */
#define task_spawn(...) task_spawn_is_only_available_in_task_bodies
#define task_spawn_team(...) task_spawn_team_is_only_available_in_task_bodies
#define task_respawn(...) task_respawn_is_only_available_in_task_bodies
#define when_all(...) when_all_is_only_available_in_task_bodies
#define future_get(...) future_get_is_only_available_in_task_bodies
#define task_return(...) task_return_is_only_available_in_task_bodies
#endif
#endif

/* -- inside task bodies (the scheduler's generated source defines
 * SK_TASK_BODY and includes this text a second time) -- */
#if defined(SK_TASK_BODY) && !defined(SK_DIALECT_TASK_BODY_H)
#define SK_DIALECT_TASK_BODY_H
#undef task_spawn
#undef task_spawn_team
#undef task_respawn
#undef when_all
#undef future_get
#undef task_return
#define task_spawn(F, ...) sk__spawn_##F(0, __VA_ARGS__)
#define task_spawn_team(F, ...) sk__spawn_##F(1, __VA_ARGS__)
/* the generated code's spellings (the GPU's task header has its own) */
#define SK__TFN static inline
/* a body is not inline: tcc compiles inline functions late, and its
 * messages would name the wrong line */
#define SK__TBODY static
#define SK__TASK_TEAM                                                        \
  const sk__team_t team = {0, 1, sk__env->team->team_rank,                   \
                           sk__env->team->team_size,                          \
                           sk__env->team->vector_length, sk__env->team}
#define SK__T_SPAWN(e, f, fields, prio, team) (e)->api->spawn((e)->w, f, fields, prio, team)
#define SK__T_GET_I64(e, f) (e)->api->get_i64((e)->w, f)
#define SK__T_GET_F64(e, f) (e)->api->get_f64((e)->w, f)
/* task_respawn(dep [, prio]): the arguments initialise a struct, so the
 * priority left out is 0 and the helper inlines (no variadic call) */
typedef struct sk__respawn_args { future dep; int prio; } sk__respawn_args;
static inline void sk__respawn1(const sk_task_env *e, sk__respawn_args a) {
  e->api->respawn(e->w, a.dep, a.prio);
}
#define task_respawn(...) sk__respawn1(sk__env, (sk__respawn_args){__VA_ARGS__})
/* task_respawn(when_all(a, b, ...) [, prio]) as the generator writes it
 * for host code (kernels/task/functor.c): sk__respawn_all(((future[]){a,
 * b, ...}) [, prio]) -- one call, and the when_all no one else sees is
 * not made */
static inline void sk__respawn_all1(const sk_task_env *e, future *deps, int n, int prio) {
  e->api->respawn_all(e->w, deps, n, prio);
}
#define SK__RA_PICK(a, b, f, ...) f
#define sk__respawn_all(...) SK__RA_PICK(__VA_ARGS__, SK__RA2, SK__RA1, 0)(__VA_ARGS__)
#define SK__RA1(d) sk__respawn_all1(sk__env, d, (int)(sizeof(d) / sizeof(future)), 0)
#define SK__RA2(d, prio)                                                     \
  sk__respawn_all1(sk__env, d, (int)(sizeof(d) / sizeof(future)), (prio))
#define when_all(...)                                                        \
  sk__env->api->when_all(sk__env->w, (future[]){__VA_ARGS__},                \
                         (int)(sizeof((future[]){__VA_ARGS__}) / sizeof(future)))
#define future_is_null(f) ((f) == (future)0)

#endif
