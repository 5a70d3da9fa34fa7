# graph_oracle.py: NetworkX's answers for tests/graph_spec.lua.
# usage: graph_oracle.py JOBS: each line of JOBS is
#   "<edge file> <directed 0|1> <out file> <bfs source>"
# the edge file is speck's SNAP output ("# Nodes: N", "u v [w]" lines);
# the out file gets lines "bfs l0 l1 ...", "cc c0 c1 ..." (the smallest
# vertex of each vertex's component), "pr r0 r1 ..." (tol 1e-12),
# "tri t0 t1 ...", "mt k1 c1 k2 c2 ..." (miniTri) and "maxdeg D1 D2" (the
# largest degree of the graph and of its square; undirected only).
import sys
import networkx as nx


def load(path, directed):
    g = nx.DiGraph() if directed else nx.Graph()
    n = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "Nodes:" in line:
                    n = int(line.split("Nodes:")[1].split()[0])
                continue
            t = line.split()
            if not t:
                continue
            if len(t) == 3:
                g.add_edge(int(t[0]), int(t[1]), weight=float(t[2]))
            else:
                g.add_edge(int(t[0]), int(t[1]))
    g.add_nodes_from(range(n))
    return g, n


def minitri(g, tv):
    """miniTri's histogram: k -> triangles (seed 003 chapter 6)"""
    nb = {u: set(g[u]) - {u} for u in g}
    hist = {}
    for u in g:
        for v in nb[u]:
            if v <= u:
                continue
            for w in nb[u] & nb[v]:
                if w <= v:
                    continue
                mv = min(tv[u], tv[v], tv[w])
                me = min(len(nb[a] & nb[b]) for a, b in ((u, v), (u, w), (v, w)))
                k = 3
                while k * (k - 1) // 2 <= mv and k - 1 <= me:
                    k += 1
                hist[k] = hist.get(k, 0) + 1
    return hist


def main():
    for job in open(sys.argv[1]):
        t = job.split()
        if not t:
            continue
        path, directed, out, src = t[0], t[1] == "1", t[2], int(t[3])
        g, n = load(path, directed)
        lines = []
        lev = nx.single_source_shortest_path_length(g, src) if n else {}
        lines.append("bfs " + " ".join(str(lev.get(v, -1)) for v in range(n)))
        comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
        lab = [0] * n
        for c in comps:
            m = min(c)
            for v in c:
                lab[v] = m
        lines.append("cc " + " ".join(map(str, lab)))
        if n:
            pr = nx.pagerank(g, tol=1e-12, max_iter=1000)
            lines.append("pr " + " ".join(repr(pr[v]) for v in range(n)))
        else:
            lines.append("pr")
        if not directed:
            tri = nx.triangles(g)
            lines.append("tri " + " ".join(str(tri[v]) for v in range(n)))
            lines.append("mt " + " ".join("%d %d" % kc for kc in sorted(minitri(g, tri).items())))
            # the largest degree of g and of its square (self-loops aside):
            # a greedy coloring needs at most one more color than that
            h = nx.Graph(g)
            h.remove_edges_from(nx.selfloop_edges(h))
            d1 = max((d for _, d in h.degree()), default=0)
            d2 = max((d for _, d in nx.power(h, 2).degree()), default=0) if n else 0
            lines.append("maxdeg %d %d" % (d1, d2))
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")


main()
