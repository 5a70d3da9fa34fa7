/* gio.c: graphs to and from text edge lists: SNAP files ('# ' comments,
 * "u v" lines) and whitespace "u v [w]" lists. (Matrix Market goes
 * through speck.sparse's reader and graph.from_csr.)
 *
 * The reader streams the file once, line by line, into host arrays of
 * int32 ids (and float64 weights) that grow by doubling, so memory is
 * about 8 bytes an edge (16 weighted) beyond the graph itself; every line
 * is checked as it goes and an error names the file, the line and the
 * offending token; nothing is built then. Lines: blank lines and lines
 * starting with '#' or '%' are skipped; a '#' or '%' token ends a line's
 * fields (a trailing comment). A "# Nodes: N" comment (SNAP's header)
 * gives the vertex count, or the largest id + 1 when that is more (SNAP's
 * header is a count, not a bound: its AS graphs' ids exceed it), else it
 * is the largest id + 1; its "Edges: M" is checked: a file of fewer edge
 * lines ends early, an error; counts that are not counts are errors too.
 * Only regular files are read (a FIFO would block); a byte that is not
 * text (a NUL, a control character) is refused with its offset. Weights
 * are on every data line or on none. A long read reports through io/'s
 * progress.
 *
 * The writer copies the graph to the host when it lives elsewhere and
 * writes "# Nodes: N Edges: M" then one line per edge (an undirected
 * edge once, as u <= v) to a temporary name renamed over 'path'.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "../../io/io.h"
#include "graph.h"

typedef struct rd {
  const char *path;
  int64_t lineno;
  char *err;
  size_t errlen;
} rd;

#define rd_fail sk_sp_line_fail

static int tok_id(rd *r, const char *t, int64_t *x) {
  char *end;
  errno = 0;
  long long v = strtoll(t, &end, 10);
  if (end == t || *end || errno == ERANGE) return rd_fail(r, SK_E_NOT_VERTEX_ID, t);
  if (v < 0) return rd_fail(r, SK_E_VERTEX_ID_NEGATIVE, t);
  if (v > INT32_MAX - 2) return rd_fail(r, SK_E_VERTEX_ID_TOO, t, INT32_MAX - 2);
  *x = v;
  return 0;
}

typedef struct edges {
  int32_t *src, *dst;
  double *w;
  int64_t n, cap;
} edges;

static int grow(edges *e, int weighted) {
  int64_t cap = e->cap ? 2 * e->cap : 4096;
  int32_t *s = realloc(e->src, (size_t)cap * sizeof *s);
  if (s) e->src = s;
  int32_t *d = s ? realloc(e->dst, (size_t)cap * sizeof *d) : NULL;
  if (d) e->dst = d;
  double *w = d && weighted ? realloc(e->w, (size_t)cap * sizeof *w) : NULL;
  if (w) e->w = w;
  if (!s || !d || (weighted && !w)) return -1;
  e->cap = cap;
  return 0;
}

/* the count after "Nodes:" or "Edges:" at 'p': a non-negative integer
 * ending the word; -1 when it is not one */
static int64_t header_count(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  if (!isdigit((unsigned char)*p)) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(p, &end, 10);
  if (errno == ERANGE || (*end && !isspace((unsigned char)*end))) return -1;
  return v;
}

/* "# Nodes: 10 Edges: 20" (SNAP) or "# Nodes: 10": 1 with the counts
 * ('*edges' -1 without one), 0 when the comment has no "Nodes:" word, -1
 * when its counts are not counts */
static int nodes_comment(const char *s, int64_t *nodes, int64_t *edges) {
  const char *p = s;
  while ((p = strstr(p, "Nodes:")) != NULL && p > s && isalnum((unsigned char)p[-1])) p++;
  if (!p) return 0;
  *nodes = header_count(p + 6);
  *edges = -1;
  const char *q = strstr(p + 6, "Edges:");
  if (q) *edges = header_count(q + 6);
  return *nodes < 0 || (q && *edges < 0) ? -1 : 1;
}

/* Read 'path' into 'e'; '*nv' the vertex count, '*weighted' whether the
 * lines have weights. */
