/* remote.c: the 'remote' memory space over MPI one-sided communication.
 *
 * A remote view's elements are one global index range (the row-major
 * order of its global dims); rank r holds [r * chunk, (r + 1) * chunk) of
 * it in an MPI window (MPI_Win_allocate, one MPI_Win_lock_all epoch for
 * the window's life). The view's 'data' is a virtual global address: a
 * PROT_NONE reservation of the global size, so subviews are ordinary
 * pointer arithmetic, a stray host load faults instead of reading another
 * view, and a kernel finds global index g as (p - vbase) / esize. Kernels
 * read the local part directly (generated code, jit/codegen.c) and call
 * the window's get / put / fop functions for the rest: MPI_Get, MPI_Put,
 * MPI_Fetch_and_op / MPI_Compare_and_swap, each completed by
 * MPI_Win_flush before it returns, so a kernel sees its own writes. When
 * every rank is on this node (and SPECK_REMOTE_DIRECT is not 0) the
 * window is MPI_Win_allocate_shared's one contiguous block, published as
 * the window's 'shared' base: kernels then load and store any element
 * directly (atomics still go through MPI); remote.fence's MPI_Win_sync and
 * barrier order them.
 *
 * In GPU memory (the remote space over a device back end's memory, asked
 * for by the space option or by running on that back end) a rank's part
 * is the back end's symmetric memory (its table's 'symmetric': NVSHMEM)
 * instead of a window: kernels on that back end load and store every element through the window's peer
 * pointers (nvshmem_ptr), atomics are the dialect's on those addresses,
 * and copies from the host go through that back end's copy. MPI
 * still carries the collectives (creation's agreement, barrier,
 * allreduce) and NVSHMEM's bootstrap.
 *
 * MPI_Win_free is collective, but views die when each rank's collector
 * decides: a released window is only marked 'dead', and the collective
 * calls (barrier, fence, creating a view) free the windows every rank
 * has released, in creation order. The rest go at sk_remote_stop.
 */
#define _GNU_SOURCE
#include "remote.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/tools.h"
#include "backends/host/host.h"

/* the remote space over host memory (its id assigned at registration);
 * the one over a device's memory is that back end's, naming the device
 * space as its parts' ('local') */
static const sk_space_desc remote_spaces[] = {
  {.name = "remote",
   .id = -1,
   .default_layout = SK_RIGHT,
   .local = "host",
   .tools_name = "RemoteSpace"},
  {.name = NULL},
};

#ifdef SK_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <execinfo.h>
#endif

#ifndef SK_MPI_THREAD_LEVEL
#define SK_MPI_THREAD_LEVEL MPI_THREAD_SERIALIZED
#endif

typedef struct rwin {
  sk_rwin w; /* first: the kernels' handle points here */
  MPI_Win win;
  size_t reserve_bytes; /* the PROT_NONE range at w.vbase */
  int id, dead, dist, rank;
  int64_t rowsize;         /* elements per index of dims[1] */
  int64_t ext[SK_MAXRANK]; /* the global dims */
  int gpu;                 /* NVSHMEM memory: no MPI window */
  void **peer_host;        /* gpu: every rank's part, as this GPU sees it */
} rwin;

static rwin **wins; /* by creation order (the same on every rank) */
static int nwins, capwins;
static int started, we_init, me, nranks, threaded, direct;
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

/* MPI calls from kernels run on pool threads. MPI is initialised with
 * MPI_THREAD_SERIALIZED (MULTIPLE makes Open MPI lock inside every call,
 * three times the cost of an element get here): the calls are serialised
 * by 'mpi_lock' when more than one thread can launch kernel pieces, and
 * taken without it when the pool has one thread (or the back end is
 * serial). A host program that initialised MPI with MULTIPLE needs no
 * lock. */
static int need_lock(void) { return !threaded && sk_rt_threads() > 1; }
static int lock(void) {
  int l = need_lock();
  if (l) pthread_mutex_lock(&mpi_lock);
  return l;
}
static void unlock(int l) {
  if (l) pthread_mutex_unlock(&mpi_lock);
}

static int mpi_fail(char *err, size_t errlen, const char *what, int rc) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) sk_err(s, sizeof s, SK_E_ERROR, rc);
  sk_err(err, errlen, SK_E_FAILED, what, s);
  return -1;
}

static MPI_Datatype mpi_type(int dtype) {
  switch (dtype) {
  case SK_F64: return MPI_DOUBLE;
  case SK_F32: return MPI_FLOAT;
  case SK_I64: return MPI_INT64_T;
  case SK_I32: return MPI_INT32_T;
  case SK_I16: return MPI_INT16_T;
  case SK_I8: return MPI_INT8_T;
  case SK_U64: return MPI_UINT64_T;
  case SK_U32: return MPI_UINT32_T;
  default: return MPI_UINT8_T; /* uint8, bool */
  }
}

/* -- element access (called by kernels) -------------------------------- */
static int w_get(const sk_rwin *w, sk_i64 g, void *out) {
  if (g < 0 || g >= w->total) return -1;
  int owner = (int)(g / w->chunk);
  sk_i64 disp = g - (sk_i64)owner * w->chunk;
  if (owner == w->me) {
    memcpy(out, (char *)w->local + disp * w->esize, (size_t)w->esize);
    return 0;
  }
  const rwin *r = (const rwin *)w;
  int held = lock();
  MPI_Datatype t = mpi_type(w->dtype);
  MPI_Get(out, 1, t, owner, (MPI_Aint)disp, 1, t, r->win);
  MPI_Win_flush(owner, r->win);
  unlock(held);
  return 0;
}

