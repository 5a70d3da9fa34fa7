/* gio.c: graphs and their results to text files: edge lists (SNAP's
 * "# Nodes: N Edges: M" header then "u v [w]" lines, or CSV / TSV with a
 * header "source,target[,weight]") and CSV of per-vertex results (an "id"
 * column, the vertices' names when the graph has them, then the columns
 * given). (The readers are in gread.c; Matrix Market goes through
 * speck.sparse.)
 *
 * A writer copies what lives elsewhere to the host and writes to a
 * temporary name renamed over 'path' (io/afile.c): a reader never sees a
 * half-written file; a path ending in ".gz" is written gzip-compressed
 * (graph.read reads it back). An undirected edge is written once, as u <= v. With
 * names (a graph read with names = true, or one of its subgraphs) the
 * vertices are written by name; a CSV field holding the delimiter, a
 * quote or a space at its ends is quoted ("" for a quote).
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

/* vertex 'v' as its name (quoted for a delimited file when it must be)
 * or its id */
static void put_vertex(FILE *f, int64_t v, const char *nb, const int64_t *no, char delim) {
  if (!nb) {
    fprintf(f, "%lld", (long long)v);
    return;
  }
  const char *p = nb + no[v];
  size_t n = (size_t)(no[v + 1] - no[v]);
  int quote = 0;
  for (size_t i = 0; delim && i < n; i++)
    quote |= p[i] == delim || p[i] == '"' || p[i] == '\n' || p[i] == '\r';
  if (delim && n > 0 && (p[0] == ' ' || p[n - 1] == ' ')) quote = 1;
  if (!quote) {
    fwrite(p, 1, n, f);
    return;
  }
  putc('"', f);
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '"') putc('"', f);
    putc(p[i], f);
  }
  putc('"', f);
}

/* the optional names and name_offsets arguments as host pointers */
static int names_arg(const sk_arg *args, int nargs, int64_t nv, const char **nb,
                     const int64_t **no, char *err, size_t errlen) {
  *nb = NULL;
  *no = NULL;
  if (!sk_karg_find(args, nargs, "names")) return 0;
  const sk_view *b = sk_karg_view(args, nargs, "names", 1, err, errlen);
  const sk_view *o = b ? sk_karg_view(args, nargs, "name_offsets", 1, err, errlen) : NULL;
  if (!o) return -1;
  if (b->dtype != SK_U8 || o->dtype != SK_I64 || o->extent[0] != nv + 1 ||
      !sk_space_host_accessible(b->space) || !sk_space_host_accessible(o->space)) {
    sk_err(err, errlen, SK_E_NAMES_VIEWS, (long long)nv + 1);
    return -1;
  }
  *nb = b->data;
  *no = o->data;
  return 0;
}

/* graph.write_edges: path, G_* [, directed, format "snap" | "edges" |
 * "csv" | "tsv", names, name_offsets] */
