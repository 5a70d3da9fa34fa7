/* fuzz_mm.c: libFuzzer harness of the Matrix Market reader
 * (kernels/sparse/mmio.c, speck.sparse.read_mm).
 *
 * The input is the file, read as float64 and as float32 into host CSR.
 * A refusal must carry a message naming the file; a matrix must be a valid
 * CSR of the announced shape: rowptr from 0, never decreasing, ending at
 * the entry count, every column index inside the column count. The
 * reader must not allocate for entries the file cannot hold (libFuzzer's
 * malloc limit reports a large allocation as a failure). */
#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader_input("mm", data, size);
  for (int pass = 0; pass < 2; pass++) {
    sk_arg a[2] = {sk_arg_str("path", reader_path),
                   sk_arg_str("dtype", pass ? "float32" : "float64")};
    sk_kvalue v;
    memset(&v, 0, sizeof v);
    char err[2048];
    err[0] = '\0';
    int kind;
    if (sk_kernel_call("sparse.read_mm", a, 2, &v, &kind, err, sizeof err) < 0) {
      if (!err[0] || !strstr(err, reader_path))
        reader_fail("refused without naming the file");
      if (v.nout) reader_fail("a refusal left outputs");
      continue;
    }
    int64_t m = (int64_t)reader_num(&v, "nrows"), n = (int64_t)reader_num(&v, "ncols");
    const sk_view *rp = reader_out(&v, "C_rowptr"), *ci = reader_out(&v, "C_colidx"),
                  *va = reader_out(&v, "C_values");
    reader_check_csr(rp, ci, m, n);
    if (!va || va->extent[0] != ci->extent[0])
      reader_fail("values do not match the columns");
    sk_kout_release(&v);
  }
  return 0;
}
