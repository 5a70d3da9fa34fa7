/* chol_cholmod.c: the CHOLMOD peer of the Cholesky benchmark (Debian
 * libsuitesparse-dev, supernodal, its BLAS with OPENBLAS_NUM_THREADS
 * threads): the 27-point 40^3 or 5-point 1024^2 Laplacian built here (the
 * same matrix task.lua builds), AMD ordering (as speck's), analyze and
 * factorize timed. Prints "chol<name> cholmod 1 <seconds>" (analyze +
 * factorize) and, on stderr, the factor's nonzeros and storage and the
 * core OpenBLAS runs (run sets OPENBLAS_CORETYPE as speck's own load
 * does, so both use the same kernels). */
#define _GNU_SOURCE
#include <cholmod.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "lap3d";
  int g = argc > 2 ? atoi(argv[2]) : 40;
  int three = strcmp(which, "lap3d") == 0;
  long n = three ? (long)g * g * g : (long)g * g;
  cholmod_common c;
  cholmod_start(&c);
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_AMD;
  c.postorder = 1;
  long maxnz = n * (three ? 27 : 5);
  cholmod_sparse *A = cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)maxnz, 1, 1,
                                              -1, CHOLMOD_REAL, &c);
  int *p = A->p, *i = A->i;
  double *x = A->x;
  long nz = 0;
  /* lower triangle, column by column, rows sorted */
  for (long col = 0; col < n; col++) {
    p[col] = (int)nz;
    if (three) {
      long a = col / ((long)g * g), b = (col / g) % g, cc = col % g;
      for (int da = -1; da <= 1; da++)
        for (int db = -1; db <= 1; db++)
          for (int dc = -1; dc <= 1; dc++) {
            long xa = a + da, xb = b + db, xc = cc + dc;
            if (xa < 0 || xa >= g || xb < 0 || xb >= g || xc < 0 || xc >= g) continue;
            long row = (xa * g + xb) * g + xc;
            if (row < col) continue;
            i[nz] = (int)row;
            x[nz++] = row == col ? 26.0 : -1.0;
          }
    } else {
      long a = col / g, b = col % g;
      i[nz] = (int)col;
      x[nz++] = 4.0;
      if (b + 1 < g) {
        i[nz] = (int)(col + 1);
        x[nz++] = -1.0;
      }
      if (a + 1 < g) {
        i[nz] = (int)(col + g);
        x[nz++] = -1.0;
      }
    }
  }
  p[n] = (int)nz;
  double t0 = now();
  cholmod_factor *L = cholmod_analyze(A, &c);
  double t1 = now();
  cholmod_factorize(A, L, &c);
  double t2 = now();
  if (c.status != CHOLMOD_OK) {
    fprintf(stderr, "cholmod failed: %d\n", c.status);
    return 1;
  }
  char *(*core)(void) = (char *(*)(void))dlsym(RTLD_DEFAULT, "openblas_get_corename");
  fprintf(stderr,
          "cholmod %s: analyze %.3f s, factorize %.3f s, nnz(L) %.0f, stored %.0f, "
          "OpenBLAS core %s\n",
          which, t1 - t0, t2 - t1, c.lnz, (double)L->xsize, core ? core() : "?");
  printf("chol%s cholmod 1 %.6f\n", which, t2 - t0);
  cholmod_free_factor(&L, &c);
  cholmod_free_sparse(&A, &c);
  cholmod_finish(&c);
  return 0;
}
