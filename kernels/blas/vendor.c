/* vendor.c: OpenBLAS (host) behind impl = "vendor", opened with dlopen
 * (see vendor.h for the API), and a device's vendor BLAS through its back
 * end's table ('blas').
 *
 * Loading (once per process, on first use):
 *  - OPENBLAS_CORETYPE: an environment may force a core without AVX-512
 *    (Haswell: about half the speed here) on a CPU that has it; such a
 *    setting is set aside while the library loads and the status says so.
 *    SPECK_OPENBLAS_CORETYPE, when set, is what the library sees instead.
 *    With neither set, a CPU with Skylake-X's AVX-512 gets SkylakeX: the
 *    library falls back to Prescott's SSE3 kernels for a model it does
 *    not know (a virtual machine's CPU).
 *  - thread pinning: OpenBLAS starts its threads while it loads, and they
 *    inherit the loading thread's CPU mask; an OpenMP runtime with
 *    OMP_PROC_BIND pins that thread to one core, which would put every
 *    OpenBLAS thread on it. The mask is widened to every CPU for the load
 *    and restored after.
 * Calls: the column-major BLAS (CBLAS) and LAPACK's Fortran entries with
 * 32-bit integers; a row-major matrix is passed as the transposed
 * column-major one (the problem is transposed to match), a LAPACK call on
 * a matrix that is not column-major works on a column-major copy.
 */
#define _GNU_SOURCE
#include "core/err.h"
#include "vendor.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/blasplan.h"
#include "core/view.h"

/* -- the library ---------------------------------------------------------- */
enum {
  CM = 102,
  NT = 111,
  TR = 112,
  UP = 121,
  LO = 122,
  NU = 131,
  UN = 132,
  LEFT = 141,
  RIGHT = 142
};
typedef void (*gemm_fn)(int, int, int, int, int, int, double, const void *, int,
                        const void *, int, double, void *, int);
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const void *, int,
                         const void *, int, float, void *, int);
typedef void (*gemv_fn)(int, int, int, int, double, const void *, int, const void *, int,
                        double, void *, int);
typedef void (*sgemv_fn)(int, int, int, int, float, const void *, int, const void *, int,
                         float, void *, int);
typedef void (*syrk_fn)(int, int, int, int, int, double, const void *, int, double,
                        void *, int);
typedef void (*ssyrk_fn)(int, int, int, int, int, float, const void *, int, float, void *,
                         int);
typedef void (*trsm_fn)(int, int, int, int, int, int, int, double, const void *, int,
                        void *, int);
typedef void (*strsm_fn)(int, int, int, int, int, int, int, float, const void *, int,
                         void *, int);
typedef void (*potrf_fn)(const char *, const int *, void *, const int *, int *, size_t);
typedef void (*getrf_fn)(const int *, const int *, void *, const int *, int *, int *);
typedef void (*getrs_fn)(const char *, const int *, const int *, const void *,
                         const int *, const int *, void *, const int *, int *, size_t);
typedef void (*trtri_fn)(const char *, const char *, const int *, void *, const int *,
                         int *, size_t, size_t);

/* complex: alpha and beta by pointer */
typedef void (*zgemm_fn)(int, int, int, int, int, int, const void *, const void *, int,
                         const void *, int, const void *, void *, int);
typedef void (*ztrsm_fn)(int, int, int, int, int, int, int, const void *, const void *, int,
                         void *, int);
/* zsyrk (alpha, beta by pointer); zherk / cherk (real alpha, beta) */
typedef void (*zsyrk_fn)(int, int, int, int, int, const void *, const void *, int,
                         const void *, void *, int);
typedef void (*zherk_fn)(int, int, int, int, int, double, const void *, int, double, void *,
                         int);
typedef void (*cherk_fn)(int, int, int, int, int, float, const void *, int, float, void *,
                         int);