static int write_edges(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"path",   "G_rowptr", "G_colidx",     "G_weights",
                                      "directed", "format", "names", "name_offsets", NULL};
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
  char delim = strcmp(fmt, "csv") == 0 ? ',' : strcmp(fmt, "tsv") == 0 ? '\t' : 0;
  if (!delim && strcmp(fmt, "snap") != 0 && strcmp(fmt, "edges") != 0) {
    sk_err(err, errlen, SK_E_FORMAT_NOT_SNAP, fmt);
    return -1;
  }
  const char *nb;
  const int64_t *no;
  if (names_arg(args, nargs, g.nv, &nb, &no, err, errlen) < 0) return -1;
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
  f = sk_afile_open_z(&af, path, err, errlen);
  if (!f) goto done;
  char sep = delim ? delim : '\t';
  if (delim) {
    fprintf(f, "source%ctarget%s\n", delim, wt ? (delim == ',' ? ",weight" : "\tweight") : "");
  } else {
    if (strcmp(fmt, "snap") == 0)
      fprintf(f, "# %s graph written by speck\n", directed ? "Directed" : "Undirected");
    fprintf(f, "# Nodes: %lld Edges: %lld\n", (long long)g.nv, (long long)ne);
    if (strcmp(fmt, "snap") == 0)
      fprintf(f, "# FromNodeId\tToNodeId%s\n", wt ? "\tWeight" : "");
  }
  for (int64_t u = 0; u < g.nv; u++)
    for (int64_t k = ptr[u]; k < ptr[u + 1]; k++) {
      if (!directed && col[k] < u) continue;
      put_vertex(f, u, nb, no, delim);
      putc(sep, f);
      put_vertex(f, col[k], nb, no, delim);
      if (wt) fprintf(f, "%c%.17g", sep, wt[k]);
      putc('\n', f);
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

/* graph.write_csv: path, ncols, col1 .. colK (rank-1 views of one length
 * n, numbers), head1 .. headK (their headings) [, names, name_offsets,
 * id (default 1)] -> a CSV file "[id,][name,]head1,..." with a line per
 * vertex */
static int write_csv(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  (void)out;
  enum { MAXC = 48 };
  int64_t nc;
  int with_id;
  const char *path = sk_karg_str(args, nargs, "path", NULL, err, errlen);
  if (!path || sk_karg_i64(args, nargs, "ncols", 0, 0, &nc, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "id", 1, &with_id, err, errlen) < 0)
    return -1;
  if (nc < 0 || nc > MAXC) {
    sk_err(err, errlen, SK_E_CSV_COLUMNS_MAX, (long long)nc, (int)MAXC);
    return -1;
  }
  const sk_view *c[MAXC];
  const char *h[MAXC];
  sk_view hc[MAXC];
  int64_t n = -1;
  for (int k = 0; k < nc; k++) {
    char cn[16], hn[16];
    snprintf(cn, sizeof cn, "col%d", k + 1);
    snprintf(hn, sizeof hn, "head%d", k + 1);
    if (!(c[k] = sk_karg_view(args, nargs, cn, 1, err, errlen)) ||
        !(h[k] = sk_karg_str(args, nargs, hn, NULL, err, errlen)))
      return -1;
    int dt = c[k]->dtype;
    if (dt != SK_F64 && dt != SK_F32 && dt != SK_I64 && dt != SK_I32) {
      sk_err(err, errlen, SK_E_CSV_COLUMN_DTYPE, h[k], c[k]->label, sk_dtypes[dt].name);
      return -1;
    }
    if (n >= 0 && c[k]->extent[0] != n) {
      sk_err(err, errlen, SK_E_CSV_COLUMN_LENGTH, h[k], c[k]->label,
             (long long)c[k]->extent[0], h[0], (long long)n);
      return -1;
    }
    n = c[k]->extent[0];
  }
  if (n < 0) n = 0;
  const char *nb;
  const int64_t *no;
  if (sk_karg_find(args, nargs, "names")) {
    const sk_view *o = sk_karg_view(args, nargs, "name_offsets", 1, err, errlen);
    if (!o) return -1;
    if (nc == 0) n = o->extent[0] - 1;
  }
  if (names_arg(args, nargs, n, &nb, &no, err, errlen) < 0) return -1;
  int done_k = 0, rc = -1;
  for (; done_k < nc; done_k++)
    if (sk_sp_host_copy(c[done_k], &hc[done_k], err, errlen) < 0) goto done;
  sk_afile af;
  af.tmp[0] = '\0';
  FILE *f = sk_afile_open_z(&af, path, err, errlen);
  if (!f) goto done;
  int col = 0; /* fields written on the line so far */
  if (with_id) {
    fputs("id", f);
    col++;
  }
  if (nb) fputs(col++ ? ",name" : "name", f);
  for (int k = 0; k < nc; k++) {
    if (col++) putc(',', f);
    int64_t one[2] = {0, (int64_t)strlen(h[k])};
    put_vertex(f, 0, h[k], one, ',');
  }
  putc('\n', f);
  for (int64_t i = 0; i < n; i++) {
    int c = 0;
    if (with_id) {
      fprintf(f, "%lld", (long long)i);
      c++;
    }
    if (nb) {
      if (c++) putc(',', f);
      put_vertex(f, i, nb, no, ',');
    }
    for (int k = 0; k < nc; k++) {
      const void *d = hc[k].data;
      int64_t at = i * hc[k].stride[0];
      if (c++) putc(',', f);
      switch (hc[k].dtype) {
      case SK_F64: fprintf(f, "%.17g", ((const double *)d)[at]); break;
      case SK_F32: fprintf(f, "%.9g", (double)((const float *)d)[at]); break;
      case SK_I64: fprintf(f, "%lld", (long long)((const int64_t *)d)[at]); break;
      default: fprintf(f, "%d", ((const int32_t *)d)[at]); break;
      }
    }
    putc('\n', f);
  }
  rc = sk_afile_commit(&af, f, err, errlen);
  sk_afile_abandon(&af);
done:
  for (int k = 0; k < done_k; k++) sk_view_release(&hc[k]);
  return rc;
}

static const sk_kentry e_write = {
  "graph.write_edges", "path, G_* [, directed, format, names, name_offsets]",
  SK_KRES_NONE, write_edges};
static const sk_kentry e_csv = {"graph.write_csv",
                                "path, ncols, col1.., head1.. [, names, name_offsets]",
                                SK_KRES_NONE, write_csv};
const sk_kentry *const sk_gio_entries[] = {&e_write, &e_csv, NULL};
