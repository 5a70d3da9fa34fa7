# props_nx.py: NetworkX on the graph props.lua wrote (SNAP file): local
# clustering, transitivity and the Jaccard coefficient of every edge (m
# pairs; speck scores each edge's two arcs).
# usage: props_nx.py EDGEFILE   -- records as props.lua's
import sys
import time
import networkx as nx


def record(op, t, extra=""):
    print("R\t%s\tnetworkx\t%.6e\t%s" % (op, t, extra), flush=True)


path = sys.argv[1]
g = nx.Graph()
n = 0
t0 = time.perf_counter()
with open(path) as f:
    for line in f:
        if line.startswith("#"):
            if "Nodes:" in line:
                n = int(line.split("Nodes:")[1].split()[0])
            continue
        u, v = line.split()[:2]
        g.add_edge(int(u), int(v))
g.add_nodes_from(range(n))
record("generate", time.perf_counter() - t0, "read %d edges" % g.number_of_edges())
t0 = time.perf_counter()
nx.clustering(g)
record("clustering", time.perf_counter() - t0)
t0 = time.perf_counter()
tr = nx.transitivity(g)
record("transitivity", time.perf_counter() - t0, "%.6f" % tr)
t0 = time.perf_counter()
m = sum(1 for _ in nx.jaccard_coefficient(g, g.edges()))
record("jaccard_edges", time.perf_counter() - t0, "%d pairs" % m)
