# comm_peer.py: igraph (python3-igraph over Debian's libigraph 0.10, one
# thread) and NetworkX on the graphs comm.lua wrote: k-core (coreness /
# core_number), SCC and WCC of the directed graph, Louvain (multilevel /
# louvain_communities, seed 1) with its modularity, label propagation.
# usage: comm_peer.py PREFIX igraph|networkx -- records as comm.lua's
import sys
import time


def record(op, impl, t, extra=""):
    print("R\t%s\t%s\t%.6e\t%s" % (op, impl, t, extra), flush=True)


def read(path):
    n, es = 0, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "Nodes:" in line:
                    n = int(line.split("Nodes:")[1].split()[0])
                continue
            t = line.split()
            if t:
                es.append((int(t[0]), int(t[1])))
    return n, es


def timed(f):
    t0 = time.perf_counter()
    r = f()
    return time.perf_counter() - t0, r


def run_igraph(prefix):
    import igraph
    n, es = read(prefix + ".snap")
    g = igraph.Graph(n=n, edges=es)
    dn, des = read(prefix + ".dir.snap")
    dg = igraph.Graph(n=dn, edges=des, directed=True)
    t, c = timed(lambda: g.coreness())
    record("kcore", "igraph", t, "max core %d" % max(c))
    t, c = timed(lambda: dg.connected_components(mode="strong"))
    record("scc", "igraph", t, "%d components" % len(c))
    t, c = timed(lambda: dg.connected_components(mode="weak"))
    record("wcc", "igraph", t, "%d components" % len(c))
    t, c = timed(lambda: g.community_multilevel())
    record("louvain", "igraph", t, "modularity %.6f" % c.modularity)
    t, c = timed(lambda: g.community_label_propagation())
    record("label_propagation", "igraph", t, "%d communities" % len(c))


def run_networkx(prefix):
    import networkx as nx
    n, es = read(prefix + ".snap")
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(es)
    dn, des = read(prefix + ".dir.snap")
    dg = nx.DiGraph()
    dg.add_nodes_from(range(dn))
    dg.add_edges_from(des)
    t, c = timed(lambda: nx.core_number(g))
    record("kcore", "networkx", t, "max core %d" % max(c.values()))
    t, c = timed(lambda: nx.number_strongly_connected_components(dg))
    record("scc", "networkx", t, "%d components" % c)
    t, c = timed(lambda: nx.number_weakly_connected_components(dg))
    record("wcc", "networkx", t, "%d components" % c)
    t, c = timed(lambda: nx.community.louvain_communities(g, seed=1))
    record("louvain", "networkx", t, "modularity %.6f" % nx.community.modularity(g, c))
    t, c = timed(lambda: list(nx.community.label_propagation_communities(g)))
    record("label_propagation", "networkx", t, "%d communities" % len(c))


if __name__ == "__main__":
    {"igraph": run_igraph, "networkx": run_networkx}[sys.argv[2]](sys.argv[1])