static int w_put(const sk_rwin *w, sk_i64 g, const void *in) {
  if (g < 0 || g >= w->total) return -1;
  int owner = (int)(g / w->chunk);
  sk_i64 disp = g - (sk_i64)owner * w->chunk;
  if (owner == w->me) {
    memcpy((char *)w->local + disp * w->esize, in, (size_t)w->esize);
    return 0;
  }
  const rwin *r = (const rwin *)w;
  int held = lock();
  MPI_Datatype t = mpi_type(w->dtype);
  MPI_Put(in, 1, t, owner, (MPI_Aint)disp, 1, t, r->win);
  MPI_Win_flush(owner, r->win);
  unlock(held);
  return 0;
}

/* negate 'in' (es bytes of 'dtype') into 'out': a subtraction is a sum */
static void negate(int dtype, const void *in, void *out) {
  switch (dtype) {
  case SK_F64: *(double *)out = -*(const double *)in; break;
  case SK_F32: *(float *)out = -*(const float *)in; break;
  case SK_I64:
  case SK_U64: *(uint64_t *)out = 0 - *(const uint64_t *)in; break;
  case SK_I32:
  case SK_U32: *(uint32_t *)out = 0u - *(const uint32_t *)in; break;
  case SK_I16: *(uint16_t *)out = (uint16_t)(0u - *(const uint16_t *)in); break;
  default: *(uint8_t *)out = (uint8_t)(0u - *(const uint8_t *)in); break;
  }
}

/* Atomics go through MPI for the local part too: MPI's atomicity holds
 * among MPI's accumulate operations only. */
static int w_fop(const sk_rwin *w, sk_i64 g, int op, const void *in, void *old) {
  if (g < 0 || g >= w->total) return -1;
  int owner = (int)(g / w->chunk);
  sk_i64 disp = g - (sk_i64)owner * w->chunk;
  const rwin *r = (const rwin *)w;
  MPI_Datatype t = mpi_type(w->dtype);
  uint64_t tmp = 0, neg = 0;
  if (!old) old = &tmp;
  MPI_Op mop = MPI_SUM;
  switch (op) {
  case SK_ROP_SUB:
    negate(w->dtype, in, &neg);
    in = &neg;
    break;
  case SK_ROP_MIN: mop = MPI_MIN; break;
  case SK_ROP_MAX: mop = MPI_MAX; break;
  case SK_ROP_AND: mop = MPI_BAND; break;
  case SK_ROP_OR: mop = MPI_BOR; break;
  case SK_ROP_XOR: mop = MPI_BXOR; break;
  case SK_ROP_XCHG: mop = MPI_REPLACE; break;
  default: break;
  }
  int held = lock();
  if (op == SK_ROP_CAS)
    MPI_Compare_and_swap((const char *)in + w->esize, in, old, t, owner, (MPI_Aint)disp,
                         r->win);
  else MPI_Fetch_and_op(in, old, t, owner, (MPI_Aint)disp, mop, r->win);
  MPI_Win_flush(owner, r->win);
  unlock(held);
  return 0;
}

/* -- windows ------------------------------------------------------------ */
static rwin *find_addr(const void *p) {
  const char *c = p;
  for (int i = 0; i < nwins; i++) {
    rwin *r = wins[i];
    if (r && c >= r->w.vbase && c < r->w.vbase + r->reserve_bytes) return r;
  }
  return NULL;
}

/* the device back end whose memory remote views can lie in: the first
 * with symmetric memory (NVSHMEM on a GPU back end), NULL if none */
static const sk_backend *gpu_backend(void) {
  for (const sk_backend *const *b = sk_backend_list(); *b; b++)
    if ((*b)->symmetric) return *b;
  return NULL;
}

static const sk_symmetric *symm(void) {
  const sk_backend *b = gpu_backend();
  return b ? b->symmetric : NULL;
}

static void win_free(rwin *r) {
  if (r->gpu) { /* collective, as MPI_Win_free */
    const sk_backend *cb = gpu_backend();
    cb->symmetric->free(r->w.local);
    if (r->w.dev) cb->free(r->w.dev, cb->space);
    free(r->peer_host);
  } else {
    MPI_Win_unlock_all(r->win);
    MPI_Win_free(&r->win);
  }
  munmap(r->w.vbase, r->reserve_bytes);
  wins[r->id] = NULL;
  free(r);
}

