"""CPU baselines of okuyama §6 ("Dijkstra SSSP-based, CPU"): binary-heap Dijkstra per source.

* :class:`DijkstraAllCores`: the paper's method (a serial binary-heap Dijkstra per source,
  sources spread over all cores; they used OpenMP on 4 cores): numba ``prange`` over
  threads, each with its own indexed binary heap (decrease-key, O(|V|) memory per thread).
* :class:`DijkstraRustworkx`: rustworkx's parallel ``all_pairs_dijkstra_path_lengths``
  (Rust, rayon, all cores), when rustworkx is importable (an optional dependency). It
  always computes every source; its rows are converted to a matrix lazily, outside the
  timed region.
* :class:`DijkstraSciPy`: SciPy's ``csgraph.dijkstra`` on one thread (Fibonacci heap).

``stats`` report the threads used and the host's CPU count.
"""
from __future__ import annotations

import os

import numba
import numpy as np
from numba import prange
from scipy.sparse import csgraph

from ..errors import InputError
from ..inf import INF_INT32
from ..numba_cache import njit
from ..solver import Solution, Solver


# ---------------------------------------------------------------- indexed binary heap
@njit(cache=True, inline="always")
def _sift_up(heap, pos, key, i):
    v = heap[i]
    kv = key[v]
    while i > 0:
        parent = (i - 1) >> 1
        u = heap[parent]
        if key[u] <= kv:
            break
        heap[i] = u
        pos[u] = i
        i = parent
    heap[i] = v
    pos[v] = i


@njit(cache=True, inline="always")
def _sift_down(heap, pos, key, i, size):
    v = heap[i]
    kv = key[v]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and key[heap[child + 1]] < key[heap[child]]:
            child += 1
        u = heap[child]
        if key[u] >= kv:
            break
        heap[i] = u
        pos[u] = i
        i = child
    heap[i] = v
    pos[v] = i


@njit(cache=True)
def dijkstra_row(indptr, indices, weights, source, dist, heap, pos):
    """One SSSP into ``dist`` (int64, INF_INT32 for unreachable); heap/pos are scratch of size n."""
    n = dist.shape[0]
    for v in range(n):
        dist[v] = INF_INT32
        pos[v] = -1  # -1: never queued, -2: settled
    dist[source] = 0
    heap[0] = source
    pos[source] = 0
    size = 1
    while size > 0:
        u = heap[0]
        pos[u] = -2
        size -= 1
        if size > 0:
            heap[0] = heap[size]
            pos[heap[0]] = 0
            _sift_down(heap, pos, dist, 0, size)
        du = dist[u]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            nd = du + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                if pos[v] == -1:
                    heap[size] = v
                    pos[v] = size
                    size += 1
                _sift_up(heap, pos, dist, pos[v])


@njit(parallel=True, cache=True)
def dijkstra_rows_parallel(indptr, indices, weights, sources, out, threads):
    """out[i] = distances from sources[i] (int32, INF_INT32 sentinel); sources dealt round-robin."""
    n = out.shape[1]
    k = sources.shape[0]
    for t in prange(threads):
        dist = np.empty(n, dtype=np.int64)
        heap = np.empty(n, dtype=np.int32)
        pos = np.empty(n, dtype=np.int32)
        for i in range(t, k, threads):
            dijkstra_row(indptr, indices, weights, sources[i], dist, heap, pos)
            for v in range(n):
                out[i, v] = min(dist[v], INF_INT32)


def host_info() -> dict:
    return {"threads": int(numba.get_num_threads()), "cpu_count": int(os.cpu_count() or 1)}


