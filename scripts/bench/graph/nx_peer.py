# nx_peer.py: NetworkX on the graph bench.lua wrote (SNAP file, sources).
# usage: nx_peer.py EDGEFILE   -- records as bench.lua's
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
sources = [int(x) for x in open(path + ".sources").read().split()]
t0 = time.perf_counter()
for s in sources:
    nx.single_source_shortest_path_length(g, s)
record("bfs", (time.perf_counter() - t0) / len(sources))
t0 = time.perf_counter()
nc = nx.number_connected_components(g)
record("cc", time.perf_counter() - t0, "%d components" % nc)
t0 = time.perf_counter()
try:
    nx.pagerank(g, max_iter=20, tol=1e-300)
except nx.PowerIterationFailedConvergence:
    pass
record("pagerank20", time.perf_counter() - t0)
t0 = time.perf_counter()
tri = sum(nx.triangles(g).values()) // 3
record("triangles", time.perf_counter() - t0, "%d triangles" % tri)
t0 = time.perf_counter()
c = nx.greedy_color(g)
record("color", time.perf_counter() - t0, "%d colors" % (max(c.values()) + 1 if c else 0))
