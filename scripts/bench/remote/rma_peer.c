/* rma_peer.c: raw MPI one-sided, the peer of rma.lua. Rank 0 reads and
 * writes rank 1's window (MPI_Win_allocate, one MPI_Win_lock_all epoch):
 * one element per MPI_Get / MPI_Put followed by MPI_Win_flush, and 1 MiB
 * per call. Prints "get_us put_us get_gbs put_gbs" on rank 0.
 *
 *   mpirun -np 2 rma_peer [elements]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SPAN 1024 /* elements cycled through */
#define MIB  (1 << 20)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long k = argc > 1 ? atol(argv[1]) : 200000;
  double *base;
  MPI_Win win;
  MPI_Win_allocate(2 * MIB, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    int t = np - 1;
    double v = 0, s = 0;
    double t0 = MPI_Wtime();
    for (long i = 0; i < k; i++) {
      MPI_Get(&v, 1, MPI_DOUBLE, t, i & (SPAN - 1), 1, MPI_DOUBLE, win);
      MPI_Win_flush(t, win);
      s += v;
    }
    double tg = (MPI_Wtime() - t0) / k;
    t0 = MPI_Wtime();
    for (long i = 0; i < k; i++) {
      v = (double)i;
      MPI_Put(&v, 1, MPI_DOUBLE, t, i & (SPAN - 1), 1, MPI_DOUBLE, win);
      MPI_Win_flush(t, win);
    }
    double tp = (MPI_Wtime() - t0) / k;
    char *buf = malloc(MIB);
    for (int i = 0; i < MIB; i++) buf[i] = (char)i;
    int reps = 200;
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
      MPI_Get(buf, MIB, MPI_BYTE, t, 0, MIB, MPI_BYTE, win);
      MPI_Win_flush(t, win);
    }
    double bg = (double)MIB * reps / (MPI_Wtime() - t0) / 1e9;
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
      MPI_Put(buf, MIB, MPI_BYTE, t, 0, MIB, MPI_BYTE, win);
      MPI_Win_flush(t, win);
    }
    double bp = (double)MIB * reps / (MPI_Wtime() - t0) / 1e9;
    printf("%.4f %.4f %.2f %.2f %g\n", tg * 1e6, tp * 1e6, bg, bp, s);
    free(buf);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
