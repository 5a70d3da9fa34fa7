/* bfs.c: speck.dist's BFS driver (bfs.h) -- a search's levels in C, over
 * the exec layer, with the bodies in kernels/dist/bfs.sk:
 *
 *   the frontier of level L is a bitmap every rank holds whole: each rank
 *   owns a block of words (its vertices, 64 a word) and three counters
 *   behind them, and one MPI_Allgatherv a level gives every rank all the
 *   blocks -- the new frontier and the level's counts at once (the
 *   Graph500 reference's replicated-bitmap BFS, with the counts riding
 *   along instead of an allreduce of their own);
 *   top-down (bfs_top_down, then bfs_collect): a frontier vertex, this
 *   rank's or a halo vertex with arcs into this rank, gives level L + 1 to
 *   its unvisited out-neighbours here -- the halo's through the in-arcs
 *   from the halo transposed once (tp, tc), so no marks travel back;
 *   bottom-up (bfs_bottom_up): an unvisited vertex of this rank looks for
 *   an in-neighbour's bit in the bitmap;
 *   the direction by Beamer's switch on the gathered counts, alike on
 *   every rank.
 *
 * All of a search's state is in the graph's space (a device's memory on
 * GPU ranks); the words travel through host buffers there ('stage'). A
 * rank whose step fails still joins the level's gather with its failure
 * flag set, so every rank stops at that level with the lowest failing
 * rank's message (never a hang).
 */
#include "bfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/env.h"
#include "core/err.h"
#include "kbodies.h"
#include "kernels/kernels.h"
#include "../sparse/sparse.h"

#define NELEM(a)  ((int)(sizeof(a) / sizeof((a)[0])))
#define I1(name)  " " name "=int64[1]"
#define I32(name) " " name "=int32[1]"
#define S64(name) " " name "=int64"

/* -- bodies ------------------------------------------------------------------ */
static const char *const sig_init[] = {
  "range" I1("lev") I1("done") S64("s") S64("nloc") S64("nw"), NULL};
static const sk_kbody k_init = {.label = "dist.bfs_init",
                                .body = sk_body_dist_bfs_init,
                                .pattern = SK_FOR,
                                .sigs = sig_init};
static const char *const sig_collect[] = {
  "range" I1("lev") I1("done") I1("nxt") I1("deg") S64("l1") S64("nloc"), NULL};
static const sk_kbody k_collect = {.label = "dist.bfs_collect",
                                   .body = sk_body_dist_bfs_collect,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_collect,
                                   .reds = "sum:int64 sum:int64"};
static const char *const sig_td[] = {"range" I1("fr") I1("hp") I1("lev") I1("ap")
                                       I32("ac") I1("tp") I32("tc") S64("base")
                                         S64("nloc") S64("l1"),
                                     NULL};
static const sk_kbody k_td = {.label = "dist.bfs_top_down",
                              .body = sk_body_dist_bfs_top_down,
                              .pattern = SK_FOR,
                              .sigs = sig_td};
static const char *const sig_bu[] = {"range" I1("fr") I1("hp") I1("lev") I1("done")
                                       I1("nxt") I1("deg") I1("ip") I32("ic") I1("bp")
                                         I32("bc") S64("base") S64("nloc") S64("l1"),
                                     NULL};
static const sk_kbody k_bu = {.label = "dist.bfs_bottom_up",
                              .body = sk_body_dist_bfs_bottom_up,
                              .pattern = SK_REDUCE,
                              .sigs = sig_bu,
                              .reds = "sum:int64 sum:int64"};

/* a device's: a team member a word (or an item), the lanes over its
 * vertices (or arcs) */
static const char *const sig_collect_t[] = {
  "team" I1("lev") I1("done") I1("nxt") I1("deg") S64("l1") S64("nloc") S64("nw"), NULL};
static const sk_kbody k_collect_t = {.label = "dist.bfs_collect_team",
                                     .body = sk_body_dist_bfs_collect_team,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_collect_t,
                                     .reds = "sum:int64 sum:int64"};
static const char *const sig_td_t[] = {"team" I1("fr") I1("hp") I1("lev") I1("ap")
                                         I32("ac") I1("tp") I32("tc") S64("base")
                                           S64("nloc") S64("l1") S64("nh"),
                                       NULL};
static const sk_kbody k_td_t = {.label = "dist.bfs_top_down_team",
                                .body = sk_body_dist_bfs_top_down_team,
                                .pattern = SK_FOR,
                                .sigs = sig_td_t};
