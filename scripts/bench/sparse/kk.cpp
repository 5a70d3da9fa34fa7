// kk.cpp: Debian's Kokkos Kernels (libtrilinos-kokkos-kernels-dev, a
// Serial-only build) as a peer of scripts/bench/sparse.
//
//   kk spmv FILE KERNEL       y = A*x with KokkosSparse::spmv
//   kk spgemm FILE KERNEL     C = A*A: spgemm_symbolic + spgemm_numeric
//                             with a new KokkosKernelsHandle each time
//
// FILE is a matrix ref.c's 'gen' wrote; x as in ref.c, so checksums
// compare. Output: 'R <kernel> kk <median s> <bytes> <checksum>'.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spgemm.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using Exec = Kokkos::Serial;
using Mem = Kokkos::HostSpace;
using Device = Kokkos::Device<Exec, Mem>;
using Offset = size_t;
using Matrix = KokkosSparse::CrsMatrix<double, int, Device, void, Offset>;

static const int REPS = 9, WARM = 2;

static double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static Matrix load(const char *path) {
  FILE *f = fopen(path, "rb");
  int64_t n = 0, nnz = 0;
  if (!f || fread(&n, 8, 1, f) != 1 || fread(&nnz, 8, 1, f) != 1) {
    fprintf(stderr, "kk: cannot read %s\n", path);
    exit(1);
  }
  Matrix::row_map_type::non_const_type rowmap("rowmap", n + 1);
  Matrix::index_type::non_const_type col("col", nnz);
  Matrix::values_type::non_const_type val("val", nnz);
  std::vector<int64_t> rp(n + 1);
  if (fread(rp.data(), 8, n + 1, f) != (size_t)n + 1 ||
      fread(col.data(), 4, nnz, f) != (size_t)nnz ||
      fread(val.data(), 8, nnz, f) != (size_t)nnz) {
    fprintf(stderr, "kk: %s is truncated\n", path);
    exit(1);
  }
  fclose(f);
  for (int64_t i = 0; i <= n; i++) rowmap(i) = (Offset)rp[i];
  return Matrix("A", (int)n, (int)n, nnz, val, rowmap, col);
}

static void spmv(const char *path, const char *kernel) {
  Matrix A = load(path);
  int64_t n = A.numRows(), nnz = A.nnz();
  Kokkos::View<double *, Device> x("x", n), y("y", n);
  for (int64_t r = 0; r < n; r++) x(r) = 1.0 + (double)(r % 1000003) * 1e-6;
  std::vector<double> t;
  Kokkos::Timer timer;
  for (int rep = -WARM; rep < REPS; rep++) {
    timer.reset();
    KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
    Kokkos::fence();
    double dt = timer.seconds();
    if (rep >= 0) t.push_back(dt);
  }
  double s = 0;
  for (int64_t r = 0; r < n; r++) s += y(r) * (double)(1 + r % 3);
  double bytes = 12.0 * (double)nnz + 8.0 * (double)(n + 1) + 16.0 * (double)n;
  printf("R\t%s\tkk\t%.9e\t%.0f\t%.17g\n", kernel, median(t), bytes, s);
}

static void spgemm(const char *path, const char *kernel) {
  Matrix A = load(path);
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, int, double, Exec,
                                                                 Mem, Mem>;
  std::vector<double> t;
  double check = 0;
  int64_t cnnz = 0;
  Kokkos::Timer timer;
  for (int rep = -1; rep < 3; rep++) {
    timer.reset();
    Handle h;
    h.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
    Matrix C;
    KokkosSparse::spgemm_symbolic(h, A, false, A, false, C);
    KokkosSparse::spgemm_numeric(h, A, false, A, false, C);
    Kokkos::fence();
    double dt = timer.seconds();
    h.destroy_spgemm_handle();
    if (rep >= 0) t.push_back(dt);
    cnnz = C.nnz();
    check = 0;
    for (int64_t k = 0; k < cnnz; k++) check += C.values(k) * (double)(1 + C.graph.entries(k) % 3);
  }
  printf("R\t%s\tkk\t%.9e\t%.0f\t%.17g\n", kernel, median(t), 0.0, check);
  printf("I\tkk\tnnz-%s\t%lld\n", kernel, (long long)cnnz);
}

int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  if (argc >= 4 && strcmp(argv[1], "spmv") == 0) spmv(argv[2], argv[3]);
  else if (argc >= 4 && strcmp(argv[1], "spgemm") == 0) spgemm(argv[2], argv[3]);
  else {
    fprintf(stderr, "usage: kk spmv|spgemm FILE KERNEL\n");
    rc = 2;
  }
  Kokkos::finalize();
  return rc;
}
