/* gread.c: graph.read_edges -- graphs from text edge lists: SNAP files
 * ('# ' comments, "u v" lines), whitespace "u v [w]" lists, and CSV / TSV
 * files with a header whose chosen columns hold the source, the target
 * and the weight; plain or gzip-compressed (io/lines.c: inflated as it is
 * read). (Matrix Market goes through speck.sparse's reader and
 * graph.from_csr; the writers are in gio.c.)
 *
 * The reader streams the file once, line by line, into host arrays of
 * int32 ids (and float64 weights) that grow by doubling, so memory is
 * about 8 bytes an edge (16 weighted) beyond the graph itself; every line
 * is checked as it goes and an error names the file, the line and the
 * offending token (corrupt compressed data: the byte offset); nothing is
 * built then. Lines: blank lines and lines starting with '#' or '%' are
 * skipped; in a whitespace list a '#' or '%' token ends a line's fields
 * (a trailing comment). A "# Nodes: N" comment (SNAP's header) gives the
 * vertex count, or the largest id + 1 when that is more (SNAP's header is
 * a count, not a bound: its AS graphs' ids exceed it; 'declared' then
 * says so for the caller's note), else it is the largest id + 1; its
 * "Edges: M" is checked: a file of fewer edge lines ends early, an error;
 * counts that are not counts are errors too. Only regular files are read
 * (a FIFO would block); a byte that is not text (a NUL, a control
 * character) is refused with its offset. Weights are on every data line
 * or on none; a UTF-8 byte order mark before the first line is skipped.
 * A long read reports through io/'s progress (the bytes of the file,
 * compressed or not).
 *
 * With 'names' the ids are tokens (gnames.c): 0..n-1 in order of first
 * appearance, the names kept as the outputs "names" and "name_offsets";
 * the header's count is not used then.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "../../io/io.h"
#include "gnames.h"

typedef struct rd {
  const char *path;
  int64_t lineno;
  char *err;
  size_t errlen;
} rd;

#define rd_fail sk_sp_line_fail

/* the layout of the lines: whitespace ("u v [w]") or delimited fields
 * with a header naming the columns */
typedef struct layout {
  char delim; /* 0: whitespace; ',' or '\t' */
  const char *col[3]; /* the source, target, weight columns' names (delimited) */
  char hname[3][64];  /* the header's names of the columns used */
  int at[3];          /* their fields (0-based), -1: none */
  int header_seen;
  sk_names *names; /* NULL: integer ids */
} layout;

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

static int vertex(rd *r, layout *ly, const char *t, int64_t *x) {
  if (!ly->names) return tok_id(r, t, x);
  if (!*t) return rd_fail(r, SK_E_NAME_EMPTY);
  int64_t same = -1;
  int64_t id = sk_names_intern(ly->names, t, r->lineno, &same);
  if (id == -2) {
    int len;
    const char *first = sk_names_name(ly->names, same, &len);
    return rd_fail(r, SK_E_NAMES_SAME_INTEGER, len > 60 ? 60 : len, first,
                   (long long)ly->names->line[same], t, (long long)r->lineno,
                   strtoll(t, NULL, 10));
  }
  if (id < 0) return rd_fail(r, SK_E_OUT_MEMORY_AFTER, (long long)ly->names->n);
  *x = id;
  return 0;
}

