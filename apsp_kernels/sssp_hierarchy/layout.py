"""The hierarchy laid out for batched sweeps, and the NumPy reference of those sweeps.

Batched PHAST (Delling, Goldberg, Nowatzyk, Werneck, IPDPS 2011 / JPDC 2013, Sec. 4-5): the
vertices are numbered by level (:mod:`.contraction`), so a level is a contiguous range and its
in-arcs a contiguous slice of the CSR; the downward sweep reads the arcs in order, and each of K
trees keeps one column of a vertex-major (n x K) distance matrix. A source's upward search is
the set of vertices it reaches over upward arcs (stamped, level by level) with their distances;
the downward sweep then gives every vertex, from the top level down, the minimum of its upward
distance and its higher in-neighbours' distances plus the arc.

:func:`batched_sweeps_on_host` is that algorithm with NumPy, group by group, with the working
matrix starting from garbage as the GPU's reused one does (``phast_batched.cu``): it is the
kernels' reference, tested against SciPy's Dijkstra.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import host_cpu
from ..errors import InputError
from ..graph import Graph
from .contraction import Hierarchy, compile_for, contract

HIERARCHY_KEY = "_phast_hierarchy"  # kept in the Graph's __dict__: pickled with it to every worker


@dataclass
class SweepLayout:
    """Host arrays of the sweeps: ``up`` and ``down`` in-arc CSRs (by target, sources sorted),
    ``up_out`` (indptr, targets) the upward arcs by source, for stamping the upward search."""

    n: int
    level_ptr: np.ndarray
    rank: np.ndarray
    up: tuple
    up_out: tuple
    down: tuple
    shortcuts: int

    @property
    def levels(self) -> int:
        return len(self.level_ptr) - 1

    @property
    def nbytes(self) -> int:
        arrays = (self.level_ptr, self.rank, *self.up, *self.up_out, *self.down)
        return int(sum(a.nbytes for a in arrays))

    def down_bytes(self) -> int:
        """Bytes of the downward graph one sweep reads (indptr, sources, weights)."""
        return int(sum(a.nbytes for a in self.down))


def host_graph(graph: Graph) -> Graph:
    """``graph`` with host arrays (a worker's device copy is brought back once, for contracting)."""
    if not graph.on_device:
        return graph
    return Graph(graph.n, graph.indptr.get(), graph.indices.get(), graph.weights.get(), name=graph.name,
                 meta=dict(graph.meta))


def hierarchy_of(graph: Graph) -> tuple[Hierarchy, float]:
    """The graph's hierarchy, contracted once and kept on the Graph (so that a Graph pickled to
    Dask workers carries it), and the seconds contracting took now (0 when it was there; numba's
    compilation, once per process, is not in them: :func:`.contraction.compile_seconds`)."""
    h = graph.__dict__.get(HIERARCHY_KEY)
    if h is not None:
        return h, 0.0
    host = host_graph(graph)
    with host_cpu.exclusive():  # a host-clock timing: notebooks beside it wait (none: no-op)
        compile_for(host.dtype)
        start = time.perf_counter()
        h = contract(host)
        seconds = time.perf_counter() - start
    graph.__dict__[HIERARCHY_KEY] = h
    return h, seconds


def out_csr(n: int, indptr: np.ndarray, srcs: np.ndarray) -> tuple:
    """An in-arc CSR by target turned into (indptr, targets) by source."""
    owner = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    by = np.argsort(srcs, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(srcs, minlength=n), out=ptr[1:])
    return ptr, owner[by]


def layout(h: Hierarchy) -> SweepLayout:
    n = len(h.order)
    return SweepLayout(n, h.level_ptr, h.rank, h.up, out_csr(n, h.up[0], h.up[1]), h.down, h.shortcuts)


def first_top_level(level_ptr: np.ndarray, top_level_max: int) -> int:
    """The lowest level from which every level above holds at most ``top_level_max`` vertices
    (those run inside one block per group; the levels below, one launch each)."""
    sizes = np.diff(np.asarray(level_ptr))
    big = np.flatnonzero(sizes > top_level_max)
    return int(big[-1]) + 1 if len(big) else 0


def top_level_shape(lay: SweepLayout, top_level_max: int) -> dict:
    """How much of the downward sweep runs in the top levels (inside one block per group, a
    barrier per level): their count, vertices and downward arcs, and the sum over them of each
    level's largest in-degree, the arcs a block reads one after another at the least."""
    ptr = np.asarray(lay.level_ptr, dtype=np.int64)
    first = first_top_level(ptr, top_level_max)
    indptr = np.asarray(lay.down[0], dtype=np.int64)
    arcs = indptr[ptr[1:]] - indptr[ptr[:-1]]
    degree = np.diff(indptr)
    top = range(first, lay.levels)
    widest = sum(int(degree[ptr[lv]:ptr[lv + 1]].max(initial=0)) for lv in top)
    total = int(arcs.sum())
    return {"top_levels": len(top), "top_vertices": int(lay.n - ptr[first]),
            "top_down_arcs": int(arcs[first:].sum()), "top_down_arcs_share": float(arcs[first:].sum() / max(total, 1)),
            "top_widest_in_degree_sum": widest}


def padded_sources(rank: np.ndarray, sources: np.ndarray, k: int) -> np.ndarray:
    """The sources' ranks, padded with -1 to a multiple of ``k`` (one group of k per block)."""
    count = len(sources)
    out = np.full(max(1, -(-count // k)) * k, -1, dtype=np.int32)
    out[:count] = rank[np.asarray(sources, dtype=np.int64)]
    return out


def batched_sweeps_on_host(lay: SweepLayout, sources, k: int, inf) -> np.ndarray:
    """Rows (len(sources), n) in the graph's numbering, ``inf`` where unreachable: the GPU's
    algorithm group by group (upward search by stamps, then the K-wide downward sweep)."""
    if k < 1:
        raise InputError(f"batched_sweeps_on_host: k must be positive, got {k}")
    n, ptr = lay.n, lay.level_ptr
    ranks = padded_sources(lay.rank, np.asarray(sources), k)
    dtype = lay.down[2].dtype
    wide = np.int64 if np.issubdtype(dtype, np.integer) else np.float64
    rows = np.empty((len(ranks), n), dtype=dtype)
    up_ptr, up_src, up_w = lay.up
    out_ptr, out_dst = lay.up_out
    dn_ptr, dn_src, dn_w = lay.down
    for g0 in range(0, len(ranks), k):
        group = ranks[g0:g0 + k]
        d = np.zeros((n, k), dtype=dtype)  # garbage: a sweep must never read what it did not write
        stamped = np.zeros(n, dtype=bool)
        stamped[group[group >= 0]] = True
        for lv in range(lay.levels):
            for v in range(ptr[lv], ptr[lv + 1]):
                if not stamped[v]:
                    continue
                best = np.where(group == v, 0, inf).astype(wide)
                arcs = np.arange(up_ptr[v], up_ptr[v + 1])
                arcs = arcs[stamped[up_src[arcs]]]
                if len(arcs):
                    best = np.minimum(best, _relaxed(d[up_src[arcs]], up_w[arcs], inf, wide).min(axis=0))
                d[v] = best
                stamped[out_dst[out_ptr[v]:out_ptr[v + 1]]] = True
        for lv in range(lay.levels - 1, -1, -1):
            lo, hi = ptr[lv], ptr[lv + 1]
            start = np.where(stamped[lo:hi, None], d[lo:hi], inf).astype(wide)
            a, b = dn_ptr[lo], dn_ptr[hi]
            if a < b:
                owner = np.repeat(np.arange(hi - lo), np.diff(dn_ptr[lo:hi + 1]))
                np.minimum.at(start, owner, _relaxed(d[dn_src[a:b]], dn_w[a:b], inf, wide))
            d[lo:hi] = start.astype(dtype)
        rows[g0:g0 + k] = d[lay.rank].T
    return rows[:len(sources)]


def _relaxed(du: np.ndarray, w: np.ndarray, inf, wide) -> np.ndarray:
    """d(u) + w per arc and column, ``inf`` where d(u) is (no overflow, as add_min on the GPU)."""
    du = du.astype(wide)
    return np.where(du >= inf, inf, du + np.asarray(w, dtype=wide)[:, None])