static struct {
  void *h;
  zgemm_fn zgemm, cgemm; /* optional: complex gemm runs natively without */
  ztrsm_fn ztrsm, ctrsm; /* optional, as the complex LAPACK below */
  potrf_fn zpotrf, cpotrf;
  getrf_fn zgetrf, cgetrf;
  getrs_fn zgetrs, cgetrs; /* optional (zgetrs.. below) */
  trtri_fn ztrtri, ctrtri;
  ztrsm_fn ztrmm, ctrmm;
  zsyrk_fn zsyrk, csyrk;
  zherk_fn zherk;
  cherk_fn cherk;
  gemm_fn dgemm;
  sgemm_fn sgemm;
  gemv_fn dgemv;
  sgemv_fn sgemv;
  syrk_fn dsyrk;
  ssyrk_fn ssyrk;
  trsm_fn dtrsm, dtrmm;
  strsm_fn strsm, strmm;
  potrf_fn dpotrf, spotrf;
  getrf_fn dgetrf, sgetrf;
  getrs_fn dgetrs, sgetrs;
  trtri_fn dtrtri, strtri;
  void (*set_threads)(int);
  char *(*corename)(void);
  char status[512];
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

/* a core OpenBLAS would run without AVX-512 */
static int core_without_avx512(const char *c) {
  static const char *const wide[] = {"skylakex", "cooperlake", "sapphirerapids",
                                     "zen4",     "zen5",       NULL};
  char low[64];
  size_t n = 0;
  for (; c[n] && n + 1 < sizeof low; n++)
    low[n] = (char)(c[n] >= 'A' && c[n] <= 'Z' ? c[n] + 32 : c[n]);
  low[n] = '\0';
  for (int i = 0; wide[i]; i++)
    if (strcmp(low, wide[i]) == 0) return 0;
  return 1;
}

/* the CPU and the system run Skylake-X's AVX-512 subsets (libgcc checks
 * that the system saves the registers) */
static int avx512_skx(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512cd");
}

static void load(void) {
  char note[256] = "";
  /* the core: SPECK_OPENBLAS_CORETYPE wins; a narrower forced core on an
   * AVX-512 CPU is set aside for the load */
  pthread_mutex_lock(&env_lock);
  const char *ct = getenv("OPENBLAS_CORETYPE");
  const char *mine = getenv("SPECK_OPENBLAS_CORETYPE");
  char saved[128] = "";
  int restore = 0;
  __builtin_cpu_init();
  if (mine && *mine) {
    if (ct) snprintf(saved, sizeof saved, "%s", ct);
    restore = ct != NULL ? 1 : 2;
    setenv("OPENBLAS_CORETYPE", mine, 1);
  } else if (ct && *ct && __builtin_cpu_supports("avx512f") && core_without_avx512(ct)) {
    snprintf(saved, sizeof saved, "%s", ct);
    restore = 1;
    unsetenv("OPENBLAS_CORETYPE");
    sk_err(note, sizeof note, SK_E_OPENBLAS_CORETYPE_SET, saved);
  } else if (!ct && avx512_skx()) {
    /* OpenBLAS names its core from the CPU's model; a model it does not
     * know (a virtual machine's "Intel Xeon Processor") gets Prescott,
     * SSE3 kernels at a fraction of the speed: a CPU with Skylake-X's
     * AVX-512 set is given SkylakeX, the core OpenBLAS picks for it by
     * model */
    restore = 2;
    setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
  }
  /* threads: the load starts them with this thread's mask; widen it */
  cpu_set_t old, all;
  int have_mask = pthread_getaffinity_np(pthread_self(), sizeof old, &old) == 0;
  if (have_mask) {
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
    pthread_setaffinity_np(pthread_self(), sizeof all, &all);
  }
  const char *name = getenv("SPECK_OPENBLAS");
  if (!name || !*name) name = "libopenblas.so.0";
  lib.h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (have_mask) pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  if (restore == 1) setenv("OPENBLAS_CORETYPE", saved, 1);
  else if (restore == 2) unsetenv("OPENBLAS_CORETYPE");
  pthread_mutex_unlock(&env_lock);
  if (!lib.h) {
    const char *e = dlerror();
    sk_err(lib.status, sizeof lib.status, SK_E_OPENBLAS_NOT_AVAILABLE, e ? e : name);
    return;
  }
#define SYM(field, s) *(void **)&lib.field = dlsym(lib.h, s)
  SYM(zgemm, "cblas_zgemm");
  SYM(cgemm, "cblas_cgemm");
  SYM(ztrsm, "cblas_ztrsm");
  SYM(ctrsm, "cblas_ctrsm");
  SYM(zpotrf, "zpotrf_");
  SYM(cpotrf, "cpotrf_");
  SYM(zgetrf, "zgetrf_");
  SYM(cgetrf, "cgetrf_");
  SYM(zgetrs, "zgetrs_");
  SYM(cgetrs, "cgetrs_");
  SYM(ztrtri, "ztrtri_");
  SYM(ctrtri, "ctrtri_");
  SYM(ztrmm, "cblas_ztrmm");
  SYM(ctrmm, "cblas_ctrmm");
  SYM(zsyrk, "cblas_zsyrk");
  SYM(csyrk, "cblas_csyrk");
  SYM(zherk, "cblas_zherk");
  SYM(cherk, "cblas_cherk");
  SYM(dgemm, "cblas_dgemm");
  SYM(sgemm, "cblas_sgemm");
  SYM(dgemv, "cblas_dgemv");
  SYM(sgemv, "cblas_sgemv");
  SYM(dsyrk, "cblas_dsyrk");
  SYM(ssyrk, "cblas_ssyrk");
  SYM(dtrsm, "cblas_dtrsm");
  SYM(strsm, "cblas_strsm");
  SYM(dtrmm, "cblas_dtrmm");
  SYM(strmm, "cblas_strmm");
  SYM(dpotrf, "dpotrf_");
  SYM(spotrf, "spotrf_");
  SYM(dgetrf, "dgetrf_");
  SYM(sgetrf, "sgetrf_");
  SYM(dgetrs, "dgetrs_");
  SYM(sgetrs, "sgetrs_");
  SYM(dtrtri, "dtrtri_");
  SYM(strtri, "strtri_");
  SYM(set_threads, "openblas_set_num_threads");
  SYM(corename, "openblas_get_corename");
#undef SYM
  if (!lib.dgemm || !lib.sgemm || !lib.dgemv || !lib.sgemv || !lib.dsyrk || !lib.ssyrk ||
      !lib.dtrsm || !lib.strsm || !lib.dtrmm || !lib.strmm || !lib.dpotrf ||
      !lib.spotrf || !lib.dgetrf || !lib.sgetrf || !lib.dgetrs || !lib.sgetrs ||
      !lib.dtrtri || !lib.strtri) {
    sk_err(lib.status, sizeof lib.status, SK_E_LACKS_BLAS_LAPACK, name);
    dlclose(lib.h);
    lib.h = NULL;
    return;
  }
  sk_err(lib.status, sizeof lib.status, SK_E_OPENBLAS_CORE, name,
         lib.corename ? lib.corename() : "?", note);
}

int sk_vendor_host_available(void) {
  pthread_once(&once, load);
  return lib.h != NULL;
}

const char *sk_vendor_host_status(void) {
  pthread_once(&once, load);
  return lib.status;
}

void sk_vendor_host_threads(int threads) {
  static int current = 0;
  if (!sk_vendor_host_available() || !lib.set_threads || threads < 1) return;
  if (__atomic_exchange_n(&current, threads, __ATOMIC_ACQ_REL) != threads)
    lib.set_threads(threads);
}

/* -- column-major forms: core/blasplan.h ---------------------------------- */
int sk_vendor_gemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   double alpha, const void *A, int64_t rsa, int64_t csa, const void *B,
                   int64_t rsb, int64_t csb, double beta, void *C, int64_t rsc,
                   int64_t csc) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  sk_cm_plan p;
  if (sk_cm_gemm_plan(ta, tb, m, n, k, A, rsa, csa, B, rsb, csb, rsc, csc, &p) < 0)
    return SK_VENDOR_UNSUPPORTED;
  /* k = 0: BLAS may return without applying beta; the native kernels do */
  if (k == 0) return SK_VENDOR_UNSUPPORTED;
  if (m == 0 || n == 0) return SK_VENDOR_OK;
  if (dtype == SK_F64)
    lib.dgemm(CM, p.fx ? TR : NT, p.fy ? TR : NT, p.m, p.n, p.k, alpha, p.X, p.ldx, p.Y,
              p.ldy, beta, C, p.ldc);
  else
    lib.sgemm(CM, p.fx ? TR : NT, p.fy ? TR : NT, p.m, p.n, p.k, (float)alpha, p.X, p.ldx,
              p.Y, p.ldy, (float)beta, C, p.ldc);
  return SK_VENDOR_OK;
}

