/* ref.c: the C side of scripts/bench/ad: y = exp(x) * sqrt(x + 1) * x with
 * 8 derivative directions, hand-written over separate arrays (the value
 * and each derivative its own array), gcc -O3 -march=native -fopenmp, two
 * ways: gcc-O3-arrays performs the operations forward-mode AD performs
 * (each intermediate's derivatives), gcc-O3-chain uses the derivative
 * derived by hand (less arithmetic than any AD tool does).
 * Prints 'R ad-f <impl> <median s> <checksum>' (the format of ad.lua).
 *
 * Usage: ref N */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ND   8
#define REPS 9

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  /* the 18 arrays in one block, each start 320 bytes (5 cache lines)
   * further from a 4 KiB boundary than the last, so loads and stores of
   * one index do not alias in the low 12 address bits (4K aliasing) */
  long pad = (n * (long)sizeof(double) + 4095) / 4096 * 4096 + 320;
  char *block = aligned_alloc(4096, (size_t)pad * (2 * ND + 2));
  double *xv = (double *)block, *yv = (double *)(block + pad);
  double *xd[ND], *yd[ND];
  for (int k = 0; k < ND; k++) {
    xd[k] = (double *)(block + (2 + 2 * k) * pad);
    yd[k] = (double *)(block + (3 + 2 * k) * pad);
  }
#pragma omp parallel for
  for (long i = 0; i < n; i++) {
    xv[i] = 0.5 + (double)(i % 1000) * 1e-3;
    for (int k = 0; k < ND; k++) {
      xd[k][i] = k == i % ND;
      yd[k][i] = 0;
    }
    yv[i] = 0;
  }
  const double *restrict X = xv, *restrict X0 = xd[0], *restrict X1 = xd[1],
                         *restrict X2 = xd[2], *restrict X3 = xd[3], *restrict X4 = xd[4],
                         *restrict X5 = xd[5], *restrict X6 = xd[6], *restrict X7 = xd[7];
  double *restrict Y = yv, *restrict Y0 = yd[0], *restrict Y1 = yd[1],
                   *restrict Y2 = yd[2], *restrict Y3 = yd[3], *restrict Y4 = yd[4],
                   *restrict Y5 = yd[5], *restrict Y6 = yd[6], *restrict Y7 = yd[7];
  for (int variant = 0; variant < 2; variant++) {
    double t[REPS + 2];
    for (int r = 0; r < REPS + 2; r++) {
      double t0 = omp_get_wtime();
      if (variant == 0) {
        /* the operations fad(8) performs, by hand: every intermediate's
         * 8 derivatives propagated (forward mode over separate arrays) */
#pragma omp parallel for
        for (long i = 0; i < n; i++) {
          double dx[ND] = {X0[i], X1[i], X2[i], X3[i], X4[i], X5[i], X6[i], X7[i]};
          double x = X[i], e = exp(x), q = sqrt(x + 1.0), hq = 0.5 / q;
          double a = e * q, dy[ND];
          for (int k = 0; k < ND; k++) {
            double de = e * dx[k], dq = dx[k] * hq;
            double da = de * q + e * dq;
            dy[k] = da * x + a * dx[k];
          }
          Y[i] = a * x;
          Y0[i] = dy[0];
          Y1[i] = dy[1];
          Y2[i] = dy[2];
          Y3[i] = dy[3];
          Y4[i] = dy[4];
          Y5[i] = dy[5];
          Y6[i] = dy[6];
          Y7[i] = dy[7];
        }
      } else {
        /* the derivative derived by hand: y' = (e q + e / (2 q)) x + e q */
#pragma omp parallel for
        for (long i = 0; i < n; i++) {
          double x = X[i];
          double e = exp(x), q = sqrt(x + 1.0);
          double a = e * q, da = e * q + e * (0.5 / q);
          double dv = da * x + a;
          Y[i] = a * x;
          Y0[i] = dv * X0[i];
          Y1[i] = dv * X1[i];
          Y2[i] = dv * X2[i];
          Y3[i] = dv * X3[i];
          Y4[i] = dv * X4[i];
          Y5[i] = dv * X5[i];
          Y6[i] = dv * X6[i];
          Y7[i] = dv * X7[i];
        }
      }
      t[r] = omp_get_wtime() - t0;
    }
    qsort(t + 2, REPS, sizeof *t, cmp);
    double check = 0;
    for (long i = 0; i < n; i++) {
      check += yv[i];
      for (int k = 0; k < ND; k++) check += yd[k][i];
    }
    printf("R\tad-f\t%s\t%.9e\t%.17g\n", variant ? "gcc-O3-chain" : "gcc-O3-arrays",
           t[2 + REPS / 2], check);
  }
  return 0;
}