/* Collective: free the windows every rank has released. */
static int collect_dead(char *err, size_t errlen) {
  if (!nwins) return 0;
  int *flag = malloc((size_t)nwins * sizeof *flag);
  if (!flag) {
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  for (int i = 0; i < nwins; i++) flag[i] = !wins[i] || wins[i]->dead;
  int rc = MPI_Allreduce(MPI_IN_PLACE, flag, nwins, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    free(flag);
    return mpi_fail(err, errlen, "MPI_Allreduce", rc);
  }
  for (int i = 0; i < nwins; i++)
    if (flag[i] && wins[i]) win_free(wins[i]);
  free(flag);
  return 0;
}

/* the back end's free: the window waits for a collective call */
static void remote_free(void *p, int space) {
  (void)space;
  rwin *r = started ? find_addr(p) : NULL;
  if (r) r->dead = 1;
}

/* A GPU window's elements [g, g + n) to or from 'mem' (of space 'mspace'),
 * owner by owner through the peer pointers and the device back end's copy. */
static int gpu_span_copy(rwin *r, char *mem, int mspace, int64_t g, int64_t n, int put,
                         char *err, size_t errlen) {
  size_t es = (size_t)r->w.esize;
  const sk_backend *cb = gpu_backend();
  if (!cb) {
    sk_err(err, errlen, SK_E_REMOTE_COPY_NO_GPU);
    return -1;
  }
  while (n > 0) {
    int owner = (int)(g / r->w.chunk);
    int64_t disp = g - (int64_t)owner * r->w.chunk, k = r->w.chunk - disp;
    if (k > n) k = n;
    char *dev = (char *)r->peer_host[owner] + disp * (int64_t)es;
    int rc = put ? cb->copy(dev, cb->space, mem, mspace, (size_t)k * es, err, errlen)
                 : cb->copy(mem, mspace, dev, cb->space, (size_t)k * es, err, errlen);
    if (rc < 0) return -1;
    mem += k * (int64_t)es;
    g += k;
    n -= k;
  }
  return 0;
}

/* Copy between a remote view's elements (virtual global addresses) and
 * memory of space 'hspace', owner by owner; both sides remote go through
 * a buffer. A window in host memory copies to and from host memory. */
static int span_copy(rwin *r, char *host, int hspace, const char *vp, size_t bytes,
                     int put, char *err, size_t errlen) {
  size_t es = (size_t)r->w.esize;
  int64_t g = (vp - r->w.vbase) / (int64_t)es, n = (int64_t)(bytes / es);
  if (g < 0 || g + n > r->w.total) {
    sk_err(err, errlen, SK_E_REMOTE_COPY_ELEMENTS, (long long)g, (long long)(g + n),
           (long long)r->w.total);
    return -1;
  }
  if (r->gpu) return gpu_span_copy(r, host, hspace, g, n, put, err, errlen);
  if (!sk_space_host_accessible(hspace)) {
    sk_err(err, errlen, SK_E_REMOTE_COPY_REMOTE, sk_space_name(hspace));
    return -1;
  }
  int rc = MPI_SUCCESS;
  int held = lock();
  while (n > 0 && rc == MPI_SUCCESS) {
    int owner = (int)(g / r->w.chunk);
    int64_t disp = g - (int64_t)owner * r->w.chunk;
    int64_t k = r->w.chunk - disp;
    if (k > n) k = n;
    if (owner == r->w.me) {
      char *l = (char *)r->w.local + disp * (int64_t)es;
      if (put) memcpy(l, host, (size_t)k * es);
      else memcpy(host, l, (size_t)k * es);
    } else {
      for (int64_t done = 0; done < k && rc == MPI_SUCCESS;) {
        int64_t m = k - done;
        if (m * (int64_t)es > (1 << 30)) m = (1 << 30) / (int64_t)es;
        MPI_Aint d = (MPI_Aint)(disp + done);
        int c = (int)(m * (int64_t)es);
        rc = put ? MPI_Put(host + done * (int64_t)es, c, MPI_BYTE, owner, d, c, MPI_BYTE,
                           r->win)
                 : MPI_Get(host + done * (int64_t)es, c, MPI_BYTE, owner, d, c, MPI_BYTE,
                           r->win);
        done += m;
      }
      if (rc == MPI_SUCCESS) rc = MPI_Win_flush(owner, r->win);
    }
    host += k * (int64_t)es;
    g += k;
    n -= k;
  }
  unlock(held);
  return rc == MPI_SUCCESS ? 0 : mpi_fail(err, errlen, put ? "MPI_Put" : "MPI_Get", rc);
}

static int remote_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                       char *err, size_t errlen) {
  rwin *d = sk_space_remote(dspace) ? find_addr(dst) : NULL;
  rwin *s = sk_space_remote(sspace) ? find_addr(src) : NULL;
  if ((sk_space_remote(dspace) && !d) || (sk_space_remote(sspace) && !s)) {
    sk_err(err, errlen, SK_E_REMOTE_COPY_REMOTE_VIEW);
    return -1;
  }
  if (!bytes) return 0;
  if (d && s) {
    char *buf = malloc(bytes);
    if (!buf) {
      sk_err(err, errlen, SK_E_REMOTE_COPY_NO, bytes);
      return -1;
    }
    int rc = span_copy(s, buf, SK_SPACE_HOST, src, bytes, 0, err, errlen);
    if (rc == 0) rc = span_copy(d, buf, SK_SPACE_HOST, dst, bytes, 1, err, errlen);
    free(buf);
    return rc;
  }
  if (s) return span_copy(s, dst, dspace, src, bytes, 0, err, errlen);
  if (d) return span_copy(d, (char *)src, sspace, dst, bytes, 1, err, errlen);
  memmove(dst, src, bytes);
  return 0;
}

/* the back end's fence: this rank's operations complete (not collective:
 * deep_copy calls it) */
static int remote_flush(char *err, size_t errlen) {
  if (!started) return 0;
  int held = lock();
  int rc = MPI_SUCCESS;
  for (int i = 0; i < nwins && rc == MPI_SUCCESS; i++)
    if (wins[i] && !wins[i]->gpu) {
      rc = MPI_Win_flush_all(wins[i]->win);
      if (rc == MPI_SUCCESS) rc = MPI_Win_sync(wins[i]->win);
    }
  unlock(held);
  if (symm()) symm()->quiet(); /* kernels' peer stores are done at their end */
  return rc == MPI_SUCCESS ? 0 : mpi_fail(err, errlen, "MPI_Win_flush_all", rc);
}

