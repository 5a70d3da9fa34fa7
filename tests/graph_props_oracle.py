# graph_props_oracle.py: NetworkX's (and igraph's) answers for
# tests/graph_props_spec.lua.
# usage: graph_props_oracle.py JOBS: each line of JOBS is
#   "<edge file> <directed 0|1> <out file> <params file>"
# the edge file is speck's SNAP output ("# Nodes: N", "u v [w]" lines);
# the params file has lines "pairs u1 v1 u2 v2 ...", "pers w0 w1 ..."
# (a personalization, one weight per vertex) and "src s1 s2 ..." (BFS
# sources). The out file gets lines "key x1 x2 ..." (floats as repr):
#   clu, trans          networkx.clustering (directed too) / transitivity
#                       (undirected)
#   jac, ovl            Jaccard and overlap of the pairs; jacarcs, ovlarcs
#                       of every arc in CSR order (rows in vertex order,
#                       each sorted): sets of out-neighbours; Jaccard is
#                       also checked against networkx.jaccard_coefficient
#                       (undirected graphs without self-loops: NetworkX
#                       leaves u and v out of the common neighbours) and
#                       igraph's similarity_jaccard
#   ppr                 networkx.pagerank with the personalization (tol 1e-14)
#   hubs, auth          NetworkX's power-iteration HITS (_hits_python,
#                       tol 1e-13); hubsvd, authsvd: networkx.hits (SVD),
#                       where the largest singular value is simple
#   hist, hin, hout     networkx.degree_histogram (directed: total, in, out)
#   stats, sin, sout    n min max mean std median of the degrees (numpy)
#   bfs                 networkx.multi_source_dijkstra_path_length, every
#                       edge of length 1 (-1: unreached)
import sys
import warnings

import igraph
import networkx as nx
import numpy as np
from networkx.algorithms.link_analysis.hits_alg import _hits_python


def load(path, directed):
    g = nx.DiGraph() if directed else nx.Graph()
    n = 0
    edges = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "Nodes:" in line:
                    n = int(line.split("Nodes:")[1].split()[0])
                continue
            t = line.split()
            if t:
                edges.append(t)
    g.add_nodes_from(range(n))
    for t in edges:
        if len(t) == 3:
            g.add_edge(int(t[0]), int(t[1]), weight=float(t[2]))
        else:
            g.add_edge(int(t[0]), int(t[1]))
    return g, n


def params(path):
    p = {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if t:
                p[t[0]] = t[1:]
    return p


def sims(nb, pairs):
    jac, ovl = [], []
    for u, v in pairs:
        a, b = nb[u], nb[v]
        both = len(a & b)
        uni = len(a | b)
        jac.append(both / uni if uni else 0.0)
        m = min(len(a), len(b))
        ovl.append(both / m if m else 0.0)
    return jac, ovl


def stats(deg):
    d = np.array(deg, dtype=np.int64)
    return [len(d), int(d.min()), int(d.max()), float(d.mean()), float(d.std()),
            float(np.median(d))]


def fmt(key, xs):
    return key + " " + " ".join(repr(float(x)) if isinstance(x, float) else str(x)
                                for x in xs)


def main():
    warnings.simplefilter("ignore")
    for job in open(sys.argv[1]):
        t = job.split()
        if not t:
            continue
        path, directed, out, pp = t[0], t[1] == "1", t[2], t[3]
        g, n = load(path, directed)
        p = params(pp)
        lines = []
        loops = nx.number_of_selfloops(g) > 0
        c = nx.clustering(g)
        lines.append(fmt("clu", [c[v] for v in range(n)]))
        if not directed:
            lines.append(fmt("trans", [float(nx.transitivity(g))]))
        nb = {u: set(g.successors(u)) if directed else set(g[u]) for u in range(n)}
        pv = [int(x) for x in p.get("pairs", [])]
        pairs = list(zip(pv[0::2], pv[1::2]))
        jac, ovl = sims(nb, pairs)
        arcs = [(u, v) for u in range(n) for v in sorted(nb[u])]
        jarc, oarc = sims(nb, arcs)
        if not directed and not loops:
            for (u, v, s), x in zip(nx.jaccard_coefficient(g, pairs + arcs), jac + jarc):
                assert s == x, (u, v, s, x)
        if n and not loops:
            ig = igraph.Graph(n=n, edges=[(u, v) for u in range(n) for v in nb[u]
                                          if directed or u <= v], directed=directed)
            for (u, v), s, x in zip(pairs + arcs,
                                    ig.similarity_jaccard(pairs=pairs + arcs, mode="out", loops=False),
                                    jac + jarc):
                # (igraph scores an isolated vertex with itself 1, NetworkX 0)
                if u != v or nb[u]:
                    assert abs(s - x) < 1e-15, (u, v, s, x)
        lines.append(fmt("jac", jac))
        lines.append(fmt("ovl", ovl))
        lines.append(fmt("jacarcs", jarc))
        lines.append(fmt("ovlarcs", oarc))
        if n:
            w = [float(x) for x in p["pers"]]
            pr = nx.pagerank(g, personalization={v: w[v] for v in range(n)}, tol=1e-14,
                             max_iter=10000)
            lines.append(fmt("ppr", [pr[v] for v in range(n)]))
            if g.number_of_edges():
                h, a = _hits_python(g, max_iter=100000, tol=1e-13)
                lines.append(fmt("hubs", [h[v] for v in range(n)]))
                lines.append(fmt("auth", [a[v] for v in range(n)]))
                sv = np.linalg.svd(nx.to_numpy_array(g, nodelist=range(n)), compute_uv=False)
                if len(sv) < 2 or sv[0] - sv[1] > 1e-3 * sv[0]:
                    hs, as_ = nx.hits(g, max_iter=100000, tol=1e-14)
                    lines.append(fmt("hubsvd", [hs[v] for v in range(n)]))
                    lines.append(fmt("authsvd", [as_[v] for v in range(n)]))
            lines.append(fmt("hist", nx.degree_histogram(g)))
            lines.append(fmt("stats", stats([d for _, d in g.degree()])))
            if directed:
                for key, dv in (("in", g.in_degree()), ("out", g.out_degree())):
                    deg = [d for _, d in dv]
                    cnt = np.bincount(deg)
                    lines.append(fmt("h" + key, [int(x) for x in cnt]))
                    lines.append(fmt("s" + key, stats(deg)))
            src = [int(x) for x in p["src"]]
            lev = nx.multi_source_dijkstra_path_length(g, set(src), weight=lambda u, v, d: 1)
            lines.append(fmt("bfs", [lev.get(v, -1) for v in range(n)]))
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")


main()