static int read_text(rd *r, FILE *f, sk_progress *prog, edges *e, int64_t *nv,
                     int *weighted) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  double bytes = 0;
  int64_t declared = -1, maxid = -1, nedges = -1;
  int rc = 0;
  *weighted = -1;
  while ((len = getline(&line, &cap, f)) >= 0) {
    r->lineno++;
    int64_t at = sk_sp_not_text(line, (size_t)len);
    if (at >= 0) {
      rc = rd_fail(r, SK_E_NOT_TEXT_BYTE, (unsigned)(unsigned char)line[at],
                   (long long)bytes + at);
      break;
    }
    bytes += (double)len;
    if ((r->lineno & 0x3fff) == 0) sk_progress_step(prog, bytes);
    char *p = line, *t[3];
    while (*p && isspace((unsigned char)*p)) p++;
    if (*p == '#' || *p == '%') {
      int64_t d, de;
      int h = nodes_comment(p, &d, &de);
      if (h < 0) {
        size_t n = strlen(p);
        while (n > 0 && isspace((unsigned char)p[n - 1])) p[--n] = '\0';
        char shown[64];
        snprintf(shown, sizeof shown, "%.60s", p);
        rc = rd_fail(r, SK_E_NODES_HEADER_MALFORMED, shown);
        break;
      }
      if (h > 0 && declared < 0) {
        if (e->n > 0) {
          rc = rd_fail(r, SK_E_NODES_COMMENT_AFTER);
          break;
        }
        if (d > INT32_MAX - 1) {
          rc = rd_fail(r, SK_E_NODES_MORE_THAN, (long long)d, INT32_MAX - 1);
          break;
        }
        declared = d;
        nedges = de;
      }
      continue;
    }
    int nt = 0;
    char *x;
    while ((x = sk_sp_token(&p)) != NULL) {
      if (*x == '#' || *x == '%') break;
      if (nt == 3) {
        rc = rd_fail(r, SK_E_UNEXPECTED_AFTER_U, x);
        break;
      }
      t[nt++] = x;
    }
    if (rc < 0) break;
    if (nt == 0) continue;
    if (nt == 1) {
      rc = rd_fail(r, SK_E_EXPECTED_U_V, t[0]);
      break;
    }
    int hasw = nt == 3;
    if (*weighted < 0) *weighted = hasw;
    else if (*weighted != hasw) {
      rc = rd_fail(r, SK_E_FIELDS_EARLIER_LINES, nt, *weighted ? 3 : 2);
      break;
    }
    int64_t u, v;
    double w = 1;
    if (tok_id(r, t[0], &u) < 0 || tok_id(r, t[1], &v) < 0) {
      rc = -1;
      break;
    }
    if (hasw) {
      char *end;
      w = strtod(t[2], &end);
      if (end == t[2] || *end) {
        rc = rd_fail(r, SK_E_WEIGHT_NOT_NUMBER, t[2]);
        break;
      }
    }
    if (e->n == e->cap && grow(e, hasw) < 0) {
      rc = rd_fail(r, SK_E_OUT_MEMORY_AFTER, (long long)e->n);
      break;
    }
    e->src[e->n] = (int32_t)u;
    e->dst[e->n] = (int32_t)v;
    if (hasw) e->w[e->n] = w;
    e->n++;
    if (u > maxid) maxid = u;
    if (v > maxid) maxid = v;
  }
  free(line);
  if (rc == 0 && ferror(f)) {
    sk_err(r->err, r->errlen, SK_E_CANNOT_READ, r->path, strerror(errno));
    rc = -1;
  }
  /* fewer edges than the header's count: cut short (more are read: the
   * count is SNAP's, and a list may hold repeats) */
  if (rc == 0 && nedges >= 0 && e->n < nedges) {
    r->lineno++;
    rc = rd_fail(r, SK_E_FILE_ENDS_EDGES, (long long)e->n, (long long)nedges);
  }
  sk_progress_step(prog, bytes);
  /* the header's count is a count, not a bound: ids beyond it (SNAP's AS
   * graphs name vertices by number) give max id + 1 vertices */
  *nv = declared > maxid ? declared : maxid + 1;
  if (*weighted < 0) *weighted = 0;
  return rc;
}