static int check_started(const char *what, char *err, size_t errlen) {
  if (started) return 0;
  sk_err(err, errlen, SK_E_SPECK_REMOTE_NOT, what);
  return -1;
}

int sk_remote_barrier(char *err, size_t errlen) {
  if (check_started("remote.barrier", err, errlen) < 0) return -1;
  int rc = MPI_Barrier(MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return mpi_fail(err, errlen, "MPI_Barrier", rc);
  return collect_dead(err, errlen);
}

int sk_remote_fence(char *err, size_t errlen) {
  if (check_started("remote.fence", err, errlen) < 0) return -1;
  char why[256] = "";
  if (sk_rt_fence(NULL, why, sizeof why) < 0) {
    sk_err(err, errlen, SK_E_MSG, why);
    return -1;
  }
  if (remote_flush(err, errlen) < 0) return -1;
  return sk_remote_barrier(err, errlen);
}

int sk_remote_allreduce(double *x, int n, int op, char *err, size_t errlen) {
  if (check_started("remote.allreduce", err, errlen) < 0) return -1;
  MPI_Op o = op == 1 ? MPI_MIN : op == 2 ? MPI_MAX : MPI_SUM;
  int rc = MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, o, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? 0 : mpi_fail(err, errlen, "MPI_Allreduce", rc);
}

/* -- agreement and the job's end (issue 30) ----------------------------- */
int sk_remote_agree(int failed, const int *what, int n, const char *mismatch, char *err,
                    size_t errlen) {
  if (!sk_remote_started() || nranks <= 1) return failed ? -1 : 0;
  /* the lowest failing rank; then whether every rank passed the same
   * 'what' (its maximum and the maximum of its negation) */
  int mine = failed ? me : nranks, first = nranks;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first < nranks) {
    char msg[1024] = "";
    if (first == me) snprintf(msg, sizeof msg, "%s", err);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, MPI_COMM_WORLD);
    msg[sizeof msg - 1] = '\0';
    sk_err(err, errlen, SK_E_REMOTE_REFUSED_ON_RANK, msg, first);
    return -1;
  }
  if (n <= 0) return 0;
  int lo_hi[2 * 8], got[2 * 8];
  if (n > 8) n = 8;
  for (int i = 0; i < n; i++) {
    lo_hi[2 * i] = what[i];
    lo_hi[2 * i + 1] = -what[i];
  }
  MPI_Allreduce(lo_hi, got, 2 * n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    if (got[2 * i] != -got[2 * i + 1]) {
      sk_err(err, errlen, SK_E_MSG, mismatch);
      return -1;
    }
  return 0;
}

static int abort_on_error = 1;
void sk_remote_abort_on_error(int on) { abort_on_error = on != 0; }
int sk_remote_aborts(void) { return abort_on_error && sk_remote_started() && nranks > 1; }
void sk_remote_abort(int code) {
  if (sk_remote_aborts()) MPI_Abort(MPI_COMM_WORLD, code);
}

/* -- collective creation ------------------------------------------------ */
#define DESC_N (4 + SK_MAXRANK)

static void fmt_dims(const int64_t *d, char *buf, size_t n) {
  size_t k = 0;
  int r = (int)d[1];
  k += (size_t)snprintf(buf, n, "%s [",
                        sk_dtypes[d[0] >= 0 && d[0] < SK_NDTYPE ? d[0] : 0].name);
  for (int i = 0; i < r && i < SK_MAXRANK && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[4 + i]);
  if (k < n)
    snprintf(buf + k, n - k, "] %s in %s memory", d[2] ? "partitioned" : "blocked",
             d[3] == 1   ? "GPU"
             : d[3] == 0 ? "host"
                         : "unknown");
}

static int bcast0(void *buf, int bytes) {
  return MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

/* Collective: NVSHMEM started on every rank, or the same refusal on all */
static int gpu_start(const char *label, char *err, size_t errlen) {
  const sk_symmetric *sy = symm();
  if (sy && sy->started()) return 0;
  char why[512] = "no device back end has symmetric memory";
  int ok = sy ? sy->available(why, sizeof why) : 0, all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (ok) sk_err(why, sizeof why, SK_E_ANOTHER_RANK_CANNOT);
    sk_err(err, errlen, SK_E_REMOTE_VIEW_REMOTE, label, why);
    return -1;
  }
  if (sy->start(me, nranks, bcast0, why, sizeof why) < 0) {
    sk_err(err, errlen, SK_E_REMOTE_VIEW, label, why);
    return -1;
  }
  return 0;
}

/* Collective: this rank's zeroed part of 'bytes' in NVSHMEM memory, every
 * rank's part reachable by loads and stores (nvshmem_ptr), and the
 * window's device copy; 0 or -1 with the same message on every rank. */
