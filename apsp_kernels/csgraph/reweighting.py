"""Johnson's algorithm on the GPU (D. B. Johnson, "Efficient algorithms for shortest paths in
sparse networks", J. ACM 24(1), 1977; CLRS Sec. 25.3), from the project's families:

1. potentials ``h``: Bellman-Ford (the ``BF`` family) from a virtual vertex joined by a
   zero-weight arc to every vertex (``anywhere=True``: a negative cycle anywhere raises
   NegativeCycleError, as SciPy's ``johnson``) or to the sources only (then ``h(v)`` is the
   nearest source's distance, valid potentials where the sources reach, and only a negative
   cycle that a source reaches raises, as Bellman-Ford from each source);
2. every source's shortest-path tree on the reweighted graph ``w(u, v) + h(u) - h(v) >= 0``
   (the batched ``multi_source`` family), which has the same shortest paths;
3. distances mapped back, ``d(s, t) = d'(s, t) - h(s) + h(t)`` (exact for integer weights).

Without a negative weight ``h`` is 0 and step 1 is skipped.
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph
from .families import FAMILIES
from .runner import run_family

POTENTIALS = "BF"
BATCHED_SSSP = "multi_source"


def johnson_rows(graph: Graph, device: bool, sources, predecessors: bool, anywhere: bool = True):
    """``(dist, pred)`` rows of ``sources`` as :func:`runner.run_family` returns them."""
    h = potentials(graph, device, None if anywhere else sources)
    if h is None:
        return run_family(FAMILIES[BATCHED_SSSP], graph, device, sources, predecessors)
    dist, pred = run_family(FAMILIES[BATCHED_SSSP], reweighted(graph, h), device, sources, predecessors)
    xp = graph.xp if device else np
    h = xp.asarray(h)
    ids = xp.asarray(np.asarray(sources, dtype=np.int64))
    dist += h[None, :] - h[ids][:, None]  # inf stays inf
    return dist, pred


def potentials(graph: Graph, device: bool, sources=None):
    """Bellman-Ford distances (float64, length n, inf where unreached) from a virtual source
    with a zero arc to every vertex (``sources=None``) or to each of ``sources``, on the graph's
    own array module; None when no weight is negative."""
    if not graph.has_negative_weights:
        return None
    xp, n = graph.xp, graph.n
    ends = xp.arange(n, dtype=np.int32) if sources is None else \
        xp.asarray(np.unique(np.asarray(sources)).astype(np.int32))
    src = xp.concatenate([graph.sources_of_arcs.astype(np.int32), xp.full(len(ends), n, dtype=np.int32)])
    dst = xp.concatenate([graph.indices.astype(np.int32), ends])
    w = xp.concatenate([graph.weights, xp.zeros(len(ends), dtype=graph.dtype)])
    joined = Graph.from_edges(n + 1, src, dst, w, dtype=graph.dtype, name=f"{graph.name} + virtual source")
    dist, _ = run_family(FAMILIES[POTENTIALS], joined, device, [n], False)
    return dist[0, :n]


def reweighted(graph: Graph, h) -> Graph:
    """The graph with ``w(u, v) + h(u) - h(v)``, non-negative where ``h`` are exact potentials
    (a float rounding below zero is clamped to 0), in the graph's dtype and CSR layout; an arc
    out of a vertex without a potential (no source reaches it) gets 0, never used."""
    xp = graph.xp
    h = xp.asarray(h)
    hu = h[graph.sources_of_arcs]
    with np.errstate(invalid="ignore"):  # inf - inf where no source reaches: replaced by 0
        w = xp.where(xp.isfinite(hu), graph.weights.astype(np.float64) + hu - h[graph.indices], 0)
    w = xp.maximum(xp.rint(w) if graph.dtype.kind in "iu" else w, 0)
    return Graph(graph.n, graph.indptr, graph.indices, w.astype(graph.dtype),
                 name=f"{graph.name} reweighted (Johnson)", meta=dict(graph.meta))
