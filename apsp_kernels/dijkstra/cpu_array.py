"""Array-based O(N²) Dijkstra on the dense adjacency matrix, serial and thread-parallel (numba).

liu, Fig. 1 ("serial SSSP" and "OpenMP SSSP") and Fig. 4 (OpenMP speedup). Each of the N
steps scans the distance array for the closest unvisited vertex (extract-min) and then
relaxes every entry of that vertex's matrix row; no priority queue, so the time is
O(N²) whatever the density, as in the paper. The parallel version splits both loops
into one contiguous chunk per thread: each thread finds the minimum of its chunk, the
chunk minima are combined in order (the paper's critical section), and each thread
relaxes its own chunk (no two threads write the same entry). Both versions pick the
lowest-index vertex among equal distances, so they return identical parents.

The adjacency matrix uses the project's INF convention for missing arcs (not the
paper's 0), so ``dist[u] + a[u, v]`` needs no "is there an edge" test.
"""
from __future__ import annotations

import mmap
import os
import weakref

import numba
import numpy as np
from numba import prange

from ..errors import InputError
from ..host import host_available_bytes, max_threads, numba_threads
from ..numba_cache import njit
from ..solver import Solution, Solver

HOST_HEADROOM = 0.8  # fraction of available host memory one adjacency matrix may take


class HostMemoryError(MemoryError):
    """A host allocation (the N x N adjacency matrix) that would not fit in available RAM."""


def host_fits(nbytes: int) -> bool:
    avail = host_available_bytes()
    return avail is None or nbytes <= HOST_HEADROOM * avail


def require_host_memory(nbytes: int, what: str) -> None:
    """Raise HostMemoryError before allocating ``nbytes`` that would not fit."""
    avail = host_available_bytes()
    if avail is not None and nbytes > HOST_HEADROOM * avail:
        raise HostMemoryError(f"{what} needs {nbytes / 2**30:.2f} GiB of host memory but only "
                              f"{avail / 2**30:.2f} GiB is available ({HOST_HEADROOM:.0%} may be used); "
                              f"use a smaller graph or a machine with more RAM")


# --------------------------------------------------------------- adjacency matrix
@njit(parallel=True, cache=True)
def _fill_dense(indptr, indices, weights, inf, out):
    n = out.shape[0]
    for u in prange(n):
        row = out[u]
        row[:] = inf
        for e in range(indptr[u], indptr[u + 1]):
            row[indices[e]] = weights[e]
        row[u] = 0


# One N x N buffer is kept and refilled for the next graph of the same size and dtype:
# first-touch page faults on gigabytes of fresh memory cost more than the fill itself.
_BUFFER = {"key": None, "graph": None, "matrix": None}


def adjacency_matrix(graph) -> np.ndarray:
    """The graph's N x N matrix (INF off-edge, 0 diagonal), built in parallel.

    The matrix stays cached for ``graph`` and its buffer is reused by the next graph of
    the same size; host memory is checked first (:class:`HostMemoryError`). Free it with
    :func:`release_adjacency`.
    """
    if _BUFFER["graph"] is not None and _BUFFER["graph"]() is graph:
        return _BUFFER["matrix"]
    key = (graph.n, graph.dtype)
    if _BUFFER["key"] != key:
        release_adjacency()
        require_host_memory(graph.dense_nbytes(),
                            f"the {graph.n}x{graph.n} adjacency matrix of {graph.name}")
        _BUFFER.update(key=key, matrix=_huge_page_matrix(graph.n, graph.dtype))
    dense = _BUFFER["matrix"]
    _BUFFER["graph"] = None  # invalid while it is refilled
    with numba_threads(max_threads()):
        _fill_dense(graph.indptr, graph.indices, graph.weights, graph.dtype.type(graph.inf), dense)
    _BUFFER["graph"] = weakref.ref(graph)
    return dense