int sk_vendor_zgemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                    const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    const void *B, int64_t rsb, int64_t csb, const double *beta, void *C,
                    int64_t rsc, int64_t csc) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  zgemm_fn f = dtype == SK_C128 ? lib.zgemm : lib.cgemm;
  if (!f) return SK_VENDOR_MISSING;
  if (k == 0) return SK_VENDOR_UNSUPPORTED; /* beta applied natively */
  if (m == 0 || n == 0) return SK_VENDOR_OK;
  /* CBLAS's row-major order (101) when every column step is 1, its
   * column-major order (102) when every row step is 1 */
  int row = csa == 1 && csb == 1 && csc == 1, col = rsa == 1 && rsb == 1 && rsc == 1;
  if (!row && !col) return SK_VENDOR_UNSUPPORTED;
  int64_t lda = row ? rsa : csa, ldb = row ? rsb : csb, ldc = row ? rsc : csc;
  int64_t ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m;
  int64_t rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k;
  /* the leading dimensions the library checks (a dimension of extent 1
   * may carry any stride) */
  int64_t wa = row ? ca : ra, wb = row ? cb : rb, wc = row ? n : m;
  if (lda < wa) lda = wa;
  if (ldb < wb) ldb = wb;
  if (ldc < wc) ldc = wc;
  if (!sk_cm_fits(m) || !sk_cm_fits(n) || !sk_cm_fits(k) || !sk_cm_fits(lda) ||
      !sk_cm_fits(ldb) || !sk_cm_fits(ldc))
    return SK_VENDOR_UNSUPPORTED;
  int op[2];
  const char t[2] = {ta, tb};
  for (int q = 0; q < 2; q++) op[q] = t[q] == 'N' ? NT : t[q] == 'T' ? TR : 113;
  if (dtype == SK_C128) {
    f(row ? 101 : CM, op[0], op[1], (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb,
      beta, C, (int)ldc);
  } else {
    const float al[2] = {(float)alpha[0], (float)alpha[1]};
    const float be[2] = {(float)beta[0], (float)beta[1]};
    f(row ? 101 : CM, op[0], op[1], (int)m, (int)n, (int)k, al, A, (int)lda, B, (int)ldb, be,
      C, (int)ldc);
  }
  return SK_VENDOR_OK;
}