static int gpu_alloc(rwin *r, const char *label, size_t bytes, char *err, size_t errlen) {
  char why[512] = "";
  const sk_backend *cb = gpu_backend();
  const sk_symmetric *sy = cb->symmetric;
  void *local = sy->malloc(bytes, why, sizeof why);
  int ok = local != NULL, all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    sy->free(local);
    sk_err(err, errlen, SK_E_REMOTE_VIEW, label,
           ok ? sk_err_text(SK_E_ANOTHER_RANK_NVSHMEM) : why);
    return -1;
  }
  r->peer_host = calloc((size_t)nranks, sizeof *r->peer_host);
  int unreachable = r->peer_host ? -1 : me;
  for (int p = 0; r->peer_host && p < nranks; p++) {
    r->peer_host[p] = p == me ? local : sy->ptr(local, p);
    if (!r->peer_host[p] && unreachable < 0) unreachable = p;
  }
  /* the first (rank, peer) pair that cannot load, agreed by all */
  int pair[2] = {unreachable < 0 ? nranks : me, unreachable < 0 ? 0 : unreachable};
  int first[2] = {pair[0], 0};
  MPI_Allreduce(&pair[0], &first[0], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first[0] < nranks) {
    if (first[0] == me) first[1] = pair[1];
    MPI_Bcast(&first[1], 1, MPI_INT, first[0], MPI_COMM_WORLD);
    sy->free(local);
    free(r->peer_host);
    r->peer_host = NULL;
    sk_err(err, errlen, SK_E_REMOTE_VIEW_RANK, label, first[0], first[1]);
    return -1;
  }
  size_t dbytes = sizeof(sk_rwin) + (size_t)nranks * sizeof(void *);
  r->w.dev = cb->alloc(dbytes, cb->space, why, sizeof why);
  ok = r->w.dev != NULL;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (r->w.dev) cb->free(r->w.dev, cb->space);
    r->w.dev = NULL;
    sy->free(local);
    free(r->peer_host);
    r->peer_host = NULL;
    sk_err(err, errlen, SK_E_REMOTE_VIEW_NO, label, why[0] ? ": " : "", why);
    return -1;
  }
  r->w.local = local;
  r->w.peer = r->peer_host;
  return 0;
}

/* the window's device copy: the struct, its 'peer' pointing at the
 * device array after it */
static int gpu_publish(rwin *r, char *err, size_t errlen) {
  const sk_backend *cb = gpu_backend();
  sk_rwin d = r->w;
  char *dev = r->w.dev;
  d.peer = (void *const *)(dev + sizeof(sk_rwin));
  d.get = NULL;
  d.put = NULL;
  d.fop = NULL;
  if (cb->copy(dev, cb->space, &d, SK_SPACE_HOST, sizeof d, err, errlen) < 0) return -1;
  return cb->copy(dev + sizeof(sk_rwin), cb->space, r->peer_host, SK_SPACE_HOST,
                  (size_t)nranks * sizeof(void *), err, errlen);
}

