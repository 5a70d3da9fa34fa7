/* sched.c: speck.task's scheduler as its callers see it (task.h): the
 * functors, their compilation through sk_run, and the scheduler ops that
 * run the tasks -- the back end's own ('tasks' in its table: a device
 * keeps its queues in its memory) or the host's threads' (hsched.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "task.h"
#include "kbodies.h"

struct sk_sched {
  const sk_backend *b;
  const sk_task_ops *ops; /* b->tasks, or the host's (sk_host_tasks) */
  void *impl;             /* the ops' scheduler */
  /* the back end the functors' table is compiled for: b, or the host's
   * when the tasks run elsewhere (the fields' layout is the same there) */
  const sk_backend *hb;
  int nthreads;
  sk_tfunctors fn; /* functor.c fills these through sk_sched_functor/compile */
  uint64_t generation;
};

/* -- the scheduler -------------------------------------------------------- */
sk_sched *sk_sched_new(const sk_backend *b, int64_t memory, int queue, char *err,
                       size_t errlen) {
  if (!b) { /* the active back end, or the host's when it runs no host code */
    if (!(b = sk_rt_backend(err, errlen))) return NULL;
    if (b->code != SK_CODE_HOST) b = sk_backend_for_space(SK_SPACE_HOST);
    if (!b) {
      sk_err(err, errlen, SK_E_NO_HOST_BACK);
      return NULL;
    }
  }
  const sk_task_ops *ops = b->tasks ? b->tasks : &sk_host_tasks;
  const sk_backend *hb = b->tasks ? sk_backend_for_space(SK_SPACE_HOST) : b;
  if (!hb) {
    sk_err(err, errlen, SK_E_NO_HOST_BACK);
    return NULL;
  }
  sk_sched *s = calloc(1, sizeof *s);
  if (!s) {
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  s->b = b;
  s->ops = ops;
  s->hb = hb;
  if (!(s->impl = ops->create(b, &s->fn, memory, queue, err, errlen))) {
    free(s);
    return NULL;
  }
  s->nthreads = ops->lanes(s->impl);
  return s;
}

void sk_sched_free(sk_sched *s) {
  if (!s) return;
  s->ops->destroy(s->impl);
  for (int k = 0; k < s->fn.nf; k++) free(s->fn.fx[k].body);
  free(s->fn.fx);
  free(s->fn.source);
  free(s);
}

sk_mpool *sk_sched_pool(sk_sched *s) {
  return s->ops->pool ? s->ops->pool(s->impl) : NULL;
}
int sk_sched_threads(const sk_sched *s) { return s->nthreads; }
uint64_t sk_sched_generation(const sk_sched *s) { return s->generation; }

void sk_sched_retain(sk_sched *s, struct sk_task *t) { s->ops->retain(s->impl, t); }
void sk_sched_release(sk_sched *s, struct sk_task *t) { s->ops->release(s->impl, t); }
int sk_sched_team_size(const sk_sched *s) { return s->ops->team_size(s->impl); }
int sk_sched_reaches(const sk_sched *s, int space) {
  return s->ops->reaches(s->impl, space);
}

struct sk_task *sk_sched_spawn(sk_sched *s, int f, const void *fields, int prio, int team,
                               char *err, size_t errlen) {
  if (f < 0 || f >= s->fn.compiled) {
    sk_err(err, errlen, SK_E_FUNCTOR_NOT_COMPILED, f);
    return NULL;
  }
  return s->ops->spawn(s->impl, f, fields, prio, team, err, errlen);
}

int sk_sched_result(const sk_sched *s, const struct sk_task *t, sk_slot *v, int *dtype,
                    char *err, size_t errlen) {
  uint64_t result = 0;
  int f = -1;
  int rc = s->ops->result(s->impl, t, &result, &f, err, errlen);
  if (rc < 0) return -1;
  if (rc == 0) {
    /* the scheduler's own table names the functor (a back end's copy of
     * it may not hold every functor before the first wait) */
    const char *label = f < 0 ? "when_all" : f < s->fn.nf ? s->fn.fx[f].label : "?";
    sk_err(err, errlen, SK_E_TASK_NOT_COMPLETED_CALL, label);
    return -1;
  }
  *dtype = f >= 0 ? s->fn.fx[f].ret : -1;
  memset(v, 0, sizeof *v);
  memcpy(v, &result, sizeof result);
  return 0;
}

int sk_sched_wait(sk_sched *s, char *err, size_t errlen) {
  if (sk_sched_compile(s, err, errlen) < 0) return -1;
  int rc = s->ops->wait(s->impl, err, errlen);
  if (rc < 0) s->generation++; /* its tasks are gone */
  return rc;
}

void sk_sched_stats_get(const sk_sched *s, sk_sched_stats *st) {
  s->ops->stats(s->impl, st);
}

/* -- functors ------------------------------------------------------------- */
int sk_sched_functor(sk_sched *s, const sk_tfunctor *f, char *err, size_t errlen) {
  if (sk_task_check_functor(f, err, errlen) < 0) return -1;
  if (sk_sched_find(s, f->label) >= 0) {
    sk_err(err, errlen, SK_E_FUNCTOR_DECLARED_ALREADY, f->label);
    return -1;
  }
  if (s->fn.nf == SK_TASK_MAXFUNCTORS) {
    sk_err(err, errlen, SK_E_MORE_THAN_FUNCTORS, SK_TASK_MAXFUNCTORS);
    return -1;
  }
  if (s->fn.nf == s->fn.capf) {
    int n = s->fn.capf ? 2 * s->fn.capf : 8;
    sk_tfunctor *a = realloc(s->fn.fx, (size_t)n * sizeof *a);
    if (!a) goto oom;
    s->fn.fx = a;
    s->fn.capf = n;
  }
  sk_tfunctor *g = &s->fn.fx[s->fn.nf];
  *g = *f;
  if (!(g->body = strdup(f->body))) goto oom;
  return s->fn.nf++;
oom:
  sk_err(err, errlen, SK_E_NOMEM);
  return -1;
}

int sk_sched_nfunctors(const sk_sched *s) { return s->fn.nf; }
const sk_tfunctor *sk_sched_functor_at(const sk_sched *s, int i) {
  return i >= 0 && i < s->fn.nf ? &s->fn.fx[i] : NULL;
}
int sk_sched_find(const sk_sched *s, const char *label) {
  for (int k = 0; k < s->fn.nf; k++)
    if (strcmp(s->fn.fx[k].label, label) == 0) return k;
  return -1;
}
int64_t sk_sched_field_offset(const sk_sched *s, int f, int k) {
  return s->fn.tab.off[f][k];
}
int64_t sk_sched_fields_size(const sk_sched *s, int f) { return s->fn.tab.size[f]; }

/* One try at the functors' table: generate the source when new ones
 * came, and look it up (or compile it) through sk_run at every wait, so
 * the table follows the JIT's tier-ups; then the scheduler takes what it
 * needs of the layout (ops 'compiled'; once per set of functors with
 * 'compile_once': a device's kernel). A compiler's message names the
 * functors ("functor 'fib' line 3: ..."). */
static int try_compile(sk_sched *s, char *err, size_t errlen) {
  if (!s->fn.source || s->fn.compiled != s->fn.nf) {
    free(s->fn.source);
    s->fn.source = sk_task_codegen(s->fn.fx, s->fn.nf, NULL, err, errlen);
    if (!s->fn.source) return -1;
  }
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = "speck.task functors";
  d.body = sk_body_task_functors;
  d.prelude = s->fn.source;
  d.pattern = SK_FOR;
  d.backend = s->hb;
  d.library = 1;
  d.bounds = 0;
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.begin = 0;
  p.end = 1;
  sk_arg a = sk_arg_i64("table", (int64_t)(intptr_t)&s->fn.tab);
  char msg[4096];
  if (sk_run(&d, &p, &a, 1, NULL, msg, sizeof msg) < 0) {
    sk_task_compile_message(s->fn.fx, s->fn.nf, msg, err, errlen);
    return -1;
  }
  if (s->fn.tab.n != s->fn.nf) {
    sk_err(err, errlen, SK_E_FUNCTORS_CODE_REPORTS, s->fn.tab.n, s->fn.nf);
    return -1;
  }
  if (s->ops->compiled(s->impl, err, errlen) < 0) return -1;
  s->fn.compiled = s->fn.nf;
  return 0;
}

/* 1 when message 'msg' names functor 'label' ("functor 'label' line") */
static int names(const char *msg, const char *label) {
  char key[96];
  snprintf(key, sizeof key, "functor '%s' line ", label);
  return strstr(msg, key) != NULL;
}

/* Compile the functors declared since the last table.
 * A functor that does not compile is reported and forgotten: the ones
 * the compiler's message names are dropped (all the new ones when it
 * names none) and the rest compiled again, so the scheduler keeps
 * working for every other functor; the call still fails with the first
 * message and the names of the functors forgotten. Only functors not yet
 * in a table are dropped: no task or future refers to them. */
int sk_sched_compile(sk_sched *s, char *err, size_t errlen) {
  if (s->fn.nf == 0) return 0;
  if (s->ops->compile_once && s->fn.compiled == s->fn.nf) return 0;
  char first[4096], gone[1024];
  first[0] = gone[0] = 0;
  size_t ng = 0;
  while (try_compile(s, err, errlen) < 0) {
    if (s->fn.compiled == s->fn.nf) return -1; /* nothing new to blame */
    if (!first[0]) snprintf(first, sizeof first, "%s", err);
    int named = 0;
    for (int k = s->fn.compiled; k < s->fn.nf; k++)
      named |= names(err, s->fn.fx[k].label);
    for (int k = s->fn.nf - 1; k >= s->fn.compiled; k--) {
      if (named && !names(err, s->fn.fx[k].label)) continue;
      if (ng < sizeof gone)
        ng += (size_t)snprintf(gone + ng, sizeof gone - ng, "%s'%s'", ng ? ", " : "",
                               s->fn.fx[k].label);
      free(s->fn.fx[k].body);
      memmove(&s->fn.fx[k], &s->fn.fx[k + 1],
              (size_t)(s->fn.nf - k - 1) * sizeof *s->fn.fx);
      s->fn.nf--;
    }
    free(s->fn.source);
    s->fn.source = NULL;
    if (s->fn.compiled == s->fn.nf) break;
  }
  if (!first[0]) return 0;
  sk_err(err, errlen, SK_E_FUNCTORS_FORGOTTEN, first, gone);
  return -1;
}

/* -- a task.MemoryPool in a back end's memory (its scheduler's ops) -------- */
void *sk_gpool_new(const sk_backend *b, int64_t bytes, char *err, size_t errlen) {
  if (!b->tasks || !b->tasks->pool_new) {
    sk_err(err, errlen, SK_E_BACK_END_CANNOT_HOLD_MEMORY, b->name);
    return NULL;
  }
  return b->tasks->pool_new(b, bytes, err, errlen);
}

void sk_gpool_free(const sk_backend *b, void *pool) {
  if (b->tasks && b->tasks->pool_free) b->tasks->pool_free(b, pool);
}

int sk_gpool_stats(const sk_backend *b, void *pool, sk_mpool_stats *out, char *err,
                   size_t errlen) {
  if (!b->tasks || !b->tasks->pool_stats) {
    sk_err(err, errlen, SK_E_BACK_END_CANNOT_HOLD_MEMORY, b->name);
    return -1;
  }
  return b->tasks->pool_stats(b, pool, out, err, errlen);
}
