"""Predecessors that always form a shortest-path tree, from final distances (GPU, CuPy).

Choosing for each vertex an in-neighbour ``u`` with ``d[u] + w(u, v) == d[v]`` is enough when
every weight is positive, but with zero-weight cycles (an undirected zero-weight edge is one)
two vertices can pick each other. Among those tight arcs this keeps, for each vertex, one from
a vertex with fewer arcs to the source: a breadth-first search over the tight arcs of every
source together, one level per step, so the predecessors lead back to the source; of a vertex's
tight in-neighbours on the level before its own, the smallest-numbered (deterministic). Memory: a few
bytes per (arc, source). Used when a weight is zero or negative by the Bellman-Ford (bodra), SpMV
(liu) and worklist methods (one source) and by the multi-source pull (many; positive-weight graphs
take the kernel in ``multi_source/pull.cu`` instead).
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
    pred = cp.full((n, k), n, dtype=cp.int32)
    for step in range(n):
        take = (level[ts, col] == step) & (level[td, col] == n)
        if not bool(take.any()):
            break
        level[td[take], col[take]] = step + 1
        _scatter_min(cp, pred, (td[take], col[take]), ts[take])  # the smallest id: the same run to run
    pred[pred == n] = -1
    out[...] = pred.T
    return out


def _scatter_min(xp, a, at, values):
    """``a[at] = min(a[at], values)`` with repeated indices (``minimum.at``: NumPy's, and CuPy's
    from 12 on, where ``cupyx.scatter_min`` is deprecated; before that only cupyx has it)."""
    at_once = getattr(xp.minimum, "at", None)
    if at_once is not None:
        at_once(a, at, values)
    else:
        import cupyx
        cupyx.scatter_min(a, at, values)


def tree_predecessors(graph, dist, source: int, pred):
    """Fill ``pred`` (int32, n) from the final distances ``dist`` (n) of ``source``."""
    cp = gpu.cupy()
    tree_predecessors_rows(graph, dist[:, None], cp.asarray([source], dtype=cp.int32), pred[None, :])
    return pred
