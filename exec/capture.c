/* capture.c: speck.graph_capture in C -- begin and end a capture, replay
 * and free what it recorded.
 *
 * The state (is a capture running, what it counted) is the floor's
 * (core/capture.c), so that every layer can refuse what needs the host.
 * Recording is the active back end's, through its table's capture entries
 * (a GPU's graphs); a back end without them records nothing, and the
 * front end replays by running the captured code again (vm/lcapture.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "exec/exec.h"

/* the back end recording now (NULL: a check pass or none) */
static const sk_backend *recorder;

int sk_capture_records(void) {
  char err[256];
  const sk_backend *b = sk_rt_backend(err, sizeof err);
  return b && b->capture_begin && b->capture_end && b->replay && b->replay_free;
}

int sk_capture_begin(int record, char *err, size_t errlen) {
  if (sk_capture_mode() != SK_CAPTURE_OFF) return sk_err(err, errlen, SK_E_CAPTURE_NESTED);
  const sk_backend *b = sk_rt_backend(err, errlen);
  if (!b) return -1;
  if (record && sk_capture_records()) {
    /* the state first: what the back end does from its begin on is refused
     * or recorded */
    sk_capture_set_mode(SK_CAPTURE_RECORD);
    if (b->capture_begin(err, errlen) < 0) {
      sk_capture_set_mode(SK_CAPTURE_OFF);
      return -1;
    }
    recorder = b;
    return 0;
  }
  sk_capture_set_mode(SK_CAPTURE_CHECK);
  return 0;
}

int sk_capture_end(int abandon, sk_launch_graph **out, char *err, size_t errlen) {
  if (out) *out = NULL;
  if (sk_capture_mode() == SK_CAPTURE_OFF) return 0;
  const sk_backend *b = recorder;
  recorder = NULL;
  int64_t launches = 0, copies = 0, nodes = 0;
  sk_capture_counted(&launches, &copies);
  void *seq = NULL;
  /* the back end leaves recording before the state says so: its frees
   * held back during the recording are given back then */
  if (b) seq = b->capture_end(abandon, &nodes, err, errlen);
  sk_capture_set_mode(SK_CAPTURE_OFF);
  if (abandon) return 0;
  if (b && !seq) return -1;
  sk_launch_graph *c = calloc(1, sizeof *c);
  if (!c) {
    if (seq) b->replay_free(seq);
    return sk_err(err, errlen, SK_E_NOMEM);
  }
  if (!b) b = sk_rt_backend(err, errlen);
  c->backend = b;
  c->seq = seq;
  c->launches = launches;
  c->copies = copies;
  c->nodes = nodes;
  if (out) *out = c;
  else sk_capture_free(c);
  return 0;
}

int sk_capture_replay(sk_launch_graph *c, int64_t n, char *err, size_t errlen) {
  if (sk_capture_mode() != SK_CAPTURE_OFF) return sk_err(err, errlen, SK_E_CAPTURE_NESTED);
  const sk_backend *b = sk_rt_backend(err, errlen);
  if (!b) return -1;
  if (b != c->backend)
    return sk_err(err, errlen, SK_E_CAPTURE_OTHER_BACKEND, c->backend->name, b->name);
  if (n <= 0 || !c->seq) return 0;
  /* a replay's writes pass no launch: memos made before it are stale */
  sk_alloc_replayed();
  if (b->replay(c->seq, n, err, errlen) < 0) return -1;
  c->replays += n;
  return 0;
}

void sk_capture_free(sk_launch_graph *c) {
  if (!c) return;
  if (c->seq && c->backend->replay_free) c->backend->replay_free(c->seq);
  free(c);
}
