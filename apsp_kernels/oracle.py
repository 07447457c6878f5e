"""CPU oracle on SciPy csgraph, in the project's conventions, and solution checking.

Distances come back float64 with np.inf for unreachable. Large graphs are checked on a
seeded sample of rows (sources), small ones in full. Computing them holds the host's CPU lock
(:mod:`host_cpu`): it would slow the host-clock timings of a notebook running beside.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import csgraph, csr_matrix

from . import host_cpu
from .graph import Graph
from .solver import Solution

FULL_CHECK_MAX_N = 4096      # check every row up to this many rows
SAMPLED_ROWS = 64            # rows checked above it
FLOAT32_RTOL = 1e-5          # float32 sums in another order differ by rounding only
FLOAT64_RTOL = 1e-12         # float64 likewise (SciPy's own answers, summed in its order)


def rtol_for(dtype) -> float:
    """Relative tolerance of distances computed in ``dtype`` against SciPy's float64 (0: exact)."""
    dtype = np.dtype(dtype)
    return FLOAT32_RTOL if dtype == np.float32 else FLOAT64_RTOL if dtype == np.float64 else 0.0


def distances(graph: Graph, sources=None, method: str = "auto") -> np.ndarray:
    """Shortest-path distances from ``sources`` (all if None), shape (len(sources), n).

    ``method``: ``auto`` (Dijkstra, or Bellman-Ford when a weight is negative),
    ``dijkstra``, ``bellman_ford`` or ``floyd_warshall`` (all sources, small n only).
    """
    with host_cpu.exclusive():
        return _distances(graph, sources, method)


def _distances(graph: Graph, sources, method: str) -> np.ndarray:
    idx = None if sources is None else np.atleast_1d(np.asarray(sources, dtype=np.int64))
    if method == "auto":
        method = "bellman_ford" if graph.has_negative_weights else "dijkstra"
    if method == "floyd_warshall":
        out = csgraph.floyd_warshall(graph.to_scipy(), directed=True)
        return out if idx is None else out[idx]
    fn = {"dijkstra": csgraph.dijkstra, "bellman_ford": csgraph.bellman_ford}[method]
    idx = np.arange(graph.n, dtype=np.int64) if idx is None else idx
    return _ROWS.get(graph, method, idx,
                     lambda missing: np.atleast_2d(fn(graph.to_scipy(), directed=True,
                                                      indices=missing)))


def fewest_arcs(graph: Graph, source: int) -> np.ndarray:
    """Per vertex, the fewest arcs on a shortest path from ``source`` (-1 where unreachable).

    Its maximum is the longest chain of relaxations that depend on one another: no SSSP method
    settles every vertex in fewer steps in sequence, however parallel (a breadth-first search over
    the tight arcs, ``d[u] + w == d[v]``, of the oracle's distances)."""
    d = distances(graph, [source])[0]
    src, dst = np.asarray(graph.sources_of_arcs), np.asarray(graph.indices)
    du, dv = d[src], d[dst]
    tight = np.isfinite(du) & (np.abs(du + np.asarray(graph.weights, dtype=np.float64) - dv)
                               <= FLOAT32_RTOL * np.maximum(np.abs(dv), 1.0) * (graph.dtype != np.int32))
    arcs = csr_matrix((np.ones(int(tight.sum())), (src[tight], dst[tight])), shape=(graph.n, graph.n))
    hops = csgraph.shortest_path(arcs, directed=True, unweighted=True, indices=source)
    return np.where(np.isfinite(hops), hops, -1).astype(np.int64)


class _RowCache:
    """Oracle rows of the most recent graphs, so that several methods (and figures) timed on
    one graph share one oracle run (an all-sources SciPy run at |V| = 4K takes seconds).
    Graphs are held weakly; the oldest graphs' rows go first beyond ``max_bytes``."""

    def __init__(self, max_bytes: int = 2 << 30):
        self.max_bytes = max_bytes
        self.entries = {}  # id(graph) -> [weakref, method, {source: row}]

    def _nbytes(self) -> int:
        return sum(len(e[2]) * e[2][next(iter(e[2]))].nbytes for e in self.entries.values() if e[2])

    def get(self, graph: Graph, method: str, idx: np.ndarray, compute) -> np.ndarray:
        import weakref
        if not len(idx):
            return np.empty((0, graph.n))
        entry = self.entries.pop(id(graph), None)
        if entry is None or entry[0]() is not graph or entry[1] != method:
            entry = [weakref.ref(graph), method, {}]
        self.entries[id(graph)] = entry  # most recent last
        rows = entry[2]
        missing = np.unique(idx[[int(s) not in rows for s in idx]])
        fresh = dict(zip(missing.tolist(), compute(missing))) if len(missing) else {}
        out = np.stack([fresh[int(s)] if int(s) in fresh else rows[int(s)] for s in idx])
        if len(fresh) * graph.n * 8 <= self.max_bytes:
            rows.update(fresh)
        for key in [k for k, e in self.entries.items() if e[0]() is None]:
            del self.entries[key]
        while len(self.entries) > 1 and self._nbytes() > self.max_bytes:
            del self.entries[next(iter(self.entries))]
        if self._nbytes() > self.max_bytes:
            rows.clear()
        return out