static const char *const sig_bu_t[] = {
  "team" I1("fr") I1("hp") I1("lev") I1("done") I1("nxt") I1("deg") I1("ip") I32("ic")
    I1("bp") I32("bc") S64("base") S64("nloc") S64("l1") S64("nw"),
  NULL};
static const sk_kbody k_bu_t = {.label = "dist.bfs_bottom_up_team",
                                .body = sk_body_dist_bfs_bottom_up_team,
                                .pattern = SK_REDUCE,
                                .sigs = sig_bu_t,
                                .reds = "sum:int64 sum:int64"};

const sk_kbody *const sk_dist_bfs_bodies[] = {&k_init,      &k_collect, &k_td,   &k_bu,
                                              &k_collect_t, &k_td_t,    &k_bu_t, NULL};

/* -- set-up ------------------------------------------------------------------ */
/* a new rank-1 view of n (at least 1) elements */
static int newv(sk_view *v, const char *label, int dt, int64_t n, int space, char *err,
                size_t errlen) {
  return sk_sp_view(v, label, dt, n > 0 ? n : 1, space, 1, err, errlen);
}

/* 'h' (host) moved to 'space' as 'out' (h itself on the host) */
static int to_space(sk_view *out, sk_view *h, int space, char *err, size_t errlen) {
  if (space == SK_SPACE_HOST) {
    *out = *h;
    memset(h, 0, sizeof *h);
    return 0;
  }
  int rc = newv(out, h->label, h->dtype, h->extent[0], space, err, errlen);
  if (rc == 0) rc = sk_view_deep_copy(out, h, err, errlen);
  sk_view_release(h);
  return rc;
}

/* the in-arcs from the halo (bp, bc) transposed: tp (nhalo + 1), tc (this
 * rank's vertices by halo vertex), built on the host and moved over */
static int transpose(sk_dist_bfs *b, char *err, size_t errlen) {
  sk_view hbp, hbc, htp, htc;
  memset(&hbc, 0, sizeof hbc);
  memset(&htp, 0, sizeof htp);
  memset(&htc, 0, sizeof htc);
  if (sk_sp_host_copy(b->bp, &hbp, err, errlen) < 0) return -1;
  int rc = sk_sp_host_copy(b->bc, &hbc, err, errlen);
  const int64_t *bp = hbp.data;
  const int64_t nb = bp[b->nloc];
  if (rc == 0)
    rc = newv(&htp, "bfs_halo_rowptr", SK_I64, b->nhalo + 1, SK_SPACE_HOST, err, errlen);
  if (rc == 0) rc = newv(&htc, "bfs_halo_colidx", SK_I32, nb, SK_SPACE_HOST, err, errlen);
  if (rc == 0) {
    const int32_t *bc = hbc.data;
    int64_t *tp = htp.data;
    int32_t *tc = htc.data;
    for (int64_t k = 0; k < nb; k++) tp[bc[k] + 1]++;
    for (int64_t h = 0; h < b->nhalo; h++) tp[h + 1] += tp[h];
    for (int64_t v = 0; v < b->nloc; v++)
      for (int64_t k = bp[v]; k < bp[v + 1]; k++) tc[tp[bc[k]]++] = (int32_t)v;
    for (int64_t h = b->nhalo; h > 0; h--) tp[h] = tp[h - 1];
    tp[0] = 0;
    rc = to_space(&b->tp, &htp, b->space, err, errlen);
    if (rc == 0) rc = to_space(&b->tc, &htc, b->space, err, errlen);
  }
  sk_view_release(&hbp);
  sk_view_release(&hbc);
  sk_view_release(&htp);
  sk_view_release(&htc);
  return rc;
}

