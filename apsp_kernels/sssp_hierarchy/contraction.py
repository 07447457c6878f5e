"""A contraction hierarchy without witness searches, and the level order the sweeps follow.

Vertices are contracted by fewest arcs plus level (lazy heap): contracting ``v`` adds, for every
in-neighbour ``u`` and out-neighbour ``w`` still present, the shortcut ``u -> w`` weighing
``w(u, v) + w(v, w)`` (kept when lighter than the arc already there). Without witness searches
every path through ``v`` keeps a shortcut, so the hierarchy is exact for any non-negative
weights: each shortest path has an equally short one that climbs to its highest vertex and then
descends (Gaussian elimination in the (min,+) semiring). ``level[v]`` is one more than the
highest level among the neighbours contracted before ``v``; every arc joins two levels, so a
level's vertices are independent and each level is one parallel step of PHAST's sweeps (Delling,
Goldberg, Nowicki, Werneck, "PHAST: Hardware-accelerated shortest path trees", IPDPS 2011).
Host-side Python, once per graph (about 35 s for USA-road-d.NY: 1.9 M shortcuts, 397 levels).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

MAX_SHORTCUTS_PER_ARC = 8  # beyond this the graph is not road-like: contraction would not pay


@dataclass
class Hierarchy:
    """The graph renumbered by level (``order[new] = old``, ``rank[old] = new``), its arcs
    (original and shortcuts) as in-arc CSRs by target, split into arcs from lower levels (``up``,
    the upward sweep) and from higher ones (``down``), and ``level_ptr`` (a level's vertices are
    ``level_ptr[l] : level_ptr[l + 1]`` in the new numbering)."""

    order: np.ndarray
    rank: np.ndarray
    level_ptr: np.ndarray
    up: tuple        # (indptr, sources, weights) of the in-arcs from lower levels, new numbering
    down: tuple      # the same from higher levels
    shortcuts: int

    @property
    def levels(self) -> int:
        return len(self.level_ptr) - 1


def contract(graph, max_shortcuts_per_arc: int = MAX_SHORTCUTS_PER_ARC) -> Hierarchy:
    """The hierarchy of ``graph`` (non-negative weights); InputError when contraction would add
    more than ``max_shortcuts_per_arc`` shortcuts per arc (a graph far from road-like)."""
    n = graph.n
    graph.require_nonnegative("contraction hierarchy")
    src = np.asarray(graph.sources_of_arcs).tolist()
    dst = np.asarray(graph.indices).tolist()
    wts = np.asarray(graph.weights).tolist()
    out: list[dict] = [{} for _ in range(n)]
    inn: list[dict] = [{} for _ in range(n)]
    for a, b, w in zip(src, dst, wts):
        if a != b and w < out[a].get(b, np.inf):
            out[a][b] = w
            inn[b][a] = w
    limit = max_shortcuts_per_arc * max(graph.m, 1) + 1024
    level = [0] * n
    gone = [False] * n
    arcs_src, arcs_dst, arcs_w = [], [], []
    heap = [(_priority(v, out, inn, level), v) for v in range(n)]
    heapq.heapify(heap)
    shortcuts = 0
    while heap:
        degree, v = heapq.heappop(heap)
        if gone[v]:
            continue
        if degree != _priority(v, out, inn, level):
            heapq.heappush(heap, (_priority(v, out, inn, level), v))
            continue
        gone[v] = True
        ins, outs = inn[v], out[v]
        for u, wu in ins.items():  # the arcs of v are final now: emit them once
            arcs_src.append(u), arcs_dst.append(v), arcs_w.append(wu)
            del out[u][v]
        for x, wx in outs.items():
            arcs_src.append(v), arcs_dst.append(x), arcs_w.append(wx)
            del inn[x][v]
        for u, wu in ins.items():
            ou = out[u]
            for x, wx in outs.items():
                if x == u:
                    continue
                c = wu + wx
                old = ou.get(x)
                if old is None:
                    shortcuts += 1
                if old is None or c < old:
                    ou[x] = c
                    inn[x][u] = c
        if shortcuts > limit:
            raise InputError(f"contraction hierarchy: more than {max_shortcuts_per_arc} shortcuts per arc "
                             f"on {graph.name} (n = {n}, m = {graph.m}); it suits road-like graphs; use "
                             f"fast:sssp_worklist or okuyama's methods here")
        lv = level[v] + 1
        for x in set(ins) | set(outs):
            if lv > level[x]:
                level[x] = lv
            heapq.heappush(heap, (_priority(x, out, inn, level), x))
    return _by_level(n, np.asarray(level, dtype=np.int64), np.asarray(arcs_src, dtype=np.int64),
                     np.asarray(arcs_dst, dtype=np.int64), np.asarray(arcs_w, dtype=graph.dtype), shortcuts)


def _by_level(n, level, src, dst, w, shortcuts) -> Hierarchy:
    order = np.lexsort((np.arange(n), level))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    level_ptr = np.searchsorted(level[order], np.arange(int(level.max(initial=-1)) + 2))
    s, d = rank[src], rank[dst]
    upward = level[src] < level[dst]
    return Hierarchy(order=order.astype(np.int32), rank=rank.astype(np.int32),
                     level_ptr=level_ptr.astype(np.int32), up=_in_csr(n, s[upward], d[upward], w[upward]),
                     down=_in_csr(n, s[~upward], d[~upward], w[~upward]), shortcuts=int(shortcuts))


def _in_csr(n, s, d, w) -> tuple:
    by = np.lexsort((s, d))
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(d, minlength=n), out=indptr[1:])
    return indptr, s[by].astype(np.int32), w[by]


def sweep_on_host(h: Hierarchy, source: int, inf) -> np.ndarray:
    """PHAST's two sweeps level by level with NumPy (the GPU kernels' reference): distances from
    ``source`` in the original numbering, ``inf`` where unreachable."""
    n = len(h.order)
    d = np.full(n, inf, dtype=h.up[2].dtype)
    d[h.rank[source]] = 0
    for levels, (indptr, srcs, wts) in ((range(h.levels), h.up), (range(h.levels - 1, -1, -1), h.down)):
        for lv in levels:
            lo, hi = h.level_ptr[lv], h.level_ptr[lv + 1]
            a, b = indptr[lo], indptr[hi]
            if a == b:
                continue
            du = d[srcs[a:b]]
            cand = np.where(du < inf, du + wts[a:b], inf)
            owner = np.repeat(np.arange(lo, hi), np.diff(indptr[lo:hi + 1]))
            np.minimum.at(d, owner, cand.astype(d.dtype))
    return d[h.rank]


def _priority(v, out, inn, level) -> int:
    """Contract first the vertices with few arcs and a low level: the level term keeps the
    hierarchy shallow (USA-road-d.NY: 397 levels instead of 767; a path: 13 instead of n)."""
    return len(out[v]) + len(inn[v]) + level[v]
