/* devlike.c: a device-like back end that lives in a test folder.
 *
 * It proves that a back end is one folder and one registration: nothing
 * outside tests/backend/ knows it. It starts from the serial reference
 * table and overrides what a device does differently: it brings a memory
 * space of its own, "devlike", that the CPU may not touch (not host
 * accessible; new views default to layout 'left' there, as on a GPU), it
 * allocates, frees and copies that memory itself (host <-> device copies
 * go through its 'copy', deep_copy and fill stage through it), and its
 * kernels reach only that space. Underneath it is the serial back end's
 * host code: the memory is plain malloc'd memory, so its kernels run as
 * serial's do. It counts what it did, for the test (test_devlike.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"

static struct {
  int allocs, frees, copies_in, copies_out, copies_dev, launches, fences;
  int space; /* the id its space got at registration */
} devlike_count = {.space = -1};

static sk_backend devlike; /* filled by devlike_register */

/* nothing budgets it: no 'budget' */
static const sk_space_desc devlike_spaces[] = {
  {.name = "devlike",
   .id = -1,
   .host_accessible = 0,
   .default_layout = SK_LEFT,
   .tools_name = "DevLike"},
  {.name = NULL},
};

static int devlike_owns(int space) { return space == devlike_count.space; }
/* its kernels reach its own memory only (not even host memory) */
static int devlike_reaches(int space) { return space == devlike_count.space; }

static void *devlike_alloc(size_t bytes, int space, char *err, size_t errlen) {
  if (space != devlike_count.space) {
    snprintf(err, errlen, "devlike allocates space devlike, not %s",
             sk_space_name(space));
    return NULL;
  }
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p) snprintf(err, errlen, "devlike: out of memory");
  else devlike_count.allocs++;
  return p;
}

static void devlike_free(void *p, int space) {
  (void)space;
  if (p) devlike_count.frees++;
  free(p);
}

/* host <-> device and device <-> device; anything else is refused */
static int devlike_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                        char *err, size_t errlen) {
  int dd = dspace == devlike_count.space, sd = sspace == devlike_count.space;
  int dh = sk_space_host_accessible(dspace), sh = sk_space_host_accessible(sspace);
  if (!((dd || dh) && (sd || sh)) || (!dd && !sd)) {
    snprintf(err, errlen, "devlike cannot copy %s -> %s", sk_space_name(sspace),
             sk_space_name(dspace));
    return -1;
  }
  if (dd && sd) devlike_count.copies_dev++;
  else if (dd) devlike_count.copies_in++;
  else devlike_count.copies_out++;
  memmove(dst, src, bytes);
  return 0;
}

static void devlike_first_touch(void *p, size_t bytes) { memset(p, 0, bytes); }

static int devlike_fence(char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  devlike_count.fences++;
  return 0;
}

static int devlike_launch(const sk_launch *l, char *err, size_t errlen) {
  devlike_count.launches++;
  return sk_backend_serial.launch(l, err, errlen); /* serial's host code */
}

static void devlike_info(char *buf, size_t n) {
  snprintf(buf, n, "devlike: a device-like space from tests/backend");
}

/* Register the back end: its space first (its id becomes the table's
 * 'space'), then the table. 0 or -1 with a message. */
static int devlike_register(char *err, size_t errlen) {
  int id = sk_space_register(&devlike_spaces[0], err, errlen);
  if (id < 0) return -1;
  devlike_count.space = id;
  devlike = sk_backend_serial; /* start from the reference */
  devlike.name = "devlike";
  devlike.space = id;
  devlike.spaces = devlike_spaces;
  devlike.owns = devlike_owns;
  devlike.reaches = devlike_reaches;
  devlike.alloc = devlike_alloc;
  devlike.free = devlike_free;
  devlike.copy = devlike_copy;
  devlike.first_touch = devlike_first_touch;
  devlike.fence = devlike_fence;
  devlike.launch = devlike_launch;
  devlike.info = devlike_info;
  return sk_backend_register(&devlike, err, errlen);
}
