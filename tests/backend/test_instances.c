/* test_instances.c: execution-space instances through the back-end table
 * (core/backend.h's instance_create / instance_destroy / instance_fence /
 * copy_async, sk_launch.instance), on the device-like back end of this
 * folder (devlike.c) given instance entries that record what they are
 * asked: sk_rt_instance_create makes the back end's handle, a launch whose
 * policy carries the instance hands the handle to 'launch', a launch
 * without one hands NULL, deep_copy on an instance takes 'copy_async' for
 * dense views of one index map and otherwise fences the instance and
 * copies as ever, an instance of another back end is refused naming both,
 * fence and release reach the back end, and a back end without instance
 * entries (serial) gives its default instance. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

#include "devlike.c"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* what the instance entries saw */
static struct {
  int creates, destroys, fences, async_copies;
  void *last_launch, *last_copy;
  int launches_seen;
} ic;
static int tag; /* the handle's address: any distinct pointer */

static void *inst_create(char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  ic.creates++;
  return &tag;
}
static void inst_destroy(void *h) {
  if (h == &tag) ic.destroys++;
}
static int inst_fence(void *h, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  if (h == &tag) ic.fences++;
  return 0;
}
static int inst_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                     void *h, char *err, size_t errlen) {
  ic.async_copies++;
  ic.last_copy = h;
  (void)dspace;
  (void)sspace;
  (void)err;
  (void)errlen;
  memmove(dst, src, bytes); /* done at once: an asynchronous copy may be */
  return 0;
}
static int inst_launch(const sk_launch *l, char *err, size_t errlen) {
  ic.launches_seen++;
  ic.last_launch = l->instance;
  return devlike_launch(l, err, errlen);
}

static int run(const char *label, const char *body, const sk_policy *p, sk_arg *args,
               int nargs, sk_result *res, int pattern, char *err, size_t errlen) {
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = label;
  d.body = body;
  d.pattern = pattern;
  d.bounds = -1;
  d.tier = SK_TIER_TCC;
  return sk_run(&d, p, args, nargs, res, err, errlen);
}

