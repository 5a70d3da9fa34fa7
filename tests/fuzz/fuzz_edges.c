/* fuzz_edges.c: libFuzzer harness of the edge-list / SNAP reader
 * (kernels/graph/gio.c, speck.graph.read).
 *
 * The input is the file, read either as an undirected graph (duplicates
 * merged, self-loops dropped: graph.read's defaults) or as a directed one
 * that keeps everything -- the parity of the bytes' sum picks, so one
 * mutation flips it and both stay covered at half the cost per input. A refusal must carry a message naming the file; a
 * graph must be a valid CSR over its vertex count, every neighbour a
 * vertex; weights, when the file has them, one per edge. A '# Nodes: N'
 * header of more than 2^24 vertices is skipped here: N + 1 row pointers
 * are the graph's own (isolated vertices are legal), not the reader's
 * doing, and would only exercise the allocator. speck's memory is capped
 * at 4 MiB here (before the first allocation): ids in the millions are
 * refused by the memory check with a message, quickly, instead of faulting
 * in arrays that only exercise the kernel's page allocator. */
#include "reader.h"

/* the value of a '# Nodes: N' comment anywhere in the input, else -1 */
static long long declared_nodes(const uint8_t *p, size_t n) {
  for (size_t i = 0; i + 8 < n; i++)
    if (memcmp(p + i, "Nodes:", 6) == 0) {
      long long v = 0;
      size_t k = i + 6;
      while (k < n && (p[k] == ' ' || p[k] == '\t')) k++;
      while (k < n && p[k] >= '0' && p[k] <= '9' && v < (1LL << 40))
        v = v * 10 + (p[k++] - '0');
      return v;
    }
  return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (declared_nodes(data, size) > (1 << 24)) return 0;
  if (!reader_path[0]) setenv("SPECK_MEMORY_MAX", "4M", 1);
  reader_input("edges", data, size);
  unsigned sum = 0;
  for (size_t i = 0; i < size; i++) sum += data[i];
  {
    int pass = (int)(sum & 1);
    sk_arg a[4] = {sk_arg_str("path", reader_path), sk_arg_i64("directed", pass),
                   sk_arg_i64("dedupe", !pass), sk_arg_i64("self_loops", pass)};
    sk_kvalue v;
    memset(&v, 0, sizeof v);
    char err[2048];
    err[0] = '\0';
    int kind;
    if (sk_kernel_call("graph.read_edges", a, 4, &v, &kind, err, sizeof err) < 0) {
      if (!err[0] || !strstr(err, reader_path))
        reader_fail("refused without naming the file");
      if (v.nout) reader_fail("a refusal left outputs");
      return 0;
    }
    int64_t nv = (int64_t)reader_num(&v, "nv");
    const sk_view *rp = reader_out(&v, "G_rowptr"), *ci = reader_out(&v, "G_colidx"),
                  *w = reader_out(&v, "G_weights");
    reader_check_csr(rp, ci, nv, nv);
    if (w && w->extent[0] != ci->extent[0]) reader_fail("weights do not match the edges");
    sk_kout_release(&v);
  }
  return 0;
}
