"""okuyama §5.3 path recording: predecessors after the costs converged, and host backtraces.

On the GPU (:class:`PathRecorder`): one recording kernel per group of problems; thread
(v, s) scans the in-arcs of v (the reversed graph, ``|V| + 2|E|`` more words) for a u with
``c[v, s] == c[u, s] + w(u, v)`` and writes it over ``Ua``'s memory (``Pa``). On the host:
:func:`backtrace` follows the predecessors from a target back to its source, and
:func:`check_paths` checks sampled paths: every consecutive pair is an arc and the arc
weights sum to the distance.
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..graph import Graph
from ..oracle import rtol_for

_CU = gpu.cu_path(__file__, "paths.cu")


class PathRecorder:
    """The recording kernel and the reversed graph on the device (okuyama §5.3)."""

    def __init__(self, cp, graph: Graph, suffix: str):
        rev = graph.reverse
        self.rindptr = cp.asarray(rev.indptr)
        self.rindices = cp.asarray(rev.indices)
        self.rweights = cp.asarray(rev.weights)
        self.kernel = gpu.load_module(_CU).get_function(f"tp_record_paths_{suffix}")

    @staticmethod
    def nbytes(graph: Graph) -> int:
        return 4 * (graph.n + 1 + 2 * graph.m)

    def record(self, grid, block, cost, pred, sources, n: int, width: int) -> None:
        """pred[v, j] (int32, n x width, may alias Ua) <- a parent of v in problem j."""
        self.kernel(grid, block, (self.rindptr, self.rindices, self.rweights, cost, pred, sources,
                                  np.int32(n), np.int32(width)))


def backtrace(pred_row, source: int, target: int) -> list[int] | None:
    """Vertices of the recorded path source -> target, or None when target is unreachable.

    ``pred_row[v]`` is v's parent (-1 at the source and at unreachable vertices). Raises
    ValueError on a cycle or a dangling parent: the predecessors are broken.
    """
    pred_row = np.asarray(pred_row)
    path = [int(target)]
    v = int(target)
    for _ in range(len(pred_row)):
        if v == source:
            return path[::-1]
        u = int(pred_row[v])
        if u < 0:
            if v == target:
                return None
            raise ValueError(f"path to {target} breaks at {v}: no parent before reaching {source}")
        path.append(u)
        v = u
    if v == source:
        return path[::-1]
    raise ValueError(f"the parents from {target} never reach {source}: a cycle")


def arc_weight(graph: Graph, u: int, v: int):
    """Weight of arc u -> v, or None when there is none (CSR rows are sorted by target)."""
    lo, hi = graph.indptr[u], graph.indptr[u + 1]
    k = lo + np.searchsorted(graph.indices[lo:hi], v)
    if k < hi and graph.indices[k] == v:
        return graph.weights[k]
    return None


def path_cost(graph: Graph, path: list[int]) -> float | None:
    """Sum of the arc weights along ``path``; None when a consecutive pair is not an arc."""
    total = 0.0
    for u, v in zip(path[:-1], path[1:]):
        w = arc_weight(graph, u, v)
        if w is None:
            return None
        total += float(w)
    return total


def check_paths(graph: Graph, sources, pred_rows, dist_rows, pairs: int = 256,
                seed: int = 0) -> dict:
    """Backtrace ``pairs`` random (source, reachable target) pairs and check each path.

    ``pred_rows``/``dist_rows``: host arrays (len(sources) x n) of parents and public
    distances (float64, inf). A path is valid when it starts at the source, ends at the
    target, every step is an arc and the weights sum to the distance.
    """
    sources = np.asarray(sources)
    pred_rows = np.atleast_2d(np.asarray(pred_rows))
    dist_rows = np.atleast_2d(np.asarray(dist_rows, dtype=np.float64))
    rng = np.random.default_rng(seed)
    tol = rtol_for(graph.dtype)
    checked = valid = 0
    longest = 0
    bad = []
    rows, cols = np.nonzero(np.isfinite(dist_rows))
    if len(rows):
        pick = rng.choice(len(rows), size=min(pairs, len(rows)), replace=False)
        for i in pick:
            r, t = int(rows[i]), int(cols[i])
            s = int(sources[r])
            checked += 1
            try:
                path = backtrace(pred_rows[r], s, t)
            except ValueError as exc:
                bad.append(str(exc))
                continue
            cost = None if path is None else path_cost(graph, path)
            want = dist_rows[r, t]
            if (path is not None and path[0] == s and path[-1] == t and cost is not None
                    and abs(cost - want) <= tol * max(1.0, abs(want))):
                valid += 1
                longest = max(longest, len(path) - 1)
            else:
                bad.append(f"{s}->{t}: path {path if path is None or len(path) < 12 else '...'} "
                           f"costs {cost}, distance {want}")
    return {"paths_checked": checked, "paths_valid": valid, "all_valid": valid == checked,
            "longest_hops": longest, "problems": bad[:5]}