int sk_vendor_gemv(int dtype, char trans, int64_t m, int64_t n, double alpha,
                   const void *A, int64_t rsa, int64_t csa, const void *x, int64_t incx,
                   double beta, void *y, int64_t incy) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  int sa, lda;
  if (sk_cm_as(m, n, rsa, csa, &sa, &lda) < 0 || incx < 1 || incy < 1 ||
      !sk_cm_fits(incx) || !sk_cm_fits(incy))
    return SK_VENDOR_UNSUPPORTED;
  int f = sk_cm_flag(trans) ^ sa;
  int sm = (int)(sa ? n : m), sn = (int)(sa ? m : n);
  if (m == 0 || n == 0) return SK_VENDOR_UNSUPPORTED; /* quick return: beta unapplied */
  if (dtype == SK_F64)
    lib.dgemv(CM, f ? TR : NT, sm, sn, alpha, A, lda, x, (int)incx, beta, y, (int)incy);
  else
    lib.sgemv(CM, f ? TR : NT, sm, sn, (float)alpha, A, lda, x, (int)incx, (float)beta, y,
              (int)incy);
  return SK_VENDOR_OK;
}

int sk_vendor_syrk(int dtype, char uplo, char trans, int64_t n, int64_t k, double alpha,
                   const void *A, int64_t rsa, int64_t csa, double beta, void *C,
                   int64_t rsc, int64_t csc) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  int ft = sk_cm_flag(trans), sa, sc, lda, ldc;
  if (!sk_cm_fits(k) || sk_cm_as(ft ? k : n, ft ? n : k, rsa, csa, &sa, &lda) < 0 ||
      sk_cm_as(n, n, rsc, csc, &sc, &ldc) < 0)
    return SK_VENDOR_UNSUPPORTED;
  if (k == 0) return SK_VENDOR_UNSUPPORTED; /* quick return: beta unapplied */
  if (n == 0) return SK_VENDOR_OK;
  int lo = sk_cm_low(uplo) ^ sc;
  ft ^= sa;
  if (dtype == SK_F64)
    lib.dsyrk(CM, lo ? LO : UP, ft ? TR : NT, (int)n, (int)k, alpha, A, lda, beta, C,
              ldc);
  else
    lib.ssyrk(CM, lo ? LO : UP, ft ? TR : NT, (int)n, (int)k, (float)alpha, A, lda,
              (float)beta, C, ldc);
  return SK_VENDOR_OK;
}