typedef struct edges {
  int32_t *src, *dst;
  double *w;
  int64_t n, cap;
  int real_w; /* a weight was not an integer literal (or beyond 2^53) */
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

/* the fields of a delimited line, in place: quotes ("a,b", "" a quote)
 * taken off, spaces around a field trimmed; -1 with a message on an
 * unclosed quote. At most 'max' fields are kept, '*n' counts them all. */
enum { MAXF = 256 };
static int split(rd *r, char *p, char delim, char **f, int *n) {
  *n = 0;
  for (;;) {
    while (*p == ' ' || (*p == '\t' && delim != '\t')) p++;
    char *start = p, *o = p;
    if (*p == '"') {
      p++;
      for (;;) {
        if (!*p || *p == '\n' || *p == '\r') return rd_fail(r, SK_E_CSV_UNCLOSED_QUOTE);
        if (*p == '"' && p[1] == '"') {
          *o++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *o++ = *p++;
        }
      }
      while (*p && *p != delim && *p != '\n' && *p != '\r') p++;
    } else {
      while (*p && *p != delim && *p != '\n' && *p != '\r') *o++ = *p++;
      while (o > start && (o[-1] == ' ' || (o[-1] == '\t' && delim != '\t'))) o--;
    }
    char c = *p;
    *o = '\0';
    if (*n < MAXF) f[*n] = start;
    (*n)++;
    if (c != delim) return 0;
    p++;
  }
}

static const char *const role[3] = {"source", "target", "weight"};

/* the header of a delimited file: each chosen column's field */
static int header(rd *r, layout *ly, char **f, int n) {
  for (int c = 0; c < 3; c++) {
    if (!ly->col[c]) {
      if (ly->at[c] >= n) return rd_fail(r, SK_E_CSV_HEADER_FEW, n, n == 1 ? "" : "s");
      if (ly->at[c] >= 0) snprintf(ly->hname[c], sizeof ly->hname[c], "%s", f[ly->at[c]]);
      continue;
    }
    snprintf(ly->hname[c], sizeof ly->hname[c], "%s", ly->col[c]);
    ly->at[c] = -1;
    for (int k = 0; k < n && k < MAXF && ly->at[c] < 0; k++)
      if (strcmp(f[k], ly->col[c]) == 0) ly->at[c] = k;
    if (ly->at[c] < 0) {
      char cols[512];
      size_t l = 0;
      cols[0] = '\0';
      for (int k = 0; k < n && k < MAXF && l + 4 < sizeof cols; k++) {
        int w = snprintf(cols + l, sizeof cols - l, "%s'%s'", k ? ", " : "", f[k]);
        l = w > 0 && (size_t)w < sizeof cols - l ? l + (size_t)w : sizeof cols - 1;
      }
      return rd_fail(r, SK_E_CSV_NO_COLUMN, ly->col[c], role[c], cols);
    }
  }
  ly->header_seen = 1;
  return 0;
}

/* Read the lines of 'ls' into 'e'; '*nv' the vertex count, '*weighted'
 * whether the lines have weights, '*declared' the header's count (-1:
 * none). */
static int read_text(rd *r, sk_lines *ls, sk_progress *prog, edges *e, layout *ly,
                     int64_t *nv, int *weighted, int64_t *declared_out) {
  char *line = NULL;
  int64_t len;
  double bytes = 0;
  int64_t declared = -1, maxid = -1, nedges = -1;
  int rc = 0;
  *weighted = ly->delim ? ly->at[2] >= 0 || ly->col[2] != NULL : -1;
  while ((len = sk_lines_next(ls, &line, r->err, r->errlen)) > 0) {
    r->lineno++;
    int64_t at = sk_sp_not_text(line, (size_t)len);
    if (at >= 0) {
      rc = rd_fail(r, SK_E_NOT_TEXT_BYTE, (unsigned)(unsigned char)line[at],
                   (long long)bytes + at);
      break;
    }
    bytes += (double)len;
    if ((r->lineno & 0x3fff) == 0) sk_progress_step(prog, ls->raw);
    /* a UTF-8 byte order mark (spreadsheets write one) is not a field's */
    if (r->lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3;
    char *p = line, *t[3];
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) continue;
    if (*p == '#' || *p == '%') {
      int64_t d, de;
      int h = ly->delim || ly->names ? 0 : nodes_comment(p, &d, &de);
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
    int nt = 0, hasw;
    if (ly->delim) {
      char *f[MAXF];
      int nf;
      if (split(r, line, ly->delim, f, &nf) < 0) {
        rc = -1;
        break;
      }
      if (!ly->header_seen) {
        if (header(r, ly, f, nf) < 0) {
          rc = -1;
          break;
        }
        continue;
      }
      for (int c = 0; c < 3 && rc == 0; c++) {
        if (ly->at[c] < 0) continue;
        if (ly->at[c] >= nf) {
          rc = rd_fail(r, SK_E_CSV_MISSING_FIELD, nf, nf == 1 ? "" : "s", ly->hname[c],
                       role[c], ly->at[c] + 1);
          break;
        }
        t[c] = f[ly->at[c]];
        if (c < 2 && !ly->names && !*t[c]) rc = rd_fail(r, SK_E_CSV_EMPTY_FIELD, role[c]);
      }
      if (rc < 0) break;
      nt = ly->at[2] >= 0 ? 3 : 2;
      hasw = nt == 3;
    } else {
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
      hasw = nt == 3;
      if (*weighted < 0) *weighted = hasw;
      else if (*weighted != hasw) {
        rc = rd_fail(r, SK_E_FIELDS_EARLIER_LINES, nt, *weighted ? 3 : 2);
        break;
      }
    }
    int64_t u, v;
    double w = 1;
    if (vertex(r, ly, t[0], &u) < 0 || vertex(r, ly, t[1], &v) < 0) {
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
      if (!e->real_w) {
        long long iw = strtoll(t[2], &end, 10);
        if (*end || iw > ((long long)1 << 53) || iw < -((long long)1 << 53)) e->real_w = 1;
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
  if (len < 0 && rc == 0) rc = -1; /* the line source's message */
  if (rc == 0 && ly->delim && !ly->header_seen) {
    sk_err(r->err, r->errlen, SK_E_CSV_NO_HEADER, r->path, ly->delim == ',' ? "CSV" : "TSV");
    rc = -1;
  }
  /* fewer edges than the header's count: cut short (more are read: the
   * count is SNAP's, and a list may hold repeats) */
  if (rc == 0 && nedges >= 0 && e->n < nedges) {
    r->lineno++;
    rc = rd_fail(r, SK_E_FILE_ENDS_EDGES, (long long)e->n, (long long)nedges);
  }
  sk_progress_step(prog, ls->raw);
  /* the header's count is a count, not a bound: ids beyond it (SNAP's AS
   * graphs name vertices by number) give max id + 1 vertices */
  *nv = ly->names ? ly->names->n : declared > maxid ? declared : maxid + 1;
  *declared_out = declared;
  if (*weighted < 0) *weighted = 0;
  return rc;
}

/* graph.read_edges: path [, directed, dedupe, self_loops, format
 * "snap" | "edges" | "csv" | "tsv", names, source, target, weight] ->
 * G_*, nv, weighted (0, 1, or 2: every weight an integer literal),
 * declared [, names, name_offsets] */
static int read_edges(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"path",  "directed", "dedupe", "self_loops", "format",
                                      "names", "source",   "target", "weight",     NULL};
  sk_gopts o;
  int use_names;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0) return -1;
  const char *path = sk_karg_str(args, nargs, "path", NULL, err, errlen);
  const char *fmt = path ? sk_karg_str(args, nargs, "format", "snap", err, errlen) : NULL;
  if (!fmt || sk_g_opts(args, nargs, &o, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "names", 0, &use_names, err, errlen) < 0)
    return -1;
  layout ly;
  memset(&ly, 0, sizeof ly);
  ly.at[0] = 0;
  ly.at[1] = 1;
  ly.at[2] = -1;
  if (strcmp(fmt, "csv") == 0 || strcmp(fmt, "tsv") == 0) {
    ly.delim = fmt[0] == 'c' ? ',' : '\t';
    for (int c = 0; c < 3; c++) {
      const char *k = role[c];
      if (sk_karg_find(args, nargs, k) && !(ly.col[c] = sk_karg_str(args, nargs, k, NULL,
                                                                    err, errlen)))
        return -1;
    }
    ly.header_seen = 0;
  } else if (strcmp(fmt, "snap") != 0 && strcmp(fmt, "edges") != 0) {
    sk_err(err, errlen, SK_E_FORMAT_NOT_SNAP, fmt);
    return -1;
  }
  sk_names names;
  memset(&names, 0, sizeof names);
  if (use_names) ly.names = &names;
  int space = sk_g_space(err, errlen);
  if (space < 0) return -1;
  sk_lines ls;
  if (sk_lines_open(&ls, path, err, errlen) < 0) return -1;
  rd r = {path, 0, err, errlen};
  sk_progress prog;
  char what[300];
  sk_err(what, sizeof what, SK_E_GRAPH_READ, path);
  /* the bar covers the read (the file's bytes) and the build after it
   * (as many units again): it reaches its end when the graph is built */
  sk_progress_begin(&prog, what, 2.0 * (double)ls.size);
  edges e;
  memset(&e, 0, sizeof e);
  int64_t nv = 0, declared = -1;
  int weighted = 0;
  int rc = read_text(&r, &ls, &prog, &e, &ly, &nv, &weighted, &declared);
  o.prog = &prog;
  o.prog_from = (double)ls.size;
  o.prog_to = 2.0 * (double)ls.size;
  sk_lines_close(&ls);
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
      rc = sk_view_create(&hw, "weights", SK_F64, 1, ext, SK_RIGHT, SK_SPACE_HOST, 0,
                          e.w ? (void *)e.w : none, err, errlen);
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
  sk_progress_end(&prog);
  if (rc == 0) rc = sk_kout_num(out, "nv", (double)nv, err, errlen);
  /* weighted: 2 when every weight is an integer literal */
  if (rc == 0) rc = sk_kout_num(out, "weighted", weighted ? 2 - e.real_w : 0, err, errlen);
  if (rc == 0) rc = sk_kout_num(out, "declared", (double)declared, err, errlen);
  if (rc == 0 && use_names) rc = sk_names_out(&names, space, out, err, errlen);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  free(e.src);
  free(e.dst);
  free(e.w);
  sk_names_free(&names);
  return rc;
}

static const sk_kentry e_read = {
  "graph.read_edges",
  "path [, directed, dedupe, self_loops, format, names, source, target, weight]",
  SK_KRES_NONE, read_edges};
const sk_kentry *const sk_gread_entries[] = {&e_read, &sk_gnames_gather, NULL};
