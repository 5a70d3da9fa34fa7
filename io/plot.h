/* plot.h: the numbers behind speck.plot's pictures -- thinning a long
 * series to what a picture can show, histograms, block means of a
 * rank-2 view, the sparsity density of a CSR matrix and the layouts of
 * graph drawings. No Lua here (vm/lplot.c binds it, stdlib/speck/plot.lua
 * draws the SVG) and nothing printed. Plain C over double arrays and
 * host views: a picture of 10^6 points or a spy of a 10^6-row matrix is
 * reduced here in milliseconds, so the SVG stays small.
 */
#ifndef SK_IO_PLOT_H
#define SK_IO_PLOT_H

#include <stdint.h>

#include "core/view.h"

/* Line thinning (min/max per bucket, "M4"): the n points (x[i], y[i]) (x
 * NULL: x = i) in 'nb' buckets of consecutive indices, each bucket kept
 * as its first, lowest, highest and last point in index order. A polyline
 * through the kept points draws the same pixels as through all of them
 * when nb is at least the picture's width. Points with a NaN are skipped.
 * 'ox', 'oy' hold 4 nb values; returns how many were written. */
int64_t sk_plot_thin_line(const double *x, const double *y, int64_t n, int64_t nb,
                          double *ox, double *oy);

/* Scatter thinning: one point per occupied cell of a gw x gh grid over
 * [xlo, xhi] x [ylo, yhi] (the first point that lands in it); 'keep'
 * gets the kept indices in order. Returns how many. Points outside the
 * box or with a NaN are dropped. */
int64_t sk_plot_thin_scatter(const double *x, const double *y, int64_t n, double xlo,
                             double xhi, double ylo, double yhi, int gw, int gh,
                             int64_t *keep);

/* Finite minimum and maximum of v[0..n) (only v > 0 when 'positive');
 * returns the number of values counted (0: lo, hi untouched). */
int64_t sk_plot_range(const double *v, int64_t n, int positive, double *lo, double *hi);

/* counts[b] for 'bins' equal bins over [lo, hi] (hi falls in the last);
 * returns the number of finite values outside [lo, hi] (not counted) */
int64_t sk_plot_hist(const double *v, int64_t n, int bins, double lo, double hi,
                     int64_t *counts);

/* Block means of a host rank-2 view V (rows x cols) on a gh x gw grid
 * (gh <= rows, gw <= cols): out[r * gw + c] is the mean of the block's
 * finite elements (NaN for a block of none). */
void sk_plot_grid(const sk_view *V, int gh, int gw, double *out);

/* Sparsity density: counts[r * gw + c] = the stored entries of the CSR
 * (rowptr, colidx: host int views) that fall in the cell (rows mapped
 * onto gh, columns onto gw). Returns -1 when a column index is outside
 * [0, ncols) (the matrix is malformed), else 0. */
int sk_plot_spy(const sk_view *rowptr, const sk_view *colidx, int64_t nrows,
                int64_t ncols, int gh, int gw, int64_t *counts);

/* Graph layouts of nv vertices with the undirected adjacency (off: nv + 1
 * offsets, adj: neighbours), written to x, y in [0, 1]:
 *  force: Fruchterman-Reingold, 'iters' rounds from a seeded start;
 *  spectral: the Laplacian's two eigenvectors after the constant one
 *  (orthogonal iteration, 'iters' rounds). Deterministic. */
void sk_plot_layout_force(int64_t nv, const int64_t *off, const int64_t *adj, int iters,
                          uint64_t seed, double *x, double *y);
void sk_plot_layout_spectral(int64_t nv, const int64_t *off, const int64_t *adj,
                             int iters, double *x, double *y);

/* A PNG of w x h palette indices (row-major, one byte each) with the
 * 'ncolors' RGB triples of 'palette' (at most 256), deflated by zlib:
 * a malloc'd buffer (the caller frees it) and its length in '*len', NULL
 * when out of memory. speck.plot embeds it in an SVG for a grid of more
 * cells than rectangles would draw quickly (spy, heatmap). */
unsigned char *sk_plot_png_indexed(int w, int h, const unsigned char *index,
                                   const unsigned char *palette, int ncolors, size_t *len);

#endif
