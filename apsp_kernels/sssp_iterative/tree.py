"""Predecessors that always form a shortest-path tree, from final distances (GPU, CuPy).

Choosing for each vertex an in-neighbour ``u`` with ``d[u] + w(u, v) == d[v]`` is enough when
every weight is positive, but with zero-weight cycles (an undirected zero-weight edge is one)
two vertices can pick each other. Among those tight arcs this keeps, for each vertex, one from
a vertex with fewer arcs to the source: a breadth-first search over the tight arcs, one level
per step, so the predecessors lead back to the source. Used by the Bellman-Ford (bodra) and
SpMV (liu) methods when a weight is zero or negative.
"""
from __future__ import annotations


from .. import gpu


def tree_predecessors(graph, dist, source: int, pred):
    """Fill ``pred`` (cupy int32, n) from the final distances ``dist`` of ``source``."""
    cp = gpu.cupy()
    src, dst, w = (cp.asarray(a) for a in (graph.sources_of_arcs, graph.indices, graph.weights))
    du = dist[src]
    tight = (du < graph.inf) & (du + w == dist[dst])
    ts, td = src[tight], dst[tight]
    n = graph.n
    level = cp.full(n, n, dtype=cp.int32)
    level[source] = 0
    pred.fill(-1)
    for step in range(n):
        take = (level[ts] == step) & (level[td] == n)
        if not bool(take.any()):
            break
        level[td[take]] = step + 1
        pred[td[take]] = ts[take]  # several writers per vertex: any one is a valid parent
    return pred
