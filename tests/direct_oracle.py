# direct_oracle.py: SciPy's and NetworkX's answers for tests/spsolve_spec.lua
# and tests/lobpcg_spec.lua.
# usage: direct_oracle.py spsolve DIR NAME...: for each NAME reads
#   DIR/NAME.mtx (speck's Matrix Market output), takes b_i = 1 + (i mod 7)
#   / 7 and writes DIR/NAME.x: scipy.sparse.linalg.spsolve's x, one value a
#   line (%.17g)
# direct_oracle.py eig DIR NAME K: DIR/NAME.eig: the K smallest then the K
#   largest eigenvalues of the symmetric DIR/NAME.mtx (numpy.linalg.eigh on
#   the dense matrix: the specs' matrices are small), one a line
# direct_oracle.py fiedler DIR NAME: DIR/NAME.fiedler: the algebraic
#   connectivity (networkx.algebraic_connectivity) of the graph whose
#   edges are the off-diagonal entries of the Laplacian DIR/NAME.mtx
import sys

import networkx as nx
import numpy as np
import scipy.io
import scipy.sparse.linalg


def read(d, name):
    return scipy.sparse.csr_matrix(scipy.io.mmread("%s/%s.mtx" % (d, name)))


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "spsolve":
        for name in sys.argv[3:]:
            A = read(d, name)
            n = A.shape[0]
            b = 1.0 + (np.arange(n) % 7) / 7.0
            x = scipy.sparse.linalg.spsolve(A.tocsc(), b)
            with open("%s/%s.x" % (d, name), "w") as f:
                for v in x:
                    f.write("%.17g\n" % v)
    elif mode == "eig":
        name, k = sys.argv[3], int(sys.argv[4])
        w = np.linalg.eigh(read(d, name).toarray())[0]
        with open("%s/%s.eig" % (d, name), "w") as f:
            for v in list(w[:k]) + list(w[::-1][:k]):
                f.write("%.17g\n" % v)
    elif mode == "fiedler":
        name = sys.argv[3]
        A = read(d, name).tocoo()
        G = nx.Graph()
        G.add_nodes_from(range(A.shape[0]))
        for i, j, v in zip(A.row, A.col, A.data):
            if i != j and v != 0:
                G.add_edge(int(i), int(j), weight=float(-v))
        a = nx.algebraic_connectivity(G, weight="weight", tol=1e-12, method="tracemin_lu")
        with open("%s/%s.fiedler" % (d, name), "w") as f:
            f.write("%.17g\n" % a)


main()
