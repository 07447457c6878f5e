"""Brandes' accumulation over every source's shortest-path DAG, on the host (numba), step for step
as NetworkX 3.6's ``betweenness.py`` does it, so that equal-length paths are counted as NetworkX
counts them.

Per source: NetworkX's Dijkstra (a heap ordered by (distance, push count); a vertex's arcs relaxed
in CSR order, which the NetworkX backend makes G's adjacency order; ``d(v) + w == seen(w)`` compared
exactly in float64, settled heads included, as NetworkX's ``elif``) or its breadth-first search,
then the dependencies accumulated over the settled order reversed. Sources run in parallel in a
fixed number of parts, each with its own accumulators, summed in part order: the result does not
depend on the thread count or schedule. Path counts are float64, as NetworkX's.
"""
from __future__ import annotations

import warnings

import numpy as np
from numba import prange, typeof

from ..numba_cache import OneTimeCompile, cache_path, is_cached, njit

PARTS = 32  # accumulators per run: sources are split into this many parts whatever the thread count
# seconds numba takes to compile :func:`_accumulate_parts` with an empty on-disk cache: 4.7 s on a 2-core
# host (0.23 s loading the cache); said once, before it starts, where the cache lacks it
COLD_COMPILE_SECONDS = 5.0


@njit(cache=True)
def _heap_push(hd, hc, hp, hv, size, d, c, p, v):
    i = size
    hd[i], hc[i], hp[i], hv[i] = d, c, p, v
    while i > 0:
        up = (i - 1) // 2
        if hd[up] < hd[i] or (hd[up] == hd[i] and hc[up] < hc[i]):
            break
        hd[i], hd[up] = hd[up], hd[i]
        hc[i], hc[up] = hc[up], hc[i]
        hp[i], hp[up] = hp[up], hp[i]
        hv[i], hv[up] = hv[up], hv[i]
        i = up
    return size + 1


@njit(cache=True)
def _heap_pop(hd, hc, hp, hv, size):
    """Removes the smallest (distance, count) entry, moved to index ``size - 1``; the new size."""
    last = size - 1
    hd[0], hd[last] = hd[last], hd[0]
    hc[0], hc[last] = hc[last], hc[0]
    hp[0], hp[last] = hp[last], hp[0]
    hv[0], hv[last] = hv[last], hv[0]
    i = 0
    while True:
        small, left, right = i, 2 * i + 1, 2 * i + 2
        if left < last and (hd[left] < hd[small] or (hd[left] == hd[small] and hc[left] < hc[small])):
            small = left
        if right < last and (hd[right] < hd[small] or (hd[right] == hd[small] and hc[right] < hc[small])):
            small = right
        if small == i:
            return last
        hd[i], hd[small] = hd[small], hd[i]
        hc[i], hc[small] = hc[small], hc[i]
        hp[i], hp[small] = hp[small], hp[i]
        hv[i], hv[small] = hv[small], hv[i]
        i = small


@njit(cache=True)
def _dijkstra_dag(indptr, indices, weights, s, order, sigma, seen, settled, head, pool_arc, pool_next,
                  hd, hc, hp, hv):
    """NetworkX's ``_single_source_dijkstra_path_basic`` from ``s``: the settled order (its length
    returned), sigma, and each vertex's predecessor arcs as a list from ``head`` through the pool."""
    seen[:] = np.inf
    settled[:] = False
    sigma[:] = 0.0
    head[:] = -1
    sigma[s] = 1.0
    seen[s] = 0.0
    size = _heap_push(hd, hc, hp, hv, 0, 0.0, 0, s, s)
    count, settled_count, pooled = 1, 0, 0
    while size > 0:
        size = _heap_pop(hd, hc, hp, hv, size)
        dist, pred, v = hd[size], hp[size], hv[size]
        if settled[v]:
            continue
        sigma[v] += sigma[pred]  # the source too (its count doubles, as NetworkX's; ratios are unchanged)
        order[settled_count] = v
        settled_count += 1
        settled[v] = True
        for a in range(indptr[v], indptr[v + 1]):
            w = indices[a]
            vw = dist + weights[a]
            if not settled[w] and vw < seen[w]:
                seen[w] = vw
                size = _heap_push(hd, hc, hp, hv, size, vw, count, v, w)
                count += 1
                sigma[w] = 0.0
                pool_arc[pooled], pool_next[pooled] = a, -1
                head[w] = pooled
                pooled += 1
            elif vw == seen[w]:
                sigma[w] += sigma[v]
                pool_arc[pooled], pool_next[pooled] = a, head[w]
                head[w] = pooled
                pooled += 1
    return settled_count


@njit(cache=True)
def _bfs_dag(indptr, indices, s, order, sigma, level, head, pool_arc, pool_next):
    """NetworkX's ``_single_source_shortest_path_basic`` from ``s`` (hop counts)."""
    sigma[:] = 0.0
    level[:] = -1
    head[:] = -1
    sigma[s] = 1.0
    level[s] = 0
    order[0] = s
    done, queued, pooled = 0, 1, 0
    while done < queued:
        v = order[done]
        done += 1
        step = level[v] + 1
        for a in range(indptr[v], indptr[v + 1]):
            w = indices[a]
            if level[w] < 0:
                order[queued] = w
                queued += 1
                level[w] = step
            if level[w] == step:
                sigma[w] += sigma[v]
                pool_arc[pooled], pool_next[pooled] = a, head[w]
                head[w] = pooled
                pooled += 1
    return queued


