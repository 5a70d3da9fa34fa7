/* plot.c: the numbers behind speck.plot's pictures (plot.h): thinning,
 * histograms, block means, sparsity density and graph layouts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "io/plot.h"

int64_t sk_plot_thin_line(const double *x, const double *y, int64_t n, int64_t nb,
                          double *ox, double *oy) {
  int64_t m = 0;
  if (nb < 1) nb = 1;
  for (int64_t b = 0; b < nb; b++) {
    int64_t lo = b * n / nb, hi = (b + 1) * n / nb;
    int64_t first = -1, last = -1, imin = -1, imax = -1;
    for (int64_t i = lo; i < hi; i++) {
      double xi = x ? x[i] : (double)i, yi = y[i];
      if (isnan(xi) || isnan(yi)) continue;
      if (first < 0) first = i;
      last = i;
      if (imin < 0 || yi < y[imin]) imin = i;
      if (imax < 0 || yi > y[imax]) imax = i;
    }
    if (first < 0) continue;
    int64_t pick[4] = {first, imin < imax ? imin : imax, imin < imax ? imax : imin, last};
    for (int k = 0; k < 4; k++) {
      if (k > 0 && pick[k] == pick[k - 1]) continue;
      ox[m] = x ? x[pick[k]] : (double)pick[k];
      oy[m] = y[pick[k]];
      m++;
    }
  }
  return m;
}

int64_t sk_plot_thin_scatter(const double *x, const double *y, int64_t n, double xlo,
                             double xhi, double ylo, double yhi, int gw, int gh,
                             int64_t *keep) {
  unsigned char *seen = calloc((size_t)gw * (size_t)gh, 1);
  if (seen == NULL) return -1;
  double sx = xhi > xlo ? gw / (xhi - xlo) : 0, sy = yhi > ylo ? gh / (yhi - ylo) : 0;
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) {
    double xi = x[i], yi = y[i];
    if (!(xi >= xlo && xi <= xhi && yi >= ylo && yi <= yhi)) continue;
    int64_t c = (int64_t)((xi - xlo) * sx), r = (int64_t)((yi - ylo) * sy);
    if (c >= gw) c = gw - 1;
    if (r >= gh) r = gh - 1;
    size_t cell = (size_t)r * (size_t)gw + (size_t)c;
    if (seen[cell]) continue;
    seen[cell] = 1;
    keep[m++] = i;
  }
  free(seen);
  return m;
}

int64_t sk_plot_range(const double *v, int64_t n, int positive, double *lo, double *hi) {
  int64_t k = 0;
  double a = 0, b = 0;
  for (int64_t i = 0; i < n; i++) {
    double t = v[i];
    if (!isfinite(t) || (positive && t <= 0)) continue;
    if (k == 0 || t < a) a = t;
    if (k == 0 || t > b) b = t;
    k++;
  }
  if (k > 0) {
    *lo = a;
    *hi = b;
  }
  return k;
}

int64_t sk_plot_hist(const double *v, int64_t n, int bins, double lo, double hi,
                     int64_t *counts) {
  int64_t out = 0;
  memset(counts, 0, sizeof *counts * (size_t)bins);
  double s = hi > lo ? bins / (hi - lo) : 0;
  for (int64_t i = 0; i < n; i++) {
    double t = v[i];
    if (!isfinite(t)) continue;
    if (t < lo || t > hi) {
      out++;
      continue;
    }
    int64_t b = (int64_t)((t - lo) * s);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    counts[b]++;
  }
  return out;
}

void sk_plot_grid(const sk_view *V, int gh, int gw, double *out) {
  int64_t rows = V->extent[0], cols = V->extent[1];
  int64_t cells = (int64_t)gh * gw;
  int64_t *cnt = calloc((size_t)cells, sizeof *cnt);
  for (int64_t k = 0; k < cells; k++) out[k] = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t r = i * gh / rows;
    for (int64_t j = 0; j < cols; j++) {
      int64_t idx[2] = {i, j};
      double t = sk_view_get_f(V, sk_view_offset(V, idx));
      if (!isfinite(t)) continue;
      int64_t c = r * gw + j * gw / cols;
      out[c] += t;
      if (cnt) cnt[c]++;
    }
  }
  for (int64_t k = 0; k < cells; k++) out[k] = cnt && cnt[k] ? out[k] / (double)cnt[k] : NAN;
  free(cnt);
}

int sk_plot_spy(const sk_view *rowptr, const sk_view *colidx, int64_t nrows,
                int64_t ncols, int gh, int gw, int64_t *counts) {
  memset(counts, 0, sizeof *counts * (size_t)gh * (size_t)gw);
  int64_t i0 = 0;
  int64_t b = sk_view_get_i(rowptr, sk_view_offset(rowptr, &i0));
  for (int64_t i = 0; i < nrows; i++) {
    int64_t i1 = i + 1;
    int64_t e = sk_view_get_i(rowptr, sk_view_offset(rowptr, &i1));
    int64_t r = i * gh / nrows;
    for (int64_t k = b; k < e; k++) {
      int64_t j = sk_view_get_i(colidx, sk_view_offset(colidx, &k));
      if (j < 0 || j >= ncols) return -1;
      counts[r * gw + j * gw / ncols]++;
    }
    b = e;
  }
  return 0;
}

/* a small deterministic generator (splitmix64) for starting positions */
static double unit_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