/* graph.read_edges: path [, directed, dedupe, self_loops] -> G_*, nv */
static int read_edges(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"path", "directed", "dedupe", "self_loops", NULL};
  sk_gopts o;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0) return -1;
  const char *path = sk_karg_str(args, nargs, "path", NULL, err, errlen);
  if (!path || sk_g_opts(args, nargs, &o, err, errlen) < 0) return -1;
  int space = sk_g_space(err, errlen);
  if (space < 0) return -1;
  const char *kind;
  FILE *f = sk_rfile_open(path, &kind);
  if (!f) {
    if (kind) sk_err(err, errlen, SK_E_PATH_NOT_REGULAR, path, kind);
    else sk_err(err, errlen, SK_E_CANNOT_OPEN_PATH, path, strerror(errno));
    return -1;
  }
  rd r = {path, 0, err, errlen};
  sk_progress prog;
  struct stat st;
  char what[300];
  sk_err(what, sizeof what, SK_E_GRAPH_READ, path);
  sk_progress_begin(&prog, what, fstat(fileno(f), &st) == 0 ? (double)st.st_size : 0);
  edges e;
  memset(&e, 0, sizeof e);
  int64_t nv = 0;
  int weighted = 0;
  int rc = read_text(&r, f, &prog, &e, &nv, &weighted);
  sk_progress_end(&prog);
  fclose(f);
  sk_view hs, hd, hw, ds, dd, dw;
  sk_view *all[] = {&hs, &hd, &hw, &ds, &dd, &dw};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (rc == 0) {
    int64_t ext[1] = {e.n};
    static char none[8];
    rc = sk_view_create(&hs, "src", SK_I32, 1, ext, SK_RIGHT, SK_SPACE_HOST, 0,
                        e.src ? (void *)e.src : none, err, errlen);
    if (rc == 0)
      rc = sk_view_create(&hd, "dst", SK_I32, 1, ext, SK_RIGHT, SK_SPACE_HOST, 0,
                          e.dst ? (void *)e.dst : none, err, errlen);
    if (rc == 0 && weighted)
      rc = sk_view_create(&hw, "weights", SK_F64, 1, ext, SK_RIGHT, SK_SPACE_HOST, 0, e.w,
                          err, errlen);
  }
  const sk_view *ps = &hs, *pd = &hd, *pw = weighted ? &hw : NULL;
  const sk_backend *b = rc == 0 ? sk_sp_backend(err, errlen) : NULL;
  if (rc == 0 && !b) rc = -1;
  if (rc == 0 && (space != SK_SPACE_HOST || !b->reaches(SK_SPACE_HOST))) {
    /* out of core when the edges with the build's peak do not fit */
    space = sk_g_edge_space(space, (uint64_t)e.n * (weighted ? 160 : 112));
    if (sk_sp_view(&ds, "src", SK_I32, e.n, space, 0, err, errlen) < 0 ||
        sk_sp_view(&dd, "dst", SK_I32, e.n, space, 0, err, errlen) < 0 ||
        (weighted &&
         sk_sp_view(&dw, "weights", SK_F64, e.n, space, 0, err, errlen) < 0) ||
        sk_view_deep_copy(&ds, &hs, err, errlen) < 0 ||
        sk_view_deep_copy(&dd, &hd, err, errlen) < 0 ||
        (weighted && sk_view_deep_copy(&dw, &hw, err, errlen) < 0))
      rc = -1;
    ps = &ds;
    pd = &dd;
    pw = weighted ? &dw : NULL;
  }
  if (rc == 0 && sk_g_build(nv, ps, pd, pw, &o, out, err, errlen) < 0)
    rc = sk_kerr_file(err, errlen, path);
  if (rc == 0) rc = sk_kout_num(out, "nv", (double)nv, err, errlen);
  if (rc == 0) rc = sk_kout_num(out, "weighted", weighted, err, errlen);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  free(e.src);
  free(e.dst);
  free(e.w);
  return rc;
}

/* graph.write_edges: path, G_* [, directed, format "snap" | "edges"] */
static int write_edges(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"path",     "G_rowptr", "G_colidx", "G_weights",
                                      "directed", "format",   NULL};
  (void)out;
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  const char *path = sk_karg_str(args, nargs, "path", NULL, err, errlen);
  const char *fmt = path ? sk_karg_str(args, nargs, "format", "snap", err, errlen) : NULL;
  if (!fmt) return -1;
  if (strcmp(fmt, "snap") != 0 && strcmp(fmt, "edges") != 0) {
    sk_err(err, errlen, SK_E_FORMAT_NOT_SNAP, fmt);
    return -1;
  }
  sk_view rp, ci, w;
  memset(&ci, 0, sizeof ci);
  memset(&w, 0, sizeof w);
  if (sk_sp_host_copy(g.rowptr, &rp, err, errlen) < 0) return -1;
  int rc = -1;
  FILE *f = NULL;
  sk_afile af;
  af.tmp[0] = '\0';
  if (sk_sp_host_copy(g.colidx, &ci, err, errlen) < 0 ||
      (g.weights && sk_sp_host_copy(g.weights, &w, err, errlen) < 0))
    goto done;
  const int64_t *ptr = rp.data;
  const int32_t *col = ci.data;
  const double *wt = g.weights ? w.data : NULL;
  int64_t ne = 0;
  for (int64_t u = 0; u < g.nv; u++)
    for (int64_t k = ptr[u]; k < ptr[u + 1]; k++) ne += directed || col[k] >= u;
  f = sk_afile_open(&af, path, err, errlen);
  if (!f) goto done;
  if (strcmp(fmt, "snap") == 0)
    fprintf(f, "# %s graph written by speck\n", directed ? "Directed" : "Undirected");
  fprintf(f, "# Nodes: %lld Edges: %lld\n", (long long)g.nv, (long long)ne);
  if (strcmp(fmt, "snap") == 0)
    fprintf(f, "# FromNodeId\tToNodeId%s\n", wt ? "\tWeight" : "");
  for (int64_t u = 0; u < g.nv; u++)
    for (int64_t k = ptr[u]; k < ptr[u + 1]; k++) {
      if (!directed && col[k] < u) continue;
      if (wt) fprintf(f, "%lld\t%d\t%.17g\n", (long long)u, col[k], wt[k]);
      else fprintf(f, "%lld\t%d\n", (long long)u, col[k]);
    }
  rc = sk_afile_commit(&af, f, err, errlen);
  f = NULL;
done:
  if (f) fclose(f);
  sk_afile_abandon(&af);
  sk_view_release(&rp);
  sk_view_release(&ci);
  sk_view_release(&w);
  return rc;
}

static const sk_kentry e_read = {
  "graph.read_edges", "path [, directed, dedupe, self_loops]", SK_KRES_NONE, read_edges};
static const sk_kentry e_write = {"graph.write_edges", "path, G_* [, directed, format]",
                                  SK_KRES_NONE, write_edges};
const sk_kentry *const sk_gio_entries[] = {&e_read, &e_write, NULL};
