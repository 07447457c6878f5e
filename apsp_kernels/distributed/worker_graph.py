"""The graph on a worker: deserialised once per worker (a replicated task result) and uploaded once.

Tasks get the shared host Graph and its token; :func:`on_device` returns this process's
copy on its device (CSR arrays as cupy on a GPU worker), made on the first task and reused by
every later one, which also gets PHAST's hierarchy when the client sends the graph again with
it. One graph is kept: a new token frees the previous one.
"""
from __future__ import annotations

from ..graph import Graph

_CACHE: dict = {}
_BUILT = {"count": 0}


def on_device(graph: Graph, token: str, on_gpu: bool) -> tuple[Graph, object]:
    """(graph on this worker's device, SciPy CSR for CPU block solvers or None)."""
    from ..sssp_hierarchy.layout import HIERARCHY_KEY
    hit = _CACHE.get("entry")
    if hit is not None and hit[0] == token:
        if HIERARCHY_KEY in graph.__dict__:  # contracted on the client since this copy was made
            hit[1].__dict__.setdefault(HIERARCHY_KEY, graph.__dict__[HIERARCHY_KEY])
        return hit[1], hit[2]
    _CACHE.clear()
    if on_gpu:
        from .. import gpu
        cp = gpu.cupy()
        device = Graph(graph.n, cp.asarray(graph.indptr), cp.asarray(graph.indices),
                       cp.asarray(graph.weights), name=graph.name, meta=dict(graph.meta))
        # the exactness checks of every Solver need the bound; it was computed on the host
        device.__dict__["distance_bound"] = graph.distance_bound
        if HIERARCHY_KEY in graph.__dict__:  # PHAST's, contracted once on the client
            device.__dict__[HIERARCHY_KEY] = graph.__dict__[HIERARCHY_KEY]
        matrix = None
    else:
        device, matrix = graph, graph.to_scipy()
    _CACHE["entry"] = (token, device, matrix)
    _BUILT["count"] += 1
    return device, matrix


def clear() -> None:
    _CACHE.clear()


def builds() -> int:
    """How many times this process made its device copy (1 per graph: the send-once rule)."""
    return _BUILT["count"]