int main(void) {
  char err[4096] = "";
  CHECK(devlike_register(err, sizeof err) == 0);
  devlike.instance_create = inst_create;
  devlike.instance_destroy = inst_destroy;
  devlike.instance_fence = inst_fence;
  devlike.copy_async = inst_copy;
  devlike.launch = inst_launch;
  CHECK(sk_rt_initialize("devlike", 1, 0, err, sizeof err) == 0);
  int sp = devlike_count.space;

  /* an instance of the active back end, and of one without instances */
  sk_instance in, ser;
  CHECK(sk_rt_instance_create(NULL, &in, err, sizeof err) == 0);
  CHECK(in.backend == &devlike && in.handle == &tag && ic.creates == 1);
  CHECK(sk_rt_instance_create("devlike", &in, err, sizeof err) == 0 && ic.creates == 2);
  CHECK(sk_rt_instance_create("serial", &ser, err, sizeof err) == 0);
  CHECK(ser.backend == &sk_backend_serial && ser.handle == NULL);
  CHECK(sk_rt_instance_create("mars", &ser, err, sizeof err) < 0);
  CHECK(strstr(err, "unknown space 'mars'") != NULL);
  CHECK(sk_rt_instance_create("serial", &ser, err, sizeof err) == 0);

  enum { N = 256 };
  int64_t n = N;
  sk_view hx, x, y;
  CHECK(sk_view_create(&hx, "hx", SK_F64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                       sizeof err) == 0);
  for (int i = 0; i < N; i++) ((double *)hx.data)[i] = i;
  CHECK(sk_view_create(&x, "x", SK_F64, 1, &n, SK_LEFT, sp, 1, NULL, err, sizeof err) == 0);
  CHECK(sk_view_create(&y, "y", SK_F64, 1, &n, SK_LEFT, sp, 1, NULL, err, sizeof err) == 0);

  /* deep_copy on the instance: the block form goes to copy_async */
  int in0 = devlike_count.copies_in;
  CHECK(sk_view_deep_copy_on(&x, &hx, &in, err, sizeof err) == 0);
  CHECK(ic.async_copies == 1 && ic.last_copy == &tag && devlike_count.copies_in == in0);
  /* device to device, too */
  CHECK(sk_view_deep_copy_on(&y, &x, &in, err, sizeof err) == 0);
  CHECK(ic.async_copies == 2 && devlike_count.copies_dev == 0);
  /* a default instance: the ordinary copy */
  sk_instance none = {&devlike, NULL};
  CHECK(sk_view_deep_copy_on(&y, &hx, &none, err, sizeof err) == 0);
  CHECK(ic.async_copies == 2 && devlike_count.copies_in == in0 + 1);
  CHECK(sk_view_deep_copy_on(&y, &hx, NULL, err, sizeof err) == 0);
  CHECK(ic.async_copies == 2 && devlike_count.copies_in == in0 + 2);

  /* a launch on the instance sees its handle; one without sees NULL */
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = N;
  p.instance = &in;
  sk_arg a[2] = {sk_arg_view("x", &x), sk_arg_view("y", &y)};
  CHECK(run("inst_for", "y(i) = 2 * x(i);", &p, a, 2, NULL, SK_FOR, err, sizeof err) == 0);
  CHECK(ic.last_launch == &tag);
  sk_result r;
  CHECK(run("inst_sum", "acc += y(i);", &p, a + 1, 1, &r, SK_REDUCE, err, sizeof err) == 0);
  CHECK(ic.last_launch == &tag && sk_result_f64(&r, 0) == (double)N * (N - 1));
  p.instance = NULL;
  CHECK(run("plain_sum", "acc += y(i);", &p, a + 1, 1, &r, SK_REDUCE, err, sizeof err) ==
        0);
  CHECK(ic.last_launch == NULL && sk_result_f64(&r, 0) == (double)N * (N - 1));

  /* a prepared kernel takes the instance per launch */
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = "inst_prep";
  d.body = "y(i) = x(i) + 1;";
  d.pattern = SK_FOR;
  d.bounds = -1;
  d.tier = SK_TIER_TCC;
  sk_prepared *h = sk_prepare(&d, SK_POL_RANGE, 0, a, 2, 0, err, sizeof err);
  CHECK(h != NULL);
  p.instance = &in;
  CHECK(h && sk_run_prepared(h, &p, a, 2, NULL, err, sizeof err) == 0);
  CHECK(ic.last_launch == &tag);

  /* an instance of another back end is refused before anything runs */
  int seen = ic.launches_seen;
  p.instance = &ser;
  CHECK(run("far", "y(i) = 0;", &p, a + 1, 1, NULL, SK_FOR, err, sizeof err) < 0);
  CHECK(strcmp(err, "an instance of space 'serial' cannot launch on space 'devlike'") == 0);
  CHECK(h && sk_run_prepared(h, &p, a, 2, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "an instance of space 'serial' cannot launch on space 'devlike'"));
  CHECK(ic.launches_seen == seen);
  sk_prepared_free(h);

  /* anything but the block form (here: dtypes that differ) fences the
   * instance, then is the ordinary deep_copy, its errors included */
  sk_view z;
  CHECK(sk_view_create(&z, "z", SK_I64, 1, &n, SK_LEFT, sp, 1, NULL, err, sizeof err) == 0);
  int f0 = ic.fences;
  CHECK(sk_view_deep_copy_on(&z, &x, &in, err, sizeof err) < 0);
  CHECK(ic.fences == f0 + 1 && ic.async_copies == 2);
  CHECK(strstr(err, "dtypes differ") != NULL);
  int64_t n2 = N / 2;
  sk_view w;
  CHECK(sk_view_create(&w, "w", SK_F64, 1, &n2, SK_LEFT, sp, 1, NULL, err, sizeof err) == 0);
  CHECK(sk_view_deep_copy_on(&w, &x, &in, err, sizeof err) < 0);
  CHECK(ic.fences == f0 + 2 && strstr(err, "extents") != NULL);
  f0 = ic.fences;

  /* the results of the launches on the instance */
  sk_view hy;
  int64_t ext = N;
  CHECK(sk_view_create(&hy, "hy", SK_F64, 1, &ext, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                       sizeof err) == 0);
  CHECK(sk_view_deep_copy(&hy, &y, err, sizeof err) == 0);
  CHECK(((double *)hy.data)[10] == 11 && ((double *)hy.data)[N - 1] == N);

  /* fence and release reach the back end; release leaves the default */
  CHECK(sk_rt_instance_fence(&in, err, sizeof err) == 0 && ic.fences == f0 + 1);
  CHECK(sk_rt_instance_fence(&ser, err, sizeof err) == 0 && ic.fences == f0 + 1);
  sk_rt_instance_release(&in);
  CHECK(ic.destroys == 1 && in.handle == NULL);
  sk_rt_instance_release(&in);
  CHECK(ic.destroys == 1);
  sk_rt_instance_release(&ser);

  sk_view_release(&hy);
  sk_view_release(&z);
  sk_view_release(&w);
  sk_view_release(&x);
  sk_view_release(&y);
  sk_view_release(&hx);
  sk_rt_finalize();
  sk_jit_drain();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
