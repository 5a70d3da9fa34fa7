/* abi.h: the binary contract between generated kernels and the back ends.
 *
 * Header only and free of system headers: it is included by the generated
 * source (through each back end's header) and by the runtime, so both sides agree
 * on the argument block, the launch context and the chunk-function type.
 * Integer types come from whoever includes it ('sk_i64' etc. below).
 */
#ifndef SK_DIALECT_ABI_H
#define SK_DIALECT_ABI_H

typedef long sk_i64;            /* LP64: the host and the GPU on Linux */
typedef unsigned long sk_u64;

#define SK_MAXRANK 8
#define SK_MAXMD 6

/* One captured view as the kernel sees it: 'data', 'extent', 'stride'
 * (in elements) and 'rank'. The generated code casts 'data' to the
 * view's element type. */
typedef struct sk_varg {
  void *data;
  sk_i64 extent[SK_MAXRANK];
  sk_i64 stride[SK_MAXRANK];
  sk_i64 rank;
  void *handle;   /* the allocation's space handle (a remote window: sk_rwin) */
} sk_varg;

/* A remote view's window as its kernels see it (backends/remote fills it).
 * The view's 'data' is a virtual global address: element g of the global
 * index range lies at 'vbase' + g * 'esize' (never dereferenced). This
 * rank holds global elements [lo, lo + nloc) at 'local'; rank r holds
 * [r * chunk, min((r + 1) * chunk, total)). Elements elsewhere go through
 * the runtime's functions, which return -1 for g outside [0, total). */
typedef struct sk_rwin {
  char *vbase;
  void *local;
  sk_i64 lo, nloc, chunk, total;
  int me, nranks, esize, dtype;
  /* all ranks on one node: the whole global range in one shared block
   * (element g at shared + g * esize), read and written with plain loads
   * and stores; NULL: every other rank's part goes through get / put */
  void *shared;
  int (*get)(const struct sk_rwin *w, sk_i64 g, void *out);
  int (*put)(const struct sk_rwin *w, sk_i64 g, const void *in);
  /* atomic: op SK_ROP_*; 'old' receives the previous value (may be NULL);
   * cas: 'in' holds the expected value then the desired one */
  int (*fop)(const struct sk_rwin *w, sk_i64 g, int op, const void *in,
             void *old);
  /* a window in GPU memory (NVSHMEM): 'peer[r]' is rank r's part as this
   * GPU addresses it (nvshmem_ptr), 'local' == peer[me]; kernels get
   * 'dev', a copy of this struct in device memory (the host copy's
   * 'peer' is a host array, the device copy's a device one). NULL for
   * windows in host memory. */
  void *const *peer;
  void *dev;
} sk_rwin;
enum { SK_ROP_ADD, SK_ROP_SUB, SK_ROP_MIN, SK_ROP_MAX, SK_ROP_AND, SK_ROP_OR,
       SK_ROP_XOR, SK_ROP_XCHG, SK_ROP_CAS, SK_NROP };

/* One capture slot of the argument block: a view or a scalar. Scalars are
 * stored in the member of their dtype; the generated code reads that one. */
typedef union sk_slot {
  sk_varg v;
  double f64;
  float f32;
  sk_i64 i64;
  sk_u64 u64;
  int i32;
  unsigned u32;
  short i16;
  signed char i8;
  unsigned char u8;
  double c128[2]; /* complex128 {re, im} */
  float c64[2];   /* complex64 */
} sk_slot;

/* The team part of the context (TeamPolicy launches), one per thread.
 * 'bar' points at the team's barrier words (sk_team_bar); 'shared' at a
 * team-shared buffer of 'team_size' * 64 bytes for nested reductions,
 * scans and broadcasts. Scratch: level 0 and 1 for the team and for this
 * thread, handed out by bump offsets reset for every league rank. */
#define SK_BAR_WORDS 16
typedef struct sk_team_bar {
  sk_u64 sync[2][SK_BAR_WORDS];
} sk_team_bar;

typedef struct sk_team_ctx {
  sk_i64 league_size;
  int team_size;
  int vector_length;
  int team_rank;
  unsigned bar_step;
  sk_team_bar *bar;
  void *shared;
  char *team_scratch[2];
  char *thread_scratch[2];
  sk_i64 team_scratch_bytes[2];
  sk_i64 thread_scratch_bytes[2];
  sk_i64 team_off[2];
  sk_i64 thread_off[2];
  /* the first scratch request of this thread that failed (the launch
   * reports it): why (SK_SCRATCH_*), whether it was thread_scratch, and
   * its arguments */
  int scratch_why;
  int scratch_thread;
  sk_i64 scratch_level, scratch_bytes;
  void *overflow;         /* malloc'd stand-in handed out for such a request */
  sk_i64 overflow_bytes;
  /* the launch's stop word and poll (as in sk_ctx): a barrier waiting
   * for a member that faulted or was interrupted leaves through them */
  const int *stop;
  int (*poll)(void);
} sk_team_ctx;

/* why a team_scratch / thread_scratch request failed */
enum { SK_SCRATCH_OK, SK_SCRATCH_FULL, SK_SCRATCH_LEVEL, SK_SCRATCH_NEGATIVE };

/* Bounds-check mode: the first out-of-range index a kernel met. */
typedef struct sk_oob {
  int hit;
  int capture;   /* index of the capture (sorted by name) */
  int dim;       /* -1: a remote view's global element index */
  int pad_;
  sk_i64 index, extent;
} sk_oob;

/* Per-launch context handed to every chunk call. MDRange: lower bounds,
 * tile sizes and tile counts per dimension, dimension 0 outermost.
 * Scan: 'final' is 0 in the up-sweep, 1 in the final pass. 'thread':
 * the host thread running the call, in [0, threads) (sk_thread_index()). */
typedef struct sk_ctx {
  sk_i64 md_lo[SK_MAXMD];
  sk_i64 md_hi[SK_MAXMD];
  sk_i64 md_tile[SK_MAXMD];
  sk_i64 md_ntile[SK_MAXMD];
  int md_rank;
  int final;
  sk_team_ctx *team;
  sk_oob *oob;          /* bounds-check mode only */
  int thread;
  /* Interrupt and fault polls (docs/hardening.md): loops in a user's body
   * read '*stop' on every back edge and, when it is not 0, call poll(),
   * which leaves the body (for an interrupt, or when another thread of
   * the launch faulted) or returns 0. NULL: no polls. */
  const int *stop;
  int (*poll)(void);
} sk_ctx;

/* A compiled kernel body: process work items [b, e) (range indices,
 * MDRange tiles or league ranks), accumulating into 'acc' (reduce, scan;
 * NULL for parallel_for). */
typedef void (*sk_chunk_fn)(const sk_slot *args, sk_i64 b, sk_i64 e,
                            void *acc, const sk_ctx *ctx);
/* Reducer identity and join, generated per reducer set. */
typedef void (*sk_init_fn)(void *acc);
typedef void (*sk_join_fn)(void *dst, const void *src);

#endif