def _huge_page_matrix(n: int, dtype) -> np.ndarray:
    """An uninitialised n x n array on anonymous memory advised to use transparent huge pages.

    With 4 KiB pages, first touch of a 6.4 GB matrix costs ~1.6 M page faults (seconds to
    tens of seconds in a VM); 2 MiB pages cut that 500-fold. Falls back to ``np.empty``.
    """
    dtype = np.dtype(dtype)
    try:
        buf = mmap.mmap(-1, max(1, n * n * dtype.itemsize), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            buf.madvise(mmap.MADV_HUGEPAGE)
        return np.frombuffer(buf, dtype=dtype, count=n * n).reshape(n, n)
    except (OSError, ValueError, AttributeError):
        return np.empty((n, n), dtype=dtype)


def release_adjacency() -> None:
    """Free the cached adjacency matrix (N² host memory)."""
    _BUFFER.update(key=None, graph=None, matrix=None)


# --------------------------------------------------------------------- kernels
# Both kernels fuse the relaxation of step k with the extract-min scan of step k+1 into
# one pass over the arrays (the same comparisons as the paper's two loops, one sweep
# and, in parallel, one fork/join per step instead of two).
@njit(cache=True)
def dijkstra_dense_serial(a, s, inf, dist, parent, visited):
    """One thread: relax the row of the last extracted vertex and find the next minimum."""
    n = a.shape[0]
    for v in range(n):
        dist[v] = inf
        parent[v] = -1
        visited[v] = False
    dist[s] = 0
    visited[s] = True
    u = s
    du = dist[s]
    for _ in range(n - 1):
        row = a[u]
        best = inf
        nxt = -1
        for v in range(n):
            if not visited[v]:
                nd = du + row[v]
                if nd < dist[v]:
                    dist[v] = nd
                    parent[v] = u
                if dist[v] < best:
                    best = dist[v]
                    nxt = v
        if nxt < 0:
            break  # everything left is unreachable
        visited[nxt] = True
        u = nxt
        du = best


@njit(parallel=True, cache=True)
def dijkstra_dense_parallel(a, s, inf, dist, parent, visited, nchunks):
    """The same step with the vertex range split into ``nchunks`` contiguous chunks (threads)."""
    n = a.shape[0]
    chunk = (n + nchunks - 1) // nchunks
    chunk_val = np.empty(nchunks, dtype=dist.dtype)
    chunk_idx = np.empty(nchunks, dtype=np.int64)
    for v in prange(n):
        dist[v] = inf
        parent[v] = -1
        visited[v] = False
    dist[s] = 0
    visited[s] = True
    u = s
    du = dist[s]
    for _ in range(n - 1):
        row = a[u]
        for t in prange(nchunks):
            lo = t * chunk
            hi = min(n, lo + chunk)
            b = inf
            bi = -1
            for v in range(lo, hi):
                if not visited[v]:
                    nd = du + row[v]
                    if nd < dist[v]:
                        dist[v] = nd
                        parent[v] = u
                    if dist[v] < b:
                        b = dist[v]
                        bi = v
            chunk_val[t] = b
            chunk_idx[t] = bi
        best = inf
        nxt = -1
        for t in range(nchunks):  # the critical section: chunk order, so the lowest index wins ties
            if chunk_idx[t] >= 0 and chunk_val[t] < best:
                best = chunk_val[t]
                nxt = chunk_idx[t]
        if nxt < 0:
            break
        visited[nxt] = True
        u = nxt
        du = best


# --------------------------------------------------------------------- solvers
class DijkstraArraySerial(Solver):
    """liu Fig. 1 serial SSSP: array Dijkstra on the adjacency matrix, one thread, parents."""

    on_gpu = False
    all_pairs = False
    vertex_0_by_default = True

    def __init__(self, graph, sources=None):
        super().__init__(graph, sources=sources)
        if len(self.sources) != 1:
            raise InputError(f"{type(self).__name__} is single-source; got {len(self.sources)} sources")
        self.source = int(self.sources[0])
        self.stats = {"source": self.source, "threads": 1}

    def setup(self):
        self.a = adjacency_matrix(self.graph)
        n = self.graph.n
        self.inf = self.graph.dtype.type(self.graph.inf)
        self.dist = np.empty(n, dtype=self.graph.dtype)
        self.parent = np.empty(n, dtype=np.int32)
        self.visited = np.empty(n, dtype=np.bool_)
        self._warm_up()

    def _warm_up(self):
        """Compile outside the timed region (numba caches to disk after the first run)."""
        a = np.zeros((2, 2), dtype=self.graph.dtype)
        self._run(a, 0, np.empty(2, dtype=self.graph.dtype), np.empty(2, dtype=np.int32),
                  np.empty(2, dtype=np.bool_))

    def reset(self):
        # the shared buffer may have been refilled for another graph since setup (cheap check)
        self.a = adjacency_matrix(self.graph)

    def _run(self, a, s, dist, parent, visited):
        dijkstra_dense_serial(a, s, self.inf, dist, parent, visited)

    def compute(self):
        self._run(self.a, self.source, self.dist, self.parent, self.visited)

    def solution(self) -> Solution:
        return Solution(self.dist[None, :], self.sources, self.graph.n,
                        pred=self.parent[None, :], stats=self.stats)


class DijkstraArrayParallel(DijkstraArraySerial):
    """liu Fig. 1 OpenMP SSSP: the same with extract-min and relaxation split over ``threads``.

    ``threads=None``: the paper's 4, or every core where there are fewer.
    """

    def __init__(self, graph, sources=None, threads=None):
        super().__init__(graph, sources)
        threads = min(4, max_threads()) if threads is None else int(threads)
        if not 1 <= threads <= max_threads():
            raise InputError(f"{type(self).__name__}: threads must be in [1, {max_threads()}] "
                             f"(usable cores, NUMBA_NUM_THREADS) on this machine, got {threads}")
        self.threads = threads
        self.stats = {"source": self.source, "threads": threads, "cpu_count": os.cpu_count()}

    def _run(self, a, s, dist, parent, visited):
        with numba_threads(self.threads):
            dijkstra_dense_parallel(a, s, self.inf, dist, parent, visited, self.threads)

    def _warm_up(self):
        super()._warm_up()
        try:
            self.stats["threading_layer"] = numba.threading_layer()
        except ValueError:
            pass
