"""Predecessor trees of many sources at once, for graphs with zero weights (CuPy).

The multi-source form of :func:`apsp_kernels.sssp_iterative.tree.tree_predecessors`: among the
tight arcs (``d[u] + w == d[v]``) each vertex keeps one from a vertex fewer arcs from the source,
found by a breadth-first search over the tight arcs of every source together, one level per step,
so that zero-weight cycles cannot close a loop of predecessors. Memory: a few bytes per
(arc, source); positive-weight graphs take the kernel in ``pull.cu`` instead.
"""
from __future__ import annotations

from .. import gpu


def tree_predecessors_rows(graph, dist, sources, out):
    """Fill ``out`` ((k, n) int32) from ``dist`` ((n, k), column j for ``sources[j]``)."""
    cp = gpu.cupy()
    n, k = graph.n, int(sources.shape[0])
    src, dst, w = (cp.asarray(a) for a in (graph.sources_of_arcs, graph.indices, graph.weights))
    du = dist[src]
    tight = (du < graph.inf) & (du + w[:, None] == dist[dst])
    arc, col = cp.nonzero(tight)
    ts, td = src[arc], dst[arc]
    level = cp.full((n, k), n, dtype=cp.int32)
    level[sources, cp.arange(k)] = 0
    pred = cp.full((n, k), -1, dtype=cp.int32)
    for step in range(n):
        take = (level[ts, col] == step) & (level[td, col] == n)
        if not bool(take.any()):
            break
        level[td[take], col[take]] = step + 1
        pred[td[take], col[take]] = ts[take]  # several writers per (vertex, source): any one is a valid parent
    out[...] = pred.T
    return out
