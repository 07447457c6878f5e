"""Distance rows and shortest-path trees of an :class:`ArcGraph` from
:func:`apsp_kernels.shortest_path`, and NetworkX's dicts made from them.

A tree comes from the library's predecessors (``return_predecessors=True``); several sources
share one search from an added vertex with a zero-weight arc to each. Where two paths tie,
the tree's path may differ from the one NetworkX's own search returns (both are shortest).
A negative cycle counts only where a source reaches it, as in NetworkX.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from ..csgraph import shortest_path
from ..errors import NegativeCycleError
from .arcs import ArcGraph

BLOCK_BYTES = 1 << 30  # float64 distance rows computed per call of the all_pairs_* functions


def _dtype():
    """float32 when the user opted in (``nx.config.backends.apsp_kernels.float32``), else the
    library's contract: float64 for float weights, exact for whole numbers."""
    return np.float32 if nx.config.backends.apsp_kernels.get("float32") else None


def _shortest(g: ArcGraph, a, sources, predecessors=False):
    if not a.shape[0]:
        empty = np.zeros((0, 0))
        return (empty, empty.astype(np.int32)) if predecessors else empty
    out = shortest_path(a, indices=sources, return_predecessors=predecessors, dtype=_dtype())
    if predecessors:
        return np.atleast_2d(out[0]), np.atleast_2d(out[1])
    return np.atleast_2d(out)


def _with_root(a, sources):
    """``a`` with a vertex ``n`` added that has a zero-weight arc to each of ``sources``."""
    n = a.shape[0]
    k = len(sources)
    root = sp.csr_array((np.zeros(k), (np.zeros(k, np.int64), np.asarray(sources, np.int64))),
                        shape=(1, n + 1))
    return sp.vstack([sp.hstack([a, sp.csr_array((n, 1))]), root], format="csr")


def tree(g: ArcGraph, sources, predecessors=True):
    """(distances, predecessors) from the nearest of ``sources``: float64 with inf, and int
    with -1 at the sources and where unreached. NetworkXUnbounded if a source reaches a
    negative cycle."""
    sources = list(dict.fromkeys(sources))
    a = g.matrix()
    reach = None
    if g.negative:  # restrict to what the sources reach: cycles elsewhere do not count
        reach = np.unique(np.concatenate([breadth_first_order(a, s, return_predecessors=False)
                                          for s in sources]))
        a = a[reach][:, reach]
        sources = np.searchsorted(reach, sources).tolist()
    m = a.shape[0]
    root = len(sources) > 1
    if root:
        a = _with_root(a, sources)
    try:
        out = _shortest(g, a, [m] if root else sources, predecessors)
    except NegativeCycleError:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    dist, pred = (out[0][0], out[1][0]) if predecessors else (out[0], None)
    dist = dist[:m]
    if pred is not None:
        pred = pred[:m].astype(np.int64)
        pred[(pred < 0) | (pred == m)] = -1
        pred[sources] = -1
    if reach is not None:
        full = np.full(len(g), np.inf)
        full[reach] = dist
        dist = full
        if pred is not None:
            p = np.full(len(g), -1, np.int64)
            p[reach] = np.where(pred >= 0, reach[np.maximum(pred, 0)], -1)
            pred = p
    return dist, pred


def row(g: ArcGraph, i: int) -> np.ndarray:
    return tree(g, [i], predecessors=False)[0]