static int tri(int dtype, int mm, char side, char uplo, char trans, char diag, int64_t m,
               int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa, void *B,
               int64_t rsb, int64_t csb) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  int left = side == 'L' || side == 'l', na = (int)(left ? m : n), sa, sb, lda, ldb;
  if (sk_cm_as(left ? m : n, left ? m : n, rsa, csa, &sa, &lda) < 0 ||
      sk_cm_as(m, n, rsb, csb, &sb, &ldb) < 0)
    return SK_VENDOR_UNSUPPORTED;
  (void)na;
  if (m == 0 || n == 0) return SK_VENDOR_OK;
  /* B stored transposed: the transposed problem (side and op flip); A
   * stored transposed: uplo and op flip */
  int l2 = left ^ sb, lo = sk_cm_low(uplo) ^ sa, ft = sk_cm_flag(trans) ^ sa ^ sb;
  int bm = (int)(sb ? n : m), bn = (int)(sb ? m : n);
  int s = l2 ? LEFT : RIGHT, u = lo ? LO : UP, t = ft ? TR : NT,
      d = diag == 'U' || diag == 'u' ? UN : NU;
  if (dtype == SK_F64)
    (mm ? lib.dtrmm : lib.dtrsm)(CM, s, u, t, d, bm, bn, alpha, A, lda, B, ldb);
  else (mm ? lib.strmm : lib.strsm)(CM, s, u, t, d, bm, bn, (float)alpha, A, lda, B, ldb);
  return SK_VENDOR_OK;
}

int sk_vendor_trsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                   int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                   void *B, int64_t rsb, int64_t csb) {
  return tri(dtype, 0, side, uplo, trans, diag, m, n, alpha, A, rsa, csa, B, rsb, csb);
}

int sk_vendor_trmm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                   int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                   void *B, int64_t rsb, int64_t csb) {
  return tri(dtype, 1, side, uplo, trans, diag, m, n, alpha, A, rsa, csa, B, rsb, csb);
}

/* -- LAPACK: column-major in place, or a column-major copy ------------------ */
typedef struct cmbuf {
  void *a; /* what LAPACK sees */
  int ld, copied;
} cmbuf;

static int cm_open(cmbuf *c, int dtype, int64_t m, int64_t n, void *A, int64_t rs,
                   int64_t cs) {
  int t, ld;
  if (!sk_cm_fits(m) || !sk_cm_fits(n)) return -1;
  if (sk_cm_as(m, n, rs, cs, &t, &ld) == 0 && t == 0) {
    c->a = A;
    c->ld = ld;
    c->copied = 0;
    return 0;
  }
  size_t es = sk_dtypes[dtype].size;
  c->a = malloc((size_t)(m > 0 ? m : 1) * (size_t)(n > 0 ? n : 1) * es);
  if (!c->a) return -1;
  c->ld = (int)(m > 1 ? m : 1);
  c->copied = 1;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      memcpy((char *)c->a + (size_t)(j * c->ld + i) * es,
             (const char *)A + (size_t)(i * rs + j * cs) * es, es);
  return 0;
}

static void cm_close(cmbuf *c, int dtype, int64_t m, int64_t n, void *A, int64_t rs,
                     int64_t cs, int write) {
  if (!c->copied) return;
  size_t es = sk_dtypes[dtype].size;
  if (write)
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++)
        memcpy((char *)A + (size_t)(i * rs + j * cs) * es,
               (const char *)c->a + (size_t)(j * c->ld + i) * es, es);
  free(c->a);
}

int sk_vendor_potrf(int dtype, char uplo, int64_t n, void *A, int64_t rs, int64_t cs,
                    int64_t *info) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  cmbuf c;
  *info = 0;
  if (n == 0) return SK_VENDOR_OK;
  if (cm_open(&c, dtype, n, n, A, rs, cs) < 0) return SK_VENDOR_UNSUPPORTED;
  int nn = (int)n, in = 0;
  char u = sk_cm_low(uplo) ? 'L' : 'U';
  (dtype == SK_F64 ? lib.dpotrf : lib.spotrf)(&u, &nn, c.a, &c.ld, &in, 1);
  cm_close(&c, dtype, n, n, A, rs, cs, 1);
  *info = in;
  return SK_VENDOR_OK;
}

/* getrf through 'f' (any of the four types' routines): A's LU in place,
 * 0-based pivots, LAPACK's info */
static int getrf_with(getrf_fn f, int dtype, int64_t m, int64_t n, void *A, int64_t rs,
                      int64_t cs, int64_t *ipiv, int64_t *info) {
  if (!f) return SK_VENDOR_MISSING;
  *info = 0;
  int64_t kn = m < n ? m : n;
  if (kn == 0) return SK_VENDOR_OK;
  cmbuf c;
  int *p = malloc((size_t)kn * sizeof *p);
  if (!p || cm_open(&c, dtype, m, n, A, rs, cs) < 0) {
    free(p);
    return SK_VENDOR_UNSUPPORTED;
  }
  int mm = (int)m, nn = (int)n, in = 0;
  f(&mm, &nn, c.a, &c.ld, p, &in);
  cm_close(&c, dtype, m, n, A, rs, cs, 1);
  for (int64_t k = 0; k < kn; k++) ipiv[k] = p[k] - 1;
  free(p);
  *info = in;
  return SK_VENDOR_OK;
}

