/* cg.h: speck.dist's fused CG iteration (kernels/dist/cg.c) -- the
 * sweeps of Chronopoulos and Gear's CG with Jacobi (or no)
 * preconditioner over a distributed matrix's interior and boundary
 * blocks and its halo plan, one MPI_Allreduce a sweep. The Lua driver
 * (stdlib/speck/dist.lua's dist.cg) holds the views and the loop. */
#ifndef SK_DIST_CG_H
#define SK_DIST_CG_H

#include <stddef.h>
#include <stdint.h>

#include "core/view.h"
#include "../../backends/dist/dist.h"
#include "../sparse/sparse.h"

typedef struct sk_dist_cg {
  sk_dist_plan *plan;
  /* the matrix's views (host, contiguous; alive while this is): the
   * interior block (ip, ic, iv), the boundary block (bp, bc, bv; its
   * columns index the halo hu) */
  const sk_view *ip, *ic, *iv, *bp, *bc, *bv, *hu;
  sk_view br;   /* the boundary block's rows that hold entries (nbr) */
  sk_view slid; /* the plan's send list (wraps plan->slid) */
  sk_view sbuf; /* the packed values sent (plan->nsend) */
  /* the interior's compact index (kernels/sparse/csr16.c: int16 column
   * offsets from the row, an int32 row pointer) where it fits (c16.ok) */
  sk_csr16 c16;
  sk_vdict vd; /* the interior values' codes (kernels/sparse/vdict.c), where they fit */
  /* the interior by diagonals (host; cg.c's "dia", the form of
   * kernels/sparse/dia.c): where every row's columns are its index plus
   * offsets from one set of at most 7, the rows lo <= i < hi (whose
   * columns all lie in the rank) run the straight-line body of width dia
   * (5 or 7; 0: none) over the offsets (ascending, padded with 0),
   * the values' codes dc (uint8, dia.c's blocks of 64 rows: diagonal q's
   * of row i at (i / 64) 64 dia + 64 q + i % 64; 0 for a column the row
   * lacks) into dtab (float64, slot 0 unused); duni: every diagonal's
   * entries have one value, dvalv (float64, 7, padded with 0), and the
   * body runs 64 rows a launch index (vectorised); the offsets in doffv
   * (int64, 7) */
  int dia, duni;
  int64_t lo, hi;
  sk_view dc, dtab, doffv, dvalv;
  sk_view u; /* the host's u = d r, stored by the update for the SpMV */
  /* d1: every entry of the sweeps' d is the number dd (cg.c's d_once, for
   * the d at dseen): u = dd r formed where it is read, not stored */
  int d1;
  double dd;
  const void *dseen;
  /* stage: the halo travels through host buffers -- the packed values
   * (hsbuf) and the received halo (hhu); the send list and buffer then
   * live beside the matrix (a device's memory on GPU ranks) */
  int stage;
  sk_view hsbuf, hhu;
  int64_t n, nbr, reach, block;
  /* a device's SpMV: team shape (0: the range body) */
  int team_size, vector_length;
  /* the one-sided exchange (sk_dist_cg_onesided): the receivers' remote
   * views used in turn, and where each packed value lands */
  int onesided, turn;
  const sk_view *rb[2], *pe, *off;
  /* seconds spent in each phase of the sweeps so far (this rank's; see
   * SK_DIST_CG_PHASES) and the sweeps counted */
  double phase[5];
  int64_t sweeps;
} sk_dist_cg;

/* the phases a sweep's time is split into (sk_dist_cg.phase): the pack
 * and the exchange's start, the interior (update and SpMV), the wait for
 * the halo, the boundary rows, the allreduce */
#define SK_DIST_CG_PHASES 5

/* Set up 'c' for a matrix (views: ip, ic, iv, bp, bc, bv, hu; see the
 * struct), once for all its solves: the boundary rows, how far right of
 * its diagonal the interior block reaches (the update's lead over the
 * SpMV), the lean index arrays, the send buffer. 'stage' (forced where
 * the views are not host memory): the halo through host buffers.
 * 'nodia': the interior by its index only, never by diagonals (to
 * compare the two). Not collective. */
int sk_dist_cg_init(sk_dist_cg *c, sk_dist_plan *plan, const sk_view *const views[7],
                    int stage, int nodia, char *err, size_t errlen);
/* The halo one-sided (NVSHMEM on GPU ranks, MPI windows on host ranks):
 * the sweep's packed values are stored by a kernel into their receivers'
 * parts of the remote views rb0 / rb1 (partitioned, in turn) at ranks
 * 'pe' and places 'off' (the plan's put targets, nsend each, in the
 * matrix's space), and a remote fence behind the interior rows completes
 * the exchange. The views stay alive while 'c' is. Not collective. */
void sk_dist_cg_onesided(sk_dist_cg *c, const sk_view *rb0, const sk_view *rb1,
                         const sk_view *pe, const sk_view *off);
/* The bytes 'c' holds besides the matrix's views. */
int64_t sk_dist_cg_bytes(const sk_dist_cg *c);
/* One sweep (collective) over the vectors v = {d, x, r, p, s, w} (d the
 * inverse diagonal, ones without a preconditioner): with u = d r,
 *   p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s,
 *   w = A u (the new r's u; the halo's u from the other ranks),
 * and out = {r'u, w'u, r'r} summed over the ranks (one MPI_Allreduce).
 * alpha = beta = 0 only forms w, r'u, w'u and r'r of the current r. */
int sk_dist_cg_sweep(sk_dist_cg *c, const sk_view *const v[6], double alpha, double beta,
                     double out[3], char *err, size_t errlen);
void sk_dist_cg_free(sk_dist_cg *c);
#endif