int sk_dist_bfs_init(sk_dist_bfs *b, const sk_dist_map *m, const sk_view *const v[7],
                     const sk_view *halo_ids, int64_t m_total, int stage, char *err,
                     size_t errlen) {
  memset(b, 0, sizeof *b);
  b->ap = v[0], b->ac = v[1], b->ip = v[2], b->ic = v[3], b->bp = v[4], b->bc = v[5];
  b->deg = v[6];
  b->np = m->nranks, b->me = m->me;
  b->lo = m->off ? m->off[m->me] : 0;
  b->nv = m->n, b->nloc = m->nloc, b->m_total = m_total;
  b->nhalo = halo_ids->extent[0];
  b->nw = (b->nloc + 63) / 64;
  b->space = b->ap->space;
  b->stage = stage || !sk_space_host_accessible(b->space);
  for (int i = 0; i < 7; i++) {
    const int want = (i == 1 || i == 3 || i == 5) ? SK_I32 : SK_I64;
    if (v[i]->rank != 1 || v[i]->dtype != want || v[i]->space != b->space ||
        !sk_view_contiguous(v[i])) {
      sk_err(err, errlen, SK_E_DIST_BFS_VIEW, v[i]->label,
             want == SK_I32 ? "int32" : "int64");
      return -1;
    }
  }
  if (!m->off || halo_ids->space != SK_SPACE_HOST || halo_ids->dtype != SK_I64) {
    sk_err(err, errlen, SK_E_DIST_BFS_VIEW, "halo_ids", "int64 (host)");
    return -1;
  }
  b->blk = malloc(2 * (size_t)b->np * sizeof *b->blk);
  if (!b->blk) {
    sk_err(err, errlen, SK_E_DIST_MAP_NOMEM, b->np);
    return -1;
  }
  b->at = b->blk + b->np;
  for (int r = 0; r < b->np; r++) {
    b->blk[r] = (m->off[r + 1] - m->off[r] + 63) / 64 + 3;
    b->at[r] = b->nall;
    b->nall += b->blk[r];
  }
  /* a device: the team bodies, a team member a word or an item, the lanes
   * a warp (teams of 8 warps); SPECK_DIST_BFS_TEAM=1 takes them on the
   * host too (the tests check them there) */
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) goto fail;
  const char *team = sk_env_get("SPECK_DIST_BFS_TEAM");
  if (!sk_sp_host(be) || (team && strcmp(team, "1") == 0)) {
    sk_team_limits lim;
    memset(&lim, 0, sizeof lim);
    be->team_limits(&lim);
    b->lanes = lim.warp > 0 ? lim.warp : 1;
    if (lim.vector_length_max > 0 && b->lanes > lim.vector_length_max)
      b->lanes = lim.vector_length_max;
    b->team_size = 8;
    if (lim.team_size_max > 0 && b->team_size > lim.team_size_max)
      b->team_size = lim.team_size_max;
  }
  /* the halo vertices' bits: owner r's block, its local index */
  sk_view hhp;
  if (newv(&hhp, "bfs_halo_bits", SK_I64, b->nhalo, SK_SPACE_HOST, err, errlen) < 0)
    goto fail;
  const int64_t *hid = halo_ids->data;
  int64_t *hp = hhp.data;
  for (int64_t h = 0; h < b->nhalo; h++) {
    int lo = 0, hi = b->np - 1; /* the last r with off[r] <= id */
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      if (m->off[mid] <= hid[h]) lo = mid;
      else hi = mid - 1;
    }
    hp[h] = 64 * b->at[lo] + (hid[h] - m->off[lo]);
  }
  if (to_space(&b->hp, &hhp, b->space, err, errlen) < 0) goto fail;
  if (transpose(b, err, errlen) < 0) goto fail;
  const int64_t nw3 = b->nw + 3;
  if (newv(&b->done, "bfs_done", SK_I64, b->nw, b->space, err, errlen) < 0 ||
      newv(&b->nxt, "bfs_next", SK_I64, b->stage ? b->nw : nw3, b->space, err, errlen) < 0 ||
      newv(&b->fr, "bfs_frontier", SK_I64, b->nall, b->space, err, errlen) < 0)
    goto fail;
  if (b->stage &&
      (newv(&b->hs, "bfs_next_host", SK_I64, nw3, SK_SPACE_HOST, err, errlen) < 0 ||
       newv(&b->hfr, "bfs_frontier_host", SK_I64, b->nall, SK_SPACE_HOST, err, errlen) <
         0))
    goto fail;
  return 0;
fail:
  sk_dist_bfs_free(b);
  return -1;
}

int64_t sk_dist_bfs_bytes(const sk_dist_bfs *b) {
  const sk_view *v[] = {&b->tp,  &b->tc, &b->hp, &b->done,
                        &b->nxt, &b->fr, &b->hs, &b->hfr};
  int64_t s = 0;
  for (int i = 0; i < NELEM(v); i++)
    if (v[i]->alloc) s += (int64_t)v[i]->alloc->bytes;
  return s;
}

void sk_dist_bfs_free(sk_dist_bfs *b) {
  sk_view *v[] = {&b->tp, &b->tc, &b->hp, &b->done, &b->nxt, &b->fr, &b->hs, &b->hfr};
  for (int i = 0; i < NELEM(v); i++) sk_view_release(v[i]);
  free(b->blk);
  free(b->dirs);
  memset(b, 0, sizeof *b);
}