int sk_vendor_getrf(int dtype, int64_t m, int64_t n, void *A, int64_t rs, int64_t cs,
                    int64_t *ipiv, int64_t *info) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  return getrf_with(dtype == SK_F64 ? lib.dgetrf : lib.sgetrf, dtype, m, n, A, rs, cs, ipiv,
                    info);
}

/* getrs through 'f' (any of the four types' routines): A's LU and pivots
 * (0-based) solve op(A) X = B in place of B */
static int getrs_with(getrs_fn f, int dtype, char trans, int64_t n, int64_t nrhs,
                      const void *A, int64_t rs, int64_t cs, const int64_t *ipiv, void *B,
                      int64_t rsb, int64_t csb) {
  if (!f) return SK_VENDOR_MISSING;
  if (n == 0 || nrhs == 0) return SK_VENDOR_OK;
  cmbuf a, b;
  int *p = malloc((size_t)n * sizeof *p);
  if (!p) return SK_VENDOR_UNSUPPORTED;
  if (cm_open(&a, dtype, n, n, (void *)A, rs, cs) < 0) {
    free(p);
    return SK_VENDOR_UNSUPPORTED;
  }
  if (cm_open(&b, dtype, n, nrhs, B, rsb, csb) < 0) {
    cm_close(&a, dtype, n, n, (void *)A, rs, cs, 0);
    free(p);
    return SK_VENDOR_UNSUPPORTED;
  }
  for (int64_t k = 0; k < n; k++) p[k] = (int)ipiv[k] + 1;
  int nn = (int)n, nr = (int)nrhs, in = 0;
  char t = trans == 'T' || trans == 'C' ? trans : 'N';
  f(&t, &nn, &nr, a.a, &a.ld, p, b.a, &b.ld, &in, 1);
  cm_close(&b, dtype, n, nrhs, B, rsb, csb, 1);
  cm_close(&a, dtype, n, n, (void *)A, rs, cs, 0);
  free(p);
  return SK_VENDOR_OK;
}

int sk_vendor_getrs(int dtype, int64_t n, int64_t nrhs, const void *A, int64_t rs,
                    int64_t cs, const int64_t *ipiv, void *B, int64_t rsb, int64_t csb) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  return getrs_with(dtype == SK_F64 ? lib.dgetrs : lib.sgetrs, dtype, 'N', n, nrhs, A, rs, cs,
                    ipiv, B, rsb, csb);
}

int sk_vendor_trtri(int dtype, char uplo, char diag, int64_t n, void *A, int64_t rs,
                    int64_t cs, int64_t *info) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  *info = 0;
  if (n == 0) return SK_VENDOR_OK;
  cmbuf c;
  if (cm_open(&c, dtype, n, n, A, rs, cs) < 0) return SK_VENDOR_UNSUPPORTED;
  int nn = (int)n, in = 0;
  char u = sk_cm_low(uplo) ? 'L' : 'U', d = diag == 'U' || diag == 'u' ? 'U' : 'N';
  (dtype == SK_F64 ? lib.dtrtri : lib.strtri)(&u, &d, &nn, c.a, &c.ld, &in, 1, 1);
  cm_close(&c, dtype, n, n, A, rs, cs, 1);
  *info = in;
  return SK_VENDOR_OK;
}

/* -- a device's vendor BLAS ------------------------------------------------- */
/* The device back end's hook (its table's 'blas': a GPU back end's vendor
 * BLAS on its stream); the first registered back
 * end that has one. */
static const sk_vendor_blas *dev_blas(void) {
  for (const sk_backend *const *b = sk_backend_list(); *b; b++)
    if ((*b)->blas) return (*b)->blas;
  return NULL;
}

int sk_vendor_gpu_available(void) {
  const sk_vendor_blas *v = dev_blas();
  return v && v->available();
}

const char *sk_vendor_gpu_status(void) {
  const sk_vendor_blas *v = dev_blas();
  return v ? v->status() : "no device vendor BLAS";
}

int sk_vendor_gpu_gemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                       double alpha, const void *A, int64_t rsa, int64_t csa,
                       const void *B, int64_t rsb, int64_t csb, double beta, void *C,
                       int64_t rsc, int64_t csc) {
  return sk_vendor_gpu_gemm_batched(dtype, ta, tb, m, n, k, alpha, A, rsa, csa, 0, B, rsb,
                                    csb, 0, beta, C, rsc, csc, 0, 1);
}

