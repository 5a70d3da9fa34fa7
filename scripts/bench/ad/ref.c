/* ref.c: the C side of scripts/bench/ad: y = exp(x) * sqrt(x + 1) * x with
 * 8 derivative directions, hand-written over separate arrays (the value
 * and each derivative its own array), gcc -O3 -march=native -fopenmp.
 * Prints 'R ad-f <impl> <median s> <checksum>' (the format of ad.lua).
 *
 * Usage: ref N */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ND 8
#define REPS 9

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  double *xv = malloc(n * sizeof *xv), *yv = malloc(n * sizeof *yv);
  double *xd[ND], *yd[ND];
  for (int k = 0; k < ND; k++) {
    xd[k] = malloc(n * sizeof(double));
    yd[k] = malloc(n * sizeof(double));
  }
#pragma omp parallel for
  for (long i = 0; i < n; i++) {
    xv[i] = 0.5 + (double)(i % 1000) * 1e-3;
    for (int k = 0; k < ND; k++) { xd[k][i] = k == i % ND; yd[k][i] = 0; }
    yv[i] = 0;
  }
  double t[REPS + 2];
  for (int r = 0; r < REPS + 2; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
      double x = xv[i];
      double e = exp(x), s1 = x + 1.0, q = sqrt(s1);
      double a = e * q;                       /* exp(x) * sqrt(x + 1) */
      double da = e * q + e * (0.5 / q);      /* its derivative in x */
      double v = a * x, dv = da * x + a;      /* times x */
      yv[i] = v;
      for (int k = 0; k < ND; k++) yd[k][i] = dv * xd[k][i];
    }
    t[r] = omp_get_wtime() - t0;
  }
  qsort(t + 2, REPS, sizeof *t, cmp);
  double check = 0;
  for (long i = 0; i < n; i++) {
    check += yv[i];
    for (int k = 0; k < ND; k++) check += yd[k][i];
  }
  printf("R\tad-f\tgcc-O3-arrays\t%.9e\t%.17g\n", t[2 + REPS / 2], check);
  return 0;
}