@njit(cache=True, parallel=True)
def _accumulate_parts(indptr, indices, tails, weights, sources, starts, weighted, endpoints, node_acc, edge_acc,
                      top_sigma):
    """Adds the dependencies of ``sources[starts[p]:starts[p + 1]]`` to ``node_acc[p]`` (and, when
    ``edge_acc`` has columns, each arc's to ``edge_acc[p]``); ``top_sigma[p]``: the largest path count."""
    n = indptr.size - 1
    m = indices.size
    edges = edge_acc.shape[1] > 0
    for p in prange(starts.size - 1):
        order = np.empty(n, np.int64)
        sigma = np.empty(n, np.float64)
        delta = np.empty(n, np.float64)
        head = np.empty(n, np.int64)
        pool_arc = np.empty(m + 1, np.int64)
        pool_next = np.empty(m + 1, np.int64)
        seen = np.empty(n if weighted else 0, np.float64)
        settled = np.empty(n if weighted else 0, np.bool_)
        level = np.empty(0 if weighted else n, np.int64)
        hd = np.empty(m + 1 if weighted else 0, np.float64)
        hc = np.empty(m + 1 if weighted else 0, np.int64)
        hp = np.empty(m + 1 if weighted else 0, np.int64)
        hv = np.empty(m + 1 if weighted else 0, np.int64)
        for i in range(starts[p], starts[p + 1]):
            s = sources[i]
            if weighted:
                reached = _dijkstra_dag(indptr, indices, weights, s, order, sigma, seen, settled, head, pool_arc,
                                        pool_next, hd, hc, hp, hv)
            else:
                reached = _bfs_dag(indptr, indices, s, order, sigma, level, head, pool_arc, pool_next)
            if endpoints:
                node_acc[p, s] += reached - 1
            for j in range(reached):
                delta[order[j]] = 0.0
                top_sigma[p] = max(top_sigma[p], sigma[order[j]])
            for j in range(reached - 1, -1, -1):
                w = order[j]
                coeff = (1.0 + delta[w]) / sigma[w]
                e = head[w]
                while e >= 0:
                    a = pool_arc[e]
                    c = sigma[tails[a]] * coeff
                    delta[tails[a]] += c
                    if edges:
                        edge_acc[p, a] += c
                    e = pool_next[e]
                if w != s:
                    node_acc[p, w] += delta[w] + 1.0 if endpoints else delta[w]
    return top_sigma


class Accumulator:
    """Raw (unscaled) betweenness of the vertices and, with ``edges``, of the arcs of a CSR graph
    (``weights`` None: hop counts), summed over the sources given to :meth:`add` chunk by chunk."""

    def __init__(self, indptr, indices, weights, *, endpoints: bool, edges: bool, parts: int = PARTS):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.int64)
        n, m = self.indptr.size - 1, self.indices.size
        self.tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.indptr))
        self.weighted = weights is not None
        self.weights = np.ascontiguousarray(weights if self.weighted else np.zeros(0), dtype=np.float64)
        self.endpoints = endpoints
        self.parts = parts
        self.node_acc = np.zeros((parts, n))
        self.edge_acc = np.zeros((parts, m if edges else 0))
        self.top_sigma = np.zeros(parts)

    def add(self, sources) -> None:
        """The dependencies of ``sources`` (vertex ids), split into the fixed parts."""
        sources = np.ascontiguousarray(sources, dtype=np.int64)
        starts = np.linspace(0, sources.size, self.parts + 1).round().astype(np.int64)
        args = (self.indptr, self.indices, self.tails, self.weights, sources, starts, self.weighted, self.endpoints,
                self.node_acc, self.edge_acc, self.top_sigma)
        say_compile(args)
        _accumulate_parts(*args)

    def vertices(self) -> np.ndarray:
        return _ordered_sum(self.node_acc)

    def take(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(vertices, arcs, largest path count) of the sources added since the last take; starts again from 0."""
        part = (self.vertices(), self.arcs(), self.largest_path_count)
        self.node_acc[:] = 0.0
        self.edge_acc[:] = 0.0
        self.top_sigma[:] = 0.0
        return part

    def arcs(self) -> np.ndarray:
        return _ordered_sum(self.edge_acc)

    @property
    def largest_path_count(self) -> float:
        return float(self.top_sigma.max())


def say_compile(args) -> None:
    """A :class:`OneTimeCompile` warning before the first call compiles :func:`_accumulate_parts`."""
    if _accumulate_parts.overloads:
        return
    if not is_cached(_accumulate_parts, [typeof(a) for a in args]):
        warnings.warn(f"apsp_kernels.centrality: compiling the betweenness kernel (numba), about "
                      f"{COLD_COMPILE_SECONDS:.0f} s once; kept in {cache_path(_accumulate_parts)}", OneTimeCompile,
                      stacklevel=4)


def _ordered_sum(acc: np.ndarray) -> np.ndarray:
    total = np.zeros(acc.shape[1])
    for row in acc:  # part by part: the same sum whatever the thread count
        total += row
    return total