def rows(g: ArcGraph):
    """(vertex, distance row) for every vertex in order, computed in blocks of sources; a
    negative cycle raises NetworkXUnbounded at the first source that reaches it."""
    a = g.matrix()
    step = max(1, BLOCK_BYTES // (8 * max(len(g), 1)))
    for start in range(0, len(g), step):
        block = list(range(start, min(start + step, len(g))))
        try:
            found = _shortest(g, a, block)
        except NegativeCycleError:
            found = (row(g, i) for i in block)
        yield from zip(block, found)


# ----------------------------------------------------------------------------- NetworkX's dicts
def reached(row, keep=None) -> np.ndarray:
    """Indices of the finite entries of ``row`` (where ``keep``), nearest first, ties by index."""
    hit = np.isfinite(row) if keep is None else np.isfinite(row) & keep
    idx = np.flatnonzero(hit)
    return idx[np.lexsort((idx, row[idx]))]


NX_ORDER_ROUNDS = 8  # refinements of NetworkX's order over all ties at once (see nx_dijkstra)


def nx_dijkstra(g: ArcGraph, dist, sources, keep=None):
    """(order, parent): the reached vertices in the order NetworkX's Dijkstra settles them (the
    key order of its dicts) and the tree it builds its paths on (-1 at the sources), from the
    final distances; None where they cannot be told apart that way (then the library's own
    order and tree stand).

    NetworkX pops (distance, push count): a vertex's last push is made by the first settled
    tight in-arc, in settling order and then in G's adjacency order (``g.pos``); that arc's tail
    is its path's parent. Settling ranks thus decide ties among nearer vertices only, so sorting
    by (distance, parent's rank, adjacency place) from any first guess reaches NetworkX's order
    in as many rounds as ties chain (one on a road graph); past NX_ORDER_ROUNDS, or at once
    where groups of equal distance are few and large (equal weights: breadth-first levels), one
    group after the other, nearest first. None with
    zero-weight arcs (ties inside one distance), without ``g.pos``, or where a rounded float
    distance has no tight arc into it."""
    if g.pos is None:
        return None
    n = len(dist)
    sources = list(dict.fromkeys(sources))  # NetworkX settles a repeated source at its first push
    ok = np.isfinite(dist) if keep is None else np.isfinite(dist) & keep
    ok[sources] = True  # settled before any cutoff is read
    src, dst, w, pos = g.src, g.dst, g.w, g.pos
    arc = ok[src] & ok[dst] & (src != dst)
    if (w[arc] == 0).any():
        return None
    is_source = np.zeros(n, bool)
    is_source[sources] = True
    arc &= (dist[src] + w == dist[dst]) & ~is_source[dst]
    ts, td, tp = src[arc], dst[arc], pos[arc]
    tight = np.bincount(td, minlength=n)
    if (ok & ~is_source & (tight == 0)).any():
        return None
    parent = np.full(n, -1, np.int64)
    third = np.zeros(n, np.int64)  # the parent arc's adjacency place; a source's place in sources
    third[sources] = np.arange(len(sources))
    parent[td], third[td] = ts, tp  # right where one arc is tight; the others are chosen below
    many = tight[td] > 1
    ms, md, mp = ts[many], td[many], tp[many]
    reached = np.flatnonzero(ok)
    order = reached[np.lexsort((third[reached], dist[reached]))]
    d = dist[order]
    tied = np.r_[d[1:] == d[:-1], False] | np.r_[False, d[1:] == d[:-1]]
    at = np.flatnonzero(tied)  # places in ``order`` of the vertices that tie with another
    group = np.cumsum(np.r_[True, d[1:] != d[:-1]])[at]
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(order.size)

    def choose(arcs):  # each head's parent: the tight arc settled first, then first in adjacency
        first = arcs[np.lexsort((mp[arcs], rank[ms[arcs]], md[arcs]))]
        head = first[np.r_[True, md[first][1:] != md[first][:-1]]] if first.size else first
        parent[md[head]], third[md[head]] = ms[head], mp[head]

    def settle(places, groups):  # NetworkX's order within each group of equal distance
        v = order[places]
        second = np.where(is_source[v], -1, rank[parent[v]])
        new = v[np.lexsort((third[v], second, groups))]
        order[places] = new
        rank[new] = places
        return not np.array_equal(new, v)

    every = np.arange(md.size)
    groups = int(group[-1] - group[0]) + 1 if at.size else 0
    rounds = NX_ORDER_ROUNDS if groups * 256 > at.size else 0  # few large groups: by groups
    for _ in range(rounds):  # all ties at once: as many rounds as ties chain
        choose(every)
        if not settle(at, group):
            return order, parent
    # ties chain further (equal weights): one group after the other, nearest first
    bounds = np.flatnonzero(np.r_[True, group[1:] != group[:-1], True]) if at.size else np.zeros(1, int)
    member = np.full(n, -1, np.int64)
    member[order[at]] = group
    by_group = np.argsort(member[md], kind="stable")
    keys = member[md][by_group]
    cuts = np.searchsorted(keys, group[bounds[:-1]])
    ends = np.searchsorted(keys, group[bounds[:-1]], side="right")
    for a, b, c, e in zip(bounds[:-1].tolist(), bounds[1:].tolist(), cuts.tolist(), ends.tolist()):
        choose(by_group[c:e])
        settle(at[a:b], group[a:b])
    choose(every)
    return order, parent


def nx_lengths(g: ArcGraph, dist, sources, keep=None) -> dict:
    """{node: length} in NetworkX's order where it can be told (:func:`nx_dijkstra`), else
    nearest first (:func:`lengths`)."""
    found = nx_dijkstra(g, dist, sources, keep)
    if found is None:
        return lengths(g, dist, sources, keep)
    return lengths_in_order(g, dist, found[0], sources)


def lengths_in_order(g: ArcGraph, dist, order, sources) -> dict:
    """{node: length} in ``order`` (the sources as the int 0, as NetworkX's searches give)."""
    values = dist[order].astype(np.int64) if g.integral else dist[order]
    out = dict(zip(map(g.nodes.__getitem__, order.tolist()), values.tolist()))
    for s in sources:
        out[g.nodes[s]] = 0
    return out


def lengths(g: ArcGraph, row, sources=(), keep=None) -> dict:
    """{node: length} nearest first (the sources first, as the int 0)."""
    idx = reached(row, keep)
    idx = idx[~np.isin(idx, list(sources))]
    values = row[idx].astype(np.int64) if g.integral else row[idx]
    out = {g.nodes[s]: 0 for s in sources}
    out.update(zip([g.nodes[j] for j in idx.tolist()], values.tolist()))
    return out


def paths(g: ArcGraph, pred, targets, reverse=False) -> dict:
    """{node: path} along the tree ``pred`` for each vertex in ``targets``, in ``targets``' order
    (``reverse``: the paths turned around, for searches on the reversed graph)."""
    nodes = g.nodes
    built = tree_paths(pred, nodes, targets)
    keys = map(nodes.__getitem__, targets)
    if reverse:
        return {k: built[t][::-1] for k, t in zip(keys, targets)}
    return dict(zip(keys, map(built.__getitem__, targets)))


def depths(pred) -> np.ndarray:
    """Each vertex's number of arcs from its root in the forest ``pred`` (-1 at a root), by
    pointer doubling: log2 of the deepest path in NumPy passes."""
    pred = np.asarray(pred, np.int64)
    up = pred.copy()
    depth = (up >= 0).astype(np.int64)
    while (live := np.flatnonzero(up >= 0)).size:
        above = up[live]
        depth[live] += depth[above]
        up[live] = up[above]
    return depth


def tree_paths(pred, labels, targets) -> list:
    """A list indexed by vertex: the labels on the tree path from its root to each vertex of
    ``targets`` and of their ancestors (None elsewhere). Parents come before their children
    (ordered by depth), so each path is its parent's path plus one label: one list copy per
    vertex, no walk up the tree."""
    pred = np.asarray(pred, np.int64)
    need = np.zeros(len(pred), bool)
    new = np.asarray(targets, np.int64)
    while new.size:  # the targets and every ancestor (usually the targets already hold them)
        need[new] = True
        up = pred[new]
        up = up[up >= 0]
        new = np.unique(up[~need[up]])
    idx = np.flatnonzero(need)
    idx = idx[np.argsort(depths(pred)[idx], kind="stable")]
    parent = pred[idx]
    built = [None] * len(pred)
    roots = parent < 0
    for v in idx[roots].tolist():
        built[v] = [labels[v]]
    with _gc_paused():
        for v, p in zip(idx[~roots].tolist(), parent[~roots].tolist()):
            built[v] = built[p] + [labels[v]]
    return built


@contextmanager
def _gc_paused():
    """No cyclic garbage collection while many lists are made: each collection would walk every
    path made so far (on a road graph's tree, 3x the time of making them). The collector's state
    is restored after; nothing else of the program's is touched."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def path_to(g: ArcGraph, pred, i: int, j: int) -> list:
    path = [g.nodes[j]]
    while j != i:
        j = pred[j]
        path.append(g.nodes[j])
    return path[::-1]


def all_predecessors(g: ArcGraph, dist, sources, keep=None, levels=False) -> dict:
    """{node: [u for every tight arc u -> node]} for the reached vertices, each list nearest
    predecessor first: NetworkX's ``pred`` dicts. As NetworkX's Dijkstra and Bellman-Ford, a
    zero-weight arc back into a source and a zero-weight self loop count; breadth-first
    ``levels`` count neither (a source is at level 0)."""
    src, dst, w = g.src, g.dst, g.w.astype(np.float64)
    ok = np.isfinite(dist) if keep is None else np.isfinite(dist) & keep
    tight = ok[src] & ok[dst] & (dist[src] + w == dist[dst])
    if levels:
        tight &= (src != dst) & ~np.isin(dst, list(sources))
    s, d = src[tight], dst[tight]
    order = np.lexsort((s, dist[s], d))
    out = {g.nodes[v]: [] for v in sources}
    for v in reached(dist, ok).tolist():
        out.setdefault(g.nodes[v], [])
    nodes = g.nodes
    for u, v in zip(s[order].tolist(), d[order].tolist()):
        out[nodes[v]].append(nodes[u])
    return out


def within(cutoff):
    """Dijkstra's cutoff: lengths <= cutoff."""
    return lambda row: None if cutoff is None else row <= cutoff


def levels(cutoff):
    """Breadth-first search's cutoff: it expands level l - 1 while cutoff > l - 1."""
    return lambda row: None if cutoff is None else row - 1 < cutoff


def to_target(g: ArcGraph, dist, source, target, message="Node {target} not reachable from {source}"):
    j = g.index.get(target) if target in g else None
    if j is None or not np.isfinite(dist[j]):
        raise nx.NetworkXNoPath(message.format(source=source, target=target))
    return j


def all_pairs(g: ArcGraph, loops=True, predecessors=False):
    """(distances, predecessors or None) for every pair: n x n, predecessors -1 where none."""
    out = _shortest(g, g.matrix(loops), None, predecessors)
    if not predecessors:
        return out, None
    dist, pred = out
    return dist, np.where(pred < 0, -1, pred)
