/* blas1.c: BLAS level 1 (dot nrm2 asum iamax scal axpy axpby), each body
 * written once in the dialect for every back end; the drivers check the
 * arguments and apply the BLAS rules (alpha = 0 ignores x; beta = 0
 * overwrites y even where it holds NaN).
 *
 * Sums accumulate in float64 whatever the views' dtype (as dsdot), so a
 * float32 dot loses nothing to its accumulator. nrm2 takes one pass and
 * rescales only when the plain sum of squares overflowed or may have
 * underflowed, by the power of two that brings the largest magnitude into
 * [0.5, 1) (exact: no rounding from the scale, even for subnormals).
 * Bodies: blas1.sk.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "../kernels.h"
#include "kbodies.h"

/* -- bodies ------------------------------------------------------------------ */
/* an element of BLAS-1 costs about a nanosecond, waking a thread a few
 * microseconds: under two grains of elements a call runs on the calling
 * thread (host back ends; the policy's grain) */
#define SK_BLAS1_GRAIN 4096

static const sk_kbody k_dot = {.label = "blas.dot",
                               .body = sk_body_blas_dot,
                               .pattern = SK_REDUCE,
                               .red_op = SK_RED_SUM,
                               .views = {"x", "y", NULL},
                               .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_sumsq = {.label = "blas.nrm2",
                                 .body = sk_body_blas_nrm2_sumsq,
                                 .pattern = SK_REDUCE,
                                 .red_op = SK_RED_SUM,
                                 .views = {"x", NULL},
                                 .grain = SK_BLAS1_GRAIN};
/* scaled by 2^-e in two exact steps (s * s2), so the largest magnitude
 * lands in [0.5, 1) with no rounding and no overflow of the scale */
static const sk_kbody k_sumsq_scaled = {.label = "blas.nrm2",
                                        .body = sk_body_blas_nrm2_scaled,
                                        .pattern = SK_REDUCE,
                                        .red_op = SK_RED_SUM,
                                        .views = {"x", NULL},
                                        .scalars = {"s", "s2", NULL},
                                        .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_amax = {.label = "blas.nrm2",
                                .body = sk_body_blas_nrm2_amax,
                                .pattern = SK_REDUCE,
                                .red_op = SK_RED_MAX,
                                .views = {"x", NULL},
                                .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_asum = {.label = "blas.asum",
                                .body = sk_body_blas_asum,
                                .pattern = SK_REDUCE,
                                .red_op = SK_RED_SUM,
                                .views = {"x", NULL},
                                .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_iamax = {.label = "blas.iamax",
                                 .body = sk_body_blas_iamax,
                                 .pattern = SK_REDUCE,
                                 .red_op = SK_RED_MAXLOC,
                                 .views = {"x", NULL},
                                 .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_scal = {.label = "blas.scal",
                                .body = sk_body_blas_scal,
                                .pattern = SK_FOR,
                                .views = {"x", NULL},
                                .scalars = {"a", NULL},
                                .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_axpy = {.label = "blas.axpy",
                                .body = sk_body_blas_axpy,
                                .pattern = SK_FOR,
                                .views = {"x", "y", NULL},
                                .scalars = {"a", NULL},
                                .grain = SK_BLAS1_GRAIN};
static const sk_kbody k_axpby = {.label = "blas.axpby",
                                 .body = sk_body_blas_axpby,
                                 .pattern = SK_FOR,
                                 .views = {"x", "y", NULL},
                                 .scalars = {"a", "b", NULL},
                                 .grain = SK_BLAS1_GRAIN};

const sk_kbody *const sk_blas_bodies[] = {&k_dot,   &k_sumsq, &k_sumsq_scaled, &k_amax,
                                          &k_asum,  &k_iamax, &k_scal,         &k_axpy,
                                          &k_axpby, NULL};

/* -- argument checks ---------------------------------------------------------- */
static int same_length(const sk_view *x, const sk_view *y, char *err, size_t errlen) {
  if (x->extent[0] == y->extent[0]) return 0;
  sk_err(err, errlen, SK_E_X_VIEW_ELEMENTS, x->label, (long long)x->extent[0], y->label,
         (long long)y->extent[0]);
  return -1;
}

/* x, and y when 'y' is given, as real rank-1 views of one length (the
 * arguments by position: NULL when absent) */
static int views_xy(const sk_arg *xa, const sk_arg *ya, const sk_view **x,
                    const sk_view **y, char *err, size_t errlen) {
  *x = sk_kpos_view(xa, "x", 1, err, errlen);
  if (!*x) return -1;
  if (sk_dtypes[(*x)->dtype].is_complex) /* zblas.c's */
    return sk_err(err, errlen, SK_E_COMPLEX_NOT_REAL, "x", (*x)->label,
                  sk_dtypes[(*x)->dtype].name);
  if (!y) return 0;
  *y = sk_kpos_view(ya, "y", 1, err, errlen);
  if (!*y) return -1;
  if (sk_dtypes[(*y)->dtype].is_complex)
    return sk_err(err, errlen, SK_E_COMPLEX_NOT_REAL, "y", (*y)->label,
                  sk_dtypes[(*y)->dtype].name);
  return same_length(*x, *y, err, errlen);
}

/* -- drivers ------------------------------------------------------------------
 * By position (sk_kentry's 'callp'): the arguments in the order of each
 * entry's 'params'; unknown names were refused before. */
static int dot(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  const sk_view *v[2];
  if (views_xy(p[0], p[1], &v[0], &v[1], err, errlen) < 0) return -1;
  sk_result r;
  if (sk_kbody_run(&k_dot, v[0]->extent[0], v, NULL, &r, err, errlen) < 0) return -1;
  out->f64 = sk_result_f64(&r, 0);
  return 0;
}

static int reduce1(const sk_kbody *kb, const sk_view *x, const double *s, double *val,
                   char *err, size_t errlen) {
  sk_result r;
  if (sk_kbody_run(kb, x->extent[0], &x, s, &r, err, errlen) < 0) return -1;
  *val = sk_result_f64(&r, 0);
  return 0;
}

static int nrm2(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  const sk_view *x;
  if (views_xy(p[0], NULL, &x, NULL, err, errlen) < 0) return -1;
  out->f64 = 0;
  if (x->extent[0] == 0) return 0;
  double ss;
  if (reduce1(&k_sumsq, x, NULL, &ss, err, errlen) < 0) return -1;
  /* squares may have overflowed (inf) or lost digits to underflow */
  if (ss == ss && (isinf(ss) || ss < 1e3 * DBL_MIN)) {
    double m;
    if (reduce1(&k_amax, x, NULL, &m, err, errlen) < 0) return -1;
    if (m == 0 || isinf(m)) {
      out->f64 = m;
      return 0;
    }
    int e;
    frexp(m, &e); /* m = f * 2^e, f in [0.5, 1) */
    int e1 = -e / 2, e2 = -e - e1;
    double s[2] = {ldexp(1.0, e1), ldexp(1.0, e2)};
    if (reduce1(&k_sumsq_scaled, x, s, &ss, err, errlen) < 0) return -1;
    out->f64 = ldexp(sqrt(ss), e);
    return 0;
  }
  out->f64 = sqrt(ss);
  return 0;
}

static int asum(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  const sk_view *x;
  if (views_xy(p[0], NULL, &x, NULL, err, errlen) < 0) return -1;
  return reduce1(&k_asum, x, NULL, &out->f64, err, errlen);
}

static int iamax(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  const sk_view *x;
  if (views_xy(p[0], NULL, &x, NULL, err, errlen) < 0) return -1;
  sk_result r;
  if (sk_kbody_run(&k_iamax, x->extent[0], &x, NULL, &r, err, errlen) < 0) return -1;
  out->i64 = sk_result_loc(&r, 0);
  return 0;
}

static int scal(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  const sk_view *x;
  double a;
  if (views_xy(p[1], NULL, &x, NULL, err, errlen) < 0 ||
      sk_kpos_f64(p[0], "a", &a, err, errlen) < 0)
    return -1;
  return sk_kbody_run(&k_scal, x->extent[0], &x, &a, NULL, err, errlen);
}

static int axpy(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  const sk_view *v[2];
  double a;
  if (views_xy(p[1], p[2], &v[0], &v[1], err, errlen) < 0 ||
      sk_kpos_f64(p[0], "a", &a, err, errlen) < 0)
    return -1;
  if (a == 0) return 0; /* y unchanged, x not read (BLAS) */
  return sk_kbody_run(&k_axpy, v[0]->extent[0], v, &a, NULL, err, errlen);
}

static int axpby(const sk_arg *const *p, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  const sk_view *v[2];
  double s[2];
  if (views_xy(p[1], p[3], &v[0], &v[1], err, errlen) < 0 ||
      sk_kpos_f64(p[0], "a", &s[0], err, errlen) < 0 ||
      sk_kpos_f64(p[2], "b", &s[1], err, errlen) < 0)
    return -1;
  /* a = 0: x is not read (NaN or Inf in it stay out of y): y = b*y */
  if (s[0] == 0)
    return sk_kbody_run(&k_scal, v[1]->extent[0], &v[1], &s[1], NULL, err, errlen);
  return sk_kbody_run(&k_axpby, v[0]->extent[0], v, s, NULL, err, errlen);
}

/* -- entries ------------------------------------------------------------------ */
static const char *const p_x[] = {"x", NULL}, *const p_xy[] = {"x", "y", NULL},
                         *const p_ax[] = {"a", "x", NULL},
                         *const p_axy[] = {"a", "x", "y", NULL},
                         *const p_axby[] = {"a", "x", "b", "y", NULL};
#define ENTRY(name, usage, result, params, fn) {{name, usage, result, NULL}, params, fn}
static const sk_kentry_pos e_dot = ENTRY("blas.dot", "x, y", SK_KRES_F64, p_xy, dot);
static const sk_kentry_pos e_nrm2 = ENTRY("blas.nrm2", "x", SK_KRES_F64, p_x, nrm2);
static const sk_kentry_pos e_asum = ENTRY("blas.asum", "x", SK_KRES_F64, p_x, asum);
static const sk_kentry_pos e_iamax = ENTRY("blas.iamax", "x", SK_KRES_I64, p_x, iamax);
static const sk_kentry_pos e_scal = ENTRY("blas.scal", "a, x", SK_KRES_NONE, p_ax, scal);
static const sk_kentry_pos e_axpy = ENTRY("blas.axpy", "a, x, y", SK_KRES_NONE, p_axy, axpy);
static const sk_kentry_pos e_axpby =
    ENTRY("blas.axpby", "a, x, b, y", SK_KRES_NONE, p_axby, axpby);

const sk_kentry *const sk_blas_entries[] = {&e_dot.e,  &e_nrm2.e, &e_asum.e,  &e_iamax.e,
                                            &e_scal.e, &e_axpy.e, &e_axpby.e, NULL};
