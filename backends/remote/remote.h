/* remote.h: remote views -- global views over the ranks of an MPI job,
 * each rank's part an MPI window in host memory (seed 001, Kokkos Remote
 * Spaces). The memory space SK_SPACE_REMOTE lies over the host space: host
 * kernels read and write the local part directly and the rest through
 * MPI one-sided calls (passive target: one lock_all epoch per window).
 *
 * Built with MPI when make finds it (SK_HAVE_MPI); without it every entry
 * point fails with the reason. Functions return 0 or -1 with 'err'
 * filled; nothing here knows Lua.
 */
#ifndef SK_REMOTE_H
#define SK_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"

/* how a remote view's elements are spread over the ranks */
enum {
  SK_REMOTE_BLOCKED,    /* dims[1] split in blocks of ceil(n / ranks) */
  SK_REMOTE_PARTITIONED /* dims[1] is the rank: v(pe, ...) */
};

/* 1 when this build has MPI, else 0 with the reason in 'why' */
int sk_remote_available(char *why, size_t n);
/* Initialise MPI unless the host program did (then it is not finalised
 * here) and register the 'remote' back end; again: nothing. */
int sk_remote_start(char *err, size_t errlen);
/* Free every window (collective) and finalise MPI when sk_remote_start
 * initialised it. */
void sk_remote_stop(void);
int sk_remote_started(void);
int sk_remote_rank(void);
int sk_remote_size(void);
/* "remote: MPI one-sided (Open MPI v4.1.4), 2 ranks" or why not */
void sk_remote_info(char *buf, size_t n);

/* collective: MPI_Barrier (and windows every rank released are freed) */
int sk_remote_barrier(char *err, size_t errlen);
/* collective: complete every outstanding get, put and atomic of this rank,
 * make local stores visible, then a barrier */
int sk_remote_fence(char *err, size_t errlen);
/* collective: 'x[0..n)' reduced over the ranks in place; op 0 sum,
 * 1 min, 2 max */
int sk_remote_allreduce(double *x, int n, int op, char *err, size_t errlen);
/* Collective: the ranks agree whether a collective call goes ahead.
 * 'failed': this rank's own checks refused it (the message in 'err').
 * When any rank failed, every rank returns -1 with the same message: the
 * lowest failing rank's, "<its message> (refused on rank R; every rank
 * refuses the call)"; else 0. One rank or MPI not started: 'failed' as it
 * is. 'what' (an int array of 'n') must be equal on every rank too (a
 * length, an operation), else every rank fails with 'mismatch'. */
int sk_remote_agree(int failed, const int *what, int n, const char *mismatch, char *err,
                    size_t errlen);
/* An uncaught error ends the job (bin/speck's scripts and -e, with more
 * than one rank): MPI_Abort(MPI_COMM_WORLD, code) unless the script turned
 * it off with speck.remote.abort_on_error(false). Returns when it did not
 * abort. */
void sk_remote_abort_on_error(int on);
int sk_remote_aborts(void);
void sk_remote_abort(int code);

/* Collective: a remote view of 'dtype' and global dims 'ext' ('rank' of
 * them) spread by 'dist' (SK_REMOTE_*), in host memory (space host: MPI
 * windows, space SK_SPACE_REMOTE) or GPU memory (a device back end's
 * space: its symmetric memory, NVSHMEM); 'space' -1: the running back
 * end's. Every rank checks that all ask for the same dtype, dims, layout
 * and memory first and fails with the same message if not. */
int sk_remote_view_create(sk_view *v, const char *label, int dtype, int rank,
                          const int64_t *ext, int dist, int space, char *err,
                          size_t errlen);
/* 'dst': this rank's part of remote view 'v' (or of the view a subview of
 * it came from) as a host view sharing the window */
int sk_remote_local_view(sk_view *dst, const sk_view *v, char *err, size_t errlen);
/* this rank's half-open range of dims[1] (blocked: rows, partitioned: the
 * rank) */
int sk_remote_local_range(const sk_view *v, int64_t *b, int64_t *e, char *err,
                          size_t errlen);
#endif