/* -- a search ---------------------------------------------------------------- */
/* over n items: the range body on the host, else the team body with a
 * team member an item and b->lanes lanes (its 'nargs' captures and one
 * more, 'extra', the bound the team body checks) */
static int launch(const sk_dist_bfs *b, const sk_kbody *host, const sk_kbody *dev,
                  int64_t n, sk_arg *args, int nargs, sk_arg extra, sk_result *res,
                  char *err, size_t errlen) {
  if (n <= 0) return 0;
  if (b->lanes == 0) return sk_kbody_range(host, 0, n, args, nargs, res, err, errlen);
  args[nargs] = extra;
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.team_size = b->team_size;
  p.vector_length = b->lanes;
  p.league_size = (n + b->team_size - 1) / b->team_size;
  return sk_kbody_launch(dev, &p, args, nargs + 1, res, err, errlen);
}

/* the first n elements of 'v' as a view of its own (no reference taken) */
static sk_view head(const sk_view *v, int64_t n) {
  sk_view h = *v;
  h.extent[0] = n;
  return h;
}

/* the level's exchange (collective): this rank's new frontier words
 * (nxt) and counts (found, fe; 'failed' when its step failed) into every
 * rank's bitmap; tot: found and fe over the ranks. Returns -1 when any
 * rank failed (err: the lowest failing rank's message, on every rank). */
static int exchange(sk_dist_bfs *b, int64_t found, int64_t fe, int failed, int64_t tot[2],
                    char *err, size_t errlen) {
  sk_view *send = b->stage ? &b->hs : &b->nxt;
  sk_view *all = b->stage ? &b->hfr : &b->fr;
  if (!failed && b->stage && b->nw > 0) {
    sk_view part = head(&b->hs, b->nw);
    if (sk_view_deep_copy(&part, &b->nxt, err, errlen) < 0) failed = 1;
  }
  int64_t *s = send->data;
  s[b->nw] = failed ? 0 : found;
  s[b->nw + 1] = failed ? 0 : fe;
  s[b->nw + 2] = failed;
  char merr[512];
  if (sk_dist_allgatherv(s, b->nw + 3, b->blk, 8, all->data, merr, sizeof merr) < 0) {
    snprintf(err, errlen, "%s", merr);
    return -1;
  }
  const int64_t *a = all->data;
  int any = 0;
  tot[0] = tot[1] = 0;
  for (int r = 0; r < b->np; r++) {
    const int64_t *c = a + b->at[r] + b->blk[r] - 3;
    tot[0] += c[0], tot[1] += c[1];
    if (c[2]) any = 1;
  }
  if (!any) return 0;
  char msg[1024];
  if (sk_dist_consensus(failed, failed ? err : NULL, msg, sizeof msg) != 0)
    snprintf(err, errlen, "%s", msg);
  return -1;
}

static int add_dir(sk_dist_bfs *b, char d) {
  if (b->ndirs + 2 > b->capdirs) {
    size_t cap = b->capdirs ? 2 * b->capdirs : 64;
    char *p = realloc(b->dirs, cap);
    if (!p) return -1;
    b->dirs = p, b->capdirs = cap;
  }
  b->dirs[b->ndirs++] = d;
  b->dirs[b->ndirs] = 0;
  return 0;
}

/* the step to level l1 (mode 0: the collect alone, a search's start; 1
 * top-down; 2 bottom-up); found, fe its counts on this rank */
