#!/usr/bin/python3
# graph_paths_oracle.py: NetworkX's shortest paths and betweenness for
# tests/graph_paths_spec.lua. Usage: graph_paths_oracle.py JOBS, JOBS a file
# of lines "GRAPH OUT"; GRAPH holds a header line "nv directed kind"
# (kind: u unweighted, i integer weights, f float weights), a line
# "sources s1 s2 ..." (the SSSP sources), a line "subset s1 s2 ..." (the
# betweenness sources) and one arc "u v [w]" a line (an undirected graph:
# each edge once). OUT gets lines "key x1 x2 ...":
#   sssp<s>   the distances from s (inf where unreached; integers exactly,
#             floats with 17 digits); Dijkstra, or Bellman-Ford when some
#             weight is negative
#   bc1, bc0  betweenness_centrality, normalized true / false
#   bcs1, bcs0  betweenness_centrality_subset(sources = subset, targets =
#             every vertex), normalized true / false
import sys

import networkx as nx


def fmt(x):
    if isinstance(x, int):
        return str(x)
    return repr(float(x))


def run(gpath, opath):
    with open(gpath) as f:
        nv, directed, kind = f.readline().split()
        nv, directed = int(nv), directed == "1"
        sources = [int(x) for x in f.readline().split()[1:]]
        subset = [int(x) for x in f.readline().split()[1:]]
        G = nx.DiGraph() if directed else nx.Graph()
        G.add_nodes_from(range(nv))
        neg = False
        for line in f:
            t = line.split()
            if not t:
                continue
            u, v = int(t[0]), int(t[1])
            if kind == "u":
                G.add_edge(u, v)
            else:
                w = int(t[2]) if kind == "i" else float(t[2])
                neg = neg or w < 0
                G.add_edge(u, v, weight=w)
    out = []
    for s in sources:
        if kind == "u":
            d = nx.single_source_shortest_path_length(G, s)
        elif neg:
            d = nx.single_source_bellman_ford_path_length(G, s, weight="weight")
        else:
            d = nx.single_source_dijkstra_path_length(G, s, weight="weight")
        out.append("sssp%d %s" % (s, " ".join(fmt(d[v]) if v in d else "inf"
                                                for v in range(nv))))
    if kind == "u" or not neg:
        for norm in (True, False):
            b = nx.betweenness_centrality(G, normalized=norm)
            out.append("bc%d %s" % (norm, " ".join(fmt(b[v]) for v in range(nv))))
            if subset:
                b = nx.betweenness_centrality_subset(G, subset, list(range(nv)),
                                                     normalized=norm)
                out.append("bcs%d %s" % (norm, " ".join(fmt(b[v]) for v in range(nv))))
    with open(opath, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    with open(sys.argv[1]) as f:
        for line in f:
            t = line.split()
            if t:
                run(t[0], t[1])


if __name__ == "__main__":
    main()