int sk_remote_view_create(sk_view *v, const char *label, int dtype, int rank,
                          const int64_t *ext, int dist, int space, char *err,
                          size_t errlen) {
  memset(v, 0, sizeof *v);
  snprintf(v->label, sizeof v->label, "%s", label ? label : "");
  if (check_started("remote.View", err, errlen) < 0) return -1;
  /* host memory (MPI windows) or GPU memory (NVSHMEM); by default the
   * running back end's */
  if (space < 0 && (space = sk_rt_default_space(err, errlen)) < 0) return -1;
  /* device memory: a space of the device back end that spills to host
   * memory (its plain and managed memory, not its page-locked memory) */
  const sk_backend *gb = gpu_backend();
  int gpu = gb && gb->owns(space) && sk_space_spill(space) >= 0;
  /* memory: 0 host, 1 GPU, 2 neither (refused after the agreement, so
   * that no rank waits for the others) */
  int mem = gpu ? 1 : space == SK_SPACE_HOST ? 0 : 2;
  /* every rank's request, compared before anything is allocated */
  int64_t mine[DESC_N] = {dtype, rank, dist, mem};
  for (int d = 0; d < rank && d < SK_MAXRANK; d++) mine[4 + d] = ext[d];
  int64_t *all = malloc((size_t)nranks * DESC_N * sizeof *all);
  if (!all) {
    sk_err(err, errlen, SK_E_REMOTE_VIEW_OUT, v->label);
    return -1;
  }
  int rc =
    MPI_Allgather(mine, DESC_N, MPI_INT64_T, all, DESC_N, MPI_INT64_T, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    free(all);
    return mpi_fail(err, errlen, "remote.View: MPI_Allgather", rc);
  }
  for (int r = 1; r < nranks; r++)
    if (memcmp(all, all + (size_t)r * DESC_N, DESC_N * sizeof *all) != 0) {
      char a[256], b[256];
      fmt_dims(all, a, sizeof a);
      fmt_dims(all + (size_t)r * DESC_N, b, sizeof b);
      sk_err(err, errlen, SK_E_REMOTE_VIEW_RANKS, v->label, a, r, b);
      free(all);
      return -1;
    }
  free(all);
  if (mem == 2) {
    const sk_backend *gb = gpu_backend();
    sk_err(err, errlen, SK_E_REMOTE_VIEW_SPACE, v->label, sk_space_name(space),
           gb ? sk_space_name(gb->space) : "none");
    return -1;
  }
  if (collect_dead(err, errlen) < 0) return -1;
  if (rank < 1 || rank > SK_MAXRANK - 1) {
    sk_err(err, errlen, SK_E_REMOTE_VIEW_RANK_EXPECTED, v->label, rank, SK_MAXRANK - 1);
    return -1;
  }
  for (int d = 0; d < rank; d++)
    if (ext[d] < 0) {
      sk_err(err, errlen, SK_E_REMOTE_VIEW_DIMS, v->label, d + 1, (long long)ext[d]);
      return -1;
    }
  if (dist == SK_REMOTE_PARTITIONED && (rank < 2 || ext[0] != nranks)) {
    sk_err(err, errlen, SK_E_REMOTE_VIEW_PARTITIONED, v->label, nranks, rank,
           (long long)ext[0]);
    return -1;
  }
  int64_t rowsize = 1, total;
  for (int d = 1; d < rank; d++)
    if (__builtin_mul_overflow(rowsize, ext[d], &rowsize)) rowsize = -1;
  size_t es = sk_dtypes[dtype].size, reserve;
  if (rowsize < 0 || __builtin_mul_overflow(rowsize, ext[0], &total) ||
      __builtin_mul_overflow((size_t)total, es, &reserve)) {
    sk_err(err, errlen, SK_E_REMOTE_VIEW_DIMS_TOO, v->label);
    return -1;
  }
  int64_t rows = dist == SK_REMOTE_PARTITIONED ? 1 : (ext[0] + nranks - 1) / nranks;
  int64_t chunk = rows * rowsize;
  rwin *r = calloc(1, sizeof *r);
  sk_alloc *a = calloc(1, sizeof *a);
  /* room for one more window: the capacity grows with every realloc,
   * whether or not the block moved (one grown in place once kept the old
   * capacity, and a later window was written past the array's end: the
   * GPU suite's rare "realloc(): invalid next size") */
  const int grow = nwins >= capwins;
  rwin **nw = grow ? realloc(wins, (size_t)(capwins * 2 + 8) * sizeof *wins) : wins;
  if (!r || !a || !nw) {
    free(r);
    free(a);
    sk_err(err, errlen, SK_E_REMOTE_VIEW_OUT, v->label);
    return -1;
  }
  if (grow) {
    wins = nw;
    capwins = capwins * 2 + 8;
  }
  long page = sysconf(_SC_PAGESIZE);
  r->reserve_bytes = reserve > (size_t)page ? reserve : (size_t)page;
  void *vb = mmap(NULL, r->reserve_bytes, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (vb == MAP_FAILED) {
    sk_err(err, errlen, SK_E_REMOTE_VIEW_CANNOT, v->label, r->reserve_bytes);
    free(r);
    free(a);
    return -1;
  }
  void *local = NULL;
  MPI_Aint wbytes = (MPI_Aint)((size_t)(chunk ? chunk : 1) * es);
  if (gpu) {
    r->gpu = 1;
    if (gpu_start(v->label, err, errlen) < 0 ||
        gpu_alloc(r, v->label, (size_t)wbytes, err, errlen) < 0) {
      munmap(vb, r->reserve_bytes);
      free(r);
      free(a);
      return -1;
    }
    local = r->w.local;
    MPI_Barrier(MPI_COMM_WORLD); /* every part zeroed before anyone reads */
  } else if (direct)
    rc = MPI_Win_allocate_shared(wbytes, (int)es, MPI_INFO_NULL, MPI_COMM_WORLD, &local,
                                 &r->win);
  else
    rc =
      MPI_Win_allocate(wbytes, (int)es, MPI_INFO_NULL, MPI_COMM_WORLD, &local, &r->win);
  if (!gpu && rc != MPI_SUCCESS) {
    munmap(vb, r->reserve_bytes);
    free(r);
    free(a);
    return mpi_fail(err, errlen, "remote.View: MPI_Win_allocate", rc);
  }
  if (!gpu) {
    MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN);
    memset(local, 0, (size_t)wbytes);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, r->win);
    MPI_Barrier(MPI_COMM_WORLD); /* every part zeroed before anyone reads */
  }
  r->w.vbase = vb;
  r->w.local = local;
  if (direct && !gpu) {
    MPI_Aint sz;
    int du;
    void *base0 = NULL;
    MPI_Win_shared_query(r->win, 0, &sz, &du, &base0);
    /* the parts must follow each other exactly (MPI's contiguous shared
     * allocation); if not, on any rank, the MPI calls serve */
    int ok = base0 && (char *)local == (char *)base0 + (size_t)me * (size_t)wbytes;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    r->w.shared = ok ? base0 : NULL;
  }
  r->w.chunk = chunk ? chunk : 1;
  r->w.total = total;
  r->w.lo = (int64_t)me * chunk;
  int64_t hi = r->w.lo + chunk < total ? r->w.lo + chunk : total;
  r->w.nloc = hi > r->w.lo ? hi - r->w.lo : 0;
  r->w.me = me;
  r->w.nranks = nranks;
  r->w.esize = (int)es;
  r->w.dtype = dtype;
  if (!gpu) {
    r->w.get = w_get;
    r->w.put = w_put;
    r->w.fop = w_fop;
  } else if (gpu_publish(r, err, errlen) < 0) {
    /* a local copy failed (the device is unusable): the memory goes with
     * the others' at the next collective call */
    r->dead = 1;
    r->id = nwins;
    wins[nwins++] = r;
    free(a);
    return -1;
  }
  r->dist = dist;
  r->rowsize = rowsize;
  r->rank = rank;
  for (int d = 0; d < rank; d++) r->ext[d] = ext[d];
  r->id = nwins;
  wins[nwins++] = r;

  v->dtype = dtype;
  v->rank = rank;
  v->layout = SK_RIGHT;
  v->space = sk_space_remote_over(gpu ? gb->space : SK_SPACE_HOST);
  for (int d = 0; d < SK_MAXRANK; d++) v->extent[d] = d < rank ? ext[d] : 1;
  sk_view_layout_strides(rank, SK_RIGHT, v->extent, v->stride);
  a->refs = 1;
  a->ptr = vb;
  a->bytes = (size_t)total * es;
  a->space = v->space;
  a->owned = 1;
  a->handle = &r->w;
  snprintf(a->label, sizeof a->label, "%s", v->label);
  sk_tools_alloc(v->space, a->label, vb, a->bytes);
  v->alloc = a;
  v->data = vb;
  return 0;
}