int sk_vendor_gpu_gemm_batched(int dtype, char ta, char tb, int64_t m, int64_t n,
                               int64_t k, double alpha, const void *A, int64_t rsa,
                               int64_t csa, int64_t sa, const void *B, int64_t rsb,
                               int64_t csb, int64_t sb, double beta, void *C, int64_t rsc,
                               int64_t csc, int64_t sc, int64_t batch) {
  if (!sk_vendor_gpu_available()) return SK_VENDOR_MISSING;
  return dev_blas()->gemm_batched(dtype, ta, tb, m, n, k, alpha, A, rsa, csa, sa, B, rsb,
                                  csb, sb, beta, C, rsc, csc, sc, batch);
}

int sk_vendor_gpu_trsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                       int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                       void *B, int64_t rsb, int64_t csb) {
  if (!sk_vendor_gpu_available()) return SK_VENDOR_MISSING;
  return dev_blas()->trsm(dtype, side, uplo, trans, diag, m, n, alpha, A, rsa, csa, B,
                          rsb, csb);
}

int sk_vendor_gpu_syrk(int dtype, char uplo, char trans, int64_t n, int64_t k,
                       double alpha, const void *A, int64_t rsa, int64_t csa, double beta,
                       void *C, int64_t rsc, int64_t csc) {
  if (!sk_vendor_gpu_available()) return SK_VENDOR_MISSING;
  return dev_blas()->syrk(dtype, uplo, trans, n, k, alpha, A, rsa, csa, beta, C, rsc,
                          csc);
}

/* -- complex: ztrsm / ctrsm, zpotrf / cpotrf, zgetrf / cgetrf --------------- */
/* trsm (mm 0) or trmm (1) */
static int ztri(int mm, int dtype, char side, char uplo, char trans, char diag, int64_t m,
                int64_t n, const double *alpha, const void *A, int64_t rsa, int64_t csa,
                void *B, int64_t rsb, int64_t csb) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  ztrsm_fn f = mm ? (dtype == SK_C128 ? lib.ztrmm : lib.ctrmm)
                  : (dtype == SK_C128 ? lib.ztrsm : lib.ctrsm);
  if (!f) return SK_VENDOR_MISSING;
  if (m == 0 || n == 0) return SK_VENDOR_OK;
  /* CBLAS's row-major order when both column steps are 1, column-major
   * when both row steps are 1 (one order for both: a transpose of one
   * alone would need a conjugate without transpose, which BLAS lacks) */
  int left = side == 'L' || side == 'l';
  int64_t na = left ? m : n;
  int row = csa == 1 && csb == 1, col = rsa == 1 && rsb == 1;
  if (!row && !col) return SK_VENDOR_UNSUPPORTED;
  int64_t lda = row ? rsa : csa, ldb = row ? rsb : csb;
  if (lda < na) lda = na;
  if (ldb < (row ? n : m)) ldb = row ? n : m;
  if (!sk_cm_fits(m) || !sk_cm_fits(n) || !sk_cm_fits(lda) || !sk_cm_fits(ldb))
    return SK_VENDOR_UNSUPPORTED;
  int t = trans == 'N' || trans == 'n' ? NT : trans == 'T' || trans == 't' ? TR : 113;
  int s = left ? LEFT : RIGHT, u = sk_cm_low(uplo) ? LO : UP,
      d = diag == 'U' || diag == 'u' ? UN : NU;
  if (dtype == SK_C128) {
    f(row ? 101 : CM, s, u, t, d, (int)m, (int)n, alpha, A, (int)lda, B, (int)ldb);
  } else {
    const float al[2] = {(float)alpha[0], (float)alpha[1]};
    f(row ? 101 : CM, s, u, t, d, (int)m, (int)n, al, A, (int)lda, B, (int)ldb);
  }
  return SK_VENDOR_OK;
}

int sk_vendor_ztrsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                    int64_t n, const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    void *B, int64_t rsb, int64_t csb) {
  return ztri(0, dtype, side, uplo, trans, diag, m, n, alpha, A, rsa, csa, B, rsb, csb);
}

int sk_vendor_ztrmm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                    int64_t n, const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    void *B, int64_t rsb, int64_t csb) {
  return ztri(1, dtype, side, uplo, trans, diag, m, n, alpha, A, rsa, csa, B, rsb, csb);
}