class DijkstraAllCores(Solver):
    """okuyama's CPU method: binary-heap Dijkstra per source, sources over all cores (numba)."""

    on_gpu = False
    all_pairs = False  # the sources asked for

    def __init__(self, graph, sources=None, threads=None):
        super().__init__(graph, sources)
        if graph.dtype != np.int32:
            raise InputError(f"dijkstra_cpu takes int32 weights (okuyama's integer graphs), "
                             f"not {graph.dtype}")
        self.threads = threads
        self.stats = dict(host_info(), sssp=int(len(self.sources)), heap="indexed binary heap")

    def setup(self):
        g = self.graph
        self.indptr, self.indices = g.indptr, g.indices
        self.weights = g.weights.astype(np.int64)
        self.out = np.empty((len(self.sources), g.n), dtype=np.int32)
        if self.threads:
            numba.set_num_threads(int(self.threads))
        self.stats.update(host_info())
        # compile outside the timed region
        dijkstra_rows_parallel(self.indptr, self.indices, self.weights, self.sources[:1],
                               np.empty((min(1, len(self.sources)), g.n), dtype=np.int32),
                               numba.get_num_threads())

    def compute(self):
        dijkstra_rows_parallel(self.indptr, self.indices, self.weights, self.sources, self.out,
                               numba.get_num_threads())

    def solution(self) -> Solution:
        return Solution(self.out, self.sources, self.graph.n, stats=self.stats)


class DijkstraSciPy(Solver):
    """SciPy ``csgraph.dijkstra`` for the given sources on one thread."""

    on_gpu = False
    all_pairs = False  # the sources asked for

    def __init__(self, graph, sources=None):
        super().__init__(graph, sources)
        self.stats = {"threads": 1, "cpu_count": int(os.cpu_count() or 1),
                      "sssp": int(len(self.sources)), "heap": "Fibonacci heap (SciPy)"}

    def setup(self):
        self.csr = self.graph.to_scipy()

    def compute(self):
        self.out = np.atleast_2d(csgraph.dijkstra(self.csr, directed=True, indices=self.sources))

    def solution(self) -> Solution:
        return Solution(self.out, self.sources, self.graph.n, stats=self.stats)


def rustworkx_available() -> bool:
    try:
        import rustworkx  # noqa: F401
        return True
    except ImportError:
        return False


class _LazyRows:
    """Rows of rustworkx's all-pairs mapping, converted to float64 (inf) when indexed."""

    def __init__(self, lengths, n: int):
        self.lengths, self.n = lengths, n
        self.shape = (n, n)

    def _row(self, s: int) -> np.ndarray:
        row = np.full(self.n, np.inf)
        got = self.lengths[int(s)]
        if len(got):
            row[np.fromiter(got.keys(), dtype=np.int64, count=len(got))] = \
                np.fromiter(got.values(), dtype=np.float64, count=len(got))
        row[int(s)] = 0.0
        return row

    def __getitem__(self, key) -> np.ndarray:
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        ids = np.atleast_1d(np.arange(self.n)[rows])
        out = np.stack([self._row(s) for s in ids]) if len(ids) else np.empty((0, self.n))
        return out[:, cols]

    def __array__(self, dtype=None, copy=None):
        out = self[np.arange(self.n)]
        return out if dtype is None else out.astype(dtype)


class DijkstraRustworkx(Solver):
    """rustworkx ``all_pairs_dijkstra_path_lengths``: every source, all cores (rayon)."""

    on_gpu = False
    all_pairs = True

    def __init__(self, graph, sources=None):
        super().__init__(graph, sources)
        if not rustworkx_available():
            raise InputError("dijkstra_rustworkx needs the optional package rustworkx "
                             "(pip install rustworkx)")
        threads = os.environ.get("RAYON_NUM_THREADS") or os.cpu_count()
        self.stats = {"threads": int(threads), "cpu_count": int(os.cpu_count() or 1),
                      "sssp": graph.n, "heap": "binary heap (rustworkx, Rust)"}

    def setup(self):
        import rustworkx as rx
        g = self.graph
        self.rx = rx
        self.digraph = rx.PyDiGraph(multigraph=False)
        self.digraph.add_nodes_from(range(g.n))
        src = g.sources_of_arcs.tolist()
        self.digraph.add_edges_from(list(zip(src, g.indices.tolist(), g.weights.astype(float).tolist())))

    def compute(self):
        self.lengths = self.rx.all_pairs_dijkstra_path_lengths(self.digraph, float)

    def solution(self) -> Solution:
        return Solution(_LazyRows(self.lengths, self.graph.n), self.sources, self.graph.n,
                        stats=self.stats, by_vertex=True)