static rwin *view_win(const sk_view *v, const char *what, char *err, size_t errlen) {
  rwin *r =
    v->alloc && sk_space_remote(v->space) && started ? (rwin *)v->alloc->handle : NULL;
  if (!r) sk_err(err, errlen, SK_E_VIEW_NOT_REMOTE, what, v->label);
  return r;
}

int sk_remote_local_view(sk_view *dst, const sk_view *v, char *err, size_t errlen) {
  rwin *r = view_win(v, "local_view", err, errlen);
  if (!r) return -1;
  /* partitioned: dims[2..]; blocked: this rank's rows and dims[2..] */
  int64_t ext[SK_MAXRANK];
  int rank = 0;
  if (r->dist != SK_REMOTE_PARTITIONED)
    ext[rank++] = r->rowsize ? r->w.nloc / r->rowsize : 0;
  for (int d = 1; d < r->rank; d++) ext[rank++] = r->ext[d];
  memset(dst, 0, sizeof *dst);
  snprintf(dst->label, sizeof dst->label, "%.120s_local", v->label);
  dst->dtype = v->dtype;
  dst->rank = rank;
  dst->layout = SK_RIGHT;
  dst->space = sk_space_local(v->space);
  for (int d = 0; d < SK_MAXRANK; d++) dst->extent[d] = d < rank ? ext[d] : 1;
  sk_view_layout_strides(rank, SK_RIGHT, dst->extent, dst->stride);
  dst->alloc = v->alloc;
  sk_view_retain(dst);
  dst->data = r->w.local;
  return 0;
}

int sk_remote_local_range(const sk_view *v, int64_t *b, int64_t *e, char *err,
                          size_t errlen) {
  rwin *r = view_win(v, "local_range", err, errlen);
  if (!r) return -1;
  *b = r->w.lo / (r->rowsize ? r->rowsize : 1);
  *e = (r->w.lo + r->w.nloc) / (r->rowsize ? r->rowsize : 1);
  if (r->dist == SK_REMOTE_PARTITIONED) {
    *b = me;
    *e = me + 1;
  }
  return 0;
}

/* -- the back end -------------------------------------------------------- */
static int remote_reaches(int space) {
  return space == SK_SPACE_HOST ||
         (sk_space_remote(space) && sk_space_local(space) == SK_SPACE_HOST);
}
static int remote_owns(int space) { return sk_space_remote(space); }
static void *remote_alloc(size_t bytes, int space, char *err, size_t errlen) {
  (void)bytes;
  (void)space;
  sk_err(err, errlen, SK_E_REMOTE_VIEWS_ALLOCATED);
  return NULL;
}

/* The 'remote' back end: openmp's table (the pool's execution; its
 * kernels reach host and remote memory), the remote space's memory. */
SK_FROM_SERIAL_BEGIN
const sk_backend sk_backend_remote = {
  SK_FROM_OPENMP,          .name = "remote",
  .spaces = remote_spaces, .reaches = remote_reaches,
  .owns = remote_owns,     .available = sk_remote_available,
  .alloc = remote_alloc,   .free = remote_free,
  .copy = remote_copy,     .fence = remote_flush,
  .info = sk_remote_info,
};
SK_FROM_SERIAL_END

int sk_remote_available(char *why, size_t n) {
  (void)why;
  (void)n;
  return 1;
}

/* A rank that dies by a signal must end the job. Open MPI's handler of
 * SIGABRT, SIGBUS, SIGFPE and SIGSEGV (MCA opal_signal) prints a
 * backtrace with glibc's backtrace(), whose first call loads libgcc_s by
 * dlopen, which allocates. A rank that aborts inside malloc (its heap
 * checks: "realloc(): invalid next size") still holds the heap's lock
 * there: the handler waited for it for ever, the rank never died and
 * mpirun never ended the job (the others waiting in a collective). The
 * first call made here, before MPI_Init, leaves the handler nothing to
 * allocate. */
static void backtrace_ready(void) {
#ifdef __GLIBC__
  void *f[2];
  (void)backtrace(f, 2);
#endif
}

int sk_remote_started(void) { return started; }
int sk_remote_rank(void) { return me; }
int sk_remote_size(void) { return started ? nranks : 1; }