/* scale x, y into [0, 1] keeping the aspect ratio, centred */
static void normalise(int64_t nv, double *x, double *y) {
  if (nv == 0) return;
  double x0 = x[0], x1 = x[0], y0 = y[0], y1 = y[0];
  for (int64_t i = 1; i < nv; i++) {
    x0 = fmin(x0, x[i]);
    x1 = fmax(x1, x[i]);
    y0 = fmin(y0, y[i]);
    y1 = fmax(y1, y[i]);
  }
  double span = fmax(x1 - x0, y1 - y0);
  if (!(span > 0)) span = 1;
  for (int64_t i = 0; i < nv; i++) {
    x[i] = 0.5 + (x[i] - 0.5 * (x0 + x1)) / span;
    y[i] = 0.5 + (y[i] - 0.5 * (y0 + y1)) / span;
  }
}

void sk_plot_layout_force(int64_t nv, const int64_t *off, const int64_t *adj, int iters,
                          uint64_t seed, double *x, double *y) {
  uint64_t s = seed;
  for (int64_t i = 0; i < nv; i++) {
    x[i] = unit_rand(&s);
    y[i] = unit_rand(&s);
  }
  if (nv < 2) {
    normalise(nv, x, y);
    return;
  }
  double *dx = malloc(sizeof *dx * (size_t)nv), *dy = malloc(sizeof *dy * (size_t)nv);
  if (dx == NULL || dy == NULL) {
    free(dx);
    free(dy);
    normalise(nv, x, y);
    return;
  }
  double k = 1.0 / sqrt((double)nv), k2 = k * k;
  for (int it = 0; it < iters; it++) {
    double t = 0.1 * (1.0 - (double)it / iters) + 1e-4;
    for (int64_t i = 0; i < nv; i++) {
      /* a weak pull to the centre keeps components together */
      dx[i] = -(x[i] - 0.5) * 0.05 / k;
      dy[i] = -(y[i] - 0.5) * 0.05 / k;
    }
    for (int64_t i = 0; i < nv; i++) {
      for (int64_t j = i + 1; j < nv; j++) {
        double ex = x[i] - x[j], ey = y[i] - y[j];
        double d2 = ex * ex + ey * ey;
        if (d2 < 1e-12) d2 = 1e-12;
        double f = k2 / d2; /* (k^2 / d) along the unit vector */
        dx[i] += ex * f;
        dy[i] += ey * f;
        dx[j] -= ex * f;
        dy[j] -= ey * f;
      }
    }
    for (int64_t i = 0; i < nv; i++) {
      for (int64_t p = off[i]; p < off[i + 1]; p++) {
        int64_t j = adj[p];
        if (j == i || j < 0 || j >= nv) continue;
        double ex = x[i] - x[j], ey = y[i] - y[j];
        double d = sqrt(ex * ex + ey * ey);
        double f = d / k; /* (d^2 / k) along the unit vector */
        dx[i] -= ex * f;
        dy[i] -= ey * f;
      }
    }
    for (int64_t i = 0; i < nv; i++) {
      double l = sqrt(dx[i] * dx[i] + dy[i] * dy[i]);
      if (l > 0) {
        double m = fmin(l, t) / l;
        x[i] += dx[i] * m;
        y[i] += dy[i] * m;
      }
    }
  }
  free(dx);
  free(dy);
  normalise(nv, x, y);
}

/* v -= (v . u) u / (u . u) */
static void project_out(int64_t n, double *v, const double *u) {
  double a = 0, b = 0;
  for (int64_t i = 0; i < n; i++) {
    a += v[i] * u[i];
    b += u[i] * u[i];
  }
  if (b > 0)
    for (int64_t i = 0; i < n; i++) v[i] -= a / b * u[i];
}

static void unitise(int64_t n, double *v) {
  double a = 0;
  for (int64_t i = 0; i < n; i++) a += v[i] * v[i];
  a = sqrt(a);
  if (a > 0)
    for (int64_t i = 0; i < n; i++) v[i] /= a;
}

