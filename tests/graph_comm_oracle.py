# graph_comm_oracle.py: NetworkX's (and igraph's) answers for
# tests/graph_comm_spec.lua (k-core, SCC, WCC, Louvain, label propagation).
# usage:
#   graph_comm_oracle.py struct JOBS       each line "<edges> <directed 0|1> <out>":
#       the out file gets "core c0 c1 ...", "scc l0 l1 ...", "wcc l0 l1 ..."
#       (labels canonical: 0..n-1 in the order of each class's smallest
#       vertex); igraph's coreness and components must agree, else exit 1
#   graph_comm_oracle.py louvain <edges> <seed> <resolution>
#       prints "q Q k K" of networkx.community.louvain_communities and
#       "igraph Q" of igraph's multilevel (resolution 1 only)
#   graph_comm_oracle.py modularity <edges> <labels> <resolution>
#       prints networkx.community.modularity of the partition in <labels>
#       (one label a line) after checking it is a partition of the vertices
#   graph_comm_oracle.py planted <out> <groups> <size> <p_in> <p_out> <seed> <weighted 0|1>
#       writes networkx.planted_partition_graph (weights 1..10 when weighted)
# An edge file: "n N" then "u v" or "u v w" lines (an undirected graph's
# edges once each).
import random
import sys

import networkx as nx

try:
    import igraph
except ImportError:  # igraph's checks are skipped, NetworkX still answers
    igraph = None


def load(path, directed):
    g = nx.DiGraph() if directed else nx.Graph()
    with open(path) as f:
        n = int(f.readline().split()[1])
        g.add_nodes_from(range(n))
        for line in f:
            t = line.split()
            if len(t) == 3:
                g.add_edge(int(t[0]), int(t[1]), weight=float(t[2]))
            elif len(t) == 2:
                g.add_edge(int(t[0]), int(t[1]), weight=1.0)
    return g, n


def canon(n, classes):
    lab = [-1] * n
    for c in classes:
        for v in c:
            lab[v] = min(c)
    order = {}
    out = []
    for v in range(n):
        if lab[v] not in order:
            order[lab[v]] = len(order)
        out.append(order[lab[v]])
    return out


def struct(jobs):
    for job in open(jobs):
        t = job.split()
        if not t:
            continue
        path, directed, out = t[0], t[1] == "1", t[2]
        g, n = load(path, directed)
        h = g.copy()
        h.remove_edges_from(list(nx.selfloop_edges(h)))
        core = nx.core_number(h) if n > 0 else {}
        if directed:
            scc = canon(n, nx.strongly_connected_components(g))
            wcc = canon(n, nx.weakly_connected_components(g))
        else:
            scc = wcc = canon(n, nx.connected_components(g))
        if igraph is not None and n > 0:
            ig = igraph.Graph(n=n, edges=list(h.edges()), directed=directed)
            if ig.coreness(mode="all") != [core[v] for v in range(n)]:
                sys.exit("igraph's coreness differs from networkx's: " + path)
            for mode, want in (("strong", scc), ("weak", wcc)):
                mem = igraph.Graph(n=n, edges=list(g.edges()), directed=directed) \
                    .connected_components(mode=mode).membership
                if canon(n, [[v for v in range(n) if mem[v] == c] for c in set(mem)]) != want:
                    sys.exit("igraph's %s components differ from networkx's: %s" % (mode, path))
        with open(out, "w") as f:
            f.write("core " + " ".join(str(core[v]) for v in range(n)) + "\n")
            f.write("scc " + " ".join(map(str, scc)) + "\n")
            f.write("wcc " + " ".join(map(str, wcc)) + "\n")


def louvain(path, seed, res):
    g, n = load(path, False)
    comms = nx.community.louvain_communities(g, weight="weight", resolution=res, seed=seed)
    q = nx.community.modularity(g, comms, weight="weight", resolution=res)
    print("q %.17g k %d" % (q, len(comms)))
    if igraph is not None and res == 1.0:
        ig = igraph.Graph(n=n, edges=[(u, v) for u, v in g.edges()])
        ig.es["weight"] = [d["weight"] for _, _, d in g.edges(data=True)]
        random.seed(seed)  # python-igraph draws from Python's random: the same answer every run
        print("igraph %.17g" % ig.community_multilevel(weights="weight").modularity)


def modularity(path, labels, res):
    g, n = load(path, False)
    lab = [int(x) for x in open(labels).read().split()]
    if len(lab) != n:
        sys.exit("%d labels for %d vertices" % (len(lab), n))
    comms = {}
    for v, c in enumerate(lab):
        comms.setdefault(c, set()).add(v)
    parts = list(comms.values())
    if not nx.community.is_partition(g, parts):
        sys.exit("not a partition")
    print("%.17g" % nx.community.modularity(g, parts, weight="weight", resolution=res))


def planted(out, groups, size, pin, pout, seed, weighted):
    g = nx.planted_partition_graph(groups, size, pin, pout, seed=seed)
    rnd = random.Random(seed)
    with open(out, "w") as f:
        f.write("n %d\n" % g.number_of_nodes())
        for u, v in g.edges():
            if weighted:
                f.write("%d %d %d\n" % (u, v, rnd.randint(1, 10)))
            else:
                f.write("%d %d\n" % (u, v))


def main():
    a = sys.argv
    if a[1] == "struct":
        struct(a[2])
    elif a[1] == "louvain":
        louvain(a[2], int(a[3]), float(a[4]))
    elif a[1] == "modularity":
        modularity(a[2], a[3], float(a[4]))
    elif a[1] == "planted":
        planted(a[2], int(a[3]), int(a[4]), float(a[5]), float(a[6]), int(a[7]), a[8] == "1")
    else:
        sys.exit("unknown mode " + a[1])


if __name__ == "__main__":
    main()
