"""Exact betweenness on the GPU: Brandes' accumulation over blocks of sources whose distance rows come
from batched PHAST (issue 46; Brandes 2001, Delling et al.'s PHAST for the rows).

Per block of sources: the int32 distance rows (:class:`~apsp_kernels.sssp_hierarchy.phast_batched.BatchedPhast`),
each row's vertices ordered by distance (one stable radix sort per chunk of rows on (row, distance) keys),
then ``brandes_gpu.cu``: path counts forward and dependencies backward over that order, a warp per
source, and the block's terms added to per-vertex (and per-arc) totals in source order. Every arc
weighs a whole number of at least 1, so the distance order is a topological order of each source's
shortest-path DAG and ties are exact: paths are counted as NetworkX counts them.

Path counts are float64 as NetworkX's (exact below ``2**53``). Totals are one sum per vertex in the
order the sources are given, so they do not depend on the block size; each source's dependencies
are summed in an order fixed by the graph and the source: the same bits every run. Memory: about
``28 n`` bytes per source of a block (rows, order, counts, dependencies, PHAST's working matrix) and
a sort of up to :data:`SORT_ROWS` rows at a time; blocks are as large as free memory allows.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import gpu
from ..errors import InputError
from ..graph import Graph
from ..inf import MAX_WEIGHT_INT32
from ..sssp_hierarchy.phast import MAX_MEAN_DEGREE
from ..sssp_hierarchy.phast_batched import K_CHOICES, MAX_COLUMNS, BatchedPhast

_CU = gpu.cu_path(__file__, "brandes_gpu.cu")
WARPS_PER_BLOCK = 8
SORT_ROWS = 2048  # rows sorted at once at most (their keys, indices and the sort's scratch: ~32 n bytes a row)
BYTES_PER_SOURCE_VERTEX = 28  # rows 4, order 4, counts 8, dependencies 8, PHAST's working matrix 4
MEMORY_SHARE = 0.85
MIN_N = 2048  # below this the host's numba Brandes is as quick (no hierarchy to contract)


def refusal(indptr, indices, weights) -> str | None:
    """Why the GPU kernel cannot take the CSR graph (``weights`` float64, None for every arc 1), or
    None when it can."""
    n, m = len(indptr) - 1, len(indices)
    if not gpu.available():
        return "no CUDA GPU on this machine"
    if weights is not None and m:
        if not np.array_equal(weights, np.floor(weights)) or float(weights.max()) > MAX_WEIGHT_INT32:
            return ("the weights are not whole numbers up to 2**30 (the GPU kernel finds equal-length paths "
                    "by exact int32 distances)")
        if float(weights.min()) < 1:
            return "some weight is 0 (equal-distance arcs need NetworkX's own Dijkstra order to count paths)"
    if m > MAX_MEAN_DEGREE * n:
        return f"not road-like ({m / max(n, 1):.1f} arcs per vertex, at most {MAX_MEAN_DEGREE:g} for the PHAST rows)"
    if n < MIN_N:
        return f"{n} vertices, under {MIN_N}: the host is as quick"
    return None


class DeviceAccumulator:
    """Raw (unscaled) betweenness of the vertices and, with ``edges``, of the arcs, summed over the
    sources given to :meth:`add` (the host :class:`.brandes.Accumulator`'s contract).

    ``indptr``, ``indices``, ``weights``: the graph's arcs as a CSR on the host (``weights`` whole
    numbers of at least 1, :func:`refusal`; None for every arc 1), in the order :meth:`arcs` returns
    them. PHAST's hierarchy of the graph is kept per graph content (:func:`.layout.hierarchy_of`).
    """

    def __init__(self, indptr, indices, weights, *, endpoints: bool, edges: bool, batch: int | None = None):
        cp = gpu.cupy()
        n, m = len(indptr) - 1, len(indices)
        w = np.ones(m, np.int32) if weights is None else np.asarray(weights).astype(np.int32)
        indptr, indices = np.asarray(indptr, np.int32), np.asarray(indices, np.int32)
        graph = Graph(n, indptr, indices, w, name="betweenness")
        out = sp.csr_array((w, indices, indptr), shape=(n, n))
        into = out.T.tocsr()
        into.sort_indices()
        self.n, self.m, self.endpoints = n, m, endpoints
        self.out_arcs = tuple(cp.asarray(x, dtype=cp.int32) for x in (out.indptr, out.indices, out.data))
        self.in_arcs = tuple(cp.asarray(x, dtype=cp.int32) for x in (into.indptr, into.indices, into.data))
        self.tails = cp.asarray(np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr)))
        mod = gpu.load_module(_CU)
        self.kernels = {name: mod.get_function(name) for name in
                        ("bc_finite_max", "bc_keys", "bc_forward", "bc_backward", "bc_vertex_sum", "bc_arc_sum")}
        self.sweeps = BatchedPhast(graph).setup()
        self.node_total = cp.zeros(n)
        self.edge_total = cp.zeros(m if edges else 0)
        self.top = 0.0
        self.batch = fitted_batch(n, gpu.free_bytes()) if batch is None else checked_batch(batch)

    def add(self, sources) -> None:
        """The dependencies of ``sources`` (vertex ids, host), in blocks of :attr:`batch`."""
        sources = np.asarray(sources, dtype=np.int64)
        for lo in range(0, len(sources), self.batch):
            self._block(sources[lo:lo + self.batch])

    def _block(self, sources: np.ndarray) -> None:
        cp = gpu.cupy()
        rows, n, i32 = len(sources), self.n, np.int32
        dist = cp.empty((rows, n), dtype=cp.int32)
        self.sweeps.run(sources, dist)
        self.sweeps.release()
        order = self._order(dist)
        ids = cp.asarray(sources, dtype=cp.int32)
        sigma, delta = cp.empty((rows, n)), cp.empty((rows, n))
        reached, top = cp.empty(rows, dtype=cp.int64), cp.empty(rows)
        k = self.kernels
        grid = (-(-rows // WARPS_PER_BLOCK),)
        block = (32 * WARPS_PER_BLOCK,)
        k["bc_forward"](grid, block, (*self.in_arcs, dist, order, ids, i32(rows), i32(n), sigma, reached, top))
        k["bc_backward"](grid, block, (*self.out_arcs, dist, order, reached, i32(rows), i32(n), sigma, delta))
        del order
        threads = 256
        k["bc_vertex_sum"]((-(-n // threads),), (threads,), (dist, delta, ids, reached, i32(rows), i32(n),
                                                            i32(self.endpoints), self.node_total))
        if self.edge_total.size:
            k["bc_arc_sum"]((-(-self.m // threads),), (threads,), (self.tails, self.out_arcs[1], self.out_arcs[2], dist,
                                                                   sigma, delta, i32(rows), i32(n), np.int64(self.m),
                                                                   self.edge_total))
        self.top = max(self.top, float(top.max()))

    def _order(self, dist):
        """Each row's vertices by distance (ties by id, the unreached last), int32 (rows, n)."""
        cp = gpu.cupy()
        rows, n = dist.shape
        largest = cp.zeros(1, dtype=cp.int32)
        self.kernels["bc_finite_max"]((1024,), (256,), (dist, np.int64(dist.size), largest))
        bits = (int(largest.get()[0]) + 1).bit_length()
        chunk = max(1, min(SORT_ROWS, rows, 1 << (32 - bits)))
        order = cp.empty((rows, n), dtype=cp.int32)
        for lo in range(0, rows, chunk):
            hi = min(rows, lo + chunk)
            keys = cp.empty((hi - lo) * n, dtype=cp.uint32)
            self.kernels["bc_keys"]((1024,), (256,), (dist[lo:hi], np.int32(hi - lo), np.int32(n), np.int32(bits), keys))
            idx = cp.argsort(keys)  # stable: equal distances stay in vertex order
            del keys
            cp.remainder(idx, n, out=idx)
            order[lo:hi] = idx.reshape(hi - lo, n)
            del idx
        return order

    def vertices(self) -> np.ndarray:
        return self.node_total.get()

    def take(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(vertices, arcs, largest path count) of the sources added since the last take; starts again from 0."""
        part = (self.vertices(), self.arcs(), self.largest_path_count)
        self.node_total.fill(0)
        self.edge_total.fill(0)
        self.top = 0.0
        return part

    def arcs(self) -> np.ndarray:
        return self.edge_total.get()

    @property
    def largest_path_count(self) -> float:
        return self.top


def fitted_batch(n: int, free: int) -> int:
    """Sources per block: as many as :data:`MEMORY_SHARE` of ``free`` device bytes hold (a multiple of
    PHAST's widest group), at most PHAST's :data:`MAX_COLUMNS`; InputError when not even one group fits."""
    group = max(K_CHOICES)
    sort = 32 * n * SORT_ROWS
    fits = int((MEMORY_SHARE * free - sort) // (BYTES_PER_SOURCE_VERTEX * n))
    fits = min(fits, MAX_COLUMNS) // group * group
    if fits < group:
        raise InputError(f"betweenness on the GPU: {group} sources of {n:,} vertices need about "
                         f"{BYTES_PER_SOURCE_VERTEX * n * group + sort:,} bytes, {free:,} are free")
    return fits


def checked_batch(batch) -> int:
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not 1 <= batch <= MAX_COLUMNS:
        raise InputError(f"betweenness on the GPU: batch must be a whole number of sources from 1 to {MAX_COLUMNS}, "
                         f"got {batch!r}")
    return int(batch)