int sk_vendor_zpotrf(int dtype, char uplo, int64_t n, void *A, int64_t rs, int64_t cs,
                     int64_t *info) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  potrf_fn f = dtype == SK_C128 ? lib.zpotrf : lib.cpotrf;
  if (!f) return SK_VENDOR_MISSING;
  cmbuf c;
  *info = 0;
  if (n == 0) return SK_VENDOR_OK;
  if (cm_open(&c, dtype, n, n, A, rs, cs) < 0) return SK_VENDOR_UNSUPPORTED;
  int nn = (int)n, in = 0;
  char u = sk_cm_low(uplo) ? 'L' : 'U';
  f(&u, &nn, c.a, &c.ld, &in, 1);
  cm_close(&c, dtype, n, n, A, rs, cs, 1);
  *info = in;
  return SK_VENDOR_OK;
}

int sk_vendor_zgetrf(int dtype, int64_t m, int64_t n, void *A, int64_t rs, int64_t cs,
                     int64_t *ipiv, int64_t *info) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  return getrf_with(dtype == SK_C128 ? lib.zgetrf : lib.cgetrf, dtype, m, n, A, rs, cs, ipiv,
                    info);
}

/* -- complex: zgetrs, ztrtri, zsyrk / zherk ------------------------------------ */
int sk_vendor_zgetrs(int dtype, char trans, int64_t n, int64_t nrhs, const void *A,
                     int64_t rs, int64_t cs, const int64_t *ipiv, void *B, int64_t rsb,
                     int64_t csb) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  return getrs_with(dtype == SK_C128 ? lib.zgetrs : lib.cgetrs, dtype, trans, n, nrhs, A, rs,
                    cs, ipiv, B, rsb, csb);
}

int sk_vendor_ztrtri(int dtype, char uplo, char diag, int64_t n, void *A, int64_t rs,
                     int64_t cs, int64_t *info) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  trtri_fn f = dtype == SK_C128 ? lib.ztrtri : lib.ctrtri;
  if (!f) return SK_VENDOR_MISSING;
  *info = 0;
  if (n == 0) return SK_VENDOR_OK;
  cmbuf c;
  if (cm_open(&c, dtype, n, n, A, rs, cs) < 0) return SK_VENDOR_UNSUPPORTED;
  int nn = (int)n, in = 0;
  char u = sk_cm_low(uplo) ? 'L' : 'U', d = diag == 'U' || diag == 'u' ? 'U' : 'N';
  f(&u, &d, &nn, c.a, &c.ld, &in, 1, 1);
  cm_close(&c, dtype, n, n, A, rs, cs, 1);
  *info = in;
  return SK_VENDOR_OK;
}

int sk_vendor_zsyrk(int dtype, int her, char uplo, char trans, int64_t n, int64_t k,
                    const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    const double *beta, void *C, int64_t rsc, int64_t csc) {
  if (!sk_vendor_host_available()) return SK_VENDOR_MISSING;
  int c128 = dtype == SK_C128;
  if (her ? (c128 ? !lib.zherk : !lib.cherk) : (c128 ? !lib.zsyrk : !lib.csyrk))
    return SK_VENDOR_MISSING;
  if (n == 0) return SK_VENDOR_OK;
  /* both row-major or both column-major, as ztrsm */
  int ft = trans != 'N' && trans != 'n';
  int64_t ar = ft ? k : n, ac = ft ? n : k;
  int row = csa == 1 && csc == 1, col = rsa == 1 && rsc == 1;
  if (!row && !col) return SK_VENDOR_UNSUPPORTED;
  int64_t lda = row ? rsa : csa, ldc = row ? rsc : csc;
  if (lda < (row ? ac : ar)) lda = row ? ac : ar;
  if (lda < 1) lda = 1;
  if (ldc < n) ldc = n;
  if (!sk_cm_fits(n) || !sk_cm_fits(k) || !sk_cm_fits(lda) || !sk_cm_fits(ldc))
    return SK_VENDOR_UNSUPPORTED;
  int o = row ? 101 : CM, u = sk_cm_low(uplo) ? LO : UP, t = ft ? (her ? 113 : TR) : NT;
  if (her) {
    if (c128) lib.zherk(o, u, t, (int)n, (int)k, alpha[0], A, (int)lda, beta[0], C, (int)ldc);
    else
      lib.cherk(o, u, t, (int)n, (int)k, (float)alpha[0], A, (int)lda, (float)beta[0], C,
                (int)ldc);
  } else if (c128) {
    lib.zsyrk(o, u, t, (int)n, (int)k, alpha, A, (int)lda, beta, C, (int)ldc);
  } else {
    const float al[2] = {(float)alpha[0], (float)alpha[1]},
                be[2] = {(float)beta[0], (float)beta[1]};
    lib.csyrk(o, u, t, (int)n, (int)k, al, A, (int)lda, be, C, (int)ldc);
  }
  return SK_VENDOR_OK;
}