int sk_remote_start(char *err, size_t errlen) {
  if (started) return 0;
  const char *d = sk_env_get("SPECK_REMOTE_DIRECT");
  if (d && strcmp(d, "0") != 0 && strcmp(d, "1") != 0) {
    sk_err(err, errlen, SK_E_SPECK_REMOTE_SPECK, d);
    return -1;
  }
  int flag = 0, fin = 0;
  MPI_Finalized(&fin);
  if (fin) {
    sk_err(err, errlen, SK_E_SPECK_REMOTE_MPI);
    return -1;
  }
  backtrace_ready();
  MPI_Initialized(&flag);
  int provided = MPI_THREAD_SINGLE;
  if (!flag) {
    /* Open MPI's components look libmpi's symbols up globally; speck may
     * have been loaded as a Lua module (RTLD_LOCAL) */
    void *h = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    (void)h;
    /* Open MPI: ranks on one node share windows through osc/sm (plain
     * loads and stores; priority 100) rather than osc/rdma (101), whose
     * emulated atomics over the vader transport crash in
     * MPI_Compare_and_swap (4.1.4). Across nodes sm declines and rdma
     * or ucx is used. A value the user set is kept. */
    setenv("OMPI_MCA_osc_rdma_priority", "50", 0);
    int rc = MPI_Init_thread(NULL, NULL, SK_MPI_THREAD_LEVEL, &provided);
    if (rc != MPI_SUCCESS)
      return mpi_fail(err, errlen, "speck.remote: MPI_Init_thread", rc);
    we_init = 1;
  } else {
    MPI_Query_thread(&provided);
  }
  threaded = provided == MPI_THREAD_MULTIPLE;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (!sk_backend_find(sk_backend_remote.name) &&
      sk_backend_register(&sk_backend_remote, err, errlen) < 0)
    return -1;
  /* direct loads and stores when every rank is on this node (and
   * SPECK_REMOTE_DIRECT is not 0) */
  MPI_Comm node;
  int nnode = 0;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                          &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &nnode);
    MPI_Comm_free(&node);
  }
  direct = nnode == nranks && !(d && strcmp(d, "0") == 0);
  started = 1;
  return 0;
}

void sk_remote_stop(void) {
  if (!started) return;
  char why[256];
  sk_rt_fence(NULL, why, sizeof why);
  for (int i = 0; i < nwins; i++)
    if (wins[i]) win_free(wins[i]);
  free(wins);
  wins = NULL;
  nwins = capwins = 0;
  if (symm()) symm()->stop();
  started = 0;
  int fin = 0;
  MPI_Finalized(&fin);
  if (we_init && !fin) MPI_Finalize();
}

void sk_remote_info(char *buf, size_t n) {
  char ver[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(ver, &len);
  char *nl = strpbrk(ver, ",\n");
  if (nl) *nl = 0;
  char nvs[600] = "no device back end";
  if (symm()) symm()->info(nvs, sizeof nvs);
  if (started)
    snprintf(buf, n, "remote: MPI one-sided (%s), rank %d of %d%s; GPU memory: %s", ver,
             me, nranks, direct ? ", one node: direct loads and stores" : "", nvs);
  else
    snprintf(buf, n,
             "remote: MPI one-sided (%s), started by require \"speck.remote\"; "
             "GPU memory: %s",
             ver, nvs);
}

#else /* !SK_HAVE_MPI ------------------------------------------------------ */

#define NO_MPI \
  "speck was built without MPI (make found no mpicc; install " \
  "libopenmpi-dev and openmpi-bin, then rebuild)"

int sk_remote_available(char *why, size_t n) {
  snprintf(why, n, NO_MPI);
  return 0;
}
static int no_mpi(const char *what, char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_PREFIX, what, NO_MPI);
  return -1;
}
int sk_remote_start(char *err, size_t errlen) {
  return no_mpi("speck.remote", err, errlen);
}
void sk_remote_stop(void) {}
int sk_remote_started(void) { return 0; }
int sk_remote_rank(void) { return 0; }
int sk_remote_size(void) { return 1; }
void sk_remote_info(char *buf, size_t n) {
  snprintf(buf, n, "remote: not available (%s)", NO_MPI);
}
int sk_remote_barrier(char *err, size_t errlen) {
  return no_mpi("remote.barrier", err, errlen);
}
int sk_remote_fence(char *err, size_t errlen) {
  return no_mpi("remote.fence", err, errlen);
}
int sk_remote_allreduce(double *x, int n, int op, char *err, size_t errlen) {
  (void)x;
  (void)n;
  (void)op;
  return no_mpi("remote.allreduce", err, errlen);
}
int sk_remote_agree(int failed, const int *what, int n, const char *mismatch, char *err,
                    size_t errlen) {
  (void)what;
  (void)n;
  (void)mismatch;
  (void)err;
  (void)errlen;
  return failed ? -1 : 0;
}
void sk_remote_abort_on_error(int on) { (void)on; }
int sk_remote_aborts(void) { return 0; }
void sk_remote_abort(int code) { (void)code; }
int sk_remote_view_create(sk_view *v, const char *label, int dtype, int rank,
                          const int64_t *ext, int dist, int space, char *err,
                          size_t errlen) {
  (void)label;
  (void)space;
  (void)dtype;
  (void)rank;
  (void)ext;
  (void)dist;
  memset(v, 0, sizeof *v);
  return no_mpi("remote.View", err, errlen);
}
int sk_remote_local_view(sk_view *dst, const sk_view *v, char *err, size_t errlen) {
  (void)dst;
  (void)v;
  return no_mpi("local_view", err, errlen);
}
int sk_remote_local_range(const sk_view *v, int64_t *b, int64_t *e, char *err,
                          size_t errlen) {
  (void)v;
  (void)b;
  (void)e;
  return no_mpi("local_range", err, errlen);
}
static int remote_owns(int space) { return sk_space_remote(space); }
/* never registered without MPI; its space still exists (by name) */
SK_FROM_SERIAL_BEGIN
const sk_backend sk_backend_remote = {
  SK_FROM_SERIAL,
  .name = "remote",
  .spaces = remote_spaces,
  .owns = remote_owns,
  .available = sk_remote_available,
  .info = sk_remote_info,
};
SK_FROM_SERIAL_END
#endif