_ROWS = _RowCache()


def choose_rows(n_rows: int, limit: int = FULL_CHECK_MAX_N, sample: int = SAMPLED_ROWS,
                seed: int = 0) -> np.ndarray:
    """All row positions when ``n_rows <= limit``, else a seeded sorted sample."""
    if n_rows <= limit:
        return np.arange(n_rows)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n_rows, size=sample, replace=False))


def compare(got: np.ndarray, want: np.ndarray, float_dtype: bool, rtol: float | None = None) -> tuple[bool, float]:
    """(ok, max abs error over finite entries); the INF pattern must match exactly. The finite
    entries within ``rtol`` (relative, absolute below 1), by default FLOAT32_RTOL for a float
    dtype, else exact."""
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return False, float("inf")
    if np.isnan(got).any():
        return False, float("nan")
    fin_g, fin_w = np.isfinite(got), np.isfinite(want)
    if (fin_g != fin_w).any():
        return False, float("inf")
    if not fin_w.any():
        return True, 0.0
    err = np.abs(got[fin_w] - want[fin_w])
    max_err = float(err.max())
    rtol = (FLOAT32_RTOL if float_dtype else 0.0) if rtol is None else rtol
    if rtol:
        tol = rtol * np.maximum(1.0, np.abs(want[fin_w]))
        return bool((err <= tol).all()), max_err
    return max_err == 0.0, max_err


def verify(solution: Solution, graph: Graph, rows=None, seed: int = 0) -> dict:
    """Check a solution against the oracle; returns verified, max_error, verify_scope.

    ``rows`` are positions into ``solution.sources``; by default all of them up to
    FULL_CHECK_MAX_N, else SAMPLED_ROWS seeded ones. Predecessors, when present,
    are checked on the same rows.
    """
    k = len(solution.sources)
    rows = choose_rows(k, seed=seed) if rows is None else np.asarray(rows)
    want = distances(graph, solution.sources[rows])
    got = solution.rows(rows)
    ok, err = compare(got, want, graph.dtype != np.int32, rtol_for(graph.dtype))
    pred = solution.pred_rows(rows)
    if ok and pred is not None:
        ok = check_predecessors(graph, solution.sources[rows], pred, want)
    scope = f"all {k} rows" if len(rows) == k else f"{len(rows)} sampled of {k} rows"
    if pred is not None:
        scope += " + predecessors"
    return {"verified": bool(ok), "max_error": err, "verify_scope": scope}


def check_predecessors(graph: Graph, sources, pred, dist) -> bool:
    """Every reachable v != s has pred u with an arc u->v and dist[u] + w(u, v) == dist[v]."""
    pred = np.atleast_2d(pred)
    dist = np.atleast_2d(dist)
    tol = rtol_for(graph.dtype)
    for row, s in enumerate(np.atleast_1d(sources)):
        p, d = pred[row], dist[row]
        if p[s] != -1:
            return False
        reach = np.isfinite(d)
        reach[s] = False
        v = np.flatnonzero(reach)
        u = p[v].astype(np.int64)
        if ((u < 0) | (u >= graph.n)).any():
            return False
        found, w = arc_weights(graph, u, v)
        if not found.all():
            return False
        if (np.abs(d[u] + w - d[v]) > tol * np.maximum(1.0, np.abs(d[v]))).any():
            return False
    return True


def arc_weights(graph: Graph, u, v) -> tuple[np.ndarray, np.ndarray]:
    """(exists, weight) of arcs u[i] -> v[i], by binary search in the sorted CSR keys."""
    keys = graph.arc_keys
    q = np.asarray(u, dtype=np.int64) * graph.n + np.asarray(v, dtype=np.int64)
    if not len(keys):
        return np.zeros(len(q), dtype=bool), np.zeros(len(q))
    pos = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
    return keys[pos] == q, graph.weights[pos].astype(np.float64)