void sk_plot_layout_spectral(int64_t nv, const int64_t *off, const int64_t *adj,
                             int iters, double *x, double *y) {
  double *one = malloc(sizeof *one * (size_t)(nv > 0 ? nv : 1));
  double *t = malloc(sizeof *t * (size_t)(nv > 0 ? nv : 1));
  if (one == NULL || t == NULL || nv < 3) {
    for (int64_t i = 0; i < nv; i++) {
      x[i] = 0.5 + 0.5 * cos(6.283185307179586 * i / (nv ? nv : 1));
      y[i] = 0.5 + 0.5 * sin(6.283185307179586 * i / (nv ? nv : 1));
    }
    free(one);
    free(t);
    normalise(nv, x, y);
    return;
  }
  /* B = c I - L (c = 2 max degree + 1) has L's smallest eigenvalues as its
   * largest; the constant vector (L's null vector) is projected out */
  int64_t dmax = 0;
  for (int64_t i = 0; i < nv; i++)
    if (off[i + 1] - off[i] > dmax) dmax = off[i + 1] - off[i];
  double c = 2.0 * (double)dmax + 1.0;
  uint64_t s = 12345;
  for (int64_t i = 0; i < nv; i++) {
    one[i] = 1.0;
    x[i] = unit_rand(&s) - 0.5;
    y[i] = unit_rand(&s) - 0.5;
  }
  double *vs[2] = {x, y};
  for (int it = 0; it < iters; it++) {
    for (int q = 0; q < 2; q++) {
      double *v = vs[q];
      for (int64_t i = 0; i < nv; i++) {
        double lv = 0;
        int64_t deg = 0;
        for (int64_t p = off[i]; p < off[i + 1]; p++) {
          int64_t j = adj[p];
          if (j == i || j < 0 || j >= nv) continue;
          lv -= v[j];
          deg++;
        }
        lv += (double)deg * v[i];
        t[i] = c * v[i] - lv;
      }
      memcpy(v, t, sizeof *t * (size_t)nv);
      project_out(nv, v, one);
      if (q == 1) project_out(nv, v, x);
      unitise(nv, v);
    }
  }
  free(one);
  free(t);
  normalise(nv, x, y);
}

/* -- PNG ----------------------------------------------------------------- */
static unsigned char *put32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
  return p + 4;
}

/* a chunk: length, type, data, CRC of type and data */
static unsigned char *chunk(unsigned char *p, const char *type, const unsigned char *data,
                            size_t n) {
  p = put32(p, (uint32_t)n);
  memcpy(p, type, 4);
  if (n) memcpy(p + 4, data, n);
  uLong crc = crc32(0L, p, (uInt)(n + 4));
  return put32(p + 4 + n, (uint32_t)crc);
}

unsigned char *sk_plot_png_indexed(int w, int h, const unsigned char *index,
                                   const unsigned char *palette, int ncolors, size_t *len) {
  if (w < 1 || h < 1 || ncolors < 1 || ncolors > 256) return NULL;
  /* the scanlines: filter byte 0, then the row */
  size_t raw_n = (size_t)h * ((size_t)w + 1);
  unsigned char *raw = malloc(raw_n);
  uLongf z_n = compressBound((uLong)raw_n);
  unsigned char *z = malloc(z_n);
  unsigned char *png = malloc(8 + 25 + 12 + 3 * (size_t)ncolors + 12 + z_n + 12);
  if (raw == NULL || z == NULL || png == NULL) {
    free(raw), free(z), free(png);
    return NULL;
  }
  for (int r = 0; r < h; r++) {
    raw[(size_t)r * ((size_t)w + 1)] = 0;
    memcpy(raw + (size_t)r * ((size_t)w + 1) + 1, index + (size_t)r * (size_t)w, (size_t)w);
  }
  if (compress2(z, &z_n, raw, (uLong)raw_n, 9) != Z_OK) {
    free(raw), free(z), free(png);
    return NULL;
  }
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char ihdr[13], *p = png;
  put32(ihdr, (uint32_t)w);
  put32(ihdr + 4, (uint32_t)h);
  ihdr[8] = 8;  /* bit depth */
  ihdr[9] = 3;  /* palette */
  ihdr[10] = 0; /* deflate */
  ihdr[11] = 0; /* adaptive filters */
  ihdr[12] = 0; /* not interlaced */
  memcpy(p, sig, 8);
  p = chunk(p + 8, "IHDR", ihdr, 13);
  p = chunk(p, "PLTE", palette, 3 * (size_t)ncolors);
  p = chunk(p, "IDAT", z, z_n);
  p = chunk(p, "IEND", NULL, 0);
  *len = (size_t)(p - png);
  free(raw);
  free(z);
  return png;
}