static int step(sk_dist_bfs *b, const sk_view *lev, int mode, int64_t l1, int64_t *found,
                int64_t *fe, char *err, size_t errlen) {
  const int64_t base = 64 * b->at[b->me];
  sk_result res;
  /* the gathered frontier into the graph's space */
  if (mode != 0 && b->stage && sk_view_deep_copy(&b->fr, &b->hfr, err, errlen) < 0)
    return -1;
  if (mode == 1) {
    sk_arg ta[] = {sk_arg_view_ro("fr", &b->fr),
                   sk_arg_view_ro("hp", &b->hp),
                   sk_arg_view("lev", lev),
                   sk_arg_view_ro("ap", b->ap),
                   sk_arg_view_ro("ac", b->ac),
                   sk_arg_view_ro("tp", &b->tp),
                   sk_arg_view_ro("tc", &b->tc),
                   sk_arg_i64("base", base),
                   sk_arg_i64("nloc", b->nloc),
                   sk_arg_i64("l1", l1),
                   {0}};
    if (launch(b, &k_td, &k_td_t, b->nloc + b->nhalo, ta, NELEM(ta) - 1,
               sk_arg_i64("nh", b->nhalo), NULL, err, errlen) < 0)
      return -1;
  }
  if (mode != 2) {
    sk_arg ca[] = {sk_arg_view_ro("lev", lev),
                   sk_arg_view("done", &b->done),
                   sk_arg_view("nxt", &b->nxt),
                   sk_arg_view_ro("deg", b->deg),
                   sk_arg_i64("l1", l1),
                   sk_arg_i64("nloc", b->nloc),
                   {0}};
    if (launch(b, &k_collect, &k_collect_t, b->nw, ca, NELEM(ca) - 1,
               sk_arg_i64("nw", b->nw), &res, err, errlen) < 0)
      return -1;
  } else {
    sk_arg ba[] = {sk_arg_view_ro("fr", &b->fr), sk_arg_view_ro("hp", &b->hp),
                   sk_arg_view("lev", lev),      sk_arg_view("done", &b->done),
                   sk_arg_view("nxt", &b->nxt),  sk_arg_view_ro("deg", b->deg),
                   sk_arg_view_ro("ip", b->ip),  sk_arg_view_ro("ic", b->ic),
                   sk_arg_view_ro("bp", b->bp),  sk_arg_view_ro("bc", b->bc),
                   sk_arg_i64("base", base),     sk_arg_i64("nloc", b->nloc),
                   sk_arg_i64("l1", l1),         {0}};
    if (launch(b, &k_bu, &k_bu_t, b->nw, ba, NELEM(ba) - 1, sk_arg_i64("nw", b->nw), &res,
               err, errlen) < 0)
      return -1;
  }
  *found = sk_result_i64(&res, 0);
  *fe = sk_result_i64(&res, 1);
  return 0;
}

int sk_dist_bfs_run(sk_dist_bfs *b, const sk_view *lev, int64_t source, int dir,
                    char *err, size_t errlen) {
  if (lev->rank != 1 || lev->dtype != SK_I64 || lev->extent[0] != b->nloc ||
      lev->space != b->space || !sk_view_contiguous(lev)) {
    sk_err(err, errlen, SK_E_DIST_BFS_VIEW, lev->label, "int64 (this rank's vertices)");
    return -1;
  }
  b->ndirs = 0;
  if (b->dirs) b->dirs[0] = 0;
  /* the start, gathered like a level: the source's bit, and its
   * out-degree (the first visited arcs) */
  const int64_t s = source >= b->lo && source < b->lo + b->nloc ? source - b->lo : -1;
  int64_t found = 0, fe = 0, tot[2];
  sk_arg ia[] = {sk_arg_view("lev", lev), sk_arg_view("done", &b->done),
                 sk_arg_i64("s", s), sk_arg_i64("nloc", b->nloc),
                 sk_arg_i64("nw", b->nw)};
  int failed = sk_kbody_range(&k_init, 0, b->nloc, ia, NELEM(ia), NULL, err, errlen) < 0;
  if (!failed) failed = step(b, lev, 0, 0, &found, &fe, err, errlen) < 0;
  if (exchange(b, found, fe, failed, tot, err, errlen) < 0) return -1;
  /* Beamer's numbers, the last level's: as the Lua driver had them */
  int64_t frontier = tot[0], m_front = 0, visited = tot[1], m_unvis = b->m_total;
  int topdown = dir != 2;
  for (int64_t L = 0;; L++) {
    if (dir == 0) {
      if (topdown && (double)m_front > (double)m_unvis / 14.0) topdown = 0;
      else if (!topdown && (double)frontier < (double)b->nv / 24.0) topdown = 1;
    }
    failed = add_dir(b, topdown ? 'T' : 'B') < 0;
    if (failed) sk_err(err, errlen, SK_E_DIST_NOMEM, (long long)b->ndirs + 2);
    if (!failed)
      failed = step(b, lev, topdown ? 1 : 2, L + 1, &found, &fe, err, errlen) < 0;
    if (exchange(b, found, fe, failed, tot, err, errlen) < 0) return -1;
    if (tot[0] == 0) break;
    frontier = tot[0], m_front = tot[1];
    visited += tot[1];
    m_unvis = b->m_total - visited;
  }
  return 0;
}
