/* spec.h: what a kernel is, as the JIT sees it: captures (the
 * signature, never extents or values), reducers, and the spec that
 * determines the generated source. The bottom of jit/: codegen, the
 * compiler tiers and the cache all speak it.
 */
#ifndef SK_SPEC_H
#define SK_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"

enum { SK_CAP_VIEW, SK_CAP_SCALAR };

/* One capture as the signature sees it (never extents or values). */
typedef struct sk_capture {
  const char *name;
  int kind; /* SK_CAP_VIEW / SK_CAP_SCALAR */
  int dtype;
  int rank, layout, space;
  unsigned traits;
  int alias;        /* 1 if it shares an allocation with another view */
  int tile_log2[3]; /* tiled layouts: the tile shifts (signature) */
  int agg, agg_n;   /* aggregate element type (SK_AGG_*, N); 'rank' is
                        * then the user rank, without the components */
} sk_capture;

typedef enum sk_redop {
  SK_RED_SUM,
  SK_RED_PROD,
  SK_RED_MIN,
  SK_RED_MAX,
  SK_RED_MINLOC,
  SK_RED_MAXLOC,
  SK_RED_MINMAX,
  SK_RED_LAND,
  SK_RED_LOR,
  SK_RED_BAND,
  SK_RED_BOR,
  SK_RED_CUSTOM,
  SK_NREDOP
} sk_redop;

typedef struct sk_reducer {
  int op; /* sk_redop */
  int dtype;
  const char *init; /* custom: C statements over 'acc' */
  const char *join; /* custom: C statements over 'dst' and 'src' */
  int agg, agg_n;   /* sum over an aggregate type (dtype float64) */
} sk_reducer;

#define SK_MAXRED 16
#define SK_MAXCAP 64

struct sk_jit_target;

/* SK_TIER_IMAGE: an image target's compiler (its 'build', target.h);
 * SK_TIER_PRE: precompiled into libspeck (kernels/), seeded at start */
enum { SK_TIER_AUTO, SK_TIER_TCC, SK_TIER_CC, SK_TIER_IMAGE, SK_TIER_PRE, SK_NTIER };
/* Everything that determines the generated source. */
typedef struct sk_kspec {
  const char *label;
  const char *body;
  size_t body_len;
  const char *prelude; /* may be NULL */
  int pattern;         /* sk_pattern */
  int policy_kind;     /* sk_policy_kind */
  int md_rank;
  int ncap;
  const sk_capture *caps; /* sorted by name */
  int nred;
  const sk_reducer *reds;      /* reduce: 1..SK_MAXRED; scan: 1 (sum) */
  const char *index[SK_MAXMD]; /* index names, NULL = default */
  const char *target;          /* back-end name, for messages only */
  /* what to make: the back end's code target (target.h; NULL: host C) */
  const struct sk_jit_target *gen;
  const char *arch; /* image targets: "sm_90" (the back end's
                                * 'arch'); NULL or "": compile only */
  int bounds;       /* bounds-check mode */
  int tier;         /* requested tier (SK_TIER_*) */
  int library;      /* the library's own text (kernels/): its
                                * body and prelude skip the user-text
                                * shape check (they may hold directives) */
} sk_kspec;

#endif
